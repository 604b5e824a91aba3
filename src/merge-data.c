// SPDX-License-Identifier: GPL-2.0
/*
 * merge-data.c — DIR/data, where a merge starts: the header, the attrs (they
 * say where each record's time is), the feature sections, and the data
 * section whose records go out first, in their order. With `precord merge
 * FILE`, the same for a single perf.data file whose recorder was killed.
 *
 * A `data` whose header was never finished (data size 0, no feature table)
 * is read to its end, and the merged file has no features, but for a
 * single file's: those precord wrote ahead of its data, or for perf's of
 * tracepoints, their TRACING_DATA from this machine's tracefs
 * (merge__local_tracing()). HEADER_AUXTRACE's file offsets are refused.
 *
 * Data flow: the file → header__read(), header__read_attrs() → m->hdr,
 * m->attrs, m->clock (src/sample.c); header__read_payloads() or header__read_ahead() →
 * m->feats; the data section's bounds → m->data, read by merge-input.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "merge-internal.h"
#include "precord/evlist.h"
#include "precord/evsel.h"
#include "precord/tracefs.h"

static int merge__check_feats(struct merge *m)
{
	int i;

	for (i = 0; i < m->nr_feats; i++) {
		const struct header_payload *p = &m->feats[i];

		if (p->feat == HEADER_AUXTRACE) {
			merge__error(m, "%s/data has an AUX area index (HEADER_AUXTRACE), which "
				     "precord cannot merge; read the directory with perf", m->dir);
			return -ENOTSUP;
		}
		if (p->feat == HEADER_DIR_FORMAT && p->size >= 8 &&
		    load_u64(p->data) > MERGE_DIR_VERSION) {
			merge__error(m, "%s has directory format version %llu; this precord "
				     "reads version %d", m->dir,
				     (unsigned long long)load_u64(p->data), MERGE_DIR_VERSION);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Where each attr's records keep their id and time; 0, -EINVAL (no attr) or -ENOMEM. */
int merge__sample_attrs(struct sample_attrs *sa, const struct header_attrs *attrs)
{
	int a, i;
	u64 j;

	*sa = (struct sample_attrs){ 0 };
	if (!attrs->nr)
		return -EINVAL;
	for (a = 0; a < attrs->nr; a++) {
		i = sample_attrs__add(sa, &attrs->entries[a].attr);
		if (i < 0)
			return i;
		for (j = 0; j < attrs->entries[a].nr_ids; j++)
			if (sample_attrs__add_id(sa, i, attrs->entries[a].ids[j]))
				return -ENOMEM;
	}
	return 0;
}

static int merge__read_attrs(struct merge *m, int fd)
{
	int err = header__read_attrs(fd, &m->hdr, &m->attrs);

	return err ? err : merge__sample_attrs(&m->clock, &m->attrs);
}

/*
 * A header never finished (the recorder was killed) has no feature bits
 * (precord) and a data size of 0 or of what its streaming thread had
 * written when it last said so (one file: the file goes on past it; a
 * file cut shorter than its data size is read to its end too), or it
 * says data size 0 with bits whose table was never written (perf: it sets
 * them when it opens the file). A finished file with an empty data section
 * has its table there, the first payload right after it; one finished
 * without features (a full disk) ends where its data does.
 */
/* The header's feature bits set; *first: the lowest (-1: none). */
static int merge__feat_bits(const struct merge *m, int *first)
{
	int bit, nr = 0;

	*first = -1;
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (!header__has_feat(&m->hdr, bit))
			continue;
		nr++;
		if (*first < 0)
			*first = bit;
	}
	return nr;
}

static bool merge__data_unfinished(const struct merge *m, int fd)
{
	struct perf_file_section sec;
	int first, nr = merge__feat_bits(m, &first);
	struct stat st;

	if (!nr)
		return !m->hdr.data.size || (fstat(fd, &st) == 0 &&
		       (u64)st.st_size != m->hdr.data.offset + m->hdr.data.size);
	if (m->hdr.data.size)
		return false;
	return header__feat_section(fd, &m->hdr, first, &sec) ||
	       sec.offset != m->hdr.data.offset + sizeof(sec) * (u64)nr;
}

/* The data section of DIR/data; an unfinished one runs to the end of the file. */
static int merge__data_section(struct merge *m)
{
	struct mfile *f = &m->data.file;
	u64 off = m->hdr.data.offset, size = m->hdr.data.size;

	if (off > f->map_len)
		return -EINVAL;
	if (m->data_unfinished)
		size = f->map_len - off;
	if (size > f->map_len - off)
		return -EINVAL;
	f->pos = off;
	f->end = off + size;
	return 0;
}

/*
 * A killed perf record file of tracepoints has no TRACING_DATA, without
 * which perf will not read it: the formats of its tracepoints from this
 * machine's tracefs (by id: right where it was recorded, since boot),
 * told as a warning. 0, or -ENOMEM; a tracefs that cannot give them
 * leaves the file without (also told).
 */
static int merge__local_tracing(struct merge *m)
{
	struct evlist *evlist;
	char *buf = NULL;
	ssize_t len = 0;
	int i, err = 0;

	for (i = 0; i < m->attrs.nr; i++)
		if (m->attrs.entries[i].attr.type == PERF_TYPE_TRACEPOINT)
			break;
	if (i == m->attrs.nr)
		return 0;
	evlist = evlist__new();
	if (!evlist)
		return -ENOMEM;
	for (i = 0; !err && i < m->attrs.nr; i++) {
		struct evsel *evsel = evsel__new(&m->attrs.entries[i].attr, NULL);

		err = evsel ? evlist__add(evlist, evsel) : -ENOMEM;
		if (err)
			evsel__delete(evsel);
	}
	if (!err)
		len = tracefs__tracing_data(evlist, &buf);
	evlist__delete(evlist);
	if (err)
		return err;
	if (len <= 0) {
		m->stats->tracing = MERGE_TRACING_NONE;
		return len == -ENOMEM ? -ENOMEM : 0;
	}
	if (!m->feats)
		m->feats = calloc(HEADER_FEAT_BITS, sizeof(*m->feats));
	if (!m->feats) {
		free(buf);
		return -ENOMEM;
	}
	m->feats[m->nr_feats++] = (struct header_payload){ HEADER_TRACING_DATA, buf, (u64)len };
	m->stats->tracing = MERGE_TRACING_LOCAL;
	return 0;
}

int merge__open_data(struct merge *m)
{
	char path[PATH_MAX], why[PATH_MAX + 64];
	const char *what = "cannot read the perf.data header";
	int fd, err, first;

	snprintf(path, sizeof(path), m->single ? "%s" : "%s/data", m->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		merge__error(m, "cannot open %s: %s%s", path, strerror(errno),
			     errno == ENOENT ? " (not a perf directory?)" : "");
		return err;
	}
	err = header__read(fd, &m->hdr);
	if (!err) {
		what = "cannot read the attrs";
		err = merge__read_attrs(m, fd);
	}
	if (!err) {
		what = "cannot read the feature sections";
		m->data_unfinished = merge__data_unfinished(m, fd);
		if (!m->data_unfinished)
			err = header__read_payloads(fd, &m->hdr, &m->feats, &m->nr_feats);
	}
	if (!err && m->single && !merge__feat_bits(m, &first)) {
		/* precord's one file: its features, written ahead of the data, go to its end */
		header_payloads__free(m->feats, m->nr_feats);
		err = header__read_ahead(fd, &m->hdr, &m->feats, &m->nr_feats);
		if (!err)
			m->data_unfinished = true;
		else if (err == -ENOENT)
			err = 0;
	}
	if (!err && m->single && m->data_unfinished && !m->nr_feats)
		err = merge__local_tracing(m);
	close(fd);
	if (!err)
		err = merge__check_feats(m);
	if (err) {
		if (err != -ENOTSUP)
			merge__error(m, "%s: %s: %s", path, what,
				     err == -EINVAL ? "not a valid perf.data file" : strerror(-err));
		return err;
	}
	if (m->single && !m->data_unfinished) {
		merge__error(m, merge__feat_bits(m, &first) ?
			     "%s is a finished perf.data file: it needs no merge" :
			     "%s needs no merge: its header covers every record in it (its "
			     "features were never written), and perf reads it as it is", path);
		return -EINVAL;
	}
	err = m->single ? mfile__open_path(&m->data.file, path, "the data", false, why, sizeof(why))
			: mfile__open(&m->data.file, m->dir, "data", false, why, sizeof(why));
	if (!err)
		err = merge__data_section(m);
	if (err)
		merge__error(m, err == -EINVAL ? "%s: its header places the data past the end of "
			     "the file (a recording killed while it began): nothing to merge" : "%s",
			     err == -EINVAL ? path : why);
	return err;
}
