/* SPDX-License-Identifier: GPL-2.0 */
/*
 * adapt.h — the rule of the adaptive layout (--threads=adaptive, the
 * default): when a streaming thread hands part of its rings to a new
 * helper thread of its NUMA node, and when a helper gives its rings back
 * and stops. A pure function of what each pass over a thread's rings
 * found: how full the fullest ring was when it was drained, how many
 * records the kernel reported lost, whether the pass followed a sleep,
 * and the time; so it is checked on synthetic traces (tests/test_adapt.c).
 * stream.c feeds it and acts on its verdicts.
 */
#ifndef PRECORD_ADAPT_H
#define PRECORD_ADAPT_H

#include <stdbool.h>
#include "precord/perf-file.h"

/*
 * The defaults (Documentation/design.md, "The adaptive layout", says why):
 * a pass is high when a ring was 3/4 full or more as it was drained (the
 * kernel wakes the reader at half a ring, so a reader that keeps up reads
 * at about half), and three high passes within 100 ms, or any loss, split
 * the thread, at most once per 50 ms (a node's first thread from its
 * start, a helper 50 ms after its own); a helper whose rings stayed below
 * half a ring (never reached the wakeup mark) with no loss for 2 s, while
 * it still slept in poll, retires.
 */
#define ADAPT_HIGH		750		/* permille of a ring */
#define ADAPT_LOW		500
#define ADAPT_NR_HIGH		3
#define ADAPT_WINDOW_NS		(100ULL * 1000000)
#define ADAPT_SETTLE_NS		(50ULL * 1000000)
#define ADAPT_IDLE_NS		(2000ULL * 1000000)
#define ADAPT_SLEPT_NS		(500ULL * 1000000)
#define ADAPT_MAX_NR_HIGH	16		/* the most high passes a rule may count */

struct adapt_params {
	unsigned int	high;		/* permille: a pass whose fullest ring was this full is high */
	unsigned int	low;		/* permille: below this (and no loss) a pass is idle */
	unsigned int	nr_high;	/* this many high passes ... (1 .. ADAPT_MAX_NR_HIGH) */
	u64		window_ns;	/* ... within this long split the thread */
	u64		settle_ns;	/* no split sooner than this after the start or a split */
	u64		idle_ns;	/* a helper idle this long retires ... */
	u64		slept_ns;	/* ... if it slept in poll within this long */
};

/* What one pass over a thread's rings found. */
struct adapt_pass {
	u64		now;		/* ns, CLOCK_MONOTONIC */
	unsigned int	fill;		/* permille: bytes read from the fullest ring / its size */
	u64		lost;		/* records the kernel reported lost (LOST records read) */
	bool		woke;		/* the pass came after a sleep in poll */
};

enum adapt_verdict {
	ADAPT_STAY,
	ADAPT_SPLIT,	/* start a helper and hand it the fuller half of the rings */
	ADAPT_RETIRE,	/* (a helper) give the rings back and stop */
};

enum adapt_why {
	ADAPT_WHY_NONE,
	ADAPT_WHY_FILL,	/* nr_high passes at high water within the window */
	ADAPT_WHY_LOST,	/* the kernel lost records */
	ADAPT_WHY_IDLE,	/* retired: below low water for idle_ns */
};

/* One thread's memory of its recent passes. Owned by that thread. */
struct adapt_state {
	u64		high_at[ADAPT_MAX_NR_HIGH];	/* times of the latest high passes (a ring) */
	unsigned int	high_fill[ADAPT_MAX_NR_HIGH];	/* and their fills */
	unsigned int	nr_high;	/* entries in high_at (at most params.nr_high) */
	unsigned int	next;		/* where the next one goes */
	u64		since;		/* the last split (a helper: its start): settle from here */
	bool		settled;	/* no split to settle from (a node's first thread) */
	u64		busy_at;	/* the last pass at low water or above, or with loss */
	u64		woke_at;	/* the last pass after a sleep */
	/* Why the last SPLIT or RETIRE verdict was given. */
	enum adapt_why	why;
	unsigned int	fill;		/* FILL: the fullest of the high passes; LOST: the pass's */
	u64		lost;		/* LOST: the records lost in that pass */
};

void adapt_params__default(struct adapt_params *p);
/*
 * A thread starting at now, idle from now. A node's first thread may split
 * at once (settled: its rings' first losses are news); a helper not before
 * now + settle, as after any split (the rings it was handed may still
 * hold the LOST records of the burst that made it).
 */
void adapt__init(struct adapt_state *st, u64 now, bool settled);
/*
 * The verdict on pass `pass`: SPLIT only when can_split (the thread has two
 * rings or more and its node may run another thread), RETIRE only for a
 * helper. Passes must come in time order.
 */
enum adapt_verdict adapt__step(struct adapt_state *st, const struct adapt_params *p,
			       const struct adapt_pass *pass, bool can_split, bool helper);
/*
 * Which rings to hand over on a split: of the n rings whose heat is given
 * (permille fill, above 1000 for a ring that lost records), the fuller
 * half, n / 2 of them, their indexes into heat written to out in
 * decreasing heat (ties: the lower index first). Returns how many.
 */
int adapt__pick(const unsigned int *heat, int n, int *out);

#endif /* PRECORD_ADAPT_H */
