/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threadmap.h — refcounted lists of thread ids to monitor (libperf's
 * perf_thread_map). A map holding the single entry -1 means "every thread
 * of the CPUs" (system-wide / per-CPU events).
 */
#ifndef PRECORD_THREADMAP_H
#define PRECORD_THREADMAP_H

#include <sys/types.h>

struct thread_map {
	int	refcnt;		/* atomic */
	int	nr;
	pid_t	map[];
};

struct thread_map *thread_map__new_dummy(void);	/* { -1 } */
struct thread_map *thread_map__new_from(const pid_t *tids, int nr);
/*
 * "-p 12,34": every task of each process (from /proc/PID/task), ascending,
 * without duplicates.
 * "-t 56,78": exactly those threads, in the order given, each checked to be
 * a live thread (/proc/TID/status's Tgid, then /proc/TGID/task/TID).
 * Both return 0, -EINVAL (syntax), -ESRCH (no such process or thread; *bad
 * says which, when bad is not NULL) or another -errno from /proc.
 */
int thread_map__new_pids(const char *list, struct thread_map **mapp, pid_t *bad);
int thread_map__new_tids(const char *list, struct thread_map **mapp, pid_t *bad);
/*
 * "-u USER": every task of every process whose /proc directory uid owns
 * (perf 6.1's thread_map__new_by_uid()), ascending; a process gone while
 * /proc is read is left out. The map may be empty. 0 or -errno.
 */
int thread_map__new_by_uid(uid_t uid, struct thread_map **mapp);
/*
 * The list syntax both take: comma-separated decimal ids, blanks allowed
 * around them, one trailing comma allowed. Syntax only (reads nothing from
 * /proc): 0 or -EINVAL.
 */
int thread_map__check_list(const char *list);

struct thread_map *thread_map__get(struct thread_map *map);
void thread_map__put(struct thread_map *map);	/* accepts NULL */
int thread_map__idx(const struct thread_map *map, pid_t tid);

#endif /* PRECORD_THREADMAP_H */
