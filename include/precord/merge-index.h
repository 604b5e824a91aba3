/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge-index.h — the record index the streaming threads keep of the data.N
 * files they write, for the parallel merge (src/merge-index.c).
 */
#ifndef PRECORD_MERGE_INDEX_H
#define PRECORD_MERGE_INDEX_H

#include <stddef.h>
#include "precord/perf-file.h"

/*
 * The record index of a staging directory's data.N files, kept by the
 * streaming threads as they write them so that the parallel merge need not
 * walk every record header: per chunk of records, where it starts and the
 * least and greatest time of the records that start in it. The main thread
 * creates it once DIR/data holds the attrs and ids (they tell where a
 * record's time is); only the thread that writes data.N adds to file N,
 * always whole records in file order; the merge reads it after those
 * threads were joined. A file the index does not cover byte for byte is
 * walked by the merge.
 */
struct merge_index;

/* For data.0 … data.(nr_files - 1) of dir, chunks of `chunk` bytes (0: 1 MiB); NULL: none. */
struct merge_index *merge_index__new(const char *dir, int nr_files, u64 chunk);
void merge_index__delete(struct merge_index *idx);	/* accepts NULL */
/* A run of whole records just handed to data.N's writer (file = N). */
void merge_index__add(struct merge_index *idx, int file, const void *run, size_t len);

#endif /* PRECORD_MERGE_INDEX_H */
