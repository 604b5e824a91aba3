// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize.c — the records perf record writes before the kernel's stream
 * to describe what already runs: FORK/COMM/MMAP2 of tasks read from /proc,
 * the kernel and module maps, ID_INDEX, LOST_SAMPLES at the end,
 * FINISHED_INIT/FINISHED_ROUND.
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
 * The parallel walk of /proc is synthesize-parallel.c; the kernel and
 * module maps are synthesize-kernel.c; the BPF programs, synthesize-bpf.c.
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

#include "precord/cgroup.h"
#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/threadmap.h"
#include "precord/sample.h"
#include "precord/util.h"
#include "wq.h"
#include "synthesize-internal.h"

/* perf leaves room for the optional {machine_pid, vcpu} part of each entry. */
#define ID_INDEX_MAX_NR	((UINT16_MAX - sizeof(struct perf_record_id_index)) / \
			 (sizeof(struct id_index_entry) + 2 * sizeof(u64)))

int synth__init(struct synth *s, const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	if (!o || !emit || o->id_hdr_size % 8 || o->id_hdr_size > SAMPLE_ID_MAX)
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

static u64 synth__now(const struct synth *s)
{
	if (s->o->clock)
		return s->o->clock(s->o->clock_ctx);
	return clock__now_ns();
}

void synth_stats__vanished(const struct synth_opts *o)
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
size_t synth__put_str(char *dst, const char *src, size_t max)
{
	size_t len = strnlen(src, max - 1);
	size_t padded = (len + 1 + 7) & ~(size_t)7;

	memcpy(dst, src, len);
	memset(dst + len, 0, padded - len);
	return padded;
}

/* Append the zeroed trailer, set header.size and hand the record over. */
int synth__emit(struct synth *s, size_t size)
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
pid_t synth__parse_pid(const char *name)
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

void line_reader__init(struct line_reader *r, int fd)
{
	r->fd = fd;
	r->start = r->end = 0;
	r->eof = r->skip_rest = false;
}

struct line_reader *line_reader__open(const char *path, int *err)
{
	struct line_reader *r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	r = malloc(sizeof(*r));
	if (!r) {
		close(fd);
		*err = -ENOMEM;
		return NULL;
	}
	line_reader__init(r, fd);
	return r;
}

void line_reader__close(struct line_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
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
char *line_reader__next(struct line_reader *r)
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
	if (parse__key_int(tgids, "Tgid", &ts->tgid))
		ts->tgid = 0;
	if (!ppids || parse__key_int(ppids, "PPid", &ts->ppid))
		ts->ppid = -1;
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
	return synth__emit(s, off + synth__put_str(s->rec + off, comm, sizeof(ev->comm)));
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
char *synth__parse_num(char *p, int base, u64 *v, char sep)
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

	p = synth__parse_num(p, 16, &m->start, '-');
	if (p)
		p = synth__parse_num(p, 16, &m->end, ' ');
	if (!p || strlen(p) < 5 || p[4] != ' ')
		return false;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	if (p[3] != 's' && p[3] != 'p')
		return false;
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p = synth__parse_num(p + 5, 16, &m->pgoff, ' ');
	if (p)
		p = synth__parse_num(p, 16, &maj, ':');
	if (p)
		p = synth__parse_num(p, 16, &min, ' ');
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
	n = synth__put_str(s->rec + off, name, PATH_MAX);
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
	int err = 0;
	char *line;
	u64 t0;

	snprintf(path, sizeof(path), "%s/%d/task/%d/maps", proc, pid, pid);
	r = line_reader__open(path, &err);
	if (!r)
		return err == -ENOENT ? -ESRCH : err;
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
	line_reader__close(r);
	return err;
}

/* Maps of a leader; a maps file we cannot read only skips them. */
static int synth__leader_maps(struct synth *s, pid_t pid, pid_t tgid)
{
	int err = synth__maps(s, pid, tgid);

	if (s->emit_err)
		return s->emit_err;
	if (err == -ESRCH)
		synth_stats__vanished(s->o);
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
		pid_t id = synth__parse_pid(de->d_name);

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
int synth__tasks(struct synth *s, pid_t pid, const pid_t *tids, int nr, bool *any)
{
	int i, err = 0;

	for (i = 0; i < nr && !err; i++) {
		pid_t tid = tids[i], parent;
		struct task_status ts;

		if (task_status__read(s, pid, tid, &ts)) {
			synth_stats__vanished(s->o);
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
		synth_stats__vanished(s->o);
	if (nr < 0)
		return nr;
	err = synth__tasks(s, pid, tids, nr, &any);
	free(tids);
	if (!err && !any) {
		synth_stats__vanished(s->o);
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

/* perf's thread-map form: COMM of tid, MMAP2 if it leads. *tgid: its process. */
static int synth__thread(struct synth *s, pid_t tid, bool comm_only, pid_t *tgid)
{
	struct task_status ts;
	int err;

	err = task_status__read(s, 0, tid, &ts);
	if (err) {
		synth_stats__vanished(s->o);
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

int synthesize__lost_samples(struct evlist *evlist, synth_emit_fn emit, void *ctx,
			     u64 *total)
{
	u8 buf[sizeof(struct perf_event_header) + sizeof(u64) + SAMPLE_ID_MAX]
		__attribute__((aligned(8)));
	struct evsel *evsel;
	int i, c, t, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		u64 st = evsel->attr.sample_type;

		for (c = 0; c < evsel->nr_cpus; c++) {
			for (t = 0; t < evsel->nr_threads; t++) {
				struct perf_event_header *h = (void *)buf;
				struct sample_id sid = {
					.pid = (u32)evlist->threads->map[t],
					.tid = (u32)evlist->threads->map[t],
					.id = evsel->ids[c * evsel->nr_threads + t],
					.cpu = (u32)evlist->cpus->map[c].cpu,
				};
				u64 lost = 0;
				size_t size = sizeof(*h) + sizeof(lost);

				if (evsel__read_lost(evsel, c, t, &lost) || !lost)
					continue;
				*total += lost;
				memcpy(buf + sizeof(*h), &lost, sizeof(lost));
				size += sample_id__write(buf + size, st, &sid);
				h->type = PERF_RECORD_LOST_SAMPLES;
				h->misc = 0;
				h->size = (u16)size;
				err = emit(ctx, buf, h->size);
				if (err)
					return err > 0 ? -EIO : err;
			}
		}
	}
	return 0;
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

/* Where perf looks for the cgroups (cgroupfs_find_mountpoint(.., "perf_event")). */
static int cgroup_root(const struct synth_opts *o, char *buf, size_t size)
{
	return cgroup__mountpoint(SYNTH_PATH(o, mounts, "/proc/mounts"), buf, size);
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
	return synth__emit(s, off + synth__put_str(s->rec + off, rel, PATH_MAX));
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

