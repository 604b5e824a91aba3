// SPDX-License-Identifier: GPL-2.0
/*
 * test_ringbuf.c — the ring-buffer reader, on rings built by hand in
 * ordinary memory (ringbuf__init_mem, the test playing the kernel), and once
 * on a real kernel ring (a cpu-clock event sampling this thread).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/ringbuf.h"

#define MAX_CALLS	16

/* --- a fake kernel ------------------------------------------------------ */

struct fake {
	unsigned char			*mem;
	struct perf_event_mmap_page	*pc;
	unsigned char			*data;
	size_t				size;
	struct ringbuf			rb;
	unsigned char			*stream;	/* everything put, in order */
	size_t				stream_len;
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* A ring of `size` data bytes whose head and tail both start at `start`. */
static struct fake *fake__new(size_t size, u64 start)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = calloc(1, page_size() + size);
	assert_non_null(f->mem);
	f->pc = (struct perf_event_mmap_page *)f->mem;
	f->pc->data_offset = page_size();
	f->pc->data_size = size;
	f->pc->data_head = start;
	f->pc->data_tail = start;
	f->data = f->mem + page_size();
	f->size = size;
	f->stream = malloc(1 << 20);
	assert_non_null(f->stream);
	assert_int_equal(ringbuf__init_mem(&f->rb, f->mem, size), 0);
	return f;
}

static void fake__delete(struct fake *f)
{
	ringbuf__munmap(&f->rb);
	free(f->stream);
	free(f->mem);
	free(f);
}

/* Write bytes at the head, wrapping at the end, then publish the head. */
static void fake__put(struct fake *f, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	u64 head = f->pc->data_head;
	size_t i;

	for (i = 0; i < len; i++)
		f->data[(head + i) & (f->size - 1)] = p[i];
	memcpy(f->stream + f->stream_len, buf, len);
	f->stream_len += len;
	f->pc->data_head = head + len;
}

/* A record of `size` bytes: header, then bytes that depend on seed. */
static void make_record(unsigned char *buf, u32 type, u16 size, unsigned seed)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	size_t i;

	memcpy(buf, &h, sizeof(h));
	for (i = sizeof(h); i < size; i++)
		buf[i] = (unsigned char)(seed * 131 + i * 7 + 1);
}

static void fake__put_record(struct fake *f, u32 type, u16 size, unsigned seed)
{
	unsigned char buf[PERF_SAMPLE_MAX_SIZE];

	make_record(buf, type, size, seed);
	fake__put(f, buf, size);
}

/* PERF_RECORD_LOST with a sample_id trailer (tid + time): 40 bytes. */
static void fake__put_lost(struct fake *f, u64 id, u64 lost)
{
	unsigned char buf[40];
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 40 };
	u64 trailer[2] = { 0x1234, 0x5678 };

	memcpy(buf, &h, 8);
	memcpy(buf + 8, &id, 8);
	memcpy(buf + 16, &lost, 8);
	memcpy(buf + 24, trailer, 16);
	fake__put(f, buf, sizeof(buf));
}

/* --- a sink that keeps what it is given --------------------------------- */

struct sink {
	unsigned char	*buf;
	size_t		len;
	int		calls;
	size_t		call_len[MAX_CALLS];
	int		fail_at;	/* call number that fails (1-based), 0: none */
	int		fail_err;
};

static int sink__take(void *ctx, const void *data, size_t size)
{
	struct sink *s = ctx;

	if (s->fail_at && s->calls + 1 == s->fail_at)
		return s->fail_err;
	if (s->calls < MAX_CALLS)
		s->call_len[s->calls] = size;
	s->calls++;
	memcpy(s->buf + s->len, data, size);
	s->len += size;
	return 0;
}

static struct sink *sink__new(void)
{
	struct sink *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->buf = malloc(1 << 20);
	assert_non_null(s->buf);
	return s;
}

static void sink__delete(struct sink *s)
{
	free(s->buf);
	free(s);
}

/* Every sink call must hold whole records: walk them. */
static void assert_whole_records(const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		struct perf_event_header h;

		assert_true(len - off >= sizeof(h));
		memcpy(&h, p + off, sizeof(h));
		assert_true(h.size >= sizeof(h));
		off += h.size;
	}
	assert_int_equal(off, len);
}

static void assert_sink_calls_whole(const struct sink *s)
{
	size_t off = 0;
	int i;

	for (i = 0; i < s->calls && i < MAX_CALLS; i++) {
		assert_whole_records(s->buf + off, s->call_len[i]);
		off += s->call_len[i];
	}
}

/* The same, for the calls made since the sink held `from` bytes. */
static void assert_sink_calls_whole_from(const struct sink *s, size_t from)
{
	size_t off = from;
	int i;

	for (i = 0; i < s->calls && i < MAX_CALLS; i++) {
		assert_whole_records(s->buf + off, s->call_len[i]);
		off += s->call_len[i];
	}
	if (s->calls <= MAX_CALLS)
		assert_int_equal(off, s->len);
}

/* --- tests -------------------------------------------------------------- */

static void test_empty(void **state)
{
	struct fake *f = fake__new(4096, 0);
	struct sink *s = sink__new();

	assert_int_equal(ringbuf__pending(&f->rb), 0);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 0);
	assert_int_equal(s->calls, 0);
	assert_int_equal(f->pc->data_tail, 0);
	assert_int_equal(f->rb.bytes, 0);
	sink__delete(s);
	fake__delete(f);
}

static void test_few_records(void **state)
{
	struct fake *f = fake__new(4096, 0);
	struct sink *s = sink__new();

	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 1);
	fake__put_record(f, PERF_RECORD_MMAP2, 120, 2);
	fake__put_record(f, PERF_RECORD_SAMPLE, 64, 3);
	assert_int_equal(ringbuf__pending(&f->rb), 216);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 216);
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->len, 216);
	assert_memory_equal(s->buf, f->stream, 216);
	assert_int_equal(f->pc->data_tail, 216);
	assert_int_equal(ringbuf__pending(&f->rb), 0);
	assert_int_equal(f->rb.nr_samples, 2);
	assert_int_equal(f->rb.nr_lost_records, 0);
	assert_int_equal(f->rb.bytes, 216);
	/* Nothing new: nothing read, the tail stays. */
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 0);
	assert_int_equal(s->calls, 1);
	assert_int_equal(f->pc->data_tail, 216);
	sink__delete(s);
	fake__delete(f);
}

static void test_fill_to_end(void **state)
{
	struct fake *f = fake__new(1024, 0);
	struct sink *s = sink__new();
	int i;

	for (i = 0; i < 16; i++)	/* 16 x 64 = the whole data area */
		fake__put_record(f, PERF_RECORD_SAMPLE, 64, i);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 1024);
	assert_int_equal(s->calls, 1);
	assert_memory_equal(s->buf, f->stream, 1024);
	assert_int_equal(f->pc->data_tail, 1024);

	/* The next records start again at the beginning of the area. */
	fake__put_record(f, PERF_RECORD_SAMPLE, 48, 100);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 48);
	assert_int_equal(s->calls, 2);
	assert_memory_equal(s->buf, f->stream, 1072);
	assert_int_equal(f->rb.nr_samples, 17);
	assert_int_equal(f->pc->data_tail, 1072);
	sink__delete(s);
	fake__delete(f);
}

/*
 * Many passes over a ring whose counters start at `start`: records of
 * varying sizes, so they end up straddling the end at varied points; the
 * sink must see the exact stream, in whole records.
 */
static void wrap_passes(u64 start)
{
	struct fake *f = fake__new(512, start);
	struct sink *s = sink__new();
	unsigned seed = 0;
	int pass;

	for (pass = 0; pass < 200; pass++) {
		size_t put = 0;
		ssize_t n;

		s->calls = 0;
		while (put < 400) {
			u16 size = (u16)(8 + 8 * ((seed * 7) % 13));

			if (put + size > 512)
				break;
			fake__put_record(f, PERF_RECORD_SAMPLE, size, seed++);
			put += size;
		}
		n = ringbuf__read(&f->rb, sink__take, s);
		assert_int_equal(n, put);
		assert_true(s->calls >= 1 && s->calls <= 3);
		assert_int_equal(f->pc->data_tail, f->pc->data_head);
	}
	assert_int_equal(s->len, f->stream_len);
	assert_memory_equal(s->buf, f->stream, s->len);
	assert_whole_records(s->buf, s->len);
	assert_int_equal(f->rb.nr_samples, seed);
	assert_int_equal(f->rb.bytes, f->stream_len);
	sink__delete(s);
	fake__delete(f);
}

static void test_wrap_far(void **state)
{
	wrap_passes(1000003ULL * 512 + 200);	/* counters far past the size */
}

static void test_wrap_u64(void **state)
{
	/* The counters themselves wrap through 2^64 during the passes. */
	wrap_passes(UINT64_MAX - 20000 + 1);
}

/*
 * A record crossing the end at every split point: `split` bytes before the
 * end, the rest at the start (split < 8: the header itself is cut). A
 * record before and one after it check the runs around the bounce.
 */
static void split_at(u16 size, size_t split, u64 base)
{
	const size_t ring = 256;
	struct fake *f;
	struct sink *s = sink__new();
	u64 start = base + ring - split - 24;

	f = fake__new(ring, start);
	fake__put_record(f, PERF_RECORD_COMM, 24, 1);
	fake__put_record(f, PERF_RECORD_SAMPLE, size, (unsigned)split);
	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 3);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 24 + size + 32);
	assert_int_equal(s->calls, 3);
	assert_int_equal(s->call_len[0], 24);
	assert_int_equal(s->call_len[1], size);
	assert_int_equal(s->call_len[2], 32);
	assert_memory_equal(s->buf, f->stream, f->stream_len);
	assert_int_equal(f->rb.nr_samples, 2);
	assert_int_equal(f->pc->data_tail, start + 24 + size + 32);
	sink__delete(s);
	fake__delete(f);
}

/* Every split point of every size, with the counters near zero and far past the ring. */
static void for_each_split(const u16 *sizes, size_t nr_sizes,
			   void (*check_at)(u16 size, size_t split, u64 base))
{
	size_t i, split;

	for (i = 0; i < nr_sizes; i++) {
		for (split = 1; split < sizes[i]; split++) {
			check_at(sizes[i], split, 0);
			check_at(sizes[i], split, 77ULL * 256);
		}
	}
}

static void test_split_every_offset(void **state)
{
	static const u16 sizes[] = { 8, 16, 40, 104, 200 };

	for_each_split(sizes, sizeof(sizes) / sizeof(sizes[0]), split_at);
}

static void test_max_record_split(void **state)
{
	/* A 65528-byte record (the largest 8-aligned) across the end. */
	struct fake *f = fake__new(1 << 17, (1 << 17) - 1000);
	struct sink *s = sink__new();

	fake__put_record(f, PERF_RECORD_SAMPLE, 65528, 9);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 65528);
	assert_int_equal(s->calls, 1);
	assert_memory_equal(s->buf, f->stream, 65528);
	sink__delete(s);
	fake__delete(f);
}

static void test_lost(void **state)
{
	struct fake *f = fake__new(4096, 0);
	struct sink *s = sink__new();

	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 1);
	fake__put_lost(f, 5, 7);
	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 2);
	fake__put_lost(f, 6, 1000);
	fake__put_lost(f, 6, 1ULL << 40);
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 64 + 3 * 40);
	assert_int_equal(f->rb.nr_samples, 2);
	assert_int_equal(f->rb.nr_lost_records, 3);
	assert_int_equal(f->rb.lost, 1007 + (1ULL << 40));
	sink__delete(s);
	fake__delete(f);
}

static void test_lost_split(void **state)
{
	const u64 lost = 0x0102030405060708ULL;
	size_t split;

	/* The id, the lost field and the header each cut at every byte. */
	for (split = 1; split < 40; split++) {
		struct fake *f = fake__new(256, 256 * 3 - split);
		struct sink *s = sink__new();

		fake__put_lost(f, 42, lost);
		assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 40);
		assert_int_equal(s->calls, 1);
		assert_memory_equal(s->buf, f->stream, 40);
		assert_int_equal(f->rb.nr_lost_records, 1);
		assert_int_equal(f->rb.lost, lost);
		assert_int_equal(f->rb.nr_samples, 0);
		sink__delete(s);
		fake__delete(f);
	}
}

static void test_sink_error_keeps_tail(void **state)
{
	struct fake *f = fake__new(1024, 5 * 1024 + 1024 - 64);
	struct sink *s = sink__new();
	u64 start = f->pc->data_tail;

	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 1);
	fake__put_record(f, PERF_RECORD_SAMPLE, 64, 2);	/* crosses the end */
	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 3);

	/* The first run refused: nothing consumed. */
	s->fail_at = 1;
	s->fail_err = -ENOSPC;
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -ENOSPC);
	assert_int_equal(f->pc->data_tail, start);
	assert_int_equal(f->rb.bytes, 0);
	assert_int_equal(f->rb.nr_samples, 0);
	assert_int_equal(ringbuf__pending(&f->rb), 128);

	/* The bounced record refused: the first run stays consumed. */
	s->fail_at = 2;
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -ENOSPC);
	assert_int_equal(f->pc->data_tail, start + 32);
	assert_int_equal(f->rb.bytes, 32);
	assert_int_equal(f->rb.nr_samples, 1);

	/* Then everything left, exactly once. */
	s->fail_at = 0;
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), 96);
	assert_int_equal(s->len, 128);
	assert_memory_equal(s->buf, f->stream, 128);
	assert_sink_calls_whole(s);
	assert_int_equal(f->rb.nr_samples, 3);
	assert_int_equal(f->pc->data_tail, start + 128);
	sink__delete(s);
	fake__delete(f);
}

/* A bad header after two good records: they are handed out, then -EIO. */
static void corrupt_case(u16 bad_size, u64 start)
{
	struct fake *f = fake__new(512, start);
	struct sink *s = sink__new();
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = bad_size };
	unsigned char junk[24] = { 0 };

	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 1);
	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 2);
	memcpy(junk, &h, sizeof(h));
	fake__put(f, junk, sizeof(junk));
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -EIO);
	assert_int_equal(s->len, 64);
	assert_memory_equal(s->buf, f->stream, 64);
	assert_int_equal(f->pc->data_tail, start + 64);
	/* And it stays corrupt: no progress, no loop. */
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -EIO);
	assert_int_equal(f->pc->data_tail, start + 64);
	sink__delete(s);
	fake__delete(f);
}

static void test_corrupt(void **state)
{
	corrupt_case(0, 0);		/* would loop forever if trusted */
	corrupt_case(4, 0);		/* smaller than a header */
	corrupt_case(200, 0);		/* past the head */
	corrupt_case(0, 512 - 70);	/* the bad header crosses the end */
	corrupt_case(200, 512 - 70);
}

static void test_corrupt_head(void **state)
{
	struct fake *f = fake__new(512, 0);
	struct sink *s = sink__new();

	/*
	 * Head further ahead than the ring holds, over valid-looking
	 * records: trusting it would hand out the first ones twice.
	 */
	for (int i = 0; i < 8; i++)
		fake__put_record(f, PERF_RECORD_SAMPLE, 64, i);
	f->pc->data_head = 512 + 64;
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -EIO);
	assert_int_equal(s->calls, 0);
	assert_int_equal(f->pc->data_tail, 0);
	/* Head inside a header (4 bytes of one). */
	f->pc->data_head = 0;
	fake__put_record(f, PERF_RECORD_SAMPLE, 16, 1);
	f->pc->data_head += 4;
	assert_int_equal(ringbuf__read(&f->rb, sink__take, s), -EIO);
	assert_int_equal(s->len, 16);
	assert_int_equal(f->pc->data_tail, 16);
	sink__delete(s);
	fake__delete(f);
}

static void test_init_mem_layout(void **state)
{
	size_t psz = page_size();
	unsigned char *mem = calloc(1, psz + 1024);
	struct perf_event_mmap_page *pc = (void *)mem;
	struct ringbuf rb;

	assert_non_null(mem);
	/* No data_offset/data_size (pre-4.1 kernel): data one page in. */
	assert_int_equal(ringbuf__init_mem(&rb, mem, 1024), 0);
	assert_ptr_equal(rb.data, mem + psz);
	assert_int_equal(rb.mask, 1023);
	ringbuf__munmap(&rb);
	/* data_offset/data_size set: they are used. */
	pc->data_offset = 2048;
	pc->data_size = 1024;
	assert_int_equal(ringbuf__init_mem(&rb, mem, 1024), 0);
	assert_ptr_equal(rb.data, mem + 2048);
	ringbuf__munmap(&rb);
	/* Disagreeing or not a power of two: refused. */
	assert_int_equal(ringbuf__init_mem(&rb, mem, 512), -EINVAL);
	pc->data_size = 0;
	assert_int_equal(ringbuf__init_mem(&rb, mem, 1000), -EINVAL);
	/* munmap of a ring never mapped, and twice. */
	memset(&rb, 0, sizeof(rb));
	ringbuf__munmap(&rb);
	ringbuf__munmap(&rb);
	ringbuf__munmap(NULL);
	assert_int_equal(ringbuf__mmap(&rb, -1, 3, (struct cpu){ 0 }), -EINVAL);
	free(mem);
}

/* --- a real kernel ring --------------------------------------------------- */

struct parse {
	u64 records, samples, lost_records, lost, bytes, unknown;
	u64 bad_sample_size;
};

/*
 * The records a sampling ring holds besides samples: LOST (adds its count
 * to *lost) and THROTTLE/UNTHROTTLE. False for any other type.
 */
static bool count_non_sample(const unsigned char *rec, u64 *lost_records, u64 *lost)
{
	struct perf_event_header h;
	u64 n;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_LOST:
		memcpy(&n, rec + 16, sizeof(n));
		(*lost_records)++;
		*lost += n;
		return true;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return true;
	default:
		return false;
	}
}

static int sink__parse(void *ctx, const void *data, size_t size)
{
	struct parse *p = ctx;
	const unsigned char *b = data;
	size_t off = 0;

	while (off + 8 <= size) {
		struct perf_event_header h;

		memcpy(&h, b + off, sizeof(h));
		if (h.size < 8 || off + h.size > size)
			return -EBADMSG;
		p->records++;
		if (h.type == PERF_RECORD_SAMPLE) {
			p->samples++;
			/* header + ip + pid/tid + time */
			if (h.size != 32)
				p->bad_sample_size++;
		} else if (!count_non_sample(b + off, &p->lost_records, &p->lost)) {
			p->unknown++;
		}
		off += h.size;
	}
	if (off != size)
		return -EBADMSG;
	p->bytes += size;
	return 0;
}

static double thread_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Burn `ms` of this thread's CPU time (cpu-clock only ticks while we run). */
static void spin_ms(double ms)
{
	double end = thread_cpu_ms() + ms;
	volatile u64 x = 0;

	while (thread_cpu_ms() < end) {
		for (int i = 0; i < 10000; i++)
			x += (u64)i;
	}
}

/* Spin until the ring holds at least `bytes`, or `cap_ms` of CPU. */
static bool spin_until_pending(const struct ringbuf *rb, size_t bytes,
			       double cap_ms)
{
	double end = thread_cpu_ms() + cap_ms;

	while (ringbuf__pending(rb) < bytes) {
		if (thread_cpu_ms() > end)
			return false;
		spin_ms(0.2);
	}
	return true;
}

static void test_real_ring(void **state)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.size		= sizeof(attr),
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.sample_period	= 20000,	/* ns: 50 kHz */
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.disabled	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
		.sample_id_all	= 1,
	};
	struct parse p = { 0 };
	struct ringbuf rb;
	ssize_t n;
	u64 total = 0;
	bool full;
	int fd, i;

	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == ENOSYS ||
		       errno == ENOENT || errno == EOPNOTSUPP)) {
		print_message("perf_event_open: %s; skipped\n", strerror(errno));
		skip();
	}
	assert_true(fd >= 0);
	rb.idx = 7;
	/* 2 data pages: small, so that it fills, wraps and loses records. */
	assert_int_equal(ringbuf__mmap(&rb, fd, 2, (struct cpu){ -1 }), 0);
	assert_int_equal(rb.idx, 7);
	assert_ptr_equal(rb.data, (unsigned char *)rb.base + page_size());
	assert_int_equal(rb.mask, 2 * page_size() - 1);
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* Steady reading: the ring wraps many times. */
	for (i = 0; i < 40; i++) {
		spin_ms(1);
		n = ringbuf__read(&rb, sink__parse, &p);
		assert_true(n >= 0);
		total += (u64)n;
	}
	/*
	 * Let it fill and overflow, read, let it write again: the kernel
	 * then puts a LOST record (40 bytes here, so later records straddle
	 * the end). Throttled to a crawl (perf_event_max_sample_rate
	 * lowered by the kernel), it may not fill: then no LOST to expect.
	 */
	full = spin_until_pending(&rb, rb.mask + 1 - 64, 3000);
	spin_ms(5);
	for (i = 0; i < 20; i++) {
		n = ringbuf__read(&rb, sink__parse, &p);
		assert_true(n >= 0);
		total += (u64)n;
		spin_until_pending(&rb, 1024, 1000);
	}
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	n = ringbuf__read(&rb, sink__parse, &p);
	assert_true(n >= 0);
	total += (u64)n;

	assert_int_equal(ringbuf__pending(&rb), 0);
	assert_int_equal(((struct perf_event_mmap_page *)rb.base)->data_tail,
			 ((struct perf_event_mmap_page *)rb.base)->data_head);
	assert_true(p.samples > 0);
	assert_int_equal(p.unknown, 0);
	assert_int_equal(p.bad_sample_size, 0);
	assert_int_equal(p.bytes, total);
	assert_int_equal(rb.bytes, total);
	assert_int_equal(rb.nr_samples, p.samples);
	assert_int_equal(rb.nr_lost_records, p.lost_records);
	assert_int_equal(rb.lost, p.lost);
	if (full)
		assert_true(p.lost_records > 0 && p.lost > 0);
	else
		print_message("the ring never filled (throttled?): LOST not checked\n");
	print_message("real ring: %llu records, %llu samples, %llu LOST (%llu lost), %llu bytes\n",
		      (unsigned long long)p.records, (unsigned long long)p.samples,
		      (unsigned long long)p.lost_records, (unsigned long long)p.lost,
		      (unsigned long long)total);
	ringbuf__munmap(&rb);
	close(fd);
}

/* --- a fake kernel writing backward (write_backward = 1) ---------------- */

#define BW_MAX_RECORDS	40000
#define BW_LOG_SIZE	(8 << 20)

/*
 * A backward ring: each record goes just below the previous one, data_head
 * counts down. The log keeps every record put, in time order, so that what
 * a read should hand out can be computed independently of the reader.
 */
struct bfake {
	struct fake	*f;
	unsigned char	*log;		/* every record put, oldest first */
	size_t		log_len;
	size_t		off[BW_MAX_RECORDS];	/* record i starts at log + off[i] */
	u16		size[BW_MAX_RECORDS];
	size_t		nr;
	size_t		read_upto;	/* records [0, read_upto) were handed out */
};

static struct bfake *bfake__new(size_t size, u64 start)
{
	struct bfake *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->f = fake__new(size, start);
	b->log = malloc(BW_LOG_SIZE);
	assert_non_null(b->log);
	/* A sentinel: the backward reader must never write data_tail. */
	b->f->pc->data_tail = 0x5a5a5a5a5a5aULL;
	return b;
}

static void bfake__delete(struct bfake *b)
{
	fake__delete(b->f);
	free(b->log);
	free(b);
}

/* Put len bytes as the kernel does with write_backward: below the head. */
static void bfake__put(struct bfake *b, const void *buf, size_t len)
{
	struct fake *f = b->f;
	const unsigned char *p = buf;
	u64 head = f->pc->data_head - len;
	size_t i;

	assert_true(b->nr < BW_MAX_RECORDS && b->log_len + len <= BW_LOG_SIZE);
	for (i = 0; i < len; i++)
		f->data[(head + i) & (f->size - 1)] = p[i];
	f->pc->data_head = head;
	b->off[b->nr] = b->log_len;
	b->size[b->nr] = (u16)len;
	b->nr++;
	memcpy(b->log + b->log_len, buf, len);
	b->log_len += len;
}

static void bfake__put_record(struct bfake *b, u32 type, u16 size, unsigned seed)
{
	unsigned char buf[PERF_SAMPLE_MAX_SIZE];

	make_record(buf, type, size, seed);
	bfake__put(b, buf, size);
}

/*
 * What a read must hand out: the newest records not handed out before,
 * as many as fit whole in one ring, in time order. Returns the index of
 * the first one; *bytes gets their total.
 */
static size_t bfake__expect(const struct bfake *b, size_t *bytes)
{
	size_t first = b->nr, total = 0;

	while (first > b->read_upto && total + b->size[first - 1] <= b->f->size)
		total += b->size[--first];
	*bytes = total;
	return first;
}

/* Read backward and check the sink got exactly what bfake__expect says. */
static void bfake__read_check(struct bfake *b, struct sink *s)
{
	size_t bytes, first = bfake__expect(b, &bytes);
	size_t before = s->len;
	ssize_t n;

	s->calls = 0;
	n = ringbuf__read_backward(&b->f->rb, sink__take, s);
	assert_int_equal(n, bytes);
	assert_int_equal(s->len - before, bytes);
	if (bytes)
		assert_memory_equal(s->buf + before, b->log + b->off[first], bytes);
	else
		assert_int_equal(s->calls, 0);
	assert_sink_calls_whole_from(s, before);
	assert_int_equal(b->f->pc->data_tail, 0x5a5a5a5a5a5aULL);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 0);
	b->read_upto = b->nr;
	s->len = 0;
}

static void test_bw_empty(void **state)
{
	struct bfake *b = bfake__new(4096, 0);
	struct sink *s = sink__new();

	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 0);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 0);
	assert_int_equal(s->calls, 0);
	assert_int_equal(b->f->rb.bytes, 0);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_few(void **state)
{
	struct bfake *b = bfake__new(4096, 0);
	struct sink *s = sink__new();

	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 1);
	bfake__put_record(b, PERF_RECORD_MMAP2, 120, 2);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 64, 3);
	/* data_head went down through zero. */
	assert_int_equal(b->f->pc->data_head, (u64)0 - 216);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 216);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 216);
	assert_int_equal(s->calls, 1);
	/* Oldest first: exactly the order they were put in. */
	assert_memory_equal(s->buf, b->log, 216);
	assert_int_equal(b->f->rb.nr_samples, 2);
	assert_int_equal(b->f->rb.bytes, 216);
	assert_int_equal(b->f->pc->data_tail, 0x5a5a5a5a5a5aULL);
	b->read_upto = b->nr;
	s->len = 0;

	/* Nothing new: nothing handed out. */
	bfake__read_check(b, s);
	/* Only what came after the previous read. */
	bfake__put_record(b, PERF_RECORD_COMM, 40, 4);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 5);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 72);
	bfake__read_check(b, s);
	assert_int_equal(b->f->rb.nr_samples, 3);
	assert_int_equal(b->f->rb.bytes, 216 + 72);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_exact_fill(void **state)
{
	struct bfake *b = bfake__new(1024, 0);
	struct sink *s = sink__new();
	int i;

	for (i = 0; i < 16; i++)	/* 16 x 64: the whole data area */
		bfake__put_record(b, PERF_RECORD_SAMPLE, 64, i);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 1024);
	bfake__read_check(b, s);
	assert_int_equal(b->f->rb.nr_samples, 16);
	/*
	 * 16 more over them, read as if there were no previous head: the
	 * walk covers exactly the ring and gets the newest 16.
	 */
	for (i = 0; i < 16; i++)
		bfake__put_record(b, PERF_RECORD_SAMPLE, 64, 100 + i);
	b->read_upto = 0;
	b->f->rb.snap_head = b->f->pc->data_head + 5 * 1024;
	bfake__read_check(b, s);
	sink__delete(s);
	bfake__delete(b);
}

/*
 * Many rounds of records of varied sizes (odd ones too, so headers cross
 * the end of the area) over a small ring, read after each round: each read
 * must hand out exactly the newest whole records, the partly overwritten
 * oldest one left out.
 */
static void bw_rounds(u64 start, bool aligned)
{
	struct bfake *b = bfake__new(512, start);
	struct sink *s = sink__new();
	unsigned seed = 1;
	int round, torn = 0;

	for (round = 0; round < 300; round++) {
		size_t target = (size_t)((round * 977) % 2600), put = 0;
		size_t bytes, first;

		while (put < target) {
			u16 size = aligned ? (u16)(8 + 8 * ((seed * 7) % 25))
					   : (u16)(8 + (seed * 13) % 190);

			bfake__put_record(b, seed % 5 ? PERF_RECORD_SAMPLE : PERF_RECORD_MMAP2,
					  size, seed);
			seed++;
			put += size;
		}
		first = bfake__expect(b, &bytes);
		if (first > b->read_upto)
			torn++;		/* some records were lost to overwriting */
		bfake__read_check(b, s);
	}
	assert_true(torn > 100);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_wrapped(void **state)
{
	bw_rounds(0, true);
	bw_rounds(0, false);
	bw_rounds(1000003ULL * 512 + 200, true);
	bw_rounds(UINT64_MAX - 300, false);
}

/*
 * A record crossing the end of the data area at every split point (its
 * header too when split < 8), between an older and a newer one.
 */
static void bw_split_at(u16 size, size_t split, u64 base)
{
	const size_t ring = 256;
	/* After A (24 bytes) and R (size), R starts `split` bytes before the end. */
	u64 start = base + ring - split + 24 + size;
	struct bfake *b = bfake__new(ring, start);
	struct sink *s = sink__new();

	bfake__put_record(b, PERF_RECORD_COMM, 24, 1);
	bfake__put_record(b, PERF_RECORD_SAMPLE, size, (unsigned)split);
	assert_int_equal(b->f->pc->data_head & (ring - 1), ring - split);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 3);
	bfake__read_check(b, s);
	assert_int_equal(b->f->rb.nr_samples, 2);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_split_every_offset(void **state)
{
	static const u16 sizes[] = { 8, 16, 40, 104, 192 };

	for_each_split(sizes, sizeof(sizes) / sizeof(sizes[0]), bw_split_at);
}

static void test_bw_torn_oldest(void **state)
{
	struct bfake *b = bfake__new(256, 0);
	struct sink *s = sink__new();

	/* A (200) then B (100): B overwrote A's last 44 bytes. */
	bfake__put_record(b, PERF_RECORD_SAMPLE, 200, 1);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 100, 2);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 256);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 100);
	assert_int_equal(s->len, 100);
	assert_memory_equal(s->buf, b->log + 200, 100);
	s->len = 0;
	b->read_upto = b->nr;

	/* Only 4 bytes of X's header left in the window: X left out. */
	bfake__put_record(b, PERF_RECORD_SAMPLE, 64, 3);	/* X */
	bfake__put_record(b, PERF_RECORD_SAMPLE, 100, 4);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 100, 5);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 52, 6);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 252);
	assert_memory_equal(s->buf, b->log + b->off[3], 252);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_zero_header(void **state)
{
	struct bfake *b = bfake__new(1024, 0);
	struct sink *s = sink__new();

	/*
	 * No previous head to stop at (as if unknown): the walk must stop at
	 * the zeroed memory the kernel never wrote, not run into it.
	 */
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 1);
	bfake__put_record(b, PERF_RECORD_MMAP2, 136, 2);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 3);
	b->f->rb.snap_head = b->f->pc->data_head + 1000000;
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 200);
	assert_memory_equal(s->buf, b->log, 200);
	assert_int_equal(b->f->rb.nr_samples, 2);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_chunks(void **state)
{
	/* 256 KiB of 32-byte records: four full 64 KiB runs, in order. */
	struct bfake *b = bfake__new(1 << 18, 12345ULL << 18);
	struct sink *s = sink__new();
	int i;

	for (i = 0; i < (1 << 18) / 32 + 100; i++)
		bfake__put_record(b, PERF_RECORD_SAMPLE, 32, i);
	bfake__read_check(b, s);
	assert_int_equal(s->calls, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(s->call_len[i], 1 << 16);
	assert_int_equal(b->f->rb.nr_samples, (1 << 18) / 32);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_max_records(void **state)
{
	struct bfake *b = bfake__new(1 << 17, 1000);
	struct sink *s = sink__new();
	int i;

	/* Three 40000-byte records: one per run; the largest record crosses. */
	for (i = 0; i < 3; i++)
		bfake__put_record(b, PERF_RECORD_SAMPLE, 40000, i);
	bfake__read_check(b, s);
	assert_int_equal(s->calls, 3);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 65528, 9);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 65528, 10);
	bfake__read_check(b, s);
	assert_int_equal(s->calls, 2);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_lost(void **state)
{
	struct bfake *b = bfake__new(4096, 0);
	struct sink *s = sink__new();
	unsigned char buf[40];
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 40 };
	u64 id = 5, lost = 1ULL << 33;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &id, 8);
	memcpy(buf + 16, &lost, 8);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 1);
	bfake__put(b, buf, sizeof(buf));
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 2);
	bfake__put(b, buf, sizeof(buf));
	bfake__read_check(b, s);
	assert_int_equal(b->f->rb.nr_samples, 2);
	assert_int_equal(b->f->rb.nr_lost_records, 2);
	assert_int_equal(b->f->rb.lost, 2 * lost);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_corrupt(void **state)
{
	struct bfake *b = bfake__new(1024, 0);
	struct sink *s = sink__new();
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	unsigned char junk[24] = { 0 };

	/* A bad header among older records: the newer ones, then -EIO. */
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 1);
	memcpy(junk, &bad, sizeof(bad));
	bfake__put(b, junk, sizeof(junk));
	bfake__put_record(b, PERF_RECORD_SAMPLE, 32, 2);
	bfake__put_record(b, PERF_RECORD_SAMPLE, 48, 3);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), -EIO);
	assert_int_equal(s->len, 80);
	assert_memory_equal(s->buf, b->log + b->off[2], 80);
	/* Not read again. */
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), 0);
	assert_int_equal(s->len, 80);

	/* A record claiming to reach past the previous read's head. */
	bad.size = 200;
	memcpy(junk, &bad, sizeof(bad));
	bfake__put(b, junk, sizeof(junk));
	s->len = 0;
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), -EIO);
	assert_int_equal(s->len, 0);

	/* Fewer bytes than a header since the previous read's head. */
	bfake__put(b, junk, 4);
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), -EIO);
	assert_int_equal(s->len, 0);
	sink__delete(s);
	bfake__delete(b);
}

/*
 * A ring that is not paused: a timer signal moves data_head down by one
 * 8-byte record every 50 us, in the middle of the walks (4 MiB of 8-byte
 * records take a millisecond or more to walk). No walk settles: -EBUSY,
 * and nothing is handed out or marked read.
 */
static struct perf_event_mmap_page *volatile moving_pc;

static void moving_head(int sig)
{
	struct perf_event_mmap_page *pc = moving_pc;

	if (pc)
		__atomic_store_n(&pc->data_head, pc->data_head - 8, __ATOMIC_RELEASE);
}

struct count_sink {
	u64 bytes, records, bad;
};

static int sink__count(void *ctx, const void *data, size_t size)
{
	struct count_sink *c = ctx;
	size_t off = 0;

	while (off + 8 <= size) {
		struct perf_event_header h;

		memcpy(&h, (const unsigned char *)data + off, sizeof(h));
		if (h.size < 8)
			return -EBADMSG;
		c->records++;
		off += h.size;
	}
	if (off != size)
		c->bad++;
	c->bytes += size;
	return 0;
}

static void test_bw_head_moving(void **state)
{
	const size_t size = 4 << 20;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 };
	struct itimerval on = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = moving_head, .sa_flags = SA_RESTART };
	struct count_sink c = { 0 };
	struct fake *f = fake__new(size, 0);
	u64 snap;
	size_t i;
	ssize_t n;

	for (i = 0; i < size; i += 8)
		memcpy(f->data + i, &h, sizeof(h));
	f->pc->data_head = (u64)0 - size;
	f->rb.snap_head = 0;		/* a full ring written since */
	snap = f->rb.snap_head;
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	moving_pc = f->pc;
	assert_int_equal(setitimer(ITIMER_REAL, &on, NULL), 0);
	n = ringbuf__read_backward(&f->rb, sink__count, &c);
	assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
	moving_pc = NULL;
	signal(SIGALRM, SIG_DFL);
	assert_int_equal(n, -EBUSY);
	assert_int_equal(c.bytes, 0);
	assert_int_equal(f->rb.snap_head, snap);
	/* Held still, the same ring reads whole. */
	n = ringbuf__read_backward(&f->rb, sink__count, &c);
	assert_int_equal(n, size);
	assert_int_equal(c.bytes, size);
	assert_int_equal(c.records, size / 8);
	assert_int_equal(c.bad, 0);
	fake__delete(f);
}

static void test_bw_sink_error(void **state)
{
	struct bfake *b = bfake__new(1 << 18, 0);
	struct sink *s = sink__new();
	u64 snap = b->f->rb.snap_head;
	int i;

	for (i = 0; i < (1 << 18) / 64; i++)
		bfake__put_record(b, PERF_RECORD_SAMPLE, 64, i);
	/* The second run refused: the first stays counted, nothing is "read". */
	s->fail_at = 2;
	s->fail_err = -ENOSPC;
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), -ENOSPC);
	assert_int_equal(s->len, 1 << 16);
	assert_memory_equal(s->buf, b->log, 1 << 16);
	assert_int_equal(b->f->rb.bytes, 1 << 16);
	assert_int_equal(b->f->rb.nr_samples, (1 << 16) / 64);
	assert_int_equal(b->f->rb.snap_head, snap);
	assert_int_equal(ringbuf__backward_pending(&b->f->rb), 1 << 18);
	/* A positive "error" is an error too. */
	s->calls = 0;
	s->fail_at = 1;
	s->fail_err = 1;
	assert_int_equal(ringbuf__read_backward(&b->f->rb, sink__take, s), -EIO);
	/* The next read starts from the same place. */
	s->fail_at = 0;
	s->len = 0;
	bfake__read_check(b, s);
	sink__delete(s);
	bfake__delete(b);
}

static void test_bw_forward_ring(void **state)
{
	struct fake *f = fake__new(1024, 0);
	struct sink *s = sink__new();

	/* Written forward (head going up): not a backward ring. */
	fake__put_record(f, PERF_RECORD_SAMPLE, 32, 1);
	assert_int_equal(ringbuf__read_backward(&f->rb, sink__take, s), -EINVAL);
	assert_int_equal(s->calls, 0);
	sink__delete(s);
	fake__delete(f);
}

static void test_bw_no_fd(void **state)
{
	struct bfake *b = bfake__new(1024, 0);
	struct ringbuf rb;

	assert_false(b->f->rb.overwrite);
	assert_int_equal(ringbuf__pause(&b->f->rb), -EBADF);
	assert_int_equal(ringbuf__resume(&b->f->rb), -EBADF);
	assert_int_equal(ringbuf__mmap_overwrite(&rb, -1, 3, (struct cpu){ 0 }), -EINVAL);
	assert_int_equal(ringbuf__mmap_overwrite(&rb, -1, 0, (struct cpu){ 0 }), -EINVAL);
	assert_int_equal(ringbuf__mmap_overwrite(&rb, -1, 2, (struct cpu){ 0 }), -EBADF);
	bfake__delete(b);
}

/* --- a real kernel ring written backward ---------------------------------- */

/*
 * Two events on this thread write into one backward ring: cpu-clock
 * samples of 32 bytes (ip, pid/tid, time) and task-clock samples of 40
 * (the same and addr), so the ring holds records of mixed sizes and a
 * snapshot's window usually cuts the oldest one. No sample_id_all: only
 * samples carry a time, at offset 24.
 */
struct bw_parse {
	u64 records, samples, lost_records, lost, bytes, bad;
	u64 first_time, last_time;	/* of the samples */
	u64 time_inversions;
	u32 pid, tid;
};

static void bw_parse__sample(struct bw_parse *p, const unsigned char *rec, u16 size)
{
	u32 pt[2];
	u64 t;

	memcpy(pt, rec + 16, 8);
	memcpy(&t, rec + 24, 8);
	if ((size != 32 && size != 40) || pt[0] != p->pid || pt[1] != p->tid)
		p->bad++;
	if (!p->samples)
		p->first_time = t;
	else if (t < p->last_time)
		p->time_inversions++;
	p->last_time = t;
	p->samples++;
}

static int sink__bw_parse(void *ctx, const void *data, size_t size)
{
	struct bw_parse *p = ctx;
	const unsigned char *d = data;
	size_t off = 0;

	while (off + 8 <= size) {
		struct perf_event_header h;

		memcpy(&h, d + off, sizeof(h));
		if (h.size < 24 || off + h.size > size)
			return -EBADMSG;
		if (h.type == PERF_RECORD_SAMPLE)
			bw_parse__sample(p, d + off, h.size);
		else if (!count_non_sample(d + off, &p->lost_records, &p->lost))
			p->bad++;
		p->records++;
		off += h.size;
	}
	if (off != size)
		return -EBADMSG;
	p->bytes += size;
	return 0;
}

static u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + (u64)t.tv_nsec;
}

static u64 bw_written(const struct ringbuf *rb)
{
	return (u64)0 - __atomic_load_n(&((struct perf_event_mmap_page *)rb->base)->data_head,
					__ATOMIC_ACQUIRE);
}

static int bw_open(u64 config, u64 period_ns, u64 extra_sample_type)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.size		= sizeof(attr),
		.config		= config,
		.sample_period	= period_ns,
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  extra_sample_type,
		.disabled	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
		.write_backward	= 1,
		.use_clockid	= 1,
		.clockid	= CLOCK_MONOTONIC,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == ENOSYS ||
		       errno == ENOENT || errno == EOPNOTSUPP || errno == EINVAL)) {
		print_message("perf_event_open (write_backward): %s; skipped\n",
			      strerror(errno));
		skip();
	}
	assert_true(fd >= 0);
	return fd;
}

/* Spin until `bytes` were written since the last backward read, or cap_ms. */
static bool bw_spin_until(const struct ringbuf *rb, size_t bytes, double cap_ms)
{
	double end = thread_cpu_ms() + cap_ms;

	while (ringbuf__backward_pending(rb) < bytes) {
		if (thread_cpu_ms() > end)
			return false;
		spin_ms(0.2);
	}
	return true;
}

/*
 * One snapshot: pause, read, resume. Whole records, samples in time order
 * and all after `after`, the newest from just before the pause; if the ring
 * wrapped since the last snapshot and a record was left out at the old end,
 * it really was torn (it reached past the window). Returns bytes read.
 */
static size_t bw_snapshot(struct ringbuf *rb, struct bw_parse *p, u64 after)
{
	size_t size = rb->mask + 1;
	u64 head, since, t_pause;
	ssize_t n;

	assert_int_equal(ringbuf__pause(rb), 0);
	t_pause = mono_ns();
	spin_ms(1);	/* paused: the kernel drops (and counts) these samples */
	head = ((struct perf_event_mmap_page *)rb->base)->data_head;
	since = rb->snap_head - head;
	n = ringbuf__read_backward(rb, sink__bw_parse, p);
	assert_true(n > 0 && (size_t)n <= size);
	assert_int_equal(p->bytes, (u64)n);
	assert_int_equal(p->bad, 0);
	assert_int_equal(p->time_inversions, 0);
	assert_true(p->samples > 0);
	assert_true(p->first_time >= after);
	assert_true(p->last_time <= t_pause);
	assert_true(t_pause - p->last_time < 500000000ULL);
	if (since > size && (size_t)n < size) {
		struct perf_event_header h;
		size_t left = size - (size_t)n;

		/* The record after the last one handed out reaches past the window. */
		if (left >= sizeof(h)) {
			memcpy(&h, rb->data + ((head + (u64)n) & rb->mask), sizeof(h));
			assert_true(h.size > left);
		}
	}
	assert_int_equal(ringbuf__resume(rb), 0);
	return (size_t)n;
}

/* Snapshots of a wrapped ring; about half leave a torn record out. */
#define BW_ROUNDS	12

static void test_real_backward(void **state)
{
	int fd = bw_open(PERF_COUNT_SW_CPU_CLOCK, 20000, 0);
	int fd2 = bw_open(PERF_COUNT_SW_TASK_CLOCK, 30000, PERF_SAMPLE_ADDR);
	struct bw_parse p = { 0 }, last = { 0 };
	struct ringbuf rb;
	size_t size, n;
	u64 after = 0;
	int round, torn = 0, full = 0;

	assert_int_equal(ringbuf__mmap_overwrite(&rb, fd, 2, (struct cpu){ -1 }), 0);
	assert_true(rb.overwrite);
	assert_int_equal(ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd), 0);
	size = rb.mask + 1;
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	assert_int_equal(ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0), 0);

	/* Let it wrap several times over, then snapshots that each wrapped. */
	{
		double end = thread_cpu_ms() + 3000;

		while (bw_written(&rb) < 8 * size && thread_cpu_ms() < end)
			spin_ms(0.5);
	}
	for (round = 0; round < BW_ROUNDS; round++) {
		if (!bw_spin_until(&rb, size, 3000))
			break;
		memset(&p, 0, sizeof(p));
		p.pid = (u32)getpid();
		p.tid = (u32)syscall(SYS_gettid);
		n = bw_snapshot(&rb, &p, after);
		after = p.last_time;
		full++;
		assert_true(n + 40 > size);	/* all but one torn record */
		if (n < size)
			torn++;
	}
	if (full == BW_ROUNDS)
		assert_true(torn >= 1);
	else
		print_message("the ring filled only %d times (throttled?): torn not checked\n", full);

	/* A snapshot of less than a ring: everything since the last, LOST first. */
	if (bw_spin_until(&rb, 1024, 1000)) {
		last.pid = (u32)getpid();
		last.tid = (u32)syscall(SYS_gettid);
		n = bw_snapshot(&rb, &last, after);
		assert_true(n < size);
		/* What was dropped while paused is reported once resumed. */
		assert_true(last.lost_records >= 1 && last.lost > 0);
	}
	assert_int_equal(((struct perf_event_mmap_page *)rb.base)->data_tail, 0);
	assert_int_equal(ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	print_message("real backward ring: %d snapshots of a wrapped ring, %d left a torn record out;"
		      " the last held %llu records, %llu lost while paused\n",
		      full, torn, (unsigned long long)last.records,
		      (unsigned long long)last.lost);
	ringbuf__munmap(&rb);
	close(fd2);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_few_records),
		cmocka_unit_test(test_fill_to_end),
		cmocka_unit_test(test_wrap_far),
		cmocka_unit_test(test_wrap_u64),
		cmocka_unit_test(test_split_every_offset),
		cmocka_unit_test(test_max_record_split),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_lost_split),
		cmocka_unit_test(test_sink_error_keeps_tail),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_corrupt_head),
		cmocka_unit_test(test_init_mem_layout),
		cmocka_unit_test(test_real_ring),
		cmocka_unit_test(test_bw_empty),
		cmocka_unit_test(test_bw_few),
		cmocka_unit_test(test_bw_exact_fill),
		cmocka_unit_test(test_bw_wrapped),
		cmocka_unit_test(test_bw_split_every_offset),
		cmocka_unit_test(test_bw_torn_oldest),
		cmocka_unit_test(test_bw_zero_header),
		cmocka_unit_test(test_bw_chunks),
		cmocka_unit_test(test_bw_max_records),
		cmocka_unit_test(test_bw_lost),
		cmocka_unit_test(test_bw_corrupt),
		cmocka_unit_test(test_bw_head_moving),
		cmocka_unit_test(test_bw_sink_error),
		cmocka_unit_test(test_bw_forward_ring),
		cmocka_unit_test(test_bw_no_fd),
		cmocka_unit_test(test_real_backward),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
