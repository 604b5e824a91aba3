// SPDX-License-Identifier: GPL-2.0
/*
 * adapt.c — the rule of the adaptive layout: from what a streaming
 * thread's passes over its rings found, whether it should hand half its
 * rings to a new helper thread (SPLIT), or, being a helper, give them back
 * and stop (RETIRE).
 *
 * Pure: each verdict depends only on the thread's adapt_state, the params
 * and the pass (fill, lost, woke, time); nothing here reads a clock, a
 * ring or another thread, so tests/test_adapt.c replays synthetic traces.
 * Called by stream.c at the end of every pass of a thread of an adaptive
 * layout; the state is that thread's own.
 *
 * The signals. Fill is the fullest ring's share read in the pass: the
 * kernel wakes a sleeping reader when a ring is half full, so a reader
 * that keeps up reads about half a ring per wakeup, and one that reads
 * three quarters or more came late by half of what was left. One late
 * pass is a hiccup (a page fault, a long write); nr_high of them within
 * window_ns is a thread that does not keep up. A LOST record says the
 * kernel found a ring full: always a split. Splits are at least settle_ns
 * apart, so that the LOST records of one burst, which reach the reader
 * after it has made room, do not start a helper each; a helper settles
 * from its start (it may be handed such records), while a node's first
 * thread may split at once: a short recording would be over before it
 * settled.
 *
 * Idle is the other end: no ring reached the wakeup mark (every pass below
 * low, which is half a ring) and nothing was lost for idle_ns, while the
 * thread still slept in poll (a pass after a sleep within slept_ns): a
 * thread that drains without ever sleeping reads little per pass because
 * it reads all the time, and is not idle.
 */
#include <string.h>

#include "precord/adapt.h"

void adapt_params__default(struct adapt_params *p)
{
	p->high = ADAPT_HIGH;
	p->low = ADAPT_LOW;
	p->nr_high = ADAPT_NR_HIGH;
	p->window_ns = ADAPT_WINDOW_NS;
	p->settle_ns = ADAPT_SETTLE_NS;
	p->idle_ns = ADAPT_IDLE_NS;
	p->slept_ns = ADAPT_SLEPT_NS;
}

void adapt__init(struct adapt_state *st, u64 now, bool settled)
{
	memset(st, 0, sizeof(*st));
	st->since = now;
	st->settled = settled;
	st->busy_at = now;
	st->woke_at = now;
}

static unsigned int adapt__nr_high(const struct adapt_params *p)
{
	if (p->nr_high < 1)
		return 1;
	return p->nr_high > ADAPT_MAX_NR_HIGH ? ADAPT_MAX_NR_HIGH : p->nr_high;
}

/* Note a high pass, keeping the latest nr of them. */
static void adapt__note_high(struct adapt_state *st, unsigned int nr, u64 now, unsigned int fill)
{
	st->high_at[st->next] = now;
	st->high_fill[st->next] = fill;
	st->next = (st->next + 1) % nr;
	if (st->nr_high < nr)
		st->nr_high++;
}

/*
 * The latest nr high passes all lie within the window: the oldest of them
 * (at next, once the ring is full) is no older than window_ns. Their
 * fullest fill into *fill.
 */
static bool adapt__high_enough(const struct adapt_state *st, unsigned int nr, u64 now,
			       u64 window, unsigned int *fill)
{
	unsigned int i, max = 0;

	if (st->nr_high < nr || now - st->high_at[st->next % nr] > window)
		return false;
	for (i = 0; i < nr; i++)
		if (st->high_fill[i] > max)
			max = st->high_fill[i];
	*fill = max;
	return true;
}

static enum adapt_verdict adapt__split(struct adapt_state *st, u64 now, enum adapt_why why,
				       unsigned int fill, u64 lost)
{
	st->why = why;
	st->fill = fill;
	st->lost = lost;
	st->since = now;
	st->settled = false;
	st->nr_high = st->next = 0;	/* the passes before the split say nothing of after */
	st->busy_at = now;
	return ADAPT_SPLIT;
}

enum adapt_verdict adapt__step(struct adapt_state *st, const struct adapt_params *p,
			       const struct adapt_pass *pass, bool can_split, bool helper)
{
	unsigned int nr = adapt__nr_high(p), fill;
	u64 now = pass->now;

	if (pass->woke)
		st->woke_at = now;
	if (pass->fill >= p->low || pass->lost)
		st->busy_at = now;
	if (pass->fill >= p->high)
		adapt__note_high(st, nr, now, pass->fill);
	if (can_split && (st->settled || now - st->since >= p->settle_ns)) {
		if (pass->lost)
			return adapt__split(st, now, ADAPT_WHY_LOST, pass->fill, pass->lost);
		if (adapt__high_enough(st, nr, now, p->window_ns, &fill))
			return adapt__split(st, now, ADAPT_WHY_FILL, fill, 0);
	}
	if (helper && now - st->busy_at >= p->idle_ns && now - st->woke_at <= p->slept_ns) {
		st->why = ADAPT_WHY_IDLE;
		st->fill = 0;
		st->lost = 0;
		return ADAPT_RETIRE;
	}
	return ADAPT_STAY;
}

int adapt__pick(const unsigned int *heat, int n, int *out)
{
	int i, j, k, nr = n / 2;

	/* Insertion of each ring into the sorted prefix; n is a node's rings, small. */
	for (k = 0, i = 0; i < n; i++) {
		for (j = k; j > 0 && heat[out[j - 1]] < heat[i]; j--)
			if (j < nr)
				out[j] = out[j - 1];
		if (j < nr) {
			out[j] = i;
			if (k < nr)
				k++;
		}
	}
	return nr;
}
