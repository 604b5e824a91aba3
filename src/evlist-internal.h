/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evlist-internal.h — what the files of the evlist share, and nothing else
 * includes. The module (include/precord/evlist.h) is cut into files by
 * what they own:
 *
 *   evlist.c           the object: evsels, maps, enable, disable, close
 *   evlist-job.c       one operation cut into units run on the workers
 *   evlist-mmap.c      the rings
 *   evlist-open.c      the open, skipped CPUs, the error lines
 *   evlist-fallback.c  perf's fallbacks and the limits they read
 *
 * Everything here runs on the thread that owns the evlist, but the units
 * (evlist__*_unit()), which run on workers (evlist-job.c says how).
 */
#ifndef PRECORD_EVLIST_INTERNAL_H
#define PRECORD_EVLIST_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "wq.h"
#include "precord/evlist.h"
#include "precord/util.h"

/*
 * How an operation is cut into units.  UNIT_CPU: unit u is CPU index u
 * with every thread, run on the worker pinned to that CPU; used for
 * CPU-wide events, whose kernel side runs on the event's CPU, and for the
 * per-CPU rings.  UNIT_THREAD: unit u is thread index u on every CPU
 * index; used for task events, whose kernel side takes the task's context
 * (a unit per thread keeps two workers off the same context) and runs on
 * whatever CPU the task is on, and for per-thread rings.
 */
enum evlist_unit_kind { UNIT_CPU, UNIT_THREAD };

/* Thread units run on the worker of one CPU: the CPU their threads last ran on. */
struct evlist_group {
	int	cpu;
	int	first;		/* in the job's order[] */
	int	nr;
};

/* What one unit reports; written only by whoever runs that unit. */
struct evlist_unit_err {
	int	err;		/* 0 or -errno */
	int	evsel_idx;	/* where it failed */
	int	cpu_idx;
	int	thread_idx;
	bool	ran;		/* the unit was run (or skipped after a stop) */
};

struct evlist_job;
/*
 * Do the job for cpu indexes [c0, c1) and thread indexes [t0, t1);
 * 0 or -errno with *ue filled.
 */
typedef int evlist_unit_func(struct evlist_job *job, int c0, int c1, int t0, int t1,
			     struct evlist_unit_err *ue);
typedef evlist_unit_func *evlist_unit_fn;

/* Which evsels a job's units take (see evsel__opens_serially()). */
enum evlist_evsels { EVSELS_ALL, EVSELS_PARALLEL, EVSELS_SERIAL };

/*
 * One operation over every unit.  Legend: I: set before the units run,
 * read-only while they run; U: entry u written by unit u only; A: atomic.
 */
struct evlist_job {
	struct evlist		*evlist;	/* I */
	evlist_unit_fn		fn;		/* I */
	enum evlist_evsels	evsels;		/* I: the evsels its units take */
	bool			*serial;	/* I: per evsel index: opens serially (not ALL) */
	bool			inline_only;	/* I: every unit on the calling thread, in order */
	bool			stop_on_error;	/* I: open, mmap: a failure cuts the rest short */
	bool			rings;		/* I: units are rings (mmap, munmap) */
	bool			by_thread_cpu;	/* I: thread units go to their thread's CPU */
	unsigned int		pages;		/* I: mmap's ring size */
	enum evlist_unit_kind	kind;		/* I */
	int			nr_units;	/* I */
	atomic_int		fail_evsel;	/* A: lowest evsel index that failed; INT_MAX: none */
	struct evlist_unit_err	*errs;		/* U */
	int			*order;		/* I: thread units, grouped by CPU */
	struct evlist_group	*groups;	/* I */
};

/* ---- evlist.c ---- */

bool evlist__per_thread(const struct evlist *evlist);
bool evlist__cpu_wide(const struct evlist *evlist);
long evlist__nr_slots(const struct evlist *evlist);

/* ---- evlist-job.c ---- */

bool evlist_job__stopped(struct evlist_job *job, int evsel_idx);
bool evlist__parallel(const struct evlist *evlist, int nr_units);
bool evlist__has_serial(const struct evlist *evlist);
int evlist_job__run(struct evlist *evlist, struct evlist_job *job);
void evlist_job__exit(struct evlist_job *job);
int unit_err__at(struct evlist_unit_err *ue, int err, int i, int c, int t);
bool unit_err__before(const struct evlist_unit_err *a, const struct evlist_unit_err *b);
const struct evlist_unit_err *evlist_job__first_error(const struct evlist_job *job);
bool evsel__has_slot(const struct evsel *evsel, int c);
/* The units of open, close, enable and disable (evlist-job.c). */
evlist_unit_func evlist__open_unit, evlist__close_unit, evlist__enable_unit, evlist__disable_unit;
/* The same for every evsel but the dummies, whose side-band goes on (-D ranges). */
evlist_unit_func evlist__enable_sampling_unit, evlist__disable_sampling_unit;
int evlist__run(struct evlist *evlist, evlist_unit_fn fn, bool stop_on_error,
		bool rings, unsigned int pages);

/* ---- evlist-fallback.c ---- */

int evlist__paranoid(void);
bool evlist__has_perf_caps(void);
unsigned long evlist__count_open_files(void);
bool evlist__fallback(struct evlist *evlist, struct evlist_open_error *oerr,
		      bool first_fd);

#endif /* PRECORD_EVLIST_INTERNAL_H */
