// SPDX-License-Identifier: GPL-2.0
/*
 * helpers.c — the fixtures and builders the unit tests share
 * (tests/helpers.h). Runs on the test's thread, but collector__emit(),
 * which any thread may call.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"

/* ---- a temporary directory ---- */

int tmpdir__make(char *path, size_t size, const char *base, const char *name)
{
	if (snprintf(path, size, "%s/precord-test-%s-XXXXXX", base, name) >= (int)size)
		return -1;
	return mkdtemp(path) ? 0 : -1;
}

static int tree__remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int tmpdir__remove(const char *path)
{
	return nftw(path, tree__remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tmpdir__path(const char *dir, const char *name, char *buf, size_t size)
{
	assert_true(snprintf(buf, size, "%s/%s", dir, name) < (int)size);
	return buf;
}

/* ---- bytes ---- */

void rbuf__put(struct rbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->data = realloc(b->data, b->cap);
		assert_non_null(b->data);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void rbuf__u64(struct rbuf *b, u64 v)
{
	rbuf__put(b, &v, sizeof(v));
}

void rbuf__u32x2(struct rbuf *b, u32 a, u32 c)
{
	rbuf__put(b, &a, sizeof(a));
	rbuf__put(b, &c, sizeof(c));
}

void rbuf__hdr(struct rbuf *b, u32 type, u16 size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };

	rbuf__put(b, &h, sizeof(h));
}

size_t rbuf__begin(struct rbuf *b, u32 type)
{
	size_t at = b->len;

	rbuf__hdr(b, type, 0);
	return at;
}

void rbuf__end(struct rbuf *b, size_t at)
{
	struct perf_event_header h;

	memcpy(&h, b->data + at, sizeof(h));
	h.size = (u16)(b->len - at);
	memcpy(b->data + at, &h, sizeof(h));
}

int rbuf__emit(void *ctx, const void *record, size_t size)
{
	rbuf__put(ctx, record, size);
	return 0;
}

void rbuf__write_file(const struct rbuf *b, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
}

void rbuf__release(struct rbuf *b)
{
	free(b->data);
	*b = (struct rbuf){ 0 };
}

/* ---- evsels built by hand ---- */

void test_evsel__init(struct evsel *evsel, int idx, u64 config, const char *name,
		      u64 sample_type, u64 *ids, int nr_ids)
{
	memset(evsel, 0, sizeof(*evsel));
	evsel->attr.type = PERF_TYPE_SOFTWARE;
	evsel->attr.config = config;
	evsel->attr.sample_period = 4000;
	evsel->attr.sample_id_all = 1;
	evsel->attr.sample_type = sample_type;
	evsel->name = (char *)name;
	evsel->idx = idx;
	evsel->ids = ids;
	evsel->nr_ids = nr_ids;
}

void test_evlist__init(struct evlist *evlist, struct evsel **entries, struct evsel *evsels,
		       int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		entries[i] = &evsels[i];
		evsels[i].evlist = evlist;
	}
	evlist->entries = entries;
	evlist->nr_entries = nr;
}

void assert_cpu_map(const struct cpu_map *map, const int *cpus, int nr)
{
	int i;

	assert_non_null(map);
	assert_int_equal(map->nr, nr);
	for (i = 0; i < nr; i++)
		assert_int_equal(map->map[i].cpu, cpus[i]);
}

/* ---- records collected one by one ---- */

void collector__init(struct collector *c)
{
	memset(c, 0, sizeof(*c));
	c->caller = pthread_self();
}

int collector__emit(void *ctx, const void *record, size_t size)
{
	struct collector *c = ctx;

	c->calls++;
	if (!pthread_equal(pthread_self(), c->caller))
		c->other_thread = true;
	if (c->fail_at && c->calls >= c->fail_at)
		return c->fail_err;
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 64;
		c->recs = realloc(c->recs, c->alloc * sizeof(*c->recs));
		if (!c->recs)
			abort();
	}
	c->recs[c->nr].data = malloc(size);
	if (!c->recs[c->nr].data)
		abort();
	memcpy(c->recs[c->nr].data, record, size);
	c->recs[c->nr].size = size;
	c->nr++;
	c->bytes += size;
	return 0;
}

void collector__reset(struct collector *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->recs[i].data);
	free(c->recs);
	collector__init(c);
}

const struct perf_event_header *collector__hdr(const struct collector *c, size_t i)
{
	return (const struct perf_event_header *)c->recs[i].data;
}
