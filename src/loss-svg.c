// SPDX-License-Identifier: GPL-2.0
/*
 * loss-svg.c — the loss timeline of a recording as one SVG document.
 *
 * Input: a loss_report (report.c) with its per-CPU loss intervals, the
 * stretches [t - lost / rate, t] behind the data loss metric, joined where
 * they overlap. Output: one row per CPU row of the report (cpu -1 for
 * records that carry no CPU), time on the x axis from the recording's first
 * timed record to its last. Each row shows in grey when that CPU delivered
 * records and in red when it lost them; a red stretch is drawn at least one
 * pixel wide so a short loss stays visible, and its tooltip gives the time
 * and the records lost. The right margin gives each CPU's lost time and its
 * part of the metric. Nothing is kept between calls; output goes to the
 * caller's FILE.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "precord/loss-svg.h"

#define SVG_WIDTH	1100.0
#define PLOT_LEFT	80.0		/* room for "cpu 1023" */
#define PLOT_RIGHT	(SVG_WIDTH - 170.0)	/* room for "123.456 ms (12.34%)" */
#define PLOT_TOP	70.0		/* two lines of title, one of legend */
#define ROW_HEIGHT	16.0
#define BAR_HEIGHT	12.0
#define AXIS_HEIGHT	40.0
#define MAX_TICKS	10

struct timeline {
	FILE	*out;
	u64	t0;		/* time at PLOT_LEFT */
	u64	span;		/* ns across the plot, at least 1 */
};

static double timeline__x(const struct timeline *tl, u64 t)
{
	u64 d = t > tl->t0 ? t - tl->t0 : 0;

	if (d > tl->span)
		d = tl->span;
	return PLOT_LEFT + (double)d * (PLOT_RIGHT - PLOT_LEFT) / (double)tl->span;
}

/* s with the five XML special characters escaped. */
static void svg__text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':  fputs("&amp;", out); break;
		case '<':  fputs("&lt;", out); break;
		case '>':  fputs("&gt;", out); break;
		case '"':  fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:   fputc(*s, out);
		}
	}
}

/* The tick step: 1, 2 or 5 times a power of ten ns, at most MAX_TICKS steps across span. */
static u64 tick_step(u64 span)
{
	static const u64 mult[] = { 1, 2, 5 };
	u64 p = 1;

	for (;;) {
		for (int i = 0; i < 3; i++) {
			if (span / (p * mult[i]) <= MAX_TICKS)
				return p * mult[i];
		}
		p *= 10;
	}
}

static void svg__head(const struct loss_report *r, FILE *out, double height)
{
	double elapsed = (double)r->elapsed_ns / 1e9;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\">Loss timeline of ", out);
	svg__text(out, r->path ? r->path : "perf.data");
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"10\" y=\"38\">%" PRIu64 " samples, %" PRIu64 " lost (%.2f%%); "
		"data loss metric %.2f%% (%.3f ms of %.3f s lie in loss intervals)</text>\n",
		r->samples, r->lost_counted, 100.0 * r->lost_fraction, 100.0 * r->loss_metric,
		(double)r->lost_time_ns / 1e6, elapsed);
	fprintf(out, "<rect x=\"10\" y=\"47\" width=\"12\" height=\"10\" fill=\"#d8d8d8\"/>"
		"<text x=\"26\" y=\"56\">records delivered</text>\n"
		"<rect x=\"140\" y=\"47\" width=\"12\" height=\"10\" fill=\"#d62728\"/>"
		"<text x=\"156\" y=\"56\">records lost (one interval per LOST record: "
		"its count over the CPU's record rate)%s</text>\n",
		r->nr_intervals ? "" : "; none were lost");
}

static void svg__axis(const struct timeline *tl, double y)
{
	u64 step = tick_step(tl->span), t;

	fprintf(tl->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
		PLOT_LEFT, y, PLOT_RIGHT, y);
	for (t = 0; t <= tl->span; t += step) {
		double x = timeline__x(tl, tl->t0 + t);

		fprintf(tl->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"black\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			"%g s</text>\n", x, y, x, y + 4, x, y + 16, (double)t / 1e9);
		if (tl->span - t < step)
			break;
	}
	fprintf(tl->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time since the "
		"first record</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2, y + 32);
}

/* One CPU's row; iv[0..nr) are its intervals. */
static void svg__row(const struct timeline *tl, const struct loss_report *r,
		     const struct loss_cpu *c, const struct loss_interval *iv, size_t nr, double y)
{
	FILE *out = tl->out;
	size_t i;

	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", PLOT_LEFT - 6,
		y + BAR_HEIGHT - 2);
	if (c->cpu < 0)
		fputs("no cpu", out);
	else
		fprintf(out, "cpu %d", c->cpu);
	fputs("</text>\n", out);
	if (c->last_time > c->first_time) {
		double x0 = timeline__x(tl, c->first_time), x1 = timeline__x(tl, c->last_time);

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#d8d8d8\"/>\n", x0, y, fmax(x1 - x0, 1.0), BAR_HEIGHT);
	}
	for (i = 0; i < nr; i++) {
		double x0 = timeline__x(tl, iv[i].start), x1 = timeline__x(tl, iv[i].end);

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#d62728\"><title>%s%d: %" PRIu64 " records lost between %.6f s and "
			"%.6f s</title></rect>\n", x0, y, fmax(x1 - x0, 1.0), BAR_HEIGHT,
			c->cpu < 0 ? "no cpu" : "cpu ", c->cpu < 0 ? 0 : c->cpu, iv[i].lost,
			(double)(iv[i].start - tl->t0) / 1e9, (double)(iv[i].end - tl->t0) / 1e9);
	}
	if (c->lost_time_ns)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.3f ms (%.2f%%)</text>\n",
			PLOT_RIGHT + 8, y + BAR_HEIGHT - 2, (double)c->lost_time_ns / 1e6,
			r->elapsed_ns ? 100.0 * (double)c->lost_time_ns / (double)r->elapsed_ns : 0.0);
}

int loss_svg__write(const struct loss_report *r, FILE *out)
{
	struct timeline tl = { .out = out, .t0 = r->first_time };
	double height = PLOT_TOP + ROW_HEIGHT * r->nr_cpus + AXIS_HEIGHT;
	size_t k = 0;
	int i;

	tl.span = r->last_time > r->first_time ? r->last_time - r->first_time : 1;
	svg__head(r, out, height);
	/* r->cpus and r->intervals are both sorted by CPU, -1 first. */
	for (i = 0; i < r->nr_cpus; i++) {
		const struct loss_cpu *c = &r->cpus[i];
		size_t first;

		while (k < r->nr_intervals && r->intervals[k].cpu < c->cpu)
			k++;
		for (first = k; k < r->nr_intervals && r->intervals[k].cpu == c->cpu; k++)
			;
		svg__row(&tl, r, c, r->intervals + first, k - first, PLOT_TOP + ROW_HEIGHT * i);
	}
	svg__axis(&tl, PLOT_TOP + ROW_HEIGHT * r->nr_cpus + 4);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
