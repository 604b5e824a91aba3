/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compress.h — zstd for perf.data: records in, PERF_RECORD_COMPRESSED
 * records out (perf's -z), and back. A compressor is one zstd stream that
 * is flushed, never ended, as perf writes it: a file (or a data.N of a
 * directory) holds exactly one stream, read by one decompressor.
 */
#ifndef PRECORD_COMPRESS_H
#define PRECORD_COMPRESS_H

#include <stddef.h>
#include "precord/perf-file.h"

struct zcomp;
struct zdecomp;

#define ZCOMP_LEVEL_MIN		1
#define ZCOMP_LEVEL_MAX		22
/*
 * Payload bytes of one COMPRESSED record at most, perf's limit
 * (PERF_SAMPLE_MAX_SIZE - header - 1): a record is at most 65535 bytes.
 */
#define ZCOMP_PAYLOAD_MAX	(PERF_SAMPLE_MAX_SIZE - 8 - 1)
/*
 * A zcomp flushes its stream at least every ZCOMP_MMAP_LEN input bytes and
 * starts a new record after each flush, so no COMPRESSED record it writes
 * decompresses to more than this: the value for HEADER_COMPRESSED.mmap_len
 * (perf's reader decompresses a record into a buffer that size).
 */
#define ZCOMP_MMAP_LEN		(512 * 1024)
/*
 * ...and at least every ZCOMP_FLUSH_SIZE bytes, so that every zstd block is
 * shorter than a record and every record decompresses to something (perf
 * 6.1 fails on a record that gives no output).
 */
#define ZCOMP_FLUSH_SIZE	(63 * 1024)
/* zdecomp: first size of the pending buffer, and the most one feed may give. */
#define ZDECOMP_BUF_SIZE	(1024 * 1024)
/*
 * The largest zstd window, as a power of two (8 MiB): what zstd's levels 1
 * to 19 use on a stream of unknown size. The compressor keeps levels 20 to
 * 22 to it, and the readers refuse a frame asking for more (-EOVERFLOW), so
 * a small crafted file cannot make a reader allocate 128 MiB per input.
 */
#define ZSTD_WINDOW_LOG_MAX	23
#define ZDECOMP_FEED_MAX	(1024UL * 1024 * 1024)

/* Emit one complete PERF_RECORD_COMPRESSED record (header included). */
typedef int (*zcomp_emit_fn)(void *ctx, const void *record, size_t size);

/* level ZCOMP_LEVEL_MIN..MAX; NULL on error (errno EINVAL or ENOMEM). */
struct zcomp *zcomp__new(int level);
void zcomp__delete(struct zcomp *z);		/* accepts NULL */
/*
 * Compress [data, data+size) and flush the stream, emitting as many
 * COMPRESSED records (each at most 8 + ZCOMP_PAYLOAD_MAX bytes, not padded
 * to 8) as needed; size 0 emits nothing. The input need not end on a record
 * boundary (a reader keeps the partial record), though callers normally
 * pass whole records. Returns 0 or -errno (the emit's, -EIO from zstd);
 * errors are sticky, the stream cannot go on after a record was lost.
 */
int zcomp__compress(struct zcomp *z, const void *data, size_t size, zcomp_emit_fn emit, void *ctx);
/* Bytes taken in, and COMPRESSED bytes (headers included) emitted. */
u64 zcomp__bytes_in(const struct zcomp *z);
u64 zcomp__bytes_out(const struct zcomp *z);
/*
 * HEADER_COMPRESSED.ratio from such counters (summed over streams if
 * several): in / out rounded to nearest, as perf computes it; 0 if out is 0.
 */
u32 zcomp__ratio(u64 bytes_in, u64 bytes_out);

struct zdecomp *zdecomp__new(void);
void zdecomp__delete(struct zdecomp *z);	/* accepts NULL */
/*
 * Feed one COMPRESSED record (header included, size == header.size). The
 * decompressed bytes are appended to what is pending; whole records are then
 * available from zdecomp__pending(). Returns 0 or -EINVAL (not a COMPRESSED
 * record), -EIO (corrupt stream, or a decompressed record header with
 * size < 8), -EFBIG (one feed over ZDECOMP_FEED_MAX), -ENOMEM; sticky.
 * Pointers from zdecomp__pending() are invalid after a feed.
 */
int zdecomp__feed(struct zdecomp *z, const void *record, size_t size);
/* Whole records decompressed and not yet consumed: pointer and length. */
const void *zdecomp__pending(struct zdecomp *z, size_t *len);
/* What a zdecomp__feed() error means, for a reader's message. */
const char *zdecomp__strerror(int err);
/* Drop len bytes (at most what pending shows) from the front. */
void zdecomp__consume(struct zdecomp *z, size_t len);
/* Bytes of a partial record waiting for the next feed (0 at a clean end). */
size_t zdecomp__partial(const struct zdecomp *z);
/* COMPRESSED bytes fed (headers included), and bytes decompressed. */
u64 zdecomp__bytes_in(const struct zdecomp *z);
u64 zdecomp__bytes_out(const struct zdecomp *z);

#endif /* PRECORD_COMPRESS_H */
