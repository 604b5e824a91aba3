// SPDX-License-Identifier: GPL-2.0
/*
 * bench-synth.c — `precord bench synthesize`, the mirror of `perf bench
 * internals synthesize` (tools/perf/bench/synthesize.c): same options,
 * same defaults, same output, so one script reads both.
 *
 *  -s (default): synthesize this process (its thread map: COMM, and MMAP2
 *     for the leader) -i times, then again with data mappings (perf -d).
 *  -t: synthesize every process in /proc (perf's "on CPU 0", i.e. the
 *     system-wide walk) -I times for each participant count from -m to -M,
 *     1 being the serial walk and N the parallel one on N threads.
 * Each prints the average time in µs with perf's "+-" (the standard error
 * of the mean, as perf's stddev_stats()), the average number of records
 * and the time per record. Records go to a callback that only counts them,
 * as perf's bench does; the parallel walk still buffers them first. -d
 * (not in perf) adds, for -t, the average bytes per record and the time of
 * listing /proc's pids alone (timed apart, before each walk): the serial
 * part of the parallel walk, which bench/evlist-model takes as an input.
 *
 * The worker pool is made once, before the first -t run: one worker per
 * online CPU (--scope picks how they are pinned), more per CPU when -M asks
 * for more participants than CPUs + 1 (the calling thread takes part).
 * Runs on the calling thread; nothing is kept between calls.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "precord/synthesize.h"
#include "precord/util.h"
#include "precord/threadmap.h"
#include "wq.h"

#define EXIT_USAGE	129
#define ID_HDR_SIZE	24	/* a typical trailer: TID | TIME | IDENTIFIER */

struct bench_synth {
	bool		run_st, run_mt;
	unsigned int	min_threads, max_threads;	/* max 0: online CPUs */
	unsigned int	single_iterations, multi_iterations;
	enum wq_scope	scope;
	bool		details;
};

/* What the callback counts. */
struct synth_count {
	unsigned long	records;
	unsigned long	bytes;
};

static int count_record(void *ctx, const void *record, size_t size)
{
	struct synth_count *c = ctx;

	c->records++;
	c->bytes += size;
	return 0;
}

static void print_result(const char *indent, const char *what,
			 const struct bench_stats *t, const struct bench_stats *ev)
{
	printf("%sAverage %ssynthesis took: %.3f usec (+- %.3f usec)\n",
	       indent, what, t->mean, bench_stats__stddev(t));
	printf("%sAverage num. events: %.3f (+- %.3f)\n", indent, ev->mean, bench_stats__stddev(ev));
	printf("%sAverage time per event %.3f usec\n", indent, t->mean / ev->mean);
}

/* This process's tasks, as perf's thread_map__new_by_pid(getpid()). */
static struct thread_map *self_threads(void)
{
	struct thread_map *map = NULL;
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return thread_map__new_pids(pid, &map, NULL) ? NULL : map;
}

static int run_single(const struct bench_synth *b, const struct thread_map *threads,
		      bool data_mmap)
{
	struct bench_stats t = { 0 }, ev = { 0 };
	struct synth_opts o;
	unsigned int i;
	int err;

	synth_opts__init(&o);
	o.id_hdr_size = ID_HDR_SIZE;
	o.mmap_data = data_mmap;
	for (i = 0; i < b->single_iterations; i++) {
		struct synth_count n = { 0 };
		double t0 = clock__now_us();

		err = synthesize__thread_map(&o, threads, count_record, &n);
		if (err)
			return err;
		bench_stats__update(&t, clock__now_us() - t0);
		bench_stats__update(&ev, (double)n.records);
	}
	print_result("  ", data_mmap ? "data " : "", &t, &ev);
	return 0;
}

static int run_single_threaded(const struct bench_synth *b)
{
	struct thread_map *threads = self_threads();
	int err;

	if (!threads) {
		fprintf(stderr, "precord: cannot read this process's threads from /proc\n");
		return -ENOENT;
	}
	puts("Computing performance of single threaded perf event synthesis by\n"
	     "synthesizing events on the perf process itself:");
	err = run_single(b, threads, false);
	if (!err)
		err = run_single(b, threads, true);
	thread_map__put(threads);
	return err;
}

/* -d: the time of listing /proc's pids alone (µs), and how many. */
static int time_pid_listing(const struct synth_opts *o, struct bench_stats *t,
			    struct bench_stats *pids)
{
	double t0 = clock__now_us();
	pid_t *list;
	int nr = synthesize__proc_pids(o, &list);

	if (nr < 0)
		return nr;
	bench_stats__update(t, clock__now_us() - t0);
	bench_stats__update(pids, (double)nr);
	free(list);
	return 0;
}

static int run_multi(const struct bench_synth *b, struct wq *wq, unsigned int nr_threads)
{
	struct bench_stats t = { 0 }, ev = { 0 }, bytes = { 0 }, list = { 0 }, pids = { 0 };
	struct synth_opts o;
	unsigned int i;
	int err;

	synth_opts__init(&o);
	o.id_hdr_size = ID_HDR_SIZE;
	for (i = 0; i < b->multi_iterations; i++) {
		struct synth_count n = { 0 };
		double t0;

		if (b->details) {
			err = time_pid_listing(&o, &list, &pids);
			if (err)
				return err;
		}
		t0 = clock__now_us();
		err = synthesize__all_parallel(&o, wq, (int)nr_threads, count_record, &n);
		if (err)
			return err;
		bench_stats__update(&t, clock__now_us() - t0);
		bench_stats__update(&ev, (double)n.records);
		bench_stats__update(&bytes, (double)n.bytes);
	}
	print_result("    ", "", &t, &ev);
	if (b->details) {
		printf("    Average bytes per event: %.1f\n", bytes.mean / ev.mean);
		printf("    Average pid listing took: %.3f usec (+- %.3f usec) for %.0f pids\n",
		       list.mean, bench_stats__stddev(&list), pids.mean);
	}
	return 0;
}

/* Workers for max_threads participants: the caller is one of them. */
static struct wq_pool *bench_pool__new(const struct bench_synth *b)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int need = b->max_threads > 1 ? b->max_threads - 1 : 1;
	struct wq_pool_attr attr = { .scope = b->scope, .name = "prec-wq" };
	struct wq_pool *pool;
	char msg[256];

	if (cpus < 1)
		cpus = 1;
	if (need > (unsigned long)cpus)
		attr.per_domain = (int)((need + (unsigned long)cpus - 1) / (unsigned long)cpus);
	pool = wq_pool__new(&attr, msg, sizeof(msg));
	if (!pool)
		fprintf(stderr, "precord: cannot start the synthesis workers: %s\n", msg);
	return pool;
}

static int run_multi_threaded(struct bench_synth *b)
{
	struct wq_pool *pool;
	unsigned int n;
	struct wq *wq;
	int err = 0;

	if (!b->max_threads)
		b->max_threads = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	pool = bench_pool__new(b);
	if (!pool)
		return -errno;
	wq = wq__new(pool, "synthesize", 0);
	if (!wq) {
		err = -errno;
		fprintf(stderr, "precord: cannot create the synthesis workqueue: %s\n",
			strerror(errno));
		goto out_delete_pool;
	}
	puts("Computing performance of multi threaded perf event synthesis by\n"
	     "synthesizing events on CPU 0:");
	for (n = b->min_threads; n <= b->max_threads && !err; n++) {
		printf("  Number of synthesis threads: %u\n", n);
		err = run_multi(b, wq, n);
	}
	wq__delete(wq);
out_delete_pool:
	wq_pool__delete(pool);
	return err;
}

static void bench_synth__usage(FILE *fp)
{
	fputs("\n Usage: precord bench synthesize <options>\n\n"
	      "    -I, --multi-iterations <n>\n"
	      "                          Number of iterations used to compute multi-threaded average\n"
	      "    -i, --single-iterations <n>\n"
	      "                          Number of iterations used to compute single-threaded average\n"
	      "    -M, --max-threads <n>\n"
	      "                          Maximum number of threads in multithreaded bench\n"
	      "    -m, --min-threads <n>\n"
	      "                          Minimum number of threads in multithreaded bench\n"
	      "    -s, --st              Run single threaded benchmark\n"
	      "    -t, --mt              Run multi-threaded benchmark\n"
	      "    -d, --details         With -t: bytes per event and the time of listing /proc's pids\n"
	      "        --scope <cpu|system>\n"
	      "                          Pin each worker to a CPU (default) or leave them unbound\n\n",
	      fp);
}

static int parse_uint(const char *arg, unsigned int min, unsigned int *v)
{
	const char *end;

	if (parse__uint(arg, 10, v, &end) || *end || *v < min)
		return -EINVAL;
	return 0;
}

static int bench_synth__opt(struct bench_synth *b, int c, const char *arg)
{
	switch (c) {
	case 's':
		b->run_st = true;
		return 0;
	case 't':
		b->run_mt = true;
		return 0;
	case 'd':
		b->details = true;
		return 0;
	case 'm':
		return parse_uint(arg, 1, &b->min_threads);
	case 'M':
		return parse_uint(arg, 1, &b->max_threads);
	case 'i':
		return parse_uint(arg, 1, &b->single_iterations);
	case 'I':
		return parse_uint(arg, 1, &b->multi_iterations);
	case 'S':
		if (!strcmp(arg, "cpu"))
			b->scope = WQ_SCOPE_CPU;
		else if (!strcmp(arg, "system"))
			b->scope = WQ_SCOPE_SYSTEM;
		else
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* 0, 1 for --help, or -EINVAL after a message. */
static int bench_synth__parse(struct bench_synth *b, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "st",			no_argument,		NULL, 's' },
		{ "mt",			no_argument,		NULL, 't' },
		{ "details",		no_argument,		NULL, 'd' },
		{ "min-threads",	required_argument,	NULL, 'm' },
		{ "max-threads",	required_argument,	NULL, 'M' },
		{ "single-iterations",	required_argument,	NULL, 'i' },
		{ "multi-iterations",	required_argument,	NULL, 'I' },
		{ "scope",		required_argument,	NULL, 'S' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*b = (struct bench_synth){ .min_threads = 1, .single_iterations = 10000,
				   .multi_iterations = 10, .scope = WQ_SCOPE_CPU };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "stdm:M:i:I:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			bench_synth__usage(stdout);
			return 1;
		}
		if (c == '?' || bench_synth__opt(b, c, optarg)) {
			fprintf(stderr, "precord: bad option or value '%s' (precord bench "
				"synthesize -h lists them)\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "precord: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (b->max_threads && b->max_threads < b->min_threads) {
		fprintf(stderr, "precord: --max-threads %u is below --min-threads %u\n",
			b->max_threads, b->min_threads);
		return -EINVAL;
	}
	if (!b->run_st && !b->run_mt)
		b->run_st = true;	/* perf's default: single threaded only */
	return 0;
}

int bench__synthesize(int argc, char **argv)
{
	struct bench_synth b;
	int err = bench_synth__parse(&b, argc, argv);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (b.run_st)
		err = run_single_threaded(&b);
	if (!err && b.run_mt)
		err = run_multi_threaded(&b);
	if (err) {
		fprintf(stderr, "precord: synthesis failed: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
