// SPDX-License-Identifier: GPL-2.0
/*
 * test_options_sample.c — perf record's options for what samples carry and
 * which tasks are recorded: every spelling landing in its field, the
 * negations perf takes, the registers of -I and --user-regs, --filter tied
 * to the -e before it, perf's rules after the options (-t records the
 * thread alone, --per-thread and --no-timestamp mean one file), and every
 * bad input refused with one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "precord/options.h"

#define MAX_ARGS	16

struct parsed {
	struct record_opts	opts;
	char			*argv[MAX_ARGS + 2];
	int			argc;
	char			err[512];
	int			ret;
};

/* Parse "precord ARGS..." (a NULL-terminated list). */
static int parse_list(struct parsed *p, const char *const *args)
{
	int i;

	record_opts__exit(&p->opts);
	record_opts__init(&p->opts);
	p->argv[0] = "precord";
	for (i = 0; args[i]; i++) {
		assert_true(i < MAX_ARGS);
		p->argv[i + 1] = (char *)args[i];
	}
	p->argc = i + 1;
	p->argv[p->argc] = NULL;
	p->err[0] = '\0';
	p->ret = record_opts__parse(&p->opts, p->argc, p->argv, p->err, sizeof(p->err));
	return p->ret;
}

#define PARSE(p, ...)	parse_list(p, (const char *const[]){ __VA_ARGS__, NULL })

static int setup(void **state)
{
	struct parsed *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	record_opts__init(&p->opts);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct parsed *p = *state;

	record_opts__exit(&p->opts);
	free(p);
	return 0;
}

static void assert_ok(struct parsed *p)
{
	if (p->ret != 0)
		fail_msg("parse returned %d: %s", p->ret, p->err);
}

/* x86-64: perf's PERF_REGS_MASK, every general register but DS, ES, FS, GS. */
#define ALL_REGS	0xff0fffULL

static void test_defaults(void **state)
{
	struct record_opts o;

	record_opts__init(&o);
	assert_true(o.sample_time);	/* perf records times unless told not to */
	assert_false(o.sample_time_set);
	assert_false(o.period_set);
	assert_false(o.sample_address);
	assert_false(o.inherit_stat);
	assert_false(o.no_samples);
	assert_false(o.raw_samples);
	assert_false(o.per_thread);
	assert_false(o.no_inherit_set);
	assert_int_equal(o.sample_intr_regs, 0);
	assert_int_equal(o.sample_user_regs, 0);
	assert_int_equal(o.nr_filters, 0);
	assert_null(o.filters);
	assert_true(record_opts__sample_time(&o));
	assert_false(record_opts__per_thread(&o));
	record_opts__exit(&o);
}

/* -t records the thread alone unless -i/--inherit was given; -p inherits. */
static void test_tid_inherit(void **state)
{
	struct parsed *p = *state;

	PARSE(p, "-t", "123");
	assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_false(p->opts.no_inherit_set);

	PARSE(p, "-t", "123", "--inherit");
	assert_ok(p);
	assert_false(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);

	PARSE(p, "--no-no-inherit", "-t", "123");
	assert_ok(p);
	assert_false(p->opts.no_inherit);

	PARSE(p, "-t", "123", "-i");
	assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);

	PARSE(p, "-p", "123");
	assert_ok(p);
	assert_false(p->opts.no_inherit);

	PARSE(p, "-i");
	assert_ok(p);
	assert_true(p->opts.no_inherit);
	assert_true(p->opts.no_inherit_set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test_setup_teardown(test_tid_inherit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
