/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evlist.h — the list of evsels recorded together, over one cpu map and one
 * thread map, and the ring buffers they write into (libperf's perf_evlist).
 */
#ifndef PRECORD_EVLIST_H
#define PRECORD_EVLIST_H

#include <stdbool.h>
#include "precord/evsel.h"
#include "precord/ringbuf.h"

struct evlist {
	struct evsel		**entries;
	int			nr_entries;
	struct cpu_map		*cpus;		/* CPUs events are opened on ({-1} per-thread) */
	struct thread_map	*threads;	/* threads ({-1} for system-wide/per-CPU) */

	/* One ring per cpu index (per thread index when cpus is {-1}). */
	struct ringbuf		*rings;
	int			nr_rings;
};

#define evlist__for_each_evsel(_evlist, _evsel, _i)			\
	for ((_i) = 0; (_i) < (_evlist)->nr_entries &&			\
	     ((_evsel) = (_evlist)->entries[_i], 1); (_i)++)

struct evlist *evlist__new(void);
void evlist__delete(struct evlist *evlist);	/* closes and unmaps; accepts NULL */
int evlist__add(struct evlist *evlist, struct evsel *evsel);
void evlist__set_maps(struct evlist *evlist, struct cpu_map *cpus, struct thread_map *threads);
struct evsel *evlist__first(const struct evlist *evlist);
struct evsel *evlist__id2evsel(const struct evlist *evlist, u64 id);
bool evlist__has_tracepoints(const struct evlist *evlist);

int evlist__open(struct evlist *evlist);
void evlist__close(struct evlist *evlist);
int evlist__enable(struct evlist *evlist);
int evlist__disable(struct evlist *evlist);
/* Map one ring of `pages` data pages per cpu (or thread) and redirect the other fds into it. */
int evlist__mmap(struct evlist *evlist, unsigned int pages);
void evlist__munmap(struct evlist *evlist);

/* Bytes of the sample_id trailer on non-sample records (same for all evsels). */
size_t evlist__id_hdr_size(const struct evlist *evlist);
/* Total descriptors open (events x cpus x threads). */
int evlist__nr_fds(const struct evlist *evlist);

#endif /* PRECORD_EVLIST_H */
