// SPDX-License-Identifier: GPL-2.0
/*
 * merge-journal.c — consuming a staging directory: the parallel parts give
 * each input's space back as its records reach the output, a journal
 * (DIR/merge.journal) says how far each got, and a later merge finishes
 * one that was killed half-way (merge__resume()).
 *
 * Why. The merge writes its output into new page cache while its inputs
 * hold theirs: a recording's worth of memory nobody touched lately. Where
 * a virtio balloon reports free pages to the host (free page reporting),
 * that memory was handed back, and each first write into it faults on the
 * host: measured on 1.4 GB, 2.1-2.8 s against 0.27 s. A
 * part that punches its inputs' merged ranges out of the files
 * (FALLOC_FL_PUNCH_HOLE, dirty pages and all) frees pages the output's
 * next writes get back at once: the same merge took 0.32-0.37 s. The
 * "punch" is FALLOC_FL_ZERO_RANGE, which drops the
 * pages alike but keeps the blocks, so no discard is waited for
 * (merge__drop_range()); a punch where zeroing is refused. Steps
 * are 2 MiB, aligned, so that no large folio of an input is split (a
 * split unmaps the folio from every thread: TLB shootdowns, most of the
 * time with 4 KiB steps), and each part writes 1 MiB at a
 * time (merge__put_mapped()).
 *
 * Safety. A merge killed half-way must leave what `precord merge DIR`
 * needs: every record is either in the partial output or still in its
 * input, and DIR says which. Before any space goes, the parallel merge
 * writes DIR/merge.journal: the partial output's absolute path, the N of
 * each data.N, each part's range of the output and of every input. Each
 * part then, every `every` bytes of output: writes what it wrote out
 * (pwritev returned: the bytes are in the page cache, which outlives the
 * process), then a journal entry (the bytes of its range written; per
 * input, the next record to read and the records of the window not yet
 * written, which may lie before it), then punches each input up to its
 * first record not yet written. Entries alternate between two slots per
 * part with a sequence number and a checksum, so a torn entry leaves the
 * one before it, which no punch went beyond. merge__resume() merges the
 * parts' written ranges of the partial output with the rest of every input
 * the entries describe. Power loss is not covered: neither the inputs nor
 * the output were ever synced.
 *
 * The end. What is left of the inputs is then no recording: merged again,
 * it would replace the output with one missing what was given back. The
 * journal's magic says how far the end got: MJ_FINISHED before the whole
 * partial output of a consuming merge is renamed to the output (after
 * that, resuming without it would lose its records), MJ_DONE once the
 * output is in place (a resumed merge: after its rename, so that a merge
 * killed before it resumes again, from the partial output still there).
 * The partial output, the inputs and last the journal are then removed;
 * a merge of a DIR whose journal is marked refuses, saying where the
 * output is, and one whose journal is gone refuses inputs that begin
 * with what was given back (merge__check_given_back()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/falloc.h>

#include "merge-internal.h"
#include "precord/output.h"

struct mj_head {
	char	magic[8];
	u32	nr_parts;
	u32	nr_streams;
	u64	slot_size;
	char	tmp[PATH_MAX];	/* the partial output */
};

/* After the head: u64 num[nr_streams], then per part u64 offset, lo[nr_streams], hi[nr_streams]. */
#define MJ_TABLE	(sizeof(struct mj_head))

struct mj_stream {
	u64	pos;			/* the next record to read */
	u64	nr;			/* records read and not yet written */
	u64	win[MERGE_WINDOW];	/* their offsets, in the order to write them */
};

struct mj_slot {
	u64			seq;	/* 0: never written */
	u64			sum;	/* FNV-1a of seq and all after sum */
	u64			done;	/* bytes of the part's output range written */
	struct mj_stream	s[];
};

static u64 mj__slot_size(int nr_streams)
{
	return sizeof(struct mj_slot) + (u64)nr_streams * sizeof(struct mj_stream);
}

static u64 mj__table_size(int nr_parts, int nr_streams)
{
	return 8 * ((u64)nr_streams + (u64)nr_parts * (1 + 2 * (u64)nr_streams));
}

static u64 mj__sum(const struct mj_slot *sl, u64 size)
{
	const u8 *p = (const u8 *)&sl->done, *end = (const u8 *)sl + size;
	u64 h = 0xcbf29ce484222325ULL ^ sl->seq;

	for (; p < end; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h;
}

static int mj__pwrite(int fd, const void *p, u64 len, u64 off)
{
	ssize_t n = pwrite(fd, p, len, (off_t)off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

static int mj__pread(int fd, void *p, u64 len, u64 off)
{
	ssize_t n = pread(fd, p, len, (off_t)off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EINVAL;
}

/*
 * DIR/merge.journal for the parts (their offsets, and each stream's range
 * in its file.pos/end), all slots empty. 0, or -errno and nothing given back.
 */
static int mjournal__create(struct mjournal *j, struct merge *m, const struct mpart *parts,
			    int nr, const struct merge_opts *opts)
{
	u64 table = mj__table_size(nr, m->nr_streams), *t, *q;
	struct mj_head h = { .magic = MJ_MAGIC, .nr_parts = (u32)nr,
			     .nr_streams = (u32)m->nr_streams };
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int i, s, err;

	*j = (struct mjournal){
		.fd = -1, .nr_parts = nr, .nr_streams = m->nr_streams,
		.slot_size = mj__slot_size(m->nr_streams),
		.step = opts->give_step ? opts->give_step : MERGE_GIVE_STEP,
		.fault = opts->fault,
	};
	/* an entry holds every stream's window: one per step, or per step x streams / 32 */
	j->every = j->step * (m->nr_streams > 32 ? (u64)m->nr_streams / 32 : 1);
	j->slots_off = MJ_TABLE + table;
	h.slot_size = j->slot_size;
	err = merge__name_output(m);
	if (err)
		return err;
	if (!realpath(m->tmp, h.tmp))
		return -errno;
	/* whole or not at all: written under another name, renamed once complete */
	snprintf(path, sizeof(path), "%s/%s", m->dir, MERGE_JOURNAL);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	/* 0600 as everything precord writes: it names where the recording went */
	j->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (j->fd < 0)
		return -errno;
	q = t = malloc(table);
	if (!t) {
		unlink(tmp);
		return -ENOMEM;
	}
	for (s = 0; s < m->nr_streams; s++)
		*q++ = (u64)m->streams[s].num;
	for (i = 0; i < nr; i++) {
		*q++ = parts[i].offset;
		for (s = 0; s < m->nr_streams; s++)
			*q++ = parts[i].m.streams[s].file.pos;
		for (s = 0; s < m->nr_streams; s++)
			*q++ = parts[i].m.streams[s].file.end;
	}
	err = mj__pwrite(j->fd, &h, sizeof(h), 0);
	if (!err)
		err = mj__pwrite(j->fd, t, table, MJ_TABLE);
	if (!err && ftruncate(j->fd, (off_t)(j->slots_off + 2 * (u64)nr * j->slot_size)) < 0)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	else
		m->journal = true;
	free(t);
	return err;
}

/*
 * Drop [off, off + len) of an input: its pages leave the page cache and it
 * reads as zeroes. FALLOC_FL_ZERO_RANGE keeps the blocks (they go with the
 * file): a punch frees them, and on a file system mounted with discard the
 * merge then waited on the discards (A/B at -F max -m 32, --threads=cpu, 5
 * pairs: 4.6 against 5.0 GB/s, every pair faster). A punch where zeroing
 * is not supported. 0 or -1.
 */
static int merge__drop_range(int fd, u64 off, u64 len)
{
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -1;
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
}

/*
 * A part's journal entry, then its inputs punched up to the first record
 * not yet written. A failed entry ends the giving back (what was given is
 * journaled); a failed punch ends it for that file.
 */
int merge__give_back(struct merge *m)
{
	struct mjournal *j = m->j;
	struct mj_slot *sl = m->slot;
	int i, err = merge__flush_run(m);

	if (err)
		return err;
	m->next_entry = m->w.bytes + j->every;
	sl->seq = ++m->seq;
	sl->done = m->w.bytes;
	for (i = 0; i < m->nr_streams; i++) {
		struct mstream *s = &m->streams[i];
		unsigned int k;

		sl->s[i].pos = s->file.pos;
		sl->s[i].nr = s->nr;
		for (k = 0; k < s->nr; k++)
			sl->s[i].win[k] = mstream__at(s, k)->off;
	}
	sl->sum = mj__sum(sl, j->slot_size);
	if (mj__pwrite(j->fd, sl, j->slot_size,
		       j->slots_off + ((u64)m->part * 2 + (sl->seq & 1)) * j->slot_size)) {
		m->j = NULL;
		return 0;
	}
	for (i = 0; i < m->nr_streams; i++) {
		struct mfile *f = &m->streams[i].file;
		u64 end = mstream__low(&m->streams[i]) & ~(j->step - 1);

		if (!f->writable || end <= f->given)
			continue;
		/* unmapped first: a punch of mapped pages unmaps them folio by folio */
		madvise((void *)(f->map + f->given), end - f->given, MADV_DONTNEED);
		if (merge__drop_range(f->fd, f->given, end - f->given) < 0) {
			f->writable = false;	/* a copy: the fd stays the merge's */
			continue;
		}
		__atomic_add_fetch(&j->given, end - f->given, __ATOMIC_RELAXED);
		f->given = end;
		if (f->released < end)
			f->released = end;
	}
	i = __atomic_add_fetch(&j->entries, 1, __ATOMIC_RELAXED);
	if (i == j->fault.kill_at)
		raise(SIGKILL);
	if (i == j->fault.fail_at) {
		merge__error(m, "a part failed at journal entry %d, as the test asked", i);
		return -EIO;
	}
	return 0;
}

/* The newest whole entry of part p, or NULL. */
static const struct mj_slot *mj__entry(const u8 *slots, const struct mjournal *j, int p)
{
	const struct mj_slot *a = (const void *)(slots + (u64)p * 2 * j->slot_size);
	const struct mj_slot *b = (const void *)(slots + ((u64)p * 2 + 1) * j->slot_size);
	bool va = a->seq && a->sum == mj__sum(a, j->slot_size);
	bool vb = b->seq && b->sum == mj__sum(b, j->slot_size);

	if (va && vb)
		return a->seq > b->seq ? a : b;
	return va ? a : vb ? b : NULL;
}

/* ---- the partial output of a killed merge ---- */

/*
 * The partial output a journal names. The journal comes from a directory
 * anyone may have prepared, and the file it names is read, then removed
 * once merged: it is taken only if it is the file this merge would have
 * made, OUT.XXXXXX (merge__name_output()) in the directory of the output
 * asked for now (compared canonical: the journal holds the realpath() of
 * the partial output), a regular file of the caller's with no other link,
 * opened without following a symbolic link and checked on that fd. It is
 * opened and removed relative to that directory, so a path component
 * changed meanwhile does not move it elsewhere.
 */
/* Why the file of st is not a partial output this merge made, NULL when it may be. */
static const char *mpartial__refuse(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid())
		return "owned by another user";
	if (st->st_nlink != 1)
		return "a file with other links";
	return NULL;
}

/*
 * Open the partial output path (from the journal) of the merge into out,
 * mapped into f. 0 (p->found false: it is gone), -EPERM when path is not
 * this merge's partial output (nothing is read or removed), or -errno.
 */
static int mpartial__open(struct mpartial *p, struct merge *m, const char *out,
			  const char *path, struct mfile *f)
{
	char dir[PATH_MAX], canon[PATH_MAX], jdir[PATH_MAX], why[PATH_MAX + 64];
	const char *base = path__split(out, dir, sizeof(dir));
	const char *jbase = path__split(path, jdir, sizeof(jdir));
	const char *bad = NULL;
	size_t n = (size_t)merge__tmp_base_len(base);
	int fd, err;

	if (!realpath(dir, canon)) {
		err = -errno;
		merge__error(m, "cannot resolve %s, the directory of %s: %s", dir, out,
			     strerror(-err));
		return err;
	}
	if (strcmp(canon, jdir))
		bad = "not in the output's directory";
	else if (strncmp(jbase, base, n) || jbase[n] != '.' ||
		 strspn(jbase + n + 1, merge_tmp_chars) != 6 || jbase[n + 7] ||
		 n + 7 >= sizeof(p->name))
		bad = "not named as the output's partial file";
	if (bad)
		goto out_refuse;
	memcpy(p->name, jbase, n + 8);
	p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0) {
		err = -errno;
		merge__error(m, "cannot open directory %s: %s", dir, strerror(-err));
		return err;
	}
	/* O_NONBLOCK: a FIFO put there must not hang the merge before it is refused */
	fd = openat(p->dirfd, p->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP) {
		bad = "a symbolic link";
		goto out_refuse;
	}
	if (fd < 0 || fstat(fd, &p->st) < 0) {
		err = -errno;
		merge__error(m, "cannot open %s: %s", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	bad = mpartial__refuse(&p->st);
	if (bad) {
		close(fd);
		goto out_refuse;
	}
	p->found = true;
	*f = (struct mfile){ 0 };
	snprintf(f->name, sizeof(f->name), "the partial merge");
	err = mfile__map(f, fd, path, why, sizeof(why));
	if (err)
		merge__error(m, "%s", why);
	return err;

out_refuse:
	merge__error(m, "%s/" MERGE_JOURNAL " names %s, which is %s, not this merge's partial "
		     "output (%s.XXXXXX, a regular file of yours next to %s): nothing was merged "
		     "or removed; give -o the output the killed merge was writing, or find out "
		     "who prepared %s", m->dir, path, bad, base, out, m->dir);
	return -EPERM;
}

/* Remove the partial output once merged, if its name still is that file. */
static void mpartial__remove(const struct mpartial *p)
{
	struct stat st;

	if (p->found && fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == p->st.st_dev && st.st_ino == p->st.st_ino)
		unlinkat(p->dirfd, p->name, 0);
}

void mpartial__exit(struct mpartial *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->dirfd = -1;
}

static const char mj_damaged[] = "%s/" MERGE_JOURNAL " is damaged (%s); the records it "
				 "describes cannot be merged";

/* A killed merge's journal read back, and the streams that finish it. */
struct mresume {
	struct mj_head	h;
	struct mjournal	j;		/* nr_parts, slot_size */
	u64		*table;		/* after the head */
	u8		*slots;		/* two per part */
	struct mfile	part;		/* the partial output, mapped */
	bool		have_part;	/* it was there */
	struct mstream	*streams;	/* parts' written ranges and the rest of each input */
	int		*heap;
	int		nr;
};

/*
 * The journal's head, table and entries, checked against the data.N files
 * open; room for the streams. 0 or -errno (said, but for -ENOMEM).
 */
static int mresume__read(struct mresume *r, struct merge *m, int jfd)
{
	int s, ns = m->nr_streams, err = mj__pread(jfd, &r->h, sizeof(r->h), 0);
	size_t max;
	u64 table_size;

	if (err || memcmp(r->h.magic, MJ_MAGIC, sizeof(r->h.magic)) || !r->h.nr_parts ||
	    r->h.nr_parts > MERGE_MAX_PARTS || r->h.nr_streams != (u32)ns ||
	    r->h.slot_size != mj__slot_size(ns) || !memchr(r->h.tmp, 0, sizeof(r->h.tmp))) {
		merge__error(m, mj_damaged, m->dir, "its head does not match the data.N files");
		return -EINVAL;
	}
	r->j.nr_parts = (int)r->h.nr_parts;
	r->j.slot_size = r->h.slot_size;
	table_size = mj__table_size(r->j.nr_parts, ns);
	max = (size_t)r->j.nr_parts * (size_t)(ns + 1);
	r->table = malloc(table_size);
	r->slots = malloc(2 * (u64)r->j.nr_parts * r->j.slot_size);
	r->streams = calloc(max, sizeof(*r->streams));
	r->heap = calloc(max, sizeof(*r->heap));
	if (!r->table || !r->slots || !r->streams || !r->heap)
		return -ENOMEM;
	err = mj__pread(jfd, r->table, table_size, MJ_TABLE);
	if (!err)
		err = mj__pread(jfd, r->slots, 2 * (u64)r->j.nr_parts * r->j.slot_size,
				MJ_TABLE + table_size);
	for (s = 0; !err && s < ns; s++)
		if (r->table[s] != (u64)m->streams[s].num)
			err = -EINVAL;
	if (err)
		merge__error(m, mj_damaged, m->dir, "it is short, or names other data.N files");
	return err;
}

/*
 * The range of the partial output a part wrote (t: its table row, e: its
 * entry), as a stream; where the partial output is gone, its records are
 * lost, said as a cut. 0 or -EINVAL (said).
 */
static int mresume__add_output(struct mresume *r, struct merge *m, const u64 *t,
			       const struct mj_slot *e)
{
	u64 page = (u64)sysconf(_SC_PAGESIZE);
	struct mstream *s = &r->streams[r->nr];

	if (!r->have_part) {
		snprintf(m->note, sizeof(m->note), "the partial output of the merge that was "
			 "killed (%.160s) is gone: the records it held are lost", r->h.tmp);
		m->stats->nr_cut++;
		return 0;
	}
	if (t[0] > r->part.map_len || e->done > r->part.map_len - t[0]) {
		merge__error(m, mj_damaged, m->dir, "the partial output is shorter");
		return -EINVAL;
	}
	s->file = r->part;
	s->file.writable = false;
	s->file.pos = t[0];
	s->file.end = t[0] + e->done;
	s->file.released = t[0] & ~(page - 1);
	s->num = -1;
	s->idx = r->nr++;
	return 0;
}

/*
 * What is left of each input in a part's range (t: its table row), from
 * the entry's next record and window (e; NULL: the whole range), as
 * streams. 0 or -EINVAL (said).
 */
static int mresume__add_inputs(struct mresume *r, struct merge *m, const u64 *t,
			       const struct mj_slot *e)
{
	u64 page = (u64)sysconf(_SC_PAGESIZE);
	int s, ns = m->nr_streams;

	for (s = 0; s < ns; s++) {
		struct mfile *f = &r->streams[r->nr].file;
		u64 lo = t[1 + s], hi = t[1 + ns + s];

		*f = m->streams[s].file;
		f->writable = false;
		f->pos = e ? e->s[s].pos : lo;
		f->end = hi;
		if (lo > f->pos || f->pos > hi || hi > f->map_len ||
		    (e && e->s[s].nr > MERGE_WINDOW)) {
			merge__error(m, mj_damaged, m->dir, "a range lies outside its file");
			return -EINVAL;
		}
		f->pending = e ? e->s[s].win : NULL;
		f->nr_pending = e ? (unsigned int)e->s[s].nr : 0;
		f->released = f->pos & ~(page - 1);
		r->streams[r->nr].num = m->streams[s].num;
		r->streams[r->nr].idx = r->nr;
		r->nr++;
	}
	return 0;
}

/* Part p's streams: its written range of the partial output, then its inputs'. */
static int mresume__add_part(struct mresume *r, struct merge *m, int p)
{
	const u64 *t = r->table + m->nr_streams + (u64)p * (1 + 2 * (u64)m->nr_streams);
	const struct mj_slot *e = mj__entry(r->slots, &r->j, p);
	int err = e && e->done ? mresume__add_output(r, m, t, e) : 0;

	return err ? err : mresume__add_inputs(r, m, t, e);
}

static void mresume__exit(struct mresume *r)
{
	int i;

	for (i = 0; r->streams && i < r->nr; i++) {
		zdecomp__delete(r->streams[i].zd);
		free(r->streams[i].arena);
	}
	mfile__close(&r->part);
	free(r->streams);
	free(r->heap);
	free(r->slots);
	free(r->table);
}

/*
 * Finish the merge a journal describes: each part's written range of its
 * partial output, and the rest of every input, merged as the sequential
 * merge does. Nothing is given back. 0 or -errno; *old: the partial output
 * (mpartial__open()), for merge__run() to remove once the output is in place.
 */
int merge__resume(struct merge *m, int jfd, const char *out, struct mpartial *old)
{
	struct mstream *inputs = m->streams;
	int nr_inputs = m->nr_streams, *heap = m->heap, p, err;
	struct mresume r = { 0 };

	err = mresume__read(&r, m, jfd);
	if (!err)
		err = mpartial__open(old, m, out, r.h.tmp, &r.part);
	r.have_part = old->found;
	for (p = 0; !err && p < r.j.nr_parts; p++)
		err = mresume__add_part(&r, m, p);
	if (!err) {
		m->streams = r.streams;
		m->nr_streams = r.nr;
		m->heap = r.heap;
		err = merge__kernel_records(m);
		/* the pending runs may point into the partial output, unmapped below */
		if (!err)
			err = merge__flush_run(m);
		m->stats->resumed = true;
		m->streams = inputs;
		m->nr_streams = nr_inputs;
		m->heap = heap;
	}
	mresume__exit(&r);
	return err;
}

/*
 * The parts give their inputs' space back when the journal could be made
 * and some data.N could be opened for writing; else they only merge.
 */
void merge__consume(struct merge *m, struct mpart *parts, int nr,
			   const struct merge_opts *opts, struct mjournal *j)
{
	int i, s;

	for (s = 0; s < m->nr_streams && !m->streams[s].file.writable; s++)
		;
	if (s == m->nr_streams || mjournal__create(j, m, parts, nr, opts))
		return;
	for (i = 0; i < nr; i++) {
		parts[i].m.slot = calloc(1, j->slot_size);
		if (!parts[i].m.slot)
			return;
	}
	for (i = 0; i < nr; i++) {
		struct merge *pm = &parts[i].m;

		pm->j = j;
		pm->part = i;
		pm->next_entry = j->every;
		for (s = 0; s < pm->nr_streams; s++) {
			struct mfile *f = &pm->streams[s].file;

			f->given = (f->pos + j->step - 1) & ~(j->step - 1);
		}
	}
}

/*
 * Inputs a consuming merge gave back read as zeroes, and so would merge
 * into an output with none of their records (replacing the good one a
 * second `precord merge DIR` would overwrite); they are refused. Ranges go
 * back in aligned steps of at least a page from where each part starts,
 * and the first part starts at offset 0 of every file: a data.N that
 * gave anything back begins with a page of zeroes. The writers leave no
 * such start: the mmap writer, killed in a copy, leaves the copy's header
 * (8 bytes) and at most its first vector unwritten, with the record's
 * body after them, and the room it reserved runs to the end of the file.
 * So a data.N that begins with MERGE_GIVEN_MIN bytes of zeroes and has
 * data after them is refused, and so are data.N files that are all zeroes
 * when no other holds a record (a recording killed before writing one
 * loses nothing by it). A file cut short by zeroes after its records is
 * merged up to them, as before. 0 or -ENODATA, said in m->err.
 */
int merge__check_given_back(struct merge *m, const char *out)
{
	const struct mfile *zero = NULL;
	int i, records = 0;

	for (i = 0; i < m->nr_streams; i++) {
		const struct mfile *f = &m->streams[i].file;
		u64 n = f->map_len < MERGE_GIVEN_MIN ? f->map_len : MERGE_GIVEN_MIN;

		if (!f->map_len)
			continue;
		if (f->map_len < HDR_SIZE || f->map[0] || memcmp(f->map, f->map + 1, n - 1)) {
			records++;	/* a record, or what a killed writer left of one */
			continue;
		}
		if (mfile__zero_tail(f, 0)) {
			zero = zero ? zero : f;
			continue;
		}
		if (n < MERGE_GIVEN_MIN) {
			records++;
			continue;
		}
		merge__error(m, "%s/%s holds zeroes at offset 0 where its first record should "
			     "be, then data: a consuming merge gave its records back as it merged "
			     "them, into the file it wrote; nothing was merged and %s is left as "
			     "it was (%s is no recording now: remove it)", m->dir, f->name, out,
			     m->dir);
		return -ENODATA;
	}
	if (records || !zero)
		return 0;
	merge__error(m, "no data.N of %s holds a record: %s/%s and the others are zeroes from "
		     "offset 0, as a consuming merge leaves its inputs (or a recording killed "
		     "before it wrote any); nothing was merged and %s is left as it was",
		     m->dir, m->dir, zero->name, out);
	return -ENODATA;
}

/* DIR/merge.journal, or -1: a consuming merge that was killed left one. */
int merge__open_journal(const struct merge *m, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", m->dir, MERGE_JOURNAL);
	return m->single ? -1 : open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * A journal its merge marked finished or done: that merge completed, and
 * what is left of DIR is no recording. Refused, saying where the merged
 * file is: -EALREADY; 0 for a journal to resume (merge__resume() checks it).
 */
int merge__check_journal(struct merge *m, int jfd)
{
	struct mj_head h;
	int n;

	if (mj__pread(jfd, &h, sizeof(h), 0) || !memchr(h.tmp, 0, sizeof(h.tmp)))
		return 0;
	/* the output's name: the partial output's, less ".XXXXXX" */
	n = (int)strlen(h.tmp) > 7 ? (int)strlen(h.tmp) - 7 : 0;
	if (!memcmp(h.magic, MJ_FINISHED, sizeof(h.magic)))
		merge__error(m, "%s was merged already and its data.N given back: the merged file "
			     "is %.*s, or %s if the merge was killed before renaming it (rename it "
			     "then); nothing is left to merge: remove %s", m->dir, n, h.tmp, h.tmp,
			     m->dir);
	else if (!memcmp(h.magic, MJ_DONE, sizeof(h.magic)))
		merge__error(m, "%s was merged already, into %.*s, and its data.N given back: "
			     "nothing is left to merge; remove %s", m->dir, n, h.tmp, m->dir);
	else
		return 0;
	return -EALREADY;
}

/* Say in the journal that its merge got this far (MJ_FINISHED, MJ_DONE). 0 or -errno. */
int merge__mark_journal(const char *journal, const char *magic)
{
	int fd = open(journal, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int err = fd < 0 ? -errno : mj__pwrite(fd, magic, 8, 0);

	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * The output is in place and holds what the inputs gave back (this merge
 * consumed them, or finished a merge that did): what is left of DIR is
 * no recording, and merged again it would replace the output with what
 * is left. The journal is marked done first, so that a merge killed while
 * removing leaves a directory later merges refuse (merge__check_journal());
 * then the partial output, the inputs and, last, the journal go. Where the
 * journal cannot be marked, everything stays: a resumed merge then still
 * has its partial output, and merging DIR again gives the same output.
 */
void merge__remove_consumed(struct merge *m, const char *journal, const char *out,
				   const struct mpartial *old, const struct merge_opts *opts)
{
	if (merge__mark_journal(journal, MJ_DONE))
		return;
	if (opts->fault.kill_removing)
		raise(SIGKILL);
	mpartial__remove(old);
	output__remove_dir(m->dir, out);
}
