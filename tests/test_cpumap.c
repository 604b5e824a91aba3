// SPDX-License-Identifier: GPL-2.0
/*
 * test_cpumap.c — CPU lists and maps: the list syntax (perf's, with blanks
 * and overlaps tolerated), checks against a synthetic set of available CPUs
 * (so the results do not depend on this machine), the online set, sysfs-style
 * files, formatting back to a list, lookups, intersection and refcounts
 * (also from two threads at once).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/cpumap.h"

/* A machine with CPUs 0-3, 6 and 8-9 available (4, 5 and 7 offline). */
static struct cpu_map *synthetic_avail(void)
{
	static const int cpus[] = { 9, 0, 1, 2, 3, 6, 8 };
	struct cpu_map *map = cpu_map__new_from(cpus, 7);

	assert_non_null(map);
	return map;
}

static void assert_map(const struct cpu_map *map, const char *want)
{
	char buf[256];

	assert_non_null(map);
	cpu_map__snprintf(map, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* Parse against the synthetic set and expect the result formatted as want. */
static void expect_parse(const char *list, const char *want)
{
	struct cpu_map *avail = synthetic_avail(), *map = NULL;
	int bad = -2, err;

	err = cpu_map__parse_within(list, avail, &map, &bad);
	if (err)
		fail_msg("'%s': error %d, want '%s'", list, err, want);
	assert_map(map, want);
	assert_int_equal(bad, -2);	/* untouched on success */
	cpu_map__put(map);
	cpu_map__put(avail);
}

static void expect_parse_error(const char *list, int want_err, int want_bad)
{
	struct cpu_map *avail = synthetic_avail(), *map = NULL;
	int bad = -2, err;

	err = cpu_map__parse_within(list, avail, &map, &bad);
	if (err != want_err)
		fail_msg("'%s': error %d, want %d", list, err, want_err);
	assert_null(map);
	assert_int_equal(bad, want_bad);
	if (want_err != -ENODEV)
		assert_int_equal(cpu_map__check_list(list), want_err);
	cpu_map__put(avail);
}

static void test_parse_lists(void **state)
{
	expect_parse("0-3,6,8-9", "0-3,6,8-9");
	expect_parse("6", "6");
	expect_parse("9,0", "0,9");
	expect_parse("0-1,3", "0-1,3");
	expect_parse("8-9,0-2", "0-2,8-9");
	expect_parse("3-3", "3");
	expect_parse("6-6,2", "2,6");
}

static void test_parse_blanks_and_overlaps(void **state)
{
	expect_parse(" 0 - 1 , 3 ", "0-1,3");
	expect_parse("0,\t2\n", "0,2");
	expect_parse("0-1,", "0-1");		/* one trailing comma, as perf */
	expect_parse("0-3,2", "0-3");		/* overlaps merge */
	expect_parse("1,1,1", "1");
	expect_parse("0-3,1-2,0", "0-3");
}

static void test_parse_syntax_errors(void **state)
{
	static const char *const bad[] = {
		"1-", "a", "3-1", "", " ", ",0", "0,,1", "0 1", "-1", "1-2-3",
		"0x1", "1;2", "1,a", "2-a", "0-", "-", ",", "0,,", "1.5", "+1",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_parse_error(bad[i], -EINVAL, -2);
	assert_int_equal(cpu_map__check_list(NULL), -EINVAL);
}

static void test_parse_too_large(void **state)
{
	expect_parse_error("99999999999", -ERANGE, -2);
	expect_parse_error("2147483647", -ERANGE, -2);
	expect_parse_error("0-2147483647", -ERANGE, -2);
}

static void test_parse_not_available(void **state)
{
	expect_parse_error("5", -ENODEV, 5);
	expect_parse_error("0-7", -ENODEV, 4);
	expect_parse_error("0,6-8", -ENODEV, 7);
	expect_parse_error("0,100000", -ENODEV, 100000);
	expect_parse_error("10-12", -ENODEV, 10);
	/* a huge range fails at once, without building it */
	expect_parse_error("0-2147483646", -ENODEV, 4);
	/* the first bad CPU in the order given */
	expect_parse_error("7,5", -ENODEV, 7);
}

static void test_check_list(void **state)
{
	assert_int_equal(cpu_map__check_list("0-3,6"), 0);
	assert_int_equal(cpu_map__check_list("4095"), 0);	/* syntax only */
	assert_int_equal(cpu_map__check_list(" 1 , 2 - 5 ,"), 0);
	assert_int_equal(cpu_map__check_list("1-"), -EINVAL);
	assert_int_equal(cpu_map__check_list("3000000000"), -ERANGE);
}

static void test_online(void **state)
{
	struct cpu_map *online = cpu_map__new_online(), *map = NULL;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char list[32];
	int bad = -2, i, max = cpu__max_present();

	assert_non_null(online);
	assert_true(online->nr >= 1);
	if (n > 0)
		assert_int_equal(online->nr, n);
	for (i = 1; i < online->nr; i++)
		assert_true(online->map[i - 1].cpu < online->map[i].cpu);
	assert_true(max >= online->map[online->nr - 1].cpu + 1);

	/* the first online CPU parses; one past the present ones does not */
	snprintf(list, sizeof(list), "%d", online->map[0].cpu);
	assert_int_equal(cpu_map__parse(list, &map, &bad), 0);
	assert_int_equal(map->nr, 1);
	assert_int_equal(map->map[0].cpu, online->map[0].cpu);
	cpu_map__put(map);
	map = NULL;

	snprintf(list, sizeof(list), "%d", max);
	assert_int_equal(cpu_map__parse(list, &map, &bad), -ENODEV);
	assert_int_equal(bad, max);
	assert_null(map);
	assert_int_equal(cpu_map__parse("x", &map, &bad), -EINVAL);
	assert_int_equal(cpu_map__parse("", &map, NULL), -EINVAL);
	snprintf(list, sizeof(list), "%d", max);
	assert_int_equal(cpu_map__parse(list, &map, NULL), -ENODEV);
	cpu_map__put(online);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/test_cpumap.XXXXXX";
	struct cpu_map *map;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);

	write_file(path, "0-3,6\n");
	map = cpu_map__read(path);
	assert_map(map, "0-3,6");
	assert_int_equal(map->nr, 5);
	cpu_map__put(map);

	write_file(path, "0-63\n");
	map = cpu_map__read(path);
	assert_non_null(map);
	assert_int_equal(map->nr, 64);
	assert_int_equal(map->map[63].cpu, 63);
	cpu_map__put(map);

	write_file(path, "garbage\n");
	assert_null(cpu_map__read(path));
	write_file(path, "");
	assert_null(cpu_map__read(path));
	unlink(path);
	assert_null(cpu_map__read(path));
}

static void test_new_from(void **state)
{
	static const int cpus[] = { 3, 1, 3, 2, 7 };
	struct cpu_map *map = cpu_map__new_from(cpus, 5), *empty;
	char buf[16];

	assert_map(map, "1-3,7");
	assert_int_equal(map->nr, 4);
	cpu_map__put(map);

	empty = cpu_map__new_from(NULL, 0);
	assert_non_null(empty);
	assert_int_equal(empty->nr, 0);
	assert_int_equal(cpu_map__snprintf(empty, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(cpu_map__idx(empty, (struct cpu){ 0 }), -1);
	cpu_map__put(empty);

	assert_null(cpu_map__new_from(NULL, 3));
	assert_null(cpu_map__new_from(cpus, -1));
}

static void test_any(void **state)
{
	struct cpu_map *any = cpu_map__new_any(), *other = synthetic_avail();

	assert_non_null(any);
	assert_true(cpu_map__is_any(any));
	assert_false(cpu_map__is_any(other));
	assert_int_equal(cpu_map__idx(any, (struct cpu){ -1 }), 0);
	assert_map(any, "-1");
	cpu_map__put(other);
	cpu_map__put(any);
}

static void test_snprintf_rules(void **state)
{
	struct cpu_map *map = synthetic_avail();
	char small[4];
	int i, len;

	len = cpu_map__snprintf(map, small, sizeof(small));
	assert_int_equal(len, (int)strlen("0-3,6,8-9"));
	assert_string_equal(small, "0-3");
	assert_int_equal(cpu_map__snprintf(map, NULL, 0), len);
	for (i = 1; i <= len + 1; i++) {
		char buf[32];

		memset(buf, 'x', sizeof(buf));
		assert_int_equal(cpu_map__snprintf(map, buf, i), len);
		assert_int_equal(strlen(buf), (size_t)(i - 1 < len ? i - 1 : len));
		assert_int_equal(strncmp(buf, "0-3,6,8-9", strlen(buf)), 0);
	}
	assert_int_equal(cpu_map__snprintf(NULL, small, sizeof(small)), 0);
	assert_string_equal(small, "");
	cpu_map__put(map);
}

static void test_idx_binary_search(void **state)
{
	int cpus[100], i;
	struct cpu_map *map;

	for (i = 0; i < 100; i++)
		cpus[i] = 2 * i + 1;		/* odd CPUs 1..199 */
	map = cpu_map__new_from(cpus, 100);
	assert_non_null(map);
	for (i = 0; i < 100; i++) {
		assert_int_equal(cpu_map__idx(map, (struct cpu){ 2 * i + 1 }), i);
		assert_int_equal(cpu_map__idx(map, (struct cpu){ 2 * i }), -1);
		assert_true(cpu_map__has(map, (struct cpu){ 2 * i + 1 }));
		assert_false(cpu_map__has(map, (struct cpu){ 2 * i }));
	}
	assert_int_equal(cpu_map__idx(map, (struct cpu){ 200 }), -1);
	assert_int_equal(cpu_map__idx(map, (struct cpu){ -1 }), -1);
	assert_int_equal(cpu_map__idx(NULL, (struct cpu){ 0 }), -1);
	cpu_map__put(map);
}

static void test_for_each(void **state)
{
	struct cpu_map *map = synthetic_avail();
	struct cpu cpu;
	int idx, sum = 0, n = 0;

	cpu_map__for_each_cpu(cpu, idx, map) {
		assert_int_equal(cpu_map__idx(map, cpu), idx);
		sum += cpu.cpu;
		n++;
	}
	assert_int_equal(n, 7);
	assert_int_equal(sum, 0 + 1 + 2 + 3 + 6 + 8 + 9);
	cpu_map__put(map);
}

static void test_intersect(void **state)
{
	static const int a_cpus[] = { 0, 1, 2, 3 }, b_cpus[] = { 2, 3, 4, 5 }, c_cpus[] = { 7 };
	struct cpu_map *a = cpu_map__new_from(a_cpus, 4), *b = cpu_map__new_from(b_cpus, 4);
	struct cpu_map *c = cpu_map__new_from(c_cpus, 1), *any = cpu_map__new_any(), *r;

	r = cpu_map__intersect(a, b);
	assert_map(r, "2-3");
	cpu_map__put(r);
	r = cpu_map__intersect(b, a);
	assert_map(r, "2-3");
	cpu_map__put(r);
	r = cpu_map__intersect(a, c);
	assert_non_null(r);
	assert_int_equal(r->nr, 0);
	cpu_map__put(r);
	r = cpu_map__intersect(any, b);
	assert_map(r, "2-5");
	assert_true(r != b);
	cpu_map__put(r);
	r = cpu_map__intersect(a, any);
	assert_map(r, "0-3");
	cpu_map__put(r);
	assert_null(cpu_map__intersect(NULL, a));

	cpu_map__put(any);
	cpu_map__put(c);
	cpu_map__put(b);
	cpu_map__put(a);
}

static void test_subtract(void **state)
{
	static const int a_cpus[] = { 0, 1, 2, 3, 6, 7 }, b_cpus[] = { 1, 3, 4, 7, 9 };
	struct cpu_map *a = cpu_map__new_from(a_cpus, 6), *b = cpu_map__new_from(b_cpus, 5);
	struct cpu_map *any = cpu_map__new_any(), *r;

	r = cpu_map__subtract(a, b);
	assert_map(r, "0,2,6");
	cpu_map__put(r);
	r = cpu_map__subtract(b, a);
	assert_map(r, "4,9");
	cpu_map__put(r);
	r = cpu_map__subtract(a, a);
	assert_non_null(r);
	assert_int_equal(r->nr, 0);
	cpu_map__put(r);
	assert_null(cpu_map__subtract(a, any));
	assert_null(cpu_map__subtract(any, a));
	assert_null(cpu_map__subtract(NULL, a));

	cpu_map__put(any);
	cpu_map__put(b);
	cpu_map__put(a);
}

/* present: the kernel's list, holding every online CPU. */
static void test_present(void **state)
{
	struct cpu_map *present = cpu_map__new_present(), *online = cpu_map__new_online(), *r;

	assert_non_null(present);
	assert_non_null(online);
	r = cpu_map__subtract(online, present);
	assert_non_null(r);
	assert_int_equal(r->nr, 0);
	assert_int_equal(present->map[present->nr - 1].cpu + 1, cpu__max_present());
	cpu_map__put(r);
	cpu_map__put(online);
	cpu_map__put(present);
}

#define GETS_PER_THREAD	100000

/* No cmocka asserts off the main thread: count mismatches, check after join. */
static void *get_put_loop(void *arg)
{
	struct cpu_map *map = arg;
	long i, wrong = 0;

	for (i = 0; i < GETS_PER_THREAD; i++) {
		wrong += cpu_map__get(map) != map;
		cpu_map__put(map);
	}
	return (void *)wrong;
}

static void test_refcount(void **state)
{
	struct cpu_map *map = synthetic_avail();
	pthread_t t1, t2;
	void *r1, *r2;

	assert_int_equal(map->refcnt, 1);
	assert_ptr_equal(cpu_map__get(map), map);
	assert_int_equal(map->refcnt, 2);
	cpu_map__put(map);
	assert_int_equal(map->refcnt, 1);
	assert_null(cpu_map__get(NULL));
	cpu_map__put(NULL);

	assert_int_equal(pthread_create(&t1, NULL, get_put_loop, map), 0);
	assert_int_equal(pthread_create(&t2, NULL, get_put_loop, map), 0);
	assert_int_equal(pthread_join(t1, &r1), 0);
	assert_int_equal(pthread_join(t2, &r2), 0);
	assert_null(r1);
	assert_null(r2);
	assert_int_equal(map->refcnt, 1);
	cpu_map__put(map);	/* the last put frees: ASan would see a leak otherwise */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lists),
		cmocka_unit_test(test_parse_blanks_and_overlaps),
		cmocka_unit_test(test_parse_syntax_errors),
		cmocka_unit_test(test_parse_too_large),
		cmocka_unit_test(test_parse_not_available),
		cmocka_unit_test(test_check_list),
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_new_from),
		cmocka_unit_test(test_any),
		cmocka_unit_test(test_snprintf_rules),
		cmocka_unit_test(test_idx_binary_search),
		cmocka_unit_test(test_for_each),
		cmocka_unit_test(test_intersect),
		cmocka_unit_test(test_subtract),
		cmocka_unit_test(test_present),
		cmocka_unit_test(test_refcount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
