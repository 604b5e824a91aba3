// SPDX-License-Identifier: GPL-2.0
/*
 * test_writer.c — the writers: exact byte streams for every size of write
 * and every backend (WRITER_AIO with 1 to 4 writes in flight), offset
 * accounting, short writes (a non-blocking pipe, signals, RLIMIT_FSIZE), a
 * full disk (a 64 KiB tmpfs we mount), and for WRITER_AIO: what a flush
 * guarantees, how far the file may lag, the writer thread's lifetime.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/writer.h"
#include "helpers.h"

#define STREAM_MAX	(8 << 20)

struct tdir {
	char	path[TMPDIR_PATH_SIZE];	/* first: a tmpdir__fixture() */
	bool	mounted;
};

/* The byte at stream position i: not periodic in any power of two. */
static unsigned char pattern(u64 i)
{
	return (unsigned char)((i * 2654435761u) >> 13);
}

static unsigned char *pattern_buf(u64 start, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = pattern(start + i);
	return p;
}

static int setup_dir(void **state)
{
	*state = tmpdir__fixture(sizeof(struct tdir), "writer");
	return *state ? 0 : -1;
}

/*
 * A 64 KiB tmpfs, mounted in a mount namespace of our own (private, so
 * nothing propagates out): a test killed half-way leaves no mount behind.
 */
static int setup_tmpfs(void **state)
{
	struct tdir *d;

	if (setup_dir(state))
		return -1;
	d = *state;
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 0;
	d->mounted = mount("none", d->path, "tmpfs", 0, "size=64k") == 0;
	return 0;
}

static int teardown_dir(void **state)
{
	struct tdir *d = *state;

	if (d->mounted)
		umount(d->path);
	return tmpdir__fixture_free(state);
}

static int open_file(const struct tdir *d, const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	fd = open(path, flags | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	return fd;
}

/* The whole file, its size in *len. */
static unsigned char *slurp(int fd, size_t *len)
{
	struct stat st;
	unsigned char *p;

	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	*len = (size_t)st.st_size;
	return p;
}

/* fd holds exactly src[0, total). */
static void assert_file_holds(int fd, const unsigned char *src, size_t total)
{
	size_t len;
	unsigned char *file = slurp(fd, &len);

	assert_int_equal(len, total);
	assert_memory_equal(file, src, total);
	free(file);
}

/* Sizes that hit every path: empty, tiny, around the buffer size, huge. */
static size_t next_size(unsigned *seed, size_t buf_size)
{
	static const size_t special[] = { 0, 1, 7, 8 };
	unsigned r;

	*seed = *seed * 1103515245 + 12345;
	r = (*seed >> 8) % 16;
	if (r < 4)
		return special[r];
	if (r < 7)
		return buf_size - 1 + (r - 4);	/* size - 1, size, size + 1 */
	if (r == 7)
		return 3 * buf_size + 5;
	return (*seed >> 4) % 3000 + 1;
}

/*
 * Write a header placeholder of `off` bytes by hand, then a stream of many
 * write sizes through the writer starting at off; read the file back.
 */
static void stream_case_nr(const struct tdir *d, enum writer_kind kind,
			   size_t size, u64 off, int nr)
{
	unsigned char *src = pattern_buf(0, STREAM_MAX);
	unsigned char *hdr = malloc(off + 1);
	struct writer w;
	unsigned seed = (unsigned)size;
	size_t total = 0, len;
	unsigned char *file;
	int fd = open_file(d, "stream", O_RDWR);

	assert_non_null(hdr);
	memset(hdr, 'H', off);
	assert_int_equal(write(fd, hdr, off), (ssize_t)off);
	if (kind == WRITER_AIO)
		assert_int_equal(writer__open_aio(&w, fd, off, size, nr), 0);
	else
		assert_int_equal(writer__open_size(&w, kind, fd, off, size), 0);
	assert_false(w.pipe);
	for (;;) {
		size_t n = next_size(&seed, w.buf_size);

		if (n > STREAM_MAX - total)
			break;
		assert_int_equal(writer__write(&w, src + total, n), 0);
		total += n;
		assert_int_equal(w.bytes, total);
		assert_int_equal(w.offset, off + total);
		assert_true(w.written <= total);
	}
	/* The writer leaves the fd's own position alone. */
	assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)off);
	assert_int_equal(writer__flush(&w), 0);
	assert_int_equal(w.written, total);
	writer__close(&w);
	assert_int_equal(w.error, 0);
	assert_int_equal(w.offset, off + total);

	file = slurp(fd, &len);
	assert_int_equal(len, off + total);
	assert_memory_equal(file, hdr, off);
	assert_memory_equal(file + off, src, total);
	free(file);
	free(hdr);
	free(src);
	close(fd);
}

static void stream_case(const struct tdir *d, enum writer_kind kind,
			size_t size, u64 off)
{
	stream_case_nr(d, kind, size, off, WRITER_AIO_DEFAULT);
}

static void test_stream_write(void **state)
{
	stream_case(*state, WRITER_WRITE, 0, 104);	/* 1 MiB default */
	stream_case(*state, WRITER_WRITE, 4096, 0);
	stream_case(*state, WRITER_WRITE, 10000, 4096 + 104);
}

static void test_stream_mmap(void **state)
{
	/* Small windows: many moves, windows not starting at the offset. */
	stream_case(*state, WRITER_MMAP, 16384, 104);
	stream_case(*state, WRITER_MMAP, 65536, 4096);
	stream_case(*state, WRITER_MMAP, 0, 1000);	/* 64 MiB window */
}

static void test_stream_aio(void **state)
{
	int nr;

	for (nr = 1; nr <= WRITER_AIO_MAX; nr++) {
		stream_case_nr(*state, WRITER_AIO, 4096, 104, nr);
		stream_case_nr(*state, WRITER_AIO, 10000, 4096 + 104, nr);
	}
	stream_case(*state, WRITER_AIO, 0, 1000);	/* 1 MiB buffers, 1 in flight */
	stream_case_nr(*state, WRITER_AIO, 0, 0, WRITER_AIO_MAX);
}

/* Whether fd's file system reserves space with FALLOC_FL_KEEP_SIZE (tmpfs is left out by design). */
static bool can_reserve(int fd)
{
	struct statfs sfs;
	bool ok;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type == TMPFS_MAGIC)
		return false;
	ok = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
	assert_int_equal(ftruncate(fd, 0), 0);	/* gives the probe's block back */
	return ok;
}

static u64 allocated(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (u64)st.st_blocks * 512;
}

/*
 * writer__prealloc(): while writing, the file holds space a step ahead and
 * its size is always the bytes written; close gives the rest back and the
 * bytes are the stream's. Where the file system cannot reserve, nothing is.
 */
static void prealloc_case(const struct tdir *d, enum writer_kind kind)
{
	const u64 step = 1 << 20, total = 300000;
	unsigned char *src = pattern_buf(0, total);
	struct writer w;
	size_t len;
	u64 done;
	unsigned char *file;
	int fd = open_file(d, "pre", O_RDWR);
	bool reserves = can_reserve(fd);

	if (kind == WRITER_AIO)
		assert_int_equal(writer__open_aio(&w, fd, 0, 16384, 2), 0);
	else
		assert_int_equal(writer__open_size(&w, kind, fd, 0, 16384), 0);
	writer__prealloc(&w, step);
	for (done = 0; done < total; done += 3000)
		assert_int_equal(writer__write(&w, src + done, 3000), 0);
	assert_int_equal(writer__flush(&w), 0);
	file = slurp(fd, &len);
	assert_int_equal(len, total);		/* the size is what was written */
	free(file);
	if (reserves)
		assert_true(allocated(fd) >= step);
	else
		assert_true(allocated(fd) < step);
	writer__close(&w);
	assert_int_equal(w.error, 0);
	assert_true(allocated(fd) < step);	/* given back */
	assert_file_holds(fd, src, total);
	free(src);
	close(fd);
}

static void test_prealloc(void **state)
{
	prealloc_case(*state, WRITER_WRITE);
	prealloc_case(*state, WRITER_AIO);
}

/* Reserving never applies to the mmap writer (it reserves its own way) or a pipe. */
static void test_prealloc_not_applied(void **state)
{
	struct writer w;
	int fd = open_file(*state, "mm", O_RDWR), p[2];

	assert_int_equal(writer__open_size(&w, WRITER_MMAP, fd, 0, 16384), 0);
	writer__prealloc(&w, 1 << 20);
	assert_int_equal(w.pre.step, 0);
	writer__close(&w);
	close(fd);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(writer__open(&w, WRITER_WRITE, p[1], 0), 0);
	writer__prealloc(&w, 1 << 20);
	assert_int_equal(w.pre.step, 0);
	assert_int_equal(writer__write(&w, "abcd", 4), 0);
	writer__close(&w);
	assert_int_equal(w.error, 0);
	close(p[1]);
	close(p[0]);
}

/* WRITER_MMAP reserves ahead, then flush cuts the file to its true size. */
static void test_mmap_size(void **state)
{
	unsigned char *src = pattern_buf(0, 5000);
	struct writer w;
	struct stat st;
	int fd = open_file(*state, "size", O_RDWR);

	assert_int_equal(writer__open_size(&w, WRITER_MMAP, fd, 0, 65536), 0);
	assert_int_equal(writer__write(&w, src, 5000), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 65536);
	assert_int_equal(writer__flush(&w), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 5000);
	/* Writing on after a flush grows it again. */
	assert_int_equal(writer__write(&w, src, 5000), 0);
	writer__close(&w);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 10000);
	free(src);
	close(fd);
}

/*
 * writer__writev(): staged bytes first, then the iovecs in order, from the
 * caller's buffers (WRITER_WRITE), or one write each (the others); a pipe
 * gets the same bytes.
 */
static void writev_case(const struct tdir *d, enum writer_kind kind, bool pipe_out)
{
	unsigned char *src = pattern_buf(0, 300000), *got;
	struct iovec iov[3000];
	struct writer w;
	size_t off = 0, len;
	int i, fd, p[2] = { -1, -1 };

	if (pipe_out) {
		assert_int_equal(pipe(p), 0);
		assert_true(fcntl(p[0], F_SETPIPE_SZ, 1 << 20) > 0);
		fd = p[1];
	} else {
		fd = open_file(d, "writev", O_RDWR);
	}
	assert_int_equal(writer__open_size(&w, kind, fd, 0, 4096), 0);
	assert_int_equal(writer__write(&w, src, 1000), 0);	/* staged */
	off = 1000;
	for (i = 0; i < 3000 && off < 300000; i++) {	/* more than IOV_MAX */
		size_t n = (size_t)(i % 7) * 13 + 1;

		iov[i] = (struct iovec){ src + off, n };
		off += n;
	}
	assert_int_equal(writer__writev(&w, iov, i), 0);
	assert_int_equal(w.bytes, off);
	assert_int_equal(writer__write(&w, src + off, 10), 0);
	off += 10;
	writer__close(&w);
	assert_int_equal(w.error, 0);
	assert_int_equal(w.written, off);
	if (pipe_out) {
		close(p[1]);
		got = malloc(off);
		assert_non_null(got);
		assert_int_equal(read(p[0], got, off), (ssize_t)off);
		len = off;
		close(p[0]);
	} else {
		got = slurp(fd, &len);
		close(fd);
	}
	assert_int_equal(len, off);
	assert_memory_equal(got, src, off);
	free(got);
	free(src);
}

static void test_writev(void **state)
{
	writev_case(*state, WRITER_WRITE, false);
	writev_case(*state, WRITER_MMAP, false);
	writev_case(*state, WRITER_AIO, false);
	writev_case(*state, WRITER_WRITE, true);
}

/*
 * Several writers of one file, each in its own range of space the caller
 * allocated (a parallel merge's parts): none cuts the file; then a writer
 * on before them counts their bytes (writer__skip()) and goes on after
 * them.
 */
static void test_ranges_then_skip(void **state)
{
	unsigned char *src = pattern_buf(0, 40000);
	struct writer w[3], head;
	struct stat st;
	int i, fd = open_file(*state, "ranges", O_RDWR);

	assert_int_equal(writer__open(&head, WRITER_WRITE, fd, 0), 0);
	assert_int_equal(writer__write(&head, src, 1000), 0);
	assert_int_equal(writer__flush(&head), 0);
	assert_int_equal(posix_fallocate(fd, 1000, 30000), 0);
	for (i = 2; i >= 0; i--) {	/* the last range first */
		u64 at = 1000 + 10000 * (u64)i;

		assert_int_equal(writer__open_size(&w[i], WRITER_WRITE, fd, at, 8192), 0);
		assert_int_equal(writer__write(&w[i], src + at, 10000), 0);
		assert_int_equal(writer__flush(&w[i]), 0);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 31000);	/* not cut */
		writer__close(&w[i]);
		assert_int_equal(w[i].error, 0);
	}
	assert_int_equal(writer__skip(&head, 30000), 0);
	assert_int_equal(head.offset, 31000);
	assert_int_equal(writer__write(&head, src + 31000, 9000), 0);
	writer__close(&head);
	assert_int_equal(head.bytes, 40000);
	assert_file_holds(fd, src, 40000);
	free(src);
	close(fd);
}

static void test_mmap_needs_rdwr(void **state)
{
	struct writer w;
	int fd = open_file(*state, "wronly", O_WRONLY);
	int p[2];

	assert_int_equal(writer__open(&w, WRITER_MMAP, fd, 0), -EACCES);
	close(fd);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(writer__open(&w, WRITER_MMAP, p[1], 0), -ESPIPE);
	close(p[0]);
	close(p[1]);
}

static void test_open_close_edges(void **state)
{
	struct writer w;
	int fd = open_file(*state, "edges", O_RDWR);

	assert_int_equal(writer__open(&w, (enum writer_kind)99, fd, 0), -EINVAL);
	assert_int_equal(writer__open(&w, WRITER_WRITE, -1, 0), -EBADF);
	memset(&w, 0, sizeof(w));
	writer__close(&w);
	writer__close(NULL);
	assert_int_equal(writer__open(&w, WRITER_WRITE, fd, 0), 0);
	assert_int_equal(writer__sink(&w, "abc", 3), 0);
	writer__close(&w);
	writer__close(&w);
	assert_int_equal(w.written, 3);
	assert_int_equal(writer__write(&w, "d", 1), -EBADF);
	assert_int_equal(writer__flush(&w), 0);
	close(fd);
}

/*
 * A 4 KiB pipe that a child reads slowly into d's "piped", so writes come
 * back short: its write end, the child in *pid.
 */
static int slow_pipe(const struct tdir *d, pid_t *pid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		char buf[1500];
		ssize_t n;
		int out = open_file(d, "piped", O_WRONLY);

		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) > 0) {
			if (write(out, buf, (size_t)n) != n)
				_exit(2);
			usleep(20);
		}
		_exit(n == 0 ? 0 : 3);
	}
	close(p[0]);
	return p[1];
}

/* slow_pipe()'s end closed: the child read it all, and "piped" holds the len bytes of src. */
static void slow_pipe_check(const struct tdir *d, int wfd, pid_t pid, const unsigned char *src,
			    size_t len)
{
	char path[128];
	int status, fd;

	close(wfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "%s/piped", d->path);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_file_holds(fd, src, len);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void pipe_case(const struct tdir *d, enum writer_kind kind, bool nonblock,
		      bool signals)
{
	const size_t total = 1 << 20;
	unsigned char *src = pattern_buf(0, total);
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { { 0, 500 }, { 0, 500 } }, off_it = { 0 };
	struct writer w;
	size_t done = 0;
	pid_t pid;
	int wfd = slow_pipe(d, &pid);

	if (nonblock)
		assert_int_equal(fcntl(wfd, F_SETFL, O_NONBLOCK), 0);
	if (signals) {
		sigemptyset(&sa.sa_mask);	/* no SA_RESTART: EINTR and short writes */
		assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
		assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	}
	if (kind == WRITER_AIO)
		assert_int_equal(writer__open_aio(&w, wfd, 0, 8192, 3), 0);
	else
		assert_int_equal(writer__open_size(&w, kind, wfd, 0, 8192), 0);
	assert_true(w.pipe);
	while (done < total) {
		size_t n = done % 3 ? 3000 : 70000;

		if (n > total - done)
			n = total - done;
		assert_int_equal(writer__write(&w, src + done, n), 0);
		done += n;
	}
	assert_int_equal(writer__flush(&w), 0);
	if (signals) {
		setitimer(ITIMER_REAL, &off_it, NULL);
		sigaction(SIGALRM, &old, NULL);
	}
	assert_int_equal(w.written, total);
	assert_int_equal(w.offset, total);
	writer__close(&w);
	slow_pipe_check(d, wfd, pid, src, total);
	free(src);
}

static void test_pipe_nonblocking(void **state)
{
	pipe_case(*state, WRITER_WRITE, true, false);	/* short writes and EAGAIN, for sure */
	pipe_case(*state, WRITER_AIO, true, false);
}

static void test_pipe_signals(void **state)
{
	pipe_case(*state, WRITER_WRITE, false, true);	/* short writes and EINTR */
	pipe_case(*state, WRITER_AIO, false, true);
}

/*
 * Files this process writes may grow to `limit` bytes: a write crossing it
 * comes back short and the next fails with EFBIG (SIGXFSZ ignored, so the
 * process lives). *old keeps the limit fsize_restore() puts back.
 */
static void fsize_limit(struct rlimit *old, rlim_t limit)
{
	struct rlimit lim = { .rlim_cur = limit };

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
	lim.rlim_max = old->rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void fsize_restore(const struct rlimit *old)
{
	setrlimit(RLIMIT_FSIZE, old);
	signal(SIGXFSZ, SIG_DFL);
}

/* After EFBIG, w stays failed through write, flush and close; fd holds src's first `kept` bytes. */
static void check_sticky_efbig(struct writer *w, int fd, const unsigned char *src, size_t kept)
{
	assert_int_equal(writer__write(w, src, 1), -EFBIG);
	assert_int_equal(writer__flush(w), -EFBIG);
	writer__close(w);
	assert_int_equal(w->error, -EFBIG);
	assert_file_holds(fd, src, kept);
}

/*
 * RLIMIT_FSIZE makes a write crossing the limit come back short, and the
 * next one fail with EFBIG: the short count must be honoured (the bytes that
 * reached the file are kept), and the error be sticky.
 */
/*
 * Up to n 3000-byte writes of src through w (opened on a file of its own)
 * until one fails, the file limited to 10000 bytes; then a flush when none
 * failed and flush is set.  The error; *nr, the writes made.
 */
static int write_past_limit(struct writer *w, const unsigned char *src, int n, bool flush,
			    int *nr)
{
	struct rlimit old;
	int i, err = 0;

	fsize_limit(&old, 10000);
	for (i = 0; i < n && !err; i++)
		err = writer__write(w, src + 3000 * i, 3000);
	if (!err && flush)
		err = writer__flush(w);
	fsize_restore(&old);
	*nr = i;
	return err;
}

static void test_short_write_then_error(void **state)
{
	unsigned char *src = pattern_buf(0, 30000);
	struct writer w;
	int fd = open_file(*state, "fsize", O_RDWR);
	int i, err;

	assert_int_equal(writer__open_size(&w, WRITER_WRITE, fd, 0, 4096), 0);
	/* 3000-byte writes: flushed at 3000, 6000, 9000; then 9000-12000 fails. */
	err = write_past_limit(&w, src, 10, false, &i);
	assert_int_equal(err, -EFBIG);
	assert_int_equal(i, 5);
	assert_int_equal(w.error, -EFBIG);
	assert_int_equal(w.written, 10000);	/* 9000 + the short part up to the limit */
	assert_int_equal(w.bytes, 12000);	/* the 4th was accepted (staged) */
	check_sticky_efbig(&w, fd, src, 10000);
	free(src);
	close(fd);
}

/*
 * A region writer (a part of a parallel merge) that fails half-way leaves
 * the file as it was around it: what lies past its region stays.
 */
static void test_region_error_keeps_file(void **state)
{
	struct tdir *d = *state;
	unsigned char *src = pattern_buf(0, 3 * 8192);
	struct rlimit old;
	struct writer w;
	int fd = open_file(d, "region", O_RDWR), err;

	assert_int_equal(pwrite(fd, src, 3 * 8192, 0), 3 * 8192);
	fsize_limit(&old, 12000);
	/* the middle region again: its write crosses the limit at 12000 */
	assert_int_equal(writer__open_region(&w, fd, 8192, 8192, 4096), 0);
	err = writer__write(&w, src + 8192, 8192);
	if (!err)
		err = writer__flush(&w);
	fsize_restore(&old);
	assert_int_equal(err, -EFBIG);
	writer__close(&w);

	assert_file_holds(fd, src, 3 * 8192);
	free(src);
	close(fd);
}

static void full_disk_case_nr(const struct tdir *d, enum writer_kind kind,
			      size_t size, int nr)
{
	const size_t chunk = 1000;
	unsigned char *src = pattern_buf(0, 1 << 20);
	struct writer w;
	size_t total = 0;
	int fd = open_file(d, "full", O_RDWR);	/* O_TRUNC frees the disk */
	int err = 0;

	if (kind == WRITER_AIO)
		assert_int_equal(writer__open_aio(&w, fd, 0, size, nr), 0);
	else
		assert_int_equal(writer__open_size(&w, kind, fd, 0, size), 0);
	while (!err && total + chunk <= (1 << 20)) {
		err = writer__write(&w, src + total, chunk);
		if (!err)
			total += chunk;
	}
	if (!err)
		err = writer__flush(&w);
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(w.error, -ENOSPC);
	assert_int_equal(writer__write(&w, src, 8), -ENOSPC);
	assert_int_equal(writer__flush(&w), -ENOSPC);
	writer__close(&w);
	assert_int_equal(w.error, -ENOSPC);

	/* What reached the disk is there, byte for byte, and nothing more. */
	assert_true(w.written >= 32 * 1024);
	assert_file_holds(fd, src, w.written);
	free(src);
	close(fd);
}

static void full_disk_case(const struct tdir *d, enum writer_kind kind,
			   size_t size)
{
	full_disk_case_nr(d, kind, size, WRITER_AIO_DEFAULT);
}

static void test_full_disk(void **state)
{
	struct tdir *d = *state;

	if (!d->mounted) {
		print_message("cannot mount a tmpfs (%s); skipped\n", strerror(errno));
		skip();
	}
	full_disk_case(d, WRITER_WRITE, 16384);
	full_disk_case(d, WRITER_MMAP, 16384);
	full_disk_case(d, WRITER_MMAP, 0);	/* a 64 MiB chunk cannot fit */
}

/*
 * Two mmap writers on one small disk (the per-ring files of a recording):
 * the first, which writes a record and then nothing, keeps no more than a
 * page of the disk, so the second can fill the rest. (A reservation that
 * halved its step on ENOSPC handed the first half the disk.)
 */
static void test_full_disk_shared(void **state)
{
	struct tdir *d = *state;
	const size_t chunk = 1000;
	unsigned char *src;
	struct writer a, b;
	struct statvfs sv;
	size_t total = 0;
	int fa, fb, err = 0;

	if (!d->mounted) {
		print_message("cannot mount a tmpfs (%s); skipped\n", strerror(errno));
		skip();
	}
	src = pattern_buf(0, 1 << 20);
	fa = open_file(d, "a", O_RDWR);
	fb = open_file(d, "b", O_RDWR);
	assert_int_equal(statvfs(d->path, &sv), 0);
	assert_int_equal(writer__open_size(&a, WRITER_MMAP, fa, 0, 0), 0);
	assert_int_equal(writer__open_size(&b, WRITER_MMAP, fb, 0, 0), 0);
	assert_int_equal(writer__write(&a, src, 100), 0);
	while (!err && total + chunk <= (1 << 20)) {
		err = writer__write(&b, src + total, chunk);
		if (!err)
			total += chunk;
	}
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(writer__flush(&a), 0);
	writer__close(&a);
	writer__close(&b);
	assert_int_equal(a.error, 0);
	assert_int_equal(a.written, 100);
	/* b has all of the disk but a's page and the last partial chunk. */
	assert_true(b.written + (u64)sysconf(_SC_PAGESIZE) + chunk >= (u64)sv.f_bavail * sv.f_frsize);
	free(src);
	close(fa);
	close(fb);
}

/* The mode of the policy on the page at p (MPOL_DEFAULT: none of its own). */
static int page_policy(void *p)
{
	int mode = -1;

	assert_int_equal(get_mempolicy(&mode, NULL, 0, p, MPOL_F_ADDR), 0);
	return mode;
}

/*
 * writer__bind_node(): a writer opened on one thread for a streaming thread
 * of a node gets its buffers preferred on that node (node 0 here), data
 * staged before the move intact.
 */
static void test_bind_node(void **state)
{
	struct tdir *d = *state;
	unsigned char *src = pattern_buf(0, 8192), *big;
	struct writer w;
	int fd, i, node = -1;

	fd = open_file(d, "bind", O_RDWR);
	assert_int_equal(writer__open_size(&w, WRITER_WRITE, fd, 0, 65536), 0);
	assert_int_equal(writer__write(&w, src, 4096), 0);
	assert_int_equal(page_policy(w.buf), MPOL_DEFAULT);
	assert_int_equal(writer__bind_node(&w, 0), 0);
	assert_int_equal(page_policy(w.buf), MPOL_PREFERRED);
	assert_int_equal(page_policy(w.buf + 65536 - 1), MPOL_PREFERRED);
	assert_int_equal(get_mempolicy(&node, NULL, 0, w.buf, MPOL_F_NODE | MPOL_F_ADDR), 0);
	assert_int_equal(node, 0);
	assert_int_equal(writer__bind_node(&w, -1), -EINVAL);
	assert_int_equal(writer__write(&w, src + 4096, 4096), 0);
	writer__close(&w);
	assert_file_holds(fd, src, 8192);
	close(fd);

	/* aio: each slot in turn becomes the buffer being filled */
	big = pattern_buf(1, 4 * 65536);
	fd = open_file(d, "bind_aio", O_RDWR);
	assert_int_equal(writer__open_aio(&w, fd, 0, 65536, 2), 0);
	assert_int_equal(writer__write(&w, big, 8192), 0);
	assert_int_equal(writer__bind_node(&w, 0), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(page_policy(w.buf), MPOL_PREFERRED);
		assert_int_equal(writer__write(&w, big + 8192 + 65536 * (size_t)i,
					       i < 3 ? 65536 : 65536 - 8192), 0);
	}
	writer__close(&w);
	assert_file_holds(fd, big, 4 * 65536);
	free(big);
	close(fd);

	fd = open_file(d, "bind_mmap", O_RDWR);
	assert_int_equal(writer__open_size(&w, WRITER_MMAP, fd, 0, 65536), 0);
	assert_int_equal(writer__bind_node(&w, 0), 0);	/* page cache: nothing to move */
	writer__close(&w);
	close(fd);
	free(src);
}

/* writev on a full disk: -ENOSPC, what reached the file counted, the file cut there. */
static void test_writev_full_disk(void **state)
{
	struct tdir *d = *state;
	unsigned char *src = pattern_buf(0, 100000);
	struct iovec iov[100];
	struct writer w;
	int i, fd;

	if (!d->mounted) {
		print_message("cannot mount a tmpfs (%s); skipped\n", strerror(errno));
		skip();
	}
	fd = open_file(d, "full", O_RDWR);
	for (i = 0; i < 100; i++)
		iov[i] = (struct iovec){ src + 1000 * i, 1000 };
	assert_int_equal(writer__open_size(&w, WRITER_WRITE, fd, 0, 4096), 0);
	assert_int_equal(writer__writev(&w, iov, 100), -ENOSPC);
	assert_int_equal(writer__write(&w, src, 1), -ENOSPC);	/* sticky */
	assert_true(w.written > 0 && w.written < 100000);
	writer__close(&w);
	assert_file_holds(fd, src, w.written);
	free(src);
	close(fd);
}

static void test_full_disk_aio(void **state)
{
	struct tdir *d = *state;
	int nr;

	if (!d->mounted) {
		print_message("cannot mount a tmpfs (%s); skipped\n", strerror(errno));
		skip();
	}
	for (nr = 1; nr <= WRITER_AIO_MAX; nr++)
		full_disk_case_nr(d, WRITER_AIO, 16384, nr);
	full_disk_case_nr(d, WRITER_AIO, 5000, 2);	/* buffers across pages */
	full_disk_case(d, WRITER_AIO, 0);	/* one 1 MiB buffer: a short write */
}

/*
 * RLIMIT_FSIZE under WRITER_AIO: the writer thread's write comes back
 * short, the next fails; the caller learns it at a later write or flush,
 * every byte below the limit is kept and counted, the error is sticky.
 */
static void test_aio_short_write_then_error(void **state)
{
	unsigned char *src = pattern_buf(0, 60000);
	struct writer w;
	int fd = open_file(*state, "fsize", O_RDWR);
	int i, err;

	assert_int_equal(writer__open_aio(&w, fd, 0, 4096, 2), 0);
	/* 4096-byte buffers: [8192, 12288) crosses the limit. */
	err = write_past_limit(&w, src, 20, true, &i);
	assert_int_equal(err, -EFBIG);
	assert_int_equal(w.error, -EFBIG);
	assert_int_equal(w.written, 10000);
	check_sticky_efbig(&w, fd, src, 10000);
	free(src);
	close(fd);
}

/*
 * What a flush means: every byte written before it is in the file (read
 * through another descriptor), in order, and written == bytes; writes
 * after it go on behind it.
 */
static void test_aio_flush(void **state)
{
	unsigned char *src = pattern_buf(0, 1 << 20);
	struct writer w;
	size_t total = 0;
	unsigned seed = 99;
	int fd = open_file(*state, "flush", O_RDWR);
	int round, nr;

	for (nr = 1; nr <= WRITER_AIO_MAX; nr++) {
		assert_int_equal(ftruncate(fd, 0), 0);
		total = 0;
		assert_int_equal(writer__open_aio(&w, fd, 0, 8192, nr), 0);
		for (round = 0; round < 40; round++) {
			size_t n = next_size(&seed, 8192) % 20000 + 1;

			if (n > (1u << 20) - total)
				break;
			assert_int_equal(writer__write(&w, src + total, n), 0);
			total += n;
			if (round % 3)
				continue;
			assert_int_equal(writer__flush(&w), 0);
			assert_int_equal(w.written, total);
			assert_int_equal(w.bytes, total);
			assert_file_holds(fd, src, total);
		}
		writer__close(&w);
		assert_int_equal(w.written, total);
		assert_file_holds(fd, src, total);
	}
	free(src);
	close(fd);
}

/*
 * How far the file may lag: at most nr buffers in flight plus the one
 * being filled, so after k full buffers at least k - nr are written. The
 * output is a pipe drained slowly by a child, so the writer thread is
 * slower than the caller and the caller has to wait for it.
 */
static void test_aio_in_flight(void **state)
{
	const size_t size = 16384, k_max = 24;
	const struct tdir *d = *state;
	unsigned char *src = pattern_buf(0, k_max * size);
	struct writer w;
	size_t k;
	int nr, wfd;
	pid_t pid;

	for (nr = 1; nr <= WRITER_AIO_MAX; nr++) {
		wfd = slow_pipe(d, &pid);
		assert_int_equal(writer__open_aio(&w, wfd, 0, size, nr), 0);
		for (k = 1; k <= k_max; k++) {
			assert_int_equal(writer__write(&w, src + (k - 1) * size, size), 0);
			assert_true(w.written <= k * size);
			if (k > (size_t)nr)
				assert_true(w.written >= (k - nr) * size);
			assert_int_equal(w.written % size, 0);	/* whole buffers */
		}
		writer__close(&w);
		assert_int_equal(w.written, k_max * size);
		slow_pipe_check(d, wfd, pid, src, k_max * size);
	}
	free(src);
}

/* Threads of this process whose name starts with comm. */
static int count_tasks(const char *comm)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	char path[300], name[32];
	int n = 0;

	assert_non_null(dir);
	while ((de = readdir(dir))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, comm, strlen(comm)))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/* The writer thread: named, one per writer, gone after close; bad nr. */
static void test_aio_thread(void **state)
{
	struct writer w, w2;
	int fd = open_file(*state, "thread", O_RDWR);
	int before = count_tasks("prec-aio");

	assert_int_equal(writer__open_aio(&w, fd, 0, 0, 0), -EINVAL);
	assert_int_equal(writer__open_aio(&w, fd, 0, 0, WRITER_AIO_MAX + 1), -EINVAL);
	assert_int_equal(writer__open_aio(&w, -1, 0, 0, 1), -EBADF);
	assert_int_equal(count_tasks("prec-aio"), before);
	assert_int_equal(writer__open(&w, WRITER_AIO, fd, 0), 0);
	assert_int_equal(writer__open_aio(&w2, fd, 1 << 20, 4096, 2), 0);
	assert_int_equal(count_tasks("prec-aio"), before + 2);
	assert_int_equal(writer__write(&w, "abc", 3), 0);
	assert_int_equal(writer__write(&w2, "defg", 4), 0);
	writer__close(&w);
	writer__close(&w2);
	assert_int_equal(count_tasks("prec-aio"), before);
	assert_int_equal(w.written, 3);
	assert_int_equal(w2.written, 4);
	assert_int_equal(writer__write(&w, "d", 1), -EBADF);
	assert_int_equal(writer__flush(&w), 0);
	writer__close(&w);
	close(fd);
}

/*
 * A process killed with SIGKILL while the mmap writer copies a run of
 * records into its window leaves no record with a partial body: the first
 * bytes of each write (the first record's header) are stored last, so a
 * walk over the file from its start stops at a zero header where the copy
 * was cut, never inside a record it believes whole.
 */
#define KILL_REC_SIZE	60000
#define KILL_RUN_RECS	16

struct kill_hdr {	/* the layout of struct perf_event_header */
	uint32_t	type;
	uint16_t	misc;
	uint16_t	size;
};

static void kill_child_write(int fd)
{
	size_t run = (size_t)KILL_REC_SIZE * KILL_RUN_RECS;
	unsigned char *buf = malloc(run);
	struct writer w;
	int i, n;

	if (!buf || writer__open_size(&w, WRITER_MMAP, fd, 0, 8 << 20))
		_exit(2);
	memset(buf, 0xa5, run);
	for (i = 0; i < KILL_RUN_RECS; i++) {
		struct kill_hdr h = { .type = 1, .size = KILL_REC_SIZE };

		memcpy(buf + (size_t)i * KILL_REC_SIZE, &h, sizeof(h));
	}
	for (n = 0; n < 512; n++)	/* 480 MB at most: here the parent kills it long before */
		if (writer__write(&w, buf, run))
			_exit(3);
	for (;;)			/* a faster machine: wait for the kill all the same */
		pause();
}

/* Records from the start: whole ones (all 0xa5 after the header) until a zero header. */
static int kill_check_file(int fd, int *whole)
{
	size_t len, pos = 0, i;
	unsigned char *p = slurp(fd, &len);
	int bad = 0;

	*whole = 0;
	while (pos + sizeof(struct kill_hdr) <= len) {
		struct kill_hdr h;

		memcpy(&h, p + pos, sizeof(h));
		if (!h.size)
			break;
		if (h.type != 1 || h.size != KILL_REC_SIZE || pos + h.size > len) {
			bad++;
			break;
		}
		for (i = sizeof(h); i < h.size; i++)
			if (p[pos + i] != 0xa5)
				break;
		if (i < h.size) {
			bad++;
			break;
		}
		(*whole)++;
		pos += h.size;
	}
	free(p);
	return bad;
}

static void test_mmap_killed_mid_copy(void **state)
{
	int round, bad = 0, least = -1, most = 0;

	for (round = 0; round < 12; round++) {
		int fd = open_file(*state, "killed", O_RDWR), st, whole;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0)
			kill_child_write(fd);
		usleep(20000 + (useconds_t)round * 7000);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (WIFEXITED(st))
			fail_msg("the writer failed (exit %d)", WEXITSTATUS(st));
		bad += kill_check_file(fd, &whole);
		if (least < 0 || whole < least)
			least = whole;
		if (whole > most)
			most = whole;
		close(fd);
	}
	if (bad)
		fail_msg("%d of 12 files killed mid-copy keep a record with a partial body", bad);
	assert_true(most > 0);	/* it was writing when it was killed */
	print_message("12 writers killed: %d to %d whole records kept, no partial one\n",
		      least, most);
}

#define dir_test(f)	cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)
#define tmpfs_test(f)	cmocka_unit_test_setup_teardown(f, setup_tmpfs, teardown_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		dir_test(test_stream_write),
		dir_test(test_stream_mmap),
		dir_test(test_mmap_size),
		dir_test(test_prealloc),
		dir_test(test_prealloc_not_applied),
		dir_test(test_mmap_needs_rdwr),
		dir_test(test_writev),
		dir_test(test_ranges_then_skip),
		dir_test(test_open_close_edges),
		dir_test(test_pipe_nonblocking),
		dir_test(test_pipe_signals),
		dir_test(test_short_write_then_error),
		tmpfs_test(test_full_disk),
		tmpfs_test(test_full_disk_shared),
		dir_test(test_bind_node),
		dir_test(test_region_error_keeps_file),
		dir_test(test_stream_aio),
		dir_test(test_aio_short_write_then_error),
		dir_test(test_aio_flush),
		dir_test(test_aio_in_flight),
		dir_test(test_aio_thread),
		tmpfs_test(test_full_disk_aio),
		tmpfs_test(test_writev_full_disk),
		dir_test(test_mmap_killed_mid_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
