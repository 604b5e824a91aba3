// SPDX-License-Identifier: GPL-2.0
/*
 * merge-input.c — the files a merge reads: DIR/data's data section and the
 * data.N files, each mapped and read record by record as one stream with
 * its reorder window.
 *
 * Input files are mmapped read-only with MADV_SEQUENTIAL (large read-ahead,
 * no copy into a buffer of ours); consumed ranges are given back with
 * MADV_DONTNEED every MERGE_RELEASE_STEP bytes (merge.c), so the resident
 * set stays bounded however large the files. Records a stream keeps in its
 * window point into the mapping; records decompressed from COMPRESSED ones
 * (perf -z: one zstd stream per file) are copied into the stream's arena,
 * which moves only what the window still needs.
 *
 * What reached the disk is what is merged: a file that ends inside a record
 * (a recording killed with SIGKILL) or holds a record header with size < 8
 * (an mmap writer's unused, zeroed tail) ends that stream at the last whole
 * record; the first such cut is described in the message buffer and counted
 * in the stats. AUX area data (PERF_RECORD_AUXTRACE, whose payload lies
 * outside header.size) is refused.
 *
 * Data flow: a file mapping → mfile__next() (whole records) →
 * mstream__read() (COMPRESSED records opened, FINISHED_ROUNDs dropped, the
 * time from the attrs) → the stream's window, sorted by time →
 * mstream__pop() to the heap of merge.c or a part of merge-parallel.c.
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

/* The next whole record of f (a pointer into its mapping), NULL at its end. */
static const u8 *mfile__next(struct merge *m, struct mfile *f)
{
	struct perf_event_header h;
	const u8 *rec;

	if (f->nr_pending) {
		u64 off = *f->pending;

		f->pending++;
		f->nr_pending--;
		if (f->map_len >= HDR_SIZE && off <= f->map_len - HDR_SIZE) {
			memcpy(&h, f->map + off, sizeof(h));
			if (h.size >= HDR_SIZE && h.size <= f->map_len - off)
				return f->map + off;
		}
		merge__cut(m, f, "has no record where the journal says one waits");
		return NULL;
	}
	if (f->end - f->pos < HDR_SIZE) {
		if (f->end != f->pos)
			merge__cut(m, f, "ends inside a record header");
		return NULL;
	}
	memcpy(&h, f->map + f->pos, sizeof(h));
	if (h.size < HDR_SIZE) {
		merge__cut(m, f, h.size ? "has a record of size < 8" : "has a record of size 0");
		return NULL;
	}
	if (h.size > f->end - f->pos) {
		merge__cut(m, f, "ends inside a record");
		return NULL;
	}
	rec = f->map + f->pos;
	f->pos += h.size;
	return rec;
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

/* ---- streams: a file, its decompressor, its reorder window ---- */

/* The lowest arena offset still needed: the window's and what is unread. */
static size_t mstream__arena_keep(struct mstream *s)
{
	size_t keep = s->arena_pos;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct wrec *r = mstream__at(s, i);

		if (r->in_arena && r->off < keep)
			keep = (size_t)r->off;
	}
	return keep;
}

/* Room for len more bytes at the arena's end: drop what nobody needs, then grow. */
static int mstream__arena_reserve(struct mstream *s, size_t len)
{
	size_t keep, cap;
	unsigned int i;
	u8 *p;

	if (s->arena_cap - s->arena_len >= len)
		return 0;
	keep = mstream__arena_keep(s);
	if (keep) {
		memmove(s->arena, s->arena + keep, s->arena_len - keep);
		s->arena_len -= keep;
		s->arena_pos -= keep;
		for (i = 0; i < s->nr; i++)
			if (mstream__at(s, i)->in_arena)
				mstream__at(s, i)->off -= keep;
	}
	if (s->arena_cap - s->arena_len >= len)
		return 0;
	cap = s->arena_cap ? s->arena_cap : MERGE_ARENA_SIZE;
	while (cap - s->arena_len < len)
		cap *= 2;
	p = realloc(s->arena, cap);
	if (!p)
		return -ENOMEM;
	s->arena = p;
	s->arena_cap = cap;
	return 0;
}

/* Decompress one COMPRESSED record into the arena. */
static int mstream__inflate(struct merge *m, struct mstream *s, const u8 *rec)
{
	struct perf_event_header h;
	const void *p;
	size_t len;
	int err;

	if (!s->zd) {
		s->zd = zdecomp__new();
		if (!s->zd)
			return -ENOMEM;
	}
	memcpy(&h, rec, sizeof(h));	/* perf does not pad COMPRESSED records to 8 bytes */
	err = zdecomp__feed(s->zd, rec, h.size);
	if (err) {
		merge__error(m, "%s/%s: cannot decompress the record at offset %llu: %s",
			     m->dir, s->file.name,
			     (unsigned long long)(rec - s->file.map), strerror(-err));
		return err;
	}
	p = zdecomp__pending(s->zd, &len);
	if (!len)
		return 0;	/* nothing whole yet; the arena may not exist yet */
	err = mstream__arena_reserve(s, len);
	if (err)
		return err;
	memcpy(s->arena + s->arena_len, p, len);
	s->arena_len += len;
	zdecomp__consume(s->zd, len);
	return 0;
}

/* The next record from the arena (decompressed), if any; false when it is empty. */
static bool mstream__arena_next(struct mstream *s, struct wrec *r)
{
	struct perf_event_header h;

	if (s->arena_pos == s->arena_len)
		return false;
	memcpy(&h, s->arena + s->arena_pos, sizeof(h));
	*r = (struct wrec){ .off = s->arena_pos, .size = h.size, .in_arena = true };
	s->arena_pos += h.size;
	return true;
}

static int mstream__refuse_aux(struct merge *m, struct mstream *s)
{
	merge__error(m, "%s/%s holds AUX area data (PERF_RECORD_AUXTRACE), which precord "
		     "cannot merge; read the directory with perf", m->dir, s->file.name);
	return -ENOTSUP;
}

/*
 * The next record of the stream in file order: 1 and *r, 0 at its end, or
 * -errno. COMPRESSED records are opened, FINISHED_ROUNDs dropped (the merge
 * writes its own).
 */
int mstream__read(struct merge *m, struct mstream *s, struct wrec *r)
{
	struct perf_event_header h;
	const u8 *rec;
	int err;

	for (;;) {
		if (mstream__arena_next(s, r))
			break;
		rec = mfile__next(m, &s->file);
		if (!rec) {
			if (s->zd && zdecomp__partial(s->zd))
				m->stats->bytes_cut += zdecomp__partial(s->zd);
			return 0;
		}
		memcpy(&h, rec, sizeof(h));	/* a COMPRESSED record before may end unaligned */
		m->stats->bytes_in += h.size;
		switch (h.type) {
		case PERF_RECORD_COMPRESSED:
			err = mstream__inflate(m, s, rec);
			if (err)
				return err;
			continue;
		case PERF_RECORD_FINISHED_ROUND:
			continue;
		case PERF_RECORD_AUXTRACE:
			return mstream__refuse_aux(m, s);
		default:
			*r = (struct wrec){
				.off = (u64)(rec - s->file.map),
				.size = h.size,
			};
			break;
		}
		break;
	}
	r->time = sample_attrs__time(&m->clock, wrec__data(s, r));
	return 1;
}

/* Insert from the tail: kernel order is nearly time order, so this rarely moves anything. */
static void mstream__insert(struct mstream *s, const struct wrec *r)
{
	unsigned int i = s->nr;

	while (i > 0 && mstream__at(s, i - 1)->time > r->time) {
		*mstream__at(s, i) = *mstream__at(s, i - 1);
		i--;
	}
	*mstream__at(s, i) = *r;
	s->nr++;
}

int mstream__fill(struct merge *m, struct mstream *s)
{
	struct wrec r;
	int ret;

	while (s->nr < MERGE_WINDOW) {
		ret = mstream__read(m, s, &r);
		if (ret <= 0)
			return ret;
		mstream__insert(s, &r);
	}
	return 0;
}

/* Where the stream's first record not yet written starts: all before it is out. */
u64 mstream__low(struct mstream *s)
{
	u64 low = s->file.pos;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct wrec *r = mstream__at(s, i);

		if (!r->in_arena && r->off < low)
			low = r->off;
	}
	return low;
}

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
