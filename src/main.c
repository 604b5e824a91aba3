// SPDX-License-Identifier: GPL-2.0
/*
 * main.c — precord's entry: picks the subcommand and hands it argv.
 *
 *   precord [record] [OPTIONS] [-- COMMAND [ARGS]]
 *   precord --version | --help
 *
 * With no subcommand word, the arguments are record's, as `perf record`'s.
 */
#include <stdio.h>
#include <string.h>

#include "precord/record.h"
#include "precord/options.h"

static const char *const subcommands[] = { "record", NULL };

static int is_subcommand(const char *word)
{
	for (int i = 0; subcommands[i]; i++)
		if (!strcmp(word, subcommands[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("precord version %s\n", PRECORD_VERSION);
		return 0;
	}
	if (argc > 1 && is_subcommand(argv[1]))
		return cmd_record(argc - 1, argv + 1, argc, (const char **)argv);
	/* No subcommand: argv[0] stands in for "record". */
	return cmd_record(argc, argv, argc, (const char **)argv);
}
