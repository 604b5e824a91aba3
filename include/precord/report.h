/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h — `precord report --loss FILE`: the account of loss of any
 * perf.data (file or directory, precord's or perf's), with one yardstick.
 */
#ifndef PRECORD_REPORT_H
#define PRECORD_REPORT_H

#include <stdio.h>
#include "precord/perf-file.h"

struct loss_cpu {
	int	cpu;		/* -1: records without a CPU */
	u64	samples;
	u64	lost_records;	/* PERF_RECORD_LOST */
	u64	lost;		/* sum of their `lost` fields */
	u64	lost_samples;	/* PERF_RECORD_LOST_SAMPLES sum */
	u64	lost_time_ns;	/* this CPU's part of the data loss metric */
};

struct loss_report {
	struct loss_cpu	*cpus;
	int		nr_cpus;
	u64		samples, lost_records, lost, lost_samples;
	u64		first_time, last_time;	/* of every timed record */
	u64		lost_time_ns;		/* summed length of the loss intervals */
	double		loss_metric;		/* lost_time / elapsed, seed 000 */
	double		lost_fraction;		/* lost / (lost + samples) */
};

/* Read path (a perf.data file or directory) and fill r. 0 or -errno, message in err. */
int loss_report__read(const char *path, struct loss_report *r, char *err, size_t errlen);
void loss_report__exit(struct loss_report *r);
/* Print the report in the format of the recorder's closing lines. */
void loss_report__print(const struct loss_report *r, FILE *out);

/* `precord report --loss FILE…`. Returns the exit status. */
int cmd_report(int argc, char **argv);

#endif /* PRECORD_REPORT_H */
