// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-common.c — the scratch directory, file writing and the container of
 * the fuzz targets (fuzz.h). Everything here aborts on a failure of the
 * machine (no space, no /tmp): that is no finding about the code under
 * test, and a target must not go on with half an input on disk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fuzz.h"

static char fuzz_scratch[PATH_MAX];

static void fuzz__die(const char *what, const char *path)
{
	fprintf(stderr, "fuzz: %s %s: %s\n", what, path, strerror(errno));
	abort();
}

void fuzz__check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz: %s\n", what);
		abort();
	}
}

bool fuzz__verbose(void)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = getenv("PRECORD_FUZZ_VERBOSE") != NULL;
	return verbose;
}

static int fuzz__remove(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	if (remove(path) < 0 && errno != ENOENT)
		fuzz__die("cannot remove", path);
	return 0;
}

void fuzz__clear(const char *dir, bool self)
{
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (self) {
		if (nftw(dir, fuzz__remove, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
			fuzz__die("cannot walk", dir);
		return;
	}
	d = opendir(dir);
	if (!d)
		fuzz__die("cannot open", dir);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		fuzz__clear(sub, true);
	}
	closedir(d);
}

static void fuzz__remove_scratch(void)
{
	if (fuzz_scratch[0])
		fuzz__clear(fuzz_scratch, true);
}

/* Best effort: what cannot be removed is someone else's business. */
static int fuzz__remove_quietly(const char *path, const struct stat *sb, int flag,
				struct FTW *ftw)
{
	remove(path);
	return 0;
}

/*
 * Scratch directories of fuzz processes that are gone: a crash, a timeout
 * or -minimize_crash's runs end a process without its atexit() handler.
 */
static void fuzz__remove_stale(const char *tmp)
{
	char path[PATH_MAX], *end;
	struct dirent *e;
	DIR *d = opendir(tmp);
	long pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "precord-fuzz.", 13))
			continue;
		pid = strtol(e->d_name + 13, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		nftw(path, fuzz__remove_quietly, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
}

const char *fuzz__dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fuzz_scratch[0])
		return fuzz_scratch;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	fuzz__remove_stale(tmp);
	snprintf(fuzz_scratch, sizeof(fuzz_scratch), "%s/precord-fuzz.%d", tmp, (int)getpid());
	fuzz__clear(fuzz_scratch, true);	/* a gone process's, whose pid this is now */
	if (mkdir(fuzz_scratch, 0700) < 0)
		fuzz__die("cannot create", fuzz_scratch);
	atexit(fuzz__remove_scratch);
	return fuzz_scratch;
}

void fuzz__write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		fuzz__die("cannot create", path);
	while (done < size) {
		n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fuzz__die("cannot write", path);
		done += (size_t)n;
	}
	if (close(fd) < 0)
		fuzz__die("cannot close", path);
}

bool fuzz__is_container(const uint8_t *data, size_t size)
{
	return size >= FUZZ_MARK_LEN && !memcmp(data, FUZZ_MARK, FUZZ_MARK_LEN);
}

/* merge.journal: the head's fields, the partial output's path, then the rest. */
static void fuzz__write_journal(const char *dir, const char *path, const uint8_t *data,
				size_t size)
{
	size_t head = size < FUZZ_JOURNAL_HEAD ? size : FUZZ_JOURNAL_HEAD;
	size_t len = head + (size > head ? PATH_MAX : 0) + (size - head);
	uint8_t *buf = calloc(1, len ? len : 1);

	if (!buf)
		fuzz__die("out of memory for", path);
	memcpy(buf, data, head);
	if (size > head) {
		snprintf((char *)buf + head, PATH_MAX, "%s/%s", dir, FUZZ_PARTIAL_NAME);
		memcpy(buf + head + PATH_MAX, data + head, size - head);
	}
	fuzz__write_file(path, buf, len);
	free(buf);
}

static void fuzz__unpack_one(const char *dir, int name, const uint8_t *data, size_t size,
			     unsigned char *seen)
{
	char path[PATH_MAX];

	if (seen[name])
		return;
	seen[name] = 1;
	if (name == FUZZ_FILE_DATA)
		snprintf(path, sizeof(path), "%s/data", dir);
	else if (name == FUZZ_FILE_JOURNAL)
		snprintf(path, sizeof(path), "%s/merge.journal", dir);
	else if (name == FUZZ_FILE_PARTIAL)
		snprintf(path, sizeof(path), "%s/%s", dir, FUZZ_PARTIAL_NAME);
	else
		snprintf(path, sizeof(path), "%s/data.%d", dir, name - FUZZ_FILE_DATA_N);
	if (name == FUZZ_FILE_JOURNAL)
		fuzz__write_journal(dir, path, data, size);
	else
		fuzz__write_file(path, data, size);
}

void fuzz__unpack(const uint8_t *data, size_t size, const char *dir,
		  const uint8_t **preamble, size_t *preamble_len)
{
	const uint8_t *end = data + size, *p, *next;
	unsigned char seen[256] = { 0 };

	p = memmem(data, size, FUZZ_MARK, FUZZ_MARK_LEN);
	*preamble = data;
	*preamble_len = p ? (size_t)(p - data) : size;
	while (p) {
		const uint8_t *body = p + FUZZ_MARK_LEN + 1;

		if (body > end)
			break;
		next = memmem(body, (size_t)(end - body), FUZZ_MARK, FUZZ_MARK_LEN);
		fuzz__unpack_one(dir, p[FUZZ_MARK_LEN], body,
				 (size_t)((next ? next : end) - body), seen);
		p = next;
	}
}
