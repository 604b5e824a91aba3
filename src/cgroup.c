// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c — the cgroups of -G (and of --all-cgroups' synthesis): the
 * hierarchy perf uses, found in /proc/mounts, and one cgroup's directory
 * opened for perf_event_open(), whose pid argument it becomes with
 * PERF_FLAG_PID_CGROUP.
 *
 * Runs on the main thread at set-up; the evsels that share a cgroup hold
 * a reference each, dropped when they are deleted. No locking: nothing
 * here is reached from another thread (the workers that open the events
 * only read fd).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precord/cgroup.h"

int cgroup__mountpoint(const char *mounts, char *buf, size_t size)
{
	FILE *f = fopen(mounts ? mounts : "/proc/mounts", "re");
	char line[PATH_MAX + 512], mnt[PATH_MAX], type[64], opts[512], v2[PATH_MAX] = "";
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *o, *save = NULL;

		if (sscanf(line, "%*s %4095s %63s %511s", mnt, type, opts) != 3)
			continue;
		if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mnt);
		if (strcmp(type, "cgroup"))
			continue;
		for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "perf_event")) {
				snprintf(buf, size, "%s", mnt);
				err = 0;
				break;
			}
	}
	fclose(f);
	if (err && v2[0]) {
		snprintf(buf, size, "%s", v2);
		err = 0;
	}
	return err;
}

struct cgroup *cgroup__open(const char *mounts, const char *name, char *path, size_t size)
{
	char mnt[PATH_MAX], full[PATH_MAX * 2];
	struct cgroup *cgrp;
	int err;

	if (path && size)
		path[0] = '\0';
	err = cgroup__mountpoint(mounts, mnt, sizeof(mnt));
	if (err) {
		errno = -err;
		return NULL;
	}
	snprintf(full, sizeof(full), "%s/%s", mnt, name);
	if (path && size)
		snprintf(path, size, "%s", full);
	cgrp = calloc(1, sizeof(*cgrp));
	if (!cgrp)
		return NULL;
	cgrp->name = strdup(name);
	cgrp->fd = open(full, O_RDONLY | O_CLOEXEC);
	if (!cgrp->name || cgrp->fd < 0) {
		err = cgrp->name ? errno : ENOMEM;
		free(cgrp->name);
		free(cgrp);
		errno = err;
		return NULL;
	}
	cgrp->refcnt = 1;
	return cgrp;
}

struct cgroup *cgroup__get(struct cgroup *cgrp)
{
	if (cgrp)
		cgrp->refcnt++;
	return cgrp;
}

void cgroup__put(struct cgroup *cgrp)
{
	if (!cgrp || --cgrp->refcnt > 0)
		return;
	close(cgrp->fd);
	free(cgrp->name);
	free(cgrp);
}
