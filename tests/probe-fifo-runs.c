/*
 * A FIFO named like a previous run does not block lw_open(): the probe
 * opens previous runs with O_NONBLOCK and skips whatever is not a regular
 * file, both where it reads them for advice (the newest names) and where it
 * rotates them away (the oldest). A symbolic link named like a run is
 * skipped too. None of them is removed: they are not the probe's.
 *
 * Each open runs in a forked child with an alarm, so that a blocked open
 * fails the test instead of hanging it.
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include <lastwords/probe.h>

#define PROCESS "com.fifo"
#define RUNS 4

static const char *const fifos[] = {
	"com.fifo.20000101T000000.000Z.1.lwr", /* oldest: rotation reaches it */
	"com.fifo.29991231T235959.999Z.1.lwr", /* newest: advice reads it first */
};
static const char *const link_name = "com.fifo.29991231T235959.998Z.2.lwr";

/* In a child: open and close one run with runs_kept = 1. */
static void one_run(const char *dir, int i)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = PROCESS,
		.slot_count = 16,
		.runs_kept = 1,
	};
	int status, rc;
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		struct lw *lw;

		alarm(10);
		rc = lw_open(&cfg, &lw);
		if (rc != 0)
			_exit(2);
		if (lw_stage_begin(lw, LW_STAGE_LOAD) != 0 || lw_close(lw) != 0)
			_exit(3);
		_exit(0);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	T_ASSERT(!(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
		 "run %d: lw_open blocked on a FIFO named like a previous run (10 s)", i);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d: child status 0x%x", i,
		 status);
	sleep_ms(3); /* the names carry milliseconds */
}

int main(void)
{
	char *dir = strdup(t_tmpdir("fifo-runs"));
	char path[600], target[600];
	struct stat st;
	size_t k;
	int i;

	for (k = 0; k < sizeof(fifos) / sizeof(fifos[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fifos[k]);
		T_ASSERT(mkfifo(path, 0600) == 0, "mkfifo %s: %s", path, strerror(errno));
	}
	snprintf(target, sizeof(target), "%s/%s", dir, fifos[1]);
	snprintf(path, sizeof(path), "%s/%s", dir, link_name);
	T_ASSERT(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));

	for (i = 0; i < RUNS; i++)
		one_run(dir, i);

	for (k = 0; k < sizeof(fifos) / sizeof(fifos[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fifos[k]);
		T_ASSERT(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO %s was removed",
			 fifos[k]);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, link_name);
	T_ASSERT(lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "the link %s was removed",
		 link_name);
	/* Two FIFOs, the link, and this process's two newest runs. */
	T_ASSERT(count_files(dir) == 5, "%d files left, expected 5", count_files(dir));
	t_rmdir(dir);
	free(dir);
	printf("fifo-runs: %d opens beside FIFOs and a link named like runs: none blocked, "
	       "none removed\n", RUNS);
	return T_PASS;
}
