// SPDX-License-Identifier: GPL-2.0
/*
 * helpers.c — the fixtures and builders the unit tests share
 * (tests/helpers.h). Runs on the test's thread, but collector__emit(),
 * which any thread may call.
 */
#include <dirent.h>
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

void *tmpdir__fixture(size_t size, const char *name)
{
	char *path = calloc(1, size);	/* the fixture's first member */

	if (path && tmpdir__make(path, TMPDIR_PATH_SIZE, "/tmp", name)) {
		free(path);
		path = NULL;
	}
	return path;
}

int tmpdir__fixture_free(void **state)
{
	char *path = *state;
	int err = tmpdir__remove(path);

	free(path);
	return err ? -1 : 0;
}

char *tmpdir__path(const char *dir, const char *name, char *buf, size_t size)
{
	assert_true(snprintf(buf, size, "%s/%s", dir, name) < (int)size);
	return buf;
}

void file__put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

int fds__count(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	int n = 0;

	assert_non_null(dir);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;
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

void test_evpair__init(struct test_evpair *p, u64 sample_type, u64 config1, const char *name1)
{
	p->ids0[0] = 11;
	p->ids0[1] = 12;
	p->ids0[2] = 13;
	p->ids1[0] = 21;
	p->ids1[1] = 22;
	test_evsel__init(&p->evsel[0], 0, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock", sample_type,
			 p->ids0, 3);
	test_evsel__init(&p->evsel[1], 1, config1, name1, sample_type, p->ids1, 2);
	p->evsel[0].attr.freq = 1;
	p->evsel[1].attr.freq = 1;
	test_evlist__init(&p->evlist, p->entries, p->evsel, 2);
}

void assert_cpu_map(const struct cpu_map *map, const int *cpus, int nr)
{
	int i;

	assert_non_null(map);
	assert_int_equal(map->nr, nr);
	for (i = 0; i < nr; i++)
		assert_int_equal(map->map[i].cpu, cpus[i]);
}

void assert_cpu_list(const struct cpu_map *map, const char *want)
{
	char buf[4096];

	assert_non_null(map);
	cpu_map__snprintf(map, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

void test_phi_node_cpus(int node, int cpus[TEST_PHI_NODE_CPUS])
{
	int i, k, n = 0;

	for (k = 0; k < 4; k++)
		for (i = 17 * node; i < 17 * node + 17; i++)
			cpus[n++] = i + 68 * k;
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

/* ---- a command line parsed into struct record_opts ---- */

int parsed__parse(struct parsed *p, const char *const *args)
{
	int i;

	record_opts__exit(&p->opts);
	record_opts__init(&p->opts);
	p->argv[0] = "precord";
	for (i = 0; args[i]; i++) {
		assert_true(i < PARSED_MAX_ARGS);
		p->argv[i + 1] = (char *)args[i];
	}
	p->argc = i + 1;
	p->argv[p->argc] = NULL;
	memset(p->err, 'x', sizeof(p->err) - 1);
	p->err[sizeof(p->err) - 1] = '\0';
	p->ret = record_opts__parse(&p->opts, p->argc, p->argv, p->err, sizeof(p->err));
	return p->ret;
}

int parsed__setup(void **state)
{
	struct parsed *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	record_opts__init(&p->opts);
	*state = p;
	return 0;
}

int parsed__teardown(void **state)
{
	struct parsed *p = *state;

	record_opts__exit(&p->opts);
	free(p);
	return 0;
}

void parsed__assert_ok(const struct parsed *p)
{
	if (p->ret != 0)
		fail_msg("parse returned %d: %s", p->ret, p->err);
}

char *parsed__capture(struct parsed *p, int fd, const char *const *args)
{
	char path[] = "/tmp/precord-test-capture.XXXXXX";
	int tmp = mkstemp(path), saved;
	static char buf[16384];
	ssize_t n;

	assert_true(tmp >= 0);
	unlink(path);
	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	assert_true(saved >= 0);
	assert_int_equal(dup2(tmp, fd), fd);
	parsed__parse(p, args);
	fflush(fd == 1 ? stdout : stderr);
	assert_int_equal(dup2(saved, fd), fd);
	close(saved);
	n = pread(tmp, buf, sizeof(buf) - 1, 0);
	close(tmp);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

void parsed__assert_bad(struct parsed *p, const struct bad_case *cases, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct bad_case *c = &cases[i];

		parsed__parse(p, c->args);
		if (p->ret != -EINVAL)
			fail_msg("case %zu (%s %s): returned %d, want -EINVAL (%s)", i,
				 c->args[0], c->args[1] ? c->args[1] : "", p->ret, p->err);
		if (!strstr(p->err, c->needle))
			fail_msg("case %zu (%s %s): message \"%s\" lacks \"%s\"", i,
				 c->args[0], c->args[1] ? c->args[1] : "", p->err, c->needle);
		if (strchr(p->err, '\n') || !p->err[0] || strlen(p->err) > 200)
			fail_msg("case %zu: not one short line: \"%s\"", i, p->err);
		if (!strncmp(p->err, "precord:", 8))
			fail_msg("case %zu: the caller adds the prefix: \"%s\"", i, p->err);
	}
}
