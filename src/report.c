// SPDX-License-Identifier: GPL-2.0
/*
 * report.c — `precord report --loss`: the account of loss of any perf.data,
 * precord's or perf's, so both recorders are judged with one yardstick.
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
 * Runs on the caller's thread; no state outlives a call. Memory: the read
 * buffer, the id map, the per-CPU counters and 24 bytes per LOST record.
 */
#include <dirent.h>
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

#include "precord/report.h"
#include "precord/compress.h"
#include "precord/loss-svg.h"

#define READ_CHUNK		(4u << 20)	/* bytes per read(); holds any record */
#define LOSS_WINDOW_NS		10000000ULL	/* the windowed metric's 10 ms */
#define PIPE_HEADER_SIZE	16
/*
 * A larger CPU number is garbage: -1. Linux has at most 8192 CPUs; the
 * per-CPU counters are an array indexed by CPU (64 bytes an entry), 4 MiB
 * at this bound where 1 << 20 made one record cost 64 MiB.
 */
#define MAX_CPU			(1 << 16)
#define MAX_ATTRS_BYTES		(64u << 20)	/* sanity bound on the attrs and ids */
#define HDR_SIZE		sizeof(struct perf_event_header)
#define CPU_UNKNOWN		INT_MIN		/* id not (yet) in an ID_INDEX */
#define EXIT_USAGE		129

struct rd_evsel {
	u64	sample_type;
	bool	sample_id_all;
	bool	indexed;	/* its records carry ids and ID_INDEX gives their CPUs */
};

struct id_slot {
	u64	id;
	int	evsel;		/* index in rd->evsels, -1: unknown */
	int	cpu;		/* from ID_INDEX, CPU_UNKNOWN before */
	int	tid;
	bool	used;
};

struct id_map {
	struct id_slot	*slots;
	size_t		cap;	/* power of two */
	size_t		nr;
};

struct cpu_acc {
	u64	samples, lost_records, lost, lost_samples, records;
	u64	first_time, last_time;
	bool	seen;		/* a sample or a loss: gets a row */
};

struct lost_ev {
	u64	time;
	u64	lost;
	int	cpu;
};

/* What one record says about itself. */
struct rec_info {
	int	evsel;		/* -1: no evsel known */
	bool	has_time, has_cpu, has_id;
	u64	time, id;
	int	cpu;
};

/* One file being streamed: buf[pos, len) is read, not yet consumed. */
struct input {
	int		fd;
	const char	*name;
	u64		off;	/* file offset of buf[len] */
	u64		end;	/* stop reading here */
	size_t		pos, len;
	u64		rec_off;	/* file offset of the record being read */
	bool		in_zdata;	/* it came out of the COMPRESSED one at rec_off */
	struct zdecomp	*zd;
};

struct reader {
	const char		*path;
	char			*err;
	size_t			errlen;
	struct loss_report	*r;
	const struct input	*in;	/* the file being streamed, for messages */
	struct rd_evsel		*evsels;
	int			nr_evsels;
	struct id_map		ids;
	struct cpu_acc		*acc;	/* acc[cpu + 1] */
	int			nr_acc;
	struct lost_ev		*lost;
	size_t			nr_lost, cap_lost;
	u8			*buf;
};

static u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int reader__fail(struct reader *rd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reader__fail(struct reader *rd, int err, const char *fmt, ...)
{
	va_list ap;

	if (rd->err && rd->errlen) {
		va_start(ap, fmt);
		vsnprintf(rd->err, rd->errlen, fmt, ap);
		va_end(ap);
	}
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

/* ---- the id map: id → evsel, CPU, tid --------------------------------- */

static size_t id_hash(u64 id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id;
}

static struct id_slot *id_map__find(const struct id_map *m, u64 id)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = id_hash(id) & (m->cap - 1); m->slots[i].used; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].id == id)
			return &m->slots[i];
	return NULL;
}

static struct id_slot *id_map__place(struct id_map *m, u64 id)
{
	size_t i = id_hash(id) & (m->cap - 1);

	while (m->slots[i].used && m->slots[i].id != id)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static int id_map__grow(struct id_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct id_map n = { .cap = cap, .nr = m->nr };

	n.slots = calloc(cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*id_map__place(&n, m->slots[i].id) = m->slots[i];
	free(m->slots);
	*m = n;
	return 0;
}

/* The slot of id, created (evsel -1, CPU unknown) when new; NULL: -ENOMEM. */
static struct id_slot *id_map__get(struct id_map *m, u64 id)
{
	struct id_slot *s = id_map__find(m, id);

	if (s)
		return s;
	if ((m->nr + 1) * 2 > m->cap && id_map__grow(m))
		return NULL;
	s = id_map__place(m, id);
	*s = (struct id_slot){ .id = id, .evsel = -1, .cpu = CPU_UNKNOWN, .tid = -1, .used = true };
	m->nr++;
	return s;
}

/* ---- evsels ------------------------------------------------------------ */

static int reader__add_evsel(struct reader *rd, const struct perf_event_attr *attr,
			     const u8 *ids, u64 nr_ids)
{
	struct rd_evsel *ev = realloc(rd->evsels, sizeof(*ev) * (size_t)(rd->nr_evsels + 1));
	u64 i;

	if (!ev)
		return -ENOMEM;
	rd->evsels = ev;
	ev[rd->nr_evsels] = (struct rd_evsel){
		.sample_type	= attr->sample_type,
		.sample_id_all	= attr->sample_id_all,
	};
	for (i = 0; i < nr_ids; i++) {
		struct id_slot *s = id_map__get(&rd->ids, get_u64(ids + 8 * i));

		if (!s)
			return -ENOMEM;
		s->evsel = rd->nr_evsels;
	}
	rd->nr_evsels++;
	return 0;
}

/* An attr of `size` bytes as this build's struct (shorter: zero-filled). */
static void attr__load(struct perf_event_attr *attr, const u8 *p, size_t size)
{
	memset(attr, 0, sizeof(*attr));
	memcpy(attr, p, size < sizeof(*attr) ? size : sizeof(*attr));
}

static bool evsel__has_ids(const struct rd_evsel *ev)
{
	return ev->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER);
}

/* Where the id is in a sample, in u64 after the header; -1: none (perf's id_pos). */
static int sample_id_pos(u64 st)
{
	int pos = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_IP);
	pos += !!(st & PERF_SAMPLE_TID);
	pos += !!(st & PERF_SAMPLE_TIME);
	pos += !!(st & PERF_SAMPLE_ADDR);
	return pos;
}

/* Where the id is in a sample_id trailer, in u64 from the end (1 = last); -1: none. */
static int trailer_id_pos(u64 st)
{
	int pos = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_CPU);
	pos += !!(st & PERF_SAMPLE_STREAM_ID);
	return pos;
}

static size_t trailer_size(u64 st)
{
	u64 bits = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);

	return 8 * (size_t)__builtin_popcountll(bits);
}

/* perf's evlist__event2evsel: one evsel is always it; else by id; else the first. */
static int reader__evsel_by_id(struct reader *rd, bool has_id, u64 id, bool *unknown)
{
	struct id_slot *s;

	*unknown = false;
	if (rd->nr_evsels <= 1 || !has_id)
		return rd->nr_evsels ? 0 : -1;
	s = id_map__find(&rd->ids, id);
	if (s && s->evsel >= 0 && s->evsel < rd->nr_evsels)
		return s->evsel;
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

static const u8 *skip_if(const u8 *p, u64 st, u64 bit)
{
	return st & bit ? p + 8 : p;
}

/* The fields of a sample before its variable part: time, id, CPU. */
static void sample__parse(const u8 *rec, size_t size, u64 st, struct rec_info *ri)
{
	const u8 *p = rec + HDR_SIZE, *end = rec + size;

	if ((st & PERF_SAMPLE_IDENTIFIER) && p + 8 <= end) {
		ri->id = get_u64(p);
		ri->has_id = true;
	}
	p = skip_if(p, st, PERF_SAMPLE_IDENTIFIER);
	p = skip_if(p, st, PERF_SAMPLE_IP);
	p = skip_if(p, st, PERF_SAMPLE_TID);
	if ((st & PERF_SAMPLE_TIME) && p + 8 <= end)
		info__set_time(ri, get_u64(p));
	p = skip_if(p, st, PERF_SAMPLE_TIME);
	p = skip_if(p, st, PERF_SAMPLE_ADDR);
	if ((st & PERF_SAMPLE_ID) && !ri->has_id && p + 8 <= end) {
		ri->id = get_u64(p);
		ri->has_id = true;
	}
	p = skip_if(p, st, PERF_SAMPLE_ID);
	p = skip_if(p, st, PERF_SAMPLE_STREAM_ID);
	if ((st & PERF_SAMPLE_CPU) && p + 4 <= end)
		info__set_cpu(ri, get_u32(p));
}

/* The sample_id trailer of a non-sample record whose own fields take `body` bytes. */
static void trailer__parse(const u8 *rec, size_t size, size_t body, u64 st, struct rec_info *ri)
{
	size_t n = trailer_size(st);
	const u8 *p;

	if (size < HDR_SIZE + body + n)
		return;
	p = rec + size - n;
	if (st & PERF_SAMPLE_TID)
		p += 8;
	if (st & PERF_SAMPLE_TIME) {
		info__set_time(ri, get_u64(p));
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		ri->id = get_u64(p);
		ri->has_id = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (st & PERF_SAMPLE_CPU) {
		info__set_cpu(ri, get_u32(p));
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		ri->id = get_u64(p);
		ri->has_id = true;
	}
}

static void reader__parse_sample(struct reader *rd, const u8 *rec, size_t size,
				 struct rec_info *ri)
{
	int pos = rd->nr_evsels ? sample_id_pos(rd->evsels[0].sample_type) : -1;
	bool has_id = pos >= 0 && HDR_SIZE + 8 * (size_t)(pos + 1) <= size;
	bool unknown;

	ri->evsel = reader__evsel_by_id(rd, has_id, has_id ? get_u64(rec + HDR_SIZE + 8 * pos) : 0,
					&unknown);
	if (unknown)
		rd->r->unknown_id++;
	if (ri->evsel >= 0)
		sample__parse(rec, size, rd->evsels[ri->evsel].sample_type, ri);
}

static void reader__parse_other(struct reader *rd, const u8 *rec, size_t size, size_t body,
				struct rec_info *ri)
{
	const struct rd_evsel *first = rd->nr_evsels ? &rd->evsels[0] : NULL;
	int pos = first && first->sample_id_all ? trailer_id_pos(first->sample_type) : -1;
	bool has_id = pos >= 0 && size >= HDR_SIZE + body + 8 * (size_t)pos;
	bool unknown;

	ri->evsel = reader__evsel_by_id(rd, has_id, has_id ? get_u64(rec + size - 8 * pos) : 0,
					&unknown);
	if (ri->evsel >= 0 && rd->evsels[ri->evsel].sample_id_all)
		trailer__parse(rec, size, body, rd->evsels[ri->evsel].sample_type, ri);
}

/*
 * The CPU a record counts for. ids_first: the id's ID_INDEX CPU before the
 * one in the record (LOST_SAMPLES, see the top of the file).
 */
static int reader__cpu_of(struct reader *rd, const struct rec_info *ri, bool ids_first)
{
	const struct rd_evsel *ev = ri->evsel >= 0 ? &rd->evsels[ri->evsel] : NULL;
	int icpu = -1;

	if (!ev)
		return -1;
	if (ev->indexed && ri->has_id) {
		struct id_slot *s = id_map__find(&rd->ids, ri->id);

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

static struct cpu_acc *reader__acc(struct reader *rd, int cpu)
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
	lost = get_u64(rec + HDR_SIZE + 8);
	reader__parse_other(rd, rec, size, 16, &ri);
	if (!ri.has_id) {
		/* The record's own id (the ring owner's): ID_INDEX still knows it. */
		ri.id = get_u64(rec + HDR_SIZE);
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
	lost = get_u64(rec + HDR_SIZE);
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
	nr = get_u64(rec + HDR_SIZE);
	if (nr > (size - HDR_SIZE - 8) / entry)
		return reader__bad_record(rd, "ID_INDEX", "%" PRIu64 " entries in %zu bytes",
					  nr, size);
	for (i = 0; i < nr; i++) {
		const u8 *e = rec + HDR_SIZE + 8 + entry * i;
		struct id_slot *s = id_map__get(&rd->ids, get_u64(e));
		u64 idx = get_u64(e + 8);

		if (!s)
			return -ENOMEM;
		if (s->evsel < 0 && idx < (u64)rd->nr_evsels)
			s->evsel = (int)idx;
		s->cpu = (int)(s32)get_u64(e + 16);
		s->tid = (int)(s32)get_u64(e + 24);
		if (s->evsel >= 0 && s->cpu >= 0 && evsel__has_ids(&rd->evsels[s->evsel]))
			rd->evsels[s->evsel].indexed = true;
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
	asize = get_u32(rec + HDR_SIZE + 4);
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
				    strerror(-err));
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
	*skip = get_u64(rd->buf + in->pos + HDR_SIZE);
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

static int reader__stream_fd(struct reader *rd, int fd, const char *name, u64 start, u64 end)
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

/* ---- the header ---------------------------------------------------------- */

/* The file whose header is being read. */
struct header_in {
	int		fd;
	const char	*name;
	u64		file_size;
	u64		ids_bytes;	/* the id arrays read so far */
};

static int reader__bad_section(struct reader *rd, const struct header_in *hi, const char *what,
			       const struct perf_file_section *sec, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A header section that does not fit: -EINVAL, one line naming it and its offset. */
static int reader__bad_section(struct reader *rd, const struct header_in *hi, const char *what,
			       const struct perf_file_section *sec, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return reader__fail(rd, -EINVAL, "'%s': bad %s of %s (%" PRIu64 " bytes at offset %#"
			    PRIx64 "): %s", rd->path, what, hi->name, sec->size, sec->offset, why);
}

static bool section__in_file(const struct perf_file_section *sec, u64 file_size)
{
	return sec->offset <= file_size && sec->size <= file_size - sec->offset;
}

/* Read a section checked with section__in_file(); NULL: -ENOMEM or a short read. */
static u8 *section__read(int fd, const struct perf_file_section *sec)
{
	u8 *buf = malloc(sec->size ? sec->size : 1);

	if (buf && pread(fd, buf, sec->size, (off_t)sec->offset) != (ssize_t)sec->size) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	return buf;
}

/*
 * The ids section of the attr at file offset `at`. The id arrays together
 * are bounded (MAX_ATTRS_BYTES): attrs pointing at one large array could
 * otherwise have it read and inserted over and over.
 */
static int reader__read_ids(struct reader *rd, struct header_in *hi, u64 at,
			    const struct perf_file_section *ids, const struct perf_event_attr *attr)
{
	char what[64];
	u8 *buf;
	int err;

	snprintf(what, sizeof(what), "ids section of the attr at offset %#" PRIx64, at);
	if (ids->size % sizeof(u64))
		return reader__bad_section(rd, hi, what, ids, "not a whole number of ids");
	if (ids->size > MAX_ATTRS_BYTES - hi->ids_bytes)
		return reader__bad_section(rd, hi, what, ids, "the id arrays add up to more "
					   "than %u MiB", MAX_ATTRS_BYTES >> 20);
	if (!section__in_file(ids, hi->file_size))
		return reader__bad_section(rd, hi, what, ids, "past the end of the file (%" PRIu64
					   " bytes)", hi->file_size);
	hi->ids_bytes += ids->size;
	buf = section__read(hi->fd, ids);
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : reader__bad_section(rd, hi, what, ids,
								       "cannot read it");
	err = reader__add_evsel(rd, attr, buf, ids->size / sizeof(u64));
	free(buf);
	return err;
}

static int reader__read_attrs(struct reader *rd, struct header_in *hi,
			      const struct perf_file_header *hdr)
{
	const struct perf_file_section *attrs = &hdr->attrs;
	u64 asz = hdr->attr_size, i, nr;
	u8 *buf;
	int err = 0;

	if (asz < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section))
		return reader__bad_section(rd, hi, "attrs section", attrs, "attr_size %" PRIu64
					   " is too small for an attr and its ids section", asz);
	if (attrs->size % asz)
		return reader__bad_section(rd, hi, "attrs section", attrs, "not a whole number "
					   "of attrs of attr_size %" PRIu64, asz);
	if (attrs->size > MAX_ATTRS_BYTES)
		return reader__bad_section(rd, hi, "attrs section", attrs, "more than %u MiB",
					   MAX_ATTRS_BYTES >> 20);
	if (!section__in_file(attrs, hi->file_size))
		return reader__bad_section(rd, hi, "attrs section", attrs, "past the end of the "
					   "file (%" PRIu64 " bytes)", hi->file_size);
	buf = section__read(hi->fd, attrs);
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : reader__bad_section(rd, hi, "attrs section",
								       attrs, "cannot read it");
	nr = attrs->size / asz;
	for (i = 0; i < nr && !err; i++) {
		const u8 *p = buf + i * asz;
		struct perf_file_section ids;
		struct perf_event_attr attr;

		attr__load(&attr, p, asz - sizeof(ids));
		memcpy(&ids, p + asz - sizeof(ids), sizeof(ids));
		err = reader__read_ids(rd, hi, attrs->offset + i * asz, &ids, &attr);
	}
	free(buf);
	return err;
}

/*
 * The data section [*start, *end): it may run past the end of the file (a
 * copy cut short: the rest is reported missing), not into the header or
 * past 2^64.
 */
static int reader__data_section(struct reader *rd, const struct header_in *hi,
				const struct perf_file_header *hdr, u64 *start, u64 *end)
{
	const struct perf_file_section *data = &hdr->data;

	if (data->offset < hdr->size)
		return reader__bad_section(rd, hi, "data section", data, "it overlaps the %"
					   PRIu64 "-byte header", hdr->size);
	if (data->size > ~0ULL - data->offset)
		return reader__bad_section(rd, hi, "data section", data, "its end is past 2^64");
	*start = data->offset;
	*end = data->offset + data->size;
	if (!data->size) {
		/* A recording that never finished: its data runs to the end. */
		rd->r->size_from_eof = true;
		*end = hi->file_size;
	}
	if (*end > hi->file_size) {
		u64 from = *start > hi->file_size ? *start : hi->file_size;

		rd->r->missing_bytes += *end - from;
		*end = hi->file_size;
	}
	if (*start > *end)
		*start = *end;
	return 0;
}

/*
 * The fixed header: 0 and the data section [*start, *end), or -errno with
 * the message. A pipe-mode file's data runs from byte 16 to the end.
 */
static int reader__open_header(struct reader *rd, int fd, const char *name, u64 *start, u64 *end)
{
	struct header_in hi = { .fd = fd, .name = name };
	struct perf_file_header hdr;
	struct stat st;
	ssize_t n;
	int err;

	if (fstat(fd, &st) < 0)
		return reader__fail(rd, -errno, "cannot stat '%s': %s", name, strerror(errno));
	hi.file_size = (u64)st.st_size;
	n = pread(fd, &hdr, sizeof(hdr), 0);
	if (n < 0)
		return reader__fail(rd, -errno, "cannot read '%s': %s", name, strerror(errno));
	if ((size_t)n < sizeof(hdr.magic) + sizeof(hdr.size) ||
	    (hdr.magic != PERF_MAGIC && hdr.magic != __builtin_bswap64(PERF_MAGIC)))
		return reader__fail(rd, -EINVAL, "'%s' is not a perf.data file (bad magic)", name);
	if (hdr.magic != PERF_MAGIC)
		return reader__fail(rd, -EINVAL,
				    "'%s' was written on a machine of the other byte order: not supported",
				    name);
	if (hdr.size == PIPE_HEADER_SIZE) {
		*start = PIPE_HEADER_SIZE;
		*end = hi.file_size;
		return 0;
	}
	if ((size_t)n < sizeof(hdr) || hdr.size != sizeof(hdr))
		return reader__fail(rd, -EINVAL, "'%s' is not a perf.data file (header of %" PRIu64
				    " bytes)", name, hdr.size);
	err = reader__data_section(rd, &hi, &hdr, start, end);
	if (!err)
		err = reader__read_attrs(rd, &hi, &hdr);
	return err;
}

static int reader__file(struct reader *rd, const char *name)
{
	u64 start, end;
	int fd = open(name, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return reader__fail(rd, -errno, "cannot open '%s': %s", name, strerror(errno));
	err = reader__open_header(rd, fd, name, &start, &end);
	if (!err)
		err = reader__stream_fd(rd, fd, name, start, end);
	close(fd);
	return err;
}

/* A data.N of a directory: raw records from its first byte to its last. */
static int reader__raw_file(struct reader *rd, const char *name)
{
	struct stat st;
	int fd = open(name, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return reader__fail(rd, -errno, "cannot open '%s': %s", name, strerror(errno));
	if (fstat(fd, &st) < 0)
		err = reader__fail(rd, -errno, "cannot stat '%s': %s", name, strerror(errno));
	else
		err = reader__stream_fd(rd, fd, name, 0, (u64)st.st_size);
	close(fd);
	return err;
}

/* "data.12" → 12; anything else → -1. */
static long data_file__number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "data.", 5) || !name[5])
		return -1;
	n = strtol(name + 5, &end, 10);
	return *end || n < 0 ? -1 : n;
}

static int long__cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The data.N of dir, in numeric order. */
static int dir__list(struct reader *rd, const char *dir, long **nums, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*nums = NULL;
	*nr = 0;
	if (!d)
		return reader__fail(rd, -errno, "cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		long n = data_file__number(de->d_name);

		if (n < 0)
			continue;
		if (*nr == cap) {
			long *p = realloc(*nums, sizeof(*p) * (cap = cap ? cap * 2 : 16));

			if (!p) {
				closedir(d);
				return -ENOMEM;
			}
			*nums = p;
		}
		(*nums)[(*nr)++] = n;
	}
	closedir(d);
	/* No data.N leaves *nums NULL, which qsort() must not get even for 0 items. */
	if (*nr)
		qsort(*nums, *nr, sizeof(**nums), long__cmp);
	return 0;
}

static int reader__dir(struct reader *rd, const char *dir)
{
	char *name = NULL;
	long *nums;
	size_t nr, i;
	int err;

	if (asprintf(&name, "%s/data", dir) < 0)
		return -ENOMEM;
	if (access(name, F_OK) < 0) {
		free(name);
		return reader__fail(rd, -ENOENT, "'%s' is a directory without a 'data' file: "
				    "not a perf.data directory", dir);
	}
	err = reader__file(rd, name);
	free(name);
	if (err)
		return err;
	err = dir__list(rd, dir, &nums, &nr);
	for (i = 0; i < nr && !err; i++) {
		if (asprintf(&name, "%s/data.%ld", dir, nums[i]) < 0) {
			err = -ENOMEM;
			break;
		}
		err = reader__raw_file(rd, name);
		free(name);
	}
	free(nums);
	return err;
}

/* ---- the figures --------------------------------------------------------- */

struct interval {
	u64	start, end;
	u64	lost;
	int	cpu;
};

static int interval__cmp_cpu(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int interval__cmp_start(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Length of the union of iv[0..nr), sorted by start. */
static u64 intervals__union(const struct interval *iv, size_t nr)
{
	u64 total = 0, s = 0, e = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (i && iv[i].start <= e) {
			if (iv[i].end > e)
				e = iv[i].end;
			continue;
		}
		total += e - s;
		s = iv[i].start;
		e = iv[i].end;
	}
	return total + e - s;
}

static int int__cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* How many distinct values vals[0..n) holds; sorts them. */
static int ints__nr_distinct(int *vals, size_t n)
{
	size_t i;
	int nr = 0;

	if (!n)
		return 0;
	qsort(vals, n, sizeof(*vals), int__cmp);
	for (i = 0; i < n; i++)
		nr += !i || vals[i] != vals[i - 1];
	return nr;
}

/*
 * The rings behind cpu -1, from ID_INDEX: the distinct CPUs of the ids of
 * evsels whose records carry no CPU (per-CPU rings), else their distinct
 * threads (per-thread rings), at least 1. Sorted, not compared pairwise: a
 * per-thread recording of many threads has an id per thread and evsel.
 */
static int reader__nocpu_rings(struct reader *rd)
{
	int *vals = malloc(sizeof(int) * (rd->ids.nr ? rd->ids.nr : 1));
	bool by_cpu = false;
	size_t i, n = 0;
	int pass, rings;

	if (!vals)
		return 1;
	for (pass = 0; pass < 2 && !n; pass++) {
		by_cpu = pass == 0;
		for (i = 0; i < rd->ids.cap; i++) {
			const struct id_slot *s = &rd->ids.slots[i];
			const struct rd_evsel *ev;

			if (!s->used || s->evsel < 0 || s->cpu == CPU_UNKNOWN)
				continue;
			ev = &rd->evsels[s->evsel];
			if ((ev->sample_type & PERF_SAMPLE_CPU) || ev->indexed)
				continue;
			if (by_cpu && s->cpu >= 0)
				vals[n++] = s->cpu;
			else if (!by_cpu && s->tid > 0)
				vals[n++] = s->tid;
		}
	}
	rings = ints__nr_distinct(vals, n);
	free(vals);
	return rings ? rings : 1;
}

/* The interval of one LOST: [t - lost / rate, t], clipped to the recording. */
static struct interval reader__interval(const struct reader *rd, const struct lost_ev *l,
					const struct loss_cpu *c)
{
	const struct loss_report *r = rd->r;
	u64 span = c->last_time - c->first_time;
	u64 records = c->records + c->lost;
	unsigned __int128 len = 0;
	struct interval iv = { .end = l->time, .lost = l->lost, .cpu = l->cpu };

	if (!span)
		span = r->elapsed_ns;
	if (records)
		len = (unsigned __int128)l->lost * span * (u64)c->nr_rings / records;
	iv.start = len >= l->time - r->first_time ? r->first_time : l->time - (u64)len;
	return iv;
}

static int loss_cpu__cmp(const void *key, const void *elem)
{
	int cpu = *(const int *)key, other = ((const struct loss_cpu *)elem)->cpu;

	return (cpu > other) - (cpu < other);
}

/*
 * Keep the loss intervals of one CPU, iv[0..nr) sorted by start, joined
 * where they overlap, in r->intervals (room for every interval was made).
 */
static void report__keep_intervals(struct loss_report *r, const struct interval *iv, size_t nr)
{
	struct loss_interval *cur = NULL;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (cur && iv[i].start <= cur->end) {
			if (iv[i].end > cur->end)
				cur->end = iv[i].end;
			cur->lost += iv[i].lost;
			continue;
		}
		cur = &r->intervals[r->nr_intervals++];
		*cur = (struct loss_interval){ .start = iv[i].start, .end = iv[i].end,
					       .lost = iv[i].lost, .cpu = iv[i].cpu };
	}
}

/* r->cpus is sorted by CPU (-1 first). */
static struct loss_cpu *report__cpu(struct loss_report *r, int cpu)
{
	return bsearch(&cpu, r->cpus, (size_t)r->nr_cpus, sizeof(*r->cpus), loss_cpu__cmp);
}

static int reader__lost_time(struct reader *rd)
{
	struct loss_report *r = rd->r;
	struct interval *iv;
	size_t i, j;

	if (!rd->nr_lost)
		return 0;
	iv = malloc(sizeof(*iv) * rd->nr_lost);
	r->intervals = malloc(sizeof(*r->intervals) * rd->nr_lost);
	if (!iv || !r->intervals) {
		free(iv);
		return -ENOMEM;
	}
	for (i = 0; i < rd->nr_lost; i++)
		iv[i] = reader__interval(rd, &rd->lost[i], report__cpu(r, rd->lost[i].cpu));
	qsort(iv, rd->nr_lost, sizeof(*iv), interval__cmp_cpu);
	for (i = 0; i < rd->nr_lost; i = j) {
		for (j = i; j < rd->nr_lost && iv[j].cpu == iv[i].cpu; j++)
			;
		report__cpu(r, iv[i].cpu)->lost_time_ns = intervals__union(iv + i, j - i);
		report__keep_intervals(r, iv + i, j - i);
	}
	qsort(iv, rd->nr_lost, sizeof(*iv), interval__cmp_start);
	r->lost_time_ns = intervals__union(iv, rd->nr_lost);
	free(iv);
	return 0;
}

static int u64__cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * Windows of window_ns from first_time, the last one ending at last_time;
 * lost_time_windowed: the summed length of the windows holding a LOST.
 */
static int reader__windows(struct reader *rd)
{
	struct loss_report *r = rd->r;
	u64 w = r->window_ns, prev = ~0ULL, *times;
	size_t i;

	/* Rounded up without elapsed + w - 1, which wraps for times near 2^64. */
	r->nr_windows = r->elapsed_ns ? r->elapsed_ns / w + !!(r->elapsed_ns % w) : 1;
	if (!rd->nr_lost)
		return 0;
	times = malloc(sizeof(*times) * rd->nr_lost);
	if (!times)
		return -ENOMEM;
	for (i = 0; i < rd->nr_lost; i++)
		times[i] = rd->lost[i].time;
	qsort(times, rd->nr_lost, sizeof(*times), u64__cmp);
	for (i = 0; i < rd->nr_lost; i++) {
		u64 k = (times[i] - r->first_time) / w, ws, we;

		if (k >= r->nr_windows)
			k = r->nr_windows - 1;
		if (k == prev)
			continue;
		prev = k;
		ws = r->first_time + k * w;
		we = r->last_time - ws > w ? ws + w : r->last_time;
		r->lost_windows++;
		r->lost_time_windowed_ns += we - ws;
	}
	free(times);
	return 0;
}

static double ratio(u64 num, u64 den)
{
	return den ? (double)num / (double)den : 0.0;
}

static int reader__finish(struct reader *rd)
{
	struct loss_report *r = rd->r;
	int i, n = 0, err;

	for (i = 0; i < rd->nr_acc; i++)
		n += rd->acc[i].seen;
	r->cpus = calloc((size_t)(n ? n : 1), sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	for (i = 0; i < rd->nr_acc; i++) {
		const struct cpu_acc *a = &rd->acc[i];

		if (!a->seen)
			continue;
		r->cpus[r->nr_cpus++] = (struct loss_cpu){
			.cpu = i - 1, .samples = a->samples, .lost_records = a->lost_records,
			.lost = a->lost, .lost_samples = a->lost_samples, .records = a->records,
			.first_time = a->first_time, .last_time = a->last_time,
			.nr_rings = i ? 1 : reader__nocpu_rings(rd),
		};
	}
	r->lost_from_samples = r->lost_samples > 0;
	r->lost_counted = r->lost_from_samples ? r->lost_samples : r->lost;
	r->lost_fraction = ratio(r->lost_counted, r->lost_counted + r->samples);
	r->elapsed_ns = r->last_time - r->first_time;
	r->window_ns = LOSS_WINDOW_NS;
	err = reader__lost_time(rd);
	if (!err)
		err = reader__windows(rd);
	r->loss_metric = ratio(r->lost_time_ns, r->elapsed_ns);
	r->loss_metric_windowed = ratio(r->lost_time_windowed_ns, r->elapsed_ns);
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
	free(rd.evsels);
	free(rd.ids.slots);
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

/* ---- printing --------------------------------------------------------------- */

static double pct(double f)
{
	return 100.0 * f;
}

static double ms(u64 ns)
{
	return (double)ns / 1e6;
}

static void print__totals(const struct loss_report *r, FILE *out)
{
	fprintf(out, "[ precord: %s: %" PRIu64 " samples, %" PRIu64 " lost (%.2f%% of %" PRIu64
		"), over %.3f s ]\n", r->path ? r->path : "perf.data", r->samples, r->lost_counted,
		pct(r->lost_fraction), r->lost_counted + r->samples, (double)r->elapsed_ns / 1e9);
	fprintf(out, "[ precord: %" PRIu64 " LOST records dropped %" PRIu64 " records; "
		"LOST_SAMPLES count %" PRIu64 " lost samples; the lost fraction counts %s ]\n",
		r->lost_records, r->lost, r->lost_samples,
		r->lost_from_samples ? "LOST_SAMPLES" : "the LOST records");
	fprintf(out, "[ precord: Data loss metric %.2f%%: %.3f ms of %.3f ms lie in loss "
		"intervals (one per LOST record, length lost / record rate) ]\n",
		pct(r->loss_metric), ms(r->lost_time_ns), ms(r->elapsed_ns));
	fprintf(out, "[ precord: Data loss metric over %" PRIu64 " ms windows %.2f%%: %" PRIu64
		" of %" PRIu64 " windows hold a LOST record ]\n", r->window_ns / 1000000,
		pct(r->loss_metric_windowed), r->lost_windows, r->nr_windows);
}

static void print__cpus(const struct loss_report *r, FILE *out)
{
	int i;

	fprintf(out, "[ precord:  cpu      samples  LOST recs         lost  lost samples   "
		"lost %%     loss ms  metric %% ]\n");
	for (i = 0; i < r->nr_cpus; i++) {
		const struct loss_cpu *c = &r->cpus[i];
		u64 lost = r->lost_from_samples ? c->lost_samples : c->lost;

		fprintf(out, "[ precord: %4d %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %13" PRIu64
			" %7.2f%% %11.3f %8.2f%% ]\n", c->cpu, c->samples, c->lost_records, c->lost,
			c->lost_samples, pct(ratio(lost, lost + c->samples)), ms(c->lost_time_ns),
			pct(ratio(c->lost_time_ns, r->elapsed_ns)));
		if (c->cpu == -1 && c->nr_rings > 1)
			fprintf(out, "[ precord: cpu -1: the records carry no CPU; %d rings "
				"(ID_INDEX) share its record rate evenly ]\n", c->nr_rings);
	}
}

static void print__warnings(const struct loss_report *r, FILE *out)
{
	if (r->untimed_lost_records)
		fprintf(out, "[ precord: %" PRIu64 " LOST records carry no time and are not in "
			"the data loss metric ]\n", r->untimed_lost_records);
	if (r->unknown_id)
		fprintf(out, "[ precord: %" PRIu64 " samples have an id no attr has ]\n",
			r->unknown_id);
	if (r->size_from_eof)
		fprintf(out, "[ precord: the header has no data size (the recording did not "
			"finish): read to the end of the file ]\n");
	if (r->missing_bytes)
		fprintf(out, "[ precord: %" PRIu64 " bytes of data the header promises are "
			"missing ]\n", r->missing_bytes);
	if (r->truncated_bytes)
		fprintf(out, "[ precord: %" PRIu64 " bytes at the end of the data are not a "
			"whole record ]\n", r->truncated_bytes);
}

void loss_report__print(const struct loss_report *r, FILE *out)
{
	print__totals(r, out);
	print__warnings(r, out);
	if (r->nr_cpus)
		print__cpus(r, out);
}

/* ---- the command ---------------------------------------------------------- */

static int report__usage(FILE *out)
{
	fprintf(out, "\n usage: precord report --loss [--svg OUT.svg] [FILE...]\n\n"
		"    --loss            the account of loss of each FILE (default: perf.data):\n"
		"                      samples, lost samples, LOST records and the data loss\n"
		"                      metric, in all and per CPU (Documentation/loss.md)\n"
		"    --svg OUT.svg     also draw when each CPU lost records (one FILE only)\n"
		"    -i, --input FILE  a file or perf directory to read (same as FILE)\n\n");
	return EXIT_USAGE;
}

/* The loss timeline of r into svg; 0 or 1 with the reason on stderr. */
static int report__svg(const struct loss_report *r, const char *svg)
{
	FILE *out = fopen(svg, "w");
	int err;

	if (!out) {
		fprintf(stderr, "precord: report: cannot create '%s': %s\n", svg, strerror(errno));
		return 1;
	}
	err = loss_svg__write(r, out);
	if (fclose(out) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "precord: report: writing '%s' failed: %s\n", svg, strerror(-err));
		return 1;
	}
	return 0;
}

static int report__one(const char *path, const char *svg, int *printed)
{
	struct loss_report r;
	char err[512];
	int status = 0;

	if (loss_report__read(path, &r, err, sizeof(err))) {
		fflush(stdout);
		fprintf(stderr, "precord: %s\n", err);
		return 1;
	}
	if ((*printed)++)
		putchar('\n');
	loss_report__print(&r, stdout);
	if (svg) {
		fflush(stdout);
		status = report__svg(&r, svg);
	}
	loss_report__exit(&r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	const char *svg = NULL;
	bool loss = false, opts_done = false;
	int i, nr = 0, status = 0, printed = 0;

	if (!files) {
		fprintf(stderr, "precord: report: out of memory\n");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			files[nr++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "--loss")) {
			loss = true;
		} else if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
			if (++i == argc) {
				fprintf(stderr, "precord: report: option '%s' requires a value\n", a);
				free(files);
				return report__usage(stderr);
			}
			files[nr++] = argv[i];
		} else if (!strncmp(a, "--input=", 8)) {
			files[nr++] = a + 8;
		} else if (!strcmp(a, "--svg")) {
			if (++i == argc) {
				fprintf(stderr, "precord: report: option '%s' requires a value\n", a);
				free(files);
				return report__usage(stderr);
			}
			svg = argv[i];
		} else if (!strncmp(a, "--svg=", 6)) {
			svg = a + 6;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(files);
			report__usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "precord: report: unknown option '%s'\n", a);
			free(files);
			return report__usage(stderr);
		}
	}
	if (!loss) {
		fprintf(stderr, "precord: report: only the account of loss exists: "
			"use 'precord report --loss [FILE...]'\n");
		free(files);
		return report__usage(stderr);
	}
	if (svg && (!svg[0] || nr > 1)) {
		fprintf(stderr, "precord: report: --svg takes a file name and draws one "
			"recording: give one FILE\n");
		free(files);
		return report__usage(stderr);
	}
	if (!nr)
		files[nr++] = "perf.data";
	for (i = 0; i < nr; i++)
		status |= report__one(files[i], svg, &printed);
	free(files);
	return status;
}
