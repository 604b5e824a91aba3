// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events-pmu.c — PMU events in -e: a PMU with its format terms
 * ("cpu/event=0x3c,umask=0/"), a PMU's named events ("msr/tsc/", "tsc"),
 * the same event on every PMU that has it, and the sysfs event names the
 * scanner splits into prefix and suffix tokens.
 *
 * Data flow: the PMUs come from sysfs (pmu.c, at the parse's root; tests
 * give another). parse_state__read_syms() lists every PMU event name for
 * the scanner once per parse; the grammar calls parser__pmu() and
 * friends, which expand a named event into its terms, turn format terms
 * into config bits (pmu__config()) and add the evsels to the parse state.
 * Runs on the parsing thread.
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

static int parse_state__add_sym(struct parse_state *state, const char *s, size_t len,
				enum pmu_sym_type type)
{
	struct pmu_symbol *v = realloc(state->syms, sizeof(*v) * (size_t)(state->nr_syms + 1));

	if (!v)
		return -ENOMEM;
	state->syms = v;
	v[state->nr_syms].name = strndup(s, len);
	if (!v[state->nr_syms].name)
		return -ENOMEM;
	v[state->nr_syms++].type = type;
	return 0;
}

/*
 * perf_pmu__parse_init(): every PMU's event names; "a-b-c" gives a prefix
 * "a", a suffix "b" and a second suffix "c", "a-b" a prefix and a suffix.
 */
static void parse_state__read_syms(struct parse_state *state)
{
	int i, j;

	state->syms_read = true;
	if (pmus__scan(state->pmus))
		return;
	for (i = 0; i < state->pmus->nr; i++) {
		const struct pmu *pmu = state->pmus->entries[i];

		for (j = 0; j < pmu->nr_aliases; j++) {
			const char *name = pmu->aliases[j].name;
			const char *d1 = strchr(name, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;

			if (!d1) {
				parse_state__add_sym(state, name, strlen(name), PMU_SYM_EVENT);
				continue;
			}
			parse_state__add_sym(state, name, (size_t)(d1 - name), PMU_SYM_PREFIX);
			if (d2) {
				parse_state__add_sym(state, d1 + 1, (size_t)(d2 - d1 - 1), PMU_SYM_SUFFIX);
				parse_state__add_sym(state, d2 + 1, strlen(d2 + 1), PMU_SYM_SUFFIX2);
			} else {
				parse_state__add_sym(state, d1 + 1, strlen(d1 + 1), PMU_SYM_SUFFIX);
			}
		}
	}
}

/* perf_pmu__parse_check(): what a name is among the PMU event names. */
enum pmu_sym_type parse_state__sym_type(struct parse_state *state, const char *s,
					size_t len)
{
	int i;

	if (len == 3 && !strncmp(s, "cpu", 3))
		return PMU_SYM_NONE;	/* "cpu" is the PMU, never an event's prefix */
	if (!state->syms_read)
		parse_state__read_syms(state);
	for (i = 0; i < state->nr_syms; i++)
		if (strlen(state->syms[i].name) == len && !strncasecmp(state->syms[i].name, s, len))
			return state->syms[i].type;
	return PMU_SYM_NONE;
}

void parse_state__free_syms(struct parse_state *state)
{
	int i;

	for (i = 0; i < state->nr_syms; i++)
		free(state->syms[i].name);
	free(state->syms);
	state->syms = NULL;
	state->nr_syms = 0;
}

/*
 * perf_pmu__check_alias(): a term naming one of the PMU's events (a bare
 * name, or event=NAME) is replaced, in place, by that event's terms, which
 * are weak.
 */
static int pmu__expand_aliases(struct parser *p, const struct pmu *pmu, struct terms *ts)
{
	int i, j, err;

	for (i = 0; i < ts->nr; i++) {
		struct term *t = &ts->v[i];
		const struct pmu_alias *alias = NULL;
		struct terms at = { 0 };

		if (t->kind != TERM_USER)
			continue;
		if (t->is_num && t->num == 1 && !pmu__format(pmu, t->config))
			alias = pmu__alias(pmu, t->config);
		else if (!t->is_num && !strcasecmp(t->config, "event"))
			alias = pmu__alias(pmu, t->str);
		if (!alias)
			continue;
		err = parser__term_list(p, alias->terms, &at);
		if (err) {
			terms__exit(&at);
			return err;
		}
		term__exit(t);
		memmove(&ts->v[i], &ts->v[i + 1], sizeof(*t) * (size_t)(ts->nr - i - 1));
		ts->nr--;
		for (j = 0; j < at.nr; j++) {
			at.v[j].weak = true;
			if (terms__insert(ts, i + j, &at.v[j])) {
				for (; j < at.nr; j++)
					term__exit(&at.v[j]);
				free(at.v);
				return parse_state__nomem(p->ps);
			}
		}
		i += at.nr - 1;
		free(at.v);
	}
	return 0;
}

static void pmu__formats_list(const struct pmu *pmu, char *buf, size_t size)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < pmu->nr_formats && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s,", pmu->formats[i].name);
}

/* A "?" parameter: the value of the numeric term of the same name (perf's pmu_resolve_param_term()). */
static int pmu__resolve_param(struct terms *ts, const struct term *t, u64 *val)
{
	int i;

	for (i = 0; i < ts->nr; i++) {
		struct term *o = &ts->v[i];

		if (o->is_num && o->config && !strcmp(o->config, t->config)) {
			o->used = true;
			*val = o->num;
			return 0;
		}
	}
	return -ENOENT;
}

/* perf_pmu__config(): the user terms into config bits through the PMU's formats. */
static int pmu__config(struct parser *p, const struct pmu *pmu, struct terms *ts,
		       struct perf_event_attr *attr)
{
	char list[512], what[160];
	int i;

	attr->type = pmu->type;
	for (i = 0; i < ts->nr; i++) {
		struct term *t = &ts->v[i];
		const struct pmu_format *f;
		u64 val;

		if (t->used || t->kind != TERM_USER)
			continue;
		f = pmu__format(pmu, t->config);
		if (!f) {
			pmu__formats_list(pmu, list, sizeof(list));
			return parse_events__error(p->ps->err, -EINVAL,
				"event '%s': unknown term '%s' for pmu '%s'; valid terms: %s" VALID_TERMS,
				p->ps->event, t->config, pmu->name, list);
		}
		if (t->is_num) {
			if (t->no_value && __builtin_popcountll(f->bits) > 1)
				return term__error(p, t, "no value assigned for term");
			val = t->num;
		} else if (strcmp(t->str, "?")) {
			return term__error(p, t, "expected numeric value");
		} else if (pmu__resolve_param(ts, t, &val)) {
			return term__error(p, t, "required parameter not given");
		}
		if (pmu_format__apply(f, val, attr)) {
			snprintf(what, sizeof(what), "value too big for format, maximum is %llu",
				 (unsigned long long)pmu_format__max(f));
			return term__error(p, t, what);
		}
	}
	return 0;
}

/* perf's parse_events_add_pmu(): one event of pmu with the terms (consumed copy). */
static int parser__add_pmu(struct parser *p, const struct pmu *pmu, const struct terms *given)
{
	struct perf_event_attr attr;
	struct evsel_terms et;
	struct terms ts;
	int err;

	if (terms__copy(&ts, given))
		return parse_state__nomem(p->ps);
	memset(&attr, 0, sizeof(attr));
	attr.type = pmu->type;
	err = pmu__expand_aliases(p, pmu, &ts);
	if (!err)
		err = terms__check(p, &ts, &attr, TERMS_PMU);
	if (!err)
		err = pmu__config(p, pmu, &ts, &attr);
	if (!err) {
		terms__to_evsel(&ts, &et);
		if (!parse_state__add(p->ps, &attr, terms__name(&ts, TERM_NAME), &et))
			err = parse_state__nomem(p->ps);
	}
	terms__exit(&ts);
	return err;
}

/* perf_pmu__valid_suffix(): name is tok, or tok then [_]digits. */
static bool pmu__valid_suffix(const char *name, const char *tok)
{
	size_t n = strlen(tok);

	if (strncmp(name, tok, n))
		return false;
	name += n;
	if (!*name)
		return true;
	if (*name == '_')
		name++;
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

/*
 * NAME (or a PMU event prefix) with '/' terms '/': the PMU of that name,
 * else every PMU named NAME, NAME_N or uncore_NAME_N (perf's event_pmu).
 */
int parser__pmu(struct parser *p, const struct token *name_tok)
{
	struct terms ts = { 0 };
	struct pmu *pmu;
	char *name = tok__strdup(name_tok), *pattern = NULL;
	int err, i, ok = 0;

	if (!name)
		return parse_state__nomem(p->ps);
	err = parser__slash_terms(p, &ts);
	if (err)
		goto out;
	pmu = pmus__find(p->ps->pmus, name);
	if (pmu) {
		err = parser__add_pmu(p, pmu, &ts);
		goto out;
	}
	err = pmus__scan(p->ps->pmus);
	if (err == -ENOMEM)
		goto out_nomem;
	if (asprintf(&pattern, "%s*", name) < 0)
		goto out_nomem;
	for (i = 0; i < p->ps->pmus->nr; i++) {
		const struct pmu *cand = p->ps->pmus->entries[i];
		const char *n = cand->name;

		if (!strncmp(n, "uncore_", 7) && strncmp(name, "uncore_", 7))
			n += 7;
		if (fnmatch(pattern, n, 0) || !pmu__valid_suffix(n, name))
			continue;
		err = parser__add_pmu(p, cand, &ts);
		if (err)
			goto out;
		ok++;
	}
	err = ok ? 0 : parse_events__error(p->ps->err, -ENOENT,
		"event '%s': no PMU '%s' on this machine (nothing in %s); " PERF_LIST_HINT,
		p->ps->event, name, p->ps->pmus->root);
	goto out;
out_nomem:
	err = parse_state__nomem(p->ps);
out:
	free(pattern);
	free(name);
	terms__exit(&ts);
	return err;
}

/* perf's parse_events_multi_pmu_add(): the named event on every PMU that has it. */
static int parser__multi_pmu(struct parser *p, const char *event, const struct terms *given)
{
	struct terms ts = { 0 };
	struct term t = { .kind = TERM_USER, .is_num = true, .num = 1 };
	int i, err = 0, ok = 0;

	if (given && terms__copy(&ts, given))
		return parse_state__nomem(p->ps);
	t.config = strdup(event);
	if (!t.config || terms__insert(&ts, 0, &t)) {
		free(t.config);
		terms__exit(&ts);
		return parse_state__nomem(p->ps);
	}
	if (pmus__scan(p->ps->pmus) == -ENOMEM)
		err = parse_state__nomem(p->ps);
	for (i = 0; !err && i < p->ps->pmus->nr; i++) {
		const struct pmu *pmu = p->ps->pmus->entries[i];

		if (!pmu__alias(pmu, event))
			continue;
		err = parser__add_pmu(p, pmu, &ts);
		ok += !err;
	}
	terms__exit(&ts);
	if (!err && !ok)
		err = parse_events__error(p->ps->err, -ENOENT,
			"event '%s' is not known; " PERF_LIST_HINT, p->ps->event);
	return err;
}

/* KERNEL_PMU_EVENT sep_dc | KERNEL_PMU_EVENT opt_pmu_config */
int parser__kernel_pmu_event(struct parser *p)
{
	struct terms ts = { 0 };
	char *event = tok__strdup(&p->tok);
	int err = 0;

	if (!event)
		return parse_state__nomem(p->ps);
	parser__next(p);
	if (p->tok.type == '/')
		err = parser__slash_terms(p, &ts);
	else
		parser__sep_dc(p);
	if (!err)
		err = parser__multi_pmu(p, event, &ts);
	terms__exit(&ts);
	free(event);
	return err;
}

/* PRE '-' SUF ['-' SUF2] sep_dc, or PRE as a PMU name with '/' terms '/' */
int parser__pmu_event_prefix(struct parser *p)
{
	struct token pre = p->tok;
	char name[256];
	size_t n;

	parser__next(p);
	if (p->tok.type == '/')
		return parser__pmu(p, &pre);
	if (parser__expect(p, '-'))
		return -EINVAL;
	if (p->tok.type != T_PMU_EVENT_SUF)
		return parser__syntax(p);
	n = (size_t)snprintf(name, sizeof(name), "%.*s-%.*s", (int)pre.tlen, pre.text,
			     (int)p->tok.tlen, p->tok.text);
	parser__next(p);
	if (parser__accept(p, '-')) {
		if (p->tok.type != T_PMU_EVENT_SUF2)
			return parser__syntax(p);
		snprintf(name + n, n < sizeof(name) ? sizeof(name) - n : 0, "-%.*s",
			 (int)p->tok.tlen, p->tok.text);
		parser__next(p);
	}
	parser__sep_dc(p);
	return parser__multi_pmu(p, name, NULL);
}
