// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events-tracepoint.c — tracepoint events in -e ("sched:sched_switch",
 * globs such as "sched:*" or "*:sched_*"), with their terms and filters.
 *
 * Data flow: the grammar hands the system and event names to
 * parser__tracepoint(); tracefs.c finds tracefs (mounted or not), reads
 * each tracepoint's id and iterates the globs; each match becomes an evsel
 * of type PERF_TYPE_TRACEPOINT in the parse state. A missing tracefs or
 * tracepoint is one line saying which and what to do. Runs on the parsing
 * thread.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse-events-internal.h"

struct tp_ctx {
	struct parser		*p;
	const struct evsel_terms *et;
	bool			any_sys;	/* the system part is a glob */
	int			added;
};

static int tracepoint__add(struct tp_ctx *ctx, const char *sys, const char *name, int id)
{
	struct perf_event_attr attr;
	struct evsel *evsel;
	char evname[512];

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (u64)id;
	snprintf(evname, sizeof(evname), "%s:%s", sys, name);
	evsel = parse_state__add(ctx->p->ps, &attr, evname, ctx->et);
	if (!evsel)
		return -ENOMEM;
	evsel->tp_sys = strdup(sys);
	evsel->tp_name = strdup(name);
	return evsel->tp_sys && evsel->tp_name ? 0 : -ENOMEM;
}

static int tracepoint__add_match(void *arg, const char *sys, const char *name)
{
	struct tp_ctx *ctx = arg;
	struct parse_state *ps = ctx->p->ps;
	int id = tracefs__event_id(sys, name), err;

	/*
	 * As perf: a glob passes over what has no id, and a glob of systems
	 * over ftrace's, which are no tracepoints perf_event_open() takes.
	 */
	if (id == -ENOENT || (ctx->any_sys && !strcmp(sys, "ftrace")))
		return 0;
	if (id < 0)
		return parse_events__error(ps->err, id,
			"event '%s': cannot read the id of tracepoint %s:%s: %s",
			ps->event, sys, name, strerror(-id));
	err = tracepoint__add(ctx, sys, name, id);
	if (err)
		return parse_state__nomem(ps);
	ctx->added++;
	return 0;
}

static bool tracepoint__is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int tracepoint__tracefs_error(struct parse_state *ps, const char *mnt, int errnum)
{
	if (errnum == -EACCES || errnum == -EPERM)
		return parse_events__error(ps->err, -EACCES,
			"event '%s': no permission to read %s/events; run as root or try 'mount -o remount,mode=755 %s'",
			ps->event, mnt, mnt);
	return parse_events__error(ps->err, errnum, "event '%s': cannot read %s/events: %s",
				   ps->event, mnt, strerror(-errnum));
}

static int tracepoint__parse(struct parser *p, const char *sys, const char *name,
			     const struct evsel_terms *et)
{
	struct parse_state *ps = p->ps;
	struct tp_ctx ctx = { .p = p, .et = et };
	const char *mnt = tracefs__path();
	int ret;

	if (!mnt && errno == EACCES)
		return parse_events__error(ps->err, -EACCES,
			"event '%s' is a tracepoint and tracefs is not mounted; as root, run '%s'",
			ps->event, TRACEFS_MOUNT);
	if (!mnt)
		return parse_events__error(ps->err, -ENODEV,
			"event '%s' is a tracepoint and this kernel has no tracefs (CONFIG_TRACING)",
			ps->event);
	if (!*sys || !*name || strchr(sys, '/') || strchr(name, '/') ||
	    !strcmp(sys, ".") || !strcmp(sys, "..") || !strcmp(name, ".") || !strcmp(name, ".."))
		return parse_events__error(ps->err, -ENOENT,
			"event '%s' is not known; " PERF_LIST_HINT, ps->event);

	if (tracepoint__is_glob(sys) || tracepoint__is_glob(name)) {
		ctx.any_sys = tracepoint__is_glob(sys);
		ps->err->msg[0] = '\0';
		ret = tracefs__for_each_event(sys, name, tracepoint__add_match, &ctx);
		if (ret == 0 || (ret > 0 && !ctx.added))
			return parse_events__error(ps->err, -ENOENT,
				"event '%s' matches no tracepoint in %s/events; " PERF_LIST_HINT,
				ps->event, mnt);
		if (ret < 0 && !ps->err->msg[0])
			return tracepoint__tracefs_error(ps, mnt, ret);
		return ret < 0 ? ret : 0;
	}

	ret = tracefs__event_id(sys, name);
	if (ret == -ENOENT)
		return parse_events__error(ps->err, -ENOENT,
			"event '%s' is not known (no %s/events/%s/%s); " PERF_LIST_HINT,
			ps->event, mnt, sys, name);
	if (ret < 0)
		return tracepoint__tracefs_error(ps, mnt, ret);
	if (tracepoint__add(&ctx, sys, name, ret))
		return parse_state__nomem(ps);
	return 0;
}

/* NAME ':' NAME | NAME '-' NAME ':' NAME, then opt_event_config sep_dc; at the second token. */
int parser__tracepoint(struct parser *p, const struct token *first)
{
	struct perf_event_attr attr;
	struct evsel_terms et;
	struct terms ts = { 0 };
	char *sys = NULL, *name = NULL;
	int err = -EINVAL;

	if (parser__accept(p, '-')) {
		if (p->tok.type != T_NAME)
			return parser__syntax(p);
		if (asprintf(&sys, "%.*s-%.*s", (int)first->tlen, first->text,
			     (int)p->tok.tlen, p->tok.text) < 0)
			return parse_state__nomem(p->ps);
		parser__next(p);
	} else {
		sys = tok__strdup(first);
		if (!sys)
			return parse_state__nomem(p->ps);
	}
	if (p->tok.type == T_END || p->tok.type == ',' || p->tok.type == '}') {
		err = parse_events__error(p->ps->err, -ENOENT,
			"event '%s' is not known; " PERF_LIST_HINT, p->ps->event);
		goto out;
	}
	if (parser__expect(p, ':'))
		goto out;
	if (p->tok.type != T_NAME) {
		err = parser__syntax(p);
		goto out;
	}
	name = tok__strdup(&p->tok);
	if (!name) {
		err = parse_state__nomem(p->ps);
		goto out;
	}
	parser__next(p);
	err = parser__opt_terms(p, &ts);
	if (err)
		goto out;
	memset(&attr, 0, sizeof(attr));
	err = terms__check(p, &ts, &attr, TERMS_TRACEPOINT);
	if (err)
		goto out;
	terms__to_evsel(&ts, &et);
	err = tracepoint__parse(p, sys, name, &et);
out:
	terms__exit(&ts);
	free(sys);
	free(name);
	return err;
}
