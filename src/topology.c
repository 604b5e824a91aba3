// SPDX-License-Identifier: GPL-2.0
/*
 * topology.c — the machine's CPUs grouped by core, die, package and NUMA
 * node, from hwloc.
 *
 * Owns one loaded hwloc topology: the host's (every online CPU, including
 * those outside this process's affinity, as perf describes the machine) or a
 * synthetic one built from a description string such as "pack:2 core:8 pu:2"
 * for tests. Groups are hwloc objects in logical order; their CPUs come back
 * as cpu maps of OS indexes (the numbers perf_event_open and sysfs use).
 * Offline CPUs are in no group (a node may have none left) but are present
 * (hwloc's complete cpuset); a synthetic topology takes CPUs offline with
 * topology__take_offline(), an hwloc restriction that remembers what was
 * there.
 * A level the topology lacks degrades to something still usable: no cores
 * means one group per CPU, no packages or dies means one group for the whole
 * machine.
 *
 * Loaded once by the thread that sets up the recording; read-only afterwards,
 * so any thread may query it (hwloc's read-side calls do not modify the
 * topology). Node memory of the host is read from sysfs on each call, like
 * perf does, so the NUMA_TOPOLOGY feature matches perf's to the kB.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/topology.h"
#include "precord/util.h"

#define NODE_MEMINFO_FMT	"/sys/devices/system/node/node%d/meminfo"

static struct topology *topology__load(const char *synthetic_desc)
{
	struct topology *topo = calloc(1, sizeof(*topo));
	int err = ENOMEM;

	if (!topo)
		return NULL;
	if (hwloc_topology_init(&topo->hw) < 0)
		goto out_free;
	if (synthetic_desc) {
		topo->synthetic = true;
		err = EINVAL;
		if (hwloc_topology_set_synthetic(topo->hw, synthetic_desc) < 0)
			goto out_destroy;
	} else {
		hwloc_topology_set_flags(topo->hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
		hwloc_topology_set_icache_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
	}
	if (hwloc_topology_load(topo->hw) < 0) {
		err = errno ? errno : EINVAL;
		goto out_destroy;
	}
	return topo;

out_destroy:
	hwloc_topology_destroy(topo->hw);
out_free:
	free(topo);
	errno = err;
	return NULL;
}

struct topology *topology__new(void)
{
	return topology__load(NULL);
}

struct topology *topology__new_synthetic(const char *desc)
{
	if (!desc) {
		errno = EINVAL;
		return NULL;
	}
	return topology__load(desc);
}

void topology__delete(struct topology *topo)
{
	if (!topo)
		return;
	hwloc_topology_destroy(topo->hw);
	hwloc_bitmap_free(topo->present);
	free(topo);
}

static hwloc_const_cpuset_t topology__cpuset(const struct topology *topo)
{
	return hwloc_topology_get_topology_cpuset(topo->hw);
}

int topology__nr_cpus(const struct topology *topo)
{
	return hwloc_bitmap_weight(topology__cpuset(topo));
}

int topology__max_cpu(const struct topology *topo)
{
	return hwloc_bitmap_last(topology__cpuset(topo)) + 1;
}

/* An hwloc cpuset as a cpu map of OS indexes (may be empty: a CPU-less node). */
static struct cpu_map *cpuset__to_cpu_map(hwloc_const_cpuset_t set)
{
	int weight = hwloc_bitmap_weight(set);
	struct cpu_map *map;
	unsigned int id;
	int *cpus, n = 0;

	if (weight < 0) {
		errno = ERANGE;
		return NULL;
	}
	cpus = malloc(sizeof(*cpus) * (size_t)(weight ? weight : 1));
	if (!cpus)
		return NULL;
	hwloc_bitmap_foreach_begin(id, set) {
		cpus[n++] = (int)id;
	} hwloc_bitmap_foreach_end();
	map = cpu_map__new_from(cpus, n);
	free(cpus);
	return map;
}

struct cpu_map *topology__cpus(const struct topology *topo)
{
	return cpuset__to_cpu_map(topology__cpuset(topo));
}

struct cpu_map *topology__present_cpus(const struct topology *topo)
{
	return cpuset__to_cpu_map(topo->present ? topo->present :
				  hwloc_topology_get_complete_cpuset(topo->hw));
}

int topology__take_offline(struct topology *topo, const struct cpu_map *cpus)
{
	hwloc_bitmap_t keep;
	int i, err = 0;

	if (!topo->synthetic || !cpus || cpu_map__is_any(cpus))
		return -EINVAL;
	keep = hwloc_bitmap_dup(topology__cpuset(topo));
	if (!keep)
		return -ENOMEM;
	for (i = 0; i < cpus->nr; i++)
		hwloc_bitmap_clr(keep, (unsigned int)cpus->map[i].cpu);
	if (hwloc_bitmap_iszero(keep)) {
		err = -EINVAL;
		goto out_free;
	}
	if (!topo->present) {
		topo->present = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(topo->hw));
		if (!topo->present) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	/* flags 0: objects left without CPUs go, NUMA nodes stay (as the kernel keeps them) */
	if (hwloc_topology_restrict(topo->hw, keep, 0) < 0)
		err = errno == ENOMEM ? -ENOMEM : -EINVAL;
out_free:
	hwloc_bitmap_free(keep);
	return err;
}

static hwloc_obj_type_t level__hwloc_type(enum topo_level level)
{
	switch (level) {
	case TOPO_CORE:
		return HWLOC_OBJ_CORE;
	case TOPO_PACKAGE:
		return HWLOC_OBJ_PACKAGE;
	case TOPO_NUMA:
		return HWLOC_OBJ_NUMANODE;
	case TOPO_DIE:
		return HWLOC_OBJ_DIE;
	case TOPO_CPU:
	default:
		return HWLOC_OBJ_PU;
	}
}

/* What a level the topology lacks stands in for (see the file comment). */
static hwloc_obj_type_t type__fallback(hwloc_obj_type_t type)
{
	switch (type) {
	case HWLOC_OBJ_CORE:
		return HWLOC_OBJ_PU;
	case HWLOC_OBJ_DIE:
		return HWLOC_OBJ_PACKAGE;
	default:
		return HWLOC_OBJ_MACHINE;
	}
}

/* The hwloc type whose objects are the groups of level: never an empty level. */
static hwloc_obj_type_t topology__group_type(const struct topology *topo, enum topo_level level)
{
	hwloc_obj_type_t type = level__hwloc_type(level);

	while (type != HWLOC_OBJ_MACHINE && hwloc_get_nbobjs_by_type(topo->hw, type) <= 0)
		type = type__fallback(type);
	return type;
}

static bool level__valid(enum topo_level level)
{
	return level >= TOPO_CPU && level <= TOPO_DIE;
}

int topology__nr_groups(const struct topology *topo, enum topo_level level)
{
	if (!level__valid(level))
		return -EINVAL;
	return hwloc_get_nbobjs_by_type(topo->hw, topology__group_type(topo, level));
}

struct cpu_map *topology__group_cpus(const struct topology *topo, enum topo_level level, int i)
{
	hwloc_obj_t obj;

	if (!level__valid(level) || i < 0) {
		errno = EINVAL;
		return NULL;
	}
	obj = hwloc_get_obj_by_type(topo->hw, topology__group_type(topo, level), (unsigned int)i);
	if (!obj) {
		errno = EINVAL;
		return NULL;
	}
	return cpuset__to_cpu_map(obj->cpuset);
}

static int topology__numa_of(const struct topology *topo, struct cpu cpu)
{
	int i, nr = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);

	for (i = 0; i < nr; i++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned int)i);

		if (hwloc_bitmap_isset(node->cpuset, (unsigned int)cpu.cpu))
			return i;
	}
	return -1;
}

int topology__group_of(const struct topology *topo, enum topo_level level, struct cpu cpu)
{
	hwloc_obj_type_t type;
	hwloc_obj_t pu, obj;

	if (!level__valid(level) || cpu.cpu < 0)
		return -1;
	pu = hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned int)cpu.cpu);
	if (!pu)
		return -1;
	type = topology__group_type(topo, level);
	switch (type) {
	case HWLOC_OBJ_PU:
		return (int)pu->logical_index;
	case HWLOC_OBJ_MACHINE:
		return 0;
	case HWLOC_OBJ_NUMANODE:	/* memory children, not ancestors, in hwloc 2 */
		return topology__numa_of(topo, cpu);
	default:
		obj = hwloc_get_ancestor_obj_by_type(topo->hw, type, pu);
		return obj ? (int)obj->logical_index : -1;
	}
}

static hwloc_obj_t topology__node(const struct topology *topo, int i)
{
	if (i < 0)
		return NULL;
	return hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned int)i);
}

int topology__node_os_index(const struct topology *topo, int i)
{
	hwloc_obj_t node = topology__node(topo, i);

	return node ? (int)node->os_index : -1;
}

/*
 * A line of nodeN/meminfo: "Node N FIELD: VALUE kB", its field (with the
 * colon) into name and its value. 0 or -EINVAL.
 */
static int node_meminfo__parse(char *line, char *name, size_t size, u64 *val)
{
	char *save, *tok[4];
	int i;

	for (i = 0; i < 4; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t\n", &save);
		if (!tok[i])
			return -EINVAL;
	}
	if (parse__int(tok[1], 10, &i, NULL) || strlen(tok[2]) >= size ||
	    parse__u64(tok[3], 10, val, NULL))
		return -EINVAL;
	memcpy(name, tok[2], strlen(tok[2]) + 1);
	return 0;
}

/*
 * One field ("MemTotal:", "MemFree:") of a node's sysfs meminfo, whose lines
 * read "Node 0 MemTotal:  5597388 kB". 0 and the value, or -errno.
 */
static int node_meminfo__read(int node, const char *field, u64 *kb)
{
	char path[64], name[32], *line = NULL;
	size_t len = 0;
	int err = -ENOENT;
	FILE *fp;
	u64 val;

	snprintf(path, sizeof(path), NODE_MEMINFO_FMT, node);
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	while (getline(&line, &len, fp) > 0) {
		if (node_meminfo__parse(line, name, sizeof(name), &val))
			continue;
		if (!strcmp(name, field)) {
			*kb = val;
			err = 0;
			break;
		}
	}
	free(line);
	fclose(fp);
	return err;
}

u64 topology__node_mem_kb(const struct topology *topo, int i)
{
	hwloc_obj_t node = topology__node(topo, i);
	u64 kb;

	if (!node)
		return 0;
	if (!topo->synthetic && !node_meminfo__read((int)node->os_index, "MemTotal:", &kb))
		return kb;
	return node->attr->numanode.local_memory / 1024;
}

u64 topology__node_mem_free_kb(const struct topology *topo, int i)
{
	hwloc_obj_t node = topology__node(topo, i);
	u64 kb;

	if (!node || topo->synthetic)
		return 0;
	if (node_meminfo__read((int)node->os_index, "MemFree:", &kb))
		return 0;
	return kb;
}

/*
 * How far CPU b is from CPU a: the NUMA distance of their nodes when the
 * machine has a distance table (ACPI SLIT), scaled above the tree distance
 * (the levels from the deeper PU up to their common ancestor), which breaks
 * ties and stands alone where there is no table (synthetic topologies).
 */
static u64 topology__cpu_distance(const struct topology *topo, struct hwloc_distances_s *dist,
				  struct cpu a, struct cpu b)
{
	hwloc_obj_t pa = hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned int)a.cpu);
	hwloc_obj_t pb = hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned int)b.cpu);
	hwloc_uint64_t ab = 0, ba = 0;
	u64 tree, numa = 0;
	int na, nb;

	if (!pa || !pb)
		return UINT64_MAX;
	tree = (u64)(pa->depth - hwloc_get_common_ancestor_obj(topo->hw, pa, pb)->depth);
	na = topology__numa_of(topo, a);
	nb = topology__numa_of(topo, b);
	if (dist && na >= 0 && nb >= 0 &&
	    hwloc_distances_obj_pair_values(dist, topology__node(topo, na), topology__node(topo, nb),
					    &ab, &ba) == 0)
		numa = (u64)ab;
	return numa * 1000 + tree;
}

struct cpu_map *topology__nearest(const struct topology *topo, const struct cpu_map *from,
				  const struct cpu_map *among)
{
	struct hwloc_distances_s *dist = NULL;
	unsigned int nr_dist = 1;
	u64 best = UINT64_MAX, *score;
	int *pick, n = 0, i, j;
	struct cpu_map *map;

	if (!from->nr || !among->nr)
		return NULL;
	score = calloc((size_t)among->nr, sizeof(*score));
	pick = calloc((size_t)among->nr, sizeof(*pick));
	if (!score || !pick) {
		free(score);
		free(pick);
		return NULL;
	}
	if (hwloc_distances_get_by_type(topo->hw, HWLOC_OBJ_NUMANODE, &nr_dist, &dist,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 || !nr_dist)
		dist = NULL;
	for (j = 0; j < among->nr; j++) {
		score[j] = UINT64_MAX;
		for (i = 0; i < from->nr; i++) {
			u64 d = topology__cpu_distance(topo, dist, from->map[i], among->map[j]);

			if (d < score[j])
				score[j] = d;
		}
		if (score[j] < best)
			best = score[j];
	}
	for (j = 0; j < among->nr; j++)
		if (score[j] == best)
			pick[n++] = among->map[j].cpu;
	if (dist)
		hwloc_distances_release(topo->hw, dist);
	map = cpu_map__new_from(pick, n);
	free(score);
	free(pick);
	return map;
}
