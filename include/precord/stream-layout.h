/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream-layout.h — how the rings are split among streaming threads
 * (--threads): perf's SPEC (cpu, core, package, numa, or user masks
 * "<maps>/<affinity>:<maps>/<affinity>…") or precord's adaptive[:MAX]
 * (the default) applied to a topology and intersected with the CPUs
 * recorded.
 */
#ifndef PRECORD_STREAM_LAYOUT_H
#define PRECORD_STREAM_LAYOUT_H

#include "precord/cpumap.h"
#include "precord/topology.h"

struct stream_layout {
	int		nr;		/* streaming threads */
	struct cpu_map	**maps;		/* [i]: the CPUs whose rings thread i drains (never empty) */
	struct cpu_map	**affinity;	/* [i]: the CPUs thread i may run on (never empty) */
	int		*node;		/* [i]: OS index of the NUMA node holding maps[i], -1 if several */
	bool		*moved;		/* [i]: runs away from maps[i]'s CPUs (layout__fit_allowed()) */
	/*
	 * adaptive[:MAX]: the threads above are the numa layout's, each the
	 * first of its node, which may add helpers up to adapt_max threads
	 * on the node (0: one per recorded CPU of the node).
	 */
	bool		adaptive;
	int		adapt_max;
};

/* precord's layout when --threads names none. */
#define LAYOUT_DEFAULT_SPEC	"adaptive"

/* The threads the adaptive layout may run for thread t (its node), 1 when fixed. */
int layout__max_threads_of(const struct stream_layout *layout, int t);

/*
 * Build the layout of spec ("cpu", "core", "package", "numa", "adaptive",
 * "adaptive:MAX" or user masks; NULL or "" means "cpu", as perf) for the
 * recorded CPUs `cpus` on `topo`.
 * Returns 0, or -EINVAL with a one-line message in err (perf's: an empty mask
 * after intersection, "Intersecting maps mask", bad syntax, CPUs not recorded).
 */
int layout__new(const char *spec, const struct topology *topo, const struct cpu_map *cpus,
		struct stream_layout **layoutp, char *err, size_t errlen);
void layout__delete(struct stream_layout *layout);	/* accepts NULL */

/* Index of the thread that drains cpu's ring, or -1. */
int layout__thread_of(const struct stream_layout *layout, struct cpu cpu);

/*
 * Keep each thread's affinity within `allowed`, the CPUs this process may
 * run on (a cpuset cgroup, taskset): its allowed CPUs where it has any, else
 * the allowed CPUs nearest to its own (topology__nearest()), with moved[i]
 * set. The rings a thread drains stay the same. The number of threads
 * moved, or -ENOMEM.
 */
int layout__fit_allowed(struct stream_layout *layout, const struct topology *topo,
			const struct cpu_map *allowed);

#endif /* PRECORD_STREAM_LAYOUT_H */
