/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpumap.h — sorted, refcounted sets of CPU numbers (libperf's perf_cpu_map).
 * A CPU number is a struct cpu so it never mixes with a map index.
 */
#ifndef PRECORD_CPUMAP_H
#define PRECORD_CPUMAP_H

#include <stdbool.h>

struct cpu {
	int cpu;	/* -1: "any CPU" (per-thread events) */
};

struct cpu_map {
	int		refcnt;		/* atomic */
	int		nr;
	struct cpu	map[];		/* ascending, no duplicates */
};

/* Every online CPU (from /sys/devices/system/cpu/online). */
struct cpu_map *cpu_map__new_online(void);
/* The CPUs this process may run on (sched_getaffinity: cpuset, taskset). */
struct cpu_map *cpu_map__new_allowed(void);
/* A one-entry map holding CPU -1, for per-thread events. */
struct cpu_map *cpu_map__new_any(void);
/* Build a map from explicit CPU numbers (sorted and de-duplicated). */
struct cpu_map *cpu_map__new_from(const int *cpus, int nr);
/*
 * Parse a CPU list as perf takes it ("0-3,6,8-9"). Returns 0 and sets *mapp,
 * or -EINVAL (syntax, empty), -ERANGE (too large), -ENODEV (a CPU that is
 * not online; *bad_cpu says which when bad_cpu is not NULL).
 *
 * The syntax: comma-separated CPU numbers and ranges LOW-HIGH (decimal,
 * LOW <= HIGH), blanks allowed around numbers and separators, one trailing
 * comma allowed; repeated or overlapping CPUs are merged.
 */
int cpu_map__parse(const char *list, struct cpu_map **mapp, int *bad_cpu);
/* The same against a given set of available CPUs instead of the online ones. */
int cpu_map__parse_within(const char *list, const struct cpu_map *avail,
			  struct cpu_map **mapp, int *bad_cpu);
/* Syntax only (reads nothing from the machine): 0, -EINVAL or -ERANGE. */
int cpu_map__check_list(const char *list);
/* Read a kernel CPU list file such as /sys/devices/system/cpu/online; NULL on error. */
struct cpu_map *cpu_map__read(const char *path);
/* Format as a CPU list ("0-3,6"); returns the length written (snprintf rules). */
int cpu_map__snprintf(const struct cpu_map *map, char *buf, size_t size);

struct cpu_map *cpu_map__get(struct cpu_map *map);
void cpu_map__put(struct cpu_map *map);	/* accepts NULL */

/* Index of cpu in map, or -1. */
int cpu_map__idx(const struct cpu_map *map, struct cpu cpu);
bool cpu_map__has(const struct cpu_map *map, struct cpu cpu);
bool cpu_map__is_any(const struct cpu_map *map);
/* A new map of the CPUs in both ("any" stands for every CPU); NULL on ENOMEM. */
struct cpu_map *cpu_map__intersect(const struct cpu_map *a, const struct cpu_map *b);
/* A new map of the CPUs of a not in b; NULL on ENOMEM or when either is "any". */
struct cpu_map *cpu_map__subtract(const struct cpu_map *a, const struct cpu_map *b);
/* The CPUs present (/sys/devices/system/cpu/present, else the online ones). */
struct cpu_map *cpu_map__new_present(void);
/*
 * Highest present CPU number + 1 (/sys/devices/system/cpu/present, else
 * sysconf): perf's cpu__max_present_cpu(), HEADER_NRCPUS "available".
 */
int cpu__max_present(void);

#define cpu_map__for_each_cpu(_cpu, _idx, _map)				\
	for ((_idx) = 0;						\
	     (_idx) < (_map)->nr && ((_cpu) = (_map)->map[_idx], 1);	\
	     (_idx)++)

#endif /* PRECORD_CPUMAP_H */
