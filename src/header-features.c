// SPDX-License-Identifier: GPL-2.0
/*
 * header-features.c — the feature sections of a perf.data file, each
 * payload as perf 6.1's write_<feature>() lays it out
 * (tools/perf/util/header.c), built in memory from /proc, /sys, uname,
 * the topology and the evlist; header.c places them in the file.
 *
 * Each payload except TRACING_DATA is built in memory first, so a feature
 * whose source is missing (perf's write_*() returning an error) is simply
 * left out before anything is laid out. Strings are perf's: a u32 length,
 * then the bytes NUL-padded to a multiple of 64. VERSION holds
 * "precord <version>", so files say who wrote them. GROUP_DESC is written
 * when the evlist has a group of two or more events. BPF_PROG_INFO and
 * BPF_BTF are always written, as perf built with libbpf writes them: the
 * programs and BTF synthesize__bpf() kept, or a count of 0. HYBRID_TOPOLOGY,
 * AUXTRACE, STAT and BRANCH_STACK are not produced; HEADER_BUILD_ID and
 * DIR_FORMAT come as they are from the env (see header.h).
 *
 * Data flow: struct header_env and the evlist → feat_ctx__init() →
 * feats__collect(): one struct fbuf per wanted feature, in ascending bit
 * order → header.c. Runs on the thread that finishes the output file; no
 * state outlives a call.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>

#include "header-internal.h"
#include "precord/synthesize.h"
#include "precord/topology.h"
#include "precord/tracefs.h"
#include "precord/util.h"

#include "version.h"

#define NAME_ALIGN		64	/* perf strings are padded to this */
#define MAX_CACHE_LEVELS	4	/* perf reads cache/index0..3 */
#define PERF_COMP_ZSTD		1
#define SYS_CPU			"/sys/devices/system/cpu"
#define SYS_NODE		"/sys/devices/system/node"
#define SYS_PMUS		"/sys/bus/event_source/devices"

/* ---- a feature payload being built in memory ---- */

void fbuf__put(struct fbuf *b, const void *p, size_t n)
{
	if (b->err || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		u8 *data;

		while (cap < b->len + n)
			cap *= 2;
		data = realloc(b->data, cap);
		if (!data) {
			b->err = -ENOMEM;
			return;
		}
		b->data = data;
		b->cap = cap;
	}
	if (p)
		memcpy(b->data + b->len, p, n);
	else
		memset(b->data + b->len, 0, n);
	b->len += n;
}

static void fbuf__u32(struct fbuf *b, u32 v)
{
	fbuf__put(b, &v, sizeof(v));
}

static void fbuf__u64(struct fbuf *b, u64 v)
{
	fbuf__put(b, &v, sizeof(v));
}

/* perf's do_write_string(): u32 padded length, string, NUL padding. */
static void fbuf__string(struct fbuf *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	fbuf__u32(b, (u32)len);
	fbuf__put(b, s, olen);
	fbuf__put(b, NULL, len - olen);
}

void fbuf__release(struct fbuf *b)
{
	free(b->data);
	*b = (struct fbuf){ 0 };
}

int fbuf__write_at(struct fbuf *b, int fd, u64 off)
{
	int err = b->err ? b->err : pwrite_all(fd, b->data, b->len, off);

	fbuf__release(b);
	return err;
}

/* A cpu map as a perf CPU list string ("0-3,8"). */
static void fbuf__cpu_list(struct fbuf *b, const struct cpu_map *map)
{
	char small[256], *big;
	int len = cpu_map__snprintf(map, small, sizeof(small));

	if (len < 0) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	if ((size_t)len < sizeof(small)) {
		fbuf__string(b, small);
		return;
	}
	big = malloc((size_t)len + 1);
	if (!big) {
		b->err = b->err ? b->err : -ENOMEM;
		return;
	}
	cpu_map__snprintf(map, big, (size_t)len + 1);
	fbuf__string(b, big);
	free(big);
}

/* ---- small file readers ---- */

/* The highest CPU number in a sysfs CPU list file ("0-3,8-11") + 1. */
static int cpu_list_file__max(const char *path)
{
	char buf[4096];
	const char *p, *end;
	s64 v, max = -1;
	int err = file__read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	for (p = buf; *p; p = end) {
		if (!isdigit((unsigned char)*p)) {	/* ',' and '-' */
			end = p + 1;
			continue;
		}
		if (parse__s64(p, 10, &v, &end))
			return -EINVAL;
		if (v > max)
			max = v;
	}
	return max < 0 || max >= INT_MAX ? -EINVAL : (int)max + 1;
}

/* ---- what every feature writer may look at ---- */

/* perf: cpu__max_present_cpu() and sysconf(_SC_NPROCESSORS_ONLN). */
static void feat_ctx__count_cpus(struct feat_ctx *ctx)
{
	int avail = -1;
	long online = -1;

	if (!ctx->synthetic) {
		avail = cpu_list_file__max(SYS_CPU "/present");
		online = sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (avail <= 0)
		avail = topology__max_cpu(ctx->topo);
	if (online <= 0)
		online = topology__nr_cpus(ctx->topo);
	ctx->nr_cpus_avail = (u32)avail;
	ctx->nr_cpus_online = (u32)online;
}

/* ---- the features, each as perf's write_<feature>() lays it out ---- */

static int feat__build_id(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__put(b, ctx->env->build_id_table, ctx->env->build_id_table_size);
	return b->err;
}

static int feat__hostname(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__string(b, ctx->uts.nodename);
	return b->err;
}

static int feat__osrelease(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__string(b, ctx->uts.release);
	return b->err;
}

static int feat__version(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__string(b, "precord " PRECORD_VERSION);
	return b->err;
}

static int feat__arch(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__string(b, ctx->uts.machine);
	return b->err;
}

static int feat__nrcpus(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__u32(b, ctx->nr_cpus_avail);
	fbuf__u32(b, ctx->nr_cpus_online);
	return b->err;
}

/* The "model name" of /proc/cpuinfo, every run of blanks made one space. */
static int feat__cpudesc(struct fbuf *b, const struct feat_ctx *ctx)
{
	char *line, *s, *p, *q;
	int err = file__find_line("/proc/cpuinfo", "model name", &line);

	if (err)
		return err;
	s = line;
	p = strchr(line, ':');
	if (p && p[1] == ' ' && p[2])
		s = p + 2;
	p = strchr(s, '\n');
	if (p)
		*p = '\0';
	for (p = q = s; *p; p++) {
		if (isspace((unsigned char)*p)) {
			/* q never passes p: p[-1] is still a blank iff it was */
			if (p > s && isspace((unsigned char)p[-1]))
				continue;
			*q++ = ' ';
		} else {
			*q++ = *p;
		}
	}
	*q = '\0';
	fbuf__string(b, s);
	free(line);
	return b->err;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
/* perf's x86 get_cpuid(): "vendor,family,model,stepping". */
static int cpuid__format(char *buf, size_t size)
{
	unsigned int a, b, c, d, lvl;
	int family = -1, model = -1, step = -1;
	char vendor[13];

	if (!__get_cpuid(0, &lvl, &b, &c, &d))
		return -ENOTSUP;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (lvl >= 1) {
		__cpuid(1, a, b, c, d);
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(buf, size, "%s,%u,%u,%u", vendor, (unsigned int)family,
		 (unsigned int)model, (unsigned int)step);
	return 0;
}
#else
/* perf records no CPUID where it has no get_cpuid() for the architecture. */
static int cpuid__format(char *buf, size_t size)
{
	return -ENOTSUP;
}
#endif

static int feat__cpuid(struct fbuf *b, const struct feat_ctx *ctx)
{
	char buf[64];
	int err = cpuid__format(buf, sizeof(buf));

	if (err)
		return err;
	fbuf__string(b, buf);
	return b->err;
}

static int feat__total_mem(struct fbuf *b, const struct feat_ctx *ctx)
{
	char *line;
	u64 kb;
	int err = file__find_line("/proc/meminfo", "MemTotal:", &line);

	if (err)
		return err;
	if (parse__key_u64(line, "MemTotal", 10, &kb))
		err = -EINVAL;
	free(line);
	if (err)
		return err;
	fbuf__u64(b, kb);
	return b->err;
}

static int feat__cmdline(struct fbuf *b, const struct feat_ctx *ctx)
{
	const struct header_env *env = ctx->env;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i, argc = env->argv && env->argc > 1 ? env->argc : 1;

	if (n <= 0)
		snprintf(exe, sizeof(exe), "precord");
	else
		exe[n] = '\0';
	fbuf__u32(b, (u32)argc);
	fbuf__string(b, exe);
	for (i = 1; i < argc; i++)
		fbuf__string(b, env->argv[i] ? env->argv[i] : "");
	return b->err;
}

static int feat__event_desc(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct evlist *evlist = ctx->evlist;
	struct evsel *evsel;
	int i;

	fbuf__u32(b, (u32)evlist->nr_entries);
	fbuf__u32(b, (u32)sizeof(struct perf_event_attr));
	evlist__for_each_evsel(evlist, evsel, i) {
		struct perf_event_attr attr = evsel__file_attr(evsel);

		fbuf__put(b, &attr, sizeof(attr));
		fbuf__u32(b, (u32)evsel->nr_ids);
		fbuf__string(b, evsel->name ? evsel->name : "unknown");
		fbuf__put(b, evsel->ids, sizeof(u64) * (size_t)evsel->nr_ids);
	}
	return b->err;
}

/* Leaders of groups of more than one event (perf's evlist nr_groups). */
static int evlist__nr_groups(struct evlist *evlist)
{
	struct evsel *evsel;
	int i, n = 0;

	evlist__for_each_evsel(evlist, evsel, i)
		n += evsel__is_group_leader(evsel) && evsel->nr_members > 1;
	return n;
}

/*
 * perf's write_group_desc(): the number of groups, then for each its name
 * ("{anon_group}" when it has none), its leader's index and its size.
 */
static int feat__group_desc(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct evsel *evsel;
	int i;

	fbuf__u32(b, (u32)evlist__nr_groups(ctx->evlist));
	evlist__for_each_evsel(ctx->evlist, evsel, i) {
		if (!evsel__is_group_leader(evsel) || evsel->nr_members < 2)
			continue;
		fbuf__string(b, evsel->group_name ? evsel->group_name : "{anon_group}");
		fbuf__u32(b, (u32)evsel->idx);
		fbuf__u32(b, (u32)evsel->nr_members);
	}
	return b->err;
}

static bool want__group_desc(const struct feat_ctx *ctx)
{
	return evlist__nr_groups(ctx->evlist) > 0;
}

/*
 * The CPU lists of the groups at level, one per group, in the order their
 * first CPU appears (perf reads each online CPU's sysfs list and keeps the
 * new ones).
 */
static int cpu_topology__put_lists(struct fbuf *b, const struct topology *topo,
				   const struct cpu_map *cpus, enum topo_level level)
{
	int nr = topology__nr_groups(topo, level), *order, n = 0, i, g;
	struct cpu cpu;
	bool *seen;

	if (nr < 0)
		return nr;
	order = calloc((size_t)nr + 1, sizeof(*order));
	seen = calloc((size_t)nr + 1, sizeof(*seen));
	if (!order || !seen) {
		free(order);
		free(seen);
		return -ENOMEM;
	}
	cpu_map__for_each_cpu(cpu, i, cpus) {
		g = topology__group_of(topo, level, cpu);
		if (g >= 0 && g < nr && !seen[g]) {
			seen[g] = true;
			order[n++] = g;
		}
	}
	fbuf__u32(b, (u32)n);
	for (i = 0; i < n; i++) {
		struct cpu_map *map = topology__group_cpus(topo, level, order[i]);

		if (!map) {
			b->err = b->err ? b->err : -ENOMEM;
			break;
		}
		fbuf__cpu_list(b, map);
		cpu_map__put(map);
	}
	free(order);
	free(seen);
	return b->err;
}

/* A host CPU's core/package/die id as perf reads it from sysfs; -1 when unreadable. */
static int cpu__sysfs_id(int cpu, const char *file)
{
	char path[128];
	int val;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, file);
	return file__read_int(path, 0, &val) ? -1 : val;
}

/* The host's sysfs ids, or a synthetic topology's group indexes (-1: no such CPU). */
static int cpu__id(const struct feat_ctx *ctx, int cpu, enum topo_level level)
{
	static const char *const sysfs_file[] = {
		[TOPO_CORE] = "core_id",
		[TOPO_PACKAGE] = "physical_package_id",
		[TOPO_DIE] = "die_id",
	};

	if (!ctx->synthetic)
		return cpu__sysfs_id(cpu, sysfs_file[level]);
	return topology__group_of(ctx->topo, level, (struct cpu){ cpu });
}

/* perf writes die information on x86_64 and s390x when sysfs has it. */
static bool host__has_die_topology(const struct utsname *uts)
{
	if (strncmp(uts->machine, "x86_64", 6) && strncmp(uts->machine, "s390x", 5))
		return false;
	return access(SYS_CPU "/cpu0/topology/die_cpus_list", F_OK) == 0;
}

/*
 * Package ("core siblings") lists, core ("thread siblings") lists, then
 * {core_id, socket_id} of every CPU below nr_cpus_avail, then die lists and
 * every CPU's die_id where perf has dies.
 */
static int feat__cpu_topology(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct cpu_map *cpus = topology__cpus(ctx->topo);
	u32 cpu;
	int err;

	if (!cpus)
		return -ENOMEM;
	err = cpu_topology__put_lists(b, ctx->topo, cpus, TOPO_PACKAGE);
	if (!err)
		err = cpu_topology__put_lists(b, ctx->topo, cpus, TOPO_CORE);
	for (cpu = 0; !err && cpu < ctx->nr_cpus_avail; cpu++) {
		fbuf__u32(b, (u32)cpu__id(ctx, (int)cpu, TOPO_CORE));
		fbuf__u32(b, (u32)cpu__id(ctx, (int)cpu, TOPO_PACKAGE));
	}
	if (!err && host__has_die_topology(&ctx->uts)) {
		err = cpu_topology__put_lists(b, ctx->topo, cpus, TOPO_DIE);
		for (cpu = 0; !err && cpu < ctx->nr_cpus_avail; cpu++)
			fbuf__u32(b, (u32)cpu__id(ctx, (int)cpu, TOPO_DIE));
	}
	cpu_map__put(cpus);
	return err ? err : b->err;
}

static int feat__numa_topology(struct fbuf *b, const struct feat_ctx *ctx)
{
	int i, nr = topology__nr_groups(ctx->topo, TOPO_NUMA);

	if (nr < 0)
		return nr;
	fbuf__u32(b, (u32)nr);
	for (i = 0; i < nr; i++) {
		struct cpu_map *map = topology__group_cpus(ctx->topo, TOPO_NUMA, i);

		if (!map)
			return -ENOMEM;
		fbuf__u32(b, (u32)topology__node_os_index(ctx->topo, i));
		fbuf__u64(b, topology__node_mem_kb(ctx->topo, i));
		fbuf__u64(b, topology__node_mem_free_kb(ctx->topo, i));
		fbuf__cpu_list(b, map);
		cpu_map__put(map);
	}
	return b->err;
}

/* Call fn for every PMU in sysfs, in directory order (perf's scan order). */
static int pmus__for_each(int (*fn)(void *arg, const char *name), void *arg)
{
	DIR *dir = opendir(SYS_PMUS);
	struct dirent *d;
	int err = 0;

	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			err = fn(arg, d->d_name);
	closedir(dir);
	return err;
}

struct pmu_list {
	struct fbuf	entries;
	u32		nr;
};

/* A count, then what fn added for each PMU: the PMU_MAPPINGS and PMU_CAPS layout. */
static int pmu_list__write(struct fbuf *b, int (*fn)(void *arg, const char *name))
{
	struct pmu_list list = { 0 };
	int err = pmus__for_each(fn, &list);

	if (!err) {
		fbuf__u32(b, list.nr);
		fbuf__put(b, list.entries.data, list.entries.len);
		err = b->err;
	}
	fbuf__release(&list.entries);
	return err;
}

static int pmu_mappings__add(void *arg, const char *name)
{
	struct pmu_list *list = arg;
	char path[PATH_MAX];
	int type;

	snprintf(path, sizeof(path), SYS_PMUS "/%s/type", name);
	if (file__read_int(path, 0, &type))
		return 0;
	fbuf__u32(&list->entries, (u32)type);
	fbuf__string(&list->entries, name);
	list->nr++;
	return list->entries.err;
}

static int feat__pmu_mappings(struct fbuf *b, const struct feat_ctx *ctx)
{
	return pmu_list__write(b, pmu_mappings__add);
}

/*
 * A PMU's capabilities (sysfs caps/<name> holds the value) as perf's
 * __write_pmu_caps() lays them out after the count: name and value strings.
 */
static int pmu__caps(const char *pmu, struct fbuf *out, u32 *nr)
{
	char path[PATH_MAX], value[256];
	struct dirent *d;
	DIR *dir;

	*nr = 0;
	snprintf(path, sizeof(path), SYS_PMUS "/%s/caps", pmu);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYS_PMUS "/%s/caps/%s", pmu, d->d_name);
		if (file__read_line(path, value, sizeof(value)))
			continue;
		fbuf__string(out, d->d_name);
		fbuf__string(out, value);
		(*nr)++;
	}
	closedir(dir);
	return out->err;
}

static int feat__cpu_pmu_caps(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct fbuf caps = { 0 };
	u32 nr;
	int err;

	if (access(SYS_PMUS "/cpu", F_OK))
		return -ENOENT;
	err = pmu__caps("cpu", &caps, &nr);
	if (!err) {
		fbuf__u32(b, nr);
		fbuf__put(b, caps.data, caps.len);
		err = b->err;
	}
	fbuf__release(&caps);
	return err;
}

static int pmu_caps__add(void *arg, const char *name)
{
	struct pmu_list *list = arg;
	struct fbuf caps = { 0 };
	u32 nr;
	int err;

	if (!strcmp(name, "cpu"))
		return 0;
	err = pmu__caps(name, &caps, &nr);
	if (!err && nr) {
		fbuf__u32(&list->entries, nr);
		fbuf__put(&list->entries, caps.data, caps.len);
		fbuf__string(&list->entries, name);
		list->nr++;
		err = list->entries.err;
	}
	fbuf__release(&caps);
	return err;
}

/* Every PMU but "cpu" that has capabilities: caps, then the PMU's name. */
static int feat__pmu_caps(struct fbuf *b, const struct feat_ctx *ctx)
{
	return pmu_list__write(b, pmu_caps__add);
}

struct cache_level {
	u32	level;
	u32	line_size;
	u32	sets;
	u32	ways;
	char	type[32];
	char	size[32];
	char	map[4096];
};

/* cpuN/cache/indexI: 0, 1 when there is no such cache, or -errno. */
static int cache_level__read(struct cache_level *c, int cpu, int index)
{
	static const char *const ints[] = {
		"level", "coherency_line_size", "number_of_sets", "ways_of_associativity",
	};
	u32 *vals[] = { &c->level, &c->line_size, &c->sets, &c->ways };
	char dir[128], path[192];
	size_t i;
	int v;

	snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache/index%d", cpu, index);
	if (access(dir, F_OK))
		return 1;
	for (i = 0; i < ARRAY_SIZE(ints); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ints[i]);
		if (file__read_int(path, 0, &v))
			return -EINVAL;
		*vals[i] = (u32)v;
	}
	snprintf(path, sizeof(path), "%s/type", dir);
	if (file__read_line(path, c->type, sizeof(c->type)))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/size", dir);
	if (file__read_line(path, c->size, sizeof(c->size)))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	if (file__read_line(path, c->map, sizeof(c->map)))
		return -EINVAL;
	return 0;
}

static bool cache_level__equal(const struct cache_level *a, const struct cache_level *b)
{
	return a->level == b->level && a->line_size == b->line_size &&
	       a->sets == b->sets && a->ways == b->ways &&
	       !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/* Add c unless an equal one is there, keeping the array sorted by level, stably. */
static int caches__add(struct cache_level **caches, int *nr, const struct cache_level *c)
{
	struct cache_level *tmp;
	int i, at;

	for (i = 0; i < *nr; i++)
		if (cache_level__equal(&(*caches)[i], c))
			return 0;
	tmp = realloc(*caches, sizeof(*tmp) * (size_t)(*nr + 1));
	if (!tmp)
		return -ENOMEM;
	*caches = tmp;
	for (at = *nr; at > 0 && tmp[at - 1].level > c->level; at--)
		;
	memmove(&tmp[at + 1], &tmp[at], sizeof(*tmp) * (size_t)(*nr - at));
	tmp[at] = *c;
	(*nr)++;
	return 0;
}

/* Every distinct cache of every possible CPU, by level (perf's write_cache()). */
static int feat__cache(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct cache_level *caches = NULL, c;
	int nr_cpus = cpu_list_file__max(SYS_CPU "/possible");
	int cpu, index, nr = 0, err = 0, i;

	if (nr_cpus < 0)
		nr_cpus = (int)ctx->nr_cpus_avail;
	for (cpu = 0; !err && cpu < nr_cpus; cpu++) {
		for (index = 0; index < MAX_CACHE_LEVELS; index++) {
			err = cache_level__read(&c, cpu, index);
			if (err)
				break;
			err = caches__add(&caches, &nr, &c);
			if (err)
				break;
		}
		if (err == 1)
			err = 0;
	}
	if (!err) {
		fbuf__u32(b, 1);	/* version */
		fbuf__u32(b, (u32)nr);
		for (i = 0; i < nr; i++) {
			fbuf__u32(b, caches[i].level);
			fbuf__u32(b, caches[i].line_size);
			fbuf__u32(b, caches[i].sets);
			fbuf__u32(b, caches[i].ways);
			fbuf__string(b, caches[i].type);
			fbuf__string(b, caches[i].size);
			fbuf__string(b, caches[i].map);
		}
		err = b->err;
	}
	free(caches);
	return err;
}

static int feat__sample_time(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__u64(b, ctx->env->first_sample_time);
	fbuf__u64(b, ctx->env->last_sample_time);
	return b->err;
}

static int u32__cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Node directories of sysfs, sorted by node number. */
static int mem_nodes__list(u32 **nodesp, int *nrp)
{
	DIR *dir = opendir(SYS_NODE);
	u32 *nodes = NULL, *tmp, id;
	struct dirent *d;
	int nr = 0;

	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (parse__name_uint(d->d_name, "node", &id))
			continue;
		tmp = realloc(nodes, sizeof(*nodes) * (size_t)(nr + 1));
		if (!tmp) {
			free(nodes);
			closedir(dir);
			return -ENOMEM;
		}
		nodes = tmp;
		nodes[nr++] = id;
	}
	closedir(dir);
	qsort(nodes, (size_t)nr, sizeof(*nodes), u32__cmp);
	*nodesp = nodes;
	*nrp = nr;
	return 0;
}

/* One node: id, bitmap size, then perf's bitmap (size again, u64 words). */
static int mem_node__put(struct fbuf *b, u32 node)
{
	char path[64];
	struct dirent *d;
	u64 *words, size = 0, nr_words;
	u32 block;
	DIR *dir;

	snprintf(path, sizeof(path), SYS_NODE "/node%u", node);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (!parse__name_uint(d->d_name, "memory", &block) && block >= size)
			size = (u64)block + 1;
	if (!size)
		size = 1;
	nr_words = (size + 63) / 64;
	words = calloc((size_t)nr_words, sizeof(*words));
	if (!words) {
		closedir(dir);
		return -ENOMEM;
	}
	rewinddir(dir);
	while ((d = readdir(dir)))
		if (!parse__name_uint(d->d_name, "memory", &block) && block < size)
			words[block / 64] |= 1ULL << (block % 64);
	closedir(dir);
	fbuf__u64(b, node);
	fbuf__u64(b, size);
	fbuf__u64(b, size);
	fbuf__put(b, words, sizeof(*words) * (size_t)nr_words);
	free(words);
	return b->err;
}

/* perf's write_mem_topology(): version 1, block size, then every node's memory blocks. */
static int feat__mem_topology(struct fbuf *b, const struct feat_ctx *ctx)
{
	u64 bsize;
	u32 *nodes = NULL;
	int nr = 0, i, err = file__read_u64("/sys/devices/system/memory/block_size_bytes", 16,
					    &bsize);

	if (err)
		return err;
	err = mem_nodes__list(&nodes, &nr);
	if (err)
		return err;
	fbuf__u64(b, 1);
	fbuf__u64(b, bsize);
	fbuf__u64(b, (u64)nr);
	for (i = 0; !err && i < nr; i++)
		err = mem_node__put(b, nodes[i]);
	free(nodes);
	return err ? err : b->err;
}

/* perf stores the resolution of the clock in ns (0 when unknown). */
static int feat__clockid(struct fbuf *b, const struct feat_ctx *ctx)
{
	struct timespec res;
	u64 res_ns = 0;

	if (!clock_getres(ctx->env->clockid, &res) && !res.tv_sec)
		res_ns = (u64)res.tv_nsec;
	fbuf__u64(b, res_ns);
	return b->err;
}

static int feat__clock_data(struct fbuf *b, const struct feat_ctx *ctx)
{
	const struct header_env *env = ctx->env;
	u64 tod_ns = env->clock_tod_ns, ref_ns = env->clock_ref_ns;

	if (!tod_ns && !ref_ns) {
		struct timespec ref;
		struct timeval tod;

		if (gettimeofday(&tod, NULL) || clock_gettime(env->clockid, &ref))
			return -errno;
		tod_ns = (u64)tod.tv_sec * 1000000000ULL + (u64)tod.tv_usec * 1000ULL;
		ref_ns = (u64)ref.tv_sec * 1000000000ULL + (u64)ref.tv_nsec;
	}
	fbuf__u32(b, 1);	/* version */
	fbuf__u32(b, (u32)env->clockid);
	fbuf__u64(b, tod_ns);
	fbuf__u64(b, ref_ns);
	return b->err;
}

static int feat__compressed(struct fbuf *b, const struct feat_ctx *ctx)
{
	const struct header_env *env = ctx->env;

	fbuf__u32(b, 0);	/* version: perf record leaves it 0 */
	fbuf__u32(b, PERF_COMP_ZSTD);
	fbuf__u32(b, env->comp_level);
	fbuf__u32(b, env->comp_ratio);
	fbuf__u32(b, env->comp_mmap_len);
	return b->err;
}

/*
 * HEADER_BPF_PROG_INFO, HEADER_BPF_BTF: a u32 count, then the programs'
 * info or the BTF objects as synthesize__bpf() kept them (by ascending id).
 * Written with a count of 0 when there are none, as perf does.
 */
static void feat__bpf_blobs(struct fbuf *b, const struct bpf_blob *blobs, int nr)
{
	int i;

	fbuf__u32(b, (u32)nr);
	for (i = 0; i < nr; i++)
		fbuf__put(b, blobs[i].data, blobs[i].size);
}

static int feat__bpf_prog_info(struct fbuf *b, const struct feat_ctx *ctx)
{
	const struct bpf_progs *p = ctx->env->bpf_progs;

	feat__bpf_blobs(b, p ? p->infos : NULL, p ? p->nr_infos : 0);
	return b->err;
}

static int feat__bpf_btf(struct fbuf *b, const struct feat_ctx *ctx)
{
	const struct bpf_progs *p = ctx->env->bpf_progs;

	feat__bpf_blobs(b, p ? p->btfs : NULL, p ? p->nr_btfs : 0);
	return b->err;
}

static bool want__build_id(const struct feat_ctx *ctx)
{
	return !ctx->env->no_buildid && ctx->env->build_id_table;
}

static bool want__host_only(const struct feat_ctx *ctx)
{
	return !ctx->synthetic;
}

static bool want__clock(const struct feat_ctx *ctx)
{
	return ctx->env->clockid_set;
}

static bool want__compressed(const struct feat_ctx *ctx)
{
	return ctx->env->compressed;
}

static bool want__dir_format(const struct feat_ctx *ctx)
{
	return ctx->env->dir_format;
}

/* HEADER_DIR_FORMAT: u64 version; 1 = data.N files of raw, per-ring records. */
static int feat__dir_format(struct fbuf *b, const struct feat_ctx *ctx)
{
	fbuf__u64(b, 1);
	return b->err;
}

struct feat_op {
	int	feat;
	bool	(*wanted)(const struct feat_ctx *ctx);	/* NULL: always */
	int	(*write)(struct fbuf *b, const struct feat_ctx *ctx);
};

/* Ascending feature bits; TRACING_DATA (bit 1) is streamed, see feats__write(). */
static const struct feat_op feat_ops[] = {
	{ HEADER_BUILD_ID,	want__build_id,		feat__build_id },
	{ HEADER_HOSTNAME,	NULL,			feat__hostname },
	{ HEADER_OSRELEASE,	NULL,			feat__osrelease },
	{ HEADER_VERSION,	NULL,			feat__version },
	{ HEADER_ARCH,		NULL,			feat__arch },
	{ HEADER_NRCPUS,	NULL,			feat__nrcpus },
	{ HEADER_CPUDESC,	NULL,			feat__cpudesc },
	{ HEADER_CPUID,		NULL,			feat__cpuid },
	{ HEADER_TOTAL_MEM,	NULL,			feat__total_mem },
	{ HEADER_CMDLINE,	NULL,			feat__cmdline },
	{ HEADER_EVENT_DESC,	NULL,			feat__event_desc },
	{ HEADER_CPU_TOPOLOGY,	NULL,			feat__cpu_topology },
	{ HEADER_NUMA_TOPOLOGY,	NULL,			feat__numa_topology },
	{ HEADER_PMU_MAPPINGS,	NULL,			feat__pmu_mappings },
	{ HEADER_GROUP_DESC,	want__group_desc,	feat__group_desc },
	{ HEADER_CACHE,		want__host_only,	feat__cache },
	{ HEADER_SAMPLE_TIME,	NULL,			feat__sample_time },
	{ HEADER_MEM_TOPOLOGY,	want__host_only,	feat__mem_topology },
	{ HEADER_CLOCKID,	want__clock,		feat__clockid },
	{ HEADER_DIR_FORMAT,	want__dir_format,	feat__dir_format },
	{ HEADER_BPF_PROG_INFO,	NULL,			feat__bpf_prog_info },
	{ HEADER_BPF_BTF,	NULL,			feat__bpf_btf },
	{ HEADER_COMPRESSED,	want__compressed,	feat__compressed },
	{ HEADER_CPU_PMU_CAPS,	NULL,			feat__cpu_pmu_caps },
	{ HEADER_CLOCK_DATA,	want__clock,		feat__clock_data },
	{ HEADER_PMU_CAPS,	NULL,			feat__pmu_caps },
};

#define NR_FEAT_OPS	ARRAY_SIZE(feat_ops)

/* Build every wanted payload; the ones that fail are left out. Returns how many. */
int feats__collect(const struct feat_ctx *ctx, struct feat_payload *pay)
{
	size_t i;
	int n = 0;

	for (i = 0; i < NR_FEAT_OPS; i++) {
		const struct feat_op *op = &feat_ops[i];

		if (op->wanted && !op->wanted(ctx))
			continue;
		pay[n] = (struct feat_payload){ .feat = op->feat };
		if (op->write(&pay[n].buf, ctx)) {
			fbuf__release(&pay[n].buf);
			continue;
		}
		n++;
	}
	return n;
}

void feats__release(struct feat_payload *pay, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		fbuf__release(&pay[i].buf);
}

int feat_ctx__init(struct feat_ctx *ctx, struct evlist *evlist,
			  const struct header_env *env, struct topology **owned)
{
	*owned = NULL;
	*ctx = (struct feat_ctx){ .evlist = evlist, .env = env, .topo = env->topo };
	if (uname(&ctx->uts) < 0)
		return -errno;
	if (!ctx->topo) {
		*owned = topology__new();
		if (!*owned)
			return errno ? -errno : -ENOMEM;
		ctx->topo = *owned;
	}
	ctx->synthetic = ctx->topo->synthetic;
	feat_ctx__count_cpus(ctx);
	return 0;
}
