// SPDX-License-Identifier: GPL-2.0
/*
 * report-file.c — what the account of loss reads: a perf.data file
 * (PERFILE2 with its header, attrs and ids; a pipe-mode file with its
 * 16-byte header and HEADER_ATTR records) or a perf directory (`data`,
 * then every `data.N`), each handed to report.c's reader a data section
 * at a time.
 *
 * Runs on the caller's thread, inside loss_report__read(). Data flow: a
 * path → its header and attrs (reader__add_evsel()) → the bounds of its
 * data section → reader__stream_fd().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "report-internal.h"

/* ---- the header ---------------------------------------------------------- */

/* The file whose header is being read. */
struct header_in {
	int		fd;
	const char	*name;
	u64		file_size;
	u64		ids_bytes;	/* the id arrays read so far */
};

static int reader__bad_section(struct reader *rd, const struct header_in *hi, const char *what,
			       const struct perf_file_section *sec, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A header section that does not fit: -EINVAL, one line naming it and its offset. */
static int reader__bad_section(struct reader *rd, const struct header_in *hi, const char *what,
			       const struct perf_file_section *sec, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return reader__fail(rd, -EINVAL, "'%s': bad %s of %s (%" PRIu64 " bytes at offset %#"
			    PRIx64 "): %s", rd->path, what, hi->name, sec->size, sec->offset, why);
}

static bool section__in_file(const struct perf_file_section *sec, u64 file_size)
{
	return sec->offset <= file_size && sec->size <= file_size - sec->offset;
}

/* Read a section checked with section__in_file(); NULL: -ENOMEM or a short read. */
static u8 *section__read(int fd, const struct perf_file_section *sec)
{
	u8 *buf = malloc(sec->size ? sec->size : 1);

	if (buf && pread(fd, buf, sec->size, (off_t)sec->offset) != (ssize_t)sec->size) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	return buf;
}

/*
 * The ids section of the attr at file offset `at`. The id arrays together
 * are bounded (MAX_ATTRS_BYTES): attrs pointing at one large array could
 * otherwise have it read and inserted over and over.
 */
static int reader__read_ids(struct reader *rd, struct header_in *hi, u64 at,
			    const struct perf_file_section *ids, const struct perf_event_attr *attr)
{
	char what[64];
	u8 *buf;
	int err;

	snprintf(what, sizeof(what), "ids section of the attr at offset %#" PRIx64, at);
	if (ids->size % sizeof(u64))
		return reader__bad_section(rd, hi, what, ids, "not a whole number of ids");
	if (ids->size > MAX_ATTRS_BYTES - hi->ids_bytes)
		return reader__bad_section(rd, hi, what, ids, "the id arrays add up to more "
					   "than %u MiB", MAX_ATTRS_BYTES >> 20);
	if (!section__in_file(ids, hi->file_size))
		return reader__bad_section(rd, hi, what, ids, "past the end of the file (%" PRIu64
					   " bytes)", hi->file_size);
	hi->ids_bytes += ids->size;
	buf = section__read(hi->fd, ids);
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : reader__bad_section(rd, hi, what, ids,
								       "cannot read it");
	err = reader__add_evsel(rd, attr, buf, ids->size / sizeof(u64));
	free(buf);
	return err;
}

static int reader__read_attrs(struct reader *rd, struct header_in *hi,
			      const struct perf_file_header *hdr)
{
	const struct perf_file_section *attrs = &hdr->attrs;
	u64 asz = hdr->attr_size, i, nr;
	u8 *buf;
	int err = 0;

	if (asz < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section))
		return reader__bad_section(rd, hi, "attrs section", attrs, "attr_size %" PRIu64
					   " is too small for an attr and its ids section", asz);
	if (attrs->size % asz)
		return reader__bad_section(rd, hi, "attrs section", attrs, "not a whole number "
					   "of attrs of attr_size %" PRIu64, asz);
	if (attrs->size > MAX_ATTRS_BYTES)
		return reader__bad_section(rd, hi, "attrs section", attrs, "more than %u MiB",
					   MAX_ATTRS_BYTES >> 20);
	if (!section__in_file(attrs, hi->file_size))
		return reader__bad_section(rd, hi, "attrs section", attrs, "past the end of the "
					   "file (%" PRIu64 " bytes)", hi->file_size);
	buf = section__read(hi->fd, attrs);
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : reader__bad_section(rd, hi, "attrs section",
								       attrs, "cannot read it");
	nr = attrs->size / asz;
	for (i = 0; i < nr && !err; i++) {
		const u8 *p = buf + i * asz;
		struct perf_file_section ids;
		struct perf_event_attr attr;

		attr__load(&attr, p, asz - sizeof(ids));
		memcpy(&ids, p + asz - sizeof(ids), sizeof(ids));
		err = reader__read_ids(rd, hi, attrs->offset + i * asz, &ids, &attr);
	}
	free(buf);
	return err;
}

/*
 * The data section [*start, *end): it may run past the end of the file (a
 * copy cut short: the rest is reported missing), not into the header or
 * past 2^64.
 */
static int reader__data_section(struct reader *rd, const struct header_in *hi,
				const struct perf_file_header *hdr, u64 *start, u64 *end)
{
	const struct perf_file_section *data = &hdr->data;

	if (data->offset < hdr->size)
		return reader__bad_section(rd, hi, "data section", data, "it overlaps the %"
					   PRIu64 "-byte header", hdr->size);
	if (data->size > ~0ULL - data->offset)
		return reader__bad_section(rd, hi, "data section", data, "its end is past 2^64");
	*start = data->offset;
	*end = data->offset + data->size;
	if (!data->size) {
		/* A recording that never finished: its data runs to the end. */
		rd->r->size_from_eof = true;
		*end = hi->file_size;
	}
	if (*end > hi->file_size) {
		u64 from = *start > hi->file_size ? *start : hi->file_size;

		rd->r->missing_bytes += *end - from;
		*end = hi->file_size;
	}
	if (*start > *end)
		*start = *end;
	return 0;
}

/*
 * The fixed header: 0 and the data section [*start, *end), or -errno with
 * the message. A pipe-mode file's data runs from byte 16 to the end.
 */
static int reader__open_header(struct reader *rd, int fd, const char *name, u64 *start, u64 *end)
{
	struct header_in hi = { .fd = fd, .name = name };
	struct perf_file_header hdr;
	struct stat st;
	ssize_t n;
	int err;

	if (fstat(fd, &st) < 0)
		return reader__fail(rd, -errno, "cannot stat '%s': %s", name, strerror(errno));
	hi.file_size = (u64)st.st_size;
	n = pread(fd, &hdr, sizeof(hdr), 0);
	if (n < 0)
		return reader__fail(rd, -errno, "cannot read '%s': %s", name, strerror(errno));
	if ((size_t)n < sizeof(hdr.magic) + sizeof(hdr.size) ||
	    (hdr.magic != PERF_MAGIC && hdr.magic != __builtin_bswap64(PERF_MAGIC)))
		return reader__fail(rd, -EINVAL, "'%s' is not a perf.data file (bad magic)", name);
	if (hdr.magic != PERF_MAGIC)
		return reader__fail(rd, -EINVAL,
				    "'%s' was written on a machine of the other byte order: not supported",
				    name);
	if (hdr.size == PIPE_HEADER_SIZE) {
		*start = PIPE_HEADER_SIZE;
		*end = hi.file_size;
		return 0;
	}
	if ((size_t)n < sizeof(hdr) || hdr.size != sizeof(hdr))
		return reader__fail(rd, -EINVAL, "'%s' is not a perf.data file (header of %" PRIu64
				    " bytes)", name, hdr.size);
	err = reader__data_section(rd, &hi, &hdr, start, end);
	if (!err)
		err = reader__read_attrs(rd, &hi, &hdr);
	return err;
}

int reader__file(struct reader *rd, const char *name)
{
	u64 start, end;
	int fd = open(name, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return reader__fail(rd, -errno, "cannot open '%s': %s", name, strerror(errno));
	err = reader__open_header(rd, fd, name, &start, &end);
	if (!err)
		err = reader__stream_fd(rd, fd, name, start, end);
	close(fd);
	return err;
}

/* A data.N of a directory: raw records from its first byte to its last. */
static int reader__raw_file(struct reader *rd, const char *name)
{
	struct stat st;
	int fd = open(name, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return reader__fail(rd, -errno, "cannot open '%s': %s", name, strerror(errno));
	if (fstat(fd, &st) < 0)
		err = reader__fail(rd, -errno, "cannot stat '%s': %s", name, strerror(errno));
	else
		err = reader__stream_fd(rd, fd, name, 0, (u64)st.st_size);
	close(fd);
	return err;
}

/* "data.12" → 12; anything else → -1. */
static long data_file__number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "data.", 5) || !name[5])
		return -1;
	n = strtol(name + 5, &end, 10);
	return *end || n < 0 ? -1 : n;
}

static int long__cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The data.N of dir, in numeric order. */
static int dir__list(struct reader *rd, const char *dir, long **nums, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*nums = NULL;
	*nr = 0;
	if (!d)
		return reader__fail(rd, -errno, "cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		long n = data_file__number(de->d_name);

		if (n < 0)
			continue;
		if (*nr == cap) {
			long *p = realloc(*nums, sizeof(*p) * (cap = cap ? cap * 2 : 16));

			if (!p) {
				closedir(d);
				return -ENOMEM;
			}
			*nums = p;
		}
		(*nums)[(*nr)++] = n;
	}
	closedir(d);
	/* No data.N leaves *nums NULL, which qsort() must not get even for 0 items. */
	if (*nr)
		qsort(*nums, *nr, sizeof(**nums), long__cmp);
	return 0;
}

int reader__dir(struct reader *rd, const char *dir)
{
	char *name = NULL;
	long *nums;
	size_t nr, i;
	int err;

	if (asprintf(&name, "%s/data", dir) < 0)
		return -ENOMEM;
	if (access(name, F_OK) < 0) {
		free(name);
		return reader__fail(rd, -ENOENT, "'%s' is a directory without a 'data' file: "
				    "not a perf.data directory", dir);
	}
	err = reader__file(rd, name);
	free(name);
	if (err)
		return err;
	err = dir__list(rd, dir, &nums, &nr);
	for (i = 0; i < nr && !err; i++) {
		if (asprintf(&name, "%s/data.%ld", dir, nums[i]) < 0) {
			err = -ENOMEM;
			break;
		}
		err = reader__raw_file(rd, name);
		free(name);
	}
	free(nums);
	return err;
}
