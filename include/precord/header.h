/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header.h — the perf.data file header: the PERFILE2 header, the id arrays
 * and attrs before the data section, and the feature sections after it.
 * Written once with placeholders when the file is opened, and again at the
 * end with the data size and the features.
 */
#ifndef PRECORD_HEADER_H
#define PRECORD_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "precord/perf-file.h"

struct bpf_progs;
struct evlist;
struct topology;

/*
 * What the features describe that the evlist does not know. Zero is a fine
 * default for every field; a NULL env means all defaults.
 */
struct header_env {
	/*
	 * The command line as main() got it, for HEADER_CMDLINE: like perf,
	 * the file holds this executable's path (/proc/self/exe) in place of
	 * argv[0], then argv[1..argc-1].
	 */
	int		argc;
	const char	**argv;
	u64		first_sample_time;	/* HEADER_SAMPLE_TIME (ns, perf clock) */
	u64		last_sample_time;
	bool		clockid_set;	/* -k given: write HEADER_CLOCKID and HEADER_CLOCK_DATA */
	int		clockid;
	/*
	 * HEADER_CLOCK_DATA: the same instant as wall-clock time and as
	 * clockid time (ns), taken when recording starts (perf's
	 * record__init_clock()). Both 0: taken when the header is written.
	 */
	u64		clock_tod_ns;
	u64		clock_ref_ns;
	bool		no_buildid;	/* no HEADER_BUILD_ID section (MMAP2 carry build ids) */
	/*
	 * Without no_buildid: the HEADER_BUILD_ID payload (perf's
	 * perf_record_header_build_id records), written as is. NULL: none.
	 */
	const void	*build_id_table;
	size_t		build_id_table_size;
	/*
	 * HEADER_BPF_PROG_INFO and HEADER_BPF_BTF: the BPF programs described
	 * (synthesize__bpf()). NULL: none, both written with a count of 0.
	 */
	const struct bpf_progs *bpf_progs;
	/* The `data` file of a perf directory (data + data.N): HEADER_DIR_FORMAT v1 */
	bool		dir_format;
	/* -z: HEADER_COMPRESSED */
	bool		compressed;
	u32		comp_level;
	u32		comp_ratio;
	u32		comp_mmap_len;
	/*
	 * Where HEADER_CPU_TOPOLOGY and HEADER_NUMA_TOPOLOGY come from. NULL:
	 * the host's, loaded for the call. A synthetic topology (tests) also
	 * sets HEADER_NRCPUS and the per-CPU ids, and leaves out the features
	 * that only describe the host (CACHE, MEM_TOPOLOGY).
	 */
	const struct topology *topo;
	/*
	 * Writes the TRACING_DATA payload at fd's current offset and returns
	 * its size or -errno. NULL: tracefs__write_tracing_data().
	 */
	ssize_t		(*tracing_data)(int fd, struct evlist *evlist);
};

/*
 * Write the header, every evsel's id array and the attrs at the start of fd
 * (evsel ids must be read already). *data_offset gets where the data section
 * starts. Returns 0 or -errno.
 */
int header__write_start(int fd, struct evlist *evlist, u64 *data_offset);

/*
 * header__write_start(), then the feature sections (as header__write_end()
 * would write them with env) right after the attrs, and the data section
 * after those: for a file a SIGKILL may leave without its end. perf skips
 * the bytes between the attrs and the data section; header__read_ahead()
 * finds them. The header keeps no feature bits until header__write_end(),
 * which takes this *data_offset too. Returns 0 or -errno.
 */
int header__write_start_ahead(int fd, struct evlist *evlist, const struct header_env *env,
			      u64 *data_offset);

/*
 * Write the feature sections right after the data section
 * [data_offset, data_offset + data_size), then rewrite the header with the
 * data size and the feature bitmap. Returns 0 or -errno.
 *
 * A feature whose source is missing here (no CPUID on this architecture, no
 * cache information in sysfs...) is left out, as perf leaves it out. When
 * TRACING_DATA cannot be written the header is still completed without it,
 * and its -errno is returned; when the features cannot be written at all (a
 * full disk) the header still gets the data size, with no features, and the
 * -errno is returned. data_offset must be what header__write_start() or
 * header__write_start_ahead() returned for the same evlist (-EINVAL
 * otherwise). fd's offset is unchanged.
 */
int header__write_end(int fd, struct evlist *evlist, u64 data_offset, u64 data_size,
		      const struct header_env *env);

struct header_payload;

/*
 * The feature payloads header__write_end() would write with env, built in
 * memory and not written anywhere: ascending bit order, TRACING_DATA left
 * out (it is streamed; see tracefs__tracing_data()), a feature whose source
 * is missing left out as there. For perf's pipe mode, which sends them as
 * records. *feats: a new array of *nr entries (free with
 * header_payloads__free()). 0, or -errno when the machine cannot be read
 * (uname, topology) or memory runs out.
 */
int header__feature_payloads(struct evlist *evlist, const struct header_env *env,
			     struct header_payload **feats, int *nr);

/* Read the fixed header back (tests, merge, report). 0, -EINVAL (not perf.data) or -errno. */
int header__read(int fd, struct perf_file_header *hdr);
bool header__has_feat(const struct perf_file_header *hdr, int feat);
/*
 * Where feature feat's payload is: 0 and *sec, -ENOENT when the file does not
 * have that feature, or -errno.
 */
int header__feat_section(int fd, const struct perf_file_header *hdr, int feat,
			 struct perf_file_section *sec);

/*
 * Copying another file's header (the merge): its attrs with their ids and
 * its feature payloads as bytes, written again around a new data section
 * without being understood. Nothing here needs an evlist.
 */

/* One attr of a file: the file's bytes cut or zero-extended to this build's struct. */
struct header_attr {
	struct perf_event_attr	attr;
	u64			*ids;
	u64			nr_ids;
};

struct header_attrs {
	u64			attr_size;	/* bytes per entry in the file, ids section included */
	int			nr;
	u8			*raw;		/* nr entries of attr_size bytes, as in the file */
	struct header_attr	*entries;
};

/* One feature payload, as bytes. */
struct header_payload {
	int			feat;
	void			*data;
	u64			size;
};

/*
 * Read the attrs and ids of the file hdr was read from. Fills *attrs (free
 * with header_attrs__exit()). 0, -EINVAL (sections out of the file or
 * inconsistent, or ids sections that add up to more than the file holds),
 * -ENOMEM or -errno.
 */
int header__read_attrs(int fd, const struct perf_file_header *hdr, struct header_attrs *attrs);
void header_attrs__exit(struct header_attrs *attrs);	/* accepts a zeroed struct */

/*
 * Read every feature payload of the file, in ascending bit order, into a new
 * array (*nr entries; free with header_payloads__free()). 0, -EINVAL (a section
 * out of the file), -ENOMEM or -errno.
 */
int header__read_payloads(int fd, const struct perf_file_header *hdr,
		       struct header_payload **feats, int *nr);
void header_payloads__free(struct header_payload *feats, int nr);	/* accepts NULL */

/*
 * The payloads header__write_start_ahead() wrote into the file hdr was read
 * from, as header__read_payloads() gives them. -ENOENT when it has none.
 */
int header__read_ahead(int fd, const struct perf_file_header *hdr,
		       struct header_payload **feats, int *nr);

/*
 * header__write_start()/header__write_end() for raw attrs: the header, the
 * ids and the attrs (entries of attrs->attr_size bytes, attr bytes as read,
 * ids sections pointing at the new places), then the data section from
 * *data_offset; at the end the feature table and the payloads feats[0..nr)
 * (distinct bits, any order) after the data section and the final header.
 * Both pwrite: fd's offset does not matter. 0 or -errno (-EINVAL for a
 * feature bit out of range or given twice).
 */
int header__write_start_raw(int fd, const struct header_attrs *attrs, u64 *data_offset);
int header__write_end_raw(int fd, const struct header_attrs *attrs, u64 data_offset,
			  u64 data_size, const struct header_payload *feats, int nr);

#endif /* PRECORD_HEADER_H */
