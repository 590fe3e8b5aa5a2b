/*
 * The fatal-signal handler. Everything reachable from the handler is
 * async-signal-safe: the ring write path (atomics, memcpy, CRC), clock_gettime,
 * sigaction, raise and a raw gettid. tests/probe-signal-safety checks the
 * undefined symbols of this object against an allow-list.
 *
 * On a fatal signal: write one crash record, mark the header CRASHED,
 * restore the disposition that was installed before ours, and let the
 * signal take its course. A hardware fault returns and re-executes the
 * faulting instruction, so the previous handler (debuggerd's on Android)
 * sees the genuine siginfo; a sent signal (abort, kill, tgkill) or a trap
 * that resumes after the instruction is raised again.
 *
 * crash_record_sigsafe() builds its record by hand instead of calling
 * lw_event_fill() (events.c). That function reads the thread id from
 * _Thread_local storage, and in a shared library loaded with dlopen(), as
 * System.loadLibrary() loads it, the first access to such storage in a
 * thread goes through __tls_get_addr(), which may allocate: not
 * async-signal-safe. It is also in another object, whose undefined symbols
 * the signal-safety check would then have to admit; the check (tests/probe-signal-safety.py) links only this object
 * and the CRC and compares its undefined symbols with
 * tests/signal-safe.allow. So the crash path keeps its own copy of those
 * few lines, with a raw gettid system call.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

const int crash_signals[LW_CRASH_SIGNALS] = { SIGSEGV, SIGBUS, SIGABRT,
						     SIGFPE,  SIGILL, SIGTRAP };
struct sigaction crash_prev[LW_CRASH_SIGNALS];
struct lw *_Atomic crash_lw;
atomic_int crash_recorded;

static int crash_index_sigsafe(int sig)
{
	int i;

	for (i = 0; i < LW_CRASH_SIGNALS; i++)
		if (crash_signals[i] == sig)
			return i;
	return -1;
}

static void crash_record_sigsafe(struct lw *lw, int sig, const siginfo_t *si)
{
	struct lw_ring_slot s;
	struct timespec ts;
	uint64_t at;
	int i;

	memset(&s, 0, sizeof(s));
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		s.t_mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	s.type = LW_EV_CRASH;
	s.stage = (uint8_t)ring_open_stage(lw->hdr);
	s.code = (uint8_t)sig;
	s.tid = (uint32_t)syscall(SYS_gettid);
	/* Relaxed, both: the crashing thread may be the one that sampled, or
	 * any other; a value with a neighbouring sample's age is still a real
	 * sample, and the handler must not wait for a better pair. */
	s.rss_kb = atomic_load_explicit(&lw->rss_kb, memory_order_relaxed);
	at = atomic_load_explicit(&lw->rss_at_ns, memory_order_relaxed);
	if (at && s.t_mono_ns > at)
		s.rss_age_ms = (s.t_mono_ns - at) / 1000000u > UINT32_MAX
				       ? UINT32_MAX
				       : (uint32_t)((s.t_mono_ns - at) / 1000000u);
	if (atomic_load_explicit(&lw->sampler_running, memory_order_relaxed))
		s.flags |= LW_SLOT_F_RSS_SAMPLED;
	if (si) {
		s.a = (uint64_t)(uintptr_t)si->si_addr;
		s.b = (uint64_t)(int64_t)si->si_code;
		if (si->si_code <= 0)
			s.d = (uint32_t)si->si_pid;
	}
	/* Relaxed: the candidate current at the crash, one word. */
	s.c = atomic_load_explicit(A64(&lw->hdr->candidate), memory_order_relaxed);
	/* A lap collision drops a record; this one is worth a few tickets. */
	for (i = 0; i < 4 && ring_write(&lw->w, &s) != 0; i++)
		;
	/* The signal, then the state with release: a reader that sees
	 * CRASHED (a live reader, or the page cache after death) also sees the
	 * signal and the crash record published before it. */
	atomic_store_explicit(A32(&lw->hdr->crash_signo), (uint32_t)sig, memory_order_relaxed);
	atomic_store_explicit(A32(&lw->hdr->state), LW_STATE_CRASHED, memory_order_release);
}

void crash_handler_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	int idx = crash_index_sigsafe(sig);
	/* Pairs with the compare-exchange that sets crash_lw in
	 * lw_crash_install() (seq_cst, so at least release): the handle's
	 * fields, written by lw_open() before, are seen whole here. */
	struct lw *lw = atomic_load_explicit(&crash_lw, memory_order_acquire);

	(void)uc;
	/* A crash in a forked child is not this run's: the child inherited the
	 * handler, not the ring. The pid from a system call, since a child of a
	 * raw clone() may still see its parent's in a cached getpid(). */
	if (lw && (pid_t)syscall(SYS_getpid) != lw->pid)
		lw = NULL;
	/* One record per process: a second crashing thread only chains. The
	 * exchange is what makes "first" one step; acq_rel also orders the
	 * first thread's record before a second thread's chaining, which
	 * needs nothing more. */
	if (lw && atomic_exchange_explicit(&crash_recorded, 1, memory_order_acq_rel) == 0)
		crash_record_sigsafe(lw, sig, si);
	if (idx >= 0)
		sigaction(sig, &crash_prev[idx], NULL);
	if (!si || si->si_code <= 0 || sig == SIGTRAP || sig == SIGABRT)
		raise(sig); /* pending until we return, then the restored disposition runs */
	errno = saved_errno;
}

