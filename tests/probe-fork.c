/*
 * A forked child never writes its parent's ring, and does not keep its
 * lock; in the child, every call on the inherited probe is
 * async-signal-safe (liblastwords(3), FORKS), as POSIX requires of a child
 * of a multithreaded process until it execs.
 *   - A multithreaded parent (the probe's sampler thread runs) opens a
 *     probe, installs the crash handler, sets a candidate and begins a
 *     stage, then forks a child that calls every function on the inherited
 *     probe: each returns -ECHILD and writes nothing (lw_close() too, which
 *     releases the child's copy), and none allocates, frees, takes a lock or
 *     starts or joins a thread (counted through --wrap). It forks another
 *     child that crashes by SIGSEGV: it dies by it, and the parent's ring
 *     holds no crash record. The parent's ring is unchanged by both: no
 *     record but its sampler thread's (memory, graphics, pressure), state RUNNING, no crash signal, same flags, open stages and
 *     candidate; the parent's own calls still work.
 *   - A single-threaded parent's child (POSIX allows it anything) releases
 *     the inherited probe and then opens one of its own, sampler thread and
 *     crash handler included. A child of a multithreaded parent must not:
 *     lw_open() allocates and starts a thread, and an allocator lock held at
 *     the fork by another thread would be held for ever in the child (it
 *     was, 1 run in 6, under GCC 12's ASan).
 *   - A process that opens a probe, forks a child that sleeps, and dies by
 *     SIGKILL: its ring is not held by anyone while the child still lives
 *     (flock), so a reader sees a dead run.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define PROCESS "com.fork:inference"

/*
 * What the probe's own code calls that a child of a multithreaded process
 * must not: each call through the probe's objects (linked with --wrap, see
 * tests/meson.build) is counted, and the counts are compared in the child.
 */
static atomic_int g_unsafe;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __real_pthread_mutex_lock(pthread_mutex_t *mu);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_mutex_lock(pthread_mutex_t *mu);

void *__wrap_malloc(size_t n)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
	atomic_fetch_add(&g_unsafe, 1);
	__real_free(p);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_pthread_create(t, a, f, arg);
}

int __wrap_pthread_join(pthread_t t, void **ret)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_pthread_join(t, ret);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *mu)
{
	atomic_fetch_add(&g_unsafe, 1);
	return __real_pthread_mutex_lock(mu);
}

/* The number of threads of this process, from /proc/self/status. */
/* Threads at the start, before any probe: 1, or 2 under qemu-user, which
 * runs a thread of its own (the 32-bit ARM build's tests). */
static int g_base_threads = 1;

/* The threads of this process beyond those it started with, plus one: 1
 * while only the main thread of the program runs. */
static int thread_count(void)
{
	char line[128];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	T_ASSERT(f != NULL, "/proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	T_ASSERT(n > 0, "no Threads: line in /proc/self/status");
	return n - g_base_threads + 1;
}

static const char *g_dir;

/* sampler: with the sampler thread, which makes the process multithreaded
 * (and which a forked child does not have). */
static struct lw_config config(int sampler)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 64,
		.sampler_period_ms = sampler ? 5 : 0,
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

/* The last child forked, whose records the parent's ring must not hold. */
static pid_t g_child;

struct since {
	uint64_t from, to;   /* the tickets written meanwhile */
	const char *what;
};

/* A record written while a child ran: the parent's sampler thread's
 * (memory, graphics or pressure: what its memory did meanwhile), never the
 * child's nor the parent's main thread's, which made no call. */
static int sampler_only(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	const struct since *w = arg;

	(void)index;
	if (ticket < w->from || ticket >= w->to)
		return 0;
	T_ASSERT(s->tid != (uint32_t)g_child && s->tid != (uint32_t)getpid() &&
			 (s->type == LW_EV_MEMORY || s->type == LW_EV_GRAPHICS ||
			  s->type == LW_EV_PRESSURE),
		 "%s: ticket %llu of type %u by thread %u: the child (%d) wrote records", w->what,
		 (unsigned long long)ticket, s->type, s->tid, (int)g_child);
	return 0;
}

static void same(const char *what, const char *path, const struct seen *a, const struct seen *b)
{
	struct since w = { a->head, b->head, what };
	struct ring_scan sc;
	struct stat st;
	void *map;
	int fd;

	T_ASSERT(b->head >= a->head, "%s: head %llu -> %llu", what, (unsigned long long)a->head,
		 (unsigned long long)b->head);
	if (b->head != a->head) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "open %s", path);
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		T_ASSERT(map != MAP_FAILED, "mmap %s", path);
		ring_scan(map, (const struct lw_ring_slot *)((const char *)map +
							     ((struct lw_ring_header *)map)->header_size),
			  &sc, NULL, sampler_only, &w);
		munmap(map, (size_t)st.st_size);
	}
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

/* Every call on the inherited probe fails with -ECHILD, and is
 * async-signal-safe: none of them goes through the wrapped calls. */
static void child_calls_inherited(struct lw *lw)
{
	struct lw_config cfg = config(1);
	struct lw_advice adv;
	struct lw_info info;
	struct lw *own;
	int unsafe = atomic_load(&g_unsafe);

	CHILD_EXPECT(lw_stage_begin(lw, LW_STAGE_INFERENCE), -ECHILD);
	CHILD_EXPECT(lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE), -ECHILD);
	CHILD_EXPECT(lw_session_open(lw, 1, "child-model"), -ECHILD);
	CHILD_EXPECT(lw_session_stage_begin(lw, 1, LW_STAGE_LOAD), -ECHILD);
	CHILD_EXPECT(lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE), -ECHILD);
	CHILD_EXPECT(lw_session_close(lw, 1, LW_ERR_NONE), -ECHILD);
	CHILD_EXPECT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 3), -ECHILD);
	CHILD_EXPECT(lw_peer_died(lw, 1234, "com.fork:other"), -ECHILD);
	CHILD_EXPECT(lw_payload(lw, LW_PAYLOAD_TEXT, 100), -ECHILD);
	CHILD_EXPECT(lw_cache(lw, LW_CACHE_HIT, "key"), -ECHILD);
	CHILD_EXPECT(lw_receipt(lw, "child-model", 42), -ECHILD);
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
	if (atomic_load(&g_unsafe) != unsafe) {
		fprintf(stderr, "child: the calls on the inherited probe made %d calls that are "
			"not async-signal-safe (malloc, free, pthread_create, _join, "
			"_mutex_lock)\n", atomic_load(&g_unsafe) - unsafe);
		_exit(11);
	}
}

/* A child of a single-threaded parent releases the inherited probe, then
 * opens its own run, sampler thread and crash handler included. */
static void child_opens_own(struct lw *lw)
{
	struct lw_config cfg = config(1);
	struct lw_info info;
	struct lw *own;

	child_calls_inherited(lw);
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

enum child { CHILD_CALLS, CHILD_OPENS_OWN, CHILD_CRASHES };

static int fork_child(struct lw *lw, enum child what)
{
	int status;
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		if (what == CHILD_CRASHES)
			child_crashes();
		if (what == CHILD_OPENS_OWN)
			child_opens_own(lw);
		child_calls_inherited(lw);
		_exit(0);
	}
	g_child = pid;
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	return status;
}

/* The parent's probe, opened with or without its sampler thread. */
static void parent_open(int sampler, struct lw **lw, struct lw_info *info)
{
	struct lw_config cfg = config(sampler);

	T_ASSERT(lw_open(&cfg, lw) == 0 && lw_info(*lw, info) == 0, "lw_open");
	T_ASSERT(lw_crash_install(*lw) == 0 && lw_candidate(*lw, "parent-model") == 0 &&
		 lw_stage_begin(*lw, LW_STAGE_LOAD) == 0, "parent's events");
}

static void parent_close(struct lw *lw, const struct lw_info *info)
{
	struct seen after;

	T_ASSERT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 1) == 0, "the parent's lw_mark after the forks");
	T_ASSERT(lw_close(lw) == 0, "the parent's lw_close");
	after = look(info->path);
	T_ASSERT(after.state == LW_STATE_CLEAN_EXIT, "the parent's run: state %u", after.state);
	T_ASSERT(unlink(info->path) == 0, "unlink");
}

/* A multithreaded parent's children: the calls, and a crash. */
static void multithreaded_parent(void)
{
	struct lw_info info;
	struct seen before, after;
	struct lw *lw;
	int status;

	parent_open(1, &lw, &info);
	T_ASSERT(thread_count() >= 2, "the sampler thread does not run: %d thread(s)",
		 thread_count());
	before = look(info.path);

	status = fork_child(lw, CHILD_CALLS);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the child using the inherited probe: status 0x%x", status);
	after = look(info.path);
	same("after a child used the inherited probe", info.path, &before, &after);

	status = fork_child(lw, CHILD_CRASHES);
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		 "the crashing child: status 0x%x, expected death by SIGSEGV", status);
	after = look(info.path);
	same("after a child crashed", info.path, &before, &after);
	parent_close(lw, &info);
}

/* A single-threaded parent's child opens a probe of its own. */
static void single_threaded_parent(void)
{
	struct lw_info info;
	struct seen before, after;
	struct lw *lw;
	int status;

	parent_open(0, &lw, &info);
	T_ASSERT(thread_count() == 1, "the parent is not single-threaded: %d threads",
		 thread_count());
	before = look(info.path);
	status = fork_child(lw, CHILD_OPENS_OWN);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the child opening a probe of its own: status 0x%x", status);
	after = look(info.path);
	same("after a child opened its own probe", info.path, &before, &after);
	parent_close(lw, &info);
}

/* A run whose process died while its forked child lives on is dead. */
static void lock_not_inherited(void)
{
	char path[sizeof(((struct lw_info *)0)->path)];
	int pipe_fd, status, fd;
	pid_t pid, child;

	/* To reap the orphan. qemu-user (the 32-bit ARM build's tests) has no
	 * PR_SET_CHILD_SUBREAPER: there the orphan is killed, and init reaps it. */
	int reaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;

	T_ASSERT(reaper || errno == EINVAL, "prctl: %s", strerror(errno));
	if (!reaper)
		printf("note: no PR_SET_CHILD_SUBREAPER here (qemu-user): the orphan is not reaped\n");
	pid = t_fork_piped(&pipe_fd);
	if (pid == 0) {
		struct lw_config cfg = config(1);
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
	T_ASSERT(!reaper || waitpid(child, &status, 0) == child, "reap the orphan: %s",
		 strerror(errno));
	T_ASSERT(unlink(path) == 0, "unlink");
}

int main(void)
{
	g_base_threads = thread_count();
	g_dir = strdup(t_tmpdir("fork"));
	multithreaded_parent();
	single_threaded_parent();
	lock_not_inherited();
	t_rmdir(g_dir);
	free((void *)g_dir);
	printf("fork: a child's calls on the inherited probe return -ECHILD, write nothing and "
	       "are async-signal-safe; its crash is not recorded; it does not keep the lock; a "
	       "single-threaded parent's child opens its own\n");
	return T_PASS;
}
