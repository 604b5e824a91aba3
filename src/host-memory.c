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
#include "precord/util.h"

/* The buddy allocator's highest order: the number of counts in /proc/buddyinfo's lines, less one. */
static int buddy_max_order(void)
{
	char line[512];
	const char *p;
	int n = 0;
	u64 count;
	FILE *f = fopen("/proc/buddyinfo", "re");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {	/* "Node 0, zone      DMA      1 1 ..." */
		p = strstr(line, "zone");
		p = p ? p + 4 : line;
		p += strspn(p, " ");
		p += strcspn(p, " ");		/* the zone's name */
		while (!parse__u64(p, 10, &count, &p))
			n++;
	}
	fclose(f);
	return n - 1;
}

/* Whether a virtio balloon offers free page reporting (feature bit 5, VIRTIO_BALLOON_F_REPORTING). */
static bool balloon_reports(void)
{
	char path[PATH_MAX], feat[160];
	struct dirent *de;
	bool found = false;
	u64 id;
	DIR *d = opendir("/sys/bus/virtio/devices");

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", de->d_name);
		if (file__read_u64(path, 0, &id) || id != 5)	/* VIRTIO_ID_BALLOON */
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
	int order;

	/* no such file: a kernel without free page reporting */
	if (file__read_int("/sys/module/page_reporting/parameters/page_reporting_order", 10,
			   &order))
		return false;
	/* above the highest order no free block is large enough to be reported */
	if (order < 0 || order > buddy_max_order())
		return false;
	return balloon_reports();
}
