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

	/* Overwrite rings only (ringbuf__mmap_overwrite); reader-private too. */
	bool		overwrite;	/* mapped read-only: data_tail is not ours */
	u64		snap_head;	/* data_head at the last backward read */
	u16		*sizes;		/* a backward walk's record sizes, newest first */
	size_t		max_sizes;	/* room in sizes: data size / 8 */
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

/*
 * Overwrite rings: the flight recorder (--overwrite).
 *
 * The event is opened with attr.write_backward = 1 and its ring mapped
 * read-only. The kernel then never waits for a reader: it writes each
 * record just below the previous one (data_head counts down from 0, modulo
 * 2^64), overwriting the oldest bytes, and reports no loss except for
 * records dropped while the ring is paused (one PERF_RECORD_LOST at the
 * next write after resuming). The reader pauses the ring, reads it from
 * data_head (the newest record) up to the oldest record that is still whole,
 * and resumes it; data_tail is never written. Documentation/flight-recorder.md
 * has the long form. ringbuf__read() and ringbuf__pending() are for forward
 * rings only: they would store data_tail in a read-only page.
 */

/*
 * ringbuf__mmap() for an event opened with write_backward = 1, but the ring
 * mapped PROT_READ, so the kernel overwrites instead of dropping. Also
 * allocates the walk's size array (data size / 4 bytes), so that a snapshot
 * never allocates. Returns 0 or -errno (-EINVAL: pages not a power of two).
 */
int ringbuf__mmap_overwrite(struct ringbuf *rb, int fd, unsigned int pages,
			    struct cpu cpu);

/*
 * PERF_EVENT_IOC_PAUSE_OUTPUT on the ring's fd: while paused the kernel
 * writes nothing into it (it counts what it drops and reports the count in
 * a PERF_RECORD_LOST after resume). Returns 0 or -errno (-EBADF: a ring
 * built with ringbuf__init_mem, which has no fd). Pausing does not wait for
 * a writer already past its check on another CPU: see read_backward. Only
 * rb->fd is read, so any thread may pause a ring another thread reads.
 */
int ringbuf__pause(struct ringbuf *rb);
int ringbuf__resume(struct ringbuf *rb);

/*
 * Hand the sink the records written since the previous backward read (at
 * first: since the mapping), at most one ring's worth, OLDEST FIRST, then
 * remember the head for the next read. The ring must be written backward
 * and paused by the caller. Returns bytes handed out (0: nothing new) or
 * -errno; the counters grow by what the sink accepted.
 *
 * The walk starts at data_head, the newest record, and follows the sizes
 * in the headers towards older records. It ends at the head of the previous
 * read, at a header of size 0 (memory never written), or before the first
 * record that would reach more than the data size past data_head: that one
 * was partly overwritten by the newest records and is left out, so no torn
 * record is ever handed out.
 *
 * Records reach the sink in runs of whole records copied into the bounce
 * buffer (at most 64 KiB each; a record that crosses the end of the data
 * area is reassembled there too), in time order, so a 512 KiB ring takes
 * about nine sink calls. The sink must be done with the bytes when it
 * returns. A sink error is returned at once and the next read starts from
 * the same place again (the sink may then see the older records twice).
 * -EIO: a header no kernel writes (size 1 to 7, or a record crossing the
 * previous read's head); the newer records before it were handed out.
 * -EBUSY: data_head kept moving during the walk (the ring is not paused).
 * -EINVAL: data_head is ahead of the previous read's head (not a backward
 * ring). -ENOMEM: an init_mem ring's size array could not be allocated.
 */
ssize_t ringbuf__read_backward(struct ringbuf *rb, ringbuf_sink_fn sink, void *ctx);

/*
 * Bytes written since the last backward read, at most the data size: an
 * upper bound of what the next ringbuf__read_backward() hands out (for
 * --switch-output=SIZE). Reading it does not need the ring paused.
 */
size_t ringbuf__backward_pending(const struct ringbuf *rb);

#endif /* PRECORD_RINGBUF_H */
