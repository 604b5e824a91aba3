/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse-events.h — turn perf's event syntax (-e) into evsels: software
 * events and their aliases, tracepoints "sys:name" with globs, modifiers
 * ":u" ":k", comma lists.
 */
#ifndef PRECORD_PARSE_EVENTS_H
#define PRECORD_PARSE_EVENTS_H

#include <stddef.h>

struct evlist;

struct parse_events_error {
	char	msg[512];	/* one line, starting "event '…' …", without "precord: " */
};

/*
 * Append the evsels that str names to evlist. attr fields set: type, config,
 * size, exclude_user/exclude_kernel from modifiers, and for tracepoints the
 * id from tracefs (evsel->tp_sys/tp_name set). Sampling fields are left to
 * the record configuration. Returns 0 or -errno with err->msg filled
 * (-ENOENT unknown event, -EINVAL bad syntax, -EACCES/-ENODEV tracefs).
 */
int parse_events(struct evlist *evlist, const char *str, struct parse_events_error *err);

/* The default event: cpu-clock here (no hardware PMU); cycles where one exists. */
int parse_events__default(struct evlist *evlist, struct parse_events_error *err);

#endif /* PRECORD_PARSE_EVENTS_H */
