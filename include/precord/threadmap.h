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
 * "-p 12,34": every task of each process (from /proc/PID/task).
 * "-t 56,78": exactly those threads. Returns 0, -EINVAL (syntax) or
 * -ESRCH (no such process or thread; *bad says which).
 */
int thread_map__new_pids(const char *list, struct thread_map **mapp, pid_t *bad);
int thread_map__new_tids(const char *list, struct thread_map **mapp, pid_t *bad);

struct thread_map *thread_map__get(struct thread_map *map);
void thread_map__put(struct thread_map *map);	/* accepts NULL */
int thread_map__idx(const struct thread_map *map, pid_t tid);

#endif /* PRECORD_THREADMAP_H */
