// SPDX-License-Identifier: GPL-2.0
/*
 * merge-output.c — the file a merge writes: created next to the output,
 * its header and attrs, its features at the end.
 *
 * The output is written once, front to back, into a file next to it that
 * has no name (O_TMPFILE) until it must outlive the process: named
 * FILE.XXXXXX (merge__name_output()) and renamed into place by merge.c, or
 * named by the consuming merge's journal before it punches anything.
 * Where O_TMPFILE is refused, mkstemp() names it from the start.
 *
 * Data flow: merge__open_output() → merge__start_output() (header, ids,
 * attrs as in DIR/data; the writer the records go through, merge-records.c)
 * → merge__finish_output() (DIR/data's features, SAMPLE_TIME from the
 * merged samples, COMPRESSED as the output is; the header rewritten).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "merge-internal.h"

/* What follows "FILE." in the output's temporary name: six of these, as mkstemp() makes. */
const char merge_tmp_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* path's directory into dir ("." when it names none, "/" for "/f"); returns its last name. */
const char *path__split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return path;
	}
	snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return slash + 1;
}

/*
 * How much of the output's last name its partial file OUT.XXXXXX keeps:
 * all of it, or what NAME_MAX leaves room for beside ".XXXXXX".
 */
int merge__tmp_base_len(const char *base)
{
	size_t n = strlen(base), max = NAME_MAX - sizeof(".XXXXXX") + 1;

	return (int)(n < max ? n : max);
}

/* ---- the output file ---- */

int merge__open_output(struct merge *m, const char *out, char *tmp, size_t len)
{
	char dir[PATH_MAX];
	const char *base = path__split(out, dir, sizeof(dir));

	/* beside the output; a name near NAME_MAX is shortened to leave room for the suffix */
	if (snprintf(tmp, len, "%.*s%.*s.XXXXXX", (int)(base - out), out, merge__tmp_base_len(base),
		     base) >= (int)len) {
		merge__error(m, "the output name '%s' is too long", out);
		return -ENAMETOOLONG;
	}
	m->tmp = tmp;
	/* naming it later goes through /proc/self/fd (no CAP_DAC_READ_SEARCH needed) */
	if (access("/proc/self/fd", X_OK) == 0) {
		m->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (m->fd >= 0)
			return 0;
	}
	m->fd = mkstemp(tmp);
	if (m->fd < 0) {
		int err = -errno;

		merge__error(m, "cannot create %s: %s", tmp, strerror(errno));
		return err;
	}
	m->tmp_named = true;
	return 0;
}

/*
 * Give the unnamed output m->tmp's name: FILE. and six characters that no
 * file there has yet (linkat() never replaces one). 0 or -errno.
 */
int merge__name_output(struct merge *m)
{
	char proc[64];
	size_t n = strlen(m->tmp);
	unsigned int seed;
	int tries, i;

	if (m->tmp_named)
		return 0;
	seed = (unsigned int)getpid() ^ (unsigned int)clock__now_ns();
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", m->fd);
	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 6; i++)
			m->tmp[n - 6 + i] = merge_tmp_chars[rand_r(&seed) %
							    (sizeof(merge_tmp_chars) - 1)];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, m->tmp, AT_SYMLINK_FOLLOW) == 0) {
			m->tmp_named = true;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return -errno;
}

int merge__start_output(struct merge *m, int comp_level, u64 *data_offset)
{
	int err = header__write_start_raw(m->fd, &m->attrs, data_offset);

	if (!err)
		err = writer__open_size(&m->w, WRITER_WRITE, m->fd, *data_offset, MERGE_WRITE_BUF);
	if (!err) {
		m->iov = malloc(sizeof(*m->iov) * MERGE_IOV);
		m->copy = malloc(MERGE_COPY_BUF);
		if (!m->iov || !m->copy)
			err = -ENOMEM;
	}
	if (err || comp_level <= 0)
		return err;
	m->zc = zcomp__new(comp_level);
	if (!m->zc)
		return errno ? -errno : -ENOMEM;
	m->chunk = malloc(ZCOMP_MMAP_LEN);
	return m->chunk ? 0 : -ENOMEM;
}

/* HEADER_COMPRESSED as perf record writes it: version, type (zstd), level, ratio, mmap_len. */
static void merge__comp_payload(const struct merge *m, int level, u32 out[5])
{
	out[0] = 0;
	out[1] = 1;
	out[2] = (u32)level;
	out[3] = zcomp__ratio(zcomp__bytes_in(m->zc), zcomp__bytes_out(m->zc));
	out[4] = ZCOMP_MMAP_LEN;
}

/*
 * DIR/data's features for the merged file: DIR_FORMAT dropped, SAMPLE_TIME
 * from the merged samples, COMPRESSED as the output is.
 */
static int merge__features(struct merge *m, int level, struct header_payload *out,
			   u64 sample_time[2], u32 comp[5])
{
	int i, n = 0;

	for (i = 0; i < m->nr_feats; i++) {
		struct header_payload p = m->feats[i];

		if (p.feat == HEADER_DIR_FORMAT || p.feat == HEADER_COMPRESSED)
			continue;
		if (p.feat == HEADER_SAMPLE_TIME && m->stats->samples) {
			sample_time[0] = m->stats->first_time;
			sample_time[1] = m->stats->last_time;
			p.data = sample_time;
			p.size = 2 * sizeof(u64);
		}
		out[n++] = p;
	}
	if (m->zc) {
		merge__comp_payload(m, level, comp);
		out[n++] = (struct header_payload){ HEADER_COMPRESSED, comp, 5 * sizeof(u32) };
	}
	return n;
}

int merge__finish_output(struct merge *m, int level, u64 data_offset)
{
	struct header_payload *feats;
	u64 sample_time[2];
	u32 comp[5];
	struct stat st;
	int nr, err;

	err = m->zc ? merge__flush_chunk(m) : 0;
	if (!err)
		err = merge__flush_run(m);
	writer__close(&m->w);
	if (!err)
		err = m->w.error;
	if (err)
		return err;
	feats = calloc((size_t)m->nr_feats + 1, sizeof(*feats));
	if (!feats)
		return -ENOMEM;
	nr = merge__features(m, level, feats, sample_time, comp);
	m->stats->nr_feats = nr;
	err = header__write_end_raw(m->fd, &m->attrs, data_offset, m->w.bytes, feats, nr);
	free(feats);
	if (!err && fstat(m->fd, &st) < 0)
		err = -errno;
	if (!err)
		m->stats->bytes_out = (u64)st.st_size;
	return err;
}
