// SPDX-License-Identifier: GPL-2.0
/*
 * writer.c — the writers: where the bytes a reader takes out of the rings
 * go, one backend per mechanism behind struct writer_ops.
 *
 * Owns: a staging buffer (WRITER_WRITE), a window mapping of the output
 * file (WRITER_MMAP), or buffers and a writer thread (WRITER_AIO); never
 * the fd. Who runs it: one thread at a time (the streaming thread owning
 * the output file, or main before they start), plus WRITER_AIO's thread.
 *
 * Data flow: writer__write() gets whole records (typically a sink run from
 * ringbuf__read()) and returns once they are copied out, so the ring's tail
 * can move on at once.
 *  - WRITER_WRITE copies small writes into the staging buffer and writes it
 *    out with pwrite(2) (write(2) on a pipe) when the next write does not
 *    fit, at flush and at close. A write as large as the buffer goes straight
 *    to the file after the staged bytes. Short writes are continued, EINTR
 *    retried, EAGAIN waits in poll().
 *    With writer__prealloc() (a data.N) the file's space is reserved a
 *    step ahead of the writes with fallocate(2) FALLOC_FL_KEEP_SIZE, by
 *    whichever thread writes (the caller, or WRITER_AIO's thread); close
 *    gives back what lies past the end by truncating the file to its size.
 *  - WRITER_MMAP (as perf's 2013 mmap-output patch: no system call per
 *    write, which matters when tracing system calls) copies into a
 *    MAP_SHARED window of the file,
 *    WRITER_MMAP_CHUNK long, moved along the file as it fills. File space
 *    is reserved with posix_fallocate() ahead of the copies in chunks of the
 *    same size (down to what one write needs when the disk is nearly full),
 *    so a full disk is -ENOSPC and never SIGBUS; flush and close cut the
 *    file to its true size. The first 8 bytes of each write (the header of
 *    the first record) are stored after the rest, so a process killed in
 *    the middle of a copy leaves a zero header there, not a record whose
 *    body is partly zeroes.
 *  - WRITER_AIO (perf's --aio=N) copies into one of N + 1 buffers
 *    and hands each full one to a writer thread of its own, which writes
 *    them in order with the same pwrite(2)/write(2) loop as WRITER_WRITE.
 *    The caller waits only when all N are still in flight (for the oldest).
 *    A thread rather than POSIX AIO: glibc's aio_write() is itself a helper
 *    thread doing pwrite(2) (one request per fd at a time), and measured
 *    alike or worse (1 MiB buffers, page cache: both ~17 us/MB in the
 *    caller, 180-200 us/MB for the process, glibc's the longer stalls); a
 *    thread of our own also works on pipes, keeps order by construction,
 *    blocks signals, is joined at close, and is visible to TSan.
 *
 * Errors: the first -errno is kept in w->error and every later call returns
 * it (WRITER_AIO: the call that finds it, a later write or the flush, after
 * waiting for whatever is in flight; the thread writes nothing after it).
 * Every byte that reached the file is kept and counted in w->written
 * (open offset + w->written is where the file is cut), so a full disk loses
 * only what did not fit; the file may then end inside a record, and the
 * caller, who knows the record format, cuts it back to the last whole one
 * (builtin/record-output.c does, when it finishes the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <limits.h>
#include <sys/uio.h>

#include "precord/writer.h"

static inline u64 writer__start(const struct writer *w)
{
	return w->offset - w->bytes;
}

/* File offset where the next byte to reach the file goes. */
static inline u64 writer__file_pos(const struct writer *w)
{
	return writer__start(w) + w->written;
}

static size_t writer__page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int writer__cut(struct writer *w)
{
	return ftruncate(w->fd, (off_t)writer__file_pos(w)) < 0 ? -errno : 0;
}

/*
 * Keep the first error; cut the file to what reached it (w->written), so no
 * reserved or stale bytes follow the data.
 */
static int writer__fail(struct writer *w, int err)
{
	if (w->error)
		return w->error;
	w->error = err;
	if (!w->pipe && !w->region_end)
		writer__cut(w);
	return err;
}

/* --- WRITER_WRITE ------------------------------------------------------ */

static int writer__wait_writable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	while (poll(&pfd, 1, -1) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * All of p[0, len) to fd at pos (pwrite(2); write(2) on a pipe), or -errno;
 * *done gets how many bytes reached the file either way.
 */
static int writer__pwrite_all(int fd, bool pipe, const unsigned char *p, size_t len,
			      u64 pos, size_t *done)
{
	size_t left = len;
	int err;

	*done = 0;
	while (left) {
		ssize_t n = pipe ? write(fd, p, left) : pwrite(fd, p, left, (off_t)pos);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			if (err == -EAGAIN)
				err = writer__wait_writable(fd);
			if (!err)
				continue;
			/* Keep what reached the file: the caller cuts at a record. */
			*done = len - left;
			return err;
		}
		if (n == 0) {
			*done = len - left;
			return -EIO;	/* no progress and no reason: do not spin */
		}
		p += n;
		left -= (size_t)n;
		pos += (u64)n;
	}
	*done = len;
	return 0;
}

/*
 * Reserve fd's space up to `upto`, a step at a time (writer__prealloc()).
 * Any failure turns reserving off: the write that follows meets the disk as
 * it is, and reports ENOSPC itself.
 */
static void prealloc__ahead(int fd, struct writer_prealloc *pa, u64 upto)
{
	u64 grow;

	if (!pa->step || upto <= pa->end)
		return;
	grow = (upto - pa->end + pa->step - 1) / pa->step * pa->step;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)pa->end, (off_t)grow) < 0)
		pa->step = 0;
	else
		pa->end += grow;
}

/* All of p[0, len) to the file at the current file position, or -errno. */
static int writer__emit(struct writer *w, const unsigned char *p, size_t len)
{
	size_t done;
	int err;

	prealloc__ahead(w->fd, &w->pre, writer__file_pos(w) + len);
	err = writer__pwrite_all(w->fd, w->pipe, p, len, writer__file_pos(w), &done);
	w->written += done;
	return err;
}

static int write__open(struct writer *w, size_t size)
{
	void *buf;

	if (!size)
		size = WRITER_BUF_SIZE;
	if (posix_memalign(&buf, writer__page_size(), size))
		return -ENOMEM;
	w->buf = buf;
	w->buf_size = size;
	w->buf_len = 0;
	return 0;
}

static int write__flush(struct writer *w)
{
	int err;

	if (!w->buf_len)
		return 0;
	err = writer__emit(w, w->buf, w->buf_len);
	if (err)
		return err;
	w->buf_len = 0;
	return 0;
}

static int write__write(struct writer *w, const void *buf, size_t len)
{
	int err;

	if (len <= w->buf_size - w->buf_len) {
		memcpy(w->buf + w->buf_len, buf, len);
		w->buf_len += len;
		return 0;
	}
	err = write__flush(w);
	if (err)
		return err;
	if (len >= w->buf_size)
		return writer__emit(w, buf, len);
	memcpy(w->buf, buf, len);
	w->buf_len = len;
	return 0;
}

static void write__close(struct writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->buf_len = 0;
}

static const struct writer_ops write_ops = {
	.name	= "write",
	.open	= write__open,
	.write	= write__write,
	.flush	= write__flush,
	.close	= write__close,
};

/* --- WRITER_MMAP ------------------------------------------------------- */

/*
 * Reserve [off, off + len) of a file whose size is off. A reservation that
 * fails part-way keeps on ext4 what it allocated (and the size it reached),
 * which on a nearly full disk is all that was left: it is given back (the
 * size cut back to off, and any block past it punched), so that a smaller
 * reservation, this file's or another writer's, can still have it.
 */
static int writer__fallocate(int fd, u64 off, u64 len)
{
	int err;

	do {
		err = posix_fallocate(fd, (off_t)off, (off_t)len);
	} while (err == EINTR);
	if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
		if (ftruncate(fd, (off_t)off) == 0)
			fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				  (off_t)len);
	}
	return -err;
}

/*
 * Reserve file space up to `end`, alloc_step at a time. On a full disk the
 * step drops to a page and stays there: what is left of the disk goes to
 * the writers as they need it (a halving step gave the first writer a
 * whole MiB it never used while the next one failed), and a nearly full
 * disk does not cost a failing 64 MiB fallocate on every write.
 */
static int mmap__reserve(struct writer *w, u64 end)
{
	u64 need, grow;
	int err;

	if (end <= w->alloc_end)
		return 0;
	need = end - w->alloc_end;
	grow = (need + w->alloc_step - 1) / w->alloc_step * w->alloc_step;
	err = writer__fallocate(w->fd, w->alloc_end, grow);
	if ((err == -ENOSPC || err == -EFBIG) && w->alloc_step > writer__page_size()) {
		w->alloc_step = writer__page_size();
		grow = (need + w->alloc_step - 1) / w->alloc_step * w->alloc_step;
		err = writer__fallocate(w->fd, w->alloc_end, grow);
	}
	if (err)
		return err;
	w->alloc_end += grow;
	return 0;
}

static void mmap__unmap(struct writer *w)
{
	if (w->buf)
		munmap(w->buf, w->buf_size);
	w->buf = NULL;
}

/* Map the window that holds file offset pos. */
static int mmap__map(struct writer *w, u64 pos)
{
	void *p;

	mmap__unmap(w);
	w->map_off = pos & ~(u64)(writer__page_size() - 1);
	p = mmap(NULL, w->buf_size, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		 (off_t)w->map_off);
	if (p == MAP_FAILED)
		return -errno;
	w->buf = p;
	w->buf_len = (size_t)(pos - w->map_off);
	return 0;
}

static int mmap__open(struct writer *w, size_t size)
{
	size_t page = writer__page_size();
	int fl;

	if (w->pipe)
		return -ESPIPE;
	fl = fcntl(w->fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if ((fl & O_ACCMODE) != O_RDWR)
		return -EACCES;
	if (!size)
		size = WRITER_MMAP_CHUNK;
	w->buf_size = (size + page - 1) / page * page;
	w->buf = NULL;
	w->buf_len = 0;
	w->alloc_end = writer__start(w);
	w->alloc_step = w->buf_size;
	return 0;
}

/*
 * Copy len bytes at the window's end, moving the window along the file;
 * with p NULL, move past them without copying.
 */
static int mmap__copy(struct writer *w, const unsigned char *p, size_t len)
{
	int err;

	while (len) {
		size_t n;

		if (!w->buf) {
			err = mmap__map(w, writer__file_pos(w));
			if (err)
				return err;
		} else if (w->buf_len == w->buf_size) {
			err = mmap__map(w, w->map_off + w->buf_size);
			if (err)
				return err;
		}
		n = w->buf_size - w->buf_len;
		if (n > len)
			n = len;
		if (p) {
			memcpy(w->buf + w->buf_len, p, n);
			p += n;
		}
		w->buf_len += n;
		len -= n;
	}
	return 0;
}

/*
 * The first MMAP_HEAD bytes of each write (a record header, as callers
 * write whole records) are stored after the rest: a process killed in the
 * middle of the copy leaves a zero header where the write began, so a
 * reader of the file stops there instead of taking a record whose body
 * was never copied in whole. A header whose window is gone by then (the
 * write crossed into the next one) goes through pwrite(2), into the same
 * page cache.
 */
#define MMAP_HEAD	8

static int mmap__write(struct writer *w, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t head = len < MMAP_HEAD ? len : MMAP_HEAD;
	u64 pos = writer__file_pos(w);
	int err;

	err = mmap__reserve(w, pos + len);
	if (err)
		return err;
	err = mmap__copy(w, NULL, head);
	if (!err)
		err = mmap__copy(w, p + head, len - head);
	if (err)
		return err;
	/* The body's stores come first, as a process killed here would leave them. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (pos >= w->map_off && pos + head <= w->map_off + w->buf_size) {
		memcpy(w->buf + (pos - w->map_off), p, head);
	} else {
		size_t done;

		err = writer__pwrite_all(w->fd, false, p, head, pos, &done);
		if (err)
			return err;
	}
	w->written += len;
	return 0;
}

/* The data is in the page cache already: only the size is to be made true. */
static int mmap__flush(struct writer *w)
{
	u64 end = writer__file_pos(w);
	int err;

	if (w->alloc_end == end)
		return 0;
	err = writer__cut(w);
	if (err)
		return err;
	w->alloc_end = end;
	return 0;
}

static void mmap__close(struct writer *w)
{
	mmap__unmap(w);
	w->buf_len = 0;
}

static const struct writer_ops mmap_ops = {
	.name	= "mmap",
	.open	= mmap__open,
	.write	= mmap__write,
	.flush	= mmap__flush,
	.close	= mmap__close,
};

/* --- WRITER_AIO -------------------------------------------------------- */

enum aio_state {
	AIO_FREE,	/* the caller's: empty or being filled */
	AIO_QUEUED,	/* the thread's: to be written, or being written */
	AIO_DONE,	/* written (or failed): the caller reaps it */
};

/*
 * One buffer. Locking legend: I: set at open, read-only after; C: the
 * caller's thread only; L: a->lock. buf[0, len) and pos are the caller's
 * while the slot is FREE and read-only while QUEUED: handing the slot over
 * (state set under a->lock) orders them for the thread, and DONE set under
 * the lock orders the thread's reads before the caller refills.
 */
struct aio_slot {
	unsigned char	*buf;		/* I */
	size_t		len;		/* C while FREE */
	u64		pos;		/* C while FREE: file offset of buf[0] */
	enum aio_state	state;		/* L */
	size_t		done;		/* L: bytes that reached the file, once DONE */
	int		err;		/* L: 0 or -errno, once DONE */
};

struct writer_aio {
	pthread_mutex_t	lock;
	pthread_cond_t	queued;		/* signalled: a slot was queued, or stop */
	pthread_cond_t	done;		/* signalled: a slot is DONE */
	pthread_t	thread;		/* I */
	int		fd;		/* I */
	bool		pipe;		/* I */
	int		nr;		/* I: slots, writes in flight + 1 */
	int		cur;		/* C: the slot being filled */
	int		head;		/* C: the oldest slot queued and not reaped */
	int		nr_queued;	/* C: slots queued and not reaped */
	u64		queued_bytes;	/* C: bytes queued so far (file offset of cur) */
	int		next;		/* thread: the next slot to write */
	bool		failed;		/* thread: a write failed; drop the rest */
	bool		stop;		/* L: no more slots will come */
	struct writer_prealloc pre;	/* thread (set before the first slot is queued) */
	struct aio_slot	slots[];	/* nr */
};

/* The writer thread: write the queued slots in order until told to stop. */
static void *aio__thread(void *arg)
{
	struct writer_aio *a = arg;

	for (;;) {
		struct aio_slot *s = &a->slots[a->next];
		size_t done = 0;
		int err = -ECANCELED;
		bool queued;

		pthread_mutex_lock(&a->lock);
		while (s->state != AIO_QUEUED && !a->stop)
			pthread_cond_wait(&a->queued, &a->lock);
		queued = s->state == AIO_QUEUED;
		pthread_mutex_unlock(&a->lock);
		if (!queued)	/* stopped: the caller queues no more */
			return NULL;
		/* After a failure nothing more reaches the file: it is cut there. */
		if (!a->failed) {
			prealloc__ahead(a->fd, &a->pre, s->pos + s->len);
			err = writer__pwrite_all(a->fd, a->pipe, s->buf, s->len, s->pos, &done);
		}
		if (err)
			a->failed = true;
		pthread_mutex_lock(&a->lock);
		s->done = done;
		s->err = err;
		s->state = AIO_DONE;
		pthread_cond_signal(&a->done);
		pthread_mutex_unlock(&a->lock);
		a->next = (a->next + 1) % a->nr;
	}
}

/*
 * Reap the oldest queued slot, waiting for it if `wait`; -EAGAIN if it is
 * not done and not waiting. What reached the file counts in w->written.
 */
static int aio__reap(struct writer *w, bool wait)
{
	struct writer_aio *a = w->aio;
	struct aio_slot *s = &a->slots[a->head];
	size_t done;
	int err;

	pthread_mutex_lock(&a->lock);
	while (s->state != AIO_DONE && wait)
		pthread_cond_wait(&a->done, &a->lock);
	if (s->state != AIO_DONE) {
		pthread_mutex_unlock(&a->lock);
		return -EAGAIN;
	}
	done = s->done;
	err = s->err;
	s->state = AIO_FREE;
	pthread_mutex_unlock(&a->lock);
	s->len = 0;
	w->written += done;
	a->head = (a->head + 1) % a->nr;
	a->nr_queued--;
	return err;
}

/* Wait for every queued slot; the first error, in file order. */
static int aio__drain(struct writer *w)
{
	int err = 0, e;

	while (w->aio->nr_queued) {
		e = aio__reap(w, true);
		if (!err)
			err = e;
	}
	return err;
}

/*
 * Queue the slot being filled and move on to the next, waiting for it if
 * all the others are in flight. Slots already written are reaped on the
 * way, so written grows and errors come out early. On an error everything
 * queued is waited for (nothing is in flight when the file is cut).
 */
static int aio__submit(struct writer *w)
{
	struct writer_aio *a = w->aio;
	struct aio_slot *s = &a->slots[a->cur];
	int err = 0;

	s->pos = writer__start(w) + a->queued_bytes;
	a->queued_bytes += s->len;
	pthread_mutex_lock(&a->lock);
	s->state = AIO_QUEUED;
	pthread_cond_signal(&a->queued);
	pthread_mutex_unlock(&a->lock);
	a->nr_queued++;
	a->cur = (a->cur + 1) % a->nr;
	if (a->nr_queued == a->nr)
		err = aio__reap(w, true);	/* a->cur was the oldest */
	while (!err && a->nr_queued) {
		err = aio__reap(w, false);
		if (err == -EAGAIN) {
			err = 0;
			break;
		}
	}
	if (err)
		aio__drain(w);
	w->buf = a->slots[a->cur].buf;
	w->buf_len = 0;
	return err;
}

static void aio__free(struct writer_aio *a)
{
	int i;

	for (i = 0; i < a->nr; i++)
		free(a->slots[i].buf);
	free(a);
}

static int aio__start_thread(struct writer_aio *a)
{
	sigset_t all, old;
	int err;

	/* Signals are for the main thread: the writer thread blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&a->thread, NULL, aio__thread, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	pthread_setname_np(a->thread, "prec-aio");
	return 0;
}

static int aio__open(struct writer *w, size_t size)
{
	struct writer_aio *a;
	void *buf;
	int i, err = -ENOMEM;

	if (w->aio_nr < 1 || w->aio_nr > WRITER_AIO_MAX)
		return -EINVAL;
	if (!size)
		size = WRITER_BUF_SIZE;
	a = calloc(1, sizeof(*a) + (size_t)(w->aio_nr + 1) * sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	a->fd = w->fd;
	a->pipe = w->pipe;
	a->nr = w->aio_nr + 1;
	for (i = 0; i < a->nr; i++) {
		if (posix_memalign(&buf, writer__page_size(), size))
			goto out_free_slots;
		a->slots[i].buf = buf;
	}
	err = -pthread_mutex_init(&a->lock, NULL);
	if (err)
		goto out_free_slots;
	err = -pthread_cond_init(&a->queued, NULL);
	if (err)
		goto out_destroy_lock;
	err = -pthread_cond_init(&a->done, NULL);
	if (err)
		goto out_destroy_queued;
	err = aio__start_thread(a);
	if (err)
		goto out_destroy_done;
	w->aio = a;
	w->buf = a->slots[0].buf;
	w->buf_size = size;
	w->buf_len = 0;
	return 0;

out_destroy_done:
	pthread_cond_destroy(&a->done);
out_destroy_queued:
	pthread_cond_destroy(&a->queued);
out_destroy_lock:
	pthread_mutex_destroy(&a->lock);
out_free_slots:
	aio__free(a);
	return err;
}

static int aio__write(struct writer *w, const void *buf, size_t len)
{
	struct writer_aio *a = w->aio;
	const unsigned char *p = buf;
	int err;

	while (len) {
		struct aio_slot *s = &a->slots[a->cur];
		size_t n = w->buf_size - s->len;

		if (n > len)
			n = len;
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		w->buf_len = s->len;
		p += n;
		len -= n;
		if (s->len == w->buf_size) {
			err = aio__submit(w);
			if (err)
				return err;
		}
	}
	return 0;
}

static int aio__flush(struct writer *w)
{
	struct writer_aio *a = w->aio;
	int err;

	if (a->slots[a->cur].len) {
		err = aio__submit(w);
		if (err)
			return err;
	}
	return aio__drain(w);
}

static void aio__close(struct writer *w)
{
	struct writer_aio *a = w->aio;

	aio__drain(w);
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->queued);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->queued);
	pthread_mutex_destroy(&a->lock);
	aio__free(a);
	w->aio = NULL;
	w->buf = NULL;
	w->buf_len = 0;
}

static const struct writer_ops aio_ops = {
	.name	= "aio",
	.open	= aio__open,
	.write	= aio__write,
	.flush	= aio__flush,
	.close	= aio__close,
};

/* --- the front --------------------------------------------------------- */

static const struct writer_ops *writer__ops(enum writer_kind kind)
{
	switch (kind) {
	case WRITER_WRITE:
		return &write_ops;
	case WRITER_MMAP:
		return &mmap_ops;
	case WRITER_AIO:
		return &aio_ops;
	}
	return NULL;
}

static int writer__open_nr(struct writer *w, enum writer_kind kind, int fd,
			   u64 offset, size_t size, int nr)
{
	const struct writer_ops *ops = writer__ops(kind);
	int err;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	if (!ops)
		return -EINVAL;
	if (lseek(fd, 0, SEEK_CUR) < 0) {
		if (errno != ESPIPE)
			return -errno;
		w->pipe = true;
	}
	w->offset = offset;
	w->aio_nr = nr;
	err = ops->open(w, size);
	if (err)
		return err;
	w->ops = ops;
	return 0;
}

int writer__open_size(struct writer *w, enum writer_kind kind, int fd,
		      u64 offset, size_t size)
{
	return writer__open_nr(w, kind, fd, offset, size, WRITER_AIO_DEFAULT);
}

int writer__open(struct writer *w, enum writer_kind kind, int fd, u64 offset)
{
	return writer__open_size(w, kind, fd, offset, 0);
}

int writer__open_aio(struct writer *w, int fd, u64 offset, size_t size, int nr)
{
	return writer__open_nr(w, WRITER_AIO, fd, offset, size, nr);
}

int writer__open_region(struct writer *w, int fd, u64 offset, u64 len, size_t size)
{
	int err = writer__open_size(w, WRITER_WRITE, fd, offset, size);

	if (!err)
		w->region_end = offset + len;
	return err;
}

int writer__write(struct writer *w, const void *buf, size_t len)
{
	int err;

	if (w->error)
		return w->error;
	if (!w->ops)
		return -EBADF;	/* closed */
	err = w->ops->write(w, buf, len);
	if (err)
		return writer__fail(w, err);
	w->offset += len;
	w->bytes += len;
	return 0;
}

/*
 * WRITER_WRITE: the staged bytes, then iov with pwritev(2) from where the
 * caller's buffers are (short writes continued); *done: what reached the
 * file. iov is consumed.
 */
static int write__writev(struct writer *w, struct iovec *iov, int nr, size_t *done)
{
	int err = write__flush(w);
	ssize_t n;

	*done = 0;
	if (err)
		return err;
	while (nr) {
		n = pwritev(w->fd, iov, nr > IOV_MAX ? IOV_MAX : nr,
			    (off_t)(writer__file_pos(w) + *done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* no progress and no reason: do not spin */
		*done += (size_t)n;
		while (nr && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			nr--;
		}
		if (nr) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int writer__writev(struct writer *w, struct iovec *iov, int nr)
{
	size_t len = 0, done;
	int i, err;

	if (w->error)
		return w->error;
	if (!w->ops)
		return -EBADF;	/* closed */
	if (w->ops != &write_ops || w->pipe) {
		for (i = 0, err = 0; i < nr && !err; i++)
			err = writer__write(w, iov[i].iov_base, iov[i].iov_len);
		return err;
	}
	for (i = 0; i < nr; i++)
		len += iov[i].iov_len;
	err = write__writev(w, iov, nr, &done);
	w->written += done;
	if (err)
		return writer__fail(w, err);
	w->offset += len;
	w->bytes += len;
	return 0;
}

int writer__flush(struct writer *w)
{
	int err;

	if (w->error)
		return w->error;
	if (!w->ops)
		return 0;	/* closed: flushed then */
	err = w->ops->flush(w);
	if (err)
		return writer__fail(w, err);
	return 0;
}

int writer__skip(struct writer *w, u64 len)
{
	int err = writer__flush(w);

	if (err)
		return err;
	w->offset += len;
	w->bytes += len;
	w->written += len;
	return 0;
}

void writer__prealloc(struct writer *w, u64 step)
{
	struct statfs sfs;

	if (!step || w->pipe || (w->ops != &write_ops && w->ops != &aio_ops) ||
	    fstatfs(w->fd, &sfs) < 0 || sfs.f_type == TMPFS_MAGIC)
		return;	/* on tmpfs reserving would take memory and spare nothing */
	w->pre = (struct writer_prealloc){ .end = writer__file_pos(w), .step = step };
	if (w->aio)
		w->aio->pre = w->pre;
}

int writer__set_realtime(struct writer *w, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!w || !w->aio)
		return 0;
	return -pthread_setschedparam(w->aio->thread, SCHED_FIFO, &sp);
}

/* Move [buf, buf + len) to node, and keep it there while it has room. */
static int buf__to_node(void *buf, size_t len, int node)
{
	unsigned long mask[16] = { 0 };

	if (node < 0 || node >= (int)(sizeof(mask) * 8))
		return -EINVAL;
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	if (mbind(buf, len, MPOL_PREFERRED, mask, sizeof(mask) * 8, MPOL_MF_MOVE) < 0)
		return -errno;
	return 0;
}

int writer__bind_node(struct writer *w, int node)
{
	int i, err = 0;

	if (!w || !w->ops || w->ops == &mmap_ops || !w->buf)
		return 0;
	if (!w->aio)
		return buf__to_node(w->buf, w->buf_size, node);
	/* the aio thread is idle: every slot was reaped by the flush */
	err = writer__flush(w);
	for (i = 0; !err && i < w->aio->nr; i++)
		err = buf__to_node(w->aio->slots[i].buf, w->buf_size, node);
	return err;
}

void writer__close(struct writer *w)
{
	struct writer_prealloc pre;
	struct stat st;

	if (!w || !w->ops)
		return;
	writer__flush(w);
	pre = w->aio ? w->aio->pre : w->pre;	/* the aio thread is idle after the flush */
	w->ops->close(w);
	w->ops = NULL;
	/* Give back the space reserved past the end: truncating to the size does. */
	if (pre.end && fstat(w->fd, &st) == 0 && (u64)st.st_size < pre.end &&
	    ftruncate(w->fd, st.st_size) < 0 && !w->error)
		w->error = -errno;
}

int writer__sink(void *ctx, const void *data, size_t size)
{
	return writer__write(ctx, data, size);
}
