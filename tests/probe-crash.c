/*
 * The fatal-signal handler: a forked child opens the probe, installs a
 * handler of its own (as debuggerd or a crash reporter would), then
 * lw_crash_install(), begins delegate_prepare and crashes by SIGSEGV (a
 * store to an unmapped page), SIGABRT (abort()) or SIGBUS (a mapping whose
 * file was truncated). The parent checks that the child still died by that
 * signal, that the earlier handler still ran (with the genuine siginfo for
 * a hardware fault), and that the ring holds exactly one crash record with
 * the signal, its si_code and fault address, the stage and the candidate,
 * and a CRASHED header. After lw_crash_uninstall() nothing is recorded.
 * A second fault inside the handler: the ring's file is truncated to 0
 * bytes before a SIGSEGV, so the handler's first read of the ring raises
 * SIGBUS; the child still dies by SIGSEGV, and the earlier handler sees
 * the SIGSEGV with its genuine siginfo, once.
 *
 * Sanitizer runtimes install fatal-signal handlers of their own unless told
 * not to (tests/meson.build sets ASAN_OPTIONS handle_*=0); the child checks
 * that it starts from SIG_DFL.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define CANDIDATE "delegate-test-model"

enum crash_kind { CRASH_SEGV, CRASH_ABRT, CRASH_BUS, CRASH_UNINSTALLED, CRASH_RING_GONE };

static const struct {
	const char *name;
	int sig;
} kinds[] = {
	[CRASH_SEGV] = { "SIGSEGV", SIGSEGV },
	[CRASH_ABRT] = { "SIGABRT", SIGABRT },
	[CRASH_BUS] = { "SIGBUS", SIGBUS },
	[CRASH_UNINSTALLED] = { "SIGSEGV after lw_crash_uninstall", SIGSEGV },
	[CRASH_RING_GONE] = { "SIGSEGV, then SIGBUS in the handler", SIGSEGV },
};

/* What the child tells the parent before it crashes. */
struct hello {
	char path[512];
	uint64_t fault_addr;
};

/* What the earlier handler saw. */
struct marker {
	int sig;
	int code;
	uint64_t addr;
};

static int g_pipe = -1;

/* The handler installed before the probe's. It reports, restores SIG_DFL
 * and either returns (a fault re-executes and now kills) or re-raises. */
static void prior_handler(int sig, siginfo_t *si, void *uc)
{
	struct marker m = { sig, si ? si->si_code : 0, si ? (uint64_t)(uintptr_t)si->si_addr : 0 };
	struct sigaction dfl;
	ssize_t n;

	(void)uc;
	n = write(g_pipe, &m, sizeof(m));
	(void)n;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (sig == SIGABRT)
		raise(sig); /* pending until we return */
}

static void child_fail(int code, const char *msg)
{
	fprintf(stderr, "child: %s\n", msg);
	_exit(code);
}

static void run_child(const char *dir, enum crash_kind kind)
{
	const int sig = kinds[kind].sig;
	struct lw_config cfg = { .dir = dir, .process_name = "com.crash:test", .slot_count = 64 };
	struct sigaction sa, cur;
	struct hello hello;
	struct lw_info info;
	struct lw *lw;
	struct rlimit no_core = { 0, 0 };
	volatile char *bad = NULL;
	char path[600];
	int fd, rc;

	setrlimit(RLIMIT_CORE, &no_core); /* dying is the point; no core files */
	/* No sanitizer (or anything else) may hold the signal already. */
	if (sigaction(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
	    cur.sa_handler != SIG_DFL)
		child_fail(10, "the signal has a handler before the test installed one "
			       "(a sanitizer's? run with the ASAN_OPTIONS of tests/meson.build)");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = prior_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0)
		child_fail(11, "sigaction");

	rc = lw_open(&cfg, &lw);
	if (rc != 0 || lw_info(lw, &info) != 0)
		child_fail(12, "lw_open");
	if (lw_candidate(lw, CANDIDATE) != 0)
		child_fail(13, "lw_candidate");
	if (lw_crash_install(lw) != 0)
		child_fail(14, "lw_crash_install");
	if (lw_crash_install(lw) != -EBUSY)
		child_fail(15, "a second lw_crash_install was not -EBUSY");
	if (sigaction(sig, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) ||
	    cur.sa_sigaction == prior_handler)
		child_fail(16, "lw_crash_install did not install its handler");
	if (kind == CRASH_UNINSTALLED) {
		if (lw_crash_uninstall(lw) != 0)
			child_fail(17, "lw_crash_uninstall");
		if (sigaction(sig, NULL, &cur) != 0 || cur.sa_sigaction != prior_handler)
			child_fail(18, "lw_crash_uninstall did not restore the earlier handler");
	}

	memset(&hello, 0, sizeof(hello));
	snprintf(hello.path, sizeof(hello.path), "%s", info.path);
	if (kind == CRASH_SEGV || kind == CRASH_UNINSTALLED || kind == CRASH_RING_GONE) {
		/* A page that was mapped and is not: SEGV_MAPERR at its address. */
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096) != 0)
			child_fail(19, "mmap/munmap");
		bad = (volatile char *)p + 8;
	} else if (kind == CRASH_BUS) {
		/* A shared mapping of a file truncated to 0 bytes: BUS_ADRERR. */
		static const char page[4096];
		void *p;

		snprintf(path, sizeof(path), "%s/bus.bin", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			child_fail(20, "bus file");
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
			child_fail(21, "mmap/ftruncate");
		bad = (volatile char *)p + 16;
	}
	hello.fault_addr = (uint64_t)(uintptr_t)bad;
	if (write(g_pipe, &hello, sizeof(hello)) != (ssize_t)sizeof(hello))
		child_fail(22, "write hello");

	if (lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE) != 0)
		child_fail(23, "lw_stage_begin");
	if (kind == CRASH_RING_GONE) {
		/* The ring's pages are past the end of its file now: the
		 * handler's first read of them faults. */
		fd = open(info.path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || ftruncate(fd, 0) != 0)
			child_fail(25, "truncate the ring");
		close(fd);
	}
	if (kind == CRASH_ABRT)
		abort();
	*bad = 1;
	child_fail(24, "still alive after the fault");
}

static void check_ring(const struct hello *hello, enum crash_kind kind, pid_t pid)
{
	const int sig = kinds[kind].sig;
	const struct lw_ring_header *h;
	const struct lw_ring_slot *slots, *crash = NULL, *last = NULL;
	struct ring_error err;
	struct ring_scan sc;
	uint8_t cls[64];
	struct stat st;
	int fd, crashes = 0;
	uint32_t i;
	void *map;

	fd = open(hello->path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0, "%s: open %s: %s", kinds[kind].name, hello->path, strerror(errno));
	T_ASSERT(fstat(fd, &st) == 0, "fstat");
	if (kind == CRASH_RING_GONE) {
		/* Nothing could be recorded; what matters is the signal. */
		T_ASSERT(st.st_size == 0, "%s: the ring grew back", kinds[kind].name);
		close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap: %s", strerror(errno));
	close(fd);
	T_ASSERT(ring_header_check(map, (size_t)st.st_size, &err) == RING_HEADER_OK,
		 "%s: header refused at %zu: %s", kinds[kind].name, err.offset, err.reason);
	h = map;
	slots = (const struct lw_ring_slot *)((const char *)map + h->header_size);
	ring_scan(h, slots, &sc, cls, NULL, NULL);
	T_ASSERT(sc.corrupt == 0 && sc.torn == 0 && sc.missing == 0,
		 "%s: corrupt %" PRIu64 " torn %" PRIu64 " missing %" PRIu64, kinds[kind].name,
		 sc.corrupt, sc.torn, sc.missing);
	for (i = 0; i < h->slot_count; i++) {
		const struct lw_ring_slot *s = &slots[i];

		if (cls[i] != RING_SLOT_VALID)
			continue;
		if ((s->seq - 1) / 2 == sc.last_ticket)
			last = s;
		if (s->type == LW_EV_CRASH) {
			crashes++;
			crash = s;
		}
	}

	if (kind == CRASH_UNINSTALLED) {
		T_ASSERT(crashes == 0, "%s: %d crash records", kinds[kind].name, crashes);
		T_ASSERT(h->state == LW_STATE_RUNNING && h->crash_signo == 0,
			 "%s: state %u crash_signo %u", kinds[kind].name, h->state, h->crash_signo);
		munmap(map, (size_t)st.st_size);
		return;
	}
	T_ASSERT(crashes == 1, "%s: %d crash records, expected 1", kinds[kind].name, crashes);
	T_ASSERT(last == crash, "%s: the crash record is not the last one", kinds[kind].name);
	T_ASSERT(crash->code == sig, "%s: crash code %u", kinds[kind].name, crash->code);
	T_ASSERT(crash->stage == LW_STAGE_DELEGATE_PREPARE, "%s: crash stage %u", kinds[kind].name,
		 crash->stage);
	T_ASSERT(crash->c == lw_digest(CANDIDATE), "%s: crash candidate 0x%" PRIx64,
		 kinds[kind].name, crash->c);
	T_ASSERT(crash->tid == (uint32_t)pid, "%s: crash tid %u, child %d", kinds[kind].name,
		 crash->tid, (int)pid);
	T_ASSERT(crash->t_mono_ns >= h->start_mono_ns, "%s: crash time before open",
		 kinds[kind].name);
	switch (kind) {
	case CRASH_SEGV:
		T_ASSERT(crash->a == hello->fault_addr, "SIGSEGV: fault address 0x%" PRIx64
			 ", expected 0x%" PRIx64, crash->a, hello->fault_addr);
		T_ASSERT(crash->b == SEGV_MAPERR, "SIGSEGV: si_code %" PRId64, (int64_t)crash->b);
		break;
	case CRASH_BUS:
		T_ASSERT(crash->a == hello->fault_addr, "SIGBUS: fault address 0x%" PRIx64
			 ", expected 0x%" PRIx64, crash->a, hello->fault_addr);
		T_ASSERT(crash->b == BUS_ADRERR, "SIGBUS: si_code %" PRId64, (int64_t)crash->b);
		break;
	case CRASH_ABRT:
		/* abort() sends the signal to itself: si_code <= 0 and the pid. */
		T_ASSERT((int64_t)crash->b <= 0, "SIGABRT: si_code %" PRId64, (int64_t)crash->b);
		T_ASSERT(crash->d == (uint32_t)pid, "SIGABRT: sender %u, child %d", crash->d,
			 (int)pid);
		break;
	default:
		break;
	}
	T_ASSERT(h->state == LW_STATE_CRASHED, "%s: state %u", kinds[kind].name, h->state);
	T_ASSERT(h->crash_signo == (uint32_t)sig, "%s: crash_signo %u", kinds[kind].name,
		 h->crash_signo);
	T_ASSERT(h->open_count[LW_STAGE_DELEGATE_PREPARE] == 1 &&
		 h->last_stage == LW_STAGE_DELEGATE_PREPARE, "%s: open stage not recorded",
		 kinds[kind].name);
	munmap(map, (size_t)st.st_size);
}

static void one(const char *dir, enum crash_kind kind)
{
	const int sig = kinds[kind].sig;
	struct hello hello;
	struct marker m;
	int fd, status;
	pid_t pid;

	pid = t_fork_piped(&fd);
	if (pid == 0) {
		g_pipe = fd;
		run_child(dir, kind);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status))
		T_FAILF("%s: child exited with %d instead of dying", kinds[kind].name,
			WEXITSTATUS(status));
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		 "%s: child died by signal %d, expected %d", kinds[kind].name,
		 WIFSIGNALED(status) ? WTERMSIG(status) : 0, sig);

	T_ASSERT(read(fd, &hello, sizeof(hello)) == (ssize_t)sizeof(hello),
		 "%s: no hello from the child", kinds[kind].name);
	T_ASSERT(read(fd, &m, sizeof(m)) == (ssize_t)sizeof(m),
		 "%s: the handler installed before the probe's did not run", kinds[kind].name);
	T_ASSERT(m.sig == sig, "%s: earlier handler saw signal %d", kinds[kind].name, m.sig);
	if (sig == SIGSEGV || sig == SIGBUS) {
		/* The fault re-executed: the earlier handler got the real siginfo. */
		T_ASSERT(m.code == (sig == SIGSEGV ? SEGV_MAPERR : BUS_ADRERR) &&
			 m.addr == hello.fault_addr,
			 "%s: earlier handler saw code %d addr 0x%" PRIx64, kinds[kind].name,
			 m.code, m.addr);
	}
	T_ASSERT(read(fd, &m, sizeof(m)) == 0, "%s: the earlier handler ran twice",
		 kinds[kind].name);
	close(fd);
	check_ring(&hello, kind, pid);
	printf("%s: died by signal %d, earlier handler ran, ring checked\n", kinds[kind].name,
	       sig);
}

int main(void)
{
	char *dir = strdup(t_tmpdir("crash"));
	int k;

#if defined(__SANITIZE_ADDRESS__)
	{
		const char *o = getenv("ASAN_OPTIONS");

		if (!o || !strstr(o, "handle_segv=0") || !strstr(o, "handle_abort=0") ||
		    !strstr(o, "handle_sigbus=0")) {
			printf("SKIP: AddressSanitizer would handle the signals itself; run with "
			       "ASAN_OPTIONS from tests/meson.build\n");
			return T_SKIP;
		}
		printf("sanitized build: ASAN_OPTIONS=%s\n", o);
	}
#endif
	for (k = CRASH_SEGV; k <= CRASH_RING_GONE; k++)
		one(dir, (enum crash_kind)k);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
