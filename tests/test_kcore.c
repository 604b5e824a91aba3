// SPDX-License-Identifier: GPL-2.0
/*
 * test_kcore.c — --kcore's copy of the kernel's text (src/kcore.c), from a
 * made-up /proc: a kcore (an x86-64 ELF core file with the segments the
 * kernel's has: its text, the module area, an entry trampoline mapped from
 * the text's bytes, the direct map, a note), kallsyms and modules. The
 * copy's program headers and bytes are checked against what the ranges
 * must be, the failures leave nothing behind, and, where stock perf is
 * installed, the copy is byte for byte perf's own: `perf buildid-cache
 * --kcore` runs perf's kcore_copy() over the same made-up /proc.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "precord/kcore.h"
#include "precord/output.h"
#include "precord/util.h"
#include "helpers.h"

#define TEXT	0xffffffff81000000ull	/* _stext */
#define MODS	0xffffffffc0000000ull	/* the module area */
#define TRAMP	0xfffffe0000006000ull	/* an entry trampoline's page */
#define DIRECT	0xffff888000000000ull

struct tdir {
	char	path[TMPDIR_PATH_SIZE];	/* first: a tmpdir__fixture() */
	char	proc[PATH_MAX];
	char	out[PATH_MAX];
};

/* A source segment: its address, size, flags and offset in the made-up kcore. */
struct seg {
	u64	vaddr, size, offset;
	u32	flags;
};

/* The byte at offset off of the made-up kcore: a pattern no two pages share. */
static unsigned char pattern(u64 off)
{
	return (unsigned char)(off * 7 + off / 4096 * 13 + 1);
}

/* A kcore of these segments (plus a PT_NOTE first), each filled with pattern(). */
static void make_kcore(const char *path, const struct seg *segs, int nr)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = nr + 1,
	};
	Elf64_Phdr note = { .p_type = PT_NOTE, .p_offset = 0x1000, .p_filesz = 16 };
	unsigned char buf[4096];
	int fd, i;
	u64 off, n, j;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	assert_int_equal(pwrite(fd, &note, sizeof(note), sizeof(eh)), sizeof(note));
	for (i = 0; i < nr; i++) {
		Elf64_Phdr ph = {
			.p_type = PT_LOAD, .p_flags = segs[i].flags, .p_offset = segs[i].offset,
			.p_vaddr = segs[i].vaddr, .p_filesz = segs[i].size, .p_memsz = segs[i].size,
			.p_align = 4096,
		};

		assert_int_equal(pwrite(fd, &ph, sizeof(ph), sizeof(eh) + (i + 1) * sizeof(ph)),
				 sizeof(ph));
		for (off = segs[i].offset; off < segs[i].offset + segs[i].size; off += n) {
			n = segs[i].offset + segs[i].size - off;
			if (n > sizeof(buf))
				n = sizeof(buf);
			for (j = 0; j < n; j++)
				buf[j] = pattern(off + j);
			assert_int_equal(pwrite(fd, buf, n, off), (ssize_t)n);
		}
	}
	close(fd);
}

/*
 * The kernel's segments: its text from a page below _stext, the module
 * area, the trampoline's page mapping bytes inside the text's, the direct
 * map (not executable: never copied).
 */
static const struct seg std_segs[] = {
	{ TEXT - 0x1000, 0x10000, 0x100000, PF_R | PF_W | PF_X },
	{ MODS, 0x8000, 0x200000, PF_R | PF_W | PF_X },
	{ TRAMP, 0x2000, 0x100000 + 0x3000, PF_R | PF_W | PF_X },
	{ DIRECT, 0x4000, 0x300000, PF_R | PF_W },
};

static void make_proc(struct tdir *t, const char *kallsyms, const char *modules)
{
	char path[PATH_MAX];

	file__put_text(tmpdir__path(t->proc, "kallsyms", path, sizeof(path)), kallsyms);
	file__put_text(tmpdir__path(t->proc, "modules", path, sizeof(path)), modules);
	make_kcore(tmpdir__path(t->proc, "kcore", path, sizeof(path)), std_segs,
		   (int)ARRAY_SIZE(std_segs));
}

static char std_kallsyms[1024];
static const char std_modules[] =
	"mod_b 16384 0 - Live 0xffffffffc0005000\n"
	"mod_a 16384 0 - Live 0xffffffffc0000000 (OE)\n";

static int setup(void **state)
{
	struct tdir *t = tmpdir__fixture(sizeof(*t), "kcore");

	if (!t)
		return -1;
	snprintf(t->proc, sizeof(t->proc), "%s/proc", t->path);
	snprintf(t->out, sizeof(t->out), "%s/kcore_dir", t->path);
	if (mkdir(t->proc, 0700))
		return -1;
	snprintf(std_kallsyms, sizeof(std_kallsyms),
		 "%016llx T _stext\n%016llx t foo\n%016llx D some_data\n%016llx T bar\n"
		 "%016llx T _etext\n%016llx T __entry_SYSCALL_64_trampoline\n"
		 "%016llx t mod_fn\t[mod_a]\n%016llx T mod_fn2\t[mod_b]\n",
		 TEXT, TEXT + 0x100, TEXT + 0x5000, TEXT + 0x2000, TEXT + 0x3456, TRAMP,
		 MODS + 0x1010, MODS + 0x5020);
	*state = t;
	return 0;
}

static void read_file(const char *path, void *buf, size_t len, off_t off)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

static bool same_files(const char *a, const char *b)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* The copy's segment i is addr..addr+len, its bytes those at src_off in the source. */
static void assert_phdr(const char *kcore, int i, u64 addr, u64 len, u64 src_off)
{
	Elf64_Phdr ph;
	unsigned char *buf = malloc(len);
	u64 j;

	assert_non_null(buf);
	read_file(kcore, &ph, sizeof(ph), sizeof(Elf64_Ehdr) + i * sizeof(ph));
	assert_int_equal(ph.p_type, PT_LOAD);
	assert_int_equal(ph.p_flags, PF_R | PF_W | PF_X);
	assert_int_equal(ph.p_vaddr, addr);
	assert_int_equal(ph.p_filesz, len);
	assert_int_equal(ph.p_memsz, len);
	assert_int_equal(ph.p_offset % 4096, 0);
	read_file(kcore, buf, len, (off_t)ph.p_offset);
	for (j = 0; j < len; j++)
		if (buf[j] != pattern(src_off + j))
			fail_msg("segment %d: byte %llu is not the source's", i, (unsigned long long)j);
	free(buf);
}

/*
 * The kernel's text from _stext to _etext rounded up, the modules' from
 * the lowest module to a page past the highest module symbol, the
 * trampoline's page to its segment's end, sharing the text's bytes; the
 * direct map left out. kallsyms and modules are copied as they are.
 */
static void test_copy(void **state)
{
	struct tdir *t = *state;
	char path[PATH_MAX], kcore[PATH_MAX], from[PATH_MAX];
	char msg[512] = "";
	Elf64_Ehdr eh;
	struct stat st;

	make_proc(t, std_kallsyms, std_modules);
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), 0);
	tmpdir__path(t->out, "kcore", kcore, sizeof(kcore));
	read_file(kcore, &eh, sizeof(eh), 0);
	assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh.e_type, ET_CORE);
	assert_int_equal(eh.e_machine, EM_X86_64);
	assert_int_equal(eh.e_phnum, 3);
	assert_int_equal(eh.e_shnum, 0);
	/* _stext..round_up(_etext): 4 pages, one page into the text's segment */
	assert_phdr(kcore, 0, TEXT, 0x4000, 0x100000 + 0x1000);
	/* the lowest module (its taint flags after it) .. round_up(0x5020) + a page */
	assert_phdr(kcore, 1, MODS, 0x7000, 0x200000);
	/* the trampoline: its page to its segment's end, the text's bytes */
	assert_phdr(kcore, 2, TRAMP, 0x2000, 0x100000 + 0x3000);
	assert_int_equal(stat(kcore, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0400);
	assert_int_equal(st.st_size, 0x1000 + 0x4000 + 0x7000);	/* the trampoline's bytes once */
	assert_true(same_files(tmpdir__path(t->out, "kallsyms", path, sizeof(path)),
			       tmpdir__path(t->proc, "kallsyms", from, sizeof(from))));
	assert_true(same_files(tmpdir__path(t->out, "modules", path, sizeof(path)),
			       tmpdir__path(t->proc, "modules", from, sizeof(from))));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0400);
}

/*
 * Without _stext and _etext: the lowest function symbol to a page past the
 * highest; data symbols do not count. No modules: no module segment.
 */
static void test_no_stext(void **state)
{
	struct tdir *t = *state;
	char kallsyms[512], msg[512] = "", kcore[PATH_MAX];
	Elf64_Ehdr eh;

	snprintf(kallsyms, sizeof(kallsyms), "%016llx D early_data\n%016llx t foo\n"
		 "%016llx W bar\n%016llx d late_data\n", TEXT, TEXT + 0x1100, TEXT + 0x2010,
		 TEXT + 0x9000);
	make_proc(t, kallsyms, "");
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), 0);
	tmpdir__path(t->out, "kcore", kcore, sizeof(kcore));
	read_file(kcore, &eh, sizeof(eh), 0);
	assert_int_equal(eh.e_phnum, 1);
	assert_phdr(kcore, 0, TEXT + 0x1000, 0x3000, 0x100000 + 0x2000);
}

/* kallsyms as an unprivileged reader sees it (all zeros): one line, nothing left. */
static void test_hidden_addresses(void **state)
{
	struct tdir *t = *state;
	char msg[512] = "";

	make_proc(t, "0000000000000000 T _stext\n0000000000000000 t foo\n", std_modules);
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "kptr_restrict"));
	assert_null(strchr(msg, '\n'));
	assert_int_equal(access(t->out, F_OK), -1);
}

/* A kcore that is no ELF file, and a missing modules: errors that leave nothing. */
static void test_bad_sources(void **state)
{
	struct tdir *t = *state;
	char path[PATH_MAX], msg[512] = "";

	make_proc(t, std_kallsyms, std_modules);
	file__put_text(tmpdir__path(t->proc, "kcore", path, sizeof(path)), "not an ELF file\n");
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), -ENOEXEC);
	assert_non_null(strstr(msg, "not an ELF core file"));
	assert_int_equal(access(t->out, F_OK), -1);

	make_proc(t, std_kallsyms, std_modules);
	unlink(tmpdir__path(t->proc, "modules", path, sizeof(path)));
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "modules"));
	assert_int_equal(access(t->out, F_OK), -1);
}

/* The directory is never taken over: an existing one is refused and left as it was. */
static void test_existing_dir(void **state)
{
	struct tdir *t = *state;
	char path[PATH_MAX], msg[512] = "";

	make_proc(t, std_kallsyms, std_modules);
	assert_int_equal(mkdir(t->out, 0700), 0);
	file__put_text(tmpdir__path(t->out, "kcore", path, sizeof(path)), "mine\n");
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), -EEXIST);
	assert_int_equal(access(path, F_OK), 0);
}

/*
 * A recording directory with a kcore_dir is a recording's: kept aside as
 * FILE.old and removed as one; a kcore_dir holding anything else is not.
 */
static void test_recording_dir(void **state)
{
	struct tdir *t = *state;
	char rec[PATH_MAX], path[PATH_MAX], kdir[PATH_MAX], msg[512] = "";

	make_proc(t, std_kallsyms, std_modules);
	tmpdir__path(t->path, "rec", rec, sizeof(rec));
	assert_int_equal(mkdir(rec, 0700), 0);
	file__put_text(tmpdir__path(rec, "data", path, sizeof(path)), "x");
	tmpdir__path(rec, KCORE_DIR_NAME, kdir, sizeof(kdir));
	assert_int_equal(kcore__copy(t->proc, kdir, msg, sizeof(msg)), 0);
	assert_true(output__is_recording_dir(rec));
	file__put_text(tmpdir__path(kdir, "other", path, sizeof(path)), "x");
	assert_false(output__is_recording_dir(rec));
	unlink(path);
	assert_int_equal(output__remove_dir(rec, NULL), 0);
	assert_int_equal(access(rec, F_OK), -1);
}

/*
 * perf's own copy of the same made-up /proc, by `perf buildid-cache
 * --kcore` (perf's kcore_copy(); it wants the kernel's build id in
 * ../sys/kernel/notes), is the same three files, byte for byte.
 */
static void test_same_as_perf(void **state)
{
	struct tdir *t = *state;
	static const unsigned char note[] = {
		4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	};
	char cmd[4 * PATH_MAX], path[PATH_MAX], theirs[PATH_MAX], msg[512] = "";
	static const char *const names[] = { "kallsyms", "modules", "kcore" };
	struct rbuf b = { 0 };
	FILE *f;
	size_t i;

	if (system("perf version >/dev/null 2>&1")) {
		skip();
		return;
	}
	make_proc(t, std_kallsyms, std_modules);
	snprintf(path, sizeof(path), "%s/sys", t->path);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", t->path);
	assert_int_equal(mkdir(path, 0700), 0);
	rbuf__put(&b, note, sizeof(note));
	rbuf__write_file(&b, tmpdir__path(path, "notes", theirs, sizeof(theirs)));
	rbuf__release(&b);
	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/bid' buildid-cache --kcore '%s/kcore' "
		 ">/dev/null 2>&1 && ls -d '%s'/bid/*/*/*", t->path, t->proc, t->path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(theirs, sizeof(theirs), f));
	pclose(f);
	theirs[strcspn(theirs, "\n")] = '\0';
	assert_int_equal(kcore__copy(t->proc, t->out, msg, sizeof(msg)), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char a[PATH_MAX], c[PATH_MAX];

		if (!same_files(tmpdir__path(t->out, names[i], a, sizeof(a)),
				tmpdir__path(theirs, names[i], c, sizeof(c))))
			fail_msg("%s differs from perf's %s", a, c);
	}
}

#define kcore_test(f)	cmocka_unit_test_setup_teardown(f, setup, tmpdir__fixture_free)

int main(void)
{
	const struct CMUnitTest tests[] = {
		kcore_test(test_copy),
		kcore_test(test_no_stext),
		kcore_test(test_hidden_addresses),
		kcore_test(test_bad_sources),
		kcore_test(test_existing_dir),
		kcore_test(test_recording_dir),
		kcore_test(test_same_as_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
