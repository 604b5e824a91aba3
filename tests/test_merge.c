// SPDX-License-Identifier: GPL-2.0
/*
 * test_merge.c — the merge of a perf directory, on directories built by hand:
 * a `data` written with header__write_start()/header__write_end() from a
 * hand-built evlist with known ids, and data.N files of records whose times
 * interleave, with inversions, a cut tail, a zeroed tail, an empty file,
 * COMPRESSED records. The merged file is read back independently: its
 * header, attrs and features, every record of its data section, the time
 * order and the FINISHED_ROUND rule perf applies.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <cmocka.h>

#include "precord/builtin.h"
#include "precord/merge.h"
#include "precord/merge-index.h"
#include "precord/header.h"
#include "precord/evlist.h"
#include "precord/topology.h"
#include "precord/tracefs.h"
#include "precord/compress.h"
#include "helpers.h"

#define HDR		sizeof(struct perf_event_header)
#define MAX_RECS	20000

/*
 * The default evlist: two evsels, ids 11,12 and 21,22, sample_type
 * IDENTIFIER|IP|TID|TIME|CPU|PERIOD, sample_id_all. A sample is
 * {hdr, id, ip, pid/tid, time, cpu, period}; a non-sample record ends with
 * the trailer {pid/tid, time, cpu, id}.
 */
#define ST_DEFAULT	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct fixture {
	char		dir[64];
	char		out[96];
	struct evsel	evsel[2];
	struct evsel	*entries[2];
	struct evlist	evlist;
	u64		ids0[2], ids1[2];
	struct topology	*topo;
	/* the records written into data and each data.N, for comparison */
	u8		*data_recs;
	size_t		data_len;
};

/* ---- building records ---- */

/* A default-layout sample; ip carries a tag to find the record again. */
static void put_sample(struct rbuf *b, u64 id, u64 time, u64 tag)
{
	rbuf__hdr(b, PERF_RECORD_SAMPLE, HDR + 6 * 8);
	rbuf__u64(b, id);
	rbuf__u64(b, tag);		/* ip */
	rbuf__u64(b, 0x0000006400000064ULL);	/* pid, tid 100 */
	rbuf__u64(b, time);
	rbuf__u64(b, 1);		/* cpu */
	rbuf__u64(b, 4000);		/* period */
}

static void put_trailer(struct rbuf *b, u64 id, u64 time)
{
	rbuf__u64(b, 0x0000006400000064ULL);
	rbuf__u64(b, time);
	rbuf__u64(b, 1);
	rbuf__u64(b, id);
}

/* COMM {pid, tid, comm[16]} + trailer; the tag is in comm. */
static void put_comm(struct rbuf *b, u64 id, u64 time, u64 tag)
{
	rbuf__hdr(b, PERF_RECORD_COMM, HDR + 8 + 16 + 32);
	rbuf__u64(b, 0x0000006400000064ULL);
	rbuf__u64(b, tag);
	rbuf__u64(b, 0);
	put_trailer(b, id, time);
}

static void put_lost(struct rbuf *b, u64 id, u64 time, u64 lost)
{
	rbuf__hdr(b, PERF_RECORD_LOST, HDR + 16 + 32);
	rbuf__u64(b, id);
	rbuf__u64(b, lost);
	put_trailer(b, id, time);
}

static void put_lost_samples(struct rbuf *b, u64 id, u64 lost)
{
	rbuf__hdr(b, PERF_RECORD_LOST_SAMPLES, HDR + 8 + 32);
	rbuf__u64(b, lost);
	put_trailer(b, id, 0);
}

static void put_bare(struct rbuf *b, u32 type)
{
	rbuf__hdr(b, type, HDR);
}

/* ---- the directory ---- */

static void evsel__init_test(struct evsel *evsel, int idx, u64 sample_type, u64 *ids)
{
	test_evsel__init(evsel, idx, idx ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK,
			 idx ? "task-clock" : "cpu-clock", sample_type, ids, 2);
	evsel->attr.size = sizeof(evsel->attr);
	evsel->attr.read_format = PERF_FORMAT_ID;
}

static int setup_in(void **state, const char *base)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (tmpdir__make(f->dir, sizeof(f->dir), base, "merge")) {
		free(f);
		return -1;
	}
	snprintf(f->out, sizeof(f->out), "%s.out", f->dir);
	f->ids0[0] = 11;
	f->ids0[1] = 12;
	f->ids1[0] = 21;
	f->ids1[1] = 22;
	evsel__init_test(&f->evsel[0], 0, ST_DEFAULT, f->ids0);
	evsel__init_test(&f->evsel[1], 1, ST_DEFAULT, f->ids1);
	f->entries[0] = &f->evsel[0];
	f->entries[1] = &f->evsel[1];
	f->evlist.entries = f->entries;
	f->evlist.nr_entries = 2;
	f->evsel[0].evlist = &f->evlist;
	f->evsel[1].evlist = &f->evlist;
	f->topo = topology__new_synthetic("pack:1 core:2 pu:1");
	if (!f->topo)
		return -1;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_in(state, "/tmp");
}

/* The parallel merge writes on one thread on tmpfs: /var/tmp is on disk. */
static int setup_disk(void **state)
{
	return setup_in(state, "/var/tmp");
}

static bool on_tmpfs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tmpdir__remove(f->dir);
	unlink(f->out);
	topology__delete(f->topo);
	free(f->data_recs);
	free(f);
	return 0;
}

static void write_file(const char *dir, const char *name, const void *p, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
}

/* The stream files of a two-CPU recording: data.0 and data.1 hold b0 and b1. */
static void write_inputs(const struct fixture *f, const struct rbuf *b0, const struct rbuf *b1)
{
	write_file(f->dir, "data.0", b0->data, b0->len);
	write_file(f->dir, "data.1", b1->data, b1->len);
}

/*
 * DIR/data: header, attrs, records (a synthesized COMM, FINISHED_INIT,
 * LOST_SAMPLES) and features, with DIR_FORMAT. finish=false leaves the
 * header as a killed recording leaves it (data size 0, no features).
 */
static void write_data_file(struct fixture *f, bool finish)
{
	struct header_env env = {
		.topo = f->topo, .no_buildid = true, .dir_format = true,
		.first_sample_time = 1, .last_sample_time = 2,
	};
	struct rbuf b = { 0 };
	char path[256];
	u64 off;
	int fd;

	put_comm(&b, 0, 0, 0x5959);
	put_bare(&b, PERF_RECORD_FINISHED_INIT);
	put_lost_samples(&b, 11, 7);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(header__write_start(fd, &f->evlist, &off), 0);
	assert_int_equal(pwrite(fd, b.data, b.len, (off_t)off), (ssize_t)b.len);
	if (finish)
		assert_int_equal(header__write_end(fd, &f->evlist, off, b.len, &env), 0);
	close(fd);
	free(f->data_recs);
	f->data_recs = b.data;
	f->data_len = b.len;
}

/* ---- reading the merged file back ---- */

/* The whole of a file, in *len bytes (malloc'ed). */
static u8 *read_whole(const char *path, size_t *len)
{
	struct stat st;
	u8 *p;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void assert_file_holds(const char *path, const u8 *p, size_t len)
{
	size_t n;
	u8 *q = read_whole(path, &n);

	assert_int_equal(n, len);
	assert_memory_equal(q, p, len);
	free(q);
}

struct orec {
	u32		type;
	u16		size;
	u64		time;
	u64		tag;
	const u8	*p;
};

struct outfile {
	u8			*buf;
	size_t			len;
	struct perf_file_header	hdr;
	struct header_attrs	attrs;
	struct header_payload	*feats;
	int			nr_feats;
	struct orec		*recs;
	int			nr;
};

static u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Times and tags of the default layout, read independently of merge.c. */
static void orec__decode(struct orec *r)
{
	size_t n = (r->size - HDR) / 8;
	const u8 *body = r->p + HDR;

	r->time = 0;
	r->tag = 0;
	if (r->type == PERF_RECORD_SAMPLE && n >= 4) {
		r->tag = get_u64(body + 8);
		r->time = get_u64(body + 24);
	} else if (r->type < PERF_RECORD_USER_TYPE_START && n >= 4) {
		r->time = get_u64(body + 8 * (n - 3));
		if (r->type == PERF_RECORD_COMM)
			r->tag = get_u64(body + 8);
	}
}

static void outfile__load(struct outfile *o, const char *path)
{
	struct stat st;
	size_t pos;
	int fd = open(path, O_RDONLY);

	memset(o, 0, sizeof(*o));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	o->len = (size_t)st.st_size;
	o->buf = malloc(o->len);
	assert_non_null(o->buf);
	assert_int_equal(pread(fd, o->buf, o->len, 0), (ssize_t)o->len);
	assert_int_equal(header__read(fd, &o->hdr), 0);
	assert_int_equal(header__read_attrs(fd, &o->hdr, &o->attrs), 0);
	assert_int_equal(header__read_payloads(fd, &o->hdr, &o->feats, &o->nr_feats), 0);
	close(fd);
	o->recs = calloc(MAX_RECS, sizeof(*o->recs));
	assert_non_null(o->recs);
	assert_true(o->hdr.data.offset + o->hdr.data.size <= o->len);
	for (pos = 0; pos < o->hdr.data.size; o->nr++) {
		struct orec *r = &o->recs[o->nr];
		struct perf_event_header h;

		assert_true(o->nr < MAX_RECS);
		memcpy(&h, o->buf + o->hdr.data.offset + pos, sizeof(h));
		assert_true(h.size >= HDR);
		assert_true(pos + h.size <= o->hdr.data.size);
		*r = (struct orec){ .type = h.type, .size = h.size,
				    .p = o->buf + o->hdr.data.offset + pos };
		orec__decode(r);
		pos += h.size;
	}
}

static void outfile__free(struct outfile *o)
{
	header_attrs__exit(&o->attrs);
	header_payloads__free(o->feats, o->nr_feats);
	free(o->recs);
	free(o->buf);
}

/* The end of a two-input test: its loaded output and both input buffers go. */
static void free_merge(struct outfile *o, struct rbuf *b0, struct rbuf *b1)
{
	outfile__free(o);
	free(b0->data);
	free(b1->data);
}

static const struct header_payload *outfile__feat(const struct outfile *o, int feat)
{
	int i;

	for (i = 0; i < o->nr_feats; i++)
		if (o->feats[i].feat == feat)
			return &o->feats[i];
	return NULL;
}

static int outfile__count(const struct outfile *o, u32 type)
{
	int i, n = 0;

	for (i = 0; i < o->nr; i++)
		n += o->recs[i].type == type;
	return n;
}

/*
 * perf's FINISHED_ROUND rule (ordered-events.c): at marker k every record up
 * to the newest time seen before marker k-1 is delivered; a later record
 * older than that is "out of order". Returns how many there would be.
 */
static int outfile__perf_unordered(const struct outfile *o)
{
	u64 max_seen = 0, limit = 0, last_flush = 0;
	int i, bad = 0;

	for (i = 0; i < o->nr; i++) {
		const struct orec *r = &o->recs[i];

		if (r->type == PERF_RECORD_FINISHED_ROUND) {
			if (limit > last_flush)
				last_flush = limit;
			limit = max_seen;
			continue;
		}
		if (!r->time)
			continue;
		if (r->time < last_flush)
			bad++;
		if (r->time > max_seen)
			max_seen = r->time;
	}
	return bad;
}

/* Kernel records (after data's records), times non-decreasing; returns how many. */
static int outfile__check_sorted(const struct outfile *o, int first)
{
	u64 last = 0;
	int i, n = 0;

	for (i = first; i < o->nr; i++) {
		if (o->recs[i].type == PERF_RECORD_FINISHED_ROUND)
			continue;
		assert_true(o->recs[i].time >= last);
		last = o->recs[i].time;
		n++;
	}
	return n;
}

/* data's records come first, byte for byte. */
static void outfile__check_data_first(const struct outfile *o, const struct fixture *f)
{
	assert_true(o->hdr.data.size >= f->data_len);
	assert_memory_equal(o->buf + o->hdr.data.offset, f->data_recs, f->data_len);
	assert_int_equal(o->recs[0].type, PERF_RECORD_COMM);
	assert_int_equal(o->recs[1].type, PERF_RECORD_FINISHED_INIT);
	assert_int_equal(o->recs[2].type, PERF_RECORD_LOST_SAMPLES);
}

/* Every tag in [0, n) appears exactly once among the samples. */
static void outfile__check_tags(const struct outfile *o, u64 base, int n)
{
	int *seen = calloc((size_t)n, sizeof(*seen));
	int i;

	assert_non_null(seen);
	for (i = 0; i < o->nr; i++) {
		u64 t = o->recs[i].tag;

		if (o->recs[i].type != PERF_RECORD_SAMPLE || t < base || t >= base + (u64)n)
			continue;
		seen[t - base]++;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(seen[i], 1);
	free(seen);
}

/* ---- the tests ---- */

/*
 * data.0: samples of evsel 0 at 10, 20, 30...; data.1: samples of evsel 1
 * at 15, 25... with COMMs and a LOST, and two adjacent times swapped;
 * data.2: 40 samples then half a record; data.3: empty.
 */
struct basic {
	int	nr[3];		/* whole records per file */
	int	samples;
	size_t	half;
};

static void make_basic_dir(struct fixture *f, struct basic *bd)
{
	struct rbuf b0 = { 0 }, b1 = { 0 }, b2 = { 0 };
	int i;

	write_data_file(f, true);
	for (i = 0; i < 300; i++)
		put_sample(&b0, i % 2 ? 12 : 11, 10 + 10 * (u64)i, 1000 + (u64)i);
	bd->nr[0] = 300;
	for (i = 0; i < 300; i++) {
		u64 t = 15 + 10 * (u64)i;

		if (i == 100)
			t = 15 + 10 * 101;	/* 100 and 101 swapped: an inversion */
		else if (i == 101)
			t = 15 + 10 * 100;
		put_sample(&b1, 21, t, 2000 + (u64)i);
		if (i % 50 == 0)
			put_comm(&b1, 22, t + 1, 77);
	}
	put_lost(&b1, 21, 3005, 9);
	bd->nr[1] = 300 + 6 + 1;
	for (i = 0; i < 40; i++)
		put_sample(&b2, 11, 12 + 50 * (u64)i, 3000 + (u64)i);
	bd->nr[2] = 40;
	put_sample(&b2, 11, 5000, 3999);
	bd->half = (HDR + 48) / 2;
	b2.len -= bd->half;
	write_inputs(f, &b0, &b1);
	write_file(f->dir, "data.2", b2.data, b2.len);
	write_file(f->dir, "data.3", "", 0);
	bd->samples = 300 + 300 + 40;
	free(b0.data);
	free(b1.data);
	free(b2.data);
}

static void test_basic(void **state)
{
	struct fixture *f = *state;
	struct merge_opts opts = { .round_bytes = 1024 };
	struct merge_stats st;
	struct outfile o;
	struct basic bd;
	char err[512];
	int i, kernel;

	make_basic_dir(f, &bd);
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, err, sizeof(err)), 0);
	/* the cut file is reported, not an error */
	assert_non_null(strstr(err, "data.2"));
	assert_int_equal(st.nr_cut, 1);
	assert_int_equal(st.bytes_cut, (HDR + 48) - bd.half);
	assert_int_equal(st.nr_files, 4);
	assert_int_equal(st.records, bd.nr[0] + bd.nr[1] + bd.nr[2]);
	assert_int_equal(st.data_records, 3);
	assert_int_equal(st.samples, bd.samples);
	assert_int_equal(st.lost_records, 1);
	assert_int_equal(st.lost, 9);
	assert_int_equal(st.lost_samples, 7);
	assert_int_equal(st.first_time, 10);
	assert_int_equal(st.last_time, 15 + 10 * 299);
	assert_true(st.seconds >= 0);

	outfile__load(&o, f->out);
	assert_int_equal(st.bytes_out, o.len);
	outfile__check_data_first(&o, f);
	kernel = outfile__check_sorted(&o, 3);
	assert_int_equal(kernel, st.records);
	assert_int_equal(outfile__count(&o, PERF_RECORD_FINISHED_ROUND), st.rounds);
	assert_int_equal(outfile__count(&o, PERF_RECORD_SAMPLE), bd.samples);
	assert_int_equal(outfile__count(&o, PERF_RECORD_COMM), 1 + 6);
	assert_int_equal(outfile__count(&o, PERF_RECORD_LOST), 1);
	outfile__check_tags(&o, 1000, 300);
	outfile__check_tags(&o, 2000, 300);
	outfile__check_tags(&o, 3000, 40);
	assert_int_equal(outfile__perf_unordered(&o), 0);

	/*
	 * FINISHED_ROUND: before the record that reaches or crosses each
	 * multiple of round_bytes of kernel records (none is 64 bytes long).
	 */
	{
		u64 bytes = 0, all = 0;

		for (i = 3; i < o.nr; i++) {
			if (o.recs[i].type == PERF_RECORD_FINISHED_ROUND) {
				assert_true(all / 1024 < (all + o.recs[i + 1].size) / 1024);
				assert_true(bytes > 1024 - 64);
				assert_true(bytes < 1024 + 64);
				bytes = 0;
				continue;
			}
			bytes += o.recs[i].size;
			all += o.recs[i].size;
		}
		assert_true(bytes < 1024 + 64);
		assert_int_equal(st.rounds, all / 1024);
	}
	outfile__free(&o);
}

/* The header: attrs and ids as data's, features as data's but DIR_FORMAT and SAMPLE_TIME. */
static void test_header_copied(void **state)
{
	struct fixture *f = *state;
	struct outfile o;
	struct perf_file_header in_hdr;
	struct header_attrs in_attrs;
	struct header_payload *in_feats;
	const struct header_payload *p;
	struct basic bd;
	char path[256];
	int nr_in, i, fd;
	u64 times[2];

	make_basic_dir(f, &bd);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, NULL, NULL, 0), 0);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(header__read(fd, &in_hdr), 0);
	assert_int_equal(header__read_attrs(fd, &in_hdr, &in_attrs), 0);
	assert_int_equal(header__read_payloads(fd, &in_hdr, &in_feats, &nr_in), 0);
	close(fd);
	assert_true(header__has_feat(&in_hdr, HEADER_DIR_FORMAT));

	outfile__load(&o, f->out);
	assert_int_equal(o.hdr.attr_size, in_hdr.attr_size);
	assert_int_equal(o.attrs.nr, 2);
	for (i = 0; i < 2; i++) {
		/* the attr bytes are the input's; only the ids section moved */
		assert_memory_equal(o.attrs.raw + (u64)i * o.attrs.attr_size,
				    in_attrs.raw + (u64)i * in_attrs.attr_size,
				    o.attrs.attr_size - 16);
		assert_int_equal(o.attrs.entries[i].nr_ids, 2);
		assert_memory_equal(o.attrs.entries[i].ids, in_attrs.entries[i].ids, 16);
	}
	assert_false(header__has_feat(&o.hdr, HEADER_DIR_FORMAT));
	assert_false(header__has_feat(&o.hdr, HEADER_COMPRESSED));
	assert_int_equal(o.nr_feats, nr_in - 1);
	for (i = 0; i < nr_in; i++) {
		if (in_feats[i].feat == HEADER_DIR_FORMAT)
			continue;
		p = outfile__feat(&o, in_feats[i].feat);
		assert_non_null(p);
		if (in_feats[i].feat == HEADER_SAMPLE_TIME)
			continue;
		assert_int_equal(p->size, in_feats[i].size);
		assert_memory_equal(p->data, in_feats[i].data, p->size);
	}
	p = outfile__feat(&o, HEADER_SAMPLE_TIME);
	assert_int_equal(p->size, 16);
	memcpy(times, p->data, sizeof(times));
	assert_int_equal(times[0], 10);
	assert_int_equal(times[1], 15 + 10 * 299);
	outfile__free(&o);
	header_attrs__exit(&in_attrs);
	header_payloads__free(in_feats, nr_in);
}

/*
 * Attrs written by another perf (attr_size 152, a 136-byte attr): kept byte
 * for byte, and the time found through PERF_SAMPLE_ID at its place when
 * the evsels' layouts differ: evsel A {ip, tid, time, id, cpu}, evsel B
 * {tid, time, addr, id, cpu}: the id is the 4th u64 in both, the time the
 * 3rd in A and the 2nd in B (B's 3rd is addr, set to mislead).
 */
static void test_sample_id_and_foreign_attrs(void **state)
{
	struct fixture *f = *state;
	const u64 st_a = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
	const u64 st_b = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
	const u64 attr_size = 136 + 16;
	u64 ids_a[1] = { 501 }, ids_b[1] = { 502 };
	struct header_attrs ha = { .attr_size = attr_size, .nr = 2 };
	struct header_attr ent[2] = { { .ids = ids_a, .nr_ids = 1 }, { .ids = ids_b, .nr_ids = 1 } };
	u8 raw[2 * 152];
	struct rbuf d0 = { 0 }, d1 = { 0 };
	struct header_payload dirf;
	struct outfile o;
	char path[256];
	u64 off, one = 1, last = 0;
	int fd, i;

	memset(raw, 0, sizeof(raw));
	for (i = 0; i < 2; i++) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 136,
					     .sample_period = 1, .sample_id_all = 1,
					     .sample_type = i ? st_b : st_a };

		memcpy(raw + i * 152, &a, sizeof(a));
		memset(raw + i * 152 + sizeof(a), 0xab, 136 - sizeof(a));	/* newer fields */
	}
	ha.raw = raw;
	ha.entries = ent;
	snprintf(path, sizeof(path), "%s/data", f->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(header__write_start_raw(fd, &ha, &off), 0);
	dirf = (struct header_payload){ HEADER_DIR_FORMAT, &one, 8 };
	assert_int_equal(header__write_end_raw(fd, &ha, off, 0, &dirf, 1), 0);
	close(fd);

	for (i = 0; i < 100; i++) {
		/* A: ip, tid, time, id, cpu */
		rbuf__hdr(&d0, PERF_RECORD_SAMPLE, HDR + 40);
		rbuf__u64(&d0, 7);
		rbuf__u64(&d0, 0);
		rbuf__u64(&d0, 100 + 2 * (u64)i);
		rbuf__u64(&d0, 501);
		rbuf__u64(&d0, 0);
		/* B: tid, time, addr, id, cpu */
		rbuf__hdr(&d1, PERF_RECORD_SAMPLE, HDR + 40);
		rbuf__u64(&d1, 0);
		rbuf__u64(&d1, 101 + 2 * (u64)i);
		rbuf__u64(&d1, 1000000 - (u64)i);
		rbuf__u64(&d1, 502);
		rbuf__u64(&d1, 0);
	}
	write_inputs(f, &d0, &d1);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, NULL, NULL, 0), 0);

	outfile__load(&o, f->out);
	assert_int_equal(o.hdr.attr_size, attr_size);
	assert_memory_equal(o.attrs.raw, raw, 136);
	assert_memory_equal(o.attrs.raw + 152, raw + 152, 136);
	assert_int_equal(o.attrs.entries[1].ids[0], 502);
	assert_false(header__has_feat(&o.hdr, HEADER_DIR_FORMAT));
	assert_int_equal(o.nr, 200);
	for (i = 0; i < o.nr; i++) {
		u64 id = get_u64(o.recs[i].p + HDR + 24);
		u64 t = get_u64(o.recs[i].p + HDR + (id == 501 ? 16 : 8));

		/* A and B alternate: 100, 101, 102... */
		assert_int_equal(id, i % 2 ? 502 : 501);
		assert_true(t > last);
		last = t;
	}
	free_merge(&o, &d0, &d1);
}

/* One evsel with no id at all: every record is that evsel's. */
static void test_single_evsel_no_id(void **state)
{
	struct fixture *f = *state;
	struct rbuf d0 = { 0 }, d1 = { 0 };
	struct outfile o;
	u64 last = 0;
	int i;

	f->evlist.nr_entries = 1;
	f->evsel[0].attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_CPU;
	write_data_file(f, true);
	for (i = 0; i < 50; i++) {
		struct rbuf *b = i % 2 ? &d1 : &d0;

		/* ip, tid, time, cpu */
		rbuf__hdr(b, PERF_RECORD_SAMPLE, HDR + 32);
		rbuf__u64(b, 0);
		rbuf__u64(b, 0);
		rbuf__u64(b, 500 - 3 * (u64)(49 - i));
		rbuf__u64(b, 0);
		/* an EXIT {pid, ppid, tid, ptid, time} + trailer {tid, time, cpu} */
		rbuf__hdr(b, PERF_RECORD_EXIT, HDR + 24 + 24);
		rbuf__u64(b, 0);
		rbuf__u64(b, 0);
		rbuf__u64(b, 0);
		rbuf__u64(b, 0);
		rbuf__u64(b, 500 - 3 * (u64)(49 - i) + 1);
		rbuf__u64(b, 0);
	}
	write_inputs(f, &d0, &d1);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, NULL, NULL, 0), 0);
	outfile__load(&o, f->out);
	assert_int_equal(o.nr, 3 + 100);
	for (i = 3; i < o.nr; i++) {
		const u8 *body = o.recs[i].p + HDR;
		size_t n = (o.recs[i].size - HDR) / 8;
		u64 t = o.recs[i].type == PERF_RECORD_SAMPLE ? get_u64(body + 16) :
			get_u64(body + 8 * (n - 2));

		assert_true(t > last);
		last = t;
	}
	free_merge(&o, &d0, &d1);
}

/* A zeroed tail (an mmap writer killed) ends that stream; the others go on. */
static void test_zeroed_tail(void **state)
{
	struct fixture *f = *state;
	struct rbuf b0 = { 0 }, b1 = { 0 };
	struct merge_stats st;
	struct outfile o;
	char err[512], zeros[4096] = { 0 };
	int i;

	write_data_file(f, true);
	for (i = 0; i < 20; i++) {
		put_sample(&b0, 11, 10 + 2 * (u64)i, 100 + (u64)i);
		put_sample(&b1, 21, 11 + 2 * (u64)i, 200 + (u64)i);
	}
	rbuf__put(&b0, zeros, sizeof(zeros));
	put_sample(&b0, 11, 1000, 999);	/* after the hole: not merged */
	write_inputs(f, &b0, &b1);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "data.0"));
	assert_non_null(strstr(err, "size 0"));
	assert_int_equal(st.nr_cut, 1);
	assert_int_equal(st.bytes_cut, sizeof(zeros) + HDR + 48);
	assert_int_equal(st.records, 40);
	outfile__load(&o, f->out);
	outfile__check_tags(&o, 100, 20);
	outfile__check_tags(&o, 200, 20);
	assert_int_equal(outfile__check_sorted(&o, 3), 40);
	outfile__free(&o);

	/* Nothing but zeroes after the records: an mmap writer's room, said so. */
	b0.len -= HDR + 48;
	write_file(f->dir, "data.0", b0.data, b0.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "data.0 ends in 4096 bytes of zeroes"));
	assert_int_equal(st.bytes_cut, sizeof(zeros));
	assert_int_equal(st.records, 40);
	free(b0.data);
	free(b1.data);
}

/*
 * What a consuming merge gave back reads as zeroes from offset 0 of each
 * data.N: a file that begins with a page of zeroes and has data after
 * them is refused, and so are files all zeroes when none holds a record,
 * naming the file and offset and leaving the output as it was. The mmap
 * writer killed in its first copy leaves a zero header then the record's
 * body: that still merges, cut there, as does a file all zeroes next to
 * one with records.
 */
static void test_given_back_inputs(void **state)
{
	struct fixture *f = *state;
	struct rbuf b0 = { 0 }, b1 = { 0 };
	struct merge_stats st;
	char err[1024], zeros[8192] = { 0 };
	u8 *before;
	size_t len;
	int i;

	write_data_file(f, true);
	for (i = 0; i < 20; i++)
		put_sample(&b1, 21, 11 + 2 * (u64)i, 200 + (u64)i);
	write_file(f->dir, "data.1", b1.data, b1.len);
	write_file(f->dir, "data.0", b1.data, b1.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), 0);
	before = read_whole(f->out, &len);

	/* given back at its start, records after */
	rbuf__put(&b0, zeros, sizeof(zeros));
	for (i = 0; i < 20; i++)
		put_sample(&b0, 11, 10 + 2 * (u64)i, 100 + (u64)i);
	write_file(f->dir, "data.0", b0.data, b0.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "data.0 holds zeroes at offset 0"));
	assert_non_null(strstr(err, "gave its records back"));
	assert_null(strchr(err, '\n'));
	assert_file_holds(f->out, before, len);

	/* all given back */
	write_file(f->dir, "data.0", zeros, sizeof(zeros));
	write_file(f->dir, "data.1", zeros, 4096);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "no data.N of"));
	assert_non_null(strstr(err, "data.0 and the others are zeroes from offset 0"));
	assert_file_holds(f->out, before, len);

	/* all zeroes beside records: room an mmap writer reserved and never filled */
	write_file(f->dir, "data.1", b1.data, b1.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.records, 20);
	assert_non_null(strstr(err, "data.0 ends in 8192 bytes of zeroes from offset 0"));

	/* killed in its first copy: a zero header, then the body */
	b0.len = 0;
	put_sample(&b0, 11, 10, 100);
	memset(b0.data, 0, HDR);
	rbuf__put(&b0, zeros, sizeof(zeros));
	write_file(f->dir, "data.0", b0.data, b0.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.records, 20);
	assert_non_null(strstr(err, "data.0 has a record of size 0 at offset 0"));
	free(before);
	free(b0.data);
	free(b1.data);
}

/*
 * A `data` whose header was never finished: its records run to the end of
 * the file. precord's leaves no feature bits; perf's has the bits it meant
 * to write (set when the file was opened) and no table.
 */
static void check_unfinished_data(struct fixture *f, bool perf_style)
{
	struct rbuf b0 = { 0 };
	struct merge_stats st;
	struct outfile o;
	char path[256];
	u64 bits = (1ULL << HEADER_HOSTNAME) | (1ULL << HEADER_EVENT_DESC) |
		   (1ULL << HEADER_DIR_FORMAT);
	int i, fd;

	write_data_file(f, false);
	if (perf_style) {
		snprintf(path, sizeof(path), "%s/data", f->dir);
		fd = open(path, O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, &bits, 8,
					offsetof(struct perf_file_header, adds_features)), 8);
		close(fd);
	}
	for (i = 0; i < 10; i++)
		put_sample(&b0, 11, 10 + (u64)i, (u64)i);
	write_file(f->dir, "data.0", b0.data, b0.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, NULL, 0), 0);
	assert_int_equal(st.data_records, 3);
	assert_int_equal(st.records, 10);
	outfile__load(&o, f->out);
	outfile__check_data_first(&o, f);
	assert_int_equal(o.nr_feats, 0);
	assert_int_equal(o.nr, 13);
	outfile__free(&o);
	free(b0.data);
}

static void test_unfinished_data(void **state)
{
	check_unfinished_data(*state, false);
	check_unfinished_data(*state, true);
}

/*
 * A perf.data file left by a killed one-file recorder (no features): its
 * records up to the end of the file, though its header noted fewer, or
 * up to its last whole record; a file whose header covers all its data, or
 * a finished one, is refused.
 */
static void test_single_file(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };
	struct merge_stats st;
	struct outfile o;
	char path[256], err[512];
	u64 noted;
	int i, fd;

	write_data_file(f, false);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	for (i = 0; i < 10; i++)
		put_sample(&b, 11, 10 + (u64)i, (u64)i);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_true(lseek(fd, 0, SEEK_END) > 0);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	/* the streaming thread last noted the first 3 records and 4 samples */
	noted = f->data_len + 4 * (HDR + 6 * 8);
	assert_int_equal(pwrite(fd, &noted, 8, offsetof(struct perf_file_header, data.size)), 8);

	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_true(st.single);
	assert_int_equal(st.data_records, 13);
	assert_int_equal(st.samples, 10);
	outfile__load(&o, f->out);
	outfile__check_data_first(&o, f);
	assert_int_equal(o.nr, 13);
	outfile__free(&o);

	/* killed inside the last record's copy */
	assert_int_equal(ftruncate(fd, lseek(fd, 0, SEEK_END) - 5), 0);
	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "ends inside a record"));
	assert_int_equal(st.data_records, 12);

	close(fd);
	free(b.data);

	/* the merged file has no features either, but its header covers it all */
	snprintf(path, sizeof(path), "%s", f->out);
	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs no merge: its header covers every record"));
	write_data_file(f, true);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a finished perf.data file"));
}

/*
 * precord's one file killed with its features written ahead of the data:
 * finished with those features, SAMPLE_TIME from its samples, also when
 * its header's noted size already covered every record; then refused.
 */
static void test_single_file_ahead(void **state)
{
	struct fixture *f = *state;
	struct header_env env = {
		.topo = f->topo, .no_buildid = true,
		.first_sample_time = 1, .last_sample_time = 2,
	};
	struct header_payload *ahead;
	struct perf_file_header hdr;
	struct rbuf b = { 0 };
	struct merge_stats st;
	struct outfile o;
	char path[256], err[512];
	int i, k, nr_ahead, fd;
	bool has_time = false;
	u64 off, size;

	for (i = 0; i < 10; i++)
		put_sample(&b, 11, 10 + (u64)i, (u64)i);
	snprintf(path, sizeof(path), "%s/one.data", f->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(header__write_start_ahead(fd, &f->evlist, &env, &off), 0);
	assert_int_equal(pwrite(fd, b.data, b.len, (off_t)off), (ssize_t)b.len);
	/* the thread noted every record before it was killed */
	size = b.len;
	assert_int_equal(pwrite(fd, &size, 8, offsetof(struct perf_file_header, data.size)), 8);
	assert_int_equal(header__read(fd, &hdr), 0);
	assert_int_equal(header__read_ahead(fd, &hdr, &ahead, &nr_ahead), 0);
	close(fd);

	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_true(st.single);
	assert_int_equal(st.samples, 10);
	assert_int_equal(st.nr_feats, nr_ahead);
	outfile__load(&o, f->out);
	assert_int_equal(o.nr, 10);
	assert_int_equal(o.nr_feats, nr_ahead);
	for (k = 0; k < o.nr_feats; k++) {
		assert_int_equal(o.feats[k].feat, ahead[k].feat);
		if (o.feats[k].feat == HEADER_SAMPLE_TIME) {
			has_time = true;
			assert_int_equal(get_u64(o.feats[k].data), 10);
			assert_int_equal(get_u64((const u8 *)o.feats[k].data + 8), 19);
		} else {
			assert_int_equal(o.feats[k].size, ahead[k].size);
			assert_memory_equal(o.feats[k].data, ahead[k].data, ahead[k].size);
		}
	}
	assert_true(has_time);
	outfile__free(&o);
	header_payloads__free(ahead, nr_ahead);

	/* finished: nothing more to do */
	assert_int_equal(merge__dir(f->out, f->out, NULL, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a finished perf.data file"));
	free(b.data);
}

/* perf record's killed file (data size 0, no table) of one tracepoint event, id `id`. */
static void check_single_tracepoint(struct fixture *f, int id, int want_tracing)
{
	u64 bits = 1ULL << HEADER_HOSTNAME;
	struct rbuf b = { 0 };
	struct merge_stats st;
	struct outfile o;
	char path[256], err[512];
	int i, fd;

	f->evsel[0].attr.type = PERF_TYPE_TRACEPOINT;
	f->evsel[0].attr.config = (u64)id;
	write_data_file(f, false);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &bits, 8, offsetof(struct perf_file_header, adds_features)), 8);
	for (i = 0; i < 4; i++)
		put_sample(&b, 11, 10 + (u64)i, (u64)i);
	assert_true(lseek(fd, 0, SEEK_END) > 0);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	close(fd);

	assert_int_equal(merge__dir(path, f->out, NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.samples, 4);
	assert_int_equal(st.tracing, want_tracing);
	outfile__load(&o, f->out);
	assert_int_equal(o.nr_feats, want_tracing == MERGE_TRACING_LOCAL ? 1 : 0);
	if (o.nr_feats) {
		assert_int_equal(o.feats[0].feat, HEADER_TRACING_DATA);
		assert_true(o.feats[0].size > 100);
		assert_memory_equal((const u8 *)o.feats[0].data + 3, "tracing", 7);
	}
	outfile__free(&o);
	free(b.data);
}

/*
 * A killed perf record file of tracepoints has no TRACING_DATA: the merge
 * takes it from this machine's tracefs, by the event's id, and says so; an
 * id tracefs does not know leaves it out (said too).
 */
static void test_single_tracepoint(void **state)
{
	struct fixture *f = *state;
	int id = tracefs__event_id("raw_syscalls", "sys_enter");

	check_single_tracepoint(f, 0x7ffffff0, MERGE_TRACING_NONE);
	if (id < 0) {
		print_message("no tracefs here (%s); the local formats are not checked\n",
			      strerror(-id));
		return;
	}
	check_single_tracepoint(f, id, MERGE_TRACING_LOCAL);
}

/* Bytes of kernel records between FINISHED_ROUNDs, at most. */
static u64 outfile__max_round(const struct outfile *o)
{
	u64 bytes = 0, max = 0;
	int i;

	for (i = 3; i < o->nr; i++) {
		if (o->recs[i].type == PERF_RECORD_FINISHED_ROUND)
			bytes = 0;
		else
			bytes += o->recs[i].size;
		if (bytes > max)
			max = bytes;
	}
	return max;
}

/*
 * Merges 400 samples tagged 0.. in b0 and 400 tagged 1000.. in b1 with
 * opts, and loads the output into o: every record there, each tag once.
 */
static void merge_tagged_pair(struct fixture *f, const struct merge_opts *opts,
			      const struct rbuf *b0, const struct rbuf *b1,
			      struct merge_stats *st, struct outfile *o)
{
	write_inputs(f, b0, b1);
	assert_int_equal(merge__dir(f->dir, f->out, opts, st, NULL, 0), 0);
	assert_int_equal(st->records, 800);
	outfile__load(o, f->out);
	outfile__check_tags(o, 0, 400);
	outfile__check_tags(o, 1000, 400);
}

/*
 * data.1 jumps ahead for 50 records, then comes back (its ring held records
 * of an interrupted context that late): the window absorbs it, the output is
 * sorted, the rounds are round_bytes apart.
 */
static void test_inversion_within_window(void **state)
{
	struct fixture *f = *state;
	const u64 round_bytes = 512;
	const int ahead = 50;
	struct merge_opts opts = { .round_bytes = round_bytes };
	struct rbuf b0 = { 0 }, b1 = { 0 };
	struct merge_stats st;
	struct outfile o;
	int i;

	write_data_file(f, true);
	for (i = 0; i < 400; i++)
		put_sample(&b0, 11, 1000 + 10 * (u64)i, (u64)i);
	for (i = 0; i < ahead; i++)
		put_sample(&b1, 21, 1005 + 10 * (u64)(400 - ahead + i), 1000 + (u64)i);
	for (i = 0; i < 400 - ahead; i++)
		put_sample(&b1, 21, 1005 + 10 * (u64)i, 1000 + (u64)(ahead + i));
	merge_tagged_pair(f, &opts, &b0, &b1, &st, &o);
	/* a marker before the record that reaches each multiple of round_bytes */
	assert_int_equal(st.rounds, 800 * (HDR + 48) / round_bytes);
	assert_true(outfile__max_round(&o) < round_bytes + HDR + 48);
	assert_int_equal(outfile__check_sorted(&o, 3), 800);
	assert_int_equal(outfile__perf_unordered(&o), 0);
	free_merge(&o, &b0, &b1);
}

/*
 * One record of data.1 comes 100 records late, beyond the window: it is
 * written as soon as it is read, about 70 records (4 KB) after newer ones.
 * perf finds it in order with rounds larger than that, and counts it out of
 * order with 512-byte rounds (the limit of a bounded window).
 */
static void check_late_record(struct fixture *f, u64 round_bytes, int unordered)
{
	struct merge_opts opts = { .round_bytes = round_bytes };
	struct rbuf b0 = { 0 }, b1 = { 0 };
	struct merge_stats st;
	struct outfile o;
	int i;

	write_data_file(f, true);
	for (i = 0; i < 400; i++) {
		put_sample(&b0, 11, 1000 + 10 * (u64)i, (u64)i);
		if (i != 50)
			put_sample(&b1, 21, 1005 + 10 * (u64)i, 1000 + (u64)i);
		if (i == 150)
			put_sample(&b1, 21, 1005 + 10 * 50, 1000 + 50);
	}
	merge_tagged_pair(f, &opts, &b0, &b1, &st, &o);
	assert_int_equal(outfile__perf_unordered(&o), unordered);
	free_merge(&o, &b0, &b1);
}

static void test_late_record(void **state)
{
	check_late_record(*state, 8192, 0);
	check_late_record(*state, 512, 1);
}

/* Many files, random small inversions (seeded): sorted output, nothing lost. */
static void test_random_streams(void **state)
{
	struct fixture *f = *state;
	struct merge_opts opts = { .round_bytes = 4096 };
	struct rbuf b = { 0 };
	struct merge_stats st;
	struct outfile o;
	char name[32];
	int file, i, total = 0;

	write_data_file(f, true);
	srand(42);
	for (file = 0; file < 9; file++) {
		u64 t = (u64)(rand() % 100) + 1, prev;

		b.len = 0;
		for (i = 0; i < 600; i++) {
			prev = t;
			t += (u64)(rand() % 50);
			if (rand() % 16 == 0 && i > 0) {
				/* an interrupt's record written first: swap with the previous */
				memcpy(b.data + b.len - (HDR + 48) + HDR + 24, &t, 8);
				put_sample(&b, file % 2 ? 21 : 12, prev, (u64)(file * 1000 + i));
			} else {
				put_sample(&b, file % 2 ? 21 : 12, t, (u64)(file * 1000 + i));
			}
		}
		snprintf(name, sizeof(name), "data.%d", file);
		write_file(f->dir, name, b.data, b.len);
		total += 600;
	}
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	assert_int_equal(st.records, total);
	outfile__load(&o, f->out);
	assert_int_equal(outfile__check_sorted(&o, 3), total);
	for (file = 0; file < 9; file++)
		outfile__check_tags(&o, (u64)file * 1000, 600);
	assert_int_equal(outfile__perf_unordered(&o), 0);
	outfile__free(&o);
	free(b.data);
}

/* The data section's kernel records, FINISHED_ROUNDs left out, decompressed if need be. */
static void outfile__kernel_bytes(const struct outfile *o, struct rbuf *out)
{
	struct zdecomp *zd = zdecomp__new();
	const void *p;
	size_t len;
	int i;

	assert_non_null(zd);
	for (i = 3; i < o->nr; i++) {
		if (o->recs[i].type == PERF_RECORD_FINISHED_ROUND)
			continue;
		if (o->recs[i].type != PERF_RECORD_COMPRESSED) {
			rbuf__put(out, o->recs[i].p, o->recs[i].size);
			continue;
		}
		assert_int_equal(zdecomp__feed(zd, o->recs[i].p, o->recs[i].size), 0);
		p = zdecomp__pending(zd, &len);
		rbuf__put(out, p, len);
		zdecomp__consume(zd, len);
	}
	assert_int_equal(zdecomp__partial(zd), 0);
	zdecomp__delete(zd);
}

/*
 * Three data.N for the parallel merge: samples every 10 ns per file, the
 * files interleaved, every 16th pair swapped (an inversion), a COMM and a
 * LOST in data.1, half a record at the end of data.2. `untimed`: one
 * sample in data.0 without a time.
 */
static int make_parallel_dir(struct fixture *f, bool untimed)
{
	struct rbuf b = { 0 };
	char name[32];
	int file, i, total = 0;

	write_data_file(f, true);
	for (file = 0; file < 3; file++) {
		b.len = 0;
		for (i = 0; i < 2000; i++) {
			u64 t = 100 + 10 * (u64)i + (u64)file, tag = (u64)(file * 10000 + i);

			if (i % 16 == 1) {
				/* written before the previous one: swap their times */
				memcpy(b.data + b.len - (HDR + 48) + HDR + 24, &t, 8);
				t -= 10;
			}
			if (untimed && file == 0 && i == 1000)
				t = 0;
			put_sample(&b, file == 1 ? 21 : 11, t, tag);
			total++;
			if (file == 1 && i % 500 == 250) {
				put_comm(&b, 21, t, 0x4242);
				put_lost(&b, 21, t, 3);
				total += 2;
			}
		}
		if (file == 2)
			b.len -= 20;
		snprintf(name, sizeof(name), "data.%d", file);
		write_file(f->dir, name, b.data, b.len);
	}
	free(b.data);
	return total - 1;	/* the cut record */
}

static void check_same_kernel_records(const char *a, const char *b)
{
	struct outfile oa, ob;
	struct rbuf ka = { 0 }, kb = { 0 };

	outfile__load(&oa, a);
	outfile__load(&ob, b);
	outfile__kernel_bytes(&oa, &ka);
	outfile__kernel_bytes(&ob, &kb);
	assert_int_equal(ka.len, kb.len);
	assert_memory_equal(ka.data, kb.data, ka.len);
	outfile__free(&oa);
	outfile__free(&ob);
	free(ka.data);
	free(kb.data);
}

/*
 * Split by time over 4 threads: the same kernel records in the same order
 * as on one thread, sorted, perf finds nothing out of order, the rounds
 * as the rule says in each part, the stats and the cut note alike.
 */
static void test_parallel(void **state)
{
	struct fixture *f = *state;
	struct merge_opts one = { .round_bytes = 65536, .jobs = 1 };
	struct merge_opts four = { .round_bytes = 65536, .jobs = 4, .part_min = 16384 };
	struct merge_stats s1, s4;
	char out1[128], err1[512], err4[512];
	struct outfile o;
	u64 kernel = 0;
	int i, total = make_parallel_dir(f, false);

	snprintf(out1, sizeof(out1), "%s/one.out", f->dir);
	assert_int_equal(merge__dir(f->dir, out1, &one, &s1, err1, sizeof(err1)), 0);
	assert_int_equal(merge__dir(f->dir, f->out, &four, &s4, err4, sizeof(err4)), 0);
	assert_int_equal(s1.parts, 0);
	if (on_tmpfs(f->dir)) {
		print_message("%s is on tmpfs: the merge ran on one thread\n", f->dir);
		assert_int_equal(s4.parts, 0);
	} else {
		assert_true(s4.parts >= 2 && s4.parts <= 4);
	}
	assert_string_equal(err1, err4);
	assert_non_null(strstr(err4, "data.2"));
	assert_int_equal(s4.nr_cut, 1);
	assert_int_equal(s4.bytes_cut, s1.bytes_cut);
	assert_int_equal(s4.records, (u64)total);
	assert_int_equal(s4.records, s1.records);
	assert_int_equal(s4.samples, s1.samples);
	assert_int_equal(s4.lost_records, 4);
	assert_int_equal(s4.lost, 12);
	assert_int_equal(s4.first_time, s1.first_time);
	assert_int_equal(s4.last_time, s1.last_time);
	assert_int_equal(s4.bytes_in, s1.bytes_in);
	check_same_kernel_records(out1, f->out);

	outfile__load(&o, f->out);
	outfile__check_data_first(&o, f);
	assert_int_equal(outfile__check_sorted(&o, 3), total);
	assert_int_equal(outfile__perf_unordered(&o), 0);
	assert_int_equal(outfile__count(&o, PERF_RECORD_FINISHED_ROUND), s4.rounds);
	for (i = 3; i < o.nr; i++)
		if (o.recs[i].type != PERF_RECORD_FINISHED_ROUND)
			kernel += o.recs[i].size;
	/* floor(bytes / round_bytes) in each part: at most one fewer per part */
	assert_true(s4.rounds <= kernel / 65536);
	assert_true(s4.rounds + (u64)s4.parts > kernel / 65536);
	assert_int_equal(s1.rounds, kernel / 65536);
	for (i = 0; i < 3; i++)
		outfile__check_tags(&o, (u64)i * 10000, i == 2 ? 1999 : 2000);
	outfile__free(&o);
}

/* What does not split merges on one thread, as before. */
static void test_parallel_fallback(void **state)
{
	struct fixture *f = *state;
	struct merge_opts four = { .round_bytes = 65536, .jobs = 4, .part_min = 16384 };
	struct merge_opts opts;
	struct merge_stats st;
	char out1[128];

	make_parallel_dir(f, true);		/* a record without a time */
	assert_int_equal(merge__dir(f->dir, f->out, &four, &st, NULL, 0), 0);
	assert_int_equal(st.parts, 0);

	make_parallel_dir(f, false);
	opts = four;
	opts.comp_level = 1;			/* one zstd stream */
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	assert_int_equal(st.parts, 0);
	opts = four;
	opts.round_bytes = 4096;		/* rounds closer than a record can be long */
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	assert_int_equal(st.parts, 0);
	opts = four;
	opts.part_min = 1 << 20;		/* too little for two threads */
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	assert_int_equal(st.parts, 0);

	/* an output on tmpfs: one thread (its fallocate clears pages on one) */
	if (on_tmpfs("/dev/shm")) {
		char shm[64];

		snprintf(shm, sizeof(shm), "/dev/shm/precord-test-merge-%d.out", (int)getpid());
		assert_int_equal(merge__dir(f->dir, shm, &four, &st, NULL, 0), 0);
		assert_int_equal(st.parts, 0);
		unlink(shm);
	}

	/* and the default splits it when told the parts may be that small */
	opts = four;
	opts.jobs = 0;
	snprintf(out1, sizeof(out1), "%s/one.out", f->dir);
	assert_int_equal(merge__dir(f->dir, out1, &opts, &st, NULL, 0), 0);
	assert_true(st.parts == 0 || st.parts >= 2);
}

/*
 * What a streaming thread does: each data.N of the directory handed to the
 * index in runs of whole records, of sizes that vary (one record up to
 * many), as ring reads come; a partial record at the end is not handed.
 */
static struct merge_index *index_dir(const char *dir, int nr, u64 chunk)
{
	struct merge_index *idx = merge_index__new(dir, nr, chunk);
	char path[256];
	unsigned int seed = 7;
	int file;

	assert_non_null(idx);
	for (file = 0; file < nr; file++) {
		size_t len, pos = 0;
		u8 *p;

		snprintf(path, sizeof(path), "%s/data.%d", dir, file);
		p = read_whole(path, &len);
		while (pos < len) {
			size_t run = 0;
			int n = 1 + (int)(rand_r(&seed) % 40);

			while (n-- > 0 && pos + run + HDR <= len) {
				const struct perf_event_header *h = (const void *)(p + pos + run);

				if (pos + run + h->size > len)
					break;
				run += h->size;
			}
			if (!run)
				break;
			merge_index__add(idx, file, p + pos, run);
			pos += run;
		}
		free(p);
	}
	return idx;
}

static void assert_same_file(const char *a, const char *b)
{
	size_t la, lb;
	u8 *pa = read_whole(a, &la), *pb = read_whole(b, &lb);

	assert_int_equal(la, lb);
	assert_memory_equal(pa, pb, la);
	free(pa);
	free(pb);
}

/*
 * The index the streaming threads keep gives the parallel merge the file
 * it gets from walking the files, byte for byte; a file it does not cover
 * to the byte (data.2 ends inside a record) is walked; one whose chunks
 * are coarser than the merge's is not used; an untimed record in it makes
 * the merge sequential, as a walk would.
 */
static void test_parallel_index(void **state)
{
	struct fixture *f = *state;
	struct merge_opts four = { .round_bytes = 65536, .jobs = 4, .part_min = 16384 };
	struct merge_opts opts = four;
	struct merge_stats sw, si;
	char walked[128], err_w[512], err_i[512];
	struct merge_index *idx;

	make_parallel_dir(f, false);
	snprintf(walked, sizeof(walked), "%s/walked.out", f->dir);
	assert_int_equal(merge__dir(f->dir, walked, &four, &sw, err_w, sizeof(err_w)), 0);
	assert_int_equal(sw.indexed, 0);

	/* chunks of 2048: no larger than the walk's (part_min / 8 + 1) */
	idx = index_dir(f->dir, 3, 2048);
	opts.index = idx;
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &si, err_i, sizeof(err_i)), 0);
	if (on_tmpfs(f->dir)) {
		print_message("%s is on tmpfs: the merge ran on one thread\n", f->dir);
		assert_int_equal(si.parts, 0);
	} else {
		assert_int_equal(si.indexed, 2);	/* data.0 and data.1; data.2 walked */
		assert_int_equal(si.parts, sw.parts);
	}
	assert_string_equal(err_i, err_w);
	assert_int_equal(si.records, sw.records);
	assert_int_equal(si.rounds, sw.rounds);
	assert_same_file(walked, f->out);
	merge_index__delete(idx);

	/* coarser chunks than the merge plans with: walked */
	idx = index_dir(f->dir, 3, 1 << 20);
	opts.index = idx;
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &si, NULL, 0), 0);
	assert_int_equal(si.indexed, 0);
	assert_same_file(walked, f->out);
	merge_index__delete(idx);

	/* a record without a time: one thread, as when walked */
	make_parallel_dir(f, true);
	idx = index_dir(f->dir, 3, 2048);
	opts.index = idx;
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &si, NULL, 0), 0);
	assert_int_equal(si.parts, 0);
	merge_index__delete(idx);

	/* no DIR/data to say where times are: no index; and NULL is harmless */
	unlink(walked);
	snprintf(walked, sizeof(walked), "%s/data", f->dir);
	unlink(walked);
	assert_null(merge_index__new(f->dir, 3, 0));
	merge_index__add(NULL, 0, walked, 8);
	merge_index__delete(NULL);
}

/*
 * Whether name holds a 4 KiB block of zeroes before its end: a range a
 * consuming merge gave back (zeroed or punched). No such block of records
 * is all zeroes (every record starts with a non-zero header). Read, not
 * asked with SEEK_HOLE: a zeroed range becomes unwritten extents, which
 * SEEK_HOLE calls data again once read-ahead for the part before it has
 * brought its (zero) pages back into the page cache.
 */
static bool fd_has_zeroes(int fd)
{
	static const u8 zero[4096];
	u8 block[4096];
	off_t off;
	bool found = false;

	for (off = 0; !found && pread(fd, block, sizeof(block), off) == (ssize_t)sizeof(block);
	     off += (off_t)sizeof(block))
		found = !memcmp(block, zero, sizeof(block));
	return found;
}

static bool file_has_zeroes(const char *dir, const char *name)
{
	char path[512];
	bool found;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	found = fd_has_zeroes(fd);
	close(fd);
	return found;
}

/* Open dir/name read-only (to look at it once it is removed). */
static int open_in(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	return fd;
}

/* Whether dir/name exists. */
static bool exists_in(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Files in /var/tmp named like the temporary outputs of f->out. */
static int count_tmp_outputs(const struct fixture *f)
{
	const char *base = strrchr(f->out, '/') + 1;
	size_t n = strlen(base);
	struct dirent *e;
	DIR *d = opendir("/var/tmp");
	int nr = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		nr += !strncmp(e->d_name, base, n) && e->d_name[n] == '.';
	closedir(d);
	return nr;
}

/*
 * A consuming merge (precord's own staging directory) writes the file the
 * plain parallel merge writes, byte for byte, punches the merged ranges
 * out of its inputs as it goes, and removes them and its journal once the
 * output is in place (what is left of them is no recording).
 */
static void test_consume(void **state)
{
	struct fixture *f = *state;
	struct merge_opts four = { .round_bytes = 65536, .jobs = 4, .part_min = 16384 };
	struct merge_opts eat = four;
	struct merge_stats sr, sc;
	char ref[128], journal[256];
	int fd0, fd1;

	make_parallel_dir(f, false);
	snprintf(ref, sizeof(ref), "%s/ref.out", f->dir);
	snprintf(journal, sizeof(journal), "%s/merge.journal", f->dir);
	assert_int_equal(merge__dir(f->dir, ref, &four, &sr, NULL, 0), 0);
	assert_int_equal(sr.given_back, 0);
	assert_false(file_has_zeroes(f->dir, "data.0"));

	eat.consume = true;
	eat.give_step = 4096;
	fd0 = open_in(f->dir, "data.0");
	fd1 = open_in(f->dir, "data.1");
	assert_int_equal(merge__dir(f->dir, f->out, &eat, &sc, NULL, 0), 0);
	assert_same_file(ref, f->out);
	assert_int_equal(sc.records, sr.records);
	assert_false(sc.resumed);
	assert_int_not_equal(access(journal, F_OK), 0);
	assert_int_equal(count_tmp_outputs(f), 0);
	if (on_tmpfs(f->dir)) {
		print_message("%s is on tmpfs: the merge ran on one thread\n", f->dir);
		assert_int_equal(sc.given_back, 0);
		close(fd0);
		close(fd1);
		return;
	}
	assert_true(sc.parts >= 2);
	assert_true(sc.given_back > 0);
	assert_true(sc.journal_entries >= sc.parts);	/* a last one each, at least */
	assert_true(fd_has_zeroes(fd0));
	assert_true(fd_has_zeroes(fd1));
	close(fd0);
	close(fd1);
	assert_false(exists_in(f->dir, "data"));
	assert_false(exists_in(f->dir, "data.0"));
	assert_false(exists_in(f->dir, "data.2"));
	assert_true(exists_in(f->dir, "ref.out"));	/* not its own: it stays */
}

/* Runs the merge in a child that the fault injection kills at its kill_at-th journal entry. */
static void merge_killed(struct fixture *f, const struct merge_opts *opts)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		merge__dir(f->dir, f->out, opts, NULL, NULL, 0);
		_exit(0);	/* not reached: killed by the fault injection */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

/*
 * A consuming merge killed (SIGKILL) half-way leaves its partial output
 * and journal (mode 0600, as everything precord writes); merging the
 * directory again finishes it: the kernel records of the merge that was
 * never interrupted, in time order, perf finding nothing out of order, the
 * partial output and journal gone. With
 * the partial output lost too, what the inputs still hold is merged and
 * the loss is told. Killed at its very last entry, every record comes
 * from the partial output.
 */
static void test_consume_killed(void **state)
{
	struct fixture *f = *state;
	struct merge_opts one = { .round_bytes = 65536, .jobs = 1 };
	struct merge_opts eat = { .round_bytes = 65536, .jobs = 4, .part_min = 16384,
				  .consume = true, .give_step = 4096, .fault.kill_at = 12 };
	struct merge_stats sr, st;
	char ref[128], journal[256], err[1024];
	struct outfile o;
	struct stat jst;
	int lose, total, round, last;

	if (on_tmpfs("/var/tmp")) {
		print_message("/var/tmp is on tmpfs: no parallel merge to kill\n");
		return;
	}
	/* how many entries an uninterrupted consuming merge of these files writes */
	make_parallel_dir(f, false);
	eat.fault.kill_at = 0;
	assert_int_equal(merge__dir(f->dir, f->out, &eat, &st, NULL, 0), 0);
	last = st.journal_entries;
	assert_true(last > 12);
	unlink(f->out);
	assert_int_equal(mkdir(f->dir, 0700), 0);	/* it was removed once merged */
	for (round = 0; round < 3; round++) {
		lose = round == 1;
		eat.fault.kill_at = round == 2 ? last : 12;
		total = make_parallel_dir(f, false);
		snprintf(ref, sizeof(ref), "%s/ref.out", f->dir);
		snprintf(journal, sizeof(journal), "%s/merge.journal", f->dir);
		assert_int_equal(merge__dir(f->dir, ref, &one, &sr, NULL, 0), 0);
		assert_int_equal(sr.records, (u64)total);

		merge_killed(f, &eat);
		assert_int_equal(stat(journal, &jst), 0);
		assert_int_equal(jst.st_mode & 0777, 0600);	/* as all precord writes */
		assert_int_equal(count_tmp_outputs(f), 1);
		assert_true(file_has_zeroes(f->dir, "data.0") || file_has_zeroes(f->dir, "data.1") ||
			    file_has_zeroes(f->dir, "data.2"));
		if (lose) {
			char cmd[600];

			snprintf(cmd, sizeof(cmd), "rm -f %s.??????", f->out);
			assert_int_equal(system(cmd), 0);
		}

		assert_int_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), 0);
		assert_true(st.resumed);
		assert_int_not_equal(access(journal, F_OK), 0);
		assert_int_equal(count_tmp_outputs(f), 0);
		assert_false(exists_in(f->dir, "data.0"));	/* no recording now */
		outfile__load(&o, f->out);
		assert_int_equal(outfile__perf_unordered(&o), 0);
		if (!lose) {
			assert_string_equal(err, "");
			assert_int_equal(st.records, sr.records);
			assert_int_equal(st.samples, sr.samples);
			assert_int_equal(st.lost, sr.lost);
			assert_int_equal(outfile__check_sorted(&o, 3), total);
			check_same_kernel_records(ref, f->out);
		} else {
			assert_non_null(strstr(err, "is gone"));
			assert_true(st.records < sr.records);
			assert_int_equal(outfile__check_sorted(&o, 3), (int)st.records);
		}
		outfile__free(&o);
		unlink(ref);
	}
}

/* The canonical path of f->out's one temporary output in /var/tmp, into path. */
static void find_tmp_output(const struct fixture *f, char *path, size_t len)
{
	const char *base = strrchr(f->out, '/') + 1;
	size_t n = strlen(base);
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir("/var/tmp");
	int nr = 0;

	assert_non_null(d);
	assert_non_null(realpath("/var/tmp", dir));
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, n) || e->d_name[n] != '.')
			continue;
		assert_true(snprintf(path, len, "%s/%s", dir, e->d_name) < (int)len);
		nr++;
	}
	closedir(d);
	assert_int_equal(nr, 1);
}

/* Make the journal name path as its partial output (where it named old). */
static void journal__rename_tmp(const char *journal, const char *old, const char *path)
{
	u8 head[8192];
	ssize_t n;
	u8 *at;
	int fd = open(journal, O_RDWR);

	assert_true(fd >= 0);
	n = pread(fd, head, sizeof(head), 0);
	assert_true(n > 0);
	at = memmem(head, (size_t)n, old, strlen(old) + 1);
	assert_non_null(at);
	assert_int_equal(pwrite(fd, path, strlen(path) + 1, at - head), (ssize_t)strlen(path) + 1);
	close(fd);
}

/*
 * A journal is read from a directory anyone may have prepared: the merge
 * that finishes it reads and then removes only the partial output it
 * would have made itself, OUT.XXXXXX next to its output, a regular file of
 * the caller's with no other link. A journal naming another file (here a
 * copy of the partial output, which would merge), a symbolic link, a hard
 * link or a file of another user in its place is refused, and nothing is
 * removed; named back, the partial output finishes the merge.
 */
static void test_resume_foreign_partial(void **state)
{
	struct fixture *f = *state;
	struct merge_opts one = { .round_bytes = 65536, .jobs = 1 };
	struct merge_opts eat = { .round_bytes = 65536, .jobs = 4, .part_min = 16384,
				  .consume = true, .give_step = 4096, .fault.kill_at = 12 };
	char journal[256], err[2 * PATH_MAX], partial[PATH_MAX], victim[PATH_MAX];
	char planted[PATH_MAX], dir[PATH_MAX], *now = partial;
	struct merge_stats st;
	size_t len;
	int i;
	u8 *copy;

	if (on_tmpfs("/var/tmp")) {
		print_message("/var/tmp is on tmpfs: no parallel merge to kill\n");
		return;
	}
	make_parallel_dir(f, false);
	snprintf(journal, sizeof(journal), "%s/merge.journal", f->dir);
	merge_killed(f, &eat);
	find_tmp_output(f, partial, sizeof(partial));
	copy = read_whole(partial, &len);

	/* somebody's file elsewhere, as large as the partial output */
	assert_non_null(realpath(f->dir, victim));
	strcat(victim, "/victim");
	write_file(f->dir, "victim", copy, len);
	assert_non_null(realpath("/var/tmp", dir));
	for (i = 0; i < 5; i++) {
		const char *want = i == 0 ? "not in the output's directory" :
				   i == 1 ? "a symbolic link" :
				   i == 2 ? "a file with other links" :
				   i == 3 ? "owned by another user" : "not named as";

		assert_true(snprintf(planted, sizeof(planted), "%s/%s.%s", dir,
				     strrchr(f->out, '/') + 1, i == 4 ? "zzz-zz" : "zzzzzz") <
			    (int)sizeof(planted));
		if (i == 0)
			snprintf(planted, sizeof(planted), "%s", victim);
		else if (i == 1)
			assert_int_equal(symlink(victim, planted), 0);
		else if (i == 2)
			assert_int_equal(link(victim, planted), 0);
		else if (i == 3 && geteuid() != 0)
			continue;	/* cannot give a file away */
		else if (i == 3) {
			int fd = open(planted, O_WRONLY | O_CREAT | O_EXCL, 0600);

			assert_true(fd >= 0);
			assert_int_equal(write(fd, copy, len), (ssize_t)len);
			assert_int_equal(fchown(fd, 65534, 65534), 0);
			close(fd);
		}
		journal__rename_tmp(journal, now, planted);
		now = planted;
		assert_int_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "not this merge's partial output"));
		assert_non_null(strstr(err, want));
		assert_null(strchr(err, '\n'));
		assert_file_holds(victim, copy, len);
		assert_file_holds(partial, copy, len);
		assert_int_equal(access(journal, F_OK), 0);
		assert_int_not_equal(access(f->out, F_OK), 0);
		if (i == 1 || i == 2 || i == 3) {
			struct stat lst;

			assert_int_equal(lstat(planted, &lst), 0);	/* not removed either */
			unlink(planted);
		}
		/* what the journal says is unchanged, but for the name */
		journal__rename_tmp(journal, now, partial);
		now = partial;
	}

	assert_int_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), 0);
	assert_true(st.resumed);
	assert_int_not_equal(access(partial, F_OK), 0);
	assert_file_holds(victim, copy, len);
	free(copy);
}

/* merge__dir() in a child that opts kill: it must die of SIGKILL. */
static void merge__dir_killed(const char *dir, const char *out, const struct merge_opts *opts)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		merge__dir(dir, out, opts, NULL, NULL, 0);
		_exit(0);	/* not reached */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

/*
 * Once a killed consuming merge was finished, merging the directory again
 * must not replace the output with what is left of the inputs (zeroes
 * where their records were): the merge that finished it removed the
 * directory, and killed before it had, left the journal marked done, so
 * the next merge fails (precord merge exits 1) and the output stays.
 */
static void test_consume_merged_twice(void **state)
{
	struct fixture *f = *state;
	struct merge_opts one = { .round_bytes = 65536, .jobs = 1 };
	struct merge_opts eat = { .round_bytes = 65536, .jobs = 4, .part_min = 16384,
				  .consume = true, .give_step = 4096, .fault.kill_at = 12 };
	char err[2 * PATH_MAX], partial[PATH_MAX];
	char *argv[] = { "merge", f->dir, "-o", f->out, "-q", NULL };
	struct merge_stats st;
	struct outfile o;
	int round, total;
	size_t len;
	u8 *good;

	if (on_tmpfs("/var/tmp")) {
		print_message("/var/tmp is on tmpfs: no parallel merge to kill\n");
		return;
	}
	for (round = 0; round < 2; round++) {
		total = make_parallel_dir(f, false);
		merge__dir_killed(f->dir, f->out, &eat);
		if (round == 0) {
			assert_int_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), 0);
			assert_true(st.resumed);
		} else {
			/* killed once the output is in place, before the directory is removed */
			one.fault.kill_removing = true;
			merge__dir_killed(f->dir, f->out, &one);
			one.fault.kill_removing = false;
			assert_true(exists_in(f->dir, "data.0"));
		}
		outfile__load(&o, f->out);
		assert_int_equal(outfile__check_sorted(&o, 3), total);
		outfile__free(&o);
		good = read_whole(f->out, &len);

		assert_int_not_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), 0);
		assert_null(strchr(err, '\n'));
		if (round == 1)
			assert_non_null(strstr(err, "was merged already, into"));
		assert_int_equal(cmd_merge(5, argv), 1);
		assert_file_holds(f->out, good, len);
		free(good);
		if (round == 0) {
			assert_int_not_equal(access(f->dir, F_OK), 0);	/* all of it removed */
			assert_int_equal(mkdir(f->dir, 0700), 0);
		}
	}
	/* the partial output of the merge killed before it was removed */
	find_tmp_output(f, partial, sizeof(partial));
	unlink(partial);
}

/*
 * A merge killed once everything is written, just before the output gets
 * its name: nothing of it is left next to the output (it had no name), on
 * one thread and in parts alike.
 */
static void test_killed_unnamed(void **state)
{
	struct fixture *f = *state;
	struct merge_opts opts[2] = {
		{ .round_bytes = 65536, .jobs = 1, .fault.kill_unnamed = true },
		{ .round_bytes = 65536, .jobs = 4, .part_min = 16384, .fault.kill_unnamed = true },
	};
	struct merge_stats st;
	int i, status;
	pid_t pid;

	make_parallel_dir(f, false);
	for (i = 0; i < 2; i++) {
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			merge__dir(f->dir, f->out, &opts[i], NULL, NULL, 0);
			_exit(0);	/* not reached */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGKILL);
		assert_int_equal(count_tmp_outputs(f), 0);
		assert_int_not_equal(access(f->out, F_OK), 0);
	}
	/* and the directory is whole: the merge it did not finish runs again */
	opts[1].fault.kill_unnamed = false;
	assert_int_equal(merge__dir(f->dir, f->out, &opts[1], &st, NULL, 0), 0);
	assert_false(st.resumed);
	assert_int_equal(count_tmp_outputs(f), 0);
}

/*
 * A consuming part that fails after the inputs were punched: the merge
 * fails, keeps the journal and the partial output, says to run precord
 * merge, and merging the directory again gives every kernel record.
 */
static void test_consume_failed(void **state)
{
	struct fixture *f = *state;
	struct merge_opts one = { .round_bytes = 65536, .jobs = 1 };
	struct merge_opts eat = { .round_bytes = 65536, .jobs = 4, .part_min = 16384,
				  .consume = true, .give_step = 4096, .fault.fail_at = 12 };
	struct merge_stats sr, st;
	char ref[128], journal[256], err[1024];
	struct outfile o;
	int total;

	if (on_tmpfs("/var/tmp")) {
		print_message("/var/tmp is on tmpfs: no parallel merge to fail\n");
		return;
	}
	total = make_parallel_dir(f, false);
	snprintf(ref, sizeof(ref), "%s/ref.out", f->dir);
	snprintf(journal, sizeof(journal), "%s/merge.journal", f->dir);
	assert_int_equal(merge__dir(f->dir, ref, &one, &sr, NULL, 0), 0);

	assert_int_equal(merge__dir(f->dir, f->out, &eat, &st, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "as the test asked"));
	assert_non_null(strstr(err, "precord merge"));
	assert_true(st.given_back > 0);
	assert_int_equal(access(journal, F_OK), 0);
	assert_int_equal(count_tmp_outputs(f), 1);
	assert_int_not_equal(access(f->out, F_OK), 0);

	assert_int_equal(merge__dir(f->dir, f->out, &one, &st, err, sizeof(err)), 0);
	assert_true(st.resumed);
	assert_string_equal(err, "");
	assert_int_not_equal(access(journal, F_OK), 0);
	assert_int_equal(count_tmp_outputs(f), 0);
	assert_int_equal(st.records, sr.records);
	outfile__load(&o, f->out);
	assert_int_equal(outfile__perf_unordered(&o), 0);
	assert_int_equal(outfile__check_sorted(&o, 3), total);
	outfile__free(&o);
	check_same_kernel_records(ref, f->out);
	unlink(ref);
}

/* data.N made of COMPRESSED records (perf -z --threads) merge as their plain versions. */
static void test_compressed_input(void **state)
{
	struct fixture *f = *state;
	struct merge_opts opts = { .round_bytes = 2048 };
	struct basic bd;
	struct rbuf plain = { 0 }, packed = { 0 }, orig = { 0 };
	struct merge_stats st, st_z;
	struct outfile o, oz;
	struct zcomp *zc;
	char path[256];
	size_t pos, piece;
	int fd, n;

	make_basic_dir(f, &bd);
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	outfile__load(&o, f->out);
	outfile__kernel_bytes(&o, &plain);

	/* data.1 again, as COMPRESSED records of uneven pieces */
	snprintf(path, sizeof(path), "%s/data.1", f->dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	orig.cap = orig.len = (size_t)lseek(fd, 0, SEEK_END);
	orig.data = malloc(orig.len);
	assert_int_equal(pread(fd, orig.data, orig.len, 0), (ssize_t)orig.len);
	close(fd);
	zc = zcomp__new(3);
	assert_non_null(zc);
	for (pos = 0, n = 0; pos < orig.len; pos += piece, n++) {
		piece = n % 2 ? 1000 : 3000;	/* cut records in two */
		if (piece > orig.len - pos)
			piece = orig.len - pos;
		assert_int_equal(zcomp__compress(zc, orig.data + pos, piece, rbuf__emit, &packed), 0);
	}
	zcomp__delete(zc);
	write_file(f->dir, "data.1", packed.data, packed.len);

	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st_z, NULL, 0), 0);
	assert_int_equal(st_z.records, st.records);
	outfile__load(&oz, f->out);
	assert_false(header__has_feat(&oz.hdr, HEADER_COMPRESSED));
	assert_int_equal(outfile__count(&oz, PERF_RECORD_COMPRESSED), 0);
	/* the same records in the same order, the markers at the same places */
	assert_int_equal(oz.hdr.data.size, o.hdr.data.size);
	assert_memory_equal(oz.buf + oz.hdr.data.offset, o.buf + o.hdr.data.offset,
			    o.hdr.data.size);
	outfile__free(&o);
	outfile__free(&oz);
	free(plain.data);
	free(packed.data);
	free(orig.data);
}

/*
 * perf does not pad COMPRESSED records to 8 bytes: the records after one
 * start unaligned, and merge as any other (the sanitizer build checks that
 * no header is read through a misaligned pointer).
 */
static void test_compressed_unaligned(void **state)
{
	struct fixture *f = *state;
	struct rbuf plain = { 0 }, packed = { 0 };
	struct merge_stats st;
	struct outfile o;
	struct zcomp *zc;
	int i, n;

	write_data_file(f, true);
	for (n = 1; n < 64; n++) {
		plain.len = 0;
		packed.len = 0;
		for (i = 0; i < n; i++)
			put_sample(&plain, 11, 10 + (u64)i, 500 + (u64)i);
		zc = zcomp__new(1);
		assert_non_null(zc);
		assert_int_equal(zcomp__compress(zc, plain.data, plain.len, rbuf__emit, &packed), 0);
		zcomp__delete(zc);
		if (packed.len % 8)
			break;
	}
	assert_true(packed.len % 8);
	put_sample(&packed, 21, 1000, 900);	/* unaligned */
	put_comm(&packed, 22, 1001, 77);	/* and one with its time in a trailer */
	write_file(f->dir, "data.0", packed.data, packed.len);

	assert_int_equal(merge__dir(f->dir, f->out, NULL, &st, NULL, 0), 0);
	assert_int_equal(st.records, (u64)n + 2);
	assert_int_equal(st.samples, (u64)n + 1);
	assert_int_equal(st.last_time, 1000);
	outfile__load(&o, f->out);
	assert_int_equal(outfile__check_sorted(&o, 3), n + 2);
	outfile__check_tags(&o, 500, n);
	outfile__check_tags(&o, 900, 1);
	free_merge(&o, &plain, &packed);
}

/* -z: one zstd stream of the kernel records, HEADER_COMPRESSED, plain markers between. */
static void test_compressed_output(void **state)
{
	struct fixture *f = *state;
	struct merge_opts opts = { .round_bytes = 2048 };
	struct basic bd;
	struct rbuf plain = { 0 }, unpacked = { 0 };
	struct merge_stats st, st_z;
	const struct header_payload *p;
	struct outfile o, oz;
	u32 comp[5];

	make_basic_dir(f, &bd);
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st, NULL, 0), 0);
	outfile__load(&o, f->out);
	outfile__kernel_bytes(&o, &plain);
	opts.comp_level = 5;
	assert_int_equal(merge__dir(f->dir, f->out, &opts, &st_z, NULL, 0), 0);
	outfile__load(&oz, f->out);
	outfile__check_data_first(&oz, f);
	outfile__kernel_bytes(&oz, &unpacked);
	assert_int_equal(unpacked.len, plain.len);
	assert_memory_equal(unpacked.data, plain.data, plain.len);
	assert_int_equal(st_z.rounds, st.rounds);
	assert_int_equal(outfile__count(&oz, PERF_RECORD_FINISHED_ROUND), st.rounds);
	assert_true(outfile__count(&oz, PERF_RECORD_COMPRESSED) >= (int)st.rounds);
	assert_int_equal(outfile__count(&oz, PERF_RECORD_SAMPLE), 0);
	assert_true(st_z.bytes_out < st.bytes_out);
	p = outfile__feat(&oz, HEADER_COMPRESSED);
	assert_non_null(p);
	assert_int_equal(p->size, sizeof(comp));
	memcpy(comp, p->data, sizeof(comp));
	assert_int_equal(comp[1], 1);		/* zstd */
	assert_int_equal(comp[2], 5);		/* level */
	assert_true(comp[3] >= 1);		/* ratio */
	assert_int_equal(comp[4], ZCOMP_MMAP_LEN);
	assert_false(header__has_feat(&oz.hdr, HEADER_DIR_FORMAT));
	outfile__free(&o);
	outfile__free(&oz);
	free(plain.data);
	free(unpacked.data);
}

static int dir__count(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };
	char err[512], outdir[128], out[160], junk[200];

	snprintf(outdir, sizeof(outdir), "%s/out", f->dir);
	assert_int_equal(mkdir(outdir, 0700), 0);
	snprintf(out, sizeof(out), "%s/perf.data", outdir);

	/* no such directory, no data file */
	assert_int_equal(merge__dir("/nonexistent/dir", out, NULL, NULL, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/dir/data"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(merge__dir(outdir, out, NULL, NULL, err, sizeof(err)), -ENOENT);

	/* data is not a perf.data */
	memset(junk, 'x', sizeof(junk));
	write_file(f->dir, "data", junk, sizeof(junk));
	assert_int_equal(merge__dir(f->dir, out, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a valid perf.data"));

	/* AUX area data is refused; nothing is left behind in the output's directory */
	write_data_file(f, true);
	rbuf__hdr(&b, PERF_RECORD_AUXTRACE, HDR + 40);
	rbuf__put(&b, (u8[40]){ 0 }, 40);
	write_file(f->dir, "data.0", b.data, b.len);
	assert_int_equal(merge__dir(f->dir, out, NULL, NULL, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "AUX"));
	assert_int_equal(dir__count(outdir), 0);

	/* an output in a directory that does not exist */
	unlink(out);
	b.len = 0;
	put_sample(&b, 11, 5, 5);
	write_file(f->dir, "data.0", b.data, b.len);
	assert_int_equal(merge__dir(f->dir, "/nonexistent/dir/x", NULL, NULL, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/dir/x"));

	/* a bad level */
	assert_int_equal(merge__dir(f->dir, out, &(struct merge_opts){ .comp_level = 23 },
				    NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(dir__count(outdir), 0);
	rmdir(outdir);
	free(b.data);
}

static void test_cmd_merge(void **state)
{
	struct fixture *f = *state;
	struct rbuf b = { 0 };
	char staging[128], target[128], out[160];
	char *argv[8];
	struct stat st;

	write_data_file(f, true);
	put_sample(&b, 11, 5, 5);
	write_file(f->dir, "data.0", b.data, b.len);

	/* DIR.staging/ → DIR */
	snprintf(target, sizeof(target), "%s.t", f->dir);
	snprintf(staging, sizeof(staging), "%s.t.staging", f->dir);
	snprintf(out, sizeof(out), "%s/", staging);
	assert_int_equal(rename(f->dir, staging), 0);
	argv[0] = "merge";
	argv[1] = out;
	argv[2] = "-q";
	argv[3] = NULL;
	assert_int_equal(cmd_merge(3, argv), 0);
	assert_int_equal(rename(staging, f->dir), 0);
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	unlink(target);

	/* DIR → DIR.data, options after the directory, -z=N */
	snprintf(out, sizeof(out), "%s.data", f->dir);
	argv[1] = f->dir;
	argv[2] = "-z=3";
	argv[3] = "-q";
	argv[4] = NULL;
	assert_int_equal(cmd_merge(4, argv), 0);
	assert_int_equal(stat(out, &st), 0);
	unlink(out);

	/* -o FILE */
	argv[1] = "-o";
	argv[2] = f->out;
	argv[3] = "--quiet";
	argv[4] = f->dir;
	argv[5] = NULL;
	assert_int_equal(cmd_merge(5, argv), 0);
	assert_int_equal(stat(f->out, &st), 0);

	/* bad command lines */
	argv[1] = "--bogus";
	argv[2] = f->dir;
	argv[3] = NULL;
	assert_int_equal(cmd_merge(3, argv), 129);
	argv[1] = NULL;
	assert_int_equal(cmd_merge(1, argv), 129);
	argv[1] = f->dir;
	argv[2] = "-z30";
	argv[3] = NULL;
	assert_int_equal(cmd_merge(3, argv), 129);
	argv[2] = "-j0";
	assert_int_equal(cmd_merge(3, argv), 129);
	argv[2] = "--jobs=x";
	assert_int_equal(cmd_merge(3, argv), 129);
	argv[1] = "/nonexistent/dir";
	argv[2] = NULL;
	assert_int_equal(cmd_merge(2, argv), 1);
	free(b.data);
}

/*
 * Attrs whose ids sections overlap, each naming the whole file, would read
 * as many ids as the file has bytes per attr: memory quadratic in the
 * file's size. Ids that add up to more than the file holds are refused.
 */
static void test_overlapping_ids(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	struct perf_file_section all;
	struct rbuf b = { 0 };
	char path[256], err[512];
	struct stat st;
	u64 i;
	int fd;

	write_data_file(f, true);
	put_sample(&b, 11, 5, 5);
	write_file(f->dir, "data.0", b.data, b.len);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, NULL, err, sizeof(err)), 0);

	snprintf(path, sizeof(path), "%s/data", f->dir);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(header__read(fd, &hdr), 0);
	all = (struct perf_file_section){ 0, (u64)st.st_size & ~7ULL };
	for (i = 0; i < hdr.attrs.size / hdr.attr_size; i++)
		assert_int_equal(pwrite(fd, &all, sizeof(all), (off_t)(hdr.attrs.offset +
				 (i + 1) * hdr.attr_size - sizeof(all))), (ssize_t)sizeof(all));
	close(fd);
	assert_int_equal(merge__dir(f->dir, f->out, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot read the attrs: not a valid perf.data file"));
	free(b.data);
}

/* header__write_end_raw() refuses a feature given twice or out of range. */
static void test_raw_header_errors(void **state)
{
	struct fixture *f = *state;
	u64 ids[1] = { 1 }, v = 1, off;
	struct header_attr ent = { .ids = ids, .nr_ids = 1 };
	u8 raw[sizeof(struct perf_file_attr)] = { 0 };
	struct header_attrs ha = { .attr_size = sizeof(raw), .nr = 1, .raw = raw, .entries = &ent };
	struct header_payload two[2] = { { HEADER_HOSTNAME, &v, 8 }, { HEADER_HOSTNAME, &v, 8 } };
	struct header_payload bad = { HEADER_FEAT_BITS, &v, 8 };
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/raw", f->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(header__write_start_raw(fd, &ha, &off), 0);
	assert_int_equal(off, PERF_FILE_HEADER_SIZE + 8 + sizeof(raw));
	assert_int_equal(header__write_end_raw(fd, &ha, off, 0, two, 2), -EINVAL);
	assert_int_equal(header__write_end_raw(fd, &ha, off, 0, &bad, 1), -EINVAL);
	assert_int_equal(header__write_end_raw(fd, &ha, off + 8, 0, NULL, 0), -EINVAL);
	assert_int_equal(header__write_end_raw(fd, &ha, off, 0, two, 1), 0);
	close(fd);
}

#define fixture_test(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)
#define disk_test(f)	cmocka_unit_test_setup_teardown(f, setup_disk, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_basic),
		fixture_test(test_header_copied),
		fixture_test(test_sample_id_and_foreign_attrs),
		fixture_test(test_single_evsel_no_id),
		fixture_test(test_zeroed_tail),
		fixture_test(test_given_back_inputs),
		fixture_test(test_unfinished_data),
		fixture_test(test_single_file),
		fixture_test(test_single_file_ahead),
		fixture_test(test_single_tracepoint),
		fixture_test(test_inversion_within_window),
		fixture_test(test_late_record),
		fixture_test(test_random_streams),
		disk_test(test_parallel),
		disk_test(test_parallel_fallback),
		disk_test(test_parallel_index),
		disk_test(test_consume),
		disk_test(test_consume_killed),
		disk_test(test_consume_failed),
		disk_test(test_resume_foreign_partial),
		disk_test(test_consume_merged_twice),
		disk_test(test_killed_unnamed),
		fixture_test(test_compressed_input),
		fixture_test(test_compressed_output),
		fixture_test(test_compressed_unaligned),
		fixture_test(test_errors),
		fixture_test(test_cmd_merge),
		fixture_test(test_overlapping_ids),
		fixture_test(test_raw_header_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
