/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipe.h — perf's pipe format (perf record -o -, perf report -i -): the
 * 16-byte header, and the records that carry in the stream what a perf.data
 * file keeps in its header (attrs with their ids, event names, features,
 * tracing data), since a reader of a pipe cannot seek to it.
 */
#ifndef PRECORD_PIPE_H
#define PRECORD_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"
#include "precord/synthesize.h"

struct evlist;
struct header_env;

/* struct perf_pipe_file_header: magic, then its own size. */
struct pipe_file_header {
	u64	magic;		/* PERF_MAGIC */
	u64	size;		/* 16 */
};

/* PERF_RECORD_HEADER_FEATURE: the header, the feature bit, the payload as in a file. */
struct pipe_feature_record {
	struct perf_event_header	header;
	u64				feat_id;
};

/*
 * PERF_RECORD_HEADER_TRACING_DATA: `size` bytes follow the record (not
 * counted in header.size, which is 16): the tracing data, then zeros up to
 * a multiple of 8.
 */
struct pipe_tracing_record {
	struct perf_event_header	header;
	u32				size;
	u32				pad;
};

/* PERF_RECORD_EVENT_UPDATE's kinds (tools/lib/perf/include/perf/event.h). */
enum {
	PIPE_EVENT_UPDATE_UNIT	= 0,
	PIPE_EVENT_UPDATE_SCALE	= 1,
	PIPE_EVENT_UPDATE_NAME	= 2,
	PIPE_EVENT_UPDATE_CPUS	= 3,
};

/* The most a record holds: perf refuses to build a bigger one (u16 header.size). */
#define PIPE_RECORD_MAX		(0xffff - sizeof(struct perf_event_header))

/* Whether perf sends feature feat as a HEADER_FEATURE record in pipe mode. */
bool pipe__feature_is_sent(int feat);

/* The 16-byte header, to emit. 0 or emit's -errno. */
int pipe__write_header(synth_emit_fn emit, void *ctx);

/*
 * After the header, everything a perf.data header would say, in perf's
 * order: HEADER_ATTR for every evsel (its ids read already), HEADER_FEATURE
 * for every feature header__feature_payloads() builds with env that perf
 * sends in pipe mode, the end mark, HEADER_TRACING_DATA when the evlist has
 * tracepoints (env->tracing_data when set, else tracefs), and an
 * EVENT_UPDATE with each evsel's name. The synthesized records, FINISHED_INIT
 * and the data come after, from the caller. A feature too big for a record
 * is left out, as perf leaves it out; *dropped (when not NULL) gets a bit
 * per such feature (1 << feat). 0, -E2BIG when an evsel has more ids than a
 * HEADER_ATTR record holds, or -errno (the machine cannot be read, the
 * tracing data cannot be built, emit failed).
 */
int pipe__synthesize(struct evlist *evlist, const struct header_env *env,
		     synth_emit_fn emit, void *ctx, u64 *dropped);

#endif /* PRECORD_PIPE_H */
