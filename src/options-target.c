// SPDX-License-Identifier: GPL-2.0
/*
 * options-target.c — the options that say what is recorded and when:
 * -C, -p, -t, -u, -G, -D/--delay, -k/--clockid, -r/--realtime.
 *
 * Data flow: each handler checks the form of its value (a CPU list, pids, a
 * clock name) and stores it in struct record_opts; whether those CPUs
 * and tasks exist is the set-up's to check.
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
int opt_delay(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_clockid(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_realtime(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset)
{
	unsigned long long v;

	if (parse_unsigned(arg, 10, 99, &v) || v < 1)
		return bad_value(ctx, def, arg, "expected a SCHED_FIFO priority from 1 to 99");
	ctx->opts->realtime_prio = (int)v;
	return 0;
}

int opt_cpu(struct parse_ctx *ctx, const struct opt_def *def,
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

int opt_pid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset)
{
	if (thread_map__check_list(arg))
		return opt_error(ctx, -EINVAL,
				 "invalid pid list '%s' for -p/--pid: expected process ids such as 1234,5678",
				 arg);
	ctx->opts->pid_list = arg;
	return 0;
}

int opt_tid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset)
{
	if (thread_map__check_list(arg))
		return opt_error(ctx, -EINVAL,
				 "invalid tid list '%s' for -t/--tid: expected thread ids such as 1234,5678",
				 arg);
	ctx->opts->tid_list = arg;
	return 0;
}

/* -u/--uid: the name is looked up when the recording is set up, as perf does. */
int opt_uid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset)
{
	if (!*arg)
		return bad_value(ctx, def, arg, "expected a user name or uid");
	ctx->opts->uid_str = arg;
	return 0;
}

/* -G/--cgroup: after an -e (perf's parse_cgroups()); the cgroups are opened at set-up. */
int opt_cgroup(struct parse_ctx *ctx, const struct opt_def *def,
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
