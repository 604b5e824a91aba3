// SPDX-License-Identifier: GPL-2.0
/*
 * report-figures.c — the figures of the account of loss once every record
 * is read: the rings behind records without a CPU, each LOST record's
 * interval of lost time, their union over the recording (the data loss
 * metric) and its 10 ms windowed version; then the account printed in the
 * format of the recorder's closing lines. Documentation/loss.md defines
 * every figure.
 *
 * Runs on the caller's thread, inside loss_report__read() and
 * loss_report__print(). Data flow: the reader's per-CPU counters and kept
 * LOST records → struct loss_report → text.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"

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
	const struct id_map *ids = &rd->attrs.ids;
	int *vals = malloc(sizeof(int) * (ids->nr ? ids->nr : 1));
	bool by_cpu = false;
	size_t i, n = 0;
	int pass, rings;

	if (!vals)
		return 1;
	for (pass = 0; pass < 2 && !n; pass++) {
		by_cpu = pass == 0;
		for (i = 0; i < ids->cap; i++) {
			const struct id_entry *s = &ids->slots[i];

			if (!s->used || s->attr < 0 || s->cpu == ID_CPU_UNKNOWN)
				continue;
			if ((rd->attrs.attr[s->attr].sample_type & PERF_SAMPLE_CPU) ||
			    rd->indexed[s->attr])
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

int reader__finish(struct reader *rd)
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
