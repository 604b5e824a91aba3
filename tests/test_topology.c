// SPDX-License-Identifier: GPL-2.0
/*
 * test_topology.c — topology groups on hwloc synthetic topologies (so the
 * answers do not depend on the machine running the test), plus sanity checks
 * of the host topology against sysfs/sysconf.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/topology.h"
#include "helpers.h"

/* Xeon Phi 7250-like: 68 cores x 4 threads in SNC-4 (4 NUMA nodes of 17 cores),
 * numbered like the kernel does there: the threads of core c are c, c+68,
 * c+136 and c+204. */
#define PHI_DESC	"pack:1 numa:4(memory=16GiB) core:17 pu:4(indexes=4*68:1*4)"

/* Check map holds exactly the CPUs [from, to) with the given stride. */
static void assert_map_range(const struct cpu_map *map, int from, int to, int stride)
{
	int i, n = 0;

	assert_non_null(map);
	for (i = from; i < to; i += stride) {
		assert_true(n < map->nr);
		assert_int_equal(map->map[n].cpu, i);
		n++;
	}
	assert_int_equal(map->nr, n);
}

static void test_two_packages(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 core:64 pu:1");
	struct cpu_map *map;
	int i;

	(void)state;
	assert_non_null(topo);
	assert_true(topo->synthetic);
	assert_int_equal(topology__nr_cpus(topo), 128);
	assert_int_equal(topology__max_cpu(topo), 128);
	assert_int_equal(topology__nr_groups(topo, TOPO_CPU), 128);
	assert_int_equal(topology__nr_groups(topo, TOPO_CORE), 128);
	assert_int_equal(topology__nr_groups(topo, TOPO_PACKAGE), 2);
	assert_int_equal(topology__nr_groups(topo, TOPO_NUMA), 1);
	/* No die level: dies are the packages. */
	assert_int_equal(topology__nr_groups(topo, TOPO_DIE), 2);

	for (i = 0; i < 2; i++) {
		map = topology__group_cpus(topo, TOPO_PACKAGE, i);
		assert_map_range(map, i * 64, (i + 1) * 64, 1);
		cpu_map__put(map);
		map = topology__group_cpus(topo, TOPO_DIE, i);
		assert_map_range(map, i * 64, (i + 1) * 64, 1);
		cpu_map__put(map);
	}
	map = topology__group_cpus(topo, TOPO_CORE, 77);
	assert_map_range(map, 77, 78, 1);
	cpu_map__put(map);
	map = topology__group_cpus(topo, TOPO_NUMA, 0);
	assert_map_range(map, 0, 128, 1);
	cpu_map__put(map);
	map = topology__cpus(topo);
	assert_map_range(map, 0, 128, 1);
	cpu_map__put(map);

	assert_int_equal(topology__group_of(topo, TOPO_PACKAGE, (struct cpu){ 63 }), 0);
	assert_int_equal(topology__group_of(topo, TOPO_PACKAGE, (struct cpu){ 64 }), 1);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 100 }), 100);
	assert_int_equal(topology__group_of(topo, TOPO_CPU, (struct cpu){ 5 }), 5);
	assert_int_equal(topology__group_of(topo, TOPO_NUMA, (struct cpu){ 127 }), 0);
	assert_int_equal(topology__group_of(topo, TOPO_DIE, (struct cpu){ 127 }), 1);

	assert_int_equal(topology__node_os_index(topo, 0), 0);
	/* hwloc's synthetic default: 1 GiB per NUMA node; free is not known. */
	assert_int_equal(topology__node_mem_kb(topo, 0), 1024 * 1024);
	assert_int_equal(topology__node_mem_free_kb(topo, 0), 0);
	topology__delete(topo);
}

static void test_xeon_phi_272(void **state)
{
	struct topology *topo = topology__new_synthetic(PHI_DESC);
	struct cpu_map *map;
	int node, i, k, n;

	(void)state;
	assert_non_null(topo);
	assert_int_equal(topology__nr_cpus(topo), 272);
	assert_int_equal(topology__max_cpu(topo), 272);
	assert_int_equal(topology__nr_groups(topo, TOPO_CPU), 272);
	assert_int_equal(topology__nr_groups(topo, TOPO_CORE), 68);
	assert_int_equal(topology__nr_groups(topo, TOPO_PACKAGE), 1);
	assert_int_equal(topology__nr_groups(topo, TOPO_NUMA), 4);

	/* Core c: its four threads c, c+68, c+136, c+204. */
	for (i = 0; i < 68; i++) {
		int cpus[4] = { i, i + 68, i + 136, i + 204 };

		map = topology__group_cpus(topo, TOPO_CORE, i);
		assert_cpu_map(map, cpus, 4);
		cpu_map__put(map);
		for (k = 0; k < 4; k++)
			assert_int_equal(topology__group_of(topo, TOPO_CORE,
							    (struct cpu){ cpus[k] }), i);
	}

	/* Node n: cores 17n..17n+16 and their siblings, 68 CPUs, ascending. */
	for (node = 0; node < 4; node++) {
		int cpus[68];

		n = 0;
		for (k = 0; k < 4; k++)
			for (i = 17 * node; i < 17 * node + 17; i++)
				cpus[n++] = i + 68 * k;
		map = topology__group_cpus(topo, TOPO_NUMA, node);
		assert_cpu_map(map, cpus, 68);
		cpu_map__put(map);
		assert_int_equal(topology__node_os_index(topo, node), node);
		assert_int_equal(topology__node_mem_kb(topo, node), 16ULL * 1024 * 1024);
		for (k = 0; k < 68; k++)
			assert_int_equal(topology__group_of(topo, TOPO_NUMA,
							    (struct cpu){ cpus[k] }), node);
	}

	map = topology__group_cpus(topo, TOPO_PACKAGE, 0);
	assert_map_range(map, 0, 272, 1);
	cpu_map__put(map);

	/* CPU groups are in hwloc's logical order: the second PU is CPU 68. */
	map = topology__group_cpus(topo, TOPO_CPU, 1);
	assert_map_range(map, 68, 69, 1);
	cpu_map__put(map);
	assert_int_equal(topology__group_of(topo, TOPO_CPU, (struct cpu){ 68 }), 1);
	assert_int_equal(topology__group_of(topo, TOPO_CPU, (struct cpu){ 1 }), 4);
	topology__delete(topo);
}

/* CPU numbers with holes: 0, 2, 4, 6. */
static void test_sparse_cpus(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:1 core:4 pu:1(indexes=0,2,4,6)");
	struct cpu_map *map;

	(void)state;
	assert_non_null(topo);
	assert_int_equal(topology__nr_cpus(topo), 4);
	assert_int_equal(topology__max_cpu(topo), 7);
	map = topology__cpus(topo);
	assert_map_range(map, 0, 7, 2);
	cpu_map__put(map);
	map = topology__group_cpus(topo, TOPO_CORE, 3);
	assert_map_range(map, 6, 7, 1);
	cpu_map__put(map);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 4 }), 2);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 3 }), -1);
	assert_int_equal(topology__group_of(topo, TOPO_NUMA, (struct cpu){ 5 }), -1);
	topology__delete(topo);
}

/* Without a package level the whole machine is one package; with no core
 * level every CPU is its own core. */
static void test_missing_levels(void **state)
{
	struct topology *topo = topology__new_synthetic("numa:4 core:17 pu:4");
	struct cpu_map *map;

	(void)state;
	assert_non_null(topo);
	assert_int_equal(topology__nr_cpus(topo), 272);
	assert_int_equal(topology__nr_groups(topo, TOPO_NUMA), 4);
	assert_int_equal(topology__nr_groups(topo, TOPO_PACKAGE), 1);
	assert_int_equal(topology__nr_groups(topo, TOPO_DIE), 1);
	map = topology__group_cpus(topo, TOPO_PACKAGE, 0);
	assert_map_range(map, 0, 272, 1);
	cpu_map__put(map);
	assert_int_equal(topology__group_of(topo, TOPO_PACKAGE, (struct cpu){ 271 }), 0);
	/* Sequential numbering here: node 2 is CPUs 136..203. */
	map = topology__group_cpus(topo, TOPO_NUMA, 2);
	assert_map_range(map, 136, 204, 1);
	cpu_map__put(map);
	topology__delete(topo);

	topo = topology__new_synthetic("pack:2 pu:4");
	assert_non_null(topo);
	assert_int_equal(topology__nr_groups(topo, TOPO_CORE), 8);
	map = topology__group_cpus(topo, TOPO_CORE, 6);
	assert_map_range(map, 6, 7, 1);
	cpu_map__put(map);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 6 }), 6);
	topology__delete(topo);
}

static void test_dies(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 die:2 core:4 pu:2");
	struct cpu_map *map;
	int i;

	(void)state;
	assert_non_null(topo);
	assert_int_equal(topology__nr_cpus(topo), 32);
	assert_int_equal(topology__nr_groups(topo, TOPO_PACKAGE), 2);
	assert_int_equal(topology__nr_groups(topo, TOPO_DIE), 4);
	assert_int_equal(topology__nr_groups(topo, TOPO_CORE), 16);
	for (i = 0; i < 4; i++) {
		map = topology__group_cpus(topo, TOPO_DIE, i);
		assert_map_range(map, 8 * i, 8 * i + 8, 1);
		cpu_map__put(map);
	}
	assert_int_equal(topology__group_of(topo, TOPO_DIE, (struct cpu){ 17 }), 2);
	assert_int_equal(topology__group_of(topo, TOPO_PACKAGE, (struct cpu){ 17 }), 1);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 17 }), 8);
	topology__delete(topo);
}

static void test_bad_input(void **state)
{
	struct topology *topo;

	(void)state;
	errno = 0;
	assert_null(topology__new_synthetic("bogus:3"));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(topology__new_synthetic(NULL));
	assert_int_equal(errno, EINVAL);
	topology__delete(NULL);

	topo = topology__new_synthetic("pack:2 core:2 pu:2");
	assert_non_null(topo);
	assert_int_equal(topology__nr_groups(topo, (enum topo_level)42), -EINVAL);
	errno = 0;
	assert_null(topology__group_cpus(topo, TOPO_CORE, 4));
	assert_int_equal(errno, EINVAL);
	assert_null(topology__group_cpus(topo, TOPO_CORE, -1));
	assert_null(topology__group_cpus(topo, (enum topo_level)-3, 0));
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ 8 }), -1);
	assert_int_equal(topology__group_of(topo, TOPO_CORE, (struct cpu){ -1 }), -1);
	assert_int_equal(topology__node_os_index(topo, 1), -1);
	assert_int_equal(topology__node_mem_kb(topo, 1), 0);
	assert_int_equal(topology__node_mem_kb(topo, -1), 0);
	topology__delete(topo);
}

/* The host: every online CPU is in exactly one group of each level. */
static void test_host(void **state)
{
	struct topology *topo = topology__new();
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int level, g, i, nr, seen;
	struct cpu_map *all;

	(void)state;
	assert_non_null(topo);
	assert_false(topo->synthetic);
	assert_int_equal(topology__nr_cpus(topo), online);
	all = topology__cpus(topo);
	assert_non_null(all);
	assert_int_equal(all->nr, online);
	assert_int_equal(topology__max_cpu(topo), all->map[all->nr - 1].cpu + 1);

	for (level = TOPO_CPU; level <= TOPO_DIE; level++) {
		nr = topology__nr_groups(topo, level);
		assert_true(nr >= 1);
		seen = 0;
		for (g = 0; g < nr; g++) {
			struct cpu_map *map = topology__group_cpus(topo, level, g);

			assert_non_null(map);
			for (i = 0; i < map->nr; i++)
				assert_int_equal(topology__group_of(topo, level, map->map[i]), g);
			seen += map->nr;
			cpu_map__put(map);
		}
		assert_int_equal(seen, online);
	}
	for (i = 0; i < topology__nr_groups(topo, TOPO_NUMA); i++) {
		assert_true(topology__node_os_index(topo, i) >= 0);
		assert_true(topology__node_mem_kb(topo, i) > 0);
		assert_true(topology__node_mem_free_kb(topo, i) <= topology__node_mem_kb(topo, i));
	}
	cpu_map__put(all);
	topology__delete(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_packages),
		cmocka_unit_test(test_xeon_phi_272),
		cmocka_unit_test(test_sparse_cpus),
		cmocka_unit_test(test_missing_levels),
		cmocka_unit_test(test_dies),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
