/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h — perf's control channel (--control=fd:CTL[,ACK] or
 * --control=fifo:CTL[,ACK]): a script writes one command a line into CTL,
 * precord answers on ACK once it has carried the command out.
 *
 * The recorder opens the channel while parsing options, puts ctl_fd in the
 * poll set of its main loop, and when poll() reports it readable calls
 * control__read() until it returns 0, acting on each command and then
 * calling control__ack() for the ones perf acknowledges. No thread of its
 * own: everything runs in the caller's thread.
 */
#ifndef PRECORD_CONTROL_H
#define PRECORD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

/* Longest command line kept; the rest of a longer line is dropped. */
#define CONTROL_LINE_MAX	255

/*
 * perf 6.1's commands (tools/perf/util/evlist.h, perf-record(1)). A line
 * is matched on its first word the way perf does, by prefix ("stopnow" is
 * stop); the text after "word " is the argument.
 */
enum control_cmd {
	CONTROL_CMD_UNSUPPORTED = 0,	/* anything else: ignored, never acked */
	CONTROL_CMD_ENABLE,		/* "enable" or "enable NAME": enable events */
	CONTROL_CMD_DISABLE,		/* "disable" or "disable NAME" */
	CONTROL_CMD_SNAPSHOT,		/* "snapshot": what SIGUSR2 does */
	CONTROL_CMD_EVLIST,		/* "evlist [-v|-g|-F]": list the events on stderr */
	CONTROL_CMD_STOP,		/* "stop": end the recording */
	CONTROL_CMD_PING,		/* "ping": only the ack */
};

struct control_msg {
	enum control_cmd cmd;
	/*
	 * Text right after the command word with no space between ("enablex"):
	 * perf then prints "failed: wrong command" for enable, disable and
	 * evlist, does nothing, and still acks; it ignores it for the others.
	 */
	bool	malformed;
	char	arg[CONTROL_LINE_MAX + 1];	/* after "word ", or "" */
	char	line[CONTROL_LINE_MAX + 1];	/* the whole line, without '\n' */
};

struct control {
	int	ctl_fd;		/* commands come in here; -1: no channel */
	int	ack_fd;		/* acks go out here; -1: none asked for */
	bool	owns_fds;	/* fifo: opened here, closed by control__close() */
	bool	eof;		/* the writer closed its end (fd: with a pipe) */
	bool	skipping;	/* dropping the rest of an over-long line */
	size_t	len;		/* bytes of lines not yet handed out in buf */
	char	buf[CONTROL_LINE_MAX + 1];	/* room for the longest line and its end */
};

/* An unused channel: both fds -1. */
void control__init(struct control *ctl);

/*
 * Parse spec ("fd:CTL[,ACK]" or "fifo:CTL[,ACK]", perf's syntax) and open
 * the channel. fd: takes descriptors the caller inherited, in any base
 * strtoul() reads ("fd:0x7" too), and checks that they are open, CTL for
 * reading and ACK for writing; they are not closed by control__close().
 * fifo: opens the named FIFOs O_RDWR | O_NONBLOCK, as perf does, so that
 * neither open waits for the other end and a writer that closes CTL does
 * not make poll() report POLLHUP for ever; "fifo:CTL," means no ACK.
 * Returns 0, or -errno with a one-line message in err: -EINVAL for bad
 * syntax, a descriptor that is not open or not usable that way, or a path
 * that is not a FIFO; open(2)'s error for a FIFO that cannot be opened.
 * On error nothing is left open and ctl is as control__init() leaves it.
 */
int control__open(struct control *ctl, const char *spec, char *err, size_t errlen);

/* Close what control__open() opened; accepts NULL and an unused channel. */
void control__close(struct control *ctl);

/*
 * The next complete command (a line ending in '\n' or '\0', perf's two
 * terminators), read without ever blocking: lines may arrive in pieces,
 * the unfinished end is kept for the next call. Returns 1 with *msg set,
 * 0 when no complete line is waiting, or -errno from read(2). At end of
 * file (a pipe whose writer closed) an unterminated last line still comes
 * out as a command, then -EPIPE on every call: take ctl_fd out of the poll
 * set. Commands already read sit in ctl->buf and do not make ctl_fd
 * readable again: after poll() reports it, call until 0 (or -EPIPE).
 * A line longer than CONTROL_LINE_MAX comes out as CONTROL_CMD_UNSUPPORTED
 * holding its first CONTROL_LINE_MAX bytes; the rest of it is dropped.
 */
int control__read(struct control *ctl, struct control_msg *msg);

/*
 * Write perf's ack, "ack\n" followed by a NUL (perf 6.1 writes
 * sizeof("ack\n") = 5 bytes), to ack_fd. Returns 0 (also when there is no
 * ack_fd) or -errno: -EAGAIN when a FIFO nobody reads is full, -EPIPE when
 * the reader of an fd: pipe is gone (SIGPIPE must be ignored).
 */
int control__ack(struct control *ctl);

/*
 * Whether perf acknowledges cmd: everything but UNSUPPORTED. perf acks
 * enable, disable, evlist, stop and ping once they are done (malformed
 * ones too), and snapshot once the snapshot has been started.
 */
bool control_cmd__is_acked(enum control_cmd cmd);

/* "enable", "snapshot", ...; "unsupported" for CONTROL_CMD_UNSUPPORTED. */
const char *control_cmd__name(enum control_cmd cmd);

#endif /* PRECORD_CONTROL_H */
