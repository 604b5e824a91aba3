// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-model — a cost model of precord on machines we do not have: it
 * predicts, it does not measure.  From costs measured on a small machine
 * (bench/model-inputs.sh measures them; the defaults below are one such
 * run, Documentation/benchmarks.md, "Cost model at scale") it computes,
 * for each machine given as an hwloc topology (loaded through
 * src/topology.c; by default a Xeon Phi 7250-like "numa:4 core:17 pu:4"
 * and a 2-socket, 8-node EPYC "pack:2 numa:4 core:32 pu:2"):
 *
 *  evlist   the open, mmap, enable, disable, munmap, close cycle of E
 *           CPU-wide events on every CPU (perf record -a), serial against
 *           parallel.  Serially the caller sits on CPU 0 and every
 *           operation on another CPU pays that phase's cross-CPU cost on
 *           top of the local one (times --node-factor on another node).
 *           In parallel the caller wakes one worker per CPU (a fixed cost
 *           plus one per worker, paid by the caller) and each worker does
 *           its CPU's E operations locally, all at once, at the per-worker
 *           costs measured with every worker at once (the contention two
 *           workers show, no more).  The k-th enable on a CPU reprograms
 *           the k events already there: a + b*k.  Ring mmap/munmap stay
 *           serial on both paths (one mmap lock); below
 *           EVLIST_PARALLEL_MIN_FDS descriptors everything runs inline.
 *  synth    the /proc walk for --tasks processes of one thread with --maps
 *           executable mappings each.  Serial: per pid listed, per task
 *           (FORK+COMM), per mapping (MMAP2).  Parallel, one participant per
 *           CPU as precord record runs it: the pid list (serial), the
 *           dispatch, ceil(tasks / CPUs) tasks at the per-worker costs
 *           (measured with workers running at once), then the caller writes
 *           every record itself, at the streaming thread's cost per byte.
 *  drain    per NUMA node: the bytes per second the node's CPUs produce,
 *           all busy, at -F 4000 -g and at --call-graph dwarf (8 KiB
 *           stacks), against what one streaming thread drains (1 s / its
 *           CPU time per byte): the load of one reader, and the readers
 *           per node that takes.
 *
 * Every row prints the inputs it used; -x prints tab-separated rows.
 * Single-threaded; reads nothing but the topology.  Not modelled: kernel
 * contention (context locks, the fd table, mmap_lock of /proc readers),
 * memory bandwidth, slower cores (each cost is this machine's: scale it
 * with the cost options), the disk.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/evlist.h"
#include "precord/topology.h"

struct costs {
	/* evlist, µs per descriptor (or ring, or phase); _w: per worker, all at once */
	double	open_local, open_remote, open_w;
	double	enable_a, enable_b, enable_remote, enable_a_w, enable_b_w;
	double	disable_local, disable_remote, disable_w;
	double	close_local, close_remote, close_w;
	double	ring_mmap, set_output, ring_munmap;
	double	dispatch_fixed, dispatch_per_cpu;
	double	node_factor;
	/* synthesis, µs, and bytes per record kind */
	double	synth_list, synth_task, synth_map, synth_task_w, synth_map_w;
	double	synth_task_bytes, synth_map_bytes;
	/* streaming: bytes per busy CPU-second, and reader ns per byte */
	double	rate_g, rate_dwarf, drain_g, drain_dwarf;
};

/*
 * Measured on the 2-vCPU KVM guest of Documentation/benchmarks.md by
 * bench/model-inputs.sh -r 7, rounded; "Cost model at scale" there has the
 * run. dispatch_per_cpu is assumed (a futex wake): 2 CPUs cannot show it.
 */
static const struct costs default_costs = {
	.open_local = 2.61,	.open_remote = 0.11,	.open_w = 3.50,
	.enable_a = 0.48,	.enable_b = 0.163,	.enable_remote = 4.27,
	.enable_a_w = 1.98,	.enable_b_w = 0.146,
	.disable_local = 0.43,	.disable_remote = 4.15,	.disable_w = 0.53,
	.close_local = 1.37,	.close_remote = 4.53,	.close_w = 2.25,
	.ring_mmap = 127.0,	.set_output = 0.46,	.ring_munmap = 22.9,
	.dispatch_fixed = 15.7,	.dispatch_per_cpu = 2.5,	/* per worker: assumed */
	.node_factor = 1.0,
	.synth_list = 1.08,	.synth_task = 35.8,	.synth_map = 0.75,
	.synth_task_w = 33.7,	.synth_map_w = 1.00,
	.synth_task_bytes = 63.5, .synth_map_bytes = 136.0,
	.rate_g = 369e3,	.rate_dwarf = 33.8e6,
	.drain_g = 1.00,	.drain_dwarf = 0.41,
};

/* --NAME=VALUE sets the cost at that offset of struct costs. */
static const struct cost_opt {
	const char	*name;
	size_t		off;
	const char	*unit;
	const char	*what;
} cost_opts[] = {
#define C(name, field, unit, what) { name, offsetof(struct costs, field), unit, what }
	C("open-local", open_local, "µs", "open, on the event's CPU"),
	C("open-remote", open_remote, "µs", "open, extra from another CPU"),
	C("open-w", open_w, "µs", "open on each worker, every worker at once"),
	C("enable-a", enable_a, "µs", "enable on the CPU: a + b*k for its k-th event"),
	C("enable-b", enable_b, "µs", "enable: b"),
	C("enable-remote", enable_remote, "µs", "enable, extra from another CPU"),
	C("enable-a-w", enable_a_w, "µs", "enable: a on each worker, every worker at once"),
	C("enable-b-w", enable_b_w, "µs", "enable: b on each worker, every worker at once"),
	C("disable-local", disable_local, "µs", "disable, on the event's CPU"),
	C("disable-remote", disable_remote, "µs", "disable, extra from another CPU"),
	C("disable-w", disable_w, "µs", "disable on each worker, every worker at once"),
	C("close-local", close_local, "µs", "close, on the event's CPU"),
	C("close-remote", close_remote, "µs", "close, extra from another CPU"),
	C("close-w", close_w, "µs", "close on each worker, every worker at once"),
	C("ring-mmap", ring_mmap, "µs", "mmap of one ring (serial)"),
	C("set-output", set_output, "µs", "SET_OUTPUT of one more event into a ring"),
	C("ring-munmap", ring_munmap, "µs", "munmap of one ring (serial)"),
	C("dispatch-fixed", dispatch_fixed, "µs", "waking the workers: fixed, per phase"),
	C("dispatch-per-cpu", dispatch_per_cpu, "µs", "waking the workers: per worker"),
	C("node-factor", node_factor, "x", "remote costs to another NUMA node"),
	C("synth-list", synth_list, "µs", "listing one pid of /proc (serial)"),
	C("synth-task", synth_task, "µs", "one process of one thread (FORK, COMM), serial"),
	C("synth-map", synth_map, "µs", "one mapping, MMAP2, serial walk"),
	C("synth-task-w", synth_task_w, "µs", "one process, per worker, workers at once"),
	C("synth-map-w", synth_map_w, "µs", "one mapping, per worker, workers at once"),
	C("synth-task-bytes", synth_task_bytes, "B", "FORK+COMM bytes per task"),
	C("synth-map-bytes", synth_map_bytes, "B", "MMAP2 bytes per mapping"),
	C("rate-g", rate_g, "B/s", "bytes a busy CPU produces, -F 4000 -g"),
	C("rate-dwarf", rate_dwarf, "B/s", "bytes a busy CPU produces, -F 4000 --call-graph dwarf"),
	C("drain-g", drain_g, "ns/B", "streaming thread CPU per byte, -g records"),
	C("drain-dwarf", drain_dwarf, "ns/B", "streaming thread CPU per byte, dwarf records"),
#undef C
};

#define NR_COST_OPTS	(int)(sizeof(cost_opts) / sizeof(cost_opts[0]))
#define COST_OPT_BASE	1000

static double *cost__field(struct costs *k, int i)
{
	return (double *)((char *)k + cost_opts[i].off);
}

static double cost__get(const struct costs *k, const char *name)
{
	int i;

	for (i = 0; i < NR_COST_OPTS; i++)
		if (!strcmp(cost_opts[i].name, name))
			return *cost__field((struct costs *)k, i);
	return NAN;
}

/* ---- the machine ---------------------------------------------------------- */

struct machine {
	const char	*name;
	char		*own_name;	/* name, when -t gave one (NAME=DESC) */
	const char	*desc;		/* hwloc synthetic description, NULL: this host */
	int		nr_cpus;
	int		nr_remote_near;	/* other CPUs of the caller's node */
	int		nr_remote_far;	/* CPUs of other nodes */
	int		nr_nodes;
	int		*node_cpus;	/* [nr_nodes] */
};

static int machine__load(struct machine *m)
{
	struct topology *topo = m->desc ? topology__new_synthetic(m->desc) : topology__new();
	struct cpu_map *node;
	int i, err = 0;

	if (!topo)
		return -errno;
	m->nr_cpus = topology__nr_cpus(topo);
	m->nr_nodes = topology__nr_groups(topo, TOPO_NUMA);
	if (m->nr_nodes < 1)
		m->nr_nodes = 1;
	m->node_cpus = calloc((size_t)m->nr_nodes, sizeof(int));
	if (!m->node_cpus) {
		err = -ENOMEM;
		goto out_delete;
	}
	for (i = 0; i < m->nr_nodes; i++) {
		node = topology__group_cpus(topo, TOPO_NUMA, i);
		m->node_cpus[i] = node ? node->nr : m->nr_cpus;
		cpu_map__put(node);
	}
	m->nr_remote_near = m->node_cpus[0] - 1;
	m->nr_remote_far = m->nr_cpus - 1 - m->nr_remote_near;
out_delete:
	topology__delete(topo);
	return err;
}

static void machine__exit(struct machine *m)
{
	free(m->node_cpus);
	free(m->own_name);
	m->node_cpus = NULL;
	m->own_name = NULL;
}

/* ---- output: one row per figure, with the inputs it came from ------------- */

struct out {
	bool	tsv;
};

/*
 * TSV columns: section, machine, cpus, case, item, v1, v2, v3, unit, inputs.
 * evlist: v1 serial µs, v2 parallel µs, v3 serial/parallel; synth: the same
 * in ms; drain: v1 MB/s the node produces, v2 MB/s one reader drains, v3
 * their ratio, the readers' worth of work (the node needs ceil(v3) readers).
 */
static void out__row(const struct out *o, const char *section, const struct machine *m,
		     const char *cas, const char *item, double v1, double v2, double v3,
		     const char *unit, const char *inputs)
{
	if (o->tsv) {
		printf("%s\t%s\t%d\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\n", section, m->name,
		       m->nr_cpus, cas, item, v1, v2, v3, unit, inputs);
		return;
	}
	if (!strcmp(section, "drain"))	/* v3 readers' worth of work: ceil(v3) readers */
		printf("  %-16s %-6s %12.1f %12.1f %6.2f %7.0f   %s\n", cas, item, v1, v2, v3,
		       v3 > 1 ? ceil(v3) : 1, inputs);
	else if (v3 > 0)
		printf("  %-22s %-9s %12.1f %12.1f %7.1fx   %s\n", cas, item, v1, v2, v3, inputs);
	else
		printf("  %-22s %-9s %12.1f %12.1f %8s   %s\n", cas, item, v1, v2, "-", inputs);
}

/* ---- evlist ------------------------------------------------------------------ */

enum { P_OPEN, P_MMAP, P_ENABLE, P_DISABLE, P_MUNMAP, P_CLOSE, NR_P };
static const char *const phase_name[NR_P] = {
	"open", "mmap", "enable", "disable", "munmap", "close",
};
static const char *const phase_inputs[NR_P] = {
	"open-local open-remote node-factor | open-w dispatch-fixed dispatch-per-cpu",
	"ring-mmap set-output",
	"enable-a enable-b enable-remote node-factor | enable-a-w enable-b-w dispatch-fixed dispatch-per-cpu",
	"disable-local disable-remote node-factor | disable-w dispatch-fixed dispatch-per-cpu",
	"ring-munmap",
	"close-local close-remote node-factor | close-w dispatch-fixed dispatch-per-cpu",
};

/* Serial and parallel µs of each phase for e events per CPU. */
static void evlist__model(const struct machine *m, const struct costs *k, double e,
			  double serial[NR_P], double parallel[NR_P])
{
	double n = m->nr_cpus, rw = m->nr_remote_near + m->nr_remote_far * k->node_factor;
	double disp = k->dispatch_fixed + n * k->dispatch_per_cpu;
	double en_local = e * k->enable_a + k->enable_b * e * (e + 1) / 2;
	double en_worker = e * k->enable_a_w + k->enable_b_w * e * (e + 1) / 2;
	double rings = n * (k->ring_mmap + (e - 1) * k->set_output);

	serial[P_OPEN] = n * e * k->open_local + rw * e * k->open_remote;
	parallel[P_OPEN] = disp + e * k->open_w;
	serial[P_ENABLE] = n * en_local + rw * e * k->enable_remote;
	parallel[P_ENABLE] = disp + en_worker;
	serial[P_DISABLE] = n * e * k->disable_local + rw * e * k->disable_remote;
	parallel[P_DISABLE] = disp + e * k->disable_w;
	serial[P_CLOSE] = n * e * k->close_local + rw * e * k->close_remote;
	parallel[P_CLOSE] = disp + e * k->close_w;
	serial[P_MMAP] = parallel[P_MMAP] = rings;
	serial[P_MUNMAP] = parallel[P_MUNMAP] = n * k->ring_munmap;
	if (n * e < EVLIST_PARALLEL_MIN_FDS)	/* so few run inline: the serial path */
		memcpy(parallel, serial, NR_P * sizeof(*parallel));
}

/* "name=value ..." of the cost names in list, into buf. */
static const char *inputs_of(const struct costs *k, const char *list, char *buf, size_t len)
{
	char names[512], *tok, *save = NULL;
	size_t at = 0;

	snprintf(names, sizeof(names), "%s", list);
	buf[0] = '\0';
	for (tok = strtok_r(names, " ", &save); tok && at < len; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, "|"))	/* serial inputs | parallel inputs */
			at += (size_t)snprintf(buf + at, len - at, " |");
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%s=%g", at ? " " : "", tok,
					       cost__get(k, tok));
	return buf;
}

static void evlist__print(const struct out *o, const struct machine *m, const struct costs *k,
			  double e)
{
	double s[NR_P], p[NR_P], st = 0, pt = 0;
	char cas[64], in[512];
	int i;

	evlist__model(m, k, e, s, p);
	snprintf(cas, sizeof(cas), "E=%g fds=%g", e, e * m->nr_cpus);
	for (i = 0; i < NR_P; i++) {
		out__row(o, "evlist", m, cas, phase_name[i], s[i], p[i], s[i] / p[i], "us",
			 inputs_of(k, phase_inputs[i], in, sizeof(in)));
		st += s[i];
		pt += p[i];
	}
	out__row(o, "evlist", m, cas, "cycle", st, pt, st / pt, "us", "the six rows above");
}

/* ---- synthesis --------------------------------------------------------------- */

enum { S_LIST, S_DISPATCH, S_WALK, S_WRITE, NR_S };
static const char *const synth_item[NR_S] = { "list", "dispatch", "walk", "write" };
static const char *const synth_inputs[NR_S] = {
	"synth-list",
	"dispatch-fixed dispatch-per-cpu",
	"synth-task synth-map synth-task-w synth-map-w",
	"synth-task-bytes synth-map-bytes drain-g",
};

/* Serial and parallel µs of each part of the walk: tasks processes of maps mappings. */
static void synth__model(const struct machine *m, const struct costs *k, double tasks,
			 double maps, double serial[NR_S], double parallel[NR_S])
{
	double w = m->nr_cpus, per_worker = ceil(tasks / w);
	double bytes = tasks * (k->synth_task_bytes + maps * k->synth_map_bytes);

	serial[S_LIST] = parallel[S_LIST] = tasks * k->synth_list;
	serial[S_DISPATCH] = 0;
	parallel[S_DISPATCH] = k->dispatch_fixed + w * k->dispatch_per_cpu;
	serial[S_WALK] = tasks * (k->synth_task + maps * k->synth_map);
	parallel[S_WALK] = per_worker * (k->synth_task_w + maps * k->synth_map_w);
	/* the caller writes every record, in pid order, on both paths */
	serial[S_WRITE] = parallel[S_WRITE] = bytes * k->drain_g / 1000.0;
}

static void synth__print(const struct out *o, const struct machine *m, const struct costs *k,
			 double tasks, double maps)
{
	double s[NR_S], p[NR_S], st = 0, pt = 0;
	char cas[64], in[512];
	int i;

	synth__model(m, k, tasks, maps, s, p);
	snprintf(cas, sizeof(cas), "tasks=%g maps=%g", tasks, maps);
	for (i = 0; i < NR_S; i++) {
		out__row(o, "synth", m, cas, synth_item[i], s[i] / 1000, p[i] / 1000,
			 p[i] > 0 ? s[i] / p[i] : 0, "ms", inputs_of(k, synth_inputs[i], in, sizeof(in)));
		st += s[i];
		pt += p[i];
	}
	out__row(o, "synth", m, cas, "total", st / 1000, pt / 1000, st / pt, "ms",
		 "the four rows above");
}

/* ---- drain ------------------------------------------------------------------- */

static void drain__print(const struct out *o, const struct machine *m, const struct costs *k)
{
	static const char *const mode[2] = { "-g", "dwarf" }, *const key[2] = { "g", "dwarf" };
	const double rate[2] = { k->rate_g, k->rate_dwarf };
	const double cost[2] = { k->drain_g, k->drain_dwarf };
	char cas[64], in[128];
	int n, i;

	for (n = 0; n < m->nr_nodes; n++)
		for (i = 0; i < 2; i++) {
			double produced = m->node_cpus[n] * rate[i];	/* B/s */
			double drains = 1e9 / cost[i];			/* B/s of one reader */

			snprintf(cas, sizeof(cas), "node=%d cpus=%d", n, m->node_cpus[n]);
			snprintf(in, sizeof(in), "%d * rate-%s=%g; 1e9 / drain-%s=%g",
				 m->node_cpus[n], key[i], rate[i], key[i], cost[i]);
			out__row(o, "drain", m, cas, mode[i], produced / 1e6, drains / 1e6,
				 produced / drains, "MB/s", in);
		}
}

/* ---- main ---------------------------------------------------------------------- */

static void usage(FILE *fp)
{
	int i;

	fprintf(fp,
		"usage: evlist-model [-t [NAME=]TOPOLOGY]... [-e E,E,...] [--tasks N] [--maps M]\n"
		"                    [-s evlist,synth,drain] [-x] [--COST=VALUE ...]\n"
		"A MODEL: predictions computed from costs measured elsewhere, not measurements.\n"
		"  -t  an hwloc synthetic description, or \"host\"; repeatable (default: xeon-phi-7250=\n"
		"      \"numa:4 core:17 pu:4\" and epyc-2x128=\"pack:2 numa:4 core:32 pu:2\")\n"
		"  -e  CPU-wide events per CPU for the evlist rows (default 1,2,100)\n"
		"  --tasks, --maps  the synthesis case: processes of one thread, executable\n"
		"      mappings each (default 2000 and 30)\n"
		"  -s  the sections to print (default all three)\n"
		"  -x  tab-separated rows: section machine cpus case item v1 v2 v3 unit inputs\n"
		"  costs (defaults measured on a 2-vCPU KVM guest, Documentation/benchmarks.md):\n");
	for (i = 0; i < NR_COST_OPTS; i++)
		fprintf(fp, "  --%-18s %-5s %s (default %g)\n", cost_opts[i].name, cost_opts[i].unit,
			cost_opts[i].what, *cost__field((struct costs *)&default_costs, i));
}

enum { OPT_TASKS = 1, OPT_MAPS, OPT_HELP };

/* getopt_long's table: the cost options, then the others. */
static struct option *long_options(void)
{
	struct option *o = calloc(NR_COST_OPTS + 4, sizeof(*o));
	int i;

	if (!o)
		return NULL;
	for (i = 0; i < NR_COST_OPTS; i++)
		o[i] = (struct option){ cost_opts[i].name, required_argument, NULL, COST_OPT_BASE + i };
	o[i++] = (struct option){ "tasks", required_argument, NULL, COST_OPT_BASE - OPT_TASKS };
	o[i++] = (struct option){ "maps", required_argument, NULL, COST_OPT_BASE - OPT_MAPS };
	o[i] = (struct option){ "help", no_argument, NULL, 'h' };
	return o;
}

struct model_opts {
	struct costs	k;
	bool		set[NR_COST_OPTS];
	const char	*events;
	const char	*sections;
	double		tasks, maps;
	struct machine	*machines;
	int		nr_machines;
	struct out	out;
};

static int parse_number(const char *opt, const char *arg, double min, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= min) || isinf(*v)) {
		fprintf(stderr, "evlist-model: bad value '%s' for %s: expected a number of at least %g\n",
			arg, opt, min);
		return -EINVAL;
	}
	return 0;
}

/* -e E,E,...: each a number of events of at least 1. */
static int check_events(const char *events)
{
	char list[256], *tok, *save = NULL;
	double e;
	int err = 0;

	if (snprintf(list, sizeof(list), "%s", events) >= (int)sizeof(list)) {
		fprintf(stderr, "evlist-model: -e '%s' is too long\n", events);
		return -EINVAL;
	}
	tok = strtok_r(list, ",", &save);
	if (!tok)
		return parse_number("-e", events, 1, &e);
	for (; tok && !err; tok = strtok_r(NULL, ",", &save))
		err = parse_number("-e", tok, 1, &e);
	return err;
}

/* -t [NAME=]DESC: a machine more. */
static int add_machine(struct model_opts *mo, const char *arg)
{
	struct machine *m = realloc(mo->machines, (size_t)(mo->nr_machines + 1) * sizeof(*m));
	const char *eq = strchr(arg, '=');

	if (!m)
		return -ENOMEM;
	mo->machines = m;
	m += mo->nr_machines++;
	memset(m, 0, sizeof(*m));
	m->name = arg;
	m->desc = arg;
	/* NAME=DESC; a NAME holds none of a description's ' ', ':' or '(' */
	if (eq && eq > arg && eq[1] && strcspn(arg, " :(") > (size_t)(eq - arg)) {
		m->name = m->own_name = strndup(arg, (size_t)(eq - arg));
		m->desc = eq + 1;
	}
	if (!strcmp(m->desc, "host"))
		m->desc = NULL;
	return m->name ? 0 : -ENOMEM;
}

static int parse_args(struct model_opts *mo, int argc, char **argv)
{
	struct option *long_opts = long_options();
	int c, err = 0;

	if (!long_opts)
		return -ENOMEM;
	while (!err && (c = getopt_long(argc, argv, "t:e:s:xh", long_opts, NULL)) != -1) {
		if (c >= COST_OPT_BASE && c < COST_OPT_BASE + NR_COST_OPTS) {
			int i = c - COST_OPT_BASE;

			err = parse_number(cost_opts[i].name, optarg, 0, cost__field(&mo->k, i));
			mo->set[i] = true;
			continue;
		}
		switch (c) {
		case COST_OPT_BASE - OPT_TASKS: err = parse_number("--tasks", optarg, 1, &mo->tasks); break;
		case COST_OPT_BASE - OPT_MAPS: err = parse_number("--maps", optarg, 0, &mo->maps); break;
		case 't': err = add_machine(mo, optarg); break;
		case 'e': mo->events = optarg; break;
		case 's': mo->sections = optarg; break;
		case 'x': mo->out.tsv = true; break;
		case 'h': usage(stdout); err = 1; break;
		default: usage(stderr); err = -EINVAL; break;
		}
	}
	free(long_opts);
	if (!err && optind < argc) {
		fprintf(stderr, "evlist-model: unexpected argument '%s' (see --help)\n", argv[optind]);
		err = -EINVAL;
	}
	if (!err)
		err = check_events(mo->events);
	if (!err && (mo->k.drain_g <= 0 || mo->k.drain_dwarf <= 0)) {
		fprintf(stderr, "evlist-model: --drain-g and --drain-dwarf must be above 0\n");
		err = -EINVAL;
	}
	if (!err && !mo->nr_machines)
		err = add_machine(mo, "xeon-phi-7250=numa:4 core:17 pu:4") ?:
		      add_machine(mo, "epyc-2x128=pack:2 numa:4 core:32 pu:2");
	return err;
}

static bool want(const struct model_opts *mo, const char *section)
{
	char list[128], *tok, *save = NULL;

	if (!mo->sections)
		return true;
	snprintf(list, sizeof(list), "%s", mo->sections);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, section))
			return true;
	return false;
}

/* The banner and the inputs, each marked as the default or as set here. */
static void print_header(const struct model_opts *mo)
{
	int i;

	if (mo->out.tsv) {
		printf("# MODEL: predicted from the inputs below, not measured\n");
		for (i = 0; i < NR_COST_OPTS; i++)
			printf("# input\t%s\t%g\t%s\t%s\n", cost_opts[i].name,
			       *cost__field((struct costs *)&mo->k, i), cost_opts[i].unit,
			       mo->set[i] ? "set" : "default");
		printf("section\tmachine\tcpus\tcase\titem\tv1\tv2\tv3\tunit\tinputs\n");
		return;
	}
	printf("THIS IS A MODEL. Every figure below is computed from the inputs listed\n"
	       "here, measured on another machine; none was measured on the machines named.\n\n"
	       "inputs (\"default\": measured on a 2-vCPU KVM guest, Documentation/benchmarks.md):\n");
	for (i = 0; i < NR_COST_OPTS; i++)
		printf("  %-18s %12g %-5s %-8s %s\n", cost_opts[i].name,
		       *cost__field((struct costs *)&mo->k, i), cost_opts[i].unit,
		       mo->set[i] ? "set" : "default", cost_opts[i].what);
}

static void print_machine(const struct model_opts *mo, const struct machine *m)
{
	char *list, *tok, *save = NULL;

	if (!mo->out.tsv)
		printf("\n== %s: \"%s\": %d CPUs, %d NUMA node%s ==\n", m->name,
		       m->desc ? m->desc : "this host", m->nr_cpus, m->nr_nodes,
		       m->nr_nodes == 1 ? "" : "s");
	if (want(mo, "evlist")) {
		if (!mo->out.tsv)
			printf("\nevlist cycle, E CPU-wide events per CPU (µs, predicted)\n"
			       "  %-22s %-9s %12s %12s %8s   %s\n", "case", "phase", "serial",
			       "parallel", "ratio", "inputs");
		list = strdup(mo->events);
		for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save))
			evlist__print(&mo->out, m, &mo->k, strtod(tok, NULL));
		free(list);
	}
	if (want(mo, "synth")) {
		if (!mo->out.tsv)
			printf("\nsynthesis of %g processes x %g mappings, %d workers (ms, predicted)\n"
			       "  %-22s %-9s %12s %12s %8s   %s\n", mo->tasks, mo->maps, m->nr_cpus,
			       "case", "part", "serial", "parallel", "ratio", "inputs");
		synth__print(&mo->out, m, &mo->k, mo->tasks, mo->maps);
	}
	if (want(mo, "drain")) {
		if (!mo->out.tsv)
			printf("\nstreaming per NUMA node, every CPU busy at -F 4000 (MB/s = 1e6 B/s, "
			       "predicted)\n  %-16s %-6s %12s %12s %6s %7s   %s\n", "node", "mode",
			       "produced", "one reader", "load", "readers", "inputs");
		drain__print(&mo->out, m, &mo->k);
	}
}

int main(int argc, char **argv)
{
	struct model_opts mo = {
		.k = default_costs, .events = "1,2,100", .tasks = 2000, .maps = 30,
	};
	int i, err;

	err = parse_args(&mo, argc, argv);
	if (err)
		return err > 0 ? 0 : 2;
	for (i = 0; i < mo.nr_machines; i++) {
		err = machine__load(&mo.machines[i]);
		if (err) {
			fprintf(stderr, "evlist-model: cannot load topology '%s': %s\n",
				mo.machines[i].desc ? mo.machines[i].desc : "host", strerror(-err));
			return 1;
		}
	}
	print_header(&mo);
	for (i = 0; i < mo.nr_machines; i++) {
		print_machine(&mo, &mo.machines[i]);
		machine__exit(&mo.machines[i]);
	}
	free(mo.machines);
	return 0;
}
