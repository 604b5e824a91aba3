// SPDX-License-Identifier: GPL-2.0
/*
 * evsel.c — one event selector and its descriptors.
 *
 * Owns the attr, the name and the fds[cpu_idx][thread_idx] array of one
 * event, and the ids the kernel gives each fd (ids[] in the same order).
 *
 * Threads: evsel__new/delete/alloc_fds/close and every change to the attr
 * run on the thread that sets up the recording.  The *_cpu() functions are
 * what evlist.c hands to its workers: each touches only the fds and ids
 * slots of one CPU index and one thread range, and reads the attr and the
 * maps, so calls for different CPUs run at once without locks (the
 * workqueue orders them against the setting-up thread).  They are pure:
 * no fallback, no cleanup; the evlist decides what to do with a failure.
 * Errors come back as -errno with where they happened; printing them is
 * the caller's job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "precord/evsel.h"

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name)
{
	struct evsel *evsel = calloc(1, sizeof(*evsel));

	if (!evsel)
		return NULL;
	evsel->attr = *attr;
	evsel->attr.size = sizeof(evsel->attr);
	evsel->name = strdup(name ? name : "");
	if (!evsel->name) {
		free(evsel);
		return NULL;
	}
	return evsel;
}

void evsel__delete(struct evsel *evsel)
{
	if (!evsel)
		return;
	evsel__close(evsel);
	free(evsel->name);
	free(evsel->tp_sys);
	free(evsel->tp_name);
	free(evsel->filter);
	free(evsel);
}

bool evsel__is_tracepoint(const struct evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_TRACEPOINT;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int evsel__alloc_fds(struct evsel *evsel, int nr_cpus, int nr_threads)
{
	size_t i, n = (size_t)nr_cpus * (size_t)nr_threads;

	evsel__close(evsel);	/* a second open must not leak the first one's fds */
	evsel->fds = malloc(sizeof(int) * (n ? n : 1));
	evsel->ids = calloc(n ? n : 1, sizeof(u64));
	evsel->nr_ids = 0;
	if (!evsel->fds || !evsel->ids) {
		free(evsel->fds);
		free(evsel->ids);
		evsel->fds = NULL;
		evsel->ids = NULL;
		evsel->nr_cpus = evsel->nr_threads = 0;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		evsel->fds[i] = -1;
	evsel->nr_cpus = nr_cpus;
	evsel->nr_threads = nr_threads;
	return 0;
}

static int evsel__sys_open(evsel_open_fn open_fn, void *ctx, struct perf_event_attr *attr,
			   pid_t pid, int cpu)
{
	int fd;

	if (open_fn)
		return open_fn(ctx, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	fd = sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int evsel__open_cpu(struct evsel *evsel, const struct cpu_map *cpus,
		    const struct thread_map *threads, int cpu_idx, int thread_from,
		    int thread_to, evsel_open_fn open_fn, void *ctx, int *failed_thread_idx)
{
	int t;

	for (t = thread_from; t < thread_to; t++) {
		int slot = cpu_idx * evsel->nr_threads + t;
		int fd = evsel__sys_open(open_fn, ctx, &evsel->attr, threads->map[t],
					 cpus->map[cpu_idx].cpu);

		if (fd < 0)
			goto out_fail;
		evsel->fds[slot] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &evsel->ids[slot]) < 0) {
			fd = -errno;
			goto out_fail;
		}
		continue;
out_fail:
		if (failed_thread_idx)
			*failed_thread_idx = t;
		return fd;
	}
	return 0;
}

int evsel__open(struct evsel *evsel, struct cpu_map *cpus, struct thread_map *threads,
		int *failed_cpu, pid_t *failed_tid)
{
	int c, t = 0, err;

	err = evsel__alloc_fds(evsel, cpus->nr, threads->nr);
	if (err)
		return err;

	for (c = 0; c < cpus->nr; c++) {
		err = evsel__open_cpu(evsel, cpus, threads, c, 0, threads->nr, NULL, NULL, &t);
		if (err) {
			if (failed_cpu)
				*failed_cpu = cpus->map[c].cpu;
			if (failed_tid)
				*failed_tid = threads->map[t];
			evsel__close(evsel);
			return err;
		}
	}
	evsel->nr_ids = cpus->nr * threads->nr;
	return 0;
}

void evsel__close_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to)
{
	int t;

	for (t = thread_from; t < thread_to; t++) {
		int *fd = &evsel->fds[cpu_idx * evsel->nr_threads + t];

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

void evsel__close(struct evsel *evsel)
{
	int i;

	if (evsel->fds) {
		for (i = 0; i < evsel->nr_cpus * evsel->nr_threads; i++)
			if (evsel->fds[i] >= 0)
				close(evsel->fds[i]);
	}
	free(evsel->fds);
	evsel->fds = NULL;
	free(evsel->ids);
	evsel->ids = NULL;
	evsel->nr_ids = 0;
	evsel->nr_cpus = evsel->nr_threads = 0;
}

int evsel__read_ids(struct evsel *evsel)
{
	int i, n = evsel->nr_cpus * evsel->nr_threads;
	u64 *ids = calloc((size_t)n ? (size_t)n : 1, sizeof(u64));

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (ioctl(evsel->fds[i], PERF_EVENT_IOC_ID, &ids[i]) < 0) {
			int err = -errno;

			free(ids);
			return err;
		}
	}
	free(evsel->ids);
	evsel->ids = ids;
	evsel->nr_ids = n;
	return 0;
}

static int evsel__ioctl_cpu(struct evsel *evsel, unsigned long req, int cpu_idx,
			    int thread_from, int thread_to)
{
	int t;

	for (t = thread_from; t < thread_to; t++) {
		int fd = evsel->fds[cpu_idx * evsel->nr_threads + t];

		if (fd >= 0 && ioctl(fd, req, 0) < 0)
			return -errno;
	}
	return 0;
}

int evsel__enable_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to)
{
	return evsel__ioctl_cpu(evsel, PERF_EVENT_IOC_ENABLE, cpu_idx, thread_from, thread_to);
}

int evsel__disable_cpu(struct evsel *evsel, int cpu_idx, int thread_from, int thread_to)
{
	return evsel__ioctl_cpu(evsel, PERF_EVENT_IOC_DISABLE, cpu_idx, thread_from, thread_to);
}

static int evsel__ioctl_all(struct evsel *evsel, unsigned long req)
{
	int c, err;

	for (c = 0; c < evsel->nr_cpus; c++) {
		err = evsel__ioctl_cpu(evsel, req, c, 0, evsel->nr_threads);
		if (err)
			return err;
	}
	return 0;
}

int evsel__enable(struct evsel *evsel)
{
	return evsel__ioctl_all(evsel, PERF_EVENT_IOC_ENABLE);
}

int evsel__disable(struct evsel *evsel)
{
	return evsel__ioctl_all(evsel, PERF_EVENT_IOC_DISABLE);
}

int evsel__append_filter(struct evsel *evsel, const char *filter)
{
	char *joined;

	if (!evsel->filter)
		joined = strdup(filter);
	else if (asprintf(&joined, evsel__is_tracepoint(evsel) ? "(%s) && (%s)" : "%s,%s",
			  evsel->filter, filter) < 0)
		joined = NULL;
	if (!joined)
		return -ENOMEM;
	free(evsel->filter);
	evsel->filter = joined;
	return 0;
}

int evsel__apply_filter(struct evsel *evsel)
{
	int i;

	if (!evsel->filter || !evsel->fds)
		return 0;
	for (i = 0; i < evsel->nr_cpus * evsel->nr_threads; i++)
		if (evsel->fds[i] >= 0 &&
		    ioctl(evsel->fds[i], PERF_EVENT_IOC_SET_FILTER, evsel->filter) < 0)
			return -errno;
	return 0;
}

/*
 * read() layout for read_format = ID | LOST without GROUP (the only layout
 * precord asks for, plus the optional time fields):
 *   u64 value; [u64 time_enabled]; [u64 time_running]; u64 id; u64 lost;
 */
int evsel__read_lost(struct evsel *evsel, int cpu_idx, int thread_idx, u64 *lost)
{
	u64 buf[8];
	int n = 1, fd = evsel__fd(evsel, cpu_idx, thread_idx);
	u64 rf = evsel->attr.read_format;
	ssize_t ret;

	if (!(rf & PERF_FORMAT_LOST) || (rf & PERF_FORMAT_GROUP))
		return -EOPNOTSUPP;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		n++;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		n++;
	if (rf & PERF_FORMAT_ID)
		n++;
	ret = read(fd, buf, sizeof(u64) * (size_t)(n + 1));
	if (ret < 0)
		return -errno;
	if (ret != (ssize_t)(sizeof(u64) * (size_t)(n + 1)))
		return -EIO;
	*lost = buf[n];
	return 0;
}

size_t evsel__id_hdr_size(const struct evsel *evsel)
{
	u64 st = evsel->attr.sample_type;
	size_t size = 0;

	if (!evsel->attr.sample_id_all)
		return 0;
	if (st & PERF_SAMPLE_TID)
		size += 8;
	if (st & PERF_SAMPLE_TIME)
		size += 8;
	if (st & PERF_SAMPLE_ID)
		size += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		size += 8;
	if (st & PERF_SAMPLE_CPU)
		size += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		size += 8;
	return size;
}
