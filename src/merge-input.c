// SPDX-License-Identifier: GPL-2.0
/*
 * merge-input.c — the files a merge reads: DIR/data's data section and the
 * data.N files listed in numeric order, each mapped read-only and handed
 * to merge-records.c as one stream.
 *
 * Input files are mmapped read-only with MADV_SEQUENTIAL (large read-ahead,
 * no copy into a buffer of ours); consumed ranges are given back with
 * MADV_DONTNEED as the merge goes (merge-records.c), so the resident set
 * stays bounded however large the files. What reached the disk is what is
 * merged: a file that ends inside a record (a recording killed with
 * SIGKILL) or holds a record header with size < 8 (an mmap writer's
 * unused, zeroed tail) ends its stream at the last whole record
 * (merge__cut(): the first such cut is described in the message buffer and
 * counted in the stats).
 *
 * Data flow: DIR → merge__open_streams() → one struct mfile per data.N,
 * its mapping read by merge-records.c, merge-index.c and merge-journal.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "merge-internal.h"

/* ---- input files ---- */

/*
 * f maps fd (path in messages), read-only; the fd stays in f->fd when
 * f->writable, else it is closed, on error too.
 */
int mfile__map(struct mfile *f, int fd, const char *path, char *why, size_t len)
{
	struct stat st;
	int err = 0;

	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		goto out_close;
	}
	f->map_len = (u64)st.st_size;
	f->end = f->map_len;
	if (f->map_len) {
		void *p = mmap(NULL, f->map_len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			err = -errno;
			snprintf(why, len, "cannot map %s: %s", path, strerror(errno));
			goto out_close;
		}
		madvise(p, f->map_len, MADV_SEQUENTIAL);
		f->map = p;
	}
out_close:
	if (err)
		f->writable = false;
	if (f->writable)
		f->fd = fd;
	else
		close(fd);
	return err;
}

/*
 * path mapped read-only, called label in messages. writable: the fd is
 * kept, read-write, to give space back (consume); a file that cannot be
 * opened for writing is only read.
 */
int mfile__open_path(struct mfile *f, const char *path, const char *label,
			    bool writable, char *why, size_t len)
{
	int fd = -1;

	*f = (struct mfile){ 0 };
	snprintf(f->name, sizeof(f->name), "%s", label);
	if (writable)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	else
		f->writable = true;
	if (fd < 0) {
		int err = -errno;

		snprintf(why, len, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	return mfile__map(f, fd, path, why, len);
}

int mfile__open(struct mfile *f, const char *dir, const char *name, bool writable,
		       char *why, size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return mfile__open_path(f, path, name, writable, why, len);
}

void mfile__close(struct mfile *f)
{
	if (f->map)
		munmap((void *)f->map, f->map_len);
	f->map = NULL;
	if (f->writable)
		close(f->fd);
	f->writable = false;
}

/* Whether the rest of the file from pos is zero bytes: room an mmap writer reserved. */
bool mfile__zero_tail(const struct mfile *f, u64 pos)
{
	const u8 *p = f->map + pos;
	u64 n = f->end - pos;

	return n && !p[0] && (n == 1 || !memcmp(p, p + 1, n - 1));
}

/* The stream of f ends at f->pos, before what cannot be read; note the first such cut. */
void merge__cut(struct merge *m, struct mfile *f, const char *what)
{
	u64 dropped = f->end - f->pos;

	m->stats->nr_cut++;
	m->stats->bytes_cut += dropped;
	if (m->note[0])
		;	/* the first cut is the one told */
	else if (mfile__zero_tail(f, f->pos))
		snprintf(m->note, sizeof(m->note),
			 "%s ends in %llu bytes of zeroes from offset %llu, room the mmap writer "
			 "reserved and never filled: kept every record before them",
			 f->name, (unsigned long long)dropped, (unsigned long long)f->pos);
	else
		snprintf(m->note, sizeof(m->note),
			 "%s %s at offset %llu: kept the records before it, dropped %llu bytes",
			 f->name, what, (unsigned long long)f->pos, (unsigned long long)dropped);
	f->end = f->pos;
}

/* The header of the record at pos, or why none can be read there. */
const char *mfile__header_at(const struct mfile *f, u64 pos, struct perf_event_header *h)
{
	if (f->map_len - pos < HDR_SIZE)
		return "ends inside a record header";
	memcpy(h, f->map + pos, sizeof(*h));
	if (h->size < HDR_SIZE)
		return h->size ? "has a record of size < 8" : "has a record of size 0";
	if (h->size > f->map_len - pos)
		return "ends inside a record";
	return NULL;
}

/* ---- streams ---- */

void mstream__exit(struct mstream *s)
{
	mfile__close(&s->file);
	zdecomp__delete(s->zd);
	free(s->arena);
	*s = (struct mstream){ 0 };
}

/* ---- the data.N files ---- */

/* N of "data.N", -1 for other names. */
static long data_file__index(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "data.", 5) || name[5] < '0' || name[5] > '9')
		return -1;
	n = strtol(name + 5, &end, 10);
	return *end || n < 0 || n >= INT_MAX ? -1 : n;
}

static int long__cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The N of every data.N in dir, sorted. */
static int merge__list_files(struct merge *m, long **idxp, int *nrp)
{
	DIR *d = opendir(m->dir);
	long *idx = NULL, *tmp, n;
	struct dirent *e;
	int nr = 0, err;

	if (!d) {
		err = -errno;
		merge__error(m, "cannot open directory %s: %s", m->dir, strerror(errno));
		return err;
	}
	while ((e = readdir(d))) {
		n = data_file__index(e->d_name);
		if (n < 0)
			continue;
		tmp = realloc(idx, sizeof(*idx) * (size_t)(nr + 1));
		if (!tmp) {
			free(idx);
			closedir(d);
			return -ENOMEM;
		}
		idx = tmp;
		idx[nr++] = n;
	}
	closedir(d);
	if (nr)
		qsort(idx, (size_t)nr, sizeof(*idx), long__cmp);
	*idxp = idx;
	*nrp = nr;
	return 0;
}

int merge__open_streams(struct merge *m, bool consume)
{
	char name[32], why[PATH_MAX + 64];
	long *idx = NULL;
	int nr = 0, i, err = m->single ? 0 : merge__list_files(m, &idx, &nr);

	if (err)
		return err;
	m->streams = calloc((size_t)(nr ? nr : 1), sizeof(*m->streams));
	m->heap = calloc((size_t)(nr ? nr : 1), sizeof(*m->heap));
	if (!m->streams || !m->heap) {
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "data.%ld", idx[i]);
		err = mfile__open(&m->streams[i].file, m->dir, name, consume, why, sizeof(why));
		if (err) {
			merge__error(m, "%s", why);
			break;
		}
		m->streams[i].idx = i;
		m->streams[i].num = idx[i];
		m->nr_streams = i + 1;
	}
	free(idx);
	m->stats->nr_files = m->nr_streams;
	return err;
}
