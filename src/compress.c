// SPDX-License-Identifier: GPL-2.0
/*
 * compress.c — perf's -z: records in, PERF_RECORD_COMPRESSED records out,
 * and back.
 *
 * Owns: one zstd compression stream (struct zcomp) or one decompression
 * stream (struct zdecomp) with its buffers. Who runs it: one thread at a
 * time per object (the streaming thread that owns the output file, or the
 * merge/report reader); objects share nothing.
 *
 * Writing (perf's record__pushfn / zstd_compress_stream_to_records): the
 * input is cut into pieces of at most ZCOMP_MMAP_LEN bytes, and pieces into
 * slices of at most ZCOMP_FLUSH_SIZE bytes; each slice goes through
 * ZSTD_compressStream() and ZSTD_flushStream() until the flush is complete.
 * The output is cut into COMPRESSED records {type 81, misc 0, size 8 +
 * payload} of at most ZCOMP_PAYLOAD_MAX payload bytes, each handed to the
 * caller's emit function; a piece's last record goes out even if not full.
 * The frame is never ended: the file holds one endless stream that only one
 * decompressor, fed every record in file order, can read.
 *
 * What perf 6.1's reader (session.c, perf_session__process_compressed_event,
 * and zstd.c) needs, and why the pieces and slices:
 *  - it decompresses each record with one call into a buffer of
 *    HEADER_COMPRESSED.mmap_len bytes (after the partial perf record left
 *    over from the record before): a record never holds output of two
 *    pieces, so it decompresses to at most ZCOMP_MMAP_LEN bytes;
 *  - a record that decompresses to nothing is an error ("Couldn't
 *    decompress data"), and zstd decodes a compressed block only once it
 *    has all of it: a flush ends a block, so no block is longer than a
 *    slice's worst case (the slice stored raw: 3-byte block headers, the
 *    frame header), which is shorter than a record, so every record holds
 *    the end of a block and gives some output. Perf's own writer does not
 *    ensure this, and fails on barely compressible data.
 * Perf records may be cut anywhere between two COMPRESSED records: perf's
 * reader keeps the tail (decomp_last), and so does ours.
 *
 * Reading: zdecomp__feed() decompresses one record's payload and appends to
 * a pending buffer; zdecomp__pending() shows the whole records at its front,
 * a trailing partial record waits for the next feed.
 *
 * Errors: zstd errors are -EIO, allocation failures -ENOMEM, an emit error is
 * passed on. Any error is sticky: bytes the stream has taken in are part of
 * its history, so after a lost record the stream cannot go on (the caller
 * cuts the file at the last whole record and stops compressing).
 *
 * Limits: the zstd window is at most 1 << ZSTD_WINDOW_LOG_MAX (8 MiB):
 * levels 20 to 22 are held to it (zstd would take 32 to 128 MiB, as perf's
 * files at those levels do), level 1 uses 512 KiB. A frame that asks for
 * more is refused (-EOVERFLOW) before anything is allocated for it, so a
 * reader's memory does not depend on what a file claims. A corrupt stream
 * could decompress to any size: one feed stops at ZDECOMP_FEED_MAX bytes
 * (-EFBIG).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "precord/compress.h"
#include "precord/util.h"

#define HDR_SIZE	sizeof(struct perf_event_header)

struct zcomp {
	ZSTD_CStream	*cs;
	int		level;
	int		error;		/* first -errno; every later call returns it */
	u64		bytes_in;
	u64		bytes_out;
	unsigned char	*rec;		/* one COMPRESSED record being filled */
};

struct zdecomp {
	ZSTD_DStream	*ds;
	int		error;
	unsigned char	*buf;
	size_t		size;		/* allocated */
	size_t		head;		/* first pending byte */
	size_t		whole;		/* end of the whole records from head */
	size_t		tail;		/* end of the decompressed bytes */
	u64		bytes_in;
	u64		bytes_out;
};

/* --- compression ------------------------------------------------------- */

struct zcomp *zcomp__new(int level)
{
	struct zcomp *z;

	if (level < ZCOMP_LEVEL_MIN || level > ZCOMP_LEVEL_MAX) {
		errno = EINVAL;
		return NULL;
	}
	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->level = level;
	z->rec = malloc(HDR_SIZE + ZCOMP_PAYLOAD_MAX);
	if (!z->rec)
		goto out_free_z;
	z->cs = ZSTD_createCStream();
	if (!z->cs)
		goto out_free_rec;
	if (ZSTD_isError(ZSTD_initCStream(z->cs, level)))
		goto out_free_cs;
	/* Levels up to 19 stay within the window already (stream of unknown size). */
	if (level > 19 &&
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cs, ZSTD_c_windowLog, ZSTD_WINDOW_LOG_MAX)))
		goto out_free_cs;
	return z;

out_free_cs:
	ZSTD_freeCStream(z->cs);
out_free_rec:
	free(z->rec);
out_free_z:
	free(z);
	errno = ENOMEM;
	return NULL;
}

void zcomp__delete(struct zcomp *z)
{
	if (!z)
		return;
	ZSTD_freeCStream(z->cs);
	free(z->rec);
	free(z);
}

static int zcomp__fail(struct zcomp *z, int err)
{
	if (!z->error)
		z->error = err;
	return z->error;
}

/* Send out the record whose payload out holds (nothing when it is empty). */
static int zcomp__emit(struct zcomp *z, const ZSTD_outBuffer *out,
		       zcomp_emit_fn emit, void *ctx)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_COMPRESSED,
		.misc = 0,
		.size = (u16)(HDR_SIZE + out->pos),
	};
	int err;

	if (!out->pos)
		return 0;
	memcpy(z->rec, &h, sizeof(h));
	err = emit(ctx, z->rec, h.size);
	if (err)
		return err;
	z->bytes_out += h.size;
	return 0;
}

/*
 * Compress and flush one slice (at most ZCOMP_FLUSH_SIZE bytes) into the
 * record being filled, emitting it whenever it is full.
 */
static int zcomp__slice(struct zcomp *z, ZSTD_outBuffer *out, const void *data,
			size_t size, zcomp_emit_fn emit, void *ctx)
{
	ZSTD_inBuffer in = { data, size, 0 };
	size_t left = 1, r;
	int err;

	while (in.pos < in.size || left) {
		if (in.pos < in.size) {
			r = ZSTD_compressStream(z->cs, out, &in);
			if (ZSTD_isError(r))
				return -EIO;
		}
		if (in.pos == in.size) {
			left = ZSTD_flushStream(z->cs, out);
			if (ZSTD_isError(left))
				return -EIO;
		}
		if (out->pos == out->size) {
			err = zcomp__emit(z, out, emit, ctx);
			if (err)
				return err;
			out->pos = 0;
		}
	}
	return 0;
}

/*
 * One piece (at most ZCOMP_MMAP_LEN bytes): slices, then the last record
 * even if not full, so no record spans two pieces.
 */
static int zcomp__piece(struct zcomp *z, const unsigned char *data, size_t size,
			zcomp_emit_fn emit, void *ctx)
{
	ZSTD_outBuffer out = { z->rec + HDR_SIZE, ZCOMP_PAYLOAD_MAX, 0 };
	size_t off, n;
	int err;

	for (off = 0; off < size; off += n) {
		n = size - off < ZCOMP_FLUSH_SIZE ? size - off : ZCOMP_FLUSH_SIZE;
		err = zcomp__slice(z, &out, data + off, n, emit, ctx);
		if (err)
			return err;
	}
	return zcomp__emit(z, &out, emit, ctx);
}

int zcomp__compress(struct zcomp *z, const void *data, size_t size,
		    zcomp_emit_fn emit, void *ctx)
{
	const unsigned char *p = data;
	int err;

	if (z->error)
		return z->error;
	while (size) {
		size_t n = size < ZCOMP_MMAP_LEN ? size : ZCOMP_MMAP_LEN;

		err = zcomp__piece(z, p, n, emit, ctx);
		if (err)
			return zcomp__fail(z, err);
		z->bytes_in += n;
		p += n;
		size -= n;
	}
	return 0;
}

u64 zcomp__bytes_in(const struct zcomp *z)
{
	return z->bytes_in;
}

u64 zcomp__bytes_out(const struct zcomp *z)
{
	return z->bytes_out;
}

u32 zcomp__ratio(u64 bytes_in, u64 bytes_out)
{
	if (!bytes_out)
		return 0;
	return (u32)((bytes_in + bytes_out / 2) / bytes_out);
}

/* --- decompression ----------------------------------------------------- */

struct zdecomp *zdecomp__new(void)
{
	struct zdecomp *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->ds = ZSTD_createDStream();
	if (!z->ds)
		goto out_free_z;
	if (ZSTD_isError(ZSTD_initDStream(z->ds)) ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX)))
		goto out_free_ds;
	return z;

out_free_ds:
	ZSTD_freeDStream(z->ds);
out_free_z:
	free(z);
	errno = ENOMEM;
	return NULL;
}

void zdecomp__delete(struct zdecomp *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->buf);
	free(z);
}

static int zdecomp__fail(struct zdecomp *z, int err)
{
	if (!z->error)
		z->error = err;
	return z->error;
}

/* Room for at least `want` more bytes after tail; moves pending to the front. */
static int zdecomp__reserve(struct zdecomp *z, size_t want)
{
	size_t pend = z->tail - z->head;
	unsigned char *p;

	if (z->head) {
		memmove(z->buf, z->buf + z->head, pend);
		z->whole -= z->head;
		z->tail = pend;
		z->head = 0;
	}
	if (z->size - z->tail >= want)
		return 0;
	p = buf__grow(z->buf, &z->size, z->tail + want, ZDECOMP_BUF_SIZE);
	if (!p)
		return -ENOMEM;
	z->buf = p;
	return 0;
}

/* Move whole past every complete record after it; -EIO on a bad header. */
static int zdecomp__scan(struct zdecomp *z)
{
	struct perf_event_header h;

	while (z->tail - z->whole >= HDR_SIZE) {
		memcpy(&h, z->buf + z->whole, sizeof(h));
		if (h.size < HDR_SIZE)
			return -EIO;
		if (h.size > z->tail - z->whole)
			break;
		z->whole += h.size;
	}
	return 0;
}

static int zdecomp__inflate(struct zdecomp *z, const void *src, size_t len)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t produced = 0, r;
	int err;

	for (;;) {
		size_t in_before = in.pos;
		ZSTD_outBuffer out;

		err = zdecomp__reserve(z, ZSTD_DStreamOutSize());
		if (err)
			return err;
		out = (ZSTD_outBuffer){ z->buf + z->tail, z->size - z->tail, 0 };
		r = ZSTD_decompressStream(z->ds, &out, &in);
		if (ZSTD_isError(r))
			return ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge ?
			       -EOVERFLOW : -EIO;
		z->tail += out.pos;
		z->bytes_out += out.pos;
		produced += out.pos;
		if (produced > ZDECOMP_FEED_MAX)
			return -EFBIG;
		/* Done when the input is used up and the output was not full. */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
		if (!out.pos && in.pos == in_before)
			return -EIO;	/* no progress: cannot happen on a sane stream */
	}
}

const char *zdecomp__strerror(int err)
{
	if (err == -EOVERFLOW)
		return "its zstd frame asks for a window over 8 MiB (compressed above level 19 "
		       "by another tool; perf itself reads it)";
	if (err == -EIO)
		return "not a valid zstd stream";
	return strerror(-err);
}

int zdecomp__feed(struct zdecomp *z, const void *record, size_t size)
{
	struct perf_event_header h;
	int err;

	if (z->error)
		return z->error;
	if (size < HDR_SIZE)
		return zdecomp__fail(z, -EINVAL);
	memcpy(&h, record, sizeof(h));
	if (h.type != PERF_RECORD_COMPRESSED || h.size != size)
		return zdecomp__fail(z, -EINVAL);
	err = zdecomp__inflate(z, (const unsigned char *)record + HDR_SIZE,
			       size - HDR_SIZE);
	if (!err)
		err = zdecomp__scan(z);
	if (err)
		return zdecomp__fail(z, err);
	z->bytes_in += size;
	return 0;
}

const void *zdecomp__pending(struct zdecomp *z, size_t *len)
{
	*len = z->whole - z->head;
	return z->buf ? z->buf + z->head : NULL;
}

void zdecomp__consume(struct zdecomp *z, size_t len)
{
	if (len > z->whole - z->head)
		len = z->whole - z->head;
	z->head += len;
}

size_t zdecomp__partial(const struct zdecomp *z)
{
	return z->tail - z->whole;
}

u64 zdecomp__bytes_in(const struct zdecomp *z)
{
	return z->bytes_in;
}

u64 zdecomp__bytes_out(const struct zdecomp *z)
{
	return z->bytes_out;
}
