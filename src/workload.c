// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c — the command a recording runs (`precord -- CMD ARGS`),
 * forked before the events are opened and held until they are ready, as
 * perf record's workload is.
 *
 * The child blocks on a pipe (go) with the caller's signal mask back, then
 * execs; a second, close-on-exec pipe carries errno back when exec fails,
 * and EOF when it succeeded. The parent (the recorder's main thread) owns
 * the struct: it lets the child go, polls for its exit and reaps it.
 *
 * Data flow: argv → fork → (go byte) → execvp → the pid the events follow;
 * the exit status, or the exec's errno, back to the recorder.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "precord/workload.h"

void workload__init(struct workload *wl)
{
	*wl = (struct workload){ .pid = -1, .go_fd = -1, .err_fd = -1 };
}

/*
 * Fork the command; it waits on a pipe until the events are ready, then
 * execs. A second, close-on-exec pipe carries errno back if exec fails.
 */
int workload__prepare(struct workload *wl, char **argv, const sigset_t *mask,
			     bool stdout_is_stream)
{
	int go[2], errp[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	wl->pid = fork();
	if (wl->pid < 0) {
		int err = -errno;

		close(go[0]); close(go[1]); close(errp[0]); close(errp[1]);
		return err;
	}
	if (wl->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		/* precord ignores SIGPIPE (a write error says it); the workload must not */
		signal(SIGPIPE, SIG_DFL);
		/* as perf: what the workload prints must not land in the stream */
		if (stdout_is_stream && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(WORKLOAD_EXIT_NOEXEC);
		if (read(go[0], &c, 1) != 1)
			_exit(WORKLOAD_EXIT_NOEXEC);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(WORKLOAD_EXIT_NOEXEC);
		_exit(WORKLOAD_EXIT_NOEXEC);
	}
	close(go[0]);
	close(errp[1]);
	wl->go_fd = go[1];
	wl->err_fd = errp[0];
	return 0;
}

/* Let the child exec; returns 0 or the exec's -errno. */
int workload__start(struct workload *wl)
{
	char c = 'g';
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, &c, 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	do {
		n = read(wl->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e)) {
		wl->exec_errno = e;
		return -e;
	}
	return 0;
}

void workload__reap(struct workload *wl, bool kill_it)
{
	int status;

	if (wl->pid <= 0 || wl->exited)
		return;
	if (kill_it)
		kill(wl->pid, SIGTERM);
	if (waitpid(wl->pid, &status, 0) == wl->pid) {
		wl->status = status;
		wl->exited = true;
	}
}

bool workload__poll_exit(struct workload *wl)
{
	int status;

	if (wl->pid <= 0 || wl->exited)
		return wl->exited;
	if (waitpid(wl->pid, &status, WNOHANG) == wl->pid) {
		wl->status = status;
		wl->exited = true;
	}
	return wl->exited;
}
