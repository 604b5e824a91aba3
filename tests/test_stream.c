// SPDX-License-Identifier: GPL-2.0
/*
 * test_stream.c — a streaming thread's commands (stream.h): moving to new
 * files (--switch-output), reading its overwrite rings at a snapshot, holding
 * its rings while the file is full (--switch-output=SIZE), a switch asked
 * of a thread that already stopped, and a one-file thread keeping its
 * header's data size up to date; and the adaptive layout's hand-over of
 * rings between a node's thread and its helpers: no record lost,
 * duplicated or reordered in any ring's file, every ring owned by a
 * running thread at every moment, a helper's error stopping its lead. The
 * rings are built by hand in memory, the test playing the kernel on the
 * main thread while the streaming threads read them; this test runs under
 * TSan too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "precord/stream.h"
#include "precord/perf-file.h"

#define RING_SIZE	4096
#define REC_SIZE	64
#define WAIT_MS		5000

/* --- a fake kernel ------------------------------------------------------ */

struct fake {
	unsigned char			*mem;
	struct perf_event_mmap_page	*pc;
	unsigned char			*data;
	struct ringbuf			rb;
	bool				backward;
};

static void fake__init(struct fake *f, bool backward)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(f, 0, sizeof(*f));
	f->mem = calloc(1, page + RING_SIZE);
	assert_non_null(f->mem);
	f->pc = (struct perf_event_mmap_page *)f->mem;
	f->pc->data_offset = page;
	f->pc->data_size = RING_SIZE;
	f->data = f->mem + page;
	f->backward = backward;
	assert_int_equal(ringbuf__init_mem(&f->rb, f->mem, RING_SIZE), 0);
}

static void fake__exit(struct fake *f)
{
	ringbuf__munmap(&f->rb);
	free(f->mem);
}

/*
 * Records numbered first.., written as the kernel does: the bytes, then
 * data_head with a release store (pairs with the reader's acquire load of
 * data_head). Backward rings grow down.
 */
static void fake__put_type(struct fake *f, u32 type, u32 first, u32 count)
{
	unsigned char rec[REC_SIZE] = { 0 };
	struct perf_event_header h = { .type = type, .size = REC_SIZE };
	u64 head = __atomic_load_n(&f->pc->data_head, __ATOMIC_RELAXED), n64;
	u32 n;
	size_t i;

	memcpy(rec, &h, sizeof(h));
	for (n = first; n < first + count; n++) {
		if (f->backward)
			head -= REC_SIZE;
		n64 = n;
		memcpy(rec + sizeof(h), &n, sizeof(n));
		memcpy(rec + 16, &n64, sizeof(n64));	/* a LOST record's `lost` */
		for (i = 0; i < REC_SIZE; i++)
			f->data[(head + i) & (RING_SIZE - 1)] = rec[i];
		if (!f->backward)
			head += REC_SIZE;
	}
	__atomic_store_n(&f->pc->data_head, head, __ATOMIC_RELEASE);
}

static void fake__put_many(struct fake *f, u32 first, u32 count)
{
	fake__put_type(f, PERF_RECORD_SAMPLE, first, count);
}

/* PERF_RECORD_LOST: id, then the count (n) where the kernel puts `lost`. */
static void fake__put_lost(struct fake *f, u32 n)
{
	fake__put_type(f, PERF_RECORD_LOST, n, 1);
}

static void fake__put(struct fake *f, u32 n)
{
	fake__put_many(f, n, 1);
}

/* --- files -------------------------------------------------------------- */

static int tmp_file(void)
{
	char path[] = "/tmp/precord-test-stream.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static off_t file_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return st.st_size;
}

/* Wait until fd holds `size` bytes (the thread wakes every 250 ms at worst). */
static void wait_size(int fd, off_t size)
{
	int ms;

	for (ms = 0; ms < WAIT_MS && file_size(fd) < size; ms += 5)
		usleep(5000);
	assert_int_equal(file_size(fd), size);
}

/* The record numbers in fd, in file order. */
static int read_numbers(int fd, u32 *nums, int max)
{
	unsigned char rec[REC_SIZE];
	off_t off = 0;
	int n = 0;

	while (n < max && pread(fd, rec, sizeof(rec), off) == (ssize_t)sizeof(rec)) {
		memcpy(&nums[n++], rec + sizeof(struct perf_event_header), sizeof(u32));
		off += REC_SIZE;
	}
	return n;
}

static void assert_numbers(int fd, u32 first, int count)
{
	u32 nums[128];
	int i, n = read_numbers(fd, nums, 128);

	assert_int_equal(n, count);
	for (i = 0; i < n; i++)
		assert_int_equal(nums[i], first + (u32)i);
}

static void wait_acks(int ack_fd, u64 want)
{
	struct pollfd pfd = { .fd = ack_fd, .events = POLLIN };
	u64 v, got = 0;

	while (got < want) {
		assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
		assert_int_equal(read(ack_fd, &v, sizeof(v)), sizeof(v));
		got += v;
	}
	assert_int_equal(got, want);
}

/* --- a streaming thread with one forward ring (and one backward ring) --- */

struct fixture {
	struct fake	fwd, bwd;
	struct ringbuf	*rings[1], *bk[1];
	int		fds[2], next[2];
	struct stream	s;
	int		ack_fd, notify_fd;
	struct stream_shared sh;	/* --switch-output=SIZE, when a test uses it */
	bool		live;		/* started and not stopped yet */
};

static void fixture__start(struct fixture *x, bool backward, struct stream_shared *shared)
{
	struct stream_shared sh = x->sh;
	int i;

	memset(x, 0, sizeof(*x));
	x->sh = sh;
	fake__init(&x->fwd, false);
	x->rings[0] = &x->fwd.rb;
	if (backward) {
		fake__init(&x->bwd, true);
		x->bk[0] = &x->bwd.rb;
	}
	for (i = 0; i < 2; i++) {
		x->fds[i] = tmp_file();
		x->next[i] = tmp_file();
	}
	x->ack_fd = eventfd(0, EFD_CLOEXEC);
	x->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(x->ack_fd >= 0 && x->notify_fd >= 0);
	assert_int_equal(stream__init(&x->s, 0, x->rings, 1, NULL, 0, x->notify_fd), 0);
	x->s.write_rounds = false;
	x->s.writer_kind = WRITER_WRITE;
	x->s.out_fds = x->fds;
	x->s.next_fds = x->next;
	x->s.nr_files = backward ? 2 : 1;
	x->s.bk_rings = backward ? x->bk : NULL;
	x->s.ack_fd = x->ack_fd;
	x->s.shared = shared;
	x->live = true;
	assert_int_equal(stream__start(&x->s), 0);
}

/* Also the teardown: a failed assertion leaves the thread running. */
static void fixture__stop(struct fixture *x)
{
	int i;

	if (!x->live)
		return;
	x->live = false;
	stream__exit(&x->s);
	for (i = 0; i < 2; i++) {
		close(x->fds[i]);
		close(x->next[i]);
	}
	close(x->ack_fd);
	close(x->notify_fd);
	fake__exit(&x->fwd);
	if (x->bk[0])
		fake__exit(&x->bwd);
}

/* Records before a switch end in the old file, records after it in the new one. */
static void test_switch_moves_files(void **state)
{
	struct fixture *x = *state;
	int old_fd, new_fd;
	u32 i;

	fixture__start(x, false, NULL);
	old_fd = x->fds[0];
	new_fd = x->next[0];
	for (i = 0; i < 10; i++)
		fake__put(&x->fwd, i);
	wait_size(old_fd, 10 * REC_SIZE);
	/* Not read yet when the switch is asked: the switch drains them first. */
	for (i = 10; i < 13; i++)
		fake__put(&x->fwd, i);
	assert_int_equal(stream__request_switch(&x->s, false), 1);
	wait_acks(x->ack_fd, 1);
	assert_int_equal(__atomic_load_n(&x->s.switch_error, __ATOMIC_RELAXED), 0);
	assert_numbers(old_fd, 0, 13);
	for (i = 13; i < 18; i++)
		fake__put(&x->fwd, i);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_numbers(old_fd, 0, 13);
	assert_numbers(new_fd, 13, 5);
	assert_int_equal(x->s.stats.bytes, 18 * REC_SIZE);
	close(old_fd);
	fixture__stop(x);
}

/*
 * The live counters: read by another thread while the stream runs (under
 * TSan: relaxed atomics on both sides), they follow every pass, and after
 * the stop they are the thread's own counters.
 */
static void test_live_counters(void **state)
{
	struct fixture *x = *state;
	struct stream_live live;
	int waited;
	u32 i;

	fixture__start(x, false, NULL);
	for (i = 0; i < 10; i++)
		fake__put(&x->fwd, i);
	for (waited = 0; waited < WAIT_MS; waited++) {
		stream__read_live(&x->s, &live);
		if (live.bytes == 10 * REC_SIZE)
			break;
		usleep(1000);
	}
	assert_int_equal(live.bytes, 10 * REC_SIZE);
	for (i = 10; i < 15; i++)
		fake__put(&x->fwd, i);
	assert_int_equal(stream__stop(&x->s), 0);
	stream__read_live(&x->s, &live);
	assert_int_equal(live.bytes, 15 * REC_SIZE);
	assert_int_equal(live.bytes, x->s.stats.bytes);
	assert_int_equal(live.samples, x->s.stats.samples);
	assert_int_equal(live.lost, x->s.stats.lost);
	fixture__stop(x);
}

/*
 * A snapshot reads the overwrite ring oldest first into its file; the next
 * one only what was written since; the final stop reads it once more.
 */
static void test_snapshot_reads_backward(void **state)
{
	struct fixture *x = *state;
	int old_fwd, old_bwd;
	u32 i;

	fixture__start(x, true, NULL);
	old_fwd = x->fds[0];
	old_bwd = x->fds[1];
	/* 100 records of 64 bytes in a 4 KiB ring: only the newest 64 survive. */
	for (i = 0; i < 100; i++)
		fake__put(&x->bwd, i);
	assert_int_equal(stream__request_switch(&x->s, true), 1);
	wait_acks(x->ack_fd, 1);
	assert_int_equal(__atomic_load_n(&x->s.switch_error, __ATOMIC_RELAXED), 0);
	assert_numbers(old_bwd, 100 - RING_SIZE / REC_SIZE, RING_SIZE / REC_SIZE);
	assert_int_equal(file_size(old_fwd), 0);
	assert_int_equal(x->fds[1], x->next[1]);	/* the thread's slots name the new files */
	/* As after a resume: the count of what the pause dropped, then records. */
	fake__put_lost(&x->bwd, 7);
	for (i = 100; i < 110; i++)
		fake__put(&x->bwd, i);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_numbers(x->next[1], 100, 10);	/* the LOST record is left out */
	assert_int_equal(x->s.stats.paused_lost, 7);
	assert_int_equal(x->s.stats.snapshots, 2);
	close(old_fwd);
	close(old_bwd);
	assert_int_equal(x->s.stats.samples, RING_SIZE / REC_SIZE + 10);
	fixture__stop(x);
}

/*
 * --switch-output=SIZE: the read that crosses the limit is written and
 * reported on switch_fd; what comes after waits in the ring and goes to the
 * next file.
 */
static void test_full_file_holds_rings(void **state)
{
	struct fixture *x = *state;
	struct pollfd pfd;
	int old_fd;
	u64 v;
	u32 i;

	x->sh.switch_at = stream_switch_at(0, 5 * REC_SIZE);
	x->sh.switch_fd = eventfd(0, EFD_CLOEXEC);
	assert_true(x->sh.switch_fd >= 0);
	fixture__start(x, false, &x->sh);
	old_fd = x->fds[0];
	fake__put_many(&x->fwd, 0, 8);		/* published at once: one read takes all 8 */
	pfd.fd = x->sh.switch_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(read(x->sh.switch_fd, &v, sizeof(v)), sizeof(v));
	assert_int_equal(v, 1);
	wait_size(old_fd, 8 * REC_SIZE);	/* flushed when idle */
	assert_numbers(old_fd, 0, 8);		/* one read: all 8 */
	for (i = 8; i < 12; i++)
		fake__put(&x->fwd, i);
	usleep(300 * 1000);			/* past the thread's idle timeout */
	assert_numbers(old_fd, 0, 8);		/* held: nothing more in the full file */
	assert_int_equal(stream__request_switch(&x->s, false), 1);
	wait_acks(x->ack_fd, 1);
	/* Set 1 is not armed yet: the thread writes it freely. */
	for (i = 12; i < 20; i++)
		fake__put(&x->fwd, i);
	wait_size(x->next[0], 12 * REC_SIZE);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_numbers(old_fd, 0, 8);
	assert_numbers(x->next[0], 8, 12);
	close(old_fd);
	assert_int_equal(__atomic_load_n(&x->sh.bytes, __ATOMIC_RELAXED), 20 * REC_SIZE);
	fixture__stop(x);
}

/*
 * --switch-output=SIZE with two rings on one thread: the pass whose first
 * ring fills the file still reads the second, so every ring is read up to
 * about the same moment and none waits for switches that keep finding the
 * file full.
 */
static void test_full_file_ends_the_pass(void **state)
{
	struct fixture *x = *state;
	struct fake second;
	struct ringbuf *rings[2];
	struct pollfd pfd;
	int fds[2], next[2], old[2], i;
	u64 v;

	fake__init(&x->fwd, false);
	fake__init(&second, false);
	rings[0] = &x->fwd.rb;
	rings[1] = &second.rb;
	for (i = 0; i < 2; i++) {
		old[i] = fds[i] = tmp_file();
		next[i] = tmp_file();
	}
	x->sh.switch_at = stream_switch_at(0, 5 * REC_SIZE);
	x->sh.switch_fd = eventfd(0, EFD_CLOEXEC);
	x->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	x->ack_fd = eventfd(0, EFD_CLOEXEC);
	assert_true(x->sh.switch_fd >= 0 && x->notify_fd >= 0 && x->ack_fd >= 0);
	assert_int_equal(stream__init(&x->s, 0, rings, 2, NULL, 0, x->notify_fd), 0);
	x->s.write_rounds = false;
	x->s.writer_kind = WRITER_WRITE;
	x->s.out_fds = fds;
	x->s.next_fds = next;
	x->s.nr_files = 2;
	x->s.ack_fd = x->ack_fd;
	x->s.shared = &x->sh;
	fake__put_many(&x->fwd, 0, 8);		/* the first ring alone fills the file */
	fake__put_many(&second, 100, 3);
	assert_int_equal(stream__start(&x->s), 0);
	pfd.fd = x->sh.switch_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(read(x->sh.switch_fd, &v, sizeof(v)), sizeof(v));
	wait_size(fds[0], 8 * REC_SIZE);
	wait_size(fds[1], 3 * REC_SIZE);	/* read in the same pass, not held */
	fake__put_many(&second, 103, 2);
	usleep(300 * 1000);			/* past the thread's idle timeout */
	assert_int_equal(stream__request_switch(&x->s, false), 1);
	wait_acks(x->ack_fd, 1);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_numbers(old[0], 0, 8);
	assert_numbers(old[1], 100, 3);
	assert_numbers(next[1], 103, 2);	/* held once full: the next file's */
	stream__exit(&x->s);
	for (i = 0; i < 2; i++) {
		close(old[i]);
		close(next[i]);
	}
	close(x->ack_fd);
	close(x->notify_fd);
	fake__exit(&x->fwd);
	fake__exit(&second);
}

/* A thread that stopped on a write error takes no command and says so. */
static void test_switch_after_exit(void **state)
{
	struct pollfd pfd;
	struct fixture *x = *state;
	int ro, old_fd;

	fixture__start(x, false, NULL);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_int_equal(stream__request_switch(&x->s, false), 0);	/* not running */
	fixture__stop(x);

	fixture__start(x, false, NULL);
	/* The next files: one the thread cannot write, so its next flush fails. */
	ro = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(ro >= 0);
	close(x->next[0]);
	x->next[0] = ro;
	old_fd = x->fds[0];
	assert_int_equal(stream__request_switch(&x->s, false), 1);
	wait_acks(x->ack_fd, 1);
	assert_int_equal(x->fds[0], ro);		/* the thread's slots now name the new file */
	close(old_fd);
	x->fds[0] = -1;				/* ro is closed once, as next[0] */
	fake__put(&x->fwd, 1);
	pfd.fd = x->notify_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);	/* stopped by itself */
	assert_int_equal(stream__request_switch(&x->s, false), 0);
	assert_int_equal(stream__stop(&x->s), -EBADF);
	fixture__stop(x);
}

/* The data.size field of fd's perf.data header, once it says `want` (or the wait ends). */
static u64 wait_noted(int fd, u64 want)
{
	u64 v = 0;
	int ms;

	for (ms = 0; ms < WAIT_MS; ms += 5) {
		assert_int_equal(pread(fd, &v, sizeof(v), offsetof(struct perf_file_header, data.size)),
				 sizeof(v));
		if (v == want)
			break;
		usleep(5000);
	}
	return v;
}

/*
 * One file (every ring into one writer, FINISHED_ROUND after each pass):
 * when the thread goes idle, the header's data size says what the writer
 * put in the file, whole records, so a kill leaves a file perf reads that
 * far; what is still in the ring is not counted until it is written.
 */
static void test_one_file_notes_size(void **state)
{
	struct fixture *x = *state;
	struct perf_file_header zero = { 0 };
	const u64 round = sizeof(struct perf_event_header);
	struct writer w;
	int fd = tmp_file();

	fake__init(&x->fwd, false);
	x->rings[0] = &x->fwd.rb;
	x->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(x->notify_fd >= 0);
	assert_int_equal(pwrite(fd, &zero, sizeof(zero), 0), sizeof(zero));
	assert_int_equal(writer__open(&w, WRITER_WRITE, fd, sizeof(zero)), 0);
	assert_int_equal(stream__init(&x->s, 0, x->rings, 1, &w, 0, x->notify_fd), 0);
	x->s.size_fd = fd;
	x->s.size_off = offsetof(struct perf_file_header, data.size);
	assert_int_equal(stream__start(&x->s), 0);

	fake__put_many(&x->fwd, 0, 10);
	assert_int_equal(wait_noted(fd, 10 * REC_SIZE + round), 10 * REC_SIZE + round);
	assert_int_equal(file_size(fd), (off_t)(sizeof(zero) + 10 * REC_SIZE + round));
	fake__put_many(&x->fwd, 10, 5);
	assert_int_equal(wait_noted(fd, 15 * REC_SIZE + 2 * round), 15 * REC_SIZE + 2 * round);

	assert_int_equal(stream__stop(&x->s), 0);
	stream__exit(&x->s);
	writer__close(&w);
	close(fd);
	close(x->notify_fd);
	fake__exit(&x->fwd);
	memset(x, 0, sizeof(*x));
	x->sh.switch_fd = -1;
}

/* --- the adaptive group: a node thread and its helpers on NR_GROUP rings --- */

#define NR_GROUP	4

struct group_fixture {
	struct fake	rings[NR_GROUP];
	struct ringbuf	*rbs[NR_GROUP];
	int		fds[NR_GROUP], next[NR_GROUP];
	u32		sent[NR_GROUP];		/* records written so far, per ring */
	struct stream	s;
	int		ack_fd, notify_fd;
};

/* Record n of ring r carries both, so a record in the wrong file shows. */
static u32 group_rec(int r, u32 n)
{
	return (u32)r * 1000000u + n;
}

static void group__start(struct group_fixture *x, int max, const struct adapt_params *p)
{
	int i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < NR_GROUP; i++) {
		fake__init(&x->rings[i], false);
		x->rings[i].rb.cpu.cpu = i;
		x->rings[i].rb.idx = i;
		x->rbs[i] = &x->rings[i].rb;
		x->fds[i] = tmp_file();
		x->next[i] = -1;
	}
	x->ack_fd = eventfd(0, EFD_CLOEXEC);
	x->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(x->ack_fd >= 0 && x->notify_fd >= 0);
	assert_int_equal(stream__init(&x->s, 0, x->rbs, NR_GROUP, NULL, 0, x->notify_fd), 0);
	x->s.write_rounds = false;
	x->s.writer_kind = WRITER_WRITE;
	x->s.out_fds = x->fds;
	x->s.next_fds = x->next;
	x->s.nr_files = NR_GROUP;
	x->s.ack_fd = x->ack_fd;
	x->s.idle_ms = 1;	/* fake rings have no fd to wake a thread: look often */
	assert_int_equal(stream_group__new(&x->s, max, p), 0);
	assert_int_equal(stream__start(&x->s), 0);
}

static void group__stop(struct group_fixture *x)
{
	int i;

	stream__exit(&x->s);
	for (i = 0; i < NR_GROUP; i++) {
		close(x->fds[i]);
		fake__exit(&x->rings[i]);
	}
	close(x->ack_fd);
	close(x->notify_fd);
}

/* Room left in ring r, as the kernel sees it: the reader's tail (acquire: its release store). */
static u32 group__room(struct group_fixture *x, int r)
{
	struct fake *f = &x->rings[r];
	u64 head = __atomic_load_n(&f->pc->data_head, __ATOMIC_RELAXED);
	u64 tail = __atomic_load_n(&f->pc->data_tail, __ATOMIC_ACQUIRE);

	return (u32)((RING_SIZE - (head - tail)) / REC_SIZE);
}

/* Up to `batch` more records into ring r, as far as there is room (a kernel would drop the rest). */
static void group__feed(struct group_fixture *x, int r, u32 batch, u32 total)
{
	u32 room = group__room(x, r), n, i;

	n = batch < room ? batch : room;
	if (n > total - x->sent[r])
		n = total - x->sent[r];
	for (i = 0; i < n; i++)
		fake__put(&x->rings[r], group_rec(r, x->sent[r] + i));
	x->sent[r] += n;
}

/* Every ring's file holds its records 0 .. sent - 1, once each, in order. */
static void group__check_files(struct group_fixture *x)
{
	unsigned char rec[REC_SIZE];
	int r;

	for (r = 0; r < NR_GROUP; r++) {
		off_t off = 0;
		u32 n = 0, v;

		while (pread(x->fds[r], rec, sizeof(rec), off) == (ssize_t)sizeof(rec)) {
			memcpy(&v, rec + sizeof(struct perf_event_header), sizeof(v));
			if (v != group_rec(r, n))
				fail_msg("ring %d: record %u of its file is %u, not %u", r, n, v,
					 group_rec(r, n));
			n++;
			off += REC_SIZE;
		}
		assert_int_equal(n, x->sent[r]);
		assert_int_equal(file_size(x->fds[r]), (off_t)x->sent[r] * REC_SIZE);
	}
}

/* The samples the group's threads counted, helpers included. */
static u64 group__samples(struct group_fixture *x)
{
	struct stream_group *g = x->s.group;
	u64 n = x->s.stats.samples;
	int k;

	for (k = 1; k < g->max; k++)
		n += stream_group__helper(g, k)->stats.samples;
	return n;
}

/*
 * A rule that makes the threads hand rings over all the time: every pass
 * is late (split at once, no settling), every helper idle 2 ms after it
 * starts (retire). Meanwhile the test writes numbered records into every
 * ring as fast as the readers make room, and checks that every ring has a
 * running owner. At the end each ring's file holds its records, in order,
 * once each.
 */
static void test_group_churn_keeps_records(void **state)
{
	struct adapt_params p = {
		.high = 0, .low = 1001, .nr_high = 1, .window_ns = ~0ULL, .settle_ns = 0,
		.idle_ns = 2000000, .slept_ns = ~0ULL,
	};
	const u32 total = 3000;
	struct group_fixture *x = calloc(1, sizeof(*x));
	struct stream_live live;
	struct stream_group *g;
	int r, bad, loops = 0, idle = 0, i;
	bool done = false;

	assert_non_null(x);
	group__start(x, NR_GROUP, &p);
	g = x->s.group;
	while (!done) {
		done = true;
		for (r = 0; r < NR_GROUP; r++) {
			group__feed(x, r, 1 + (u32)(loops + r) % 7, total);
			done &= x->sent[r] == total;
		}
		bad = stream_group__check_owners(&x->s);
		if (bad >= 0)
			fail_msg("ring %d has no running owner", bad);
		if (++loops % 64 == 0)
			usleep(100);
		assert_true(loops < 50 * 1000 * 1000);
	}
	/* Half of them read before the stop, the rest by the final drains. */
	assert_true(stream_group__read_live(&x->s, &live) >= 1);
	assert_int_equal(stream__stop(&x->s), 0);
	group__check_files(x);
	assert_int_equal(group__samples(x), (u64)NR_GROUP * total);
	stream_group__read_live(&x->s, &live);
	assert_int_equal(live.samples, (u64)NR_GROUP * total);
	assert_int_equal(live.bytes, (u64)NR_GROUP * total * REC_SIZE);
	/* The churn happened: helpers started and gave their rings back. */
	assert_true(g->nr_runs >= 4);
	for (i = 0; i < g->nr_runs; i++)
		idle += g->runs[i].end == STREAM_RUN_IDLE;
	assert_true(idle >= 1);
	assert_true(g->peak >= 2 && g->peak <= NR_GROUP);
	for (r = 0; r < NR_GROUP; r++)
		assert_int_equal(g->owner[r], 0);	/* all back with the lead */
	group__stop(x);
	free(x);
}

/*
 * Late passes and no idling: the node thread splits, and its helpers split,
 * until each of the NR_GROUP threads reads one ring (one per CPU), and no
 * further. Records keep their order meanwhile.
 */
static void test_group_splits_to_one_ring_each(void **state)
{
	struct adapt_params p = {
		.high = 0, .low = 0, .nr_high = 1, .window_ns = ~0ULL, .settle_ns = 0,
		.idle_ns = ~0ULL, .slept_ns = 0,
	};
	struct group_fixture *x = calloc(1, sizeof(*x));
	struct stream_live live;
	struct stream_group *g;
	int r, ms, owners[NR_GROUP] = { 0 }, k;

	assert_non_null(x);
	group__start(x, NR_GROUP, &p);
	g = x->s.group;
	for (ms = 0; ms < WAIT_MS && stream_group__read_live(&x->s, &live) < NR_GROUP; ms++) {
		for (r = 0; r < NR_GROUP; r++)
			group__feed(x, r, 3, 1000000);
		usleep(1000);
	}
	assert_int_equal(stream_group__read_live(&x->s, &live), NR_GROUP);
	usleep(20 * 1000);
	for (r = 0; r < NR_GROUP; r++)
		group__feed(x, r, 5, 1000000);
	assert_int_equal(stream_group__check_owners(&x->s), -1);
	for (r = 0; r < NR_GROUP; r++) {
		k = __atomic_load_n(&g->owner[r], __ATOMIC_ACQUIRE);
		assert_true(k >= 0 && k < NR_GROUP);
		owners[k]++;
	}
	for (k = 0; k < NR_GROUP; k++)
		assert_int_equal(owners[k], 1);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_int_equal(g->nr_runs, NR_GROUP - 1);
	assert_int_equal(g->started, NR_GROUP);
	assert_int_equal(g->peak, NR_GROUP);
	for (k = 0; k < g->nr_runs; k++) {
		assert_int_equal(g->runs[k].why, ADAPT_WHY_FILL);
		assert_int_equal(g->runs[k].end, STREAM_RUN_END);
	}
	group__check_files(x);
	group__stop(x);
	free(x);
}

/*
 * A LOST record splits the node thread: the ring that lost goes to the new
 * helper with the fullest other one (the fuller half of four); with nothing
 * late after it the helper is idle, and gives them back. The account says
 * when and why.
 */
static void test_group_loss_then_idle(void **state)
{
	struct adapt_params p = {
		.high = 1001, .low = 1001, .nr_high = 1, .window_ns = 0, .settle_ns = 0,
		.idle_ns = 30 * 1000000ULL, .slept_ns = ~0ULL,
	};
	struct group_fixture *x = calloc(1, sizeof(*x));
	struct stream_group *g;
	int r, ms;

	assert_non_null(x);
	group__start(x, 2, &p);
	g = x->s.group;
	for (r = 0; r < NR_GROUP; r++)
		group__feed(x, r, 10, 1000000);
	fake__put_lost(&x->rings[2], 5);	/* as the kernel: dropped 5 records of ring 2 */
	for (ms = 0; ms < WAIT_MS; ms++) {
		bool retired;

		pthread_mutex_lock(&g->lock);
		retired = g->nr_runs == 1 && g->runs[0].end == STREAM_RUN_IDLE;
		pthread_mutex_unlock(&g->lock);
		if (retired)
			break;
		usleep(1000);
	}
	for (r = 0; r < NR_GROUP; r++)
		group__feed(x, r, 10, 1000000);
	assert_int_equal(stream__stop(&x->s), 0);
	assert_int_equal(g->nr_runs, 1);
	assert_int_equal(g->runs[0].why, ADAPT_WHY_LOST);
	assert_int_equal(g->runs[0].lost, 5);
	assert_int_equal(g->runs[0].slot, 1);
	assert_int_equal(g->runs[0].parent, 0);
	/* The ring that lost, and one more (which depends on how the first pass fell). */
	assert_true(!strcmp(g->runs[0].cpus, "0,2") || !strcmp(g->runs[0].cpus, "1-2") ||
		    !strcmp(g->runs[0].cpus, "2-3"));
	assert_int_equal(g->runs[0].end, STREAM_RUN_IDLE);
	assert_true(g->runs[0].stop_ns >= g->runs[0].start_ns + 30 * 1000000ULL);
	assert_int_equal(x->s.stats.lost + stream_group__helper(g, 1)->stats.lost, 5);
	/* ring 2's file: 10 records, the LOST record, 10 records */
	{
		u32 nums[32];
		int n = read_numbers(x->fds[2], nums, 32), i;

		assert_int_equal(n, 21);
		for (i = 0; i < 10; i++) {
			assert_int_equal(nums[i], group_rec(2, (u32)i));
			assert_int_equal(nums[11 + i], group_rec(2, 10 + (u32)i));
		}
		assert_int_equal(nums[10], 5);
	}
	x->sent[2] = 0;		/* the LOST record is not a numbered sample */
	group__stop(x);
	free(x);
}

/*
 * A helper that meets a corrupt ring hands its rings back with the error,
 * and its node thread stops on it and says so on notify_fd.
 */
static void test_group_helper_error_stops_lead(void **state)
{
	struct adapt_params p = {
		.high = 0, .low = 0, .nr_high = 1, .window_ns = ~0ULL, .settle_ns = 0,
		.idle_ns = ~0ULL, .slept_ns = 0,
	};
	struct group_fixture *x = calloc(1, sizeof(*x));
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	struct stream_live live;
	struct pollfd pfd;
	struct fake *f;
	int r, ms;
	u64 head;

	assert_non_null(x);
	group__start(x, NR_GROUP, &p);
	for (ms = 0; ms < WAIT_MS && stream_group__read_live(&x->s, &live) < NR_GROUP; ms++) {
		for (r = 0; r < NR_GROUP; r++)
			group__feed(x, r, 2, 1000000);
		usleep(1000);
	}
	assert_int_equal(stream_group__read_live(&x->s, &live), NR_GROUP);
	/* Three of the four threads are helpers: whichever reads ring 3 meets this. */
	f = &x->rings[3];
	while (group__room(x, 3) < 1)
		usleep(1000);
	head = __atomic_load_n(&f->pc->data_head, __ATOMIC_RELAXED);
	memcpy(f->data + (head & (RING_SIZE - 1)), &bad, sizeof(bad));
	__atomic_store_n(&f->pc->data_head, head + REC_SIZE, __ATOMIC_RELEASE);
	pfd.fd = x->notify_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);	/* the lead stopped by itself */
	assert_int_equal(stream__stop(&x->s), -EIO);
	assert_int_equal(stream_group__check_owners(&x->s), -1);
	group__stop(x);
	free(x);
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	x->sh.switch_fd = -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	fixture__stop(x);
	if (x->sh.switch_fd >= 0)
		close(x->sh.switch_fd);
	free(x);
	return 0;
}

#define fixture_test(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_live_counters),
		fixture_test(test_switch_moves_files),
		fixture_test(test_snapshot_reads_backward),
		fixture_test(test_full_file_holds_rings),
		fixture_test(test_full_file_ends_the_pass),
		fixture_test(test_switch_after_exit),
		fixture_test(test_one_file_notes_size),
		cmocka_unit_test(test_group_churn_keeps_records),
		cmocka_unit_test(test_group_splits_to_one_ring_each),
		cmocka_unit_test(test_group_loss_then_idle),
		cmocka_unit_test(test_group_helper_error_stops_lead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
