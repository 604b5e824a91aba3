// SPDX-License-Identifier: GPL-2.0
/*
 * pmu.c — the PMUs of one sysfs root (see pmu.h for the layout read).
 *
 * Owns a list of struct pmu, each read whole (type, formats, named events,
 * cpumask) the first time its name is asked for, and kept until
 * pmus__delete(). A directory without a readable type is not a PMU; a PMU
 * without format/ or events/ simply has none (software, tracepoint). The
 * info files next to named events (NAME.unit, .scale, .per-pkg, .snapshot)
 * are for counting, not recording, and are skipped, as perf skips them when
 * it lists events.
 *
 * Who runs it: the thread that parses the command line. No locking.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "precord/pmu.h"

#define PMU_FILE_MAX	4096

struct pmus *pmus__new(const char *root)
{
	struct pmus *pmus = calloc(1, sizeof(*pmus));

	if (!pmus)
		return NULL;
	pmus->root = strdup(root ? root : PMU_SYSFS_ROOT);
	if (!pmus->root) {
		free(pmus);
		return NULL;
	}
	return pmus;
}

static void pmu__delete(struct pmu *pmu)
{
	int i;

	if (!pmu)
		return;
	for (i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	for (i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
	}
	free(pmu->formats);
	free(pmu->aliases);
	cpu_map__put(pmu->cpus);
	free(pmu->name);
	free(pmu);
}

void pmus__delete(struct pmus *pmus)
{
	int i;

	if (!pmus)
		return;
	for (i = 0; i < pmus->nr; i++)
		pmu__delete(pmus->entries[i]);
	free(pmus->entries);
	free(pmus->root);
	free(pmus);
}

/* The file's text with surrounding blanks removed, in buf; 0 or -errno. */
static int read_trimmed(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n, start = 0;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	while (isspace((unsigned char)buf[start]))
		start++;
	memmove(buf, buf + start, n - start + 1);
	return 0;
}

/* ---- formats ------------------------------------------------------------ */

static const char *skip_blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* One decimal bit number below 64 at *pp; -1 when there is none. */
static int parse_bit(const char **pp)
{
	const char *p = skip_blanks(*pp);
	long v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v > 63)
			return -1;
	}
	*pp = p;
	return (int)v;
}

int pmu_format__parse(const char *text, enum pmu_field *field, u64 *bits)
{
	const char *p = skip_blanks(text);
	u64 b = 0;

	if (strncmp(p, "config", 6))
		return -EINVAL;
	p += 6;
	if (*p == '1' || *p == '2')
		*field = *p++ == '1' ? PMU_FIELD_CONFIG1 : PMU_FIELD_CONFIG2;
	else
		*field = PMU_FIELD_CONFIG;
	p = skip_blanks(p);
	if (*p++ != ':')
		return -EINVAL;
	for (;;) {
		int lo = parse_bit(&p), hi;

		if (lo < 0)
			return -EINVAL;
		hi = lo;
		p = skip_blanks(p);
		if (*p == '-') {
			p++;
			hi = parse_bit(&p);
			if (hi < lo)
				return -EINVAL;
		}
		for (; lo <= hi; lo++)
			b |= 1ULL << lo;
		p = skip_blanks(p);
		if (*p != ',')
			break;
		p++;
	}
	if (*p)
		return -EINVAL;
	*bits = b;
	return 0;
}

u64 pmu_format__max(const struct pmu_format *format)
{
	int w = __builtin_popcountll(format->bits);

	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

static u64 *attr__field(struct perf_event_attr *attr, enum pmu_field field)
{
	switch (field) {
	case PMU_FIELD_CONFIG1:
		return (u64 *)&attr->config1;
	case PMU_FIELD_CONFIG2:
		return (u64 *)&attr->config2;
	default:
		return (u64 *)&attr->config;
	}
}

int pmu_format__apply(const struct pmu_format *format, u64 value, struct perf_event_attr *attr)
{
	u64 *v = attr__field(attr, format->field);
	int fbit, vbit = 0;

	if (value > pmu_format__max(format))
		return -ERANGE;
	for (fbit = 0; fbit < 64; fbit++) {
		if (!(format->bits & (1ULL << fbit)))
			continue;
		if (value & (1ULL << vbit++))
			*v |= 1ULL << fbit;
	}
	return 0;
}

/* ---- reading one PMU ---------------------------------------------------- */

/* Entries of dir in readdir order, without . and ..; fn returns 0 or -errno. */
static int dir__for_each(const char *dir, int (*fn)(struct pmu *pmu, const char *dir,
						    const char *name), struct pmu *pmu)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		err = fn(pmu, dir, de->d_name);
	}
	closedir(d);
	return err;
}

static int pmu__add_format(struct pmu *pmu, const char *dir, const char *name)
{
	char path[PATH_MAX], text[256];
	struct pmu_format *f;
	enum pmu_field field;
	u64 bits;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_trimmed(path, text, sizeof(text)) || pmu_format__parse(text, &field, &bits))
		return -EINVAL;		/* perf refuses the whole PMU */
	f = realloc(pmu->formats, sizeof(*f) * (size_t)(pmu->nr_formats + 1));
	if (!f)
		return -ENOMEM;
	pmu->formats = f;
	f = &pmu->formats[pmu->nr_formats];
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	f->field = field;
	f->bits = bits;
	pmu->nr_formats++;
	return 0;
}

static bool alias__is_info_file(const char *name)
{
	static const char *const suffixes[] = { ".unit", ".scale", ".per-pkg", ".snapshot" };
	size_t len = strlen(name), i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && !strcmp(name + len - sl, suffixes[i]))
			return true;
	}
	return false;
}

static int pmu__add_alias(struct pmu *pmu, const char *dir, const char *name)
{
	char path[PATH_MAX], *text;
	struct pmu_alias *a;

	if (alias__is_info_file(name))
		return 0;
	text = malloc(PMU_FILE_MAX);
	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_trimmed(path, text, PMU_FILE_MAX)) {
		free(text);
		return 0;	/* an unreadable event is left out, as perf does */
	}
	a = realloc(pmu->aliases, sizeof(*a) * (size_t)(pmu->nr_aliases + 1));
	if (!a) {
		free(text);
		return -ENOMEM;
	}
	pmu->aliases = a;
	a = &pmu->aliases[pmu->nr_aliases];
	a->name = strdup(name);
	a->terms = text;
	if (!a->name) {
		free(text);
		return -ENOMEM;
	}
	pmu->nr_aliases++;
	return 0;
}

static struct pmu *pmu__read(const char *root, const char *name)
{
	char path[PATH_MAX], text[64];
	struct pmu *pmu;
	char *end;
	unsigned long type;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/type", root, name);
	if (read_trimmed(path, text, sizeof(text)))
		return NULL;
	errno = 0;
	type = strtoul(text, &end, 10);
	if (errno || end == text || *end || type > 0xffffffffUL)
		return NULL;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return NULL;
	pmu->name = strdup(name);
	pmu->type = (u32)type;
	if (!pmu->name)
		goto out_delete;
	snprintf(path, sizeof(path), "%s/%s/format", root, name);
	if (dir__for_each(path, pmu__add_format, pmu))
		goto out_delete;
	snprintf(path, sizeof(path), "%s/%s/events", root, name);
	if (dir__for_each(path, pmu__add_alias, pmu))
		goto out_delete;
	snprintf(path, sizeof(path), "%s/%s/cpumask", root, name);
	if (access(path, R_OK) == 0)
		pmu->cpus = cpu_map__read(path);
	return pmu;

out_delete:
	pmu__delete(pmu);
	return NULL;
}

static struct pmu *pmus__lookup(struct pmus *pmus, const char *name)
{
	int i;

	for (i = 0; i < pmus->nr; i++)
		if (!strcmp(pmus->entries[i]->name, name))
			return pmus->entries[i];
	return NULL;
}

static struct pmu *pmus__add(struct pmus *pmus, struct pmu *pmu)
{
	struct pmu **v = realloc(pmus->entries, sizeof(*v) * (size_t)(pmus->nr + 1));

	if (!v) {
		pmu__delete(pmu);
		return NULL;
	}
	pmus->entries = v;
	v[pmus->nr++] = pmu;
	return pmu;
}

struct pmu *pmus__find(struct pmus *pmus, const char *name)
{
	struct pmu *pmu = pmus__lookup(pmus, name);

	if (pmu || pmus->scanned)
		return pmu;
	pmu = pmu__read(pmus->root, name);
	return pmu ? pmus__add(pmus, pmu) : NULL;
}

int pmus__scan(struct pmus *pmus)
{
	DIR *d;
	struct dirent *de;

	if (pmus->scanned)
		return 0;
	d = opendir(pmus->root);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		pmus__find(pmus, de->d_name);
	closedir(d);
	pmus->scanned = true;
	return 0;
}

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name)
{
	int i;

	for (i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name)
{
	int i;

	for (i = 0; i < pmu->nr_aliases; i++)
		if (!strcasecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

int pmu__nr_addr_filters(const char *root, u32 type)
{
	char path[PATH_MAX], text[64];
	struct dirent *de;
	unsigned long v;
	int nr = 0;
	char *end;
	DIR *d;

	root = root ? root : PMU_SYSFS_ROOT;
	d = opendir(root);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", root, de->d_name);
		if (read_trimmed(path, text, sizeof(text)))
			continue;
		errno = 0;
		v = strtoul(text, &end, 10);
		if (errno || end == text || *end || v != type)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nr_addr_filters", root, de->d_name);
		if (!read_trimmed(path, text, sizeof(text))) {
			errno = 0;
			v = strtoul(text, &end, 10);
			if (!errno && end != text && !*end && v <= INT_MAX)
				nr = (int)v;
		}
		break;
	}
	closedir(d);
	return nr;
}
