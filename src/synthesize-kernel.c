// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize-kernel.c — the MMAP2 records of the kernel and its modules, as
 * perf 6.1 synthesizes them: the kernel map "[kernel.kallsyms]_text" from
 * _text to _etext with pgoff = _text and the kernel's build id from
 * /sys/kernel/notes; each module by address from /proc/modules, its path
 * from modules.dep and its build id from /sys/module.
 *
 * Data flow: /proc/kallsyms, /proc/modules, /lib/modules/VERSION and
 * /sys (or the test fixture's paths) → struct synth → the caller's emit.
 * Threads: any; nothing outlives a call.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "precord/synthesize.h"
#include "precord/evlist.h"
#include "precord/threadmap.h"
#include "precord/sample.h"
#include "precord/util.h"
#include "wq.h"
#include "synthesize-internal.h"

/* ---- kernel and modules ------------------------------------------------ */

struct kmod {
	char	name[64];
	u64	start;
	u64	size;
	char	*path;		/* the installed .ko, or NULL */
};

static int kmod__cmp_start(const void *a, const void *b)
{
	const struct kmod *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int kmod__cmp_name(const void *a, const void *b)
{
	const struct kmod *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void kmods__free(struct kmod *mods, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		free(mods[i].path);
	free(mods);
}

/*
 * A /proc/modules line: "NAME SIZE REFS DEPS STATE ADDR ...", the name
 * (at most 63 bytes), its size and load address. 0 or -EINVAL.
 */
static int modules__parse_line(char *line, struct kmod *m, u64 *size, u64 *start)
{
	char *save, *tok[6];
	int i;

	for (i = 0; i < 6; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t\n", &save);
		if (!tok[i])
			return -EINVAL;
	}
	if (strlen(tok[0]) >= sizeof(m->name) || parse__u64(tok[1], 10, size, NULL) ||
	    parse__u64(tok[5], 16, start, NULL))
		return -EINVAL;
	memcpy(m->name, tok[0], strlen(tok[0]) + 1);
	return 0;
}

/*
 * /proc/modules ("ext4 1011712 2 - Live 0xffffffffc0a4e000"), sorted by
 * address. Count, 0 when the kernel has no modules, or -errno (-EACCES:
 * the addresses are hidden).
 */
static int kmods__read(const struct synth_opts *o, struct kmod **out)
{
	FILE *f = fopen(SYNTH_PATH(o, modules, "/proc/modules"), "re");
	struct kmod *mods = NULL, m;
	int nr = 0, alloc = 0, err = 0;
	u64 size, start;
	char line[1024];

	*out = NULL;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		memset(&m, 0, sizeof(m));
		if (modules__parse_line(line, &m, &size, &start))
			continue;
		if (!start) {
			err = -EACCES;
			break;
		}
		m.start = start;
		m.size = size;
		if (nr == alloc) {
			struct kmod *n = realloc(mods, (size_t)(alloc = alloc ? 2 * alloc : 64) *
						 sizeof(*mods));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			mods = n;
		}
		mods[nr++] = m;
	}
	fclose(f);
	if (err) {
		kmods__free(mods, nr);
		return err;
	}
	qsort(mods, (size_t)nr, sizeof(*mods), kmod__cmp_start);
	*out = mods;
	return nr;
}

/* "kernel/fs/ext4/ext4.ko.xz" → "ext4"; '-' reads as '_' like the kernel. */
static void kmod_name_of(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	const char *ko;
	size_t n, i;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	n = ko ? (size_t)(ko - base) : strlen(base);
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

static void kmods__dep_line(struct kmod **byname, int nr, const char *dir, char *line)
{
	char *colon = strchr(line, ':');
	struct kmod key, *kp = &key, **hit;

	if (!colon)
		return;
	*colon = '\0';
	kmod_name_of(line, key.name, sizeof(key.name));
	hit = bsearch(&kp, byname, (size_t)nr, sizeof(*byname), kmod__cmp_name);
	if (!hit || (*hit)->path)
		return;
	if (line[0] == '/')
		(*hit)->path = strdup(line);
	else if (asprintf(&(*hit)->path, "%s/%s", dir, line) < 0)
		(*hit)->path = NULL;
}

/* Attach to each module the path modules.dep gives for it (perf's long name). */
static void kmods__find_paths(const struct synth_opts *o, struct kmod *mods, int nr)
{
	char dir[PATH_MAX], dep[PATH_MAX + 16], *line;
	struct kmod **byname = NULL;
	struct line_reader *r = NULL;
	struct utsname u;
	int i, fd;

	if (o->paths && o->paths->modules_dir)
		snprintf(dir, sizeof(dir), "%s", o->paths->modules_dir);
	else if (!uname(&u))
		snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	else
		return;
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	fd = open(dep, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	byname = calloc((size_t)nr, sizeof(*byname));
	r = malloc(sizeof(*r));
	if (!byname || !r)
		goto out_close;
	for (i = 0; i < nr; i++)
		byname[i] = &mods[i];
	qsort(byname, (size_t)nr, sizeof(*byname), kmod__cmp_name);
	line_reader__init(r, fd);
	while ((line = line_reader__next(r)))
		kmods__dep_line(byname, nr, dir, line);
out_close:
	free(r);
	free(byname);
	close(fd);
}

/*
 * A map of kernel space (pid -1, tid 0, misc KERNEL): PERF_RECORD_MMAP, or
 * MMAP2 with prot/flags 0 and the build id when there is one (perf
 * --buildid-mmap).
 */
static int synth__kmap(struct synth *s, u64 start, u64 len, u64 pgoff, const char *name,
		       const u8 *bid, int bid_len)
{
	/* MMAP2 begins with MMAP's fields up to pgoff: one text fills both */
	struct perf_record_mmap *ev = (struct perf_record_mmap *)s->rec;
	struct perf_record_mmap2 *ev2 = (struct perf_record_mmap2 *)s->rec;
	size_t off = s->o->build_id ? offsetof(struct perf_record_mmap2, filename)
				    : offsetof(struct perf_record_mmap, filename);

	_Static_assert(offsetof(struct perf_record_mmap2, pgoff) ==
		       offsetof(struct perf_record_mmap, pgoff), "MMAP2 starts as MMAP does");
	memset(ev, 0, off);
	ev->header.type = s->o->build_id ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	ev->header.misc = PERF_RECORD_MISC_KERNEL;
	ev->pid = (u32)-1;
	ev->start = start;
	ev->len = len;
	ev->pgoff = pgoff;
	if (s->o->build_id && bid_len > 0) {
		ev2->build_id_size = (u8)bid_len;
		memcpy(ev2->build_id, bid, (size_t)bid_len);
		ev2->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	return synth__emit(s, off + synth__put_str(s->rec + off, name, PATH_MAX));
}

static bool ksym_is_function(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

struct kernel_anchor {
	const char	*ref_name;	/* "_text", or "_stext" when there is no _text */
	u64		start;
	u64		end;		/* _etext, or 0 */
};

/* "ffffffff81000000 T _text": the anchors perf's machine.c uses. */
static void kallsyms__line(char *line, u64 *text, u64 *stext, u64 *etext, bool *seen)
{
	char *name, *tab;
	u64 addr;

	name = synth__parse_num(line, 16, &addr, ' ');
	if (!name || !name[0] || name[1] != ' ' || !ksym_is_function(name[0]))
		return;
	name += 2;
	tab = strchr(name, '\t');	/* module symbols: "name\t[mod]" */
	if (tab)
		return;
	if (!strcmp(name, "_text") && !seen[0]) {
		*text = addr;
		seen[0] = true;
	} else if (!strcmp(name, "_stext") && !seen[1]) {
		*stext = addr;
		seen[1] = true;
	} else if (!strcmp(name, "_etext") && !seen[2]) {
		*etext = addr;
		seen[2] = true;
	}
}

static int kernel_anchor__read(const struct synth_opts *o, struct kernel_anchor *ka)
{
	bool seen[3] = { false, false, false };
	u64 text = 0, stext = 0, etext = 0;
	struct line_reader *r;
	char *line;
	int err;

	memset(ka, 0, sizeof(*ka));
	r = line_reader__open(SYNTH_PATH(o, kallsyms, "/proc/kallsyms"), &err);
	if (!r)
		return err;
	while (!(seen[0] && seen[2]) && (line = line_reader__next(r)))
		kallsyms__line(line, &text, &stext, &etext, seen);
	line_reader__close(r);
	if (!seen[0] && !seen[1])
		return -ENOENT;
	ka->ref_name = seen[0] ? "_text" : "_stext";
	ka->start = seen[0] ? text : stext;
	ka->end = seen[2] ? etext : 0;
	if (!ka->start)
		return -EACCES;		/* kptr_restrict hides the addresses */
	return 0;
}

int synthesize__kernel_mmap(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	u8 bid[BUILD_ID_SIZE];
	struct kernel_anchor ka;
	char name[64];
	int bid_len = 0, err;
	struct synth s;
	u64 end;

	err = synth__init(&s, o, emit, ctx);
	if (!err)
		err = kernel_anchor__read(o, &ka);
	if (err)
		return err;
	end = ka.end > ka.start ? ka.end : ~0ULL;
	if (end == ~0ULL) {
		/* no _etext: perf ends the kernel where the next module starts */
		struct kmod *mods;
		int i, nr = kmods__read(o, &mods);

		for (i = 0; i < nr && end == ~0ULL; i++)
			if (mods[i].start > ka.start)
				end = mods[i].start;
		kmods__free(mods, nr > 0 ? nr : 0);
	}
	if (o->build_id)
		bid_len = buildid__read_notes(SYNTH_PATH(o, kernel_notes, "/sys/kernel/notes"),
					      bid, sizeof(bid));
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", ka.ref_name);
	return synth__kmap(&s, ka.start, end - ka.start, ka.start, name, bid, bid_len);
}

/* A loaded module's build id: from sysfs (the module as loaded), else its .ko. */
static int kmod__build_id(const struct synth_opts *o, const struct kmod *m, u8 *id)
{
	char path[PATH_MAX];
	size_t len;
	int err;

	snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id",
		 SYNTH_PATH(o, sys_module, "/sys/module"), m->name);
	err = buildid__read_notes(path, id, BUILD_ID_SIZE);
	if (err > 0 || !m->path)
		return err;
	len = strlen(m->path);
	if (len < 3 || strcmp(m->path + len - 3, ".ko"))
		return err;	/* compressed: not read here */
	return buildid__read(m->path, id, BUILD_ID_SIZE);
}

int synthesize__modules(const struct synth_opts *o, synth_emit_fn emit, void *ctx)
{
	struct kmod *mods;
	struct synth s;
	int i, nr, err;

	err = synth__init(&s, o, emit, ctx);
	if (err)
		return err;
	nr = kmods__read(o, &mods);
	if (nr <= 0)
		return nr;
	kmods__find_paths(o, mods, nr);
	for (i = 0; i < nr && !err; i++) {
		u8 bid[BUILD_ID_SIZE];
		int bid_len = o->build_id ? kmod__build_id(o, &mods[i], bid) : 0;
		char bracket[sizeof(mods[i].name) + 2];

		snprintf(bracket, sizeof(bracket), "[%s]", mods[i].name);
		err = synth__kmap(&s, mods[i].start, mods[i].size, 0,
				  mods[i].path ? mods[i].path : bracket, bid, bid_len);
	}
	kmods__free(mods, nr);
	return err;
}
