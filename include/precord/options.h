/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h — precord's command line, spelled and meaning what perf
 * record's does. Parsing only checks syntax and ranges; what depends on the
 * machine (events exist, CPUs online, pids alive, rate limits) is checked
 * when the recording is set up.
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
};

/* --synth, as perf's parse_synth_opt(); precord has no cgroup records. */
enum synth_mode {
	SYNTH_ALL = 0,		/* all (default) */
	SYNTH_NO,		/* no, none: nothing synthesized */
	SYNTH_TASK,		/* task: COMM/FORK only, no MMAP2 */
	SYNTH_MMAP,		/* mmap: COMM/FORK and MMAP2 ("mmap" implies "task" in perf) */
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
	bool		buildid_mmap;		/* --buildid-mmap (default on); --no-buildid-mmap */
	int		delay_ms;		/* -D; -1 = start disabled; 0 = none */
	bool		no_inherit;		/* -i/--no-inherit */
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

	bool		system_wide;		/* -a */
	const char	*cpu_list;		/* -C */
	const char	*pid_list;		/* -p */
	const char	*tid_list;		/* -t */

	enum synth_mode	synth;			/* --synth */
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

/* The usage text. */
void record_opts__usage(void);

/*
 * Sizes as perf's -m takes them: "N" pages or "N[BKMG]" bytes (upper-case
 * tag), rounded up to a power of two pages (0 becomes 1, as in perf).
 * Returns pages, -EINVAL (syntax) or -ERANGE (above UINT_MAX pages).
 */
long parse_mmap_pages(const char *str, long page_size);

#endif /* PRECORD_OPTIONS_H */
