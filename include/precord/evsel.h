/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evsel.h — one event selector: a perf_event_attr, its name, and the file
 * descriptors and ids it has on each (cpu index, thread index) of its
 * evlist's maps (libperf's perf_evsel).
 */
#ifndef PRECORD_EVSEL_H
#define PRECORD_EVSEL_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"
#include "precord/threadmap.h"
#include "precord/cgroup.h"

struct evlist;

/*
 * The event terms of -e ("cpu-clock/period=1000,call-graph=dwarf/"), kept
 * until the record configuration applies them over its options (perf's
 * evsel config terms). A bit in `set` for each term given, the last value
 * of each; a term that came from a PMU's named event is also in `weak`:
 * -c and -F override a weak period or frequency.
 */
enum evsel_term {
	EVSEL_TERM_PERIOD		= 1u << 0,
	EVSEL_TERM_FREQ			= 1u << 1,
	EVSEL_TERM_TIME			= 1u << 2,
	EVSEL_TERM_CALLGRAPH		= 1u << 3,
	EVSEL_TERM_STACK_SIZE		= 1u << 4,
	EVSEL_TERM_MAX_STACK		= 1u << 5,
	EVSEL_TERM_INHERIT		= 1u << 6,
	EVSEL_TERM_OVERWRITE		= 1u << 7,
	EVSEL_TERM_BRANCH		= 1u << 8,
	EVSEL_TERM_MAX_EVENTS		= 1u << 9,	/* nr=: perf record ignores it */
	EVSEL_TERM_AUX_OUTPUT		= 1u << 10,
	EVSEL_TERM_AUX_SAMPLE_SIZE	= 1u << 11,
	EVSEL_TERM_PERCORE		= 1u << 12,	/* perf stat's */
	EVSEL_TERM_DRV_CFG		= 1u << 13,	/* @cfg: perf record ignores it */
};

#define EVSEL_TERM_STR_MAX	64

struct evsel_terms {
	unsigned int	set;		/* EVSEL_TERM_* given */
	unsigned int	weak;		/* EVSEL_TERM_* from a PMU's named event */
	u64		period;
	u64		freq;
	u64		stack_size;
	u64		max_stack;
	u64		max_events;
	u64		aux_sample_size;
	bool		time;
	bool		inherit;
	bool		overwrite;
	bool		aux_output;
	char		callgraph[EVSEL_TERM_STR_MAX];	/* "fp", "dwarf", "lbr", "no" */
	char		branch[EVSEL_TERM_STR_MAX];	/* branch_type=, as typed */
};

struct evsel {
	struct perf_event_attr	attr;
	char			*name;		/* as perf names it: "cpu-clock:u", "sched:sched_switch" */
	int			idx;		/* position in the evlist */
	struct evlist		*evlist;

	/* Tracepoints: subsystem and event name as in tracefs, else NULL. */
	char			*tp_sys;
	char			*tp_name;
	/* --filter: a tracepoint filter or a PMU's address filters, else NULL. */
	char			*filter;

	/* Filled by evsel__open(): fds[cpu_idx * nr_threads + thread_idx]. */
	int			*fds;
	int			nr_cpus;
	int			nr_threads;
	/* Filled by evsel__read_ids(): one id per fd, same order. */
	u64			*ids;
	int			nr_ids;

	/*
	 * ":P" asked for the highest precise_ip the kernel takes: an open
	 * that fails lowers attr.precise_ip one step at a time (perf's
	 * evsel__precise_ip_fallback).  Set by whoever parses the modifier.
	 */
	bool			precise_max;

	/*
	 * Groups ("{a,b}", --group): every member points at its leader, the
	 * leader at itself; nr_members counts the leader too (1: alone).
	 * Members are opened with the leader's descriptor as group_fd.
	 * group_name: "name" of "name{a,b}" on the leader, else NULL.
	 */
	struct evsel		*leader;
	int			nr_members;
	char			*group_name;
	bool			sample_read;	/* ":S": PERF_SAMPLE_READ (of the group) */
	bool			weak_group;	/* ":W": the group is split if it cannot open */
	bool			exclude_GH;	/* a G or H modifier was given (perf's) */
	struct evsel_terms	terms;
	/*
	 * -G: the cgroup whose tasks it counts (a reference), opened with
	 * the cgroup's fd for pid and PERF_FLAG_PID_CGROUP; NULL: none.
	 */
	struct cgroup		*cgrp;
};

/*
 * The system call behind every open: perf_event_open(2) when NULL.  Tests
 * pass another one to inject failures (see struct evlist's open_fn); it
 * returns a descriptor or -errno, and must be thread-safe, as the workers
 * of an evlist open call it at the same time.
 */
typedef int (*evsel_open_fn)(void *ctx, struct perf_event_attr *attr, pid_t pid,
			     int cpu, int group_fd, unsigned long flags);

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name);
void evsel__delete(struct evsel *evsel);	/* closes fds; accepts NULL */

/* Descriptor of (cpu index, thread index), or -1 when not open. */
static inline int evsel__fd(const struct evsel *evsel, int cpu_idx, int thread_idx)
{
	return evsel->fds[cpu_idx * evsel->nr_threads + thread_idx];
}

bool evsel__is_tracepoint(const struct evsel *evsel);
/* The software dummy event (side-band only, no samples of its own). */
static inline bool evsel__is_dummy(const struct evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_SOFTWARE && evsel->attr.config == PERF_COUNT_SW_DUMMY;
}

static inline bool evsel__is_group_leader(const struct evsel *evsel)
{
	return evsel->leader == evsel;
}

/*
 * perf's evsel__add_modifiers(): the ":..." perf appends to a name it makes
 * from an attr ("cpu-clock:uH" for a cycles:u that fell back), "" when none.
 */
void evsel__mod_suffix(const struct perf_event_attr *attr, char *buf, size_t size);

/*
 * Open one descriptor per (cpu, thread). Returns 0 or -errno; on error every
 * descriptor opened so far is closed and *failed_cpu / *failed_tid say where
 * it failed (either may be NULL).
 */
int evsel__open(struct evsel *evsel, struct cpu_map *cpus, struct thread_map *threads,
		int *failed_cpu, pid_t *failed_tid);
void evsel__close(struct evsel *evsel);
int evsel__read_ids(struct evsel *evsel);	/* PERF_EVENT_IOC_ID on every fd */

/*
 * The pieces evlist.c runs on its workers, one CPU (or one thread range)
 * each.  evsel__alloc_fds() closes whatever was open, then sizes fds (all
 * -1) and ids (all 0) for nr_cpus x nr_threads and sets nr_ids to 0; the caller sets nr_ids once
 * every id is in.  The *_cpu() calls touch only the slots of cpu_idx and
 * thread indexes [thread_from, thread_to), so calls for different CPUs or
 * ranges may run at once on different threads.
 *
 * evsel__open_cpu() opens those slots in thread order and reads each id
 * with PERF_EVENT_IOC_ID: no fallback, no cleanup.  On error it returns
 * -errno with *failed_thread_idx set, and the slots it opened stay open
 * (evsel__close_cpu() or evsel__close() closes them).  open_fn NULL: the
 * real system call.
 */
int evsel__alloc_fds(struct evsel *evsel, int nr_cpus, int nr_threads);
int evsel__open_cpu(struct evsel *evsel, const struct cpu_map *cpus,
		    const struct thread_map *threads, int cpu_idx, int thread_from,
		    int thread_to, evsel_open_fn open_fn, void *ctx, int *failed_thread_idx);
void evsel__close_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to);
/* PERF_EVENT_IOC_ENABLE/DISABLE on every open slot of the range; the first -errno. */
int evsel__enable_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to);
int evsel__disable_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to);
int evsel__enable(struct evsel *evsel);
int evsel__disable(struct evsel *evsel);
/*
 * --filter: add to the evsel's filter, as perf joins them: tracepoint
 * filters "(old) && (new)", address filters "old,new". 0 or -ENOMEM.
 */
int evsel__append_filter(struct evsel *evsel, const char *filter);
/* The same as head, old, sep, new, tail; the new alone when there is none. */
int evsel__join_filter(struct evsel *evsel, const char *head, const char *sep,
		       const char *tail, const char *filter);
/* PERF_EVENT_IOC_SET_FILTER with evsel->filter on every open fd (none: 0); the first -errno. */
int evsel__apply_filter(struct evsel *evsel);

/*
 * PERF_FORMAT_LOST of the descriptor at (cpu_idx, thread_idx); with
 * PERF_FORMAT_GROUP the entry of this evsel's id in its group's read.
 */
int evsel__read_lost(struct evsel *evsel, int cpu_idx, int thread_idx, u64 *lost);

/* Size of the sample_id trailer that sample_id_all adds to non-sample records. */
size_t evsel__id_hdr_size(const struct evsel *evsel);

#endif /* PRECORD_EVSEL_H */
