// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize.c — the records perf record writes before the kernel's stream
 * to describe what already runs: FORK/COMM/MMAP2 of tasks read from /proc,
 * the kernel and module maps, ID_INDEX, FINISHED_INIT/FINISHED_ROUND.
 *
 * Data flow: each public function builds one record at a time in a scratch
 * buffer on its own stack (struct synth), appends the zeroed sample_id
 * trailer (opts->id_hdr_size bytes) and hands it to the caller's emit
 * callback. The first emit failure stops everything and is returned as is;
 * a failure to read /proc (a task that exited, a maps file we may not read)
 * only skips that task.
 *
 * Threads: any. Nothing here is global; a call touches only its stack, the
 * files it reads, opts->stats (relaxed atomics: independent counters read
 * after the workers are joined) and opts->bid_cache (locked inside).
 *
 * Parallel walk (synthesize__all_parallel): N participants (the caller and
 * N - 1 pool workers, through wq__parallel_for() over N indexes) claim the
 * pids of /proc one at a time from an atomic cursor and append whole
 * processes to their own growable buffers, without locks. A process of
 * more than SYNTH_SPLIT_TASKS tasks is split: whoever claimed it publishes
 * its task list in pieces of SYNTH_PIECE_TASKS tids while still reading
 * it, and any participant out of pids synthesizes pieces (a mutex guards
 * only that list of pieces), so one process of 10 000 threads spreads over
 * every participant. Once all are done, the caller emits the buffered
 * records in pid order (pieces in task order), from its own thread: the
 * serial walk's records in the serial walk's order. Memory: every record
 * of the walk is held until it ends.
 *
 * Fidelity: record layouts, the order of records and the choice of which
 * mappings are written follow perf 6.1 (tools/perf/util/synthetic-events.c,
 * machine.c): FORK+COMM for every task system-wide, COMM only for a thread
 * map, MMAP2 only for the leader's executable maps, the map read cut off
 * after proc_map_timeout_ms with the last record flagged
 * PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT, the kernel map "[kernel.kallsyms]_text"
 * from _text to _etext with pgoff = _text, modules by address.
 *
 * NAMESPACES (--namespaces) follow each task's FORK (system-wide) or COMM
 * (thread map); CGROUP records (--all-cgroups) come from a walk of the
 * cgroup hierarchy perf would walk, named below its mount point.
 *
 * Limits: no guest machines; build ids of
 * compressed modules come only from /sys/module (not by decompressing).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/threadmap.h"
#include "wq.h"

#define ID_HDR_MAX	64	/* sample_id trailer: 6 u64 at most today */
/* perf leaves room for the optional {machine_pid, vcpu} part of each entry. */
#define ID_INDEX_MAX_NR	((UINT16_MAX - sizeof(struct perf_record_id_index)) / \
			 (sizeof(struct id_index_entry) + 2 * sizeof(u64)))
#define LINE_BUF	16384	/* longest /proc line kept whole */

/* One synthesis call: options, where records go, and the record being built. */
struct synth {
	const struct synth_opts	*o;
	synth_emit_fn		emit;
	void			*ctx;
	int			emit_err;	/* first emit failure: stops everything */
	char			rec[sizeof(struct perf_record_mmap2) + ID_HDR_MAX]
				__attribute__((aligned(8)));
};

static int synth__init(struct synth *s, const struct synth_opts *o,
		       synth_emit_fn emit, void *ctx)
{
	if (!o || !emit || o->id_hdr_size % 8 || o->id_hdr_size > ID_HDR_MAX)
		return -EINVAL;
	s->o = o;
	s->emit = emit;
	s->ctx = ctx;
	s->emit_err = 0;
	return 0;
}

void synth_opts__init(struct synth_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->proc_map_timeout_ms = 500;
}

/* A file's location: the test fixture's when opts->paths names one. */
#define SYNTH_PATH(_o, _field, _def) \
	((_o)->paths && (_o)->paths->_field ? (_o)->paths->_field : (_def))

static u64 synth__now(const struct synth *s)
{
	struct timespec ts;

	if (s->o->clock)
		return s->o->clock(s->o->clock_ctx);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static void stats__vanished(const struct synth_opts *o)
{
	if (o->stats)
		__atomic_fetch_add(&o->stats->nr_vanished, 1, __ATOMIC_RELAXED);
}

static void stats__timeout(const struct synth_opts *o, pid_t pid)
{
	pid_t none = 0;

	if (!o->stats)
		return;
	__atomic_fetch_add(&o->stats->nr_map_timeouts, 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&o->stats->first_timeout_pid, &none, pid, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Copy src (at most max - 1 bytes) to dst and pad with NULs to a multiple
 * of 8 including the terminator. Returns the padded length.
 */
static size_t put_str(char *dst, const char *src, size_t max)
{
	size_t len = strnlen(src, max - 1);
	size_t padded = (len + 1 + 7) & ~(size_t)7;

	memcpy(dst, src, len);
	memset(dst + len, 0, padded - len);
	return padded;
}

/* Append the zeroed trailer, set header.size and hand the record over. */
static int synth__emit(struct synth *s, size_t size)
{
	struct perf_event_header *h = (struct perf_event_header *)s->rec;
	int err;

	memset(s->rec + size, 0, s->o->id_hdr_size);
	size += s->o->id_hdr_size;
	h->size = (u16)size;
	err = s->emit(s->ctx, s->rec, size);
	if (err) {
		s->emit_err = err < 0 ? err : -EIO;
		return s->emit_err;
	}
	return 0;
}

/* "1234" → 1234; anything else (".", "self", "12a") → -1. */
static pid_t parse_pid(const char *name)
{
	long v = 0;

	if (!isdigit((unsigned char)*name))
		return -1;
	for (; *name; name++) {
		if (!isdigit((unsigned char)*name) || v > 0x3fffffff)
			return -1;
		v = v * 10 + (*name - '0');
	}
	return v > 0 ? (pid_t)v : -1;
}

/* ---- line reader ------------------------------------------------------ */

struct line_reader {
	int	fd;
	size_t	start, end;
	bool	eof;
	bool	skip_rest;	/* the line being read was too long: drop its tail */
	char	buf[LINE_BUF + 1];
};

static void line_reader__init(struct line_reader *r, int fd)
{
	r->fd = fd;
	r->start = r->end = 0;
	r->eof = r->skip_rest = false;
}

static bool line_reader__fill(struct line_reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	do {
		n = read(r->fd, r->buf + r->end, LINE_BUF - r->end);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		r->eof = true;
		return false;
	}
	r->end += (size_t)n;
	return true;
}

/* The next line, NUL-terminated without its '\n', or NULL at the end. */
static char *line_reader__next(struct line_reader *r)
{
	for (;;) {
		char *line = r->buf + r->start;
		char *nl = memchr(line, '\n', r->end - r->start);

		if (r->skip_rest) {
			r->start = nl ? (size_t)(nl - r->buf) + 1 : r->end;
			r->skip_rest = !nl;
			if (nl)
				continue;
		} else if (nl) {
			*nl = '\0';
			r->start = (size_t)(nl - r->buf) + 1;
			return line;
		} else if (r->end - r->start == LINE_BUF) {
			r->buf[r->end] = '\0';	/* cut an overlong line */
			r->start = r->end;
			r->skip_rest = true;
			return line;
		} else if (r->eof && r->start < r->end) {
			r->buf[r->end] = '\0';	/* last line without '\n' */
			r->start = r->end;
			return line;
		}
		if (r->eof || !line_reader__fill(r)) {
			if (r->start < r->end && !r->skip_rest)
				continue;
			return NULL;
		}
	}
}

/* ---- COMM and FORK ---------------------------------------------------- */

struct task_status {
	char	comm[16];
	pid_t	tgid;
	pid_t	ppid;
	bool	kernel;		/* no VmPeak but Threads: a kernel thread */
};

static int status__parse(char *bf, struct task_status *ts)
{
	char *name = strstr(bf, "Name:");
	char *tgids = strstr(name ? name : bf, "Tgid:");
	char *ppids = strstr(tgids ? tgids : bf, "PPid:");
	char *vmpeak = strstr(ppids ? ppids : bf, "VmPeak:");
	char *threads = vmpeak ? NULL : strstr(ppids ? ppids : bf, "Threads:");

	memset(ts, 0, sizeof(*ts));
	if (!tgids)
		return -EIO;
	if (name) {
		char *nl;

		for (name += 5; *name == ' ' || *name == '\t'; name++)
			;
		nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		strncpy(ts->comm, name, sizeof(ts->comm) - 1);
	}
	ts->tgid = atoi(tgids + 5);
	ts->ppid = ppids ? atoi(ppids + 5) : -1;
	ts->kernel = !vmpeak && threads;
	return ts->tgid > 0 ? 0 : -EIO;
}

/* /proc/PID/task/TID/status, or /proc/TID/status when pid is 0. */
static int task_status__read(const struct synth *s, pid_t pid, pid_t tid,
			     struct task_status *ts)
{
	const char *proc = SYNTH_PATH(s->o, proc, "/proc");
	char bf[4096];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(bf, sizeof(bf), "%s/%d/task/%d/status", proc, pid, tid);
	else
		snprintf(bf, sizeof(bf), "%s/%d/status", proc, tid);
	fd = open(bf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	do {
		n = read(fd, bf, sizeof(bf) - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	bf[n] = '\0';
	return status__parse(bf, ts);
}

static int synth__comm(struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	struct perf_record_comm *ev = (struct perf_record_comm *)s->rec;
	size_t off = offsetof(struct perf_record_comm, comm);

	memset(ev, 0, off);
	ev->header.type = PERF_RECORD_COMM;
	ev->pid = (u32)pid;
	ev->tid = (u32)tid;
	return synth__emit(s, off + put_str(s->rec + off, comm, sizeof(ev->comm)));
}

static int synth__fork(struct synth *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct perf_record_fork *ev = (struct perf_record_fork *)s->rec;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_FORK;
	ev->header.misc = PERF_RECORD_MISC_FORK_EXEC;
	ev->pid = (u32)pid;
	ev->ppid = (u32)ppid;
	ev->tid = (u32)tid;
	ev->ptid = (u32)ptid;
	return synth__emit(s, sizeof(*ev));
}

/*
 * NAMESPACES of one task (perf --namespaces): the device and inode of each
 * of /proc/TID/ns/{net,uts,ipc,pid,user,mnt,cgroup}, in perf's order; a
 * namespace that cannot be read stays zero, as in perf.
 */
static const char *const ns_names[NR_NAMESPACES] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static int synth__namespaces(struct synth *s, pid_t pid, pid_t tid)
{
	const char *proc = SYNTH_PATH(s->o, proc, "/proc");
	struct perf_record_namespaces *ev = (struct perf_record_namespaces *)s->rec;
	size_t size = sizeof(*ev) + NR_NAMESPACES * sizeof(ev->link_info[0]);
	char path[PATH_MAX];
	struct stat st;
	int i;

	if (!s->o->namespaces)
		return 0;
	memset(ev, 0, size);
	ev->header.type = PERF_RECORD_NAMESPACES;
	ev->pid = (u32)pid;
	ev->tid = (u32)tid;
	ev->nr_namespaces = NR_NAMESPACES;
	for (i = 0; i < NR_NAMESPACES; i++) {
		snprintf(path, sizeof(path), "%s/%d/ns/%s", proc, tid, ns_names[i]);
		if (stat(path, &st) == 0) {
			ev->link_info[i].dev = (u64)st.st_dev;
			ev->link_info[i].ino = (u64)st.st_ino;
		}
	}
	return synth__emit(s, size);
}

/* ---- MMAP2 from /proc/PID/task/PID/maps -------------------------------- */

struct map_line {
	u64		start, end, pgoff, ino;
	u32		maj, min, prot, flags;
	const char	*path;		/* "" for anonymous mappings */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse digits of base 16 or 10 then expect `sep`; NULL on a mismatch. */
static char *parse_num(char *p, int base, u64 *v, char sep)
{
	char *s = p;
	u64 x = 0;
	int d;

	while ((d = hexval(*p)) >= 0 && d < base) {
		x = x * (u64)base + (u64)d;
		p++;
	}
	*v = x;
	if (p == s || *p != sep)
		return NULL;
	return p + 1;
}

/* "00400000-0040c000 r-xp 00000000 fd:01 41038    /bin/cat" */
static bool map_line__parse(char *p, struct map_line *m)
{
	u64 maj, min;

	p = parse_num(p, 16, &m->start, '-');
	if (p)
		p = parse_num(p, 16, &m->end, ' ');
	if (!p || strlen(p) < 5 || p[4] != ' ')
		return false;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	if (p[3] != 's' && p[3] != 'p')
		return false;
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p = parse_num(p + 5, 16, &m->pgoff, ' ');
	if (p)
		p = parse_num(p, 16, &maj, ':');
	if (p)
		p = parse_num(p, 16, &min, ' ');
	if (!p)
		return false;
	m->maj = (u32)maj;
	m->min = (u32)min;
	while (isdigit((unsigned char)*p))
		m->ino = m->ino * 10 + (u64)(*p++ - '0');
	while (*p == ' ')
		p++;
	m->path = p;
	return m->end >= m->start;
}

/* Build id of a file some task maps, seen from that task's root first. */
static int task_file__build_id(const struct synth *s, pid_t pid, const char *name, u8 *id)
{
	const char *proc = SYNTH_PATH(s->o, proc, "/proc");
	char path[PATH_MAX + 64];
	int err = -ENOENT;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/root%s", proc, pid, name) < sizeof(path))
		err = buildid__read(path, id, BUILD_ID_SIZE);
	if (err < 0 && err != -ENOEXEC && err != -ENODATA && err != -ENOMEM)
		err = buildid__read(name, id, BUILD_ID_SIZE);
	return err;
}

static void synth__mmap2_build_id(struct synth *s, struct perf_record_mmap2 *ev,
				  pid_t pid, const char *name)
{
	u64 dev = makedev(ev->maj, ev->min);
	u8 id[BUILD_ID_SIZE];
	int len = -ENOENT;

	if (name[0] != '/' || name[1] == '/')	/* [vdso], //anon, ... */
		return;
	if (ev->ino)
		len = buildid_cache__lookup(s->o->bid_cache, dev, ev->ino, id, sizeof(id));
	if (len == -ENOENT) {
		len = task_file__build_id(s, pid, name, id);
		if (ev->ino)
			buildid_cache__add(s->o->bid_cache, dev, ev->ino, id, len);
	}
	if (len <= 0)
		return;
	ev->maj = ev->min = 0;
	ev->ino = ev->ino_generation = 0;
	ev->build_id_size = (u8)len;
	memcpy(ev->build_id, id, (size_t)len);
	ev->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
}

static int synth__mmap2(struct synth *s, pid_t tgid, pid_t pid,
			const struct map_line *m, u16 misc)
{
	struct perf_record_mmap2 *ev = (struct perf_record_mmap2 *)s->rec;
	size_t off = offsetof(struct perf_record_mmap2, filename);
	const char *mnt = s->o->hugetlbfs_mnt;
	const char *name = *m->path ? m->path : "//anon";
	u32 flags = m->flags;
	size_t n;

	if (mnt && *mnt && !strncmp(name, mnt, strlen(mnt))) {
		name = "//anon";
		flags |= MAP_HUGETLB;
	}
	memset(ev, 0, off);
	ev->header.type = PERF_RECORD_MMAP2;
	ev->header.misc = misc;
	ev->pid = (u32)tgid;
	ev->tid = (u32)pid;
	ev->start = m->start;
	ev->len = m->end - m->start;
	ev->pgoff = m->pgoff;
	ev->maj = m->maj;
	ev->min = m->min;
	ev->ino = m->ino;
	ev->prot = m->prot;
	ev->flags = flags;
	n = put_str(s->rec + off, name, PATH_MAX);
	if (s->o->build_id)
		synth__mmap2_build_id(s, ev, pid, name);
	return synth__emit(s, off + n);
}

/*
 * The maps of leader pid, as perf reads them: each line is checked against
 * the timeout before the exec filter, and the line that finds the time
 * exceeded is written (whatever it maps) flagged PROC_MAP_PARSE_TIMEOUT,
 * ending the read.
 */
static int synth__maps(struct synth *s, pid_t pid, pid_t tgid)
{
	const char *proc = SYNTH_PATH(s->o, proc, "/proc");
	u64 timeout = (u64)s->o->proc_map_timeout_ms * 1000000ULL;
	struct line_reader *r;
	char path[PATH_MAX];
	int fd, err = 0;
	char *line;
	u64 t0;

	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", proc, pid, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = malloc(sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	line_reader__init(r, fd);
	t0 = synth__now(s);
	while (!err && (line = line_reader__next(r))) {
		struct map_line m = { 0 };
		u16 misc = PERF_RECORD_MISC_USER;

		if (!map_line__parse(line, &m))
			continue;
		if (synth__now(s) - t0 > timeout) {
			stats__timeout(s->o, pid);
			err = synth__mmap2(s, tgid, pid, &m,
					   misc | PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
			break;
		}
		if (!(m.prot & PROT_EXEC)) {
			if (!s->o->mmap_data || !(m.prot & PROT_READ))
				continue;
			misc |= PERF_RECORD_MISC_MMAP_DATA;
		}
		err = synth__mmap2(s, tgid, pid, &m, misc);
	}
	free(r);
	close(fd);
	return err;
}

/* Maps of a leader; a maps file we cannot read only skips them. */
static int synth__leader_maps(struct synth *s, pid_t pid, pid_t tgid)
{
	int err = synth__maps(s, pid, tgid);

	if (s->emit_err)
		return s->emit_err;
	if (err == -ESRCH)
		stats__vanished(s->o);
	return 0;
}

/* ---- processes and threads --------------------------------------------- */

/*
 * The numerically named entries of an open directory (pids or tids), in
 * readdir order: the count and a malloc'ed array in *ids, or -ENOMEM.
 * Closes d.
 */
static int dir__read_ids(DIR *d, pid_t **ids)
{
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	pid_t *v = NULL;

	while ((de = readdir(d))) {
		pid_t id = parse_pid(de->d_name);

		if (id < 0)
			continue;
		if (nr == alloc) {
			pid_t *n = realloc(v, (alloc = alloc ? 2 * alloc : 64) * sizeof(*v));

			if (!n) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = n;
		}
		v[nr++] = id;
	}
	closedir(d);
	*ids = v;
	return (int)nr;
}

/*
 * The tasks of process pid, in readdir order (the order records are
 * written in): the count and a malloc'ed array in *tids, or -ESRCH when the
 * process is gone, or -errno.
 */
static int task_dir__read(const struct synth *s, pid_t pid, pid_t **tids)
{
	const char *proc = SYNTH_PATH(s->o, proc, "/proc");
	char path[PATH_MAX];
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	return dir__read_ids(d, tids);
}

/*
 * perf's system-wide form for some tasks of process pid: FORK + COMM per
 * task, MMAP2 right after the leader's COMM. Tasks that went away are
 * skipped; *any tells whether one could be read. 0 or the emit error.
 */
static int synth__tasks(struct synth *s, pid_t pid, const pid_t *tids, int nr, bool *any)
{
	int i, err = 0;

	for (i = 0; i < nr && !err; i++) {
		pid_t tid = tids[i], parent;
		struct task_status ts;

		if (task_status__read(s, pid, tid, &ts)) {
			stats__vanished(s->o);
			continue;
		}
		*any = true;
		if (!s->o->no_task) {
			parent = tid == ts.tgid ? ts.ppid : ts.tgid;
			err = synth__fork(s, ts.tgid, parent, tid, parent);
			if (!err)
				err = synth__namespaces(s, ts.tgid, tid);
			if (!err)
				err = synth__comm(s, ts.tgid, tid, ts.comm);
		}
		if (!err && tid == ts.tgid && !ts.kernel && !s->o->no_mmap)
			err = synth__leader_maps(s, tid, ts.tgid);
	}
	return err;
}

/* Every task of process pid. -ESRCH when it is gone (counted as vanished). */
static int synth__process(struct synth *s, pid_t pid)
{
	bool any = false;
	pid_t *tids;
	int nr, err;

	nr = task_dir__read(s, pid, &tids);
	if (nr == -ESRCH)
		stats__vanished(s->o);
	if (nr < 0)
		return nr;
	err = synth__tasks(s, pid, tids, nr, &any);
	free(tids);
	if (!err && !any) {
		stats__vanished(s->o);
		err = -ESRCH;
	}
	return err;
}

int synthesize__process(const struct synth_opts *o, pid_t pid, synth_emit_fn emit, void *ctx)
{
	struct synth s;
	int err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	if (pid <= 0)
		return -ESRCH;
	return synth__process(&s, pid);
}

static int pid__cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

int synthesize__proc_pids(const struct synth_opts *o, pid_t **pids)
{
	DIR *d = opendir(SYNTH_PATH(o, proc, "/proc"));
	int nr;

	*pids = NULL;
	if (!d)
		return -errno;
	nr = dir__read_ids(d, pids);
	if (nr > 0)
		qsort(*pids, (size_t)nr, sizeof(**pids), pid__cmp);
	return nr;
}

int synthesize__all(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	struct synth s;
	pid_t *pids;
	int i, nr, err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	nr = synthesize__proc_pids(o, &pids);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr && !s.emit_err; i++)
		synth__process(&s, pids[i]);	/* gone or unreadable: skipped */
	free(pids);
	return s.emit_err;
}

/* ---- system-wide, in parallel on a workqueue ---------------------------- */

#define SYNTH_BUF_MIN		(64 * 1024)	/* first size of a participant's buffer */
#define SYNTH_SPLIT_TASKS	64	/* processes with more tasks are split (measured) */
#define SYNTH_PIECE_TASKS	32	/* tasks per piece of a split process (measured) */

/* One participant's records, appended in the order it synthesized them. */
struct synth_buf {
	char	*data;
	size_t	len, alloc;
	int	err;		/* -ENOMEM: this participant stops, and the walk */
};

/* Records some participant wrote: which buffer, which bytes of it. */
struct synth_span {
	size_t	off, len;
	int	slot;
};

/* One pid of the walk; written by the participant that claimed it. */
struct synth_proc {
	struct synth_span	span;		/* its records, when not split */
	bool			split;		/* its tasks went out in pieces */
};

/*
 * Some tasks of a split process, in readdir order. The participant reading
 * the process's task list fills and publishes pieces as it goes, so others
 * synthesize the first tasks while the list is still being read.
 */
struct synth_piece {
	struct synth_span	span;		/* written by who claimed the piece, */
	bool			any;		/* as this: a task could be read */
	long			proc;		/* I once published: index in pids */
	int			seq;		/* I: order within its process */
	int			nr;		/* I */
	pid_t			tids[SYNTH_PIECE_TASKS];	/* I */
};

/*
 * One parallel walk. Legend: I: set before the loop (or before the piece
 * is published), read-only after; A: atomic, see synth_par__claim();
 * L: lock; S(slot): only the participant running in that slot; S(i): only
 * the participant that claimed pid i. The caller reads what participants
 * wrote after wq__parallel_for() has returned, which orders every
 * participant's writes before its return.
 */
struct synth_par {
	const struct synth_opts	*o;		/* I */
	const pid_t		*pids;		/* I */
	long			nr;		/* I */
	_Atomic long		next;		/* A: first unclaimed pid index */
	_Atomic int		stop;		/* A, written under L: a participant failed */
	struct synth_buf	*bufs;		/* S(slot), one per pool slot */
	struct synth_proc	*procs;		/* S(i), one per pid */

	pthread_mutex_t		lock;
	pthread_cond_t		more;		/* a piece is out, or the last pid is done */
	struct synth_piece	**pieces;	/* L: published pieces */
	long			nr_pieces;	/* L */
	long			alloc_pieces;	/* L */
	long			next_piece;	/* L: first unclaimed piece */
	long			unfinished;	/* L: pids not done (they may yet publish pieces) */
};

static int synth_buf__append(void *ctx, const void *record, size_t size)
{
	struct synth_buf *b = ctx;

	if (b->len + size > b->alloc) {
		size_t alloc = b->alloc ? b->alloc : SYNTH_BUF_MIN;
		char *n;

		while (alloc < b->len + size)
			alloc *= 2;
		n = realloc(b->data, alloc);
		if (!n)
			return b->err = -ENOMEM;
		b->data = n;
		b->alloc = alloc;
	}
	memcpy(b->data + b->len, record, size);
	b->len += size;
	return 0;
}

/* The next pid nobody has claimed, or -1 when all are (or the walk failed). */
static long synth_par__claim(struct synth_par *p)
{
	long i;

	/* relaxed: stop only cuts the walk short; the error is returned by the failing call */
	if (atomic_load_explicit(&p->stop, memory_order_relaxed))
		return -1;
	/*
	 * relaxed: the cursor only hands out distinct indexes; what their
	 * owners write reaches the caller through the end of the loop.
	 */
	i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
	return i < p->nr ? i : -1;
}

/* Stop everyone, waiters for pieces included. */
static int synth_par__fail(struct synth_par *p, int err)
{
	pthread_mutex_lock(&p->lock);
	atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	return err;
}

/* The next published piece; waits while some pid, still in work, may publish more. */
static struct synth_piece *synth_par__next_piece(struct synth_par *p)
{
	struct synth_piece *pc = NULL;

	pthread_mutex_lock(&p->lock);
	while (p->next_piece == p->nr_pieces && p->unfinished &&
	       !atomic_load_explicit(&p->stop, memory_order_relaxed))
		pthread_cond_wait(&p->more, &p->lock);
	if (p->next_piece < p->nr_pieces && !atomic_load_explicit(&p->stop, memory_order_relaxed))
		pc = p->pieces[p->next_piece++];
	pthread_mutex_unlock(&p->lock);
	return pc;
}

/* Hand a full piece to whoever is free; -ENOMEM leaves it to the caller. */
static int synth_par__publish(struct synth_par *p, struct synth_piece *pc)
{
	int err = 0;

	pthread_mutex_lock(&p->lock);
	if (p->nr_pieces == p->alloc_pieces) {
		long alloc = p->alloc_pieces ? 2 * p->alloc_pieces : 256;
		struct synth_piece **n = realloc(p->pieces, (size_t)alloc * sizeof(*n));

		if (n) {
			p->pieces = n;
			p->alloc_pieces = alloc;
		} else {
			err = -ENOMEM;
		}
	}
	if (!err) {
		p->pieces[p->nr_pieces++] = pc;
		pthread_cond_signal(&p->more);
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

/* A claimed pid is done: all its pieces, if any, are out. */
static void synth_par__pid_done(struct synth_par *p)
{
	pthread_mutex_lock(&p->lock);
	if (!--p->unfinished)
		pthread_cond_broadcast(&p->more);	/* waiters for pieces may stop */
	pthread_mutex_unlock(&p->lock);
}

/* A split process's task list, read into pieces published as they fill. */
struct synth_reader {
	struct synth_par	*p;
	long			proc;
	struct synth_piece	*pc;		/* being filled */
	int			seq;
};

static int synth_reader__add(struct synth_reader *r, pid_t tid)
{
	struct synth_piece *pc = r->pc;
	int err;

	if (!pc) {
		pc = r->pc = calloc(1, sizeof(*pc));
		if (!pc)
			return -ENOMEM;
		pc->proc = r->proc;
		pc->seq = r->seq++;
	}
	pc->tids[pc->nr++] = tid;
	if (pc->nr < SYNTH_PIECE_TASKS)
		return 0;
	r->pc = NULL;
	err = synth_par__publish(r->p, pc);
	if (err)
		free(pc);
	return err;
}

/* The rest of a big task list, after the first tids already read. */
static int synth_par__read_split(struct synth_par *p, long i, DIR *d,
				 const pid_t *first, int nr_first)
{
	struct synth_reader r = { .p = p, .proc = i };
	struct dirent *de;
	int k, err = 0;

	p->procs[i].split = true;
	for (k = 0; k < nr_first && !err; k++)
		err = synth_reader__add(&r, first[k]);
	while (!err && (de = readdir(d))) {
		pid_t tid = parse_pid(de->d_name);

		if (tid > 0)
			err = synth_reader__add(&r, tid);
	}
	if (!err && r.pc) {
		err = synth_par__publish(p, r.pc);
		if (!err)
			r.pc = NULL;
	}
	free(r.pc);
	return err;
}

/*
 * A claimed pid: read its task list; up to SYNTH_SPLIT_TASKS tasks are
 * synthesized here and now, a longer list goes out in pieces.
 */
static int synth_par__proc(struct synth_par *p, struct synth *s, long i)
{
	const char *proc = SYNTH_PATH(p->o, proc, "/proc");
	struct synth_proc *pr = &p->procs[i];
	struct synth_buf *b = s->ctx;
	pid_t tids[SYNTH_SPLIT_TASKS + 1];
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	int nr = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc, p->pids[i]);
	d = opendir(path);
	if (!d) {
		int err = errno;

		if (err == ENOENT)
			stats__vanished(p->o);
		return err == ENOMEM ? -ENOMEM : 0;	/* gone or unreadable: skipped */
	}
	while (nr <= SYNTH_SPLIT_TASKS && (de = readdir(d))) {
		pid_t tid = parse_pid(de->d_name);

		if (tid > 0)
			tids[nr++] = tid;
	}
	if (nr > SYNTH_SPLIT_TASKS) {
		int err = synth_par__read_split(p, i, d, tids, nr);

		closedir(d);
		return err;
	}
	closedir(d);
	pr->span.slot = (int)(b - p->bufs);
	pr->span.off = b->len;
	synth__tasks(s, p->pids[i], tids, nr, &any);
	pr->span.len = b->len - pr->span.off;
	if (!any && !b->err)
		stats__vanished(p->o);
	return b->err;
}

static int synth_par__piece(struct synth_par *p, struct synth *s, struct synth_piece *pc)
{
	struct synth_buf *b = s->ctx;

	pc->span.slot = (int)(b - p->bufs);
	pc->span.off = b->len;
	synth__tasks(s, p->pids[pc->proc], pc->tids, pc->nr, &pc->any);
	pc->span.len = b->len - pc->span.off;
	return b->err;
}

/*
 * A participant: one index of a loop over participants, so that at most
 * nr_threads run at once. It claims pids until none is left, then pieces
 * of split processes until none is left and every pid is done;
 * its records go to its slot's buffer. Gone or unreadable processes are
 * skipped as in the serial walk; only running out of memory stops the walk.
 */
static int synth_par__run(void *arg, long idx, int slot)
{
	struct synth_par *p = arg;
	struct synth_piece *pc;
	struct synth s;
	int err = 0;
	long i;

	synth__init(&s, p->o, synth_buf__append, &p->bufs[slot]);
	while (!err) {
		if ((i = synth_par__claim(p)) >= 0) {
			err = synth_par__proc(p, &s, i);
			synth_par__pid_done(p);
		} else if ((pc = synth_par__next_piece(p)))
			err = synth_par__piece(p, &s, pc);
		else
			break;
	}
	return err ? synth_par__fail(p, err) : 0;
}

static int piece__cmp(const void *a, const void *b)
{
	const struct synth_piece *x = *(struct synth_piece *const *)a;
	const struct synth_piece *y = *(struct synth_piece *const *)b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Pieces by process, in task order; a split process none of whose tasks could be read went away. */
static void synth_par__sort_pieces(struct synth_par *p)
{
	long j, k;

	if (p->nr_pieces)	/* none: pieces may be NULL, which qsort() may not take */
		qsort(p->pieces, (size_t)p->nr_pieces, sizeof(*p->pieces), piece__cmp);
	for (j = 0; j < p->nr_pieces; j = k) {
		bool any = false;

		for (k = j; k < p->nr_pieces && p->pieces[k]->proc == p->pieces[j]->proc; k++)
			any |= p->pieces[k]->any;
		if (!any)
			stats__vanished(p->o);
	}
}

static int synth_span__emit(const struct synth_par *p, const struct synth_span *sp,
			    synth_emit_fn emit, void *ctx)
{
	const char *rec = p->bufs[sp->slot].data + sp->off;
	const char *end = rec + sp->len;

	while (rec < end) {
		u16 size = ((const struct perf_event_header *)rec)->size;
		int err = emit(ctx, rec, size);

		if (err)
			return err < 0 ? err : -EIO;
		rec += size;
	}
	return 0;
}

/* Hand the buffered records over one by one, in pid order: the serial walk's order. */
static int synth_par__emit(const struct synth_par *p, synth_emit_fn emit, void *ctx)
{
	long i, j = 0;
	int err = 0;

	for (i = 0; i < p->nr && !err; i++) {
		if (!p->procs[i].split) {
			err = synth_span__emit(p, &p->procs[i].span, emit, ctx);
			continue;
		}
		for (; j < p->nr_pieces && p->pieces[j]->proc == i && !err; j++)
			err = synth_span__emit(p, &p->pieces[j]->span, emit, ctx);
	}
	return err;
}

static int synth_par__init(struct synth_par *p, int nr_slots)
{
	p->bufs = calloc((size_t)nr_slots, sizeof(*p->bufs));
	p->procs = calloc((size_t)p->nr, sizeof(*p->procs));
	if (!p->bufs || !p->procs)
		return -ENOMEM;
	p->unfinished = p->nr;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	return 0;
}

static void synth_par__exit(struct synth_par *p, int nr_slots)
{
	long i;

	for (i = 0; p->bufs && i < nr_slots; i++)
		free(p->bufs[i].data);
	for (i = 0; i < p->nr_pieces; i++)
		free(p->pieces[i]);
	free(p->pieces);
	free(p->bufs);
	free(p->procs);
}

int synthesize__all_parallel(const struct synth_opts *o, struct wq *wq, int nr_threads,
			     synth_emit_fn emit, void *ctx)
{
	struct synth_par p = { .o = o };
	struct synth s;
	int nr_slots, nr, err;
	pid_t *pids;

	if (!wq || nr_threads == 1)
		return synthesize__all(o, emit, ctx);
	err = synth__init(&s, o, emit, ctx);
	if (err)
		return err;
	nr_slots = wq_pool__nr_slots(wq__pool(wq));
	if (nr_threads <= 0)
		nr_threads = wq_pool__nr_workers(wq__pool(wq));
	if (nr_threads > nr_slots)
		nr_threads = nr_slots;
	if (nr_threads <= 1)
		return synthesize__all(o, emit, ctx);
	nr = synthesize__proc_pids(o, &pids);
	if (nr <= 0)
		return nr;
	p.pids = pids;
	p.nr = nr;
	err = synth_par__init(&p, nr_slots);
	if (!err) {
		/* one index per participant: the loop runs at most nr_threads at once */
		err = wq__parallel_for(wq, 0, nr_threads, 1, synth_par__run, &p, NULL);
		pthread_cond_destroy(&p.more);
		pthread_mutex_destroy(&p.lock);
	}
	if (!err) {
		synth_par__sort_pieces(&p);
		err = synth_par__emit(&p, emit, ctx);
	}
	synth_par__exit(&p, nr_slots);
	free(pids);
	return err;
}

/* perf's thread-map form: COMM of tid, MMAP2 if it leads. *tgid: its process. */
static int synth__thread(struct synth *s, pid_t tid, bool comm_only, pid_t *tgid)
{
	struct task_status ts;
	int err;

	err = task_status__read(s, 0, tid, &ts);
	if (err) {
		stats__vanished(s->o);
		return err == -EIO ? err : -ESRCH;
	}
	if (tgid)
		*tgid = ts.tgid;
	if (!s->o->no_task || comm_only) {
		err = synth__comm(s, ts.tgid, tid, ts.comm);
		if (!err)
			err = synth__namespaces(s, ts.tgid, tid);
		if (err)
			return err;
	}
	if (comm_only || tid != ts.tgid || ts.kernel || s->o->no_mmap)
		return 0;
	return synth__leader_maps(s, tid, ts.tgid);
}

static int synthesize__one(const struct synth_opts *o, pid_t tid, bool comm_only,
			   synth_emit_fn emit, void *ctx)
{
	struct synth s;
	int err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	if (tid <= 0)
		return -ESRCH;
	return synth__thread(&s, tid, comm_only, NULL);
}

int synthesize__thread(const struct synth_opts *o, pid_t tid, synth_emit_fn emit, void *ctx)
{
	return synthesize__one(o, tid, false, emit, ctx);
}

int synthesize__comm(const struct synth_opts *o, pid_t tid, synth_emit_fn emit, void *ctx)
{
	return synthesize__one(o, tid, true, emit, ctx);
}

static bool pids__has(const pid_t *v, int nr, pid_t pid)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i] == pid)
			return true;
	return false;
}

int synthesize__thread_map(const struct synth_opts *o, const struct thread_map *threads,
			   synth_emit_fn emit, void *ctx)
{
	pid_t *extra, tgid;
	int i, nr_extra = 0;
	struct synth s;
	int err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	extra = calloc((size_t)threads->nr + 1, sizeof(*extra));
	if (!extra)
		return -ENOMEM;
	for (i = 0; i < threads->nr && !s.emit_err; i++) {
		pid_t tid = threads->map[i];

		if (tid <= 0 || synth__thread(&s, tid, false, &tgid))
			continue;
		/* a leader outside the map is synthesized too, once */
		if (tgid == tid || pids__has(threads->map, threads->nr, tgid) ||
		    pids__has(extra, nr_extra, tgid))
			continue;
		extra[nr_extra++] = tgid;
		synth__thread(&s, tgid, false, NULL);
	}
	free(extra);
	return s.emit_err;
}

/* ---- kernel and modules ------------------------------------------------ */

struct kmod {
	char	name[64];
	u64	start;
	u64	size;
	char	*path;		/* the installed .ko, or NULL */
};

static int kmod__cmp_start(const void *a, const void *b)
{
	const struct kmod *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int kmod__cmp_name(const void *a, const void *b)
{
	const struct kmod *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void kmods__free(struct kmod *mods, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		free(mods[i].path);
	free(mods);
}

/*
 * /proc/modules ("ext4 1011712 2 - Live 0xffffffffc0a4e000"), sorted by
 * address. Count, 0 when the kernel has no modules, or -errno (-EACCES:
 * the addresses are hidden).
 */
static int kmods__read(const struct synth_opts *o, struct kmod **out)
{
	FILE *f = fopen(SYNTH_PATH(o, modules, "/proc/modules"), "re");
	struct kmod *mods = NULL, m;
	int nr = 0, alloc = 0, err = 0;
	unsigned long long size, start;
	char line[1024];

	*out = NULL;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", m.name, &size, &start) != 3)
			continue;
		if (!start) {
			err = -EACCES;
			break;
		}
		m.start = start;
		m.size = size;
		if (nr == alloc) {
			struct kmod *n = realloc(mods, (size_t)(alloc = alloc ? 2 * alloc : 64) *
						 sizeof(*mods));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			mods = n;
		}
		mods[nr++] = m;
	}
	fclose(f);
	if (err) {
		kmods__free(mods, nr);
		return err;
	}
	qsort(mods, (size_t)nr, sizeof(*mods), kmod__cmp_start);
	*out = mods;
	return nr;
}

/* "kernel/fs/ext4/ext4.ko.xz" → "ext4"; '-' reads as '_' like the kernel. */
static void kmod_name_of(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	const char *ko;
	size_t n, i;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	n = ko ? (size_t)(ko - base) : strlen(base);
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

static void kmods__dep_line(struct kmod **byname, int nr, const char *dir, char *line)
{
	char *colon = strchr(line, ':');
	struct kmod key, *kp = &key, **hit;

	if (!colon)
		return;
	*colon = '\0';
	kmod_name_of(line, key.name, sizeof(key.name));
	hit = bsearch(&kp, byname, (size_t)nr, sizeof(*byname), kmod__cmp_name);
	if (!hit || (*hit)->path)
		return;
	if (line[0] == '/')
		(*hit)->path = strdup(line);
	else if (asprintf(&(*hit)->path, "%s/%s", dir, line) < 0)
		(*hit)->path = NULL;
}

/* Attach to each module the path modules.dep gives for it (perf's long name). */
static void kmods__find_paths(const struct synth_opts *o, struct kmod *mods, int nr)
{
	char dir[PATH_MAX], dep[PATH_MAX + 16], *line;
	struct kmod **byname = NULL;
	struct line_reader *r = NULL;
	struct utsname u;
	int i, fd;

	if (o->paths && o->paths->modules_dir)
		snprintf(dir, sizeof(dir), "%s", o->paths->modules_dir);
	else if (!uname(&u))
		snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	else
		return;
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	fd = open(dep, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	byname = calloc((size_t)nr, sizeof(*byname));
	r = malloc(sizeof(*r));
	if (!byname || !r)
		goto out_close;
	for (i = 0; i < nr; i++)
		byname[i] = &mods[i];
	qsort(byname, (size_t)nr, sizeof(*byname), kmod__cmp_name);
	line_reader__init(r, fd);
	while ((line = line_reader__next(r)))
		kmods__dep_line(byname, nr, dir, line);
out_close:
	free(r);
	free(byname);
	close(fd);
}

/*
 * A map of kernel space (pid -1, tid 0, misc KERNEL): PERF_RECORD_MMAP, or
 * MMAP2 with prot/flags 0 and the build id when there is one (perf
 * --buildid-mmap).
 */
static int synth__kmap(struct synth *s, u64 start, u64 len, u64 pgoff, const char *name,
		       const u8 *bid, int bid_len)
{
	struct perf_record_mmap2 *ev2 = (struct perf_record_mmap2 *)s->rec;
	struct perf_record_mmap *ev = (struct perf_record_mmap *)s->rec;
	size_t off;

	if (!s->o->build_id) {
		off = offsetof(struct perf_record_mmap, filename);
		memset(ev, 0, off);
		ev->header.type = PERF_RECORD_MMAP;
		ev->header.misc = PERF_RECORD_MISC_KERNEL;
		ev->pid = (u32)-1;
		ev->start = start;
		ev->len = len;
		ev->pgoff = pgoff;
		return synth__emit(s, off + put_str(s->rec + off, name, PATH_MAX));
	}
	off = offsetof(struct perf_record_mmap2, filename);
	memset(ev2, 0, off);
	ev2->header.type = PERF_RECORD_MMAP2;
	ev2->header.misc = PERF_RECORD_MISC_KERNEL;
	ev2->pid = (u32)-1;
	ev2->start = start;
	ev2->len = len;
	ev2->pgoff = pgoff;
	if (bid_len > 0) {
		ev2->build_id_size = (u8)bid_len;
		memcpy(ev2->build_id, bid, (size_t)bid_len);
		ev2->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	return synth__emit(s, off + put_str(s->rec + off, name, PATH_MAX));
}

static bool ksym_is_function(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

struct kernel_anchor {
	const char	*ref_name;	/* "_text", or "_stext" when there is no _text */
	u64		start;
	u64		end;		/* _etext, or 0 */
};

/* "ffffffff81000000 T _text": the anchors perf's machine.c uses. */
static void kallsyms__line(char *line, u64 *text, u64 *stext, u64 *etext, bool *seen)
{
	char *name, *tab;
	u64 addr;

	name = parse_num(line, 16, &addr, ' ');
	if (!name || !name[0] || name[1] != ' ' || !ksym_is_function(name[0]))
		return;
	name += 2;
	tab = strchr(name, '\t');	/* module symbols: "name\t[mod]" */
	if (tab)
		return;
	if (!strcmp(name, "_text") && !seen[0]) {
		*text = addr;
		seen[0] = true;
	} else if (!strcmp(name, "_stext") && !seen[1]) {
		*stext = addr;
		seen[1] = true;
	} else if (!strcmp(name, "_etext") && !seen[2]) {
		*etext = addr;
		seen[2] = true;
	}
}

static int kernel_anchor__read(const struct synth_opts *o, struct kernel_anchor *ka)
{
	bool seen[3] = { false, false, false };
	u64 text = 0, stext = 0, etext = 0;
	struct line_reader *r;
	char *line;
	int fd;

	memset(ka, 0, sizeof(*ka));
	fd = open(SYNTH_PATH(o, kallsyms, "/proc/kallsyms"), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = malloc(sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	line_reader__init(r, fd);
	while (!(seen[0] && seen[2]) && (line = line_reader__next(r)))
		kallsyms__line(line, &text, &stext, &etext, seen);
	free(r);
	close(fd);
	if (!seen[0] && !seen[1])
		return -ENOENT;
	ka->ref_name = seen[0] ? "_text" : "_stext";
	ka->start = seen[0] ? text : stext;
	ka->end = seen[2] ? etext : 0;
	if (!ka->start)
		return -EACCES;		/* kptr_restrict hides the addresses */
	return 0;
}

int synthesize__kernel_mmap(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	u8 bid[BUILD_ID_SIZE];
	struct kernel_anchor ka;
	char name[64];
	int bid_len = 0, err;
	struct synth s;
	u64 end;

	err = synth__init(&s, o, emit, ctx);
	if (!err)
		err = kernel_anchor__read(o, &ka);
	if (err)
		return err;
	end = ka.end > ka.start ? ka.end : ~0ULL;
	if (end == ~0ULL) {
		/* no _etext: perf ends the kernel where the next module starts */
		struct kmod *mods;
		int i, nr = kmods__read(o, &mods);

		for (i = 0; i < nr && end == ~0ULL; i++)
			if (mods[i].start > ka.start)
				end = mods[i].start;
		kmods__free(mods, nr > 0 ? nr : 0);
	}
	if (o->build_id)
		bid_len = buildid__read_notes(SYNTH_PATH(o, kernel_notes, "/sys/kernel/notes"),
					      bid, sizeof(bid));
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", ka.ref_name);
	return synth__kmap(&s, ka.start, end - ka.start, ka.start, name, bid, bid_len);
}

/* A loaded module's build id: from sysfs (the module as loaded), else its .ko. */
static int kmod__build_id(const struct synth_opts *o, const struct kmod *m, u8 *id)
{
	char path[PATH_MAX];
	size_t len;
	int err;

	snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id",
		 SYNTH_PATH(o, sys_module, "/sys/module"), m->name);
	err = buildid__read_notes(path, id, BUILD_ID_SIZE);
	if (err > 0 || !m->path)
		return err;
	len = strlen(m->path);
	if (len < 3 || strcmp(m->path + len - 3, ".ko"))
		return err;	/* compressed: not read here */
	return buildid__read(m->path, id, BUILD_ID_SIZE);
}

int synthesize__modules(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	struct kmod *mods;
	struct synth s;
	int i, nr, err;

	err = synth__init(&s, o, emit, ctx);
	if (err)
		return err;
	nr = kmods__read(o, &mods);
	if (nr <= 0)
		return nr;
	kmods__find_paths(o, mods, nr);
	for (i = 0; i < nr && !err; i++) {
		u8 bid[BUILD_ID_SIZE];
		int bid_len = o->build_id ? kmod__build_id(o, &mods[i], bid) : 0;
		char bracket[sizeof(mods[i].name) + 2];

		snprintf(bracket, sizeof(bracket), "[%s]", mods[i].name);
		err = synth__kmap(&s, mods[i].start, mods[i].size, 0,
				  mods[i].path ? mods[i].path : bracket, bid, bid_len);
	}
	kmods__free(mods, nr);
	return err;
}

/* ---- ID_INDEX, FINISHED_INIT, FINISHED_ROUND --------------------------- */

static int id_index__flush(struct perf_record_id_index *ev, size_t n,
			   synth_emit_fn emit, void *ctx)
{
	size_t size = sizeof(*ev) + n * sizeof(ev->entries[0]);
	int err;

	ev->header.type = PERF_RECORD_ID_INDEX;
	ev->header.misc = 0;
	ev->header.size = (u16)size;
	ev->nr = n;
	err = emit(ctx, ev, size);
	return err > 0 ? -EIO : err;
}

static int id_index__check(const struct evlist *evlist)
{
	int i;

	if (!evlist->cpus || !evlist->threads)
		return -EINVAL;
	for (i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];

		if (e->nr_ids && (!e->ids || e->nr_cpus != evlist->cpus->nr ||
				  e->nr_threads != evlist->threads->nr ||
				  e->nr_ids != e->nr_cpus * e->nr_threads))
			return -EINVAL;
	}
	return 0;
}

int synthesize__id_index(struct evlist *evlist, synth_emit_fn emit, void *ctx)
{
	const struct cpu_map *cpus = evlist->cpus;
	struct perf_record_id_index *ev;
	bool per_thread;
	struct evsel *evsel;
	size_t n = 0;
	int i, c, t, err = id_index__check(evlist);

	if (err)
		return err;
	per_thread = cpus->nr == 1 && cpus->map[0].cpu == -1;
	ev = calloc(1, sizeof(*ev) + ID_INDEX_MAX_NR * sizeof(ev->entries[0]));
	if (!ev)
		return -ENOMEM;
	evlist__for_each_evsel(evlist, evsel, i) {
		for (c = 0; c < evsel->nr_cpus && evsel->nr_ids && !err; c++) {
			for (t = 0; t < evsel->nr_threads && !err; t++) {
				u64 id = evsel->ids[c * evsel->nr_threads + t];
				struct id_index_entry *e = &ev->entries[n];

				if (!id)
					continue;
				e->id = id;
				e->idx = (u64)(per_thread ? t : c);
				e->cpu = (u64)(s64)cpus->map[c].cpu;
				e->tid = (u64)(s64)evlist->threads->map[t];
				if (++n == ID_INDEX_MAX_NR) {
					err = id_index__flush(ev, n, emit, ctx);
					n = 0;
				}
			}
		}
		if (err)
			break;
	}
	if (!err && n)
		err = id_index__flush(ev, n, emit, ctx);
	free(ev);
	return err;
}

static int synth__bare(u32 type, synth_emit_fn emit, void *ctx)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = sizeof(h) };
	int err = emit(ctx, &h, sizeof(h));

	return err > 0 ? -EIO : err;
}

int synthesize__finished_init(synth_emit_fn emit, void *ctx)
{
	return synth__bare(PERF_RECORD_FINISHED_INIT, emit, ctx);
}

int synthesize__finished_round(synth_emit_fn emit, void *ctx)
{
	return synth__bare(PERF_RECORD_FINISHED_ROUND, emit, ctx);
}

/* ---- cgroups ------------------------------------------------------------ */

/*
 * Where perf looks for the cgroups (cgroupfs_find_mountpoint(.., "perf_event")):
 * a cgroup v1 hierarchy with the perf_event controller, else the first
 * cgroup2 mount. 0, or -ENOENT.
 */
static int cgroup_root(const struct synth_opts *o, char *buf, size_t size)
{
	FILE *f = fopen(SYNTH_PATH(o, mounts, "/proc/mounts"), "re");
	char line[PATH_MAX + 512], mnt[PATH_MAX], type[64], opts[512], v2[PATH_MAX] = "";
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *o_, *save = NULL;

		if (sscanf(line, "%*s %4095s %63s %511s", mnt, type, opts) != 3)
			continue;
		if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mnt);
		if (strcmp(type, "cgroup"))
			continue;
		for (o_ = strtok_r(opts, ",", &save); o_; o_ = strtok_r(NULL, ",", &save))
			if (!strcmp(o_, "perf_event")) {
				snprintf(buf, size, "%s", mnt);
				err = 0;
				break;
			}
	}
	fclose(f);
	if (err && v2[0]) {
		snprintf(buf, size, "%s", v2);
		err = 0;
	}
	return err;
}

/* One CGROUP: the cgroup's id (its file handle, as the kernel's records) and path below root. */
static int synth__cgroup(struct synth *s, const char *path, size_t root_len)
{
	struct perf_record_cgroup *ev = (struct perf_record_cgroup *)s->rec;
	size_t off = offsetof(struct perf_record_cgroup, path);
	struct {
		struct file_handle	fh;
		u64			id;
	} handle;
	const char *rel = path[root_len] ? path + root_len : "/";
	int mount_id;

	handle.fh.handle_bytes = sizeof(handle.id);
	if (name_to_handle_at(AT_FDCWD, path, &handle.fh, &mount_id, 0) < 0)
		return -errno;
	memset(ev, 0, off);
	ev->header.type = PERF_RECORD_CGROUP;
	ev->id = handle.id;
	return synth__emit(s, off + put_str(s->rec + off, rel, PATH_MAX));
}

/* The cgroup at path, then every cgroup below it, depth first in directory order (perf's walk). */
static int synth__cgroup_tree(struct synth *s, char *path, size_t root_len)
{
	size_t len = strlen(path);
	struct dirent *d;
	DIR *dir;
	int err = synth__cgroup(s, path, root_len);

	if (err)
		return err;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir))) {
		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (len + 1 + strlen(d->d_name) >= PATH_MAX)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", d->d_name);
		err = synth__cgroup_tree(s, path, root_len);
		path[len] = '\0';
	}
	closedir(dir);
	return err;
}

int synthesize__cgroups(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	char path[PATH_MAX];
	struct synth s;
	int err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	err = cgroup_root(o, path, sizeof(path));
	if (err)
		return err;
	err = synth__cgroup_tree(&s, path, strlen(path));
	return s.emit_err ? s.emit_err : err;
}

/* ---- helpers for the caller -------------------------------------------- */

int synthesize__timeout_msg(char *buf, size_t size, pid_t pid)
{
	return snprintf(buf, size, "Reading /proc/%d/task/%d/maps time out. "
			"You may want to increase the time limit by --proc-map-timeout",
			pid, pid);
}

int synthesize__hugetlbfs_mountpoint(char *buf, size_t size)
{
	FILE *f = fopen("/proc/mounts", "re");
	char line[PATH_MAX + 256], mnt[PATH_MAX], type[64];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %4095s %63s", mnt, type) == 2 &&
		    !strcmp(type, "hugetlbfs")) {
			snprintf(buf, size, "%s", mnt);
			err = 0;
		}
	}
	fclose(f);
	return err;
}
