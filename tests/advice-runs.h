/*
 * Runs that die, for the advice tests: a forked child opens a run of one
 * process in one directory, sets a candidate, begins a stage and dies
 * (SIGKILL, or SIGSEGV through the crash handler).
 */
#ifndef LW_TESTS_ADVICE_RUNS_H
#define LW_TESTS_ADVICE_RUNS_H

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "helpers.h"

#include <lastwords/probe.h>

enum death { DIE_KILL, DIE_CRASH };

/* One dying run. hook, if set, runs in the child after the candidate (and
 * the crash handler) are set and before the stage begins; it returns 0, or
 * non-zero to fail the run. */
struct dying {
	struct lw_config cfg;
	const char *cand;
	enum lw_stage stage;
	enum death how;
	int (*hook)(struct lw *lw, void *arg);
	void *arg;
};

static inline void die_now(enum death how)
{
	if (how == DIE_CRASH) {
		struct rlimit no_core = { 0, 0 };
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		setrlimit(RLIMIT_CORE, &no_core); /* no core file for a planned crash */
		if (p == MAP_FAILED || munmap(p, 4096) != 0)
			_exit(3);
		*(volatile int *)p = 1;
	}
	kill(getpid(), SIGKILL);
	_exit(4);
}

/* Fork the run of d and wait for it to die as planned. */
static inline void dying_run_of(const struct dying *d)
{
	int status, want = d->how == DIE_CRASH ? SIGSEGV : SIGKILL;
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		struct lw *lw;

		if (lw_open(&d->cfg, &lw) != 0 || lw_candidate(lw, d->cand) != 0)
			_exit(2);
		if (d->how == DIE_CRASH && lw_crash_install(lw) != 0)
			_exit(2);
		if (d->hook && d->hook(lw, d->arg) != 0)
			_exit(2);
		if (lw_stage_begin(lw, d->stage) != 0)
			_exit(2);
		die_now(d->how);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == want,
		 "run (%s, %s) ended with status 0x%x, expected death by signal %d", d->cand,
		 lw_stage_name(d->stage), status, want);
	sleep_ms(3); /* run names carry milliseconds: keep them in order */
}

#endif
