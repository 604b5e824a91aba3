/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq.h — a kernel-style workqueue and thread pool with CPU and NUMA affinity.
 *
 * Three objects, named as in the Linux kernel's workqueue:
 *
 *  - a worker pool (struct wq_pool) owns persistent worker threads, created
 *    once by wq_pool__new() and pinned with hwloc to one affinity domain
 *    each: a CPU, a core (smt), a last-level cache, a NUMA node, or the whole
 *    CPU set (system, i.e. unbound).  Workers are named "<prefix>/<where>"
 *    in at most 15 characters, e.g. "prec-wq/3" for the worker of CPU 3.
 *  - a workqueue (struct wq) is a domain for flushing and draining on a
 *    pool; several workqueues may share one pool.
 *  - a work item (struct wq_work) is embedded by the caller in its own data
 *    and carries the function to run.
 *
 * Semantics follow the kernel's (Documentation/core-api/workqueue.rst):
 *  - queueing a work item that is already pending does nothing and returns
 *    0: it runs once;
 *  - a work item never runs on two workers at the same time; queued again
 *    while it runs, it runs once more afterwards;
 *  - if queueing returns 1, every store the caller made before the call is
 *    visible to the work function;
 *  - wq__flush() waits for every work item queued before the call, and for
 *    every work item those queue on the same workqueue while they run, but
 *    not for work queued by other threads after the call;
 *  - wq_work__cancel_sync() removes a pending item and waits for a running
 *    one, even one that queues itself again;
 *  - wq__delete() drains: everything pending runs before it returns.
 *
 * Two parallel loops sit on top: wq__parallel_for() hands out chunks of an
 * index range dynamically to the workers and the calling thread, and
 * wq__parallel_for_cpus() runs one call on each CPU of a list, on that CPU.
 * Both return the first error and the index that raised it.
 *
 * Lifetime rules: a work item's memory must stay valid while it is pending
 * or running, so a work function must not free its own work item (flush or
 * cancel it from elsewhere, then free).  Destroy every workqueue of a pool
 * before deleting the pool.  Functions are thread-safe unless noted.
 *
 * Errors are negative errno values; nothing here prints, except the dump.
 * The library knows nothing about its users; it needs hwloc and pthreads.
 */
#ifndef WQ_H
#define WQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <hwloc.h>

#define WQ_VERSION_MAJOR	1
#define WQ_VERSION_MINOR	0

/* Idle workers spin this long for new work before sleeping, by default. */
#define WQ_SPIN_NS_DEFAULT	5000
#define WQ_SPIN_NONE		(-1L)

struct wq_pool;
struct wq;
struct wq_work;

typedef void (*wq_work_fn)(struct wq_work *work);

/*
 * A work item.  Initialise it with wq_work__init() (or WQ_WORK_INIT) before
 * its first use and never while it is pending or running; everything but
 * func is private to the library.
 */
struct wq_work_link {
	struct wq_work_link	*next, *prev;
};

struct wq_work {
	wq_work_fn		func;
	/*
	 * Private.  Legend: A: atomic, see wq.c; O: written only by the
	 * thread that set PENDING in state (the work's owner until it is
	 * queued); L: lock of the worker queue holding the work.
	 */
	_Atomic unsigned int	state;		/* A: flags + last finished seq */
	_Atomic unsigned int	queued_seq;	/* A, written under O */
	struct wq_work_link	link;		/* L */
	void *_Atomic		queue;		/* A, written under L */
	void			*target;	/* O: worker asked for, or NULL */
	struct wq		*wq;		/* O */
	unsigned int		ticket;		/* L: FIFO order in its queue */
	unsigned char		color;		/* O: flush colour */
	unsigned char		bound;		/* O: never stolen */
};

#define WQ_WORK_INIT(fn)	{ .func = (fn) }

void wq_work__init(struct wq_work *work, wq_work_fn fn);

/* ---------------------------------------------------------------- pools */

/* Where the workers of a pool are pinned: one domain per worker. */
enum wq_scope {
	WQ_SCOPE_CPU = 0,	/* one worker per CPU (hwloc PU), pinned to it */
	WQ_SCOPE_SMT,		/* one per core, on the core's hardware threads */
	WQ_SCOPE_CACHE,		/* one per last-level cache */
	WQ_SCOPE_NUMA,		/* one per NUMA node, on the node's CPUs */
	WQ_SCOPE_SYSTEM,	/* unbound within the CPU set: one per CPU */
};

/*
 * Pool attributes; a zeroed struct asks for the defaults: a worker on every
 * CPU this process may run on, named "wq/<cpu>", spinning
 * WQ_SPIN_NS_DEFAULT before sleeping, on a topology loaded from this
 * machine.
 */
struct wq_pool_attr {
	enum wq_scope		scope;
	const int		*cpus;		/* OS CPU numbers; NULL: all allowed */
	int			nr_cpus;
	int			per_domain;	/* workers per domain; 0: 1 (system: 1 per CPU) */
	const char		*name;		/* thread name prefix; NULL: "wq" */
	hwloc_topology_t	topology;	/* borrowed, loaded; NULL: this machine */
	long			spin_ns;	/* 0: default; WQ_SPIN_NONE: never spin */
	size_t			scratch_size;	/* per-worker scratch, node-local */
	long			inline_max;	/* parallel_for ranges this small run inline
						   (0: only ranges of one chunk) */
};

/*
 * Create the pool and start all its workers; returns when every worker runs
 * pinned, or NULL with errno set (EINVAL: bad attribute or CPU, ENOMEM,
 * EAGAIN: thread creation failed, or hwloc's errno when pinning failed) and
 * a one-line reason in err (when err is not NULL).  On a synthetic topology
 * the binding calls are no-ops.  Any thread; not from a signal handler.
 */
struct wq_pool *wq_pool__new(const struct wq_pool_attr *attr, char *err, size_t errsz);

/*
 * Stop and join the workers and free the pool.  Workqueues still on the
 * pool are deleted (drained) first.  Accepts NULL.  Not from a worker of
 * this pool.
 */
void wq_pool__delete(struct wq_pool *pool);

int wq_pool__nr_workers(const struct wq_pool *pool);
/* Worker slots plus one for a thread calling wq__parallel_for(). */
int wq_pool__nr_slots(const struct wq_pool *pool);
/* Index of the worker wq__queue_work_on(cpu) uses, or -ENOENT. */
int wq_pool__cpu_worker(const struct wq_pool *pool, int cpu);
/* Lowest CPU of worker idx's set, its NUMA node (OS index, -1: several). */
int wq_pool__worker_cpu(const struct wq_pool *pool, int idx);
int wq_pool__worker_node(const struct wq_pool *pool, int idx);

/*
 * Print every workqueue and worker of the pool with its state, queue length
 * and current work item (function, workqueue, how long it has run), to
 * debug a hang.  Takes no lock a worker holds while running work.  Any
 * thread, not from a signal handler.
 */
void wq_pool__dump(struct wq_pool *pool, FILE *fp);

/* Called from a work function: the worker's index in its pool, or -ESRCH. */
int wq_worker__index(void);
/* Called from a work function: its worker's scratch area, or NULL. */
void *wq_worker__scratch(void);

/* ----------------------------------------------------------- workqueues */

#define WQ_ORDERED	0x1u	/* one item at a time, in queueing order */

/*
 * Create a workqueue on pool (name: 31 characters are kept).  WQ_ORDERED
 * sends all its work to one worker.  Returns NULL with errno set.
 */
struct wq *wq__new(struct wq_pool *pool, const char *name, unsigned int flags);

/*
 * Drain (see wq__drain()), then free.  Accepts NULL.  Not from a work item
 * of this workqueue.
 */
void wq__delete(struct wq *wq);

/*
 * Queue work on any worker: 1 if queued, 0 if it was already pending,
 * -ESHUTDOWN if wq is draining and the caller is not one of its work items.
 * Called from a work item of the same pool, the work goes to the caller's
 * worker, where idle workers can steal it; otherwise to an idle worker near
 * the calling CPU.  Any thread.
 */
int wq__queue_work(struct wq *wq, struct wq_work *work);

/*
 * Queue work on the worker that serves cpu; it runs there and is never
 * stolen.  With WQ_SCOPE_CPU it runs on that very CPU, with wider scopes on
 * the worker whose domain holds cpu.  Returns as wq__queue_work(), or
 * -EINVAL when no worker serves cpu or wq is ordered.  Any thread.
 */
int wq__queue_work_on(struct wq *wq, int cpu, struct wq_work *work);

/*
 * Wait until every work item queued on wq before the call has finished,
 * including the items they queued on wq in turn.  Returns 0, or -EDEADLK
 * from a work item of wq.  Any other thread.
 */
int wq__flush(struct wq *wq);

/*
 * Refuse new work from outside wq (work items of wq may still queue on it),
 * flush until nothing is left, then accept work again.  0 or -EDEADLK.
 */
int wq__drain(struct wq *wq);

struct wq_pool *wq__pool(const struct wq *wq);

/*
 * Wait for the last queued instance of work to finish.  Returns 1 if it had
 * to wait, 0 if work was idle, -EDEADLK when called from work itself.
 */
int wq_work__flush(struct wq_work *work);

/*
 * Take work off its queue if pending and wait for it if running; queueing
 * it meanwhile fails.  On return it is neither pending nor running (unless
 * queued again after the return).  Returns 1 if it was pending, 0 if not,
 * -EDEADLK from work itself.  The workqueue must stay alive meanwhile.
 */
int wq_work__cancel_sync(struct wq_work *work);

bool wq_work__is_pending(const struct wq_work *work);

/* --------------------------------------------------------- parallel loops */

/*
 * A loop body: idx is the index, slot in [0, wq_pool__nr_slots()) tells who
 * runs it (worker index, or nr_workers for the calling thread), so callers
 * can keep per-slot buffers: within one loop no two calls with the same slot
 * run at once.  Returns 0, or a negative errno to stop the loop.
 */
typedef int (*wq_for_fn)(void *arg, long idx, int slot);

/*
 * Call fn for every idx in [from, to), in chunks of chunk indexes (0: pick
 * one, about four chunks per slot) handed out in increasing order to the
 * workers and the calling thread, which takes part.  A range of one chunk,
 * or of at most the pool's inline_max indexes, runs inline in the caller.
 * Returns 0, or the error of the lowest failing index, stored in *err_idx
 * (when not NULL): every index below it ran and returned 0; indexes above it
 * may not have run.  -EINVAL for chunk < 0, -EOVERFLOW for a range of more
 * than LONG_MAX / 2 indexes.  Any thread, also a work item.
 */
int wq__parallel_for(struct wq *wq, long from, long to, long chunk,
		     wq_for_fn fn, void *arg, long *err_idx);

/*
 * Call fn(arg, i, slot) once for every i in [0, nr_cpus), on the worker that
 * serves cpus[i] (on that CPU with WQ_SCOPE_CPU), all in parallel.  Every
 * call runs; returns 0 or the error of the lowest failing i, stored in
 * *err_idx.  -EINVAL (with *err_idx) for a CPU no worker serves, -EDEADLK
 * from a worker of the same pool.  Any other thread.
 */
int wq__parallel_for_cpus(struct wq *wq, const int *cpus, int nr_cpus,
			  wq_for_fn fn, void *arg, long *err_idx);

#endif /* WQ_H */
