/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h — precord's command line, spelled and meaning what perf
 * record's does. Parsing only checks syntax and ranges; what depends on the
 * machine (events exist, CPUs online, pids alive, rate limits) is checked
 * when the recording is set up, save the XMM registers -I may name, which
 * perf too asks the PMU about while parsing.
 */
#ifndef PRECORD_OPTIONS_H
#define PRECORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"

enum callgraph_mode {
	CALLGRAPH_NONE = 0,
	CALLGRAPH_FP,
	CALLGRAPH_DWARF,
	CALLGRAPH_LBR,		/* the branch stack's call stack (x86 LBR) */
};

/*
 * --synth, as perf's parse_synth_opt(): a set of what to synthesize. "mmap"
 * implies "task"; "cgroup" writes CGROUP records, and only with
 * --all-cgroups (as perf, whose cgroup synthesis needs the cgroup events on).
 */
enum synth_mode {
	SYNTH_NO	= 0,		/* no, none: nothing of the tasks */
	SYNTH_TASK	= 1u << 0,	/* task: COMM/FORK (and NAMESPACES) */
	SYNTH_MMAP	= 1u << 1,	/* mmap: MMAP2 of the tasks' maps */
	SYNTH_CGROUP	= 1u << 2,	/* cgroup: CGROUP of every cgroup */
	SYNTH_ALL	= SYNTH_TASK | SYNTH_MMAP | SYNTH_CGROUP,	/* all (default) */
};

/* --affinity: where perf moves its reading thread; precord's layout for it. */
enum record_affinity {
	AFFINITY_SYS = 0,	/* not given, or a value perf ignores */
	AFFINITY_NODE,		/* node: --threads=numa */
	AFFINITY_CPU,		/* cpu: --threads=cpu */
};

/*
 * --filter: a filter for the evsels of the -e it follows (perf's
 * parse_filter()); --exclude-perf is one too, with filter NULL: perf's
 * "common_pid != <its pid>" on those evsels, which must be tracepoints.
 */
struct record_filter {
	int		event;			/* index in record_opts.events */
	const char	*filter;		/* points into argv; NULL: --exclude-perf */
};

/*
 * -G/--cgroup NAME[,NAME...]: given after -e number event - 1, so the
 * names go to the evsels parsed so far that have none, in order, as
 * perf's parse_cgroups() gives them.
 */
struct record_cgroup {
	int		event;			/* index in record_opts.events */
	const char	*names;			/* points into argv */
};

struct record_opts {
	/* -e/--event, in the order given (each may be a comma list). */
	const char	**events;
	int		nr_events;

	u64		count;			/* -c; 0 = not given */
	unsigned int	freq;			/* -F; default 4000 */
	bool		freq_set;
	bool		freq_max;		/* -F max (set-up reads the rate) */

	enum callgraph_mode callgraph;		/* -g = fp, --call-graph fp|dwarf[,SIZE] */
	u32		dwarf_stack_size;	/* default 8192, multiple of 8, <= 65528 */
	/*
	 * --call-graph fp,N: attr.sample_max_stack; 0 = the kernel's default.
	 * perf ignores an N >= kernel.perf_event_max_stack: set-up's check.
	 */
	unsigned int	max_stack;

	bool		switch_events;		/* --switch-events */
	unsigned int	mmap_pages;		/* -m; 0 = default (perf's rule) */
	/*
	 * -o; default "perf.data". "-": perf's pipe format to stdout, as is a
	 * FIFO at the path, or stdout being a pipe when -o is not given (set-up
	 * looks: perf's check_pipe()).
	 */
	const char	*output;
	bool		output_set;		/* -o was given */
	int		verbose;		/* -v, repeatable */
	bool		quiet;			/* -q */
	bool		dry_run;		/* --dry-run */
	bool		no_buildid;		/* -B/--no-buildid */
	bool		no_buildid_set;		/*   either was given */
	bool		buildid_mmap;		/* --buildid-mmap (default on); --no-buildid-mmap */
	bool		buildid_mmap_set;	/*   either was given (--buildid-mmap: perf's -B -N) */
	bool		buildid_all;		/* --buildid-all: every DSO mapped, hit or not */
	const char	*buildid_dir;		/* perf's --buildid-dir (given before "record") */
	const char	*vmlinux;		/* --vmlinux=PATH: the kernel's name in BUILD_ID */
	/* --debuginfod[=URLS]: DEBUGINFOD_URLS for the command ("system": as it is) */
	const char	*debuginfod;
	bool		debuginfod_set;		/*   --debuginfod or --no-debuginfod given */
	bool		kcore;			/* --kcore */
	bool		no_bpf_event;		/* --no-bpf-event: no attr.bpf_event */
	int		delay_ms;		/* -D; -1 = start disabled; 0 = none */
	/*
	 * -D START-END,...: the moments (ms after the start) events go on and
	 * off, on at the even ones, off at the odd ones; the recording ends at
	 * the last. delay_ms is then the first.
	 */
	int		*delay_times;
	int		nr_delay_times;
	bool		no_inherit;		/* -i/--no-inherit */
	bool		no_inherit_set;		/*   given (-t then keeps what it says) */
	bool		group;			/* --group: all events in one group */
	bool		clockid_set;		/* -k/--clockid */
	int		clockid;
	int		realtime_prio;		/* -r/--realtime; 0 = not set */
	bool		no_realtime;		/* --no-realtime */

	/* Streaming threads: --threads[=SPEC] (NULL: precord's default, adaptive). */
	const char	*threads_spec;
	bool		no_threads;		/* --no-threads: one thread, one file */
	bool		no_merge;		/* --no-merge: keep the directory */
	int		comp_level;		/* -z[=N]; 0 = off */
	int		aio;			/* --aio[=N]; 0 = write() */
	bool		mmap_output;		/* --mmap-output: copy into a shared mapping of the file */
	unsigned int	mmap_flush;		/* --mmap-flush; 0 = default (1 byte) */

	/* The flight recorder (Documentation/flight-recorder.md). */
	bool		overwrite;		/* --overwrite: backward rings, read at snapshots */
	bool		switch_output;		/* --switch-output[=...]: FILE.<timestamp> files */
	bool		switch_signal;		/*   on SIGUSR2 (no value, or "signal") */
	u64		switch_size;		/*   once a file holds this many bytes (N[BKMG]) */
	unsigned int	switch_secs;		/*   every this many seconds (N[smhd]) */
	int		switch_max_files;	/* --switch-max-files; 0 = keep every file */
	const char	*control;		/* --control=fd:CTL[,ACK] | fifo:CTL[,ACK] */
	/*
	 * --switch-output-event, in the order given: side-band events whose
	 * every occurrence switches as SIGUSR2 does (implies signal mode).
	 */
	const char	**sb_events;
	int		nr_sb_events;
	bool		timestamp_filename;	/* --timestamp-filename: FILE.<timestamp> at the end */

	/* Output control. */
	u64		max_size;		/* --max-size=N[BKMG]: stop once written; 0 = no limit */
	bool		timestamp_boundary;	/* --timestamp-boundary: SAMPLE_TIME from every sample */
	bool		tail_synthesize;	/* --tail-synthesize: tasks and maps at each file's end */
	bool		no_buffering;		/* --no-buffering: wakeup_events 1, flush every pass */
	enum record_affinity affinity;		/* --affinity=node|cpu */

	/*
	 * What samples carry and what else is recorded: perf's record_opts
	 * fields of the same names, applied as perf's evsel__config() does.
	 */
	bool		sample_address;		/* -d: ADDR, DATA_SRC, data mmaps */
	bool		period;			/* -P: PERIOD; --no-period: none */
	bool		period_set;		/*   either was given */
	bool		sample_time;		/* -T (default on); --no-timestamp: no TIME */
	bool		sample_time_set;	/*   either was given */
	bool		inherit_stat;		/* -s: per-thread counts (PERF_RECORD_READ) */
	bool		no_samples;		/* -n: counting only, no samples */
	bool		raw_samples;		/* -R: TIME, RAW, CPU */
	bool		sample_weight;		/* -W: WEIGHT_STRUCT */
	bool		no_buildid_cache;	/* -N: HEADER_BUILD_ID, but no ~/.debug */
	bool		no_buildid_cache_set;	/*   either was given */
	u64		sample_intr_regs;	/* -I[REGS]: sample_regs_intr; 0: off */
	u64		sample_user_regs;	/* --user-regs[=REGS]: sample_regs_user; 0: off */
	bool		sample_cpu;		/* --sample-cpu */
	bool		sample_identifier;	/* --sample-identifier (precord's default) */
	bool		sample_phys_addr;	/* --phys-data */
	bool		sample_data_page_size;	/* --data-page-size */
	bool		sample_code_page_size;	/* --code-page-size */
	bool		sample_transaction;	/* --transaction */
	bool		running_time;		/* --running-time */
	bool		all_user;		/* --all-user: exclude_kernel on every event */
	bool		all_kernel;		/* --all-kernel: exclude_user on every event */
	bool		user_callchains;	/* --user-callchains: exclude_callchain_kernel */
	bool		kernel_callchains;	/* --kernel-callchains: exclude_callchain_user */
	bool		record_cgroup;		/* --all-cgroups: CGROUP samples and records */
	bool		record_namespaces;	/* --namespaces: NAMESPACES records */
	bool		strict_freq;		/* --strict-freq: -F above the limit is an error */
	struct record_filter *filters;		/* --filter, in the order given */
	int		nr_filters;

	bool		system_wide;		/* -a */
	const char	*cpu_list;		/* -C */
	const char	*pid_list;		/* -p */
	const char	*tid_list;		/* -t */
	/*
	 * -u/--uid: a user name or uid; its processes when recording starts
	 * are the target, as -p would name them (perf 6.1's thread map by uid).
	 */
	const char	*uid_str;
	struct record_cgroup *cgroups;		/* -G, in the order given; needs -a */
	int		nr_cgroups;
	/*
	 * -b, -j: PERF_SAMPLE_BRANCH_STACK with these branch_sample_type
	 * bits (perf's parse_branch_stack()); 0: none.
	 */
	u64		branch_stack;
	/*
	 * AUX area options: perf refuses -S and --aux-sample without an AUX
	 * area event, which precord never records; -m's AUX size is taken
	 * and, as in perf without one, unused.
	 */
	const char	*snapshot_opts;		/* -S/--snapshot[=opts]: "" without a value */
	const char	*aux_sample_opts;	/* --aux-sample[=opts]: "" without a value */
	unsigned int	auxtrace_mmap_pages;	/* -m N,M: M; 0: not given */
	bool		off_cpu;		/* --off-cpu: warned about, ignored (no BPF skeleton) */
	const char	*clang_path;		/* --clang-path, --clang-opt: for BPF source */
	const char	*clang_opt;		/*   events, which precord has not: kept, unused */
	/*
	 * --per-thread: one ring per thread, no CPU-wide events (perf ignores
	 * it with -a or -C, and so does precord).
	 */
	bool		per_thread;

	unsigned int	synth;			/* --synth: SYNTH_* bits */
	unsigned int	proc_map_timeout;	/* --proc-map-timeout, ms; default 500 */
	int		nr_threads_synthesize;	/* --num-thread-synthesize; 0 = default */

	/* The command after the options (after "--" or the first non-option). */
	int		argc;
	char		**argv;

	/*
	 * What parse had to tell without failing, one line each, perf's words:
	 * "rounding mmap pages size to 16K (4 pages)", "Warning: PID/TID switch
	 * overriding SYSTEM". Parse prints them to stderr unless -q.
	 */
	char		notes[256];
	/*
	 * The same for what perf says even with -q: its warning for an option
	 * of a feature it was built without ("Warning: option `off-cpu' is
	 * being ignored because no BUILD_BPF_SKEL=1"), which scripts grep for.
	 */
	char		warnings[160];
};

/* Defaults as perf record's. */
void record_opts__init(struct record_opts *opts);
void record_opts__exit(struct record_opts *opts);	/* frees what parse allocated */

/*
 * Parse argv (argv[0] is the program or "record"; "precord record ..." is
 * taken as perf's subcommand spelling). Returns 0 on success, 1 when
 * --help/-h printed the usage (exit 0), or -EINVAL (-ENOMEM) with a
 * one-line message in err (without the "precord: " prefix).
 *
 * Spelling as perf's parse-options: -Fval, -F val, --freq=val, --freq val,
 * clustered flags (-ag), unique prefixes of long names (--call), --no-NAME
 * for flags, options end at "--" or at the first word that is not one
 * (the command). opts->argv points into argv.
 *
 * Once every option is read, perf's target rules apply: -p/-t override -a
 * and -C (with perf's warnings in notes), -p overrides -t, and with neither
 * a target nor a command system_wide is set, as perf record does. A command
 * together with -p/-t is allowed (it only sets how long to record), as in perf.
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen);

/*
 * After parse: whether the rings are per thread (--per-thread with a task
 * target; perf ignores it with -a or -C), and whether samples carry
 * PERF_SAMPLE_TIME (perf's rule: unless --no-timestamp, or per-thread
 * rings without -T; always with -R). Either one means one streaming thread
 * and one file.
 */
bool record_opts__per_thread(const struct record_opts *opts);
bool record_opts__sample_time(const struct record_opts *opts);

/* The usage text. */
void record_opts__usage(void);

/*
 * Sizes as perf's -m takes them: "N" pages or "N[BKMG]" bytes (upper-case
 * tag), rounded up to a power of two pages (0 becomes 1, as in perf).
 * Returns pages, -EINVAL (syntax) or -ERANGE (above UINT_MAX pages).
 */
long parse_mmap_pages(const char *str, long page_size);

#endif /* PRECORD_OPTIONS_H */
