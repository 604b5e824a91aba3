// SPDX-License-Identifier: GPL-2.0
/*
 * streams.c — the set of streaming threads of one recording.
 *
 * Owns the layout (which rings each thread drains and where it runs), the
 * hwloc topology it came from, and the data.N files. Runs on the main
 * thread: it sets the threads up, starts them, stops them, and adds up
 * their counters; the threads themselves are stream.c.
 *
 * One-file mode (--no-threads, or a --threads layout of one thread, bound
 * as the layout says): one thread, every ring into the writer the caller
 * gives, with FINISHED_ROUND after each pass that moved data, as perf
 * record writes without --threads. Directory mode (--threads): ring i of
 * the evlist writes DIR/data.i, as perf record --threads does, each file
 * read by exactly one thread: the one whose layout group holds the ring's
 * CPU; with overwrite rings (--overwrite), overwrite ring i writes
 * DIR/data.(nr_rings + i).
 *
 * Adaptive layout (--threads=adaptive[:MAX], the default): the layout's
 * threads are numa's, one per node, each made the lead of a stream_group
 * (stream.c) that may add helpers on its node as its rings back up, up to
 * MAX or one per recorded CPU of the node. A ring still writes only its own
 * data.N, whichever thread of the group reads it. --switch-output and
 * --overwrite (cfg->fixed) keep the lead threads alone.
 *
 * --switch-output and snapshots: streams__switch() opens a new set of
 * data.N files in another directory and hands each thread its part through
 * the thread's command word (stream.h); the threads finish the old files,
 * move over, and answer on one shared eventfd. The main thread waits for
 * every answer before it touches the old files again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/statvfs.h>

#include "precord/streams.h"
#include "precord/evlist.h"

/* File space a data.N reserves ahead of its writes (see streams__prealloc_step()). */
#define STREAMS_PREALLOC_STEP	(16ULL << 20)

/* Create data.0 … data.(nr_files - 1) in dir into fds (every entry -1 first). */
static int streams__open_files(const struct streams *ss, const char *dir, int *fds,
			       char *err, size_t errlen)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < ss->nr_files; i++)
		fds[i] = -1;
	for (i = 0; i < ss->nr_files; i++) {
		snprintf(path, sizeof(path), "%s/data.%d", dir, i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fds[i] < 0) {
			int e = -errno;

			snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return e;
		}
	}
	return 0;
}

u64 streams__prealloc_step(const char *dir, int nr_files)
{
	struct statvfs st;

	if (statvfs(dir, &st) < 0)
		return 0;
	if ((u64)st.f_bavail * st.f_frsize / 16 < (u64)nr_files * STREAMS_PREALLOC_STEP)
		return 0;
	return STREAMS_PREALLOC_STEP;
}

static void streams__close_files(const struct streams *ss, int *fds)
{
	int i;

	for (i = 0; fds && i < ss->nr_files; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/*
 * Thread t's file slots: its forward rings' files, then its overwrite
 * rings' (ring i of the evlist writes data.i, its overwrite ring
 * data.(nr_rings + i)).
 */
static void streams__thread_fds(const struct streams *ss, const struct stream *s,
				const int *all, int *slots)
{
	int j;

	for (j = 0; j < s->nr_rings; j++) {
		slots[j] = all[s->rings[j]->idx];
		if (s->bk_rings)
			slots[s->nr_rings + j] = all[ss->nr_rings + s->rings[j]->idx];
	}
}

/* Give thread t the rings whose CPU its layout group holds; slots for its files. */
static int streams__init_thread(struct streams *ss, int t, struct ringbuf **rings,
				struct ringbuf **bk, int *fds, int *next,
				const struct streams_config *cfg)
{
	struct stream *s = &ss->s[t];
	int i, n = 0, err;

	for (i = 0; i < ss->nr_rings; i++) {
		struct ringbuf *rb = ss->rings[i];

		if (layout__thread_of(ss->layout, rb->cpu) != t)
			continue;
		rings[n] = rb;
		if (ss->bk_rings)
			bk[n] = ss->bk_rings[i];
		n++;
	}
	err = stream__init(s, t, rings, n, NULL, cfg->time_off, cfg->notify_fd);
	if (err)
		return err;
	snprintf(s->name, sizeof(s->name), "prec-rd/%u", (unsigned int)(t % 100000));
	s->write_rounds = false;	/* data.N hold raw ring order; the merge adds rounds */
	s->bk_rings = ss->bk_rings ? bk : NULL;
	s->nr_files = ss->bk_rings ? 2 * n : n;
	s->out_fds = fds;
	s->next_fds = next;
	streams__thread_fds(ss, s, ss->ring_fds, s->out_fds);
	s->ack_fd = ss->ack_fd;
	s->shared = cfg->shared;
	s->writer_kind = cfg->writer_kind;
	s->affinity = ss->layout->affinity[t];
	s->node = ss->layout->node[t];
	s->rt_prio = cfg->rt_prio;
	s->aio = cfg->aio;
	s->comp_level = cfg->comp_level;
	s->mmap_flush = cfg->mmap_flush;
	s->flush_each = cfg->no_buffering;
	s->index = cfg->index;
	s->prealloc = ss->prealloc;
	return 0;
}

int streams__check_spec(const char *spec, const struct topology *topo, const struct cpu_map *cpus,
			char *err, size_t errlen)
{
	struct stream_layout *layout = NULL;
	int ret = layout__new(spec, topo, cpus, &layout, err, errlen);

	int t;

	if (!ret)
		for (t = 0; t < layout->nr; t++)
			ret += layout__max_threads_of(layout, t);
	layout__delete(layout);
	return ret;
}

/* cfg->spec's layout of the recorded CPUs into ss->layout. */
static int streams__new_layout(struct streams *ss, struct evlist *evlist,
			       const struct streams_config *cfg, char *err, size_t errlen)
{
	struct cpu_map *allowed;
	int ret;

	ss->topo = cfg->topo;
	if (!ss->topo) {
		ss->topo = topology__new();
		ss->own_topo = true;
	}
	if (!ss->topo) {
		snprintf(err, errlen, "cannot read the machine's topology (hwloc)");
		return -ENODEV;
	}
	ret = layout__new(cfg->spec, ss->topo, evlist->cpus, &ss->layout, err, errlen);
	if (ret)
		return ret;
	/* a cpuset or taskset may forbid a thread its node's CPUs: it runs nearby */
	allowed = cpu_map__new_allowed();
	ret = layout__fit_allowed(ss->layout, ss->topo, allowed);
	cpu_map__put(allowed);
	if (ret < 0) {
		snprintf(err, errlen, "cannot fit the streaming threads to the allowed CPUs: %s",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Adaptive layout: each thread whose node has room for more than one
 * becomes the lead of a group. A thread the layout keeps off its rings'
 * CPUs (a cpuset) keeps the layout's pinning for its helpers too.
 */
static int streams__init_groups(struct streams *ss, const struct streams_config *cfg,
				char *err, size_t errlen)
{
	int t, ret, max;

	ss->fixed = ss->layout->adaptive && (cfg->fixed || ss->bk_rings);
	if (!ss->layout->adaptive || ss->fixed)
		return 0;
	for (t = 0; t < ss->nr; t++) {
		max = layout__max_threads_of(ss->layout, t);
		if (max < 2 || ss->s[t].nr_rings < 2)
			continue;
		ret = stream_group__new(&ss->s[t], max, cfg->adapt);
		if (ret) {
			snprintf(err, errlen, "cannot set up the helpers of streaming thread %d: %s",
				 t, strerror(-ret));
			return ret;
		}
		ss->s[t].group->follow = !ss->layout->moved[t];
		ss->adaptive = true;
	}
	return 0;
}

static int streams__init_layout(struct streams *ss, struct evlist *evlist,
				const struct streams_config *cfg, char *err, size_t errlen)
{
	struct ringbuf **grouped;
	int *fds, t, ret, off = 0, foff = 0;
	size_t nr = (size_t)ss->nr_rings + 1, nf = (size_t)ss->nr_files + 1;

	ret = streams__new_layout(ss, evlist, cfg, err, errlen);
	if (ret)
		return ret;
	ss->ring_fds = malloc(sizeof(int) * nf);
	ss->ack_fd = eventfd(0, EFD_CLOEXEC);
	if (!ss->ring_fds || ss->ack_fd < 0)
		return -ENOMEM;
	ret = streams__open_files(ss, cfg->dir, ss->ring_fds, err, errlen);
	if (ret)
		return ret;
	ss->prealloc = streams__prealloc_step(cfg->dir, ss->nr_files);
	ss->s = calloc((size_t)ss->layout->nr, sizeof(*ss->s));
	grouped = calloc(2 * nr, sizeof(*grouped));	/* forward rings, then overwrite rings */
	fds = calloc(2 * nf, sizeof(*fds));		/* current files, then the next ones */
	if (!ss->s || !grouped || !fds) {
		free(grouped);
		free(fds);
		return -ENOMEM;
	}
	/* Each thread gets a slice of the grouped arrays; freed through s[0]. */
	for (t = 0; t < ss->layout->nr; t++) {
		ss->s[t].ctl_fd = -1;
		ret = streams__init_thread(ss, t, grouped + off, grouped + nr + off, fds + foff,
					   fds + nf + foff, cfg);
		ss->nr = t + 1;
		if (ret) {
			snprintf(err, errlen, "cannot set up streaming thread %d: %s", t, strerror(-ret));
			return ret;
		}
		off += ss->s[t].nr_rings;
		foff += ss->s[t].nr_files;
	}
	return streams__init_groups(ss, cfg, err, errlen);
}

int streams__init(struct streams *ss, struct evlist *evlist, const struct streams_config *cfg,
		  char *err, size_t errlen)
{
	int i, ret;

	memset(ss, 0, sizeof(*ss));
	ss->ack_fd = -1;
	ss->nr_rings = evlist->nr_rings;
	ss->nr_files = evlist->bk_rings ? 2 * ss->nr_rings : ss->nr_rings;
	ss->rings = calloc(2 * ((size_t)ss->nr_rings + 1), sizeof(*ss->rings));
	if (!ss->rings)
		return -ENOMEM;
	for (i = 0; i < ss->nr_rings; i++)
		ss->rings[i] = &evlist->rings[i];
	if (evlist->bk_rings) {
		ss->bk_rings = ss->rings + ss->nr_rings + 1;
		for (i = 0; i < ss->nr_rings; i++)
			ss->bk_rings[i] = &evlist->bk_rings[i];
	}

	if (cfg->spec && !cfg->one_file)
		return streams__init_layout(ss, evlist, cfg, err, errlen);
	if (ss->bk_rings) {
		snprintf(err, errlen, "overwrite rings need the streaming threads' directory layout");
		return -EINVAL;
	}

	ss->one_file = true;
	if (cfg->spec) {
		ret = streams__new_layout(ss, evlist, cfg, err, errlen);
		if (ret)
			return ret;
		if (ss->layout->nr != 1) {
			snprintf(err, errlen, "the --threads layout has %d threads, not one",
				 ss->layout->nr);
			return -EINVAL;
		}
	}
	ss->s = calloc(1, sizeof(*ss->s));
	if (!ss->s)
		return -ENOMEM;
	ret = stream__init(&ss->s[0], 0, ss->rings, ss->nr_rings, cfg->writer, cfg->time_off,
			   cfg->notify_fd);
	if (ret)
		return ret;
	ss->nr = 1;
	ss->s[0].rt_prio = cfg->rt_prio;
	ss->s[0].writer_kind = cfg->writer_kind;	/* an mmap writer is not flushed when idle */
	ss->s[0].comp_level = cfg->comp_level;
	ss->s[0].mmap_flush = cfg->mmap_flush;
	ss->s[0].flush_each = cfg->no_buffering;
	ss->s[0].write_rounds = !cfg->no_rounds;
	if (ss->layout) {
		ss->s[0].affinity = ss->layout->affinity[0];
		ss->s[0].node = ss->layout->node[0];
	}
	if (cfg->note_size) {
		ss->s[0].size_fd = cfg->size_fd;
		ss->s[0].size_off = cfg->size_off;
	}
	return 0;
}

int streams__start(struct streams *ss)
{
	int i, err;

	for (i = 0; i < ss->nr; i++) {
		/* A thread with no ring in this recording (-C) has nothing to do. */
		if (ss->layout && ss->s[i].nr_rings == 0)
			continue;
		err = stream__start(&ss->s[i]);
		if (err) {
			/* none runs on: the caller unmaps the rings the started ones read */
			while (--i >= 0)
				stream__stop(&ss->s[i]);
			return err;
		}
	}
	return 0;
}

int streams__stop(struct streams *ss)
{
	int i, err, first = 0;

	for (i = 0; i < ss->nr; i++) {
		err = stream__stop(&ss->s[i]);
		if (err && !first)
			first = err;
	}
	return first;
}

void streams__exit(struct streams *ss)
{
	int i;

	for (i = 0; i < ss->nr; i++)
		stream__exit(&ss->s[i]);
	if (!ss->one_file && ss->layout && ss->nr) {
		free(ss->s[0].rings);	/* the grouped arrays */
		free(ss->s[0].out_fds);
	}
	free(ss->s);
	streams__close_files(ss, ss->ring_fds);
	free(ss->ring_fds);
	/* Only directory mode has one (a zeroed struct's 0 is not ours). */
	if (!ss->one_file && ss->layout && ss->ack_fd >= 0)
		close(ss->ack_fd);
	free(ss->rings);
	layout__delete(ss->layout);
	if (ss->own_topo)
		topology__delete(ss->topo);
	memset(ss, 0, sizeof(*ss));
}

static void streams__pause(struct streams *ss, bool pause)
{
	int i;

	for (i = 0; ss->bk_rings && i < ss->nr_rings; i++) {
		if (!ss->bk_rings[i]->base)
			continue;
		/* Only the fd is used: safe while the ring's thread runs. */
		if (pause)
			ringbuf__pause(ss->bk_rings[i]);
		else
			ringbuf__resume(ss->bk_rings[i]);
	}
}

/* Wait for `asked` answers on ack_fd (eventfd: each read takes the sum so far). */
static int streams__wait_acks(struct streams *ss, int asked)
{
	struct pollfd pfd = { .fd = ss->ack_fd, .events = POLLIN };
	u64 v;

	while (asked > 0) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (read(ss->ack_fd, &v, sizeof(v)) != sizeof(v))
			return -errno;
		asked -= (int)v;
	}
	return 0;
}

int streams__switch(struct streams *ss, const char *dir, bool snapshot, char *err, size_t errlen)
{
	int *next = NULL, i, ret, asked = 0, first = 0;

	if (!ss->layout || ss->one_file)
		return -EINVAL;
	next = malloc(sizeof(int) * ((size_t)ss->nr_files + 1));
	if (!next)
		return -ENOMEM;
	ret = streams__open_files(ss, dir, next, err, errlen);
	if (ret)
		goto out_close;
	for (i = 0; i < ss->nr; i++)
		streams__thread_fds(ss, &ss->s[i], next, ss->s[i].next_fds);
	/* Every ring stops before any is read: the snapshot ends at one moment. */
	if (snapshot)
		streams__pause(ss, true);
	for (i = 0; i < ss->nr; i++) {
		ret = stream__request_switch(&ss->s[i], snapshot);
		if (ret > 0)
			asked++;
		else if (ret < 0 && !first)
			first = ret;
	}
	ret = streams__wait_acks(ss, asked);
	if (snapshot)
		streams__pause(ss, false);
	for (i = 0; i < ss->nr; i++) {
		int e = __atomic_load_n(&ss->s[i].switch_error, __ATOMIC_RELAXED);

		/* A thread that had exited before (-ESRCH) simply has nothing new. */
		if (e && e != -ESRCH && !first)
			first = e;
	}
	if (ret && !first)
		first = ret;
	/* The threads write next now; what they wrote before is complete. */
	streams__close_files(ss, ss->ring_fds);
	memcpy(ss->ring_fds, next, sizeof(int) * (size_t)ss->nr_files);
	free(next);
	if (first)
		snprintf(err, errlen, "cannot switch to new files in '%s': %s", dir, strerror(-first));
	return first;

out_close:
	streams__close_files(ss, next);
	free(next);
	return ret;
}

u64 streams__backward_pending(const struct streams *ss)
{
	u64 n = 0;
	int i;

	for (i = 0; ss->bk_rings && i < ss->nr_rings; i++)
		if (ss->bk_rings[i]->base)
			n += ringbuf__backward_pending(ss->bk_rings[i]);
	return n;
}

int streams__live(const struct streams *ss, struct stream_live *sum)
{
	struct stream_live l;
	int i, threads = 0;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < ss->nr; i++) {
		if (!ss->s[i].nr_rings)
			continue;
		threads += stream_group__read_live(&ss->s[i], &l);
		sum->bytes += l.bytes;
		sum->samples += l.samples;
		sum->lost += l.lost;
	}
	return threads;
}

void streams__print_plan(const struct streams *ss, FILE *f)
{
	char cpus[128];
	int t;

	if (!ss->layout || !ss->layout->adaptive)
		return;
	if (ss->one_file) {
		fprintf(f, "precord: adaptive layout: one streaming thread, with no CPU to add a "
			"helper for, writes the output itself\n");
		return;
	}
	if (ss->fixed) {
		fprintf(f, "precord: adaptive layout: --switch-output and --overwrite keep one "
			"streaming thread per node (they ask each thread in turn to change files)\n");
		return;
	}
	for (t = 0; t < ss->nr; t++) {
		int max = ss->s[t].group ? ss->s[t].group->max : 1;

		cpu_map__snprintf(ss->layout->maps[t], cpus, sizeof(cpus));
		fprintf(f, "precord: adaptive layout: %s reads the rings of CPUs %s (node %d) and "
			"may run up to %d thread%s there\n", ss->s[t].name, cpus, ss->layout->node[t],
			max, max == 1 ? "" : "s");
	}
}

static const char *streams__why(const struct stream_helper_run *r, char *buf, size_t size)
{
	if (r->why == ADAPT_WHY_LOST)
		snprintf(buf, size, "the kernel lost %llu records", (unsigned long long)r->lost);
	else
		snprintf(buf, size, "rings %u%% full when read (%d passes at %u%% or more in %llu ms)",
			 r->fill / 10, ADAPT_NR_HIGH, ADAPT_HIGH / 10,
			 (unsigned long long)(ADAPT_WINDOW_NS / 1000000));
	return buf;
}

static void streams__print_runs(const struct stream *lead, FILE *f)
{
	const struct stream_group *g = lead->group;
	char why[128], stop[96];
	int i;

	for (i = 0; i < g->nr_runs; i++) {
		const struct stream_helper_run *r = &g->runs[i];
		const struct stream *h = &g->helpers[r->slot - 1];
		const struct stream *p = r->parent ? &g->helpers[r->parent - 1] : lead;

		if (r->end == STREAM_RUN_ERROR)
			snprintf(stop, sizeof(stop), "stopped at %.3f s on an error (%s)",
				 (double)r->stop_ns / 1e9, strerror(-r->error));
		else if (r->end == STREAM_RUN_IDLE)
			snprintf(stop, sizeof(stop), "gave them back at %.3f s, idle",
				 (double)r->stop_ns / 1e9);
		else if (r->end == STREAM_RUN_HUP)
			snprintf(stop, sizeof(stop), "gave them back at %.3f s, their tasks gone",
				 (double)r->stop_ns / 1e9);
		else
			snprintf(stop, sizeof(stop), "ran to the end");
		fprintf(f, "[ precord: %s added at %.3f s by %s for CPUs %s: %s; %s ]\n", h->name,
			(double)r->start_ns / 1e9, p->name, r->cpus ? r->cpus : "?",
			streams__why(r, why, sizeof(why)),
			stop);
	}
}

void streams__print_adaptive(const struct streams *ss, FILE *f)
{
	int t, k, ran = 0, peak = 0, nodes = 0;

	if (!ss->layout || !ss->layout->adaptive || ss->one_file)
		return;
	for (t = 0; t < ss->nr; t++) {
		const struct stream *s = &ss->s[t];
		const struct stream_group *g = s->group;

		if (!s->nr_rings)
			continue;
		nodes++;
		ran += g ? g->started : 1;
		peak += g ? g->peak : 1;
		if (!g)
			continue;
		for (k = 1; k < g->max; k++) {
			const struct stream *h = &g->helpers[k - 1];

			if (!h->adapt.since)
				continue;	/* never ran (a run starts the rule's clock) */
			fprintf(f, "[ precord: %s: %.3f MB, %llu wakeups, %llu samples, %llu lost, "
				"%.3f s CPU ]\n", h->name, (double)h->stats.bytes / 1048576.0,
				(unsigned long long)h->stats.wakeups,
				(unsigned long long)h->stats.samples,
				(unsigned long long)h->stats.lost, (double)h->stats.cpu_ns / 1e9);
		}
		fprintf(f, "[ precord: node %d (%s): %d streaming thread%s ran, %d at most at once, "
			"of %d it may run ]\n", ss->layout->node[t], s->name, g->started,
			g->started == 1 ? "" : "s", g->peak, g->max);
		streams__print_runs(s, f);
		if (g->start_error)
			fprintf(f, "[ precord: a helper of %s could not start: %s ]\n", s->name,
				strerror(-g->start_error));
	}
	fprintf(f, "[ precord: adaptive layout: %d streaming thread%s ran on %d node%s, %d at most "
		"at once ]\n", ran, ran == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", peak);
}

static void streams__add_stats(struct stream_stats *t, const struct stream_stats *s)
{
	t->bytes += s->bytes;
	t->wakeups += s->wakeups;
	t->rounds += s->rounds;
	t->samples += s->samples;
	t->lost_records += s->lost_records;
	t->lost += s->lost;
	t->paused_lost += s->paused_lost;
	t->cpu_ns += s->cpu_ns;
	if (s->snapshots > t->snapshots)
		t->snapshots = s->snapshots;
	if (s->first_time && (!t->first_time || s->first_time < t->first_time))
		t->first_time = s->first_time;
	if (s->last_time > t->last_time)
		t->last_time = s->last_time;
}

void streams__total(const struct streams *ss, struct stream_stats *t)
{
	int i, k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ss->nr; i++) {
		const struct stream_group *g = ss->s[i].group;

		streams__add_stats(t, &ss->s[i].stats);
		for (k = 1; g && k < g->max; k++)
			streams__add_stats(t, &g->helpers[k - 1].stats);
	}
}

void streams__comp_bytes(const struct streams *ss, u64 *in, u64 *out)
{
	int i;

	*in = *out = 0;
	for (i = 0; i < ss->nr; i++) {
		*in += ss->s[i].comp_in;
		*out += ss->s[i].comp_out;
	}
}

int streams__rt_failures(const struct streams *ss, int *err)
{
	int i, n = 0;

	*err = 0;
	for (i = 0; i < ss->nr; i++) {
		if (ss->s[i].rt_error) {
			if (!n)
				*err = ss->s[i].rt_error;
			n++;
		}
	}
	return n;
}
