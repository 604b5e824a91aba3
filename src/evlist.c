// SPDX-License-Identifier: GPL-2.0
/*
 * evlist.c — the evsels recorded together, their descriptors and rings:
 * the object itself.
 *
 * Owns the evsel array, the cpu and thread maps (one reference each) and one
 * ring per CPU index (per thread index for per-thread events): the first fd
 * of a CPU gets the mmap, every other fd of that CPU is redirected into it
 * with PERF_EVENT_IOC_SET_OUTPUT.
 *
 * Data flow: the record configuration adds evsels and sets the maps and a
 * workqueue here; evlist__open() (evlist-open.c) opens every descriptor,
 * with perf's fallbacks (evlist-fallback.c) when the kernel refuses;
 * evlist__mmap() (evlist-mmap.c) maps the rings; enable, disable and close
 * below run each operation through evlist__run() (evlist-job.c), which cuts
 * it into units run on the workers pinned to their CPUs. Runs on the
 * thread that records; only evlist-job.c's units run on workers.
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

struct evlist *evlist__new(void)
{
	return calloc(1, sizeof(struct evlist));
}

void evlist__delete(struct evlist *evlist)
{
	int i;

	if (!evlist)
		return;
	evlist->wq = NULL;	/* the pool may be gone already */
	evlist__munmap(evlist);
	evlist__close(evlist);
	for (i = 0; i < evlist->nr_entries; i++)
		evsel__delete(evlist->entries[i]);
	free(evlist->entries);
	free(evlist->thread_cpus);
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
	free(evlist->thread_cpus);
	evlist->thread_cpus = NULL;
	cpu_map__put(oc);
	thread_map__put(ot);
}

void evlist__set_wq(struct evlist *evlist, struct wq *wq)
{
	evlist->wq = wq;
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

/* Per-thread maps: the events follow their threads on any CPU. */
bool evlist__per_thread(const struct evlist *evlist)
{
	return cpu_map__is_any(evlist->cpus);
}

/* CPU-wide events (threads = {-1}): every operation goes to its CPU. */
bool evlist__cpu_wide(const struct evlist *evlist)
{
	return evlist->threads->nr == 1 && evlist->threads->map[0] == -1;
}

/* Descriptors the maps call for, open or not (a map not set yet counts one: a forked workload). */
long evlist__nr_slots(const struct evlist *evlist)
{
	return (long)evlist->nr_entries * (evlist->cpus ? evlist->cpus->nr : 1) *
	       (evlist->threads ? evlist->threads->nr : 1);
}

void evlist__close(struct evlist *evlist)
{
	struct evsel *evsel;
	int i;

	/*
	 * Tracepoints too, unlike the open: the last close of each waits for
	 * two grace periods, and closes from two threads waited less than
	 * from one (Documentation/parallel-evlist.md, "Tracepoints"); closed
	 * on this thread, -e 'sched:*' -a ended about 0.1 s later here.
	 */
	evlist__run(evlist, evlist__close_unit, false, false, 0);
	evlist__for_each_evsel(evlist, evsel, i)
		evsel__close(evsel);	/* frees the arrays; closes what no unit covered */
}

int evlist__enable(struct evlist *evlist)
{
	return evlist__run(evlist, evlist__enable_unit, false, false, 0);
}

int evlist__disable(struct evlist *evlist)
{
	return evlist__run(evlist, evlist__disable_unit, false, false, 0);
}

int evlist__enable_sampling(struct evlist *evlist)
{
	return evlist__run(evlist, evlist__enable_sampling_unit, false, false, 0);
}

int evlist__disable_sampling(struct evlist *evlist)
{
	return evlist__run(evlist, evlist__disable_sampling_unit, false, false, 0);
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
