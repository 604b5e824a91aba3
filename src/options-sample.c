// SPDX-License-Identifier: GPL-2.0
/*
 * options-sample.c — the options that say what is sampled and what a
 * sample holds: -e, --filter and --exclude-perf, -c, -F, -g and
 * --call-graph, -I and --user-regs (the registers the PMU can sample),
 * -b/-j (branch stacks), --off-cpu, and the clang options of perf's BPF
 * events.
 *
 * Data flow: each handler checks its value and stores it in struct record_opts;
 * -e strings are kept as given, for the set-up to parse (parse-events.c).
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

int opt_event(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_count(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 0, ULLONG_MAX, &v) || v == 0)
		return bad_value(ctx, def, arg, "expected a positive number of events per sample");
	ctx->opts->count = v;
	return 0;
}

int opt_freq(struct parse_ctx *ctx, const struct opt_def *def,
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
int opt_g(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_call_graph(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_intr_regs(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset)
{
	return parse_regs(ctx, def, arg, unset, true, &ctx->opts->sample_intr_regs);
}

int opt_user_regs(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset)
{
	return parse_regs(ctx, def, arg, unset, false, &ctx->opts->sample_user_regs);
}

/*
 * --filter: for the evsels of the last -e (perf's parse_filter(), which
 * fails the same way without one); whether they take a filter is known
 * once the events are parsed.
 */
int opt_filter(struct parse_ctx *ctx, const struct opt_def *def,
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
int opt_exclude_perf(struct parse_ctx *ctx, const struct opt_def *def,
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
int opt_branch(struct parse_ctx *ctx, const struct opt_def *def,
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

/* --off-cpu: perf 6.1 built without its BPF skeleton warns and goes on; so does precord. */
int opt_off_cpu(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset)
{
	ctx->opts->off_cpu = !unset;
	if (!unset)
		opts__warn(ctx->opts, "Warning: option `off-cpu' is being ignored: precord has no "
			   "BPF off-CPU profiler (perf's needs BUILD_BPF_SKEL=1)");
	return 0;
}

/* --clang-path, --clang-opt: perf's, for BPF source events (which precord has not). */
int opt_clang_path(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset)
{
	ctx->opts->clang_path = arg;
	return 0;
}

int opt_clang_opt(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset)
{
	ctx->opts->clang_opt = arg;
	return 0;
}
