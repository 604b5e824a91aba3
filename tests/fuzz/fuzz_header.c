// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_header.c — libFuzzer target of the perf.data header reader: the
 * fixed header (header__read()), the feature table (header__has_feat(),
 * header__feat_section()), the attrs and their ids (header__read_attrs()),
 * the feature payloads after the data section (header__read_payloads())
 * and those precord writes ahead of it (header__read_ahead()). The input is
 * the file.
 *
 * The id arrays read are no larger together than the file: each is a part
 * of the file of its own.
 *
 * What was read is written again as the merge writes it
 * (header__write_start_raw(), header__write_end_raw()) and read back: the
 * attrs, ids and payloads must come back as they went, whatever the file
 * they were read from.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precord/header.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__dir();
	return 0;
}

static void same_attrs(const struct header_attrs *a, const struct header_attrs *b)
{
	int i;

	fuzz__check(a->attr_size == b->attr_size && a->nr == b->nr, "attrs: count or size differ");
	for (i = 0; i < a->nr; i++) {
		const struct header_attr *x = &a->entries[i], *y = &b->entries[i];

		fuzz__check(!memcmp(&x->attr, &y->attr, sizeof(x->attr)), "attrs: an attr differs");
		fuzz__check(x->nr_ids == y->nr_ids &&
		      !memcmp(x->ids, y->ids, x->nr_ids * sizeof(u64)), "attrs: ids differ");
	}
}

static void same_payloads(const struct header_payload *a, int na,
			  const struct header_payload *b, int nb)
{
	int i;

	fuzz__check(na == nb, "payloads: count differs");
	for (i = 0; i < na; i++)
		fuzz__check(a[i].feat == b[i].feat && a[i].size == b[i].size &&
		      !memcmp(a[i].data, b[i].data, a[i].size), "payloads: a payload differs");
}

/* attrs and feats written as the merge writes them (no data), then read back. */
static void round_trip(const struct header_attrs *attrs, const struct header_payload *feats,
		       int nr)
{
	char path[PATH_MAX];
	struct perf_file_header hdr;
	struct header_attrs back;
	struct header_payload *bf;
	u64 data_offset;
	int fd, nb;

	snprintf(path, sizeof(path), "%s/copy", fuzz__dir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fuzz__check(fd >= 0, "cannot create the copy");
	if (header__write_start_raw(fd, attrs, &data_offset) ||
	    header__write_end_raw(fd, attrs, data_offset, 0, feats, nr))
		goto out;	/* too large for this machine: no finding */
	fuzz__check(!header__read(fd, &hdr), "copy: header unreadable");
	fuzz__check(!header__read_attrs(fd, &hdr, &back), "copy: attrs unreadable");
	same_attrs(attrs, &back);
	header_attrs__exit(&back);
	fuzz__check(!header__read_payloads(fd, &hdr, &bf, &nb), "copy: payloads unreadable");
	same_payloads(feats, nr, bf, nb);
	header_payloads__free(bf, nb);
out:
	close(fd);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX];
	struct perf_file_header hdr;
	struct perf_file_section sec;
	struct header_attrs attrs = { 0 };
	struct header_payload *feats = NULL, *ahead = NULL;
	int fd, feat, i, nr = 0, nr_ahead = 0, attrs_err = -1, feats_err = -1;

	snprintf(path, sizeof(path), "%s/in", fuzz__dir());
	fuzz__write_file(path, data, size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	fuzz__check(fd >= 0, "cannot open the input");
	if (header__read(fd, &hdr))
		goto out;
	for (feat = -1; feat <= HEADER_FEAT_BITS; feat++)
		if (header__has_feat(&hdr, feat))
			header__feat_section(fd, &hdr, feat, &sec);
	attrs_err = header__read_attrs(fd, &hdr, &attrs);
	feats_err = header__read_payloads(fd, &hdr, &feats, &nr);
	if (!header__read_ahead(fd, &hdr, &ahead, &nr_ahead))
		header_payloads__free(ahead, nr_ahead);
	if (!attrs_err) {
		u64 ids = 0;

		for (i = 0; i < attrs.nr; i++)
			ids += attrs.entries[i].nr_ids * sizeof(u64);
		fuzz__check(ids <= size, "attrs: more id bytes than the file holds");
	}
	if (!attrs_err && !feats_err)
		round_trip(&attrs, feats, nr);
	if (!attrs_err)
		header_attrs__exit(&attrs);
	if (!feats_err)
		header_payloads__free(feats, nr);
out:
	close(fd);
	unlink(path);
	return 0;
}
