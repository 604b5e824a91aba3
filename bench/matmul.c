// SPDX-License-Identifier: GPL-2.0
/*
 * matmul — the bundled workload: a naive N×N double matrix multiplication
 * split by rows over T threads (the 128-thread matrix multiply of perf's AIO
 * series, in small). The main thread and T-1 new threads each run worker() →
 * multiply() on their rows, so a recorder's call graphs have a known shape:
 * main → worker → multiply (and start_thread → worker → multiply).
 *
 *   matmul [-t THREADS] [-n SIZE] [-r REPEAT] [-q]
 *   matmul THREADS SIZE            (positional form)
 *
 * Prints one line: threads, size, repeat, elapsed seconds, and its own
 * user+sys CPU seconds (for benchmarks that subtract the workload's time
 * from the recorder's).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

struct job {
	const double	*a, *b;
	double		*c;
	int		n;
	int		row_begin, row_end;
	int		repeat;
};

static __attribute__((noinline)) void multiply(const double *a, const double *b, double *c,
					       int n, int row_begin, int row_end)
{
	for (int i = row_begin; i < row_end; i++)
		for (int j = 0; j < n; j++) {
			double sum = 0.0;

			for (int k = 0; k < n; k++)
				sum += a[i * n + k] * b[k * n + j];
			c[i * n + j] = sum;
		}
}

static __attribute__((noinline)) void *worker(void *arg)
{
	struct job *job = arg;

	for (int r = 0; r < job->repeat; r++)
		multiply(job->a, job->b, job->c, job->n, job->row_begin, job->row_end);
	return NULL;
}

static int parse_int(const char *s, const char *what, int min, int max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "matmul: %s '%s' is not a number in [%d, %d]\n", what, s, min, max);
		exit(2);
	}
	return (int)v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
	printf("usage: matmul [-t THREADS] [-n SIZE] [-r REPEAT] [-q]\n"
	       "       matmul THREADS SIZE\n"
	       "Multiply two SIZE x SIZE matrices with THREADS threads, REPEAT times.\n"
	       "Defaults: 2 threads, size 256, repeat 1.\n");
}

int main(int argc, char **argv)
{
	int threads = 2, n = 256, repeat = 1, quiet = 0, opt, pos = 0;
	pthread_t *tids;
	struct job *jobs;
	double *a, *b, *c, t0, t1;
	struct rusage ru;

	while ((opt = getopt(argc, argv, "t:n:r:qh")) != -1) {
		switch (opt) {
		case 't': threads = parse_int(optarg, "thread count", 1, 4096); break;
		case 'n': n = parse_int(optarg, "size", 1, 16384); break;
		case 'r': repeat = parse_int(optarg, "repeat", 1, 1000000); break;
		case 'q': quiet = 1; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	for (; optind < argc; optind++, pos++) {
		if (pos == 0)
			threads = parse_int(argv[optind], "thread count", 1, 4096);
		else if (pos == 1)
			n = parse_int(argv[optind], "size", 1, 16384);
		else {
			usage();
			return 2;
		}
	}

	a = malloc(sizeof(double) * (size_t)n * (size_t)n);
	b = malloc(sizeof(double) * (size_t)n * (size_t)n);
	c = calloc((size_t)n * (size_t)n, sizeof(double));
	tids = calloc((size_t)threads, sizeof(*tids));
	jobs = calloc((size_t)threads, sizeof(*jobs));
	if (!a || !b || !c || !tids || !jobs) {
		fprintf(stderr, "matmul: out of memory for size %d\n", n);
		return 1;
	}
	for (long i = 0; i < (long)n * n; i++) {
		a[i] = (double)(i % 7) + 0.5;
		b[i] = (double)(i % 5) - 1.0;
	}

	/* Threads 1..T-1 are new threads; the main thread does share 0 itself. */
	t0 = now();
	for (int t = 0; t < threads; t++)
		jobs[t] = (struct job){ a, b, c, n, (int)((long)n * t / threads),
					(int)((long)n * (t + 1) / threads), repeat };
	for (int t = 1; t < threads; t++) {
		if (pthread_create(&tids[t], NULL, worker, &jobs[t])) {
			fprintf(stderr, "matmul: cannot create thread %d\n", t);
			return 1;
		}
	}
	worker(&jobs[0]);
	for (int t = 1; t < threads; t++)
		pthread_join(tids[t], NULL);
	t1 = now();

	getrusage(RUSAGE_SELF, &ru);
	if (!quiet)
		printf("matmul threads=%d size=%d repeat=%d elapsed=%.6f cpu=%.6f check=%g\n",
		       threads, n, repeat, t1 - t0,
		       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
		       c[(long)n * n / 2]);
	free(a); free(b); free(c); free(tids); free(jobs);
	return 0;
}
