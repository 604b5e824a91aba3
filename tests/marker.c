// SPDX-License-Identifier: GPL-2.0
/*
 * marker — a workload for the flight recorder tests: numbered markers at a
 * steady rate, and SIGUSR2 to the parent (precord) after chosen markers.
 *
 *   marker N INTERVAL_MS [SIGNAL_AT...]
 *
 * Marker i (1..N) is the system call getppid(0x6d61726b, i): getppid
 * ignores its arguments, and raw_syscalls:sys_enter records them, so
 * `perf script` shows args[0]=6d61726b ("mark") and args[1]=i, in hex:
 * "NR 110 (6d61726b, 12c, ...)" is marker 300 on x86-64. After marker
 * i, if i is one of SIGNAL_AT, the parent gets SIGUSR2 (a snapshot, with
 * `precord record --switch-output -- marker ...`) and "signal after marker
 * i" goes to stderr. Marker i is issued at start + (i - 1) * INTERVAL_MS on
 * CLOCK_MONOTONIC, by absolute sleeps, so the rate does not drift with the
 * time the calls take; the last marker is followed by one more interval.
 * The parent's pid is read once, before the first marker: a getppid() after
 * one would be traced with the marker's arguments still in the registers
 * and look like a second copy of it.
 * Bad arguments: a one-line usage error, exit status 2.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MARKER_MAGIC	0x6d61726bUL	/* "mark" */
#define NSEC_PER_SEC	1000000000L

static int usage(const char *why)
{
	fprintf(stderr, "usage: marker N INTERVAL_MS [SIGNAL_AT...] (%s)\n", why);
	return 2;
}

/* A whole decimal number in [min, max], no sign, no trailing text. */
static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(s, &end, 10);
	if (errno || *end || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

static bool is_signal_at(const unsigned long *at, int nr_at, unsigned long i)
{
	int k;

	for (k = 0; k < nr_at; k++) {
		if (at[k] == i)
			return true;
	}
	return false;
}

static void timespec_add_ms(struct timespec *ts, unsigned long ms)
{
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= NSEC_PER_SEC) {
		ts->tv_sec++;
		ts->tv_nsec -= NSEC_PER_SEC;
	}
}

static void sleep_until(const struct timespec *when)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, when, NULL) == EINTR)
		;
}

static int marker__run(unsigned long n, unsigned long interval_ms,
		       const unsigned long *at, int nr_at)
{
	pid_t parent = getppid();	/* before any marker: see the top */
	struct timespec tick;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &tick);
	for (i = 1; i <= n; i++) {
		syscall(SYS_getppid, MARKER_MAGIC, i);
		if (is_signal_at(at, nr_at, i)) {
			if (kill(parent, SIGUSR2)) {
				fprintf(stderr, "marker: cannot signal the parent: %s\n",
					strerror(errno));
				return 1;
			}
			fprintf(stderr, "signal after marker %lu\n", i);
		}
		timespec_add_ms(&tick, interval_ms);
		sleep_until(&tick);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n, interval_ms, *at;
	int k, nr_at, ret;

	if (argc < 3)
		return usage("too few arguments");
	if (parse_ulong(argv[1], 1, 100000000UL, &n))
		return usage("N must be a whole number >= 1");
	if (parse_ulong(argv[2], 0, 3600000UL, &interval_ms))
		return usage("INTERVAL_MS must be a whole number of milliseconds");
	nr_at = argc - 3;
	at = calloc(nr_at ? (size_t)nr_at : 1, sizeof(*at));
	if (!at) {
		fprintf(stderr, "marker: out of memory\n");
		return 2;
	}
	for (k = 0; k < nr_at; k++) {
		if (parse_ulong(argv[3 + k], 1, n, &at[k])) {
			free(at);
			return usage("each SIGNAL_AT must be a marker number in 1..N");
		}
	}
	ret = marker__run(n, interval_ms, at, nr_at);
	free(at);
	return ret;
}
