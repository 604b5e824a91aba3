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
struct perf_event_attr;

struct parse_events_error {
	char	msg[512];	/* one line, starting "event '…' …", without "precord: " */
};

/*
 * Append the evsels that str names to evlist. attr fields set: type, config,
 * size, and from the modifiers (perf's rules) exclude_user/kernel/hv/guest/
 * host/idle and precise_ip; with no modifier exclude_guest is 1, as perf
 * sets it. For tracepoints the id from tracefs, with evsel->tp_sys/tp_name
 * set (malloc'ed, freed by evsel__delete()). Names are perf's: the term as
 * typed ("cs:u"), "sys:name" for tracepoints. Sampling fields are left to
 * the record configuration. Returns 0 or -errno with err->msg filled
 * (-ENOENT unknown event, -EINVAL bad syntax, -EACCES/-ENODEV tracefs); on
 * error nothing is added. err may be NULL.
 */
int parse_events(struct evlist *evlist, const char *str, struct parse_events_error *err);

/*
 * The default event, as perf's: cycles (":u" when the kernel may not be
 * profiled) where a cpu PMU with a cycles event exists; else perf's fallback
 * as it ends up, cpu-clock with precise_ip 3 named from its attr
 * ("cpu-clock:ppp" as root, "cpu-clock:uhppp" with paranoid > 1).
 */
int parse_events__default(struct evlist *evlist, struct parse_events_error *err);

/*
 * The modifiers perf appends to a name it makes up from an attr
 * (evsel__add_modifiers()): "" or ":" and the letters, such as ":uh" for
 * exclude_kernel, ":HG" for a dummy that counts host and guest.
 */
void parse_events__modifier_suffix(const struct perf_event_attr *attr, char *buf, size_t size);

#endif /* PRECORD_PARSE_EVENTS_H */
