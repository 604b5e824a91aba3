// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_merge_dir.c — libFuzzer target of merge__dir() on a perf directory:
 * data, data.N, and a merge.journal with the partial output it names, so
 * that the resumption of a killed consuming merge is reached as well as the
 * plain and the parallel merge. The input is a container (fuzz.h); the
 * first byte before its first mark chooses the merge's options:
 *
 *   bit 0	two threads, parts of at least 256 bytes (else one thread)
 *   bit 1	compressed output (zstd level 1)
 *   bit 2	consuming (the inputs' space given back, with a journal)
 *   bits 3-4	FINISHED_ROUND every 4 MiB (the default), 64 KiB, 1 MiB, 4 KiB
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

static void opts__from(struct merge_opts *o, const uint8_t *pre, size_t len)
{
	static const u64 rounds[4] = { 0, 65536, 1 << 20, 4096 };
	uint8_t b = len ? pre[0] : 0;

	*o = (struct merge_opts){ .jobs = 1, .quiet = true };
	if (b & 1) {
		o->jobs = 2;
		o->part_min = 256;
	}
	if (b & 2)
		o->comp_level = 1;
	if (b & 4) {
		o->consume = true;
		o->give_step = 4096;
	}
	o->round_bytes = rounds[(b >> 3) & 3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[PATH_MAX], in[PATH_MAX + 8], out[PATH_MAX + 8], err[1024];
	struct merge_stats st;
	struct merge_opts opts;
	const uint8_t *pre;
	size_t pre_len;
	int ret;

	snprintf(dir, sizeof(dir), "%s/run", fuzz__dir());
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	if (mkdir(dir, 0700) < 0 || mkdir(in, 0700) < 0)
		abort();
	fuzz__unpack(data, size, in, &pre, &pre_len);
	opts__from(&opts, pre, pre_len);
	ret = merge__dir(in, out, &opts, &st, err, sizeof(err));
	if (fuzz__verbose())
		fprintf(stderr, "merge__dir: %d (%s), jobs %d comp %d consume %d round %llu: "
			"%d files, %llu records, %d parts, resumed %d\n", ret, err, opts.jobs,
			opts.comp_level, opts.consume, (unsigned long long)opts.round_bytes,
			st.nr_files, (unsigned long long)st.records, st.parts, st.resumed);
	fuzz__clear(dir, true);
	return 0;
}
