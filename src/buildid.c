// SPDX-License-Identifier: GPL-2.0
/*
 * buildid.c — GNU build ids read by hand from ELF files and raw note blobs,
 * and a small cache of them by (device, inode).
 *
 * An ELF's build id is the descriptor of its NT_GNU_BUILD_ID note, owner
 * "GNU". Executables and shared objects carry it in a PT_NOTE segment;
 * relocatable objects (kernel modules) only have sections, so SHT_NOTE
 * sections are searched when no segment has it. /sys/kernel/notes and
 * /sys/module/M/notes/.note.gnu.build-id hold bare notes. 32- and 64-bit
 * ELF of the machine's byte order are read; everything read from the file
 * is bounds-checked (notes are capped at NOTES_MAX bytes per segment).
 *
 * Threads: buildid__*() are reentrant. The cache is shared by synthesis
 * workers; its table is under cache->lock.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "precord/synthesize.h"
#include "precord/util.h"

#define NOTES_MAX	(1 << 20)	/* larger note areas are not build ids */
#define HDRS_MAX	(1 << 20)	/* program/section header tables */

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ELFDATA_NATIVE	ELFDATA2LSB
#else
#define ELFDATA_NATIVE	ELFDATA2MSB
#endif

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int buildid__parse_notes(const void *notes, size_t len, size_t align, u8 *id, size_t size)
{
	const unsigned char *p = notes;
	size_t off = 0;

	if (align != 8)
		align = 4;
	while (off <= len && len - off >= sizeof(Elf32_Nhdr)) {
		Elf32_Nhdr nh;	/* same layout as Elf64_Nhdr */
		size_t name_off, desc_off, next;

		memcpy(&nh, p + off, sizeof(nh));
		name_off = off + sizeof(nh);
		if (nh.n_namesz > len - name_off)
			break;
		/* offsets from the start of the area, which is itself aligned */
		desc_off = align_up(name_off + nh.n_namesz, align);
		if (desc_off > len || nh.n_descsz > len - desc_off)
			break;
		next = align_up(desc_off + nh.n_descsz, align);

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && nh.n_descsz > 0) {
			size_t n = nh.n_descsz;

			if (n > BUILD_ID_SIZE)
				n = BUILD_ID_SIZE;
			if (n > size)
				n = size;
			memcpy(id, p + desc_off, n);
			return (int)n;
		}
		if (next <= off)
			break;
		off = next;
	}
	return -ENODATA;
}

/* One note area of the file: [off, off + len) with its alignment. */
static int notes_at(int fd, u64 off, u64 len, u64 align, u8 *id, size_t size)
{
	void *buf;
	int err;

	if (len == 0)
		return -ENODATA;
	if (len > NOTES_MAX)
		len = NOTES_MAX;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = pread_all(fd, buf, len, off, -ENOEXEC);
	if (!err)
		err = buildid__parse_notes(buf, len, align, id, size);
	free(buf);
	return err;
}

/* The class-independent view of an ELF header we need. */
struct elf_info {
	bool	is64;
	u64	phoff, shoff;
	u32	phnum, shnum;
	u32	phentsize, shentsize;
};

static int elf_info__read(int fd, struct elf_info *ei)
{
	union {
		unsigned char	ident[EI_NIDENT];
		Elf32_Ehdr	e32;
		Elf64_Ehdr	e64;
	} h;
	int err;

	err = pread_all(fd, &h, sizeof(h.ident), 0, -ENOEXEC);
	if (err)
		return err;
	if (memcmp(h.ident, ELFMAG, SELFMAG) || h.ident[EI_DATA] != ELFDATA_NATIVE)
		return -ENOEXEC;
	if (h.ident[EI_CLASS] == ELFCLASS64) {
		err = pread_all(fd, &h.e64, sizeof(h.e64), 0, -ENOEXEC);
		if (err)
			return err;
		*ei = (struct elf_info){
			.is64 = true,
			.phoff = h.e64.e_phoff, .phnum = h.e64.e_phnum,
			.phentsize = h.e64.e_phentsize,
			.shoff = h.e64.e_shoff, .shnum = h.e64.e_shnum,
			.shentsize = h.e64.e_shentsize,
		};
	} else if (h.ident[EI_CLASS] == ELFCLASS32) {
		err = pread_all(fd, &h.e32, sizeof(h.e32), 0, -ENOEXEC);
		if (err)
			return err;
		*ei = (struct elf_info){
			.is64 = false,
			.phoff = h.e32.e_phoff, .phnum = h.e32.e_phnum,
			.phentsize = h.e32.e_phentsize,
			.shoff = h.e32.e_shoff, .shnum = h.e32.e_shnum,
			.shentsize = h.e32.e_shentsize,
		};
	} else {
		return -ENOEXEC;
	}
	return 0;
}

/* Read a header table (program or section headers) into a malloc'ed buffer. */
static int table__read(int fd, u64 off, u32 num, u32 entsize, size_t minsize, void **out)
{
	size_t len = (size_t)num * entsize;
	void *buf;
	int err;

	*out = NULL;
	if (num == 0 || off == 0)
		return -ENODATA;
	if (entsize < minsize || len > HDRS_MAX)
		return -ENOEXEC;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = pread_all(fd, buf, len, off, -ENOEXEC);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

/* What a program or section header says of the bytes it describes. */
struct elf_extent {
	u64	type, off, len, align;
};

static void phdr__extent(bool is64, const char *ent, struct elf_extent *x)
{
	if (is64) {
		Elf64_Phdr ph;

		memcpy(&ph, ent, sizeof(ph));
		*x = (struct elf_extent){ ph.p_type, ph.p_offset, ph.p_filesz, ph.p_align };
	} else {
		Elf32_Phdr ph;

		memcpy(&ph, ent, sizeof(ph));
		*x = (struct elf_extent){ ph.p_type, ph.p_offset, ph.p_filesz, ph.p_align };
	}
}

static void shdr__extent(bool is64, const char *ent, struct elf_extent *x)
{
	if (is64) {
		Elf64_Shdr sh;

		memcpy(&sh, ent, sizeof(sh));
		*x = (struct elf_extent){ sh.sh_type, sh.sh_offset, sh.sh_size, sh.sh_addralign };
	} else {
		Elf32_Shdr sh;

		memcpy(&sh, ent, sizeof(sh));
		*x = (struct elf_extent){ sh.sh_type, sh.sh_offset, sh.sh_size, sh.sh_addralign };
	}
}

/* A header table: where it lies, how to read an entry, which type holds notes. */
struct elf_table {
	u64	off;
	u32	num, entsize;
	size_t	minsize;
	void	(*extent)(bool is64, const char *ent, struct elf_extent *x);
	u64	note_type;
};

/* The build id in the first note extent of the table that has one. */
static int table__find(int fd, const struct elf_info *ei, const struct elf_table *t,
		       u8 *id, size_t size)
{
	struct elf_extent x;
	void *tab;
	u32 i;
	int err = table__read(fd, t->off, t->num, t->entsize, t->minsize, &tab);

	if (err)
		return err;
	err = -ENODATA;
	for (i = 0; i < t->num && err < 0 && err != -ENOMEM; i++) {
		t->extent(ei->is64, (const char *)tab + (size_t)i * t->entsize, &x);
		if (x.type == t->note_type)
			err = notes_at(fd, x.off, x.len, x.align, id, size);
	}
	free(tab);
	return err;
}

static int phdrs__find(int fd, const struct elf_info *ei, u8 *id, size_t size)
{
	const struct elf_table t = {
		.off = ei->phoff, .num = ei->phnum, .entsize = ei->phentsize,
		.minsize = ei->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr),
		.extent = phdr__extent, .note_type = PT_NOTE,
	};

	if (ei->phnum == PN_XNUM)	/* count in section 0: not for build ids */
		return -ENODATA;
	return table__find(fd, ei, &t, id, size);
}

static int shdrs__find(int fd, const struct elf_info *ei, u8 *id, size_t size)
{
	const struct elf_table t = {
		.off = ei->shoff, .num = ei->shnum, .entsize = ei->shentsize,
		.minsize = ei->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr),
		.extent = shdr__extent, .note_type = SHT_NOTE,
	};

	return table__find(fd, ei, &t, id, size);
}

int buildid__read(const char *path, u8 *id, size_t size)
{
	struct elf_info ei;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = elf_info__read(fd, &ei);
	if (!err) {
		err = phdrs__find(fd, &ei, id, size);
		if (err < 0 && err != -ENOMEM)
			err = shdrs__find(fd, &ei, id, size);
		/* malformed tables only matter if nothing else was found */
		if (err == -ENOEXEC)
			err = -ENODATA;
	}
	close(fd);
	return err;
}

int buildid__read_notes(const char *path, u8 *id, size_t size)
{
	unsigned char *buf;
	size_t len = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(NOTES_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < NOTES_MAX) {
		ssize_t n = read(fd, buf + len, NOTES_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!err)
		err = buildid__parse_notes(buf, len, 4, id, size);
	free(buf);
	return err;
}

int buildid__snprintf(const u8 *id, int len, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	int i;

	for (i = 0; i < len && n + 2 < size; i++) {
		buf[n++] = hex[id[i] >> 4];
		buf[n++] = hex[id[i] & 15];
	}
	if (size)
		buf[n] = '\0';
	return len > 0 ? 2 * len : 0;
}

/* ---- cache ------------------------------------------------------------ */

struct bid_entry {
	struct bid_entry	*next;
	u64			dev;
	u64			ino;
	int			len;		/* > 0: id valid; < 0: -errno */
	u8			id[BUILD_ID_SIZE];
};

struct buildid_cache {
	pthread_mutex_t		lock;
	struct bid_entry	**buckets;	/* L: lock */
	size_t			nr_buckets;	/* L: lock (power of two) */
	size_t			nr;		/* L: lock */
};

static size_t bid_hash(u64 dev, u64 ino, size_t nr_buckets)
{
	u64 h = (ino ^ (dev * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h >> 32) & (nr_buckets - 1);
}

struct buildid_cache *buildid_cache__new(void)
{
	struct buildid_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nr_buckets = 256;
	c->buckets = calloc(c->nr_buckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void buildid_cache__delete(struct buildid_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_buckets; i++) {
		struct bid_entry *e = c->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct bid_entry *bid__find(struct buildid_cache *c, u64 dev, u64 ino)
{
	struct bid_entry *e = c->buckets[bid_hash(dev, ino, c->nr_buckets)];

	while (e && (e->dev != dev || e->ino != ino))
		e = e->next;
	return e;
}

int buildid_cache__lookup(struct buildid_cache *c, u64 dev, u64 ino, u8 *id, size_t size)
{
	struct bid_entry *e;
	int ret = -ENOENT;

	if (!c)
		return -ENOENT;
	pthread_mutex_lock(&c->lock);
	e = bid__find(c, dev, ino);
	if (e) {
		ret = e->len;
		if (ret > 0) {
			if ((size_t)ret > size)
				ret = (int)size;
			memcpy(id, e->id, (size_t)ret);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* Double the table when it holds twice as many entries as buckets. L: lock */
static void bid__grow(struct buildid_cache *c)
{
	size_t nr = c->nr_buckets * 2, i;
	struct bid_entry **b = calloc(nr, sizeof(*b));

	if (!b)
		return;		/* keep the longer chains */
	for (i = 0; i < c->nr_buckets; i++) {
		struct bid_entry *e = c->buckets[i], *next;

		for (; e; e = next) {
			size_t h = bid_hash(e->dev, e->ino, nr);

			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nr_buckets = nr;
}

void buildid_cache__add(struct buildid_cache *c, u64 dev, u64 ino, const u8 *id, int len)
{
	struct bid_entry *e;
	size_t h;

	if (!c || len == 0 || len == -ENOENT)
		return;
	if (len > BUILD_ID_SIZE)
		len = BUILD_ID_SIZE;
	pthread_mutex_lock(&c->lock);
	if (bid__find(c, dev, ino))
		goto out_unlock;
	e = calloc(1, sizeof(*e));
	if (!e)
		goto out_unlock;
	e->dev = dev;
	e->ino = ino;
	e->len = len;
	if (len > 0)
		memcpy(e->id, id, (size_t)len);
	h = bid_hash(dev, ino, c->nr_buckets);
	e->next = c->buckets[h];
	c->buckets[h] = e;
	if (++c->nr > 2 * c->nr_buckets)
		bid__grow(c);
out_unlock:
	pthread_mutex_unlock(&c->lock);
}

/*
 * This process's [vdso]: the kernel maps the same image into every process
 * of this ABI, so its build id is theirs (perf reads its own, too). The
 * bytes are copied out of the mapping; the build id is read from them
 * through a memfd, by the same ELF reader as files.
 */
int buildid__vdso(void **image, size_t *len, u8 *id, size_t size)
{
	char line[512], path[64];
	unsigned long start = 0, end = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	void *copy;
	int fd, ret;

	*image = NULL;
	*len = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(f);
	if (!end || end <= start)
		return -ENOENT;
	copy = malloc(end - start);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, (const void *)start, end - start);
	fd = memfd_create("precord-vdso", MFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(copy);
		return ret;
	}
	ret = write_all(fd, copy, end - start);
	if (!ret) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ret = buildid__read(path, id, size);
	}
	close(fd);
	if (ret <= 0) {
		free(copy);
		return ret ? ret : -ENODATA;
	}
	*image = copy;
	*len = end - start;
	return ret;
}
