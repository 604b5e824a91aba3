// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c — a perf directory (DIR/data + DIR/data.N, perf record --threads'
 * layout and precord's staging directory) into one ordinary perf.data.
 *
 * Output, written once, front to back, into a file next to the output that
 * has no name (O_TMPFILE) until it must outlive the process: named
 * FILE.XXXXXX and renamed into place at the end, or named by the consuming
 * merge's journal before it punches anything (a merge killed before then
 * leaves nothing behind). Where O_TMPFILE is refused, mkstemp() names it
 * from the start:
 *
 *   header | ids | attrs           as in DIR/data (raw attr bytes, its attr_size)
 *   data section:
 *     every record of DIR/data's data section, in its order (synthesized
 *     records, ID_INDEX, FINISHED_INIT, LOST_SAMPLES: none carries a time,
 *     so perf delivers them as it reads them)
 *     every kernel record of every data.N, in time order, with a
 *     FINISHED_ROUND every round_bytes of output
 *   features                        DIR/data's, without DIR_FORMAT, with
 *                                   SAMPLE_TIME from the merged samples and
 *                                   COMPRESSED as the output is
 *
 * The merge (merge-records.c): each data.N is one stream with a reorder
 * window, and a binary heap over the streams' earliest records picks the
 * next record to write, a k-way merge that holds O(files x window)
 * records, never a file.
 *
 * FINISHED_ROUND: perf flushes at a marker every queued record up to the
 * newest time seen before the previous marker, and counts a record older
 * than what it flushed "out of order". A marker goes out before the record
 * that reaches or crosses each multiple of round_bytes of kernel records.
 * Inversions the windows absorb leave the output sorted; a record later
 * than that (its ring held it back by more than MERGE_WINDOW records) is
 * still in order for perf as long as it is late by less than round_bytes of
 * output, since everything newer than it was written after the previous
 * marker.
 *
 * Time of a record, as perf finds it (evlist__event2evsel,
 * evsel__parse_sample_timestamp): the evsel comes from the event id at the
 * first evsel's id position (PERF_SAMPLE_IDENTIFIER: first u64 of a sample,
 * last of a sample_id trailer; else PERF_SAMPLE_ID's place), the only evsel
 * when there is one, the first one for id 0 or no id at all; then TIME at
 * that evsel's position in the sample, or in the sample_id trailer of other
 * kernel records (sample_attrs__time(), src/sample.c). User records and
 * records without a time sort as time 0.
 *
 * In parallel: with several CPUs and enough records, the kernel records are
 * split by time into one part per CPU, merged at once into ranges of the
 * output computed beforehand (merge-parallel.c); the file
 * differs from the one-thread merge's only in where the FINISHED_ROUNDs fall.
 *
 * Consuming (precord's own staging directory, removed once merged): the
 * parallel parts punch each input's merged ranges out of the file as they
 * go, so the output's pages are the inputs' just freed, with a journal
 * (DIR/merge.journal) that lets a later merge__dir() on DIR finish a merge
 * killed half-way (merge-journal.c). Once the output is in place, what is
 * left of DIR goes (merge__remove_consumed()).
 *
 * A data.N that begins with a page of zeroes and has data after them, or
 * data.N files all zeroes where none holds a record, are inputs a
 * consuming merge gave back: refused (merge__check_given_back()).
 *
 * Everything hangs off a struct merge that lives for one merge__dir() call;
 * each part of a parallel merge gets a copy with streams, heap and writer
 * of its own, and shares the rest read-only. The files of the merge, and
 * what each owns, are listed in merge-internal.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "merge-internal.h"

void merge__error(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf__vset(m->err, m->errlen, fmt, ap);
	va_end(ap);
}

static void merge__exit(struct merge *m)
{
	int i;

	for (i = 0; i < m->nr_streams; i++)
		mstream__exit(&m->streams[i]);
	mstream__exit(&m->data);
	free(m->streams);
	free(m->heap);
	sample_attrs__exit(&m->clock);
	header_attrs__exit(&m->attrs);
	header_payloads__free(m->feats, m->nr_feats);
	zcomp__delete(m->zc);
	free(m->chunk);
	free(m->iov);
	free(m->copy);
}

/* One merge__run(): the names it works with and how far it got. */
struct mrun {
	char		tmp[PATH_MAX];		/* the output's temporary name */
	char		journal[PATH_MAX];	/* DIR/merge.journal */
	int		jfd;			/* a killed merge's journal, or -1 */
	bool		resume;			/* there was one: this merge finishes it */
	bool		finished;		/* the journal says tmp is whole */
	struct mpartial	old;			/* the killed merge's partial output */
	u64		data_offset;
};

/*
 * All that is read before a byte is written: a killed merge's journal,
 * DIR/data, the data.N files (refused when given back), the output's
 * temporary file. 0 or -errno (said).
 */
static int merge__open(struct merge *m, struct mrun *r, const char *out,
		       const struct merge_opts *opts)
{
	int err;

	r->jfd = merge__open_journal(m, r->journal, sizeof(r->journal));
	r->resume = r->jfd >= 0;
	err = r->resume ? merge__check_journal(m, r->jfd) : 0;
	if (!err)
		err = merge__open_data(m);
	if (!err)
		err = merge__open_streams(m, opts->consume && !r->resume);
	if (!err && !r->resume)
		err = merge__check_given_back(m, out);
	if (!err)
		err = merge__open_output(m, out, r->tmp, sizeof(r->tmp));
	return err;
}

/*
 * The whole output under its temporary name: DIR/data's records, the
 * kernel records (finishing a killed merge, in parts, or on this thread),
 * the features. 0 or -errno (said).
 */
static int merge__write(struct merge *m, struct mrun *r, const char *out,
			const struct merge_opts *opts)
{
	int err = merge__start_output(m, opts->comp_level, &r->data_offset);

	if (!err)
		err = merge__data_records(m);
	if (!err && r->resume)
		err = merge__resume(m, r->jfd, out, &r->old);
	else if (!err)
		err = merge__parallel(m, opts);
	if (!err && !r->resume)
		err = merge__kernel_records(m);
	else if (err > 0)
		err = 0;
	if (!err)
		err = merge__finish_output(m, opts->comp_level, r->data_offset);
	writer__close(&m->w);
	/*
	 * Nothing at all to merge (a recording killed before its first
	 * record reached a file): perf rejects a file with no data, so none
	 * is written, and the exit says why.
	 */
	if (!err && !m->stats->records && !m->stats->data_records && !m->given) {
		err = -ENODATA;
		merge__error(m, "%s holds no records: the recording was killed before it wrote "
			     "any, so there is nothing to %s", m->dir, m->single ? "finish" : "merge");
	}
	return err;
}

/*
 * The written output renamed into place. Inputs given back: once tmp is
 * the output, the journal could only resume the merge without its partial
 * output, so it says first that tmp is whole. 0 or -errno (said).
 */
static int merge__rename_output(struct merge *m, struct mrun *r, const char *out)
{
	int err;

	if (m->given) {
		err = merge__mark_journal(r->journal, MJ_FINISHED);
		if (err) {
			merge__error(m, "cannot mark %s finished: %s", r->journal, strerror(-err));
			return err;
		}
		r->finished = true;
	}
	if (rename(r->tmp, out) < 0) {
		err = -errno;
		merge__error(m, "cannot rename %s to %s: %s", r->tmp, out, strerror(errno));
		return err;
	}
	return 0;
}

/*
 * A merge that failed: its message, then what it made goes, but where
 * inputs were given back: what left them is in tmp, and both stay for
 * merge__resume(), said at the end of the message.
 */
static void merge__fail(struct merge *m, const struct mrun *r, const char *out, int err)
{
	size_t n;

	if (m->errlen && !m->err[0])
		merge__error(m, "cannot merge %s into %s: %s", m->dir, out, strerror(-err));
	if (!m->given) {
		if (m->tmp_named)
			unlink(r->tmp);
		if (m->journal)
			unlink(r->journal);
		return;
	}
	n = strlen(m->err);
	if (n < m->errlen && r->finished)
		snprintf(m->err + n, m->errlen - n, " (the merged file is %s: rename "
			 "it to %s, then remove %s)", r->tmp, out, m->dir);
	else if (n < m->errlen)
		snprintf(m->err + n, m->errlen - n, " (the merged part is in %s, and "
			 "%s/" MERGE_JOURNAL " says what is where: 'precord merge %s' "
			 "finishes the merge)", r->tmp, m->dir, m->dir);
}

static int merge__run(struct merge *m, const char *out, const struct merge_opts *opts)
{
	struct mrun r = { .jfd = -1, .old = { .dirfd = -1 } };
	int err = merge__open(m, &r, out, opts);

	if (err) {
		if (r.jfd >= 0)
			close(r.jfd);
		return err;
	}
	err = merge__write(m, &r, out, opts);
	if (r.jfd >= 0)
		close(r.jfd);
	if (!err && opts->fault.kill_unnamed)
		raise(SIGKILL);
	if (!err) {
		err = merge__name_output(m);
		if (err)
			merge__error(m, "cannot name the merged file %s: %s", r.tmp, strerror(-err));
	}
	if (close(m->fd) < 0 && !err)
		err = -errno;
	if (!err)
		err = merge__rename_output(m, &r, out);
	if (!err && (m->given || r.resume))
		merge__remove_consumed(m, r.journal, out, &r.old, opts);
	else if (!err && m->journal)
		unlink(r.journal);
	else if (err)
		merge__fail(m, &r, out, err);
	mpartial__exit(&r.old);
	return err;
}

int merge__dir(const char *dir, const char *out_path, const struct merge_opts *opts,
	       struct merge_stats *stats, char *err, size_t errlen)
{
	static const struct merge_opts defaults;
	struct merge_stats local;
	struct merge m = {
		.dir = dir, .err = err, .errlen = err ? errlen : 0, .fd = -1,
	};
	double start = clock__now_s();
	struct stat sb;
	int ret;

	if (!opts)
		opts = &defaults;
	m.stats = stats ? stats : &local;
	*m.stats = (struct merge_stats){ 0 };
	m.single = m.stats->single = stat(dir, &sb) == 0 && S_ISREG(sb.st_mode);
	m.round_bytes = opts->round_bytes ? opts->round_bytes : MERGE_ROUND_BYTES;
	if (m.errlen)
		err[0] = '\0';
	if (opts->comp_level < 0 || opts->comp_level > ZCOMP_LEVEL_MAX) {
		merge__error(&m, "compression level %d is out of range (%d-%d)",
			     opts->comp_level, ZCOMP_LEVEL_MIN, ZCOMP_LEVEL_MAX);
		return -EINVAL;
	}
	ret = merge__run(&m, out_path, opts);
	if (!ret && m.note[0] && m.errlen)
		snprintf(err, errlen, "%s", m.note);
	merge__exit(&m);
	m.stats->seconds = clock__now_s() - start;
	return ret;
}
