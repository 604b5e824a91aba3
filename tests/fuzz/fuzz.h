/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h — what the libFuzzer targets in tests/fuzz/ share: a scratch
 * directory per process, writing an input out as a file, and the container
 * that splits one input into the files of a perf directory.
 *
 * The container: an optional preamble, then files, each introduced by the
 * 8 bytes FUZZ_MARK and one byte that names it; a file's bytes run to the
 * next mark or to the end of the input. Marks rather than lengths, so that
 * the fuzzer's insertions and deletions inside one file leave the others
 * whole. Names: FUZZ_FILE_DATA "data", FUZZ_FILE_JOURNAL "merge.journal",
 * FUZZ_FILE_PARTIAL the partial output the journal names, and
 * FUZZ_FILE_DATA_N + N "data.N". A name given twice keeps its first file.
 */
#ifndef PRECORD_FUZZ_H
#define PRECORD_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FUZZ_MARK		"PRECFUZZ"
#define FUZZ_MARK_LEN		8

enum fuzz_file {
	FUZZ_FILE_DATA		= 0,
	FUZZ_FILE_JOURNAL	= 1,
	FUZZ_FILE_PARTIAL	= 2,
	FUZZ_FILE_DATA_N	= 3,	/* data.0; data.N is FUZZ_FILE_DATA_N + N */
};

/* The name of the partial output in the unpacked directory. */
#define FUZZ_PARTIAL_NAME	"partial.out"

/*
 * The journal's head as it is in the container: merge.journal's head
 * without its path (PATH_MAX bytes), which the unpacking fills in with the
 * directory's FUZZ_PARTIAL_NAME, so that a journal can name no other file.
 */
#define FUZZ_JOURNAL_HEAD	24

/*
 * This process's scratch directory, $TMPDIR/precord-fuzz.PID (created on
 * first use, removed at exit, and by the next target that starts when the
 * process died); aborts on failure.
 */
const char *fuzz__dir(void);

/* Write size bytes to path (created or truncated); aborts on failure. */
void fuzz__write_file(const char *path, const uint8_t *data, size_t size);

/* Whether the input starts with a container mark. */
bool fuzz__is_container(const uint8_t *data, size_t size);

/*
 * Unpack a container into dir (which must exist and be empty): every file
 * it holds. The bytes before the first mark: *preamble, *preamble_len.
 */
void fuzz__unpack(const uint8_t *data, size_t size, const char *dir,
		  const uint8_t **preamble, size_t *preamble_len);

/* A property of the code under test that must hold: else say what and abort. */
void fuzz__check(bool ok, const char *what);

/* PRECORD_FUZZ_VERBOSE set: the targets say what the code under test returned. */
bool fuzz__verbose(void);

/* Remove everything under dir, dir itself too when self is true. */
void fuzz__clear(const char *dir, bool self);

#endif /* PRECORD_FUZZ_H */
