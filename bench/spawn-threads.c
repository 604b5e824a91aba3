// SPDX-License-Identifier: GPL-2.0
/*
 * spawn-threads — a workload of many sleeping tasks, for the benchmarks of
 * what scales with the number of threads: /proc synthesis (one record per
 * task) and per-thread evlists (descriptors per task).
 *
 *   spawn-threads [-p PROCS] [-t THREADS] [-m MAPS] [-s SECONDS] [-r FILE] [-q]
 *
 * Starts PROCS processes (default 1) holding THREADS tasks in total
 * (default 100), each process's main thread included, spread as evenly as
 * possible; every thread then sleeps.  With -m, each process first maps
 * MAPS more executable mappings (the first page of its own executable,
 * each a separate line of /proc/PID/maps: same file offset, so the kernel
 * never merges two), for the cost of synthesizing one MMAP2 per mapping.
 * When all of them exist it prints one line, "ready procs=P threads=T
 * pids=PID,PID,...", and writes the same line to FILE when -r is given
 * (written to FILE.tmp, then renamed, so a script polling for FILE never
 * reads half a line).  It stays until SECONDS have passed (default: until
 * a signal), then kills and reaps its processes.  Threads get 64 KiB
 * stacks, so 10 000 of them cost well under 1 GB.  Children die with the
 * parent (PR_SET_PDEATHSIG).  Exit 0, or 1 with a message when a process
 * or thread could not be started.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define STACK_SIZE	(64 * 1024)

static volatile sig_atomic_t stop;	/* set by SIGINT/SIGTERM */

struct spawn_opts {
	int		procs;
	int		threads;
	int		maps;		/* extra executable mappings per process */
	int		seconds;	/* 0: until a signal */
	const char	*ready_file;
	int		quiet;
};

static void on_signal(int sig)
{
	stop = 1;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* maps executable mappings of the first page of this program; 0 or -errno. */
static int map_exec_pages(int maps)
{
	long page = sysconf(_SC_PAGESIZE);
	int i, fd, err = 0;

	if (!maps)
		return 0;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < maps && !err; i++)
		if (mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			err = -errno;
	close(fd);
	return err;
}

/* Child: map, start nr - 1 threads, report on fd, then sleep until killed. */
static void child__run(int nr, int maps, int fd)
{
	pthread_attr_t attr;
	pthread_t t;
	char ok = 1;
	int i, err = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);	/* the parent is already gone */
	err = map_exec_pages(maps);
	if (err) {
		fprintf(stderr, "spawn-threads: cannot map %d executable pages: %s; "
			"check /proc/sys/vm/max_map_count\n", maps, strerror(-err));
		ok = 0;
		if (write(fd, &ok, 1) != 1)
			_exit(1);
		_exit(1);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 1; i < nr && !err; i++)
		err = pthread_create(&t, &attr, sleeper, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "spawn-threads: cannot create thread %d of %d: %s; "
			"check ulimit -u and /proc/sys/kernel/threads-max\n", i, nr, strerror(err));
		ok = 0;
	}
	if (write(fd, &ok, 1) != 1)
		_exit(1);
	close(fd);
	if (!ok)
		_exit(1);
	sleeper(NULL);
}

static int usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: spawn-threads [-p PROCS] [-t THREADS] [-m MAPS] [-s SECONDS] [-r FILE] [-q]\n"
		"  -p PROCS    processes to start (default 1)\n"
		"  -t THREADS  tasks in total, main threads included (default 100)\n"
		"  -m MAPS     extra executable mappings in each process (default 0)\n"
		"  -s SECONDS  exit after this long (default: at SIGINT/SIGTERM)\n"
		"  -r FILE     write the ready line to FILE as well\n"
		"  -q          do not print the ready line on stdout\n");
	return status;
}

static int parse_opts(int argc, char **argv, struct spawn_opts *o)
{
	int c;

	*o = (struct spawn_opts){ .procs = 1, .threads = 100 };
	if (argc > 1 && !strcmp(argv[1], "--help"))
		exit(usage(0));
	while ((c = getopt(argc, argv, "p:t:m:s:r:qh")) != -1) {
		switch (c) {
		case 'p': o->procs = atoi(optarg); break;
		case 't': o->threads = atoi(optarg); break;
		case 'm': o->maps = atoi(optarg); break;
		case 's': o->seconds = atoi(optarg); break;
		case 'r': o->ready_file = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': exit(usage(0));
		default: return -EINVAL;
		}
	}
	if (optind != argc || o->procs < 1 || o->threads < o->procs || o->maps < 0 ||
	    o->seconds < 0)
		return -EINVAL;
	return 0;
}

/* Fork the processes; each reports one byte on the pipe once its threads run. */
static int spawn(const struct spawn_opts *o, pid_t *pids)
{
	int fds[2], i, ok = 1;
	char c;

	if (pipe(fds))
		return -errno;
	for (i = 0; i < o->procs; i++) {
		int nr = o->threads / o->procs + (i < o->threads % o->procs);

		pids[i] = fork();
		if (pids[i] < 0) {
			fprintf(stderr, "spawn-threads: cannot fork process %d: %s\n", i, strerror(errno));
			ok = 0;
			break;
		}
		if (pids[i] == 0) {
			close(fds[0]);
			child__run(nr, o->maps, fds[1]);
		}
	}
	close(fds[1]);
	for (int j = 0; j < i; j++)
		if (read(fds[0], &c, 1) != 1 || !c)
			ok = 0;
	close(fds[0]);
	return ok ? 0 : -EAGAIN;
}

static void kill_all(const pid_t *pids, int nr)
{
	for (int i = 0; i < nr; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < nr; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

static int announce(const struct spawn_opts *o, const pid_t *pids)
{
	size_t size = 64 + (size_t)o->procs * 12, len;
	char *line = malloc(size), tmp[4096];
	FILE *f;
	int i;

	if (!line)
		return -ENOMEM;
	len = (size_t)snprintf(line, size, "ready procs=%d threads=%d pids=", o->procs, o->threads);
	for (i = 0; i < o->procs; i++)
		len += (size_t)snprintf(line + len, size - len, "%s%d", i ? "," : "", pids[i]);
	if (!o->quiet) {
		printf("%s\n", line);
		fflush(stdout);
	}
	if (o->ready_file) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", o->ready_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f) || rename(tmp, o->ready_file)) {
			fprintf(stderr, "spawn-threads: cannot write '%s': %s\n", o->ready_file,
				strerror(errno));
			free(line);
			return -EIO;
		}
	}
	free(line);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct spawn_opts o;
	pid_t *pids;
	time_t end;
	int err;

	if (parse_opts(argc, argv, &o))
		return usage(2);
	pids = calloc((size_t)o.procs, sizeof(*pids));
	if (!pids)
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = spawn(&o, pids);
	if (!err)
		err = announce(&o, pids);
	end = time(NULL) + o.seconds;
	while (!err && !stop && (!o.seconds || time(NULL) < end))
		sleep(1);
	kill_all(pids, o.procs);
	free(pids);
	return err ? 1 : 0;
}
