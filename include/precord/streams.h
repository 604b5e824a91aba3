/* SPDX-License-Identifier: GPL-2.0 */
/*
 * streams.h — the streaming threads of a recording: one (every ring into one
 * file) or one per group of the --threads layout (each ring into its own
 * data.N file of a staging directory in perf's directory layout); with the
 * adaptive layout, each node's thread with the helpers it adds.
 */
#ifndef PRECORD_STREAMS_H
#define PRECORD_STREAMS_H

#include <stdio.h>
#include "precord/stream.h"
#include "precord/stream-layout.h"
#include "precord/topology.h"

struct evlist;

struct streams_config {
	const char		*spec;		/* --threads SPEC; NULL: one thread, one file */
	const char		*dir;		/* with spec: the staging directory for data.N */
	struct writer		*writer;	/* without spec: where every ring goes */
	enum writer_kind	writer_kind;	/* the data.N writers' backend; one file: writer's kind */
	size_t			time_off;	/* offset of TIME in a sample */
	int			rt_prio;	/* SCHED_FIFO priority, 0: none */
	int			notify_fd;	/* a thread that stops by itself says so here */
	int			aio;		/* --aio: buffers in flight per data.N, 0: write() */
	int			comp_level;	/* -z level, 0: off */
	unsigned int		mmap_flush;	/* --mmap-flush bytes, 0/1: every byte */
	bool			no_buffering;	/* --no-buffering: flush the writers after every pass */
	/*
	 * One file: no FINISHED_ROUND, so that perf sorts the whole file and
	 * records written at its end with time 0 (--tail-synthesize) come
	 * before the samples that need them.
	 */
	bool			no_rounds;
	struct stream_shared	*shared;	/* --switch-output=SIZE counter; NULL: none */
	struct merge_index	*index;		/* with spec: note the data.N records; NULL: none */
	struct topology		*topo;		/* with spec: the machine's, borrowed; NULL: load it */
	/*
	 * With a spec whose layout has one thread: that thread, bound as the
	 * layout says, writes every ring into writer (one-file mode).
	 */
	bool			one_file;
	/*
	 * One file: keep the header's data.size (at size_off of size_fd)
	 * up to date as the thread writes (stream.size_fd).
	 */
	bool			note_size;
	int			size_fd;
	u64			size_off;
	/*
	 * A mode whose threads follow a fixed protocol (--switch-output,
	 * --overwrite): an adaptive spec keeps its first threads, one per
	 * node, and adds none.
	 */
	bool			fixed;
	const struct adapt_params *adapt;	/* the adaptive rule's; NULL: its defaults */
};

struct streams {
	struct stream		*s;		/* [nr] */
	int			nr;
	struct stream_layout	*layout;	/* NULL in one-file mode without a spec */
	bool			one_file;	/* every ring into one writer (no data.N) */
	struct topology		*topo;
	bool			own_topo;	/* loaded by streams__init(), deleted by exit */
	int			*ring_fds;	/* [nr_files] data.N, -1 in one-file mode */
	int			nr_rings;
	int			nr_files;	/* nr_rings; twice that with overwrite rings */
	struct ringbuf		**rings;	/* the evlist's rings */
	struct ringbuf		**bk_rings;	/* its overwrite rings; NULL: none */
	int			ack_fd;		/* eventfd: the threads' answers to a switch */
	u64			prealloc;	/* each data.N's reservation step, 0: none */
	bool			adaptive;	/* some thread may add helpers (stream_group) */
	bool			fixed;		/* an adaptive spec kept fixed (streams_config.fixed) */
};

/*
 * Split the evlist's rings among the threads of cfg->spec (or give them all
 * to one thread) and create the data.N files. 0, or -errno with a one-line
 * message in err.
 */
int streams__init(struct streams *ss, struct evlist *evlist, const struct streams_config *cfg,
		  char *err, size_t errlen);
/*
 * Whether spec gives a layout for the recorded CPUs on topo: its number of
 * threads (an adaptive layout: the most it may run), or -errno with
 * layout__new()'s one-line message in err. For a check before anything is
 * written (streams__init() builds the same layout again).
 */
int streams__check_spec(const char *spec, const struct topology *topo, const struct cpu_map *cpus,
			char *err, size_t errlen);
/*
 * How far ahead each of nr_files files on path's file system reserves its
 * space (writer__prealloc()): 16 MiB while every file's step together is at
 * most a sixteenth of the room left there, so that space held ahead cannot
 * be what a full disk lacked; 0 otherwise.
 */
u64 streams__prealloc_step(const char *path, int nr_files);
/* Start every thread that has rings; 0, or -errno with none left running. */
int streams__start(struct streams *ss);
/*
 * Move every thread to new data.N files in dir (directory mode only), so
 * that the files written so far form a complete set: each thread first
 * writes out what its rings hold. With snapshot, the overwrite rings are
 * all paused before any thread reads them, read, then all resumed (the
 * protocol of Documentation/flight-recorder.md). Returns when every
 * running thread has answered: 0, or -errno with a one-line message (the
 * first thread's error; that thread then stops and notifies).
 */
int streams__switch(struct streams *ss, const char *dir, bool snapshot, char *err, size_t errlen);
/* Bytes the overwrite rings hold that the next snapshot would read (an upper bound). */
u64 streams__backward_pending(const struct streams *ss);

/* Final drain of every thread, then join. Returns the first thread error. */
int streams__stop(struct streams *ss);
void streams__exit(struct streams *ss);		/* accepts a zeroed struct */

/*
 * The live counters of every thread summed into *sum (helpers included);
 * returns the threads running that have rings. From any thread, any time.
 */
int streams__live(const struct streams *ss, struct stream_live *sum);
/* -v: what the adaptive layout may do, or why it keeps its first threads. */
void streams__print_plan(const struct streams *ss, FILE *f);
/*
 * The adaptive layout's closing lines: per node, how many threads ran and
 * at most at once; per helper, its counters, and for each of its runs
 * when and why it was added and when it stopped. Nothing for a fixed
 * layout. After streams__stop().
 */
void streams__print_adaptive(const struct streams *ss, FILE *f);

/* The threads' counters added up (times: min of firsts, max of lasts). */
void streams__total(const struct streams *ss, struct stream_stats *total);
/* Bytes the threads gave zstd, and what came out (-z). */
void streams__comp_bytes(const struct streams *ss, u64 *in, u64 *out);
/* How many threads could not get their real-time priority, and why (first error). */
int streams__rt_failures(const struct streams *ss, int *err);

#endif /* PRECORD_STREAMS_H */
