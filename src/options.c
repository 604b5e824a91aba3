// SPDX-License-Identifier: GPL-2.0
/*
 * options.c — precord's command line, spelled and meaning what perf
 * record's does.
 *
 * One table lists every option: its short and long name, whether it takes a
 * value, its help line and the handler that checks the value and stores it
 * in struct record_opts. Adding an option is one table line and a handler.
 * perf record options precord does not have yet sit in the same table marked
 * OPT_UNSUPPORTED, so they get "not supported by precord yet" instead of
 * "unknown option", and abbreviations stay as ambiguous as they are in perf.
 *
 * The scanner follows perf's parse-options: "-Fval" and "-F val", clustered
 * flags ("-ag"), "--freq=val" and "--freq val", unique prefixes of long
 * names, "--no-NAME" for negatable options (and "NAME" for those whose name
 * starts with "no-"), options end at "--" or at the first word that is not
 * one, which starts the command. Checks that need the machine (events exist,
 * CPUs online, pids alive, rate limits) belong to the set-up, not here; the
 * one exception is perf's: which registers -I may name depends on whether
 * the PMU samples the XMM registers (regs__intr_mask()).
 *
 * This file is the scanner, the messages, the checks made once every
 * option is in (record_opts__finish()) and --help. The rest, behind
 * src/options-internal.h:
 *
 *	options-table.c		the table of every option, in perf's --help order
 *	options-values.c	numbers, sizes with units, --mmap-pages
 *	options-sample.c	what a sample holds: -e, -c, -F, -g, -I, --filter
 *	options-target.c	what is recorded: -C, -p, -t, -D, -k, -r
 *	options-output.c	where it goes: -o, -m, -z, --aio, --threads,
 *				--switch-output, --synth, --control
 *
 * Data flow: argv → record_opts__parse() → parse_long()/parse_short() find
 * the option in the table → its handler checks the value and stores it in
 * struct record_opts → record_opts__finish().
 *
 * Runs once, on the main thread, before anything else. Errors go back as one
 * line in the caller's buffer; the only output is --help (stdout) and perf's
 * informational notes (stderr, unless -q).
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

int __attribute__((format(printf, 3, 4)))
opt_error(struct parse_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf__vset(ctx->err, ctx->errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* "-F/--freq", "--synth" or "-g": how messages name an option. */
const char *opt_name(const struct opt_def *def, char *buf, size_t size)
{
	if (def->short_name && def->long_name)
		snprintf(buf, size, "-%c/--%s", def->short_name, def->long_name);
	else if (def->long_name)
		snprintf(buf, size, "--%s", def->long_name);
	else
		snprintf(buf, size, "-%c", def->short_name);
	return buf;
}

int bad_value(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, const char *expect)
{
	char name[64];

	return opt_error(ctx, -EINVAL, "invalid value '%s' for %s: %s",
			 arg, opt_name(def, name, sizeof(name)), expect);
}

/* One line appended to buf (of size bytes); what does not fit is dropped. */
__attribute__((format(printf, 3, 0), nonnull(3)))
static void note__vadd(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t len = strlen(buf);

	if (len + 1 >= size)
		return;
	vsnprintf(buf + len, size - len, fmt, ap);
	len = strlen(buf);
	if (len + 1 < size) {
		buf[len] = '\n';
		buf[len + 1] = '\0';
	}
}

void __attribute__((format(printf, 2, 3)))
opts__note(struct record_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note__vadd(opts->notes, sizeof(opts->notes), fmt, ap);
	va_end(ap);
}

/* A note printed even with -q (record_opts.warnings). */
void __attribute__((format(printf, 2, 3)))
opts__warn(struct record_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note__vadd(opts->warnings, sizeof(opts->warnings), fmt, ap);
	va_end(ap);
}

enum { MATCH_NONE, MATCH_PREFIX, MATCH_EXACT };

/* How the typed key (keylen chars) matches the spelling pre+name. */
static int match_spelling(const char *key, size_t keylen, const char *pre, const char *name)
{
	size_t plen = strlen(pre), nlen = strlen(name);

	if (keylen > plen + nlen)
		return MATCH_NONE;
	if (strncmp(key, pre, keylen < plen ? keylen : plen))
		return MATCH_NONE;
	if (keylen > plen && strncmp(key + plen, name, keylen - plen))
		return MATCH_NONE;
	return keylen == plen + nlen ? MATCH_EXACT : MATCH_PREFIX;
}

/* The long spellings of an option: NAME, no-NAME, and NAME less its "no-". */
struct spelling {
	const struct opt_def	*def;
	const char		*pre;
	const char		*name;
	bool			unset;
};

static int opt_spellings(const struct opt_def *def, struct spelling sp[3])
{
	int n = 0;

	if (!def->long_name)
		return 0;
	sp[n++] = (struct spelling){ def, "", def->long_name, false };
	if (def->flags & OPT_NEGATABLE) {
		sp[n++] = (struct spelling){ def, "no-", def->long_name, true };
		if (!strncmp(def->long_name, "no-", 3))
			sp[n++] = (struct spelling){ def, "", def->long_name + 3, true };
	}
	return n;
}

/* Find the option a long key names: exact spelling first, else a unique prefix. */
static int find_long(struct parse_ctx *ctx, const char *key, size_t keylen,
		     struct spelling *found)
{
	struct spelling sp[3], prefix = { 0 }, other = { 0 };
	size_t i;
	int j, n;

	for (i = 0; keylen && i < nr_record_options; i++) {
		n = opt_spellings(&record_options[i], sp);
		for (j = 0; j < n; j++) {
			int m = match_spelling(key, keylen, sp[j].pre, sp[j].name);

			if (m == MATCH_EXACT) {
				*found = sp[j];
				return 0;
			}
			if (m == MATCH_PREFIX && !prefix.def)
				prefix = sp[j];
			else if (m == MATCH_PREFIX && !other.def)
				other = sp[j];
		}
	}
	if (other.def)
		return opt_error(ctx, -EINVAL,
				 "option '--%.*s' is ambiguous (could be --%s%s or --%s%s)",
				 (int)keylen, key, prefix.pre, prefix.name, other.pre, other.name);
	if (!prefix.def)
		return opt_error(ctx, -EINVAL,
				 "unknown option '--%.*s'; 'precord --help' lists the options",
				 (int)keylen, key);
	*found = prefix;
	return 0;
}

static int missing_value(struct parse_ctx *ctx, const struct opt_def *def)
{
	char name[64];

	return opt_error(ctx, -EINVAL, "option '%s' requires a value",
			 opt_name(def, name, sizeof(name)));
}

/* argv[*i] is "--key[=value]"; consumes it and its value. */
static int parse_long(struct parse_ctx *ctx, int argc, char **argv, int *i)
{
	const char *key = argv[*i] + 2, *eq = strchr(key, '='), *value;
	size_t keylen = eq ? (size_t)(eq - key) : strlen(key);
	const struct opt_def *def;
	struct spelling sp = { 0 };
	int err;

	(*i)++;
	err = find_long(ctx, key, keylen, &sp);
	if (err)
		return err;
	def = sp.def;
	if (def->flags & OPT_UNSUPPORTED)
		return def->handle(ctx, def, NULL, sp.unset);
	if (eq && (def->arg == OPT_ARG_NONE || sp.unset))
		return opt_error(ctx, -EINVAL, "option '--%s%s' takes no value ('%s')",
				 sp.pre, sp.name, argv[*i - 1]);
	value = eq ? eq + 1 : NULL;
	if (!eq && !sp.unset && def->arg == OPT_ARG_REQUIRED) {
		if (*i >= argc)
			return missing_value(ctx, def);
		value = argv[(*i)++];
	}
	return def->handle(ctx, def, value, sp.unset);
}

static const struct opt_def *find_short(char c)
{
	size_t i;

	for (i = 0; i < nr_record_options; i++) {
		if (record_options[i].short_name == c)
			return &record_options[i];
	}
	return NULL;
}

/* argv[*i] is "-abc" or "-Fval"; consumes it and a separate value. */
static int parse_short(struct parse_ctx *ctx, int argc, char **argv, int *i)
{
	const char *p = argv[*i] + 1, *value;
	const struct opt_def *def;
	int err;

	(*i)++;
	while (*p) {
		def = find_short(*p);
		if (!def)
			return opt_error(ctx, -EINVAL,
					 "unknown option '-%c'; 'precord --help' lists the options", *p);
		p++;
		if ((def->flags & OPT_UNSUPPORTED) || def->arg == OPT_ARG_NONE) {
			err = def->handle(ctx, def, NULL, false);
			if (err)
				return err;
			continue;
		}
		value = *p ? p : NULL;
		if (!value && def->arg == OPT_ARG_REQUIRED) {
			if (*i >= argc)
				return missing_value(ctx, def);
			value = argv[(*i)++];
		}
		return def->handle(ctx, def, value, false);
	}
	return 0;
}

bool record_opts__per_thread(const struct record_opts *opts)
{
	return opts->per_thread && !opts->system_wide && !opts->cpu_list;
}

bool record_opts__sample_time(const struct record_opts *opts)
{
	if (opts->raw_samples)
		return true;
	return opts->sample_time && (!record_opts__per_thread(opts) || opts->sample_time_set);
}

/*
 * Per-thread rings, or records without times: one streaming thread writes
 * one file in ring order, as perf does; nothing can be merged by time, so
 * what needs the streaming threads' files is refused.
 */
static int record_opts__finish_one_file(struct parse_ctx *ctx)
{
	struct record_opts *opts = ctx->opts;
	bool per_thread = record_opts__per_thread(opts);
	const char *why = per_thread ? "--per-thread" : "--no-timestamp";
	const char *what = opts->overwrite ? "--overwrite" :
			   opts->switch_output ? "--switch-output" :
			   opts->no_merge ? "--no-merge" : NULL;

	if (!per_thread && record_opts__sample_time(opts))
		return 0;
	if (per_thread && opts->threads_spec)
		return opt_error(ctx, -EINVAL,
				 "--per-thread option is mutually exclusive to parallel streaming mode; "
				 "drop --threads");
	if (opts->threads_spec)
		return opt_error(ctx, -EINVAL,
				 "--no-timestamp leaves nothing to merge the --threads files by; "
				 "drop --threads");
	if (what)
		return opt_error(ctx, -EINVAL,
				 "%s needs the streaming threads' files, which %s cannot have (one "
				 "thread writes one file); drop one of them", what, why);
	return 0;
}

/*
 * perf's target__validate(): a task target (-p, -t) wins over -C, -u and
 * -a, and -u over -C and -a; perf says only the first override it made.
 */
static void record_opts__validate_target(struct record_opts *opts)
{
	bool task = opts->pid_list || opts->tid_list;
	const char *said = NULL;

	if (task && opts->cpu_list) {
		said = "PID/TID switch overriding CPU";
		opts->cpu_list = NULL;
	}
	if (task && opts->uid_str) {
		said = said ? said : "PID/TID switch overriding UID";
		opts->uid_str = NULL;
	}
	if (opts->uid_str && opts->cpu_list) {
		said = said ? said : "UID switch overriding CPU";
		opts->cpu_list = NULL;
	}
	if (task && opts->system_wide) {
		said = said ? said : "PID/TID switch overriding SYSTEM";
		opts->system_wide = false;
	}
	if (opts->uid_str && opts->system_wide) {
		said = said ? said : "UID switch overriding SYSTEM";
		opts->system_wide = false;
	}
	if (said)
		opts__note(opts, "Warning: %s", said);
}

/*
 * perf 6.1's cmd_record() rules for the end-of-run build ids: an explicit
 * --buildid-mmap and -z skip them (and so the cache); --switch-output
 * skips both unless -B or -N was negated on the command line.
 */
static void record_opts__finish_build_ids(struct record_opts *o)
{
	if ((o->buildid_mmap && o->buildid_mmap_set) || o->comp_level)
		o->no_buildid = true;
	if (o->no_buildid)
		o->no_buildid_cache = true;
	else if (o->switch_output &&
		 !(o->no_buildid_set && !o->no_buildid) &&
		 !(o->no_buildid_cache_set && !o->no_buildid_cache))
		o->no_buildid = o->no_buildid_cache = true;
}

static int record_opts__finish(struct parse_ctx *ctx)
{
	struct record_opts *opts = ctx->opts;
	int ret;

	record_opts__finish_build_ids(opts);

	if (opts->count && opts->freq_set)
		return opt_error(ctx, -EINVAL,
				 "cannot set frequency (-F) and period (-c %llu) at the same time; give one of them",
				 (unsigned long long)opts->count);
	if (opts->all_user && opts->all_kernel)
		return opt_error(ctx, -EINVAL,
				 "option '--all-kernel' cannot be used with '--all-user'; give one of them");
	/* perf: a thread is recorded alone unless -i/--inherit says otherwise */
	if (opts->tid_list && !opts->no_inherit_set)
		opts->no_inherit = true;
	if (opts->pid_list && opts->tid_list) {
		opts__note(opts, "Warning: -p/--pid %s overriding -t/--tid %s",
			   opts->pid_list, opts->tid_list);
		opts->tid_list = NULL;
	}
	if (!opts->pid_list && !opts->tid_list && !opts->uid_str && !opts->cpu_list &&
	    opts->argc == 0)
		opts->system_wide = true;
	/* perf checks this before its target rules: -a given, or no target and no command */
	if (opts->nr_cgroups && !opts->system_wide)
		return opt_error(ctx, -EINVAL,
				 "cgroup monitoring only available in system-wide mode: add -a to -G/--cgroup");
	record_opts__validate_target(opts);
	if (opts->mmap_output && opts->aio)
		return opt_error(ctx, -EINVAL,
				 "--mmap-output and --aio are two ways to write the file; give one of them");
	/* perf's switch_output_setup(): a side-band event means signal mode */
	if (opts->nr_sb_events) {
		opts->switch_output = opts->switch_signal = true;
		opts->switch_size = 0;
		opts->switch_secs = 0;
	}
	if (opts->no_threads && (opts->overwrite || opts->switch_output))
		return opt_error(ctx, -EINVAL,
				 "%s needs the streaming threads; drop --no-threads",
				 opts->overwrite ? "--overwrite" : opts->nr_sb_events ?
				 "--switch-output-event" : "--switch-output");
	if (opts->affinity != AFFINITY_SYS && (opts->threads_spec || opts->no_threads))
		return opt_error(ctx, -EINVAL,
				 "--affinity option is mutually exclusive to parallel streaming mode "
				 "(--threads, --no-threads): give one of them");
	ret = record_opts__finish_one_file(ctx);
	/* --affinity picks the layout: a thread per node, or per CPU, pinned there */
	if (!ret && opts->affinity != AFFINITY_SYS && !record_opts__per_thread(opts) &&
	    record_opts__sample_time(opts))
		opts->threads_spec = opts->affinity == AFFINITY_NODE ? "numa" : "cpu";
	return ret;
}

/* Where the options start: after the program name and a "record" subcommand. */
static int first_option(int argc, char **argv)
{
	const char *prog;

	if (argc < 2)
		return argc < 1 ? 0 : 1;
	prog = strrchr(argv[0], '/');
	prog = prog ? prog + 1 : argv[0];
	if (strcmp(prog, "record") && !strcmp(argv[1], "record"))
		return 2;
	return 1;
}

int record_opts__parse(struct record_opts *opts, int argc, char **argv, char *err, size_t errlen)
{
	struct parse_ctx ctx = { opts, err, errlen };
	int i = first_option(argc, argv), ret = 0;

	if (err && errlen)
		err[0] = '\0';
	while (i < argc) {
		const char *arg = argv[i];

		if (arg[0] != '-' || arg[1] == '\0')
			break;			/* the command starts here */
		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if (arg[1] == '-')
			ret = parse_long(&ctx, argc, argv, &i);
		else
			ret = parse_short(&ctx, argc, argv, &i);
		if (ret)
			return ret;
	}
	opts->argc = argc - i;
	opts->argv = argv + i;
	ret = record_opts__finish(&ctx);
	if (!ret)
		fputs(opts->warnings, stderr);
	if (!ret && !opts->quiet)
		fputs(opts->notes, stderr);
	return ret;
}

void record_opts__init(struct record_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->freq = DEFAULT_FREQ;
	opts->dwarf_stack_size = DEFAULT_DWARF_SIZE;
	opts->output = DEFAULT_OUTPUT;
	opts->buildid_mmap = true;
	opts->synth = SYNTH_ALL;
	opts->proc_map_timeout = DEFAULT_MAP_TIMEOUT;
	opts->sample_time = true;
}

void record_opts__exit(struct record_opts *opts)
{
	if (!opts)
		return;
	free(opts->events);
	opts->events = NULL;
	opts->nr_events = 0;
	free(opts->filters);
	opts->filters = NULL;
	opts->nr_filters = 0;
	free(opts->cgroups);
	opts->cgroups = NULL;
	opts->nr_cgroups = 0;
	free(opts->sb_events);
	opts->sb_events = NULL;
	opts->nr_sb_events = 0;
	free(opts->delay_times);
	opts->delay_times = NULL;
	opts->nr_delay_times = 0;
}

#define USAGE_OPTS_WIDTH	24
#define USAGE_GAP		2

static void usage_line(const struct opt_def *def)
{
	int pos = printf("    ");

	if (def->short_name)
		pos += printf("-%c%s", def->short_name, def->long_name ? ", " : "");
	else
		pos += printf("    ");
	if (def->long_name)
		pos += printf("--%s", def->long_name);
	if (def->argname && def->arg == OPT_ARG_OPTIONAL)
		pos += printf("[=%s]", def->argname);	/* a value only attached, as perf shows it */
	else if (def->argname)
		pos += printf(" %s", def->argname);
	if (pos <= USAGE_OPTS_WIDTH) {
		printf("%*s%s\n", USAGE_OPTS_WIDTH - pos + USAGE_GAP, "", def->help);
	} else {
		printf("\n%*s%s\n", USAGE_OPTS_WIDTH + USAGE_GAP, "", def->help);
	}
}

/* The options perf record has and precord refuses, by name, wrapped to 80 columns. */
static void usage_unsupported(void)
{
	char name[64];
	int col = 0;
	size_t i;

	for (i = 0; i < nr_record_options; i++) {
		if (!(record_options[i].flags & OPT_UNSUPPORTED))
			continue;
		opt_name(&record_options[i], name, sizeof(name));
		if (col && col + 1 + (int)strlen(name) > 76) {
			printf("\n");
			col = 0;
		}
		col += printf("%s%s", col ? " " : "    ", name);
	}
	printf("\n");
}

void record_opts__usage(void)
{
	size_t i;

	printf("\n Usage: precord [record] [<options>] [<command>]\n"
	       "    or: precord [record] [<options>] -- <command> [<options>]\n\n");
	for (i = 0; i < nr_record_options; i++) {
		if (!(record_options[i].flags & OPT_UNSUPPORTED))
			usage_line(&record_options[i]);
	}
	for (i = 0; i < nr_record_options; i++)
		if (record_options[i].flags & OPT_UNSUPPORTED)
			break;
	if (i < nr_record_options) {
		printf("\n perf record options precord refuses (not supported yet):\n");
		usage_unsupported();
	}
	printf("\n See precord(1) and perf-record(1).\n\n");
}
