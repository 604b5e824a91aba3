/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h — the live status line of a recording on a terminal: elapsed
 * time, MB and MB/s, samples, lost samples and the streaming threads,
 * rewritten once a second on stderr.
 */
#ifndef PRECORD_STATUS_H
#define PRECORD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"

#define STATUS_PERIOD_MS	1000

/* What the line shows: the streaming threads' live counters, summed. */
struct status_counts {
	u64	bytes;		/* moved from the rings */
	u64	samples;
	u64	lost;		/* records the kernel dropped */
	int	threads;	/* streaming threads with rings */
};

struct status {
	bool	on;		/* stderr is a terminal and not -q */
	int	fd;		/* stderr */
	u64	start_ms;	/* when the recording began (CLOCK_MONOTONIC) */
	u64	next_ms;	/* when the line is due again */
	u64	prev_ms;	/* the last line's time and bytes, for MB/s */
	u64	prev_bytes;
	bool	shown;		/* a line is on the screen */
};

/* On when fd is a terminal and quiet is false; the first line comes a period after now_ms. */
void status__init(struct status *st, int fd, bool quiet, u64 now_ms);
/* The poll timeout until the line is due, no longer than timeout (-1: none). */
int status__timeout(const struct status *st, u64 now_ms, int timeout);
/* When due, rewrite the line with c. */
void status__tick(struct status *st, u64 now_ms, const struct status_counts *c);
/* Erase the line (before the closing lines or any other message). */
void status__clear(struct status *st);
/* The line for c at now_ms, at most size - 1 characters (a terminal's width). */
size_t status__format(const struct status *st, u64 now_ms, const struct status_counts *c,
		      char *buf, size_t size);

#endif /* PRECORD_STATUS_H */
