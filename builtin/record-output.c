// SPDX-License-Identifier: GPL-2.0
/*
 * record-output.c — the files a recording writes: what stands at -o and
 * what becomes of it (a file, FILE.old aside, a device, perf's pipe format
 * to stdout or a FIFO, or a staging directory merged into the output at
 * the end), the start of each data file (its header and the records
 * synthesized for what already runs), and its end (LOST_SAMPLES written by
 * synthesize.c, the features, the final header; a file cut back to its last
 * whole record after a write error).
 *
 * Runs on the main thread. Data flow: -o → record__check_output() →
 * record__open_output() → out_fd → record__begin_data() (header,
 * synthesized records through record__emit() into the writer) → the
 * streaming threads' records → record__finish_output() → with a staging
 * directory record__finish_last() → record__finish_dir() → merge__dir().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "record.h"
#include "precord/compress.h"
#include "precord/host-memory.h"
#include "precord/kcore.h"
#include "precord/output.h"
#include "precord/pipe.h"
#include "precord/synthesize.h"

/* ---- pipe mode ----------------------------------------------------------- */

/*
 * Where perf's pipe format goes, or NULL for a file: perf's check_pipe().
 * "-" (stdout) for -o -, and with no -o for a stdout that is a pipe
 * (precord ... | perf report -i -); the path for a FIFO at -o.
 */
static const char *record__pipe_path(const struct record *rec)
{
	struct stat st;

	if (!strcmp(rec->path, "-"))
		return "-";
	if (!rec->opts.output_set && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))
		return "-";
	return output__kind(rec->path) == OUTPUT_FIFO ? rec->path : NULL;
}

/*
 * The stream is one time-ordered sequence of records that perf sorts as
 * they come, FINISHED_ROUND after each pass over the rings: one streaming
 * thread drains every ring into it, the serial layout (perf refuses
 * --threads with a pipe). Per-thread streams would need a bounded merge on
 * the way out, which precord does not have yet. What writes files beside
 * the output, or keeps a directory, cannot be done either.
 */
static int record__setup_pipe(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	const char *where = strcmp(rec->path, "-") ? "a FIFO at -o" : "to stdout";
	const char *why = o->no_merge ? "--no-merge keeps the streaming threads' directory" :
			  o->kcore ? "--kcore keeps a copy of the kernel's text in a directory" :
			  o->switch_output ? "--switch-output starts new output files" :
			  o->overwrite ? "--overwrite (or an overwrite event term) keeps its snapshots in the threads' files" : NULL;

	if (why) {
		fprintf(stderr, "precord: %s, which pipe mode (%s) cannot: record into a file "
			"with -o FILE\n", why, where);
		return -EINVAL;
	}
	if (rec->threaded && !o->quiet && o->threads_spec)
		fprintf(stderr, "precord: note: --threads=%s is not used: pipe mode writes one "
			"time-ordered stream, from one streaming thread\n", o->threads_spec);
	else if (rec->threaded && !o->quiet && o->verbose)
		fprintf(stderr, "precord: pipe mode (%s): one streaming thread writes one "
			"time-ordered stream\n", where);
	if (o->mmap_output && o->verbose)
		fprintf(stderr, "precord: pipe mode (%s): written with write(2), not mapped\n",
			where);
	rec->pipe = true;
	rec->threaded = false;
	o->mmap_output = false;
	return 0;
}

/*
 * A FIFO at -o, opened for writing only (a read end of our own would hide
 * that the reader went away). open(2) would block until a reader comes,
 * with every signal blocked: poll the signal fd meanwhile, so ^C still
 * ends it. Whatever is at the path must still be a FIFO once open.
 */
static int record__open_fifo(struct record *rec)
{
	struct pollfd pfd = { .fd = rec->sig_fd, .events = POLLIN };
	struct signalfd_siginfo si;
	bool said = false;
	struct stat st;
	int fd, err;

	while ((fd = open(rec->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 && errno == ENXIO) {
		if (!said && !rec->opts.quiet)
			fprintf(stderr, "precord: waiting for a reader of the FIFO '%s'\n", rec->path);
		said = true;
		if (poll(&pfd, 1, 100) > 0 && read(rec->sig_fd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo != SIGCHLD && si.ssi_signo != SIGUSR2) {
			rec->stop_signal = (int)si.ssi_signo;
			fprintf(stderr, "precord: no reader opened the FIFO '%s'\n", rec->path);
			return -EINTR;
		}
	}
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot open the FIFO '%s': %s\n", rec->path, strerror(errno));
		return err;
	}
	/* blocking from now on: the writer waits for the reader, as perf's does */
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		fprintf(stderr, "precord: '%s' is no longer a FIFO; choose the output again with -o\n",
			rec->path);
		return -EINVAL;
	}
	return fd;
}

static int record__open_pipe(struct record *rec)
{
	int fd;

	snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
	if (strcmp(rec->path, "-")) {
		fd = record__open_fifo(rec);
	} else {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			fd = -errno;
			fprintf(stderr, "precord: cannot write to stdout: %s\n", strerror(errno));
		}
	}
	if (fd < 0)
		return fd;
	rec->out_fd = fd;
	return 0;
}

/* Where the stream starts: 0 in a pipe; the current offset of a file at stdout (-o - > FILE). */
static u64 record__pipe_offset(const struct record *rec)
{
	off_t pos = lseek(rec->out_fd, 0, SEEK_CUR);

	return pos < 0 ? 0 : (u64)pos;
}

/* The reader went away (EPIPE): one line, once. Whether err was that. */
bool record__pipe_gone(struct record *rec, int err)
{
	bool out = !strcmp(rec->path, "-");

	if (!rec->pipe || err != -EPIPE)
		return false;
	if (!rec->pipe_gone)
		fprintf(stderr, "precord: the reader of %s%s%s went away: recording stopped\n",
			out ? "" : "'", out ? "stdout" : rec->path, out ? "" : "'");
	rec->pipe_gone = true;
	return true;
}

/* Nothing to rewrite at the end: the last bytes out, and a file at stdout left at its end. */
static int record__finish_pipe(struct record *rec)
{
	int err;

	writer__close(&rec->writer);
	/* a reader seen gone while nothing was written is as a failed write */
	err = rec->writer.error ? rec->writer.error : rec->pipe_gone ? -EPIPE : 0;
	if (!rec->writer.pipe)
		lseek(rec->out_fd, (off_t)rec->writer.offset, SEEK_SET);
	record__pipe_gone(rec, err);
	return err;
}

/*
 * What stands at the output path, before anything is opened: "-", a FIFO,
 * or stdout a pipe with no -o is perf's pipe mode; a directory that is no
 * recording is refused; a device is written into in the one-file layout,
 * as perf writes it.
 */
int record__check_output(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	const char *pipe_path = record__pipe_path(rec);

	if (pipe_path) {
		rec->path = pipe_path;
		return record__setup_pipe(rec);
	}
	switch (output__kind(rec->path)) {
	case OUTPUT_OTHER:
		fprintf(stderr, "precord: '%s' is in the way: it is neither a perf.data file nor a "
			"recording directory; choose another output with -o\n", rec->path);
		return -EEXIST;
	case OUTPUT_DEVICE:
		break;
	default:
		return 0;
	}
	if (o->switch_output || o->no_merge || o->kcore) {
		fprintf(stderr, "precord: '%s' is a device: %s writes files next to the output; "
			"give -o a file name\n", rec->path,
			o->switch_output ? "--switch-output" : o->no_merge ? "--no-merge" : "--kcore");
		return -EINVAL;
	}
	rec->device = true;
	rec->threaded = false;
	if (o->mmap_output && o->verbose)
		fprintf(stderr, "precord: '%s' is a device: written with write(2), not mapped\n",
			rec->path);
	o->mmap_output = false;
	return 0;
}

/* ---- output -------------------------------------------------------------- */

/* Remove a staging directory of ours: its data and data.N files, then itself. */
void remove_staging(const char *dir)
{
	output__remove_dir(dir, NULL);
}

/* What was at the output path goes aside as FILE.old where perf would move it. */
static int record__keep_old(struct record *rec)
{
	char msg[2 * PATH_MAX + 128];
	int err = output__keep_old(rec->path, msg, sizeof(msg));

	if (err)
		fprintf(stderr, "precord: %s\n", msg);
	return err;
}

/*
 * --threads: the streaming threads write perf's directory layout into
 * "<output>.staging" (data, data.N), merged into the output at the end. A
 * staging directory left by a killed recording is never overwritten.
 */
static int record__make_staging(struct record *rec)
{
	const char *base = strrchr(rec->path, '/');
	size_t dirlen;
	int err;

	base = base ? base + 1 : rec->path;
	dirlen = (size_t)(base - rec->path);
	if (strlen(rec->path) + sizeof(".staging/data.") + 12 > sizeof(rec->staging)) {
		fprintf(stderr, "precord: the output name '%s' is too long\n", rec->path);
		return -ENAMETOOLONG;
	}
	if (strlen(base) + sizeof(".staging.next") - 1 <= NAME_MAX) {
		snprintf(rec->staging, sizeof(rec->staging) - 16, "%s.staging", rec->path);
		err = mkdir(rec->staging, 0700) < 0 ? -errno : 0;
	} else {
		/* NAME.staging would pass NAME_MAX: a shortened, unique name beside it */
		snprintf(rec->staging, sizeof(rec->staging) - 16, "%.*s%.*s.XXXXXX", (int)dirlen,
			 rec->path, NAME_MAX - (int)sizeof(".XXXXXX.next") + 1, base);
		err = mkdtemp(rec->staging) ? 0 : -errno;
	}
	if (err) {
		struct stat st;

		if (err == -EEXIST && (lstat(rec->staging, &st) || !S_ISDIR(st.st_mode)))
			fprintf(stderr, "precord: '%s' is in the way of the staging directory: "
				"remove it, or choose another output with -o\n", rec->staging);
		else if (err == -EEXIST)
			fprintf(stderr, "precord: '%s' is left from an earlier recording: turn it into "
				"a perf.data with 'precord merge %s', or remove it\n",
				rec->staging, rec->staging);
		else
			fprintf(stderr, "precord: cannot create '%s': %s; choose another place with -o\n",
				rec->staging, strerror(-err));
		return err;
	}
	if (snprintf(rec->data_path, sizeof(rec->data_path), "%s/data", rec->staging) >=
	    (int)sizeof(rec->data_path))
		return -ENAMETOOLONG;
	return 0;
}

/*
 * --kcore with one file: the output is a directory holding it as "data",
 * perf's --kcore layout (no DIR_FORMAT: nothing to sort). What stood at
 * the path goes aside as FILE.old first.
 */
static int record__make_kcore_output(struct record *rec)
{
	int err = record__keep_old(rec);

	if (err)
		return err;
	if (snprintf(rec->data_path, sizeof(rec->data_path), "%s/data", rec->path) >=
	    (int)sizeof(rec->data_path)) {
		fprintf(stderr, "precord: the output name '%s' is too long\n", rec->path);
		return -ENAMETOOLONG;
	}
	if (mkdir(rec->path, 0700) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot create the directory '%s': %s; choose another "
			"place with -o\n", rec->path, strerror(errno));
		return err;
	}
	return 0;
}

/*
 * --kcore: the kernel's text, kallsyms and modules into DIR/kcore_dir,
 * once the events are open and before the first record, as perf record
 * copies them. On failure the directory goes, with the data file.
 */
static int record__copy_kcore(struct record *rec)
{
	const char *dir = rec->threaded ? rec->staging : rec->path;
	char kdir[PATH_MAX], msg[2 * PATH_MAX + 128] = "";
	int err;

	if (snprintf(kdir, sizeof(kdir), "%s/%s", dir, KCORE_DIR_NAME) >= (int)sizeof(kdir))
		err = errbuf__set(msg, sizeof(msg), -ENAMETOOLONG, "the output name '%s' is too long",
				  rec->path);
	else
		err = kcore__copy("/proc", kdir, msg, sizeof(msg));
	if (!err)
		return 0;
	fprintf(stderr, "precord: --kcore: %s\n", msg);
	close(rec->out_fd);
	rec->out_fd = -1;
	remove_staging(dir);
	return err;
}

int record__open_output(struct record *rec)
{
	char msg[PATH_MAX + 128];
	int err;

	if (rec->pipe)
		return record__open_pipe(rec);
	if (rec->device) {
		/* written into, as perf does: never moved, cut or removed */
		snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
		rec->out_fd = open(rec->data_path, O_RDWR | O_CLOEXEC);
		if (rec->out_fd < 0) {
			err = -errno;
			fprintf(stderr, "precord: cannot open '%s': %s\n", rec->path, strerror(errno));
			return err;
		}
		return 0;
	}
	if (rec->threaded) {
		err = record__make_staging(rec);
		if (err)
			return err;
	} else if (rec->opts.kcore) {
		err = record__make_kcore_output(rec);
		if (err)
			return err;
	} else {
		err = record__keep_old(rec);
		if (err)
			return err;
		snprintf(rec->data_path, sizeof(rec->data_path), "%s", rec->path);
	}
	rec->out_fd = output__create(rec->data_path, msg, sizeof(msg));
	if (rec->out_fd < 0) {
		err = rec->out_fd;
		fprintf(stderr, "precord: %s\n", msg);
		if (rec->threaded)
			rmdir(rec->staging);
		else if (rec->opts.kcore)
			rmdir(rec->path);
		return err;
	}
	return rec->opts.kcore ? record__copy_kcore(rec) : 0;
}

/* ---- the start of a data file ------------------------------------------ */

static int record__emit(void *ctx, const void *data, size_t size)
{
	struct record *rec = ctx;
	int err = writer__write(&rec->writer, data, size);

	if (!err)
		rec->synth_bytes += size;
	return err;
}

static bool record__samples_kernel(const struct record *rec)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(rec->evlist, evsel, i)
		if (!evsel->attr.exclude_kernel &&
		    !(evsel->attr.type == PERF_TYPE_SOFTWARE &&
		      evsel->attr.config == PERF_COUNT_SW_DUMMY))
			return true;
	return false;
}

static bool record__all_exclude_kernel(const struct record *rec)
{
	struct evsel *evsel;
	int i;

	evlist__for_each_evsel(rec->evlist, evsel, i)
		if (!evsel->attr.exclude_kernel)
			return false;
	return true;
}

static int record__synth_kernel(struct record *rec, const struct synth_opts *so)
{
	/* As perf: a kernel or module map that cannot be read is a warning, not the end. */
	if (synthesize__kernel_mmap(so, record__emit, rec) && !rec->opts.quiet &&
	    record__samples_kernel(rec))
		fprintf(stderr, "precord: warning: cannot record the kernel map (is "
			"/proc/kallsyms readable? check kernel.kptr_restrict); kernel samples "
			"will not resolve\n");
	if (synthesize__modules(so, record__emit, rec) && !rec->opts.quiet && rec->opts.verbose)
		fprintf(stderr, "precord: warning: cannot record the kernel modules\n");
	return rec->writer.error;
}

/*
 * The BPF programs loaded now (as perf, whatever --synth says): a failure is
 * a warning, as perf's; a user who may not list them gets none, said with -v.
 */
static int record__synth_bpf(struct record *rec, const struct synth_opts *so)
{
	bool listed;
	int err = synthesize__bpf(so, record__emit, rec, &listed);

	if (rec->writer.error)
		return rec->writer.error;
	if (err && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: cannot describe the loaded BPF programs (%s): "
			"samples in them will not resolve\n", strerror(-err));
	else if (!listed && rec->opts.verbose && !rec->opts.quiet)
		fprintf(stderr, "precord: BPF programs not described: this user may not list "
			"them\n");
	return 0;
}

/* --all-cgroups: every cgroup, so that the samples' cgroup ids have names (a warning, as perf's). */
static int record__synth_cgroups(struct record *rec, const struct synth_opts *so)
{
	int err = synthesize__cgroups(so, record__emit, rec);

	if (err && !rec->writer.error && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: cannot record the cgroups (%s): the samples' "
			"cgroups will show as unknown\n", strerror(-err));
	return rec->writer.error;
}

/* The recorded processes: the forked command and the -p/-t/-u tasks. */
static pid_t *record__tree_roots(const struct record *rec, int *nr)
{
	const struct thread_map *threads = rec->evlist->threads;
	pid_t *roots = calloc((size_t)threads->nr + 1, sizeof(*roots));
	int i;

	*nr = 0;
	if (!roots)
		return NULL;
	if (rec->wl.pid > 0)
		roots[(*nr)++] = rec->wl.pid;
	for (i = 0; i < threads->nr; i++)
		if (threads->map[i] > 0 && threads->map[i] != rec->wl.pid)
			roots[(*nr)++] = threads->map[i];
	return roots;
}

/*
 * Every later --switch-output file of a command or of -p/-t/-u tasks: the
 * processes recorded and every one they started since (perf synthesizes
 * only the command's own process there, so a child's samples go unknown),
 * and a process of the tree that exited since the switch as it was then.
 */
static int record__synth_tree(struct record *rec, const struct synth_opts *so)
{
	int nr, err;
	pid_t *roots = record__tree_roots(rec, &nr);

	if (!roots)
		return -ENOMEM;
	err = synthesize__tree_since(so, roots, nr, &rec->tree_snap, record__emit, rec);
	free(roots);
	return err ? err : rec->writer.error;
}

static int record__synth_tasks(struct record *rec, const struct synth_opts *so)
{
	if (rec->system_wide)
		return synthesize__all_parallel(so, rec->wq, rec->opts.nr_threads_synthesize,
						record__emit, rec);
	if (rec->gen > 0)
		return record__synth_tree(rec, so);
	/* A forked workload has not exec'd yet: its COMM is all there is to say. */
	if (rec->wl.pid > 0 && !record__task_target(&rec->opts))
		return synthesize__comm(so, rec->wl.pid, record__emit, rec);
	return synthesize__thread_map(so, rec->evlist->threads, record__emit, rec);
}

/* The options every synthesis of this recording uses. */
static void record__synth_opts(const struct record *rec, struct synth_opts *so,
			       struct synth_stats *stats)
{
	const struct record_opts *o = &rec->opts;

	synth_opts__init(so);
	so->id_hdr_size = evlist__id_hdr_size(rec->evlist);
	so->proc_map_timeout_ms = o->proc_map_timeout;
	so->build_id = o->buildid_mmap;
	so->mmap_data = record__sample_address(o);
	so->no_mmap = !(o->synth & SYNTH_MMAP);
	so->namespaces = o->record_namespaces;
	so->stats = stats;
}

/*
 * Just before the streaming threads leave a --switch-output file: the
 * process tree as it is, in memory, for the next file's synthesis to use
 * for the processes that exit in between (record__synth_tree()). Only
 * where the next file synthesizes the tree; a snapshot that cannot be
 * taken leaves the next file with what /proc still shows.
 */
void record__snap_tree(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	struct synth_stats stats = { 0 };
	struct synth_opts so;
	pid_t *roots;
	int nr;

	rec->tree_snap.len = 0;
	if (rec->system_wide || !(o->synth & SYNTH_TASK) || !(o->synth & SYNTH_MMAP) ||
	    o->tail_synthesize)
		return;
	roots = record__tree_roots(rec, &nr);
	if (!roots)
		return;
	record__synth_opts(rec, &so, &stats);
	so.bid_cache = buildid_cache__new();
	synth_tree_snap__take(&rec->tree_snap, &so, roots, nr);
	buildid_cache__delete(so.bid_cache);
	free(roots);
}

static int record__synthesize(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct synth_stats stats = { 0 };
	struct synth_opts so;
	char msg[256];
	int err = 0;

	record__synth_opts(rec, &so, &stats);
	so.bpf_event = !o->no_bpf_event;
	so.bpf_progs = &rec->bpf_progs;
	so.bid_cache = buildid_cache__new();
	/* As perf: whatever --synth says, unless every event excludes the kernel. */
	if (!record__all_exclude_kernel(rec))
		err = record__synth_kernel(rec, &so);
	if (!err)
		err = record__synth_bpf(rec, &so);
	if (!err && (o->synth & SYNTH_CGROUP) && o->record_cgroup)
		err = record__synth_cgroups(rec, &so);
	if (!err && (o->synth & SYNTH_TASK))
		err = record__synth_tasks(rec, &so);
	buildid_cache__delete(so.bid_cache);
	if (stats.nr_map_timeouts && !o->quiet &&
	    synthesize__timeout_msg(msg, sizeof(msg), stats.first_timeout_pid) > 0)
		fprintf(stderr, "precord: %s\n", msg);
	if (!err)
		err = synthesize__id_index(rec->evlist, record__emit, rec);
	if (!err)
		err = synthesize__finished_init(record__emit, rec);
	if (!err)
		err = writer__flush(&rec->writer);
	return err;
}

/*
 * --tail-synthesize: the tasks and maps (and the rest record__synthesize()
 * writes) at the end of a file, once its streaming threads are done with
 * it: from this thread, into the file's data (a staging directory's
 * `data`, whose records the merge puts ahead of the rings', where perf
 * report meets them before any sample; one file: at its end, as perf
 * writes them). A write error ends the recording.
 */
int record__tail_synthesize(struct record *rec)
{
	int err;

	if (!rec->opts.tail_synthesize || rec->write_error || !rec->header_written)
		return 0;
	err = record__synthesize(rec);
	if (err) {
		rec->write_error = err;
		if (!record__pipe_gone(rec, err))
			fprintf(stderr, "precord: writing '%s' failed: %s\n", rec->data_path,
				strerror(-err));
	}
	return err;
}

/*
 * The features as they stand when a file starts: written ahead of a single
 * file's data, and into a staging directory's first complete header.
 */
static void record__start_env(const struct record *rec, struct header_env *env,
			      bool dir_format)
{
	*env = (struct header_env){
		.argc = rec->full_argc,
		.argv = rec->full_argv,
		.clockid_set = rec->opts.clockid_set,
		.clockid = rec->opts.clockid,
		.no_buildid = true,
		.dir_format = dir_format,
		.compressed = rec->opts.comp_level > 0,
		.comp_level = (u32)rec->opts.comp_level,
		.comp_mmap_len = ZCOMP_MMAP_LEN,
		.bpf_progs = &rec->bpf_progs,
	};
}

/*
 * --threads: finish the `data` file once right after synthesis, so a
 * recording killed with SIGKILL leaves a staging directory whose `data` is a
 * complete perf.data (header, attrs, features) and `precord merge` can use it.
 * The end of the recording writes past it and finishes it again.
 */
static int record__write_interim_header(struct record *rec)
{
	struct header_env env;
	int err = writer__flush(&rec->writer);

	if (err)
		return err;
	record__start_env(rec, &env, true);
	return header__write_end(rec->out_fd, rec->evlist, rec->data_offset,
				 rec->writer.offset - rec->data_offset, &env);
}

/*
 * Pipe mode: what a file's header holds goes first, as records (pipe.c),
 * with the features a file's start gets.
 */
static int record__begin_pipe(struct record *rec)
{
	struct header_env env;
	u64 dropped = 0;
	int err, feat;

	record__start_env(rec, &env, false);
	err = pipe__write_header(writer__sink, &rec->writer);
	if (!err)
		err = pipe__synthesize(rec->evlist, &env, writer__sink, &rec->writer, &dropped);
	if (err == -E2BIG)
		fprintf(stderr, "precord: an event has more ids than perf's pipe format can carry "
			"(fewer CPUs or threads, or record into a file with -o FILE)\n");
	for (feat = 0; rec->opts.verbose && feat < 64; feat++)
		if (dropped & (1ULL << feat))
			fprintf(stderr, "precord: feature %d is too big for a pipe-mode record: "
				"left out, as perf leaves it\n", feat);
	return err;
}

/*
 * The start of a data file (the recording's, or with --switch-output each
 * new one's `data`): header, synthesized records, FINISHED_INIT and, in a
 * staging directory, a first complete header. A write error is the end.
 */
int record__begin_data(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	rec->synth_bytes = 0;
	if (rec->pipe) {
		rec->data_offset = record__pipe_offset(rec);
		err = 0;
	} else if (rec->threaded || rec->device) {
		/* a device reads nothing back: no features ahead of its data */
		err = header__write_start(rec->out_fd, rec->evlist, &rec->data_offset);
	} else {
		struct header_env env;

		/* one file: a SIGKILL leaves it no end, so its features go ahead of the data */
		record__start_env(rec, &env, false);
		err = header__write_start_ahead(rec->out_fd, rec->evlist, &env, &rec->data_offset);
	}
	if (!err && o->aio && !rec->threaded)
		err = writer__open_aio(&rec->writer, rec->out_fd, rec->data_offset, 0, o->aio);
	else if (!err)
		/* one streaming thread: its writes as short as a data.N writer's, for the same latency */
		err = writer__open_size(&rec->writer, o->mmap_output && !rec->threaded ?
					WRITER_MMAP : WRITER_WRITE, rec->out_fd, rec->data_offset,
					rec->one_thread ? STREAM_RING_BUF_SIZE : 0);
	if (err) {
		fprintf(stderr, "precord: cannot write '%s': %s\n", rec->data_path, strerror(-err));
		return err;
	}
	rec->header_written = true;
	/* the streaming thread's file: its space reserved ahead, as a data.N's is */
	if (rec->one_thread)
		writer__prealloc(&rec->writer, streams__prealloc_step(rec->data_path, 1));

	err = rec->pipe ? record__begin_pipe(rec) : 0;
	/* --tail-synthesize: what runs is described at the file's end instead */
	if (!err && !o->tail_synthesize)
		err = record__synthesize(rec);
	/* Later files: a task gone while /proc was read is not an error, a full disk is. */
	if (err && rec->gen > 0 && !rec->writer.error)
		err = 0;
	if (!err && rec->threaded)
		err = record__write_interim_header(rec);
	if (err) {
		rec->write_error = err;
		/* a reader gone, or an attr too big for the pipe format, is said */
		if (!record__pipe_gone(rec, err) && !(rec->pipe && err == -E2BIG))
			fprintf(stderr, "precord: writing '%s' failed: %s\n", rec->data_path,
				strerror(-err));
	}
	return err;
}

/* ---- the end ------------------------------------------------------------ */

/*
 * After a write error, a data section ends at the last whole record that
 * reached the file: walk the record headers from its start. *samples (when
 * not NULL) gets the samples among them.
 */
static u64 valid_records_size(int fd, u64 start, u64 written, u64 *samples)
{
	struct perf_event_header h;
	u64 pos = 0;

	while (pos + sizeof(h) <= written) {
		if (pread(fd, &h, sizeof(h), (off_t)(start + pos)) != sizeof(h))
			break;
		if (h.size < sizeof(h) || pos + h.size > written)
			break;
		if (samples && h.type == PERF_RECORD_SAMPLE)
			(*samples)++;
		pos += h.size;
	}
	return pos;
}

/*
 * A data.N (or a directory's) cut back to its last whole record; the
 * samples it keeps are added to *samples.
 */
static int cut_ring_file(int fd, u64 *samples)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return ftruncate(fd, (off_t)valid_records_size(fd, 0, (u64)st.st_size, samples)) < 0 ?
	       -errno : 0;
}

/*
 * After a write error, cut every data.N back to its last whole record too,
 * and count the samples that are there: what the closing line announces.
 */
void record__cut_ring_files(struct record *rec)
{
	struct streams *ss = &rec->streams;
	int i;

	rec->kept_samples = 0;
	rec->samples_counted = !rec->opts.comp_level;	/* -z: inside COMPRESSED records */
	for (i = 0; ss->ring_fds && i < ss->nr_files; i++) {
		int fd = ss->ring_fds[i];

		if (fd >= 0 && cut_ring_file(fd, &rec->kept_samples) < 0 && rec->opts.verbose)
			fprintf(stderr, "precord: cannot cut data.%d: %s\n", i, strerror(errno));
	}
}

/*
 * After a write error the data section ends at the last whole record in
 * the file; *size, what the writer took, becomes that and the file is cut
 * there.
 */
static int record__cut_data(struct record *rec, u64 *size)
{
	struct stat st;

	/*
	 * What the writer took and what reached the file differ after
	 * an error (an --aio write that failed after the ones before it
	 * succeeded): a record whose start is there and whose end is
	 * not must not count, so the walk ends at the file's end.
	 */
	if (!rec->device && fstat(rec->out_fd, &st) == 0 &&
	    (u64)st.st_size < rec->data_offset + *size)
		*size = (u64)st.st_size > rec->data_offset ?
			(u64)st.st_size - rec->data_offset : 0;
	if (!rec->threaded) {
		/* the samples the file keeps: what the closing line announces */
		rec->kept_samples = 0;
		rec->samples_counted = !rec->opts.comp_level;
	}
	*size = valid_records_size(rec->out_fd, rec->data_offset, *size,
				   rec->threaded ? NULL : &rec->kept_samples);
	if (ftruncate(rec->out_fd, (off_t)(rec->data_offset + *size)) < 0)
		return -errno;
	return 0;
}

/* The build-id table of the DSOs the data's samples hit, into env when there is one. */
static void record__end_build_ids(struct record *rec, u64 size, struct header_env *env,
				  struct record_build_ids *bids)
{
	record__phase(rec, "finish");
	if (!record__build_ids(rec, size, bids) && bids->table) {
		env->no_buildid = false;
		env->build_id_table = bids->table;
		env->build_id_table_size = bids->table_size;
	}
	record__phase(rec, "build ids");
}

/*
 * The features after the data section. Without room for them all, the
 * build ids go first, then every feature: the data is kept either way.
 */
static int record__write_end(struct record *rec, u64 size, struct header_env *env)
{
	int err = header__write_end(rec->out_fd, rec->evlist, rec->data_offset, size, env);

	if ((err == -ENOSPC || err == -EDQUOT) && env->build_id_table &&
	    ftruncate(rec->out_fd, (off_t)(rec->data_offset + size)) == 0) {
		/*
		 * No room for them all: the build ids are what perf can do
		 * without (a staging directory's data needs DIR_FORMAT).
		 */
		env->no_buildid = true;
		env->build_id_table = NULL;
		env->build_id_table_size = 0;
		err = header__write_end(rec->out_fd, rec->evlist, rec->data_offset, size, env);
	}
	if (err == -ENOSPC || err == -EDQUOT) {
		/* No room for the features: keep the data, drop them. */
		if (ftruncate(rec->out_fd, (off_t)(rec->data_offset + size)) == 0)
			err = header__write_end(rec->out_fd, rec->evlist, rec->data_offset,
						size, NULL);
	}
	return err;
}

/*
 * The steps of a file's end: the writer closed, the data cut back to its
 * last whole record after a write error, the build ids found, the features
 * written, the build-id cache filled.
 */
int record__finish_output(struct record *rec)
{
	struct header_env env = {
		.argc = rec->full_argc,
		.argv = rec->full_argv,
		.first_sample_time = rec->total.first_time,
		.last_sample_time = rec->total.last_time,
		.clockid_set = rec->opts.clockid_set,
		.clockid = rec->opts.clockid,
		.no_buildid = true,
		.dir_format = rec->threaded,
		.bpf_progs = &rec->bpf_progs,
	};
	struct record_build_ids bids = { 0 };
	u64 size, in, out;
	int err;

	if (rec->pipe)
		return record__finish_pipe(rec);
	if (rec->opts.comp_level) {
		streams__comp_bytes(&rec->streams, &in, &out);
		env.compressed = true;
		env.comp_level = (u32)rec->opts.comp_level;
		env.comp_ratio = zcomp__ratio(in, out);
		env.comp_mmap_len = ZCOMP_MMAP_LEN;
	}

	writer__close(&rec->writer);
	size = rec->writer.offset - rec->data_offset;
	if (rec->write_error || rec->writer.error) {
		err = record__cut_data(rec, &size);
		if (err)
			return err;
	}
	if (!rec->opts.no_buildid && !rec->device)
		record__end_build_ids(rec, size, &env, &bids);
	err = record__write_end(rec, size, &env);
	if (!err && bids.hits) {
		record__phase(rec, "finish");
		record__cache_build_ids(rec, &bids);
		record__phase(rec, "build-id cache");
	}
	record__build_ids_exit(&bids);
	return err;
}

/*
 * A staging directory kept as perf's layout after a write error: a data.N
 * that a full disk cut inside a record (the writer keeps every byte that
 * reached the file) would end perf's reading of it with a crash, so each is
 * cut back to its last whole record, as the data file is.
 */
static void cut_staging_ring_files(struct record *rec, const char *dir)
{
	char path[PATH_MAX];
	u64 samples = 0;
	int i, fd;

	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "%s/data.%d", dir, i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		if (cut_ring_file(fd, &samples) < 0)
			fprintf(stderr, "precord: cannot cut '%s' back to its last whole record: %s\n",
				path, strerror(errno));
		close(fd);
	}
	rec->kept_samples = samples;
	rec->samples_counted = !rec->opts.comp_level;
}

/* Keep a staging directory as the output: perf's directory layout, which perf reads. */
static int record__keep_dir(const char *staging, const char *path)
{
	if (rename(staging, path) == 0)
		return 0;
	fprintf(stderr, "precord: cannot rename '%s' to '%s': %s; the recording is in '%s'\n",
		staging, path, strerror(errno), staging);
	return -errno;
}

/*
 * Whether the merge drops its inputs as it goes (merge_opts.consume):
 * where the host takes freed memory back (the output then gets the pages
 * just freed: 44% of the wall at -F max -m 32 down to 21% on this VM),
 * not elsewhere (it cost there: 7.8% up to 12.9%, punching holes and
 * waiting for ext4's discards). PRECORD_MERGE_CONSUME=1 or 0
 * decides instead.
 */
static bool record__merge_consumes(void)
{
	const char *env = getenv("PRECORD_MERGE_CONSUME");

	if (env && !strcmp(env, "1"))
		return true;
	if (env && !strcmp(env, "0"))
		return false;
	return memory_host_reclaims();
}

/*
 * A staging directory becomes the output path: merged (default), or as it
 * is (--no-merge). When the disk is full, or the merge fails, the directory
 * is kept as the output instead: perf report reads it, and nothing recorded
 * is lost to a merge that cannot be written.
 */
int record__finish_dir(struct record *rec, const char *staging, const char *path)
{
	struct merge_opts mo = {
		.quiet = rec->opts.quiet, .comp_level = rec->opts.comp_level, .index = rec->index,
		.consume = record__merge_consumes(),
	};
	bool full = rec->write_error == -ENOSPC || rec->write_error == -EDQUOT;
	char msg[2 * PATH_MAX] = "";
	int err;

	if (rec->opts.no_merge || rec->opts.kcore)	/* a perf.data file cannot hold kcore_dir */
		return record__keep_dir(staging, path);
	if (full) {
		fprintf(stderr, "precord: no room to merge: '%s' keeps perf's directory layout "
			"(data + data.N), which perf report reads\n", path);
		cut_staging_ring_files(rec, staging);
		return record__keep_dir(staging, path);
	}
	err = merge__dir(staging, path, &mo, &rec->merged, msg, sizeof(msg));
	if (err && rec->merged.given_back) {
		/* the data.N files are part merged away: the staging directory is no perf directory now */
		fprintf(stderr, "precord: %s\n", msg[0] ? msg : strerror(-err));
		return err;
	}
	if (err) {
		/* Nothing lost, but not the file asked for: the exit status says so. */
		rec->merge_error = err;
		fprintf(stderr, "precord: %s; '%s' keeps perf's directory layout instead "
			"('precord merge %s -o FILE' merges it)\n", msg[0] ? msg : strerror(-err),
			path, path);
		cut_staging_ring_files(rec, staging);
		return record__keep_dir(staging, path);
	}
	if (msg[0] && !rec->opts.quiet)
		fprintf(stderr, "precord: warning: %s\n", msg);
	remove_staging(staging);
	return 0;
}

/*
 * --timestamp-filename, one file: the finished file becomes
 * FILE.<timestamp>, as perf renames it at the end.
 */
int record__finish_timestamp(struct record *rec)
{
	int err = record__output_name(rec, rec->final_path, sizeof(rec->final_path));

	if (err) {
		fprintf(stderr, "precord: cannot name '%s' with a timestamp: %s; the recording is "
			"in '%s'\n", rec->data_path, strerror(-err), rec->data_path);
		return err;
	}
	if (rename(rec->data_path, rec->final_path) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot rename '%s' to '%s': %s; the recording is in '%s'\n",
			rec->data_path, rec->final_path, strerror(errno), rec->data_path);
		return err;
	}
	rec->path = rec->final_path;
	return 0;
}

/*
 * The end: the staging directory becomes the output, or with
 * --switch-output or --timestamp-filename FILE.<timestamp>.
 */
int record__finish_last(struct record *rec)
{
	int err;

	if (rec->opts.switch_output || rec->opts.timestamp_filename) {
		err = record__output_name(rec, rec->final_path, sizeof(rec->final_path));
		if (err)
			return err;
		rec->path = rec->final_path;
	} else {
		err = record__keep_old(rec);
		if (err) {
			fprintf(stderr, "precord: the recording is in '%s': 'precord merge %s -o FILE' "
				"merges it\n", rec->staging, rec->staging);
			return err;
		}
	}
	return record__finish_dir(rec, rec->staging, rec->path);
}
