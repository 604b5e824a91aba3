/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse-events-internal.h — what the files of the -e parser share, and
 * nothing else includes. The module (include/precord/parse-events.h) is cut
 * into files by what they own:
 *
 *   parse-events.c             the grammar, one function per rule
 *   parse-events-lex.c         the scanner and the names it knows
 *   parse-events-terms.c       event terms: kinds, checks, into attrs
 *   parse-events-modifiers.c   modifiers into exclude bits
 *   parse-events-pmu.c         PMUs, their formats and named events
 *   parse-events-tracepoint.c  tracepoints and globs
 *
 * All of it runs on the thread that parses; nothing here is shared
 * between threads.
 */
#ifndef PRECORD_PARSE_EVENTS_INTERNAL_H
#define PRECORD_PARSE_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "precord/parse-events.h"
#include "precord/util.h"
#include "precord/evlist.h"
#include "precord/pmu.h"
#include "precord/tracefs.h"

#define PERF_LIST_HINT	"'perf list' shows the events"
#define TRACEFS_MOUNT	"mount -t tracefs nodev /sys/kernel/tracing"
#define MODIFIER_HELP	"u, k, h, G, H, I, P, S, D, e, W and b at most once each, p up to 3 times"

struct event_symbol {
	const char	*symbol;
	u32		type;
	u64		config;
};

#define MAX_ALIASES	8

#define NR_CACHE_TYPES		7
#define NR_CACHE_OPS		3
#define NR_CACHE_RESULTS	2

/* The names the scanner knows (parse-events-lex.c), which the grammar reads back. */
extern const struct event_symbol event_symbols[];
extern const char *const cache_types[NR_CACHE_TYPES][MAX_ALIASES];
extern const char *const cache_ops[NR_CACHE_OPS][MAX_ALIASES];
extern const char *const cache_results[NR_CACHE_RESULTS][MAX_ALIASES];
/* Which operations each cache type has (read, write, prefetch bits). */
extern const unsigned int cache_type_ops[NR_CACHE_TYPES];

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

/* Each kind's name as -e spells it (parse-events-terms.c). */
extern const char *const term_names[NR_TERM_KINDS];

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

enum pmu_sym_type { PMU_SYM_NONE, PMU_SYM_EVENT, PMU_SYM_PREFIX, PMU_SYM_SUFFIX, PMU_SYM_SUFFIX2 };

struct pmu_symbol {
	char			*name;
	enum pmu_sym_type	type;
};

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

struct parser {
	struct lexer		lx;
	struct token		tok;		/* the lookahead */
	struct parse_state	*ps;
	const char		*str;
	size_t			event_pos;	/* where the current event starts */
	size_t			event_len;
	bool			in_terms;	/* parsing a PMU's named event */
};

enum terms_mode { TERMS_COMMON, TERMS_PMU, TERMS_TRACEPOINT };

struct event_mod {
	bool	eu, ek, eh, eH, eG, eI;
	int	precise;
	bool	precise_max, exclude_GH, sample_read, pinned, exclusive, weak;
};

/* ---- parse-events.c ---- */

__attribute__((format(printf, 3, 4)))
int parse_events__error(struct parse_events_error *err, int errnum, const char *fmt, ...);
int parse_state__nomem(struct parse_state *state);
struct evsel *parse_state__add(struct parse_state *state, struct perf_event_attr *attr,
			       const char *name, const struct evsel_terms *terms);
void parser__next(struct parser *p);
char *tok__strdup(const struct token *tok);
int parser__syntax(struct parser *p);
bool parser__accept(struct parser *p, int type);
int parser__expect(struct parser *p, int type);
int parser__slash_terms(struct parser *p, struct terms *ts);
void parser__sep_dc(struct parser *p);
int parser__opt_terms(struct parser *p, struct terms *ts);
int parser__term_list(struct parser *p, const char *text, struct terms *ts);

/* ---- parse-events-lex.c ---- */

void lexer__next(struct lexer *lx, struct token *tok);

/* ---- parse-events-terms.c ---- */

void term__exit(struct term *t);
void terms__exit(struct terms *ts);
int terms__insert(struct terms *ts, int at, const struct term *t);
int terms__copy(struct terms *dst, const struct terms *src);
const char *terms__name(const struct terms *ts, enum term_kind kind);
int term__error(struct parser *p, const struct term *t, const char *what);
int terms__check(struct parser *p, const struct terms *ts, struct perf_event_attr *attr,
		 enum terms_mode mode);
void terms__to_evsel(const struct terms *ts, struct evsel_terms *et);

/* ---- parse-events-modifiers.c ---- */

int parser__modifiers(struct parser *p, const struct token *tok, int first, bool add);

/* ---- parse-events-pmu.c ---- */

enum pmu_sym_type parse_state__sym_type(struct parse_state *state, const char *s,
					size_t len);
void parse_state__free_syms(struct parse_state *state);
int parser__pmu(struct parser *p, const struct token *name_tok);
int parser__kernel_pmu_event(struct parser *p);
int parser__pmu_event_prefix(struct parser *p);

/* ---- parse-events-tracepoint.c ---- */

int parser__tracepoint(struct parser *p, const struct token *first);

#endif /* PRECORD_PARSE_EVENTS_INTERNAL_H */
