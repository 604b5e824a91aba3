// SPDX-License-Identifier: GPL-2.0
/*
 * test_workqueue.c — the workqueue library with real worker threads on this
 * machine: kernel semantics (FIFO on one worker, queue_work_on placement,
 * coalescing of a pending item, no re-entrancy, flush including chained
 * work and not livelocked, cancel of pending/running/self-requeueing work,
 * delete and drain with work pending), the parallel loops (coverage, error
 * and index, slots, inline cutoff, per-CPU placement), a million tiny works,
 * the dump and the thread names.  Runs in a few seconds, also under TSan.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "wq.h"

#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))

static struct wq_pool *pool;	/* every allowed CPU, one worker each */
static int cpus[1024], nr_cpus;

/* ---------------------------------------------------------------- helpers */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct gate {
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	int		open;
};

static void gate_init(struct gate *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->open = 0;
}

static void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void gate_destroy(struct gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/* Spin-wait (with sleeps) for a counter to reach a value; false on timeout. */
static bool wait_for(_Atomic int *v, int want, int ms)
{
	int64_t end = now_ms() + ms;

	while (atomic_load(v) < want) {
		if (now_ms() > end)
			return false;
		usleep(200);
	}
	return true;
}

/* A work item that blocks its worker until a gate opens. */
struct blocker {
	struct wq_work	work;
	struct gate	*gate;
	_Atomic int	started;
	_Atomic int	done;
};

static void blocker_fn(struct wq_work *work)
{
	struct blocker *b = container_of(work, struct blocker, work);

	atomic_fetch_add(&b->started, 1);
	gate_wait(b->gate);
	atomic_fetch_add(&b->done, 1);
}

/*
 * b queued on cpus[0] (on any CPU: on_any) with its gate shut, and
 * running: it holds its worker until gate_open(gate).
 */
static void blocker__start(struct blocker *b, struct gate *gate, struct wq *wq, bool on_any)
{
	b->gate = gate;
	gate_init(gate);
	wq_work__init(&b->work, blocker_fn);
	if (on_any)
		assert_int_equal(wq__queue_work(wq, &b->work), 1);
	else
		assert_int_equal(wq__queue_work_on(wq, cpus[0], &b->work), 1);
	assert_true(wait_for(&b->started, 1, 5000));
}

/* A work item that counts its runs and checks it never runs twice at once. */
struct counted {
	struct wq_work	work;
	_Atomic int	runs;
	_Atomic int	active;
	_Atomic int	overlap;
	int		spin;
};

static void counted_fn(struct wq_work *work)
{
	struct counted *c = container_of(work, struct counted, work);
	volatile int i;

	if (atomic_fetch_add(&c->active, 1) != 0)
		atomic_store(&c->overlap, 1);
	for (i = 0; i < c->spin; i++)
		;
	atomic_fetch_add(&c->runs, 1);
	atomic_fetch_sub(&c->active, 1);
}

static struct wq_pool *pool_on(const int *list, int nr, const char *name)
{
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_CPU, .cpus = list, .nr_cpus = nr,
				     .name = name };
	char err[128];
	struct wq_pool *p = wq_pool__new(&attr, err, sizeof(err));

	if (!p)
		fail_msg("wq_pool__new: %s", err);
	return p;
}

static int group_setup(void **state)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE && nr_cpus < 1024; i++) {
		if (CPU_ISSET(i, &set))
			cpus[nr_cpus++] = i;
	}
	pool = pool_on(NULL, 0, "twq");
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	wq_pool__delete(pool);
	return 0;
}

/* -------------------------------------------------------------- ordering */

#define FIFO_N	1000

struct fifo_item {
	struct wq_work	work;
	int		idx;
	int		*log;
	_Atomic int	*pos;
};

static void fifo_fn(struct wq_work *work)
{
	struct fifo_item *it = container_of(work, struct fifo_item, work);

	it->log[atomic_fetch_add(it->pos, 1)] = it->idx;
}

/* One worker runs queue_work and queue_work_on items in queueing order. */
static void test_fifo_one_worker(void **state)
{
	struct wq_pool *one = pool_on(&cpus[0], 1, "fifo");
	struct wq *wq = wq__new(one, "fifo", 0);
	struct fifo_item *items = calloc(FIFO_N, sizeof(*items));
	int *log = calloc(FIFO_N, sizeof(int)), i;
	_Atomic int pos = 0;

	assert_int_equal(wq_pool__nr_workers(one), 1);
	for (i = 0; i < FIFO_N; i++) {
		wq_work__init(&items[i].work, fifo_fn);
		items[i].idx = i;
		items[i].log = log;
		items[i].pos = &pos;
		if (i % 3 == 1)
			assert_int_equal(wq__queue_work_on(wq, cpus[0], &items[i].work), 1);
		else
			assert_int_equal(wq__queue_work(wq, &items[i].work), 1);
	}
	assert_int_equal(wq__flush(wq), 0);
	assert_int_equal(atomic_load(&pos), FIFO_N);
	for (i = 0; i < FIFO_N; i++)
		assert_int_equal(log[i], i);
	wq__delete(wq);
	wq_pool__delete(one);
	free(items);
	free(log);
}

/* An ordered workqueue on a many-worker pool: FIFO, one at a time. */
static void test_ordered(void **state)
{
	struct wq *wq = wq__new(pool, "ordered", WQ_ORDERED);
	struct fifo_item *items = calloc(FIFO_N, sizeof(*items));
	int *log = calloc(FIFO_N, sizeof(int)), i;
	_Atomic int pos = 0;

	assert_non_null(wq);
	for (i = 0; i < FIFO_N; i++) {
		wq_work__init(&items[i].work, fifo_fn);
		items[i].idx = i;
		items[i].log = log;
		items[i].pos = &pos;
		assert_int_equal(wq__queue_work(wq, &items[i].work), 1);
	}
	assert_int_equal(wq__queue_work_on(wq, cpus[0], &items[0].work), -EINVAL);
	assert_int_equal(wq__flush(wq), 0);
	for (i = 0; i < FIFO_N; i++)
		assert_int_equal(log[i], i);
	wq__delete(wq);
	free(items);
	free(log);
}

/* ------------------------------------------------------------- placement */

struct where {
	struct wq_work	work;
	int		cpu;
	int		worker;
};

static void where_fn(struct wq_work *work)
{
	struct where *w = container_of(work, struct where, work);

	w->cpu = sched_getcpu();
	w->worker = wq_worker__index();
}

static void test_queue_work_on_cpu(void **state)
{
	struct wq *wq = wq__new(pool, "on", 0);
	struct where w;
	int i, round;

	for (round = 0; round < 20; round++) {
		for (i = 0; i < nr_cpus; i++) {
			wq_work__init(&w.work, where_fn);
			w.cpu = w.worker = -1;
			assert_int_equal(wq__queue_work_on(wq, cpus[i], &w.work), 1);
			assert_true(wq_work__flush(&w.work) >= 0);
			assert_int_equal(w.cpu, cpus[i]);
			assert_int_equal(w.worker, wq_pool__cpu_worker(pool, cpus[i]));
			assert_int_equal(wq_pool__worker_cpu(pool, w.worker), cpus[i]);
		}
	}
	assert_int_equal(wq__queue_work_on(wq, 100000, &w.work), -EINVAL);
	assert_int_equal(wq__queue_work_on(wq, -1, &w.work), -EINVAL);
	assert_int_equal(wq_pool__cpu_worker(pool, -1), -ENOENT);
	wq__delete(wq);
}

static int read_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void test_worker_names(void **state)
{
	int i, found = 0;

	for (i = 0; i < nr_cpus; i++) {
		char want[16], comm[32];
		DIR *dir = opendir("/proc/self/task");
		struct dirent *de;
		bool seen = false;

		snprintf(want, sizeof(want), "twq/%d", cpus[i]);
		assert_non_null(dir);
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.' || read_comm(atoi(de->d_name), comm, sizeof(comm)))
				continue;
			assert_true(strlen(comm) <= 15);
			seen |= !strcmp(comm, want);
		}
		closedir(dir);
		found += seen;
	}
	assert_int_equal(found, nr_cpus);
}

/* ------------------------------------------------- pending and re-entry */

static void test_requeue_pending_runs_once(void **state)
{
	struct wq *wq = wq__new(pool, "pending", 0);
	struct gate gate;
	struct blocker b = { .gate = &gate };
	struct counted c = { 0 };

	wq_work__init(&c.work, counted_fn);
	blocker__start(&b, &gate, wq, false);
	assert_int_equal(wq__queue_work_on(wq, cpus[0], &c.work), 1);
	assert_int_equal(wq__queue_work_on(wq, cpus[0], &c.work), 0);
	assert_int_equal(wq__queue_work(wq, &c.work), 0);
	assert_true(wq_work__is_pending(&c.work));
	gate_open(&gate);
	assert_true(wq_work__flush(&c.work) >= 0);
	assert_int_equal(atomic_load(&c.runs), 1);
	assert_false(wq_work__is_pending(&c.work));
	assert_int_equal(wq_work__flush(&c.work), 0);
	wq__delete(wq);
	gate_destroy(&gate);
}

/* A self-contained item: counts runs, and blocks on a gate the first time. */
struct rerun {
	struct wq_work	work;
	struct gate	*gate;
	_Atomic int	runs;
	_Atomic int	active;
	_Atomic int	overlap;
};

static void rerun_fn(struct wq_work *work)
{
	struct rerun *r = container_of(work, struct rerun, work);

	if (atomic_fetch_add(&r->active, 1) != 0)
		atomic_store(&r->overlap, 1);
	if (atomic_fetch_add(&r->runs, 1) == 0)
		gate_wait(r->gate);
	atomic_fetch_sub(&r->active, 1);
}

/* Queued again while it runs: runs once more, afterwards, never alongside. */
static void test_requeue_while_running(void **state)
{
	struct wq *wq = wq__new(pool, "rerun", 0);
	struct gate gate;
	struct rerun r = { .gate = &gate };

	gate_init(&gate);
	wq_work__init(&r.work, rerun_fn);
	assert_int_equal(wq__queue_work(wq, &r.work), 1);
	assert_true(wait_for(&r.runs, 1, 5000));
	assert_int_equal(wq__queue_work(wq, &r.work), 1);
	assert_int_equal(wq__queue_work(wq, &r.work), 0);
	assert_true(wq_work__is_pending(&r.work));
	usleep(2000);	/* another idle worker must not start it meanwhile */
	assert_int_equal(atomic_load(&r.runs), 1);
	gate_open(&gate);
	assert_int_equal(wq__flush(wq), 0);
	assert_int_equal(atomic_load(&r.runs), 2);
	assert_int_equal(atomic_load(&r.overlap), 0);
	wq__delete(wq);
	gate_destroy(&gate);
}

struct hammer {
	struct wq	*wq;
	struct counted	*c;
	_Atomic int	*stop;
	long		queued;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;

	while (!atomic_load(h->stop))
		h->queued += wq__queue_work(h->wq, &h->c->work) == 1;
	return NULL;
}

/* Three threads queue one item as fast as they can: it never overlaps itself. */
static void test_non_reentrant_stress(void **state)
{
	struct wq *wq = wq__new(pool, "hammer", 0);
	struct counted c = { .spin = 200 };
	_Atomic int stop = 0;
	struct hammer h[3];
	pthread_t th[2];
	long total = 0;
	int64_t end = now_ms() + 150;
	int i;

	wq_work__init(&c.work, counted_fn);
	for (i = 0; i < 3; i++)
		h[i] = (struct hammer){ .wq = wq, .c = &c, .stop = &stop };
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_thread, &h[i]), 0);
	while (now_ms() < end)
		h[2].queued += wq__queue_work(wq, &c.work) == 1;
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(wq__flush(wq), 0);
	for (i = 0; i < 3; i++)
		total += h[i].queued;
	assert_true(total > 0);
	/* each successful queueing is one run: none lost, none doubled */
	assert_int_equal(atomic_load(&c.runs), total);
	assert_int_equal(atomic_load(&c.overlap), 0);
	wq__delete(wq);
}

/* ----------------------------------------------------------------- flush */

struct slow {
	struct wq_work	work;
	int		ms;
	_Atomic int	done;
};

static void slow_fn(struct wq_work *work)
{
	struct slow *s = container_of(work, struct slow, work);

	usleep(s->ms * 1000);
	atomic_store(&s->done, 1);
}

static void test_flush_work(void **state)
{
	struct wq *wq = wq__new(pool, "flushw", 0);
	struct slow s = { .ms = 20 };

	wq_work__init(&s.work, slow_fn);
	assert_int_equal(wq_work__flush(&s.work), 0);
	assert_int_equal(wq__queue_work(wq, &s.work), 1);
	assert_int_equal(wq_work__flush(&s.work), 1);
	assert_int_equal(atomic_load(&s.done), 1);
	assert_int_equal(wq_work__flush(&s.work), 0);
	wq__delete(wq);
}

/* A tree of items, each queueing its two children on the same workqueue. */
#define TREE_DEPTH	10
#define TREE_NODES	((1 << TREE_DEPTH) - 1)

struct tree {
	struct wq	*wq;
	_Atomic int	ran;
	_Atomic int	bad;
	struct tree_node {
		struct wq_work	work;
		struct tree	*tree;
		int		idx;
	} nodes[TREE_NODES];
};

static void tree_fn(struct wq_work *work)
{
	struct tree_node *n = container_of(work, struct tree_node, work);
	struct tree *t = n->tree;
	int child = 2 * n->idx + 1;

	usleep(n->idx % 97 == 0 ? 1000 : 0);
	/* no cmocka assertion off the test's thread: count failures instead */
	if (child < TREE_NODES &&
	    (wq__queue_work(t->wq, &t->nodes[child].work) != 1 ||
	     wq__queue_work(t->wq, &t->nodes[child + 1].work) != 1))
		atomic_fetch_add(&t->bad, 1);
	atomic_fetch_add(&t->ran, 1);
}

static void test_flush_waits_for_chained(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	int i, round;

	t->wq = wq__new(pool, "tree", 0);
	for (round = 0; round < 3; round++) {
		atomic_store(&t->ran, 0);
		for (i = 0; i < TREE_NODES; i++) {
			wq_work__init(&t->nodes[i].work, tree_fn);
			t->nodes[i].tree = t;
			t->nodes[i].idx = i;
		}
		assert_int_equal(wq__queue_work(t->wq, &t->nodes[0].work), 1);
		assert_int_equal(wq__flush(t->wq), 0);
		/* every descendant ran before the flush returned */
		assert_int_equal(atomic_load(&t->ran), TREE_NODES);
	}
	assert_int_equal(atomic_load(&t->bad), 0);
	wq__delete(t->wq);
	free(t);
}

static void self_flush_fn(struct wq_work *work)
{
	struct where *w = container_of(work, struct where, work);

	w->cpu = wq_work__flush(work);			/* -EDEADLK */
	w->worker = wq_work__cancel_sync(work);		/* -EDEADLK */
}

struct own_flush {
	struct wq_work	work;
	struct wq	*wq;
	int		flush_ret;
	int		drain_ret;
};

static void own_flush_fn(struct wq_work *work)
{
	struct own_flush *o = container_of(work, struct own_flush, work);

	o->flush_ret = wq__flush(o->wq);
	o->drain_ret = wq__drain(o->wq);
}

static void test_deadlock_refused(void **state)
{
	struct wq *wq = wq__new(pool, "self", 0);
	struct where w;
	struct own_flush o = { .wq = wq };

	wq_work__init(&w.work, self_flush_fn);
	assert_int_equal(wq__queue_work(wq, &w.work), 1);
	assert_true(wq_work__flush(&w.work) >= 0);
	assert_int_equal(w.cpu, -EDEADLK);
	assert_int_equal(w.worker, -EDEADLK);
	wq_work__init(&o.work, own_flush_fn);
	assert_int_equal(wq__queue_work(wq, &o.work), 1);
	assert_int_equal(wq__flush(wq), 0);
	assert_int_equal(o.flush_ret, -EDEADLK);
	assert_int_equal(o.drain_ret, -EDEADLK);
	wq__delete(wq);
}

#define STREAM_ITEMS	64

struct stream {
	struct wq	*wq;
	_Atomic int	stop;
	struct counted	items[STREAM_ITEMS];
};

static void *stream_thread(void *arg)
{
	struct stream *s = arg;
	unsigned int i = 0;

	while (!atomic_load(&s->stop))
		wq__queue_work(s->wq, &s->items[i++ % STREAM_ITEMS].work);
	return NULL;
}

/* A producer never stops queueing: flushes still return, and do their job. */
static void test_flush_not_livelocked(void **state)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct slow before = { .ms = 5 };
	pthread_t th;
	int i;

	s->wq = wq__new(pool, "stream", 0);
	for (i = 0; i < STREAM_ITEMS; i++) {
		wq_work__init(&s->items[i].work, counted_fn);
		s->items[i].spin = 2000;
	}
	wq_work__init(&before.work, slow_fn);
	assert_int_equal(pthread_create(&th, NULL, stream_thread, s), 0);
	for (i = 0; i < 20; i++) {
		int64_t t0 = now_ms();

		atomic_store(&before.done, 0);
		assert_int_equal(wq__queue_work(s->wq, &before.work), 1);
		assert_int_equal(wq__flush(s->wq), 0);
		assert_int_equal(atomic_load(&before.done), 1);
		assert_true(now_ms() - t0 < 2000);
	}
	atomic_store(&s->stop, 1);
	pthread_join(th, NULL);
	wq__delete(s->wq);
	for (i = 0; i < STREAM_ITEMS; i++)
		assert_int_equal(atomic_load(&s->items[i].overlap), 0);
	free(s);
}

/* ---------------------------------------------------------------- cancel */

struct delayed_open {
	struct gate	*gate;
	int		ms;
};

static void *delayed_open_thread(void *arg)
{
	struct delayed_open *d = arg;

	usleep(d->ms * 1000);
	gate_open(d->gate);
	return NULL;
}

static void test_cancel_pending(void **state)
{
	struct wq *wq = wq__new(pool, "cancel", 0);
	struct gate gate;
	struct blocker b = { .gate = &gate };
	struct counted c = { 0 };

	wq_work__init(&c.work, counted_fn);
	assert_int_equal(wq_work__cancel_sync(&c.work), 0);	/* idle */
	blocker__start(&b, &gate, wq, false);
	assert_int_equal(wq__queue_work_on(wq, cpus[0], &c.work), 1);
	assert_int_equal(wq_work__cancel_sync(&c.work), 1);
	assert_false(wq_work__is_pending(&c.work));
	gate_open(&gate);
	assert_int_equal(wq__flush(wq), 0);
	assert_int_equal(atomic_load(&c.runs), 0);
	/* usable again afterwards */
	assert_int_equal(wq__queue_work(wq, &c.work), 1);
	assert_true(wq_work__flush(&c.work) >= 0);
	assert_int_equal(atomic_load(&c.runs), 1);
	wq__delete(wq);
	gate_destroy(&gate);
}

static void test_cancel_running_waits(void **state)
{
	struct wq *wq = wq__new(pool, "cancelr", 0);
	struct gate gate;
	struct blocker b = { .gate = &gate };
	struct delayed_open d = { .gate = &gate, .ms = 20 };
	pthread_t th;

	blocker__start(&b, &gate, wq, true);
	/* open the gate a little later, from another thread */
	assert_int_equal(pthread_create(&th, NULL, delayed_open_thread, &d), 0);
	assert_int_equal(wq_work__cancel_sync(&b.work), 0);
	assert_int_equal(atomic_load(&b.done), 1);
	assert_int_equal(wq__queue_work(wq, &b.work), 1);	/* queueing works again */
	assert_true(wq_work__flush(&b.work) >= 0);
	pthread_join(th, NULL);
	wq__delete(wq);
	gate_destroy(&gate);
}

struct selfq {
	struct wq_work	work;
	struct wq	*wq;
	_Atomic int	runs;
};

static void selfq_fn(struct wq_work *work)
{
	struct selfq *s = container_of(work, struct selfq, work);

	atomic_fetch_add(&s->runs, 1);
	usleep(100);
	wq__queue_work(s->wq, work);
}

static void test_cancel_self_requeueing(void **state)
{
	struct selfq s = { .wq = wq__new(pool, "selfq", 0) };
	int runs, round;

	wq_work__init(&s.work, selfq_fn);
	for (round = 0; round < 5; round++) {
		assert_int_equal(wq__queue_work(s.wq, &s.work), 1);
		assert_true(wait_for(&s.runs, 3 * (round + 1), 5000));
		assert_true(wq_work__cancel_sync(&s.work) >= 0);
		assert_false(wq_work__is_pending(&s.work));
		runs = atomic_load(&s.runs);
		usleep(5000);
		assert_int_equal(atomic_load(&s.runs), runs);
	}
	wq__delete(s.wq);
}

/* ------------------------------------------------------- delete and drain */

#define DRAIN_N	1000

/* Every worker blocked, a thousand items pending: delete runs them all. */
static void test_delete_with_pending(void **state)
{
	struct wq *wq = wq__new(pool, "delete", 0);
	struct counted *c = calloc(DRAIN_N, sizeof(*c));
	struct blocker *b = calloc(nr_cpus, sizeof(*b));
	struct gate gate;
	struct delayed_open d = { .gate = &gate, .ms = 20 };
	pthread_t th;
	int i;

	gate_init(&gate);
	for (i = 0; i < nr_cpus; i++) {
		b[i].gate = &gate;
		wq_work__init(&b[i].work, blocker_fn);
		assert_int_equal(wq__queue_work_on(wq, cpus[i], &b[i].work), 1);
	}
	for (i = 0; i < DRAIN_N; i++) {
		wq_work__init(&c[i].work, counted_fn);
		assert_int_equal(wq__queue_work(wq, &c[i].work), 1);
	}
	assert_int_equal(pthread_create(&th, NULL, delayed_open_thread, &d), 0);
	wq__delete(wq);
	for (i = 0; i < DRAIN_N; i++)
		assert_int_equal(atomic_load(&c[i].runs), 1);
	for (i = 0; i < nr_cpus; i++)
		assert_int_equal(atomic_load(&b[i].done), 1);
	pthread_join(th, NULL);
	gate_destroy(&gate);
	free(c);
	free(b);
}

struct chain_on_drain {
	struct blocker	b;
	struct counted	child;
	struct wq	*wq;
	int		ret;
};

static void chain_on_drain_fn(struct wq_work *work)
{
	struct chain_on_drain *x = container_of(work, struct chain_on_drain, b.work);

	blocker_fn(work);
	x->ret = wq__queue_work(x->wq, &x->child.work);	/* chained: allowed */
}

static void *drain_thread(void *arg)
{
	wq__drain(arg);
	return NULL;
}

/* While draining, outsiders are refused and work items may still chain. */
static void test_drain_refuses_outsiders(void **state)
{
	struct wq *wq = wq__new(pool, "drain", 0);
	struct gate gate;
	struct chain_on_drain x = { .wq = wq };
	struct counted outsider = { 0 };
	pthread_t th;
	int64_t end = now_ms() + 5000;
	int ret;

	gate_init(&gate);
	x.b.gate = &gate;
	wq_work__init(&x.b.work, chain_on_drain_fn);
	wq_work__init(&x.child.work, counted_fn);
	wq_work__init(&outsider.work, counted_fn);
	assert_int_equal(wq__queue_work(wq, &x.b.work), 1);
	assert_true(wait_for(&x.b.started, 1, 5000));
	assert_int_equal(pthread_create(&th, NULL, drain_thread, wq), 0);
	while ((ret = wq__queue_work(wq, &outsider.work)) != -ESHUTDOWN && now_ms() < end) {
		wq_work__flush(&outsider.work);
		usleep(100);
	}
	assert_int_equal(ret, -ESHUTDOWN);
	gate_open(&gate);
	pthread_join(th, NULL);
	assert_int_equal(x.ret, 1);
	assert_int_equal(atomic_load(&x.child.runs), 1);
	assert_int_equal(wq__queue_work(wq, &outsider.work), 1);	/* accepted again */
	wq__delete(wq);
	gate_destroy(&gate);
}

/* ------------------------------------------------------- parallel loops */

struct cover {
	_Atomic int	*hits;
	long		from;
	int		nr_slots;
	_Atomic int	bad_slot;
};

static int cover_fn(void *arg, long idx, int slot)
{
	struct cover *c = arg;

	if (slot < 0 || slot >= c->nr_slots)
		atomic_store(&c->bad_slot, 1);
	atomic_fetch_add(&c->hits[idx - c->from], 1);
	return 0;
}

static void test_parallel_for_coverage(void **state)
{
	static const long sizes[] = { 0, 1, 2, 3, 7, 100, 1000, 8191, 100003 };
	static const long chunks[] = { 0, 1, 2, 3, 16, 17, 1000, 200000 };
	static const long froms[] = { 0, -50 };
	struct wq *wq = wq__new(pool, "pfor", 0);
	_Atomic int *hits = calloc(100003, sizeof(*hits));
	size_t s, c, f;
	long i;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
	for (f = 0; f < 2; f++) {
		struct cover cv = { .hits = hits, .from = froms[f],
				    .nr_slots = wq_pool__nr_slots(pool) };
		long err_idx = -7;

		memset(hits, 0, sizes[s] * sizeof(*hits));
		assert_int_equal(wq__parallel_for(wq, froms[f], froms[f] + sizes[s], chunks[c],
						  cover_fn, &cv, &err_idx), 0);
		assert_int_equal(err_idx, -7);
		for (i = 0; i < sizes[s]; i++) {
			if (atomic_load(&hits[i]) != 1)
				fail_msg("n %ld chunk %ld from %ld: index %ld ran %d times",
					 sizes[s], chunks[c], froms[f], i, atomic_load(&hits[i]));
		}
		assert_int_equal(atomic_load(&cv.bad_slot), 0);
	}
	assert_int_equal(wq__parallel_for(wq, 10, 5, 1, cover_fn, NULL, NULL), 0);
	assert_int_equal(wq__parallel_for(wq, 0, 10, -1, cover_fn, NULL, NULL), -EINVAL);
	wq__delete(wq);
	free(hits);
}

struct fail_at {
	_Atomic int	*hits;
	long		bad1, bad2;
	int		spin;
};

static int fail_at_fn(void *arg, long idx, int slot)
{
	struct fail_at *f = arg;
	volatile int i;

	for (i = 0; i < (idx % 13) * f->spin; i++)	/* uneven items */
		;
	atomic_fetch_add(&f->hits[idx], 1);
	if (idx == f->bad1)
		return -EIO;
	if (idx == f->bad2)
		return -ENOMEM;
	return 0;
}

static void test_parallel_for_error(void **state)
{
	static const long chunks[] = { 1, 7, 64, 5000 };
	struct wq *wq = wq__new(pool, "pfail", 0);
	_Atomic int *hits = calloc(10000, sizeof(*hits));
	size_t c;
	long i;

	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct fail_at f = { .hits = hits, .bad1 = 3000, .bad2 = 6000, .spin = 20 };
		long err_idx = -1;

		memset(hits, 0, 10000 * sizeof(*hits));
		assert_int_equal(wq__parallel_for(wq, 0, 10000, chunks[c], fail_at_fn, &f,
						  &err_idx), -EIO);
		assert_int_equal(err_idx, 3000);
		for (i = 0; i <= 3000; i++)
			assert_int_equal(atomic_load(&hits[i]), 1);
		for (; i < 10000; i++)
			assert_true(atomic_load(&hits[i]) <= 1);
	}
	/* inline too: one chunk */
	{
		struct fail_at f = { .hits = hits, .bad1 = 5, .bad2 = 2 };
		long err_idx = -1;

		memset(hits, 0, 10 * sizeof(*hits));
		assert_int_equal(wq__parallel_for(wq, 0, 10, 10, fail_at_fn, &f, &err_idx),
				 -ENOMEM);
		assert_int_equal(err_idx, 2);
		assert_int_equal(atomic_load(&hits[3]), 0);
	}
	wq__delete(wq);
	free(hits);
}

struct slots {
	_Atomic int	*busy;
	int		nr;
	_Atomic int	clash;
	_Atomic int	on_caller;
	pthread_t	caller;
};

static int slots_fn(void *arg, long idx, int slot)
{
	struct slots *s = arg;
	int zero = 0;
	volatile int i;

	if (!atomic_compare_exchange_strong(&s->busy[slot], &zero, 1))
		atomic_store(&s->clash, 1);
	if (slot == s->nr - 1 && !pthread_equal(pthread_self(), s->caller))
		atomic_store(&s->clash, 1);
	if (slot == s->nr - 1)
		atomic_fetch_add(&s->on_caller, 1);
	for (i = 0; i < 50; i++)
		;
	atomic_store(&s->busy[slot], 0);
	return 0;
}

/* No two calls of one loop share a slot at once; the caller has the last. */
static void test_parallel_for_slots(void **state)
{
	struct wq *wq = wq__new(pool, "slots", 0);
	struct slots s = { .nr = wq_pool__nr_slots(pool), .caller = pthread_self() };

	assert_int_equal(s.nr, nr_cpus + 1);
	s.busy = calloc(s.nr, sizeof(*s.busy));
	assert_int_equal(wq__parallel_for(wq, 0, 100000, 1, slots_fn, &s, NULL), 0);
	assert_int_equal(atomic_load(&s.clash), 0);
	/* a one-chunk range runs inline, all of it in the caller's slot */
	atomic_store(&s.on_caller, 0);
	assert_int_equal(wq__parallel_for(wq, 0, 50, 64, slots_fn, &s, NULL), 0);
	assert_int_equal(atomic_load(&s.on_caller), 50);
	assert_int_equal(atomic_load(&s.clash), 0);
	free(s.busy);
	wq__delete(wq);
}

static void test_parallel_for_inline_max(void **state)
{
	struct wq_pool_attr attr = { .name = "inl", .inline_max = 100 };
	struct wq_pool *p = wq_pool__new(&attr, NULL, 0);
	struct wq *wq = wq__new(p, "inl", 0);
	struct slots s = { .nr = wq_pool__nr_slots(p), .caller = pthread_self() };

	s.busy = calloc(s.nr, sizeof(*s.busy));
	assert_int_equal(wq__parallel_for(wq, 0, 100, 1, slots_fn, &s, NULL), 0);
	assert_int_equal(atomic_load(&s.on_caller), 100);
	assert_int_equal(atomic_load(&s.clash), 0);
	free(s.busy);
	wq__delete(wq);
	wq_pool__delete(p);
}

struct nested {
	struct wq_work	work;
	struct wq	*wq;
	_Atomic int	*hits;
	int		ret;
};

static void nested_fn(struct wq_work *work)
{
	struct nested *n = container_of(work, struct nested, work);
	struct cover cv = { .hits = n->hits, .nr_slots = wq_pool__nr_slots(pool) };

	n->ret = wq__parallel_for(n->wq, 0, 5000, 3, cover_fn, &cv, NULL);
}

/* A loop started from work items of the same pool, on every worker at once. */
static void test_parallel_for_nested(void **state)
{
	struct wq *wq = wq__new(pool, "nested", 0);
	struct nested *n = calloc(nr_cpus, sizeof(*n));
	int i, j;

	for (i = 0; i < nr_cpus; i++) {
		n[i].wq = wq;
		n[i].hits = calloc(5000, sizeof(*n[i].hits));
		wq_work__init(&n[i].work, nested_fn);
		assert_int_equal(wq__queue_work_on(wq, cpus[i], &n[i].work), 1);
	}
	assert_int_equal(wq__flush(wq), 0);
	for (i = 0; i < nr_cpus; i++) {
		assert_int_equal(n[i].ret, 0);
		for (j = 0; j < 5000; j++)
			assert_int_equal(atomic_load(&n[i].hits[j]), 1);
		free(n[i].hits);
	}
	free(n);
	wq__delete(wq);
}

struct percpu {
	int		cpu[1024];
	int		slot[1024];
	_Atomic int	ran;
	long		fail_from;
};

static int percpu_fn(void *arg, long idx, int slot)
{
	struct percpu *p = arg;

	p->cpu[idx] = sched_getcpu();
	p->slot[idx] = slot;
	atomic_fetch_add(&p->ran, 1);
	return idx >= p->fail_from ? -EBUSY : 0;
}

struct percpu_in_work {
	struct wq_work	work;
	struct wq	*wq;
	int		ret;
};

static void percpu_in_work_fn(struct wq_work *work)
{
	struct percpu_in_work *x = container_of(work, struct percpu_in_work, work);

	x->ret = wq__parallel_for_cpus(x->wq, cpus, nr_cpus, percpu_fn, NULL, NULL);
}

static void test_parallel_for_cpus(void **state)
{
	struct wq *wq = wq__new(pool, "percpu", 0);
	struct percpu *p = calloc(1, sizeof(*p));
	struct percpu_in_work x = { .wq = wq };
	int bad[2] = { cpus[0], 100000 };
	long err_idx = -1;
	int i, round;

	for (round = 0; round < 10; round++) {
		p->fail_from = 1000000;
		atomic_store(&p->ran, 0);
		assert_int_equal(wq__parallel_for_cpus(wq, cpus, nr_cpus, percpu_fn, p, &err_idx), 0);
		assert_int_equal(atomic_load(&p->ran), nr_cpus);
		for (i = 0; i < nr_cpus; i++) {
			assert_int_equal(p->cpu[i], cpus[i]);
			assert_int_equal(p->slot[i], wq_pool__cpu_worker(pool, cpus[i]));
		}
	}
	/* errors: the lowest failing index, and every call still runs */
	p->fail_from = nr_cpus > 1 ? 1 : 0;
	atomic_store(&p->ran, 0);
	assert_int_equal(wq__parallel_for_cpus(wq, cpus, nr_cpus, percpu_fn, p, &err_idx), -EBUSY);
	assert_int_equal(err_idx, p->fail_from);
	assert_int_equal(atomic_load(&p->ran), nr_cpus);

	assert_int_equal(wq__parallel_for_cpus(wq, bad, 2, percpu_fn, p, &err_idx), -EINVAL);
	assert_int_equal(err_idx, 1);
	assert_int_equal(wq__parallel_for_cpus(wq, cpus, 0, percpu_fn, p, NULL), 0);

	wq_work__init(&x.work, percpu_in_work_fn);
	assert_int_equal(wq__queue_work(wq, &x.work), 1);
	assert_true(wq_work__flush(&x.work) >= 0);
	assert_int_equal(x.ret, -EDEADLK);
	free(p);
	wq__delete(wq);
}

/* -------------------------------------------------------------- scratch */

struct scratch_probe {
	void		*ptr[1024];
	int		worker[1024];
	int		size;
};

static int scratch_fn(void *arg, long idx, int slot)
{
	struct scratch_probe *s = arg;
	char *p = wq_worker__scratch();

	s->ptr[idx] = p;
	s->worker[idx] = wq_worker__index();
	if (p)
		memset(p, 0xa5, s->size);
	return 0;
}

static void test_scratch(void **state)
{
	struct wq_pool_attr attr = { .name = "scr", .scratch_size = 4000 };
	struct wq_pool *p = wq_pool__new(&attr, NULL, 0);
	struct wq *wq = wq__new(p, "scratch", 0);
	struct scratch_probe *s = calloc(1, sizeof(*s));
	int i, j;

	s->size = 4000;
	assert_int_equal(wq__parallel_for_cpus(wq, cpus, nr_cpus, scratch_fn, s, NULL), 0);
	for (i = 0; i < nr_cpus; i++) {
		assert_non_null(s->ptr[i]);
		assert_int_equal((uintptr_t)s->ptr[i] % 64, 0);
		assert_int_equal(s->worker[i], wq_pool__cpu_worker(p, cpus[i]));
		for (j = 0; j < i; j++)
			assert_true(s->ptr[i] != s->ptr[j]);
	}
	assert_null(wq_worker__scratch());
	assert_int_equal(wq_worker__index(), -ESRCH);
	free(s);
	wq__delete(wq);
	wq_pool__delete(p);
}

/* ------------------------------------------------------ a million works */

#define MILLION		1000000
#define PRODUCER_ITEMS	4096

struct producer {
	struct wq	*wq;
	struct counted	*items;
	long		want;
	long		queued;
	long		errors;
};

static void *producer_thread(void *arg)
{
	struct producer *p = arg;
	unsigned int i = 0;

	while (p->queued < p->want) {
		int ret = wq__queue_work(p->wq, &p->items[i++ % PRODUCER_ITEMS].work);

		if (ret < 0)
			p->errors++;
		else
			p->queued += ret;
	}
	return NULL;
}

static void test_million_tiny_works(void **state)
{
	struct wq *wq = wq__new(pool, "million", 0);
	struct producer p[2];
	pthread_t th;
	long runs = 0;
	int i, k;

	for (k = 0; k < 2; k++) {
		p[k] = (struct producer){ .wq = wq, .want = MILLION / 2 };
		p[k].items = calloc(PRODUCER_ITEMS, sizeof(struct counted));
		for (i = 0; i < PRODUCER_ITEMS; i++)
			wq_work__init(&p[k].items[i].work, counted_fn);
	}
	assert_int_equal(pthread_create(&th, NULL, producer_thread, &p[1]), 0);
	producer_thread(&p[0]);
	pthread_join(th, NULL);
	assert_int_equal(wq__flush(wq), 0);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < PRODUCER_ITEMS; i++) {
			runs += atomic_load(&p[k].items[i].runs);
			assert_int_equal(atomic_load(&p[k].items[i].overlap), 0);
			assert_false(wq_work__is_pending(&p[k].items[i].work));
		}
		free(p[k].items);
	}
	assert_int_equal(p[0].errors + p[1].errors, 0);
	assert_int_equal(p[0].queued + p[1].queued, MILLION);
	assert_int_equal(runs, MILLION);
	wq__delete(wq);
}

/* ----------------------------------------------------------------- dump */

static void test_dump(void **state)
{
	struct wq *wq = wq__new(pool, "dumpme", 0);
	struct gate gate;
	struct blocker b = { .gate = &gate };
	char *buf = NULL, want[64];
	size_t len = 0;
	FILE *f;

	blocker__start(&b, &gate, wq, false);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	wq_pool__dump(pool, f);
	fclose(f);
	assert_non_null(strstr(buf, "workqueue pool twq"));
	assert_non_null(strstr(buf, "workqueue dumpme"));
	snprintf(want, sizeof(want), "twq/%d", cpus[0]);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "running, 0 queued (0 stealable)");
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "work %p", (void *)&b.work);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "wq dumpme for "));
	free(buf);
	gate_open(&gate);
	wq__delete(wq);
	gate_destroy(&gate);
}

/* --------------------------------------------------------------- errors */

static void test_bad_arguments(void **state)
{
	struct wq_pool_attr attr = { .cpus = (int[]){ 4096 }, .nr_cpus = 1 };
	char err[128] = "";

	assert_null(wq_pool__new(&attr, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "CPU 4096"));
	attr = (struct wq_pool_attr){ .scope = (enum wq_scope)42 };
	assert_null(wq_pool__new(&attr, NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(wq__new(NULL, "x", 0));
	assert_null(wq__new(pool, "x", 0x80));
	wq_pool__delete(NULL);
	wq__delete(NULL);
}

/* A pool deleted with workqueues still on it drains and deletes them. */
static void test_pool_delete_drains(void **state)
{
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_SYSTEM, .name = "sys" };
	struct wq_pool *p = wq_pool__new(&attr, NULL, 0);
	struct wq *wq = wq__new(p, "left", 0);
	struct counted *c = calloc(100, sizeof(*c));
	int i;

	assert_non_null(p);
	assert_int_equal(wq_pool__nr_workers(p), nr_cpus);
	for (i = 0; i < 100; i++) {
		wq_work__init(&c[i].work, counted_fn);
		c[i].spin = 10000;
		assert_int_equal(wq__queue_work(wq, &c[i].work), 1);
	}
	wq_pool__delete(p);
	for (i = 0; i < 100; i++)
		assert_int_equal(atomic_load(&c[i].runs), 1);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_one_worker),
		cmocka_unit_test(test_ordered),
		cmocka_unit_test(test_queue_work_on_cpu),
		cmocka_unit_test(test_worker_names),
		cmocka_unit_test(test_requeue_pending_runs_once),
		cmocka_unit_test(test_requeue_while_running),
		cmocka_unit_test(test_non_reentrant_stress),
		cmocka_unit_test(test_flush_work),
		cmocka_unit_test(test_flush_waits_for_chained),
		cmocka_unit_test(test_deadlock_refused),
		cmocka_unit_test(test_flush_not_livelocked),
		cmocka_unit_test(test_cancel_pending),
		cmocka_unit_test(test_cancel_running_waits),
		cmocka_unit_test(test_cancel_self_requeueing),
		cmocka_unit_test(test_delete_with_pending),
		cmocka_unit_test(test_drain_refuses_outsiders),
		cmocka_unit_test(test_parallel_for_coverage),
		cmocka_unit_test(test_parallel_for_error),
		cmocka_unit_test(test_parallel_for_slots),
		cmocka_unit_test(test_parallel_for_inline_max),
		cmocka_unit_test(test_parallel_for_nested),
		cmocka_unit_test(test_parallel_for_cpus),
		cmocka_unit_test(test_scratch),
		cmocka_unit_test(test_million_tiny_works),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_pool_delete_drains),
	};

	return cmocka_run_group_tests_name("workqueue", tests, group_setup, group_teardown) ? 1 : 0;
}
