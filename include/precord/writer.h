/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writer.h — where recorded bytes go. One interface, one backend per
 * mechanism (write() and mmap'ed chunks; AIO slots in behind the same ops).
 * A writer is used by one thread at a time.
 */
#ifndef PRECORD_WRITER_H
#define PRECORD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"

enum writer_kind {
	WRITER_WRITE = 0,	/* buffered write(2) */
	WRITER_MMAP,		/* memcpy into the file mmap'ed in large chunks */
};

/* Default staging buffer of WRITER_WRITE (256 KiB-4 MiB measured alike). */
#define WRITER_BUF_SIZE		(1024 * 1024)
/* Default window and growth step of WRITER_MMAP (seed 001: 64 MiB). */
#define WRITER_MMAP_CHUNK	(64 * 1024 * 1024)

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
	 * at the end of some writer__write() call, so when callers write
	 * whole records the file holds whole records. After an error the
	 * file is cut back to open offset + written where possible (a full
	 * disk leaves no half record behind).
	 */
	u64			written;
	bool			pipe;		/* fd not seekable: write(2), no cut back */
	/* WRITER_MMAP: buf maps file [map_off, map_off + buf_size). */
	u64			map_off;
	u64			alloc_end;	/* file space reserved up to here */
	u64			alloc_step;	/* reserve this much at a time; halved on ENOSPC */
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
/* The same with a staging size (WRITE) or window size (MMAP); 0: default. */
int writer__open_size(struct writer *w, enum writer_kind kind, int fd,
		      u64 offset, size_t size);
/* 0 or -errno (-ENOSPC on a full disk); after an error every call fails. */
int writer__write(struct writer *w, const void *buf, size_t len);
/* Everything accepted reaches the file (no fsync). 0 or the sticky -errno. */
int writer__flush(struct writer *w);
/*
 * Flushes and frees; accepts a closed or zeroed writer. offset, bytes,
 * written and error stay readable after it.
 */
void writer__close(struct writer *w);

/* A ringbuf_sink_fn whose ctx is a struct writer: writer__write(). */
int writer__sink(void *ctx, const void *data, size_t size);

#endif /* PRECORD_WRITER_H */
