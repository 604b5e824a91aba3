// SPDX-License-Identifier: GPL-2.0
/*
 * control.c — perf's control channel: --control=fd:CTL[,ACK] and
 * --control=fifo:CTL[,ACK].
 *
 * Owns: the two descriptors when it opened them (fifo:), and a line
 * buffer of CONTROL_LINE_MAX bytes inside struct control. For fd: the
 * descriptors belong to whoever started precord; they are checked, used,
 * and left open.
 *
 * Who runs it: the recorder's main thread, from its poll loop; there is no
 * thread here and nothing another thread can reach, so no locking. Nothing
 * here blocks: control__read() asks poll() with a zero timeout before each
 * read(), because an fd: descriptor is the caller's and may be blocking
 * (setting O_NONBLOCK on it would change it for the process that passed it
 * too), and the FIFOs are opened O_NONBLOCK anyway.
 *
 * Data flow: a script writes lines into CTL; control__read() appends what
 * read() returns to the buffer and hands out one complete line at a time,
 * parsed into a struct control_msg the way perf 6.1 parses it
 * (evlist__ctlfd_recv(): the first word matched by prefix against enable,
 * disable, snapshot, evlist, stop, ping; '\n' or '\0' ends a line; empty
 * lines are ignored). The recorder acts on it and calls control__ack(),
 * which writes perf's five bytes "ack\n\0" to ACK.
 *
 * Differences from perf, all for robustness: perf reads one byte at a time
 * up to 63 and takes whatever it has when the pipe runs dry, so a command
 * written in two pieces becomes two unsupported commands; here pieces are
 * kept until the line is complete, lines may be 255 bytes, and the rest of
 * a longer one is dropped rather than read as the next command. perf takes
 * "fd:3x" as fd 3 and does not look at the descriptors; here trailing text
 * is a syntax error, the descriptors must be open the right way round, and
 * a fifo: path must be a FIFO (a regular file would poll readable for ever).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precord/control.h"
#include "precord/util.h"

#define CONTROL_SYNTAX	"expected fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]"

/* perf's tags, in the order perf tries them (tools/perf/util/evlist.c). */
static const struct {
	const char		*tag;
	enum control_cmd	cmd;
} control_cmds[] = {
	{ "enable",	CONTROL_CMD_ENABLE },
	{ "disable",	CONTROL_CMD_DISABLE },
	{ "snapshot",	CONTROL_CMD_SNAPSHOT },
	{ "evlist",	CONTROL_CMD_EVLIST },
	{ "stop",	CONTROL_CMD_STOP },
	{ "ping",	CONTROL_CMD_PING },
};

#define NR_CONTROL_CMDS	ARRAY_SIZE(control_cmds)

void control__init(struct control *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->ctl_fd = -1;
	ctl->ack_fd = -1;
}

/*
 * A descriptor number: digits in any base strtoul() reads, nothing before
 * (no sign, no blanks), at most INT_MAX. Returns 0 and sets *end past it.
 */
static int control__parse_fd(const char *s, int *fd, const char **end)
{
	unsigned long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &e, 0);
	if (errno || v > INT_MAX)
		return -EINVAL;
	*fd = (int)v;
	*end = e;
	return 0;
}

/* fd must be open with an access mode that allows reading or writing. */
static int control__check_fd(int fd, bool write, const char *what,
			     char *err, size_t errlen)
{
	int fl = fcntl(fd, F_GETFL);
	int mode;

	if (fl < 0)
		return errbuf__set(err, errlen, -EINVAL,
				     "--control: %s %d is not open (open it in the calling shell: exec {fd}<>FIFO)",
				     what, fd);
	mode = fl & O_ACCMODE;
	if (write ? mode == O_RDONLY : mode == O_WRONLY)
		return errbuf__set(err, errlen, -EINVAL,
				     "--control: %s %d is not open for %s",
				     what, fd, write ? "writing" : "reading");
	return 0;
}

static int control__open_fds(struct control *ctl, const char *spec,
			     char *err, size_t errlen)
{
	const char *p = spec + 3, *end;
	int ctl_fd, ack_fd = -1, ret;

	if (control__parse_fd(p, &ctl_fd, &end))
		goto out_syntax;
	if (*end == ',') {
		if (control__parse_fd(end + 1, &ack_fd, &end))
			goto out_syntax;
	}
	if (*end)
		goto out_syntax;
	ret = control__check_fd(ctl_fd, false, "ctl-fd", err, errlen);
	if (ret)
		return ret;
	if (ack_fd >= 0) {
		ret = control__check_fd(ack_fd, true, "ack-fd", err, errlen);
		if (ret)
			return ret;
	}
	ctl->ctl_fd = ctl_fd;
	ctl->ack_fd = ack_fd;
	return 0;

out_syntax:
	return errbuf__set(err, errlen, -EINVAL, "--control '%s': %s", spec,
			     CONTROL_SYNTAX);
}

/*
 * Open one FIFO O_RDWR | O_NONBLOCK, as perf does: holding both ends, the
 * open does not wait for a peer, a writer closing CTL causes no POLLHUP (a
 * script may open and close it for each command), and acks written while
 * no one reads ACK wait in the pipe instead of failing with ENXIO.
 */
static int control__open_fifo(const char *path, const char *what,
			      char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return errbuf__set(err, errlen, ret, "--control: cannot open '%s' (%s): %s%s",
				     path, what, strerror(-ret),
				     ret == -ENOENT ? " (create it with mkfifo)" : "");
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return errbuf__set(err, errlen, ret, "--control: cannot stat '%s' (%s): %s",
				     path, what, strerror(-ret));
	}
	if (!S_ISFIFO(st.st_mode)) {
		close(fd);
		return errbuf__set(err, errlen, -EINVAL,
				     "--control: '%s' (%s) is not a FIFO (create it with mkfifo)",
				     path, what);
	}
	return fd;
}

static int control__open_fifos(struct control *ctl, const char *spec,
			       char *err, size_t errlen)
{
	const char *names = spec + 5;
	const char *comma = strchr(names, ',');
	char *ctl_path;
	int ctl_fd, ack_fd = -1, ret = 0;

	if (!*names || *names == ',')
		return errbuf__set(err, errlen, -EINVAL, "--control '%s': %s", spec,
				     CONTROL_SYNTAX);
	ctl_path = strndup(names, comma ? (size_t)(comma - names) : strlen(names));
	if (!ctl_path)
		return errbuf__set(err, errlen, -ENOMEM, "--control: out of memory");
	ctl_fd = control__open_fifo(ctl_path, "ctl-fifo", err, errlen);
	if (ctl_fd < 0) {
		ret = ctl_fd;
		goto out_free_path;
	}
	/* "fifo:CTL," is CTL without acks, as in perf. */
	if (comma && comma[1]) {
		ack_fd = control__open_fifo(comma + 1, "ack-fifo", err, errlen);
		if (ack_fd < 0) {
			ret = ack_fd;
			goto out_close_ctl;
		}
	}
	ctl->ctl_fd = ctl_fd;
	ctl->ack_fd = ack_fd;
	ctl->owns_fds = true;
	goto out_free_path;

out_close_ctl:
	close(ctl_fd);
out_free_path:
	free(ctl_path);
	return ret;
}

int control__open(struct control *ctl, const char *spec, char *err, size_t errlen)
{
	control__init(ctl);
	if (!strncmp(spec, "fd:", 3))
		return control__open_fds(ctl, spec, err, errlen);
	if (!strncmp(spec, "fifo:", 5))
		return control__open_fifos(ctl, spec, err, errlen);
	return errbuf__set(err, errlen, -EINVAL, "--control '%s': %s", spec,
			     CONTROL_SYNTAX);
}

void control__close(struct control *ctl)
{
	if (!ctl)
		return;
	if (ctl->owns_fds) {
		if (ctl->ctl_fd >= 0)
			close(ctl->ctl_fd);
		if (ctl->ack_fd >= 0 && ctl->ack_fd != ctl->ctl_fd)
			close(ctl->ack_fd);
	}
	control__init(ctl);
}

/* Fill msg from the len bytes of a line (no terminator). */
static void control_msg__parse(struct control_msg *msg, const char *line, size_t len)
{
	size_t i;

	memset(msg, 0, sizeof(*msg));
	memcpy(msg->line, line, len);
	msg->line[len] = '\0';
	for (i = 0; i < NR_CONTROL_CMDS; i++) {
		size_t tlen = strlen(control_cmds[i].tag);
		const char *rest = msg->line + tlen;

		if (strncmp(msg->line, control_cmds[i].tag, tlen))
			continue;
		msg->cmd = control_cmds[i].cmd;
		if (*rest == ' ')
			snprintf(msg->arg, sizeof(msg->arg), "%s", rest + 1);
		else if (*rest)
			msg->malformed = true;
		return;
	}
}

/* Offset of the first '\n' or '\0' in the buffer, or len. */
static size_t control__line_end(const struct control *ctl)
{
	size_t i;

	for (i = 0; i < ctl->len; i++) {
		if (ctl->buf[i] == '\n' || ctl->buf[i] == '\0')
			break;
	}
	return i;
}

static void control__consume(struct control *ctl, size_t n)
{
	memmove(ctl->buf, ctl->buf + n, ctl->len - n);
	ctl->len -= n;
}

/*
 * Take the next complete line out of the buffer into msg. Returns false
 * when there is none; then the buffer is not full, so a read has room.
 */
static bool control__take_line(struct control *ctl, struct control_msg *msg)
{
	for (;;) {
		size_t end = control__line_end(ctl);
		bool drop;

		if (end == ctl->len)
			break;
		/* The tail of an over-long line, or an empty line: dropped. */
		drop = ctl->skipping || !end;
		ctl->skipping = false;
		if (!drop)
			control_msg__parse(msg, ctl->buf, end);
		control__consume(ctl, end + 1);
		if (!drop)
			return true;
	}
	if (ctl->len < sizeof(ctl->buf))
		return false;
	/*
	 * A full buffer and no end of line: longer than CONTROL_LINE_MAX,
	 * handed out as unsupported and dropped up to its end.
	 */
	if (ctl->skipping) {
		ctl->len = 0;
		return false;
	}
	control_msg__parse(msg, ctl->buf, CONTROL_LINE_MAX);
	msg->cmd = CONTROL_CMD_UNSUPPORTED;
	msg->malformed = false;
	msg->arg[0] = '\0';
	ctl->skipping = true;
	ctl->len = 0;
	return true;
}

/* At end of file: an unterminated last line still counts. */
static bool control__take_last(struct control *ctl, struct control_msg *msg)
{
	bool have = ctl->len && !ctl->skipping;

	if (have)
		control_msg__parse(msg, ctl->buf, ctl->len);
	ctl->len = 0;
	ctl->skipping = false;
	return have;
}

/*
 * Read what is there, without blocking. Returns 1 when it read something
 * or met end of file, 0 when there is nothing to read now, or -errno.
 */
static int control__fill(struct control *ctl)
{
	struct pollfd pfd = { .fd = ctl->ctl_fd, .events = POLLIN };
	ssize_t n;
	int ret;

	do {
		ret = poll(&pfd, 1, 0);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (!ret)
		return 0;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	/* POLLIN, POLLHUP or POLLERR: read() says which. */
	do {
		n = read(ctl->ctl_fd, ctl->buf + ctl->len, sizeof(ctl->buf) - ctl->len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (!n)
		ctl->eof = true;
	ctl->len += (size_t)n;
	return 1;
}

int control__read(struct control *ctl, struct control_msg *msg)
{
	int ret;

	if (ctl->ctl_fd < 0)
		return 0;
	for (;;) {
		if (control__take_line(ctl, msg))
			return 1;
		if (ctl->eof)
			return control__take_last(ctl, msg) ? 1 : -EPIPE;
		ret = control__fill(ctl);
		if (ret <= 0)
			return ret;
	}
}

int control__ack(struct control *ctl)
{
	/* sizeof, not strlen: perf 6.1 sends the NUL too. */
	static const char ack[] = "ack\n";
	ssize_t n;

	if (ctl->ack_fd < 0)
		return 0;
	do {
		n = write(ctl->ack_fd, ack, sizeof(ack));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* A pipe takes 5 bytes whole or not at all (PIPE_BUF); others may not. */
	return (size_t)n == sizeof(ack) ? 0 : -EIO;
}

bool control_cmd__is_acked(enum control_cmd cmd)
{
	return cmd != CONTROL_CMD_UNSUPPORTED;
}

const char *control_cmd__name(enum control_cmd cmd)
{
	size_t i;

	for (i = 0; i < NR_CONTROL_CMDS; i++) {
		if (control_cmds[i].cmd == cmd)
			return control_cmds[i].tag;
	}
	return "unsupported";
}
