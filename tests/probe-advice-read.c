/*
 * lw_advice_read(): another process's advice, read from its ring files.
 *
 * - Clear return codes: bad arguments, a missing directory, a file given as
 *   the directory, no runs, another process's runs only, a FIFO named like
 *   a run (it must not block), a run that cannot be opened (mode 0, unless
 *   root), a run whose header fails the format's rules.
 * - While a forked writer records events without pause (lapping its ring),
 *   2000 reads never fail, never take long, never allocate, and each gives
 *   the advice of the two dead runs; so does lw_open() in a child made
 *   meanwhile. After the writer is killed in inference, the read agrees
 *   with lw_advice() of the next open.
 * Allocations are counted through -Wl,--wrap (tests/meson.build).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "advice-runs.h"
#include "alloc-count.h"

#define PROCESS "com.read:inference"
#define READS 2000

static const char *g_dir;

static struct lw_config config(void)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 32,
		.runs_kept = 64,
		.app_version = 9,
	};

	return cfg;
}

static int same(const struct lw_advice *a, const struct lw_advice *b)
{
	return a->kind == b->kind && a->stage == b->stage && a->count == b->count &&
	       a->candidate == b->candidate && a->stable_candidate == b->stable_candidate;
}

static void expect_rc(const char *what, const char *dir, const char *process, int want)
{
	struct lw_advice a;
	int rc = lw_advice_read(dir, process, &a);

	T_ASSERT(rc == want, "%s: lw_advice_read returned %d (%s), expected %d (%s)", what, rc,
		 strerror(-rc), want, strerror(-want));
}

/* A file in dir, named like a run of PROCESS; returns its path. */
static const char *run_path(const char *dir, const char *pid)
{
	return t_fmt("%s/%s.20261201T000000.000Z.%s.lwr", dir, PROCESS, pid);
}

static void errors(void)
{
	const char *d = strdup(t_tmpdir("advice-read-errors"));
	struct lw_advice a;
	int fd;

	T_ASSERT(lw_advice_read(NULL, PROCESS, &a) == -EINVAL, "dir NULL");
	T_ASSERT(lw_advice_read(d, NULL, &a) == -EINVAL, "process NULL");
	T_ASSERT(lw_advice_read(d, "", &a) == -EINVAL, "process empty");
	T_ASSERT(lw_advice_read(d, PROCESS, NULL) == -EINVAL, "out NULL");
	expect_rc("missing directory", t_fmt("%s/none", d), PROCESS, -ENOENT);
	expect_rc("empty directory", d, PROCESS, -ENODATA);
	T_ASSERT(mkfifo(run_path(d, "1"), 0600) == 0, "mkfifo");
	expect_rc("a FIFO named like a run", d, PROCESS, -ENODATA);
	expect_rc("a file as the directory", run_path(d, "1"), PROCESS, -ENOTDIR);
	fd = open(run_path(d, "2"), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0 && write(fd, "not a ring at all", 17) == 17, "write");
	close(fd);
	expect_rc("a run whose header is bad", d, PROCESS, -EBADMSG);
	expect_rc("another process", d, "com.other:inference", -ENODATA);
	unlink(run_path(d, "2"));
	if (geteuid() != 0) {
		fd = open(run_path(d, "3"), O_CREAT | O_WRONLY | O_CLOEXEC, 0000);
		T_ASSERT(fd >= 0, "create");
		close(fd);
		expect_rc("an unreadable run", d, PROCESS, -EACCES);
	}
	t_rmdir(d);
}

/* A writer that records without pause until it is killed, in inference. */
static pid_t start_writer(void)
{
	pid_t pid;
	int fd;
	char c;

	pid = t_fork_piped(&fd);
	if (pid == 0) {
		struct lw_config cfg = config();
		struct lw *lw;

		/* It dies with the test, should the test fail first. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
			_exit(2);
		if (lw_open(&cfg, &lw) != 0 || lw_candidate(lw, "m") != 0 ||
		    lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU) != 0 ||
		    lw_stage_begin(lw, LW_STAGE_INFERENCE) != 0)
			_exit(2);
		if (write(fd, "r", 1) != 1)
			_exit(2);
		for (;;) {
			lw_mark(lw, LW_MARK_QUEUE_DEPTH, 1);
			lw_memory_sample(lw);
			/* Requests within the open inference, which the
			 * death is attributed to wherever it falls. */
			lw_stage_begin(lw, LW_STAGE_INFERENCE);
			lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
		}
	}
	T_ASSERT(read(fd, &c, 1) == 1, "the writer did not start");
	close(fd);
	return pid;
}

/* lw_advice() of an open in a child, which removes its run's file before it
 * exits so that the run leaves no trace. */
static void advice_of_open(struct lw_advice *out)
{
	pid_t pid;
	int fd, status;

	pid = t_fork_piped(&fd);
	if (pid == 0) {
		struct lw_config cfg = config();
		struct lw_advice a;
		struct lw_info info;
		struct lw *lw;

		if (lw_open(&cfg, &lw) != 0 || lw_advice(lw, &a) != 0 || lw_info(lw, &info) != 0 ||
		    unlink(info.path) != 0 || write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
			_exit(2);
		_exit(0);
	}
	T_ASSERT(read(fd, out, sizeof(*out)) == (ssize_t)sizeof(*out), "the open did not report");
	close(fd);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the open's child: status 0x%x", status);
}

int main(void)
{
	struct dying d;
	struct lw_advice want, a, opened;
	double worst = 0;
	long allocs;
	pid_t writer;
	int i, status;

	errors();
	g_dir = strdup(t_tmpdir("advice-read"));
	d = (struct dying){ config(), "m", LW_STAGE_LOAD, DIE_KILL, NULL, NULL };
	dying_run_of(&d);
	dying_run_of(&d);
	T_ASSERT(lw_advice_read(g_dir, PROCESS, &want) == 0, "lw_advice_read");
	T_ASSERT(want.kind == LW_ADVICE_QUARANTINE && want.count == 2 &&
		 want.stage == LW_STAGE_LOAD && want.candidate == lw_digest("m"),
		 "two deaths in load: %s count %u", lw_advice_name(want.kind), want.count);
	advice_of_open(&opened);
	T_ASSERT(same(&opened, &want), "lw_open's advice %s count %u, lw_advice_read's %s %u",
		 lw_advice_name(opened.kind), opened.count, lw_advice_name(want.kind), want.count);

	writer = start_writer();
	allocs = atomic_load(&g_allocs);
	for (i = 0; i < READS; i++) {
		double t0 = t_now_s(), dt;
		int rc = lw_advice_read(g_dir, PROCESS, &a);

		dt = t_now_s() - t0;
		if (dt > worst)
			worst = dt;
		T_ASSERT(rc == 0, "read %d while the writer runs: %d (%s)", i, rc, strerror(-rc));
		T_ASSERT(same(&a, &want), "read %d while the writer runs: %s count %u", i,
			 lw_advice_name(a.kind), a.count);
	}
	T_ASSERT(atomic_load(&g_allocs) == allocs, "%ld allocations in %d reads",
		 atomic_load(&g_allocs) - allocs, READS);
	T_ASSERT(worst < 0.5, "a read took %.3f s", worst);
	advice_of_open(&opened);
	T_ASSERT(same(&opened, &want), "an open while the writer runs: %s count %u",
		 lw_advice_name(opened.kind), opened.count);

	T_ASSERT(kill(writer, SIGKILL) == 0 && waitpid(writer, &status, 0) == writer, "kill");
	T_ASSERT(lw_advice_read(g_dir, PROCESS, &a) == 0, "lw_advice_read after the kill");
	T_ASSERT(a.kind == LW_ADVICE_SKIP_PREWARM && a.stage == LW_STAGE_INFERENCE && a.count == 1,
		 "after the kill in inference: %s in %s count %u", lw_advice_name(a.kind),
		 lw_stage_name(a.stage), a.count);
	advice_of_open(&opened);
	T_ASSERT(same(&opened, &a), "the next open: %s count %u, lw_advice_read %s count %u",
		 lw_advice_name(opened.kind), opened.count, lw_advice_name(a.kind), a.count);

	t_rmdir(g_dir);
	printf("lw_advice_read: clear errors; %d reads beside a live writer (worst %.1f ms, "
	       "no allocation); agrees with lw_open\n",
	       READS, worst * 1e3);
	return T_PASS;
}
