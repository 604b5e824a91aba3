// SPDX-License-Identifier: GPL-2.0
/*
 * wq-bench.c — dispatch latency and throughput of the workqueue library,
 * against the floor (a bare futex wake) and two baselines: a thread created
 * and joined per task, and a plain mutex + condition variable queue.
 *
 * Every repetition runs every variant, in an order rotated by one each
 * repetition, so drift on a shared machine hits all of them alike.  A
 * latency variant's value for one repetition is the median of its samples;
 * the output gives, per variant, the median and the min and max of those
 * values over the repetitions, and per-repetition ratios against the futex
 * floor.  Output is CSV on stdout (lines starting with '#' are comments).
 *
 * Latency is measured from the producer (pinned to one CPU) to the first
 * instruction of the task on another CPU, with the consumer asleep (the
 * producer waits 200 us between samples, past any spinning) or, for the
 * "-spinning" variants, with no gap.  Throughput counts empty tasks per
 * second from one producer (and from two, for the queues).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "wq.h"

#define GAP_US		200
#define MAX_VARIANTS	32

struct opts {
	const char *only;	/* run the variants whose name holds this */
	int	reps;
	int	samples;
	long	works;
	long	pfor;
	long	spin_ns;
};

static int cpu_a, cpu_b;	/* producer's CPU, consumer's CPU */
static hwloc_topology_t topo;	/* loaded once, shared by the pools */
static struct wq *wq_one;	/* on a pool of one worker, on cpu_b */

/* ---------------------------------------------------------------- helpers */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void futex_wait(_Atomic int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Block until *addr != val. */
static void futex_wait_change(_Atomic int *addr, int val)
{
	while (atomic_load(addr) == val)
		futex_wait(addr, val);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void gap(void)
{
	struct timespec ts = { 0, GAP_US * 1000 };

	nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void empty_task(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static void (*volatile empty_fn)(void) = empty_task;

/* ------------------------------------------------------- futex floor */

struct futex_pair {
	_Atomic int	go;		/* producer -> consumer */
	_Atomic int	back;		/* consumer -> producer */
	_Atomic int	asleep;
	_Atomic int	stop;
	_Atomic int64_t	t_woken;
	bool		round_trip;
};

static void *futex_consumer(void *arg)
{
	struct futex_pair *p = arg;
	int seen = 0;

	pin_self(cpu_b);
	for (;;) {
		atomic_store(&p->asleep, 1);
		futex_wait_change(&p->go, seen);
		atomic_store(&p->t_woken, now_ns());
		seen = atomic_load(&p->go);
		if (atomic_load(&p->stop))
			return NULL;
		atomic_fetch_add(&p->back, 1);
		futex_wake(&p->back);
	}
}

/* Producer -> consumer wake (one way), or there and back (round trip). */
static double bench_futex(const struct opts *o, bool round_trip)
{
	struct futex_pair p = { .round_trip = round_trip };
	double *s = calloc(o->samples, sizeof(double)), m;
	pthread_t th;
	int i;

	pthread_create(&th, NULL, futex_consumer, &p);
	for (i = 0; i < o->samples; i++) {
		int back = atomic_load(&p.back);
		int64_t t0;

		while (!atomic_load(&p.asleep))
			sched_yield();
		gap();
		atomic_store(&p.asleep, 0);
		t0 = now_ns();
		atomic_fetch_add(&p.go, 1);
		futex_wake(&p.go);
		/* as bench_wq_latency(): one way spins, a round trip sleeps */
		if (round_trip)
			futex_wait_change(&p.back, back);
		else
			while (atomic_load(&p.back) == back)
				;
		s[i] = ((round_trip ? now_ns() : atomic_load(&p.t_woken)) - t0) / 1e3;
	}
	atomic_store(&p.stop, 1);
	atomic_fetch_add(&p.go, 1);
	futex_wake(&p.go);
	pthread_join(th, NULL);
	m = median(s, o->samples);
	free(s);
	return m;
}

/* ---------------------------------------------------------- workqueue */

struct wq_probe {
	struct wq_work	work;
	_Atomic int64_t	t_start;
	_Atomic int	done;
	bool		wake_back;
};

static void wq_probe_fn(struct wq_work *work)
{
	struct wq_probe *p = (struct wq_probe *)work;

	atomic_store(&p->t_start, now_ns());
	atomic_fetch_add(&p->done, 1);
	if (p->wake_back)
		futex_wake(&p->done);
}

/* queue_work_on(cpu_b) -> start of the work; or there and back via a futex. */
static double bench_wq_latency(struct wq *wq, const struct opts *o, bool round_trip, bool spinning)
{
	struct wq_probe p = { .wake_back = round_trip };
	double *s = calloc(o->samples, sizeof(double)), m;
	int i;

	wq_work__init(&p.work, wq_probe_fn);
	for (i = 0; i < o->samples; i++) {
		int done = atomic_load(&p.done);
		int64_t t0;

		if (!spinning)
			gap();
		t0 = now_ns();
		wq__queue_work_on(wq, cpu_b, &p.work);
		if (round_trip)
			futex_wait_change(&p.done, done);
		else
			while (atomic_load(&p.done) == done)
				;
		s[i] = ((round_trip ? now_ns() : atomic_load(&p.t_start)) - t0) / 1e3;
		wq_work__flush(&p.work);
	}
	m = median(s, o->samples);
	free(s);
	return m;
}

static void wq_empty_fn(struct wq_work *work)
{
	empty_fn();
}

struct wq_producer {
	struct wq	*wq;
	struct wq_work	*works;
	long		n;
};

static void *wq_producer_thread(void *arg)
{
	struct wq_producer *p = arg;
	long i;

	for (i = 0; i < p->n; i++)
		wq__queue_work(p->wq, &p->works[i]);
	return NULL;
}

/* Empty works per second, queued by nr_prod producers, until flushed. */
static double bench_wq_throughput(struct wq *wq, const struct opts *o, int nr_prod)
{
	struct wq_work *works = calloc(o->works, sizeof(*works));
	struct wq_producer p[8];
	pthread_t th[8];
	int64_t t0, t1;
	long i, per = o->works / nr_prod;
	int k;

	for (i = 0; i < o->works; i++)
		wq_work__init(&works[i], wq_empty_fn);
	t0 = now_ns();
	for (k = 0; k < nr_prod; k++) {
		p[k] = (struct wq_producer){ .wq = wq, .works = works + k * per, .n = per };
		if (k)
			pthread_create(&th[k], NULL, wq_producer_thread, &p[k]);
	}
	wq_producer_thread(&p[0]);
	for (k = 1; k < nr_prod; k++)
		pthread_join(th[k], NULL);
	wq__flush(wq);
	t1 = now_ns();
	free(works);
	return per * nr_prod / ((t1 - t0) / 1e9);
}

static int pfor_empty(void *arg, long idx, int slot)
{
	empty_fn();
	return 0;
}

/* Indexes per second through wq__parallel_for() with an empty body. */
static double bench_pfor(struct wq *wq, const struct opts *o, long chunk)
{
	int64_t t0 = now_ns();

	wq__parallel_for(wq, 0, o->pfor, chunk, pfor_empty, NULL, NULL);
	return o->pfor / ((now_ns() - t0) / 1e9);
}

/* Pool creation and deletion, all CPUs, with a loaded topology or without. */
static double bench_pool_start(const struct opts *o, bool load)
{
	struct wq_pool_attr attr = { .name = "bench", .spin_ns = o->spin_ns,
				     .topology = load ? NULL : topo };
	int64_t t0 = now_ns();
	struct wq_pool *p = wq_pool__new(&attr, NULL, 0);

	wq_pool__delete(p);
	return (now_ns() - t0) / 1e3;
}

/* --------------------------------------------------- mutex + condvar */

/* As big as a struct wq_work, so that both queues move the same memory. */
struct cv_task {
	struct cv_task	*next;
	int64_t		t0;
	char		payload[sizeof(struct wq_work) - 16];
};

struct cv_queue {
	pthread_mutex_t	lock;
	pthread_cond_t	more;		/* consumers wait for tasks */
	pthread_cond_t	idle;		/* the producer waits for done == queued */
	struct cv_task	*head, **tail;
	long		queued, done;
	int		stop;
	_Atomic int64_t	t_start;
	int		nr_threads;
	pthread_t	th[2];
};

static void *cv_consumer(void *arg)
{
	struct cv_queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct cv_task *t;

		while (!q->head && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->head)
			break;
		t = q->head;
		q->head = t->next;
		if (!q->head)
			q->tail = &q->head;
		pthread_mutex_unlock(&q->lock);
		atomic_store(&q->t_start, now_ns());
		empty_fn();
		pthread_mutex_lock(&q->lock);
		if (++q->done == q->queued)
			pthread_cond_signal(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void cv_start(struct cv_queue *q, int nr, bool pin)
{
	int i;

	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->idle, NULL);
	q->tail = &q->head;
	q->nr_threads = nr;
	for (i = 0; i < nr; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		pthread_attr_init(&attr);
		if (pin) {
			CPU_ZERO(&set);
			CPU_SET(cpu_b, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		pthread_create(&q->th[i], &attr, cv_consumer, q);
		pthread_attr_destroy(&attr);
	}
}

static void cv_stop(struct cv_queue *q)
{
	int i;

	pthread_mutex_lock(&q->lock);
	q->stop = 1;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->nr_threads; i++)
		pthread_join(q->th[i], NULL);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->idle);
	pthread_mutex_destroy(&q->lock);
}

static void cv_push(struct cv_queue *q, struct cv_task *t)
{
	t->next = NULL;
	pthread_mutex_lock(&q->lock);
	*q->tail = t;
	q->tail = &t->next;
	q->queued++;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
}

static void cv_wait_idle(struct cv_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->done != q->queued)
		pthread_cond_wait(&q->idle, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

static double bench_cv_latency(const struct opts *o)
{
	double *s = calloc(o->samples, sizeof(double)), m;
	struct cv_queue q;
	struct cv_task t;
	int i;

	cv_start(&q, 1, true);
	for (i = 0; i < o->samples; i++) {
		int64_t t0;

		gap();
		t0 = now_ns();
		cv_push(&q, &t);
		cv_wait_idle(&q);
		s[i] = (atomic_load(&q.t_start) - t0) / 1e3;
	}
	cv_stop(&q);
	m = median(s, o->samples);
	free(s);
	return m;
}

struct cv_producer {
	struct cv_queue	*q;
	struct cv_task	*tasks;
	long		n;
};

static void *cv_producer_thread(void *arg)
{
	struct cv_producer *p = arg;
	long i;

	for (i = 0; i < p->n; i++)
		cv_push(p->q, &p->tasks[i]);
	return NULL;
}

static double bench_cv_throughput(const struct opts *o, int nr_prod, int nr_cons)
{
	struct cv_task *tasks = calloc(o->works, sizeof(*tasks));
	struct cv_producer p[8];
	struct cv_queue q;
	pthread_t th[8];
	long per = o->works / nr_prod;
	int64_t t0, t1;
	int k;

	cv_start(&q, nr_cons, nr_cons == 1);
	t0 = now_ns();
	for (k = 0; k < nr_prod; k++) {
		p[k] = (struct cv_producer){ .q = &q, .tasks = tasks + k * per, .n = per };
		if (k)
			pthread_create(&th[k], NULL, cv_producer_thread, &p[k]);
	}
	cv_producer_thread(&p[0]);
	for (k = 1; k < nr_prod; k++)
		pthread_join(th[k], NULL);
	cv_wait_idle(&q);
	t1 = now_ns();
	cv_stop(&q);
	free(tasks);
	return per * nr_prod / ((t1 - t0) / 1e9);
}

/* ------------------------------------------------- thread per task */

static void *thread_task(void *arg)
{
	atomic_store((_Atomic int64_t *)arg, now_ns());
	empty_fn();
	return NULL;
}

static pthread_attr_t attr_on_b;

/* pthread_create -> start of the thread, on cpu_b. */
static double bench_thread_latency(const struct opts *o)
{
	double *s = calloc(o->samples, sizeof(double)), m;
	_Atomic int64_t t_start;
	pthread_t th;
	int i;

	for (i = 0; i < o->samples; i++) {
		int64_t t0;

		gap();
		t0 = now_ns();
		pthread_create(&th, &attr_on_b, thread_task, &t_start);
		pthread_join(th, NULL);
		s[i] = (atomic_load(&t_start) - t0) / 1e3;
	}
	m = median(s, o->samples);
	free(s);
	return m;
}

/* Tasks per second, each one a created and joined thread. */
static double bench_thread_throughput(const struct opts *o)
{
	long i, n = o->works / 100 > 200 ? o->works / 100 : 200;
	_Atomic int64_t t_start;
	int64_t t0 = now_ns();
	pthread_t th;

	for (i = 0; i < n; i++) {
		pthread_create(&th, NULL, thread_task, &t_start);
		pthread_join(th, NULL);
	}
	return n / ((now_ns() - t0) / 1e9);
}

/* ------------------------------------------------------------ driver */

enum variant_id {
	V_FUTEX_ONEWAY, V_FUTEX_RT, V_WQ_ONEWAY, V_WQ_RT, V_WQ_SPIN, V_CV_ONEWAY,
	V_THREAD_ONEWAY, V_WQ_TP1, V_WQ_TP2, V_WQ_TP1X1, V_PFOR_AUTO, V_PFOR_1024,
	V_PFOR_64, V_PFOR_1, V_CV_TP1, V_CV_TP2, V_CV_TP1X1, V_THREAD_TP, V_POOL_START,
	V_POOL_START_LOAD, NR_VARIANTS
};

static const struct variant {
	const char	*bench;
	const char	*name;
	const char	*unit;
	bool		pin;		/* producer pinned to cpu_a */
} variants[NR_VARIANTS] = {
	[V_FUTEX_ONEWAY]  = { "latency", "futex-wake", "us", true },
	[V_FUTEX_RT]      = { "latency", "futex-roundtrip", "us", true },
	[V_WQ_ONEWAY]     = { "latency", "wq-queue-to-start", "us", true },
	[V_WQ_RT]         = { "latency", "wq-roundtrip", "us", true },
	[V_WQ_SPIN]       = { "latency", "wq-queue-to-start-spinning", "us", true },
	[V_CV_ONEWAY]     = { "latency", "condvar-queue-to-start", "us", true },
	[V_THREAD_ONEWAY] = { "latency", "pthread-create-to-start", "us", true },
	[V_WQ_TP1]        = { "throughput", "wq-queue-work-1-producer", "works/s" },
	[V_WQ_TP2]        = { "throughput", "wq-queue-work-2-producers", "works/s" },
	[V_WQ_TP1X1]      = { "throughput", "wq-queue-work-1-producer-1-worker", "works/s", true },
	[V_PFOR_AUTO]     = { "throughput", "wq-parallel-for-chunk-auto", "works/s" },
	[V_PFOR_1024]     = { "throughput", "wq-parallel-for-chunk-1024", "works/s" },
	[V_PFOR_64]       = { "throughput", "wq-parallel-for-chunk-64", "works/s" },
	[V_PFOR_1]        = { "throughput", "wq-parallel-for-chunk-1", "works/s" },
	[V_CV_TP1]        = { "throughput", "condvar-queue-1-producer", "works/s" },
	[V_CV_TP2]        = { "throughput", "condvar-queue-2-producers", "works/s" },
	[V_CV_TP1X1]      = { "throughput", "condvar-queue-1-producer-1-consumer", "works/s", true },
	[V_THREAD_TP]     = { "throughput", "pthread-create-join-per-task", "works/s" },
	[V_POOL_START]    = { "startup", "wq-pool-new-delete", "us" },
	[V_POOL_START_LOAD] = { "startup", "wq-pool-new-delete-loading-topology", "us" },
};

static double run_variant(int v, struct wq *wq, const struct opts *o)
{
	switch (v) {
	case V_FUTEX_ONEWAY:	return bench_futex(o, false);
	case V_FUTEX_RT:	return bench_futex(o, true);
	case V_WQ_ONEWAY:	return bench_wq_latency(wq, o, false, false);
	case V_WQ_RT:		return bench_wq_latency(wq, o, true, false);
	case V_WQ_SPIN:		return bench_wq_latency(wq, o, false, true);
	case V_CV_ONEWAY:	return bench_cv_latency(o);
	case V_THREAD_ONEWAY:	return bench_thread_latency(o);
	case V_WQ_TP1:		return bench_wq_throughput(wq, o, 1);
	case V_WQ_TP2:		return bench_wq_throughput(wq, o, 2);
	case V_WQ_TP1X1:	return bench_wq_throughput(wq_one, o, 1);
	case V_PFOR_AUTO:	return bench_pfor(wq, o, 0);
	case V_PFOR_1024:	return bench_pfor(wq, o, 1024);
	case V_PFOR_64:		return bench_pfor(wq, o, 64);
	case V_PFOR_1:		return bench_pfor(wq, o, 1);
	case V_CV_TP1:		return bench_cv_throughput(o, 1, 2);
	case V_CV_TP2:		return bench_cv_throughput(o, 2, 2);
	case V_CV_TP1X1:	return bench_cv_throughput(o, 1, 1);
	case V_THREAD_TP:	return bench_thread_throughput(o);
	case V_POOL_START:	return bench_pool_start(o, false);
	case V_POOL_START_LOAD:	return bench_pool_start(o, true);
	}
	return 0;
}

static void print_stat(const char *bench, const char *name, const char *unit,
		       double *v, int n)
{
	double med = median(v, n);

	printf("%s,%s,%s,%.4g,%.4g,%.4g,%d\n", bench, name, unit, med, v[0], v[n - 1], n);
}

/* Is variant v asked for: --only is a comma-separated list of substrings. */
static bool selected(const struct opts *o, int v)
{
	const char *p = o->only;
	size_t len;

	if (!p)
		return true;
	for (; *p; p += len + (p[len] == ',')) {
		const char *name = variants[v].name;

		len = strcspn(p, ",");
		if (len > 1 && p[len - 1] == '$') {	/* the whole name */
			if (strlen(name) == len - 1 && !strncmp(name, p, len - 1))
				return true;
			continue;
		}
		for (; *name; name++) {
			if (len && !strncmp(name, p, len))
				return true;
		}
	}
	return false;
}

/* Per-repetition ratio a/b, then its median, min and max. */
static void print_ratio(double res[][MAX_VARIANTS], const struct opts *o, int a, int b)
{
	int i, reps = o->reps;
	double *r;
	char name[96];

	if (!selected(o, a) || !selected(o, b))
		return;
	r = calloc(reps, sizeof(double));
	for (i = 0; i < reps; i++)
		r[i] = res[i][a] / res[i][b];
	snprintf(name, sizeof(name), "%s/%s", variants[a].name, variants[b].name);
	print_stat("ratio", name, "x", r, reps);
	free(r);
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: wq-bench [options]\n"
		"Measure the workqueue library's dispatch latency and throughput against a\n"
		"bare futex wake, a mutex+condvar queue and a thread per task.\n\n"
		"  -r, --reps N      repetitions, variants rotated each time (default 7)\n"
		"  -n, --samples N   latency samples per variant and repetition (default 200)\n"
		"  -w, --works N     works per throughput run (default 1000000)\n"
		"  -p, --pfor N      indexes per parallel_for run (default 20000000)\n"
		"  -s, --spin-ns NS  worker spin before sleeping (default %d, -1: none)\n"
		"  -q, --quick       -r 3 -n 50 -w 50000 -p 2000000\n"
		"  -o, --only LIST   run only the variants whose name contains one of the\n"
		"                    comma-separated strings of LIST (NAME$: that one)\n"
		"  -h, --help        this text\n\n"
		"Output: CSV on stdout, 'bench,variant,unit,median,min,max,reps', where median,\n"
		"min and max are over repetitions; a latency repetition is the median of its\n"
		"samples.  'ratio' lines divide two variants repetition by repetition.\n",
		WQ_SPIN_NS_DEFAULT);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "samples", required_argument, NULL, 'n' },
		{ "works", required_argument, NULL, 'w' },
		{ "pfor", required_argument, NULL, 'p' },
		{ "spin-ns", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .reps = 7, .samples = 200, .works = 1000000, .pfor = 20000000 };
	while ((c = getopt_long(argc, argv, "r:n:w:p:s:qo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o->reps = atoi(optarg); break;
		case 'n': o->samples = atoi(optarg); break;
		case 'w': o->works = atol(optarg); break;
		case 'p': o->pfor = atol(optarg); break;
		case 's': o->spin_ns = atol(optarg); break;
		case 'q': *o = (struct opts){ .reps = 3, .samples = 50, .works = 50000,
					      .pfor = 2000000, .spin_ns = o->spin_ns,
					      .only = o->only }; break;
		case 'o': o->only = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (o->reps < 1 || o->samples < 1 || o->works < 2 || o->pfor < 1 || o->reps > 1000) {
		fprintf(stderr, "wq-bench: invalid option value\n");
		return -EINVAL;
	}
	return 0;
}

static void pick_cpus(void)
{
	cpu_set_t set;
	int i, n = 0;

	sched_getaffinity(0, sizeof(set), &set);
	cpu_a = cpu_b = -1;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (n++ == 0)
			cpu_a = i;
		else if (cpu_b < 0)
			cpu_b = i;
	}
	if (cpu_b < 0)
		cpu_b = cpu_a;
}

int main(int argc, char **argv)
{
	static double res[1000][MAX_VARIANTS];
	struct wq_pool_attr attr = { .name = "wqb" };
	double col[1000];
	struct wq_pool *pool, *pool_one;
	struct wq *wq;
	struct opts o;
	cpu_set_t set, all;
	char err[128];
	int r, i, v;

	if (parse_opts(argc, argv, &o))
		return 1;
	sched_getaffinity(0, sizeof(all), &all);
	pick_cpus();
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		fprintf(stderr, "wq-bench: cannot load the hwloc topology\n");
		return 1;
	}
	attr.spin_ns = o.spin_ns;
	attr.topology = topo;
	pool = wq_pool__new(&attr, err, sizeof(err));
	attr.cpus = &cpu_b;
	attr.nr_cpus = 1;
	attr.name = "wqb1";
	pool_one = pool ? wq_pool__new(&attr, err, sizeof(err)) : NULL;
	if (!pool_one) {
		fprintf(stderr, "wq-bench: %s\n", err);
		return 1;
	}
	wq = wq__new(pool, "bench", 0);
	wq_one = wq__new(pool_one, "bench1", 0);
	CPU_ZERO(&set);
	CPU_SET(cpu_b, &set);
	pthread_attr_init(&attr_on_b);
	pthread_attr_setaffinity_np(&attr_on_b, sizeof(set), &set);

	printf("# wq-bench: %d workers, producer on CPU %d, consumer on CPU %d, spin %ld ns, "
	       "%d reps, %d samples, %ld works, %ld pfor indexes\n",
	       wq_pool__nr_workers(pool), cpu_a, cpu_b,
	       o.spin_ns ? o.spin_ns : WQ_SPIN_NS_DEFAULT, o.reps, o.samples, o.works, o.pfor);
	printf("bench,variant,unit,median,min,max,reps\n");
	fflush(stdout);
	for (r = 0; r < o.reps; r++) {
		for (i = 0; i < NR_VARIANTS; i++) {
			v = (i + r) % NR_VARIANTS;
			if (!selected(&o, v))
				continue;
			/* latency producers are pinned; throughput producers float */
			if (variants[v].pin)
				pin_self(cpu_a);
			else
				sched_setaffinity(0, sizeof(all), &all);
			res[r][v] = run_variant(v, wq, &o);
		}
	}
	for (v = 0; v < NR_VARIANTS; v++) {
		if (!selected(&o, v))
			continue;
		for (r = 0; r < o.reps; r++)
			col[r] = res[r][v];
		print_stat(variants[v].bench, variants[v].name, variants[v].unit, col, o.reps);
	}
	print_ratio(res, &o, V_WQ_ONEWAY, V_FUTEX_ONEWAY);
	print_ratio(res, &o, V_WQ_RT, V_FUTEX_RT);
	print_ratio(res, &o, V_CV_ONEWAY, V_FUTEX_ONEWAY);
	print_ratio(res, &o, V_WQ_TP1, V_CV_TP1);
	print_ratio(res, &o, V_WQ_TP2, V_CV_TP2);
	print_ratio(res, &o, V_WQ_TP1X1, V_CV_TP1X1);
	print_ratio(res, &o, V_PFOR_1024, V_THREAD_TP);
	pthread_attr_destroy(&attr_on_b);
	wq__delete(wq);
	wq__delete(wq_one);
	wq_pool__delete(pool);
	wq_pool__delete(pool_one);
	hwloc_topology_destroy(topo);
	return 0;
}
