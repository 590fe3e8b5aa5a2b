/*
 * Many threads crashing together: the first fatal signal is recorded once,
 * and the process dies by it, whatever the other threads do meanwhile.
 *
 * Each run is a forked child that opens the probe, installs the crash
 * handler and starts threads that write events as fast as they can (so the
 * crash record contends with them for slots) and threads that wait for a
 * common start and then crash at once, each by its own means: a store to
 * an inaccessible page (SIGSEGV), a store to a truncated shared mapping
 * (SIGBUS), abort() (SIGABRT) or a trap instruction (SIGILL or SIGTRAP);
 * in every other run one more thread sends SIGBUS with tgkill() to one of
 * them, over and over, so that it lands while the handler runs. A handler
 * installed before the probe's takes 2 ms before it lets the signal kill,
 * as debuggerd takes its time, while the writers go on. The parent checks that the child died by a
 * signal, that the ring holds exactly one crash record and that its signal
 * and the header's crash_signo are the one the child died by, with the
 * header CRASHED.
 *
 * usage: probe-crash-threads [RUNS]   (default 200; the slow suite runs 5000)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define CRASHERS 8
#define WRITERS 2
#define SLOTS 64u

enum how { HOW_SEGV, HOW_BUS, HOW_ABRT, HOW_TRAP, HOW_COUNT };

static struct lw *g_lw;
static pthread_barrier_t g_start;
static unsigned g_run;
static volatile char *g_noaccess, *g_truncated;
static atomic_int g_victim_tid;

static void *writer_main(void *arg)
{
	uint64_t n = 0;

	(void)arg;
	pthread_barrier_wait(&g_start);
	for (;;)
		lw_mark(g_lw, LW_MARK_QUEUE_DEPTH, n++);
	return NULL;
}

static void *crasher_main(void *arg)
{
	enum how how = (enum how)(uintptr_t)arg % HOW_COUNT;
	/* A few microseconds' start, different per run and thread, so that
	 * each kind of crash comes first in some runs. */
	unsigned spin = (g_run * 2654435761u + (unsigned)(uintptr_t)arg * 40503u) >> 20 & 4095;
	volatile unsigned n;

	if ((uintptr_t)arg == 0)
		atomic_store(&g_victim_tid, (int)syscall(SYS_gettid));
	pthread_barrier_wait(&g_start);
	for (n = 0; n < spin; n++)
		;
	switch (how) {
	case HOW_SEGV:
		*g_noaccess = 1;
		break;
	case HOW_BUS:
		*g_truncated = 1;
		break;
	case HOW_ABRT:
		abort();
	case HOW_TRAP:
		__builtin_trap();
	default:
		break;
	}
	_exit(5);
	return NULL;
}

/* The handler installed before the probe's, as debuggerd's is: it takes a
 * while (a dump), restores the default action and lets the signal kill.
 * Meanwhile the writers go on, and would lap the ring past the crash
 * record if the probe let them. */
static void prior_handler(int sig, siginfo_t *si, void *uc)
{
	struct timespec two_ms = { 0, 2000000 };
	struct sigaction dfl;

	(void)uc;
	nanosleep(&two_ms, NULL);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0 || sig == SIGABRT || sig == SIGTRAP)
		raise(sig); /* pending until we return */
}

/* In every other run, a thread that sends SIGBUS to the first crasher,
 * over and over; in the others it only waits. */
static void *sender_main(void *arg)
{
	int tid;

	pthread_barrier_wait(&g_start);
	tid = atomic_load(&g_victim_tid);
	for (;;) {
		if (arg)
			syscall(SYS_tgkill, getpid(), tid, SIGBUS);
		else
			pause();
	}
	return NULL;
}

static void run_child(const char *dir, int fd, int send)
{
	struct lw_config cfg = { .dir = dir, .process_name = "com.crash:threads", .slot_count = SLOTS };
	static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP };
	struct rlimit no_core = { 0, 0 };
	static const char page[4096];
	struct sigaction sa;
	char path[600];
	struct lw_info info;
	pthread_t th;
	uintptr_t i;
	int bfd;
	void *p;

	setrlimit(RLIMIT_CORE, &no_core);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = prior_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (sigaction(crash_sigs[i], &sa, NULL) != 0)
			_exit(2);
	if (lw_open(&cfg, &g_lw) != 0 || lw_info(g_lw, &info) != 0 || lw_crash_install(g_lw) != 0)
		_exit(2);
	/* Reserved, never accessible: an unmapped page could be reused by
	 * the thread stacks mapped next. */
	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	g_noaccess = p;
	snprintf(path, sizeof(path), "%s/bus.%d", dir, (int)getpid());
	bfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (bfd < 0 || write(bfd, page, sizeof(page)) != (ssize_t)sizeof(page))
		_exit(2);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	if (p == MAP_FAILED || ftruncate(bfd, 0) != 0 || unlink(path) != 0)
		_exit(2);
	g_truncated = p;
	if (lw_stage_begin(g_lw, LW_STAGE_DELEGATE_PREPARE) != 0 ||
	    pthread_barrier_init(&g_start, NULL, WRITERS + CRASHERS + 2) != 0)
		_exit(2);
	if (write(fd, info.path, sizeof(info.path)) != (ssize_t)sizeof(info.path))
		_exit(2);
	for (i = 0; i < WRITERS; i++)
		if (pthread_create(&th, NULL, writer_main, NULL) != 0)
			_exit(2);
	for (i = 0; i < CRASHERS; i++)
		if (pthread_create(&th, NULL, crasher_main, (void *)i) != 0)
			_exit(2);
	if (pthread_create(&th, NULL, sender_main, (void *)(uintptr_t)send) != 0)
		_exit(2);
	pthread_barrier_wait(&g_start); /* all at once, then */
	for (;;)
		pause();
}

static void check_ring(const char *path, int run, int sig)
{
	const struct lw_ring_header *h;
	const struct lw_ring_slot *slots;
	struct ring_error err;
	struct ring_scan sc;
	uint8_t cls[SLOTS];
	struct stat st;
	int fd, crashes = 0, code = 0;
	uint32_t i;
	void *map;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "run %d: open %s", run, path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap");
	close(fd);
	T_ASSERT(ring_header_check(map, (size_t)st.st_size, &err) == RING_HEADER_OK,
		 "run %d: header refused: %s", run, err.reason);
	h = map;
	slots = (const struct lw_ring_slot *)((const char *)map + h->header_size);
	ring_scan(h, slots, &sc, cls, NULL, NULL);
	for (i = 0; i < SLOTS; i++) {
		if (cls[i] == RING_SLOT_VALID && slots[i].type == LW_EV_CRASH) {
			crashes++;
			code = slots[i].code;
		}
	}
	T_ASSERT(crashes == 1, "run %d: died by signal %d, %d crash records (lapped %" PRIu64 ")",
		 run, sig, crashes, h->lapped);
	T_ASSERT(code == sig, "run %d: the crash record says signal %d, the process died by %d",
		 run, code, sig);
	T_ASSERT(h->state == LW_STATE_CRASHED && h->crash_signo == (uint32_t)sig,
		 "run %d: state %u crash_signo %u, died by %d", run, h->state, h->crash_signo, sig);
	munmap(map, (size_t)st.st_size);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 200, run, by[65] = { 0 }, s;
	char *dir = strdup(t_tmpdir("crash-threads"));
	char path[sizeof(((struct lw_info *)0)->path)];

#if defined(__SANITIZE_ADDRESS__)
	{
		const char *o = getenv("ASAN_OPTIONS");

		if (!o || !strstr(o, "handle_segv=0") || !strstr(o, "handle_abort=0") ||
		    !strstr(o, "handle_sigbus=0") || !strstr(o, "handle_sigill=0")) {
			printf("SKIP: AddressSanitizer would handle the signals itself; run with "
			       "ASAN_OPTIONS from tests/meson.build\n");
			return T_SKIP;
		}
	}
#endif
	for (run = 0; run < runs; run++) {
		int fd, status;
		pid_t pid;

		pid = t_fork_piped(&fd);
		if (pid == 0) {
			g_run = (unsigned)run;
			run_child(dir, fd, run % 2);
		}
		T_ASSERT(read(fd, path, sizeof(path)) == (ssize_t)sizeof(path),
			 "run %d: the child did not start", run);
		close(fd);
		T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		T_ASSERT(WIFSIGNALED(status), "run %d: child status 0x%x, expected a signal", run,
			 status);
		s = WTERMSIG(status);
		T_ASSERT(s == SIGSEGV || s == SIGBUS || s == SIGABRT || s == SIGILL || s == SIGTRAP,
			 "run %d: died by signal %d", run, s);
		check_ring(path, run, s);
		by[s]++;
		T_ASSERT(unlink(path) == 0, "unlink %s", path);
	}
	printf("crash-threads: %d runs of %d threads crashing at once, one record each, of the "
	       "signal that killed: SEGV %d, BUS %d, ABRT %d, ILL %d, TRAP %d\n", runs, CRASHERS,
	       by[SIGSEGV], by[SIGBUS], by[SIGABRT], by[SIGILL], by[SIGTRAP]);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
