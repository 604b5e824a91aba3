// SPDX-License-Identifier: GPL-2.0
/*
 * build-id-cache.c — perf's build-id cache (~/.debug) filled at the end of
 * a recording, in the layout of perf 6.1's build_id_cache__add(): per DSO
 * a directory named after the file's real path and the build id holding
 * the file ("elf", a hard link where the file system allows it, else a
 * copy made under a temporary name and renamed), its separate debug file
 * ("debug") when /usr/lib/debug has one, an empty "probes" (perf's SDT
 * cache; the files here have no SDT notes), and the link
 * .build-id/xx/yyyy… → ../../<that directory>. The kernel's entry is a
 * copy of /proc/kallsyms, [vdso]'s the image this process maps.
 *
 * Also: where the cache is (--buildid-dir, buildid.dir in perf's config
 * files, $HOME/.debug), read as perf reads it.
 *
 * Threads: every function is reentrant; builtin/record-output.c adds the
 * DSOs from the workers of its workqueue, one DSO per work index. Two
 * recordings adding the same file at once both succeed: mkdir, link and
 * symlink treat EEXIST as done, and a copy is renamed into place whole.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "precord/build-id-cache.h"
#include "precord/dso-hits.h"
#include "precord/synthesize.h"
#include "precord/util.h"

/* ---- where the cache is ---- */

/* s without blanks at either end, a "quoted" value unquoted, a ; or # comment cut. */
static char *config__value(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '"') {
		e = strchr(++s, '"');
		if (e)
			*e = 0;
		return s;
	}
	e = s + strcspn(s, ";#");
	*e = 0;
	return str__trim(s);
}

/* buildid.dir from one git-style config file into buf: 1 if set there, else 0. */
static int config__buildid_dir(const char *path, char *buf, size_t size)
{
	char line[PATH_MAX + 64], section[64] = "";
	FILE *f = fopen(path, "re");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = str__trim(line), *eq;

		if (*s == '#' || *s == ';' || !*s)
			continue;
		if (*s == '[') {
			size_t n = strcspn(s + 1, "]");

			snprintf(section, sizeof(section), "%.*s", (int)n, s + 1);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq || strcasecmp(section, "buildid"))
			continue;
		*eq = 0;
		if (strcasecmp(str__trim(s), "dir"))
			continue;
		snprintf(buf, size, "%s", config__value(eq + 1));
		found = 1;
	}
	fclose(f);
	return found;
}

int build_id_cache__dir(const char *given, char *buf, size_t size)
{
	const char *exclusive = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char user[PATH_MAX];
	int n;

	if (given) {
		n = snprintf(buf, size, "%s", given);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	buf[0] = 0;
	if (exclusive && *exclusive) {
		config__buildid_dir(exclusive, buf, size);
	} else {
		if (!getenv("PERF_CONFIG_NOSYSTEM"))
			config__buildid_dir("/etc/perfconfig", buf, size);
		if (home && !getenv("PERF_CONFIG_NOGLOBAL")) {
			snprintf(user, sizeof(user), "%s/.perfconfig", home);
			config__buildid_dir(user, buf, size);
		}
	}
	if (buf[0])
		return 0;
	n = home ? snprintf(buf, size, "%s/.debug", home) : snprintf(buf, size, ".debug");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void build_id_cache__setenv(const char *dir)
{
	setenv("PERF_BUILDID_DIR", dir, 1);
}

/* ---- the files ---- */

/* mkdir -p path (mode for each directory made): 0 or -errno. */
static int mkdir_p(char *path, mode_t mode)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, mode) && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return mkdir(path, mode) && errno != EEXIST ? -errno : 0;
}

/* from's bytes into to (mode), whole or not at all: a temporary name, then rename. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	char tmp[PATH_MAX], buf[1 << 16];
	int in, out, err = 0;
	ssize_t n;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", to) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		err = write_all(out, buf, (size_t)n);
		if (err)
			break;
	}
	if (n < 0)
		err = -errno;
	if (!err && fchmod(out, mode))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	close(in);
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* len bytes of data as the file to (mode), whole or not at all. */
static int write_file(const char *to, const void *data, size_t len, mode_t mode)
{
	char tmp[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", to) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = write_all(fd, data, len);
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* to as a hard link to from, else a copy (perf: link(), else copyfile() at 0755). */
static int link_or_copy(const char *from, const char *to)
{
	if (!access(to, F_OK))
		return 0;
	if (!link(from, to) || errno == EEXIST)
		return 0;
	return copy_file(from, to, 0755);
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The separate debug file of build id sbid into out, or out empty. */
static void debug__find(const struct build_id_cache_src *src, const char *sbid, char *out,
			size_t size)
{
	char path[PATH_MAX];

	char real[PATH_MAX];

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/%.2s/%s.debug",
		 src && src->debug_dir ? src->debug_dir : "/usr/lib/debug/.build-id",
		 sbid, sbid + 2);
	if (realpath(path, real) && !access(real, R_OK))
		snprintf(out, size, "%s", real);
}

static bool name__ends(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* .build-id/xx/yyyy… → ../../<entry relative to dir>. */
static int build_id_cache__link(const char *dir, const char *sbid, const char *entry)
{
	char link_path[PATH_MAX], target[PATH_MAX];
	int err;

	if (snprintf(link_path, sizeof(link_path), "%s/.build-id/%.2s", dir, sbid) >=
	    (int)sizeof(link_path))
		return -ENAMETOOLONG;
	err = mkdir_p(link_path, 0755);
	if (err)
		return err;
	snprintf(link_path + strlen(link_path), sizeof(link_path) - strlen(link_path), "/%s",
		 sbid + 2);
	if (snprintf(target, sizeof(target), "../..%s", entry + strlen(dir)) >=
	    (int)sizeof(target))
		return -ENAMETOOLONG;
	if (symlink(target, link_path) && errno != EEXIST)
		return -errno;
	return 0;
}

/* The entry's files: what perf's build_id_cache__add() puts in it. */
static int entry__fill(char *entry, const struct dso_hit *d, const char *real,
		       const char *sbid, const struct build_id_cache_src *src)
{
	char file[PATH_MAX + 16], debug[PATH_MAX];
	size_t n = strlen(entry);
	int err = 0;

	switch (d->kind) {
	case DSO_KERNEL:
		snprintf(file, sizeof(file), "%s/kallsyms", entry);
		if (!access(file, F_OK))
			return 0;
		return copy_file(src && src->kallsyms ? src->kallsyms : "/proc/kallsyms",
				 file, 0755);
	case DSO_VDSO:
		snprintf(file, sizeof(file), "%s/vdso", entry);
		err = access(file, F_OK) ? write_file(file, src->vdso, src->vdso_len, 0600) : 0;
		break;
	case DSO_USER:
	case DSO_MODULE:
		snprintf(file, sizeof(file), "%s/elf", entry);
		err = link_or_copy(real, file);
		if (err || d->kind == DSO_MODULE || name__ends(d->name, ".ko"))
			break;
		debug__find(src, sbid, debug, sizeof(debug));
		if (debug[0]) {
			snprintf(file, sizeof(file), "%s/debug", entry);
			err = link_or_copy(debug, file);
		}
		break;
	}
	if (err)
		return err;
	snprintf(file, sizeof(file), "%.*s/probes", (int)n, entry);
	return access(file, F_OK) ? touch(file) : 0;
}

int build_id_cache__add(const char *dir, const struct dso_hit *d,
			const struct build_id_cache_src *src, char *err, size_t errlen)
{
	char sbid[2 * BUILD_ID_SIZE + 1], real[PATH_MAX] = "", entry[PATH_MAX];
	int n;
	const char *what;
	struct stat st;
	int ret;

	if (d->bid_len <= 0 || (d->kind == DSO_KERNEL && d->name[0] == '/'))
		return 0;
	if (d->kind == DSO_VDSO && (!src || !src->vdso))
		return 0;
	buildid__snprintf(d->bid, d->bid_len, sbid, sizeof(sbid));
	if (d->kind == DSO_KERNEL || d->kind == DSO_VDSO) {
		what = d->kind == DSO_KERNEL ? "[kernel.kallsyms]" : "[vdso]";
		n = snprintf(entry, sizeof(entry), "%s/%s/%s", dir, what, sbid);
	} else {
		if (d->name[0] != '/')
			return 0;
		if (!realpath(d->name, real))
			return errbuf__set(err, errlen, -errno, "cannot find '%s': %s", d->name,
					   strerror(errno));
		n = snprintf(entry, sizeof(entry), "%s%s/%s", dir, real, sbid);
	}
	if (n < 0 || (size_t)n >= sizeof(entry))
		return errbuf__set(err, errlen, -ENAMETOOLONG, "cannot add '%s' to the build-id "
				   "cache '%s': the path is too long", d->name, dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return errbuf__set(err, errlen, -errno, "cannot make the build-id cache '%s': %s",
				   dir, strerror(errno));
	/* an entry of perf's old layout: a file where the directory goes */
	if (!stat(entry, &st) && S_ISREG(st.st_mode))
		unlink(entry);
	ret = mkdir_p(entry, 0755);
	if (!ret)
		ret = entry__fill(entry, d, real, sbid, src);
	if (!ret)
		ret = build_id_cache__link(dir, sbid, entry);
	if (ret)
		return errbuf__set(err, errlen, ret, "cannot add '%s' to the build-id cache '%s': %s",
				   d->name, dir, strerror(-ret));
	return 0;
}
