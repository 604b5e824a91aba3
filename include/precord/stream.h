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

struct merge_index;

/* Staging buffer of each per-ring writer (a data.N file). */
#define STREAM_RING_BUF_SIZE	(256 * 1024)

struct stream_stats {
	u64	bytes;		/* bytes moved from rings to the writer */
	u64	wakeups;	/* wake-ups from poll (watermark or timeout) that found data */
	u64	rounds;		/* passes that found data (FINISHED_ROUNDs written) */
	u64	samples;
	u64	lost_records;	/* PERF_RECORD_LOST seen */
	u64	lost;		/* records the kernel dropped (sum of LOST.lost) */
	u64	paused_lost;	/* records dropped while overwrite rings were paused */
	u64	snapshots;	/* overwrite snapshots read */
	u64	first_time;	/* earliest / latest sample time seen (0: none) */
	u64	last_time;
};

/*
 * A streaming thread's counters as others may see them while it runs (the
 * status line): the thread stores them after every pass that moved data,
 * others load them at any time, both relaxed atomics. Each is a figure of
 * its own: no ordering with anything else is needed, so none is given.
 */
struct stream_live {
	u64	bytes;
	u64	samples;
	u64	lost;
};

/* What the main thread asks of a streaming thread (stream.cmd). */
enum stream_cmd {
	STREAM_CMD_NONE = 0,
	STREAM_CMD_SWITCH,	/* drain, snapshot if asked, then write next_fds; ack */
	STREAM_CMD_STOP,	/* final drain, exit */
	STREAM_CMD_EXITED,	/* set by the thread as it exits: no more commands */
};

/*
 * Shared by the threads of one recording for --switch-output=SIZE: the bytes
 * they have written in all, and the total at which the current set of files
 * is full. The thread whose ring read crosses it writes 1 to switch_fd (an
 * eventfd the main thread polls) and holds its rings until the switch.
 *
 * switch_at packs the limit with the number of the file set it applies to
 * (stream_switch_at()), so one atomic load tells a thread both: a thread
 * that has already moved to the next files ignores the old limit until the
 * main thread arms the new one. Both fields are atomics; the add to bytes
 * and the loads of switch_at are SEQ_CST against the main thread's store of
 * switch_at and load of bytes when it arms a limit, which the threads may
 * already have passed (record__arm_size()).
 */
struct stream_shared {
	u64	bytes;
	u64	switch_at;	/* stream_switch_at(set, bytes); 0: no size limit */
	int	switch_fd;	/* -1: none */
};

#define STREAM_AT_BITS	48
#define STREAM_AT_MASK	((1ULL << STREAM_AT_BITS) - 1)

static inline u64 stream_switch_at(unsigned int set, u64 bytes)
{
	return ((u64)(set & 0xffff) << STREAM_AT_BITS) | (bytes & STREAM_AT_MASK);
}

/* Bytes written between two stores of the data size (stream.size_fd). */
#define STREAM_SIZE_STEP	(4ULL << 20)

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
	 * Overwrite rings (--overwrite), bk_rings[i] on the CPU of rings[i]:
	 * read only at a snapshot (stream__switch with snapshot) and at the
	 * end, after the main thread paused them. NULL: none.
	 */
	struct ringbuf		**bk_rings;

	/*
	 * Per-ring output (a perf directory's data.N): out_fds[i] is ring i's
	 * file, out_fds[nr_rings + i] bk_rings[i]'s, and ring_writers[i] the
	 * writer of out_fds[i], opened by the thread itself so its buffers
	 * come from the thread's node. NULL: every ring to writer.
	 */
	int			*out_fds;	/* [nr_files] */
	int			nr_files;	/* nr_rings, twice that with bk_rings */
	struct writer		*ring_writers;	/* S: the thread's until stream__stop() */
	enum writer_kind	writer_kind;
	int			rt_error;	/* S: -errno when rt_prio could not be set */
	int			aio;		/* WRITER_AIO: buffers in flight */
	int			comp_level;	/* -z: zstd level, 0: records as they are */
	unsigned int		mmap_flush;	/* skip a ring holding fewer bytes (not at the end) */
	/*
	 * Per-ring output: each run written to ring i's file is noted in the
	 * merge's index as data.(rings[i]->idx), so the merge need not walk
	 * it. NULL: none (one-file mode, -z, or files that change).
	 */
	struct merge_index	*index;
	/* Per-ring output: file space reserved this far ahead (writer__prealloc()), 0: none. */
	u64			prealloc;
	/*
	 * One file: the perf.data header's data.size field lives at offset
	 * size_off of size_fd; the thread stores there the bytes writer has
	 * put in the file (whole records) every STREAM_SIZE_STEP and before it
	 * sleeps, so that a recording killed with SIGKILL reads in perf up to
	 * then. size_fd -1: none.
	 */
	int			size_fd;
	u64			size_off;
	u64			size_noted;	/* S: the last size stored */

	/* S: the thread's own, until stream__stop(). */
	struct writer		*cur;		/* the writer of the ring being read */
	struct zcomp		**zc;		/* one stream per file: [nr_rings] or [1] */
	struct zcomp		*cur_zc;
	int			cur_file;	/* N of the data.N being written, -1: not indexed */
	bool			final;		/* the last pass: take every byte */
	bool			held;		/* the file is full (SIZE): rings wait for a switch */
	unsigned int		files_set;	/* switches so far: which set of files it writes */
	u64			comp_in, comp_out;	/* bytes before and after zstd */

	/*
	 * Commands. The main thread stores next_fds and snapshot, then cmd
	 * (release; the thread's acquire load of cmd pairs with it), then
	 * writes 1 to ctl_fd to wake a sleeping thread. After a SWITCH the
	 * thread stores switch_error, sets cmd back to NONE and adds 1 to
	 * ack_fd; the main thread reads both only after that ack.
	 */
	int			cmd;		/* enum stream_cmd, atomic */
	int			*next_fds;	/* [nr_files]: the files after a SWITCH */
	bool			snapshot;	/* SWITCH: read bk_rings first */
	int			switch_error;	/* -errno of the last SWITCH, 0 */
	int			ack_fd;		/* eventfd shared by the threads; -1: none */
	struct stream_shared	*shared;	/* --switch-output=SIZE; NULL: none */
	int			ctl_fd;		/* eventfd: wakes the thread to look at cmd */
	pthread_t		thread;
	bool			started;

	/* S: written by the stream thread, read by others only after stream__stop(). */
	int			error;		/* -errno that stopped streaming, 0 */
	bool			all_hup;	/* every ring's fd hung up (monitored tasks gone) */
	struct stream_stats	stats;
	struct stream_live	live;		/* stats, published for others: see above */
};

int stream__init(struct stream *s, int idx, struct ringbuf **rings, int nr_rings,
		 struct writer *writer, size_t time_off, int notify_fd);
/* Start the thread with every signal blocked; 0 or -errno. */
int stream__start(struct stream *s);
/* Ask for the final drain, wait for the thread; returns its error (0 or -errno). */
int stream__stop(struct stream *s);
/*
 * Ask a running thread to move to the files in next_fds (read the
 * overwrite rings first when snapshot). Returns 1 when asked (an ack will
 * come on ack_fd), 0 when the thread has already exited, -errno.
 */
int stream__request_switch(struct stream *s, bool snapshot);
void stream__exit(struct stream *s);	/* after stop; accepts an unstarted stream */
/* The live counters of s, from any thread, at any time. */
void stream__read_live(const struct stream *s, struct stream_live *out);

/* One pass over the rings on the calling thread; returns bytes moved or -errno. */
ssize_t stream__drain(struct stream *s);

#endif /* PRECORD_STREAM_H */
