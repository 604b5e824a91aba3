/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writer.h — where recorded bytes go. One interface, one backend per
 * mechanism (write(), mmap'ed chunks, asynchronous writes by a writer
 * thread). A writer is used by one thread at a time.
 */
#ifndef PRECORD_WRITER_H
#define PRECORD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include <sys/types.h>
#include "precord/perf-file.h"

enum writer_kind {
	WRITER_WRITE = 0,	/* buffered write(2) */
	WRITER_MMAP,		/* memcpy into the file mmap'ed in large chunks */
	WRITER_AIO,		/* copy into buffers a writer thread writes out (--aio) */
};

/* Default staging buffer of WRITER_WRITE (256 KiB-4 MiB measured alike). */
#define WRITER_BUF_SIZE		(1024 * 1024)
/* Default window and growth step of WRITER_MMAP (64 MiB, as perf's mmap-output patch). */
#define WRITER_MMAP_CHUNK	(64 * 1024 * 1024)
/* WRITER_AIO: writes in flight (perf's --aio=N control blocks: 1 to 4). */
#define WRITER_AIO_DEFAULT	1
#define WRITER_AIO_MAX		4

struct writer_aio;

struct writer;

/*
 * A backend. The writer__*() front keeps the accounting and the sticky
 * error, so a backend only moves bytes: open sets up its buffers (`size` as
 * given to writer__open_size(), 0 for its default), write/flush return 0 or
 * -errno and add to w->written what reached the file, close frees what open
 * took (the front has flushed before).
 */
struct writer_ops {
	const char *name;
	int  (*write)(struct writer *w, const void *buf, size_t len);
	int  (*flush)(struct writer *w);
	void (*close)(struct writer *w);
	int  (*open)(struct writer *w, size_t size);
};

struct writer {
	const struct writer_ops	*ops;
	int			fd;
	u64			offset;		/* file offset of the next byte written */
	u64			bytes;		/* bytes accepted since open */
	int			error;		/* first -errno seen; later writes fail with it */
	unsigned char		*buf;		/* backend staging buffer */
	size_t			buf_len, buf_size;

	/*
	 * Bytes that reached the file, from the open offset: it always ends
	 * at the end of some writer__write() call (WRITER_AIO: at the end of
	 * a buffer, possibly inside a call, until flushed), so when callers
	 * write whole records the file holds whole records. After an error the
	 * file is cut back to open offset + written where possible (a full
	 * disk leaves no half record behind), but for a region writer's.
	 */
	u64			written;
	bool			pipe;		/* fd not seekable: write(2), no cut back */
	/* WRITER_MMAP: buf maps file [map_off, map_off + buf_size). */
	u64			map_off;
	u64			alloc_end;	/* file space reserved up to here */
	u64			alloc_step;	/* reserve this much at a time; a page after ENOSPC */
	/* WRITER_AIO: the buffers, the queue and the writer thread. */
	struct writer_aio	*aio;
	int			aio_nr;		/* writes in flight at most */
	/* writer__open_region(): where the region ends; the file is never cut. */
	u64			region_end;
	/* WRITER_WRITE, WRITER_AIO (its thread's copy): space reserved ahead (writer__prealloc()). */
	struct writer_prealloc {
		u64		end;		/* reserved up to here */
		u64		step;		/* 0: no reserving */
	}			pre;
};

/*
 * Start writing at file offset `offset` of fd (not owned: the caller closes
 * it). Returns 0 or -errno.
 *
 * WRITER_WRITE uses pwrite(2) at explicit offsets on seekable fds (the fd's
 * own position is left alone) and write(2) on pipes (offset is then only
 * counted). WRITER_MMAP needs a seekable fd opened O_RDWR (-EACCES
 * otherwise): it reserves file space with posix_fallocate() in chunks, so a
 * full disk is -ENOSPC rather than SIGBUS, and cuts the file to its true
 * size at flush/close. Until then the file is longer than its data: its
 * tail reads as zeros (a record header with size 0).
 */
int writer__open(struct writer *w, enum writer_kind kind, int fd, u64 offset);
/*
 * The same with a staging size (WRITE), window size (MMAP) or size of each
 * buffer (AIO); 0: default (WRITER_BUF_SIZE, WRITER_MMAP_CHUNK,
 * WRITER_BUF_SIZE).
 */
int writer__open_size(struct writer *w, enum writer_kind kind, int fd,
		      u64 offset, size_t size);
/*
 * WRITER_AIO with nr (1..WRITER_AIO_MAX, -EINVAL otherwise) writes in
 * flight; writer__open*() give WRITER_AIO_DEFAULT. writer__write() copies
 * into a buffer and returns; full buffers are queued to a writer thread of
 * the writer's own (started here, joined by close; it inherits the caller's
 * CPU affinity and scheduling policy, blocks every signal, and is named
 * "prec-aio"), which writes them in order with pwrite(2) (write(2) on a
 * pipe). nr + 1 buffers: one being filled while nr are written; when all nr
 * are in flight, writer__write() waits for the oldest. written grows as
 * buffers complete; flush waits for all of them. Errors are reported by the
 * call that finds them (a later write, or flush), then sticky.
 */
int writer__open_aio(struct writer *w, int fd, u64 offset, size_t size, int nr);
/*
 * WRITER_WRITE of [offset, offset + len) of a file that other writers fill
 * around it (a part of a parallel merge): an error does not cut the file
 * to what this writer wrote, which would drop what the others wrote past
 * it. 0 or -errno.
 */
int writer__open_region(struct writer *w, int fd, u64 offset, u64 len, size_t size);
/*
 * WRITER_WRITE and WRITER_AIO on a regular file that only this writer
 * extends (a perf directory's data.N, a one-thread recording's output):
 * reserve file space `step` bytes at a time ahead of the writes, with
 * fallocate(2) FALLOC_FL_KEEP_SIZE, so the file's size stays the bytes
 * written. A write then lands in blocks already
 * allocated: on ext4 it no longer takes the inode's block-map lock for
 * every new block, the lock the kernel's writeback holds while it allocates
 * for the same file (a real-time reader blocked behind a preempted flusher).
 * Where that cannot be done (a pipe, tmpfs, a file system without it, a
 * full disk) nothing is reserved and the writes go on as before. Close
 * gives back what was reserved past the end. Call before the first write.
 */
void writer__prealloc(struct writer *w, u64 step);
/*
 * WRITER_AIO: run its writer thread at SCHED_FIFO prio, as the streaming
 * thread that feeds it (a writer opened by another thread did not inherit
 * that). 0, or -errno (EPERM); nothing to do for other writers.
 */
int writer__set_realtime(struct writer *w, int prio);
/*
 * Move the staging buffers (WRITER_WRITE's, WRITER_AIO's slots) to NUMA
 * node `node`, preferred there from now on: a writer opened by the main
 * thread for a streaming thread of that node (one-file mode). WRITER_AIO is
 * flushed first. 0 or -errno; nothing to do for WRITER_MMAP.
 */
int writer__bind_node(struct writer *w, int node);
/* 0 or -errno (-ENOSPC on a full disk); after an error every call fails. */
int writer__write(struct writer *w, const void *buf, size_t len);
/*
 * writer__write() of iov[0..nr) in order. WRITER_WRITE writes the staged
 * bytes, then the caller's buffers with pwritev(2), without copying them;
 * iov is consumed (changed) either way. 0 or -errno.
 */
int writer__writev(struct writer *w, struct iovec *iov, int nr);
/* Everything accepted reaches the file (no fsync). 0 or the sticky -errno. */
int writer__flush(struct writer *w);
/*
 * Flush, then count len bytes that others wrote to the file at the writer's
 * position (a parallel merge's parts) as written by it: the next write goes
 * after them. 0 or -errno.
 */
int writer__skip(struct writer *w, u64 len);
/*
 * Flushes and frees; accepts a closed or zeroed writer. offset, bytes,
 * written and error stay readable after it.
 */
void writer__close(struct writer *w);

/* A ringbuf_sink_fn whose ctx is a struct writer: writer__write(). */
int writer__sink(void *ctx, const void *data, size_t size);

#endif /* PRECORD_WRITER_H */
