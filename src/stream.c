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
 *
 * Adaptive layout (struct stream_group, stream.h): the node's thread is the
 * lead of a group; every ring has an owner, and a thread reads only the
 * rings it owns. At the end of each pass a member asks the rule (adapt.c)
 * about what the pass found; on SPLIT it starts a helper (pinned to the
 * node, at the same priority) and hands it the fuller half of its rings,
 * on RETIRE (a helper idle for a while) it hands its rings back to the lead
 * and exits. A ring's reader state, writer, compressor and index notes
 * move with it, so each ring's records stay in order in its own data.N.
 * Asked to stop, the lead stops its helpers (each drains its rings a last
 * time), joins them, takes every ring back and makes its own final pass.
 * Threads are started and joined only under the group's lock; the lead
 * joins every helper before it exits.
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

#include "precord/stream.h"
#include "precord/merge-index.h"

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
	/* SEQ_CST: pairs with record__arm_max_size()'s store of max_at, as above */
	at = __atomic_load_n(&sh->max_at, __ATOMIC_SEQ_CST);
	if (at && total >= at && total - n < at && sh->max_fd >= 0 &&
	    write(sh->max_fd, &one, sizeof(one)) < 0)
		at = 0;		/* the counter saturated: the stop is pending anyway */
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

static u64 stream__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static bool stream__is_helper(const struct stream *s)
{
	return s->group && s->slot > 0;
}

/* Wake a thread asleep in poll (its ctl_fd); a saturated counter means it is awake anyway. */
static void stream__wake(struct stream *s)
{
	u64 one = 1;

	if (write(s->ctl_fd, &one, sizeof(one)) < 0)
		return;
}

/*
 * Group: pin the calling thread to the CPUs of the rings it reads, within
 * the node thread's affinity (all of it when none of its rings' CPUs is
 * there), as the named layouts pin a thread to the CPUs it drains.
 */
static void stream__pin(struct stream *s)
{
	const struct cpu_map *aff = s->group->affinity;
	int i, n = 0, max;
	cpu_set_t *set;
	size_t size;

	if (!aff || !aff->nr || cpu_map__is_any(aff))
		return;
	max = aff->map[aff->nr - 1].cpu;
	set = CPU_ALLOC((size_t)max + 1);
	if (!set)
		return;
	size = CPU_ALLOC_SIZE((size_t)max + 1);
	CPU_ZERO_S(size, set);
	for (i = 0; i < s->nr_rings; i++) {
		if (s->own[i] && cpu_map__has(aff, s->rings[i]->cpu)) {
			CPU_SET_S((size_t)s->rings[i]->cpu.cpu, size, set);
			n++;
		}
	}
	for (i = 0; !n && i < aff->nr; i++)
		CPU_SET_S((size_t)aff->map[i].cpu, size, set);
	pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
}

/* The poll set (and in a group the pinning) for the rings the thread reads now. */
static void stream__rebuild(struct stream *s)
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

/*
 * Group, at the start of each pass: when a hand-over happened since the
 * last look (gen moved), which rings are this thread's now. The acquire
 * load of gen pairs with the release add to gen in stream__publish_owners()
 * by the thread that handed rings over, after its owner stores. For the
 * lead: a helper's error, which it stored before that add. 0 or -errno.
 */
static void stream__load_owners(struct stream *s, unsigned int gen)
{
	int i;

	s->synced = true;
	s->seen_gen = gen;
	for (i = 0; i < s->nr_rings; i++)
		/* Acquire: pairs with the hand-over's release store of owner[i] (stream__hand()). */
		s->own[i] = __atomic_load_n(&s->group->owner[i], __ATOMIC_ACQUIRE) == s->slot;
}

static int stream__sync(struct stream *s)
{
	struct stream_group *g = s->group;
	unsigned int gen = __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE);

	if (s->synced && gen == s->seen_gen)
		return 0;
	stream__load_owners(s, gen);
	if (s->pfd)
		stream__rebuild(s);
	/* Relaxed: ordered by the acquire of gen above (see stream__retire()). */
	return s->slot == 0 ? __atomic_load_n(&g->error, __ATOMIC_RELAXED) : 0;
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
		if (s->own && i < s->nr_rings && !s->own[i])
			continue;	/* another thread of the group writes it */
		err = writer__flush(&s->ring_writers[i]);
		if (err)
			return err;
	}
	return 0;
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
static int stream__nr_alive(const struct stream *s)
{
	int i, n = 0;

	for (i = 0; i < s->nr_rings; i++)
		n += (!s->own || s->own[i]) && !s->hup[i];
	return n;
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

static bool stream__adapt(struct stream *s, bool woke);
static void stream__retire(struct stream *s, u64 now, enum stream_run_end end, int err);
static void stream__stop_helpers(struct stream *s);

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

static void *stream__thread(void *arg)
{
	struct stream *s = arg;
	bool helper = stream__is_helper(s), woke = false, retired = false;
	int stop = 0;
	ssize_t n;

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
			retired = true;
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
			retired = helper;
			break;
		}
		s->error = stream__flush_idle(s);
		if (!s->error)
			s->error = stream__wait(s);
		if (s->error)
			break;
		woke = true;
	}
	stream__finish(s, stop, retired);
out_notify:
	stream__note_cpu(s);
	stream__exit_commands(s);
	if (!helper && stop <= 0 && !(s->all_hup && s->bk_rings))
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
	if (!s->pfd)
		s->pfd = calloc((size_t)s->nr_rings + 1, sizeof(*s->pfd));
	if (!s->hup)
		s->hup = calloc((size_t)s->nr_rings + 1, sizeof(*s->hup));
	if (!s->pfd || !s->hup)
		return -ENOMEM;
	if (s->group && s->slot == 0)
		s->group->t0 = stream__now();
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

/* ---- the adaptive group (stream.h: struct stream_group) ---------------- */

struct stream *stream_group__helper(struct stream_group *g, int k)
{
	return &g->helpers[k - 1];
}

/* Hand ring i to slot `to`: the caller owns it, is between passes and holds the lock. */
static void stream__hand(struct stream *s, int i, int to)
{
	s->own[i] = false;
	s->group->heat[i] = 0;
	/*
	 * Release: pairs with the acquire load of owner[i] in the receiver's
	 * stream__sync(); what this thread did with ring i (its tail, writer,
	 * compressor, index notes) comes before.
	 */
	__atomic_store_n(&s->group->owner[i], to, __ATOMIC_RELEASE);
}

/* After a hand-over's owner stores: tell every member to look again. */
static void stream__publish_owners(struct stream_group *g)
{
	/* Release: pairs with the acquire load of gen in stream__sync(). */
	__atomic_add_fetch(&g->gen, 1, __ATOMIC_RELEASE);
}

/*
 * Under the lock: a slot for a new helper, joining one that retired; -1
 * when the lead is stopping or every slot runs.
 */
static int stream_group__take_slot(struct stream_group *g)
{
	int k;

	if (g->stopping)
		return -1;
	for (k = 1; k < g->max; k++)
		if (g->state[k] == STREAM_SLOT_FREE)
			return k;
	for (k = 1; k < g->max; k++) {
		if (g->state[k] == STREAM_SLOT_RETIRED) {
			stream__stop(stream_group__helper(g, k));	/* it has left: a join */
			g->state[k] = STREAM_SLOT_FREE;
			return k;
		}
	}
	return -1;
}

/*
 * Under the lock: helper h as its lead is now, with no ring yet. Its
 * counters go on from its slot's earlier runs.
 */
static void stream__ready_helper(struct stream *h, const struct stream *lead, u64 now)
{
	u64 v;
	int i;

	h->rings = lead->rings;
	h->nr_rings = lead->nr_rings;
	h->time_off = lead->time_off;
	h->rt_prio = lead->rt_prio;
	h->affinity = lead->affinity;
	h->node = lead->node;
	h->write_rounds = false;
	h->out_fds = lead->out_fds;
	h->nr_files = lead->nr_files;
	h->ring_writers = lead->ring_writers;
	h->writer_kind = lead->writer_kind;
	h->zc = lead->zc;
	h->index = lead->index;
	h->mmap_flush = lead->mmap_flush;
	h->flush_each = lead->flush_each;
	h->idle_ms = lead->idle_ms;
	h->error = 0;
	h->rt_error = 0;
	h->all_hup = false;
	h->final = false;
	h->synced = false;
	h->nr_own = 0;
	for (i = 0; i < h->nr_rings; i++)
		h->own[i] = false;
	adapt__init(&h->adapt, now, false);
	/* Relaxed: the thread is not running; pthread_create() orders it. */
	__atomic_store_n(&h->cmd, STREAM_CMD_NONE, __ATOMIC_RELAXED);
	while (read(h->ctl_fd, &v, sizeof(v)) == sizeof(v))
		;	/* a stop asked of its last run as it left */
}

/* Under the lock: note helper k's run, handed rings[given[0..n)]; its index or -1. */
static int stream_group__note_run(struct stream_group *g, const struct stream *s, int k,
				  const int *given, int n, u64 now)
{
	struct stream_helper_run *r;
	struct cpu_map *map;
	int i, *cpus;

	if (g->nr_runs == g->cap_runs) {
		int cap = g->cap_runs ? 2 * g->cap_runs : 8;
		void *p = realloc(g->runs, sizeof(*g->runs) * (size_t)cap);

		if (!p)
			return -1;
		g->runs = p;
		g->cap_runs = cap;
	}
	r = &g->runs[g->nr_runs];
	memset(r, 0, sizeof(*r));
	r->slot = k;
	r->parent = s->slot;
	r->start_ns = now - g->t0;
	r->why = s->adapt.why;
	r->fill = s->adapt.fill;
	r->lost = s->adapt.lost;
	cpus = malloc(sizeof(*cpus) * (size_t)(n ? n : 1));
	for (i = 0; cpus && i < n; i++)
		cpus[i] = s->rings[given[i]]->cpu.cpu;
	map = cpus ? cpu_map__new_from(cpus, n) : NULL;
	if (map)
		cpu_map__snprintf(map, r->cpus, sizeof(r->cpus));
	cpu_map__put(map);
	free(cpus);
	return g->nr_runs++;
}

/*
 * SPLIT: start a helper in a free slot and hand it the fuller half of the
 * rings this thread reads (adapt__pick() on their heat). Nothing changes
 * when no slot is free, the lead is stopping or the thread cannot start.
 */
static void stream__split(struct stream *s, u64 now)
{
	struct stream_group *g = s->group;
	int *mine = s->scratch, *pick = s->scratch + s->nr_rings;
	unsigned int *heat = (unsigned int *)(s->scratch + 2 * s->nr_rings);
	int i, j, k, n = 0, nr, err;
	struct stream *h;

	pthread_mutex_lock(&g->lock);
	k = stream_group__take_slot(g);
	if (k < 0)
		goto out_unlock;
	/*
	 * Rings handed to this thread since its pass began are its own too:
	 * hand-overs happen under the lock, so this look is exact. (Acquire:
	 * pairs with the release add of stream__publish_owners().)
	 */
	stream__load_owners(s, __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE));
	h = stream_group__helper(g, k);
	stream__ready_helper(h, g->lead, now);
	err = stream__start(h);
	if (err) {
		if (!g->start_error)
			g->start_error = err;
		goto out_unlock;
	}
	g->state[k] = STREAM_SLOT_RUNNING;	/* before it owns anything */
	for (i = 0; i < s->nr_rings; i++) {
		if (s->own[i]) {
			mine[n] = i;
			heat[n++] = g->heat[i];
		}
	}
	nr = adapt__pick(heat, n, pick);
	for (j = 0; j < n; j++)
		g->heat[mine[j]] = 0;	/* all start afresh; before any is handed over */
	for (j = 0; j < nr; j++)
		stream__hand(s, mine[pick[j]], k);
	stream__publish_owners(g);
	/* Relaxed: a count for the status line and a hint for can_split. */
	__atomic_add_fetch(&g->running, 1, __ATOMIC_RELAXED);
	g->started++;
	if (__atomic_load_n(&g->running, __ATOMIC_RELAXED) > g->peak)
		g->peak = __atomic_load_n(&g->running, __ATOMIC_RELAXED);
	for (j = 0; j < nr; j++)
		pick[j] = mine[pick[j]];
	h->run = stream_group__note_run(g, s, k, pick, nr, now);
	pthread_mutex_unlock(&g->lock);
	stream__wake(h);
	stream__rebuild(s);
	return;

out_unlock:
	pthread_mutex_unlock(&g->lock);
}

/*
 * RETIRE (a helper idle, or whose rings all hung up), or a helper's error:
 * hand every ring back to the lead, leave RUNNING, and wake the lead so it
 * polls them. The thread then exits. err: the helper's -errno, which the
 * lead stops on; stored before the release add to gen, which the lead's
 * acquire in stream__sync() pairs with.
 */
static void stream__retire(struct stream *s, u64 now, enum stream_run_end end, int err)
{
	struct stream_group *g = s->group;
	int i;

	pthread_mutex_lock(&g->lock);
	/* Every ring it owns, those handed to it since its last pass too (see stream__split()). */
	stream__load_owners(s, __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE));
	for (i = 0; i < s->nr_rings; i++)
		if (s->own[i])
			stream__hand(s, i, 0);
	s->nr_own = 0;
	if (err && !__atomic_load_n(&g->error, __ATOMIC_RELAXED))
		__atomic_store_n(&g->error, err, __ATOMIC_RELAXED);
	stream__publish_owners(g);
	g->state[s->slot] = STREAM_SLOT_RETIRED;
	__atomic_sub_fetch(&g->running, 1, __ATOMIC_RELAXED);
	if (s->run >= 0) {
		g->runs[s->run].stop_ns = now - g->t0;
		g->runs[s->run].end = end;
		g->runs[s->run].error = err;
	}
	pthread_mutex_unlock(&g->lock);
	stream__wake(g->lead);
}

/*
 * The lead, leaving: no new helper from now on; every helper is asked to
 * stop (each drains its rings a last time, side by side), then joined;
 * its error becomes the lead's if the lead has none. Then every ring is
 * the lead's again. The joins order everything the helpers did before
 * what follows.
 */
static void stream__stop_helpers(struct stream *s)
{
	struct stream_group *g = s->group;
	u64 now = stream__now();
	int i, k, err;

	pthread_mutex_lock(&g->lock);
	g->stopping = true;
	pthread_mutex_unlock(&g->lock);
	/* No slot starts or joins from here on but by this thread: no lock needed for started. */
	for (k = 1; k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);
		int none = STREAM_CMD_NONE;

		/* Pairs with the acquire load of cmd in its stream__command(). */
		if (h->started && __atomic_compare_exchange_n(&h->cmd, &none, STREAM_CMD_STOP, false,
							      __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			stream__wake(h);
	}
	for (k = 1; k < g->max; k++) {
		err = stream__stop(stream_group__helper(g, k));
		if (err && !s->error)
			s->error = err;
	}
	pthread_mutex_lock(&g->lock);
	for (k = 1; k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);

		if (g->state[k] == STREAM_SLOT_RUNNING && h->run >= 0) {
			g->runs[h->run].stop_ns = now - g->t0;
			g->runs[h->run].end = h->error ? STREAM_RUN_ERROR : STREAM_RUN_END;
			g->runs[h->run].error = h->error;
		}
		g->state[k] = STREAM_SLOT_FREE;
	}
	for (i = 0; i < s->nr_rings; i++) {
		/* Relaxed: every other member has been joined. */
		__atomic_store_n(&g->owner[i], 0, __ATOMIC_RELAXED);
		s->own[i] = true;
	}
	s->nr_own = s->nr_rings;
	__atomic_store_n(&g->running, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g->lock);
	if (!s->error)
		s->error = __atomic_load_n(&g->error, __ATOMIC_RELAXED);
}

/* The rule's verdict on the pass just made, acted on; true when the thread retired. */
static bool stream__adapt(struct stream *s, bool woke)
{
	struct stream_group *g = s->group;
	struct adapt_pass pass = {
		.now = stream__now(), .fill = s->pass_fill, .lost = s->pass_lost, .woke = woke,
	};
	/*
	 * Two rings or more that can still fill (a hung-up one never will).
	 * Relaxed: a hint; stream__split() looks for a free slot under the lock.
	 */
	bool can_split = s->nr_own >= 2 && __atomic_load_n(&g->running, __ATOMIC_RELAXED) < g->max &&
			 stream__nr_alive(s) >= 2;

	switch (adapt__step(&s->adapt, &g->params, &pass, can_split, stream__is_helper(s))) {
	case ADAPT_SPLIT:
		stream__split(s, pass.now);
		return false;
	case ADAPT_RETIRE:
		stream__retire(s, pass.now, STREAM_RUN_IDLE, 0);
		return true;
	default:
		return false;
	}
}

/* A member's own arrays: which rings it reads, its poll set, room for a split. */
static int stream__alloc_member(struct stream *s, int n)
{
	s->own = calloc((size_t)n + 1, sizeof(*s->own));
	s->pfd = calloc((size_t)n + 1, sizeof(*s->pfd));
	/* mine[n], pick[n], then n heats (an unsigned int fits an int's room) */
	s->scratch = calloc(3 * (size_t)n + 1, sizeof(*s->scratch));
	return s->own && s->pfd && s->scratch ? 0 : -ENOMEM;
}

int stream_group__new(struct stream *s, int max, const struct adapt_params *p)
{
	struct stream_group *g;
	int i, k, n = s->nr_rings, err = -ENOMEM;

	if (max > n)
		max = n;
	if (max < 1)
		max = 1;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	s->group = g;
	s->slot = 0;
	g->lead = s;
	g->max = max;
	if (p)
		g->params = *p;
	else
		adapt_params__default(&g->params);
	g->affinity = s->affinity;
	g->follow = s->affinity != NULL;
	pthread_mutex_init(&g->lock, NULL);
	g->helpers = calloc((size_t)max, sizeof(*g->helpers));
	g->owner = calloc((size_t)n + 1, sizeof(*g->owner));
	g->hup = calloc((size_t)n + 1, sizeof(*g->hup));
	g->heat = calloc((size_t)n + 1, sizeof(*g->heat));
	g->state = calloc((size_t)max, sizeof(*g->state));
	if (!g->helpers || !g->owner || !g->hup || !g->heat || !g->state)
		goto out_delete;
	for (k = 1; k < max; k++)
		g->helpers[k - 1].ctl_fd = -1;
	for (k = 1; k < max; k++) {
		struct stream *h = stream_group__helper(g, k);

		err = stream__init(h, s->idx, s->rings, n, NULL, s->time_off, -1);
		if (err)
			goto out_delete;
		snprintf(h->name, sizeof(h->name), "prec-rd/%u.%u", (unsigned int)(s->idx % 10000),
			 (unsigned int)(k % 1000));
		h->group = g;
		h->slot = k;
		h->hup = g->hup;
		err = stream__alloc_member(h, n);
		if (err)
			goto out_delete;
	}
	free(s->hup);
	s->hup = g->hup;
	err = stream__alloc_member(s, n);
	if (err)
		goto out_delete;
	for (i = 0; i < n; i++)
		s->own[i] = true;
	s->nr_own = n;
	g->state[0] = STREAM_SLOT_RUNNING;
	g->running = 1;
	g->started = 1;
	g->peak = 1;
	return 0;

out_delete:
	stream_group__delete(s);
	return err;
}

void stream_group__delete(struct stream *s)
{
	struct stream_group *g = s->group;
	int k;

	if (!g)
		return;
	for (k = 1; g->helpers && k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);

		if (h->ctl_fd < 0 && !h->own)
			continue;	/* never made */
		stream__exit(h);
		free(h->own);
		free(h->scratch);
	}
	free(s->own);
	free(s->scratch);
	s->own = NULL;
	s->scratch = NULL;
	if (s->hup == g->hup)
		s->hup = NULL;
	s->group = NULL;
	pthread_mutex_destroy(&g->lock);
	free(g->helpers);
	free(g->owner);
	free(g->hup);
	free(g->heat);
	free(g->state);
	free(g->runs);
	free(g);
}

int stream_group__read_live(const struct stream *s, struct stream_live *sum)
{
	struct stream_group *g = s->group;
	struct stream_live l;
	int k;

	stream__read_live(s, sum);
	if (!g)
		return 1;
	for (k = 1; k < g->max; k++) {
		stream__read_live(stream_group__helper(g, k), &l);
		sum->bytes += l.bytes;
		sum->samples += l.samples;
		sum->lost += l.lost;
	}
	/* Relaxed: a count of its own (see struct stream_group). */
	return __atomic_load_n(&g->running, __ATOMIC_RELAXED);
}

int stream_group__check_owners(struct stream *s)
{
	struct stream_group *g = s->group;
	int i, k, bad = -1;

	if (!g)
		return -1;
	pthread_mutex_lock(&g->lock);
	for (i = 0; i < s->nr_rings && bad < 0; i++) {
		/* Acquire: pairs with the release stores of stream__hand() (made under the lock too). */
		k = __atomic_load_n(&g->owner[i], __ATOMIC_ACQUIRE);
		if (k < 0 || k >= g->max || g->state[k] != STREAM_SLOT_RUNNING)
			bad = i;
	}
	pthread_mutex_unlock(&g->lock);
	return bad;
}
