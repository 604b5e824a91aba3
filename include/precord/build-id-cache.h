/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build-id-cache.h — perf's build-id cache on disk (~/.debug), filled at
 * the end of a recording with the DSOs its HEADER_BUILD_ID lists, in the
 * layout `perf buildid-cache` and perf record 6.1 make
 * (src/build-id-cache.c):
 *
 *   DIR/<realpath of the file>/<build id>/elf     the file (hard link, else a copy)
 *   DIR/<realpath of the file>/<build id>/debug   /usr/lib/debug/.build-id/xx/yy.debug
 *   DIR/<realpath of the file>/<build id>/probes  (empty: the file's SDT probes)
 *   DIR/[kernel.kallsyms]/<build id>/kallsyms     a copy of /proc/kallsyms
 *   DIR/[vdso]/<build id>/vdso                    the vdso image
 *   DIR/.build-id/<2 hex>/<38 hex> → ../../<the build-id directory above>
 */
#ifndef PRECORD_BUILD_ID_CACHE_H
#define PRECORD_BUILD_ID_CACHE_H

#include <stddef.h>

struct dso_hit;

/*
 * The cache's directory as perf 6.1 picks it: given (perf's --buildid-dir)
 * when not NULL, else buildid.dir from perf's config files
 * ($PERF_CONFIG alone when set, else /etc/perfconfig then
 * $HOME/.perfconfig, the later winning), else $HOME/.debug (".debug"
 * without HOME). $PERF_BUILDID_DIR is not read: perf sets it for the
 * commands it runs, and so does build_id_cache__setenv().
 * 0 or -ENAMETOOLONG.
 */
int build_id_cache__dir(const char *given, char *buf, size_t size);

/* PERF_BUILDID_DIR=dir in this process's environment, for the command recorded. */
void build_id_cache__setenv(const char *dir);

struct build_id_cache_src {
	const char	*kallsyms;	/* NULL: /proc/kallsyms */
	const char	*debug_dir;	/* NULL: /usr/lib/debug/.build-id */
	const void	*vdso;		/* [vdso]'s image, NULL: [vdso] is not cached */
	size_t		vdso_len;
};

/*
 * Add one DSO with a build id to the cache at dir, as perf's
 * build_id_cache__add_s(): what is there already is kept. A kernel named
 * after --vmlinux and a module known only by name are not cached (perf
 * leaves them out too). Reentrant: distinct DSOs may be added from several
 * threads at once. 0 or -errno, with one line in err.
 */
int build_id_cache__add(const char *dir, const struct dso_hit *d,
			const struct build_id_cache_src *src, char *err, size_t errlen);

#endif /* PRECORD_BUILD_ID_CACHE_H */
