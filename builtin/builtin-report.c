// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-report.c — `precord report --loss [--svg OUT.svg] [FILE...]`: the
 * command line of the account of loss; the account itself is
 * loss_report__read() and loss_report__print() (src/report.c), the
 * timeline loss_svg__write() (src/loss-svg.c).
 *
 * Data flow: argv → each FILE read into a struct loss_report → its account
 * on stdout (and its timeline into OUT.svg); errors on stderr, one line
 * each, and the exit status says whether any FILE failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/builtin.h"
#include "precord/report.h"
#include "precord/loss-svg.h"

#define EXIT_USAGE	129

static int report__usage(FILE *out)
{
	fprintf(out, "\n usage: precord report --loss [--svg OUT.svg] [FILE...]\n\n"
		"    --loss            the account of loss of each FILE (default: perf.data):\n"
		"                      samples, lost samples, LOST records and the data loss\n"
		"                      metric, in all and per CPU (Documentation/loss.md)\n"
		"    --svg OUT.svg     also draw when each CPU lost records (one FILE only)\n"
		"    -i, --input FILE  a file or perf directory to read (same as FILE)\n\n");
	return EXIT_USAGE;
}

/* The loss timeline of r into svg; 0 or 1 with the reason on stderr. */
static int report__svg(const struct loss_report *r, const char *svg)
{
	FILE *out = fopen(svg, "w");
	int err;

	if (!out) {
		fprintf(stderr, "precord: report: cannot create '%s': %s\n", svg, strerror(errno));
		return 1;
	}
	err = loss_svg__write(r, out);
	if (fclose(out) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "precord: report: writing '%s' failed: %s\n", svg, strerror(-err));
		return 1;
	}
	return 0;
}

static int report__one(const char *path, const char *svg, int *printed)
{
	struct loss_report r;
	char err[512];
	int status = 0;

	if (loss_report__read(path, &r, err, sizeof(err))) {
		fflush(stdout);
		fprintf(stderr, "precord: %s\n", err);
		return 1;
	}
	if ((*printed)++)
		putchar('\n');
	loss_report__print(&r, stdout);
	if (svg) {
		fflush(stdout);
		status = report__svg(&r, svg);
	}
	loss_report__exit(&r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	const char *svg = NULL;
	bool loss = false, opts_done = false;
	int i, nr = 0, status = 0, printed = 0;

	if (!files) {
		fprintf(stderr, "precord: report: out of memory\n");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			files[nr++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "--loss")) {
			loss = true;
		} else if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
			if (++i == argc) {
				fprintf(stderr, "precord: report: option '%s' requires a value\n", a);
				free(files);
				return report__usage(stderr);
			}
			files[nr++] = argv[i];
		} else if (!strncmp(a, "--input=", 8)) {
			files[nr++] = a + 8;
		} else if (!strcmp(a, "--svg")) {
			if (++i == argc) {
				fprintf(stderr, "precord: report: option '%s' requires a value\n", a);
				free(files);
				return report__usage(stderr);
			}
			svg = argv[i];
		} else if (!strncmp(a, "--svg=", 6)) {
			svg = a + 6;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(files);
			report__usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "precord: report: unknown option '%s'\n", a);
			free(files);
			return report__usage(stderr);
		}
	}
	if (!loss) {
		fprintf(stderr, "precord: report: only the account of loss exists: "
			"use 'precord report --loss [FILE...]'\n");
		free(files);
		return report__usage(stderr);
	}
	if (svg && (!svg[0] || nr > 1)) {
		fprintf(stderr, "precord: report: --svg takes a file name and draws one "
			"recording: give one FILE\n");
		free(files);
		return report__usage(stderr);
	}
	if (!nr)
		files[nr++] = "perf.data";
	for (i = 0; i < nr; i++)
		status |= report__one(files[i], svg, &printed);
	free(files);
	return status;
}
