/*
 * peak-rss FILE COMMAND [ARG...]: run COMMAND and write to FILE its peak
 * RSS (KiB, from wait4) and its exit status, or minus the signal that
 * ended it, as Python's os.waitstatus_to_exitcode() gives it: "23508 0".
 * Exits with its status, or 128 + the signal.
 *
 * tests/helpers.py's run_bounded() measures through this. A child that
 * the Python test forks directly starts with the test's own high-water
 * mark: Linux copies it at fork and keeps it across exec (sig->maxrss), so
 * a test that had read a large output would measure itself. This small
 * program's mark is under a MiB, and its child's is the command's own.
 * The child dies with it (PR_SET_PDEATHSIG), so a test that kills this
 * program at its deadline kills the command too.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	struct sigaction sa;
	int status;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: peak-rss FILE COMMAND [ARG...]\n");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("peak-rss: fork");
		return 2;
	}
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "peak-rss: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (wait4(child, &status, 0, &ru) < 0)
		;
	f = fopen(argv[1], "w");
	if (!f ||
	    fprintf(f, "%ld %d\n", ru.ru_maxrss,
		    WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status)) < 0 ||
	    fclose(f) != 0) {
		perror("peak-rss: the result file");
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
