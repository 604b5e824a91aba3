// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-mmap.c — an evlist's rings: one per CPU index (per thread index
 * for per-thread events), forward, and with --overwrite backward too.
 *
 * The first descriptor of a CPU gets the mmap, every other descriptor of
 * that CPU is redirected into it with PERF_EVENT_IOC_SET_OUTPUT. Each ring
 * is a unit of evlist-job.c, run inline unless parallel_mmap asks
 * otherwise (measured: no gain).
 *
 * Data flow: evlist__mmap() → evlist__run(EVLIST_MMAP) → evlist__mmap_unit()
 * per ring → ringbuf__mmap(); the streaming threads then read the rings
 * (stream.c); evlist__munmap() undoes it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "evlist-internal.h"

/* Ring of (cpu index, thread index): per CPU, or per thread when cpus is {-1}. */
static struct ringbuf *evlist__ring(struct evlist *evlist, int c, int t)
{
	return &evlist->rings[evlist__per_thread(evlist) ? t : c];
}

/* Map the ring of (c, t) from its first fd and point the other fds there. */
static int evlist__mmap_one(struct evlist *evlist, int c, int t, unsigned int pages,
			    struct evlist_unit_err *ue)
{
	struct ringbuf *fwd = evlist__ring(evlist, c, t), *rb;
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		int fd = evsel__has_slot(evsel, c) && t < evsel->nr_threads ?
			 evsel__fd(evsel, c, t) : -1;
		bool backward = evsel->attr.write_backward;

		if (fd < 0)
			continue;
		rb = backward ? &evlist->bk_rings[fwd->idx] : fwd;
		if (!rb->base && backward)
			err = ringbuf__mmap_overwrite(rb, fd, pages, evlist->cpus->map[c]);
		else if (!rb->base)
			err = ringbuf__mmap(rb, fd, pages, evlist->cpus->map[c]);
		else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rb->fd) < 0)
			err = -errno;
		else
			err = 0;
		if (err)
			return unit_err__at(ue, err, i, c, t);
	}
	return 0;
}

static int evlist__mmap_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			     struct evlist_unit_err *ue)
{
	int c, t, err;

	for (c = c0; c < c1; c++) {
		for (t = t0; t < t1; t++) {
			if (evlist_job__stopped(job, INT_MAX))	/* any failure */
				return 0;
			err = evlist__mmap_one(job->evlist, c, t, job->pages, ue);
			if (err)
				return err;
		}
	}
	return 0;
}

static int evlist__munmap_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			       struct evlist_unit_err *ue)
{
	struct ringbuf *rb = evlist__ring(job->evlist, c0, t0);

	if (job->evlist->bk_rings)
		ringbuf__munmap(&job->evlist->bk_rings[rb->idx]);
	ringbuf__munmap(rb);
	return 0;
}

bool evlist__has_backward(const struct evlist *evlist)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		if (evsel->attr.write_backward)
			return true;
	return false;
}

int evlist__mmap(struct evlist *evlist, unsigned int pages)
{
	int i, err;

	if (!evlist->cpus || !evlist->threads)
		return -EINVAL;
	if (pages == 0 || (pages & (pages - 1)))
		return -EINVAL;
	evlist->nr_rings = evlist__per_thread(evlist) ? evlist->threads->nr : evlist->cpus->nr;
	evlist->rings = calloc((size_t)evlist->nr_rings, sizeof(struct ringbuf));
	if (!evlist->rings)
		return -ENOMEM;
	for (i = 0; i < evlist->nr_rings; i++)
		evlist->rings[i].idx = i;
	if (evlist__has_backward(evlist)) {
		evlist->bk_rings = calloc((size_t)evlist->nr_rings, sizeof(struct ringbuf));
		if (!evlist->bk_rings) {
			evlist__munmap(evlist);
			return -ENOMEM;
		}
		for (i = 0; i < evlist->nr_rings; i++)
			evlist->bk_rings[i].idx = i;
	}

	err = evlist__run(evlist, evlist__mmap_unit, true, true, pages);
	if (err)
		evlist__munmap(evlist);
	return err;
}

void evlist__munmap(struct evlist *evlist)
{
	int i;

	if (!evlist->rings)
		return;
	evlist__run(evlist, evlist__munmap_unit, false, true, 0);
	for (i = 0; i < evlist->nr_rings; i++) {
		ringbuf__munmap(&evlist->rings[i]);	/* a no-op on unmapped rings */
		if (evlist->bk_rings)
			ringbuf__munmap(&evlist->bk_rings[i]);
	}
	free(evlist->rings);
	free(evlist->bk_rings);
	evlist->rings = NULL;
	evlist->bk_rings = NULL;
	evlist->nr_rings = 0;
}
