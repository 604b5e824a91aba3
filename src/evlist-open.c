// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-open.c — the open of every descriptor of an evlist, and what is
 * said when it fails.
 *
 * Failures.  Workers only do the pure per-CPU work and stop at their first
 * error, recording where (evsel, cpu, thread) in their errs[] entry; the
 * lowest failing evsel index so far is shared, and units give up before
 * any evsel above it (they still try those below, so the failure first in
 * (evsel, cpu, thread) order, the one an evsel-by-evsel serial open hits,
 * is always found).  Everything else happens on the calling thread:
 * evlist__open_wq() closes all that was opened, takes that first failure
 * and either applies one of perf's fallbacks (a missing attr feature, a
 * lower precise_ip, excluding the kernel when paranoid > 1, a higher
 * RLIMIT_NOFILE) and opens again, or reports it.  With skip_failed_cpus,
 * a failure on some CPUs of an evsel that opened on others (an offline CPU
 * gives ENODEV) comes first: those CPUs leave the cpu map, the open starts
 * again on the rest, and evlist_open_error lists them with their errors.
 * After a failed open nothing is open, so nothing is enabled.
 *
 * Data flow: evlist__open() → evlist__open_once() (descriptors reserved,
 * evlist__run(EVLIST_OPEN) on the workers) → on failure, the CPUs to skip
 * or evlist__fallback() (evlist-fallback.c) and again → an evlist_open_error
 * that evlist__open_strerror() turns into perf's lines.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "evlist-internal.h"

static void evlist_open_error__where(struct evlist_open_error *oerr, struct evlist *evlist,
				     const struct evlist_job *job)
{
	const struct evlist_unit_err *ue = evlist_job__first_error(job);

	if (!ue)
		return;
	oerr->err = ue->err;
	oerr->evsel = evlist->entries[ue->evsel_idx];
	oerr->cpu_idx = ue->cpu_idx;
	oerr->thread_idx = ue->thread_idx;
	oerr->cpu = evlist->cpus->map[ue->cpu_idx];
	oerr->tid = evlist->threads->map[ue->thread_idx];
}

static bool evsel__any_open(const struct evsel *evsel)
{
	int i;

	for (i = 0; i < evsel->nr_cpus * evsel->nr_threads; i++)
		if (evsel->fds[i] >= 0)
			return true;
	return false;
}

/* An error that says something about one CPU, not about the process or a thread. */
static bool open_err__is_cpus(int err)
{
	switch (-err) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case ESRCH:
	case EINTR:
	case EFAULT:
		return false;
	default:
		return true;
	}
}

static int skipped_cpu__cmp(const void *a, const void *b)
{
	const struct evlist_skipped_cpu *x = a, *y = b;

	return (x->cpu.cpu > y->cpu.cpu) - (x->cpu.cpu < y->cpu.cpu);
}

/*
 * skip_failed_cpus, after a failed attempt (its descriptors still open):
 * when the first failing evsel opened on some CPU, each CPU where it
 * failed goes into oerr->skipped.  Serial or parallel, every CPU unit
 * tried that evsel (units give up only above it), so one attempt finds
 * them all for CPU units; thread units stop at their first CPU, and the
 * next attempt finds the next.  Returns how many were added, 0 when the
 * failure is not a CPU's (then nothing is dropped), or -ENOMEM.
 */
static int evlist__collect_failed_cpus(struct evlist *evlist, const struct evlist_job *job,
				       struct evlist_open_error *oerr)
{
	struct evlist_skipped_cpu *sk;
	int u, i, n = 0, e, *failed;	/* failed[cpu index]: its error, 0: none */

	if (!evlist->skip_failed_cpus || !oerr->evsel || !evsel__any_open(oerr->evsel) ||
	    !open_err__is_cpus(oerr->err) || cpu_map__is_any(evlist->cpus))
		return 0;
	e = evlist_job__first_error(job)->evsel_idx;
	failed = calloc((size_t)evlist->cpus->nr, sizeof(*failed));
	if (!failed)
		return -ENOMEM;
	for (u = 0; u < job->nr_units; u++) {
		const struct evlist_unit_err *ue = &job->errs[u];

		if (ue->err && ue->evsel_idx == e && open_err__is_cpus(ue->err) && !failed[ue->cpu_idx]) {
			failed[ue->cpu_idx] = ue->err;
			n++;
		}
	}
	if (n == 0 || n >= evlist->cpus->nr) {
		free(failed);
		return 0;
	}
	sk = realloc(oerr->skipped, sizeof(*sk) * (size_t)(oerr->nr_skipped + n));
	if (!sk) {
		free(failed);
		return -ENOMEM;
	}
	oerr->skipped = sk;
	for (i = 0; i < evlist->cpus->nr; i++) {
		if (!failed[i])
			continue;
		sk[oerr->nr_skipped].cpu = evlist->cpus->map[i];
		sk[oerr->nr_skipped].err = failed[i];
		oerr->nr_skipped++;
	}
	qsort(sk, (size_t)oerr->nr_skipped, sizeof(*sk), skipped_cpu__cmp);
	free(failed);
	return n;
}

/* After evlist__close(): the cpu map without the CPUs in oerr->skipped. */
static int evlist__drop_skipped_cpus(struct evlist *evlist, const struct evlist_open_error *oerr)
{
	struct cpu_map *old = evlist->cpus, *nc;
	int *keep, i, j, n = 0;

	keep = malloc(sizeof(*keep) * (size_t)old->nr);
	if (!keep)
		return -ENOMEM;
	for (i = 0, j = 0; i < old->nr; i++) {
		while (j < oerr->nr_skipped && oerr->skipped[j].cpu.cpu < old->map[i].cpu)
			j++;
		if (j < oerr->nr_skipped && oerr->skipped[j].cpu.cpu == old->map[i].cpu)
			continue;
		keep[n++] = old->map[i].cpu;
	}
	nc = cpu_map__new_from(keep, n);
	free(keep);
	if (!nc)
		return -ENOMEM;
	evlist__set_maps(evlist, nc, evlist->threads);
	cpu_map__put(nc);
	return 0;
}

/*
 * The CPU a task last ran on: field 39 of its stat, or -1.  The thread's
 * own file (/proc/TID/task/TID/stat): /proc/TID/stat sums the CPU time of
 * the whole thread group, which makes reading every thread's quadratic.
 */
static int task__last_cpu(pid_t tid)
{
	char path[64], buf[1024], *p;
	int fd, field = 2, cpu;
	const char *end;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* field 2, the comm, may hold blanks and ')' */
	if (!p)
		return -1;
	for (; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (field < 39 || parse__int(p, 10, &cpu, &end))
		return -1;
	return cpu;
}

static int evlist__thread_cpu_cb(void *arg, long t, int slot)
{
	struct evlist *evlist = arg;

	evlist->thread_cpus[t] = task__last_cpu(evlist->threads->map[t]);
	return 0;
}

/*
 * Task events on a workqueue: learn where each thread sits, in parallel,
 * before the open.  A /proc read costs about what one IPI costs, and it
 * saves one for the first descriptor of the thread (the open of the first
 * event of a context calls the task's CPU) and then one per descriptor of
 * the thread for enable and disable.
 */
static void evlist__read_thread_cpus(struct evlist *evlist)
{
	int nr = evlist->threads->nr;

	free(evlist->thread_cpus);
	evlist->thread_cpus = NULL;
	if (evlist__cpu_wide(evlist) || !evlist__parallel(evlist, nr))
		return;
	evlist->thread_cpus = malloc(sizeof(int) * (size_t)nr);
	if (evlist->thread_cpus)
		wq__parallel_for(evlist->wq, 0, nr, 0, evlist__thread_cpu_cb, evlist, NULL);
}

/*
 * Grow this process's fd table to what the open needs in one step.  The
 * kernel doubles it as descriptors are allocated, and in a process with
 * several threads every doubling waits for an RCU grace period
 * (expand_fdtable()): six of them, about 8 ms each here, on the way to
 * 4000 descriptors.  Duplicating a descriptor to the highest number
 * needed makes it one; the table never shrinks, so later opens pay nothing.
 */
static void evlist__reserve_fds(struct evlist *evlist)
{
	unsigned long want = (unsigned long)evlist__nr_slots(evlist);
	struct rlimit rl;
	int fd;

	if (want < 64 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;		/* the first table holds 64: nothing worth it */
	want += evlist__count_open_files() + 16;
	if (rl.rlim_cur != RLIM_INFINITY && want >= rl.rlim_cur)
		want = rl.rlim_cur - 1;		/* as far as the limit lets; EMFILE does the rest */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if ((unsigned long)fd < want) {
		/* The lowest free descriptor >= want: nothing in use is touched. */
		int top = fcntl(fd, F_DUPFD_CLOEXEC, (int)want);

		if (top >= 0)
			close(top);
	}
	close(fd);
}

/*
 * One attempt: allocate every evsel's slots, open them all, or say where
 * it failed (and, in *first_fd, whether the failing evsel had nothing open).
 */
static int evlist__open_once(struct evlist *evlist, struct evlist_open_error *oerr,
			     bool *first_fd, int *nr_failed_cpus)
{
	struct evlist_job job = {
		.fn = evlist__open_unit, .stop_on_error = true, .by_thread_cpu = true,
		.evsels = EVSELS_PARALLEL,
	}, serial = {
		.fn = evlist__open_unit, .stop_on_error = true,
		.evsels = EVSELS_SERIAL, .inline_only = true,
	};
	const struct evlist_job *failed = &job;
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		err = evsel__alloc_fds(evsel, evlist->cpus->nr, evlist->threads->nr);
		if (err)
			goto out_err;
	}
	evlist__reserve_fds(evlist);
	evlist__read_thread_cpus(evlist);
	err = evlist_job__run(evlist, &job);
	if (!err && evlist__has_serial(evlist)) {
		err = evlist_job__run(evlist, &serial);
		/* the failure an evsel-by-evsel open meets first, of either */
		if (!err && evlist_job__first_error(&serial) &&
		    (!evlist_job__first_error(&job) ||
		     unit_err__before(evlist_job__first_error(&serial), evlist_job__first_error(&job))))
			failed = &serial;
	}
	if (err)
		goto out_exit;
	evlist_open_error__where(oerr, evlist, failed);
	if (oerr->err) {
		*first_fd = oerr->evsel && !evsel__any_open(oerr->evsel);
		*nr_failed_cpus = evlist__collect_failed_cpus(evlist, failed, oerr);
		err = oerr->err;
		goto out_exit;
	}
	evlist_job__exit(&serial);
	evlist_job__exit(&job);
	evlist__for_each_evsel(evlist, evsel, i)
		evsel->nr_ids = evsel->nr_cpus * evsel->nr_threads;
	return 0;

out_exit:
	evlist_job__exit(&serial);
	evlist_job__exit(&job);
	if (oerr->err)
		return err;
out_err:
	oerr->err = err;
	return err;
}

static void evlist_open_error__reset(struct evlist_open_error *oerr)
{
	oerr->err = 0;
	oerr->evsel = NULL;
	oerr->cpu_idx = oerr->thread_idx = -1;
	oerr->cpu.cpu = -1;
	oerr->tid = -1;
}

void evlist_open_error__exit(struct evlist_open_error *oerr)
{
	if (!oerr)
		return;
	free(oerr->skipped);
	oerr->skipped = NULL;
	oerr->nr_skipped = 0;
}

/*
 * One failed attempt, closed: leave out the CPUs it found failing (each
 * time fewer CPUs), or change something else, or give up.
 */
static bool evlist__retry(struct evlist *evlist, struct evlist_open_error *oerr,
			  bool first_fd, int nr_failed_cpus, int *tries)
{
	if (nr_failed_cpus > 0) {
		if (evlist__drop_skipped_cpus(evlist, oerr))
			return false;
		oerr->fallbacks |= EVLIST_FALLBACK_SKIP_CPUS;
		return true;	/* not a try: the map shrinks each time */
	}
	if (nr_failed_cpus < 0)
		return false;
	return ++*tries <= 64 && evlist__fallback(evlist, oerr, first_fd);
}

int evlist__open_wq(struct evlist *evlist, struct wq *wq, struct evlist_open_error *oerr)
{
	struct evlist_open_error local;
	bool first_fd = false;
	int tries = 0, err, nr_failed;

	if (!oerr)
		oerr = &local;
	memset(oerr, 0, sizeof(*oerr));
	evlist__set_wq(evlist, wq);
	if (!evlist->cpus || !evlist->threads)
		return -EINVAL;
	/* Every fallback changes an attr for good, drops CPUs or is taken once: this ends. */
	for (;;) {
		evlist_open_error__reset(oerr);
		nr_failed = 0;
		err = evlist__open_once(evlist, oerr, &first_fd, &nr_failed);
		if (!err)
			break;
		evlist__close(evlist);
		if (!evlist__retry(evlist, oerr, first_fd, nr_failed, &tries))
			break;
	}
	if (oerr == &local)
		evlist_open_error__exit(oerr);
	return err;
}

int evlist__open(struct evlist *evlist)
{
	return evlist__open_wq(evlist, evlist->wq, NULL);
}

/* perf's words for EOPNOTSUPP, the first that applies (evsel__open_strerror()). */
static int evsel__opnotsupp_strerror(const struct evsel *evsel, char *buf, size_t size)
{
	const struct perf_event_attr *attr = &evsel->attr;

	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return snprintf(buf, size, "%s: PMU Hardware or event type doesn't support branch "
				"stack sampling.", evsel->name);
	if (attr->aux_output)
		return snprintf(buf, size, "%s: PMU Hardware doesn't support 'aux_output' feature",
				evsel->name);
	if (attr->sample_period)
		return snprintf(buf, size, "%s: PMU Hardware doesn't support sampling/overflow-"
				"interrupts. Try 'perf stat'", evsel->name);
	if (attr->precise_ip)
		return snprintf(buf, size, "'precise' request may not be supported. "
				"Try removing 'p' modifier.");
	if (attr->type == PERF_TYPE_HARDWARE)
		return snprintf(buf, size, "No hardware sampling interrupt available.");
	return snprintf(buf, size, "The sys_perf_event_open() syscall returned with %d (%s) for "
			"event (%s). /bin/dmesg | grep -i perf may provide additional information.",
			EOPNOTSUPP, strerror(EOPNOTSUPP), evsel->name);
}

int evlist__open_strerror(const struct evlist_open_error *oerr, char *buf, size_t size)
{
	const struct evsel *evsel = oerr->evsel;
	const char *name = evsel ? evsel->name : "";

	if (!evsel)
		return snprintf(buf, size, "cannot open the events: %s", strerror(-oerr->err));
	switch (-oerr->err) {
	case ENOENT:
		return snprintf(buf, size, "The %s event is not supported. "
				"'perf list' shows the events this machine has.", name);
	case EOPNOTSUPP:
		return evsel__opnotsupp_strerror(evsel, buf, size);
	case EINVAL:
		if (!evlist__cpu_wide(evsel->evlist))
			return snprintf(buf, size, "Invalid event (%s) in per-thread mode, "
					"enable system wide with '-a'.", name);
		return snprintf(buf, size, "The sys_perf_event_open() syscall returned with %d (%s) "
				"for event (%s). /bin/dmesg | grep -i perf may provide additional "
				"information.", EINVAL, strerror(EINVAL), name);
	case EACCES:
	case EPERM:
		if (evlist__has_perf_caps())
			return snprintf(buf, size, "the kernel refuses '%s' even with CAP_PERFMON "
					"(%s): leave it out of -e", name, strerror(-oerr->err));
		return snprintf(buf, size, "no permission to open '%s' (kernel.perf_event_paranoid is %d): "
				"run as root, or allow it with 'sysctl kernel.perf_event_paranoid=-1'",
				name, evlist__paranoid());
	case EMFILE:
	case ENFILE:
		return snprintf(buf, size, "too many open files: this recording needs about %lu descriptors; "
				"raise the limit with 'ulimit -n %lu'", oerr->nofile_need, oerr->nofile_need);
	case ESRCH:
		return snprintf(buf, size, "thread %d went away before '%s' could be opened on it; "
				"check the -p/-t ids", oerr->tid, name);
	case ENODEV:
		return snprintf(buf, size, "event '%s' cannot be opened on CPU %d: %s; "
				"'perf list' shows the events this machine has",
				name, oerr->cpu.cpu, strerror(ENODEV));
	default:
		return snprintf(buf, size, "cannot open '%s' on CPU %d%s: %s", name, oerr->cpu.cpu,
				oerr->tid > 0 ? " for that thread" : "", strerror(-oerr->err));
	}
}

/* Why a CPU was left out, as a key: 0 for offline (ENODEV on a CPU not online now), else its -errno. */
static int skipped_cpu__why(const struct evlist_skipped_cpu *sk, const struct cpu_map *online)
{
	if (sk->err == -ENODEV && online && !cpu_map__has(online, sk->cpu))
		return 0;
	return sk->err;
}

int evlist_open_error__skipped_str(const struct evlist_open_error *oerr, char *buf, size_t size)
{
	struct cpu_map *online = cpu_map__new_online(), *map;
	int *cpus, i, j, n, why, len = 0;
	bool *done;
	char list[256];

	if (size)
		buf[0] = '\0';
	cpus = malloc(sizeof(*cpus) * (size_t)(oerr->nr_skipped + 1));
	done = calloc((size_t)oerr->nr_skipped + 1, sizeof(*done));
	/* one group per reason, in the order of their first CPU */
	for (i = 0; cpus && done && i < oerr->nr_skipped; i++) {
		if (done[i])
			continue;
		why = skipped_cpu__why(&oerr->skipped[i], online);
		for (j = i, n = 0; j < oerr->nr_skipped; j++) {
			if (!done[j] && skipped_cpu__why(&oerr->skipped[j], online) == why) {
				done[j] = true;
				cpus[n++] = oerr->skipped[j].cpu.cpu;
			}
		}
		map = cpu_map__new_from(cpus, n);
		list[0] = '\0';
		if (map)
			cpu_map__snprintf(map, list, sizeof(list));
		cpu_map__put(map);
		len += snprintf(buf + (len < (int)size ? len : 0), len < (int)size ? size - len : 0,
				"%sCPU%s %s (%s)", len ? ", " : "", n > 1 ? "s" : "", list,
				why ? strerror(-why) : "offline");
	}
	free(done);
	free(cpus);
	cpu_map__put(online);
	return len;
}
