// SPDX-License-Identifier: GPL-2.0
/*
 * merge-records.c — the path of every record through a merge, kept in one
 * file so that the compiler sees it whole: a stream's file read record by
 * record (COMPRESSED ones opened into its arena, FINISHED_ROUNDs dropped,
 * the time from sample.c), its reorder window, the heap over the streams'
 * earliest records, and the runs of records the output is written in.
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
 * Runs of records (adjacent records of one mapping join) are gathered as
 * iovecs and written with one pwritev() per MERGE_IOV runs, so the only
 * copy is the kernel's, from the input pages into the output's. With
 * comp_level > 0 the kernel records are compressed into one stream
 * (ZCOMP_MMAP_LEN of whole records per flush, HEADER_COMPRESSED.mmap_len
 * accordingly); FINISHED_ROUNDs stay plain, between COMPRESSED records, as
 * perf writes them.
 *
 * Data flow: a file mapping (merge-input.c) → mfile__next() →
static  * mstream__read() → the window → merge__step() (the heap) →
 * merge__put_kernel() → the pending runs → writer__writev(). A part of a
 * parallel merge (merge-parallel.c) runs the same path on its own streams
 * and writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "merge-internal.h"

/* ---- a stream's records, in file order ---- */

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
	size_t keep;
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
	p = buf__grow(s->arena, &s->arena_cap, s->arena_len + len, MERGE_ARENA_SIZE);
	if (!p)
		return -ENOMEM;
	s->arena = p;
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

/* ---- output ---- */

/*
 * Pending output: runs of records, in order, each a pointer into a file
 * mapping (nothing copied; adjacent records join one run) or into m->copy
 * (what may move: an arena, the stack). Written with one pwritev() per
 * MERGE_IOV runs or a full m->copy, so the kernel copies from the input
 * pages into the output's, and nothing is copied in user space.
 */
int merge__flush_run(struct merge *m)
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

int merge__flush_chunk(struct merge *m)
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
int merge__put_kernel(struct merge *m, const struct mstream *s, const struct wrec *r)
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

int merge__kernel_records(struct merge *m)
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

/* DIR/data's records, in file order, plain. */
int merge__data_records(struct merge *m)
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
