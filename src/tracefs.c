// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs.c — finding tracefs, reading tracepoint ids, iterating tracepoints
 * by glob, and building the TRACING_DATA feature.
 *
 * Owns nothing long-lived: every call looks the mount up again (a statfs per
 * known mount point, cheap next to what follows), so there is no cached path
 * and no global state. The mount points looked at are perf's known ones:
 * /sys/kernel/tracing, /sys/kernel/debug/tracing (debugfs automounts tracefs
 * there), /tracing and /trace; a tracefs mounted anywhere else is not seen.
 * When none is mounted, tracefs is mounted on /sys/kernel/tracing, which
 * works as root and fails with EPERM (reported as EACCES) otherwise, as
 * perf's libapi does.
 *
 * Who runs it: the thread that parses events and the one that writes the
 * file header; the functions are reentrant (no shared state), so any thread
 * may call them.
 *
 * Data flow of TRACING_DATA: the tracepoints of the evlist (tp_sys/tp_name,
 * or found by id when those are unset) select which format files go in. The
 * payload is built in memory (a few KiB: headers, one format per tracepoint,
 * printk formats, saved cmdlines), then written in one go, so fd may be a
 * pipe. The layout is perf's tracing_data version 0.6
 * (tools/perf/util/trace-event-info.c, read back by trace-event-read.c):
 *
 *	"\027\010\104tracing"           10 bytes
 *	"0.6\0"                         version
 *	u8 big endian, u8 sizeof(long), u32 page size
 *	"header_page\0"  u64 size, file  events/header_page
 *	"header_event\0" u64 size, file  events/header_event
 *	u32 count, count × (u64 size, format)    ftrace events recorded
 *	u32 systems, systems × (name "\0", u32 count, count × (u64 size, format))
 *	u32 0                           kallsyms (perf 6.1 writes it empty too)
 *	u32 size, printk_formats
 *	u64 size, saved_cmdlines
 *
 * Systems and events come in readdir order of tracefs, like perf's, and a
 * tracepoint recorded twice has its format written once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "precord/tracefs.h"
#include "precord/util.h"
#include "precord/evlist.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC		0x74726163
#endif

#define TRACEFS_MOUNT_POINT	"/sys/kernel/tracing"
#define TRACING_DATA_VERSION	"0.6"

static const char *const tracefs__mount_points[] = {
	TRACEFS_MOUNT_POINT,
	"/sys/kernel/debug/tracing",
	"/tracing",
	"/trace",
};

static bool tracefs__mounted_at(const char *dir)
{
	struct statfs st;

	return statfs(dir, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

static const char *tracefs__mount(void)
{
	if (mount("nodev", TRACEFS_MOUNT_POINT, "tracefs", 0, NULL) == 0)
		return TRACEFS_MOUNT_POINT;
	if (errno == EBUSY && tracefs__mounted_at(TRACEFS_MOUNT_POINT))
		return TRACEFS_MOUNT_POINT;	/* someone mounted it meanwhile */
	errno = (errno == EPERM || errno == EACCES) ? EACCES : ENODEV;
	return NULL;
}

const char *tracefs__path(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracefs__mount_points); i++)
		if (tracefs__mounted_at(tracefs__mount_points[i]))
			return tracefs__mount_points[i];
	return tracefs__mount();
}

/* A name that is one directory entry: not empty, no '/', not "." or "..". */
static bool tracefs__is_component(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static int tracefs__events_file(char *buf, size_t size, const char *sys, const char *name,
				const char *file)
{
	const char *mnt = tracefs__path();
	int n;

	if (!mnt)
		return -errno;
	if (!tracefs__is_component(sys) || !tracefs__is_component(name))
		return -ENOENT;
	n = snprintf(buf, size, "%s/events/%s/%s/%s", mnt, sys, name, file);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int tracefs__event_id(const char *sys, const char *name)
{
	char path[PATH_MAX], buf[32], *end;
	ssize_t n;
	long id;
	int fd, err;

	err = tracefs__events_file(path, sizeof(path), sys, name, "id");
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	errno = 0;
	id = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || id < 0 || id > INT_MAX)
		return -EINVAL;
	return (int)id;
}

/* Is entry d of the directory dfd a subdirectory (other than . and ..)? */
static bool tracefs__is_subdir(int dfd, const struct dirent *d)
{
	struct stat st;

	if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
		return false;
	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Open subdirectory name of dfd as a DIR stream, or NULL with errno set. */
static DIR *tracefs__opendirat(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir)
		close(fd);
	return dir;
}

static DIR *tracefs__open_events(void)
{
	const char *mnt = tracefs__path();
	char path[PATH_MAX];

	if (!mnt)
		return NULL;
	snprintf(path, sizeof(path), "%s/events", mnt);
	return opendir(path);
}

/* fn for the subdirectories of the system dir sys matching name_glob; closes dir. */
static int tracefs__for_each_in_system(DIR *dir, const char *sys, const char *name_glob,
				       int (*fn)(void *ctx, const char *sys, const char *name),
				       void *ctx, bool *stop)
{
	struct dirent *d;
	int count = 0, ret;

	while ((d = readdir(dir))) {
		if (!tracefs__is_subdir(dirfd(dir), d) || fnmatch(name_glob, d->d_name, 0))
			continue;
		ret = fn(ctx, sys, d->d_name);
		if (ret < 0) {
			count = ret;
			break;
		}
		count++;
		if (ret > 0) {
			*stop = true;
			break;
		}
	}
	closedir(dir);
	return count;
}

int tracefs__for_each_event(const char *sys_glob, const char *name_glob,
			    int (*fn)(void *ctx, const char *sys, const char *name), void *ctx)
{
	DIR *dir = tracefs__open_events(), *sys_dir;
	struct dirent *d;
	bool stop = false;
	int count = 0, ret;

	if (!dir)
		return -errno;
	while (!stop && (d = readdir(dir))) {
		if (!tracefs__is_subdir(dirfd(dir), d) || fnmatch(sys_glob, d->d_name, 0))
			continue;
		sys_dir = tracefs__opendirat(dirfd(dir), d->d_name);
		if (!sys_dir && (errno == ENOENT || errno == ENOTDIR))
			continue;	/* went away under us */
		ret = sys_dir ? tracefs__for_each_in_system(sys_dir, d->d_name, name_glob, fn,
							    ctx, &stop) : -errno;
		if (ret < 0) {
			count = ret;
			break;
		}
		count += ret;
	}
	closedir(dir);
	return count;
}

/* ---- the TRACING_DATA payload ---------------------------------------- */

/* A growing byte buffer; the first failure sticks in err. */
struct tdbuf {
	char	*data;
	size_t	len;
	size_t	cap;
	int	err;
};

static int tdbuf__reserve(struct tdbuf *b, size_t more)
{
	char *data;

	if (b->err)
		return b->err;
	if (b->len + more <= b->cap)
		return 0;
	data = buf__grow(b->data, &b->cap, b->len + more, 16384);
	if (!data)
		return b->err = -ENOMEM;
	b->data = data;
	return 0;
}

static void tdbuf__put(struct tdbuf *b, const void *p, size_t n)
{
	if (tdbuf__reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void tdbuf__put_u8(struct tdbuf *b, u8 v)
{
	tdbuf__put(b, &v, 1);
}

static void tdbuf__put_u32(struct tdbuf *b, u32 v)
{
	tdbuf__put(b, &v, 4);
}

static void tdbuf__put_u64(struct tdbuf *b, u64 v)
{
	tdbuf__put(b, &v, 8);
}

/* A file size as perf writes it: u32 or u64 by hdr_sz, native order. */
static void tdbuf__put_size(struct tdbuf *b, u64 size, size_t hdr_sz)
{
	if (hdr_sz == 4)
		tdbuf__put_u32(b, (u32)size);
	else
		tdbuf__put_u64(b, size);
}

/* Overwrite a u32 put earlier at offset off (counts known only afterwards). */
static void tdbuf__patch_u32(struct tdbuf *b, size_t off, u32 v)
{
	if (!b->err)
		memcpy(b->data + off, &v, 4);
}

/*
 * Append a size of hdr_sz bytes (4 or 8, native order) and then the whole
 * content of file opened at dfd/path; tracefs files have no size in stat,
 * so read to EOF and patch the size in. Returns 0 or -errno, the buffer
 * left as it was on error.
 */
static int tdbuf__put_file(struct tdbuf *b, int dfd, const char *path, size_t hdr_sz)
{
	size_t start = b->len;
	u64 size;
	ssize_t n;
	int fd, err = 0;

	if (b->err)
		return b->err;
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	tdbuf__put_size(b, 0, hdr_sz);
	for (;;) {
		if ((err = tdbuf__reserve(b, 8192)))
			break;
		n = read(fd, b->data + b->len, b->cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		b->len += (size_t)n;
	}
	close(fd);
	if (err) {
		if (!b->err)
			b->len = start;
		return err;
	}
	size = b->len - start - hdr_sz;
	if (hdr_sz == 4)
		tdbuf__patch_u32(b, start, (u32)size);
	else
		memcpy(b->data + start, &size, 8);
	return 0;
}

/* One recorded tracepoint, as tracefs names it. */
struct tracepoint_path {
	char	*sys;
	char	*name;
};

struct tracepoint_list {
	struct tracepoint_path	*tps;
	int			nr;
};

static bool tracepoint_list__has_sys(const struct tracepoint_list *list, const char *sys)
{
	int i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->tps[i].sys, sys))
			return true;
	return false;
}

static bool tracepoint_list__has(const struct tracepoint_list *list, const char *sys,
				 const char *name)
{
	int i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->tps[i].sys, sys) && !strcmp(list->tps[i].name, name))
			return true;
	return false;
}

static void tracepoint_list__exit(struct tracepoint_list *list)
{
	int i;

	for (i = 0; i < list->nr; i++) {
		free(list->tps[i].sys);
		free(list->tps[i].name);
	}
	free(list->tps);
	list->tps = NULL;
	list->nr = 0;
}

/* The tracepoints of a list still to be named from their ids, found in one walk. */
struct tracepoint_ids {
	struct tracepoint_list	*list;
	const u64		*ids;	/* [i]: tps[i]'s id (attr.config), where tps[i] has no name */
	int			left;	/* tps without a name yet */
};

static int tracepoint_ids__match(void *ctx, const char *sys, const char *name)
{
	struct tracepoint_ids *arg = ctx;
	int i, id = tracefs__event_id(sys, name);

	if (id < 0)
		return 0;
	for (i = 0; i < arg->list->nr; i++) {
		struct tracepoint_path *tp = &arg->list->tps[i];

		if (tp->sys || arg->ids[i] != (u64)id)
			continue;
		tp->sys = strdup(sys);
		tp->name = strdup(name);
		if (!tp->sys || !tp->name)
			return -ENOMEM;
		arg->left--;
	}
	return arg->left ? 0 : 1;
}

/*
 * Every tracepoint evsel of evlist, named by tp_sys/tp_name or else by its
 * id. The ids are looked up in one walk of tracefs for all of them: a walk
 * reads every event's id file, and a file read from disk may have
 * thousands of attrs.
 */
static int tracepoint_list__init(struct tracepoint_list *list, const struct evlist *evlist)
{
	struct tracepoint_ids arg = { .list = list };
	struct evsel *evsel;
	u64 *ids;
	int i, err = 0;

	list->tps = calloc((size_t)evlist->nr_entries + 1, sizeof(*list->tps));
	ids = calloc((size_t)evlist->nr_entries + 1, sizeof(*ids));
	list->nr = 0;
	if (!list->tps || !ids) {
		err = -ENOMEM;
		goto out;
	}
	evlist__for_each_evsel(evlist, evsel, i) {
		struct tracepoint_path *tp = &list->tps[list->nr];

		if (evsel->attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		ids[list->nr++] = evsel->attr.config;
		if (!evsel->tp_sys || !evsel->tp_name) {
			arg.left++;
			continue;
		}
		tp->sys = strdup(evsel->tp_sys);
		tp->name = strdup(evsel->tp_name);
		if (!tp->sys || !tp->name) {
			err = -ENOMEM;
			goto out;
		}
	}
	arg.ids = ids;
	if (arg.left)
		err = tracefs__for_each_event("*", "*", tracepoint_ids__match, &arg);
	if (err > 0)
		err = 0;
	if (!err && arg.left)
		err = -ENOENT;
out:
	free(ids);
	if (err)
		tracepoint_list__exit(list);
	return err;
}

/* The end of a list read from dir: dir closed, the u32 at count_off made count. */
static int tdbuf__end_list(struct tdbuf *b, DIR *dir, size_t count_off, u32 count, int err)
{
	closedir(dir);
	tdbuf__patch_u32(b, count_off, count);
	return err ? err : b->err;
}

/*
 * The formats of the recorded events of one system: u32 count, then per
 * event u64 size and the format text. A missing system gives count 0.
 */
static int tracing_data__put_system(struct tdbuf *b, int events_fd, const char *sys,
				    const struct tracepoint_list *list)
{
	size_t count_off = b->len;
	char path[NAME_MAX * 2 + 16];
	struct dirent *d;
	DIR *dir;
	u32 count = 0;
	int err = 0;

	tdbuf__put_u32(b, 0);
	dir = tracefs__opendirat(events_fd, sys);
	if (!dir)
		return errno == ENOENT ? b->err : -errno;
	while ((d = readdir(dir))) {
		if (!tracefs__is_subdir(dirfd(dir), d) || !tracepoint_list__has(list, sys, d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", sys, d->d_name);
		err = tdbuf__put_file(b, events_fd, path, 8);
		if (err == -ENOENT)
			continue;	/* perf skips an event without a format */
		if (err)
			break;
		count++;
	}
	return tdbuf__end_list(b, dir, count_off, count, err);
}

/* Every system but ftrace that has recorded events: u32 count, then each. */
static int tracing_data__put_systems(struct tdbuf *b, int events_fd,
				     const struct tracepoint_list *list)
{
	size_t count_off = b->len;
	struct dirent *d;
	DIR *dir;
	u32 count = 0;
	int err = 0;

	tdbuf__put_u32(b, 0);
	dir = tracefs__opendirat(events_fd, ".");
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!tracefs__is_subdir(dirfd(dir), d) || !strcmp(d->d_name, "ftrace") ||
		    !tracepoint_list__has_sys(list, d->d_name))
			continue;
		tdbuf__put(b, d->d_name, strlen(d->d_name) + 1);
		err = tracing_data__put_system(b, events_fd, d->d_name, list);
		if (err)
			break;
		count++;
	}
	return tdbuf__end_list(b, dir, count_off, count, err);
}

static void tracing_data__put_header(struct tdbuf *b)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	tdbuf__put(b, magic, sizeof(magic));
	tdbuf__put(b, TRACING_DATA_VERSION, sizeof(TRACING_DATA_VERSION));
	tdbuf__put_u8(b, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	tdbuf__put_u8(b, sizeof(long));
	tdbuf__put_u32(b, (u32)sysconf(_SC_PAGESIZE));
}

static int tracing_data__put_header_files(struct tdbuf *b, int events_fd)
{
	int err;

	tdbuf__put(b, "header_page", sizeof("header_page"));
	err = tdbuf__put_file(b, events_fd, "header_page", 8);
	if (err)
		return err;
	tdbuf__put(b, "header_event", sizeof("header_event"));
	return tdbuf__put_file(b, events_fd, "header_event", 8);
}

/* A file of the tracefs top directory, or a zero size when it is missing. */
static int tracing_data__put_optional(struct tdbuf *b, int tracing_fd, const char *file,
				      size_t hdr_sz)
{
	int err = tdbuf__put_file(b, tracing_fd, file, hdr_sz);

	if (err != -ENOENT)
		return err;
	tdbuf__put_size(b, 0, hdr_sz);
	return b->err;
}

static int tracing_data__build(struct tdbuf *b, const struct tracepoint_list *list)
{
	const char *mnt = tracefs__path();
	int tracing_fd, events_fd, err;

	if (!mnt)
		return -errno;
	tracing_fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tracing_fd < 0)
		return -errno;
	events_fd = openat(tracing_fd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (events_fd < 0) {
		err = -errno;
		goto out_close_tracing;
	}

	tracing_data__put_header(b);
	err = tracing_data__put_header_files(b, events_fd);
	if (!err)
		err = tracing_data__put_system(b, events_fd, "ftrace", list);
	if (!err)
		err = tracing_data__put_systems(b, events_fd, list);
	tdbuf__put_u32(b, 0);	/* kallsyms: empty, perf resolves symbols itself */
	if (!err)
		err = tracing_data__put_optional(b, tracing_fd, "printk_formats", 4);
	if (!err)
		err = tracing_data__put_optional(b, tracing_fd, "saved_cmdlines", 8);
	if (!err)
		err = b->err;

	close(events_fd);
out_close_tracing:
	close(tracing_fd);
	return err;
}

ssize_t tracefs__tracing_data(struct evlist *evlist, char **bufp)
{
	struct tracepoint_list list;
	struct tdbuf b = { 0 };
	int err;

	*bufp = NULL;
	err = tracepoint_list__init(&list, evlist);
	if (err)
		return err;
	if (!list.nr) {
		tracepoint_list__exit(&list);
		return 0;
	}
	err = tracing_data__build(&b, &list);
	tracepoint_list__exit(&list);
	if (err) {
		free(b.data);
		return err;
	}
	*bufp = b.data;
	return (ssize_t)b.len;
}

ssize_t tracefs__write_tracing_data(int fd, struct evlist *evlist)
{
	char *buf;
	ssize_t len = tracefs__tracing_data(evlist, &buf);
	int err;

	if (len <= 0)
		return len;
	err = write_all(fd, buf, (size_t)len);
	free(buf);
	return err ? err : len;
}
