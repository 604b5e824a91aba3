// SPDX-License-Identifier: GPL-2.0
/*
 * test_output.c — the output path: what each kind of thing at -o gets
 * (kept aside, written over, written into, refused), and that nothing
 * planted there, at FILE.old or inside a directory is followed: every
 * victim a link points to is checked to be as it was.
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
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "precord/output.h"
#include "helpers.h"

#define NOBODY	65534

struct tdir {
	char	path[TMPDIR_PATH_SIZE];	/* a tmpdir__fixture() */
};

static int setup_dir(void **state)
{
	*state = tmpdir__fixture(sizeof(struct tdir), "output");
	return *state ? 0 : -1;
}

static const char *at(const struct tdir *t, const char *name)
{
	static char buf[4][PATH_MAX];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", t->path, name);
	return p;
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_holds(const char *path, const char *text)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	assert_string_equal(buf, text);
}

/* A directory in perf's layout: data and data.0. */
static void put_recording(const char *dir)
{
	char p[PATH_MAX];

	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(p, sizeof(p), "%s/data", dir);
	put_file(p, "header");
	snprintf(p, sizeof(p), "%s/data.0", dir);
	put_file(p, "ring 0");
}

static bool is_kind(const char *path, mode_t kind)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

static void test_kinds(void **state)
{
	struct tdir *t = *state;

	assert_int_equal(output__kind(at(t, "none")), OUTPUT_NONE);
	put_file(at(t, "empty"), "");
	assert_int_equal(output__kind(at(t, "empty")), OUTPUT_EMPTY);
	put_file(at(t, "file"), "data");
	assert_int_equal(output__kind(at(t, "file")), OUTPUT_FILE);
	put_recording(at(t, "rec"));
	assert_int_equal(output__kind(at(t, "rec")), OUTPUT_RECORDING);
	assert_int_equal(mkdir(at(t, "plain"), 0700), 0);
	assert_int_equal(output__kind(at(t, "plain")), OUTPUT_OTHER);
	assert_int_equal(mkfifo(at(t, "fifo"), 0600), 0);
	assert_int_equal(output__kind(at(t, "fifo")), OUTPUT_FIFO);
	assert_int_equal(symlink("file", at(t, "link")), 0);
	assert_int_equal(output__kind(at(t, "link")), OUTPUT_LINK);
	/* the caller's own link to a device or FIFO is followed: -o /dev/stdout */
	assert_int_equal(symlink("/dev/null", at(t, "devlink")), 0);
	assert_int_equal(output__kind(at(t, "devlink")), OUTPUT_DEVICE);
	assert_int_equal(symlink("fifo", at(t, "fifolink")), 0);
	assert_int_equal(output__kind(at(t, "fifolink")), OUTPUT_FIFO);
}

/* A recording directory holds data, data.N and the merge journal, and nothing else. */
static void test_recording_dir(void **state)
{
	struct tdir *t = *state;

	put_recording(at(t, "rec"));
	assert_true(output__is_recording_dir(at(t, "rec")));
	put_file(at(t, "rec/merge.journal"), "j");
	assert_true(output__is_recording_dir(at(t, "rec")));
	put_file(at(t, "rec/notes.txt"), "mine");
	assert_false(output__is_recording_dir(at(t, "rec")));
	unlink(at(t, "rec/notes.txt"));
	put_file(at(t, "rec/data.x1"), "mine");
	assert_false(output__is_recording_dir(at(t, "rec")));
	unlink(at(t, "rec/data.x1"));
	assert_int_equal(symlink("/etc/passwd", at(t, "rec/data.1")), 0);
	assert_false(output__is_recording_dir(at(t, "rec")));
	unlink(at(t, "rec/data.1"));
	/* a link to a recording is not one */
	assert_int_equal(symlink("rec", at(t, "reclink")), 0);
	assert_false(output__is_recording_dir(at(t, "reclink")));
	/* no data: no recording */
	assert_int_equal(mkdir(at(t, "nodata"), 0700), 0);
	put_file(at(t, "nodata/data.0"), "ring");
	assert_false(output__is_recording_dir(at(t, "nodata")));
}

static void test_keep_old_file(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	put_file(at(t, "out"), "new");
	put_file(at(t, "out.old"), "older");
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), 0);
	assert_false(is_kind(at(t, "out"), S_IFREG));
	assert_file_holds(at(t, "out.old"), "new");
	/* an empty file stays to be written over */
	put_file(at(t, "out"), "");
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), 0);
	assert_true(is_kind(at(t, "out"), S_IFREG));
	assert_file_holds(at(t, "out.old"), "new");
}

/* -o /dev/null: a device is written into, never renamed away. */
static void test_keep_old_device(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	if (mknod(at(t, "null"), S_IFCHR | 0666, makedev(1, 3)) < 0)
		skip();
	assert_int_equal(output__kind(at(t, "null")), OUTPUT_DEVICE);
	assert_int_equal(output__keep_old(at(t, "null"), msg, sizeof(msg)), 0);
	assert_true(is_kind(at(t, "null"), S_IFCHR));
	assert_false(is_kind(at(t, "null.old"), S_IFCHR));
	assert_int_equal(access(at(t, "null.old"), F_OK), -1);
}

/* A FIFO is pipe mode: never renamed away either. */
static void test_keep_old_fifo(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	assert_int_equal(mkfifo(at(t, "fifo"), 0600), 0);
	assert_int_equal(output__keep_old(at(t, "fifo"), msg, sizeof(msg)), 0);
	assert_true(is_kind(at(t, "fifo"), S_IFIFO));
	assert_int_equal(access(at(t, "fifo.old"), F_OK), -1);
}

/* FILE.old a link to someone's directory: the link goes, the directory's files stay. */
static void test_keep_old_planted_link(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	put_recording(at(t, "victim"));
	put_file(at(t, "out"), "new");
	assert_int_equal(symlink(at(t, "victim"), at(t, "out.old")), 0);
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), 0);
	assert_file_holds(at(t, "out.old"), "new");
	assert_file_holds(at(t, "victim/data"), "header");
	assert_file_holds(at(t, "victim/data.0"), "ring 0");
	/* the same with a directory output and a link to a file at FILE.old */
	put_file(at(t, "victim.txt"), "precious");
	put_recording(at(t, "dir"));
	assert_int_equal(symlink(at(t, "victim.txt"), at(t, "dir.old")), 0);
	assert_int_equal(output__keep_old(at(t, "dir"), msg, sizeof(msg)), 0);
	assert_true(output__is_recording_dir(at(t, "dir.old")));
	assert_file_holds(at(t, "victim.txt"), "precious");
}

/* FILE and FILE.old of different kinds: the old one goes, whatever it was. */
static void test_keep_old_kinds_differ(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	put_file(at(t, "out"), "file");
	put_recording(at(t, "out.old"));
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), 0);
	assert_file_holds(at(t, "out.old"), "file");
	put_recording(at(t, "out"));
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), 0);
	assert_true(output__is_recording_dir(at(t, "out.old")));
	assert_int_equal(access(at(t, "out"), F_OK), -1);
}

/* A directory that is no recording is refused, at FILE and at FILE.old, and left as it was. */
static void test_keep_old_refuses(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	assert_int_equal(mkdir(at(t, "plain"), 0700), 0);
	put_file(at(t, "plain/mine"), "mine");
	assert_int_equal(output__keep_old(at(t, "plain"), msg, sizeof(msg)), -EEXIST);
	assert_non_null(strstr(msg, "in the way"));
	assert_file_holds(at(t, "plain/mine"), "mine");

	put_file(at(t, "out"), "new");
	put_recording(at(t, "out.old"));
	put_file(at(t, "out.old/mine"), "mine");
	msg[0] = '\0';
	assert_int_equal(output__keep_old(at(t, "out"), msg, sizeof(msg)), -ENOTEMPTY);
	assert_non_null(strstr(msg, "not a recording"));
	assert_file_holds(at(t, "out.old/mine"), "mine");
	assert_file_holds(at(t, "out"), "new");
}

/* The output is created, never opened through a link someone planted. */
static void test_create(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";
	struct stat st;
	int fd;

	fd = output__create(at(t, "new"), msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	close(fd);

	put_file(at(t, "victim"), "");
	assert_int_equal(symlink(at(t, "victim"), at(t, "link")), 0);
	assert_int_equal(output__create(at(t, "link"), msg, sizeof(msg)), -ELOOP);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_int_equal(symlink(at(t, "absent"), at(t, "dangling")), 0);
	assert_int_equal(output__create(at(t, "dangling"), msg, sizeof(msg)), -ELOOP);
	assert_int_equal(access(at(t, "absent"), F_OK), -1);
	assert_int_equal(stat(at(t, "victim"), &st), 0);
	assert_int_equal(st.st_size, 0);

	/* an empty file of ours is written over */
	put_file(at(t, "empty"), "");
	fd = output__create(at(t, "empty"), msg, sizeof(msg));
	assert_true(fd >= 0);
	close(fd);
}

/* Another user's empty file is not written into (root could otherwise leak to it). */
static void test_create_others_file(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	put_file(at(t, "theirs"), "");
	if (chown(at(t, "theirs"), NOBODY, NOBODY) < 0 || geteuid() == NOBODY)
		skip();
	assert_int_equal(output__create(at(t, "theirs"), msg, sizeof(msg)), -EEXIST);
	assert_non_null(strstr(msg, "another user"));
}

/* A link at the output someone else owns is no way to a device: it is a link. */
static void test_others_link_not_followed(void **state)
{
	struct tdir *t = *state;

	assert_int_equal(symlink("/dev/null", at(t, "theirs")), 0);
	if (lchown(at(t, "theirs"), NOBODY, NOBODY) < 0 || geteuid() == NOBODY)
		skip();
	assert_int_equal(output__kind(at(t, "theirs")), OUTPUT_LINK);
}

/* remove_dir takes a recording's files and nothing else, and follows no link. */
static void test_remove_dir(void **state)
{
	struct tdir *t = *state;

	put_recording(at(t, "rec"));
	put_file(at(t, "rec/merge.journal"), "j");
	assert_int_equal(output__remove_dir(at(t, "rec"), NULL), 0);
	assert_int_equal(access(at(t, "rec"), F_OK), -1);

	put_recording(at(t, "rec"));
	put_file(at(t, "rec/mine"), "mine");
	assert_int_equal(output__remove_dir(at(t, "rec"), NULL), -ENOTEMPTY);
	assert_file_holds(at(t, "rec/mine"), "mine");

	/* a file to keep (a merge's output inside the directory) stays */
	unlink(at(t, "rec/mine"));
	put_file(at(t, "rec/data"), "header");
	put_file(at(t, "rec/data.0"), "ring 0");
	put_file(at(t, "rec/merge.journal"), "j");
	assert_int_equal(output__remove_dir(at(t, "rec"), at(t, "rec/data.0")), -ENOTEMPTY);
	assert_file_holds(at(t, "rec/data.0"), "ring 0");
	assert_int_equal(access(at(t, "rec/data"), F_OK), -1);
	assert_int_equal(access(at(t, "rec/merge.journal"), F_OK), -1);

	put_recording(at(t, "victim"));
	assert_int_equal(symlink(at(t, "victim"), at(t, "link")), 0);
	assert_true(output__remove_dir(at(t, "link"), NULL) < 0);
	assert_file_holds(at(t, "victim/data"), "header");
	assert_file_holds(at(t, "victim/data.0"), "ring 0");
}

#define dir_test(f)	cmocka_unit_test_setup_teardown(f, setup_dir, tmpdir__fixture_free)

int main(void)
{
	const struct CMUnitTest tests[] = {
		dir_test(test_kinds),
		dir_test(test_recording_dir),
		dir_test(test_keep_old_file),
		dir_test(test_keep_old_device),
		dir_test(test_keep_old_fifo),
		dir_test(test_keep_old_planted_link),
		dir_test(test_keep_old_kinds_differ),
		dir_test(test_keep_old_refuses),
		dir_test(test_create),
		dir_test(test_create_others_file),
		dir_test(test_others_link_not_followed),
		dir_test(test_remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
