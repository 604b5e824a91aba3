// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-fallback.c — perf's answers to an open the kernel refused: a
 * missing attr feature (dropped and tried again), a lower precise_ip,
 * excluding the kernel when perf_event_paranoid > 1, cycles replaced by
 * cpu-clock without a hardware PMU, a weak group split, a higher
 * RLIMIT_NOFILE for EMFILE; and the limits they read (sysctls,
 * capabilities, the open file count).
 *
 * Data flow: evlist__open_wq() (evlist-open.c) hands the first failure
 * of an open to evlist__fallback(), which changes the evsels' attrs or the
 * process's limits and says whether to open again. Runs on the calling
 * thread, with nothing open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "evlist-internal.h"

int evlist__read_sysctl(const char *name, int *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return file__read_int(path, 10, val);
}

int evlist__paranoid(void)
{
	int paranoid = 2;

	evlist__read_sysctl("perf_event_paranoid", &paranoid);
	return paranoid;
}

/* CAP_SYS_ADMIN or CAP_PERFMON in this process's effective set: no paranoid limit applies. */
bool evlist__has_perf_caps(void)
{
	u64 caps = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (!parse__key_u64(line, "CapEff", 16, &caps))
			break;
	fclose(f);
	return caps & (1ULL << 21 | 1ULL << 38);	/* CAP_SYS_ADMIN, CAP_PERFMON */
}

bool evlist__can_profile_kernel(void)
{
	return evlist__has_perf_caps() || evlist__paranoid() <= 1;
}

unsigned long evlist__count_open_files(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	unsigned long n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n ? n - 1 : 0;	/* not the directory's own fd */
}

/*
 * Raise the soft RLIMIT_NOFILE to what the evlist and `extra` more
 * descriptors need (raising the hard limit too when allowed, else up to
 * it), as perf record does on EMFILE.  0 when it went up, -EMFILE when it
 * cannot (it was that high already: an EMFILE is real).
 */
static int evlist__raise_nofile_extra(struct evlist *evlist, unsigned long extra,
				      unsigned long *need)
{
	struct rlimit rl;
	rlim_t want;

	*need = (unsigned long)evlist__nr_slots(evlist) + extra + evlist__count_open_files();
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= *need)
		return -EMFILE;
	if (rl.rlim_cur == RLIM_INFINITY)
		return -EMFILE;
	want = *need;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
		struct rlimit raised = { want, want };

		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			return 0;
		want = rl.rlim_max;
		if (want <= rl.rlim_cur)
			return -EMFILE;
	}
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}

static int evlist__raise_nofile(struct evlist *evlist, unsigned long *need)
{
	return evlist__raise_nofile_extra(evlist, 64, need);
}

int evlist__reserve_nofile(struct evlist *evlist, unsigned long extra, unsigned long *need)
{
	struct rlimit rl;
	int err;

	/*
	 * As perf: the soft limit up to the hard one first, so the threads,
	 * their files and the merge's never meet a limit the estimate missed.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = evlist__raise_nofile_extra(evlist, extra, need);
	if (err && err != -EMFILE)
		return err;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= *need ? 0 : -EMFILE;
}

/*
 * Attr features of newer kernels, newest first: an EINVAL on the first
 * descriptor of an evsel that uses one means this kernel lacks it, so it is
 * switched off on every evsel, one feature per retry (perf's
 * evsel__detect_missing_features()).
 */
struct attr_feature {
	unsigned int	bit;
	bool		(*has)(const struct perf_event_attr *attr);
	void		(*clear)(struct perf_event_attr *attr);
};

static bool attr__has_read_lost(const struct perf_event_attr *a) { return a->read_format & PERF_FORMAT_LOST; }
static void attr__clear_read_lost(struct perf_event_attr *a) { a->read_format &= ~(u64)PERF_FORMAT_LOST; }
static bool attr__has_weight_struct(const struct perf_event_attr *a) { return a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT; }
static void attr__clear_weight_struct(struct perf_event_attr *a)
{
	if (!attr__has_weight_struct(a))
		return;
	a->sample_type &= ~(u64)PERF_SAMPLE_WEIGHT_STRUCT;
	a->sample_type |= PERF_SAMPLE_WEIGHT;
}
static bool attr__has_build_id(const struct perf_event_attr *a) { return a->build_id; }
static void attr__clear_build_id(struct perf_event_attr *a) { a->build_id = 0; }
static bool attr__has_ksymbol(const struct perf_event_attr *a) { return a->ksymbol || a->bpf_event; }
static void attr__clear_ksymbol(struct perf_event_attr *a) { a->ksymbol = 0; a->bpf_event = 0; }
static bool attr__has_switch(const struct perf_event_attr *a) { return a->context_switch; }
static void attr__clear_switch(struct perf_event_attr *a) { a->context_switch = 0; }
static bool attr__has_clockid(const struct perf_event_attr *a) { return a->use_clockid; }
static void attr__clear_clockid(struct perf_event_attr *a) { a->use_clockid = 0; a->clockid = 0; }
static bool attr__has_mmap2(const struct perf_event_attr *a) { return a->mmap2; }
static void attr__clear_mmap2(struct perf_event_attr *a) { a->mmap2 = 0; a->mmap = 1; }
static bool attr__has_comm_exec(const struct perf_event_attr *a) { return a->comm_exec; }
static void attr__clear_comm_exec(struct perf_event_attr *a) { a->comm_exec = 0; }
static bool attr__has_exclude_guest(const struct perf_event_attr *a) { return a->exclude_guest || a->exclude_host; }
static void attr__clear_exclude_guest(struct perf_event_attr *a) { a->exclude_guest = 0; a->exclude_host = 0; }
static bool attr__has_sample_id_all(const struct perf_event_attr *a) { return a->sample_id_all; }
static void attr__clear_sample_id_all(struct perf_event_attr *a) { a->sample_id_all = 0; }

static const struct attr_feature attr_features[] = {
	{ EVLIST_FALLBACK_READ_LOST,	 attr__has_read_lost,	  attr__clear_read_lost },
	{ EVLIST_FALLBACK_WEIGHT_STRUCT, attr__has_weight_struct, attr__clear_weight_struct },
	{ EVLIST_FALLBACK_BUILD_ID,	 attr__has_build_id,	  attr__clear_build_id },
	{ EVLIST_FALLBACK_KSYMBOL,	 attr__has_ksymbol,	  attr__clear_ksymbol },
	{ EVLIST_FALLBACK_CONTEXT_SWITCH, attr__has_switch,	  attr__clear_switch },
	{ EVLIST_FALLBACK_CLOCKID,	 attr__has_clockid,	  attr__clear_clockid },
	{ EVLIST_FALLBACK_MMAP2,	 attr__has_mmap2,	  attr__clear_mmap2 },
	{ EVLIST_FALLBACK_COMM_EXEC,	 attr__has_comm_exec,	  attr__clear_comm_exec },
	{ EVLIST_FALLBACK_EXCLUDE_GUEST, attr__has_exclude_guest, attr__clear_exclude_guest },
	{ EVLIST_FALLBACK_SAMPLE_ID_ALL, attr__has_sample_id_all, attr__clear_sample_id_all },
};

static bool evlist__drop_missing_feature(struct evlist *evlist, struct evlist_open_error *oerr)
{
	size_t f;
	int i;

	for (f = 0; f < ARRAY_SIZE(attr_features); f++) {
		const struct attr_feature *feat = &attr_features[f];

		if ((oerr->fallbacks & feat->bit) || !feat->has(&oerr->evsel->attr))
			continue;
		for (i = 0; i < evlist->nr_entries; i++)
			feat->clear(&evlist->entries[i]->attr);
		oerr->fallbacks |= feat->bit;
		return true;
	}
	return false;
}

/*
 * A thread of a -p process that exited between the /proc read and its open
 * (ESRCH): leave it out and go on with the others, as perf record does for
 * -p (its ignore_missing_thread). Not when it was the only one.
 */
static bool evlist__drop_thread(struct evlist *evlist, pid_t tid)
{
	struct thread_map *old = evlist->threads, *nt;
	pid_t *keep;
	int i, n = 0;

	if (!old || old->nr < 2 || tid <= 0 || thread_map__idx(old, tid) < 0)
		return false;
	keep = malloc(sizeof(*keep) * (size_t)old->nr);
	if (!keep)
		return false;
	for (i = 0; i < old->nr; i++)
		if (old->map[i] != tid)
			keep[n++] = old->map[i];
	nt = thread_map__new_from(keep, n);
	free(keep);
	if (!nt)
		return false;
	evlist__set_maps(evlist, evlist->cpus, nt);
	thread_map__put(nt);
	free(evlist->thread_cpus);	/* indexed by the old map */
	evlist->thread_cpus = NULL;
	return true;
}

/* ":P": one step less precise (perf's evsel__precise_ip_fallback()). */
static bool evsel__lower_precise(struct evsel *evsel)
{
	if (!evsel->precise_max || !evsel->attr.precise_ip)
		return false;
	evsel->attr.precise_ip--;
	return true;
}

/* paranoid > 1 forbids the kernel: count user space only, named "…:u" (perf's evsel__fallback()). */
static bool evsel__exclude_kernel(struct evsel *evsel)
{
	const char *sep = strchr(evsel->name, ':') || strchr(evsel->name, '/') ? "" : ":";
	char *name;

	/* CAP_PERFMON is not bound by paranoid, and a tracepoint is the kernel's: no fallback */
	if (evsel->attr.exclude_kernel || evsel->attr.exclude_user || evlist__can_profile_kernel() ||
	    evsel->attr.type == PERF_TYPE_TRACEPOINT)
		return false;
	if (asprintf(&name, "%s%su", evsel->name, sep) < 0)
		return false;
	free(evsel->name);
	evsel->name = name;
	evsel->attr.exclude_kernel = 1;
	evsel->attr.exclude_hv = 1;
	return true;
}

/*
 * cycles where no PMU counts it: the cpu-clock timer instead, named from
 * the attr as perf names it then ("cpu-clock", "cpu-clock:uH" for
 * cycles:u), whatever the event was called (perf's evsel__fallback()).
 */
static bool evsel__fallback_cycles(struct evsel *evsel, int err)
{
	char suffix[24], *name;

	if ((err != -ENOENT && err != -ENXIO && err != -ENODEV) ||
	    evsel->attr.type != PERF_TYPE_HARDWARE || evsel->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	evsel->attr.type = PERF_TYPE_SOFTWARE;
	evsel->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	evsel__mod_suffix(&evsel->attr, suffix, sizeof(suffix));
	if (asprintf(&name, "cpu-clock%s", suffix) >= 0) {
		free(evsel->name);
		evsel->name = name;
	}
	return true;
}

/*
 * ":W": a group the kernel refuses (EINVAL, EBADF on a member) is opened
 * as separate events instead (perf's evlist__reset_weak_group()). perf
 * 6.1 first tries dropping attr features for the EINVAL, which strips
 * sample_id_all and more before it splits the group; here the split comes
 * first.
 */
static bool evlist__split_weak_group(struct evlist *evlist, struct evsel *evsel, int err)
{
	struct evsel *leader = evsel->leader, *e;
	int i;

	if ((err != -EINVAL && err != -EBADF) || !leader || leader == evsel || !evsel->weak_group)
		return false;
	evlist__for_each_evsel(evlist, e, i) {
		if (e->leader == leader) {
			e->leader = e;
			e->nr_members = 1;
		}
	}
	return true;
}

/*
 * On the calling thread, after a failed open: change something and retry,
 * or not.  first_fd: the failing evsel had no descriptor open anywhere, so
 * an EINVAL is about its attr, not about one CPU or thread (perf asks for
 * a failure on the first CPU and thread; the parallel open has no order).
 */
bool evlist__fallback(struct evlist *evlist, struct evlist_open_error *oerr,
		      bool first_fd)
{
	struct evsel *evsel = oerr->evsel;
	int err = oerr->err;

	if (!evsel)
		return false;
	if (evsel__fallback_cycles(evsel, err)) {
		oerr->fallbacks |= EVLIST_FALLBACK_CYCLES;
		return true;
	}
	if (evlist__split_weak_group(evlist, evsel, err)) {
		oerr->fallbacks |= EVLIST_FALLBACK_WEAK_GROUP;
		return true;
	}
	if (evsel__lower_precise(evsel)) {
		oerr->fallbacks |= EVLIST_FALLBACK_PRECISE_IP;
		return true;
	}
	if (err == -EMFILE) {
		if (evlist__raise_nofile(evlist, &oerr->nofile_need) || (oerr->fallbacks & EVLIST_FALLBACK_NOFILE))
			return false;
		oerr->fallbacks |= EVLIST_FALLBACK_NOFILE;
		return true;
	}
	if (err == -EINVAL && first_fd && evlist__drop_missing_feature(evlist, oerr))
		return true;
	if (err == -ESRCH && evlist__drop_thread(evlist, oerr->tid)) {
		oerr->fallbacks |= EVLIST_FALLBACK_MISSING_THREAD;
		oerr->nr_missing++;
		return true;
	}
	if ((err == -EACCES || err == -EPERM) && evsel__exclude_kernel(evsel)) {
		oerr->fallbacks |= EVLIST_FALLBACK_EXCLUDE_KERNEL;
		return true;
	}
	return false;
}
