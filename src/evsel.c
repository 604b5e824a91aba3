// SPDX-License-Identifier: GPL-2.0
/*
 * evsel.c — one event selector and its descriptors.
 *
 * Owns the attr, the name and the fds[cpu_idx][thread_idx] array of one
 * event, and the ids the kernel gives each fd (ids[] in the same order).
 * A group member is opened with its leader's fd of the same slot as
 * group_fd, so the leader's slot must be open first (evlist.c opens the
 * evsels of a unit in evlist order, leaders first).
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
#include "precord/sample.h"

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name)
{
	struct evsel *evsel = calloc(1, sizeof(*evsel));

	if (!evsel)
		return NULL;
	evsel->attr = *attr;
	evsel->attr.size = sizeof(evsel->attr);
	evsel->leader = evsel;
	evsel->nr_members = 1;
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
	free(evsel->group_name);
	free(evsel->tp_sys);
	free(evsel->tp_name);
	free(evsel->filter);
	cgroup__put(evsel->cgrp);
	free(evsel);
}

bool evsel__is_tracepoint(const struct evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_TRACEPOINT;
}

/*
 * The levels first: "k", "u", "h" for each one counted when some are
 * excluded; then "p"s; then "H"/"G" when the guest/host bits differ from
 * what those modifiers imply (exclude_guest goes with u, k, h or p).
 */
void evsel__mod_suffix(const struct perf_event_attr *attr, char *buf, size_t size)
{
	bool guest_default = false;
	char mods[16];
	int n = 0;
	u64 i;

	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		if (!attr->exclude_kernel)
			mods[n++] = 'k';
		if (!attr->exclude_user)
			mods[n++] = 'u';
		if (!attr->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	for (i = 0; i < attr->precise_ip && i < 3; i++)
		mods[n++] = 'p';
	guest_default |= attr->precise_ip != 0;
	if (attr->exclude_host || attr->exclude_guest == guest_default) {
		if (!attr->exclude_host)
			mods[n++] = 'H';
		if (!attr->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = '\0';
	snprintf(buf, size, "%s%s", n ? ":" : "", mods);
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

/*
 * An evsel of a cgroup (-G) counts the tasks of that cgroup on each CPU:
 * the cgroup's directory stands for the pid, with PERF_FLAG_PID_CGROUP
 * (perf's evsel__open_cpu()).
 */
static int evsel__sys_open(const struct evsel *evsel, evsel_open_fn open_fn, void *ctx,
			   struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	int fd;

	if (evsel->cgrp) {
		pid = evsel->cgrp->fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	if (open_fn)
		return open_fn(ctx, attr, pid, cpu, group_fd, flags);
	fd = sys_perf_event_open(attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : fd;
}

/*
 * A member's group_fd: its leader's descriptor of the same slot, which the
 * open of the leader (earlier in the evlist, so earlier in every unit)
 * made. -EBADF when the leader has none there.
 */
static int evsel__group_fd(const struct evsel *evsel, int slot)
{
	const struct evsel *leader = evsel->leader;

	if (!leader || leader == evsel)
		return -1;
	if (!leader->fds || leader->nr_threads != evsel->nr_threads ||
	    slot >= leader->nr_cpus * leader->nr_threads || leader->fds[slot] < 0)
		return -EBADF;
	return leader->fds[slot];
}

int evsel__open_cpu(struct evsel *evsel, const struct cpu_map *cpus,
		    const struct thread_map *threads, int cpu_idx, int thread_from,
		    int thread_to, evsel_open_fn open_fn, void *ctx, int *failed_thread_idx)
{
	int t;

	for (t = thread_from; t < thread_to; t++) {
		int slot = cpu_idx * evsel->nr_threads + t;
		int group_fd = evsel__group_fd(evsel, slot);
		int fd = group_fd == -EBADF ? -EBADF :
			 evsel__sys_open(evsel, open_fn, ctx, &evsel->attr, threads->map[t],
					 cpus->map[cpu_idx].cpu, group_fd);

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

int evsel__join_filter(struct evsel *evsel, const char *head, const char *sep,
		       const char *tail, const char *filter)
{
	char *joined;

	if (!evsel->filter)
		joined = strdup(filter);
	else if (asprintf(&joined, "%s%s%s%s%s", head, evsel->filter, sep, filter, tail) < 0)
		joined = NULL;
	if (!joined)
		return -ENOMEM;
	free(evsel->filter);
	evsel->filter = joined;
	return 0;
}

int evsel__append_filter(struct evsel *evsel, const char *filter)
{
	if (evsel__is_tracepoint(evsel))
		return evsel__join_filter(evsel, "(", ") && (", ")", filter);
	return evsel__join_filter(evsel, "", ",", "", filter);
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
 * read() layouts with PERF_FORMAT_LOST (the time fields optional):
 *   alone:   u64 value; [u64 enabled]; [u64 running]; [u64 id]; u64 lost;
 *   GROUP:   u64 nr; [u64 enabled]; [u64 running];
 *            then nr times { u64 value; [u64 id]; u64 lost; }
 * A read of any member of a group returns the whole group; this evsel's
 * entry is the one with its id.
 */
static int evsel__read_lost_group(struct evsel *evsel, int fd, u64 id, u64 *lost)
{
	u64 rf = evsel->attr.read_format, nr, *buf, *p;
	size_t per = 2 + !!(rf & PERF_FORMAT_ID), head = 1, n, i;
	int members = evsel->leader ? evsel->leader->nr_members : 1, err = -ENOENT;
	ssize_t ret;

	head += !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	n = head + per * (size_t)(members > 0 ? members : 1);
	buf = calloc(n, sizeof(u64));
	if (!buf)
		return -ENOMEM;
	ret = read(fd, buf, n * sizeof(u64));
	if (ret < 0) {
		err = -errno;
		goto out;
	}
	nr = buf[0];
	if ((size_t)ret < head * sizeof(u64) || nr > (n - head) / per ||
	    (size_t)ret < (head + per * nr) * sizeof(u64)) {
		err = -EIO;
		goto out;
	}
	for (i = 0, p = buf + head; i < nr; i++, p += per) {
		if (!(rf & PERF_FORMAT_ID) || p[1] == id) {
			*lost = p[per - 1];
			err = 0;
			break;
		}
	}
out:
	free(buf);
	return err;
}

int evsel__read_lost(struct evsel *evsel, int cpu_idx, int thread_idx, u64 *lost)
{
	u64 buf[8];
	int n = 1, fd = evsel__fd(evsel, cpu_idx, thread_idx);
	u64 rf = evsel->attr.read_format;
	ssize_t ret;

	if (!(rf & PERF_FORMAT_LOST))
		return -EOPNOTSUPP;
	if (fd < 0)
		return -EBADF;
	if (rf & PERF_FORMAT_GROUP)
		return evsel__read_lost_group(evsel, fd,
					      evsel->ids[cpu_idx * evsel->nr_threads + thread_idx],
					      lost);
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
	return evsel->attr.sample_id_all ? sample_id__size(evsel->attr.sample_type) : 0;
}
