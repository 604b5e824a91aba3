// SPDX-License-Identifier: GPL-2.0
/*
 * output.c — the output path of a recording, before anything is written.
 *
 * Runs on the main thread, at the start of a recording and when a finished
 * directory becomes the output. What stands at the path decides what
 * happens, as in perf record: a regular file with data or an older
 * recording directory is moved aside as FILE.old (whatever FILE.old was
 * goes first), an empty file is written over, a device is written into
 * (-o /dev/null measures recording overhead), a FIFO means perf's pipe
 * mode. Unlike perf, nothing planted at the path is followed: FILE and
 * FILE.old are looked at with lstat(), a symbolic link is moved or removed
 * as a link, the file is created with O_EXCL | O_NOFOLLOW, and directories
 * are emptied through a descriptor opened with O_NOFOLLOW, only of the
 * files a recording holds. A link leads to a device only when it is the
 * caller's or root's (/dev/stdout), the rule fs.protected_symlinks applies
 * in sticky directories.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "precord/kcore.h"
#include "precord/output.h"

#define JOURNAL_NAME	"merge.journal"

/* The files of a --kcore copy, in KCORE_DIR_NAME inside a recording directory. */
static const char *const kcore_names[] = { "kallsyms", "modules", "kcore" };

/* "data", "data.N" (N decimal), or the merge's journal: the files a recording directory holds. */
static bool recording_file_name(const char *name)
{
	const char *p;

	if (!strcmp(name, "data") || !strcmp(name, JOURNAL_NAME) ||
	    !strcmp(name, JOURNAL_NAME ".new"))
		return true;
	if (strncmp(name, "data.", 5) || !name[5])
		return false;
	for (p = name + 5; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool dot_name(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* A directory, opened without following a link at its path; the DIR stream or NULL. */
static DIR *open_dir_nofollow(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* Whether name in parent is a --kcore copy: a directory (not a link) of its three files, no more. */
static bool is_kcore_dir(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	bool ok = d != NULL;
	struct dirent *de;
	struct stat st;
	size_t i;

	if (fd >= 0 && !d)
		close(fd);
	while (ok && (de = readdir(d))) {
		if (dot_name(de->d_name))
			continue;
		for (i = 0; i < sizeof(kcore_names) / sizeof(kcore_names[0]); i++)
			if (!strcmp(de->d_name, kcore_names[i]))
				break;
		ok = i < sizeof(kcore_names) / sizeof(kcore_names[0]) &&
		     fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     S_ISREG(st.st_mode);
	}
	if (d)
		closedir(d);
	return ok;
}

/* A --kcore copy's files, then its directory, in parent; nothing followed. */
static void remove_kcore_dir(int parent)
{
	int fd = openat(parent, KCORE_DIR_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < sizeof(kcore_names) / sizeof(kcore_names[0]); i++)
		unlinkat(fd, kcore_names[i], 0);
	close(fd);
	unlinkat(parent, KCORE_DIR_NAME, AT_REMOVEDIR);	/* anything else in it: it stays */
}

bool output__is_recording_dir(const char *path)
{
	DIR *d = open_dir_nofollow(path);
	bool has_data = false, ok = d != NULL;
	struct dirent *de;
	struct stat st;

	while (ok && (de = readdir(d))) {
		if (dot_name(de->d_name))
			continue;
		if (!strcmp(de->d_name, KCORE_DIR_NAME)) {
			ok = is_kcore_dir(dirfd(d), de->d_name);
			continue;
		}
		ok = recording_file_name(de->d_name) &&
		     fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     S_ISREG(st.st_mode);
		if (!strcmp(de->d_name, "data"))
			has_data = true;
	}
	if (d)
		closedir(d);
	return ok && has_data;
}

/* A link the caller may follow to a device: its own or root's. */
static bool link_is_trusted(const struct stat *lst)
{
	return lst->st_uid == 0 || lst->st_uid == geteuid();
}

enum output_kind output__kind(const char *path)
{
	struct stat lst, st;

	if (lstat(path, &lst) < 0)
		return OUTPUT_NONE;
	if (S_ISLNK(lst.st_mode)) {
		if (link_is_trusted(&lst) && stat(path, &st) == 0) {
			if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
				return OUTPUT_DEVICE;
			if (S_ISFIFO(st.st_mode))
				return OUTPUT_FIFO;
		}
		return OUTPUT_LINK;
	}
	if (S_ISREG(lst.st_mode))
		return lst.st_size ? OUTPUT_FILE : OUTPUT_EMPTY;
	if (S_ISCHR(lst.st_mode) || S_ISBLK(lst.st_mode))
		return OUTPUT_DEVICE;
	if (S_ISFIFO(lst.st_mode))
		return OUTPUT_FIFO;
	if (S_ISDIR(lst.st_mode) && output__is_recording_dir(path))
		return OUTPUT_RECORDING;
	return OUTPUT_OTHER;
}

/* name in the directory of dirfd, unless it is the file of keep. */
static void unlink_unless(int dirfd, const char *name, const struct stat *keep)
{
	struct stat st;

	if (keep && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == keep->st_dev && st.st_ino == keep->st_ino)
		return;
	unlinkat(dirfd, name, 0);	/* a directory of that name stays */
}

int output__remove_dir(const char *dir, const char *keep)
{
	DIR *d = open_dir_nofollow(dir);
	struct stat ks;
	struct dirent *de;

	if (!d)
		return -errno;
	if (!keep || stat(keep, &ks) < 0)
		keep = NULL;
	while ((de = readdir(d)))
		if (!dot_name(de->d_name) && recording_file_name(de->d_name) &&
		    strcmp(de->d_name, JOURNAL_NAME))
			unlink_unless(dirfd(d), de->d_name, keep ? &ks : NULL);
	remove_kcore_dir(dirfd(d));
	/* the journal last: until it goes, it says what the directory is */
	unlink_unless(dirfd(d), JOURNAL_NAME, keep ? &ks : NULL);
	closedir(d);
	return rmdir(dir) < 0 ? -errno : 0;
}

/* FILE.old out of the way: a link or file unlinked, a recording directory removed. */
static int remove_old(const char *old, char *msg, size_t len)
{
	struct stat st;
	int err;

	if (lstat(old, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		err = -errno;
		snprintf(msg, len, "cannot keep the old output as '%s': %s; move it away, or choose "
			 "another output with -o", old, strerror(errno));
		return err;
	}
	if (!S_ISDIR(st.st_mode))
		err = unlink(old) < 0 ? -errno : 0;
	else
		err = output__remove_dir(old, NULL);
	if (err == -ENOTEMPTY || err == -EEXIST)
		snprintf(msg, len, "'%s' holds files that are not a recording's, so it is not "
			 "replaced: move it away, or choose another output with -o", old);
	else if (err)
		snprintf(msg, len, "cannot remove the old '%s': %s", old, strerror(-err));
	return err;
}

int output__keep_old(const char *path, char *msg, size_t len)
{
	char old[PATH_MAX];
	int err;

	switch (output__kind(path)) {
	case OUTPUT_FILE:
	case OUTPUT_RECORDING:
	case OUTPUT_LINK:
		break;
	case OUTPUT_OTHER:
		snprintf(msg, len, "'%s' is in the way: it is neither a perf.data file nor a "
			 "recording directory; choose another output with -o", path);
		return -EEXIST;
	default:
		return 0;
	}
	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old)) {
		snprintf(msg, len, "the output name '%s' is too long", path);
		return -ENAMETOOLONG;
	}
	err = remove_old(old, msg, len);
	if (err)
		return err;
	if (rename(path, old) < 0) {
		err = -errno;
		snprintf(msg, len, "cannot keep the old '%s' as '%s': %s", path, old,
			 strerror(errno));
		return err;
	}
	return 0;
}

/* An existing file at path that may be written over: empty, regular, the caller's. */
static int reuse_empty(const char *path, char *msg, size_t len)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size ||
	    st.st_uid != geteuid()) {
		close(fd);
		snprintf(msg, len, "'%s' is another user's file, or appeared while precord "
			 "started: remove it, or choose another output with -o", path);
		return -EEXIST;
	}
	return fd;
}

int output__create(const char *path, char *msg, size_t len)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int err;

	if (fd >= 0)
		return fd;
	err = -errno;
	if (err == -EEXIST) {
		struct stat st;

		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(msg, len, "'%s' is a symbolic link, which precord does not write "
				 "through: remove it, or choose another output with -o", path);
			return -ELOOP;
		}
		fd = reuse_empty(path, msg, len);
		if (fd >= 0 || fd == -EEXIST)
			return fd;
		err = fd;
	}
	snprintf(msg, len, "cannot create '%s': %s; choose another place with -o", path,
		 strerror(-err));
	return err;
}
