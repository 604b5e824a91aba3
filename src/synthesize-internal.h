/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synthesize-internal.h — what synthesize.c shares with the parallel walk
 * (synthesize-parallel.c) and the kernel maps (synthesize-kernel.c): one
 * synthesis call's state and the steps that build a record. Nothing else
 * includes it.
 */
#ifndef PRECORD_SYNTHESIZE_INTERNAL_H
#define PRECORD_SYNTHESIZE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "precord/synthesize.h"
#include "precord/sample.h"

/* One synthesis call: options, where records go, and the record being built. */
struct synth {
	const struct synth_opts	*o;
	synth_emit_fn		emit;
	void			*ctx;
	int			emit_err;	/* first emit failure: stops everything */
	char			rec[sizeof(struct perf_record_mmap2) + SAMPLE_ID_MAX]
				__attribute__((aligned(8)));
};

/* A file's location: the test fixture's when opts->paths names one. */
#define SYNTH_PATH(_o, _field, _def) \
	((_o)->paths && (_o)->paths->_field ? (_o)->paths->_field : (_def))

/* /proc text read line by line, a line longer than LINE_BUF cut. */
#define LINE_BUF	16384	/* longest /proc line kept whole */
struct line_reader {
	int	fd;
	size_t	start, end;
	bool	eof;
	bool	skip_rest;	/* the line being read was too long: drop its tail */
	char	buf[LINE_BUF + 1];
};

void line_reader__init(struct line_reader *r, int fd);
/* A reader of the file at path (malloc'ed), or NULL and -errno in *err. */
struct line_reader *line_reader__open(const char *path, int *err);
/* Closes the file and frees the reader; NULL is fine. */
void line_reader__close(struct line_reader *r);
/* The next line, NUL-terminated, or NULL at the end. */
char *line_reader__next(struct line_reader *r);

/* s for one call: 0, or -EINVAL for options no record can have. */
int synth__init(struct synth *s, const struct synth_opts *o, synth_emit_fn emit, void *ctx);
/* The record of size bytes in s->rec, with its zeroed trailer, to emit. */
int synth__emit(struct synth *s, size_t size);
/* src into dst, NUL-padded to a multiple of 8 (at most max - 1 bytes): the padded length. */
size_t synth__put_str(char *dst, const char *src, size_t max);
/* "1234" → 1234; anything else → -1. */
pid_t synth__parse_pid(const char *name);
/* A number in base at p, up to sep: past sep, or NULL. */
char *synth__parse_num(char *p, int base, u64 *v, char sep);
/* A task that vanished while it was read, counted in opts->stats. */
void synth_stats__vanished(const struct synth_opts *o);
/* The records of the tasks tids of process pid (*any: one was written). */
int synth__tasks(struct synth *s, pid_t pid, const pid_t *tids, int nr, bool *any);

#endif /* PRECORD_SYNTHESIZE_INTERNAL_H */
