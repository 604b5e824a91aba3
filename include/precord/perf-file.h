/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-file.h — the on-disk perf.data format that stock perf reads
 * (tools/perf/Documentation/perf.data-file-format.txt, tools/perf/util/header.h).
 * Structures here are written to files byte for byte: no pointers, native
 * byte order, the same layout as perf's.
 */
#ifndef PRECORD_PERF_FILE_H
#define PRECORD_PERF_FILE_H

#include <stdint.h>
#include <linux/perf_event.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t  u8;
typedef int64_t  s64;
typedef int32_t  s32;

#define PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_FILE_HEADER_SIZE	104

struct perf_file_section {
	u64 offset;
	u64 size;
};

#define HEADER_FEAT_BITS	256

struct perf_file_header {
	u64				magic;
	u64				size;		/* sizeof(struct perf_file_header) */
	u64				attr_size;	/* sizeof(perf_event_attr) + 16 */
	struct perf_file_section	attrs;
	struct perf_file_section	data;
	struct perf_file_section	event_types;	/* unused, zero */
	u64				adds_features[HEADER_FEAT_BITS / 64];
};

struct perf_file_attr {
	struct perf_event_attr		attr;
	struct perf_file_section	ids;
};

/* Feature bits (tools/perf/util/header.h). */
enum header_feat {
	HEADER_RESERVED		= 0,
	HEADER_TRACING_DATA	= 1,
	HEADER_BUILD_ID		= 2,
	HEADER_HOSTNAME		= 3,
	HEADER_OSRELEASE	= 4,
	HEADER_VERSION		= 5,
	HEADER_ARCH		= 6,
	HEADER_NRCPUS		= 7,
	HEADER_CPUDESC		= 8,
	HEADER_CPUID		= 9,
	HEADER_TOTAL_MEM	= 10,
	HEADER_CMDLINE		= 11,
	HEADER_EVENT_DESC	= 12,
	HEADER_CPU_TOPOLOGY	= 13,
	HEADER_NUMA_TOPOLOGY	= 14,
	HEADER_BRANCH_STACK	= 15,
	HEADER_PMU_MAPPINGS	= 16,
	HEADER_GROUP_DESC	= 17,
	HEADER_AUXTRACE		= 18,
	HEADER_STAT		= 19,
	HEADER_CACHE		= 20,
	HEADER_SAMPLE_TIME	= 21,
	HEADER_MEM_TOPOLOGY	= 22,
	HEADER_CLOCKID		= 23,
	HEADER_DIR_FORMAT	= 24,
	HEADER_BPF_PROG_INFO	= 25,
	HEADER_BPF_BTF		= 26,
	HEADER_COMPRESSED	= 27,
	HEADER_CPU_PMU_CAPS	= 28,
	HEADER_CLOCK_DATA	= 29,
	HEADER_HYBRID_TOPOLOGY	= 30,
	HEADER_PMU_CAPS		= 31,
	HEADER_LAST_FEATURE,
};

/* Records perf tools add to the stream (tools/lib/perf/include/perf/event.h). */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START	= 64,
	PERF_RECORD_HEADER_ATTR		= 64,
	PERF_RECORD_HEADER_EVENT_TYPE	= 65,
	PERF_RECORD_HEADER_TRACING_DATA	= 66,
	PERF_RECORD_HEADER_BUILD_ID	= 67,
	PERF_RECORD_FINISHED_ROUND	= 68,
	PERF_RECORD_ID_INDEX		= 69,
	PERF_RECORD_AUXTRACE_INFO	= 70,
	PERF_RECORD_AUXTRACE		= 71,
	PERF_RECORD_AUXTRACE_ERROR	= 72,
	PERF_RECORD_THREAD_MAP		= 73,
	PERF_RECORD_CPU_MAP		= 74,
	PERF_RECORD_STAT_CONFIG		= 75,
	PERF_RECORD_STAT		= 76,
	PERF_RECORD_STAT_ROUND		= 77,
	PERF_RECORD_EVENT_UPDATE	= 78,
	PERF_RECORD_TIME_CONV		= 79,
	PERF_RECORD_HEADER_FEATURE	= 80,
	PERF_RECORD_COMPRESSED		= 81,
	PERF_RECORD_FINISHED_INIT	= 82,
};

/* Misc bits perf tools use on synthesized records. */
#ifndef PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT
#define PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT	(1 << 12)
#endif
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID		(1 << 14)
#endif

struct id_index_entry {
	u64 id;
	u64 idx;
	u64 cpu;
	u64 tid;
};

/* The largest record perf accepts (header.size is a u16). */
#define PERF_SAMPLE_MAX_SIZE	(1 << 16)

#endif /* PRECORD_PERF_FILE_H */
