// SPDX-License-Identifier: GPL-2.0
/*
 * test_synthesize_bpf.c — the BPF programs' records and header blocks,
 * checked two ways: against a fake bpf(2) (injected through
 * synth_opts.bpf) that plays programs of known ids, tags, names,
 * functions and BTF, programs unloaded during the walk, and a user who may
 * not list programs, with a kallsyms fixture for the trampolines and
 * dispatchers; and against the running kernel, with a program this test
 * loads (root only).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <cmocka.h>

#include "precord/synthesize.h"
#include "helpers.h"

#define ID_HDR	24
#define MAX_FD	4096

/* ---- a fake bpf(2) ---- */

struct fake_prog {
	u32		id;
	const char	*name;
	u32		nr_funcs;
	u32		btf_id;		/* 0: none; else func_info with types 3, 4, ... */
	bool		gone;		/* unloaded between GET_NEXT_ID and GET_FD_BY_ID */
	bool		hidden;		/* addresses hidden (jited_ksyms zeroed, as for a user) */
};

struct fake_bpf {
	const struct fake_prog	*progs;
	int			nr;
	int			next_err;	/* GET_NEXT_ID fails with it (0: no) */
	u8			btf[256];	/* the raw BTF of every btf_id */
	u32			btf_size;
	int			btf_fetches;
	int			fd_kind[MAX_FD];	/* 1 + prog index, or -btf_id */
};

static void prog_tag(u32 id, u32 func, u8 *tag)
{
	int i;

	for (i = 0; i < BPF_TAG_SIZE; i++)
		tag[i] = (u8)(id * 16 + func * 4 + (u32)i);
}

static u64 func_addr(u32 id, u32 func)
{
	return 0xffffffffc0000000ull + id * 0x1000 + func * 0x100;
}

/* int; int (void); FUNC "fn_a" 3, FUNC "fn_b" 4 */
static u32 fake_btf__build(u8 *out)
{
	static const char strs[] = "\0int\0fn_a\0fn_b";
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h) };
	struct btf_type t[4];
	u32 int_enc = (BTF_INT_SIGNED << 24) | 32, off = 0;

	memset(t, 0, sizeof(t));
	t[0] = (struct btf_type){ .name_off = 1, .info = BTF_KIND_INT << 24, .size = 4 };
	t[1] = (struct btf_type){ .info = BTF_KIND_FUNC_PROTO << 24, .type = 1 };
	t[2] = (struct btf_type){ .name_off = 5, .info = BTF_KIND_FUNC << 24, .type = 2 };
	t[3] = (struct btf_type){ .name_off = 10, .info = BTF_KIND_FUNC << 24, .type = 2 };
	h.type_len = 4 * sizeof(t[0]) + sizeof(int_enc);
	h.str_off = h.type_len;
	h.str_len = sizeof(strs);
	memcpy(out, &h, sizeof(h));
	off = sizeof(h);
	memcpy(out + off, &t[0], sizeof(t[0]));
	off += sizeof(t[0]);
	memcpy(out + off, &int_enc, sizeof(int_enc));
	off += sizeof(int_enc);
	memcpy(out + off, &t[1], 3 * sizeof(t[0]));
	off += 3 * sizeof(t[0]);
	memcpy(out + off, strs, sizeof(strs));
	return off + sizeof(strs);
}

static int fake__new_fd(struct fake_bpf *f, int kind)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fd >= MAX_FD)
		return -EMFILE;
	f->fd_kind[fd] = kind;
	return fd;
}

/* As the kernel fills an array: the actual count back, min(user's, actual) entries. */
static void fill_array(u64 ptr, u32 *count, u32 actual, size_t size,
		      void (*put)(void *dst, u32 i, const void *arg), const void *arg)
{
	u32 i, n = *count < actual ? *count : actual;

	if (ptr)
		for (i = 0; i < n; i++)
			put((u8 *)(uintptr_t)ptr + i * size, i, arg);
	*count = actual;
}

static void put_addr(void *dst, u32 i, const void *arg)
{
	u64 a = func_addr(((const struct fake_prog *)arg)->id, i);

	memcpy(dst, &a, 8);
}

static void put_len(void *dst, u32 i, const void *arg)
{
	u32 l = 16 + i;

	(void)arg;
	memcpy(dst, &l, 4);
}

static void put_tag(void *dst, u32 i, const void *arg)
{
	prog_tag(((const struct fake_prog *)arg)->id, i, dst);
}

static void put_finfo(void *dst, u32 i, const void *arg)
{
	struct bpf_func_info fi = { .insn_off = i * 2, .type_id = 3 + i };

	(void)arg;
	memcpy(dst, &fi, sizeof(fi));
}

static void put_byte(void *dst, u32 i, const void *arg)
{
	(void)arg;
	*(u8 *)dst = (u8)(0xcc + i);
}

static int fake__prog_info(struct fake_bpf *f, const struct fake_prog *p, union bpf_attr *attr)
{
	struct bpf_prog_info *info = (void *)(uintptr_t)attr->info.info;
	u32 n = p->nr_funcs;

	(void)f;
	assert_true(attr->info.info_len == sizeof(*info));
	info->id = p->id;
	prog_tag(p->id, 99, info->tag);
	snprintf(info->name, sizeof(info->name), "%s", p->name);
	info->type = BPF_PROG_TYPE_SOCKET_FILTER;
	info->btf_id = p->btf_id;
	fill_array(info->jited_prog_insns, &info->jited_prog_len, 10, 1, put_byte, p);
	fill_array(info->xlated_prog_insns, &info->xlated_prog_len, 16, 1, put_byte, p);
	if (p->hidden)
		info->jited_ksyms = 0;
	fill_array(info->jited_ksyms, &info->nr_jited_ksyms, n, 8, put_addr, p);
	fill_array(info->jited_func_lens, &info->nr_jited_func_lens, n, 4, put_len, p);
	fill_array(info->prog_tags, &info->nr_prog_tags, n, BPF_TAG_SIZE, put_tag, p);
	if (p->btf_id) {
		info->func_info_rec_size = sizeof(struct bpf_func_info);
		fill_array(info->func_info, &info->nr_func_info, n, sizeof(struct bpf_func_info),
			   put_finfo, p);
	}
	attr->info.info_len = sizeof(*info);
	return 0;
}

static int fake__btf_info(struct fake_bpf *f, union bpf_attr *attr)
{
	struct bpf_btf_info *info = (void *)(uintptr_t)attr->info.info;

	if (info->btf)
		memcpy((void *)(uintptr_t)info->btf, f->btf,
		       info->btf_size < f->btf_size ? info->btf_size : f->btf_size);
	info->btf_size = f->btf_size;
	f->btf_fetches += info->btf != 0;
	return 0;
}

static int fake_bpf(void *ctx, int cmd, void *a, unsigned int size)
{
	struct fake_bpf *f = ctx;
	union bpf_attr *attr = a;
	int i, kind;

	assert_int_equal(size, sizeof(*attr));
	switch (cmd) {
	case BPF_PROG_GET_NEXT_ID:
		if (f->next_err)
			return f->next_err;
		for (i = 0; i < f->nr; i++)
			if (f->progs[i].id > attr->start_id) {
				attr->next_id = f->progs[i].id;
				return 0;
			}
		return -ENOENT;
	case BPF_PROG_GET_FD_BY_ID:
		for (i = 0; i < f->nr; i++)
			if (f->progs[i].id == attr->prog_id)
				return f->progs[i].gone ? -ENOENT : fake__new_fd(f, 1 + i);
		return -ENOENT;
	case BPF_BTF_GET_FD_BY_ID:
		return fake__new_fd(f, -(int)attr->btf_id);
	case BPF_OBJ_GET_INFO_BY_FD:
		kind = f->fd_kind[attr->info.bpf_fd];
		if (kind > 0)
			return fake__prog_info(f, &f->progs[kind - 1], attr);
		return fake__btf_info(f, attr);
	default:
		return -EINVAL;
	}
}

/* ---- the fixture ---- */

struct fixture {
	char			dir[256];
	char			kallsyms[300];
	struct synth_paths	paths;
	struct synth_opts	o;
	struct fake_bpf		fake;
	struct collector	c;
	struct bpf_progs	progs;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(tmpdir__make(fx->dir, sizeof(fx->dir), "/tmp", "bpf"), 0);
	tmpdir__path(fx->dir, "kallsyms", fx->kallsyms, sizeof(fx->kallsyms));
	file__put_text(fx->kallsyms,
		       "ffffffff81000000 T _text\n"
		       "ffffffffc0001000 t bpf_prog_0123456789abcdef_x\t[bpf]\n"
		       "ffffffffc0002000 t bpf_trampoline_6442\t[bpf]\n"
		       "ffffffffc0003000 t bpf_dispatcher_xdp\t[bpf]\n"
		       "ffffffffc0004000 t bpf_dispatcher_\t[bpf]\n"
		       "ffffffffc0005000 t bpf_trampoline_6443\t[other]\n");
	fx->paths.kallsyms = fx->kallsyms;
	synth_opts__init(&fx->o);
	fx->o.id_hdr_size = ID_HDR;
	fx->o.paths = &fx->paths;
	fx->o.bpf = fake_bpf;
	fx->o.bpf_ctx = &fx->fake;
	fx->o.bpf_event = true;
	fx->o.bpf_progs = &fx->progs;
	fx->fake.btf_size = fake_btf__build(fx->fake.btf);
	collector__init(&fx->c);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	collector__reset(&fx->c);
	free(fx->c.recs);
	bpf_progs__exit(&fx->progs);
	tmpdir__remove(fx->dir);
	free(fx);
	return 0;
}

/* ---- checks ---- */

static void tag_hex(u32 id, u32 func, char *out)
{
	u8 tag[BPF_TAG_SIZE];
	int i;

	prog_tag(id, func, tag);
	for (i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(out + 2 * i, "%02x", tag[i]);
}

/* Record i is a KSYMBOL of addr, len and name, its trailer zeroed, its size exact. */
static void assert_ksymbol(const struct collector *c, size_t i, u64 addr, u32 len,
			   const char *name)
{
	const struct perf_record_ksymbol *k = (const void *)c->recs[i].data;
	size_t fixed = offsetof(struct perf_record_ksymbol, name);
	size_t want = fixed + ((strlen(name) + 1 + 7) & ~(size_t)7) + ID_HDR, j;

	assert_true(i < c->nr);
	assert_int_equal(k->header.type, PERF_RECORD_KSYMBOL);
	assert_int_equal(k->header.size, want);
	assert_int_equal(c->recs[i].size, want);
	assert_true(k->addr == addr);
	assert_int_equal(k->len, len);
	assert_int_equal(k->ksym_type, 1);	/* PERF_RECORD_KSYMBOL_TYPE_BPF */
	assert_int_equal(k->flags, 0);
	assert_string_equal(k->name, name);
	for (j = fixed + strlen(name); j < want; j++)
		assert_int_equal(c->recs[i].data[j], 0);
}

static void assert_bpf_event(const struct collector *c, size_t i, u32 id)
{
	const struct perf_record_bpf_event *e = (const void *)c->recs[i].data;
	u8 tag[BPF_TAG_SIZE];
	size_t j;

	assert_true(i < c->nr);
	assert_int_equal(e->header.type, PERF_RECORD_BPF_EVENT);
	assert_int_equal(e->header.size, sizeof(*e) + ID_HDR);
	assert_int_equal(e->type, 1);		/* PERF_BPF_EVENT_PROG_LOAD */
	assert_int_equal(e->flags, 0);
	assert_int_equal(e->id, id);
	prog_tag(id, 99, tag);
	assert_memory_equal(e->tag, tag, BPF_TAG_SIZE);
	for (j = sizeof(*e); j < sizeof(*e) + ID_HDR; j++)
		assert_int_equal(c->recs[i].data[j], 0);
}

/* The images of the kallsyms fixture: a trampoline and a dispatcher, a page each. */
static void assert_images(const struct collector *c, size_t i)
{
	long page = sysconf(_SC_PAGESIZE);

	assert_int_equal(c->nr, i + 2);
	assert_ksymbol(c, i, 0xffffffffc0002000ull, (u32)page, "bpf_trampoline_6442");
	assert_ksymbol(c, i + 1, 0xffffffffc0003000ull, (u32)page, "bpf_dispatcher_xdp");
}

static char *sym_name(u32 id, u32 func, const char *suffix)
{
	static char buf[4][128];
	static int n;
	char hex[2 * BPF_TAG_SIZE + 1];
	char *b = buf[n++ % 4];

	tag_hex(id, func, hex);
	snprintf(b, sizeof(buf[0]), "bpf_prog_%s%s%s", hex, suffix ? "_" : "", suffix ? suffix : "");
	return b;
}

/*
 * The header block of program id as perf reads it (header.c's
 * process_bpf_prog_info): info_len, data_len, the arrays bits, the info,
 * each array at its offset into data.
 */
static void assert_info_blob(const struct bpf_blob *b, u32 id, u32 nr_funcs, bool btf)
{
	struct { u32 info_len, data_len; u64 arrays; } head;
	struct bpf_prog_info info;
	const u8 *data = b->data + sizeof(head) + sizeof(info);
	u64 addr;
	u32 len, i;
	u8 tag[BPF_TAG_SIZE];

	assert_int_equal(b->id, id);
	memcpy(&head, b->data, sizeof(head));
	memcpy(&info, b->data + sizeof(head), sizeof(info));
	assert_int_equal(head.info_len, sizeof(info));
	assert_int_equal(b->size, sizeof(head) + sizeof(info) + head.data_len);
	assert_int_equal(head.data_len % 8, 0);
	/* jited insns, ksyms, func lens, func info, line info, jited line info, tags */
	assert_true(head.arrays == ((1u << 0) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) |
				    (1u << 7) | (1u << 8)));
	assert_int_equal(info.id, id);
	assert_int_equal(info.nr_jited_ksyms, nr_funcs);
	assert_true(info.jited_ksyms + nr_funcs * 8 <= head.data_len);
	assert_true(info.prog_tags + nr_funcs * BPF_TAG_SIZE <= head.data_len);
	assert_true(info.jited_prog_insns + 10 <= head.data_len);
	assert_int_equal(info.jited_prog_len, 10);
	assert_int_equal(data[info.jited_prog_insns + 9], 0xcc + 9);
	/* not asked for: no array, though the kernel gives its count */
	assert_true(info.xlated_prog_insns == 0);
	assert_int_equal(info.xlated_prog_len, 16);
	for (i = 0; i < nr_funcs; i++) {
		memcpy(&addr, data + info.jited_ksyms + 8 * i, 8);
		memcpy(&len, data + info.jited_func_lens + 4 * i, 4);
		assert_true(addr == func_addr(id, i));
		assert_int_equal(len, 16 + i);
		prog_tag(id, i, tag);
		assert_memory_equal(data + info.prog_tags + BPF_TAG_SIZE * i, tag, BPF_TAG_SIZE);
	}
	assert_int_equal(info.nr_func_info, btf ? nr_funcs : 0);
}

/* ---- the tests ---- */

/*
 * Programs 3 (one function, named), 7 (gone before its fd was taken) and
 * 9 (two functions, no BTF): 3's KSYMBOL and BPF_EVENT, 9's two "_F"
 * KSYMBOLs and BPF_EVENT, the images; their info kept, 7 nowhere.
 */
static void test_fake_programs(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 3, .name = "alpha", .nr_funcs = 1 },
		{ .id = 7, .name = "gone", .nr_funcs = 1, .gone = true },
		{ .id = 9, .name = "beta", .nr_funcs = 2 },
	};
	struct fixture *fx = *state;
	bool listed = false;
	int fds = fds__count();

	fx->fake.progs = progs;
	fx->fake.nr = 3;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, &listed), 0);
	assert_true(listed);
	assert_int_equal(fds__count(), fds);	/* every fd it took, closed */
	assert_ksymbol(&fx->c, 0, func_addr(3, 0), 16, sym_name(3, 0, "alpha"));
	assert_bpf_event(&fx->c, 1, 3);
	assert_ksymbol(&fx->c, 2, func_addr(9, 0), 16, sym_name(9, 0, "F"));
	assert_ksymbol(&fx->c, 3, func_addr(9, 1), 17, sym_name(9, 1, "F"));
	assert_bpf_event(&fx->c, 4, 9);
	assert_images(&fx->c, 5);
	assert_int_equal(fx->progs.nr_infos, 2);
	assert_info_blob(&fx->progs.infos[0], 3, 1, false);
	assert_info_blob(&fx->progs.infos[1], 9, 2, false);
	assert_int_equal(fx->progs.nr_btfs, 0);

	/* a second walk (the next --switch-output file) keeps each program once */
	collector__reset(&fx->c);
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	assert_int_equal(fx->c.nr, 7);
	assert_int_equal(fx->progs.nr_infos, 2);
}

/* A program without a name, one function: its tag alone; hidden addresses: skipped. */
static void test_fake_unnamed_and_hidden(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 4, .name = "", .nr_funcs = 1 },
		{ .id = 5, .name = "hidden", .nr_funcs = 1, .hidden = true },
	};
	struct fixture *fx = *state;

	fx->fake.progs = progs;
	fx->fake.nr = 2;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	assert_ksymbol(&fx->c, 0, func_addr(4, 0), 16, sym_name(4, 0, NULL));
	assert_bpf_event(&fx->c, 1, 4);
	assert_images(&fx->c, 2);
	assert_int_equal(fx->progs.nr_infos, 1);
}

/*
 * Two programs sharing BTF 12 with func_info: their functions named from
 * it, the BTF kept once ({id, size, raw}), read once.
 */
static void test_fake_btf(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 20, .name = "main_name", .nr_funcs = 2, .btf_id = 12 },
		{ .id = 21, .name = "other", .nr_funcs = 1, .btf_id = 12 },
	};
	struct fixture *fx = *state;
	const struct bpf_blob *b;
	u32 v;

	fx->fake.progs = progs;
	fx->fake.nr = 2;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	assert_ksymbol(&fx->c, 0, func_addr(20, 0), 16, sym_name(20, 0, "fn_a"));
	assert_ksymbol(&fx->c, 1, func_addr(20, 1), 17, sym_name(20, 1, "fn_b"));
	assert_bpf_event(&fx->c, 2, 20);
	assert_ksymbol(&fx->c, 3, func_addr(21, 0), 16, sym_name(21, 0, "fn_a"));
	assert_bpf_event(&fx->c, 4, 21);
	assert_info_blob(&fx->progs.infos[0], 20, 2, true);
	assert_int_equal(fx->progs.nr_btfs, 1);
	assert_int_equal(fx->fake.btf_fetches, 1);
	b = &fx->progs.btfs[0];
	assert_int_equal(b->id, 12);
	assert_int_equal(b->size, 8 + fx->fake.btf_size);
	memcpy(&v, b->data, 4);
	assert_int_equal(v, 12);
	memcpy(&v, b->data + 4, 4);
	assert_int_equal(v, fx->fake.btf_size);
	assert_memory_equal(b->data + 8, fx->fake.btf, fx->fake.btf_size);
}

/* BTF whose type section lies about its size: the program is skipped, the walk goes on. */
static void test_fake_bad_btf(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 30, .name = "bad", .nr_funcs = 1, .btf_id = 13 },
		{ .id = 31, .name = "good", .nr_funcs = 1 },
	};
	struct fixture *fx = *state;
	struct btf_header h;

	memcpy(&h, fx->fake.btf, sizeof(h));
	h.type_len = 4096;
	memcpy(fx->fake.btf, &h, sizeof(h));
	fx->fake.progs = progs;
	fx->fake.nr = 2;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	assert_ksymbol(&fx->c, 0, func_addr(31, 0), 16, sym_name(31, 0, "good"));
	assert_bpf_event(&fx->c, 1, 31);
	assert_images(&fx->c, 2);
}

/* --no-bpf-event, as perf: the KSYMBOLs and the BTF, no BPF_EVENT, no info kept. */
static void test_fake_no_bpf_event(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 3, .name = "alpha", .nr_funcs = 1 },
		{ .id = 20, .name = "main_name", .nr_funcs = 2, .btf_id = 12 },
	};
	struct fixture *fx = *state;

	fx->fake.progs = progs;
	fx->fake.nr = 2;
	fx->o.bpf_event = false;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	assert_ksymbol(&fx->c, 0, func_addr(3, 0), 16, sym_name(3, 0, "alpha"));
	assert_ksymbol(&fx->c, 1, func_addr(20, 0), 16, sym_name(20, 0, "fn_a"));
	assert_ksymbol(&fx->c, 2, func_addr(20, 1), 17, sym_name(20, 1, "fn_b"));
	assert_images(&fx->c, 3);
	assert_int_equal(fx->progs.nr_infos, 0);
	assert_int_equal(fx->progs.nr_btfs, 1);
}

/*
 * A user who may not list programs (EPERM), a kernel without bpf(2)
 * (EINVAL, ENOSYS): no program, no error, *listed false; the images still.
 * Another failure of the walk is returned.
 */
static void test_fake_not_listed(void **state)
{
	static const struct fake_prog progs[] = { { .id = 3, .name = "alpha", .nr_funcs = 1 } };
	static const int quiet[] = { -EPERM, -EINVAL, -ENOSYS };
	struct fixture *fx = *state;
	bool listed;
	size_t i;

	fx->fake.progs = progs;
	fx->fake.nr = 1;
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		collector__reset(&fx->c);
		fx->fake.next_err = quiet[i];
		listed = true;
		assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, &listed), 0);
		assert_false(listed);
		assert_images(&fx->c, 0);
		assert_int_equal(fx->progs.nr_infos, 0);
	}
	collector__reset(&fx->c);
	fx->fake.next_err = -EFAULT;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, &listed), -EFAULT);
	assert_true(listed);
}

/* The first emit failure stops the walk and comes back as it is; bad options are -EINVAL. */
static void test_fake_emit_fails(void **state)
{
	static const struct fake_prog progs[] = {
		{ .id = 3, .name = "alpha", .nr_funcs = 1 },
		{ .id = 9, .name = "beta", .nr_funcs = 2 },
	};
	struct fixture *fx = *state;
	int at;

	fx->fake.progs = progs;
	fx->fake.nr = 2;
	for (at = 1; at <= 7; at++) {
		collector__reset(&fx->c);
		fx->c.fail_at = at;
		fx->c.fail_err = -ENOSPC;
		assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), -ENOSPC);
		assert_int_equal(fx->c.calls, at);
	}
	fx->o.id_hdr_size = 4;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), -EINVAL);
}

/* ---- the running kernel ---- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* "r0 = 0; exit", named name: its fd, or -1. */
static int load_prog(const char *name)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (u64)(uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (u64)(uintptr_t)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/* A program this test loads, found by its id among the kernel's, named as perf names it. */
static void test_real_program(void **state)
{
	struct fixture *fx = *state;
	struct bpf_prog_info info;
	union bpf_attr attr;
	char want[64], hex[2 * BPF_TAG_SIZE + 1];
	size_t i, ksym = SIZE_MAX, event = SIZE_MAX;
	int fd, k;

	fd = load_prog("prec_unit");
	if (fd < 0) {
		print_message("skipped: cannot load a BPF program (%s)\n", strerror(errno));
		skip();
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (u32)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (u64)(uintptr_t)&info;
	assert_int_equal(sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr), 0);
	for (k = 0; k < BPF_TAG_SIZE; k++)
		sprintf(hex + 2 * k, "%02x", info.tag[k]);
	snprintf(want, sizeof(want), "bpf_prog_%s_prec_unit", hex);

	fx->o.bpf = NULL;
	fx->o.paths = NULL;
	assert_int_equal(synthesize__bpf(&fx->o, collector__emit, &fx->c, NULL), 0);
	for (i = 0; i < fx->c.nr; i++) {
		const struct perf_event_header *h = collector__hdr(&fx->c, i);

		if (h->type == PERF_RECORD_KSYMBOL &&
		    !strcmp(((const struct perf_record_ksymbol *)h)->name, want))
			ksym = i;
		if (h->type == PERF_RECORD_BPF_EVENT &&
		    ((const struct perf_record_bpf_event *)h)->id == info.id)
			event = i;
	}
	assert_true(ksym != SIZE_MAX);
	assert_int_equal(event, ksym + 1);
	assert_memory_equal(((const struct perf_record_bpf_event *)fx->c.recs[event].data)->tag,
			    info.tag, BPF_TAG_SIZE);
	for (i = 0; i < (size_t)fx->progs.nr_infos; i++)
		if (fx->progs.infos[i].id == info.id)
			break;
	assert_true(i < (size_t)fx->progs.nr_infos);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fake_programs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_unnamed_and_hidden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_bad_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_no_bpf_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_not_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_emit_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_program, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
