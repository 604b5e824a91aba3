// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse_events.c — perf's -e syntax: every software and hardware name
 * and alias, the modifiers with the exclude bits perf 6.1 sets (taken from
 * `perf evlist -v` of perf's own recordings), comma lists, repeated calls,
 * tracepoints and globs checked against tracefs itself, and every bad input
 * leaving the evlist untouched. Tracepoint tests mount tracefs if needed
 * and are skipped when that is impossible.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "precord/tracefs.h"

static int setup_evlist(void **state)
{
	*state = evlist__new();
	return *state ? 0 : -1;
}

static int teardown_evlist(void **state)
{
	evlist__delete(*state);
	return 0;
}

/* tracefs must be there (we mount it as root) or the test is skipped. */
static const char *need_tracefs(void)
{
	const char *mnt = tracefs__path();

	if (!mnt)
		skip();
	return mnt;
}

/* The id of sys:name read straight from tracefs, not through tracefs.c. */
static long read_id(const char *mnt, const char *sys, const char *name)
{
	char path[512];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", mnt, sys, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &id), 1);
	fclose(f);
	return id;
}

/* How many subdirectories events/sys has (the tracepoints of sys). */
static int count_dirs(const char *mnt, const char *sys)
{
	char path[512];
	struct dirent *d;
	struct stat st;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/events/%s", mnt, sys);
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(dirfd(dir), d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))
			n++;
	}
	closedir(dir);
	return n;
}

struct sym_case {
	const char	*str;
	u32		type;
	u64		config;
};

static const struct sym_case sym_cases[] = {
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static void test_symbols(void **state)
{
	struct parse_events_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sym_cases) / sizeof(sym_cases[0]); i++) {
		struct evlist *evlist = evlist__new();
		struct evsel *evsel;

		assert_non_null(evlist);
		assert_int_equal(parse_events(evlist, sym_cases[i].str, &err), 0);
		assert_int_equal(evlist->nr_entries, 1);
		evsel = evlist->entries[0];
		assert_int_equal(evsel->attr.type, sym_cases[i].type);
		assert_int_equal(evsel->attr.config, sym_cases[i].config);
		assert_int_equal(evsel->attr.size, sizeof(evsel->attr));
		assert_string_equal(evsel->name, sym_cases[i].str);
		assert_null(evsel->tp_sys);
		/* no modifier: everything counted, guest excluded (perf's default) */
		assert_int_equal(evsel->attr.exclude_user, 0);
		assert_int_equal(evsel->attr.exclude_kernel, 0);
		assert_int_equal(evsel->attr.exclude_hv, 0);
		assert_int_equal(evsel->attr.exclude_guest, 1);
		assert_int_equal(evsel->attr.precise_ip, 0);
		assert_int_equal(evsel->attr.sample_period, 0);
		evlist__delete(evlist);
	}
}

struct mod_case {
	const char	*str;
	int		eu, ek, eh, eG, eH, eI, precise;
};

/* Expected bits as `perf evlist -v` shows them for perf 6.1's own recordings. */
static const struct mod_case mod_cases[] = {
	{ "cpu-clock:u",	0, 1, 1, 1, 0, 0, 0 },
	{ "cpu-clock:k",	1, 0, 1, 0, 0, 0, 0 },
	{ "cpu-clock:h",	1, 1, 0, 0, 0, 0, 0 },
	{ "cpu-clock:uk",	0, 0, 1, 1, 0, 0, 0 },
	{ "cpu-clock:ku",	0, 0, 1, 1, 0, 0, 0 },
	{ "cpu-clock:hu",	0, 1, 0, 1, 0, 0, 0 },
	{ "cpu-clock:p",	0, 0, 0, 1, 0, 0, 1 },
	{ "cpu-clock:pp",	0, 0, 0, 1, 0, 0, 2 },
	{ "cpu-clock:ppp",	0, 0, 0, 1, 0, 0, 3 },
	{ "cpu-clock:kp",	1, 0, 1, 1, 0, 0, 1 },
	{ "cpu-clock:up",	0, 1, 1, 1, 0, 0, 1 },
	{ "cpu-clock:pkp",	1, 0, 1, 1, 0, 0, 2 },
	{ "cpu-clock:G",	0, 0, 0, 0, 1, 0, 0 },
	{ "cpu-clock:H",	0, 0, 0, 1, 0, 0, 0 },
	{ "cpu-clock:GH",	0, 0, 0, 0, 0, 0, 0 },
	{ "cpu-clock:Gu",	0, 1, 1, 0, 1, 0, 0 },
	{ "cpu-clock:uH",	0, 1, 1, 1, 0, 0, 0 },
	{ "cpu-clock:pG",	0, 0, 0, 0, 1, 0, 1 },
	{ "cpu-clock:I",	0, 0, 0, 0, 0, 1, 0 },
	{ "faults:u",		0, 1, 1, 1, 0, 0, 0 },
	{ "cs:",		0, 0, 0, 1, 0, 0, 0 },	/* empty modifier: as none */
};

static void test_modifiers(void **state)
{
	struct parse_events_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mod_cases) / sizeof(mod_cases[0]); i++) {
		const struct mod_case *c = &mod_cases[i];
		struct evlist *evlist = evlist__new();
		struct perf_event_attr *attr;

		assert_non_null(evlist);
		assert_int_equal(parse_events(evlist, c->str, &err), 0);
		assert_int_equal(evlist->nr_entries, 1);
		attr = &evlist->entries[0]->attr;
		assert_string_equal(evlist->entries[0]->name, c->str);
		assert_int_equal(attr->exclude_user, c->eu);
		assert_int_equal(attr->exclude_kernel, c->ek);
		assert_int_equal(attr->exclude_hv, c->eh);
		assert_int_equal(attr->exclude_guest, c->eG);
		assert_int_equal(attr->exclude_host, c->eH);
		assert_int_equal(attr->exclude_idle, c->eI);
		assert_int_equal(attr->precise_ip, c->precise);
		evlist__delete(evlist);
	}
}

static void test_comma_list(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;

	assert_int_equal(parse_events(evlist, "cpu-clock,cs,faults:u,major-faults", &err), 0);
	assert_int_equal(evlist->nr_entries, 4);
	assert_string_equal(evlist->entries[0]->name, "cpu-clock");
	assert_int_equal(evlist->entries[0]->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(evlist->entries[1]->name, "cs");
	assert_int_equal(evlist->entries[1]->attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_string_equal(evlist->entries[2]->name, "faults:u");
	assert_int_equal(evlist->entries[2]->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(evlist->entries[2]->attr.exclude_kernel, 1);
	assert_string_equal(evlist->entries[3]->name, "major-faults");
	assert_int_equal(evlist->entries[3]->attr.exclude_kernel, 0);
	assert_int_equal(evlist->entries[3]->idx, 3);
	assert_ptr_equal(evlist->entries[3]->evlist, evlist);
}

static void test_repeated_calls_append(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;

	assert_int_equal(parse_events(evlist, "task-clock", &err), 0);
	assert_int_equal(parse_events(evlist, "cs,migrations", &err), 0);
	assert_int_equal(parse_events(evlist, "task-clock:k", &err), 0);
	assert_int_equal(evlist->nr_entries, 4);
	assert_string_equal(evlist->entries[0]->name, "task-clock");
	assert_string_equal(evlist->entries[1]->name, "cs");
	assert_string_equal(evlist->entries[2]->name, "migrations");
	assert_int_equal(evlist->entries[2]->attr.config, PERF_COUNT_SW_CPU_MIGRATIONS);
	assert_string_equal(evlist->entries[3]->name, "task-clock:k");
	assert_int_equal(evlist->entries[3]->attr.exclude_user, 1);
	assert_int_equal(evlist->entries[3]->idx, 3);
}

static void test_tracepoint(void **state)
{
	struct evlist *evlist = *state;
	const char *mnt = need_tracefs();
	struct parse_events_error err;
	struct evsel *evsel;

	assert_int_equal(parse_events(evlist, "sched:sched_switch", &err), 0);
	assert_int_equal(evlist->nr_entries, 1);
	evsel = evlist->entries[0];
	assert_int_equal(evsel->attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(evsel->attr.config, read_id(mnt, "sched", "sched_switch"));
	assert_string_equal(evsel->name, "sched:sched_switch");
	assert_string_equal(evsel->tp_sys, "sched");
	assert_string_equal(evsel->tp_name, "sched_switch");
	assert_int_equal(evsel->attr.exclude_guest, 1);
	assert_true(evsel__is_tracepoint(evsel));
}

static void test_tracepoint_modifier(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct evsel *evsel;

	need_tracefs();
	assert_int_equal(parse_events(evlist, "sched:sched_switch:k", &err), 0);
	assert_int_equal(evlist->nr_entries, 1);
	evsel = evlist->entries[0];
	/* perf names tracepoints sys:name, whatever the modifier */
	assert_string_equal(evsel->name, "sched:sched_switch");
	assert_int_equal(evsel->attr.exclude_user, 1);
	assert_int_equal(evsel->attr.exclude_kernel, 0);
	assert_int_equal(evsel->attr.exclude_hv, 1);
	assert_int_equal(evsel->attr.exclude_guest, 0);
}

static void check_glob(struct evlist *evlist, const char *mnt, const char *sys, int first)
{
	char name[512];
	int i, n = count_dirs(mnt, sys);

	assert_true(n > 0);
	assert_int_equal(evlist->nr_entries - first, n);
	for (i = first; i < evlist->nr_entries; i++) {
		struct evsel *evsel = evlist->entries[i];

		assert_int_equal(evsel->attr.type, PERF_TYPE_TRACEPOINT);
		assert_string_equal(evsel->tp_sys, sys);
		snprintf(name, sizeof(name), "%s:%s", sys, evsel->tp_name);
		assert_string_equal(evsel->name, name);
		assert_int_equal(evsel->attr.config, read_id(mnt, sys, evsel->tp_name));
		assert_int_equal(evsel->idx, i);
	}
}

static void test_tracepoint_glob(void **state)
{
	struct evlist *evlist = *state;
	const char *mnt = need_tracefs();
	struct parse_events_error err;
	int before;

	assert_int_equal(parse_events(evlist, "sched:*", &err), 0);
	check_glob(evlist, mnt, "sched", 0);
	before = evlist->nr_entries;
	assert_int_equal(parse_events(evlist, "raw_syscalls:*", &err), 0);
	check_glob(evlist, mnt, "raw_syscalls", before);
}

static void test_tracepoint_glob_partial(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	int i;

	need_tracefs();
	assert_int_equal(parse_events(evlist, "sched:sched_switc?,*:sys_e[n]ter", &err), 0);
	assert_int_equal(evlist->nr_entries, 2);
	assert_string_equal(evlist->entries[0]->name, "sched:sched_switch");
	assert_string_equal(evlist->entries[1]->name, "raw_syscalls:sys_enter");
	for (i = 0; i < 2; i++)
		assert_int_equal(evlist->entries[i]->attr.exclude_guest, 1);
}

/*
 * A glob of every system: what has no id, and ftrace's entries (which
 * perf_event_open() refuses), are passed over as perf does; the rest is
 * every tracepoint there is.
 */
static void test_tracepoint_glob_all(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	int i, sched = 0;

	need_tracefs();
	assert_int_equal(parse_events(evlist, "*:*", &err), 0);
	assert_true(evlist->nr_entries > 0);
	for (i = 0; i < evlist->nr_entries; i++) {
		assert_string_not_equal(evlist->entries[i]->tp_sys, "ftrace");
		sched += !strcmp(evlist->entries[i]->tp_sys, "sched");
	}
	assert_int_equal(sched, count_dirs(need_tracefs(), "sched"));
}

static void test_mixed_list(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;

	need_tracefs();
	assert_int_equal(parse_events(evlist, "cpu-clock,sched:sched_switch,cs:u", &err), 0);
	assert_int_equal(evlist->nr_entries, 3);
	assert_int_equal(evlist->entries[0]->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evlist->entries[1]->attr.type, PERF_TYPE_TRACEPOINT);
	assert_string_equal(evlist->entries[1]->name, "sched:sched_switch");
	assert_string_equal(evlist->entries[2]->name, "cs:u");
	assert_true(evlist__has_tracepoints(evlist));
}

struct bad_case {
	const char	*str;
	int		err;
	const char	*msg;		/* exact message, or NULL */
	const char	*contains;	/* a part of the message, or NULL */
};

static const struct bad_case bad_cases[] = {
	{ "",			-EINVAL, NULL, "event '' is empty" },
	{ ",",			-EINVAL, NULL, "event ',' has an empty entry" },
	{ "cpu-clock,",		-EINVAL, NULL, "event 'cpu-clock,' has an empty entry" },
	{ ",cpu-clock",		-EINVAL, NULL, "empty entry" },
	{ "cpu-clock,,cs",	-EINVAL, NULL, "empty entry" },
	{ "cpu-clock:z",	-EINVAL, NULL, "event 'cpu-clock:z' has an unknown modifier 'z'" },
	{ "cpu-clock:uu",	-EINVAL, NULL, "event 'cpu-clock:uu' repeats the modifier 'u'" },
	{ "cpu-clock:pppp",	-EINVAL, NULL, "precise_ip is at most 3" },
	{ "cpu-clock:S",	-EINVAL, NULL, "modifier 'S' is not supported" },
	{ "cpu-clock:u:k",	-EINVAL, NULL, "unknown modifier ':'" },
	{ "foo",		-ENOENT, "event 'foo' is not known; 'perf list' shows the events", NULL },
	{ "cpu-clock,foo",	-ENOENT, "event 'foo' is not known; 'perf list' shows the events", NULL },
	{ "CPU-CLOCK",		-ENOENT, "event 'CPU-CLOCK' is not known; 'perf list' shows the events", NULL },
	{ "cpu/event=0x3c,umask=0/", -ENOENT,
	  "event 'cpu/event=0x3c,umask=0/' is not known; 'perf list' shows the events", NULL },
	{ "{cs,faults}",	-EINVAL, NULL, "does not support event groups" },
};

/* Tracepoint errors: need tracefs to be told apart from "not mounted". */
static const struct bad_case bad_tp_cases[] = {
	{ "nosuch:tp",		-ENOENT, NULL, "event 'nosuch:tp' is not known (no " },
	{ "sched:nosuch",	-ENOENT, NULL, "event 'sched:nosuch' is not known" },
	{ "sched:nosuch*",	-ENOENT, NULL, "event 'sched:nosuch*' matches no tracepoint" },
	{ "nosuch*:*",		-ENOENT, NULL, "event 'nosuch*:*' matches no tracepoint" },
	{ "sched:",		-ENOENT, NULL, "event 'sched:' is not known" },
	{ "..:..",		-ENOENT, NULL, "event '..:..' is not known" },
	{ "sched:sched_switch:x", -EINVAL, NULL, "unknown modifier 'x'" },
	{ "sched:sched_switch,sched:nosuch", -ENOENT, NULL, "event 'sched:nosuch' is not known" },
};

static void check_bad(const struct bad_case *c)
{
	struct evlist *evlist = evlist__new();
	struct parse_events_error err;

	assert_non_null(evlist);
	assert_int_equal(parse_events(evlist, "dummy", &err), 0);
	memset(err.msg, 'x', sizeof(err.msg));
	err.msg[sizeof(err.msg) - 1] = '\0';

	assert_int_equal(parse_events(evlist, c->str, &err), c->err);
	if (c->msg)
		assert_string_equal(err.msg, c->msg);
	if (c->contains && !strstr(err.msg, c->contains))
		fail_msg("'%s': message '%s' lacks '%s'", c->str, err.msg, c->contains);
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(strncmp(err.msg, "event '", 7), 0);
	/* nothing added: the evlist still holds only the first event */
	assert_int_equal(evlist->nr_entries, 1);
	assert_string_equal(evlist->entries[0]->name, "dummy");
	evlist__delete(evlist);
}

static void test_bad_input(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		check_bad(&bad_cases[i]);
}

static void test_bad_tracepoints(void **state)
{
	size_t i;

	(void)state;
	need_tracefs();
	for (i = 0; i < sizeof(bad_tp_cases) / sizeof(bad_tp_cases[0]); i++)
		check_bad(&bad_tp_cases[i]);
}

static void test_null_error_buffer(void **state)
{
	struct evlist *evlist = *state;

	assert_int_equal(parse_events(evlist, "foo", NULL), -ENOENT);
	assert_int_equal(parse_events(evlist, "cs", NULL), 0);
	assert_int_equal(evlist->nr_entries, 1);
}

static bool has_cpu_pmu(void)
{
	struct stat st;

	return stat("/sys/bus/event_source/devices/cpu/events/cpu-cycles", &st) == 0 ||
	       stat("/sys/bus/event_source/devices/cpu/events/cycles", &st) == 0 ||
	       stat("/sys/bus/event_source/devices/cpu_core/events/cpu-cycles", &st) == 0;
}

static void test_default(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct evsel *evsel;

	assert_int_equal(parse_events__default(evlist, &err), 0);
	assert_int_equal(evlist->nr_entries, 1);
	evsel = evlist->entries[0];
	if (has_cpu_pmu()) {
		assert_int_equal(evsel->attr.type, PERF_TYPE_HARDWARE);
		assert_int_equal(evsel->attr.config, PERF_COUNT_HW_CPU_CYCLES);
		assert_int_equal(strncmp(evsel->name, "cycles", 6), 0);
		return;
	}
	/* perf 6.1 here: cycles falls back to "cpu-clock:ppp", precise_ip 3, guest counted */
	assert_int_equal(evsel->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evsel->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(evsel->attr.precise_ip, 3);
	assert_int_equal(evsel->attr.exclude_guest, 0);
	assert_int_equal(evsel->attr.exclude_user, 0);
	assert_int_equal(evsel->attr.exclude_hv, 0);
	if (geteuid() == 0) {
		assert_string_equal(evsel->name, "cpu-clock:ppp");
		assert_int_equal(evsel->attr.exclude_kernel, 0);
	}
	/* and it appends like any parse */
	assert_int_equal(parse_events(evlist, "cs", &err), 0);
	assert_int_equal(evlist->nr_entries, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test_setup_teardown(test_comma_list, setup_evlist, teardown_evlist),
		cmocka_unit_test_setup_teardown(test_repeated_calls_append, setup_evlist,
						teardown_evlist),
		cmocka_unit_test_setup_teardown(test_tracepoint, setup_evlist, teardown_evlist),
		cmocka_unit_test_setup_teardown(test_tracepoint_modifier, setup_evlist,
						teardown_evlist),
		cmocka_unit_test_setup_teardown(test_tracepoint_glob, setup_evlist, teardown_evlist),
		cmocka_unit_test_setup_teardown(test_tracepoint_glob_all, setup_evlist,
						teardown_evlist),
		cmocka_unit_test_setup_teardown(test_tracepoint_glob_partial, setup_evlist,
						teardown_evlist),
		cmocka_unit_test_setup_teardown(test_mixed_list, setup_evlist, teardown_evlist),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_bad_tracepoints),
		cmocka_unit_test_setup_teardown(test_null_error_buffer, setup_evlist, teardown_evlist),
		cmocka_unit_test_setup_teardown(test_default, setup_evlist, teardown_evlist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
