// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse_events.c — perf's -e syntax: every software and hardware name
 * and alias, the modifiers with the exclude bits perf 6.1 sets (taken from
 * `perf evlist -v` of perf's own recordings), the other modifiers, groups,
 * event terms, cache, raw, numeric and breakpoint events (configs as perf
 * record -vv shows them), comma lists, repeated calls, tracepoints and
 * globs checked against tracefs itself, and every bad input leaving the
 * evlist untouched. PMUs from sysfs: test_parse_events_pmu.c. Tracepoint tests mount tracefs if needed
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

/* perf 6.1's attrs and flags for the modifiers beyond the exclude bits. */
static void test_more_modifiers(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct evsel *e;

	assert_int_equal(parse_events(evlist, "cpu-clock:S,cpu-clock:D,cpu-clock:e,cpu-clock:P,"
					       "cpu-clock:W,cpu-clock:b,cpu-clocku,cpu-clock:", &err), 0);
	assert_int_equal(evlist->nr_entries, 8);
	e = evlist->entries[0];		/* S: counts in the samples; nothing excluded */
	assert_true(e->sample_read);
	assert_int_equal(e->attr.exclude_guest, 0);
	e = evlist->entries[1];		/* D: pinned */
	assert_int_equal(e->attr.pinned, 1);
	assert_int_equal(e->attr.exclusive, 0);
	e = evlist->entries[2];
	assert_int_equal(e->attr.exclusive, 1);
	e = evlist->entries[3];		/* P: the highest precise_ip, set when configured */
	assert_true(e->precise_max);
	assert_int_equal(e->attr.precise_ip, 0);
	e = evlist->entries[4];
	assert_true(e->weak_group);
	e = evlist->entries[5];		/* b: perf stat's BPF counters, nothing for record */
	assert_int_equal(e->attr.exclude_guest, 0);
	assert_false(e->sample_read || e->weak_group || e->precise_max);
	e = evlist->entries[6];		/* perf's scanner: the modifier needs no ':' */
	assert_string_equal(e->name, "cpu-clocku");
	assert_int_equal(e->attr.exclude_kernel, 1);
	assert_int_equal(e->attr.exclude_user, 0);
	e = evlist->entries[7];
	assert_string_equal(e->name, "cpu-clock:");
	assert_int_equal(e->attr.exclude_guest, 1);
}

static void check_group(struct evlist *evlist, int first, int n, const char *name)
{
	int i;

	for (i = first; i < first + n; i++)
		assert_ptr_equal(evlist->entries[i]->leader, evlist->entries[first]);
	assert_int_equal(evlist->entries[first]->nr_members, n);
	if (name)
		assert_string_equal(evlist->entries[first]->group_name, name);
	else
		assert_null(evlist->entries[first]->group_name);
}

/* Groups and their modifiers: from what each member has (perf's add mode). */
static void test_groups(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct perf_event_attr *a, *b;

	assert_int_equal(parse_events(evlist, "cs,{faults,task-clock},foo{cpu-clock:k,page-faults}:u,"
					       "{major-faults}:D", &err), 0);
	assert_int_equal(evlist->nr_entries, 6);
	assert_ptr_equal(evlist->entries[0]->leader, evlist->entries[0]);
	assert_int_equal(evlist->entries[0]->nr_members, 1);
	check_group(evlist, 1, 2, NULL);
	check_group(evlist, 3, 2, "foo");
	check_group(evlist, 5, 1, NULL);
	assert_string_equal(evlist->entries[3]->name, "cpu-clock:k");
	assert_string_equal(evlist->entries[4]->name, "page-faults");
	/* as perf evlist -v shows perf's own recording of the same group */
	a = &evlist->entries[3]->attr;
	assert_int_equal(a->exclude_user, 0);
	assert_int_equal(a->exclude_kernel, 0);
	assert_int_equal(a->exclude_hv, 1);
	assert_int_equal(a->exclude_guest, 1);
	b = &evlist->entries[4]->attr;
	assert_int_equal(b->exclude_user, 0);
	assert_int_equal(b->exclude_kernel, 1);
	assert_int_equal(b->exclude_hv, 1);
	assert_int_equal(b->exclude_guest, 1);
	assert_int_equal(evlist->entries[5]->attr.pinned, 1);
}

static void test_group_flags(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;

	assert_int_equal(parse_events(evlist, "{cpu-clock,page-faults}:S,{cs,faults:D}:eW,"
					       "{cpu-clock:S,task-clock}:u", &err), 0);
	assert_int_equal(evlist->nr_entries, 6);
	assert_true(evlist->entries[0]->sample_read);
	assert_true(evlist->entries[1]->sample_read);
	/* pinned/exclusive of a group go to its leader; an event's own D stays */
	assert_int_equal(evlist->entries[2]->attr.exclusive, 1);
	assert_int_equal(evlist->entries[2]->attr.pinned, 0);
	assert_int_equal(evlist->entries[3]->attr.exclusive, 0);
	assert_int_equal(evlist->entries[3]->attr.pinned, 1);
	assert_true(evlist->entries[2]->weak_group && evlist->entries[3]->weak_group);
	/* a group's modifiers set S anew, as perf's */
	assert_false(evlist->entries[4]->sample_read);
	assert_int_equal(evlist->entries[4]->attr.exclude_kernel, 1);
}

/* The event terms, kept for the record configuration, and the attr fields they set. */
static void test_terms(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	const struct evsel_terms *t;
	struct evsel *e;

	assert_int_equal(parse_events(evlist,
		"cpu-clock/period=1000,call-graph=dwarf,stack-size=4096,max-stack=3,no-inherit,"
		"overwrite,time=0,nr=5,percore=1,metric-id=x,aux-output=0,config1=7,config2=0x9/u,"
		"task-clock/freq=99,name=tc,inherit=1,no-overwrite,branch_type=any_call/,"
		"cs/call-graph=fp,config=3,@cfg/", NULL), -EINVAL);
	assert_int_equal(parse_events(evlist,
		"cpu-clock/period=1000,call-graph=dwarf,stack-size=4096,max-stack=3,no-inherit,"
		"overwrite,time=0,nr=5,percore=1,metric-id=x,aux-output=0,config1=7,config2=0x9/u,"
		"task-clock/freq=99,name=tc,inherit=1,no-overwrite,branch_type=any_call/,"
		"cs/call-graph=fp,config=3/,faults//", &err), 0);
	assert_int_equal(evlist->nr_entries, 4);
	e = evlist->entries[0];
	t = &e->terms;
	assert_string_equal(e->name, "cpu-clock/period=1000,call-graph=dwarf,stack-size=4096,"
			    "max-stack=3,no-inherit,overwrite,time=0,nr=5,percore=1,metric-id=x,"
			    "aux-output=0,config1=7,config2=0x9/u");
	assert_int_equal(t->set, EVSEL_TERM_PERIOD | EVSEL_TERM_CALLGRAPH | EVSEL_TERM_STACK_SIZE |
			 EVSEL_TERM_MAX_STACK | EVSEL_TERM_INHERIT | EVSEL_TERM_OVERWRITE |
			 EVSEL_TERM_TIME | EVSEL_TERM_MAX_EVENTS | EVSEL_TERM_PERCORE |
			 EVSEL_TERM_AUX_OUTPUT);
	assert_int_equal(t->weak, 0);
	assert_int_equal(t->period, 1000);
	assert_string_equal(t->callgraph, "dwarf");
	assert_int_equal(t->stack_size, 4096);
	assert_int_equal(t->max_stack, 3);
	assert_false(t->inherit);
	assert_true(t->overwrite);
	assert_false(t->time);
	assert_int_equal(t->max_events, 5);
	assert_false(t->aux_output);
	assert_int_equal(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(e->attr.config1, 7);
	assert_int_equal(e->attr.config2, 9);
	assert_int_equal(e->attr.exclude_kernel, 1);
	assert_int_equal(e->attr.sample_period, 0);	/* the record configuration's */
	e = evlist->entries[1];
	t = &e->terms;
	assert_string_equal(e->name, "tc");
	assert_int_equal(t->set, EVSEL_TERM_FREQ | EVSEL_TERM_INHERIT | EVSEL_TERM_OVERWRITE |
			 EVSEL_TERM_BRANCH);
	assert_int_equal(t->freq, 99);
	assert_true(t->inherit);
	assert_false(t->overwrite);
	assert_string_equal(t->branch, "any_call");
	assert_int_equal(e->attr.branch_sample_type, PERF_SAMPLE_BRANCH_ANY_CALL);
	e = evlist->entries[2];		/* config= replaces the symbol's config, as in perf */
	assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->attr.config, 3);
	assert_string_equal(e->terms.callgraph, "fp");
	assert_string_equal(evlist->entries[3]->name, "faults//");
	assert_int_equal(evlist->entries[3]->terms.set, 0);
}

struct attr_case {
	const char	*str;
	const char	*name;
	u32		type;
	u64		config;
};

/* Configs as perf 6.1 puts them in the attr (perf record -vv). */
static const struct attr_case attr_cases[] = {
	{ "L1-dcache-load-misses",	"L1-dcache-load-misses",	PERF_TYPE_HW_CACHE, 0x10000 },
	{ "LLC-prefetches",		"LLC-prefetches",		PERF_TYPE_HW_CACHE, 0x202 },
	{ "branch-loads",		"branch-loads",			PERF_TYPE_HW_CACHE, 0x5 },
	{ "dTLB-store-misses",		"dTLB-store-misses",		PERF_TYPE_HW_CACHE, 0x10103 },
	{ "node-prefetch-refs",		"node-prefetch-refs",		PERF_TYPE_HW_CACHE, 0x206 },
	{ "l1d-misses",			"l1d-misses",			PERF_TYPE_HW_CACHE, 0x10000 },
	{ "LLC:u",			"LLC",				PERF_TYPE_HW_CACHE, 0x2 },
	{ "L1-icache-load/name=ic/",	"ic",				PERF_TYPE_HW_CACHE, 0x1 },
	{ "r1a8",			"r1a8",				PERF_TYPE_RAW, 0x1a8 },
	{ "r1a8:u",			"r1a8:u",			PERF_TYPE_RAW, 0x1a8 },
	{ "r1a8/period=3/",		"r1a8/period=3/",		PERF_TYPE_RAW, 0x1a8 },
	{ "4:0x3c",			"4:0x3c",			PERF_TYPE_RAW, 0x3c },
	{ "1:2",			"1:2",				PERF_TYPE_SOFTWARE, 2 },
	{ "1:0u",			"1:0u",				PERF_TYPE_SOFTWARE, 0 },
	{ "duration_time",		"duration_time",		PERF_TYPE_SOFTWARE, 9 },
	{ "{cpu-clock",			"cpu-clock",			PERF_TYPE_SOFTWARE, 0 },
};

static void test_other_events(void **state)
{
	struct parse_events_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(attr_cases) / sizeof(attr_cases[0]); i++) {
		const struct attr_case *c = &attr_cases[i];
		struct evlist *evlist = evlist__new();

		assert_non_null(evlist);
		if (parse_events(evlist, c->str, &err))
			fail_msg("'%s': %s", c->str, err.msg);
		assert_int_equal(evlist->nr_entries, 1);
		assert_string_equal(evlist->entries[0]->name, c->name);
		assert_int_equal(evlist->entries[0]->attr.type, c->type);
		assert_int_equal(evlist->entries[0]->attr.config, c->config);
		evlist__delete(evlist);
	}
}

/* Breakpoints: perf's defaults (rw, 4 bytes; 8 for x), a period of 1. */
static void test_breakpoints(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct perf_event_attr *a;

	assert_int_equal(parse_events(evlist, "mem:0x1000,mem:0x2000/8:w,mem:4096:x,mem:0x10:rw:u",
				      &err), 0);
	assert_int_equal(evlist->nr_entries, 4);
	a = &evlist->entries[0]->attr;
	assert_string_equal(evlist->entries[0]->name, "mem:0x1000");
	assert_int_equal(a->type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(a->bp_addr, 0x1000);
	assert_int_equal(a->bp_len, 4);
	assert_int_equal(a->bp_type, 3);
	assert_int_equal(a->sample_period, 1);
	a = &evlist->entries[1]->attr;
	assert_string_equal(evlist->entries[1]->name, "mem:0x2000");
	assert_int_equal(a->bp_len, 8);
	assert_int_equal(a->bp_type, 2);
	a = &evlist->entries[2]->attr;
	assert_int_equal(a->bp_addr, 4096);
	assert_int_equal(a->bp_type, 4);
	assert_int_equal(a->bp_len, sizeof(long));
	a = &evlist->entries[3]->attr;
	assert_string_equal(evlist->entries[3]->name, "mem:0x10:rw:u");
	assert_int_equal(a->exclude_kernel, 1);
	assert_int_equal(a->exclude_user, 0);
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
	{ "cpu-clock:uu",	-EINVAL, NULL, "event 'cpu-clock:uu' has a bad modifier 'uu'" },
	{ "cpu-clock:pppp",	-EINVAL, NULL, "bad modifier 'pppp'" },
	{ "cpu-clock:SS",	-EINVAL, NULL, "bad modifier 'SS'" },
	{ "cpu-clock:ukhGHpppPSDIWebu", -EINVAL, NULL, "bad modifier" },
	{ "cpu-clock:u:k",	-EINVAL, NULL, "not valid event syntax at ':k'" },
	{ "foo",		-ENOENT, "event 'foo' is not known; 'perf list' shows the events", NULL },
	{ "cpu-clock,foo",	-ENOENT, "event 'foo' is not known; 'perf list' shows the events", NULL },
	{ "CPU-CLOCK",		-ENOENT, "event 'CPU-CLOCK' is not known; 'perf list' shows the events", NULL },
	{ "cpu-clock}",		-EINVAL, NULL, "not valid event syntax at '}'" },
	{ "{cs,faults}u",	-EINVAL, NULL, "not valid event syntax at 'u'" },
	{ "{cs,faults}:x",	-EINVAL, NULL, "unknown modifier 'x'" },
	{ "{cs,{faults}}",	-EINVAL, NULL, "not valid event syntax" },
	{ "cpu-clock/period=100/:u", -EINVAL, NULL, "not valid event syntax at ':u'" },
	{ "cpu-clock:u/period=100/", -EINVAL, NULL, "not valid event syntax at '/period=100/'" },
	{ "cpu-clock/foo=1/",	-EINVAL, NULL, "unknown term 'foo'; valid terms: config,config1," },
	{ "cpu-clock/period=/",	-EINVAL, NULL, "not valid event syntax" },
	{ "cpu-clock/period=x/", -EINVAL, NULL, "term 'period': expected numeric value" },
	{ "cpu-clock/name=3/",	-EINVAL, NULL, "term 'name': expected string value" },
	{ "cpu-clock/time=2/",	-EINVAL, NULL, "term 'time': expected 0 or 1" },
	{ "cpu-clock/percore=2/", -EINVAL, NULL, "term 'percore': expected 0 or 1" },
	{ "cpu-clock/aux-sample-size=0x100000000/", -EINVAL, NULL, "term 'aux-sample-size': too big" },
	{ "cpu-clock/branch_type=sideways/", -EINVAL, NULL, "invalid branch sample type" },
	{ "cpu-clock/@cfg/",	-EINVAL, NULL, "unknown term 'driver-config'" },
	{ "cpu-clock/config=[1]/", -EINVAL, NULL, "term 'config': expected numeric value" },
	{ "r1ffffffffffffffffffff", -EINVAL, NULL, "does not fit in 64 bits" },
	{ "99999999999999999999:0", -EINVAL, NULL, "does not fit in 64 bits" },
	{ "0x100000000:1",	-EINVAL, NULL, "has a type above 32 bits" },
	{ "1",			-EINVAL, NULL, "ends too early" },
	{ "r1a8/u",		-EINVAL, NULL, "ends too early" },
	{ "mem:",		-EINVAL, NULL, "ends too early" },
	{ "mem:0x10:rr",	-EINVAL, NULL, "repeats a breakpoint access type" },
	{ "L1-icache-store",	-EINVAL, NULL, "is not a hardware cache event" },
	{ "iTLB-prefetches",	-EINVAL, NULL, "is not a hardware cache event" },
	{ "L1-dcache-",		-EINVAL, NULL, "ends too early" },
	{ "cpu/event=0x3c,umask=0/", -ENOENT, NULL,
	  "event 'cpu/event=0x3c,umask=0/': no PMU 'cpu' on this machine" },
};

/* Tracepoint errors: need tracefs to be told apart from "not mounted". */
static const struct bad_case bad_tp_cases[] = {
	{ "nosuch:tp",		-ENOENT, NULL, "event 'nosuch:tp' is not known (no " },
	{ "sched:nosuch",	-ENOENT, NULL, "event 'sched:nosuch' is not known" },
	{ "sched:nosuch*",	-ENOENT, NULL, "event 'sched:nosuch*' matches no tracepoint" },
	{ "nosuch*:*",		-ENOENT, NULL, "event 'nosuch*:*' matches no tracepoint" },
	{ "sched:",		-EINVAL, NULL, "event 'sched:' ends too early" },
	{ "..:..",		-EINVAL, NULL, "event '..:..' is not valid event syntax" },
	{ "sched:sched_switch:x", -EINVAL, NULL, "unknown modifier 'x'" },
	{ "sched:sched_switch,sched:nosuch", -ENOENT, NULL, "event 'sched:nosuch' is not known" },
	{ "sched:sched_switch/period=3/", -EINVAL, NULL,
	  "unknown term 'period' for a tracepoint; valid terms: call-graph,stack-size" },
	{ "sched:sched_switch/name=x/", -EINVAL, NULL, "unknown term 'name' for a tracepoint" },
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

#define evlist_test(f)	cmocka_unit_test_setup_teardown(f, setup_evlist, teardown_evlist)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_modifiers),
		evlist_test(test_comma_list),
		evlist_test(test_repeated_calls_append),
		evlist_test(test_tracepoint),
		evlist_test(test_tracepoint_modifier),
		evlist_test(test_tracepoint_glob),
		evlist_test(test_tracepoint_glob_all),
		evlist_test(test_tracepoint_glob_partial),
		evlist_test(test_mixed_list),
		evlist_test(test_more_modifiers),
		evlist_test(test_groups),
		evlist_test(test_group_flags),
		evlist_test(test_terms),
		cmocka_unit_test(test_other_events),
		evlist_test(test_breakpoints),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_bad_tracepoints),
		evlist_test(test_null_error_buffer),
		evlist_test(test_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
