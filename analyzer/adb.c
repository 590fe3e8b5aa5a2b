/* Running the adb client with fork and exec (adb.h). */
#include "adb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define ADB_ARGS_MAX 32

/* The child: its fds in place, then exec; on failure it sends errno down
 * report_fd (closed on a successful exec) and exits 127. */
static void child(const struct adb *a, const char *const *args, int out_fd, int err_fd,
		  int report_fd)
{
	const char *argv[ADB_ARGS_MAX + 4];
	size_t n = 0, i;
	int e, devnull = open("/dev/null", O_RDONLY);

	argv[n++] = a->program;
	if (a->serial) {
		argv[n++] = "-s";
		argv[n++] = a->serial;
	}
	for (i = 0; args[i] && i < ADB_ARGS_MAX; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* Its own process group, so a timeout kills what adb started too. */
	setpgid(0, 0);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
		e = errno;
		goto fail;
	}
	execvp(a->program, (char *const *)argv);
	e = errno;
fail:
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Wait for pid at most timeout_s seconds; past that, kill its process
 * group and reap it. Returns 0, or -1 with errno set. */
static int wait_or_kill(pid_t pid, int timeout_s, int *wstatus, int *timed_out)
{
	struct timespec step = { 0, 5000000 }; /* 5 ms */
	long waited_ms = 0;
	pid_t r;

	*timed_out = 0;
	for (;;) {
		r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (waited_ms >= (long)timeout_s * 1000) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, wstatus, 0) < 0)
				if (errno != EINTR)
					return -1;
			return 0;
		}
		nanosleep(&step, NULL);
		waited_ms += 5;
	}
}

static int set_cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0 ? -1 : 0;
}

int adb_run(const struct adb *a, const char *const *args, int out_fd, struct adb_result *res)
{
	FILE *errf = tmpfile();
	int report[2], e = 0, wstatus, rc = 0, timed_out = 0;
	ssize_t got;
	size_t n;
	pid_t pid;

	if (!errf)
		return -errno;
	if (pipe(report) != 0) {
		rc = -errno;
		goto close_errf;
	}
	if (set_cloexec(report[0]) != 0 || set_cloexec(report[1]) != 0) {
		rc = -errno;
		goto close_pipe;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto close_pipe;
	}
	if (pid == 0)
		child(a, args, out_fd, fileno(errf), report[1]);
	close(report[1]);
	report[1] = -1;
	do
		got = read(report[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	if (wait_or_kill(pid, a->timeout_s > 0 ? a->timeout_s : ADB_DEFAULT_TIMEOUT_S, &wstatus,
			 &timed_out) != 0) {
		rc = -errno;
		goto close_pipe;
	}
	if (got == (ssize_t)sizeof(e)) {
		rc = -e;
		goto close_pipe;
	}
	if (timed_out) {
		res->status = ADB_TIMED_OUT;
		snprintf(res->err, sizeof(res->err), "adb did not answer within %d s",
			 a->timeout_s > 0 ? a->timeout_s : ADB_DEFAULT_TIMEOUT_S);
		goto close_pipe;
	}
	res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	rewind(errf);
	n = fread(res->err, 1, sizeof(res->err) - 1, errf);
	res->err[n] = '\0';
	while (n && (res->err[n - 1] == '\n' || res->err[n - 1] == '\r'))
		res->err[--n] = '\0';
close_pipe:
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
close_errf:
	fclose(errf);
	return rc;
}

int adb_capture(const struct adb *a, const char *const *args, char **out, size_t *len,
		struct adb_result *res)
{
	FILE *f = tmpfile();
	char *buf;
	long size;
	int rc;

	if (!f)
		return -errno;
	rc = adb_run(a, args, fileno(f), res);
	if (rc != 0)
		goto close_f;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
		rc = -errno;
		goto close_f;
	}
	rewind(f);
	buf = malloc((size_t)size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto close_f;
	}
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		rc = -EIO;
		goto close_f;
	}
	buf[size] = '\0';
	*out = buf;
	*len = (size_t)size;
close_f:
	fclose(f);
	return rc;
}
