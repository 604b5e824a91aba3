// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events-lex.c — the scanner of -e strings, after the rules of perf
 * 6.1's flex scanner, and the names it knows (hardware and software
 * symbols, tool events, cache names).
 *
 * The longest match wins, the earlier rule on a tie; the start of each
 * event is also taken whole as its name (T_EVENT_NAME); what no rule
 * matches is skipped. Its start conditions (enum lex_state) are perf's:
 * an event's start, the initial rules, inside a PMU's term list, after
 * "mem:". PMU event names (PE_KERNEL_PMU_EVENT and the prefix/suffix
 * pairs) come from the sysfs names parse-events-pmu.c read into the parse
 * state.
 *
 * Data flow: the parser (parse-events.c) calls lexer__next() for each
 * token; the lexer reads the string, the parse state's PMU names and
 * term_names (parse-events-terms.c), and hands back a struct token whose
 * text points into the string. Runs on the parsing thread; no state but
 * the struct lexer.
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

/* parse-events.l's symbol rules, aliases as entries of their own. */
const struct event_symbol event_symbols[] = {
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

/* Hardware cache events: type, operation and result, with their spellings. */
const char *const cache_types[NR_CACHE_TYPES][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
const char *const cache_ops[NR_CACHE_OPS][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
const char *const cache_results[NR_CACHE_RESULTS][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
const unsigned int cache_type_ops[NR_CACHE_TYPES] = { 7, 5, 7, 7, 1, 1, 7 };

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

/*
 * [^,{}/]* OPEN [^CLOSE]* CLOSE [^,{}/]*: its length, or 0 (named: the part
 * before OPEN may not be empty).
 */
static size_t m_enclosed(const char *p, char open, char close, bool named)
{
	size_t n = m_event_chars(p);

	if ((named && !n) || p[n] != open)
		return 0;
	n++;
	while (p[n] && p[n] != close)
		n++;
	if (p[n] != close)
		return 0;
	n++;
	return n + m_event_chars(p + n);
}

/* group: [^,{}/]*[{][^}]*[}][^,{}/]* */
static size_t m_group(const char *p)
{
	return m_enclosed(p, '{', '}', false);
}

/* event_pmu: [^,{}/]+[/][^/]*[/][^,{}/]* */
static size_t m_event_pmu(const char *p)
{
	return m_enclosed(p, '/', '/', true);
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
	NR_LEX_RULES
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

/*
 * The rules whose action is a token type alone: with the index of the
 * name that matched (idx), and a new start condition (to_state).
 */
static const struct lex_simple_action {
	int		type;		/* 0: not a simple rule */
	bool		idx;
	bool		to_state;
	enum lex_state	state;
} lex_simple[NR_LEX_RULES] = {
	[R_TERM]	= { T_TERM, true, false, 0 },
	[R_CFG_COMMA]	= { ',', false, false, 0 },
	[R_CFG_SLASH]	= { '/', false, true, LX_INITIAL },
	[R_NAME_MINUS]	= { T_NAME, false, false, 0 },
	[R_ARRAY]	= { T_ARRAY, false, false, 0 },
	[R_TOOL]	= { T_TOOL, true, false, 0 },
	[R_KERNEL_PMU]	= { T_KERNEL_PMU_EVENT, false, false, 0 },
	[R_CACHE_TYPE]	= { T_CACHE_TYPE, false, false, 0 },
	[R_CACHE_OP]	= { T_CACHE_OP, false, false, 0 },
	[R_MEM]		= { T_MEM, false, true, LX_MEM },
	[R_MODIFIER]	= { T_MODIFIER, false, false, 0 },
	[R_BPF]		= { T_BPF, false, false, 0 },
};

/* r1a8 (cfg: inside a term list): a raw config, or a PMU event spelled like one. */
static bool lex__raw(struct lexer *lx, const struct lex_match *m, const char *p,
		     struct token *tok)
{
	char buf[24];

	if (lex__name_type(lx, p, m->len) == T_KERNEL_PMU_EVENT) {
		tok->type = T_NAME;
		return true;
	}
	if (m->len - 1 >= sizeof(buf)) {
		tok->type = T_ERROR;
		return true;
	}
	memcpy(buf, p + 1, m->len - 1);
	buf[m->len - 1] = '\0';
	return !tok__number(tok, buf, 16, T_RAW);
}

/* A decimal or hexadecimal number; T_ERROR when it does not fit. */
static bool lex__value(const struct lex_match *m, const char *p, struct token *tok)
{
	char buf[24];

	if (m->len >= sizeof(buf)) {
		tok->type = T_ERROR;
		return true;
	}
	memcpy(buf, p, m->len);
	buf[m->len] = '\0';
	return !tok__number(tok, buf, m->rule == R_DEC ? 10 : 16, T_VALUE);
}

/* A single character: '/' opens a term list, ',' and '{' start an event. */
static void lex__char(struct lexer *lx, const char *p, struct token *tok)
{
	tok->type = *p;
	if (*p == '/')
		lx->state = LX_CONFIG;
	else if (*p == ',' || *p == '{')
		lx->state = LX_EVENT;
}

/* The token of the rule that won; false when the rule skips what it matched. */
static bool lex__action(struct lexer *lx, const struct lex_match *m, const char *p,
			struct token *tok)
{
	const struct lex_simple_action *a = &lex_simple[m->rule];

	lex__set_text(tok, p, m->len);
	if (a->type) {
		tok->type = a->type;
		if (a->idx)
			tok->num = (u64)m->idx;
		if (a->to_state)
			lx->state = a->state;
		return true;
	}
	switch (m->rule) {
	case R_CFG_RAW:
	case R_RAW:
		return lex__raw(lx, m, p, tok);
	case R_DEC:
	case R_HEX:
		return lex__value(m, p, tok);
	case R_DRV_CFG:
		tok->type = T_DRV_CFG;
		lex__set_text(tok, p + 1, m->len - 1);
		return true;
	case R_SYM:
		tok->type = event_symbols[m->idx].type == PERF_TYPE_HARDWARE ? T_SYM_HW : T_SYM_SW;
		tok->num = (u64)m->idx;
		return true;
	case R_NAME:
		tok->type = lex__name_type(lx, p, m->len);
		return true;
	case R_NAME_TAG:
		tok->type = T_NAME;
		lex__set_text(tok, p + 1, m->len - 2);
		return true;
	case R_CHAR:
		lex__char(lx, p, tok);
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

void lexer__next(struct lexer *lx, struct token *tok)
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
