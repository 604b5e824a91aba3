// SPDX-License-Identifier: GPL-2.0
/*
 * pipe.c — the start of a perf pipe-mode stream: what a perf.data file
 * keeps in its header, sent as records, because whoever reads a pipe
 * (perf report -i -, perf inject) cannot seek back to a header.
 *
 * The stream, laid out as perf 6.1 lays it out (perf_event__synthesize_for_pipe()
 * and perf_event__synthesize_extra_attr() in tools/perf/util/synthetic-events.c,
 * read back by perf_event__process_attr(), perf_event__process_feature() and
 * perf_event__process_tracing_data() in tools/perf/util/header.c):
 *
 *   {"PERFILE2", 16}                     the whole file header
 *   HEADER_ATTR        per evsel         attr (attr.size = this build's
 *                                        struct), then its ids: the reader
 *                                        takes (size - 8 - attr.size) / 8
 *   HEADER_FEATURE     per feature       {u64 feat_id, payload as in a file}
 *   HEADER_FEATURE     HEADER_LAST_FEATURE, no payload: the end mark
 *   HEADER_TRACING_DATA (tracepoints)    {u32 size, u32 pad}, then `size`
 *                                        bytes outside the record: the
 *                                        tracing data and zeros to 8 bytes
 *   EVENT_UPDATE NAME  per evsel         the name, under the evsel's first id
 *
 * then, from the caller, what a file's data section starts with (ID_INDEX,
 * kernel and task maps), FINISHED_INIT, the ring data with FINISHED_ROUND,
 * and LOST_SAMPLES at the end: nothing is ever rewritten.
 *
 * Which features: the payloads header.c builds for a file
 * (header__feature_payloads(), with the env the file's start gets), less
 * the ones perf never sends in a pipe (its FEAT_OPN entries: BUILD_ID,
 * CACHE, DIR_FORMAT...). SAMPLE_TIME goes as perf sends it, with the zeros
 * known at the start; COMPRESSED (-z) with the ratio unknown yet (0).
 *
 * Limits, perf's own: header.size is a u16, so a feature whose payload
 * does not fit in a record is left out (perf's do_write() refuses it with
 * E2BIG): EVENT_DESC of a very large evlist, whose names the EVENT_UPDATE
 * records still carry; an attr with more ids than a record holds is an
 * error, as in perf. The end mark is this build's HEADER_LAST_FEATURE:
 * perf report takes the mark only when it equals its own, so a perf built
 * with more feature bits than precord knows (or fewer) rejects the stream,
 * as it rejects the streams of perf versions other than its own.
 *
 * Runs on the thread that writes the start of the stream (main); builds
 * each record in memory and hands it to emit; no state outlives a call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "precord/pipe.h"
#include "precord/evlist.h"
#include "precord/header.h"
#include "precord/tracefs.h"

/*
 * perf 6.1's struct perf_record_event_update: header, type, id, and a
 * 16-byte union the name starts in. perf sizes a NAME record as that plus
 * the name with its NUL, rounded up to 8.
 */
#define EVENT_UPDATE_HEAD	(sizeof(struct perf_event_header) + 2 * sizeof(u64))
#define EVENT_UPDATE_STRUCT	(EVENT_UPDATE_HEAD + 16)

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

bool pipe__feature_is_sent(int feat)
{
	switch (feat) {
	case HEADER_RESERVED:
	case HEADER_TRACING_DATA:	/* a record of its own */
	case HEADER_BUILD_ID:
	case HEADER_BRANCH_STACK:
	case HEADER_AUXTRACE:
	case HEADER_STAT:
	case HEADER_CACHE:
	case HEADER_DIR_FORMAT:
	case HEADER_HYBRID_TOPOLOGY:
		return false;
	default:
		return feat > HEADER_RESERVED && feat < HEADER_LAST_FEATURE;
	}
}

int pipe__write_header(synth_emit_fn emit, void *ctx)
{
	const struct pipe_file_header hdr = { .magic = PERF_MAGIC, .size = sizeof(hdr) };

	return emit(ctx, &hdr, sizeof(hdr));
}

static int pipe__emit_attr(const struct evsel *evsel, synth_emit_fn emit, void *ctx)
{
	size_t ids = sizeof(u64) * (size_t)evsel->nr_ids;
	size_t size = sizeof(struct perf_event_header) + align8(sizeof(struct perf_event_attr)) + ids;
	struct perf_event_header *h;
	struct perf_event_attr *attr;
	int err;

	if (size > 0xffff)
		return -E2BIG;
	h = calloc(1, size);
	if (!h)
		return -ENOMEM;
	h->type = PERF_RECORD_HEADER_ATTR;
	h->size = (u16)size;
	attr = (struct perf_event_attr *)(h + 1);
	*attr = evsel->attr;
	attr->size = sizeof(*attr);
	memcpy((char *)attr + align8(sizeof(*attr)), evsel->ids, ids);
	err = emit(ctx, h, size);
	free(h);
	return err;
}

static int pipe__emit_feature(const struct header_payload *pay, synth_emit_fn emit, void *ctx,
			      u64 *dropped)
{
	size_t size = sizeof(struct pipe_feature_record) + pay->size;
	struct pipe_feature_record *rec;
	int err;

	if (size > PIPE_RECORD_MAX) {
		*dropped |= 1ULL << pay->feat;
		return 0;
	}
	rec = malloc(size);
	if (!rec)
		return -ENOMEM;
	*rec = (struct pipe_feature_record){
		.header = { .type = PERF_RECORD_HEADER_FEATURE, .size = (u16)size },
		.feat_id = (u64)pay->feat,
	};
	memcpy(rec + 1, pay->data, pay->size);
	err = emit(ctx, rec, size);
	free(rec);
	return err;
}

static int pipe__emit_features(struct evlist *evlist, const struct header_env *env,
			       synth_emit_fn emit, void *ctx, u64 *dropped)
{
	const struct pipe_feature_record end = {
		.header = { .type = PERF_RECORD_HEADER_FEATURE, .size = sizeof(end) },
		.feat_id = HEADER_LAST_FEATURE,
	};
	struct header_payload *feats;
	int nr, i, err;

	err = header__feature_payloads(evlist, env, &feats, &nr);
	if (err)
		return err;
	for (i = 0; !err && i < nr; i++)
		if (pipe__feature_is_sent(feats[i].feat))
			err = pipe__emit_feature(&feats[i], emit, ctx, dropped);
	header_payloads__free(feats, nr);
	return err ? err : emit(ctx, &end, sizeof(end));
}

/* The tracing data in memory: env's writer (tests) through a memfd, else tracefs's. */
static ssize_t pipe__tracing_blob(struct evlist *evlist, const struct header_env *env,
				  char **bufp)
{
	ssize_t n;
	int fd;

	*bufp = NULL;
	if (!env || !env->tracing_data)
		return tracefs__tracing_data(evlist, bufp);
	fd = memfd_create("precord-tracing", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = env->tracing_data(fd, evlist);
	if (n > 0) {
		*bufp = malloc((size_t)n);
		if (!*bufp)
			n = -ENOMEM;
		else if (pread(fd, *bufp, (size_t)n, 0) != n)
			n = -EIO;
	}
	close(fd);
	if (n <= 0) {
		free(*bufp);
		*bufp = NULL;
	}
	return n;
}

/* The record, the tracing data and its padding, handed to emit as one piece. */
static int pipe__emit_tracing(struct evlist *evlist, const struct header_env *env,
			      synth_emit_fn emit, void *ctx)
{
	struct pipe_tracing_record *rec;
	size_t aligned, size;
	char *blob;
	ssize_t n = pipe__tracing_blob(evlist, env, &blob);
	int err;

	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;	/* tracepoints, but no formats */
	aligned = align8((size_t)n);
	if (aligned > UINT32_MAX) {
		free(blob);
		return -E2BIG;
	}
	size = sizeof(*rec) + aligned;
	rec = calloc(1, size);
	if (!rec) {
		free(blob);
		return -ENOMEM;
	}
	rec->header.type = PERF_RECORD_HEADER_TRACING_DATA;
	rec->header.size = sizeof(*rec);
	rec->size = (u32)aligned;
	memcpy(rec + 1, blob, (size_t)n);
	free(blob);
	err = emit(ctx, rec, size);
	free(rec);
	return err;
}

static int pipe__emit_name(const struct evsel *evsel, synth_emit_fn emit, void *ctx)
{
	size_t len = strlen(evsel->name) + 1, size = align8(EVENT_UPDATE_STRUCT + len);
	struct perf_event_header *h;
	u64 *p;
	int err;

	if (size > PIPE_RECORD_MAX)
		return 0;	/* the attr still names it, as perf would */
	h = calloc(1, size);
	if (!h)
		return -ENOMEM;
	h->type = PERF_RECORD_EVENT_UPDATE;
	h->size = (u16)size;
	p = (u64 *)(h + 1);
	p[0] = PIPE_EVENT_UPDATE_NAME;
	p[1] = evsel->ids[0];
	memcpy(p + 2, evsel->name, len);
	err = emit(ctx, h, size);
	free(h);
	return err;
}

int pipe__synthesize(struct evlist *evlist, const struct header_env *env,
		     synth_emit_fn emit, void *ctx, u64 *dropped)
{
	struct evsel *evsel;
	u64 none = 0;
	int i, err = 0;

	if (!dropped)
		dropped = &none;
	*dropped = 0;
	evlist__for_each_evsel(evlist, evsel, i) {
		err = pipe__emit_attr(evsel, emit, ctx);
		if (err)
			return err;
	}
	err = pipe__emit_features(evlist, env, emit, ctx, dropped);
	if (!err && evlist__has_tracepoints(evlist))
		err = pipe__emit_tracing(evlist, env, emit, ctx);
	evlist__for_each_evsel(evlist, evsel, i) {
		if (err)
			break;
		/* a name lets perf say which event it is; one with no id cannot be named */
		if (evsel->name && evsel->nr_ids > 0)
			err = pipe__emit_name(evsel, emit, ctx);
	}
	return err;
}
