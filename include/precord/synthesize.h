/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synthesize.h — records describing what already runs when recording
 * starts: COMM, FORK and MMAP2 of every task in scope (from /proc), the
 * kernel map and modules, the BPF programs loaded (synthesize-bpf.c),
 * ID_INDEX, FINISHED_INIT. Each record goes to an
 * emit callback, complete, with the evlist's sample_id trailer (zeroed:
 * time 0 so perf delivers it before any kernel record).
 *
 * The layouts and choices follow perf 6.1 (tools/perf/util/synthetic-events.c):
 *  - system-wide (synthesize__all, synthesize__process): for every task of a
 *    process, FORK {pid, ppid, tid, ptid} (misc FORK_EXEC; the leader's
 *    parent is its PPid, a thread's is its leader) then COMM; right after the
 *    leader's COMM, one MMAP2 per executable mapping of /proc/PID/task/PID/maps
 *    (threads share the leader's maps; kernel threads have none).
 *  - thread map (synthesize__thread_map, -p/-t): COMM only, for each tid of
 *    the map; MMAP2 when the tid is a leader; a leader missing from the map
 *    is synthesized too.
 *  - kernel: one "[kernel.kallsyms]_text" map, start and pgoff the address of
 *    _text (the relocation anchor), end _etext; one map per module of
 *    /proc/modules, by address, named by its .ko path (or "[name]" when not
 *    installed). PERF_RECORD_MMAP, or MMAP2 carrying build ids when
 *    opts->build_id is set (perf --buildid-mmap).
 *
 * Every function here is a pure function of its arguments and the files it
 * reads: per-process synthesis can run on any worker with its own emit
 * buffer. What several workers may share: the options (read-only), the
 * stats (updated with atomics) and a buildid_cache (locked inside).
 */
#ifndef PRECORD_SYNTHESIZE_H
#define PRECORD_SYNTHESIZE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"

struct evlist;
struct thread_map;
struct buildid_cache;
struct wq;

/* Take one complete record; 0 or -errno (which stops synthesis). */
typedef int (*synth_emit_fn)(void *ctx, const void *record, size_t size);

/* Monotonic nanoseconds, for the per-task map timeout (tests inject one). */
typedef u64 (*synth_clock_fn)(void *clock_ctx);

/*
 * The bpf(2) system call (tests inject one): cmd with attr (a union
 * bpf_attr of size bytes); the fd or 0 it returns, or -errno. The fds it
 * returns are closed with close().
 */
typedef int (*synth_bpf_fn)(void *bpf_ctx, int cmd, void *attr, unsigned int size);

/*
 * One BPF program's info or one BTF object, as the header holds it:
 * HEADER_BPF_PROG_INFO: perf's perf_bpil ({u32 info_len, u32 data_len,
 * u64 arrays, struct bpf_prog_info, data}, the info's array pointers
 * turned into offsets into data); HEADER_BPF_BTF: {u32 id, u32 size, the
 * raw BTF}.
 */
struct bpf_blob {
	u32	id;		/* the program's id, or the BTF object's */
	size_t	size;
	u8	*data;
};

/*
 * The programs described so far in a recording and the BTF they refer to,
 * each by ascending id, each id once (perf's env->bpf_progs): what
 * synthesize__bpf() found, for the header's two features. Zero is empty;
 * owned by the thread that synthesizes and writes the header.
 */
struct bpf_progs {
	struct bpf_blob	*infos;
	int		nr_infos, alloc_infos;
	struct bpf_blob	*btfs;
	int		nr_btfs, alloc_btfs;
};

void bpf_progs__exit(struct bpf_progs *p);	/* frees every blob; p is empty after */

/*
 * Counters a caller reads once synthesis is over (after joining the workers
 * that ran it). Each field is only ever added to with a relaxed atomic: they
 * are independent tallies, nothing is published through them.
 */
struct synth_stats {
	unsigned long	nr_map_timeouts;	/* maps reads cut off by proc_map_timeout_ms */
	pid_t		first_timeout_pid;	/* the first such process (0: none) */
	unsigned long	nr_vanished;		/* tasks that exited while we read them */
};

/* Where the files are (tests point these at fixtures). NULL: the real one. */
struct synth_paths {
	const char	*proc;		/* "/proc" */
	const char	*kallsyms;	/* "/proc/kallsyms" */
	const char	*modules;	/* "/proc/modules" */
	const char	*modules_dir;	/* "/lib/modules/$(uname -r)" (modules.dep) */
	const char	*sys_module;	/* "/sys/module" (loaded modules' build ids) */
	const char	*kernel_notes;	/* "/sys/kernel/notes" (the kernel's build id) */
	const char	*mounts;	/* "/proc/mounts" (where the cgroups are) */
};

struct synth_opts {
	size_t		id_hdr_size;		/* evlist__id_hdr_size() */
	unsigned int	proc_map_timeout_ms;	/* 500, as perf */
	bool		build_id;		/* MMAP2 carry build ids (attr.build_id) */
	bool		mmap_data;		/* also non-exec mappings (perf -d) */
	bool		no_mmap;		/* --synth=task: COMM/FORK only */
	bool		no_task;		/* MMAP2 only. NB: perf's --synth=mmap
						 * means task+mmap, i.e. neither flag */
	bool		namespaces;		/* NAMESPACES per task (perf --namespaces) */
	bool		bpf_event;		/* BPF_EVENT records and the programs' info
						 * kept (perf: unless --no-bpf-event) */

	/* Optional (zero/NULL is fine for all of these). */
	struct synth_stats	*stats;		/* timeouts, vanished tasks */
	struct buildid_cache	*bid_cache;	/* build ids by (dev, inode), shared */
	const char		*hugetlbfs_mnt;	/* maps under it become //anon + MAP_HUGETLB */
	synth_clock_fn		clock;		/* NULL: CLOCK_MONOTONIC */
	void			*clock_ctx;
	const struct synth_paths *paths;	/* NULL: the real files */
	struct bpf_progs	*bpf_progs;	/* what synthesize__bpf() found goes here */
	synth_bpf_fn		bpf;		/* NULL: the bpf(2) system call */
	void			*bpf_ctx;
};

/* perf's defaults: 500 ms map timeout, everything else off. */
void synth_opts__init(struct synth_opts *o);

/*
 * [kernel.kallsyms]_text and one MMAP per module from /proc/modules.
 * -EACCES: kallsyms (or /proc/modules) shows zero addresses (kptr_restrict);
 * -ENOENT: no _text/_stext. No /proc/modules at all (CONFIG_MODULES=n) is
 * not an error: no module records. perf's warnings for these failures:
 * "Couldn't record kernel reference relocation symbol" ... and
 * "Couldn't record kernel module information." (see builtin-record.c).
 */
int synthesize__kernel_mmap(const struct synth_opts *o, synth_emit_fn emit, void *ctx);
int synthesize__modules(const struct synth_opts *o, synth_emit_fn emit, void *ctx);

/*
 * The BPF programs loaded now, as perf 6.1 describes them
 * (tools/perf/util/bpf-event.c): for each program, by ascending id, one
 * KSYMBOL per JITed function (type BPF, named "bpf_prog_<tag>_<name>":
 * the function's tag, and its name from the program's BTF func_info, or
 * the program's name when it has one function and no BTF, or "F"), then,
 * with opts->bpf_event, one BPF_EVENT PROG_LOAD with its id and tag. Then
 * one KSYMBOL (a page long) per BPF trampoline and dispatcher of
 * /proc/kallsyms. Into opts->bpf_progs (when set): the BTF of each
 * program named from it and, with opts->bpf_event, each program's info.
 * A program unloaded while the walk runs, or whose info cannot be read
 * (not JITed, addresses hidden from this user), is skipped. Returns 0;
 * 0 as well when this user may not list programs (EPERM) or the kernel
 * has no bpf(2) (EINVAL, ENOSYS) — *listed (when not NULL) is then false;
 * another failure of the walk as -errno, after the records of the programs
 * before it; an emit error as it is.
 */
int synthesize__bpf(const struct synth_opts *o, synth_emit_fn emit, void *ctx, bool *listed);

/*
 * FORK + COMM for every task of process pid, and MMAP2 for its maps (perf's
 * system-wide form). -ESRCH: the process is gone (nothing emitted, or only
 * what was read before it went); emit errors come back as they are.
 */
int synthesize__process(const struct synth_opts *o, pid_t pid, synth_emit_fn emit, void *ctx);
/* Every process in /proc (system-wide); vanished processes are skipped. */
int synthesize__all(const struct synth_opts *o, synth_emit_fn emit, void *ctx);
/*
 * synthesize__all() with the /proc walk spread over a workqueue's pool:
 * nr_threads participants (the calling thread and nr_threads - 1 workers;
 * 0 or less: as many as the pool has workers; at most its slots) claim
 * pids one at a time and synthesize each process into their own buffer,
 * without locks; a process of many threads is cut into pieces of tasks
 * that any participant takes, while its task list is still being read.
 * Once all are done, the caller hands the records to emit, in pid order,
 * from its own thread only. The records and their order are the serial
 * walk's (a process's FORK/COMM before its MMAP2s), save for the processes
 * that changed in between; the map timeout, the stats and the build-id
 * cache work as in the serial walk. wq NULL or nr_threads 1:
 * synthesize__all(). Memory: every record is held until the walk ends
 * (about 150 bytes per task plus the MMAP2s). Returns 0, -ENOMEM, or the
 * first emit error, after which emit is not called again. Runs in the
 * caller alone when the pool's inline_max covers nr_threads.
 */
int synthesize__all_parallel(const struct synth_opts *o, struct wq *wq, int nr_threads,
			     synth_emit_fn emit, void *ctx);
/*
 * The numerically named entries of /proc, ascending: the work list of a
 * parallel synthesize__all (one synthesize__process per pid). Returns the
 * count and a malloc'ed array in *pids, or -errno.
 */
int synthesize__proc_pids(const struct synth_opts *o, pid_t **pids);

/*
 * Every process in /proc that is one of roots (pids) or descends from one
 * (by the PPid chain), as synthesize__process() each, in pid order: a
 * --switch-output file of a command or of -p/-t/-u tasks.
 */
int synthesize__tree(const struct synth_opts *o, const pid_t *roots, int nr_roots,
		     synth_emit_fn emit, void *ctx);
/*
 * A tree's records as synthesize__tree() gives them, kept in memory: taken
 * just before a --switch-output file ends, for the processes that exit
 * before the next file is synthesized. take(): 0 or -errno (then empty);
 * exit() frees it.
 */
struct synth_tree_snap {
	void	*buf;
	size_t	len, cap;
};
int synth_tree_snap__take(struct synth_tree_snap *snap, const struct synth_opts *o,
			  const pid_t *roots, int nr_roots);
void synth_tree_snap__exit(struct synth_tree_snap *snap);
/*
 * synthesize__tree(), then, for every process of snap (NULL or empty:
 * none) that had a map there and has none now (it exited, or is a
 * zombie), its records from snap.
 */
int synthesize__tree_since(const struct synth_opts *o, const pid_t *roots, int nr_roots,
			   const struct synth_tree_snap *snap, synth_emit_fn emit, void *ctx);
/* The processes owning the threads of a thread map (-p/-t). Entries -1 are skipped. */
int synthesize__thread_map(const struct synth_opts *o, const struct thread_map *threads,
			   synth_emit_fn emit, void *ctx);
/* One tid of a thread map: COMM, and MMAP2 if it leads its process. -ESRCH if gone. */
int synthesize__thread(const struct synth_opts *o, pid_t tid, synth_emit_fn emit, void *ctx);
/* COMM only (the forked workload before it runs, as perf does). -ESRCH if gone. */
int synthesize__comm(const struct synth_opts *o, pid_t tid, synth_emit_fn emit, void *ctx);

/*
 * One CGROUP record per cgroup (perf --all-cgroups): the hierarchy of the
 * cgroup v1 perf_event controller, else of the first cgroup2 mount, walked
 * depth first from its root ("/"), each with its id (the kernel's cgroup
 * id, from name_to_handle_at) and its path below the mount point. -ENOENT:
 * no cgroup hierarchy; a cgroup that cannot be read stops the walk there
 * with its -errno (the records before it were emitted).
 */
int synthesize__cgroups(const struct synth_opts *o, synth_emit_fn emit, void *ctx);

/*
 * One ID_INDEX entry per id of every evsel: {id, idx, cpu, tid} where idx is
 * the ring-buffer index the id's fd writes to (the cpu index, or the thread
 * index for per-thread maps), cpu the CPU number (-1 per-thread) and tid the
 * thread (-1 for per-CPU events). Split in records of at most 1364 entries,
 * as perf does. Ids equal to 0 (fds never opened) are left out.
 */
int synthesize__id_index(struct evlist *evlist, synth_emit_fn emit, void *ctx);
/*
 * PERF_FORMAT_LOST read from every descriptor (at the end of a recording):
 * one LOST_SAMPLES per descriptor that lost any, with its id, CPU and tid
 * in the sample_id trailer, as perf record writes them; *total gets the
 * samples they count.
 */
int synthesize__lost_samples(struct evlist *evlist, synth_emit_fn emit, void *ctx,
			     u64 *total);
int synthesize__finished_init(synth_emit_fn emit, void *ctx);
int synthesize__finished_round(synth_emit_fn emit, void *ctx);

/*
 * perf's warning for a map read cut off by the timeout, without the newline:
 * "Reading /proc/%d/task/%d/maps time out. You may want to increase the time
 * limit by --proc-map-timeout". snprintf's return.
 */
int synthesize__timeout_msg(char *buf, size_t size, pid_t pid);
/* Mount point of the first hugetlbfs in /proc/mounts: 0, or -ENOENT. */
int synthesize__hugetlbfs_mountpoint(char *buf, size_t size);

/*
 * Read the GNU build id of an ELF file: its length (<= 20) or -errno.
 * -ENOEXEC: not an ELF of this machine's byte order or malformed;
 * -ENODATA: an ELF without an NT_GNU_BUILD_ID note. Looks at PT_NOTE
 * segments, then SHT_NOTE sections (relocatable objects: .ko).
 */
int buildid__read(const char *path, u8 *id, size_t size);
/* Same from a raw notes file (/sys/kernel/notes, /sys/module/M/notes/...). */
int buildid__read_notes(const char *path, u8 *id, size_t size);
/* Find NT_GNU_BUILD_ID in a run of ELF notes padded to `align` (4 or 8). */
int buildid__parse_notes(const void *notes, size_t len, size_t align, u8 *id, size_t size);
/*
 * This process's [vdso] image (*image malloc'ed, *len bytes) and its build
 * id: its length, or -errno (-ENOENT: no [vdso] mapped).
 */
int buildid__vdso(void **image, size_t *len, u8 *id, size_t size);
/* Lower-case hex, as perf prints it; snprintf's return. */
int buildid__snprintf(const u8 *id, int len, char *buf, size_t size);

#define BUILD_ID_SIZE	20

/*
 * Build ids already read, by (device, inode), failures included; shared by
 * every worker of a synthesis (a mutex inside). Only a cache: two workers
 * missing the same file both read it and store the same answer.
 */
struct buildid_cache *buildid_cache__new(void);
void buildid_cache__delete(struct buildid_cache *cache);	/* accepts NULL */
/* Length, a cached -errno, or -ENOENT (never -ENOENT cached: not known). */
int buildid_cache__lookup(struct buildid_cache *cache, u64 dev, u64 ino, u8 *id, size_t size);
/* Remember a result (len > 0) or a failure (len = -errno other than -ENOENT). */
void buildid_cache__add(struct buildid_cache *cache, u64 dev, u64 ino, const u8 *id, int len);

/*
 * Record layouts (tools/lib/perf/include/perf/event.h), as written to the
 * file. The variable part (name, filename, entries) is padded to 8 bytes
 * with NULs, then followed by the id_hdr_size sample_id trailer.
 */
struct perf_record_comm {
	struct perf_event_header	header;
	u32				pid, tid;
	char				comm[16];
};

struct perf_record_fork {
	struct perf_event_header	header;
	u32				pid, ppid;
	u32				tid, ptid;
	u64				time;
};

struct perf_record_mmap {
	struct perf_event_header	header;
	u32				pid, tid;
	u64				start;
	u64				len;
	u64				pgoff;
	char				filename[PATH_MAX];
};

struct perf_record_mmap2 {
	struct perf_event_header	header;
	u32				pid, tid;
	u64				start;
	u64				len;
	u64				pgoff;
	union {
		struct {
			u32		maj;
			u32		min;
			u64		ino;
			u64		ino_generation;
		};
		struct {
			u8		build_id_size;
			u8		__reserved_1;
			u16		__reserved_2;
			u8		build_id[20];
		};
	};
	u32				prot;
	u32				flags;
	char				filename[PATH_MAX];
};

/* link_info[] holds NR_NAMESPACES entries: net, uts, ipc, pid, user, mnt, cgroup (uapi). */
struct perf_record_namespaces {
	struct perf_event_header	header;
	u32				pid, tid;
	u64				nr_namespaces;
	struct perf_ns_link_info	link_info[];
};

struct perf_record_cgroup {
	struct perf_event_header	header;
	u64				id;
	char				path[PATH_MAX];
};

#define KSYM_NAME_LEN	512	/* perf's longest KSYMBOL name, NUL included */

struct perf_record_ksymbol {
	struct perf_event_header	header;
	u64				addr;
	u32				len;
	u16				ksym_type;	/* PERF_RECORD_KSYMBOL_TYPE_BPF */
	u16				flags;
	char				name[KSYM_NAME_LEN];
};

struct perf_record_bpf_event {
	struct perf_event_header	header;
	u16				type;		/* PERF_BPF_EVENT_PROG_LOAD */
	u16				flags;
	u32				id;
	u8				tag[8];		/* BPF_TAG_SIZE */
};

struct perf_record_id_index {
	struct perf_event_header	header;
	u64				nr;
	struct id_index_entry		entries[];
};

#endif /* PRECORD_SYNTHESIZE_H */
