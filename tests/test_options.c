// SPDX-License-Identifier: GPL-2.0
/*
 * test_options.c — the command line: perf record's defaults, every good
 * spelling of every option landing in the right field, the command split off
 * after the options, perf's target rules, -m sizes, --help, and every bad
 * input giving -EINVAL and one line that names the offending value.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/options.h"
#include "helpers.h"

/* ---- defaults ---------------------------------------------------------- */

static void test_defaults(void **state)
{
	struct parsed *p = *state;
	struct record_opts o;

	record_opts__init(&o);
	assert_int_equal(o.freq, 4000);
	assert_false(o.freq_set);
	assert_false(o.freq_max);
	assert_int_equal(o.count, 0);
	assert_string_equal(o.output, "perf.data");
	assert_true(o.buildid_mmap);
	assert_false(o.no_buildid);
	assert_int_equal(o.proc_map_timeout, 500);
	assert_int_equal(o.dwarf_stack_size, 8192);
	assert_int_equal(o.callgraph, CALLGRAPH_NONE);
	assert_int_equal(o.synth, SYNTH_ALL);
	assert_int_equal(o.mmap_pages, 0);
	assert_int_equal(o.delay_ms, 0);
	assert_int_equal(o.nr_events, 0);
	assert_null(o.events);
	assert_false(o.system_wide);
	assert_false(o.clockid_set);
	assert_int_equal(o.realtime_prio, 0);
	assert_int_equal(o.nr_threads_synthesize, 0);
	assert_string_equal(o.notes, "");
	record_opts__exit(&o);
	record_opts__exit(NULL);

	/* nothing on the line: perf's defaults, and system-wide as perf */
	PARSE0(p);
	parsed__assert_ok(p);
	assert_int_equal(p->opts.freq, 4000);
	assert_string_equal(p->opts.output, "perf.data");
	assert_true(p->opts.buildid_mmap);
	assert_int_equal(p->opts.proc_map_timeout, 500);
	assert_true(p->opts.system_wide);
	assert_int_equal(p->opts.argc, 0);
	assert_null(p->opts.argv[0]);
	assert_string_equal(p->err, "");
}

/* ---- good spellings ---------------------------------------------------- */

static void test_freq_spellings(void **state)
{
	static const char *const spellings[][3] = {
		{ "-F99" }, { "-F", "99" }, { "--freq=99" }, { "--freq", "99" },
		{ "--fr=99" }, { "--fre", "99" },
	};
	struct parsed *p = *state;
	size_t i;

	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		parsed__parse(p, spellings[i]);
		parsed__assert_ok(p);
		assert_int_equal(p->opts.freq, 99);
		assert_true(p->opts.freq_set);
		assert_false(p->opts.freq_max);
		assert_int_equal(p->opts.argc, 0);
	}
	PARSE(p, "-F", "max");
	parsed__assert_ok(p);
	assert_true(p->opts.freq_max);
	assert_true(p->opts.freq_set);
	PARSE(p, "--freq=MAX");
	parsed__assert_ok(p);
	assert_true(p->opts.freq_max);
	PARSE(p, "-F", "max", "-F", "1000");	/* the last one counts */
	parsed__assert_ok(p);
	assert_false(p->opts.freq_max);
	assert_int_equal(p->opts.freq, 1000);
}

static void test_events_accumulate(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-e", "cpu-clock", "-ecs", "--event=sched:*", "--event", "a,b:u", "--ev=x");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_events, 5);
	assert_string_equal(p->opts.events[0], "cpu-clock");
	assert_string_equal(p->opts.events[1], "cs");
	assert_string_equal(p->opts.events[2], "sched:*");
	assert_string_equal(p->opts.events[3], "a,b:u");
	assert_string_equal(p->opts.events[4], "x");
	/* the strings are the caller's argv, not copies */
	assert_ptr_equal(p->opts.events[0], p->argv[2]);
}

static void test_clustered_flags(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-ag");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_FP);

	PARSE(p, "-aF99");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_int_equal(p->opts.freq, 99);

	PARSE(p, "-vvv", "-qi");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.verbose, 3);
	assert_true(p->opts.quiet);
	assert_true(p->opts.no_inherit);

	PARSE(p, "-agc", "1000");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.count, 1000);

	PARSE(p, "-v", "--verbose", "-v");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.verbose, 3);
}

static void test_call_graph(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-g");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_FP);
	assert_int_equal(p->opts.max_stack, 0);

	PARSE(p, "--call-graph", "dwarf");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_DWARF);
	assert_int_equal(p->opts.dwarf_stack_size, 8192);

	PARSE(p, "--call-graph=dwarf,4096");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 4096);

	PARSE(p, "--call-graph=dwarf,13");	/* rounded up to 8 bytes, as perf */
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 16);

	PARSE(p, "--call-graph=dwarf,0x100");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 256);

	PARSE(p, "--call-graph=dwarf,65528");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 65528);

	PARSE(p, "--call-graph=dwarf,65521");	/* rounds up to the maximum */
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 65528);

	PARSE(p, "--call-graph=dwarf,");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.dwarf_stack_size, 8192);

	PARSE(p, "--call-graph", "fp,32");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_FP);
	assert_int_equal(p->opts.max_stack, 32);

	/* -g after --call-graph keeps the mode chosen, as perf */
	PARSE(p, "--call-graph", "dwarf", "-g");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_DWARF);
	PARSE(p, "-g", "--call-graph", "dwarf");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_DWARF);

	PARSE(p, "-g", "--no-call-graph");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.callgraph, CALLGRAPH_NONE);
}

static void test_count(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-c", "1000");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.count, 1000);
	assert_false(p->opts.freq_set);
	PARSE(p, "--count=0x10");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.count, 16);
	PARSE(p, "-c18446744073709551615");
	parsed__assert_ok(p);
	assert_true(p->opts.count == 18446744073709551615ULL);
}

static void test_mmap_pages_option(void **state)
{
	struct parsed *p = *state;
	long page = sysconf(_SC_PAGESIZE);

	PARSE(p, "-m", "16");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 16);
	assert_string_equal(p->opts.notes, "");

	PARSE(p, "-q", "-m", "3");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 4);
	assert_non_null(strstr(p->opts.notes, "rounding mmap pages size to "));
	assert_non_null(strstr(p->opts.notes, "(4 pages)"));
	if (page == 4096)
		assert_string_equal(p->opts.notes, "rounding mmap pages size to 16K (4 pages)\n");

	PARSE(p, "--mmap-pages=1M");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, (1 << 20) / page);

	PARSE(p, "-q", "-m4K,");		/* an empty AUX size is 0 pages, rounded to 1 */
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 4096 >= page ? 4096 / page : 1);
	assert_int_equal(p->opts.auxtrace_mmap_pages, 1);

	PARSE(p, "-m", "");			/* perf: an empty size keeps the default */
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_pages, 0);

	if (page == 4096) {
		PARSE(p, "-q", "-m", "200");
		parsed__assert_ok(p);
		assert_string_equal(p->opts.notes, "rounding mmap pages size to 1024K (256 pages)\n");
		PARSE(p, "-q", "-m", "1025K");
		parsed__assert_ok(p);
		assert_string_equal(p->opts.notes, "rounding mmap pages size to 2M (512 pages)\n");
	}
}

/* perf's rules for -m sizes, at 4 KiB and 16 KiB pages. */
static void test_parse_mmap_pages(void **state)
{
	static const struct {
		const char	*str;
		long		page_size;
		long		want;
	} cases[] = {
		{ "4K", 4096, 1 },	{ "1M", 4096, 256 },	{ "3", 4096, 4 },
		{ "1", 4096, 1 },	{ "0", 4096, 1 },	{ "0K", 4096, 1 },
		{ "5K", 4096, 2 },	{ "1025K", 4096, 512 },	{ "1B", 4096, 1 },
		{ "4097B", 4096, 2 },	{ "1G", 4096, 262144 },	{ "128", 4096, 128 },
		{ "129", 4096, 256 },	{ "2147483648", 4096, 2147483648L },
		{ "1M", 16384, 64 },	{ "16K", 16384, 1 },	{ "17K", 16384, 2 },
		{ "4k", 4096, -EINVAL },	{ "4KB", 4096, -EINVAL },
		{ "3x", 4096, -EINVAL },	{ "", 4096, -EINVAL },
		{ "-1", 4096, -EINVAL },	{ "K", 4096, -EINVAL },
		{ " 4", 4096, -EINVAL },	{ "0x10", 4096, -EINVAL },
		{ "4294967296", 4096, -ERANGE },	{ "2147483649", 4096, -ERANGE },
		{ "99999999999999999999", 4096, -ERANGE },
		{ "99999999999999G", 4096, -ERANGE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long got = parse_mmap_pages(cases[i].str, cases[i].page_size);

		if (got != cases[i].want)
			fail_msg("parse_mmap_pages(\"%s\", %ld) = %ld, want %ld", cases[i].str,
				 cases[i].page_size, got, cases[i].want);
	}
	assert_int_equal(parse_mmap_pages(NULL, 4096), -EINVAL);
	assert_int_equal(parse_mmap_pages("4", 0), -EINVAL);
}

static void test_flags(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-q", "--dry-run", "-B", "--switch-events", "-i", "-a");
	parsed__assert_ok(p);
	assert_true(p->opts.quiet);
	assert_true(p->opts.dry_run);
	assert_true(p->opts.no_buildid);
	assert_true(p->opts.switch_events);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.system_wide);

	PARSE(p, "--quiet", "--no-buildid", "--no-inherit", "--all-cpus");
	parsed__assert_ok(p);
	assert_true(p->opts.quiet);
	assert_true(p->opts.no_buildid);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.system_wide);

	/* negations, perf's way: --no-NAME, and NAME for a "no-" option */
	PARSE(p, "-B", "--buildid", "-i", "--inherit", "--switch-events", "--no-switch-events");
	parsed__assert_ok(p);
	assert_false(p->opts.no_buildid);
	assert_false(p->opts.no_inherit);
	assert_false(p->opts.switch_events);

	PARSE(p, "--no-buildid-mmap");
	parsed__assert_ok(p);
	assert_false(p->opts.buildid_mmap);
	PARSE(p, "--no-buildid-mmap", "--buildid-mmap");
	parsed__assert_ok(p);
	assert_true(p->opts.buildid_mmap);
}

/*
 * perf 6.1's end-of-run build ids: the table and the cache by default;
 * -N keeps the table; -B, an explicit --buildid-mmap and -z drop both;
 * --switch-output drops both unless -B or -N is negated.
 */
static void test_build_id_rules(void **state)
{
	struct parsed *p = *state;

	PARSE0(p);
	parsed__assert_ok(p);
	assert_false(p->opts.no_buildid);
	assert_false(p->opts.no_buildid_cache);
	assert_true(p->opts.buildid_mmap);	/* precord's default MMAP2 build ids stay */
	PARSE(p, "-N");
	parsed__assert_ok(p);
	assert_false(p->opts.no_buildid);
	assert_true(p->opts.no_buildid_cache);
	PARSE(p, "-B");
	parsed__assert_ok(p);
	assert_true(p->opts.no_buildid && p->opts.no_buildid_cache);
	PARSE(p, "--buildid-mmap");
	parsed__assert_ok(p);
	assert_true(p->opts.no_buildid && p->opts.no_buildid_cache);
	PARSE(p, "-z");
	parsed__assert_ok(p);
	assert_true(p->opts.no_buildid && p->opts.no_buildid_cache);
	PARSE(p, "--switch-output");
	parsed__assert_ok(p);
	assert_true(p->opts.no_buildid && p->opts.no_buildid_cache);
	PARSE(p, "--switch-output", "--no-no-buildid");
	parsed__assert_ok(p);
	assert_false(p->opts.no_buildid);
	PARSE(p, "--switch-output", "--no-no-buildid-cache");
	parsed__assert_ok(p);
	assert_false(p->opts.no_buildid || p->opts.no_buildid_cache);
	PARSE(p, "--buildid-all", "--no-bpf-event", "--kcore", "--vmlinux=/dev/null",
	      "--buildid-dir=/tmp/x");
	parsed__assert_ok(p);
	assert_true(p->opts.buildid_all && p->opts.no_bpf_event && p->opts.kcore);
	assert_string_equal(p->opts.vmlinux, "/dev/null");
	assert_string_equal(p->opts.buildid_dir, "/tmp/x");
	PARSE0(p);
	assert_false(p->opts.debuginfod_set);
	PARSE(p, "--debuginfod");
	assert_true(p->opts.debuginfod_set);
	assert_string_equal(p->opts.debuginfod, "system");
	PARSE(p, "--debuginfod=http://a http://b");
	assert_string_equal(p->opts.debuginfod, "http://a http://b");
	PARSE(p, "--debuginfod=x", "--no-debuginfod");
	assert_true(p->opts.debuginfod_set);
	assert_null(p->opts.debuginfod);
}

static void test_output(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-o", "out.data");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "out.data");
	PARSE(p, "--output=/tmp/x y.data");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "/tmp/x y.data");
	PARSE(p, "-oa.data", "-o", "b.data");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "b.data");
	assert_true(p->opts.output_set);
	/* perf's pipe mode: the stream to stdout */
	PARSE(p, "-o", "-");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "-");
	assert_true(p->opts.output_set);
	PARSE(p, "-o-", "--", "true");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "-");
	/* not given: the default, which set-up turns into a pipe when stdout is one */
	PARSE(p, "--", "true");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.output, "perf.data");
	assert_false(p->opts.output_set);
}

static void test_delay(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-D", "100");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.delay_ms, 100);
	PARSE(p, "-D", "-1");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.delay_ms, -1);
	PARSE(p, "-D-1");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.delay_ms, -1);
	assert_int_equal(p->opts.nr_delay_times, 0);
	/* ranges: on at the even times, off at the odd ones; the first is the delay */
	PARSE(p, "-D", "10-20,30-40");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_delay_times, 4);
	assert_int_equal(p->opts.delay_times[0], 10);
	assert_int_equal(p->opts.delay_times[1], 20);
	assert_int_equal(p->opts.delay_times[2], 30);
	assert_int_equal(p->opts.delay_times[3], 40);
	assert_int_equal(p->opts.delay_ms, 10);
	PARSE(p, "--delay= 0 - 5 ,6-7");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_delay_times, 4);
	assert_int_equal(p->opts.delay_ms, 0);
	assert_int_equal(p->opts.delay_times[1], 5);
	/* a later -D replaces the ranges */
	PARSE(p, "-D", "1-2", "-D", "50");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_delay_times, 0);
	assert_int_equal(p->opts.delay_ms, 50);
}

static void test_clockid(void **state)
{
	static const struct {
		const char	*name;
		int		id;
	} names[] = {
		{ "monotonic", CLOCK_MONOTONIC },	{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },		{ "boottime", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },			{ "mono", CLOCK_MONOTONIC },
		{ "raw", CLOCK_MONOTONIC_RAW },		{ "real", CLOCK_REALTIME },
		{ "boot", CLOCK_BOOTTIME },		{ "MONO", CLOCK_MONOTONIC },
		{ "MonoTonic_Raw", CLOCK_MONOTONIC_RAW }, { "CLOCK_TAI", CLOCK_TAI },
		{ "clock_boottime", CLOCK_BOOTTIME },	{ "7", 7 },
		{ "0", 0 },
	};
	struct parsed *p = *state;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		PARSE(p, "-k", names[i].name);
		parsed__assert_ok(p);
		assert_true(p->opts.clockid_set);
		if (p->opts.clockid != names[i].id)
			fail_msg("-k %s: clockid %d, want %d", names[i].name,
				 p->opts.clockid, names[i].id);
	}
	PARSE(p, "--clockid=raw");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.clockid, CLOCK_MONOTONIC_RAW);
	PARSE(p, "-kmono");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.clockid, CLOCK_MONOTONIC);
	PARSE(p, "-k", "mono", "--no-clockid");
	parsed__assert_ok(p);
	assert_false(p->opts.clockid_set);
}

static void test_realtime(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-r", "1");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.realtime_prio, 1);
	PARSE(p, "--realtime=99");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.realtime_prio, 99);
	PARSE(p, "-r50");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.realtime_prio, 50);
}

/* --threads[=SPEC] as perf's (no value: cpu); precord's default (NULL) means numa. */
static void test_threads(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a");
	parsed__assert_ok(p);
	assert_null(p->opts.threads_spec);
	assert_false(p->opts.no_threads);
	assert_false(p->opts.no_merge);
	assert_false(p->opts.no_realtime);

	PARSE(p, "--threads");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "cpu");
	PARSE(p, "--threads=");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "cpu");
	PARSE(p, "--threads=numa", "--no-merge", "--no-realtime");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "numa");
	assert_true(p->opts.no_merge);
	assert_true(p->opts.no_realtime);
	PARSE(p, "--threads=0-1/0-1:2/2");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "0-1/0-1:2/2");
	PARSE(p, "--threads=core", "--no-threads");
	parsed__assert_ok(p);
	assert_true(p->opts.no_threads);
	assert_null(p->opts.threads_spec);
	PARSE(p, "--mmap-output");
	parsed__assert_ok(p);
	assert_true(p->opts.mmap_output);
	PARSE(p, "--mmap-output", "--no-mmap-output", "--aio");
	parsed__assert_ok(p);
	assert_false(p->opts.mmap_output);
	assert_int_equal(p->opts.aio, 1);
	/* An optional value is never the next word: that starts the command. */
	PARSE(p, "--threads", "numa");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "cpu");
	assert_int_equal(p->opts.argc, 1);
	assert_string_equal(p->opts.argv[0], "numa");
}

/* -z[=N], --aio[=N], --mmap-flush=N: perf's spellings and defaults. */
static void test_writer_options(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.comp_level, 0);
	assert_int_equal(p->opts.aio, 0);
	assert_int_equal(p->opts.mmap_flush, 0);
	PARSE(p, "-z");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.comp_level, 1);
	PARSE(p, "-z3", "--aio");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.comp_level, 3);
	assert_int_equal(p->opts.aio, 1);
	PARSE(p, "--compression-level=22", "--aio=4", "--mmap-flush=64K");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.comp_level, 22);
	assert_int_equal(p->opts.aio, 4);
	assert_int_equal(p->opts.mmap_flush, 65536);
	/* any size, as perf: the rings cap it at a quarter of one */
	PARSE(p, "--mmap-flush=4G");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_flush, UINT_MAX);
	PARSE(p, "--mmap-flush", "4096", "-z", "--no-compression-level");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.mmap_flush, 4096);
	assert_int_equal(p->opts.comp_level, 0);
}

/* The flight recorder: perf's spellings and tags (switch_output_setup()). */
static void test_flight_recorder(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a");
	parsed__assert_ok(p);
	assert_false(p->opts.overwrite);
	assert_false(p->opts.switch_output);
	assert_null(p->opts.control);
	PARSE(p, "--overwrite", "--switch-output");
	parsed__assert_ok(p);
	assert_true(p->opts.overwrite);
	assert_true(p->opts.switch_output);
	assert_true(p->opts.switch_signal);
	PARSE(p, "--switch-output=signal", "--switch-max-files=3");
	parsed__assert_ok(p);
	assert_true(p->opts.switch_signal);
	assert_int_equal(p->opts.switch_max_files, 3);
	PARSE(p, "--switch-output=100M");
	parsed__assert_ok(p);
	assert_false(p->opts.switch_signal);
	assert_int_equal(p->opts.switch_size, 100ULL << 20);
	PARSE(p, "--switch-output=3B");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.switch_size, 3);
	PARSE(p, "--switch-output=2G");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.switch_size, 2ULL << 30);
	PARSE(p, "--switch-output=30s");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.switch_secs, 30);
	assert_int_equal(p->opts.switch_size, 0);
	PARSE(p, "--switch-output=2m");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.switch_secs, 120);
	PARSE(p, "--switch-output=1h", "--switch-output=1d");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.switch_secs, 86400);
	PARSE(p, "--switch-output=1M", "--no-switch-output");
	parsed__assert_ok(p);
	assert_false(p->opts.switch_output);
	assert_int_equal(p->opts.switch_size, 0);
	PARSE(p, "--control=fifo:/tmp/ctl,/tmp/ack", "--control", "fd:3");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.control, "fd:3");
	PARSE(p, "--overwrite", "--no-overwrite", "--no-threads");
	parsed__assert_ok(p);
	assert_false(p->opts.overwrite);
}

/* Output control: perf's parse_output_max_size(), record__parse_affinity(), the flags. */
static void test_output_control(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 0);
	assert_false(p->opts.timestamp_filename);
	assert_false(p->opts.tail_synthesize);
	assert_false(p->opts.no_buffering);
	assert_int_equal(p->opts.affinity, AFFINITY_SYS);
	assert_int_equal(p->opts.nr_sb_events, 0);
	PARSE(p, "--max-size=20K");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 20ULL << 10);
	PARSE(p, "--max-size", "3G");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 3ULL << 30);
	PARSE(p, "--max-size=10B");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 10);
	PARSE(p, "--max-size=1M", "--no-max-size");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 0);
	PARSE(p, "--max-size=0B");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.max_size, 0);
	PARSE(p, "--timestamp-filename", "--timestamp-boundary", "--tail-synthesize",
	      "--no-buffering");
	parsed__assert_ok(p);
	assert_true(p->opts.timestamp_filename);
	assert_true(p->opts.timestamp_boundary);
	assert_true(p->opts.tail_synthesize);
	assert_true(p->opts.no_buffering);
	assert_false(p->opts.switch_output);
	/* --affinity: the layout it stands for */
	PARSE(p, "--affinity=node");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.affinity, AFFINITY_NODE);
	assert_string_equal(p->opts.threads_spec, "numa");
	PARSE(p, "--affinity=CPU");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.affinity, AFFINITY_CPU);
	assert_string_equal(p->opts.threads_spec, "cpu");
	/* perf's record__parse_affinity() leaves the value as it was on --no-affinity */
	PARSE(p, "--affinity=cpu", "--no-affinity");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.threads_spec, "cpu");
	/* a value perf ignores: ignored, with a note */
	PARSE(p, "--affinity=sys");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.affinity, AFFINITY_SYS);
	assert_null(p->opts.threads_spec);
	assert_non_null(strstr(p->opts.notes, "--affinity=sys is neither node nor cpu"));
	/* one thread anyway: no layout */
	PARSE(p, "--affinity=cpu", "--per-thread", "-p", "1");
	parsed__assert_ok(p);
	assert_null(p->opts.threads_spec);
	/* --switch-output-event: signal mode, the size or time dropped as perf drops it */
	PARSE(p, "--switch-output=1M", "--switch-output-event=sched:sched_switch",
	      "--switch-output-event", "syscalls:sys_enter_nanosleep");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.nr_sb_events, 2);
	assert_string_equal(p->opts.sb_events[1], "syscalls:sys_enter_nanosleep");
	assert_true(p->opts.switch_output);
	assert_true(p->opts.switch_signal);
	assert_int_equal(p->opts.switch_size, 0);
}

static void test_synth_and_synthesis(void **state)
{
	static const struct {
		const char	*arg;
		int		mode;
	} cases[] = {
		{ "--synth=no", SYNTH_NO },		{ "--synth=none", SYNTH_NO },
		{ "--synth=NO", SYNTH_NO },		{ "--synth=all", SYNTH_ALL },
		{ "--synth=task", SYNTH_TASK },
		/* "mmap" implies "task", as in perf */
		{ "--synth=mmap", SYNTH_TASK | SYNTH_MMAP },
		{ "--synth=task,mmap", SYNTH_TASK | SYNTH_MMAP },
		{ "--synth=Task", SYNTH_TASK },
		{ "--synth=task,no", SYNTH_NO },	{ "--synth=all,task", SYNTH_ALL },
		{ "--synth=cgroup", SYNTH_CGROUP },
		{ "--synth=cgroup,task", SYNTH_CGROUP | SYNTH_TASK },
		{ "--synth=task,mmap,cgroup", SYNTH_ALL },
	};
	struct parsed *p = *state;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(p, cases[i].arg);
		parsed__assert_ok(p);
		if ((int)p->opts.synth != cases[i].mode)
			fail_msg("%s: mode %d, want %d", cases[i].arg, p->opts.synth, cases[i].mode);
	}
	PARSE(p, "--synth", "task");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.synth, SYNTH_TASK);

	PARSE(p, "--proc-map-timeout=1000", "--num-thread-synthesize", "4");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.proc_map_timeout, 1000);
	assert_int_equal(p->opts.nr_threads_synthesize, 4);
}

static void test_targets(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-C", "0-1,3");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.cpu_list, "0-1,3");
	assert_false(p->opts.system_wide);	/* a CPU target is a target */

	PARSE(p, "-a", "-C", "0");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_string_equal(p->opts.cpu_list, "0");

	PARSE(p, "-p", "1,2");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.pid_list, "1,2");
	assert_false(p->opts.system_wide);

	PARSE(p, "--tid=3");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.tid_list, "3");
	assert_false(p->opts.system_wide);

	/* perf's target__validate(): -p/-t win over -a and -C, with a warning */
	PARSE(p, "-q", "-p", "1", "-a");
	parsed__assert_ok(p);
	assert_false(p->opts.system_wide);
	assert_non_null(strstr(p->opts.notes, "PID/TID switch overriding SYSTEM"));

	PARSE(p, "-q", "-t", "1", "-C", "0");
	parsed__assert_ok(p);
	assert_null(p->opts.cpu_list);
	assert_non_null(strstr(p->opts.notes, "PID/TID switch overriding CPU"));

	PARSE(p, "-q", "-p", "1", "-t", "2");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.pid_list, "1");
	assert_null(p->opts.tid_list);
	assert_non_null(strstr(p->opts.notes, "overriding -t/--tid 2"));

	/* a command together with -p is allowed, as in perf */
	PARSE(p, "-p", "1", "--", "sleep", "1");
	parsed__assert_ok(p);
	assert_string_equal(p->opts.pid_list, "1");
	assert_int_equal(p->opts.argc, 2);
	assert_false(p->opts.system_wide);
}

/* ---- the command after the options ------------------------------------- */

static void test_command_split(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-a", "--", "sleep", "1");
	parsed__assert_ok(p);
	assert_true(p->opts.system_wide);
	assert_int_equal(p->opts.argc, 2);
	assert_string_equal(p->opts.argv[0], "sleep");
	assert_string_equal(p->opts.argv[1], "1");
	assert_null(p->opts.argv[2]);

	/* the first non-option word starts the command; its options are its own */
	PARSE(p, "-F", "99", "ls", "-l");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.freq, 99);
	assert_false(p->opts.system_wide);
	assert_int_equal(p->opts.argc, 2);
	assert_string_equal(p->opts.argv[0], "ls");
	assert_string_equal(p->opts.argv[1], "-l");

	PARSE(p, "ls", "-F", "99");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.freq, 4000);
	assert_int_equal(p->opts.argc, 3);

	PARSE(p, "--");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.argc, 0);
	assert_true(p->opts.system_wide);

	PARSE(p, "--", "-a");
	parsed__assert_ok(p);
	assert_false(p->opts.system_wide);
	assert_int_equal(p->opts.argc, 1);
	assert_string_equal(p->opts.argv[0], "-a");

	PARSE(p, "-", "x");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.argc, 2);
	assert_string_equal(p->opts.argv[0], "-");

	PARSE(p, "--", "--", "x");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.argc, 2);
	assert_string_equal(p->opts.argv[0], "--");

	/* perf's subcommand spelling: "precord record ..." */
	PARSE(p, "record", "-F", "10", "--", "true");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.freq, 10);
	assert_int_equal(p->opts.argc, 1);
	assert_string_equal(p->opts.argv[0], "true");

	PARSE(p, "record");
	parsed__assert_ok(p);
	assert_int_equal(p->opts.argc, 0);
}

static void test_argv0_record(void **state)
{
	struct record_opts o;
	char *argv[] = { "record", "-a", "ls", NULL };
	char *argv2[] = { "record", "record", NULL };
	char err[128];

	record_opts__init(&o);
	assert_int_equal(record_opts__parse(&o, 3, argv, err, sizeof(err)), 0);
	assert_true(o.system_wide);
	assert_int_equal(o.argc, 1);
	assert_string_equal(o.argv[0], "ls");
	record_opts__exit(&o);

	/* argv[0] already "record": a second "record" is the command */
	record_opts__init(&o);
	assert_int_equal(record_opts__parse(&o, 2, argv2, err, sizeof(err)), 0);
	assert_int_equal(o.argc, 1);
	assert_string_equal(o.argv[0], "record");
	record_opts__exit(&o);

	/* argc 0 and no error buffer are handled */
	record_opts__init(&o);
	assert_int_equal(record_opts__parse(&o, 0, argv + 3, NULL, 0), 0);
	assert_int_equal(o.argc, 0);
	record_opts__exit(&o);
}

/* ---- output: --help on stdout, notes on stderr -------------------------- */

static void test_help(void **state)
{
	struct parsed *p = *state;
	char *out;

	out = parsed__capture(p, 1, (const char *const[]){ "-h", NULL });
	assert_int_equal(p->ret, 1);
	assert_non_null(strstr(out, "Usage: precord [record] [<options>]"));
	assert_non_null(strstr(out, "-F, --freq"));
	assert_non_null(strstr(out, "--call-graph"));
	assert_non_null(strstr(out, "-e, --event <event>"));
	assert_non_null(strstr(out, "--synth"));
	assert_non_null(strstr(out, "--threads"));
	assert_non_null(strstr(out, "--no-merge"));
	assert_non_null(strstr(out, "--compression-level"));

	parsed__capture(p, 1, (const char *const[]){ "--help", NULL });
	assert_int_equal(p->ret, 1);
	parsed__capture(p, 1, (const char *const[]){ "-ah", NULL });
	assert_int_equal(p->ret, 1);
	/* after the command, -h is the command's */
	parsed__capture(p, 1, (const char *const[]){ "ls", "-h", NULL });
	assert_int_equal(p->ret, 0);
}

static void test_notes_to_stderr(void **state)
{
	struct parsed *p = *state;
	char *out;

	out = parsed__capture(p, 2, (const char *const[]){ "-m", "3", "-p", "1", "-a", NULL });
	assert_int_equal(p->ret, 0);
	assert_non_null(strstr(out, "rounding mmap pages size to "));
	assert_non_null(strstr(out, "Warning: PID/TID switch overriding SYSTEM\n"));

	/* -q anywhere on the line silences them */
	out = parsed__capture(p, 2, (const char *const[]){ "-m", "3", "-p", "1", "-a", "-q", NULL });
	assert_int_equal(p->ret, 0);
	assert_string_equal(out, "");
	assert_non_null(strstr(p->opts.notes, "rounding"));

	/* and a failed parse prints nothing at all */
	out = parsed__capture(p, 2, (const char *const[]){ "-m", "3", "-F", "x", NULL });
	assert_int_equal(p->ret, -EINVAL);
	assert_string_equal(out, "");
}

/* ---- bad input --------------------------------------------------------- */

static const struct bad_case bad_cases[] = {
	/* numbers */
	{ { "-F", "abc" }, "'abc' for -F/--freq" },
	{ { "-F", "0" }, "'0' for -F/--freq" },
	{ { "-F", "-1" }, "'-1'" },
	{ { "-F", "99x" }, "'99x'" },
	{ { "-F", "" }, "'' for -F/--freq" },
	{ { "-F", "4294967296" }, "'4294967296'" },
	{ { "--freq= 9" }, "' 9'" },
	{ { "-c", "-5" }, "'-5' for -c/--count" },
	{ { "-c", "0" }, "'0' for -c/--count" },
	{ { "-c", "abc" }, "'abc'" },
	{ { "-c", "18446744073709551616" }, "'18446744073709551616'" },
	{ { "-c", "10", "-F", "10" }, "cannot set frequency (-F) and period (-c 10) at the same time" },
	{ { "-F", "max", "-c", "7" }, "(-c 7)" },
	{ { "-m", "3x" }, "'3x' for -m/--mmap-pages" },
	{ { "-m", "4k" }, "'4k'" },
	{ { "-m", "4KB" }, "'4KB'" },
	{ { "-m", "4294967296" }, "'4294967296'" },
	{ { "-m", "4,x" }, "invalid value '4,x' for -m/--mmap-pages" },
	{ { "-r", "200" }, "'200' for -r/--realtime" },
	{ { "-r", "0" }, "'0'" },
	{ { "-r", "x" }, "'x'" },
	{ { "-D", "x" }, "'x' for -D/--delay" },
	{ { "-D", "-5" }, "'-5'" },
	{ { "--delay=0" }, "'0' for -D/--delay" },
	{ { "-D", "20-10" }, "'20-10'" },
	{ { "-D", "10-20,20-30" }, "'10-20,20-30'" },
	{ { "-D", "10-20,15-30" }, "'10-20,15-30'" },
	{ { "-D", "10-20," }, "'10-20,'" },
	{ { "-D", "10-" }, "'10-'" },
	{ { "-D", "10-2147483648" }, "'10-2147483648'" },
	{ { "-D", "" }, "''" },
	{ { "--proc-map-timeout=x" }, "'x' for --proc-map-timeout" },
	{ { "--proc-map-timeout=0" }, "'0'" },
	{ { "--num-thread-synthesize=x" }, "'x' for --num-thread-synthesize" },
	{ { "--num-thread-synthesize", "0" }, "'0'" },
	/* call graphs */
	{ { "--call-graph", "dwarf,70000" }, "'dwarf,70000'" },
	{ { "--call-graph", "dwarf,65529" }, "'dwarf,65529'" },
	{ { "--call-graph", "dwarf,0" }, "'dwarf,0'" },
	{ { "--call-graph", "dwarf,x" }, "'dwarf,x'" },
	{ { "--call-graph", "lbr,8" }, "'lbr,8' for --call-graph" },
	{ { "--call-graph", "foo" }, "'foo'" },
	{ { "--call-graph", "DWARF" }, "'DWARF'" },
	{ { "--call-graph", "fp,x" }, "'fp,x'" },
	{ { "--call-graph", "" }, "'' for --call-graph" },
	{ { "--call-graph" }, "'--call-graph' requires a value" },
	/* names */
	{ { "-k", "nosuchclock" }, "'nosuchclock' for -k/--clockid" },
	{ { "-k", "-1" }, "'-1'" },
	{ { "-k", "CLOCK_" }, "'CLOCK_'" },
	{ { "-k", "mono", "-k", "raw" }, "'raw'" },
	{ { "-k", "99" }, "invalid value '99' for -k/--clockid: no such clock" },
	{ { "--synth=foo" }, "'foo' for --synth" },
	{ { "--synth=task,foo" }, "'task,foo'" },
	{ { "--synth=" }, "'' for --synth" },
	{ { "--synth=cgroup,foo" }, "'cgroup,foo'" },
	/* strings and lists */
	{ { "-e" }, "'-e/--event' requires a value" },
	{ { "-e", "" }, "'' for -e/--event" },
	{ { "-e", "  " }, "'  '" },
	{ { "--event=" }, "'' for -e/--event" },
	{ { "-o", "" }, "'' for -o/--output" },
	{ { "-o" }, "'-o/--output' requires a value" },
	{ { "-C", "1-" }, "CPU list '1-'" },
	{ { "-C", "a" }, "CPU list 'a'" },
	{ { "-C", "3-1" }, "CPU list '3-1'" },
	{ { "-C", "" }, "CPU list ''" },
	{ { "-p", "abc" }, "pid list 'abc'" },
	{ { "-p", "" }, "pid list ''" },
	{ { "-p", "-1" }, "'-1'" },
	{ { "-t", "1,,2" }, "tid list '1,,2'" },
	{ { "-F" }, "'-F/--freq' requires a value" },
	{ { "-a", "-m" }, "'-m/--mmap-pages' requires a value" },
	{ { "--mmap-pages" }, "'-m/--mmap-pages' requires a value" },
	/* options */
	{ { "--foo" }, "unknown option '--foo'; 'precord --help' lists the options" },
	{ { "--foo=1" }, "unknown option '--foo'" },
	{ { "-Z" }, "unknown option '-Z'; 'precord --help' lists the options" },
	{ { "-aZ" }, "unknown option '-Z'" },
	{ { "--no-freq" }, "unknown option '--no-freq'" },
	{ { "--=x" }, "unknown option '--'" },
	{ { "--aio=5" }, "invalid value '5' for --aio" },
	{ { "--aio=0" }, "invalid value '0' for --aio" },
	{ { "-z23" }, "invalid value '23' for -z/--compression-level" },
	{ { "--compression-level=x" }, "invalid value 'x'" },
	{ { "--mmap-flush=0" }, "invalid value '0' for --mmap-flush" },
	{ { "--mmap-flush=3X" }, "invalid value '3X' for --mmap-flush" },
	{ { "--vmlinux=/nonexistent/vmlinux" }, "invalid value '/nonexistent/vmlinux' for --vmlinux" },
	{ { "--buildid-dir=" }, "invalid value '' for --buildid-dir" },
	{ { "--switch-output=12" }, "invalid value '12' for --switch-output" },
	{ { "--switch-output=1x" }, "'1x'" },
	{ { "--switch-output=0s" }, "'0s'" },
	{ { "--switch-output=0M" }, "'0M'" },
	{ { "--switch-output=sig" }, "'sig'" },
	{ { "--switch-output=-1s" }, "'-1s'" },
	{ { "--switch-max-files=-1" }, "'-1' for --switch-max-files" },
	{ { "--switch-max-files" }, "requires a value" },
	{ { "--control=pipe:x" }, "'pipe:x' for --control" },
	{ { "--overwrite", "--no-threads" }, "--overwrite needs the streaming threads; drop --no-threads" },
	{ { "--mmap-output", "--aio=2" }, "--mmap-output and --aio are two ways to write the file; give one of them" },
	{ { "--switch-output", "--no-threads" }, "--switch-output needs the streaming threads" },
	{ { "--switch-output-event=", "-a" }, "invalid value '' for --switch-output-event" },
	{ { "--switch-output-event=x", "--no-threads" },
	  "--switch-output-event needs the streaming threads; drop --no-threads" },
	{ { "--max-size=10" }, "invalid value '10' for --max-size" },
	{ { "--max-size=0" }, "invalid value '0' for --max-size" },
	{ { "--max-size=10k" }, "invalid value '10k' for --max-size" },
	{ { "--max-size=10KB" }, "invalid value '10KB' for --max-size" },
	{ { "--max-size" }, "requires a value" },
	{ { "--affinity=cpu", "--threads" }, "--affinity option is mutually exclusive to parallel streaming mode" },
	{ { "--affinity=node", "--threads=numa" }, "--affinity option is mutually exclusive" },
	{ { "--no-threads", "--affinity=cpu" }, "--affinity option is mutually exclusive" },
	{ { "--affinity" }, "requires a value" },
	{ { "--sw" }, "option '--sw' is ambiguous" },
	{ { "--no-build" }, "'--no-build' is ambiguous" },
	{ { "--quiet=1" }, "'--quiet=1'" },
	{ { "--no-quiet=1" }, "'--no-quiet=1'" },
	{ { "--no-inherit=yes" }, "'--no-inherit=yes'" },
};

static void test_bad_input(void **state)
{
	parsed__assert_bad(*state, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

static void test_error_buffer_truncation(void **state)
{
	struct record_opts o;
	char *argv[] = { "precord", "--no-such-option-with-a-long-name", NULL };
	char err[16];

	record_opts__init(&o);
	assert_int_equal(record_opts__parse(&o, 2, argv, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(record_opts__parse(&o, 2, argv, NULL, 0), -EINVAL);
	record_opts__exit(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		parsed_test(test_defaults),
		parsed_test(test_threads),
		parsed_test(test_writer_options),
		parsed_test(test_freq_spellings),
		parsed_test(test_events_accumulate),
		parsed_test(test_clustered_flags),
		parsed_test(test_call_graph),
		parsed_test(test_count),
		parsed_test(test_mmap_pages_option),
		cmocka_unit_test(test_parse_mmap_pages),
		parsed_test(test_flags),
		parsed_test(test_output),
		parsed_test(test_delay),
		parsed_test(test_clockid),
		parsed_test(test_realtime),
		parsed_test(test_flight_recorder),
		parsed_test(test_synth_and_synthesis),
		parsed_test(test_targets),
		parsed_test(test_command_split),
		cmocka_unit_test(test_argv0_record),
		parsed_test(test_help),
		parsed_test(test_notes_to_stderr),
		parsed_test(test_output_control),
		parsed_test(test_bad_input),
		cmocka_unit_test(test_error_buffer_truncation),
		parsed_test(test_build_id_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
