// SPDX-License-Identifier: GPL-2.0
/*
 * record-summary.c — the closing lines of a recording, in perf record's
 * words under perf's label (woken up, captured and wrote) and precord's
 * own (per streaming thread, lost samples, the merge, and the account of
 * loss read back from the finished file with report.c's code).
 *
 * Runs on the main thread once the output is finished; prints to stderr.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "record.h"
#include "precord/report.h"

static double file_mb(const char *path)
{
	char sub[PATH_MAX];
	struct stat st;
	double mb = 0;
	int i;

	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (double)st.st_size / 1048576.0;
	snprintf(sub, sizeof(sub), "%s/data", path);
	if (!stat(sub, &st))
		mb += (double)st.st_size / 1048576.0;
	for (i = 0;; i++) {
		snprintf(sub, sizeof(sub), "%s/data.%d", path, i);
		if (stat(sub, &st))
			break;
		mb += (double)st.st_size / 1048576.0;
	}
	return mb;
}

static void record__print_threads(struct record *rec)
{
	struct streams *ss = &rec->streams;
	char cpus[128];
	int i;

	for (i = 0; i < ss->nr; i++) {
		struct stream *st = &ss->s[i];

		if (!st->nr_rings)
			continue;
		cpu_map__snprintf(ss->layout->maps[i], cpus, sizeof(cpus));
		fprintf(stderr, "[ precord: %s: CPUs %s, %.3f MB, %llu wakeups, %llu samples, "
			"%llu lost, %.3f s CPU ]\n", st->name, cpus,
			(double)st->stats.bytes / 1048576.0, (unsigned long long)st->stats.wakeups,
			(unsigned long long)st->stats.samples, (unsigned long long)st->stats.lost,
			(double)st->stats.cpu_ns / 1e9);
	}
}

/*
 * When anything was lost: the account per CPU and the data loss metric, read
 * back from the finished file with the same code as `precord report --loss`,
 * so a recording and a later report never disagree.
 */
static void record__print_loss(struct record *rec)
{
	struct loss_report r = { 0 };
	char msg[256];

	if (loss_report__read(rec->path, &r, msg, sizeof(msg)) == 0)
		loss_report__print(&r, stderr);
	else if (rec->opts.verbose)
		fprintf(stderr, "precord: cannot account for the loss: %s\n", msg);
	loss_report__exit(&r);
}

/*
 * "Captured and wrote": as perf record words it under perf's label (no
 * sample count when there were none; -z adds the original size and the
 * ratio), precord's own line otherwise.
 */
static void record__print_captured(struct record *rec, u64 samples)
{
	double mb = rec->device || rec->pipe ? (double)rec->writer.offset / 1048576.0 :
		    file_mb(rec->path);
	u64 in, out;

	if (strcmp(rec->tag, "perf record")) {
		fprintf(stderr, "[ precord: Captured and wrote %.3f MB %s (%llu samples) ]\n",
			mb, rec->path, (unsigned long long)samples);
		return;
	}
	fprintf(stderr, "[ perf record: Captured and wrote %.3f MB %s", mb, rec->path);
	if (samples)
		fprintf(stderr, " (%llu samples)", (unsigned long long)samples);
	if (rec->opts.comp_level) {
		streams__comp_bytes(&rec->streams, &in, &out);
		if (in && out)
			fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
				(double)in / 1048576.0, (double)in / (double)out);
	}
	fprintf(stderr, " ]\n");
}

void record__print_summary(struct record *rec)
{
	struct stream_stats *s = &rec->total;

	if (rec->opts.quiet)
		return;
	if (rec->threaded || rec->one_thread)
		record__print_threads(rec);
	streams__print_adaptive(&rec->streams, stderr);
	fprintf(stderr, "[ %s: Woken up %llu times to write data ]\n", rec->tag,
		(unsigned long long)s->wakeups);
	/*
	 * An overwrite ring drops records only while it is paused for a
	 * snapshot; the kernel's count is PERF_FORMAT_LOST (LOST_SAMPLES in the
	 * last file) and the LOST records left out of the snapshots.
	 */
	if (rec->opts.overwrite && (s->paused_lost || rec->lost_samples))
		fprintf(stderr, "[ precord: %llu samples were dropped while the rings were paused "
			"for snapshots (the kernel writes nothing into a paused ring) ]\n",
			(unsigned long long)(rec->lost_samples > s->paused_lost ?
					     rec->lost_samples : s->paused_lost));
	else if (s->lost_records || rec->lost_samples) {
		u64 lost = rec->lost_samples > s->lost ? rec->lost_samples : s->lost;
		double pct = 100.0 * (double)lost / (double)(lost + s->samples ? lost + s->samples : 1);

		fprintf(stderr, "[ precord: Lost %llu samples (%.2f%%) in %llu LOST records; "
			"%llu dropped by the kernel in all ]\n",
			(unsigned long long)rec->lost_samples, pct,
			(unsigned long long)s->lost_records, (unsigned long long)s->lost);
	}
	if (rec->threaded && !rec->opts.no_merge && !rec->merge_error && rec->merged.nr_files >= 0 &&
	    rec->merged.seconds > 0)
		fprintf(stderr, "[ precord: Merged %d ring files in %.3f s (%.1f MB/s%s%s%s) ]\n",
			rec->merged.nr_files, rec->merged.seconds,
			(double)rec->merged.bytes_out / 1048576.0 / rec->merged.seconds,
			rec->merged.parts > 1 ? ", a thread per CPU" : "",
			rec->merged.parts > 1 && rec->merged.indexed == rec->merged.nr_files ?
			", no walk: the threads' record index" : "",
			rec->merged.given_back ? ", their pages reused as merged" : "");
	/* as perf: the samples of the file named, the last one with --switch-output */
	record__print_captured(rec, rec->samples_counted ? rec->kept_samples :
				    s->samples > rec->gen_start_samples ?
				    s->samples - rec->gen_start_samples : 0);
	/* read back from the file: a stream cannot be */
	if ((s->lost_records || rec->lost_samples) && !rec->opts.overwrite && !rec->pipe)
		record__print_loss(rec);
}
