/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h — the small helpers every module would otherwise write for
 * itself (src/util.c): array sizes, unaligned loads, growing buffers, whole reads and
 * writes at an offset, the monotonic clock, a message into the caller's
 * error buffer, and checked parsers of the numbers in /proc and sysfs
 * text. workqueue/ has its own: it knows nothing of precord.
 */
#ifndef PRECORD_UTIL_H
#define PRECORD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include "precord/perf-file.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A u64 or u32 at p, which may be unaligned (records after a COMPRESSED one). */
static inline u64 load_u64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 load_u32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Exactly len bytes at off, across short reads and EINTR: 0, -errno, or
 * eof_err when the file ends first (what a short file means to the caller).
 */
int pread_all(int fd, void *buf, size_t len, u64 off, int eof_err);

/*
 * buf, a malloc()ed buffer of *cap bytes (NULL and 0 before the first
 * call), made to hold need bytes: its size doubles, from first when it has
 * none (first > 0), until need fits. The buffer (moved, maybe) with *cap
 * its new size, or NULL with buf and *cap as they were.
 */
void *buf__grow(void *buf, size_t *cap, size_t need, size_t first);
/* Exactly len bytes at off: 0, -errno, or -EIO when a write moves nothing. */
int pwrite_all(int fd, const void *buf, size_t len, u64 off);
/* The same at the file's offset (a pipe, a file written front to back). */
int write_all(int fd, const void *buf, size_t len);

/* CLOCK_MONOTONIC, in the unit each caller counts in. */
u64 clock__now_ns(void);

static inline u64 clock__now_ms(void)
{
	return clock__now_ns() / 1000000;
}

static inline double clock__now_us(void)
{
	return (double)clock__now_ns() / 1e3;
}

static inline double clock__now_s(void)
{
	return (double)clock__now_ns() / 1e9;
}

/* The message into err (nothing when err is NULL or errlen 0); returns ret. */
int errbuf__set(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void errbuf__vset(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * ---- numbers in /proc and sysfs text ----
 *
 * What strtoull() and sscanf() let through is refused: no digit, a sign on
 * an unsigned number, a value out of range (-ERANGE). With end, *end is
 * set past the number; without, only white space may follow it (-EINVAL).
 * Leading blanks are skipped. base as strtoull()'s (0: 0x and 0 prefixes).
 */
int parse__u64(const char *s, int base, u64 *v, const char **end);
int parse__s64(const char *s, int base, s64 *v, const char **end);
int parse__int(const char *s, int base, int *v, const char **end);
int parse__uint(const char *s, int base, unsigned int *v, const char **end);
/* "KEY:<blanks>N" (/proc/PID/status, /proc/meminfo): N; -ENOENT when line is no KEY's. */
int parse__key_u64(const char *line, const char *key, int base, u64 *v);
int parse__key_int(const char *line, const char *key, int *v);
/* "PREFIXN" (node3, memory12): the decimal N, or -EINVAL. */
int parse__name_uint(const char *name, const char *prefix, unsigned int *v);

/* s without the white space around it (cut in place). */
char *str__trim(char *s);
/* The first line of a small file (a sysctl, a sysfs attribute), trimmed. 0 or -errno. */
int file__read_line(const char *path, char *buf, size_t size);
/* That line as one number, checked as above. 0 or -errno. */
int file__read_int(const char *path, int base, int *v);
int file__read_u64(const char *path, int base, u64 *v);
/* The first line of path that starts with key (getline()'s, to free). 0 or -errno. */
int file__find_line(const char *path, const char *key, char **linep);

#endif /* PRECORD_UTIL_H */
