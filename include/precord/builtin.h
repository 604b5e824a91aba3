/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h — precord's commands, as perf's builtin.h lists its own: each
 * takes the arguments after the program name (argv[0] is the command's
 * word) and returns the process exit status: 0, 1 on failure, 129 for a
 * bad command line. They live in builtin/, apart from the modules of
 * src/ they use; builtin/main.c picks one.
 */
#ifndef PRECORD_BUILTIN_H
#define PRECORD_BUILTIN_H

/*
 * `precord [record]` (builtin/builtin-record.c). argv[0] is "record" or the
 * first option; full_argv is the whole command line, for the header. The
 * workload's status when one ran, 127 when it could not be executed,
 * 128+N after signal N.
 */
int cmd_record(int argc, char **argv, int full_argc, const char **full_argv);

/*
 * `precord merge DIR [-o FILE] [-q] [-z[=N]]` (builtin/builtin-merge.c).
 * Default FILE: DIR without its ".staging" suffix, or DIR.data.
 */
int cmd_merge(int argc, char **argv);

/* `precord report --loss FILE…` (builtin/builtin-report.c). */
int cmd_report(int argc, char **argv);

/* `precord bench SUBCOMMAND [OPTIONS]` (builtin/builtin-bench.c). */
int cmd_bench(int argc, char **argv);

#endif /* PRECORD_BUILTIN_H */
