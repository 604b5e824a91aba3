// SPDX-License-Identifier: GPL-2.0
/*
 * sample.c — the layout of the records a perf event writes, for everyone
 * who writes or reads them: where a sample keeps its id and time for a
 * sample_type, the sample_id trailer (its size for evsel.c and
 * synthesize.c, written into synthesize.c's LOST_SAMPLES, read by
 * report.c),
 * and which attr a record belongs to, by the id map (merge.c orders
 * records by the time this finds).
 *
 * Data flow: a perf_event_attr's sample_type → positions (pure functions);
 * a file's attrs and their ids → struct sample_attrs → per record, the
 * attr and the time. No state outside the caller's structs; a struct
 * sample_attrs is read-only once built, so the merge's parts and walks
 * share one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "precord/sample.h"
#include "precord/util.h"

#define HDR_SIZE	sizeof(struct perf_event_header)
#define TRAILER_BITS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static int bits__count(u64 type, u64 bits)
{
	return __builtin_popcountll(type & bits);
}

/* ---- positions ---- */

int sample__id_pos(u64 st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return bits__count(st, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_ADDR);
}

int sample__time_pos(u64 st)
{
	if (!(st & PERF_SAMPLE_TIME))
		return -1;
	return bits__count(st, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID);
}

int sample_id__id_back(u64 st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + bits__count(st, PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID);
}

int sample_id__time_back(u64 st)
{
	if (!(st & PERF_SAMPLE_TIME))
		return -1;
	return 1 + bits__count(st, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
}

size_t sample_id__size(u64 st)
{
	return 8 * (size_t)bits__count(st, TRAILER_BITS);
}

/* ---- the trailer, written ---- */

static u8 *put_u64(u8 *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static u8 *put_u32_pair(u8 *p, u32 a, u32 b)
{
	memcpy(p, &a, sizeof(a));
	memcpy(p + 4, &b, sizeof(b));
	return p + 8;
}

size_t sample_id__write(void *buf, u64 st, const struct sample_id *sid)
{
	u8 *p = buf;

	if (st & PERF_SAMPLE_TID)
		p = put_u32_pair(p, sid->pid, sid->tid);
	if (st & PERF_SAMPLE_TIME)
		p = put_u64(p, sid->time);
	if (st & PERF_SAMPLE_ID)
		p = put_u64(p, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put_u64(p, sid->id);
	if (st & PERF_SAMPLE_CPU)
		p = put_u32_pair(p, sid->cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put_u64(p, sid->id);
	return (size_t)(p - (u8 *)buf);
}

/* ---- fields, read ---- */

static const u8 *skip_if(const u8 *p, u64 st, u64 bit)
{
	return st & bit ? p + 8 : p;
}

void sample__read_fields(const u8 *rec, size_t size, u64 st, struct sample_fields *f)
{
	const u8 *p = rec + HDR_SIZE, *end = rec + size;

	if ((st & PERF_SAMPLE_IDENTIFIER) && p + 8 <= end) {
		f->id = load_u64(p);
		f->has_id = true;
	}
	p = skip_if(p, st, PERF_SAMPLE_IDENTIFIER);
	p = skip_if(p, st, PERF_SAMPLE_IP);
	p = skip_if(p, st, PERF_SAMPLE_TID);
	if ((st & PERF_SAMPLE_TIME) && p + 8 <= end) {
		f->time = load_u64(p);
		f->has_time = true;
	}
	p = skip_if(p, st, PERF_SAMPLE_TIME);
	p = skip_if(p, st, PERF_SAMPLE_ADDR);
	if ((st & PERF_SAMPLE_ID) && !f->has_id && p + 8 <= end) {
		f->id = load_u64(p);
		f->has_id = true;
	}
	p = skip_if(p, st, PERF_SAMPLE_ID);
	p = skip_if(p, st, PERF_SAMPLE_STREAM_ID);
	if ((st & PERF_SAMPLE_CPU) && p + 4 <= end) {
		f->cpu = load_u32(p);
		f->has_cpu = true;
	}
}

void sample_id__read_fields(const u8 *rec, size_t size, size_t body, u64 st,
			    struct sample_fields *f)
{
	size_t n = sample_id__size(st);
	const u8 *p;

	if (size < HDR_SIZE + body + n)
		return;
	p = rec + size - n;
	p = skip_if(p, st, PERF_SAMPLE_TID);
	if (st & PERF_SAMPLE_TIME) {
		f->time = load_u64(p);
		f->has_time = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		f->id = load_u64(p);
		f->has_id = true;
		p += 8;
	}
	p = skip_if(p, st, PERF_SAMPLE_STREAM_ID);
	if (st & PERF_SAMPLE_CPU) {
		f->cpu = load_u32(p);
		f->has_cpu = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		f->id = load_u64(p);
		f->has_id = true;
	}
}

/* ---- the id map ---- */

static struct id_entry *id_map__place(struct id_map *m, u64 id)
{
	size_t i = id__hash(id) & (m->cap - 1);

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

struct id_entry *id_map__get(struct id_map *m, u64 id)
{
	struct id_entry *e = id_map__find(m, id);

	if (e)
		return e;
	if ((m->nr + 1) * 2 > m->cap && id_map__grow(m))
		return NULL;
	e = id_map__place(m, id);
	*e = (struct id_entry){ .id = id, .attr = -1, .cpu = ID_CPU_UNKNOWN, .tid = -1,
				.used = true };
	m->nr++;
	return e;
}

void id_map__exit(struct id_map *m)
{
	free(m->slots);
	*m = (struct id_map){ 0 };
}

/* ---- the attrs of a file ---- */

int sample_attrs__add(struct sample_attrs *sa, const struct perf_event_attr *attr)
{
	struct sample_attr *a = realloc(sa->attr, sizeof(*a) * (size_t)(sa->nr + 1));
	u64 st = attr->sample_type;

	if (!a)
		return -ENOMEM;
	sa->attr = a;
	a[sa->nr] = (struct sample_attr){
		.sample_type	= st,
		.sample_id_all	= attr->sample_id_all,
		.time_pos	= sample__time_pos(st),
		.time_back	= attr->sample_id_all ? sample_id__time_back(st) : -1,
	};
	if (!sa->nr) {
		sa->id_pos = sample__id_pos(st);
		sa->id_back = attr->sample_id_all ? sample_id__id_back(st) : -1;
	}
	return sa->nr++;
}

int sample_attrs__add_id(struct sample_attrs *sa, int attr, u64 id)
{
	struct id_entry *e = id_map__get(&sa->ids, id);

	if (!e)
		return -ENOMEM;
	e->attr = attr;
	return 0;
}

void sample_attrs__exit(struct sample_attrs *sa)
{
	free(sa->attr);
	id_map__exit(&sa->ids);
	*sa = (struct sample_attrs){ 0 };
}

int sample_attrs__record_id(const struct sample_attrs *sa, const u8 *rec, size_t size,
			    size_t body, u64 *id)
{
	struct perf_event_header h;

	if (!sa->nr)
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		if (sa->id_pos < 0)
			return 0;
		if (HDR_SIZE + 8 * (size_t)(sa->id_pos + 1) > size)
			return -1;
		*id = load_u64(rec + HDR_SIZE + 8 * (size_t)sa->id_pos);
		return 1;
	}
	if (sa->id_back < 0)
		return 0;
	if (size < HDR_SIZE + body + 8 * (size_t)sa->id_back)
		return -1;
	*id = load_u64(rec + size - 8 * (size_t)sa->id_back);
	return 1;
}

