/*
 * A forked child never writes its parent's ring, and does not keep its
 * lock. The test process opens a probe, installs the crash handler, sets a
 * candidate and begins a stage, then forks:
 *   - a child that calls every function on the inherited probe: each
 *     returns -ECHILD and writes nothing (lw_close() too, which releases the
 *     child's copy), after which the child opens a probe of its own;
 *   - a child that crashes by SIGSEGV: it dies by it, and the parent's ring
 *     holds no crash record;
 * and the parent's ring is unchanged by both: same head, state RUNNING, no
 * crash signal, same flags, open stages and candidate; the parent's own
 * calls still work.
 *   - a process that opens a probe, forks a child that sleeps, and dies by
 *     SIGKILL: its ring is not held by anyone while the child still lives
 *     (flock), so a reader sees a dead run.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define PROCESS "com.fork:inference"

static const char *g_dir;

static struct lw_config config(void)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 64,
		.sampler_period_ms = 5, /* a thread the child does not have */
	};

	return cfg;
}

/* What the parent's ring says, to compare before and after a child. */
struct seen {
	uint64_t head;
	uint32_t state, crash_signo, flags, last_stage, open_load;
	uint64_t candidate;
};

static struct seen look(const char *path)
{
	struct lw_ring_header h;
	struct seen s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	T_ASSERT(fd >= 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "read %s", path);
	close(fd);
	memset(&s, 0, sizeof(s));
	s.head = h.head;
	s.state = h.state;
	s.crash_signo = h.crash_signo;
	s.flags = h.flags;
	s.last_stage = h.last_stage;
	s.open_load = h.open_count[LW_STAGE_LOAD];
	s.candidate = h.candidate;
	return s;
}

static void same(const char *what, const struct seen *a, const struct seen *b)
{
	T_ASSERT(a->head == b->head, "%s: head %llu -> %llu: the child wrote records", what,
		 (unsigned long long)a->head, (unsigned long long)b->head);
	T_ASSERT(b->state == LW_STATE_RUNNING && b->crash_signo == 0,
		 "%s: state %u, crash signal %u: the child marked the parent's run", what,
		 b->state, b->crash_signo);
	T_ASSERT(a->flags == b->flags && a->last_stage == b->last_stage &&
		 a->open_load == b->open_load && a->candidate == b->candidate,
		 "%s: header flags, stages or candidate changed", what);
}

#define CHILD_EXPECT(call, want)                                                        \
	do {                                                                             \
		int got_ = (call);                                                       \
		if (got_ != (want)) {                                                    \
			fprintf(stderr, "child: %s returned %d, expected %d\n", #call, got_, \
				(want));                                                 \
			_exit(10);                                                       \
		}                                                                        \
	} while (0)

/* Every call on the inherited probe fails with -ECHILD; then a probe of
 * the child's own works. */
static void child_calls(struct lw *lw)
{
	struct lw_config cfg = config();
	struct lw_advice adv;
	struct lw_info info;
	struct lw *own;

	CHILD_EXPECT(lw_stage_begin(lw, LW_STAGE_INFERENCE), -ECHILD);
	CHILD_EXPECT(lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE), -ECHILD);
	CHILD_EXPECT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 3), -ECHILD);
	CHILD_EXPECT(lw_candidate(lw, "child-model"), -ECHILD);
	CHILD_EXPECT(lw_memory_sample(lw), -ECHILD);
	CHILD_EXPECT(lw_sync(lw), -ECHILD);
	CHILD_EXPECT(lw_advice(lw, &adv), -ECHILD);
	CHILD_EXPECT(lw_advice_reset(lw), -ECHILD);
	CHILD_EXPECT(lw_info(lw, &info), -ECHILD);
	CHILD_EXPECT(lw_crash_uninstall(lw), -ECHILD);
	CHILD_EXPECT(lw_crash_install(lw), -ECHILD);
	CHILD_EXPECT(lw_open(&cfg, &own), -EBUSY); /* the inherited one is still open here */
	CHILD_EXPECT(lw_close(lw), -ECHILD);
	/* Released: the child may open its own run, crash handler included. */
	CHILD_EXPECT(lw_open(&cfg, &own), 0);
	CHILD_EXPECT(lw_crash_install(own), 0);
	CHILD_EXPECT(lw_mark(own, LW_MARK_QUEUE_DEPTH, 1), 0);
	CHILD_EXPECT(lw_info(own, &info), 0);
	CHILD_EXPECT(lw_close(own), 0);
	CHILD_EXPECT(unlink(info.path), 0);
	_exit(0);
}

static void child_crashes(void)
{
	struct rlimit no_core = { 0, 0 };
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	setrlimit(RLIMIT_CORE, &no_core);
	if (p == MAP_FAILED || munmap(p, 4096) != 0)
		_exit(3);
	*(volatile int *)p = 1;
	_exit(4);
}

static int fork_child(struct lw *lw, int crash)
{
	int status;
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		if (crash)
			child_crashes();
		child_calls(lw);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	return status;
}

static void calls_and_crash(void)
{
	struct lw_config cfg = config();
	struct lw_info info;
	struct seen before, after;
	struct lw *lw;
	int status;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "lw_open");
	T_ASSERT(lw_crash_install(lw) == 0 && lw_candidate(lw, "parent-model") == 0 &&
		 lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "parent's events");
	before = look(info.path);

	status = fork_child(lw, 0);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the child using the inherited probe: status 0x%x", status);
	after = look(info.path);
	same("after a child used the inherited probe", &before, &after);

	status = fork_child(lw, 1);
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		 "the crashing child: status 0x%x, expected death by SIGSEGV", status);
	after = look(info.path);
	same("after a child crashed", &before, &after);

	T_ASSERT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 1) == 0, "the parent's lw_mark after the forks");
	T_ASSERT(lw_close(lw) == 0, "the parent's lw_close");
	after = look(info.path);
	T_ASSERT(after.state == LW_STATE_CLEAN_EXIT, "the parent's run: state %u", after.state);
	T_ASSERT(unlink(info.path) == 0, "unlink");
}

/* A run whose process died while its forked child lives on is dead. */
static void lock_not_inherited(void)
{
	char path[sizeof(((struct lw_info *)0)->path)];
	int pipe_fd, status, fd;
	pid_t pid, child;

	T_ASSERT(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "prctl: %s", strerror(errno));
	pid = t_fork_piped(&pipe_fd);
	if (pid == 0) {
		struct lw_config cfg = config();
		struct lw_info info;
		struct lw *lw;
		int ready[2];
		pid_t c;
		char b;

		if (lw_open(&cfg, &lw) != 0 || lw_info(lw, &info) != 0 || pipe(ready) != 0)
			_exit(2);
		c = fork();
		if (c == 0) {
			/* fork() has returned: the fork handler has closed our copy. */
			close(pipe_fd);
			if (write(ready[1], "r", 1) != 1)
				_exit(2);
			for (;;)
				pause();
		}
		/* The run dies only once the child is past fork(): until then the
		 * child still holds the descriptor, whatever the probe does. */
		if (c < 0 || read(ready[0], &b, 1) != 1 ||
		    write(pipe_fd, info.path, sizeof(info.path)) != (ssize_t)sizeof(info.path) ||
		    write(pipe_fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
			_exit(2);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	T_ASSERT(read(pipe_fd, path, sizeof(path)) == (ssize_t)sizeof(path) &&
		 read(pipe_fd, &child, sizeof(child)) == (ssize_t)sizeof(child), "no word from the run");
	close(pipe_fd);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
		 WTERMSIG(status) == SIGKILL, "the run: status 0x%x", status);
	T_ASSERT(kill(child, 0) == 0, "the forked child is gone");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0, "open %s", path);
	T_ASSERT(flock(fd, LOCK_SH | LOCK_NB) == 0,
		 "the dead run's file is still locked (%s) while its forked child lives: it "
		 "looks live", strerror(errno));
	close(fd);
	kill(child, SIGKILL);
	T_ASSERT(waitpid(child, &status, 0) == child, "reap the orphan: %s", strerror(errno));
	T_ASSERT(unlink(path) == 0, "unlink");
}

int main(void)
{
	g_dir = strdup(t_tmpdir("fork"));
	calls_and_crash();
	lock_not_inherited();
	t_rmdir(g_dir);
	free((void *)g_dir);
	printf("fork: a child's calls return -ECHILD and write nothing, its crash is not "
	       "recorded, it does not keep the lock\n");
	return T_PASS;
}
