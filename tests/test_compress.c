// SPDX-License-Identifier: GPL-2.0
/*
 * test_compress.c — zstd for perf.data: record streams (8 bytes to 64 KiB
 * records, random and compressible) through zcomp into COMPRESSED records
 * and back through zdecomp, byte for byte, with perf records cut across
 * COMPRESSED records; each COMPRESSED record also decompressed the way
 * perf 6.1's reader does it (one ZSTD_decompressStream() call into a buffer
 * of HEADER_COMPRESSED.mmap_len bytes, which must give some output);
 * level bounds, counters and ratio,
 * corrupt input, sticky errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <cmocka.h>

#include "precord/compress.h"

#define HDR	sizeof(struct perf_event_header)

/* A growable byte buffer: the record stream, or the "file" of COMPRESSED records. */
struct bytes {
	unsigned char	*p;
	size_t		len, size;
	size_t		nr;		/* records appended (emit) */
	size_t		max_rec;	/* largest record appended */
	int		fail_at;	/* emit fails with -ENOSPC at this record (0: never) */
};

static void bytes__reserve(struct bytes *b, size_t len)
{
	if (b->len + len > b->size) {
		b->size = (b->len + len) * 2;
		b->p = realloc(b->p, b->size);
		assert_non_null(b->p);
	}
}

static void bytes__add(struct bytes *b, const void *p, size_t len)
{
	bytes__reserve(b, len);
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

static int emit(void *ctx, const void *record, size_t size)
{
	struct bytes *b = ctx;
	struct perf_event_header h;

	if (b->fail_at && (int)b->nr + 1 == b->fail_at)
		return -ENOSPC;
	assert_true(size >= HDR);
	memcpy(&h, record, sizeof(h));
	assert_int_equal(h.type, PERF_RECORD_COMPRESSED);
	assert_int_equal(h.misc, 0);
	assert_int_equal(h.size, size);
	assert_true(size <= HDR + ZCOMP_PAYLOAD_MAX);
	assert_true(size <= 65535);
	bytes__add(b, record, size);
	b->nr++;
	if (size > b->max_rec)
		b->max_rec = size;
	return 0;
}

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random (stored raw), compressible (~9x), and mild (~1.5x: long compressed blocks). */
enum content { RANDOM, COMPRESSIBLE, MILD };

/* Record sizes: 8-byte multiples from 8 to 65528, many small, some huge. */
static size_t record_size(u64 *s)
{
	u64 r = rnd(s);

	switch (r % 8) {
	case 0:
		return 8;
	case 1:
		return 65528;
	case 2:
		return ((r >> 8) % 8192 + 1) * 8;
	default:
		return ((r >> 8) % 64 + 2) * 8;
	}
}

/* One perf-like record: header, then payload of the chosen kind. */
static void make_record(struct bytes *b, u64 *s, enum content kind, u64 i)
{
	size_t size = record_size(s), k;
	struct perf_event_header h = { .type = 9, .misc = (u16)(i & 3), .size = (u16)size };
	unsigned char *p;

	bytes__reserve(b, size);
	memcpy(b->p + b->len, &h, sizeof(h));
	p = b->p + b->len + HDR;
	for (k = 0; k < size - HDR; k++) {
		if (kind == RANDOM)
			p[k] = (unsigned char)rnd(s);
		else if (kind == MILD)
			p[k] = (unsigned char)(rnd(s) & 0x1f);
		else if (k % 16 == 5)	/* sample-like: an ip-ish byte varies */
			p[k] = (unsigned char)(rnd(s) & 0x3f);
		else	/* slowly changing fields, small deltas */
			p[k] = (unsigned char)((k % 24) < 8 ? i + k / 24 : k * 7 + (i & 15));
	}
	b->len += size;
}

static void make_stream(struct bytes *b, u64 seed, enum content kind, size_t total)
{
	u64 s = seed, i = 0;

	memset(b, 0, sizeof(*b));
	while (b->len < total)
		make_record(b, &s, kind, i++);
}

/*
 * Compress src, handing zcomp runs of whole records (like ringbuf__read())
 * of up to max_call bytes, sometimes more than ZCOMP_MMAP_LEN.
 */
static void compress_stream(struct zcomp *z, const struct bytes *src, struct bytes *out,
			    size_t max_call, u64 seed)
{
	size_t off = 0;
	u64 s = seed;

	while (off < src->len) {
		size_t want = rnd(&s) % max_call + 1, n = 0;
		struct perf_event_header h;

		while (off + n < src->len && n < want) {
			memcpy(&h, src->p + off + n, sizeof(h));
			n += h.size;
		}
		assert_int_equal(zcomp__compress(z, src->p + off, n, emit, out), 0);
		off += n;
	}
}

/* Walk the COMPRESSED records of file: h is each one's header. */
#define for_each_crec(file, off, h)					\
	for ((off) = 0;							\
	     (off) < (file)->len &&					\
	     (memcpy(&(h), (file)->p + (off), sizeof(h)), 1);		\
	     (off) += (h).size)

/*
 * Decompress file as perf 6.1 does: per record one ZSTD_decompressStream()
 * into ZCOMP_MMAP_LEN bytes, which must take all the input and give all the
 * output (perf's loop would otherwise misplace output or spin).
 * Returns how many records left a perf record cut in two.
 */
static size_t perf61_check(const struct bytes *file, const struct bytes *src)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	unsigned char *dst = malloc(ZCOMP_MMAP_LEN);
	struct bytes out = { 0 };
	struct perf_event_header h;
	size_t off, cut = 0, walk = 0;

	assert_non_null(ds);
	assert_non_null(dst);
	assert_false(ZSTD_isError(ZSTD_initDStream(ds)));
	for_each_crec(file, off, h) {
		ZSTD_inBuffer in = { file->p + off + HDR, h.size - HDR, 0 };
		ZSTD_outBuffer o = { dst, ZCOMP_MMAP_LEN, 0 };

		assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &o, &in)));
		assert_int_equal(in.pos, in.size);
		/* perf: "Couldn't decompress data" when a record gives nothing. */
		assert_true(o.pos > 0);
		bytes__add(&out, dst, o.pos);
		/* Nothing held back for later: the record's output is all there. */
		o = (ZSTD_outBuffer){ dst, ZCOMP_MMAP_LEN, 0 };
		in.pos = in.size;
		assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &o, &in)));
		assert_int_equal(o.pos, 0);
		/* Does the decompressed data end inside a perf record? */
		while (walk + HDR <= out.len) {
			struct perf_event_header r;

			memcpy(&r, out.p + walk, sizeof(r));
			if (walk + r.size > out.len)
				break;
			walk += r.size;
		}
		if (walk != out.len)
			cut++;
	}
	assert_int_equal(out.len, src->len);
	assert_memory_equal(out.p, src->p, src->len);
	free(out.p);
	free(dst);
	ZSTD_freeDStream(ds);
	return cut;
}

/* Decompress file with zdecomp, consuming in odd amounts; must equal src. */
static void zdecomp_check(const struct bytes *file, const struct bytes *src)
{
	struct zdecomp *d = zdecomp__new();
	struct perf_event_header h;
	size_t off, got = 0;

	assert_non_null(d);
	for_each_crec(file, off, h) {
		const unsigned char *p;
		size_t len;

		assert_int_equal(zdecomp__feed(d, file->p + off, h.size), 0);
		p = zdecomp__pending(d, &len);
		assert_true(got + len <= src->len);
		if (len) {
			struct perf_event_header last;

			assert_memory_equal(p, src->p + got, len);
			/* Only whole records are pending. */
			memcpy(&last, p, sizeof(last));
			assert_true(last.size <= len);
		}
		/* Consume the first record only, then the rest. */
		if (len) {
			struct perf_event_header first;

			memcpy(&first, p, sizeof(first));
			zdecomp__consume(d, first.size);
			got += first.size;
			p = zdecomp__pending(d, &len);
			if (len)
				assert_memory_equal(p, src->p + got, len);
			zdecomp__consume(d, len + 100);	/* clamped */
			got += len;
		}
		assert_int_equal(got + zdecomp__partial(d), zdecomp__bytes_out(d));
	}
	assert_int_equal(got, src->len);
	assert_int_equal(zdecomp__partial(d), 0);
	assert_int_equal(zdecomp__bytes_in(d), file->len);
	assert_int_equal(zdecomp__bytes_out(d), src->len);
	zdecomp__delete(d);
}

static void round_trip(enum content kind, int level, size_t total, size_t max_call,
		       u64 seed, bool expect_cut)
{
	struct bytes src, file = { 0 };
	struct zcomp *z = zcomp__new(level);
	size_t cut;

	assert_non_null(z);
	make_stream(&src, seed, kind, total);
	compress_stream(z, &src, &file, max_call, seed * 3 + 1);
	assert_int_equal(zcomp__bytes_in(z), src.len);
	assert_int_equal(zcomp__bytes_out(z), file.len);
	if (kind == RANDOM)
		assert_true(file.len > src.len * 99 / 100);
	else if (kind == MILD)
		assert_true(file.len < src.len * 9 / 10);
	else
		assert_true(file.len * 4 < src.len);
	cut = perf61_check(&file, &src);
	zdecomp_check(&file, &src);
	print_message("%s level %d: %zu -> %zu bytes in %zu records (largest %zu), "
		      "%zu end inside a perf record\n",
		      kind == RANDOM ? "random" : kind == MILD ? "mild" : "compressible",
		      level, src.len, file.len, file.nr, file.max_rec, cut);
	/* Records are cut across COMPRESSED records, and readers cope. */
	if (expect_cut)
		assert_true(cut > 0);
	zcomp__delete(z);
	free(src.p);
	free(file.p);
}

static void test_round_trip_random(void **state)
{
	/* Incompressible: full 64 KiB records, cuts everywhere. */
	round_trip(RANDOM, 1, 6 << 20, 3 << 20, 1, true);
	round_trip(RANDOM, 3, 1 << 20, 40000, 2, false);
}

/* Perf's own -z fails on such data: blocks longer than a record. */
static void test_round_trip_mild(void **state)
{
	round_trip(MILD, 1, 4 << 20, 3 << 20, 6, true);
	round_trip(MILD, 5, 1 << 20, 100000, 7, false);
}

static void test_round_trip_compressible(void **state)
{
	/* Calls far over ZCOMP_MMAP_LEN: pieces, each flushed on its own. */
	round_trip(COMPRESSIBLE, 1, 16 << 20, 4 << 20, 3, true);
	/* Calls of whole records that fit a record: nothing is cut. */
	round_trip(COMPRESSIBLE, 1, 2 << 20, 70000, 4, false);
	round_trip(COMPRESSIBLE, 9, 3 << 20, 2 << 20, 5, true);
}

/* Many tiny calls: each a record or two, each its own flush. */
static void test_small_calls(void **state)
{
	struct bytes src, file = { 0 };
	struct zcomp *z = zcomp__new(1);
	u64 s = 7;
	size_t i;

	assert_non_null(z);
	memset(&src, 0, sizeof(src));
	for (i = 0; i < 3000; i++) {
		struct perf_event_header h = { .type = 9, .size = (u16)(8 + 8 * (rnd(&s) % 6)) };
		u64 v[5] = { i, i * 3, 77, i >> 2, 5 };

		bytes__add(&src, &h, sizeof(h));
		bytes__add(&src, v, h.size - HDR);
	}
	for (i = 0; i < src.len; ) {
		struct perf_event_header h;

		memcpy(&h, src.p + i, sizeof(h));
		assert_int_equal(zcomp__compress(z, src.p + i, h.size, emit, &file), 0);
		i += h.size;
	}
	assert_int_equal(zcomp__compress(z, src.p, 0, emit, &file), 0);	/* nothing */
	assert_int_equal(file.nr, 3000);
	perf61_check(&file, &src);
	zdecomp_check(&file, &src);
	zcomp__delete(z);
	free(src.p);
	free(file.p);
}

static void test_levels(void **state)
{
	static const int bad[] = { 0, -1, 23, 100 };
	struct bytes src, f1 = { 0 }, f19 = { 0 };
	struct zcomp *z;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(zcomp__new(bad[i]));
		assert_int_equal(errno, EINVAL);
	}
	make_stream(&src, 11, COMPRESSIBLE, 512 << 10);
	z = zcomp__new(ZCOMP_LEVEL_MIN);
	assert_non_null(z);
	compress_stream(z, &src, &f1, 1 << 20, 1);
	zcomp__delete(z);
	z = zcomp__new(19);
	assert_non_null(z);
	compress_stream(z, &src, &f19, 1 << 20, 1);
	zcomp__delete(z);
	/* The level is used: a higher level gives a smaller stream. */
	assert_true(f19.len < f1.len);
	perf61_check(&f19, &src);
	zdecomp_check(&f19, &src);
	zcomp__delete(NULL);
	zdecomp__delete(NULL);
	free(src.p);
	free(f1.p);
	free(f19.p);
}

/* Level 22 (its window held to 8 MiB): works, and reads back within the readers' window. */
static void test_level_max(void **state)
{
	struct bytes src, file = { 0 };
	struct zcomp *z = zcomp__new(ZCOMP_LEVEL_MAX);

	assert_non_null(z);
	make_stream(&src, 12, COMPRESSIBLE, 64 << 10);
	compress_stream(z, &src, &file, 1 << 20, 1);
	zcomp__delete(z);
	zdecomp_check(&file, &src);
	free(src.p);
	free(file.p);
}

/*
 * A frame that asks for a 64 MiB window (another tool's level 21, or a
 * crafted file of a few hundred bytes) is refused before the window is
 * allocated, with a message that says why.
 */
static void test_window_limit(void **state)
{
	unsigned char src[4096], rec[HDR + 8192];
	struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct zdecomp *d;
	ZSTD_outBuffer out = { rec + HDR, sizeof(rec) - HDR, 0 };
	ZSTD_inBuffer in = { src, sizeof(src), 0 };
	size_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7);
	assert_non_null(c);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 26)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)));
	/* Size unknown when the frame begins (as in a recorder): the window stays 64 MiB. */
	in.size = 100;
	assert_false(ZSTD_isError(ZSTD_compressStream2(c, &out, &in, ZSTD_e_continue)));
	in.size = sizeof(src);
	assert_int_equal(ZSTD_compressStream2(c, &out, &in, ZSTD_e_end), 0);
	ZSTD_freeCCtx(c);
	h.size = (u16)(HDR + out.pos);
	memcpy(rec, &h, sizeof(h));

	d = zdecomp__new();
	assert_non_null(d);
	assert_int_equal(zdecomp__feed(d, rec, h.size), -EOVERFLOW);
	assert_non_null(strstr(zdecomp__strerror(-EOVERFLOW), "window over 8 MiB"));
	zdecomp__delete(d);
}

static void test_ratio(void **state)
{
	struct bytes src, file = { 0 };
	struct zcomp *z = zcomp__new(1);
	u32 r;

	assert_int_equal(zcomp__ratio(0, 0), 0);
	assert_int_equal(zcomp__ratio(100, 0), 0);
	assert_int_equal(zcomp__ratio(10, 4), 3);	/* 2.5 rounds up, like perf's + 0.5 */
	assert_int_equal(zcomp__ratio(9, 4), 2);	/* 2.25 */
	assert_int_equal(zcomp__ratio(11, 4), 3);	/* 2.75 */
	assert_int_equal(zcomp__ratio(3, 10), 0);
	assert_int_equal(zcomp__ratio(5, 10), 1);
	assert_non_null(z);
	assert_int_equal(zcomp__bytes_in(z), 0);
	assert_int_equal(zcomp__bytes_out(z), 0);
	make_stream(&src, 13, COMPRESSIBLE, 4 << 20);
	compress_stream(z, &src, &file, 1 << 20, 2);
	r = zcomp__ratio(zcomp__bytes_in(z), zcomp__bytes_out(z));
	assert_int_equal(zcomp__bytes_in(z), src.len);
	assert_int_equal(zcomp__bytes_out(z), file.len);
	assert_true(r >= 4);
	assert_true(r == (u32)((double)src.len / (double)file.len + 0.5));
	zcomp__delete(z);
	free(src.p);
	free(file.p);
}

/* zcomp output of src, for the corruption tests. */
static void compressed_file(struct bytes *src, struct bytes *file, size_t total)
{
	struct zcomp *z = zcomp__new(1);

	assert_non_null(z);
	memset(file, 0, sizeof(*file));
	make_stream(src, 21, COMPRESSIBLE, total);
	compress_stream(z, src, file, 200000, 3);
	zcomp__delete(z);
}

static void test_corrupt(void **state)
{
	struct bytes src, file;
	struct zdecomp *d;
	struct perf_event_header h, h2;
	unsigned char *rec;
	size_t len;

	compressed_file(&src, &file, 1 << 20);
	rec = malloc(65536);
	assert_non_null(rec);

	/* A bad frame magic in the first record. */
	memcpy(&h, file.p, sizeof(h));
	memcpy(rec, file.p, h.size);
	memset(rec + HDR, 0xff, 4);
	d = zdecomp__new();
	assert_non_null(d);
	assert_int_equal(zdecomp__feed(d, rec, h.size), -EIO);
	assert_int_equal(zdecomp__feed(d, file.p, h.size), -EIO);	/* sticky */
	zdecomp__pending(d, &len);
	assert_int_equal(len, 0);
	zdecomp__delete(d);

	/*
	 * A reserved block type in the record after the first: every call
	 * flushes, and the next call's output starts a record with a block
	 * header (bits 1-2 of its first byte: the type).
	 */
	d = zdecomp__new();
	assert_non_null(d);
	assert_int_equal(zdecomp__feed(d, file.p, h.size), 0);
	memcpy(&h2, file.p + h.size, sizeof(h2));
	memcpy(rec, file.p + h.size, h2.size);
	rec[HDR] |= 0x06;
	assert_int_equal(zdecomp__feed(d, rec, h2.size), -EIO);
	zdecomp__delete(d);

	/* Not a COMPRESSED record, or a size that is not the header's. */
	d = zdecomp__new();
	assert_non_null(d);
	memcpy(rec, file.p, h.size);
	rec[0] = 9;
	assert_int_equal(zdecomp__feed(d, rec, h.size), -EINVAL);
	zdecomp__delete(d);
	d = zdecomp__new();
	assert_non_null(d);
	assert_int_equal(zdecomp__feed(d, file.p, h.size - 1), -EINVAL);
	zdecomp__delete(d);
	d = zdecomp__new();
	assert_non_null(d);
	assert_int_equal(zdecomp__feed(d, file.p, 4), -EINVAL);
	zdecomp__delete(d);

	free(rec);
	free(src.p);
	free(file.p);
}

/* A decompressed record header with size < 8 is a corrupt stream. */
static void test_bad_inner_header(void **state)
{
	unsigned char in[48] = { 0 };
	struct perf_event_header h = { .type = 9, .size = 16 }, bad = { .type = 9, .size = 4 };
	struct bytes file = { 0 };
	struct zcomp *z = zcomp__new(1);
	struct zdecomp *d = zdecomp__new();
	const void *p;
	size_t len;

	assert_non_null(z);
	assert_non_null(d);
	memcpy(in, &h, sizeof(h));
	memcpy(in + 16, &bad, sizeof(bad));
	assert_int_equal(zcomp__compress(z, in, sizeof(in), emit, &file), 0);
	assert_int_equal(file.nr, 1);
	assert_int_equal(zdecomp__feed(d, file.p, file.len), -EIO);
	p = zdecomp__pending(d, &len);
	(void)p;
	assert_true(len <= 16);
	zcomp__delete(z);
	zdecomp__delete(d);
	free(file.p);
}

/* An emit error stops the stream for good: what follows would not decode. */
static void test_emit_error_sticky(void **state)
{
	struct bytes src, file = { 0 };
	struct zcomp *z = zcomp__new(1);
	size_t nr;

	assert_non_null(z);
	make_stream(&src, 31, RANDOM, 1 << 20);
	file.fail_at = 3;
	assert_int_equal(zcomp__compress(z, src.p, src.len, emit, &file), -ENOSPC);
	nr = file.nr;
	assert_int_equal(nr, 2);
	file.fail_at = 0;
	assert_int_equal(zcomp__compress(z, src.p, 64, emit, &file), -ENOSPC);
	assert_int_equal(file.nr, nr);
	assert_int_equal(zcomp__bytes_out(z), file.len);
	zcomp__delete(z);
	free(src.p);
	free(file.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_round_trip_mild),
		cmocka_unit_test(test_round_trip_compressible),
		cmocka_unit_test(test_small_calls),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_level_max),
		cmocka_unit_test(test_window_limit),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_bad_inner_header),
		cmocka_unit_test(test_emit_error_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
