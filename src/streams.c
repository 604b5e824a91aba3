// SPDX-License-Identifier: GPL-2.0
/*
 * streams.c — the set of streaming threads of one recording.
 *
 * Owns the layout (which rings each thread drains and where it runs), the
 * hwloc topology it came from, and the data.N files. Runs on the main
 * thread: it sets the threads up, starts them, stops them, and adds up
 * their counters; the threads themselves are stream.c.
 *
 * One-file mode (--no-threads): one thread, every ring into the writer the
 * caller gives. Directory mode (--threads): ring i of the evlist writes
 * DIR/data.i, as perf record --threads does, each file read by exactly one
 * thread: the one whose layout group holds the ring's CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precord/streams.h"
#include "precord/evlist.h"

static int streams__open_files(struct streams *ss, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int i;

	ss->ring_fds = malloc(sizeof(int) * (size_t)ss->nr_rings);
	if (!ss->ring_fds)
		return -ENOMEM;
	for (i = 0; i < ss->nr_rings; i++)
		ss->ring_fds[i] = -1;
	for (i = 0; i < ss->nr_rings; i++) {
		snprintf(path, sizeof(path), "%s/data.%d", dir, i);
		ss->ring_fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (ss->ring_fds[i] < 0) {
			int e = -errno;

			snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return e;
		}
	}
	return 0;
}

/* Give thread t the rings whose CPU its layout group holds. */
static int streams__init_thread(struct streams *ss, int t, struct ringbuf **rings, int *fds,
				const struct streams_config *cfg)
{
	struct stream *s = &ss->s[t];
	int i, n = 0, err;

	for (i = 0; i < ss->nr_rings; i++) {
		struct ringbuf *rb = ss->rings[i];

		if (layout__thread_of(ss->layout, rb->cpu) != t)
			continue;
		rings[n] = rb;
		fds[n] = ss->ring_fds[rb->idx];
		n++;
	}
	err = stream__init(s, t, rings, n, NULL, cfg->time_off, cfg->notify_fd);
	if (err)
		return err;
	snprintf(s->name, sizeof(s->name), "prec-rd/%u", (unsigned int)(t % 100000));
	s->write_rounds = false;	/* data.N hold raw ring order; the merge adds rounds */
	s->out_fds = fds;
	s->writer_kind = cfg->writer_kind;
	s->affinity = ss->layout->affinity[t];
	s->node = ss->layout->node[t];
	s->rt_prio = cfg->rt_prio;
	s->aio = cfg->aio;
	s->comp_level = cfg->comp_level;
	s->mmap_flush = cfg->mmap_flush;
	return 0;
}

static int streams__init_layout(struct streams *ss, struct evlist *evlist,
				const struct streams_config *cfg, char *err, size_t errlen)
{
	struct ringbuf **grouped;
	int *fds, t, ret, off = 0;

	ss->topo = topology__new();
	if (!ss->topo) {
		snprintf(err, errlen, "cannot read the machine's topology (hwloc)");
		return -ENODEV;
	}
	ret = layout__new(cfg->spec, ss->topo, evlist->cpus, &ss->layout, err, errlen);
	if (ret)
		return ret;
	ret = streams__open_files(ss, cfg->dir, err, errlen);
	if (ret)
		return ret;
	ss->s = calloc((size_t)ss->layout->nr, sizeof(*ss->s));
	grouped = calloc((size_t)ss->nr_rings + 1, sizeof(*grouped));
	fds = calloc((size_t)ss->nr_rings + 1, sizeof(*fds));
	if (!ss->s || !grouped || !fds) {
		free(grouped);
		free(fds);
		return -ENOMEM;
	}
	/* Each thread gets a slice of the grouped arrays; freed through s[0]. */
	for (t = 0; t < ss->layout->nr; t++) {
		ss->s[t].ctl_fd = -1;
		ret = streams__init_thread(ss, t, grouped + off, fds + off, cfg);
		ss->nr = t + 1;
		if (ret) {
			snprintf(err, errlen, "cannot set up streaming thread %d: %s", t, strerror(-ret));
			return ret;
		}
		off += ss->s[t].nr_rings;
	}
	return 0;
}

int streams__init(struct streams *ss, struct evlist *evlist, const struct streams_config *cfg,
		  char *err, size_t errlen)
{
	int i, ret;

	memset(ss, 0, sizeof(*ss));
	ss->nr_rings = evlist->nr_rings;
	ss->rings = calloc((size_t)ss->nr_rings + 1, sizeof(*ss->rings));
	if (!ss->rings)
		return -ENOMEM;
	for (i = 0; i < ss->nr_rings; i++)
		ss->rings[i] = &evlist->rings[i];

	if (cfg->spec)
		return streams__init_layout(ss, evlist, cfg, err, errlen);

	ss->s = calloc(1, sizeof(*ss->s));
	if (!ss->s)
		return -ENOMEM;
	ret = stream__init(&ss->s[0], 0, ss->rings, ss->nr_rings, cfg->writer, cfg->time_off,
			   cfg->notify_fd);
	if (ret)
		return ret;
	ss->nr = 1;
	ss->s[0].rt_prio = cfg->rt_prio;
	ss->s[0].comp_level = cfg->comp_level;
	ss->s[0].mmap_flush = cfg->mmap_flush;
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
		if (err)
			return err;
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
	if (ss->layout && ss->nr) {
		free(ss->s[0].rings);	/* the grouped arrays */
		free(ss->s[0].out_fds);
	}
	free(ss->s);
	if (ss->ring_fds) {
		for (i = 0; i < ss->nr_rings; i++)
			if (ss->ring_fds[i] >= 0)
				close(ss->ring_fds[i]);
		free(ss->ring_fds);
	}
	free(ss->rings);
	layout__delete(ss->layout);
	topology__delete(ss->topo);
	memset(ss, 0, sizeof(*ss));
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
