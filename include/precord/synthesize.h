/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synthesize.h — records describing what already runs when recording
 * starts: COMM, FORK and MMAP2 of every task in scope (from /proc), the
 * kernel map and modules, ID_INDEX, FINISHED_INIT. Each record goes to an
 * emit callback, complete, with the evlist's sample_id trailer (zeroed:
 * time 0 so perf delivers it before any kernel record).
 */
#ifndef PRECORD_SYNTHESIZE_H
#define PRECORD_SYNTHESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"

struct evlist;
struct thread_map;

/* Take one complete record; 0 or -errno (which stops synthesis). */
typedef int (*synth_emit_fn)(void *ctx, const void *record, size_t size);

struct synth_opts {
	size_t		id_hdr_size;		/* evlist__id_hdr_size() */
	unsigned int	proc_map_timeout_ms;	/* 500, as perf */
	bool		build_id;		/* MMAP2 carry build ids (attr.build_id) */
	bool		mmap_data;		/* also non-exec mappings (perf -d) */
	bool		no_mmap;		/* --synth=task: COMM/FORK only */
	bool		no_task;		/* --synth=mmap: MMAP2 only */
};

/* [kernel.kallsyms]_text and one MMAP per module from /proc/modules. */
int synthesize__kernel_mmap(const struct synth_opts *o, synth_emit_fn emit, void *ctx);
int synthesize__modules(const struct synth_opts *o, synth_emit_fn emit, void *ctx);

/* COMM (+ FORK for non-leader threads) and MMAP2 for one process and its threads. */
int synthesize__process(const struct synth_opts *o, pid_t pid, synth_emit_fn emit, void *ctx);
/* Every process in /proc (system-wide). */
int synthesize__all(const struct synth_opts *o, synth_emit_fn emit, void *ctx);
/* The processes owning the threads of a thread map (-p/-t/forked command). */
int synthesize__thread_map(const struct synth_opts *o, const struct thread_map *threads,
			   synth_emit_fn emit, void *ctx);

int synthesize__id_index(struct evlist *evlist, synth_emit_fn emit, void *ctx);
int synthesize__finished_init(synth_emit_fn emit, void *ctx);
int synthesize__finished_round(synth_emit_fn emit, void *ctx);

/* Read the GNU build id of an ELF file: its length (<= 20) or -errno. */
int buildid__read(const char *path, u8 *id, size_t size);

#endif /* PRECORD_SYNTHESIZE_H */
