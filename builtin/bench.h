/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h — the subcommands of `precord bench` (builtin/builtin-bench.c),
 * the large-machine benchmarks mirroring `perf bench internals
 * evlist-open-close` and `synthesize`.
 */
#ifndef PRECORD_BENCH_H
#define PRECORD_BENCH_H

#include <math.h>

/* Times as perf's util/stat.c keeps them: Welford's running mean and M2. */
struct bench_stats {
	double	n, mean, m2;
};

static inline void bench_stats__update(struct bench_stats *s, double val)
{
	double delta = val - s->mean;

	s->n++;
	s->mean += delta / s->n;
	s->m2 += delta * (val - s->mean);
}

/* The standard deviation of the mean, which perf's stddev_stats() returns and prints after "+-". */
static inline double bench_stats__stddev(const struct bench_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

/* `precord bench evlist-open-close …` (builtin-bench.c). argv[0] is the subcommand. */
int bench__evlist_open_close(int argc, char **argv);
/* `precord bench synthesize …` (bench-synth.c). argv[0] is the subcommand. */
int bench__synthesize(int argc, char **argv);

#endif /* PRECORD_BENCH_H */
