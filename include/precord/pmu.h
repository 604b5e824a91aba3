/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu.h — the kernel's performance monitoring units as sysfs describes them,
 * one directory each under /sys/bus/event_source/devices/NAME:
 *
 *	type		the perf_event_attr.type of its events
 *	format/TERM	"config:0-7,21" — where the value of a term goes
 *			(config, config1 or config2, low bits first)
 *	events/NAME	"event=0x3c,umask=0x00" — a named event, in terms
 *	cpumask		the CPUs its events are opened on (uncore PMUs)
 *
 * The parser of -e (parse-events.c) asks for a PMU by name, or scans them
 * all for an event name. The root directory is a parameter so that tests can
 * describe PMUs this machine does not have.
 */
#ifndef PRECORD_PMU_H
#define PRECORD_PMU_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include "precord/perf-file.h"
#include "precord/cpumap.h"

#define PMU_SYSFS_ROOT	"/sys/bus/event_source/devices"

enum pmu_field {
	PMU_FIELD_CONFIG,
	PMU_FIELD_CONFIG1,
	PMU_FIELD_CONFIG2,
};

struct pmu_format {
	char		*name;
	enum pmu_field	field;
	u64		bits;		/* the bits of the field the value fills, low first */
};

struct pmu_alias {
	char		*name;
	char		*terms;		/* the file's text, trimmed: "event=0x3c,umask=0x00" */
};

struct pmu {
	char			*name;
	u32			type;
	struct pmu_format	*formats;
	int			nr_formats;
	struct pmu_alias	*aliases;
	int			nr_aliases;
	struct cpu_map		*cpus;		/* cpumask, NULL when the PMU has none */
};

/* Every PMU read so far from one root; read on demand. Not thread-safe. */
struct pmus {
	char		*root;
	struct pmu	**entries;
	int		nr;
	bool		scanned;	/* every directory of root was tried */
};

/* root NULL: PMU_SYSFS_ROOT. NULL on ENOMEM. */
struct pmus *pmus__new(const char *root);
void pmus__delete(struct pmus *pmus);		/* accepts NULL */
/*
 * The PMU of that name, read from root on first use; NULL when root has no
 * such directory with a readable type (or a format file does not parse).
 */
struct pmu *pmus__find(struct pmus *pmus, const char *name);
/* Read every PMU under root (perf's pmu_read_sysfs()). 0 or -errno. */
int pmus__scan(struct pmus *pmus);

/* The format term `name`, or NULL. */
const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name);
/* The named event (case-insensitive, as perf), or NULL. */
const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name);
/*
 * How many address filters the PMU whose events have this attr type takes
 * (its nr_addr_filters under root, NULL: PMU_SYSFS_ROOT); 0 when none.
 */
int pmu__nr_addr_filters(const char *root, u32 type);

/* "config1:0-7,32" into *field and *bits; 0 or -EINVAL. */
int pmu_format__parse(const char *text, enum pmu_field *field, u64 *bits);
/* The largest value the format holds. */
u64 pmu_format__max(const struct pmu_format *format);
/*
 * OR value into the format's bits of its field in attr (bit i of the value
 * into the i-th bit of the format; perf's pmu_format_value() for a PMU
 * without a default config, which never clears a bit). -ERANGE (nothing
 * changed) when the value does not fit.
 */
int pmu_format__apply(const struct pmu_format *format, u64 value,
		      struct perf_event_attr *attr);

#endif /* PRECORD_PMU_H */
