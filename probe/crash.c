/*
 * The fatal-signal handler. Everything reachable from the handler is
 * async-signal-safe: the ring write path (atomics, memcpy, CRC), clock_gettime,
 * sigaction, raise and a raw gettid. tests/probe-signal-safety checks the
 * undefined symbols of this object against an allow-list.
 *
 * On a fatal signal: stop the other threads' event functions (lw_gate),
 * write one crash record, mark the header CRASHED, restore the disposition
 * that was installed before ours, and let the signal take its course. A
 * hardware fault returns and re-executes the faulting instruction, so the
 * previous handler (debuggerd's on Android) sees the genuine siginfo; a
 * sent signal (abort, kill, tgkill) or a trap that resumes after the
 * instruction is raised again.
 *
 * Only the first fatal signal of the process is recorded, and the process
 * dies by it. Its thread owns the crash (crash_owner). Another thread that
 * takes a fatal signal meanwhile waits in the handler rather than kill the
 * process by its own signal, maybe before the record is written; a second
 * signal on the owner's thread is dropped if it was sent, and if it is a
 * fault (the handler's own), the first signal is delivered again at once.
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
atomic_int crash_owner;
/* Defined here, not in setup.c, so that the crash path's object needs no
 * symbol of another (tests/probe-signal-safety.py). */
_Atomic uint32_t lw_gate;

#define CRASH_WAIT_S 10

/* The first fatal signal, kept by its thread for a second signal on the
 * same thread (crash_nested_sigsafe()), which runs in that thread: plain
 * variables, ordered against the handler they interrupt by signal fences. */
static int crash_first_sig;
static siginfo_t crash_first_si;
static int crash_first_has_si;
static int crash_first_done; /* its record and header are written */

static int crash_index_sigsafe(int sig)
{
	int i;

	for (i = 0; i < LW_CRASH_SIGNALS; i++)
		if (crash_signals[i] == sig)
			return i;
	return -1;
}

/* 1 for a fault of the thread's own, whose instruction runs again when the
 * handler returns; 0 for a signal sent by a process (kill, tgkill, abort)
 * or a trap that resumes after its instruction, which must be raised
 * again. */
static int crash_is_fault_sigsafe(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 && sig != SIGTRAP && sig != SIGABRT;
}

static void crash_record_sigsafe(struct lw *lw, int sig, const siginfo_t *si, uint32_t tid)
{
	struct lw_ring_slot s;
	struct timespec ts;
	uint64_t at;
	uint32_t i;

	memset(&s, 0, sizeof(s));
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		s.t_mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	s.type = LW_EV_CRASH;
	s.stage = (uint8_t)ring_open_stage(lw->hdr);
	s.code = (uint8_t)sig;
	s.tid = tid;
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
	/* A lap collision drops a record (a writer a lap behind still holds
	 * the slot, or this thread was held up while the ring lapped); the
	 * next ticket's slot is another one. The other threads are held off
	 * the ring now (lw_gate), so a few tries are enough; a whole lap bounds
	 * them. */
	for (i = 0; i <= lw->w.mask && ring_write(&lw->w, &s) != 0; i++)
		;
	/* The signal, then the state with release: a reader that sees
	 * CRASHED (a live reader, or the page cache after death) also sees the
	 * signal and the crash record published before it. */
	atomic_store_explicit(A32(&lw->hdr->crash_signo), (uint32_t)sig, memory_order_relaxed);
	atomic_store_explicit(A32(&lw->hdr->state), LW_STATE_CRASHED, memory_order_release);
}

/* Restore the disposition that was there before ours and let the signal
 * take its course: a fault runs again on return, a sent signal is raised
 * again (pending until the handler returns). */
static void crash_chain_sigsafe(int sig, const siginfo_t *si)
{
	int idx = crash_index_sigsafe(sig);

	if (idx >= 0)
		sigaction(sig, &crash_prev[idx], NULL);
	if (!crash_is_fault_sigsafe(sig, si))
		raise(sig);
}

/*
 * A second fatal signal on the thread that handles the first. A sent one
 * is dropped: the first kills the process once its handler returns. A
 * fault means the handler itself faulted (the ring's memory went away, for
 * one) or the handler that was there before ours did: returning would run
 * the faulting instruction again, forever. The process dies by the first
 * signal now: sent again with its own siginfo, so that the earlier handler
 * (debuggerd's, on Android) still sees the fault, if it has not run yet;
 * then by the default action. Does not return after a fault.
 */
static void crash_nested_sigsafe(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	sigset_t first;
	int idx;

	if (!crash_is_fault_sigsafe(sig, si))
		return;
	atomic_signal_fence(memory_order_seq_cst); /* see crash_first_* */
	sigemptyset(&first);
	sigaddset(&first, crash_first_sig);
	idx = crash_index_sigsafe(crash_first_sig);
	if (!crash_first_done && idx >= 0) {
		sigaction(crash_first_sig, &crash_prev[idx], NULL);
		if (crash_first_has_si)
			syscall(SYS_rt_tgsigqueueinfo, syscall(SYS_getpid), syscall(SYS_gettid),
				crash_first_sig, &crash_first_si);
		else
			raise(crash_first_sig);
		/* Blocked while its handler runs: unblocked, it is delivered now. */
		sigprocmask(SIG_UNBLOCK, &first, NULL);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(crash_first_sig, &dfl, NULL);
	raise(crash_first_sig);
	sigprocmask(SIG_UNBLOCK, &first, NULL);
	for (;;)
		sleep(1); /* not reached: the default action of a fatal signal kills */
}

/* Another thread than the owner's: wait for the first signal to kill the
 * process, CRASH_WAIT_S seconds at most (debuggerd may take that long to
 * dump it), then let this signal take its course. The wait ends early only
 * if the process survived the first signal, which an earlier handler may
 * have chosen. */
static void crash_wait_sigsafe(int sig, const siginfo_t *si)
{
	struct timespec start, now;

	if (clock_gettime(CLOCK_MONOTONIC, &start) == 0) {
		do
			sleep(1);
		while (clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
		       now.tv_sec - start.tv_sec < CRASH_WAIT_S);
	}
	crash_chain_sigsafe(sig, si);
}

/*
 * The handler. The first fatal signal of the process is recorded once and
 * the process dies by it: its thread owns the crash. Another thread that
 * takes a fatal signal meanwhile waits here until the process dies (it
 * would otherwise kill it by its own signal, perhaps before the first was
 * recorded); a second signal on the owner's thread is handled by
 * crash_nested_sigsafe().
 */
void crash_handler_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	/* Pairs with the compare-exchange that sets crash_lw in
	 * lw_crash_install() (seq_cst, so at least release): the handle's
	 * fields, written by lw_open() before, are seen whole here. */
	struct lw *lw = atomic_load_explicit(&crash_lw, memory_order_acquire);
	int tid, owner = 0;

	(void)uc;
	/* A crash in a forked child is not this run's: the child inherited the
	 * handler, not the ring, and a vfork child shares the parent's memory,
	 * crash_owner included. The pid from a system call, since a child of a
	 * raw clone() may still see its parent's in a cached getpid(). */
	if (lw && (pid_t)syscall(SYS_getpid) != lw->pid) {
		crash_chain_sigsafe(sig, si);
		errno = saved_errno;
		return;
	}
	tid = (int)syscall(SYS_gettid);
	/* The compare-exchange makes "first" one step. Relaxed: the other
	 * threads read nothing that the owner writes (they wait), and the
	 * owner's own nested handler runs on its thread. */
	if (atomic_compare_exchange_strong_explicit(&crash_owner, &owner, tid,
						    memory_order_relaxed, memory_order_relaxed)) {
		crash_first_sig = sig;
		crash_first_has_si = si != NULL;
		if (si)
			memcpy(&crash_first_si, si, sizeof(crash_first_si));
		atomic_signal_fence(memory_order_seq_cst); /* see crash_first_* */
		/* Close the gate first (lw_usable()), then write. Relaxed: the
		 * other threads only need to see it soon, not in any order. */
		if (lw) {
			atomic_fetch_or_explicit(&lw_gate, LW_GATE_CRASHED, memory_order_relaxed);
			crash_record_sigsafe(lw, sig, si, (uint32_t)tid);
		}
		atomic_signal_fence(memory_order_seq_cst);
		crash_first_done = 1;
		atomic_signal_fence(memory_order_seq_cst);
		crash_chain_sigsafe(sig, si);
	} else if (owner == tid) {
		crash_nested_sigsafe(sig, si);
	} else {
		crash_wait_sigsafe(sig, si);
	}
	errno = saved_errno;
}
