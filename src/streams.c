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
	s->index = cfg->index;
	s->prealloc = ss->prealloc;
	return 0;
}

int streams__check_spec(const char *spec, const struct topology *topo, const struct cpu_map *cpus,
			char *err, size_t errlen)
{
	struct stream_layout *layout = NULL;
	int ret = layout__new(spec, topo, cpus, &layout, err, errlen);

	if (!ret)
		ret = layout->nr;
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
	return 0;
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

void streams__total(const struct streams *ss, struct stream_stats *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ss->nr; i++) {
		const struct stream_stats *s = &ss->s[i].stats;

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
