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

/* Emit one complete PERF_RECORD_COMPRESSED record (header included). */
typedef int (*zcomp_emit_fn)(void *ctx, const void *record, size_t size);

struct zcomp *zcomp__new(int level);		/* level 1..22; NULL on error */
void zcomp__delete(struct zcomp *z);		/* accepts NULL */
/*
 * Compress whole records [data, data+size) and flush the stream, emitting as
 * many COMPRESSED records (each at most PERF_SAMPLE_MAX_SIZE - 8 bytes) as
 * needed. Returns 0 or -errno (the emit's, or -EIO from zstd).
 */
int zcomp__compress(struct zcomp *z, const void *data, size_t size, zcomp_emit_fn emit, void *ctx);
u64 zcomp__bytes_in(const struct zcomp *z);
u64 zcomp__bytes_out(const struct zcomp *z);

struct zdecomp *zdecomp__new(void);
void zdecomp__delete(struct zdecomp *z);	/* accepts NULL */
/*
 * Feed one COMPRESSED record (header included). The decompressed bytes are
 * appended to what is pending; whole records are then available from
 * zdecomp__pending(). Returns 0 or -EIO (corrupt stream) / -ENOMEM.
 */
int zdecomp__feed(struct zdecomp *z, const void *record, size_t size);
/* Whole records decompressed and not yet consumed: pointer and length. */
const void *zdecomp__pending(struct zdecomp *z, size_t *len);
void zdecomp__consume(struct zdecomp *z, size_t len);

#endif /* PRECORD_COMPRESS_H */
