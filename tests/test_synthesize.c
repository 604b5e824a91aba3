// SPDX-License-Identifier: GPL-2.0
/*
 * test_synthesize.c — synthesis checked three ways: against this very
 * process (its threads, its binary and build id, its vdso), against the
 * running kernel (/proc/kallsyms, /proc/modules, /sys/kernel/notes, and
 * perf/readelf when installed), and against fixtures the test writes — a
 * fake /proc tree, kallsyms, modules, notes and hand-made 32/64-bit ELF
 * files — so every field of every record is known in advance. Timeouts use
 * an injected clock; emit failures are injected by the collector.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/threadmap.h"
#include "precord/util.h"
#include "helpers.h"

#define ID_HDR	24	/* e.g. TID | TIME | IDENTIFIER */

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

/* The part before the trailer must be exactly the fixed part + the padded string. */
static void check_string_part(const struct collected *r, size_t fixed, size_t id_hdr)
{
	const char *s = (const char *)r->data + fixed;
	size_t room = r->size - fixed - id_hdr, len;

	assert_true(r->size > fixed + id_hdr);
	len = strnlen(s, room);
	assert_true(len < room);			/* NUL-terminated */
	assert_int_equal(align8(len + 1), room);	/* padded to 8, no more */
	for (; len < room; len++)
		assert_int_equal(s[len], 0);
}

/*
 * Every record: size a multiple of 8 equal to header.size, the trailer all
 * zeros, the variable part exactly padded; the records walked by
 * header.size from a concatenated stream land on each record.
 */
static void check_stream(const struct collector *c, size_t id_hdr)
{
	unsigned char *stream = malloc(c->bytes ? c->bytes : 1);
	size_t i, off = 0, total = 0;

	assert_non_null(stream);
	for (i = 0; i < c->nr; i++) {
		const struct collected *r = &c->recs[i];
		const struct perf_event_header *h = collector__hdr(c, i);
		size_t j, trailer = id_hdr;

		assert_int_equal(r->size % 8, 0);
		assert_int_equal(h->size, r->size);
		switch (h->type) {
		case PERF_RECORD_COMM:
			check_string_part(r, offsetof(struct perf_record_comm, comm), id_hdr);
			break;
		case PERF_RECORD_FORK:
			assert_int_equal(r->size, sizeof(struct perf_record_fork) + id_hdr);
			break;
		case PERF_RECORD_MMAP:
			check_string_part(r, offsetof(struct perf_record_mmap, filename), id_hdr);
			break;
		case PERF_RECORD_MMAP2:
			check_string_part(r, offsetof(struct perf_record_mmap2, filename), id_hdr);
			break;
		case PERF_RECORD_NAMESPACES:
			assert_int_equal(r->size, sizeof(struct perf_record_namespaces) +
					 NR_NAMESPACES * sizeof(struct perf_ns_link_info) + id_hdr);
			break;
		case PERF_RECORD_CGROUP:
			check_string_part(r, offsetof(struct perf_record_cgroup, path), id_hdr);
			break;
		default:
			trailer = 0;	/* user records carry no sample_id */
		}
		for (j = r->size - trailer; j < r->size; j++)
			assert_int_equal(r->data[j], 0);
		memcpy(stream + total, r->data, r->size);
		total += r->size;
	}
	assert_int_equal(total, c->bytes);
	for (i = 0; off < total; i++) {
		const struct perf_event_header *h = (const void *)(stream + off);

		assert_true(h->size >= sizeof(*h));
		assert_int_equal(h->size, c->recs[i].size);
		off += h->size;
	}
	assert_int_equal(off, total);
	assert_int_equal(i, c->nr);
	free(stream);
}

static size_t count_type(const struct collector *c, u32 type)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr; i++)
		n += collector__hdr(c, i)->type == type;
	return n;
}

static const struct perf_record_comm *find_comm(const struct collector *c, pid_t tid, size_t *at)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		const struct perf_record_comm *ev = (const void *)c->recs[i].data;

		if (ev->header.type == PERF_RECORD_COMM && (pid_t)ev->tid == tid) {
			if (at)
				*at = i;
			return ev;
		}
	}
	return NULL;
}

static const struct perf_record_mmap2 *find_mmap2(const struct collector *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		const struct perf_record_mmap2 *ev = (const void *)c->recs[i].data;

		if (ev->header.type == PERF_RECORD_MMAP2 && !strcmp(ev->filename, name))
			return ev;
	}
	return NULL;
}

/* ---- files --------------------------------------------------------------- */

static char tmpdir[64];

static void mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static void write_bytes(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_text(const char *rel, const char *text)
{
	write_bytes(rel, text, strlen(text));
}

static const char *tpath(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int n;

	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", tmpdir, rel);
	return buf[n];
}

/* One ELF note at p (p aligned to align); returns its padded length. */
static size_t make_note(unsigned char *p, u32 type, const char *name,
			const void *desc, u32 descsz, size_t align)
{
	Elf64_Nhdr nh = { .n_namesz = (u32)strlen(name) + 1, .n_descsz = descsz, .n_type = type };
	size_t off;

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + sizeof(nh), name, nh.n_namesz);
	off = (sizeof(nh) + nh.n_namesz + align - 1) & ~(align - 1);
	memcpy(p + off, desc, descsz);
	return (off + descsz + align - 1) & ~(align - 1);
}

static size_t make_notes(unsigned char *p, const u8 *id, u32 idlen, size_t align)
{
	static const u32 abi[4] = { 0, 3, 2, 0 };
	size_t len = make_note(p, NT_GNU_ABI_TAG, "GNU", abi, sizeof(abi), align);

	len += make_note(p + len, 0x1234, "Other", abi, 6, align);
	if (idlen)
		len += make_note(p + len, NT_GNU_BUILD_ID, "GNU", id, idlen, align);
	return len;
}

#define NOTES_OFF	0x200
#define SHDR_OFF	0x400

/*
 * make_elf()'s headers in buf for one class, E, P and S its Ehdr, Phdr and
 * Shdr types (Elf32_ and Elf64_ name their fields alike; the 32-bit ones
 * are narrower): the notes of nlen bytes at NOTES_OFF in a section (rel)
 * or a PT_NOTE segment.
 */
#define PUT_ELF_HEADERS(E, P, S, machine, buf, rel, notes, nlen, align) do {		\
	E *eh_ = (E *)(buf);								\
	P ph_ = { .p_type = PT_NOTE, .p_offset = NOTES_OFF, .p_filesz = (nlen),		\
		  .p_memsz = (nlen), .p_align = (align) };				\
	S sh_ = { .sh_type = SHT_NOTE, .sh_offset = NOTES_OFF, .sh_size = (nlen),	\
		  .sh_addralign = (align) };						\
											\
	eh_->e_type = (rel) ? ET_REL : ET_DYN;						\
	eh_->e_machine = (machine);							\
	eh_->e_version = EV_CURRENT;							\
	eh_->e_ehsize = sizeof(*eh_);							\
	if ((rel) && (notes)) {								\
		eh_->e_shoff = SHDR_OFF;						\
		eh_->e_shnum = 2;							\
		eh_->e_shentsize = sizeof(sh_);						\
		memcpy((buf) + SHDR_OFF + sizeof(sh_), &sh_, sizeof(sh_));		\
	} else if (notes) {								\
		eh_->e_phoff = sizeof(*eh_);						\
		eh_->e_phnum = 1;							\
		eh_->e_phentsize = sizeof(ph_);						\
		memcpy((buf) + sizeof(*eh_), &ph_, sizeof(ph_));			\
	}										\
} while (0)

/*
 * A minimal ELF: notes at NOTES_OFF reached through one PT_NOTE program
 * header (rel = false) or through a section table only (rel = true, like a
 * kernel module). idlen 0: no build id note; notes = false: no note at all.
 */
static void make_elf(const char *rel_path, bool is64, bool rel, bool notes, size_t align,
		     const u8 *id, u32 idlen)
{
	unsigned char buf[SHDR_OFF + 2 * sizeof(Elf64_Shdr)] = { 0 };
	size_t nlen = notes ? make_notes(buf + NOTES_OFF, id, idlen, align) : 0;

	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	buf[EI_DATA] = ELFDATA2LSB;
	buf[EI_VERSION] = EV_CURRENT;
	if (is64)
		PUT_ELF_HEADERS(Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr, EM_X86_64, buf, rel, notes,
				nlen, align);
	else
		PUT_ELF_HEADERS(Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr, EM_386, buf, rel, notes,
				nlen, align);
	write_bytes(rel_path, buf, sizeof(buf));
}

static const u8 ID_A[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
			     11, 12, 13, 14, 15, 16 };
static const u8 ID_B[20] = { 0xb0, 0x0b, 0x1e, 0x55, 0xaa, 0x55, 1, 1, 2, 3, 5, 8, 13,
			     21, 34, 55, 89, 144, 233, 42 };
static const u8 ID_K[20] = { 0x4b, 0x45, 0x52, 0x4e, 0x45, 0x4c, 9, 9, 9, 9, 9, 9, 9, 9,
			     9, 9, 9, 9, 9, 9 };

/* ---- a fake /proc ----------------------------------------------------------- */

static const char *status_of(char *buf, size_t size, const char *name, int tgid, int pid,
			     int ppid, bool user)
{
	snprintf(buf, size,
		 "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\n"
		 "Pid:\t%d\nPPid:\t%d\nTracerPid:\t0\nFDSize:\t64\n%sThreads:\t2\n"
		 "SigQ:\t0/63712\n", name, tgid, pid, ppid,
		 user ? "VmPeak:\t   10000 kB\nVmSize:\t   10000 kB\n" : "");
	return buf;
}

/* Lines the fixture's maps hold, and what perf makes of them. */
static const char FAKE_MAPS[] =
	"00400000-00401000 r--p 00000000 fd:01 1234                       /usr/bin/fake-precord-test\n"
	"00401000-00402000 r-xp 00001000 fd:01 1234                       /usr/bin/fake-precord-test\n"
	"00600000-00601000 rw-p 00002000 fd:01 1234                       /usr/bin/fake-precord-test\n"
	"7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
	"7f0000100000-7f0000200000 r-xs 00000000 00:10 77                 /dev/hugepages/seg (deleted)\n"
	"this line is garbage\n"
	"7f0000300000-7f0000301000 r-xp 00000000 fd:01 99                 /opt/my app/lib x.so (deleted)\n"
	"7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0                  [vdso]\n"
	"7ffff7fd0000-7ffff7fd1000 ---p 00000000 00:00 0 \n"
	"7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0                  [stack]";	/* no '\n' */

static void make_fake_proc(void)
{
	char buf[1024];

	write_text("proc/100/task/100/status", status_of(buf, sizeof(buf), "fake-leader", 100, 100, 42, true));
	write_text("proc/100/task/101/status",
		   status_of(buf, sizeof(buf), "worker with a very long name", 100, 101, 42, true));
	write_text("proc/100/status", status_of(buf, sizeof(buf), "fake-leader", 100, 100, 42, true));
	write_text("proc/101/status",
		   status_of(buf, sizeof(buf), "worker with a very long name", 100, 101, 42, true));
	write_text("proc/100/task/100/maps", FAKE_MAPS);
	/* a kernel thread: no VmPeak; its maps are never read */
	write_text("proc/200/task/200/status", status_of(buf, sizeof(buf), "kworker/0:1", 200, 200, 2, false));
	write_text("proc/200/status", status_of(buf, sizeof(buf), "kworker/0:1", 200, 200, 2, false));
	write_text("proc/200/task/200/maps", FAKE_MAPS);
	/* a process that vanished: its task directory is empty */
	mkdirs(tpath("proc/300/task"));
	mkdirs(tpath("proc/abc"));
	mkdirs(tpath("proc/self"));
}

/* ---- kernel fixtures ------------------------------------------------------ */

static void make_fake_kernel(void)
{
	unsigned char notes[256] = { 0 };
	size_t len;

	write_text("kallsyms",
		   "ffffffffa0000000 T _stext\n"
		   "ffffffffa0000000 T _text\n"
		   "ffffffffa0001000 t some_function\n"
		   "ffffffffa0f00000 D _etext\n"		/* not a function: perf 6.1 ignores it */
		   "ffffffffc0101000 t ext4_fill_super\t[ext4]\n");
	write_text("kallsyms-etext",
		   "ffffffffa0000000 T _text\n"
		   "ffffffffa0001000 t _etext\t[amodule]\n"	/* a module's: ignored */
		   "ffffffffa0800000 T _etext\n");
	write_text("kallsyms-stext",
		   "ffffffffa0000000 T _stext\n"
		   "ffffffffa0800000 T _etext\n");
	write_text("kallsyms-hidden",
		   "0000000000000000 T _stext\n"
		   "0000000000000000 T _text\n"
		   "0000000000000000 T _etext\n");
	write_text("kallsyms-none", "ffffffffa0001000 t some_function\n");
	write_text("modules",
		   "snd_hda_intel 53248 0 - Live 0xffffffffc0200000\n"
		   "ext4 1011712 2 - Live 0xffffffffc0100000 (E)\n"
		   "nomod 4096 0 - Live 0xffffffffc0300000\n");
	write_text("modules-hidden", "ext4 1011712 2 - Live 0x0000000000000000\n");
	write_text("lib/modules/test/modules.dep",
		   "kernel/fs/mbcache.ko.xz:\n"
		   "kernel/fs/ext4/ext4.ko.xz: kernel/fs/mbcache.ko.xz kernel/fs/jbd2/jbd2.ko.xz\n"
		   "kernel/sound/pci/hda/snd-hda-intel.ko: kernel/sound/core/snd.ko\n");
	/* ext4 loaded: its build id from sysfs; snd-hda-intel from its .ko */
	len = make_notes(notes, ID_A, 20, 4);
	write_bytes("sys/module/ext4/notes/.note.gnu.build-id", notes + len - 36, 36);
	make_elf("lib/modules/test/kernel/sound/pci/hda/snd-hda-intel.ko", true, true, true, 4, ID_B, 20);
	len = make_notes(notes, ID_K, 20, 4);
	write_bytes("kernel-notes", notes, len);
}

static int group_setup(void **state)
{
	if (tmpdir__make(tmpdir, sizeof(tmpdir), "/tmp", "synthesize"))
		return -1;
	make_fake_proc();
	make_fake_kernel();
	return 0;
}

static int group_teardown(void **state)
{
	return tmpdir__remove(tmpdir);
}

static struct synth_paths fake_paths(void)
{
	static char proc[PATH_MAX], kallsyms[PATH_MAX], modules[PATH_MAX], moddir[PATH_MAX],
		    sysmod[PATH_MAX], notes[PATH_MAX];

	snprintf(proc, sizeof(proc), "%s/proc", tmpdir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", tmpdir);
	snprintf(modules, sizeof(modules), "%s/modules", tmpdir);
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/test", tmpdir);
	snprintf(sysmod, sizeof(sysmod), "%s/sys/module", tmpdir);
	snprintf(notes, sizeof(notes), "%s/kernel-notes", tmpdir);
	return (struct synth_paths){ .proc = proc, .kallsyms = kallsyms, .modules = modules,
				     .modules_dir = moddir, .sys_module = sysmod,
				     .kernel_notes = notes };
}

static void opts_init(struct synth_opts *o, size_t id_hdr)
{
	synth_opts__init(o);
	o->id_hdr_size = id_hdr;
}

/* ---- threads of this process -------------------------------------------- */

struct workers {
	pthread_t		t[3];
	pid_t			tid[3];
	pthread_barrier_t	ready;
	int			stop[2];	/* a pipe: closing it releases the workers */
};

struct worker_arg {
	struct workers	*w;
	int		i;
};

static struct worker_arg worker_args[3];

static void *worker(void *p)
{
	struct worker_arg *a = p;
	char name[32], c;

	snprintf(name, sizeof(name), "synthw%d", a->i);
	pthread_setname_np(pthread_self(), name);
	a->w->tid[a->i] = gettid();
	pthread_barrier_wait(&a->w->ready);
	while (read(a->w->stop[0], &c, 1) > 0)
		;
	return NULL;
}

static void workers__start(struct workers *w)
{
	int i;

	assert_int_equal(pipe(w->stop), 0);
	pthread_barrier_init(&w->ready, NULL, 4);
	for (i = 0; i < 3; i++) {
		worker_args[i] = (struct worker_arg){ .w = w, .i = i };
		assert_int_equal(pthread_create(&w->t[i], NULL, worker, &worker_args[i]), 0);
	}
	pthread_barrier_wait(&w->ready);
}

static void workers__stop(struct workers *w)
{
	int i;

	close(w->stop[1]);
	for (i = 0; i < 3; i++)
		pthread_join(w->t[i], NULL);
	close(w->stop[0]);
	pthread_barrier_destroy(&w->ready);
}

static void read_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)size, f));
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int self_tasks(pid_t *tids, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && n < max)
			tids[n++] = atoi(de->d_name);
	closedir(d);
	return n;
}

static void self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	assert_true(n > 0);
	buf[n] = '\0';
}

/* The build id readelf prints for path, as hex; false when readelf is missing. */
static bool readelf_build_id(const char *path, char *hex, size_t size)
{
	char cmd[PATH_MAX + 64], line[512];
	bool found = false;
	FILE *p;

	if (access("/usr/bin/readelf", X_OK))
		return false;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");

		if (b && !found) {
			snprintf(hex, size, "%s", b + 10);
			hex[strcspn(hex, "\n")] = '\0';
			found = true;
		}
	}
	pclose(p);
	return found;
}

/* ---- tests: this process ------------------------------------------------- */

static void check_self_tasks(const struct collector *c, const struct workers *w)
{
	pid_t tids[16], me = getpid();
	int n = self_tasks(tids, 16), i;

	/* ours and the 3 workers (a sanitizer may run a thread of its own) */
	assert_true(n >= 4);
	assert_int_equal(count_type(c, PERF_RECORD_FORK), n);
	assert_int_equal(count_type(c, PERF_RECORD_COMM), n);
	for (i = 0; i < n; i++) {
		const struct perf_record_fork *f;
		const struct perf_record_comm *cm;
		char comm[32];
		size_t at;

		cm = find_comm(c, tids[i], &at);
		assert_non_null(cm);
		assert_int_equal(cm->pid, me);
		read_comm(tids[i], comm, sizeof(comm));
		assert_string_equal(cm->comm, comm);
		/* perf's order: the task's FORK right before its COMM */
		assert_true(at > 0);
		f = (const void *)c->recs[at - 1].data;
		assert_int_equal(f->header.type, PERF_RECORD_FORK);
		assert_int_equal(f->header.misc, PERF_RECORD_MISC_FORK_EXEC);
		assert_int_equal(f->tid, tids[i]);
		assert_int_equal(f->pid, me);
		assert_int_equal(f->time, 0);
		if (tids[i] == me) {
			assert_int_equal(f->ppid, getppid());
			assert_int_equal(f->ptid, getppid());
		} else {
			assert_int_equal(f->ppid, me);
			assert_int_equal(f->ptid, me);
		}
	}
	for (i = 0; i < 3; i++) {
		char want[32];

		snprintf(want, sizeof(want), "synthw%d", i);
		assert_string_equal(find_comm(c, w->tid[i], NULL)->comm, want);
	}
}

/* The MMAP2s follow the leader's COMM, all of them, and map this test's code. */
static const struct perf_record_mmap2 *check_self_maps(const struct collector *c)
{
	u64 code = (u64)(uintptr_t)&check_self_maps;
	const struct perf_record_mmap2 *exe = NULL;
	char path[PATH_MAX];
	size_t at = 0, i;

	self_exe(path, sizeof(path));
	assert_non_null(find_comm(c, getpid(), &at));
	assert_true(count_type(c, PERF_RECORD_MMAP2) >= 3);
	for (i = at + 1; i < at + 1 + count_type(c, PERF_RECORD_MMAP2); i++) {
		const struct perf_record_mmap2 *ev = (const void *)c->recs[i].data;

		assert_int_equal(ev->header.type, PERF_RECORD_MMAP2);
		assert_int_equal(ev->header.misc & PERF_RECORD_MISC_CPUMODE_MASK,
				 PERF_RECORD_MISC_USER);
		assert_int_equal(ev->pid, getpid());
		assert_int_equal(ev->tid, getpid());
		assert_true(ev->prot & PROT_EXEC);
		assert_false(ev->header.misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
		if (!strcmp(ev->filename, path) && code >= ev->start && code < ev->start + ev->len)
			exe = ev;
	}
	assert_non_null(exe);
	assert_int_equal(exe->flags, MAP_PRIVATE);
	return exe;
}

static void test_self_process(void **state)
{
	const struct perf_record_mmap2 *exe, *vdso;
	char path[PATH_MAX], hex[64], want[64];
	struct synth_opts o;
	struct collector c = { 0 };
	struct workers w;
	u8 id[BUILD_ID_SIZE];
	int len;

	opts_init(&o, ID_HDR);
	o.build_id = true;
	workers__start(&w);
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	check_self_tasks(&c, &w);
	exe = check_self_maps(&c);

	/* the binary's MMAP2 carries its build id, as read from the file */
	self_exe(path, sizeof(path));
	len = buildid__read("/proc/self/exe", id, sizeof(id));
	assert_true(len > 0);
	assert_int_equal(exe->header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(exe->build_id_size, len);
	assert_memory_equal(exe->build_id, id, (size_t)len);
	assert_int_equal(exe->__reserved_1, 0);
	assert_int_equal(exe->__reserved_2, 0);
	buildid__snprintf(exe->build_id, exe->build_id_size, hex, sizeof(hex));
	if (readelf_build_id(path, want, sizeof(want)))
		assert_string_equal(hex, want);

	/* [vdso] has no file: the maj/min/ino form, no build id flag */
	if (getauxval(AT_SYSINFO_EHDR)) {
		vdso = find_mmap2(&c, "[vdso]");
		assert_non_null(vdso);
		assert_int_equal(vdso->header.misc, PERF_RECORD_MISC_USER);
		assert_int_equal(vdso->ino, 0);
	}
	workers__stop(&w);
	collector__reset(&c);
}

static void test_self_process_no_buildid(void **state)
{
	const struct perf_record_mmap2 *exe;
	struct synth_opts o;
	struct collector c = { 0 };
	struct workers w;
	struct stat st;

	opts_init(&o, 0);
	workers__start(&w);
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &c), 0);
	check_stream(&c, 0);
	check_self_tasks(&c, &w);
	exe = check_self_maps(&c);
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	assert_int_equal(exe->header.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(exe->ino, st.st_ino);
	assert_int_equal(makedev(exe->maj, exe->min), st.st_dev);
	assert_int_equal(exe->ino_generation, 0);
	workers__stop(&w);
	collector__reset(&c);
}

static struct thread_map *tmap(const pid_t *tids, int nr)
{
	struct thread_map *m = calloc(1, sizeof(*m) + (size_t)nr * sizeof(pid_t));

	assert_non_null(m);
	m->refcnt = 1;
	m->nr = nr;
	memcpy(m->map, tids, (size_t)nr * sizeof(pid_t));
	return m;
}

/* -t on a non-leader: COMM of it, then its leader's COMM and maps; no FORK. */
static void test_self_thread_map(void **state)
{
	struct collector c = { 0 };
	struct thread_map *m;
	struct synth_opts o;
	struct workers w;
	char comm[32];
	size_t at;

	opts_init(&o, 8);
	workers__start(&w);
	m = tmap(&w.tid[1], 1);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_int_equal(count_type(&c, PERF_RECORD_FORK), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_COMM), 2);
	assert_non_null(find_comm(&c, w.tid[1], &at));
	assert_int_equal(at, 0);
	read_comm(getpid(), comm, sizeof(comm));
	assert_string_equal(find_comm(&c, getpid(), &at)->comm, comm);
	assert_int_equal(at, 1);
	assert_int_equal(count_type(&c, PERF_RECORD_MMAP2), c.nr - 2);
	assert_true(c.nr > 3);
	check_self_maps(&c);
	free(m);
	collector__reset(&c);

	/* the dummy map (-1) holds no task */
	m = tmap((pid_t[]){ -1 }, 1);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), 0);
	assert_int_equal(c.nr, 0);
	free(m);

	/* the forked workload's lone COMM */
	assert_int_equal(synthesize__comm(&o, w.tid[2], collector__emit, &c), 0);
	assert_int_equal(c.nr, 1);
	assert_string_equal(find_comm(&c, w.tid[2], NULL)->comm, "synthw2");
	assert_int_equal(find_comm(&c, w.tid[2], NULL)->pid, getpid());
	collector__reset(&c);
	workers__stop(&w);
}

static void test_self_gone(void **state)
{
	struct collector c = { 0 };
	struct synth_opts o;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	opts_init(&o, 8);
	assert_int_equal(synthesize__process(&o, pid, collector__emit, &c), -ESRCH);
	assert_int_equal(synthesize__thread(&o, pid, collector__emit, &c), -ESRCH);
	assert_int_equal(synthesize__comm(&o, pid, collector__emit, &c), -ESRCH);
	assert_int_equal(c.nr, 0);
	o.id_hdr_size = 12;	/* not a multiple of 8 */
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &c), -EINVAL);
}

/* ---- tests: fake /proc ---------------------------------------------------- */

struct want_map {
	u64		start;
	const char	*name;
	u32		prot, flags;
	u16		misc;
};

static void check_maps(const struct collector *c, size_t first, const struct want_map *want,
		       size_t nr, pid_t pid)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct perf_record_mmap2 *ev = (const void *)c->recs[first + i].data;

		assert_int_equal(ev->header.type, PERF_RECORD_MMAP2);
		assert_int_equal(ev->start, want[i].start);
		assert_string_equal(ev->filename, want[i].name);
		assert_int_equal(ev->prot, want[i].prot);
		assert_int_equal(ev->flags, want[i].flags);
		assert_int_equal(ev->header.misc, want[i].misc);
		assert_int_equal(ev->pid, pid);
		assert_int_equal(ev->tid, pid);
	}
}

#define U	PERF_RECORD_MISC_USER
#define RX	(PROT_READ | PROT_EXEC)
static const struct want_map FAKE_EXEC[] = {
	{ 0x00401000, "/usr/bin/fake-precord-test", RX, MAP_PRIVATE, U },
	{ 0x7f0000000000, "//anon", RX | PROT_WRITE, MAP_PRIVATE, U },
	{ 0x7f0000100000, "//anon", RX, MAP_SHARED | MAP_HUGETLB, U },
	{ 0x7f0000300000, "/opt/my app/lib x.so (deleted)", RX, MAP_PRIVATE, U },
	{ 0x7ffff7fc1000, "[vdso]", RX, MAP_PRIVATE, U },
};

static void test_fake_process(void **state)
{
	struct synth_paths paths = fake_paths();
	const struct perf_record_mmap2 *ev;
	const struct perf_record_fork *f;
	struct synth_stats stats = { 0 };
	struct collector c = { 0 };
	struct synth_opts o;

	opts_init(&o, ID_HDR);
	o.paths = &paths;
	o.stats = &stats;
	o.build_id = true;	/* nothing to read: the maj/min/ino form stays */
	o.hugetlbfs_mnt = "/dev/hugepages";
	assert_int_equal(synthesize__all(&o, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	/* 100: FORK COMM 5*MMAP2, 101: FORK COMM, 200: FORK COMM; 300 vanished */
	assert_int_equal(c.nr, 11);
	f = (const void *)c.recs[0].data;
	assert_int_equal(f->header.type, PERF_RECORD_FORK);
	assert_true(f->pid == 100 && f->tid == 100 && f->ppid == 42 && f->ptid == 42);
	assert_string_equal(find_comm(&c, 100, NULL)->comm, "fake-leader");
	assert_int_equal(collector__hdr(&c, 1)->type, PERF_RECORD_COMM);
	check_maps(&c, 2, FAKE_EXEC, 5, 100);
	ev = (const void *)c.recs[2].data;
	assert_int_equal(ev->len, 0x1000);
	assert_int_equal(ev->pgoff, 0x1000);
	assert_true(ev->maj == 0xfd && ev->min == 1 && ev->ino == 1234);
	f = (const void *)c.recs[7].data;
	assert_int_equal(f->header.type, PERF_RECORD_FORK);
	assert_true(f->pid == 100 && f->tid == 101 && f->ppid == 100 && f->ptid == 100);
	assert_string_equal(find_comm(&c, 101, NULL)->comm, "worker with a v");	/* 15 chars */
	f = (const void *)c.recs[9].data;
	assert_true(f->pid == 200 && f->tid == 200 && f->ppid == 2);
	assert_string_equal(find_comm(&c, 200, NULL)->comm, "kworker/0:1");
	assert_true(stats.nr_vanished >= 1);
	assert_int_equal(stats.nr_map_timeouts, 0);
	collector__reset(&c);

	/* only the task records, or only the maps */
	o.no_mmap = true;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	assert_int_equal(c.nr, 4);
	assert_int_equal(count_type(&c, PERF_RECORD_MMAP2), 0);
	collector__reset(&c);
	o.no_mmap = false;
	o.no_task = true;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	assert_int_equal(c.nr, 5);
	check_maps(&c, 0, FAKE_EXEC, 5, 100);
	collector__reset(&c);

	assert_int_equal(synthesize__process(&o, 300, collector__emit, &c), -ESRCH);
	assert_int_equal(synthesize__process(&o, 999, collector__emit, &c), -ESRCH);
	assert_int_equal(c.nr, 0);
}

/* perf -d: readable non-exec mappings too, flagged MMAP_DATA. */
static void test_fake_mmap_data(void **state)
{
	static const struct want_map want[] = {
		{ 0x00400000, "/usr/bin/fake-precord-test", PROT_READ, MAP_PRIVATE,
		  U | PERF_RECORD_MISC_MMAP_DATA },
		{ 0x00401000, "/usr/bin/fake-precord-test", RX, MAP_PRIVATE, U },
		{ 0x00600000, "/usr/bin/fake-precord-test", PROT_READ | PROT_WRITE, MAP_PRIVATE,
		  U | PERF_RECORD_MISC_MMAP_DATA },
		{ 0x7f0000000000, "//anon", RX | PROT_WRITE, MAP_PRIVATE, U },
		{ 0x7f0000100000, "/dev/hugepages/seg (deleted)", RX, MAP_SHARED, U },
		{ 0x7f0000300000, "/opt/my app/lib x.so (deleted)", RX, MAP_PRIVATE, U },
		{ 0x7ffff7fc1000, "[vdso]", RX, MAP_PRIVATE, U },
		{ 0x7ffffffde000, "[stack]", PROT_READ | PROT_WRITE, MAP_PRIVATE,
		  U | PERF_RECORD_MISC_MMAP_DATA },
	};
	struct synth_paths paths = fake_paths();
	struct collector c = { 0 };
	struct synth_opts o;

	opts_init(&o, 0);
	o.paths = &paths;
	o.mmap_data = true;
	o.no_task = true;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	check_stream(&c, 0);
	assert_int_equal(c.nr, 8);
	check_maps(&c, 0, want, 8, 100);
	collector__reset(&c);
}

static void test_fake_thread_map(void **state)
{
	struct synth_paths paths = fake_paths();
	struct collector c = { 0 };
	struct thread_map *m;
	struct synth_opts o;

	opts_init(&o, 16);
	o.paths = &paths;
	o.hugetlbfs_mnt = "/dev/hugepages";
	m = tmap((pid_t[]){ 101 }, 1);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), 0);
	check_stream(&c, 16);
	assert_int_equal(c.nr, 7);	/* COMM 101, COMM 100, 5 MMAP2 */
	assert_int_equal(find_comm(&c, 101, NULL)->pid, 100);
	assert_int_equal(collector__hdr(&c, 0)->type, PERF_RECORD_COMM);
	assert_int_equal(collector__hdr(&c, 1)->type, PERF_RECORD_COMM);
	assert_int_equal(count_type(&c, PERF_RECORD_FORK), 0);
	check_maps(&c, 2, FAKE_EXEC, 5, 100);
	free(m);
	collector__reset(&c);

	/* -p 100: both tasks in the map, the leader's maps once */
	m = tmap((pid_t[]){ 100, 101, 300, 200 }, 4);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), 0);
	assert_int_equal(c.nr, 8);	/* COMM 100, 5 MMAP2, COMM 101, COMM 200 */
	check_maps(&c, 1, FAKE_EXEC, 5, 100);
	assert_int_equal(find_comm(&c, 200, NULL)->pid, 200);
	free(m);
	collector__reset(&c);
}

/* /proc/TID/ns/NAME of the fixture: regular files, whose device and inode are known. */
static const char *const NS_NAMES[NR_NAMESPACES] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static void check_namespaces(const struct collector *c, size_t i, pid_t pid, pid_t tid,
			     const char *proc)
{
	const struct perf_record_namespaces *ev = (const void *)c->recs[i].data;
	char path[PATH_MAX];
	struct stat st;
	int n;

	assert_int_equal(ev->header.type, PERF_RECORD_NAMESPACES);
	assert_int_equal(ev->pid, pid);
	assert_int_equal(ev->tid, tid);
	assert_int_equal(ev->nr_namespaces, NR_NAMESPACES);
	for (n = 0; n < NR_NAMESPACES; n++) {
		snprintf(path, sizeof(path), "%s/%d/ns/%s", proc, tid, NS_NAMES[n]);
		if (stat(path, &st)) {
			/* what cannot be read stays zero, as in perf */
			assert_int_equal(ev->link_info[n].dev, 0);
			assert_int_equal(ev->link_info[n].ino, 0);
			continue;
		}
		assert_int_equal(ev->link_info[n].dev, st.st_dev);
		assert_int_equal(ev->link_info[n].ino, st.st_ino);
	}
}

/* --namespaces: after each FORK (system-wide), after each COMM (thread map), as perf. */
static void test_fake_namespaces(void **state)
{
	struct synth_paths paths = fake_paths();
	struct collector c = { 0 };
	struct thread_map *m;
	struct synth_opts o;
	int n;

	for (n = 0; n < NR_NAMESPACES; n++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/100/ns/%s", NS_NAMES[n]);
		write_text(rel, NS_NAMES[n]);
	}
	opts_init(&o, ID_HDR);
	o.paths = &paths;
	o.namespaces = true;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	/* FORK NAMESPACES COMM 5*MMAP2, FORK NAMESPACES COMM */
	assert_int_equal(c.nr, 11);
	assert_int_equal(collector__hdr(&c, 0)->type, PERF_RECORD_FORK);
	check_namespaces(&c, 1, 100, 100, paths.proc);
	assert_true(((const struct perf_record_namespaces *)c.recs[1].data)->link_info[0].ino != 0);
	assert_int_equal(collector__hdr(&c, 2)->type, PERF_RECORD_COMM);
	assert_int_equal(collector__hdr(&c, 8)->type, PERF_RECORD_FORK);
	check_namespaces(&c, 9, 100, 101, paths.proc);	/* none readable: zeros */
	assert_int_equal(collector__hdr(&c, 10)->type, PERF_RECORD_COMM);
	collector__reset(&c);

	m = tmap((pid_t[]){ 101 }, 1);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	/* COMM NAMESPACES of 101, COMM NAMESPACES of 100, its 5 MMAP2 */
	assert_int_equal(c.nr, 9);
	assert_int_equal(collector__hdr(&c, 0)->type, PERF_RECORD_COMM);
	check_namespaces(&c, 1, 100, 101, paths.proc);
	assert_int_equal(collector__hdr(&c, 2)->type, PERF_RECORD_COMM);
	check_namespaces(&c, 3, 100, 100, paths.proc);
	free(m);
	collector__reset(&c);

	/* the forked workload: COMM then NAMESPACES */
	assert_int_equal(synthesize__comm(&o, 100, collector__emit, &c), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(collector__hdr(&c, 0)->type, PERF_RECORD_COMM);
	check_namespaces(&c, 1, 100, 100, paths.proc);
	collector__reset(&c);

	/* off: none */
	o.namespaces = false;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_NAMESPACES), 0);
	collector__reset(&c);
}

/* This process's namespaces: the device and inode of /proc/self/ns/NAME. */
static void test_self_namespaces(void **state)
{
	struct collector c = { 0 };
	struct synth_opts o;

	opts_init(&o, 0);
	o.namespaces = true;
	assert_int_equal(synthesize__comm(&o, getpid(), collector__emit, &c), 0);
	assert_int_equal(c.nr, 2);
	check_stream(&c, 0);
	check_namespaces(&c, 1, getpid(), getpid(), "/proc");
	assert_true(((const struct perf_record_namespaces *)c.recs[1].data)->link_info[5].ino != 0);
	collector__reset(&c);
}

static const struct perf_record_cgroup *cgroup_rec(const struct collector *c, size_t i)
{
	assert_int_equal(collector__hdr(c, i)->type, PERF_RECORD_CGROUP);
	return (const void *)c->recs[i].data;
}

/* The file handle's 8 bytes, as perf and the kernel take a cgroup's id. */
static u64 handle_id(const char *path)
{
	struct {
		struct file_handle	fh;
		u64			id;
	} h = { .fh.handle_bytes = sizeof(u64) };
	int mount_id;

	assert_int_equal(name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0), 0);
	return h.id;
}

/*
 * The hierarchy perf walks: a v1 hierarchy with perf_event before any
 * cgroup2; the root, then depth first, paths below the mount point.
 */
static void test_fake_cgroups(void **state)
{
	struct synth_paths paths = fake_paths();
	struct collector c = { 0 };
	struct synth_opts o;
	char mounts[1024], mounts_path[PATH_MAX], *seen[4];
	size_t i;

	mkdirs(tpath("cg/v2"));
	mkdirs(tpath("cg/pe/a/b"));
	write_text("cg/pe/cgroup.procs", "");	/* files are not cgroups */
	snprintf(mounts, sizeof(mounts),
		 "cgroup2 %s cgroup2 rw,relatime 0 0\n"
		 "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		 "cgroup %s cgroup rw,relatime,perf_event 0 0\n",
		 tpath("cg/v2"), tpath("cg/pe"));
	write_text("mounts-cg", mounts);
	snprintf(mounts_path, sizeof(mounts_path), "%s", tpath("mounts-cg"));
	paths.mounts = mounts_path;
	opts_init(&o, ID_HDR);
	o.paths = &paths;
	assert_int_equal(synthesize__cgroups(&o, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	assert_int_equal(c.nr, 3);
	for (i = 0; i < 3; i++)
		seen[i] = (char *)cgroup_rec(&c, i)->path;
	assert_string_equal(seen[0], "/");
	assert_string_equal(seen[1], "/a");
	assert_string_equal(seen[2], "/a/b");
	assert_int_equal(cgroup_rec(&c, 0)->id, handle_id(tpath("cg/pe")));
	assert_int_equal(cgroup_rec(&c, 2)->id, handle_id(tpath("cg/pe/a/b")));
	collector__reset(&c);

	/* no perf_event hierarchy: the first cgroup2 */
	snprintf(mounts, sizeof(mounts), "cgroup2 %s cgroup2 rw 0 0\ncgroup2 /x cgroup2 rw 0 0\n",
		 tpath("cg/v2"));
	write_text("mounts-cg", mounts);
	assert_int_equal(synthesize__cgroups(&o, collector__emit, &c), 0);
	assert_int_equal(c.nr, 1);
	assert_string_equal(cgroup_rec(&c, 0)->path, "/");
	collector__reset(&c);

	/* none at all */
	write_text("mounts-cg", "proc /proc proc rw 0 0\n");
	assert_int_equal(synthesize__cgroups(&o, collector__emit, &c), -ENOENT);
	assert_int_equal(c.nr, 0);

	/* an emit error stops the walk and comes back */
	snprintf(mounts, sizeof(mounts), "cgroup %s cgroup rw,perf_event 0 0\n", tpath("cg/pe"));
	write_text("mounts-cg", mounts);
	c.fail_at = 2;
	c.fail_err = -ENOSPC;
	assert_int_equal(synthesize__cgroups(&o, collector__emit, &c), -ENOSPC);
	assert_int_equal(c.nr, 1);
	collector__reset(&c);
}

/* This machine's cgroups: on cgroup2 (kernfs) a cgroup's id is its directory's inode. */
static void test_real_cgroups(void **state)
{
	struct collector c = { 0 };
	char root[PATH_MAX] = "", path[PATH_MAX * 2];
	struct mntent *m;
	struct synth_opts o;
	struct stat st;
	FILE *f = setmntent("/proc/mounts", "r");
	size_t i;

	while (f && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "perf_event"))
			break;
	if (f && !m) {
		rewind(f);
		while ((m = getmntent(f)) && strcmp(m->mnt_type, "cgroup2"))
			;
	}
	if (f && m)
		snprintf(root, sizeof(root), "%s", m->mnt_dir);
	if (f)
		endmntent(f);
	if (!root[0])
		skip();
	opts_init(&o, 8);
	assert_int_equal(synthesize__cgroups(&o, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_true(c.nr >= 1);
	assert_string_equal(cgroup_rec(&c, 0)->path, "/");
	for (i = 0; i < c.nr; i++) {
		const struct perf_record_cgroup *ev = cgroup_rec(&c, i);

		snprintf(path, sizeof(path), "%s%s", root, ev->path);
		if (stat(path, &st))
			continue;	/* removed meanwhile */
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(ev->id, st.st_ino);
	}
	collector__reset(&c);
}

/* A maps line longer than any buffer: cut, and the next line still read whole. */
static void test_fake_long_line(void **state)
{
	struct synth_paths paths = fake_paths();
	const struct perf_record_mmap2 *ev;
	struct collector c = { 0 };
	struct synth_opts o;
	char *maps, buf[1024];
	size_t len = 40000, n;

	maps = malloc(len + 256);
	if (!maps) {	/* a return the compiler sees, past cmocka's assert */
		fail_msg("out of memory");
		return;
	}
	n = (size_t)sprintf(maps, "00400000-00401000 r-xp 00000000 fd:01 5 /");
	memset(maps + n, 'x', len - n);
	sprintf(maps + len, "\n00500000-00501000 r-xp 00000000 fd:01 6 /bin/after\n");
	write_text("proc2/400/task/400/maps", maps);
	write_text("proc2/400/task/400/status",
		   status_of(buf, sizeof(buf), "long", 400, 400, 1, true));
	free(maps);
	paths.proc = tpath("proc2");
	opts_init(&o, 8);
	o.paths = &paths;
	o.no_task = true;
	assert_int_equal(synthesize__process(&o, 400, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_int_equal(c.nr, 2);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->start, 0x400000);
	assert_int_equal(strlen(ev->filename), PATH_MAX - 1);	/* cut like perf 6.1 */
	ev = (const void *)c.recs[1].data;
	assert_int_equal(ev->start, 0x500000);
	assert_string_equal(ev->filename, "/bin/after");
	collector__reset(&c);
}

/*
 * synthesize__tree(): the roots and every process below them by PPid, in
 * pid order; a process above a root, beside it, or in a PPid cycle is not.
 */
static void test_fake_tree(void **state)
{
	static const struct { int pid, ppid; } procs[] = {
		{ 1, 0 }, { 10, 1 }, { 20, 10 }, { 25, 1 }, { 30, 20 }, { 40, 25 }, { 50, 30 },
		{ 60, 61 }, { 61, 60 },
	};
	struct synth_paths paths = fake_paths();
	struct collector c = { 0 };
	struct synth_opts o;
	char rel[64], buf[1024];
	pid_t roots[] = { 10, 40 }, seen[16];
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(procs); i++) {
		int pid = procs[i].pid;

		snprintf(rel, sizeof(rel), "proc3/%d/status", pid);
		write_text(rel, status_of(buf, sizeof(buf), "p", pid, pid, procs[i].ppid, false));
		snprintf(rel, sizeof(rel), "proc3/%d/task/%d/status", pid, pid);
		write_text(rel, status_of(buf, sizeof(buf), "p", pid, pid, procs[i].ppid, false));
	}
	paths.proc = tpath("proc3");
	opts_init(&o, 8);
	o.paths = &paths;
	o.no_mmap = true;
	assert_int_equal(synthesize__tree(&o, roots, 2, collector__emit, &c), 0);
	check_stream(&c, 8);
	for (i = 0; i < c.nr; i++) {
		const struct perf_record_fork *f = (const void *)c.recs[i].data;

		if (f->header.type == PERF_RECORD_FORK && n < ARRAY_SIZE(seen))
			seen[n++] = (pid_t)f->pid;
	}
	assert_int_equal(n, 5);		/* 10, 20, 30, 40, 50 */
	assert_int_equal(seen[0], 10);
	assert_int_equal(seen[1], 20);
	assert_int_equal(seen[2], 30);
	assert_int_equal(seen[3], 40);
	assert_int_equal(seen[4], 50);
	collector__reset(&c);
	/* no root that runs: nothing */
	roots[0] = 999;
	assert_int_equal(synthesize__tree(&o, roots, 1, collector__emit, &c), 0);
	assert_int_equal(c.nr, 0);
}

/* The MMAP2 records of pid in c. */
static size_t count_maps_of(const struct collector *c, pid_t pid)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr; i++) {
		const struct perf_record_mmap2 *m = (const void *)c->recs[i].data;

		if (m->header.type == PERF_RECORD_MMAP2 && (pid_t)m->pid == pid)
			n++;
	}
	return n;
}

/* A process of a fake /proc tree in proc4/: status, its thread's, and maps (or none). */
static void write_tree_proc(int pid, int ppid, const char *maps)
{
	char rel[64], buf[1024];

	snprintf(rel, sizeof(rel), "proc4/%d/status", pid);
	write_text(rel, status_of(buf, sizeof(buf), "p", pid, pid, ppid, true));
	snprintf(rel, sizeof(rel), "proc4/%d/task/%d/status", pid, pid);
	write_text(rel, status_of(buf, sizeof(buf), "p", pid, pid, ppid, true));
	snprintf(rel, sizeof(rel), "proc4/%d/task/%d/maps", pid, pid);
	write_text(rel, maps);
}

/*
 * synthesize__tree_since(): a process of the snapshot that has no maps
 * now (gone from /proc, or a zombie) gets its records from the snapshot;
 * one that still runs gets /proc's only, once.
 */
static void test_fake_tree_since(void **state)
{
	struct synth_paths paths = fake_paths();
	struct synth_tree_snap snap = { 0 };
	struct collector c = { 0 };
	struct synth_opts o;
	char path[PATH_MAX];
	pid_t root = 10;
	size_t plain;

	write_tree_proc(10, 1, FAKE_MAPS);
	write_tree_proc(20, 10, FAKE_MAPS);
	paths.proc = tpath("proc4");
	opts_init(&o, 8);
	o.paths = &paths;
	assert_int_equal(synth_tree_snap__take(&snap, &o, &root, 1), 0);
	assert_true(snap.len > 0);

	/* both still run: exactly what synthesize__tree() gives */
	assert_int_equal(synthesize__tree(&o, &root, 1, collector__emit, &c), 0);
	plain = c.nr;
	collector__reset(&c);
	assert_int_equal(synthesize__tree_since(&o, &root, 1, &snap, collector__emit, &c), 0);
	assert_int_equal(c.nr, plain);
	assert_int_equal(count_maps_of(&c, 20), 5);
	collector__reset(&c);

	/* 20 a zombie (no maps): its maps from the snapshot */
	write_tree_proc(20, 10, "");
	assert_int_equal(synthesize__tree_since(&o, &root, 1, &snap, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_int_equal(count_maps_of(&c, 10), 5);
	assert_int_equal(count_maps_of(&c, 20), 5);
	assert_string_equal(find_comm(&c, 20, NULL)->comm, "p");
	collector__reset(&c);

	/* 20 gone from /proc: the same */
	snprintf(path, sizeof(path), "%s/20", paths.proc);
	assert_int_equal(tmpdir__remove(path), 0);
	assert_int_equal(synthesize__tree_since(&o, &root, 1, &snap, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_int_equal(count_maps_of(&c, 10), 5);
	assert_int_equal(count_maps_of(&c, 20), 5);
	collector__reset(&c);

	/* no snapshot: /proc's tree only */
	assert_int_equal(synthesize__tree_since(&o, &root, 1, NULL, collector__emit, &c), 0);
	assert_int_equal(count_maps_of(&c, 20), 0);
	collector__reset(&c);
	synth_tree_snap__exit(&snap);
	assert_null(snap.buf);
}

/* The mount point, when /proc/mounts has a hugetlbfs (checked with getmntent). */
static void test_hugetlbfs_mountpoint(void **state)
{
	FILE *f = setmntent("/proc/mounts", "r");
	char want[PATH_MAX] = "", got[PATH_MAX];
	struct mntent *m;

	assert_non_null(f);
	while (!want[0] && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "hugetlbfs"))
			snprintf(want, sizeof(want), "%s", m->mnt_dir);
	endmntent(f);
	if (want[0]) {
		assert_int_equal(synthesize__hugetlbfs_mountpoint(got, sizeof(got)), 0);
		assert_string_equal(got, want);
	} else {
		assert_int_equal(synthesize__hugetlbfs_mountpoint(got, sizeof(got)), -ENOENT);
	}
}

/* A clock that moves 1 ms each time it is read. */
static u64 step_clock(void *ctx)
{
	u64 *t = ctx;

	return (*t += 1000000ULL);
}

static void test_fake_timeout(void **state)
{
	struct synth_paths paths = fake_paths();
	struct synth_stats stats = { 0 };
	struct collector c = { 0 };
	const struct perf_record_mmap2 *ev;
	struct synth_opts o;
	u64 now = 0;
	char msg[256];

	opts_init(&o, 8);
	o.paths = &paths;
	o.stats = &stats;
	o.no_task = true;
	o.clock = step_clock;
	o.clock_ctx = &now;
	/* t0 = 1 ms; line 1 read at 2 ms, line 2 at 3 ms, line 3 at 4 ms: over 2 ms */
	o.proc_map_timeout_ms = 2;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	check_stream(&c, 8);
	assert_int_equal(c.nr, 2);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->start, 0x00401000);
	assert_int_equal(ev->header.misc, PERF_RECORD_MISC_USER);
	/* the line that found the time exceeded is written, data or not, and ends the read */
	ev = (const void *)c.recs[1].data;
	assert_int_equal(ev->start, 0x00600000);
	assert_int_equal(ev->header.misc,
			 PERF_RECORD_MISC_USER | PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
	assert_int_equal(stats.nr_map_timeouts, 1);
	assert_int_equal(stats.first_timeout_pid, 100);
	collector__reset(&c);

	o.proc_map_timeout_ms = 0;
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), 0);
	assert_int_equal(c.nr, 1);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->start, 0x00400000);
	assert_true(ev->header.misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
	assert_int_equal(stats.nr_map_timeouts, 2);
	assert_int_equal(stats.first_timeout_pid, 100);
	collector__reset(&c);

	synthesize__timeout_msg(msg, sizeof(msg), 100);
	assert_string_equal(msg, "Reading /proc/100/task/100/maps time out. "
			    "You may want to increase the time limit by --proc-map-timeout");
}

/* The same cut-off on this process's real maps. */
static void test_self_timeout(void **state)
{
	struct synth_stats stats = { 0 };
	struct collector c = { 0 };
	struct synth_opts o;
	u64 now = 0;
	size_t i;

	opts_init(&o, 8);
	o.stats = &stats;
	o.proc_map_timeout_ms = 0;
	o.clock = step_clock;
	o.clock_ctx = &now;
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &c), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_MMAP2), 1);
	for (i = 0; collector__hdr(&c, i)->type != PERF_RECORD_MMAP2; i++)
		;
	assert_true(collector__hdr(&c, i)->misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
	assert_int_equal(stats.nr_map_timeouts, 1);
	assert_int_equal(stats.first_timeout_pid, getpid());
	collector__reset(&c);
}

/* ---- tests: kernel ---------------------------------------------------------- */

static bool kallsyms_addr(const char *name, u64 *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long a;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    !strchr(line, '[')) {
			*addr = a;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void test_kernel_real(void **state)
{
	const struct perf_record_mmap *ev;
	struct collector c = { 0 };
	struct synth_opts o;
	u64 text = 0, etext = 0;
	int err;

	if (!kallsyms_addr("_text", &text) || !kallsyms_addr("_etext", &etext))
		skip();
	opts_init(&o, ID_HDR);
	err = synthesize__kernel_mmap(&o, collector__emit, &c);
	if (!text) {		/* kptr_restrict */
		assert_int_equal(err, -EACCES);
		return;
	}
	assert_int_equal(err, 0);
	check_stream(&c, ID_HDR);
	assert_int_equal(c.nr, 1);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->header.type, PERF_RECORD_MMAP);
	assert_int_equal(ev->header.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(ev->pid, (u32)-1);
	assert_int_equal(ev->tid, 0);
	assert_string_equal(ev->filename, "[kernel.kallsyms]_text");
	assert_int_equal(ev->start, text);
	assert_int_equal(ev->pgoff, text);
	assert_int_equal(ev->len, etext - text);
	collector__reset(&c);
}

/* The running kernel's build id, as perf buildid-list -k prints it (when perf is here). */
static bool perf_kernel_build_id(char *hex, size_t size)
{
	char line[64];
	bool ok = false;
	FILE *p;

	if (access("/usr/bin/perf", X_OK))
		return false;
	p = popen("perf buildid-list -k 2>/dev/null", "r");
	if (!p)
		return false;
	if (fgets(line, sizeof(line), p) && strlen(line) > 10) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(hex, size, "%s", line);
		ok = true;
	}
	pclose(p);
	return ok;
}

static void test_kernel_real_build_id(void **state)
{
	const struct perf_record_mmap2 *ev;
	struct collector c = { 0 };
	struct synth_opts o;
	char hex[64], want[64];
	u64 text = 0;
	u8 id[BUILD_ID_SIZE];
	int len;

	if (!kallsyms_addr("_text", &text) || !text)
		skip();
	opts_init(&o, 8);
	o.build_id = true;
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), 0);
	check_stream(&c, 8);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(ev->pid, (u32)-1);
	assert_int_equal(ev->start, text);
	assert_int_equal(ev->pgoff, text);
	assert_true(ev->prot == 0 && ev->flags == 0);
	len = buildid__read_notes("/sys/kernel/notes", id, sizeof(id));
	if (len > 0) {
		assert_int_equal(ev->header.misc,
				 PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
		assert_int_equal(ev->build_id_size, len);
		assert_memory_equal(ev->build_id, id, (size_t)len);
		buildid__snprintf(ev->build_id, len, hex, sizeof(hex));
		if (perf_kernel_build_id(want, sizeof(want)))
			assert_string_equal(hex, want);
	} else {
		assert_int_equal(ev->header.misc, PERF_RECORD_MISC_KERNEL);
	}
	collector__reset(&c);
}

static void test_modules_real(void **state)
{
	struct collector c = { 0 };
	struct synth_opts o;
	char line[1024];
	size_t lines = 0, i;
	FILE *f = fopen("/proc/modules", "r");

	if (f) {
		while (fgets(line, sizeof(line), f))
			lines++;
		fclose(f);
	}
	opts_init(&o, ID_HDR);
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	assert_int_equal(c.nr, lines);
	for (i = 1; i < c.nr; i++) {
		const struct perf_record_mmap *a = (const void *)c.recs[i - 1].data;
		const struct perf_record_mmap *b = (const void *)c.recs[i].data;

		assert_true(a->start < b->start);
		assert_int_equal(b->header.misc, PERF_RECORD_MISC_KERNEL);
	}
	collector__reset(&c);
}

static void test_kernel_fake(void **state)
{
	struct synth_paths paths = fake_paths();
	const struct perf_record_mmap2 *ev2;
	const struct perf_record_mmap *ev;
	struct collector c = { 0 };
	struct synth_opts o;

	opts_init(&o, 16);
	o.paths = &paths;
	/* no function _etext: the kernel map ends where the first module starts */
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), 0);
	check_stream(&c, 16);
	ev = (const void *)c.recs[0].data;
	assert_string_equal(ev->filename, "[kernel.kallsyms]_text");
	assert_int_equal(ev->start, 0xffffffffa0000000ULL);
	assert_int_equal(ev->pgoff, 0xffffffffa0000000ULL);
	assert_int_equal(ev->len, 0xffffffffc0100000ULL - 0xffffffffa0000000ULL);
	collector__reset(&c);

	paths.kallsyms = tpath("kallsyms-etext");
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), 0);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->len, 0x800000);
	collector__reset(&c);

	paths.kallsyms = tpath("kallsyms-stext");	/* no _text: _stext anchors */
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), 0);
	ev = (const void *)c.recs[0].data;
	assert_string_equal(ev->filename, "[kernel.kallsyms]_stext");
	assert_int_equal(ev->len, 0x800000);
	collector__reset(&c);

	o.build_id = true;
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), 0);
	ev2 = (const void *)c.recs[0].data;
	assert_int_equal(ev2->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(ev2->header.misc, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(ev2->build_id_size, 20);
	assert_memory_equal(ev2->build_id, ID_K, 20);
	collector__reset(&c);

	paths.kallsyms = tpath("kallsyms-hidden");
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), -EACCES);
	paths.kallsyms = tpath("kallsyms-none");
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), -ENOENT);
	paths.kallsyms = tpath("no-such-file");
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), -ENOENT);
	assert_int_equal(c.nr, 0);
}

static void test_modules_fake(void **state)
{
	struct synth_paths paths = fake_paths();
	const struct perf_record_mmap2 *ev2;
	const struct perf_record_mmap *ev;
	struct collector c = { 0 };
	struct synth_opts o;
	char want[PATH_MAX];

	opts_init(&o, 16);
	o.paths = &paths;
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), 0);
	check_stream(&c, 16);
	assert_int_equal(c.nr, 3);
	/* by address; the .ko path modules.dep gives, else [name] */
	ev = (const void *)c.recs[0].data;
	snprintf(want, sizeof(want), "%s/kernel/fs/ext4/ext4.ko.xz", paths.modules_dir);
	assert_string_equal(ev->filename, want);
	assert_int_equal(ev->start, 0xffffffffc0100000ULL);
	assert_int_equal(ev->len, 1011712);
	assert_int_equal(ev->pgoff, 0);
	assert_int_equal(ev->pid, (u32)-1);
	assert_int_equal(ev->tid, 0);
	assert_int_equal(ev->header.type, PERF_RECORD_MMAP);
	assert_int_equal(ev->header.misc, PERF_RECORD_MISC_KERNEL);
	ev = (const void *)c.recs[1].data;
	snprintf(want, sizeof(want), "%s/kernel/sound/pci/hda/snd-hda-intel.ko", paths.modules_dir);
	assert_string_equal(ev->filename, want);
	assert_int_equal(ev->start, 0xffffffffc0200000ULL);
	ev = (const void *)c.recs[2].data;
	assert_string_equal(ev->filename, "[nomod]");
	assert_int_equal(ev->len, 4096);
	collector__reset(&c);

	/* MMAP2 with build ids: sysfs for ext4, the .ko's sections for snd-hda-intel */
	o.build_id = true;
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), 0);
	check_stream(&c, 16);
	ev2 = (const void *)c.recs[0].data;
	assert_int_equal(ev2->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(ev2->header.misc, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_memory_equal(ev2->build_id, ID_A, 20);
	ev2 = (const void *)c.recs[1].data;
	assert_int_equal(ev2->header.misc, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_memory_equal(ev2->build_id, ID_B, 20);
	ev2 = (const void *)c.recs[2].data;
	assert_int_equal(ev2->header.misc, PERF_RECORD_MISC_KERNEL);	/* none: no stale id */
	assert_int_equal(ev2->build_id_size, 0);
	collector__reset(&c);

	paths.modules = tpath("modules-hidden");
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), -EACCES);
	paths.modules = tpath("no-such-file");	/* CONFIG_MODULES=n */
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), 0);
	assert_int_equal(c.nr, 0);
}

/* ---- tests: everything, and failures ------------------------------------- */

static void test_all_real(void **state)
{
	struct synth_stats stats = { 0 };
	struct collector c = { 0 };
	struct synth_opts o;
	pid_t *pids;
	int nr, i;

	opts_init(&o, ID_HDR);
	o.stats = &stats;
	assert_int_equal(synthesize__all(&o, collector__emit, &c), 0);
	check_stream(&c, ID_HDR);
	assert_non_null(find_comm(&c, 1, NULL));
	assert_non_null(find_comm(&c, getpid(), NULL));
	assert_int_equal(count_type(&c, PERF_RECORD_FORK), count_type(&c, PERF_RECORD_COMM));
	assert_true(count_type(&c, PERF_RECORD_MMAP2) > 0);
	collector__reset(&c);

	nr = synthesize__proc_pids(&o, &pids);
	assert_true(nr > 1);
	for (i = 1; i < nr; i++)
		assert_true(pids[i - 1] < pids[i]);
	free(pids);
}

static void test_emit_failure(void **state)
{
	struct synth_paths paths = fake_paths();
	struct collector c = { .fail_at = 3, .fail_err = -ENOSPC };
	struct thread_map *m;
	struct synth_opts o;

	opts_init(&o, 8);
	assert_int_equal(synthesize__all(&o, collector__emit, &c), -ENOSPC);
	assert_int_equal(c.calls, 3);	/* nothing after the failure */
	collector__reset(&c);

	c = (struct collector){ .fail_at = 1, .fail_err = -ENOSPC };
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &c), -ENOSPC);
	assert_int_equal(c.calls, 1);
	collector__reset(&c);

	/* a failure inside the maps of a process */
	o.paths = &paths;
	c = (struct collector){ .fail_at = 4, .fail_err = -EIO };
	assert_int_equal(synthesize__process(&o, 100, collector__emit, &c), -EIO);
	assert_int_equal(c.calls, 4);
	collector__reset(&c);
	c = (struct collector){ .fail_at = 2, .fail_err = -ENOSPC };
	m = tmap((pid_t[]){ 100 }, 1);
	assert_int_equal(synthesize__thread_map(&o, m, collector__emit, &c), -ENOSPC);
	assert_int_equal(c.calls, 2);
	free(m);
	collector__reset(&c);

	c = (struct collector){ .fail_at = 1, .fail_err = -ENOSPC };
	assert_int_equal(synthesize__kernel_mmap(&o, collector__emit, &c), -ENOSPC);
	collector__reset(&c);
	c = (struct collector){ .fail_at = 2, .fail_err = -ENOSPC };
	assert_int_equal(synthesize__modules(&o, collector__emit, &c), -ENOSPC);
	assert_int_equal(c.calls, 2);
	collector__reset(&c);
	c = (struct collector){ .fail_at = 1, .fail_err = -ENOSPC };
	assert_int_equal(synthesize__finished_init(collector__emit, &c), -ENOSPC);
	collector__reset(&c);
}

/* ---- tests: ID_INDEX, FINISHED_* ----------------------------------------- */

struct fake_evlist {
	struct evlist	evlist;
	struct evsel	evsels[2];
	struct evsel	*entries[2];
};

static void fake_evlist__init(struct fake_evlist *f, const int *cpus, int nr_cpus,
			      const pid_t *tids, int nr_threads, int nr_evsels)
{
	int i, j;

	memset(f, 0, sizeof(*f));
	f->evlist.cpus = calloc(1, sizeof(struct cpu_map) + (size_t)nr_cpus * sizeof(struct cpu));
	assert_non_null(f->evlist.cpus);
	f->evlist.cpus->nr = nr_cpus;
	for (i = 0; i < nr_cpus; i++)
		f->evlist.cpus->map[i].cpu = cpus ? cpus[i] : -1;
	f->evlist.threads = tmap(tids, nr_threads);
	f->evlist.entries = f->entries;
	f->evlist.nr_entries = nr_evsels;
	for (i = 0; i < nr_evsels; i++) {
		struct evsel *e = &f->evsels[i];

		e->idx = i;
		e->nr_cpus = nr_cpus;
		e->nr_threads = nr_threads;
		e->nr_ids = nr_cpus * nr_threads;
		e->ids = calloc((size_t)e->nr_ids, sizeof(u64));
		assert_non_null(e->ids);
		for (j = 0; j < e->nr_ids; j++)
			e->ids[j] = 1000 * (u64)(i + 1) + (u64)j;
		f->entries[i] = e;
	}
}

static void fake_evlist__exit(struct fake_evlist *f)
{
	int i;

	for (i = 0; i < f->evlist.nr_entries; i++)
		free(f->evsels[i].ids);
	free(f->evlist.cpus);
	free(f->evlist.threads);
}

static const struct id_index_entry *id_entry(const struct collector *c, size_t rec, size_t i)
{
	const struct perf_record_id_index *ev = (const void *)c->recs[rec].data;

	return &ev->entries[i];
}

static void test_id_index_per_cpu(void **state)
{
	struct collector c = { 0 };
	struct fake_evlist f;
	const struct id_index_entry *e;
	const struct perf_record_id_index *ev;

	/* two events on CPUs 0 and 2 (CPU numbers, not indexes), system-wide */
	fake_evlist__init(&f, (int[]){ 0, 2 }, 2, (pid_t[]){ -1 }, 1, 2);
	f.evsels[1].ids[1] = 0;		/* never opened: left out */
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), 0);
	check_stream(&c, 0);
	assert_int_equal(c.nr, 1);
	ev = (const void *)c.recs[0].data;
	assert_int_equal(ev->header.type, PERF_RECORD_ID_INDEX);
	assert_int_equal(ev->header.misc, 0);
	assert_int_equal(ev->nr, 3);
	assert_int_equal(ev->header.size, 16 + 3 * 32);
	e = id_entry(&c, 0, 0);
	assert_true(e->id == 1000 && e->idx == 0 && e->cpu == 0 && e->tid == (u64)-1);
	e = id_entry(&c, 0, 1);
	assert_true(e->id == 1001 && e->idx == 1 && e->cpu == 2 && e->tid == (u64)-1);
	e = id_entry(&c, 0, 2);
	assert_true(e->id == 2000 && e->idx == 0 && e->cpu == 0);
	collector__reset(&c);
	fake_evlist__exit(&f);

	/* a workload on every CPU: the tid is the workload's */
	fake_evlist__init(&f, (int[]){ 0, 1 }, 2, (pid_t[]){ 4242 }, 1, 1);
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), 0);
	e = id_entry(&c, 0, 1);
	assert_true(e->id == 1001 && e->idx == 1 && e->cpu == 1 && e->tid == 4242);
	collector__reset(&c);
	fake_evlist__exit(&f);
}

static void test_id_index_per_thread(void **state)
{
	struct collector c = { 0 };
	struct fake_evlist f;
	const struct id_index_entry *e;

	fake_evlist__init(&f, NULL, 1, (pid_t[]){ 10, 11, 12 }, 3, 1);
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), 0);
	assert_int_equal(((const struct perf_record_id_index *)c.recs[0].data)->nr, 3);
	e = id_entry(&c, 0, 2);
	assert_true(e->id == 1002 && e->idx == 2 && e->cpu == (u64)-1 && e->tid == 12);
	collector__reset(&c);

	f.evsels[0].nr_cpus = 2;	/* inconsistent with the evlist's maps */
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), -EINVAL);
	fake_evlist__exit(&f);
}

static void test_id_index_split(void **state)
{
	enum { NR = 3000 };
	struct collector c = { 0 };
	struct fake_evlist f;
	pid_t *tids = malloc(NR * sizeof(*tids));
	size_t i, total = 0;
	u64 next = 1000;

	assert_non_null(tids);
	for (i = 0; i < NR; i++)
		tids[i] = (pid_t)(100 + i);
	fake_evlist__init(&f, NULL, 1, tids, NR, 1);
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), 0);
	check_stream(&c, 0);
	assert_int_equal(c.nr, 3);	/* 1364 + 1364 + 272, as perf splits */
	for (i = 0; i < c.nr; i++) {
		const struct perf_record_id_index *ev = (const void *)c.recs[i].data;
		size_t j;

		assert_true(ev->nr <= 1364);
		assert_int_equal(ev->header.size, 16 + ev->nr * 32);
		for (j = 0; j < ev->nr; j++)
			assert_int_equal(ev->entries[j].id, next++);
		total += ev->nr;
	}
	assert_int_equal(((const struct perf_record_id_index *)c.recs[0].data)->nr, 1364);
	assert_int_equal(total, NR);
	collector__reset(&c);

	c = (struct collector){ .fail_at = 2, .fail_err = -ENOSPC };
	assert_int_equal(synthesize__id_index(&f.evlist, collector__emit, &c), -ENOSPC);
	assert_int_equal(c.calls, 2);
	collector__reset(&c);
	fake_evlist__exit(&f);
	free(tids);
}

static void test_finished(void **state)
{
	struct collector c = { 0 };

	assert_int_equal(synthesize__finished_init(collector__emit, &c), 0);
	assert_int_equal(synthesize__finished_round(collector__emit, &c), 0);
	assert_int_equal(c.nr, 2);
	assert_true(collector__hdr(&c, 0)->type == 82 && collector__hdr(&c, 0)->size == 8 && collector__hdr(&c, 0)->misc == 0);
	assert_true(collector__hdr(&c, 1)->type == 68 && collector__hdr(&c, 1)->size == 8 && collector__hdr(&c, 1)->misc == 0);
	collector__reset(&c);
}

/* ---- tests: build ids ------------------------------------------------------- */

static void test_buildid_files(void **state)
{
	u8 id[BUILD_ID_SIZE], big[32];
	unsigned char notes[256] = { 0 };
	char hex[64];
	size_t len;
	int i;

	make_elf("elf/dyn64", true, false, true, 4, ID_A, 20);
	make_elf("elf/dyn32", false, false, true, 4, ID_B, 20);
	make_elf("elf/rel64", true, true, true, 4, ID_A, 20);
	make_elf("elf/rel32", false, true, true, 4, ID_B, 20);
	make_elf("elf/align8", true, false, true, 8, ID_B, 20);
	make_elf("elf/short", true, false, true, 4, ID_A, 8);
	make_elf("elf/noid", true, false, true, 4, ID_A, 0);
	make_elf("elf/nonotes", true, false, false, 4, ID_A, 20);
	for (i = 0; i < 32; i++)
		big[i] = (u8)(i * 7);
	len = make_notes(notes, big, 32, 4);
	write_bytes("notes-big", notes, len);
	write_text("not-elf", "#!/bin/sh\necho this is not an ELF file\n");
	write_bytes("truncated", "\177ELF\002\001", 6);

	assert_int_equal(buildid__read(tpath("elf/dyn64"), id, sizeof(id)), 20);
	assert_memory_equal(id, ID_A, 20);
	assert_int_equal(buildid__read(tpath("elf/dyn32"), id, sizeof(id)), 20);
	assert_memory_equal(id, ID_B, 20);
	assert_int_equal(buildid__read(tpath("elf/rel64"), id, sizeof(id)), 20);
	assert_memory_equal(id, ID_A, 20);
	assert_int_equal(buildid__read(tpath("elf/rel32"), id, sizeof(id)), 20);
	assert_memory_equal(id, ID_B, 20);
	assert_int_equal(buildid__read(tpath("elf/align8"), id, sizeof(id)), 20);
	assert_memory_equal(id, ID_B, 20);
	assert_int_equal(buildid__read(tpath("elf/short"), id, sizeof(id)), 8);
	assert_memory_equal(id, ID_A, 8);
	assert_int_equal(buildid__read(tpath("elf/noid"), id, sizeof(id)), -ENODATA);
	assert_int_equal(buildid__read(tpath("elf/nonotes"), id, sizeof(id)), -ENODATA);
	assert_int_equal(buildid__read(tpath("not-elf"), id, sizeof(id)), -ENOEXEC);
	assert_int_equal(buildid__read(tpath("truncated"), id, sizeof(id)), -ENOEXEC);
	assert_int_equal(buildid__read(tpath("no-such-file"), id, sizeof(id)), -ENOENT);
	assert_int_equal(buildid__read(tpath("elf"), id, sizeof(id)) < 0, 1);	/* a directory */
	assert_int_equal(buildid__read_notes(tpath("notes-big"), id, sizeof(id)), 20);
	assert_memory_equal(id, big, 20);
	assert_int_equal(buildid__read_notes(tpath("not-elf"), id, sizeof(id)), -ENODATA);
	/* a note whose sizes run past the end */
	notes[4] = 0xff;
	assert_int_equal(buildid__parse_notes(notes, 40, 4, id, sizeof(id)), -ENODATA);
	assert_int_equal(buildid__parse_notes(notes, 5, 4, id, sizeof(id)), -ENODATA);

	assert_int_equal(buildid__snprintf(ID_A, 4, hex, sizeof(hex)), 8);
	assert_string_equal(hex, "deadbeef");
	assert_int_equal(buildid__snprintf(ID_A, 4, hex, 5), 8);
	assert_string_equal(hex, "dead");
}

static void test_buildid_cache(void **state)
{
	struct buildid_cache *cache = buildid_cache__new();
	u8 id[BUILD_ID_SIZE];
	u64 i;

	assert_non_null(cache);
	assert_int_equal(buildid_cache__lookup(cache, 1, 2, id, sizeof(id)), -ENOENT);
	buildid_cache__add(cache, 1, 2, ID_A, 20);
	buildid_cache__add(cache, 1, 3, NULL, -ENODATA);
	buildid_cache__add(cache, 1, 4, NULL, -ENOENT);		/* not an answer: not kept */
	assert_int_equal(buildid_cache__lookup(cache, 1, 2, id, sizeof(id)), 20);
	assert_memory_equal(id, ID_A, 20);
	assert_int_equal(buildid_cache__lookup(cache, 1, 3, id, sizeof(id)), -ENODATA);
	assert_int_equal(buildid_cache__lookup(cache, 1, 4, id, sizeof(id)), -ENOENT);
	assert_int_equal(buildid_cache__lookup(cache, 2, 2, id, sizeof(id)), -ENOENT);
	for (i = 0; i < 5000; i++)	/* grows the table */
		buildid_cache__add(cache, 7, i, ID_B, (int)(1 + i % 20));
	for (i = 0; i < 5000; i++) {
		assert_int_equal(buildid_cache__lookup(cache, 7, i, id, sizeof(id)), 1 + i % 20);
		assert_int_equal(id[0], ID_B[0]);
	}
	assert_int_equal(buildid_cache__lookup(cache, 1, 2, id, sizeof(id)), 20);
	buildid_cache__delete(cache);
	buildid_cache__delete(NULL);
	assert_int_equal(buildid_cache__lookup(NULL, 1, 2, id, sizeof(id)), -ENOENT);
}

/* ---- tests: two workers sharing a cache and stats ------------------------ */

struct par_arg {
	const struct synth_opts	*o;
	struct collector	c;
	int			err;
};

static void *par_worker(void *p)
{
	struct par_arg *a = p;

	a->err = synthesize__process(a->o, getpid(), collector__emit, &a->c);
	return NULL;
}

static bool same_mmap2(const struct collector *a, const struct collector *b)
{
	size_t i, j, n = 0;

	for (i = 0; i < a->nr; i++) {
		if (collector__hdr(a, i)->type != PERF_RECORD_MMAP2)
			continue;
		for (j = 0; j < b->nr; j++)
			if (b->recs[j].size == a->recs[i].size &&
			    !memcmp(b->recs[j].data, a->recs[i].data, a->recs[i].size))
				break;
		if (j == b->nr)
			return false;
		n++;
	}
	return n == count_type(b, PERF_RECORD_MMAP2);
}

static void test_parallel_shared(void **state)
{
	struct synth_stats stats = { 0 };
	struct par_arg a[2] = { 0 };
	struct collector serial = { 0 };
	struct buildid_cache *cache;
	struct synth_opts o;
	pthread_t t[2];
	int i;

	opts_init(&o, ID_HDR);
	o.build_id = true;
	o.stats = &stats;
	cache = buildid_cache__new();
	assert_non_null(cache);
	o.bid_cache = cache;
	for (i = 0; i < 2; i++) {
		a[i].o = &o;
		assert_int_equal(pthread_create(&t[i], NULL, par_worker, &a[i]), 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	o.bid_cache = NULL;
	assert_int_equal(synthesize__process(&o, getpid(), collector__emit, &serial), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(a[i].err, 0);
		check_stream(&a[i].c, ID_HDR);
		assert_true(same_mmap2(&a[i].c, &serial));
		collector__reset(&a[i].c);
	}
	assert_true(count_type(&serial, PERF_RECORD_MMAP2) > 0);
	collector__reset(&serial);
	buildid_cache__delete(cache);
	assert_int_equal(stats.nr_map_timeouts, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_process),
		cmocka_unit_test(test_self_process_no_buildid),
		cmocka_unit_test(test_self_thread_map),
		cmocka_unit_test(test_self_gone),
		cmocka_unit_test(test_self_timeout),
		cmocka_unit_test(test_fake_process),
		cmocka_unit_test(test_fake_mmap_data),
		cmocka_unit_test(test_fake_thread_map),
		cmocka_unit_test(test_fake_timeout),
		cmocka_unit_test(test_fake_long_line),
		cmocka_unit_test(test_fake_tree),
		cmocka_unit_test(test_fake_tree_since),
		cmocka_unit_test(test_fake_namespaces),
		cmocka_unit_test(test_self_namespaces),
		cmocka_unit_test(test_fake_cgroups),
		cmocka_unit_test(test_real_cgroups),
		cmocka_unit_test(test_hugetlbfs_mountpoint),
		cmocka_unit_test(test_kernel_real),
		cmocka_unit_test(test_kernel_real_build_id),
		cmocka_unit_test(test_modules_real),
		cmocka_unit_test(test_kernel_fake),
		cmocka_unit_test(test_modules_fake),
		cmocka_unit_test(test_all_real),
		cmocka_unit_test(test_emit_failure),
		cmocka_unit_test(test_id_index_per_cpu),
		cmocka_unit_test(test_id_index_per_thread),
		cmocka_unit_test(test_id_index_split),
		cmocka_unit_test(test_finished),
		cmocka_unit_test(test_buildid_files),
		cmocka_unit_test(test_buildid_cache),
		cmocka_unit_test(test_parallel_shared),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
