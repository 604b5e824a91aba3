// SPDX-License-Identifier: GPL-2.0
/*
 * addr-filter.c — the address filters of --filter for a PMU that has them
 * (its sysfs nr_addr_filters), as perf record reads them (perf's
 * util/auxtrace.c): the filters parsed, their symbols found, and the
 * numeric string the kernel takes through PERF_EVENT_IOC_SET_FILTER.
 *
 * Runs on the main thread while the events are set up. Data flow: the
 * filter text → one struct afilt per filter (action, start symbol or
 * address, end symbol or size, file) → symbols resolved → "action
 * 0xADDR[/0xSIZE][@realpath]" joined by commas.
 *
 * Symbols, perf's way:
 *   - of a file: the functions, objects and labels of its .symtab and
 *     .dynsym (with <elf.h>, the machine's byte order), each at its file
 *     offset (its address less its PT_LOAD's p_vaddr - p_offset, else its
 *     section's sh_addr - sh_offset), sorted by address; one kept of those
 *     at one address (perf's choose_best_symbol() order: sized, not weak,
 *     global, fewer leading underscores, longer name); a symbol of no size
 *     ends where the next begins. The size of a match is its own, else up
 *     to the next symbol.
 *   - of the kernel: kallsyms, in its order; the functions (t, T, w, W) of
 *     that name ("name\t[module]" matches too); the size up to the next
 *     line with another address.
 *   - "sym #N" is the N'th of that name, "#0"/"#g"/"#G" the global one,
 *     no index: the only one (several: an error listing them).
 * Limits: only the named file is read (no build-id cache or separate
 * debug file, where perf may look first); names are matched as they are
 * in the table (perf demangles C++ names first).
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
#include <sys/mman.h>
#include <sys/stat.h>

#include "precord/addr-filter.h"
#include "precord/evsel.h"
#include "precord/pmu.h"
#include "precord/util.h"

#define KALLSYMS	"/proc/kallsyms"
#define FILTER_FORMAT	"filter|start|stop|tracestop <start symbol or address> " \
			"[/ <end symbol or size>] [@<file name>], separated by space or comma"

/* One filter of the text; the strings point into str. */
struct afilt {
	char		*str;
	const char	*action;
	const char	*sym_from, *sym_to, *filename;
	int		from_idx, to_idx;	/* -1: none, 0: the global one, N: the N'th */
	u64		addr, size;
	bool		range;
};

/* A symbol of a file, at its file offset. */
struct fsym {
	u64		start, end;
	const char	*name;		/* in the file's mapping */
	unsigned char	bind, type;
	unsigned int	order;		/* its place in the tables, for a stable sort */
};

struct fsyms {
	struct fsym	*s;
	int		nr, cap;
	void		*map;
	size_t		map_len;
};

/* ---- the filter text, perf's grammar ------------------------------------ */

/* A number (it starts with a digit; num may not be NULL then) or a word up to one of delim. */
static int parse_num_or_str(char **inp, u64 *num, const char **str, const char *delim)
{
	char *end;
	size_t n;

	*inp += strspn(*inp, " ");
	if (isdigit((unsigned char)**inp)) {
		if (!num)
			return -EINVAL;
		errno = 0;
		*num = strtoull(*inp, &end, 0);
		if (errno)
			return -errno;
		if (end == *inp)
			return -EINVAL;
		*inp = end;
		return 0;
	}
	if (!str)
		return -EINVAL;
	*str = *inp;
	n = strcspn(*inp, delim);
	if (!n)
		return -EINVAL;
	*inp += n;
	if (**inp) {
		**inp = '\0';
		*inp += 1;
	}
	return 0;
}

/* "#N", "#g", "#G" after a symbol name. */
static int parse_sym_idx(char **inp, int *idx)
{
	unsigned long v;
	char *end;

	*idx = -1;
	*inp += strspn(*inp, " ");
	if (**inp != '#')
		return 0;
	*inp += 1;
	if (**inp == 'g' || **inp == 'G') {
		*inp += 1;
		*idx = 0;
		return 0;
	}
	errno = 0;
	v = strtoul(*inp, &end, 0);
	if (errno)
		return -errno;
	if (end == *inp || v > INT_MAX)
		return -EINVAL;
	*inp = end;
	*idx = (int)v;
	return 0;
}

static int parse_addr_size(char **inp, u64 *num, const char **str, int *idx)
{
	int err = parse_num_or_str(inp, num, str, " ");

	if (!err && *str)
		err = parse_sym_idx(inp, idx);
	return err;
}

static int parse_action(struct afilt *f)
{
	if (!strcmp(f->action, "filter"))
		f->range = true;
	else if (!strcmp(f->action, "tracestop")) {
		f->range = true;
		f->action += 5;		/* the kernel's word is "stop" */
	} else if (strcmp(f->action, "start") && strcmp(f->action, "stop"))
		return -EINVAL;
	return 0;
}

/* One filter from *inp, which moves past it and its separators. */
static int parse_one(struct afilt *f, const char **inp)
{
	char *s;
	int err;

	memset(f, 0, sizeof(*f));
	f->from_idx = f->to_idx = -1;
	f->str = s = strdup(*inp);
	if (!s)
		return -ENOMEM;
	err = parse_num_or_str(&s, NULL, &f->action, " ");
	if (!err)
		err = parse_action(f);
	if (!err)
		err = parse_addr_size(&s, &f->addr, &f->sym_from, &f->from_idx);
	if (err)
		return err;
	s += strspn(s, " ");
	if (*s == '/') {
		s++;
		err = parse_addr_size(&s, &f->size, &f->sym_to, &f->to_idx);
		if (err)
			return err;
		f->range = true;
	}
	s += strspn(s, " ");
	if (*s == '@') {
		s++;
		err = parse_num_or_str(&s, NULL, &f->filename, " ,");
		if (err)
			return err;
	}
	s += strspn(s, " ,");
	*inp += s - f->str;
	return 0;
}

/* ---- a file's symbols ----------------------------------------------------- */

/* The parts of an ELF file this module reads, either class. */
struct elfv {
	const unsigned char	*base;
	size_t			len;
	bool			is64;
};

static bool elfv__in(const struct elfv *e, u64 off, u64 len)
{
	return off <= e->len && len <= e->len - off;
}

struct shdr {
	u32	name, type, link;
	u64	flags, addr, offset, size, entsize;
};

static int elfv__shdr(const struct elfv *e, u64 shoff, u32 i, struct shdr *sh)
{
	if (e->is64) {
		Elf64_Shdr s;

		if (!elfv__in(e, shoff + (u64)i * sizeof(s), sizeof(s)))
			return -ENOEXEC;
		memcpy(&s, e->base + shoff + (u64)i * sizeof(s), sizeof(s));
		*sh = (struct shdr){ s.sh_name, s.sh_type, s.sh_link, s.sh_flags, s.sh_addr,
				     s.sh_offset, s.sh_size, s.sh_entsize };
	} else {
		Elf32_Shdr s;

		if (!elfv__in(e, shoff + (u64)i * sizeof(s), sizeof(s)))
			return -ENOEXEC;
		memcpy(&s, e->base + shoff + (u64)i * sizeof(s), sizeof(s));
		*sh = (struct shdr){ s.sh_name, s.sh_type, s.sh_link, s.sh_flags, s.sh_addr,
				     s.sh_offset, s.sh_size, s.sh_entsize };
	}
	return 0;
}

/* The ELF header's fields used here. */
struct ehdr {
	u64	phoff, shoff;
	u32	phnum, shnum, shstrndx;
};

static int elfv__open(struct elfv *e, struct ehdr *h)
{
	const unsigned char *id = e->base;

	if (e->len < EI_NIDENT || memcmp(id, ELFMAG, SELFMAG) ||
	    id[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
		return -ENOEXEC;
	e->is64 = id[EI_CLASS] == ELFCLASS64;
	if (e->is64) {
		Elf64_Ehdr x;

		if (e->len < sizeof(x))
			return -ENOEXEC;
		memcpy(&x, e->base, sizeof(x));
		*h = (struct ehdr){ x.e_phoff, x.e_shoff, x.e_phnum, x.e_shnum, x.e_shstrndx };
	} else if (id[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr x;

		if (e->len < sizeof(x))
			return -ENOEXEC;
		memcpy(&x, e->base, sizeof(x));
		*h = (struct ehdr){ x.e_phoff, x.e_shoff, x.e_phnum, x.e_shnum, x.e_shstrndx };
	} else {
		return -ENOEXEC;
	}
	return 0;
}

/* value - (p_vaddr - p_offset) of the PT_LOAD holding value; false: none does. */
static bool elfv__file_offset(const struct elfv *e, const struct ehdr *h, u64 value, u64 *off)
{
	u64 phsz = e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	u32 i;

	for (i = 0; i < h->phnum; i++) {
		u64 at = h->phoff + (u64)i * phsz, type, vaddr, poff, filesz, memsz, sz;

		if (!elfv__in(e, at, phsz))
			return false;
		if (e->is64) {
			Elf64_Phdr p;

			memcpy(&p, e->base + at, sizeof(p));
			type = p.p_type, vaddr = p.p_vaddr, poff = p.p_offset;
			filesz = p.p_filesz, memsz = p.p_memsz;
		} else {
			Elf32_Phdr p;

			memcpy(&p, e->base + at, sizeof(p));
			type = p.p_type, vaddr = p.p_vaddr, poff = p.p_offset;
			filesz = p.p_filesz, memsz = p.p_memsz;
		}
		sz = memsz > filesz ? memsz : filesz;
		if (type != PT_LOAD || !sz)
			continue;
		if (value >= vaddr && value < vaddr + sz) {
			*off = value - (vaddr - poff);
			return true;
		}
	}
	return false;
}

static const char *elfv__str(const struct elfv *e, const struct shdr *strtab, u32 off)
{
	const char *s;

	if (off >= strtab->size || !elfv__in(e, strtab->offset, strtab->size))
		return NULL;
	s = (const char *)e->base + strtab->offset + off;
	return memchr(s, '\0', strtab->size - off) ? s : NULL;
}

static int fsyms__add(struct fsyms *fs, const struct fsym *s)
{
	struct fsym *n;

	if (fs->nr == fs->cap) {
		int cap = fs->cap ? fs->cap * 2 : 64;

		n = realloc(fs->s, (size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		fs->s = n;
		fs->cap = cap;
	}
	fs->s[fs->nr] = *s;
	fs->s[fs->nr].order = (unsigned int)fs->nr;
	fs->nr++;
	return 0;
}

/* The symbols of one table (a SHT_SYMTAB or SHT_DYNSYM section) perf keeps. */
static int fsyms__read_table(struct fsyms *fs, const struct elfv *e, const struct ehdr *h,
			     const struct shdr *tab)
{
	size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct shdr strtab, sec, shstr;
	u64 i, n;
	int err;

	if (!elfv__in(e, tab->offset, tab->size) ||
	    elfv__shdr(e, h->shoff, tab->link, &strtab) ||
	    elfv__shdr(e, h->shoff, h->shstrndx, &shstr))
		return -ENOEXEC;
	n = tab->size / esz;
	for (i = 1; i < n; i++) {
		u32 name, shndx;
		u64 value, size;
		unsigned char info, other, type;
		const char *sname, *secname;
		struct fsym s;

		if (e->is64) {
			Elf64_Sym y;

			memcpy(&y, e->base + tab->offset + i * esz, sizeof(y));
			name = y.st_name, shndx = y.st_shndx, value = y.st_value, size = y.st_size;
			info = y.st_info, other = y.st_other;
		} else {
			Elf32_Sym y;

			memcpy(&y, e->base + tab->offset + i * esz, sizeof(y));
			name = y.st_name, shndx = y.st_shndx, value = y.st_value, size = y.st_size;
			info = y.st_info, other = y.st_other;
		}
		type = ELF64_ST_TYPE(info);
		if (!name || shndx == SHN_UNDEF || shndx == SHN_ABS || shndx >= SHN_LORESERVE)
			continue;
		if (elfv__shdr(e, h->shoff, shndx, &sec) || !(sec.flags & SHF_ALLOC))
			continue;
		if (type == STT_NOTYPE) {
			/* a label: kept in text and data sections, not hidden or internal */
			secname = elfv__str(e, &shstr, sec.name);
			if (ELF64_ST_VISIBILITY(other) == STV_HIDDEN ||
			    ELF64_ST_VISIBILITY(other) == STV_INTERNAL || !secname ||
			    (!strstr(secname, "text") && !strstr(secname, "data")))
				continue;
		} else if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) {
			continue;
		}
		sname = elfv__str(e, &strtab, name);
		if (!sname)
			continue;
		if (!elfv__file_offset(e, h, value, &s.start))
			s.start = value - (sec.addr - sec.offset);
		s.end = s.start + size;
		s.name = sname;
		s.bind = ELF64_ST_BIND(info);
		s.type = type;
		err = fsyms__add(fs, &s);
		if (err)
			return err;
	}
	return 0;
}

static int fsym__cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/* Of two symbols at one address, whether a is the one to keep (perf's order of preference). */
static bool fsym__better(const struct fsym *a, const struct fsym *b)
{
	bool asz = a->end > a->start, bsz = b->end > b->start;
	size_t na, nb;

	if (asz != bsz)
		return asz;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	na = leading_underscores(a->name);
	nb = leading_underscores(b->name);
	if (na != nb)
		return na < nb;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return na > nb;
	return true;
}

/* Sorted, the sizeless ended at the next one, one per address. */
static void fsyms__fixup(struct fsyms *fs)
{
	int i, n = 0;

	qsort(fs->s, (size_t)fs->nr, sizeof(*fs->s), fsym__cmp);
	for (i = 0; i + 1 < fs->nr; i++)
		if (fs->s[i].end == fs->s[i].start)
			fs->s[i].end = fs->s[i + 1].start;
	if (fs->nr && fs->s[fs->nr - 1].end == fs->s[fs->nr - 1].start)
		fs->s[fs->nr - 1].end = ((fs->s[fs->nr - 1].start + 4095) & ~4095ull) + 4096;
	for (i = 0; i < fs->nr; i++) {
		if (n && fs->s[n - 1].start == fs->s[i].start) {
			if (!fsym__better(&fs->s[n - 1], &fs->s[i]))
				fs->s[n - 1] = fs->s[i];
			continue;
		}
		fs->s[n++] = fs->s[i];
	}
	fs->nr = n;
}

static void fsyms__exit(struct fsyms *fs)
{
	free(fs->s);
	if (fs->map)
		munmap(fs->map, fs->map_len);
	memset(fs, 0, sizeof(*fs));
}

/* The symbols of path. 0, or -errno (-ENOEXEC: no ELF file of this machine). */
static int fsyms__load(struct fsyms *fs, const char *path)
{
	struct elfv e;
	struct ehdr h;
	struct shdr sh;
	struct stat st;
	u32 i;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !st.st_size) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
		close(fd);
		return err;
	}
	fs->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = fs->map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err) {
		fs->map = NULL;
		return err;
	}
	fs->map_len = (size_t)st.st_size;
	e = (struct elfv){ .base = fs->map, .len = fs->map_len };
	err = elfv__open(&e, &h);
	for (i = 0; !err && i < h.shnum; i++) {
		err = elfv__shdr(&e, h.shoff, i, &sh);
		if (!err && (sh.type == SHT_SYMTAB || sh.type == SHT_DYNSYM))
			err = fsyms__read_table(fs, &e, &h, &sh);
	}
	if (!err)
		fsyms__fixup(fs);
	return err;
}

/* Same name, and the global one, the idx'th (counted in *cnt) or any (idx < 0). */
static bool fsym__match(const struct fsym *s, const char *name, int *cnt, int idx)
{
	return !strcmp(s->name, name) &&
	       ((!idx && s->bind == STB_GLOBAL) || (idx > 0 && ++*cnt == idx) || idx < 0);
}

static int not_found(char *msg, size_t len, const char *where, const char *name, int idx)
{
	if (idx > 0)
		return errbuf__set(msg, len, -ENOENT, "%sN'th occurrence (N=%d) of symbol '%s' not "
				   "found (symbols must be functions)", where, idx, name);
	if (!idx)
		return errbuf__set(msg, len, -ENOENT, "%sGlobal symbol '%s' not found (symbols must "
				   "be functions)", where, name);
	return errbuf__set(msg, len, -ENOENT, "%sSymbol '%s' not found (symbols must be "
			   "functions)", where, name);
}

/* "#1 0x1139 g, #2 0x1150 l" for the message that lists several of one name. */
static void fsyms__list(const struct fsyms *fs, const char *name, char *buf, size_t size)
{
	size_t at = 0;
	int i, cnt = 0;

	buf[0] = '\0';
	for (i = 0; i < fs->nr && at < size; i++)
		if (!strcmp(fs->s[i].name, name))
			at += (size_t)snprintf(buf + at, size - at, "%s#%d 0x%llx %c", cnt ? ", " : "",
					       cnt + 1, (unsigned long long)fs->s[i].start,
					       fs->s[i].bind == STB_GLOBAL ? 'g' :
					       fs->s[i].bind == STB_LOCAL ? 'l' : 'w'), cnt++;
}

static int fsyms__find(const struct fsyms *fs, const char *file, const char *name, int idx,
		       u64 *start, u64 *size, char *msg, size_t len)
{
	char where[PATH_MAX + 32], list[512];
	int i, cnt = 0;

	*start = *size = 0;
	for (i = 0; i < fs->nr; i++) {
		const struct fsym *s = &fs->s[i];

		if (*start) {
			if (!*size)
				*size = s->start - *start;
			if (idx > 0) {
				if (*size)
					return 0;
			} else if (fsym__match(s, name, &cnt, idx)) {
				fsyms__list(fs, name, list, sizeof(list));
				return errbuf__set(msg, len, -EINVAL, "Multiple symbols with name '%s' "
						   "in %s (%s): disambiguate with '%s #2' (#n, the n'th) "
						   "or '%s #g' (#0, #g or #G: the global one)", name,
						   file, list, name, name);
			}
		} else if (fsym__match(s, name, &cnt, idx)) {
			*start = s->start;
			*size = s->end - s->start;
		}
	}
	if (!*start) {
		snprintf(where, sizeof(where), "%s: ", file);
		return not_found(msg, len, where, name, idx);
	}
	return 0;
}

/* ---- the kernel's symbols (kallsyms) --------------------------------------- */

struct ksym_args {
	const char	*name;
	int		idx, cnt;
	bool		global, selected, started, duplicate, restricted;
	u64		start, size;
	char		list[512];
	size_t		list_at;
};

static bool kallsyms_function(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

static bool ksym_name_match(const char *kname, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(kname, name) || (!strncmp(kname, name, n) && kname[n] == '\t');
}

static bool ksym_match(struct ksym_args *a, const char *name, char type)
{
	return kallsyms_function(type) && ksym_name_match(name, a->name) &&
	       ((a->global && isupper((unsigned char)type)) ||
		(a->selected && ++a->cnt == a->idx) || (!a->global && !a->selected));
}

/*
 * Each kallsyms line to fn, in order, until it returns non-zero. 0, or
 * -errno; a->restricted when every address read is zero.
 */
static int kallsyms__walk(const char *path, void *arg,
			  int (*fn)(void *arg, const char *name, char type, u64 start),
			  bool *restricted)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *name;
	bool any = false;
	size_t cap = 0, n;
	const char *p;
	u64 addr;

	if (!f)
		return -errno;
	*restricted = true;
	while (getline(&line, &cap, f) >= 0) {
		if (parse__u64(line, 16, &addr, &p) || *p != ' ' || !p[1] || p[2] != ' ')
			continue;
		name = (char *)p + 3;
		n = strlen(name);
		while (n && name[n - 1] == '\n')
			name[--n] = '\0';
		any = true;
		if (addr)
			*restricted = false;
		if (fn && fn(arg, name, p[1], addr))
			break;
	}
	free(line);
	fclose(f);
	if (!any)
		*restricted = false;
	return 0;
}

static int ksym_find_cb(void *arg, const char *name, char type, u64 start)
{
	struct ksym_args *a = arg;

	if (a->started) {
		if (!a->size)
			a->size = start - a->start;
		if (a->selected) {
			if (a->size)
				return 1;
		} else if (ksym_match(a, name, type)) {
			a->duplicate = true;
			return 1;
		}
	} else if (ksym_match(a, name, type)) {
		a->started = true;
		a->start = start;
	}
	return 0;
}

static int ksym_list_cb(void *arg, const char *name, char type, u64 start)
{
	struct ksym_args *a = arg;

	if (ksym_match(a, name, type) && ++a->cnt && a->list_at < sizeof(a->list))
		a->list_at += (size_t)snprintf(a->list + a->list_at, sizeof(a->list) - a->list_at,
					       "%s#%d 0x%llx %c", a->cnt > 1 ? ", " : "", a->cnt,
					       (unsigned long long)start, type);
	return 0;
}

static int ksym__find(const char *kallsyms, const char *name, int idx, u64 *start, u64 *size,
		      char *msg, size_t len)
{
	struct ksym_args a = { .name = name, .idx = idx, .global = !idx, .selected = idx > 0 };
	bool restricted;
	int err;

	*start = *size = 0;
	err = kallsyms__walk(kallsyms, &a, ksym_find_cb, &restricted);
	if (err)
		return errbuf__set(msg, len, err, "Failed to parse %s: %s", kallsyms, strerror(-err));
	if (a.duplicate) {
		struct ksym_args l = { .name = name, .idx = -1 };

		kallsyms__walk(kallsyms, &l, ksym_list_cb, &restricted);
		return errbuf__set(msg, len, -EINVAL, "Multiple kernel symbols with name '%s' (%s): "
				   "disambiguate with '%s #2' (#n, the n'th) or '%s #g' (#0, #g or "
				   "#G: the global one)", name, l.list, name, name);
	}
	if (!a.started)
		return not_found(msg, len, "Kernel symbol lookup: ", name, idx);
	*start = a.start;
	*size = a.size;
	return 0;
}

static int kernel_text_cb(void *arg, const char *name, char type, u64 start)
{
	struct ksym_args *a = arg;
	u64 size;

	if (!kallsyms_function(type))
		return 0;
	if (!a->started) {
		a->started = true;
		a->start = start;
	}
	/* where the kernel ends is not known: a page past the last function's */
	size = ((start + 4095) & ~4095ull) + 4096 - a->start;
	if (size > a->size)
		a->size = size;
	return 0;
}

/* ---- resolution ------------------------------------------------------------- */

static int check_end_after_start(const struct afilt *f, u64 start, u64 size, char *msg,
				 size_t len)
{
	if (start + size >= f->addr)
		return 0;
	if (f->sym_from)
		return errbuf__set(msg, len, -EINVAL, "Symbol '%s' (0x%llx) comes before '%s' "
				   "(0x%llx)", f->sym_to, (unsigned long long)start, f->sym_from,
				   (unsigned long long)f->addr);
	return errbuf__set(msg, len, -EINVAL, "Symbol '%s' (0x%llx) comes before address 0x%llx",
			   f->sym_to, (unsigned long long)start, (unsigned long long)f->addr);
}

static int resolve_kernel(struct afilt *f, const char *kallsyms, char *msg, size_t len)
{
	struct ksym_args a = { 0 };
	bool restricted, no_size = false;
	u64 start, size;
	int err;

	err = kallsyms__walk(kallsyms, NULL, NULL, &restricted);
	if (err)
		return errbuf__set(msg, len, err, "Failed to parse %s: %s", kallsyms, strerror(-err));
	if (restricted)
		return errbuf__set(msg, len, -EACCES, "Kernel addresses are restricted. Unable to "
				   "resolve kernel symbols (kernel.kptr_restrict, or not root)");
	if (f->sym_from && !strcmp(f->sym_from, "*")) {
		kallsyms__walk(kallsyms, &a, kernel_text_cb, &restricted);
		if (!a.started)
			return errbuf__set(msg, len, -ENOENT, "Failed to parse %s: no functions",
					   kallsyms);
		f->addr = a.start;
		f->size = a.size;
		return 0;
	}
	if (f->sym_from) {
		err = ksym__find(kallsyms, f->sym_from, f->from_idx, &start, &size, msg, len);
		if (err)
			return err;
		f->addr = start;
		if (f->range && !f->size && !f->sym_to) {
			f->size = size;
			no_size = !size;
		}
	}
	if (f->sym_to) {
		err = ksym__find(kallsyms, f->sym_to, f->to_idx, &start, &size, msg, len);
		if (!err)
			err = check_end_after_start(f, start, size, msg, len);
		if (err)
			return err;
		f->size = start + size - f->addr;
		no_size = !size;
	}
	if (no_size)	/* the last symbol in kallsyms has no size */
		return errbuf__set(msg, len, -EINVAL, "Cannot determine size of symbol '%s'",
				   f->sym_to ? f->sym_to : f->sym_from);
	return 0;
}

static int resolve_file(struct afilt *f, char *msg, size_t len)
{
	struct fsyms fs = { 0 };
	struct stat st;
	u64 start, size;
	int err;

	if (f->sym_from && !strcmp(f->sym_from, "*")) {
		if (stat(f->filename, &st) < 0)
			return errbuf__set(msg, len, -errno, "Failed to determine filter for %s: "
					   "Cannot determine file size: %s", f->filename,
					   strerror(errno));
		f->addr = 0;
		f->size = (u64)st.st_size;
		return 0;
	}
	err = fsyms__load(&fs, f->filename);
	if (err) {
		fsyms__exit(&fs);
		return errbuf__set(msg, len, err, "File '%s' not found or has no symbols: %s",
				   f->filename, err == -ENOEXEC ? "not an ELF file of this machine" :
				   strerror(-err));
	}
	if (f->sym_from) {
		err = fsyms__find(&fs, f->filename, f->sym_from, f->from_idx, &start, &size, msg, len);
		if (err)
			goto out;
		f->addr = start;
		if (f->range && !f->size && !f->sym_to)
			f->size = size;
	}
	if (f->sym_to) {
		err = fsyms__find(&fs, f->filename, f->sym_to, f->to_idx, &start, &size, msg, len);
		if (!err)
			err = check_end_after_start(f, start, size, msg, len);
		if (!err)
			f->size = start + size - f->addr;
	}
out:
	fsyms__exit(&fs);
	return err;
}

/* The kernel's string for one filter, appended to *out (comma-separated). */
static int afilt__append(const struct afilt *f, char **out, char *msg, size_t len)
{
	char real[PATH_MAX], *s, *joined;
	int n;

	if (f->filename && !realpath(f->filename, real))
		return errbuf__set(msg, len, -errno, "cannot find '%s': %s", f->filename,
				   strerror(errno));
	if (f->range)
		n = asprintf(&s, "%s 0x%llx/0x%llx%s%s", f->action, (unsigned long long)f->addr,
			     (unsigned long long)f->size, f->filename ? "@" : "",
			     f->filename ? real : "");
	else
		n = asprintf(&s, "%s 0x%llx%s%s", f->action, (unsigned long long)f->addr,
			     f->filename ? "@" : "", f->filename ? real : "");
	if (n < 0)
		return -ENOMEM;
	if (!*out) {
		*out = s;
		return 0;
	}
	n = asprintf(&joined, "%s,%s", *out, s);
	free(s);
	if (n < 0)
		return -ENOMEM;
	free(*out);
	*out = joined;
	return 0;
}

int addr_filter__resolve(const char *filter, int max_nr, const char *kallsyms, char **out,
			 char *msg, size_t len)
{
	const char *p = filter;
	struct afilt *fs = NULL, *n;
	char why[1024] = "";
	int nr = 0, i, err = 0;

	*out = NULL;
	kallsyms = kallsyms ? kallsyms : KALLSYMS;
	while (*p && !err) {
		n = realloc(fs, (size_t)(nr + 1) * sizeof(*fs));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		fs = n;
		err = parse_one(&fs[nr], &p);
		nr++;
	}
	if (err && err != -ENOMEM)
		snprintf(why, sizeof(why), "Filter format is: %s", FILTER_FORMAT);
	if (!err && nr > max_nr) {
		err = -EINVAL;
		snprintf(why, sizeof(why), "number of address filters (%d) exceeds maximum (%d)",
			 nr, max_nr);
	}
	for (i = 0; i < nr && !err; i++) {
		if (fs[i].sym_from || fs[i].sym_to)
			err = fs[i].filename ? resolve_file(&fs[i], why, sizeof(why)) :
			      resolve_kernel(&fs[i], kallsyms, why, sizeof(why));
		if (!err)
			err = afilt__append(&fs[i], out, why, sizeof(why));
	}
	for (i = 0; i < nr; i++)
		free(fs[i].str);
	free(fs);
	if (err) {
		free(*out);
		*out = NULL;
		errbuf__set(msg, len, 0, "Failed to parse address filter: '%s': %s", filter,
			    why[0] ? why : strerror(-err));
	}
	return err;
}

int addr_filter__apply(struct evsel *evsel, const char *pmu_root, const char *kallsyms,
		       char *msg, size_t len)
{
	int max_nr, err;
	char *out;

	if (!evsel->filter || evsel__is_tracepoint(evsel))
		return 0;
	max_nr = pmu__nr_addr_filters(pmu_root, evsel->attr.type);
	if (max_nr <= 0)
		return 0;
	err = addr_filter__resolve(evsel->filter, max_nr, kallsyms, &out, msg, len);
	if (err)
		return err;
	free(evsel->filter);
	evsel->filter = out;
	return 0;
}

int addr_filter__append(struct evsel *evsel, const char *filter)
{
	return evsel__join_filter(evsel, "", " , ", "", filter);
}
