/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h — turning a perf directory (`data` with the header, attrs,
 * synthesized records and features, plus `data.N` files of raw kernel
 * records in per-ring order, HEADER_DIR_FORMAT version 1: the layout of
 * perf record --threads and of precord's staging directory) into one
 * ordinary, time-ordered perf.data.
 */
#ifndef PRECORD_MERGE_H
#define PRECORD_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"

struct merge_index;

struct merge_opts {
	u64	round_bytes;	/* write FINISHED_ROUND every this many bytes (0: 4 MiB) */
	int	comp_level;	/* >0: write COMPRESSED records (one zstd stream), 0: plain */
	int	jobs;		/* threads for the kernel records (0: the CPUs we may use, 1: one) */
	u64	part_min;	/* least kernel bytes per thread (0: 8 MiB) */
	const struct merge_index *index;	/* what the writers noted; NULL: walk the files */
	bool	quiet;
	/*
	 * dir is precord's own staging directory, removed once merged: the
	 * parallel merge gives each data.N's space back (punches it out) as
	 * its records reach the output, so that the output's pages are the
	 * ones just freed, and journals how far it got in dir/merge.journal
	 * first, so that a merge killed half-way is finished by merge__dir()
	 * on dir (`precord merge`). Never for a directory the user keeps.
	 */
	bool	consume;
	u64	give_step;	/* give back in aligned steps of this many bytes (0: 2 MiB) */
	/* tests: where the merge stops on purpose (0, false: never) */
	struct merge_faults {
		int	kill_at;	/* SIGKILL the process at this journal entry */
		int	fail_at;	/* a part fails (EIO) at this journal entry */
		bool	kill_unnamed;	/* SIGKILL once all is written, before the output is named */
		bool	kill_removing;	/* SIGKILL before removing a consumed directory */
	} fault;
};

struct merge_stats {
	u64	records;	/* kernel records merged from the data.N files */
	u64	bytes_in;	/* bytes read from every file */
	u64	bytes_out;	/* size of the merged file */
	u64	rounds;		/* FINISHED_ROUNDs written */
	u64	samples;
	u64	lost_records;
	u64	lost_samples;	/* from LOST_SAMPLES records */
	u64	first_time, last_time;	/* sample times, for HEADER_SAMPLE_TIME */
	double	seconds;	/* wall time of the merge */
	int	nr_files;	/* data.N files read */
	u64	data_records;	/* records copied from data's data section */
	u64	lost;		/* records the kernel dropped (sum of LOST.lost) */
	int	nr_cut;		/* files whose stream ended before the file did */
	u64	bytes_cut;	/* bytes left out there (a partial or zeroed tail) */
	int	parts;		/* threads that merged the kernel records (0: the caller alone) */
	int	indexed;	/* data.N files the parallel merge took from the index, not a walk */
	u64	given_back;	/* input bytes whose space was given back as merged (consume) */
	int	journal_entries;	/* the parts' entries in dir/merge.journal (consume) */
	bool	resumed;	/* finished a merge that was killed half-way (dir/merge.journal) */
	bool	single;		/* dir was a perf.data file a killed recorder left: repaired */
	int	nr_feats;	/* feature sections the output got (single: from those written ahead) */
	/* single, perf's file of tracepoints: where its TRACING_DATA came from */
	enum { MERGE_TRACING_FILE, MERGE_TRACING_LOCAL, MERGE_TRACING_NONE } tracing;
};

/*
 * Merge directory dir into out_path (written anew, via a temporary file
 * renamed into place). Works on what reached the disk: a data.N that ends in
 * the middle of a record (a recording killed with SIGKILL) is read up to its
 * last whole record. A dir/merge.journal left by a consuming merge that was
 * killed is finished: the records its partial output holds plus what its
 * inputs still hold. The partial output the journal names is read, and
 * removed once merged, only if it is the one this merge would have made:
 * out_path.XXXXXX next to out_path, a regular file of the caller's with no
 * other link, not a symbolic link; else -EPERM, and nothing is read or
 * removed. Returns 0 or -errno with a one-line message in err; on
 * success err is empty, or describes the first file cut short (a warning).
 * When a consuming merge fails after giving space back (stats->given_back),
 * its partial output and journal stay for a later merge__dir() on dir.
 * Once its output is in place, a merge that gave space back, or finished a
 * merge that did, removes what is left of dir (output__remove_dir()): dir
 * is no recording any more; if it is killed before it is done, the journal
 * left says so, and a later merge of dir fails (-EALREADY) instead of
 * replacing the output.
 * dir may also be a perf.data file whose recorder was killed (its header
 * never finished: perf record's says data size 0; precord's one-file
 * recordings have no features and note their data size as they go): its
 * data section, to the last whole record in the file, is written out as a
 * finished file, with the features precord wrote ahead of the data
 * (header__write_start_ahead(); perf's file has none); a file that needs
 * nothing is refused (-EINVAL). opts and stats may be NULL.
 */
int merge__dir(const char *dir, const char *out_path, const struct merge_opts *opts,
	       struct merge_stats *stats, char *err, size_t errlen);

#endif /* PRECORD_MERGE_H */
