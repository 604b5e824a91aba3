// SPDX-License-Identifier: GPL-2.0
/*
 * options-values.c — the values options take: unsigned numbers with
 * a range, sizes with their units (B, K, M, G), perf's --mmap-pages
 * (pages or a size, rounded up to a power of two) and --mmap-flush.
 *
 * Data flow: a handler hands the text of its value here and gets a number or
 * -EINVAL with the message already in the caller's buffer.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "options-internal.h"

/*
 * An unsigned number with nothing around it: no sign, no blanks, no
 * trailing characters. base 0 also takes 0x (as perf's OPT_U64). Returns 0,
 * -EINVAL or -ERANGE (above max).
 */
int parse_unsigned(const char *s, int base, unsigned long long max,
		   unsigned long long *val)
{
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || *val > max)
		return -ERANGE;
	return 0;
}

/* perf's parse_tag_value() tables: sizes (-m, --switch-output) and times. */
const struct tag_mult size_tags[] = {
	{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 }, { 0, 0 },
};
const struct tag_mult time_tags[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 60 * 60 }, { 'd', 24 * 60 * 60 }, { 0, 0 },
};

/*
 * A number followed by one of the tags, times the tag's multiplier. -EINVAL
 * when there is no tag or the number is malformed, -ERANGE above max.
 */
int parse_tagged(const char *str, const struct tag_mult *tags, unsigned long long max,
		 unsigned long long *val)
{
	size_t len = strlen(str);
	unsigned long long v;
	char num[32];
	int err;

	if (len < 2 || len >= sizeof(num))
		return -EINVAL;
	for (; tags->tag; tags++) {
		if (str[len - 1] != tags->tag)
			continue;
		memcpy(num, str, len - 1);
		num[len - 1] = '\0';
		err = parse_unsigned(num, 10, max / tags->mult, &v);
		if (err)
			return err;
		*val = v * tags->mult;
		return 0;
	}
	return -EINVAL;
}

/* N[BKMG] in bytes; -EINVAL when there is no tag or it is malformed, -ERANGE on overflow. */
int parse_size_tag(const char *str, unsigned long long *bytes)
{
	return parse_tagged(str, size_tags, ULLONG_MAX, bytes);
}

static unsigned long long roundup_pow2(unsigned long long n)
{
	unsigned long long p = 1;

	while (p < n && p <= ULLONG_MAX / 2)
		p <<= 1;
	return p < n ? 0 : p;
}

/*
 * Pages, or -EINVAL (syntax) or -ERANGE (more than UINT_MAX pages, perf's
 * limit); *rounded_from is what was asked when it was not a power of two.
 */
long mmap_pages__parse(const char *str, long page_size, unsigned long long *rounded_from)
{
	unsigned long long pages, bytes;
	int err;

	*rounded_from = 0;
	if (!str || page_size <= 0)
		return -EINVAL;
	err = parse_size_tag(str, &bytes);
	if (err == 0)
		pages = bytes / page_size + (bytes % page_size != 0);
	else if (err == -ERANGE)
		return err;
	else if ((err = parse_unsigned(str, 10, ULLONG_MAX, &pages)))
		return err;
	if (pages == 0 || (pages & (pages - 1))) {
		/* perf rounds 0 up to 1 page too, with the same note */
		*rounded_from = pages ? pages : 1;
		pages = roundup_pow2(pages);
		if (!pages)
			return -ERANGE;
	}
	if (pages > UINT_MAX)
		return -ERANGE;
	return (long)pages;
}

long parse_mmap_pages(const char *str, long page_size)
{
	unsigned long long rounded_from;

	return mmap_pages__parse(str, page_size, &rounded_from);
}

/* perf's unit_number__scnprintf(): 16K, 1024K, 2M. */
void unit_number(char *buf, size_t size, unsigned long long n)
{
	static const char units[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, size, "%llu%c", n, units[i]);
}
