// SPDX-License-Identifier: GPL-2.0
/*
 * spawn-threads — a workload of N sleeping threads, for the per-thread
 * cases of bench/evlist-vs-perf.sh (and synthesis of many threads).
 *
 * Starts N threads with small stacks that block in pause(), prints
 * "ready PID" on stdout once all of them run, then waits until SIGTERM,
 * SIGINT or the timeout (-t, default 600 s), and exits.  Each thread is
 * visible in /proc/PID/task, so `-p PID` targets all N + 1 of them.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STACK_SIZE	(64 * 1024)

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spawn-threads [-t SECONDS] N\n"
		"  start N sleeping threads, print \"ready PID\", wait for SIGTERM/SIGINT or\n"
		"  the timeout (default 600 s), exit\n");
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int spawn(long n)
{
	pthread_attr_t attr;
	pthread_t th;
	long i;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < n; i++) {
		err = pthread_create(&th, &attr, sleeper, NULL);
		if (err) {
			fprintf(stderr, "spawn-threads: cannot create thread %ld of %ld: %s\n",
				i + 1, n, strerror(err));
			return 1;
		}
	}
	pthread_attr_destroy(&attr);
	return 0;
}

int main(int argc, char **argv)
{
	long n, timeout = 600;
	sigset_t set;
	int c, sig;

	while ((c = getopt(argc, argv, "t:h")) != -1) {
		if (c == 't') {
			timeout = strtol(optarg, NULL, 10);
		} else {
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1 || (n = strtol(argv[optind], NULL, 10)) < 0) {
		usage(stderr);
		return 2;
	}
	/* Block the signals in every thread; main collects them with sigtimedwait(). */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (spawn(n))
		return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	do {
		struct timespec ts = { .tv_sec = timeout };

		sig = sigtimedwait(&set, NULL, &ts);
	} while (sig < 0 && errno == EINTR);
	return 0;
}
