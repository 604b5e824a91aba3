// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c — a streaming thread: the reader of a set of ring buffers.
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
 * Data flow: kernel ring → ringbuf__read() → stream_sink() → writer: one
 * writer for every ring (one file), or one per ring (a perf directory's
 * data.N files, --threads), opened by the thread itself after it has bound
 * its memory to its NUMA node, so its staging buffers are node-local. With
 * an index (stream.index), each run written to a data.N is also noted in it
 * while the records are still in the cache: where each chunk of the file
 * starts and its time range, which spares the merge a walk over the file.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <numa.h>

#include "precord/stream.h"
#include "precord/merge.h"

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
	s->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->ctl_fd < 0)
		return -errno;
	return 0;
}

static void stream__note_times(struct stream *s, const unsigned char *p, size_t size)
{
	const unsigned char *end = p + size;
	u64 t;

	while (p < end) {
		const struct perf_event_header *h = (const void *)p;

		if (h->type == PERF_RECORD_SAMPLE && h->size >= s->time_off + 8) {
			memcpy(&t, p + s->time_off, sizeof(t));
			if (!s->stats.first_time || t < s->stats.first_time)
				s->stats.first_time = t;
			if (t > s->stats.last_time)
				s->stats.last_time = t;
		}
		p += h->size;
	}
}

static int stream_emit(void *ctx, const void *record, size_t size)
{
	return writer__write(ctx, record, size);
}

static int stream_sink(void *ctx, const void *data, size_t size)
{
	struct stream *s = ctx;
	int err = s->cur_zc ? zcomp__compress(s->cur_zc, data, size, stream_emit, s->cur)
			    : writer__write(s->cur, data, size);

	if (err)
		return err;
	if (s->cur_file >= 0)
		merge_index__add(s->index, s->cur_file, data, size);
	if (s->time_off)
		stream__note_times(s, data, size);
	return 0;
}

/* The byte count at which this thread's current files are full; 0: no limit (yet). */
static u64 stream__limit(const struct stream *s)
{
	/* SEQ_CST: pairs with record__arm_size()'s store, after this thread's add to bytes */
	u64 v = __atomic_load_n(&s->shared->switch_at, __ATOMIC_SEQ_CST);

	if (v >> STREAM_AT_BITS != (s->files_set & 0xffff))
		return 0;	/* armed for other files than the ones written now */
	return v & STREAM_AT_MASK;
}

/*
 * --switch-output=SIZE: the ring read that fills the current file tells the
 * main thread. The thread ends that pass over its rings, then holds what
 * they have (the kernel keeps it) until the switch, so no file exceeds SIZE
 * by more than one pass, as with perf record, and every ring has been read
 * up to about the same moment: what the next file gets is what came after
 * it, on every CPU. (Holding from the ring that crossed on, the later rings
 * of a thread would be read only by the passes that crossed nothing: with
 * files full as they begin, never, and their records would reach a file
 * far later than the ones around them.)
 */
static void stream__count_shared(struct stream *s, u64 n)
{
	struct stream_shared *sh = s->shared;
	u64 total, at, one = 1;

	if (!sh || !n)
		return;
	/*
	 * SEQ_CST add, then stream__limit()'s SEQ_CST load: against the main
	 * thread's store of switch_at then load of bytes (record__arm_size()),
	 * one of the two sees the other, so a limit already passed when it
	 * is armed is never missed by both.
	 */
	total = __atomic_add_fetch(&sh->bytes, n, __ATOMIC_SEQ_CST);
	at = stream__limit(s);
	if (at && total >= at && total - n < at && sh->switch_fd >= 0 &&
	    write(sh->switch_fd, &one, sizeof(one)) < 0)
		return;		/* the counter saturated: a switch is pending anyway */
}

static bool stream__file_full(const struct stream *s)
{
	u64 at;

	if (!s->shared || s->final)
		return false;
	at = stream__limit(s);
	return at && __atomic_load_n(&s->shared->bytes, __ATOMIC_RELAXED) >= at;
}

/* The next read's records go to file slot `slot`: its writer and zstd stream. */
static void stream__aim(struct stream *s, int slot)
{
	s->cur = s->ring_writers ? &s->ring_writers[slot] : s->writer;
	s->cur_zc = s->zc ? s->zc[s->ring_writers ? slot : 0] : NULL;
	s->cur_file = s->index && s->ring_writers && !s->cur_zc && slot < s->nr_rings ?
		      s->rings[slot]->idx : -1;
}

/*
 * One file: store what the writer has put in the file as the header's data
 * size, every STREAM_SIZE_STEP bytes, or now (always). A failed store is
 * not an error: the end rewrites the header anyway.
 */
static void stream__note_size(struct stream *s, bool always)
{
	u64 size;

	if (s->size_fd < 0 || !s->writer)
		return;
	size = s->writer->written;
	if (size == s->size_noted || (!always && size - s->size_noted < STREAM_SIZE_STEP))
		return;
	if (pwrite(s->size_fd, &size, sizeof(size), (off_t)s->size_off) == sizeof(size))
		s->size_noted = size;
}

/* Relaxed: see struct stream_live; paired with stream__read_live()'s loads. */
static void stream__publish(struct stream *s)
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

ssize_t stream__drain(struct stream *s)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round),
	};
	ssize_t total = 0, n;
	int i, err;

	if (stream__file_full(s)) {
		s->held = true;	/* until the main thread switches files */
		return 0;
	}
	for (i = 0; i < s->nr_rings; i++) {
		struct ringbuf *rb = s->rings[i];
		u64 samples = rb->nr_samples, lrec = rb->nr_lost_records, lost = rb->lost;

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

/*
 * The sink of a snapshot: every record but PERF_RECORD_LOST. An overwrite
 * ring drops records only while it is paused for a snapshot (it overwrites
 * instead of dropping otherwise), and the LOST record that says so carries
 * no sample; it is counted (stats.paused_lost, from the ring's counters)
 * and left out, so the snapshot reads in perf without a loss warning.
 */
static int stream_sink_snapshot(void *ctx, const void *data, size_t size)
{
	const unsigned char *p = data, *end = p + size, *run = p;
	int err;

	while (p < end) {
		const struct perf_event_header *h = (const void *)p;

		if (h->type == PERF_RECORD_LOST) {
			if (p > run) {
				err = stream_sink(ctx, run, (size_t)(p - run));
				if (err)
					return err;
			}
			run = p + h->size;
		}
		p += h->size;
	}
	return end > run ? stream_sink(ctx, run, (size_t)(end - run)) : 0;
}

/*
 * A snapshot: each overwrite ring, paused by the main thread, from its
 * oldest whole record to its newest, into its own file; each ring resumes
 * as soon as it has been read (the snapshot ends where the rings were
 * paused; what comes after the resume belongs to the next one), so the
 * kernel drops as little as it can.
 */
static ssize_t stream__read_backward(struct stream *s)
{
	ssize_t total = 0, n;
	int i;

	for (i = 0; s->bk_rings && i < s->nr_rings; i++) {
		struct ringbuf *rb = s->bk_rings[i];
		u64 samples = rb->nr_samples, lost = rb->lost;

		if (!rb->base)
			continue;
		stream__aim(s, s->nr_rings + i);
		n = ringbuf__read_backward(rb, stream_sink_snapshot, s);
		if (rb->fd >= 0)
			ringbuf__resume(rb);
		if (n < 0)
			return n;
		total += n;
		s->stats.samples += rb->nr_samples - samples;
		s->stats.paused_lost += rb->lost - lost;
	}
	s->stats.bytes += (u64)total;
	s->stats.snapshots++;
	stream__publish(s);
	stream__count_shared(s, (u64)total);
	return total;
}

/*
 * The longest a thread sleeps: below the wakeup watermark (half a ring) the
 * kernel never wakes it, so without a timeout a slow trickle of records would
 * wait in the ring until the end; this way what is recorded reaches the file
 * within STREAM_IDLE_MS, and a recording killed with SIGKILL keeps it.
 */
#define STREAM_IDLE_MS	250

/*
 * Before sleeping, push what the writers hold to the file: an idle moment
 * costs nothing, and a recording killed with SIGKILL then loses only what
 * arrived since the last idle pass. (Not the mmap backend: its flush cuts
 * the file to size, meant for the end.)
 */
static int stream__flush_idle(struct stream *s)
{
	int i, err;

	if (s->writer_kind == WRITER_MMAP) {
		stream__note_size(s, true);
		return 0;
	}
	if (!s->out_fds) {
		err = writer__flush(s->writer);
		stream__note_size(s, true);
		return err;
	}
	for (i = 0; i < s->nr_files; i++) {
		err = writer__flush(&s->ring_writers[i]);
		if (err)
			return err;
	}
	return 0;
}

/* Poll the rings' fds and ctl_fd; 0, or -errno. */
static int stream__wait(struct stream *s, struct pollfd *pfd, int *nr_alive)
{
	int i, ret;

	/* Holding full rings (a full file): they stay readable, so wait on ctl_fd alone. */
	if (s->held) {
		ret = poll(pfd + s->nr_rings, 1, STREAM_IDLE_MS);
		for (i = 0; i < s->nr_rings; i++)
			pfd[i].revents = 0;
	} else {
		ret = poll(pfd, (nfds_t)s->nr_rings + 1, STREAM_IDLE_MS);
	}
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[s->nr_rings].revents & POLLIN) {
		u64 v;

		if (read(s->ctl_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	}
	for (i = 0; i < s->nr_rings; i++) {
		if (pfd[i].revents & (POLLHUP | POLLERR)) {
			/* The monitored task is gone: this fd will never fill again. */
			pfd[i].fd = -1;
			(*nr_alive)--;
		}
	}
	return 0;
}

/* Bind memory to the thread's node, then open the per-ring writers there. */
static int stream__open_compressors(struct stream *s)
{
	int i, n = s->out_fds ? s->nr_files : 1;

	if (!s->comp_level)
		return 0;
	s->zc = calloc((size_t)n, sizeof(*s->zc));
	if (!s->zc)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s->zc[i] = zcomp__new(s->comp_level);
		if (!s->zc[i])
			return -ENOMEM;
	}
	return 0;
}

static void stream__close_compressors(struct stream *s)
{
	int i, n = s->out_fds ? s->nr_files : 1;

	if (!s->zc)
		return;
	for (i = 0; i < n; i++) {
		s->comp_in += zcomp__bytes_in(s->zc[i]);
		s->comp_out += zcomp__bytes_out(s->zc[i]);
		zcomp__delete(s->zc[i]);
	}
	free(s->zc);
	s->zc = NULL;
}

static int stream__open_writers(struct stream *s)
{
	int i, err;

	if (s->node >= 0 && numa_available() >= 0 && numa_num_configured_nodes() > 1) {
		numa_set_preferred(s->node);
		/* one file: the main thread opened the writer; its buffers come to this node */
		if (!s->out_fds)
			writer__bind_node(s->writer, s->node);
	}
	err = stream__open_compressors(s);
	if (err || !s->out_fds)
		return err;
	for (i = 0; i < s->nr_files; i++) {
		if (s->aio)
			err = writer__open_aio(&s->ring_writers[i], s->out_fds[i], 0,
					       STREAM_RING_BUF_SIZE, s->aio);
		else
			err = writer__open_size(&s->ring_writers[i], s->writer_kind, s->out_fds[i],
						0, s->writer_kind == WRITER_MMAP ? 0 :
						STREAM_RING_BUF_SIZE);
		if (err)
			return err;
		writer__prealloc(&s->ring_writers[i], s->prealloc);
	}
	return 0;
}

/* Flush and close the per-ring writers; the first error wins. */
static int stream__close_writers(struct stream *s)
{
	int i, err = 0;

	stream__close_compressors(s);
	if (!s->out_fds)
		return writer__flush(s->writer);
	for (i = 0; i < s->nr_files; i++) {
		int e = writer__flush(&s->ring_writers[i]);

		writer__close(&s->ring_writers[i]);
		if (e && !err)
			err = e;
	}
	return err;
}

/* Tell the main thread this thread has nothing more to do (or stopped on an error). */
static void stream__notify(struct stream *s)
{
	u64 one = 1;

	if (s->notify_fd >= 0 && write(s->notify_fd, &one, sizeof(one)) < 0 && !s->error)
		s->error = -errno;
}

/*
 * SWITCH: everything the forward rings hold goes to the current files, and
 * with a snapshot the overwrite rings too; then the thread closes those
 * files' writers and opens writers on next_fds.
 */
static int stream__switch_files(struct stream *s)
{
	ssize_t n;
	int i, err;

	/* A full file takes nothing more: what the rings hold goes to the next. */
	if (!s->held) {
		s->final = true;	/* --mmap-flush does not hold bytes back now */
		n = stream__drain(s);
		s->final = false;
	} else {
		n = 0;
		s->held = false;
	}
	if (n >= 0 && s->snapshot)
		n = stream__read_backward(s);
	err = stream__close_writers(s);
	if (n < 0)
		err = (int)n;
	s->index = NULL;	/* it describes the files just finished */
	for (i = 0; i < s->nr_files; i++)
		s->out_fds[i] = s->next_fds[i];
	s->files_set++;
	if (!err)
		err = stream__open_writers(s);
	return err;
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

static void *stream__thread(void *arg)
{
	struct stream *s = arg;
	struct pollfd *pfd = calloc((size_t)s->nr_rings + 1, sizeof(*pfd));
	int i, nr_alive = s->nr_rings, stop = 0;
	bool woke = false;
	ssize_t n;

	if (!pfd) {
		s->error = -ENOMEM;
		goto out_notify;
	}
	s->error = stream__open_writers(s);
	if (s->error) {
		free(pfd);
		stream__close_writers(s);
		goto out_notify;
	}
	for (i = 0; i < s->nr_rings; i++) {
		pfd[i].fd = s->rings[i]->base ? s->rings[i]->fd : -1;
		pfd[i].events = POLLIN;
	}
	pfd[s->nr_rings].fd = s->ctl_fd;
	pfd[s->nr_rings].events = POLLIN;

	while (!stop) {
		n = stream__drain(s);
		if (n < 0) {
			s->error = (int)n;
			break;
		}
		/* Woken up (watermark or timeout) and found data to write: perf's count. */
		if (n > 0 && woke)
			s->stats.wakeups++;
		woke = false;
		stop = stream__command(s);
		if (stop < 0) {
			s->error = stop;
			break;
		}
		if (n > 0 || stop)
			continue;
		if (nr_alive == 0 && s->nr_rings > 0 && !s->all_hup) {
			s->all_hup = true;
			if (!s->bk_rings)
				break;
			/* The overwrite rings still wait for the final snapshot: ask for it. */
			stream__notify(s);
		}
		s->error = stream__flush_idle(s);
		if (!s->error)
			s->error = stream__wait(s, pfd, &nr_alive);
		if (s->error)
			break;
		woke = true;
	}
	/* The final pass: the main thread disabled the events before asking. */
	s->final = true;
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
	free(pfd);
out_notify:
	stream__exit_commands(s);
	if (stop <= 0 && !(s->all_hup && s->bk_rings))
		stream__notify(s);
	return NULL;
}

/* Pinned to its CPUs from birth, named, at SCHED_FIFO rt_prio when allowed. */
int stream__start(struct stream *s)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int i, err;

	if (s->out_fds && !s->nr_files)
		s->nr_files = s->nr_rings;
	if (s->out_fds && !s->ring_writers) {
		s->ring_writers = calloc((size_t)s->nr_files, sizeof(*s->ring_writers));
		if (!s->ring_writers)
			return -ENOMEM;
	}
	pthread_attr_init(&attr);
	if (s->affinity && !cpu_map__is_any(s->affinity)) {
		cpu_set_t *set = CPU_ALLOC((size_t)cpu__max_present() + 1);
		size_t size = CPU_ALLOC_SIZE((size_t)cpu__max_present() + 1);

		if (set) {
			CPU_ZERO_S(size, set);
			for (i = 0; i < s->affinity->nr; i++)
				CPU_SET_S((size_t)s->affinity->map[i].cpu, size, set);
			pthread_attr_setaffinity_np(&attr, size, set);
			CPU_FREE(set);
		}
	}
	/*
	 * Real-time from birth, so the threads it starts (an --aio writer)
	 * inherit the priority; where that is refused, at normal priority.
	 */
	if (s->rt_prio > 0) {
		struct sched_param sp = { .sched_priority = s->rt_prio };

		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&s->thread, &attr, stream__thread, s);
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
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
	free(s->ring_writers);
	s->ring_writers = NULL;
}
