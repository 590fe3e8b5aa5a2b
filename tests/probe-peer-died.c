/*
 * lw_peer_died(): the main process's witness of its inference process's
 * death. A parent (the app's main process) opens its probe and forks a
 * child that opens its own (the :inference process) and begins an
 * inference; the parent kills it with SIGKILL and records peer_died from
 * its SIGCHLD handler (the call is async-signal-safe). The parent's ring
 * then holds one peer_died mark, in the parent's open stage, whose a is
 * the child's pid and b the digest of the name the child's ring holds,
 * written after the child's last record. Also: bad pids and names are
 * refused and counted, lw_mark() refuses LW_MARK_PEER_DIED (one way to
 * write it), and a forked child may not write its parent's ring.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../probe/internal.h"
#include "../src/ring.h"

#define MAIN "com.example.app"
#define PEER "com.example.app:inference"

struct ring_copy {
	void *map;
	size_t size;
	const struct lw_ring_header *h;
	struct lw_ring_slot r[32];
	size_t n;
};

static int collect(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct ring_copy *rc = arg;

	(void)t;
	(void)index;
	T_ASSERT(rc->n < sizeof(rc->r) / sizeof(rc->r[0]), "too many records");
	rc->r[rc->n++] = *s;
	return 0;
}

static void read_ring(const char *path, struct ring_copy *rc)
{
	struct ring_error err;
	struct ring_scan sc;

	memset(rc, 0, sizeof(*rc));
	rc->map = t_map_file(path, &rc->size);
	T_ASSERT(ring_header_check(rc->map, rc->size, &err) == RING_HEADER_OK, "%s refused: %s",
		 path, err.reason);
	rc->h = rc->map;
	ring_scan(rc->h, (const struct lw_ring_slot *)((const char *)rc->map + rc->h->header_size),
		  &sc, NULL, collect, rc);
	T_ASSERT(sc.corrupt == 0 && sc.torn == 0, "%s: damaged slots", path);
}

/* The ring in dir of the process pid. */
static void find_ring(const char *dir, pid_t pid, struct ring_copy *rc)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	T_ASSERT(d, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".lwr"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		read_ring(path, rc);
		if (rc->h->pid == (uint32_t)pid) {
			closedir(d);
			return;
		}
		munmap(rc->map, rc->size);
	}
	T_FAILF("no ring of pid %d in %s", (int)pid, dir);
}

static struct lw *main_lw;
static volatile pid_t peer_pid;
static atomic_int peer_rc = 1;

/* The main process's SIGCHLD: reap the peer and record its death. */
static void on_child(int sig)
{
	int saved = errno, status;

	(void)sig;
	if (waitpid(peer_pid, &status, WNOHANG) == peer_pid)
		atomic_store(&peer_rc, lw_peer_died(main_lw, (int32_t)peer_pid, PEER));
	errno = saved;
}

/* The :inference process: its own probe (once it released the one it
 * inherited: on Android it comes from the zygote, with none), an
 * inference, then wait to be killed; it tells the parent through fd once
 * its records are written. */
static void run_peer(const char *dir, int fd)
{
	struct lw_config cfg = { .dir = dir, .process_name = PEER, .slot_count = 64 };
	struct lw *lw;

	if (lw_close(main_lw) != -ECHILD || lw_open(&cfg, &lw) != 0 || lw_stage_begin(lw, LW_STAGE_INFERENCE) != 0 ||
	    write(fd, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void witness(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = MAIN, .slot_count = 64 };
	struct sigaction sa;
	struct ring_copy mr, pr;
	const struct lw_ring_slot *m = NULL;
	char c;
	sigset_t block, old;
	size_t i;
	int fd;

	T_ASSERT(lw_open(&cfg, &main_lw) == 0, "lw_open of the main process");
	T_ASSERT(lw_stage_begin(main_lw, LW_STAGE_LOAD) == 0, "main stage_begin");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGCHLD, &sa, NULL) == 0, "sigaction: %s", strerror(errno));
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	peer_pid = t_fork_piped(&fd);
	if (peer_pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		run_peer(dir, fd);
	}
	T_ASSERT(read(fd, &c, 1) == 1, "the peer did not start");
	close(fd);
	T_ASSERT(kill(peer_pid, SIGKILL) == 0, "kill: %s", strerror(errno));
	while (atomic_load(&peer_rc) == 1)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	T_ASSERT(atomic_load(&peer_rc) == 0, "lw_peer_died from SIGCHLD: %d", atomic_load(&peer_rc));
	T_ASSERT(lw_close(main_lw) == 0, "lw_close");

	find_ring(dir, getpid(), &mr);
	find_ring(dir, peer_pid, &pr);
	T_ASSERT(pr.n > 0 && strcmp(pr.h->process, PEER) == 0, "the peer's ring");
	for (i = 0; i < mr.n; i++) {
		if (mr.r[i].type != LW_EV_MARK)
			continue;
		T_ASSERT(!m, "two marks in the main ring");
		m = &mr.r[i];
	}
	T_ASSERT(m, "no mark in the main ring");
	T_ASSERT(m->code == LW_MARK_PEER_DIED && m->stage == LW_STAGE_LOAD,
		 "mark %u in stage %u, expected peer_died in load", m->code, m->stage);
	T_ASSERT(m->a == pr.h->pid, "a = %" PRIu64 ", the peer's pid is %u", m->a, pr.h->pid);
	T_ASSERT(m->b == lw_digest(pr.h->process) && m->b == 0xbf5cc7308eac3ddau,
		 "b = 0x%" PRIx64 ", the digest of '%s' is 0x%" PRIx64, m->b, pr.h->process,
		 lw_digest(pr.h->process));
	T_ASSERT(m->c == 0 && m->d == 0 && m->rss_kb > 0, "c %" PRIu64 " d %u rss %u", m->c, m->d,
		 m->rss_kb);
	T_ASSERT(m->t_mono_ns > pr.r[pr.n - 1].t_mono_ns,
		 "the mark is not after the peer's last record");
	printf("peer_died: pid %" PRIu64 ", digest %016" PRIx64 ", %.3f ms after its last record\n",
	       m->a, m->b, (double)(m->t_mono_ns - pr.r[pr.n - 1].t_mono_ns) / 1e6);
	munmap(mr.map, mr.size);
	munmap(pr.map, pr.size);
	signal(SIGCHLD, SIG_DFL);
}

static void refusals(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = MAIN, .slot_count = 64 };
	struct lw *lw;
	int status;
	pid_t child;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open");
	T_ASSERT(lw_peer_died(lw, 0, PEER) == -EINVAL, "pid 0");
	T_ASSERT(lw_peer_died(lw, -1, PEER) == -EINVAL, "pid -1");
	T_ASSERT(lw_peer_died(lw, INT32_MIN, PEER) == -EINVAL, "pid INT32_MIN");
	T_ASSERT(lw_peer_died(lw, 42, NULL) == -EINVAL, "NULL name");
	T_ASSERT(lw_peer_died(lw, 42, "") == -EINVAL, "empty name");
	T_ASSERT(lw_mark(lw, LW_MARK_PEER_DIED, 42) == -EINVAL, "lw_mark(LW_MARK_PEER_DIED)");
	T_ASSERT(lw->hdr->dropped == 6, "dropped %" PRIu64 " after 6 refusals", lw->hdr->dropped);
	T_ASSERT(lw_peer_died(NULL, 42, PEER) == -EINVAL, "NULL probe");
	T_ASSERT(lw_peer_died(lw, INT32_MAX, PEER) == 0, "pid INT32_MAX");
	child = t_fork();
	if (child == 0)
		_exit(lw_peer_died(lw, 42, PEER) == -ECHILD ? 0 : 1);
	T_ASSERT(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0, "a forked child's lw_peer_died is not -ECHILD");
	T_ASSERT(lw->hdr->head == 2, "head %" PRIu64 ": the open record and one mark",
		 lw->hdr->head);
	T_ASSERT(lw_close(lw) == 0, "lw_close");
}

int main(void)
{
	char *dir = strdup(t_tmpdir("peer-died"));

	witness(dir);
	t_rmdir(dir);
	free(dir);
	dir = strdup(t_tmpdir("peer-died-refusals"));
	refusals(dir);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
