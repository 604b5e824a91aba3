// SPDX-License-Identifier: GPL-2.0
/*
 * record-switch.c — the flight recorder's side of a recording: output
 * rotation (--switch-output by signal, size or time, snapshots of
 * --overwrite rings, --switch-max-files) and the commands of the control
 * channel (--control: enable, disable, snapshot, evlist, stop).
 *
 * Runs on the main thread, from builtin-record.c's wait loop. Data flow: a
 * trigger (SIGUSR2, a thread's "full" eventfd, a timer, a control
 * command) → record__switch(): the streaming threads move to a new staging
 * directory, the old one's data file is finished and becomes
 * FILE.<timestamp> (record-output.c), the new one starts with its header
 * and synthesized records.
 *
 * --switch-output-event: the side-band events, an evlist of their own
 * opened on every CPU (or the -p/-t tasks), are read here too: their
 * rings wake an epoll descriptor the wait loop polls, and any record in
 * them is a trigger, as perf's side-band thread's SIGUSR2 is.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "record.h"
#include "precord/parse-events.h"

/*
 * --switch-output=SIZE: the byte count at which the current file is full.
 * The threads write to a new file from the switch on, while this thread
 * synthesizes into it with no limit armed, so they may be past the limit
 * when it is armed: then no read of theirs crosses it, none signals, and
 * each holds its rings for a switch that nobody asked for. So this thread
 * looks once after arming and asks for the switch itself (switch_due).
 * The store of switch_at and the load of bytes are SEQ_CST, pairing with
 * the threads' SEQ_CST add to bytes and load of switch_at in
 * stream__count_shared(): in this store-then-load pattern on two
 * variables, at least one side sees the other's write, so a crossing is
 * seen by the thread or by this check (or both: record__switch() drops a
 * signal for files already switched).
 */
void record__arm_size(struct record *rec)
{
	u64 size = rec->opts.switch_size, at;

	if (!size || rec->opts.overwrite)
		return;
	at = rec->gen_start_bytes + (size > rec->synth_bytes ? size - rec->synth_bytes : 1);
	__atomic_store_n(&rec->shared.switch_at, stream_switch_at((unsigned int)rec->gen, at),
			 __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rec->shared.bytes, __ATOMIC_SEQ_CST) >= at)
		rec->switch_due = true;
}

/*
 * --max-size: the byte count of the threads at which the current file
 * holds max_size bytes with what this thread synthesized into it (perf
 * counts both, and from zero again in each --switch-output file). Armed
 * as record__arm_size() arms its limit, with the same pairing: the
 * SEQ_CST store of max_at then load of bytes here, the threads' SEQ_CST
 * add to bytes then load of max_at in stream__count_shared().
 */
void record__arm_max_size(struct record *rec)
{
	u64 max = rec->opts.max_size, at;

	if (!max)
		return;
	if (rec->synth_bytes >= max) {
		rec->max_reached = true;
		return;
	}
	at = rec->gen_start_bytes + max - rec->synth_bytes;
	__atomic_store_n(&rec->shared.max_at, at, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rec->shared.bytes, __ATOMIC_SEQ_CST) >= at)
		rec->max_reached = true;
}

/*
 * Once the output reached --max-size: perf's line; true to stop. The
 * recording ends as perf's does: a workload still running is stopped with
 * SIGTERM, and the exit status says so.
 */
bool record__max_size_reached(struct record *rec)
{
	u64 bytes = __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED) - rec->gen_start_bytes +
		    rec->synth_bytes;

	if (!rec->max_reached)
		return false;
	status__clear(&rec->status);
	if (!rec->opts.quiet)
		fprintf(stderr, "[ %s: perf size limit reached (%llu KB), stopping session ]\n",
			rec->tag, (unsigned long long)(bytes >> 10));
	return true;
}

/* ---- --switch-output and snapshots ---------------------------------------- */

/*
 * The name of the file being finished: FILE.<timestamp>, perf's
 * %Y%m%d%H%M%S plus two digits of centiseconds, local time. Two files in
 * the same hundredth of a second wait for the next one.
 */
int record__output_name(struct record *rec, char *buf, size_t size)
{
	char staging[PATH_MAX + 16];
	struct timeval tv;
	struct stat st;
	struct tm tm;
	char ts[32];
	int tries;

	for (tries = 0; tries < 100; tries++) {
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y%m%d%H%M%S", &tm);
		if (snprintf(buf, size, "%s.%s%02u", rec->path, ts,
			     (unsigned int)(tv.tv_usec / 10000)) >= (int)size)
			return -ENAMETOOLONG;
		snprintf(staging, sizeof(staging), "%s.staging", buf);
		if (stat(buf, &st) && stat(staging, &st))
			return 0;
		usleep(10000);
	}
	return -EEXIST;
}

/* A file or --no-merge directory that --switch-max-files lets go. */
static void remove_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		remove_staging(path);
	else
		unlink(path);
}

/* A finished output file: say so, and keep only the newest --switch-max-files. */
void record__keep_output(struct record *rec, const char *path)
{
	int max = rec->opts.switch_max_files;
	char **list;

	if (!rec->opts.quiet)
		fprintf(stderr, "[ %s: Dump %s ]\n", rec->tag, path);
	if (max <= 0)
		return;
	list = realloc(rec->outputs, sizeof(*list) * (size_t)(rec->nr_outputs + 1));
	if (!list)
		return;
	rec->outputs = list;
	list[rec->nr_outputs] = strdup(path);
	if (list[rec->nr_outputs])
		rec->nr_outputs++;
	while (rec->nr_outputs > max) {
		remove_output(list[0]);
		free(list[0]);
		memmove(list, list + 1, sizeof(*list) * (size_t)--rec->nr_outputs);
	}
}

/*
 * End the current output file and start the next, while recording goes
 * on: the streaming threads move to a new staging directory (reading and
 * resuming the overwrite rings on the way, with --overwrite), the old
 * directory's `data` gets its final header, and the old directory becomes
 * FILE.<timestamp> — merged, or kept as it is with --no-merge. The new
 * `data` gets the header and the state of the system synthesized anew, so
 * every file reads on its own.
 */
/*
 * The samples written before the last switch, summed over the streaming
 * threads: each one's count at its switch, or, for one that had exited
 * before it (nothing new since), its last.
 */
static u64 record__switched_samples(const struct record *rec)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < rec->streams.nr; i++) {
		const struct stream *s = &rec->streams.s[i];
		struct stream_live live;

		if (__atomic_load_n(&s->switch_error, __ATOMIC_RELAXED) == -ESRCH) {
			stream__read_live(s, &live);
			sum += live.samples;
		} else {
			sum += __atomic_load_n(&s->switch_samples, __ATOMIC_RELAXED);
		}
	}
	return sum;
}

int record__switch(struct record *rec)
{
	char next[PATH_MAX + 8], done[PATH_MAX + 16], target[PATH_MAX], msg[512] = "";
	u64 v;
	int err;

	rec->switch_due = false;
	status__clear(&rec->status);	/* the switch's messages start on a clean line */
	snprintf(next, sizeof(next), "%s.next", rec->staging);
	if (mkdir(next, 0700) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot create '%s': %s; remove it, or free space\n",
			next, strerror(errno));
		return err;
	}
	/* The processes the next file may hold samples of, while they all still run. */
	record__snap_tree(rec);
	/* The threads on the next files see no limit until record__arm_size(). */
	err = streams__switch(&rec->streams, next, rec->opts.overwrite, msg, sizeof(msg));
	rec->gen_start_bytes = __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED);
	if (!err)	/* every thread has switched: the samples of the files before */
		rec->gen_start_samples = record__switched_samples(rec);
	/* a thread's signal that the files just left were full is answered */
	if (rec->shared.switch_fd >= 0 && read(rec->shared.switch_fd, &v, sizeof(v)) < 0)
		v = 0;	/* none was pending */
	if (err) {
		fprintf(stderr, "precord: %s; what was written since is in '%s'\n", msg, next);
		rec->write_error = err;
		return err;
	}
	err = record__tail_synthesize(rec);
	if (!err)
		err = record__finish_output(rec);
	close(rec->out_fd);
	rec->out_fd = -1;
	if (!err)
		err = record__output_name(rec, target, sizeof(target));
	if (err) {
		fprintf(stderr, "precord: cannot finish '%s': %s\n", rec->data_path, strerror(-err));
		rec->write_error = err;
		return err;
	}
	snprintf(done, sizeof(done), "%s.staging", target);
	if (rename(rec->staging, done) < 0 || rename(next, rec->staging) < 0) {
		err = -errno;
		fprintf(stderr, "precord: cannot rename the staging directory '%s': %s\n",
			rec->staging, strerror(errno));
		rec->write_error = err;
		return err;
	}
	rec->gen++;
	rec->out_fd = open(rec->data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = rec->out_fd < 0 ? -errno : record__begin_data(rec);
	if (err) {
		rec->write_error = err;		/* the recording ends after this file */
	} else {
		record__arm_size(rec);
		record__arm_max_size(rec);
		if (rec->opts.switch_secs) {
			/* One file per period: the next deadline from the last, not from now. */
			rec->next_switch_ms += 1000ULL * rec->opts.switch_secs;
			if (rec->next_switch_ms <= clock__now_ms())
				rec->next_switch_ms = clock__now_ms() + 1000ULL * rec->opts.switch_secs;
		}
	}
	/* A merge that fails keeps the directory (also on a full disk): nothing is lost. */
	if (!record__finish_dir(rec, done, target))
		record__keep_output(rec, target);
	return err;
}

/* --switch-output=SIZE with --overwrite: what the next snapshot would hold. */
bool record__overwrite_full(struct record *rec)
{
	u64 bytes = streams__backward_pending(&rec->streams) + rec->synth_bytes +
		    __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED) - rec->gen_start_bytes;

	return bytes >= rec->opts.switch_size;
}

/* ---- the control channel -------------------------------------------------- */

static void record__control_toggle(struct record *rec, const struct control_msg *msg)
{
	bool enable = msg->cmd == CONTROL_CMD_ENABLE;
	struct evsel *evsel;
	int i, found = 0;

	if (!msg->arg[0]) {
		if (enable)
			evlist__enable(rec->evlist);
		else
			evlist__disable(rec->evlist);
	} else {
		evlist__for_each_evsel(rec->evlist, evsel, i) {
			if (!evsel->name || strcmp(evsel->name, msg->arg))
				continue;
			if (enable)
				evsel__enable(evsel);
			else
				evsel__disable(evsel);
			found++;
		}
		if (!found) {
			fprintf(stderr, "precord: control: no event named '%s'\n", msg->arg);
			return;
		}
	}
	if (!rec->opts.quiet)
		fprintf(stderr, "precord: %s %s\n", msg->arg[0] ? msg->arg : "events",
			enable ? "enabled" : "disabled");
}

static void record__control_cmd(struct record *rec, const struct control_msg *msg)
{
	struct evsel *evsel;
	int i;

	if (msg->malformed && (msg->cmd == CONTROL_CMD_ENABLE || msg->cmd == CONTROL_CMD_DISABLE ||
			       msg->cmd == CONTROL_CMD_EVLIST)) {
		fprintf(stderr, "precord: control: wrong command '%s'\n", msg->line);
		return;
	}
	switch (msg->cmd) {
	case CONTROL_CMD_ENABLE:
	case CONTROL_CMD_DISABLE:
		record__control_toggle(rec, msg);
		break;
	case CONTROL_CMD_SNAPSHOT:
		if (rec->opts.switch_output)
			record__switch(rec);
		else if (!rec->opts.quiet)
			fprintf(stderr, "precord: control: snapshot needs --switch-output\n");
		break;
	case CONTROL_CMD_EVLIST:
		evlist__for_each_evsel(rec->evlist, evsel, i)
			fprintf(stderr, "%s\n", evsel->name ? evsel->name : "?");
		break;
	case CONTROL_CMD_STOP:
		rec->stop_requested = true;
		break;
	default:
		break;
	}
}

/* Carry out every command waiting on the channel; false once it is closed. */
bool record__control(struct record *rec)
{
	struct control_msg msg;
	int ret;

	while ((ret = control__read(&rec->ctl, &msg)) > 0) {
		status__clear(&rec->status);
		record__control_cmd(rec, &msg);
		if (control_cmd__is_acked(msg.cmd) && control__ack(&rec->ctl) && rec->opts.verbose)
			fprintf(stderr, "precord: control: cannot write the ack\n");
	}
	return ret == 0;
}

/* ---- --switch-output-event ----------------------------------------------- */

#define SB_RING_PAGES	8	/* a trigger needs only one record to get through */

/* The events, parsed as -e parses them: a bad one ends the recording before it starts. */
int record__sb_parse(struct record *rec)
{
	struct parse_events_error err = { .msg = "" };
	struct evsel *evsel;
	int i, ret;

	if (!rec->opts.nr_sb_events)
		return 0;
	rec->sb_evlist = evlist__new();
	if (!rec->sb_evlist)
		return -ENOMEM;
	for (i = 0; i < rec->opts.nr_sb_events; i++) {
		ret = parse_events(rec->sb_evlist, rec->opts.sb_events[i], &err);
		if (ret) {
			fprintf(stderr, "precord: --switch-output-event: %s\n", err.msg);
			return ret;
		}
	}
	/* perf's evlist__set_cb(): every record wakes the reader; a tracepoint samples each hit */
	evlist__for_each_evsel(rec->sb_evlist, evsel, i) {
		struct perf_event_attr *attr = &evsel->attr;

		attr->size = sizeof(*attr);
		attr->sample_id_all = 1;
		attr->watermark = 1;
		attr->wakeup_watermark = 1;
		attr->disabled = 0;
		if (evsel__is_tracepoint(evsel)) {
			attr->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
					     PERF_SAMPLE_PERIOD;
			attr->sample_period = 1;
			attr->freq = 0;
		}
	}
	return 0;
}

/*
 * Open and map the side-band events where perf's side-band thread opens
 * them: on the -p/-t tasks when given, else on every CPU recorded (every
 * online CPU for a workload), for any task; and an epoll descriptor over
 * their rings for the wait loop.
 */
int record__sb_open(struct record *rec)
{
	struct evlist *sb = rec->sb_evlist;
	struct cpu_map *cpus = rec->evlist->cpus;
	struct thread_map *threads;
	struct epoll_event ev = { .events = EPOLLIN };
	struct evlist_open_error oerr;
	char msg[512];
	int i, err;

	if (!sb)
		return 0;
	cpus = cpus && !cpu_map__is_any(cpus) ? cpu_map__get(cpus) : cpu_map__new_online();
	threads = record__task_target(&rec->opts) ? thread_map__get(rec->evlist->threads) :
		  thread_map__new_dummy();
	if (!cpus || !threads) {
		cpu_map__put(cpus);
		thread_map__put(threads);
		return -ENOMEM;
	}
	evlist__set_maps(sb, cpus, threads);
	cpu_map__put(cpus);
	thread_map__put(threads);
	err = evlist__open_wq(sb, NULL, &oerr);
	if (err) {
		evlist__open_strerror(&oerr, msg, sizeof(msg));
		fprintf(stderr, "precord: --switch-output-event: %s\n", msg);
	}
	evlist_open_error__exit(&oerr);
	if (err)
		return err;
	err = evlist__mmap(sb, SB_RING_PAGES);
	if (err) {
		fprintf(stderr, "precord: cannot map the --switch-output-event rings: %s\n",
			strerror(-err));
		return err;
	}
	rec->sb_fd = epoll_create1(EPOLL_CLOEXEC);
	if (rec->sb_fd < 0)
		return -errno;
	for (i = 0; i < sb->nr_rings; i++) {
		if (!sb->rings[i].base)
			continue;
		ev.data.u32 = (u32)i;
		if (epoll_ctl(rec->sb_fd, EPOLL_CTL_ADD, sb->rings[i].fd, &ev) < 0)
			return -errno;
	}
	return 0;
}

static int sb_count(void *ctx, const void *data, size_t size)
{
	(*(u64 *)ctx)++;
	return 0;
}

/* Empty the side-band rings: whether anything was in them (an occurrence). */
bool record__sb_read(struct record *rec)
{
	struct evlist *sb = rec->sb_evlist;
	struct epoll_event ev[8];
	u64 records = 0;
	int i;

	if (!sb)
		return false;
	/* edge of the level-triggered epoll: consume the readiness */
	while (epoll_wait(rec->sb_fd, ev, 8, 0) == 8)
		;
	for (i = 0; i < sb->nr_rings; i++)
		if (sb->rings[i].base)
			ringbuf__read(&sb->rings[i], sb_count, &records);
	return records > 0;
}

void record__sb_close(struct record *rec)
{
	if (rec->sb_fd >= 0)
		close(rec->sb_fd);
	rec->sb_fd = -1;
	if (!rec->sb_evlist)
		return;
	evlist__munmap(rec->sb_evlist);
	evlist__close(rec->sb_evlist);
	evlist__delete(rec->sb_evlist);
	rec->sb_evlist = NULL;
}
