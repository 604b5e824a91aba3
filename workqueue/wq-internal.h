/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq-internal.h — what the workqueue library's own files share: the worker
 * layout computed from a topology (also used by the tests, on synthetic
 * topologies), the pool and worker structs, and the calls between pool.c
 * (queues, sleeping and waking), pool-new.c (the pool and its threads),
 * wq.c (work items, workqueues) and parallel.c.  Not installed; users
 * include wq.h only.
 *
 * Locking legend used on every shared struct:
 *   I: set before the workers start, read-only afterwards
 *   A: atomic; the comment at the access says why its ordering is enough
 *   L: worker->lock (that worker's queue)
 *   P: pool->lock
 *   F: wq->flush_lock
 *   W: touched only by the worker thread itself
 */
#ifndef WQ_INTERNAL_H
#define WQ_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "wq.h"

#define WQ_CACHELINE	64

/*
 * The state word of a work item (wq_work.state): five flags and, above
 * them, the sequence number of the last instance that finished (or was
 * cancelled).  wq_work.queued_seq counts queued instances, so the item is
 * idle when both numbers agree.  Sequence numbers are 27 bits wide.
 *   PENDING	queued and not started; whoever sets it owns the O fields
 *   RUNNING	a worker runs it
 *   DEFER	pending while it runs: the worker queues it when done
 *   CANCELING	wq_work__cancel_sync() holds PENDING
 *   WAITERS	someone sleeps on the word (futex)
 */
#define WORK_PENDING	0x01u
#define WORK_RUNNING	0x02u
#define WORK_DEFER	0x04u
#define WORK_CANCELING	0x08u
#define WORK_WAITERS	0x10u
#define WORK_FLAGS	0x1fu
#define WORK_SEQ_SHIFT	5
#define WORK_SEQ_MASK	(~0u >> WORK_SEQ_SHIFT)

static inline unsigned int work_state__seq(unsigned int v)
{
	return v >> WORK_SEQ_SHIFT;
}

static inline unsigned int work_state__with_seq(unsigned int v, unsigned int seq)
{
	return (v & WORK_FLAGS) | ((seq & WORK_SEQ_MASK) << WORK_SEQ_SHIFT);
}

/* done has reached want, modulo 2^27 (half the space counts as "past"). */
static inline bool work_seq__reached(unsigned int done, unsigned int want)
{
	return ((done - want) & WORK_SEQ_MASK) <= (WORK_SEQ_MASK >> 1);
}

/* ------------------------------------------------------------ the layout */

/* One planned worker: where it runs and what it is called. */
struct wq_slot {
	hwloc_bitmap_t	cpuset;		/* PUs it is pinned to */
	int		home_cpu;	/* lowest OS index in cpuset */
	int		node;		/* OS index of its NUMA node, -1: several */
	int		node_idx;	/* logical index of that node, -1: several */
	int		domain;		/* index of its domain in the plan */
	char		name[16];	/* thread name, at most 15 characters */
};

/*
 * The plan of a pool, computed from a topology without starting anything:
 * workers in topology order (so the workers of a NUMA node are contiguous),
 * the worker serving each CPU, and each node's range of workers.
 */
struct wq_layout {
	enum wq_scope	scope;
	int		nr_workers;
	struct wq_slot	*slots;
	int		nr_domains;
	int		nr_cpu_ids;	/* entries in cpu_worker: highest CPU + 1 */
	int		*cpu_worker;	/* CPU OS index -> worker index, or -1 */
	int		nr_nodes;	/* NUMA nodes of the topology */
	int		*node_first;	/* per node logical index: first worker */
	int		*node_count;	/* and how many; 0 when none */
};

/*
 * Plan workers on the PUs of cpus (NULL: the topology's allowed CPUs) at
 * scope, per_domain workers per domain (0: one; system scope: one per CPU),
 * named after prefix.  Returns 0 or -EINVAL (empty set, unknown CPU, bad
 * scope) or -ENOMEM.  wq_layout__exit() frees it, also after a failure.
 */
int wq_layout__init(struct wq_layout *layout, hwloc_topology_t topo,
		    hwloc_const_cpuset_t cpus, enum wq_scope scope,
		    int per_domain, const char *prefix);
void wq_layout__exit(struct wq_layout *layout);

/* ------------------------------------------------------ pool and workers */

enum wq_worker_state {
	WQ_WORKER_STARTING = 0,
	WQ_WORKER_RUNNING,	/* running a work item */
	WQ_WORKER_SEARCHING,	/* spinning or looking for work */
	WQ_WORKER_SLEEPING,	/* blocked in futex_wait() */
	WQ_WORKER_EXITED,
};

/* A popped work item, with what was read from it under the queue lock. */
struct wq_exec {
	struct wq_work	*work;
	wq_work_fn	fn;
	struct wq	*wq;
	unsigned int	seq;		/* instance number being run */
	unsigned int	color;
};

struct wq_worker {
	struct wq_pool		*pool;		/* I */
	int			index;		/* I */
	const struct wq_slot	*slot;		/* I: cpuset, node, name */
	pthread_t		thread;		/* I */
	void			*scratch;	/* I */
	size_t			alloc_size;	/* I: how this struct was allocated */
	bool			membind;	/* I: with hwloc_alloc_membind() */
	int			start_err;	/* I: written before the start latch */

	/* written by producers and thieves: a cache line of their own */
	pthread_mutex_t		lock __attribute__((aligned(WQ_CACHELINE)));
	struct wq_work_link	bound;		/* L: only this worker pops these */
	struct wq_work_link	free;		/* L: stealable */
	unsigned int		next_ticket;	/* L */

	_Atomic int		nr_queued;	/* A: bound + free; written under L */
	_Atomic int		nr_free;	/* A: written under L */
	_Atomic int		sleep;		/* A: 1 while asleep, futex word */
	/* written by the worker for every item: away from the producers' line */
	_Atomic int		state __attribute__((aligned(WQ_CACHELINE)));
						/* A: enum wq_worker_state, for dumps */
	struct wq_work *_Atomic	cur_work;	/* A: for dumps only */
	_Atomic(wq_work_fn)	cur_fn;		/* A: for dumps only */
	struct wq *_Atomic	cur_wq_dump;	/* A: for dumps only */
	_Atomic int64_t		cur_since_ns;	/* A: for dumps only */
	_Atomic unsigned long	nr_done;	/* A: for dumps only */

	struct wq		*cur_wq;	/* W: wq of the running item */
	unsigned int		cur_color;	/* W: its flush colour */
	struct wq		*batch_wq;	/* W: finished items not yet uncounted, */
	unsigned int		batch_color;	/* W: of this wq and colour */
	int			batch_n;	/* W: how many */
} __attribute__((aligned(WQ_CACHELINE)));

struct wq_pool {
	hwloc_topology_t	topo;		/* I */
	bool			own_topo;	/* I */
	bool			bind;		/* I: topology is this system */
	struct wq_layout	layout;		/* I */
	int			nr_workers;	/* I */
	struct wq_worker	**workers;	/* I */
	long			spin_ns;	/* I: 0 = no spinning */
	long			inline_max;	/* I */
	size_t			scratch_size;	/* I */
	char			name[16];	/* I: thread name prefix */
	int			nr_idle_words;	/* I */
	_Atomic unsigned long	*idle;		/* A: hint, bit i: worker i asleep */

	_Atomic int		stopping;	/* A */
	_Atomic int		nr_spinning;	/* A: workers spinning for work */
	_Atomic unsigned int	next_ordered;	/* A: picks an ordered wq's worker */

	pthread_mutexattr_t	lock_attr;	/* I: for the workers' queue locks */
	pthread_mutex_t		lock;
	pthread_cond_t		started_cond;	/* P: signalled as workers start */
	int			nr_started;	/* P */
	struct wq		*wqs;		/* P: workqueues on this pool */
};

/* Bits in a word of a pool's bitmap of sleeping workers. */
#define LONG_BITS	((int)(sizeof(unsigned long) * 8))

/* pool.c */
struct wq_worker *wq_worker__self(void);
/* A worker thread's entry (arg: its struct wq_worker), started by pool-new.c. */
void *wq_worker__main(void *arg);
/* A new worker's queue: its lock and its two empty lists. */
void wq_worker__init_queue(struct wq_worker *w, const pthread_mutexattr_t *attr);
int64_t wq__now_ns(void);
int64_t wq__coarse_ns(void);
/* Put an owned, pending work on a queue (target NULL: pick one) and wake. */
void wq_pool__push(struct wq_pool *pool, struct wq_worker *target, struct wq_work *work);
/* Take an owned, pending work off its queue; false if it was not on one. */
bool wq_pool__unqueue(struct wq_work *work);
void wq_futex_wait(void *addr, unsigned int val);
void wq_futex_wake(void *addr, int nr);

/* wq.c: run a popped work item on the calling worker. */
void wq_exec__run(struct wq_worker *self, struct wq_exec *exec);
/* wq.c: uncount the finished items the worker holds back; before it idles. */
void wq_worker__publish(struct wq_worker *self);
/* wq.c: queue on worker w (NULL: any), bound or stealable; as wq__queue_work(). */
int wq__queue_on_worker(struct wq *wq, struct wq_work *work, struct wq_worker *w, bool bound);

/* ------------------------------------------------------------- workqueue */

/*
 * wq->inflight[c] holds the number of unfinished items of colour c, and
 * INFLIGHT_WAITERS when a flusher sleeps on it.  Both live in one word so
 * that the decrement of the last item is its worker's last access to the
 * workqueue: the flusher may free it right after.
 */
#define INFLIGHT_WAITERS	(1 << 30)
#define INFLIGHT_COUNT		(INFLIGHT_WAITERS - 1)

struct wq {
	struct wq_pool		*pool;		/* I */
	char			name[32];	/* I */
	unsigned int		flags;		/* I */
	struct wq_worker	*ordered;	/* I: the worker of an ordered wq */

	_Atomic unsigned int	color;		/* A: colour given to new work */
	_Atomic int		inflight[2];	/* A: unfinished items per colour, see wq.c */
	_Atomic int		draining;	/* A */

	pthread_mutex_t		flush_lock;	/* serialises flushers and drainers */
	struct wq		*next;		/* P */
};

#endif /* WQ_INTERNAL_H */
