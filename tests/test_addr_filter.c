// SPDX-License-Identifier: GPL-2.0
/*
 * test_addr_filter.c — address filters with symbols (src/addr-filter.c):
 * perf's syntax, resolved in real ELF files the test builds with gcc (a
 * PIE and a non-PIE, whose file offsets differ from their addresses; three
 * functions of one name, two local and one global) against what nm and
 * readelf say of them, and in a made-up kallsyms; perf's rules for an
 * ambiguous name, #N and #g, a missing symbol, sizes, '*'; and the filter
 * of an event whose PMU (in a made-up sysfs root) has nr_addr_filters.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "precord/addr-filter.h"
#include "precord/evsel.h"
#include "precord/util.h"
#include "helpers.h"

struct tdir {
	char	path[TMPDIR_PATH_SIZE];	/* first: a tmpdir__fixture() */
	char	pie[PATH_MAX], nopie[PATH_MAX];
	char	kallsyms[PATH_MAX];
};

static const char src_a[] =
	"__attribute__((noinline, used)) static int dup_fn(int x) { return x * 3 + 1; }\n"
	"int call_a(int x) { return dup_fn(x); }\n";
static const char src_b[] =
	"__attribute__((noinline, used)) static int dup_fn(int x) { return x * 5 + 2; }\n"
	"int call_b(int x) { return dup_fn(x); }\n";
static const char src_main[] =
	"int call_a(int); int call_b(int);\n"
	"__attribute__((noinline)) int dup_fn(int x) { return x - 1; }\n"
	"__attribute__((noinline)) int global_fn(int x) { return call_a(x) + call_b(x); }\n"
	"__attribute__((noinline)) int last_fn(int x) { return global_fn(x) + dup_fn(x); }\n"
	"int main(int argc, char **argv) { return last_fn(argc) == 12345; }\n";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t dup_k\n"
	"ffffffff81001100 T other\n"
	"ffffffff81002000 t dup_k\n"
	"ffffffff81002200 T dup_k\n"
	"ffffffff81002300 d some_data\n"
	"ffffffff81003000 t modfn\t[mymod]\n"
	"ffffffff81003050 t after\t[mymod]\n"
	"ffffffff81004000 T last_fn\n";

static int setup(void **state)
{
	struct tdir *t = tmpdir__fixture(sizeof(*t), "addr-filter");
	char a[PATH_MAX], b[PATH_MAX], m[PATH_MAX], cmd[9 * PATH_MAX];

	if (!t)
		return -1;
	*state = t;
	file__put_text(tmpdir__path(t->path, "a.c", a, sizeof(a)), src_a);
	file__put_text(tmpdir__path(t->path, "b.c", b, sizeof(b)), src_b);
	file__put_text(tmpdir__path(t->path, "main.c", m, sizeof(m)), src_main);
	file__put_text(tmpdir__path(t->path, "kallsyms", t->kallsyms, sizeof(t->kallsyms)),
		       kallsyms);
	tmpdir__path(t->path, "pie", t->pie, sizeof(t->pie));
	tmpdir__path(t->path, "nopie", t->nopie, sizeof(t->nopie));
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fpie -pie -o '%s' '%s' '%s' '%s' 2>/dev/null && "
		 "gcc -O1 -fno-pie -no-pie -o '%s' '%s' '%s' '%s' 2>/dev/null",
		 t->pie, a, b, m, t->nopie, a, b, m);
	if (system(cmd))
		t->pie[0] = '\0';	/* no gcc: the file tests skip */
	return 0;
}

/* The n'th (from 1) "VALUE SIZE TYPE NAME" of nm -S for name, in address order; 0 when none. */
static int nm_sym(const char *file, const char *name, int n, unsigned long long *value,
		  unsigned long long *size, char *type)
{
	char cmd[PATH_MAX + 64], line[512], nm_name[256];
	int found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S -n --defined-only '%s'", file);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx %c %255s", value, size, type, nm_name) == 4 &&
		    !strcmp(nm_name, name) && ++found == n)
			break;
	pclose(f);
	return found == n;
}

/* p_vaddr - p_offset of the executable PT_LOAD, from readelf. */
static unsigned long long text_delta(const char *file)
{
	char cmd[2 * PATH_MAX], line[512], type[32];
	unsigned long long off, vaddr, paddr, fsz, msz, delta = ~0ull;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", file);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int at = 0;

		/* "LOAD off vaddr paddr filesz memsz R E align": the flags hold blanks */
		if (sscanf(line, " %31s %llx %llx %llx %llx %llx%n", type, &off, &vaddr, &paddr,
			   &fsz, &msz, &at) == 6 && !strcmp(type, "LOAD") && strchr(line + at, 'E'))
			delta = vaddr - off;
	}
	pclose(f);
	assert_true(delta != ~0ull);
	return delta;
}

static char *resolve_ok(const char *filter, int max_nr, const char *kall)
{
	char msg[2048] = "", *out = NULL;

	if (addr_filter__resolve(filter, max_nr, kall, &out, msg, sizeof(msg)))
		fail_msg("'%s': %s", filter, msg);
	return out;
}

/* filter resolves to exactly want. */
static void resolve_is(const char *filter, int max_nr, const char *kall, const char *want)
{
	char *out = resolve_ok(filter, max_nr, kall);

	assert_string_equal(out, want);
	free(out);
}

static void resolve_err(const char *filter, int max_nr, const char *kall, const char *want)
{
	char msg[2048] = "", *out = (char *)1;

	assert_true(addr_filter__resolve(filter, max_nr, kall, &out, msg, sizeof(msg)) < 0);
	assert_null(out);
	if (!strstr(msg, want))
		fail_msg("'%s': '%s' has no '%s'", filter, msg, want);
	assert_null(strchr(msg, '\n'));
}

/*
 * A global function of each file: its file offset (nm's value less the
 * text segment's p_vaddr - p_offset: 0 in the PIE, 0x400000 in the other)
 * and nm's size, '@' the file's real path; 'start' has no size.
 */
static void test_file_symbol(void **state)
{
	struct tdir *t = *state;
	const char *files[] = { t->pie, t->nopie };
	unsigned long long v, s;
	char want[3 * PATH_MAX], filter[2 * PATH_MAX], real[PATH_MAX], type;
	size_t i;

	if (!t->pie[0]) {
		skip();
		return;
	}
	for (i = 0; i < 2; i++) {
		char *out;

		assert_true(nm_sym(files[i], "global_fn", 1, &v, &s, &type));
		assert_non_null(realpath(files[i], real));
		snprintf(filter, sizeof(filter), "filter global_fn @ %s", files[i]);
		out = resolve_ok(filter, 4, NULL);
		snprintf(want, sizeof(want), "filter 0x%llx/0x%llx@%s", v - text_delta(files[i]), s,
			 real);
		assert_string_equal(out, want);
		free(out);
		snprintf(filter, sizeof(filter), "start global_fn @ %s, tracestop last_fn@%s",
			 files[i], files[i]);
		/* "last_fn@FILE" is one word in perf's grammar: a symbol of the kernel's */
		resolve_err(filter, 4, t->kallsyms, "Kernel symbol lookup: Symbol 'last_fn@");
	}
	assert_true(text_delta(t->nopie) != 0);
}

/*
 * Three dup_fn: ambiguous without an index (the error lists them), the
 * N'th in address order with #N, the global one with #g, #G or #0; a
 * missing one and a missing N'th in perf's words.
 */
static void test_file_ambiguous(void **state)
{
	struct tdir *t = *state;
	unsigned long long v, s, delta;
	char filter[2 * PATH_MAX], want[3 * PATH_MAX], real[PATH_MAX], type;
	const char *globals[] = { "#g", "#G", "#0" };
	char *out;
	int n;
	size_t i;

	if (!t->pie[0]) {
		skip();
		return;
	}
	delta = text_delta(t->nopie);
	assert_non_null(realpath(t->nopie, real));
	snprintf(filter, sizeof(filter), "filter dup_fn @ %s", t->nopie);
	resolve_err(filter, 4, NULL, "Multiple symbols with name 'dup_fn'");
	resolve_err(filter, 4, NULL, "#3 0x");
	for (n = 1; n <= 3; n++) {
		assert_true(nm_sym(t->nopie, "dup_fn", n, &v, &s, &type));
		snprintf(filter, sizeof(filter), "filter dup_fn #%d @ %s", n, t->nopie);
		out = resolve_ok(filter, 4, NULL);
		snprintf(want, sizeof(want), "filter 0x%llx/0x%llx@%s", v - delta, s, real);
		assert_string_equal(out, want);
		free(out);
		if (type != 'T')
			continue;
		for (i = 0; i < 3; i++) {
			snprintf(filter, sizeof(filter), "filter dup_fn %s @ %s", globals[i], t->nopie);
			resolve_is(filter, 4, NULL, want);
		}
	}
	snprintf(filter, sizeof(filter), "filter dup_fn #4 @ %s", t->nopie);
	resolve_err(filter, 4, NULL, "N'th occurrence (N=4) of symbol 'dup_fn' not found");
	snprintf(filter, sizeof(filter), "filter call_a #g @ %s", t->nopie);
	out = resolve_ok(filter, 4, NULL);
	free(out);
	snprintf(filter, sizeof(filter), "filter no_such_fn @ %s", t->nopie);
	resolve_err(filter, 4, NULL, "Symbol 'no_such_fn' not found");
	resolve_err("filter main @ /nonexistent/file", 4, NULL, "File '/nonexistent/file' not found");
	snprintf(filter, sizeof(filter), "filter main @ %s", t->kallsyms);
	resolve_err(filter, 4, NULL, "not an ELF file");
}

/* sym / sym: from the first's start to the second's end; backwards is refused. '*': the file. */
static void test_file_range(void **state)
{
	struct tdir *t = *state;
	unsigned long long v1, s1, v2, s2, delta;
	char filter[2 * PATH_MAX], want[3 * PATH_MAX], real[PATH_MAX], type;
	struct stat st;
	const char *from, *to;
	char *out;

	if (!t->pie[0]) {
		skip();
		return;
	}
	delta = text_delta(t->nopie);
	assert_non_null(realpath(t->nopie, real));
	/* two functions of two files, so that neither ends where the other starts */
	assert_true(nm_sym(t->nopie, "call_a", 1, &v1, &s1, &type));
	assert_true(nm_sym(t->nopie, "last_fn", 1, &v2, &s2, &type));
	from = v1 < v2 ? "call_a" : "last_fn";
	to = v1 < v2 ? "last_fn" : "call_a";
	if (v1 > v2) {
		unsigned long long x = v1, y = s1;

		v1 = v2, s1 = s2, v2 = x, s2 = y;
	}
	assert_true(v1 + s1 < v2);
	snprintf(filter, sizeof(filter), "filter %s / %s @ %s", from, to, t->nopie);
	out = resolve_ok(filter, 4, NULL);
	snprintf(want, sizeof(want), "filter 0x%llx/0x%llx@%s", v1 - delta, v2 + s2 - v1, real);
	assert_string_equal(out, want);
	free(out);
	snprintf(filter, sizeof(filter), "filter %s / %s @ %s", to, from, t->nopie);
	resolve_err(filter, 4, NULL, "comes before");
	snprintf(filter, sizeof(filter), "filter * @ %s", t->nopie);
	out = resolve_ok(filter, 4, NULL);
	assert_int_equal(stat(t->nopie, &st), 0);
	snprintf(want, sizeof(want), "filter 0x0/0x%llx@%s", (unsigned long long)st.st_size, real);
	assert_string_equal(out, want);
	free(out);
}

/*
 * The file offset perf gives a function: `perf probe -x FILE -a FUNC`
 * writes it into uprobe_events (perf's own symbol loading, as its address
 * filters use it). 0 when perf probe cannot run here (no uprobes, no
 * tracefs); the probe is deleted again.
 */
static unsigned long long perf_probe_offset(const char *file, const char *func)
{
	char group[32], cmd[2 * PATH_MAX + 256], line[PATH_MAX + 128], *p;
	unsigned long long off = 0;
	FILE *f;

	snprintf(group, sizeof(group), "precord_t%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "perf probe -q -x '%s' -a '%s:%s=%s' >/dev/null 2>&1 && "
		 "cat /sys/kernel/tracing/uprobe_events", file, group, func, func);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, group) && (p = strrchr(line, ':')))
			off = strtoull(p + 1, NULL, 16);
	pclose(f);
	snprintf(cmd, sizeof(cmd), "perf probe -q -d '%s:*' >/dev/null 2>&1", group);
	if (system(cmd))	/* a probe left behind is seen in uprobe_events: no reason to fail here */
		fprintf(stderr, "could not delete the probe group %s\n", group);
	return off;
}

/* Each global function of both files where perf's probe puts it, where perf probe works. */
static void test_file_same_as_perf(void **state)
{
	struct tdir *t = *state;
	static const char *const funcs[] = { "global_fn", "last_fn", "call_a", "call_b", "main" };
	const char *files[] = { t->pie, t->nopie };
	char filter[2 * PATH_MAX], want[32];
	unsigned long long off;
	size_t i, j;
	char *out;
	int compared = 0;

	if (!t->pie[0]) {
		skip();
		return;
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		for (j = 0; j < ARRAY_SIZE(funcs); j++) {
			off = perf_probe_offset(files[i], funcs[j]);
			if (!off)
				continue;
			snprintf(filter, sizeof(filter), "start %s @ %s", funcs[j], files[i]);
			out = resolve_ok(filter, 1, NULL);
			snprintf(want, sizeof(want), "start 0x%llx@", off);
			if (strncmp(out, want, strlen(want)))
				fail_msg("%s: '%s', perf probe: 0x%llx", filter, out, off);
			free(out);
			compared++;
		}
	}
	if (!compared)
		skip();
}

/* The kernel's: sizes up to the next line, #N, #g, a module's symbol, '*', the errors. */
static void test_kernel(void **state)
{
	struct tdir *t = *state;
	const char *k = t->kallsyms;

	resolve_is("filter other", 1, k, "filter 0xffffffff81001100/0xf00");
	resolve_err("filter dup_k", 1, k, "Multiple kernel symbols with name 'dup_k' "
		    "(#1 0xffffffff81001000 t, #2 0xffffffff81002000 t, #3 0xffffffff81002200 T)");
	resolve_is("filter dup_k #2, start dup_k #g tracestop other", 3, k,
		   "filter 0xffffffff81002000/0x200,start 0xffffffff81002200,"
		   "stop 0xffffffff81001100/0xf00");
	resolve_is("filter modfn  stop 0xffffffff81000010", 2, k,
		   "filter 0xffffffff81003000/0x50,stop 0xffffffff81000010");
	resolve_is("filter other / modfn", 1, k, "filter 0xffffffff81001100/0x1f50");
	resolve_is("filter *", 1, k, "filter 0xffffffff81000000/0x5000");
	resolve_is("filter 0xffffffff81000000/0x100", 1, k, "filter 0xffffffff81000000/0x100");
	resolve_err("filter modfn / other", 1, k, "Symbol 'other' (0xffffffff81001100) comes "
		    "before 'modfn' (0xffffffff81003000)");
	resolve_err("filter last_fn", 1, k, "Cannot determine size of symbol 'last_fn'");
	resolve_err("filter nothing", 1, k, "Kernel symbol lookup: Symbol 'nothing' not found");
	resolve_err("filter some_data", 1, k, "Symbol 'some_data' not found (symbols must be functions)");
	resolve_err("filter other #g x", 1, k, "Filter format is");
	resolve_err("bogus 0x10", 1, k, "Filter format is");
	resolve_err("filter other, filter dup_k #1", 1, k, "number of address filters (2) exceeds "
		    "maximum (1)");
}

static void test_kernel_restricted(void **state)
{
	struct tdir *t = *state;
	char path[PATH_MAX];

	file__put_text(tmpdir__path(t->path, "hidden", path, sizeof(path)),
		       "0000000000000000 T _stext\n0000000000000000 t other\n0000000000000000 T next\n");
	resolve_err("filter other", 1, path, "Kernel addresses are restricted");
}

/* The event of a PMU with nr_addr_filters gets the resolved string; others keep theirs. */
static void test_apply(void **state)
{
	struct tdir *t = *state;
	struct perf_event_attr attr = { .type = 42 };
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], msg[1024] = "";
	struct evsel *ev;

	tmpdir__path(t->path, "devices", root, sizeof(root));
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(mkdir(tmpdir__path(root, "fake_pt", dir, sizeof(dir)), 0700), 0);
	file__put_text(tmpdir__path(dir, "type", path, sizeof(path)), "42\n");
	file__put_text(tmpdir__path(dir, "nr_addr_filters", path, sizeof(path)), "2\n");
	ev = evsel__new(&attr, "fake_pt//");
	assert_non_null(ev);
	assert_int_equal(addr_filter__append(ev, "filter other"), 0);
	assert_int_equal(addr_filter__append(ev, "stop dup_k #2"), 0);
	assert_int_equal(addr_filter__apply(ev, root, t->kallsyms, msg, sizeof(msg)), 0);
	assert_string_equal(ev->filter, "filter 0xffffffff81001100/0xf00,stop 0xffffffff81002000");
	assert_int_equal(addr_filter__append(ev, "filter dup_k #1"), 0);
	assert_int_equal(addr_filter__apply(ev, root, t->kallsyms, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "exceeds maximum (2)"));
	evsel__delete(ev);

	attr.type = 43;		/* no such PMU under root: left as it is */
	ev = evsel__new(&attr, "other//");
	assert_non_null(ev);
	assert_int_equal(addr_filter__append(ev, "filter other"), 0);
	assert_int_equal(addr_filter__apply(ev, root, t->kallsyms, msg, sizeof(msg)), 0);
	assert_string_equal(ev->filter, "filter other");
	evsel__delete(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_symbol),
		cmocka_unit_test(test_file_ambiguous),
		cmocka_unit_test(test_file_range),
		cmocka_unit_test(test_file_same_as_perf),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_kernel_restricted),
		cmocka_unit_test(test_apply),
	};

	return cmocka_run_group_tests(tests, setup, tmpdir__fixture_free);
}
