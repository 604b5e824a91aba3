// SPDX-License-Identifier: GPL-2.0
/*
 * evlist.c — the evsels recorded together, their descriptors and rings.
 *
 * Owns the evsel array, the cpu and thread maps (one reference each) and one
 * ring per CPU index (per thread index for per-thread events): the first fd
 * of a CPU gets the mmap, every other fd of that CPU is redirected into it
 * with PERF_EVENT_IOC_SET_OUTPUT.
 *
 * Who runs what.  Every operation (open, mmap, enable, disable, munmap,
 * close) is cut into units that touch disjoint fds/ids slots, rings and
 * entries of the job's errs[], so units run at once without locks.  For
 * CPU-wide events (threads = {-1}) a unit is one CPU index: with a
 * workqueue (evlist__set_wq) and enough descriptors, the units go through
 * wq__parallel_for_cpus() and the unit of CPU c runs on the worker pinned
 * to c, where the kernel's cross-CPU calls (perf_install_in_context,
 * event_function_call) become local calls instead of IPIs.  For task
 * events (a thread map) a unit is one thread index on every CPU, through
 * wq__parallel_for(): their kernel side runs where the task is and locks
 * the task's context, so splitting by CPU would only make two workers
 * fight over the same contexts.  Rings are units of their own (one per
 * CPU, or per thread when cpus = {-1}), run inline unless parallel_mmap
 * asks otherwise (measured: no gain).  When the pool does not serve
 * every CPU of the map, the CPU units go through wq__parallel_for()
 * unpinned.  Without a workqueue, or below parallel_min_fds descriptors,
 * the same units run inline in order.  The workqueue orders everything:
 * what the calling thread wrote before queueing is visible to the units,
 * what they wrote is visible after the call returns.
 *
 * Failures.  Workers only do the pure per-CPU work and stop at their first
 * error, recording where (evsel, cpu, thread) in their errs[] entry; the
 * lowest failing evsel index so far is shared, and units give up before
 * any evsel above it (they still try those below, so the failure first in
 * (evsel, cpu, thread) order, the one an evsel-by-evsel serial open hits,
 * is always found).  Everything else happens on the calling thread:
 * evlist__open_wq() closes all that was opened, takes that first failure
 * and either applies one of perf's fallbacks (a missing attr feature, a
 * lower precise_ip, excluding the kernel when paranoid > 1, a higher
 * RLIMIT_NOFILE) and opens again, or reports it.  With skip_failed_cpus,
 * a failure on some CPUs of an evsel that opened on others (an offline CPU
 * gives ENODEV) comes first: those CPUs leave the cpu map, the open starts
 * again on the rest, and evlist_open_error lists them with their errors.
 * After a failed open nothing is open, so nothing is enabled.
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

#include "wq.h"
#include "precord/evlist.h"
#include "precord/util.h"

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

/* ---- running one operation, unit by unit ---------------------------------- */

/* Per-thread maps: the events follow their threads on any CPU. */
static bool evlist__per_thread(const struct evlist *evlist)
{
	return cpu_map__is_any(evlist->cpus);
}

/* CPU-wide events (threads = {-1}): every operation goes to its CPU. */
static bool evlist__cpu_wide(const struct evlist *evlist)
{
	return evlist->threads->nr == 1 && evlist->threads->map[0] == -1;
}

/* Descriptors the maps call for, open or not (a map not set yet counts one: a forked workload). */
static long evlist__nr_slots(const struct evlist *evlist)
{
	return (long)evlist->nr_entries * (evlist->cpus ? evlist->cpus->nr : 1) *
	       (evlist->threads ? evlist->threads->nr : 1);
}

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
typedef int (*evlist_unit_fn)(struct evlist_job *job, int c0, int c1, int t0, int t1,
			      struct evlist_unit_err *ue);

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

/*
 * Is there no point in going on to evsel_idx?  After a failure at evsel e,
 * the units still try every evsel up to e, so the failure that comes first
 * in (evsel, cpu, thread) order is always among those recorded: the one
 * the serial, evsel-by-evsel open would hit.
 */
static bool evlist_job__stopped(struct evlist_job *job, int evsel_idx)
{
	/*
	 * relaxed: the value only cuts work short; every result reaches the
	 * caller through the workqueue's completion, which orders it.
	 */
	return job->stop_on_error &&
	       evsel_idx > atomic_load_explicit(&job->fail_evsel, memory_order_relaxed);
}

static void evlist_job__failed(struct evlist_job *job, int evsel_idx)
{
	int cur = atomic_load_explicit(&job->fail_evsel, memory_order_relaxed);

	/* relaxed: see evlist_job__stopped() */
	while (evsel_idx < cur &&
	       !atomic_compare_exchange_weak_explicit(&job->fail_evsel, &cur, evsel_idx,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

static int evlist_job__run_unit(struct evlist_job *job, long u)
{
	struct evlist *evlist = job->evlist;
	struct evlist_unit_err *ue = &job->errs[u];
	int c0 = 0, c1 = evlist->cpus->nr, t0 = 0, t1 = evlist->threads->nr, err = 0;

	if (job->kind == UNIT_CPU) {
		c0 = (int)u;
		c1 = c0 + 1;
	} else {
		t0 = (int)u;
		t1 = t0 + 1;
	}
	ue->ran = true;
	err = job->fn(job, c0, c1, t0, t1, ue);
	if (err) {
		ue->err = err;
		evlist_job__failed(job, ue->evsel_idx);
	}
	return 0;	/* never stops the loop: every unit runs, if only to return */
}

static int evlist_job__unit_cb(void *arg, long idx, int slot)
{
	return evlist_job__run_unit(arg, idx);
}

/* CPU units on the workers of their CPUs, or unpinned if some CPU has none. */
static void evlist_job__run_cpus(struct evlist_job *job)
{
	struct evlist *evlist = job->evlist;
	struct wq_pool *pool = wq__pool(evlist->wq);
	int c, *cpus = malloc(sizeof(int) * (size_t)job->nr_units);
	bool pinned = true;

	if (!cpus)
		return;		/* the caller runs them */
	for (c = 0; c < job->nr_units; c++) {
		cpus[c] = evlist->cpus->map[c].cpu;
		if (wq_pool__cpu_worker(pool, cpus[c]) < 0)
			pinned = false;
	}
	if (pinned)
		wq__parallel_for_cpus(evlist->wq, cpus, job->nr_units, evlist_job__unit_cb, job, NULL);
	else
		wq__parallel_for(evlist->wq, 0, job->nr_units, 1, evlist_job__unit_cb, job, NULL);
	free(cpus);
}

static int evlist_job__group_cb(void *arg, long g, int slot)
{
	struct evlist_job *job = arg;
	const struct evlist_group *grp = &job->groups[g];
	int i;

	for (i = 0; i < grp->nr; i++)
		evlist_job__run_unit(job, job->order[grp->first + i]);
	return 0;
}

struct cpu_thread {
	int	cpu, t;
};

static int cpu_thread__cmp(const void *a, const void *b)
{
	const struct cpu_thread *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * Group the thread units by the CPU their thread last ran on (a CPU no
 * worker serves, or unknown: spread over the workers) into job->order and
 * job->groups, and the groups' CPUs into *cpusp.  Returns the number of
 * groups, or -ENOMEM.
 */
static int evlist_job__group_threads(struct evlist_job *job, int **cpusp)
{
	struct evlist *evlist = job->evlist;
	struct wq_pool *pool = wq__pool(evlist->wq);
	int t, g = 0, nr = job->nr_units, nw = wq_pool__nr_workers(pool);
	struct cpu_thread *ct = malloc(sizeof(*ct) * (size_t)nr);
	int *cpus = malloc(sizeof(int) * (size_t)nr);

	job->order = malloc(sizeof(int) * (size_t)nr);
	job->groups = malloc(sizeof(*job->groups) * (size_t)nr);
	if (!ct || !cpus || !job->order || !job->groups) {
		free(ct);
		free(cpus);
		return -ENOMEM;
	}
	for (t = 0; t < nr; t++) {
		int cpu = evlist->thread_cpus[t];

		if (cpu < 0 || wq_pool__cpu_worker(pool, cpu) < 0)
			cpu = wq_pool__worker_cpu(pool, t % nw);
		ct[t] = (struct cpu_thread){ cpu, t };
	}
	qsort(ct, (size_t)nr, sizeof(*ct), cpu_thread__cmp);
	for (t = 0; t < nr; t++) {
		job->order[t] = ct[t].t;
		if (t == 0 || ct[t].cpu != ct[t - 1].cpu) {
			job->groups[g] = (struct evlist_group){ ct[t].cpu, t, 0 };
			cpus[g++] = ct[t].cpu;
		}
		job->groups[g - 1].nr++;
	}
	free(ct);
	*cpusp = cpus;
	return g;
}

/* Thread units: on the workers of their threads' CPUs when known, else dynamically. */
static void evlist_job__run_threads(struct evlist_job *job)
{
	struct evlist *evlist = job->evlist;
	int *cpus = NULL, nr_groups;

	if (!job->by_thread_cpu || !evlist->thread_cpus) {
		wq__parallel_for(evlist->wq, 0, job->nr_units, 0, evlist_job__unit_cb, job, NULL);
		return;
	}
	nr_groups = evlist_job__group_threads(job, &cpus);
	if (nr_groups > 0)
		wq__parallel_for_cpus(evlist->wq, cpus, nr_groups, evlist_job__group_cb, job, NULL);
	free(cpus);
}

static bool evlist__parallel(const struct evlist *evlist, int nr_units)
{
	int min = evlist->parallel_min_fds ? evlist->parallel_min_fds : EVLIST_PARALLEL_MIN_FDS;

	return evlist->wq && nr_units > 1 && evlist__nr_slots(evlist) >= min;
}

/*
 * Tracepoint events: the kernel takes one global mutex (event_mutex, in
 * perf_trace_init() and perf_trace_destroy()) around every open and close
 * of one, so callers on many CPUs gain nothing and fight over it. In an
 * 8-vCPU guest, `-e 'sched:*' -a` (29 events) took 2.8-3.5 s to open from
 * the workers, where perf's opens from one thread took 0.3 s in all (most
 * likely the mutex's waiters spinning while its holder's vCPU waits for a
 * host CPU). They are opened on the calling thread, in order, after the
 * other evsels, with the rest of their group if they are in one.
 */
static bool evsel__opens_serially(const struct evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_TRACEPOINT;
}

/* A group goes whole (its leader opens before its members): serial if any of it is. */
static bool evlist__serial_at(const struct evlist *evlist, int idx)
{
	const struct evsel *evsel = evlist->entries[idx], *e;
	const struct evsel *leader = evsel->leader ? evsel->leader : evsel;
	int i;

	evlist__for_each_evsel(evlist, e, i)
		if ((e->leader ? e->leader : e) == leader && evsel__opens_serially(e))
			return true;
	return false;
}

static bool evlist_job__takes(const struct evlist_job *job, int idx)
{
	switch (job->evsels) {
	case EVSELS_PARALLEL:
		return !job->serial[idx];
	case EVSELS_SERIAL:
		return job->serial[idx];
	default:
		return true;
	}
}

static bool evlist__has_serial(const struct evlist *evlist)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		if (evsel__opens_serially(evsel))
			return true;
	return false;
}

static bool evlist_job__parallel(const struct evlist_job *job)
{
	if (job->inline_only || (job->rings && !job->evlist->parallel_mmap))
		return false;
	return evlist__parallel(job->evlist, job->nr_units);
}

static enum evlist_unit_kind evlist_job__kind(const struct evlist_job *job)
{
	const struct evlist *evlist = job->evlist;

	if (job->rings)
		return evlist__per_thread(evlist) ? UNIT_THREAD : UNIT_CPU;
	return evlist__cpu_wide(evlist) ? UNIT_CPU : UNIT_THREAD;
}

/*
 * Run job on every unit; the errors stay in job->errs (freed by the
 * caller).  Units the workqueue could not run (out of memory, called from
 * one of its own workers) run here, so every unit runs once.
 */
static int evlist_job__run(struct evlist *evlist, struct evlist_job *job)
{
	int u;

	job->evlist = evlist;
	job->kind = evlist_job__kind(job);
	job->nr_units = job->kind == UNIT_CPU ? evlist->cpus->nr : evlist->threads->nr;
	atomic_init(&job->fail_evsel, INT_MAX);
	job->errs = calloc((size_t)job->nr_units + 1, sizeof(*job->errs));
	if (!job->errs)
		return -ENOMEM;
	if (job->evsels != EVSELS_ALL) {
		job->serial = calloc((size_t)evlist->nr_entries + 1, sizeof(*job->serial));
		if (!job->serial)
			return -ENOMEM;
		for (u = 0; u < evlist->nr_entries; u++)
			job->serial[u] = evlist__serial_at(evlist, u);
	}

	if (evlist_job__parallel(job)) {
		if (job->kind == UNIT_CPU)
			evlist_job__run_cpus(job);
		else
			evlist_job__run_threads(job);
	}
	for (u = 0; u < job->nr_units; u++)
		if (!job->errs[u].ran)
			evlist_job__run_unit(job, u);
	return 0;
}

static void evlist_job__exit(struct evlist_job *job)
{
	free(job->serial);
	free(job->errs);
	free(job->order);
	free(job->groups);
}

static bool unit_err__before(const struct evlist_unit_err *a, const struct evlist_unit_err *b)
{
	if (a->evsel_idx != b->evsel_idx)
		return a->evsel_idx < b->evsel_idx;
	if (a->cpu_idx != b->cpu_idx)
		return a->cpu_idx < b->cpu_idx;
	return a->thread_idx < b->thread_idx;
}

/* The failure that comes first in (evsel, cpu, thread) order, or NULL. */
static const struct evlist_unit_err *evlist_job__first_error(const struct evlist_job *job)
{
	const struct evlist_unit_err *best = NULL;
	int u;

	for (u = 0; u < job->nr_units; u++) {
		const struct evlist_unit_err *ue = &job->errs[u];

		if (ue->err && (!best || unit_err__before(ue, best)))
			best = ue;
	}
	return best;
}

static int evlist_job__error(const struct evlist_job *job)
{
	const struct evlist_unit_err *ue = evlist_job__first_error(job);

	return ue ? ue->err : 0;
}

/* ---- the units ------------------------------------------------------------ */

static bool evsel__has_slot(const struct evsel *evsel, int c)
{
	return evsel->fds && c < evsel->nr_cpus;
}

static int evlist__open_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			     struct evlist_unit_err *ue)
{
	struct evlist *evlist = job->evlist;
	struct evsel *evsel;
	int i, c, t, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		if (!evlist_job__takes(job, i))
			continue;
		for (c = c0; c < c1; c++) {
			if (evlist_job__stopped(job, i))
				return 0;
			err = evsel__open_cpu(evsel, evlist->cpus, evlist->threads, c, t0, t1,
					      evlist->open_fn, evlist->open_ctx, &t);
			if (err) {
				ue->evsel_idx = i;
				ue->cpu_idx = c;
				ue->thread_idx = t;
				return err;
			}
		}
	}
	return 0;
}

static int evlist__close_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			      struct evlist_unit_err *ue)
{
	struct evsel *evsel;
	int i, c;

	evlist__for_each_evsel(job->evlist, evsel, i)
		for (c = c0; c < c1 && evsel__has_slot(evsel, c); c++)
			evsel__close_cpu(evsel, c, t0, t1 < evsel->nr_threads ? t1 : evsel->nr_threads);
	return 0;
}

static int evlist__ioctl_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			      struct evlist_unit_err *ue,
			      int (*fn)(struct evsel *, int, int, int))
{
	struct evsel *evsel;
	int i, c, err, first = 0;

	evlist__for_each_evsel(job->evlist, evsel, i) {
		for (c = c0; c < c1 && evsel__has_slot(evsel, c); c++) {
			err = fn(evsel, c, t0, t1 < evsel->nr_threads ? t1 : evsel->nr_threads);
			if (err && !first) {
				first = err;
				ue->evsel_idx = i;
				ue->cpu_idx = c;
				ue->thread_idx = t0;
			}
		}
	}
	return first;
}

static int evlist__enable_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			       struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__enable_cpu);
}

static int evlist__disable_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
				struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__disable_cpu);
}

/* The same for every event but the dummies, whose side-band goes on (-D ranges). */
static int evsel__enable_cpu_sampling(struct evsel *evsel, int c, int t0, int t1)
{
	return evsel__is_dummy(evsel) ? 0 : evsel__enable_cpu(evsel, c, t0, t1);
}

static int evsel__disable_cpu_sampling(struct evsel *evsel, int c, int t0, int t1)
{
	return evsel__is_dummy(evsel) ? 0 : evsel__disable_cpu(evsel, c, t0, t1);
}

static int evlist__enable_sampling_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
					struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__enable_cpu_sampling);
}

static int evlist__disable_sampling_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
					 struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__disable_cpu_sampling);
}

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
		if (err) {
			ue->evsel_idx = i;
			ue->cpu_idx = c;
			ue->thread_idx = t;
			return err;
		}
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

/* Run fn on every unit; the first error in (evsel, cpu, thread) order, or 0. */
static int evlist__run(struct evlist *evlist, evlist_unit_fn fn, bool stop_on_error,
		       bool rings, unsigned int pages)
{
	struct evlist_job job = {
		.fn = fn, .stop_on_error = stop_on_error, .rings = rings, .pages = pages,
		.by_thread_cpu = !rings,
	};
	int err;

	if (!evlist->cpus || !evlist->threads || !evlist->nr_entries)
		return 0;
	err = evlist_job__run(evlist, &job);
	if (!err)
		err = evlist_job__error(&job);
	evlist_job__exit(&job);
	return err;
}

/* ---- open ----------------------------------------------------------------- */

int evlist__read_sysctl(const char *name, int *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return file__read_int(path, 10, val);
}

static int perf_event_paranoid(void)
{
	int paranoid = 2;

	evlist__read_sysctl("perf_event_paranoid", &paranoid);
	return paranoid;
}

/* CAP_SYS_ADMIN or CAP_PERFMON in this process's effective set: no paranoid limit applies. */
static bool evlist__has_perf_caps(void)
{
	u64 caps = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (!parse__key_u64(line, "CapEff", 16, &caps))
			break;
	fclose(f);
	return caps & (1ULL << 21 | 1ULL << 38);	/* CAP_SYS_ADMIN, CAP_PERFMON */
}

bool evlist__can_profile_kernel(void)
{
	return evlist__has_perf_caps() || perf_event_paranoid() <= 1;
}

static unsigned long count_open_files(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	unsigned long n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n ? n - 1 : 0;	/* not the directory's own fd */
}

/*
 * Raise the soft RLIMIT_NOFILE to what the evlist and `extra` more
 * descriptors need (raising the hard limit too when allowed, else up to
 * it), as perf record does on EMFILE.  0 when it went up, -EMFILE when it
 * cannot (it was that high already: an EMFILE is real).
 */
static int evlist__raise_nofile_extra(struct evlist *evlist, unsigned long extra,
				      unsigned long *need)
{
	struct rlimit rl;
	rlim_t want;

	*need = (unsigned long)evlist__nr_slots(evlist) + extra + count_open_files();
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= *need)
		return -EMFILE;
	if (rl.rlim_cur == RLIM_INFINITY)
		return -EMFILE;
	want = *need;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
		struct rlimit raised = { want, want };

		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			return 0;
		want = rl.rlim_max;
		if (want <= rl.rlim_cur)
			return -EMFILE;
	}
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}

static int evlist__raise_nofile(struct evlist *evlist, unsigned long *need)
{
	return evlist__raise_nofile_extra(evlist, 64, need);
}

int evlist__reserve_nofile(struct evlist *evlist, unsigned long extra, unsigned long *need)
{
	struct rlimit rl;
	int err;

	/*
	 * As perf: the soft limit up to the hard one first, so the threads,
	 * their files and the merge's never meet a limit the estimate missed.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = evlist__raise_nofile_extra(evlist, extra, need);
	if (err && err != -EMFILE)
		return err;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= *need ? 0 : -EMFILE;
}

/*
 * Attr features of newer kernels, newest first: an EINVAL on the first
 * descriptor of an evsel that uses one means this kernel lacks it, so it is
 * switched off on every evsel, one feature per retry (perf's
 * evsel__detect_missing_features()).
 */
struct attr_feature {
	unsigned int	bit;
	bool		(*has)(const struct perf_event_attr *attr);
	void		(*clear)(struct perf_event_attr *attr);
};

static bool attr__has_read_lost(const struct perf_event_attr *a) { return a->read_format & PERF_FORMAT_LOST; }
static void attr__clear_read_lost(struct perf_event_attr *a) { a->read_format &= ~(u64)PERF_FORMAT_LOST; }
static bool attr__has_weight_struct(const struct perf_event_attr *a) { return a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT; }
static void attr__clear_weight_struct(struct perf_event_attr *a)
{
	if (!attr__has_weight_struct(a))
		return;
	a->sample_type &= ~(u64)PERF_SAMPLE_WEIGHT_STRUCT;
	a->sample_type |= PERF_SAMPLE_WEIGHT;
}
static bool attr__has_build_id(const struct perf_event_attr *a) { return a->build_id; }
static void attr__clear_build_id(struct perf_event_attr *a) { a->build_id = 0; }
static bool attr__has_ksymbol(const struct perf_event_attr *a) { return a->ksymbol || a->bpf_event; }
static void attr__clear_ksymbol(struct perf_event_attr *a) { a->ksymbol = 0; a->bpf_event = 0; }
static bool attr__has_switch(const struct perf_event_attr *a) { return a->context_switch; }
static void attr__clear_switch(struct perf_event_attr *a) { a->context_switch = 0; }
static bool attr__has_clockid(const struct perf_event_attr *a) { return a->use_clockid; }
static void attr__clear_clockid(struct perf_event_attr *a) { a->use_clockid = 0; a->clockid = 0; }
static bool attr__has_mmap2(const struct perf_event_attr *a) { return a->mmap2; }
static void attr__clear_mmap2(struct perf_event_attr *a) { a->mmap2 = 0; a->mmap = 1; }
static bool attr__has_comm_exec(const struct perf_event_attr *a) { return a->comm_exec; }
static void attr__clear_comm_exec(struct perf_event_attr *a) { a->comm_exec = 0; }
static bool attr__has_exclude_guest(const struct perf_event_attr *a) { return a->exclude_guest || a->exclude_host; }
static void attr__clear_exclude_guest(struct perf_event_attr *a) { a->exclude_guest = 0; a->exclude_host = 0; }
static bool attr__has_sample_id_all(const struct perf_event_attr *a) { return a->sample_id_all; }
static void attr__clear_sample_id_all(struct perf_event_attr *a) { a->sample_id_all = 0; }

static const struct attr_feature attr_features[] = {
	{ EVLIST_FALLBACK_READ_LOST,	 attr__has_read_lost,	  attr__clear_read_lost },
	{ EVLIST_FALLBACK_WEIGHT_STRUCT, attr__has_weight_struct, attr__clear_weight_struct },
	{ EVLIST_FALLBACK_BUILD_ID,	 attr__has_build_id,	  attr__clear_build_id },
	{ EVLIST_FALLBACK_KSYMBOL,	 attr__has_ksymbol,	  attr__clear_ksymbol },
	{ EVLIST_FALLBACK_CONTEXT_SWITCH, attr__has_switch,	  attr__clear_switch },
	{ EVLIST_FALLBACK_CLOCKID,	 attr__has_clockid,	  attr__clear_clockid },
	{ EVLIST_FALLBACK_MMAP2,	 attr__has_mmap2,	  attr__clear_mmap2 },
	{ EVLIST_FALLBACK_COMM_EXEC,	 attr__has_comm_exec,	  attr__clear_comm_exec },
	{ EVLIST_FALLBACK_EXCLUDE_GUEST, attr__has_exclude_guest, attr__clear_exclude_guest },
	{ EVLIST_FALLBACK_SAMPLE_ID_ALL, attr__has_sample_id_all, attr__clear_sample_id_all },
};

static bool evlist__drop_missing_feature(struct evlist *evlist, struct evlist_open_error *oerr)
{
	size_t f;
	int i;

	for (f = 0; f < ARRAY_SIZE(attr_features); f++) {
		const struct attr_feature *feat = &attr_features[f];

		if ((oerr->fallbacks & feat->bit) || !feat->has(&oerr->evsel->attr))
			continue;
		for (i = 0; i < evlist->nr_entries; i++)
			feat->clear(&evlist->entries[i]->attr);
		oerr->fallbacks |= feat->bit;
		return true;
	}
	return false;
}

/*
 * A thread of a -p process that exited between the /proc read and its open
 * (ESRCH): leave it out and go on with the others, as perf record does for
 * -p (its ignore_missing_thread). Not when it was the only one.
 */
static bool evlist__drop_thread(struct evlist *evlist, pid_t tid)
{
	struct thread_map *old = evlist->threads, *nt;
	pid_t *keep;
	int i, n = 0;

	if (!old || old->nr < 2 || tid <= 0 || thread_map__idx(old, tid) < 0)
		return false;
	keep = malloc(sizeof(*keep) * (size_t)old->nr);
	if (!keep)
		return false;
	for (i = 0; i < old->nr; i++)
		if (old->map[i] != tid)
			keep[n++] = old->map[i];
	nt = thread_map__new_from(keep, n);
	free(keep);
	if (!nt)
		return false;
	evlist__set_maps(evlist, evlist->cpus, nt);
	thread_map__put(nt);
	free(evlist->thread_cpus);	/* indexed by the old map */
	evlist->thread_cpus = NULL;
	return true;
}

/* ":P": one step less precise (perf's evsel__precise_ip_fallback()). */
static bool evsel__lower_precise(struct evsel *evsel)
{
	if (!evsel->precise_max || !evsel->attr.precise_ip)
		return false;
	evsel->attr.precise_ip--;
	return true;
}

/* paranoid > 1 forbids the kernel: count user space only, named "…:u" (perf's evsel__fallback()). */
static bool evsel__exclude_kernel(struct evsel *evsel)
{
	const char *sep = strchr(evsel->name, ':') || strchr(evsel->name, '/') ? "" : ":";
	char *name;

	/* CAP_PERFMON is not bound by paranoid, and a tracepoint is the kernel's: no fallback */
	if (evsel->attr.exclude_kernel || evsel->attr.exclude_user || evlist__can_profile_kernel() ||
	    evsel->attr.type == PERF_TYPE_TRACEPOINT)
		return false;
	if (asprintf(&name, "%s%su", evsel->name, sep) < 0)
		return false;
	free(evsel->name);
	evsel->name = name;
	evsel->attr.exclude_kernel = 1;
	evsel->attr.exclude_hv = 1;
	return true;
}

/*
 * cycles where no PMU counts it: the cpu-clock timer instead, named from
 * the attr as perf names it then ("cpu-clock", "cpu-clock:uH" for
 * cycles:u), whatever the event was called (perf's evsel__fallback()).
 */
static bool evsel__fallback_cycles(struct evsel *evsel, int err)
{
	char suffix[24], *name;

	if ((err != -ENOENT && err != -ENXIO && err != -ENODEV) ||
	    evsel->attr.type != PERF_TYPE_HARDWARE || evsel->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	evsel->attr.type = PERF_TYPE_SOFTWARE;
	evsel->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	evsel__mod_suffix(&evsel->attr, suffix, sizeof(suffix));
	if (asprintf(&name, "cpu-clock%s", suffix) >= 0) {
		free(evsel->name);
		evsel->name = name;
	}
	return true;
}

/*
 * ":W": a group the kernel refuses (EINVAL, EBADF on a member) is opened
 * as separate events instead (perf's evlist__reset_weak_group()). perf
 * 6.1 first tries dropping attr features for the EINVAL, which strips
 * sample_id_all and more before it splits the group; here the split comes
 * first.
 */
static bool evlist__split_weak_group(struct evlist *evlist, struct evsel *evsel, int err)
{
	struct evsel *leader = evsel->leader, *e;
	int i;

	if ((err != -EINVAL && err != -EBADF) || !leader || leader == evsel || !evsel->weak_group)
		return false;
	evlist__for_each_evsel(evlist, e, i) {
		if (e->leader == leader) {
			e->leader = e;
			e->nr_members = 1;
		}
	}
	return true;
}

/*
 * On the calling thread, after a failed open: change something and retry,
 * or not.  first_fd: the failing evsel had no descriptor open anywhere, so
 * an EINVAL is about its attr, not about one CPU or thread (perf asks for
 * a failure on the first CPU and thread; the parallel open has no order).
 */
static bool evlist__fallback(struct evlist *evlist, struct evlist_open_error *oerr,
			     bool first_fd)
{
	struct evsel *evsel = oerr->evsel;
	int err = oerr->err;

	if (!evsel)
		return false;
	if (evsel__fallback_cycles(evsel, err)) {
		oerr->fallbacks |= EVLIST_FALLBACK_CYCLES;
		return true;
	}
	if (evlist__split_weak_group(evlist, evsel, err)) {
		oerr->fallbacks |= EVLIST_FALLBACK_WEAK_GROUP;
		return true;
	}
	if (evsel__lower_precise(evsel)) {
		oerr->fallbacks |= EVLIST_FALLBACK_PRECISE_IP;
		return true;
	}
	if (err == -EMFILE) {
		if (evlist__raise_nofile(evlist, &oerr->nofile_need) || (oerr->fallbacks & EVLIST_FALLBACK_NOFILE))
			return false;
		oerr->fallbacks |= EVLIST_FALLBACK_NOFILE;
		return true;
	}
	if (err == -EINVAL && first_fd && evlist__drop_missing_feature(evlist, oerr))
		return true;
	if (err == -ESRCH && evlist__drop_thread(evlist, oerr->tid)) {
		oerr->fallbacks |= EVLIST_FALLBACK_MISSING_THREAD;
		oerr->nr_missing++;
		return true;
	}
	if ((err == -EACCES || err == -EPERM) && evsel__exclude_kernel(evsel)) {
		oerr->fallbacks |= EVLIST_FALLBACK_EXCLUDE_KERNEL;
		return true;
	}
	return false;
}

static void evlist_open_error__where(struct evlist_open_error *oerr, struct evlist *evlist,
				     const struct evlist_job *job)
{
	const struct evlist_unit_err *ue = evlist_job__first_error(job);

	if (!ue)
		return;
	oerr->err = ue->err;
	oerr->evsel = evlist->entries[ue->evsel_idx];
	oerr->cpu_idx = ue->cpu_idx;
	oerr->thread_idx = ue->thread_idx;
	oerr->cpu = evlist->cpus->map[ue->cpu_idx];
	oerr->tid = evlist->threads->map[ue->thread_idx];
}

static bool evsel__any_open(const struct evsel *evsel)
{
	int i;

	for (i = 0; i < evsel->nr_cpus * evsel->nr_threads; i++)
		if (evsel->fds[i] >= 0)
			return true;
	return false;
}

/* An error that says something about one CPU, not about the process or a thread. */
static bool open_err__is_cpus(int err)
{
	switch (-err) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case ESRCH:
	case EINTR:
	case EFAULT:
		return false;
	default:
		return true;
	}
}

static int skipped_cpu__cmp(const void *a, const void *b)
{
	const struct evlist_skipped_cpu *x = a, *y = b;

	return (x->cpu.cpu > y->cpu.cpu) - (x->cpu.cpu < y->cpu.cpu);
}

/*
 * skip_failed_cpus, after a failed attempt (its descriptors still open):
 * when the first failing evsel opened on some CPU, each CPU where it
 * failed goes into oerr->skipped.  Serial or parallel, every CPU unit
 * tried that evsel (units give up only above it), so one attempt finds
 * them all for CPU units; thread units stop at their first CPU, and the
 * next attempt finds the next.  Returns how many were added, 0 when the
 * failure is not a CPU's (then nothing is dropped), or -ENOMEM.
 */
static int evlist__collect_failed_cpus(struct evlist *evlist, const struct evlist_job *job,
				       struct evlist_open_error *oerr)
{
	struct evlist_skipped_cpu *sk;
	int u, i, n = 0, e, *failed;	/* failed[cpu index]: its error, 0: none */

	if (!evlist->skip_failed_cpus || !oerr->evsel || !evsel__any_open(oerr->evsel) ||
	    !open_err__is_cpus(oerr->err) || cpu_map__is_any(evlist->cpus))
		return 0;
	e = evlist_job__first_error(job)->evsel_idx;
	failed = calloc((size_t)evlist->cpus->nr, sizeof(*failed));
	if (!failed)
		return -ENOMEM;
	for (u = 0; u < job->nr_units; u++) {
		const struct evlist_unit_err *ue = &job->errs[u];

		if (ue->err && ue->evsel_idx == e && open_err__is_cpus(ue->err) && !failed[ue->cpu_idx]) {
			failed[ue->cpu_idx] = ue->err;
			n++;
		}
	}
	if (n == 0 || n >= evlist->cpus->nr) {
		free(failed);
		return 0;
	}
	sk = realloc(oerr->skipped, sizeof(*sk) * (size_t)(oerr->nr_skipped + n));
	if (!sk) {
		free(failed);
		return -ENOMEM;
	}
	oerr->skipped = sk;
	for (i = 0; i < evlist->cpus->nr; i++) {
		if (!failed[i])
			continue;
		sk[oerr->nr_skipped].cpu = evlist->cpus->map[i];
		sk[oerr->nr_skipped].err = failed[i];
		oerr->nr_skipped++;
	}
	qsort(sk, (size_t)oerr->nr_skipped, sizeof(*sk), skipped_cpu__cmp);
	free(failed);
	return n;
}

/* After evlist__close(): the cpu map without the CPUs in oerr->skipped. */
static int evlist__drop_skipped_cpus(struct evlist *evlist, const struct evlist_open_error *oerr)
{
	struct cpu_map *old = evlist->cpus, *nc;
	int *keep, i, j, n = 0;

	keep = malloc(sizeof(*keep) * (size_t)old->nr);
	if (!keep)
		return -ENOMEM;
	for (i = 0, j = 0; i < old->nr; i++) {
		while (j < oerr->nr_skipped && oerr->skipped[j].cpu.cpu < old->map[i].cpu)
			j++;
		if (j < oerr->nr_skipped && oerr->skipped[j].cpu.cpu == old->map[i].cpu)
			continue;
		keep[n++] = old->map[i].cpu;
	}
	nc = cpu_map__new_from(keep, n);
	free(keep);
	if (!nc)
		return -ENOMEM;
	evlist__set_maps(evlist, nc, evlist->threads);
	cpu_map__put(nc);
	return 0;
}

/*
 * The CPU a task last ran on: field 39 of its stat, or -1.  The thread's
 * own file (/proc/TID/task/TID/stat): /proc/TID/stat sums the CPU time of
 * the whole thread group, which makes reading every thread's quadratic.
 */
static int task__last_cpu(pid_t tid)
{
	char path[64], buf[1024], *p;
	int fd, field = 2, cpu;
	const char *end;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* field 2, the comm, may hold blanks and ')' */
	if (!p)
		return -1;
	for (; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (field < 39 || parse__int(p, 10, &cpu, &end))
		return -1;
	return cpu;
}

static int evlist__thread_cpu_cb(void *arg, long t, int slot)
{
	struct evlist *evlist = arg;

	evlist->thread_cpus[t] = task__last_cpu(evlist->threads->map[t]);
	return 0;
}

/*
 * Task events on a workqueue: learn where each thread sits, in parallel,
 * before the open.  A /proc read costs about what one IPI costs, and it
 * saves one for the first descriptor of the thread (the open of the first
 * event of a context calls the task's CPU) and then one per descriptor of
 * the thread for enable and disable.
 */
static void evlist__read_thread_cpus(struct evlist *evlist)
{
	int nr = evlist->threads->nr;

	free(evlist->thread_cpus);
	evlist->thread_cpus = NULL;
	if (evlist__cpu_wide(evlist) || !evlist__parallel(evlist, nr))
		return;
	evlist->thread_cpus = malloc(sizeof(int) * (size_t)nr);
	if (evlist->thread_cpus)
		wq__parallel_for(evlist->wq, 0, nr, 0, evlist__thread_cpu_cb, evlist, NULL);
}

/*
 * Grow this process's fd table to what the open needs in one step.  The
 * kernel doubles it as descriptors are allocated, and in a process with
 * several threads every doubling waits for an RCU grace period
 * (expand_fdtable()): six of them, about 8 ms each here, on the way to
 * 4000 descriptors.  Duplicating a descriptor to the highest number
 * needed makes it one; the table never shrinks, so later opens pay nothing.
 */
static void evlist__reserve_fds(struct evlist *evlist)
{
	unsigned long want = (unsigned long)evlist__nr_slots(evlist);
	struct rlimit rl;
	int fd;

	if (want < 64 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;		/* the first table holds 64: nothing worth it */
	want += count_open_files() + 16;
	if (rl.rlim_cur != RLIM_INFINITY && want >= rl.rlim_cur)
		want = rl.rlim_cur - 1;		/* as far as the limit lets; EMFILE does the rest */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if ((unsigned long)fd < want) {
		/* The lowest free descriptor >= want: nothing in use is touched. */
		int top = fcntl(fd, F_DUPFD_CLOEXEC, (int)want);

		if (top >= 0)
			close(top);
	}
	close(fd);
}

/*
 * One attempt: allocate every evsel's slots, open them all, or say where
 * it failed (and, in *first_fd, whether the failing evsel had nothing open).
 */
static int evlist__open_once(struct evlist *evlist, struct evlist_open_error *oerr,
			     bool *first_fd, int *nr_failed_cpus)
{
	struct evlist_job job = {
		.fn = evlist__open_unit, .stop_on_error = true, .by_thread_cpu = true,
		.evsels = EVSELS_PARALLEL,
	}, serial = {
		.fn = evlist__open_unit, .stop_on_error = true,
		.evsels = EVSELS_SERIAL, .inline_only = true,
	};
	const struct evlist_job *failed = &job;
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		err = evsel__alloc_fds(evsel, evlist->cpus->nr, evlist->threads->nr);
		if (err)
			goto out_err;
	}
	evlist__reserve_fds(evlist);
	evlist__read_thread_cpus(evlist);
	err = evlist_job__run(evlist, &job);
	if (!err && evlist__has_serial(evlist)) {
		err = evlist_job__run(evlist, &serial);
		/* the failure an evsel-by-evsel open meets first, of either */
		if (!err && evlist_job__first_error(&serial) &&
		    (!evlist_job__first_error(&job) ||
		     unit_err__before(evlist_job__first_error(&serial), evlist_job__first_error(&job))))
			failed = &serial;
	}
	if (err)
		goto out_exit;
	evlist_open_error__where(oerr, evlist, failed);
	if (oerr->err) {
		*first_fd = oerr->evsel && !evsel__any_open(oerr->evsel);
		*nr_failed_cpus = evlist__collect_failed_cpus(evlist, failed, oerr);
		err = oerr->err;
		goto out_exit;
	}
	evlist_job__exit(&serial);
	evlist_job__exit(&job);
	evlist__for_each_evsel(evlist, evsel, i)
		evsel->nr_ids = evsel->nr_cpus * evsel->nr_threads;
	return 0;

out_exit:
	evlist_job__exit(&serial);
	evlist_job__exit(&job);
	if (oerr->err)
		return err;
out_err:
	oerr->err = err;
	return err;
}

static void evlist_open_error__reset(struct evlist_open_error *oerr)
{
	oerr->err = 0;
	oerr->evsel = NULL;
	oerr->cpu_idx = oerr->thread_idx = -1;
	oerr->cpu.cpu = -1;
	oerr->tid = -1;
}

void evlist_open_error__exit(struct evlist_open_error *oerr)
{
	if (!oerr)
		return;
	free(oerr->skipped);
	oerr->skipped = NULL;
	oerr->nr_skipped = 0;
}

/*
 * One failed attempt, closed: leave out the CPUs it found failing (each
 * time fewer CPUs), or change something else, or give up.
 */
static bool evlist__retry(struct evlist *evlist, struct evlist_open_error *oerr,
			  bool first_fd, int nr_failed_cpus, int *tries)
{
	if (nr_failed_cpus > 0) {
		if (evlist__drop_skipped_cpus(evlist, oerr))
			return false;
		oerr->fallbacks |= EVLIST_FALLBACK_SKIP_CPUS;
		return true;	/* not a try: the map shrinks each time */
	}
	if (nr_failed_cpus < 0)
		return false;
	return ++*tries <= 64 && evlist__fallback(evlist, oerr, first_fd);
}

int evlist__open_wq(struct evlist *evlist, struct wq *wq, struct evlist_open_error *oerr)
{
	struct evlist_open_error local;
	bool first_fd = false;
	int tries = 0, err, nr_failed;

	if (!oerr)
		oerr = &local;
	memset(oerr, 0, sizeof(*oerr));
	evlist__set_wq(evlist, wq);
	if (!evlist->cpus || !evlist->threads)
		return -EINVAL;
	/* Every fallback changes an attr for good, drops CPUs or is taken once: this ends. */
	for (;;) {
		evlist_open_error__reset(oerr);
		nr_failed = 0;
		err = evlist__open_once(evlist, oerr, &first_fd, &nr_failed);
		if (!err)
			break;
		evlist__close(evlist);
		if (!evlist__retry(evlist, oerr, first_fd, nr_failed, &tries))
			break;
	}
	if (oerr == &local)
		evlist_open_error__exit(oerr);
	return err;
}

int evlist__open(struct evlist *evlist)
{
	return evlist__open_wq(evlist, evlist->wq, NULL);
}

/* perf's words for EOPNOTSUPP, the first that applies (evsel__open_strerror()). */
static int evsel__opnotsupp_strerror(const struct evsel *evsel, char *buf, size_t size)
{
	const struct perf_event_attr *attr = &evsel->attr;

	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return snprintf(buf, size, "%s: PMU Hardware or event type doesn't support branch "
				"stack sampling.", evsel->name);
	if (attr->aux_output)
		return snprintf(buf, size, "%s: PMU Hardware doesn't support 'aux_output' feature",
				evsel->name);
	if (attr->sample_period)
		return snprintf(buf, size, "%s: PMU Hardware doesn't support sampling/overflow-"
				"interrupts. Try 'perf stat'", evsel->name);
	if (attr->precise_ip)
		return snprintf(buf, size, "'precise' request may not be supported. "
				"Try removing 'p' modifier.");
	if (attr->type == PERF_TYPE_HARDWARE)
		return snprintf(buf, size, "No hardware sampling interrupt available.");
	return snprintf(buf, size, "The sys_perf_event_open() syscall returned with %d (%s) for "
			"event (%s). /bin/dmesg | grep -i perf may provide additional information.",
			EOPNOTSUPP, strerror(EOPNOTSUPP), evsel->name);
}

int evlist__open_strerror(const struct evlist_open_error *oerr, char *buf, size_t size)
{
	const struct evsel *evsel = oerr->evsel;
	const char *name = evsel ? evsel->name : "";

	if (!evsel)
		return snprintf(buf, size, "cannot open the events: %s", strerror(-oerr->err));
	switch (-oerr->err) {
	case ENOENT:
		return snprintf(buf, size, "The %s event is not supported. "
				"'perf list' shows the events this machine has.", name);
	case EOPNOTSUPP:
		return evsel__opnotsupp_strerror(evsel, buf, size);
	case EINVAL:
		if (!evlist__cpu_wide(evsel->evlist))
			return snprintf(buf, size, "Invalid event (%s) in per-thread mode, "
					"enable system wide with '-a'.", name);
		return snprintf(buf, size, "The sys_perf_event_open() syscall returned with %d (%s) "
				"for event (%s). /bin/dmesg | grep -i perf may provide additional "
				"information.", EINVAL, strerror(EINVAL), name);
	case EACCES:
	case EPERM:
		if (evlist__has_perf_caps())
			return snprintf(buf, size, "the kernel refuses '%s' even with CAP_PERFMON "
					"(%s): leave it out of -e", name, strerror(-oerr->err));
		return snprintf(buf, size, "no permission to open '%s' (kernel.perf_event_paranoid is %d): "
				"run as root, or allow it with 'sysctl kernel.perf_event_paranoid=-1'",
				name, perf_event_paranoid());
	case EMFILE:
	case ENFILE:
		return snprintf(buf, size, "too many open files: this recording needs about %lu descriptors; "
				"raise the limit with 'ulimit -n %lu'", oerr->nofile_need, oerr->nofile_need);
	case ESRCH:
		return snprintf(buf, size, "thread %d went away before '%s' could be opened on it; "
				"check the -p/-t ids", oerr->tid, name);
	case ENODEV:
		return snprintf(buf, size, "event '%s' cannot be opened on CPU %d: %s; "
				"'perf list' shows the events this machine has",
				name, oerr->cpu.cpu, strerror(ENODEV));
	default:
		return snprintf(buf, size, "cannot open '%s' on CPU %d%s: %s", name, oerr->cpu.cpu,
				oerr->tid > 0 ? " for that thread" : "", strerror(-oerr->err));
	}
}

/* Why a CPU was left out, as a key: 0 for offline (ENODEV on a CPU not online now), else its -errno. */
static int skipped_cpu__why(const struct evlist_skipped_cpu *sk, const struct cpu_map *online)
{
	if (sk->err == -ENODEV && online && !cpu_map__has(online, sk->cpu))
		return 0;
	return sk->err;
}

int evlist_open_error__skipped_str(const struct evlist_open_error *oerr, char *buf, size_t size)
{
	struct cpu_map *online = cpu_map__new_online(), *map;
	int *cpus, i, j, n, why, len = 0;
	bool *done;
	char list[256];

	if (size)
		buf[0] = '\0';
	cpus = malloc(sizeof(*cpus) * (size_t)(oerr->nr_skipped + 1));
	done = calloc((size_t)oerr->nr_skipped + 1, sizeof(*done));
	/* one group per reason, in the order of their first CPU */
	for (i = 0; cpus && done && i < oerr->nr_skipped; i++) {
		if (done[i])
			continue;
		why = skipped_cpu__why(&oerr->skipped[i], online);
		for (j = i, n = 0; j < oerr->nr_skipped; j++) {
			if (!done[j] && skipped_cpu__why(&oerr->skipped[j], online) == why) {
				done[j] = true;
				cpus[n++] = oerr->skipped[j].cpu.cpu;
			}
		}
		map = cpu_map__new_from(cpus, n);
		list[0] = '\0';
		if (map)
			cpu_map__snprintf(map, list, sizeof(list));
		cpu_map__put(map);
		len += snprintf(buf + (len < (int)size ? len : 0), len < (int)size ? size - len : 0,
				"%sCPU%s %s (%s)", len ? ", " : "", n > 1 ? "s" : "", list,
				why ? strerror(-why) : "offline");
	}
	free(done);
	free(cpus);
	cpu_map__put(online);
	return len;
}

/* ---- close, enable, disable, mmap, munmap --------------------------------- */

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
