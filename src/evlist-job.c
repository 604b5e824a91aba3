// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-job.c — one operation on every descriptor of an evlist (open,
 * mmap, enable, disable, munmap, close), cut into units run on workers.
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
 *
 * Data flow: evlist__run(evlist, op) → a struct evlist_job → the units
 * (the per-CPU or per-thread work of op, below) on the workqueue or inline
 * → each unit's first error in its errs[] entry → back on the calling
 * thread, the first failure in (evsel, cpu, thread) order.
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

/*
 * Is there no point in going on to evsel_idx?  After a failure at evsel e,
 * the units still try every evsel up to e, so the failure that comes first
 * in (evsel, cpu, thread) order is always among those recorded: the one
 * the serial, evsel-by-evsel open would hit.
 */
bool evlist_job__stopped(struct evlist_job *job, int evsel_idx)
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

bool evlist__parallel(const struct evlist *evlist, int nr_units)
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

bool evlist__has_serial(const struct evlist *evlist)
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
int evlist_job__run(struct evlist *evlist, struct evlist_job *job)
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

void evlist_job__exit(struct evlist_job *job)
{
	free(job->serial);
	free(job->errs);
	free(job->order);
	free(job->groups);
}

/* Where a unit failed: evsel i on CPU index c, thread index t; returns err. */
int unit_err__at(struct evlist_unit_err *ue, int err, int i, int c, int t)
{
	ue->evsel_idx = i;
	ue->cpu_idx = c;
	ue->thread_idx = t;
	return err;
}

bool unit_err__before(const struct evlist_unit_err *a, const struct evlist_unit_err *b)
{
	if (a->evsel_idx != b->evsel_idx)
		return a->evsel_idx < b->evsel_idx;
	if (a->cpu_idx != b->cpu_idx)
		return a->cpu_idx < b->cpu_idx;
	return a->thread_idx < b->thread_idx;
}

/* The failure that comes first in (evsel, cpu, thread) order, or NULL. */
const struct evlist_unit_err *evlist_job__first_error(const struct evlist_job *job)
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

bool evsel__has_slot(const struct evsel *evsel, int c)
{
	return evsel->fds && c < evsel->nr_cpus;
}

int evlist__open_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
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
			if (err)
				return unit_err__at(ue, err, i, c, t);
		}
	}
	return 0;
}

int evlist__close_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
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
			if (err && !first)
				first = unit_err__at(ue, err, i, c, t0);
		}
	}
	return first;
}

int evlist__enable_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
			struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__enable_cpu);
}

int evlist__disable_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
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

int evlist__enable_sampling_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
				 struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__enable_cpu_sampling);
}

int evlist__disable_sampling_unit(struct evlist_job *job, int c0, int c1, int t0, int t1,
				  struct evlist_unit_err *ue)
{
	return evlist__ioctl_unit(job, c0, c1, t0, t1, ue, evsel__disable_cpu_sampling);
}

/* Run fn on every unit; the first error in (evsel, cpu, thread) order, or 0. */
int evlist__run(struct evlist *evlist, evlist_unit_fn fn, bool stop_on_error,
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
