/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h — the command a recording forks and holds until its events
 * are open (src/workload.c).
 */
#ifndef PRECORD_WORKLOAD_H
#define PRECORD_WORKLOAD_H

#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>

/* The exit status of a child that could not exec, as a shell's. */
#define WORKLOAD_EXIT_NOEXEC	127

struct workload {
	pid_t	pid;		/* -1: none */
	int	go_fd;		/* write end: one byte lets the child exec */
	int	err_fd;		/* read end: the child's errno when exec failed, EOF when it ran */
	int	status;		/* from waitpid */
	bool	exited;
	int	exec_errno;
};

/* No workload yet. */
void workload__init(struct workload *wl);
/*
 * Fork argv; the child waits (with signal mask `mask`) for
 * workload__start(). stdout_is_stream: the child's stdout goes to stderr,
 * so what it prints does not land in a perf stream on stdout. 0 or -errno.
 */
int workload__prepare(struct workload *wl, char **argv, const sigset_t *mask,
		      bool stdout_is_stream);
/* Let the child exec; 0, or the exec's -errno (wl->exec_errno). */
int workload__start(struct workload *wl);
/* Wait for the child (after SIGTERM when kill_it); its status in wl. */
void workload__reap(struct workload *wl, bool kill_it);
/* Whether the child has exited, without waiting. */
bool workload__poll_exit(struct workload *wl);

#endif /* PRECORD_WORKLOAD_H */
