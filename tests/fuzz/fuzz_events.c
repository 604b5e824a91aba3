// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_events.c — libFuzzer target of the -e parser on a new evlist. The
 * input is the event string (up to the first NUL). PMUs come from a sysfs
 * tree the target writes once into its scratch directory (a "cpu" PMU with
 * format terms and named events, two uncore PMUs, msr), so PMU terms, named
 * events, "?" parameters and PMU prefixes are reached on any host;
 * tracepoints read the host's tracefs (the events directory and the id
 * files), and only read. A string that fails must add nothing; one that
 * parses adds evsels with names, in groups whose links hold together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "fuzz.h"

static char sysfs_root[4096];

static void put(const char *rel, const char *text)
{
	char path[4096], *slash;

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	for (slash = strchr(path + strlen(sysfs_root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	fuzz__write_file(path, (const uint8_t *)text, strlen(text));
}

static void sysfs__write(void)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s/sysfs", fuzz__dir());
	mkdir(sysfs_root, 0700);
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7\n");
	put("cpu/format/umask", "config:8-15\n");
	put("cpu/format/edge", "config:18\n");
	put("cpu/format/cmask", "config:24-31\n");
	put("cpu/format/ldlat", "config1:0-15\n");
	put("cpu/format/fe", "config2:0-23\n");
	put("cpu/events/cpu-cycles", "event=0x3c\n");
	put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("cpu/events/topdown-fe-bound", "event=0x00,umask=0x82\n");
	put("cpu/events/slots", "event=0x00,umask=0x4\n");
	put("cpu/events/slots.scale", "2\n");
	put("cpu/events/cyc-p", "event=0x3c,period=2000003\n");
	put("cpu/events/ev-param", "event=0x10,umask=?\n");
	put("cpu/events/broken", "event=,,\n");
	put("uncore_imc_0/type", "20\n");
	put("uncore_imc_0/format/event", "config:0-7\n");
	put("uncore_imc_0/events/cas_count_read", "event=0x04\n");
	put("uncore_imc_0/cpumask", "0\n");
	put("uncore_imc_1/type", "21\n");
	put("uncore_imc_1/format/event", "config:0-7\n");
	put("msr/type", "10\n");
	put("msr/format/event", "config:0-63\n");
	put("msr/events/tsc", "event=0x00\n");
	put("software/type", "1\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_events_error err;
	struct evlist *evlist = evlist__new();
	struct evsel *evsel;
	char *str = strndup((const char *)data, size);
	int i, j, members;

	if (!sysfs_root[0])
		sysfs__write();
	fuzz__check(evlist && str, "out of memory");
	if (parse_events__sysfs(evlist, str, sysfs_root, &err)) {
		fuzz__check(evlist->nr_entries == 0, "a failed string added evsels");
		fuzz__check(memchr(err.msg, 0, sizeof(err.msg)) != NULL, "an unterminated message");
	} else {
		evlist__for_each_evsel(evlist, evsel, i) {
			fuzz__check(evsel->name && evsel->name[0], "an evsel without a name");
			fuzz__check(evsel->leader && evsel->leader->evlist == evlist &&
				    evsel->leader->idx <= i && evsel__is_group_leader(evsel->leader),
				    "a leader outside the evlist");
			if (!evsel__is_group_leader(evsel))
				continue;
			for (j = i, members = 0; j < evlist->nr_entries; j++)
				members += evlist->entries[j]->leader == evsel;
			fuzz__check(members == evsel->nr_members, "a group of the wrong size");
		}
	}
	evlist__delete(evlist);
	free(str);
	return 0;
}
