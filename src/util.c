// SPDX-License-Identifier: GPL-2.0
/*
 * util.c — the helpers of include/precord/util.h: growing buffers, whole reads and writes,
 * the clock, error messages into the caller's buffer, and the checked
 * parsers every reader of /proc and sysfs goes through.
 *
 * Pure functions of their arguments and of the files they are given; any
 * thread may call them.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "precord/util.h"

int pread_all(int fd, void *buf, size_t len, u64 off, int eof_err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return eof_err;
		done += (size_t)n;
	}
	return 0;
}

void *buf__grow(void *buf, size_t *cap, size_t need, size_t first)
{
	size_t size = *cap ? *cap : first;
	void *p;

	while (size < need) {
		if (size > SIZE_MAX / 2)
			return NULL;
		size *= 2;
	}
	p = realloc(buf, size);
	if (p)
		*cap = size;
	return p;
}

/* len bytes from buf: at off (pwrite) when off is given, else at the file's offset. */
static int write__all(int fd, const char *buf, size_t len, const u64 *off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = off ? pwrite(fd, buf + done, len - done, (off_t)(*off + done)) :
			    write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, u64 off)
{
	return write__all(fd, buf, len, &off);
}

int write_all(int fd, const void *buf, size_t len)
{
	return write__all(fd, buf, len, NULL);
}

u64 clock__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

void errbuf__vset(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

int errbuf__set(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf__vset(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* ---- numbers ---- */

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* What follows a number: *end, or nothing but white space. */
static int parse__rest(const char *p, const char **end)
{
	if (end) {
		*end = p;
		return 0;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

int parse__u64(const char *s, int base, u64 *v, const char **end)
{
	unsigned long long x;
	char *e;

	s = skip_blanks(s);
	if (!isdigit((unsigned char)*s) && !(base == 16 && isxdigit((unsigned char)*s)))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, base);
	if (errno)
		return -errno;
	if (e == s)
		return -EINVAL;
	*v = x;
	return parse__rest(e, end);
}

int parse__s64(const char *s, int base, s64 *v, const char **end)
{
	long long x;
	char *e;

	s = skip_blanks(s);
	if (!isdigit((unsigned char)s[*s == '-' || *s == '+']))
		return -EINVAL;
	errno = 0;
	x = strtoll(s, &e, base);
	if (errno)
		return -errno;
	if (e == s)
		return -EINVAL;
	*v = x;
	return parse__rest(e, end);
}

int parse__int(const char *s, int base, int *v, const char **end)
{
	s64 x;
	int err = parse__s64(s, base, &x, end);

	if (err)
		return err;
	if (x < INT_MIN || x > INT_MAX)
		return -ERANGE;
	*v = (int)x;
	return 0;
}

int parse__uint(const char *s, int base, unsigned int *v, const char **end)
{
	u64 x;
	int err = parse__u64(s, base, &x, end);

	if (err)
		return err;
	if (x > UINT_MAX)
		return -ERANGE;
	*v = (unsigned int)x;
	return 0;
}

/* The text after "KEY:" at the start of line, or NULL. */
static const char *key__value(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ':')
		return NULL;
	return line + n + 1;
}

int parse__key_u64(const char *line, const char *key, int base, u64 *v)
{
	const char *p = key__value(line, key), *end;

	return p ? parse__u64(p, base, v, &end) : -ENOENT;
}

int parse__key_int(const char *line, const char *key, int *v)
{
	const char *p = key__value(line, key), *end;

	return p ? parse__int(p, 10, v, &end) : -ENOENT;
}

int parse__name_uint(const char *name, const char *prefix, unsigned int *v)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return -EINVAL;
	return parse__uint(name + n, 10, v, NULL);
}

/* ---- small files ---- */

char *str__trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int file__read_line(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "re");
	char *s;

	if (!fp)
		return -errno;
	if (!fgets(buf, (int)size, fp)) {
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	s = str__trim(buf);
	memmove(buf, s, strlen(s) + 1);
	return 0;
}

int file__read_int(const char *path, int base, int *v)
{
	char buf[64];
	int err = file__read_line(path, buf, sizeof(buf));

	return err ? err : parse__int(buf, base, v, NULL) ? -EINVAL : 0;
}

int file__read_u64(const char *path, int base, u64 *v)
{
	char buf[64];
	int err = file__read_line(path, buf, sizeof(buf));

	return err ? err : parse__u64(buf, base, v, NULL) ? -EINVAL : 0;
}

int file__find_line(const char *path, const char *key, char **linep)
{
	size_t len = 0, klen = strlen(key);
	FILE *fp = fopen(path, "re");
	char *line = NULL;

	if (!fp)
		return -errno;
	while (getline(&line, &len, fp) > 0) {
		if (!strncmp(line, key, klen)) {
			fclose(fp);
			*linep = line;
			return 0;
		}
	}
	free(line);
	fclose(fp);
	return -ENOENT;
}
