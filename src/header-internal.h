/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header-internal.h — what header.c and header-features.c share: the
 * payload buffer, what every feature writer may look at, and the payloads
 * collected for a file. Nothing else includes it.
 */
#ifndef PRECORD_HEADER_INTERNAL_H
#define PRECORD_HEADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/utsname.h>

#include "precord/header.h"
#include "precord/evlist.h"

/* A feature payload being built in memory. */
struct fbuf {
	u8	*data;
	size_t	len;
	size_t	cap;
	int	err;	/* first error (-ENOMEM); later puts do nothing */
};

/* What every feature writer may look at. */
struct feat_ctx {
	struct evlist			*evlist;
	const struct header_env		*env;
	const struct topology		*topo;
	bool				synthetic;
	struct utsname			uts;
	u32				nr_cpus_avail;	/* HEADER_NRCPUS, per-CPU ids */
	u32				nr_cpus_online;
};

struct feat_payload {
	int		feat;
	struct fbuf	buf;
};

/* An evsel's attr as a file holds it: attr.size is this build's struct. */
static inline struct perf_event_attr evsel__file_attr(const struct evsel *evsel)
{
	struct perf_event_attr attr = evsel->attr;

	attr.size = sizeof(attr);
	return attr;
}

void fbuf__put(struct fbuf *b, const void *p, size_t n);	/* p NULL: n zero bytes */
void fbuf__release(struct fbuf *b);
/* b written at off of fd, then released: 0, b's first error, or -errno. */
int fbuf__write_at(struct fbuf *b, int fd, u64 off);
/* ctx for evlist and env; *owned: a topology made here (env has none), to delete. */
int feat_ctx__init(struct feat_ctx *ctx, struct evlist *evlist, const struct header_env *env,
		   struct topology **owned);
/* Every wanted payload into pay (HEADER_LAST_FEATURE of them at most); how many. */
int feats__collect(const struct feat_ctx *ctx, struct feat_payload *pay);
void feats__release(struct feat_payload *pay, int nr);

#endif /* PRECORD_HEADER_INTERNAL_H */
