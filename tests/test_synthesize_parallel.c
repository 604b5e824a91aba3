// SPDX-License-Identifier: GPL-2.0
/*
 * test_synthesize_parallel.c — synthesize__all_parallel() against the
 * serial synthesize__all(), on a real worker pool.
 *
 *  - On a fake /proc the test writes (many small processes, two large ones
 *    that are split into pieces, processes and tasks that vanished, kernel
 *    threads), the parallel walk must give exactly the serial records, in
 *    the same order, for every participant count; the same with the map
 *    timeout forced (every leader's first map flagged PROC_MAP_PARSE_TIMEOUT),
 *    and the same stats.
 *  - On this machine's /proc, with a child process of many threads that the
 *    test starts (it re-executes itself), the records of every process that
 *    did not change between two serial walks around the parallel ones must
 *    be the same multiset (sorted bytes) and the same sequence; our own
 *    processes must be among them. Build ids on, with one shared cache.
 *  - Two threads really run at once (a clock hook that holds the first
 *    reader until a second one comes).
 *  - An emit failure stops everything: emit is never called again and the
 *    error comes back; emit only ever runs on the calling thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "precord/synthesize.h"
#include "wq.h"
#include "helpers.h"

#define ID_HDR		24
#define CHILD_THREADS	150	/* more than one piece of a split process */
#define NR_SMALL	40	/* small fake processes */
#define BIG_TASKS	200	/* tasks of the big fake process */

/* FORK, COMM and MMAP2 all start with {header, u32 pid, ...}. */
static pid_t rec_pid(const struct collector *c, size_t i)
{
	u32 pid;

	memcpy(&pid, c->recs[i].data + sizeof(struct perf_event_header), sizeof(pid));
	return (pid_t)pid;
}

static bool rec_equal(const struct collected *a, const struct collected *b)
{
	return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

static int rec_cmp(const void *x, const void *y)
{
	const struct collected *a = x, *b = y;
	int d = memcmp(a->data, b->data, a->size < b->size ? a->size : b->size);

	return d ? d : (a->size > b->size) - (a->size < b->size);
}

/* The same records in the same order. */
static void assert_same_sequence(const struct collector *a, const struct collector *b)
{
	size_t i;

	assert_int_equal(a->nr, b->nr);
	for (i = 0; i < a->nr; i++)
		assert_true(rec_equal(&a->recs[i], &b->recs[i]));
}

/* The same multiset: both sorted by bytes, then compared one to one. */
static void assert_same_multiset(const struct collected *a, size_t na, const struct collected *b, size_t nb)
{
	struct collected *sa = malloc((na + 1) * sizeof(*sa)), *sb = malloc((nb + 1) * sizeof(*sb));
	size_t i;

	assert_non_null(sa);
	assert_non_null(sb);
	assert_int_equal(na, nb);
	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	qsort(sa, na, sizeof(*sa), rec_cmp);
	qsort(sb, nb, sizeof(*sb), rec_cmp);
	for (i = 0; i < na; i++)
		assert_true(rec_equal(&sa[i], &sb[i]));
	free(sa);
	free(sb);
}

/*
 * What the parallel walk promises about order: processes in ascending pid
 * order, each contiguous, the leader's COMM before its MMAP2s.
 */
static void assert_walk_order(const struct collector *c)
{
	pid_t last = 0;
	bool leader_comm = false;
	size_t i;

	for (i = 0; i < c->nr; i++) {
		pid_t pid = rec_pid(c, i);
		const struct perf_event_header *h = collector__hdr(c, i);

		assert_true(pid >= last);
		if (pid != last)
			leader_comm = false;
		last = pid;
		if (h->type == PERF_RECORD_COMM &&
		    ((const struct perf_record_comm *)h)->tid == (u32)pid)
			leader_comm = true;
		if (h->type == PERF_RECORD_MMAP2)
			assert_true(leader_comm);
	}
}

/* ---- the worker pool ------------------------------------------------------ */

static struct wq_pool *pool;
static struct wq *wq;

/* Two workers per CPU, so up to 2 * CPUs + 1 participants even on 2 CPUs. */
static int pool_setup(void)
{
	struct wq_pool_attr attr = { .name = "synth-t", .per_domain = 2 };
	char msg[256];

	pool = wq_pool__new(&attr, msg, sizeof(msg));
	if (!pool) {
		fprintf(stderr, "wq_pool__new: %s\n", msg);
		return -1;
	}
	wq = wq__new(pool, "synthesize", 0);
	return wq ? 0 : -1;
}

static int max_threads(void)
{
	return wq_pool__nr_slots(pool);
}

/* ---- a fake /proc ------------------------------------------------------------ */

static char tmpdir[64];
static char fake_proc[128];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (mkdir(path, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* A task's status; kernel threads have Threads: but no VmPeak. */
static void fake_task(pid_t pid, pid_t tid, const char *name, pid_t ppid, bool kernel)
{
	char path[PATH_MAX], text[512];

	make_dir("%s/%d/task/%d", fake_proc, pid, tid);
	snprintf(text, sizeof(text), "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\n"
		 "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n%sThreads:\t1\n",
		 name, pid, tid, ppid, kernel ? "" : "VmPeak:\t  1000 kB\n");
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", fake_proc, pid, tid);
	write_file(path, text);
}

/* A leader's maps: two executable mappings, one data mapping, anon, a vdso. */
static void fake_maps(pid_t pid)
{
	char path[PATH_MAX], text[1024];

	snprintf(text, sizeof(text),
		 "00400000-00401000 r-xp 00000000 08:01 %d /bin/fake%d\n"
		 "00600000-00601000 rw-p 00001000 08:01 %d /bin/fake%d\n"
		 "7f0000000000-7f0000021000 rw-p 00000000 00:00 0\n"
		 "7f1000000000-7f1000100000 r-xp 00000000 08:01 77 /lib/libfake.so\n"
		 "7fff00000000-7fff00002000 r-xp 00000000 00:00 0 [vdso]\n",
		 1000 + pid, pid, 1000 + pid, pid);
	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", fake_proc, pid, pid);
	write_file(path, text);
}

static void fake_process(pid_t pid, int nr_tasks, bool kernel)
{
	char name[16];
	int t;

	make_dir("%s/%d", fake_proc, pid);
	make_dir("%s/%d/task", fake_proc, pid);
	snprintf(name, sizeof(name), "%s%d", kernel ? "kworker/" : "fake", pid);
	fake_task(pid, pid, name, kernel ? 2 : 1, kernel);
	for (t = 1; t < nr_tasks; t++)
		fake_task(pid, pid + t, name, 0, kernel);
	if (!kernel)
		fake_maps(pid);
}

/*
 * pids 100, 110, ... small processes of 1-5 tasks (every fifth a kernel
 * thread); 5000: a big process (split); 7000: a big process none of whose
 * tasks has a status (it vanished while read: split, then counted gone);
 * 8000: a process without a task directory; 8100: tasks without status.
 */
static void make_fake_proc(void)
{
	int i, t;

	snprintf(fake_proc, sizeof(fake_proc), "%s/proc", tmpdir);
	make_dir("%s", fake_proc);
	make_dir("%s/self", fake_proc);		/* not a pid: skipped */
	for (i = 0; i < NR_SMALL; i++)
		fake_process(100 + 10 * i, 1 + i % 5, i % 5 == 4);
	fake_process(5000, BIG_TASKS, false);
	make_dir("%s/7000", fake_proc);
	make_dir("%s/7000/task", fake_proc);
	for (t = 0; t < 100; t++)
		make_dir("%s/7000/task/%d", fake_proc, 7000 + t);
	make_dir("%s/8000", fake_proc);
	make_dir("%s/8100", fake_proc);
	make_dir("%s/8100/task", fake_proc);
	make_dir("%s/8100/task/8100", fake_proc);
	make_dir("%s/8100/task/8101", fake_proc);
}

/* ---- a child with many threads (this binary, re-executed) ---------------- */

static pid_t child;

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* In the child: start the threads, say so on fd 1, sleep until killed. */
static int child_main(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 1; i < CHILD_THREADS; i++)
		if (pthread_create(&t, &attr, sleeper, NULL))
			return 1;
	if (write(1, "r", 1) != 1)
		return 1;
	sleeper(NULL);
	return 0;
}

static int child_start(void)
{
	int fds[2];
	char c;

	if (pipe(fds))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		dup2(fds[1], 1);
		execl("/proc/self/exe", "test_synthesize_parallel", "--child", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		return -1;
	close(fds[0]);
	return 0;
}

static void child_stop(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

static int group_setup(void **state)
{
	if (tmpdir__make(tmpdir, sizeof(tmpdir), "/tmp", "synth-par"))
		return -1;
	make_fake_proc();
	if (child_start())
		return -1;
	return pool_setup();
}

static int group_teardown(void **state)
{
	wq__delete(wq);
	wq_pool__delete(pool);
	child_stop();
	return tmpdir__remove(tmpdir);
}

static void opts_fake(struct synth_opts *o, struct synth_paths *paths, struct synth_stats *st)
{
	synth_opts__init(o);
	o->id_hdr_size = ID_HDR;
	memset(paths, 0, sizeof(*paths));
	paths->proc = fake_proc;
	o->paths = paths;
	memset(st, 0, sizeof(*st));
	o->stats = st;
}

/* ---- tests: fake /proc ------------------------------------------------------ */

static void check_fake_serial(const struct collector *c, const struct synth_stats *st)
{
	size_t i, forks = 0, big = 0;

	for (i = 0; i < c->nr; i++) {
		forks += collector__hdr(c, i)->type == PERF_RECORD_FORK;
		big += rec_pid(c, i) == 5000;
	}
	/* 40 small processes of 1..5 tasks (120 tasks) and the 200 of pid 5000 */
	assert_int_equal(forks, 120 + BIG_TASKS);
	/* FORK + COMM per task and the 3 exec maps of its leader */
	assert_int_equal(big, 2 * BIG_TASKS + 3);
	/* 7000: 100 tasks + the process; 8000; 8100: 2 tasks + the process */
	assert_int_equal(st->nr_vanished, 101 + 1 + 3);
}

static void test_fake_equal(void **state)
{
	struct synth_stats sst, pst;
	struct synth_paths paths;
	struct collector s, p;
	struct synth_opts o;
	int n;

	collector__init(&s);
	opts_fake(&o, &paths, &sst);
	assert_int_equal(synthesize__all(&o, collector__emit, &s), 0);
	check_fake_serial(&s, &sst);
	assert_walk_order(&s);
	for (n = 2; n <= max_threads() + 1; n++) {
		collector__init(&p);
		opts_fake(&o, &paths, &pst);
		assert_int_equal(synthesize__all_parallel(&o, wq, n, collector__emit, &p), 0);
		assert_same_sequence(&s, &p);
		assert_same_multiset(s.recs, s.nr, p.recs, p.nr);
		assert_int_equal(pst.nr_vanished, sst.nr_vanished);
		assert_int_equal(pst.nr_map_timeouts, 0);
		assert_false(p.other_thread);
		collector__reset(&p);
	}
	collector__reset(&s);
}

/* Modes: task only, mmap only, data mappings; the default thread count. */
static void test_fake_modes(void **state)
{
	struct synth_stats sst, pst;
	struct synth_paths paths;
	struct collector s, p;
	struct synth_opts o;
	int mode;

	for (mode = 0; mode < 3; mode++) {
		collector__init(&s);
		collector__init(&p);
		opts_fake(&o, &paths, &sst);
		o.no_mmap = mode == 0;
		o.no_task = mode == 1;
		o.mmap_data = mode == 2;
		assert_int_equal(synthesize__all(&o, collector__emit, &s), 0);
		o.stats = &pst;
		memset(&pst, 0, sizeof(pst));
		assert_int_equal(synthesize__all_parallel(&o, wq, 0, collector__emit, &p), 0);
		assert_true(s.nr > 0);
		assert_same_sequence(&s, &p);
		assert_int_equal(pst.nr_vanished, sst.nr_vanished);
		collector__reset(&s);
		collector__reset(&p);
	}
}

/* A clock every thread may read: 1 ms further at each reading. */
static u64 step_clock(void *ctx)
{
	_Atomic u64 *t = ctx;

	return atomic_fetch_add(t, 1000000ULL) + 1000000ULL;
}

/* The map timeout: every leader's first map line is the one flagged, in both walks. */
static void test_fake_timeout(void **state)
{
	struct synth_stats sst, pst;
	struct synth_paths paths;
	struct collector s, p;
	_Atomic u64 now = 0;
	struct synth_opts o;
	size_t i, flagged = 0;

	collector__init(&s);
	collector__init(&p);
	opts_fake(&o, &paths, &sst);
	o.proc_map_timeout_ms = 0;
	o.clock = step_clock;
	o.clock_ctx = &now;
	assert_int_equal(synthesize__all(&o, collector__emit, &s), 0);
	o.stats = &pst;
	memset(&pst, 0, sizeof(pst));
	assert_int_equal(synthesize__all_parallel(&o, wq, max_threads(), collector__emit, &p), 0);
	assert_same_sequence(&s, &p);
	for (i = 0; i < p.nr; i++) {
		if (collector__hdr(&p, i)->type != PERF_RECORD_MMAP2)
			continue;
		assert_true(collector__hdr(&p, i)->misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
		flagged++;
	}
	/* 32 user-space small processes and pid 5000: one flagged map each */
	assert_int_equal(flagged, 33);
	assert_int_equal(sst.nr_map_timeouts, 33);
	assert_int_equal(pst.nr_map_timeouts, 33);
	assert_true(pst.first_timeout_pid >= 100);
	collector__reset(&s);
	collector__reset(&p);
}

/*
 * A clock that holds the first thread reading it until another thread reads
 * it too (or 5 s pass): the walk really runs on two threads at once.
 */
struct rendezvous {
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	pthread_t	first;		/* lock */
	bool		have_first;	/* lock */
	bool		met;		/* lock */
	bool		timed_out;	/* lock */
};

static u64 rendezvous_clock(void *ctx)
{
	struct rendezvous *r = ctx;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&r->lock);
	if (!r->have_first) {
		r->first = pthread_self();
		r->have_first = true;
	} else if (!pthread_equal(r->first, pthread_self()) && !r->met) {
		r->met = true;
		pthread_cond_broadcast(&r->cond);
	}
	while (!r->met && !r->timed_out)
		if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT)
			r->timed_out = true;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static void test_concurrent(void **state)
{
	struct rendezvous r = { .lock = PTHREAD_MUTEX_INITIALIZER,
				.cond = PTHREAD_COND_INITIALIZER };
	struct synth_paths paths;
	struct synth_stats st;
	struct collector s, p;
	struct synth_opts o;

	collector__init(&s);
	collector__init(&p);
	opts_fake(&o, &paths, &st);
	assert_int_equal(synthesize__all(&o, collector__emit, &s), 0);
	o.clock = rendezvous_clock;
	o.clock_ctx = &r;
	assert_int_equal(synthesize__all_parallel(&o, wq, 2, collector__emit, &p), 0);
	assert_true(r.met);
	assert_false(r.timed_out);
	assert_same_sequence(&s, &p);
	collector__reset(&s);
	collector__reset(&p);
}

/* An emit failure: emit is not called again and the error comes back. */
static void test_emit_failure(void **state)
{
	static const int at[] = { 1, 2, 50, 300, 500 };
	struct synth_stats st;
	struct synth_paths paths;
	struct collector c;
	struct synth_opts o;
	size_t i;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		collector__init(&c);
		c.fail_at = at[i];
		c.fail_err = i % 2 ? -ENOSPC : 1;	/* a positive error reads as -EIO */
		opts_fake(&o, &paths, &st);
		assert_int_equal(synthesize__all_parallel(&o, wq, 0, collector__emit, &c),
				 i % 2 ? -ENOSPC : -EIO);
		assert_int_equal(c.calls, at[i]);
		assert_int_equal(c.nr, at[i] - 1);
		collector__reset(&c);
	}
	/* also on the real /proc */
	collector__init(&c);
	c.fail_at = 10;
	c.fail_err = -EPIPE;
	synth_opts__init(&o);
	o.id_hdr_size = ID_HDR;
	assert_int_equal(synthesize__all_parallel(&o, wq, max_threads(), collector__emit, &c), -EPIPE);
	assert_int_equal(c.calls, 10);
	collector__reset(&c);
}

/* wq NULL or one thread: the serial walk; bad options and a missing /proc. */
static void test_args(void **state)
{
	struct synth_stats st;
	struct synth_paths paths;
	struct collector s, p;
	struct synth_opts o;

	collector__init(&s);
	collector__init(&p);
	opts_fake(&o, &paths, &st);
	assert_int_equal(synthesize__all(&o, collector__emit, &s), 0);
	assert_int_equal(synthesize__all_parallel(&o, NULL, 4, collector__emit, &p), 0);
	assert_same_sequence(&s, &p);
	collector__reset(&p);
	assert_int_equal(synthesize__all_parallel(&o, wq, 1, collector__emit, &p), 0);
	assert_same_sequence(&s, &p);
	collector__reset(&p);
	assert_int_equal(synthesize__all_parallel(&o, wq, 1000, collector__emit, &p), 0);
	assert_same_sequence(&s, &p);
	collector__reset(&p);
	collector__reset(&s);

	o.id_hdr_size = 12;
	assert_int_equal(synthesize__all_parallel(&o, wq, 2, collector__emit, &p), -EINVAL);
	assert_int_equal(p.calls, 0);
	o.id_hdr_size = ID_HDR;
	paths.proc = "/nonexistent/proc";
	assert_int_equal(synthesize__all_parallel(&o, wq, 2, collector__emit, &p), -ENOENT);
	assert_int_equal(p.calls, 0);
}

/* ---- tests: this machine's /proc ---------------------------------------- */

/* Records of one pid in a stream: [first, first + nr). */
struct group {
	pid_t	pid;
	size_t	first, nr;
};

static size_t groups_of(const struct collector *c, struct group **out)
{
	struct group *g = calloc(c->nr + 1, sizeof(*g));
	size_t i, n = 0;

	assert_non_null(g);
	for (i = 0; i < c->nr; i++) {
		pid_t pid = rec_pid(c, i);

		if (!n || g[n - 1].pid != pid)
			g[n++] = (struct group){ .pid = pid, .first = i };
		g[n - 1].nr++;
	}
	*out = g;
	return n;
}

static const struct group *group_find(const struct group *g, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i].pid == pid)
			return &g[i];
	return NULL;
}

static bool group_equal(const struct collector *a, const struct group *ga,
			const struct collector *b, const struct group *gb)
{
	size_t i;

	if (!ga || !gb || ga->nr != gb->nr)
		return false;
	for (i = 0; i < ga->nr; i++)
		if (!rec_equal(&a->recs[ga->first + i], &b->recs[gb->first + i]))
			return false;
	return true;
}

/*
 * For every process whose records did not change between the serial walks
 * before and after (others start, exit, map and rename as they please),
 * the parallel walk's records must be the same sequence and multiset.
 */
static size_t check_stable(const struct collector *before, const struct collector *after,
			   const struct collector *par, size_t *nr_groups)
{
	struct group *gb, *ga, *gp;
	size_t nb = groups_of(before, &gb), na = groups_of(after, &ga), np = groups_of(par, &gp);
	size_t i, stable = 0;
	bool self = false, kid = false;

	for (i = 0; i < nb; i++) {
		const struct group *p;

		if (!group_equal(before, &gb[i], after, group_find(ga, na, gb[i].pid)))
			continue;
		p = group_find(gp, np, gb[i].pid);
		assert_non_null(p);
		assert_true(group_equal(before, &gb[i], par, p));
		assert_same_multiset(&before->recs[gb[i].first], gb[i].nr,
				     &par->recs[p->first], p->nr);
		self |= gb[i].pid == getpid();
		kid |= gb[i].pid == child;
		stable++;
	}
	assert_true(self);
	assert_true(kid);
	*nr_groups = nb;
	free(gb);
	free(ga);
	free(gp);
	return stable;
}

static void run_real(struct collector *c, struct synth_opts *o, int nr_threads)
{
	struct synth_stats st = { 0 };

	collector__init(c);
	o->stats = &st;
	o->bid_cache = buildid_cache__new();
	assert_non_null(o->bid_cache);
	assert_int_equal(synthesize__all_parallel(o, wq, nr_threads, collector__emit, c), 0);
	buildid_cache__delete(o->bid_cache);
	o->bid_cache = NULL;
	o->stats = NULL;
	assert_false(c->other_thread);
	assert_walk_order(c);
}

static void test_real_equal(void **state)
{
	struct collector before, after, par2, parn;
	const struct group *kid;
	struct group *g;
	size_t nr_groups, n;
	struct synth_opts o;

	synth_opts__init(&o);
	o.id_hdr_size = ID_HDR;
	o.build_id = true;
	run_real(&before, &o, 1);
	run_real(&par2, &o, 2);
	run_real(&parn, &o, max_threads());
	run_real(&after, &o, 1);

	n = groups_of(&par2, &g);
	kid = group_find(g, n, child);
	assert_non_null(kid);
	/* FORK + COMM for each of its tasks, then its leader's maps */
	assert_true(kid->nr > 2 * CHILD_THREADS);
	free(g);

	n = check_stable(&before, &after, &par2, &nr_groups);
	assert_true(2 * n >= nr_groups);
	n = check_stable(&before, &after, &parn, &nr_groups);
	assert_true(2 * n >= nr_groups);
	collector__reset(&before);
	collector__reset(&after);
	collector__reset(&par2);
	collector__reset(&parn);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_equal),
		cmocka_unit_test(test_fake_modes),
		cmocka_unit_test(test_fake_timeout),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_emit_failure),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_real_equal),
	};

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
