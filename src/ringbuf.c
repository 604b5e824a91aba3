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
	return 0;
}

int ringbuf__mmap(struct ringbuf *rb, int fd, unsigned int pages, struct cpu cpu)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	size_t len;
	void *base;
	int err;

	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	len = ((size_t)pages + 1) * page_size;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	err = ringbuf__attach(rb, base, (size_t)pages * page_size, len);
	if (err)
		goto out_unmap;
	rb->fd = fd;
	rb->cpu = cpu;
	return 0;

out_unmap:
	munmap(base, len);
	return err;
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
