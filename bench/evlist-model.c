// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-model — predict the serial and the parallel evlist open…close
 * cycle on a machine we do not have, from per-descriptor costs measured on
 * one we do (Documentation/parallel-evlist.md, "The model").
 *
 * The machine is an hwloc topology (synthetic by default: the 272-CPU Xeon
 * Phi, "numa:4 core:17 pu:4"), loaded through src/topology.c.  The evlist
 * is E CPU-wide events on every CPU (perf record -a).  Serially, the
 * calling thread sits on CPU 0 and every operation on another CPU's event
 * pays that phase's cross-CPU cost on top of the local one (IPI; times
 * --node-factor for a CPU of another NUMA node).  In parallel, the caller
 * wakes one worker per CPU (a fixed cost plus one per worker, paid in the
 * caller) and the workers run their CPU's E operations locally, at once.
 * Enabling the k-th event of a CPU reprograms the k already there, so its
 * local cost is a + b*k.  Ring mmap and munmap stay serial on both paths
 * (one process's mmap()s serialize on its mmap lock).
 *
 * Prints one row per phase and per E: serial, parallel, ratio (µs); with
 * -x, tab-separated.  The default costs are the ones measured on the 2-CPU
 * KVM guest this was written on; pass your own.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/topology.h"

struct costs {
	double	open_local, open_remote;
	double	enable_a, enable_b, enable_remote;
	double	disable_local, disable_remote;
	double	close_local, close_remote;
	double	ring_mmap, set_output, ring_munmap;
	double	dispatch_fixed, dispatch_per_cpu;
	double	node_factor;
};

/* Measured here (bench/evlist-vs-perf.sh's machine), µs; see the doc. */
static const struct costs default_costs = {
	.open_local = 2.9,	.open_remote = 0.1,
	.enable_a = 1.1,	.enable_b = 0.33,	.enable_remote = 3.0,
	.disable_local = 0.6,	.disable_remote = 2.8,
	.close_local = 1.5,	.close_remote = 13.6,
	.ring_mmap = 73.0,	.set_output = 0.37,	.ring_munmap = 20.0,
	.dispatch_fixed = 30.0,	.dispatch_per_cpu = 2.5,
	.node_factor = 1.0,
};

struct machine {
	int	nr_cpus;
	int	nr_remote_near;	/* other CPUs of the caller's node */
	int	nr_remote_far;	/* CPUs of other nodes */
};

enum { P_OPEN, P_MMAP, P_ENABLE, P_DISABLE, P_MUNMAP, P_CLOSE, NR_P };
static const char *const phase_name[NR_P] = {
	"open", "mmap", "enable", "disable", "munmap", "close",
};

static double remote_weight(const struct machine *m, const struct costs *k)
{
	return m->nr_remote_near + m->nr_remote_far * k->node_factor;
}

/* Serial and parallel time of each phase for e events per CPU. */
static void model(const struct machine *m, const struct costs *k, double e,
		  double serial[NR_P], double parallel[NR_P])
{
	double n = m->nr_cpus, rw = remote_weight(m, k);
	double disp = k->dispatch_fixed + n * k->dispatch_per_cpu;
	double en_local = e * k->enable_a + k->enable_b * e * (e + 1) / 2;
	double rings = n * (k->ring_mmap + (e - 1) * k->set_output);

	serial[P_OPEN] = n * e * k->open_local + rw * e * k->open_remote;
	parallel[P_OPEN] = disp + e * k->open_local;
	serial[P_ENABLE] = n * en_local + rw * e * k->enable_remote;
	parallel[P_ENABLE] = disp + en_local;
	serial[P_DISABLE] = n * e * k->disable_local + rw * e * k->disable_remote;
	parallel[P_DISABLE] = disp + e * k->disable_local;
	serial[P_CLOSE] = n * e * k->close_local + rw * e * k->close_remote;
	parallel[P_CLOSE] = disp + e * k->close_local;
	serial[P_MMAP] = parallel[P_MMAP] = rings;
	serial[P_MUNMAP] = parallel[P_MUNMAP] = n * k->ring_munmap;
}

static int machine__init(struct machine *m, const char *desc)
{
	struct topology *topo = desc ? topology__new_synthetic(desc) : topology__new();
	struct cpu_map *node0;

	if (!topo)
		return -errno;
	m->nr_cpus = topology__nr_cpus(topo);
	node0 = topology__group_cpus(topo, TOPO_NUMA, 0);
	m->nr_remote_near = (node0 ? node0->nr : m->nr_cpus) - 1;
	m->nr_remote_far = m->nr_cpus - 1 - m->nr_remote_near;
	cpu_map__put(node0);
	topology__delete(topo);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: evlist-model [-t TOPOLOGY] [-e E,E,...] [-x] [--COST=µs ...]\n"
		"  -t  hwloc synthetic description (default \"numa:4 core:17 pu:4\");\n"
		"      \"host\": this machine\n"
		"  -e  events per CPU to model (default 1,2,100)\n"
		"  -x  tab-separated output: topology, cpus, E, phase, serial, parallel\n"
		"  costs in µs (defaults measured on a 2-vCPU KVM guest, kernel 6.18):\n"
		"  --open-local --open-remote --enable-a --enable-b --enable-remote\n"
		"  --disable-local --disable-remote --close-local --close-remote\n"
		"  --ring-mmap --set-output --ring-munmap --dispatch-fixed\n"
		"  --dispatch-per-cpu --node-factor (multiplies remote costs across nodes)\n");
}

/* --NAME=µs sets the cost at that offset of struct costs. */
static const struct cost_opt {
	const char	*name;
	size_t		off;
} cost_opts[] = {
	{ "open-local", offsetof(struct costs, open_local) },
	{ "open-remote", offsetof(struct costs, open_remote) },
	{ "enable-a", offsetof(struct costs, enable_a) },
	{ "enable-b", offsetof(struct costs, enable_b) },
	{ "enable-remote", offsetof(struct costs, enable_remote) },
	{ "disable-local", offsetof(struct costs, disable_local) },
	{ "disable-remote", offsetof(struct costs, disable_remote) },
	{ "close-local", offsetof(struct costs, close_local) },
	{ "close-remote", offsetof(struct costs, close_remote) },
	{ "ring-mmap", offsetof(struct costs, ring_mmap) },
	{ "set-output", offsetof(struct costs, set_output) },
	{ "ring-munmap", offsetof(struct costs, ring_munmap) },
	{ "dispatch-fixed", offsetof(struct costs, dispatch_fixed) },
	{ "dispatch-per-cpu", offsetof(struct costs, dispatch_per_cpu) },
	{ "node-factor", offsetof(struct costs, node_factor) },
};

#define NR_COST_OPTS	(int)(sizeof(cost_opts) / sizeof(cost_opts[0]))
#define COST_OPT_BASE	1000

/* getopt_long's table: the cost options, then --help. */
static struct option *long_options(void)
{
	struct option *o = calloc(NR_COST_OPTS + 2, sizeof(*o));
	int i;

	if (!o)
		return NULL;
	for (i = 0; i < NR_COST_OPTS; i++)
		o[i] = (struct option){ cost_opts[i].name, required_argument, NULL, COST_OPT_BASE + i };
	o[i] = (struct option){ "help", no_argument, NULL, 'h' };
	return o;
}

static void print_model(const struct machine *m, const struct costs *k, const char *desc,
			double e, bool tsv)
{
	double s[NR_P], p[NR_P], st = 0, pt = 0;
	int i;

	model(m, k, e, s, p);
	if (!tsv)
		printf("\n%s: %d CPUs, %g event%s per CPU (%g fds)\n%-10s %14s %14s %9s\n",
		       desc, m->nr_cpus, e, e == 1 ? "" : "s", e * m->nr_cpus,
		       "phase", "serial (µs)", "parallel (µs)", "ratio");
	for (i = 0; i <= NR_P; i++) {
		const char *name = i < NR_P ? phase_name[i] : "total";
		double si = i < NR_P ? s[i] : st, pi = i < NR_P ? p[i] : pt;

		if (tsv)
			printf("%s\t%d\t%g\t%s\t%.1f\t%.1f\n", desc, m->nr_cpus, e, name, si, pi);
		else
			printf("%-10s %14.0f %14.0f %8.2fx\n", name, si, pi, si / pi);
		if (i < NR_P) {
			st += s[i];
			pt += p[i];
		}
	}
}

int main(int argc, char **argv)
{
	const char *desc = "numa:4 core:17 pu:4", *events = "1,2,100";
	struct costs k = default_costs;
	struct machine m = { 0 };
	bool tsv = false;
	struct option *long_opts = long_options();
	char *list, *tok, *save = NULL;
	int c, err;

	if (!long_opts)
		return 1;
	while ((c = getopt_long(argc, argv, "t:e:xh", long_opts, NULL)) != -1) {
		if (c >= COST_OPT_BASE && c < COST_OPT_BASE + NR_COST_OPTS) {
			*(double *)((char *)&k + cost_opts[c - COST_OPT_BASE].off) = strtod(optarg, NULL);
			continue;
		}
		switch (c) {
		case 't': desc = optarg; break;
		case 'e': events = optarg; break;
		case 'x': tsv = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	err = machine__init(&m, strcmp(desc, "host") ? desc : NULL);
	if (err) {
		fprintf(stderr, "evlist-model: cannot load topology '%s': %s\n", desc, strerror(-err));
		return 1;
	}
	list = strdup(events);
	if (!list)
		return 1;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		print_model(&m, &k, desc, strtod(tok, NULL), tsv);
	free(list);
	free(long_opts);
	return 0;
}
