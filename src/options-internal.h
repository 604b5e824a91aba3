/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options-internal.h — what the files of the command line share, and
 * nothing else includes. The module (include/precord/options.h) is cut
 * into files by what they own:
 *
 *   options.c          the scanner, the messages, the final checks, --help
 *   options-table.c    the table of every option
 *   options-values.c   numbers, sizes, --mmap-pages
 *   options-sample.c   -e, -c, -F, -g, -I, --filter
 *   options-target.c   -C, -p, -t, -D, -k, -r
 *   options-output.c   -o, -m, -z, --aio, --threads, --switch-output, --synth
 *
 * All of it runs once, on the main thread.
 */
#ifndef PRECORD_OPTIONS_INTERNAL_H
#define PRECORD_OPTIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "precord/cpumap.h"
#include "precord/options.h"
#include "precord/parse-events.h"
#include "precord/util.h"
#include "precord/threadmap.h"

#define DEFAULT_FREQ		4000
#define DEFAULT_OUTPUT		"perf.data"
#define DEFAULT_DWARF_SIZE	8192
#define DEFAULT_MAP_TIMEOUT	500	/* ms, perf's PROC_MAP_PARSE_TIMEOUT */
/* perf's get_stack_size(): round_down(USHRT_MAX, sizeof(u64)) */
#define MAX_DWARF_SIZE		(65535 & ~7u)

enum opt_arg {
	OPT_ARG_NONE,		/* a flag */
	OPT_ARG_REQUIRED,	/* -Xval, -X val, --name=val, --name val */
	OPT_ARG_OPTIONAL,	/* -Xval or --name=val only */
};

#define OPT_NEGATABLE	(1u << 0)	/* --no-NAME unsets it */
#define OPT_UNSUPPORTED	(1u << 1)	/* perf record has it, precord not yet */

struct parse_ctx {
	struct record_opts	*opts;
	char			*err;
	size_t			errlen;
};

struct opt_def;
/*
 * An option's handler (options-sample.c, -target.c, -output.c, the flags in
 * options-table.c): checks arg (NULL: none given; unset: --no-NAME) and
 * stores it in ctx->opts; 0, or -errno with the message in ctx->err.
 */
typedef int (*opt_handler)(struct parse_ctx *ctx, const struct opt_def *def,
			   const char *arg, bool unset);

struct opt_def {
	char		short_name;	/* 0: none */
	const char	*long_name;	/* NULL: none */
	enum opt_arg	arg;
	unsigned int	flags;
	const char	*argname;	/* for --help */
	const char	*help;
	opt_handler	handle;
	size_t		field;		/* opt_bool: offsetof the bool in record_opts */
	size_t		set_field;	/* opt_bool: offsetof a bool noting it was given; 0: none */
};

struct tag_mult {
	char			tag;
	unsigned long long	mult;
};

/* The units of a size (B, K, M, G) and of a time (s, m, h, d), each list ending in { 0, 0 }. */
extern const struct tag_mult size_tags[];
extern const struct tag_mult time_tags[];

/* ---- options-table.c ---- */

/* Every option perf record has, in perf's --help order. */
extern const struct opt_def record_options[];
extern const size_t nr_record_options;

/* ---- options.c ---- */

/* The message into ctx's buffer; returns err. */
__attribute__((format(printf, 3, 4)))
int opt_error(struct parse_ctx *ctx, int err, const char *fmt, ...);
/* "-F/--freq", "--synth" or "-g": how messages name an option. */
const char *opt_name(const struct opt_def *def, char *buf, size_t size);
/* "invalid value 'ARG' for OPTION: EXPECT"; returns -EINVAL. */
int bad_value(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, const char *expect);
/* One of perf's informational notes, printed after the parse unless -q. */
__attribute__((format(printf, 2, 3)))
void opts__note(struct record_opts *opts, const char *fmt, ...);
/* A note printed even with -q (record_opts.warnings). */
__attribute__((format(printf, 2, 3)))
void opts__warn(struct record_opts *opts, const char *fmt, ...);

/* ---- options-values.c ---- */

int parse_unsigned(const char *s, int base, unsigned long long max,
		   unsigned long long *val);
int parse_tagged(const char *str, const struct tag_mult *tags, unsigned long long max,
		 unsigned long long *val);
int parse_size_tag(const char *str, unsigned long long *bytes);
long mmap_pages__parse(const char *str, long page_size, unsigned long long *rounded_from);
void unit_number(char *buf, size_t size, unsigned long long n);

/* ---- options-sample.c ---- */

int opt_event(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset);
int opt_count(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset);
int opt_freq(struct parse_ctx *ctx, const struct opt_def *def,
	     const char *arg, bool unset);
int opt_g(struct parse_ctx *ctx, const struct opt_def *def,
	  const char *arg, bool unset);
int opt_call_graph(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);
int opt_intr_regs(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset);
int opt_user_regs(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset);
int opt_filter(struct parse_ctx *ctx, const struct opt_def *def,
	       const char *arg, bool unset);
int opt_exclude_perf(struct parse_ctx *ctx, const struct opt_def *def,
		     const char *arg, bool unset);
int opt_branch(struct parse_ctx *ctx, const struct opt_def *def,
	       const char *arg, bool unset);
int opt_off_cpu(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset);
int opt_clang_path(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);
int opt_clang_opt(struct parse_ctx *ctx, const struct opt_def *def,
		  const char *arg, bool unset);

/* ---- options-target.c ---- */

int opt_delay(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset);
int opt_clockid(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset);
int opt_realtime(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset);
int opt_cpu(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset);
int opt_pid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset);
int opt_tid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset);
int opt_uid(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset);
int opt_cgroup(struct parse_ctx *ctx, const struct opt_def *def,
	       const char *arg, bool unset);

/* ---- options-output.c ---- */

int opt_mmap_pages(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);
int opt_output(struct parse_ctx *ctx, const struct opt_def *def,
	       const char *arg, bool unset);
int opt_synth(struct parse_ctx *ctx, const struct opt_def *def,
	      const char *arg, bool unset);
int opt_proc_map_timeout(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset);
int opt_nr_threads_synth(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset);
int opt_compression(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset);
int opt_aio(struct parse_ctx *ctx, const struct opt_def *def,
	    const char *arg, bool unset);
int opt_mmap_flush(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);
int opt_threads(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset);
int opt_max_size(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset);
int opt_affinity(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset);
int opt_sb_event(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset);
int opt_switch_output(struct parse_ctx *ctx, const struct opt_def *def,
		      const char *arg, bool unset);
int opt_switch_max_files(struct parse_ctx *ctx, const struct opt_def *def,
			 const char *arg, bool unset);
int opt_control(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset);
int opt_buildid_dir(struct parse_ctx *ctx, const struct opt_def *def,
		    const char *arg, bool unset);
int opt_vmlinux(struct parse_ctx *ctx, const struct opt_def *def,
		const char *arg, bool unset);
int opt_debuginfod(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);
int opt_snapshot(struct parse_ctx *ctx, const struct opt_def *def,
		 const char *arg, bool unset);
int opt_aux_sample(struct parse_ctx *ctx, const struct opt_def *def,
		   const char *arg, bool unset);

#endif /* PRECORD_OPTIONS_INTERNAL_H */
