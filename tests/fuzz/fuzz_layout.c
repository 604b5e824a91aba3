// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_layout.c — libFuzzer target of the --threads SPEC parser,
 * layout__new(), on hwloc synthetic topologies (never the host's, so that
 * a finding reproduces anywhere). The input: one byte choosing the
 * topology, one choosing the recorded CPUs and the CPUs allowed to run on,
 * then the spec (up to the first NUL).
 *
 * A layout that is built must be one: every thread drains and runs on a
 * CPU at least, each recorded CPU's ring has at most one thread,
 * layout__thread_of() agrees with the maps, and layout__fit_allowed()
 * keeps every affinity within the allowed CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/stream-layout.h"
#include "fuzz.h"

static const char *const descs[] = {
	"pack:2 numa:2 core:4 pu:2",
	"pack:1 core:4 pu:1",
	"pack:2 numa:1(indexes=5,3) core:2 pu:1",
	"pack:1 numa:4 core:17 pu:4",
};
#define NR_TOPOS	(sizeof(descs) / sizeof(descs[0]))

static struct topology *topos[NR_TOPOS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;

	for (i = 0; i < NR_TOPOS; i++) {
		topos[i] = topology__new_synthetic(descs[i]);
		if (!topos[i]) {
			fprintf(stderr, "fuzz_layout: no synthetic topology '%s'\n", descs[i]);
			abort();
		}
	}
	return 0;
}

/* all CPUs of topo (0), the even ones (1), the first half (2), or "any" (3) */
static struct cpu_map *cpus__pick(const struct topology *topo, int how)
{
	struct cpu_map *all = topology__cpus(topo), *map;
	int *list, i, n = 0;

	if (how == 0 || !all)
		return all;
	if (how == 3) {
		cpu_map__put(all);
		return cpu_map__new_any();
	}
	list = malloc(sizeof(*list) * (size_t)all->nr);
	for (i = 0; list && i < all->nr; i++)
		if (how == 1 ? !(all->map[i].cpu & 1) : i < (all->nr + 1) / 2)
			list[n++] = all->map[i].cpu;
	map = list ? cpu_map__new_from(list, n) : NULL;
	free(list);
	cpu_map__put(all);
	return map;
}

static void check_layout(const struct stream_layout *l, const struct cpu_map *cpus)
{
	int t, i, owner;
	struct cpu c;

	fuzz__check(l->nr > 0, "a layout without threads");
	for (t = 0; t < l->nr; t++)
		fuzz__check(l->maps[t]->nr > 0 && l->affinity[t]->nr > 0, "an empty mask");
	cpu_map__for_each_cpu(c, i, cpus) {
		owner = -1;
		for (t = 0; t < l->nr; t++) {
			if (!cpu_map__has(l->maps[t], c))
				continue;
			fuzz__check(owner < 0, "a ring drained by two threads");
			owner = t;
		}
		fuzz__check(layout__thread_of(l, c) == owner, "thread_of disagrees with the maps");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_layout *layout = NULL;
	struct cpu_map *cpus, *allowed;
	const struct topology *topo;
	char err[256], *spec;
	int t, i;
	struct cpu c;

	if (size < 2)
		return 0;
	topo = topos[data[0] % NR_TOPOS];
	spec = strndup((const char *)data + 2, size - 2);
	cpus = cpus__pick(topo, data[1] & 3);
	allowed = cpus__pick(topo, (data[1] >> 2) % 3);
	fuzz__check(spec && cpus && allowed, "out of memory");
	if (!layout__new(spec, topo, cpus, &layout, err, sizeof(err))) {
		check_layout(layout, cpus);
		fuzz__check(layout__fit_allowed(layout, topo, allowed) >= 0, "fit_allowed failed");
		check_layout(layout, cpus);
		for (t = 0; t < layout->nr; t++)
			cpu_map__for_each_cpu(c, i, layout->affinity[t])
				fuzz__check(cpu_map__has(allowed, c), "an affinity outside the allowed CPUs");
	}
	layout__delete(layout);
	cpu_map__put(allowed);
	cpu_map__put(cpus);
	free(spec);
	return 0;
}
