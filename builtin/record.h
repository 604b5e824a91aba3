/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h — what the files of the record command share (builtin/): the
 * state of one recording, struct record, and the steps one file hands
 * another. Nothing outside builtin/ includes it.
 *
 *   builtin-record.c   cmd_record(): the order of a recording, the wait
 *   record-config.c    -e, the targets and every attr, as perf record sets them
 *   record-output.c    the output: file, device, pipe or staging directory,
 *                      the start of each data file and its end
 *   record-switch.c    --switch-output and snapshots, the control channel
 *   record-summary.c   the closing lines
 */
#ifndef PRECORD_BUILTIN_RECORD_H
#define PRECORD_BUILTIN_RECORD_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "precord/builtin.h"
#include "precord/options.h"
#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/header.h"
#include "precord/writer.h"
#include "precord/streams.h"
#include "precord/synthesize.h"
#include "precord/merge.h"
#include "precord/merge-index.h"
#include "precord/control.h"
#include "precord/status.h"
#include "precord/workload.h"
#include "precord/util.h"
#include "wq.h"

/* -v: where a recording's time went, phase by phase (CLOCK_MONOTONIC). */
#define RECORD_MAX_PHASES	24

struct record_phases {
	u64		last_ns;	/* the end of the phase before */
	int		nr;
	const char	*name[RECORD_MAX_PHASES];
	u64		ns[RECORD_MAX_PHASES];
};

struct record {
	struct record_opts	opts;
	struct record_phases	phases;
	struct evlist		*evlist;
	struct evsel		*tracking;	/* gets mmap/comm/task records */
	bool			system_wide;	/* per-CPU target (-a, -C, or none) */
	int			nr_cgroup_names;	/* -G names given to evsels so far (perf's nr_cgroups) */
	struct workload		wl;

	const char		*path;
	int			out_fd;
	struct writer		writer;
	u64			data_offset;
	bool			header_written;

	struct streams		streams;
	struct stream_stats	total;		/* the threads' counters, after they stop */
	bool			threaded;	/* --threads: staging directory, then merge */
	/*
	 * --threads whose layout has one thread (numa on a one-node machine):
	 * that thread, real-time and bound as the layout says, writes the
	 * output itself in perf's serial layout; nothing to merge.
	 */
	bool			one_thread;
	bool			device;		/* -o names a device: written into, one file */
	bool			pipe;		/* perf's pipe format, to stdout ("-") or a FIFO */
	bool			pipe_gone;	/* its reader went away; said once */
	char			staging[PATH_MAX];	/* "<output>.staging" */
	char			data_path[PATH_MAX];	/* the file out_fd writes */
	struct merge_stats	merged;
	struct merge_index	*index;		/* the data.N records, noted by the threads */
	struct topology		*topo;		/* with --threads: the machine's, for the layout */
	bool			streams_started;
	struct wq_pool		*pool;		/* the global workers: one per recorded CPU */
	struct wq		*wq;
	int			notify_fd;	/* the stream thread stopped by itself */
	int			sig_fd;
	sigset_t		old_mask;

	/* The flight recorder: --overwrite, --switch-output, --control. */
	struct control		ctl;
	struct stream_shared	shared;		/* --switch-output=SIZE: the threads' byte count */
	u64			next_switch_ms;	/* --switch-output=TIME: when, 0: never */
	int			gen;		/* output files begun so far, minus one */
	char			**outputs;	/* --switch-max-files: the files kept, oldest first */
	int			nr_outputs;
	char			final_path[PATH_MAX];	/* --switch-output: the last FILE.<timestamp> */
	bool			stop_requested;	/* "stop" on the control channel */
	u64			gen_start_bytes;	/* shared.bytes when the current file began */
	u64			gen_start_samples;	/* samples in the files before the current one */
	struct synth_tree_snap	tree_snap;	/* the process tree at the last switch */
	bool			switch_due;	/* the current file was full when its limit was armed */
	bool			max_reached;	/* --max-size: the output holds that much; stop */
	struct evlist		*sb_evlist;	/* --switch-output-event: the side-band events */
	int			sb_fd;		/* epoll over their rings; -1: none */

	int			stop_signal;	/* signal that ended the recording, 0 */
	int			write_error;	/* -errno from the writer, 0 */
	int			merge_error;	/* -errno of a merge that kept its directory, 0 */
	u64			lost_samples;	/* from PERF_FORMAT_LOST at exit */
	u64			kept_samples;	/* after a write error: the samples in the files */
	bool			samples_counted;	/* kept_samples was counted */
	u64			synth_bytes;
	struct bpf_progs	bpf_progs;	/* the BPF programs described, for the header */
	bool			rate_warned;	/* the -F cap was said (once, not per event) */
	bool			regs_warned;	/* dwarf with --user-regs was said */
	struct status		status;		/* the live line on a terminal */
	/*
	 * The label of the closing lines perf record also prints (woken up,
	 * captured and wrote, dump): "perf record" when run as `precord record`,
	 * where those lines are perf's word for word, for the scripts that read
	 * them; "precord" otherwise.
	 */
	const char		*tag;
	int			full_argc;
	const char		**full_argv;
};

/* builtin-record.c: the phase that ends now, for -v's closing line of times */
void record__phase(struct record *rec, const char *name);

/* record-config.c */
int record__parse_events(struct record *rec);
int record__create_maps(struct record *rec);
int record__config(struct record *rec);
bool record__sample_address(const struct record_opts *o);
bool record__task_target(const struct record_opts *o);

/* record-output.c */
int record__check_output(struct record *rec);
int record__open_output(struct record *rec);
int record__begin_data(struct record *rec);
bool record__pipe_gone(struct record *rec, int err);
void record__cut_ring_files(struct record *rec);
int record__finish_output(struct record *rec);
int record__finish_dir(struct record *rec, const char *staging, const char *path);
int record__finish_last(struct record *rec);
void record__snap_tree(struct record *rec);
int record__finish_timestamp(struct record *rec);
int record__tail_synthesize(struct record *rec);
void remove_staging(const char *dir);

/* record-buildid.c: HEADER_BUILD_ID and the build-id cache at the end */
struct bid_map;
struct dso_hits;
struct record_build_ids {
	struct dso_hits	*hits;		/* the DSOs found */
	void		*table;		/* HEADER_BUILD_ID's payload, or NULL */
	size_t		table_size;
	void		*vdso;		/* this process's [vdso] image, for the cache */
	size_t		vdso_len;
	u8		vdso_bid[20];
	struct bid_map	*maps;		/* the files mapped while reading them */
	int		nr_maps;
};
int record__build_ids(struct record *rec, u64 data_size, struct record_build_ids *b);
void record__cache_build_ids(struct record *rec, struct record_build_ids *b);
void record__build_ids_exit(struct record_build_ids *b);

/* record-switch.c */
void record__arm_size(struct record *rec);
void record__arm_max_size(struct record *rec);
bool record__max_size_reached(struct record *rec);
int record__sb_parse(struct record *rec);
int record__sb_open(struct record *rec);
bool record__sb_read(struct record *rec);
void record__sb_close(struct record *rec);
int record__output_name(struct record *rec, char *buf, size_t size);
void record__keep_output(struct record *rec, const char *path);
int record__switch(struct record *rec);
bool record__overwrite_full(struct record *rec);
bool record__control(struct record *rec);

/* record-summary.c */
void record__print_summary(struct record *rec);

#endif /* PRECORD_BUILTIN_RECORD_H */
