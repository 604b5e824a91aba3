// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c — `precord report --loss` on perf.data files written by hand:
 * the header from header__write_start/__write_end with a hand-built evlist,
 * then raw records (samples on two CPUs, LOST records with known counts and
 * times, LOST_SAMPLES at the end, tool records that must not count). Every
 * figure is checked exactly against values worked out by hand from the
 * definitions in Documentation/loss.md: the per-CPU record rate, the loss
 * intervals with their union across and within CPUs, clipping to the
 * recording, the 10 ms windowed metric, cpu -1 with its rings, ID_INDEX
 * attribution, directories, compressed, pipe-mode and unfinished files, the
 * error messages and the command's exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "precord/builtin.h"
#include "precord/report.h"
#include "precord/header.h"
#include "precord/evlist.h"
#include "precord/topology.h"
#include "precord/compress.h"
#include "helpers.h"

#define T0	1000000000ULL		/* first timestamp of every file */
#define MS	1000000ULL

/* ---- records built by hand ---- */

/* The sample_id trailer for sample_type st. */
static void put_trailer(struct rbuf *b, u64 st, u64 id, u64 time, u32 cpu)
{
	if (st & PERF_SAMPLE_TID)
		rbuf__u32x2(b, 100, 101);
	if (st & PERF_SAMPLE_TIME)
		rbuf__u64(b, time);
	if (st & PERF_SAMPLE_ID)
		rbuf__u64(b, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		rbuf__u64(b, id);
	if (st & PERF_SAMPLE_CPU)
		rbuf__u32x2(b, cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		rbuf__u64(b, id);
}

static void put_sample(struct rbuf *b, u64 st, u64 id, u64 time, u32 cpu)
{
	size_t at = rbuf__begin(b, PERF_RECORD_SAMPLE);

	if (st & PERF_SAMPLE_IDENTIFIER)
		rbuf__u64(b, id);
	if (st & PERF_SAMPLE_IP)
		rbuf__u64(b, 0xffffffff81000000ULL);
	if (st & PERF_SAMPLE_TID)
		rbuf__u32x2(b, 100, 101);
	if (st & PERF_SAMPLE_TIME)
		rbuf__u64(b, time);
	if (st & PERF_SAMPLE_ADDR)
		rbuf__u64(b, 0);
	if (st & PERF_SAMPLE_ID)
		rbuf__u64(b, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		rbuf__u64(b, id);
	if (st & PERF_SAMPLE_CPU)
		rbuf__u32x2(b, cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		rbuf__u64(b, 250000);
	rbuf__end(b, at);
}

static void put_lost(struct rbuf *b, u64 st, u64 id, u64 lost, u64 time, u32 cpu)
{
	size_t at = rbuf__begin(b, PERF_RECORD_LOST);

	rbuf__u64(b, id);
	rbuf__u64(b, lost);
	put_trailer(b, st, id, time, cpu);
	rbuf__end(b, at);
}

/* As perf and precord write them at exit: no time. */
static void put_lost_samples(struct rbuf *b, u64 st, u64 id, u64 lost, u32 cpu)
{
	size_t at = rbuf__begin(b, PERF_RECORD_LOST_SAMPLES);

	rbuf__u64(b, lost);
	put_trailer(b, st, id, 0, cpu);
	rbuf__end(b, at);
}

/* A synthesized COMM: the trailer is zero (time 0, CPU 0) as perf writes it. */
static void put_comm(struct rbuf *b, u64 st)
{
	size_t at = rbuf__begin(b, PERF_RECORD_COMM);

	rbuf__u32x2(b, 100, 100);
	rbuf__put(b, "matmul\0\0", 8);
	put_trailer(b, st, 0, 0, 0);
	rbuf__end(b, at);
}

static void put_header_only(struct rbuf *b, u32 type)
{
	rbuf__end(b, rbuf__begin(b, type));
}

struct idx_entry {
	u64	id;
	int	idx, cpu, tid;
};

static void put_id_index(struct rbuf *b, const struct idx_entry *e, int nr)
{
	size_t at = rbuf__begin(b, PERF_RECORD_ID_INDEX);
	int i;

	rbuf__u64(b, (u64)nr);
	for (i = 0; i < nr; i++) {
		rbuf__u64(b, e[i].id);
		rbuf__u64(b, (u64)e[i].idx);
		rbuf__u64(b, (u64)(s64)e[i].cpu);
		rbuf__u64(b, (u64)(s64)e[i].tid);
	}
	rbuf__end(b, at);
}

/* A pipe-mode file's start: the 16-byte header and one HEADER_ATTR, ids 11 and 12. */
static void put_pipe_start(struct rbuf *b, u64 st)
{
	struct { u64 magic, size; } hdr = { PERF_MAGIC, 16 };
	struct perf_event_attr attr = { .size = sizeof(attr), .sample_type = st, .sample_id_all = 1 };
	size_t at;

	rbuf__put(b, &hdr, sizeof(hdr));
	at = rbuf__begin(b, PERF_RECORD_HEADER_ATTR);
	rbuf__put(b, &attr, sizeof(attr));
	rbuf__u64(b, 11);
	rbuf__u64(b, 12);
	rbuf__end(b, at);
}

/* ---- a hand-built evlist and a file ---- */

#define MAX_EVSELS	2

struct fixture {
	struct evsel	evsel[MAX_EVSELS];
	struct evsel	*entries[MAX_EVSELS];
	struct evlist	evlist;
	u64		ids[MAX_EVSELS][2];
	char		dir[64];
	char		path[128];
	struct loss_report r;
	char		err[512];
};

static void fixture__evsel(struct fixture *f, int i, u64 st, u64 id0, u64 id1)
{
	struct evsel *evsel = &f->evsel[i];

	f->ids[i][0] = id0;
	f->ids[i][1] = id1;
	test_evsel__init(evsel, i, i ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_CPU_CLOCK,
			 i ? "dummy:u" : "cpu-clock", st, f->ids[i], 2);
	evsel->attr.freq = 1;
	evsel->attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	evsel->evlist = &f->evlist;
	f->entries[i] = evsel;
	f->evlist.nr_entries = i + 1;
	f->evlist.entries = f->entries;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (tmpdir__make(f->dir, sizeof(f->dir), "/tmp", "report")) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/perf.data", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	loss_report__exit(&f->r);
	if (tmpdir__remove(f->dir))
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* A whole perf.data at path: header, attrs and ids, data, features. */
static void write_perf_data(struct fixture *f, const char *path, const struct rbuf *data,
			    bool finish)
{
	struct topology *topo = topology__new_synthetic("pack:1 core:2 pu:1");
	struct header_env env = { .topo = topo, .no_buildid = true };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	u64 off;

	assert_non_null(topo);
	assert_true(fd >= 0);
	assert_int_equal(header__write_start(fd, &f->evlist, &off), 0);
	assert_int_equal(pwrite(fd, data->data, data->len, (off_t)off), (ssize_t)data->len);
	if (finish)
		assert_int_equal(header__write_end(fd, &f->evlist, off, data->len, &env), 0);
	close(fd);
	topology__delete(topo);
}

static void write_raw(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
}

static void read_ok(struct fixture *f, const char *path)
{
	int err = loss_report__read(path, &f->r, f->err, sizeof(f->err));

	if (err)
		fail_msg("loss_report__read(%s) = %d: %s", path, err, f->err);
}

/* The records in data as a finished perf.data at f->path, read into f->r. */
static void report_of(struct fixture *f, const struct rbuf *data)
{
	write_perf_data(f, f->path, data, true);
	read_ok(f, f->path);
}

static const struct loss_cpu *cpu_row(const struct loss_report *r, int cpu)
{
	int i;

	for (i = 0; i < r->nr_cpus; i++)
		if (r->cpus[i].cpu == cpu)
			return &r->cpus[i];
	fail_msg("no row for cpu %d", cpu);
	return NULL;
}

/* CPU 0's and CPU 1's rows: the samples on each, and the samples LOST_SAMPLES says each lost. */
static void assert_cpu01_samples(const struct loss_report *r, u64 samples0, u64 samples1,
				 u64 lost_samples0, u64 lost_samples1)
{
	assert_int_equal(cpu_row(r, 0)->samples, samples0);
	assert_int_equal(cpu_row(r, 1)->samples, samples1);
	assert_int_equal(cpu_row(r, 0)->lost_samples, lost_samples0);
	assert_int_equal(cpu_row(r, 1)->lost_samples, lost_samples1);
}

static char *print_to_string(const struct loss_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	loss_report__print(r, out);
	fclose(out);
	return buf;
}

/* ---- two CPUs, with CPU in the samples ---- */

#define ST_CPU	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/*
 * CPU 0: 100 samples at T0 + 0..99 ms, LOST 10 at 50 ms, 5 at 52 ms, 1 at
 * 99 ms. CPU 1: 20 samples at T0 + 10, 12 .. 48 ms, LOST 100 at 11 ms and 10
 * at 45 ms. Then LOST_SAMPLES 20 (CPU 0) and 150 (CPU 1), and tool records
 * (a synthesized COMM, FINISHED_ROUND) that must count nowhere.
 */
static void two_cpu_records(struct rbuf *b, u64 st)
{
	int i;

	put_comm(b, st);
	put_header_only(b, PERF_RECORD_FINISHED_INIT);
	for (i = 0; i < 100; i++) {
		put_sample(b, st, 11, T0 + (u64)i * MS, 0);
		if (i >= 10 && i < 50 && i % 2 == 0)
			put_sample(b, st, 12, T0 + (u64)i * MS, 1);
		if (i == 11)
			put_lost(b, st, 12, 100, T0 + 11 * MS, 1);
		if (i == 45)
			put_lost(b, st, 12, 10, T0 + 45 * MS, 1);
		if (i == 50)
			put_lost(b, st, 11, 10, T0 + 50 * MS, 0);
		if (i == 52)
			put_lost(b, st, 11, 5, T0 + 52 * MS, 0);
		if (i == 99)
			put_lost(b, st, 11, 1, T0 + 99 * MS, 0);
		if (i % 10 == 9)
			put_header_only(b, PERF_RECORD_FINISHED_ROUND);
	}
	put_lost_samples(b, st, 11, 20, 0);
	put_lost_samples(b, st, 12, 150, 1);
}

/*
 * The figures of two_cpu_records(), worked out by hand (times relative to T0):
 *
 * CPU 0: 100 samples + 3 LOST = 103 timed records, 16 lost, span 99 ms:
 *   rate = 119 / 99 ms. LOST 10 @50: len 10*99e6/119 = 8319327 → [41680673, 50e6]
 *   LOST 5 @52: 4159663 → [47840337, 52e6]; LOST 1 @99: 831932 → [98168068, 99e6]
 *   union = (52e6 - 41680673) + 831932 = 11151259.
 * CPU 1: 20 samples + 2 LOST = 22, 110 lost, span 38 ms: rate = 132 / 38 ms.
 *   LOST 100 @11: 28787878 → before T0: clipped to [0, 11e6];
 *   LOST 10 @45: 2878787 → [42121213, 45e6] (inside CPU 0's interval).
 *   union = 11e6 + 2878787 = 13878787.
 * Machine: [0, 11e6] ∪ [41680673, 52e6] ∪ [98168068, 99e6] = 22151259 of 99e6.
 * Windows of 10 ms (10 of them, the last [90, 99] ms): LOST in windows 1, 4,
 * 5, 9 → 10 + 10 + 10 + 9 ms = 39 ms.
 */
static void check_interval(const struct loss_interval *iv, int cpu, u64 start, u64 end, u64 lost)
{
	assert_int_equal(iv->cpu, cpu);
	assert_int_equal(iv->start, T0 + start);
	assert_int_equal(iv->end, T0 + end);
	assert_int_equal(iv->lost, lost);
}

static void check_two_cpus(const struct loss_report *r)
{
	const struct loss_cpu *c0 = cpu_row(r, 0), *c1 = cpu_row(r, 1);

	assert_int_equal(r->nr_cpus, 2);
	assert_int_equal(r->samples, 120);
	assert_int_equal(r->lost_records, 5);
	assert_int_equal(r->lost, 126);
	assert_int_equal(r->lost_samples, 170);
	assert_true(r->lost_from_samples);
	assert_int_equal(r->lost_counted, 170);
	assert_true(r->lost_fraction == 170.0 / 290.0);
	assert_int_equal(r->first_time, T0);
	assert_int_equal(r->last_time, T0 + 99 * MS);
	assert_int_equal(r->elapsed_ns, 99 * MS);

	assert_int_equal(c0->samples, 100);
	assert_int_equal(c0->lost_records, 3);
	assert_int_equal(c0->lost, 16);
	assert_int_equal(c0->lost_samples, 20);
	assert_int_equal(c0->records, 103);
	assert_int_equal(c0->first_time, T0);
	assert_int_equal(c0->last_time, T0 + 99 * MS);
	assert_int_equal(c0->nr_rings, 1);
	assert_int_equal(c0->lost_time_ns, 11151259);

	assert_int_equal(c1->samples, 20);
	assert_int_equal(c1->lost_records, 2);
	assert_int_equal(c1->lost, 110);
	assert_int_equal(c1->lost_samples, 150);
	assert_int_equal(c1->records, 22);
	assert_int_equal(c1->first_time, T0 + 10 * MS);
	assert_int_equal(c1->last_time, T0 + 48 * MS);
	assert_int_equal(c1->lost_time_ns, 13878787);

	assert_int_equal(r->lost_time_ns, 22151259);
	assert_true(r->loss_metric == 22151259.0 / 99e6);
	assert_int_equal(r->window_ns, 10 * MS);
	assert_int_equal(r->nr_windows, 10);
	assert_int_equal(r->lost_windows, 4);
	assert_int_equal(r->lost_time_windowed_ns, 39 * MS);
	assert_true(r->loss_metric_windowed == 39e6 / 99e6);
	assert_int_equal(r->untimed_lost_records, 0);
	assert_int_equal(r->unknown_id, 0);
	assert_int_equal(r->missing_bytes, 0);

	/* The intervals, joined where they overlap on one CPU, by CPU then start. */
	assert_int_equal(r->nr_intervals, 4);
	check_interval(&r->intervals[0], 0, 41680673, 52 * MS, 15);
	check_interval(&r->intervals[1], 0, 98168068, 99 * MS, 1);
	check_interval(&r->intervals[2], 1, 0, 11 * MS, 100);
	check_interval(&r->intervals[3], 1, 42121213, 45 * MS, 10);
}

/* A perf.data file at path holding two_cpu_records() of one ST_CPU evsel (ids 11, 12). */
static void write_two_cpus(struct fixture *f, const char *path, bool finished)
{
	struct rbuf b = { 0 };

	fixture__evsel(f, 0, ST_CPU, 11, 12);
	two_cpu_records(&b, ST_CPU);
	write_perf_data(f, path, &b, finished);
	rbuf__release(&b);
}

/* Reading path gives the report of two_cpu_records(). */
static void read_two_cpus(struct fixture *f, const char *path)
{
	read_ok(f, path);
	check_two_cpus(&f->r);
}

static void test_two_cpus(void **state)
{
	struct fixture *f = *state;
	char *text;

	write_two_cpus(f, f->path, true);
	read_two_cpus(f, f->path);
	/* 2 (COMM, FINISHED_INIT) + 100 + 20 + 5 LOST + 10 rounds + 2 LOST_SAMPLES */
	assert_int_equal(f->r.records, 139);
	assert_int_equal(f->r.nr_files, 1);
	assert_int_equal(f->r.truncated_bytes, 0);
	assert_false(f->r.size_from_eof);
	assert_string_equal(f->r.path, f->path);

	text = print_to_string(&f->r);
	assert_non_null(strstr(text, ": 120 samples, 170 lost (58.62% of 290), over 0.099 s ]"));
	assert_non_null(strstr(text, "[ precord: 5 LOST records dropped 126 records; "
				     "LOST_SAMPLES count 170 lost samples; the lost fraction "
				     "counts LOST_SAMPLES ]"));
	assert_non_null(strstr(text, "Data loss metric 22.38%: 22.151 ms of 99.000 ms"));
	assert_non_null(strstr(text, "over 10 ms windows 39.39%: 4 of 10 windows"));
	assert_non_null(strstr(text, "[ precord:    0          100          3           16"
				     "            20   16.67%      11.151    11.26% ]"));
	assert_non_null(strstr(text, "[ precord:    1           20          2          110"
				     "           150   88.24%      13.879    14.02% ]"));
	free(text);
}

/* The same records through PERF_RECORD_COMPRESSED: the same figures. */
struct emit_ctx {
	struct rbuf	*out;
	int		nr;
};

static int emit_record(void *ctx, const void *record, size_t size)
{
	struct emit_ctx *e = ctx;

	rbuf__put(e->out, record, size);
	e->nr++;
	return 0;
}

/* The first record boundary at or after half the buffer. */
static size_t record_boundary(const struct rbuf *b)
{
	size_t pos = 0;

	while (pos < b->len / 2) {
		struct perf_event_header h;

		memcpy(&h, b->data + pos, sizeof(h));
		pos += h.size;
	}
	return pos;
}

static void test_compressed(void **state)
{
	struct fixture *f = *state;
	struct rbuf plain = { 0 }, packed = { 0 };
	struct emit_ctx e = { .out = &packed };
	struct zcomp *z = zcomp__new(3);
	size_t half;

	assert_non_null(z);
	fixture__evsel(f, 0, ST_CPU, 11, 12);
	two_cpu_records(&plain, ST_CPU);
	/* Two flushes of one stream, as a recorder writes them. */
	half = record_boundary(&plain);
	assert_int_equal(zcomp__compress(z, plain.data, half, emit_record, &e), 0);
	assert_int_equal(zcomp__compress(z, plain.data + half, plain.len - half, emit_record, &e), 0);
	zcomp__delete(z);
	assert_true(e.nr >= 2);
	write_perf_data(f, f->path, &packed, true);
	read_two_cpus(f, f->path);
	assert_int_equal(f->r.compressed, (u64)e.nr);
	assert_int_equal(f->r.records, 139 + (u64)e.nr);
	rbuf__release(&plain);
	rbuf__release(&packed);
}

/* Records without a CPU: one row, cpu -1, whose rate two rings share. */
#define ST_NOCPU (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

/*
 * 50 samples at T0 + 0..49 ms, LOST 25 at 40 ms, no LOST_SAMPLES; ID_INDEX
 * puts the evsel's two ids on CPUs 0 and 1 (perf's default recording).
 * Rate of one ring = (51 + 25) / 49 ms / 2 rings: len = 25*49e6*2/76 =
 * 32236842 → [7763158, 40e6]. Windows: 5, the LOST in the last, [40, 49] ms.
 */
static void test_cpu_minus_one(void **state)
{
	struct fixture *f = *state;
	const struct idx_entry idx[] = { { 31, 0, 0, 100 }, { 32, 0, 1, 100 } };
	const struct loss_cpu *c;
	struct rbuf b = { 0 };
	int i;

	fixture__evsel(f, 0, ST_NOCPU, 31, 32);
	put_id_index(&b, idx, 2);
	for (i = 0; i < 50; i++) {
		put_sample(&b, ST_NOCPU, 0, T0 + (u64)i * MS, 0);
		if (i == 40)
			put_lost(&b, ST_NOCPU, 32, 25, T0 + 40 * MS, 0);
	}
	report_of(f, &b);
	assert_int_equal(f->r.nr_cpus, 1);
	c = cpu_row(&f->r, -1);
	assert_int_equal(c->samples, 50);
	assert_int_equal(c->lost_records, 1);
	assert_int_equal(c->lost, 25);
	assert_int_equal(c->records, 51);
	assert_int_equal(c->nr_rings, 2);
	assert_false(f->r.lost_from_samples);
	assert_int_equal(f->r.lost_counted, 25);
	assert_true(f->r.lost_fraction == 25.0 / 75.0);
	assert_int_equal(c->lost_time_ns, 32236842);
	assert_int_equal(f->r.lost_time_ns, 32236842);
	assert_int_equal(f->r.elapsed_ns, 49 * MS);
	assert_int_equal(f->r.nr_windows, 5);
	assert_int_equal(f->r.lost_windows, 1);
	assert_int_equal(f->r.lost_time_windowed_ns, 9 * MS);
	rbuf__release(&b);
}

/*
 * A per-thread recording of many threads: 200,000 ids, each with CPU -1 and
 * a thread, in ID_INDEX records of at most 2047 entries (the u16 record
 * size). The threads repeat (tid = 10000 + i % 150000): cpu -1 has 150,000
 * rings. Four samples, LOST 3 at 3 ms: rate = (5 + 3) records / 3 ms /
 * 150000 rings, len = 3 * 3e6 * 150000 / 8 → before T0: clipped to [0, 3 ms].
 */
#define MANY_IDS	200000
#define MANY_TIDS	150000
#define IDX_PER_RECORD	2047

static void test_many_ids(void **state)
{
	struct fixture *f = *state;
	struct idx_entry *idx = calloc(IDX_PER_RECORD, sizeof(*idx));
	const struct loss_cpu *c;
	struct rbuf b = { 0 };
	int i, j, n;
	char *text;

	assert_non_null(idx);
	put_pipe_start(&b, ST_NOCPU);
	for (i = 0; i < MANY_IDS; i += n) {
		n = MANY_IDS - i < IDX_PER_RECORD ? MANY_IDS - i : IDX_PER_RECORD;
		for (j = 0; j < n; j++)
			idx[j] = (struct idx_entry){ 1000 + i + j, 0, -1, 10000 + (i + j) % MANY_TIDS };
		put_id_index(&b, idx, n);
	}
	for (i = 0; i < 4; i++)
		put_sample(&b, ST_NOCPU, 0, T0 + (u64)i * MS, 0);
	put_lost(&b, ST_NOCPU, 1000, 3, T0 + 3 * MS, 0);
	write_raw(f->path, b.data, b.len);
	read_ok(f, f->path);
	assert_int_equal(f->r.nr_cpus, 1);
	c = cpu_row(&f->r, -1);
	assert_int_equal(c->nr_rings, MANY_TIDS);
	assert_int_equal(c->samples, 4);
	assert_int_equal(c->records, 5);
	assert_int_equal(c->lost_time_ns, 3 * MS);
	text = print_to_string(&f->r);
	assert_non_null(strstr(text, "cpu -1: the records carry no CPU; 150000 rings (ID_INDEX)"));
	free(text);
	free(idx);
	rbuf__release(&b);
}

/*
 * precord's attrs: IDENTIFIER, no CPU in the samples; ID_INDEX maps ids 41 →
 * CPU 0, 42 → CPU 1, so every record finds its CPU through its id.
 */
#define ST_IDENT (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void test_id_index_attribution(void **state)
{
	struct fixture *f = *state;
	const struct idx_entry idx[] = { { 41, 0, 0, -1 }, { 42, 0, 1, -1 } };
	struct rbuf b = { 0 };
	int i;

	fixture__evsel(f, 0, ST_IDENT, 41, 42);
	put_id_index(&b, idx, 2);
	for (i = 0; i < 10; i++)
		put_sample(&b, ST_IDENT, i < 7 ? 41 : 42, T0 + (u64)i * MS, 0);
	put_lost(&b, ST_IDENT, 42, 3, T0 + 9 * MS, 0);
	put_lost_samples(&b, ST_IDENT, 41, 4, 0);
	put_lost_samples(&b, ST_IDENT, 42, 5, 0);
	report_of(f, &b);
	assert_int_equal(f->r.nr_cpus, 2);
	assert_cpu01_samples(&f->r, 7, 3, 4, 5);
	assert_int_equal(cpu_row(&f->r, 0)->lost_records, 0);
	assert_int_equal(cpu_row(&f->r, 1)->lost_records, 1);
	/* CPU 1: 3 samples + 1 LOST over [7, 9] ms, 3 lost: len 3*2e6/7 = 857142. */
	assert_int_equal(cpu_row(&f->r, 1)->lost_time_ns, 857142);
	assert_int_equal(f->r.lost_time_ns, 857142);
	rbuf__release(&b);
}

/*
 * perf -a's attrs: ID and CPU, two evsels. perf 6.1 writes LOST_SAMPLES with
 * CPU 0 in the trailer: the id's ID_INDEX CPU wins. A sample whose id no attr
 * has is counted (as perf report --stats does) and reported.
 */
#define ST_ID_CPU (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static void test_perf_system_wide(void **state)
{
	struct fixture *f = *state;
	const struct idx_entry idx[] = {
		{ 51, 0, 0, -1 }, { 52, 0, 1, -1 }, { 61, 1, 0, -1 }, { 62, 1, 1, -1 },
	};
	struct rbuf b = { 0 };

	fixture__evsel(f, 0, ST_ID_CPU, 51, 52);
	fixture__evsel(f, 1, ST_ID_CPU, 61, 62);
	put_id_index(&b, idx, 4);
	put_sample(&b, ST_ID_CPU, 51, T0, 0);
	put_sample(&b, ST_ID_CPU, 52, T0 + MS, 1);
	put_sample(&b, ST_ID_CPU, 52, T0 + 2 * MS, 1);
	put_sample(&b, ST_ID_CPU, 999, T0 + 3 * MS, 0);
	put_lost(&b, ST_ID_CPU, 62, 7, T0 + 2 * MS, 1);
	put_lost_samples(&b, ST_ID_CPU, 52, 9, 0);
	put_lost_samples(&b, ST_ID_CPU, 51, 2, 0);
	report_of(f, &b);
	assert_int_equal(f->r.samples, 4);
	assert_int_equal(f->r.unknown_id, 1);
	assert_cpu01_samples(&f->r, 2, 2, 2, 9);
	assert_int_equal(cpu_row(&f->r, 1)->lost, 7);
	rbuf__release(&b);
}

/* A perf directory: `data` with the header, data.0 and data.1 raw records. */
static void test_directory(void **state)
{
	struct fixture *f = *state;
	struct rbuf all = { 0 }, head = { 0 }, d0 = { 0 }, d1 = { 0 };
	char name[192];
	size_t pos = 0;
	int n = 0;

	fixture__evsel(f, 0, ST_CPU, 11, 12);
	two_cpu_records(&all, ST_CPU);
	/* COMM and FINISHED_INIT in `data`; the rest alternately in data.0 and data.1. */
	while (pos < all.len) {
		struct perf_event_header h;
		struct rbuf *to;

		memcpy(&h, all.data + pos, sizeof(h));
		to = n < 2 ? &head : (n % 2 ? &d1 : &d0);
		rbuf__put(to, all.data + pos, h.size);
		pos += h.size;
		n++;
	}
	assert_int_equal(mkdir(f->path, 0755), 0);
	snprintf(name, sizeof(name), "%s/data", f->path);
	write_perf_data(f, name, &head, true);
	snprintf(name, sizeof(name), "%s/data.0", f->path);
	write_raw(name, d0.data, d0.len);
	snprintf(name, sizeof(name), "%s/data.1", f->path);
	/* data.1 ends with half a record: not counted, reported. */
	rbuf__put(&d1, all.data, 12);
	write_raw(name, d1.data, d1.len);
	snprintf(name, sizeof(name), "%s/other.txt", f->path);
	write_raw(name, "x", 1);
	read_two_cpus(f, f->path);
	assert_int_equal(f->r.nr_files, 3);
	assert_int_equal(f->r.records, 139);
	assert_int_equal(f->r.truncated_bytes, 12);
	rbuf__release(&all);
	rbuf__release(&head);
	rbuf__release(&d0);
	rbuf__release(&d1);
}

/* A perf directory with no data.N (no thread wrote a record): `data` alone. */
static void test_directory_data_only(void **state)
{
	struct fixture *f = *state;
	char name[192];

	assert_int_equal(mkdir(f->path, 0755), 0);
	snprintf(name, sizeof(name), "%s/data", f->path);
	write_two_cpus(f, name, true);
	read_two_cpus(f, f->path);
	assert_int_equal(f->r.nr_files, 1);
}

/* perf record -o - > file: a 16-byte header, attrs as HEADER_ATTR records. */
static void test_pipe_mode(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };

	put_pipe_start(&b, ST_CPU);
	two_cpu_records(&b, ST_CPU);
	write_raw(f->path, b.data, b.len);
	read_two_cpus(f, f->path);
	rbuf__release(&b);
}

/* A recording that never finished: data size 0 in the header, read to the end. */
static void test_unfinished(void **state)
{
	struct fixture *f = *state;
	char *text;

	write_two_cpus(f, f->path, false);
	read_two_cpus(f, f->path);
	assert_true(f->r.size_from_eof);
	text = print_to_string(&f->r);
	assert_non_null(strstr(text, "the header has no data size"));
	free(text);
}

/* LOST records with no time: counted, kept out of the metric, reported. */
static void test_untimed_lost(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };
	char *text;

	fixture__evsel(f, 0, ST_CPU, 11, 12);
	put_sample(&b, ST_CPU, 11, T0, 0);
	put_sample(&b, ST_CPU, 11, T0 + MS, 0);
	put_lost(&b, ST_CPU, 11, 4, 0, 0);
	report_of(f, &b);
	assert_int_equal(f->r.lost_records, 1);
	assert_int_equal(f->r.lost, 4);
	assert_int_equal(f->r.untimed_lost_records, 1);
	assert_int_equal(f->r.lost_time_ns, 0);
	assert_int_equal(cpu_row(&f->r, 0)->records, 2);
	text = print_to_string(&f->r);
	assert_non_null(strstr(text, "1 LOST records carry no time"));
	free(text);
	rbuf__release(&b);
}

/*
 * Times from 1 ns to 2^64 - 2 (0 and ~0 mean "no time"): the count of 10 ms
 * windows and the last one's length do not wrap. elapsed = 2^64 - 3 ns:
 * 1844674407371 windows, the last from 1844674407370 windows on, 9551613
 * ns long, holding the one LOST.
 */
static void test_times_near_2_64(void **state)
{
	struct fixture *f = *state;
	const u64 last = ~0ULL - 1;
	struct rbuf b = { 0 };

	fixture__evsel(f, 0, ST_CPU, 11, 12);
	put_sample(&b, ST_CPU, 11, 1, 0);
	put_sample(&b, ST_CPU, 11, last, 0);
	put_lost(&b, ST_CPU, 11, 1, last, 0);
	report_of(f, &b);
	assert_int_equal(f->r.elapsed_ns, ~0ULL - 2);
	assert_int_equal(f->r.nr_windows, 1844674407371ULL);
	assert_int_equal(f->r.lost_windows, 1);
	assert_int_equal(f->r.lost_time_windowed_ns, 9551613);
	assert_true(f->r.loss_metric_windowed <= 1.0);
	rbuf__release(&b);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };
	char want[256];

	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -ENOENT);
	snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", f->path);
	assert_string_equal(f->err, want);
	assert_null(f->r.cpus);

	write_raw(f->path, "this is not a perf.data file at all", 35);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	snprintf(want, sizeof(want), "'%s' is not a perf.data file (bad magic)", f->path);
	assert_string_equal(f->err, want);

	write_raw(f->path, "", 0);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	assert_string_equal(f->err, want);

	/* A record of size 4 after a good one. */
	fixture__evsel(f, 0, ST_CPU, 11, 12);
	put_sample(&b, ST_CPU, 11, T0, 0);
	rbuf__end(&b, rbuf__begin(&b, PERF_RECORD_MMAP));
	memset(b.data + b.len - 2, 0, 2);
	b.data[b.len - 2] = 4;
	write_perf_data(f, f->path, &b, true);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	assert_non_null(strstr(f->err, "corrupt record at offset"));
	assert_non_null(strstr(f->err, "(type 1, size 4)"));

	unlink(f->path);
	assert_int_equal(mkdir(f->path, 0755), 0);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -ENOENT);
	assert_non_null(strstr(f->err, "is a directory without a 'data' file"));
	rbuf__release(&b);
}

/* ---- corrupt files: each read must end, with one line naming the offset ---- */

/* What a read in a child process gave: a loop there is a failure, not a hang. */
struct bounded_read {
	int	ret;
	u64	records, samples;
	char	err[512];
};

#define READ_TIMEOUT_S	10

static void read_bounded(const char *path, struct bounded_read *out)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct bounded_read res = { 0 };
		struct loss_report r;

		close(fds[0]);
		alarm(READ_TIMEOUT_S);
		res.ret = loss_report__read(path, &r, res.err, sizeof(res.err));
		/* A failed read frees the rows but leaves the counts of what it read. */
		res.records = r.records;
		res.samples = r.samples;
		loss_report__exit(&r);
		_exit(write(fds[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(*out));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("reading %s: killed by signal %d (SIGALRM: it did not end in %d s)",
			 path, WTERMSIG(status), READ_TIMEOUT_S);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(n, sizeof(*out));
}

/* PERF_RECORD_AUXTRACE as perf writes it: 48 bytes, then `size` bytes of trace. */
static void put_auxtrace(struct rbuf *b, u64 size)
{
	size_t at = rbuf__begin(b, PERF_RECORD_AUXTRACE);

	rbuf__u64(b, size);	/* size */
	rbuf__u64(b, 0);	/* offset */
	rbuf__u64(b, 0);	/* reference */
	rbuf__u32x2(b, 0, 100);	/* idx, tid */
	rbuf__u32x2(b, 0, 0);	/* cpu, reserved */
	rbuf__end(b, at);
}

/* AUXTRACE trace is skipped: the records after it are read. */
static void test_auxtrace_skipped(void **state)
{
	struct fixture *f = *state;
	static const u8 trace[64] = { [0] = 0xff, [8] = 0x51 };	/* not records */
	struct rbuf b = { 0 };

	put_pipe_start(&b, ST_CPU);
	put_sample(&b, ST_CPU, 11, T0, 0);
	put_auxtrace(&b, sizeof(trace));
	rbuf__put(&b, trace, sizeof(trace));
	put_sample(&b, ST_CPU, 11, T0 + MS, 0);
	put_sample(&b, ST_CPU, 12, T0 + 2 * MS, 1);
	/* Its trace ends the file exactly: not a partial record. */
	put_auxtrace(&b, sizeof(trace));
	rbuf__put(&b, trace, sizeof(trace));
	write_raw(f->path, b.data, b.len);
	read_ok(f, f->path);
	assert_int_equal(f->r.samples, 3);
	assert_int_equal(f->r.records, 6);
	assert_int_equal(f->r.truncated_bytes, 0);
	rbuf__release(&b);
}

/*
 * An AUXTRACE record whose size, added to the offset, wraps it back onto the
 * record: 32 bytes that once kept the reader going round forever.
 */
static void test_auxtrace_size_wraps(void **state)
{
	struct fixture *f = *state;
	struct { u64 magic, size; } hdr = { PERF_MAGIC, 16 };
	struct bounded_read res;
	struct rbuf b = { 0 };
	size_t at;

	rbuf__put(&b, &hdr, sizeof(hdr));
	at = rbuf__begin(&b, PERF_RECORD_AUXTRACE);
	rbuf__u64(&b, -16ULL);
	rbuf__end(&b, at);
	assert_int_equal(b.len, 32);
	write_raw(f->path, b.data, b.len);
	read_bounded(f->path, &res);
	assert_int_equal(res.ret, -EINVAL);
	assert_non_null(strstr(res.err, "': bad AUXTRACE record at offset 0x10 of "));
	assert_non_null(strstr(res.err, ": 18446744073709551600 bytes of trace follow it, "
				       "the data holds 0"));
	assert_null(strchr(res.err, '\n'));
	rbuf__release(&b);
}

/* A size past the end of the data: an error, and the records before it are counted. */
static void test_auxtrace_size_past_end(void **state)
{
	struct fixture *f = *state;
	struct bounded_read res;
	struct rbuf b = { 0 };
	char want[64];
	size_t at;

	put_pipe_start(&b, ST_CPU);
	put_sample(&b, ST_CPU, 11, T0, 0);
	put_sample(&b, ST_CPU, 12, T0 + MS, 1);
	at = b.len;
	put_auxtrace(&b, 65);
	rbuf__put(&b, "64 bytes of trace, one short of what the record says it has....", 64);
	write_raw(f->path, b.data, b.len);
	read_bounded(f->path, &res);
	assert_int_equal(res.ret, -EINVAL);
	snprintf(want, sizeof(want), "bad AUXTRACE record at offset %#zx of ", at);
	assert_non_null(strstr(res.err, want));
	assert_non_null(strstr(res.err, ": 65 bytes of trace follow it, the data holds 64"));
	/* HEADER_ATTR and the two samples; not the bad record. */
	assert_int_equal(res.records, 3);
	assert_int_equal(res.samples, 2);
	rbuf__release(&b);
}

/* A record of `type` with `n` bytes of body (zero but for *body when given). */
static void put_raw_record(struct rbuf *b, u32 type, const void *body, size_t n)
{
	static const u8 zero[256];
	size_t at = rbuf__begin(b, type);

	rbuf__put(b, body ? body : zero, n);
	rbuf__end(b, at);
}

/* Read a pipe-mode file of a good sample then `bad`: its message, offset included. */
static void check_bad_record(struct fixture *f, const struct rbuf *bad, const char *why)
{
	struct rbuf b = { 0 };
	char want[512];
	size_t at;

	put_pipe_start(&b, ST_CPU);
	put_sample(&b, ST_CPU, 11, T0, 0);
	at = b.len;
	rbuf__put(&b, bad->data, bad->len);
	put_sample(&b, ST_CPU, 11, T0 + MS, 0);
	write_raw(f->path, b.data, b.len);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	snprintf(want, sizeof(want), "'%s': %s at offset %#zx of %s: ", f->path, why, at, f->path);
	if (strncmp(f->err, want, strlen(want)))
		fail_msg("message '%s', want it to start '%s'", f->err, want);
	assert_null(strchr(f->err, '\n'));
	/* HEADER_ATTR and the sample before. */
	assert_int_equal(f->r.records, 3);
	assert_int_equal(f->r.samples, 1);
	rbuf__release(&b);
}

/* Records too short for their fields, or whose counts do not fit: the offset is named. */
static void test_bad_records(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr attr = { .size = 32, .sample_type = ST_CPU };
	struct rbuf bad = { 0 };
	u64 nr = 3;

	put_raw_record(&bad, PERF_RECORD_LOST, NULL, 8);
	check_bad_record(f, &bad, "bad LOST record");
	assert_non_null(strstr(f->err, ": 16 bytes, too short for its fields"));
	rbuf__release(&bad);

	put_raw_record(&bad, PERF_RECORD_LOST_SAMPLES, NULL, 0);
	check_bad_record(f, &bad, "bad LOST_SAMPLES record");
	rbuf__release(&bad);

	/* Once ignored: an ID_INDEX without its count. */
	put_raw_record(&bad, PERF_RECORD_ID_INDEX, NULL, 0);
	check_bad_record(f, &bad, "bad ID_INDEX record");
	assert_non_null(strstr(f->err, ": 8 bytes, too short for its count"));
	rbuf__release(&bad);

	/* Three entries announced, room for two. */
	put_raw_record(&bad, PERF_RECORD_ID_INDEX, NULL, 8 + 64);
	memcpy(bad.data + 8, &nr, sizeof(nr));
	check_bad_record(f, &bad, "bad ID_INDEX record");
	assert_non_null(strstr(f->err, ": 3 entries in 80 bytes"));
	rbuf__release(&bad);

	/* attr.size 32: below the first ABI's 64, whatever the record's size. */
	put_raw_record(&bad, PERF_RECORD_HEADER_ATTR, NULL, 128);
	memcpy(bad.data + 8, &attr, sizeof(attr));
	check_bad_record(f, &bad, "bad HEADER_ATTR record");
	assert_non_null(strstr(f->err, ": an attr of 32 bytes in 136"));
	rbuf__release(&bad);

	attr.size = 200;
	put_raw_record(&bad, PERF_RECORD_HEADER_ATTR, NULL, 128);
	memcpy(bad.data + 8, &attr, sizeof(attr));
	check_bad_record(f, &bad, "bad HEADER_ATTR record");
	assert_non_null(strstr(f->err, ": an attr of 200 bytes in 136"));
	rbuf__release(&bad);
}

/* A bad record out of compressed data: the COMPRESSED record it came from is named. */
static void test_bad_compressed_record(void **state)
{
	struct fixture *f = *state;
	struct rbuf plain = { 0 }, b = { 0 };
	struct emit_ctx e = { .out = &b };
	struct zcomp *z = zcomp__new(3);
	char want[512];
	size_t at;

	assert_non_null(z);
	put_sample(&plain, ST_CPU, 11, T0, 0);
	put_raw_record(&plain, PERF_RECORD_LOST, NULL, 8);
	put_pipe_start(&b, ST_CPU);
	at = b.len;
	assert_int_equal(zcomp__compress(z, plain.data, plain.len, emit_record, &e), 0);
	zcomp__delete(z);
	assert_int_equal(e.nr, 1);
	write_raw(f->path, b.data, b.len);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	snprintf(want, sizeof(want), "'%s': bad LOST record in the COMPRESSED record at offset "
		 "%#zx of %s: 16 bytes, too short for its fields", f->path, at, f->path);
	assert_string_equal(f->err, want);
	assert_int_equal(f->r.samples, 1);

	/* A COMPRESSED record in compressed data. */
	plain.data[plain.len - 16] = PERF_RECORD_COMPRESSED;
	b.len = at;
	e.nr = 0;
	z = zcomp__new(3);
	assert_non_null(z);
	assert_int_equal(zcomp__compress(z, plain.data, plain.len, emit_record, &e), 0);
	zcomp__delete(z);
	write_raw(f->path, b.data, b.len);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	snprintf(want, sizeof(want), "'%s': corrupt record (type 81, size 16) in the COMPRESSED "
		 "record at offset %#zx of %s", f->path, at, f->path);
	assert_string_equal(f->err, want);
	rbuf__release(&plain);
	rbuf__release(&b);
}

/* ---- header sections that do not fit the file ---- */

static void read_header(const char *path, struct perf_file_header *hdr)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, hdr, sizeof(*hdr), 0), (ssize_t)sizeof(*hdr));
	close(fd);
}

static void patch_u64(const char *path, u64 off, u64 v)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof(v), (off_t)off), (ssize_t)sizeof(v));
	close(fd);
}

static u64 file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (u64)st.st_size;
}

#define HDR_FIELD(f)	offsetof(struct perf_file_header, f)

/* The file of two_cpu_records(), its header in *hdr; the offset of attr 0's ids section. */
static u64 good_file(struct fixture *f, struct perf_file_header *hdr)
{
	struct rbuf b = { 0 };

	two_cpu_records(&b, ST_CPU);
	write_perf_data(f, f->path, &b, true);
	rbuf__release(&b);
	read_header(f->path, hdr);
	return hdr->attrs.offset + hdr->attr_size - sizeof(struct perf_file_section);
}

/* Read f->path: -EINVAL and exactly `want`. */
static void check_header_error(struct fixture *f, const char *want)
{
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	assert_string_equal(f->err, want);
}

static void test_bad_header_sections(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	char want[512];
	u64 ids_at, size;

	fixture__evsel(f, 0, ST_CPU, 11, 12);

	/* An attrs offset that wraps: once a short read, now named. */
	good_file(f, &hdr);
	patch_u64(f->path, HDR_FIELD(attrs.offset), -8ULL);
	snprintf(want, sizeof(want), "'%s': bad attrs section of %s (%" PRIu64 " bytes at offset "
		 "0xfffffffffffffff8): past the end of the file (%" PRIu64 " bytes)", f->path,
		 f->path, hdr.attrs.size, file_size(f->path));
	check_header_error(f, want);

	/* attrs 8 bytes past the end. */
	good_file(f, &hdr);
	size = file_size(f->path);
	patch_u64(f->path, HDR_FIELD(attrs.offset), size - hdr.attrs.size + 8);
	snprintf(want, sizeof(want), "'%s': bad attrs section of %s (%" PRIu64 " bytes at offset "
		 "%#" PRIx64 "): past the end of the file (%" PRIu64 " bytes)", f->path, f->path,
		 hdr.attrs.size, size - hdr.attrs.size + 8, size);
	check_header_error(f, want);

	good_file(f, &hdr);
	patch_u64(f->path, HDR_FIELD(attr_size), 8);
	snprintf(want, sizeof(want), "'%s': bad attrs section of %s (%" PRIu64 " bytes at offset "
		 "%#" PRIx64 "): attr_size 8 is too small for an attr and its ids section",
		 f->path, f->path, hdr.attrs.size, hdr.attrs.offset);
	check_header_error(f, want);

	/* Attr 0's two ids, the second past the end of the file. */
	ids_at = good_file(f, &hdr);
	size = file_size(f->path);
	patch_u64(f->path, ids_at, size - 8);
	snprintf(want, sizeof(want), "'%s': bad ids section of the attr at offset %#" PRIx64
		 " of %s (16 bytes at offset %#" PRIx64 "): past the end of the file (%" PRIu64
		 " bytes)", f->path, hdr.attrs.offset, f->path, size - 8, size);
	check_header_error(f, want);

	good_file(f, &hdr);
	patch_u64(f->path, ids_at + 8, 12);
	assert_int_equal(loss_report__read(f->path, &f->r, f->err, sizeof(f->err)), -EINVAL);
	assert_non_null(strstr(f->err, "(12 bytes at offset"));
	assert_non_null(strstr(f->err, "): not a whole number of ids"));
}

/* The data section: not over the header, not past 2^64; past the file: missing. */
static void test_bad_data_section(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	char want[512];
	u64 size;

	fixture__evsel(f, 0, ST_CPU, 11, 12);

	/* Once read as records from byte 0: the header's own bytes. */
	good_file(f, &hdr);
	patch_u64(f->path, HDR_FIELD(data.offset), 0);
	snprintf(want, sizeof(want), "'%s': bad data section of %s (%" PRIu64 " bytes at offset "
		 "0): it overlaps the 104-byte header", f->path, f->path, hdr.data.size);
	check_header_error(f, want);

	/* Once a wrapped end and an empty report. */
	good_file(f, &hdr);
	patch_u64(f->path, HDR_FIELD(data.size), 0 - hdr.data.offset);
	snprintf(want, sizeof(want), "'%s': bad data section of %s (%" PRIu64 " bytes at offset "
		 "%#" PRIx64 "): its end is past 2^64", f->path, f->path, 0 - hdr.data.offset,
		 hdr.data.offset);
	check_header_error(f, want);

	/* Wholly past the end of the file: its size is missing, not more. */
	good_file(f, &hdr);
	size = file_size(f->path);
	patch_u64(f->path, HDR_FIELD(data.offset), size + 100);
	patch_u64(f->path, HDR_FIELD(data.size), 50);
	read_ok(f, f->path);
	assert_int_equal(f->r.records, 0);
	assert_int_equal(f->r.missing_bytes, 50);
}

/*
 * Two attrs whose ids sections are one array of 40 MiB (a sparse end of the
 * file): each fits the file, together they pass the 64 MiB bound on ids.
 */
static void test_ids_bound(void **state)
{
	struct fixture *f = *state;
	const u64 big = 40ULL << 20;
	struct perf_file_header hdr;
	char want[512];
	u64 ids_at, size;

	fixture__evsel(f, 0, ST_CPU, 11, 12);
	fixture__evsel(f, 1, ST_CPU, 13, 14);
	ids_at = good_file(f, &hdr);
	size = file_size(f->path);
	assert_int_equal(truncate(f->path, (off_t)(size + big)), 0);
	patch_u64(f->path, ids_at, size);
	patch_u64(f->path, ids_at + 8, big);
	patch_u64(f->path, ids_at + hdr.attr_size, size);
	patch_u64(f->path, ids_at + hdr.attr_size + 8, big);
	snprintf(want, sizeof(want), "'%s': bad ids section of the attr at offset %#" PRIx64
		 " of %s (%" PRIu64 " bytes at offset %#" PRIx64 "): the id arrays add up to "
		 "more than 64 MiB", f->path, hdr.attrs.offset + hdr.attr_size, f->path, big, size);
	check_header_error(f, want);
}

/* ---- the command ---- */

/* Run cmd_report with stdout and stderr sent to files; returns the status. */
static int run_cmd(struct fixture *f, const char *out, const char *errf, int argc, char **argv)
{
	int o = dup(1), e = dup(2), fo, fe, status;

	fflush(stdout);
	fflush(stderr);
	fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	status = cmd_report(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	close(fo);
	close(fe);
	return status;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_cmd_report(void **state)
{
	struct fixture *f = *state;
	char out[128], errf[128], missing[128];
	char *argv_ok[] = { "report", "--loss", f->path, NULL };
	char *argv_two[] = { "report", "--loss", missing, f->path, NULL };
	char *argv_noloss[] = { "report", f->path, NULL };
	char *argv_bad[] = { "report", "--loss", "--frobnicate", NULL };
	char *text;

	snprintf(out, sizeof(out), "%s/out", f->dir);
	snprintf(errf, sizeof(errf), "%s/err", f->dir);
	snprintf(missing, sizeof(missing), "%s/missing.data", f->dir);
	write_two_cpus(f, f->path, true);

	assert_int_equal(run_cmd(f, out, errf, 3, argv_ok), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "[ precord: "));
	assert_non_null(strstr(text, ": 120 samples, 170 lost (58.62% of 290)"));
	assert_string_equal(slurp(errf), "");

	/* One report per file; a missing one is a one-line error and status 1. */
	assert_int_equal(run_cmd(f, out, errf, 4, argv_two), 1);
	assert_non_null(strstr(slurp(out), ": 120 samples"));
	text = slurp(errf);
	assert_non_null(strstr(text, "precord: cannot open '"));
	assert_non_null(strstr(text, "missing.data': No such file or directory\n"));
	assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);

	assert_int_equal(run_cmd(f, out, errf, 2, argv_noloss), 129);
	assert_non_null(strstr(slurp(errf), "use 'precord report --loss"));
	assert_int_equal(run_cmd(f, out, errf, 3, argv_bad), 129);
	assert_non_null(strstr(slurp(errf), "unknown option '--frobnicate'"));
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/*
 * --svg: one row per CPU, one red rect per joined interval, placed on the
 * plot (x 80 to 930 px over the 99 ms recording): CPU 0's [41.680673,
 * 52] ms is x 437.9, 88.6 wide; its 0.83 ms at the end 7.1 wide; CPU 1's
 * first interval starts at the left edge. The file name is escaped.
 */
static void test_cmd_report_svg(void **state)
{
	struct fixture *f = *state;
	char out[128], errf[128], svg[128], data[128];
	char *argv_svg[] = { "report", "--loss", "--svg", svg, data, NULL };
	char *argv_two[] = { "report", "--loss", "--svg", svg, data, data, NULL };
	char *argv_empty[] = { "report", "--loss", "--svg=", data, NULL };
	char *text;

	snprintf(out, sizeof(out), "%s/out", f->dir);
	snprintf(errf, sizeof(errf), "%s/err", f->dir);
	snprintf(svg, sizeof(svg), "%s/loss.svg", f->dir);
	snprintf(data, sizeof(data), "%s/a<&>.data", f->dir);
	write_two_cpus(f, data, true);

	assert_int_equal(run_cmd(f, out, errf, 5, argv_svg), 0);
	assert_string_equal(slurp(errf), "");
	assert_non_null(strstr(slurp(out), ": 120 samples, 170 lost (58.62% of 290)"));
	text = slurp(svg);
	assert_true(!strncmp(text, "<?xml", 5));
	assert_non_null(strstr(text, "</svg>\n"));
	assert_non_null(strstr(text, "a&lt;&amp;&gt;.data</text>"));
	assert_int_equal(count(text, ">cpu 0</text>"), 1);
	assert_int_equal(count(text, ">cpu 1</text>"), 1);
	assert_int_equal(count(text, "fill=\"#d62728\"><title>"), 4);
	assert_non_null(strstr(text, "<rect x=\"437.9\" y=\"70.0\" width=\"88.6\" "
				     "height=\"12.0\" fill=\"#d62728\"><title>cpu 0: 15 records "
				     "lost between 0.041681 s and 0.052000 s</title></rect>"));
	assert_non_null(strstr(text, "<rect x=\"922.9\" y=\"70.0\" width=\"7.1\""));
	assert_non_null(strstr(text, "<rect x=\"80.0\" y=\"86.0\" width=\"94.4\""));
	assert_non_null(strstr(text, "11.151 ms (11.26%)"));

	/* One recording per drawing, and a name for it. */
	assert_int_equal(run_cmd(f, out, errf, 6, argv_two), 129);
	assert_non_null(strstr(slurp(errf), "--svg takes a file name and draws one recording"));
	assert_int_equal(run_cmd(f, out, errf, 4, argv_empty), 129);
}

#define fixture_test(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_two_cpus),
		fixture_test(test_compressed),
		fixture_test(test_cpu_minus_one),
		fixture_test(test_many_ids),
		fixture_test(test_id_index_attribution),
		fixture_test(test_perf_system_wide),
		fixture_test(test_directory),
		fixture_test(test_directory_data_only),
		fixture_test(test_pipe_mode),
		fixture_test(test_unfinished),
		fixture_test(test_untimed_lost),
		fixture_test(test_times_near_2_64),
		fixture_test(test_errors),
		fixture_test(test_auxtrace_skipped),
		fixture_test(test_auxtrace_size_wraps),
		fixture_test(test_auxtrace_size_past_end),
		fixture_test(test_bad_records),
		fixture_test(test_bad_compressed_record),
		fixture_test(test_bad_header_sections),
		fixture_test(test_bad_data_section),
		fixture_test(test_ids_bound),
		fixture_test(test_cmd_report),
		fixture_test(test_cmd_report_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
