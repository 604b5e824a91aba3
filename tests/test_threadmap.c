// SPDX-License-Identifier: GPL-2.0
/*
 * test_threadmap.c — thread maps from -p and -t lists, on this test's own
 * process (one task, then two with a helper thread parked on a pipe), on a
 * pid that is certainly dead (a reaped child), and on bad list syntax; and
 * from -u, for this test's uid and for one nobody has.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/threadmap.h"

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A helper thread that reports its tid and waits until the pipe closes. */
struct parked {
	pthread_t	thread;
	int		to_main[2];
	int		to_thread[2];
	pid_t		tid;
};

static void *parked_main(void *arg)
{
	struct parked *p = arg;
	pid_t tid = my_tid();
	char c;

	if (write(p->to_main[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(p->to_thread[0], &c, 1) > 0)
		;
	return NULL;
}

static void parked__start(struct parked *p)
{
	assert_int_equal(pipe(p->to_main), 0);
	assert_int_equal(pipe(p->to_thread), 0);
	assert_int_equal(pthread_create(&p->thread, NULL, parked_main, p), 0);
	assert_int_equal(read(p->to_main[0], &p->tid, sizeof(p->tid)), sizeof(p->tid));
}

static void parked__stop(struct parked *p)
{
	close(p->to_thread[1]);
	assert_int_equal(pthread_join(p->thread, NULL), 0);
	close(p->to_thread[0]);
	close(p->to_main[0]);
	close(p->to_main[1]);
}

/* A pid that existed and is gone: a child, exited and reaped. */
static pid_t dead_pid(void)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

static void test_own_pid(void **state)
{
	struct thread_map *map = NULL;
	char list[32];
	pid_t bad = -2;

	snprintf(list, sizeof(list), "%d", getpid());
	assert_int_equal(thread_map__new_pids(list, &map, &bad), 0);
	assert_non_null(map);
	/* one task, unless a sanitizer runtime started a helper thread */
	assert_true(map->nr >= 1);
	assert_true(thread_map__idx(map, getpid()) >= 0);
	assert_int_equal(bad, -2);
	thread_map__put(map);

	assert_int_equal(thread_map__new_tids(list, &map, &bad), 0);
	assert_int_equal(map->nr, 1);
	assert_int_equal(map->map[0], getpid());
	thread_map__put(map);
}

static void test_pid_with_thread(void **state)
{
	struct thread_map *map = NULL;
	struct parked p;
	char list[64];
	int i, nr, tries;

	parked__start(&p);
	snprintf(list, sizeof(list), "%d", getpid());
	assert_int_equal(thread_map__new_pids(list, &map, NULL), 0);
	/* two tasks, or more when a sanitizer runtime started its own */
	assert_true(map->nr >= 2);
	assert_true(thread_map__idx(map, getpid()) >= 0);
	assert_true(thread_map__idx(map, p.tid) >= 0);
	for (i = 0; i < map->nr; i++) {
		char task[64];

		snprintf(task, sizeof(task), "/proc/self/task/%d", map->map[i]);
		assert_int_equal(access(task, F_OK), 0);	/* each is ours */
		if (i)
			assert_true(map->map[i - 1] < map->map[i]);	/* ascending */
	}
	nr = map->nr;
	thread_map__put(map);

	/* the pid given twice, or with one of its threads: no duplicates */
	snprintf(list, sizeof(list), "%d,%d,%d", getpid(), p.tid, getpid());
	assert_int_equal(thread_map__new_pids(list, &map, NULL), 0);
	assert_int_equal(map->nr, nr);
	thread_map__put(map);

	/* -t takes exactly the threads named, in order */
	snprintf(list, sizeof(list), "%d", p.tid);
	assert_int_equal(thread_map__new_tids(list, &map, NULL), 0);
	assert_int_equal(map->nr, 1);
	assert_int_equal(map->map[0], p.tid);
	thread_map__put(map);

	snprintf(list, sizeof(list), "%d, %d ,%d", p.tid, getpid(), p.tid);
	assert_int_equal(thread_map__new_tids(list, &map, NULL), 0);
	assert_int_equal(map->nr, 2);
	assert_int_equal(map->map[0], p.tid);
	assert_int_equal(map->map[1], getpid());
	assert_int_equal(thread_map__idx(map, getpid()), 1);
	thread_map__put(map);
	parked__stop(&p);

	/*
	 * Once the thread is gone, -t on it fails. pthread_join() returns when
	 * the kernel clears the tid, a moment before /proc forgets the task:
	 * allow it up to a second.
	 */
	snprintf(list, sizeof(list), "%d", p.tid);
	for (tries = 0; tries < 100; tries++) {
		if (thread_map__new_tids(list, &map, NULL) == -ESRCH)
			break;
		thread_map__put(map);
		usleep(10000);
	}
	assert_true(tries < 100);
}

/*
 * -u: every task of the uid's processes, this test's two among them, each
 * owned by it; a uid that owns no process gives an empty map.
 */
static void test_by_uid(void **state)
{
	struct thread_map *map = NULL;
	struct parked p;
	struct stat st;
	char path[64];
	int i;

	parked__start(&p);
	assert_int_equal(thread_map__new_by_uid(geteuid(), &map), 0);
	assert_true(thread_map__idx(map, getpid()) >= 0);
	assert_true(thread_map__idx(map, p.tid) >= 0);
	for (i = 1; i < map->nr; i++)
		assert_true(map->map[i - 1] < map->map[i]);	/* ascending, once each */
	snprintf(path, sizeof(path), "/proc/%d", map->map[0]);
	if (stat(path, &st) == 0)	/* unless it has exited meanwhile */
		assert_int_equal(st.st_uid, geteuid());
	thread_map__put(map);
	parked__stop(&p);

	assert_int_equal(thread_map__new_by_uid((uid_t)3999999999u, &map), 0);
	assert_int_equal(map->nr, 0);
	thread_map__put(map);
}

static void test_dead_pid(void **state)
{
	struct thread_map *map = NULL;
	pid_t dead = dead_pid(), bad = -2;
	char list[64];

	snprintf(list, sizeof(list), "%d", dead);
	assert_int_equal(thread_map__new_pids(list, &map, &bad), -ESRCH);
	assert_int_equal(bad, dead);
	assert_null(map);

	bad = -2;
	assert_int_equal(thread_map__new_tids(list, &map, &bad), -ESRCH);
	assert_int_equal(bad, dead);
	assert_null(map);

	/* a live pid first, the dead one second: the dead one is named */
	bad = -2;
	snprintf(list, sizeof(list), "%d,%d", getpid(), dead);
	assert_int_equal(thread_map__new_pids(list, &map, &bad), -ESRCH);
	assert_int_equal(bad, dead);
	assert_null(map);

	/* bad may be NULL */
	snprintf(list, sizeof(list), "%d", dead);
	assert_int_equal(thread_map__new_pids(list, &map, NULL), -ESRCH);

	/* pid 0 is no process */
	bad = -2;
	assert_int_equal(thread_map__new_pids("0", &map, &bad), -ESRCH);
	assert_int_equal(bad, 0);
}

static void test_syntax(void **state)
{
	static const char *const bad_lists[] = {
		"", " ", "abc", "12x", "-5", "1,,2", ",1", "1 2", "99999999999",
		"1-3", "0x10", "+1", ",", "1;2",
	};
	struct thread_map *map = NULL;
	pid_t bad = -2;
	size_t i;

	for (i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		if (thread_map__new_pids(bad_lists[i], &map, &bad) != -EINVAL)
			fail_msg("-p '%s' is not a syntax error", bad_lists[i]);
		if (thread_map__new_tids(bad_lists[i], &map, &bad) != -EINVAL)
			fail_msg("-t '%s' is not a syntax error", bad_lists[i]);
		if (thread_map__check_list(bad_lists[i]) != -EINVAL)
			fail_msg("check_list('%s') is not a syntax error", bad_lists[i]);
	}
	assert_null(map);
	assert_int_equal(bad, -2);
	assert_int_equal(thread_map__check_list(NULL), -EINVAL);
	assert_int_equal(thread_map__check_list("1"), 0);
	assert_int_equal(thread_map__check_list(" 1 , 22 ,333,"), 0);
	assert_int_equal(thread_map__check_list("2147483647"), 0);
}

static void test_dummy_and_from(void **state)
{
	static const pid_t tids[] = { 30, 10, 20 };
	struct thread_map *dummy = thread_map__new_dummy(), *map;

	assert_non_null(dummy);
	assert_int_equal(dummy->nr, 1);
	assert_int_equal(dummy->map[0], -1);
	assert_int_equal(thread_map__idx(dummy, -1), 0);
	assert_int_equal(thread_map__idx(dummy, 0), -1);

	map = thread_map__new_from(tids, 3);
	assert_non_null(map);
	assert_int_equal(map->nr, 3);
	assert_int_equal(map->map[0], 30);	/* order kept */
	assert_int_equal(thread_map__idx(map, 20), 2);
	assert_int_equal(thread_map__idx(map, 40), -1);
	assert_int_equal(thread_map__idx(NULL, 30), -1);
	assert_null(thread_map__new_from(NULL, 2));
	assert_null(thread_map__new_from(tids, -1));

	assert_ptr_equal(thread_map__get(map), map);
	assert_int_equal(map->refcnt, 2);
	thread_map__put(map);
	assert_int_equal(map->refcnt, 1);
	assert_null(thread_map__get(NULL));
	thread_map__put(NULL);
	thread_map__put(map);
	thread_map__put(dummy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_pid),
		cmocka_unit_test(test_pid_with_thread),
		cmocka_unit_test(test_by_uid),
		cmocka_unit_test(test_dead_pid),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_dummy_and_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
