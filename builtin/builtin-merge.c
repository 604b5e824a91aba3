// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-merge.c — `precord merge DIR | FILE`: the command line of a merge
 * and its closing line; the merge itself is merge__dir() (merge.c).
 *
 * Data flow: argv → struct merge_args → merge__dir() → the summary on
 * stderr, or one line saying what went wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "precord/builtin.h"
#include "precord/merge.h"
#include "precord/compress.h"
#include "precord/kcore.h"
#include "precord/util.h"

#define MERGE_COMP_DEFAULT	1		/* -z without a level */
#define EXIT_USAGE		129

static void merge__usage(FILE *fp)
{
	fputs("\n usage: precord merge DIR [-o FILE] [-q] [-z[=N]] [-j N]\n"
	      "    or: precord merge FILE [-o FILE]\n\n"
	      "    Turn a perf directory (perf record --threads, or the DIR.staging a\n"
	      "    killed precord leaves) into one time-ordered perf.data; or finish\n"
	      "    the perf.data file a killed perf record left, or a killed precord\n"
	      "    that wrote one file (one streaming thread, or --no-threads).\n\n"
	      "    -o, --output <file>   output file (default: DIR without its \".staging\"\n"
	      "                          suffix when it has one, else DIR.data; FILE\n"
	      "                          itself)\n"
	      "    -q, --quiet           do not print the summary\n"
	      "    -z, --compression-level[=<n>]\n"
	      "                          compress the kernel records with zstd level n\n"
	      "                          (1-22, default 1)\n"
	      "    -j, --jobs <n>        merge on n threads (default: one per CPU it may\n"
	      "                          use, at least 8 MiB of records each; 1: serial)\n\n", fp);
}

/* DIR without a trailing "/" and ".staging", or DIR.data. */
static int merge__default_output(const char *dir, char *buf, size_t len)
{
	static const char suffix[] = ".staging";
	size_t n = strlen(dir), s = sizeof(suffix) - 1;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n > s && !memcmp(dir + n - s, suffix, s) && dir[n - s - 1] != '/')
		return snprintf(buf, len, "%.*s", (int)(n - s), dir) >= (int)len ? -ENAMETOOLONG : 0;
	return snprintf(buf, len, "%.*s.data", (int)n, dir) >= (int)len ? -ENAMETOOLONG : 0;
}

static int comp_level__parse(const char *arg, int *level)
{
	const char *end;
	int v;

	if (!arg) {
		*level = MERGE_COMP_DEFAULT;
		return 0;
	}
	if (*arg == '=')
		arg++;
	if (parse__int(arg, 10, &v, &end) || *end || v < ZCOMP_LEVEL_MIN || v > ZCOMP_LEVEL_MAX)
		return -EINVAL;
	*level = v;
	return 0;
}

struct merge_args {
	const char		*dir;
	const char		*out;
	struct merge_opts	opts;
};

static int merge_args__parse(struct merge_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output",		required_argument,	NULL, 'o' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "compression-level",	optional_argument,	NULL, 'z' },
		{ "jobs",		required_argument,	NULL, 'j' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *end;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:qz::j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'q':
			a->opts.quiet = true;
			break;
		case 'z':
			if (comp_level__parse(optarg, &a->opts.comp_level)) {
				fprintf(stderr, "precord: bad compression level '%s' (1-22)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'j':
			if (parse__int(optarg, 10, &a->opts.jobs, &end) || *end ||
			    a->opts.jobs < 1 || a->opts.jobs > 1024) {
				fprintf(stderr, "precord: bad number of merge threads '%s' "
					"(1-1024)\n", optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			merge__usage(stdout);
			return 1;
		default:
			fprintf(stderr, "precord: unknown option '%s' (precord merge -h "
				"lists them)\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "precord: %s\n", optind < argc ?
			"one directory at a time (precord merge DIR [-o FILE])" :
			"which directory? (precord merge DIR [-o FILE])");
		return -EINVAL;
	}
	a->dir = argv[optind];
	return 0;
}

static void merge__summary(const char *out, const struct merge_stats *st)
{
	char threads[32] = "";

	if (st->single) {
		fprintf(stderr, "[ precord: Finished %s: %llu records, %llu samples, %d feature "
			"sections (%.3f MB, %.3f s) ]\n", out, (unsigned long long)st->data_records,
			(unsigned long long)st->samples, st->nr_feats,
			(double)st->bytes_out / 1048576.0, st->seconds);
		return;
	}
	if (st->parts > 1)
		snprintf(threads, sizeof(threads), ", %d threads", st->parts);
	fprintf(stderr, "[ precord: Merged %d files, %llu records into %s (%.3f MB, %.3f s%s%s) ]\n",
		st->nr_files, (unsigned long long)(st->records + st->data_records), out,
		(double)st->bytes_out / 1048576.0, st->seconds, threads,
		st->resumed ? "; finished the merge that was killed" : "");
}

/* Whether dir holds a --kcore copy, which a merge into one file would drop. */
static bool merge__has_kcore(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, KCORE_DIR_NAME);
	return lstat(path, &st) == 0;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct merge_stats st;
	char out[PATH_MAX], msg[PATH_MAX + 128];
	struct stat sb;
	int err = merge_args__parse(&a, argc, argv);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (stat(a.dir, &sb) < 0) {
		fprintf(stderr, "precord: cannot open %s: %s\n", a.dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "precord: %s is neither a directory nor a perf.data file\n", a.dir);
		return 1;
	}
	if (S_ISDIR(sb.st_mode) && merge__has_kcore(a.dir)) {
		fprintf(stderr, "precord: %s holds a copy of the kernel's text (%s, from --kcore), "
			"which one perf.data file cannot: perf report reads the directory as it is\n",
			a.dir, KCORE_DIR_NAME);
		return 1;
	}
	if (a.out)
		snprintf(out, sizeof(out), "%s", a.out);
	else if (S_ISREG(sb.st_mode))
		snprintf(out, sizeof(out), "%s", a.dir);	/* repaired in place */
	else if (merge__default_output(a.dir, out, sizeof(out))) {
		fprintf(stderr, "precord: the directory name is too long; give -o FILE\n");
		return 1;
	}
	err = merge__dir(a.dir, out, &a.opts, &st, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return 1;
	}
	if (msg[0])
		fprintf(stderr, "precord: warning: %s\n", msg);
	if (st.tracing == MERGE_TRACING_LOCAL)
		fprintf(stderr, "precord: warning: %s had no tracing data: the formats of its "
			"tracepoints come from this machine's tracefs, right only where and since "
			"the boot it was recorded\n", a.dir);
	else if (st.tracing == MERGE_TRACING_NONE)
		fprintf(stderr, "precord: warning: %s has no tracing data and this machine's "
			"tracefs does not know its tracepoints: perf will not read them\n", a.dir);
	if (!a.opts.quiet)
		merge__summary(out, &st);
	return 0;
}
