// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_report.c — libFuzzer target of the loss report's reader,
 * loss_report__read(), and of the report it prints. The input is a
 * perf.data file (PERFILE2 or pipe mode), or, when it starts with the
 * container mark (fuzz.h), a perf directory: data and data.N.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "precord/report.h"
#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	fuzz__dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX], err[1024];
	struct loss_report r;
	const uint8_t *pre;
	size_t pre_len;
	bool dir = fuzz__is_container(data, size);
	int ret;

	snprintf(path, sizeof(path), "%s/in", fuzz__dir());
	if (dir) {
		if (mkdir(path, 0700) < 0)
			abort();
		fuzz__unpack(data, size, path, &pre, &pre_len);
	} else {
		fuzz__write_file(path, data, size);
	}
	ret = loss_report__read(path, &r, err, sizeof(err));
	if (!ret)
		loss_report__print(&r, fuzz__verbose() ? stderr : devnull);
	else if (fuzz__verbose())
		fprintf(stderr, "loss_report__read: %d (%s)\n", ret, err);
	loss_report__exit(&r);
	fuzz__clear(path, true);
	return 0;
}
