// SPDX-License-Identifier: GPL-2.0
/*
 * kcore.c — --kcore: the kernel's text kept beside a recording, in the
 * layout perf record writes and perf report reads (DIR/kcore_dir with
 * kallsyms, modules and kcore; perf's kcore_copy() in util/symbol-elf.c
 * is the reference for what goes in).
 *
 * Runs once, on the main thread, after the events are open and before the
 * first record is written. Data flow: FROM/kallsyms and FROM/modules are
 * copied as they are; the copies say where the text is:
 *   - the kernel's: from _stext (else the lowest function symbol) rounded
 *     down to a page, to _etext rounded up (else a page past the highest
 *     function symbol);
 *   - the modules': from the lowest module address (modules, or a module
 *     symbol below it) rounded down, to a page past the highest module
 *     function symbol;
 *   - each entry trampoline's page, to the end of its segment.
 * Every executable PT_LOAD segment of FROM/kcore contributes the part of
 * each range it holds, as one PT_LOAD of the copy; a segment that maps the
 * kernel text's bytes again at another address (x86's direct map of the
 * image) shares them in the copy instead of repeating them. The copy's
 * data starts at the first page after its program headers, its segments'
 * bytes back to back. Then kallsyms and modules are read again: if a
 * module came or went meanwhile, everything is made again (a few times).
 *
 * The ELF is read and written with <elf.h> alone, for either class, in the
 * machine's byte order (kcore is always the running kernel's). Limits: the
 * whole segments are read with pread() through a 1 MiB buffer; /proc/kcore
 * reads unmapped pages back as zeros, so holes in the module range cost
 * their size on disk, as they do in perf's copy.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "precord/kcore.h"
#include "precord/util.h"

#define KCORE_TRIES		5
#define KCORE_CHUNK		(1u << 20)
#define ENTRY_TRAMPOLINE	"__entry_SYSCALL_64_trampoline"

/* One PT_LOAD of the copy. */
struct kmap {
	u64	addr;		/* its virtual address */
	u64	len;
	u64	offset;		/* where its bytes are in the source kcore */
	u64	rel;		/* where they are in the copy, from its first data byte */
	int	remaps;		/* the map whose bytes it shares, or -1 */
};

/* What kallsyms and modules say, and the maps it makes of the source's segments. */
struct kinfo {
	u64		page;
	u64		stext, etext;
	u64		first_symbol, last_symbol;
	u64		first_module, first_module_symbol, last_module_symbol;
	u64		*tramps;	/* entry trampolines' addresses */
	int		nr_tramps;
	struct kmap	*maps;
	int		nr_maps;
};

/* The parts of an ELF header and of a program header this file uses, either class. */
struct kelf {
	unsigned char	ident[EI_NIDENT];
	u16		type, machine;
	u32		version, flags;
	u64		phoff;
	u16		phentsize;
	u32		phnum;
};

struct kphdr {
	u32	type, flags;
	u64	offset, vaddr, filesz, memsz;
};

static u64 round_down(u64 v, u64 page)
{
	return v & ~(page - 1);
}

static u64 round_up(u64 v, u64 page)
{
	return (v + page - 1) & ~(page - 1);
}

static void kinfo__exit(struct kinfo *ki)
{
	free(ki->tramps);
	free(ki->maps);
	memset(ki, 0, sizeof(*ki));
}

/* ---- kallsyms and modules -------------------------------------------------- */

static bool kallsyms_is_function(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

static int kinfo__add_tramp(struct kinfo *ki, u64 addr)
{
	u64 *t = realloc(ki->tramps, (ki->nr_tramps + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	ki->tramps = t;
	t[ki->nr_tramps++] = addr;
	return 0;
}

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]". */
static int kinfo__kallsyms_line(struct kinfo *ki, char *line)
{
	const char *p;
	char *name, type;
	u64 addr;
	size_t n;

	if (parse__u64(line, 16, &addr, &p) || *p != ' ' || !p[1] || p[2] != ' ')
		return 0;	/* not a symbol line: perf skips it too */
	type = p[1];
	name = (char *)p + 3;
	n = strlen(name);
	while (n && (name[n - 1] == '\n' || name[n - 1] == '\r'))
		name[--n] = '\0';
	if (!kallsyms_is_function(type))
		return 0;
	if (strchr(name, '[')) {
		if (!ki->first_module_symbol || addr < ki->first_module_symbol)
			ki->first_module_symbol = addr;
		if (addr > ki->last_module_symbol)
			ki->last_module_symbol = addr;
		return 0;
	}
	if (!ki->first_symbol || addr < ki->first_symbol)
		ki->first_symbol = addr;
	if (addr > ki->last_symbol)
		ki->last_symbol = addr;
	if (!strcmp(name, "_stext"))
		ki->stext = addr;
	else if (!strcmp(name, "_etext"))
		ki->etext = addr;
	else if (!strcmp(name, ENTRY_TRAMPOLINE))
		return kinfo__add_tramp(ki, addr);
	return 0;
}

static int kinfo__read_kallsyms(struct kinfo *ki, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) >= 0)
		err = kinfo__kallsyms_line(ki, line);
	free(line);
	fclose(f);
	return err;
}

/* One modules line: "NAME SIZE REFS DEPS STATE 0xADDR ...": the lowest ADDR. */
static void kinfo__modules_line(struct kinfo *ki, char *line)
{
	char *x = strrchr(line, 'x'), *sp = strchr(line, ' '), *end;
	const char *after;
	u64 addr;

	/* the address may be followed by taint flags: " (OE)" */
	if (!x || !sp || parse__u64(x + 1, 16, &addr, &after))
		return;
	errno = 0;
	strtoul(sp + 1, &end, 0);
	if (errno || (*end != ' ' && *end != '\t'))
		return;
	if (!ki->first_module || addr < ki->first_module)
		ki->first_module = addr;
}

static int kinfo__read_modules(struct kinfo *ki, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0)
		kinfo__modules_line(ki, line);
	free(line);
	fclose(f);
	return 0;
}

/* The text ranges, from what the two files said. 0, or -ENOENT: no kernel text found. */
static int kinfo__ranges(struct kinfo *ki)
{
	u64 page = ki->page;

	ki->stext = round_down(ki->stext ? ki->stext : ki->first_symbol, page);
	if (ki->etext)
		ki->etext = round_up(ki->etext, page);
	else if (ki->last_symbol)
		ki->etext = round_up(ki->last_symbol, page) + page;
	if (ki->first_module_symbol &&
	    (!ki->first_module || ki->first_module_symbol < ki->first_module))
		ki->first_module = ki->first_module_symbol;
	ki->first_module = round_down(ki->first_module, page);
	if (ki->last_module_symbol)
		ki->last_module_symbol = round_up(ki->last_module_symbol, page) + page;
	if (!ki->stext || !ki->etext)
		return -ENOENT;
	if (ki->first_module && !ki->last_module_symbol)
		return -ENOENT;
	return 0;
}

/* ---- the source kcore ------------------------------------------------------ */

static bool kelf__is64(const struct kelf *e)
{
	return e->ident[EI_CLASS] == ELFCLASS64;
}

/*
 * Elf32_ and Elf64_ headers name their fields alike (the 32-bit ones are
 * narrower), so one text reads or builds either class.  KELF_TAKE_EHDR: the
 * ELF header h's fields into the kelf e.
 */
#define KELF_TAKE_EHDR(e, h) do {						\
	(e)->type = (h).e_type;							\
	(e)->machine = (h).e_machine;						\
	(e)->version = (h).e_version;						\
	(e)->flags = (h).e_flags;						\
	(e)->phoff = (h).e_phoff;						\
	(e)->phentsize = (h).e_phentsize;					\
	(e)->phnum = (h).e_phnum;						\
} while (0)

static int kelf__read(int fd, struct kelf *e)
{
	union { Elf32_Ehdr h32; Elf64_Ehdr h64; } h;
	int err = pread_all(fd, &h, sizeof(h.h32), 0, -ENOEXEC);

	if (err)
		return err;
	if (memcmp(h.h32.e_ident, ELFMAG, SELFMAG) ||
	    h.h32.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				       ELFDATA2LSB : ELFDATA2MSB))
		return -ENOEXEC;
	memcpy(e->ident, h.h32.e_ident, EI_NIDENT);
	if (h.h32.e_ident[EI_CLASS] == ELFCLASS32) {
		KELF_TAKE_EHDR(e, h.h32);
		return e->phentsize == sizeof(Elf32_Phdr) ? 0 : -ENOEXEC;
	}
	if (h.h32.e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	err = pread_all(fd, &h, sizeof(h.h64), 0, -ENOEXEC);
	if (err)
		return err;
	KELF_TAKE_EHDR(e, h.h64);
	if (e->phnum == PN_XNUM) {
		/* more headers than e_phnum holds: the count is section 0's sh_info */
		Elf64_Shdr sh;

		err = pread_all(fd, &sh, sizeof(sh), h.h64.e_shoff, -ENOEXEC);
		if (err)
			return err;
		e->phnum = sh.sh_info;
	}
	return e->phentsize == sizeof(Elf64_Phdr) ? 0 : -ENOEXEC;
}

static int kelf__phdr(int fd, const struct kelf *e, u32 i, struct kphdr *ph)
{
	u64 off = e->phoff + (u64)i * e->phentsize;
	Elf32_Phdr p32;
	Elf64_Phdr p64;
	int err;

	if (kelf__is64(e)) {
		err = pread_all(fd, &p64, sizeof(p64), off, -ENOEXEC);
		*ph = (struct kphdr){ p64.p_type, p64.p_flags, p64.p_offset, p64.p_vaddr,
				      p64.p_filesz, p64.p_memsz };
	} else {
		err = pread_all(fd, &p32, sizeof(p32), off, -ENOEXEC);
		*ph = (struct kphdr){ p32.p_type, p32.p_flags, p32.p_offset, p32.p_vaddr,
				      p32.p_filesz, p32.p_memsz };
	}
	return err;
}

/* The part of [s, e) inside the segment [start, end) at pgoff, as a map; none when s is outside. */
static int kinfo__map(struct kinfo *ki, u64 start, u64 end, u64 pgoff, u64 s, u64 e)
{
	struct kmap *m;

	if (s < start || s >= end)
		return 0;
	m = realloc(ki->maps, (ki->nr_maps + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	ki->maps = m;
	m[ki->nr_maps++] = (struct kmap){
		.addr = s, .len = (e < end ? e : end) - s, .offset = s - start + pgoff, .remaps = -1,
	};
	return 0;
}

static int kinfo__segment(struct kinfo *ki, u64 start, u64 len, u64 pgoff)
{
	u64 end = start + len;
	int i, err;

	err = kinfo__map(ki, start, end, pgoff, ki->stext, ki->etext);
	if (!err)
		err = kinfo__map(ki, start, end, pgoff, ki->first_module, ki->last_module_symbol);
	for (i = 0; !err && i < ki->nr_tramps; i++) {
		u64 s = round_down(ki->tramps[i], ki->page);

		/* perf's extent for a trampoline: its page to the end of the segment */
		err = kinfo__map(ki, start, end, pgoff, s, s + len);
	}
	return err;
}

static int kinfo__read_segments(struct kinfo *ki, int fd, const struct kelf *e)
{
	struct kphdr ph;
	u32 i;
	int err;

	for (i = 0; i < e->phnum; i++) {
		err = kelf__phdr(fd, e, i, &ph);
		if (err)
			return err;
		if (ph.type != PT_LOAD || !(ph.flags & PF_X))
			continue;
		if (!(ph.memsz < ph.filesz ? ph.memsz : ph.filesz))
			continue;
		err = kinfo__segment(ki, ph.vaddr, ph.memsz < ph.filesz ? ph.memsz : ph.filesz,
				     ph.offset);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The kernel text's map (the one holding _stext) keeps its bytes; any other
 * map whose source bytes lie inside those shares them. The rest follow
 * one another in the copy, in the order of the source's segments.
 */
static u64 kinfo__layout(struct kinfo *ki)
{
	int i, k = -1;
	u64 rel = 0;

	for (i = 0; i < ki->nr_maps && k < 0; i++)
		if (ki->maps[i].addr <= ki->stext && ki->maps[i].addr + ki->maps[i].len - 1 >= ki->stext)
			k = i;
	for (i = 0; k >= 0 && i < ki->nr_maps; i++) {
		const struct kmap *km = &ki->maps[k];
		struct kmap *m = &ki->maps[i];

		if (i != k && m->offset >= km->offset && m->offset + m->len <= km->offset + km->len)
			m->remaps = k;
	}
	for (i = 0; i < ki->nr_maps; i++) {
		if (ki->maps[i].remaps < 0) {
			ki->maps[i].rel = rel;
			rel += ki->maps[i].len;
		}
	}
	for (i = 0; i < ki->nr_maps; i++) {
		struct kmap *m = &ki->maps[i];

		if (m->remaps >= 0)
			m->rel = m->offset - ki->maps[m->remaps].offset + ki->maps[m->remaps].rel;
	}
	return rel;
}

/* ---- the copy -------------------------------------------------------------- */

/*
 * The copy's ELF header, of type T (Elf32_Ehdr or Elf64_Ehdr), at p: the
 * source's ident, type, machine, version and flags, phnum program headers
 * of phsize bytes right after its ehsize bytes.
 */
#define KCORE_PUT_EHDR(T, p, e, ehsize, phsize, phnum) do {			\
	T h_ = {								\
		.e_type = (e)->type, .e_machine = (e)->machine,			\
		.e_version = (e)->version, .e_phoff = (ehsize),			\
		.e_flags = (e)->flags, .e_ehsize = (ehsize),			\
		.e_phentsize = (phsize), .e_phnum = (phnum),			\
	};									\
										\
	memcpy(h_.e_ident, (e)->ident, EI_NIDENT);				\
	memcpy((p), &h_, sizeof(h_));						\
} while (0)

/*
 * A PT_LOAD program header of type T (Elf32_Phdr or Elf64_Phdr) at p:
 * readable, writable and executable, as the source's segments are; the
 * values narrowed to T's fields.
 */
#define KCORE_PUT_PHDR(T, p, offset, vaddr, len, align) do {			\
	T ph_ = {								\
		.p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X,		\
		.p_offset = (offset), .p_vaddr = (vaddr),			\
		.p_filesz = (len), .p_memsz = (len), .p_align = (align),	\
	};									\
										\
	memcpy((p), &ph_, sizeof(ph_));						\
} while (0)

/* The ELF and program headers of the copy, at the start of out. */
static int kcore__write_headers(int out, const struct kelf *e, const struct kinfo *ki,
				u64 data_off)
{
	size_t ehsize = kelf__is64(e) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsize = kelf__is64(e) ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t size = ehsize + (size_t)ki->nr_maps * phsize;
	unsigned char *buf = calloc(1, size);
	int i, err;

	if (!buf)
		return -ENOMEM;
	if (kelf__is64(e))
		KCORE_PUT_EHDR(Elf64_Ehdr, buf, e, ehsize, phsize, ki->nr_maps);
	else
		KCORE_PUT_EHDR(Elf32_Ehdr, buf, e, ehsize, phsize, ki->nr_maps);
	for (i = 0; i < ki->nr_maps; i++) {
		const struct kmap *m = &ki->maps[i];
		unsigned char *p = buf + ehsize + (size_t)i * phsize;

		if (kelf__is64(e))
			KCORE_PUT_PHDR(Elf64_Phdr, p, data_off + m->rel, m->addr, m->len, ki->page);
		else
			KCORE_PUT_PHDR(Elf32_Phdr, p, data_off + m->rel, m->addr, m->len, ki->page);
	}
	err = pwrite_all(out, buf, size, 0);
	free(buf);
	return err;
}

static int copy_range(int in, u64 from, int out, u64 to, u64 len, void *buf)
{
	while (len) {
		size_t n = len < KCORE_CHUNK ? (size_t)len : KCORE_CHUNK;
		int err = pread_all(in, buf, n, from, -EIO);

		if (!err)
			err = pwrite_all(out, buf, n, to);
		if (err)
			return err;
		from += n;
		to += n;
		len -= n;
	}
	return 0;
}

static int kcore__write(int in, int out, const struct kelf *e, struct kinfo *ki)
{
	size_t phsize = kelf__is64(e) ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	u64 data_off = round_up((kelf__is64(e) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)) +
				(u64)ki->nr_maps * phsize, ki->page);
	u64 size = kinfo__layout(ki);
	void *buf;
	int i, err;

	if (ki->nr_maps >= PN_XNUM)
		return -E2BIG;
	err = kcore__write_headers(out, e, ki, data_off);
	if (err)
		return err;
	buf = malloc(KCORE_CHUNK);
	if (!buf)
		return -ENOMEM;
	for (i = 0; !err && i < ki->nr_maps; i++)
		if (ki->maps[i].remaps < 0)
			err = copy_range(in, ki->maps[i].offset, out, data_off + ki->maps[i].rel,
					 ki->maps[i].len, buf);
	free(buf);
	/* a last map that is a hole still ends the file where its headers say */
	if (!err && size && ftruncate(out, (off_t)(data_off + size)) < 0)
		err = -errno;
	return err;
}

/* ---- files ----------------------------------------------------------------- */

/* A /proc file, read to its end (its size says nothing), into a new file of mode 0400. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		err = write_all(out, buf, (size_t)n);
		if (err)
			break;
	}
	if (!err && fsync(out) < 0 && errno != EINVAL)
		err = -errno;
	close(out);
	close(in);
	return err;
}

/* Read all of fd into a growing buffer; the length, or -errno. */
static ssize_t read_whole(int fd, char **bufp)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap), *nb;
	ssize_t n;

	while (buf) {
		if (len == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n;
		}
		if (!n) {
			*bufp = buf;
			return (ssize_t)len;
		}
		len += (size_t)n;
	}
	free(buf);
	return -ENOMEM;
}

/* Whether a and b hold the same bytes: 1, 0, or -errno. */
static int same_file(const char *a, const char *b)
{
	char *ba = NULL, *bb = NULL;
	ssize_t la = -EBADF, lb = -EBADF;
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC), ret;

	if (fa >= 0)
		la = read_whole(fa, &ba);
	if (fb >= 0)
		lb = read_whole(fb, &bb);
	ret = fa < 0 || fb < 0 ? -errno : la < 0 ? (int)la : lb < 0 ? (int)lb :
	      la == lb && !memcmp(ba, bb, (size_t)la);
	free(ba);
	free(bb);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return ret;
}

static void path_in(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void kcore__unlink_files(const char *to_dir)
{
	static const char *const names[] = { "kcore", "modules", "kallsyms" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		path_in(path, sizeof(path), to_dir, names[i]);
		unlink(path);
	}
}

int kcore__remove(const char *to_dir)
{
	kcore__unlink_files(to_dir);
	return rmdir(to_dir) < 0 ? -errno : 0;
}

/*
 * One attempt: the copies of kallsyms and modules, the kcore they
 * describe. 1 when kallsyms or modules changed meanwhile (try again),
 * 0, or -errno with msg.
 */
static int kcore__copy_once(const char *from_dir, const char *to_dir, long page,
			    char *msg, size_t len)
{
	static const char *const texts[] = { "kallsyms", "modules" };
	char from[PATH_MAX], to[PATH_MAX];
	struct kinfo ki = { .page = (u64)page };
	struct kelf e = { .phnum = 0 };
	int in = -1, out = -1, err = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts) && !err; i++) {
		path_in(from, sizeof(from), from_dir, texts[i]);
		path_in(to, sizeof(to), to_dir, texts[i]);
		err = copy_file(from, to);
		if (err)
			errbuf__set(msg, len, 0, "cannot copy '%s' to '%s': %s", from, to,
				    strerror(-err));
	}
	if (!err) {
		path_in(to, sizeof(to), to_dir, "kallsyms");
		err = kinfo__read_kallsyms(&ki, to);
		path_in(to, sizeof(to), to_dir, "modules");
		if (!err)
			err = kinfo__read_modules(&ki, to);
		if (err)
			errbuf__set(msg, len, 0, "cannot read the copies in '%s': %s", to_dir,
				    strerror(-err));
	}
	if (!err && kinfo__ranges(&ki)) {
		err = -ENOENT;
		path_in(from, sizeof(from), from_dir, "kallsyms");
		errbuf__set(msg, len, 0, "'%s' shows no kernel text addresses (not root, or "
			    "kernel.kptr_restrict hides them)", from);
	}
	path_in(from, sizeof(from), from_dir, "kcore");
	if (!err) {
		in = open(from, O_RDONLY | O_CLOEXEC);
		err = in < 0 ? -errno : kelf__read(in, &e);
		if (!err)
			err = kinfo__read_segments(&ki, in, &e);
		if (err)
			errbuf__set(msg, len, 0, "cannot read '%s': %s", from,
				    err == -ENOEXEC ? "not an ELF core file of this machine" :
				    strerror(-err));
	}
	if (!err) {
		path_in(to, sizeof(to), to_dir, "kcore");
		out = open(to, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
		err = out < 0 ? -errno : kcore__write(in, out, &e, &ki);
		if (!err && fsync(out) < 0)
			err = -errno;
		if (err)
			errbuf__set(msg, len, 0, "cannot copy the kernel's text from '%s' to '%s': %s",
				    from, to, strerror(-err));
	}
	for (i = 0; i < ARRAY_SIZE(texts) && !err; i++) {
		int same;

		path_in(from, sizeof(from), from_dir, texts[i]);
		path_in(to, sizeof(to), to_dir, texts[i]);
		same = same_file(from, to);
		if (same < 0) {
			err = same;
			errbuf__set(msg, len, 0, "cannot read '%s' again: %s", from, strerror(-same));
		} else if (!same) {
			err = 1;
		}
	}
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	kinfo__exit(&ki);
	if (err)
		kcore__unlink_files(to_dir);
	return err;
}

int kcore__copy(const char *from_dir, const char *to_dir, char *msg, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	int tries, err;

	if (page <= 0 || (page & (page - 1)))
		page = 4096;
	if (mkdir(to_dir, 0700) < 0)
		return errbuf__set(msg, len, -errno, "cannot create '%s': %s", to_dir,
				   strerror(errno));
	for (tries = 0; tries < KCORE_TRIES; tries++) {
		err = kcore__copy_once(from_dir, to_dir, page, msg, len);
		if (err <= 0)
			break;
	}
	if (err > 0)
		errbuf__set(msg, len, 0, "'%s/kallsyms' or '%s/modules' changed during each of "
			    "%d copies (modules loading or unloading); record again once they settle",
			    from_dir, from_dir, KCORE_TRIES);
	if (err) {
		rmdir(to_dir);
		return err > 0 ? -EAGAIN : err;
	}
	return 0;
}
