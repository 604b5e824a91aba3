// SPDX-License-Identifier: GPL-2.0
/*
 * record.c — the record command: options → evlist → rings → perf.data.
 *
 * Runs on the main thread, which owns the setup and the end and handles every
 * signal (through a signalfd, with all signals blocked so the streaming
 * thread never sees one). The order is perf record's:
 *
 *   parse options → build and configure the evlist → open the output
 *   → fork the workload (it waits) → open and mmap the events
 *   → write the header → synthesize what already runs (tracking events
 *     already on for system-wide, so nothing born meanwhile is missed)
 *   → start the streaming thread → enable → let the workload exec
 *   → wait for the workload, a signal, a delay or the streaming thread
 *   → disable → final drain → LOST_SAMPLES → features and final header.
 *
 * Data flow: synthesized records go straight to the writer from this thread
 * before the streaming thread starts and after it stops; between the two the
 * writer belongs to the streaming thread. A write error (a full disk) stops
 * the recording; the file is cut back to its last whole record and finished
 * so perf still opens it.
 *
 * Pipe mode (-o -, a FIFO at -o, stdout a pipe with no -o) writes perf's
 * pipe format instead, with one streaming thread: the header is pipe.c's
 * records ahead of the synthesized ones, nothing is rewritten at the end,
 * and a reader that goes away ends the recording.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "precord/record.h"
#include "precord/options.h"
#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "precord/header.h"
#include "precord/synthesize.h"
#include "precord/writer.h"
#include "precord/streams.h"
#include "precord/merge.h"
#include "precord/compress.h"
#include "precord/report.h"
#include "precord/control.h"
#include "precord/output.h"
#include "precord/pipe.h"
#include "precord/status.h"
#include "wq.h"

#define EXIT_USAGE	129
#define DEFAULT_RT_PRIO	10	/* streaming threads: SCHED_FIFO, as `chrt -f 10` */
#define EXIT_NOEXEC	127

/* x86-64 user registers perf samples for DWARF unwinding (PERF_REGS_MASK without segments). */
#define DWARF_REGS_MASK_X86_64	0xff0fffULL
/* What DWARF unwinding cannot do without: IP and SP (perf's DWARF_MINIMAL_REGS). */
#define DWARF_MINIMAL_REGS	((1ULL << 8) | (1ULL << 7))

struct workload {
	pid_t	pid;		/* -1: none */
	int	go_fd;		/* write end: one byte lets the child exec */
	int	err_fd;		/* read end: the child's errno when exec failed, EOF when it ran */
	int	status;		/* from waitpid */
	bool	exited;
	int	exec_errno;
};

struct record {
	struct record_opts	opts;
	struct evlist		*evlist;
	struct evsel		*tracking;	/* gets mmap/comm/task records */
	bool			system_wide;	/* per-CPU target (-a, -C, or none) */
	struct workload		wl;

	const char		*path;
	int			out_fd;
	struct writer		writer;
	u64			data_offset;
	bool			header_written;

	struct streams		streams;
	struct stream_stats	total;		/* the threads' counters, after they stop */
	bool			threaded;	/* --threads: staging directory, then merge */
	/*
	 * --threads whose layout has one thread (numa on a one-node machine):
	 * that thread, real-time and bound as the layout says, writes the
	 * output itself in perf's serial layout; nothing to merge.
	 */
	bool			one_thread;
	bool			device;		/* -o names a device: written into, one file */
	bool			pipe;		/* perf's pipe format, to stdout ("-") or a FIFO */
	bool			pipe_gone;	/* its reader went away; said once */
	char			staging[PATH_MAX];	/* "<output>.staging" */
	char			data_path[PATH_MAX];	/* the file out_fd writes */
	struct merge_stats	merged;
	struct merge_index	*index;		/* the data.N records, noted by the threads */
	struct topology		*topo;		/* with --threads: the machine's, for the layout */
	bool			streams_started;
	struct wq_pool		*pool;		/* the global workers: one per recorded CPU */
	struct wq		*wq;
	int			notify_fd;	/* the stream thread stopped by itself */
	int			sig_fd;
	sigset_t		old_mask;

	/* The flight recorder: --overwrite, --switch-output, --control. */
	struct control		ctl;
	struct stream_shared	shared;		/* --switch-output=SIZE: the threads' byte count */
	u64			next_switch_ms;	/* --switch-output=TIME: when, 0: never */
	int			gen;		/* output files begun so far, minus one */
	char			**outputs;	/* --switch-max-files: the files kept, oldest first */
	int			nr_outputs;
	char			final_path[PATH_MAX];	/* --switch-output: the last FILE.<timestamp> */
	bool			stop_requested;	/* "stop" on the control channel */
	u64			gen_start_bytes;	/* shared.bytes when the current file began */
	bool			switch_due;	/* the current file was full when its limit was armed */

	int			stop_signal;	/* signal that ended the recording, 0 */
	int			write_error;	/* -errno from the writer, 0 */
	int			merge_error;	/* -errno of a merge that kept its directory, 0 */
	u64			lost_samples;	/* from PERF_FORMAT_LOST at exit */
	u64			kept_samples;	/* after a write error: the samples in the files */
	bool			samples_counted;	/* kept_samples was counted */
	u64			synth_bytes;
	bool			rate_warned;	/* the -F cap was said (once, not per event) */
	bool			regs_warned;	/* dwarf with --user-regs was said */
	struct status		status;		/* the live line on a terminal */
	/*
	 * The label of the closing lines perf record also prints (woken up,
	 * captured and wrote, dump): "perf record" when run as `precord record`,
	 * where those lines are perf's word for word, for the scripts that read
	 * them; "precord" otherwise.
	 */
	const char		*tag;
	int			full_argc;
	const char		**full_argv;
};

/* ---- events and targets ------------------------------------------------ */

/* How many address filters the PMU of this attr type takes (its sysfs nr_addr_filters); 0: none. */
static int pmu__nr_addr_filters(u32 type)
{
	static const char devices[] = "/sys/bus/event_source/devices";
	char path[512];
	struct dirent *d;
	int nr = 0, t;
	DIR *dir = opendir(devices);
	FILE *f;

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", devices, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
		if (t != (int)type)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nr_addr_filters", devices, d->d_name);
		f = fopen(path, "re");
		if (f && fscanf(f, "%d", &nr) != 1)
			nr = 0;
		if (f)
			fclose(f);
		break;
	}
	if (dir)
		closedir(dir);
	return nr;
}

/*
 * --filter for the evsels one -e added (from index first on), as perf's
 * parse_filter(): a tracepoint takes it as its filter, an event of a PMU
 * with address filters as address filters (in the kernel's syntax), any
 * other event refuses it with perf's words.
 */
static int record__add_filters(struct record *rec, int event, int first)
{
	struct record_opts *o = &rec->opts;
	struct evsel *evsel;
	int f, i;

	for (f = 0; f < o->nr_filters; f++) {
		if (o->filters[f].event != event)
			continue;
		for (i = first; i < rec->evlist->nr_entries; i++) {
			evsel = rec->evlist->entries[i];
			if (!evsel__is_tracepoint(evsel) && !pmu__nr_addr_filters(evsel->attr.type)) {
				fprintf(stderr, "precord: --filter '%s' for event '%s': This CPU does "
					"not support address filtering (only tracepoints and PMUs with "
					"address filters take a filter)\n", o->filters[f].filter,
					evsel->name);
				return -EINVAL;
			}
			if (evsel__append_filter(evsel, o->filters[f].filter))
				return -ENOMEM;
		}
	}
	return 0;
}

static int record__parse_events(struct record *rec)
{
	struct parse_events_error err = { .msg = "" };
	int i, ret, first;

	for (i = 0; i < rec->opts.nr_events; i++) {
		first = rec->evlist->nr_entries;
		ret = parse_events(rec->evlist, rec->opts.events[i], &err);
		if (ret) {
			fprintf(stderr, "precord: %s\n", err.msg);
			return ret;
		}
		ret = record__add_filters(rec, i, first);
		if (ret)
			return ret;
	}
	if (rec->evlist->nr_entries == 0) {
		ret = parse_events__default(rec->evlist, &err);
		if (ret) {
			fprintf(stderr, "precord: %s\n", err.msg);
			return ret;
		}
	}
	return 0;
}

static void print_online(char *buf, size_t size)
{
	struct cpu_map *online = cpu_map__new_online();

	buf[0] = '\0';
	if (online)
		cpu_map__snprintf(online, buf, size);
	cpu_map__put(online);
}

static int record__create_maps(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct cpu_map *cpus = NULL;
	struct thread_map *threads = NULL;
	char online[256];
	pid_t bad = 0;
	int bad_cpu = -1, err;

	if (o->cpu_list) {
		err = cpu_map__parse(o->cpu_list, &cpus, &bad_cpu);
		if (err == -ENODEV) {
			print_online(online, sizeof(online));
			fprintf(stderr, "precord: CPU %d is not online (online: %s); fix the -C list\n",
				bad_cpu, online);
			return err;
		}
		if (err) {
			fprintf(stderr, "precord: bad CPU list '%s' for -C: expected CPU numbers and ranges like 0-3,6\n",
				o->cpu_list);
			return err;
		}
	} else if (record_opts__per_thread(o)) {
		cpus = cpu_map__new_any();	/* --per-thread: a ring per thread */
		if (!cpus)
			return -ENOMEM;
	} else {
		cpus = cpu_map__new_online();
		if (!cpus)
			return -ENOMEM;
	}

	if (o->pid_list || o->tid_list) {
		err = o->pid_list ? thread_map__new_pids(o->pid_list, &threads, &bad)
				  : thread_map__new_tids(o->tid_list, &threads, &bad);
		if (err == -ESRCH)
			fprintf(stderr, "precord: %s %d does not exist; check the %s list\n",
				o->pid_list ? "process" : "thread", bad, o->pid_list ? "-p" : "-t");
		else if (err)
			fprintf(stderr, "precord: bad %s list '%s': expected ids like 123,456\n",
				o->pid_list ? "-p" : "-t", o->pid_list ? o->pid_list : o->tid_list);
		if (err)
			goto out_put;
		rec->system_wide = false;
	} else if (o->argc > 0 && !o->system_wide && !o->cpu_list) {
		threads = NULL;		/* the workload's pid, once forked */
		rec->system_wide = false;
	} else {
		threads = thread_map__new_dummy();
		rec->system_wide = true;
	}
	evlist__set_maps(rec->evlist, cpus, threads);
	err = 0;
out_put:
	cpu_map__put(cpus);
	thread_map__put(threads);
	return err;
}

static unsigned int max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned int rate = 0;

	if (f) {
		if (fscanf(f, "%u", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	return rate;
}

/*
 * Sampling period or frequency, after perf's cap at perf_event_max_sample_rate
 * (record_opts__config_freq()): a -F above it is lowered with a warning, or
 * with --strict-freq refused.
 */
static int record__config_rate(struct record *rec, struct perf_event_attr *attr)
{
	struct record_opts *o = &rec->opts;
	unsigned int max = max_sample_rate(), freq = o->freq;

	if (o->count && !o->freq_set) {
		attr->sample_period = o->count;
		attr->freq = 0;
		return 0;
	}
	if (o->freq_max && max)
		freq = max;
	if (max && freq > max && o->strict_freq && o->freq_set) {
		fprintf(stderr, "precord: maximum frequency rate (%u Hz) exceeded by -F %u: use a "
			"lower -F, or raise /proc/sys/kernel/perf_event_max_sample_rate\n", max, freq);
		return -EINVAL;
	}
	if (max && freq > max) {
		if (!rec->rate_warned)
			fprintf(stderr, "precord: warning: -F %u is above the maximum sample rate %u Hz "
				"(kernel.perf_event_max_sample_rate); recording at %u Hz\n", freq, max,
				max);
		rec->rate_warned = true;
		freq = max;
	}
	attr->sample_freq = freq;
	attr->freq = 1;
	attr->sample_type |= PERF_SAMPLE_PERIOD;
	return 0;
}

/* -d, and --call-graph dwarf, which implies it in perf: data addresses and their maps. */
static bool record__sample_address(const struct record_opts *o)
{
	return o->sample_address || o->callgraph == CALLGRAPH_DWARF;
}

/* --call-graph fp,N: perf keeps N only below kernel.perf_event_max_stack. */
static u16 record__max_stack(const struct record_opts *o)
{
	int max = 127;

	if (!o->max_stack)
		return 0;
	evlist__read_sysctl("perf_event_max_stack", &max);
	return o->max_stack < (unsigned int)max && o->max_stack <= UINT16_MAX ?
	       (u16)o->max_stack : 0;
}

/*
 * Call chains for one event (perf's __evsel__config_callchain()): fp, dwarf
 * (user registers and stack, the address and data source with it), lbr
 * (the branch stack's call stack; frame pointers when user space is not
 * sampled), and --kernel-callchains/--user-callchains for each. With
 * --user-regs, dwarf adds only what unwinding needs (IP, SP), with perf's
 * warning. track: the event that carries the side-band, whose mmap_data
 * dwarf needs.
 */
static void record__config_callchain(struct record *rec, struct perf_event_attr *attr,
				     const char *mode, u32 dump_size, u64 max_stack, bool track)
{
	struct record_opts *o = &rec->opts;

	attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr->sample_max_stack = (u16)max_stack;
	if (o->kernel_callchains)
		attr->exclude_callchain_user = 1;
	if (o->user_callchains)
		attr->exclude_callchain_kernel = 1;
	if (!strcmp(mode, "lbr") && !attr->exclude_user) {
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					   PERF_SAMPLE_BRANCH_NO_CYCLES |
					   PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_HW_INDEX;
	}
	if (strcmp(mode, "dwarf"))
		return;
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->sample_user_regs && !rec->regs_warned && !o->quiet)
		fprintf(stderr, "precord: warning: --call-graph dwarf may need all the user "
			"registers; with --user-regs only IP and SP are added to them, so unwinding "
			"may be unreliable\n");
	rec->regs_warned = true;
	attr->sample_regs_user |= o->sample_user_regs ? DWARF_MINIMAL_REGS : DWARF_REGS_MASK_X86_64;
	attr->sample_stack_user = dump_size;
	attr->exclude_callchain_user = 1;
	attr->mmap_data = track;
}

/*
 * What samples carry beyond the defaults: perf's evsel__config() for each
 * option. Call chains go on every event, perf 6.1's dummy too; registers
 * on none of the dummies (perf's evsel__is_dummy_event()).
 */
static void record__config_sample(struct record *rec, struct evsel *evsel, bool track)
{
	struct record_opts *o = &rec->opts;
	struct perf_event_attr *attr = &evsel->attr;
	bool dummy = attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY;

	if (o->no_samples)
		attr->sample_period = 0;	/* sample_freq too: one union */
	if (o->inherit_stat) {
		attr->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
				     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		attr->inherit_stat = 1;
	}
	if (record__sample_address(o))
		attr->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->callgraph != CALLGRAPH_NONE)
		record__config_callchain(rec, attr, o->callgraph == CALLGRAPH_DWARF ? "dwarf" : "fp",
					 o->dwarf_stack_size, record__max_stack(o), track);
	if (o->sample_intr_regs && !dummy) {
		attr->sample_regs_intr = o->sample_intr_regs;
		attr->sample_type |= PERF_SAMPLE_REGS_INTR;
	}
	if (o->sample_user_regs && !dummy) {
		attr->sample_regs_user |= o->sample_user_regs;
		attr->sample_type |= PERF_SAMPLE_REGS_USER;
	}
	if (rec->system_wide || o->sample_cpu)
		attr->sample_type |= PERF_SAMPLE_CPU;
	if (o->raw_samples)
		attr->sample_type |= PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (o->sample_phys_addr)
		attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	/* x86's arch_evsel__set_sample_weight(); kernels before 5.12 fall back to WEIGHT */
	if (o->sample_weight)
		attr->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (o->record_cgroup)
		attr->sample_type |= PERF_SAMPLE_CGROUP;
	if (o->sample_data_page_size)
		attr->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (o->sample_code_page_size)
		attr->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (o->sample_transaction)
		attr->sample_type |= PERF_SAMPLE_TRANSACTION;
	if (o->running_time)
		attr->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/*
 * The event's own call-graph terms replace the command line's (perf's
 * evsel__apply_config_terms(): call-graph=, stack-size=, max-stack=, which
 * alone means frame pointers). "no" turns call chains off for it.
 */
static void record__config_callgraph_terms(struct record *rec, struct evsel *evsel, bool track)
{
	const struct evsel_terms *t = &evsel->terms;
	struct perf_event_attr *attr = &evsel->attr;
	const char *mode = NULL;
	u32 dump_size = 8192;

	if (!(t->set & (EVSEL_TERM_CALLGRAPH | EVSEL_TERM_STACK_SIZE | EVSEL_TERM_MAX_STACK)) ||
	    (!(t->set & (EVSEL_TERM_CALLGRAPH | EVSEL_TERM_STACK_SIZE)) && !t->max_stack))
		return;
	if (t->set & EVSEL_TERM_CALLGRAPH)
		mode = t->callgraph;
	else if (t->max_stack)
		mode = "fp";
	if (mode && strcmp(mode, "fp") && strcmp(mode, "dwarf") && strcmp(mode, "lbr") &&
	    strcmp(mode, "no")) {
		fprintf(stderr, "precord: warning: per-event call-graph '%s' of %s is not fp, dwarf, "
			"lbr or no; the command line's call graph applies to it\n", mode, evsel->name);
		return;
	}
	if ((t->set & EVSEL_TERM_STACK_SIZE) && t->stack_size)
		dump_size = (u32)((t->stack_size + 7) & ~7ULL);
	/* The command line's call chain is taken off first (perf's evsel__reset_callgraph()). */
	if (rec->opts.callgraph != CALLGRAPH_NONE) {
		attr->sample_type &= ~(u64)PERF_SAMPLE_CALLCHAIN;
		if (rec->opts.callgraph == CALLGRAPH_DWARF)
			attr->sample_type &= ~(u64)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	}
	if (mode && strcmp(mode, "no"))
		record__config_callchain(rec, attr, mode, dump_size, t->max_stack, track);
}

/* perf's evsel__apply_config_terms(): the event's terms over the options. */
static void record__config_terms(struct record *rec, struct evsel *evsel, bool track)
{
	const struct evsel_terms *t = &evsel->terms;
	struct perf_event_attr *attr = &evsel->attr;
	struct record_opts *o = &rec->opts;

	if ((t->set & EVSEL_TERM_PERIOD) && !((t->weak & EVSEL_TERM_PERIOD) && o->count)) {
		attr->sample_period = t->period;
		attr->freq = 0;
		attr->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
	}
	if ((t->set & EVSEL_TERM_FREQ) && !((t->weak & EVSEL_TERM_FREQ) && o->freq_set)) {
		attr->sample_freq = t->freq;
		attr->freq = 1;
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (t->set & EVSEL_TERM_TIME) {
		if (t->time)
			attr->sample_type |= PERF_SAMPLE_TIME;
		else
			attr->sample_type &= ~(u64)PERF_SAMPLE_TIME;
	}
	if (t->set & EVSEL_TERM_BRANCH) {
		if (strcmp(t->branch, "no")) {
			u64 mode = attr->branch_sample_type;

			attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
			if (!parse_events__branch_str(t->branch, &mode))
				attr->branch_sample_type = mode;
		} else {
			attr->sample_type &= ~(u64)PERF_SAMPLE_BRANCH_STACK;
		}
	}
	if (t->set & EVSEL_TERM_INHERIT)
		attr->inherit = t->inherit;
	if (t->set & EVSEL_TERM_OVERWRITE)
		attr->write_backward = t->overwrite;
	if (t->set & EVSEL_TERM_AUX_OUTPUT)
		attr->aux_output = t->aux_output;
	record__config_callgraph_terms(rec, evsel, track);
}

/*
 * One evsel's attr, as perf record sets it (evsel__config), plus what precord
 * forces on purpose: sample_id_all, IDENTIFIER on every event, read_format
 * ID|LOST, and build ids in MMAP2 (unless --no-buildid-mmap). TIME is
 * perf's choice (record_opts__sample_time()). Group members are neither
 * disabled nor enabled on exec: their leader is. track: this evsel carries
 * the side-band; own_dummy: it is the dummy record adds for that, which
 * with --overwrite stays in a forward ring of its own.
 */
static int record__config_evsel(struct record *rec, struct evsel *evsel, bool track,
				bool own_dummy)
{
	struct record_opts *o = &rec->opts;
	struct perf_event_attr *attr = &evsel->attr;
	bool tp = evsel__is_tracepoint(evsel);
	bool leader = evsel__is_group_leader(evsel);
	int err;

	attr->size = sizeof(*attr);
	attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	if (record_opts__sample_time(o))
		attr->sample_type |= PERF_SAMPLE_TIME;
	attr->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	attr->sample_id_all = 1;
	attr->disabled = leader;
	/* per-thread rings: perf's evlist__config() turns inheritance off */
	attr->inherit = !o->no_inherit && !record_opts__per_thread(o);
	if (evsel->sample_read) {
		/* ":S": the counts ride in the samples; the whole group's when there is one */
		attr->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		if (evsel->leader->nr_members > 1) {
			attr->read_format |= PERF_FORMAT_GROUP;
			attr->inherit = 0;
		}
	}

	/* perf's tracepoint sample type and period, set when the event is parsed */
	if (tp) {
		attr->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				     PERF_SAMPLE_PERIOD;
		attr->sample_period = 1;
		attr->freq = 0;
	}
	/*
	 * A period the event came with (a tracepoint's, the dummy's, a
	 * breakpoint's 1) stays unless -c or -F: then, as perf's
	 * evsel__config(), every event takes that rate.
	 */
	if (!attr->sample_period || o->count || o->freq_set) {
		err = record__config_rate(rec, attr);
		if (err)
			return err;
	}
	record__config_sample(rec, evsel, track);

	if (o->clockid_set) {
		attr->use_clockid = 1;
		attr->clockid = o->clockid;
	}
	if (o->overwrite && !own_dummy)
		attr->write_backward = 1;
	/* Forked workload, per task: enabled by the exec itself. */
	if (leader && !rec->system_wide && !o->pid_list && !o->tid_list && o->delay_ms == 0)
		attr->enable_on_exec = 1;
	if (evsel->precise_max)
		attr->precise_ip = 3;
	if (o->all_user) {
		attr->exclude_kernel = 1;
		attr->exclude_user = 0;
	}
	if (o->all_kernel) {
		attr->exclude_kernel = 0;
		attr->exclude_user = 1;
	}
	record__config_terms(rec, evsel, track);
	/* -P/--no-period win over everything else, the terms too */
	if (o->period_set && o->period)
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	else if (o->period_set)
		attr->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
	return 0;
}

/*
 * ":S" on a group leader: the members' counts come with the leader's
 * samples, so they take no samples of their own (unless a period= or
 * freq= term says otherwise) and carry the leader's sample_type (perf's
 * evsel__config_leader_sampling()).
 */
static void record__config_leader_sampling(struct evsel *evsel)
{
	struct perf_event_attr *attr = &evsel->attr;
	const struct evsel *leader = evsel->leader;

	if (!leader->sample_read || leader == evsel)
		return;
	if (!(evsel->terms.set & (EVSEL_TERM_PERIOD | EVSEL_TERM_FREQ))) {
		attr->freq = 0;
		attr->sample_freq = 0;
		attr->sample_period = 0;
	}
	if (!(evsel->terms.set & EVSEL_TERM_OVERWRITE))
		attr->write_backward = 0;
	attr->sample_type = leader->attr.sample_type;
}

/* --group: every event (the side-band dummy too) in one group led by the first. */
static void record__set_leader(struct evlist *evlist)
{
	struct evsel *leader = evlist__first(evlist), *evsel;
	int i;

	if (!leader)
		return;
	evlist__for_each_evsel(evlist, evsel, i)
		evsel->leader = leader;
	leader->nr_members = evlist->nr_entries;
}

static void record__config_tracking(struct record *rec, struct evsel *evsel)
{
	struct perf_event_attr *attr = &evsel->attr;

	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->ksymbol = 1;
	attr->bpf_event = 1;
	attr->context_switch = rec->opts.switch_events;
	attr->build_id = rec->opts.buildid_mmap;
	attr->namespaces = rec->opts.record_namespaces;
	attr->cgroup = rec->opts.record_cgroup;
	if (record__sample_address(&rec->opts))
		attr->mmap_data = 1;
	rec->tracking = evsel;
}

/*
 * perf names its dummy from its attr when it writes the header (evsel__name()),
 * so --all-user or --all-kernel show in it: "dummy:uh", "dummy:kh".
 */
static void record__name_dummy(struct evsel *evsel)
{
	char name[32], suffix[24];
	char *dup;

	evsel__mod_suffix(&evsel->attr, suffix, sizeof(suffix));
	snprintf(name, sizeof(name), "dummy%s", suffix);
	dup = strdup(name);
	if (!dup)
		return;	/* keeps "dummy:HG": only the name differs */
	free(evsel->name);
	evsel->name = dup;
}

/*
 * System-wide, perf adds a dummy event that carries the side-band (mmap,
 * comm, task) and is enabled before synthesis, so a process started while
 * /proc is walked is still seen. Per task, the first event carries it,
 * except with --overwrite: the dummy then keeps the side-band in a forward
 * ring of its own, so that a snapshot can always be symbolized.
 */
static int record__config(struct record *rec)
{
	struct evsel *evsel, *tracking, *first = evlist__first(rec->evlist);
	/* perf: a dummy event given first (-e dummy, duration_time) carries it itself */
	bool first_dummy = first && first->attr.type == PERF_TYPE_SOFTWARE &&
			   first->attr.config == PERF_COUNT_SW_DUMMY && !rec->opts.overwrite;
	/* --overwrite: tracking records must not be overwritten with the samples. */
	bool own_tracking = (rec->system_wide && !first_dummy) || rec->opts.overwrite;
	int i;

	if (own_tracking) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY,
			.exclude_guest = 0,
			.sample_period = 1,
		};

		evsel = evsel__new(&attr, "dummy:HG");
		if (!evsel || evlist__add(rec->evlist, evsel)) {
			evsel__delete(evsel);
			return -ENOMEM;
		}
	}
	if (rec->opts.group)
		record__set_leader(rec->evlist);
	tracking = own_tracking ? rec->evlist->entries[rec->evlist->nr_entries - 1]
				: evlist__first(rec->evlist);
	evlist__for_each_evsel(rec->evlist, evsel, i) {
		int err = record__config_evsel(rec, evsel, evsel == tracking,
					       own_tracking && evsel == tracking);

		if (err)
			return err;
	}
	evlist__for_each_evsel(rec->evlist, evsel, i)
		record__config_leader_sampling(evsel);
	/*
	 * An overwrite term: that event's rings are backward ones, read as
	 * --overwrite's are, at a snapshot and at the end.
	 */
	if (evlist__has_backward(rec->evlist))
		rec->opts.overwrite = true;
	/* perf: aux-sample-size= needs an AUX area event, and precord records none. */
	evlist__for_each_evsel(rec->evlist, evsel, i) {
		if (evsel->terms.set & EVSEL_TERM_AUX_SAMPLE_SIZE) {
			fprintf(stderr, "precord: No AUX area event to sample (%s asks for "
				"aux-sample-size=, and precord records no AUX area events)\n",
				evsel->name);
			return -EINVAL;
		}
	}
	if (own_tracking) {
		evsel = rec->evlist->entries[rec->evlist->nr_entries - 1];
		record__config_tracking(rec, evsel);
		evsel->attr.disabled = 0;
		evsel->attr.enable_on_exec = 0;
		record__name_dummy(evsel);
	} else {
		record__config_tracking(rec, first);
		if (rec->system_wide) {	/* the given dummy, on from the start as perf's would be */
			first->attr.disabled = 0;
			first->attr.enable_on_exec = 0;
		}
	}
	return 0;
}

/* ---- the workload -------------------------------------------------------- */

/*
 * Fork the command; it waits on a pipe until the events are ready, then
 * execs. A second, close-on-exec pipe carries errno back if exec fails.
 */
static int workload__prepare(struct workload *wl, char **argv, const sigset_t *mask,
			     bool stdout_is_stream)
{
	int go[2], errp[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	wl->pid = fork();
	if (wl->pid < 0) {
		int err = -errno;

		close(go[0]); close(go[1]); close(errp[0]); close(errp[1]);
		return err;
	}
	if (wl->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		/* precord ignores SIGPIPE (a write error says it); the workload must not */
		signal(SIGPIPE, SIG_DFL);
		/* as perf: what the workload prints must not land in the stream */
		if (stdout_is_stream && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(EXIT_NOEXEC);
		if (read(go[0], &c, 1) != 1)
			_exit(EXIT_NOEXEC);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(EXIT_NOEXEC);
		_exit(EXIT_NOEXEC);
	}
	close(go[0]);
	close(errp[1]);
	wl->go_fd = go[1];
	wl->err_fd = errp[0];
	return 0;
}

/* Let the child exec; returns 0 or the exec's -errno. */
static int workload__start(struct workload *wl)
{
	char c = 'g';
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, &c, 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	do {
		n = read(wl->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e)) {
		wl->exec_errno = e;
		return -e;
	}
	return 0;
}

static void workload__reap(struct workload *wl, bool kill_it)
{
	int status;

	if (wl->pid <= 0 || wl->exited)
		return;
	if (kill_it)
		kill(wl->pid, SIGTERM);
	if (waitpid(wl->pid, &status, 0) == wl->pid) {
		wl->status = status;
		wl->exited = true;
	}
}

static bool workload__poll_exit(struct workload *wl)
{
	int status;

	if (wl->pid <= 0 || wl->exited)
		return wl->exited;
	if (waitpid(wl->pid, &status, WNOHANG) == wl->pid) {
		wl->status = status;
		wl->exited = true;
	}
	return wl->exited;
}

/* ---- opening ------------------------------------------------------------- */

/* The --filter strings into the kernel, once the events are open (perf's evlist__apply_filters()). */
static int record__apply_filters(struct record *rec)
{
	struct evsel *evsel;
	int i, err;

	evlist__for_each_evsel(rec->evlist, evsel, i) {
		err = evsel__apply_filter(evsel);
		if (err) {
			fprintf(stderr, "precord: failed to set filter \"%s\" on event %s: %s; check "
				"its syntax and the event's fields (tracefs events/SYSTEM/EVENT/format)\n",
				evsel->filter, evsel->name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int record__open(struct record *rec)
{
	struct evlist_open_error oerr;
	char msg[512];
	int err;

	/* Each CPU's descriptors open on the worker pinned to it; fallbacks here. */
	err = evlist__open_wq(rec->evlist, rec->wq, &oerr);
	if (oerr.fallbacks & EVLIST_FALLBACK_BUILD_ID) {
		rec->opts.buildid_mmap = false;
		if (rec->opts.verbose)
			fprintf(stderr, "precord: this kernel has no MMAP2 build ids\n");
	}
	if ((oerr.fallbacks & EVLIST_FALLBACK_CYCLES) && rec->opts.verbose)
		fprintf(stderr, "precord: The cycles event is not supported, trying to fall back "
			"to cpu-clock-ticks\n");
	if ((oerr.fallbacks & EVLIST_FALLBACK_WEAK_GROUP) && rec->opts.verbose)
		fprintf(stderr, "precord: a weak group (:W) could not be opened; its events are "
			"opened one by one\n");
	if (err) {
		evlist__open_strerror(&oerr, msg, sizeof(msg));
		fprintf(stderr, "precord: %s\n", msg);
		return err;
	}
	return record__apply_filters(rec);
}

static long default_mmap_pages(void)
{
	long page = sysconf(_SC_PAGESIZE), pages;
	int max_kb = 516;

	if (evlist__read_sysctl("perf_event_mlock_kb", &max_kb) == 0)
		max_kb -= (int)(page / 1024);
	else
		max_kb = 512;
	pages = (long)max_kb * 1024 / page;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages > 0 ? pages : 1;
}

static int record__mmap(struct record *rec)
{
	long pages = rec->opts.mmap_pages ? (long)rec->opts.mmap_pages : default_mmap_pages();
	int err = evlist__mmap(rec->evlist, (unsigned int)pages);
	int mlock_kb = 0;

	if (!err)
		return 0;
	evlist__read_sysctl("perf_event_mlock_kb", &mlock_kb);
	if (err == -EPERM || err == -ENOMEM)
		fprintf(stderr, "precord: cannot map %ld pages per CPU (%s): consider increasing "
			"/proc/sys/kernel/perf_event_mlock_kb (now %d) or a smaller -m\n",
			pages, strerror(-err), mlock_kb);
	else
		fprintf(stderr, "precord: cannot map the ring buffers: %s\n", strerror(-err));
	return err;
}

/* ---- pipe mode ----------------------------------------------------------- */

/*
 * Where perf's pipe format goes, or NULL for a file: perf's check_pipe().
 * "-" (stdout) for -o -, and with no -o for a stdout that is a pipe
 * (precord ... | perf report -i -); the path for a FIFO at -o.
 */
static const char *record__pipe_path(const struct record *rec)
{
	struct stat st;

	if (!strcmp(rec->path, "-"))
		return "-";
	if (!rec->opts.output_set && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))
		return "-";
	return output__kind(rec->path) == OUTPUT_FIFO ? rec->path : NULL;
}

/*
 * The stream is one time-ordered sequence of records that perf sorts as
 * they come, FINISHED_ROUND after each pass over the rings: one streaming
 * thread drains every ring into it, the serial layout (perf refuses
 * --threads with a pipe). Per-thread streams would need a bounded merge on
 * the way out, which precord does not have yet. What writes files beside
 * the output, or keeps a directory, cannot be done either.
 */
static int record__setup_pipe(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	const char *where = strcmp(rec->path, "-") ? "a FIFO at -o" : "to stdout";
	const char *why = o->no_merge ? "--no-merge keeps the streaming threads' directory" :
			  o->switch_output ? "--switch-output starts new output files" :
			  o->overwrite ? "--overwrite (or an overwrite event term) keeps its snapshots in the threads' files" : NULL;

	if (why) {
		fprintf(stderr, "precord: %s, which pipe mode (%s) cannot: record into a file "
			"with -o FILE\n", why, where);
		return -EINVAL;
	}
	if (rec->threaded && !o->quiet && o->threads_spec)
		fprintf(stderr, "precord: note: --threads=%s is not used: pipe mode writes one "
			"time-ordered stream, from one streaming thread\n", o->threads_spec);
	else if (rec->threaded && !o->quiet && o->verbose)
		fprintf(stderr, "precord: pipe mode (%s): one streaming thread writes one "
			"time-ordered stream\n", where);
	if (o->mmap_output && o->verbose)
		fprintf(stderr, "precord: pipe mode (%s): written with write(2), not mapped\n",
			where);
	rec->pipe = true;
	rec->threaded = false;
	o->mmap_output = false;
	return 0;
}

/*
 * A FIFO at -o, opened for writing only (a read end of our own would hide
 * that the reader went away). open(2) would block until a reader comes,
 * with every signal blocked: poll the signal fd meanwhile, so ^C still
 * ends it. Whatever is at the path must still be a FIFO once open.
 */
static int record__open_fifo(struct record *rec)
{
	struct pollfd pfd = { .fd = rec->sig_fd, .events = POLLIN };
	struct signalfd_siginfo si;
	bool said = false;
	struct stat st;
	int fd, err;

	while ((fd = open(rec->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 && errno == ENXIO) {
		if (!said && !rec->opts.quiet)
			fprintf(stderr, "precord: waiting for a reader of the FIFO '%s'\n", rec->path);
		said = true;
		if (poll(&pfd, 1, 100) > 0 && read(rec->sig_fd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo != SIGCHLD && si.ssi_signo != SIGUSR2) {
			rec->stop_signal = (int)si.ssi_signo;
			fprintf(stderr, "precord: no reader opened the FIFO '%s'\n", rec->path);
			return -EINTR;
		}
	}
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot open the FIFO '%s': %s\n", rec->path, strerror(errno));
		return err;
	}
	/* blocking from now on: the writer waits for the reader, as perf's does */
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		fprintf(stderr, "precord: '%s' is no longer a FIFO; choose the output again with -o\n",
			rec->path);
		return -EINVAL;
	}
	return fd;
}

static int record__open_pipe(struct record *rec)
{
	int fd;

	snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
	if (strcmp(rec->path, "-")) {
		fd = record__open_fifo(rec);
	} else {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			fd = -errno;
			fprintf(stderr, "precord: cannot write to stdout: %s\n", strerror(errno));
		}
	}
	if (fd < 0)
		return fd;
	rec->out_fd = fd;
	return 0;
}

/* Where the stream starts: 0 in a pipe; the current offset of a file at stdout (-o - > FILE). */
static u64 record__pipe_offset(const struct record *rec)
{
	off_t pos = lseek(rec->out_fd, 0, SEEK_CUR);

	return pos < 0 ? 0 : (u64)pos;
}

/* The reader went away (EPIPE): one line, once. Whether err was that. */
static bool record__pipe_gone(struct record *rec, int err)
{
	bool out = !strcmp(rec->path, "-");

	if (!rec->pipe || err != -EPIPE)
		return false;
	if (!rec->pipe_gone)
		fprintf(stderr, "precord: the reader of %s%s%s went away: recording stopped\n",
			out ? "" : "'", out ? "stdout" : rec->path, out ? "" : "'");
	rec->pipe_gone = true;
	return true;
}

/* Nothing to rewrite at the end: the last bytes out, and a file at stdout left at its end. */
static int record__finish_pipe(struct record *rec)
{
	int err;

	writer__close(&rec->writer);
	/* a reader seen gone while nothing was written is as a failed write */
	err = rec->writer.error ? rec->writer.error : rec->pipe_gone ? -EPIPE : 0;
	if (!rec->writer.pipe)
		lseek(rec->out_fd, (off_t)rec->writer.offset, SEEK_SET);
	record__pipe_gone(rec, err);
	return err;
}

/* ---- output -------------------------------------------------------------- */

/* Remove a staging directory of ours: its data and data.N files, then itself. */
static void remove_staging(const char *dir)
{
	output__remove_dir(dir, NULL);
}

/* What was at the output path goes aside as FILE.old where perf would move it. */
static int record__keep_old(struct record *rec)
{
	char msg[2 * PATH_MAX + 128];
	int err = output__keep_old(rec->path, msg, sizeof(msg));

	if (err)
		fprintf(stderr, "precord: %s\n", msg);
	return err;
}

/*
 * --threads: the streaming threads write perf's directory layout into
 * "<output>.staging" (data, data.N), merged into the output at the end. A
 * staging directory left by a killed recording is never overwritten.
 */
static int record__make_staging(struct record *rec)
{
	const char *base = strrchr(rec->path, '/');
	size_t dirlen;
	int err;

	base = base ? base + 1 : rec->path;
	dirlen = (size_t)(base - rec->path);
	if (strlen(rec->path) + sizeof(".staging/data.") + 12 > sizeof(rec->staging)) {
		fprintf(stderr, "precord: the output name '%s' is too long\n", rec->path);
		return -ENAMETOOLONG;
	}
	if (strlen(base) + sizeof(".staging.next") - 1 <= NAME_MAX) {
		snprintf(rec->staging, sizeof(rec->staging) - 16, "%s.staging", rec->path);
		err = mkdir(rec->staging, 0700) < 0 ? -errno : 0;
	} else {
		/* NAME.staging would pass NAME_MAX: a shortened, unique name beside it */
		snprintf(rec->staging, sizeof(rec->staging) - 16, "%.*s%.*s.XXXXXX", (int)dirlen,
			 rec->path, NAME_MAX - (int)sizeof(".XXXXXX.next") + 1, base);
		err = mkdtemp(rec->staging) ? 0 : -errno;
	}
	if (err) {
		struct stat st;

		if (err == -EEXIST && (lstat(rec->staging, &st) || !S_ISDIR(st.st_mode)))
			fprintf(stderr, "precord: '%s' is in the way of the staging directory: "
				"remove it, or choose another output with -o\n", rec->staging);
		else if (err == -EEXIST)
			fprintf(stderr, "precord: '%s' is left from an earlier recording: turn it into "
				"a perf.data with 'precord merge %s', or remove it\n",
				rec->staging, rec->staging);
		else
			fprintf(stderr, "precord: cannot create '%s': %s; choose another place with -o\n",
				rec->staging, strerror(-err));
		return err;
	}
	if (snprintf(rec->data_path, sizeof(rec->data_path), "%s/data", rec->staging) >=
	    (int)sizeof(rec->data_path))
		return -ENAMETOOLONG;
	return 0;
}

static int record__open_output(struct record *rec)
{
	char msg[PATH_MAX + 128];
	int err;

	if (rec->pipe)
		return record__open_pipe(rec);
	if (rec->device) {
		/* written into, as perf does: never moved, cut or removed */
		snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
		rec->out_fd = open(rec->data_path, O_RDWR | O_CLOEXEC);
		if (rec->out_fd < 0) {
			err = -errno;
			fprintf(stderr, "precord: cannot open '%s': %s\n", rec->path, strerror(errno));
			return err;
		}
		return 0;
	}
	if (rec->threaded) {
		err = record__make_staging(rec);
		if (err)
			return err;
	} else {
		err = record__keep_old(rec);
		if (err)
			return err;
		snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
	}
	rec->out_fd = output__create(rec->data_path, msg, sizeof(msg));
	if (rec->out_fd < 0) {
		err = rec->out_fd;
		fprintf(stderr, "precord: %s\n", msg);
		if (rec->threaded)
			rmdir(rec->staging);
		return err;
	}
	return 0;
}

static int record__emit(void *ctx, const void *data, size_t size)
{
	struct record *rec = ctx;
	int err = writer__write(&rec->writer, data, size);

	if (!err)
		rec->synth_bytes += size;
	return err;
}

static bool record__samples_kernel(const struct record *rec)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(rec->evlist, evsel, i)
		if (!evsel->attr.exclude_kernel &&
		    !(evsel->attr.type == PERF_TYPE_SOFTWARE &&
		      evsel->attr.config == PERF_COUNT_SW_DUMMY))
			return true;
	return false;
}

static int record__synth_kernel(struct record *rec, const struct synth_opts *so)
{
	/* As perf: a kernel or module map that cannot be read is a warning, not the end. */
	if (synthesize__kernel_mmap(so, record__emit, rec) && !rec->opts.quiet &&
	    record__samples_kernel(rec))
		fprintf(stderr, "precord: warning: cannot record the kernel map (is "
			"/proc/kallsyms readable? check kernel.kptr_restrict); kernel samples "
			"will not resolve\n");
	if (synthesize__modules(so, record__emit, rec) && !rec->opts.quiet && rec->opts.verbose)
		fprintf(stderr, "precord: warning: cannot record the kernel modules\n");
	return rec->writer.error;
}

/* --all-cgroups: every cgroup, so that the samples' cgroup ids have names (a warning, as perf's). */
static int record__synth_cgroups(struct record *rec, const struct synth_opts *so)
{
	int err = synthesize__cgroups(so, record__emit, rec);

	if (err && !rec->writer.error && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: cannot record the cgroups (%s): the samples' "
			"cgroups will show as unknown\n", strerror(-err));
	return rec->writer.error;
}

static int record__synth_tasks(struct record *rec, const struct synth_opts *so)
{
	/*
	 * Every later --switch-output file: all of /proc, since the tasks
	 * recorded may now include children of the ones named at the start.
	 */
	if (rec->system_wide || rec->gen > 0)
		return synthesize__all_parallel(so, rec->wq, rec->opts.nr_threads_synthesize,
						record__emit, rec);
	/* A forked workload has not exec'd yet: its COMM is all there is to say. */
	if (rec->wl.pid > 0 && !rec->opts.pid_list && !rec->opts.tid_list)
		return synthesize__comm(so, rec->wl.pid, record__emit, rec);
	return synthesize__thread_map(so, rec->evlist->threads, record__emit, rec);
}

static int record__synthesize(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct synth_stats stats = { 0 };
	struct synth_opts so;
	char msg[256];
	int err = 0;

	synth_opts__init(&so);
	so.id_hdr_size = evlist__id_hdr_size(rec->evlist);
	so.proc_map_timeout_ms = o->proc_map_timeout;
	so.build_id = o->buildid_mmap;
	so.mmap_data = record__sample_address(o);
	so.no_mmap = !(o->synth & SYNTH_MMAP);
	so.namespaces = o->record_namespaces;
	so.stats = &stats;
	so.bid_cache = buildid_cache__new();

	if (o->synth != SYNTH_NO)
		err = record__synth_kernel(rec, &so);
	if (!err && (o->synth & SYNTH_CGROUP) && o->record_cgroup)
		err = record__synth_cgroups(rec, &so);
	if (!err && (o->synth & SYNTH_TASK))
		err = record__synth_tasks(rec, &so);
	buildid_cache__delete(so.bid_cache);
	if (stats.nr_map_timeouts && !o->quiet &&
	    synthesize__timeout_msg(msg, sizeof(msg), stats.first_timeout_pid) > 0)
		fprintf(stderr, "precord: %s\n", msg);
	if (!err)
		err = synthesize__id_index(rec->evlist, record__emit, rec);
	if (!err)
		err = synthesize__finished_init(record__emit, rec);
	if (!err)
		err = writer__flush(&rec->writer);
	return err;
}

/*
 * PERF_FORMAT_LOST at exit → one LOST_SAMPLES per descriptor that lost any,
 * with that descriptor's id, cpu and tid in the sample_id trailer.
 */
static int record__write_lost_samples(struct record *rec)
{
	struct evlist *evlist = rec->evlist;
	struct evsel *evsel;
	unsigned char buf[128];
	int i, c, t, err;

	evlist__for_each_evsel(evlist, evsel, i) {
		u64 st = evsel->attr.sample_type;

		for (c = 0; c < evsel->nr_cpus; c++) {
			for (t = 0; t < evsel->nr_threads; t++) {
				struct perf_event_header *h = (void *)buf;
				u64 lost = 0, *p = (u64 *)(buf + sizeof(*h));
				u32 *pair;

				if (evsel__read_lost(evsel, c, t, &lost) || !lost)
					continue;
				rec->lost_samples += lost;
				*p++ = lost;
				if (st & PERF_SAMPLE_TID) {
					pair = (u32 *)p++;
					pair[0] = pair[1] = (u32)evlist->threads->map[t];
				}
				if (st & PERF_SAMPLE_TIME)
					*p++ = 0;
				if (st & PERF_SAMPLE_ID)
					*p++ = evsel->ids[c * evsel->nr_threads + t];
				if (st & PERF_SAMPLE_STREAM_ID)
					*p++ = evsel->ids[c * evsel->nr_threads + t];
				if (st & PERF_SAMPLE_CPU) {
					pair = (u32 *)p++;
					pair[0] = (u32)evlist->cpus->map[c].cpu;
					pair[1] = 0;
				}
				if (st & PERF_SAMPLE_IDENTIFIER)
					*p++ = evsel->ids[c * evsel->nr_threads + t];
				h->type = PERF_RECORD_LOST_SAMPLES;
				h->misc = 0;
				h->size = (u16)((unsigned char *)p - buf);
				err = writer__write(&rec->writer, buf, h->size);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

/*
 * After a write error, a data section ends at the last whole record that
 * reached the file: walk the record headers from its start. *samples (when
 * not NULL) gets the samples among them.
 */
static u64 valid_records_size(int fd, u64 start, u64 written, u64 *samples)
{
	struct perf_event_header h;
	u64 pos = 0;

	while (pos + sizeof(h) <= written) {
		if (pread(fd, &h, sizeof(h), (off_t)(start + pos)) != sizeof(h))
			break;
		if (h.size < sizeof(h) || pos + h.size > written)
			break;
		if (samples && h.type == PERF_RECORD_SAMPLE)
			(*samples)++;
		pos += h.size;
	}
	return pos;
}

/*
 * A data.N (or a directory's) cut back to its last whole record; the
 * samples it keeps are added to *samples.
 */
static int cut_ring_file(int fd, u64 *samples)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return ftruncate(fd, (off_t)valid_records_size(fd, 0, (u64)st.st_size, samples)) < 0 ?
	       -errno : 0;
}

/*
 * After a write error, cut every data.N back to its last whole record too,
 * and count the samples that are there: what the closing line announces.
 */
static void record__cut_ring_files(struct record *rec)
{
	struct streams *ss = &rec->streams;
	int i;

	rec->kept_samples = 0;
	rec->samples_counted = !rec->opts.comp_level;	/* -z: inside COMPRESSED records */
	for (i = 0; ss->ring_fds && i < ss->nr_files; i++) {
		int fd = ss->ring_fds[i];

		if (fd >= 0 && cut_ring_file(fd, &rec->kept_samples) < 0 && rec->opts.verbose)
			fprintf(stderr, "precord: cannot cut data.%d: %s\n", i, strerror(errno));
	}
}

/*
 * The features as they stand when a file starts: written ahead of a single
 * file's data, and into a staging directory's first complete header.
 */
static void record__start_env(const struct record *rec, struct header_env *env,
			      bool dir_format)
{
	*env = (struct header_env){
		.argc = rec->full_argc,
		.argv = rec->full_argv,
		.clockid_set = rec->opts.clockid_set,
		.clockid = rec->opts.clockid,
		.no_buildid = true,
		.dir_format = dir_format,
		.compressed = rec->opts.comp_level > 0,
		.comp_level = (u32)rec->opts.comp_level,
		.comp_mmap_len = ZCOMP_MMAP_LEN,
	};
}

/*
 * --threads: finish the `data` file once right after synthesis, so a
 * recording killed with SIGKILL leaves a staging directory whose `data` is a
 * complete perf.data (header, attrs, features) and `precord merge` can use it.
 * The end of the recording writes past it and finishes it again.
 */
static int record__write_interim_header(struct record *rec)
{
	struct header_env env;
	int err = writer__flush(&rec->writer);

	if (err)
		return err;
	record__start_env(rec, &env, true);
	return header__write_end(rec->out_fd, rec->evlist, rec->data_offset,
				 rec->writer.offset - rec->data_offset, &env);
}

static int record__finish_output(struct record *rec)
{
	struct header_env env = {
		.argc = rec->full_argc,
		.argv = rec->full_argv,
		.first_sample_time = rec->total.first_time,
		.last_sample_time = rec->total.last_time,
		.clockid_set = rec->opts.clockid_set,
		.clockid = rec->opts.clockid,
		.no_buildid = true,
		.dir_format = rec->threaded,
	};
	u64 end, size, in, out;
	int err;

	if (rec->pipe)
		return record__finish_pipe(rec);
	if (rec->opts.comp_level) {
		streams__comp_bytes(&rec->streams, &in, &out);
		env.compressed = true;
		env.comp_level = (u32)rec->opts.comp_level;
		env.comp_ratio = zcomp__ratio(in, out);
		env.comp_mmap_len = ZCOMP_MMAP_LEN;
	}

	writer__close(&rec->writer);
	end = rec->writer.offset;
	size = end - rec->data_offset;
	if (rec->write_error || rec->writer.error) {
		struct stat st;

		/*
		 * What the writer took and what reached the file differ after
		 * an error (an --aio write that failed after the ones before it
		 * succeeded): a record whose start is there and whose end is
		 * not must not count, so the walk ends at the file's end.
		 */
		if (!rec->device && fstat(rec->out_fd, &st) == 0 &&
		    (u64)st.st_size < rec->data_offset + size)
			size = (u64)st.st_size > rec->data_offset ?
			       (u64)st.st_size - rec->data_offset : 0;
		if (!rec->threaded) {
			/* the samples the file keeps: what the closing line announces */
			rec->kept_samples = 0;
			rec->samples_counted = !rec->opts.comp_level;
		}
		size = valid_records_size(rec->out_fd, rec->data_offset, size,
					  rec->threaded ? NULL : &rec->kept_samples);
		if (ftruncate(rec->out_fd, (off_t)(rec->data_offset + size)) < 0)
			return -errno;
	}
	err = header__write_end(rec->out_fd, rec->evlist, rec->data_offset, size, &env);
	if (err == -ENOSPC || err == -EDQUOT) {
		/* No room for the features: keep the data, drop them. */
		if (ftruncate(rec->out_fd, (off_t)(rec->data_offset + size)) == 0)
			err = header__write_end(rec->out_fd, rec->evlist, rec->data_offset,
						size, NULL);
	}
	return err;
}

/* ---- the run ------------------------------------------------------------- */

/*
 * The global workqueue: one worker pinned to each recorded CPU, created once
 * (after the signals are blocked, so the workers inherit the mask). The
 * evlist opens, enables and disables each CPU's descriptors on its worker
 * (small evlists inline), and the /proc walk runs on it. Without it
 * everything runs on this thread.
 */
static void record__start_workers(struct record *rec)
{
	struct cpu_map *cpus = rec->evlist->cpus;
	struct wq_pool_attr attr = { .scope = WQ_SCOPE_CPU, .name = "prec-wq" };
	char msg[256] = "";
	int *list, i;

	if (!cpus || cpu_map__is_any(cpus))
		return;
	list = calloc((size_t)cpus->nr, sizeof(*list));
	if (!list)
		return;
	for (i = 0; i < cpus->nr; i++)
		list[i] = cpus->map[i].cpu;
	attr.cpus = list;
	attr.nr_cpus = cpus->nr;
	rec->pool = wq_pool__new(&attr, msg, sizeof(msg));
	free(list);
	if (rec->pool)
		rec->wq = wq__new(rec->pool, "precord", 0);
	evlist__set_wq(rec->evlist, rec->wq);
	if (!rec->wq && rec->opts.verbose)
		fprintf(stderr, "precord: no worker threads (%s); synthesizing on one thread\n",
			msg[0] ? msg : strerror(errno));
}

static void record__stop_workers(struct record *rec)
{
	evlist__set_wq(rec->evlist, NULL);	/* from now on, serial on this thread */
	wq__delete(rec->wq);
	wq_pool__delete(rec->pool);
	rec->wq = NULL;
	rec->pool = NULL;
}

static int record__setup_signals(struct record *rec)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &mask, &rec->old_mask) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	rec->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return rec->sig_fd < 0 ? -errno : 0;
}

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

/*
 * Where a sample's time is, for the first and last sample times of the
 * header: 0 (none) unless every event samples it, as a time read from an
 * event without one would be another field (--no-timestamp keeps the
 * tracepoints' times).
 */
static size_t sample_time_offset(const struct evlist *evlist)
{
	struct evsel *evsel = evlist__first(evlist);
	u64 st = evsel->attr.sample_type;
	size_t off = sizeof(struct perf_event_header);
	int i;

	evlist__for_each_evsel(evlist, evsel, i)
		if (!(evsel->attr.sample_type & PERF_SAMPLE_TIME))
			return 0;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERF_SAMPLE_IP)
		off += 8;
	if (st & PERF_SAMPLE_TID)
		off += 8;
	return off;
}

static double file_mb(const char *path)
{
	char sub[PATH_MAX];
	struct stat st;
	double mb = 0;
	int i;

	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (double)st.st_size / 1048576.0;
	snprintf(sub, sizeof(sub), "%s/data", path);
	if (!stat(sub, &st))
		mb += (double)st.st_size / 1048576.0;
	for (i = 0;; i++) {
		snprintf(sub, sizeof(sub), "%s/data.%d", path, i);
		if (stat(sub, &st))
			break;
		mb += (double)st.st_size / 1048576.0;
	}
	return mb;
}

static void record__print_threads(struct record *rec)
{
	struct streams *ss = &rec->streams;
	char cpus[128];
	int i;

	for (i = 0; i < ss->nr; i++) {
		struct stream *st = &ss->s[i];

		if (!st->nr_rings)
			continue;
		cpu_map__snprintf(ss->layout->maps[i], cpus, sizeof(cpus));
		fprintf(stderr, "[ precord: %s: CPUs %s, %.3f MB, %llu wakeups, %llu samples, "
			"%llu lost ]\n", st->name, cpus, (double)st->stats.bytes / 1048576.0,
			(unsigned long long)st->stats.wakeups,
			(unsigned long long)st->stats.samples, (unsigned long long)st->stats.lost);
	}
}

/*
 * When anything was lost: the account per CPU and the data loss metric, read
 * back from the finished file with the same code as `precord report --loss`,
 * so a recording and a later report never disagree.
 */
static void record__print_loss(struct record *rec)
{
	struct loss_report r = { 0 };
	char msg[256];

	if (loss_report__read(rec->path, &r, msg, sizeof(msg)) == 0)
		loss_report__print(&r, stderr);
	else if (rec->opts.verbose)
		fprintf(stderr, "precord: cannot account for the loss: %s\n", msg);
	loss_report__exit(&r);
}

/*
 * "Captured and wrote": as perf record words it under perf's label (no
 * sample count when there were none; -z adds the original size and the
 * ratio), precord's own line otherwise.
 */
static void record__print_captured(struct record *rec, u64 samples)
{
	double mb = rec->device || rec->pipe ? (double)rec->writer.offset / 1048576.0 :
		    file_mb(rec->path);
	u64 in, out;

	if (strcmp(rec->tag, "perf record")) {
		fprintf(stderr, "[ precord: Captured and wrote %.3f MB %s (%llu samples) ]\n",
			mb, rec->path, (unsigned long long)samples);
		return;
	}
	fprintf(stderr, "[ perf record: Captured and wrote %.3f MB %s", mb, rec->path);
	if (samples)
		fprintf(stderr, " (%llu samples)", (unsigned long long)samples);
	if (rec->opts.comp_level) {
		streams__comp_bytes(&rec->streams, &in, &out);
		if (in && out)
			fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
				(double)in / 1048576.0, (double)in / (double)out);
	}
	fprintf(stderr, " ]\n");
}

static void record__print_summary(struct record *rec)
{
	struct stream_stats *s = &rec->total;

	if (rec->opts.quiet)
		return;
	if (rec->threaded || rec->one_thread)
		record__print_threads(rec);
	fprintf(stderr, "[ %s: Woken up %llu times to write data ]\n", rec->tag,
		(unsigned long long)s->wakeups);
	/*
	 * An overwrite ring drops records only while it is paused for a
	 * snapshot; the kernel's count is PERF_FORMAT_LOST (LOST_SAMPLES in the
	 * last file) and the LOST records left out of the snapshots.
	 */
	if (rec->opts.overwrite && (s->paused_lost || rec->lost_samples))
		fprintf(stderr, "[ precord: %llu samples were dropped while the rings were paused "
			"for snapshots (the kernel writes nothing into a paused ring) ]\n",
			(unsigned long long)(rec->lost_samples > s->paused_lost ?
					     rec->lost_samples : s->paused_lost));
	else if (s->lost_records || rec->lost_samples) {
		u64 lost = rec->lost_samples > s->lost ? rec->lost_samples : s->lost;
		double pct = 100.0 * (double)lost / (double)(lost + s->samples ? lost + s->samples : 1);

		fprintf(stderr, "[ precord: Lost %llu samples (%.2f%%) in %llu LOST records; "
			"%llu dropped by the kernel in all ]\n",
			(unsigned long long)rec->lost_samples, pct,
			(unsigned long long)s->lost_records, (unsigned long long)s->lost);
	}
	if (rec->threaded && !rec->opts.no_merge && !rec->merge_error && rec->merged.nr_files >= 0 &&
	    rec->merged.seconds > 0)
		fprintf(stderr, "[ precord: Merged %d ring files in %.3f s (%.1f MB/s%s%s%s) ]\n",
			rec->merged.nr_files, rec->merged.seconds,
			(double)rec->merged.bytes_out / 1048576.0 / rec->merged.seconds,
			rec->merged.parts > 1 ? ", a thread per CPU" : "",
			rec->merged.parts > 1 && rec->merged.indexed == rec->merged.nr_files ?
			", no walk: the threads' record index" : "",
			rec->merged.given_back ? ", their pages reused as merged" : "");
	record__print_captured(rec, rec->samples_counted ? rec->kept_samples : s->samples);
	/* read back from the file: a stream cannot be */
	if ((s->lost_records || rec->lost_samples) && !rec->opts.overwrite && !rec->pipe)
		record__print_loss(rec);
}

/* --mmap-flush, capped at a quarter of a ring as perf does. */
static unsigned int record__mmap_flush(const struct record *rec)
{
	size_t quarter;

	if (!rec->opts.mmap_flush || !rec->evlist->nr_rings)
		return 0;
	quarter = (rec->evlist->rings[0].mask + 1) / 4;
	return rec->opts.mmap_flush > quarter ? (unsigned int)quarter : rec->opts.mmap_flush;
}

/*
 * --switch-output=SIZE: the byte count at which the current file is full.
 * The threads write to a new file from the switch on, while this thread
 * synthesizes into it with no limit armed, so they may be past the limit
 * when it is armed: then no read of theirs crosses it, none signals, and
 * each holds its rings for a switch that nobody asked for. So this thread
 * looks once after arming and asks for the switch itself (switch_due).
 * The store of switch_at and the load of bytes are SEQ_CST, pairing with
 * the threads' SEQ_CST add to bytes and load of switch_at in
 * stream__count_shared(): in this store-then-load pattern on two
 * variables, at least one side sees the other's write, so a crossing is
 * seen by the thread or by this check (or both: record__switch() drops a
 * signal for files already switched).
 */
static void record__arm_size(struct record *rec)
{
	u64 size = rec->opts.switch_size, at;

	if (!size || rec->opts.overwrite)
		return;
	at = rec->gen_start_bytes + (size > rec->synth_bytes ? size - rec->synth_bytes : 1);
	__atomic_store_n(&rec->shared.switch_at, stream_switch_at((unsigned int)rec->gen, at),
			 __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rec->shared.bytes, __ATOMIC_SEQ_CST) >= at)
		rec->switch_due = true;
}

/* -v: the threads a cpuset or taskset keeps off their rings' CPUs, and where they run. */
static void record__print_moved(const struct record *rec)
{
	const struct stream_layout *layout = rec->streams.layout;
	char maps[128], aff[128];
	int t;

	for (t = 0; layout && t < layout->nr; t++) {
		if (!layout->moved[t])
			continue;
		cpu_map__snprintf(layout->maps[t], maps, sizeof(maps));
		cpu_map__snprintf(layout->affinity[t], aff, sizeof(aff));
		fprintf(stderr, "precord: %s drains CPUs %s, where this process may not run: it "
			"runs on CPUs %s, the nearest it may\n", rec->streams.s[t].name, maps, aff);
	}
}

static int record__start_streams(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct streams_config cfg = {
		.spec = rec->threaded || rec->one_thread ?
			(o->threads_spec ? o->threads_spec : "numa") : NULL,
		.one_file = rec->one_thread,
		/* one file: a SIGKILL leaves a header that says how far the data goes */
		.note_size = !rec->threaded && !rec->pipe && !rec->writer.pipe &&
			     !o->switch_output && !o->overwrite,
		.size_fd = rec->out_fd,
		.size_off = offsetof(struct perf_file_header, data.size),
		.dir = rec->staging,
		.writer = &rec->writer,
		.writer_kind = o->mmap_output ? WRITER_MMAP : WRITER_WRITE,
		.time_off = sample_time_offset(rec->evlist),
		.rt_prio = o->realtime_prio,
		.notify_fd = rec->notify_fd,
		.aio = o->aio,
		.comp_level = o->comp_level,
		.topo = rec->topo,
		.mmap_flush = record__mmap_flush(rec),
		/* Only --switch-output=SIZE needs the shared count (an atomic per ring read). */
		.shared = o->switch_size ? &rec->shared : NULL,
	};
	char msg[256] = "";
	int err, nfail, rt_err;

	/* Streaming threads get the CPU when their rings fill: real-time by default. */
	if ((rec->threaded || rec->one_thread) && !cfg.rt_prio && !o->no_realtime)
		cfg.rt_prio = DEFAULT_RT_PRIO;
	/*
	 * One set of plain data.N files, merged at the end: the threads note
	 * where their records lie, so the merge need not walk them. Without
	 * one (no memory, an unreadable header) the merge walks.
	 */
	if (rec->threaded && !o->no_merge && !o->comp_level && !o->switch_output && !o->overwrite)
		rec->index = cfg.index = merge_index__new(rec->staging, rec->evlist->nr_rings, 0);
	err = streams__init(&rec->streams, rec->evlist, &cfg, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return err;
	}
	if (o->verbose)
		record__print_moved(rec);
	err = streams__start(&rec->streams);
	if (err) {
		fprintf(stderr, "precord: cannot start the streaming threads: %s\n", strerror(-err));
		return err;
	}
	rec->streams_started = true;
	record__arm_size(rec);
	if (o->switch_secs)
		rec->next_switch_ms = now_ms() + 1000ULL * o->switch_secs;
	nfail = streams__rt_failures(&rec->streams, &rt_err);
	if (nfail && !o->quiet)
		fprintf(stderr, "precord: note: streaming threads run at normal priority "
			"(SCHED_FIFO %d: %s); --no-realtime silences this\n", cfg.rt_prio,
			strerror(-rt_err));
	return 0;
}


/* Keep a staging directory as the output: perf's directory layout, which perf reads. */
/*
 * A staging directory kept as perf's layout after a write error: a data.N
 * that a full disk cut inside a record (the writer keeps every byte that
 * reached the file) would end perf's reading of it with a crash, so each is
 * cut back to its last whole record, as the data file is.
 */
static void cut_staging_ring_files(struct record *rec, const char *dir)
{
	char path[PATH_MAX];
	u64 samples = 0;
	int i, fd;

	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "%s/data.%d", dir, i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		if (cut_ring_file(fd, &samples) < 0)
			fprintf(stderr, "precord: cannot cut '%s' back to its last whole record: %s\n",
				path, strerror(errno));
		close(fd);
	}
	rec->kept_samples = samples;
	rec->samples_counted = !rec->opts.comp_level;
}

static int record__keep_dir(const char *staging, const char *path)
{
	if (rename(staging, path) == 0)
		return 0;
	fprintf(stderr, "precord: cannot rename '%s' to '%s': %s; the recording is in '%s'\n",
		staging, path, strerror(errno), staging);
	return -errno;
}

/*
 * Whether the merge drops its inputs as it goes (merge_opts.consume):
 * where the host takes freed memory back (the output then gets the pages
 * just freed: 44% of the wall at -F max -m 32 down to 21% on this VM),
 * not elsewhere (it cost there: 7.8% up to 12.9%, punching holes and
 * waiting for ext4's discards). PRECORD_MERGE_CONSUME=1 or 0
 * decides instead.
 */
static bool record__merge_consumes(void)
{
	const char *env = getenv("PRECORD_MERGE_CONSUME");

	if (env && !strcmp(env, "1"))
		return true;
	if (env && !strcmp(env, "0"))
		return false;
	return memory_host_reclaims();
}

/*
 * A staging directory becomes the output path: merged (default), or as it
 * is (--no-merge). When the disk is full, or the merge fails, the directory
 * is kept as the output instead: perf report reads it, and nothing recorded
 * is lost to a merge that cannot be written.
 */
static int record__finish_dir(struct record *rec, const char *staging, const char *path)
{
	struct merge_opts mo = {
		.quiet = rec->opts.quiet, .comp_level = rec->opts.comp_level, .index = rec->index,
		.consume = record__merge_consumes(),
	};
	bool full = rec->write_error == -ENOSPC || rec->write_error == -EDQUOT;
	char msg[2 * PATH_MAX] = "";
	int err;

	if (rec->opts.no_merge)
		return record__keep_dir(staging, path);
	if (full) {
		fprintf(stderr, "precord: no room to merge: '%s' keeps perf's directory layout "
			"(data + data.N), which perf report reads\n", path);
		cut_staging_ring_files(rec, staging);
		return record__keep_dir(staging, path);
	}
	err = merge__dir(staging, path, &mo, &rec->merged, msg, sizeof(msg));
	if (err && rec->merged.given_back) {
		/* the data.N files are part merged away: the staging directory is no perf directory now */
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return err;
	}
	if (err) {
		/* Nothing lost, but not the file asked for: the exit status says so. */
		rec->merge_error = err;
		fprintf(stderr, "precord: %s; '%s' keeps perf's directory layout instead "
			"('precord merge %s -o FILE' merges it)\n", msg[0] ? msg : strerror(-err),
			path, path);
		cut_staging_ring_files(rec, staging);
		return record__keep_dir(staging, path);
	}
	if (msg[0] && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: %s\n", msg);
	remove_staging(staging);
	return 0;
}

/*
 * Pipe mode: what a file's header holds goes first, as records (pipe.c),
 * with the features a file's start gets.
 */
static int record__begin_pipe(struct record *rec)
{
	struct header_env env;
	u64 dropped = 0;
	int err, feat;

	record__start_env(rec, &env, false);
	err = pipe__write_header(writer__sink, &rec->writer);
	if (!err)
		err = pipe__synthesize(rec->evlist, &env, writer__sink, &rec->writer, &dropped);
	if (err == -E2BIG)
		fprintf(stderr, "precord: an event has more ids than perf's pipe format can carry "
			"(fewer CPUs or threads, or record into a file with -o FILE)\n");
	for (feat = 0; rec->opts.verbose && feat < 64; feat++)
		if (dropped & (1ULL << feat))
			fprintf(stderr, "precord: feature %d is too big for a pipe-mode record: "
				"left out, as perf leaves it\n", feat);
	return err;
}

/*
 * The start of a data file (the recording's, or with --switch-output each
 * new one's `data`): header, synthesized records, FINISHED_INIT and, in a
 * staging directory, a first complete header. A write error is the end.
 */
static int record__begin_data(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	rec->synth_bytes = 0;
	if (rec->pipe) {
		rec->data_offset = record__pipe_offset(rec);
		err = 0;
	} else if (rec->threaded || rec->device) {
		/* a device reads nothing back: no features ahead of its data */
		err = header__write_start(rec->out_fd, rec->evlist, &rec->data_offset);
	} else {
		struct header_env env;

		/* one file: a SIGKILL leaves it no end, so its features go ahead of the data */
		record__start_env(rec, &env, false);
		err = header__write_start_ahead(rec->out_fd, rec->evlist, &env, &rec->data_offset);
	}
	if (!err && o->aio && !rec->threaded)
		err = writer__open_aio(&rec->writer, rec->out_fd, rec->data_offset, 0, o->aio);
	else if (!err)
		/* one streaming thread: its writes as short as a data.N writer's, for the same latency */
		err = writer__open_size(&rec->writer, o->mmap_output && !rec->threaded ?
					WRITER_MMAP : WRITER_WRITE, rec->out_fd, rec->data_offset,
					rec->one_thread ? STREAM_RING_BUF_SIZE : 0);
	if (err) {
		fprintf(stderr, "precord: cannot write '%s': %s\n", rec->data_path, strerror(-err));
		return err;
	}
	rec->header_written = true;
	/* the streaming thread's file: its space reserved ahead, as a data.N's is */
	if (rec->one_thread)
		writer__prealloc(&rec->writer, streams__prealloc_step(rec->data_path, 1));

	err = rec->pipe ? record__begin_pipe(rec) : 0;
	if (!err)
		err = record__synthesize(rec);
	/* Later files: a task gone while /proc was read is not an error, a full disk is. */
	if (err && rec->gen > 0 && !rec->writer.error)
		err = 0;
	if (!err && rec->threaded)
		err = record__write_interim_header(rec);
	if (err) {
		rec->write_error = err;
		/* a reader gone, or an attr too big for the pipe format, is said */
		if (!record__pipe_gone(rec, err) && !(rec->pipe && err == -E2BIG))
			fprintf(stderr, "precord: writing '%s' failed: %s\n", rec->data_path,
				strerror(-err));
	}
	return err;
}

/* ---- --switch-output and snapshots ---------------------------------------- */

/*
 * The name of the file being finished: FILE.<timestamp>, perf's
 * %Y%m%d%H%M%S plus two digits of centiseconds, local time. Two files in
 * the same hundredth of a second wait for the next one.
 */
static int record__output_name(struct record *rec, char *buf, size_t size)
{
	char staging[PATH_MAX + 16];
	struct timeval tv;
	struct stat st;
	struct tm tm;
	char ts[32];
	int tries;

	for (tries = 0; tries < 100; tries++) {
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y%m%d%H%M%S", &tm);
		if (snprintf(buf, size, "%s.%s%02u", rec->path, ts,
			     (unsigned int)(tv.tv_usec / 10000)) >= (int)size)
			return -ENAMETOOLONG;
		snprintf(staging, sizeof(staging), "%s.staging", buf);
		if (stat(buf, &st) && stat(staging, &st))
			return 0;
		usleep(10000);
	}
	return -EEXIST;
}

/* A file or --no-merge directory that --switch-max-files lets go. */
static void remove_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		remove_staging(path);
	else
		unlink(path);
}

/* A finished output file: say so, and keep only the newest --switch-max-files. */
static void record__keep_output(struct record *rec, const char *path)
{
	int max = rec->opts.switch_max_files;
	char **list;

	if (!rec->opts.quiet)
		fprintf(stderr, "[ %s: Dump %s ]\n", rec->tag, path);
	if (max <= 0)
		return;
	list = realloc(rec->outputs, sizeof(*list) * (size_t)(rec->nr_outputs + 1));
	if (!list)
		return;
	rec->outputs = list;
	list[rec->nr_outputs] = strdup(path);
	if (list[rec->nr_outputs])
		rec->nr_outputs++;
	while (rec->nr_outputs > max) {
		remove_output(list[0]);
		free(list[0]);
		memmove(list, list + 1, sizeof(*list) * (size_t)--rec->nr_outputs);
	}
}

/*
 * End the current output file and start the next, while recording goes
 * on: the streaming threads move to a new staging directory (reading and
 * resuming the overwrite rings on the way, with --overwrite), the old
 * directory's `data` gets its final header, and the old directory becomes
 * FILE.<timestamp> — merged, or kept as it is with --no-merge. The new
 * `data` gets the header and the state of the system synthesized anew, so
 * every file reads on its own.
 */
static int record__switch(struct record *rec)
{
	char next[PATH_MAX + 8], done[PATH_MAX + 16], target[PATH_MAX], msg[512] = "";
	u64 v;
	int err;

	rec->switch_due = false;
	status__clear(&rec->status);	/* the switch's messages start on a clean line */
	snprintf(next, sizeof(next), "%s.next", rec->staging);
	if (mkdir(next, 0700) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot create '%s': %s; remove it, or free space\n",
			next, strerror(errno));
		return err;
	}
	/* The threads on the next files see no limit until record__arm_size(). */
	err = streams__switch(&rec->streams, next, rec->opts.overwrite, msg, sizeof(msg));
	rec->gen_start_bytes = __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED);
	/* a thread's signal that the files just left were full is answered */
	if (rec->shared.switch_fd >= 0 && read(rec->shared.switch_fd, &v, sizeof(v)) < 0)
		v = 0;	/* none was pending */
	if (err) {
		fprintf(stderr, "precord: %s; what was written since is in '%s'\n", msg, next);
		rec->write_error = err;
		return err;
	}
	err = record__finish_output(rec);
	close(rec->out_fd);
	rec->out_fd = -1;
	if (!err)
		err = record__output_name(rec, target, sizeof(target));
	if (err) {
		fprintf(stderr, "precord: cannot finish '%s': %s\n", rec->data_path, strerror(-err));
		rec->write_error = err;
		return err;
	}
	snprintf(done, sizeof(done), "%s.staging", target);
	if (rename(rec->staging, done) < 0 || rename(next, rec->staging) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot rename the staging directory '%s': %s\n",
			rec->staging, strerror(errno));
		rec->write_error = err;
		return err;
	}
	rec->gen++;
	rec->out_fd = open(rec->data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = rec->out_fd < 0 ? -errno : record__begin_data(rec);
	if (err) {
		rec->write_error = err;		/* the recording ends after this file */
	} else {
		record__arm_size(rec);
		if (rec->opts.switch_secs) {
			/* One file per period: the next deadline from the last, not from now. */
			rec->next_switch_ms += 1000ULL * rec->opts.switch_secs;
			if (rec->next_switch_ms <= now_ms())
				rec->next_switch_ms = now_ms() + 1000ULL * rec->opts.switch_secs;
		}
	}
	/* A merge that fails keeps the directory (also on a full disk): nothing is lost. */
	if (!record__finish_dir(rec, done, target))
		record__keep_output(rec, target);
	return err;
}

/* --switch-output=SIZE with --overwrite: what the next snapshot would hold. */
static bool record__overwrite_full(struct record *rec)
{
	u64 bytes = streams__backward_pending(&rec->streams) + rec->synth_bytes +
		    __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED) - rec->gen_start_bytes;

	return bytes >= rec->opts.switch_size;
}

/* ---- the control channel -------------------------------------------------- */

static void record__control_toggle(struct record *rec, const struct control_msg *msg)
{
	bool enable = msg->cmd == CONTROL_CMD_ENABLE;
	struct evsel *evsel;
	int i, found = 0;

	if (!msg->arg[0]) {
		if (enable)
			evlist__enable(rec->evlist);
		else
			evlist__disable(rec->evlist);
	} else {
		evlist__for_each_evsel(rec->evlist, evsel, i) {
			if (!evsel->name || strcmp(evsel->name, msg->arg))
				continue;
			if (enable)
				evsel__enable(evsel);
			else
				evsel__disable(evsel);
			found++;
		}
		if (!found) {
			fprintf(stderr, "precord: control: no event named '%s'\n", msg->arg);
			return;
		}
	}
	if (!rec->opts.quiet)
		fprintf(stderr, "precord: %s %s\n", msg->arg[0] ? msg->arg : "events",
			enable ? "enabled" : "disabled");
}

static void record__control_cmd(struct record *rec, const struct control_msg *msg)
{
	struct evsel *evsel;
	int i;

	if (msg->malformed && (msg->cmd == CONTROL_CMD_ENABLE || msg->cmd == CONTROL_CMD_DISABLE ||
			       msg->cmd == CONTROL_CMD_EVLIST)) {
		fprintf(stderr, "precord: control: wrong command '%s'\n", msg->line);
		return;
	}
	switch (msg->cmd) {
	case CONTROL_CMD_ENABLE:
	case CONTROL_CMD_DISABLE:
		record__control_toggle(rec, msg);
		break;
	case CONTROL_CMD_SNAPSHOT:
		if (rec->opts.switch_output)
			record__switch(rec);
		else if (!rec->opts.quiet)
			fprintf(stderr, "precord: control: snapshot needs --switch-output\n");
		break;
	case CONTROL_CMD_EVLIST:
		evlist__for_each_evsel(rec->evlist, evsel, i)
			fprintf(stderr, "%s\n", evsel->name ? evsel->name : "?");
		break;
	case CONTROL_CMD_STOP:
		rec->stop_requested = true;
		break;
	default:
		break;
	}
}

/* Carry out every command waiting on the channel; false once it is closed. */
static bool record__control(struct record *rec)
{
	struct control_msg msg;
	int ret;

	while ((ret = control__read(&rec->ctl, &msg)) > 0) {
		status__clear(&rec->status);
		record__control_cmd(rec, &msg);
		if (control_cmd__is_acked(msg.cmd) && control__ack(&rec->ctl) && rec->opts.verbose)
			fprintf(stderr, "precord: control: cannot write the ack\n");
	}
	return ret == 0;
}

/* The poll timeout until `at` (ms), no longer than `timeout` already is. */
static int timeout_until(u64 at, u64 now, int timeout)
{
	int t = at > now ? (int)(at - now) : 0;

	return timeout < 0 || t < timeout ? t : timeout;
}

/* How often --overwrite with --switch-output=SIZE looks at the rings. */
#define OVERWRITE_SIZE_CHECK_MS	100

/* Timed work: the -D delay, --switch-output=TIME and overwrite SIZE. The poll timeout. */
static int record__timers(struct record *rec, u64 *enable_at)
{
	int timeout = -1;
	u64 now = now_ms();

	if (*enable_at && now >= *enable_at) {
		evlist__enable(rec->evlist);
		*enable_at = 0;
		status__clear(&rec->status);
		if (!rec->opts.quiet)
			fprintf(stderr, "precord: events enabled after %d ms\n", rec->opts.delay_ms);
	}
	if (*enable_at)
		timeout = timeout_until(*enable_at, now, timeout);
	if (rec->switch_due || (rec->next_switch_ms && now >= rec->next_switch_ms))
		record__switch(rec);
	if (rec->switch_due)
		timeout = 0;	/* the next file was full as it began: switch again */
	if (rec->next_switch_ms)
		timeout = timeout_until(rec->next_switch_ms, now_ms(), timeout);
	if (rec->opts.overwrite && rec->opts.switch_size) {
		if (record__overwrite_full(rec))
			record__switch(rec);
		timeout = timeout_until(now + OVERWRITE_SIZE_CHECK_MS, now, timeout);
	}
	return timeout;
}

/* The status line, from the counters the streaming threads publish. */
static void record__status(struct record *rec, u64 now)
{
	struct status_counts c = { 0 };
	int i;

	if (!rec->status.on)
		return;
	for (i = 0; i < rec->streams.nr; i++) {
		struct stream_live live;

		if (!rec->streams.s[i].nr_rings)
			continue;
		stream__read_live(&rec->streams.s[i], &live);
		c.bytes += live.bytes;
		c.samples += live.samples;
		c.lost += live.lost;
		c.threads++;
	}
	status__tick(&rec->status, now, &c);
}

/*
 * Wait until the workload ends, a signal comes, the stream threads stop,
 * or "stop" comes on the control channel; meanwhile start new output files
 * (--switch-output), carry out control commands and, on a terminal, keep
 * the status line.
 */
static void record__wait_loop(struct record *rec)
{
	enum { P_SIG, P_NOTIFY, P_CTL, P_SWITCH, P_OUT, P_NR };
	struct pollfd pfd[P_NR] = {
		[P_SIG] = { .fd = rec->sig_fd, .events = POLLIN },
		[P_NOTIFY] = { .fd = rec->notify_fd, .events = POLLIN },
		[P_CTL] = { .fd = rec->ctl.ctl_fd, .events = POLLIN },
		[P_SWITCH] = { .fd = rec->shared.switch_fd, .events = POLLIN },
		/* a pipe's write end reports POLLERR once no reader is left */
		[P_OUT] = { .fd = rec->pipe ? rec->out_fd : -1, .events = 0 },
	};
	u64 enable_at = rec->opts.delay_ms > 0 ? now_ms() + (u64)rec->opts.delay_ms : 0;

	for (;;) {
		struct signalfd_siginfo si;
		int timeout = record__timers(rec, &enable_at);
		u64 v, now = now_ms();

		record__status(rec, now);
		timeout = status__timeout(&rec->status, now, timeout);
		if (rec->write_error || rec->stop_requested)
			return;
		if (rec->wl.pid > 0 && workload__poll_exit(&rec->wl))
			return;
		if (poll(pfd, P_NR, timeout) < 0 && errno != EINTR)
			return;
		if (pfd[P_NOTIFY].revents & POLLIN)
			return;
		if (pfd[P_OUT].revents & (POLLERR | POLLHUP)) {
			record__pipe_gone(rec, -EPIPE);
			rec->write_error = -EPIPE;
			return;
		}
		if ((pfd[P_SWITCH].revents & POLLIN) &&
		    read(rec->shared.switch_fd, &v, sizeof(v)) == sizeof(v))
			record__switch(rec);
		if ((pfd[P_CTL].revents & (POLLIN | POLLHUP)) && !record__control(rec))
			pfd[P_CTL].fd = -1;	/* the writer of an fd: pipe closed it */
		while (read(rec->sig_fd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;	/* reaped above */
			if (si.ssi_signo == SIGUSR2) {
				if (rec->opts.switch_output)
					record__switch(rec);
				continue;
			}
			rec->stop_signal = (int)si.ssi_signo;
			return;
		}
	}
}

static void record__wait(struct record *rec)
{
	status__init(&rec->status, STDERR_FILENO, rec->opts.quiet, now_ms());
	record__wait_loop(rec);
	status__clear(&rec->status);
}

/*
 * The end: the staging directory becomes the output, or with
 * --switch-output the last FILE.<timestamp>.
 */
static int record__finish_last(struct record *rec)
{
	int err;

	if (rec->opts.switch_output) {
		err = record__output_name(rec, rec->final_path, sizeof(rec->final_path));
		if (err)
			return err;
		rec->path = rec->final_path;
	} else {
		err = record__keep_old(rec);
		if (err) {
			fprintf(stderr, "precord: the recording is in '%s': 'precord merge %s -o FILE' "
				"merges it\n", rec->staging, rec->staging);
			return err;
		}
	}
	return record__finish_dir(rec, rec->staging, rec->path);
}

static int record__exit_status(struct record *rec, int err)
{
	if (rec->wl.exec_errno)
		return EXIT_NOEXEC;
	if (err)
		return 1;
	if (rec->stop_requested)
		return 0;
	if (rec->stop_signal)
		return 128 + rec->stop_signal;
	if (rec->wl.pid > 0 && rec->wl.exited) {
		if (WIFEXITED(rec->wl.status))
			return WEXITSTATUS(rec->wl.status);
		if (WIFSIGNALED(rec->wl.status))
			return 128 + WTERMSIG(rec->wl.status);
	}
	return 0;
}

/*
 * What stands at the output path, before anything is opened: "-", a FIFO,
 * or stdout a pipe with no -o is perf's pipe mode; a directory that is no
 * recording is refused; a device is written into in the one-file layout,
 * as perf writes it.
 */
static int record__check_output(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	const char *pipe_path = record__pipe_path(rec);

	if (pipe_path) {
		rec->path = pipe_path;
		return record__setup_pipe(rec);
	}
	switch (output__kind(rec->path)) {
	case OUTPUT_OTHER:
		fprintf(stderr, "precord: '%s' is in the way: it is neither a perf.data file nor a "
			"recording directory; choose another output with -o\n", rec->path);
		return -EEXIST;
	case OUTPUT_DEVICE:
		break;
	default:
		return 0;
	}
	if (o->switch_output || o->no_merge) {
		fprintf(stderr, "precord: '%s' is a device: %s writes files next to the output; "
			"give -o a file name\n", rec->path,
			o->switch_output ? "--switch-output" : "--no-merge");
		return -EINVAL;
	}
	rec->device = true;
	rec->threaded = false;
	if (o->mmap_output && o->verbose)
		fprintf(stderr, "precord: '%s' is a device: written with write(2), not mapped\n",
			rec->path);
	o->mmap_output = false;
	return 0;
}

/*
 * The descriptors the recording will hold, before anything is opened or
 * moved: its events, a file per ring (two with overwrite rings, twice that
 * with --switch-output), an eventfd per thread and a few more. The soft
 * limit goes up to the hard one, as perf raises it, and the hard one to
 * the estimate where allowed; where that cannot be, the recording stops
 * here, with the old output untouched.
 */
static int record__reserve_fds(struct record *rec)
{
	const struct cpu_map *cpus = rec->evlist->cpus;
	unsigned long rings = cpus && !cpu_map__is_any(cpus) ? (unsigned long)cpus->nr : 1;
	unsigned long need = 0, files = rings * (rec->opts.overwrite ? 2 : 1);
	int err;

	/* a switch opens the next files while the current ones are open */
	if (rec->opts.switch_output)
		files *= 2;
	/* and an eventfd per streaming thread, at most one per ring */
	err = evlist__reserve_nofile(rec->evlist, files + rings + 16, &need);
	if (err == -EMFILE)
		fprintf(stderr, "precord: the recording needs %lu file descriptors, more than the "
			"limit allows: raise it with 'ulimit -n %lu'\n", need, need);
	return err == -EMFILE ? err : 0;
}

static int record__run(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	err = record__check_output(rec);
	if (!err)
		err = record__reserve_fds(rec);
	if (err)
		return err;

	/* A --threads spec that cannot be laid out fails before the output is touched. */
	if (rec->threaded) {
		char msg[256] = "";

		rec->topo = topology__new();
		if (!rec->topo) {
			snprintf(msg, sizeof(msg), "cannot read the machine's topology (hwloc)");
			err = -ENODEV;
		} else {
			err = streams__check_spec(o->threads_spec ? o->threads_spec : "numa",
						  rec->topo, rec->evlist->cpus, msg, sizeof(msg));
		}
		if (err < 0) {
			fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
			return err;
		}
		/*
		 * One thread: its per-ring files would only be merged back into
		 * the serial layout it can write itself. The flight recorder and
		 * --no-merge keep the directory; so does --mmap-output, which
		 * lost more into one file (raw_syscalls:* -m 8, 6 runs each:
		 * a median of 8.4% of the records against 1.7% into data.N).
		 */
		if (err == 1 && !o->no_merge && !o->overwrite && !o->switch_output &&
		    !o->mmap_output) {
			rec->threaded = false;
			rec->one_thread = true;
		}
		err = 0;
	}
	err = record__open_output(rec);
	if (err)
		return err;
	if (o->argc > 0) {
		err = workload__prepare(&rec->wl, o->argv, &rec->old_mask,
					rec->pipe && !strcmp(rec->path, "-"));
		if (err) {
			fprintf(stderr, "precord: cannot fork the workload: %s\n", strerror(-err));
			return err;
		}
		if (!rec->evlist->threads) {
			struct thread_map *tm = thread_map__new_from(&rec->wl.pid, 1);

			if (!tm)
				return -ENOMEM;
			evlist__set_maps(rec->evlist, rec->evlist->cpus, tm);
			thread_map__put(tm);
		}
	}
	err = record__open(rec);
	if (err)
		return err;
	err = record__mmap(rec);
	if (err)
		return err;
	err = record__begin_data(rec);
	if (err)
		return err;
	err = record__start_streams(rec);
	if (err)
		return err;
	if (rec->system_wide || o->pid_list || o->tid_list) {
		if (o->delay_ms == 0)
			evlist__enable(rec->evlist);
	}
	if (rec->wl.pid > 0) {
		err = workload__start(&rec->wl);
		if (err) {
			fprintf(stderr, "precord: cannot run '%s': %s\n", o->argv[0], strerror(-err));
			workload__reap(&rec->wl, false);
			return 0;	/* finish the file; exit 127 */
		}
	}
	record__wait(rec);
	return 0;
}

static bool record__all_hup(const struct record *rec)
{
	int i;

	for (i = 0; i < rec->streams.nr; i++)
		if (rec->streams.s[i].nr_rings && !rec->streams.s[i].all_hup)
			return false;
	return true;
}

static int record__stop(struct record *rec)
{
	int err;

	evlist__disable(rec->evlist);
	err = streams__stop(&rec->streams);
	streams__total(&rec->streams, &rec->total);
	if (err)
		record__cut_ring_files(rec);
	if (err && !rec->write_error) {
		rec->write_error = err;
		if (!record__pipe_gone(rec, err))
			fprintf(stderr, "precord: writing '%s' failed: %s; it keeps what was written "
				"until then; free space or record elsewhere with -o\n", rec->path,
				strerror(-err));
	}
	if (record__all_hup(rec) && rec->wl.pid <= 0 && !rec->opts.quiet)
		fprintf(stderr, "precord: every monitored thread has exited\n");
	if (!rec->write_error) {
		err = record__write_lost_samples(rec);
		if (err)
			rec->write_error = err;
	}
	return rec->write_error;
}

/* Whether perf needs the features to read the file at all: trace data, compression. */
static bool record__needs_features(const struct record *rec)
{
	struct evsel *evsel;
	int i;

	if (rec->opts.comp_level)
		return true;
	evlist__for_each_evsel(rec->evlist, evsel, i)
		if (evsel->attr.type == PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

int cmd_record(int argc, char **argv, int full_argc, const char **full_argv)
{
	struct record rec = {
		.out_fd = -1, .sig_fd = -1, .notify_fd = -1, .shared = { .switch_fd = -1 },
		.wl = { .pid = -1, .go_fd = -1, .err_fd = -1 },
		.full_argc = full_argc, .full_argv = full_argv,
	};
	char msg[512] = "";
	int err, status = 1, i;

	record_opts__init(&rec.opts);
	err = record_opts__parse(&rec.opts, argc, argv, msg, sizeof(msg));
	if (err) {
		record_opts__exit(&rec.opts);
		if (err > 0)
			return 0;
		fprintf(stderr, "precord: %s\n", msg);
		return EXIT_USAGE;
	}
	rec.path = rec.opts.output;
	rec.tag = !strcmp(argv[0], "record") ? "perf record" : "precord";
	/* per-thread rings, or records without times: one thread, one file, as perf */
	rec.threaded = !rec.opts.no_threads && !record_opts__per_thread(&rec.opts) &&
		       record_opts__sample_time(&rec.opts);
	control__init(&rec.ctl);
	if (rec.opts.control && control__open(&rec.ctl, rec.opts.control, msg, sizeof(msg))) {
		fprintf(stderr, "precord: %s\n", msg);
		record_opts__exit(&rec.opts);
		return EXIT_USAGE;
	}

	rec.evlist = evlist__new();
	if (!rec.evlist) {
		err = -ENOMEM;
		goto out_opts;
	}
	err = record__parse_events(&rec);
	if (err) {
		status = EXIT_USAGE;
		goto out_delete;
	}
	err = record__create_maps(&rec);
	if (err) {
		status = EXIT_USAGE;
		goto out_delete;
	}
	err = record__config(&rec);
	if (err || rec.opts.dry_run) {
		status = err ? 1 : 0;
		goto out_delete;
	}

	err = record__setup_signals(&rec);
	if (!err) {
		rec.notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (rec.notify_fd < 0)
			err = -errno;
	}
	if (!err && rec.opts.switch_size && !rec.opts.overwrite) {
		rec.shared.switch_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (rec.shared.switch_fd < 0)
			err = -errno;
	}
	if (!err)
		record__start_workers(&rec);
	if (!err)
		err = record__run(&rec);
	if (rec.streams_started)
		record__stop(&rec);
	/* threads that never started recorded nothing: an old output is not displaced for it */
	if (rec.header_written && (rec.streams_started || !rec.threaded)) {
		int ferr = record__finish_output(&rec);

		bool no_room = ferr == -ENOSPC || ferr == -EDQUOT;

		if (no_room && !rec.threaded && !rec.device)
			/* the header has the data's size; the features wait ahead of the data */
			fprintf(stderr, "precord: no room for the features at the end of '%s': %s; "
				"once there is room, 'precord merge %s' adds them\n", rec.data_path,
				record__needs_features(&rec) ? "perf cannot read it without them" :
				"perf reads its samples", rec.data_path);
		else if (ferr && !rec.pipe_gone)	/* a reader gone is said */
			fprintf(stderr, "precord: cannot finish '%s': %s%s%s%s\n", rec.data_path,
				strerror(-ferr),
				rec.threaded ? "; free space, then turn it into a perf.data with "
					       "'precord merge " : "",
				rec.threaded ? rec.staging : "", rec.threaded ? "'" : "");
		else if (rec.threaded)
			ferr = record__finish_last(&rec);
		if (!ferr && rec.opts.switch_output)
			record__keep_output(&rec, rec.path);
		if (!ferr || (no_room && !rec.threaded && !rec.device))
			record__print_summary(&rec);
		if (!err)
			err = ferr;
	} else if (rec.out_fd >= 0) {
		/* Nothing was recorded: leave no empty file or directory behind. */
		streams__exit(&rec.streams);
		if (rec.threaded)
			remove_staging(rec.staging);
		else if (!rec.device && !rec.pipe)
			unlink(rec.data_path);
	}
	/* Unmap and close on the workers too, then let them go. */
	evlist__munmap(rec.evlist);
	evlist__close(rec.evlist);
	record__stop_workers(&rec);
	workload__reap(&rec.wl, !rec.wl.exited);
	status = record__exit_status(&rec, err ? err : rec.write_error ? rec.write_error :
				     rec.merge_error);
	streams__exit(&rec.streams);
	merge_index__delete(rec.index);
	topology__delete(rec.topo);	/* after the streams, which borrowed it */
	goto out_close;

out_delete:
	evlist__delete(rec.evlist);
	control__close(&rec.ctl);
	record_opts__exit(&rec.opts);
	return status;
out_close:
	if (rec.out_fd >= 0)
		close(rec.out_fd);
	if (rec.shared.switch_fd >= 0)
		close(rec.shared.switch_fd);
	for (i = 0; i < rec.nr_outputs; i++)
		free(rec.outputs[i]);
	free(rec.outputs);
	control__close(&rec.ctl);
	if (rec.sig_fd >= 0)
		close(rec.sig_fd);
	if (rec.notify_fd >= 0)
		close(rec.notify_fd);
	evlist__delete(rec.evlist);
out_opts:
	record_opts__exit(&rec.opts);
	return err && !status ? 1 : status;
}
