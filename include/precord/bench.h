/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h — `precord bench`: the large-machine benchmarks, mirroring
 * `perf bench internals evlist-open-close` and `synthesize`.
 */
#ifndef PRECORD_BENCH_H
#define PRECORD_BENCH_H

/* `precord bench SUBCOMMAND [OPTIONS]` (bench.c). Returns the exit status. */
int cmd_bench(int argc, char **argv);
/* `precord bench evlist-open-close …` (bench.c). argv[0] is the subcommand. */
int bench__evlist_open_close(int argc, char **argv);
/* `precord bench synthesize …` (bench-synth.c). argv[0] is the subcommand. */
int bench__synthesize(int argc, char **argv);

#endif /* PRECORD_BENCH_H */
