// SPDX-License-Identifier: GPL-2.0
/*
 * test_sample.c — the layout of perf records (src/sample.c): for every
 * combination of the sample_type bits that move the id and the time, the
 * positions found against records laid out field by field in the kernel's
 * order; the sample_id trailer written and read back; the id map grown
 * past its first table; which attr a record belongs to and its time, for
 * samples and other records, ids unknown, zero or cut off.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "precord/sample.h"
#include "precord/util.h"

#define HDR		sizeof(struct perf_event_header)
#define ID_MARK		0x1d1d1d1d1d1d1d1dULL
#define TIME_MARK	0x7e7e7e7e7e7e7e7eULL

/* The bits whose presence moves the id or the time, in a sample or a trailer. */
static const u64 bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
};

static u64 type_of(unsigned int mask)
{
	u64 st = 0;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (mask & (1u << i))
			st |= bits[i];
	return st;
}

/* A sample's fixed fields in the order perf_output_sample() writes them. */
static const u64 sample_order[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
};

/* The sample_id trailer's, as perf_event_header__init_id() lays it out. */
static const u64 trailer_order[] = {
	PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
	PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
};

/* The words of the fields of st in order, the id and the time marked: their count. */
static int build(u64 st, const u64 *order, size_t n, u64 *w)
{
	size_t i;
	int k = 0;

	for (i = 0; i < n; i++) {
		if (!(st & order[i]))
			continue;
		w[k++] = order[i] == PERF_SAMPLE_TIME ? TIME_MARK :
			 order[i] & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER) ? ID_MARK : i + 1;
	}
	return k;
}

static void test_positions(void **state)
{
	unsigned int mask;

	for (mask = 0; mask < 1u << 8; mask++) {
		u64 st = type_of(mask), w[8];
		int n = build(st, sample_order, ARRAY_SIZE(sample_order), w), id = sample__id_pos(st), t = sample__time_pos(st);

		if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) {
			assert_in_range(id, 0, n - 1);
			assert_true(w[id] == ID_MARK);
		} else {
			assert_int_equal(id, -1);
		}
		if (st & PERF_SAMPLE_TIME) {
			assert_in_range(t, 0, n - 1);
			assert_true(w[t] == TIME_MARK);
		} else {
			assert_int_equal(t, -1);
		}
		n = build(st, trailer_order, ARRAY_SIZE(trailer_order), w);
		assert_int_equal(sample_id__size(st), 8 * (size_t)n);
		id = sample_id__id_back(st);
		t = sample_id__time_back(st);
		if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
			assert_true(id >= 1 && id <= n && w[n - id] == ID_MARK);
		else
			assert_int_equal(id, -1);
		if (st & PERF_SAMPLE_TIME)
			assert_true(t >= 1 && t <= n && w[n - t] == TIME_MARK);
		else
			assert_int_equal(t, -1);
	}
}

static void test_trailer_round_trip(void **state)
{
	unsigned int mask;

	for (mask = 0; mask < 1u << 8; mask++) {
		u64 st = type_of(mask);
		struct sample_id sid = { .pid = 11, .tid = 12, .time = 13, .id = 14, .cpu = 3 };
		u8 rec[HDR + 16 + SAMPLE_ID_MAX] = { 0 };
		struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 0 };
		struct sample_fields f = { 0 };
		size_t n = sample_id__write(rec + HDR + 16, st, &sid);

		assert_int_equal(n, sample_id__size(st));
		assert_true(n <= SAMPLE_ID_MAX);
		h.size = (u16)(HDR + 16 + n);
		memcpy(rec, &h, sizeof(h));
		sample_id__read_fields(rec, h.size, 16, st, &f);
		assert_int_equal(f.has_time, !!(st & PERF_SAMPLE_TIME));
		assert_int_equal(f.has_cpu, !!(st & PERF_SAMPLE_CPU));
		assert_int_equal(f.has_id, !!(st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)));
		if (f.has_time)
			assert_true(f.time == 13);
		if (f.has_cpu)
			assert_int_equal(f.cpu, 3);
		if (f.has_id)
			assert_true(f.id == 14);
		/* a record too short for its own fields and the trailer: nothing read */
		memset(&f, 0, sizeof(f));
		if (n) {
			sample_id__read_fields(rec, h.size - 8, 16, st, &f);
			assert_false(f.has_time || f.has_cpu || f.has_id);
		}
	}
}

static void test_read_sample_fields(void **state)
{
	u64 st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	u8 rec[HDR + 6 * 8];
	u64 w[6] = { 1, 2, 42, 77, 5, 1000 };
	struct sample_fields f = { 0 };

	memset(rec, 0, HDR);
	memcpy(rec + HDR, w, sizeof(w));
	sample__read_fields(rec, sizeof(rec), st, &f);
	assert_true(f.has_time && f.time == 42);
	assert_true(f.has_id && f.id == 77);
	assert_true(f.has_cpu && f.cpu == 5);
	/* cut after the time: no id, no CPU */
	memset(&f, 0, sizeof(f));
	sample__read_fields(rec, HDR + 3 * 8, st, &f);
	assert_true(f.has_time && !f.has_id && !f.has_cpu);
}

static void test_id_map(void **state)
{
	struct id_map m = { 0 };
	struct id_entry *e;
	u64 id;

	assert_null(id_map__find(&m, 1));
	for (id = 1; id <= 1000; id++) {
		e = id_map__get(&m, id * 0x10001);
		assert_non_null(e);
		assert_int_equal(e->attr, -1);
		assert_int_equal(e->cpu, ID_CPU_UNKNOWN);
		e->attr = (int)id;
	}
	assert_int_equal(m.nr, 1000);
	assert_true(m.cap >= 2000);
	for (id = 1; id <= 1000; id++) {
		e = id_map__find(&m, id * 0x10001);
		assert_non_null(e);
		assert_int_equal(e->attr, (int)id);
		assert_ptr_equal(id_map__get(&m, id * 0x10001), e);
	}
	assert_null(id_map__find(&m, 3));
	id_map__exit(&m);
}

/* A record of type with body words w[0..n) after its header. */
static size_t record(u8 *buf, u32 type, const u64 *w, int n)
{
	struct perf_event_header h = { .type = type, .size = (u16)(HDR + 8 * (size_t)n) };

	memcpy(buf, &h, sizeof(h));
	if (n)
		memcpy(buf + HDR, w, 8 * (size_t)n);
	return h.size;
}

static void test_attrs(void **state)
{
	struct perf_event_attr a0 = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
	};
	struct perf_event_attr a1 = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.sample_id_all = 1,
	};
	struct sample_attrs sa = { 0 };
	u8 rec[128];
	u64 id;

	assert_int_equal(sample_attrs__add(&sa, &a0), 0);
	assert_int_equal(sample_attrs__add(&sa, &a1), 1);
	assert_int_equal(sample_attrs__add_id(&sa, 0, 100), 0);
	assert_int_equal(sample_attrs__add_id(&sa, 1, 200), 0);

	/* samples: {IDENTIFIER, TID, TIME} and {IDENTIFIER, IP, TID, TIME, CPU} */
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 100, 7, 5000 }, 3);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 0);
	assert_true(sample_attrs__time(&sa, rec) == 5000);
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 200, 1, 7, 6000, 0 }, 5);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 1);
	assert_true(sample_attrs__time(&sa, rec) == 6000);
	/* an id no attr has, or a record cut before the time: no time */
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 300, 7, 5000 }, 3);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), -1);
	assert_true(sample_attrs__time(&sa, rec) == 0);
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 200, 1, 7 }, 3);
	assert_true(sample_attrs__time(&sa, rec) == 0);
	/* id 0: the first attr */
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 0, 7, 5100 }, 3);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 0);
	assert_true(sample_attrs__time(&sa, rec) == 5100);

	/* a COMM with the trailer {TID, TIME, CPU, IDENTIFIER} of attr 1 */
	record(rec, PERF_RECORD_COMM, (u64[]){ 1, 2, 3, 7, 6100, 0, 200 }, 7);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 1);
	assert_true(sample_attrs__time(&sa, rec) == 6100);
	assert_int_equal(sample_attrs__record_id(&sa, rec, HDR + 56, 24, &id), 1);
	assert_true(id == 200);
	assert_int_equal(sample_attrs__record_id(&sa, rec, HDR + 56, 56, &id), -1);
	/* user records have no time */
	record(rec, PERF_RECORD_FINISHED_ROUND, NULL, 0);
	assert_true(sample_attrs__time(&sa, rec) == 0);
	sample_attrs__exit(&sa);

	/* one attr: every record is its own, whatever its id */
	assert_int_equal(sample_attrs__add(&sa, &a0), 0);
	record(rec, PERF_RECORD_SAMPLE, (u64[]){ 999, 7, 7000 }, 3);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 0);
	assert_true(sample_attrs__time(&sa, rec) == 7000);
	sample_attrs__exit(&sa);

	/* no sample_id_all: other records carry no id and no time */
	a0.sample_id_all = 0;
	assert_int_equal(sample_attrs__add(&sa, &a0), 0);
	assert_int_equal(sample_attrs__add(&sa, &a1), 1);
	record(rec, PERF_RECORD_COMM, (u64[]){ 1, 2, 7, 6100, 200 }, 5);
	assert_int_equal(sample_attrs__record_id(&sa, rec, HDR + 40, 0, &id), 0);
	assert_int_equal(sample_attrs__attr_of(&sa, rec), 0);
	assert_true(sample_attrs__time(&sa, rec) == 0);
	sample_attrs__exit(&sa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_trailer_round_trip),
		cmocka_unit_test(test_read_sample_fields),
		cmocka_unit_test(test_id_map),
		cmocka_unit_test(test_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
