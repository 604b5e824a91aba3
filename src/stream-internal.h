/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream-internal.h — what the files of the streaming thread share, and
 * nothing else includes. The module (include/precord/stream.h) is cut into
 * files by what they own:
 *
 *   stream.c         the thread's life and its pass over the rings
 *   stream-files.c   where the records go: writers, zstd, the merge's
 *                    index, --switch-output, overwrite snapshots
 *   stream-group.c   the adaptive layout: helpers, hand-overs of rings
 *
 * Every function here runs on the streaming thread named by its first
 * argument unless its comment says otherwise.
 */
#ifndef PRECORD_STREAM_INTERNAL_H
#define PRECORD_STREAM_INTERNAL_H

#include "precord/stream.h"
#include "precord/merge-index.h"

/* ---- stream.c ---- */

/* The counters others may read (struct stream_live), stored relaxed. */
void stream__publish(struct stream *s);
/* CLOCK_MONOTONIC in ns. */
u64 stream__now(void);
bool stream__is_helper(const struct stream *s);
/* Wake s from its poll (its ctl_fd); from any thread. */
void stream__wake(struct stream *s);
/* The poll set (and in a group the pinning) for the rings s reads now. */
void stream__rebuild(struct stream *s);
/* The rings s reads whose fd has not hung up. */
int stream__nr_alive(const struct stream *s);

/* ---- stream-files.c ---- */

/* ringbuf__read()'s sink: a run of records to the current file. */
int stream_sink(void *ctx, const void *data, size_t size);
/* The next read's records go to file slot `slot`. */
void stream__aim(struct stream *s, int slot);
/* --switch-output=SIZE: n more bytes written by this thread. */
void stream__count_shared(struct stream *s, u64 n);
/* The current files are full: the rings wait for a switch. */
bool stream__file_full(const struct stream *s);
/* One file: the header's data size, every STREAM_SIZE_STEP, or now (always). */
void stream__note_size(struct stream *s, bool always);
/* The overwrite rings' snapshot; bytes moved or -errno. */
ssize_t stream__read_backward(struct stream *s);
/* What the writers hold, to the files, before sleeping; 0 or -errno. */
int stream__flush_idle(struct stream *s);
int stream__open_writers(struct stream *s);
int stream__close_writers(struct stream *s);
/* SWITCH: drain into the current files, then open next_fds; 0 or -errno. */
int stream__switch_files(struct stream *s);

/* ---- stream-group.c ---- */

/* Pin the calling member to the CPUs of the rings it reads. */
void stream__pin(struct stream *s);
/* At the start of a pass: which rings are this member's now; the lead: a helper's error. */
int stream__sync(struct stream *s);
/* The rule's verdict on the pass just made, acted on; true when the thread retired. */
bool stream__adapt(struct stream *s, bool woke);
/* A helper leaves: every ring back to the lead. */
void stream__retire(struct stream *s, u64 now, enum stream_run_end end, int err);
/* The lead, leaving: every helper stopped and joined, every ring its own again. */
void stream__stop_helpers(struct stream *s);

#endif /* PRECORD_STREAM_INTERNAL_H */
