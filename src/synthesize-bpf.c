// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize-bpf.c — the BPF programs already loaded when recording
 * starts, described as perf 6.1 describes them (tools/perf/util/bpf-event.c,
 * bpf-utils.c): KSYMBOL records for their JITed functions, a BPF_EVENT for
 * each program, KSYMBOLs for the BPF trampolines and dispatchers, and the
 * programs' info and BTF kept for the header (HEADER_BPF_PROG_INFO,
 * HEADER_BPF_BTF, written by header-features.c).
 *
 * Data flow: bpf(2) BPF_PROG_GET_NEXT_ID → BPF_PROG_GET_FD_BY_ID →
 * BPF_OBJ_GET_INFO_BY_FD twice (the arrays' sizes, then the arrays, into
 * one block laid out as perf's perf_bpil) → the records, to the caller's
 * emit, with the zeroed sample_id trailer; the block, its array pointers
 * made offsets, and the program's BTF (BPF_BTF_GET_FD_BY_ID, raw) →
 * opts->bpf_progs. /proc/kallsyms → the trampolines' and dispatchers'
 * KSYMBOLs.
 *
 * Raw bpf(2) through <linux/bpf.h>, no libbpf: the only BTF read here is a
 * function's name by type id, which a walk of the type section gives.
 *
 * Threads: the caller's; opts->bpf_progs belongs to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "precord/synthesize.h"
#include "precord/util.h"
#include "synthesize-internal.h"

#ifndef PERF_RECORD_KSYMBOL_TYPE_BPF
#define PERF_RECORD_KSYMBOL_TYPE_BPF	1
#endif
#ifndef PERF_BPF_EVENT_PROG_LOAD
#define PERF_BPF_EVENT_PROG_LOAD	1
#endif

#define BPIL_MAX_DATA	(64u << 20)	/* one program's arrays: far beyond any real one */
#define BTF_MAX_SIZE	(64u << 20)

/* perf's perf_bpil: the info and its arrays in one block (bpf-utils.h). */
struct perf_bpil {
	u32			info_len;	/* sizeof(struct bpf_prog_info) of the writer */
	u32			data_len;	/* the arrays, each padded to 8 bytes */
	u64			arrays;		/* which arrays data holds: 1 << BPIL_* */
	struct bpf_prog_info	info;
	u8			data[];
};

/* perf's array numbers (enum perf_bpil_array_types): the bits of `arrays`. */
enum {
	BPIL_JITED_INSNS, BPIL_XLATED_INSNS, BPIL_MAP_IDS, BPIL_JITED_KSYMS,
	BPIL_JITED_FUNC_LENS, BPIL_FUNC_INFO, BPIL_LINE_INFO, BPIL_JITED_LINE_INFO,
	BPIL_PROG_TAGS, BPIL_NR,
};

/* Where an array of bpf_prog_info lies: pointer, count, and record size (field or fixed). */
struct bpil_array {
	size_t	ptr_off;
	size_t	count_off;
	size_t	rec_size_off;	/* 0: rec_size below */
	u32	rec_size;
};

#define INFO_OFF(_f)	offsetof(struct bpf_prog_info, _f)
static const struct bpil_array bpil_arrays[BPIL_NR] = {
	[BPIL_JITED_INSNS]	= { INFO_OFF(jited_prog_insns), INFO_OFF(jited_prog_len), 0, 1 },
	[BPIL_XLATED_INSNS]	= { INFO_OFF(xlated_prog_insns), INFO_OFF(xlated_prog_len), 0, 1 },
	[BPIL_MAP_IDS]		= { INFO_OFF(map_ids), INFO_OFF(nr_map_ids), 0, 4 },
	[BPIL_JITED_KSYMS]	= { INFO_OFF(jited_ksyms), INFO_OFF(nr_jited_ksyms), 0, 8 },
	[BPIL_JITED_FUNC_LENS]	= { INFO_OFF(jited_func_lens), INFO_OFF(nr_jited_func_lens), 0, 4 },
	[BPIL_FUNC_INFO]	= { INFO_OFF(func_info), INFO_OFF(nr_func_info),
				    INFO_OFF(func_info_rec_size), 0 },
	[BPIL_LINE_INFO]	= { INFO_OFF(line_info), INFO_OFF(nr_line_info),
				    INFO_OFF(line_info_rec_size), 0 },
	[BPIL_JITED_LINE_INFO]	= { INFO_OFF(jited_line_info), INFO_OFF(nr_jited_line_info),
				    INFO_OFF(jited_line_info_rec_size), 0 },
	[BPIL_PROG_TAGS]	= { INFO_OFF(prog_tags), INFO_OFF(nr_prog_tags), 0, BPF_TAG_SIZE },
};

/* The arrays perf record asks for. */
#define BPIL_WANTED	((1u << BPIL_JITED_KSYMS) | (1u << BPIL_JITED_FUNC_LENS) | \
			 (1u << BPIL_FUNC_INFO) | (1u << BPIL_PROG_TAGS) | \
			 (1u << BPIL_JITED_INSNS) | (1u << BPIL_LINE_INFO) | \
			 (1u << BPIL_JITED_LINE_INFO))

static u32 *info__u32(struct bpf_prog_info *info, size_t off)
{
	return (u32 *)((u8 *)info + off);
}

static u64 *info__u64(struct bpf_prog_info *info, size_t off)
{
	return (u64 *)((u8 *)info + off);
}

static u32 bpil_array__rec_size(const struct bpil_array *a, struct bpf_prog_info *info)
{
	return a->rec_size_off ? *info__u32(info, a->rec_size_off) : a->rec_size;
}

/* ---- bpf(2) ------------------------------------------------------------ */

static int sbpf(const struct synth_opts *o, int cmd, union bpf_attr *attr)
{
	long r;

	if (o->bpf)
		return o->bpf(o->bpf_ctx, cmd, attr, sizeof(*attr));
	r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));
	return r < 0 ? -errno : (int)r;
}

static int sbpf__next_prog(const struct synth_opts *o, u32 id, u32 *next)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.start_id = id;
	err = sbpf(o, BPF_PROG_GET_NEXT_ID, &attr);
	if (!err)
		*next = attr.next_id;
	return err;
}

static int sbpf__fd_by_id(const struct synth_opts *o, int cmd, u32 id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_PROG_GET_FD_BY_ID)
		attr.prog_id = id;
	else
		attr.btf_id = id;
	return sbpf(o, cmd, &attr);
}

/* BPF_OBJ_GET_INFO_BY_FD into info of *len bytes; *len: what the kernel filled. */
static int sbpf__info(const struct synth_opts *o, int fd, void *info, u32 *len)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (u32)fd;
	attr.info.info_len = *len;
	attr.info.info = (u64)(uintptr_t)info;
	err = sbpf(o, BPF_OBJ_GET_INFO_BY_FD, &attr);
	if (!err)
		*len = attr.info.info_len;
	return err;
}

/* ---- a program's info, as perf_bpil ------------------------------------ */

/*
 * The info of the program at fd with the arrays perf record asks for,
 * their pointers into the block's data: *out, or -errno. An array the
 * kernel does not know (info shorter than its fields) is left out, as
 * perf leaves it; a count that changed between the two calls is -EAGAIN.
 */
static int bpil__fetch(const struct synth_opts *o, int fd, struct perf_bpil **out)
{
	struct bpf_prog_info info;
	struct perf_bpil *lin;
	u32 len = sizeof(info), arrays = BPIL_WANTED;
	u64 data_len = 0, pos = 0;
	int i, err;

	memset(&info, 0, sizeof(info));
	err = sbpf__info(o, fd, &info, &len);
	if (err)
		return err;
	for (i = 0; i < BPIL_NR; i++) {
		const struct bpil_array *a = &bpil_arrays[i];

		if (!(arrays & (1u << i)))
			continue;
		if (len < a->ptr_off + 8 || len < a->count_off + 4 ||
		    (a->rec_size_off && len < a->rec_size_off + 4)) {
			arrays &= ~(1u << i);
			continue;
		}
		data_len += ((u64)*info__u32(&info, a->count_off) *
			     bpil_array__rec_size(a, &info) + 7) & ~7ull;
	}
	if (data_len > BPIL_MAX_DATA)
		return -E2BIG;
	lin = calloc(1, sizeof(*lin) + data_len);
	if (!lin)
		return -ENOMEM;
	for (i = 0; i < BPIL_NR; i++) {
		const struct bpil_array *a = &bpil_arrays[i];
		u32 count = *info__u32(&info, a->count_off), size = bpil_array__rec_size(a, &info);

		if (!(arrays & (1u << i)))
			continue;
		*info__u32(&lin->info, a->count_off) = count;
		if (a->rec_size_off)
			*info__u32(&lin->info, a->rec_size_off) = size;
		*info__u64(&lin->info, a->ptr_off) = (u64)(uintptr_t)(lin->data + pos);
		pos += ((u64)count * size + 7) & ~7ull;
	}
	err = sbpf__info(o, fd, &lin->info, &len);
	for (i = 0; !err && i < BPIL_NR; i++) {
		const struct bpil_array *a = &bpil_arrays[i];

		if ((arrays & (1u << i)) &&
		    (*info__u32(&lin->info, a->count_off) != *info__u32(&info, a->count_off) ||
		     bpil_array__rec_size(a, &lin->info) != bpil_array__rec_size(a, &info)))
			err = -EAGAIN;
	}
	if (err) {
		free(lin);
		return err;
	}
	lin->info_len = sizeof(lin->info);
	lin->data_len = (u32)data_len;
	lin->arrays = arrays;
	*out = lin;
	return 0;
}

/* The array pointers made offsets into data: the block as the header holds it. */
static void bpil__to_offsets(struct perf_bpil *lin)
{
	int i;

	for (i = 0; i < BPIL_NR; i++) {
		u64 *p = info__u64(&lin->info, bpil_arrays[i].ptr_off);

		if (lin->arrays & (1u << i))
			*p -= (u64)(uintptr_t)lin->data;
	}
}

/* ---- BTF: a function's name by type id ---------------------------------- */

struct btf_view {
	const u8	*types;
	u32		types_len;
	const char	*strs;
	u32		strs_len;
};

static int btf_view__init(struct btf_view *v, const u8 *data, u32 size)
{
	struct btf_header h;

	if (size < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > size ||
	    (u64)h.type_off + h.type_len > size - h.hdr_len ||
	    (u64)h.str_off + h.str_len > size - h.hdr_len)
		return -EINVAL;
	v->types = data + h.hdr_len + h.type_off;
	v->types_len = h.type_len;
	v->strs = (const char *)data + h.hdr_len + h.str_off;
	v->strs_len = h.str_len;
	return 0;
}

/* The bytes that follow a type's struct btf_type, by kind; -1: a kind not known. */
static long btf_type__extra(u32 info)
{
	u32 vlen = BTF_INFO_VLEN(info);

	switch (BTF_INFO_KIND(info)) {
	case BTF_KIND_INT:	 return 4;
	case BTF_KIND_PTR:	 case BTF_KIND_FWD:	 case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:	 case BTF_KIND_CONST:	 case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:	 case BTF_KIND_FLOAT:	 case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:	 return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:	 case BTF_KIND_UNION:
		return (long)vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:	 return (long)vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_VAR:	 return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:	 return (long)vlen * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:	 return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:	 return (long)vlen * (long)sizeof(struct btf_enum64);
	default:		 return -1;
	}
}

/* The name of type id (ids count from 1), or NULL. */
static const char *btf_view__name(const struct btf_view *v, u32 id)
{
	struct btf_type t;
	size_t pos = 0;
	u32 i;
	long extra;

	for (i = 1; pos + sizeof(t) <= v->types_len; i++) {
		memcpy(&t, v->types + pos, sizeof(t));
		if (i == id) {
			if (t.name_off >= v->strs_len ||
			    !memchr(v->strs + t.name_off, '\0', v->strs_len - t.name_off))
				return NULL;
			return v->strs + t.name_off;
		}
		extra = btf_type__extra(t.info);
		if (extra < 0)
			return NULL;
		pos += sizeof(t) + (size_t)extra;
	}
	return NULL;
}

/* BTF object id, raw, as the header holds it ({u32 id, u32 size, raw}): *out. */
static int btf__fetch(const struct synth_opts *o, u32 id, u8 **out, size_t *out_size)
{
	struct bpf_btf_info info;
	u32 len = sizeof(info), size;
	u8 *blob = NULL;
	int fd, err;

	fd = sbpf__fd_by_id(o, BPF_BTF_GET_FD_BY_ID, id);
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	err = sbpf__info(o, fd, &info, &len);
	size = info.btf_size;
	if (!err && (size > BTF_MAX_SIZE || !size))
		err = -E2BIG;
	if (!err && !(blob = malloc(8 + (size_t)size)))
		err = -ENOMEM;
	if (!err) {
		memset(&info, 0, sizeof(info));
		info.btf = (u64)(uintptr_t)(blob + 8);
		info.btf_size = size;
		len = sizeof(info);
		err = sbpf__info(o, fd, &info, &len);
		if (!err && info.btf_size != size)
			err = -EAGAIN;
	}
	close(fd);
	if (err) {
		free(blob);
		return err;
	}
	memcpy(blob, &id, 4);
	memcpy(blob + 4, &size, 4);
	*out = blob;
	*out_size = 8 + (size_t)size;
	return 0;
}

/* ---- what the header keeps ------------------------------------------------ */

/* data into the blobs sorted by id: 1, 0 when id is there already (data not taken), -ENOMEM. */
static int bpf_blobs__insert(struct bpf_blob **blobs, int *nr, int *alloc, u32 id,
			     u8 *data, size_t size)
{
	int lo = 0, hi = *nr;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if ((*blobs)[mid].id == id)
			return 0;
		if ((*blobs)[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (*nr == *alloc) {
		int n = *alloc ? 2 * *alloc : 16;
		struct bpf_blob *b = realloc(*blobs, (size_t)n * sizeof(*b));

		if (!b)
			return -ENOMEM;
		*blobs = b;
		*alloc = n;
	}
	memmove(*blobs + lo + 1, *blobs + lo, (size_t)(*nr - lo) * sizeof(**blobs));
	(*blobs)[lo] = (struct bpf_blob){ .id = id, .size = size, .data = data };
	(*nr)++;
	return 1;
}

static void bpf_blobs__free(struct bpf_blob *blobs, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		free(blobs[i].data);
	free(blobs);
}

void bpf_progs__exit(struct bpf_progs *p)
{
	if (!p)
		return;
	bpf_blobs__free(p->infos, p->nr_infos);
	bpf_blobs__free(p->btfs, p->nr_btfs);
	memset(p, 0, sizeof(*p));
}

static const struct bpf_blob *bpf_progs__find_btf(const struct bpf_progs *p, u32 id)
{
	int i;

	for (i = 0; p && i < p->nr_btfs; i++)
		if (p->btfs[i].id == id)
			return &p->btfs[i];
	return NULL;
}

/* ---- the records --------------------------------------------------------- */

static int synth__ksymbol(struct synth *s, u64 addr, u32 len, const char *name)
{
	struct perf_record_ksymbol *ev = (struct perf_record_ksymbol *)s->rec;
	size_t off = offsetof(struct perf_record_ksymbol, name);

	memset(ev, 0, off);
	ev->header.type = PERF_RECORD_KSYMBOL;
	ev->addr = addr;
	ev->len = len;
	ev->ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	return synth__emit(s, off + synth__put_str(ev->name, name, KSYM_NAME_LEN));
}

static int synth__bpf_event(struct synth *s, const struct bpf_prog_info *info)
{
	struct perf_record_bpf_event *ev = (struct perf_record_bpf_event *)s->rec;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_BPF_EVENT;
	ev->type = PERF_BPF_EVENT_PROG_LOAD;
	ev->id = info->id;
	memcpy(ev->tag, info->tag, sizeof(ev->tag));
	return synth__emit(s, sizeof(*ev));
}

/*
 * Function i's symbol name, as perf names it: "bpf_prog_" and its tag in
 * hex, then "_" and its BTF name, or the program's name when it is its only
 * function, or "F" for one of several without BTF. -EINVAL: BTF without it.
 */
static int bpf__sym_name(char *buf, size_t size, const struct bpf_prog_info *info,
			 const struct btf_view *btf, u32 i)
{
	const u8 *tag = (const u8 *)(uintptr_t)info->prog_tags + (size_t)i * BPF_TAG_SIZE;
	const char *short_name = NULL;
	int n, k;

	n = snprintf(buf, size, "bpf_prog_");
	for (k = 0; k < BPF_TAG_SIZE; k++)
		n += snprintf(buf + n, size - (size_t)n, "%02x", tag[k]);
	if (btf) {
		const struct bpf_func_info *fi = (const void *)((const u8 *)(uintptr_t)info->func_info +
								(size_t)i * info->func_info_rec_size);

		short_name = btf_view__name(btf, fi->type_id);
		if (!short_name)
			return -EINVAL;
	} else if (info->nr_jited_ksyms == 1) {
		if (info->name[0])
			short_name = info->name;
	} else {
		short_name = "F";
	}
	if (short_name)
		snprintf(buf + n, size - (size_t)n, "_%s", short_name);
	return 0;
}

/*
 * The program's BTF when its functions are named from it (func_info, one
 * per function): read into *btf, and kept in opts->bpf_progs (which then
 * owns it) or in *owned. 0 when it has none; -errno.
 */
static int synth__prog_btf(struct synth *s, const struct bpf_prog_info *info,
			   struct btf_view *btf, bool *has, u8 **owned)
{
	struct bpf_progs *p = s->o->bpf_progs;
	const struct bpf_blob *kept;
	size_t size;
	u8 *blob;
	int err;

	*has = false;
	*owned = NULL;
	if (!info->btf_id || !info->nr_func_info || !info->func_info_rec_size)
		return 0;
	if (info->nr_func_info != info->nr_jited_ksyms ||
	    info->func_info_rec_size < sizeof(struct bpf_func_info))
		return -EINVAL;
	kept = bpf_progs__find_btf(p, info->btf_id);
	if (kept) {
		blob = kept->data;
		size = kept->size;
	} else {
		err = btf__fetch(s->o, info->btf_id, &blob, &size);
		if (err)
			return err;
		err = p ? bpf_blobs__insert(&p->btfs, &p->nr_btfs, &p->alloc_btfs,
					    info->btf_id, blob, size) : 0;
		if (err < 0) {
			free(blob);
			return err;
		}
		if (!p)
			*owned = blob;
	}
	err = btf_view__init(btf, blob + 8, (u32)(size - 8));
	*has = !err;
	return err;
}

/*
 * One program: its KSYMBOLs, its BPF_EVENT, its info kept. 0 (also when
 * it is skipped: not JITed, addresses hidden, counts that disagree), or
 * an emit error or -ENOMEM.
 */
static int synth__prog(struct synth *s, int fd)
{
	struct bpf_progs *p = s->o->bpf_progs;
	char name[KSYM_NAME_LEN];
	struct perf_bpil *lin;
	struct bpf_prog_info *info;
	struct btf_view btf;
	u8 *btf_owned = NULL;
	bool has_btf;
	u32 i, nr;
	int err = bpil__fetch(s->o, fd, &lin);

	if (err)
		return err == -ENOMEM ? err : 0;
	info = &lin->info;
	nr = info->nr_jited_ksyms;
	/* not JITed, or its addresses are hidden from this user: nothing to say */
	if (!info->jited_ksyms || !nr || nr != info->nr_prog_tags || nr != info->nr_jited_func_lens)
		goto out;
	err = synth__prog_btf(s, info, &btf, &has_btf, &btf_owned);
	if (err) {
		err = err == -ENOMEM ? err : 0;
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (bpf__sym_name(name, sizeof(name), info, has_btf ? &btf : NULL, i))
			goto out;
	for (i = 0; !err && i < nr; i++) {
		const u64 *addrs = (const u64 *)(uintptr_t)info->jited_ksyms;
		const u32 *lens = (const u32 *)(uintptr_t)info->jited_func_lens;

		bpf__sym_name(name, sizeof(name), info, has_btf ? &btf : NULL, i);
		err = synth__ksymbol(s, addrs[i], lens[i], name);
	}
	if (err || !s->o->bpf_event)
		goto out;
	err = synth__bpf_event(s, info);
	if (!err && p) {
		bpil__to_offsets(lin);
		err = bpf_blobs__insert(&p->infos, &p->nr_infos, &p->alloc_infos, info->id,
					(u8 *)lin, sizeof(*lin) + lin->data_len);
		if (err > 0)
			lin = NULL;
		err = err < 0 ? err : 0;
	}
out:
	free(btf_owned);
	free(lin);
	return err;
}

/* perf reads the JIT images of /proc/kallsyms's [bpf] module too: trampolines, dispatchers. */
static int synth__bpf_images(struct synth *s)
{
	const char *path = SYNTH_PATH(s->o, kallsyms, "/proc/kallsyms");
	long page = sysconf(_SC_PAGESIZE);
	struct line_reader *r;
	char *line, *sym, *mod;
	u64 addr;
	int err = 0;

	r = line_reader__open(path, &err);
	if (!r)
		return err;
	while (!err && (line = line_reader__next(r))) {
		/* "ffffffffc0001000 t bpf_trampoline_6442\t[bpf]" */
		mod = strchr(line, '\t');
		if (!mod || strcmp(mod + 1, "[bpf]"))
			continue;
		*mod = '\0';
		sym = synth__parse_num(line, 16, &addr, ' ');
		if (!sym || !sym[0] || sym[1] != ' ' || !addr)
			continue;
		sym += 2;
		if ((!strncmp(sym, "bpf_trampoline_", 15) && sym[15] >= '0' && sym[15] <= '9') ||
		    (!strncmp(sym, "bpf_dispatcher_", 15) && sym[15]))
			err = synth__ksymbol(s, addr, (u32)page, sym);
	}
	line_reader__close(r);
	return err;
}

int synthesize__bpf(const struct synth_opts *o, synth_emit_fn emit, void *ctx, bool *listed)
{
	struct synth s;
	u32 id = 0;
	int fd, err = synth__init(&s, o, emit, ctx);

	if (err)
		return err;
	if (listed)
		*listed = true;
	while (!err) {
		err = sbpf__next_prog(o, id, &id);
		if (err)
			break;
		fd = sbpf__fd_by_id(o, BPF_PROG_GET_FD_BY_ID, id);
		if (fd < 0)
			continue;	/* unloaded since it was listed */
		err = synth__prog(&s, fd);
		close(fd);
	}
	if (err == -ENOENT)		/* past the last id */
		err = 0;
	if (err == -EPERM || err == -EINVAL || err == -ENOSYS) {
		if (listed)
			*listed = false;
		err = 0;
	}
	if (s.emit_err)
		return s.emit_err;
	/*
	 * The images are the kernel's, described even when the programs may
	 * not be listed; a kallsyms that cannot be read has none, as perf
	 * goes on without them.
	 */
	synth__bpf_images(&s);
	return s.emit_err ? s.emit_err : err;
}
