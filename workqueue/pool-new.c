// SPDX-License-Identifier: GPL-2.0
/*
 * pool-new.c — a worker pool's life: wq_pool__new() to wq_pool__delete(),
 * the questions asked of a pool, and wq_pool__dump().
 *
 * wq_pool__new() takes the attributes, the machine's topology (hwloc, or
 * the caller's) and the layout.c plans from them, allocates the workers,
 * then creates their threads all at once (signals blocked, so they inherit
 * a full mask) at wq_worker__main() in pool.c; each pins itself to the CPU
 * set of its slot and names itself, and the creator waits once for all of
 * them.  wq_pool__delete() stops and joins them and frees in the reverse
 * order.
 *
 * Worker and scratch memory is allocated on the worker's NUMA node (hwloc
 * membind) when the machine has more than one node; plain memory otherwise.
 * Limits: workers are never added or removed after start; a CPU going
 * offline leaves its worker unpinned by the kernel, which is harmless.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wq-internal.h"

static size_t round_up(size_t n)
{
	return (n + WQ_CACHELINE - 1) & ~(size_t)(WQ_CACHELINE - 1);
}

static void *pool__alloc_on_node(struct wq_pool *pool, size_t size, int node, bool *membind)
{
	hwloc_bitmap_t nodeset;
	void *p = NULL;

	*membind = false;
	if (pool->bind && node >= 0 && hwloc_get_nbobjs_by_type(pool->topo, HWLOC_OBJ_NUMANODE) > 1) {
		nodeset = hwloc_bitmap_alloc();
		if (nodeset) {
			hwloc_bitmap_only(nodeset, node);
			p = hwloc_alloc_membind(pool->topo, size, nodeset, HWLOC_MEMBIND_BIND,
						HWLOC_MEMBIND_BYNODESET);
			hwloc_bitmap_free(nodeset);
		}
		*membind = p != NULL;
	}
	if (!p)
		p = aligned_alloc(WQ_CACHELINE, size);
	return p;
}

static struct wq_worker *pool__new_worker(struct wq_pool *pool, int idx)
{
	const struct wq_slot *slot = &pool->layout.slots[idx];
	size_t head = round_up(sizeof(struct wq_worker));
	size_t size = head + round_up(pool->scratch_size);
	struct wq_worker *w;
	bool membind;

	w = pool__alloc_on_node(pool, size, slot->node, &membind);
	if (!w)
		return NULL;
	/* first touch, on the creator's CPU; membind placed it already */
	memset(w, 0, size);
	w->pool = pool;
	w->index = idx;
	w->slot = slot;
	w->alloc_size = size;
	w->membind = membind;
	w->scratch = pool->scratch_size ? (char *)w + head : NULL;
	wq_worker__init_queue(w, &pool->lock_attr);
	return w;
}

static void pool__free_worker(struct wq_pool *pool, struct wq_worker *w)
{
	if (!w)
		return;
	pthread_mutex_destroy(&w->lock);
	if (w->membind)
		hwloc_free(pool->topo, w, w->alloc_size);
	else
		free(w);
}

static void pool__free_workers(struct wq_pool *pool)
{
	int i;

	for (i = 0; pool->workers && i < pool->nr_workers; i++)
		pool__free_worker(pool, pool->workers[i]);
	free(pool->workers);
	pool->workers = NULL;
}

static int pool__alloc_workers(struct wq_pool *pool)
{
	int i;

	pool->nr_workers = pool->layout.nr_workers;
	pool->workers = calloc(pool->nr_workers, sizeof(*pool->workers));
	pool->nr_idle_words = (pool->nr_workers + LONG_BITS - 1) / LONG_BITS;
	pool->idle = calloc(pool->nr_idle_words, sizeof(*pool->idle));
	if (!pool->workers || !pool->idle)
		return -ENOMEM;
	for (i = 0; i < pool->nr_workers; i++) {
		pool->workers[i] = pool__new_worker(pool, i);
		if (!pool->workers[i])
			return -ENOMEM;
	}
	return 0;
}

/* Make the first `nr` workers leave their loop, and join them. */
static void pool__stop(struct wq_pool *pool, int nr)
{
	int i;

	/* seq_cst: a worker about to sleep re-checks stopping after announcing */
	atomic_store(&pool->stopping, 1);
	for (i = 0; i < nr; i++) {
		/* seq_cst, unconditional: wakes it whether or not it sleeps yet */
		atomic_store(&pool->workers[i]->sleep, 0);
		wq_futex_wake(&pool->workers[i]->sleep, 1);
	}
	for (i = 0; i < nr; i++)
		pthread_join(pool->workers[i]->thread, NULL);
}

static int pool__start(struct wq_pool *pool, char *err, size_t errsz)
{
	sigset_t all, old;
	int i, ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < pool->nr_workers; i++) {
		ret = -pthread_create(&pool->workers[i]->thread, NULL, wq_worker__main,
				      pool->workers[i]);
		if (ret) {
			snprintf(err, errsz, "cannot start worker %s: %s",
				 pool->layout.slots[i].name, strerror(-ret));
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	pthread_mutex_lock(&pool->lock);
	while (pool->nr_started < i)
		pthread_cond_wait(&pool->started_cond, &pool->lock);
	pthread_mutex_unlock(&pool->lock);

	for (int j = 0; !ret && j < i; j++) {
		char cpus[64];

		ret = pool->workers[j]->start_err;
		if (ret) {
			hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), pool->layout.slots[j].cpuset);
			snprintf(err, errsz, "cannot pin worker %s to CPUs %s: %s",
				 pool->layout.slots[j].name, cpus, strerror(-ret));
		}
	}
	if (ret)
		pool__stop(pool, i);
	return ret;
}

static int pool__init_topology(struct wq_pool *pool, const struct wq_pool_attr *attr,
			       char *err, size_t errsz)
{
	if (attr->topology) {
		pool->topo = attr->topology;
	} else {
		if (hwloc_topology_init(&pool->topo) < 0) {
			snprintf(err, errsz, "cannot initialise the hwloc topology: %s",
				 strerror(errno));
			return errno ? -errno : -ENOMEM;
		}
		pool->own_topo = true;
		hwloc_topology_set_all_types_filter(pool->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
		hwloc_topology_set_type_filter(pool->topo, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_set_type_filter(pool->topo, HWLOC_OBJ_PU, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_set_type_filter(pool->topo, HWLOC_OBJ_PACKAGE, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_set_type_filter(pool->topo, HWLOC_OBJ_NUMANODE, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_set_cache_types_filter(pool->topo, HWLOC_TYPE_FILTER_KEEP_ALL);
		if (hwloc_topology_load(pool->topo) < 0) {
			snprintf(err, errsz, "cannot load the hwloc topology: %s", strerror(errno));
			return errno ? -errno : -EINVAL;
		}
	}
	pool->bind = hwloc_topology_is_thissystem(pool->topo);
	return 0;
}

/* The CPUs to plan on: attr->cpus, or what this process may use. */
static int pool__cpuset(struct wq_pool *pool, const struct wq_pool_attr *attr,
			hwloc_bitmap_t set, char *err, size_t errsz)
{
	hwloc_bitmap_t proc = hwloc_bitmap_alloc();
	int i;

	if (!proc)
		return -ENOMEM;
	hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(pool->topo));
	if (pool->bind && hwloc_get_cpubind(pool->topo, proc, HWLOC_CPUBIND_PROCESS) == 0)
		hwloc_bitmap_and(set, set, proc);
	if (attr->cpus) {
		hwloc_bitmap_zero(proc);
		for (i = 0; i < attr->nr_cpus; i++) {
			if (attr->cpus[i] < 0 || !hwloc_bitmap_isset(set, attr->cpus[i])) {
				snprintf(err, errsz, "CPU %d is not available to this process",
					 attr->cpus[i]);
				hwloc_bitmap_free(proc);
				return -EINVAL;
			}
			hwloc_bitmap_set(proc, attr->cpus[i]);
		}
		hwloc_bitmap_copy(set, proc);
	}
	hwloc_bitmap_free(proc);
	if (hwloc_bitmap_iszero(set)) {
		snprintf(err, errsz, "no CPU to run workers on");
		return -EINVAL;
	}
	return 0;
}

static int pool__init_layout(struct wq_pool *pool, const struct wq_pool_attr *attr,
			     char *err, size_t errsz)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int ret;

	if (!set)
		return -ENOMEM;
	ret = pool__cpuset(pool, attr, set, err, errsz);
	if (!ret) {
		ret = wq_layout__init(&pool->layout, pool->topo, set, attr->scope,
				      attr->per_domain, pool->name);
		if (ret)
			snprintf(err, errsz, "cannot plan workers: %s", strerror(-ret));
	}
	hwloc_bitmap_free(set);
	return ret;
}

static int pool__check_attr(const struct wq_pool_attr *attr, char *err, size_t errsz)
{
	if ((unsigned int)attr->scope > WQ_SCOPE_SYSTEM || attr->per_domain < 0 ||
	    attr->nr_cpus < 0 || (attr->cpus && !attr->nr_cpus) ||
	    attr->spin_ns < WQ_SPIN_NONE || attr->inline_max < 0) {
		snprintf(err, errsz, "invalid workqueue pool attribute");
		return -EINVAL;
	}
	return 0;
}

static void pool__free(struct wq_pool *pool)
{
	pool__free_workers(pool);
	free(pool->idle);
	wq_layout__exit(&pool->layout);
	if (pool->own_topo)
		hwloc_topology_destroy(pool->topo);
	pthread_cond_destroy(&pool->started_cond);
	pthread_mutex_destroy(&pool->lock);
	pthread_mutexattr_destroy(&pool->lock_attr);
	free(pool);
}

struct wq_pool *wq_pool__new(const struct wq_pool_attr *attr, char *err, size_t errsz)
{
	static const struct wq_pool_attr defaults;
	struct wq_pool *pool;
	char dummy[1];
	int ret;

	if (!err) {
		err = dummy;
		errsz = sizeof(dummy);
	}
	if (!attr)
		attr = &defaults;
	ret = pool__check_attr(attr, err, errsz);
	if (ret)
		goto out_errno;
	pool = calloc(1, sizeof(*pool));
	if (!pool) {
		ret = -ENOMEM;
		snprintf(err, errsz, "out of memory");
		goto out_errno;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->started_cond, NULL);
	/*
	 * Queue locks are held for a few list operations: spin a little before
	 * sleeping in the kernel, which a producer and its worker otherwise do
	 * on every collision.
	 */
	pthread_mutexattr_init(&pool->lock_attr);
	pthread_mutexattr_settype(&pool->lock_attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	snprintf(pool->name, sizeof(pool->name), "%s", attr->name ? attr->name : "wq");
	pool->spin_ns = attr->spin_ns == WQ_SPIN_NONE ? 0 :
			attr->spin_ns ? attr->spin_ns : WQ_SPIN_NS_DEFAULT;
	pool->inline_max = attr->inline_max;
	pool->scratch_size = attr->scratch_size;

	ret = pool__init_topology(pool, attr, err, errsz);
	if (ret)
		goto out_free_pool;
	ret = pool__init_layout(pool, attr, err, errsz);
	if (ret)
		goto out_free_pool;
	ret = pool__alloc_workers(pool);
	if (ret) {
		snprintf(err, errsz, "out of memory for %d workers", pool->layout.nr_workers);
		goto out_free_pool;
	}
	ret = pool__start(pool, err, errsz);
	if (ret)
		goto out_free_pool;
	return pool;

out_free_pool:
	pool__free(pool);
out_errno:
	errno = -ret;
	return NULL;
}

void wq_pool__delete(struct wq_pool *pool)
{
	if (!pool)
		return;
	for (;;) {
		struct wq *wq;

		pthread_mutex_lock(&pool->lock);
		wq = pool->wqs;
		pthread_mutex_unlock(&pool->lock);
		if (!wq)
			break;
		wq__delete(wq);
	}
	pool__stop(pool, pool->nr_workers);
	pool__free(pool);
}

int wq_pool__nr_workers(const struct wq_pool *pool)
{
	return pool->nr_workers;
}

int wq_pool__nr_slots(const struct wq_pool *pool)
{
	return pool->nr_workers + 1;
}

int wq_pool__cpu_worker(const struct wq_pool *pool, int cpu)
{
	if (cpu < 0 || cpu >= pool->layout.nr_cpu_ids || pool->layout.cpu_worker[cpu] < 0)
		return -ENOENT;
	return pool->layout.cpu_worker[cpu];
}

int wq_pool__worker_cpu(const struct wq_pool *pool, int idx)
{
	if (idx < 0 || idx >= pool->nr_workers)
		return -EINVAL;
	return pool->layout.slots[idx].home_cpu;
}

int wq_pool__worker_node(const struct wq_pool *pool, int idx)
{
	if (idx < 0 || idx >= pool->nr_workers)
		return -EINVAL;
	return pool->layout.slots[idx].node;
}

/* ----------------------------------------------------------------- dump */

static const char *const worker_state_names[] = {
	[WQ_WORKER_STARTING]	= "starting",
	[WQ_WORKER_RUNNING]	= "running",
	[WQ_WORKER_SEARCHING]	= "idle",
	[WQ_WORKER_SLEEPING]	= "sleeping",
	[WQ_WORKER_EXITED]	= "exited",
};

static const char *const scope_names[] = {
	[WQ_SCOPE_CPU] = "cpu", [WQ_SCOPE_SMT] = "smt", [WQ_SCOPE_CACHE] = "cache",
	[WQ_SCOPE_NUMA] = "numa", [WQ_SCOPE_SYSTEM] = "system",
};

static void worker__dump_current(struct wq_worker *w, FILE *fp, int64_t now)
{
	/* relaxed: a snapshot for a human; fields may be a moment apart */
	struct wq_work *work = atomic_load_explicit(&w->cur_work, memory_order_relaxed);
	wq_work_fn fn = atomic_load_explicit(&w->cur_fn, memory_order_relaxed);
	struct wq *wq = atomic_load_explicit(&w->cur_wq_dump, memory_order_relaxed);
	int64_t since = atomic_load_explicit(&w->cur_since_ns, memory_order_relaxed);
	Dl_info info;

	if (!work) {
		fprintf(fp, "\n");
		return;
	}
	fprintf(fp, ", work %p fn %p", (void *)work, *(void **)&fn);
	if (dladdr(*(void **)&fn, &info) && info.dli_sname)
		fprintf(fp, " (%s)", info.dli_sname);
	fprintf(fp, " wq %s for %.3f ms\n", wq ? wq->name : "?", (now - since) / 1e6);
}

void wq_pool__dump(struct wq_pool *pool, FILE *fp)
{
	int64_t now = wq__coarse_ns();
	struct wq *wq;
	int i;

	fprintf(fp, "workqueue pool %s: %d workers, scope %s, spin %ld ns\n", pool->name,
		pool->nr_workers, scope_names[pool->layout.scope], pool->spin_ns);
	pthread_mutex_lock(&pool->lock);
	for (wq = pool->wqs; wq; wq = wq->next) {
		/* relaxed: a snapshot */
		fprintf(fp, "  workqueue %s%s: %d + %d in flight%s\n", wq->name,
			wq->ordered ? " (ordered)" : "",
			atomic_load_explicit(&wq->inflight[0], memory_order_relaxed) & INFLIGHT_COUNT,
			atomic_load_explicit(&wq->inflight[1], memory_order_relaxed) & INFLIGHT_COUNT,
			atomic_load_explicit(&wq->draining, memory_order_relaxed) ? ", draining" : "");
	}
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->nr_workers; i++) {
		struct wq_worker *w = pool->workers[i];
		int state = atomic_load_explicit(&w->state, memory_order_relaxed);
		char cpus[64];

		hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), w->slot->cpuset);
		fprintf(fp, "  worker %d %s cpus %s node %d: %s, %d queued (%d stealable), %lu done",
			i, w->slot->name, cpus, w->slot->node, worker_state_names[state],
			atomic_load_explicit(&w->nr_queued, memory_order_relaxed),
			atomic_load_explicit(&w->nr_free, memory_order_relaxed),
			atomic_load_explicit(&w->nr_done, memory_order_relaxed));
		worker__dump_current(w, fp, now);
	}
	fflush(fp);
}
