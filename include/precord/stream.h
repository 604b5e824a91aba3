/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h — a streaming thread: drains a set of ring buffers into one
 * writer (one file) or into each ring's own file (data.N) until told to
 * stop. With an adaptive layout (struct stream_group) a node's thread
 * hands part of its rings to helper threads while its rings back up, and
 * the helpers give them back when idle.
 */
#ifndef PRECORD_STREAM_H
#define PRECORD_STREAM_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"
#include "precord/ringbuf.h"
#include "precord/writer.h"
#include "precord/compress.h"
#include "precord/adapt.h"

struct merge_index;
struct stream_group;

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
	u64	cpu_ns;		/* the thread's own CPU time (user + sys), added as it exits */
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
	/*
	 * --max-size: the read that takes bytes to max_at or past it adds 1
	 * to max_fd (the recording stops there); max_at 0: no limit.
	 */
	u64	max_at;
	int	max_fd;		/* -1: none */
};

#define STREAM_AT_BITS	48
#define STREAM_AT_MASK	((1ULL << STREAM_AT_BITS) - 1)

static inline u64 stream_switch_at(unsigned int set, u64 bytes)
{
	return ((u64)(set & 0xffff) << STREAM_AT_BITS) | (bytes & STREAM_AT_MASK);
}

/*
 * The adaptive layout: a node's streaming thread and its helpers.
 *
 * Every ring of the node thread has an owner, the slot of the thread that
 * reads it (0: the node thread, the group's lead; 1 ..: helpers). Only the
 * owner reads a ring, and only the owner hands it to another thread, between
 * two of its passes (no read in progress) and under the group's lock: it
 * stores the new owner (release), then adds 1 to gen (release). Each member
 * acquire-loads gen at the start of each pass and, when it changed, the
 * owners (acquire): that pairs with the hand-over's release stores, so the
 * new owner sees the ring's reader state (ringbuf tail, counters), its
 * writer (data.N), compressor and record index state as the last owner left
 * them. The giver then writes the receiver's ctl_fd, so a receiver asleep
 * in poll without the ring's fd wakes and polls it: perf ring fds are
 * level-triggered, so moving an fd between poll sets loses no wakeup.
 *
 * A ring is handed only to a thread that runs (its slot RUNNING, set under
 * the lock before the hand-over), and a helper leaves RUNNING only under
 * the lock after it handed all its rings back: under the lock every owner
 * names a RUNNING slot (stream_group__check_owners()).
 *
 * Legend: I: set before the lead starts, read-only after. A: atomic, see
 * its comment. O: per ring, the owner's (moves with the ring). L: lock.
 */
enum stream_slot_state {
	STREAM_SLOT_FREE = 0,	/* no thread (never started, or joined) */
	STREAM_SLOT_RUNNING,	/* started; may own rings */
	STREAM_SLOT_RETIRED,	/* gave its rings back and exits; not joined yet */
};

/* Why a helper's run ended. */
enum stream_run_end {
	STREAM_RUN_END = 0,	/* the recording stopped */
	STREAM_RUN_IDLE,	/* the rule found it idle: it gave its rings back */
	STREAM_RUN_HUP,		/* every ring it read hung up: it gave them back */
	STREAM_RUN_ERROR,	/* it stopped on an error */
};

/* One helper's run, for the closing lines. */
struct stream_helper_run {
	int		slot;		/* the helper */
	int		parent;		/* the slot that split */
	u64		start_ns;	/* since the group's start */
	u64		stop_ns;	/* since the group's start; 0: still running */
	enum adapt_why	why;		/* FILL or LOST */
	unsigned int	fill;		/* permille: the fill that made the parent split */
	u64		lost;		/* the records the parent's pass lost */
	enum stream_run_end end;
	int		error;		/* -errno it stopped on, 0 */
	char		*cpus;		/* the CPUs of the rings it was handed (a list; NULL: no memory) */
};

struct stream_group {
	struct stream		*lead;		/* I: slot 0, the node thread */
	struct stream		*helpers;	/* I: [max - 1], slots 1 .. max - 1 */
	int			max;		/* I: threads at most, the lead included */
	struct adapt_params	params;		/* I */
	struct cpu_map		*affinity;	/* I: the node thread's CPUs (layout); NULL: any */
	bool			follow;		/* I: pin each thread to its rings' CPUs (within affinity) */
	u64			t0;		/* I: CLOCK_MONOTONIC ns when the lead was started */

	int			*owner;		/* A: [nr_rings], see above */
	unsigned int		gen;		/* A: see above */
	int			running;	/* A: threads running (relaxed: a count for the status line) */
	int			error;		/* A: a helper's -errno for the lead; stored before gen's release */

	bool			*hup;		/* O: [nr_rings] the ring's fd hung up */
	unsigned int		*heat;		/* O: [nr_rings] fullest since its owner's last split, permille (1001: lost) */

	pthread_mutex_t		lock;
	int			*state;		/* L: [max] enum stream_slot_state */
	bool			stopping;	/* L: the lead is stopping: no new helper */
	struct stream_helper_run *runs;		/* L: every helper run, in start order */
	int			nr_runs, cap_runs;
	int			started;	/* L: threads that ran, the lead included */
	int			peak;		/* L: the most threads running at once */
	int			start_error;	/* L: the first helper that could not start, -errno */
};

/*
 * The longest a thread sleeps (stream.idle_ms): below the wakeup watermark
 * (half a ring) the kernel never wakes it, so without a timeout a slow
 * trickle of records would wait in the ring until the end; this way what
 * is recorded reaches the file within STREAM_IDLE_MS, and a recording
 * killed with SIGKILL keeps it.
 */
#define STREAM_IDLE_MS	250

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
	bool			flush_each;	/* --no-buffering: writers flushed after every pass */
	int			idle_ms;	/* the longest sleep in poll (STREAM_IDLE_MS; tests: less) */
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
	u64			switch_samples;	/* samples written when it last switched */
	int			ack_fd;		/* eventfd shared by the threads; -1: none */
	struct stream_shared	*shared;	/* --switch-output=SIZE; NULL: none */
	int			ctl_fd;		/* eventfd: wakes the thread to look at cmd */
	pthread_t		thread;
	bool			started;

	/*
	 * Adaptive layout: the group and this thread's slot in it (0: the
	 * lead). NULL: a fixed layout, every ring in rings is this thread's.
	 */
	struct stream_group	*group;		/* I */
	int			slot;		/* I */
	/* S: the thread's own */
	bool			*own;		/* group: [nr_rings] the rings it reads now; NULL: all */
	int			nr_own;
	bool			*hup;		/* [nr_rings]: fd hung up (a group's: group->hup) */
	struct pollfd		*pfd;		/* [nr_rings + 1]: the rings it reads, then ctl_fd */
	int			*scratch;	/* group: [2 * nr_rings] for a split */
	bool			synced;		/* seen_gen is valid */
	unsigned int		seen_gen;	/* group->gen at the last look at the owners */
	struct adapt_state	adapt;
	unsigned int		pass_fill;	/* the last pass: fullest ring, permille */
	u64			pass_lost;	/* the last pass: records the kernel lost */
	int			run;		/* helper: its entry in group->runs */

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

/*
 * Make s (initialized, its fields set, directory mode without overwrite
 * rings or file switches) the lead of an adaptive group of at most max
 * threads on its rings: its helpers are made here, started as its rings
 * back up. p NULL: the default rule. 0 or -errno.
 */
int stream_group__new(struct stream *lead, int max, const struct adapt_params *p);
/* After the lead's stop: the helpers' resources and the group. Accepts a lead without one. */
void stream_group__delete(struct stream *lead);
/* The helper in slot k (1 .. max - 1). */
struct stream *stream_group__helper(struct stream_group *g, int k);
/*
 * The live counters of the lead and every helper slot, summed into *sum;
 * returns the threads running. From any thread, at any time.
 */
int stream_group__read_live(const struct stream *lead, struct stream_live *sum);
/*
 * Under the group's lock: the first ring whose owner does not name a
 * running thread, or -1 when every ring has one. From any thread.
 */
int stream_group__check_owners(struct stream *lead);

/* One pass over the rings on the calling thread; returns bytes moved or -errno. */
ssize_t stream__drain(struct stream *s);

#endif /* PRECORD_STREAM_H */
