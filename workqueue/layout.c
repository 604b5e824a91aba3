// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c — the worker plan of a pool, computed from an hwloc topology.
 *
 * Owns nothing but the plan it fills: which PUs each worker is pinned to,
 * its NUMA node, its thread name, which worker serves each CPU, and which
 * workers each node holds.  It starts no thread and binds nothing, so the
 * tests check it on synthetic topologies (a 272-PU Xeon Phi, a 2-socket
 * server) that this machine does not have; pool-new.c then starts the threads
 * the plan describes.  Called by one thread; the plan is read-only after.
 *
 * Scopes map onto hwloc objects: cpu -> PU, smt -> Core, cache -> the
 * deepest cache level present (the LLC; NUMA nodes when the topology has no
 * caches), numa -> NUMANode, system -> the machine.  Domains are visited in
 * hwloc's logical order, so the workers of a node are contiguous.  A NUMA
 * node whose CPUs are all outside the CPU set gets no worker.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "wq-internal.h"

static hwloc_obj_type_t layout__domain_type(hwloc_topology_t topo, enum wq_scope scope)
{
	static const hwloc_obj_type_t caches[] = {
		HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE,
	};
	size_t i;

	switch (scope) {
	case WQ_SCOPE_CPU:
		return HWLOC_OBJ_PU;
	case WQ_SCOPE_SMT:
		if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0)
			return HWLOC_OBJ_CORE;
		return HWLOC_OBJ_PU;
	case WQ_SCOPE_CACHE:
		for (i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
			if (hwloc_get_nbobjs_by_type(topo, caches[i]) > 0)
				return caches[i];
		}
		return HWLOC_OBJ_NUMANODE;
	case WQ_SCOPE_NUMA:
		return HWLOC_OBJ_NUMANODE;
	case WQ_SCOPE_SYSTEM:
	default:
		return HWLOC_OBJ_MACHINE;
	}
}

static int layout__domain_workers(const struct wq_layout *layout, hwloc_const_cpuset_t dset,
				  int per_domain)
{
	if (per_domain > 0)
		return per_domain;
	if (layout->scope == WQ_SCOPE_SYSTEM)
		return hwloc_bitmap_weight(dset);
	return 1;
}

/* The NUMA node whose CPUs hold all of dset, or NULL. */
static hwloc_obj_t layout__node_of(hwloc_topology_t topo, hwloc_const_cpuset_t dset)
{
	int i, nr = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	for (i = 0; i < nr; i++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);

		if (!hwloc_bitmap_iszero(node->cpuset) &&
		    hwloc_bitmap_isincluded(dset, node->cpuset))
			return node;
	}
	return NULL;
}

/* "<prefix>/<suffix>" in 15 characters, cutting the prefix, never the suffix. */
static void layout__name(char name[16], const char *prefix, const char *suffix)
{
	size_t ls = strnlen(suffix, 14), lp = strnlen(prefix, 14 - ls);

	memcpy(name, prefix, lp);
	name[lp] = '/';
	memcpy(name + lp + 1, suffix, ls);
	name[lp + 1 + ls] = '\0';
}

static void layout__slot_name(struct wq_slot *slot, hwloc_obj_t dom, int k, int nr,
			      int worker, const char *prefix)
{
	char suffix[32], sub[16] = "";

	if (nr > 1)
		snprintf(sub, sizeof(sub), ":%d", k);
	switch (dom->type) {
	case HWLOC_OBJ_PU:
		snprintf(suffix, sizeof(suffix), "%d%s", slot->home_cpu, sub);
		break;
	case HWLOC_OBJ_CORE:
		snprintf(suffix, sizeof(suffix), "c%u%s", dom->logical_index, sub);
		break;
	case HWLOC_OBJ_NUMANODE:
		snprintf(suffix, sizeof(suffix), "n%u%s", dom->os_index, sub);
		break;
	case HWLOC_OBJ_MACHINE:
		snprintf(suffix, sizeof(suffix), "u%d", worker);
		break;
	default:	/* a cache */
		snprintf(suffix, sizeof(suffix), "l%u%s", dom->logical_index, sub);
		break;
	}
	layout__name(slot->name, prefix, suffix);
}

static int layout__fill_slot(struct wq_layout *layout, hwloc_topology_t topo, hwloc_obj_t dom,
			     hwloc_const_cpuset_t dset, int k, int nr, const char *prefix)
{
	int worker = layout->nr_workers;
	struct wq_slot *slot = &layout->slots[worker];
	hwloc_obj_t node = layout__node_of(topo, dset);

	slot->cpuset = hwloc_bitmap_dup(dset);
	if (!slot->cpuset)
		return -ENOMEM;
	slot->home_cpu = hwloc_bitmap_first(dset);
	slot->node = node ? (int)node->os_index : -1;
	slot->node_idx = node ? (int)node->logical_index : -1;
	slot->domain = layout->nr_domains;
	layout__slot_name(slot, dom, k, nr, worker, prefix);
	layout->nr_workers++;
	return 0;
}

/* CPU -> worker: the PU of rank r in a domain goes to its worker r % nr. */
static void layout__map_cpus(struct wq_layout *layout, hwloc_const_cpuset_t dset,
			     int first, int nr)
{
	int cpu, rank = 0;

	hwloc_bitmap_foreach_begin(cpu, dset) {
		layout->cpu_worker[cpu] = first + rank % nr;
		rank++;
	} hwloc_bitmap_foreach_end();
}

/* Each node's workers, when they are contiguous; otherwise every worker. */
static void layout__map_nodes(struct wq_layout *layout)
{
	int n, i;

	for (n = 0; n < layout->nr_nodes; n++) {
		int first = -1, last = -1, count = 0;

		for (i = 0; i < layout->nr_workers; i++) {
			if (layout->slots[i].node_idx != n)
				continue;
			if (first < 0)
				first = i;
			last = i;
			count++;
		}
		if (count && last - first + 1 != count) {
			first = 0;
			count = layout->nr_workers;
		}
		layout->node_first[n] = first < 0 ? 0 : first;
		layout->node_count[n] = count;
	}
}

/*
 * The CPUs of domain i within set, in dset; false when it adds nothing: no
 * CPU in set, or the same CPUs as the domain before it (a memory-only NUMA
 * node beside its DDR node, as on a Xeon Phi in flat mode).
 */
static bool layout__domain_set(hwloc_topology_t topo, hwloc_obj_type_t type, int i,
			       hwloc_const_cpuset_t set, hwloc_bitmap_t dset, hwloc_bitmap_t prev)
{
	hwloc_obj_t dom = hwloc_get_obj_by_type(topo, type, i);

	hwloc_bitmap_and(dset, dom->cpuset, set);
	if (hwloc_bitmap_iszero(dset) || hwloc_bitmap_isequal(dset, prev))
		return false;
	hwloc_bitmap_copy(prev, dset);
	return true;
}

static int layout__alloc(struct wq_layout *layout, hwloc_topology_t topo,
			 hwloc_const_cpuset_t set, hwloc_obj_type_t type, int per_domain)
{
	int i, nr = 0, nr_dom = hwloc_get_nbobjs_by_type(topo, type);
	hwloc_bitmap_t dset = hwloc_bitmap_alloc(), prev = hwloc_bitmap_alloc();

	if (!dset || !prev) {
		hwloc_bitmap_free(dset);
		hwloc_bitmap_free(prev);
		return -ENOMEM;
	}
	for (i = 0; i < nr_dom; i++) {
		if (layout__domain_set(topo, type, i, set, dset, prev))
			nr += layout__domain_workers(layout, dset, per_domain);
	}
	hwloc_bitmap_free(dset);
	hwloc_bitmap_free(prev);
	if (!nr)
		return -EINVAL;

	layout->nr_cpu_ids = hwloc_bitmap_last(set) + 1;
	layout->nr_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	layout->slots = calloc(nr, sizeof(*layout->slots));
	layout->cpu_worker = malloc(layout->nr_cpu_ids * sizeof(int));
	layout->node_first = calloc(layout->nr_nodes + 1, sizeof(int));
	layout->node_count = calloc(layout->nr_nodes + 1, sizeof(int));
	if (!layout->slots || !layout->cpu_worker || !layout->node_first || !layout->node_count)
		return -ENOMEM;
	for (i = 0; i < layout->nr_cpu_ids; i++)
		layout->cpu_worker[i] = -1;
	return 0;
}

static int layout__plan(struct wq_layout *layout, hwloc_topology_t topo, hwloc_const_cpuset_t set,
			hwloc_obj_type_t type, int per_domain, const char *prefix)
{
	int i, k, err = 0, nr_dom = hwloc_get_nbobjs_by_type(topo, type);
	hwloc_bitmap_t dset = hwloc_bitmap_alloc(), prev = hwloc_bitmap_alloc();

	if (!dset || !prev)
		err = -ENOMEM;
	for (i = 0; i < nr_dom && !err; i++) {
		int first = layout->nr_workers, nr;

		if (!layout__domain_set(topo, type, i, set, dset, prev))
			continue;
		nr = layout__domain_workers(layout, dset, per_domain);
		for (k = 0; k < nr && !err; k++)
			err = layout__fill_slot(layout, topo, hwloc_get_obj_by_type(topo, type, i),
						dset, k, nr, prefix);
		layout__map_cpus(layout, dset, first, nr);
		layout->nr_domains++;
	}
	hwloc_bitmap_free(dset);
	hwloc_bitmap_free(prev);
	return err;
}

/* The CPU set to plan on: cpus within the topology, or its allowed CPUs. */
static hwloc_bitmap_t layout__cpuset(hwloc_topology_t topo, hwloc_const_cpuset_t cpus)
{
	hwloc_const_cpuset_t all = hwloc_topology_get_allowed_cpuset(topo);
	hwloc_bitmap_t set;

	if (cpus && !hwloc_bitmap_isincluded(cpus, all)) {
		errno = EINVAL;
		return NULL;
	}
	set = hwloc_bitmap_dup(cpus ? cpus : all);
	if (!set)
		errno = ENOMEM;
	else if (hwloc_bitmap_iszero(set)) {
		hwloc_bitmap_free(set);
		set = NULL;
		errno = EINVAL;
	}
	return set;
}

int wq_layout__init(struct wq_layout *layout, hwloc_topology_t topo,
		    hwloc_const_cpuset_t cpus, enum wq_scope scope,
		    int per_domain, const char *prefix)
{
	hwloc_obj_type_t type;
	hwloc_bitmap_t set;
	int err;

	memset(layout, 0, sizeof(*layout));
	if ((unsigned int)scope > WQ_SCOPE_SYSTEM || per_domain < 0)
		return -EINVAL;
	layout->scope = scope;
	set = layout__cpuset(topo, cpus);
	if (!set)
		return -errno;
	type = layout__domain_type(topo, scope);
	err = layout__alloc(layout, topo, set, type, per_domain);
	if (!err)
		err = layout__plan(layout, topo, set, type, per_domain, prefix ? prefix : "wq");
	if (!err)
		layout__map_nodes(layout);
	hwloc_bitmap_free(set);
	return err;
}

void wq_layout__exit(struct wq_layout *layout)
{
	int i;

	for (i = 0; layout->slots && i < layout->nr_workers; i++)
		hwloc_bitmap_free(layout->slots[i].cpuset);
	free(layout->slots);
	free(layout->cpu_worker);
	free(layout->node_first);
	free(layout->node_count);
	memset(layout, 0, sizeof(*layout));
}
