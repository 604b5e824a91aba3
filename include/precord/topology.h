/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topology.h — the machine's CPUs, cores, packages and NUMA nodes, from
 * hwloc (the host, or a synthetic description for tests), as cpu maps.
 * Read-only once loaded; may be shared between threads.
 */
#ifndef PRECORD_TOPOLOGY_H
#define PRECORD_TOPOLOGY_H

#include <hwloc.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"

enum topo_level {
	TOPO_CPU = 0,	/* one group per PU (hardware thread) */
	TOPO_CORE,
	TOPO_PACKAGE,
	TOPO_NUMA,
	TOPO_DIE,	/* dies; the packages where hwloc shows no die level */
};

struct topology {
	hwloc_topology_t	hw;		/* I: loaded once */
	bool			synthetic;
	/*
	 * I: a synthetic topology with CPUs taken offline: every CPU it had;
	 * NULL: hwloc's complete cpuset (on the host, offline CPUs included)
	 */
	hwloc_bitmap_t		present;
};

/*
 * Both constructors return NULL with errno set. The host topology includes
 * the CPUs this process may not run on (perf describes the whole machine);
 * intersect with the CPUs you record on where that matters. A level the
 * topology lacks is one group per CPU (TOPO_CORE) or one group holding every
 * CPU (TOPO_PACKAGE, TOPO_DIE).
 */
struct topology *topology__new(void);				/* this machine */
struct topology *topology__new_synthetic(const char *desc);	/* "pack:2 core:8 pu:2" */
void topology__delete(struct topology *topo);			/* accepts NULL */

int topology__nr_cpus(const struct topology *topo);
/* Highest CPU number + 1 (CPU numbers need not be contiguous). */
int topology__max_cpu(const struct topology *topo);
/* Every CPU of the topology (the online ones), ascending, as a new cpu map; NULL on error. */
struct cpu_map *topology__cpus(const struct topology *topo);
/* Every CPU the machine has, online or offline, as a new cpu map; NULL on error. */
struct cpu_map *topology__present_cpus(const struct topology *topo);
/*
 * Synthetic topologies only: take cpus offline as the kernel's hotplug
 * does: they leave every group (a node may be left with none) but stay
 * present. 0, -EINVAL (the host's topology, or no CPU left) or -ENOMEM.
 */
int topology__take_offline(struct topology *topo, const struct cpu_map *cpus);
int topology__nr_groups(const struct topology *topo, enum topo_level level);
/* CPUs of group i at level (OS indexes), as a new cpu map; NULL on error. */
struct cpu_map *topology__group_cpus(const struct topology *topo, enum topo_level level, int i);
/* The group index at level that holds cpu, or -1. */
int topology__group_of(const struct topology *topo, enum topo_level level, struct cpu cpu);
/*
 * NUMA node i (i < topology__nr_groups(TOPO_NUMA)): its OS index, and its
 * total memory in kB (host: sysfs MemTotal as perf reads it; synthetic: hwloc).
 */
int topology__node_os_index(const struct topology *topo, int i);
u64 topology__node_mem_kb(const struct topology *topo, int i);
/* Free memory of NUMA node i in kB (host: sysfs MemFree; synthetic: 0). */
u64 topology__node_mem_free_kb(const struct topology *topo, int i);
/*
 * The CPUs of `among` nearest to any CPU of `from`: of the nearest NUMA node
 * by the machine's distance table, and within that sharing the deepest
 * cache, core or package with one of `from`; without a table, by the tree
 * alone. A new map, or NULL (empty inputs, no memory).
 */
struct cpu_map *topology__nearest(const struct topology *topo, const struct cpu_map *from,
				  const struct cpu_map *among);

#endif /* PRECORD_TOPOLOGY_H */
