// SPDX-License-Identifier: GPL-2.0
/*
 * test_dso_hits.c — src/dso-hits.c and src/build-id-cache.c on records and
 * files the test makes.
 *
 *  - A sample is charged to the map of its process that covered its ip at
 *    its time: the latest mapped before it, not one mapped after it; a
 *    child that mapped nothing there finds its parent's map at the fork;
 *    kernel samples find the kernel's map, or a module's over it; a DSO
 *    mapped but never sampled is not listed, [vdso] always is, and
 *    --buildid-all lists every one. Samples in a region read before the
 *    region that holds their map still find it (time decides, not order).
 *  - The same on a real worker pool, one region per worker.
 *  - The HEADER_BUILD_ID bytes: perf's layout (size, misc, pid -1, build
 *    id and its size, the name padded to 64).
 *  - The cache on disk: elf hard-linked, probes, kallsyms copied (mode
 *    0755), vdso written (0600), the .build-id links relative; a second
 *    add of the same DSO changes nothing.
 *  - Where the cache is: the given directory, buildid.dir of
 *    $PERF_CONFIG, $HOME/.debug.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "wq.h"

#include "precord/build-id-cache.h"
#include "precord/dso-hits.h"
#include "precord/sample.h"
#include "precord/synthesize.h"
#include "helpers.h"

#define ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define ID	42

struct buf {
	u8	data[8192];
	size_t	len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->data));
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u64(struct buf *b, u64 v) { put(b, &v, 8); }

/* The sample_id trailer of ST: TID, TIME, IDENTIFIER. */
static void put_trailer(struct buf *b, u32 pid, u64 time)
{
	u32 t[2] = { pid, pid };

	put(b, t, 8);
	put_u64(b, time);
	put_u64(b, ID);
}

static void mmap2(struct buf *b, u32 pid, u64 start, u64 len, u64 time, const char *name,
		  bool kernel, const u8 *bid)
{
	size_t nlen = (strlen(name) + 8) & ~(size_t)7;
	struct perf_event_header h = {
		.type = PERF_RECORD_MMAP2,
		.misc = (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
			(bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
		.size = (u16)(72 + nlen + 24),
	};
	u8 body[64] = { 0 }, zero[8] = { 0 };
	u32 ids[2] = { pid, pid };

	put(b, &h, sizeof(h));
	put(b, ids, 8);
	put_u64(b, start);
	put_u64(b, len);
	put_u64(b, 0);
	if (bid) {
		body[0] = 20;
		memcpy(body + 4, bid, 20);
	}
	put(b, body, 24);
	put(b, body + 32, 8);	/* prot, flags */
	put(b, name, strlen(name));
	put(b, zero, nlen - strlen(name));
	put_trailer(b, pid, time);
}

static void fork_rec(struct buf *b, u32 pid, u32 ppid, u64 time)
{
	struct perf_event_header h = { .type = PERF_RECORD_FORK, .size = 8 + 24 + 24 };
	u32 f[4] = { pid, ppid, pid, ppid };

	put(b, &h, sizeof(h));
	put(b, f, 16);
	put_u64(b, time);
	put_trailer(b, pid, time);
}

static void sample(struct buf *b, u32 pid, u64 ip, u64 time, bool kernel)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		.size = 8 + 32,
	};
	u32 t[2] = { pid, pid };

	put(b, &h, sizeof(h));
	put_u64(b, ID);
	put_u64(b, ip);
	put(b, t, 8);
	put_u64(b, time);
}

static void attrs_init(struct sample_attrs *sa)
{
	struct perf_event_attr attr = { .sample_type = ST, .sample_id_all = 1 };

	memset(sa, 0, sizeof(*sa));
	assert_int_equal(sample_attrs__add(sa, &attr), 0);
	assert_int_equal(sample_attrs__add_id(sa, 0, ID), 0);
	attr.type = 1;	/* a second attr: records are told apart by their id */
	assert_true(sample_attrs__add(sa, &attr) >= 0);
}

static const u8 bid_a[20] = { 0xaa, 1 }, bid_b[20] = { 0xbb, 2 }, bid_k[20] = { 0x11, 3 },
		bid_m[20] = { 0x22, 4 }, bid_v[20] = { 0x33, 5 }, bid_old[20] = { 0x44, 6 },
		bid_n[20] = { 0x55, 7 };

/* Region 0: the maps; region 1: samples (and a map) read after them. */
static void fill(struct buf *maps, struct buf *samples)
{
	mmap2(maps, (u32)-1, 0xffff0000, 0xffff, 0, "[kernel.kallsyms]_text", true, bid_k);
	mmap2(maps, (u32)-1, 0xffff8000, 0x100, 0, "/lib/modules/m.ko", true, bid_m);
	mmap2(maps, 100, 0x1000, 0x1000, 10, "/bin/a", false, bid_a);
	mmap2(maps, 100, 0x7000, 0x1000, 10, "[vdso]", false, NULL);
	mmap2(maps, 100, 0x9000, 0x1000, 10, "/lib/never", false, bid_n);
	/* /bin/old at 0x3000 until /bin/b replaces it at time 50 */
	mmap2(maps, 100, 0x3000, 0x1000, 5, "/bin/old", false, bid_old);
	mmap2(maps, 100, 0x3000, 0x1000, 50, "/bin/b", false, bid_b);
	fork_rec(maps, 200, 100, 15);

	sample(samples, 200, 0x1800, 30, false);	/* child: its parent's /bin/a */
	sample(samples, 100, 0x3100, 40, false);	/* before /bin/b: /bin/old */
	sample(samples, 0, 0xffff8010, 41, true);	/* the module, over the kernel */
	sample(samples, 0, 0xffff0010, 42, true);	/* the kernel */
	sample(samples, 300, 0x1800, 43, false);	/* a process with no map: nothing */
}

static const struct dso_hit *find(const struct dso_hits *h, const char *name)
{
	for (int i = 0; i < dso_hits__nr(h); i++)
		if (!strcmp(dso_hits__dso(h, i)->name, name))
			return dso_hits__dso(h, i);
	fail_msg("no DSO %s", name);
	return NULL;
}

static void check_hits(struct wq *wq)
{
	struct dso_hits_opts o = { .vdso_bid = bid_v, .vdso_bid_len = 20 };
	static struct buf maps, samples;
	struct sample_attrs sa;
	struct dso_hits *h;

	maps.len = samples.len = 0;
	fill(&maps, &samples);
	attrs_init(&sa);
	h = dso_hits__new(&sa, &o);
	assert_non_null(h);
	/* the samples first: file order must not matter */
	assert_int_equal(dso_hits__add_region(h, samples.data, samples.len), 0);
	assert_int_equal(dso_hits__add_region(h, maps.data, maps.len), 0);
	assert_int_equal(dso_hits__run(h, wq), 0);
	assert_int_equal(dso_hits__nr(h), 7);
	assert_string_equal(dso_hits__dso(h, 0)->name, "[kernel.kallsyms]");
	assert_true(find(h, "[kernel.kallsyms]")->listed);
	assert_memory_equal(find(h, "[kernel.kallsyms]")->bid, bid_k, 20);
	assert_true(find(h, "/lib/modules/m.ko")->listed);
	assert_true(find(h, "/bin/a")->listed);
	assert_true(find(h, "/bin/old")->listed);
	assert_false(find(h, "/bin/b")->listed);
	assert_false(find(h, "/lib/never")->listed);
	assert_true(find(h, "[vdso]")->listed);
	assert_false(find(h, "[vdso]")->hit);
	assert_memory_equal(find(h, "[vdso]")->bid, bid_v, 20);
	dso_hits__delete(h);

	o.all = true;
	h = dso_hits__new(&sa, &o);
	assert_int_equal(dso_hits__add_region(h, maps.data, maps.len), 0);
	assert_int_equal(dso_hits__run(h, wq), 0);
	for (int i = 0; i < dso_hits__nr(h); i++)
		assert_true(dso_hits__dso(h, i)->listed);
	dso_hits__delete(h);
	sample_attrs__exit(&sa);
}

static void test_hits(void **state)
{
	(void)state;
	check_hits(NULL);
}

static void test_hits_on_workers(void **state)
{
	int cpus[2] = { 0, 0 };
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_CPU, .cpus = cpus, .nr_cpus = 1,
				     .name = "test-wq" };
	char msg[256];
	struct wq_pool *pool;
	struct wq *wq;

	(void)state;
	pool = wq_pool__new(&attr, msg, sizeof(msg));
	assert_non_null(pool);
	wq = wq__new(pool, "dso-hits", 0);
	assert_non_null(wq);
	check_hits(wq);
	wq__delete(wq);
	wq_pool__delete(pool);
}

static void test_table_layout(void **state)
{
	struct dso_hits_opts o = { .vmlinux = "/boot/vmlinux-x" };
	static struct buf maps, samples;
	struct perf_event_header hdr;
	struct sample_attrs sa;
	struct dso_hits *h;
	size_t size, off = 0;
	void *table;
	u8 *t;
	s32 pid;
	int n = 0;

	(void)state;
	maps.len = samples.len = 0;
	fill(&maps, &samples);
	attrs_init(&sa);
	h = dso_hits__new(&sa, &o);
	assert_int_equal(dso_hits__add_region(h, maps.data, maps.len), 0);
	assert_int_equal(dso_hits__add_region(h, samples.data, samples.len), 0);
	assert_int_equal(dso_hits__run(h, NULL), 0);
	assert_int_equal(dso_hits__table(h, &table, &size), 0);
	t = table;
	while (off < size) {
		memcpy(&hdr, t + off, sizeof(hdr));
		memcpy(&pid, t + off + 8, sizeof(pid));
		assert_int_equal(hdr.type, 0);	/* as perf's write_buildid() */
		assert_int_equal(pid, -1);
		assert_int_equal(t[off + 32], 20);
		assert_int_equal((hdr.size - 36) % 64, 0);
		assert_true(hdr.misc & (1 << 15));
		if (n == 0) {	/* the kernel first, named after --vmlinux */
			assert_string_equal((char *)t + off + 36, "/boot/vmlinux-x");
			assert_int_equal(hdr.misc & PERF_RECORD_MISC_CPUMODE_MASK,
					 PERF_RECORD_MISC_KERNEL);
			assert_memory_equal(t + off + 12, bid_k, 20);
		}
		if (!strcmp((char *)t + off + 36, "/bin/a"))
			assert_int_equal(hdr.misc & PERF_RECORD_MISC_CPUMODE_MASK,
					 PERF_RECORD_MISC_USER);
		off += hdr.size;
		n++;
	}
	assert_int_equal(off, size);
	assert_int_equal(n, 4);	/* kernel, module, /bin/a, /bin/old ([vdso]: no build id given) */
	free(table);
	dso_hits__delete(h);
	sample_attrs__exit(&sa);
}

static void test_cache_layout(void **state)
{
	char tmp[] = "/tmp/test-bidcache.XXXXXX", dir[PATH_MAX], elf[PATH_MAX],
	     ksyms[PATH_MAX], p[4 * PATH_MAX], link[PATH_MAX], err[512] = "";
	struct dso_hit user = { .kind = DSO_USER, .bid_len = 20, .listed = true },
		       kern = { .name = "[kernel.kallsyms]", .kind = DSO_KERNEL, .bid_len = 20 },
		       vdso = { .name = "[vdso]", .kind = DSO_VDSO, .bid_len = 20 };
	struct build_id_cache_src src = { .vdso = "\177ELF", .vdso_len = 4 };
	struct stat a, b;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	snprintf(elf, sizeof(elf), "%s/prog", tmp);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", tmp);
	file__put_text(elf, "not really an ELF");
	file__put_text(ksyms, "ffffffff81000000 T _text\n");
	src.kallsyms = ksyms;
	src.debug_dir = tmp;	/* no .debug files there */
	user.name = elf;
	memcpy(user.bid, bid_a, 20);
	memcpy(kern.bid, bid_k, 20);
	memcpy(vdso.bid, bid_v, 20);

	for (int round = 0; round < 2; round++) {
		assert_int_equal(build_id_cache__add(dir, &user, &src, err, sizeof(err)), 0);
		assert_int_equal(build_id_cache__add(dir, &kern, &src, err, sizeof(err)), 0);
		assert_int_equal(build_id_cache__add(dir, &vdso, &src, err, sizeof(err)), 0);
	}
	snprintf(p, sizeof(p), "%s%s/aa01000000000000000000000000000000000000/elf", dir, elf);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(stat(elf, &b), 0);
	assert_true(a.st_ino == b.st_ino);	/* a hard link */
	snprintf(p, sizeof(p), "%s%s/aa01000000000000000000000000000000000000/probes", dir, elf);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_size, 0);
	snprintf(p, sizeof(p), "%s/.build-id/aa/01000000000000000000000000000000000000", dir);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	snprintf(p, sizeof(p), "../..%s/aa01000000000000000000000000000000000000", elf);
	assert_string_equal(link, p);
	snprintf(p, sizeof(p), "%s/[kernel.kallsyms]/1103000000000000000000000000000000000000/kallsyms",
		 dir);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 0777, 0755);
	assert_int_equal(a.st_size, 25);
	snprintf(p, sizeof(p), "%s/[vdso]/3305000000000000000000000000000000000000/vdso", dir);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 0777, 0600);
	assert_int_equal(a.st_size, 4);
	snprintf(p, sizeof(p), "%s/.build-id/33/05000000000000000000000000000000000000", dir);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	assert_string_equal(link, "../../[vdso]/3305000000000000000000000000000000000000");

	/* --vmlinux: the kernel named after a file is not cached, as perf */
	kern.name = elf;
	memcpy(kern.bid, bid_n, 20);
	assert_int_equal(build_id_cache__add(dir, &kern, &src, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/.build-id/55", dir);
	assert_int_not_equal(access(p, F_OK), 0);

	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	assert_int_equal(system(p), 0);
}

static void test_cache_dir(void **state)
{
	char tmp[] = "/tmp/test-bidcfg.XXXXXX", cfg[PATH_MAX], buf[PATH_MAX];
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	assert_int_equal(build_id_cache__dir("/given", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/given");
	snprintf(cfg, sizeof(cfg), "%s/cfg", tmp);
	file__put_text(cfg, "# perf config\n[core]\n\tdir = /not/this\n[BuildID]\n\tDir = \"/from/config\" ; x\n");
	setenv("PERF_CONFIG", cfg, 1);
	assert_int_equal(build_id_cache__dir(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/from/config");
	unsetenv("PERF_CONFIG");
	setenv("HOME", tmp, 1);
	setenv("PERF_BUILDID_DIR", "/not/read", 1);
	setenv("PERF_CONFIG_NOSYSTEM", "1", 1);
	assert_int_equal(build_id_cache__dir(NULL, buf, sizeof(buf)), 0);
	snprintf(cfg, sizeof(cfg), "%s/.debug", tmp);
	assert_string_equal(buf, cfg);
	unsetenv("PERF_CONFIG_NOSYSTEM");
	unsetenv("PERF_BUILDID_DIR");
	if (home)
		setenv("HOME", home, 1);
	free(home);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", tmp);
	assert_int_equal(system(buf), 0);
}

static void test_vdso(void **state)
{
	void *image;
	size_t len;
	u8 id[BUILD_ID_SIZE];
	int n;

	(void)state;
	n = buildid__vdso(&image, &len, id, sizeof(id));
	if (n == -ENOENT)
		skip();
	assert_true(n > 0);
	assert_true(len >= 4096);
	assert_memory_equal(image, "\177ELF", 4);
	free(image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_hits_on_workers),
		cmocka_unit_test(test_table_layout),
		cmocka_unit_test(test_cache_layout),
		cmocka_unit_test(test_cache_dir),
		cmocka_unit_test(test_vdso),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
