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
#include <sys/ioctl.h>
#include <sys/syscall.h>
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

static void test_split_every_offset(void **state)
{
	static const u16 sizes[] = { 8, 16, 40, 104, 200 };
	size_t i, split;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (split = 1; split < sizes[i]; split++) {
			split_at(sizes[i], split, 0);
			split_at(sizes[i], split, 77ULL * 256);
		}
	}
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
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			p->samples++;
			/* header + ip + pid/tid + time */
			if (h.size != 32)
				p->bad_sample_size++;
			break;
		case PERF_RECORD_LOST: {
			u64 lost;

			p->lost_records++;
			memcpy(&lost, b + off + 16, 8);
			p->lost += lost;
			break;
		}
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			break;
		default:
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
