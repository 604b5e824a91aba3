// SPDX-License-Identifier: GPL-2.0
/*
 * stream-files.c — where a streaming thread's records go.
 *
 * Owns the thread's writers and zstd streams: one writer for every ring
 * (one file), or one per ring (a perf directory's data.N files, --threads),
 * opened by the thread itself after it has bound its memory to its NUMA
 * node, so its staging buffers are node-local. Runs only on the streaming
 * thread that owns the ring being read (stream.c's pass, stream-group.c's
 * hand-overs move a ring's writer with the ring).
 *
 * Data flow: ringbuf__read() → stream_sink() → zstd (-z) → writer. With an
 * index (stream.index), each run written to a data.N is also noted in it
 * while the records are still in the cache: where each chunk of the file
 * starts and its time range, which spares the merge a walk over the file.
 * Also here: the shared byte count of --switch-output=SIZE, a SWITCH to
 * the next files, the snapshot of the overwrite rings, and the header's
 * data size kept current for a recording killed with SIGKILL.
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

int stream_sink(void *ctx, const void *data, size_t size)
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
void stream__count_shared(struct stream *s, u64 n)
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

bool stream__file_full(const struct stream *s)
{
	u64 at;

	if (!s->shared || s->final)
		return false;
	at = stream__limit(s);
	return at && __atomic_load_n(&s->shared->bytes, __ATOMIC_RELAXED) >= at;
}

/* The next read's records go to file slot `slot`: its writer and zstd stream. */
void stream__aim(struct stream *s, int slot)
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
void stream__note_size(struct stream *s, bool always)
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
ssize_t stream__read_backward(struct stream *s)
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
int stream__flush_idle(struct stream *s)
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

int stream__open_writers(struct stream *s)
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
int stream__close_writers(struct stream *s)
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

/*
 * SWITCH: everything the forward rings hold goes to the current files, and
 * with a snapshot the overwrite rings too; then the thread closes those
 * files' writers and opens writers on next_fds.
 */
int stream__switch_files(struct stream *s)
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
