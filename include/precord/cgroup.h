/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup.h — the cgroups perf record names: where perf finds them (a
 * cgroup v1 hierarchy with the perf_event controller, else the first
 * cgroup2 mount), and a cgroup opened for -G, refcounted among the evsels
 * that count in it (perf's struct cgroup).
 */
#ifndef PRECORD_CGROUP_H
#define PRECORD_CGROUP_H

#include <stddef.h>

struct cgroup {
	int	refcnt;		/* main thread only: set-up and teardown */
	int	fd;		/* the cgroup's directory, O_RDONLY: perf_event_open()'s pid */
	char	*name;		/* as -G gave it, relative to the mount */
};

/*
 * The mount perf reads cgroups from, per mounts (a /proc/mounts-format
 * file; NULL: /proc/mounts) into buf. 0, -ENOENT (no such mount) or -errno.
 */
int cgroup__mountpoint(const char *mounts, char *buf, size_t size);

/*
 * Open cgroup NAME under that mount: the cgroup, or NULL with errno set.
 * path (may be NULL) gets the directory tried, and stays "" when there is
 * no cgroup mount at all.
 */
struct cgroup *cgroup__open(const char *mounts, const char *name, char *path, size_t size);
struct cgroup *cgroup__get(struct cgroup *cgrp);
void cgroup__put(struct cgroup *cgrp);	/* accepts NULL */

#endif /* PRECORD_CGROUP_H */
