// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize-parallel.c — the system-wide walk of /proc on a workqueue
 * (synthesize__all_parallel()), the same records in the same order as
 * synthesize.c's serial walk.
 *
 * N participants (the caller and N - 1 pool workers, through
 * wq__parallel_for() over N indexes) claim the pids of /proc one at a time
 * from an atomic cursor and append whole processes to their own growable
 * buffers, without locks. A process of
 * more than SYNTH_SPLIT_TASKS tasks is split: whoever claimed it publishes
 * its task list in pieces of SYNTH_PIECE_TASKS tids while still reading
 * it, and any participant out of pids synthesizes pieces (a mutex guards
 * only that list of pieces), so one process of 10 000 threads spreads over
 * every participant. Once all are done, the caller emits the buffered
 * records in pid order (pieces in task order), from its own thread: the
 * serial walk's records in the serial walk's order. Memory: every record
 * of the walk is held until it ends.
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
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/threadmap.h"
#include "precord/sample.h"
#include "precord/util.h"
#include "wq.h"
#include "synthesize-internal.h"

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
		pid_t tid = synth__parse_pid(de->d_name);

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
			synth_stats__vanished(p->o);
		return err == ENOMEM ? -ENOMEM : 0;	/* gone or unreadable: skipped */
	}
	while (nr <= SYNTH_SPLIT_TASKS && (de = readdir(d))) {
		pid_t tid = synth__parse_pid(de->d_name);

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
		synth_stats__vanished(p->o);
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
			synth_stats__vanished(p->o);
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
