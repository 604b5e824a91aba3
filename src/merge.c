// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c — a perf directory (DIR/data + DIR/data.N, perf record --threads'
 * layout and precord's staging directory) into one ordinary perf.data.
 *
 * Output, written once, front to back, into a file next to the output that
 * has no name (O_TMPFILE) until it must outlive the process: named
 * FILE.XXXXXX and renamed into place at the end, or named by the consuming
 * merge's journal before it punches anything (a merge killed before then
 * leaves nothing behind). Where O_TMPFILE is refused, mkstemp() names it
 * from the start:
 *
 *   header | ids | attrs           as in DIR/data (raw attr bytes, its attr_size)
 *   data section:
 *     every record of DIR/data's data section, in its order (synthesized
 *     records, ID_INDEX, FINISHED_INIT, LOST_SAMPLES: none carries a time,
 *     so perf delivers them as it reads them)
 *     every kernel record of every data.N, in time order, with a
 *     FINISHED_ROUND every round_bytes of output
 *   features                        DIR/data's, without DIR_FORMAT, with
 *                                   SAMPLE_TIME from the merged samples and
 *                                   COMPRESSED as the output is
 *
 * The merge. Each data.N holds the records of one ring in the order the
 * kernel wrote them, which is time order except for small inversions (an
 * interrupt taking its timestamp and writing its record inside another
 * record's window; one record apart in perf's own directories here). Each
 * file is one stream with a reorder window: the next MERGE_WINDOW records,
 * kept sorted by insertion from the tail (almost always in place), the
 * earliest first. A binary heap over the streams' earliest records picks
 * the next record to write: a k-way merge that holds O(files x window)
 * records, never a file.
 *
 * FINISHED_ROUND: perf flushes at a marker every queued record up to the
 * newest time seen before the previous marker, and counts a record older
 * than what it flushed "out of order". A marker goes out before the record
 * that reaches or crosses each multiple of round_bytes of kernel records.
 * Inversions the windows absorb leave the output sorted; a record later
 * than that (its ring held it back by more than MERGE_WINDOW records) is
 * still in order for perf as long as it is late by less than round_bytes of
 * output, since everything newer than it was written after the previous
 * marker.
 *
 * Time of a record, as perf finds it (evlist__event2evsel,
 * evsel__parse_sample_timestamp): the evsel comes from the event id at the
 * first evsel's id position (PERF_SAMPLE_IDENTIFIER: first u64 of a sample,
 * last of a sample_id trailer; else PERF_SAMPLE_ID's place), the only evsel
 * when there is one, the first one for id 0 or no id at all; then TIME at
 * that evsel's position in the sample, or in the sample_id trailer of other
 * kernel records. User records and records without a time sort as time 0.
 *
 * I/O. Input files are mmapped read-only with MADV_SEQUENTIAL (large
 * read-ahead, no copy into a buffer of ours); consumed ranges are given back
 * with MADV_DONTNEED every MERGE_RELEASE_STEP bytes, so the resident set
 * stays bounded however large the files. Records a stream keeps in its
 * window point into the mapping; records decompressed from COMPRESSED ones
 * (perf -z: one zstd stream per file) are copied into the stream's arena,
 * which moves only what the window still needs. Output: runs of records
 * (adjacent records of one mapping join) are gathered as iovecs and written
 * with one pwritev() per MERGE_IOV runs, so the only copy is the kernel's,
 * from the input pages into the output's. With comp_level > 0 the kernel
 * records are compressed into one stream (ZCOMP_MMAP_LEN of whole records
 * per flush, HEADER_COMPRESSED.mmap_len accordingly); FINISHED_ROUNDs stay
 * plain, between COMPRESSED records, as perf writes them.
 *
 * In parallel: with several CPUs and enough records, the kernel records are
 * split by time into one part per CPU, merged at once into ranges of the
 * output computed beforehand ("the merge in parallel" below); the file
 * differs from the one-thread merge's only in where the FINISHED_ROUNDs fall.
 *
 * Consuming (precord's own staging directory, removed once merged): the
 * parallel parts punch each input's merged ranges out of the file as they
 * go, so the output's pages are the inputs' just freed, with a journal
 * (DIR/merge.journal) that lets a later merge__dir() on DIR finish a merge
 * killed half-way ("consume" below). Once the output is in place, what is
 * left of DIR goes (merge__remove_consumed()).
 *
 * What reached the disk is what is merged: a file that ends inside a record
 * (a recording killed with SIGKILL) or holds a record header with size < 8
 * (an mmap writer's unused, zeroed tail) ends that stream at the last whole
 * record; the first such cut is described in the message buffer and counted
 * in the stats. A data.N that begins with a page of zeroes and has data
 * after them, or data.N files all zeroes where none holds a record, are
 * inputs a consuming merge gave back: refused (merge__check_given_back()).
 * A `data` whose header was never finished (data size 0, no feature table)
 * is read to its end, and the merged file has no features, but for a
 * single file's: those precord wrote ahead of its data, or for perf's of
 * tracepoints, their TRACING_DATA from this machine's tracefs. AUX area
 * data (PERF_RECORD_AUXTRACE, whose payload lies outside header.size, and
 * HEADER_AUXTRACE's file offsets) is refused.
 *
 * Everything hangs off a struct merge that lives for one merge__dir() call;
 * each part of a parallel merge gets a copy with streams, heap and writer
 * of its own, and shares the rest read-only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/falloc.h>

#include "precord/merge.h"
#include "precord/output.h"
#include "precord/tracefs.h"
#include "precord/evlist.h"
#include "precord/evsel.h"
#include "precord/header.h"
#include "precord/compress.h"
#include "precord/writer.h"

#define MERGE_ROUND_BYTES	(4ULL << 20)	/* default FINISHED_ROUND spacing */
#define MERGE_WINDOW		64		/* records a stream holds to undo inversions */
#define MERGE_WRITE_BUF		(4 << 20)	/* the writer's staging buffer */
#define MERGE_IOV		1024		/* runs written by one pwritev() */
#define MERGE_COPY_BUF		(1 << 20)	/* pending records that may move */
#define MERGE_RELEASE_STEP	(8ULL << 20)	/* give consumed input back this often */
#define MERGE_ARENA_SIZE	(1 << 20)	/* first size of a stream's decompressed arena */
#define MERGE_DIR_VERSION	1		/* HEADER_DIR_FORMAT of data.N directories */
#define MERGE_COMP_DEFAULT	1		/* -z without a level */
#define MERGE_GIVE_STEP		(2ULL << 20)	/* give input space back in aligned steps */
#define MERGE_GIVE_WRITE	(1 << 20)	/* bytes a consuming part writes at once */
#define MERGE_JOURNAL		"merge.journal"
#define MERGE_GIVEN_MIN		4096		/* leading zeroes that were given back */
#define EXIT_USAGE		129

#define HDR_SIZE		sizeof(struct perf_event_header)

/* Where one attr's records keep their time. */
struct mattr {
	int	time_idx;	/* u64 index of TIME in a sample's body, -1: none */
	int	time_back;	/* TIME is body[n - time_back] in other kernel records, 0: none */
};

struct id_slot {
	u64	id;
	int	attr;		/* -1: empty slot */
};

/* The time of a record, from the attrs of DIR/data: mclock__time(). */
struct mclock {
	int			nr_attrs;
	struct mattr		*mattrs;
	struct id_slot		*ids;
	u64			ids_mask;
	int			id_pos;		/* u64 index of the id in a sample, -1: none */
	int			is_pos;		/* the id is body[n - is_pos] elsewhere, -1: none */
	bool			sample_id_all;
};

/* A record held in a stream's window. */
struct wrec {
	u64	time;
	u64	off;		/* in the file mapping, or in the arena */
	u32	size;
	bool	in_arena;
};

struct mfile {
	char		name[32];	/* "data.3", for messages */
	const u8	*map;		/* the whole file, read-only; NULL when empty */
	u64		map_len;
	u64		pos;		/* next record */
	u64		end;		/* end of the records */
	u64		released;	/* [0, released) given back with MADV_DONTNEED */
	int		fd;		/* read-write, to give space back (consume) */
	bool		writable;	/* fd is open and ours */
	u64		given;		/* punched out of the file up to here (a part: from its range's start) */
	const u64	*pending;	/* records to read before pos (a resumed window) */
	unsigned int	nr_pending;
};

struct mstream {
	int		idx;		/* order among the streams: breaks time ties */
	long		num;		/* N of data.N */
	struct mfile	file;
	struct zdecomp	*zd;		/* created at the first COMPRESSED record */
	u8		*arena;		/* decompressed records */
	size_t		arena_len, arena_cap, arena_pos;
	struct wrec	win[MERGE_WINDOW];	/* circular, sorted by time */
	unsigned int	head, nr;
};

struct mjournal;
struct mj_slot;

struct merge {
	const char		*dir;
	struct merge_stats	*stats;
	char			*err;
	size_t			errlen;
	int			error;		/* first -errno of a stream; ends the merge */
	char			note[256];	/* the first stream cut short */

	/* I: from DIR/data, read-only while merging */
	struct perf_file_header	hdr;
	struct header_attrs	attrs;
	struct mclock		clock;
	struct header_payload	*feats;
	int			nr_feats;
	bool			data_unfinished;	/* data size 0, no features: killed */
	bool			single;		/* dir is a perf.data file, not a directory */

	struct mstream		data;		/* DIR/data's data section */
	struct mstream		*streams;	/* the data.N files */
	int			nr_streams;
	int			*heap;		/* stream indexes, earliest head first */
	int			nr_heap;

	/* output */
	int			fd;
	struct writer		w;
	struct iovec		*iov;		/* pending output, MERGE_IOV runs */
	int			nr_iov;
	size_t			iov_bytes;
	u8			*copy;		/* MERGE_COPY_BUF: pending bytes that may move */
	size_t			copy_len;
	struct zcomp		*zc;
	u8			*chunk;		/* kernel records waiting to be compressed */
	size_t			chunk_len;
	u64			round_bytes;
	u64			round_pos;	/* kernel records written, in bytes */

	/* consume: a part's journal entries (NULL: nothing given back) */
	struct mjournal		*j;
	struct mj_slot		*slot;		/* the part's next entry */
	int			part;
	u64			seq;		/* entries this part wrote */
	u64			next_entry;	/* output bytes at which to write the next */
	char			*tmp;		/* the output's temporary name, PATH_MAX */
	bool			tmp_named;	/* tmp exists (else the output has no name yet) */
	bool			journal;	/* dir/merge.journal was made by this merge */
	bool			given;		/* and space was given back: keep it on error */
};

/* What follows "FILE." in the output's temporary name: six of these, as mkstemp() makes. */
static const char merge_tmp_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* path's directory into dir ("." when it names none, "/" for "/f"); returns its last name. */
static const char *path__split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return path;
	}
	snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return slash + 1;
}

/*
 * How much of the output's last name its partial file OUT.XXXXXX keeps:
 * all of it, or what NAME_MAX leaves room for beside ".XXXXXX".
 */
static int tmp_base_len(const char *base)
{
	size_t n = strlen(base), max = NAME_MAX - sizeof(".XXXXXX") + 1;

	return (int)(n < max ? n : max);
}

static u64 load_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void merge__error(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
}

/* ---- the attrs: which evsel a record belongs to, where its time is ---- */

static int sample_type__count(u64 type, u64 bits)
{
	return __builtin_popcountll(type & bits);
}

static void mattr__init(struct mattr *ma, const struct perf_event_attr *attr)
{
	u64 t = attr->sample_type;

	ma->time_idx = -1;
	ma->time_back = 0;
	if (!(t & PERF_SAMPLE_TIME))
		return;
	ma->time_idx = sample_type__count(t, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
					  PERF_SAMPLE_TID);
	/* trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
	if (attr->sample_id_all)
		ma->time_back = 1 + sample_type__count(t, PERF_SAMPLE_IDENTIFIER |
						       PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						       PERF_SAMPLE_CPU);
}

/* perf's __perf_evsel__calc_id_pos() and __perf_evsel__calc_is_pos(). */
static void mclock__id_positions(struct mclock *c, u64 t)
{
	c->id_pos = -1;
	c->is_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		c->id_pos = 0;
		c->is_pos = 1;
	} else if (t & PERF_SAMPLE_ID) {
		c->id_pos = sample_type__count(t, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
		c->is_pos = 1 + sample_type__count(t, PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID);
	}
}

static u64 id__hash(u64 id)
{
	return id * 0x9e3779b97f4a7c15ULL;
}

static int mclock__build_ids(struct mclock *c, const struct header_attrs *attrs)
{
	u64 nr = 0, size = 16, i, j;
	int a;

	for (a = 0; a < attrs->nr; a++)
		nr += attrs->entries[a].nr_ids;
	while (size < 2 * nr)
		size *= 2;
	c->ids = malloc(sizeof(*c->ids) * size);
	if (!c->ids)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		c->ids[i].attr = -1;
	c->ids_mask = size - 1;
	for (a = 0; a < attrs->nr; a++) {
		const struct header_attr *ha = &attrs->entries[a];

		for (j = 0; j < ha->nr_ids; j++) {
			i = id__hash(ha->ids[j]) & c->ids_mask;
			while (c->ids[i].attr >= 0 && c->ids[i].id != ha->ids[j])
				i = (i + 1) & c->ids_mask;
			c->ids[i] = (struct id_slot){ ha->ids[j], a };
		}
	}
	return 0;
}

/* Where each attr's records keep their id and time; 0, -EINVAL (no attr) or -ENOMEM. */
static int mclock__init(struct mclock *c, const struct header_attrs *attrs)
{
	int i;

	*c = (struct mclock){ 0 };
	if (!attrs->nr)
		return -EINVAL;
	c->mattrs = calloc((size_t)attrs->nr, sizeof(*c->mattrs));
	if (!c->mattrs)
		return -ENOMEM;
	c->nr_attrs = attrs->nr;
	for (i = 0; i < attrs->nr; i++)
		mattr__init(&c->mattrs[i], &attrs->entries[i].attr);
	mclock__id_positions(c, attrs->entries[0].attr.sample_type);
	c->sample_id_all = attrs->entries[0].attr.sample_id_all;
	return mclock__build_ids(c, attrs);
}

static void mclock__exit(struct mclock *c)
{
	free(c->mattrs);
	free(c->ids);
	*c = (struct mclock){ 0 };
}

static int mclock__id2attr(const struct mclock *c, u64 id)
{
	u64 i = id__hash(id) & c->ids_mask;

	while (c->ids[i].attr >= 0) {
		if (c->ids[i].id == id)
			return c->ids[i].attr;
		i = (i + 1) & c->ids_mask;
	}
	return -1;
}

/* The attr index of a record (evlist__event2evsel()), -1 when unknown. */
static int mclock__attr_of(const struct mclock *c, const struct perf_event_header *h,
			   const u8 *body, u64 n)
{
	u64 id;

	if (c->nr_attrs == 1)
		return 0;
	if (h->type != PERF_RECORD_SAMPLE && !c->sample_id_all)
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (c->id_pos < 0)
			return 0;
		if ((u64)c->id_pos >= n)
			return -1;
		id = load_u64(body + 8 * (u64)c->id_pos);
	} else {
		if (c->is_pos < 0)
			return 0;
		if ((u64)c->is_pos > n)
			return -1;
		id = load_u64(body + 8 * (n - (u64)c->is_pos));
	}
	return id ? mclock__id2attr(c, id) : 0;
}

/*
 * A record's time, 0 when it has none (perf delivers those unsorted). rec
 * may be unaligned (perf does not pad COMPRESSED records to 8 bytes, so
 * the records after one are not): its header is read by copy.
 */
static u64 mclock__time(const struct mclock *c, const u8 *rec)
{
	const u8 *body = rec + HDR_SIZE;
	struct perf_event_header h;
	const struct mattr *ma;
	u64 n;
	int a;

	memcpy(&h, rec, sizeof(h));
	n = (h.size - HDR_SIZE) / 8;
	if (h.type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	a = mclock__attr_of(c, &h, body, n);
	if (a < 0)
		return 0;
	ma = &c->mattrs[a];
	if (h.type == PERF_RECORD_SAMPLE)
		return ma->time_idx >= 0 && (u64)ma->time_idx < n ?
		       load_u64(body + 8 * (u64)ma->time_idx) : 0;
	return ma->time_back && (u64)ma->time_back <= n ?
	       load_u64(body + 8 * (n - (u64)ma->time_back)) : 0;
}

/* ---- input files ---- */

/*
 * f maps fd (path in messages), read-only; the fd stays in f->fd when
 * f->writable, else it is closed, on error too.
 */
static int mfile__map(struct mfile *f, int fd, const char *path, char *why, size_t len)
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
static int mfile__open_path(struct mfile *f, const char *path, const char *label,
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

static int mfile__open(struct mfile *f, const char *dir, const char *name, bool writable,
		       char *why, size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return mfile__open_path(f, path, name, writable, why, len);
}

static void mfile__close(struct mfile *f)
{
	if (f->map)
		munmap((void *)f->map, f->map_len);
	f->map = NULL;
	if (f->writable)
		close(f->fd);
	f->writable = false;
}

/* Whether the rest of the file from pos is zero bytes: room an mmap writer reserved. */
static bool mfile__zero_tail(const struct mfile *f, u64 pos)
{
	const u8 *p = f->map + pos;
	u64 n = f->end - pos;

	return n && !p[0] && (n == 1 || !memcmp(p, p + 1, n - 1));
}

/* The stream of f ends at f->pos, before what cannot be read; note the first such cut. */
static void merge__cut(struct merge *m, struct mfile *f, const char *what)
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

/* ---- streams: a file, its decompressor, its reorder window ---- */

static const u8 *wrec__data(const struct mstream *s, const struct wrec *r)
{
	return r->in_arena ? s->arena + r->off : s->file.map + r->off;
}

static struct wrec *mstream__at(struct mstream *s, unsigned int i)
{
	return &s->win[(s->head + i) % MERGE_WINDOW];
}

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
			     (unsigned long long)(rec - s->file.map), zdecomp__strerror(err));
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
static int mstream__read(struct merge *m, struct mstream *s, struct wrec *r)
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
	r->time = mclock__time(&m->clock, wrec__data(s, r));
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

static int mstream__fill(struct merge *m, struct mstream *s)
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

static struct wrec mstream__pop(struct mstream *s)
{
	struct wrec r = s->win[s->head];

	s->head = (s->head + 1) % MERGE_WINDOW;
	s->nr--;
	return r;
}

static void mstream__exit(struct mstream *s)
{
	mfile__close(&s->file);
	zdecomp__delete(s->zd);
	free(s->arena);
	*s = (struct mstream){ 0 };
}

/* ---- output ---- */

/*
 * Pending output: runs of records, in order, each a pointer into a file
 * mapping (nothing copied; adjacent records join one run) or into m->copy
 * (what may move: an arena, the stack). Written with one pwritev() per
 * MERGE_IOV runs or a full m->copy, so the kernel copies from the input
 * pages into the output's, and nothing is copied in user space.
 */
static int merge__flush_run(struct merge *m)
{
	int err = 0;

	if (m->nr_iov)
		err = writer__writev(&m->w, m->iov, m->nr_iov);
	m->nr_iov = 0;
	m->iov_bytes = 0;
	m->copy_len = 0;
	return err;
}

/*
 * A consuming part writes 1 MiB at a time: the page cache then asks for
 * folios of at most that order, which the 2 MiB steps just given back
 * provide; a larger write asks for 2 MiB folios, which come from the free
 * lists' other end, memory a balloon may have handed back to the host
 * (measured: 0.90 s against 0.35 s for 1.4 GB).
 */
static bool merge__run_full(const struct merge *m)
{
	return m->j && m->iov_bytes >= MERGE_GIVE_WRITE;
}

/* Bytes that stay put until written (a mapping: merge__release() flushes first; m->copy). */
static int merge__put_mapped(struct merge *m, const u8 *p, size_t len)
{
	struct iovec *last = m->nr_iov ? &m->iov[m->nr_iov - 1] : NULL;
	int err;

	if (merge__run_full(m)) {
		err = merge__flush_run(m);
		if (err)
			return err;
		last = NULL;
	}
	m->iov_bytes += len;
	if (last && (const u8 *)last->iov_base + last->iov_len == p) {
		last->iov_len += len;
		return 0;
	}
	if (m->nr_iov == MERGE_IOV) {
		err = merge__flush_run(m);
		if (err)
			return err;
	}
	m->iov[m->nr_iov++] = (struct iovec){ (void *)p, len };
	return 0;
}

/* Bytes that may move (an arena, the stack): copied into m->copy. */
static int merge__put_copy(struct merge *m, const void *p, size_t len)
{
	int err;

	/* flushed first: a flush in merge__put_mapped() would leave copy_len wrong */
	if (len > MERGE_COPY_BUF - m->copy_len || merge__run_full(m)) {
		err = merge__flush_run(m);
		if (err)
			return err;
		if (len > MERGE_COPY_BUF)
			return writer__write(&m->w, p, len);
	}
	memcpy(m->copy + m->copy_len, p, len);
	err = merge__put_mapped(m, m->copy + m->copy_len, len);
	m->copy_len += len;
	return err;
}

static int merge__emit_compressed(void *ctx, const void *record, size_t size)
{
	struct merge *m = ctx;

	return writer__write(&m->w, record, size);
}

static int merge__flush_chunk(struct merge *m)
{
	int err;

	if (!m->chunk_len)
		return 0;
	err = merge__flush_run(m);
	if (!err)
		err = zcomp__compress(m->zc, m->chunk, m->chunk_len, merge__emit_compressed, m);
	m->chunk_len = 0;
	return err;
}

static int merge__put_compressed(struct merge *m, const u8 *p, size_t len)
{
	int err;

	if (m->chunk_len + len > ZCOMP_MMAP_LEN) {
		err = merge__flush_chunk(m);
		if (err)
			return err;
	}
	memcpy(m->chunk + m->chunk_len, p, len);
	m->chunk_len += len;
	return 0;
}

static int merge__put(struct merge *m, const struct mstream *s, const struct wrec *r,
		      bool compress)
{
	const u8 *p = wrec__data(s, r);

	if (compress)
		return merge__put_compressed(m, p, r->size);
	if (r->in_arena)
		return merge__put_copy(m, p, r->size);
	return merge__put_mapped(m, p, r->size);
}

/* rec may be unaligned (after a COMPRESSED record): its header is read by copy. */
static void merge__count(struct merge *m, const u8 *rec, u64 time)
{
	struct merge_stats *st = m->stats;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		st->samples++;
		if (time && (!st->first_time || time < st->first_time))
			st->first_time = time;
		if (time > st->last_time)
			st->last_time = time;
		break;
	case PERF_RECORD_LOST:
		st->lost_records++;
		if (h.size >= HDR_SIZE + 16)
			st->lost += load_u64(rec + HDR_SIZE + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h.size >= HDR_SIZE + 8)
			st->lost_samples += load_u64(rec + HDR_SIZE);
		break;
	}
}

static int merge__write_round(struct merge *m)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND,
		.size = HDR_SIZE,
	};
	int err = m->zc ? merge__flush_chunk(m) : 0;

	if (!err)
		err = merge__put_copy(m, &round, sizeof(round));
	m->stats->rounds++;
	return err;
}

/*
 * A FINISHED_ROUND goes before the record that reaches or crosses the next
 * multiple of round_bytes of kernel records. The rule depends only on the
 * records' sizes, so a run of records whose size is known gets a known
 * number of markers: floor(size / round_bytes) when no record is as long as
 * round_bytes (the parallel merge places its parts by it).
 */
static int merge__put_kernel(struct merge *m, const struct mstream *s, const struct wrec *r)
{
	int err = 0;

	if (m->round_pos && m->round_pos / m->round_bytes !=
	    (m->round_pos + r->size) / m->round_bytes)
		err = merge__write_round(m);
	if (!err)
		err = merge__put(m, s, r, m->zc != NULL);
	if (err)
		return err;
	m->round_pos += r->size;
	m->stats->records++;
	merge__count(m, wrec__data(s, r), r->time);
	return 0;
}

/* ---- the merge ---- */

static bool heap__less(const struct merge *m, int a, int b)
{
	const struct mstream *sa = &m->streams[a], *sb = &m->streams[b];
	u64 ta = sa->win[sa->head].time, tb = sb->win[sb->head].time;

	return ta < tb || (ta == tb && sa->idx < sb->idx);
}

static void heap__swap(struct merge *m, int i, int j)
{
	int t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
}

static void heap__down(struct merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->nr_heap && heap__less(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nr_heap && heap__less(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		heap__swap(m, i, min);
		i = min;
	}
}

static void heap__build(struct merge *m)
{
	int i;

	for (i = m->nr_heap / 2 - 1; i >= 0; i--)
		heap__down(m, i);
}

/* Where the stream's first record not yet written starts: all before it is out. */
static u64 mstream__low(struct mstream *s)
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

/* Give back the input a stream is done with (its window keeps what it needs). */
static int merge__release(struct merge *m, struct mstream *s)
{
	struct mfile *f = &s->file;
	u64 low, page = (u64)sysconf(_SC_PAGESIZE);
	int err;

	if (f->pos - f->released < MERGE_RELEASE_STEP || m->j)
		return 0;	/* a consuming part unmaps as it punches */
	low = mstream__low(s) & ~(page - 1);
	if (low <= f->released)
		return 0;
	err = merge__flush_run(m);	/* the run may point below low */
	if (err)
		return err;
	madvise((void *)(f->map + f->released), low - f->released, MADV_DONTNEED);
	f->released = low;
	return 0;
}

static int merge__give_back(struct merge *m);
static int merge__name_output(struct merge *m);

/* One record out of the earliest stream; refill it and restore the heap. */
static int merge__step(struct merge *m)
{
	struct mstream *s = &m->streams[m->heap[0]];
	struct wrec r = mstream__pop(s);
	int err = merge__put_kernel(m, s, &r);

	if (!err)
		err = mstream__fill(m, s);
	if (!err)
		err = merge__release(m, s);
	if (!err && m->j && m->w.bytes + m->iov_bytes >= m->next_entry)
		err = merge__give_back(m);
	if (err)
		return err;
	if (!s->nr)
		m->heap[0] = m->heap[--m->nr_heap];
	heap__down(m, 0);
	return 0;
}

static int merge__kernel_records(struct merge *m)
{
	int i, err;

	for (i = 0; i < m->nr_streams; i++) {
		err = mstream__fill(m, &m->streams[i]);
		if (err)
			return err;
		if (m->streams[i].nr)
			m->heap[m->nr_heap++] = i;
	}
	heap__build(m);
	while (m->nr_heap) {
		err = merge__step(m);
		if (err)
			return err;
	}
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the merge in parallel: parts split at a time ---- */

/*
 * The kernel records split by time into parts, one per CPU: part p takes
 * every record with a time in [T_p, T_p+1), from each data.N the run of
 * records between two cuts, and merges them as the sequential merge does,
 * with its own streams, heap and writer, into its own range of the output.
 * A part's range is known before it starts: its bytes are the records
 * between its cuts, and its FINISHED_ROUNDs floor(bytes / round_bytes)
 * (merge__put_kernel()). The file is the one the sequential merge writes
 * but for where the markers fall.
 *
 * A cut in a file must be clean: every record before it earlier than T,
 * every record from it on at T or later, so the parts' outputs follow each
 * other in time. A walk over each file's record headers (in parallel, one
 * file per thread) notes every MERGE_CHUNK of input the least and the
 * greatest time of the records that start in it; a cut is then looked for
 * in the one chunk that holds T, and a T with no clean cut in some file
 * (an inversion across it) is dropped. The walk's faults map the pages the
 * parts then read. When the recording ran in this process, its streaming
 * threads noted the same chunks as they wrote each file (merge_index, the
 * records hot in their cache) and a file the index covers to its last byte
 * is not walked. Measured on 1 GB in two files: the merge takes 12% less
 * (0.206 s against 0.236 s; the walk was a fifth of it, but its page
 * faults move to the parts).
 *
 * The parts write with pwritev(2), each into its own range, after one
 * posix_fallocate() of all of them (a full disk is -ENOSPC before any part
 * starts). Writes to one file take its inode lock in turn, but each part
 * gathers its next runs while the other copies, and the page cache's write
 * path (large folios, no page zeroed first) beats shared mappings of the
 * output: on ext4, 1 GB merged in 0.190-0.215 s this way against
 * 0.230-0.247 s through 64 MiB WRITER_MMAP windows (same directory,
 * alternating), the same bytes.
 *
 * Only plain files split: a COMPRESSED or AUXTRACE record, a record without
 * a time, compressed output, or FINISHED_ROUNDs closer than the longest
 * record, and the merge runs on one thread. Threads are plain pthreads with
 * every signal blocked (the caller's thread handles them): a merge lasts a
 * fraction of a second, less than a pool takes to discover the topology.
 */
/* The walk notes one time range per MERGE_CHUNK of input, or per 1/8 of the least part. */
#define MERGE_CHUNK		(1ULL << 20)
#define MERGE_CHUNK_PARTS	8
#define MERGE_PART_MIN		(8ULL << 20)	/* least kernel bytes worth a part */
#define MERGE_MAX_PARTS		64
#define MERGE_MAX_RECORD	65536ULL	/* header.size is a u16 */

struct mchunk {
	u64	off;		/* the first record starting in it */
	u64	kbytes;		/* kernel bytes (FINISHED_ROUNDs left out) before off */
	u64	tmin, tmax;	/* of the records starting in it */
};

struct mwalk {
	const struct mclock	*clock;
	const struct mfile	*f;
	u64			chunk;		/* input bytes a chunk covers */
	struct mchunk		*chunks;
	int			nr_chunks, cap;
	u64			end;		/* end of the whole records */
	u64			kbytes;		/* kernel bytes in [0, end) */
	const char		*cut;		/* why the file ends at end, NULL: it does */
	bool			plain;		/* only timed kernel records and rounds */
	bool			done;		/* taken from the index: nothing to walk */
	int			error;
};

/* What the streaming threads note as they write: one walk per data.N. */
struct merge_index {
	struct header_attrs	attrs;
	struct mclock		clock;
	int			nr_files;
	struct mwalk		*files;
};

/* The header of the record at pos, or why none can be read there. */
static const char *mfile__header_at(const struct mfile *f, u64 pos, struct perf_event_header *h)
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

/*
 * The record at w->end, of header h, joins the walk: w->end moves past it.
 * false when the walk cannot go on (not a plain file, or no memory).
 */
static bool mwalk__note(struct mwalk *w, const u8 *rec, const struct perf_event_header *h)
{
	u64 pos = w->end, t;

	if (h->type == PERF_RECORD_FINISHED_ROUND) {
		w->end += h->size;
		return true;
	}
	t = mclock__time(w->clock, rec);
	if (h->type >= PERF_RECORD_USER_TYPE_START || !t || t == ~0ULL) {
		w->plain = false;	/* COMPRESSED, AUXTRACE, no time */
		return false;
	}
	if (!w->nr_chunks || pos >= w->chunks[w->nr_chunks - 1].off + w->chunk) {
		if (w->nr_chunks == w->cap) {
			int cap = w->cap ? 2 * w->cap : 64;
			struct mchunk *c = realloc(w->chunks, sizeof(*c) * (size_t)cap);

			if (!c) {
				w->error = -ENOMEM;
				return false;
			}
			w->chunks = c;
			w->cap = cap;
		}
		w->chunks[w->nr_chunks++] = (struct mchunk){ pos, w->kbytes, t, t };
	} else {
		struct mchunk *c = &w->chunks[w->nr_chunks - 1];

		if (t < c->tmin)
			c->tmin = t;
		if (t > c->tmax)
			c->tmax = t;
	}
	w->kbytes += h->size;
	w->end += h->size;
	return true;
}

static void mwalk__run(struct mwalk *w)
{
	const struct mfile *f = w->f;
	struct perf_event_header h;

	w->plain = true;
	while (w->end < f->map_len) {
		w->cut = mfile__header_at(f, w->end, &h);
		if (w->cut || !mwalk__note(w, f->map + w->end, &h))
			break;
	}
}

struct merge_index *merge_index__new(const char *dir, int nr_files, u64 chunk)
{
	struct merge_index *idx = calloc(1, sizeof(*idx));
	struct perf_file_header hdr;
	char path[PATH_MAX];
	int fd, i, err;

	if (!idx)
		return NULL;
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : header__read(fd, &hdr);
	if (!err)
		err = header__read_attrs(fd, &hdr, &idx->attrs);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = mclock__init(&idx->clock, &idx->attrs);
	idx->files = err || nr_files < 1 ? NULL : calloc((size_t)nr_files, sizeof(*idx->files));
	if (!idx->files) {
		merge_index__delete(idx);
		return NULL;
	}
	idx->nr_files = nr_files;
	for (i = 0; i < nr_files; i++)
		idx->files[i] = (struct mwalk){
			.clock = &idx->clock, .chunk = chunk ? chunk : MERGE_CHUNK, .plain = true,
		};
	return idx;
}

void merge_index__delete(struct merge_index *idx)
{
	int i;

	if (!idx)
		return;
	for (i = 0; i < idx->nr_files; i++)
		free(idx->files[i].chunks);
	free(idx->files);
	mclock__exit(&idx->clock);
	header_attrs__exit(&idx->attrs);
	free(idx);
}

void merge_index__add(struct merge_index *idx, int file, const void *run, size_t len)
{
	const u8 *p = run, *end = p + len;
	struct mwalk *w;

	if (!idx || file < 0 || file >= idx->nr_files)
		return;
	w = &idx->files[file];
	/* From a record it cannot place on, the index only counts bytes. */
	while (p < end && w->plain && !w->error) {
		struct perf_event_header h;

		memcpy(&h, p, sizeof(h));	/* a COMPRESSED record before may end unaligned */
		if (!mwalk__note(w, p, &h))
			break;
		p += h.size;
	}
	w->end += (u64)(end - p);
}

/*
 * File s's walk from the index, when the index covers every byte of it
 * with chunks no larger than the walk's; true when taken.
 */
static bool mwalk__from_index(struct mwalk *w, const struct merge_index *idx, long num)
{
	const struct mwalk *iw;
	struct mchunk *c;

	if (!idx || num < 0 || num >= idx->nr_files)
		return false;
	iw = &idx->files[num];
	if (iw->error || iw->end != w->f->map_len || iw->chunk > w->chunk)
		return false;
	c = iw->nr_chunks ? malloc(sizeof(*c) * (size_t)iw->nr_chunks) : NULL;
	if (iw->nr_chunks && !c)
		return false;
	if (c)
		memcpy(c, iw->chunks, sizeof(*c) * (size_t)iw->nr_chunks);
	w->chunks = c;
	w->nr_chunks = w->cap = iw->nr_chunks;
	w->chunk = iw->chunk;
	w->end = iw->end;
	w->kbytes = iw->kbytes;
	w->plain = iw->plain;
	w->done = true;
	return true;
}

/*
 * The clean cut of a walked file at time t: *pos, the first record at t or
 * later, and *kbytes, the kernel bytes before it; -1 when some record after
 * the cut is earlier than t.
 */
static int mwalk__cut(const struct mwalk *w, u64 t, u64 *pos, u64 *kbytes)
{
	const struct mfile *f = w->f;
	struct perf_event_header h;
	u64 p, stop, kb, rt;
	bool found = false;
	int k, j;

	for (k = 0; k < w->nr_chunks && w->chunks[k].tmax < t; k++)
		;
	if (k == w->nr_chunks) {
		*pos = w->end;
		*kbytes = w->kbytes;
		return 0;
	}
	for (j = k + 1; j < w->nr_chunks; j++)
		if (w->chunks[j].tmin < t)
			return -1;
	p = w->chunks[k].off;
	kb = w->chunks[k].kbytes;
	stop = k + 1 < w->nr_chunks ? w->chunks[k + 1].off : w->end;
	while (p < stop) {
		memcpy(&h, f->map + p, sizeof(h));
		if (h.type != PERF_RECORD_FINISHED_ROUND) {
			rt = mclock__time(w->clock, f->map + p);
			if (!found && rt >= t) {
				found = true;
				*pos = p;
				*kbytes = kb;
			} else if (found && rt < t) {
				return -1;
			}
			kb += h.size;
		}
		p += h.size;
	}
	return found ? 0 : -1;
}

struct mpart {
	struct merge		m;	/* shared read-only; own streams, heap, writer */
	struct merge_stats	stats;
	char			err[256];
	u64			offset;	/* in the output */
	u64			size;	/* its records and FINISHED_ROUNDs */
	int			ret;
};

/*
 * fn(arg + i * size) for i in [0, n): 0 on the caller, the others on
 * threads with every signal blocked; what cannot get a thread runs on the
 * caller after 0.
 */
static void merge__threads(int n, void *(*fn)(void *), void *arg, size_t size)
{
	pthread_t *th = n > 1 ? calloc((size_t)n, sizeof(*th)) : NULL;
	sigset_t all, old;
	int i, started = 1;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 1; th && i < n; i++) {
		if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size))
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fn(arg);
	for (i = started; i < n; i++)
		fn((char *)arg + (size_t)i * size);
	for (i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

struct mwalk_job {
	struct mwalk	*walks;
	int		nr, first, step;
};

static void *mwalk__thread(void *arg)
{
	struct mwalk_job *job = arg;
	int i;

	for (i = job->first; i < job->nr; i += job->step)
		if (!job->walks[i].done)
			mwalk__run(&job->walks[i]);
	return NULL;
}

static int mchunk__cmp_tmax(const void *a, const void *b)
{
	const struct mchunk *x = a, *y = b;

	return x->tmax < y->tmax ? -1 : x->tmax > y->tmax;
}

/*
 * The times to cut at: where the kernel bytes, counted chunk by chunk in
 * the order of the chunks' latest times, reach p/nr of the whole; each with
 * a clean cut in every file (cuts[t * nr_streams + s]). The number found.
 */
static int merge__plan(struct merge *m, const struct mwalk *walks, int nr,
		       u64 *cuts, u64 *kcuts)
{
	struct mchunk *all;
	u64 total = 0, acc = 0, last_t = 0;
	int s, i, n = 0, found = 0, p = 1;

	for (s = 0; s < m->nr_streams; s++)
		n += walks[s].nr_chunks;
	all = malloc(sizeof(*all) * (size_t)(n ? n : 1));
	if (!all)
		return -ENOMEM;
	n = 0;
	for (s = 0; s < m->nr_streams; s++) {
		const struct mwalk *w = &walks[s];

		for (i = 0; i < w->nr_chunks; i++) {
			u64 next = i + 1 < w->nr_chunks ? w->chunks[i + 1].kbytes : w->kbytes;

			all[n] = w->chunks[i];
			all[n].kbytes = next - w->chunks[i].kbytes;	/* its bytes */
			total += all[n++].kbytes;
		}
	}
	qsort(all, (size_t)n, sizeof(*all), mchunk__cmp_tmax);
	for (i = 0; i < n && p < nr; i++) {
		u64 t = all[i].tmax + 1;	/* chunk i in the part before the cut */

		acc += all[i].kbytes;
		if (acc * (u64)nr < total * (u64)p)
			continue;
		p++;
		if (t <= last_t)
			continue;
		for (s = 0; s < m->nr_streams; s++)
			if (mwalk__cut(&walks[s], t, &cuts[found * m->nr_streams + s],
				       &kcuts[found * m->nr_streams + s]))
				break;
		if (s < m->nr_streams)
			continue;	/* an inversion across t: one part fewer */
		last_t = t;
		found++;
	}
	free(all);
	return found;
}

static void *mpart__thread(void *arg)
{
	struct mpart *p = arg;
	struct merge *m = &p->m;

	/* a part that fails leaves the others' output in place (the journal counts on it) */
	p->ret = writer__open_region(&m->w, m->fd, p->offset, p->size, MERGE_WRITE_BUF);
	if (!p->ret)
		p->ret = merge__kernel_records(m);
	if (!p->ret)
		p->ret = merge__flush_run(m);
	if (!p->ret)
		p->ret = writer__flush(&m->w);
	/* the part's last entry: all of it written, what is left of its inputs punched */
	if (!p->ret && m->j)
		p->ret = merge__give_back(m);
	if (!p->ret && m->w.bytes != p->size) {
		merge__error(m, "a part of the parallel merge wrote %llu bytes instead of %llu",
			     (unsigned long long)m->w.bytes, (unsigned long long)p->size);
		p->ret = -EIO;
	}
	writer__close(&m->w);
	return NULL;
}

/* Part i of nr: the records between cut i-1 and cut i of every file. */
static int mpart__init(struct mpart *p, const struct merge *m, const struct mwalk *walks,
		       const u64 *cuts, const u64 *kcuts, int i, int nr)
{
	u64 page = (u64)sysconf(_SC_PAGESIZE), kb = 0;
	int s, ns = m->nr_streams;

	p->m = *m;
	p->m.stats = &p->stats;
	p->m.err = p->err;
	p->m.errlen = sizeof(p->err);
	p->m.data = (struct mstream){ 0 };
	p->m.w = (struct writer){ 0 };
	p->m.iov = malloc(sizeof(*p->m.iov) * MERGE_IOV);
	p->m.copy = malloc(MERGE_COPY_BUF);
	p->m.nr_iov = 0;
	p->m.copy_len = 0;
	p->m.round_pos = 0;
	p->m.nr_heap = 0;
	p->m.streams = calloc((size_t)ns, sizeof(*p->m.streams));
	p->m.heap = calloc((size_t)ns, sizeof(*p->m.heap));
	if (!p->m.streams || !p->m.heap || !p->m.iov || !p->m.copy)
		return -ENOMEM;
	for (s = 0; s < ns; s++) {
		struct mstream *ps = &p->m.streams[s];
		u64 lo = i ? cuts[(i - 1) * ns + s] : 0;
		u64 hi = i < nr - 1 ? cuts[i * ns + s] : walks[s].end;
		u64 klo = i ? kcuts[(i - 1) * ns + s] : 0;
		u64 khi = i < nr - 1 ? kcuts[i * ns + s] : walks[s].kbytes;

		ps->idx = m->streams[s].idx;
		ps->file = m->streams[s].file;	/* the same mapping, not owned */
		ps->file.pos = lo;
		ps->file.end = hi;
		ps->file.released = lo & ~(page - 1);
		kb += khi - klo;
	}
	p->size = kb + 8 * (kb / m->round_bytes);
	return 0;
}

/* A part's counts into the merge's. */
static void merge_stats__add(struct merge_stats *a, const struct merge_stats *b)
{
	a->records += b->records;
	a->bytes_in += b->bytes_in;
	a->rounds += b->rounds;
	a->samples += b->samples;
	a->lost_records += b->lost_records;
	a->lost_samples += b->lost_samples;
	a->lost += b->lost;
	if (b->first_time && (!a->first_time || b->first_time < a->first_time))
		a->first_time = b->first_time;
	if (b->last_time > a->last_time)
		a->last_time = b->last_time;
}

static void mpart__exit(struct mpart *p)
{
	free(p->m.slot);
	free(p->m.iov);
	free(p->m.copy);
	free(p->m.streams);
	free(p->m.heap);
}

/* ---- consume: giving the inputs' space back as they are merged ---- */

/*
 * Why. The merge writes its output into new page cache while its inputs
 * hold theirs: a recording's worth of memory nobody touched lately. Where
 * a virtio balloon reports free pages to the host (free page reporting),
 * that memory was handed back, and each first write into it faults on the
 * host: measured on 1.4 GB, 2.1-2.8 s against 0.27 s. A
 * part that punches its inputs' merged ranges out of the files
 * (FALLOC_FL_PUNCH_HOLE, dirty pages and all) frees pages the output's
 * next writes get back at once: the same merge took 0.32-0.37 s. The
 * "punch" is FALLOC_FL_ZERO_RANGE, which drops the
 * pages alike but keeps the blocks, so no discard is waited for
 * (merge__drop_range()); a punch where zeroing is refused. Steps
 * are 2 MiB, aligned, so that no large folio of an input is split (a
 * split unmaps the folio from every thread: TLB shootdowns, most of the
 * time with 4 KiB steps), and each part writes 1 MiB at a
 * time (merge__put_mapped()).
 *
 * Safety. A merge killed half-way must leave what `precord merge DIR`
 * needs: every record is either in the partial output or still in its
 * input, and DIR says which. Before any space goes, the parallel merge
 * writes DIR/merge.journal: the partial output's absolute path, the N of
 * each data.N, each part's range of the output and of every input. Each
 * part then, every `every` bytes of output: writes what it wrote out
 * (pwritev returned: the bytes are in the page cache, which outlives the
 * process), then a journal entry (the bytes of its range written; per
 * input, the next record to read and the records of the window not yet
 * written, which may lie before it), then punches each input up to its
 * first record not yet written. Entries alternate between two slots per
 * part with a sequence number and a checksum, so a torn entry leaves the
 * one before it, which no punch went beyond. merge__resume() merges the
 * parts' written ranges of the partial output with the rest of every input
 * the entries describe. Power loss is not covered: neither the inputs nor
 * the output were ever synced.
 *
 * The end. What is left of the inputs is then no recording: merged again,
 * it would replace the output with one missing what was given back. The
 * journal's magic says how far the end got: MJ_FINISHED before the whole
 * partial output of a consuming merge is renamed to the output (after
 * that, resuming without it would lose its records), MJ_DONE once the
 * output is in place (a resumed merge: after its rename, so that a merge
 * killed before it resumes again, from the partial output still there).
 * The partial output, the inputs and last the journal are then removed;
 * a merge of a DIR whose journal is marked refuses, saying where the
 * output is, and one whose journal is gone refuses inputs that begin
 * with what was given back (merge__check_given_back()).
 */
struct mj_head {
	char	magic[8];
	u32	nr_parts;
	u32	nr_streams;
	u64	slot_size;
	char	tmp[PATH_MAX];	/* the partial output */
};

/* After the head: u64 num[nr_streams], then per part u64 offset, lo[nr_streams], hi[nr_streams]. */
#define MJ_MAGIC	"PRECMJ1"
#define MJ_FINISHED	"PRECMJF"	/* the merged file is whole, as tmp, to be renamed */
#define MJ_DONE		"PRECMJD"	/* the output is in place: DIR is being removed */
#define MJ_TABLE	(sizeof(struct mj_head))

struct mj_stream {
	u64	pos;			/* the next record to read */
	u64	nr;			/* records read and not yet written */
	u64	win[MERGE_WINDOW];	/* their offsets, in the order to write them */
};

struct mj_slot {
	u64			seq;	/* 0: never written */
	u64			sum;	/* FNV-1a of seq and all after sum */
	u64			done;	/* bytes of the part's output range written */
	struct mj_stream	s[];
};

struct mjournal {
	int	fd;
	int	nr_parts, nr_streams;
	u64	slots_off;
	u64	slot_size;
	u64	step;		/* punch in aligned steps of this many bytes */
	u64	every;		/* output bytes between two entries of a part */
	struct merge_faults fault;	/* tests: stop at an entry */
	int	entries;	/* written, all parts */
	u64	given;		/* bytes punched, all parts */
};

static u64 mj__slot_size(int nr_streams)
{
	return sizeof(struct mj_slot) + (u64)nr_streams * sizeof(struct mj_stream);
}

static u64 mj__table_size(int nr_parts, int nr_streams)
{
	return 8 * ((u64)nr_streams + (u64)nr_parts * (1 + 2 * (u64)nr_streams));
}

static u64 mj__sum(const struct mj_slot *sl, u64 size)
{
	const u8 *p = (const u8 *)&sl->done, *end = (const u8 *)sl + size;
	u64 h = 0xcbf29ce484222325ULL ^ sl->seq;

	for (; p < end; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h;
}

static int mj__pwrite(int fd, const void *p, u64 len, u64 off)
{
	ssize_t n = pwrite(fd, p, len, (off_t)off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

static int mj__pread(int fd, void *p, u64 len, u64 off)
{
	ssize_t n = pread(fd, p, len, (off_t)off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EINVAL;
}

/*
 * DIR/merge.journal for the parts (their offsets, and each stream's range
 * in its file.pos/end), all slots empty. 0, or -errno and nothing given back.
 */
static int mjournal__create(struct mjournal *j, struct merge *m, const struct mpart *parts,
			    int nr, const struct merge_opts *opts)
{
	u64 table = mj__table_size(nr, m->nr_streams), *t, *q;
	struct mj_head h = { .magic = MJ_MAGIC, .nr_parts = (u32)nr,
			     .nr_streams = (u32)m->nr_streams };
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int i, s, err;

	*j = (struct mjournal){
		.fd = -1, .nr_parts = nr, .nr_streams = m->nr_streams,
		.slot_size = mj__slot_size(m->nr_streams),
		.step = opts->give_step ? opts->give_step : MERGE_GIVE_STEP,
		.fault = opts->fault,
	};
	/* an entry holds every stream's window: one per step, or per step x streams / 32 */
	j->every = j->step * (m->nr_streams > 32 ? (u64)m->nr_streams / 32 : 1);
	j->slots_off = MJ_TABLE + table;
	h.slot_size = j->slot_size;
	err = merge__name_output(m);
	if (err)
		return err;
	if (!realpath(m->tmp, h.tmp))
		return -errno;
	/* whole or not at all: written under another name, renamed once complete */
	snprintf(path, sizeof(path), "%s/%s", m->dir, MERGE_JOURNAL);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	/* 0600 as everything precord writes: it names where the recording went */
	j->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (j->fd < 0)
		return -errno;
	q = t = malloc(table);
	if (!t) {
		unlink(tmp);
		return -ENOMEM;
	}
	for (s = 0; s < m->nr_streams; s++)
		*q++ = (u64)m->streams[s].num;
	for (i = 0; i < nr; i++) {
		*q++ = parts[i].offset;
		for (s = 0; s < m->nr_streams; s++)
			*q++ = parts[i].m.streams[s].file.pos;
		for (s = 0; s < m->nr_streams; s++)
			*q++ = parts[i].m.streams[s].file.end;
	}
	err = mj__pwrite(j->fd, &h, sizeof(h), 0);
	if (!err)
		err = mj__pwrite(j->fd, t, table, MJ_TABLE);
	if (!err && ftruncate(j->fd, (off_t)(j->slots_off + 2 * (u64)nr * j->slot_size)) < 0)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	else
		m->journal = true;
	free(t);
	return err;
}

/*
 * Drop [off, off + len) of an input: its pages leave the page cache and it
 * reads as zeroes. FALLOC_FL_ZERO_RANGE keeps the blocks (they go with the
 * file): a punch frees them, and on a file system mounted with discard the
 * merge then waited on the discards (A/B at -F max -m 32, --threads=cpu, 5
 * pairs: 4.6 against 5.0 GB/s, every pair faster). A punch where zeroing
 * is not supported. 0 or -1.
 */
static int merge__drop_range(int fd, u64 off, u64 len)
{
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -1;
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
}

/*
 * A part's journal entry, then its inputs punched up to the first record
 * not yet written. A failed entry ends the giving back (what was given is
 * journaled); a failed punch ends it for that file.
 */
static int merge__give_back(struct merge *m)
{
	struct mjournal *j = m->j;
	struct mj_slot *sl = m->slot;
	int i, err = merge__flush_run(m);

	if (err)
		return err;
	m->next_entry = m->w.bytes + j->every;
	sl->seq = ++m->seq;
	sl->done = m->w.bytes;
	for (i = 0; i < m->nr_streams; i++) {
		struct mstream *s = &m->streams[i];
		unsigned int k;

		sl->s[i].pos = s->file.pos;
		sl->s[i].nr = s->nr;
		for (k = 0; k < s->nr; k++)
			sl->s[i].win[k] = mstream__at(s, k)->off;
	}
	sl->sum = mj__sum(sl, j->slot_size);
	if (mj__pwrite(j->fd, sl, j->slot_size,
		       j->slots_off + ((u64)m->part * 2 + (sl->seq & 1)) * j->slot_size)) {
		m->j = NULL;
		return 0;
	}
	for (i = 0; i < m->nr_streams; i++) {
		struct mfile *f = &m->streams[i].file;
		u64 end = mstream__low(&m->streams[i]) & ~(j->step - 1);

		if (!f->writable || end <= f->given)
			continue;
		/* unmapped first: a punch of mapped pages unmaps them folio by folio */
		madvise((void *)(f->map + f->given), end - f->given, MADV_DONTNEED);
		if (merge__drop_range(f->fd, f->given, end - f->given) < 0) {
			f->writable = false;	/* a copy: the fd stays the merge's */
			continue;
		}
		__atomic_add_fetch(&j->given, end - f->given, __ATOMIC_RELAXED);
		f->given = end;
		if (f->released < end)
			f->released = end;
	}
	i = __atomic_add_fetch(&j->entries, 1, __ATOMIC_RELAXED);
	if (i == j->fault.kill_at)
		raise(SIGKILL);
	if (i == j->fault.fail_at) {
		merge__error(m, "a part failed at journal entry %d, as the test asked", i);
		return -EIO;
	}
	return 0;
}

/* The newest whole entry of part p, or NULL. */
static const struct mj_slot *mj__entry(const u8 *slots, const struct mjournal *j, int p)
{
	const struct mj_slot *a = (const void *)(slots + (u64)p * 2 * j->slot_size);
	const struct mj_slot *b = (const void *)(slots + ((u64)p * 2 + 1) * j->slot_size);
	bool va = a->seq && a->sum == mj__sum(a, j->slot_size);
	bool vb = b->seq && b->sum == mj__sum(b, j->slot_size);

	if (va && vb)
		return a->seq > b->seq ? a : b;
	return va ? a : vb ? b : NULL;
}

/*
 * The partial output a journal names. The journal comes from a directory
 * anyone may have prepared, and the file it names is read, then removed
 * once merged: it is taken only if it is the file this merge would have
 * made, OUT.XXXXXX (merge__name_output()) in the directory of the output
 * asked for now (compared canonical: the journal holds the realpath() of
 * the partial output), a regular file of the caller's with no other link,
 * opened without following a symbolic link and checked on that fd. It is
 * opened and removed relative to that directory, so a path component
 * changed meanwhile does not move it elsewhere.
 */
struct mpartial {
	int		dirfd;			/* the output's directory, or -1 */
	char		name[NAME_MAX + 1];	/* OUT.XXXXXX in it */
	bool		found;			/* it was there: st says which file */
	struct stat	st;
};

/* Why the file of st is not a partial output this merge made, NULL when it may be. */
static const char *mpartial__refuse(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid())
		return "owned by another user";
	if (st->st_nlink != 1)
		return "a file with other links";
	return NULL;
}

/*
 * Open the partial output path (from the journal) of the merge into out,
 * mapped into f. 0 (p->found false: it is gone), -EPERM when path is not
 * this merge's partial output (nothing is read or removed), or -errno.
 */
static int mpartial__open(struct mpartial *p, struct merge *m, const char *out,
			  const char *path, struct mfile *f)
{
	char dir[PATH_MAX], canon[PATH_MAX], jdir[PATH_MAX], why[PATH_MAX + 64];
	const char *base = path__split(out, dir, sizeof(dir));
	const char *jbase = path__split(path, jdir, sizeof(jdir));
	const char *bad = NULL;
	size_t n = (size_t)tmp_base_len(base);
	int fd, err;

	if (!realpath(dir, canon)) {
		err = -errno;
		merge__error(m, "cannot resolve %s, the directory of %s: %s", dir, out,
			     strerror(-err));
		return err;
	}
	if (strcmp(canon, jdir))
		bad = "not in the output's directory";
	else if (strncmp(jbase, base, n) || jbase[n] != '.' ||
		 strspn(jbase + n + 1, merge_tmp_chars) != 6 || jbase[n + 7] ||
		 n + 7 >= sizeof(p->name))
		bad = "not named as the output's partial file";
	if (bad)
		goto out_refuse;
	memcpy(p->name, jbase, n + 8);
	p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0) {
		err = -errno;
		merge__error(m, "cannot open directory %s: %s", dir, strerror(-err));
		return err;
	}
	/* O_NONBLOCK: a FIFO put there must not hang the merge before it is refused */
	fd = openat(p->dirfd, p->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP) {
		bad = "a symbolic link";
		goto out_refuse;
	}
	if (fd < 0 || fstat(fd, &p->st) < 0) {
		err = -errno;
		merge__error(m, "cannot open %s: %s", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	bad = mpartial__refuse(&p->st);
	if (bad) {
		close(fd);
		goto out_refuse;
	}
	p->found = true;
	*f = (struct mfile){ 0 };
	snprintf(f->name, sizeof(f->name), "the partial merge");
	err = mfile__map(f, fd, path, why, sizeof(why));
	if (err)
		merge__error(m, "%s", why);
	return err;

out_refuse:
	merge__error(m, "%s/" MERGE_JOURNAL " names %s, which is %s, not this merge's partial "
		     "output (%s.XXXXXX, a regular file of yours next to %s): nothing was merged "
		     "or removed; give -o the output the killed merge was writing, or find out "
		     "who prepared %s", m->dir, path, bad, base, out, m->dir);
	return -EPERM;
}

/* Remove the partial output once merged, if its name still is that file. */
static void mpartial__remove(const struct mpartial *p)
{
	struct stat st;

	if (p->found && fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == p->st.st_dev && st.st_ino == p->st.st_ino)
		unlinkat(p->dirfd, p->name, 0);
}

static void mpartial__exit(struct mpartial *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->dirfd = -1;
}

/*
 * Finish the merge a journal describes: each part's written range of its
 * partial output, and the rest of every input, merged as the sequential
 * merge does. Nothing is given back. 0 or -errno; *old: the partial output
 * (mpartial__open()), for merge__run() to remove once the output is in place.
 */
static int merge__resume(struct merge *m, int jfd, const char *out, struct mpartial *old)
{
	static const char damaged[] = "%s/" MERGE_JOURNAL " is damaged (%s); the records "
				      "it describes cannot be merged";
	struct mstream *saved = m->streams, *rs = NULL;
	int saved_nr = m->nr_streams, *saved_heap = m->heap, nr = 0, p, s, err;
	u64 page = (u64)sysconf(_SC_PAGESIZE), table_size, *table = NULL;
	struct mjournal j = { 0 };
	struct mfile part = { 0 };
	struct mj_head h;
	u8 *slots = NULL;
	bool have_part;

	err = mj__pread(jfd, &h, sizeof(h), 0);
	if (err || memcmp(h.magic, MJ_MAGIC, sizeof(h.magic)) || !h.nr_parts ||
	    h.nr_parts > MERGE_MAX_PARTS || h.nr_streams != (u32)saved_nr ||
	    h.slot_size != mj__slot_size(saved_nr) || !memchr(h.tmp, 0, sizeof(h.tmp))) {
		merge__error(m, damaged, m->dir, "its head does not match the data.N files");
		return -EINVAL;
	}
	j.nr_parts = (int)h.nr_parts;
	j.slot_size = h.slot_size;
	table_size = mj__table_size(j.nr_parts, saved_nr);
	table = malloc(table_size);
	slots = malloc(2 * (u64)j.nr_parts * j.slot_size);
	rs = calloc((size_t)j.nr_parts * (size_t)(saved_nr + 1), sizeof(*rs));
	m->heap = calloc((size_t)j.nr_parts * (size_t)(saved_nr + 1), sizeof(*m->heap));
	if (!table || !slots || !rs || !m->heap) {
		err = -ENOMEM;
		goto out;
	}
	err = mj__pread(jfd, table, table_size, MJ_TABLE);
	if (!err)
		err = mj__pread(jfd, slots, 2 * (u64)j.nr_parts * j.slot_size,
				MJ_TABLE + table_size);
	for (s = 0; !err && s < saved_nr; s++)
		if (table[s] != (u64)saved[s].num)
			err = -EINVAL;
	if (err) {
		merge__error(m, damaged, m->dir, "it is short, or names other data.N files");
		goto out;
	}
	err = mpartial__open(old, m, out, h.tmp, &part);
	if (err)
		goto out;
	have_part = old->found;
	for (p = 0; p < j.nr_parts; p++) {
		const u64 *t = table + saved_nr + (u64)p * (1 + 2 * (u64)saved_nr);
		const struct mj_slot *e = mj__entry(slots, &j, p);

		if (e && e->done && !have_part) {
			snprintf(m->note, sizeof(m->note), "the partial output of the merge that "
				 "was killed (%.160s) is gone: the records it held are lost", h.tmp);
			m->stats->nr_cut++;
		} else if (e && e->done) {
			if (t[0] > part.map_len || e->done > part.map_len - t[0]) {
				err = -EINVAL;
				merge__error(m, damaged, m->dir, "the partial output is shorter");
				goto out;
			}
			rs[nr].file = part;
			rs[nr].file.writable = false;
			rs[nr].file.pos = t[0];
			rs[nr].file.end = t[0] + e->done;
			rs[nr].file.released = t[0] & ~(page - 1);
			rs[nr].num = -1;
			rs[nr].idx = nr;
			nr++;
		}
		for (s = 0; s < saved_nr; s++) {
			struct mfile *f = &rs[nr].file;
			u64 lo = t[1 + s], hi = t[1 + saved_nr + s];

			*f = saved[s].file;
			f->writable = false;
			f->pos = e ? e->s[s].pos : lo;
			f->end = hi;
			if (lo > f->pos || f->pos > hi || hi > f->map_len ||
			    (e && e->s[s].nr > MERGE_WINDOW)) {
				err = -EINVAL;
				merge__error(m, damaged, m->dir, "a range lies outside its file");
				goto out;
			}
			f->pending = e ? e->s[s].win : NULL;
			f->nr_pending = e ? (unsigned int)e->s[s].nr : 0;
			f->released = f->pos & ~(page - 1);
			rs[nr].num = saved[s].num;
			rs[nr].idx = nr;
			nr++;
		}
	}
	m->streams = rs;
	m->nr_streams = nr;
	err = merge__kernel_records(m);
	/* the pending runs may point into the partial output, unmapped below */
	if (!err)
		err = merge__flush_run(m);
	m->stats->resumed = true;
out:
	for (p = 0; rs && p < nr; p++) {
		zdecomp__delete(rs[p].zd);
		free(rs[p].arena);
	}
	m->streams = saved;
	m->nr_streams = saved_nr;
	free(m->heap);
	m->heap = saved_heap;
	mfile__close(&part);
	free(rs);
	free(slots);
	free(table);
	return err;
}

/*
 * tmpfs allocates and clears the pages of posix_fallocate() under the
 * inode lock, on one thread: measured there (bench/merge-vs-dd.sh, 2 CPUs),
 * two threads merged no faster than one (0.57 s against 0.56 s for 1 GB),
 * against 13% faster on ext4. One thread on tmpfs.
 */
static bool merge__on_tmpfs(const struct merge *m)
{
	struct statfs sf;

	return fstatfs(m->fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

static int merge__cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

/*
 * The parts give their inputs' space back when the journal could be made
 * and some data.N could be opened for writing; else they only merge.
 */
static void merge__consume(struct merge *m, struct mpart *parts, int nr,
			   const struct merge_opts *opts, struct mjournal *j)
{
	int i, s;

	for (s = 0; s < m->nr_streams && !m->streams[s].file.writable; s++)
		;
	if (s == m->nr_streams || mjournal__create(j, m, parts, nr, opts))
		return;
	for (i = 0; i < nr; i++) {
		parts[i].m.slot = calloc(1, j->slot_size);
		if (!parts[i].m.slot)
			return;
	}
	for (i = 0; i < nr; i++) {
		struct merge *pm = &parts[i].m;

		pm->j = j;
		pm->part = i;
		pm->next_entry = j->every;
		for (s = 0; s < pm->nr_streams; s++) {
			struct mfile *f = &pm->streams[s].file;

			f->given = (f->pos + j->step - 1) & ~(j->step - 1);
		}
	}
}

/*
 * The kernel records in nr_parts parts at once, when the files split
 * (above); 1 when they were merged that way, 0 when they are left to the
 * sequential merge, or -errno.
 */
static int merge__parallel(struct merge *m, const struct merge_opts *opts)
{
	int nr = opts->jobs ? opts->jobs : merge__cpus(), t, s, i, n, err = 0, ret = 0;
	u64 min = opts->part_min ? opts->part_min : MERGE_PART_MIN, total = 0, off;
	struct mwalk *walks = NULL;
	struct mwalk_job *jobs = NULL;
	struct mpart *parts = NULL;
	u64 *cuts = NULL, *kcuts = NULL;
	struct mjournal j = { .fd = -1 };

	if (nr > MERGE_MAX_PARTS)
		nr = MERGE_MAX_PARTS;
	if (nr < 2 || m->zc || !m->nr_streams || m->round_bytes < MERGE_MAX_RECORD ||
	    merge__on_tmpfs(m))
		return 0;
	for (s = 0; s < m->nr_streams; s++)
		total += m->streams[s].file.map_len;
	if (total / min < (u64)nr)
		nr = (int)(total / min);
	if (nr < 2)
		return 0;

	walks = calloc((size_t)m->nr_streams, sizeof(*walks));
	t = nr < m->nr_streams ? nr : m->nr_streams;
	jobs = calloc((size_t)t, sizeof(*jobs));
	if (!walks || !jobs) {
		err = -ENOMEM;
		goto out;
	}
	for (s = 0, n = 0; s < m->nr_streams; s++) {
		walks[s] = (struct mwalk){
			.clock = &m->clock, .f = &m->streams[s].file,
			.chunk = min / MERGE_CHUNK_PARTS < MERGE_CHUNK ?
				 min / MERGE_CHUNK_PARTS + 1 : MERGE_CHUNK,
		};
		if (mwalk__from_index(&walks[s], opts->index, m->streams[s].num))
			n++;
	}
	if (n < m->nr_streams) {
		for (i = 0; i < t; i++)
			jobs[i] = (struct mwalk_job){ walks, m->nr_streams, i, t };
		merge__threads(t, mwalk__thread, jobs, sizeof(*jobs));
	}
	for (s = 0; !err && s < m->nr_streams; s++) {
		if (walks[s].error)
			err = walks[s].error;
		else if (!walks[s].plain)
			goto out;		/* sequential */
	}
	if (err)
		goto out;
	/* The records, not the files: an mmap writer's files end in reserved zeroes. */
	for (s = 0, total = 0; s < m->nr_streams; s++)
		total += walks[s].kbytes;
	if (total / min < (u64)nr)
		nr = (int)(total / min);
	if (nr < 2)
		goto out;

	cuts = calloc((size_t)nr * (size_t)m->nr_streams, sizeof(*cuts));
	kcuts = calloc((size_t)nr * (size_t)m->nr_streams, sizeof(*kcuts));
	if (!cuts || !kcuts) {
		err = -ENOMEM;
		goto out;
	}
	nr = merge__plan(m, walks, nr, cuts, kcuts) + 1;
	if (nr < 2)
		goto out;
	/* Where a file ends before its last byte: said once, as the sequential merge does. */
	for (s = 0; s < m->nr_streams; s++) {
		struct mfile *f = &m->streams[s].file;

		if (!walks[s].cut)
			continue;
		f->pos = walks[s].end;
		merge__cut(m, f, walks[s].cut);
		f->pos = 0;
	}

	err = merge__flush_run(m);
	if (!err)
		err = writer__flush(&m->w);
	parts = calloc((size_t)nr, sizeof(*parts));
	if (!err && !parts)
		err = -ENOMEM;
	for (i = 0, off = m->w.offset; !err && i < nr; i++) {
		err = mpart__init(&parts[i], m, walks, cuts, kcuts, i, nr);
		parts[i].offset = off;
		off += parts[i].size;
	}
	/* All the parts' room at once: a full disk is -ENOSPC here, before any part starts. */
	while (!err && off > m->w.offset) {
		err = -posix_fallocate(m->fd, (off_t)m->w.offset, (off_t)(off - m->w.offset));
		if (err != -EINTR)
			break;
		err = 0;
	}
	if (err)
		merge__error(m, "cannot make room for the merged records in the output: %s",
			     strerror(-err));
	if (!err && opts->consume)
		merge__consume(m, parts, nr, opts, &j);
	if (!err)
		merge__threads(nr, mpart__thread, parts, sizeof(*parts));
	if (j.fd >= 0)
		close(j.fd);
	m->stats->given_back = j.given;
	m->stats->journal_entries = j.entries;
	m->given = j.given > 0;
	for (i = 0; !err && i < nr; i++) {
		struct merge_stats *a = m->stats, *b = &parts[i].stats;

		if (parts[i].ret) {
			err = parts[i].ret;
			if (parts[i].err[0])
				merge__error(m, "%s", parts[i].err);
			break;
		}
		merge_stats__add(a, b);
	}
	if (!err)
		err = writer__skip(&m->w, off - m->w.offset);
	if (!err) {
		m->stats->parts = nr;
		for (s = 0; s < m->nr_streams; s++)
			m->stats->indexed += walks[s].done;
		ret = 1;
	}
out:
	for (i = 0; parts && i < nr; i++)
		mpart__exit(&parts[i]);
	for (s = 0; walks && s < m->nr_streams; s++)
		free(walks[s].chunks);
	free(parts);
	free(cuts);
	free(kcuts);
	free(jobs);
	free(walks);
	return err ? err : ret;
}

/* DIR/data's records, in file order, plain. */
static int merge__data_records(struct merge *m)
{
	struct mstream *s = &m->data;
	struct wrec r;
	int ret;

	while ((ret = mstream__read(m, s, &r)) > 0) {
		ret = merge__put(m, s, &r, false);
		if (ret)
			return ret;
		m->stats->data_records++;
		/* a single file's samples are here: their times make its SAMPLE_TIME */
		merge__count(m, wrec__data(s, &r), r.time);
	}
	return ret;
}

/* ---- DIR/data: header, attrs, features ---- */

static int merge__check_feats(struct merge *m)
{
	int i;

	for (i = 0; i < m->nr_feats; i++) {
		const struct header_payload *p = &m->feats[i];

		if (p->feat == HEADER_AUXTRACE) {
			merge__error(m, "%s/data has an AUX area index (HEADER_AUXTRACE), which "
				     "precord cannot merge; read the directory with perf", m->dir);
			return -ENOTSUP;
		}
		if (p->feat == HEADER_DIR_FORMAT && p->size >= 8 &&
		    load_u64(p->data) > MERGE_DIR_VERSION) {
			merge__error(m, "%s has directory format version %llu; this precord "
				     "reads version %d", m->dir,
				     (unsigned long long)load_u64(p->data), MERGE_DIR_VERSION);
			return -ENOTSUP;
		}
	}
	return 0;
}

static int merge__read_attrs(struct merge *m, int fd)
{
	int err = header__read_attrs(fd, &m->hdr, &m->attrs);

	return err ? err : mclock__init(&m->clock, &m->attrs);
}

/*
 * A header never finished (the recorder was killed) has no feature bits
 * (precord) and a data size of 0 or of what its streaming thread had
 * written when it last said so (one file: the file goes on past it; a
 * file cut shorter than its data size is read to its end too), or it
 * says data size 0 with bits whose table was never written (perf: it sets
 * them when it opens the file). A finished file with an empty data section
 * has its table there, the first payload right after it; one finished
 * without features (a full disk) ends where its data does.
 */
/* The header's feature bits set; *first: the lowest (-1: none). */
static int merge__feat_bits(const struct merge *m, int *first)
{
	int bit, nr = 0;

	*first = -1;
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (!header__has_feat(&m->hdr, bit))
			continue;
		nr++;
		if (*first < 0)
			*first = bit;
	}
	return nr;
}

static bool merge__data_unfinished(const struct merge *m, int fd)
{
	struct perf_file_section sec;
	int first, nr = merge__feat_bits(m, &first);
	struct stat st;

	if (!nr)
		return !m->hdr.data.size || (fstat(fd, &st) == 0 &&
		       (u64)st.st_size != m->hdr.data.offset + m->hdr.data.size);
	if (m->hdr.data.size)
		return false;
	return header__feat_section(fd, &m->hdr, first, &sec) ||
	       sec.offset != m->hdr.data.offset + sizeof(sec) * (u64)nr;
}

/* The data section of DIR/data; an unfinished one runs to the end of the file. */
static int merge__data_section(struct merge *m)
{
	struct mfile *f = &m->data.file;
	u64 off = m->hdr.data.offset, size = m->hdr.data.size;

	if (off > f->map_len)
		return -EINVAL;
	if (m->data_unfinished)
		size = f->map_len - off;
	if (size > f->map_len - off)
		return -EINVAL;
	f->pos = off;
	f->end = off + size;
	return 0;
}

/*
 * A killed perf record file of tracepoints has no TRACING_DATA, without
 * which perf will not read it: the formats of its tracepoints from this
 * machine's tracefs (by id: right where it was recorded, since boot),
 * told as a warning. 0, or -ENOMEM; a tracefs that cannot give them
 * leaves the file without (also told).
 */
static int merge__local_tracing(struct merge *m)
{
	struct evlist *evlist;
	char *buf = NULL;
	ssize_t len = 0;
	int i, err = 0;

	for (i = 0; i < m->attrs.nr; i++)
		if (m->attrs.entries[i].attr.type == PERF_TYPE_TRACEPOINT)
			break;
	if (i == m->attrs.nr)
		return 0;
	evlist = evlist__new();
	if (!evlist)
		return -ENOMEM;
	for (i = 0; !err && i < m->attrs.nr; i++) {
		struct evsel *evsel = evsel__new(&m->attrs.entries[i].attr, NULL);

		err = evsel ? evlist__add(evlist, evsel) : -ENOMEM;
		if (err)
			evsel__delete(evsel);
	}
	if (!err)
		len = tracefs__tracing_data(evlist, &buf);
	evlist__delete(evlist);
	if (err)
		return err;
	if (len <= 0) {
		m->stats->tracing = MERGE_TRACING_NONE;
		return len == -ENOMEM ? -ENOMEM : 0;
	}
	if (!m->feats)
		m->feats = calloc(HEADER_FEAT_BITS, sizeof(*m->feats));
	if (!m->feats) {
		free(buf);
		return -ENOMEM;
	}
	m->feats[m->nr_feats++] = (struct header_payload){ HEADER_TRACING_DATA, buf, (u64)len };
	m->stats->tracing = MERGE_TRACING_LOCAL;
	return 0;
}

static int merge__open_data(struct merge *m)
{
	char path[PATH_MAX], why[PATH_MAX + 64];
	const char *what = "cannot read the perf.data header";
	int fd, err, first;

	snprintf(path, sizeof(path), m->single ? "%s" : "%s/data", m->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		merge__error(m, "cannot open %s: %s%s", path, strerror(errno),
			     errno == ENOENT ? " (not a perf directory?)" : "");
		return err;
	}
	err = header__read(fd, &m->hdr);
	if (!err) {
		what = "cannot read the attrs";
		err = merge__read_attrs(m, fd);
	}
	if (!err) {
		what = "cannot read the feature sections";
		m->data_unfinished = merge__data_unfinished(m, fd);
		if (!m->data_unfinished)
			err = header__read_payloads(fd, &m->hdr, &m->feats, &m->nr_feats);
	}
	if (!err && m->single && !merge__feat_bits(m, &first)) {
		/* precord's one file: its features, written ahead of the data, go to its end */
		header_payloads__free(m->feats, m->nr_feats);
		err = header__read_ahead(fd, &m->hdr, &m->feats, &m->nr_feats);
		if (!err)
			m->data_unfinished = true;
		else if (err == -ENOENT)
			err = 0;
	}
	if (!err && m->single && m->data_unfinished && !m->nr_feats)
		err = merge__local_tracing(m);
	close(fd);
	if (!err)
		err = merge__check_feats(m);
	if (err) {
		if (err != -ENOTSUP)
			merge__error(m, "%s: %s: %s", path, what,
				     err == -EINVAL ? "not a valid perf.data file" : strerror(-err));
		return err;
	}
	if (m->single && !m->data_unfinished) {
		merge__error(m, merge__feat_bits(m, &first) ?
			     "%s is a finished perf.data file: it needs no merge" :
			     "%s needs no merge: its header covers every record in it (its "
			     "features were never written), and perf reads it as it is", path);
		return -EINVAL;
	}
	err = m->single ? mfile__open_path(&m->data.file, path, "the data", false, why, sizeof(why))
			: mfile__open(&m->data.file, m->dir, "data", false, why, sizeof(why));
	if (!err)
		err = merge__data_section(m);
	if (err)
		merge__error(m, err == -EINVAL ? "%s: its header places the data past the end of "
			     "the file (a recording killed while it began): nothing to merge" : "%s",
			     err == -EINVAL ? path : why);
	return err;
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

static int merge__open_streams(struct merge *m, bool consume)
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

/*
 * Inputs a consuming merge gave back read as zeroes, and so would merge
 * into an output with none of their records (replacing the good one a
 * second `precord merge DIR` would overwrite); they are refused. Ranges go
 * back in aligned steps of at least a page from where each part starts,
 * and the first part starts at offset 0 of every file: a data.N that
 * gave anything back begins with a page of zeroes. The writers leave no
 * such start: the mmap writer, killed in a copy, leaves the copy's header
 * (8 bytes) and at most its first vector unwritten, with the record's
 * body after them, and the room it reserved runs to the end of the file.
 * So a data.N that begins with MERGE_GIVEN_MIN bytes of zeroes and has
 * data after them is refused, and so are data.N files that are all zeroes
 * when no other holds a record (a recording killed before writing one
 * loses nothing by it). A file cut short by zeroes after its records is
 * merged up to them, as before. 0 or -ENODATA, said in m->err.
 */
static int merge__check_given_back(struct merge *m, const char *out)
{
	const struct mfile *zero = NULL;
	int i, records = 0;

	for (i = 0; i < m->nr_streams; i++) {
		const struct mfile *f = &m->streams[i].file;
		u64 n = f->map_len < MERGE_GIVEN_MIN ? f->map_len : MERGE_GIVEN_MIN;

		if (!f->map_len)
			continue;
		if (f->map_len < HDR_SIZE || f->map[0] || memcmp(f->map, f->map + 1, n - 1)) {
			records++;	/* a record, or what a killed writer left of one */
			continue;
		}
		if (mfile__zero_tail(f, 0)) {
			zero = zero ? zero : f;
			continue;
		}
		if (n < MERGE_GIVEN_MIN) {
			records++;
			continue;
		}
		merge__error(m, "%s/%s holds zeroes at offset 0 where its first record should "
			     "be, then data: a consuming merge gave its records back as it merged "
			     "them, into the file it wrote; nothing was merged and %s is left as "
			     "it was (%s is no recording now: remove it)", m->dir, f->name, out,
			     m->dir);
		return -ENODATA;
	}
	if (records || !zero)
		return 0;
	merge__error(m, "no data.N of %s holds a record: %s/%s and the others are zeroes from "
		     "offset 0, as a consuming merge leaves its inputs (or a recording killed "
		     "before it wrote any); nothing was merged and %s is left as it was",
		     m->dir, m->dir, zero->name, out);
	return -ENODATA;
}

/* ---- the output file ---- */

static int merge__open_output(struct merge *m, const char *out, char *tmp, size_t len)
{
	char dir[PATH_MAX];
	const char *base = path__split(out, dir, sizeof(dir));

	/* beside the output; a name near NAME_MAX is shortened to leave room for the suffix */
	if (snprintf(tmp, len, "%.*s%.*s.XXXXXX", (int)(base - out), out, tmp_base_len(base),
		     base) >= (int)len) {
		merge__error(m, "the output name '%s' is too long", out);
		return -ENAMETOOLONG;
	}
	m->tmp = tmp;
	/* naming it later goes through /proc/self/fd (no CAP_DAC_READ_SEARCH needed) */
	if (access("/proc/self/fd", X_OK) == 0) {
		m->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (m->fd >= 0)
			return 0;
	}
	m->fd = mkstemp(tmp);
	if (m->fd < 0) {
		int err = -errno;

		merge__error(m, "cannot create %s: %s", tmp, strerror(errno));
		return err;
	}
	m->tmp_named = true;
	return 0;
}

/*
 * Give the unnamed output m->tmp's name: FILE. and six characters that no
 * file there has yet (linkat() never replaces one). 0 or -errno.
 */
static int merge__name_output(struct merge *m)
{
	char proc[64];
	size_t n = strlen(m->tmp);
	struct timespec ts;
	unsigned int seed;
	int tries, i;

	if (m->tmp_named)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (unsigned int)getpid() ^ (unsigned int)ts.tv_nsec;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", m->fd);
	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 6; i++)
			m->tmp[n - 6 + i] = merge_tmp_chars[rand_r(&seed) %
							    (sizeof(merge_tmp_chars) - 1)];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, m->tmp, AT_SYMLINK_FOLLOW) == 0) {
			m->tmp_named = true;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return -errno;
}

static int merge__start_output(struct merge *m, int comp_level, u64 *data_offset)
{
	int err = header__write_start_raw(m->fd, &m->attrs, data_offset);

	if (!err)
		err = writer__open_size(&m->w, WRITER_WRITE, m->fd, *data_offset, MERGE_WRITE_BUF);
	if (!err) {
		m->iov = malloc(sizeof(*m->iov) * MERGE_IOV);
		m->copy = malloc(MERGE_COPY_BUF);
		if (!m->iov || !m->copy)
			err = -ENOMEM;
	}
	if (err || comp_level <= 0)
		return err;
	m->zc = zcomp__new(comp_level);
	if (!m->zc)
		return errno ? -errno : -ENOMEM;
	m->chunk = malloc(ZCOMP_MMAP_LEN);
	return m->chunk ? 0 : -ENOMEM;
}

/* HEADER_COMPRESSED as perf record writes it: version, type (zstd), level, ratio, mmap_len. */
static void merge__comp_payload(const struct merge *m, int level, u32 out[5])
{
	out[0] = 0;
	out[1] = 1;
	out[2] = (u32)level;
	out[3] = zcomp__ratio(zcomp__bytes_in(m->zc), zcomp__bytes_out(m->zc));
	out[4] = ZCOMP_MMAP_LEN;
}

/*
 * DIR/data's features for the merged file: DIR_FORMAT dropped, SAMPLE_TIME
 * from the merged samples, COMPRESSED as the output is.
 */
static int merge__features(struct merge *m, int level, struct header_payload *out,
			   u64 sample_time[2], u32 comp[5])
{
	int i, n = 0;

	for (i = 0; i < m->nr_feats; i++) {
		struct header_payload p = m->feats[i];

		if (p.feat == HEADER_DIR_FORMAT || p.feat == HEADER_COMPRESSED)
			continue;
		if (p.feat == HEADER_SAMPLE_TIME && m->stats->samples) {
			sample_time[0] = m->stats->first_time;
			sample_time[1] = m->stats->last_time;
			p.data = sample_time;
			p.size = 2 * sizeof(u64);
		}
		out[n++] = p;
	}
	if (m->zc) {
		merge__comp_payload(m, level, comp);
		out[n++] = (struct header_payload){ HEADER_COMPRESSED, comp, 5 * sizeof(u32) };
	}
	return n;
}

static int merge__finish_output(struct merge *m, int level, u64 data_offset)
{
	struct header_payload *feats;
	u64 sample_time[2];
	u32 comp[5];
	struct stat st;
	int nr, err;

	err = m->zc ? merge__flush_chunk(m) : 0;
	if (!err)
		err = merge__flush_run(m);
	writer__close(&m->w);
	if (!err)
		err = m->w.error;
	if (err)
		return err;
	feats = calloc((size_t)m->nr_feats + 1, sizeof(*feats));
	if (!feats)
		return -ENOMEM;
	nr = merge__features(m, level, feats, sample_time, comp);
	m->stats->nr_feats = nr;
	err = header__write_end_raw(m->fd, &m->attrs, data_offset, m->w.bytes, feats, nr);
	free(feats);
	if (!err && fstat(m->fd, &st) < 0)
		err = -errno;
	if (!err)
		m->stats->bytes_out = (u64)st.st_size;
	return err;
}

static void merge__exit(struct merge *m)
{
	int i;

	for (i = 0; i < m->nr_streams; i++)
		mstream__exit(&m->streams[i]);
	mstream__exit(&m->data);
	free(m->streams);
	free(m->heap);
	mclock__exit(&m->clock);
	header_attrs__exit(&m->attrs);
	header_payloads__free(m->feats, m->nr_feats);
	zcomp__delete(m->zc);
	free(m->chunk);
	free(m->iov);
	free(m->copy);
}


/* DIR/merge.journal, or -1: a consuming merge that was killed left one. */
static int merge__open_journal(const struct merge *m, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", m->dir, MERGE_JOURNAL);
	return m->single ? -1 : open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * A journal its merge marked finished or done: that merge completed, and
 * what is left of DIR is no recording. Refused, saying where the merged
 * file is: -EALREADY; 0 for a journal to resume (merge__resume() checks it).
 */
static int merge__check_journal(struct merge *m, int jfd)
{
	struct mj_head h;
	int n;

	if (mj__pread(jfd, &h, sizeof(h), 0) || !memchr(h.tmp, 0, sizeof(h.tmp)))
		return 0;
	/* the output's name: the partial output's, less ".XXXXXX" */
	n = (int)strlen(h.tmp) > 7 ? (int)strlen(h.tmp) - 7 : 0;
	if (!memcmp(h.magic, MJ_FINISHED, sizeof(h.magic)))
		merge__error(m, "%s was merged already and its data.N given back: the merged file "
			     "is %.*s, or %s if the merge was killed before renaming it (rename it "
			     "then); nothing is left to merge: remove %s", m->dir, n, h.tmp, h.tmp,
			     m->dir);
	else if (!memcmp(h.magic, MJ_DONE, sizeof(h.magic)))
		merge__error(m, "%s was merged already, into %.*s, and its data.N given back: "
			     "nothing is left to merge; remove %s", m->dir, n, h.tmp, m->dir);
	else
		return 0;
	return -EALREADY;
}

/* Say in the journal that its merge got this far (MJ_FINISHED, MJ_DONE). 0 or -errno. */
static int merge__mark_journal(const char *journal, const char *magic)
{
	int fd = open(journal, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int err = fd < 0 ? -errno : mj__pwrite(fd, magic, 8, 0);

	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * The output is in place and holds what the inputs gave back (this merge
 * consumed them, or finished a merge that did): what is left of DIR is
 * no recording, and merged again it would replace the output with what
 * is left. The journal is marked done first, so that a merge killed while
 * removing leaves a directory later merges refuse (merge__check_journal());
 * then the partial output, the inputs and, last, the journal go. Where the
 * journal cannot be marked, everything stays: a resumed merge then still
 * has its partial output, and merging DIR again gives the same output.
 */
static void merge__remove_consumed(struct merge *m, const char *journal, const char *out,
				   const struct mpartial *old, const struct merge_opts *opts)
{
	if (merge__mark_journal(journal, MJ_DONE))
		return;
	if (opts->fault.kill_removing)
		raise(SIGKILL);
	mpartial__remove(old);
	output__remove_dir(m->dir, out);
}

static int merge__run(struct merge *m, const char *out, const struct merge_opts *opts)
{
	char tmp[PATH_MAX], journal[PATH_MAX];
	struct mpartial old = { .dirfd = -1 };
	bool finished = false;
	int err, jfd = -1;
	u64 data_offset;

	jfd = merge__open_journal(m, journal, sizeof(journal));
	err = jfd >= 0 ? merge__check_journal(m, jfd) : 0;
	if (!err)
		err = merge__open_data(m);
	if (!err)
		err = merge__open_streams(m, opts->consume && jfd < 0);
	if (!err && jfd < 0)
		err = merge__check_given_back(m, out);
	if (!err)
		err = merge__open_output(m, out, tmp, sizeof(tmp));
	if (err) {
		if (jfd >= 0)
			close(jfd);
		return err;
	}
	err = merge__start_output(m, opts->comp_level, &data_offset);
	if (!err)
		err = merge__data_records(m);
	if (!err && jfd >= 0)
		err = merge__resume(m, jfd, out, &old);
	else if (!err)
		err = merge__parallel(m, opts);
	if (!err && jfd < 0)
		err = merge__kernel_records(m);
	else if (err > 0)
		err = 0;
	if (jfd >= 0)
		close(jfd);
	if (!err)
		err = merge__finish_output(m, opts->comp_level, data_offset);
	writer__close(&m->w);
	/*
	 * Nothing at all to merge (a recording killed before its first
	 * record reached a file): perf rejects a file with no data, so none
	 * is written, and the exit says why.
	 */
	if (!err && !m->stats->records && !m->stats->data_records && !m->given) {
		err = -ENODATA;
		merge__error(m, "%s holds no records: the recording was killed before it wrote "
			     "any, so there is nothing to %s", m->dir, m->single ? "finish" : "merge");
	}
	if (!err && opts->fault.kill_unnamed)
		raise(SIGKILL);
	if (!err) {
		err = merge__name_output(m);
		if (err)
			merge__error(m, "cannot name the merged file %s: %s", tmp, strerror(-err));
	}
	if (close(m->fd) < 0 && !err)
		err = -errno;
	/*
	 * Inputs given back: once tmp is the output, the journal could only
	 * resume the merge without its partial output, so it says first that
	 * tmp is whole.
	 */
	if (!err && m->given) {
		err = merge__mark_journal(journal, MJ_FINISHED);
		if (err)
			merge__error(m, "cannot mark %s finished: %s", journal, strerror(-err));
		finished = !err;
	}
	if (!err && rename(tmp, out) < 0) {
		err = -errno;
		merge__error(m, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	}
	if (!err) {
		if (m->given || jfd >= 0)
			merge__remove_consumed(m, journal, out, &old, opts);
		else if (m->journal)
			unlink(journal);
		mpartial__exit(&old);
		return 0;
	}
	mpartial__exit(&old);
	if (m->errlen && !m->err[0])
		merge__error(m, "cannot merge %s into %s: %s", m->dir, out, strerror(-err));
	if (m->given) {
		/* what left the inputs is in tmp: both stay for merge__resume() */
		size_t n = strlen(m->err);

		if (n < m->errlen && finished)
			snprintf(m->err + n, m->errlen - n, " (the merged file is %s: rename "
				 "it to %s, then remove %s)", tmp, out, m->dir);
		else if (n < m->errlen)
			snprintf(m->err + n, m->errlen - n, " (the merged part is in %s, and "
				 "%s/" MERGE_JOURNAL " says what is where: 'precord merge %s' "
				 "finishes the merge)", tmp, m->dir, m->dir);
		return err;
	}
	if (m->tmp_named)
		unlink(tmp);
	if (m->journal)
		unlink(journal);
	return err;
}

int merge__dir(const char *dir, const char *out_path, const struct merge_opts *opts,
	       struct merge_stats *stats, char *err, size_t errlen)
{
	static const struct merge_opts defaults;
	struct merge_stats local;
	struct merge m = {
		.dir = dir, .err = err, .errlen = err ? errlen : 0, .fd = -1,
	};
	double start = now_seconds();
	struct stat sb;
	int ret;

	if (!opts)
		opts = &defaults;
	m.stats = stats ? stats : &local;
	*m.stats = (struct merge_stats){ 0 };
	m.single = m.stats->single = stat(dir, &sb) == 0 && S_ISREG(sb.st_mode);
	m.round_bytes = opts->round_bytes ? opts->round_bytes : MERGE_ROUND_BYTES;
	if (m.errlen)
		err[0] = '\0';
	if (opts->comp_level < 0 || opts->comp_level > ZCOMP_LEVEL_MAX) {
		merge__error(&m, "compression level %d is out of range (%d-%d)",
			     opts->comp_level, ZCOMP_LEVEL_MIN, ZCOMP_LEVEL_MAX);
		return -EINVAL;
	}
	ret = merge__run(&m, out_path, opts);
	if (!ret && m.note[0] && m.errlen)
		snprintf(err, errlen, "%s", m.note);
	merge__exit(&m);
	m.stats->seconds = now_seconds() - start;
	return ret;
}

/* ---- memory the host takes back ---- */

/* The buddy allocator's highest order: the number of counts in /proc/buddyinfo's lines, less one. */
static int buddy_max_order(void)
{
	char line[512], *p, *end;
	int n = 0;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {	/* "Node 0, zone      DMA      1 1 ..." */
		p = strstr(line, "zone");
		p = p ? p + 4 : line;
		p += strspn(p, " ");
		p += strcspn(p, " ");		/* the zone's name */
		for (;;) {
			strtoul(p, &end, 10);
			if (end == p)
				break;
			n++;
			p = end;
		}
	}
	fclose(f);
	return n - 1;
}

/* Whether a virtio balloon offers free page reporting (feature bit 5, VIRTIO_BALLOON_F_REPORTING). */
static bool balloon_reports(void)
{
	char path[PATH_MAX], id[16], feat[160];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/bus/virtio/devices");

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
		if (strtoul(id, NULL, 0) != 5)	/* VIRTIO_ID_BALLOON */
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(feat, sizeof(feat), f) && strlen(feat) > 5 && feat[5] == '1';
		fclose(f);
	}
	closedir(d);
	return found;
}

bool memory_host_reclaims(void)
{
	long order = -1;
	FILE *f = fopen("/sys/module/page_reporting/parameters/page_reporting_order", "r");

	if (!f)
		return false;	/* a kernel without free page reporting */
	if (fscanf(f, "%ld", &order) != 1)
		order = -1;
	fclose(f);
	/* above the highest order no free block is large enough to be reported */
	if (order < 0 || order > buddy_max_order())
		return false;
	return balloon_reports();
}

/* ---- precord merge ---- */

static void merge__usage(FILE *fp)
{
	fputs("\n usage: precord merge DIR [-o FILE] [-q] [-z[=N]] [-j N]\n"
	      "    or: precord merge FILE [-o FILE]\n\n"
	      "    Turn a perf directory (perf record --threads, or the DIR.staging a\n"
	      "    killed precord leaves) into one time-ordered perf.data; or finish\n"
	      "    the perf.data file a killed perf record left, or a killed precord\n"
	      "    that wrote one file (one streaming thread, or --no-threads).\n\n"
	      "    -o, --output <file>   output file (default: DIR without its \".staging\"\n"
	      "                          suffix when it has one, else DIR.data; FILE\n"
	      "                          itself)\n"
	      "    -q, --quiet           do not print the summary\n"
	      "    -z, --compression-level[=<n>]\n"
	      "                          compress the kernel records with zstd level n\n"
	      "                          (1-22, default 1)\n"
	      "    -j, --jobs <n>        merge on n threads (default: one per CPU it may\n"
	      "                          use, at least 8 MiB of records each; 1: serial)\n\n", fp);
}

/* DIR without a trailing "/" and ".staging", or DIR.data. */
static int merge__default_output(const char *dir, char *buf, size_t len)
{
	static const char suffix[] = ".staging";
	size_t n = strlen(dir), s = sizeof(suffix) - 1;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n > s && !memcmp(dir + n - s, suffix, s) && dir[n - s - 1] != '/')
		return snprintf(buf, len, "%.*s", (int)(n - s), dir) >= (int)len ? -ENAMETOOLONG : 0;
	return snprintf(buf, len, "%.*s.data", (int)n, dir) >= (int)len ? -ENAMETOOLONG : 0;
}

static int comp_level__parse(const char *arg, int *level)
{
	char *end;
	long v;

	if (!arg) {
		*level = MERGE_COMP_DEFAULT;
		return 0;
	}
	if (*arg == '=')
		arg++;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < ZCOMP_LEVEL_MIN || v > ZCOMP_LEVEL_MAX)
		return -EINVAL;
	*level = (int)v;
	return 0;
}

struct merge_args {
	const char		*dir;
	const char		*out;
	struct merge_opts	opts;
};

static int merge_args__parse(struct merge_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output",		required_argument,	NULL, 'o' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "compression-level",	optional_argument,	NULL, 'z' },
		{ "jobs",		required_argument,	NULL, 'j' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:qz::j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'q':
			a->opts.quiet = true;
			break;
		case 'z':
			if (comp_level__parse(optarg, &a->opts.comp_level)) {
				fprintf(stderr, "precord: bad compression level '%s' (1-22)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 1 || v > 1024) {
				fprintf(stderr, "precord: bad number of merge threads '%s' "
					"(1-1024)\n", optarg);
				return -EINVAL;
			}
			a->opts.jobs = (int)v;
			break;
		}
		case 'h':
			merge__usage(stdout);
			return 1;
		default:
			fprintf(stderr, "precord: unknown option '%s' (precord merge -h "
				"lists them)\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "precord: %s\n", optind < argc ?
			"one directory at a time (precord merge DIR [-o FILE])" :
			"which directory? (precord merge DIR [-o FILE])");
		return -EINVAL;
	}
	a->dir = argv[optind];
	return 0;
}

static void merge__summary(const char *out, const struct merge_stats *st)
{
	char threads[32] = "";

	if (st->single) {
		fprintf(stderr, "[ precord: Finished %s: %llu records, %llu samples, %d feature "
			"sections (%.3f MB, %.3f s) ]\n", out, (unsigned long long)st->data_records,
			(unsigned long long)st->samples, st->nr_feats,
			(double)st->bytes_out / 1048576.0, st->seconds);
		return;
	}
	if (st->parts > 1)
		snprintf(threads, sizeof(threads), ", %d threads", st->parts);
	fprintf(stderr, "[ precord: Merged %d files, %llu records into %s (%.3f MB, %.3f s%s%s) ]\n",
		st->nr_files, (unsigned long long)(st->records + st->data_records), out,
		(double)st->bytes_out / 1048576.0, st->seconds, threads,
		st->resumed ? "; finished the merge that was killed" : "");
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct merge_stats st;
	char out[PATH_MAX], msg[PATH_MAX + 128];
	struct stat sb;
	int err = merge_args__parse(&a, argc, argv);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (stat(a.dir, &sb) < 0) {
		fprintf(stderr, "precord: cannot open %s: %s\n", a.dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "precord: %s is neither a directory nor a perf.data file\n", a.dir);
		return 1;
	}
	if (a.out)
		snprintf(out, sizeof(out), "%s", a.out);
	else if (S_ISREG(sb.st_mode))
		snprintf(out, sizeof(out), "%s", a.dir);	/* repaired in place */
	else if (merge__default_output(a.dir, out, sizeof(out))) {
		fprintf(stderr, "precord: the directory name is too long; give -o FILE\n");
		return 1;
	}
	err = merge__dir(a.dir, out, &a.opts, &st, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return 1;
	}
	if (msg[0])
		fprintf(stderr, "precord: warning: %s\n", msg);
	if (st.tracing == MERGE_TRACING_LOCAL)
		fprintf(stderr, "precord: warning: %s had no tracing data: the formats of its "
			"tracepoints come from this machine's tracefs, right only where and since "
			"the boot it was recorded\n", a.dir);
	else if (st.tracing == MERGE_TRACING_NONE)
		fprintf(stderr, "precord: warning: %s has no tracing data and this machine's "
			"tracefs does not know its tracepoints: perf will not read them\n", a.dir);
	if (!a.opts.quiet)
		merge__summary(out, &st);
	return 0;
}
