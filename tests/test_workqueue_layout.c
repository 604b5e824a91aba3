// SPDX-License-Identifier: GPL-2.0
/*
 * test_workqueue_layout.c — the workqueue's worker plan on hwloc synthetic
 * topologies of machines this one is not: a 272-PU Xeon Phi (4 NUMA nodes,
 * 68 cores of 4 threads), the same in flat mode (a memory-only node beside
 * each DDR node), and a 2-socket server with 2x64 cores whose hyperthread
 * siblings are numbered 128 apart.  No thread is started.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "wq-internal.h"

#define KNM		"numa:4 core:17 pu:4"
#define KNM_FLAT	"pack:1 group:4 [numa(memory=24GB)] [numa(memory=4GB)] core:17 pu:4"
#define EPYC2S		"pack:2 [numa] l3:8 core:8 pu:2(indexes=2*128:1*2)"

static hwloc_topology_t topo_new(const char *desc)
{
	hwloc_topology_t topo;

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_synthetic(topo, desc), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	return topo;
}

static hwloc_bitmap_t cpus_new(const char *list)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	assert_non_null(set);
	assert_int_equal(hwloc_bitmap_list_sscanf(set, list), 0);
	return set;
}

static int set_weight_and_first(hwloc_const_bitmap_t set, int *first)
{
	*first = hwloc_bitmap_first(set);
	return hwloc_bitmap_weight(set);
}

/* Names fit in 15 characters and are all different. */
static void check_names(const struct wq_layout *l)
{
	int i, j;

	for (i = 0; i < l->nr_workers; i++) {
		assert_true(strlen(l->slots[i].name) <= 15);
		assert_true(strlen(l->slots[i].name) > 0);
		for (j = i + 1; j < l->nr_workers && j < i + 8; j++)
			assert_string_not_equal(l->slots[i].name, l->slots[j].name);
	}
}

/* Every CPU of the plan maps to a worker whose set holds it. */
static void check_cpu_map(const struct wq_layout *l)
{
	int cpu, mapped = 0;

	for (cpu = 0; cpu < l->nr_cpu_ids; cpu++) {
		int w = l->cpu_worker[cpu];

		if (w < 0)
			continue;
		assert_true(w < l->nr_workers);
		assert_true(hwloc_bitmap_isset(l->slots[w].cpuset, cpu));
		mapped++;
	}
	assert_true(mapped > 0);
}

static void test_knm_cpu_scope(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	struct wq_layout l;
	int i, first;

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CPU, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 272);
	assert_int_equal(l.nr_domains, 272);
	assert_int_equal(l.nr_nodes, 4);
	for (i = 0; i < 272; i++) {
		assert_int_equal(set_weight_and_first(l.slots[i].cpuset, &first), 1);
		assert_int_equal(first, i);
		assert_int_equal(l.slots[i].home_cpu, i);
		assert_int_equal(l.slots[i].node, i / 68);
		assert_int_equal(l.cpu_worker[i], i);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(l.node_first[i], 68 * i);
		assert_int_equal(l.node_count[i], 68);
	}
	assert_string_equal(l.slots[3].name, "prec-wq/3");
	assert_string_equal(l.slots[271].name, "prec-wq/271");
	check_names(&l);
	check_cpu_map(&l);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_knm_smt_scope(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	struct wq_layout l;
	int i, first;

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_SMT, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 68);
	for (i = 0; i < 68; i++) {
		assert_int_equal(set_weight_and_first(l.slots[i].cpuset, &first), 4);
		assert_int_equal(first, 4 * i);
		assert_int_equal(l.slots[i].node, i / 17);
	}
	/* every hardware thread of core 40 is served by worker 40 */
	for (i = 160; i < 164; i++)
		assert_int_equal(l.cpu_worker[i], 40);
	assert_string_equal(l.slots[67].name, "prec-wq/c67");
	check_names(&l);
	check_cpu_map(&l);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_knm_numa_scope(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	struct wq_layout l;
	int i, first;

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_NUMA, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(set_weight_and_first(l.slots[i].cpuset, &first), 68);
		assert_int_equal(first, 68 * i);
		assert_int_equal(l.slots[i].node, i);
		assert_int_equal(l.node_first[i], i);
		assert_int_equal(l.node_count[i], 1);
	}
	assert_int_equal(l.cpu_worker[136], 2);
	assert_int_equal(l.cpu_worker[271], 3);
	assert_string_equal(l.slots[2].name, "prec-wq/n2");
	wq_layout__exit(&l);

	/* two workers per node share its CPUs: 136 -> 4, 137 -> 5, 138 -> 4 */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_NUMA, 2, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 8);
	assert_int_equal(l.cpu_worker[136], 4);
	assert_int_equal(l.cpu_worker[137], 5);
	assert_int_equal(l.cpu_worker[138], 4);
	assert_string_equal(l.slots[5].name, "prec-wq/n2:1");
	assert_int_equal(l.node_first[2], 4);
	assert_int_equal(l.node_count[2], 2);
	check_names(&l);
	check_cpu_map(&l);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_knm_cache_and_system_scope(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	struct wq_layout l;
	int i, first;

	/* no cache in the description: the cache scope falls back to nodes */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CACHE, 0, NULL), 0);
	assert_int_equal(l.nr_workers, 4);
	assert_string_equal(l.slots[0].name, "wq/n0");
	wq_layout__exit(&l);

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_SYSTEM, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 272);
	assert_int_equal(l.nr_domains, 1);
	for (i = 0; i < 272; i++) {
		assert_int_equal(set_weight_and_first(l.slots[i].cpuset, &first), 272);
		assert_int_equal(l.slots[i].node, -1);
		assert_int_equal(l.cpu_worker[i], i);
	}
	assert_string_equal(l.slots[271].name, "prec-wq/u271");
	for (i = 0; i < 4; i++)
		assert_int_equal(l.node_count[i], 0);
	check_names(&l);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_knm_restricted(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	hwloc_bitmap_t set = cpus_new("0-3,68-71,200");
	struct wq_layout l;

	assert_int_equal(wq_layout__init(&l, topo, set, WQ_SCOPE_CPU, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 9);
	assert_int_equal(l.nr_cpu_ids, 201);
	assert_int_equal(l.cpu_worker[4], -1);
	assert_int_equal(l.cpu_worker[68], 4);
	assert_int_equal(l.cpu_worker[200], 8);
	assert_int_equal(l.slots[8].node, 2);
	assert_int_equal(l.node_first[1], 4);
	assert_int_equal(l.node_count[1], 4);
	assert_int_equal(l.node_count[2], 1);
	assert_int_equal(l.node_count[3], 0);
	wq_layout__exit(&l);

	/* the same CPUs by core: cores 0, 17 and 50, each cut to the set */
	assert_int_equal(wq_layout__init(&l, topo, set, WQ_SCOPE_SMT, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 3);
	assert_int_equal(hwloc_bitmap_weight(l.slots[2].cpuset), 1);
	assert_string_equal(l.slots[2].name, "prec-wq/c50");
	wq_layout__exit(&l);
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
}

static void test_bad_input(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	hwloc_bitmap_t outside = cpus_new("270-300");
	hwloc_bitmap_t empty = hwloc_bitmap_alloc();
	struct wq_layout l;

	assert_int_equal(wq_layout__init(&l, topo, outside, WQ_SCOPE_CPU, 0, NULL), -EINVAL);
	wq_layout__exit(&l);
	assert_int_equal(wq_layout__init(&l, topo, empty, WQ_SCOPE_CPU, 0, NULL), -EINVAL);
	wq_layout__exit(&l);
	assert_int_equal(wq_layout__init(&l, topo, NULL, (enum wq_scope)9, 0, NULL), -EINVAL);
	wq_layout__exit(&l);
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CPU, -1, NULL), -EINVAL);
	wq_layout__exit(&l);
	hwloc_bitmap_free(outside);
	hwloc_bitmap_free(empty);
	hwloc_topology_destroy(topo);
}

static void test_long_prefix(void **state)
{
	hwloc_topology_t topo = topo_new(KNM);
	struct wq_layout l;

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CPU, 0,
					 "a-very-long-pool-name"), 0);
	/* the prefix is cut, the CPU number is kept */
	assert_string_equal(l.slots[271].name, "a-very-long/271");
	assert_string_equal(l.slots[5].name, "a-very-long-p/5");
	check_names(&l);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_knm_flat_mode(void **state)
{
	hwloc_topology_t topo = topo_new(KNM_FLAT);
	struct wq_layout l;
	int i;

	assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 8);
	/* one worker per quadrant, not one per node: MCDRAM nodes have no CPU of their own */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_NUMA, 0, "w"), 0);
	assert_int_equal(l.nr_workers, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(l.slots[i].node, 2 * i);	/* the DDR node */
		assert_int_equal(hwloc_bitmap_weight(l.slots[i].cpuset), 68);
	}
	wq_layout__exit(&l);

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CPU, 0, "w"), 0);
	assert_int_equal(l.nr_workers, 272);
	assert_int_equal(l.slots[100].node, 2);
	assert_int_equal(l.node_first[2], 68);
	assert_int_equal(l.node_count[2], 68);
	assert_int_equal(l.node_count[3], 0);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

static void test_two_socket(void **state)
{
	hwloc_topology_t topo = topo_new(EPYC2S);
	struct wq_layout l;
	int i, first;

	/* per CPU: workers in topology order, siblings side by side */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CPU, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 256);
	assert_int_equal(l.slots[0].home_cpu, 0);
	assert_int_equal(l.slots[1].home_cpu, 128);
	assert_int_equal(l.slots[2].home_cpu, 1);
	assert_int_equal(l.cpu_worker[128], 1);
	assert_int_equal(l.cpu_worker[64], 128);
	assert_int_equal(l.slots[128].node, 1);
	assert_string_equal(l.slots[1].name, "prec-wq/128");
	assert_int_equal(l.node_first[1], 128);
	assert_int_equal(l.node_count[1], 128);
	check_cpu_map(&l);
	wq_layout__exit(&l);

	/* per core: {i, i + 128} */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_SMT, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 128);
	for (i = 0; i < 128; i++) {
		assert_int_equal(set_weight_and_first(l.slots[i].cpuset, &first), 2);
		assert_int_equal(first, i);
		assert_true(hwloc_bitmap_isset(l.slots[i].cpuset, i + 128));
		assert_int_equal(l.slots[i].node, i / 64);
		assert_int_equal(l.cpu_worker[i + 128], i);
	}
	wq_layout__exit(&l);

	/* per last-level cache: 16 L3s of 8 cores */
	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_CACHE, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 16);
	assert_int_equal(hwloc_bitmap_weight(l.slots[9].cpuset), 16);
	assert_int_equal(l.slots[9].home_cpu, 72);
	assert_int_equal(l.slots[9].node, 1);
	assert_int_equal(l.cpu_worker[72 + 128], 9);
	assert_string_equal(l.slots[9].name, "prec-wq/l9");
	wq_layout__exit(&l);

	assert_int_equal(wq_layout__init(&l, topo, NULL, WQ_SCOPE_NUMA, 0, "prec-wq"), 0);
	assert_int_equal(l.nr_workers, 2);
	assert_int_equal(hwloc_bitmap_weight(l.slots[1].cpuset), 128);
	assert_int_equal(l.cpu_worker[200], 1);
	assert_int_equal(l.cpu_worker[63], 0);
	wq_layout__exit(&l);
	hwloc_topology_destroy(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knm_cpu_scope),
		cmocka_unit_test(test_knm_smt_scope),
		cmocka_unit_test(test_knm_numa_scope),
		cmocka_unit_test(test_knm_cache_and_system_scope),
		cmocka_unit_test(test_knm_restricted),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_long_prefix),
		cmocka_unit_test(test_knm_flat_mode),
		cmocka_unit_test(test_two_socket),
	};

	return cmocka_run_group_tests_name("workqueue layout", tests, NULL, NULL) ? 1 : 0;
}
