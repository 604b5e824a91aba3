// SPDX-License-Identifier: GPL-2.0
/*
 * ringbuf.c — reading one kernel perf ring buffer.
 *
 * Owns: the mapping of one event fd's ring (a control page, struct
 * perf_event_mmap_page, then 2^n data pages, mapped PROT_READ|PROT_WRITE so
 * that we own data_tail and the kernel never overwrites unread data) and a
 * 64 KiB bounce buffer.
 *
 * Who runs it: exactly one reader thread per ring (whichever streaming thread
 * owns it); the only other party is the kernel, which writes records and
 * data_head. The ring's counters are private to that reader.
 *
 * Data flow: ringbuf__read() loads data_head once, walks the records from
 * data_tail up to that head and hands them to the sink in runs: a run is a
 * stretch of whole records lying contiguous in the data area, passed in
 * place (no copy); a record that crosses the end of the data area is copied
 * into the bounce buffer and handed alone. After each run the sink accepts,
 * the new tail is published, so the kernel gets the space back as soon as
 * the sink has copied the bytes out. At most three sink calls per read: the
 * run up to the end of the area, the record crossing it, the run after it.
 *
 * Overwrite rings (--overwrite, the flight recorder) are mapped PROT_READ for
 * an event opened with write_backward = 1: the kernel writes each record
 * below the previous one and overwrites the oldest, never waiting for us.
 * ringbuf__read_backward(), run by the same single reader on a ring its
 * caller paused, walks the headers from data_head (the newest record) to
 * the oldest whole one, then copies the records out oldest first into the
 * bounce buffer and hands them over in runs. It never writes data_tail; it
 * remembers the head it read (snap_head) so that the next read stops there.
 * How the walk finds the oldest whole record is explained above
 * ringbuf__walk_backward(); Documentation/flight-recorder.md has the rest.
 *
 * Limits: records are at most 64 KiB (header.size is a u16). The reader
 * stops at the head it saw on entry, so a producer faster than the reader
 * cannot keep it in one call forever. A header with size < 8, or one that
 * claims more bytes than lie below the head, means the ring is corrupt:
 * -EIO, with the tail left after the last whole record handed out.
 *
 * Memory ordering. include/uapi/linux/perf_event.h says of the control page:
 *
 *	User-space reading the @data_head value should issue an smp_rmb(),
 *	after reading this value.
 *
 *	When the mapping is PROT_WRITE the @data_tail value should be
 *	written by userspace to reflect the last read data, after issueing
 *	an smp_mb() to separate the data read from the ->data_tail store.
 *	In this case the kernel will not over-write unread data.
 *
 *	See perf_output_put_handle() for the data ordering.
 *
 * The kernel's side (kernel/events/ring_buffer.c, with its labels): in
 * perf_output_begin() it loads data_tail and writes a record only if there
 * is room (A, a control dependency between that load and the data stores);
 * in perf_output_put_handle() it issues smp_wmb() (B) between the record
 * stores and the store of data_head. Ours: load data_head, barrier (C), read
 * the records, barrier (D), store data_tail. A pairs with D, B with C.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "precord/ringbuf.h"

#define RINGBUF_BOUNCE_SIZE	PERF_SAMPLE_MAX_SIZE
#define HDR_SIZE		sizeof(struct perf_event_header)
/* PERF_RECORD_LOST: header, u64 id, u64 lost, then the sample_id trailer. */
#define LOST_FIELD_OFFSET	(HDR_SIZE + sizeof(u64))
#define LOST_MIN_SIZE		(LOST_FIELD_OFFSET + sizeof(u64))

/* What one run holds; added to the ring's counters only once it is taken. */
struct run_count {
	u64 samples;
	u64 lost_records;
	u64 lost;
};

static inline struct perf_event_mmap_page *ringbuf__pc(const struct ringbuf *rb)
{
	return rb->base;
}

static inline u64 ringbuf__load_head(const struct ringbuf *rb)
{
	/*
	 * (C) An acquire load: the load of data_head followed by what
	 * smp_rmb() gives (and more: later stores are ordered too). Pairs
	 * with (B), the kernel's smp_wmb() in perf_output_put_handle()
	 * between writing the records and publishing data_head: every byte
	 * below the head we see here is fully written when we read it.
	 */
	return __atomic_load_n(&ringbuf__pc(rb)->data_head, __ATOMIC_ACQUIRE);
}

static inline u64 ringbuf__load_tail(const struct ringbuf *rb)
{
	/*
	 * No barrier: this thread is the only writer of data_tail, so it
	 * reads back its own last store. Atomic only so the compiler does
	 * not tear or cache it.
	 */
	return __atomic_load_n(&ringbuf__pc(rb)->data_tail, __ATOMIC_RELAXED);
}

static inline void ringbuf__store_tail(struct ringbuf *rb, u64 tail)
{
	/*
	 * (D) A release store: every load and store before it (the sink's
	 * reads of the records it was handed, our reads of their headers)
	 * is ordered before the store of data_tail, which is the job the
	 * uapi comment gives smp_mb(). Pairs with (A), the kernel loading
	 * data_tail in perf_output_begin() before it writes into the space:
	 * it cannot overwrite bytes we are still reading.
	 */
	__atomic_store_n(&ringbuf__pc(rb)->data_tail, tail, __ATOMIC_RELEASE);
}

static int ringbuf__attach(struct ringbuf *rb, void *base, size_t data_size,
			   size_t map_len)
{
	const struct perf_event_mmap_page *pc = base;
	size_t offset = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = data_size;

	/* data_offset/data_size exist since Linux 4.1; zero before that. */
	if (pc->data_size) {
		if (!map_len && pc->data_size != data_size)
			return -EINVAL;
		offset = pc->data_offset;
		size = pc->data_size;
	}
	if (size < HDR_SIZE || (size & (size - 1)))
		return -EINVAL;
	if (map_len && (offset > map_len || size > map_len - offset))
		return -EINVAL;

	rb->bounce = malloc(RINGBUF_BOUNCE_SIZE);
	if (!rb->bounce)
		return -ENOMEM;
	rb->base = base;
	rb->data = (unsigned char *)base + offset;
	rb->mask = size - 1;
	rb->mmap_len = map_len;
	rb->bytes = 0;
	rb->nr_samples = 0;
	rb->nr_lost_records = 0;
	rb->lost = 0;
	rb->first_time = 0;
	rb->overwrite = false;
	rb->snap_head = ringbuf__load_head(rb);
	rb->sizes = NULL;
	rb->max_sizes = 0;
	return 0;
}

/* Map pages + 1 pages of fd's ring (prot decides the kernel's mode) and attach. */
static int ringbuf__map_fd(struct ringbuf *rb, int fd, unsigned int pages, struct cpu cpu,
			   int prot)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	size_t len;
	void *base;
	int err;

	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	len = ((size_t)pages + 1) * page_size;
	base = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	err = ringbuf__attach(rb, base, (size_t)pages * page_size, len);
	if (err) {
		munmap(base, len);
		return err;
	}
	rb->fd = fd;
	rb->cpu = cpu;
	return 0;
}

int ringbuf__mmap(struct ringbuf *rb, int fd, unsigned int pages, struct cpu cpu)
{
	return ringbuf__map_fd(rb, fd, pages, cpu, PROT_READ | PROT_WRITE);
}

int ringbuf__init_mem(struct ringbuf *rb, void *base, size_t data_size)
{
	int err = ringbuf__attach(rb, base, data_size, 0);

	if (err)
		return err;
	rb->fd = -1;
	rb->cpu.cpu = -1;
	return 0;
}

void ringbuf__munmap(struct ringbuf *rb)
{
	if (!rb)
		return;
	if (rb->base && rb->mmap_len)
		munmap(rb->base, rb->mmap_len);
	free(rb->bounce);
	rb->bounce = NULL;
	free(rb->sizes);
	rb->sizes = NULL;
	rb->max_sizes = 0;
	rb->base = NULL;
	rb->data = NULL;
	rb->mmap_len = 0;
}

size_t ringbuf__pending(const struct ringbuf *rb)
{
	return (size_t)(ringbuf__load_head(rb) - ringbuf__load_tail(rb));
}

static inline void run_count__lost(struct run_count *cnt,
				   const unsigned char *rec, size_t size)
{
	u64 lost;

	cnt->lost_records++;
	if (size < LOST_MIN_SIZE)
		return;
	memcpy(&lost, rec + LOST_FIELD_OFFSET, sizeof(lost));
	cnt->lost += lost;
}

static inline void run_count__record(struct run_count *cnt,
				     const unsigned char *rec,
				     const struct perf_event_header *hdr)
{
	if (hdr->type == PERF_RECORD_SAMPLE)
		cnt->samples++;
	else if (hdr->type == PERF_RECORD_LOST)
		run_count__lost(cnt, rec, hdr->size);
}

/*
 * Walk whole records in p[0, len): bytes lying contiguous in the data area,
 * `avail` (>= len) of them below the head. Stops before the first record
 * that does not lie entirely in p[0, len). Returns the bytes of the whole
 * records walked; sets *corrupt on a header no kernel writes.
 */
static size_t ringbuf__scan(const unsigned char *p, size_t len, size_t avail,
			    struct run_count *cnt, bool *corrupt)
{
	struct perf_event_header hdr;
	size_t done = 0;

	while (len - done >= HDR_SIZE) {
		memcpy(&hdr, p + done, HDR_SIZE);
		if (hdr.size < HDR_SIZE || hdr.size > avail - done) {
			*corrupt = true;
			break;
		}
		if (hdr.size > len - done)
			break;
		run_count__record(cnt, p + done, &hdr);
		done += hdr.size;
	}
	return done;
}

/* Copy n bytes starting at data-area offset off, wrapping at the end. */
static void ringbuf__copy_out(const struct ringbuf *rb, size_t off, void *dst,
			      size_t n)
{
	size_t first = rb->mask + 1 - off;

	if (first >= n) {
		memcpy(dst, rb->data + off, n);
		return;
	}
	memcpy(dst, rb->data + off, first);
	memcpy((unsigned char *)dst + first, rb->data, n - first);
}

/*
 * The record at off crosses the end of the data area (its header may too):
 * reassemble it in rb->bounce. Returns its size, or 0 and sets *corrupt.
 */
static size_t ringbuf__reassemble(struct ringbuf *rb, size_t off, size_t avail,
				  struct run_count *cnt, bool *corrupt)
{
	struct perf_event_header hdr;

	if (avail < HDR_SIZE)
		goto out_corrupt;
	ringbuf__copy_out(rb, off, &hdr, HDR_SIZE);
	if (hdr.size < HDR_SIZE || hdr.size > avail)
		goto out_corrupt;
	ringbuf__copy_out(rb, off, rb->bounce, hdr.size);
	run_count__record(cnt, rb->bounce, &hdr);
	return hdr.size;

out_corrupt:
	*corrupt = true;
	return 0;
}

static void ringbuf__account(struct ringbuf *rb, const struct run_count *cnt,
			     size_t len)
{
	rb->bytes += len;
	rb->nr_samples += cnt->samples;
	rb->nr_lost_records += cnt->lost_records;
	rb->lost += cnt->lost;
}

ssize_t ringbuf__read(struct ringbuf *rb, ringbuf_sink_fn sink, void *ctx)
{
	size_t size = rb->mask + 1;
	u64 head = ringbuf__load_head(rb);
	u64 tail = ringbuf__load_tail(rb);
	u64 start = tail;

	/* u64 arithmetic: correct across the wrap of the counters at 2^64. */
	if (head - tail > size)
		return -EIO;

	while (tail != head) {
		size_t off = (size_t)tail & rb->mask;
		size_t avail = (size_t)(head - tail);
		size_t contig = avail < size - off ? avail : size - off;
		struct run_count cnt = { 0 };
		bool corrupt = false;
		const void *run = rb->data + off;
		size_t len;
		int err;

		len = ringbuf__scan(rb->data + off, contig, avail, &cnt, &corrupt);
		if (!len && !corrupt) {
			len = ringbuf__reassemble(rb, off, avail, &cnt, &corrupt);
			run = rb->bounce;
		}
		if (!len)
			return -EIO;

		/* The one indirect call per run. */
		err = sink(ctx, run, len);
		if (err)
			return err < 0 ? err : -EIO;

		tail += len;
		ringbuf__store_tail(rb, tail);
		ringbuf__account(rb, &cnt, len);
		if (corrupt)
			return -EIO;
	}
	return (ssize_t)(head - start);
}

/* --- overwrite rings: the backward reader ------------------------------- */

/* Walks tried, each from the latest data_head, before giving up: -EBUSY. */
#define BW_WALK_TRIES		4
/*
 * data_head counts down from 0, so snap_head - data_head is what was written
 * since the last read. A "distance" in the upper half of the u64 range means
 * the head went up: a ring written forward.
 */
#define BW_MAX_DISTANCE		(1ULL << 63)

/* What one backward walk found; the sizes themselves are in rb->sizes. */
struct bw_walk {
	u64	head;		/* data_head: the newest record starts here */
	u64	limit;		/* bytes the walk may cover from head */
	bool	exact;		/* limit is the previous read's head: a record boundary */
	size_t	nr;		/* records found, newest first */
	u64	bytes;		/* their total size */
	bool	corrupt;	/* stopped at a header no kernel writes */
};

static int ringbuf__alloc_sizes(struct ringbuf *rb)
{
	size_t max = (rb->mask + 1) / HDR_SIZE;

	if (rb->sizes)
		return 0;
	rb->sizes = malloc(max * sizeof(*rb->sizes));
	if (!rb->sizes)
		return -ENOMEM;
	rb->max_sizes = max;
	return 0;
}

int ringbuf__mmap_overwrite(struct ringbuf *rb, int fd, unsigned int pages,
			    struct cpu cpu)
{
	/* No PROT_WRITE: the kernel's ring is then in overwrite mode. */
	int err = ringbuf__map_fd(rb, fd, pages, cpu, PROT_READ);

	if (err)
		return err;
	err = ringbuf__alloc_sizes(rb);
	if (err) {
		ringbuf__munmap(rb);
		return err;
	}
	rb->overwrite = true;
	return 0;
}

static int ringbuf__set_paused(struct ringbuf *rb, unsigned long paused)
{
	/*
	 * The kernel stores rb->paused and returns; every perf_output_begin()
	 * that starts later reads it (READ_ONCE) and drops its record. One
	 * that read it before, on another CPU, may still be writing: nothing
	 * waits for it. ringbuf__walk_settled() copes with the ones that
	 * finish while it walks.
	 */
	if (ioctl(rb->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, paused) < 0)
		return -errno;
	return 0;
}

int ringbuf__pause(struct ringbuf *rb)
{
	return ringbuf__set_paused(rb, 1);
}

int ringbuf__resume(struct ringbuf *rb)
{
	return ringbuf__set_paused(rb, 0);
}

size_t ringbuf__backward_pending(const struct ringbuf *rb)
{
	u64 written = rb->snap_head - ringbuf__load_head(rb);
	size_t size = rb->mask + 1;

	return written < size ? (size_t)written : size;
}

/*
 * Find the records to hand out, newest first, into rb->sizes.
 *
 * Why the layout makes this possible. A record's only size is in
 * its header, at its start. In a ring written forward, data_head points
 * just past the newest record; once the ring has wrapped, the oldest bytes
 * are the tail of some half-overwritten record, and nothing says where the
 * first whole record after it begins. Walking back from data_head does not
 * work either: the end of a record does not say where it starts. Wang Nan's
 * 2015 RFC (PERF_SAMPLE_SIZE_AT_END) added a copy of the size at the end of
 * every record so a reader could step backwards, and then needed every
 * record type, tracking records included, to carry it. The kernel took the
 * other way (write_backward, Linux 4.7): each record goes just below the
 * previous one, so data_head points at the START of the newest record and
 * walking forward in memory from it, header by header, goes from newer to
 * older records using the size every header already has.
 *
 * Where it stops. The bytes at [head, head + size) are exactly the newest
 * `size` bytes written (each ring position was last written at the lowest
 * counter value >= head that maps to it), so every record lying wholly in
 * that window is intact, and the one that crosses its far end lost its
 * tail to the newest records: the walk stops before it. It also stops at
 * the previous read's head (snap_head), where the records of the last
 * snapshot begin, which comes first while less than a ring's worth has
 * been written since, and at a header of size 0: memory the kernel never
 * wrote (its pages start zeroed), which only a ring never filled can show.
 * Reaching past snap_head, or a size below a header's, is corruption.
 */
static void ringbuf__walk_backward(struct ringbuf *rb, struct bw_walk *w)
{
	struct perf_event_header hdr;
	u64 off = 0;

	w->nr = 0;
	w->corrupt = false;
	while (off < w->limit) {
		if (w->limit - off < HDR_SIZE) {
			/* Not even a header left: a torn one, or a bad boundary. */
			w->corrupt = w->exact;
			break;
		}
		ringbuf__copy_out(rb, (size_t)(w->head + off) & rb->mask, &hdr,
				  HDR_SIZE);
		if (!hdr.size)
			break;
		if (hdr.size < HDR_SIZE) {
			w->corrupt = true;
			break;
		}
		if (hdr.size > w->limit - off) {
			/* The oldest record, partly overwritten: left out. */
			w->corrupt = w->exact;
			break;
		}
		/* off <= limit <= data size and every size >= 8: fits. */
		rb->sizes[w->nr++] = hdr.size;
		off += hdr.size;
	}
	w->bytes = off;
}

static inline u64 ringbuf__recheck_head(const struct ringbuf *rb)
{
	/*
	 * (E) Acquire fence: the walk's loads of the headers are ordered
	 * before this second load of data_head, as smp_rmb() orders the data
	 * loads before re-reading a seqcount. Pairs with (B): a writer that
	 * published a record (stores, smp_wmb(), data_head) before our header
	 * loads finished shows here as a changed head. A writer that has not
	 * published yet cannot be seen (see ringbuf__set_paused()).
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&ringbuf__pc(rb)->data_head, __ATOMIC_RELAXED);
}

/* Walk until data_head holds still across a whole walk. */
static int ringbuf__walk_settled(struct ringbuf *rb, struct bw_walk *w)
{
	size_t size = rb->mask + 1;
	int tries;

	for (tries = 0; tries < BW_WALK_TRIES; tries++) {
		/* (C) as in ringbuf__read(): pairs with the kernel's (B). */
		u64 head = ringbuf__load_head(rb);
		u64 written = rb->snap_head - head;

		if (written >= BW_MAX_DISTANCE)
			return -EINVAL;
		w->head = head;
		w->exact = written <= size;
		w->limit = w->exact ? written : size;
		ringbuf__walk_backward(rb, w);
		if (ringbuf__recheck_head(rb) == head)
			return 0;
	}
	return -EBUSY;
}

/* Hand the first len bytes of the bounce buffer to the sink. */
static int ringbuf__hand_bounce(struct ringbuf *rb, size_t len,
				struct run_count *cnt, ringbuf_sink_fn sink,
				void *ctx)
{
	int err = sink(ctx, rb->bounce, len);

	if (err)
		return err < 0 ? err : -EIO;
	ringbuf__account(rb, cnt, len);
	memset(cnt, 0, sizeof(*cnt));
	return 0;
}

/*
 * Copy the walked records out oldest first (the reverse of the walk) into
 * the bounce buffer, handing it to the sink whenever the next record would
 * not fit. copy_out reassembles the records that cross the end of the area.
 */
static int ringbuf__emit_backward(struct ringbuf *rb, const struct bw_walk *w,
				  ringbuf_sink_fn sink, void *ctx)
{
	u64 pos = w->head + w->bytes;	/* the end of the oldest record */
	struct run_count cnt = { 0 };
	struct perf_event_header hdr;
	size_t fill = 0, i = w->nr;
	int err;

	while (i--) {
		size_t size = rb->sizes[i];

		if (fill + size > RINGBUF_BOUNCE_SIZE) {
			err = ringbuf__hand_bounce(rb, fill, &cnt, sink, ctx);
			if (err)
				return err;
			fill = 0;
		}
		pos -= size;
		ringbuf__copy_out(rb, (size_t)pos & rb->mask, rb->bounce + fill, size);
		memcpy(&hdr, rb->bounce + fill, HDR_SIZE);
		run_count__record(&cnt, rb->bounce + fill, &hdr);
		fill += size;
	}
	if (!fill)
		return 0;
	return ringbuf__hand_bounce(rb, fill, &cnt, sink, ctx);
}

ssize_t ringbuf__read_backward(struct ringbuf *rb, ringbuf_sink_fn sink, void *ctx)
{
	struct bw_walk w;
	int err;

	err = ringbuf__alloc_sizes(rb);
	if (err)
		return err;
	err = ringbuf__walk_settled(rb, &w);
	if (err)
		return err;
	err = ringbuf__emit_backward(rb, &w, sink, ctx);
	if (err)
		return err;
	rb->snap_head = w.head;
	return w.corrupt ? -EIO : (ssize_t)w.bytes;
}
