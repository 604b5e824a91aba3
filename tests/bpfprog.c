// SPDX-License-Identifier: GPL-2.0
/*
 * bpfprog — loads two tiny socket-filter BPF programs and keeps them loaded
 * until it is killed: the workload of the tests of BPF program synthesis
 * (tests/integration/bpf_events.sh), on machines that have none loaded.
 *
 *   bpfprog PLAIN_NAME BTF_NAME
 *
 * PLAIN_NAME: "r0 = 0; exit", one function, no BTF: perf names its symbol
 * bpf_prog_<tag>_<PLAIN_NAME>.
 * BTF_NAME: a main function that calls a subprogram, with BTF and func_info
 * naming them "prec_main" and "prec_sub": two symbols, named from BTF.
 *
 * Prints "plain ID TAG" and "btf ID TAG BTF_ID" (tags in hex) on stdout,
 * then waits for a signal. Exit status 2 on bad arguments, 1 when a load
 * fails (with the kernel's verifier log on stderr).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>

static char log_buf[65536];

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

#define INSN(_code, _dst, _src, _off, _imm) \
	((struct bpf_insn){ .code = (_code), .dst_reg = (_dst), .src_reg = (_src), \
			    .off = (_off), .imm = (_imm) })
#define MOV_R0_0	INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0)
#define EXIT		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define CALL_REL(_n)	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, (_n))

/* int; int (void); static prec_main, prec_sub of that type. */
struct mini_btf {
	struct btf_header	hdr;
	struct btf_type		t_int;
	__u32			int_enc;
	struct btf_type		t_proto;
	struct btf_type		t_main;
	struct btf_type		t_sub;
	char			strs[24];
} __attribute__((packed));

static int btf__load(void)
{
	static const char strs[] = "\0int\0prec_main\0prec_sub";
	struct mini_btf b;
	union bpf_attr attr;

	memset(&b, 0, sizeof(b));
	b.hdr.magic = BTF_MAGIC;
	b.hdr.version = BTF_VERSION;
	b.hdr.hdr_len = sizeof(b.hdr);
	b.hdr.type_off = 0;
	b.hdr.type_len = offsetof(struct mini_btf, strs) - sizeof(b.hdr);
	b.hdr.str_off = b.hdr.type_len;
	b.hdr.str_len = sizeof(strs);
	b.t_int.name_off = 1;					/* type 1 */
	b.t_int.info = BTF_KIND_INT << 24;
	b.t_int.size = 4;
	b.int_enc = (BTF_INT_SIGNED << 24) | 32;
	b.t_proto.info = BTF_KIND_FUNC_PROTO << 24;		/* type 2 */
	b.t_proto.type = 1;
	b.t_main.name_off = 5;					/* type 3 */
	b.t_main.info = BTF_KIND_FUNC << 24;
	b.t_main.type = 2;
	b.t_sub.name_off = 15;					/* type 4 */
	b.t_sub.info = BTF_KIND_FUNC << 24;
	b.t_sub.type = 2;
	memcpy(b.strs, strs, sizeof(strs));

	memset(&attr, 0, sizeof(attr));
	attr.btf = (__u64)(unsigned long)&b;
	attr.btf_size = offsetof(struct mini_btf, strs) + sizeof(strs);
	attr.btf_log_buf = (__u64)(unsigned long)log_buf;
	attr.btf_log_size = sizeof(log_buf);
	attr.btf_log_level = 1;
	return sys_bpf(BPF_BTF_LOAD, &attr);
}

static int prog__load(const char *name, const struct bpf_insn *insns, unsigned int n,
		      int btf_fd, const struct bpf_func_info *finfo, unsigned int nr_finfo)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = n;
	attr.license = (__u64)(unsigned long)"GPL";
	attr.log_buf = (__u64)(unsigned long)log_buf;
	attr.log_size = sizeof(log_buf);
	attr.log_level = 1;
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	if (btf_fd >= 0) {
		attr.prog_btf_fd = (__u32)btf_fd;
		attr.func_info = (__u64)(unsigned long)finfo;
		attr.func_info_cnt = nr_finfo;
		attr.func_info_rec_size = sizeof(*finfo);
	}
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int prog__print(const char *what, int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	int i;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (__u32)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return -1;
	printf("%s %u ", what, info.id);
	for (i = 0; i < BPF_TAG_SIZE; i++)
		printf("%02x", info.tag[i]);
	if (info.btf_id)
		printf(" %u", info.btf_id);
	printf("\n");
	return 0;
}

static int fail(const char *what)
{
	fprintf(stderr, "bpfprog: %s: %s\n%s", what, strerror(errno), log_buf);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct bpf_insn plain[] = { MOV_R0_0, EXIT };
	static const struct bpf_insn calls[] = { CALL_REL(1), EXIT, MOV_R0_0, EXIT };
	static const struct bpf_func_info finfo[] = {
		{ .insn_off = 0, .type_id = 3 }, { .insn_off = 2, .type_id = 4 },
	};
	int plain_fd, btf_fd, calls_fd;

	if (argc != 3) {
		fprintf(stderr, "usage: bpfprog PLAIN_NAME BTF_NAME\n");
		return 2;
	}
	plain_fd = prog__load(argv[1], plain, 2, -1, NULL, 0);
	if (plain_fd < 0)
		return fail("loading the plain program");
	btf_fd = btf__load();
	if (btf_fd < 0)
		return fail("loading BTF");
	calls_fd = prog__load(argv[2], calls, 4, btf_fd, finfo, 2);
	if (calls_fd < 0)
		return fail("loading the program with BTF");
	if (prog__print("plain", plain_fd) || prog__print("btf", calls_fd))
		return fail("reading the programs' info");
	fflush(stdout);
	for (;;)
		pause();
}
