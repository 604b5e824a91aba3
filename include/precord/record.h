/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h — the record command: options in, a perf.data out.
 */
#ifndef PRECORD_RECORD_H
#define PRECORD_RECORD_H

/*
 * Run `precord record` with argv as given after the program name (argv[0] is
 * "record" or the first option). Returns the process exit status: the
 * workload's status when one ran, 127 when it could not be executed, 129 for
 * a bad command line, 1 for any other failure, 128+N after signal N.
 */
int cmd_record(int argc, char **argv, int full_argc, const char **full_argv);

#endif /* PRECORD_RECORD_H */
