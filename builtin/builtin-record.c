// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-record.c — the record command: options → evlist → rings → perf.data.
 *
 * Runs on the main thread, which owns the setup and the end and handles every
 * signal (through a signalfd, with all signals blocked so the streaming
 * thread never sees one). The order is perf record's, but for the output,
 * opened once the events are (so a recording that cannot start leaves
 * nothing on disk and an older output where it was):
 *
 *   parse options → build and configure the evlist → fork the workload
 *   (it waits) → open and mmap the events (leaving out, with a warning,
 *   a CPU that refuses them while others take them) → open the output
 *   → write the header → synthesize what already runs (tracking events
 *     already on for system-wide, so nothing born meanwhile is missed)
 *   → start the streaming thread → enable → let the workload exec
 *   → wait for the workload, a signal, a delay or the streaming thread
 *   → disable → final drain → LOST_SAMPLES → features and final header.
 *
 * Data flow: synthesized records go straight to the writer from this thread
 * before the streaming thread starts and after it stops; between the two the
 * writer belongs to the streaming thread. A write error (a full disk) stops
 * the recording; the file is cut back to its last whole record and finished
 * so perf still opens it.
 *
 * Pipe mode (-o -, a FIFO at -o, stdout a pipe with no -o) writes perf's
 * pipe format instead, with one streaming thread: the header is pipe.c's
 * records ahead of the synthesized ones, nothing is rewritten at the end,
 * and a reader that goes away ends the recording.
 *
 * This file holds the order and the wait; the steps it calls live in the
 * files builtin/record.h lists (the events, the output, rotation and
 * control, the closing lines) and in the modules of src/.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "record.h"
#include "precord/build-id-cache.h"
#include "precord/sample.h"
#include "precord/synthesize.h"

#define EXIT_USAGE	129
#define DEFAULT_RT_PRIO	10	/* streaming threads: SCHED_FIFO, as `chrt -f 10` */

/* ---- phases (-v) ----------------------------------------------------------- */

/* The phase that ends now is name; a name already seen adds up. */
void record__phase(struct record *rec, const char *name)
{
	struct record_phases *ph = &rec->phases;
	u64 now = clock__now_ns();
	int i;

	for (i = 0; i < ph->nr && strcmp(ph->name[i], name); i++)
		;
	if (i == ph->nr && ph->nr < RECORD_MAX_PHASES)
		ph->name[ph->nr++] = name;
	if (i < ph->nr)
		ph->ns[i] += now - ph->last_ns;
	ph->last_ns = now;
}

/* One line: "precord: time: options 0.4 ms, events 3.1 ms, ..." */
static void record__print_phases(const struct record *rec)
{
	const struct record_phases *ph = &rec->phases;
	int i;

	if (!rec->opts.verbose || !ph->nr)
		return;
	fprintf(stderr, "precord: time:");
	for (i = 0; i < ph->nr; i++)
		fprintf(stderr, "%s %s %.1f ms", i ? "," : "", ph->name[i], (double)ph->ns[i] / 1e6);
	fprintf(stderr, "\n");
}

/* ---- opening ------------------------------------------------------------- */

/* One line for the CPUs the open left out, and what is recorded instead. */
static void record__print_skipped(const struct record *rec, const struct evlist_open_error *oerr)
{
	char why[512], rest[256] = "";

	if (!oerr->nr_skipped || rec->opts.quiet)
		return;
	evlist_open_error__skipped_str(oerr, why, sizeof(why));
	cpu_map__snprintf(rec->evlist->cpus, rest, sizeof(rest));
	fprintf(stderr, "precord: warning: cannot record %s; recording CPU%s %s\n", why,
		rec->evlist->cpus->nr > 1 ? "s" : "", rest);
}

/* The --filter strings into the kernel, once the events are open (perf's evlist__apply_filters()). */
static int record__apply_filters(struct record *rec)
{
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(rec->evlist, evsel, i) {
		err = evsel__apply_filter(evsel);
		if (err) {
			fprintf(stderr, "precord: failed to set filter \"%s\" on event %s: %s; check "
				"its syntax and the event's fields (tracefs events/SYSTEM/EVENT/format)\n",
				evsel->filter, evsel->name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int record__open(struct record *rec)
{
	struct evlist_open_error oerr;
	char msg[512];
	int err;

	/*
	 * Each CPU's descriptors open on the worker pinned to it; fallbacks
	 * here. A CPU that cannot take the events while others can (gone
	 * offline since the map was read, or refusing them) is left out.
	 */
	rec->evlist->skip_failed_cpus = true;
	err = evlist__open_wq(rec->evlist, rec->wq, &oerr);
	if (!err)
		record__print_skipped(rec, &oerr);
	if (oerr.fallbacks & EVLIST_FALLBACK_BUILD_ID) {
		rec->opts.buildid_mmap = false;
		if (rec->opts.verbose)
			fprintf(stderr, "precord: this kernel has no MMAP2 build ids\n");
	}
	if ((oerr.fallbacks & EVLIST_FALLBACK_CYCLES) && rec->opts.verbose)
		fprintf(stderr, "precord: The cycles event is not supported, trying to fall back "
			"to cpu-clock-ticks\n");
	if ((oerr.fallbacks & EVLIST_FALLBACK_WEAK_GROUP) && rec->opts.verbose)
		fprintf(stderr, "precord: a weak group (:W) could not be opened; its events are "
			"opened one by one\n");
	if (err) {
		evlist__open_strerror(&oerr, msg, sizeof(msg));
		fprintf(stderr, "precord: %s\n", msg);
	}
	evlist_open_error__exit(&oerr);
	return err ? err : record__apply_filters(rec);
}

static long default_mmap_pages(void)
{
	long page = sysconf(_SC_PAGESIZE), pages;
	int max_kb = 516;

	if (evlist__read_sysctl("perf_event_mlock_kb", &max_kb) == 0)
		max_kb -= (int)(page / 1024);
	else
		max_kb = 512;
	pages = (long)max_kb * 1024 / page;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages > 0 ? pages : 1;
}

static int record__mmap(struct record *rec)
{
	long pages = rec->opts.mmap_pages ? (long)rec->opts.mmap_pages : default_mmap_pages();
	int err = evlist__mmap(rec->evlist, (unsigned int)pages);
	int mlock_kb = 0;

	if (!err)
		return 0;
	evlist__read_sysctl("perf_event_mlock_kb", &mlock_kb);
	if (err == -EPERM || err == -ENOMEM)
		fprintf(stderr, "precord: cannot map %ld pages per CPU (%s): consider increasing "
			"/proc/sys/kernel/perf_event_mlock_kb (now %d) or a smaller -m\n",
			pages, strerror(-err), mlock_kb);
	else
		fprintf(stderr, "precord: cannot map the ring buffers: %s\n", strerror(-err));
	return err;
}

/* ---- the run ------------------------------------------------------------- */

/*
 * The global workqueue: one worker pinned to each recorded CPU, created once
 * (after the signals are blocked, so the workers inherit the mask). The
 * evlist opens, enables and disables each CPU's descriptors on its worker
 * (small evlists inline), and the /proc walk runs on it. Without it
 * everything runs on this thread.
 */
static void record__start_workers(struct record *rec)
{
	struct cpu_map *cpus = rec->evlist->cpus;
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_CPU, .name = "prec-wq" };
	char msg[256] = "";
	int *list, i;

	if (!cpus || cpu_map__is_any(cpus))
		return;
	list = calloc((size_t)cpus->nr, sizeof(*list));
	if (!list)
		return;
	for (i = 0; i < cpus->nr; i++)
		list[i] = cpus->map[i].cpu;
	attr.cpus = list;
	attr.nr_cpus = cpus->nr;
	rec->pool = wq_pool__new(&attr, msg, sizeof(msg));
	free(list);
	if (rec->pool)
		rec->wq = wq__new(rec->pool, "precord", 0);
	evlist__set_wq(rec->evlist, rec->wq);
	if (!rec->wq && rec->opts.verbose)
		fprintf(stderr, "precord: no worker threads (%s); synthesizing on one thread\n",
			msg[0] ? msg : strerror(errno));
}

static void record__stop_workers(struct record *rec)
{
	evlist__set_wq(rec->evlist, NULL);	/* from now on, serial on this thread */
	wq__delete(rec->wq);
	wq_pool__delete(rec->pool);
	rec->wq = NULL;
	rec->pool = NULL;
}

static int record__setup_signals(struct record *rec)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &mask, &rec->old_mask) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	rec->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return rec->sig_fd < 0 ? -errno : 0;
}

/*
 * Where a sample's time is, for the first and last sample times of the
 * header: 0 (none) unless every event samples it, as a time read from an
 * event without one would be another field (--no-timestamp keeps the
 * tracepoints' times).
 */
static size_t sample_time_offset(const struct evlist *evlist)
{
	int pos = sample__time_pos(evlist__first(evlist)->attr.sample_type);
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		if (!(evsel->attr.sample_type & PERF_SAMPLE_TIME))
			return 0;

	return pos < 0 ? 0 : sizeof(struct perf_event_header) + 8 * (size_t)pos;
}

/* --mmap-flush, capped at a quarter of a ring as perf does. */
static unsigned int record__mmap_flush(const struct record *rec)
{
	size_t quarter;

	if (!rec->opts.mmap_flush || !rec->evlist->nr_rings)
		return 0;
	quarter = (rec->evlist->rings[0].mask + 1) / 4;
	return rec->opts.mmap_flush > quarter ? (unsigned int)quarter : rec->opts.mmap_flush;
}

/* -v: the threads a cpuset or taskset keeps off their rings' CPUs, and where they run. */
static void record__print_moved(const struct record *rec)
{
	const struct stream_layout *layout = rec->streams.layout;
	char maps[128], aff[128];
	int t;

	for (t = 0; layout && t < layout->nr; t++) {
		if (!layout->moved[t])
			continue;
		cpu_map__snprintf(layout->maps[t], maps, sizeof(maps));
		cpu_map__snprintf(layout->affinity[t], aff, sizeof(aff));
		fprintf(stderr, "precord: %s drains CPUs %s, where this process may not run: it "
			"runs on CPUs %s, the nearest it may\n", rec->streams.s[t].name, maps, aff);
	}
}

static int record__start_streams(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct streams_config cfg = {
		.spec = rec->threaded || rec->one_thread ?
			(o->threads_spec ? o->threads_spec : LAYOUT_DEFAULT_SPEC) : NULL,
		.one_file = rec->one_thread,
		/* one file: a SIGKILL leaves a header that says how far the data goes */
		.note_size = !rec->threaded && !rec->pipe && !rec->writer.pipe &&
			     !o->switch_output && !o->overwrite,
		.size_fd = rec->out_fd,
		.size_off = offsetof(struct perf_file_header, data.size),
		.dir = rec->staging,
		.writer = &rec->writer,
		.writer_kind = o->mmap_output ? WRITER_MMAP : WRITER_WRITE,
		.time_off = sample_time_offset(rec->evlist),
		.rt_prio = o->realtime_prio,
		.notify_fd = rec->notify_fd,
		.aio = o->aio,
		.comp_level = o->comp_level,
		.topo = rec->topo,
		.mmap_flush = record__mmap_flush(rec),
		.no_buffering = o->no_buffering,
		.no_rounds = o->tail_synthesize,
		/* Only --switch-output=SIZE and --max-size need the shared count (an atomic per ring read). */
		.shared = o->switch_size || o->max_size ? &rec->shared : NULL,
		/* their switches and snapshots ask each thread in turn: no helpers */
		.fixed = o->switch_output || o->overwrite,
	};
	char msg[256] = "";
	int err, nfail, rt_err;

	/* Streaming threads get the CPU when their rings fill: real-time by default. */
	if ((rec->threaded || rec->one_thread) && !cfg.rt_prio && !o->no_realtime)
		cfg.rt_prio = DEFAULT_RT_PRIO;
	/*
	 * One set of plain data.N files, merged at the end: the threads note
	 * where their records lie, so the merge need not walk them. Without
	 * one (no memory, an unreadable header) the merge walks.
	 */
	if (rec->threaded && !o->no_merge && !o->kcore && !o->comp_level && !o->switch_output &&
	    !o->overwrite)
		rec->index = cfg.index = merge_index__new(rec->staging, rec->evlist->nr_rings, 0);
	err = streams__init(&rec->streams, rec->evlist, &cfg, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return err;
	}
	if (o->verbose)
		record__print_moved(rec);
	if (o->verbose)
		streams__print_plan(&rec->streams, stderr);
	err = streams__start(&rec->streams);
	if (err) {
		fprintf(stderr, "precord: cannot start the streaming threads: %s\n", strerror(-err));
		return err;
	}
	rec->streams_started = true;
	record__arm_size(rec);
	record__arm_max_size(rec);
	if (o->switch_secs)
		rec->next_switch_ms = clock__now_ms() + 1000ULL * o->switch_secs;
	nfail = streams__rt_failures(&rec->streams, &rt_err);
	if (nfail && !o->quiet)
		fprintf(stderr, "precord: note: streaming threads run at normal priority "
			"(SCHED_FIFO %d: %s); --no-realtime silences this\n", cfg.rt_prio,
			strerror(-rt_err));
	return 0;
}

/* ---- the wait ------------------------------------------------------------ */

/* The poll timeout until `at` (ms), no longer than `timeout` already is. */
static int timeout_until(u64 at, u64 now, int timeout)
{
	int t = at > now ? (int)(at - now) : 0;

	return timeout < 0 || t < timeout ? t : timeout;
}

/* How often --overwrite with --switch-output=SIZE looks at the rings. */
#define OVERWRITE_SIZE_CHECK_MS	100

/*
 * -D: when events go on or off. A delay is one step (on at delay_ms);
 * ranges are on at each even time of delay_times and off at each odd one,
 * and the recording ends at the last (perf's event_enable_timer). The
 * dummy's side-band stays on through the gaps, so that every range's
 * samples resolve. next: the clock__now_ms() of the next step, 0: none.
 */
struct delay_sched {
	u64	base;
	u64	next;
	int	step;
};

static void delay_sched__init(struct delay_sched *d, const struct record_opts *o, u64 now)
{
	d->base = now;
	d->next = 0;
	d->step = 0;
	if (o->delay_ms > 0)
		d->next = now + (u64)o->delay_ms;
	else if (o->nr_delay_times)	/* a first range from 0: on from the start */
		d->next = now + (u64)o->delay_times[d->step = 1];
}

static void delay_sched__step(struct record *rec, struct delay_sched *d)
{
	const struct record_opts *o = &rec->opts;
	bool on = !(d->step & 1);
	int at = o->nr_delay_times ? o->delay_times[d->step] : o->delay_ms;

	if (d->step == 0)
		evlist__enable(rec->evlist);
	else if (on)
		evlist__enable_sampling(rec->evlist);
	else
		evlist__disable_sampling(rec->evlist);
	status__clear(&rec->status);
	if (!o->quiet)
		fprintf(stderr, "precord: events %s after %d ms\n", on ? "enabled" : "disabled", at);
	d->next = 0;
	if (++d->step < o->nr_delay_times)
		d->next = d->base + (u64)o->delay_times[d->step];
	else if (o->nr_delay_times)
		rec->stop_requested = true;	/* the last range is over */
}

/* Timed work: -D, --switch-output=TIME and overwrite SIZE. The poll timeout. */
static int record__timers(struct record *rec, struct delay_sched *delay)
{
	int timeout = -1;
	u64 now = clock__now_ms();

	if (delay->next && now >= delay->next)
		delay_sched__step(rec, delay);
	if (delay->next)
		timeout = timeout_until(delay->next, now, timeout);
	if (rec->switch_due || (rec->next_switch_ms && now >= rec->next_switch_ms))
		record__switch(rec);
	if (rec->switch_due)
		timeout = 0;	/* the next file was full as it began: switch again */
	if (rec->next_switch_ms)
		timeout = timeout_until(rec->next_switch_ms, clock__now_ms(), timeout);
	if (rec->opts.overwrite && rec->opts.switch_size) {
		if (record__overwrite_full(rec))
			record__switch(rec);
		timeout = timeout_until(now + OVERWRITE_SIZE_CHECK_MS, now, timeout);
	}
	return timeout;
}

/* The status line, from the counters the streaming threads publish. */
static void record__status(struct record *rec, u64 now)
{
	struct status_counts c = { 0 };
	struct stream_live live;

	if (!rec->status.on)
		return;
	c.threads = streams__live(&rec->streams, &live);
	c.bytes = live.bytes;
	c.samples = live.samples;
	c.lost = live.lost;
	status__tick(&rec->status, now, &c);
}

/*
 * Wait until the workload ends, a signal comes, the stream threads stop,
 * or "stop" comes on the control channel; meanwhile start new output files
 * (--switch-output), carry out control commands and, on a terminal, keep
 * the status line.
 */
static void record__wait_loop(struct record *rec)
{
	enum { P_SIG, P_NOTIFY, P_CTL, P_SWITCH, P_OUT, P_MAX, P_SB, P_NR };
	struct pollfd pfd[P_NR] = {
		[P_SIG] = { .fd = rec->sig_fd, .events = POLLIN },
		[P_NOTIFY] = { .fd = rec->notify_fd, .events = POLLIN },
		[P_CTL] = { .fd = rec->ctl.ctl_fd, .events = POLLIN },
		[P_SWITCH] = { .fd = rec->shared.switch_fd, .events = POLLIN },
		/* a pipe's write end reports POLLERR once no reader is left */
		[P_OUT] = { .fd = rec->pipe ? rec->out_fd : -1, .events = 0 },
		[P_MAX] = { .fd = rec->shared.max_fd, .events = POLLIN },
		[P_SB] = { .fd = rec->sb_fd, .events = POLLIN },
	};
	struct delay_sched delay;

	delay_sched__init(&delay, &rec->opts, clock__now_ms());

	for (;;) {
		struct signalfd_siginfo si;
		int timeout = record__timers(rec, &delay);
		u64 v, now = clock__now_ms();

		record__status(rec, now);
		timeout = status__timeout(&rec->status, now, timeout);
		if (rec->write_error || rec->stop_requested || record__max_size_reached(rec))
			return;
		if (rec->wl.pid > 0 && workload__poll_exit(&rec->wl))
			return;
		if (poll(pfd, P_NR, timeout) < 0 && errno != EINTR)
			return;
		if (pfd[P_NOTIFY].revents & POLLIN)
			return;
		if ((pfd[P_MAX].revents & POLLIN) && read(rec->shared.max_fd, &v, sizeof(v)) == sizeof(v))
			rec->max_reached = true;
		if (pfd[P_OUT].revents & (POLLERR | POLLHUP)) {
			record__pipe_gone(rec, -EPIPE);
			rec->write_error = -EPIPE;
			return;
		}
		/* --switch-output-event: an occurrence switches as SIGUSR2 does */
		if ((pfd[P_SB].revents & POLLIN) && record__sb_read(rec))
			record__switch(rec);
		if ((pfd[P_SWITCH].revents & POLLIN) &&
		    read(rec->shared.switch_fd, &v, sizeof(v)) == sizeof(v))
			record__switch(rec);
		if ((pfd[P_CTL].revents & (POLLIN | POLLHUP)) && !record__control(rec))
			pfd[P_CTL].fd = -1;	/* the writer of an fd: pipe closed it */
		while (read(rec->sig_fd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;	/* reaped above */
			if (si.ssi_signo == SIGUSR2) {
				if (rec->opts.switch_output)
					record__switch(rec);
				continue;
			}
			rec->stop_signal = (int)si.ssi_signo;
			return;
		}
	}
}

static void record__wait(struct record *rec)
{
	status__init(&rec->status, STDERR_FILENO, rec->opts.quiet, clock__now_ms());
	record__wait_loop(rec);
	status__clear(&rec->status);
}

static int record__exit_status(struct record *rec, int err)
{
	if (rec->wl.exec_errno)
		return WORKLOAD_EXIT_NOEXEC;
	if (err)
		return 1;
	if (rec->stop_requested)
		return 0;
	if (rec->stop_signal)
		return 128 + rec->stop_signal;
	if (rec->wl.pid > 0 && rec->wl.exited) {
		if (WIFEXITED(rec->wl.status))
			return WEXITSTATUS(rec->wl.status);
		if (WIFSIGNALED(rec->wl.status))
			return 128 + WTERMSIG(rec->wl.status);
	}
	return 0;
}

/*
 * The descriptors the recording will hold, before anything is opened or
 * moved: its events, a file per ring (two with overwrite rings, twice that
 * with --switch-output), an eventfd per thread and a few more. The soft
 * limit goes up to the hard one, as perf raises it, and the hard one to
 * the estimate where allowed; where that cannot be, the recording stops
 * here, with the old output untouched.
 */
static int record__reserve_fds(struct record *rec)
{
	const struct cpu_map *cpus = rec->evlist->cpus;
	unsigned long rings = cpus && !cpu_map__is_any(cpus) ? (unsigned long)cpus->nr : 1;
	unsigned long need = 0, files = rings * (rec->opts.overwrite ? 2 : 1);
	int err;

	/* a switch opens the next files while the current ones are open */
	if (rec->opts.switch_output)
		files *= 2;
	/* and an eventfd per streaming thread, at most one per ring */
	err = evlist__reserve_nofile(rec->evlist, files + rings + 16, &need);
	if (err == -EMFILE)
		fprintf(stderr, "precord: the recording needs %lu file descriptors, more than the "
			"limit allows: raise it with 'ulimit -n %lu'\n", need, need);
	return err == -EMFILE ? err : 0;
}

/*
 * The --threads layout of the recorded CPUs, checked before the events are
 * opened (a spec that cannot be laid out fails before anything is opened),
 * and again once the open kept its CPUs (final): a layout of one thread
 * then records in the serial layout.
 */
static int record__check_threads(struct record *rec, bool final)
{
	struct record_opts *o = &rec->opts;
	char msg[256] = "";
	int err;

	if (!rec->topo)
		rec->topo = topology__new();
	if (!rec->topo) {
		snprintf(msg, sizeof(msg), "cannot read the machine's topology (hwloc)");
		err = -ENODEV;
	} else {
		err = streams__check_spec(o->threads_spec ? o->threads_spec : LAYOUT_DEFAULT_SPEC,
					  rec->topo, rec->evlist->cpus, msg, sizeof(msg));
	}
	if (err < 0) {
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return err;
	}
	/*
	 * One thread: its per-ring files would only be merged back into
	 * the serial layout it can write itself. The flight recorder and
	 * --no-merge keep the directory, and so does --tail-synthesize (the
	 * merge puts the records written at the end ahead of the samples);
	 * so does --mmap-output, which lost more into one file
	 * (raw_syscalls:* -m 8, 6 runs each: a median of 8.4% of the
	 * records against 1.7% into data.N). With --kcore the one thread's
	 * file is the directory's data, perf's --kcore layout.
	 */
	if (final && err == 1 && !o->no_merge && !o->overwrite && !o->switch_output &&
	    !o->mmap_output && !o->tail_synthesize) {
		rec->threaded = false;
		rec->one_thread = true;
	}
	return 0;
}

/* The workload forked (it waits); its pid is the thread map when none was given. */
static int record__fork_workload(struct record *rec)
{
	int err = workload__prepare(&rec->wl, rec->opts.argv, &rec->old_mask,
				    rec->pipe && !strcmp(rec->path, "-"));

	if (err) {
		fprintf(stderr, "precord: cannot fork the workload: %s\n", strerror(-err));
		return err;
	}
	if (!rec->evlist->threads) {
		struct thread_map *tm = thread_map__new_from(&rec->wl.pid, 1);

		if (!tm)
			return -ENOMEM;
		evlist__set_maps(rec->evlist, rec->evlist->cpus, tm);
		thread_map__put(tm);
	}
	return 0;
}

/*
 * The recording, in perf record's order but for the output: the workload
 * (it waits), the events opened and mapped, the output (so a recording
 * that cannot start leaves nothing on disk and an older output in place),
 * the header and what already runs, the streaming threads, the events
 * enabled, the workload let go; then the wait.
 */
static int record__run(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	err = record__check_output(rec);
	if (!err)
		err = record__reserve_fds(rec);
	if (!err && rec->threaded)
		err = record__check_threads(rec, false);
	record__phase(rec, "layout");
	if (!err && o->argc > 0)
		err = record__fork_workload(rec);
	record__phase(rec, "fork");
	if (!err)
		err = record__open(rec);
	record__phase(rec, "open");
	if (!err)
		err = record__mmap(rec);
	if (!err)
		err = record__sb_open(rec);
	record__phase(rec, "mmap");
	/* the CPUs the open kept decide the layout */
	if (!err && rec->threaded)
		err = record__check_threads(rec, true);
	if (!err)
		err = record__open_output(rec);
	record__phase(rec, "output");
	if (!err)
		err = record__begin_data(rec);
	record__phase(rec, "header+synthesis");
	if (!err)
		err = record__start_streams(rec);
	if (err)
		return err;
	/* side-band records from the set-up are no trigger: from here on they are */
	record__sb_read(rec);
	if ((rec->system_wide || record__task_target(o)) && o->delay_ms == 0)
		evlist__enable(rec->evlist);
	if (rec->wl.pid > 0) {
		err = workload__start(&rec->wl);
		if (err) {
			fprintf(stderr, "precord: cannot run '%s': %s\n", o->argv[0], strerror(-err));
			workload__reap(&rec->wl, false);
			return 0;	/* finish the file; exit 127 */
		}
	}
	record__phase(rec, "start");
	record__wait(rec);
	return 0;
}

static bool record__all_hup(const struct record *rec)
{
	int i;

	for (i = 0; i < rec->streams.nr; i++)
		if (rec->streams.s[i].nr_rings && !rec->streams.s[i].all_hup)
			return false;
	return true;
}

static int record__stop(struct record *rec)
{
	int err;

	evlist__disable(rec->evlist);
	err = streams__stop(&rec->streams);
	streams__total(&rec->streams, &rec->total);
	if (err)
		record__cut_ring_files(rec);
	if (err && !rec->write_error) {
		rec->write_error = err;
		if (!record__pipe_gone(rec, err))
			fprintf(stderr, "precord: writing '%s' failed: %s; it keeps what was written "
				"until then; free space or record elsewhere with -o\n", rec->path,
				strerror(-err));
	}
	if (record__all_hup(rec) && rec->wl.pid <= 0 && !rec->opts.quiet)
		fprintf(stderr, "precord: every monitored thread has exited\n");
	if (!rec->write_error) {
		err = synthesize__lost_samples(rec->evlist, writer__sink, &rec->writer,
					       &rec->lost_samples);
		if (err)
			rec->write_error = err;
	}
	return rec->write_error;
}

/* Whether perf needs the features to read the file at all: trace data, compression. */
static bool record__needs_features(const struct record *rec)
{
	struct evsel *evsel;
	int i;

	if (rec->opts.comp_level)
		return true;
	evlist__for_each_evsel(rec->evlist, evsel, i)
		if (evsel->attr.type == PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

/*
 * The end of a recording: the output finished (merged, renamed, its
 * closing lines printed), or, when nothing was recorded, no empty file or
 * directory left behind. err: the run's; returns the error the exit
 * status says.
 */
static int record__end(struct record *rec, int err)
{
	int ferr;
	bool no_room;

	/* threads that never started recorded nothing: an old output is not displaced for it */
	if (!rec->header_written || (!rec->streams_started && rec->threaded)) {
		if (rec->out_fd < 0)
			return err;
		/* Nothing was recorded: leave no empty file or directory behind. */
		streams__exit(&rec->streams);
		if (rec->threaded)
			remove_staging(rec->staging);
		else if (rec->opts.kcore)
			remove_staging(rec->path);	/* the directory --kcore made at the output */
		else if (!rec->device && !rec->pipe)
			unlink(rec->data_path);
		return err;
	}
	record__tail_synthesize(rec);
	ferr = record__finish_output(rec);
	record__phase(rec, "finish");
	no_room = ferr == -ENOSPC || ferr == -EDQUOT;
	if (no_room && !rec->threaded && !rec->device)
		/* the header has the data's size; the features wait ahead of the data */
		fprintf(stderr, "precord: no room for the features at the end of '%s': %s; "
			"once there is room, 'precord merge %s' adds them\n", rec->data_path,
			record__needs_features(rec) ? "perf cannot read it without them" :
			"perf reads its samples", rec->data_path);
	else if (ferr && !rec->pipe_gone)	/* a reader gone is said */
		fprintf(stderr, "precord: cannot finish '%s': %s%s%s%s\n", rec->data_path,
			strerror(-ferr),
			rec->threaded ? "; free space, then turn it into a perf.data with "
				       "'precord merge " : "",
			rec->threaded ? rec->staging : "", rec->threaded ? "'" : "");
	else if (rec->threaded) {
		ferr = record__finish_last(rec);
		record__phase(rec, "merge");
	} else if (rec->opts.timestamp_filename && !rec->device && !rec->pipe) {
		ferr = record__finish_timestamp(rec);
	}
	if (!ferr && (rec->opts.switch_output || rec->opts.timestamp_filename) && !rec->device &&
	    !rec->pipe)
		record__keep_output(rec, rec->path);
	if (!ferr || (no_room && !rec->threaded && !rec->device))
		record__print_summary(rec);
	return err ? err : ferr;
}

/*
 * What the run acquired, let go in the reverse order: the streams and
 * their index, the rings and descriptors (unmapped and closed on the
 * workers too), the workload (reaped), the output, the topology the
 * streams borrowed.
 */
static void record__release_run(struct record *rec)
{
	int i;

	streams__exit(&rec->streams);
	merge_index__delete(rec->index);
	evlist__munmap(rec->evlist);
	evlist__close(rec->evlist);
	workload__reap(&rec->wl, !rec->wl.exited);
	for (i = 0; i < rec->nr_outputs; i++)
		free(rec->outputs[i]);
	free(rec->outputs);
	synth_tree_snap__exit(&rec->tree_snap);
	if (rec->out_fd >= 0)
		close(rec->out_fd);
	topology__delete(rec->topo);
	bpf_progs__exit(&rec->bpf_progs);
}

/* The evlist: -e, the targets' maps, every attr. -1 to go on, else the exit status. */
static int record__setup_events(struct record *rec)
{
	int err = record__parse_events(rec);

	if (!err)
		err = record__sb_parse(rec);
	if (!err)
		err = record__create_maps(rec);
	if (err)
		return EXIT_USAGE;
	if (record__config(rec))
		return 1;
	return rec->opts.dry_run ? 0 : -1;
}

/* The eventfds a streaming thread signals on: it stopped by itself; its file is full. */
static int record__open_eventfds(struct record *rec)
{
	rec->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rec->notify_fd < 0)
		return -errno;
	if (rec->opts.max_size) {
		rec->shared.max_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (rec->shared.max_fd < 0)
			return -errno;
	}
	if (rec->opts.switch_size && !rec->opts.overwrite) {
		rec->shared.switch_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (rec->shared.switch_fd < 0)
			return -errno;
	}
	return 0;
}

/*
 * What perf record 6.1 puts in the environment of the command it runs
 * (PERF_BUILDID_DIR, perf's set_buildid_dir(); DEBUGINFOD_URLS, perf's
 * perf_debuginfod_setup(): emptied unless --debuginfod says otherwise),
 * and --kcore's check. 0 or -1 (said).
 */
static int record__setup_env(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	char dir[PATH_MAX];
	int fd;

	if (o->kcore) {
		fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "precord: kcore is not readable: /proc/kcore: %s (--kcore needs "
				"a kernel with CONFIG_PROC_KCORE, and root)\n", strerror(errno));
			return -1;
		}
		close(fd);
	}
	if (o->kcore && (o->switch_output || o->timestamp_filename)) {
		fprintf(stderr, "precord: --kcore makes the output one directory, which %s would "
			"rename as it goes; drop one of them\n",
			o->switch_output ? "--switch-output" : "--timestamp-filename");
		return -1;
	}
	if (!build_id_cache__dir(o->buildid_dir, dir, sizeof(dir)))
		build_id_cache__setenv(dir);
	if (!o->debuginfod_set)
		setenv("DEBUGINFOD_URLS", "", 1);
	else if (o->debuginfod && strcmp(o->debuginfod, "system"))
		setenv("DEBUGINFOD_URLS", o->debuginfod, 1);
	return 0;
}

/*
 * The options parsed, the environment they set for the workload, what
 * they decide for the run. -1 to go on, else the exit status.
 */
static int record__parse_options(struct record *rec, int argc, char **argv)
{
	char msg[512] = "";
	int err;

	rec->phases.last_ns = clock__now_ns();
	workload__init(&rec->wl);
	control__init(&rec->ctl);
	record_opts__init(&rec->opts);
	err = record_opts__parse(&rec->opts, argc, argv, msg, sizeof(msg));
	if (err) {
		if (err < 0)
			fprintf(stderr, "precord: %s\n", msg);
		return err > 0 ? 0 : EXIT_USAGE;
	}
	if (record__setup_env(rec))
		return 1;
	rec->path = rec->opts.output;
	rec->tag = !strcmp(argv[0], "record") ? "perf record" : "precord";
	/* per-thread rings, or records without times: one thread, one file, as perf */
	rec->threaded = !rec->opts.no_threads && !record_opts__per_thread(&rec->opts) &&
			record_opts__sample_time(&rec->opts);
	return -1;
}

/*
 * The run between the set-up and its undoing: the workers started, the
 * events recorded, stopped and written out, what the run acquired let go,
 * the workers stopped. The exit status.
 */
static int record__record(struct record *rec)
{
	int err, status;

	record__start_workers(rec);
	record__phase(rec, "workers");

	err = record__run(rec);
	record__phase(rec, "record");
	if (rec->streams_started)
		record__stop(rec);
	record__phase(rec, "stop");
	err = record__end(rec, err);
	record__release_run(rec);
	status = record__exit_status(rec, err ? err : rec->write_error ? rec->write_error :
				     rec->merge_error);

	record__stop_workers(rec);
	record__phase(rec, "teardown");
	record__print_phases(rec);
	return status;
}

static void record__close_eventfds(struct record *rec)
{
	if (rec->shared.switch_fd >= 0)
		close(rec->shared.switch_fd);
	if (rec->shared.max_fd >= 0)
		close(rec->shared.max_fd);
	if (rec->notify_fd >= 0)
		close(rec->notify_fd);
}

/*
 * Set up in order (options, control channel, evlist, signals, eventfds,
 * then the run with its workers), undone in the reverse order by the
 * labels below.
 */
int cmd_record(int argc, char **argv, int full_argc, const char **full_argv)
{
	struct record rec = {
		.out_fd = -1, .sig_fd = -1, .notify_fd = -1, .shared = { .switch_fd = -1, .max_fd = -1 },
		.sb_fd = -1,
		.full_argc = full_argc, .full_argv = full_argv,
	};
	char msg[512] = "";
	int status;

	status = record__parse_options(&rec, argc, argv);
	if (status >= 0)
		goto out_exit_opts;
	if (rec.opts.control && control__open(&rec.ctl, rec.opts.control, msg, sizeof(msg))) {
		fprintf(stderr, "precord: %s\n", msg);
		status = EXIT_USAGE;
		goto out_close_control;
	}
	status = 1;
	rec.evlist = evlist__new();
	if (!rec.evlist)
		goto out_close_control;
	record__phase(&rec, "options");
	status = record__setup_events(&rec);
	record__phase(&rec, "events");
	if (status >= 0)
		goto out_delete_evlist;
	status = 1;
	if (record__setup_signals(&rec))
		goto out_close_signals;
	if (record__open_eventfds(&rec))
		goto out_close_eventfds;
	status = record__record(&rec);
out_close_eventfds:
	record__close_eventfds(&rec);
out_close_signals:
	if (rec.sig_fd >= 0)
		close(rec.sig_fd);
out_delete_evlist:
	record__sb_close(&rec);
	evlist__delete(rec.evlist);
out_close_control:
	control__close(&rec.ctl);
out_exit_opts:
	record_opts__exit(&rec.opts);
	return status;
}
