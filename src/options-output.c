// SPDX-License-Identifier: GPL-2.0
/*
 * options-output.c — the options that say where the records go and
 * how: -o, -m/--mmap-pages, -z, --aio, --mmap-flush, --threads,
 * --affinity, --max-size, --switch-output, --switch-output-event,
 * --switch-max-files, --synth, --proc-map-timeout, --num-thread-synthesize,
 * --control, the build-id cache's --buildid-dir, --vmlinux and
 * --debuginfod, and the AUX area's -S and --aux-sample.
 *
 * Data flow: each handler checks its value and stores it in struct record_opts.
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

/* One size of -m, in pages, with perf's note when it was rounded up. */
static int mmap_pages_one(struct parse_ctx *ctx, const struct opt_def *def, const char *arg,
			  const char *str, unsigned int *pages_out)
{
	unsigned long long rounded_from;
	long page_size = sysconf(_SC_PAGESIZE);
	char size[32];
	long pages;

	/* perf reads an empty size with strtoul(): 0 pages */
	pages = mmap_pages__parse(*str ? str : "0", page_size, &rounded_from);
	if (pages == -ERANGE)
		return bad_value(ctx, def, arg, "too large: at most 2147483648 pages");
	if (pages < 0)
		return bad_value(ctx, def, arg,
				 "expected a number of pages, or a size with B/K/M/G");
	if (rounded_from) {
		unit_number(size, sizeof(size), (unsigned long long)pages * page_size);
		opts__note(ctx->opts, "rounding mmap pages size to %s (%ld pages)", size, pages);
	}
	*pages_out = (unsigned int)pages;
	return 0;
}

/*
 * -m DATA[,AUX] (perf's record__parse_mmap_pages()): an empty DATA keeps
 * the default; AUX, when there is a comma, is parsed the same way (an
 * empty one is 0 pages, rounded up to 1 with perf's note) and kept for an
 * AUX area event, which precord never has: unused, as in perf without one.
 */
int opt_mmap_pages(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	char data[32];
	int err;

	if (len >= sizeof(data))
		return bad_value(ctx, def, arg,
				 "expected a number of pages, or a size with B/K/M/G");
	memcpy(data, arg, len);
	data[len] = '\0';
	if (len) {
		err = mmap_pages_one(ctx, def, arg, data, &ctx->opts->mmap_pages);
		if (err)
			return err;
	}
	return comma ? mmap_pages_one(ctx, def, arg, comma + 1, &ctx->opts->auxtrace_mmap_pages) : 0;
}

int opt_output(struct parse_ctx *ctx, const struct opt_def *def,
	       const char *arg, bool unset)
{
	if (!*arg)
		return bad_value(ctx, def, arg, "expected a file name, or - for stdout");
	ctx->opts->output = arg;
	ctx->opts->output_set = true;
	return 0;
}

/* One word of --synth: its bits into *bits, or -EINVAL if unknown. */
static int synth_word(const char *w, size_t len, unsigned int *bits)
{
	if ((len == 2 && !strncasecmp(w, "no", 2)) || (len == 4 && !strncasecmp(w, "none", 4)))
		*bits = SYNTH_NO;
	else if (len == 3 && !strncasecmp(w, "all", 3))
		*bits = SYNTH_ALL;
	else if (len == 4 && !strncasecmp(w, "task", 4))
		*bits = SYNTH_TASK;
	else if (len == 4 && !strncasecmp(w, "mmap", 4))
		*bits = SYNTH_TASK | SYNTH_MMAP;
	else if (len == 6 && !strncasecmp(w, "cgroup", 6))
		*bits = SYNTH_CGROUP;
	else
		return -EINVAL;
	return 0;
}

/* As perf's parse_synth_opt(): the first "no" or "all" decides, else the words add up. */
int opt_synth(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset)
{
	unsigned int mode = 0, bits;
	const char *w = arg;

	for (;;) {
		size_t len = strcspn(w, ",");

		if (synth_word(w, len, &bits))
			return bad_value(ctx, def, arg,
					 "expected no, all, task, mmap or cgroup (comma-separated)");
		if (bits == SYNTH_NO || bits == SYNTH_ALL) {
			mode = bits;
			break;
		}
		mode |= bits;
		if (!w[len])
			break;
		w += len + 1;
	}
	ctx->opts->synth = mode;
	return 0;
}

int opt_proc_map_timeout(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, UINT_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of milliseconds");
	ctx->opts->proc_map_timeout = (unsigned int)v;
	return 0;
}

int opt_nr_threads_synth(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, INT_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of threads");
	ctx->opts->nr_threads_synthesize = (int)v;
	return 0;
}

/* -z/--compression-level[=N]: zstd level 1..22, 1 without a value (perf's). */
int opt_compression(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	unsigned long long v = 1;

	if (unset) {
		ctx->opts->comp_level = 0;
		return 0;
	}
	if (arg && parse_unsigned(arg, 10, 22, &v))
		return bad_value(ctx, def, arg, "expected a zstd level from 1 to 22");
	ctx->opts->comp_level = v ? (int)v : 1;
	return 0;
}

/* --aio[=N]: asynchronous writes with N buffers in flight, 1 to 4 (perf's). */
int opt_aio(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset)
{
	unsigned long long v = 1;

	if (unset) {
		ctx->opts->aio = 0;
		return 0;
	}
	if (arg && (parse_unsigned(arg, 10, 4, &v) || v == 0))
		return bad_value(ctx, def, arg, "expected 1 to 4 buffers in flight");
	ctx->opts->aio = (int)v;
	return 0;
}

/* --mmap-flush=N[BKMG]: the fewest bytes taken from a ring at once (perf's). */
int opt_mmap_flush(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_size_tag(arg, &v) && parse_unsigned(arg, 10, ULLONG_MAX, &v))
		return bad_value(ctx, def, arg, "expected a size such as 4096, 64K or 1M");
	if (v == 0)
		return bad_value(ctx, def, arg, "expected a size of at least 1 byte");
	/* as perf: any size, capped at a quarter of a ring when the rings are mapped */
	ctx->opts->mmap_flush = v > UINT_MAX ? UINT_MAX : (unsigned int)v;
	return 0;
}

/* --threads[=SPEC]: perf's; no value means "cpu". --no-threads: one streaming thread, one file. */
int opt_threads(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset)
{
	if (unset) {
		ctx->opts->no_threads = true;
		ctx->opts->threads_spec = NULL;
		return 0;
	}
	if (arg && !*arg)
		arg = NULL;	/* perf: an empty value is "cpu" too */
	ctx->opts->no_threads = false;
	ctx->opts->threads_spec = arg ? arg : "cpu";
	return 0;
}

/* --max-size=N[BKMG]: perf's parse_output_max_size(): a tag is needed; 0B is no limit. */
int opt_max_size(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	unsigned long long v;

	if (unset) {
		ctx->opts->max_size = 0;
		return 0;
	}
	if (parse_size_tag(arg, &v))
		return bad_value(ctx, def, arg, "expected a size with B, K, M or G, such as 100M (0B: no limit)");
	ctx->opts->max_size = v;
	return 0;
}

/*
 * --affinity=node|cpu (any case), perf's record__parse_affinity(): another
 * value leaves perf's default, without a word from perf; precord says so.
 */
int opt_affinity(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	if (unset)
		return 0;
	if (!strcasecmp(arg, "node"))
		ctx->opts->affinity = AFFINITY_NODE;
	else if (!strcasecmp(arg, "cpu"))
		ctx->opts->affinity = AFFINITY_CPU;
	else
		opts__note(ctx->opts, "Warning: --affinity=%s is neither node nor cpu: ignored, "
			   "as perf record ignores it", arg);
	return 0;
}

/* --switch-output-event=EVENT: checked as -e is, when the recording is set up. */
int opt_sb_event(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	const char **events;

	if (!*arg)
		return bad_value(ctx, def, arg, "expected an event name; 'perf list' shows the events");
	events = realloc(opts->sb_events, (opts->nr_sb_events + 1) * sizeof(*events));
	if (!events)
		return opt_error(ctx, -ENOMEM, "out of memory parsing --switch-output-event '%s'", arg);
	events[opts->nr_sb_events++] = arg;
	opts->sb_events = events;
	return 0;
}

/* --switch-output[=signal|SIZE|TIME]: perf's switch_output_setup(); no value is "signal". */
int opt_switch_output(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset)
{
	struct record_opts *o = ctx->opts;
	unsigned long long v;

	o->switch_signal = false;
	o->switch_size = 0;
	o->switch_secs = 0;
	o->switch_output = !unset;
	if (unset)
		return 0;
	if (!arg || !strcmp(arg, "signal"))
		o->switch_signal = true;
	else if (!parse_size_tag(arg, &v) && v)
		o->switch_size = v;
	else if (!parse_tagged(arg, time_tags, UINT_MAX, &v) && v)
		o->switch_secs = (unsigned int)v;
	else
		return bad_value(ctx, def, arg,
				 "expected signal, a size such as 100M (B/K/M/G) or a time such as 30s (s/m/h/d)");
	return 0;
}

int opt_switch_max_files(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, INT_MAX, &v))
		return bad_value(ctx, def, arg, "expected a number of files (0: keep all)");
	ctx->opts->switch_max_files = (int)v;
	return 0;
}

/* --control: the syntax is checked when the channel is opened (control__open). */
int opt_control(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset)
{
	if (strncmp(arg, "fd:", 3) && strncmp(arg, "fifo:", 5))
		return bad_value(ctx, def, arg, "expected fd:CTL[,ACK] or fifo:CTL[,ACK]");
	ctx->opts->control = arg;
	return 0;
}

/* --buildid-dir=DIR: perf's global option, which main.c hands to record as this. */
int opt_buildid_dir(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	if (!*arg)
		return bad_value(ctx, def, arg, "expected a directory");
	ctx->opts->buildid_dir = arg;
	return 0;
}

/* --vmlinux=PATH: perf refuses a file it cannot read ("Invalid file"). */
int opt_vmlinux(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset)
{
	if (access(arg, R_OK))
		return bad_value(ctx, def, arg, "cannot read that file");
	ctx->opts->vmlinux = arg;
	return 0;
}

/*
 * --debuginfod[=URLS]: perf's perf_debuginfod_setup(). No value means
 * "system" (DEBUGINFOD_URLS as it is); --no-debuginfod leaves it too.
 */
int opt_debuginfod(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	(void)def;
	ctx->opts->debuginfod_set = true;
	ctx->opts->debuginfod = unset ? NULL : arg ? arg : "system";
	return 0;
}

/* -S/--snapshot[=opts], --aux-sample[=opts]: kept; set-up refuses them as perf does. */
int opt_snapshot(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	ctx->opts->snapshot_opts = unset ? NULL : arg ? arg : "";
	return 0;
}

int opt_aux_sample(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	ctx->opts->aux_sample_opts = unset ? NULL : arg ? arg : "";
	return 0;
}
