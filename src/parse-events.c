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

#include "precord/parse-events.h"
#include "precord/util.h"
#include "precord/evlist.h"
#include "precord/pmu.h"
#include "precord/tracefs.h"

#define PERF_LIST_HINT	"'perf list' shows the events"
#define TRACEFS_MOUNT	"mount -t tracefs nodev /sys/kernel/tracing"
#define MODIFIER_HELP	"u, k, h, G, H, I, P, S, D, e, W and b at most once each, p up to 3 times"

#ifndef HW_BREAKPOINT_R
#define HW_BREAKPOINT_R		1
#define HW_BREAKPOINT_W		2
#define HW_BREAKPOINT_X		4
#endif

/* ---- the names perf's scanner knows ------------------------------------ */

struct event_symbol {
	const char	*symbol;
	u32		type;
	u64		config;
};

/* parse-events.l's symbol rules, aliases as entries of their own. */
static const struct event_symbol event_symbols[] = {
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

#define NR_SYMBOLS	ARRAY_SIZE(event_symbols)

/* perf's tool events: counted by perf stat itself, a dummy event in perf record. */
static const char *const tool_events[] = { "duration_time", "user_time", "system_time" };

/* Names the scanner hands to the PMU event lookup (perf's PE_KERNEL_PMU_EVENT). */
static const char *const kernel_pmu_events[] = {
	"cycles-ct", "cycles-t", "mem-loads", "mem-loads-aux", "mem-stores",
};
static const char *const kernel_pmu_prefixes[] = { "topdown-", "tx-capacity-", "el-capacity-" };

#define MAX_ALIASES	8

/* Hardware cache events: type, operation and result, with their spellings. */
static const char *const cache_types[][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const cache_ops[][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cache_results[][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
/* Which operations each cache type has (read, write, prefetch bits). */
static const unsigned int cache_type_ops[] = { 7, 5, 7, 7, 1, 1, 7 };

#define NR_CACHE_TYPES		ARRAY_SIZE(cache_types)
#define NR_CACHE_OPS		ARRAY_SIZE(cache_ops)
#define NR_CACHE_RESULTS	ARRAY_SIZE(cache_results)

/* ---- terms -------------------------------------------------------------- */

enum term_kind {
	TERM_USER,		/* a PMU format term or event name: event=0x3c, tsc */
	TERM_CONFIG,
	TERM_CONFIG1,
	TERM_CONFIG2,
	TERM_NAME,
	TERM_PERIOD,
	TERM_FREQ,
	TERM_BRANCH_TYPE,
	TERM_TIME,
	TERM_CALLGRAPH,
	TERM_STACK_SIZE,
	TERM_NOINHERIT,
	TERM_INHERIT,
	TERM_MAX_STACK,
	TERM_NR,
	TERM_NOOVERWRITE,
	TERM_OVERWRITE,
	TERM_DRV_CFG,
	TERM_PERCORE,
	TERM_AUX_OUTPUT,
	TERM_AUX_SAMPLE_SIZE,
	TERM_METRIC_ID,
	NR_TERM_KINDS,
};

/* The spellings, in the order of perf's list of valid terms. */
static const char *const term_names[NR_TERM_KINDS] = {
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

#define VALID_TERMS	"config,config1,config2,name,period,freq,branch_type,time,call-graph," \
			"stack-size,no-inherit,inherit,max-stack,nr,no-overwrite,overwrite," \
			"driver-config,percore,aux-output,aux-sample-size,metric-id"
#define VALID_TP_TERMS	"call-graph,stack-size,inherit,no-inherit,max-stack,nr,overwrite," \
			"no-overwrite,aux-output,aux-sample-size"

struct term {
	enum term_kind	kind;
	char		*config;	/* TERM_USER: the name before '=' */
	bool		is_num;
	u64		num;
	char		*str;
	bool		no_value;	/* given without "=value" */
	bool		weak;		/* from a PMU's named event */
	bool		used;		/* taken as the value of a "?" parameter */
};

struct terms {
	struct term	*v;
	int		nr;
	int		cap;
};

static void term__exit(struct term *t)
{
	free(t->config);
	free(t->str);
}

static void terms__exit(struct terms *ts)
{
	int i;

	for (i = 0; i < ts->nr; i++)
		term__exit(&ts->v[i]);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

/* Room for one more at index at (moving the rest up); 0 or -ENOMEM. */
static int terms__insert(struct terms *ts, int at, const struct term *t)
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

static int terms__copy(struct terms *dst, const struct terms *src)
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

static const char *terms__name(const struct terms *ts, enum term_kind kind)
{
	const char *name = NULL;
	int i;

	for (i = 0; ts && i < ts->nr; i++)
		if (ts->v[i].kind == kind && !ts->v[i].is_num)
			name = ts->v[i].str;
	return name;
}

/* ---- errors -------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int parse_events__error(struct parse_events_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return errnum;
}

/* ---- the evsels of one parse ---------------------------------------------- */

struct parse_state {
	struct evsel			**evsels;
	int				nr;
	int				cap;
	struct parse_events_error	*err;
	struct pmus			*pmus;
	/* The names of every PMU event, split at '-' as perf's scanner sees them. */
	struct pmu_symbol		*syms;
	int				nr_syms;
	bool				syms_read;
	const char			*event;		/* the event being parsed, for messages */
	char				*event_buf;
};

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

static int parse_state__nomem(struct parse_state *state)
{
	return parse_events__error(state->err, -ENOMEM, "event '%s': %s", state->event,
				   strerror(ENOMEM));
}

/*
 * A new evsel of attr (perf's event_attr_init(): the guest excluded), named
 * `name` when not NULL (else by the event's text later), with the terms.
 */
static struct evsel *parse_state__add(struct parse_state *state, struct perf_event_attr *attr,
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

/* ---- PMU event names, as the scanner splits them --------------------------- */

enum pmu_sym_type { PMU_SYM_NONE, PMU_SYM_EVENT, PMU_SYM_PREFIX, PMU_SYM_SUFFIX, PMU_SYM_SUFFIX2 };

struct pmu_symbol {
	char			*name;
	enum pmu_sym_type	type;
};

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
static enum pmu_sym_type parse_state__sym_type(struct parse_state *state, const char *s,
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

static void parse_state__free_syms(struct parse_state *state)
{
	int i;

	for (i = 0; i < state->nr_syms; i++)
		free(state->syms[i].name);
	free(state->syms);
	state->syms = NULL;
	state->nr_syms = 0;
}

/* ---- the lexer ------------------------------------------------------------ */

enum tok_type {
	T_END = 256,
	T_ERROR,		/* a number that does not fit in 64 bits */
	T_EVENT_NAME,		/* the whole text of the event that starts here */
	T_SYM_HW,
	T_SYM_SW,
	T_TOOL,
	T_KERNEL_PMU_EVENT,
	T_PMU_EVENT_PRE,
	T_PMU_EVENT_SUF,
	T_PMU_EVENT_SUF2,
	T_CACHE_TYPE,
	T_CACHE_OP,
	T_MEM,
	T_RAW,
	T_VALUE,
	T_MODIFIER,
	T_MODIFIER_BP,
	T_BPF,
	T_NAME,
	T_TERM,
	T_DRV_CFG,
	T_ARRAY,
};

enum lex_state { LX_EVENT, LX_INITIAL, LX_CONFIG, LX_MEM };

struct token {
	int		type;		/* enum tok_type, or the character itself */
	size_t		pos;		/* where it starts in the string */
	size_t		len;
	const char	*text;		/* T_NAME and friends: the name (quotes off) */
	size_t		tlen;
	u64		num;		/* T_VALUE, T_RAW; T_SYM_*: symbol index; T_TERM: kind */
};

struct lexer {
	const char		*s;
	size_t			len;
	size_t			pos;
	enum lex_state		state;
	struct parse_state	*ps;
};

static bool is_alpha_(int c)
{
	return isalpha(c) || c == '_';
}

/* [a-zA-Z_*?\[\]][a-zA-Z0-9_*?.\[\]!]* */
static size_t m_name(const char *p)
{
	size_t n = 0;

	if (!(is_alpha_((unsigned char)p[0]) || strchr("*?[]", p[0])) || !p[0])
		return 0;
	for (n = 1; p[n] && (isalnum((unsigned char)p[n]) || strchr("_*?.[]!", p[n])); n++)
		;
	return n;
}

/* [a-zA-Z_*?][a-zA-Z0-9\-_*?.:]* */
static size_t m_name_minus(const char *p)
{
	size_t n;

	if (!p[0] || !(is_alpha_((unsigned char)p[0]) || p[0] == '*' || p[0] == '?'))
		return 0;
	for (n = 1; p[n] && (isalnum((unsigned char)p[n]) || strchr("-_*?.:", p[n])); n++)
		;
	return n;
}

/* [\'][a-zA-Z_*?\[\]][a-zA-Z0-9_*?\-,\.\[\]:=]*[\'] */
static size_t m_name_tag(const char *p)
{
	size_t n;

	if (p[0] != '\'' || !p[1] || !(is_alpha_((unsigned char)p[1]) || strchr("*?[]", p[1])))
		return 0;
	for (n = 2; p[n] && (isalnum((unsigned char)p[n]) || strchr("_*?-,.[]:=", p[n])); n++)
		;
	return p[n] == '\'' ? n + 1 : 0;
}

static size_t m_span(const char *p, int (*cls)(int))
{
	size_t n = 0;

	while (p[n] && cls((unsigned char)p[n]))
		n++;
	return n;
}

static size_t m_dec(const char *p)
{
	return m_span(p, isdigit);
}

static size_t m_hex(const char *p)
{
	size_t n;

	if (p[0] != '0' || p[1] != 'x')
		return 0;
	n = m_span(p + 2, isxdigit);
	return n ? n + 2 : 0;
}

/* r{hex}, and in terms also r0x{hex} */
static size_t m_raw(const char *p, bool with_0x)
{
	size_t n;

	if (p[0] != 'r')
		return 0;
	if (with_0x && p[1] == '0' && p[2] == 'x') {
		n = m_span(p + 3, isxdigit);
		return n ? n + 3 : 0;
	}
	n = m_span(p + 1, isxdigit);
	return n ? n + 1 : 0;
}

static size_t m_charset(const char *p, const char *set, size_t max)
{
	size_t n = 0;

	while (p[n] && strchr(set, p[n]) && n < max)
		n++;
	return n;
}

static size_t m_literal(const char *p, const char *lit)
{
	size_t n = strlen(lit);

	return strncmp(p, lit, n) ? 0 : n;
}

/* prefix[a-z-]+ */
static size_t m_prefix_lower(const char *p, const char *prefix)
{
	size_t n = m_literal(p, prefix), k;

	if (!n)
		return 0;
	k = m_charset(p + n, "abcdefghijklmnopqrstuvwxyz-", SIZE_MAX);
	return k ? n + k : 0;
}

/* @[a-zA-Z0-9_.]+(=[a-zA-Z0-9_*?.:]+)? */
static size_t m_drv_cfg(const char *p)
{
	size_t n, k;

	if (p[0] != '@')
		return 0;
	for (n = 1; p[n] && (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.'); n++)
		;
	if (n == 1)
		return 0;
	if (p[n] == '=') {
		for (k = n + 1; p[k] && (isalnum((unsigned char)p[k]) || strchr("_*?.:", p[k])); k++)
			;
		if (k > n + 1)
			n = k;
	}
	return n;
}

static bool is_not_event_sep(int c)
{
	return c && c != ',' && c != '{' && c != '}' && c != '/';
}

/* [^,{}/]+ from p; 0 when none. */
static size_t m_event_chars(const char *p)
{
	size_t n = 0;

	while (is_not_event_sep((unsigned char)p[n]))
		n++;
	return n;
}

/* group: [^,{}/]*[{][^}]*[}][^,{}/]* */
static size_t m_group(const char *p)
{
	size_t n = m_event_chars(p);

	if (p[n] != '{')
		return 0;
	n++;
	while (p[n] && p[n] != '}')
		n++;
	if (p[n] != '}')
		return 0;
	n++;
	return n + m_event_chars(p + n);
}

/* event_pmu: [^,{}/]+[/][^/]*[/][^,{}/]* */
static size_t m_event_pmu(const char *p)
{
	size_t n = m_event_chars(p);

	if (!n || p[n] != '/')
		return 0;
	n++;
	while (p[n] && p[n] != '/')
		n++;
	if (p[n] != '/')
		return 0;
	n++;
	return n + m_event_chars(p + n);
}

/* A candidate match: the longest wins, the first on a tie. */
struct lex_match {
	size_t	len;
	int	rule;
	int	idx;
};

static void lex_match__offer(struct lex_match *m, size_t len, int rule, int idx)
{
	if (len > m->len) {
		m->len = len;
		m->rule = rule;
		m->idx = idx;
	}
}

enum lex_rule {
	R_TERM, R_CFG_RAW, R_CFG_COMMA, R_CFG_SLASH, R_NAME_MINUS, R_ARRAY, R_DRV_CFG,
	R_SYM, R_TOOL, R_KERNEL_PMU, R_CACHE_TYPE, R_CACHE_OP, R_MEM, R_RAW, R_DEC, R_HEX,
	R_MODIFIER, R_BPF, R_NAME, R_NAME_TAG, R_CHAR, R_SKIP,
};

/* "file.o", "file.bpf*", "file.c*" that exists: perf loads it as a BPF program. */
static size_t m_bpf(const char *p)
{
	size_t n = 0, i;
	char path[PATH_MAX];
	struct stat st;

	while (p[n] && p[n] != ',' && p[n] != '{' && p[n] != '}')
		n++;
	for (i = n; i > 1; i--) {
		if (p[i - 1] == 'o' && p[i - 2] == '.')
			break;
		if (p[i - 1] == 'c' && p[i - 2] == '.')
			break;
	}
	if (i <= 1 || i >= sizeof(path))
		return 0;
	memcpy(path, p, i);
	path[i] = '\0';
	return stat(path, &st) == 0 ? i : 0;
}

static void lex_initial_rules(const char *p, struct lex_match *m)
{
	size_t i, j;

	for (i = 0; i < NR_SYMBOLS; i++)
		lex_match__offer(m, m_literal(p, event_symbols[i].symbol), R_SYM, (int)i);
	for (i = 0; i < ARRAY_SIZE(tool_events); i++)
		lex_match__offer(m, m_literal(p, tool_events[i]), R_TOOL, (int)i);
	for (i = 0; i < ARRAY_SIZE(kernel_pmu_events); i++)
		lex_match__offer(m, m_literal(p, kernel_pmu_events[i]), R_KERNEL_PMU, 0);
	for (i = 0; i < ARRAY_SIZE(kernel_pmu_prefixes); i++)
		lex_match__offer(m, m_prefix_lower(p, kernel_pmu_prefixes[i]), R_KERNEL_PMU, 0);
	for (i = 0; i < NR_CACHE_TYPES; i++)
		for (j = 0; j < MAX_ALIASES && cache_types[i][j]; j++)
			lex_match__offer(m, m_literal(p, cache_types[i][j]), R_CACHE_TYPE, 0);
	for (i = 0; i < NR_CACHE_OPS; i++)
		for (j = 0; j < MAX_ALIASES && cache_ops[i][j]; j++)
			lex_match__offer(m, m_literal(p, cache_ops[i][j]), R_CACHE_OP, 0);
	for (i = 0; i < NR_CACHE_RESULTS; i++)
		for (j = 0; j < MAX_ALIASES && cache_results[i][j]; j++)
			lex_match__offer(m, m_literal(p, cache_results[i][j]), R_CACHE_OP, 0);
	lex_match__offer(m, m_literal(p, "mem:"), R_MEM, 0);
	lex_match__offer(m, m_raw(p, false), R_RAW, 0);
	lex_match__offer(m, m_dec(p), R_DEC, 0);
	lex_match__offer(m, m_hex(p), R_HEX, 0);
	lex_match__offer(m, m_charset(p, "ukhpPGHSDIWeb", SIZE_MAX), R_MODIFIER, 0);
	lex_match__offer(m, m_bpf(p), R_BPF, 0);
	lex_match__offer(m, m_name(p), R_NAME, 0);
	lex_match__offer(m, m_name_tag(p), R_NAME_TAG, 0);
	if (*p && strchr("/-,:{}=", *p))
		lex_match__offer(m, 1, R_CHAR, 0);
	lex_match__offer(m, *p ? 1 : 0, R_SKIP, 0);	/* '\n' and any other character */
}

static void lex_config_rules(const char *p, struct lex_match *m)
{
	int k;

	for (k = TERM_CONFIG; k < NR_TERM_KINDS; k++)
		if (k != TERM_DRV_CFG)
			lex_match__offer(m, m_literal(p, term_names[k]), R_TERM, k);
	lex_match__offer(m, m_raw(p, true), R_CFG_RAW, 0);
	if (*p == ',')
		lex_match__offer(m, 1, R_CFG_COMMA, 0);
	if (*p == '/')
		lex_match__offer(m, 1, R_CFG_SLASH, 0);
	lex_match__offer(m, m_name_minus(p), R_NAME_MINUS, 0);
	if (*p == '[')
		lex_match__offer(m, 1, R_ARRAY, 0);
	lex_match__offer(m, m_drv_cfg(p), R_DRV_CFG, 0);
}

static int tok__number(struct token *tok, const char *s, int base, int type)
{
	char *end;

	errno = 0;
	tok->num = strtoull(s, &end, base);
	tok->type = errno ? T_ERROR : type;
	return 0;
}

static void lex__set_text(struct token *tok, const char *p, size_t len)
{
	tok->text = p;
	tok->tlen = len;
}

/* A name in the INITIAL state: a PMU event name (or part of one), or a name. */
static int lex__name_type(struct lexer *lx, const char *p, size_t len)
{
	switch (parse_state__sym_type(lx->ps, p, len)) {
	case PMU_SYM_EVENT:
		return T_KERNEL_PMU_EVENT;
	case PMU_SYM_PREFIX:
		return T_PMU_EVENT_PRE;
	case PMU_SYM_SUFFIX:
		return T_PMU_EVENT_SUF;
	case PMU_SYM_SUFFIX2:
		return T_PMU_EVENT_SUF2;
	default:
		return T_NAME;
	}
}

/* The token of a matched INITIAL/CONFIG rule; false for rules that make none. */
static bool lex__action(struct lexer *lx, const struct lex_match *m, const char *p,
			struct token *tok)
{
	char buf[24];

	lex__set_text(tok, p, m->len);
	switch (m->rule) {
	case R_TERM:
		tok->type = T_TERM;
		tok->num = (u64)m->idx;
		return true;
	case R_CFG_RAW:
	case R_RAW:
		if (lex__name_type(lx, p, m->len) == T_KERNEL_PMU_EVENT) {
			tok->type = T_NAME;	/* a PMU event spelled like a raw one */
			return true;
		}
		if (m->len - 1 >= sizeof(buf)) {
			tok->type = T_ERROR;
			return true;
		}
		memcpy(buf, p + 1, m->len - 1);
		buf[m->len - 1] = '\0';
		return !tok__number(tok, buf, 16, T_RAW);
	case R_CFG_COMMA:
		tok->type = ',';
		return true;
	case R_CFG_SLASH:
		lx->state = LX_INITIAL;
		tok->type = '/';
		return true;
	case R_NAME_MINUS:
		tok->type = T_NAME;
		return true;
	case R_ARRAY:
		tok->type = T_ARRAY;
		return true;
	case R_DRV_CFG:
		tok->type = T_DRV_CFG;
		lex__set_text(tok, p + 1, m->len - 1);
		return true;
	case R_SYM:
		tok->type = event_symbols[m->idx].type == PERF_TYPE_HARDWARE ? T_SYM_HW : T_SYM_SW;
		tok->num = (u64)m->idx;
		return true;
	case R_TOOL:
		tok->type = T_TOOL;
		tok->num = (u64)m->idx;
		return true;
	case R_KERNEL_PMU:
		tok->type = T_KERNEL_PMU_EVENT;
		return true;
	case R_CACHE_TYPE:
		tok->type = T_CACHE_TYPE;
		return true;
	case R_CACHE_OP:
		tok->type = T_CACHE_OP;
		return true;
	case R_MEM:
		lx->state = LX_MEM;
		tok->type = T_MEM;
		return true;
	case R_DEC:
	case R_HEX:
		if (m->len >= sizeof(buf)) {
			tok->type = T_ERROR;
			return true;
		}
		memcpy(buf, p, m->len);
		buf[m->len] = '\0';
		return !tok__number(tok, buf, m->rule == R_DEC ? 10 : 16, T_VALUE);
	case R_MODIFIER:
		tok->type = T_MODIFIER;
		return true;
	case R_BPF:
		tok->type = T_BPF;
		return true;
	case R_NAME:
		tok->type = lex__name_type(lx, p, m->len);
		return true;
	case R_NAME_TAG:
		tok->type = T_NAME;
		lex__set_text(tok, p + 1, m->len - 2);
		return true;
	case R_CHAR:
		tok->type = *p;
		if (*p == '/')
			lx->state = LX_CONFIG;
		else if (*p == ',' || *p == '{')
			lx->state = LX_EVENT;
		return true;
	default:
		return false;		/* skipped */
	}
}

/* The MEM state: r/w/x flags, ':', '/', numbers; anything else ends it. */
static bool lex__mem(struct lexer *lx, const char *p, struct token *tok)
{
	struct lex_match m = { 0 };
	char buf[24];

	lex_match__offer(&m, m_charset(p, "rwx", 3), R_MODIFIER, 0);
	if (*p == ':' || *p == '/')
		lex_match__offer(&m, 1, R_CHAR, 0);
	lex_match__offer(&m, m_dec(p), R_DEC, 0);
	lex_match__offer(&m, m_hex(p), R_HEX, 0);
	if (!m.len) {
		lx->state = LX_INITIAL;
		return false;
	}
	tok->len = m.len;
	lex__set_text(tok, p, m.len);
	if (m.rule == R_MODIFIER) {
		tok->type = T_MODIFIER_BP;
	} else if (m.rule == R_CHAR) {
		tok->type = *p;
	} else if (m.len >= sizeof(buf)) {
		tok->type = T_ERROR;
	} else {
		memcpy(buf, p, m.len);
		buf[m.len] = '\0';
		tok__number(tok, buf, m.rule == R_DEC ? 10 : 16, T_VALUE);
	}
	return true;
}

/* The EVENT state: the text of the event starting here, or a group's start. */
static bool lex__event(struct lexer *lx, const char *p, struct token *tok)
{
	size_t g = m_group(p), e = m_event_pmu(p), n = m_event_chars(p);

	if (e < n)
		e = n;
	if (*p == ',' && !g && !e) {
		tok->type = ',';
		tok->len = 1;
		return true;
	}
	if (g && g >= e) {
		lx->state = LX_INITIAL;	/* the group's parts come as tokens */
		return false;
	}
	if (!e) {
		if (*p)
			lx->pos++;	/* no rule: the character is passed over */
		else
			lx->state = LX_INITIAL;
		return false;
	}
	lx->state = LX_INITIAL;
	tok->type = T_EVENT_NAME;
	tok->len = 0;		/* the text is read again as tokens */
	lex__set_text(tok, p, e);
	return true;
}

static void lexer__next(struct lexer *lx, struct token *tok)
{
	for (;;) {
		const char *p = lx->s + lx->pos;
		struct lex_match m = { 0 };

		memset(tok, 0, sizeof(*tok));
		tok->pos = lx->pos;
		if (lx->state == LX_EVENT) {
			if (lex__event(lx, p, tok)) {
				lx->pos += tok->len;
				return;
			}
			continue;
		}
		if (lx->state == LX_MEM) {
			if (lex__mem(lx, p, tok)) {
				lx->pos += tok->len;
				return;
			}
			continue;
		}
		if (!*p) {
			tok->type = T_END;
			return;
		}
		if (lx->state == LX_CONFIG)
			lex_config_rules(p, &m);
		lex_initial_rules(p, &m);
		lx->pos += m.len;
		tok->len = m.len;
		if (lex__action(lx, &m, p, tok))
			return;
	}
}

/* ---- the parser: state and helpers -------------------------------------------- */

struct parser {
	struct lexer		lx;
	struct token		tok;		/* the lookahead */
	struct parse_state	*ps;
	const char		*str;
	size_t			event_pos;	/* where the current event starts */
	size_t			event_len;
	bool			in_terms;	/* parsing a PMU's named event */
};

static void parser__next(struct parser *p)
{
	lexer__next(&p->lx, &p->tok);
}

static char *tok__strdup(const struct token *tok)
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
static int parser__syntax(struct parser *p)
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

static bool parser__accept(struct parser *p, int type)
{
	if (p->tok.type != type)
		return false;
	parser__next(p);
	return true;
}

static int parser__expect(struct parser *p, int type)
{
	return parser__accept(p, type) ? 0 : parser__syntax(p);
}

/* ---- terms: parsing ---------------------------------------------------------------- */

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
static int parser__slash_terms(struct parser *p, struct terms *ts)
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
static void parser__sep_dc(struct parser *p)
{
	parser__accept(p, ':');
}

/* ---- terms: checking and applying (perf's config_term_*) ----------------------- */

enum terms_mode { TERMS_COMMON, TERMS_PMU, TERMS_TRACEPOINT };

static int term__error(struct parser *p, const struct term *t, const char *what)
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

/* perf's config_term_common(): type checks, and config/config1/config2 into attr. */
static int term__common(struct parser *p, const struct term *t, struct perf_event_attr *attr)
{
	switch (t->kind) {
	case TERM_CONFIG:
	case TERM_CONFIG1:
	case TERM_CONFIG2:
		if (term__want_num(p, t))
			return -EINVAL;
		if (t->kind == TERM_CONFIG)
			attr->config = t->num;
		else if (t->kind == TERM_CONFIG1)
			attr->config1 = t->num;
		else
			attr->config2 = t->num;
		return 0;
	case TERM_BRANCH_TYPE:
		if (term__want_str(p, t))
			return -EINVAL;
		if (strlen(t->str) >= EVSEL_TERM_STR_MAX)
			return term__error(p, t, "too long");
		if (strcmp(t->str, "no")) {
			u64 mode = attr->branch_sample_type;

			if (parse_events__branch_str(t->str, &mode))
				return term__error(p, t, "invalid branch sample type");
			attr->branch_sample_type = mode;
		}
		return 0;
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

static int terms__check(struct parser *p, const struct terms *ts, struct perf_event_attr *attr,
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

/* perf's get_config_terms(): what the record configuration applies later. */
static void terms__to_evsel(const struct terms *ts, struct evsel_terms *et)
{
	int i;

	memset(et, 0, sizeof(*et));
	for (i = 0; ts && i < ts->nr; i++) {
		const struct term *t = &ts->v[i];

		switch (t->kind) {
		case TERM_PERIOD:
			et->period = t->num;
			evsel_terms__set(et, EVSEL_TERM_PERIOD, t->weak);
			break;
		case TERM_FREQ:
			et->freq = t->num;
			evsel_terms__set(et, EVSEL_TERM_FREQ, t->weak);
			break;
		case TERM_TIME:
			et->time = t->num;
			evsel_terms__set(et, EVSEL_TERM_TIME, t->weak);
			break;
		case TERM_CALLGRAPH:
			snprintf(et->callgraph, sizeof(et->callgraph), "%s", t->str);
			evsel_terms__set(et, EVSEL_TERM_CALLGRAPH, t->weak);
			break;
		case TERM_BRANCH_TYPE:
			snprintf(et->branch, sizeof(et->branch), "%s", t->str);
			evsel_terms__set(et, EVSEL_TERM_BRANCH, t->weak);
			break;
		case TERM_STACK_SIZE:
			et->stack_size = t->num;
			evsel_terms__set(et, EVSEL_TERM_STACK_SIZE, t->weak);
			break;
		case TERM_INHERIT:
		case TERM_NOINHERIT:
			et->inherit = (t->kind == TERM_INHERIT) == (t->num != 0);
			evsel_terms__set(et, EVSEL_TERM_INHERIT, t->weak);
			break;
		case TERM_MAX_STACK:
			et->max_stack = t->num;
			evsel_terms__set(et, EVSEL_TERM_MAX_STACK, t->weak);
			break;
		case TERM_NR:
			et->max_events = t->num;
			evsel_terms__set(et, EVSEL_TERM_MAX_EVENTS, t->weak);
			break;
		case TERM_OVERWRITE:
		case TERM_NOOVERWRITE:
			et->overwrite = (t->kind == TERM_OVERWRITE) == (t->num != 0);
			evsel_terms__set(et, EVSEL_TERM_OVERWRITE, t->weak);
			break;
		case TERM_DRV_CFG:
			evsel_terms__set(et, EVSEL_TERM_DRV_CFG, t->weak);
			break;
		case TERM_PERCORE:
			evsel_terms__set(et, EVSEL_TERM_PERCORE, t->weak);
			break;
		case TERM_AUX_OUTPUT:
			et->aux_output = t->num != 0;
			evsel_terms__set(et, EVSEL_TERM_AUX_OUTPUT, t->weak);
			break;
		case TERM_AUX_SAMPLE_SIZE:
			et->aux_sample_size = t->num;
			evsel_terms__set(et, EVSEL_TERM_AUX_SAMPLE_SIZE, t->weak);
			break;
		default:
			break;
		}
	}
}

/* ---- modifiers (perf's get_event_modifier()) --------------------------------------- */

struct event_mod {
	bool	eu, ek, eh, eH, eG, eI;
	int	precise;
	bool	precise_max, exclude_GH, sample_read, pinned, exclusive, weak;
};

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

/*
 * The modifiers applied to evsel: from nothing for an event's own
 * modifiers, from what the evsel has for a group's (add).
 */
static int event_mod__parse(struct event_mod *m, const char *mods, size_t len,
			    const struct evsel *evsel)
{
	const struct perf_event_attr *a = evsel ? &evsel->attr : NULL;
	bool exclude;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (a) {
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
	exclude = m->eu || m->ek || m->eh;
	for (i = 0; i < len; i++) {
		switch (mods[i]) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = m->eu = m->ek = m->eh = true;
			if (mods[i] == 'u') {
				m->eG |= !m->exclude_GH;
				m->eu = false;
			} else if (mods[i] == 'k') {
				m->ek = false;
			} else {
				m->eh = false;
			}
			break;
		case 'G':
		case 'H':
			if (!m->exclude_GH)
				m->exclude_GH = m->eG = m->eH = true;
			if (mods[i] == 'G')
				m->eG = false;
			else
				m->eH = false;
			break;
		case 'I':
			m->eI = true;
			break;
		case 'p':
			m->precise++;
			m->eG |= !m->exclude_GH;	/* precise goes with exclude_guest */
			break;
		case 'P':
			m->precise_max = true;
			break;
		case 'S':
			m->sample_read = true;
			break;
		case 'D':
			m->pinned = true;
			break;
		case 'e':
			m->exclusive = true;
			break;
		case 'W':
			m->weak = true;
			break;
		case 'b':
			break;		/* bpf counters: perf stat's */
		default:
			return -EINVAL;
		}
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
static int parser__modifiers(struct parser *p, const struct token *tok, int first, bool add)
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

/* ---- events: symbols, raw, numeric, cache, breakpoints -------------------------------- */

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
static int parser__opt_terms(struct parser *p, struct terms *ts)
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

/* ---- events: tracepoints ------------------------------------------------------------- */

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
static int parser__tracepoint(struct parser *p, const struct token *first)
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

/* ---- events: PMUs ------------------------------------------------------------------ */

static int parser__term_list(struct parser *p, const char *text, struct terms *ts);

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
static int parser__pmu(struct parser *p, const struct token *name_tok)
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
static int parser__kernel_pmu_event(struct parser *p)
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
static int parser__pmu_event_prefix(struct parser *p)
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

/* ---- events and groups ------------------------------------------------------------- */

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
static int parser__term_list(struct parser *p, const char *text, struct terms *ts)
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

/* ---- the default event ------------------------------------------------- */

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
