// SPDX-License-Identifier: GPL-2.0
/*
 * cpumap.c — sorted, refcounted sets of CPU numbers.
 *
 * A map is one allocation: the header and an ascending array without
 * duplicates. It is immutable once built, so any thread may read it; the
 * only shared mutable field is the refcount, changed with atomics. Maps come
 * from a CPU list string (-C, sysfs files), from explicit numbers, or from
 * the online set; nothing here caches machine state, every call reads it.
 *
 * A CPU list is parsed in two steps: the text into ranges (syntax only,
 * bounded by the length of the text), then the ranges against a set of
 * available CPUs, so a list naming CPUs far beyond the machine never turns
 * into a huge allocation. Limits: CPU numbers are ints below INT_MAX, as in
 * perf; a kernel CPU list file is read up to 64 KiB.
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precord/cpumap.h"

struct cpu_range {
	int start;
	int end;
};

static struct cpu_map *cpu_map__alloc(int nr)
{
	struct cpu_map *map;

	map = malloc(sizeof(*map) + (size_t)nr * sizeof(struct cpu));
	if (!map)
		return NULL;
	map->refcnt = 1;
	map->nr = nr;
	return map;
}

static const char *skip_blanks(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A decimal CPU number; *endp past it. -EINVAL if none, -ERANGE if >= INT_MAX. */
static int parse_cpu_number(const char *s, const char **endp, int *cpu)
{
	long long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v >= INT_MAX)
			return -ERANGE;
		s++;
	}
	*endp = s;
	*cpu = (int)v;
	return 0;
}

/* One item: N or N-M, blanks allowed around each part. */
static int parse_cpu_item(const char *s, const char **endp, struct cpu_range *r)
{
	int err;

	err = parse_cpu_number(skip_blanks(s), &s, &r->start);
	if (err)
		return err;
	s = skip_blanks(s);
	r->end = r->start;
	if (*s == '-') {
		err = parse_cpu_number(skip_blanks(s + 1), &s, &r->end);
		if (err)
			return err;
		if (r->end < r->start)
			return -EINVAL;
		s = skip_blanks(s);
	}
	*endp = s;
	return 0;
}

/* Text to ranges: 0 and a malloc'ed array, or -EINVAL/-ERANGE/-ENOMEM. */
static int cpu_list__ranges(const char *list, struct cpu_range **rangesp, int *nrp)
{
	struct cpu_range *ranges;
	const char *s;
	int nr = 0, max = 1, err;

	if (!list || !*skip_blanks(list))
		return -EINVAL;
	for (s = list; *s; s++)
		max += *s == ',';
	ranges = calloc(max, sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;

	s = list;
	for (;;) {
		err = parse_cpu_item(s, &s, &ranges[nr]);
		if (err)
			goto out_free_ranges;
		nr++;
		if (*s == '\0')
			break;
		if (*s != ',') {
			err = -EINVAL;
			goto out_free_ranges;
		}
		s = skip_blanks(s + 1);
		if (*s == '\0')		/* one trailing comma, as perf allows */
			break;
	}
	*rangesp = ranges;
	*nrp = nr;
	return 0;

out_free_ranges:
	free(ranges);
	return err;
}

int cpu_map__check_list(const char *list)
{
	struct cpu_range *ranges;
	int nr, err;

	err = cpu_list__ranges(list, &ranges, &nr);
	if (err == -ENOMEM)
		return err;
	if (!err)
		free(ranges);
	return err;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct cpu *ca = a, *cb = b;

	return (ca->cpu > cb->cpu) - (ca->cpu < cb->cpu);
}

/* Sort and de-duplicate nr entries in place; returns the new count. */
static int cpus__sort_unique(struct cpu *cpus, int nr)
{
	int i, j = 0;

	qsort(cpus, nr, sizeof(*cpus), cmp_cpu);
	for (i = 0; i < nr; i++) {
		if (i == 0 || cpus[i].cpu != cpus[j - 1].cpu)
			cpus[j++] = cpus[i];
	}
	return j;
}

struct cpu_map *cpu_map__new_from(const int *cpus, int nr)
{
	struct cpu_map *map;
	int i;

	if (nr < 0 || (nr > 0 && !cpus))
		return NULL;
	map = cpu_map__alloc(nr);
	if (!map)
		return NULL;
	for (i = 0; i < nr; i++)
		map->map[i].cpu = cpus[i];
	map->nr = cpus__sort_unique(map->map, nr);
	return map;
}

struct cpu_map *cpu_map__new_any(void)
{
	struct cpu_map *map = cpu_map__alloc(1);

	if (map)
		map->map[0].cpu = -1;
	return map;
}

/* First index whose CPU is >= cpu (map->nr if none). */
static int cpu_map__lower_bound(const struct cpu_map *map, int cpu)
{
	int lo = 0, hi = map->nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (map->map[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Check one range against avail: 0 and [*lo, *hi) the indexes of avail
 * covering it, or -ENODEV and *bad_cpu the first CPU of the range missing.
 */
static int range__within(const struct cpu_range *r, const struct cpu_map *avail,
			 int *lo, int *hi, int *bad_cpu)
{
	int i, expect = r->start;

	*lo = cpu_map__lower_bound(avail, r->start);
	*hi = cpu_map__lower_bound(avail, r->end + 1);	/* end < INT_MAX */
	if ((long long)(*hi - *lo) == (long long)r->end - r->start + 1)
		return 0;
	for (i = *lo; i < *hi && avail->map[i].cpu == expect; i++)
		expect++;
	*bad_cpu = expect;
	return -ENODEV;
}

static int cpu_map__from_ranges(const struct cpu_range *ranges, int nr,
				const struct cpu_map *avail, struct cpu_map **mapp,
				int *bad_cpu)
{
	struct cpu_map *map;
	int i, j, lo, hi, total = 0, bad = -1, err;

	for (i = 0; i < nr; i++) {
		err = range__within(&ranges[i], avail, &lo, &hi, &bad);
		if (err) {
			if (bad_cpu)
				*bad_cpu = bad;
			return err;
		}
		total += hi - lo;
	}
	map = cpu_map__alloc(total);
	if (!map)
		return -ENOMEM;
	total = 0;
	for (i = 0; i < nr; i++) {
		range__within(&ranges[i], avail, &lo, &hi, &bad);
		for (j = lo; j < hi; j++)
			map->map[total++] = avail->map[j];
	}
	map->nr = cpus__sort_unique(map->map, total);
	*mapp = map;
	return 0;
}

int cpu_map__parse_within(const char *list, const struct cpu_map *avail,
			  struct cpu_map **mapp, int *bad_cpu)
{
	struct cpu_range *ranges;
	int nr, err;

	if (!avail)
		return -EINVAL;
	err = cpu_list__ranges(list, &ranges, &nr);
	if (err)
		return err;
	err = cpu_map__from_ranges(ranges, nr, avail, mapp, bad_cpu);
	free(ranges);
	return err;
}

int cpu_map__parse(const char *list, struct cpu_map **mapp, int *bad_cpu)
{
	struct cpu_map *online;
	int err;

	online = cpu_map__new_online();
	if (!online)
		return -ENOMEM;
	err = cpu_map__parse_within(list, online, mapp, bad_cpu);
	cpu_map__put(online);
	return err;
}

/* Every CPU the ranges name (trusted input: a kernel-written list). */
static struct cpu_map *cpu_map__expand(const struct cpu_range *ranges, int nr)
{
	struct cpu_map *map;
	long long total = 0;
	int i, c, n = 0;

	for (i = 0; i < nr; i++)
		total += (long long)ranges[i].end - ranges[i].start + 1;
	if (total > INT_MAX)
		return NULL;
	map = cpu_map__alloc((int)total);
	if (!map)
		return NULL;
	for (i = 0; i < nr; i++) {
		for (c = ranges[i].start; c <= ranges[i].end; c++)
			map->map[n++].cpu = c;
	}
	map->nr = cpus__sort_unique(map->map, n);
	return map;
}

/* Read a small text file into buf (NUL-terminated); 0 or -errno. */
static int read_text_file(const char *path, char *buf, size_t size)
{
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n ? 0 : -EINVAL;
}

struct cpu_map *cpu_map__read(const char *path)
{
	struct cpu_range *ranges;
	struct cpu_map *map;
	size_t size = 64 * 1024;
	char *buf;
	int nr;

	buf = malloc(size);
	if (!buf)
		return NULL;
	map = NULL;
	if (read_text_file(path, buf, size) == 0 &&
	    cpu_list__ranges(buf, &ranges, &nr) == 0) {
		map = cpu_map__expand(ranges, nr);
		free(ranges);
	}
	free(buf);
	return map;
}

/* The first n CPUs, for when sysfs cannot be read (as perf does). */
static struct cpu_map *cpu_map__new_first(long n)
{
	struct cpu_map *map;
	int i;

	if (n <= 0 || n > INT_MAX)
		n = 1;
	map = cpu_map__alloc((int)n);
	if (!map)
		return NULL;
	for (i = 0; i < n; i++)
		map->map[i].cpu = i;
	return map;
}

struct cpu_map *cpu_map__new_online(void)
{
	struct cpu_map *map = cpu_map__read("/sys/devices/system/cpu/online");

	if (map && map->nr > 0)
		return map;
	cpu_map__put(map);
	return cpu_map__new_first(sysconf(_SC_NPROCESSORS_ONLN));
}

struct cpu_map *cpu_map__new_present(void)
{
	struct cpu_map *map = cpu_map__read("/sys/devices/system/cpu/present");

	if (map && map->nr > 0)
		return map;
	cpu_map__put(map);
	return cpu_map__new_online();
}

struct cpu_map *cpu_map__new_allowed(void)
{
	size_t nr = (size_t)cpu__max_present() + 1, size, i;
	struct cpu_map *map = NULL;
	cpu_set_t *set;
	int *cpus, n;

	for (;; nr *= 2) {	/* the kernel's mask may be wider than the present CPUs */
		set = CPU_ALLOC(nr);
		size = CPU_ALLOC_SIZE(nr);
		if (!set)
			return NULL;
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0)
			break;
		CPU_FREE(set);
		if (errno != EINVAL || nr > (1u << 20))
			return NULL;
	}
	cpus = malloc(sizeof(*cpus) * (size_t)CPU_COUNT_S(size, set) + 1);
	if (cpus) {
		for (i = 0, n = 0; i < size * 8; i++)
			if (CPU_ISSET_S(i, size, set))
				cpus[n++] = (int)i;
		map = cpu_map__new_from(cpus, n);
		free(cpus);
	}
	CPU_FREE(set);
	return map;
}

int cpu__max_present(void)
{
	struct cpu_map *map = cpu_map__read("/sys/devices/system/cpu/present");
	long n;

	if (map && map->nr > 0) {
		n = map->map[map->nr - 1].cpu + 1;
		cpu_map__put(map);
		return (int)n;
	}
	cpu_map__put(map);
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 && n <= INT_MAX ? (int)n : 1;
}

/* Append to buf with snprintf's rules; *len counts what would be written. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (*len < size)
		n = vsnprintf(buf + *len, size - *len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += n;
}

int cpu_map__snprintf(const struct cpu_map *map, char *buf, size_t size)
{
	size_t len = 0;
	int i = 0, j;

	if (size)
		buf[0] = '\0';
	while (map && i < map->nr) {
		j = i;
		while (j + 1 < map->nr && map->map[j + 1].cpu == map->map[j].cpu + 1)
			j++;
		append(buf, size, &len, "%s%d", i ? "," : "", map->map[i].cpu);
		if (j > i)
			append(buf, size, &len, "-%d", map->map[j].cpu);
		i = j + 1;
	}
	return (int)len;
}

struct cpu_map *cpu_map__get(struct cpu_map *map)
{
	/*
	 * Relaxed is enough: the caller already holds a reference, so the
	 * count cannot reach zero under us, and nothing is published here.
	 */
	if (map)
		__atomic_fetch_add(&map->refcnt, 1, __ATOMIC_RELAXED);
	return map;
}

void cpu_map__put(struct cpu_map *map)
{
	/*
	 * Release orders this thread's reads of the map before the drop;
	 * acquire on the final drop makes every other thread's reads happen
	 * before the free.
	 */
	if (map && __atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		free(map);
}

int cpu_map__idx(const struct cpu_map *map, struct cpu cpu)
{
	int i;

	if (!map)
		return -1;
	i = cpu_map__lower_bound(map, cpu.cpu);
	return i < map->nr && map->map[i].cpu == cpu.cpu ? i : -1;
}

bool cpu_map__has(const struct cpu_map *map, struct cpu cpu)
{
	return cpu_map__idx(map, cpu) >= 0;
}

bool cpu_map__is_any(const struct cpu_map *map)
{
	return map && map->nr == 1 && map->map[0].cpu == -1;
}

static struct cpu_map *cpu_map__copy(const struct cpu_map *map)
{
	struct cpu_map *copy = cpu_map__alloc(map->nr);

	if (copy)
		memcpy(copy->map, map->map, map->nr * sizeof(struct cpu));
	return copy;
}

/* A new map of the CPUs in both; "any" ({-1}) acts as every CPU. */
struct cpu_map *cpu_map__intersect(const struct cpu_map *a, const struct cpu_map *b)
{
	struct cpu_map *map;
	int i = 0, j = 0, n = 0;

	if (!a || !b)
		return NULL;
	if (cpu_map__is_any(a))
		return cpu_map__copy(b);
	if (cpu_map__is_any(b))
		return cpu_map__copy(a);
	map = cpu_map__alloc(a->nr < b->nr ? a->nr : b->nr);
	if (!map)
		return NULL;
	while (i < a->nr && j < b->nr) {
		if (a->map[i].cpu < b->map[j].cpu) {
			i++;
		} else if (a->map[i].cpu > b->map[j].cpu) {
			j++;
		} else {
			map->map[n++] = a->map[i];
			i++;
			j++;
		}
	}
	map->nr = n;
	return map;
}

/* A new map of the CPUs of a that are not in b; NULL on ENOMEM or an "any" map. */
struct cpu_map *cpu_map__subtract(const struct cpu_map *a, const struct cpu_map *b)
{
	struct cpu_map *map;
	int i = 0, j = 0, n = 0;

	if (!a || !b || cpu_map__is_any(a) || cpu_map__is_any(b))
		return NULL;
	map = cpu_map__alloc(a->nr);
	if (!map)
		return NULL;
	for (; i < a->nr; i++) {
		while (j < b->nr && b->map[j].cpu < a->map[i].cpu)
			j++;
		if (j < b->nr && b->map[j].cpu == a->map[i].cpu)
			continue;
		map->map[n++] = a->map[i];
	}
	map->nr = n;
	return map;
}
