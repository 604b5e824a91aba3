// SPDX-License-Identifier: GPL-2.0
/*
 * evsel.c — one event selector and its descriptors.
 *
 * Owns the attr, the name and the fds[cpu_idx][thread_idx] array of one
 * event, and the ids the kernel gives each fd. Opened, enabled and closed by
 * the thread that sets up the recording (later: by workqueue items, one CPU
 * each — the functions touch only their own evsel, so callers can split the
 * work by evsel or by CPU range). Errors come back as -errno with where they
 * happened; printing them is the caller's job.
 */
#include <errno.h>
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

static int evsel__alloc_fds(struct evsel *evsel, int nr_cpus, int nr_threads)
{
	int i, n = nr_cpus * nr_threads;

	free(evsel->fds);
	evsel->fds = malloc(sizeof(int) * (size_t)n);
	if (!evsel->fds)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		evsel->fds[i] = -1;
	evsel->nr_cpus = nr_cpus;
	evsel->nr_threads = nr_threads;
	return 0;
}

int evsel__open(struct evsel *evsel, struct cpu_map *cpus, struct thread_map *threads,
		int *failed_cpu, pid_t *failed_tid)
{
	int c, t, err;

	err = evsel__alloc_fds(evsel, cpus->nr, threads->nr);
	if (err)
		return err;

	for (c = 0; c < cpus->nr; c++) {
		for (t = 0; t < threads->nr; t++) {
			int fd = sys_perf_event_open(&evsel->attr, threads->map[t],
						     cpus->map[c].cpu, -1,
						     PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				if (failed_cpu)
					*failed_cpu = cpus->map[c].cpu;
				if (failed_tid)
					*failed_tid = threads->map[t];
				goto out_close;
			}
			evsel->fds[c * threads->nr + t] = fd;
		}
	}
	return 0;

out_close:
	evsel__close(evsel);
	return err;
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

static int evsel__ioctl_all(struct evsel *evsel, unsigned long req)
{
	int i, n = evsel->nr_cpus * evsel->nr_threads;

	for (i = 0; i < n; i++)
		if (evsel->fds[i] >= 0 && ioctl(evsel->fds[i], req, 0) < 0)
			return -errno;
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
