// SPDX-License-Identifier: GPL-2.0
/*
 * report.c — the account of loss of any perf.data, precord's or perf's, so
 * both recorders are judged with one yardstick: what `precord report
 * --loss` prints (builtin/builtin-report.c) and a recording's closing
 * lines end with (builtin/record-summary.c).
 * Documentation/loss.md defines every figure; this comment says how they are
 * computed.
 *
 * Input: a perf.data file (PERFILE2 with its 104-byte header, or a pipe-mode
 * file with the 16-byte one) or a perf directory (`data` with the header,
 * then every `data.N`, raw records). The attrs and their id arrays come from
 * the header (or HEADER_ATTR records in pipe mode); PERF_RECORD_ID_INDEX
 * gives each id its CPU. Records are streamed in READ_CHUNK reads, never
 * loaded whole; PERF_RECORD_COMPRESSED records go through one zdecomp per
 * file and the records they hold are read like any other.
 *
 * Attribution: each record finds its evsel by id as perf does (IDENTIFIER
 * or ID at the first evsel's position; one evsel: always that one), then a
 * CPU: PERF_SAMPLE_CPU in the sample or in the sample_id trailer; else,
 * when the evsel's records carry ids and ID_INDEX maps them to CPUs, the
 * id's CPU; else -1. LOST_SAMPLES take the id's CPU first: perf 6.1 writes
 * them with CPU 0 in the trailer whatever the descriptor's CPU.
 *
 * Per CPU we count samples, LOST records and their sum, the LOST_SAMPLES sum,
 * timed kernel records and the first and last time; every timed LOST is
 * kept as (cpu, time, lost). At the end each LOST gets its interval
 * [t - lost / rate, t] (rate: the CPU's records delivered and dropped over
 * its active span, divided among the rings behind it), clipped to the
 * recording; the metric is the length of the union of the intervals over
 * the recording's span. The 10 ms windowed version is computed beside it.
 *
 * This file reads records and keeps the counts; report-file.c opens the
 * files and reads their headers, report-figures.c computes the figures
 * and prints them (src/report-internal.h between them).
 *
 * Runs on the caller's thread; no state outlives a call. Memory: the read
 * buffer, the id map, the per-CPU counters and 24 bytes per LOST record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "report-internal.h"

int reader__fail(struct reader *rd, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf__vset(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
	return err;
}

static int reader__bad_record(struct reader *rd, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A record whose fields do not add up: -EINVAL, with one line naming the
 * file and the record's offset (for a record out of compressed data, the
 * offset of the COMPRESSED record it came out of).
 */
static int reader__bad_record(struct reader *rd, const char *type, const char *fmt, ...)
{
	const struct input *in = rd->in;
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return reader__fail(rd, -EINVAL, "'%s': bad %s record %sat offset %#" PRIx64 " of %s: %s",
			    rd->path, type, in->in_zdata ? "in the COMPRESSED record " : "",
			    in->rec_off, in->name, why);
}

/* ---- evsels ------------------------------------------------------------ */

int reader__add_evsel(struct reader *rd, const struct perf_event_attr *attr,
		      const u8 *ids, u64 nr_ids)
{
	bool *indexed = realloc(rd->indexed, sizeof(*indexed) * (size_t)(rd->attrs.nr + 1));
	int ev;
	u64 i;

	if (!indexed)
		return -ENOMEM;
	rd->indexed = indexed;
	indexed[rd->attrs.nr] = false;
	ev = sample_attrs__add(&rd->attrs, attr);
	if (ev < 0)
		return ev;
	for (i = 0; i < nr_ids; i++)
		if (sample_attrs__add_id(&rd->attrs, ev, load_u64(ids + 8 * i)))
			return -ENOMEM;
	return 0;
}

/* An attr of `size` bytes as this build's struct (shorter: zero-filled). */
void attr__load(struct perf_event_attr *attr, const u8 *p, size_t size)
{
	memset(attr, 0, sizeof(*attr));
	memcpy(attr, p, size < sizeof(*attr) ? size : sizeof(*attr));
}

static bool evsel__has_ids(u64 sample_type)
{
	return sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER);
}

/* perf's evlist__event2evsel: one evsel is always it; else by id; else the first. */
static int reader__evsel_by_id(struct reader *rd, bool has_id, u64 id, bool *unknown)
{
	struct id_entry *s;

	*unknown = false;
	if (rd->attrs.nr <= 1 || !has_id)
		return rd->attrs.nr ? 0 : -1;
	s = id_map__find(&rd->attrs.ids, id);
	if (s && s->attr >= 0 && s->attr < rd->attrs.nr)
		return s->attr;
	*unknown = true;
	return 0;
}

/* ---- parsing one record ------------------------------------------------ */

static void info__set_time(struct rec_info *ri, u64 t)
{
	/* perf treats 0 and ~0 as "no time": tool-written records carry them. */
	if (t && t != ~0ULL) {
		ri->time = t;
		ri->has_time = true;
	}
}

static void info__set_cpu(struct rec_info *ri, u32 cpu)
{
	ri->has_cpu = true;
	ri->cpu = cpu < MAX_CPU ? (int)cpu : -1;
}

/* What sample.c read of a record, as this reader takes it. */
static void info__set_fields(struct rec_info *ri, const struct sample_fields *f)
{
	if (f->has_id) {
		ri->id = f->id;
		ri->has_id = true;
	}
	if (f->has_time)
		info__set_time(ri, f->time);
	if (f->has_cpu)
		info__set_cpu(ri, f->cpu);
}

static void reader__parse_sample(struct reader *rd, const u8 *rec, size_t size,
				 struct rec_info *ri)
{
	struct sample_fields f = { 0 };
	bool has_id, unknown;
	u64 id = 0;

	has_id = sample_attrs__record_id(&rd->attrs, rec, size, 0, &id) > 0;
	ri->evsel = reader__evsel_by_id(rd, has_id, id, &unknown);
	if (unknown)
		rd->r->unknown_id++;
	if (ri->evsel < 0)
		return;
	sample__read_fields(rec, size, rd->attrs.attr[ri->evsel].sample_type, &f);
	info__set_fields(ri, &f);
}

/* A record other than a sample, whose own fields take `body` bytes. */
static void reader__parse_other(struct reader *rd, const u8 *rec, size_t size, size_t body,
				struct rec_info *ri)
{
	struct sample_fields f = { 0 };
	bool has_id, unknown;
	u64 id = 0;

	has_id = sample_attrs__record_id(&rd->attrs, rec, size, body, &id) > 0;
	ri->evsel = reader__evsel_by_id(rd, has_id, id, &unknown);
	if (ri->evsel < 0 || !rd->attrs.attr[ri->evsel].sample_id_all)
		return;
	sample_id__read_fields(rec, size, body, rd->attrs.attr[ri->evsel].sample_type, &f);
	info__set_fields(ri, &f);
}

/*
 * The CPU a record counts for. ids_first: the id's ID_INDEX CPU before the
 * one in the record (LOST_SAMPLES, see the top of the file).
 */
static int reader__cpu_of(struct reader *rd, const struct rec_info *ri, bool ids_first)
{
	const struct sample_attr *ev = ri->evsel >= 0 ? &rd->attrs.attr[ri->evsel] : NULL;
	int icpu = -1;

	if (!ev)
		return -1;
	if (rd->indexed[ri->evsel] && ri->has_id) {
		struct id_entry *s = id_map__find(&rd->attrs.ids, ri->id);

		if (s && s->cpu >= 0 && s->cpu < MAX_CPU)
			icpu = s->cpu;
	}
	if (ids_first && icpu >= 0)
		return icpu;
	if ((ev->sample_type & PERF_SAMPLE_CPU) && ri->has_cpu)
		return ri->cpu;
	return icpu;
}

/* ---- accounting -------------------------------------------------------- */

struct cpu_acc *reader__acc(struct reader *rd, int cpu)
{
	int want = cpu + 2;

	if (want > rd->nr_acc) {
		int nr = rd->nr_acc ? rd->nr_acc : 8;
		struct cpu_acc *acc;

		while (nr < want)
			nr *= 2;
		acc = realloc(rd->acc, sizeof(*acc) * (size_t)nr);
		if (!acc)
			return NULL;
		memset(acc + rd->nr_acc, 0, sizeof(*acc) * (size_t)(nr - rd->nr_acc));
		rd->acc = acc;
		rd->nr_acc = nr;
	}
	return &rd->acc[cpu + 1];
}

static void acc__time(struct cpu_acc *a, u64 t)
{
	if (!a->first_time || t < a->first_time)
		a->first_time = t;
	if (t > a->last_time)
		a->last_time = t;
}

/* A record of kernel type: its CPU's timed records and span, and the file's. */
static struct cpu_acc *reader__account(struct reader *rd, const struct rec_info *ri, int cpu)
{
	struct loss_report *r = rd->r;
	struct cpu_acc *a = reader__acc(rd, cpu);

	if (!a || !ri->has_time)
		return a;
	a->records++;
	acc__time(a, ri->time);
	if (!r->first_time || ri->time < r->first_time)
		r->first_time = ri->time;
	if (ri->time > r->last_time)
		r->last_time = ri->time;
	return a;
}

static int reader__sample(struct reader *rd, const u8 *rec, size_t size)
{
	struct rec_info ri = { .evsel = -1 };
	struct cpu_acc *a;

	reader__parse_sample(rd, rec, size, &ri);
	a = reader__account(rd, &ri, reader__cpu_of(rd, &ri, false));
	if (!a)
		return -ENOMEM;
	a->samples++;
	a->seen = true;
	rd->r->samples++;
	return 0;
}

static int reader__keep_lost(struct reader *rd, u64 t, u64 lost, int cpu)
{
	if (rd->nr_lost == rd->cap_lost) {
		size_t cap = rd->cap_lost ? rd->cap_lost * 2 : 256;
		struct lost_ev *l = realloc(rd->lost, sizeof(*l) * cap);

		if (!l)
			return -ENOMEM;
		rd->lost = l;
		rd->cap_lost = cap;
	}
	rd->lost[rd->nr_lost++] = (struct lost_ev){ .time = t, .lost = lost, .cpu = cpu };
	return 0;
}

/* PERF_RECORD_LOST: {header, u64 id, u64 lost, sample_id}. */
static int reader__lost(struct reader *rd, const u8 *rec, size_t size)
{
	struct rec_info ri = { .evsel = -1 };
	struct cpu_acc *a;
	u64 lost;
	int cpu;

	if (size < HDR_SIZE + 16)
		return reader__bad_record(rd, "LOST", "%zu bytes, too short for its fields", size);
	lost = load_u64(rec + HDR_SIZE + 8);
	reader__parse_other(rd, rec, size, 16, &ri);
	if (!ri.has_id) {
		/* The record's own id (the ring owner's): ID_INDEX still knows it. */
		ri.id = load_u64(rec + HDR_SIZE);
		ri.has_id = true;
	}
	cpu = reader__cpu_of(rd, &ri, false);
	a = reader__account(rd, &ri, cpu);
	if (!a)
		return -ENOMEM;
	a->lost_records++;
	a->lost += lost;
	a->seen = true;
	rd->r->lost_records++;
	rd->r->lost += lost;
	if (!ri.has_time) {
		rd->r->untimed_lost_records++;
		return 0;
	}
	return reader__keep_lost(rd, ri.time, lost, cpu);
}

/* PERF_RECORD_LOST_SAMPLES: {header, u64 lost, sample_id}. */
static int reader__lost_samples(struct reader *rd, const u8 *rec, size_t size)
{
	struct rec_info ri = { .evsel = -1 };
	struct cpu_acc *a;
	u64 lost;

	if (size < HDR_SIZE + 8)
		return reader__bad_record(rd, "LOST_SAMPLES", "%zu bytes, too short for its fields",
					  size);
	lost = load_u64(rec + HDR_SIZE);
	reader__parse_other(rd, rec, size, 8, &ri);
	a = reader__account(rd, &ri, reader__cpu_of(rd, &ri, true));
	if (!a)
		return -ENOMEM;
	a->lost_samples += lost;
	a->seen = true;
	rd->r->lost_samples += lost;
	return 0;
}

static int reader__other(struct reader *rd, const u8 *rec, size_t size)
{
	struct rec_info ri = { .evsel = -1 };

	reader__parse_other(rd, rec, size, 0, &ri);
	return reader__account(rd, &ri, reader__cpu_of(rd, &ri, false)) ? 0 : -ENOMEM;
}

/* PERF_RECORD_ID_INDEX: {header, u64 nr, nr × {id, idx, cpu, tid}, ...}. */
static int reader__id_index(struct reader *rd, const u8 *rec, size_t size)
{
	const size_t entry = 4 * sizeof(u64);
	u64 nr, i;

	if (size < HDR_SIZE + 8)
		return reader__bad_record(rd, "ID_INDEX", "%zu bytes, too short for its count",
					  size);
	nr = load_u64(rec + HDR_SIZE);
	if (nr > (size - HDR_SIZE - 8) / entry)
		return reader__bad_record(rd, "ID_INDEX", "%" PRIu64 " entries in %zu bytes",
					  nr, size);
	for (i = 0; i < nr; i++) {
		const u8 *e = rec + HDR_SIZE + 8 + entry * i;
		struct id_entry *s = id_map__get(&rd->attrs.ids, load_u64(e));
		u64 idx = load_u64(e + 8);

		if (!s)
			return -ENOMEM;
		if (s->attr < 0 && idx < (u64)rd->attrs.nr)
			s->attr = (int)idx;
		s->cpu = (int)(s32)load_u64(e + 16);
		s->tid = (int)(s32)load_u64(e + 24);
		if (s->attr >= 0 && s->cpu >= 0 && evsel__has_ids(rd->attrs.attr[s->attr].sample_type))
			rd->indexed[s->attr] = true;
	}
	return 0;
}

/* Pipe mode's PERF_RECORD_HEADER_ATTR: {header, attr (attr.size bytes), u64 ids[]}. */
static int reader__header_attr(struct reader *rd, const u8 *rec, size_t size)
{
	struct perf_event_attr attr;
	u32 asize;

	if (size < HDR_SIZE + PERF_ATTR_SIZE_VER0)
		return reader__bad_record(rd, "HEADER_ATTR", "%zu bytes, too short for an attr",
					  size);
	asize = load_u32(rec + HDR_SIZE + 4);
	if (!asize)
		asize = PERF_ATTR_SIZE_VER0;
	if (asize < PERF_ATTR_SIZE_VER0 || asize > size - HDR_SIZE)
		return reader__bad_record(rd, "HEADER_ATTR", "an attr of %u bytes in %zu", asize,
					  size);
	attr__load(&attr, rec + HDR_SIZE, asize);
	return reader__add_evsel(rd, &attr, rec + HDR_SIZE + asize,
				 (size - HDR_SIZE - asize) / sizeof(u64));
}

static int reader__record(struct reader *rd, struct input *in, const u8 *rec, size_t size);

/* Every whole record a COMPRESSED record completes. */
static int reader__compressed(struct reader *rd, struct input *in, const u8 *rec, size_t size)
{
	const u8 *p;
	size_t len, done = 0;
	int err;

	rd->r->compressed++;
	if (!in->zd) {
		in->zd = zdecomp__new();
		if (!in->zd)
			return -ENOMEM;
	}
	err = zdecomp__feed(in->zd, rec, size);
	if (err)
		return reader__fail(rd, err, "'%s': cannot decompress the COMPRESSED record at "
				    "offset %#" PRIx64 " of %s: %s", rd->path, in->rec_off, in->name,
				    zdecomp__strerror(err));
	p = zdecomp__pending(in->zd, &len);
	in->in_zdata = true;
	while (len - done >= HDR_SIZE) {
		struct perf_event_header h;

		memcpy(&h, p + done, sizeof(h));
		if (h.size < HDR_SIZE || h.type == PERF_RECORD_COMPRESSED) {
			err = reader__fail(rd, -EINVAL, "'%s': corrupt record (type %u, size %u) "
					   "in the COMPRESSED record at offset %#" PRIx64 " of %s",
					   rd->path, h.type, h.size, in->rec_off, in->name);
			break;
		}
		if (h.size > len - done)
			break;
		err = reader__record(rd, in, p + done, h.size);
		if (err)
			break;
		done += h.size;
	}
	in->in_zdata = false;
	if (!err)
		zdecomp__consume(in->zd, done);
	return err;
}

static int reader__record(struct reader *rd, struct input *in, const u8 *rec, size_t size)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	rd->r->records++;
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return reader__sample(rd, rec, size);
	case PERF_RECORD_LOST:
		return reader__lost(rd, rec, size);
	case PERF_RECORD_LOST_SAMPLES:
		return reader__lost_samples(rd, rec, size);
	case PERF_RECORD_ID_INDEX:
		return reader__id_index(rd, rec, size);
	case PERF_RECORD_HEADER_ATTR:
		return reader__header_attr(rd, rec, size);
	case PERF_RECORD_COMPRESSED:
		return reader__compressed(rd, in, rec, size);
	default:
		if (h.type < PERF_RECORD_USER_TYPE_START)
			return reader__other(rd, rec, size);
		return 0;
	}
}

/* ---- streaming a file ---------------------------------------------------- */

/* Make `need` bytes available at buf[pos]; returns how many are (≤ need when the file ends). */
static ssize_t input__fill(struct input *in, u8 *buf, size_t need)
{
	size_t avail = in->len - in->pos;

	if (avail >= need)
		return (ssize_t)avail;
	memmove(buf, buf + in->pos, avail);
	in->pos = 0;
	in->len = avail;
	while (in->len < need && in->off < in->end) {
		size_t want = READ_CHUNK - in->len;
		ssize_t n;

		if (want > in->end - in->off)
			want = (size_t)(in->end - in->off);
		n = pread(in->fd, buf + in->len, want, (off_t)in->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		in->len += (size_t)n;
		in->off += (u64)n;
	}
	return (ssize_t)in->len;
}

/* Bytes from buf[pos] to the end of the data: read or not yet. */
static u64 input__left(const struct input *in)
{
	return (in->len - in->pos) + (in->end - in->off);
}

/* Skip bytes ≤ input__left(): the trace that follows an AUXTRACE record. */
static void input__skip(struct input *in, u64 bytes)
{
	size_t avail = in->len - in->pos;

	if (bytes <= avail) {
		in->pos += (size_t)bytes;
		return;
	}
	in->pos = in->len;
	in->off += bytes - avail;
}

/*
 * PERF_RECORD_AUXTRACE: {header, u64 size, ...}, then `size` bytes of trace
 * outside header.size. *skip: those bytes, checked against what the data
 * holds after the record at buf[pos] (a size that wraps the offset would
 * send the reader back over the same records forever).
 */
static int reader__auxtrace_size(struct reader *rd, const struct input *in, u16 size,
				 u64 *skip)
{
	u64 left = input__left(in) - size;

	*skip = 0;
	if (size < HDR_SIZE + 8)
		return 0;
	*skip = load_u64(rd->buf + in->pos + HDR_SIZE);
	if (*skip <= left)
		return 0;
	return reader__bad_record(rd, "AUXTRACE", "%" PRIu64 " bytes of trace follow it, "
				  "the data holds %" PRIu64, *skip, left);
}

static int reader__stream(struct reader *rd, struct input *in)
{
	for (;;) {
		struct perf_event_header h;
		u64 file_off = in->off - (in->len - in->pos);
		ssize_t avail = input__fill(in, rd->buf, HDR_SIZE);
		u64 skip;
		int err;

		if (avail < 0)
			return reader__fail(rd, (int)avail, "'%s': cannot read %s: %s", rd->path,
					    in->name, strerror((int)-avail));
		if (avail == 0)
			return 0;
		if ((size_t)avail < HDR_SIZE)
			break;
		memcpy(&h, rd->buf + in->pos, sizeof(h));
		if (h.size < HDR_SIZE)
			return reader__fail(rd, -EINVAL, "'%s': corrupt record at offset %#" PRIx64
					    " of %s (type %u, size %u)", rd->path, file_off,
					    in->name, h.type, h.size);
		avail = input__fill(in, rd->buf, h.size);
		if (avail < 0)
			return reader__fail(rd, (int)avail, "'%s': cannot read %s: %s", rd->path,
					    in->name, strerror((int)-avail));
		if ((size_t)avail < h.size)
			break;
		in->rec_off = file_off;
		skip = 0;
		if (h.type == PERF_RECORD_AUXTRACE) {
			err = reader__auxtrace_size(rd, in, h.size, &skip);
			if (err)
				return err;
		}
		err = reader__record(rd, in, rd->buf + in->pos, h.size);
		if (err)
			return err;
		in->pos += h.size;
		input__skip(in, skip);
	}
	rd->r->truncated_bytes += in->len - in->pos;
	return 0;
}

int reader__stream_fd(struct reader *rd, int fd, const char *name, u64 start, u64 end)
{
	struct input in = { .fd = fd, .name = name, .off = start, .end = end };
	int err;

	posix_fadvise(fd, (off_t)start, (off_t)(end - start), POSIX_FADV_SEQUENTIAL);
	rd->in = &in;
	err = reader__stream(rd, &in);
	rd->in = NULL;
	zdecomp__delete(in.zd);
	rd->r->nr_files++;
	return err;
}

/* ---- API ------------------------------------------------------------------ */

int loss_report__read(const char *path, struct loss_report *r, char *err, size_t errlen)
{
	struct reader rd = { .path = path, .err = err, .errlen = errlen, .r = r };
	struct stat st;
	int ret;

	memset(r, 0, sizeof(*r));
	if (err && errlen)
		err[0] = '\0';
	r->path = strdup(path);
	rd.buf = malloc(READ_CHUNK);
	if (!r->path || !rd.buf) {
		ret = reader__fail(&rd, -ENOMEM, "'%s': out of memory", path);
		goto out;
	}
	if (stat(path, &st) < 0)
		ret = reader__fail(&rd, -errno, "cannot open '%s': %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = reader__dir(&rd, path);
	else
		ret = reader__file(&rd, path);
	if (!ret)
		ret = reader__finish(&rd);
	if (ret == -ENOMEM && err && errlen && !err[0])
		reader__fail(&rd, ret, "'%s': out of memory", path);
out:
	free(rd.buf);
	sample_attrs__exit(&rd.attrs);
	free(rd.indexed);
	free(rd.acc);
	free(rd.lost);
	if (ret)
		loss_report__exit(r);
	return ret;
}

void loss_report__exit(struct loss_report *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->cpus);
	free(r->intervals);
	r->path = NULL;
	r->cpus = NULL;
	r->nr_cpus = 0;
	r->intervals = NULL;
	r->nr_intervals = 0;
}

