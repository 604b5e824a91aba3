// SPDX-License-Identifier: GPL-2.0
/*
 * test_adapt.c — the adaptive layout's rule (adapt.h) on synthetic traces
 * of passes: what a reader that keeps up sees (half a ring per wakeup, at
 * -F 1000 or at a high rate) never splits; late reads that repeat, or any
 * loss, split, no sooner than the settling time; a helper whose rings never
 * reach the wakeup mark for 2 s retires, one that drains all the time does
 * not; and the fuller half of the rings is what a split hands over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "precord/adapt.h"

#define MS	1000000ULL

struct trace {
	struct adapt_params	p;
	struct adapt_state	st;
	u64			now;
	bool			helper;
	bool			can_split;
	int			splits, retires;
	u64			first_split, first_retire;	/* ns, 0: none */
};

static void trace__init(struct trace *t, bool helper)
{
	memset(t, 0, sizeof(*t));
	adapt_params__default(&t->p);
	t->now = 1000 * MS;	/* any origin */
	t->helper = helper;
	t->can_split = true;
	adapt__init(&t->st, t->now, !helper);
}

/* One pass at now + dt: its verdict, counted. */
static enum adapt_verdict trace__pass(struct trace *t, u64 dt, unsigned int fill, u64 lost,
				      bool woke)
{
	struct adapt_pass pass = { .fill = fill, .lost = lost, .woke = woke };
	enum adapt_verdict v;

	t->now += dt;
	pass.now = t->now;
	v = adapt__step(&t->st, &t->p, &pass, t->can_split, t->helper);
	if (v == ADAPT_SPLIT && !t->splits++)
		t->first_split = t->now;
	if (v == ADAPT_RETIRE && !t->retires++)
		t->first_retire = t->now;
	return v;
}

/* A small deterministic spread, 0 .. span - 1. */
static unsigned int jitter(unsigned int *seed, unsigned int span)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % span;
}

/*
 * -F 1000 with DWARF stacks in 32 KiB rings: a wakeup every 2 ms at half a
 * ring, read at 50-62%, then an empty pass before the sleep; 10 s of it.
 */
static void test_keeping_up_never_splits(void **state)
{
	unsigned int seed = 1;
	struct trace t;
	int i;

	trace__init(&t, false);
	for (i = 0; i < 5000; i++) {
		trace__pass(&t, 2 * MS, 500 + jitter(&seed, 125), 0, true);
		trace__pass(&t, 20000, 0, 0, false);
	}
	assert_int_equal(t.splits, 0);
	assert_int_equal(t.retires, 0);
}

/* The same at a high rate (a wakeup every 150 us): still no split. */
static void test_fast_but_keeping_up_never_splits(void **state)
{
	unsigned int seed = 7;
	struct trace t;
	int i;

	trace__init(&t, false);
	for (i = 0; i < 20000; i++) {
		trace__pass(&t, 150000, 500 + jitter(&seed, 200), 0, true);
		trace__pass(&t, 5000, jitter(&seed, 100), 0, false);
	}
	assert_int_equal(t.splits, 0);
}

/* Late reads now and then (a page fault, a long write): two in a window at most. */
static void test_hiccups_do_not_split(void **state)
{
	struct trace t;
	int i;

	trace__init(&t, false);
	for (i = 0; i < 400; i++) {
		trace__pass(&t, 2 * MS, 550, 0, true);
		if (i % 60 == 0) {
			trace__pass(&t, 1 * MS, 950, 0, true);
			trace__pass(&t, 1 * MS, 900, 0, true);
		}
	}
	assert_int_equal(t.splits, 0);
}

/* Three late reads within 100 ms: a split, for fill, with the fullest of them. */
static void test_repeated_late_reads_split(void **state)
{
	struct trace t;

	trace__init(&t, false);
	trace__pass(&t, 60 * MS, 550, 0, true);
	assert_int_equal(trace__pass(&t, 10 * MS, 800, 0, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 40 * MS, 930, 0, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 40 * MS, 760, 0, true), ADAPT_SPLIT);
	assert_int_equal(t.st.why, ADAPT_WHY_FILL);
	assert_int_equal(t.st.fill, 930);
	assert_int_equal(t.st.lost, 0);
	/* What came before the split does not count after it. */
	assert_int_equal(trace__pass(&t, 60 * MS, 800, 0, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 1 * MS, 800, 0, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 1 * MS, 800, 0, true), ADAPT_SPLIT);
}

/* Late reads 60 ms apart: the last three span 120 ms, more than the window. */
static void test_spread_late_reads_do_not_split(void **state)
{
	struct trace t;
	int i;

	trace__init(&t, false);
	for (i = 0; i < 50; i++) {
		trace__pass(&t, 30 * MS, 500, 0, true);
		trace__pass(&t, 30 * MS, 800, 0, true);
	}
	assert_int_equal(t.splits, 0);
}

/*
 * Any loss splits; the LOST records of the same burst do not split again
 * within the settling time. A node's thread may split at its first pass, a
 * helper only once settled from its start.
 */
static void test_loss_splits_once_per_settle(void **state)
{
	struct trace t;

	trace__init(&t, false);
	assert_int_equal(trace__pass(&t, 1 * MS, 600, 1, true), ADAPT_SPLIT);
	assert_int_equal(t.st.why, ADAPT_WHY_LOST);
	assert_int_equal(t.st.lost, 1);
	assert_int_equal(t.st.fill, 600);
	assert_int_equal(trace__pass(&t, 5 * MS, 700, 40, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 40 * MS, 700, 2, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 5 * MS, 700, 2, true), ADAPT_SPLIT);
	assert_int_equal(t.splits, 2);

	trace__init(&t, true);
	assert_int_equal(trace__pass(&t, 10 * MS, 1000, 3, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 39 * MS, 1000, 3, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 1 * MS, 600, 1, true), ADAPT_SPLIT);
}

/* A thread that cannot split (one ring, or its node full) stays, losses or not. */
static void test_no_room_stays(void **state)
{
	struct trace t;
	int i;

	trace__init(&t, false);
	t.can_split = false;
	for (i = 0; i < 100; i++)
		trace__pass(&t, 10 * MS, 1000, 5, true);
	assert_int_equal(t.splits, 0);
	/* Room again: the next late pass splits. */
	t.can_split = true;
	assert_int_equal(trace__pass(&t, 1 * MS, 1000, 5, true), ADAPT_SPLIT);
}

/*
 * A helper woken only by the 250 ms timeout, its rings never at the
 * wakeup mark: it retires once 2 s have passed since its last busy pass,
 * not before; the node's thread on the same trace never does.
 */
static void test_idle_helper_retires(void **state)
{
	struct trace helper, lead;
	u64 start;
	int i;

	trace__init(&helper, true);
	trace__init(&lead, false);
	start = helper.now;
	for (i = 0; i < 40; i++) {
		trace__pass(&helper, 250 * MS, 120, 0, true);
		trace__pass(&lead, 250 * MS, 120, 0, true);
	}
	assert_true(helper.retires >= 1);
	assert_int_equal(helper.first_retire - start, 2000 * MS);
	assert_int_equal(helper.st.why, ADAPT_WHY_IDLE);
	assert_int_equal(lead.retires, 0);
}

/* One pass at the wakeup mark, or one loss, restarts the idle time. */
static void test_busy_pass_restarts_idle(void **state)
{
	struct trace t;
	u64 busy;
	int i;

	trace__init(&t, true);
	t.can_split = false;	/* its one ring: the loss below cannot split it */
	for (i = 0; i < 7; i++)
		trace__pass(&t, 250 * MS, 100, 0, true);	/* 1.75 s */
	trace__pass(&t, 100 * MS, 500, 0, true);		/* at the mark: busy */
	busy = t.now;
	for (i = 0; i < 7; i++)
		trace__pass(&t, 250 * MS, 100, 0, true);
	assert_int_equal(t.retires, 0);
	trace__pass(&t, 200 * MS, 0, 1, true);			/* a loss: busy */
	busy = t.now;
	for (i = 0; i < 7; i++)
		assert_int_equal(trace__pass(&t, 250 * MS, 100, 0, true), ADAPT_STAY);
	assert_int_equal(trace__pass(&t, 250 * MS, 100, 0, true), ADAPT_RETIRE);
	assert_int_equal(t.now - busy, 2000 * MS);
}

/*
 * A helper that keeps up with a steady flow reads at the wakeup mark and
 * stays; one that drains without ever sleeping reads a little per pass but
 * is not idle either.
 */
static void test_working_helper_stays(void **state)
{
	unsigned int seed = 3;
	struct trace t;
	int i;

	trace__init(&t, true);
	for (i = 0; i < 3000; i++) {
		trace__pass(&t, 2 * MS, 500 + jitter(&seed, 100), 0, true);
		trace__pass(&t, 10000, 0, 0, false);
	}
	assert_int_equal(t.retires, 0);

	trace__init(&t, true);
	for (i = 0; i < 100000; i++)
		trace__pass(&t, 50000, 20 + jitter(&seed, 30), 0, false);	/* 5 s, never asleep */
	assert_int_equal(t.retires, 0);
	/* It sleeps again, its rings still low: idle from its last busy pass, so at once. */
	assert_int_equal(trace__pass(&t, 250 * MS, 10, 0, true), ADAPT_RETIRE);
}

/*
 * A load that grows then stops, as a helper sees it: it splits while the
 * load grows (every 50 ms at most), then retires 2 s after the load ends.
 */
static void test_ramp_then_quiet(void **state)
{
	struct trace t;
	int i;

	trace__init(&t, true);
	for (i = 0; i < 100; i++)			/* 200 ms of losses */
		trace__pass(&t, 2 * MS, 1000, 2, true);
	assert_int_equal(t.splits, 4);			/* at 50, 100, 150, 200 ms */
	assert_int_equal(t.retires, 0);
	for (i = 0; i < 8; i++)
		trace__pass(&t, 250 * MS, 0, 0, true);
	assert_int_equal(t.retires, 1);
	assert_int_equal(t.first_retire - (t.first_split - 50 * MS), 200 * MS + 2000 * MS);
}

static void test_pick_fuller_half(void **state)
{
	const unsigned int heat4[] = { 10, 900, 1001, 300 };
	const unsigned int heat5[] = { 500, 500, 100, 500, 700 };
	const unsigned int one[] = { 1000 };
	int out[5];

	assert_int_equal(adapt__pick(heat4, 4, out), 2);
	assert_int_equal(out[0], 2);	/* the ring that lost records first */
	assert_int_equal(out[1], 1);
	assert_int_equal(adapt__pick(heat5, 5, out), 2);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 0);	/* ties: the lower index */
	assert_int_equal(adapt__pick(one, 1, out), 0);
	assert_int_equal(adapt__pick(one, 0, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeping_up_never_splits),
		cmocka_unit_test(test_fast_but_keeping_up_never_splits),
		cmocka_unit_test(test_hiccups_do_not_split),
		cmocka_unit_test(test_repeated_late_reads_split),
		cmocka_unit_test(test_spread_late_reads_do_not_split),
		cmocka_unit_test(test_loss_splits_once_per_settle),
		cmocka_unit_test(test_no_room_stays),
		cmocka_unit_test(test_idle_helper_retires),
		cmocka_unit_test(test_busy_pass_restarts_idle),
		cmocka_unit_test(test_working_helper_stays),
		cmocka_unit_test(test_ramp_then_quiet),
		cmocka_unit_test(test_pick_fuller_half),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
