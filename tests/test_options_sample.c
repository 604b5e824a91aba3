// SPDX-License-Identifier: GPL-2.0
/*
 * test_options_sample.c — perf record's options for what samples carry and
 * which tasks are recorded: every spelling landing in its field, the
 * negations perf takes, the registers of -I and --user-regs, --filter tied
 * to the -e before it, perf's rules after the options (-t records the
 * thread alone, --per-thread and --no-timestamp mean one file), and every
 * bad input refused with one line.
 */
#include <errno.h>
#include <fcntl.h>
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

/* x86-64: perf's PERF_REGS_MASK, every general register but DS, ES, FS, GS. */
#define ALL_REGS	0xff0fffULL

static void test_defaults(void **state)
{
	struct record_opts o;

	record_opts__init(&o);
	assert_true(o.sample_time);	/* perf records times unless told not to */
	assert_false(o.sample_time_set);
	assert_false(o.period_set);
	assert_false(o.sample_address);
	assert_false(o.inherit_stat);
	assert_false(o.no_samples);
	assert_false(o.raw_samples);
	assert_false(o.per_thread);
	assert_false(o.no_inherit_set);
	assert_int_equal(o.sample_intr_regs, 0);
	assert_int_equal(o.sample_user_regs, 0);
	assert_int_equal(o.nr_filters, 0);
	assert_null(o.filters);
	assert_true(record_opts__sample_time(&o));
	assert_false(record_opts__per_thread(&o));
	record_opts__exit(&o);
}

/* Every flag, by its short name, its long name and a prefix of it; --no-NAME undoes it. */
static void test_flags(void **state)
{
	static const struct {
		const char	*spellings[3];
		const char	*negation;
		size_t		field;
	} flags[] = {
		{ { "-d", "--data", "--data" }, "--no-data",
		  offsetof(struct record_opts, sample_address) },
		{ { "-s", "--stat", "--sta" }, "--no-stat",
		  offsetof(struct record_opts, inherit_stat) },
		{ { "-n", "--no-samples", "--no-samples" }, "--samples",
		  offsetof(struct record_opts, no_samples) },
		{ { "-R", "--raw-samples", "--raw" }, "--no-raw-samples",
		  offsetof(struct record_opts, raw_samples) },
		{ { "-W", "--weight", "--weig" }, "--no-weight",
		  offsetof(struct record_opts, sample_weight) },
		{ { "-N", "--no-buildid-cache", "--no-buildid-c" }, "--buildid-cache",
		  offsetof(struct record_opts, no_buildid_cache) },
		{ { "--sample-cpu", "--sample-c", "--sample-cp" }, "--no-sample-cpu",
		  offsetof(struct record_opts, sample_cpu) },
		{ { "--sample-identifier", "--sample-i", "--sample-id" }, "--no-sample-identifier",
		  offsetof(struct record_opts, sample_identifier) },
		{ { "--phys-data", "--phys", "--ph" }, "--no-phys-data",
		  offsetof(struct record_opts, sample_phys_addr) },
		{ { "--data-page-size", "--data-p", "--data-page" }, "--no-data-page-size",
		  offsetof(struct record_opts, sample_data_page_size) },
		{ { "--code-page-size", "--code", "--cod" }, "--no-code-page-size",
		  offsetof(struct record_opts, sample_code_page_size) },
		{ { "--transaction", "--trans", "--tr" }, "--no-transaction",
		  offsetof(struct record_opts, sample_transaction) },
		{ { "--running-time", "--running", "--ru" }, "--no-running-time",
		  offsetof(struct record_opts, running_time) },
		{ { "--all-user", "--all-u", "--all-us" }, "--no-all-user",
		  offsetof(struct record_opts, all_user) },
		{ { "--all-kernel", "--all-k", "--all-ker" }, "--no-all-kernel",
		  offsetof(struct record_opts, all_kernel) },
		{ { "--user-callchains", "--user-c", "--user-call" }, "--no-user-callchains",
		  offsetof(struct record_opts, user_callchains) },
		{ { "--kernel-callchains", "--kernel", "--ke" }, "--no-kernel-callchains",
		  offsetof(struct record_opts, kernel_callchains) },
		{ { "--all-cgroups", "--all-cg", "--all-cgr" }, "--no-all-cgroups",
		  offsetof(struct record_opts, record_cgroup) },
		{ { "--namespaces", "--names", "--na" }, "--no-namespaces",
		  offsetof(struct record_opts, record_namespaces) },
		{ { "--per-thread", "--per-", "--per-t" }, "--no-per-thread",
		  offsetof(struct record_opts, per_thread) },
		{ { "--strict-freq", "--strict", "--stri" }, "--no-strict-freq",
		  offsetof(struct record_opts, strict_freq) },
	};
	struct parsed *p = *state;
	size_t i, j;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		for (j = 0; j < 3; j++) {
			PARSE(p, flags[i].spellings[j]);
			parsed__assert_ok(p);
			if (!*(bool *)((char *)&p->opts + flags[i].field))
				fail_msg("%s did not set its field", flags[i].spellings[j]);
		}
		PARSE(p, flags[i].spellings[0], flags[i].negation);
		parsed__assert_ok(p);
		if (*(bool *)((char *)&p->opts + flags[i].field))
			fail_msg("%s did not undo %s", flags[i].negation, flags[i].spellings[0]);
	}
	/* clustered with the others */
	PARSE(p, "-adsRW");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_true(p->opts.sample_address);
	assert_true(p->opts.inherit_stat);
	assert_true(p->opts.raw_samples);
	assert_true(p->opts.sample_weight);
}

/* -P and -T: perf keeps whether they were given, and --no-period/--no-timestamp count. */
static void test_period_and_timestamp(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-P");
	parsed__assert_ok(p);
	assert_true(p->opts.period);
	assert_true(p->opts.period_set);
	PARSE(p, "--no-period");
	parsed__assert_ok(p);
	assert_false(p->opts.period);
	assert_true(p->opts.period_set);
	PARSE(p, "-a");
	parsed__assert_ok(p);
	assert_false(p->opts.period_set);

	PARSE(p, "-T");
	parsed__assert_ok(p);
	assert_true(p->opts.sample_time);
	assert_true(p->opts.sample_time_set);
	assert_true(record_opts__sample_time(&p->opts));
	PARSE(p, "--timestamp");
	parsed__assert_ok(p);
	assert_true(p->opts.sample_time_set);
	PARSE(p, "--no-timestamp");
	parsed__assert_ok(p);
	assert_false(p->opts.sample_time);
	assert_true(p->opts.sample_time_set);
	assert_false(record_opts__sample_time(&p->opts));
	/* -R samples the time whatever -T says, as perf */
	PARSE(p, "--no-timestamp", "-R");
	parsed__assert_ok(p);
	assert_true(record_opts__sample_time(&p->opts));
}

/* -t records the thread alone unless -i/--inherit was given; -p inherits. */
static void test_tid_inherit(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-t", "123");
	parsed__assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_false(p->opts.no_inherit_set);

	PARSE(p, "-t", "123", "--inherit");
	parsed__assert_ok(p);
	assert_false(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);

	PARSE(p, "--no-no-inherit", "-t", "123");
	parsed__assert_ok(p);
	assert_false(p->opts.no_inherit);

	PARSE(p, "-t", "123", "-i");
	parsed__assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);

	PARSE(p, "-p", "123");
	parsed__assert_ok(p);
	assert_false(p->opts.no_inherit);

	PARSE(p, "-i");
	parsed__assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);
}

/* --per-thread: per-thread rings with a task target; perf ignores it with -a and -C. */
static void test_per_thread(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "--per-thread", "-p", "1");
	parsed__assert_ok(p);
	assert_true(record_opts__per_thread(&p->opts));
	assert_false(record_opts__sample_time(&p->opts));	/* no TIME, as perf */

	PARSE(p, "--per-thread", "-t", "1", "-T");
	parsed__assert_ok(p);
	assert_true(record_opts__per_thread(&p->opts));
	assert_true(record_opts__sample_time(&p->opts));

	PARSE(p, "--per-thread", "ls");
	parsed__assert_ok(p);
	assert_true(record_opts__per_thread(&p->opts));

	PARSE(p, "--per-thread", "-a", "ls");
	parsed__assert_ok(p);
	assert_false(record_opts__per_thread(&p->opts));
	assert_true(record_opts__sample_time(&p->opts));

	PARSE(p, "--per-thread", "-C", "0", "ls");
	parsed__assert_ok(p);
	assert_false(record_opts__per_thread(&p->opts));

	PARSE(p, "--per-thread");	/* no target, no command: system-wide */
	parsed__assert_ok(p);
	assert_false(record_opts__per_thread(&p->opts));

	/* -p wins over -a: per thread again */
	PARSE(p, "-q", "--per-thread", "-a", "-p", "1");
	parsed__assert_ok(p);
	assert_true(record_opts__per_thread(&p->opts));

	/* one streaming thread: --no-threads is fine, nothing to refuse */
	PARSE(p, "--per-thread", "--no-threads", "ls");
	parsed__assert_ok(p);
}

static void test_regs(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-I");
	parsed__assert_ok(p);
	/* every general register, and the XMM ones only where the PMU has them */
	assert_int_equal(p->opts.sample_intr_regs & 0xffffffffULL, ALL_REGS);

	PARSE(p, "-Iax,BX");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_intr_regs, 0x3);

	PARSE(p, "--intr-regs=ip,sp");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_intr_regs, 0x180);

	/* "-I ax": an optional value must be attached; "ax" is the command */
	PARSE(p, "-I", "ax");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_intr_regs & 0xffffffffULL, ALL_REGS);
	assert_int_equal(p->opts.argc, 1);

	PARSE(p, "--user-regs");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_user_regs, ALL_REGS);

	PARSE(p, "--user-regs=ip,sp");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_user_regs, 0x180);

	PARSE(p, "--user-regs=R15,flags,r8");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_user_regs, (1ULL << 23) | (1ULL << 9) | (1ULL << 16));

	PARSE(p, "-Iax", "--no-intr-regs");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.sample_intr_regs, 0);
}

/*
 * --help: the options precord takes, an optional value shown attached as
 * perf shows it, then every perf record option precord refuses, by name.
 */
static void test_help(void **state)
{
	static const char *const lines[] = {
		"    -d, --data            record the sample addresses\n",
		"    -I, --intr-regs[=<any register>]\n",
		"        --user-regs[=<any register>]\n",
		"        --aio[=<n>]       ",
		"        --per-thread      use per-thread mmaps\n",
		"        --filter <filter>\n",
		"        --synth <no|all|task|mmap|cgroup>\n",
		"        --buildid-all     Record build-id of all DSOs regardless of hits\n",
		"    -b, --branch-any      sample any taken branches\n",
		"    -u, --uid <user>      user to profile",
	};
	struct parsed *p = *state;
	char *out;
	size_t i;

	out = parsed__capture(p, 1, (const char *const[]){ "--help", NULL });
	assert_int_equal(p->ret, 1);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(out, lines[i]))
			fail_msg("--help lacks \"%s\"", lines[i]);
	/* every perf record option is taken: no list of refused ones */
	assert_null(strstr(out, "refuses"));
}

/* "-I?" and "--user-regs=?" list the registers (stderr, as perf) and stop as -h does. */
static void test_regs_list(void **state)
{
	struct parsed *p = *state;
	char *out;

	out = parsed__capture(p, 2, (const char *const[]){ "--user-regs=?", NULL });
	assert_int_equal(p->ret, 1);
	assert_string_equal(out, "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS "
			    "R8 R9 R10 R11 R12 R13 R14 R15 \n");
	out = parsed__capture(p, 2, (const char *const[]){ "-I?", NULL });
	assert_int_equal(p->ret, 1);
	assert_non_null(strstr(out, "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS "
			       "R8 R9 R10 R11 R12 R13 R14 R15 "));
	out = parsed__capture(p, 2, (const char *const[]){ "-Iax,?", NULL });
	assert_int_equal(p->ret, 1);
	assert_non_null(strstr(out, "available registers: AX "));
}

/* --filter belongs to the -e before it. */
static void test_filter(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-e", "sched:sched_switch", "--filter", "prev_pid == 0",
	      "-e", "cpu-clock", "-e", "raw_syscalls:*", "--filter=id == 1", "--filter", "id != 2");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_events, 3);
	assert_int_equal(p->opts.nr_filters, 3);
	assert_int_equal(p->opts.filters[0].event, 0);
	assert_string_equal(p->opts.filters[0].filter, "prev_pid == 0");
	assert_int_equal(p->opts.filters[1].event, 2);
	assert_string_equal(p->opts.filters[1].filter, "id == 1");
	assert_int_equal(p->opts.filters[2].event, 2);
	assert_string_equal(p->opts.filters[2].filter, "id != 2");
	/* the strings are the caller's argv */
	assert_ptr_equal(p->opts.filters[0].filter, p->argv[4]);
}

static void test_synth_cgroup(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "--synth=cgroup", "--all-cgroups");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.synth, SYNTH_CGROUP);
	assert_true(p->opts.record_cgroup);
	PARSE(p, "--all-cgroups");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.synth, SYNTH_ALL);
	assert_true((p->opts.synth & SYNTH_CGROUP) != 0);
}

static const struct bad_case bad_cases[] = {
	{ { "--filter", "x" }, "--filter option should follow a -e tracepoint or HW tracer option" },
	{ { "--filter", "x", "-e", "cpu-clock" }, "should follow a -e" },
	{ { "-e", "cpu-clock", "--filter" }, "'--filter' requires a value" },
	{ { "--all-user", "--all-kernel" }, "option '--all-kernel' cannot be used with '--all-user'" },
	{ { "--all-kernel", "--all-user" }, "cannot be used with" },
	{ { "-Ifoo" }, "unknown register \"foo\"; 'precord -I?' lists the registers" },
	{ { "-Iax,foo" }, "unknown register \"foo\"" },
	{ { "-Iax," }, "unknown register \"\"" },
	{ { "--user-regs=foo" }, "unknown register \"foo\"; 'precord --user-regs=?' lists" },
	{ { "--user-regs=" }, "unknown register \"\"" },
	/* segment registers are not in perf's mask, XMM only for -I */
	{ { "--user-regs=ds" }, "unknown register \"ds\"" },
	{ { "--user-regs=xmm0" }, "unknown register \"xmm0\"" },
	{ { "-Iax", "-Ibx" }, "-I/--intr-regs given twice" },
	{ { "--user-regs=ax", "--user-regs=bx" }, "--user-regs given twice" },
	{ { "--per-thread", "--threads=cpu", "ls" },
	  "--per-thread option is mutually exclusive to parallel streaming mode" },
	{ { "--per-thread", "--overwrite", "ls" }, "--overwrite needs the streaming threads' files" },
	{ { "--per-thread", "--switch-output", "ls" }, "--switch-output needs" },
	{ { "--per-thread", "--no-merge", "ls" }, "--no-merge needs" },
	{ { "--no-timestamp", "--threads" }, "--no-timestamp leaves nothing to merge" },
	{ { "--no-timestamp", "--overwrite" }, "which --no-timestamp cannot have" },
	{ { "--data=1" }, "'--data=1'" },
	/* as in perf, a prefix of two options names neither */
	{ { "--dat" }, "'--dat' is ambiguous" },
	{ { "--all-c" }, "'--all-c' is ambiguous" },
	{ { "--per" }, "'--per' is ambiguous" },
	{ { "-P1" }, "unknown option '-1'" },
};

static void test_bad_input(void **state)
{
	parsed__assert_bad(*state, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		parsed_test(test_flags),
		parsed_test(test_period_and_timestamp),
		parsed_test(test_tid_inherit),
		parsed_test(test_per_thread),
		parsed_test(test_regs),
		parsed_test(test_regs_list),
		parsed_test(test_help),
		parsed_test(test_filter),
		parsed_test(test_synth_cgroup),
		parsed_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
