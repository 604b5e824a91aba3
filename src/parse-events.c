// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events.c — perf record's -e syntax, as perf 6.1 reads it.
 *
 * The strings it takes, each with an optional modifier list (":u", "u"
 * after a closing slash) and an optional term list ("/period=1000,name=x/"):
 *
 *	cpu-clock, cycles, instructions…	hardware and software symbols
 *	L1-dcache-load-misses, LLC-loads…	hardware cache events
 *	r1a8, 4:0x3c				raw config, numeric type:config
 *	mem:0x1000[/8][:rw]			breakpoints
 *	sched:sched_switch, sched:*		tracepoints, globs
 *	cpu/event=0x3c,umask=0/, msr/tsc/	a PMU with format terms or its events
 *	tsc, energy-psys			a PMU event by its name alone
 *	duration_time				perf's tool events (a dummy event)
 *	{a,b}:S, name{a,b}			groups, with modifiers for all
 *
 * How: a lexer that follows the rules of perf's flex scanner (the longest
 * match wins, the earlier rule on a tie; the start of each event is also
 * taken whole as its name; what no rule matches is skipped), and a
 * recursive-descent parser with one token of lookahead for perf's bison
 * grammar, so the same strings parse and fail. The actions are perf's:
 * event names (the text of the event, or name=), the exclude bits of the
 * modifiers (get_event_modifier(): an event's own modifiers start from
 * nothing, a group's from what each member has), terms checked by kind
 * (symbols and raw events take the fixed terms, tracepoints a few, a PMU
 * also its sysfs format terms, whose values go into config/config1/config2
 * bits), a PMU's named events expanded into their terms.
 *
 * PMUs come from sysfs (pmu.c); parse_events__sysfs() takes another root,
 * so tests describe PMUs this machine lacks. perf's built-in JSON event
 * tables (names such as inst_retired.any) are not known here: such events
 * are given by their raw terms. Hybrid PMUs (cpu_core/cpu_atom) get no
 * special expansion. BPF object events are refused.
 *
 * Who runs it: the main thread, while the command line is parsed.
 *
 * Data flow: parse_events() builds every evsel of the string (with its
 * group links and its terms in evsel->terms) and adds them to the evlist
 * only when the whole string parsed, so a bad string adds nothing.
 * Sampling fields are the record configuration's business, which applies
 * the terms over its options.
 *
 * This file is the grammar: the parser's state, its one-token lookahead,
 * and one function per rule of perf's bison grammar (an event, a group,
 * symbols, cache, raw, numeric and breakpoint events), with the evsels of
 * one parse kept in struct parse_state until the whole string parsed. The
 * rest of the module, behind src/parse-events-internal.h:
 *
 *	parse-events-lex.c		the scanner and the names it knows
 *	parse-events-terms.c		event terms: kinds, checks, into attrs
 *	parse-events-modifiers.c	":ukp…" modifiers, into exclude bits
 *	parse-events-pmu.c		PMUs and their named events from sysfs
 *	parse-events-tracepoint.c	tracepoints and globs from tracefs
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

#ifndef HW_BREAKPOINT_R
#define HW_BREAKPOINT_R		1
#define HW_BREAKPOINT_W		2
#define HW_BREAKPOINT_X		4
#endif

__attribute__((format(printf, 3, 4)))
int parse_events__error(struct parse_events_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return errnum;
}

static void parse_state__exit(struct parse_state *state)
{
	int i;

	for (i = 0; i < state->nr; i++)
		evsel__delete(state->evsels[i]);
	free(state->evsels);
	state->evsels = NULL;
	state->nr = state->cap = 0;
}

static int parse_state__push(struct parse_state *state, struct evsel *evsel)
{
	struct evsel **v;
	int cap;

	if (state->nr == state->cap) {
		cap = state->cap ? state->cap * 2 : 8;
		v = realloc(state->evsels, sizeof(*v) * (size_t)cap);
		if (!v)
			return -ENOMEM;
		state->evsels = v;
		state->cap = cap;
	}
	state->evsels[state->nr++] = evsel;
	return 0;
}

int parse_state__nomem(struct parse_state *state)
{
	return parse_events__error(state->err, -ENOMEM, "event '%s': %s", state->event,
				   strerror(ENOMEM));
}

/*
 * A new evsel of attr (perf's event_attr_init(): the guest excluded), named
 * `name` when not NULL (else by the event's text later), with the terms.
 */
struct evsel *parse_state__add(struct parse_state *state, struct perf_event_attr *attr,
			       const char *name, const struct evsel_terms *terms)
{
	struct evsel *evsel;

	attr->size = sizeof(*attr);
	attr->exclude_guest = 1;
	evsel = evsel__new(attr, name);
	if (!evsel)
		return NULL;
	if (!name) {
		free(evsel->name);
		evsel->name = NULL;
	}
	if (terms)
		evsel->terms = *terms;
	if (parse_state__push(state, evsel)) {
		evsel__delete(evsel);
		return NULL;
	}
	return evsel;
}

/* Hand every evsel over to the evlist; on failure the evlist is as before. */
static int parse_state__commit(struct parse_state *state, struct evlist *evlist)
{
	int base = evlist->nr_entries, i, err;

	for (i = 0; i < state->nr; i++) {
		err = evlist__add(evlist, state->evsels[i]);
		if (err) {
			evlist->nr_entries = base;
			return err;
		}
	}
	state->nr = 0;
	return 0;
}

void parser__next(struct parser *p)
{
	lexer__next(&p->lx, &p->tok);
}

char *tok__strdup(const struct token *tok)
{
	return strndup(tok->text, tok->tlen);
}

/* The event text for messages: the current event, or the whole string. */
static void parser__set_event(struct parser *p, size_t pos, size_t len)
{
	struct parse_state *ps = p->ps;

	p->event_pos = pos;
	p->event_len = len;
	free(ps->event_buf);
	ps->event_buf = strndup(p->str + pos, len);
	ps->event = ps->event_buf ? ps->event_buf : p->str;
}

static int parser__error(struct parser *p, int errnum, const char *what)
{
	return parse_events__error(p->ps->err, errnum, "event '%s' %s", p->ps->event, what);
}

/* What perf calls a parser error, said with the token that broke it. */
int parser__syntax(struct parser *p)
{
	const struct token *t = &p->tok;
	const char *s = p->str;
	size_t at = t->pos;

	if (t->type == T_ERROR)
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s': the number '%.*s' does not fit in 64 bits", p->ps->event,
			(int)t->len, s + at);
	if ((t->type == ',' || t->type == T_END) && (at == 0 || s[at - 1] == ',' ||
						      (t->type == ',' && !s[at + 1])))
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s' has an empty entry; separate events with single commas", p->str);
	if (t->type == T_END)
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s' ends too early; " PERF_LIST_HINT, p->str);
	if (at > 0 && s[at - 1] == ':' && t->type != ':')
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s' has an unknown modifier '%.*s'; the modifiers are " MODIFIER_HELP,
			p->ps->event, (int)(t->len ? t->len : 1), s + at);
	return parse_events__error(p->ps->err, -EINVAL,
		"event '%s' is not valid event syntax at '%s'; " PERF_LIST_HINT, p->ps->event, s + at);
}

bool parser__accept(struct parser *p, int type)
{
	if (p->tok.type != type)
		return false;
	parser__next(p);
	return true;
}

int parser__expect(struct parser *p, int type)
{
	return parser__accept(p, type) ? 0 : parser__syntax(p);
}

static int term__set_str(struct term *t, const struct token *tok)
{
	t->str = tok__strdup(tok);
	return t->str ? 0 : -ENOMEM;
}

/* One term at the lookahead (perf's event_term). */
static int parser__term(struct parser *p, struct term *t)
{
	struct token first = p->tok;

	memset(t, 0, sizeof(*t));
	switch (first.type) {
	case T_RAW:
		t->kind = TERM_CONFIG;
		t->is_num = true;
		t->num = first.num;
		parser__next(p);
		return 0;
	case T_DRV_CFG:
		t->kind = TERM_DRV_CFG;
		parser__next(p);
		return term__set_str(t, &first) ? parse_state__nomem(p->ps) : 0;
	case T_NAME:
	case T_TERM:
		break;
	case T_ARRAY:
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s': term arrays ('[...]') are not supported by precord", p->ps->event);
	default:
		return parser__syntax(p);
	}
	t->kind = first.type == T_TERM ? (enum term_kind)first.num : TERM_USER;
	if (t->kind == TERM_USER && !(t->config = tok__strdup(&first)))
		return parse_state__nomem(p->ps);
	parser__next(p);
	if (p->tok.type == T_ARRAY)
		return parse_events__error(p->ps->err, -EINVAL,
			"event '%s': term arrays ('[...]') are not supported by precord", p->ps->event);
	if (!parser__accept(p, '=')) {
		t->is_num = true;
		t->num = 1;
		t->no_value = true;
		return 0;
	}
	if (p->tok.type == T_VALUE) {
		t->is_num = true;
		t->num = p->tok.num;
	} else if (p->tok.type == T_NAME || (p->tok.type == T_SYM_HW && t->kind == TERM_USER)) {
		if (term__set_str(t, &p->tok))
			return parse_state__nomem(p->ps);
	} else {
		return parser__syntax(p);
	}
	parser__next(p);
	return 0;
}

/* event_config: term (',' term)*, up to (not including) the closing '/'. */
static int parser__terms(struct parser *p, struct terms *ts)
{
	struct term t;
	int err;

	for (;;) {
		err = parser__term(p, &t);
		if (!err && terms__insert(ts, ts->nr, &t)) {
			term__exit(&t);
			err = parse_state__nomem(p->ps);
		}
		if (err) {
			term__exit(&t);
			return err;
		}
		if (!parser__accept(p, ','))
			return 0;
	}
}

/*
 * opt_event_config (required: '/' ... '/' must be there): the lookahead is
 * '/'. "//" gives no terms.
 */
int parser__slash_terms(struct parser *p, struct terms *ts)
{
	int err;

	if (parser__expect(p, '/'))
		return -EINVAL;
	if (parser__accept(p, '/'))
		return 0;
	err = parser__terms(p, ts);
	return err ? err : parser__expect(p, '/');
}

/* sep_dc: an optional ':'. */
void parser__sep_dc(struct parser *p)
{
	parser__accept(p, ':');
}

/* perf's parse_events_add_numeric(): type/config with the common terms. */
static int parser__add_numeric(struct parser *p, u32 type, u64 config, const struct terms *ts)
{
	struct perf_event_attr attr;
	struct evsel_terms et;

	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.config = config;
	if (ts && terms__check(p, ts, &attr, TERMS_COMMON))
		return -EINVAL;
	terms__to_evsel(ts, &et);
	if (!parse_state__add(p->ps, &attr, terms__name(ts, TERM_NAME), &et))
		return parse_state__nomem(p->ps);
	return 0;
}

/* value_sym '/' event_config '/' | value_sym [ '//' | ':' ] */
static int parser__symbol(struct parser *p)
{
	const struct event_symbol *sym = &event_symbols[p->tok.num];
	struct terms ts = { 0 };
	int err;

	parser__next(p);
	if (p->tok.type == '/') {
		parser__next(p);
		if (parser__accept(p, '/'))
			return parser__add_numeric(p, sym->type, sym->config, NULL);
		err = parser__terms(p, &ts);
		if (!err)
			err = parser__expect(p, '/');
		if (!err)
			err = parser__add_numeric(p, sym->type, sym->config, &ts);
		terms__exit(&ts);
		return err;
	}
	parser__sep_dc(p);
	return parser__add_numeric(p, sym->type, sym->config, NULL);
}

/* A tool event: perf record opens a dummy for it. */
static int parser__tool(struct parser *p)
{
	parser__next(p);
	if (p->tok.type == '/') {
		parser__next(p);
		if (parser__expect(p, '/'))
			return -EINVAL;
	} else {
		parser__sep_dc(p);
	}
	return parser__add_numeric(p, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, NULL);
}

/* opt_event_config then sep_dc. */
int parser__opt_terms(struct parser *p, struct terms *ts)
{
	int err = 0;

	if (p->tok.type == '/')
		err = parser__slash_terms(p, ts);
	if (!err)
		parser__sep_dc(p);
	return err;
}

/* The index of the longest spelling of names[] that str starts with (perf's parse_aliases()). */
static int cache__lookup(const char *str, size_t len, const char *const names[][MAX_ALIASES],
			 size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < MAX_ALIASES && names[i][j]; j++) {
			size_t l = strlen(names[i][j]);

			if (l <= len && !strncasecmp(str, names[i][j], l))
				return (int)i;
		}
	return -1;
}

/* TYPE ['-' OP ['-' OP]] opt_event_config sep_dc */
static int parser__cache(struct parser *p)
{
	struct token parts[3];
	struct terms ts = { 0 };
	struct perf_event_attr attr;
	struct evsel_terms et;
	int nparts = 1, type, op = -1, result = -1, i, err;
	char name[128];
	size_t n;

	parts[0] = p->tok;
	parser__next(p);
	while (nparts < 3 && p->tok.type == '-') {
		parser__next(p);
		if (p->tok.type != T_CACHE_OP)
			return parser__syntax(p);
		parts[nparts++] = p->tok;
		parser__next(p);
	}
	err = parser__opt_terms(p, &ts);
	if (err)
		goto out;
	type = cache__lookup(parts[0].text, parts[0].tlen, cache_types, NR_CACHE_TYPES);
	n = (size_t)snprintf(name, sizeof(name), "%.*s", (int)parts[0].tlen, parts[0].text);
	for (i = 1; i < nparts; i++) {
		n += (size_t)snprintf(name + n, n < sizeof(name) ? sizeof(name) - n : 0, "-%.*s",
				      (int)parts[i].tlen, parts[i].text);
		if (op < 0) {
			op = cache__lookup(parts[i].text, parts[i].tlen, cache_ops, NR_CACHE_OPS);
			if (op >= 0) {
				if (type < 0 || !(cache_type_ops[type] & (1u << op)))
					goto bad;
				continue;
			}
		}
		if (result < 0)
			result = cache__lookup(parts[i].text, parts[i].tlen, cache_results,
					       NR_CACHE_RESULTS);
	}
	if (type < 0)
		goto bad;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HW_CACHE;
	attr.config = (u64)type | (u64)(op < 0 ? 0 : op) << 8 | (u64)(result < 0 ? 0 : result) << 16;
	err = terms__check(p, &ts, &attr, TERMS_COMMON);
	if (err)
		goto out;
	terms__to_evsel(&ts, &et);
	if (!parse_state__add(p->ps, &attr, terms__name(&ts, TERM_NAME) ?: name, &et))
		err = parse_state__nomem(p->ps);
out:
	terms__exit(&ts);
	return err;
bad:
	terms__exit(&ts);
	return parser__error(p, -EINVAL, "is not a hardware cache event (that cache has no such "
			     "operation, or the parts do not go together); " PERF_LIST_HINT);
}

/* mem:ADDR[/LEN][:rwx] sep_dc */
static int parser__breakpoint(struct parser *p)
{
	struct perf_event_attr attr;
	u64 addr, len = 0;
	size_t i;

	parser__next(p);
	if (p->tok.type != T_VALUE)
		return parser__syntax(p);
	addr = p->tok.num;
	parser__next(p);
	if (parser__accept(p, '/')) {
		if (p->tok.type != T_VALUE)
			return parser__syntax(p);
		len = p->tok.num;
		parser__next(p);
	}
	memset(&attr, 0, sizeof(attr));
	if (parser__accept(p, ':') && p->tok.type == T_MODIFIER_BP) {
		for (i = 0; i < p->tok.tlen; i++) {
			int bit = p->tok.text[i] == 'r' ? HW_BREAKPOINT_R :
				  p->tok.text[i] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;

			if (attr.bp_type & (u32)bit)
				return parser__error(p, -EINVAL,
					"repeats a breakpoint access type; give each of r, w, x once");
			attr.bp_type |= (u32)bit;
		}
		parser__next(p);
		parser__sep_dc(p);
	}
	if (!attr.bp_type)
		attr.bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len)
		len = attr.bp_type == HW_BREAKPOINT_X ? sizeof(long) : 4;
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_addr = addr;
	attr.bp_len = len;
	attr.sample_period = 1;
	if (!parse_state__add(p->ps, &attr, NULL, NULL))
		return parse_state__nomem(p->ps);
	return 0;
}

/* RAW opt_event_config sep_dc, and VALUE ':' VALUE opt_event_config sep_dc */
static int parser__raw_or_numeric(struct parser *p)
{
	struct terms ts = { 0 };
	u32 type = PERF_TYPE_RAW;
	u64 config = p->tok.num;
	int err;

	if (p->tok.type == T_VALUE) {
		if (config > 0xffffffffULL)
			return parser__error(p, -EINVAL, "has a type above 32 bits");
		type = (u32)config;
		parser__next(p);
		if (parser__expect(p, ':'))
			return -EINVAL;
		if (p->tok.type != T_VALUE)
			return parser__syntax(p);
		config = p->tok.num;
	}
	parser__next(p);
	err = parser__opt_terms(p, &ts);
	if (!err)
		err = parser__add_numeric(p, type, config, &ts);
	terms__exit(&ts);
	return err;
}

/* event_def: what the first token says. */
static int parser__event_def(struct parser *p)
{
	struct token first = p->tok;

	switch (first.type) {
	case T_SYM_HW:
	case T_SYM_SW:
		return parser__symbol(p);
	case T_TOOL:
		return parser__tool(p);
	case T_CACHE_TYPE:
		return parser__cache(p);
	case T_MEM:
		return parser__breakpoint(p);
	case T_RAW:
	case T_VALUE:
		return parser__raw_or_numeric(p);
	case T_KERNEL_PMU_EVENT:
		return parser__kernel_pmu_event(p);
	case T_PMU_EVENT_PRE:
		return parser__pmu_event_prefix(p);
	case T_BPF:
		return parser__error(p, -EINVAL,
			"is a BPF program; precord does not load BPF events");
	case T_NAME:
		parser__next(p);
		if (p->tok.type == '/')
			return parser__pmu(p, &first);
		if (p->tok.type == ':' || p->tok.type == '-')
			return parser__tracepoint(p, &first);
		if (p->tok.type == T_END || p->tok.type == ',' || p->tok.type == '}')
			return parse_events__error(p->ps->err, -ENOENT,
				"event '%s' is not known; " PERF_LIST_HINT, p->ps->event);
		return parser__syntax(p);
	default:
		return parser__syntax(p);
	}
}

/* event: [EVENT_NAME] event_def [MODIFIER]; names what has none with the event's text. */
static int parser__event(struct parser *p)
{
	struct parse_state *ps = p->ps;
	int first = ps->nr, i, err;
	char *name = NULL;

	if (p->tok.type == T_EVENT_NAME) {
		parser__set_event(p, p->tok.pos, p->tok.tlen);
		name = tok__strdup(&p->tok);
		if (!name)
			return parse_state__nomem(ps);
		parser__next(p);
	}
	err = parser__event_def(p);
	for (i = first; !err && i < ps->nr; i++) {
		struct evsel *evsel = ps->evsels[i];

		if (!evsel->name) {
			evsel->name = strdup(name ? name : ps->event);
			if (!evsel->name)
				err = parse_state__nomem(ps);
		}
	}
	free(name);
	if (!err && p->tok.type == T_MODIFIER) {
		err = parser__modifiers(p, &p->tok, first, false);
		parser__next(p);
	}
	return err;
}

/* [NAME] '{' event (',' event)* '}' [':' MODIFIER] */
static int parser__group(struct parser *p, const struct token *name_tok)
{
	struct parse_state *ps = p->ps;
	int first = ps->nr, i, err;
	struct evsel *leader;

	if (parser__expect(p, '{'))
		return -EINVAL;
	for (;;) {
		err = parser__event(p);
		if (err)
			return err;
		if (!parser__accept(p, ','))
			break;
	}
	if (parser__expect(p, '}'))
		return -EINVAL;
	if (ps->nr == first)
		return parser__syntax(p);
	leader = ps->evsels[first];
	for (i = first; i < ps->nr; i++)
		ps->evsels[i]->leader = leader;
	leader->nr_members = ps->nr - first;
	if (name_tok) {
		leader->group_name = tok__strdup(name_tok);
		if (!leader->group_name)
			return parse_state__nomem(ps);
	}
	if (parser__accept(p, ':')) {
		if (p->tok.type != T_MODIFIER)
			return parser__syntax(p);
		err = parser__modifiers(p, &p->tok, first, true);
		parser__next(p);
	}
	return err;
}

/* groups: (group | event) (',' (group | event))* END */
static int parser__groups(struct parser *p)
{
	int err;

	for (;;) {
		if (p->tok.type == '{') {
			err = parser__group(p, NULL);
		} else if (p->tok.type == T_NAME) {
			struct token name = p->tok;

			parser__next(p);
			if (p->tok.type != '{')
				return parser__syntax(p);
			err = parser__group(p, &name);
		} else {
			err = parser__event(p);
		}
		if (err)
			return err;
		if (p->tok.type == T_END)
			return 0;
		if (parser__expect(p, ','))
			return -EINVAL;
	}
}

static void parser__init(struct parser *p, struct parse_state *ps, const char *str,
			 enum lex_state state)
{
	memset(p, 0, sizeof(*p));
	p->ps = ps;
	p->str = str;
	p->lx.s = str;
	p->lx.len = strlen(str);
	p->lx.state = state;
	p->lx.ps = ps;
	parser__next(p);
}

/* The terms of a PMU's named event ("event=0x3c,umask=0x00"), as perf's parse_events_terms(). */
int parser__term_list(struct parser *p, const char *text, struct terms *ts)
{
	struct parser sub;
	int err;

	parser__init(&sub, p->ps, text, LX_CONFIG);
	err = parser__terms(&sub, ts);
	if (!err && sub.tok.type != T_END)
		err = parse_events__error(p->ps->err, -EINVAL,
			"event '%s': its PMU's definition '%s' is not valid", p->ps->event, text);
	return err;
}

static int parse_events__run(struct parse_state *ps, const char *str)
{
	struct parser p;

	ps->event = str;
	if (!*str)
		return parse_events__error(ps->err, -EINVAL,
			"event '' is empty; name an event, e.g. -e cpu-clock (" PERF_LIST_HINT ")");
	parser__init(&p, ps, str, LX_EVENT);
	return parser__groups(&p);
}

int parse_events__sysfs(struct evlist *evlist, const char *str, const char *sysfs_root,
			struct parse_events_error *err)
{
	struct parse_events_error dummy;
	struct parse_state state = { .err = err ? err : &dummy };
	int ret;

	state.err->msg[0] = '\0';
	state.pmus = pmus__new(sysfs_root);
	if (!state.pmus)
		return parse_events__error(state.err, -ENOMEM, "event '%s': %s", str ? str : "",
					   strerror(ENOMEM));
	ret = parse_events__run(&state, str ? str : "");
	if (!ret) {
		ret = parse_state__commit(&state, evlist);
		if (ret)
			parse_events__error(state.err, ret, "event '%s': %s", str, strerror(-ret));
	}
	parse_state__exit(&state);
	parse_state__free_syms(&state);
	pmus__delete(state.pmus);
	free(state.event_buf);
	return ret;
}

int parse_events(struct evlist *evlist, const char *str, struct parse_events_error *err)
{
	return parse_events__sysfs(evlist, str, NULL, err);
}

/* A core PMU with a cycles event under root: cpu, cpu_core… */
static bool parse_events__has_cpu_pmu(const char *root)
{
	char path[PATH_MAX];
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir(root);

	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events/cpu-cycles", root, d->d_name);
		found = access(path, F_OK) == 0;
		snprintf(path, sizeof(path), "%s/%s/events/cycles", root, d->d_name);
		found = found || access(path, F_OK) == 0;
	}
	closedir(dir);
	return found;
}

/*
 * perf's default is evsel__new_cycles(): cycles, user-only when the kernel
 * may not be profiled, the highest precise_ip the PMU takes. Without a
 * hardware PMU perf falls back to cpu-clock keeping precise_ip 3 and names
 * it from the attr ("cpu-clock:ppp" as root): the same here, so the attrs
 * match perf's.
 */
int parse_events__default(struct evlist *evlist, struct parse_events_error *err)
{
	struct parse_events_error dummy;
	struct parse_state state = { .err = err ? err : &dummy, .event = "cycles" };
	struct perf_event_attr attr;
	struct evsel *evsel;
	char name[64], suffix[24];
	int ret = 0;

	state.err->msg[0] = '\0';
	memset(&attr, 0, sizeof(attr));
	attr.exclude_kernel = !evlist__can_profile_kernel();
	if (parse_events__has_cpu_pmu(PMU_SYSFS_ROOT)) {
		snprintf(name, sizeof(name), "cycles%s", attr.exclude_kernel ? ":u" : "");
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.precise_ip = 3;
		evsel__mod_suffix(&attr, suffix, sizeof(suffix));
		snprintf(name, sizeof(name), "cpu-clock%s", suffix);
	}
	evsel = parse_state__add(&state, &attr, name, NULL);
	if (!evsel)
		ret = -ENOMEM;
	else
		evsel->attr.exclude_guest = 0;	/* built from an attr, not parsed */
	if (!ret)
		ret = parse_state__commit(&state, evlist);
	if (ret)
		parse_events__error(state.err, ret, "event 'cpu-clock': %s", strerror(-ret));
	parse_state__exit(&state);
	return ret;
}
