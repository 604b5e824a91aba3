// SPDX-License-Identifier: GPL-2.0
/*
 * stream-group.c — the adaptive layout (struct stream_group, stream.h): a
 * node's streaming thread and the helpers it starts.
 *
 * The node's thread is the lead of a group; every ring has an owner, and a
 * thread reads only the rings it owns. At the end of each pass a member
 * asks the rule (adapt.c) about what the pass found; on SPLIT it starts a
 * helper (pinned to the node, at the same priority) and hands it the
 * fuller half of its rings, on RETIRE (a helper idle for a while) it hands
 * its rings back to the lead and exits. A ring's reader state, writer,
 * compressor and index notes move with it, so each ring's records stay in
 * order in its own data.N. Asked to stop, the lead stops its helpers (each
 * drains its rings a last time), joins them, takes every ring back and
 * makes its own final pass. Threads are started and joined only under the
 * group's lock; the lead joins every helper before it exits.
 *
 * Data flow: stream.c's pass calls stream__sync() first (which rings are
 * this thread's now) and stream__adapt() last (the rule's verdict, acted
 * on); the owners array and gen carry each hand-over between threads.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <numa.h>

#include "stream-internal.h"

struct stream *stream_group__helper(struct stream_group *g, int k)
{
	return &g->helpers[k - 1];
}

/*
 * Group: pin the calling thread to the CPUs of the rings it reads, within
 * the node thread's affinity (all of it when none of its rings' CPUs is
 * there), as the named layouts pin a thread to the CPUs it drains.
 */
void stream__pin(struct stream *s)
{
	const struct cpu_map *aff = s->group->affinity;
	int i, n = 0, max;
	cpu_set_t *set;
	size_t size;

	if (!aff || !aff->nr || cpu_map__is_any(aff))
		return;
	max = aff->map[aff->nr - 1].cpu;
	set = CPU_ALLOC((size_t)max + 1);
	if (!set)
		return;
	size = CPU_ALLOC_SIZE((size_t)max + 1);
	CPU_ZERO_S(size, set);
	for (i = 0; i < s->nr_rings; i++) {
		if (s->own[i] && cpu_map__has(aff, s->rings[i]->cpu)) {
			CPU_SET_S((size_t)s->rings[i]->cpu.cpu, size, set);
			n++;
		}
	}
	for (i = 0; !n && i < aff->nr; i++)
		CPU_SET_S((size_t)aff->map[i].cpu, size, set);
	pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
}

/*
 * Group, at the start of each pass: when a hand-over happened since the
 * last look (gen moved), which rings are this thread's now. The acquire
 * load of gen pairs with the release add to gen in stream__publish_owners()
 * by the thread that handed rings over, after its owner stores. For the
 * lead: a helper's error, which it stored before that add. 0 or -errno.
 */
static void stream__load_owners(struct stream *s, unsigned int gen)
{
	int i;

	s->synced = true;
	s->seen_gen = gen;
	for (i = 0; i < s->nr_rings; i++)
		/* Acquire: pairs with the hand-over's release store of owner[i] (stream__hand()). */
		s->own[i] = __atomic_load_n(&s->group->owner[i], __ATOMIC_ACQUIRE) == s->slot;
}

int stream__sync(struct stream *s)
{
	struct stream_group *g = s->group;
	unsigned int gen = __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE);

	if (s->synced && gen == s->seen_gen)
		return 0;
	stream__load_owners(s, gen);
	if (s->pfd)
		stream__rebuild(s);
	/* Relaxed: ordered by the acquire of gen above (see stream__retire()). */
	return s->slot == 0 ? __atomic_load_n(&g->error, __ATOMIC_RELAXED) : 0;
}

/* Hand ring i to slot `to`: the caller owns it, is between passes and holds the lock. */
static void stream__hand(struct stream *s, int i, int to)
{
	s->own[i] = false;
	s->group->heat[i] = 0;
	/*
	 * Release: pairs with the acquire load of owner[i] in the receiver's
	 * stream__sync(); what this thread did with ring i (its tail, writer,
	 * compressor, index notes) comes before.
	 */
	__atomic_store_n(&s->group->owner[i], to, __ATOMIC_RELEASE);
}

/* After a hand-over's owner stores: tell every member to look again. */
static void stream__publish_owners(struct stream_group *g)
{
	/* Release: pairs with the acquire load of gen in stream__sync(). */
	__atomic_add_fetch(&g->gen, 1, __ATOMIC_RELEASE);
}

/*
 * Under the lock: a slot for a new helper, joining one that retired; -1
 * when the lead is stopping or every slot runs.
 */
static int stream_group__take_slot(struct stream_group *g)
{
	int k;

	if (g->stopping)
		return -1;
	for (k = 1; k < g->max; k++)
		if (g->state[k] == STREAM_SLOT_FREE)
			return k;
	for (k = 1; k < g->max; k++) {
		if (g->state[k] == STREAM_SLOT_RETIRED) {
			stream__stop(stream_group__helper(g, k));	/* it has left: a join */
			g->state[k] = STREAM_SLOT_FREE;
			return k;
		}
	}
	return -1;
}

/*
 * Under the lock: helper h as its lead is now, with no ring yet. Its
 * counters go on from its slot's earlier runs.
 */
static void stream__ready_helper(struct stream *h, const struct stream *lead, u64 now)
{
	u64 v;
	int i;

	h->rings = lead->rings;
	h->nr_rings = lead->nr_rings;
	h->time_off = lead->time_off;
	h->rt_prio = lead->rt_prio;
	h->affinity = lead->affinity;
	h->node = lead->node;
	h->write_rounds = false;
	h->out_fds = lead->out_fds;
	h->nr_files = lead->nr_files;
	h->ring_writers = lead->ring_writers;
	h->writer_kind = lead->writer_kind;
	h->zc = lead->zc;
	h->index = lead->index;
	h->mmap_flush = lead->mmap_flush;
	h->flush_each = lead->flush_each;
	h->idle_ms = lead->idle_ms;
	h->error = 0;
	h->rt_error = 0;
	h->all_hup = false;
	h->final = false;
	h->synced = false;
	h->nr_own = 0;
	for (i = 0; i < h->nr_rings; i++)
		h->own[i] = false;
	adapt__init(&h->adapt, now, false);
	/* Relaxed: the thread is not running; pthread_create() orders it. */
	__atomic_store_n(&h->cmd, STREAM_CMD_NONE, __ATOMIC_RELAXED);
	while (read(h->ctl_fd, &v, sizeof(v)) == sizeof(v))
		;	/* a stop asked of its last run as it left */
}

/* Under the lock: note helper k's run, handed rings[given[0..n)]; its index or -1. */
static int stream_group__note_run(struct stream_group *g, const struct stream *s, int k,
				  const int *given, int n, u64 now)
{
	struct stream_helper_run *r;
	struct cpu_map *map;
	int i, *cpus;

	if (g->nr_runs == g->cap_runs) {
		int cap = g->cap_runs ? 2 * g->cap_runs : 8;
		void *p = realloc(g->runs, sizeof(*g->runs) * (size_t)cap);

		if (!p)
			return -1;
		g->runs = p;
		g->cap_runs = cap;
	}
	r = &g->runs[g->nr_runs];
	memset(r, 0, sizeof(*r));
	r->slot = k;
	r->parent = s->slot;
	r->start_ns = now - g->t0;
	r->why = s->adapt.why;
	r->fill = s->adapt.fill;
	r->lost = s->adapt.lost;
	cpus = malloc(sizeof(*cpus) * (size_t)(n ? n : 1));
	for (i = 0; cpus && i < n; i++)
		cpus[i] = s->rings[given[i]]->cpu.cpu;
	map = cpus ? cpu_map__new_from(cpus, n) : NULL;
	/* at most "NNNNNNN," a CPU: the whole list, however many CPUs a node has */
	r->cpus = map ? malloc((size_t)n * 8 + 1) : NULL;
	if (r->cpus)
		cpu_map__snprintf(map, r->cpus, (size_t)n * 8 + 1);
	cpu_map__put(map);
	free(cpus);
	return g->nr_runs++;
}

/*
 * Under the lock, slot k RUNNING: hand it the fuller half of the rings s
 * reads (adapt__pick() on their heat). Returns how many, their indexes
 * left in scratch[nr_rings ..] for the run's note.
 */
static int stream__hand_half(struct stream *s, int k)
{
	struct stream_group *g = s->group;
	int *mine = s->scratch, *pick = s->scratch + s->nr_rings;
	unsigned int *heat = (unsigned int *)(s->scratch + 2 * s->nr_rings);
	int i, j, n = 0, nr;

	for (i = 0; i < s->nr_rings; i++) {
		if (s->own[i]) {
			mine[n] = i;
			heat[n++] = g->heat[i];
		}
	}
	nr = adapt__pick(heat, n, pick);
	for (j = 0; j < n; j++)
		g->heat[mine[j]] = 0;	/* all start afresh; before any is handed over */
	for (j = 0; j < nr; j++)
		stream__hand(s, mine[pick[j]], k);
	stream__publish_owners(g);
	/* Relaxed: a count for the status line and a hint for can_split. */
	__atomic_add_fetch(&g->running, 1, __ATOMIC_RELAXED);
	g->started++;
	if (__atomic_load_n(&g->running, __ATOMIC_RELAXED) > g->peak)
		g->peak = __atomic_load_n(&g->running, __ATOMIC_RELAXED);
	for (j = 0; j < nr; j++)
		pick[j] = mine[pick[j]];
	return nr;
}

/*
 * SPLIT: start a helper in a free slot and hand it the fuller half of the
 * rings this thread reads (adapt__pick() on their heat). Nothing changes
 * when no slot is free, the lead is stopping or the thread cannot start.
 */
static void stream__split(struct stream *s, u64 now)
{
	struct stream_group *g = s->group;
	int k, nr, err;
	struct stream *h;

	pthread_mutex_lock(&g->lock);
	k = stream_group__take_slot(g);
	if (k < 0)
		goto out_unlock;
	/*
	 * Rings handed to this thread since its pass began are its own too:
	 * hand-overs happen under the lock, so this look is exact. (Acquire:
	 * pairs with the release add of stream__publish_owners().)
	 */
	stream__load_owners(s, __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE));
	h = stream_group__helper(g, k);
	stream__ready_helper(h, g->lead, now);
	err = stream__start(h);
	if (err) {
		if (!g->start_error)
			g->start_error = err;
		goto out_unlock;
	}
	g->state[k] = STREAM_SLOT_RUNNING;	/* before it owns anything */
	nr = stream__hand_half(s, k);
	h->run = stream_group__note_run(g, s, k, s->scratch + s->nr_rings, nr, now);
	pthread_mutex_unlock(&g->lock);
	stream__wake(h);
	stream__rebuild(s);
	return;

out_unlock:
	pthread_mutex_unlock(&g->lock);
}

/*
 * RETIRE (a helper idle, or whose rings all hung up), or a helper's error:
 * hand every ring back to the lead, leave RUNNING, and wake the lead so it
 * polls them. The thread then exits. err: the helper's -errno, which the
 * lead stops on; stored before the release add to gen, which the lead's
 * acquire in stream__sync() pairs with.
 */
void stream__retire(struct stream *s, u64 now, enum stream_run_end end, int err)
{
	struct stream_group *g = s->group;
	int i;

	pthread_mutex_lock(&g->lock);
	/* Every ring it owns, those handed to it since its last pass too (see stream__split()). */
	stream__load_owners(s, __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE));
	for (i = 0; i < s->nr_rings; i++)
		if (s->own[i])
			stream__hand(s, i, 0);
	s->nr_own = 0;
	if (err && !__atomic_load_n(&g->error, __ATOMIC_RELAXED))
		__atomic_store_n(&g->error, err, __ATOMIC_RELAXED);
	stream__publish_owners(g);
	g->state[s->slot] = STREAM_SLOT_RETIRED;
	__atomic_sub_fetch(&g->running, 1, __ATOMIC_RELAXED);
	if (s->run >= 0) {
		g->runs[s->run].stop_ns = now - g->t0;
		g->runs[s->run].end = end;
		g->runs[s->run].error = err;
	}
	pthread_mutex_unlock(&g->lock);
	stream__wake(g->lead);
}

/*
 * The lead, leaving: no new helper from now on; every helper is asked to
 * stop (each drains its rings a last time, side by side), then joined;
 * its error becomes the lead's if the lead has none. Then every ring is
 * the lead's again. The joins order everything the helpers did before
 * what follows.
 */
void stream__stop_helpers(struct stream *s)
{
	struct stream_group *g = s->group;
	u64 now = stream__now();
	int i, k, err;

	pthread_mutex_lock(&g->lock);
	g->stopping = true;
	pthread_mutex_unlock(&g->lock);
	/* No slot starts or joins from here on but by this thread: no lock needed for started. */
	for (k = 1; k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);
		int none = STREAM_CMD_NONE;

		/* Pairs with the acquire load of cmd in its stream__command(). */
		if (h->started && __atomic_compare_exchange_n(&h->cmd, &none, STREAM_CMD_STOP, false,
							      __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			stream__wake(h);
	}
	for (k = 1; k < g->max; k++) {
		err = stream__stop(stream_group__helper(g, k));
		if (err && !s->error)
			s->error = err;
	}
	pthread_mutex_lock(&g->lock);
	for (k = 1; k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);

		if (g->state[k] == STREAM_SLOT_RUNNING && h->run >= 0) {
			g->runs[h->run].stop_ns = now - g->t0;
			g->runs[h->run].end = h->error ? STREAM_RUN_ERROR : STREAM_RUN_END;
			g->runs[h->run].error = h->error;
		}
		g->state[k] = STREAM_SLOT_FREE;
	}
	for (i = 0; i < s->nr_rings; i++) {
		/* Relaxed: every other member has been joined. */
		__atomic_store_n(&g->owner[i], 0, __ATOMIC_RELAXED);
		s->own[i] = true;
	}
	s->nr_own = s->nr_rings;
	__atomic_store_n(&g->running, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g->lock);
	if (!s->error)
		s->error = __atomic_load_n(&g->error, __ATOMIC_RELAXED);
}

/* The rule's verdict on the pass just made, acted on; true when the thread retired. */
bool stream__adapt(struct stream *s, bool woke)
{
	struct stream_group *g = s->group;
	struct adapt_pass pass = {
		.now = stream__now(), .fill = s->pass_fill, .lost = s->pass_lost, .woke = woke,
	};
	/*
	 * Two rings or more that can still fill (a hung-up one never will).
	 * Relaxed: a hint; stream__split() looks for a free slot under the lock.
	 */
	bool can_split = s->nr_own >= 2 && __atomic_load_n(&g->running, __ATOMIC_RELAXED) < g->max &&
			 stream__nr_alive(s) >= 2;

	switch (adapt__step(&s->adapt, &g->params, &pass, can_split, stream__is_helper(s))) {
	case ADAPT_SPLIT:
		stream__split(s, pass.now);
		return false;
	case ADAPT_RETIRE:
		stream__retire(s, pass.now, STREAM_RUN_IDLE, 0);
		return true;
	default:
		return false;
	}
}

/* A member's own arrays: which rings it reads, its poll set, room for a split. */
static int stream__alloc_member(struct stream *s, int n)
{
	s->own = calloc((size_t)n + 1, sizeof(*s->own));
	s->pfd = calloc((size_t)n + 1, sizeof(*s->pfd));
	/* mine[n], pick[n], then n heats (an unsigned int fits an int's room) */
	s->scratch = calloc(3 * (size_t)n + 1, sizeof(*s->scratch));
	return s->own && s->pfd && s->scratch ? 0 : -ENOMEM;
}

/* Slots 1 .. max - 1, each a stream on the lead's rings, not started. */
static int stream_group__make_helpers(struct stream_group *g, const struct stream *s)
{
	int k, err, n = s->nr_rings;

	for (k = 1; k < g->max; k++)
		g->helpers[k - 1].ctl_fd = -1;
	for (k = 1; k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);

		err = stream__init(h, s->idx, s->rings, n, NULL, s->time_off, -1);
		if (err)
			return err;
		snprintf(h->name, sizeof(h->name), "prec-rd/%u.%u", (unsigned int)(s->idx % 10000),
			 (unsigned int)(k % 1000));
		h->group = g;
		h->slot = k;
		h->hup = g->hup;
		err = stream__alloc_member(h, n);
		if (err)
			return err;
	}
	return 0;
}

int stream_group__new(struct stream *s, int max, const struct adapt_params *p)
{
	struct stream_group *g;
	int i, n = s->nr_rings, err = -ENOMEM;

	if (max > n)
		max = n;
	if (max < 1)
		max = 1;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	s->group = g;
	s->slot = 0;
	g->lead = s;
	g->max = max;
	if (p)
		g->params = *p;
	else
		adapt_params__default(&g->params);
	g->affinity = s->affinity;
	g->follow = s->affinity != NULL;
	pthread_mutex_init(&g->lock, NULL);
	g->helpers = calloc((size_t)max, sizeof(*g->helpers));
	g->owner = calloc((size_t)n + 1, sizeof(*g->owner));
	g->hup = calloc((size_t)n + 1, sizeof(*g->hup));
	g->heat = calloc((size_t)n + 1, sizeof(*g->heat));
	g->state = calloc((size_t)max, sizeof(*g->state));
	if (!g->helpers || !g->owner || !g->hup || !g->heat || !g->state)
		goto out_delete;
	err = stream_group__make_helpers(g, s);
	if (err)
		goto out_delete;
	free(s->hup);
	s->hup = g->hup;
	err = stream__alloc_member(s, n);
	if (err)
		goto out_delete;
	for (i = 0; i < n; i++)
		s->own[i] = true;
	s->nr_own = n;
	g->state[0] = STREAM_SLOT_RUNNING;
	g->running = 1;
	g->started = 1;
	g->peak = 1;
	return 0;

out_delete:
	stream_group__delete(s);
	return err;
}

void stream_group__delete(struct stream *s)
{
	struct stream_group *g = s->group;
	int k, i;

	if (!g)
		return;
	for (k = 1; g->helpers && k < g->max; k++) {
		struct stream *h = stream_group__helper(g, k);

		if (h->ctl_fd < 0 && !h->own)
			continue;	/* never made */
		stream__exit(h);
		free(h->own);
		free(h->scratch);
	}
	free(s->own);
	free(s->scratch);
	s->own = NULL;
	s->scratch = NULL;
	if (s->hup == g->hup)
		s->hup = NULL;
	s->group = NULL;
	pthread_mutex_destroy(&g->lock);
	free(g->helpers);
	free(g->owner);
	free(g->hup);
	free(g->heat);
	free(g->state);
	for (i = 0; i < g->nr_runs; i++)
		free(g->runs[i].cpus);
	free(g->runs);
	free(g);
}

int stream_group__read_live(const struct stream *s, struct stream_live *sum)
{
	struct stream_group *g = s->group;
	struct stream_live l;
	int k;

	stream__read_live(s, sum);
	if (!g)
		return 1;
	for (k = 1; k < g->max; k++) {
		stream__read_live(stream_group__helper(g, k), &l);
		sum->bytes += l.bytes;
		sum->samples += l.samples;
		sum->lost += l.lost;
	}
	/* Relaxed: a count of its own (see struct stream_group). */
	return __atomic_load_n(&g->running, __ATOMIC_RELAXED);
}

int stream_group__check_owners(struct stream *s)
{
	struct stream_group *g = s->group;
	int i, k, bad = -1;

	if (!g)
		return -1;
	pthread_mutex_lock(&g->lock);
	for (i = 0; i < s->nr_rings && bad < 0; i++) {
		/* Acquire: pairs with the release stores of stream__hand() (made under the lock too). */
		k = __atomic_load_n(&g->owner[i], __ATOMIC_ACQUIRE);
		if (k < 0 || k >= g->max || g->state[k] != STREAM_SLOT_RUNNING)
			bad = i;
	}
	pthread_mutex_unlock(&g->lock);
	return bad;
}
