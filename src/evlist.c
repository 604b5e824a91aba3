// SPDX-License-Identifier: GPL-2.0
/*
 * evlist.c — the evsels recorded together and their ring buffers.
 *
 * Owns the evsel array, the cpu and thread maps (one reference each) and one
 * ring per CPU index (per thread index for per-thread events): the first fd
 * of a CPU gets the mmap, every other fd of that CPU is redirected into it
 * with PERF_EVENT_IOC_SET_OUTPUT. Runs on the setting-up thread; after
 * evlist__mmap() each ring belongs to exactly one reader thread.
 *
 * Open is all or nothing: on the first failure every descriptor opened so far
 * is closed and the error (with where it happened) goes back to the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "precord/evlist.h"

struct evlist *evlist__new(void)
{
	return calloc(1, sizeof(struct evlist));
}

void evlist__delete(struct evlist *evlist)
{
	int i;

	if (!evlist)
		return;
	evlist__munmap(evlist);
	evlist__close(evlist);
	for (i = 0; i < evlist->nr_entries; i++)
		evsel__delete(evlist->entries[i]);
	free(evlist->entries);
	cpu_map__put(evlist->cpus);
	thread_map__put(evlist->threads);
	free(evlist);
}

int evlist__add(struct evlist *evlist, struct evsel *evsel)
{
	struct evsel **e = realloc(evlist->entries,
				   sizeof(*e) * (size_t)(evlist->nr_entries + 1));

	if (!e)
		return -ENOMEM;
	evlist->entries = e;
	evsel->idx = evlist->nr_entries;
	evsel->evlist = evlist;
	e[evlist->nr_entries++] = evsel;
	return 0;
}

void evlist__set_maps(struct evlist *evlist, struct cpu_map *cpus, struct thread_map *threads)
{
	struct cpu_map *oc = evlist->cpus;
	struct thread_map *ot = evlist->threads;

	evlist->cpus = cpus ? cpu_map__get(cpus) : NULL;
	evlist->threads = threads ? thread_map__get(threads) : NULL;
	cpu_map__put(oc);
	thread_map__put(ot);
}

struct evsel *evlist__first(const struct evlist *evlist)
{
	return evlist->nr_entries ? evlist->entries[0] : NULL;
}

struct evsel *evlist__id2evsel(const struct evlist *evlist, u64 id)
{
	struct evsel *evsel;
	int i, j;

	evlist__for_each_evsel(evlist, evsel, i)
		for (j = 0; j < evsel->nr_ids; j++)
			if (evsel->ids[j] == id)
				return evsel;
	return NULL;
}

bool evlist__has_tracepoints(const struct evlist *evlist)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		if (evsel__is_tracepoint(evsel))
			return true;
	return false;
}

int evlist__open(struct evlist *evlist)
{
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		err = evsel__open(evsel, evlist->cpus, evlist->threads, NULL, NULL);
		if (err)
			goto out_close;
		err = evsel__read_ids(evsel);
		if (err)
			goto out_close;
	}
	return 0;

out_close:
	evlist__close(evlist);
	return err;
}

void evlist__close(struct evlist *evlist)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		evsel__close(evsel);
}

static int evlist__for_each_ioctl(struct evlist *evlist, int (*fn)(struct evsel *))
{
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		err = fn(evsel);
		if (err)
			return err;
	}
	return 0;
}

int evlist__enable(struct evlist *evlist)
{
	return evlist__for_each_ioctl(evlist, evsel__enable);
}

int evlist__disable(struct evlist *evlist)
{
	return evlist__for_each_ioctl(evlist, evsel__disable);
}

/* Ring index for (cpu index, thread index): per CPU, or per thread when cpus is {-1}. */
static int evlist__ring_idx(const struct evlist *evlist, int c, int t)
{
	return cpu_map__is_any(evlist->cpus) ? t : c;
}

static int evlist__mmap_one(struct evlist *evlist, int c, int t, unsigned int pages)
{
	struct ringbuf *rb = &evlist->rings[evlist__ring_idx(evlist, c, t)];
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		int fd = evsel__fd(evsel, c, t);

		if (fd < 0)
			continue;
		if (!rb->base) {
			err = ringbuf__mmap(rb, fd, pages, evlist->cpus->map[c]);
			if (err)
				return err;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rb->fd) < 0)
			return -errno;
	}
	return 0;
}

int evlist__mmap(struct evlist *evlist, unsigned int pages)
{
	int c, t, err, nr_cpus = evlist->cpus->nr, nr_threads = evlist->threads->nr;

	evlist->nr_rings = cpu_map__is_any(evlist->cpus) ? nr_threads : nr_cpus;
	evlist->rings = calloc((size_t)evlist->nr_rings, sizeof(struct ringbuf));
	if (!evlist->rings)
		return -ENOMEM;
	for (c = 0; c < evlist->nr_rings; c++)
		evlist->rings[c].idx = c;

	for (c = 0; c < nr_cpus; c++) {
		for (t = 0; t < nr_threads; t++) {
			err = evlist__mmap_one(evlist, c, t, pages);
			if (err)
				goto out_munmap;
		}
	}
	return 0;

out_munmap:
	evlist__munmap(evlist);
	return err;
}

void evlist__munmap(struct evlist *evlist)
{
	int i;

	if (!evlist->rings)
		return;
	for (i = 0; i < evlist->nr_rings; i++)
		ringbuf__munmap(&evlist->rings[i]);
	free(evlist->rings);
	evlist->rings = NULL;
	evlist->nr_rings = 0;
}

size_t evlist__id_hdr_size(const struct evlist *evlist)
{
	struct evsel *first = evlist__first(evlist);

	return first ? evsel__id_hdr_size(first) : 0;
}

int evlist__nr_fds(const struct evlist *evlist)
{
	struct evsel *evsel;
	int i, n = 0;

	evlist__for_each_evsel(evlist, evsel, i)
		n += evsel->nr_cpus * evsel->nr_threads;
	return n;
}
