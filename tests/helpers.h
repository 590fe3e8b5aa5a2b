/*
 * Shared test helpers: exit codes as meson reads them, failure reporting,
 * and a scratch directory per test.
 */
#ifndef LW_TESTS_HELPERS_H
#define LW_TESTS_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum t_result {
	T_PASS = 0,
	T_FAIL = 1,
	T_SKIP = 77,
};

/* Print a failure with its place and exit T_FAIL. */
#define T_FAILF(...)                                                          \
	do {                                                                  \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);               \
		fprintf(stderr, __VA_ARGS__);                                 \
		fputc('\n', stderr);                                          \
		exit(T_FAIL);                                                 \
	} while (0)

#define T_ASSERT(cond, ...)                                                   \
	do {                                                                  \
		if (!(cond))                                                  \
			T_FAILF("assertion failed: %s: %s", #cond,            \
				t_fmt(__VA_ARGS__));                          \
	} while (0)

static inline const char *t_fmt(const char *fmt, ...)
{
	static char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* A fresh directory under $TMPDIR (or /tmp); the caller removes it. */
static inline char *t_tmpdir(const char *tag)
{
	static char path[256];
	const char *base = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/lw-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(path))
		T_FAILF("mkdtemp %s: %s", path, strerror(errno));
	return path;
}

/* rm -rf of a scratch directory made by t_tmpdir (one level of files). */
static inline void t_rmdir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* Where t_grow() keeps what it allocates, reachable. */
static char *volatile t_held[64];
static unsigned t_held_count;

/* Allocate and touch bytes that stay reachable (so no allocation is
 * optimised away): a process whose memory grows, as a model's does. */
static inline void t_grow(size_t bytes)
{
	char *p = malloc(bytes);
	size_t i;

	if (!p)
		return;
	for (i = 0; i < bytes; i += 4096)
		p[i] = 1;
	t_held[t_held_count++ % 64] = p;
}

/* Sleep ms milliseconds, through signal interruptions. */
/* The file at path mapped read-only whole; *size its length. */
static inline void *t_map_file(const char *path, size_t *size)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "open %s: %s", path, strerror(errno));
	*size = (size_t)st.st_size;
	map = mmap(NULL, *size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap %s: %s", path, strerror(errno));
	close(fd);
	return map;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* fork(), with stdio flushed first so that the child does not print the
 * parent's buffered output again; fails the test if it cannot. */
static inline pid_t t_fork(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	T_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	return pid;
}

/* t_fork() with a pipe from the child to the parent: *fd is the write end
 * in the child (where it returns 0) and the read end in the parent. */
static inline pid_t t_fork_piped(int *fd)
{
	int fds[2];
	pid_t pid;

	T_ASSERT(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = t_fork();
	close(fds[pid == 0 ? 0 : 1]);
	*fd = fds[pid == 0 ? 1 : 0];
	return pid;
}

/* Entries of dir, not counting dot files. */
static inline int count_files(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	T_ASSERT(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Milliseconds since the epoch, already moved into the zone wanted, as
 * dumpsys ("2026-11-30 00:16:10.020", with_year) or logcat ("11-30
 * 00:16:10.020") print them: for the generators of device evidence. */
static inline void t_device_time(char *buf, size_t len, int64_t ms, int with_year)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	if (with_year)
		snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	else
		snprintf(buf, len, "%02d-%02d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* Seconds on CLOCK_MONOTONIC, for benchmarks. */
static inline double t_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run argv with stdout to out_path; the exit status (-1: by a signal, or
 * it could not be run) and, if maxrss_kb, the child's peak RSS. */
static inline int t_run_child(char *const argv[], const char *out_path, long *maxrss_kb)
{
	struct rusage ru;
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Open dir/name for writing, or fail. */
static inline FILE *t_create(const char *dir, const char *name)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	T_ASSERT(f != NULL, "cannot write %s: %s", path, strerror(errno));
	return f;
}

#endif
