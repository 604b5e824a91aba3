// SPDX-License-Identifier: GPL-2.0
/*
 * header.c — the perf.data file header and its feature sections, byte for
 * byte as perf 6.1 writes and reads them (tools/perf/util/header.c).
 *
 * Layout owned here:
 *
 *   0              struct perf_file_header (104 bytes, "PERFILE2")
 *   104            each evsel's u64 id array, in evlist order
 *   attrs.offset   one struct perf_file_attr per evsel {attr, ids section}
 *   attrs end      (header__write_start_ahead() only) the features written
 *                  ahead: struct ahead_head {"PRECAHED", data.offset,
 *                  feature bitmap}, then a table and payloads as at the end;
 *                  perf skips these bytes, `precord merge FILE` reads them
 *   data.offset    the data section (written by others)
 *   data end       the feature table: one {offset, size} per set feature bit,
 *                  ascending bit order, then the feature payloads
 *
 * header__write_start() writes everything up to the data section when the
 * file is opened, with data.size 0 and no feature bits; header__write_end()
 * appends the table and payloads and rewrites the header. Both use pwrite,
 * so the caller's file offset does not matter (TRACING_DATA is the exception:
 * its writer writes at the current offset, which is moved there and back).
 *
 * The payloads themselves are built by header-features.c; TRACING_DATA is
 * streamed into place by tracefs.c's writer.
 *
 * A file whose end may never be written (one streaming thread writes it,
 * and a SIGKILL leaves it without features: perf then cannot read its
 * tracepoints) gets the features once ahead of its data, so the file itself
 * holds what finishing it needs.
 *
 * The *_raw() functions and header__read_attrs()/header__read_payloads() copy
 * another file's header around a new data section (the merge of a perf
 * directory): attrs are kept as the bytes their writer laid out, whatever
 * its attr_size, and feature payloads are copied without being parsed.
 *
 * Runs on the thread that opens and finishes the output file; no state
 * outlives a call.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "header-internal.h"
#include "precord/topology.h"
#include "precord/tracefs.h"
#include "precord/util.h"

/* Stream TRACING_DATA to [off, ...) with the writer's own file offset. */
static ssize_t tracing_data__write(int fd, const struct feat_ctx *ctx, u64 off)
{
	ssize_t (*write_fn)(int fd, struct evlist *evlist) = ctx->env->tracing_data;
	off_t saved = lseek(fd, 0, SEEK_CUR);
	ssize_t ret;

	if (saved < 0)
		return -errno;
	if (!write_fn)
		write_fn = tracefs__write_tracing_data;
	if (lseek(fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	ret = write_fn(fd, ctx->evlist);
	if (lseek(fd, saved, SEEK_SET) < 0 && ret >= 0)
		ret = -errno;
	return ret;
}

static void features__set(u64 *features, int feat)
{
	features[feat / 64] |= 1ULL << (feat % 64);
}

/*
 * Lay out the table at table_off and the payloads after it. The table has a
 * slot for TRACING_DATA even when writing it fails: the reader takes as many
 * entries as there are feature bits, so a spare zero entry at the end is
 * harmless (perf does the same). What a failed TRACING_DATA wrote is
 * overwritten by the next payloads or left past the last one, where nothing
 * points. *tracing_err gets its -errno, *end the offset past the last payload.
 */
static int feats__write(int fd, const struct feat_ctx *ctx, struct feat_payload *pay,
			int nr_pay, u64 table_off, u64 *features, int *tracing_err, u64 *end)
{
	bool tracing = evlist__has_tracepoints(ctx->evlist);
	int nr_sec = nr_pay + (tracing ? 1 : 0), n = 0, i;
	struct perf_file_section *sec = calloc((size_t)nr_sec + 1, sizeof(*sec));
	u64 pos = table_off + sizeof(*sec) * (u64)nr_sec;
	ssize_t ret;

	if (!sec)
		return -ENOMEM;
	*tracing_err = 0;
	if (tracing) {
		ret = tracing_data__write(fd, ctx, pos);
		if (ret >= 0) {
			sec[n++] = (struct perf_file_section){ pos, (u64)ret };
			pos += (u64)ret;
			features__set(features, HEADER_TRACING_DATA);
		} else {
			*tracing_err = (int)ret;
		}
	}
	for (i = 0; i < nr_pay; i++) {
		ret = pwrite_all(fd, pay[i].buf.data, pay[i].buf.len, pos);
		if (ret)
			goto out_free;
		sec[n++] = (struct perf_file_section){ pos, pay[i].buf.len };
		pos += pay[i].buf.len;
		features__set(features, pay[i].feat);
	}
	ret = pwrite_all(fd, sec, sizeof(*sec) * (size_t)nr_sec, table_off);
	*end = pos;
out_free:
	free(sec);
	return (int)ret;
}

/* ---- the header, ids and attrs ---- */

static u64 header__attrs_offset(const struct evlist *evlist)
{
	u64 off = PERF_FILE_HEADER_SIZE;
	int i;

	for (i = 0; i < evlist->nr_entries; i++)
		off += sizeof(u64) * (u64)evlist->entries[i]->nr_ids;
	return off;
}

static u64 header__data_offset(const struct evlist *evlist)
{
	return header__attrs_offset(evlist) +
	       sizeof(struct perf_file_attr) * (u64)evlist->nr_entries;
}

static void header__fill(struct perf_file_header *hdr, const struct evlist *evlist,
			 u64 data_offset, u64 data_size, const u64 *features)
{
	u64 attrs = header__attrs_offset(evlist);

	*hdr = (struct perf_file_header){
		.magic		= PERF_MAGIC,
		.size		= sizeof(*hdr),
		.attr_size	= sizeof(struct perf_file_attr),
		.attrs		= { attrs, header__data_offset(evlist) - attrs },
		.data		= { data_offset, data_size },
	};
	if (features)
		memcpy(hdr->adds_features, features, sizeof(hdr->adds_features));
}

int header__write_start(int fd, struct evlist *evlist, u64 *data_offset)
{
	u64 off = header__data_offset(evlist), ids_off = PERF_FILE_HEADER_SIZE;
	struct perf_file_header hdr;
	struct evsel *evsel;
	struct fbuf b = { 0 };
	int i, err;

	header__fill(&hdr, evlist, off, 0, NULL);
	fbuf__put(&b, &hdr, sizeof(hdr));
	evlist__for_each_evsel(evlist, evsel, i)
		fbuf__put(&b, evsel->ids, sizeof(u64) * (size_t)evsel->nr_ids);
	evlist__for_each_evsel(evlist, evsel, i) {
		struct perf_file_attr fattr = {
			.attr	= evsel__file_attr(evsel),
			.ids	= { ids_off, sizeof(u64) * (u64)evsel->nr_ids },
		};

		fbuf__put(&b, &fattr, sizeof(fattr));
		ids_off += fattr.ids.size;
	}
	err = fbuf__write_at(&b, fd, 0);
	if (!err)
		*data_offset = off;
	return err;
}

/* What header__write_start_ahead() puts right after the attrs. */
struct ahead_head {
	u64	magic;
	u64	data_offset;	/* where the data section starts, past the payloads */
	u64	features[HEADER_FEAT_BITS / 64];
};

#define AHEAD_MAGIC	0x4445484143455250ULL	/* "PRECAHED" */

/* The ahead head at off, or -ENOENT where there is none. */
static int ahead__read(int fd, u64 off, struct ahead_head *head)
{
	ssize_t n = pread(fd, head, sizeof(*head), (off_t)off);

	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*head) || head->magic != AHEAD_MAGIC)
		return -ENOENT;
	return 0;
}

/* data_offset is the evlist's, or the one its features ahead say. */
static bool data_offset__valid(int fd, const struct evlist *evlist, u64 data_offset)
{
	struct ahead_head head;

	if (data_offset == header__data_offset(evlist))
		return true;
	return ahead__read(fd, header__data_offset(evlist), &head) == 0 &&
	       head.data_offset == data_offset;
}

/*
 * Every wanted feature with env, the table at table_off and the payloads
 * after it: feats__write() for an evlist. *end: past the last payload;
 * *began: whether the machine could be read (uname, topology), so that
 * writing was tried.
 */
static int feats__write_env(int fd, struct evlist *evlist, const struct header_env *env,
			    u64 table_off, u64 *features, int *tracing_err, u64 *end,
			    bool *began)
{
	static const struct header_env defaults;
	struct feat_payload pay[HEADER_LAST_FEATURE];
	struct topology *owned;
	struct feat_ctx ctx;
	int nr_pay, err;

	*tracing_err = 0;
	err = feat_ctx__init(&ctx, evlist, env ? env : &defaults, &owned);
	*began = !err;
	if (!err) {
		nr_pay = feats__collect(&ctx, pay);
		err = feats__write(fd, &ctx, pay, nr_pay, table_off, features, tracing_err, end);
		feats__release(pay, nr_pay);
	}
	topology__delete(owned);
	return err;
}

int header__write_end(int fd, struct evlist *evlist, u64 data_offset, u64 data_size,
		      const struct header_env *env)
{
	u64 features[HEADER_FEAT_BITS / 64] = { 0 }, end;
	struct perf_file_header hdr;
	int err, tracing_err;
	bool began;
	ssize_t ret;

	if (!data_offset__valid(fd, evlist, data_offset))
		return -EINVAL;
	err = feats__write_env(fd, evlist, env, data_offset + data_size, features,
			       &tracing_err, &end, &began);
	if (!began)
		return err;
	/*
	 * Features that could not be written (a full disk) are all dropped,
	 * but the data size still goes in, so the data stays readable.
	 */
	if (err)
		memset(features, 0, sizeof(features));
	header__fill(&hdr, evlist, data_offset, data_size, features);
	ret = pwrite_all(fd, &hdr, sizeof(hdr), 0);
	if (!err)
		err = ret ? (int)ret : tracing_err;
	return err;
}

int header__write_start_ahead(int fd, struct evlist *evlist, const struct header_env *env,
			      u64 *data_offset)
{
	struct ahead_head head = { .magic = AHEAD_MAGIC };
	struct perf_file_header hdr;
	u64 plain, end = 0;
	int err, tracing_err;
	bool began;

	err = header__write_start(fd, evlist, &plain);
	if (!err)
		err = feats__write_env(fd, evlist, env, plain + sizeof(head), head.features,
				       &tracing_err, &end, &began);
	if (err)
		return err;
	/* the data's records stay 8-byte aligned in the file, as perf's are */
	head.data_offset = (end + 7) & ~7ULL;
	err = (int)pwrite_all(fd, &head, sizeof(head), plain);
	if (!err) {
		header__fill(&hdr, evlist, head.data_offset, 0, NULL);
		err = (int)pwrite_all(fd, &hdr, sizeof(hdr), 0);
	}
	if (!err)
		*data_offset = head.data_offset;
	return err;
}

int header__feature_payloads(struct evlist *evlist, const struct header_env *env,
			     struct header_payload **featsp, int *nrp)
{
	static const struct header_env defaults;
	struct feat_payload pay[HEADER_LAST_FEATURE];
	struct header_payload *feats;
	struct topology *owned;
	struct feat_ctx ctx;
	int nr_pay = 0, err, i;

	*featsp = NULL;
	*nrp = 0;
	err = feat_ctx__init(&ctx, evlist, env ? env : &defaults, &owned);
	if (!err)
		nr_pay = feats__collect(&ctx, pay);
	topology__delete(owned);
	if (err)
		return err;
	feats = calloc((size_t)nr_pay + 1, sizeof(*feats));
	if (!feats) {
		feats__release(pay, nr_pay);
		return -ENOMEM;
	}
	/* the built buffers change hands: no copy */
	for (i = 0; i < nr_pay; i++)
		feats[i] = (struct header_payload){
			.feat = pay[i].feat, .data = pay[i].buf.data, .size = pay[i].buf.len,
		};
	*featsp = feats;
	*nrp = nr_pay;
	return 0;
}

/* ---- reading back ---- */

int header__read(int fd, struct perf_file_header *hdr)
{
	ssize_t n = pread(fd, hdr, sizeof(*hdr), 0);

	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(*hdr) || hdr->magic != PERF_MAGIC || hdr->size != sizeof(*hdr))
		return -EINVAL;
	return 0;
}

bool header__has_feat(const struct perf_file_header *hdr, int feat)
{
	if (feat < 0 || feat >= HEADER_FEAT_BITS)
		return false;
	return hdr->adds_features[feat / 64] & (1ULL << (feat % 64));
}

int header__feat_section(int fd, const struct perf_file_header *hdr, int feat,
			 struct perf_file_section *sec)
{
	u64 idx = 0;
	ssize_t n;
	int bit;

	if (!header__has_feat(hdr, feat))
		return -ENOENT;
	for (bit = 0; bit < feat; bit++)
		idx += header__has_feat(hdr, bit);
	n = pread(fd, sec, sizeof(*sec),
		  (off_t)(hdr->data.offset + hdr->data.size + idx * sizeof(*sec)));
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(*sec) ? 0 : -EINVAL;
}

/* ---- copying another file's header (merge) ---- */

static int file__size(int fd, u64 *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*size = (u64)st.st_size;
	return 0;
}

static bool section__within(const struct perf_file_section *sec, u64 file_size)
{
	return sec->offset <= file_size && sec->size <= file_size - sec->offset;
}

/* The ids section at the end of a raw entry. */
static struct perf_file_section *raw_attr__ids(u8 *entry, u64 attr_size)
{
	return (struct perf_file_section *)(entry + attr_size - sizeof(struct perf_file_section));
}

/*
 * One attr and its ids. *room: bytes of ids the file may still hold. A
 * writer lays each attr's ids out apart, so all of them together fit in
 * the file; ids sections that overlap beyond that (every attr naming the
 * whole file, say) would cost memory quadratic in the file's size, and
 * are refused.
 */
static int header_attr__read(struct header_attr *ha, int fd, u8 *entry, u64 attr_size,
			     u64 file_size, u64 *room)
{
	struct perf_file_section ids;
	u64 len = attr_size - sizeof(ids);

	memcpy(&ids, raw_attr__ids(entry, attr_size), sizeof(ids));
	memcpy(&ha->attr, entry, len < sizeof(ha->attr) ? len : sizeof(ha->attr));
	if (!section__within(&ids, file_size) || ids.size % sizeof(u64) || ids.size > *room)
		return -EINVAL;
	*room -= ids.size;
	ha->nr_ids = ids.size / sizeof(u64);
	ha->ids = malloc(ids.size ? ids.size : 1);
	if (!ha->ids)
		return -ENOMEM;
	return pread_all(fd, ha->ids, ids.size, ids.offset, -EINVAL);
}

int header__read_attrs(int fd, const struct perf_file_header *hdr, struct header_attrs *attrs)
{
	u64 file_size, nr, i, room;
	int err;

	*attrs = (struct header_attrs){ .attr_size = hdr->attr_size };
	err = file__size(fd, &file_size);
	if (err)
		return err;
	if (hdr->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    hdr->attr_size % sizeof(u64) || hdr->attrs.size % hdr->attr_size ||
	    !section__within(&hdr->attrs, file_size))
		return -EINVAL;
	nr = hdr->attrs.size / hdr->attr_size;
	if (nr > INT_MAX)
		return -EINVAL;
	attrs->raw = malloc(hdr->attrs.size ? hdr->attrs.size : 1);
	attrs->entries = calloc(nr ? nr : 1, sizeof(*attrs->entries));
	if (!attrs->raw || !attrs->entries) {
		err = -ENOMEM;
		goto out_exit;
	}
	err = pread_all(fd, attrs->raw, hdr->attrs.size, hdr->attrs.offset, -EINVAL);
	room = file_size;
	for (i = 0; !err && i < nr; i++) {
		attrs->nr = (int)i + 1;
		err = header_attr__read(&attrs->entries[i], fd, attrs->raw + i * hdr->attr_size,
					hdr->attr_size, file_size, &room);
	}
	if (!err)
		return 0;
out_exit:
	header_attrs__exit(attrs);
	return err;
}

void header_attrs__exit(struct header_attrs *attrs)
{
	int i;

	for (i = 0; attrs->entries && i < attrs->nr; i++)
		free(attrs->entries[i].ids);
	free(attrs->entries);
	free(attrs->raw);
	*attrs = (struct header_attrs){ 0 };
}

/*
 * The payloads of the bits set in features, their table at table_off, each
 * within [lo, hi) of the file.
 */
static int payloads__read(int fd, const u64 *features, u64 table_off, u64 lo, u64 hi,
			  struct header_payload **featsp, int *nrp)
{
	struct perf_file_section sec;
	struct header_payload *feats;
	int bit, nr = 0, err = 0;

	*featsp = NULL;
	*nrp = 0;
	feats = calloc(HEADER_FEAT_BITS, sizeof(*feats));
	if (!feats)
		return -ENOMEM;
	for (bit = 0; !err && bit < HEADER_FEAT_BITS; bit++) {
		if (!(features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		err = pread_all(fd, &sec, sizeof(sec), table_off + (u64)nr * sizeof(sec),
				-EINVAL);
		if (!err && (sec.offset < lo || !section__within(&sec, hi)))
			err = -EINVAL;
		if (err)
			break;
		feats[nr] = (struct header_payload){ .feat = bit, .size = sec.size };
		feats[nr].data = malloc(sec.size ? sec.size : 1);
		if (!feats[nr].data) {
			err = -ENOMEM;
			break;
		}
		nr++;
		err = pread_all(fd, feats[nr - 1].data, sec.size, sec.offset, -EINVAL);
	}
	if (err) {
		header_payloads__free(feats, nr);
		return err;
	}
	*featsp = feats;
	*nrp = nr;
	return 0;
}

int header__read_payloads(int fd, const struct perf_file_header *hdr,
		       struct header_payload **featsp, int *nrp)
{
	u64 file_size;
	int err = file__size(fd, &file_size);

	*featsp = NULL;
	*nrp = 0;
	if (err)
		return err;
	return payloads__read(fd, hdr->adds_features, hdr->data.offset + hdr->data.size, 0,
			      file_size, featsp, nrp);
}

int header__read_ahead(int fd, const struct perf_file_header *hdr,
		       struct header_payload **featsp, int *nrp)
{
	u64 plain = hdr->attrs.offset + hdr->attrs.size, file_size = 0;
	struct ahead_head head;
	int err;

	*featsp = NULL;
	*nrp = 0;
	if (hdr->data.offset < plain + sizeof(head))
		return -ENOENT;
	err = ahead__read(fd, plain, &head);
	if (err)
		return err;
	if (head.data_offset != hdr->data.offset)
		return -ENOENT;
	err = file__size(fd, &file_size);
	if (err)
		return err;
	/* the payloads lie before the data section, and within the file */
	return payloads__read(fd, head.features, plain + sizeof(head), plain + sizeof(head),
			      hdr->data.offset < file_size ? hdr->data.offset : file_size,
			      featsp, nrp);
}

void header_payloads__free(struct header_payload *feats, int nr)
{
	int i;

	for (i = 0; feats && i < nr; i++)
		free(feats[i].data);
	free(feats);
}

static u64 header_attrs__nr_ids(const struct header_attrs *attrs)
{
	u64 nr = 0;
	int i;

	for (i = 0; i < attrs->nr; i++)
		nr += attrs->entries[i].nr_ids;
	return nr;
}

static void header__fill_raw(struct perf_file_header *hdr, const struct header_attrs *attrs,
			     u64 data_size, const u64 *features)
{
	u64 attrs_off = PERF_FILE_HEADER_SIZE + sizeof(u64) * header_attrs__nr_ids(attrs);
	u64 attrs_size = attrs->attr_size * (u64)attrs->nr;

	*hdr = (struct perf_file_header){
		.magic		= PERF_MAGIC,
		.size		= sizeof(*hdr),
		.attr_size	= attrs->attr_size,
		.attrs		= { attrs_off, attrs_size },
		.data		= { attrs_off + attrs_size, data_size },
	};
	if (features)
		memcpy(hdr->adds_features, features, sizeof(hdr->adds_features));
}

int header__write_start_raw(int fd, const struct header_attrs *attrs, u64 *data_offset)
{
	u64 ids_off = PERF_FILE_HEADER_SIZE;
	struct perf_file_header hdr;
	struct fbuf b = { 0 };
	int i, err;

	header__fill_raw(&hdr, attrs, 0, NULL);
	fbuf__put(&b, &hdr, sizeof(hdr));
	for (i = 0; i < attrs->nr; i++)
		fbuf__put(&b, attrs->entries[i].ids, sizeof(u64) * attrs->entries[i].nr_ids);
	for (i = 0; i < attrs->nr; i++) {
		struct perf_file_section ids = { ids_off, sizeof(u64) * attrs->entries[i].nr_ids };
		size_t at = b.len;

		fbuf__put(&b, attrs->raw + (u64)i * attrs->attr_size, attrs->attr_size);
		if (!b.err)
			memcpy(raw_attr__ids(b.data + at, attrs->attr_size), &ids, sizeof(ids));
		ids_off += ids.size;
	}
	err = fbuf__write_at(&b, fd, 0);
	if (!err)
		*data_offset = hdr.data.offset;
	return err;
}

static int header_feat__cmp(const void *a, const void *b)
{
	const struct header_payload *x = a, *y = b;

	return (x->feat > y->feat) - (x->feat < y->feat);
}

int header__write_end_raw(int fd, const struct header_attrs *attrs, u64 data_offset,
			  u64 data_size, const struct header_payload *feats, int nr)
{
	u64 features[HEADER_FEAT_BITS / 64] = { 0 };
	struct perf_file_header hdr;
	struct perf_file_section *sec;
	struct header_payload *sorted;
	u64 pos = data_offset + data_size + sizeof(*sec) * (u64)nr;
	int i, err = 0;

	header__fill_raw(&hdr, attrs, data_size, NULL);
	if (data_offset != hdr.data.offset || nr < 0 || nr > HEADER_FEAT_BITS)
		return -EINVAL;
	sorted = malloc(sizeof(*sorted) * (size_t)(nr ? nr : 1));
	sec = calloc((size_t)(nr ? nr : 1), sizeof(*sec));
	if (!sorted || !sec) {
		err = -ENOMEM;
		goto out_free;
	}
	if (nr)
		memcpy(sorted, feats, sizeof(*sorted) * (size_t)nr);
	qsort(sorted, (size_t)nr, sizeof(*sorted), header_feat__cmp);
	for (i = 0; !err && i < nr; i++) {
		if (sorted[i].feat < 0 || sorted[i].feat >= HEADER_FEAT_BITS ||
		    (i > 0 && sorted[i].feat == sorted[i - 1].feat)) {
			err = -EINVAL;
			break;
		}
		err = (int)pwrite_all(fd, sorted[i].data, sorted[i].size, pos);
		sec[i] = (struct perf_file_section){ pos, sorted[i].size };
		pos += sorted[i].size;
		features__set(features, sorted[i].feat);
	}
	if (!err && nr)
		err = (int)pwrite_all(fd, sec, sizeof(*sec) * (size_t)nr,
				      data_offset + data_size);
	if (!err) {
		header__fill_raw(&hdr, attrs, data_size, features);
		err = (int)pwrite_all(fd, &hdr, sizeof(hdr), 0);
	}
out_free:
	free(sorted);
	free(sec);
	return err;
}

