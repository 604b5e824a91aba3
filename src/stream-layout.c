// SPDX-License-Identifier: GPL-2.0
/*
 * stream-layout.c — which streaming thread drains which CPU's ring (--threads).
 *
 * Turns perf's --threads SPEC into a list of threads, each with the CPUs
 * whose rings it drains (maps), the CPUs it may run on (affinity) and the
 * NUMA node its maps live on. Named layouts take their groups from the
 * topology: "cpu" one thread per recorded CPU, "core", "package" (also
 * perf's older "socket") and "numa" one per group, maps = affinity = the
 * group's CPUs that are recorded. A user spec "<maps>/<affinity>:…" gives
 * one thread per element. Names match as perf matches them: by prefix,
 * ignoring case; NULL or "" is "cpu". precord's "adaptive[:MAX]" (its
 * default) starts as "numa" and marks the layout adaptive: each node's
 * thread may add helpers up to MAX threads on the node, one per recorded
 * CPU without MAX (stream.c does, as its rings back up).
 *
 * Every mask is intersected with the recorded CPUs. For user specs this
 * follows perf's record__init_thread_masks_spec() and its messages: a CPU
 * the machine does not have is an error, a CPU that is not recorded is
 * dropped, a mask left empty is an error, masks that overlap an earlier
 * thread's are an error. Unlike perf, an offline CPU in a mask is an error
 * of its own, saying so (perf drops it, and says "Empty maps mask" when
 * nothing is left), and each message ends with what to do. Where perf also fails on a named layout whose group
 * holds no recorded CPU (perf 6.1: "--threads=core -C 0" says "Empty maps
 * mask: 1"), this drops the group instead, so precord's default (numa)
 * works with any -C.
 *
 * Runs once, on the thread that sets up the recording; the layout is
 * read-only afterwards. Limits: the cpu maps are built once per group, so the
 * cost is O(groups x CPUs), nothing here is on a hot path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "precord/stream-layout.h"
#include "precord/util.h"

enum layout_kind {
	LAYOUT_CPU,
	LAYOUT_CORE,
	LAYOUT_PACKAGE,
	LAYOUT_NUMA,
	LAYOUT_ADAPTIVE,
	LAYOUT_USER,
};

/* In perf's order of matching; "socket" is perf's name for package before v5.18. */
static const struct {
	const char		*name;
	enum layout_kind	kind;
	enum topo_level		level;
} layout_names[] = {
	{ "cpu",	LAYOUT_CPU,	TOPO_CPU },
	{ "core",	LAYOUT_CORE,	TOPO_CORE },
	{ "package",	LAYOUT_PACKAGE,	TOPO_PACKAGE },
	{ "numa",	LAYOUT_NUMA,	TOPO_NUMA },
	{ "socket",	LAYOUT_PACKAGE,	TOPO_PACKAGE },
	{ "adaptive",	LAYOUT_ADAPTIVE, TOPO_NUMA },
};

#define NR_LAYOUT_NAMES	ARRAY_SIZE(layout_names)

/* Index into layout_names of spec's name, or -1 for a user spec. */
static int layout__name_index(const char *spec)
{
	size_t i;

	for (i = 0; i < NR_LAYOUT_NAMES; i++) {
		if (!strncasecmp(spec, layout_names[i].name, strlen(layout_names[i].name)))
			return (int)i;
	}
	return -1;
}

static struct stream_layout *layout__alloc(int max_threads)
{
	struct stream_layout *layout = calloc(1, sizeof(*layout));
	size_t n = max_threads > 0 ? (size_t)max_threads : 1;

	if (!layout)
		return NULL;
	layout->maps = calloc(n, sizeof(*layout->maps));
	layout->affinity = calloc(n, sizeof(*layout->affinity));
	layout->node = calloc(n, sizeof(*layout->node));
	layout->moved = calloc(n, sizeof(*layout->moved));
	if (!layout->maps || !layout->affinity || !layout->node || !layout->moved) {
		layout__delete(layout);
		return NULL;
	}
	return layout;
}

void layout__delete(struct stream_layout *layout)
{
	int i;

	if (!layout)
		return;
	for (i = 0; i < layout->nr; i++) {
		cpu_map__put(layout->maps[i]);
		cpu_map__put(layout->affinity[i]);
	}
	free(layout->maps);
	free(layout->affinity);
	free(layout->node);
	free(layout->moved);
	free(layout);
}

/* OS index of the NUMA node holding every CPU of map, or -1. */
static int layout__node_of(const struct topology *topo, const struct cpu_map *map)
{
	int i, group = -1, g;

	for (i = 0; i < map->nr; i++) {
		g = topology__group_of(topo, TOPO_NUMA, map->map[i]);
		if (g < 0 || (i > 0 && g != group))
			return -1;
		group = g;
	}
	return group < 0 ? -1 : topology__node_os_index(topo, group);
}

/* Append a thread; takes over the caller's references to maps and affinity. */
static void layout__push(struct stream_layout *layout, const struct topology *topo,
			 struct cpu_map *maps, struct cpu_map *affinity)
{
	layout->maps[layout->nr] = maps;
	layout->affinity[layout->nr] = affinity;
	layout->node[layout->nr] = layout__node_of(topo, maps);
	layout->nr++;
}

/* "cpu": one thread per recorded CPU, as perf (the topology is not consulted). */
static int layout__fill_cpus(struct stream_layout *layout, const struct topology *topo,
			     const struct cpu_map *cpus)
{
	struct cpu_map *map;
	int i;

	for (i = 0; i < cpus->nr; i++) {
		map = cpu_map__new_from(&cpus->map[i].cpu, 1);
		if (!map)
			return -ENOMEM;
		layout__push(layout, topo, map, cpu_map__get(map));
	}
	return 0;
}

/* core, package, numa: one thread per group holding a recorded CPU. */
static int layout__fill_groups(struct stream_layout *layout, const struct topology *topo,
			       enum topo_level level, const struct cpu_map *cpus)
{
	int i, nr = topology__nr_groups(topo, level);
	struct cpu_map *group, *maps;

	for (i = 0; i < nr; i++) {
		group = topology__group_cpus(topo, level, i);
		if (!group)
			return -ENOMEM;
		maps = cpu_map__intersect(group, cpus);
		cpu_map__put(group);
		if (!maps)
			return -ENOMEM;
		if (!maps->nr) {
			cpu_map__put(maps);
			continue;
		}
		layout__push(layout, topo, maps, cpu_map__get(maps));
	}
	return 0;
}

/*
 * The shape of a user spec, before any CPU list is read (perf checks it
 * first too): elements separated by ':' (empty ones skipped, as perf's
 * strtok does), each exactly "<maps>/<affinity>" with both parts non-empty.
 * The number of elements, or -EINVAL.
 */
static int user_spec__count(const char *spec)
{
	const char *p = spec, *end, *slash;
	int nr = 0;

	while (*p) {
		end = strchrnul(p, ':');
		if (end > p) {
			slash = memchr(p, '/', (size_t)(end - p));
			if (!slash || slash == p || slash + 1 == end ||
			    memchr(slash + 1, '/', (size_t)(end - slash - 1)))
				return -EINVAL;
			nr++;
		}
		p = *end ? end + 1 : end;
	}
	return nr ? nr : -EINVAL;
}

/* What a user mask is checked against: the CPUs that exist, those online, those recorded. */
struct mask_ctx {
	struct cpu_map		*present;	/* online or offline */
	struct cpu_map		*online;
	const struct cpu_map	*cpus;		/* recorded */
};

static int mask_ctx__init(struct mask_ctx *mc, const struct topology *topo,
			  const struct cpu_map *cpus)
{
	mc->present = topology__present_cpus(topo);
	mc->online = topology__cpus(topo);
	mc->cpus = cpus;
	return mc->present && mc->online ? 0 : -ENOMEM;
}

static void mask_ctx__exit(struct mask_ctx *mc)
{
	cpu_map__put(mc->present);
	cpu_map__put(mc->online);
}

/*
 * One mask of a user spec ("maps" or "affinity" in messages): parsed,
 * every CPU of it present and online, intersected with the recorded CPUs,
 * never empty. Messages start as perf's do. 0 or -errno.
 */
static int user_mask__parse(const char *list, const char *what, const struct mask_ctx *mc,
			    struct cpu_map **maskp, char *err, size_t errlen)
{
	struct cpu_map *parsed, *offline;
	char have[128] = "", off[128] = "";
	int bad_cpu = -1, ret;

	ret = cpu_map__parse_within(list, mc->present, &parsed, &bad_cpu);
	if (ret == -ENODEV) {
		cpu_map__snprintf(mc->present, have, sizeof(have));
		return errbuf__set(err, errlen, -EINVAL,
				    "Failed to initialize %s thread mask: CPU %d does not exist "
				    "(CPUs %s); fix the --threads masks", what, bad_cpu, have);
	}
	if (ret == -ENOMEM)
		return errbuf__set(err, errlen, ret,
				    "Failed to initialize %s thread mask: out of memory", what);
	if (ret)
		return errbuf__set(err, errlen, -EINVAL,
				    "Failed to initialize %s thread mask: '%s' is not a CPU list",
				    what, list);
	offline = cpu_map__subtract(parsed, mc->online);
	if (!offline || offline->nr) {
		cpu_map__put(parsed);
		if (!offline)
			return errbuf__set(err, errlen, -ENOMEM,
					    "Failed to initialize %s thread mask: out of memory", what);
		cpu_map__snprintf(offline, off, sizeof(off));
		cpu_map__snprintf(mc->online, have, sizeof(have));
		ret = errbuf__set(err, errlen, -EINVAL,
				   "Failed to initialize %s thread mask: CPU%s %s %s offline "
				   "(online: %s); bring %s online or leave %s out of --threads",
				   what, offline->nr > 1 ? "s" : "", off, offline->nr > 1 ? "are" : "is",
				   have, offline->nr > 1 ? "them" : "it", offline->nr > 1 ? "them" : "it");
		cpu_map__put(offline);
		return ret;
	}
	cpu_map__put(offline);
	*maskp = cpu_map__intersect(parsed, mc->cpus);
	cpu_map__put(parsed);
	if (!*maskp)
		return errbuf__set(err, errlen, -ENOMEM,
				    "Failed to initialize %s thread mask: out of memory", what);
	if (!(*maskp)->nr) {
		cpu_map__put(*maskp);
		*maskp = NULL;
		cpu_map__snprintf(mc->cpus, have, sizeof(have));
		return errbuf__set(err, errlen, -EINVAL,
				    "Empty %s mask: %s (recorded CPUs: %s); give each thread a "
				    "recorded CPU", what, list, have);
	}
	return 0;
}

static bool cpu_maps__intersect(const struct cpu_map *a, const struct cpu_map *b)
{
	int i = 0, j = 0;

	while (i < a->nr && j < b->nr) {
		if (a->map[i].cpu == b->map[j].cpu)
			return true;
		if (a->map[i].cpu < b->map[j].cpu)
			i++;
		else
			j++;
	}
	return false;
}

/* Does mask share a CPU with the same mask of a thread already laid out? */
static bool layout__overlaps(const struct stream_layout *layout, struct cpu_map **masks,
			     const struct cpu_map *mask)
{
	int t;

	for (t = 0; t < layout->nr; t++) {
		if (cpu_maps__intersect(masks[t], mask))
			return true;
	}
	return false;
}

/* One "<maps>/<affinity>" element (split in place at its '/'). */
static int layout__add_user_mask(struct stream_layout *layout, const struct topology *topo,
				 char *elem, const struct mask_ctx *mc, char *err, size_t errlen)
{
	char *maps_spec = elem, *affinity_spec = strchr(elem, '/');
	struct cpu_map *maps = NULL, *affinity = NULL;
	int ret;

	*affinity_spec++ = '\0';
	ret = user_mask__parse(maps_spec, "maps", mc, &maps, err, errlen);
	if (ret)
		return ret;
	ret = user_mask__parse(affinity_spec, "affinity", mc, &affinity, err, errlen);
	if (ret)
		goto out_put_maps;
	ret = -EINVAL;
	if (layout__overlaps(layout, layout->maps, maps)) {
		errbuf__set(err, errlen, ret, "Intersecting maps mask: %s", maps_spec);
		goto out_put_affinity;
	}
	if (layout__overlaps(layout, layout->affinity, affinity)) {
		errbuf__set(err, errlen, ret, "Intersecting affinity mask: %s", affinity_spec);
		goto out_put_affinity;
	}
	layout__push(layout, topo, maps, affinity);
	return 0;

out_put_affinity:
	cpu_map__put(affinity);
out_put_maps:
	cpu_map__put(maps);
	return ret;
}

static int layout__fill_user(struct stream_layout *layout, const struct topology *topo,
			     const char *spec, const struct cpu_map *cpus, char *err, size_t errlen)
{
	struct mask_ctx mc;
	char *copy, *elem, *save;
	int ret;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	ret = mask_ctx__init(&mc, topo, cpus);
	for (elem = strtok_r(copy, ":", &save); !ret && elem; elem = strtok_r(NULL, ":", &save))
		ret = layout__add_user_mask(layout, topo, elem, &mc, err, errlen);
	mask_ctx__exit(&mc);
	free(copy);
	return ret;
}

/* Upper bound on the threads of a layout, or -EINVAL (message in err). */
static int layout__max_threads(const char *spec, int name, const struct topology *topo,
			       const struct cpu_map *cpus, char *err, size_t errlen)
{
	int nr;

	if (name < 0) {
		nr = user_spec__count(spec);
		if (nr < 0)
			return errbuf__set(err, errlen, nr, "Invalid thread maps or affinity specs");
		return nr;
	}
	if (layout_names[name].kind == LAYOUT_CPU)
		return cpus->nr;
	nr = topology__nr_groups(topo, layout_names[name].level);
	if (nr < 0)
		return errbuf__set(err, errlen, nr, "Failed to read the %s groups of the topology",
				    layout_names[name].name);
	return nr;
}

/*
 * "adaptive" and "adaptive:MAX" (MAX threads per node at most, 1 or more):
 * MAX into *max (0: none given). 0, or -EINVAL with a message.
 */
static int layout__adaptive_max(const char *spec, int *max, char *err, size_t errlen)
{
	const char *rest = spec + strlen("adaptive");
	char *end;
	long v;

	*max = 0;
	if (!*rest)
		return 0;
	if (*rest == ':' && rest[1] >= '0' && rest[1] <= '9') {
		errno = 0;
		v = strtol(rest + 1, &end, 10);
		if (!*end && !errno && v >= 1 && v <= 1000000) {
			*max = (int)v;
			return 0;
		}
	}
	return errbuf__set(err, errlen, -EINVAL,
			    "Invalid --threads=%s: adaptive takes the most threads per NUMA node, "
			    "as adaptive:N with N 1 or more", spec);
}

int layout__max_threads_of(const struct stream_layout *layout, int t)
{
	int n;

	if (!layout->adaptive || t < 0 || t >= layout->nr)
		return 1;
	n = layout->maps[t]->nr;
	return layout->adapt_max && layout->adapt_max < n ? layout->adapt_max : n;
}

int layout__new(const char *spec, const struct topology *topo, const struct cpu_map *cpus,
		struct stream_layout **layoutp, char *err, size_t errlen)
{
	struct stream_layout *layout;
	int name, max, ret, adapt_max = 0;

	if (!layoutp)
		return -EINVAL;
	*layoutp = NULL;
	if (!topo || !cpus)
		return errbuf__set(err, errlen, -EINVAL, "No topology or CPUs to lay threads out on");
	if (cpu_map__is_any(cpus))
		return errbuf__set(err, errlen, -EINVAL,
				    "--per-thread option is mutually exclusive to parallel streaming mode.");
	if (!spec || !*spec)
		spec = "cpu";
	name = layout__name_index(spec);
	if (name >= 0 && layout_names[name].kind == LAYOUT_ADAPTIVE) {
		ret = layout__adaptive_max(spec, &adapt_max, err, errlen);
		if (ret)
			return ret;
	}
	max = layout__max_threads(spec, name, topo, cpus, err, errlen);
	if (max < 0)
		return max;
	layout = layout__alloc(max);
	if (!layout)
		return errbuf__set(err, errlen, -ENOMEM, "Failed to allocate thread masks");
	layout->adaptive = name >= 0 && layout_names[name].kind == LAYOUT_ADAPTIVE;
	layout->adapt_max = adapt_max;

	if (name < 0)
		ret = layout__fill_user(layout, topo, spec, cpus, err, errlen);
	else if (layout_names[name].kind == LAYOUT_CPU)
		ret = layout__fill_cpus(layout, topo, cpus);
	else
		ret = layout__fill_groups(layout, topo, layout_names[name].level, cpus);
	if (ret == -ENOMEM)
		errbuf__set(err, errlen, ret, "Failed to allocate thread masks");
	if (!ret && !layout->nr)
		ret = errbuf__set(err, errlen, -EINVAL,
				   "No streaming thread for --threads=%s: no recorded CPU is in its groups",
				   spec);
	if (ret) {
		layout__delete(layout);
		return ret;
	}
	*layoutp = layout;
	return 0;
}

int layout__thread_of(const struct stream_layout *layout, struct cpu cpu)
{
	int t;

	if (!layout)
		return -1;
	for (t = 0; t < layout->nr; t++) {
		if (cpu_map__has(layout->maps[t], cpu))
			return t;
	}
	return -1;
}

int layout__fit_allowed(struct stream_layout *layout, const struct topology *topo,
			const struct cpu_map *allowed)
{
	int t, moved = 0;

	if (!allowed || cpu_map__is_any(allowed) || !allowed->nr)
		return 0;
	for (t = 0; t < layout->nr; t++) {
		struct cpu_map *fit = cpu_map__intersect(layout->affinity[t], allowed);

		if (fit && !fit->nr) {
			cpu_map__put(fit);
			fit = topology__nearest(topo, layout->affinity[t], allowed);
			layout->moved[t] = fit != NULL;
			moved += fit != NULL;
		}
		if (!fit)
			return -ENOMEM;
		cpu_map__put(layout->affinity[t]);
		layout->affinity[t] = fit;
	}
	return moved;
}
