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
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "record.h"

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
	/* The threads on the next files see no limit until record__arm_size(). */
	err = streams__switch(&rec->streams, next, rec->opts.overwrite, msg, sizeof(msg));
	rec->gen_start_bytes = __atomic_load_n(&rec->shared.bytes, __ATOMIC_RELAXED);
	/* a thread's signal that the files just left were full is answered */
	if (rec->shared.switch_fd >= 0 && read(rec->shared.switch_fd, &v, sizeof(v)) < 0)
		v = 0;	/* none was pending */
	if (err) {
		fprintf(stderr, "precord: %s; what was written since is in '%s'\n", msg, next);
		rec->write_error = err;
		return err;
	}
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
