/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evlist.h — the list of evsels recorded together, over one cpu map and one
 * thread map, and the ring buffers they write into (libperf's perf_evlist).
 *
 * Open, mmap, enable, disable, munmap and close run either serially in the
 * caller or, once evlist__set_wq() gave the evlist a workqueue, as work
 * items on the pool's workers: one item per CPU, on the worker pinned to
 * that CPU, covering every evsel's descriptors there (per-thread targets,
 * cpus = {-1}: ranges of thread indexes instead).  Small evlists (fewer
 * descriptors than parallel_min_fds) run inline either way.  The result
 * does not depend on the path: the same fds at the same (cpu, thread)
 * slots, the ids in the same order.  Documentation/parallel-evlist.md has
 * the model and the measurements.
 */
#ifndef PRECORD_EVLIST_H
#define PRECORD_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/evsel.h"
#include "precord/ringbuf.h"

struct wq;

/*
 * Below this many descriptors an evlist with a workqueue still runs inline:
 * waking the workers costs more than the system calls it would spread
 * (measured: Documentation/parallel-evlist.md, "The inline cutoff").
 */
#define EVLIST_PARALLEL_MIN_FDS	8

struct evlist {
	struct evsel		**entries;
	int			nr_entries;
	struct cpu_map		*cpus;		/* CPUs events are opened on ({-1} per-thread) */
	struct thread_map	*threads;	/* threads ({-1} for system-wide/per-CPU) */

	/* One ring per cpu index (per thread index when cpus is {-1}). */
	struct ringbuf		*rings;
	int			nr_rings;
	/*
	 * Overwrite rings, parallel to rings (same count and order), for the
	 * evsels with attr.write_backward: mapped read-only, read only at a
	 * snapshot. NULL when no evsel writes backward. The kernel refuses to
	 * redirect events of both directions into one ring, so a CPU with both
	 * has two rings; rings[i] is then left unmapped (base NULL) when no
	 * evsel writes forward there.
	 */
	struct ringbuf		*bk_rings;

	/*
	 * Where the operations run: borrowed from the caller, who keeps the
	 * workqueue (and its pool) alive while the evlist uses it; NULL: in
	 * the calling thread.  Set with evlist__set_wq().
	 */
	struct wq		*wq;
	/* Fewer descriptors than this run inline; 0: EVLIST_PARALLEL_MIN_FDS. */
	int			parallel_min_fds;
	/*
	 * Also map and unmap the rings on the workers.  Off by default:
	 * measured, it gains nothing (the mmap()s of one process serialize
	 * on its mmap lock, where the kernel allocates and zeroes the ring)
	 * and munmap() loses (TLB shootdowns to the CPUs the workers woke
	 * on); Documentation/parallel-evlist.md.
	 */
	bool			parallel_mmap;
	/*
	 * Task events: the CPU each thread of the map last ran on (-1:
	 * unknown), read from /proc/TID/stat when a parallel open starts, so
	 * that a thread's operations run on the worker of that CPU, where
	 * the kernel's calls to the task's CPU need no IPI.  Only a hint: a
	 * thread that moved since costs an IPI, nothing else.  NULL: none.
	 */
	int			*thread_cpus;

	/*
	 * Open on the CPUs that take the events and leave out the others: a
	 * CPU where an event fails to open, while the same event opened on
	 * another CPU, is dropped from the cpu map (an offline CPU, or one
	 * that refuses the event), and evlist_open_error says which and why.
	 * Errors about the process (EMFILE, ENOMEM) or a thread (ESRCH) are
	 * never a CPU's.  Off: any failure ends the open.  Set before the open.
	 */
	bool			skip_failed_cpus;

	/*
	 * TEST ONLY: replaces perf_event_open(2) for every open of this
	 * evlist, to inject failures (called from the workers at once, so it
	 * must be thread-safe).  NULL in real use.
	 */
	evsel_open_fn		open_fn;
	void			*open_ctx;
};

#define evlist__for_each_evsel(_evlist, _evsel, _i)			\
	for ((_i) = 0; (_i) < (_evlist)->nr_entries &&			\
	     ((_evsel) = (_evlist)->entries[_i], 1); (_i)++)

/* What evlist__open_wq() changed so that the kernel took the events. */
enum evlist_fallback {
	EVLIST_FALLBACK_READ_LOST	= 1u << 0,	/* < 6.0: no PERF_FORMAT_LOST */
	EVLIST_FALLBACK_BUILD_ID	= 1u << 1,	/* < 5.12: no build ids in MMAP2 */
	EVLIST_FALLBACK_KSYMBOL		= 1u << 2,	/* < 5.1: no ksymbol/bpf_event */
	EVLIST_FALLBACK_CONTEXT_SWITCH	= 1u << 3,	/* < 4.3 */
	EVLIST_FALLBACK_CLOCKID		= 1u << 4,	/* < 4.1: use_clockid cleared */
	EVLIST_FALLBACK_MMAP2		= 1u << 5,	/* < 3.16: MMAP instead of MMAP2 */
	EVLIST_FALLBACK_COMM_EXEC	= 1u << 6,	/* < 3.16 */
	EVLIST_FALLBACK_EXCLUDE_GUEST	= 1u << 7,	/* exclude_guest/host cleared */
	EVLIST_FALLBACK_SAMPLE_ID_ALL	= 1u << 8,	/* < 2.6.38 */
	EVLIST_FALLBACK_PRECISE_IP	= 1u << 9,	/* ":P": precise_ip lowered */
	EVLIST_FALLBACK_EXCLUDE_KERNEL	= 1u << 10,	/* paranoid > 1: ":u" added */
	EVLIST_FALLBACK_NOFILE		= 1u << 11,	/* RLIMIT_NOFILE raised */
	EVLIST_FALLBACK_MISSING_THREAD	= 1u << 12,	/* a thread gone (ESRCH) left out */
	EVLIST_FALLBACK_CYCLES		= 1u << 13,	/* no PMU counts cycles: cpu-clock */
	EVLIST_FALLBACK_WEAK_GROUP	= 1u << 14,	/* ":W": a group opened as single events */
	EVLIST_FALLBACK_SKIP_CPUS	= 1u << 15,	/* CPUs that failed left out (skipped[]) */
	EVLIST_FALLBACK_WEIGHT_STRUCT	= 1u << 16,	/* < 5.12: -W samples WEIGHT instead */
};

/* A CPU left out of the open (skip_failed_cpus), and the error it gave. */
struct evlist_skipped_cpu {
	struct cpu	cpu;
	int		err;		/* -errno of its first failed open */
};

/*
 * Where and why evlist__open_wq() failed, and the fallbacks it applied on
 * the way (also filled when it succeeds).  cycles without a PMU for it
 * (cpu-clock instead, as perf), a ":W" group the kernel refuses (split), a
 * missing attr feature, EMFILE (RLIMIT_NOFILE raised to nofile_need) and
 * paranoid > 1 (the kernel left out) are retried; every other error ends
 * the open.
 */
struct evlist_open_error {
	int		err;		/* 0, or the -errno that ended the open */
	struct evsel	*evsel;		/* the evsel that failed (NULL: none, or ENOMEM) */
	int		cpu_idx;	/* indexes in the evlist's maps, -1: none */
	int		thread_idx;
	struct cpu	cpu;		/* CPU number it failed on (-1: any CPU) */
	pid_t		tid;		/* thread (-1: every thread of the CPU) */
	unsigned long	nofile_need;	/* descriptors needed: these + already open + 64 */
	unsigned int	fallbacks;	/* EVLIST_FALLBACK_* bits */
	int		nr_missing;	/* threads left out because they were gone */
	/* CPUs left out (skip_failed_cpus), ascending; freed by evlist_open_error__exit() */
	struct evlist_skipped_cpu *skipped;
	int		nr_skipped;
};

struct evlist *evlist__new(void);
/* Unmaps and closes serially (the workqueue may be gone by then); accepts NULL. */
void evlist__delete(struct evlist *evlist);
int evlist__add(struct evlist *evlist, struct evsel *evsel);
void evlist__set_maps(struct evlist *evlist, struct cpu_map *cpus, struct thread_map *threads);
/* The workqueue every later operation runs on (NULL: serial in the caller). */
void evlist__set_wq(struct evlist *evlist, struct wq *wq);
struct evsel *evlist__first(const struct evlist *evlist);
struct evsel *evlist__id2evsel(const struct evlist *evlist, u64 id);
bool evlist__has_tracepoints(const struct evlist *evlist);

/*
 * Open every evsel on every (cpu, thread) of the maps and read the ids,
 * on wq (which becomes the evlist's, as evlist__set_wq()) or serially when
 * wq is NULL.  The workers only open; on a failure the calling thread
 * closes everything opened so far, applies perf's fallbacks (see struct
 * evlist_open_error) and starts again, or gives up: then nothing is left
 * open (or enabled) and *oerr (when not NULL) says where it failed.
 * Returns 0 or -errno.  evlist__open() is evlist__open_wq(evlist,
 * evlist->wq, NULL).
 */
int evlist__open_wq(struct evlist *evlist, struct wq *wq, struct evlist_open_error *oerr);
int evlist__open(struct evlist *evlist);
/* Free what evlist__open_wq() allocated in *oerr (the skipped CPUs); accepts NULL. */
void evlist_open_error__exit(struct evlist_open_error *oerr);
/* Whether kernel samples are allowed: CAP_SYS_ADMIN, CAP_PERFMON or paranoid <= 1 (perf's). */
bool evlist__can_profile_kernel(void);
/*
 * Before opening: raise RLIMIT_NOFILE (soft, and hard where allowed) to
 * what the evlist's descriptors, `extra` more (the output files) and those
 * already open need, as perf record raises it on EMFILE. 0 when the limit
 * covers *need, -EMFILE when it cannot be raised that far.
 */
int evlist__reserve_nofile(struct evlist *evlist, unsigned long extra, unsigned long *need);
/*
 * The one-line message for a failed open, without the "precord: " prefix
 * (as the record command words them): for an event the machine cannot
 * count (ENOENT, EOPNOTSUPP, EINVAL) perf's own line, else in perf's tone.
 * Returns the length (snprintf rules).
 */
int evlist__open_strerror(const struct evlist_open_error *oerr, char *buf, size_t size);

/*
 * The CPUs an open left out and why, for a message: "CPUs 3,5-7 (offline),
 * CPU 6 (Device or resource busy)" ("offline": ENODEV on a CPU not online
 * now). Returns the length (snprintf rules).
 */
int evlist_open_error__skipped_str(const struct evlist_open_error *oerr, char *buf, size_t size);

/* Close every descriptor; runs every CPU's part even if some fail. */
void evlist__close(struct evlist *evlist);
/* PERF_EVENT_IOC_ENABLE/DISABLE everywhere; every CPU's part runs; the first -errno. */
int evlist__enable(struct evlist *evlist);
int evlist__disable(struct evlist *evlist);
/* The same for every event but the dummies, whose side-band records go on (perf's *_non_dummy). */
int evlist__enable_sampling(struct evlist *evlist);
int evlist__disable_sampling(struct evlist *evlist);
/*
 * Map one ring of `pages` data pages per cpu (or thread) and redirect the
 * other fds into it with PERF_EVENT_IOC_SET_OUTPUT; with parallel_mmap,
 * each CPU's part on its worker.  Evsels with attr.write_backward go into a
 * second, read-only ring per cpu (bk_rings).  On error everything is
 * unmapped again.
 */
int evlist__mmap(struct evlist *evlist, unsigned int pages);
void evlist__munmap(struct evlist *evlist);
/* Some evsel has attr.write_backward (--overwrite): evlist__mmap makes bk_rings. */
bool evlist__has_backward(const struct evlist *evlist);
/*
 * A perf limit from /proc/sys/kernel/<name> (perf_event_paranoid,
 * perf_event_mlock_kb, ...): 0, or -errno (-EINVAL: not a number).
 */
int evlist__read_sysctl(const char *name, int *val);

/* Bytes of the sample_id trailer on non-sample records (same for all evsels). */
size_t evlist__id_hdr_size(const struct evlist *evlist);
/* Descriptors open now (events x cpus x threads once opened; 0 before). */
int evlist__nr_fds(const struct evlist *evlist);

#endif /* PRECORD_EVLIST_H */
