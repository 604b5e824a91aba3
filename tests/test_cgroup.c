// SPDX-License-Identifier: GPL-2.0
/*
 * test_cgroup.c — where perf looks for cgroups, on made-up mount tables (a
 * v1 perf_event hierarchy before any cgroup2, the first cgroup2 otherwise,
 * none at all), and -G's cgroups opened under a mount of this test's own
 * making: shared by reference, a missing one refused.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "precord/cgroup.h"
#include "helpers.h"

static void test_mountpoint(void **state)
{
	char dir[] = "/tmp/precord-cg.XXXXXX", mounts[PATH_MAX], buf[PATH_MAX];

	assert_non_null(mkdtemp(dir));
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);

	file__put_text(mounts, "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
		     "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		     "cgroup /sys/fs/cgroup/perf_event cgroup rw,relatime,perf_event 0 0\n");
	assert_int_equal(cgroup__mountpoint(mounts, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/perf_event");

	file__put_text(mounts, "proc /proc proc rw 0 0\n"
		     "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		     "cgroup2 /a cgroup2 rw 0 0\ncgroup2 /b cgroup2 rw 0 0\n");
	assert_int_equal(cgroup__mountpoint(mounts, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a");

	file__put_text(mounts, "proc /proc proc rw 0 0\ncgroup /c cgroup rw,cpu 0 0\n");
	assert_int_equal(cgroup__mountpoint(mounts, buf, sizeof(buf)), -ENOENT);

	unlink(mounts);
	assert_int_equal(cgroup__mountpoint(mounts, buf, sizeof(buf)), -ENOENT);
	rmdir(dir);
}

static void test_open(void **state)
{
	char dir[] = "/tmp/precord-cg.XXXXXX", mounts[PATH_MAX], sub[PATH_MAX], path[PATH_MAX * 2];
	struct cgroup *a, *b;
	char text[PATH_MAX + 64];

	assert_non_null(mkdtemp(dir));
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);
	snprintf(sub, sizeof(sub), "%s/grp", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(text, sizeof(text), "cgroup2 %s cgroup2 rw 0 0\n", dir);
	file__put_text(mounts, text);

	a = cgroup__open(mounts, "grp", path, sizeof(path));
	assert_non_null(a);
	assert_string_equal(path, sub);
	assert_string_equal(a->name, "grp");
	assert_true(a->fd >= 0);
	assert_int_equal(fcntl(a->fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	b = cgroup__get(a);
	assert_ptr_equal(a, b);
	assert_int_equal(a->refcnt, 2);
	cgroup__put(b);
	assert_int_equal(a->refcnt, 1);
	cgroup__put(a);
	cgroup__put(NULL);

	errno = 0;
	assert_null(cgroup__open(mounts, "nosuch", path, sizeof(path)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(path, "/nosuch"));

	file__put_text(mounts, "proc /proc proc rw 0 0\n");
	assert_null(cgroup__open(mounts, "grp", path, sizeof(path)));
	assert_string_equal(path, "");		/* no mount at all */

	unlink(mounts);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountpoint),
		cmocka_unit_test(test_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
