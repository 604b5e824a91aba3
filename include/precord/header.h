/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header.h — the perf.data file header: the PERFILE2 header, the id arrays
 * and attrs before the data section, and the feature sections after it.
 * Written once with placeholders when the file is opened, and again at the
 * end with the data size and the features.
 */
#ifndef PRECORD_HEADER_H
#define PRECORD_HEADER_H

#include <stdbool.h>
#include "precord/perf-file.h"

struct evlist;

/* What the features describe that the evlist does not know. */
struct header_env {
	int		argc;		/* the command line, for HEADER_CMDLINE */
	const char	**argv;
	u64		first_sample_time;	/* HEADER_SAMPLE_TIME (ns, perf clock) */
	u64		last_sample_time;
	bool		clockid_set;	/* -k given: write HEADER_CLOCKID */
	int		clockid;
	bool		no_buildid;	/* no HEADER_BUILD_ID section (MMAP2 carry build ids) */
	/* -z: HEADER_COMPRESSED */
	bool		compressed;
	u32		comp_level;
	u32		comp_ratio;
	u32		comp_mmap_len;
};

/*
 * Write the header, every evsel's id array and the attrs at the start of fd
 * (evsel ids must be read already). *data_offset gets where the data section
 * starts. Returns 0 or -errno.
 */
int header__write_start(int fd, struct evlist *evlist, u64 *data_offset);

/*
 * Write the feature sections right after the data section
 * [data_offset, data_offset + data_size), then rewrite the header with the
 * data size and the feature bitmap. Returns 0 or -errno.
 */
int header__write_end(int fd, struct evlist *evlist, u64 data_offset, u64 data_size,
		      const struct header_env *env);

/* Read the fixed header back (tests, merge, report). 0, -EINVAL (not perf.data) or -errno. */
int header__read(int fd, struct perf_file_header *hdr);
bool header__has_feat(const struct perf_file_header *hdr, int feat);

#endif /* PRECORD_HEADER_H */
