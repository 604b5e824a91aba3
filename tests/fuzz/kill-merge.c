// SPDX-License-Identifier: GPL-2.0
/*
 * kill-merge.c — leaves what a consuming merge killed half-way leaves, for
 * the seed corpus of fuzz_merge_dir: `kill-merge DIR OUT N` merges the perf
 * directory DIR into OUT as precord merges its staging directory (in parts,
 * giving the inputs' space back), killed with SIGKILL at its Nth journal
 * entry. DIR keeps merge.journal and the partial output next to OUT.
 * Exit 0 when the merge was killed as asked.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "precord/merge.h"

int main(int argc, char **argv)
{
	struct merge_opts opts = {
		.jobs = 2, .part_min = 256, .round_bytes = 65536,
		.consume = true, .give_step = 4096, .quiet = true,
	};
	char err[1024];
	int status;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: kill-merge DIR OUT N\n");
		return 2;
	}
	opts.fault.kill_at = atoi(argv[3]);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int ret = merge__dir(argv[1], argv[2], &opts, NULL, err, sizeof(err));

		fprintf(stderr, "kill-merge: the merge was not killed (%d: %s)\n", ret, err);
		_exit(1);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
}
