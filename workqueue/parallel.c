// SPDX-License-Identifier: GPL-2.0
/*
 * parallel.c — parallel loops on a workqueue.
 *
 * wq__parallel_for() splits [from, to) into chunks that everyone claims in
 * increasing order from one atomic cursor (dynamic distribution, so uneven
 * indexes balance).  The calling thread takes part: it queues at most one
 * helper work item per other worker, runs chunks itself, and finally
 * cancels the helpers with wq_work__cancel_sync(), which drops those that
 * never started and waits for those that did.  The caller therefore never
 * waits for a helper to be scheduled: a loop that one thread finishes
 * alone costs a few queue operations, and nesting it in a work item cannot
 * deadlock.  Ranges of one chunk (or of at most the pool's inline_max
 * indexes) run inline without touching the pool.
 *
 * wq__parallel_for_cpus() queues one bound item per CPU with
 * wq__queue_on_worker() and flushes each; all calls run.
 *
 * Both report the error of the lowest failing index.  Data flows in
 * through arg and out through whatever fn writes, per slot.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "wq-internal.h"

#define STACK_HELPERS	8
#define CHUNKS_PER_SLOT	4

/* One loop: shared by the caller and its helpers for the call's duration. */
struct pfor {
	_Atomic long	next;		/* A: first unclaimed offset from `from` */
	_Atomic int	stop;		/* A: set by the first failure */
	long		from;		/* I */
	long		n;		/* I: number of indexes */
	long		chunk;		/* I */
	wq_for_fn	fn;		/* I */
	void		*arg;		/* I */
	pthread_mutex_t	err_lock;
	long		err_idx;	/* err_lock */
	int		err;		/* err_lock */
};

struct pfor_helper {
	struct wq_work	work;
	struct pfor	*pf;
};

static void pfor__fail(struct pfor *pf, long idx, int err)
{
	pthread_mutex_lock(&pf->err_lock);
	if (!pf->err || idx < pf->err_idx) {
		pf->err = err;
		pf->err_idx = idx;
	}
	pthread_mutex_unlock(&pf->err_lock);
	/* relaxed: only cuts the loop short; the result goes through err_lock */
	atomic_store_explicit(&pf->stop, 1, memory_order_relaxed);
}

static void pfor__run(struct pfor *pf, int slot)
{
	/* relaxed: see pfor__fail() */
	while (!atomic_load_explicit(&pf->stop, memory_order_relaxed)) {
		/*
		 * relaxed: the cursor only hands out disjoint ranges; the
		 * results reach the caller through the helpers' completion
		 * (wq_work__cancel_sync() acquires what they released).
		 */
		long b = atomic_fetch_add_explicit(&pf->next, pf->chunk, memory_order_relaxed);
		long e, i;

		if (b >= pf->n || b < 0)	/* b < 0: the cursor wrapped past n */
			return;
		e = pf->n - b < pf->chunk ? pf->n : b + pf->chunk;
		for (i = b; i < e; i++) {
			int err = pf->fn(pf->arg, pf->from + i, slot);

			if (err) {
				pfor__fail(pf, pf->from + i, err);
				return;
			}
		}
	}
}

static void pfor__helper(struct wq_work *work)
{
	struct pfor_helper *h = (struct pfor_helper *)((char *)work -
						       offsetof(struct pfor_helper, work));

	pfor__run(h->pf, wq_worker__index());
}

/* Queue up to nr helpers, one per worker other than the caller's; returns how many. */
static int pfor__queue_helpers(struct wq *wq, struct pfor_helper *h, int nr, struct pfor *pf)
{
	struct wq_pool *pool = wq->pool;
	struct wq_worker *self = wq_worker__self();
	int i, queued = 0;

	for (i = 0; i < pool->nr_workers && queued < nr; i++) {
		struct wq_worker *w = pool->workers[i];

		if (w == self)
			continue;
		wq_work__init(&h[queued].work, pfor__helper);
		h[queued].pf = pf;
		if (wq->ordered)
			w = wq->ordered;
		if (wq__queue_on_worker(wq, &h[queued].work, w, wq->ordered != NULL) < 0)
			break;
		queued++;
	}
	return queued;
}

static long pfor__chunk(long n, long chunk, int slots)
{
	long per = (long)slots * CHUNKS_PER_SLOT;

	if (chunk > 0)
		return chunk < n ? chunk : n;
	return n / per + (n % per != 0);
}

static int pfor__result(struct pfor *pf, long *err_idx)
{
	if (pf->err && err_idx)
		*err_idx = pf->err_idx;
	pthread_mutex_destroy(&pf->err_lock);
	return pf->err;
}

int wq__parallel_for(struct wq *wq, long from, long to, long chunk,
		     wq_for_fn fn, void *arg, long *err_idx)
{
	struct pfor_helper stack[STACK_HELPERS], *h = stack;
	int caller = wq->pool->nr_workers, nr_helpers, queued, i;
	struct pfor pf = { .from = from, .fn = fn, .arg = arg };
	long nchunks;

	if (chunk < 0 || !fn)
		return -EINVAL;
	if (to <= from)
		return 0;
	if (__builtin_sub_overflow(to, from, &pf.n) || pf.n > LONG_MAX / 2)
		return -EOVERFLOW;
	pf.chunk = pfor__chunk(pf.n, chunk, caller + 1);
	nchunks = pf.n / pf.chunk + (pf.n % pf.chunk != 0);
	pthread_mutex_init(&pf.err_lock, NULL);
	if (nchunks <= 1 || pf.n <= wq->pool->inline_max) {
		pfor__run(&pf, caller);
		return pfor__result(&pf, err_idx);
	}

	nr_helpers = nchunks - 1 < caller ? (int)nchunks - 1 : caller;
	if (nr_helpers > STACK_HELPERS) {
		h = calloc(nr_helpers, sizeof(*h));
		if (!h)
			nr_helpers = 0;		/* run it all in the caller */
	}
	queued = pfor__queue_helpers(wq, h, nr_helpers, &pf);
	pfor__run(&pf, caller);
	for (i = 0; i < queued; i++)
		wq_work__cancel_sync(&h[i].work);
	if (h != stack)
		free(h);
	return pfor__result(&pf, err_idx);
}

/* ------------------------------------------------------- one per CPU */

struct pcpu {
	wq_for_fn	fn;		/* I */
	void		*arg;		/* I */
	pthread_mutex_t	err_lock;
	long		err_idx;	/* err_lock */
	int		err;		/* err_lock */
};

struct pcpu_item {
	struct wq_work	work;
	struct pcpu	*pc;		/* I */
	long		idx;		/* I */
};

static void pcpu__run(struct wq_work *work)
{
	struct pcpu_item *item = (struct pcpu_item *)((char *)work -
						      offsetof(struct pcpu_item, work));
	struct pcpu *pc = item->pc;
	int err = pc->fn(pc->arg, item->idx, wq_worker__index());

	if (!err)
		return;
	pthread_mutex_lock(&pc->err_lock);
	if (!pc->err || item->idx < pc->err_idx) {
		pc->err = err;
		pc->err_idx = item->idx;
	}
	pthread_mutex_unlock(&pc->err_lock);
}

static int pcpu__check(struct wq *wq, const int *cpus, int nr_cpus, long *err_idx)
{
	struct wq_worker *self = wq_worker__self();
	int i;

	if (self && self->pool == wq->pool)
		return -EDEADLK;
	if (wq->ordered)
		return -EINVAL;
	for (i = 0; i < nr_cpus; i++) {
		if (wq_pool__cpu_worker(wq->pool, cpus[i]) < 0) {
			if (err_idx)
				*err_idx = i;
			return -EINVAL;
		}
	}
	return 0;
}

int wq__parallel_for_cpus(struct wq *wq, const int *cpus, int nr_cpus,
			  wq_for_fn fn, void *arg, long *err_idx)
{
	struct pcpu pc = { .fn = fn, .arg = arg };
	struct pcpu_item *items;
	int i, queued, err;

	if (nr_cpus < 0 || (nr_cpus && !cpus) || !fn)
		return -EINVAL;
	err = pcpu__check(wq, cpus, nr_cpus, err_idx);
	if (err || !nr_cpus)
		return err;
	items = calloc(nr_cpus, sizeof(*items));
	if (!items)
		return -ENOMEM;
	pthread_mutex_init(&pc.err_lock, NULL);
	for (queued = 0; queued < nr_cpus; queued++) {
		struct wq_worker *w = wq->pool->workers[wq_pool__cpu_worker(wq->pool, cpus[queued])];

		wq_work__init(&items[queued].work, pcpu__run);
		items[queued].pc = &pc;
		items[queued].idx = queued;
		err = wq__queue_on_worker(wq, &items[queued].work, w, true);
		if (err < 0)
			break;
	}
	for (i = 0; i < queued; i++)
		wq_work__flush(&items[i].work);
	free(items);
	if (queued < nr_cpus) {
		if (err_idx)
			*err_idx = queued;
		pthread_mutex_destroy(&pc.err_lock);
		return err;
	}
	if (pc.err && err_idx)
		*err_idx = pc.err_idx;
	pthread_mutex_destroy(&pc.err_lock);
	return pc.err;
}
