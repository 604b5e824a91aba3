/* SPDX-License-Identifier: GPL-2.0 */
/*
 * helpers.h — what the unit tests share (tests/helpers.c, linked into each):
 * a temporary directory made and removed with everything under it; a
 * growable byte buffer that builds records and perf.data files by hand
 * and takes what an emit callback hands it; a collector that keeps each
 * emitted record apart, for tests that look at them one by one.
 */
#ifndef PRECORD_TESTS_HELPERS_H
#define PRECORD_TESTS_HELPERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"
#include "precord/evlist.h"
#include "precord/options.h"

/* ---- a temporary directory ---- */

/* mkdtemp() of "BASE/precord-test-NAME-XXXXXX" into path: 0, or -1. */
int tmpdir__make(char *path, size_t size, const char *base, const char *name);
/* path and everything under it (no link followed); 0, or -1. */
int tmpdir__remove(const char *path);
/* "DIR/NAME" into buf (the test fails when it does not fit); returns buf. */
char *tmpdir__path(const char *dir, const char *name, char *buf, size_t size);
/* text into path, created or emptied; the test fails when it is not all there. */
void file__put_text(const char *path, const char *text);
/*
 * A test fixture on the heap whose first member is char path[TMPDIR_PATH_SIZE],
 * a directory of its own: tmpdir__fixture() callocs size bytes and makes
 * the directory "/tmp/precord-test-NAME-XXXXXX" into path (NULL when
 * either fails); tmpdir__fixture_free(), a cmocka teardown, removes the
 * directory in *state with everything under it (-1 when that fails) and
 * frees the fixture.
 */
#define TMPDIR_PATH_SIZE	64
void *tmpdir__fixture(size_t size, const char *name);
int tmpdir__fixture_free(void **state);
/* The descriptors this process has open (the one the count reads not counted). */
int fds__count(void);

/* ---- bytes: records and files built by hand ---- */

struct rbuf {
	u8	*data;
	size_t	len, cap;
};

void rbuf__put(struct rbuf *b, const void *p, size_t n);
void rbuf__u64(struct rbuf *b, u64 v);
/* Two u32 in one u64 word: {pid, tid}, {cpu, res}. */
void rbuf__u32x2(struct rbuf *b, u32 a, u32 c);
/* A record header of size bytes, the body to follow. */
void rbuf__hdr(struct rbuf *b, u32 type, u16 size);
/* A record header whose size rbuf__end() fills in: its offset. */
size_t rbuf__begin(struct rbuf *b, u32 type);
void rbuf__end(struct rbuf *b, size_t at);
/* An emit callback (synth_emit_fn, zcomp__compress()'s): appends the record to ctx. */
int rbuf__emit(void *ctx, const void *record, size_t size);
/* The bytes into path, created or emptied; the test fails when they are not all there. */
void rbuf__write_file(const struct rbuf *b, const char *path);
void rbuf__release(struct rbuf *b);

/* ---- evsels built by hand (no descriptors), for headers and files ---- */

/*
 * A software event: config, name, sample_type, sample_id_all, a period of
 * 4000, and its ids (the caller's array); the rest zero for the test to set.
 */
void test_evsel__init(struct evsel *evsel, int idx, u64 config, const char *name,
		      u64 sample_type, u64 *ids, int nr_ids);
/* evlist over evsels[0..nr), entries its nr slots; each evsel points back at it. */
void test_evlist__init(struct evlist *evlist, struct evsel **entries, struct evsel *evsels,
		       int nr);

/*
 * Two software events over one evlist, each sampled at a frequency
 * (attr.freq): cpu-clock with ids 11, 12, 13, and the caller's config1 and
 * name1 with ids 21, 22; both of sample_type.
 */
struct test_evpair {
	struct evsel	evsel[2];
	struct evsel	*entries[2];
	struct evlist	evlist;
	u64		ids0[3];
	u64		ids1[2];
};

void test_evpair__init(struct test_evpair *p, u64 sample_type, u64 config1, const char *name1);

/* map holds exactly cpus[0..nr), in order. */
void assert_cpu_map(const struct cpu_map *map, const int *cpus, int nr);
/* map, formatted as a CPU list ("0-3,8"), is want. */
void assert_cpu_list(const struct cpu_map *map, const char *want);

/*
 * A Xeon Phi 7250 as hwloc synthesizes it: one package, 4 NUMA nodes of
 * 17 cores of 4 threads; CPU c + 68k is the k-th thread of core c.
 */
#define TEST_PHI_DESC	"pack:1 numa:4(memory=16GiB) core:17 pu:4(indexes=4*68:1*4)"
#define TEST_PHI_CPUS	272
#define TEST_PHI_NODE_CPUS 68
/* The CPUs of TEST_PHI_DESC's node `node` (cores 17n .. 17n + 16 and their siblings), ascending. */
void test_phi_node_cpus(int node, int cpus[TEST_PHI_NODE_CPUS]);

/* ---- records collected one by one ---- */

struct collected {
	u8	*data;
	size_t	size;
};

/*
 * Keeps a copy of each record it is given, to be checked later from the
 * main thread (cmocka is not thread-safe: collector__emit() asserts
 * nothing and aborts when out of memory).
 */
struct collector {
	struct collected *recs;
	size_t		nr, alloc;
	size_t		bytes;
	int		calls;
	int		fail_at;	/* fail the fail_at-th call (1-based) with fail_err */
	int		fail_err;
	pthread_t	caller;		/* collector__init()'s thread */
	bool		other_thread;	/* a record came from another thread */
};

void collector__init(struct collector *c);
int collector__emit(void *ctx, const void *record, size_t size);
/* Every record freed; the collector empty and bound to this thread again. */
void collector__reset(struct collector *c);
const struct perf_event_header *collector__hdr(const struct collector *c, size_t i);

/* ---- a command line parsed into struct record_opts ---- */

#define PARSED_MAX_ARGS	16

struct parsed {
	struct record_opts	opts;
	char			*argv[PARSED_MAX_ARGS + 2];
	int			argc;
	char			err[512];
	int			ret;
};

/*
 * Parse "precord ARGS..." (a NULL-terminated list) into p->opts, afresh;
 * the error buffer is filled with 'x' first, so a message must end itself.
 */
int parsed__parse(struct parsed *p, const char *const *args);
#define PARSE(p, ...)	parsed__parse(p, (const char *const[]){ __VA_ARGS__, NULL })
#define PARSE0(p)	parsed__parse(p, (const char *const[]){ NULL })
/* cmocka fixture: *state a struct parsed with its opts initialized. */
int parsed__setup(void **state);
int parsed__teardown(void **state);
/* A cmocka case run with that fixture. */
#define parsed_test(f)	cmocka_unit_test_setup_teardown(f, parsed__setup, parsed__teardown)
/* The last parse succeeded (the test fails with its message otherwise). */
void parsed__assert_ok(const struct parsed *p);

/* Parse ARGS with fd 1 or 2 sent to a file; returns what was written there (a static buffer). */
char *parsed__capture(struct parsed *p, int fd, const char *const *args);

/* A command line that must be refused, and a piece of the one line that says why. */
struct bad_case {
	const char	*args[6];
	const char	*needle;
};

/*
 * Each case is refused with -EINVAL and one short line holding its needle,
 * without the "precord:" prefix the caller adds.
 */
void parsed__assert_bad(struct parsed *p, const struct bad_case *cases, size_t nr);

#endif /* PRECORD_TESTS_HELPERS_H */
