// SPDX-License-Identifier: GPL-2.0
/*
 * test_status.c — the live status line: its text, once a second on a
 * terminal (a pseudo-terminal here), cut to the terminal's width, erased at
 * the end, and nothing at all on a pipe or with -q.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <cmocka.h>

#include "precord/status.h"

#define T0	5000	/* ms */

struct pty {
	int	master, slave;
};

static int setup_pty(void **state)
{
	struct pty *p = calloc(1, sizeof(*p));
	struct winsize ws = { .ws_row = 24, .ws_col = 200 };

	if (!p || openpty(&p->master, &p->slave, NULL, NULL, &ws) < 0) {
		free(p);
		return -1;
	}
	fcntl(p->master, F_SETFL, O_NONBLOCK);
	*state = p;
	return 0;
}

static int teardown_pty(void **state)
{
	struct pty *p = *state;

	close(p->master);
	close(p->slave);
	free(p);
	return 0;
}

/* What the terminal got since the last call ("" when nothing). */
static const char *drain(int master)
{
	static char buf[1024];
	ssize_t n = read(master, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_format(void **state)
{
	struct status st;
	struct status_counts c = { .bytes = 3 << 20, .samples = 990, .lost = 10, .threads = 4 };
	char buf[256];

	status__init(&st, -1, false, T0);
	assert_false(st.on);	/* not a terminal */
	st.prev_bytes = 1 << 20;
	st.prev_ms = T0 + 1000;
	status__format(&st, T0 + 3000, &c, buf, sizeof(buf));
	/* 2 MB in the 2 s since the last line: 1.0 MB/s; 10 of 1000 lost */
	assert_string_equal(buf, "[ precord: 3 s, 3.0 MB (1.0 MB/s), 990 samples, 10 lost "
				 "(1.00%), 4 threads ]");
	c = (struct status_counts){ .threads = 1 };
	st.prev_bytes = 0;
	status__format(&st, T0 + 999, &c, buf, sizeof(buf));
	assert_string_equal(buf, "[ precord: 0 s, 0.0 MB (0.0 MB/s), 0 samples, 0 lost "
				 "(0.00%), 1 thread ]");
	/* cut to the room given: size - 1 characters */
	assert_int_equal(status__format(&st, T0, &c, buf, 11), 10);
	assert_string_equal(buf, "[ precord:");
}

static void test_timeout(void **state)
{
	struct pty *p = *state;
	struct status st;

	status__init(&st, p->slave, false, T0);
	assert_true(st.on);
	assert_int_equal(status__timeout(&st, T0, -1), 1000);
	assert_int_equal(status__timeout(&st, T0 + 400, -1), 600);
	assert_int_equal(status__timeout(&st, T0 + 400, 100), 100);
	assert_int_equal(status__timeout(&st, T0 + 1500, -1), 0);
	/* off: the caller's timeout stands */
	status__init(&st, p->slave, true, T0);
	assert_false(st.on);
	assert_int_equal(status__timeout(&st, T0, -1), -1);
	assert_int_equal(status__timeout(&st, T0, 250), 250);
}

static void test_tick_once_a_second(void **state)
{
	struct pty *p = *state;
	struct status st;
	struct status_counts c = { .bytes = 1 << 20, .samples = 100, .threads = 2 };

	status__init(&st, p->slave, false, T0);
	status__tick(&st, T0 + 999, &c);
	assert_string_equal(drain(p->master), "");		/* not due yet */
	status__tick(&st, T0 + 1000, &c);
	assert_string_equal(drain(p->master), "\r[ precord: 1 s, 1.0 MB (1.0 MB/s), 100 samples, "
				 "0 lost (0.00%), 2 threads ]\033[K");
	status__tick(&st, T0 + 1500, &c);
	assert_string_equal(drain(p->master), "");		/* once a second */
	c.bytes = 4 << 20;
	c.lost = 100;
	/* late by 0.3 s: shown now, and the next one stays on the second */
	status__tick(&st, T0 + 2300, &c);
	assert_string_equal(drain(p->master), "\r[ precord: 2 s, 4.0 MB (2.3 MB/s), 100 samples, "
				 "100 lost (50.00%), 2 threads ]\033[K");
	assert_int_equal(st.next_ms, T0 + 3000);
	status__clear(&st);
	assert_string_equal(drain(p->master), "\r\033[K");
	status__clear(&st);
	assert_string_equal(drain(p->master), "");		/* nothing left to erase */
}

static void test_cut_to_width(void **state)
{
	struct pty *p = *state;
	struct winsize ws = { .ws_row = 24, .ws_col = 20 };
	struct status st;
	struct status_counts c = { .threads = 1 };

	assert_int_equal(ioctl(p->slave, TIOCSWINSZ, &ws), 0);
	status__init(&st, p->slave, false, T0);
	status__tick(&st, T0 + 1000, &c);
	/* 19 characters: the cursor never reaches the last column, nothing wraps */
	assert_string_equal(drain(p->master), "\r[ precord: 1 s, 0.0\033[K");
}

static void test_off_on_a_pipe_or_quiet(void **state)
{
	struct pty *p = *state;
	struct status_counts c = { .threads = 1 };
	struct status st;
	int pfd[2];
	char b;

	assert_int_equal(pipe2(pfd, O_NONBLOCK), 0);
	status__init(&st, pfd[1], false, T0);
	assert_false(st.on);
	status__tick(&st, T0 + 5000, &c);
	status__clear(&st);
	assert_int_equal(read(pfd[0], &b, 1), -1);
	assert_int_equal(errno, EAGAIN);
	close(pfd[0]);
	close(pfd[1]);

	status__init(&st, p->slave, true, T0);	/* -q */
	status__tick(&st, T0 + 5000, &c);
	status__clear(&st);
	assert_string_equal(drain(p->master), "");
}

#define pty_test(f)	cmocka_unit_test_setup_teardown(f, setup_pty, teardown_pty)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		pty_test(test_timeout),
		pty_test(test_tick_once_a_second),
		pty_test(test_cut_to_width),
		pty_test(test_off_on_a_pipe_or_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
