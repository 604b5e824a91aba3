// SPDX-License-Identifier: GPL-2.0
/*
 * test_tracefs.c — the tracefs mount, tracepoint ids and glob iteration
 * checked against tracefs read directly, and TRACING_DATA written to a temp
 * file and parsed back the way perf's trace-event-read.c reads it: every
 * size consistent, every file's content equal to tracefs's, nothing left
 * over. Needs tracefs (mounted here if we may); skipped otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "precord/evlist.h"
#include "precord/tracefs.h"

#define TRACEFS_MAGIC_NR	0x74726163

static const char *need_tracefs(void)
{
	const char *mnt = tracefs__path();

	if (!mnt)
		skip();
	return mnt;
}

/* A whole file read to EOF (tracefs files have no size); *len gets its length. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_non_null(buf);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
	}
	assert_true(r == 0);
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *slurp_tracefs(const char *rel, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tracefs__path(), rel);
	return slurp(path, len);
}

static long read_id(const char *sys, const char *name)
{
	char rel[256], *s;
	size_t len;
	long id;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name);
	s = slurp_tracefs(rel, &len);
	id = strtol(s, NULL, 10);
	free(s);
	return id;
}

static int count_dirs(const char *sys)
{
	char path[512];
	struct dirent *d;
	struct stat st;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/events/%s", tracefs__path(), sys);
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
		    fstatat(dirfd(dir), d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))
			n++;
	closedir(dir);
	return n;
}

static void test_path(void **state)
{
	const char *mnt = need_tracefs();
	struct statfs st;

	(void)state;
	assert_int_equal(statfs(mnt, &st), 0);
	assert_int_equal((unsigned long)st.f_type, TRACEFS_MAGIC_NR);
	/* the same answer every time, no state kept */
	assert_string_equal(tracefs__path(), mnt);
}

static void test_event_id(void **state)
{
	(void)state;
	need_tracefs();
	assert_int_equal(tracefs__event_id("sched", "sched_switch"), read_id("sched", "sched_switch"));
	assert_int_equal(tracefs__event_id("raw_syscalls", "sys_enter"),
			 read_id("raw_syscalls", "sys_enter"));
	assert_int_equal(tracefs__event_id("sched", "nosuch"), -ENOENT);
	assert_int_equal(tracefs__event_id("nosuch", "sched_switch"), -ENOENT);
	assert_int_equal(tracefs__event_id("..", "sched"), -ENOENT);
	assert_int_equal(tracefs__event_id("sched/../sched", "sched_switch"), -ENOENT);
	assert_int_equal(tracefs__event_id("", "x"), -ENOENT);
	assert_true(tracefs__event_id("sched", "enable") < 0);	/* a file, not an event */
}

struct collect {
	int	n;
	int	stop_at;	/* return 1 on this call (1-based), 0: never */
	int	fail_at;	/* return fail_err on this call, 0: never */
	int	fail_err;
	char	last[256];
};

static int collect(void *arg, const char *sys, const char *name)
{
	struct collect *c = arg;

	c->n++;
	snprintf(c->last, sizeof(c->last), "%s:%s", sys, name);
	assert_true(tracefs__event_id(sys, name) >= 0);
	if (c->n == c->fail_at)
		return c->fail_err;
	return c->n == c->stop_at ? 1 : 0;
}

static void test_for_each(void **state)
{
	struct collect c = { 0 };

	(void)state;
	need_tracefs();
	assert_int_equal(tracefs__for_each_event("sched", "*", collect, &c), count_dirs("sched"));
	assert_int_equal(c.n, count_dirs("sched"));

	memset(&c, 0, sizeof(c));
	assert_int_equal(tracefs__for_each_event("sched", "sched_switch", collect, &c), 1);
	assert_string_equal(c.last, "sched:sched_switch");

	memset(&c, 0, sizeof(c));
	assert_int_equal(tracefs__for_each_event("raw_sys*", "sys_e?it", collect, &c), 1);
	assert_string_equal(c.last, "raw_syscalls:sys_exit");

	memset(&c, 0, sizeof(c));
	assert_int_equal(tracefs__for_each_event("sched", "nosuch*", collect, &c), 0);
	assert_int_equal(tracefs__for_each_event("nosuch*", "*", collect, &c), 0);
	assert_int_equal(c.n, 0);
	/* files in events/ and events/sched (enable, filter, header_page) are not events */
	assert_int_equal(tracefs__for_each_event("*", "enable", collect, &c), 0);
	assert_int_equal(tracefs__for_each_event("header_page", "*", collect, &c), 0);

	memset(&c, 0, sizeof(c));
	c.stop_at = 3;	/* > 0 stops across systems too */
	assert_int_equal(tracefs__for_each_event("*", "*", collect, &c), 3);
	assert_int_equal(c.n, 3);

	memset(&c, 0, sizeof(c));
	c.fail_at = 2;
	c.fail_err = -EIO;
	assert_int_equal(tracefs__for_each_event("*", "*", collect, &c), -EIO);
	assert_int_equal(c.n, 2);

	/* fn's -ENOENT is an error like any other, not a vanished directory */
	memset(&c, 0, sizeof(c));
	c.fail_at = 1;
	c.fail_err = -ENOENT;
	assert_int_equal(tracefs__for_each_event("sched", "*", collect, &c), -ENOENT);
	assert_int_equal(c.n, 1);
}

/* ---- TRACING_DATA parsed back ------------------------------------------ */

struct reader {
	const char	*p;
	size_t		len;
	size_t		pos;
};

static const char *rd_bytes(struct reader *r, size_t n)
{
	const char *p = r->p + r->pos;

	assert_true(r->pos + n <= r->len);
	r->pos += n;
	return p;
}

static u64 rd_u64(struct reader *r)
{
	u64 v;

	memcpy(&v, rd_bytes(r, 8), 8);
	return v;
}

static u32 rd_u32(struct reader *r)
{
	u32 v;

	memcpy(&v, rd_bytes(r, 4), 4);
	return v;
}

static const char *rd_str(struct reader *r)
{
	const char *s = r->p + r->pos;
	const char *nul = memchr(s, '\0', r->len - r->pos);

	assert_non_null(nul);
	r->pos += (size_t)(nul - s) + 1;
	return s;
}

/* A u64-sized (or u32) block must equal tracefs's file rel. */
static void rd_file(struct reader *r, size_t hdr_sz, const char *rel)
{
	size_t want_len, size = hdr_sz == 8 ? rd_u64(r) : rd_u32(r);
	char *want = slurp_tracefs(rel, &want_len);

	assert_int_equal(size, want_len);
	assert_memory_equal(rd_bytes(r, size), want, size);
	free(want);
}

static struct evsel *new_tp(const char *sys, const char *name, bool named)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr) };
	char evname[256];
	struct evsel *evsel;

	attr.config = (u64)tracefs__event_id(sys, name);
	snprintf(evname, sizeof(evname), "%s:%s", sys, name);
	evsel = evsel__new(&attr, evname);
	assert_non_null(evsel);
	if (named) {
		evsel->tp_sys = strdup(sys);
		evsel->tp_name = strdup(name);
	}
	return evsel;
}

static struct evlist *new_evlist(const char *const *tps, int nr, bool named)
{
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(sw) };
	struct evlist *evlist = evlist__new();
	int i;

	assert_non_null(evlist);
	assert_int_equal(evlist__add(evlist, evsel__new(&sw, "cpu-clock")), 0);
	for (i = 0; i < nr; i += 2)
		assert_int_equal(evlist__add(evlist, new_tp(tps[i], tps[i + 1], named)), 0);
	return evlist;
}

/* The file as perf's trace_report() reads it, up to the event formats. */
static void check_head(struct reader *r)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	assert_memory_equal(rd_bytes(r, 10), magic, 10);
	assert_string_equal(rd_str(r), "0.6");
	assert_int_equal(*rd_bytes(r, 1), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	assert_int_equal(*rd_bytes(r, 1), sizeof(long));
	assert_int_equal(rd_u32(r), sysconf(_SC_PAGESIZE));
	assert_memory_equal(rd_bytes(r, 12), "header_page", 12);
	rd_file(r, 8, "events/header_page");
	assert_memory_equal(rd_bytes(r, 13), "header_event", 13);
	rd_file(r, 8, "events/header_event");
	assert_int_equal(rd_u32(r), 0);		/* no ftrace events recorded */
}

/* kallsyms (empty, as perf 6.1 writes it), printk formats, saved cmdlines. */
static void check_tail(struct reader *r)
{
	assert_int_equal(rd_u32(r), 0);
	rd_file(r, 4, "printk_formats");
	rd_file(r, 8, "saved_cmdlines");
	assert_int_equal(r->pos, r->len);
}

/* The next format must be events/sys/name/format, which starts "name: name". */
static void check_format(struct reader *r, const char *sys, const char *name)
{
	char rel[256], line[300];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	snprintf(line, sizeof(line), "name: %s\n", name);
	assert_true(r->pos + 8 + strlen(line) <= r->len);
	assert_memory_equal(r->p + r->pos + 8, line, strlen(line));
	rd_file(r, 8, rel);
}

/* The name of the next format ("name: X\n"), copied into buf. */
static const char *peek_format_name(const struct reader *r, char *buf, size_t size)
{
	const char *s = r->p + r->pos + 8, *nl;

	assert_true(r->pos + 8 + 6 < r->len);
	assert_memory_equal(s, "name: ", 6);
	nl = memchr(s, '\n', r->len - r->pos - 8);
	assert_non_null(nl);
	snprintf(buf, size, "%.*s", (int)(nl - s - 6), s + 6);
	return buf;
}

static void test_tracing_data_sched_switch(void **state)
{
	static const char *const tps[] = { "sched", "sched_switch" };
	static const char prefix[] = "PREFIX--";
	char path[] = "/tmp/precord-tracefs-XXXXXX";
	struct evlist *evlist;
	struct reader r;
	size_t len;
	ssize_t n;
	char *file;
	int fd;

	(void)state;
	need_tracefs();
	evlist = new_evlist(tps, 2, true);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, prefix, 8), 8);	/* written at the current offset */

	n = tracefs__write_tracing_data(fd, evlist);
	close(fd);
	file = slurp(path, &len);
	unlink(path);
	assert_true(n > 0);
	assert_int_equal(len, (size_t)n + 8);
	assert_memory_equal(file, prefix, 8);

	r = (struct reader){ .p = file + 8, .len = (size_t)n };
	check_head(&r);
	assert_int_equal(rd_u32(&r), 1);		/* one system */
	assert_string_equal(rd_str(&r), "sched");
	assert_int_equal(rd_u32(&r), 1);		/* one event in it */
	assert_non_null(strstr(r.p + r.pos + 8, "field:char prev_comm[16]"));
	check_format(&r, "sched", "sched_switch");
	check_tail(&r);
	free(file);
	evlist__delete(evlist);
}

/* Two systems, a duplicate, and evsels known only by id: each format once. */
static void test_tracing_data_many(void **state)
{
	static const char *const tps[] = {
		"sched", "sched_switch", "raw_syscalls", "sys_enter",
		"sched", "sched_wakeup", "sched", "sched_switch",
	};
	bool seen_sched = false, seen_raw = false, seen_switch = false, seen_wakeup = false;
	struct evlist *evlist;
	struct reader r;
	char *buf, *buf2, name[64];
	size_t formats_end;
	ssize_t n, n2;
	u32 systems, i, j, count;

	(void)state;
	need_tracefs();
	evlist = new_evlist(tps, 8, false);	/* tp_sys/tp_name unset: found by id */
	n = tracefs__tracing_data(evlist, &buf);
	assert_true(n > 0);

	r = (struct reader){ .p = buf, .len = (size_t)n };
	check_head(&r);
	systems = rd_u32(&r);
	assert_int_equal(systems, 2);
	for (i = 0; i < systems; i++) {
		const char *sys = rd_str(&r);

		count = rd_u32(&r);
		if (!strcmp(sys, "sched")) {
			seen_sched = true;
			assert_int_equal(count, 2);
			for (j = 0; j < count; j++) {
				peek_format_name(&r, name, sizeof(name));
				seen_switch |= !strcmp(name, "sched_switch");
				seen_wakeup |= !strcmp(name, "sched_wakeup");
				check_format(&r, "sched", name);
			}
			assert_true(seen_switch && seen_wakeup);
		} else {
			assert_string_equal(sys, "raw_syscalls");
			seen_raw = true;
			assert_int_equal(count, 1);
			check_format(&r, "raw_syscalls", "sys_enter");
		}
	}
	assert_true(seen_sched && seen_raw);
	formats_end = r.pos;
	check_tail(&r);

	/* named evsels give the same formats (saved_cmdlines may change meanwhile) */
	evlist__delete(evlist);
	evlist = new_evlist(tps, 8, true);
	n2 = tracefs__tracing_data(evlist, &buf2);
	assert_true((size_t)n2 > formats_end);
	assert_memory_equal(buf, buf2, formats_end);
	free(buf);
	free(buf2);
	evlist__delete(evlist);
}

static void test_tracing_data_none(void **state)
{
	char path[] = "/tmp/precord-tracefs-XXXXXX";
	struct evlist *evlist = new_evlist(NULL, 0, true);
	struct stat st;
	char *buf = (char *)1;
	int fd;

	(void)state;
	need_tracefs();
	assert_int_equal(tracefs__tracing_data(evlist, &buf), 0);
	assert_null(buf);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(tracefs__write_tracing_data(fd, evlist), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	unlink(path);
	evlist__delete(evlist);
}

static void test_tracing_data_bad_fd(void **state)
{
	static const char *const tps[] = { "sched", "sched_switch" };
	struct evlist *evlist;
	int fd;

	(void)state;
	need_tracefs();
	evlist = new_evlist(tps, 2, true);
	assert_int_equal(tracefs__write_tracing_data(-1, evlist), -EBADF);
	/* a tracepoint that does not exist cannot be described */
	free(evlist->entries[1]->tp_sys);
	free(evlist->entries[1]->tp_name);
	evlist->entries[1]->tp_sys = evlist->entries[1]->tp_name = NULL;
	evlist->entries[1]->attr.config = 0x7fffffff;
	fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(tracefs__write_tracing_data(fd, evlist), -ENOENT);
	close(fd);
	evlist__delete(evlist);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_event_id),
		cmocka_unit_test(test_for_each),
		cmocka_unit_test(test_tracing_data_sched_switch),
		cmocka_unit_test(test_tracing_data_many),
		cmocka_unit_test(test_tracing_data_none),
		cmocka_unit_test(test_tracing_data_bad_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
