// SPDX-License-Identifier: GPL-2.0
/*
 * spin — a workload for the multi-node guest's cases (tests/vm/): keeps
 * every CPU it may run on a little busy, so that every CPU runs something.
 *
 *   spin SECONDS [PERCENT]
 *
 * Starts one thread per CPU of its affinity mask, each pinned to its CPU,
 * spinning PERCENT (default 10; a decimal, at least 0.01) of every 10 ms
 * and sleeping the rest, and
 * exits 0 after SECONDS (0: never) or at the first SIGTERM or SIGINT. A
 * light load by default: the guest's CPUs are emulated, all of them on two
 * host CPUs, and a spinning vCPU slows down everything else in the guest,
 * the recording under test and the shell that drives it.
 * One process, however many CPUs: on a guest whose CPUs are emulated, a
 * fork and exec per CPU would take seconds. Bad arguments: a one-line usage
 * error, exit status 2; a thread that cannot start: a message, exit 1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000L

static int nr_cpus;	/* I: the kernel's possible CPUs, set before any thread */
static long busy_ns;	/* I: the spinning part of each period */

static void timespec_add(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *spin(void *arg)
{
	size_t size = CPU_ALLOC_SIZE(nr_cpus);
	cpu_set_t *set = CPU_ALLOC(nr_cpus);

	if (set) {
		CPU_ZERO_S(size, set);
		CPU_SET_S((int)(long)arg, size, set);
		pthread_setaffinity_np(pthread_self(), size, set);
		CPU_FREE(set);
	}
	struct timespec period, now, until;

	clock_gettime(CLOCK_MONOTONIC, &period);
	for (;;) {
		until = period;
		timespec_add(&until, busy_ns);
		do
			clock_gettime(CLOCK_MONOTONIC, &now);
		while (before(&now, &until));
		timespec_add(&period, PERIOD_NS);
		if (busy_ns < PERIOD_NS)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &period, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	cpu_set_t *allowed;
	sigset_t stop;
	size_t size;
	pthread_t t;
	char *end;
	double pct = 10;
	long secs;
	int cpu, err, sig;

	secs = argc == 2 || argc == 3 ? strtol(argv[1], &end, 10) : -1;
	if (secs >= 0 && !*end && argc == 3)
		pct = strtod(argv[2], &end);
	if (secs < 0 || *end || !(pct >= 0.01 && pct <= 100)) {
		fprintf(stderr, "usage: spin SECONDS [PERCENT]\n");
		return 2;
	}
	busy_ns = (long)(PERIOD_NS / 100 * pct);
	/* The threads inherit the mask: only sigwait() below takes these. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	size = CPU_ALLOC_SIZE(nr_cpus);
	allowed = CPU_ALLOC(nr_cpus);
	if (!allowed || sched_getaffinity(0, size, allowed) < 0) {
		perror("spin: sched_getaffinity");
		return 1;
	}
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (!CPU_ISSET_S(cpu, size, allowed))
			continue;
		err = pthread_create(&t, NULL, spin, (void *)(long)cpu);
		if (err) {
			fprintf(stderr, "spin: cannot start a thread for CPU %d: %s\n", cpu, strerror(err));
			return 1;
		}
		pthread_detach(t);
	}
	CPU_FREE(allowed);
	if (secs)
		alarm((unsigned int)secs);
	sigwait(&stop, &sig);
	return 0;	/* and the spinning threads end with the process */
}
