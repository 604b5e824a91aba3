/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report-internal.h — what the files of the account of loss share: the
 * reader of one report and what it keeps per record, per CPU and per LOST
 * record. report.c reads records, report-file.c the files and their
 * headers, report-figures.c computes and prints. Nothing else includes it.
 */
#ifndef PRECORD_REPORT_INTERNAL_H
#define PRECORD_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "precord/report.h"
#include "precord/compress.h"
#include "precord/sample.h"
#include "precord/util.h"

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
	struct sample_attrs	attrs;		/* the evsels, and the id map: id → evsel, CPU, tid */
	bool			*indexed;	/* per evsel: its records carry ids, ID_INDEX their CPUs */
	struct cpu_acc		*acc;	/* acc[cpu + 1] */
	int			nr_acc;
	struct lost_ev		*lost;
	size_t			nr_lost, cap_lost;
	u8			*buf;
};


/* report.c: the reader */
/* The message into rd's error buffer; returns err. */
int reader__fail(struct reader *rd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An attr of `size` bytes as this build's struct (shorter: zero-filled). */
void attr__load(struct perf_event_attr *attr, const u8 *p, size_t size);
/* attr as the next evsel, with its nr_ids ids at ids (unaligned). 0 or -ENOMEM. */
int reader__add_evsel(struct reader *rd, const struct perf_event_attr *attr,
		      const u8 *ids, u64 nr_ids);
/* Every record of [start, end) of fd, name in messages. 0 or -errno (said). */
int reader__stream_fd(struct reader *rd, int fd, const char *name, u64 start, u64 end);
/* The counters of cpu (-1: records without one), made when new; NULL: no memory. */
struct cpu_acc *reader__acc(struct reader *rd, int cpu);

/* report-file.c: a perf.data file, or a perf directory, read through. */
int reader__file(struct reader *rd, const char *name);
int reader__dir(struct reader *rd, const char *dir);

/* report-figures.c: the figures, once every record was read. */
int reader__finish(struct reader *rd);

#endif /* PRECORD_REPORT_INTERNAL_H */
