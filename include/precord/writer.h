/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writer.h — where recorded bytes go. One interface, one backend per
 * mechanism (write() now; mmap'ed chunks and AIO slot in behind the same
 * ops). A writer is used by one thread at a time.
 */
#ifndef PRECORD_WRITER_H
#define PRECORD_WRITER_H

#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"

enum writer_kind {
	WRITER_WRITE = 0,	/* buffered write(2) */
};

struct writer;

struct writer_ops {
	const char *name;
	int  (*write)(struct writer *w, const void *buf, size_t len);
	int  (*flush)(struct writer *w);
	void (*close)(struct writer *w);
};

struct writer {
	const struct writer_ops	*ops;
	int			fd;
	u64			offset;		/* file offset of the next byte written */
	u64			bytes;		/* bytes accepted since open */
	int			error;		/* first -errno seen; later writes fail with it */
	unsigned char		*buf;		/* backend staging buffer */
	size_t			buf_len, buf_size;
};

/*
 * Start writing at file offset `offset` of fd (not owned: the caller closes
 * it). Returns 0 or -errno.
 */
int writer__open(struct writer *w, enum writer_kind kind, int fd, u64 offset);
/* 0 or -errno (-ENOSPC on a full disk); after an error every call fails. */
int writer__write(struct writer *w, const void *buf, size_t len);
int writer__flush(struct writer *w);
void writer__close(struct writer *w);	/* flushes; accepts a closed writer */

#endif /* PRECORD_WRITER_H */
