// SPDX-License-Identifier: GPL-2.0
/*
 * host-memory.c — whether the memory this machine frees goes back to a
 * host: a virtual machine whose virtio balloon reports free pages (free
 * page reporting). Read once per recording from sysfs and /proc, on the
 * main thread; the answer decides whether a merge consumes its inputs
 * (merge-journal.c), where rewriting freed memory costs a host fault.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/host-memory.h"

/* The buddy allocator's highest order: the number of counts in /proc/buddyinfo's lines, less one. */
static int buddy_max_order(void)
{
	char line[512], *p, *end;
	int n = 0;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {	/* "Node 0, zone      DMA      1 1 ..." */
		p = strstr(line, "zone");
		p = p ? p + 4 : line;
		p += strspn(p, " ");
		p += strcspn(p, " ");		/* the zone's name */
		for (;;) {
			strtoul(p, &end, 10);
			if (end == p)
				break;
			n++;
			p = end;
		}
	}
	fclose(f);
	return n - 1;
}

/* Whether a virtio balloon offers free page reporting (feature bit 5, VIRTIO_BALLOON_F_REPORTING). */
static bool balloon_reports(void)
{
	char path[PATH_MAX], id[16], feat[160];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/bus/virtio/devices");

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
		if (strtoul(id, NULL, 0) != 5)	/* VIRTIO_ID_BALLOON */
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(feat, sizeof(feat), f) && strlen(feat) > 5 && feat[5] == '1';
		fclose(f);
	}
	closedir(d);
	return found;
}

bool memory_host_reclaims(void)
{
	long order = -1;
	FILE *f = fopen("/sys/module/page_reporting/parameters/page_reporting_order", "r");

	if (!f)
		return false;	/* a kernel without free page reporting */
	if (fscanf(f, "%ld", &order) != 1)
		order = -1;
	fclose(f);
	/* above the highest order no free block is large enough to be reported */
	if (order < 0 || order > buddy_max_order())
		return false;
	return balloon_reports();
}
