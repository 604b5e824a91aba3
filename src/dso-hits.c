// SPDX-License-Identifier: GPL-2.0
/*
 * dso-hits.c — the DSOs a recording's samples fell in, and the
 * HEADER_BUILD_ID table that lists them: what perf record finds at its end
 * by reading the whole file back through its machine/thread/map model
 * (process_buildids(), build_id__mark_dso_hit(), dsos__read_build_ids(),
 * write_buildid_table()).
 *
 * Data flow, in three parallel steps over regions of records already on
 * disk and mapped (the data section, or the data.N files of the streaming
 * threads), run at the end of a recording on the calling thread and the
 * workers of the workqueue passed in:
 *   1. each region's MMAP, MMAP2 and FORK records → per-region raw maps
 *      and forks (one wq__parallel_for index per region);
 *   2. on the calling thread, the raw maps → DSOs by name, ordered by when
 *      they were first mapped; the maps sorted by (pid, start), kernel
 *      space under pid -1;
 *   3. each region's samples: pid, ip, time and cpumode → the map of that
 *      process (or of its parent at the fork, for a child that mapped
 *      nothing there itself) that covered ip at that time, the latest one
 *      mapped before the sample; in kernel space the narrowest (a module
 *      over the kernel's map). Its DSO is marked hit (relaxed stores of 1:
 *      only ever 0 → 1, read after wq__parallel_for() returns, which
 *      orders them);
 *   4. the build ids of the DSOs listed (hit, [vdso] always, every one with
 *      --buildid-all): from an MMAP2 that carried one, else read from the
 *      file, /sys/kernel/notes or the module's notes (one index per DSO).
 * Time decides instead of file order, so a sample that a ring wrote before
 * the MMAP another ring carried still finds its map.
 *
 * Limits: guest and hypervisor samples mark nothing, as perf's host-only
 * record does; a 32-bit process's [vdso32] is not listed (its image is not
 * this process's).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wq.h"

#include "precord/dso-hits.h"
#include "precord/sample.h"
#include "precord/synthesize.h"
#include "precord/util.h"

#define HDR		sizeof(struct perf_event_header)
#define KPID		((u32)-1)	/* kernel space's maps */
#define FORK_DEPTH	16		/* parents looked through for a child's map */
#define NAME_ALIGN	64		/* perf's padding of a HEADER_BUILD_ID name */
#define MISC_BUILD_ID_SIZE	(1 << 15)	/* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define KALLSYMS	"[kernel.kallsyms]"

struct dh_raw {
	u32		pid;
	u64		start, end, time;
	const char	*name;
	const u8	*bid;
	u8		bid_len;
	u32		dso;
	u64		seq;		/* region << 32 | record number */
};

struct dh_fork {
	u32	pid, ppid;
	u64	time;
};

struct dh_region {
	const u8	*data;
	size_t		len;
	struct dh_raw	*raws;
	size_t		nr_raws, cap_raws;
	struct dh_fork	*forks;
	size_t		nr_forks, cap_forks;
	int		err;
};

struct dso_hits {
	const struct sample_attrs	*attrs;		/* I: set at new */
	struct dso_hits_opts		o;		/* I */
	struct dh_region		*regions;
	int				nr_regions, cap_regions;
	struct dh_raw			*maps;		/* all raws, by (pid, start, time) */
	size_t				nr_maps;
	u64				*max_end;	/* max end of maps[first of its pid .. i] */
	struct dh_fork			*forks;		/* by pid */
	size_t				nr_forks;
	struct dso_hit			*dsos;
	int				nr_dsos;
	u8				*hit;		/* per DSO: 0 → 1 by relaxed stores */
};

struct dso_hits *dso_hits__new(const struct sample_attrs *attrs, const struct dso_hits_opts *o)
{
	struct dso_hits *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->attrs = attrs;
	if (o)
		h->o = *o;
	return h;
}

void dso_hits__delete(struct dso_hits *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < h->nr_regions; i++) {
		free(h->regions[i].raws);
		free(h->regions[i].forks);
	}
	free(h->regions);
	free(h->maps);
	free(h->max_end);
	free(h->forks);
	for (i = 0; i < h->nr_dsos; i++)
		free((char *)h->dsos[i].name);
	free(h->dsos);
	free(h->hit);
	free(h);
}

int dso_hits__add_region(struct dso_hits *h, const void *data, size_t len)
{
	if (h->nr_regions == h->cap_regions) {
		int cap = h->cap_regions ? 2 * h->cap_regions : 8;
		struct dh_region *r = realloc(h->regions, (size_t)cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		h->regions = r;
		h->cap_regions = cap;
	}
	h->regions[h->nr_regions++] = (struct dh_region){ .data = data, .len = len };
	return 0;
}

int dso_hits__nr(const struct dso_hits *h)
{
	return h->nr_dsos;
}

const struct dso_hit *dso_hits__dso(const struct dso_hits *h, int i)
{
	return i >= 0 && i < h->nr_dsos ? &h->dsos[i] : NULL;
}

/* ---- step 1: a region's maps and forks ---- */

static int grow(void **p, size_t *cap, size_t nr, size_t size)
{
	size_t n;
	void *q;

	if (nr < *cap)
		return 0;
	n = *cap ? 2 * *cap : 64;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* The NUL-terminated name at off in a record of size bytes, or NULL. */
static const char *rec__name(const u8 *rec, size_t size, size_t off)
{
	if (off >= size || !memchr(rec + off, 0, size - off))
		return NULL;
	return (const char *)rec + off;
}

static int region__map(struct dh_region *r, const struct sample_attrs *sa, const u8 *rec,
		       u16 size, u64 seq)
{
	struct perf_event_header hdr;
	bool mmap2;
	const char *name;
	struct dh_raw *m;
	u64 start, len;
	u32 pid;

	memcpy(&hdr, rec, sizeof(hdr));
	mmap2 = hdr.type == PERF_RECORD_MMAP2;
	if (size < (mmap2 ? 72 : 40))
		return 0;
	name = rec__name(rec, size, mmap2 ? 72 : 40);
	if (!name || !name[0])
		return 0;
	if (grow((void **)&r->raws, &r->cap_raws, r->nr_raws, sizeof(*r->raws)))
		return -ENOMEM;
	memcpy(&pid, rec + 8, sizeof(pid));
	start = load_u64(rec + 16);
	len = load_u64(rec + 24);
	m = &r->raws[r->nr_raws++];
	*m = (struct dh_raw){
		.pid = (hdr.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ?
		       KPID : pid,
		.start = start, .end = start + len < start ? ~0ULL : start + len,
		.time = sa ? sample_attrs__time(sa, rec) : 0,
		.name = name, .seq = seq,
	};
	if (mmap2 && (hdr.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && rec[40] &&
	    rec[40] <= BUILD_ID_SIZE) {
		m->bid = rec + 44;
		m->bid_len = rec[40];
	}
	return 0;
}

static int region__fork(struct dh_region *r, const struct sample_attrs *sa, const u8 *rec,
			u16 size)
{
	u32 f[4];	/* pid, ppid, tid, ptid */

	if (size < 32)
		return 0;
	memcpy(f, rec + 8, sizeof(f));
	if (f[0] == f[1] || f[0] != f[2])	/* a thread, not a new process */
		return 0;
	if (grow((void **)&r->forks, &r->cap_forks, r->nr_forks, sizeof(*r->forks)))
		return -ENOMEM;
	r->forks[r->nr_forks++] = (struct dh_fork){ .pid = f[0], .ppid = f[1],
		.time = sa ? sample_attrs__time(sa, rec) : 0 };
	return 0;
}

/* Calls fn(ctx, rec, size, n) for every whole record of r; stops at a malformed one. */
static int region__walk(const struct dh_region *r, int (*fn)(void *, const u8 *, u16, u64),
			void *ctx)
{
	struct perf_event_header hdr;
	size_t off = 0;
	u64 n = 0;
	int err;

	while (r->len - off >= HDR) {
		memcpy(&hdr, r->data + off, sizeof(hdr));
		if (hdr.size < HDR || hdr.size > r->len - off)
			break;
		err = fn(ctx, r->data + off, hdr.size, n++);
		if (err)
			return err;
		off += hdr.size;
	}
	return 0;
}

struct walk_ctx {
	struct dso_hits		*h;
	struct dh_region	*r;
	u64			region;
};

static int maps__record(void *arg, const u8 *rec, u16 size, u64 n)
{
	struct walk_ctx *c = arg;
	u32 type;

	memcpy(&type, rec, sizeof(type));
	if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)
		return region__map(c->r, c->h->attrs, rec, size, c->region << 32 | n);
	if (type == PERF_RECORD_FORK)
		return region__fork(c->r, c->h->attrs, rec, size);
	return 0;
}

static int step_maps(void *arg, long idx, int slot)
{
	struct dso_hits *h = arg;
	struct walk_ctx c = { .h = h, .r = &h->regions[idx], .region = (u64)idx };

	(void)slot;
	return region__walk(c.r, maps__record, &c);
}

/* ---- step 2: DSOs and the sorted maps ---- */

static int raw__cmp_name(const void *a, const void *b)
{
	const struct dh_raw *x = *(struct dh_raw *const *)a, *y = *(struct dh_raw *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->time != y->time ? (x->time < y->time ? -1 : 1) :
	       x->seq != y->seq ? (x->seq < y->seq ? -1 : 1) : 0;
}

static int raw__cmp_map(const void *a, const void *b)
{
	const struct dh_raw *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fork__cmp(const void *a, const void *b)
{
	const struct dh_fork *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static bool name__is_kernel(const char *name)
{
	return !strncmp(name, KALLSYMS, sizeof(KALLSYMS) - 1);
}

static bool name__is_vdso(const char *name)
{
	return !strcmp(name, "[vdso]");
}

/* The DSO a kernel-space or user map stands for: its name and kind. */
static void raw__dso(const struct dh_raw *m, const char **name, enum dso_kind *kind)
{
	if (m->pid == KPID && name__is_kernel(m->name)) {
		*name = KALLSYMS;
		*kind = DSO_KERNEL;
	} else if (m->pid == KPID) {
		*name = m->name;
		*kind = DSO_MODULE;
	} else {
		*name = m->name;
		*kind = name__is_vdso(m->name) ? DSO_VDSO : DSO_USER;
	}
}

struct dso_order {
	u64	time, seq;
	int	kernel_first;
	int	idx;
};

static int order__cmp(const void *a, const void *b)
{
	const struct dso_order *x = a, *y = b;

	if (x->kernel_first != y->kernel_first)
		return y->kernel_first - x->kernel_first;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Group the raw maps by DSO; number the DSOs in the order perf creates them. */
static int hits__make_dsos(struct dso_hits *h, struct dh_raw **by_name)
{
	struct dso_order *ord;
	int *renum;
	size_t i;
	int nr = 0, d;

	for (i = 0; i < h->nr_maps; i++) {
		const char *ni, *np;
		enum dso_kind k;

		raw__dso(by_name[i], &ni, &k);
		if (i)
			raw__dso(by_name[i - 1], &np, &k);
		if (!i || strcmp(ni, np))
			nr++;
		by_name[i]->dso = (u32)(nr - 1);
	}
	h->dsos = calloc((size_t)nr + 1, sizeof(*h->dsos));
	h->hit = calloc((size_t)nr + 1, 1);
	ord = calloc((size_t)nr + 1, sizeof(*ord));
	renum = calloc((size_t)nr + 1, sizeof(*renum));
	if (!h->dsos || !h->hit || !ord || !renum) {
		free(ord);
		free(renum);
		return -ENOMEM;
	}
	h->nr_dsos = nr;	/* from here on, delete frees their names */
	for (i = 0; i < h->nr_maps; i++) {
		struct dh_raw *m = by_name[i];
		struct dso_hit *dh = &h->dsos[m->dso];

		if (!dh->name) {
			const char *name;

			raw__dso(m, &name, &dh->kind);
			dh->name = strdup(name);
			if (!dh->name) {
				free(ord);
				free(renum);
				return -ENOMEM;
			}
			ord[m->dso] = (struct dso_order){ m->time, m->seq, dh->kind == DSO_KERNEL,
							  (int)m->dso };
		} else if (m->time < ord[m->dso].time ||
			   (m->time == ord[m->dso].time && m->seq < ord[m->dso].seq)) {
			ord[m->dso].time = m->time;
			ord[m->dso].seq = m->seq;
		}
		if (m->bid_len && !dh->bid_len) {
			memcpy(dh->bid, m->bid, m->bid_len);
			dh->bid_len = m->bid_len;
		}
	}
	qsort(ord, (size_t)nr, sizeof(*ord), order__cmp);
	{
		struct dso_hit *sorted = calloc((size_t)nr + 1, sizeof(*sorted));

		if (!sorted) {
			free(ord);
			free(renum);
			return -ENOMEM;
		}
		for (d = 0; d < nr; d++) {
			sorted[d] = h->dsos[ord[d].idx];
			renum[ord[d].idx] = d;
		}
		free(h->dsos);
		h->dsos = sorted;
	}
	for (i = 0; i < h->nr_maps; i++)
		by_name[i]->dso = (u32)renum[by_name[i]->dso];
	free(ord);
	free(renum);
	return 0;
}

static int hits__gather(struct dso_hits *h)
{
	struct dh_raw **by_name;
	size_t nr = 0, nf = 0, i, k;
	int r, err;

	for (r = 0; r < h->nr_regions; r++) {
		nr += h->regions[r].nr_raws;
		nf += h->regions[r].nr_forks;
	}
	h->maps = calloc(nr + 1, sizeof(*h->maps));
	h->max_end = calloc(nr + 1, sizeof(*h->max_end));
	h->forks = calloc(nf + 1, sizeof(*h->forks));
	by_name = calloc(nr + 1, sizeof(*by_name));
	if (!h->maps || !h->max_end || !h->forks || !by_name) {
		free(by_name);
		return -ENOMEM;
	}
	for (r = 0, k = 0, nf = 0; r < h->nr_regions; r++) {
		struct dh_region *g = &h->regions[r];

		if (g->nr_raws)
			memcpy(h->maps + k, g->raws, g->nr_raws * sizeof(*g->raws));
		k += g->nr_raws;
		if (g->nr_forks)
			memcpy(h->forks + nf, g->forks, g->nr_forks * sizeof(*g->forks));
		nf += g->nr_forks;
	}
	h->nr_maps = nr;
	h->nr_forks = nf;
	for (i = 0; i < nr; i++)
		by_name[i] = &h->maps[i];
	qsort(by_name, nr, sizeof(*by_name), raw__cmp_name);
	err = hits__make_dsos(h, by_name);
	free(by_name);
	if (err)
		return err;
	qsort(h->maps, nr, sizeof(*h->maps), raw__cmp_map);
	qsort(h->forks, nf, sizeof(*h->forks), fork__cmp);
	for (i = 0; i < nr; i++)
		h->max_end[i] = i && h->maps[i - 1].pid == h->maps[i].pid &&
				h->max_end[i - 1] > h->maps[i].end ? h->max_end[i - 1] : h->maps[i].end;
	return 0;
}

/* ---- step 3: samples ---- */

/* First index in [lo, hi) whose (pid, start) is above (pid, ip). */
static size_t maps__upper(const struct dso_hits *h, u32 pid, u64 ip)
{
	size_t lo = 0, hi = h->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dh_raw *m = &h->maps[mid];

		if (m->pid < pid || (m->pid == pid && m->start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The map of pid covering ip at time t (0: any time): the latest mapped
 * at or before t; in kernel space the narrowest. -1 when none.
 */
static long maps__find(const struct dso_hits *h, u32 pid, u64 ip, u64 t)
{
	size_t j = maps__upper(h, pid, ip);
	long best = -1;

	while (j-- > 0) {
		const struct dh_raw *m = &h->maps[j];

		if (m->pid != pid || h->max_end[j] <= ip)
			break;
		if (ip >= m->end || (t && m->time > t))
			continue;
		if (best < 0)
			best = (long)j;
		else if (pid == KPID ? m->end - m->start < h->maps[best].end - h->maps[best].start :
			 m->time > h->maps[best].time)
			best = (long)j;
	}
	return best;
}

/* The fork that made pid a process, at or before t: its index, or -1. */
static long forks__find(const struct dso_hits *h, u32 pid, u64 t)
{
	size_t lo = 0, hi = h->nr_forks;
	long best = -1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->forks[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < h->nr_forks && h->forks[lo].pid == pid; lo++)
		if (!t || h->forks[lo].time <= t)
			best = (long)lo;
	return best;
}

static void hits__mark(struct dso_hits *h, u32 pid, u64 ip, u64 t, bool kernel)
{
	long m;
	int depth;

	if (kernel) {
		m = maps__find(h, KPID, ip, t);
	} else {
		for (depth = 0, m = -1; depth < FORK_DEPTH; depth++) {
			long f;

			m = maps__find(h, pid, ip, t);
			if (m >= 0)
				break;
			f = forks__find(h, pid, t);
			if (f < 0)
				break;
			pid = h->forks[f].ppid;
			t = h->forks[f].time;
		}
	}
	if (m >= 0)
		__atomic_store_n(&h->hit[h->maps[m].dso], 1, __ATOMIC_RELAXED);
}

static int samples__record(void *arg, const u8 *rec, u16 size, u64 n)
{
	struct walk_ctx *c = arg;
	const struct sample_attrs *sa = c->h->attrs;
	struct perf_event_header hdr;
	u64 st, ip, off = HDR;
	u32 pid = 0;
	u16 mode;
	int a;

	(void)n;
	memcpy(&hdr, rec, sizeof(hdr));
	if (hdr.type != PERF_RECORD_SAMPLE || !sa || !sa->nr)
		return 0;
	mode = hdr.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER)
		return 0;
	a = sample_attrs__attr_of(sa, rec);
	if (a < 0)
		return 0;
	st = sa->attr[a].sample_type;
	if (!(st & PERF_SAMPLE_IP))
		return 0;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (off + 8 > size)
		return 0;
	ip = load_u64(rec + off);
	off += 8;
	if (st & PERF_SAMPLE_TID) {
		if (off + 8 > size)
			return 0;
		memcpy(&pid, rec + off, sizeof(pid));
	} else if (mode == PERF_RECORD_MISC_USER) {
		return 0;	/* no process to look in */
	}
	hits__mark(c->h, pid, ip, sample_attrs__time(sa, rec), mode == PERF_RECORD_MISC_KERNEL);
	return 0;
}

static int step_samples(void *arg, long idx, int slot)
{
	struct dso_hits *h = arg;
	struct walk_ctx c = { .h = h, .r = &h->regions[idx], .region = (u64)idx };

	(void)slot;
	return region__walk(c.r, samples__record, &c);
}

/* ---- step 4: build ids ---- */

static int module__build_id(const struct dso_hits *h, const char *name, u8 *id)
{
	char path[PATH_MAX], mod[NAME_MAX];
	const char *base = strrchr(name, '/');
	size_t n;

	if (name[0] == '/') {
		int len = buildid__read(name, id, BUILD_ID_SIZE);

		if (len > 0)
			return len;
	}
	/* "[xfs]", or /lib/modules/.../xfs.ko: the loaded module's notes */
	base = base ? base + 1 : name + (name[0] == '[');
	n = strcspn(base, ".]");
	if (!n || n >= sizeof(mod))
		return -ENOENT;
	memcpy(mod, base, n);
	mod[n] = 0;
	for (char *p = mod; *p; p++)
		if (*p == '-')
			*p = '_';
	snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id",
		 h->o.sys_module ? h->o.sys_module : "/sys/module", mod);
	return buildid__read_notes(path, id, BUILD_ID_SIZE);
}

static int step_build_ids(void *arg, long idx, int slot)
{
	struct dso_hits *h = arg;
	struct dso_hit *d = &h->dsos[idx];
	int len = 0;

	(void)slot;
	if (!d->listed || d->bid_len > 0)
		return 0;
	switch (d->kind) {
	case DSO_KERNEL:
		len = buildid__read_notes(h->o.kernel_notes ? h->o.kernel_notes :
					  "/sys/kernel/notes", d->bid, BUILD_ID_SIZE);
		break;
	case DSO_MODULE:
		len = module__build_id(h, d->name, d->bid);
		break;
	case DSO_VDSO:
		break;
	case DSO_USER:
		if (d->name[0] == '/')
			len = buildid__read(d->name, d->bid, BUILD_ID_SIZE);
		break;
	}
	d->bid_len = len > 0 ? len : 0;
	return 0;
}

int dso_hits__run(struct dso_hits *h, struct wq *wq)
{
	int err, i;

	if (wq)
		err = wq__parallel_for(wq, 0, h->nr_regions, 1, step_maps, h, NULL);
	else
		for (i = 0, err = 0; i < h->nr_regions && !err; i++)
			err = step_maps(h, i, 0);
	if (!err)
		err = hits__gather(h);
	if (!err && !h->o.all) {
		if (wq)
			err = wq__parallel_for(wq, 0, h->nr_regions, 1, step_samples, h, NULL);
		else
			for (i = 0; i < h->nr_regions && !err; i++)
				err = step_samples(h, i, 0);
	}
	if (err)
		return err;
	for (i = 0; i < h->nr_dsos; i++) {
		struct dso_hit *d = &h->dsos[i];

		/* wq__parallel_for() returned: every store of step 3 is visible */
		d->hit = h->o.all || __atomic_load_n(&h->hit[i], __ATOMIC_RELAXED);
		d->listed = d->hit || d->kind == DSO_VDSO;
		if (d->kind == DSO_VDSO) {
			d->bid_len = 0;
			if (h->o.vdso_bid && h->o.vdso_bid_len > 0 &&
			    h->o.vdso_bid_len <= BUILD_ID_SIZE) {
				memcpy(d->bid, h->o.vdso_bid, (size_t)h->o.vdso_bid_len);
				d->bid_len = h->o.vdso_bid_len;
			}
		}
		if (d->kind == DSO_KERNEL && h->o.vmlinux) {
			char *name = strdup(h->o.vmlinux);

			if (!name)
				return -ENOMEM;
			free((char *)d->name);
			d->name = name;
		}
	}
	if (wq && h->nr_dsos)
		return wq__parallel_for(wq, 0, h->nr_dsos, 1, step_build_ids, h, NULL);
	for (i = 0; i < h->nr_dsos; i++)
		step_build_ids(h, i, 0);
	return 0;
}

/* ---- the table ---- */

/* A name's bytes in the table: with its NUL, padded to NAME_ALIGN. */
static size_t name__padded(const char *name)
{
	return (strlen(name) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

int dso_hits__table(const struct dso_hits *h, void **table, size_t *size)
{
	size_t total = 0, off = 0;
	u8 *buf;
	int i;

	*table = NULL;
	*size = 0;
	for (i = 0; i < h->nr_dsos; i++)
		if (h->dsos[i].listed && h->dsos[i].bid_len > 0)
			total += 36 + name__padded(h->dsos[i].name);
	if (!total)
		return 0;
	buf = calloc(1, total);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < h->nr_dsos; i++) {
		const struct dso_hit *d = &h->dsos[i];
		size_t name = strlen(d->name) + 1, pad = name__padded(d->name);
		struct perf_event_header hdr = {
			.type = 0,	/* perf's write_buildid() leaves it 0 in the feature */
			.misc = (d->kind == DSO_KERNEL || d->kind == DSO_MODULE ?
				 PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) | MISC_BUILD_ID_SIZE,
			.size = (u16)(36 + pad),
		};
		s32 pid = -1;

		if (!d->listed || d->bid_len <= 0)
			continue;
		memcpy(buf + off, &hdr, sizeof(hdr));
		memcpy(buf + off + 8, &pid, sizeof(pid));
		memcpy(buf + off + 12, d->bid, (size_t)d->bid_len);
		buf[off + 32] = (u8)d->bid_len;
		memcpy(buf + off + 36, d->name, name);
		off += 36 + pad;
	}
	*table = buf;
	*size = total;
	return 0;
}
