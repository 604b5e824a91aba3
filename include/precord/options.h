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

enum synth_mode {
	SYNTH_ALL = 0,
	SYNTH_NO,
	SYNTH_TASK,
	SYNTH_MMAP,
};

struct record_opts {
	/* -e/--event, in the order given (each may be a comma list). */
	const char	**events;
	int		nr_events;

	u64		count;			/* -c; 0 = not given */
	unsigned int	freq;			/* -F; default 4000 */
	bool		freq_set;
	bool		freq_max;		/* -F max */

	enum callgraph_mode callgraph;		/* -g = fp, --call-graph fp|dwarf[,SIZE] */
	u32		dwarf_stack_size;	/* default 8192, multiple of 8, <= 65528 */

	bool		switch_events;		/* --switch-events */
	unsigned int	mmap_pages;		/* -m; 0 = default (perf's rule) */
	const char	*output;		/* -o; default "perf.data" */
	int		verbose;		/* -v, repeatable */
	bool		quiet;			/* -q */
	bool		dry_run;		/* --dry-run */
	bool		no_buildid;		/* -B/--no-buildid */
	bool		buildid_mmap;		/* --buildid-mmap (default on); --no-buildid-mmap */
	int		delay_ms;		/* -D; -1 = start disabled; 0 = none */
	bool		no_inherit;		/* -i/--no-inherit */
	bool		clockid_set;		/* -k/--clockid */
	int		clockid;
	int		realtime_prio;		/* -r/--realtime; 0 = not set */

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
};

/* Defaults as perf record's. */
void record_opts__init(struct record_opts *opts);
void record_opts__exit(struct record_opts *opts);	/* frees what parse allocated */

/*
 * Parse argv (argv[0] is the program or "record"). Returns 0 on success,
 * 1 when --help/-h printed the usage (exit 0), or -EINVAL with a one-line
 * message in err (without the "precord: " prefix).
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen);

/* The usage text. */
void record_opts__usage(void);

/*
 * Sizes as perf's -m takes them: "N" pages or "N[BKMG]" bytes, rounded up to a
 * power of two pages. Returns pages or -EINVAL.
 */
long parse_mmap_pages(const char *str, long page_size);

#endif /* PRECORD_OPTIONS_H */
