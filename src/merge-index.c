// SPDX-License-Identifier: GPL-2.0
/*
 * merge-index.c — where each chunk of a data.N file starts and the least
 * and greatest time of the records that start in it: what the parallel
 * merge cuts the files by (merge-parallel.c).
 *
 * Two ways to the same chunks: a walk over a file's record headers at
 * merge time (mwalk__run(), one file per thread), or the record index the
 * streaming threads keep as they write each data.N (merge_index__add(),
 * while the records are hot in their cache), which spares the walk for a
 * file it covers byte for byte (mwalk__from_index()).
 *
 * Threads: the main thread creates the index once DIR/data holds the attrs
 * and ids (they tell where a record's time is); only the streaming thread
 * that writes data.N adds to file N, always whole records in file order;
 * the merge reads it after those threads were joined.
 *
 * Data flow: runs of records (stream.c) or a file mapping (merge-input.c)
 * → mwalk__note() → struct mchunk per chunk → merge__plan().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge-internal.h"

/* What the streaming threads note as they write: one walk per data.N. */
struct merge_index {
	struct header_attrs	attrs;
	struct sample_attrs	clock;
	int			nr_files;
	struct mwalk		*files;
};

/*
 * The record at w->end, of header h, joins the walk: w->end moves past it.
 * false when the walk cannot go on (not a plain file, or no memory).
 */
static bool mwalk__note(struct mwalk *w, const u8 *rec, const struct perf_event_header *h)
{
	u64 pos = w->end, t;

	if (h->type == PERF_RECORD_FINISHED_ROUND) {
		w->end += h->size;
		return true;
	}
	t = sample_attrs__time(w->clock, rec);
	if (h->type >= PERF_RECORD_USER_TYPE_START || !t || t == ~0ULL) {
		w->plain = false;	/* COMPRESSED, AUXTRACE, no time */
		return false;
	}
	if (!w->nr_chunks || pos >= w->chunks[w->nr_chunks - 1].off + w->chunk) {
		if (w->nr_chunks == w->cap) {
			int cap = w->cap ? 2 * w->cap : 64;
			struct mchunk *c = realloc(w->chunks, sizeof(*c) * (size_t)cap);

			if (!c) {
				w->error = -ENOMEM;
				return false;
			}
			w->chunks = c;
			w->cap = cap;
		}
		w->chunks[w->nr_chunks++] = (struct mchunk){ pos, w->kbytes, t, t };
	} else {
		struct mchunk *c = &w->chunks[w->nr_chunks - 1];

		if (t < c->tmin)
			c->tmin = t;
		if (t > c->tmax)
			c->tmax = t;
	}
	w->kbytes += h->size;
	w->end += h->size;
	return true;
}

void mwalk__run(struct mwalk *w)
{
	const struct mfile *f = w->f;
	struct perf_event_header h;

	w->plain = true;
	while (w->end < f->map_len) {
		w->cut = mfile__header_at(f, w->end, &h);
		if (w->cut || !mwalk__note(w, f->map + w->end, &h))
			break;
	}
}

struct merge_index *merge_index__new(const char *dir, int nr_files, u64 chunk)
{
	struct merge_index *idx = calloc(1, sizeof(*idx));
	struct perf_file_header hdr;
	char path[PATH_MAX];
	int fd, i, err;

	if (!idx)
		return NULL;
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : header__read(fd, &hdr);
	if (!err)
		err = header__read_attrs(fd, &hdr, &idx->attrs);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = merge__sample_attrs(&idx->clock, &idx->attrs);
	idx->files = err || nr_files < 1 ? NULL : calloc((size_t)nr_files, sizeof(*idx->files));
	if (!idx->files) {
		merge_index__delete(idx);
		return NULL;
	}
	idx->nr_files = nr_files;
	for (i = 0; i < nr_files; i++)
		idx->files[i] = (struct mwalk){
			.clock = &idx->clock, .chunk = chunk ? chunk : MERGE_CHUNK, .plain = true,
		};
	return idx;
}

void merge_index__delete(struct merge_index *idx)
{
	int i;

	if (!idx)
		return;
	for (i = 0; i < idx->nr_files; i++)
		free(idx->files[i].chunks);
	free(idx->files);
	sample_attrs__exit(&idx->clock);
	header_attrs__exit(&idx->attrs);
	free(idx);
}

void merge_index__add(struct merge_index *idx, int file, const void *run, size_t len)
{
	const u8 *p = run, *end = p + len;
	struct mwalk *w;

	if (!idx || file < 0 || file >= idx->nr_files)
		return;
	w = &idx->files[file];
	/* From a record it cannot place on, the index only counts bytes. */
	while (p < end && w->plain && !w->error) {
		struct perf_event_header h;

		memcpy(&h, p, sizeof(h));	/* a COMPRESSED record before may end unaligned */
		if (!mwalk__note(w, p, &h))
			break;
		p += h.size;
	}
	w->end += (u64)(end - p);
}

/*
 * File s's walk from the index, when the index covers every byte of it
 * with chunks no larger than the walk's; true when taken.
 */
bool mwalk__from_index(struct mwalk *w, const struct merge_index *idx, long num)
{
	const struct mwalk *iw;
	struct mchunk *c;

	if (!idx || num < 0 || num >= idx->nr_files)
		return false;
	iw = &idx->files[num];
	if (iw->error || iw->end != w->f->map_len || iw->chunk > w->chunk)
		return false;
	c = iw->nr_chunks ? malloc(sizeof(*c) * (size_t)iw->nr_chunks) : NULL;
	if (iw->nr_chunks && !c)
		return false;
	if (c)
		memcpy(c, iw->chunks, sizeof(*c) * (size_t)iw->nr_chunks);
	w->chunks = c;
	w->nr_chunks = w->cap = iw->nr_chunks;
	w->chunk = iw->chunk;
	w->end = iw->end;
	w->kbytes = iw->kbytes;
	w->plain = iw->plain;
	w->done = true;
	return true;
}
