// SPDX-License-Identifier: GPL-2.0
/*
 * test_header.c — the perf.data header writer, read back field by field:
 * the fixed header, the id arrays and attrs, the feature table, and every
 * feature's payload parsed with perf's layout (u32 length + NUL-padded
 * strings, string lists, per-CPU records). The evlist is built by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "precord/header.h"
#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/topology.h"

#include "version.h"
#include "helpers.h"

#define ATTR_SIZE	((u64)sizeof(struct perf_event_attr))
#define FILE_ATTR_SIZE	(ATTR_SIZE + 16)

/* ---- a hand-built evlist: cpu-clock with 3 ids, task-clock with 2 ---- */

#define ST_HEADER	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct fixture {
	struct test_evpair ev;
	char		path[64];
	int		fd;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int i;

	if (!f)
		return -1;
	test_evpair__init(&f->ev, ST_HEADER, PERF_COUNT_SW_TASK_CLOCK, "task-clock:u");
	for (i = 0; i < 2; i++)
		f->ev.evsel[i].attr.read_format = PERF_FORMAT_ID;
	f->ev.evsel[1].attr.exclude_kernel = 1;
	snprintf(f->path, sizeof(f->path), "/tmp/precord-test-header-XXXXXX");
	f->fd = mkstemp(f->path);
	if (f->fd < 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* ---- reading payloads the way perf does ---- */

struct cursor {
	u8	*buf;
	size_t	len;
	size_t	pos;
};

static void cursor__load(struct cursor *c, int fd, const struct perf_file_header *hdr, int feat)
{
	struct perf_file_section sec;

	assert_int_equal(header__feat_section(fd, hdr, feat, &sec), 0);
	c->buf = malloc(sec.size ? sec.size : 1);
	assert_non_null(c->buf);
	assert_int_equal(pread(fd, c->buf, sec.size, (off_t)sec.offset), (ssize_t)sec.size);
	c->len = sec.size;
	c->pos = 0;
}

static void cursor__get(struct cursor *c, void *p, size_t n)
{
	assert_true(c->pos + n <= c->len);
	memcpy(p, c->buf + c->pos, n);
	c->pos += n;
}

static u32 cursor__u32(struct cursor *c)
{
	u32 v;

	cursor__get(c, &v, sizeof(v));
	return v;
}

static u64 cursor__u64(struct cursor *c)
{
	u64 v;

	cursor__get(c, &v, sizeof(v));
	return v;
}

/* A perf string: u32 length (a multiple of 64), NUL-terminated, zero padded. */
static const char *cursor__string(struct cursor *c)
{
	u32 len = cursor__u32(c);
	const char *s = (const char *)c->buf + c->pos;
	size_t slen, i;

	assert_true(len > 0 && len % 64 == 0);
	assert_true(c->pos + len <= c->len);
	slen = strnlen(s, len);
	assert_true(slen < len);
	assert_true(len - slen - 1 < 64);
	for (i = slen; i < len; i++)
		assert_int_equal(s[i], 0);
	c->pos += len;
	return s;
}

static void cursor__done(struct cursor *c)
{
	assert_int_equal(c->pos, c->len);
	free(c->buf);
	c->buf = NULL;
}

static void read_string_feat(int fd, const struct perf_file_header *hdr, int feat,
			     const char *expect)
{
	struct cursor c;

	cursor__load(&c, fd, hdr, feat);
	assert_string_equal(cursor__string(&c), expect);
	cursor__done(&c);
}

static int nr_feats(const struct perf_file_header *hdr)
{
	int bit, n = 0;

	for (bit = 0; bit < HEADER_FEAT_BITS; bit++)
		n += header__has_feat(hdr, bit);
	return n;
}

/*
 * The payloads follow the table back to back, in bit order, and the last one
 * ends the file. Returns how many table slots there are before the payloads.
 */
static u64 check_sections_contiguous(int fd, const struct perf_file_header *hdr)
{
	u64 table = hdr->data.offset + hdr->data.size, pos = 0, first = 0;
	struct perf_file_section sec;
	struct stat st;
	int bit;

	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (!header__has_feat(hdr, bit))
			continue;
		assert_int_equal(header__feat_section(fd, hdr, bit, &sec), 0);
		if (!first)
			first = pos = sec.offset;
		assert_int_equal(sec.offset, pos);
		pos += sec.size;
	}
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((u64)st.st_size, pos);
	assert_int_equal((first - table) % sizeof(struct perf_file_section), 0);
	return (first - table) / sizeof(struct perf_file_section);
}

static u64 start_and_fill(struct fixture *f, u64 data_size)
{
	u64 data_offset = 0, i;
	u8 byte;

	assert_int_equal(header__write_start(f->fd, &f->ev.evlist, &data_offset), 0);
	for (i = 0; i < data_size; i++) {
		byte = (u8)(i * 7 + 1);
		assert_int_equal(pwrite(f->fd, &byte, 1, (off_t)(data_offset + i)), 1);
	}
	return data_offset;
}

/* ---- the tests ---- */

static void test_start_layout(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	struct perf_file_attr fattr;
	u64 data_offset = 0, ids[3];
	int i;

	assert_int_equal(lseek(f->fd, 7, SEEK_SET), 7);
	assert_int_equal(header__write_start(f->fd, &f->ev.evlist, &data_offset), 0);
	assert_int_equal(lseek(f->fd, 0, SEEK_CUR), 7);
	assert_int_equal(data_offset, 104 + 5 * 8 + 2 * FILE_ATTR_SIZE);

	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_memory_equal(&hdr.magic, "PERFILE2", 8);
	assert_int_equal(hdr.size, 104);
	assert_int_equal(hdr.attr_size, FILE_ATTR_SIZE);
	assert_int_equal(hdr.attrs.offset, 104 + 5 * 8);
	assert_int_equal(hdr.attrs.size, 2 * FILE_ATTR_SIZE);
	assert_int_equal(hdr.data.offset, data_offset);
	assert_int_equal(hdr.data.size, 0);
	assert_int_equal(hdr.event_types.offset, 0);
	assert_int_equal(hdr.event_types.size, 0);
	for (i = 0; i < HEADER_FEAT_BITS / 64; i++)
		assert_int_equal(hdr.adds_features[i], 0);

	for (i = 0; i < 2; i++) {
		struct evsel *evsel = &f->ev.evsel[i];
		int j;

		assert_int_equal(pread(f->fd, &fattr, sizeof(fattr),
				       (off_t)(hdr.attrs.offset + (u64)i * FILE_ATTR_SIZE)),
				 sizeof(fattr));
		assert_int_equal(fattr.attr.size, ATTR_SIZE);
		assert_int_equal(fattr.attr.type, evsel->attr.type);
		assert_int_equal(fattr.attr.config, evsel->attr.config);
		assert_int_equal(fattr.attr.sample_type, evsel->attr.sample_type);
		assert_int_equal(fattr.attr.exclude_kernel, evsel->attr.exclude_kernel);
		assert_int_equal(fattr.attr.sample_id_all, 1);
		assert_int_equal(fattr.ids.offset, i == 0 ? 104 : 104 + 3 * 8);
		assert_int_equal(fattr.ids.size, 8 * (u64)evsel->nr_ids);
		assert_int_equal(pread(f->fd, ids, fattr.ids.size, (off_t)fattr.ids.offset),
				 (ssize_t)fattr.ids.size);
		for (j = 0; j < evsel->nr_ids; j++)
			assert_int_equal(ids[j], evsel->ids[j]);
	}
}

static void check_cmdline(int fd, const struct perf_file_header *hdr, int argc, const char **argv)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct cursor c;
	int i;

	assert_true(n > 0);
	exe[n] = '\0';
	cursor__load(&c, fd, hdr, HEADER_CMDLINE);
	assert_int_equal(cursor__u32(&c), argc);
	assert_string_equal(cursor__string(&c), exe);
	for (i = 1; i < argc; i++)
		assert_string_equal(cursor__string(&c), argv[i]);
	cursor__done(&c);
}

static void check_event_desc(int fd, const struct perf_file_header *hdr, const struct fixture *f)
{
	struct perf_event_attr attr;
	struct cursor c;
	int i, j;

	cursor__load(&c, fd, hdr, HEADER_EVENT_DESC);
	assert_int_equal(cursor__u32(&c), 2);
	assert_int_equal(cursor__u32(&c), ATTR_SIZE);
	for (i = 0; i < 2; i++) {
		cursor__get(&c, &attr, sizeof(attr));
		assert_int_equal(attr.size, ATTR_SIZE);
		assert_int_equal(attr.config, f->ev.evsel[i].attr.config);
		assert_int_equal(attr.sample_type, f->ev.evsel[i].attr.sample_type);
		assert_int_equal(cursor__u32(&c), f->ev.evsel[i].nr_ids);
		assert_string_equal(cursor__string(&c), f->ev.evsel[i].name);
		for (j = 0; j < f->ev.evsel[i].nr_ids; j++)
			assert_int_equal(cursor__u64(&c), f->ev.evsel[i].ids[j]);
	}
	cursor__done(&c);
}

/* /sys/devices/system/cpu/cpuN/topology/<file> as perf reads it, -1 if absent. */
static int sysfs_topology_id(int cpu, const char *file)
{
	char path[128];
	FILE *fp;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	if (fscanf(fp, "%d", &v) != 1)
		v = -1;
	fclose(fp);
	return v;
}

/* Host CPU_TOPOLOGY: string lists, then per-CPU ids that match sysfs. */
static void check_host_cpu_topology(int fd, const struct perf_file_header *hdr, u32 nr_avail)
{
	u32 i, nr;
	struct cursor c;
	bool die = access("/sys/devices/system/cpu/cpu0/topology/die_cpus_list", F_OK) == 0;
	struct utsname uts;

	assert_int_equal(uname(&uts), 0);
	die = die && !strncmp(uts.machine, "x86_64", 6);
	cursor__load(&c, fd, hdr, HEADER_CPU_TOPOLOGY);
	nr = cursor__u32(&c);		/* packages */
	assert_true(nr >= 1);
	for (i = 0; i < nr; i++)
		assert_true(strlen(cursor__string(&c)) > 0);
	nr = cursor__u32(&c);		/* cores */
	assert_true(nr >= 1 && nr <= nr_avail);
	for (i = 0; i < nr; i++)
		assert_true(strlen(cursor__string(&c)) > 0);
	for (i = 0; i < nr_avail; i++) {
		s32 core = (s32)cursor__u32(&c), socket = (s32)cursor__u32(&c);

		assert_int_equal(core, sysfs_topology_id((int)i, "core_id"));
		assert_int_equal(socket, sysfs_topology_id((int)i, "physical_package_id"));
	}
	if (die) {
		nr = cursor__u32(&c);
		assert_true(nr >= 1);
		for (i = 0; i < nr; i++)
			assert_true(strlen(cursor__string(&c)) > 0);
		for (i = 0; i < nr_avail; i++)
			assert_int_equal((s32)cursor__u32(&c), sysfs_topology_id((int)i, "die_id"));
	}
	cursor__done(&c);
}

static void check_pmu_mappings(int fd, const struct perf_file_header *hdr)
{
	bool software = false, tracepoint = false;
	struct cursor c;
	u32 nr, i, type;
	const char *name;

	cursor__load(&c, fd, hdr, HEADER_PMU_MAPPINGS);
	nr = cursor__u32(&c);
	assert_true(nr >= 2);
	for (i = 0; i < nr; i++) {
		type = cursor__u32(&c);
		name = cursor__string(&c);
		if (!strcmp(name, "software")) {
			software = true;
			assert_int_equal(type, PERF_TYPE_SOFTWARE);
		}
		if (!strcmp(name, "tracepoint")) {
			tracepoint = true;
			assert_int_equal(type, PERF_TYPE_TRACEPOINT);
		}
	}
	assert_true(software && tracepoint);
	cursor__done(&c);
}

static void check_cache(int fd, const struct perf_file_header *hdr)
{
	struct cursor c;
	u32 nr, i, level, prev = 0;

	cursor__load(&c, fd, hdr, HEADER_CACHE);
	assert_int_equal(cursor__u32(&c), 1);
	nr = cursor__u32(&c);
	for (i = 0; i < nr; i++) {
		level = cursor__u32(&c);
		assert_true(level >= prev);
		prev = level;
		cursor__u32(&c);	/* line size */
		cursor__u32(&c);	/* sets */
		cursor__u32(&c);	/* ways */
		assert_true(strlen(cursor__string(&c)) > 0);	/* type */
		assert_true(strlen(cursor__string(&c)) > 0);	/* size */
		assert_true(strlen(cursor__string(&c)) > 0);	/* shared CPUs */
	}
	cursor__done(&c);
}

static void check_mem_topology(int fd, const struct perf_file_header *hdr)
{
	struct cursor c;
	u64 nr, i, size, prev = 0;

	cursor__load(&c, fd, hdr, HEADER_MEM_TOPOLOGY);
	assert_int_equal(cursor__u64(&c), 1);
	assert_true(cursor__u64(&c) > 0);	/* block size */
	nr = cursor__u64(&c);
	assert_true(nr >= 1);
	for (i = 0; i < nr; i++) {
		u64 node = cursor__u64(&c), w;

		assert_true(i == 0 || node > prev);
		prev = node;
		size = cursor__u64(&c);
		assert_int_equal(cursor__u64(&c), size);
		for (w = 0; w < (size + 63) / 64; w++)
			cursor__u64(&c);
	}
	cursor__done(&c);
}

static void check_pmu_caps(int fd, const struct perf_file_header *hdr)
{
	struct cursor c;
	u32 nr, i, j, nr_caps;

	cursor__load(&c, fd, hdr, HEADER_PMU_CAPS);
	nr = cursor__u32(&c);
	for (i = 0; i < nr; i++) {
		nr_caps = cursor__u32(&c);
		assert_true(nr_caps > 0);
		for (j = 0; j < 2 * nr_caps; j++)
			cursor__string(&c);
		assert_true(strcmp(cursor__string(&c), "cpu") != 0);
	}
	cursor__done(&c);
}

static void test_end_host_features(void **state)
{
	static const char *argv[] = { "ignored-argv0", "record", "-F", "1000", "--", "it's", NULL };
	struct fixture *f = *state;
	struct header_env env = {
		.argc = 6, .argv = argv,
		.first_sample_time = 123456789, .last_sample_time = 987654321,
		.no_buildid = true,
	};
	struct perf_file_header hdr;
	struct topology *topo;
	struct utsname uts;
	struct sysinfo si;
	struct cursor c;
	u32 nr_avail, nr, i;
	u64 data_offset = start_and_fill(f, 256);

	assert_int_equal(lseek(f->fd, 5, SEEK_SET), 5);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 256, &env), 0);
	assert_int_equal(lseek(f->fd, 5, SEEK_CUR), 10);

	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(hdr.data.offset, data_offset);
	assert_int_equal(hdr.data.size, 256);
	assert_int_equal(hdr.attrs.offset, 104 + 5 * 8);

	assert_true(header__has_feat(&hdr, HEADER_HOSTNAME));
	assert_true(header__has_feat(&hdr, HEADER_OSRELEASE));
	assert_true(header__has_feat(&hdr, HEADER_VERSION));
	assert_true(header__has_feat(&hdr, HEADER_ARCH));
	assert_true(header__has_feat(&hdr, HEADER_NRCPUS));
	assert_true(header__has_feat(&hdr, HEADER_TOTAL_MEM));
	assert_true(header__has_feat(&hdr, HEADER_CMDLINE));
	assert_true(header__has_feat(&hdr, HEADER_EVENT_DESC));
	assert_true(header__has_feat(&hdr, HEADER_CPU_TOPOLOGY));
	assert_true(header__has_feat(&hdr, HEADER_NUMA_TOPOLOGY));
	assert_true(header__has_feat(&hdr, HEADER_PMU_MAPPINGS));
	assert_true(header__has_feat(&hdr, HEADER_SAMPLE_TIME));
	assert_true(header__has_feat(&hdr, HEADER_PMU_CAPS));
#if defined(__x86_64__) || defined(__i386__)
	assert_true(header__has_feat(&hdr, HEADER_CPUID));
	assert_true(header__has_feat(&hdr, HEADER_CPUDESC));
#endif
	assert_false(header__has_feat(&hdr, HEADER_TRACING_DATA));
	assert_false(header__has_feat(&hdr, HEADER_BUILD_ID));
	assert_false(header__has_feat(&hdr, HEADER_CLOCKID));
	assert_false(header__has_feat(&hdr, HEADER_CLOCK_DATA));
	assert_false(header__has_feat(&hdr, HEADER_COMPRESSED));
	assert_false(header__has_feat(&hdr, HEADER_GROUP_DESC));
	assert_false(header__has_feat(&hdr, HEADER_DIR_FORMAT));
	assert_false(header__has_feat(&hdr, HEADER_RESERVED));
	assert_false(header__has_feat(&hdr, -1));
	assert_false(header__has_feat(&hdr, HEADER_FEAT_BITS));

	assert_int_equal(check_sections_contiguous(f->fd, &hdr), nr_feats(&hdr));

	assert_int_equal(uname(&uts), 0);
	read_string_feat(f->fd, &hdr, HEADER_HOSTNAME, uts.nodename);
	read_string_feat(f->fd, &hdr, HEADER_OSRELEASE, uts.release);
	read_string_feat(f->fd, &hdr, HEADER_ARCH, uts.machine);
	read_string_feat(f->fd, &hdr, HEADER_VERSION, "precord " PRECORD_VERSION);

	cursor__load(&c, f->fd, &hdr, HEADER_NRCPUS);
	nr_avail = cursor__u32(&c);
	assert_int_equal(cursor__u32(&c), sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(nr_avail >= (u32)sysconf(_SC_NPROCESSORS_ONLN));
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_TOTAL_MEM);
	assert_int_equal(sysinfo(&si), 0);
	assert_int_equal(cursor__u64(&c), (u64)si.totalram * si.mem_unit / 1024);
	cursor__done(&c);

	check_cmdline(f->fd, &hdr, 6, argv);
	check_event_desc(f->fd, &hdr, f);
	check_host_cpu_topology(f->fd, &hdr, nr_avail);

	topo = topology__new();
	assert_non_null(topo);
	cursor__load(&c, f->fd, &hdr, HEADER_NUMA_TOPOLOGY);
	nr = cursor__u32(&c);
	assert_int_equal(nr, topology__nr_groups(topo, TOPO_NUMA));
	for (i = 0; i < nr; i++) {
		u64 total, free_kb;

		assert_int_equal(cursor__u32(&c), topology__node_os_index(topo, (int)i));
		total = cursor__u64(&c);
		free_kb = cursor__u64(&c);
		assert_true(total > 0 && free_kb > 0 && free_kb <= total);
		assert_true(strlen(cursor__string(&c)) > 0);
	}
	cursor__done(&c);
	topology__delete(topo);

	cursor__load(&c, f->fd, &hdr, HEADER_SAMPLE_TIME);
	assert_int_equal(cursor__u64(&c), 123456789);
	assert_int_equal(cursor__u64(&c), 987654321);
	cursor__done(&c);

	check_pmu_mappings(f->fd, &hdr);
	check_pmu_caps(f->fd, &hdr);
	if (header__has_feat(&hdr, HEADER_CACHE))
		check_cache(f->fd, &hdr);
	if (header__has_feat(&hdr, HEADER_MEM_TOPOLOGY))
		check_mem_topology(f->fd, &hdr);
}

/* Expect the next strings of c to be exactly these, in this order. */
static void expect_strings(struct cursor *c, const char *const *expect, u32 nr)
{
	u32 i;

	assert_int_equal(cursor__u32(c), nr);
	for (i = 0; i < nr; i++)
		assert_string_equal(cursor__string(c), expect[i]);
}

static bool host_has_die(void)
{
	struct utsname uts;

	if (uname(&uts) || strncmp(uts.machine, "x86_64", 6))
		return false;
	return access("/sys/devices/system/cpu/cpu0/topology/die_cpus_list", F_OK) == 0;
}

static void test_end_synthetic_topology(void **state)
{
	static const char *const packages[] = { "0-3", "4-7" };
	static const char *const cores[] = { "0-1", "2-3", "4-5", "6-7" };
	struct fixture *f = *state;
	struct topology *topo = topology__new_synthetic("pack:2 numa:1 core:2 pu:2");
	struct header_env env = { .topo = topo, .no_buildid = true };
	struct perf_file_header hdr;
	struct cursor c;
	u64 data_offset;
	u32 cpu, i;

	assert_non_null(topo);
	data_offset = start_and_fill(f, 24);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 24, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	/* Host-only features are left out with a synthetic topology. */
	assert_false(header__has_feat(&hdr, HEADER_CACHE));
	assert_false(header__has_feat(&hdr, HEADER_MEM_TOPOLOGY));
	assert_int_equal(check_sections_contiguous(f->fd, &hdr), nr_feats(&hdr));

	cursor__load(&c, f->fd, &hdr, HEADER_NRCPUS);
	assert_int_equal(cursor__u32(&c), 8);
	assert_int_equal(cursor__u32(&c), 8);
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_CPU_TOPOLOGY);
	expect_strings(&c, packages, 2);
	expect_strings(&c, cores, 4);
	for (cpu = 0; cpu < 8; cpu++) {
		assert_int_equal(cursor__u32(&c), cpu / 2);	/* core */
		assert_int_equal(cursor__u32(&c), cpu / 4);	/* socket */
	}
	if (host_has_die()) {
		expect_strings(&c, packages, 2);	/* no die level: dies are packages */
		for (cpu = 0; cpu < 8; cpu++)
			assert_int_equal(cursor__u32(&c), cpu / 4);
	}
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_NUMA_TOPOLOGY);
	assert_int_equal(cursor__u32(&c), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(cursor__u32(&c), i);
		assert_int_equal(cursor__u64(&c), 1024 * 1024);	/* hwloc's synthetic 1 GiB */
		assert_int_equal(cursor__u64(&c), 0);
		assert_string_equal(cursor__string(&c), packages[i]);
	}
	cursor__done(&c);
	topology__delete(topo);
}

/* CPUs 0, 2, 4, 6: 7 available, 4 online; the holes get -1 ids, like perf's. */
static void test_end_sparse_cpus(void **state)
{
	struct fixture *f = *state;
	struct topology *topo = topology__new_synthetic("pack:1 core:4 pu:1(indexes=0,2,4,6)");
	struct header_env env = { .topo = topo, .no_buildid = true };
	struct perf_file_header hdr;
	struct cursor c;
	u64 data_offset;
	u32 cpu;

	assert_non_null(topo);
	data_offset = start_and_fill(f, 8);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);

	cursor__load(&c, f->fd, &hdr, HEADER_NRCPUS);
	assert_int_equal(cursor__u32(&c), 7);	/* avail */
	assert_int_equal(cursor__u32(&c), 4);	/* online */
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_CPU_TOPOLOGY);
	assert_int_equal(cursor__u32(&c), 1);
	assert_string_equal(cursor__string(&c), "0,2,4,6");
	assert_int_equal(cursor__u32(&c), 4);
	assert_string_equal(cursor__string(&c), "0");
	assert_string_equal(cursor__string(&c), "2");
	assert_string_equal(cursor__string(&c), "4");
	assert_string_equal(cursor__string(&c), "6");
	for (cpu = 0; cpu < 7; cpu++) {
		assert_int_equal(cursor__u32(&c), cpu % 2 ? (u32)-1 : cpu / 2);
		assert_int_equal(cursor__u32(&c), cpu % 2 ? (u32)-1 : 0);
	}
	if (host_has_die()) {
		assert_int_equal(cursor__u32(&c), 1);
		assert_string_equal(cursor__string(&c), "0,2,4,6");
		for (cpu = 0; cpu < 7; cpu++)
			assert_int_equal(cursor__u32(&c), cpu % 2 ? (u32)-1 : 0);
	}
	cursor__done(&c);
	topology__delete(topo);
}

/* 272 CPUs numbered like a Xeon Phi: core c holds c, c+68, c+136, c+204. */
static void test_end_xeon_phi_topology(void **state)
{
	struct fixture *f = *state;
	struct topology *topo =
		topology__new_synthetic("pack:1 numa:4 core:17 pu:4(indexes=4*68:1*4)");
	struct header_env env = { .topo = topo, .no_buildid = true };
	struct perf_file_header hdr;
	char expect[64];
	struct cursor c;
	u64 data_offset;
	u32 i;

	assert_non_null(topo);
	data_offset = start_and_fill(f, 8);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);

	cursor__load(&c, f->fd, &hdr, HEADER_NRCPUS);
	assert_int_equal(cursor__u32(&c), 272);
	assert_int_equal(cursor__u32(&c), 272);
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_CPU_TOPOLOGY);
	assert_int_equal(cursor__u32(&c), 1);
	assert_string_equal(cursor__string(&c), "0-271");
	assert_int_equal(cursor__u32(&c), 68);
	for (i = 0; i < 68; i++) {
		snprintf(expect, sizeof(expect), "%u,%u,%u,%u", i, i + 68, i + 136, i + 204);
		assert_string_equal(cursor__string(&c), expect);
	}
	for (i = 0; i < 272; i++) {
		assert_int_equal(cursor__u32(&c), i % 68);
		assert_int_equal(cursor__u32(&c), 0);
	}
	if (host_has_die()) {
		assert_int_equal(cursor__u32(&c), 1);
		assert_string_equal(cursor__string(&c), "0-271");
		for (i = 0; i < 272; i++)
			assert_int_equal(cursor__u32(&c), 0);
	}
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_NUMA_TOPOLOGY);
	assert_int_equal(cursor__u32(&c), 4);
	for (i = 0; i < 4; i++) {
		u32 a = 17 * i, b = a + 16;

		assert_int_equal(cursor__u32(&c), i);
		cursor__u64(&c);
		cursor__u64(&c);
		snprintf(expect, sizeof(expect), "%u-%u,%u-%u,%u-%u,%u-%u", a, b, a + 68, b + 68,
			 a + 136, b + 136, a + 204, b + 204);
		assert_string_equal(cursor__string(&c), expect);
	}
	cursor__done(&c);
	topology__delete(topo);
}

static void test_end_clock_and_compressed(void **state)
{
	struct fixture *f = *state;
	struct header_env env = {
		.clockid_set = true, .clockid = CLOCK_MONOTONIC_RAW,
		.clock_tod_ns = 1700000000123456789ULL, .clock_ref_ns = 5550001234ULL,
		.no_buildid = true,
		.compressed = true, .comp_level = 3, .comp_ratio = 7, .comp_mmap_len = 528384,
	};
	struct perf_file_header hdr;
	struct timespec res;
	struct cursor c;
	u64 data_offset = start_and_fill(f, 16);

	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 16, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(check_sections_contiguous(f->fd, &hdr), nr_feats(&hdr));

	assert_int_equal(clock_getres(CLOCK_MONOTONIC_RAW, &res), 0);
	cursor__load(&c, f->fd, &hdr, HEADER_CLOCKID);
	assert_int_equal(cursor__u64(&c), res.tv_nsec);
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_CLOCK_DATA);
	assert_int_equal(cursor__u32(&c), 1);
	assert_int_equal(cursor__u32(&c), CLOCK_MONOTONIC_RAW);
	assert_int_equal(cursor__u64(&c), 1700000000123456789ULL);
	assert_int_equal(cursor__u64(&c), 5550001234ULL);
	cursor__done(&c);

	cursor__load(&c, f->fd, &hdr, HEADER_COMPRESSED);
	assert_int_equal(cursor__u32(&c), 0);
	assert_int_equal(cursor__u32(&c), 1);	/* zstd */
	assert_int_equal(cursor__u32(&c), 3);
	assert_int_equal(cursor__u32(&c), 7);
	assert_int_equal(cursor__u32(&c), 528384);
	cursor__done(&c);
}

/* CLOCK_DATA taken at write time when the caller gave no reference pair. */
static void test_end_clock_data_now(void **state)
{
	struct fixture *f = *state;
	struct header_env env = { .clockid_set = true, .clockid = CLOCK_MONOTONIC, .no_buildid = true };
	struct perf_file_header hdr;
	struct timespec before, after;
	struct cursor c;
	u64 data_offset = start_and_fill(f, 8), ref;

	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &before), 0);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, &env), 0);
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &after), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	cursor__load(&c, f->fd, &hdr, HEADER_CLOCK_DATA);
	assert_int_equal(cursor__u32(&c), 1);
	assert_int_equal(cursor__u32(&c), CLOCK_MONOTONIC);
	assert_true(cursor__u64(&c) > 1500000000ULL * 1000000000ULL);	/* after 2017 */
	ref = cursor__u64(&c);
	assert_true(ref >= (u64)before.tv_sec * 1000000000ULL + (u64)before.tv_nsec);
	assert_true(ref <= (u64)after.tv_sec * 1000000000ULL + (u64)after.tv_nsec);
	cursor__done(&c);
}

static const char fake_tracing[] = "fake tracing data, 8 bytes of padding follow\0\0\0\0\0\0\0";

/* Test double for the TRACING_DATA writer: writes at fd's offset, like tracefs does. */
static ssize_t fake_tracing_data(int fd, struct evlist *evlist)
{
	return write(fd, fake_tracing, sizeof(fake_tracing)) == (ssize_t)sizeof(fake_tracing) ?
	       (ssize_t)sizeof(fake_tracing) : -EIO;
}

/* Test double that writes part of its payload and then fails. */
static ssize_t failing_tracing_data(int fd, struct evlist *evlist)
{
	static const char junk[4096] = { 'x' };

	if (write(fd, junk, sizeof(junk)) < 0)
		return -errno;
	return -ENOSPC;
}

static void make_tracepoint(struct fixture *f)
{
	f->ev.evsel[1].attr.type = PERF_TYPE_TRACEPOINT;
	f->ev.evsel[1].attr.config = 316;
	f->ev.evsel[1].name = "sched:sched_switch";
}

static void test_end_tracing_data(void **state)
{
	struct fixture *f = *state;
	struct header_env env = { .no_buildid = true, .tracing_data = fake_tracing_data };
	struct perf_file_header hdr;
	struct perf_file_section sec;
	char buf[sizeof(fake_tracing)];
	struct utsname uts;
	u64 data_offset;

	make_tracepoint(f);
	data_offset = start_and_fill(f, 40);
	assert_int_equal(lseek(f->fd, 3, SEEK_SET), 3);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 40, &env), 0);
	assert_int_equal(lseek(f->fd, 0, SEEK_CUR), 3);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_true(header__has_feat(&hdr, HEADER_TRACING_DATA));
	assert_int_equal(check_sections_contiguous(f->fd, &hdr), nr_feats(&hdr));

	/* TRACING_DATA is the first payload, right after the table. */
	assert_int_equal(header__feat_section(f->fd, &hdr, HEADER_TRACING_DATA, &sec), 0);
	assert_int_equal(sec.offset, data_offset + 40 + 16 * (u64)nr_feats(&hdr));
	assert_int_equal(sec.size, sizeof(fake_tracing));
	assert_int_equal(pread(f->fd, buf, sizeof(buf), (off_t)sec.offset), sizeof(buf));
	assert_memory_equal(buf, fake_tracing, sizeof(buf));
	assert_int_equal(uname(&uts), 0);
	read_string_feat(f->fd, &hdr, HEADER_HOSTNAME, uts.nodename);
	check_event_desc(f->fd, &hdr, f);
}

/*
 * Features written ahead (a one-file recording): between the attrs and the
 * data, with no feature bits in the header; read back, they are the ones
 * the end writes, TRACING_DATA included, and the end takes the moved data
 * offset (and no other).
 */
static void test_start_ahead(void **state)
{
	struct fixture *f = *state;
	struct header_env env = { .no_buildid = true, .tracing_data = fake_tracing_data };
	struct header_payload *ahead, *end;
	struct perf_file_header hdr;
	u64 plain, data_offset = 0, i;
	int nr_ahead, nr_end, k;
	u8 byte;

	make_tracepoint(f);
	assert_int_equal(header__write_start(f->fd, &f->ev.evlist, &plain), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(header__read_ahead(f->fd, &hdr, &ahead, &nr_ahead), -ENOENT);

	assert_int_equal(header__write_start_ahead(f->fd, &f->ev.evlist, &env, &data_offset), 0);
	assert_true(data_offset > plain + 48);
	assert_int_equal(data_offset % 8, 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(hdr.data.offset, data_offset);
	assert_int_equal(hdr.data.size, 0);
	assert_int_equal(nr_feats(&hdr), 0);
	for (i = 0; i < 40; i++) {
		byte = (u8)(i * 7 + 1);
		assert_int_equal(pwrite(f->fd, &byte, 1, (off_t)(data_offset + i)), 1);
	}
	assert_int_equal(header__read_ahead(f->fd, &hdr, &ahead, &nr_ahead), 0);
	assert_true(nr_ahead > 5);
	assert_int_equal(ahead[0].feat, HEADER_TRACING_DATA);
	assert_int_equal(ahead[0].size, sizeof(fake_tracing));
	assert_memory_equal(ahead[0].data, fake_tracing, sizeof(fake_tracing));

	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset + 8, 32, &env), -EINVAL);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 40, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(hdr.data.offset, data_offset);
	assert_int_equal(hdr.data.size, 40);
	check_event_desc(f->fd, &hdr, f);
	assert_int_equal(header__read_payloads(f->fd, &hdr, &end, &nr_end), 0);
	assert_int_equal(nr_end, nr_ahead);
	for (k = 0; k < nr_end; k++) {
		assert_int_equal(ahead[k].feat, end[k].feat);
		if (end[k].feat == HEADER_HOSTNAME || end[k].feat == HEADER_EVENT_DESC ||
		    end[k].feat == HEADER_TRACING_DATA || end[k].feat == HEADER_NRCPUS) {
			assert_int_equal(ahead[k].size, end[k].size);
			assert_memory_equal(ahead[k].data, end[k].data, end[k].size);
		}
	}
	header_payloads__free(ahead, nr_ahead);
	header_payloads__free(end, nr_end);
	/* the ahead block is found from the header as it ends up too */
	assert_int_equal(header__read_ahead(f->fd, &hdr, &ahead, &nr_ahead), 0);
	assert_int_equal(nr_ahead, nr_end);
	header_payloads__free(ahead, nr_ahead);
}

/* A TRACING_DATA failure leaves a valid header without it, and is reported. */
static void test_end_tracing_data_fails(void **state)
{
	struct fixture *f = *state;
	struct header_env env = { .no_buildid = true, .tracing_data = failing_tracing_data };
	struct perf_file_header hdr;
	struct perf_file_section sec;
	struct utsname uts;
	u64 data_offset, slots;

	make_tracepoint(f);
	data_offset = start_and_fill(f, 40);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 40, &env), -ENOSPC);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(hdr.data.size, 40);
	assert_false(header__has_feat(&hdr, HEADER_TRACING_DATA));
	/* One spare table slot, as perf leaves for a dropped feature. */
	slots = (u64)nr_feats(&hdr) + 1;
	assert_int_equal(uname(&uts), 0);
	read_string_feat(f->fd, &hdr, HEADER_HOSTNAME, uts.nodename);
	assert_int_equal(header__feat_section(f->fd, &hdr, HEADER_HOSTNAME, &sec), 0);
	assert_int_equal(sec.offset, data_offset + 40 + 16 * slots);
	check_event_desc(f->fd, &hdr, f);
}

static void test_end_build_id_table(void **state)
{
	static const u8 table[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct fixture *f = *state;
	struct header_env env = { .build_id_table = table, .build_id_table_size = sizeof(table) };
	struct perf_file_header hdr;
	struct cursor c;
	u64 data_offset = start_and_fill(f, 8);

	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	cursor__load(&c, f->fd, &hdr, HEADER_BUILD_ID);
	assert_int_equal(c.len, sizeof(table));
	assert_memory_equal(c.buf, table, sizeof(table));
	c.pos = c.len;
	cursor__done(&c);

	/* --buildid-mmap: no BUILD_ID section even with a table. */
	env.no_buildid = true;
	assert_int_equal(ftruncate(f->fd, 0), 0);
	data_offset = start_and_fill(f, 8);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_false(header__has_feat(&hdr, HEADER_BUILD_ID));
	assert_int_equal(check_sections_contiguous(f->fd, &hdr), nr_feats(&hdr));
}

/* A NULL env: every default; CMDLINE holds just the executable. */
static void test_end_null_env(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	struct cursor c;
	u64 data_offset = start_and_fill(f, 8);

	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, NULL), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	check_cmdline(f->fd, &hdr, 1, NULL);
	cursor__load(&c, f->fd, &hdr, HEADER_SAMPLE_TIME);
	assert_int_equal(cursor__u64(&c), 0);
	assert_int_equal(cursor__u64(&c), 0);
	cursor__done(&c);
}

/*
 * The disk fills up after the data: no room for the features. The header
 * still gets the data size (with no features) so perf can read the data.
 * RLIMIT_FSIZE stands in for a full disk (EFBIG instead of ENOSPC).
 */
static void test_end_no_room_for_features(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	struct rlimit old, lim;
	u64 data_offset = start_and_fill(f, 64);
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	int i, err;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)(data_offset + 64 + 1000);	/* a few payloads fit */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err = header__write_end(f->fd, &f->ev.evlist, data_offset, 64, NULL);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);

	assert_int_equal(err, -EFBIG);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(hdr.data.offset, data_offset);
	assert_int_equal(hdr.data.size, 64);
	for (i = 0; i < HEADER_FEAT_BITS / 64; i++)
		assert_int_equal(hdr.adds_features[i], 0);
}

/*
 * The payloads in memory are byte for byte the ones at the end of a file
 * written with the same env, in the same order, TRACING_DATA aside.
 */
static void test_feature_payloads(void **state)
{
	struct fixture *f = *state;
	struct topology *topo = topology__new_synthetic("pack:1 numa:1 core:2 pu:2");
	const char *argv[] = { "precord", "-o", "-", "--", "true" };
	struct header_env env = {
		.argc = 5, .argv = argv, .topo = topo, .no_buildid = true,
		.tracing_data = fake_tracing_data, .compressed = true, .comp_level = 3,
		.comp_mmap_len = 4096,
	};
	struct header_payload *mem, *file;
	struct perf_file_header hdr;
	int nr_mem, nr_file, i;
	u64 data_offset;

	assert_non_null(topo);
	make_tracepoint(f);
	data_offset = start_and_fill(f, 16);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 16, &env), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(header__read_payloads(f->fd, &hdr, &file, &nr_file), 0);
	assert_int_equal(header__feature_payloads(&f->ev.evlist, &env, &mem, &nr_mem), 0);

	assert_int_equal(file[0].feat, HEADER_TRACING_DATA);
	assert_int_equal(nr_mem, nr_file - 1);
	for (i = 0; i < nr_mem; i++) {
		assert_int_equal(mem[i].feat, file[i + 1].feat);
		assert_int_equal(mem[i].size, file[i + 1].size);
		assert_memory_equal(mem[i].data, file[i + 1].data, mem[i].size);
		assert_true(i == 0 || mem[i].feat > mem[i - 1].feat);
	}
	assert_int_equal(mem[nr_mem - 1].feat, HEADER_PMU_CAPS);
	header_payloads__free(mem, nr_mem);
	header_payloads__free(file, nr_file);

	/* a NULL env: the defaults, as header__write_end() takes it */
	assert_int_equal(header__feature_payloads(&f->ev.evlist, NULL, &mem, &nr_mem), 0);
	assert_true(nr_mem > 0);
	assert_int_equal(mem[0].feat, HEADER_HOSTNAME);
	header_payloads__free(mem, nr_mem);
	topology__delete(topo);
}

static const struct header_payload *payload_of(const struct header_payload *p, int nr, int feat)
{
	int i;

	for (i = 0; i < nr; i++)
		if (p[i].feat == feat)
			return &p[i];
	return NULL;
}

/*
 * BPF_PROG_INFO and BPF_BTF: a u32 count, then the blobs kept, as they
 * are; both written with a count of 0 when there are none, as perf does.
 */
static void test_bpf_features(void **state)
{
	struct fixture *f = *state;
	u8 info_a[16] = { 1, 2, 3 }, info_b[24] = { 4, 5 }, btf[12] = { 7 };
	struct bpf_blob infos[2] = {
		{ .id = 3, .size = sizeof(info_a), .data = info_a },
		{ .id = 9, .size = sizeof(info_b), .data = info_b },
	};
	struct bpf_blob btfs[1] = { { .id = 12, .size = sizeof(btf), .data = btf } };
	struct bpf_progs progs = { .infos = infos, .nr_infos = 2, .btfs = btfs, .nr_btfs = 1 };
	struct header_env env = { .no_buildid = true, .bpf_progs = &progs };
	const struct header_payload *p;
	struct header_payload *mem;
	u8 want[4 + sizeof(info_a) + sizeof(info_b)];
	u32 zero = 0, count;
	int nr;

	assert_int_equal(header__feature_payloads(&f->ev.evlist, &env, &mem, &nr), 0);
	p = payload_of(mem, nr, HEADER_BPF_PROG_INFO);
	assert_non_null(p);
	count = 2;
	memcpy(want, &count, 4);
	memcpy(want + 4, info_a, sizeof(info_a));
	memcpy(want + 4 + sizeof(info_a), info_b, sizeof(info_b));
	assert_int_equal(p->size, sizeof(want));
	assert_memory_equal(p->data, want, sizeof(want));
	p = payload_of(mem, nr, HEADER_BPF_BTF);
	assert_non_null(p);
	count = 1;
	memcpy(want, &count, 4);
	memcpy(want + 4, btf, sizeof(btf));
	assert_int_equal(p->size, 4 + sizeof(btf));
	assert_memory_equal(p->data, want, 4 + sizeof(btf));
	header_payloads__free(mem, nr);

	assert_int_equal(header__feature_payloads(&f->ev.evlist, NULL, &mem, &nr), 0);
	p = payload_of(mem, nr, HEADER_BPF_PROG_INFO);
	assert_non_null(p);
	assert_int_equal(p->size, 4);
	assert_memory_equal(p->data, &zero, 4);
	p = payload_of(mem, nr, HEADER_BPF_BTF);
	assert_non_null(p);
	assert_int_equal(p->size, 4);
	assert_memory_equal(p->data, &zero, 4);
	header_payloads__free(mem, nr);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct perf_file_header hdr;
	struct perf_file_section sec;
	u64 data_offset = start_and_fill(f, 8), off;
	int rdonly;

	/* data_offset that does not match the evlist. */
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset + 8, 0, NULL), -EINVAL);

	/* Not a perf.data file, an empty one, and a bad descriptor. */
	assert_int_equal(pwrite(f->fd, "NOTPERF!", 8, 0), 8);
	assert_int_equal(header__read(f->fd, &hdr), -EINVAL);
	assert_int_equal(ftruncate(f->fd, 0), 0);
	assert_int_equal(header__read(f->fd, &hdr), -EINVAL);
	assert_int_equal(header__read(-1, &hdr), -EBADF);

	/* Writing through a read-only descriptor fails with the errno. */
	rdonly = open(f->path, O_RDONLY);
	assert_true(rdonly >= 0);
	assert_int_equal(header__write_start(rdonly, &f->ev.evlist, &off), -EBADF);
	assert_int_equal(header__write_end(rdonly, &f->ev.evlist, data_offset, 0, NULL), -EBADF);
	close(rdonly);

	/* A feature the file does not have. */
	data_offset = start_and_fill(f, 8);
	assert_int_equal(header__write_end(f->fd, &f->ev.evlist, data_offset, 8, NULL), 0);
	assert_int_equal(header__read(f->fd, &hdr), 0);
	assert_int_equal(header__feat_section(f->fd, &hdr, HEADER_GROUP_DESC, &sec), -ENOENT);
	assert_int_equal(header__feat_section(f->fd, &hdr, 300, &sec), -ENOENT);
}

#define fixture_test(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_start_layout),
		fixture_test(test_end_host_features),
		fixture_test(test_end_synthetic_topology),
		fixture_test(test_end_sparse_cpus),
		fixture_test(test_end_xeon_phi_topology),
		fixture_test(test_end_clock_and_compressed),
		fixture_test(test_end_clock_data_now),
		fixture_test(test_end_tracing_data),
		fixture_test(test_start_ahead),
		fixture_test(test_end_tracing_data_fails),
		fixture_test(test_end_build_id_table),
		fixture_test(test_end_null_env),
		fixture_test(test_end_no_room_for_features),
		fixture_test(test_feature_payloads),
		fixture_test(test_bpf_features),
		fixture_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
