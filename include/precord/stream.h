/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h — a streaming thread: drains a set of ring buffers into one
 * writer until told to stop. The recording has one today (all rings, one
 * file); --threads gives one per NUMA node, each with its own rings and file.
 */
#ifndef PRECORD_STREAM_H
#define PRECORD_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"
#include "precord/ringbuf.h"
#include "precord/writer.h"
#include "precord/compress.h"

/* Staging buffer of each per-ring writer (a data.N file). */
#define STREAM_RING_BUF_SIZE	(256 * 1024)

struct stream_stats {
	u64	bytes;		/* bytes moved from rings to the writer */
	u64	wakeups;	/* wake-ups from poll (watermark or timeout) that found data */
	u64	rounds;		/* passes that found data (FINISHED_ROUNDs written) */
	u64	samples;
	u64	lost_records;	/* PERF_RECORD_LOST seen */
	u64	lost;		/* records the kernel dropped (sum of LOST.lost) */
	u64	first_time;	/* earliest / latest sample time seen (0: none) */
	u64	last_time;
};

struct stream {
	/* I: set by stream__init(), read-only while the thread runs. */
	int			idx;
	char			name[16];	/* "prec-rd/0" */
	struct ringbuf		**rings;
	int			nr_rings;
	struct writer		*writer;	/* used only by the stream thread while it runs */
	size_t			time_off;	/* offset of the TIME field in a sample, 0: none */
	int			rt_prio;	/* SCHED_FIFO priority, 0: leave the policy alone */
	int			notify_fd;	/* eventfd the thread writes when it stops by itself */
	bool			write_rounds;	/* FINISHED_ROUND after each pass that moved data */
	struct cpu_map		*affinity;	/* CPUs the thread runs on; NULL: any */
	int			node;		/* NUMA node to take memory from; -1: local policy */

	/*
	 * Per-ring output (a perf directory's data.N): out_fds[i] is ring i's
	 * file, and ring_writers[i] its writer, opened by the thread itself so
	 * its buffers come from the thread's node. NULL: every ring to writer.
	 */
	int			*out_fds;
	struct writer		*ring_writers;	/* S: the thread's until stream__stop() */
	enum writer_kind	writer_kind;
	int			rt_error;	/* S: -errno when rt_prio could not be set */
	int			aio;		/* WRITER_AIO: buffers in flight */
	int			comp_level;	/* -z: zstd level, 0: records as they are */
	unsigned int		mmap_flush;	/* skip a ring holding fewer bytes (not at the end) */

	/* S: the thread's own, until stream__stop(). */
	struct writer		*cur;		/* the writer of the ring being read */
	struct zcomp		**zc;		/* one stream per file: [nr_rings] or [1] */
	struct zcomp		*cur_zc;
	bool			final;		/* the last pass: take every byte */
	u64			comp_in, comp_out;	/* bytes before and after zstd */

	int			ctl_fd;		/* eventfd: main writes 1 to request the final drain */
	pthread_t		thread;
	bool			started;

	/* S: written by the stream thread, read by others only after stream__stop(). */
	int			error;		/* -errno that stopped streaming, 0 */
	bool			all_hup;	/* every ring's fd hung up (monitored tasks gone) */
	struct stream_stats	stats;
};

int stream__init(struct stream *s, int idx, struct ringbuf **rings, int nr_rings,
		 struct writer *writer, size_t time_off, int notify_fd);
/* Start the thread with every signal blocked; 0 or -errno. */
int stream__start(struct stream *s);
/* Ask for the final drain, wait for the thread; returns its error (0 or -errno). */
int stream__stop(struct stream *s);
void stream__exit(struct stream *s);	/* after stop; accepts an unstarted stream */

/* One pass over the rings on the calling thread; returns bytes moved or -errno. */
ssize_t stream__drain(struct stream *s);

#endif /* PRECORD_STREAM_H */
