// SPDX-License-Identifier: GPL-2.0
/*
 * test_pipe.c — the start of a pipe-mode stream, read back the way perf
 * reads a pipe: record by record from header.size, the tracing data after
 * its record. The evlist is built by hand; the topology is synthetic, so
 * the features do not depend on the host.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/pipe.h"
#include "precord/header.h"
#include "precord/evlist.h"
#include "precord/topology.h"
#include "helpers.h"

#define ST_PIPE		(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME)

struct fixture {
	struct test_evpair ev;
	struct topology	*topo;
	struct header_env env;
	struct rbuf	out;		/* what emit got */
	int		calls, fail_at;	/* emit fails with -EPIPE on call fail_at (0: never) */
};

static int capture(void *ctx, const void *data, size_t size)
{
	struct fixture *f = ctx;

	if (f->fail_at && ++f->calls == f->fail_at)
		return -EPIPE;
	return rbuf__emit(&f->out, data, size);
}

static int setup(void **state)
{
	static const char *argv[] = { "precord", "-o", "-" };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	test_evpair__init(&f->ev, ST_PIPE, PERF_COUNT_SW_DUMMY, "dummy:HG");
	f->ev.evsel[0].attr.size = 64;	/* whatever the evsel says, the record has this build's */
	f->topo = topology__new_synthetic("pack:1 numa:1 core:2 pu:2");
	if (!f->topo) {
		free(f);
		return -1;
	}
	f->env = (struct header_env){ .argc = 3, .argv = argv, .topo = f->topo,
				      .no_buildid = true };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	topology__delete(f->topo);
	rbuf__release(&f->out);
	free(f);
	return 0;
}

/* ---- reading the stream back as perf does ---- */

/*
 * The stream is not 8-byte aligned (a feature record is any size, as in
 * perf's): each record is read into an aligned copy, as perf's pipe reader
 * reads it into a buffer of its own.
 */
struct walk {
	const unsigned char	*p, *end;
	void			*copy;	/* the last record read, valid until the next */
};

static void walk__init(struct walk *w, const struct fixture *f)
{
	free(w->copy);
	*w = (struct walk){ f->out.data, f->out.data + f->out.len, NULL };
}

/* The next record (NULL at the end); *extra: bytes after it that are not records. */
static const struct perf_event_header *walk__next(struct walk *w, size_t *extra)
{
	struct perf_event_header h;
	struct pipe_tracing_record td;

	*extra = 0;
	free(w->copy);
	w->copy = NULL;
	if (w->p == w->end)
		return NULL;
	assert_true(w->p + sizeof(h) <= w->end);
	memcpy(&h, w->p, sizeof(h));
	assert_true(h.size >= sizeof(h));
	assert_true(w->p + h.size <= w->end);
	if (h.type == PERF_RECORD_HEADER_TRACING_DATA) {
		assert_int_equal(h.size, sizeof(td));
		memcpy(&td, w->p, sizeof(td));
		*extra = td.size;
	}
	assert_true(w->p + h.size + *extra <= w->end);
	w->copy = malloc(h.size + *extra);
	assert_non_null(w->copy);
	memcpy(w->copy, w->p, h.size + *extra);
	w->p += h.size + *extra;
	return w->copy;
}

static const struct perf_event_attr *attr_of(const struct perf_event_header *h, u64 **ids,
					     size_t *nr)
{
	const struct perf_event_attr *attr = (const void *)(h + 1);

	*ids = (u64 *)((char *)attr + attr->size);
	*nr = (h->size - sizeof(*h) - attr->size) / sizeof(u64);
	return attr;
}

/* ---- the tests ---- */

static void test_header(void **state)
{
	struct fixture *f = *state;
	const struct pipe_file_header *hdr;

	assert_int_equal(pipe__write_header(capture, f), 0);
	assert_int_equal(f->out.len, 16);
	hdr = (const void *)f->out.data;
	assert_memory_equal(&hdr->magic, "PERFILE2", 8);
	assert_int_equal(hdr->size, 16);
}

static void check_attr(const struct perf_event_header *h, const struct evsel *evsel)
{
	const struct perf_event_attr *attr;
	size_t nr;
	u64 *ids;

	assert_int_equal(h->type, PERF_RECORD_HEADER_ATTR);
	attr = attr_of(h, &ids, &nr);
	assert_int_equal(attr->size, sizeof(struct perf_event_attr));
	assert_int_equal(attr->config, evsel->attr.config);
	assert_int_equal(attr->sample_type, evsel->attr.sample_type);
	assert_int_equal(nr, evsel->nr_ids);
	assert_memory_equal(ids, evsel->ids, nr * sizeof(u64));
	assert_int_equal(h->size % 8, 0);
}

static void check_name(const struct perf_event_header *h, const struct evsel *evsel,
		       u16 perf_size)
{
	const u64 *p = (const void *)(h + 1);

	assert_int_equal(h->type, PERF_RECORD_EVENT_UPDATE);
	assert_int_equal(h->size, perf_size);
	assert_int_equal(p[0], PIPE_EVENT_UPDATE_NAME);
	assert_int_equal(p[1], evsel->ids[0]);
	assert_string_equal((const char *)(p + 2), evsel->name);
}

/*
 * No tracepoint: two attrs, the features header.c builds (those perf sends)
 * with their payloads as in a file, the end mark, two names. Nothing else.
 */
static void test_synthesize(void **state)
{
	struct fixture *f = *state;
	const struct perf_event_header *h;
	struct header_payload *feats;
	struct walk w = { 0 };
	int nr_feats, i = 0, last = 0;
	size_t extra;
	u64 dropped = ~0ULL, seen = 0;

	assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, &dropped), 0);
	assert_int_equal(dropped, 0);
	assert_int_equal(header__feature_payloads(&f->ev.evlist, &f->env, &feats, &nr_feats), 0);
	walk__init(&w, f);

	check_attr(walk__next(&w, &extra), &f->ev.evsel[0]);
	check_attr(walk__next(&w, &extra), &f->ev.evsel[1]);
	while ((h = walk__next(&w, &extra)) && h->type == PERF_RECORD_HEADER_FEATURE) {
		const struct pipe_feature_record *fe = (const void *)h;

		if (fe->feat_id == HEADER_LAST_FEATURE) {
			assert_int_equal(h->size, sizeof(*fe));
			h = walk__next(&w, &extra);
			break;
		}
		assert_true((int)fe->feat_id > last);
		last = (int)fe->feat_id;
		seen |= 1ULL << last;
		assert_true(pipe__feature_is_sent(last));
		while (i < nr_feats && feats[i].feat != last)
			i++;
		assert_true(i < nr_feats);	/* one header.c built */
		assert_int_equal(h->size, sizeof(*fe) + feats[i].size);
		assert_memory_equal(fe + 1, feats[i].data, feats[i].size);
	}
	/* every feature header.c built that perf sends is there */
	for (i = 0; i < nr_feats; i++)
		if (pipe__feature_is_sent(feats[i].feat))
			assert_true(seen & (1ULL << feats[i].feat));
	assert_true(seen & (1ULL << HEADER_EVENT_DESC));
	assert_true(seen & (1ULL << HEADER_SAMPLE_TIME));
	header_payloads__free(feats, nr_feats);

	/* perf 6.1 sizes: "cpu-clock" 10 bytes → 56, "dummy:HG" 9 → 56 */
	check_name(h, &f->ev.evsel[0], 56);
	check_name(walk__next(&w, &extra), &f->ev.evsel[1], 56);
	assert_null(walk__next(&w, &extra));
}

static const char fake_tracing[] = "tracing data of 29 bytes, no";

static ssize_t fake_tracing_data(int fd, struct evlist *evlist)
{
	return write(fd, fake_tracing, 29) == 29 ? 29 : -EIO;
}

static ssize_t failing_tracing_data(int fd, struct evlist *evlist)
{
	return -EACCES;
}

/* A tracepoint: TRACING_DATA after the end mark, the data padded to 8 outside the record. */
static void test_tracing_data(void **state)
{
	struct fixture *f = *state;
	const struct perf_event_header *h;
	const struct pipe_tracing_record *td = NULL;
	struct walk w = { 0 };
	size_t extra;
	bool end_seen = false;

	f->ev.evsel[1].attr.type = PERF_TYPE_TRACEPOINT;
	f->ev.evsel[1].attr.config = 316;
	f->ev.evsel[1].name = "sched:sched_switch";
	f->env.tracing_data = fake_tracing_data;
	assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, NULL), 0);
	walk__init(&w, f);
	while ((h = walk__next(&w, &extra))) {
		if (h->type == PERF_RECORD_HEADER_FEATURE &&
		    ((const struct pipe_feature_record *)h)->feat_id == HEADER_LAST_FEATURE)
			end_seen = true;
		if (h->type != PERF_RECORD_HEADER_TRACING_DATA)
			continue;
		assert_true(end_seen);
		td = (const void *)h;
		assert_int_equal(h->size, 16);
		assert_int_equal(td->size, 32);
		assert_int_equal(extra, 32);
		assert_memory_equal(td + 1, fake_tracing, 29);
		assert_memory_equal((const char *)(td + 1) + 29, "\0\0\0", 3);
		check_name(walk__next(&w, &extra), &f->ev.evsel[0], 56);
		check_name(walk__next(&w, &extra), &f->ev.evsel[1], 64);	/* perf's 64 */
	}
	assert_non_null(td);

	/* tracing data that cannot be built ends it with the error */
	f->out.len = 0;
	f->env.tracing_data = failing_tracing_data;
	assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, NULL), -EACCES);
}

/*
 * Records have a u16 size: EVENT_DESC of 2 x 4500 ids does not fit and is
 * left out (said in *dropped), each attr still does; 8200 ids in one attr
 * is an error.
 */
static void test_too_big(void **state)
{
	struct fixture *f = *state;
	const struct perf_event_header *h;
	u64 *many = calloc(8200, sizeof(u64)), dropped = 0;
	struct walk w = { 0 };
	size_t extra;
	int i;

	assert_non_null(many);
	for (i = 0; i < 8200; i++)
		many[i] = 1000 + (u64)i;
	f->ev.evsel[0].ids = many;
	f->ev.evsel[0].nr_ids = 4500;
	f->ev.evsel[1].ids = many + 4500;
	f->ev.evsel[1].nr_ids = 3700;
	assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, &dropped), 0);
	assert_int_equal(dropped, 1ULL << HEADER_EVENT_DESC);
	walk__init(&w, f);
	check_attr(walk__next(&w, &extra), &f->ev.evsel[0]);
	check_attr(walk__next(&w, &extra), &f->ev.evsel[1]);
	while ((h = walk__next(&w, &extra)))
		if (h->type == PERF_RECORD_HEADER_FEATURE)
			assert_int_not_equal(((const struct pipe_feature_record *)h)->feat_id,
					     HEADER_EVENT_DESC);

	f->ev.evsel[0].nr_ids = 8200;
	assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, NULL), -E2BIG);
	free(many);
}

/* The reader went away: emit's error ends it, wherever it comes. */
static void test_emit_fails(void **state)
{
	struct fixture *f = *state;
	int at;

	for (at = 1; at <= 6; at++) {
		f->calls = 0;
		f->fail_at = at;
		assert_int_equal(pipe__synthesize(&f->ev.evlist, &f->env, capture, f, NULL), -EPIPE);
	}
	f->calls = 0;
	f->fail_at = 1;
	assert_int_equal(pipe__write_header(capture, f), -EPIPE);
}

static void test_feature_is_sent(void **state)
{
	static const int sent[] = {
		HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION, HEADER_ARCH, HEADER_NRCPUS,
		HEADER_CPUDESC, HEADER_CPUID, HEADER_TOTAL_MEM, HEADER_CMDLINE,
		HEADER_EVENT_DESC, HEADER_CPU_TOPOLOGY, HEADER_NUMA_TOPOLOGY,
		HEADER_PMU_MAPPINGS, HEADER_GROUP_DESC, HEADER_SAMPLE_TIME,
		HEADER_MEM_TOPOLOGY, HEADER_CLOCKID, HEADER_BPF_PROG_INFO, HEADER_BPF_BTF,
		HEADER_COMPRESSED, HEADER_CPU_PMU_CAPS, HEADER_CLOCK_DATA, HEADER_PMU_CAPS,
	};
	static const int not_sent[] = {
		HEADER_RESERVED, HEADER_TRACING_DATA, HEADER_BUILD_ID, HEADER_BRANCH_STACK,
		HEADER_AUXTRACE, HEADER_STAT, HEADER_CACHE, HEADER_DIR_FORMAT,
		HEADER_HYBRID_TOPOLOGY, HEADER_LAST_FEATURE, -1, 255,
	};
	size_t i;

	for (i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		assert_true(pipe__feature_is_sent(sent[i]));
	for (i = 0; i < sizeof(not_sent) / sizeof(not_sent[0]); i++)
		assert_false(pipe__feature_is_sent(not_sent[i]));
}

#define fixture_test(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_header),
		fixture_test(test_synthesize),
		fixture_test(test_tracing_data),
		fixture_test(test_too_big),
		fixture_test(test_emit_fails),
		cmocka_unit_test(test_feature_is_sent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
