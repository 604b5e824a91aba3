/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dso-hits.h — which DSOs a recording's samples fell in, and their build
 * ids: what perf record's end-of-run pass (process_buildids(),
 * build_id__mark_dso_hit()) finds, as the HEADER_BUILD_ID table perf writes
 * (src/dso-hits.c).
 *
 * Use: dso_hits__new(attrs) → dso_hits__add_region() for every run of
 * records (a data section, a data.N file) → dso_hits__run() → the DSOs
 * (dso_hits__nr(), dso_hits__dso()) and dso_hits__table() →
 * dso_hits__delete(). The regions are read in place and must stay mapped
 * until dso_hits__delete().
 */
#ifndef PRECORD_DSO_HITS_H
#define PRECORD_DSO_HITS_H

#include <stdbool.h>
#include <stddef.h>
#include "precord/perf-file.h"

struct sample_attrs;
struct wq;

enum dso_kind {
	DSO_USER,	/* a file mapped by a process */
	DSO_KERNEL,	/* [kernel.kallsyms] */
	DSO_MODULE,	/* a kernel module: a map of kernel space other than the kernel's */
	DSO_VDSO,	/* [vdso] */
};

struct dso_hit {
	const char	*name;		/* as perf names it: the map's file, [kernel.kallsyms], [vdso] */
	enum dso_kind	kind;
	bool		hit;		/* a sample's ip fell in one of its maps */
	bool		listed;		/* goes in the table: hit, --buildid-all, or [vdso] */
	int		bid_len;	/* >0: bid holds the build id */
	u8		bid[20];
};

struct dso_hits_opts {
	bool		all;		/* --buildid-all: every DSO mapped, samples not read */
	/*
	 * --vmlinux=PATH: the name the kernel's entry gets (perf loads its
	 * symbols from PATH and names the kernel DSO after it). NULL:
	 * [kernel.kallsyms].
	 */
	const char	*vmlinux;
	/* Where build ids not carried by MMAP2 records come from (tests: other files). */
	const char	*kernel_notes;	/* NULL: /sys/kernel/notes */
	const char	*sys_module;	/* NULL: /sys/module */
	/* [vdso]'s build id (NULL: none, [vdso] is not listed) */
	const u8	*vdso_bid;
	int		vdso_bid_len;
};

struct dso_hits;

/* attrs: the recording's attrs and ids (read-only, kept until delete). NULL on ENOMEM. */
struct dso_hits *dso_hits__new(const struct sample_attrs *attrs, const struct dso_hits_opts *o);
void dso_hits__delete(struct dso_hits *h);

/* A run of whole records [data, data + len). 0 or -ENOMEM. */
int dso_hits__add_region(struct dso_hits *h, const void *data, size_t len);

/*
 * Read the regions: their maps (MMAP, MMAP2, FORK), then their samples,
 * each sample's ip found in the map of its process (or of kernel space)
 * that covered it at the sample's time; the build ids of the DSOs listed,
 * from MMAP2 records or read from the files. Each region and each DSO is
 * one index of wq__parallel_for() on wq (NULL: the calling thread).
 * 0 or -ENOMEM.
 */
int dso_hits__run(struct dso_hits *h, struct wq *wq);

int dso_hits__nr(const struct dso_hits *h);
const struct dso_hit *dso_hits__dso(const struct dso_hits *h, int i);

/*
 * The HEADER_BUILD_ID payload of the DSOs listed with a build id: perf's
 * perf_record_header_build_id records (type 0 as perf leaves it, pid -1,
 * misc KERNEL or USER with BUILD_ID_SIZE, the name padded to 64 bytes), in the order their maps
 * came. *table: malloc'ed (NULL with *size 0 when there is none).
 * 0 or -ENOMEM.
 */
int dso_hits__table(const struct dso_hits *h, void **table, size_t *size);

#endif /* PRECORD_DSO_HITS_H */
