// SPDX-License-Identifier: GPL-2.0
/*
 * merge-parallel.c — the kernel records of a merge split by time into
 * parts, one per CPU, merged at once into ranges of the output computed
 * beforehand. The file differs from the one-thread merge's only in where
 * the FINISHED_ROUNDs fall.
 *
 * Part p takes every record with a time in [T_p, T_p+1), from each data.N
 * the run of records between two cuts, and merges them as the sequential
 * merge does, with its own streams, heap and writer, into its own range of
 * the output. A part's range is known before it starts: its bytes are the
 * records between its cuts, and its FINISHED_ROUNDs floor(bytes /
 * round_bytes) (merge__put_kernel()).
 *
 * A cut in a file must be clean: every record before it earlier than T,
 * every record from it on at T or later, so the parts' outputs follow each
 * other in time. A walk over each file's record headers (in parallel, one
 * file per thread) notes every MERGE_CHUNK of input the least and the
 * greatest time of the records that start in it; a cut is then looked for
 * in the one chunk that holds T, and a T with no clean cut in some file
 * (an inversion across it) is dropped. The walk's faults map the pages the
 * parts then read. When the recording ran in this process, its streaming
 * threads noted the same chunks as they wrote each file (merge_index, the
 * records hot in their cache) and a file the index covers to its last byte
 * is not walked. Measured on 1 GB in two files: the merge takes 12% less
 * (0.206 s against 0.236 s; the walk was a fifth of it, but its page
 * faults move to the parts).
 *
 * The parts write with pwritev(2), each into its own range, after one
 * posix_fallocate() of all of them (a full disk is -ENOSPC before any part
 * starts). Writes to one file take its inode lock in turn, but each part
 * gathers its next runs while the other copies, and the page cache's write
 * path (large folios, no page zeroed first) beats shared mappings of the
 * output: on ext4, 1 GB merged in 0.190-0.215 s this way against
 * 0.230-0.247 s through 64 MiB WRITER_MMAP windows (same directory,
 * alternating), the same bytes.
 *
 * Only plain files split: a COMPRESSED or AUXTRACE record, a record without
 * a time, compressed output, or FINISHED_ROUNDs closer than the longest
 * record, and the merge runs on one thread. Threads are plain pthreads with
 * every signal blocked (the caller's thread handles them): a merge lasts a
 * fraction of a second, less than a pool takes to discover the topology.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "merge-internal.h"

/*
 * The clean cut of a walked file at time t: *pos, the first record at t or
 * later, and *kbytes, the kernel bytes before it; -1 when some record after
 * the cut is earlier than t.
 */
static int mwalk__cut(const struct mwalk *w, u64 t, u64 *pos, u64 *kbytes)
{
	const struct mfile *f = w->f;
	struct perf_event_header h;
	u64 p, stop, kb, rt;
	bool found = false;
	int k, j;

	for (k = 0; k < w->nr_chunks && w->chunks[k].tmax < t; k++)
		;
	if (k == w->nr_chunks) {
		*pos = w->end;
		*kbytes = w->kbytes;
		return 0;
	}
	for (j = k + 1; j < w->nr_chunks; j++)
		if (w->chunks[j].tmin < t)
			return -1;
	p = w->chunks[k].off;
	kb = w->chunks[k].kbytes;
	stop = k + 1 < w->nr_chunks ? w->chunks[k + 1].off : w->end;
	while (p < stop) {
		memcpy(&h, f->map + p, sizeof(h));
		if (h.type != PERF_RECORD_FINISHED_ROUND) {
			rt = sample_attrs__time(w->clock, f->map + p);
			if (!found && rt >= t) {
				found = true;
				*pos = p;
				*kbytes = kb;
			} else if (found && rt < t) {
				return -1;
			}
			kb += h.size;
		}
		p += h.size;
	}
	return found ? 0 : -1;
}

/*
 * fn(arg + i * size) for i in [0, n): 0 on the caller, the others on
 * threads with every signal blocked; what cannot get a thread runs on the
 * caller after 0.
 */
static void merge__threads(int n, void *(*fn)(void *), void *arg, size_t size)
{
	pthread_t *th = n > 1 ? calloc((size_t)n, sizeof(*th)) : NULL;
	sigset_t all, old;
	int i, started = 1;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 1; th && i < n; i++) {
		if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size))
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fn(arg);
	for (i = started; i < n; i++)
		fn((char *)arg + (size_t)i * size);
	for (i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

struct mwalk_job {
	struct mwalk	*walks;
	int		nr, first, step;
};

static void *mwalk__thread(void *arg)
{
	struct mwalk_job *job = arg;
	int i;

	for (i = job->first; i < job->nr; i += job->step)
		if (!job->walks[i].done)
			mwalk__run(&job->walks[i]);
	return NULL;
}

static int mchunk__cmp_tmax(const void *a, const void *b)
{
	const struct mchunk *x = a, *y = b;

	return x->tmax < y->tmax ? -1 : x->tmax > y->tmax;
}

/*
 * The times to cut at: where the kernel bytes, counted chunk by chunk in
 * the order of the chunks' latest times, reach p/nr of the whole; each with
 * a clean cut in every file (cuts[t * nr_streams + s]). The number found.
 */
static int merge__plan(struct merge *m, const struct mwalk *walks, int nr,
		       u64 *cuts, u64 *kcuts)
{
	struct mchunk *all;
	u64 total = 0, acc = 0, last_t = 0;
	int s, i, n = 0, found = 0, p = 1;

	for (s = 0; s < m->nr_streams; s++)
		n += walks[s].nr_chunks;
	all = malloc(sizeof(*all) * (size_t)(n ? n : 1));
	if (!all)
		return -ENOMEM;
	n = 0;
	for (s = 0; s < m->nr_streams; s++) {
		const struct mwalk *w = &walks[s];

		for (i = 0; i < w->nr_chunks; i++) {
			u64 next = i + 1 < w->nr_chunks ? w->chunks[i + 1].kbytes : w->kbytes;

			all[n] = w->chunks[i];
			all[n].kbytes = next - w->chunks[i].kbytes;	/* its bytes */
			total += all[n++].kbytes;
		}
	}
	qsort(all, (size_t)n, sizeof(*all), mchunk__cmp_tmax);
	for (i = 0; i < n && p < nr; i++) {
		u64 t = all[i].tmax + 1;	/* chunk i in the part before the cut */

		acc += all[i].kbytes;
		if (acc * (u64)nr < total * (u64)p)
			continue;
		p++;
		if (t <= last_t)
			continue;
		for (s = 0; s < m->nr_streams; s++)
			if (mwalk__cut(&walks[s], t, &cuts[found * m->nr_streams + s],
				       &kcuts[found * m->nr_streams + s]))
				break;
		if (s < m->nr_streams)
			continue;	/* an inversion across t: one part fewer */
		last_t = t;
		found++;
	}
	free(all);
	return found;
}

static void *mpart__thread(void *arg)
{
	struct mpart *p = arg;
	struct merge *m = &p->m;

	/* a part that fails leaves the others' output in place (the journal counts on it) */
	p->ret = writer__open_region(&m->w, m->fd, p->offset, p->size, MERGE_WRITE_BUF);
	if (!p->ret)
		p->ret = merge__kernel_records(m);
	if (!p->ret)
		p->ret = merge__flush_run(m);
	if (!p->ret)
		p->ret = writer__flush(&m->w);
	/* the part's last entry: all of it written, what is left of its inputs punched */
	if (!p->ret && m->j)
		p->ret = merge__give_back(m);
	if (!p->ret && m->w.bytes != p->size) {
		merge__error(m, "a part of the parallel merge wrote %llu bytes instead of %llu",
			     (unsigned long long)m->w.bytes, (unsigned long long)p->size);
		p->ret = -EIO;
	}
	writer__close(&m->w);
	return NULL;
}

/* Part i of nr: the records between cut i-1 and cut i of every file. */
static int mpart__init(struct mpart *p, const struct merge *m, const struct mwalk *walks,
		       const u64 *cuts, const u64 *kcuts, int i, int nr)
{
	u64 page = (u64)sysconf(_SC_PAGESIZE), kb = 0;
	int s, ns = m->nr_streams;

	p->m = *m;
	p->m.stats = &p->stats;
	p->m.err = p->err;
	p->m.errlen = sizeof(p->err);
	p->m.data = (struct mstream){ 0 };
	p->m.w = (struct writer){ 0 };
	p->m.iov = malloc(sizeof(*p->m.iov) * MERGE_IOV);
	p->m.copy = malloc(MERGE_COPY_BUF);
	p->m.nr_iov = 0;
	p->m.copy_len = 0;
	p->m.round_pos = 0;
	p->m.nr_heap = 0;
	p->m.streams = calloc((size_t)ns, sizeof(*p->m.streams));
	p->m.heap = calloc((size_t)ns, sizeof(*p->m.heap));
	if (!p->m.streams || !p->m.heap || !p->m.iov || !p->m.copy)
		return -ENOMEM;
	for (s = 0; s < ns; s++) {
		struct mstream *ps = &p->m.streams[s];
		u64 lo = i ? cuts[(i - 1) * ns + s] : 0;
		u64 hi = i < nr - 1 ? cuts[i * ns + s] : walks[s].end;
		u64 klo = i ? kcuts[(i - 1) * ns + s] : 0;
		u64 khi = i < nr - 1 ? kcuts[i * ns + s] : walks[s].kbytes;

		ps->idx = m->streams[s].idx;
		ps->file = m->streams[s].file;	/* the same mapping, not owned */
		ps->file.pos = lo;
		ps->file.end = hi;
		ps->file.released = lo & ~(page - 1);
		kb += khi - klo;
	}
	p->size = kb + 8 * (kb / m->round_bytes);
	return 0;
}

/* A part's counts into the merge's. */
static void merge_stats__add(struct merge_stats *a, const struct merge_stats *b)
{
	a->records += b->records;
	a->bytes_in += b->bytes_in;
	a->rounds += b->rounds;
	a->samples += b->samples;
	a->lost_records += b->lost_records;
	a->lost_samples += b->lost_samples;
	a->lost += b->lost;
	if (b->first_time && (!a->first_time || b->first_time < a->first_time))
		a->first_time = b->first_time;
	if (b->last_time > a->last_time)
		a->last_time = b->last_time;
}

static void mpart__exit(struct mpart *p)
{
	free(p->m.slot);
	free(p->m.iov);
	free(p->m.copy);
	free(p->m.streams);
	free(p->m.heap);
}

/*
 * tmpfs allocates and clears the pages of posix_fallocate() under the
 * inode lock, on one thread: measured there (bench/merge-vs-dd.sh, 2 CPUs),
 * two threads merged no faster than one (0.57 s against 0.56 s for 1 GB),
 * against 13% faster on ext4. One thread on tmpfs.
 */
static bool merge__on_tmpfs(const struct merge *m)
{
	struct statfs sf;

	return fstatfs(m->fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

static int merge__cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

/* What one parallel merge works on; mplan__exit() frees it. */
struct mplan {
	int		nr;		/* parts */
	u64		min;		/* least kernel bytes per part */
	struct mwalk	*walks;		/* one per stream */
	u64		*cuts, *kcuts;	/* per cut t, per stream s: [t * nr_streams + s] */
	struct mpart	*parts;
	u64		end;		/* the output's offset after the last part */
};

/* How many parts the files are worth before they are walked; < 2: none. */
static int merge__nr_parts(const struct merge *m, const struct merge_opts *opts, u64 min)
{
	int nr = opts->jobs ? opts->jobs : merge__cpus(), s;
	u64 total = 0;

	if (nr > MERGE_MAX_PARTS)
		nr = MERGE_MAX_PARTS;
	if (nr < 2 || m->zc || !m->nr_streams || m->round_bytes < MERGE_MAX_RECORD ||
	    merge__on_tmpfs(m))
		return 0;
	for (s = 0; s < m->nr_streams; s++)
		total += m->streams[s].file.map_len;
	if (total / min < (u64)nr)
		nr = (int)(total / min);
	return nr;
}

/*
 * Every file's chunks, from the index or from a walk (one file per thread,
 * at most one thread per part): 1 when every file is plain, 0 when one is
 * not (the merge is left to one thread), or -errno.
 */
static int mplan__walk(struct mplan *p, struct merge *m, const struct merge_index *index)
{
	int t = p->nr < m->nr_streams ? p->nr : m->nr_streams, s, i, n = 0;
	struct mwalk_job *jobs;

	p->walks = calloc((size_t)m->nr_streams, sizeof(*p->walks));
	jobs = calloc((size_t)t, sizeof(*jobs));
	if (!p->walks || !jobs) {
		free(jobs);
		return -ENOMEM;
	}
	for (s = 0; s < m->nr_streams; s++) {
		p->walks[s] = (struct mwalk){
			.clock = &m->clock, .f = &m->streams[s].file,
			.chunk = p->min / MERGE_CHUNK_PARTS < MERGE_CHUNK ?
				 p->min / MERGE_CHUNK_PARTS + 1 : MERGE_CHUNK,
		};
		if (mwalk__from_index(&p->walks[s], index, m->streams[s].num))
			n++;
	}
	if (n < m->nr_streams) {
		for (i = 0; i < t; i++)
			jobs[i] = (struct mwalk_job){ p->walks, m->nr_streams, i, t };
		merge__threads(t, mwalk__thread, jobs, sizeof(*jobs));
	}
	free(jobs);
	for (s = 0; s < m->nr_streams; s++) {
		if (p->walks[s].error)
			return p->walks[s].error;
		if (!p->walks[s].plain)
			return 0;
	}
	return 1;
}

/*
 * The times the parts are cut at, counted on the records, not the files
 * (an mmap writer's files end in reserved zeroes): the number of parts,
 * 0 when fewer than two, or -ENOMEM.
 */
static int mplan__cut(struct mplan *p, struct merge *m)
{
	size_t n;
	u64 total = 0;
	int s;

	for (s = 0; s < m->nr_streams; s++)
		total += p->walks[s].kbytes;
	if (total / p->min < (u64)p->nr)
		p->nr = (int)(total / p->min);
	if (p->nr < 2)
		return 0;
	n = (size_t)p->nr * (size_t)m->nr_streams;
	p->cuts = calloc(n, sizeof(*p->cuts));
	p->kcuts = calloc(n, sizeof(*p->kcuts));
	if (!p->cuts || !p->kcuts)
		return -ENOMEM;
	p->nr = merge__plan(m, p->walks, p->nr, p->cuts, p->kcuts) + 1;
	return p->nr < 2 ? 0 : p->nr;
}

/* Where a file ends before its last byte: said once, as the sequential merge does. */
static void mplan__note_cuts(const struct mplan *p, struct merge *m)
{
	int s;

	for (s = 0; s < m->nr_streams; s++) {
		struct mfile *f = &m->streams[s].file;

		if (!p->walks[s].cut)
			continue;
		f->pos = p->walks[s].end;
		merge__cut(m, f, p->walks[s].cut);
		f->pos = 0;
	}
}

/*
 * Each part at its range of the output, after what is written so far, and
 * all the parts' room at once: a full disk is -ENOSPC here, before any
 * part starts. 0 or -errno.
 */
static int mplan__place_parts(struct mplan *p, struct merge *m)
{
	int i, err = merge__flush_run(m);
	u64 off;

	if (!err)
		err = writer__flush(&m->w);
	p->parts = calloc((size_t)p->nr, sizeof(*p->parts));
	if (!err && !p->parts)
		err = -ENOMEM;
	for (i = 0, off = m->w.offset; !err && i < p->nr; i++) {
		err = mpart__init(&p->parts[i], m, p->walks, p->cuts, p->kcuts, i, p->nr);
		p->parts[i].offset = off;
		off += p->parts[i].size;
	}
	while (!err && off > m->w.offset) {
		err = -posix_fallocate(m->fd, (off_t)m->w.offset, (off_t)(off - m->w.offset));
		if (err != -EINTR)
			break;
		err = 0;
	}
	p->end = off;
	if (err)
		merge__error(m, "cannot make room for the merged records in the output: %s",
			     strerror(-err));
	return err;
}

/* The parts, on their threads; they give their inputs back as they go (consume). */
static void mplan__run(struct mplan *p, struct merge *m, const struct merge_opts *opts)
{
	struct mjournal j = { .fd = -1 };

	if (opts->consume)
		merge__consume(m, p->parts, p->nr, opts, &j);
	merge__threads(p->nr, mpart__thread, p->parts, sizeof(*p->parts));
	if (j.fd >= 0)
		close(j.fd);
	m->stats->given_back = j.given;
	m->stats->journal_entries = j.entries;
	m->given = j.given > 0;
}

/* The first error of a part (its message the merge's), or their counts added up: 0. */
static int mplan__collect(const struct mplan *p, struct merge *m)
{
	int i;

	for (i = 0; i < p->nr; i++) {
		if (p->parts[i].ret) {
			if (p->parts[i].err[0])
				merge__error(m, "%s", p->parts[i].err);
			return p->parts[i].ret;
		}
		merge_stats__add(m->stats, &p->parts[i].stats);
	}
	return 0;
}

static void mplan__exit(struct mplan *p, const struct merge *m)
{
	int i, s;

	for (i = 0; p->parts && i < p->nr; i++)
		mpart__exit(&p->parts[i]);
	for (s = 0; p->walks && s < m->nr_streams; s++)
		free(p->walks[s].chunks);
	free(p->parts);
	free(p->cuts);
	free(p->kcuts);
	free(p->walks);
}

/*
 * The kernel records in parts at once, when the files split (above): 1
 * when they were merged that way, 0 when they are left to the sequential
 * merge, or -errno.
 */
int merge__parallel(struct merge *m, const struct merge_opts *opts)
{
	struct mplan p = { .min = opts->part_min ? opts->part_min : MERGE_PART_MIN };
	int s, err;

	p.nr = merge__nr_parts(m, opts, p.min);
	if (p.nr < 2)
		return 0;
	err = mplan__walk(&p, m, opts->index);
	if (err > 0)
		err = mplan__cut(&p, m);
	if (err <= 0)
		goto out;
	mplan__note_cuts(&p, m);
	err = mplan__place_parts(&p, m);
	if (!err) {
		mplan__run(&p, m, opts);
		err = mplan__collect(&p, m);
	}
	if (!err)
		err = writer__skip(&m->w, p.end - m->w.offset);
	if (!err) {
		m->stats->parts = p.nr;
		for (s = 0; s < m->nr_streams; s++)
			m->stats->indexed += p.walks[s].done;
		err = 1;
	}
out:
	mplan__exit(&p, m);
	return err;
}
