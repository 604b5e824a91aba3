// SPDX-License-Identifier: GPL-2.0
/*
 * test_control.c — the control channel: perf's --control specs, good and
 * bad; a FIFO pair in a temporary directory with commands written in
 * pieces and acks read back; the fd: form over pipes, end of file included.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/control.h"
#include "helpers.h"

/* --- helpers -------------------------------------------------------------- */

static int nr_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static void put(int fd, const char *s, size_t len)
{
	assert_int_equal(write(fd, s, len), (ssize_t)len);
}

static void puts_fd(int fd, const char *s)
{
	put(fd, s, strlen(s));
}

/* The next command must be cmd with this line (and arg, "" if none). */
static void expect_cmd(struct control *ctl, enum control_cmd cmd,
		       const char *line, const char *arg, bool malformed)
{
	struct control_msg msg;

	assert_int_equal(control__read(ctl, &msg), 1);
	assert_int_equal(msg.cmd, cmd);
	assert_string_equal(msg.line, line);
	assert_string_equal(msg.arg, arg);
	assert_int_equal(msg.malformed, malformed);
}

static void expect_nothing(struct control *ctl)
{
	struct control_msg msg;

	assert_int_equal(control__read(ctl, &msg), 0);
}

/* Read exactly n acks ("ack\n\0" each) and nothing more from fd. */
static void expect_acks(int fd, int n)
{
	char buf[256], want[256];
	ssize_t got;
	int i;

	assert_true(n * 5 <= (int)sizeof(want));
	for (i = 0; i < n; i++)
		memcpy(want + 5 * i, "ack\n", 5);
	got = read(fd, buf, sizeof(buf));
	if (!n) {
		assert_true(got < 0 && errno == EAGAIN);
		return;
	}
	assert_int_equal(got, 5 * n);
	assert_memory_equal(buf, want, (size_t)(5 * n));
}

struct fifo_dir {
	char	dir[64];
	char	ctl[96];
	char	ack[96];
};

static void fifo_dir__make(struct fifo_dir *d)
{
	assert_int_equal(tmpdir__make(d->dir, sizeof(d->dir), "/tmp", "ctl"), 0);
	snprintf(d->ctl, sizeof(d->ctl), "%s/ctl", d->dir);
	snprintf(d->ack, sizeof(d->ack), "%s/ack", d->dir);
	assert_int_equal(mkfifo(d->ctl, 0600), 0);
	assert_int_equal(mkfifo(d->ack, 0600), 0);
}

static void fifo_dir__remove(struct fifo_dir *d)
{
	tmpdir__remove(d->dir);
}

/* --- specs ---------------------------------------------------------------- */

static void expect_bad_spec(const char *spec, int want, const char *needle)
{
	struct control ctl;
	char err[512] = "";

	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), want);
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
	if (!strstr(err, needle))
		fail_msg("spec '%s': message '%s' lacks '%s'", spec, err, needle);
	assert_int_equal(ctl.ctl_fd, -1);
	assert_int_equal(ctl.ack_fd, -1);
	control__close(&ctl);
}

static void test_bad_syntax(void **state)
{
	static const char *const specs[] = {
		"", "bogus", "FD:3", "fd:", "fd:x", "fd:3,", "fd:3,x", "fd:3x",
		"fd:3,4x", "fd:-1", "fd: 3", "fd:+3", "fd:99999999999",
		"fd:3,-4", "fifo:", "fifo:,ack", "fifo", "fd",
	};
	size_t i;
	int before = nr_open_fds();

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		expect_bad_spec(specs[i], -EINVAL,
				"expected fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]");
	assert_int_equal(nr_open_fds(), before);
}

static void test_fd_spec(void **state)
{
	struct control ctl;
	char spec[64], err[256];
	int p[2];

	assert_int_equal(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d,%d", p[0], p[1]);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);
	assert_int_equal(ctl.ctl_fd, p[0]);
	assert_int_equal(ctl.ack_fd, p[1]);
	assert_false(ctl.owns_fds);
	control__close(&ctl);
	/* Not ours: still open. */
	assert_true(fcntl(p[0], F_GETFD) >= 0 && fcntl(p[1], F_GETFD) >= 0);
	assert_int_equal(ctl.ctl_fd, -1);

	/* No ack; hex, as strtoul(.., 0) reads it. */
	snprintf(spec, sizeof(spec), "fd:0x%x", (unsigned int)p[0]);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);
	assert_int_equal(ctl.ctl_fd, p[0]);
	assert_int_equal(ctl.ack_fd, -1);
	assert_int_equal(control__ack(&ctl), 0);	/* nothing to ack to */
	control__close(&ctl);

	/* The wrong way round, and closed ones. */
	snprintf(spec, sizeof(spec), "fd:%d", p[1]);
	expect_bad_spec(spec, -EINVAL, "is not open for reading");
	snprintf(spec, sizeof(spec), "fd:%d,%d", p[0], p[0]);
	expect_bad_spec(spec, -EINVAL, "is not open for writing");
	close(p[0]);
	close(p[1]);
	snprintf(spec, sizeof(spec), "fd:%d", p[0]);
	expect_bad_spec(spec, -EINVAL, "is not open");
	snprintf(spec, sizeof(spec), "fd:0,%d", p[1]);
	expect_bad_spec(spec, -EINVAL, "ack-fd");
}

static void test_fifo_spec_errors(void **state)
{
	struct fifo_dir d;
	char spec[256], file[128];
	int before, fd;

	fifo_dir__make(&d);
	before = nr_open_fds();
	snprintf(spec, sizeof(spec), "fifo:%s/nonexistent", d.dir);
	expect_bad_spec(spec, -ENOENT, "mkfifo");
	/* A good ctl and a missing ack: the ctl fd is not left open. */
	snprintf(spec, sizeof(spec), "fifo:%s,%s/nonexistent", d.ctl, d.dir);
	expect_bad_spec(spec, -ENOENT, "--control: cannot open");
	snprintf(file, sizeof(file), "%s/plain", d.dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(spec, sizeof(spec), "fifo:%s", file);
	expect_bad_spec(spec, -EINVAL, "is not a FIFO");
	snprintf(spec, sizeof(spec), "fifo:%s,%s", d.ctl, file);
	expect_bad_spec(spec, -EINVAL, "is not a FIFO");
	assert_int_equal(nr_open_fds(), before);
	unlink(file);
	fifo_dir__remove(&d);
}

/* --- a FIFO pair ------------------------------------------------------------ */

static void test_fifo_pair(void **state)
{
	static const char many[] =
		"ping\n\nstop\ndisable cpu-clock\nevlist -v\0enablex\nbogus\n";
	struct fifo_dir d;
	struct control ctl;
	char spec[256], err[256];
	int w, r, before;

	fifo_dir__make(&d);
	before = nr_open_fds();
	snprintf(spec, sizeof(spec), "fifo:%s,%s", d.ctl, d.ack);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);
	assert_true(ctl.owns_fds);
	/* We hold both ends: neither open below waits. */
	w = open(d.ctl, O_WRONLY);
	r = open(d.ack, O_RDONLY | O_NONBLOCK);
	assert_true(w >= 0 && r >= 0);

	expect_nothing(&ctl);
	puts_fd(w, "ena");
	expect_nothing(&ctl);
	puts_fd(w, "ble\nsnap");
	expect_cmd(&ctl, CONTROL_CMD_ENABLE, "enable", "", false);
	assert_int_equal(control__ack(&ctl), 0);
	expect_nothing(&ctl);
	expect_acks(r, 1);
	puts_fd(w, "shot\n");
	expect_cmd(&ctl, CONTROL_CMD_SNAPSHOT, "snapshot", "", false);
	/* Several in one write, empty lines ignored, '\0' ends a line too. */
	put(w, many, sizeof(many) - 1);
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);
	expect_cmd(&ctl, CONTROL_CMD_STOP, "stop", "", false);
	expect_cmd(&ctl, CONTROL_CMD_DISABLE, "disable cpu-clock", "cpu-clock", false);
	expect_cmd(&ctl, CONTROL_CMD_EVLIST, "evlist -v", "-v", false);
	expect_cmd(&ctl, CONTROL_CMD_ENABLE, "enablex", "", true);
	expect_cmd(&ctl, CONTROL_CMD_UNSUPPORTED, "bogus", "", false);
	expect_nothing(&ctl);
	assert_int_equal(control__ack(&ctl), 0);
	assert_int_equal(control__ack(&ctl), 0);
	expect_acks(r, 2);
	expect_acks(r, 0);

	/* The writer goes away and comes back (a script per command): no EOF. */
	close(w);
	expect_nothing(&ctl);
	expect_nothing(&ctl);
	w = open(d.ctl, O_WRONLY);
	assert_true(w >= 0);
	puts_fd(w, "ping\n");
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);

	close(w);
	close(r);
	control__close(&ctl);
	assert_int_equal(ctl.ctl_fd, -1);
	assert_int_equal(nr_open_fds(), before);
	control__close(&ctl);
	control__close(NULL);
	fifo_dir__remove(&d);
}

static void test_fifo_no_ack(void **state)
{
	struct fifo_dir d;
	struct control ctl;
	char spec[256], err[256];
	int w;

	fifo_dir__make(&d);
	/* "fifo:CTL," is CTL without acks, as in perf. */
	snprintf(spec, sizeof(spec), "fifo:%s,", d.ctl);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);
	assert_int_equal(ctl.ack_fd, -1);
	w = open(d.ctl, O_WRONLY);
	assert_true(w >= 0);
	puts_fd(w, "stop\n");
	expect_cmd(&ctl, CONTROL_CMD_STOP, "stop", "", false);
	assert_int_equal(control__ack(&ctl), 0);
	close(w);
	control__close(&ctl);
	fifo_dir__remove(&d);
}

static void test_ack_fifo_full(void **state)
{
	struct fifo_dir d;
	struct control ctl;
	char spec[256], err[256];
	int i, ret = 0;

	fifo_dir__make(&d);
	snprintf(spec, sizeof(spec), "fifo:%s,%s", d.ctl, d.ack);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);
	/* Nobody reads the acks: they wait in the pipe until it is full. */
	for (i = 0; i < 1000000 && !ret; i++)
		ret = control__ack(&ctl);
	assert_int_equal(ret, -EAGAIN);
	assert_true(i > 100);
	control__close(&ctl);
	fifo_dir__remove(&d);
}

/* --- the fd: form ------------------------------------------------------------ */

static void test_fd_pipes(void **state)
{
	struct control ctl;
	struct control_msg msg;
	char spec[64], err[256];
	int cp[2], ap[2];

	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(cp), 0);
	assert_int_equal(pipe(ap), 0);
	assert_int_equal(fcntl(ap[0], F_SETFL, O_NONBLOCK), 0);
	snprintf(spec, sizeof(spec), "fd:%d,%d", cp[0], ap[1]);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);

	/* cp[0] is blocking: reading must still never wait. */
	alarm(10);
	expect_nothing(&ctl);
	puts_fd(cp[1], "enable sched:sched_switch\ndis");
	expect_cmd(&ctl, CONTROL_CMD_ENABLE, "enable sched:sched_switch",
		   "sched:sched_switch", false);
	expect_nothing(&ctl);
	assert_int_equal(control__ack(&ctl), 0);
	expect_acks(ap[0], 1);
	puts_fd(cp[1], "able\nstopnow\nack\n");
	expect_cmd(&ctl, CONTROL_CMD_DISABLE, "disable", "", false);
	expect_cmd(&ctl, CONTROL_CMD_STOP, "stopnow", "", true);
	expect_cmd(&ctl, CONTROL_CMD_UNSUPPORTED, "ack", "", false);
	expect_nothing(&ctl);

	/* The writer closes: the unterminated last line, then -EPIPE. */
	puts_fd(cp[1], "ping");
	expect_nothing(&ctl);
	close(cp[1]);
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);
	assert_int_equal(control__read(&ctl, &msg), -EPIPE);
	assert_int_equal(control__read(&ctl, &msg), -EPIPE);
	alarm(0);

	/* Acks to a pipe nobody reads any more. */
	close(ap[0]);
	assert_int_equal(control__ack(&ctl), -EPIPE);
	control__close(&ctl);
	close(cp[0]);
	close(ap[1]);
}

static void test_overlong(void **state)
{
	struct control ctl;
	char spec[64], err[256], line[1200];
	int p[2];

	assert_int_equal(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d", p[0]);
	assert_int_equal(control__open(&ctl, spec, err, sizeof(err)), 0);

	/* 300 bytes: the first 255 come out unsupported, the rest is dropped. */
	memset(line, 'e', 300);
	memcpy(line, "enable ", 7);
	line[300] = '\n';
	put(p[1], line, 301);
	puts_fd(p[1], "ping\n");
	line[CONTROL_LINE_MAX] = '\0';
	expect_cmd(&ctl, CONTROL_CMD_UNSUPPORTED, line, "", false);
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);
	expect_nothing(&ctl);

	/* Over four buffers long, written in pieces; then a normal line. */
	memset(line, 'x', sizeof(line));
	put(p[1], line, 600);
	line[CONTROL_LINE_MAX] = '\0';
	expect_cmd(&ctl, CONTROL_CMD_UNSUPPORTED, line, "", false);
	expect_nothing(&ctl);
	memset(line, 'x', sizeof(line));
	put(p[1], line, 500);
	expect_nothing(&ctl);
	puts_fd(p[1], "xx\nstop\n");
	expect_cmd(&ctl, CONTROL_CMD_STOP, "stop", "", false);
	expect_nothing(&ctl);

	/* Exactly CONTROL_LINE_MAX bytes and its end: one whole command. */
	memset(line, 'n', CONTROL_LINE_MAX);
	memcpy(line, "enable ", 7);
	line[CONTROL_LINE_MAX] = '\n';
	put(p[1], line, CONTROL_LINE_MAX + 1);
	puts_fd(p[1], "ping\n");
	line[CONTROL_LINE_MAX] = '\0';
	expect_cmd(&ctl, CONTROL_CMD_ENABLE, line, line + 7, false);
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);
	/* One byte more: too long, unsupported, its end not a second command. */
	memset(line, 'n', CONTROL_LINE_MAX + 1);
	memcpy(line, "enable ", 7);
	line[CONTROL_LINE_MAX + 1] = '\n';
	put(p[1], line, CONTROL_LINE_MAX + 2);
	puts_fd(p[1], "ping\n");
	line[CONTROL_LINE_MAX] = '\0';
	expect_cmd(&ctl, CONTROL_CMD_UNSUPPORTED, line, "", false);
	expect_cmd(&ctl, CONTROL_CMD_PING, "ping", "", false);
	expect_nothing(&ctl);
	control__close(&ctl);
	close(p[0]);
	close(p[1]);
}

static void test_names(void **state)
{
	static const struct {
		enum control_cmd	cmd;
		const char		*name;
		bool			acked;
	} t[] = {
		{ CONTROL_CMD_UNSUPPORTED,	"unsupported",	false },
		{ CONTROL_CMD_ENABLE,		"enable",	true },
		{ CONTROL_CMD_DISABLE,		"disable",	true },
		{ CONTROL_CMD_SNAPSHOT,		"snapshot",	true },
		{ CONTROL_CMD_EVLIST,		"evlist",	true },
		{ CONTROL_CMD_STOP,		"stop",		true },
		{ CONTROL_CMD_PING,		"ping",		true },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_string_equal(control_cmd__name(t[i].cmd), t[i].name);
		assert_int_equal(control_cmd__is_acked(t[i].cmd), t[i].acked);
	}
}

static void test_unused(void **state)
{
	struct control ctl;
	struct control_msg msg;

	control__init(&ctl);
	assert_int_equal(control__read(&ctl, &msg), 0);
	assert_int_equal(control__ack(&ctl), 0);
	control__close(&ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_fd_spec),
		cmocka_unit_test(test_fifo_spec_errors),
		cmocka_unit_test(test_fifo_pair),
		cmocka_unit_test(test_fifo_no_ack),
		cmocka_unit_test(test_ack_fifo_full),
		cmocka_unit_test(test_fd_pipes),
		cmocka_unit_test(test_overlong),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
