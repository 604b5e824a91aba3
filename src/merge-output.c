// SPDX-License-Identifier: GPL-2.0
/*
 * merge-output.c — what a merge writes: runs of records into the output
 * file, a FINISHED_ROUND every round_bytes of kernel records, the output's
 * temporary name, and its header and features at the end.
 *
 * Runs of records (adjacent records of one mapping join) are gathered as
 * iovecs and written with one pwritev() per MERGE_IOV runs, so the only
 * copy is the kernel's, from the input pages into the output's. With
 * comp_level > 0 the kernel records are compressed into one stream
 * (ZCOMP_MMAP_LEN of whole records per flush, HEADER_COMPRESSED.mmap_len
 * accordingly); FINISHED_ROUNDs stay plain, between COMPRESSED records, as
 * perf writes them.
 *
 * The output is written once, front to back, into a file next to it that
 * has no name (O_TMPFILE) until it must outlive the process: named
 * FILE.XXXXXX (merge__name_output()) and renamed into place by merge.c, or
 * named by the consuming merge's journal before it punches anything.
 * Where O_TMPFILE is refused, mkstemp() names it from the start.
 *
 * Data flow: a stream's record (merge.c, merge-parallel.c) →
 * merge__put_kernel() → the pending runs (or the compression chunk) →
 * writer__writev() → the output file; at the end merge__finish_output()
 * writes the features and the header.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "merge-internal.h"

/* What follows "FILE." in the output's temporary name: six of these, as mkstemp() makes. */
const char merge_tmp_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* path's directory into dir ("." when it names none, "/" for "/f"); returns its last name. */
const char *path__split(const char *path, char *dir, size_t len)
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
int merge__tmp_base_len(const char *base)
{
	size_t n = strlen(base), max = NAME_MAX - sizeof(".XXXXXX") + 1;

	return (int)(n < max ? n : max);
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

int merge__put(struct merge *m, const struct mstream *s, const struct wrec *r,
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
void merge__count(struct merge *m, const u8 *rec, u64 time)
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

/* ---- the output file ---- */

int merge__open_output(struct merge *m, const char *out, char *tmp, size_t len)
{
	char dir[PATH_MAX];
	const char *base = path__split(out, dir, sizeof(dir));

	/* beside the output; a name near NAME_MAX is shortened to leave room for the suffix */
	if (snprintf(tmp, len, "%.*s%.*s.XXXXXX", (int)(base - out), out, merge__tmp_base_len(base),
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
int merge__name_output(struct merge *m)
{
	char proc[64];
	size_t n = strlen(m->tmp);
	unsigned int seed;
	int tries, i;

	if (m->tmp_named)
		return 0;
	seed = (unsigned int)getpid() ^ (unsigned int)clock__now_ns();
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

int merge__start_output(struct merge *m, int comp_level, u64 *data_offset)
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

int merge__finish_output(struct merge *m, int level, u64 data_offset)
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
