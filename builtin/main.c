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
 */
#include <stdio.h>
#include <string.h>

#include "version.h"

#include "precord/builtin.h"

int main(int argc, char **argv)
{
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
