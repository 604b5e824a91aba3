// SPDX-License-Identifier: GPL-2.0
/*
 * test_stream_layout.c — --threads layouts on hwloc synthetic topologies (so the
 * answers never depend on the host): the named layouts on a 272-PU Xeon
 * Phi-like machine and a 2-socket one, intersection with -C, user masks and
 * every error with its message, node[] and thread_of(); plus "numa" on the
 * host.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "precord/stream-layout.h"
#include "helpers.h"

/* A CPU list as a map, parsed against 0..4095 so it never depends on the host. */
static struct cpu_map *cpus_of(const char *list)
{
	struct cpu_map *all, *map = NULL;
	int i, *nums = malloc(sizeof(int) * 4096);

	assert_non_null(nums);
	for (i = 0; i < 4096; i++)
		nums[i] = i;
	all = cpu_map__new_from(nums, 4096);
	free(nums);
	assert_non_null(all);
	assert_int_equal(cpu_map__parse_within(list, all, &map, NULL), 0);
	cpu_map__put(all);
	return map;
}

/* Build spec on topo for the CPUs in list; must succeed. */
static struct stream_layout *layout_of(const char *spec, const struct topology *topo,
				       const char *list)
{
	struct cpu_map *cpus = cpus_of(list);
	struct stream_layout *layout = NULL;
	char err[256] = "";
	int ret;

	ret = layout__new(spec, topo, cpus, &layout, err, sizeof(err));
	if (ret)
		print_error("layout__new(%s, %s): %d %s\n", spec ? spec : "NULL", list, ret, err);
	assert_int_equal(ret, 0);
	assert_string_equal(err, "");
	assert_non_null(layout);
	cpu_map__put(cpus);
	return layout;
}

/*
 * layout_of() whose threads are exactly `want`: one CPU list per thread,
 * space-separated, each with "@node" when its node[] is checked too
 * ("0-1@5 2-3@3"). Returns the layout for any further checks.
 */
static struct stream_layout *layout_expect(const char *spec, const struct topology *topo,
					   const char *list, const char *want)
{
	struct stream_layout *layout = layout_of(spec, topo, list);
	char buf[256], *save = NULL, *tok;
	int t = 0;

	assert_true(strlen(want) < sizeof(buf));
	strcpy(buf, want);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save), t++) {
		char *at = strchr(tok, '@');

		if (at)
			*at++ = '\0';
		assert_true(t < layout->nr);
		assert_cpu_list(layout->maps[t], tok);
		if (at)
			assert_int_equal(layout->node[t], atoi(at));
	}
	assert_int_equal(layout->nr, t);
	return layout;
}

/* spec must fail with -EINVAL and exactly msg, leaving the layout NULL. */
static void assert_layout_error(const char *spec, const struct topology *topo,
				const char *list, const char *msg)
{
	struct stream_layout *layout = (struct stream_layout *)&layout;
	struct cpu_map *cpus = cpus_of(list);
	char err[256] = "";

	assert_int_equal(layout__new(spec, topo, cpus, &layout, err, sizeof(err)), -EINVAL);
	assert_null(layout);
	assert_string_equal(err, msg);
	cpu_map__put(cpus);
}

/* maps == affinity for every thread (named layouts). */
static void assert_affinity_is_maps(const struct stream_layout *layout)
{
	char a[4096], b[4096];
	int t;

	for (t = 0; t < layout->nr; t++) {
		cpu_map__snprintf(layout->maps[t], a, sizeof(a));
		cpu_map__snprintf(layout->affinity[t], b, sizeof(b));
		assert_string_equal(a, b);
	}
}

/* thread_of agrees with maps for every CPU below max, -1 off the layout. */
static void assert_thread_of_consistent(const struct stream_layout *layout, int max)
{
	int cpu, t, owner;

	for (cpu = 0; cpu < max; cpu++) {
		owner = -1;
		for (t = 0; t < layout->nr; t++) {
			if (cpu_map__has(layout->maps[t], (struct cpu){ cpu })) {
				assert_int_equal(owner, -1);	/* one owner at most */
				owner = t;
			}
		}
		assert_int_equal(layout__thread_of(layout, (struct cpu){ cpu }), owner);
	}
	assert_int_equal(layout__thread_of(layout, (struct cpu){ -1 }), -1);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ max + 1000 }), -1);
}

static int phi_setup(void **state)
{
	*state = topology__new_synthetic(TEST_PHI_DESC);
	return *state ? 0 : -1;
}

static int topo_teardown(void **state)
{
	topology__delete(*state);
	return 0;
}

/* ---- named layouts on the whole Xeon Phi --------------------------------- */

static void test_phi_numa(void **state)
{
	struct stream_layout *layout = layout_of("numa", *state, "0-271");
	int node, cpu;

	assert_int_equal(layout->nr, 4);
	for (node = 0; node < 4; node++) {
		int cpus[68];

		test_phi_node_cpus(node, cpus);
		assert_cpu_map(layout->maps[node], cpus, 68);
		assert_int_equal(layout->node[node], node);
	}
	assert_cpu_list(layout->maps[1], "17-33,85-101,153-169,221-237");
	assert_affinity_is_maps(layout);
	for (cpu = 0; cpu < TEST_PHI_CPUS; cpu++)
		assert_int_equal(layout__thread_of(layout, (struct cpu){ cpu }), (cpu % 68) / 17);
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);
}

static void test_phi_core(void **state)
{
	struct stream_layout *layout = layout_of("core", *state, "0-271");
	int c, cpu;

	assert_int_equal(layout->nr, 68);
	for (c = 0; c < 68; c++) {
		int cpus[4] = { c, c + 68, c + 136, c + 204 };

		assert_cpu_map(layout->maps[c], cpus, 4);
		assert_int_equal(layout->node[c], c / 17);
	}
	assert_affinity_is_maps(layout);
	for (cpu = 0; cpu < TEST_PHI_CPUS; cpu++)
		assert_int_equal(layout__thread_of(layout, (struct cpu){ cpu }), cpu % 68);
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);
}

static void test_phi_cpu(void **state)
{
	struct stream_layout *layout = layout_of("cpu", *state, "0-271");
	int cpu;

	assert_int_equal(layout->nr, TEST_PHI_CPUS);
	for (cpu = 0; cpu < TEST_PHI_CPUS; cpu++) {
		assert_cpu_map(layout->maps[cpu], &cpu, 1);
		assert_int_equal(layout->node[cpu], (cpu % 68) / 17);
		assert_int_equal(layout__thread_of(layout, (struct cpu){ cpu }), cpu);
	}
	assert_affinity_is_maps(layout);
	layout__delete(layout);
}

static void test_phi_package(void **state)
{
	struct stream_layout *layout = layout_of("package", *state, "0-271");

	assert_int_equal(layout->nr, 1);
	assert_cpu_list(layout->maps[0], "0-271");
	assert_cpu_list(layout->affinity[0], "0-271");
	assert_int_equal(layout->node[0], -1);		/* spans the 4 nodes */
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);
}

/* NULL and "" are "cpu"; names match like perf's (prefix, any case);
 * "socket" is package. */
static void test_spec_names(void **state)
{
	static const struct {
		const char	*spec;
		int		nr;
	} cases[] = {
		{ NULL, 272 }, { "", 272 }, { "CPU", 272 }, { "Core", 68 },
		{ "cores", 68 }, { "PACKAGE", 1 }, { "socket", 1 }, { "numa", 4 },
		{ "NUMA", 4 },
	};
	struct stream_layout *layout;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		layout = layout_of(cases[i].spec, *state, "0-271");
		assert_int_equal(layout->nr, cases[i].nr);
		layout__delete(layout);
	}
}

/*
 * adaptive[:MAX]: numa's threads, marked adaptive, each allowed up to MAX
 * threads on its node or one per recorded CPU there; other layouts are
 * fixed (one thread each).
 */
static void test_phi_adaptive(void **state)
{
	static const char *const bad_max[] = {
		"adaptive:0", "adaptive:", "adaptive:4x", "adaptive-2", "adaptive:-3",
		"adaptive:99999999999",
	};
	struct stream_layout *layout, *numa;
	char a[4096], b[4096];
	int t;

	layout = layout_of("adaptive", *state, "0-271");
	numa = layout_of("numa", *state, "0-271");
	assert_true(layout->adaptive);
	assert_false(numa->adaptive);
	assert_int_equal(layout->nr, numa->nr);
	for (t = 0; t < layout->nr; t++) {
		cpu_map__snprintf(layout->maps[t], a, sizeof(a));
		cpu_map__snprintf(numa->maps[t], b, sizeof(b));
		assert_string_equal(a, b);
		assert_int_equal(layout->node[t], numa->node[t]);
		assert_int_equal(layout__max_threads_of(layout, t), 68);
		assert_int_equal(layout__max_threads_of(numa, t), 1);
	}
	assert_affinity_is_maps(layout);
	layout__delete(layout);
	layout__delete(numa);

	layout = layout_of("ADAPTIVE:16", *state, "0-271");
	assert_true(layout->adaptive);
	assert_int_equal(layout->adapt_max, 16);
	assert_int_equal(layout__max_threads_of(layout, 3), 16);
	layout__delete(layout);

	/* -C: each node's bound is its recorded CPUs; a node without any has no thread. */
	layout = layout_of("adaptive:8", *state, "0-3,17");
	assert_int_equal(layout->nr, 2);
	assert_int_equal(layout__max_threads_of(layout, 0), 4);
	assert_int_equal(layout__max_threads_of(layout, 1), 1);
	assert_int_equal(layout__max_threads_of(layout, 2), 1);	/* no such thread */
	layout__delete(layout);

	for (t = 0; t < (int)(sizeof(bad_max) / sizeof(bad_max[0])); t++) {
		char msg[256];

		snprintf(msg, sizeof(msg), "Invalid --threads=%s: adaptive takes the most threads "
			 "per NUMA node, as adaptive:N with N 1 or more", bad_max[t]);
		assert_layout_error(bad_max[t], *state, "0-271", msg);
	}
}

/* ---- intersection with -C ------------------------------------------------ */

static void test_phi_intersect(void **state)
{
	struct stream_layout *layout;

	/* CPU 100 is core 32, node 1; nodes 2 and 3 hold nothing recorded. */
	layout = layout_expect("numa", *state, "0-3,100", "0-3@0 100@1");
	assert_affinity_is_maps(layout);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 100 }), 1);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 4 }), -1);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 68 }), -1);
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);

	layout = layout_expect("core", *state, "0-3,100", "0@0 1@0 2@0 3@0 100@1");
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);

	/* Two threads of one core: one group. */
	layout = layout_expect("core", *state, "5,73,200", "5,73@0 200@3");	/* 200: core 64 */
	layout__delete(layout);

	layout = layout_expect("cpu", *state, "0-3,100", "0@0 1@0 2@0 3@0 100@1");
	assert_thread_of_consistent(layout, TEST_PHI_CPUS);
	layout__delete(layout);

	layout__delete(layout_expect("package", *state, "0-3,100", "0-3,100@-1"));

	/* A whole node recorded: its thread's node is that node. */
	layout__delete(layout_expect("package", *state, "17-33,85-101,153-169,221-237",
				     "17-33,85-101,153-169,221-237@1"));
}

static void test_two_sockets(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 core:64 pu:1");
	struct stream_layout *layout;

	assert_non_null(topo);
	/* one NUMA node for the machine */
	layout = layout_expect("package", topo, "0-127", "0-63@0 64-127@0");
	assert_affinity_is_maps(layout);
	assert_thread_of_consistent(layout, 128);
	layout__delete(layout);

	layout__delete(layout_expect("socket", topo, "60-70", "60-63 64-70"));

	layout = layout_expect("package", topo, "100", "100");
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 100 }), 0);
	layout__delete(layout);

	layout__delete(layout_expect("numa", topo, "0-127", "0-127"));
	topology__delete(topo);
}

/* node[] is the OS index of the node, not its rank. */
static void test_node_os_index(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 numa:1(indexes=5,3) core:2 pu:1");

	assert_non_null(topo);
	layout__delete(layout_expect("numa", topo, "0-3", "0-1@5 2-3@3"));

	layout__delete(layout_expect("0,2/0:1/1:3/3", topo, "0-3", "0,2@-1 1@5 3@3"));

	/* "cpu" follows the recorded CPUs even off the topology: no node. */
	layout__delete(layout_expect("cpu", topo, "1,9", "1@5 9@-1"));
	topology__delete(topo);
}

/* layout__fit_allowed() to the CPUs in `allowed` moves `moved` threads. */
static void assert_fit_allowed(struct stream_layout *layout, const struct topology *topo,
			       const char *allowed, int moved)
{
	struct cpu_map *cpus = cpus_of(allowed);

	assert_int_equal(layout__fit_allowed(layout, topo, cpus), moved);
	cpu_map__put(cpus);
}

/*
 * A cpuset or taskset that forbids a thread its own CPUs: it runs on the
 * allowed CPUs nearest to them (the same package before the other one), and
 * drains the same rings; a thread with allowed CPUs of its own keeps those.
 */
static void test_fit_allowed(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 numa:2 core:2 pu:1");
	struct stream_layout *layout;

	assert_non_null(topo);
	layout = layout_of("numa", topo, "0-7");
	assert_int_equal(layout->nr, 4);
	assert_fit_allowed(layout, topo, "3,6", 2);
	assert_cpu_list(layout->affinity[0], "3");
	assert_true(layout->moved[0]);
	assert_cpu_list(layout->affinity[1], "3");
	assert_false(layout->moved[1]);
	assert_cpu_list(layout->affinity[2], "6");
	assert_true(layout->moved[2]);
	assert_cpu_list(layout->affinity[3], "6");
	assert_false(layout->moved[3]);
	assert_cpu_list(layout->maps[0], "0-1");
	assert_cpu_list(layout->maps[2], "4-5");
	layout__delete(layout);

	/* one CPU allowed, in the other package: every thread there */
	layout = layout_of("cpu", topo, "0-7");
	assert_fit_allowed(layout, topo, "5", 7);
	assert_cpu_list(layout->affinity[0], "5");
	assert_cpu_list(layout->affinity[5], "5");
	assert_false(layout->moved[5]);
	layout__delete(layout);

	/* a thread whose CPUs are partly allowed keeps the allowed part */
	layout = layout_of("numa", topo, "0-7");
	assert_fit_allowed(layout, topo, "1-2,4-7", 0);
	assert_cpu_list(layout->affinity[0], "1");
	assert_cpu_list(layout->affinity[1], "2");
	assert_cpu_list(layout->affinity[2], "4-5");
	layout__delete(layout);
	topology__delete(topo);
}

/* ---- user masks ----------------------------------------------------------- */

static int eight_setup(void **state)
{
	*state = topology__new_synthetic("pack:2 numa:1 core:4 pu:1");
	return *state ? 0 : -1;
}

static void test_user_masks(void **state)
{
	struct stream_layout *layout;

	/* perf's documented example. */
	/* no node: 0 is node 0, 4 is node 1 */
	layout = layout_expect("0,2-4/2-4:1,5-7/5-7", *state, "0-7", "0,2-4@-1 1,5-7@-1");
	assert_cpu_list(layout->affinity[0], "2-4");
	assert_cpu_list(layout->affinity[1], "5-7");
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 4 }), 0);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 1 }), 1);
	assert_thread_of_consistent(layout, 8);
	layout__delete(layout);

	layout__delete(layout_expect("0-3/0-3:4-7/4-7", *state, "0-7", "0-3@0 4-7@1"));

	/* CPUs not recorded are dropped while something is left. */
	layout = layout_expect("0-1,6/0,7:7,2/2-3", *state, "0-5", "0-1 2");
	assert_cpu_list(layout->affinity[0], "0");
	assert_cpu_list(layout->affinity[1], "2-3");
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 6 }), -1);
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 3 }), -1);
	layout__delete(layout);

	/* Empty elements are skipped, as perf's strtok does. */
	layout__delete(layout_expect(":0/0::1/1:", *state, "0-7", "0 1"));

	/* Maps may leave recorded CPUs to nobody; affinity may differ from maps. */
	layout = layout_expect("3/0", *state, "0-7", "3");
	assert_cpu_list(layout->affinity[0], "0");
	assert_int_equal(layout__thread_of(layout, (struct cpu){ 0 }), -1);
	layout__delete(layout);
}

static void test_user_errors(void **state)
{
	static const struct {
		const char	*spec;
		const char	*cpus;
		const char	*msg;
	} cases[] = {
		/* shape: checked before any CPU list, like perf */
		{ "0", "0-7", "Invalid thread maps or affinity specs" },
		{ "0/", "0-7", "Invalid thread maps or affinity specs" },
		{ "/0", "0-7", "Invalid thread maps or affinity specs" },
		{ "0/1/2", "0-7", "Invalid thread maps or affinity specs" },
		{ ":::", "0-7", "Invalid thread maps or affinity specs" },
		{ "abc/0:1", "0-7", "Invalid thread maps or affinity specs" },
		/* CPU lists */
		{ "abc/0", "0-7", "Failed to initialize maps thread mask: 'abc' is not a CPU list" },
		{ "0/x1", "0-7", "Failed to initialize affinity thread mask: 'x1' is not a CPU list" },
		{ "3-1/0", "0-7", "Failed to initialize maps thread mask: '3-1' is not a CPU list" },
		{ "0/0:2-9/2", "0-7", "Failed to initialize maps thread mask: CPU 8 does not exist "
		  "(CPUs 0-7); fix the --threads masks" },
		{ "0/200", "0-7", "Failed to initialize affinity thread mask: CPU 200 does not exist "
		  "(CPUs 0-7); fix the --threads masks" },
		/* empty after intersection with the recorded CPUs */
		{ "4-5/0", "0-3", "Empty maps mask: 4-5 (recorded CPUs: 0-3); give each thread a recorded CPU" },
		{ "0/6,7", "0-3", "Empty affinity mask: 6,7 (recorded CPUs: 0-3); give each thread a "
		  "recorded CPU" },
		{ "0/0:7/1", "0-3", "Empty maps mask: 7 (recorded CPUs: 0-3); give each thread a recorded CPU" },
		/* overlaps */
		{ "0-1/0:1-2/1", "0-7", "Intersecting maps mask: 1-2" },
		{ "0/0-1:1/1", "0-7", "Intersecting affinity mask: 1" },
		{ "0/0:1/1:2,0/2", "0-7", "Intersecting maps mask: 2,0" },
		/* overlap only in CPUs that are not recorded: fine in perf, see below */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_layout_error(cases[i].spec, *state, cases[i].cpus, cases[i].msg);
}

/*
 * Offline CPUs (a 4-node machine, CPU 3 and node 3's CPUs 6-7 offline, so
 * the recorded CPUs are the online ones): a named layout has no thread for
 * a node with no CPU online; a user mask naming an offline CPU is refused
 * with what to do, unlike one naming an online CPU outside -C (dropped, as
 * perf drops it), and a CPU beyond the machine does not exist.
 */
static void test_offline_cpus(void **state)
{
	struct topology *topo = topology__new_synthetic("pack:2 numa:2 core:2 pu:1");
	struct cpu_map *off = cpus_of("3,6-7"), *online, *present;
	/* masks naming an offline CPU, or one beyond the machine */
	static const struct {
		const char	*spec, *msg;
	} offline[] = {
		{ "3/3:0-2/0-2", "Failed to initialize maps thread mask: CPU 3 is offline "
		  "(online: 0-2,4-5); bring it online or leave it out of --threads" },
		{ "0-2/0-2:4-7/4-7", "Failed to initialize maps thread mask: CPUs 6-7 are offline "
		  "(online: 0-2,4-5); bring them online or leave them out of --threads" },
		{ "0-2/3", "Failed to initialize affinity thread mask: CPU 3 is offline "
		  "(online: 0-2,4-5); bring it online or leave it out of --threads" },
		{ "0/0:8/8", "Failed to initialize maps thread mask: CPU 8 does not exist "
		  "(CPUs 0-7); fix the --threads masks" },
	};
	struct stream_layout *layout;
	size_t i;

	assert_non_null(topo);
	assert_int_equal(topology__take_offline(topo, off), 0);
	online = topology__cpus(topo);
	present = topology__present_cpus(topo);
	assert_cpu_list(online, "0-2,4-5");
	assert_cpu_list(present, "0-7");
	assert_int_equal(topology__nr_groups(topo, TOPO_NUMA), 4);

	layout__delete(layout_expect("numa", topo, "0-2,4-5", "0-1 2 4-5"));

	for (i = 0; i < sizeof(offline) / sizeof(offline[0]); i++)
		assert_layout_error(offline[i].spec, topo, "0-2,4-5", offline[i].msg);
	/* online, not recorded (-C 0-2): dropped from the mask */
	layout = layout_of("0-2,4/0-2:5/5", topo, "0-2,5");
	assert_cpu_list(layout->maps[0], "0-2");
	layout__delete(layout);

	/* not every CPU may go */
	cpu_map__put(off);
	off = cpus_of("0-7");
	assert_int_equal(topology__take_offline(topo, off), -EINVAL);
	cpu_map__put(present);
	cpu_map__put(online);
	cpu_map__put(off);
	topology__delete(topo);
}

/* Overlap is judged after intersection, as perf's bitmaps do. */
static void test_user_overlap_unrecorded(void **state)
{
	layout__delete(layout_expect("0,5/0:1,5/1", *state, "0-3", "0 1"));
}

/* ---- other errors, arguments --------------------------------------------- */

static void test_other_errors(void **state)
{
	struct stream_layout *layout = (struct stream_layout *)&layout;
	struct cpu_map *any = cpu_map__new_any(), *cpus = cpus_of("0-7");
	char err[256];

	assert_non_null(any);
	assert_int_equal(layout__new("numa", *state, any, &layout, err, sizeof(err)), -EINVAL);
	assert_null(layout);
	assert_string_equal(err,
		"--per-thread option is mutually exclusive to parallel streaming mode.");

	/* No recorded CPU on the topology: no thread at all. */
	assert_layout_error("numa", *state, "20-21",
		"No streaming thread for --threads=numa: no recorded CPU is in its groups");
	assert_layout_error("core", *state, "20",
		"No streaming thread for --threads=core: no recorded CPU is in its groups");

	/* NULL arguments; err may be NULL or short. */
	layout = (struct stream_layout *)&layout;
	assert_int_equal(layout__new("numa", NULL, cpus, &layout, NULL, 0), -EINVAL);
	assert_null(layout);
	layout = (struct stream_layout *)&layout;
	assert_int_equal(layout__new("numa", *state, NULL, &layout, NULL, 0), -EINVAL);
	assert_null(layout);
	assert_int_equal(layout__new("numa", *state, cpus, NULL, NULL, 0), -EINVAL);
	assert_int_equal(layout__new("9/9", *state, cpus, &layout, err, 6), -EINVAL);
	assert_string_equal(err, "Faile");

	layout__delete(NULL);
	assert_int_equal(layout__thread_of(NULL, (struct cpu){ 0 }), -1);
	cpu_map__put(cpus);
	cpu_map__put(any);
}

/* ---- the host ------------------------------------------------------------- */

/* Every online CPU in exactly one thread, one thread per node with CPUs
 * (this machine: 1 node, so 1 thread with every CPU). */
static void test_host_numa(void **state)
{
	struct topology *topo = topology__new();
	struct cpu_map *online = cpu_map__new_online(), *group, *both;
	struct stream_layout *layout = NULL;
	int i, nodes = 0, total = 0;
	char err[256] = "";

	(void)state;
	assert_non_null(topo);
	assert_non_null(online);
	for (i = 0; i < topology__nr_groups(topo, TOPO_NUMA); i++) {
		group = topology__group_cpus(topo, TOPO_NUMA, i);
		both = cpu_map__intersect(group, online);
		nodes += both->nr > 0;
		cpu_map__put(both);
		cpu_map__put(group);
	}
	assert_int_equal(layout__new("numa", topo, online, &layout, err, sizeof(err)), 0);
	assert_int_equal(layout->nr, nodes);
	for (i = 0; i < layout->nr; i++) {
		total += layout->maps[i]->nr;
		assert_true(layout->node[i] >= 0);
	}
	assert_int_equal(total, online->nr);
	for (i = 0; i < online->nr; i++)
		assert_true(layout__thread_of(layout, online->map[i]) >= 0);
	if (nodes == 1) {
		char a[4096], b[4096];

		cpu_map__snprintf(layout->maps[0], a, sizeof(a));
		cpu_map__snprintf(online, b, sizeof(b));
		assert_string_equal(a, b);
	}
	layout__delete(layout);
	cpu_map__put(online);
	topology__delete(topo);
}

#define phi_test(f)	cmocka_unit_test_setup_teardown(f, phi_setup, topo_teardown)
#define eight_test(f)	cmocka_unit_test_setup_teardown(f, eight_setup, topo_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		phi_test(test_phi_numa),
		phi_test(test_phi_core),
		phi_test(test_phi_cpu),
		phi_test(test_phi_package),
		phi_test(test_spec_names),
		phi_test(test_phi_adaptive),
		phi_test(test_phi_intersect),
		cmocka_unit_test(test_two_sockets),
		cmocka_unit_test(test_node_os_index),
		cmocka_unit_test(test_fit_allowed),
		eight_test(test_user_masks),
		eight_test(test_user_errors),
		eight_test(test_user_overlap_unrecorded),
		eight_test(test_other_errors),
		cmocka_unit_test(test_offline_cpus),
		cmocka_unit_test(test_host_numa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
