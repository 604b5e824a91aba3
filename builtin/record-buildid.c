// SPDX-License-Identifier: GPL-2.0
/*
 * record-buildid.c — the build ids at the end of a recording, as perf
 * record 6.1 leaves them: HEADER_BUILD_ID listing every DSO a sample fell
 * in ([vdso] always; every DSO mapped with --buildid-all), and those DSOs
 * copied into the build-id cache (~/.debug) unless -N. -B, -z, an explicit
 * --buildid-mmap and --switch-output skip both (options.c decides).
 *
 * Runs on the main thread once the streaming threads have stopped, before
 * the features are written: the records on disk (the data section of the
 * output, or of the staging directory's data plus every data.N) are
 * mapped read-only and handed to src/dso-hits.c, whose steps run on the
 * recording's workqueue (one index per file, then per DSO). The table goes
 * into the header through struct header_env; the cache is filled after the
 * header is written, one DSO per workqueue index (copies of
 * /proc/kallsyms and of files on another file system are the slow part).
 * The recording itself is over by then: none of this is on the hot path.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "record.h"
#include "precord/build-id-cache.h"
#include "precord/dso-hits.h"
#include "precord/sample.h"
#include "precord/synthesize.h"

struct bid_map {
	void	*addr;
	size_t	len;
};

/* The recording's attrs and ids, as the records name them. */
static int build_ids__attrs(struct record *rec, struct sample_attrs *sa)
{
	struct evsel *evsel;
	int i, j, a;

	evlist__for_each_evsel(rec->evlist, evsel, i) {
		a = sample_attrs__add(sa, &evsel->attr);
		if (a < 0)
			return a;
		for (j = 0; j < evsel->nr_ids; j++)
			if (evsel->ids[j] && sample_attrs__add_id(sa, a, evsel->ids[j]))
				return -ENOMEM;
	}
	return 0;
}

/* [start, start + len) of fd mapped read-only, as one region of h. */
static int build_ids__map(struct record_build_ids *b, struct dso_hits *h, int fd, u64 start,
			  u64 len)
{
	struct bid_map *m;
	void *addr;

	if (!len)
		return 0;
	addr = mmap(NULL, (size_t)(start + len), PROT_READ, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	m = realloc(b->maps, (size_t)(b->nr_maps + 1) * sizeof(*m));
	if (!m) {
		munmap(addr, (size_t)(start + len));
		return -ENOMEM;
	}
	b->maps = m;
	b->maps[b->nr_maps++] = (struct bid_map){ addr, (size_t)(start + len) };
	return dso_hits__add_region(h, (const u8 *)addr + start, (size_t)len);
}

static int build_ids__regions(struct record *rec, struct record_build_ids *b,
			      struct dso_hits *h, u64 data_size)
{
	struct streams *ss = &rec->streams;
	struct stat st;
	int i, err;

	err = build_ids__map(b, h, rec->out_fd, rec->data_offset, data_size);
	for (i = 0; !err && ss->ring_fds && i < ss->nr_files; i++) {
		int fd = ss->ring_fds[i];

		if (fd >= 0 && !fstat(fd, &st))
			err = build_ids__map(b, h, fd, 0, (u64)st.st_size);
	}
	return err;
}

int record__build_ids(struct record *rec, u64 data_size, struct record_build_ids *b)
{
	struct dso_hits_opts o = {
		.all = rec->opts.buildid_all,
		.vmlinux = rec->opts.vmlinux,
	};
	struct sample_attrs sa = { 0 };
	struct dso_hits *h = NULL;
	int err, len;

	*b = (struct record_build_ids){ 0 };
	len = buildid__vdso(&b->vdso, &b->vdso_len, b->vdso_bid, sizeof(b->vdso_bid));
	if (len > 0) {
		o.vdso_bid = b->vdso_bid;
		o.vdso_bid_len = len;
	}
	err = build_ids__attrs(rec, &sa);
	if (!err) {
		h = dso_hits__new(&sa, &o);
		err = h ? build_ids__regions(rec, b, h, data_size) : -ENOMEM;
	}
	if (!err)
		err = dso_hits__run(h, rec->wq);
	if (!err)
		err = dso_hits__table(h, &b->table, &b->table_size);
	b->hits = h;
	sample_attrs__exit(&sa);
	/* the regions are read: what the cache needs is in h's DSOs */
	for (int i = 0; i < b->nr_maps; i++)
		munmap(b->maps[i].addr, b->maps[i].len);
	free(b->maps);
	b->maps = NULL;
	b->nr_maps = 0;
	if (err && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: cannot list the build ids of the DSOs sampled: "
			"%s; the file has no BUILD_ID feature\n", strerror(-err));
	return err;
}

struct cache_ctx {
	const struct dso_hits		*h;
	const char			*dir;
	struct build_id_cache_src	src;
	char				**errs;		/* per DSO: the first line that went wrong */
};

static int build_ids__cache_one(void *arg, long idx, int slot)
{
	struct cache_ctx *c = arg;
	const struct dso_hit *d = dso_hits__dso(c->h, (int)idx);
	char msg[PATH_MAX + 128];

	(void)slot;
	if (!d->listed || d->bid_len <= 0)
		return 0;
	if (build_id_cache__add(c->dir, d, &c->src, msg, sizeof(msg)) < 0)
		c->errs[idx] = strdup(msg);
	return 0;
}

void record__cache_build_ids(struct record *rec, struct record_build_ids *b)
{
	struct cache_ctx c = { .h = b->hits, .src = { .vdso = b->vdso, .vdso_len = b->vdso_len } };
	char dir[PATH_MAX];
	int i, nr;

	if (!b->hits || rec->opts.no_buildid_cache)
		return;
	if (build_id_cache__dir(rec->opts.buildid_dir, dir, sizeof(dir)))
		return;
	c.dir = dir;
	nr = dso_hits__nr(b->hits);
	c.errs = calloc((size_t)nr + 1, sizeof(*c.errs));
	if (!c.errs)
		return;
	if (rec->wq)
		wq__parallel_for(rec->wq, 0, nr, 1, build_ids__cache_one, &c, NULL);
	else
		for (i = 0; i < nr; i++)
			build_ids__cache_one(&c, i, 0);
	/* perf says nothing when a DSO cannot be cached; -v says why here */
	for (i = 0; i < nr; i++) {
		if (c.errs[i] && rec->opts.verbose)
			fprintf(stderr, "precord: %s\n", c.errs[i]);
		free(c.errs[i]);
	}
	free(c.errs);
}

void record__build_ids_exit(struct record_build_ids *b)
{
	dso_hits__delete(b->hits);
	free(b->table);
	free(b->vdso);
	*b = (struct record_build_ids){ 0 };
}
