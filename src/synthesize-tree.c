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
 *
 * A process that exits between a file's switch and that file's synthesis
 * has no maps left in /proc, yet the new file holds its last samples (the
 * rings' unread records go to the new file). So the tree is also taken
 * into memory just before the switch (synth_tree_snap__take()), and
 * synthesize__tree_since() writes /proc's tree, then, for each process
 * /proc gave no map of, what the snapshot held of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthesize-internal.h"
#include "precord/util.h"

/* The pid of a task record (COMM, MMAP, MMAP2, FORK, EXIT, NAMESPACES); 0: another type. */
static pid_t tree__record_pid(const struct perf_event_header *h)
{
	u32 pid;

	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_NAMESPACES:
		if (h->size < sizeof(*h) + sizeof(pid))
			return 0;
		memcpy(&pid, (const char *)h + sizeof(*h), sizeof(pid));
		return (pid_t)pid;
	default:
		return 0;
	}
}

static bool tree__is_map(const struct perf_event_header *h)
{
	return h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2;
}

/* A set of pids, appended to in runs (a process's records come together). */
struct pid_set {
	pid_t	*pids;
	int	nr, cap;
};

static bool pid_set__has(const struct pid_set *set, pid_t pid)
{
	int i;

	for (i = set->nr - 1; i >= 0; i--)
		if (set->pids[i] == pid)
			return true;
	return false;
}

static int pid_set__add(struct pid_set *set, pid_t pid)
{
	pid_t *grown;

	if (set->nr && set->pids[set->nr - 1] == pid)
		return 0;
	if (pid_set__has(set, pid))
		return 0;
	if (set->nr == set->cap) {
		grown = realloc(set->pids, sizeof(*grown) * (size_t)(set->cap ? 2 * set->cap : 16));
		if (!grown)
			return -ENOMEM;
		set->pids = grown;
		set->cap = set->cap ? 2 * set->cap : 16;
	}
	set->pids[set->nr++] = pid;
	return 0;
}

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

static int snap__emit(void *ctx, const void *record, size_t size)
{
	struct synth_tree_snap *snap = ctx;
	size_t cap = snap->cap ? snap->cap : 65536;
	void *grown;

	while (cap - snap->len < size)
		cap *= 2;
	if (cap != snap->cap) {
		grown = realloc(snap->buf, cap);
		if (!grown)
			return -ENOMEM;
		snap->buf = grown;
		snap->cap = cap;
	}
	memcpy((char *)snap->buf + snap->len, record, size);
	snap->len += size;
	return 0;
}

int synth_tree_snap__take(struct synth_tree_snap *snap, const struct synth_opts *o,
			  const pid_t *roots, int nr_roots)
{
	int err;

	snap->len = 0;
	err = synthesize__tree(o, roots, nr_roots, snap__emit, snap);
	if (err)
		snap->len = 0;	/* a part of a tree is no fallback for the whole */
	return err;
}

void synth_tree_snap__exit(struct synth_tree_snap *snap)
{
	free(snap->buf);
	*snap = (struct synth_tree_snap){ 0 };
}

/* The fresh pass: every record on to the caller, noting the pids with a map. */
struct since_ctx {
	synth_emit_fn	emit;
	void		*ctx;
	struct pid_set	mapped;
};

static int since__emit(void *ctx, const void *record, size_t size)
{
	struct since_ctx *c = ctx;
	const struct perf_event_header *h = record;
	int err;

	if (tree__is_map(h)) {
		err = pid_set__add(&c->mapped, tree__record_pid(h));
		if (err)
			return err;
	}
	return c->emit(c->ctx, record, size);
}

/* The snapshot's pids that had a map there and have none in the fresh pass. */
static int since__gone(const struct synth_tree_snap *snap, const struct pid_set *mapped,
		       struct pid_set *gone)
{
	const char *p = snap->buf, *end = p + snap->len;
	const struct perf_event_header *h;
	pid_t pid;
	int err;

	for (; p < end; p += h->size) {
		h = (const void *)p;
		pid = tree__record_pid(h);
		if (tree__is_map(h) && pid && !pid_set__has(mapped, pid)) {
			err = pid_set__add(gone, pid);
			if (err)
				return err;
		}
	}
	return 0;
}

int synthesize__tree_since(const struct synth_opts *o, const pid_t *roots, int nr_roots,
			   const struct synth_tree_snap *snap, synth_emit_fn emit, void *ctx)
{
	struct since_ctx c = { .emit = emit, .ctx = ctx };
	struct pid_set gone = { 0 };
	const char *p, *end;
	const struct perf_event_header *h;
	pid_t pid;
	int err;

	err = synthesize__tree(o, roots, nr_roots, since__emit, &c);
	if (!err && snap && snap->len)
		err = since__gone(snap, &c.mapped, &gone);
	/* Each gone process's records in the snapshot's order: COMM, FORK, then its maps. */
	p = snap ? snap->buf : NULL;
	end = p ? p + snap->len : NULL;
	for (; !err && gone.nr && p < end; p += h->size) {
		h = (const void *)p;
		pid = tree__record_pid(h);
		if (pid && pid_set__has(&gone, pid))
			err = emit(ctx, h, h->size);
	}
	free(gone.pids);
	free(c.mapped.pids);
	return err;
}
