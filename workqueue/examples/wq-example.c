// SPDX-License-Identifier: GPL-2.0
/*
 * wq-example.c — the workqueue library in one page.
 *
 * A pool with one worker pinned on every CPU; work items queued on the
 * worker of a chosen CPU, flushed, cancelled; a parallel loop summing into
 * per-slot buffers (the pattern for parallel /proc synthesis); a loop that
 * fails at one index; and one call per CPU on that CPU (the pattern for
 * opening per-CPU events).  Prints what happened; exits 0 when all held.
 * Run with -v to print the pool dump as well.
 *
 * Build: cc -D_GNU_SOURCE -Iworkqueue wq-example.c build/libwq.a -lhwloc -lpthread
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wq.h"

struct hello {
	struct wq_work	work;		/* embedded: container_of gets us back */
	int		cpu_ran;
};

static void hello_fn(struct wq_work *work)
{
	struct hello *h = (struct hello *)((char *)work - offsetof(struct hello, work));

	h->cpu_ran = sched_getcpu();
}

/* One partial sum per slot, each on its own cache line. */
struct slot_sum {
	long long	sum;
	char		pad[56];
};

static int sum_fn(void *arg, long idx, int slot)
{
	struct slot_sum *sums = arg;

	sums[slot].sum += idx;		/* no lock: one thread per slot at a time */
	return 0;
}

static int fail_fn(void *arg, long idx, int slot)
{
	return idx == 777 || idx == 900 ? -EIO : 0;
}

static int where_fn(void *arg, long idx, int slot)
{
	int *ran_on = arg;

	ran_on[idx] = sched_getcpu();
	return 0;
}

static int check(int ok, const char *what)
{
	printf("%-60s %s\n", what, ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_CPU, .name = "example" };
	int nr, i, *cpus, *ran_on, failed = 0, slots;
	struct slot_sum *sums;
	struct hello *hello;
	long long total = 0;
	long err_idx = -1;
	char err[128], line[128];
	struct wq_pool *pool;
	struct wq *wq;

	pool = wq_pool__new(&attr, err, sizeof(err));
	if (!pool) {
		fprintf(stderr, "wq-example: %s\n", err);
		return 1;
	}
	wq = wq__new(pool, "example", 0);
	nr = wq_pool__nr_workers(pool);
	slots = wq_pool__nr_slots(pool);
	hello = calloc(nr, sizeof(*hello));
	cpus = calloc(nr, sizeof(int));
	ran_on = calloc(nr, sizeof(int));
	sums = calloc(slots, sizeof(*sums));
	printf("pool: %d workers, %d slots\n", nr, slots);

	/* queue_work_on: the item for CPU c runs on CPU c */
	for (i = 0; i < nr; i++) {
		cpus[i] = wq_pool__worker_cpu(pool, i);
		wq_work__init(&hello[i].work, hello_fn);
		wq__queue_work_on(wq, cpus[i], &hello[i].work);
	}
	wq__flush(wq);
	for (i = 0; i < nr; i++) {
		snprintf(line, sizeof(line), "queue_work_on(%d) ran on CPU %d", cpus[i],
			 hello[i].cpu_ran);
		failed += check(hello[i].cpu_ran == cpus[i], line);
	}

	/* a pending item queued again runs once; cancel takes it back */
	wq_work__init(&hello[0].work, hello_fn);
	failed += check(wq__queue_work(wq, &hello[0].work) >= 0 &&
			wq_work__cancel_sync(&hello[0].work) >= 0 &&
			!wq_work__is_pending(&hello[0].work), "cancel_sync leaves it idle");

	/* parallel_for with per-slot buffers */
	wq__parallel_for(wq, 0, 1000000, 4096, sum_fn, sums, NULL);
	for (i = 0; i < slots; i++)
		total += sums[i].sum;
	snprintf(line, sizeof(line), "parallel_for: sum of 0..999999 = %lld", total);
	failed += check(total == 499999500000LL, line);

	/* the first error, and which index raised it */
	i = wq__parallel_for(wq, 0, 2000, 16, fail_fn, NULL, &err_idx);
	snprintf(line, sizeof(line), "parallel_for: error %d (%s) at index %ld", i,
		 strerror(-i), err_idx);
	failed += check(i == -EIO && err_idx == 777, line);

	/* one call per CPU, on that CPU */
	wq__parallel_for_cpus(wq, cpus, nr, where_fn, ran_on, NULL);
	for (i = 0; i < nr && ran_on[i] == cpus[i]; i++)
		;
	snprintf(line, sizeof(line), "parallel_for_cpus: %d calls on their CPUs", i);
	failed += check(i == nr, line);

	if (argc > 1 && !strcmp(argv[1], "-v"))
		wq_pool__dump(pool, stdout);
	wq__delete(wq);
	wq_pool__delete(pool);
	free(hello);
	free(cpus);
	free(ran_on);
	free(sums);
	printf("example: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}
