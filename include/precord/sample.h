/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample.h — the layout of the records a perf event writes: where a
 * PERF_RECORD_SAMPLE keeps its id and time for a sample_type, the
 * sample_id trailer that sample_id_all appends to the other kernel
 * records, and which attr a record belongs to (its id, looked up in the
 * map from id to attr). One module knows this, so that the recorder, the
 * merge and the loss report read records alike (src/sample.c).
 *
 * A sample's fields come in sample_type bit order: IDENTIFIER, IP, TID,
 * TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, ... (perf_output_sample()); the
 * trailer holds TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER of those set
 * (perf_event_header__init_id()), one u64 each. Positions are in u64 words:
 * a sample's from the end of its header, a trailer's back from its end (1:
 * the last word), -1 when the record has no such field.
 */
#ifndef PRECORD_SAMPLE_H
#define PRECORD_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "precord/perf-file.h"
#include "precord/util.h"

/* The sample_id trailer at its longest: six u64. */
#define SAMPLE_ID_MAX		48

/* In a sample: perf's id_pos (evsel__calc_id_pos()), and TIME's. */
int sample__id_pos(u64 sample_type);
int sample__time_pos(u64 sample_type);

/* In a trailer: perf's is_pos, and TIME's. */
int sample_id__id_back(u64 sample_type);
int sample_id__time_back(u64 sample_type);
/* The trailer's bytes (whether the attr sets sample_id_all is the caller's to ask). */
size_t sample_id__size(u64 sample_type);

/* The fields of a trailer, as the kernel fills them for a record of one descriptor. */
struct sample_id {
	u32	pid, tid;
	u64	time;
	u64	id;		/* ID, STREAM_ID and IDENTIFIER */
	u32	cpu;
};

/* The trailer of sample_type into buf (sample_id__size() bytes); returns them. */
size_t sample_id__write(void *buf, u64 sample_type, const struct sample_id *sid);

/* What a reader takes of a record: its id, time and CPU, each when present. */
struct sample_fields {
	bool	has_id, has_time, has_cpu;
	u64	id, time;
	u32	cpu;
};

/*
 * The id, time and CPU of a sample of size bytes (rec may be unaligned),
 * each only when the sample holds it whole; IDENTIFIER before ID.
 */
void sample__read_fields(const u8 *rec, size_t size, u64 sample_type, struct sample_fields *f);
/*
 * The same from the trailer at the end of a record whose own fields take
 * body bytes after the header; nothing when the record is too short.
 */
void sample_id__read_fields(const u8 *rec, size_t size, size_t body, u64 sample_type,
			    struct sample_fields *f);

/* ---- the id map: id → attr (and, for a reader of ID_INDEX, CPU and tid) ---- */

#define ID_CPU_UNKNOWN		(-2147483647 - 1)	/* INT_MIN: not (yet) in an ID_INDEX */

struct id_entry {
	u64	id;
	int	attr;		/* index of the attr, -1: unknown */
	int	cpu;		/* from ID_INDEX, ID_CPU_UNKNOWN before */
	int	tid;
	bool	used;
};

/* Open addressing over a power-of-two table, at most half full. */
struct id_map {
	struct id_entry	*slots;
	size_t		cap;
	size_t		nr;
};

static inline size_t id__hash(u64 id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id;
}

/* The entry of id, or NULL. */
static inline struct id_entry *id_map__find(const struct id_map *m, u64 id)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = id__hash(id) & (m->cap - 1); m->slots[i].used; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].id == id)
			return &m->slots[i];
	return NULL;
}

/* The entry of id, made (attr -1, CPU unknown, tid -1) when new; NULL: no memory. */
struct id_entry *id_map__get(struct id_map *m, u64 id);
void id_map__exit(struct id_map *m);

/* ---- the attrs of one file: which attr a record belongs to, and its time ---- */

struct sample_attr {
	u64	sample_type;
	bool	sample_id_all;
	int	time_pos;	/* sample__time_pos() */
	int	time_back;	/* sample_id__time_back() with sample_id_all, else -1 */
};

/*
 * A file's attrs in order and their ids. perf finds a record's attr from
 * the id at the first attr's position (evlist__event2evsel()), so that
 * position is kept apart.
 */
struct sample_attrs {
	int			nr;
	struct sample_attr	*attr;
	struct id_map		ids;
	int			id_pos;		/* of the first attr */
	int			id_back;	/* of the first attr; -1 without sample_id_all */
};

/* attr as the next attr of sa: its index, or -ENOMEM. */
int sample_attrs__add(struct sample_attrs *sa, const struct perf_event_attr *attr);
/* id as one of attr's (a later attr takes an id over): 0 or -ENOMEM. */
int sample_attrs__add_id(struct sample_attrs *sa, int attr, u64 id);
void sample_attrs__exit(struct sample_attrs *sa);

/*
 * The id of a record at the first attr's position: 1 and *id; 0 when the
 * file's records carry none; -1 when the record is too short to hold it.
 * body: for a record other than a sample, the bytes of its own fields.
 */
int sample_attrs__record_id(const struct sample_attrs *sa, const u8 *rec, size_t size,
			    size_t body, u64 *id);

/*
 * The attr of a record as the merge orders it: the only one, the first
 * for a record with no id or id 0; -1 for an id no attr has or a record
 * too short to hold its id. Its time: 0 when it has none (or no attr), as
 * perf's ordered events treat it (evsel__parse_sample_timestamp()). The
 * trailer is taken to end at the record's last whole u64, as perf reads
 * it. rec may be unaligned. Inline: the merge asks for every record.
 */

/* The word at back from the end of the record's last whole u64, or false. */
static inline bool sample__word_back(const u8 *rec, u64 n, int back, u64 *v)
{
	if (back < 0 || (u64)back > n || !back)
		return false;
	*v = load_u64(rec + sizeof(struct perf_event_header) + 8 * (n - (u64)back));
	return true;
}

static inline int sample_attrs__attr_of(const struct sample_attrs *sa, const u8 *rec)
{
	struct perf_event_header h;
	struct id_entry *e;
	u64 n, id;

	if (sa->nr == 1)
		return 0;
	memcpy(&h, rec, sizeof(h));
	n = (h.size - sizeof(struct perf_event_header)) / 8;
	if (h.type == PERF_RECORD_SAMPLE) {
		if (sa->id_pos < 0)
			return 0;
		if ((u64)sa->id_pos >= n)
			return -1;
		id = load_u64(rec + sizeof(struct perf_event_header) + 8 * (u64)sa->id_pos);
	} else {
		if (sa->id_back < 0)
			return 0;
		if (!sample__word_back(rec, n, sa->id_back, &id))
			return -1;
	}
	if (!id)
		return 0;
	e = id_map__find(&sa->ids, id);
	return e ? e->attr : -1;
}

static inline u64 sample_attrs__time(const struct sample_attrs *sa, const u8 *rec)
{
	const struct sample_attr *a;
	struct perf_event_header h;
	u64 n, t;
	int i;

	memcpy(&h, rec, sizeof(h));
	if (h.type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	i = sample_attrs__attr_of(sa, rec);
	if (i < 0)
		return 0;
	a = &sa->attr[i];
	n = (h.size - sizeof(struct perf_event_header)) / 8;
	if (h.type == PERF_RECORD_SAMPLE)
		return a->time_pos >= 0 && (u64)a->time_pos < n ?
		       load_u64(rec + sizeof(struct perf_event_header) + 8 * (u64)a->time_pos) : 0;
	return sample__word_back(rec, n, a->time_back, &t) ? t : 0;
}

#endif /* PRECORD_SAMPLE_H */
