/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h — the account of loss of any perf.data (file or directory,
 * precord's or perf's), with one yardstick: what `precord report --loss`
 * prints and what a recording's closing lines say.
 */
#ifndef PRECORD_REPORT_H
#define PRECORD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "precord/perf-file.h"

struct loss_cpu {
	int	cpu;		/* -1: records without a CPU */
	u64	samples;
	u64	lost_records;	/* PERF_RECORD_LOST */
	u64	lost;		/* sum of their `lost` fields */
	u64	lost_samples;	/* PERF_RECORD_LOST_SAMPLES sum */
	u64	lost_time_ns;	/* this CPU's part of the data loss metric */
	/* Added for the rate behind the loss intervals (Documentation/loss.md): */
	u64	records;	/* timed kernel records of this CPU (LOST included) */
	u64	first_time, last_time;	/* its active span; 0 when untimed */
	int	nr_rings;	/* rings behind this row: 1, or the estimate for cpu -1 */
};

/* One CPU's stretch of lost time: overlapping loss intervals joined. */
struct loss_interval {
	u64	start, end;	/* ns, the records' clock */
	u64	lost;		/* records the joined LOST records dropped */
	int	cpu;		/* -1: records without a CPU */
};

struct loss_report {
	char		*path;			/* added: what was read (owned) */
	struct loss_cpu	*cpus;
	int		nr_cpus;
	u64		samples, lost_records, lost, lost_samples;
	u64		first_time, last_time;	/* of every timed record */
	u64		lost_time_ns;		/* summed length of the loss intervals */
	double		loss_metric;		/* lost_time / elapsed (AIO series) */
	double		lost_fraction;		/* lost / (lost + samples) */
	/* Added: */
	u64		elapsed_ns;		/* last_time - first_time */
	u64		lost_counted;		/* the `lost` of lost_fraction */
	bool		lost_from_samples;	/* lost_counted is the LOST_SAMPLES sum */
	u64		window_ns;		/* the windowed metric's window (10 ms) */
	u64		lost_windows, nr_windows;
	u64		lost_time_windowed_ns;	/* clipped length of windows with a LOST */
	double		loss_metric_windowed;
	u64		untimed_lost_records;	/* LOST without a time: not in the metric */
	u64		unknown_id;		/* samples whose id is in no attr */
	u64		records;		/* every record read, decompressed ones included */
	u64		compressed;		/* PERF_RECORD_COMPRESSED records */
	u64		missing_bytes;		/* data the header promised that is not there */
	u64		truncated_bytes;	/* a partial record at the end of a file */
	bool		size_from_eof;		/* header data size 0: read to the end */
	int		nr_files;		/* 1, or 1 + data.N of a directory */
	struct loss_interval *intervals;	/* by CPU, then start; disjoint per CPU */
	size_t		nr_intervals;
};

/* Read path (a perf.data file or directory) and fill r. 0 or -errno, message in err. */
int loss_report__read(const char *path, struct loss_report *r, char *err, size_t errlen);
void loss_report__exit(struct loss_report *r);
/* Print the report in the format of the recorder's closing lines. */
void loss_report__print(const struct loss_report *r, FILE *out);

#endif /* PRECORD_REPORT_H */
