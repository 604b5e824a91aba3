// SPDX-License-Identifier: GPL-2.0
/*
 * runstat — run a command and print, on one line to stderr (or -o FILE),
 * its wall time and the user and system CPU time of the command and
 * everything it waited for (wait4 rusage): the recorder's own cost is this
 * minus what the workload reports for itself.
 *
 *   runstat [-o FILE] -- COMMAND [ARGS]
 *   → "wall=1.234567 user=0.123456 sys=0.012345 maxrss_kb=12345 status=0"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	FILE *out = stderr;
	int i = 1, status;
	pid_t pid;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		out = fopen(argv[i + 1], "w");
		if (!out) {
			perror(argv[i + 1]);
			return 2;
		}
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || !strcmp(argv[i], "--help")) {
		fprintf(stderr, "usage: runstat [-o FILE] -- COMMAND [ARGS]\n");
		return i >= argc ? 2 : 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("runstat");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(out, "wall=%.6f user=%.6f sys=%.6f maxrss_kb=%ld status=%d\n",
		(double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
		tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
