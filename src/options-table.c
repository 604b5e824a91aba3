// SPDX-License-Identifier: GPL-2.0
/*
 * options-table.c — the table of every option perf record has, in
 * perf's --help order: its short and long name, whether it takes a value,
 * its help line and its handler. perf's options precord lacks sit here too,
 * marked OPT_UNSUPPORTED, so they are refused by name.
 *
 * Data flow: the scanner (options.c) looks names up in record_options[]; a flag
 * (opt_bool) stores into the record_opts field its entry names; the
 * other handlers live in options-sample.c, -target.c and -output.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "options-internal.h"

static int opt_bool(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	*(bool *)((char *)ctx->opts + def->field) = !unset;
	if (def->set_field)
		*(bool *)((char *)ctx->opts + def->set_field) = true;
	return 0;
}

static int opt_verbose(struct parse_ctx *ctx, const struct opt_def *def,
		       const char *arg, bool unset)
{
	ctx->opts->verbose++;
	return 0;
}

static int opt_help(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	record_opts__usage();
	return 1;
}

/* For OPT_PERF_ONLY entries: every perf record 6.1 option is taken, so none today. */
static __attribute__((unused)) int opt_unsupported(struct parse_ctx *ctx,
						   const struct opt_def *def,
						   const char *arg, bool unset)
{
	char name[64];

	return opt_error(ctx, -EINVAL, "option '%s' is not supported by precord yet",
			 opt_name(def, name, sizeof(name)));
}

#define OPT_BOOL(s, l, member, h)						\
	{ s, l, OPT_ARG_NONE, OPT_NEGATABLE, NULL, h, opt_bool,			\
	  offsetof(struct record_opts, member), 0 }
/* A flag whose "given at all" perf keeps too (perf's OPT_BOOLEAN_SET). */
#define OPT_BOOL_SET(s, l, member, set, h)					\
	{ s, l, OPT_ARG_NONE, OPT_NEGATABLE, NULL, h, opt_bool,			\
	  offsetof(struct record_opts, member), offsetof(struct record_opts, set) }
#define OPT_VALUE(s, l, an, fn, h)						\
	{ s, l, OPT_ARG_REQUIRED, 0, an, h, fn, 0, 0 }
#define OPT_PERF_ONLY(s, l)							\
	{ s, l, OPT_ARG_NONE, OPT_NEGATABLE | OPT_UNSUPPORTED, NULL, NULL,	\
	  opt_unsupported, 0, 0 }

/* In perf's --help order: short names alphabetically, then long-only names. */
const struct opt_def record_options[] = {
	OPT_BOOL('a', "all-cpus", system_wide, "system-wide collection from all CPUs"),
	{ 'b', "branch-any", OPT_ARG_NONE, OPT_NEGATABLE, NULL, "sample any taken branches",
	  opt_branch, 0, 0 },
	OPT_BOOL_SET('B', "no-buildid", no_buildid, no_buildid_set,
		     "do not collect buildids in perf.data"),
	OPT_VALUE('c', "count", "<n>", opt_count, "event period to sample"),
	OPT_VALUE('C', "cpu", "<cpu>", opt_cpu, "list of cpus to monitor"),
	OPT_BOOL('d', "data", sample_address, "record the sample addresses"),
	OPT_VALUE('D', "delay", "<ms>", opt_delay,
		  "ms to wait before starting measurement after program start (-1: start with "
		  "events disabled), or ranges of time to enable events e.g. '-D 10-20,30-40'"),
	OPT_VALUE('e', "event", "<event>", opt_event,
		  "event selector. use 'perf list' to list available events"),
	OPT_VALUE('F', "freq", "<freq or 'max'>", opt_freq, "profile at this frequency"),
	{ 'g', NULL, OPT_ARG_NONE, 0, NULL,
	  "enables call-graph recording (fp, or --call-graph's mode)", opt_g, 0, 0 },
	OPT_VALUE('G', "cgroup", "<name>", opt_cgroup,
		  "monitor event in cgroup name only (one name per -e event, in order; needs -a)"),
	{ 'h', "help", OPT_ARG_NONE, 0, NULL, "show this help", opt_help, 0, 0 },
	{ 'I', "intr-regs", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<any register>",
	  "sample selected machine registers on interrupt, use '-I?' to list register names",
	  opt_intr_regs, 0, 0 },
	OPT_BOOL_SET('i', "no-inherit", no_inherit, no_inherit_set,
		     "child tasks do not inherit counters"),
	OPT_VALUE('j', "branch-filter", "<branch filter mask>", opt_branch,
		  "branch stack filter modes"),
	{ 'k', "clockid", OPT_ARG_REQUIRED, OPT_NEGATABLE, "<clockid>",
	  "clockid to use for events, see clock_gettime()", opt_clockid, 0, 0 },
	OPT_VALUE('m', "mmap-pages", "<pages[,pages]>", opt_mmap_pages,
		  "number of mmap data pages (or a size with B/K/M/G), and AUX area pages (no AUX events: unused)"),
	OPT_BOOL_SET('N', "no-buildid-cache", no_buildid_cache, no_buildid_cache_set,
		     "do not update the buildid cache"),
	OPT_BOOL('n', "no-samples", no_samples, "don't sample"),
	OPT_VALUE('o', "output", "<file>", opt_output,
		  "output file name (-: perf's pipe format to stdout)"),
	OPT_BOOL_SET('P', "period", period, period_set, "record the sample period"),
	OPT_VALUE('p', "pid", "<pid>", opt_pid, "record events on existing process id"),
	OPT_BOOL('q', "quiet", quiet, "don't print any warnings or messages"),
	OPT_BOOL('R', "raw-samples", raw_samples,
		 "collect raw sample records from all opened counters"),
	OPT_VALUE('r', "realtime", "<n>", opt_realtime,
		  "collect data with this RT SCHED_FIFO priority"),
	{ 'S', "snapshot", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<opts>",
	  "AUX area tracing Snapshot Mode (refused, as by perf, without an AUX area event)",
	  opt_snapshot, 0, 0 },
	OPT_BOOL('s', "stat", inherit_stat, "per thread counts"),
	OPT_VALUE('t', "tid", "<tid>", opt_tid, "record events on existing thread id"),
	OPT_BOOL_SET('T', "timestamp", sample_time, sample_time_set,
		     "record the sample timestamps"),
	OPT_VALUE('u', "uid", "<user>", opt_uid, "user to profile: its processes at the start"),
	{ 'v', "verbose", OPT_ARG_NONE, 0, NULL, "be more verbose (repeat for more)",
	  opt_verbose, 0, 0 },
	OPT_BOOL('W', "weight", sample_weight, "sample by weight (on special events only)"),
	{ 'z', "compression-level", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<n>",
	  "compress records with zstd at this level (1-22; default 1)", opt_compression, 0, 0 },
	{ 0, "affinity", OPT_ARG_REQUIRED, OPT_NEGATABLE, "node|cpu",
	  "streaming threads per NUMA node (node: --threads=numa) or per CPU (cpu: --threads=cpu)",
	  opt_affinity, 0, 0 },
	{ 0, "aio", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<n>",
	  "write asynchronously with n buffers in flight (1-4; default 1)", opt_aio, 0, 0 },
	OPT_BOOL(0, "all-cgroups", record_cgroup, "record cgroup events"),
	OPT_BOOL(0, "all-kernel", all_kernel, "configure all used events to run in kernel space"),
	OPT_BOOL(0, "all-user", all_user, "configure all used events to run in user space"),
	{ 0, "aux-sample", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<opts>",
	  "sample AUX area (refused, as by perf, without an AUX area event)",
	  opt_aux_sample, 0, 0 },
	OPT_BOOL(0, "buildid-all", buildid_all, "Record build-id of all DSOs regardless of hits"),
	{ 0, "buildid-dir", OPT_ARG_REQUIRED, 0, "<dir>",
	  "the build-id cache (perf's --buildid-dir; default: buildid.dir, ~/.debug)",
	  opt_buildid_dir, 0, 0 },
	OPT_BOOL_SET(0, "buildid-mmap", buildid_mmap, buildid_mmap_set,
		     "record build ids in mmap events (given: no build-id table or cache, as perf)"),
	{ 0, "call-graph", OPT_ARG_REQUIRED, OPT_NEGATABLE, "<fp[,depth]|dwarf[,size]>",
	  "setup and enables call-graph recording (dwarf size default 8192, max 65528)",
	  opt_call_graph, 0, 0 },
	OPT_VALUE(0, "clang-opt", "<clang options>", opt_clang_opt,
		  "options passed to clang when compiling BPF scriptlets (no BPF events: unused)"),
	OPT_VALUE(0, "clang-path", "<clang path>", opt_clang_path,
		  "clang binary to use for compiling BPF scriptlets (no BPF events: unused)"),
	OPT_BOOL(0, "code-page-size", sample_code_page_size,
		 "record the sampled code address (ip) page size"),
	OPT_VALUE(0, "control", "fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]", opt_control,
		  "listen on ctl for enable, disable, snapshot, stop and ping; ack on ack"),
	OPT_BOOL(0, "data-page-size", sample_data_page_size,
		 "record the sampled data address data page size"),
	{ 0, "debuginfod", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<urls>",
	  "Enable debuginfod data retrieval from DEBUGINFOD_URLS or specified urls",
	  opt_debuginfod, 0, 0 },
	OPT_BOOL(0, "dry-run", dry_run, "parse options then exit"),
	{ 0, "exclude-perf", OPT_ARG_NONE, OPT_NEGATABLE, NULL,
	  "don't record events from perf itself (its main thread: the -e tracepoints before it)",
	  opt_exclude_perf, 0, 0 },
	OPT_VALUE(0, "filter", "<filter>", opt_filter,
		  "event filter, for the events of the -e before it"),
	OPT_BOOL(0, "group", group, "put the counters into a counter group"),
	OPT_BOOL(0, "kcore", kcore, "copy /proc/kcore"),
	OPT_BOOL(0, "kernel-callchains", kernel_callchains, "collect kernel callchains"),
	{ 0, "max-size", OPT_ARG_REQUIRED, OPT_NEGATABLE, "<size>",
	  "stop recording once the output holds this many bytes (B/K/M/G)", opt_max_size, 0, 0 },
	OPT_BOOL(0, "mmap-output", mmap_output,
		 "write through a shared mapping of the file, 64 MiB at a time, instead of write()"),
	OPT_VALUE(0, "mmap-flush", "<size>", opt_mmap_flush,
		  "the fewest bytes taken from a ring at once (default 1, at most a quarter of it)"),
	OPT_BOOL(0, "namespaces", record_namespaces, "record namespaces events"),
	OPT_BOOL(0, "no-bpf-event", no_bpf_event, "do not record bpf events"),
	OPT_BOOL(0, "no-merge", no_merge,
		 "keep perf's directory layout (data + data.N) instead of merging"),
	OPT_BOOL(0, "no-realtime", no_realtime,
		 "streaming threads at normal priority (default: SCHED_FIFO 10 when permitted)"),
	OPT_BOOL(0, "no-buffering", no_buffering,
		 "collect data without buffering: a wakeup per event, written at once"),
	OPT_VALUE(0, "num-thread-synthesize", "<n>", opt_nr_threads_synth,
		  "number of threads to run for event synthesis"),
	{ 0, "off-cpu", OPT_ARG_NONE, OPT_NEGATABLE, NULL,
	  "Enable off-cpu analysis (ignored with a warning: no BPF skeleton, as this perf)",
	  opt_off_cpu, 0, 0 },
	OPT_BOOL(0, "overwrite", overwrite,
		 "flight recorder: overwritable rings, written only at a snapshot and at exit"),
	OPT_BOOL(0, "per-thread", per_thread, "use per-thread mmaps"),
	OPT_BOOL(0, "phys-data", sample_phys_addr, "record the sample physical addresses"),
	OPT_VALUE(0, "proc-map-timeout", "<ms>", opt_proc_map_timeout,
		  "per thread proc mmap processing timeout in ms (default 500)"),
	OPT_BOOL(0, "running-time", running_time,
		 "record running/enabled time of read (:S) events"),
	OPT_BOOL(0, "sample-cpu", sample_cpu, "record the sample cpu"),
	OPT_BOOL(0, "sample-identifier", sample_identifier,
		 "record the sample identifier (always recorded by precord)"),
	OPT_BOOL(0, "strict-freq", strict_freq, "fail if the specified frequency can't be used"),
	OPT_BOOL(0, "switch-events", switch_events, "record context switch events"),
	OPT_VALUE(0, "switch-max-files", "<n>", opt_switch_max_files,
		  "keep only the newest n files of --switch-output"),
	{ 0, "switch-output", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<signal|size|time>",
	  "write FILE.<timestamp> on SIGUSR2 (default), every SIZE (B/K/M/G) or TIME (s/m/h/d)",
	  opt_switch_output, 0, 0 },
	OPT_VALUE(0, "switch-output-event", "<event>", opt_sb_event,
		  "switch output on each occurrence of this side-band event (as SIGUSR2)"),
	OPT_VALUE(0, "synth", "<no|all|task|mmap|cgroup>", opt_synth,
		  "fine-tune event synthesis: default=all"),
	OPT_BOOL(0, "tail-synthesize", tail_synthesize,
		 "synthesize non-sample events at the end of output"),
	{ 0, "threads", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<spec>",
	  "streaming threads: adaptive[:MAX] (default), cpu, core, package, numa or masks; --no-threads: one",
	  opt_threads, 0, 0 },
	OPT_BOOL(0, "timestamp-boundary", timestamp_boundary,
		 "record the first and last sample times in the header (always done)"),
	OPT_BOOL(0, "timestamp-filename", timestamp_filename,
		 "append timestamp to output filename"),
	OPT_BOOL(0, "transaction", sample_transaction,
		 "sample transaction flags (special events only)"),
	OPT_BOOL(0, "user-callchains", user_callchains, "collect user callchains"),
	{ 0, "user-regs", OPT_ARG_OPTIONAL, OPT_NEGATABLE, "<any register>",
	  "sample selected machine registers in user space, use '--user-regs=?' to list register names",
	  opt_user_regs, 0, 0 },
	OPT_VALUE(0, "vmlinux", "<file>", opt_vmlinux, "vmlinux pathname"),
};

const size_t nr_record_options = ARRAY_SIZE(record_options);
