/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr-filter.h — --filter for an event of a PMU with address filters
 * (src/addr-filter.c): perf's filter syntax, with symbol names, turned into
 * the kernel's (numbers only) that PERF_EVENT_IOC_SET_FILTER takes.
 *
 *   filter|start|stop|tracestop <start symbol or address> [/ <end symbol or size>] [@<file name>]
 *
 * several separated by space or comma. A symbol is a function of the file
 * (its .symtab and .dynsym, as file offsets) or, without a file, of the
 * kernel (kallsyms); "sym #N" picks the N'th of that name, "#0", "#g" or
 * "#G" the global one; "*" is the whole file or kernel text.
 */
#ifndef PRECORD_ADDR_FILTER_H
#define PRECORD_ADDR_FILTER_H

#include <stddef.h>

/*
 * filter resolved into *out (malloc'd: "filter 0x1139/0x2a@/path,stop
 * 0x...", perf's string for the same filter), for a PMU that takes max_nr
 * filters. kallsyms: the kernel's symbols (NULL: /proc/kallsyms). 0, or
 * -errno with one line in msg (perf's words: a symbol not found, several
 * of that name and their #N, too many filters, bad syntax).
 */
int addr_filter__resolve(const char *filter, int max_nr, const char *kallsyms, char **out,
			 char *msg, size_t len);

struct evsel;

/*
 * One --filter's text added to evsel's: joined by " , ", so that the last
 * word of each (perf's grammar ends a symbol name at a space only) stays
 * apart from the next filter's. 0 or -ENOMEM.
 */
int addr_filter__append(struct evsel *evsel, const char *filter);

/*
 * The filter --filter gave evsel (evsel->filter, several joined by commas)
 * resolved in place when its PMU takes address filters (nr_addr_filters
 * under pmu_root, NULL: the machine's sysfs); left as it is otherwise. 0,
 * or -errno with one line in msg.
 */
int addr_filter__apply(struct evsel *evsel, const char *pmu_root, const char *kallsyms,
		       char *msg, size_t len);

#endif /* PRECORD_ADDR_FILTER_H */
