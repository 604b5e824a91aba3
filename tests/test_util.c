// SPDX-License-Identifier: GPL-2.0
/*
 * test_util.c — the shared helpers (src/util.c): the checked parsers of
 * /proc and sysfs numbers refuse what strtoull(), sscanf() and atoi() let
 * through (no digits, signs, overflow, trailing text); key lines and
 * prefixed names; small files read and trimmed; whole reads that say
 * where a file ends; messages into a caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/util.h"
#include "helpers.h"

static void test_parse_u64(void **state)
{
	const char *end;
	u64 v = 7;

	assert_int_equal(parse__u64("42", 10, &v, NULL), 0);
	assert_true(v == 42);
	assert_int_equal(parse__u64("  18446744073709551615\n", 10, &v, NULL), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse__u64("18446744073709551616", 10, &v, NULL), -ERANGE);
	/* strtoull() takes "-1" as UINT64_MAX, atoi() "12abc" as 12 */
	assert_int_equal(parse__u64("-1", 10, &v, NULL), -EINVAL);
	assert_int_equal(parse__u64("12abc", 10, &v, NULL), -EINVAL);
	assert_int_equal(parse__u64("", 10, &v, NULL), -EINVAL);
	assert_int_equal(parse__u64("kB", 10, &v, NULL), -EINVAL);
	assert_int_equal(parse__u64("0x0005\n", 0, &v, NULL), 0);
	assert_true(v == 5);
	assert_int_equal(parse__u64("ffffffffc0a00000", 16, &v, NULL), 0);
	assert_true(v == 0xffffffffc0a00000ULL);
	assert_int_equal(parse__u64("16 kB", 10, &v, &end), 0);
	assert_true(v == 16);
	assert_string_equal(end, " kB");
}

static void test_parse_int(void **state)
{
	unsigned int u;
	int v;

	assert_int_equal(parse__int("-5", 10, &v, NULL), 0);
	assert_int_equal(v, -5);
	assert_int_equal(parse__int("2147483648", 10, &v, NULL), -ERANGE);
	assert_int_equal(parse__int("-2147483649", 10, &v, NULL), -ERANGE);
	assert_int_equal(parse__int("- 5", 10, &v, NULL), -EINVAL);
	assert_int_equal(parse__uint("4294967295", 10, &u, NULL), 0);
	assert_true(u == UINT_MAX);
	assert_int_equal(parse__uint("4294967296", 10, &u, NULL), -ERANGE);
}

static void test_parse_keys_and_names(void **state)
{
	unsigned int n;
	u64 v;
	int i;

	assert_int_equal(parse__key_int("Tgid:\t1234\n", "Tgid", &i), 0);
	assert_int_equal(i, 1234);
	assert_int_equal(parse__key_int("Tgid:\t99999999999\n", "Tgid", &i), -ERANGE);
	assert_int_equal(parse__key_int("TgidX:\t1\n", "Tgid", &i), -ENOENT);
	assert_int_equal(parse__key_int("PPid:\t1\n", "Tgid", &i), -ENOENT);
	assert_int_equal(parse__key_u64("MemTotal:       16314652 kB\n", "MemTotal", 10, &v), 0);
	assert_true(v == 16314652);
	assert_int_equal(parse__key_u64("CapEff:\t000001ffffffffff\n", "CapEff", 16, &v), 0);
	assert_true(v == 0x1ffffffffffULL);
	assert_int_equal(parse__name_uint("node12", "node", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(parse__name_uint("node", "node", &n), -EINVAL);
	assert_int_equal(parse__name_uint("node1x", "node", &n), -EINVAL);
	assert_int_equal(parse__name_uint("node-1", "node", &n), -EINVAL);
	assert_int_equal(parse__name_uint("memory4294967296", "memory", &n), -ERANGE);
}

static void test_files(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], buf[32], *line;
	int v, fd;
	u64 u;

	tmpdir__path(dir, "sysctl", path, sizeof(path));
	file__put_text(path, "  516\n");
	assert_int_equal(file__read_int(path, 10, &v), 0);
	assert_int_equal(v, 516);
	assert_int_equal(file__read_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "516");
	file__put_text(path, "516 kB\n");
	assert_int_equal(file__read_int(path, 10, &v), -EINVAL);
	file__put_text(path, "0x8000000\n");
	assert_int_equal(file__read_u64(path, 16, &u), 0);
	assert_true(u == 0x8000000);
	file__put_text(path, "MemFree: 1 kB\nMemTotal: 2 kB\n");
	assert_int_equal(file__find_line(path, "MemTotal", &line), 0);
	assert_string_equal(line, "MemTotal: 2 kB\n");
	free(line);
	assert_int_equal(file__find_line(path, "Swap", &line), -ENOENT);
	tmpdir__path(dir, "missing", path, sizeof(path));
	assert_int_equal(file__read_int(path, 10, &v), -ENOENT);

	tmpdir__path(dir, "short", path, sizeof(path));
	file__put_text(path, "0123456789");
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread_all(fd, buf, 4, 6, -ENOEXEC), 0);
	assert_memory_equal(buf, "6789", 4);
	assert_int_equal(pread_all(fd, buf, 5, 6, -ENOEXEC), -ENOEXEC);
	assert_int_equal(pwrite_all(fd, "ab", 2, 20), 0);
	assert_int_equal(pread_all(fd, buf, 2, 20, -EINVAL), 0);
	assert_memory_equal(buf, "ab", 2);
	close(fd);
}

/* A buffer doubles from its first size until what it must hold fits. */
static void test_buf_grow(void **state)
{
	size_t cap = 0;
	char *buf = buf__grow(NULL, &cap, 10, 16), *p;

	assert_non_null(buf);
	assert_int_equal(cap, 16);
	memset(buf, 'a', cap);
	p = buf__grow(buf, &cap, 17, 16);
	assert_non_null(p);
	assert_int_equal(cap, 32);
	assert_int_equal(p[15], 'a');	/* what it held is kept */
	buf = p;
	p = buf__grow(buf, &cap, 129, 16);
	assert_non_null(p);
	assert_int_equal(cap, 256);
	buf = p;
	/* a size no doubling reaches: NULL, the buffer and its size as they were */
	assert_null(buf__grow(buf, &cap, SIZE_MAX, 16));
	assert_int_equal(cap, 256);
	assert_int_equal(buf[0], 'a');
	free(buf);
}

static void test_errbuf(void **state)
{
	char err[8] = "x";

	assert_int_equal(errbuf__set(err, sizeof(err), -EIO, "%s %d", "bad", 12345), -EIO);
	assert_string_equal(err, "bad 123");
	assert_int_equal(errbuf__set(NULL, 0, -EINVAL, "nothing"), -EINVAL);
	assert_true(clock__now_ns() > 0 && clock__now_ms() <= clock__now_ns() / 1000000);
}

static char dir[PATH_MAX];

static int setup(void **state)
{
	*state = dir;
	return tmpdir__make(dir, sizeof(dir), "/tmp", "util");
}

static int teardown(void **state)
{
	return tmpdir__remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_parse_keys_and_names),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test(test_errbuf),
		cmocka_unit_test(test_buf_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
