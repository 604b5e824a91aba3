// SPDX-License-Identifier: GPL-2.0
/*
 * threadmap.c — refcounted lists of thread ids to monitor.
 *
 * A map is one allocation (header and ids), immutable once built; only the
 * refcount changes after that, with atomics, so any thread may hold one.
 * Maps come from -p (every task of each process, read from /proc/PID/task
 * once, at the time of the call: threads started later are followed by the
 * kernel through inheritance, not by this map), from -u (the same for every
 * process the user owns then), from -t (the threads named, each checked to
 * be alive), or from explicit ids. Runs on the setting-up
 * thread. Limits: ids are positive ints; a thread that exits between the
 * check and the open is the opener's error to report.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "precord/threadmap.h"
#include "precord/util.h"

/* A growable array of ids, used while building a map. */
struct tid_vec {
	pid_t	*ids;
	int	nr;
	int	alloc;
};

static int tid_vec__push(struct tid_vec *v, pid_t id)
{
	if (v->nr == v->alloc) {
		int alloc = v->alloc ? v->alloc * 2 : 16;
		pid_t *ids = realloc(v->ids, alloc * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		v->ids = ids;
		v->alloc = alloc;
	}
	v->ids[v->nr++] = id;
	return 0;
}

static bool tid_vec__has(const struct tid_vec *v, pid_t id)
{
	int i;

	for (i = 0; i < v->nr; i++) {
		if (v->ids[i] == id)
			return true;
	}
	return false;
}

static struct thread_map *thread_map__alloc(int nr)
{
	struct thread_map *map;

	map = malloc(sizeof(*map) + (size_t)nr * sizeof(pid_t));
	if (!map)
		return NULL;
	map->refcnt = 1;
	map->nr = nr;
	return map;
}

struct thread_map *thread_map__new_from(const pid_t *tids, int nr)
{
	struct thread_map *map;

	if (nr < 0 || (nr > 0 && !tids))
		return NULL;
	map = thread_map__alloc(nr);
	if (map && nr)
		memcpy(map->map, tids, nr * sizeof(pid_t));
	return map;
}

struct thread_map *thread_map__new_dummy(void)
{
	pid_t any = -1;

	return thread_map__new_from(&any, 1);
}

static const char *skip_blanks(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* One positive decimal id; *endp past it and the blanks after it. */
static int parse_id(const char *s, const char **endp, pid_t *id)
{
	long long v = 0;

	s = skip_blanks(s);
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -EINVAL;
		s++;
	}
	*endp = skip_blanks(s);
	*id = (pid_t)v;
	return 0;
}

/* "12, 34" into v, in order, without duplicates; 0, -EINVAL or -ENOMEM. */
static int id_list__parse(const char *list, struct tid_vec *v)
{
	const char *s = list;
	pid_t id;
	int err;

	if (!list || !*skip_blanks(list))
		return -EINVAL;
	for (;;) {
		err = parse_id(s, &s, &id);
		if (err)
			return err;
		if (!tid_vec__has(v, id)) {
			err = tid_vec__push(v, id);
			if (err)
				return err;
		}
		if (*s == '\0')
			return 0;
		if (*s != ',')
			return -EINVAL;
		s = skip_blanks(s + 1);
		if (*s == '\0')		/* one trailing comma */
			return 0;
	}
}

int thread_map__check_list(const char *list)
{
	struct tid_vec v = { 0 };
	int err = id_list__parse(list, &v);

	free(v.ids);
	return err;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t pa = *(const pid_t *)a, pb = *(const pid_t *)b;

	return (pa > pb) - (pa < pb);
}

/* Append every task of process pid; -ESRCH when it does not exist. */
static int tid_vec__add_tasks(struct tid_vec *v, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && (de = readdir(dir)) != NULL) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end || tid <= 0)
			continue;
		err = tid_vec__push(v, (pid_t)tid);
	}
	closedir(dir);
	return err;
}

/* Sort and drop duplicates (a pid and one of its threads both given). */
static void tid_vec__sort_unique(struct tid_vec *v)
{
	int i, j = 0;

	if (v->nr < 2)
		return;	/* nothing to sort, and qsort() must not see an empty vector's NULL */
	qsort(v->ids, v->nr, sizeof(pid_t), cmp_pid);
	for (i = 0; i < v->nr; i++) {
		if (i == 0 || v->ids[i] != v->ids[j - 1])
			v->ids[j++] = v->ids[i];
	}
	v->nr = j;
}

static int tid_vec__to_map(struct tid_vec *v, struct thread_map **mapp)
{
	*mapp = thread_map__new_from(v->ids, v->nr);
	return *mapp ? 0 : -ENOMEM;
}

int thread_map__new_pids(const char *list, struct thread_map **mapp, pid_t *bad)
{
	struct tid_vec pids = { 0 }, tids = { 0 };
	int i, err;

	err = id_list__parse(list, &pids);
	for (i = 0; !err && i < pids.nr; i++) {
		err = tid_vec__add_tasks(&tids, pids.ids[i]);
		if (err == -ESRCH && bad)
			*bad = pids.ids[i];
	}
	if (!err) {
		tid_vec__sort_unique(&tids);
		err = tid_vec__to_map(&tids, mapp);
	}
	free(tids.ids);
	free(pids.ids);
	return err;
}

/*
 * Whether /proc/NAME is a process of uid (perf's test: the owner of the
 * directory, which is the task's effective uid).
 */
static bool proc__owned_by(const char *name, uid_t uid)
{
	char path[32 + NAME_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s", name);
	return stat(path, &st) == 0 && st.st_uid == uid;
}

int thread_map__new_by_uid(uid_t uid, struct thread_map **mapp)
{
	struct tid_vec tids = { 0 };
	struct dirent *de;
	DIR *proc = opendir("/proc");
	int err = 0;

	if (!proc)
		return -errno;
	while (!err && (de = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end || pid <= 0 ||
		    !proc__owned_by(de->d_name, uid))
			continue;
		err = tid_vec__add_tasks(&tids, (pid_t)pid);
		if (err == -ESRCH)
			err = 0;	/* gone since the listing */
	}
	closedir(proc);
	if (!err) {
		tid_vec__sort_unique(&tids);
		err = tid_vec__to_map(&tids, mapp);
	}
	free(tids.ids);
	return err;
}

/* The Tgid line of /proc/TID/status: 0, -ESRCH or -errno. */
static int tid__tgid(pid_t tid, pid_t *tgid)
{
	char path[64], line[256];
	FILE *f;
	int err = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (!parse__key_int(line, "Tgid", &v)) {
			*tgid = v;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* 0 if tid is a live thread, else -ESRCH (or -errno from /proc). */
static int tid__check_alive(pid_t tid)
{
	char path[64];
	pid_t tgid = 0;
	int err;

	err = tid__tgid(tid, &tgid);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	if (access(path, F_OK) == 0)
		return 0;
	return errno == ENOENT ? -ESRCH : -errno;
}

int thread_map__new_tids(const char *list, struct thread_map **mapp, pid_t *bad)
{
	struct tid_vec tids = { 0 };
	int i, err;

	err = id_list__parse(list, &tids);
	for (i = 0; !err && i < tids.nr; i++) {
		err = tid__check_alive(tids.ids[i]);
		if (err == -ESRCH && bad)
			*bad = tids.ids[i];
	}
	if (!err)
		err = tid_vec__to_map(&tids, mapp);
	free(tids.ids);
	return err;
}

struct thread_map *thread_map__get(struct thread_map *map)
{
	/* Relaxed: the caller holds a reference, the count cannot hit zero. */
	if (map)
		__atomic_fetch_add(&map->refcnt, 1, __ATOMIC_RELAXED);
	return map;
}

void thread_map__put(struct thread_map *map)
{
	/*
	 * Release orders this holder's reads before its drop; acquire on the
	 * last drop makes all of them happen before the free.
	 */
	if (map && __atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		free(map);
}

int thread_map__idx(const struct thread_map *map, pid_t tid)
{
	int i;

	for (i = 0; map && i < map->nr; i++) {
		if (map->map[i] == tid)
			return i;
	}
	return -1;
}
