// SPDX-License-Identifier: GPL-2.0
/*
 * writer.c — the writers: where the bytes a reader takes out of the rings
 * go, one backend per mechanism behind struct writer_ops.
 *
 * Owns: a staging buffer (WRITER_WRITE) or a window mapping of the output
 * file (WRITER_MMAP); never the fd. Who runs it: one thread at a time (the
 * streaming thread owning the output file, or main before they start).
 *
 * Data flow: writer__write() gets whole records (typically a sink run from
 * ringbuf__read()) and returns once they are copied out, so the ring's tail
 * can move on at once.
 *  - WRITER_WRITE copies small writes into the staging buffer and writes it
 *    out with pwrite(2) (write(2) on a pipe) when the next write does not
 *    fit, at flush and at close. A write as large as the buffer goes straight
 *    to the file after the staged bytes. Short writes are continued, EINTR
 *    retried, EAGAIN waits in poll().
 *  - WRITER_MMAP (seed 001: no system call per write, which matters when
 *    tracing system calls) copies into a MAP_SHARED window of the file,
 *    WRITER_MMAP_CHUNK long, moved along the file as it fills. File space
 *    is reserved with posix_fallocate() ahead of the copies in chunks of the
 *    same size (down to what one write needs when the disk is nearly full),
 *    so a full disk is -ENOSPC and never SIGBUS; flush and close cut the
 *    file to its true size.
 *
 * Errors: the first -errno is kept in w->error and every later call returns
 * it. Every byte that reached the file is kept and counted in w->written
 * (open offset + w->written is where the file is cut), so a full disk loses
 * only what did not fit; the file may then end inside a record, and the
 * caller, who knows the record format, cuts it back to the last whole one
 * (record.c does, when it finishes the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	if (!w->pipe)
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

/* All of p[0, len) to the file at the current file position, or -errno. */
static int writer__emit(struct writer *w, const unsigned char *p, size_t len)
{
	u64 pos = writer__file_pos(w);
	size_t left = len;
	int err;

	while (left) {
		ssize_t n = w->pipe ? write(w->fd, p, left)
				    : pwrite(w->fd, p, left, (off_t)pos);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			if (err == -EAGAIN)
				err = writer__wait_writable(w->fd);
			if (!err)
				continue;
			/* Keep what reached the file: the caller cuts at a record. */
			w->written += len - left;
			return err;
		}
		if (n == 0) {
			w->written += len - left;
			return -EIO;	/* no progress and no reason: do not spin */
		}
		p += n;
		left -= (size_t)n;
		pos += (u64)n;
	}
	w->written += len;
	return 0;
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

static int writer__fallocate(int fd, u64 off, u64 len)
{
	int err;

	do {
		err = posix_fallocate(fd, (off_t)off, (off_t)len);
	} while (err == EINTR);
	return -err;
}

/*
 * Reserve file space up to `end`, alloc_step at a time. On a full disk the
 * step halves, down to just what is needed, and stays small: a nearly full
 * disk does not cost a failing 64 MiB fallocate on every write.
 */
static int mmap__reserve(struct writer *w, u64 end)
{
	u64 need, grow;
	int err;

	if (end <= w->alloc_end)
		return 0;
	need = end - w->alloc_end;
	for (;;) {
		grow = (need + w->alloc_step - 1) / w->alloc_step * w->alloc_step;
		err = writer__fallocate(w->fd, w->alloc_end, grow);
		if ((err != -ENOSPC && err != -EFBIG) || w->alloc_step <= need)
			break;
		w->alloc_step /= 2;
	}
	if (err == -ENOSPC || err == -EFBIG) {
		grow = need;
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

static int mmap__write(struct writer *w, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t left = len;
	int err;

	err = mmap__reserve(w, writer__file_pos(w) + len);
	if (err)
		return err;
	while (left) {
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
		if (n > left)
			n = left;
		memcpy(w->buf + w->buf_len, p, n);
		w->buf_len += n;
		p += n;
		left -= n;
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

/* --- the front --------------------------------------------------------- */

static const struct writer_ops *writer__ops(enum writer_kind kind)
{
	switch (kind) {
	case WRITER_WRITE:
		return &write_ops;
	case WRITER_MMAP:
		return &mmap_ops;
	}
	return NULL;
}

int writer__open_size(struct writer *w, enum writer_kind kind, int fd,
		      u64 offset, size_t size)
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
	err = ops->open(w, size);
	if (err)
		return err;
	w->ops = ops;
	return 0;
}

int writer__open(struct writer *w, enum writer_kind kind, int fd, u64 offset)
{
	return writer__open_size(w, kind, fd, offset, 0);
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

void writer__close(struct writer *w)
{
	if (!w || !w->ops)
		return;
	writer__flush(w);
	w->ops->close(w);
	w->ops = NULL;
}

int writer__sink(void *ctx, const void *data, size_t size)
{
	return writer__write(ctx, data, size);
}
