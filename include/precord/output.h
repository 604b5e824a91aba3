/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h — the recording's output path: what is there before it, what is
 * kept aside, and how the new file is created without following anything
 * someone else planted.
 */
#ifndef PRECORD_OUTPUT_H
#define PRECORD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

enum output_kind {
	OUTPUT_NONE,		/* nothing there */
	OUTPUT_EMPTY,		/* an empty regular file: written over */
	OUTPUT_FILE,		/* a regular file with data: kept as FILE.old */
	OUTPUT_RECORDING,	/* a directory of perf's layout: kept as FILE.old */
	OUTPUT_LINK,		/* a symbolic link to no device: the link kept as FILE.old */
	OUTPUT_DEVICE,		/* a character or block device (-o /dev/null): written into */
	OUTPUT_FIFO,		/* a FIFO: perf's pipe mode */
	OUTPUT_OTHER,		/* a directory that is no recording, a socket: refused */
};

/*
 * What stands at path. A symbolic link is followed only to see whether it
 * leads to a device or FIFO (-o /dev/stdout); any other link is a link.
 */
enum output_kind output__kind(const char *path);

/*
 * Whether path is a directory holding a recording's data and data.N files
 * and nothing else but a --kcore copy (kcore_dir with kallsyms, modules
 * and kcore).
 */
bool output__is_recording_dir(const char *path);

/*
 * Make room for a new output at path, as perf record does: a regular file
 * with data, a recording directory or a symbolic link is renamed to
 * path.old, after whatever path.old was is removed (a link or file
 * unlinked, a recording directory emptied and removed; any other directory
 * is left alone and refused). Nothing is followed. 0, or -errno with one
 * line in msg.
 */
int output__keep_old(const char *path, char *msg, size_t len);

/*
 * Create the output file at path, mode 0600, never through a symbolic
 * link: a new file, or an empty regular file of ours written over. The fd,
 * or -errno with one line in msg.
 */
int output__create(const char *path, char *msg, size_t len);

/*
 * Remove a recording directory made by precord or perf: its data, data.N,
 * kcore_dir's three files and kcore_dir, and merge.journal (the journal
 * last), then itself, without following a
 * link at dir or in it. keep: a file that stays even if it is one of those
 * (a merge's output), or NULL. 0, or -errno: -ENOTEMPTY when it holds
 * anything else, which stays.
 */
int output__remove_dir(const char *dir, const char *keep);

#endif /* PRECORD_OUTPUT_H */
