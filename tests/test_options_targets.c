// SPDX-License-Identifier: GPL-2.0
/*
 * test_options_targets.c — perf record's options for whom to record and
 * what perf needs hardware for: -u and perf's target overrides, -G tied to
 * the -e before it, --exclude-perf with --filter, -b and every -j filter
 * name of perf 6.1 (and the names it lacks), the AUX area options, --off-cpu
 * and the clang options; each bad input refused with one line.
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

#include "precord/options.h"
#include "helpers.h"

/* Every parse here quiet: perf's notes are not what these tests look at. */
#undef PARSE
#define PARSE(p, ...)	parsed__parse(p, (const char *const[]){ "-q", __VA_ARGS__, NULL })

static void assert_refused(struct parsed *p, const char *words)
{
	assert_int_equal(p->ret, -EINVAL);
	if (!strstr(p->err, words))
		fail_msg("error '%s' lacks '%s'", p->err, words);
	assert_null(strchr(p->err, '\n'));
}

/* ---- -b, -j ---------------------------------------------------------------- */

/* perf 6.1's parse_branch_str() table, name by name. */
static const struct {
	const char	*name;
	u64		bits;
} branch_names[] = {
	{ "any",	PERF_SAMPLE_BRANCH_ANY },
	{ "any_call",	PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret",	PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call",	PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx",	PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx",	PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx",	PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond",	PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp",	PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call",	PERF_SAMPLE_BRANCH_CALL },
	{ "save_type",	PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack",	PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "priv",	PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

static void test_branch_filter_names(void **state)
{
	struct parsed *p = *state;
	char arg[64];
	size_t i;

	for (i = 0; i < sizeof(branch_names) / sizeof(branch_names[0]); i++) {
		PARSE(p, "-j", branch_names[i].name);
		parsed__assert_ok(p);
		assert_int_equal(p->opts.branch_stack, branch_names[i].bits);
		/* with a privilege level, in any case, as perf's strcasecmp() */
		snprintf(arg, sizeof(arg), "u,%s,K", branch_names[i].name);
		PARSE(p, "-j", arg);
		parsed__assert_ok(p);
		assert_int_equal(p->opts.branch_stack, branch_names[i].bits |
				 PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL);
	}
	/* privilege levels alone: any branch, and only that (perf drops the levels) */
	PARSE(p, "--branch-filter=u,k,hv");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	PARSE(p, "-jany_call,u");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.branch_stack,
			 PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER);
}

/* Names of later kernels' branch filters that perf 6.1's -j refuses. */
static void test_branch_filter_refused(void **state)
{
	static const char *const bad[] = {
		"hw_index", "no_cycles", "no_flags", "counter", "bogus", "",
	};
	struct parsed *p = *state;
	char words[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		PARSE(p, "-j", bad[i]);
		snprintf(words, sizeof(words), "unknown branch filter %s, check man page", bad[i]);
		assert_refused(p, words);
	}
	PARSE(p, "-j", "any,hw_index,u");
	assert_refused(p, "unknown branch filter hw_index, check man page");
	PARSE(p, "-j", "any,,u");
	assert_refused(p, "unknown branch filter , check man page");
	PARSE(p, "-j");
	assert_refused(p, "requires a value");
}

static void test_branch_any(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-b");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	PARSE(p, "-ab");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_int_equal(p->opts.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	PARSE(p, "--no-branch-any");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.branch_stack, 0);
	PARSE(p, "-b", "-j", "any");
	assert_refused(p, "Can't use --branch-any (-b) with --branch-filter (-j)");
	PARSE(p, "-j", "any", "-j", "u");
	assert_refused(p, "Can't use --branch-any (-b) with --branch-filter (-j)");
}

/* ---- -u and perf's target overrides ------------------------------------------- */

static void test_uid(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-u", "nobody", "--", "sleep", "1");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.uid_str, "nobody");
	assert_false(p->opts.system_wide);
	/* a user is a target: no system-wide default without a command */
	PARSE(p, "--uid=0");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.uid_str, "0");
	assert_false(p->opts.system_wide);
	assert_string_equal(p->opts.notes, "");

	PARSE(p, "-u", "root", "-a");
	parsed__assert_ok(p);
	assert_false(p->opts.system_wide);
	assert_string_equal(p->opts.notes, "Warning: UID switch overriding SYSTEM\n");
	PARSE(p, "-u", "root", "-C", "0", "-a");
	parsed__assert_ok(p);
	assert_null(p->opts.cpu_list);
	assert_false(p->opts.system_wide);
	assert_string_equal(p->opts.notes, "Warning: UID switch overriding CPU\n");
	PARSE(p, "-u", "root", "-p", "1");
	parsed__assert_ok(p);
	assert_null(p->opts.uid_str);
	assert_string_equal(p->opts.notes, "Warning: PID/TID switch overriding UID\n");
	/* perf says the first override only */
	PARSE(p, "-p", "1", "-C", "0", "-a");
	parsed__assert_ok(p);
	assert_null(p->opts.cpu_list);
	assert_false(p->opts.system_wide);
	assert_string_equal(p->opts.notes, "Warning: PID/TID switch overriding CPU\n");
	PARSE(p, "-u", "");
	assert_refused(p, "invalid value '' for -u/--uid");
}

/* ---- -G ------------------------------------------------------------------------ */

static void test_cgroup(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a", "-e", "cpu-clock,task-clock", "-G", "a,b", "-e", "page-faults",
	      "--cgroup=c");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_cgroups, 2);
	assert_int_equal(p->opts.cgroups[0].event, 0);
	assert_string_equal(p->opts.cgroups[0].names, "a,b");
	assert_int_equal(p->opts.cgroups[1].event, 1);
	assert_string_equal(p->opts.cgroups[1].names, "c");
	/* no target and no command: system-wide, as perf */
	PARSE(p, "-e", "cpu-clock", "-G", "x");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);

	PARSE(p, "-a", "-G", "x", "-e", "cpu-clock");
	assert_refused(p, "must define events before cgroups");
	PARSE(p, "-e", "cpu-clock", "-G", "x", "--", "true");
	assert_refused(p, "cgroup monitoring only available in system-wide mode");
	PARSE(p, "-e", "cpu-clock", "-G", "x", "-C", "0");
	assert_refused(p, "cgroup monitoring only available in system-wide mode");
	PARSE(p, "-e", "cpu-clock", "-G", "", "-p", "1");
	assert_refused(p, "cgroup monitoring only available in system-wide mode");
}

/* ---- --exclude-perf -------------------------------------------------------------- */

static void test_exclude_perf(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-e", "sched:sched_switch", "--filter", "prev_pid != 0", "--exclude-perf",
	      "-e", "cpu-clock");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_filters, 2);
	assert_int_equal(p->opts.filters[0].event, 0);
	assert_string_equal(p->opts.filters[0].filter, "prev_pid != 0");
	assert_int_equal(p->opts.filters[1].event, 0);
	assert_null(p->opts.filters[1].filter);
	/* perf takes --no-exclude-perf as --exclude-perf */
	PARSE(p, "-e", "sched:sched_switch", "--no-exclude-perf");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_filters, 1);
	assert_null(p->opts.filters[0].filter);

	PARSE(p, "--exclude-perf", "-e", "sched:sched_switch");
	assert_refused(p, "--exclude-perf option should follow a -e tracepoint option");
	PARSE(p, "-e", "sched:sched_switch", "--exclude-perf=1");
	assert_refused(p, "takes no value");
}

/* ---- AUX area options ------------------------------------------------------------- */

static void test_aux_options(void **state)
{
	struct parsed *p = *state;
	long page = sysconf(_SC_PAGESIZE);

	PARSE(p, "-S");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.snapshot_opts, "");
	PARSE(p, "-S16");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.snapshot_opts, "16");
	PARSE(p, "--snapshot=e", "--no-snapshot");
	parsed__assert_ok(p);
	assert_null(p->opts.snapshot_opts);
	/* an optional value is attached: "-S e" is -S and the command e */
	PARSE(p, "-S", "e");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.snapshot_opts, "");
	assert_int_equal(p->opts.argc, 1);
	PARSE(p, "--aux-sample");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.aux_sample_opts, "");
	PARSE(p, "--aux-sample=8192");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.aux_sample_opts, "8192");

	/* -m DATA,AUX: perf's record__parse_mmap_pages() */
	PARSE(p, "-m", "16,32");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 16);
	assert_int_equal(p->opts.auxtrace_mmap_pages, 32);
	PARSE(p, "-m", ",32");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 0);
	assert_int_equal(p->opts.auxtrace_mmap_pages, 32);
	PARSE(p, "-m", "16,4M");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.auxtrace_mmap_pages, (4 << 20) / page);
	if (page == 4096) {
		PARSE(p, "-m", "16,33");
		parsed__assert_ok(p);
		assert_int_equal(p->opts.auxtrace_mmap_pages, 64);
		assert_string_equal(p->opts.notes, "rounding mmap pages size to 256K (64 pages)\n");
		/* an empty AUX size is 0 pages, rounded up to 1 as perf does */
		PARSE(p, "-m", "16,");
		parsed__assert_ok(p);
		assert_int_equal(p->opts.auxtrace_mmap_pages, 1);
		assert_string_equal(p->opts.notes, "rounding mmap pages size to 4K (1 pages)\n");
	}
	PARSE(p, "-m", "16,abc");
	assert_refused(p, "invalid value '16,abc' for -m/--mmap-pages");
	PARSE(p, "-m", "abc,16");
	assert_refused(p, "invalid value 'abc,16' for -m/--mmap-pages");
}

/* ---- --off-cpu, --clang-path, --clang-opt ----------------------------------------- */

static void test_bpf_options(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "--off-cpu");
	parsed__assert_ok(p);
	assert_true(p->opts.off_cpu);
	/* said even with -q, as perf says it: scripts look for BUILD_BPF_SKEL */
	assert_non_null(strstr(p->opts.warnings, "Warning: option `off-cpu' is being ignored"));
	assert_non_null(strstr(p->opts.warnings, "BUILD_BPF_SKEL"));
	assert_string_equal(p->opts.notes, "");
	PARSE(p, "--off-cpu", "--no-off-cpu");
	parsed__assert_ok(p);
	assert_false(p->opts.off_cpu);
	PARSE(p, "--clang-path=/usr/bin/clang", "--clang-opt", "-O2 -g");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.clang_path, "/usr/bin/clang");
	assert_string_equal(p->opts.clang_opt, "-O2 -g");
	assert_string_equal(p->opts.notes, "");
	PARSE(p, "--clang-path");
	assert_refused(p, "'--clang-path' requires a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		parsed_test(test_branch_filter_names),
		parsed_test(test_branch_filter_refused),
		parsed_test(test_branch_any),
		parsed_test(test_uid),
		parsed_test(test_cgroup),
		parsed_test(test_exclude_perf),
		parsed_test(test_aux_options),
		parsed_test(test_bpf_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
