// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c — a streaming thread: the reader of a set of ring buffers, and
 * its pass loop.
 *
 * Owns its rings while it runs (nobody else reads them) and its writer. The
 * loop is perf's "poll only when idle": pass over every ring, hand each run of
 * records to the writer (which copies it out, so the ring tail advances at
 * once), write FINISHED_ROUND after a pass that moved data, and sleep in
 * poll() only when a pass found nothing. The main thread stops it through an
 * eventfd (ctl_fd): the thread then makes a final pass and exits. When the
 * thread stops by itself (write error, every monitored task gone) it says so
 * on notify_fd. Signals are blocked here: the main thread handles them all.
 *
 * Data flow: kernel ring → ringbuf__read() → stream_sink() (stream-files.c)
 * → writer. This file holds the thread's life (start, the loop, its
 * commands, stop) and one pass over the rings; stream-files.c where the
 * records go (one writer, or one data.N per ring, with zstd and the
 * merge's index), --switch-output and the overwrite snapshots;
 * stream-group.c the adaptive layout, where a node's thread hands rings
 * to helper threads and takes them back (stream__sync() and
 * stream__adapt() at each pass, stream__stop_helpers() at the end).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <numa.h>

#include "stream-internal.h"

int stream__init(struct stream *s, int idx, struct ringbuf **rings, int nr_rings,
		 struct writer *writer, size_t time_off, int notify_fd)
{
	memset(s, 0, sizeof(*s));
	s->idx = idx;
	snprintf(s->name, sizeof(s->name), "prec-rd/%u", (unsigned int)(idx % 100000));
	s->rings = rings;
	s->nr_rings = nr_rings;
	s->writer = writer;
	s->time_off = time_off;
	s->notify_fd = notify_fd;
	s->node = -1;
	s->write_rounds = true;
	s->ack_fd = -1;
	s->size_fd = -1;
	s->cur_file = -1;
	s->run = -1;
	s->idle_ms = STREAM_IDLE_MS;
	s->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->ctl_fd < 0)
		return -errno;
	return 0;
}

/* Relaxed: see struct stream_live; paired with stream__read_live()'s loads. */
void stream__publish(struct stream *s)
{
	__atomic_store_n(&s->live.bytes, s->stats.bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&s->live.samples, s->stats.samples, __ATOMIC_RELAXED);
	__atomic_store_n(&s->live.lost, s->stats.lost, __ATOMIC_RELAXED);
}

void stream__read_live(const struct stream *s, struct stream_live *out)
{
	out->bytes = __atomic_load_n(&s->live.bytes, __ATOMIC_RELAXED);
	out->samples = __atomic_load_n(&s->live.samples, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&s->live.lost, __ATOMIC_RELAXED);
}

u64 stream__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

bool stream__is_helper(const struct stream *s)
{
	return s->group && s->slot > 0;
}

/* Wake a thread asleep in poll (its ctl_fd); a saturated counter means it is awake anyway. */
void stream__wake(struct stream *s)
{
	u64 one = 1;

	if (write(s->ctl_fd, &one, sizeof(one)) < 0)
		return;
}

/* The poll set (and in a group the pinning) for the rings the thread reads now. */
void stream__rebuild(struct stream *s)
{
	int i;

	s->nr_own = 0;
	for (i = 0; i < s->nr_rings; i++) {
		bool mine = !s->own || s->own[i];

		s->pfd[i].fd = mine && s->rings[i]->base && !s->hup[i] ? s->rings[i]->fd : -1;
		s->pfd[i].events = POLLIN;
		s->pfd[i].revents = 0;
		s->nr_own += mine;
	}
	s->pfd[s->nr_rings].fd = s->ctl_fd;
	s->pfd[s->nr_rings].events = POLLIN;
	if (s->group && s->group->follow)
		stream__pin(s);
}

/* What reading ring i found: its fill for the rule, its heat for a split. */
static void stream__note_fill(struct stream *s, int i, ssize_t n, u64 lost)
{
	u64 size = (u64)s->rings[i]->mask + 1;
	unsigned int fill = (u64)n >= size ? 1000 : (unsigned int)((u64)n * 1000 / size);

	if (fill > s->pass_fill)
		s->pass_fill = fill;
	s->pass_lost += lost;
	if (s->group) {
		unsigned int heat = lost ? 1001 : fill;

		if (heat > s->group->heat[i])
			s->group->heat[i] = heat;
	}
}

ssize_t stream__drain(struct stream *s)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round),
	};
	ssize_t total = 0, n;
	int i, err;

	if (s->group) {
		err = stream__sync(s);
		if (err)
			return err;
	}
	s->pass_fill = 0;
	s->pass_lost = 0;
	if (stream__file_full(s)) {
		s->held = true;	/* until the main thread switches files */
		return 0;
	}
	for (i = 0; i < s->nr_rings; i++) {
		struct ringbuf *rb = s->rings[i];
		u64 samples, lrec, lost;

		if (s->own && !s->own[i])
			continue;	/* another thread of the group reads it */
		samples = rb->nr_samples;
		lrec = rb->nr_lost_records;
		lost = rb->lost;
		if (!rb->base)
			continue;	/* --overwrite, a CPU with no forward event */
		/* --mmap-flush: leave a ring with less than that, except at the end. */
		if (s->mmap_flush > 1 && !s->final && ringbuf__pending(rb) < s->mmap_flush)
			continue;
		stream__aim(s, i);
		n = ringbuf__read(rb, stream_sink, s);
		if (n < 0)
			return n;
		total += n;
		s->stats.samples += rb->nr_samples - samples;
		s->stats.lost_records += rb->nr_lost_records - lrec;
		s->stats.lost += rb->lost - lost;
		stream__note_fill(s, i, n, rb->lost - lost);
		stream__count_shared(s, (u64)n);
	}
	if (total > 0) {
		if (s->write_rounds) {
			err = writer__write(s->writer, &round, sizeof(round));
			if (err)
				return err;
		}
		s->stats.bytes += (u64)total;
		s->stats.rounds++;
		stream__publish(s);
		stream__note_size(s, false);
	}
	return total;
}

/* Poll the fds of the rings the thread reads, and ctl_fd; 0, or -errno. */
static int stream__wait(struct stream *s)
{
	struct pollfd *pfd = s->pfd;
	int i, ret;

	/* Holding full rings (a full file): they stay readable, so wait on ctl_fd alone. */
	if (s->held) {
		ret = poll(pfd + s->nr_rings, 1, s->idle_ms);
		for (i = 0; i < s->nr_rings; i++)
			pfd[i].revents = 0;
	} else {
		ret = poll(pfd, (nfds_t)s->nr_rings + 1, s->idle_ms);
	}
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[s->nr_rings].revents & POLLIN) {
		u64 v;

		if (read(s->ctl_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	}
	for (i = 0; i < s->nr_rings; i++) {
		if (pfd[i].fd >= 0 && pfd[i].revents & (POLLHUP | POLLERR)) {
			/* The monitored task is gone: this fd will never fill again. */
			pfd[i].fd = -1;
			s->hup[i] = true;
		}
	}
	return 0;
}

/* The rings the thread reads whose fd has not hung up. */
int stream__nr_alive(const struct stream *s)
{
	int i, n = 0;

	for (i = 0; i < s->nr_rings; i++)
		n += (!s->own || s->own[i]) && !s->hup[i];
	return n;
}

/* Tell the main thread this thread has nothing more to do (or stopped on an error). */
static void stream__notify(struct stream *s)
{
	u64 one = 1;

	if (s->notify_fd >= 0 && write(s->notify_fd, &one, sizeof(one)) < 0 && !s->error)
		s->error = -errno;
}

/* Act on the main thread's command: 1 to stop, 0 to go on, -errno. */
static int stream__command(struct stream *s)
{
	int cmd = __atomic_load_n(&s->cmd, __ATOMIC_ACQUIRE), err;
	u64 one = 1;

	if (cmd == STREAM_CMD_STOP)
		return 1;
	if (cmd != STREAM_CMD_SWITCH)
		return 0;
	err = stream__switch_files(s);
	/* the samples of the files just left, for the closing line; read after the ack */
	__atomic_store_n(&s->switch_samples, s->stats.samples, __ATOMIC_RELAXED);
	__atomic_store_n(&s->switch_error, err, __ATOMIC_RELAXED);
	/* Pairs with the main thread's acquire load in stream__request_switch(). */
	__atomic_store_n(&s->cmd, STREAM_CMD_NONE, __ATOMIC_RELEASE);
	if (write(s->ack_fd, &one, sizeof(one)) < 0 && !err)
		err = -errno;
	return err;
}

/* Leaving: take no more commands, and answer a switch that was asked meanwhile. */
static void stream__exit_commands(struct stream *s)
{
	int cmd = __atomic_exchange_n(&s->cmd, STREAM_CMD_EXITED, __ATOMIC_ACQ_REL);
	u64 one = 1;

	if (cmd == STREAM_CMD_SWITCH) {
		__atomic_store_n(&s->switch_error, s->error ? s->error : -ESRCH,
				 __ATOMIC_RELAXED);
		if (write(s->ack_fd, &one, sizeof(one)) < 0)
			return;
	}
}

/*
 * The thread's CPU time, user and system, for the summary: what draining its
 * bytes cost (bench/model-inputs.sh divides one by the other). Added as the
 * thread exits, so a helper's runs add up as its other counters do; read by
 * the main thread after pthread_join(), which orders it.
 */
static void stream__note_cpu(struct stream *s)
{
	struct timespec ts;

	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		s->stats.cpu_ns += (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/*
 * Every ring the thread reads has hung up (the monitored tasks are gone):
 * true when the thread leaves. A helper hands such rings back to its lead
 * and leaves; a thread with overwrite rings stays for the final snapshot,
 * which it asks for.
 */
static bool stream__hung_up(struct stream *s)
{
	if (stream__nr_alive(s) > 0 || s->nr_own == 0)
		return false;
	if (stream__is_helper(s)) {
		stream__retire(s, stream__now(), STREAM_RUN_HUP, 0);
		return true;
	}
	if (s->nr_own < s->nr_rings || s->all_hup)
		return false;	/* a helper still has rings; it hands them back */
	s->all_hup = true;
	if (!s->bk_rings)
		return true;
	/* The overwrite rings still wait for the final snapshot: ask for it. */
	stream__notify(s);
	return false;
}

/*
 * The thread's last steps after its loop. A helper that was asked to stop
 * drains its rings a last time (the lead takes them back after joining
 * it); one that stopped on an error hands them back with the error; one
 * that retired has handed them back already. The lead stops its helpers,
 * then makes its final pass over every ring and closes the writers.
 */
static void stream__finish(struct stream *s, int stop, bool retired)
{
	ssize_t n;

	s->final = true;
	if (stream__is_helper(s)) {
		if (stop > 0 && !s->error) {
			n = stream__drain(s);
			if (n < 0)
				s->error = (int)n;
		} else if (!retired) {
			stream__retire(s, stream__now(), STREAM_RUN_ERROR,
				       s->error ? s->error : -ECANCELED);
		}
		return;
	}
	if (s->group)
		stream__stop_helpers(s);
	/* The final pass: the main thread disabled the events before asking. */
	if (stop > 0 && !s->error) {
		n = stream__drain(s);
		if (n >= 0 && s->bk_rings)
			n = stream__read_backward(s);
		if (n < 0)
			s->error = (int)n;
	}
	n = stream__close_writers(s);
	if (!s->error)
		s->error = (int)n;
}

/*
 * The passes, until the main thread says stop (returns 1), the thread
 * leaves by itself (0; *retired when a helper handed its rings back) or
 * stops on an error (s->error, and a value below 1).
 */
static int stream__loop(struct stream *s, bool *retired)
{
	bool woke = false;
	int stop = 0;
	ssize_t n;

	while (!stop) {
		n = stream__drain(s);
		if (n < 0) {
			s->error = (int)n;
			break;
		}
		/* Woken up (watermark or timeout) and found data to write: perf's count. */
		if (n > 0 && woke)
			s->stats.wakeups++;
		if (s->group && stream__adapt(s, woke)) {
			*retired = true;
			break;
		}
		woke = false;
		/* --no-buffering: what a pass read is in the file before the next one */
		if (n > 0 && s->flush_each) {
			s->error = stream__flush_idle(s);
			if (s->error)
				break;
		}
		stop = stream__command(s);
		if (stop < 0) {
			s->error = stop;
			break;
		}
		if (n > 0 || stop)
			continue;
		if (stream__hung_up(s)) {
			*retired = stream__is_helper(s);
			break;
		}
		s->error = stream__flush_idle(s);
		if (!s->error)
			s->error = stream__wait(s);
		if (s->error)
			break;
		woke = true;
	}
	return stop;
}

static void *stream__thread(void *arg)
{
	struct stream *s = arg;
	bool helper = stream__is_helper(s), retired = false;
	int stop = 0;

	if (!helper) {
		s->error = stream__open_writers(s);
		if (s->error) {
			stream__close_writers(s);
			if (s->group)
				stream__stop_helpers(s);
			goto out_notify;
		}
	}
	if (s->group && !helper)
		adapt__init(&s->adapt, stream__now(), true);
	stream__rebuild(s);
	stop = stream__loop(s, &retired);
	stream__finish(s, stop, retired);
out_notify:
	stream__note_cpu(s);
	stream__exit_commands(s);
	if (!helper && stop <= 0 && !(s->all_hup && s->bk_rings))
		stream__notify(s);
	return NULL;
}

/* The arrays the thread needs, made by the main thread before it starts. */
static int stream__alloc_arrays(struct stream *s)
{
	if (s->out_fds && !s->nr_files)
		s->nr_files = s->nr_rings;
	if (s->out_fds && !s->ring_writers) {
		s->ring_writers = calloc((size_t)s->nr_files, sizeof(*s->ring_writers));
		if (!s->ring_writers)
			return -ENOMEM;
	}
	if (!s->pfd)
		s->pfd = calloc((size_t)s->nr_rings + 1, sizeof(*s->pfd));
	if (!s->hup)
		s->hup = calloc((size_t)s->nr_rings + 1, sizeof(*s->hup));
	if (!s->pfd || !s->hup)
		return -ENOMEM;
	return 0;
}

/*
 * The thread's attributes: its CPUs, and real-time from birth, so the
 * threads it starts (an --aio writer) inherit the priority.
 */
static void stream__attr_init(const struct stream *s, pthread_attr_t *attr)
{
	int i;

	pthread_attr_init(attr);
	if (s->affinity && !cpu_map__is_any(s->affinity)) {
		cpu_set_t *set = CPU_ALLOC((size_t)cpu__max_present() + 1);
		size_t size = CPU_ALLOC_SIZE((size_t)cpu__max_present() + 1);

		if (set) {
			CPU_ZERO_S(size, set);
			for (i = 0; i < s->affinity->nr; i++)
				CPU_SET_S((size_t)s->affinity->map[i].cpu, size, set);
			pthread_attr_setaffinity_np(attr, size, set);
			CPU_FREE(set);
		}
	}
	if (s->rt_prio > 0) {
		struct sched_param sp = { .sched_priority = s->rt_prio };

		pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(attr, SCHED_FIFO);
		pthread_attr_setschedparam(attr, &sp);
	}
}

/* Pinned to its CPUs from birth, named, at SCHED_FIFO rt_prio when allowed. */
int stream__start(struct stream *s)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int err;

	err = stream__alloc_arrays(s);
	if (err)
		return err;
	if (s->group && s->slot == 0)
		s->group->t0 = stream__now();
	stream__attr_init(s, &attr);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&s->thread, &attr, stream__thread, s);
	/* Where real-time is refused, at normal priority. */
	if (err == -EPERM && s->rt_prio > 0) {
		s->rt_error = err;
		pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
		err = -pthread_create(&s->thread, &attr, stream__thread, s);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return err;
	s->started = true;
	pthread_setname_np(s->thread, s->name);
	/* one file: an --aio writer the main thread opened runs at the thread's priority */
	if (s->rt_prio > 0 && !s->rt_error && s->writer)
		s->rt_error = writer__set_realtime(s->writer, s->rt_prio);
	return 0;
}

int stream__request_switch(struct stream *s, bool snapshot)
{
	int none = STREAM_CMD_NONE;
	u64 one = 1;

	if (!s->started)
		return 0;
	s->snapshot = snapshot;
	/* Pairs with the acquire load in stream__command(): next_fds, snapshot first. */
	if (!__atomic_compare_exchange_n(&s->cmd, &none, STREAM_CMD_SWITCH, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		return none == STREAM_CMD_EXITED ? 0 : -EBUSY;
	if (write(s->ctl_fd, &one, sizeof(one)) < 0)
		return -errno;
	return 1;
}

int stream__stop(struct stream *s)
{
	int none = STREAM_CMD_NONE;
	u64 one = 1;

	if (!s->started)
		return s->error;
	/* A thread that already exited has EXITED here and needs no wake-up. */
	if (__atomic_compare_exchange_n(&s->cmd, &none, STREAM_CMD_STOP, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
	    write(s->ctl_fd, &one, sizeof(one)) < 0)
		return -errno;
	pthread_join(s->thread, NULL);
	s->started = false;
	return s->error;
}

void stream__exit(struct stream *s)
{
	if (s->started)
		stream__stop(s);
	if (s->group && s->slot == 0)
		stream_group__delete(s);
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
	if (!stream__is_helper(s))
		free(s->ring_writers);	/* a helper's are its lead's */
	s->ring_writers = NULL;
	if (!s->group)
		free(s->hup);		/* a group's belong to the group */
	s->hup = NULL;
	free(s->pfd);
	s->pfd = NULL;
}
