// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse_events_pmu.c — PMU events of -e against a sysfs tree the test
 * writes (this machine has no hardware PMU): a "cpu" PMU with x86's format
 * terms and named events, two uncore PMUs, msr and power with their
 * events, a PMU whose format does not parse, and directories that are no
 * PMU. Checked: format terms into config/config1 bits, named events by
 * pmu/name/, event=name, and the name alone (also split at '-' as perf's
 * scanner does), "?" parameters, weak terms from named events, PMU name
 * prefixes, groups of PMU events, and every error perf reports for them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "precord/pmu.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void put_uncore(const char *name, const char *type)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/type", name);
	put(rel, type);
	snprintf(rel, sizeof(rel), "%s/format/event", name);
	put(rel, "config:0-7");
	snprintf(rel, sizeof(rel), "%s/format/umask", name);
	put(rel, "config:8-15");
	snprintf(rel, sizeof(rel), "%s/events/cas_count_read", name);
	put(rel, "event=0x04,umask=0x03");
	snprintf(rel, sizeof(rel), "%s/cpumask", name);
	put(rel, "0");
}

static int setup_sysfs(void **state)
{
	snprintf(root, sizeof(root), "/tmp/precord-pmu.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("cpu/type", "4");
	put("cpu/format/event", "config:0-7");
	put("cpu/format/umask", "config:8-15");
	put("cpu/format/edge", "config:18");
	put("cpu/format/inv", "config:23");
	put("cpu/format/cmask", "config:24-31");
	put("cpu/format/ldlat", "config1:0-15");
	put("cpu/format/frontend", "config2:0-23");
	put("cpu/events/cpu-cycles", "event=0x3c");
	put("cpu/events/instructions", "event=0xc0");
	put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
	put("cpu/events/topdown-retiring", "event=0x00,umask=0x80");
	put("cpu/events/slots", "event=0x00,umask=0x4");
	put("cpu/events/slots.scale", "2");
	put("cpu/events/slots.unit", "slots");
	put("cpu/events/cyc-p", "event=0x3c,period=2000003");
	put("cpu/events/ev-param", "event=0x10,umask=?");
	put_uncore("uncore_imc_0", "20");
	put_uncore("uncore_imc_1", "21");
	put("msr/type", "10");
	put("msr/format/event", "config:0-63");
	put("msr/events/tsc", "event=0x00");
	put("msr/events/smi", "event=0x04");
	put("power/type", "9");
	put("power/format/event", "config:0-7");
	put("power/events/energy-pkg", "event=0x02");
	put("power/events/energy-pkg.unit", "Joules");
	put("power/cpumask", "0");
	put("software/type", "1");
	put("badfmt/type", "30");
	put("badfmt/format/event", "garbage");
	put("notapmu/uevent", "");
	put("badtype/type", "x");
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown_sysfs(void **state)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static int new_evlist(void **state)
{
	*state = evlist__new();
	return *state ? 0 : -1;
}

static int delete_evlist(void **state)
{
	evlist__delete(*state);
	return 0;
}

static struct evsel *parse_one(struct evlist *evlist, const char *str, int nr)
{
	struct parse_events_error err;

	if (parse_events__sysfs(evlist, str, root, &err))
		fail_msg("'%s': %s", str, err.msg);
	assert_int_equal(evlist->nr_entries, nr);
	return evlist->entries[nr - 1];
}

static void test_format_parse(void **state)
{
	enum pmu_field field;
	u64 bits;
	struct pmu_format f = { .field = PMU_FIELD_CONFIG };
	struct perf_event_attr attr;

	(void)state;
	assert_int_equal(pmu_format__parse("config:0-7,21", &field, &bits), 0);
	assert_int_equal(field, PMU_FIELD_CONFIG);
	assert_int_equal(bits, 0x2000ffULL);
	assert_int_equal(pmu_format__parse("config1:5\n", &field, &bits), 0);
	assert_int_equal(field, PMU_FIELD_CONFIG1);
	assert_int_equal(bits, 0x20);
	assert_int_equal(pmu_format__parse("config2:0-63", &field, &bits), 0);
	assert_int_equal(field, PMU_FIELD_CONFIG2);
	assert_int_equal(bits, ~0ULL);
	assert_int_equal(pmu_format__parse("config:7-3", &field, &bits), -EINVAL);
	assert_int_equal(pmu_format__parse("config:64", &field, &bits), -EINVAL);
	assert_int_equal(pmu_format__parse("conf:1", &field, &bits), -EINVAL);
	assert_int_equal(pmu_format__parse("config:1x", &field, &bits), -EINVAL);
	/* the value's bits go, low first, into the format's bits, wherever they are */
	f.bits = 0xf0f0;
	assert_int_equal(pmu_format__max(&f), 0xff);
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(pmu_format__apply(&f, 0xa5, &attr), 0);
	assert_int_equal(attr.config, 0xa050);
	assert_int_equal(pmu_format__apply(&f, 0x100, &attr), -ERANGE);
	assert_int_equal(attr.config, 0xa050);
	assert_int_equal(pmu_format__apply(&f, 0x0f, &attr), 0);	/* ORed, never cleared */
	assert_int_equal(attr.config, 0xa0f0);
}

static void test_pmus(void **state)
{
	struct pmus *pmus = pmus__new(root);
	struct pmu *cpu, *power;

	(void)state;
	assert_non_null(pmus);
	cpu = pmus__find(pmus, "cpu");
	assert_non_null(cpu);
	assert_int_equal(cpu->type, 4);
	assert_int_equal(cpu->nr_formats, 7);
	assert_int_equal(cpu->nr_aliases, 7);	/* not slots.scale, slots.unit */
	assert_non_null(pmu__alias(cpu, "CPU-Cycles"));
	assert_null(pmu__alias(cpu, "slots.scale"));
	assert_ptr_equal(pmus__find(pmus, "cpu"), cpu);
	assert_null(cpu->cpus);
	power = pmus__find(pmus, "power");
	assert_non_null(power);
	assert_non_null(power->cpus);
	assert_int_equal(power->cpus->nr, 1);
	assert_null(pmus__find(pmus, "badfmt"));
	assert_null(pmus__find(pmus, "badtype"));
	assert_null(pmus__find(pmus, "notapmu"));
	assert_null(pmus__find(pmus, ".."));
	assert_int_equal(pmus__scan(pmus), 0);
	assert_int_equal(pmus->nr, 6);	/* cpu, two uncore_imc, msr, power, software */
	pmus__delete(pmus);
}

static void test_format_terms(void **state)
{
	struct evsel *e;

	e = parse_one(*state, "cpu/event=0x3c,umask=0/", 1);
	assert_string_equal(e->name, "cpu/event=0x3c,umask=0/");
	assert_int_equal(e->attr.type, 4);
	assert_int_equal(e->attr.config, 0x3c);
	assert_int_equal(e->attr.exclude_guest, 1);
	e = parse_one(*state, "cpu/event=0x3c,umask=0x1,edge,inv,cmask=2,ldlat=5,frontend=0x11/u", 2);
	assert_int_equal(e->attr.config, 0x3c | 0x1 << 8 | 1 << 18 | 1 << 23 | 2ULL << 24);
	assert_int_equal(e->attr.config1, 5);
	assert_int_equal(e->attr.config2, 0x11);
	assert_int_equal(e->attr.exclude_kernel, 1);
	/* config= and format terms add up, as perf's without a default config */
	e = parse_one(*state, "cpu/config=0x1234,umask=1/", 3);
	assert_int_equal(e->attr.config, 0x1334);
	e = parse_one(*state, "cpu//", 4);
	assert_int_equal(e->attr.type, 4);
	assert_int_equal(e->attr.config, 0);
	e = parse_one(*state, "cpu/event=0x3c,name=my-ev,period=1000/k", 5);
	assert_string_equal(e->name, "my-ev");
	assert_int_equal(e->terms.period, 1000);
	assert_int_equal(e->terms.weak, 0);
	assert_int_equal(e->attr.exclude_user, 1);
	e = parse_one(*state, "software/config=2/", 6);
	assert_int_equal(e->attr.type, 1);
	assert_int_equal(e->attr.config, 2);
	e = parse_one(*state, "msr/event=0xffffffffffffffff/", 7);
	assert_int_equal(e->attr.config, ~0ULL);
}

static void test_named_events(void **state)
{
	struct evlist *evlist = *state;
	struct evsel *e;

	e = parse_one(evlist, "cpu/cpu-cycles/", 1);
	assert_int_equal(e->attr.type, 4);
	assert_int_equal(e->attr.config, 0x3c);
	e = parse_one(evlist, "cpu/event=instructions/", 2);
	assert_int_equal(e->attr.config, 0xc0);
	e = parse_one(evlist, "cpu/CPU-CYCLES,cmask=1/", 3);
	assert_int_equal(e->attr.config, 0x3c | 1ULL << 24);
	e = parse_one(evlist, "mem-loads", 4);		/* perf's scanner knows this name */
	assert_string_equal(e->name, "mem-loads");
	assert_int_equal(e->attr.config, 0x1cd);
	assert_int_equal(e->attr.config1, 3);
	e = parse_one(evlist, "topdown-retiring:u", 5);
	assert_int_equal(e->attr.config, 0x8000);
	assert_int_equal(e->attr.exclude_kernel, 1);
	e = parse_one(evlist, "slots", 6);		/* a PMU's event name alone */
	assert_int_equal(e->attr.config, 0x400);
	e = parse_one(evlist, "tsc", 7);
	assert_string_equal(e->name, "tsc");
	assert_int_equal(e->attr.type, 10);
	assert_int_equal(e->attr.config, 0);
	e = parse_one(evlist, "smi:u", 8);
	assert_int_equal(e->attr.config, 4);
	assert_int_equal(e->attr.exclude_kernel, 1);
	e = parse_one(evlist, "energy-pkg", 9);		/* split at '-' by the scanner */
	assert_string_equal(e->name, "energy-pkg");
	assert_int_equal(e->attr.type, 9);
	assert_int_equal(e->attr.config, 2);
	e = parse_one(evlist, "tsc/name=t/", 10);
	assert_string_equal(e->name, "t");
	/* the symbols stay the kernel's generic events, whatever the PMU names */
	e = parse_one(evlist, "cycles,instructions", 12);
	assert_int_equal(evlist->entries[10]->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->attr.config, PERF_COUNT_HW_INSTRUCTIONS);
}

/* A named event's own terms are weak; a "?" takes the value of the term of that name. */
static void test_weak_and_params(void **state)
{
	struct evsel *e;

	e = parse_one(*state, "cpu/cyc-p/", 1);
	assert_int_equal(e->attr.config, 0x3c);
	assert_true(e->terms.set & EVSEL_TERM_PERIOD);
	assert_true(e->terms.weak & EVSEL_TERM_PERIOD);
	assert_int_equal(e->terms.period, 2000003);
	e = parse_one(*state, "cpu/cyc-p,period=77/", 2);
	assert_int_equal(e->terms.period, 77);
	assert_false(e->terms.weak & EVSEL_TERM_PERIOD);
	e = parse_one(*state, "cpu/ev-param,umask=3/", 3);
	assert_int_equal(e->attr.config, 0x310);
}

/* A PMU name that is only a prefix: every PMU it names, uncore_ or not. */
static void test_pmu_prefix(void **state)
{
	struct evlist *evlist = *state;

	/* in the order the directory lists them, as perf */
	parse_one(evlist, "uncore_imc/cas_count_read/", 2);
	assert_int_equal(evlist->entries[0]->attr.type + evlist->entries[1]->attr.type, 20 + 21);
	assert_int_equal(evlist->entries[0]->attr.config, 0x304);
	assert_int_equal(evlist->entries[1]->attr.config, 0x304);
	parse_one(evlist, "imc/event=0x1/", 4);
	assert_int_equal(evlist->entries[2]->attr.type + evlist->entries[3]->attr.type, 20 + 21);
	assert_int_equal(evlist->entries[3]->attr.config, 1);
	parse_one(evlist, "cas_count_read", 6);
	assert_string_equal(evlist->entries[5]->name, "cas_count_read");
}

static void test_pmu_groups(void **state)
{
	struct evlist *evlist = *state;

	parse_one(evlist, "{cpu/cpu-cycles/,cpu/instructions/,tsc}:S", 3);
	assert_ptr_equal(evlist->entries[2]->leader, evlist->entries[0]);
	assert_int_equal(evlist->entries[0]->nr_members, 3);
	assert_true(evlist->entries[2]->sample_read);
	assert_string_equal(evlist->entries[1]->name, "cpu/instructions/");
}

struct pmu_bad {
	const char	*str;
	int		err;
	const char	*contains;
};

static const struct pmu_bad pmu_bad_cases[] = {
	{ "cpu/foo=1/",		-EINVAL, "unknown term 'foo' for pmu 'cpu'; valid terms: " },
	{ "cpu/event=0x100/",	-EINVAL, "value too big for format, maximum is 255" },
	{ "cpu/cmask/",		-EINVAL, "term 'cmask': no value assigned for term" },
	{ "cpu/event=abc/",	-EINVAL, "term 'event': expected numeric value" },
	{ "cpu/umask=?/",	-EINVAL, "term 'umask': required parameter not given" },
	{ "cpu/slots.scale/",	-EINVAL, "unknown term 'slots.scale'" },
	{ "cpu/event=1",	-EINVAL, "ends too early" },
	{ "cpu",		-ENOENT, "event 'cpu' is not known" },
	{ "nosuch/event=1/",	-ENOENT, "no PMU 'nosuch' on this machine" },
	{ "badfmt/event=1/",	-ENOENT, "no PMU 'badfmt'" },
	{ "badtype//",		-ENOENT, "no PMU 'badtype'" },
	{ "software/cpu-clock/", -EINVAL, "unknown term 'cpu-clock' for pmu 'software'" },
	{ "energy-nosuch",	-EINVAL, "not valid event syntax" },
	{ "cpu/event=1/,cpu/foo/", -EINVAL, "event 'cpu/foo/': unknown term 'foo'" },
};

static void test_pmu_errors(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	size_t i;

	for (i = 0; i < sizeof(pmu_bad_cases) / sizeof(pmu_bad_cases[0]); i++) {
		const struct pmu_bad *c = &pmu_bad_cases[i];
		int ret = parse_events__sysfs(evlist, c->str, root, &err);

		if (ret != c->err || !strstr(err.msg, c->contains))
			fail_msg("'%s': %d '%s', not %d '...%s...'", c->str, ret, err.msg,
				 c->err, c->contains);
		assert_null(strchr(err.msg, '\n'));
		assert_int_equal(evlist->nr_entries, 0);
	}
}

/* The host's own sysfs: a PMU that is there, and no cpu PMU on a machine without one. */
static void test_host_sysfs(void **state)
{
	struct evlist *evlist = *state;
	struct parse_events_error err;
	struct stat st;

	assert_int_equal(parse_events(evlist, "software/config=0/", &err), 0);
	assert_int_equal(evlist->entries[0]->attr.type, PERF_TYPE_SOFTWARE);
	if (stat(PMU_SYSFS_ROOT "/cpu", &st) == 0)
		return;
	assert_int_equal(parse_events(evlist, "cpu/event=0x3c/", &err), -ENOENT);
	assert_int_equal(evlist->nr_entries, 1);
}

#define evlist_test(f)	cmocka_unit_test_setup_teardown(f, new_evlist, delete_evlist)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_pmus),
		evlist_test(test_format_terms),
		evlist_test(test_named_events),
		evlist_test(test_weak_and_params),
		evlist_test(test_pmu_prefix),
		evlist_test(test_pmu_groups),
		evlist_test(test_pmu_errors),
		evlist_test(test_host_sysfs),
	};

	return cmocka_run_group_tests(tests, setup_sysfs, teardown_sysfs);
}
