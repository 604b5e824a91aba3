/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcore.h — the kernel's text kept beside a recording (--kcore): in
 * DIR/kcore_dir, copies of kallsyms and modules and an ELF core file
 * "kcore" that holds only the executable segments of /proc/kcore covering
 * the kernel's text and the modules' (src/kcore.c). perf report and perf
 * script read that directory instead of the running kernel's.
 */
#ifndef PRECORD_KCORE_H
#define PRECORD_KCORE_H

#include <stddef.h>

/* The name of the directory, inside a recording directory. */
#define KCORE_DIR_NAME	"kcore_dir"

/*
 * Copy from_dir's kallsyms, modules and the text of its kcore (from_dir is
 * "/proc" for the running kernel) into to_dir, which is created (mode
 * 0700) and must not exist; the files are mode 0400, as perf makes them.
 * kallsyms and modules are copied again until a second reading after the
 * copy matches the first (a module loading meanwhile moves addresses).
 * 0, or -errno with one line in msg and nothing left at to_dir.
 */
int kcore__copy(const char *from_dir, const char *to_dir, char *msg, size_t len);

/* Remove what kcore__copy() makes in to_dir, then to_dir; 0 or -errno. */
int kcore__remove(const char *to_dir);

#endif /* PRECORD_KCORE_H */
