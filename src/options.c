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

#include "precord/cpumap.h"
#include "precord/options.h"
#include "precord/parse-events.h"
#include "precord/util.h"
#include "precord/threadmap.h"


#define DEFAULT_FREQ		4000
#define DEFAULT_OUTPUT		"perf.data"
#define DEFAULT_DWARF_SIZE	8192
#define DEFAULT_MAP_TIMEOUT	500	/* ms, perf's PROC_MAP_PARSE_TIMEOUT */
/* perf's get_stack_size(): round_down(USHRT_MAX, sizeof(u64)) */
#define MAX_DWARF_SIZE		(65535 & ~7u)

enum opt_arg {
	OPT_ARG_NONE,		/* a flag */
	OPT_ARG_REQUIRED,	/* -Xval, -X val, --name=val, --name val */
	OPT_ARG_OPTIONAL,	/* -Xval or --name=val only */
};

#define OPT_NEGATABLE	(1u << 0)	/* --no-NAME unsets it */
#define OPT_UNSUPPORTED	(1u << 1)	/* perf record has it, precord not yet */

struct parse_ctx {
	struct record_opts	*opts;
	char			*err;
	size_t			errlen;
};

struct opt_def;
typedef int (*opt_handler)(struct parse_ctx *ctx, const struct opt_def *def,
			   const char *arg, bool unset);

struct opt_def {
	char		short_name;	/* 0: none */
	const char	*long_name;	/* NULL: none */
	enum opt_arg	arg;
	unsigned int	flags;
	const char	*argname;	/* for --help */
	const char	*help;
	opt_handler	handle;
	size_t		field;		/* opt_bool: offsetof the bool in record_opts */
	size_t		set_field;	/* opt_bool: offsetof a bool noting it was given; 0: none */
};

/* ---- messages ---------------------------------------------------------- */

static int __attribute__((format(printf, 3, 4)))
opt_error(struct parse_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf__vset(ctx->err, ctx->errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* "-F/--freq", "--synth" or "-g": how messages name an option. */
static const char *opt_name(const struct opt_def *def, char *buf, size_t size)
{
	if (def->short_name && def->long_name)
		snprintf(buf, size, "-%c/--%s", def->short_name, def->long_name);
	else if (def->long_name)
		snprintf(buf, size, "--%s", def->long_name);
	else
		snprintf(buf, size, "-%c", def->short_name);
	return buf;
}

static int bad_value(struct parse_ctx *ctx, const struct opt_def *def,
		     const char *arg, const char *expect)
{
	char name[64];

	return opt_error(ctx, -EINVAL, "invalid value '%s' for %s: %s",
			 arg, opt_name(def, name, sizeof(name)), expect);
}

/* One line appended to buf (of size bytes); what does not fit is dropped. */
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

static void __attribute__((format(printf, 2, 3)))
opts__note(struct record_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note__vadd(opts->notes, sizeof(opts->notes), fmt, ap);
	va_end(ap);
}

/* A note printed even with -q (record_opts.warnings). */
static void __attribute__((format(printf, 2, 3)))
opts__warn(struct record_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note__vadd(opts->warnings, sizeof(opts->warnings), fmt, ap);
	va_end(ap);
}

/* ---- numbers ----------------------------------------------------------- */

/*
 * An unsigned number with nothing around it: no sign, no blanks, no
 * trailing characters. base 0 also takes 0x (as perf's OPT_U64). Returns 0,
 * -EINVAL or -ERANGE (above max).
 */
static int parse_unsigned(const char *s, int base, unsigned long long max,
			  unsigned long long *val)
{
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || *val > max)
		return -ERANGE;
	return 0;
}

/* ---- -m sizes (perf's parse_pages_arg) --------------------------------- */

struct tag_mult {
	char			tag;
	unsigned long long	mult;
};

/* perf's parse_tag_value() tables: sizes (-m, --switch-output) and times. */
static const struct tag_mult size_tags[] = {
	{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 }, { 0, 0 },
};
static const struct tag_mult time_tags[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 60 * 60 }, { 'd', 24 * 60 * 60 }, { 0, 0 },
};

/*
 * A number followed by one of the tags, times the tag's multiplier. -EINVAL
 * when there is no tag or the number is malformed, -ERANGE above max.
 */
static int parse_tagged(const char *str, const struct tag_mult *tags, unsigned long long max,
			unsigned long long *val)
{
	size_t len = strlen(str);
	unsigned long long v;
	char num[32];
	int err;

	if (len < 2 || len >= sizeof(num))
		return -EINVAL;
	for (; tags->tag; tags++) {
		if (str[len - 1] != tags->tag)
			continue;
		memcpy(num, str, len - 1);
		num[len - 1] = '\0';
		err = parse_unsigned(num, 10, max / tags->mult, &v);
		if (err)
			return err;
		*val = v * tags->mult;
		return 0;
	}
	return -EINVAL;
}

/* N[BKMG] in bytes; -EINVAL when there is no tag or it is malformed, -ERANGE on overflow. */
static int parse_size_tag(const char *str, unsigned long long *bytes)
{
	return parse_tagged(str, size_tags, ULLONG_MAX, bytes);
}

static unsigned long long roundup_pow2(unsigned long long n)
{
	unsigned long long p = 1;

	while (p < n && p <= ULLONG_MAX / 2)
		p <<= 1;
	return p < n ? 0 : p;
}

/*
 * Pages, or -EINVAL (syntax) or -ERANGE (more than UINT_MAX pages, perf's
 * limit); *rounded_from is what was asked when it was not a power of two.
 */
static long mmap_pages__parse(const char *str, long page_size, unsigned long long *rounded_from)
{
	unsigned long long pages, bytes;
	int err;

	*rounded_from = 0;
	if (!str || page_size <= 0)
		return -EINVAL;
	err = parse_size_tag(str, &bytes);
	if (err == 0)
		pages = bytes / page_size + (bytes % page_size != 0);
	else if (err == -ERANGE)
		return err;
	else if ((err = parse_unsigned(str, 10, ULLONG_MAX, &pages)))
		return err;
	if (pages == 0 || (pages & (pages - 1))) {
		/* perf rounds 0 up to 1 page too, with the same note */
		*rounded_from = pages ? pages : 1;
		pages = roundup_pow2(pages);
		if (!pages)
			return -ERANGE;
	}
	if (pages > UINT_MAX)
		return -ERANGE;
	return (long)pages;
}

long parse_mmap_pages(const char *str, long page_size)
{
	unsigned long long rounded_from;

	return mmap_pages__parse(str, page_size, &rounded_from);
}

/* perf's unit_number__scnprintf(): 16K, 1024K, 2M. */
static void unit_number(char *buf, size_t size, unsigned long long n)
{
	static const char units[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, size, "%llu%c", n, units[i]);
}

/* ---- handlers ---------------------------------------------------------- */

static int opt_bool(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	*(bool *)((char *)ctx->opts + def->field) = !unset;
	if (def->set_field)
		*(bool *)((char *)ctx->opts + def->set_field) = true;
	return 0;
}

static int opt_event(struct parse_ctx *ctx, const struct opt_def *def,
		     const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	const char **events;
	const char *s = arg;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return bad_value(ctx, def, arg,
				 "expected an event name; 'perf list' shows the events");
	events = realloc(opts->events, (opts->nr_events + 1) * sizeof(*events));
	if (!events)
		return opt_error(ctx, -ENOMEM, "out of memory parsing -e/--event '%s'", arg);
	events[opts->nr_events++] = arg;
	opts->events = events;
	return 0;
}

static int opt_count(struct parse_ctx *ctx, const struct opt_def *def,
		     const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 0, ULLONG_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of events per sample");
	ctx->opts->count = v;
	return 0;
}

static int opt_freq(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	unsigned long long v;

	if (!strcasecmp(arg, "max")) {
		opts->freq_max = true;
		opts->freq_set = true;
		return 0;
	}
	if (parse_unsigned(arg, 10, UINT_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg,
				 "expected a positive number of samples per second, or 'max'");
	opts->freq = (unsigned int)v;
	opts->freq_set = true;
	opts->freq_max = false;
	return 0;
}

/* -g: call graphs, frame pointers unless --call-graph chose a mode (as perf). */
static int opt_g(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	if (ctx->opts->callgraph == CALLGRAPH_NONE)
		ctx->opts->callgraph = CALLGRAPH_FP;
	return 0;
}

/* "fp[,DEPTH]" */
static int call_graph_fp(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, const char *rest)
{
	unsigned long long v = 0;

	if (rest && parse_unsigned(rest, 0, UINT_MAX, &v))
		return bad_value(ctx, def, arg,
				 "expected fp,DEPTH with DEPTH the most stack frames to record");
	ctx->opts->callgraph = CALLGRAPH_FP;
	ctx->opts->max_stack = (unsigned int)v;
	return 0;
}

/* "dwarf[,SIZE]": perf's get_stack_size() rounds up to 8 bytes, at most 65528. */
static int call_graph_dwarf(struct parse_ctx *ctx, const struct opt_def *def,
			    const char *arg, const char *rest)
{
	unsigned long long v = DEFAULT_DWARF_SIZE;
	char expect[96];

	if (rest) {
		snprintf(expect, sizeof(expect),
			 "stack dump size must be 1 to %u bytes (dwarf,SIZE)", MAX_DWARF_SIZE);
		if (parse_unsigned(rest, 0, MAX_DWARF_SIZE, &v) || v == 0)
			return bad_value(ctx, def, arg, expect);
		v = (v + 7) & ~7ULL;
	}
	ctx->opts->callgraph = CALLGRAPH_DWARF;
	ctx->opts->dwarf_stack_size = (u32)v;
	return 0;
}

static int opt_call_graph(struct parse_ctx *ctx, const struct opt_def *def,
			  const char *arg, bool unset)
{
	const char *comma, *rest;
	char mode[16];
	size_t len;

	if (unset) {
		ctx->opts->callgraph = CALLGRAPH_NONE;
		return 0;
	}
	comma = strchr(arg, ',');
	len = comma ? (size_t)(comma - arg) : strlen(arg);
	rest = comma && comma[1] ? comma + 1 : NULL;	/* "dwarf," is "dwarf", as perf */
	if (len >= sizeof(mode))
		len = sizeof(mode) - 1;
	memcpy(mode, arg, len);
	mode[len] = '\0';

	if (!strcmp(mode, "fp"))
		return call_graph_fp(ctx, def, arg, rest);
	if (!strcmp(mode, "dwarf"))
		return call_graph_dwarf(ctx, def, arg, rest);
	if (!strcmp(mode, "lbr")) {
		/* perf's parse_callchain_record(): lbr takes no argument */
		if (rest)
			return bad_value(ctx, def, arg, "no more arguments are needed for lbr");
		ctx->opts->callgraph = CALLGRAPH_LBR;
		return 0;
	}
	return bad_value(ctx, def, arg, "expected fp[,DEPTH], dwarf[,SIZE] or lbr");
}

static int opt_verbose(struct parse_ctx *ctx, const struct opt_def *def,
		       const char *arg, bool unset)
{
	ctx->opts->verbose++;
	return 0;
}

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
static int opt_mmap_pages(struct parse_ctx *ctx, const struct opt_def *def,
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

static int opt_output(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset)
{
	if (!*arg)
		return bad_value(ctx, def, arg, "expected a file name, or - for stdout");
	ctx->opts->output = arg;
	ctx->opts->output_set = true;
	return 0;
}

/* One "START-END" of a -D list at s (blanks allowed around both): its end, or NULL. */
static const char *parse_delay_range(const char *s, int range[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		const char *end;
		u64 v;

		while (isblank((unsigned char)*s))
			s++;
		if (!isdigit((unsigned char)*s) || parse__u64(s, 10, &v, &end) || v > INT_MAX)
			return NULL;
		range[i] = (int)v;
		s = end;
		while (isblank((unsigned char)*s))
			s++;
		if (i == 0 && *s++ != '-')
			return NULL;
	}
	return range[1] > range[0] ? s : NULL;
}

/*
 * -D MS (a delay; -1: start disabled) or -D START-END[,START-END...]: the
 * time ranges, in ms after the start, in which events are on, each after
 * the one before (perf's evlist__parse_event_enable_time()). As in perf,
 * 0 is neither.
 */
static int opt_delay(struct parse_ctx *ctx, const struct opt_def *def,
		     const char *arg, bool unset)
{
	static const char want[] = "expected milliseconds (-1: start with events disabled) or "
				   "ranges of milliseconds to record, like 10-20,30-40";
	unsigned long long v;
	int range[2], *times = NULL, n = 0;
	const char *s = arg;

	(void)unset;
	free(ctx->opts->delay_times);
	ctx->opts->delay_times = NULL;
	ctx->opts->nr_delay_times = 0;
	if (!strcmp(arg, "-1")) {
		ctx->opts->delay_ms = -1;
		return 0;
	}
	if (!parse_unsigned(arg, 10, INT_MAX, &v)) {
		if (!v)
			return bad_value(ctx, def, arg, want);
		ctx->opts->delay_ms = (int)v;
		return 0;
	}
	while (*s) {
		int *grown;

		if (n && *s++ != ',')
			break;
		s = parse_delay_range(s, range);
		if (s && n && range[0] <= times[n - 1])
			s = NULL;	/* overlaps or touches the range before */
		if (!s)
			break;
		grown = realloc(times, (size_t)(n + 2) * sizeof(*times));
		if (!grown) {
			free(times);
			return opt_error(ctx, -ENOMEM, "out of memory parsing -D '%s'", arg);
		}
		times = grown;
		times[n++] = range[0];
		times[n++] = range[1];
	}
	if (!s || *s || !n) {
		free(times);
		return bad_value(ctx, def, arg, want);
	}
	ctx->opts->delay_times = times;
	ctx->opts->nr_delay_times = n;
	ctx->opts->delay_ms = times[0];	/* 0: on from the start until the first end */
	return 0;
}

/* perf's clockid names, case-insensitive, with an optional CLOCK_ prefix. */
static const struct {
	const char	*name;
	int		clockid;
} clockids[] = {
	{ "monotonic",		CLOCK_MONOTONIC },
	{ "monotonic_raw",	CLOCK_MONOTONIC_RAW },
	{ "realtime",		CLOCK_REALTIME },
	{ "boottime",		CLOCK_BOOTTIME },
	{ "tai",		CLOCK_TAI },
	{ "mono",		CLOCK_MONOTONIC },
	{ "raw",		CLOCK_MONOTONIC_RAW },
	{ "real",		CLOCK_REALTIME },
	{ "boot",		CLOCK_BOOTTIME },
};

static int opt_clockid(struct parse_ctx *ctx, const struct opt_def *def,
		       const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	const char *name = arg;
	unsigned long long v;
	size_t i;

	if (unset) {
		opts->clockid_set = false;
		return 0;
	}
	if (opts->clockid_set)
		return opt_error(ctx, -EINVAL,
				 "-k/--clockid given twice ('%s'): give one clock", arg);
	if (parse_unsigned(arg, 10, INT_MAX, &v) == 0) {
		struct timespec res;

		/* as perf: a clock this kernel does not have is refused, not dropped */
		if (clock_getres((clockid_t)v, &res) < 0)
			return bad_value(ctx, def, arg, "no such clock on this machine; use monotonic, "
					 "monotonic_raw, realtime, boottime or tai");
		opts->clockid = (int)v;
		opts->clockid_set = true;
		return 0;
	}
	if (!strncasecmp(name, "CLOCK_", 6))
		name += 6;
	for (i = 0; i < ARRAY_SIZE(clockids); i++) {
		if (!strcasecmp(name, clockids[i].name)) {
			opts->clockid = clockids[i].clockid;
			opts->clockid_set = true;
			return 0;
		}
	}
	return bad_value(ctx, def, arg,
			 "unknown clockid; use monotonic, monotonic_raw, realtime, boottime, tai or a number");
}

static int opt_realtime(struct parse_ctx *ctx, const struct opt_def *def,
			const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, 99, &v) || v < 1)
		return bad_value(ctx, def, arg, "expected a SCHED_FIFO priority from 1 to 99");
	ctx->opts->realtime_prio = (int)v;
	return 0;
}

static int opt_cpu(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	int err = cpu_map__check_list(arg);

	if (err == -ENOMEM)
		return opt_error(ctx, err, "out of memory parsing -C/--cpu '%s'", arg);
	if (err)
		return opt_error(ctx, -EINVAL,
				 "invalid CPU list '%s' for -C/--cpu: expected CPU numbers and ranges such as 0-3,6",
				 arg);
	ctx->opts->cpu_list = arg;
	return 0;
}

static int opt_pid(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	if (thread_map__check_list(arg))
		return opt_error(ctx, -EINVAL,
				 "invalid pid list '%s' for -p/--pid: expected process ids such as 1234,5678",
				 arg);
	ctx->opts->pid_list = arg;
	return 0;
}

static int opt_tid(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	if (thread_map__check_list(arg))
		return opt_error(ctx, -EINVAL,
				 "invalid tid list '%s' for -t/--tid: expected thread ids such as 1234,5678",
				 arg);
	ctx->opts->tid_list = arg;
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
static int opt_synth(struct parse_ctx *ctx, const struct opt_def *def,
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

static int opt_proc_map_timeout(struct parse_ctx *ctx, const struct opt_def *def,
				const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, UINT_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of milliseconds");
	ctx->opts->proc_map_timeout = (unsigned int)v;
	return 0;
}

static int opt_nr_threads_synth(struct parse_ctx *ctx, const struct opt_def *def,
				const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, INT_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of threads");
	ctx->opts->nr_threads_synthesize = (int)v;
	return 0;
}

/* -z/--compression-level[=N]: zstd level 1..22, 1 without a value (perf's). */
static int opt_compression(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_aio(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_mmap_flush(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_threads(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_max_size(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_affinity(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_sb_event(struct parse_ctx *ctx, const struct opt_def *def,
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
static int opt_switch_output(struct parse_ctx *ctx, const struct opt_def *def,
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

static int opt_switch_max_files(struct parse_ctx *ctx, const struct opt_def *def,
				const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, INT_MAX, &v))
		return bad_value(ctx, def, arg, "expected a number of files (0: keep all)");
	ctx->opts->switch_max_files = (int)v;
	return 0;
}

/* --control: the syntax is checked when the channel is opened (control__open). */
static int opt_control(struct parse_ctx *ctx, const struct opt_def *def,
		       const char *arg, bool unset)
{
	if (strncmp(arg, "fd:", 3) && strncmp(arg, "fifo:", 5))
		return bad_value(ctx, def, arg, "expected fd:CTL[,ACK] or fifo:CTL[,ACK]");
	ctx->opts->control = arg;
	return 0;
}

/* ---- -I and --user-regs: register names (perf's parse-regs-options.c) --- */

/*
 * x86-64's sample registers by their perf_regs.h bit (perf's
 * sample_reg_masks). XMM0-15 (two bits each) only exist for -I, and only
 * where the PMU samples them (regs__intr_mask()).
 */
static const struct sample_reg {
	const char	*name;
	u64		mask;
} sample_regs[] = {
	{ "AX", 1ULL << 0 },	{ "BX", 1ULL << 1 },	{ "CX", 1ULL << 2 },
	{ "DX", 1ULL << 3 },	{ "SI", 1ULL << 4 },	{ "DI", 1ULL << 5 },
	{ "BP", 1ULL << 6 },	{ "SP", 1ULL << 7 },	{ "IP", 1ULL << 8 },
	{ "FLAGS", 1ULL << 9 },	{ "CS", 1ULL << 10 },	{ "SS", 1ULL << 11 },
	{ "DS", 1ULL << 12 },	{ "ES", 1ULL << 13 },	{ "FS", 1ULL << 14 },
	{ "GS", 1ULL << 15 },	{ "R8", 1ULL << 16 },	{ "R9", 1ULL << 17 },
	{ "R10", 1ULL << 18 },	{ "R11", 1ULL << 19 },	{ "R12", 1ULL << 20 },
	{ "R13", 1ULL << 21 },	{ "R14", 1ULL << 22 },	{ "R15", 1ULL << 23 },
	{ "XMM0", 3ULL << 32 },	{ "XMM1", 3ULL << 34 },	{ "XMM2", 3ULL << 36 },
	{ "XMM3", 3ULL << 38 },	{ "XMM4", 3ULL << 40 },	{ "XMM5", 3ULL << 42 },
	{ "XMM6", 3ULL << 44 },	{ "XMM7", 3ULL << 46 },	{ "XMM8", 3ULL << 48 },
	{ "XMM9", 3ULL << 50 },	{ "XMM10", 3ULL << 52 },	{ "XMM11", 3ULL << 54 },
	{ "XMM12", 3ULL << 56 },	{ "XMM13", 3ULL << 58 },	{ "XMM14", 3ULL << 60 },
	{ "XMM15", 3ULL << 62 },
};

/* perf's PERF_REGS_MASK on x86-64: the general registers less DS, ES, FS, GS. */
#define REGS_MASK		(((1ULL << 24) - 1) & ~(0xfULL << 12))
#define REGS_EXTENDED_MASK	(~((1ULL << 32) - 1))

/*
 * The registers -I may name: the XMM ones too when the PMU samples them,
 * which perf's arch__intr_reg_mask() finds by opening a precise cycles
 * event that asks for them. The one question parse asks the machine: the
 * names it accepts depend on the answer, as in perf.
 */
static u64 regs__intr_mask(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_REGS_INTR,
		.sample_regs_intr = REGS_EXTENDED_MASK,
		.precise_ip = 1,
		.disabled = 1,
		.exclude_kernel = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return REGS_MASK;
	close(fd);
	return REGS_MASK | REGS_EXTENDED_MASK;
}

/* "available registers: AX BX ..." on stderr, as perf's "-I?" prints it. */
static void regs__list(u64 mask)
{
	size_t i;

	fprintf(stderr, "available registers: ");
	for (i = 0; i < ARRAY_SIZE(sample_regs); i++)
		if (sample_regs[i].mask & mask)
			fprintf(stderr, "%s ", sample_regs[i].name);
	fputc('\n', stderr);
}

/*
 * "REG[,REG...]" into *regs (every register of mask when there is no list);
 * "?" lists the registers and stops the parse as -h does. As perf: names in
 * any case, a register outside mask is unknown, and the option may be
 * given once.
 */
static int parse_regs(struct parse_ctx *ctx, const struct opt_def *def, const char *arg,
		      bool unset, bool intr, u64 *regs)
{
	const char *how = intr ? "-I" : "--user-regs=";
	const char *w = arg;
	char name[64];
	u64 mask, found;
	size_t i, len;

	if (unset) {
		*regs = 0;
		return 0;
	}
	if (*regs)
		return opt_error(ctx, -EINVAL, "%s given twice: give one list of registers",
				 intr ? "-I/--intr-regs" : "--user-regs");
	mask = intr ? regs__intr_mask() : REGS_MASK;
	for (; w; w = w[len] ? w + len + 1 : NULL) {
		len = strcspn(w, ",");
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), w);
		if (!strcmp(name, "?")) {
			regs__list(mask);
			*regs = 0;
			return 1;
		}
		found = 0;
		for (i = 0; i < ARRAY_SIZE(sample_regs) && !found; i++)
			if ((sample_regs[i].mask & mask) && !strcasecmp(name, sample_regs[i].name))
				found = sample_regs[i].mask;
		if (!found)
			return opt_error(ctx, -EINVAL,
					 "unknown register \"%s\"; 'precord %s?' lists the registers",
					 name, how);
		*regs |= found;
	}
	if (!*regs)
		*regs = mask;
	return 0;
}

static int opt_intr_regs(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	return parse_regs(ctx, def, arg, unset, true, &ctx->opts->sample_intr_regs);
}

static int opt_user_regs(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	return parse_regs(ctx, def, arg, unset, false, &ctx->opts->sample_user_regs);
}

/*
 * --filter: for the evsels of the last -e (perf's parse_filter(), which
 * fails the same way without one); whether they take a filter is known
 * once the events are parsed.
 */
static int opt_filter(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	struct record_filter *f;

	if (!opts->nr_events)
		return opt_error(ctx, -EINVAL,
				 "--filter option should follow a -e tracepoint or HW tracer option");
	f = realloc(opts->filters, (opts->nr_filters + 1) * sizeof(*f));
	if (!f)
		return opt_error(ctx, -ENOMEM, "out of memory parsing --filter '%s'", arg);
	f[opts->nr_filters].event = opts->nr_events - 1;
	f[opts->nr_filters].filter = arg;
	opts->filters = f;
	opts->nr_filters++;
	return 0;
}

/*
 * --exclude-perf: perf's "common_pid != <pid>" for the tracepoints of the
 * last -e, kept in order with --filter's. perf takes --no-exclude-perf
 * as the same.
 */
static int opt_exclude_perf(struct parse_ctx *ctx, const struct opt_def *def,
			    const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	struct record_filter *f;

	if (!opts->nr_events)
		return opt_error(ctx, -EINVAL,
				 "--exclude-perf option should follow a -e tracepoint option");
	f = realloc(opts->filters, (opts->nr_filters + 1) * sizeof(*f));
	if (!f)
		return opt_error(ctx, -ENOMEM, "out of memory parsing --exclude-perf");
	f[opts->nr_filters].event = opts->nr_events - 1;
	f[opts->nr_filters].filter = NULL;
	opts->filters = f;
	opts->nr_filters++;
	return 0;
}

/* -u/--uid: the name is looked up when the recording is set up, as perf does. */
static int opt_uid(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	if (!*arg)
		return bad_value(ctx, def, arg, "expected a user name or uid");
	ctx->opts->uid_str = arg;
	return 0;
}

/* -G/--cgroup: after an -e (perf's parse_cgroups()); the cgroups are opened at set-up. */
static int opt_cgroup(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset)
{
	struct record_opts *opts = ctx->opts;
	struct record_cgroup *g;

	if (!opts->nr_events)
		return opt_error(ctx, -EINVAL,
				 "must define events before cgroups: give -e before -G/--cgroup");
	g = realloc(opts->cgroups, (opts->nr_cgroups + 1) * sizeof(*g));
	if (!g)
		return opt_error(ctx, -ENOMEM, "out of memory parsing -G/--cgroup '%s'", arg);
	g[opts->nr_cgroups].event = opts->nr_events - 1;
	g[opts->nr_cgroups].names = arg;
	opts->cgroups = g;
	opts->nr_cgroups++;
	return 0;
}

/* The first word of a -j list perf's table lacks (perf names it), and its length. */
static const char *branch_bad_word(const char *list, size_t *len)
{
	const char *w = list;

	for (;;) {
		size_t n = strcspn(w, ",");
		char word[32];
		u64 m = 0;

		if (!n || n >= sizeof(word))
			break;
		memcpy(word, w, n);
		word[n] = '\0';
		if (parse_events__branch_str(word, &m) || !w[n])
			break;
		w += n + 1;
	}
	*len = strcspn(w, ",");
	return w;
}

/*
 * -b (any taken branch) and -j FILTERS (perf's parse_branch_stack()): one
 * of them, once; the names are perf 6.1's parse_branch_str() table.
 */
static int opt_branch(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset)
{
	u64 mode = 0;
	const char *bad;
	size_t len;

	if (unset)
		return 0;
	if (ctx->opts->branch_stack)
		return opt_error(ctx, -EINVAL,
				 "Can't use --branch-any (-b) with --branch-filter (-j): give one of them once");
	if (!arg) {
		ctx->opts->branch_stack = PERF_SAMPLE_BRANCH_ANY;
		return 0;
	}
	if (parse_events__branch_str(arg, &mode)) {
		bad = branch_bad_word(arg, &len);
		return opt_error(ctx, -EINVAL,
				 "unknown branch filter %.*s, check man page (-j takes u, k, hv, any, "
				 "any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, in_tx, "
				 "no_tx, save_type, stack, priv)", (int)len, bad);
	}
	ctx->opts->branch_stack = mode;
	return 0;
}

/* -S/--snapshot[=opts], --aux-sample[=opts]: kept; set-up refuses them as perf does. */
static int opt_snapshot(struct parse_ctx *ctx, const struct opt_def *def,
			const char *arg, bool unset)
{
	ctx->opts->snapshot_opts = unset ? NULL : arg ? arg : "";
	return 0;
}

static int opt_aux_sample(struct parse_ctx *ctx, const struct opt_def *def,
			  const char *arg, bool unset)
{
	ctx->opts->aux_sample_opts = unset ? NULL : arg ? arg : "";
	return 0;
}

/* --off-cpu: perf 6.1 built without its BPF skeleton warns and goes on; so does precord. */
static int opt_off_cpu(struct parse_ctx *ctx, const struct opt_def *def,
		       const char *arg, bool unset)
{
	ctx->opts->off_cpu = !unset;
	if (!unset)
		opts__warn(ctx->opts, "Warning: option `off-cpu' is being ignored: precord has no "
			   "BPF off-CPU profiler (perf's needs BUILD_BPF_SKEL=1)");
	return 0;
}

/* --clang-path, --clang-opt: perf's, for BPF source events (which precord has not). */
static int opt_clang_path(struct parse_ctx *ctx, const struct opt_def *def,
			  const char *arg, bool unset)
{
	ctx->opts->clang_path = arg;
	return 0;
}

static int opt_clang_opt(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset)
{
	ctx->opts->clang_opt = arg;
	return 0;
}

static int opt_help(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset)
{
	record_opts__usage();
	return 1;
}

static int opt_unsupported(struct parse_ctx *ctx, const struct opt_def *def,
			   const char *arg, bool unset)
{
	char name[64];

	return opt_error(ctx, -EINVAL, "option '%s' is not supported by precord yet",
			 opt_name(def, name, sizeof(name)));
}

/* ---- the table --------------------------------------------------------- */

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
static const struct opt_def record_options[] = {
	OPT_BOOL('a', "all-cpus", system_wide, "system-wide collection from all CPUs"),
	{ 'b', "branch-any", OPT_ARG_NONE, OPT_NEGATABLE, NULL, "sample any taken branches",
	  opt_branch, 0, 0 },
	OPT_BOOL('B', "no-buildid", no_buildid, "do not collect buildids in perf.data"),
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
	OPT_BOOL('N', "no-buildid-cache", no_buildid_cache,
		 "do not update the buildid cache (precord never does)"),
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
	OPT_PERF_ONLY(0, "buildid-all"),
	OPT_BOOL(0, "buildid-mmap", buildid_mmap,
		 "record build ids in mmap events (default; --no-buildid-mmap: don't)"),
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
	OPT_PERF_ONLY(0, "debuginfod"),
	OPT_BOOL(0, "dry-run", dry_run, "parse options then exit"),
	{ 0, "exclude-perf", OPT_ARG_NONE, OPT_NEGATABLE, NULL,
	  "don't record events from perf itself (its main thread: the -e tracepoints before it)",
	  opt_exclude_perf, 0, 0 },
	OPT_VALUE(0, "filter", "<filter>", opt_filter,
		  "event filter, for the events of the -e before it"),
	OPT_BOOL(0, "group", group, "put the counters into a counter group"),
	OPT_PERF_ONLY(0, "kcore"),
	OPT_BOOL(0, "kernel-callchains", kernel_callchains, "collect kernel callchains"),
	{ 0, "max-size", OPT_ARG_REQUIRED, OPT_NEGATABLE, "<size>",
	  "stop recording once the output holds this many bytes (B/K/M/G)", opt_max_size, 0, 0 },
	OPT_BOOL(0, "mmap-output", mmap_output,
		 "write through a shared mapping of the file, 64 MiB at a time, instead of write()"),
	OPT_VALUE(0, "mmap-flush", "<size>", opt_mmap_flush,
		  "the fewest bytes taken from a ring at once (default 1, at most a quarter of it)"),
	OPT_BOOL(0, "namespaces", record_namespaces, "record namespaces events"),
	OPT_PERF_ONLY(0, "no-bpf-event"),
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
	OPT_PERF_ONLY(0, "vmlinux"),
};

/* ---- the scanner ------------------------------------------------------- */

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

	for (i = 0; keylen && i < ARRAY_SIZE(record_options); i++) {
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

	for (i = 0; i < ARRAY_SIZE(record_options); i++) {
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

/* ---- after the options: perf's cross-option rules ---------------------- */

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

static int record_opts__finish(struct parse_ctx *ctx)
{
	struct record_opts *opts = ctx->opts;
	int ret;

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

/* ---- --help ------------------------------------------------------------ */

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

	for (i = 0; i < ARRAY_SIZE(record_options); i++) {
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
	for (i = 0; i < ARRAY_SIZE(record_options); i++) {
		if (!(record_options[i].flags & OPT_UNSUPPORTED))
			usage_line(&record_options[i]);
	}
	printf("\n perf record options precord refuses (not supported yet):\n");
	usage_unsupported();
	printf("\n See precord(1) and perf-record(1).\n\n");
}
