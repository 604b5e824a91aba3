// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize-tree.c — the processes of a recording's targets and of every
 * descendant they started (synthesize__tree()): what a --switch-output
 * file of a command or of -p/-t/-u tasks needs to read on its own, where
 * walking all of /proc would add every task on the machine to each file.
 *
 * Data flow: /proc's pids (synthesize__proc_pids()), each one's parent
 * from /proc/PID/status, then, for each pid whose chain of parents meets a
 * root, synthesize__process() in pid order, straight to the emit callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthesize-internal.h"
#include "precord/util.h"

/* The PPid of /proc/PID/status; 0 when it cannot be read (gone, or the root). */
static pid_t tree__ppid(const struct synth_opts *o, pid_t pid)
{
	char path[64], line[128];
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", SYNTH_PATH(o, proc, "/proc"), pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!parse__key_int(line, "PPid", &ppid))
			break;
	fclose(f);
	return ppid > 0 ? ppid : 0;
}

static int tree__index(const pid_t *pids, int nr, pid_t pid)
{
	int lo = 0, hi = nr - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (pids[mid] == pid)
			return mid;
		if (pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

enum { TREE_UNKNOWN, TREE_IN, TREE_OUT, TREE_WALKING };

/* Whether pids[i] is a root or below one; each pid is decided once. */
static int tree__decide(const pid_t *pids, const pid_t *ppids, unsigned char *state, int nr,
			const pid_t *roots, int nr_roots, int i)
{
	int r, p;

	if (state[i] != TREE_UNKNOWN)
		return state[i] == TREE_IN;	/* a cycle (pid reuse) counts as out */
	for (r = 0; r < nr_roots; r++) {
		if (roots[r] == pids[i]) {
			state[i] = TREE_IN;
			return 1;
		}
	}
	p = ppids[i] ? tree__index(pids, nr, ppids[i]) : -1;
	state[i] = TREE_WALKING;
	state[i] = p >= 0 && tree__decide(pids, ppids, state, nr, roots, nr_roots, p) ?
		   TREE_IN : TREE_OUT;
	return state[i] == TREE_IN;
}

int synthesize__tree(const struct synth_opts *o, const pid_t *roots, int nr_roots,
		     synth_emit_fn emit, void *ctx)
{
	unsigned char *state;
	pid_t *pids, *ppids;
	int i, nr, err = 0;

	nr = synthesize__proc_pids(o, &pids);
	if (nr < 0)
		return nr;
	ppids = calloc((size_t)nr + 1, sizeof(*ppids));
	state = calloc((size_t)nr + 1, 1);
	if (!ppids || !state) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++)
		ppids[i] = tree__ppid(o, pids[i]);
	for (i = 0; i < nr && !err; i++) {
		if (!tree__decide(pids, ppids, state, nr, roots, nr_roots, i))
			continue;
		err = synthesize__process(o, pids[i], emit, ctx);
		if (err == -ESRCH || err == -ENOENT || err == -EACCES || err == -EPERM)
			err = 0;	/* gone since the listing, or not ours to read */
	}
out:
	free(state);
	free(ppids);
	free(pids);
	return err;
}
