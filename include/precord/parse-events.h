/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse-events.h — turn perf's event syntax (-e) into evsels: hardware,
 * software and cache events, raw and numeric ones, breakpoints,
 * tracepoints with globs, PMU events with sysfs format terms or by name,
 * groups, modifiers and event terms (parse-events.c lists the forms).
 */
#ifndef PRECORD_PARSE_EVENTS_H
#define PRECORD_PARSE_EVENTS_H

#include <stddef.h>
#include "precord/perf-file.h"

struct evlist;

struct parse_events_error {
	char	msg[512];	/* one line, starting "event '…' …", without "precord: " */
};

/*
 * Append the evsels that str names to evlist, as perf 6.1 parses them:
 * attr type and config (config1/2, bp_* for breakpoints), the exclude bits,
 * precise_ip, pinned and exclusive from the modifiers; exclude_guest set
 * when no modifier changes it (perf's default). Also evsel->leader,
 * nr_members and group_name for groups, sample_read/precise_max/weak_group
 * from S, P and W, evsel->terms from the event terms (period=, call-graph=
 * ...), tp_sys/tp_name for tracepoints. Names are perf's: the event's text
 * ("cs:u", "cpu/event=0x3c/"), "sys:name" for tracepoints, the name= term.
 * Sampling fields are left to the record configuration. Returns 0 or
 * -errno with err->msg filled (-ENOENT unknown event or PMU, -EINVAL bad
 * syntax or term, -EACCES/-ENODEV tracefs); on error nothing is added. err
 * may be NULL.
 */
int parse_events(struct evlist *evlist, const char *str, struct parse_events_error *err);

/*
 * The same with the PMUs of another sysfs directory (the layout of
 * /sys/bus/event_source/devices, PMU_SYSFS_ROOT; NULL: that one). For tests.
 */
int parse_events__sysfs(struct evlist *evlist, const char *str, const char *sysfs_root,
			struct parse_events_error *err);

/*
 * A branch filter as perf's parse_branch_str() reads it ("any_call,u"):
 * the PERF_SAMPLE_BRANCH_* bits ORed into *mode (only privilege levels:
 * any branch). 0, or -EINVAL for an unknown name.
 */
int parse_events__branch_str(const char *str, u64 *mode);

/*
 * The default event, as perf's: cycles (":u" when the kernel may not be
 * profiled) where a cpu PMU with a cycles event exists; else perf's fallback
 * as it ends up, cpu-clock with precise_ip 3 named from its attr
 * ("cpu-clock:ppp" as root, "cpu-clock:uhppp" with paranoid > 1).
 */
int parse_events__default(struct evlist *evlist, struct parse_events_error *err);

#endif /* PRECORD_PARSE_EVENTS_H */
