// SPDX-License-Identifier: GPL-2.0
/*
 * wq.c — work items and workqueues: queue, run, flush, cancel, drain.
 *
 * A work item's life is one 32-bit state word (flags and the number of the
 * last finished instance, see wq-internal.h), changed only by atomic RMWs:
 *
 *   idle --queue--> PENDING --pop--> RUNNING --finish--> idle
 *
 * Setting PENDING is the only way in: whoever sets it owns the item's
 * private fields until it hands the item to a queue (pool.c), so a second
 * queue_work() on a pending item returns 0 and the item runs once.  Queued
 * while RUNNING, the item is not put on a queue (it would run twice at once)
 * but marked DEFER; the worker that runs it queues it when it finishes.
 * Finishing is one compare-and-swap that clears RUNNING and publishes the
 * instance number; after it the worker never touches the item again (bar a
 * futex wake, harmless on freed memory), so flushing an item and then
 * freeing it is safe.
 *
 * Waiting on one item (flush, cancel) sleeps on the state word itself, with
 * the WAITERS flag telling the finisher to make the FUTEX_WAKE syscall.
 *
 * A workqueue counts its unfinished items in two colours.  Items queued
 * from outside take the current colour; items queued by a running item of
 * the same workqueue inherit its colour.  wq__flush() flips the current
 * colour and waits for the old one to drain, so it waits for everything
 * queued before it and everything that work queues in turn, and new work
 * from outside cannot hold it up.  Flushers are serialised by flush_lock.
 *
 * Called by any thread; the worker side (wq_exec__run) runs on workers.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "wq-internal.h"

void wq_work__init(struct wq_work *work, wq_work_fn fn)
{
	memset(work, 0, sizeof(*work));
	work->func = fn;
}

bool wq_work__is_pending(const struct wq_work *work)
{
	/* relaxed: a snapshot, as the kernel's work_pending() */
	return atomic_load_explicit(&((struct wq_work *)work)->state, memory_order_relaxed) &
	       WORK_PENDING;
}

/* ------------------------------------------------------ flush colours */

static void wq__put_color(struct wq *wq, unsigned int c, int n)
{
	/*
	 * seq_cst: releases the items' effects to the flusher, which reads
	 * the word with seq_cst.  Nothing of wq is touched after this but the
	 * futex address, which is safe once freed.
	 */
	int old = atomic_fetch_sub(&wq->inflight[c], n);

	if ((old & INFLIGHT_COUNT) == n && (old & INFLIGHT_WAITERS))
		wq_futex_wake(&wq->inflight[c], INT_MAX);
}

/*
 * A worker uncounts finished items in batches, one batch per (workqueue,
 * colour) it runs in a row, so that it does not pull the counter's cache
 * line away from the producers for every item.  The batch is published
 * before the worker runs an item of another workqueue or colour, after 32
 * items, and before it looks idle: a flusher thus waits only for items it
 * would wait for anyway, and the publication stays the worker's last access
 * to the workqueue.
 */
#define BATCH_MAX	32

void wq_worker__publish(struct wq_worker *self)
{
	if (self->batch_n)
		wq__put_color(self->batch_wq, self->batch_color, self->batch_n);
	self->batch_wq = NULL;
	self->batch_n = 0;
}

static void wq_worker__uncount(struct wq_worker *self, struct wq *wq, unsigned int c)
{
	if (self->batch_wq != wq || self->batch_color != c) {
		wq_worker__publish(self);
		self->batch_wq = wq;
		self->batch_color = c;
	}
	if (++self->batch_n >= BATCH_MAX)
		wq_worker__publish(self);
}

/* Count a new item from outside in the current colour; returns the colour. */
static unsigned int wq__get_color(struct wq *wq)
{
	for (;;) {
		/*
		 * seq_cst, all three: wq__flush() flips the colour and then
		 * reads the count.  Either it sees our increment (and waits for
		 * the item), or we see its flip here and retry in the new colour.
		 */
		unsigned int c = atomic_load(&wq->color);

		atomic_fetch_add(&wq->inflight[c], 1);
		if (atomic_load(&wq->color) == c)
			return c;
		wq__put_color(wq, c, 1);
	}
}

/* Wait for colour c to empty.  F held, so we are its only waiter. */
static void wq__wait_color(struct wq *wq, unsigned int c)
{
	for (;;) {
		/* seq_cst: acquires the effects released by wq__put_color() */
		int v = atomic_load(&wq->inflight[c]);

		if (!(v & INFLIGHT_COUNT))
			break;
		/*
		 * seq_cst CAS: once WAITERS is in the word, the decrement to
		 * zero sees it (same word) and wakes us; if the word moved,
		 * look again.
		 */
		if (!(v & INFLIGHT_WAITERS) &&
		    !atomic_compare_exchange_strong(&wq->inflight[c], &v, v | INFLIGHT_WAITERS))
			continue;
		wq_futex_wait(&wq->inflight[c], (unsigned int)(v | INFLIGHT_WAITERS));
	}
	/* seq_cst: the flag must not outlive us; only we (F held) set it */
	atomic_fetch_and(&wq->inflight[c], ~INFLIGHT_WAITERS);
}

/* Is the caller a work item of wq? */
static bool wq__in_own_work(const struct wq *wq)
{
	struct wq_worker *self = wq_worker__self();

	return self && self->cur_wq == wq;
}

/* ---------------------------------------------------------- queueing */

/* The item runs: have its worker queue it when done.  false if it finished. */
static bool work__defer(struct wq_work *work)
{
	/* relaxed: only a first guess for the CAS below */
	unsigned int v = atomic_load_explicit(&work->state, memory_order_relaxed);

	while (v & WORK_RUNNING) {
		/*
		 * release: the finisher that sees DEFER reads the fields we
		 * wrote as owner.  acquire on failure: if RUNNING is gone, the
		 * finisher is done with the item before we queue it.
		 */
		if (atomic_compare_exchange_weak_explicit(&work->state, &v, v | WORK_DEFER,
							  memory_order_release,
							  memory_order_acquire))
			return true;
	}
	return false;
}

int wq__queue_on_worker(struct wq *wq, struct wq_work *work, struct wq_worker *w, bool bound)
{
	struct wq_worker *self = wq_worker__self();
	bool chained = self && self->cur_wq == wq;
	unsigned int v, seq;

	/* acquire: pairs with the release store in wq__drain_locked() */
	if (!chained && atomic_load_explicit(&wq->draining, memory_order_acquire))
		return -ESHUTDOWN;
	/* relaxed: only a first guess for the CAS below */
	v = atomic_load_explicit(&work->state, memory_order_relaxed);
	do {
		if (v & WORK_PENDING)
			return 0;
		/*
		 * acquire: pairs with the release of whoever cleared PENDING
		 * (worker__take(), cancel), so our writes to the O fields come
		 * after their reads.
		 */
	} while (!atomic_compare_exchange_weak_explicit(&work->state, &v, v | WORK_PENDING,
							memory_order_acquire,
							memory_order_relaxed));
	work->wq = wq;
	work->target = w;
	work->bound = bound;
	if (chained) {
		/*
		 * Inherit the colour.  Take the count from our unpublished batch
		 * when it has one of this colour, else add it; relaxed: our own
		 * item holds the colour above zero until it is uncounted, with
		 * seq_cst, after this.
		 */
		work->color = self->cur_color;
		if (self->batch_n && self->batch_wq == wq && self->batch_color == work->color)
			self->batch_n--;
		else
			atomic_fetch_add_explicit(&wq->inflight[work->color], 1,
						  memory_order_relaxed);
	} else {
		work->color = wq__get_color(wq);
	}
	seq = (atomic_load_explicit(&work->queued_seq, memory_order_relaxed) + 1) & WORK_SEQ_MASK;
	/* release: wq_work__flush() reads it with acquire */
	atomic_store_explicit(&work->queued_seq, seq, memory_order_release);
	if ((v & WORK_RUNNING) && work__defer(work))
		return 1;
	wq_pool__push(wq->pool, w, work);
	return 1;
}

int wq__queue_work(struct wq *wq, struct wq_work *work)
{
	if (wq->ordered)
		return wq__queue_on_worker(wq, work, wq->ordered, true);
	return wq__queue_on_worker(wq, work, NULL, false);
}

int wq__queue_work_on(struct wq *wq, int cpu, struct wq_work *work)
{
	int idx = wq_pool__cpu_worker(wq->pool, cpu);

	if (idx < 0 || wq->ordered)
		return -EINVAL;
	return wq__queue_on_worker(wq, work, wq->pool->workers[idx], true);
}

/* -------------------------------------------------------- running */

/* Clear RUNNING, publish the instance, hand over a deferred instance. */
static void work__finish(struct wq_exec *exec)
{
	struct wq_work *work = exec->work;
	/* relaxed: only a first guess for the CAS below */
	unsigned int v = atomic_load_explicit(&work->state, memory_order_relaxed), nv;

	do {
		nv = work_state__with_seq(v & ~(WORK_RUNNING | WORK_DEFER | WORK_WAITERS),
					  exec->seq);
		/*
		 * release: flushers and cancellers that see the new state see
		 * what the work function did.  acquire: a DEFER we find carries
		 * the owner's writes (work__defer()).
		 */
	} while (!atomic_compare_exchange_weak_explicit(&work->state, &v, nv,
							memory_order_acq_rel,
							memory_order_relaxed));
	/* without DEFER the item may be freed from here on */
	if (v & WORK_WAITERS)
		wq_futex_wake(&work->state, INT_MAX);
	if (v & WORK_DEFER)	/* still PENDING and ours: queue it */
		wq_pool__push(work->wq->pool, work->target, work);
}

void wq_exec__run(struct wq_worker *self, struct wq_exec *exec)
{
	self->cur_wq = exec->wq;
	self->cur_color = exec->color;
	/* relaxed: these five are read only by wq_pool__dump() and self */
	atomic_store_explicit(&self->cur_fn, exec->fn, memory_order_relaxed);
	atomic_store_explicit(&self->cur_wq_dump, exec->wq, memory_order_relaxed);
	atomic_store_explicit(&self->cur_since_ns, wq__coarse_ns(), memory_order_relaxed);
	atomic_store_explicit(&self->cur_work, exec->work, memory_order_relaxed);
	atomic_store_explicit(&self->state, WQ_WORKER_RUNNING, memory_order_relaxed);

	exec->fn(exec->work);

	/* relaxed: for wq_pool__dump() and self, as above */
	atomic_store_explicit(&self->cur_work, NULL, memory_order_relaxed);
	atomic_store_explicit(&self->cur_wq_dump, NULL, memory_order_relaxed);
	atomic_store_explicit(&self->state, WQ_WORKER_SEARCHING, memory_order_relaxed);
	self->cur_wq = NULL;
	work__finish(exec);
	wq_worker__uncount(self, exec->wq, exec->color);
	/* relaxed, no RMW: only this worker writes it */
	atomic_store_explicit(&self->nr_done,
			      atomic_load_explicit(&self->nr_done, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* ------------------------------------------------- flush and cancel */

static bool work__is_self(const struct wq_work *work)
{
	struct wq_worker *self = wq_worker__self();

	/* relaxed: only this thread writes its own cur_work */
	return self && atomic_load_explicit(&self->cur_work, memory_order_relaxed) == work;
}

/* Sleep until the state word differs from v (v has no WAITERS yet, or has). */
static void work__wait_change(struct wq_work *work, unsigned int v)
{
	/*
	 * relaxed: WAITERS only asks whoever changes the word next to wake
	 * us; the futex re-checks the value atomically, and the caller reads
	 * the state with acquire after waking.
	 */
	if (!(v & WORK_WAITERS) &&
	    !atomic_compare_exchange_strong_explicit(&work->state, &v, v | WORK_WAITERS,
						     memory_order_relaxed, memory_order_relaxed))
		return;		/* it changed already */
	wq_futex_wait(&work->state, v | WORK_WAITERS);
}

int wq_work__flush(struct wq_work *work)
{
	unsigned int want, v;
	int waited = 0;

	if (work__is_self(work))
		return -EDEADLK;
	/* acquire: pairs with the release in wq__queue_on_worker() */
	want = atomic_load_explicit(&work->queued_seq, memory_order_acquire);
	for (;;) {
		/* acquire: pairs with work__finish(), whose effects we now see */
		v = atomic_load_explicit(&work->state, memory_order_acquire);
		if (work_seq__reached(work_state__seq(v), want))
			return waited;
		work__wait_change(work, v);
		waited = 1;
	}
}

/*
 * Take PENDING for a cancel: off the queue, or back from DEFER, or set on
 * an idle item.  Sets CANCELING; returns 1 (and the wq and colour to
 * uncount) if a pending instance was taken, 0 if there was none.
 */
static int work__grab(struct wq_work *work, struct wq **wqp, unsigned int *colorp)
{
	for (;;) {
		/* acquire: the owner's fields, once we own the item */
		unsigned int v = atomic_load_explicit(&work->state, memory_order_acquire);

		if (v & WORK_CANCELING) {		/* another canceller */
			work__wait_change(work, v);
			continue;
		}
		if (!(v & WORK_PENDING)) {
			if (atomic_compare_exchange_weak_explicit(&work->state, &v,
					v | WORK_PENDING | WORK_CANCELING,
					memory_order_acquire, memory_order_relaxed))
				return 0;
			continue;
		}
		if (v & WORK_DEFER) {
			/* acquire: pairs with work__defer()'s release */
			if (atomic_compare_exchange_weak_explicit(&work->state, &v,
					(v & ~WORK_DEFER) | WORK_CANCELING,
					memory_order_acquire, memory_order_relaxed))
				goto taken;
			continue;
		}
		if (!(v & WORK_RUNNING) && wq_pool__unqueue(work)) {
			/* relaxed: we own it; the queue lock ordered the owner's writes */
			atomic_fetch_or_explicit(&work->state, WORK_CANCELING, memory_order_relaxed);
			goto taken;
		}
		/* between its owner and a queue for a moment */
		sched_yield();
	}
taken:
	*wqp = work->wq;
	*colorp = work->color;
	return 1;
}

int wq_work__cancel_sync(struct wq_work *work)
{
	struct wq *wq = NULL;
	unsigned int color = 0, v, nv;
	int was_pending;

	if (work__is_self(work))
		return -EDEADLK;
	was_pending = work__grab(work, &wq, &color);
	/* acquire: the run's effects are visible once RUNNING is seen clear */
	v = atomic_load_explicit(&work->state, memory_order_acquire);
	while (v & WORK_RUNNING) {
		work__wait_change(work, v);
		v = atomic_load_explicit(&work->state, memory_order_acquire);
	}
	do {
		/* every queued instance is now finished or dropped */
		/* relaxed: we hold PENDING, so nobody else writes queued_seq */
		nv = work_state__with_seq(v & ~(WORK_PENDING | WORK_CANCELING | WORK_WAITERS),
					  atomic_load_explicit(&work->queued_seq,
							       memory_order_relaxed));
		/* release: the next owner (acquire in queueing) comes after us */
	} while (!atomic_compare_exchange_weak_explicit(&work->state, &v, nv,
							memory_order_release,
							memory_order_relaxed));
	if (v & WORK_WAITERS)
		wq_futex_wake(&work->state, INT_MAX);
	if (was_pending)
		wq__put_color(wq, color, 1);
	return was_pending;
}

/* ------------------------------------------------------- workqueues */

struct wq *wq__new(struct wq_pool *pool, const char *name, unsigned int flags)
{
	struct wq *wq;

	if (!pool || (flags & ~WQ_ORDERED)) {
		errno = EINVAL;
		return NULL;
	}
	wq = calloc(1, sizeof(*wq));
	if (!wq)
		return NULL;
	wq->pool = pool;
	wq->flags = flags;
	snprintf(wq->name, sizeof(wq->name), "%s", name ? name : "wq");
	pthread_mutex_init(&wq->flush_lock, NULL);
	if (flags & WQ_ORDERED) {
		/* relaxed: only spreads ordered queues over the workers */
		unsigned int i = atomic_fetch_add_explicit(&pool->next_ordered, 1,
							   memory_order_relaxed);

		wq->ordered = pool->workers[i % (unsigned int)pool->nr_workers];
	}
	pthread_mutex_lock(&pool->lock);
	wq->next = pool->wqs;
	pool->wqs = wq;
	pthread_mutex_unlock(&pool->lock);
	return wq;
}

struct wq_pool *wq__pool(const struct wq *wq)
{
	return wq->pool;
}

int wq__flush(struct wq *wq)
{
	unsigned int c;

	if (wq__in_own_work(wq))
		return -EDEADLK;
	pthread_mutex_lock(&wq->flush_lock);
	c = atomic_load(&wq->color);		/* only flushers (F) write it */
	atomic_store(&wq->color, c ^ 1);	/* seq_cst, see wq__get_color() */
	wq__wait_color(wq, c);
	pthread_mutex_unlock(&wq->flush_lock);
	return 0;
}

/* Flush both colours until both are empty.  F held. */
static void wq__drain_locked(struct wq *wq)
{
	/* release: pairs with the acquire in wq__queue_on_worker() */
	atomic_store_explicit(&wq->draining, 1, memory_order_release);
	for (;;) {
		unsigned int c = atomic_load(&wq->color);	/* F: ours */

		atomic_store(&wq->color, c ^ 1);	/* seq_cst, see wq__get_color() */
		wq__wait_color(wq, c);
		/* seq_cst: as in wq__wait_color() */
		if (!(atomic_load(&wq->inflight[0]) & INFLIGHT_COUNT) &&
		    !(atomic_load(&wq->inflight[1]) & INFLIGHT_COUNT))
			break;
	}
}

int wq__drain(struct wq *wq)
{
	if (wq__in_own_work(wq))
		return -EDEADLK;
	pthread_mutex_lock(&wq->flush_lock);
	wq__drain_locked(wq);
	/* release: pairs with the acquire in wq__queue_on_worker() */
	atomic_store_explicit(&wq->draining, 0, memory_order_release);
	pthread_mutex_unlock(&wq->flush_lock);
	return 0;
}

void wq__delete(struct wq *wq)
{
	struct wq **pp;

	if (!wq)
		return;
	pthread_mutex_lock(&wq->flush_lock);
	wq__drain_locked(wq);
	pthread_mutex_unlock(&wq->flush_lock);

	pthread_mutex_lock(&wq->pool->lock);
	for (pp = &wq->pool->wqs; *pp; pp = &(*pp)->next) {
		if (*pp == wq) {
			*pp = wq->next;
			break;
		}
	}
	pthread_mutex_unlock(&wq->pool->lock);
	pthread_mutex_destroy(&wq->flush_lock);
	free(wq);
}
