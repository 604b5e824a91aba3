// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events-modifiers.c — an event's or a group's modifiers (":u",
 * ":ppp", "/…/S"), as perf's get_event_modifier() reads them.
 *
 * Data flow: the grammar hands the modifier text to event_mod__parse(),
 * which checks each letter (u, k, h, G, H, I, P, S, D, e, W and b at most
 * once each, p up to 3 times) into a struct event_mod; event_mod__apply()
 * sets the exclude bits and the rest on the evsels. An event's own
 * modifiers start from nothing, a group's from what each member has. Runs
 * on the parsing thread.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse-events-internal.h"

/* No repeats but 'p', at most 15 letters (perf's check_modifier()). */
static bool event_mod__valid(const char *mods, size_t len)
{
	size_t i;

	if (len > strlen("ukhGHpppPSDIWeb"))
		return false;
	for (i = 0; i < len; i++)
		if (mods[i] != 'p' && memchr(mods + i + 1, mods[i], len - i - 1))
			return false;
	return true;
}

/* What a group's modifiers start from: the member's own (NULL: nothing). */
static void event_mod__init(struct event_mod *m, const struct evsel *evsel)
{
	const struct perf_event_attr *a = evsel ? &evsel->attr : NULL;

	memset(m, 0, sizeof(*m));
	if (!a)
		return;
	m->eu = a->exclude_user;
	m->ek = a->exclude_kernel;
	m->eh = a->exclude_hv;
	m->eH = a->exclude_host;
	m->eG = a->exclude_guest;
	m->eI = a->exclude_idle;
	m->precise = (int)a->precise_ip;
	m->pinned = a->pinned;
	m->exclusive = a->exclusive;
	m->exclude_GH = evsel->exclude_GH;
}

/*
 * u, k, h: the first of them excludes all three, then each lets its own
 * level in again; u also excludes the guest, unless G or H was given.
 */
static void event_mod__level(struct event_mod *m, char c, bool *exclude)
{
	if (!*exclude)
		*exclude = m->eu = m->ek = m->eh = true;
	if (c == 'u') {
		m->eG |= !m->exclude_GH;
		m->eu = false;
	} else if (c == 'k') {
		m->ek = false;
	} else {
		m->eh = false;
	}
}

/* G, H: the first excludes both guest and host, then each lets its own in again. */
static void event_mod__guest_host(struct event_mod *m, char c)
{
	if (!m->exclude_GH)
		m->exclude_GH = m->eG = m->eH = true;
	if (c == 'G')
		m->eG = false;
	else
		m->eH = false;
}

/* The modifiers that set one flag of their own. */
static const struct {
	char	letter;
	size_t	flag;		/* offsetof the bool in struct event_mod */
} mod_flags[] = {
	{ 'I', offsetof(struct event_mod, eI) },
	{ 'P', offsetof(struct event_mod, precise_max) },
	{ 'S', offsetof(struct event_mod, sample_read) },
	{ 'D', offsetof(struct event_mod, pinned) },
	{ 'e', offsetof(struct event_mod, exclusive) },
	{ 'W', offsetof(struct event_mod, weak) },
};

/* One letter of the other modifiers; -EINVAL for one perf does not know. */
static int event_mod__flag(struct event_mod *m, char c)
{
	size_t i;

	if (c == 'p') {
		m->precise++;
		m->eG |= !m->exclude_GH;	/* precise goes with exclude_guest */
		return 0;
	}
	if (c == 'b')
		return 0;		/* bpf counters: perf stat's */
	for (i = 0; i < ARRAY_SIZE(mod_flags); i++) {
		if (mod_flags[i].letter == c) {
			*(bool *)((char *)m + mod_flags[i].flag) = true;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * The modifiers applied to evsel: from nothing for an event's own
 * modifiers, from what the evsel has for a group's (add).
 */
static int event_mod__parse(struct event_mod *m, const char *mods, size_t len,
			    const struct evsel *evsel)
{
	bool exclude;
	size_t i;

	event_mod__init(m, evsel);
	exclude = m->eu || m->ek || m->eh;
	for (i = 0; i < len; i++) {
		if (mods[i] && strchr("ukh", mods[i]))
			event_mod__level(m, mods[i], &exclude);
		else if (mods[i] == 'G' || mods[i] == 'H')
			event_mod__guest_host(m, mods[i]);
		else if (event_mod__flag(m, mods[i]))
			return -EINVAL;
	}
	return m->precise > 3 ? -EINVAL : 0;
}

static void event_mod__apply(const struct event_mod *m, struct evsel *evsel)
{
	struct perf_event_attr *a = &evsel->attr;

	a->exclude_user = m->eu;
	a->exclude_kernel = m->ek;
	a->exclude_hv = m->eh;
	a->precise_ip = (u64)m->precise & 3;
	a->exclude_host = m->eH;
	a->exclude_guest = m->eG;
	a->exclude_idle = m->eI;
	evsel->exclude_GH = m->exclude_GH;
	evsel->sample_read = m->sample_read;
	evsel->precise_max = m->precise_max;
	evsel->weak_group = m->weak;
	if (evsel__is_group_leader(evsel)) {
		a->pinned = m->pinned;
		a->exclusive = m->exclusive;
	}
}

/* Modifiers tok on the evsels [first, nr); add: a group's. */
int parser__modifiers(struct parser *p, const struct token *tok, int first, bool add)
{
	struct event_mod m;
	int i;

	if (!event_mod__valid(tok->text, tok->tlen) ||
	    (!add && event_mod__parse(&m, tok->text, tok->tlen, NULL)))
		goto bad;
	for (i = first; i < p->ps->nr; i++) {
		struct evsel *evsel = p->ps->evsels[i];

		if (add && event_mod__parse(&m, tok->text, tok->tlen, evsel))
			goto bad;
		event_mod__apply(&m, evsel);
	}
	return 0;
bad:
	return parse_events__error(p->ps->err, -EINVAL,
		"event '%s' has a bad modifier '%.*s' (" MODIFIER_HELP ")",
		p->ps->event, (int)tok->tlen, tok->text);
}
