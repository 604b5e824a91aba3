// SPDX-License-Identifier: GPL-2.0
/*
 * header.c — the perf.data file header and its feature sections, byte for
 * byte as perf 6.1 writes and reads them (tools/perf/util/header.c).
 *
 * Layout owned here:
 *
 *   0              struct perf_file_header (104 bytes, "PERFILE2")
 *   104            each evsel's u64 id array, in evlist order
 *   attrs.offset   one struct perf_file_attr per evsel {attr, ids section}
 *   attrs end      (header__write_start_ahead() only) the features written
 *                  ahead: struct ahead_head {"PRECAHED", data.offset,
 *                  feature bitmap}, then a table and payloads as at the end;
 *                  perf skips these bytes, `precord merge FILE` reads them
 *   data.offset    the data section (written by others)
 *   data end       the feature table: one {offset, size} per set feature bit,
 *                  ascending bit order, then the feature payloads
 *
 * header__write_start() writes everything up to the data section when the
 * file is opened, with data.size 0 and no feature bits; header__write_end()
 * appends the table and payloads and rewrites the header. Both use pwrite,
 * so the caller's file offset does not matter (TRACING_DATA is the exception:
 * its writer writes at the current offset, which is moved there and back).
 *
 * Each payload except TRACING_DATA is built in memory first, so a feature
 * whose source is missing (perf's write_*() returning an error) is simply
 * left out before anything is laid out. Strings are perf's: a u32 length,
 * then the bytes NUL-padded to a multiple of 64. VERSION holds
 * "precord <version>", so files say who wrote them. GROUP_DESC is written
 * when the evlist has a group of two or more events. HEADER_BUILD_ID,
 * BPF_PROG_INFO, BPF_BTF, HYBRID_TOPOLOGY, AUXTRACE, STAT,
 * BRANCH_STACK and DIR_FORMAT are not produced here (see header.h for
 * BUILD_ID).
 *
 * A file whose end may never be written (one streaming thread writes it,
 * and a SIGKILL leaves it without features: perf then cannot read its
 * tracepoints) gets the features once ahead of its data, so the file itself
 * holds what finishing it needs.
 *
 * The *_raw() functions and header__read_attrs()/header__read_payloads() copy
 * another file's header around a new data section (the merge of a perf
 * directory): attrs are kept as the bytes their writer laid out, whatever
 * its attr_size, and feature payloads are copied without being parsed.
 *
 * Runs on the thread that opens and finishes the output file. Reads /proc,
 * /sys and uname; no state outlives a call.
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

#include "precord/header.h"
#include "precord/evlist.h"
#include "precord/topology.h"
#include "precord/tracefs.h"

#include "version.h"

#define NAME_ALIGN		64	/* perf strings are padded to this */
#define MAX_CACHE_LEVELS	4	/* perf reads cache/index0..3 */
#define PERF_COMP_ZSTD		1
#define SYS_CPU			"/sys/devices/system/cpu"
#define SYS_NODE		"/sys/devices/system/node"
#define SYS_PMUS		"/sys/bus/event_source/devices"

/* ---- a feature payload being built in memory ---- */

struct fbuf {
	u8	*data;
	size_t	len;
	size_t	cap;
	int	err;	/* first error (-ENOMEM); later puts do nothing */
};

static void fbuf__put(struct fbuf *b, const void *p, size_t n)
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

static void fbuf__release(struct fbuf *b)
{
	free(b->data);
	*b = (struct fbuf){ 0 };
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

static char *str__trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* The first line of a file, trimmed, into buf. 0 or -errno. */
static int file__read_line(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "r");
	char *s;

	if (!fp)
		return -errno;
	if (!fgets(buf, (int)size, fp)) {
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	s = str__trim(buf);
	memmove(buf, s, strlen(s) + 1);
	return 0;
}

static int file__read_int(const char *path, int *val)
{
	char buf[64], *end;
	long v;
	int err = file__read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*val = (int)v;
	return 0;
}

/* The highest CPU number in a sysfs CPU list file ("0-3,8-11") + 1. */
static int cpu_list_file__max(const char *path)
{
	char buf[4096], *p, *end;
	long v, max = -1;
	int err = file__read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	for (p = buf; *p; p = end) {
		if (!isdigit((unsigned char)*p)) {	/* ',' and '-' */
			end = p + 1;
			continue;
		}
		v = strtol(p, &end, 10);
		if (v > max)
			max = v;
	}
	return max < 0 || max >= INT_MAX ? -EINVAL : (int)max + 1;
}

/* A "Key:   value" line of /proc/cpuinfo or /proc/meminfo; 0 or -errno. */
static int proc__find_line(const char *path, const char *key, char **linep)
{
	size_t len = 0, klen = strlen(key);
	FILE *fp = fopen(path, "r");
	char *line = NULL;

	if (!fp)
		return -errno;
	while (getline(&line, &len, fp) > 0) {
		if (!strncmp(line, key, klen)) {
			fclose(fp);
			*linep = line;
			return 0;
		}
	}
	free(line);
	fclose(fp);
	return -ENOENT;
}

static ssize_t pwrite_all(int fd, const void *buf, size_t len, u64 off)
{
	const u8 *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* ---- what every feature writer may look at ---- */

struct feat_ctx {
	struct evlist			*evlist;
	const struct header_env		*env;
	const struct topology		*topo;
	bool				synthetic;
	struct utsname			uts;
	u32				nr_cpus_avail;	/* HEADER_NRCPUS, per-CPU ids */
	u32				nr_cpus_online;
};

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
	int err = proc__find_line("/proc/cpuinfo", "model name", &line);

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
	int err = proc__find_line("/proc/meminfo", "MemTotal:", &line);

	if (err)
		return err;
	if (sscanf(line, "%*s %" SCNu64, &kb) != 1)
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

static struct perf_event_attr evsel__file_attr(const struct evsel *evsel)
{
	struct perf_event_attr attr = evsel->attr;

	attr.size = sizeof(attr);
	return attr;
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
	return file__read_int(path, &val) ? -1 : val;
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
	if (file__read_int(path, &type))
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
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ints[i]);
		if (file__read_int(path, &v))
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
		if (sscanf(d->d_name, "node%u", &id) != 1)
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
		if (sscanf(d->d_name, "memory%u", &block) == 1 && block >= size)
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
		if (sscanf(d->d_name, "memory%u", &block) == 1 && block < size)
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
	char buf[64], *end;
	u64 bsize;
	u32 *nodes = NULL;
	int nr = 0, i, err = file__read_line("/sys/devices/system/memory/block_size_bytes",
					 buf, sizeof(buf));

	if (err)
		return err;
	bsize = strtoull(buf, &end, 16);
	if (end == buf)
		return -EINVAL;
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
	{ HEADER_COMPRESSED,	want__compressed,	feat__compressed },
	{ HEADER_CPU_PMU_CAPS,	NULL,			feat__cpu_pmu_caps },
	{ HEADER_CLOCK_DATA,	want__clock,		feat__clock_data },
	{ HEADER_PMU_CAPS,	NULL,			feat__pmu_caps },
};

#define NR_FEAT_OPS	(sizeof(feat_ops) / sizeof(feat_ops[0]))

struct feat_payload {
	int		feat;
	struct fbuf	buf;
};

/* Build every wanted payload; the ones that fail are left out. Returns how many. */
static int feats__collect(const struct feat_ctx *ctx, struct feat_payload *pay)
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

static void feats__release(struct feat_payload *pay, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		fbuf__release(&pay[i].buf);
}

/* Stream TRACING_DATA to [off, ...) with the writer's own file offset. */
static ssize_t tracing_data__write(int fd, const struct feat_ctx *ctx, u64 off)
{
	ssize_t (*write_fn)(int fd, struct evlist *evlist) = ctx->env->tracing_data;
	off_t saved = lseek(fd, 0, SEEK_CUR);
	ssize_t ret;

	if (saved < 0)
		return -errno;
	if (!write_fn)
		write_fn = tracefs__write_tracing_data;
	if (lseek(fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	ret = write_fn(fd, ctx->evlist);
	if (lseek(fd, saved, SEEK_SET) < 0 && ret >= 0)
		ret = -errno;
	return ret;
}

static void features__set(u64 *features, int feat)
{
	features[feat / 64] |= 1ULL << (feat % 64);
}

/*
 * Lay out the table at table_off and the payloads after it. The table has a
 * slot for TRACING_DATA even when writing it fails: the reader takes as many
 * entries as there are feature bits, so a spare zero entry at the end is
 * harmless (perf does the same). What a failed TRACING_DATA wrote is
 * overwritten by the next payloads or left past the last one, where nothing
 * points. *tracing_err gets its -errno, *end the offset past the last payload.
 */
static int feats__write(int fd, const struct feat_ctx *ctx, struct feat_payload *pay,
			int nr_pay, u64 table_off, u64 *features, int *tracing_err, u64 *end)
{
	bool tracing = evlist__has_tracepoints(ctx->evlist);
	int nr_sec = nr_pay + (tracing ? 1 : 0), n = 0, i;
	struct perf_file_section *sec = calloc((size_t)nr_sec + 1, sizeof(*sec));
	u64 pos = table_off + sizeof(*sec) * (u64)nr_sec;
	ssize_t ret;

	if (!sec)
		return -ENOMEM;
	*tracing_err = 0;
	if (tracing) {
		ret = tracing_data__write(fd, ctx, pos);
		if (ret >= 0) {
			sec[n++] = (struct perf_file_section){ pos, (u64)ret };
			pos += (u64)ret;
			features__set(features, HEADER_TRACING_DATA);
		} else {
			*tracing_err = (int)ret;
		}
	}
	for (i = 0; i < nr_pay; i++) {
		ret = pwrite_all(fd, pay[i].buf.data, pay[i].buf.len, pos);
		if (ret)
			goto out_free;
		sec[n++] = (struct perf_file_section){ pos, pay[i].buf.len };
		pos += pay[i].buf.len;
		features__set(features, pay[i].feat);
	}
	ret = pwrite_all(fd, sec, sizeof(*sec) * (size_t)nr_sec, table_off);
	*end = pos;
out_free:
	free(sec);
	return (int)ret;
}

/* ---- the header, ids and attrs ---- */

static u64 header__attrs_offset(const struct evlist *evlist)
{
	u64 off = PERF_FILE_HEADER_SIZE;
	int i;

	for (i = 0; i < evlist->nr_entries; i++)
		off += sizeof(u64) * (u64)evlist->entries[i]->nr_ids;
	return off;
}

static u64 header__data_offset(const struct evlist *evlist)
{
	return header__attrs_offset(evlist) +
	       sizeof(struct perf_file_attr) * (u64)evlist->nr_entries;
}

static void header__fill(struct perf_file_header *hdr, const struct evlist *evlist,
			 u64 data_offset, u64 data_size, const u64 *features)
{
	u64 attrs = header__attrs_offset(evlist);

	*hdr = (struct perf_file_header){
		.magic		= PERF_MAGIC,
		.size		= sizeof(*hdr),
		.attr_size	= sizeof(struct perf_file_attr),
		.attrs		= { attrs, header__data_offset(evlist) - attrs },
		.data		= { data_offset, data_size },
	};
	if (features)
		memcpy(hdr->adds_features, features, sizeof(hdr->adds_features));
}

int header__write_start(int fd, struct evlist *evlist, u64 *data_offset)
{
	u64 off = header__data_offset(evlist), ids_off = PERF_FILE_HEADER_SIZE;
	struct perf_file_header hdr;
	struct evsel *evsel;
	struct fbuf b = { 0 };
	int i, err;

	header__fill(&hdr, evlist, off, 0, NULL);
	fbuf__put(&b, &hdr, sizeof(hdr));
	evlist__for_each_evsel(evlist, evsel, i)
		fbuf__put(&b, evsel->ids, sizeof(u64) * (size_t)evsel->nr_ids);
	evlist__for_each_evsel(evlist, evsel, i) {
		struct perf_file_attr fattr = {
			.attr	= evsel__file_attr(evsel),
			.ids	= { ids_off, sizeof(u64) * (u64)evsel->nr_ids },
		};

		fbuf__put(&b, &fattr, sizeof(fattr));
		ids_off += fattr.ids.size;
	}
	err = b.err;
	if (!err)
		err = (int)pwrite_all(fd, b.data, b.len, 0);
	fbuf__release(&b);
	if (!err)
		*data_offset = off;
	return err;
}

static int feat_ctx__init(struct feat_ctx *ctx, struct evlist *evlist,
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

/* What header__write_start_ahead() puts right after the attrs. */
struct ahead_head {
	u64	magic;
	u64	data_offset;	/* where the data section starts, past the payloads */
	u64	features[HEADER_FEAT_BITS / 64];
};

#define AHEAD_MAGIC	0x4445484143455250ULL	/* "PRECAHED" */

/* The ahead head at off, or -ENOENT where there is none. */
static int ahead__read(int fd, u64 off, struct ahead_head *head)
{
	ssize_t n = pread(fd, head, sizeof(*head), (off_t)off);

	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*head) || head->magic != AHEAD_MAGIC)
		return -ENOENT;
	return 0;
}

/* data_offset is the evlist's, or the one its features ahead say. */
static bool data_offset__valid(int fd, const struct evlist *evlist, u64 data_offset)
{
	struct ahead_head head;

	if (data_offset == header__data_offset(evlist))
		return true;
	return ahead__read(fd, header__data_offset(evlist), &head) == 0 &&
	       head.data_offset == data_offset;
}

/*
 * Every wanted feature with env, the table at table_off and the payloads
 * after it: feats__write() for an evlist. *end: past the last payload;
 * *began: whether the machine could be read (uname, topology), so that
 * writing was tried.
 */
static int feats__write_env(int fd, struct evlist *evlist, const struct header_env *env,
			    u64 table_off, u64 *features, int *tracing_err, u64 *end,
			    bool *began)
{
	static const struct header_env defaults;
	struct feat_payload pay[HEADER_LAST_FEATURE];
	struct topology *owned;
	struct feat_ctx ctx;
	int nr_pay, err;

	*tracing_err = 0;
	err = feat_ctx__init(&ctx, evlist, env ? env : &defaults, &owned);
	*began = !err;
	if (!err) {
		nr_pay = feats__collect(&ctx, pay);
		err = feats__write(fd, &ctx, pay, nr_pay, table_off, features, tracing_err, end);
		feats__release(pay, nr_pay);
	}
	topology__delete(owned);
	return err;
}

int header__write_end(int fd, struct evlist *evlist, u64 data_offset, u64 data_size,
		      const struct header_env *env)
{
	u64 features[HEADER_FEAT_BITS / 64] = { 0 }, end;
	struct perf_file_header hdr;
	int err, tracing_err;
	bool began;
	ssize_t ret;

	if (!data_offset__valid(fd, evlist, data_offset))
		return -EINVAL;
	err = feats__write_env(fd, evlist, env, data_offset + data_size, features,
			       &tracing_err, &end, &began);
	if (!began)
		return err;
	/*
	 * Features that could not be written (a full disk) are all dropped,
	 * but the data size still goes in, so the data stays readable.
	 */
	if (err)
		memset(features, 0, sizeof(features));
	header__fill(&hdr, evlist, data_offset, data_size, features);
	ret = pwrite_all(fd, &hdr, sizeof(hdr), 0);
	if (!err)
		err = ret ? (int)ret : tracing_err;
	return err;
}

int header__write_start_ahead(int fd, struct evlist *evlist, const struct header_env *env,
			      u64 *data_offset)
{
	struct ahead_head head = { .magic = AHEAD_MAGIC };
	struct perf_file_header hdr;
	u64 plain, end = 0;
	int err, tracing_err;
	bool began;

	err = header__write_start(fd, evlist, &plain);
	if (!err)
		err = feats__write_env(fd, evlist, env, plain + sizeof(head), head.features,
				       &tracing_err, &end, &began);
	if (err)
		return err;
	/* the data's records stay 8-byte aligned in the file, as perf's are */
	head.data_offset = (end + 7) & ~7ULL;
	err = (int)pwrite_all(fd, &head, sizeof(head), plain);
	if (!err) {
		header__fill(&hdr, evlist, head.data_offset, 0, NULL);
		err = (int)pwrite_all(fd, &hdr, sizeof(hdr), 0);
	}
	if (!err)
		*data_offset = head.data_offset;
	return err;
}

int header__feature_payloads(struct evlist *evlist, const struct header_env *env,
			     struct header_payload **featsp, int *nrp)
{
	static const struct header_env defaults;
	struct feat_payload pay[HEADER_LAST_FEATURE];
	struct header_payload *feats;
	struct topology *owned;
	struct feat_ctx ctx;
	int nr_pay = 0, err, i;

	*featsp = NULL;
	*nrp = 0;
	err = feat_ctx__init(&ctx, evlist, env ? env : &defaults, &owned);
	if (!err)
		nr_pay = feats__collect(&ctx, pay);
	topology__delete(owned);
	if (err)
		return err;
	feats = calloc((size_t)nr_pay + 1, sizeof(*feats));
	if (!feats) {
		feats__release(pay, nr_pay);
		return -ENOMEM;
	}
	/* the built buffers change hands: no copy */
	for (i = 0; i < nr_pay; i++)
		feats[i] = (struct header_payload){
			.feat = pay[i].feat, .data = pay[i].buf.data, .size = pay[i].buf.len,
		};
	*featsp = feats;
	*nrp = nr_pay;
	return 0;
}

/* ---- reading back ---- */

int header__read(int fd, struct perf_file_header *hdr)
{
	ssize_t n = pread(fd, hdr, sizeof(*hdr), 0);

	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(*hdr) || hdr->magic != PERF_MAGIC || hdr->size != sizeof(*hdr))
		return -EINVAL;
	return 0;
}

bool header__has_feat(const struct perf_file_header *hdr, int feat)
{
	if (feat < 0 || feat >= HEADER_FEAT_BITS)
		return false;
	return hdr->adds_features[feat / 64] & (1ULL << (feat % 64));
}

int header__feat_section(int fd, const struct perf_file_header *hdr, int feat,
			 struct perf_file_section *sec)
{
	u64 idx = 0;
	ssize_t n;
	int bit;

	if (!header__has_feat(hdr, feat))
		return -ENOENT;
	for (bit = 0; bit < feat; bit++)
		idx += header__has_feat(hdr, bit);
	n = pread(fd, sec, sizeof(*sec),
		  (off_t)(hdr->data.offset + hdr->data.size + idx * sizeof(*sec)));
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(*sec) ? 0 : -EINVAL;
}

/* ---- copying another file's header (merge) ---- */

static int file__size(int fd, u64 *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*size = (u64)st.st_size;
	return 0;
}

static bool section__within(const struct perf_file_section *sec, u64 file_size)
{
	return sec->offset <= file_size && sec->size <= file_size - sec->offset;
}

static int pread_all(int fd, void *buf, size_t len, u64 off)
{
	u8 *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;	/* the file ends before the section does */
		done += (size_t)n;
	}
	return 0;
}

/* The ids section at the end of a raw entry. */
static struct perf_file_section *raw_attr__ids(u8 *entry, u64 attr_size)
{
	return (struct perf_file_section *)(entry + attr_size - sizeof(struct perf_file_section));
}

/*
 * One attr and its ids. *room: bytes of ids the file may still hold. A
 * writer lays each attr's ids out apart, so all of them together fit in
 * the file; ids sections that overlap beyond that (every attr naming the
 * whole file, say) would cost memory quadratic in the file's size, and
 * are refused.
 */
static int header_attr__read(struct header_attr *ha, int fd, u8 *entry, u64 attr_size,
			     u64 file_size, u64 *room)
{
	struct perf_file_section ids;
	u64 len = attr_size - sizeof(ids);

	memcpy(&ids, raw_attr__ids(entry, attr_size), sizeof(ids));
	memcpy(&ha->attr, entry, len < sizeof(ha->attr) ? len : sizeof(ha->attr));
	if (!section__within(&ids, file_size) || ids.size % sizeof(u64) || ids.size > *room)
		return -EINVAL;
	*room -= ids.size;
	ha->nr_ids = ids.size / sizeof(u64);
	ha->ids = malloc(ids.size ? ids.size : 1);
	if (!ha->ids)
		return -ENOMEM;
	return pread_all(fd, ha->ids, ids.size, ids.offset);
}

int header__read_attrs(int fd, const struct perf_file_header *hdr, struct header_attrs *attrs)
{
	u64 file_size, nr, i, room;
	int err;

	*attrs = (struct header_attrs){ .attr_size = hdr->attr_size };
	err = file__size(fd, &file_size);
	if (err)
		return err;
	if (hdr->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    hdr->attr_size % sizeof(u64) || hdr->attrs.size % hdr->attr_size ||
	    !section__within(&hdr->attrs, file_size))
		return -EINVAL;
	nr = hdr->attrs.size / hdr->attr_size;
	if (nr > INT_MAX)
		return -EINVAL;
	attrs->raw = malloc(hdr->attrs.size ? hdr->attrs.size : 1);
	attrs->entries = calloc(nr ? nr : 1, sizeof(*attrs->entries));
	if (!attrs->raw || !attrs->entries) {
		err = -ENOMEM;
		goto out_exit;
	}
	err = pread_all(fd, attrs->raw, hdr->attrs.size, hdr->attrs.offset);
	room = file_size;
	for (i = 0; !err && i < nr; i++) {
		attrs->nr = (int)i + 1;
		err = header_attr__read(&attrs->entries[i], fd, attrs->raw + i * hdr->attr_size,
					hdr->attr_size, file_size, &room);
	}
	if (!err)
		return 0;
out_exit:
	header_attrs__exit(attrs);
	return err;
}

void header_attrs__exit(struct header_attrs *attrs)
{
	int i;

	for (i = 0; attrs->entries && i < attrs->nr; i++)
		free(attrs->entries[i].ids);
	free(attrs->entries);
	free(attrs->raw);
	*attrs = (struct header_attrs){ 0 };
}

/*
 * The payloads of the bits set in features, their table at table_off, each
 * within [lo, hi) of the file.
 */
static int payloads__read(int fd, const u64 *features, u64 table_off, u64 lo, u64 hi,
			  struct header_payload **featsp, int *nrp)
{
	struct perf_file_section sec;
	struct header_payload *feats;
	int bit, nr = 0, err = 0;

	*featsp = NULL;
	*nrp = 0;
	feats = calloc(HEADER_FEAT_BITS, sizeof(*feats));
	if (!feats)
		return -ENOMEM;
	for (bit = 0; !err && bit < HEADER_FEAT_BITS; bit++) {
		if (!(features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		err = pread_all(fd, &sec, sizeof(sec), table_off + (u64)nr * sizeof(sec));
		if (!err && (sec.offset < lo || !section__within(&sec, hi)))
			err = -EINVAL;
		if (err)
			break;
		feats[nr] = (struct header_payload){ .feat = bit, .size = sec.size };
		feats[nr].data = malloc(sec.size ? sec.size : 1);
		if (!feats[nr].data) {
			err = -ENOMEM;
			break;
		}
		nr++;
		err = pread_all(fd, feats[nr - 1].data, sec.size, sec.offset);
	}
	if (err) {
		header_payloads__free(feats, nr);
		return err;
	}
	*featsp = feats;
	*nrp = nr;
	return 0;
}

int header__read_payloads(int fd, const struct perf_file_header *hdr,
		       struct header_payload **featsp, int *nrp)
{
	u64 file_size;
	int err = file__size(fd, &file_size);

	*featsp = NULL;
	*nrp = 0;
	if (err)
		return err;
	return payloads__read(fd, hdr->adds_features, hdr->data.offset + hdr->data.size, 0,
			      file_size, featsp, nrp);
}

int header__read_ahead(int fd, const struct perf_file_header *hdr,
		       struct header_payload **featsp, int *nrp)
{
	u64 plain = hdr->attrs.offset + hdr->attrs.size, file_size = 0;
	struct ahead_head head;
	int err;

	*featsp = NULL;
	*nrp = 0;
	if (hdr->data.offset < plain + sizeof(head))
		return -ENOENT;
	err = ahead__read(fd, plain, &head);
	if (err)
		return err;
	if (head.data_offset != hdr->data.offset)
		return -ENOENT;
	err = file__size(fd, &file_size);
	if (err)
		return err;
	/* the payloads lie before the data section, and within the file */
	return payloads__read(fd, head.features, plain + sizeof(head), plain + sizeof(head),
			      hdr->data.offset < file_size ? hdr->data.offset : file_size,
			      featsp, nrp);
}

void header_payloads__free(struct header_payload *feats, int nr)
{
	int i;

	for (i = 0; feats && i < nr; i++)
		free(feats[i].data);
	free(feats);
}

static u64 header_attrs__nr_ids(const struct header_attrs *attrs)
{
	u64 nr = 0;
	int i;

	for (i = 0; i < attrs->nr; i++)
		nr += attrs->entries[i].nr_ids;
	return nr;
}

static void header__fill_raw(struct perf_file_header *hdr, const struct header_attrs *attrs,
			     u64 data_size, const u64 *features)
{
	u64 attrs_off = PERF_FILE_HEADER_SIZE + sizeof(u64) * header_attrs__nr_ids(attrs);
	u64 attrs_size = attrs->attr_size * (u64)attrs->nr;

	*hdr = (struct perf_file_header){
		.magic		= PERF_MAGIC,
		.size		= sizeof(*hdr),
		.attr_size	= attrs->attr_size,
		.attrs		= { attrs_off, attrs_size },
		.data		= { attrs_off + attrs_size, data_size },
	};
	if (features)
		memcpy(hdr->adds_features, features, sizeof(hdr->adds_features));
}

int header__write_start_raw(int fd, const struct header_attrs *attrs, u64 *data_offset)
{
	u64 ids_off = PERF_FILE_HEADER_SIZE;
	struct perf_file_header hdr;
	struct fbuf b = { 0 };
	int i, err;

	header__fill_raw(&hdr, attrs, 0, NULL);
	fbuf__put(&b, &hdr, sizeof(hdr));
	for (i = 0; i < attrs->nr; i++)
		fbuf__put(&b, attrs->entries[i].ids, sizeof(u64) * attrs->entries[i].nr_ids);
	for (i = 0; i < attrs->nr; i++) {
		struct perf_file_section ids = { ids_off, sizeof(u64) * attrs->entries[i].nr_ids };
		size_t at = b.len;

		fbuf__put(&b, attrs->raw + (u64)i * attrs->attr_size, attrs->attr_size);
		if (!b.err)
			memcpy(raw_attr__ids(b.data + at, attrs->attr_size), &ids, sizeof(ids));
		ids_off += ids.size;
	}
	err = b.err;
	if (!err)
		err = (int)pwrite_all(fd, b.data, b.len, 0);
	fbuf__release(&b);
	if (!err)
		*data_offset = hdr.data.offset;
	return err;
}

static int header_feat__cmp(const void *a, const void *b)
{
	const struct header_payload *x = a, *y = b;

	return (x->feat > y->feat) - (x->feat < y->feat);
}

int header__write_end_raw(int fd, const struct header_attrs *attrs, u64 data_offset,
			  u64 data_size, const struct header_payload *feats, int nr)
{
	u64 features[HEADER_FEAT_BITS / 64] = { 0 };
	struct perf_file_header hdr;
	struct perf_file_section *sec;
	struct header_payload *sorted;
	u64 pos = data_offset + data_size + sizeof(*sec) * (u64)nr;
	int i, err = 0;

	header__fill_raw(&hdr, attrs, data_size, NULL);
	if (data_offset != hdr.data.offset || nr < 0 || nr > HEADER_FEAT_BITS)
		return -EINVAL;
	sorted = malloc(sizeof(*sorted) * (size_t)(nr ? nr : 1));
	sec = calloc((size_t)(nr ? nr : 1), sizeof(*sec));
	if (!sorted || !sec) {
		err = -ENOMEM;
		goto out_free;
	}
	if (nr)
		memcpy(sorted, feats, sizeof(*sorted) * (size_t)nr);
	qsort(sorted, (size_t)nr, sizeof(*sorted), header_feat__cmp);
	for (i = 0; !err && i < nr; i++) {
		if (sorted[i].feat < 0 || sorted[i].feat >= HEADER_FEAT_BITS ||
		    (i > 0 && sorted[i].feat == sorted[i - 1].feat)) {
			err = -EINVAL;
			break;
		}
		err = (int)pwrite_all(fd, sorted[i].data, sorted[i].size, pos);
		sec[i] = (struct perf_file_section){ pos, sorted[i].size };
		pos += sorted[i].size;
		features__set(features, sorted[i].feat);
	}
	if (!err && nr)
		err = (int)pwrite_all(fd, sec, sizeof(*sec) * (size_t)nr,
				      data_offset + data_size);
	if (!err) {
		header__fill_raw(&hdr, attrs, data_size, features);
		err = (int)pwrite_all(fd, &hdr, sizeof(hdr), 0);
	}
out_free:
	free(sorted);
	free(sec);
	return err;
}
