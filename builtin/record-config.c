// SPDX-License-Identifier: GPL-2.0
/*
 * record-config.c — what a recording records: the -e events parsed into
 * the evlist (perf's default event without one), the CPU and thread maps
 * of the target (-a, -C, -p, -t, or the workload), and every attr as perf
 * record sets it (evsel__config()), with the tracking event that carries
 * the side-band records.
 *
 * Runs on the main thread before anything is opened; errors are one line
 * on stderr and a -errno. Data flow: struct record_opts → the evlist's
 * evsels, maps and attrs → builtin-record.c opens them.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "precord/addr-filter.h"
#include "precord/parse-events.h"
#include "precord/pmu.h"

/* x86-64 user registers perf samples for DWARF unwinding (PERF_REGS_MASK without segments). */
#define DWARF_REGS_MASK_X86_64	0xff0fffULL
/* What DWARF unwinding cannot do without: IP and SP (perf's DWARF_MINIMAL_REGS). */
#define DWARF_MINIMAL_REGS	((1ULL << 8) | (1ULL << 7))

/* ---- events and targets ------------------------------------------------ */

/*
 * --exclude-perf for one evsel, as perf's add_exclude_perf_filter(): a
 * tracepoint filter on this process's id (its main thread: the kernel's
 * common_pid is a thread id), refused on anything but a tracepoint.
 */
static int record__exclude_perf(struct evsel *evsel)
{
	char filter[64];

	if (!evsel__is_tracepoint(evsel)) {
		fprintf(stderr, "precord: --exclude-perf option should follow a -e tracepoint "
			"option (%s is not a tracepoint)\n", evsel->name);
		return -EINVAL;
	}
	snprintf(filter, sizeof(filter), "common_pid != %d", (int)getpid());
	return evsel__append_filter(evsel, filter) ? -ENOMEM : 0;
}

/*
 * --filter and --exclude-perf for the evsels one -e added (from index
 * first on), in the order given, as perf's parse_filter(): a tracepoint
 * takes it as its filter, an event of a PMU with address filters as
 * address filters (in the kernel's syntax), any other event refuses it
 * with perf's words.
 */
static int record__add_filters(struct record *rec, int event, int first)
{
	struct record_opts *o = &rec->opts;
	struct evsel *evsel;
	int f, i, err;

	for (f = 0; f < o->nr_filters; f++) {
		if (o->filters[f].event != event)
			continue;
		for (i = first; i < rec->evlist->nr_entries; i++) {
			evsel = rec->evlist->entries[i];
			if (!o->filters[f].filter) {
				err = record__exclude_perf(evsel);
				if (err)
					return err;
				continue;
			}
			if (!evsel__is_tracepoint(evsel) && !pmu__nr_addr_filters(NULL, evsel->attr.type)) {
				fprintf(stderr, "precord: --filter '%s' for event '%s': This CPU does "
					"not support address filtering (only tracepoints and PMUs with "
					"address filters take a filter)\n", o->filters[f].filter,
					evsel->name);
				return -EINVAL;
			}
			if (evsel__is_tracepoint(evsel) ?
			    evsel__append_filter(evsel, o->filters[f].filter) :
			    addr_filter__append(evsel, o->filters[f].filter))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * One name of -G for the evsel at index n (perf's add_cgroup()): a cgroup
 * an earlier evsel opened is shared. Returns 0 or -errno, said.
 */
static int record__add_cgroup(struct record *rec, const char *name, int n)
{
	struct evlist *evlist = rec->evlist;
	struct cgroup *cgrp = NULL;
	char path[PATH_MAX * 2] = "";
	int i;

	for (i = 0; i < evlist->nr_entries && !cgrp; i++) {
		struct cgroup *c = evlist->entries[i]->cgrp;

		if (c && !strcmp(c->name, name))
			cgrp = cgroup__get(c);
	}
	if (!cgrp)
		cgrp = cgroup__open(NULL, name, path, sizeof(path));
	if (!cgrp && !path[0]) {
		fprintf(stderr, "precord: no cgroup hierarchy to find cgroup %s in: mount cgroup2 "
			"or cgroup v1's perf_event controller\n", name);
		return -ENOENT;
	}
	if (!cgrp) {
		fprintf(stderr, "precord: no access to cgroup %s: %s\n", path, strerror(errno));
		return -ENOENT;
	}
	/* as perf: the cgroup is opened before its event is looked for */
	if (n >= evlist->nr_entries) {
		fprintf(stderr, "precord: -G/--cgroup names more cgroups than there are events "
			"('%s' would be for event %d of %d); give one name per -e event\n",
			name, n + 1, evlist->nr_entries);
		cgroup__put(cgrp);
		return -EINVAL;
	}
	cgroup__put(evlist->entries[n]->cgrp);
	evlist->entries[n]->cgrp = cgrp;
	return 0;
}

/*
 * -G for the evsels parsed so far (perf's parse_cgroups()): each name,
 * empty ones included, goes to the next evsel in order, counting across
 * every -G of the command line; when the first -G has a single name, it
 * is every evsel's so far.
 */
static int record__add_cgroups(struct record *rec, int event)
{
	struct record_opts *o = &rec->opts;
	struct evlist *evlist = rec->evlist;
	int g, i, err;

	for (g = 0; g < o->nr_cgroups; g++) {
		const char *s = o->cgroups[g].names;

		if (o->cgroups[g].event != event)
			continue;
		for (;;) {
			size_t len = strcspn(s, ",");
			char name[PATH_MAX];

			if (len >= sizeof(name))
				len = sizeof(name) - 1;
			snprintf(name, sizeof(name), "%.*s", (int)len, s);
			err = *name ? record__add_cgroup(rec, name, rec->nr_cgroup_names) : 0;
			if (err)
				return err;
			rec->nr_cgroup_names++;
			if (!s[strcspn(s, ",")])
				break;
			s += strcspn(s, ",") + 1;
		}
		if (rec->nr_cgroup_names != 1)
			continue;
		for (i = 1; i < evlist->nr_entries; i++) {
			cgroup__put(evlist->entries[i]->cgrp);
			evlist->entries[i]->cgrp = cgroup__get(evlist->entries[0]->cgrp);
		}
	}
	return 0;
}

/*
 * The address filters of the events whose PMU has them, once every
 * --filter is in (perf's auxtrace_parse_filters()): symbols resolved, the
 * kernel's numeric string left in evsel->filter for
 * PERF_EVENT_IOC_SET_FILTER. 0 or -errno, said.
 */
static int record__resolve_addr_filters(struct record *rec)
{
	struct evsel *evsel;
	char msg[2048];
	int i, err;

	evlist__for_each_evsel(rec->evlist, evsel, i) {
		err = addr_filter__apply(evsel, NULL, NULL, msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "precord: %s\n", msg);
			return err;
		}
		if (evsel->filter && rec->opts.verbose && !evsel__is_tracepoint(evsel))
			fprintf(stderr, "precord: Address filter: %s\n", evsel->filter);
	}
	return 0;
}

int record__parse_events(struct record *rec)
{
	struct parse_events_error err = { .msg = "" };
	int i, ret, first;

	for (i = 0; i < rec->opts.nr_events; i++) {
		first = rec->evlist->nr_entries;
		ret = parse_events(rec->evlist, rec->opts.events[i], &err);
		if (ret) {
			fprintf(stderr, "precord: %s\n", err.msg);
			return ret;
		}
		ret = record__add_filters(rec, i, first);
		if (!ret)
			ret = record__add_cgroups(rec, i);
		if (ret)
			return ret;
	}
	ret = record__resolve_addr_filters(rec);
	if (ret)
		return ret;
	if (rec->evlist->nr_entries == 0) {
		ret = parse_events__default(rec->evlist, &err);
		if (ret) {
			fprintf(stderr, "precord: %s\n", err.msg);
			return ret;
		}
	}
	return 0;
}

/*
 * A -C list naming a CPU that is not online: one line saying which CPUs
 * and why, absent ones (not present: a number beyond the machine) before
 * offline ones. perf 6.1 takes such a list and fails at the open with
 * "No such device" or "Invalid argument", after moving the old output.
 */
static void record__cpu_list_error(const char *list, int bad_cpu)
{
	struct cpu_map *present = cpu_map__new_present(), *online = cpu_map__new_online();
	struct cpu_map *named = NULL, *offline = NULL;
	char have[256] = "", off[256] = "";
	bool many;
	int bad = -1;

	if (online)
		cpu_map__snprintf(online, have, sizeof(have));
	if (!present || cpu_map__parse_within(list, present, &named, &bad) == -ENODEV) {
		if (present)
			cpu_map__snprintf(present, have, sizeof(have));
		fprintf(stderr, "precord: CPU %d of -C does not exist: this machine's CPUs are %s; "
			"fix the -C list\n", present ? bad : bad_cpu, have);
		goto out_put;
	}
	offline = named && online ? cpu_map__subtract(named, online) : NULL;
	many = offline && offline->nr > 1;
	if (offline && offline->nr)
		cpu_map__snprintf(offline, off, sizeof(off));
	else
		snprintf(off, sizeof(off), "%d", bad_cpu);
	fprintf(stderr, "precord: CPU%s %s of -C %s offline (online: %s): bring %s online or "
		"leave %s out of -C\n", many ? "s" : "", off, many ? "are" : "is", have,
		many ? "them" : "it", many ? "them" : "it");
out_put:
	cpu_map__put(offline);
	cpu_map__put(named);
	cpu_map__put(online);
	cpu_map__put(present);
}

/*
 * -u USER: a user name, else a number that names a user (perf's
 * parse_target_uid()), with perf's words when it is neither.
 */
static int record__parse_uid(const char *str, uid_t *uid)
{
	struct passwd pwd, *result = NULL;
	char buf[4096], *end;
	long v;

	getpwnam_r(str, &pwd, buf, sizeof(buf), &result);
	if (!result) {
		v = strtol(str, &end, 10);
		if (*end || end == str || v < 0) {
			fprintf(stderr, "precord: Invalid User: %s (-u takes a user name or uid)\n", str);
			return -EINVAL;
		}
		getpwuid_r((uid_t)v, &pwd, buf, sizeof(buf), &result);
		if (!result) {
			fprintf(stderr, "precord: Problems obtaining information for user %s (no such "
				"uid in the user database)\n", str);
			return -EINVAL;
		}
	}
	*uid = result->pw_uid;
	return 0;
}

/* -u: the user's processes now; none is an error (perf 6.1 crashes on it). */
static int record__uid_threads(const char *str, struct thread_map **threads)
{
	uid_t uid;
	int err = record__parse_uid(str, &uid);

	if (err)
		return err;
	err = thread_map__new_by_uid(uid, threads);
	if (err) {
		fprintf(stderr, "precord: cannot list the processes of user %s: %s\n", str,
			strerror(-err));
		return err;
	}
	if (!(*threads)->nr) {
		fprintf(stderr, "precord: user %s (uid %u) has no process to record; start one "
			"first, or record with -a\n", str, (unsigned int)uid);
		thread_map__put(*threads);
		*threads = NULL;
		return -ESRCH;
	}
	return 0;
}

int record__create_maps(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct cpu_map *cpus = NULL;
	struct thread_map *threads = NULL;
	pid_t bad = 0;
	int bad_cpu = -1, err;

	if (o->cpu_list) {
		err = cpu_map__parse(o->cpu_list, &cpus, &bad_cpu);
		if (err == -ENODEV) {
			record__cpu_list_error(o->cpu_list, bad_cpu);
			return err;
		}
		if (err) {
			fprintf(stderr, "precord: bad CPU list '%s' for -C: expected CPU numbers and ranges like 0-3,6\n",
				o->cpu_list);
			return err;
		}
	} else if (record_opts__per_thread(o)) {
		cpus = cpu_map__new_any();	/* --per-thread: a ring per thread */
		if (!cpus)
			return -ENOMEM;
	} else {
		cpus = cpu_map__new_online();
		if (!cpus)
			return -ENOMEM;
	}

	if (o->pid_list || o->tid_list) {
		err = o->pid_list ? thread_map__new_pids(o->pid_list, &threads, &bad)
				  : thread_map__new_tids(o->tid_list, &threads, &bad);
		if (err == -ESRCH)
			fprintf(stderr, "precord: %s %d does not exist; check the %s list\n",
				o->pid_list ? "process" : "thread", bad, o->pid_list ? "-p" : "-t");
		else if (err)
			fprintf(stderr, "precord: bad %s list '%s': expected ids like 123,456\n",
				o->pid_list ? "-p" : "-t", o->pid_list ? o->pid_list : o->tid_list);
		if (err)
			goto out_put;
		rec->system_wide = false;
	} else if (o->uid_str) {
		err = record__uid_threads(o->uid_str, &threads);
		if (err)
			goto out_put;
		rec->system_wide = false;
	} else if (o->argc > 0 && !o->system_wide && !o->cpu_list) {
		threads = NULL;		/* the workload's pid, once forked */
		rec->system_wide = false;
	} else {
		threads = thread_map__new_dummy();
		rec->system_wide = true;
	}
	evlist__set_maps(rec->evlist, cpus, threads);
	err = 0;
out_put:
	cpu_map__put(cpus);
	thread_map__put(threads);
	return err;
}

static unsigned int max_sample_rate(void)
{
	int rate;

	if (evlist__read_sysctl("perf_event_max_sample_rate", &rate) || rate < 0)
		return 0;
	return (unsigned int)rate;
}

/*
 * Sampling period or frequency, after perf's cap at perf_event_max_sample_rate
 * (record_opts__config_freq()): a -F above it is lowered with a warning, or
 * with --strict-freq refused.
 */
static int record__config_rate(struct record *rec, struct perf_event_attr *attr)
{
	struct record_opts *o = &rec->opts;
	unsigned int max = max_sample_rate(), freq = o->freq;

	if (o->count && !o->freq_set) {
		attr->sample_period = o->count;
		attr->freq = 0;
		return 0;
	}
	if (o->freq_max && max)
		freq = max;
	if (max && freq > max && o->strict_freq && o->freq_set) {
		fprintf(stderr, "precord: maximum frequency rate (%u Hz) exceeded by -F %u: use a "
			"lower -F, or raise /proc/sys/kernel/perf_event_max_sample_rate\n", max, freq);
		return -EINVAL;
	}
	if (max && freq > max) {
		if (!rec->rate_warned)
			fprintf(stderr, "precord: warning: -F %u is above the maximum sample rate %u Hz "
				"(kernel.perf_event_max_sample_rate); recording at %u Hz\n", freq, max,
				max);
		rec->rate_warned = true;
		freq = max;
	}
	attr->sample_freq = freq;
	attr->freq = 1;
	attr->sample_type |= PERF_SAMPLE_PERIOD;
	return 0;
}

/* -p, -t or -u: tasks named when recording starts; a command only says how long. */
bool record__task_target(const struct record_opts *o)
{
	return o->pid_list || o->tid_list || o->uid_str;
}

/* -d, and --call-graph dwarf, which implies it in perf: data addresses and their maps. */
bool record__sample_address(const struct record_opts *o)
{
	return o->sample_address || o->callgraph == CALLGRAPH_DWARF;
}

/* --call-graph fp,N: perf keeps N only below kernel.perf_event_max_stack. */
static u16 record__max_stack(const struct record_opts *o)
{
	int max = 127;

	if (!o->max_stack)
		return 0;
	evlist__read_sysctl("perf_event_max_stack", &max);
	return o->max_stack < (unsigned int)max && o->max_stack <= UINT16_MAX ?
	       (u16)o->max_stack : 0;
}

/*
 * Call chains for one event (perf's __evsel__config_callchain()): fp, dwarf
 * (user registers and stack, the address and data source with it), lbr
 * (the branch stack's call stack; frame pointers when user space is not
 * sampled), and --kernel-callchains/--user-callchains for each. With
 * --user-regs, dwarf adds only what unwinding needs (IP, SP), with perf's
 * warning. track: the event that carries the side-band, whose mmap_data
 * dwarf needs.
 */
static void record__config_callchain(struct record *rec, struct perf_event_attr *attr,
				     const char *mode, u32 dump_size, u64 max_stack, bool track)
{
	struct record_opts *o = &rec->opts;

	attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr->sample_max_stack = (u16)max_stack;
	if (o->kernel_callchains)
		attr->exclude_callchain_user = 1;
	if (o->user_callchains)
		attr->exclude_callchain_kernel = 1;
	if (!strcmp(mode, "lbr") && !attr->exclude_user) {
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					   PERF_SAMPLE_BRANCH_NO_CYCLES |
					   PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_HW_INDEX;
	}
	if (strcmp(mode, "dwarf"))
		return;
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->sample_user_regs && !rec->regs_warned && !o->quiet)
		fprintf(stderr, "precord: warning: --call-graph dwarf may need all the user "
			"registers; with --user-regs only IP and SP are added to them, so unwinding "
			"may be unreliable\n");
	rec->regs_warned = true;
	attr->sample_regs_user |= o->sample_user_regs ? DWARF_MINIMAL_REGS : DWARF_REGS_MASK_X86_64;
	attr->sample_stack_user = dump_size;
	attr->exclude_callchain_user = 1;
	attr->mmap_data = track;
}

/*
 * What samples carry beyond the defaults: perf's evsel__config() for each
 * option. Call chains go on every event, perf 6.1's dummy too; registers
 * on none of the dummies (perf's evsel__is_dummy_event()).
 */
static void record__config_sample(struct record *rec, struct evsel *evsel, bool track)
{
	struct record_opts *o = &rec->opts;
	struct perf_event_attr *attr = &evsel->attr;
	bool dummy = attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY;

	if (o->no_samples)
		attr->sample_period = 0;	/* sample_freq too: one union */
	if (o->inherit_stat) {
		attr->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
				     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		attr->inherit_stat = 1;
	}
	if (record__sample_address(o))
		attr->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->callgraph != CALLGRAPH_NONE)
		record__config_callchain(rec, attr, o->callgraph == CALLGRAPH_DWARF ? "dwarf" :
						    o->callgraph == CALLGRAPH_LBR ? "lbr" : "fp",
					 o->dwarf_stack_size, record__max_stack(o), track);
	if (o->sample_intr_regs && !dummy) {
		attr->sample_regs_intr = o->sample_intr_regs;
		attr->sample_type |= PERF_SAMPLE_REGS_INTR;
	}
	if (o->sample_user_regs && !dummy) {
		attr->sample_regs_user |= o->sample_user_regs;
		attr->sample_type |= PERF_SAMPLE_REGS_USER;
	}
	if (rec->system_wide || o->sample_cpu)
		attr->sample_type |= PERF_SAMPLE_CPU;
	if (o->raw_samples)
		attr->sample_type |= PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (o->sample_phys_addr)
		attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	/* x86's arch_evsel__set_sample_weight(); kernels before 5.12 fall back to WEIGHT */
	if (o->sample_weight)
		attr->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (o->record_cgroup)
		attr->sample_type |= PERF_SAMPLE_CGROUP;
	if (o->sample_data_page_size)
		attr->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (o->sample_code_page_size)
		attr->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (o->sample_transaction)
		attr->sample_type |= PERF_SAMPLE_TRANSACTION;
	if (o->running_time)
		attr->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* -b, -j: every event; a dummy keeps the filter but samples no branches, as perf's */
	if (o->branch_stack) {
		if (!dummy)
			attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = o->branch_stack;
	}
}

/*
 * The event's own call-graph terms replace the command line's (perf's
 * evsel__apply_config_terms(): call-graph=, stack-size=, max-stack=, which
 * alone means frame pointers). "no" turns call chains off for it.
 */
static void record__config_callgraph_terms(struct record *rec, struct evsel *evsel, bool track)
{
	const struct evsel_terms *t = &evsel->terms;
	struct perf_event_attr *attr = &evsel->attr;
	const char *mode = NULL;
	u32 dump_size = 8192;

	if (!(t->set & (EVSEL_TERM_CALLGRAPH | EVSEL_TERM_STACK_SIZE | EVSEL_TERM_MAX_STACK)) ||
	    (!(t->set & (EVSEL_TERM_CALLGRAPH | EVSEL_TERM_STACK_SIZE)) && !t->max_stack))
		return;
	if (t->set & EVSEL_TERM_CALLGRAPH)
		mode = t->callgraph;
	else if (t->max_stack)
		mode = "fp";
	if (mode && strcmp(mode, "fp") && strcmp(mode, "dwarf") && strcmp(mode, "lbr") &&
	    strcmp(mode, "no")) {
		fprintf(stderr, "precord: warning: per-event call-graph '%s' of %s is not fp, dwarf, "
			"lbr or no; the command line's call graph applies to it\n", mode, evsel->name);
		return;
	}
	if ((t->set & EVSEL_TERM_STACK_SIZE) && t->stack_size)
		dump_size = (u32)((t->stack_size + 7) & ~7ULL);
	/* The command line's call chain is taken off first (perf's evsel__reset_callgraph()). */
	if (rec->opts.callgraph != CALLGRAPH_NONE) {
		attr->sample_type &= ~(u64)PERF_SAMPLE_CALLCHAIN;
		if (rec->opts.callgraph == CALLGRAPH_DWARF)
			attr->sample_type &= ~(u64)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	}
	if (mode && strcmp(mode, "no"))
		record__config_callchain(rec, attr, mode, dump_size, t->max_stack, track);
}

/* perf's evsel__apply_config_terms(): the event's terms over the options. */
static void record__config_terms(struct record *rec, struct evsel *evsel, bool track)
{
	const struct evsel_terms *t = &evsel->terms;
	struct perf_event_attr *attr = &evsel->attr;
	struct record_opts *o = &rec->opts;

	if ((t->set & EVSEL_TERM_PERIOD) && !((t->weak & EVSEL_TERM_PERIOD) && o->count)) {
		attr->sample_period = t->period;
		attr->freq = 0;
		attr->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
	}
	if ((t->set & EVSEL_TERM_FREQ) && !((t->weak & EVSEL_TERM_FREQ) && o->freq_set)) {
		attr->sample_freq = t->freq;
		attr->freq = 1;
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (t->set & EVSEL_TERM_TIME) {
		if (t->time)
			attr->sample_type |= PERF_SAMPLE_TIME;
		else
			attr->sample_type &= ~(u64)PERF_SAMPLE_TIME;
	}
	if (t->set & EVSEL_TERM_BRANCH) {
		if (strcmp(t->branch, "no")) {
			u64 mode = attr->branch_sample_type;

			attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
			if (!parse_events__branch_str(t->branch, &mode))
				attr->branch_sample_type = mode;
		} else {
			attr->sample_type &= ~(u64)PERF_SAMPLE_BRANCH_STACK;
		}
	}
	if (t->set & EVSEL_TERM_INHERIT)
		attr->inherit = t->inherit;
	if (t->set & EVSEL_TERM_OVERWRITE)
		attr->write_backward = t->overwrite;
	if (t->set & EVSEL_TERM_AUX_OUTPUT)
		attr->aux_output = t->aux_output;
	record__config_callgraph_terms(rec, evsel, track);
}

/*
 * One evsel's attr, as perf record sets it (evsel__config), plus what precord
 * forces on purpose: sample_id_all, IDENTIFIER on every event, read_format
 * ID|LOST, and build ids in MMAP2 (unless --no-buildid-mmap). TIME is
 * perf's choice (record_opts__sample_time()). Group members are neither
 * disabled nor enabled on exec: their leader is. track: this evsel carries
 * the side-band; own_dummy: it is the dummy record adds for that, which
 * with --overwrite stays in a forward ring of its own.
 */
static int record__config_evsel(struct record *rec, struct evsel *evsel, bool track,
				bool own_dummy)
{
	struct record_opts *o = &rec->opts;
	struct perf_event_attr *attr = &evsel->attr;
	bool tp = evsel__is_tracepoint(evsel);
	bool leader = evsel__is_group_leader(evsel);
	int err;

	attr->size = sizeof(*attr);
	attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	if (record_opts__sample_time(o))
		attr->sample_type |= PERF_SAMPLE_TIME;
	attr->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	attr->sample_id_all = 1;
	attr->disabled = leader;
	/* per-thread rings: perf's evlist__config() turns inheritance off */
	attr->inherit = !o->no_inherit && !record_opts__per_thread(o);
	if (evsel->sample_read) {
		/* ":S": the counts ride in the samples; the whole group's when there is one */
		attr->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		if (evsel->leader->nr_members > 1) {
			attr->read_format |= PERF_FORMAT_GROUP;
			attr->inherit = 0;
		}
	}

	/* perf's tracepoint sample type and period, set when the event is parsed */
	if (tp) {
		attr->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				     PERF_SAMPLE_PERIOD;
		attr->sample_period = 1;
		attr->freq = 0;
	}
	/*
	 * A period the event came with (a tracepoint's, the dummy's, a
	 * breakpoint's 1) stays unless -c or -F: then, as perf's
	 * evsel__config(), every event takes that rate.
	 */
	if (!attr->sample_period || o->count || o->freq_set) {
		err = record__config_rate(rec, attr);
		if (err)
			return err;
	}
	record__config_sample(rec, evsel, track);

	if (o->clockid_set) {
		attr->use_clockid = 1;
		attr->clockid = o->clockid;
	}
	/* --no-buffering: the kernel wakes the reader at every record (perf's evsel__config()) */
	if (o->no_buffering) {
		attr->watermark = 0;
		attr->wakeup_events = 1;
	}
	if (o->overwrite && !own_dummy)
		attr->write_backward = 1;
	/* Forked workload, per task: enabled by the exec itself. */
	if (leader && !rec->system_wide && !record__task_target(o) && o->delay_ms == 0)
		attr->enable_on_exec = 1;
	if (evsel->precise_max)
		attr->precise_ip = 3;
	if (o->all_user) {
		attr->exclude_kernel = 1;
		attr->exclude_user = 0;
	}
	if (o->all_kernel) {
		attr->exclude_kernel = 0;
		attr->exclude_user = 1;
	}
	record__config_terms(rec, evsel, track);
	/* -P/--no-period win over everything else, the terms too */
	if (o->period_set && o->period)
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	else if (o->period_set)
		attr->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
	return 0;
}

/*
 * ":S" on a group leader: the members' counts come with the leader's
 * samples, so they take no samples of their own (unless a period= or
 * freq= term says otherwise) and carry the leader's sample_type (perf's
 * evsel__config_leader_sampling()).
 */
static void record__config_leader_sampling(struct evsel *evsel)
{
	struct perf_event_attr *attr = &evsel->attr;
	const struct evsel *leader = evsel->leader;

	if (!leader->sample_read || leader == evsel)
		return;
	if (!(evsel->terms.set & (EVSEL_TERM_PERIOD | EVSEL_TERM_FREQ))) {
		attr->freq = 0;
		attr->sample_freq = 0;
		attr->sample_period = 0;
	}
	if (!(evsel->terms.set & EVSEL_TERM_OVERWRITE))
		attr->write_backward = 0;
	attr->sample_type = leader->attr.sample_type;
}

/* --group: every event (the side-band dummy too) in one group led by the first. */
static void record__set_leader(struct evlist *evlist)
{
	struct evsel *leader = evlist__first(evlist), *evsel;
	int i;

	if (!leader)
		return;
	evlist__for_each_evsel(evlist, evsel, i)
		evsel->leader = leader;
	leader->nr_members = evlist->nr_entries;
}

static void record__config_tracking(struct record *rec, struct evsel *evsel)
{
	struct perf_event_attr *attr = &evsel->attr;

	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->ksymbol = !rec->opts.kcore;	/* --kcore: on the text-poke dummy, everywhere */
	attr->bpf_event = !rec->opts.no_bpf_event;
	attr->context_switch = rec->opts.switch_events;
	attr->build_id = rec->opts.buildid_mmap;
	attr->namespaces = rec->opts.record_namespaces;
	attr->cgroup = rec->opts.record_cgroup;
	if (record__sample_address(&rec->opts))
		attr->mmap_data = 1;
	rec->tracking = evsel;
}

/*
 * perf names its dummy from its attr when it writes the header (evsel__name()),
 * so --all-user or --all-kernel show in it: "dummy:uh", "dummy:kh".
 */
static void record__name_dummy(struct evsel *evsel)
{
	char name[32], suffix[24];
	char *dup;

	evsel__mod_suffix(&evsel->attr, suffix, sizeof(suffix));
	snprintf(name, sizeof(name), "dummy%s", suffix);
	dup = strdup(name);
	if (!dup)
		return;	/* keeps "dummy:HG": only the name differs */
	free(evsel->name);
	evsel->name = dup;
}

/*
 * System-wide, perf adds a dummy event that carries the side-band (mmap,
 * comm, task) and is enabled before synthesis, so a process started while
 * /proc is walked is still seen. Per task, the first event carries it,
 * except with --overwrite: the dummy then keeps the side-band in a forward
 * ring of its own, so that a snapshot can always be symbolized; and with a
 * -D delay, as perf: the dummy is on from the workload's exec (from the
 * start for other targets) while the events wait, so the samples taken
 * after the delay, and in every -D range, resolve.
 */
/*
 * perf's record__auxtrace_init(): -S, --aux-sample and the aux-sample-size=
 * term need an AUX area event (Intel PT, CoreSight...), and precord records
 * none. 0, or -EINVAL after perf's line.
 */
static int record__check_aux(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct evsel *evsel;
	int i;

	if ((o->snapshot_opts || o->aux_sample_opts) && o->threads_spec) {
		fprintf(stderr, "precord: AUX area tracing options are not available in parallel "
			"streaming mode.\n");
		return -EINVAL;
	}
	if (o->snapshot_opts) {
		fprintf(stderr, "precord: No AUX area tracing to snapshot (-S/--snapshot needs an AUX "
			"area event; for snapshots of ordinary events use --overwrite)\n");
		return -EINVAL;
	}
	if (o->aux_sample_opts) {
		fprintf(stderr, "precord: No AUX area event to sample (--aux-sample needs an AUX area "
			"event, and precord records none)\n");
		return -EINVAL;
	}
	evlist__for_each_evsel(rec->evlist, evsel, i) {
		if (evsel->terms.set & EVSEL_TERM_AUX_SAMPLE_SIZE) {
			fprintf(stderr, "precord: No AUX area event to sample (%s asks for "
				"aux-sample-size=, and precord records no AUX area events)\n",
				evsel->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* The dummy event record__config() adds to carry the side-band: 0 or -ENOMEM. */
static int record__add_tracking_dummy(struct record *rec)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_guest = 0,
		.sample_period = 1,
	};
	struct evsel *evsel = evsel__new(&attr, "dummy:HG");

	if (!evsel || evlist__add(rec->evlist, evsel)) {
		evsel__delete(evsel);
		return -ENOMEM;
	}
	return 0;
}

/*
 * --kcore: perf's text-poke dummy ("dummy:u"), for the changes the kernel
 * makes to its own text after the copy (static keys, ftrace, BPF
 * trampolines): PERF_RECORD_TEXT_POKE and KSYMBOL, from the start. perf
 * opens it on every CPU whatever the target; precord's events share one
 * set of maps, so with a task target it sees what the kernel changes while
 * those tasks run. 0 or -ENOMEM.
 */
static int record__add_text_poke_dummy(struct record *rec)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_guest = 1,
	};
	struct evsel *evsel = evsel__new(&attr, "dummy:u");

	if (!evsel || evlist__add(rec->evlist, evsel)) {
		evsel__delete(evsel);
		return -ENOMEM;
	}
	return 0;
}

/* After record__config_evsel(): what makes it the text-poke dummy, on from the start. */
static void record__set_text_poke(struct evsel *evsel)
{
	evsel->attr.text_poke = 1;
	evsel->attr.ksymbol = 1;
	evsel->attr.sample_type |= PERF_SAMPLE_TIME;
	evsel->attr.disabled = 0;
	evsel->attr.enable_on_exec = 0;
}

/*
 * The side-band's event, once every attr is set: the added dummy (on from
 * the start, or from the workload's exec with -D, as perf's), else the first
 * event (a given dummy on from the start system-wide).
 */
static void record__set_tracking(struct record *rec, struct evsel *first, bool own_tracking)
{
	bool delayed = rec->opts.delay_ms != 0;
	bool workload = rec->opts.argc > 0 && !rec->system_wide && !record__task_target(&rec->opts);
	struct evsel *evsel;

	if (own_tracking) {
		evsel = rec->evlist->entries[rec->evlist->nr_entries - 1];
		record__config_tracking(rec, evsel);
		evsel->attr.disabled = delayed && workload;
		evsel->attr.enable_on_exec = delayed && workload;
		record__name_dummy(evsel);
		return;
	}
	record__config_tracking(rec, first);
	if (rec->system_wide) {	/* the given dummy, on from the start as perf's would be */
		first->attr.disabled = 0;
		first->attr.enable_on_exec = 0;
	}
}

int record__config(struct record *rec)
{
	struct evsel *evsel, *tracking, *text_poke = NULL, *first = evlist__first(rec->evlist);
	/* perf: a dummy event given first (-e dummy, duration_time) carries it itself */
	bool first_dummy = first && first->attr.type == PERF_TYPE_SOFTWARE &&
			   first->attr.config == PERF_COUNT_SW_DUMMY && !rec->opts.overwrite;
	bool delayed = rec->opts.delay_ms != 0;
	/* --overwrite: tracking records must not be overwritten with the samples. */
	bool own_tracking = ((rec->system_wide || delayed) && !first_dummy) || rec->opts.overwrite;
	int i, err;

	if (rec->opts.kcore) {
		err = record__add_text_poke_dummy(rec);
		if (err)
			return err;
		text_poke = rec->evlist->entries[rec->evlist->nr_entries - 1];
	}
	if (own_tracking && (err = record__add_tracking_dummy(rec)))
		return err;
	if (rec->opts.group)
		record__set_leader(rec->evlist);
	tracking = own_tracking ? rec->evlist->entries[rec->evlist->nr_entries - 1]
				: evlist__first(rec->evlist);
	evlist__for_each_evsel(rec->evlist, evsel, i) {
		err = record__config_evsel(rec, evsel, evsel == tracking,
					   own_tracking && evsel == tracking);
		if (err)
			return err;
	}
	evlist__for_each_evsel(rec->evlist, evsel, i)
		record__config_leader_sampling(evsel);
	/*
	 * An overwrite term: that event's rings are backward ones, read as
	 * --overwrite's are, at a snapshot and at the end.
	 */
	if (evlist__has_backward(rec->evlist))
		rec->opts.overwrite = true;
	err = record__check_aux(rec);
	if (err)
		return err;
	record__set_tracking(rec, first, own_tracking);
	if (text_poke)
		record__set_text_poke(text_poke);
	return 0;
}
