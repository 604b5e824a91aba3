/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h — the subcommands of `precord bench` (builtin/builtin-bench.c),
 * the large-machine benchmarks mirroring `perf bench internals
 * evlist-open-close` and `synthesize`.
 */
#ifndef PRECORD_BENCH_H
#define PRECORD_BENCH_H

/* `precord bench evlist-open-close …` (builtin-bench.c). argv[0] is the subcommand. */
int bench__evlist_open_close(int argc, char **argv);
/* `precord bench synthesize …` (bench-synth.c). argv[0] is the subcommand. */
int bench__synthesize(int argc, char **argv);

#endif /* PRECORD_BENCH_H */
