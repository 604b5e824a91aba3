/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs.h — finding (and, as root, mounting) tracefs, reading tracepoint
 * ids and formats, and writing the TRACING_DATA feature perf needs to print
 * tracepoint fields.
 */
#ifndef PRECORD_TRACEFS_H
#define PRECORD_TRACEFS_H

#include <stddef.h>
#include <sys/types.h>

struct evlist;

/*
 * The tracefs mount point, mounting it on /sys/kernel/tracing when it is not
 * mounted and we may. NULL with errno set (EACCES/ENODEV) when unavailable.
 */
const char *tracefs__path(void);

/* The numeric id of sys:name, or -errno (-ENOENT: no such tracepoint). */
int tracefs__event_id(const char *sys, const char *name);

/*
 * Call fn for every tracepoint whose subsystem and name match the globs
 * (fnmatch), in tracefs's readdir order (perf's order). fn returns 0 to go
 * on, > 0 to stop after this one, or -errno to stop with that error.
 * Returns how many were passed to fn, or -errno.
 */
int tracefs__for_each_event(const char *sys_glob, const char *name_glob,
			    int (*fn)(void *ctx, const char *sys, const char *name), void *ctx);

/*
 * Write the TRACING_DATA payload (perf's tracing_data format: header page,
 * ftrace and event formats of the recorded tracepoints, kallsyms, printk
 * formats, saved cmdlines) to fd at its current offset. Returns bytes
 * written, 0 when the evlist has no tracepoint (nothing written: perf then
 * leaves the TRACING_DATA feature out), or -errno.
 */
ssize_t tracefs__write_tracing_data(int fd, struct evlist *evlist);

/*
 * The same payload in memory: *bufp (malloc'ed, the caller frees it) gets
 * the bytes; returns their count, 0 (and *bufp NULL) when the evlist has no
 * tracepoint, or -errno. For pipe mode's PERF_RECORD_HEADER_TRACING_DATA or
 * a writer that wants the size first.
 */
ssize_t tracefs__tracing_data(struct evlist *evlist, char **bufp);

#endif /* PRECORD_TRACEFS_H */
