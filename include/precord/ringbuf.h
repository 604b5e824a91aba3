/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringbuf.h — one kernel perf ring buffer (the mmap of an event fd: a
 * control page then 2^n data pages) and the reader that moves its complete
 * records to a sink. Exactly one thread reads a given ring.
 */
#ifndef PRECORD_RINGBUF_H
#define PRECORD_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"

/*
 * A sink receives runs of whole records, in ring order. `data` holds `size`
 * bytes (one or more complete records, each starting with a
 * perf_event_header) and is only valid during the call. Return 0 to go on,
 * or -errno to stop: the reader then leaves the tail where it was before
 * that run, so nothing is consumed that the sink did not take.
 */
typedef int (*ringbuf_sink_fn)(void *ctx, const void *data, size_t size);

struct ringbuf {
	void		*base;		/* the control page (struct perf_event_mmap_page) */
	unsigned char	*data;		/* first data page */
	size_t		mask;		/* data size - 1 (data size is a power of two) */
	size_t		mmap_len;	/* control page + data */
	int		fd;		/* the event fd the ring belongs to */
	struct cpu	cpu;		/* CPU it collects, or -1 */
	int		idx;		/* index in the evlist's rings */

	/* Reader-private: touched only by the thread that reads this ring. */
	unsigned char	*bounce;	/* one record straddling the end, reassembled */
	u64		bytes;		/* bytes handed to the sink */
	u64		nr_samples;	/* PERF_RECORD_SAMPLE seen */
	u64		nr_lost_records;/* PERF_RECORD_LOST seen */
	u64		lost;		/* sum of their `lost` fields */
	u64		first_time;	/* (unused by the reader; free for its owner) */
};

/*
 * Map `pages` data pages (a power of two) for fd, read-write (we own
 * data_tail, so the kernel never overwrites unread data), and allocate the
 * bounce buffer. Sets every field but `idx`, which belongs to the caller;
 * counters start at zero. The data area is where the control page's
 * data_offset/data_size say (Linux 4.1+), else right after the first page.
 * Returns 0 or -errno (-EINVAL: pages not a power of two).
 */
int ringbuf__mmap(struct ringbuf *rb, int fd, unsigned int pages, struct cpu cpu);
/* Unmap and free the bounce buffer; accepts a zeroed or unmapped ring. */
void ringbuf__munmap(struct ringbuf *rb);

/*
 * Attach a ring to memory the caller built (tests): `base` is a control
 * page followed by data_size bytes, data_size a power of two. The data
 * area starts at the control page's data_offset when its data_size is set
 * (it must then equal data_size), else one page (sysconf) after base.
 * fd is -1, mmap_len 0; ringbuf__munmap() frees only the bounce buffer.
 */
int ringbuf__init_mem(struct ringbuf *rb, void *base, size_t data_size);

/*
 * Hand every complete record between the tail and the head to sink, then
 * publish the new tail to the kernel. Returns bytes consumed (0: empty) or
 * the sink's -errno. A record that crosses the end of the data area reaches
 * the sink alone, copied into one piece.
 *
 * Reads only up to the head seen on entry (one bounded batch), at most
 * three sink calls. The tail is published after each run the sink accepts,
 * so the sink must be done with the bytes (copied or written them) when it
 * returns. Counters (bytes, nr_samples, nr_lost_records, lost) grow only by
 * what the sink accepted. -EIO: the ring is corrupt (a header with size < 8,
 * a record reaching past the head, head more than the ring size ahead of
 * the tail); the whole records before the bad one were still handed out.
 */
ssize_t ringbuf__read(struct ringbuf *rb, ringbuf_sink_fn sink, void *ctx);

/* Bytes waiting to be read. */
size_t ringbuf__pending(const struct ringbuf *rb);

#endif /* PRECORD_RINGBUF_H */
