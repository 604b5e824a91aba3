// SPDX-License-Identifier: GPL-2.0
/*
 * pool.c — worker pools at work: the workers' queues, sleeping, waking,
 * stealing, and the loop each worker thread runs.  pool-new.c creates the
 * pool and its threads (wq_worker__main() is their entry) and deletes it.
 *
 * Each worker owns a queue under its own mutex, with two FIFO lists: bound
 * work (queued for that worker's CPU, or for an ordered workqueue), which
 * only it runs, and free work, which idle workers steal, oldest first, from
 * their own NUMA node's workers before the others.  The owner pops the
 * older of the two list heads (a ticket per queue keeps the FIFO order).
 * There is no shared queue: a producer touches one worker's lock.
 *
 * An idle worker spins for pool->spin_ns (yielding the CPU between polls;
 * at most half the workers spin), then sleeps on a futex word of its own
 * (worker->sleep), announced in a bitmap of sleepers.  A producer wakes
 * the worker it queued to if that one sleeps, or else, for stealable work
 * when no worker spins, one sleeper (found in the bitmap) to steal it; no
 * syscall happens while workers are busy.  The bitmap is only a hint: the sleep word decides who
 * wakes whom (compare-and-swap 1 -> 0, then FUTEX_WAKE).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "wq-internal.h"

#define SPIN_PAUSES	8	/* pauses between two polls */

#define link_to_work(l)	((struct wq_work *)((char *)(l) - offsetof(struct wq_work, link)))

/*
 * The worker this thread is, NULL in other threads.  Thread-local, set once
 * by each worker at start: it is how queueing from a work item finds its
 * own queue and flush colour, like the kernel's "current".
 */
static _Thread_local struct wq_worker *wq_self;

/* Round-robin cursor of a thread queueing from outside a pool. */
static _Thread_local unsigned int wq_rr;

#if defined(__x86_64__) || defined(__i386__)
static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
}
#else
static inline void cpu_relax(void)
{
	__asm__ __volatile__("" ::: "memory");
}
#endif

struct wq_worker *wq_worker__self(void)
{
	return wq_self;
}

int64_t wq__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A clock read costing a few ns, with a resolution of a few ms: for dumps. */
int64_t wq__coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Returns on wake-up, signal, or when *addr != val: callers re-check. */
void wq_futex_wait(void *addr, unsigned int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* A private futex wake only hashes the address: safe even once freed. */
void wq_futex_wake(void *addr, int nr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

/* ---------------------------------------------------------------- lists */

static void link__init(struct wq_work_link *head)
{
	head->next = head->prev = head;
}

static bool link__empty(const struct wq_work_link *head)
{
	return head->next == head;
}

static void link__add_tail(struct wq_work_link *node, struct wq_work_link *head)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static void link__del(struct wq_work_link *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->next = node->prev = node;
}

void wq_worker__init_queue(struct wq_worker *w, const pthread_mutexattr_t *attr)
{
	pthread_mutex_init(&w->lock, attr);
	link__init(&w->bound);
	link__init(&w->free);
}

/* --------------------------------------------------------------- queues */

/* Append an owned, pending work.  L held. */
static void worker__enqueue(struct wq_worker *w, struct wq_work *work)
{
	work->ticket = w->next_ticket++;
	link__add_tail(&work->link, work->bound ? &w->bound : &w->free);
	/* relaxed: cancel re-reads it under L before trusting it */
	atomic_store_explicit(&work->queue, w, memory_order_relaxed);
	if (!work->bound)
		atomic_fetch_add(&w->nr_free, 1);	/* seq_cst, see below */
	/*
	 * seq_cst: pairs with worker__sleep(), which stores sleep = 1 and then
	 * reads the counters; we increment and then read the sleep word (in
	 * wq_pool__push()), so one of the two sees the other.
	 */
	atomic_fetch_add(&w->nr_queued, 1);
}

/* Unlink a queued work.  L held. */
static void worker__unlink(struct wq_worker *w, struct wq_work *work)
{
	link__del(&work->link);
	atomic_store_explicit(&work->queue, NULL, memory_order_relaxed);
	/* relaxed: the counters are hints for lock-free peeking; L orders them */
	if (!work->bound)
		atomic_fetch_sub_explicit(&w->nr_free, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&w->nr_queued, 1, memory_order_relaxed);
}

/* Take a work off a queue to run it, reading what the run needs.  L held. */
static void worker__take(struct wq_worker *w, struct wq_work *work, struct wq_exec *exec)
{
	worker__unlink(w, work);
	exec->work = work;
	exec->fn = work->func;
	exec->wq = work->wq;
	exec->color = work->color;
	/* relaxed: written by the owner before it queued the work, under L */
	exec->seq = atomic_load_explicit(&work->queued_seq, memory_order_relaxed);
	/*
	 * PENDING -> RUNNING in one RMW, keeping WAITERS that a flusher may be
	 * setting.  Done under L so that cancel, which also takes L, sees the
	 * work either on the queue or running.  acq_rel: from here the owner's
	 * writes are ours to read, and a queue_work() that sets PENDING again
	 * reads our snapshot's fields only after this.
	 */
	atomic_fetch_xor_explicit(&work->state, WORK_PENDING | WORK_RUNNING,
				  memory_order_acq_rel);
}

static bool worker__pop(struct wq_worker *self, struct wq_exec *exec)
{
	struct wq_work_link *b, *f;
	struct wq_work *work = NULL;

	pthread_mutex_lock(&self->lock);
	b = self->bound.next;
	f = self->free.next;
	if (!link__empty(&self->bound) && !link__empty(&self->free))
		work = link_to_work((int)(link_to_work(b)->ticket - link_to_work(f)->ticket) < 0 ?
				    b : f);	/* tickets wrap: compare the difference */
	else if (!link__empty(&self->bound))
		work = link_to_work(b);
	else if (!link__empty(&self->free))
		work = link_to_work(f);
	if (work)
		worker__take(self, work, exec);
	pthread_mutex_unlock(&self->lock);
	return work != NULL;
}

static bool worker__steal(struct wq_worker *victim, struct wq_exec *exec)
{
	struct wq_work *work = NULL;

	pthread_mutex_lock(&victim->lock);
	if (!link__empty(&victim->free)) {
		work = link_to_work(victim->free.next);
		worker__take(victim, work, exec);
	}
	pthread_mutex_unlock(&victim->lock);
	return work != NULL;
}

/* The range of workers of the node of worker idx (all when it has none). */
static void pool__node_range(const struct wq_pool *pool, int idx, int *first, int *count)
{
	int node = idx >= 0 ? pool->layout.slots[idx].node_idx : -1;

	if (node < 0 || !pool->layout.node_count[node]) {
		*first = 0;
		*count = pool->nr_workers;
		return;
	}
	*first = pool->layout.node_first[node];
	*count = pool->layout.node_count[node];
}

/* Steal from victim if its hint says it has stealable work. */
static bool worker__try_steal(struct wq_worker *victim, struct wq_exec *exec)
{
	/* relaxed: a hint; worker__steal() re-checks under the victim's lock */
	return atomic_load_explicit(&victim->nr_free, memory_order_relaxed) > 0 &&
	       worker__steal(victim, exec);
}

/* Steal from the workers of our node after us first, then from the others. */
static bool worker__steal_any(struct wq_worker *self, struct wq_exec *exec)
{
	struct wq_pool *pool = self->pool;
	int i, v, first, count;

	pool__node_range(pool, self->index, &first, &count);
	for (i = 1; i < count; i++) {
		v = first + (self->index - first + i) % count;
		if (worker__try_steal(pool->workers[v], exec))
			return true;
	}
	for (v = 0; v < pool->nr_workers; v++) {
		if (v >= first && v < first + count)
			continue;
		if (worker__try_steal(pool->workers[v], exec))
			return true;
	}
	return false;
}

/*
 * Is there anything this worker could run: in its own queue, or stealable
 * from the workers in [first, first + count)?  mo: see worker__sleep().
 */
static bool worker__has_work(struct wq_worker *self, int first, int count, memory_order mo)
{
	struct wq_pool *pool = self->pool;
	int i;

	if (atomic_load_explicit(&self->nr_queued, mo) > 0)
		return true;
	for (i = first; i < first + count; i++) {
		if (atomic_load_explicit(&pool->workers[i]->nr_free, mo) > 0)
			return true;
	}
	return false;
}

/* ------------------------------------------------------ sleep and wake */

/* Wake w if it sleeps; true if this call woke it. */
static bool worker__wake(struct wq_worker *w)
{
	int one = 1;

	/*
	 * seq_cst load: the other half of the pairing in worker__enqueue().
	 * Only the thread whose CAS 1 -> 0 succeeds makes the syscall.
	 */
	if (atomic_load(&w->sleep) != 1 ||
	    !atomic_compare_exchange_strong(&w->sleep, &one, 0))
		return false;
	wq_futex_wake(&w->sleep, 1);
	return true;
}

/* First worker in [first, first + count) marked asleep, from bit `from`. */
static int pool__find_idle(struct wq_pool *pool, int from, int first, int count)
{
	int end = first + count, i = from;

	while (i < end) {
		int word = i / LONG_BITS;
		/* seq_cst: pairs with worker__sleep()'s fetch_or, see there */
		unsigned long bits = atomic_load(&pool->idle[word]) >> (i % LONG_BITS);

		if (bits) {
			i += __builtin_ctzl(bits);
			return i < end ? i : -1;
		}
		i = (word + 1) * LONG_BITS;
	}
	return -1;
}

/* Wake one sleeping worker, of near's node first, to steal work. */
static void pool__wake_idle(struct wq_pool *pool, int near)
{
	int pass, first, count, i;

	pool__node_range(pool, near, &first, &count);
	for (pass = 0; pass < 2; pass++) {
		for (i = first; (i = pool__find_idle(pool, i, first, count)) >= 0; i++) {
			if (worker__wake(pool->workers[i]))
				return;
		}
		if (count == pool->nr_workers)
			return;
		first = 0;
		count = pool->nr_workers;
	}
}

static void worker__set_idle_bit(struct wq_worker *self, bool on)
{
	_Atomic unsigned long *word = &self->pool->idle[self->index / LONG_BITS];
	unsigned long bit = 1UL << (self->index % LONG_BITS);

	/* seq_cst: the bit must be visible before the re-check in worker__sleep() */
	if (on)
		atomic_fetch_or(word, bit);
	else
		atomic_fetch_and(word, ~bit);
}

/*
 * Announce sleep, re-check every queue, then block until a producer (or
 * wq_pool__delete()) sets the sleep word back to 0.  Announcing first and
 * checking after, with seq_cst on both sides (see worker__enqueue() and
 * wq_pool__push()), means work queued at any moment is either seen here or
 * finds this worker marked asleep and wakes it.
 */
static void worker__sleep(struct wq_worker *self)
{
	struct wq_pool *pool = self->pool;

	/* seq_cst store, then seq_cst loads below: the announce-then-check half */
	atomic_store(&self->sleep, 1);
	worker__set_idle_bit(self, true);
	if (worker__has_work(self, 0, pool->nr_workers, memory_order_seq_cst) ||
	    atomic_load(&pool->stopping)) {
		/*
		 * Stay awake.  A producer may have claimed us meanwhile (its
		 * CAS 1 -> 0 then fails or its wake is spurious): either way,
		 * a plain store of 0 is enough, nobody waits on it.
		 */
		atomic_store(&self->sleep, 0);
		worker__set_idle_bit(self, false);
		return;
	}
	/* relaxed: the state is only shown by wq_pool__dump() */
	atomic_store_explicit(&self->state, WQ_WORKER_SLEEPING, memory_order_relaxed);
	/* seq_cst load: a waker's CAS to 0 happens before its FUTEX_WAKE */
	while (atomic_load(&self->sleep) == 1)
		wq_futex_wait(&self->sleep, 1);
	worker__set_idle_bit(self, false);
	atomic_store_explicit(&self->state, WQ_WORKER_SEARCHING, memory_order_relaxed);
}

/*
 * At most half the workers (at least one) spin at a time, as in Go's
 * scheduler: spinners burn CPU that producers and other threads may need.
 */
static bool pool__start_spinning(struct wq_pool *pool)
{
	int max = pool->nr_workers / 2 ? pool->nr_workers / 2 : 1;
	/* relaxed: only bounds how many spin; nothing is published through it */
	int n = atomic_load_explicit(&pool->nr_spinning, memory_order_relaxed);

	do {
		if (n >= max)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&pool->nr_spinning, &n, n + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

/*
 * The last spinner to find work wakes a sleeper, which then spins in its
 * place (Go's rule): a burst of work spreads over the workers one wake-up
 * at a time, while producers need not wake anyone when someone spins.
 */
static void worker__stop_spinning(struct wq_worker *self, bool found)
{
	struct wq_pool *pool = self->pool;

	/* seq_cst: pairs with the read of nr_spinning in wq_pool__push() */
	if (atomic_fetch_sub(&pool->nr_spinning, 1) == 1 && found)
		pool__wake_idle(pool, self->index);
}

/* Poll for work for up to spin_ns; true if some showed up. */
static bool worker__spin(struct wq_worker *self)
{
	struct wq_pool *pool = self->pool;
	int64_t deadline;
	int j, first, count;

	if (!pool->spin_ns || !pool__start_spinning(pool))
		return false;
	/* spinners watch their node; the check before sleeping looks at all */
	pool__node_range(pool, self->index, &first, &count);
	deadline = wq__now_ns() + pool->spin_ns;
	do {
		/*
		 * relaxed: a hint; finding work goes through the locks.  Poll
		 * rarely: every read pulls the cache line of a queue away from
		 * the producer writing it.  And yield: a producer (or the
		 * profiled program) may be waiting for this very CPU; spinning
		 * in its way halved the throughput of one producer on two CPUs.
		 */
		if (worker__has_work(self, first, count, memory_order_relaxed)) {
			worker__stop_spinning(self, true);
			return true;
		}
		for (j = 0; j < SPIN_PAUSES; j++)
			cpu_relax();
		sched_yield();
	} while (wq__now_ns() < deadline &&
		 !atomic_load_explicit(&pool->stopping, memory_order_relaxed));
	worker__stop_spinning(self, false);
	return false;
}

/* ----------------------------------------------------- producers' side */

/* The node range of the calling CPU, or the whole pool. */
static void pool__local_range(const struct wq_pool *pool, int *first, int *count)
{
	int cpu = sched_getcpu(), idx = -1;

	if (cpu >= 0 && cpu < pool->layout.nr_cpu_ids)
		idx = pool->layout.cpu_worker[cpu];
	pool__node_range(pool, idx, first, count);
}

/* Where a thread outside the pool queues: a sleeper of its node, else round robin. */
static struct wq_worker *pool__pick(struct wq_pool *pool)
{
	int first, count, idx;

	pool__local_range(pool, &first, &count);
	idx = pool__find_idle(pool, first, first, count);
	if (idx < 0)
		idx = first + (int)(wq_rr++ % (unsigned int)count);
	return pool->workers[idx];
}

void wq_pool__push(struct wq_pool *pool, struct wq_worker *target, struct wq_work *work)
{
	struct wq_worker *self = wq_self;
	bool stealable = !work->bound, local = self && self->pool == pool;
	int queued;

	if (!target)
		target = local ? self : pool__pick(pool);
	pthread_mutex_lock(&target->lock);
	worker__enqueue(target, work);
	/* relaxed: under L, the value we just wrote */
	queued = atomic_load_explicit(&target->nr_queued, memory_order_relaxed);
	pthread_mutex_unlock(&target->lock);
	/* work may have run and been freed by now: do not touch it */

	if (worker__wake(target) || !stealable)
		return;
	/* the target is awake and busy; a work item's own queue can wait a little */
	if (target == self && queued < 2)
		return;
	/*
	 * A spinning worker will steal it, and wake a sleeper when it does
	 * (worker__stop_spinning()); if it stops without finding it, its
	 * worker__sleep() re-check does.
	 */
	if (atomic_load(&pool->nr_spinning) > 0)
		return;
	pool__wake_idle(pool, target->index);
}

bool wq_pool__unqueue(struct wq_work *work)
{
	/* acquire: the worker struct was published when the pool started */
	struct wq_worker *w = atomic_load_explicit(&work->queue, memory_order_acquire);
	bool found = false;

	if (!w)
		return false;
	pthread_mutex_lock(&w->lock);
	if (atomic_load_explicit(&work->queue, memory_order_relaxed) == w) {
		worker__unlink(w, work);
		found = true;
	}
	pthread_mutex_unlock(&w->lock);
	return found;
}

/* ------------------------------------------------------- worker threads */

static bool worker__find(struct wq_worker *self, struct wq_exec *exec)
{
	/* relaxed: a hint; the pop takes the lock */
	if (atomic_load_explicit(&self->nr_queued, memory_order_relaxed) > 0 &&
	    worker__pop(self, exec))
		return true;
	return worker__steal_any(self, exec);
}

static void worker__loop(struct wq_worker *self)
{
	struct wq_pool *pool = self->pool;
	struct wq_exec exec;

	for (;;) {
		if (worker__find(self, &exec)) {
			wq_exec__run(self, &exec);
			continue;
		}
		wq_worker__publish(self);
		/* seq_cst: pairs with pool__stop(); a late look only costs a spin */
		if (atomic_load(&pool->stopping))
			break;
		/* relaxed: the state is only shown by wq_pool__dump() */
		atomic_store_explicit(&self->state, WQ_WORKER_SEARCHING, memory_order_relaxed);
		if (!worker__spin(self))
			worker__sleep(self);
	}
}

static int worker__setup(struct wq_worker *self)
{
	struct wq_pool *pool = self->pool;

	if (pool->bind &&
	    hwloc_set_cpubind(pool->topo, self->slot->cpuset, HWLOC_CPUBIND_THREAD) < 0)
		return errno ? -errno : -EINVAL;
	pthread_setname_np(pthread_self(), self->slot->name);
	return 0;
}

void *wq_worker__main(void *arg)
{
	struct wq_worker *self = arg;
	struct wq_pool *pool = self->pool;

	wq_self = self;
	/* read by the creator after the latch below (P orders it) */
	self->start_err = worker__setup(self);
	/* relaxed: the state is only shown by wq_pool__dump() */
	atomic_store_explicit(&self->state, WQ_WORKER_SEARCHING, memory_order_relaxed);
	pthread_mutex_lock(&pool->lock);
	pool->nr_started++;
	pthread_cond_broadcast(&pool->started_cond);
	pthread_mutex_unlock(&pool->lock);
	if (!self->start_err)
		worker__loop(self);
	/* relaxed: for wq_pool__dump() */
	atomic_store_explicit(&self->state, WQ_WORKER_EXITED, memory_order_relaxed);
	return NULL;
}

int wq_worker__index(void)
{
	return wq_self ? wq_self->index : -ESRCH;
}

void *wq_worker__scratch(void)
{
	return wq_self ? wq_self->scratch : NULL;
}
