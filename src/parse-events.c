// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events.c — perf's -e syntax, the part this recorder supports.
 *
 * A string is a comma list of terms (a comma inside "/…/" or "{…}" does not
 * split, so those reach the user whole in the error). A term is
 *
 *	symbol[:mods]		cpu-clock, cs:u, cycles:k	(software, hardware)
 *	sys:name[:mods]		sched:sched_switch, sched:*, *:sched_switch
 *
 * with perf's names and aliases, tracepoint globs (fnmatch) expanded through
 * tracefs in its readdir order, and perf's modifiers u k h G H I p. The
 * exclude_* bits follow perf's get_event_modifier(): no modifier leaves
 * exclude_guest set (perf's default for parsed events); a modifier string
 * starts from "count everything", the first of u/k/h excludes all three
 * levels and each of them then includes its own, u and p also exclude the
 * guest unless G or H is given. Names are perf's: the term as typed for
 * symbols ("cpu-clock:u"), "sys:name" for tracepoints whatever the modifier.
 *
 * Who runs it: the main thread, while the command line is parsed.
 *
 * Data flow: parse_events() builds every evsel of the string first and adds
 * them to the evlist only when the whole string parsed, so a bad string adds
 * nothing. Sampling fields (period, sample_type) are the record
 * configuration's business; only type, config, size, the exclude bits and
 * precise_ip are set here.
 *
 * Limits: no PMU terms ("cpu/event=…/"), raw events (r1a8), breakpoints
 * (mem:), cache events or groups; they are reported, not guessed at.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precord/parse-events.h"
#include "precord/evlist.h"
#include "precord/tracefs.h"

#define PERF_LIST_HINT	"'perf list' shows the events"
#define TRACEFS_MOUNT	"mount -t tracefs nodev /sys/kernel/tracing"

struct event_symbol {
	const char	*symbol;
	const char	*alias;
	u32		type;
	u64		config;
};

/* perf's event_symbols_hw[] and event_symbols_sw[] (util/parse-events.c). */
static const struct event_symbol event_symbols[] = {
	{ "cpu-cycles",			"cycles",		PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	"branches",		PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	"idle-cycles-frontend",	PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	"idle-cycles-backend",	PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			NULL,			PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",			NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		"faults",		PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		"cs",			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		"migrations",		PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		NULL,			PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CGROUP_SWITCHES },
};

static const struct event_symbol *event_symbol__find(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(event_symbols) / sizeof(event_symbols[0]); i++) {
		const struct event_symbol *sym = &event_symbols[i];

		if ((strlen(sym->symbol) == len && !strncmp(sym->symbol, s, len)) ||
		    (sym->alias && strlen(sym->alias) == len && !strncmp(sym->alias, s, len)))
			return sym;
	}
	return NULL;
}

__attribute__((format(printf, 3, 4)))
static int parse_events__error(struct parse_events_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return errnum;
}

/* ---- modifiers --------------------------------------------------------- */

struct event_mod {
	bool	eu, ek, eh;	/* exclude user, kernel, hypervisor */
	bool	eG, eH;		/* exclude guest, host */
	bool	eI;		/* exclude idle */
	int	precise;
};

#define EVENT_MODS		"ukhGHIp"
#define EVENT_MODS_PERF_ONLY	"PSDWe"		/* perf's, not supported here */

static int event_mod__check(const char *term, const char *mods, struct parse_events_error *err)
{
	const char *p;

	for (p = mods; *p; p++) {
		if (strchr(EVENT_MODS_PERF_ONLY, *p))
			return parse_events__error(err, -EINVAL,
				"event '%s': modifier '%c' is not supported by precord (u, k, h, G, H, I and p are)",
				term, *p);
		if (!strchr(EVENT_MODS, *p))
			return parse_events__error(err, -EINVAL,
				"event '%s' has an unknown modifier '%c'; the modifiers are u, k, h, G, H, I and p",
				term, *p);
		if (*p != 'p' && strchr(p + 1, *p))
			return parse_events__error(err, -EINVAL,
				"event '%s' repeats the modifier '%c'", term, *p);
	}
	return 0;
}

/* The levels u, k, h: the first one excludes all three, each includes itself. */
static void event_mod__level(struct event_mod *mod, bool *exclude, bool *level)
{
	if (!*exclude)
		*exclude = mod->eu = mod->ek = mod->eh = true;
	*level = false;
}

/* G and H: the first one excludes both, each includes itself. */
static void event_mod__virt(struct event_mod *mod, bool *exclude_GH, bool *which)
{
	if (!*exclude_GH)
		*exclude_GH = mod->eG = mod->eH = true;
	*which = false;
}

static int event_mod__parse(struct event_mod *mod, const char *term, const char *mods,
			    struct parse_events_error *err)
{
	bool exclude = false, exclude_GH = false;
	int ret = event_mod__check(term, mods, err);
	const char *p;

	memset(mod, 0, sizeof(*mod));
	if (ret)
		return ret;
	if (!*mods) {
		mod->eG = true;		/* no modifier: perf's default */
		return 0;
	}
	for (p = mods; *p; p++) {
		switch (*p) {
		case 'u':
			event_mod__level(mod, &exclude, &mod->eu);
			mod->eG |= !exclude_GH;
			break;
		case 'k':
			event_mod__level(mod, &exclude, &mod->ek);
			break;
		case 'h':
			event_mod__level(mod, &exclude, &mod->eh);
			break;
		case 'G':
			event_mod__virt(mod, &exclude_GH, &mod->eG);
			break;
		case 'H':
			event_mod__virt(mod, &exclude_GH, &mod->eH);
			break;
		case 'I':
			mod->eI = true;
			break;
		default:	/* 'p' */
			mod->precise++;
			mod->eG |= !exclude_GH;
			break;
		}
	}
	if (mod->precise > 3)
		return parse_events__error(err, -EINVAL,
			"event '%s' has %d p modifiers; precise_ip is at most 3 (ppp)",
			term, mod->precise);
	return 0;
}

static void event_mod__apply(const struct event_mod *mod, struct perf_event_attr *attr)
{
	attr->exclude_user = mod->eu;
	attr->exclude_kernel = mod->ek;
	attr->exclude_hv = mod->eh;
	attr->exclude_guest = mod->eG;
	attr->exclude_host = mod->eH;
	attr->exclude_idle = mod->eI;
	attr->precise_ip = (u64)mod->precise & 3;
}

/* ---- building evsels --------------------------------------------------- */

/* The evsels of one parse_events() call, added to the evlist at the end. */
struct parse_state {
	struct evsel			**evsels;
	int				nr;
	int				cap;
	struct parse_events_error	*err;
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

/* New evsel: attr of type/config with the modifiers, tracepoint names when sys is set. */
static int parse_state__add(struct parse_state *state, u32 type, u64 config,
			    const struct event_mod *mod, const char *name,
			    const char *sys, const char *tp)
{
	struct perf_event_attr attr;
	struct evsel *evsel;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	event_mod__apply(mod, &attr);

	evsel = evsel__new(&attr, name);
	if (!evsel)
		return -ENOMEM;
	if (sys) {
		evsel->tp_sys = strdup(sys);
		evsel->tp_name = strdup(tp);
		if (!evsel->tp_sys || !evsel->tp_name)
			goto out_delete;
	}
	if (parse_state__push(state, evsel))
		goto out_delete;
	return 0;

out_delete:
	evsel__delete(evsel);
	return -ENOMEM;
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

/* ---- tracepoints ------------------------------------------------------- */

struct tp_ctx {
	struct parse_state	*state;
	const struct event_mod	*mod;
	const char		*term;
	bool			any_sys;	/* the system part is a glob */
	int			added;
};

static int tracepoint__add(struct tp_ctx *ctx, const char *sys, const char *name, int id)
{
	char evname[512];

	snprintf(evname, sizeof(evname), "%s:%s", sys, name);
	return parse_state__add(ctx->state, PERF_TYPE_TRACEPOINT, (u64)id, ctx->mod, evname,
				sys, name);
}

static int tracepoint__add_match(void *arg, const char *sys, const char *name)
{
	struct tp_ctx *ctx = arg;
	int id = tracefs__event_id(sys, name), err;

	/*
	 * As perf: a glob passes over what has no id, and a glob of systems
	 * over ftrace's, which are no tracepoints perf_event_open() takes.
	 */
	if (id == -ENOENT || (ctx->any_sys && !strcmp(sys, "ftrace")))
		return 0;
	if (id < 0)
		return parse_events__error(ctx->state->err, id,
			"event '%s': cannot read the id of tracepoint %s:%s: %s",
			ctx->term, sys, name, strerror(-id));
	err = tracepoint__add(ctx, sys, name, id);
	if (err)
		return parse_events__error(ctx->state->err, err, "event '%s': %s", ctx->term,
					   strerror(-err));
	ctx->added++;
	return 0;
}

static bool tracepoint__is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int tracepoint__tracefs_error(struct parse_events_error *err, const char *term,
				     const char *mnt, int errnum)
{
	if (errnum == -EACCES || errnum == -EPERM)
		return parse_events__error(err, -EACCES,
			"event '%s': no permission to read %s/events; run as root or try 'mount -o remount,mode=755 %s'",
			term, mnt, mnt);
	return parse_events__error(err, errnum, "event '%s': cannot read %s/events: %s",
				   term, mnt, strerror(-errnum));
}

static int tracepoint__parse(struct parse_state *state, const char *term, const char *sys,
			     const char *name, const struct event_mod *mod)
{
	struct tp_ctx ctx = { .state = state, .mod = mod, .term = term };
	const char *mnt = tracefs__path();
	int ret;

	if (!mnt && errno == EACCES)
		return parse_events__error(state->err, -EACCES,
			"event '%s' is a tracepoint and tracefs is not mounted; as root, run '%s'",
			term, TRACEFS_MOUNT);
	if (!mnt)
		return parse_events__error(state->err, -ENODEV,
			"event '%s' is a tracepoint and this kernel has no tracefs (CONFIG_TRACING)",
			term);
	if (!*sys || !*name || strchr(sys, '/') || strchr(name, '/'))
		return parse_events__error(state->err, -ENOENT,
			"event '%s' is not known; " PERF_LIST_HINT, term);

	if (tracepoint__is_glob(sys) || tracepoint__is_glob(name)) {
		ctx.any_sys = tracepoint__is_glob(sys);
		ret = tracefs__for_each_event(sys, name, tracepoint__add_match, &ctx);
		if (ret == 0 || (ret > 0 && !ctx.added))
			return parse_events__error(state->err, -ENOENT,
				"event '%s' matches no tracepoint in %s/events; " PERF_LIST_HINT,
				term, mnt);
		if (ret < 0 && !state->err->msg[0])
			return tracepoint__tracefs_error(state->err, term, mnt, ret);
		return ret < 0 ? ret : 0;
	}

	ret = tracefs__event_id(sys, name);
	if (ret == -ENOENT)
		return parse_events__error(state->err, -ENOENT,
			"event '%s' is not known (no %s/events/%s/%s); " PERF_LIST_HINT,
			term, mnt, sys, name);
	if (ret < 0)
		return tracepoint__tracefs_error(state->err, term, mnt, ret);
	ret = tracepoint__add(&ctx, sys, name, ret);
	if (ret)
		return parse_events__error(state->err, ret, "event '%s': %s", term,
					   strerror(-ret));
	return 0;
}

/* ---- terms ------------------------------------------------------------- */

static int parse_events__symbol(struct parse_state *state, const char *term,
				const struct event_symbol *sym, const char *mods)
{
	struct event_mod mod;
	int err = event_mod__parse(&mod, term, mods, state->err);

	if (err)
		return err;
	err = parse_state__add(state, sym->type, sym->config, &mod, term, NULL, NULL);
	if (err)
		return parse_events__error(state->err, err, "event '%s': %s", term,
					   strerror(-err));
	return 0;
}

/* term is a writable copy of one comma-separated entry. */
static int parse_events__term(struct parse_state *state, char *term)
{
	const struct event_symbol *sym;
	char *colon = strchr(term, ':'), *name, *mods;
	struct event_mod mod;
	size_t len = colon ? (size_t)(colon - term) : strlen(term);
	int err;

	if (term[0] == '{')
		return parse_events__error(state->err, -EINVAL,
			"event '%s' is a group; precord does not support event groups, list the events without braces",
			term);
	sym = event_symbol__find(term, len);
	if (sym)
		return parse_events__symbol(state, term, sym, colon ? colon + 1 : "");
	if (!colon || strchr(term, '/'))
		return parse_events__error(state->err, -ENOENT,
			"event '%s' is not known; " PERF_LIST_HINT, term);

	/* sys:name[:mods]: split a copy, the term stays whole for messages. */
	name = strdup(term);
	if (!name)
		return parse_events__error(state->err, -ENOMEM, "event '%s': %s", term,
					   strerror(ENOMEM));
	name[len] = '\0';
	mods = strchr(name + len + 1, ':');
	if (mods)
		*mods++ = '\0';
	err = event_mod__parse(&mod, term, mods ? mods : "", state->err);
	if (!err)
		err = tracepoint__parse(state, term, name, name + len + 1, &mod);
	free(name);
	return err;
}

/* Length of the first entry of s: up to a comma outside "/…/" and "{…}". */
static size_t parse_events__entry_len(const char *s)
{
	bool in_slash = false;
	int depth = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '/')
			in_slash = !in_slash;
		else if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && depth)
			depth--;
		else if (s[i] == ',' && !in_slash && !depth)
			break;
	}
	return i;
}

static int parse_events__list(struct parse_state *state, const char *str)
{
	const char *p = str;
	size_t len;
	char *term;
	int err;

	if (!*str)
		return parse_events__error(state->err, -EINVAL,
			"event '' is empty; name an event, e.g. -e cpu-clock (" PERF_LIST_HINT ")");
	for (;;) {
		len = parse_events__entry_len(p);
		if (!len)
			return parse_events__error(state->err, -EINVAL,
				"event '%s' has an empty entry; separate events with single commas",
				str);
		term = strndup(p, len);
		if (!term)
			return parse_events__error(state->err, -ENOMEM, "event '%s': %s", str,
						   strerror(ENOMEM));
		err = parse_events__term(state, term);
		free(term);
		if (err)
			return err;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int parse_events(struct evlist *evlist, const char *str, struct parse_events_error *err)
{
	struct parse_events_error dummy;
	struct parse_state state = { .err = err ? err : &dummy };
	int ret;

	state.err->msg[0] = '\0';
	ret = parse_events__list(&state, str ? str : "");
	if (!ret) {
		ret = parse_state__commit(&state, evlist);
		if (ret)
			parse_events__error(state.err, ret, "event '%s': %s", str, strerror(-ret));
	}
	parse_state__exit(&state);
	return ret;
}

/* ---- the default event ------------------------------------------------- */

/* A core PMU with a cycles event: /sys/bus/event_source/devices/cpu* (cpu, cpu_core…). */
static bool parse_events__has_cpu_pmu(void)
{
	static const char devices[] = "/sys/bus/event_source/devices";
	char path[512];
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir(devices);

	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events/cpu-cycles", devices, d->d_name);
		found = access(path, F_OK) == 0;
		snprintf(path, sizeof(path), "%s/%s/events/cycles", devices, d->d_name);
		found = found || access(path, F_OK) == 0;
	}
	closedir(dir);
	return found;
}

/* The ":…" perf appends to a name it makes up (evsel__add_modifiers()). */
void parse_events__modifier_suffix(const struct perf_event_attr *attr, char *buf, size_t size)
{
	bool guest_default = false;
	char mods[16];
	int n = 0;
	u64 i;

	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		if (!attr->exclude_kernel)
			mods[n++] = 'k';
		if (!attr->exclude_user)
			mods[n++] = 'u';
		if (!attr->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	for (i = 0; i < attr->precise_ip; i++)
		mods[n++] = 'p';
	guest_default |= attr->precise_ip != 0;
	if (attr->exclude_host || attr->exclude_guest == guest_default) {
		if (!attr->exclude_host)
			mods[n++] = 'H';
		if (!attr->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = '\0';
	snprintf(buf, size, "%s%s", n ? ":" : "", mods);
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
	struct parse_state state = { .err = err ? err : &dummy };
	struct event_mod mod;
	char name[64], suffix[24];
	struct perf_event_attr attr;
	int ret;

	memset(&mod, 0, sizeof(mod));
	mod.ek = !evlist__can_profile_kernel();
	state.err->msg[0] = '\0';
	if (parse_events__has_cpu_pmu()) {
		snprintf(name, sizeof(name), "cycles%s", mod.ek ? ":u" : "");
		ret = parse_state__add(&state, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				       &mod, name, NULL, NULL);
	} else {
		mod.precise = 3;
		memset(&attr, 0, sizeof(attr));
		event_mod__apply(&mod, &attr);
		parse_events__modifier_suffix(&attr, suffix, sizeof(suffix));
		snprintf(name, sizeof(name), "cpu-clock%s", suffix);
		ret = parse_state__add(&state, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				       &mod, name, NULL, NULL);
	}
	if (!ret)
		ret = parse_state__commit(&state, evlist);
	if (ret)
		parse_events__error(state.err, ret, "event 'cpu-clock': %s", strerror(-ret));
	parse_state__exit(&state);
	return ret;
}
