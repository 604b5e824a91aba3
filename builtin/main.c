// SPDX-License-Identifier: GPL-2.0
/*
 * main.c — precord's entry: picks the subcommand and hands it argv.
 *
 *   precord [record] [OPTIONS] [-- COMMAND [ARGS]]
 *   precord merge DIR [-o FILE]        a perf directory → one perf.data
 *   precord report --loss [FILE…]      the account of loss of any perf.data
 *   precord bench evlist-open-close|synthesize …   the large-machine benchmarks
 *   precord --version | --help
 *
 * With no subcommand word, the arguments are record's, as `perf record`'s.
 * perf's global --buildid-dir DIR (or =DIR) may come first, as in
 * `perf --buildid-dir DIR record ...`: record gets it as its own
 * --buildid-dir=DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

#include "precord/builtin.h"

/* argv without its --buildid-dir words, which record gets as --buildid-dir=DIR. */
static int main__buildid_dir(int argc, char **argv, char ***out, char **opt)
{
	const char *dir = NULL;
	int skip = 0, i, n = 0;
	char **v;

	if (argc > 2 && !strcmp(argv[1], "--buildid-dir")) {
		dir = argv[2];
		skip = 2;
	} else if (argc > 1 && !strncmp(argv[1], "--buildid-dir=", 14)) {
		dir = argv[1] + 14;
		skip = 1;
	}
	if (!dir)
		return 0;
	v = calloc((size_t)argc + 2, sizeof(*v));
	*opt = malloc(strlen(dir) + 16);
	if (!v || !*opt) {
		free(v);
		free(*opt);
		return -1;
	}
	sprintf(*opt, "--buildid-dir=%s", dir);
	v[n++] = argv[0];
	i = 1 + skip;
	if (i < argc && !strcmp(argv[i], "record"))
		v[n++] = argv[i++];
	v[n++] = *opt;
	while (i < argc)
		v[n++] = argv[i++];
	*out = v;
	return n;
}

int main(int argc, char **argv)
{
	char **v = NULL, *opt = NULL;
	int n = main__buildid_dir(argc, argv, &v, &opt), ret;

	if (n < 0) {
		perror("precord");
		return 1;
	}
	if (n > 0) {
		/* record's argv[0] is "record" when that word was given, else argv[0] */
		int word = !strcmp(v[1], "record");

		ret = cmd_record(n - word, v + word, argc, (const char **)argv);
		free(v);
		free(opt);
		return ret;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("precord version %s\n", PRECORD_VERSION);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1, argc, (const char **)argv);
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	/* No subcommand: argv[0] stands in for "record". */
	return cmd_record(argc, argv, argc, (const char **)argv);
}
