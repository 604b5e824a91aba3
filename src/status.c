// SPDX-License-Identifier: GPL-2.0
/*
 * status.c — the live status line of a recording.
 *
 * When stderr is a terminal and precord is not -q, the main thread's wait
 * loop (builtin/builtin-record.c) calls status__tick() at least once a second; it sums the
 * counters each streaming thread publishes after every pass (stream.c:
 * stream.live, relaxed atomic stores and loads: each counter is a
 * free-standing figure, nothing is read in order with anything else, and no
 * lock is taken on the threads' path) and rewrites one line: elapsed
 * seconds, MB moved from the rings and the MB/s since the last line,
 * samples, lost samples and their share, and the threads. The line is cut
 * to the terminal's width (a wrapped line could not be rewritten with a
 * carriage return) and erased before the closing lines. When stderr is a
 * file or a pipe nothing is written: a log gets only the closing lines.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "precord/status.h"

#define STATUS_MAX_LINE	256

void status__init(struct status *st, int fd, bool quiet, u64 now_ms)
{
	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->on = !quiet && isatty(fd);
	st->start_ms = now_ms;
	st->prev_ms = now_ms;
	st->next_ms = now_ms + STATUS_PERIOD_MS;
}

int status__timeout(const struct status *st, u64 now_ms, int timeout)
{
	int t;

	if (!st->on)
		return timeout;
	t = st->next_ms > now_ms ? (int)(st->next_ms - now_ms) : 0;
	return timeout < 0 || t < timeout ? t : timeout;
}

size_t status__format(const struct status *st, u64 now_ms, const struct status_counts *c,
		      char *buf, size_t size)
{
	u64 dt = now_ms > st->prev_ms ? now_ms - st->prev_ms : 0;
	u64 db = c->bytes > st->prev_bytes ? c->bytes - st->prev_bytes : 0;
	double mbs = dt ? (double)db / 1048576.0 / ((double)dt / 1000.0) : 0.0;
	u64 all = c->samples + c->lost;
	int n;

	if (!size)
		return 0;
	n = snprintf(buf, size, "[ precord: %llu s, %.1f MB (%.1f MB/s), %llu samples, "
		     "%llu lost (%.2f%%), %d thread%s ]",
		     (unsigned long long)((now_ms - st->start_ms) / 1000),
		     (double)c->bytes / 1048576.0, mbs, (unsigned long long)c->samples,
		     (unsigned long long)c->lost, all ? 100.0 * (double)c->lost / (double)all : 0.0,
		     c->threads, c->threads == 1 ? "" : "s");
	if (n < 0)
		n = 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

/* The terminal's width, or 80 when it does not say. */
static size_t status__width(const struct status *st)
{
	struct winsize ws;

	if (ioctl(st->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

void status__tick(struct status *st, u64 now_ms, const struct status_counts *c)
{
	char line[STATUS_MAX_LINE + 8];
	size_t width, n;

	if (!st->on || now_ms < st->next_ms)
		return;
	width = status__width(st);
	if (width > STATUS_MAX_LINE)
		width = STATUS_MAX_LINE;
	line[0] = '\r';
	/* width - 1: the cursor stays on the line, nothing wraps */
	n = 1 + status__format(st, now_ms, c, line + 1, width);
	memcpy(line + n, "\033[K", 3);	/* erase what a longer line left */
	n += 3;
	if (write(st->fd, line, n) == (ssize_t)n)
		st->shown = true;
	st->prev_ms = now_ms;
	st->prev_bytes = c->bytes;
	while (st->next_ms <= now_ms)
		st->next_ms += STATUS_PERIOD_MS;
}

void status__clear(struct status *st)
{
	static const char erase[] = "\r\033[K";

	if (!st->shown)
		return;
	if (write(st->fd, erase, sizeof(erase) - 1) < 0)
		return;	/* the terminal is gone: nothing to erase */
	st->shown = false;
}
