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
	s.c = atomic_load_explicit(A64(&lw->hdr->candidate), memory_order_relaxed);
	/* A lap collision drops a record; this one is worth a few tickets. */
	for (i = 0; i < 4 && ring_write(&lw->w, &s) != 0; i++)
		;
	atomic_store_explicit(A32(&lw->hdr->crash_signo), (uint32_t)sig, memory_order_relaxed);
	atomic_store_explicit(A32(&lw->hdr->state), LW_STATE_CRASHED, memory_order_release);
}

void crash_handler_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	int idx = crash_index_sigsafe(sig);
	struct lw *lw = atomic_load_explicit(&crash_lw, memory_order_acquire);

	(void)uc;
	/* One record per process: a second crashing thread only chains. */
	if (lw && atomic_exchange_explicit(&crash_recorded, 1, memory_order_acq_rel) == 0)
		crash_record_sigsafe(lw, sig, si);
	if (idx >= 0)
		sigaction(sig, &crash_prev[idx], NULL);
	if (!si || si->si_code <= 0 || sig == SIGTRAP || sig == SIGABRT)
		raise(sig); /* pending until we return, then the restored disposition runs */
	errno = saved_errno;
}

