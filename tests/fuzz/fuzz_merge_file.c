// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_merge_file.c — libFuzzer target of merge__dir() on one perf.data
 * file, the path that finishes a recording whose recorder was killed (perf
 * record's header with data size 0, precord's features written ahead of
 * the data). The input is the file; the output goes to the scratch
 * directory and is removed with it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "precord/merge.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct merge_opts opts = { .jobs = 1, .quiet = true };
	char dir[PATH_MAX], in[PATH_MAX + 8], out[PATH_MAX + 8], err[1024];
	struct merge_stats st;
	int ret;

	snprintf(dir, sizeof(dir), "%s/run", fuzz__dir());
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	if (mkdir(dir, 0700) < 0)
		abort();
	fuzz__write_file(in, data, size);
	ret = merge__dir(in, out, &opts, &st, err, sizeof(err));
	if (fuzz__verbose())
		fprintf(stderr, "merge__dir: %d (%s), %llu data records, %d features\n", ret, err,
			(unsigned long long)st.data_records, st.nr_feats);
	fuzz__clear(dir, true);
	return 0;
}
