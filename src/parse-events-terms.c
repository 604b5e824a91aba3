// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events-terms.c — event terms ("/period=1000,name=x,event=0x3c/"):
 * their kinds, the list a parse builds, the checks by kind perf makes
 * (symbols and raw events take the fixed terms, tracepoints a few, a PMU
 * also its sysfs format terms), and the terms turned into an evsel's attr.
 *
 * Data flow: the grammar (parse-events.c) collects struct terms while it
 * reads an event; terms__to_evsel() checks them against the event's kind,
 * sets attr fields and keeps what the record configuration applies later
 * (evsel->terms). A PMU's format terms become config/config1/config2 bits
 * in parse-events-pmu.c. Also the branch filter names of -j/-b
 * (parse_events__branch_str()). Runs on the parsing thread.
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

/* The spellings, in the order of perf's list of valid terms. */
const char *const term_names[NR_TERM_KINDS] = {
	[TERM_USER]		= "<sysfs term>",
	[TERM_CONFIG]		= "config",
	[TERM_CONFIG1]		= "config1",
	[TERM_CONFIG2]		= "config2",
	[TERM_NAME]		= "name",
	[TERM_PERIOD]		= "period",
	[TERM_FREQ]		= "freq",
	[TERM_BRANCH_TYPE]	= "branch_type",
	[TERM_TIME]		= "time",
	[TERM_CALLGRAPH]	= "call-graph",
	[TERM_STACK_SIZE]	= "stack-size",
	[TERM_NOINHERIT]	= "no-inherit",
	[TERM_INHERIT]		= "inherit",
	[TERM_MAX_STACK]	= "max-stack",
	[TERM_NR]		= "nr",
	[TERM_NOOVERWRITE]	= "no-overwrite",
	[TERM_OVERWRITE]	= "overwrite",
	[TERM_DRV_CFG]		= "driver-config",
	[TERM_PERCORE]		= "percore",
	[TERM_AUX_OUTPUT]	= "aux-output",
	[TERM_AUX_SAMPLE_SIZE]	= "aux-sample-size",
	[TERM_METRIC_ID]	= "metric-id",
};

void term__exit(struct term *t)
{
	free(t->config);
	free(t->str);
}

void terms__exit(struct terms *ts)
{
	int i;

	for (i = 0; i < ts->nr; i++)
		term__exit(&ts->v[i]);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

/* Room for one more at index at (moving the rest up); 0 or -ENOMEM. */
int terms__insert(struct terms *ts, int at, const struct term *t)
{
	if (ts->nr == ts->cap) {
		int cap = ts->cap ? ts->cap * 2 : 8;
		struct term *v = realloc(ts->v, sizeof(*v) * (size_t)cap);

		if (!v)
			return -ENOMEM;
		ts->v = v;
		ts->cap = cap;
	}
	memmove(&ts->v[at + 1], &ts->v[at], sizeof(*t) * (size_t)(ts->nr - at));
	ts->v[at] = *t;
	ts->nr++;
	return 0;
}

static int term__copy(struct term *dst, const struct term *src)
{
	*dst = *src;
	dst->config = src->config ? strdup(src->config) : NULL;
	dst->str = src->str ? strdup(src->str) : NULL;
	if ((src->config && !dst->config) || (src->str && !dst->str)) {
		term__exit(dst);
		return -ENOMEM;
	}
	return 0;
}

int terms__copy(struct terms *dst, const struct terms *src)
{
	struct term t;
	int i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->nr; i++) {
		if (term__copy(&t, &src->v[i]) || terms__insert(dst, dst->nr, &t)) {
			terms__exit(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

const char *terms__name(const struct terms *ts, enum term_kind kind)
{
	const char *name = NULL;
	int i;

	for (i = 0; ts && i < ts->nr; i++)
		if (ts->v[i].kind == kind && !ts->v[i].is_num)
			name = ts->v[i].str;
	return name;
}

int term__error(struct parser *p, const struct term *t, const char *what)
{
	return parse_events__error(p->ps->err, -EINVAL, "event '%s': term '%s': %s",
				   p->ps->event, t->kind == TERM_USER ? t->config : term_names[t->kind],
				   what);
}

static int term__want_num(struct parser *p, const struct term *t)
{
	return t->is_num ? 0 : term__error(p, t, "expected numeric value");
}

static int term__want_str(struct parser *p, const struct term *t)
{
	return !t->is_num ? 0 : term__error(p, t, "expected string value");
}

struct branch_mode {
	const char	*name;
	u64		mode;
};

static const struct branch_mode branch_modes[] = {
	{ "u",		PERF_SAMPLE_BRANCH_USER },
	{ "k",		PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv",		PERF_SAMPLE_BRANCH_HV },
	{ "any",	PERF_SAMPLE_BRANCH_ANY },
	{ "any_call",	PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret",	PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call",	PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx",	PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx",	PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx",	PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond",	PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp",	PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call",	PERF_SAMPLE_BRANCH_CALL },
	{ "save_type",	PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack",	PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "priv",	PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

int parse_events__branch_str(const char *str, u64 *mode)
{
	const u64 plm = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
	const char *s = str;

	for (;;) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < ARRAY_SIZE(branch_modes); i++)
			if (strlen(branch_modes[i].name) == len &&
			    !strncasecmp(s, branch_modes[i].name, len))
				break;
		if (i == ARRAY_SIZE(branch_modes))
			return -EINVAL;
		*mode |= branch_modes[i].mode;
		if (!s[len])
			break;
		s += len + 1;
	}
	if (!(*mode & ~plm))		/* only privilege levels: any branch */
		*mode = PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

/* config=, config1=, config2=: straight into the attr. */
static int term__config(struct parser *p, const struct term *t, struct perf_event_attr *attr)
{
	if (term__want_num(p, t))
		return -EINVAL;
	if (t->kind == TERM_CONFIG)
		attr->config = t->num;
	else if (t->kind == TERM_CONFIG1)
		attr->config1 = t->num;
	else
		attr->config2 = t->num;
	return 0;
}

/* branch_type=: the filter names of -j into branch_sample_type ("no": none). */
static int term__branch(struct parser *p, const struct term *t, struct perf_event_attr *attr)
{
	u64 mode = attr->branch_sample_type;

	if (term__want_str(p, t))
		return -EINVAL;
	if (strlen(t->str) >= EVSEL_TERM_STR_MAX)
		return term__error(p, t, "too long");
	if (!strcmp(t->str, "no"))
		return 0;
	if (parse_events__branch_str(t->str, &mode))
		return term__error(p, t, "invalid branch sample type");
	attr->branch_sample_type = mode;
	return 0;
}

/* perf's config_term_common(): type checks, and config/config1/config2 into attr. */
static int term__common(struct parser *p, const struct term *t, struct perf_event_attr *attr)
{
	switch (t->kind) {
	case TERM_CONFIG:
	case TERM_CONFIG1:
	case TERM_CONFIG2:
		return term__config(p, t, attr);
	case TERM_BRANCH_TYPE:
		return term__branch(p, t, attr);
	case TERM_TIME:
	case TERM_PERCORE:
		if (term__want_num(p, t))
			return -EINVAL;
		return t->num > 1 ? term__error(p, t, "expected 0 or 1") : 0;
	case TERM_CALLGRAPH:
		if (term__want_str(p, t))
			return -EINVAL;
		return strlen(t->str) >= EVSEL_TERM_STR_MAX ? term__error(p, t, "too long") : 0;
	case TERM_NAME:
	case TERM_METRIC_ID:
		return term__want_str(p, t);
	case TERM_AUX_SAMPLE_SIZE:
		if (term__want_num(p, t))
			return -EINVAL;
		return t->num > UINT_MAX ? term__error(p, t, "too big") : 0;
	case TERM_PERIOD:
	case TERM_FREQ:
	case TERM_STACK_SIZE:
	case TERM_INHERIT:
	case TERM_NOINHERIT:
	case TERM_OVERWRITE:
	case TERM_NOOVERWRITE:
	case TERM_MAX_STACK:
	case TERM_NR:
	case TERM_AUX_OUTPUT:
		return term__want_num(p, t);
	default:
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s': unknown term '%s'; valid terms: " VALID_TERMS,
			p->ps->event, t->kind == TERM_USER ? t->config : term_names[t->kind]);
	}
}

static int term__check(struct parser *p, const struct term *t, struct perf_event_attr *attr,
		       enum terms_mode mode)
{
	switch (mode) {
	case TERMS_PMU:
		if (t->kind == TERM_USER || t->kind == TERM_DRV_CFG)
			return 0;	/* the PMU's formats decide */
		return term__common(p, t, attr);
	case TERMS_TRACEPOINT:
		switch (t->kind) {
		case TERM_CALLGRAPH:
		case TERM_STACK_SIZE:
		case TERM_INHERIT:
		case TERM_NOINHERIT:
		case TERM_MAX_STACK:
		case TERM_NR:
		case TERM_OVERWRITE:
		case TERM_NOOVERWRITE:
		case TERM_AUX_OUTPUT:
		case TERM_AUX_SAMPLE_SIZE:
			return term__common(p, t, attr);
		default:
			return parse_events__error(p->ps->err, -EINVAL,
				"event '%s': unknown term '%s' for a tracepoint; valid terms: "
				VALID_TP_TERMS, p->ps->event,
				t->kind == TERM_USER ? t->config : term_names[t->kind]);
		}
	default:
		return term__common(p, t, attr);
	}
}

int terms__check(struct parser *p, const struct terms *ts, struct perf_event_attr *attr,
		 enum terms_mode mode)
{
	int i;

	for (i = 0; i < ts->nr; i++)
		if (term__check(p, &ts->v[i], attr, mode))
			return -EINVAL;
	return 0;
}

static void evsel_terms__set(struct evsel_terms *et, unsigned int bit, bool weak)
{
	et->set |= bit;
	if (weak)
		et->weak |= bit;
	else
		et->weak &= ~bit;
}

/* The evsel_terms bit of each kind the record configuration applies (0: none). */
static const unsigned int term_bits[NR_TERM_KINDS] = {
	[TERM_PERIOD]		= EVSEL_TERM_PERIOD,
	[TERM_FREQ]		= EVSEL_TERM_FREQ,
	[TERM_TIME]		= EVSEL_TERM_TIME,
	[TERM_CALLGRAPH]	= EVSEL_TERM_CALLGRAPH,
	[TERM_BRANCH_TYPE]	= EVSEL_TERM_BRANCH,
	[TERM_STACK_SIZE]	= EVSEL_TERM_STACK_SIZE,
	[TERM_INHERIT]		= EVSEL_TERM_INHERIT,
	[TERM_NOINHERIT]	= EVSEL_TERM_INHERIT,
	[TERM_MAX_STACK]	= EVSEL_TERM_MAX_STACK,
	[TERM_NR]		= EVSEL_TERM_MAX_EVENTS,
	[TERM_OVERWRITE]	= EVSEL_TERM_OVERWRITE,
	[TERM_NOOVERWRITE]	= EVSEL_TERM_OVERWRITE,
	[TERM_DRV_CFG]		= EVSEL_TERM_DRV_CFG,
	[TERM_PERCORE]		= EVSEL_TERM_PERCORE,
	[TERM_AUX_OUTPUT]	= EVSEL_TERM_AUX_OUTPUT,
	[TERM_AUX_SAMPLE_SIZE]	= EVSEL_TERM_AUX_SAMPLE_SIZE,
};

/* The kinds whose number goes as it is into a u64 of struct evsel_terms. */
static const size_t term_u64[NR_TERM_KINDS] = {
	[TERM_PERIOD]		= offsetof(struct evsel_terms, period),
	[TERM_FREQ]		= offsetof(struct evsel_terms, freq),
	[TERM_STACK_SIZE]	= offsetof(struct evsel_terms, stack_size),
	[TERM_MAX_STACK]	= offsetof(struct evsel_terms, max_stack),
	[TERM_NR]		= offsetof(struct evsel_terms, max_events),
	[TERM_AUX_SAMPLE_SIZE]	= offsetof(struct evsel_terms, aux_sample_size),
};

/* The value of term t, in its field of et (the kinds that carry none: nothing). */
static void term__to_evsel(const struct term *t, struct evsel_terms *et)
{
	if (term_u64[t->kind]) {
		*(u64 *)((char *)et + term_u64[t->kind]) = t->num;
		return;
	}
	switch (t->kind) {
	case TERM_TIME:
		et->time = t->num;
		break;
	case TERM_CALLGRAPH:
		snprintf(et->callgraph, sizeof(et->callgraph), "%s", t->str);
		break;
	case TERM_BRANCH_TYPE:
		snprintf(et->branch, sizeof(et->branch), "%s", t->str);
		break;
	case TERM_INHERIT:
	case TERM_NOINHERIT:
		et->inherit = (t->kind == TERM_INHERIT) == (t->num != 0);
		break;
	case TERM_OVERWRITE:
	case TERM_NOOVERWRITE:
		et->overwrite = (t->kind == TERM_OVERWRITE) == (t->num != 0);
		break;
	case TERM_AUX_OUTPUT:
		et->aux_output = t->num != 0;
		break;
	default:
		break;
	}
}

/* perf's get_config_terms(): what the record configuration applies later. */
void terms__to_evsel(const struct terms *ts, struct evsel_terms *et)
{
	int i;

	memset(et, 0, sizeof(*et));
	for (i = 0; ts && i < ts->nr; i++) {
		const struct term *t = &ts->v[i];

		if (t->kind >= NR_TERM_KINDS || !term_bits[t->kind])
			continue;
		term__to_evsel(t, et);
		evsel_terms__set(et, term_bits[t->kind], t->weak);
	}
}
