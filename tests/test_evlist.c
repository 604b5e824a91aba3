// SPDX-License-Identifier: GPL-2.0
/*
 * test_evlist.c — evlist open, mmap, enable, disable, munmap and close,
 * serial and on a workqueue, with real perf_event_open() of software
 * events (skipped when the kernel refuses them: EACCES/EPERM).
 *
 * What decides that a descriptor is where it should be: each evsel is a
 * dummy event with comm=1 and a sample_id trailer holding the CPU and the
 * IDENTIFIER; the test renames a thread (prctl PR_SET_NAME) on a chosen
 * CPU, and the kernel then writes one PERF_RECORD_COMM per evsel into the
 * ring of that CPU (or that thread), each carrying the id of the evsel's
 * descriptor for that (cpu, thread).  So the records read back from the
 * rings give the kernel's own (id, cpu, tid) triples, which must equal the
 * evlist's (ids[], cpu map, thread map) for the serial and the parallel
 * open alike.  Failures are injected with the evlist's test-only open_fn;
 * descriptor leaks are counted in /proc/self/fd.  Starts threads (a
 * workqueue pool and sleeper threads): listed in tests/threaded.list.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "wq.h"
#include "precord/evlist.h"
#include "precord/tracefs.h"
#include "helpers.h"

#define RING_PAGES	8

/* ---- fixtures ---------------------------------------------------------------- */

struct fixture {
	struct wq_pool	*pool;
	struct wq	*wq;
};

static int group_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char msg[256];

	if (!fx)
		return -1;
	fx->pool = wq_pool__new(&(struct wq_pool_attr){ .name = "tst-wq" }, msg, sizeof(msg));
	if (!fx->pool) {
		fprintf(stderr, "cannot start the pool: %s\n", msg);
		free(fx);
		return -1;
	}
	fx->wq = wq__new(fx->pool, "evlist", 0);
	if (!fx->wq) {
		wq_pool__delete(fx->pool);
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int group_teardown(void **state)
{
	struct fixture *fx = *state;

	wq__delete(fx->wq);
	wq_pool__delete(fx->pool);
	free(fx);
	return 0;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A dummy event that reports renames with (tid, cpu, identifier) after them. */
static struct evsel *comm_evsel(bool disabled)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
		.read_format = PERF_FORMAT_ID,
		.comm = 1,
		.sample_id_all = 1,
		.disabled = disabled,
	};
	struct evsel *evsel = evsel__new(&attr, "dummy");

	assert_non_null(evsel);
	return evsel;
}

static struct evlist *comm_evlist(int nr_evsels, struct cpu_map *cpus, struct thread_map *threads,
				  struct wq *wq)
{
	struct evlist *evlist = evlist__new();
	int i;

	assert_non_null(evlist);
	for (i = 0; i < nr_evsels; i++)
		assert_int_equal(evlist__add(evlist, comm_evsel(true)), 0);
	evlist__set_maps(evlist, cpus, threads);
	evlist__set_wq(evlist, wq);
	evlist->parallel_min_fds = 1;	/* parallel whenever there is a wq */
	evlist->parallel_mmap = true;	/* rings too: that path must work, if off by default */
	return evlist;
}

/*
 * comm_evlist() over every online CPU and the dummy thread map; the evlist
 * holds the only references to its maps, so evlist__delete() frees them.
 */
static struct evlist *online_evlist(int nr_evsels, struct wq *wq)
{
	struct cpu_map *cpus = cpu_map__new_online();
	struct thread_map *threads = thread_map__new_dummy();
	struct evlist *evlist;

	assert_non_null(cpus);
	assert_non_null(threads);
	evlist = comm_evlist(nr_evsels, cpus, threads, wq);
	cpu_map__put(cpus);
	thread_map__put(threads);
	return evlist;
}

/* The real perf_event_open(), as the open_fn hooks call it once they let an open through. */
static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : fd;
}

/* Open, or skip the test when this kernel or user may not open these events. */
static void open_or_skip(struct evlist *evlist, struct evlist_open_error *oerr)
{
	int err = evlist__open_wq(evlist, evlist->wq, oerr);

	if (err == -EACCES || err == -EPERM) {
		evlist__delete(evlist);
		skip();
	}
	assert_int_equal(err, 0);
}

static struct cpu_map *online(void)
{
	struct cpu_map *cpus = cpu_map__new_online();

	assert_non_null(cpus);
	return cpus;
}

/* ---- checks -------------------------------------------------------------------- */

/* Every slot holds a distinct perf event fd whose kernel id is ids[slot]. */
static void check_slots(const struct evlist *evlist)
{
	int nr = evlist->cpus->nr * evlist->threads->nr, i, s, fds = 0;
	struct evsel *evsel;

	evlist__for_each_evsel(evlist, evsel, i) {
		assert_int_equal(evsel->nr_cpus, evlist->cpus->nr);
		assert_int_equal(evsel->nr_threads, evlist->threads->nr);
		assert_int_equal(evsel->nr_ids, nr);
		for (s = 0; s < nr; s++) {
			char path[64], link[64] = "";
			u64 id = 0;

			assert_true(evsel->fds[s] >= 0);
			snprintf(path, sizeof(path), "/proc/self/fd/%d", evsel->fds[s]);
			assert_true(readlink(path, link, sizeof(link) - 1) > 0);
			assert_string_equal(link, "anon_inode:[perf_event]");
			assert_int_equal(ioctl(evsel->fds[s], PERF_EVENT_IOC_ID, &id), 0);
			assert_true(id == evsel->ids[s]);
			assert_ptr_equal(evlist__id2evsel(evlist, id), evsel);
			fds++;
		}
	}
	assert_int_equal(evlist__nr_fds(evlist), fds);
}

/* A (id, cpu, tid) triple as the kernel reports it in a COMM record. */
struct triple {
	u64	id;
	int	cpu;
	pid_t	tid;
};

struct comm_scan {
	const char	*name;		/* the comm we set */
	struct triple	found[64];
	int		nr;
};

/* COMM: header, u32 pid, u32 tid, comm[] padded to 8; then tid/pid, cpu/res, identifier. */
static int comm_sink(void *ctx, const void *data, size_t size)
{
	struct comm_scan *scan = ctx;
	const unsigned char *p = data, *end = p + size;

	while (p < end) {
		const struct perf_event_header *hdr = (const void *)p;

		if (hdr->type == PERF_RECORD_COMM && !strcmp((const char *)p + 16, scan->name) &&
		    scan->nr < 64) {
			struct triple *t = &scan->found[scan->nr++];
			const unsigned char *tail = p + hdr->size - 24;
			u32 v[2];

			memcpy(v, tail, sizeof(v));
			t->tid = (pid_t)v[1];
			memcpy(v, tail + 8, sizeof(v));
			t->cpu = (int)v[0];
			memcpy(&t->id, tail + 16, sizeof(t->id));
		}
		p += hdr->size;
	}
	return 0;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(sched_getcpu(), cpu);
}

static void unpin_self(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The COMM records with `name` in ring r must be exactly one per evsel,
 * each carrying the id of that evsel's descriptor at (c, t), with the
 * kernel's cpu and tid equal to the maps' (-1 map entries: want_cpu/tid).
 */
static void check_ring(struct evlist *evlist, int r, const char *name, int c, int t,
		       int want_cpu, pid_t want_tid)
{
	struct comm_scan scan = { .name = name };
	struct evsel *evsel;
	int i, j;

	assert_true(ringbuf__read(&evlist->rings[r], comm_sink, &scan) >= 0);
	assert_int_equal(scan.nr, evlist->nr_entries);
	evlist__for_each_evsel(evlist, evsel, i) {
		u64 id = evsel->ids[c * evsel->nr_threads + t];

		for (j = 0; j < scan.nr && scan.found[j].id != id; j++)
			;
		assert_true(j < scan.nr);
		assert_int_equal(scan.found[j].cpu, want_cpu);
		assert_int_equal(scan.found[j].tid, want_tid);
	}
}

/* Rename this thread on every CPU of the map; each CPU's ring must see it with its ids. */
static void check_cpu_rings(struct evlist *evlist)
{
	char name[16];
	int c;

	for (c = 0; c < evlist->cpus->nr; c++) {
		pin_self(evlist->cpus->map[c].cpu);
		snprintf(name, sizeof(name), "evl-cpu%d", evlist->cpus->map[c].cpu);
		assert_int_equal(prctl(PR_SET_NAME, name), 0);
		check_ring(evlist, c, name, c, 0, evlist->cpus->map[c].cpu, gettid_());
	}
	unpin_self();
}

/* ---- system-wide: serial and parallel give the same evlist ---------------------- */

static void run_cycle_checked(struct evlist *evlist)
{
	assert_int_equal(evlist__mmap(evlist, RING_PAGES), 0);
	assert_int_equal(evlist->nr_rings, evlist->cpus->nr);
	assert_int_equal(evlist__enable(evlist), 0);
	check_cpu_rings(evlist);
	assert_int_equal(evlist__disable(evlist), 0);
	evlist__munmap(evlist);
	assert_null(evlist->rings);
}

static void test_open_serial_equals_parallel(void **state)
{
	struct fixture *fx = *state;
	struct cpu_map *cpus = online();
	struct thread_map *threads = thread_map__new_dummy();
	struct evlist *serial, *parallel;
	int before = fds__count(), i, s;

	serial = comm_evlist(3, cpus, threads, NULL);
	parallel = comm_evlist(3, cpus, threads, fx->wq);
	open_or_skip(serial, NULL);
	open_or_skip(parallel, NULL);
	check_slots(serial);
	check_slots(parallel);
	/* Same shape, different descriptors and ids. */
	for (i = 0; i < 3; i++)
		for (s = 0; s < cpus->nr; s++) {
			assert_int_not_equal(serial->entries[i]->fds[s], parallel->entries[i]->fds[s]);
			assert_true(serial->entries[i]->ids[s] != parallel->entries[i]->ids[s]);
		}
	run_cycle_checked(serial);
	run_cycle_checked(parallel);
	evlist__close(parallel);
	evlist__close(serial);
	assert_int_equal(evlist__nr_fds(parallel), 0);
	assert_int_equal(fds__count(), before);
	evlist__delete(serial);
	evlist__delete(parallel);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* ---- where each open runs ---------------------------------------------------- */

#define MAX_CALLS	256

struct open_log {
	atomic_int	nr;
	struct {
		pid_t	pid;		/* the event's thread */
		int	cpu;		/* the event's CPU */
		int	ran_on;		/* sched_getcpu() of the caller */
		pid_t	tid;		/* the caller */
	} call[MAX_CALLS];
};

static int logging_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	struct open_log *log = ctx;
	int i = atomic_fetch_add(&log->nr, 1);

	if (i < MAX_CALLS) {
		log->call[i].pid = pid;
		log->call[i].cpu = cpu;
		log->call[i].ran_on = sched_getcpu();
		log->call[i].tid = gettid_();
	}
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* Forced parallel: the opens for CPU c run on a worker, on CPU c. */
static void test_open_runs_on_the_cpu(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(2, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct open_log *log = calloc(1, sizeof(*log));
	int i, n;

	assert_non_null(log);
	evlist->open_fn = logging_open;
	evlist->open_ctx = log;
	open_or_skip(evlist, NULL);
	n = atomic_load(&log->nr);
	assert_int_equal(n, 2 * cpus->nr);
	for (i = 0; i < n; i++) {
		assert_int_equal(log->call[i].ran_on, log->call[i].cpu);
		if (cpus->nr > 1)
			assert_int_not_equal(log->call[i].tid, gettid_());
	}
	evlist__delete(evlist);
	free(log);
}

/* Below the cutoff (default), a small evlist opens inline in the caller. */
static void test_small_evlist_runs_inline(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(1, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct open_log *log = calloc(1, sizeof(*log));
	int i;

	assert_non_null(log);
	evlist->parallel_min_fds = 0;	/* the default cutoff */
	if (cpus->nr >= EVLIST_PARALLEL_MIN_FDS)
		skip();
	evlist->open_fn = logging_open;
	evlist->open_ctx = log;
	open_or_skip(evlist, NULL);
	assert_int_equal(atomic_load(&log->nr), cpus->nr);
	for (i = 0; i < cpus->nr; i++)
		assert_int_equal(log->call[i].tid, gettid_());
	evlist__delete(evlist);
	free(log);
}

/* A sched tracepoint event (name: sched_switch, ...), or NULL without tracefs. */
static struct evsel *tracepoint_evsel(const char *name, u64 marker)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = marker,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
		.read_format = PERF_FORMAT_ID,
		.disabled = 1,
	};
	int id = tracefs__event_id("sched", name);

	if (id < 0)
		return NULL;
	attr.config = (u64)id;
	return evsel__new(&attr, name);
}

/*
 * Tracepoint events open on the calling thread, CPU by CPU, after the
 * others (which go to the workers): every open of one takes the kernel's
 * event_mutex, so parallel callers only contend. They close like the
 * others.
 */
static void check_tracepoints_on_caller(struct wq *wq)
{
	struct evlist *evlist = online_evlist(1, wq);
	struct cpu_map *cpus = evlist->cpus;
	struct open_log *log = calloc(1, sizeof(*log));
	struct evsel *tp1 = tracepoint_evsel("sched_switch", 1001);
	struct evsel *tp2 = tracepoint_evsel("sched_wakeup", 1002);
	int before = fds__count(), i, n, c = 0;

	assert_non_null(log);
	if (!tp1 || !tp2) {
		evsel__delete(tp1);
		evsel__delete(tp2);
		evlist__delete(evlist);
		free(log);
		skip();
	}
	assert_int_equal(evlist__add(evlist, tp1), 0);
	assert_int_equal(evlist__add(evlist, tp2), 0);
	evlist->open_fn = logging_open;
	evlist->open_ctx = log;
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	n = atomic_load(&log->nr);
	assert_int_equal(n, 3 * cpus->nr);
	/* the dummy's opens first, on the workers; then the tracepoints' here, in order */
	for (i = 0; i < cpus->nr; i++)
		if (wq && cpus->nr > 1)
			assert_int_not_equal(log->call[i].tid, gettid_());
	for (i = cpus->nr; i < n; i++) {
		assert_int_equal(log->call[i].tid, gettid_());
		assert_int_equal(log->call[i].cpu, cpus->map[c].cpu);
		if ((i - cpus->nr) % 2)
			c++;
	}
	evlist__close(evlist);
	assert_int_equal(evlist__nr_fds(evlist), 0);
	assert_int_equal(fds__count(), before);
	evlist__delete(evlist);
	free(log);
}

static void test_tracepoints_on_caller(void **state)
{
	struct fixture *fx = *state;

	check_tracepoints_on_caller(fx->wq);
	check_tracepoints_on_caller(NULL);
}

/* A group led by a tracepoint goes whole to the caller: the member needs its leader's fd. */
static void test_tracepoint_group_on_caller(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(1, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct open_log *log = calloc(1, sizeof(*log));
	struct evsel *tp = tracepoint_evsel("sched_switch", 1001), *member;
	int i, n;

	assert_non_null(log);
	if (!tp) {
		evlist__delete(evlist);
		free(log);
		skip();
	}
	assert_int_equal(evlist__add(evlist, tp), 0);
	member = comm_evsel(true);
	assert_int_equal(evlist__add(evlist, member), 0);
	member->leader = tp;
	tp->nr_members = 2;
	evlist->open_fn = logging_open;
	evlist->open_ctx = log;
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	n = atomic_load(&log->nr);
	assert_int_equal(n, 3 * cpus->nr);
	for (i = cpus->nr; i < n; i++)
		assert_int_equal(log->call[i].tid, gettid_());
	evlist__delete(evlist);
	free(log);
}

/* ---- failures ------------------------------------------------------------------ */

struct inject {
	int	cpu;		/* fail opens on this CPU ... */
	u64	config;		/* ... of the event with this sample_period marker */
	int	cpu2;		/* and on this one ... */
	u64	config2;	/* ... of this one (0: no second failure) */
	int	err;
	atomic_int calls;
};

static int failing_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	struct inject *inj = ctx;

	atomic_fetch_add(&inj->calls, 1);
	if (cpu == inj->cpu && attr->sample_period == inj->config)
		return inj->err;
	if (inj->config2 && cpu == inj->cpu2 && attr->sample_period == inj->config2)
		return -ENODEV;
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void check_injected_failure(struct wq *wq)
{
	struct evlist *evlist = online_evlist(3, wq);
	struct cpu_map *cpus = evlist->cpus;
	struct inject inj = { .cpu = cpus->map[cpus->nr - 1].cpu, .config = 1002, .err = -EBUSY };
	struct evlist_open_error oerr;
	char msg[256], want[64];
	int before = fds__count(), i, err;

	for (i = 0; i < 3; i++) {
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
		evlist->entries[i]->attr.disabled = 0;	/* enabled as soon as opened */
	}
	/* Fails on evsel 2 of the last CPU, so evsel 0 and 1 are open everywhere by then. */
	evlist->open_fn = failing_open;
	evlist->open_ctx = &inj;
	err = evlist__open_wq(evlist, wq, &oerr);
	assert_int_equal(err, -EBUSY);
	assert_int_equal(oerr.err, -EBUSY);
	assert_ptr_equal(oerr.evsel, evlist->entries[2]);
	assert_int_equal(oerr.cpu.cpu, inj.cpu);
	assert_int_equal(oerr.cpu_idx, cpus->nr - 1);
	assert_int_equal(oerr.thread_idx, 0);
	assert_int_equal(oerr.tid, -1);
	assert_int_equal(oerr.fallbacks, 0);
	assert_true(atomic_load(&inj.calls) >= 3);
	/* Nothing left open, so nothing left enabled. */
	assert_int_equal(fds__count(), before);
	assert_int_equal(evlist__nr_fds(evlist), 0);
	for (i = 0; i < 3; i++)
		assert_null(evlist->entries[i]->fds);
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	snprintf(want, sizeof(want), "cannot open 'dummy' on CPU %d: ", inj.cpu);
	assert_non_null(strstr(msg, want));
	/* The same evlist opens fine once the failure is gone. */
	evlist->open_fn = NULL;
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	evlist__delete(evlist);
	assert_int_equal(fds__count(), before);
}

/*
 * Two failures, evsel 2 on the first CPU and evsel 1 on the last: the one
 * reported is evsel 1's, as an evsel-by-evsel open would meet it first.
 */
static void check_first_failure_reported(struct wq *wq)
{
	struct evlist *evlist = online_evlist(3, wq);
	struct cpu_map *cpus = evlist->cpus;
	struct inject inj = {
		.cpu = cpus->map[cpus->nr - 1].cpu, .config = 1001, .err = -EBUSY,
		.cpu2 = cpus->map[0].cpu, .config2 = 1002,
	};
	struct evlist_open_error oerr;
	int before = fds__count(), i;

	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
	evlist->open_fn = failing_open;
	evlist->open_ctx = &inj;
	assert_int_equal(evlist__open_wq(evlist, wq, &oerr), -EBUSY);
	assert_ptr_equal(oerr.evsel, evlist->entries[1]);
	assert_int_equal(oerr.cpu.cpu, inj.cpu);
	assert_int_equal(fds__count(), before);
	evlist__delete(evlist);
}

/*
 * The same across the two passes: a tracepoint (evsel 1, opened on the
 * caller after the others) failing on the last CPU comes before evsel 2
 * failing on the first CPU on a worker.
 */
static void test_first_failure_across_passes(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(1, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct evsel *tp = tracepoint_evsel("sched_switch", 1001);
	struct inject inj = {
		.cpu = cpus->map[cpus->nr - 1].cpu, .config = 1001, .err = -EBUSY,
		.cpu2 = cpus->map[0].cpu, .config2 = 1002,
	};
	struct evlist_open_error oerr;
	int before = fds__count();

	if (!tp) {
		evlist__delete(evlist);
		skip();
	}
	assert_int_equal(evlist__add(evlist, tp), 0);
	assert_int_equal(evlist__add(evlist, comm_evsel(true)), 0);
	evlist->entries[0]->attr.sample_period = 1000;
	evlist->entries[2]->attr.sample_period = 1002;
	evlist->open_fn = failing_open;
	evlist->open_ctx = &inj;
	assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -EBUSY);
	assert_ptr_equal(oerr.evsel, tp);
	assert_int_equal(oerr.cpu.cpu, inj.cpu);
	assert_int_equal(fds__count(), before);
	evlist__delete(evlist);
}

static void test_first_failure_reported(void **state)
{
	struct fixture *fx = *state;

	check_first_failure_reported(fx->wq);
	check_first_failure_reported(NULL);
}

/* Serially, after evsel 0 fails on the first CPU, the other CPUs try evsel 0 and stop. */
static void test_failure_stops_later_evsels(void **state)
{
	struct evlist *evlist = online_evlist(3, NULL);
	struct cpu_map *cpus = evlist->cpus;
	struct inject inj = { .cpu = cpus->map[0].cpu, .config = 1000, .err = -EBUSY };
	int i;

	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
	evlist->open_fn = failing_open;
	evlist->open_ctx = &inj;
	assert_int_equal(evlist__open_wq(evlist, NULL, NULL), -EBUSY);
	assert_int_equal(atomic_load(&inj.calls), cpus->nr);
	evlist__delete(evlist);
}

static void test_injected_failure_parallel(void **state)
{
	struct fixture *fx = *state;

	check_injected_failure(fx->wq);
}

static void test_injected_failure_serial(void **state)
{
	check_injected_failure(NULL);
}

/* An older kernel: EINVAL for build_id and PERF_FORMAT_LOST until they are cleared. */
static int old_kernel_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	atomic_int *einvals = ctx;

	if (attr->build_id || (attr->read_format & PERF_FORMAT_LOST)) {
		atomic_fetch_add(einvals, 1);
		return -EINVAL;
	}
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void test_missing_features_fall_back(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(2, fx->wq);
	struct evlist_open_error oerr;
	atomic_int einvals = 0;
	int i;

	evlist->entries[0]->attr.build_id = 1;
	evlist->entries[0]->attr.mmap2 = 1;
	for (i = 0; i < 2; i++)
		evlist->entries[i]->attr.read_format |= PERF_FORMAT_LOST;
	evlist->open_fn = old_kernel_open;
	evlist->open_ctx = &einvals;
	open_or_skip(evlist, &oerr);
	assert_int_equal(oerr.err, 0);
	assert_int_equal(oerr.fallbacks, EVLIST_FALLBACK_READ_LOST | EVLIST_FALLBACK_BUILD_ID);
	assert_true(atomic_load(&einvals) >= 2);
	for (i = 0; i < 2; i++)
		assert_false(evlist->entries[i]->attr.read_format & PERF_FORMAT_LOST);
	assert_false(evlist->entries[0]->attr.build_id);
	assert_true(evlist->entries[0]->attr.mmap2);	/* only what failed goes */
	check_slots(evlist);
	evlist__delete(evlist);
}

/* ---- groups, and the fallbacks and messages of events this machine lacks ---- */

/* evsels [1, n) become members of evsel 0's group, enabled with it. */
static void make_group(struct evlist *evlist, int n)
{
	int i;

	for (i = 1; i < n; i++) {
		evlist->entries[i]->leader = evlist->entries[0];
		evlist->entries[i]->attr.disabled = 0;
	}
	evlist->entries[0]->nr_members = n;
}

/*
 * The kernel's view: a read of the leader with PERF_FORMAT_GROUP lists
 * every member's id, so each slot's members were opened into its group.
 */
static void check_group_read(struct evlist *evlist, int n)
{
	struct evsel *leader = evlist->entries[0];
	int s, i, slots = evlist->cpus->nr * evlist->threads->nr;

	for (s = 0; s < slots; s++) {
		u64 buf[1 + 3 * 8] = { 0 };
		ssize_t got = read(leader->fds[s], buf, sizeof(buf));

		assert_true(got >= (ssize_t)(sizeof(u64) * (size_t)(1 + 3 * n)));
		assert_int_equal(buf[0], n);
		for (i = 0; i < n; i++)		/* { value, id, lost } per member */
			assert_true(buf[1 + 3 * i + 1] == evlist->entries[i]->ids[s]);
	}
}

static void check_group_open(struct wq *wq)
{
	struct evlist *evlist = online_evlist(3, wq);
	struct cpu_map *cpus = evlist->cpus;
	int i, c;

	make_group(evlist, 3);
	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP |
						       PERF_FORMAT_LOST;
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	check_group_read(evlist, 3);
	/* the lost count of each member is its own entry of the group's read */
	for (i = 0; i < 3; i++) {
		for (c = 0; c < cpus->nr; c++) {
			u64 lost = 1;

			assert_int_equal(evsel__read_lost(evlist->entries[i], c, 0, &lost), 0);
			assert_int_equal(lost, 0);
		}
	}
	evlist__delete(evlist);
}

static void test_group_open_parallel(void **state)
{
	struct fixture *fx = *state;

	check_group_open(fx->wq);
}

static void test_group_open_serial(void **state)
{
	check_group_open(NULL);
}

/* The kernel as it is without a PMU for hardware events: ENOENT. */
static int no_hw_pmu_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group_fd, unsigned long flags)
{
	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_RAW)
		return -ENOENT;
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* cycles becomes cpu-clock, named from its attr; instructions fails with perf's line. */
static void test_cycles_falls_back(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(2, fx->wq);
	struct evlist_open_error oerr;
	struct evsel *cycles = evlist->entries[1];
	char msg[256];

	cycles->attr.type = PERF_TYPE_HARDWARE;
	cycles->attr.config = PERF_COUNT_HW_CPU_CYCLES;
	cycles->attr.exclude_kernel = 1;
	cycles->attr.exclude_hv = 1;
	cycles->attr.exclude_guest = 1;
	free(cycles->name);
	cycles->name = strdup("cycles:u");
	evlist->open_fn = no_hw_pmu_open;
	open_or_skip(evlist, &oerr);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_CYCLES);
	assert_int_equal(cycles->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(cycles->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(cycles->name, "cpu-clock:uH");	/* as perf names it */
	check_slots(evlist);
	evlist__close(evlist);

	cycles->attr.type = PERF_TYPE_HARDWARE;
	cycles->attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	free(cycles->name);
	cycles->name = strdup("instructions");
	assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -ENOENT);
	assert_ptr_equal(oerr.evsel, cycles);
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_int_equal(strncmp(msg, "The instructions event is not supported.", 40), 0);
	assert_int_equal(evlist__nr_fds(evlist), 0);
	evlist__delete(evlist);
}

/* A kernel that refuses every group member. */
static int no_groups_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group_fd, unsigned long flags)
{
	atomic_int *members = ctx;

	if (group_fd >= 0) {
		atomic_fetch_add(members, 1);
		return -EINVAL;
	}
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* ":W": a group the kernel refuses is opened as single events; without it, perf's error. */
static void test_weak_group_splits(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(3, fx->wq);
	struct evlist_open_error oerr;
	atomic_int members = 0;
	char msg[256];
	int i;

	make_group(evlist, 3);
	evlist->open_fn = no_groups_open;
	evlist->open_ctx = &members;
	assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -EINVAL);
	assert_ptr_equal(oerr.evsel, evlist->entries[1]);
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_string_equal(msg, "The sys_perf_event_open() syscall returned with 22 (Invalid "
			    "argument) for event (dummy). /bin/dmesg | grep -i perf may provide "
			    "additional information.");
	assert_int_equal(evlist__nr_fds(evlist), 0);

	for (i = 0; i < 3; i++)
		evlist->entries[i]->weak_group = true;
	open_or_skip(evlist, &oerr);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_WEAK_GROUP);
	assert_true(atomic_load(&members) > 0);
	for (i = 0; i < 3; i++) {
		assert_ptr_equal(evlist->entries[i]->leader, evlist->entries[i]);
		assert_int_equal(evlist->entries[i]->nr_members, 1);
	}
	check_slots(evlist);
	evlist__delete(evlist);
}

/* perf's lines for EOPNOTSUPP and a per-thread EINVAL. */
static void test_open_strerror_perf_lines(void **state)
{
	struct evlist *evlist = evlist__new();
	struct cpu_map *any = cpu_map__new_any();
	pid_t self = gettid_();
	struct thread_map *threads = thread_map__new_from(&self, 1);
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .sample_period = 1 };
	struct evsel *evsel = evsel__new(&attr, "msr/tsc/");
	struct evlist_open_error oerr = { .evsel = evsel, .cpu = { -1 }, .tid = self };
	char msg[256];

	(void)state;
	assert_int_equal(evlist__add(evlist, evsel), 0);
	evlist__set_maps(evlist, any, threads);
	oerr.err = -EINVAL;
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_string_equal(msg, "Invalid event (msr/tsc/) in per-thread mode, enable system wide "
			    "with '-a'.");
	oerr.err = -EOPNOTSUPP;
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_string_equal(msg, "msr/tsc/: PMU Hardware doesn't support sampling/overflow-"
			    "interrupts. Try 'perf stat'");
	evsel->attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_string_equal(msg, "msr/tsc/: PMU Hardware or event type doesn't support branch "
			    "stack sampling.");
	evsel->attr.sample_type = 0;
	evsel->attr.aux_output = 1;
	evlist__open_strerror(&oerr, msg, sizeof(msg));
	assert_string_equal(msg, "msr/tsc/: PMU Hardware doesn't support 'aux_output' feature");
	evlist__delete(evlist);
	cpu_map__put(any);
	thread_map__put(threads);
}

/* A kernel before 5.12: no PERF_SAMPLE_WEIGHT_STRUCT (-W); perf samples WEIGHT instead. */
static int no_weight_struct_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
				 int group_fd, unsigned long flags)
{
	if (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		return -EINVAL;
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void test_weight_struct_falls_back(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(2, fx->wq);
	struct evlist_open_error oerr;
	int i;

	for (i = 0; i < 2; i++)
		evlist->entries[i]->attr.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	evlist->open_fn = no_weight_struct_open;
	open_or_skip(evlist, &oerr);
	assert_int_equal(oerr.err, 0);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_WEIGHT_STRUCT);
	for (i = 0; i < 2; i++) {
		assert_false(evlist->entries[i]->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		assert_true(evlist->entries[i]->attr.sample_type & PERF_SAMPLE_WEIGHT);
	}
	check_slots(evlist);
	evlist__delete(evlist);
}

/* --filter strings join as perf joins them; a software event's fds refuse one. */
static void test_filters(void **state)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr) };
	struct evsel *tp = evsel__new(&attr, "sched:sched_switch");
	struct evsel *sw = comm_evsel(true);
	struct cpu_map *cpus = online();
	struct thread_map *threads = thread_map__new_dummy();

	assert_non_null(tp);
	assert_int_equal(evsel__apply_filter(tp), 0);	/* none: nothing to do */
	assert_int_equal(evsel__append_filter(tp, "prev_pid == 0"), 0);
	assert_string_equal(tp->filter, "prev_pid == 0");
	assert_int_equal(evsel__append_filter(tp, "next_pid != 1"), 0);
	assert_string_equal(tp->filter, "(prev_pid == 0) && (next_pid != 1)");
	evsel__delete(tp);

	assert_int_equal(evsel__append_filter(sw, "filter 0x1000/0x100@/bin/ls"), 0);
	assert_int_equal(evsel__append_filter(sw, "stop 0x2000@/bin/ls"), 0);
	assert_string_equal(sw->filter, "filter 0x1000/0x100@/bin/ls,stop 0x2000@/bin/ls");
	if (evsel__open(sw, cpus, threads, NULL, NULL) == 0)
		assert_int_equal(evsel__apply_filter(sw), -EINVAL);
	evsel__delete(sw);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* A real EMFILE: the soft limit is below what the evlist needs, and gets raised. */
static void test_emfile_raises_nofile(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(24, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct evlist_open_error oerr;
	struct rlimit saved, low, now;
	unsigned long need;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = (rlim_t)fds__count() + 8;
	if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < low.rlim_cur + 24 * (rlim_t)cpus->nr + 64)
		skip();
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	need = 24UL * (unsigned long)cpus->nr + (unsigned long)fds__count() + 64;
	open_or_skip(evlist, &oerr);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_NOFILE);
	assert_true(now.rlim_cur >= oerr.nofile_need);
	assert_true(oerr.nofile_need >= need - 8 && oerr.nofile_need <= need + 8);
	check_slots(evlist);
	evlist__delete(evlist);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

/* Root may raise the hard limit (CAP_SYS_RESOURCE): give that up, in a child. */
static void drop_sys_resource(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i = CAP_TO_INDEX(CAP_SYS_RESOURCE);

	if (syscall(SYS_capget, &hdr, data))
		return;
	data[i].effective &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
	data[i].permitted &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
	syscall(SYS_capset, &hdr, data);
}

/* EMFILE that cannot be helped: one clear error, all closed. */
static void test_emfile_at_the_hard_limit(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(24, fx->wq);
	struct evlist_open_error oerr;
	struct rlimit saved, low;
	char msg[256];
	int before, err;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < (rlim_t)fds__count() + 64)
		skip();
	/* Run it in a child: lowering the hard limit cannot be undone without privileges. */
	if (fork() == 0) {
		drop_sys_resource();
		low.rlim_cur = low.rlim_max = (rlim_t)fds__count() + 8;
		setrlimit(RLIMIT_NOFILE, &low);
		before = fds__count();
		err = evlist__open_wq(evlist, NULL, &oerr);
		evlist__open_strerror(&oerr, msg, sizeof(msg));
		_exit(err == -EMFILE && fds__count() == before && !evlist__nr_fds(evlist) &&
		      strstr(msg, "ulimit -n") && !(oerr.fallbacks & EVLIST_FALLBACK_NOFILE) ? 0 : 1);
	}
	{
		int status = -1;

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	evlist__delete(evlist);

	(void)fx;
}

/* ---- enable and disable on every CPU ------------------------------------------- */

/* read_format TOTAL_TIME_ENABLED: { value, time_enabled }. */
static u64 time_enabled(int fd)
{
	u64 v[2] = { 0, 0 };

	assert_int_equal(read(fd, v, sizeof(v)), (ssize_t)sizeof(v));
	return v[1];
}

static void test_enable_disable_parallel(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(4, fx->wq);
	struct cpu_map *cpus = evlist->cpus;
	struct evsel *evsel;
	u64 *t0;
	int i, s, n = 4 * cpus->nr, k;

	evlist__for_each_evsel(evlist, evsel, i)
		evsel->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	open_or_skip(evlist, NULL);
	t0 = calloc((size_t)n, sizeof(u64));
	assert_non_null(t0);
	k = 0;
	evlist__for_each_evsel(evlist, evsel, i)
		for (s = 0; s < cpus->nr; s++)
			assert_true(time_enabled(evsel->fds[s]) == 0);	/* opened disabled */
	assert_int_equal(evlist__enable(evlist), 0);
	usleep(2000);
	assert_int_equal(evlist__disable(evlist), 0);
	evlist__for_each_evsel(evlist, evsel, i)
		for (s = 0; s < cpus->nr; s++) {
			t0[k] = time_enabled(evsel->fds[s]);
			assert_true(t0[k++] >= 1000000);	/* ran for the 2 ms */
		}
	usleep(2000);
	k = 0;
	evlist__for_each_evsel(evlist, evsel, i)
		for (s = 0; s < cpus->nr; s++)
			assert_true(time_enabled(evsel->fds[s]) == t0[k++]);	/* stopped */
	free(t0);
	evlist__delete(evlist);
}

/* ---- task events: one unit per thread ------------------------------------------ */

#define NR_SLEEPERS	6

struct sleepers {
	pthread_t	th[NR_SLEEPERS];
	pid_t		tid[NR_SLEEPERS];
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	int		cmd_seq;	/* lock: bumped for each command */
	int		who;		/* lock: thread index to act, -1: all quit */
	int		cpu;		/* lock: where it renames itself (-1: anywhere) */
	char		name[16];	/* lock */
	int		done_seq;	/* lock */
};

struct sleeper_arg {
	struct sleepers	*sl;
	int		idx;
};

static void *sleeper_main(void *p)
{
	struct sleeper_arg *arg = p;
	struct sleepers *sl = arg->sl;
	int seen = 0;

	pthread_mutex_lock(&sl->lock);
	sl->tid[arg->idx] = gettid_();
	pthread_cond_broadcast(&sl->cond);
	for (;;) {
		while (sl->cmd_seq == seen)
			pthread_cond_wait(&sl->cond, &sl->lock);
		seen = sl->cmd_seq;
		if (sl->who == -1)
			break;
		if (sl->who != arg->idx)
			continue;
		if (sl->cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(sl->cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		prctl(PR_SET_NAME, sl->name);
		sl->done_seq = seen;
		pthread_cond_broadcast(&sl->cond);
	}
	pthread_mutex_unlock(&sl->lock);
	free(arg);
	return NULL;
}

static struct thread_map *sleepers__start(struct sleepers *sl)
{
	int i;

	memset(sl, 0, sizeof(*sl));
	pthread_mutex_init(&sl->lock, NULL);
	pthread_cond_init(&sl->cond, NULL);
	for (i = 0; i < NR_SLEEPERS; i++) {
		struct sleeper_arg *arg = malloc(sizeof(*arg));

		assert_non_null(arg);
		arg->sl = sl;
		arg->idx = i;
		assert_int_equal(pthread_create(&sl->th[i], NULL, sleeper_main, arg), 0);
	}
	pthread_mutex_lock(&sl->lock);
	for (i = 0; i < NR_SLEEPERS; i++)
		while (!sl->tid[i])
			pthread_cond_wait(&sl->cond, &sl->lock);
	pthread_mutex_unlock(&sl->lock);
	return thread_map__new_from(sl->tid, NR_SLEEPERS);
}

/* Have sleeper idx rename itself to name, on cpu (-1: wherever it is). */
static void sleepers__rename(struct sleepers *sl, int idx, int cpu, const char *name)
{
	int seq;

	pthread_mutex_lock(&sl->lock);
	sl->who = idx;
	sl->cpu = cpu;
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	seq = ++sl->cmd_seq;
	pthread_cond_broadcast(&sl->cond);
	while (sl->done_seq != seq)
		pthread_cond_wait(&sl->cond, &sl->lock);
	pthread_mutex_unlock(&sl->lock);
}

static void sleepers__stop(struct sleepers *sl)
{
	int i;

	pthread_mutex_lock(&sl->lock);
	sl->who = -1;
	sl->cmd_seq++;
	pthread_cond_broadcast(&sl->cond);
	pthread_mutex_unlock(&sl->lock);
	for (i = 0; i < NR_SLEEPERS; i++)
		pthread_join(sl->th[i], NULL);
	pthread_mutex_destroy(&sl->lock);
	pthread_cond_destroy(&sl->cond);
}

/* cpus = {-1}: one ring per thread; thread t's rename lands in ring t with its ids. */
static void check_per_thread(struct wq *wq)
{
	struct sleepers sl;
	struct thread_map *threads = sleepers__start(&sl);
	struct cpu_map *any = cpu_map__new_any();
	struct evlist *evlist;
	char name[16];
	int before = fds__count(), t;

	assert_non_null(threads);
	evlist = comm_evlist(2, any, threads, wq);
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	assert_int_equal(evlist__mmap(evlist, RING_PAGES), 0);
	assert_int_equal(evlist->nr_rings, NR_SLEEPERS);
	assert_int_equal(evlist__enable(evlist), 0);
	for (t = 0; t < NR_SLEEPERS; t++) {
		int cpu;

		snprintf(name, sizeof(name), "evl-thr%u", (unsigned char)t);
		sleepers__rename(&sl, t, -1, name);
		/* The CPU is wherever it ran: take it from the record. */
		{
			struct comm_scan scan = { .name = name };

			assert_true(ringbuf__read(&evlist->rings[t], comm_sink, &scan) >= 0);
			assert_int_equal(scan.nr, 2);
			cpu = scan.found[0].cpu;
			assert_int_equal(scan.found[0].tid, sl.tid[t]);
			assert_true(scan.found[0].id == evlist->entries[0]->ids[t] ||
				    scan.found[0].id == evlist->entries[1]->ids[t]);
			assert_true(scan.found[1].id == evlist->entries[0]->ids[t] ||
				    scan.found[1].id == evlist->entries[1]->ids[t]);
			assert_true(scan.found[0].id != scan.found[1].id);
			assert_int_equal(scan.found[1].cpu, cpu);
		}
	}
	assert_int_equal(evlist__disable(evlist), 0);
	evlist__munmap(evlist);
	evlist__close(evlist);
	assert_int_equal(fds__count(), before);
	evlist__delete(evlist);
	sleepers__stop(&sl);
	cpu_map__put(any);
	thread_map__put(threads);
}

static void test_per_thread_parallel(void **state)
{
	struct fixture *fx = *state;

	check_per_thread(fx->wq);
}

static void test_per_thread_serial(void **state)
{
	check_per_thread(NULL);
}

/*
 * skip_failed_cpus: evsel 1 fails on the last CPU (an offline CPU gives
 * ENODEV). The open leaves that CPU out, opens the rest, and says so.
 */
static void check_skip_failed_cpu(struct wq *wq, struct thread_map *threads)
{
	struct cpu_map *cpus = online();
	struct evlist *evlist = comm_evlist(3, cpus, threads, wq);
	int last = cpus->map[cpus->nr - 1].cpu;
	struct inject inj = { .cpu = last, .config = 1001, .err = -ENODEV };
	struct evlist_open_error oerr;
	char msg[256], want[64];
	int before = fds__count(), i;

	if (cpus->nr < 2) {
		evlist__delete(evlist);
		cpu_map__put(cpus);
		skip();
	}
	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
	evlist->open_fn = failing_open;
	evlist->open_ctx = &inj;
	evlist->skip_failed_cpus = true;
	open_or_skip(evlist, &oerr);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_SKIP_CPUS);
	assert_int_equal(oerr.nr_skipped, 1);
	assert_int_equal(oerr.skipped[0].cpu.cpu, last);
	assert_int_equal(oerr.skipped[0].err, -ENODEV);
	assert_int_equal(evlist->cpus->nr, cpus->nr - 1);
	assert_false(cpu_map__has(evlist->cpus, (struct cpu){ last }));
	check_slots(evlist);
	/* online, so the reason is the error's text */
	evlist_open_error__skipped_str(&oerr, msg, sizeof(msg));
	snprintf(want, sizeof(want), "CPU %d (%s)", last, strerror(ENODEV));
	assert_string_equal(msg, want);
	evlist_open_error__exit(&oerr);
	assert_null(oerr.skipped);
	/* its rings are those of the CPUs kept */
	assert_int_equal(evlist__mmap(evlist, RING_PAGES), 0);
	assert_int_equal(evlist->nr_rings, cpus->nr - 1);
	evlist__delete(evlist);
	assert_int_equal(fds__count(), before);
	cpu_map__put(cpus);
}

static void test_skip_failed_cpu(void **state)
{
	struct fixture *fx = *state;
	struct thread_map *dummy = thread_map__new_dummy();
	struct sleepers sl;
	struct thread_map *threads;

	check_skip_failed_cpu(fx->wq, dummy);
	check_skip_failed_cpu(NULL, dummy);
	thread_map__put(dummy);
	/* task events on every CPU (-p with -C): thread units */
	threads = sleepers__start(&sl);
	assert_non_null(threads);
	check_skip_failed_cpu(fx->wq, threads);
	sleepers__stop(&sl);
	thread_map__put(threads);
}

/* Fails everywhere it is tried: every CPU of evsel config (cpu -1: all). */
static int failing_open_all(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group_fd, unsigned long flags)
{
	struct inject *inj = ctx;

	if (attr->sample_period == inj->config && (inj->cpu < 0 || cpu == inj->cpu))
		return inj->err;
	return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

/*
 * What skip_failed_cpus does not skip: a failure on every CPU (the event,
 * not a CPU), a failure on the only CPU, and a limit of the process.
 */
static void test_skip_failed_cpus_not_all(void **state)
{
	struct fixture *fx = *state;
	struct cpu_map *cpus = online(), *one;
	struct thread_map *threads = thread_map__new_dummy();
	struct inject inj = { .cpu = -1, .config = 1001, .err = -ENODEV };
	struct evlist_open_error oerr;
	struct evlist *evlist;
	int before = fds__count(), i;

	evlist = comm_evlist(3, cpus, threads, fx->wq);
	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
	evlist->open_fn = failing_open_all;
	evlist->open_ctx = &inj;
	evlist->skip_failed_cpus = true;
	assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -ENODEV);
	assert_int_equal(oerr.nr_skipped, 0);
	assert_ptr_equal(oerr.evsel, evlist->entries[1]);
	assert_int_equal(evlist->cpus->nr, cpus->nr);
	evlist_open_error__exit(&oerr);
	evlist__delete(evlist);

	one = cpu_map__new_from(&cpus->map[0].cpu, 1);
	inj.cpu = cpus->map[0].cpu;
	evlist = comm_evlist(3, one, threads, NULL);
	for (i = 0; i < 3; i++)
		evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
	evlist->open_fn = failing_open_all;
	evlist->open_ctx = &inj;
	evlist->skip_failed_cpus = true;
	assert_int_equal(evlist__open_wq(evlist, NULL, &oerr), -ENODEV);
	assert_int_equal(oerr.nr_skipped, 0);
	evlist__delete(evlist);
	cpu_map__put(one);

	if (cpus->nr >= 2) {
		inj.cpu = cpus->map[cpus->nr - 1].cpu;
		inj.err = -ENFILE;	/* the system's file table, not the CPU */
		evlist = comm_evlist(3, cpus, threads, fx->wq);
		for (i = 0; i < 3; i++)
			evlist->entries[i]->attr.sample_period = 1000 + (u64)i;
		evlist->open_fn = failing_open_all;
		evlist->open_ctx = &inj;
		evlist->skip_failed_cpus = true;
		assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -ENFILE);
		assert_int_equal(oerr.nr_skipped, 0);
		evlist__delete(evlist);
	}
	assert_int_equal(fds__count(), before);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* Task events on every CPU (perf record -p): ring c gets thread t's rename on CPU c. */
static void test_task_events_on_cpus(void **state)
{
	struct fixture *fx = *state;
	struct sleepers sl;
	struct thread_map *threads = sleepers__start(&sl);
	struct cpu_map *cpus = online();
	struct evlist *evlist;
	char name[16];
	int before = fds__count(), t, c;

	assert_non_null(threads);
	evlist = comm_evlist(2, cpus, threads, fx->wq);
	open_or_skip(evlist, NULL);
	check_slots(evlist);
	assert_int_equal(evlist__mmap(evlist, RING_PAGES), 0);
	assert_int_equal(evlist->nr_rings, cpus->nr);
	assert_int_equal(evlist__enable(evlist), 0);
	for (t = 0; t < NR_SLEEPERS; t++) {
		for (c = 0; c < cpus->nr; c++) {
			snprintf(name, sizeof(name), "evl-t%uc%u", (unsigned char)t, (unsigned char)c);
			sleepers__rename(&sl, t, cpus->map[c].cpu, name);
			check_ring(evlist, c, name, c, t, cpus->map[c].cpu, sl.tid[t]);
		}
	}
	evlist__delete(evlist);
	assert_int_equal(fds__count(), before);
	sleepers__stop(&sl);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/*
 * A -p thread that is gone by the time of the open (ESRCH) is left out, as
 * perf record's ignore_missing_thread does, and the rest opens.
 */
static void test_missing_thread_left_out(void **state)
{
	struct fixture *fx = *state;
	struct sleepers sl;
	struct thread_map *live = sleepers__start(&sl), *threads;
	struct cpu_map *cpus = online();
	struct evlist_open_error oerr;
	struct evlist *evlist;
	pid_t tids[NR_SLEEPERS + 1], dead;
	int i, before = fds__count();

	assert_non_null(live);
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	for (i = 0; i < live->nr; i++)
		tids[i] = live->map[i];
	tids[live->nr] = dead;
	threads = thread_map__new_from(tids, live->nr + 1);
	assert_non_null(threads);

	evlist = comm_evlist(1, cpus, threads, fx->wq);
	open_or_skip(evlist, &oerr);
	assert_true(oerr.fallbacks & EVLIST_FALLBACK_MISSING_THREAD);
	assert_int_equal(oerr.nr_missing, 1);
	assert_int_equal(evlist->threads->nr, live->nr);
	assert_int_equal(thread_map__idx(evlist->threads, dead), -1);
	check_slots(evlist);
	evlist__delete(evlist);
	assert_int_equal(fds__count(), before);

	/* Alone, a missing thread is an error, not an empty recording. */
	thread_map__put(threads);
	threads = thread_map__new_from(&dead, 1);
	evlist = comm_evlist(1, cpus, threads, fx->wq);
	assert_int_equal(evlist__open_wq(evlist, fx->wq, &oerr), -ESRCH);
	evlist__delete(evlist);
	assert_int_equal(fds__count(), before);

	sleepers__stop(&sl);
	cpu_map__put(cpus);
	thread_map__put(threads);
	thread_map__put(live);
}

/*
 * Task events on every CPU are split by thread, not by CPU: all the opens
 * of one thread come from one caller (two would fight over its context).
 */
static void test_task_events_split_by_thread(void **state)
{
	struct fixture *fx = *state;
	struct sleepers sl;
	struct thread_map *threads = sleepers__start(&sl);
	struct cpu_map *cpus = online();
	struct open_log *log = calloc(1, sizeof(*log));
	struct evlist *evlist;
	int i, j, n;

	assert_non_null(threads);
	assert_non_null(log);
	evlist = comm_evlist(2, cpus, threads, fx->wq);
	evlist->open_fn = logging_open;
	evlist->open_ctx = log;
	open_or_skip(evlist, NULL);
	n = atomic_load(&log->nr);
	assert_int_equal(n, 2 * cpus->nr * NR_SLEEPERS);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (log->call[i].pid == log->call[j].pid)
				assert_int_equal(log->call[i].tid, log->call[j].tid);
	evlist__delete(evlist);
	free(log);
	sleepers__stop(&sl);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* A parallel open learns the CPU each thread sits on (then used to place its work). */
static void test_thread_cpus_learnt(void **state)
{
	struct fixture *fx = *state;
	struct sleepers sl;
	struct thread_map *threads = sleepers__start(&sl);
	struct cpu_map *cpus = online();
	struct evlist *evlist;
	int t;

	assert_non_null(threads);
	for (t = 0; t < NR_SLEEPERS; t++)
		sleepers__rename(&sl, t, cpus->map[t % cpus->nr].cpu, "evl-pinned");
	evlist = comm_evlist(1, cpus, threads, fx->wq);
	open_or_skip(evlist, NULL);
	assert_non_null(evlist->thread_cpus);
	for (t = 0; t < NR_SLEEPERS; t++)
		assert_int_equal(evlist->thread_cpus[t], cpus->map[t % cpus->nr].cpu);
	assert_int_equal(evlist__enable(evlist), 0);
	assert_int_equal(evlist__disable(evlist), 0);
	evlist__delete(evlist);
	/* Serially there is nothing to place. */
	evlist = comm_evlist(1, cpus, threads, NULL);
	open_or_skip(evlist, NULL);
	assert_null(evlist->thread_cpus);
	evlist__delete(evlist);
	sleepers__stop(&sl);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* ---- the evsel-level calls the record command uses ---------------------------------------- */

static void test_evsel_open_serial_api(void **state)
{
	struct cpu_map *cpus = online();
	struct thread_map *threads = thread_map__new_dummy();
	struct evsel *evsel = comm_evsel(true);
	int before = fds__count(), cpu = -2, i, err;
	pid_t tid = -2;
	u64 id;

	err = evsel__open(evsel, cpus, threads, &cpu, &tid);
	if (err == -EACCES || err == -EPERM) {
		evsel__delete(evsel);
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(evsel__read_ids(evsel), 0);
	assert_int_equal(evsel->nr_ids, cpus->nr);
	for (i = 0; i < cpus->nr; i++) {
		assert_int_equal(ioctl(evsel__fd(evsel, i, 0), PERF_EVENT_IOC_ID, &id), 0);
		assert_true(id == evsel->ids[i]);
	}
	assert_int_equal(evsel__enable(evsel), 0);
	assert_int_equal(evsel__disable(evsel), 0);
	/* Opening again does not leak the first descriptors. */
	assert_int_equal(evsel__open(evsel, cpus, threads, NULL, NULL), 0);
	assert_int_equal(fds__count(), before + cpus->nr);
	evsel__close(evsel);
	assert_int_equal(fds__count(), before);
	/* A failure closes what was opened and says where. */
	evsel->attr.type = 0x7fff;	/* no such PMU */
	err = evsel__open(evsel, cpus, threads, &cpu, &tid);
	assert_true(err < 0);
	assert_int_equal(cpu, cpus->map[0].cpu);
	assert_int_equal(tid, -1);
	assert_null(evsel->fds);
	assert_int_equal(fds__count(), before);
	evsel__delete(evsel);
	cpu_map__put(cpus);
	thread_map__put(threads);
}

/* ---- mmap errors -------------------------------------------------------------- */

static void test_mmap_bad_size_unmaps(void **state)
{
	struct fixture *fx = *state;
	struct evlist *evlist = online_evlist(2, fx->wq);

	open_or_skip(evlist, NULL);
	assert_int_equal(evlist__mmap(evlist, 3), -EINVAL);
	assert_null(evlist->rings);
	assert_int_equal(evlist__mmap(evlist, RING_PAGES), 0);
	evlist__delete(evlist);		/* unmaps and closes */
}

/* The perf limits under /proc/sys/kernel read as the file says; a missing one is -ENOENT. */
static void test_read_sysctl(void **state)
{
	int val = -12345, want = -1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &want), 1);
	fclose(f);
	assert_int_equal(evlist__read_sysctl("perf_event_mlock_kb", &val), 0);
	assert_int_equal(val, want);
	val = 7;
	assert_int_equal(evlist__read_sysctl("no_such_perf_limit", &val), -ENOENT);
	assert_int_equal(val, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_sysctl),
		cmocka_unit_test(test_open_serial_equals_parallel),
		cmocka_unit_test(test_open_runs_on_the_cpu),
		cmocka_unit_test(test_small_evlist_runs_inline),
		cmocka_unit_test(test_injected_failure_parallel),
		cmocka_unit_test(test_skip_failed_cpu),
		cmocka_unit_test(test_tracepoints_on_caller),
		cmocka_unit_test(test_tracepoint_group_on_caller),
		cmocka_unit_test(test_first_failure_across_passes),
		cmocka_unit_test(test_skip_failed_cpus_not_all),
		cmocka_unit_test(test_injected_failure_serial),
		cmocka_unit_test(test_first_failure_reported),
		cmocka_unit_test(test_failure_stops_later_evsels),
		cmocka_unit_test(test_missing_features_fall_back),
		cmocka_unit_test(test_weight_struct_falls_back),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_group_open_parallel),
		cmocka_unit_test(test_group_open_serial),
		cmocka_unit_test(test_cycles_falls_back),
		cmocka_unit_test(test_weak_group_splits),
		cmocka_unit_test(test_open_strerror_perf_lines),
		cmocka_unit_test(test_emfile_raises_nofile),
		cmocka_unit_test(test_emfile_at_the_hard_limit),
		cmocka_unit_test(test_enable_disable_parallel),
		cmocka_unit_test(test_per_thread_parallel),
		cmocka_unit_test(test_per_thread_serial),
		cmocka_unit_test(test_task_events_on_cpus),
		cmocka_unit_test(test_task_events_split_by_thread),
		cmocka_unit_test(test_missing_thread_left_out),
		cmocka_unit_test(test_thread_cpus_learnt),
		cmocka_unit_test(test_evsel_open_serial_api),
		cmocka_unit_test(test_mmap_bad_size_unmaps),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
