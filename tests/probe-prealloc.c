/*
 * When the run's file cannot be made, the probe runs on anonymous memory:
 * lw_open() returns LW_OPEN_ANONYMOUS, lw_info() gives the error, no file
 * is left behind, and the event functions still work on the in-memory ring.
 *   (a) RLIMIT_FSIZE below the ring's size: -EFBIG, and no SIGXFSZ (the
 *       default action of which kills) -- in a forked child;
 *   (b) a directory path under a regular file (-ENOTDIR), a missing
 *       directory (-ENOENT), a path too long for lw_info (-ENAMETOOLONG);
 *   (c) no directory at all: anonymous by choice, fallback_error 0.
 * (Tests run as root, so permission bits cannot make a directory unwritable.)
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../probe/internal.h"
#include "../src/ring.h"

#define SLOTS 64u
#define RING_BYTES (LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE)

struct seen {
	uint8_t types[16];
	uint8_t stages[16];
	size_t n;
};

static int collect(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct seen *seen = arg;

	(void)t;
	(void)index;
	if (seen->n < sizeof(seen->types)) {
		seen->types[seen->n] = s->type;
		seen->stages[seen->n] = s->stage;
	}
	seen->n++;
	return 0;
}

/* Events on an anonymous probe, then its in-memory ring, then close. */
static void use_anonymous(struct lw *lw, const char *what, int want_error)
{
	static const uint8_t want_types[] = { LW_EV_OPEN, LW_EV_CANDIDATE, LW_EV_STAGE_BEGIN,
					      LW_EV_MARK, LW_EV_STAGE_END, LW_EV_MEMORY,
					      LW_EV_PRESSURE /* the sample's PSI, no sampler */ };
	struct ring_error err;
	struct ring_scan sc;
	struct lw_info info;
	struct seen seen;
	size_t i;
	int st;

	T_ASSERT(lw_info(lw, &info) == 0, "%s: lw_info", what);
	T_ASSERT(info.backing == LW_BACKING_ANONYMOUS, "%s: backing %d", what, info.backing);
	T_ASSERT(info.fallback_error == want_error, "%s: fallback_error %d (%s), expected %d (%s)",
		 what, info.fallback_error, strerror(-info.fallback_error), want_error,
		 strerror(-want_error));
	T_ASSERT(info.path[0] == '\0', "%s: path '%s' for an anonymous ring", what, info.path);
	T_ASSERT(strlen(info.run_id_hex) == 32, "%s: run_id_hex '%s'", what, info.run_id_hex);
	T_ASSERT(info.slot_count == SLOTS, "%s: slot_count %u", what, info.slot_count);
	T_ASSERT(lw->fd == -1, "%s: fd %d", what, lw->fd);

	T_ASSERT(lw_candidate(lw, "m") == 0, "%s: lw_candidate", what);
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "%s: lw_stage_begin", what);
	T_ASSERT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 3) == 0, "%s: lw_mark", what);
	T_ASSERT(lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_IO_ERROR) == 0, "%s: lw_stage_end", what);
	T_ASSERT(lw_memory_sample(lw) == 0, "%s: lw_memory_sample", what);
	T_ASSERT(lw_sync(lw) == -ENODEV, "%s: lw_sync on anonymous memory not -ENODEV", what);

	/* The in-memory ring reads like a file's. */
	st = (int)ring_header_check(lw->hdr, lw->map_size, &err);
	T_ASSERT(st == RING_HEADER_OK, "%s: in-memory header refused at %zu: %s", what,
		 err.offset, err.reason);
	memset(&seen, 0, sizeof(seen));
	ring_scan(lw->hdr, lw->w.slots, &sc, NULL, collect, &seen);
	T_ASSERT(sc.corrupt == 0 && sc.torn == 0 && sc.missing == 0, "%s: scan damage", what);
	T_ASSERT(seen.n == sizeof(want_types), "%s: %zu records, expected %zu", what, seen.n,
		 sizeof(want_types));
	for (i = 0; i < sizeof(want_types); i++)
		T_ASSERT(seen.types[i] == want_types[i], "%s: record %zu has type %u, expected %u",
			 what, i, seen.types[i], want_types[i]);
	T_ASSERT(seen.stages[3] == LW_STAGE_LOAD, "%s: mark stage %u", what, seen.stages[3]);
	T_ASSERT(lw->w.slots[0].d == LW_BACKING_ANONYMOUS, "%s: open record says backing %u",
		 what, lw->w.slots[0].d);
	T_ASSERT(lw_close(lw) == 0, "%s: lw_close", what);
}

static struct lw *open_in(const char *dir, const char *what)
{
	struct lw_config cfg = { .dir = dir, .process_name = "com.prealloc", .slot_count = SLOTS };
	struct lw *lw = NULL;
	int rc = lw_open(&cfg, &lw);

	T_ASSERT(rc == LW_OPEN_ANONYMOUS, "%s: lw_open returned %d, expected LW_OPEN_ANONYMOUS",
		 what, rc);
	T_ASSERT(lw != NULL, "%s: no probe", what);
	return lw;
}

/* (a) in a child, since the limit is the process's. */
static void fsize_limit(const char *dir)
{
	int status;
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		struct rlimit rl = { RING_BYTES / 2, RING_BYTES / 2 };

		/* SIGXFSZ keeps its default action: it would kill the child. */
		signal(SIGXFSZ, SIG_DFL);
		T_ASSERT(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit: %s", strerror(errno));
		use_anonymous(open_in(dir, "RLIMIT_FSIZE"), "RLIMIT_FSIZE", -EFBIG);
		T_ASSERT(count_files(dir) == 0, "RLIMIT_FSIZE: %d files left behind",
			 count_files(dir));
		_exit(T_PASS);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	T_ASSERT(!WIFSIGNALED(status), "RLIMIT_FSIZE: child killed by signal %d%s",
		 WTERMSIG(status), WTERMSIG(status) == SIGXFSZ ? " (SIGXFSZ)" : "");
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == T_PASS,
		 "RLIMIT_FSIZE: child failed (status 0x%x)", status);
	T_ASSERT(count_files(dir) == 0, "RLIMIT_FSIZE: a partial file was left in %s", dir);
}

int main(void)
{
	char *dir = strdup(t_tmpdir("prealloc"));
	char sub[600], longdir[600];
	struct lw_config cfg = { .dir = NULL, .process_name = "com.prealloc", .slot_count = SLOTS };
	struct stat st;
	struct lw *lw;
	int fd, rc;

	/* (a) */
	fsize_limit(dir);

	/* (b) a "directory" that is a regular file */
	snprintf(sub, sizeof(sub), "%s/plain-file", dir);
	fd = open(sub, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0 && write(fd, "x", 1) == 1, "create %s", sub);
	close(fd);
	use_anonymous(open_in(sub, "ENOTDIR"), "ENOTDIR", -ENOTDIR);
	T_ASSERT(stat(sub, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 1,
		 "the regular file was changed");
	unlink(sub);

	/* (b) a directory that does not exist */
	snprintf(sub, sizeof(sub), "%s/missing", dir);
	use_anonymous(open_in(sub, "ENOENT"), "ENOENT", -ENOENT);
	T_ASSERT(stat(sub, &st) != 0, "lw_open created the missing directory");

	/* (b) a path that does not fit lw_info.path */
	memset(longdir, 0, sizeof(longdir));
	snprintf(longdir, sizeof(longdir), "%s/", dir);
	memset(longdir + strlen(longdir), 'd', 500 - strlen(longdir));
	use_anonymous(open_in(longdir, "ENAMETOOLONG"), "ENAMETOOLONG", -ENAMETOOLONG);
	T_ASSERT(count_files(dir) == 0, "%d files left in %s", count_files(dir), dir);

	/* (c) no directory: anonymous by request */
	lw = NULL;
	rc = lw_open(&cfg, &lw);
	T_ASSERT(rc == LW_OPEN_ANONYMOUS, "dir NULL: lw_open returned %d", rc);
	use_anonymous(lw, "dir NULL", 0);

	t_rmdir(dir);
	free(dir);
	printf("anonymous fallback: EFBIG without SIGXFSZ, ENOTDIR, ENOENT, ENAMETOOLONG, "
	       "dir NULL\n");
	return T_PASS;
}
