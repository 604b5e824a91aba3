// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-bench.c — `precord bench`: the subcommand dispatcher and the evlist
 * open/close benchmark (`perf bench internals evlist-open-close`).
 *
 * bench__evlist_open_close() builds an evlist as perf's benchmark does
 * (parse the events, clone them -n times, the maps of the target, the
 * attrs perf record's defaults give), then times, -i times, the whole
 * cycle open + mmap + enable + disable + munmap + close, and prints perf's
 * lines: the numbers of CPUs, threads, events and fds, and the average
 * wall time in microseconds with the standard deviation of the mean (what
 * perf's stddev_stats() returns, printed after "+-").  On top of perf's
 * options: -j N runs the evlist operations on a pool of N workers pinned
 * one per CPU (1: serially in the calling thread, as perf does; default:
 * every online CPU), -d prints the time of each phase, -m sets the ring
 * size, --parallel-min-fds moves the inline cutoff (to measure it).  The
 * pool is started once, before the iterations: precord keeps one pool for
 * the whole run, so starting threads is not part of an evlist operation.
 *
 * Single-threaded apart from the pool's workers; prints to stdout, errors
 * to stderr in precord's usual form.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"
#include "precord/builtin.h"
#include "precord/util.h"
#include "bench.h"
#include "precord/cpumap.h"
#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "precord/threadmap.h"

/* ---- options --------------------------------------------------------------- */

enum bench_phase {
	PHASE_OPEN, PHASE_MMAP, PHASE_ENABLE, PHASE_DISABLE, PHASE_MUNMAP, PHASE_CLOSE,
	NR_PHASES
};

static const char *const phase_names[NR_PHASES] = {
	"open", "mmap", "enable", "disable", "munmap", "close",
};

struct eoc_opts {
	const char	*event;
	int		nr_events;
	int		iterations;
	bool		system_wide;
	const char	*cpu_list;
	const char	*pid_list;
	const char	*tid_list;
	bool		per_thread;
	int		workers;	/* 0: every online CPU */
	bool		details;
	unsigned int	mmap_pages;	/* 0: perf's default */
	int		parallel_min_fds;
	bool		parallel_mmap;
};

enum { OPT_PER_THREAD = 256, OPT_MIN_FDS, OPT_PARALLEL_MMAP };

static const struct option eoc_long_opts[] = {
	{ "event",		required_argument, NULL, 'e' },
	{ "nr-events",		required_argument, NULL, 'n' },
	{ "iterations",		required_argument, NULL, 'i' },
	{ "all-cpus",		no_argument,	   NULL, 'a' },
	{ "cpu",		required_argument, NULL, 'C' },
	{ "pid",		required_argument, NULL, 'p' },
	{ "tid",		required_argument, NULL, 't' },
	{ "uid",		required_argument, NULL, 'u' },
	{ "per-thread",		no_argument,	   NULL, OPT_PER_THREAD },
	{ "threads",		required_argument, NULL, 'j' },
	{ "details",		no_argument,	   NULL, 'd' },
	{ "mmap-pages",		required_argument, NULL, 'm' },
	{ "parallel-min-fds",	required_argument, NULL, OPT_MIN_FDS },
	{ "parallel-mmap",	no_argument,	   NULL, OPT_PARALLEL_MMAP },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void eoc_usage(FILE *fp)
{
	fprintf(fp,
		"\n Usage: precord bench evlist-open-close <options>\n\n"
		"    -a, --all-cpus        system-wide collection from all CPUs\n"
		"    -C, --cpu <cpu>       list of cpus where to open events\n"
		"    -e, --event <event>   event selector (default: dummy)\n"
		"    -i, --iterations <n>  Number of iterations used to compute average (default=100)\n"
		"    -n, --nr-events <n>   number of dummy events to create (default 1). If used with -e, "
		"it clones those events n times (1 = no change)\n"
		"    -p, --pid <pid>       record events on existing process id\n"
		"    -t, --tid <tid>       record events on existing thread id\n"
		"        --per-thread      use per-thread mmaps\n"
		"    -j, --threads <n>     workers for the evlist operations, one per CPU "
		"(1: serial; default: every online CPU)\n"
		"    -d, --details         also print the time of each phase\n"
		"    -m, --mmap-pages <n>  data pages per ring, a power of two (default: as perf)\n"
		"        --parallel-min-fds <n>  run inline below this many descriptors (default %d)\n"
		"        --parallel-mmap   map and unmap the rings on the workers too\n\n",
		EVLIST_PARALLEL_MIN_FDS);
}

static int parse_count(const char *opt, const char *arg, int min, int *val)
{
	const char *end;
	int v;

	if (parse__int(arg, 10, &v, &end) || *end || v < min || v > 1 << 30) {
		fprintf(stderr, "precord: bad value '%s' for %s: expected a number of at least %d\n",
			arg, opt, min);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

static int eoc_parse_one(struct eoc_opts *o, int c, const char *arg)
{
	int v = 0, err = 0;

	switch (c) {
	case 'e': o->event = arg; break;
	case 'n': err = parse_count("-n", arg, 1, &o->nr_events); break;
	case 'i': err = parse_count("-i", arg, 1, &o->iterations); break;
	case 'a': o->system_wide = true; break;
	case 'C': o->cpu_list = arg; break;
	case 'p': o->pid_list = arg; break;
	case 't': o->tid_list = arg; break;
	case OPT_PER_THREAD: o->per_thread = true; break;
	case 'j': err = parse_count("-j", arg, 1, &o->workers); break;
	case 'd': o->details = true; break;
	case 'm':
		err = parse_count("-m", arg, 1, &v);
		if (!err && (v & (v - 1))) {
			fprintf(stderr, "precord: -m %s is not a power of two\n", arg);
			err = -EINVAL;
		}
		o->mmap_pages = (unsigned int)v;
		break;
	case OPT_MIN_FDS: err = parse_count("--parallel-min-fds", arg, 1, &o->parallel_min_fds); break;
	case OPT_PARALLEL_MMAP: o->parallel_mmap = true; break;
	case 'u':
		fprintf(stderr, "precord: -u is not supported; use -p with the user's processes\n");
		return -EINVAL;
	case 'h':
		eoc_usage(stdout);
		return 1;
	default:
		eoc_usage(stderr);
		return -EINVAL;
	}
	return err;
}

static int eoc_parse(struct eoc_opts *o, int argc, char **argv)
{
	int c, err;

	*o = (struct eoc_opts){ .event = "dummy", .nr_events = 1, .iterations = 100 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "e:n:i:aC:p:t:u:j:dm:h", eoc_long_opts, NULL)) != -1) {
		err = eoc_parse_one(o, c, optarg);
		if (err)
			return err;
	}
	if (optind < argc) {
		eoc_usage(stderr);
		return -EINVAL;
	}
	if ((o->pid_list || o->tid_list) && o->system_wide) {
		fprintf(stderr, "precord: warning: PID/TID switch overriding SYSTEM\n");
		o->system_wide = false;
	}
	return 0;
}

/* ---- the evlist ------------------------------------------------------------ */

/* "E,E,…" n times, as perf's bench__repeat_event_string(). */
static char *repeat_events(const char *event, int n)
{
	size_t len = strlen(event), size = (len + 1) * (size_t)n;
	char *s = malloc(size), *p = s;
	int i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		memcpy(p, event, len);
		p += len;
		*p++ = i == n - 1 ? '\0' : ',';
	}
	return s;
}

static int eoc_maps(const struct eoc_opts *o, struct cpu_map **cpus, struct thread_map **threads)
{
	pid_t bad = 0;
	int err, bad_cpu = -1;

	*cpus = NULL;
	*threads = NULL;
	if (o->pid_list || o->tid_list) {
		err = o->pid_list ? thread_map__new_pids(o->pid_list, threads, &bad)
				  : thread_map__new_tids(o->tid_list, threads, &bad);
		if (err) {
			fprintf(stderr, "precord: bad %s list '%s': %s\n", o->pid_list ? "-p" : "-t",
				o->pid_list ? o->pid_list : o->tid_list, strerror(-err));
			return err;
		}
	} else {
		*threads = thread_map__new_dummy();
	}
	if (o->per_thread)
		*cpus = cpu_map__new_any();
	else if (o->cpu_list) {
		err = cpu_map__parse(o->cpu_list, cpus, &bad_cpu);
		if (err) {
			fprintf(stderr, "precord: bad CPU list '%s' for -C: %s\n", o->cpu_list,
				strerror(-err));
			return err;
		}
	} else {
		*cpus = cpu_map__new_online();
	}
	return *cpus && *threads ? 0 : -ENOMEM;
}

/*
 * The attrs perf's benchmark opens (evlist__config() with record's
 * defaults): disabled, 4000 Hz (tracepoints: every hit), read_format
 * ID|LOST, sample_id_all, side-band tracking on the first event.
 */
static void eoc_config(struct evlist *evlist, const struct eoc_opts *o)
{
	bool per_cpu = !cpu_map__is_any(evlist->cpus);
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(evlist, evsel, i) {
		struct perf_event_attr *attr = &evsel->attr;

		attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
		if (!o->per_thread)
			attr->sample_type |= PERF_SAMPLE_TIME;
		if (evlist->nr_entries > 1)
			attr->sample_type |= PERF_SAMPLE_ID;
		if (per_cpu && (o->system_wide || o->cpu_list))
			attr->sample_type |= PERF_SAMPLE_CPU;
		attr->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		attr->disabled = 1;
		attr->inherit = !o->per_thread;
		attr->sample_id_all = 1;
		if (evsel__is_tracepoint(evsel)) {
			attr->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
			attr->sample_period = 1;
			attr->freq = 0;
		} else {
			attr->sample_freq = 4000;
			attr->freq = 1;
		}
	}
	evsel = evlist__first(evlist);
	evsel->attr.mmap = evsel->attr.mmap2 = evsel->attr.comm = evsel->attr.comm_exec = 1;
	evsel->attr.task = evsel->attr.ksymbol = evsel->attr.bpf_event = 1;
}

static struct evlist *eoc_evlist(const struct eoc_opts *o)
{
	struct parse_events_error perr = { .msg = "" };
	struct cpu_map *cpus;
	struct thread_map *threads;
	struct evlist *evlist = evlist__new();
	char *events = repeat_events(o->event, o->nr_events);
	int err = -ENOMEM;

	if (!evlist || !events)
		goto out_err;
	err = parse_events(evlist, events, &perr);
	if (err) {
		fprintf(stderr, "precord: %s\n", perr.msg[0] ? perr.msg : strerror(-err));
		goto out_delete;
	}
	err = eoc_maps(o, &cpus, &threads);
	if (!err)
		evlist__set_maps(evlist, cpus, threads);
	cpu_map__put(cpus);
	thread_map__put(threads);
	if (err)
		goto out_delete;
	eoc_config(evlist, o);
	evlist->parallel_min_fds = o->parallel_min_fds;
	evlist->parallel_mmap = o->parallel_mmap;
	free(events);
	return evlist;

out_err:
	fprintf(stderr, "precord: cannot build the event list: %s\n", strerror(-err));
out_delete:
	free(events);
	evlist__delete(evlist);
	return NULL;
}

/* perf's default ring: perf_event_mlock_kb minus the control page, as a power of two. */
static unsigned int default_mmap_pages(void)
{
	long page = sysconf(_SC_PAGESIZE), pages;
	int kb = 516;

	if (evlist__read_sysctl("perf_event_mlock_kb", &kb))
		kb = 516;
	pages = ((long)kb * 1024 - page) / page;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages > 0 ? (unsigned int)pages : 1;
}

/* ---- the pool -------------------------------------------------------------- */

/* Workers on the evlist's CPUs first, then on the other online CPUs. */
static int eoc_pool_cpus(const struct evlist *evlist, int want, int *cpus)
{
	struct cpu_map *online = cpu_map__new_online();
	int i, n = 0;

	if (!online)
		return -ENOMEM;
	if (!cpu_map__is_any(evlist->cpus))
		for (i = 0; i < evlist->cpus->nr && n < want; i++)
			if (cpu_map__has(online, evlist->cpus->map[i]))
				cpus[n++] = evlist->cpus->map[i].cpu;
	for (i = 0; i < online->nr && n < want; i++)
		if (cpu_map__is_any(evlist->cpus) || !cpu_map__has(evlist->cpus, online->map[i]))
			cpus[n++] = online->map[i].cpu;
	cpu_map__put(online);
	return n;
}

static struct wq *eoc_pool(const struct evlist *evlist, int workers, struct wq_pool **poolp)
{
	struct wq_pool_attr attr = { .name = "prec-wq" };
	int *cpus = calloc((size_t)workers, sizeof(int));
	char msg[256] = "";
	struct wq *wq = NULL;

	*poolp = NULL;
	if (!cpus)
		return NULL;
	attr.nr_cpus = eoc_pool_cpus(evlist, workers, cpus);
	attr.cpus = cpus;
	if (attr.nr_cpus > 0)
		*poolp = wq_pool__new(&attr, msg, sizeof(msg));
	if (*poolp)
		wq = wq__new(*poolp, "evlist", 0);
	if (!wq) {
		fprintf(stderr, "precord: cannot start %d workers: %s\n", workers,
			msg[0] ? msg : strerror(errno));
		wq_pool__delete(*poolp);
		*poolp = NULL;
	}
	free(cpus);
	return wq;
}

/* ---- the benchmark --------------------------------------------------------- */

/* One open…close cycle; t[0..NR_PHASES] are the times between the phases. */
static int eoc_cycle(struct evlist *evlist, unsigned int pages, double *t)
{
	struct evlist_open_error oerr;
	char msg[512];
	int err;

	t[0] = clock__now_us();
	err = evlist__open_wq(evlist, evlist->wq, &oerr);
	if (err) {
		evlist__open_strerror(&oerr, msg, sizeof(msg));
		fprintf(stderr, "precord: %s\n", msg);
		return err;
	}
	t[1] = clock__now_us();
	err = evlist__mmap(evlist, pages);
	if (err) {
		fprintf(stderr, "precord: cannot map %u pages per ring: %s; consider increasing "
			"/proc/sys/kernel/perf_event_mlock_kb or a smaller -m\n", pages, strerror(-err));
		evlist__close(evlist);
		return err;
	}
	t[2] = clock__now_us();
	evlist__enable(evlist);
	t[3] = clock__now_us();
	evlist__disable(evlist);
	t[4] = clock__now_us();
	evlist__munmap(evlist);
	t[5] = clock__now_us();
	evlist__close(evlist);
	t[6] = clock__now_us();
	return 0;
}

static void eoc_print(const char *what, const struct bench_stats *s)
{
	printf("  Average %s took: %.3f usec (+- %.3f usec)\n", what, s->mean, bench_stats__stddev(s));
}

static int eoc_run(struct evlist *evlist, const struct eoc_opts *o, int workers)
{
	struct bench_stats total = { 0 }, phase[NR_PHASES] = { { 0 } };
	unsigned int pages = o->mmap_pages ? o->mmap_pages : default_mmap_pages();
	double t[NR_PHASES + 1];
	int i, p, err;

	printf("# Running 'internals/evlist-open-close' benchmark:\n");
	printf("  Number of workers:\t%d\n", workers);
	printf("  Number of cpus:\t%d\n", evlist->cpus->nr);
	printf("  Number of threads:\t%d\n", evlist->threads->nr);
	printf("  Number of events:\t%d (%d fds)\n", evlist->nr_entries,
	       evlist->nr_entries * evlist->cpus->nr * evlist->threads->nr);
	printf("  Number of iterations:\t%d\n", o->iterations);
	fflush(stdout);

	for (i = 0; i < o->iterations; i++) {
		err = eoc_cycle(evlist, pages, t);
		if (err)
			return err;
		bench_stats__update(&total, t[NR_PHASES] - t[0]);
		for (p = 0; p < NR_PHASES; p++)
			bench_stats__update(&phase[p], t[p + 1] - t[p]);
	}
	eoc_print("open-close", &total);
	if (o->details)
		for (p = 0; p < NR_PHASES; p++)
			eoc_print(phase_names[p], &phase[p]);
	return 0;
}

int bench__evlist_open_close(int argc, char **argv)
{
	struct wq_pool *pool = NULL;
	struct wq *wq = NULL;
	struct evlist *evlist;
	struct eoc_opts o;
	int err, workers;

	err = eoc_parse(&o, argc, argv);
	if (err)
		return err > 0 ? 0 : 129;
	evlist = eoc_evlist(&o);
	if (!evlist)
		return 1;
	workers = o.workers ? o.workers : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (workers > 1) {
		wq = eoc_pool(evlist, workers, &pool);
		if (!wq) {
			evlist__delete(evlist);
			return 1;
		}
		workers = wq_pool__nr_workers(pool);
	}
	evlist__set_wq(evlist, wq);
	err = eoc_run(evlist, &o, workers);
	evlist__delete(evlist);
	wq__delete(wq);
	wq_pool__delete(pool);
	return err ? 1 : 0;
}

/* ---- `precord bench` -------------------------------------------------------- */

static void bench_usage(FILE *fp)
{
	fprintf(fp,
		"\n Usage: precord bench [internals] <benchmark> [<options>]\n\n"
		"        # List of available benchmarks (perf bench internals' names):\n\n"
		"    evlist-open-close: Benchmark evlist open and close\n"
		"           synthesize: Benchmark perf event synthesis\n\n"
		" 'precord bench <benchmark> --help' shows a benchmark's options.\n");
}

int cmd_bench(int argc, char **argv)
{
	int i = 1;

	if (argc > i && !strcmp(argv[i], "internals"))
		i++;
	if (argc <= i || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
		bench_usage(argc <= i ? stderr : stdout);
		return argc <= i ? 129 : 0;
	}
	if (!strcmp(argv[i], "evlist-open-close"))
		return bench__evlist_open_close(argc - i, argv + i);
	if (!strcmp(argv[i], "synthesize"))
		return bench__synthesize(argc - i, argv + i);
	fprintf(stderr, "precord: unknown benchmark '%s'; 'precord bench --help' lists them\n",
		argv[i]);
	return 129;
}
