/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge-internal.h — what the files of the merge share, and nothing else
 * includes. The merge is one module (include/precord/merge.h) cut into
 * files by what they own:
 *
 *   merge.c           the order of a merge: open, write, name, rename, fail
 *   merge-data.c      DIR/data: header, attrs, features, its data section
 *   merge-input.c     the input files: mapped, the data.N listed and opened
 *   merge-records.c   every record's path: read from its file into its
 *                     stream's reorder window, the heap, the runs written
 *                     (FINISHED_ROUNDs, compression)
 *   merge-output.c    the output file: its temporary name, header, features
 *   merge-index.c     chunks of records and their time ranges (a walk, or
 *                     what the streaming threads noted as they wrote)
 *   merge-parallel.c  the kernel records split by time into parts merged at once
 *   merge-journal.c   consuming a staging directory: its journal, giving
 *                     input back, finishing a merge that was killed
 *
 * Data flow: DIR/data (merge-data.c) and data.N (merge-input.c) → streams →
 * the heap (merge-records.c) or the parts (merge-parallel.c, planned on the
 * chunks of merge-index.c) → runs of records (merge-records.c) → the
 * output file (merge-output.c);
 * merge-journal.c notes how far each part got and punches what it merged.
 */
#ifndef PRECORD_MERGE_INTERNAL_H
#define PRECORD_MERGE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/stat.h>

#include "precord/merge.h"
#include "precord/merge-index.h"
#include "precord/header.h"
#include "precord/compress.h"
#include "precord/writer.h"
#include "precord/sample.h"
#include "precord/util.h"

#define MERGE_ROUND_BYTES	(4ULL << 20)	/* default FINISHED_ROUND spacing */
#define MERGE_WINDOW		64		/* records a stream holds to undo inversions */
#define MERGE_WRITE_BUF		(4 << 20)	/* the writer's staging buffer */
#define MERGE_IOV		1024		/* runs written by one pwritev() */
#define MERGE_COPY_BUF		(1 << 20)	/* pending records that may move */
#define MERGE_RELEASE_STEP	(8ULL << 20)	/* give consumed input back this often */
#define MERGE_ARENA_SIZE	(1 << 20)	/* first size of a stream's decompressed arena */
#define MERGE_DIR_VERSION	1		/* HEADER_DIR_FORMAT of data.N directories */
#define MERGE_GIVE_STEP		(2ULL << 20)	/* give input space back in aligned steps */
#define MERGE_GIVE_WRITE	(1 << 20)	/* bytes a consuming part writes at once */
#define MERGE_JOURNAL		"merge.journal"
#define MERGE_GIVEN_MIN		4096		/* leading zeroes that were given back */
/* The walk notes one time range per MERGE_CHUNK of input, or per 1/8 of the least part. */
#define MERGE_CHUNK		(1ULL << 20)
#define MERGE_CHUNK_PARTS	8
#define MERGE_PART_MIN		(8ULL << 20)	/* least kernel bytes worth a part */
#define MERGE_MAX_PARTS		64
#define MERGE_MAX_RECORD	65536ULL	/* header.size is a u16 */

#define HDR_SIZE		sizeof(struct perf_event_header)

/* A record held in a stream's window. */
struct wrec {
	u64	time;
	u64	off;		/* in the file mapping, or in the arena */
	u32	size;
	bool	in_arena;
};

struct mfile {
	char		name[32];	/* "data.3", for messages */
	const u8	*map;		/* the whole file, read-only; NULL when empty */
	u64		map_len;
	u64		pos;		/* next record */
	u64		end;		/* end of the records */
	u64		released;	/* [0, released) given back with MADV_DONTNEED */
	int		fd;		/* read-write, to give space back (consume) */
	bool		writable;	/* fd is open and ours */
	u64		given;		/* punched out of the file up to here (a part: from its range's start) */
	const u64	*pending;	/* records to read before pos (a resumed window) */
	unsigned int	nr_pending;
};

struct mstream {
	int		idx;		/* order among the streams: breaks time ties */
	long		num;		/* N of data.N */
	struct mfile	file;
	struct zdecomp	*zd;		/* created at the first COMPRESSED record */
	u8		*arena;		/* decompressed records */
	size_t		arena_len, arena_cap, arena_pos;
	struct wrec	win[MERGE_WINDOW];	/* circular, sorted by time */
	unsigned int	head, nr;
};

struct mjournal;
struct mj_slot;

struct merge {
	const char		*dir;
	struct merge_stats	*stats;
	char			*err;
	size_t			errlen;
	int			error;		/* first -errno of a stream; ends the merge */
	char			note[256];	/* the first stream cut short */

	/* I: from DIR/data, read-only while merging */
	struct perf_file_header	hdr;
	struct header_attrs	attrs;
	struct sample_attrs	clock;		/* where each record's id and time are */
	struct header_payload	*feats;
	int			nr_feats;
	bool			data_unfinished;	/* data size 0, no features: killed */
	bool			single;		/* dir is a perf.data file, not a directory */

	struct mstream		data;		/* DIR/data's data section */
	struct mstream		*streams;	/* the data.N files */
	int			nr_streams;
	int			*heap;		/* stream indexes, earliest head first */
	int			nr_heap;

	/* output */
	int			fd;
	struct writer		w;
	struct iovec		*iov;		/* pending output, MERGE_IOV runs */
	int			nr_iov;
	size_t			iov_bytes;
	u8			*copy;		/* MERGE_COPY_BUF: pending bytes that may move */
	size_t			copy_len;
	struct zcomp		*zc;
	u8			*chunk;		/* kernel records waiting to be compressed */
	size_t			chunk_len;
	u64			round_bytes;
	u64			round_pos;	/* kernel records written, in bytes */

	/* consume: a part's journal entries (NULL: nothing given back) */
	struct mjournal		*j;
	struct mj_slot		*slot;		/* the part's next entry */
	int			part;
	u64			seq;		/* entries this part wrote */
	u64			next_entry;	/* output bytes at which to write the next */
	char			*tmp;		/* the output's temporary name, PATH_MAX */
	bool			tmp_named;	/* tmp exists (else the output has no name yet) */
	bool			journal;	/* dir/merge.journal was made by this merge */
	bool			given;		/* and space was given back: keep it on error */
};

/* One part of a parallel merge (merge-parallel.c). */
struct mpart {
	struct merge		m;	/* shared read-only; own streams, heap, writer */
	struct merge_stats	stats;
	char			err[256];
	u64			offset;	/* in the output */
	u64			size;	/* its records and FINISHED_ROUNDs */
	int			ret;
};

/* The journal of a consuming merge, DIR/merge.journal (merge-journal.c). */
struct mjournal {
	int	fd;
	int	nr_parts, nr_streams;
	u64	slots_off;
	u64	slot_size;
	u64	step;		/* punch in aligned steps of this many bytes */
	u64	every;		/* output bytes between two entries of a part */
	struct merge_faults fault;	/* tests: stop at an entry */
	int	entries;	/* written, all parts */
	u64	given;		/* bytes punched, all parts */
};

/* The journal's magic: how far the merge that wrote it got. */
#define MJ_MAGIC	"PRECMJ1"
#define MJ_FINISHED	"PRECMJF"	/* the merged file is whole, as tmp, to be renamed */
#define MJ_DONE		"PRECMJD"	/* the output is in place: DIR is being removed */

/*
 * The partial output a journal names, opened to be merged and removed once
 * the output is in place (merge-journal.c).
 */
struct mpartial {
	int		dirfd;			/* the output's directory, or -1 */
	char		name[NAME_MAX + 1];	/* OUT.XXXXXX in it */
	bool		found;			/* it was there: st says which file */
	struct stat	st;
};

/* A window record's bytes: in the file's mapping or in the arena. */
static inline const u8 *wrec__data(const struct mstream *s, const struct wrec *r)
{
	return r->in_arena ? s->arena + r->off : s->file.map + r->off;
}

/* The i-th record of the window, earliest first. */
static inline struct wrec *mstream__at(struct mstream *s, unsigned int i)
{
	return &s->win[(s->head + i) % MERGE_WINDOW];
}

/* The earliest record out of the window. */
static inline struct wrec mstream__pop(struct mstream *s)
{
	struct wrec r = s->win[s->head];

	s->head = (s->head + 1) % MERGE_WINDOW;
	s->nr--;
	return r;
}

/* merge.c */
void merge__error(struct merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* merge-records.c */
u64 mstream__low(struct mstream *s);
int merge__flush_run(struct merge *m);
int merge__flush_chunk(struct merge *m);
int merge__put_kernel(struct merge *m, const struct mstream *s, const struct wrec *r);
int merge__data_records(struct merge *m);
int merge__kernel_records(struct merge *m);

/* merge-data.c */
int merge__sample_attrs(struct sample_attrs *sa, const struct header_attrs *attrs);
int merge__open_data(struct merge *m);

/* merge-input.c */
int mfile__map(struct mfile *f, int fd, const char *path, char *why, size_t len);
int mfile__open_path(struct mfile *f, const char *path, const char *label, bool writable,
		     char *why, size_t len);
int mfile__open(struct mfile *f, const char *dir, const char *name, bool writable,
		char *why, size_t len);
void mfile__close(struct mfile *f);
bool mfile__zero_tail(const struct mfile *f, u64 pos);
const char *mfile__header_at(const struct mfile *f, u64 pos, struct perf_event_header *h);
void merge__cut(struct merge *m, struct mfile *f, const char *what);
void mstream__exit(struct mstream *s);
int merge__open_streams(struct merge *m, bool consume);

/* merge-output.c */
extern const char merge_tmp_chars[];
const char *path__split(const char *path, char *dir, size_t len);
int merge__tmp_base_len(const char *base);
int merge__open_output(struct merge *m, const char *out, char *tmp, size_t len);
int merge__name_output(struct merge *m);
int merge__start_output(struct merge *m, int comp_level, u64 *data_offset);
int merge__finish_output(struct merge *m, int level, u64 data_offset);

/* merge-index.c */
struct mchunk {
	u64	off;		/* the first record starting in it */
	u64	kbytes;		/* kernel bytes (FINISHED_ROUNDs left out) before off */
	u64	tmin, tmax;	/* of the records starting in it */
};

/* The chunks of one file, from a walk over its records or from the index. */
struct mwalk {
	const struct sample_attrs *clock;
	const struct mfile	*f;
	u64			chunk;		/* input bytes a chunk covers */
	struct mchunk		*chunks;
	int			nr_chunks, cap;
	u64			end;		/* end of the whole records */
	u64			kbytes;		/* kernel bytes in [0, end) */
	const char		*cut;		/* why the file ends at end, NULL: it does */
	bool			plain;		/* only timed kernel records and rounds */
	bool			done;		/* taken from the index: nothing to walk */
	int			error;
};

void mwalk__run(struct mwalk *w);
bool mwalk__from_index(struct mwalk *w, const struct merge_index *idx, long num);

/* merge-parallel.c */
int merge__parallel(struct merge *m, const struct merge_opts *opts);

/* merge-journal.c */
int merge__give_back(struct merge *m);
void merge__consume(struct merge *m, struct mpart *parts, int nr,
		    const struct merge_opts *opts, struct mjournal *j);
int merge__check_given_back(struct merge *m, const char *out);
int merge__open_journal(const struct merge *m, char *path, size_t len);
int merge__check_journal(struct merge *m, int jfd);
int merge__mark_journal(const char *journal, const char *magic);
int merge__resume(struct merge *m, int jfd, const char *out, struct mpartial *old);
void merge__remove_consumed(struct merge *m, const char *journal, const char *out,
			    const struct mpartial *old, const struct merge_opts *opts);
void mpartial__exit(struct mpartial *p);

#endif /* PRECORD_MERGE_INTERNAL_H */
