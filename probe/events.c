/*
 * The event functions: the probe's hot path. Each builds a 64-byte record on
 * the stack and writes it with the ring protocol (src/ring_write.h). No
 * locks, no malloc, no waiting; the only system calls are clock reads
 * (vDSO) and, at stage boundaries without a sampler thread, one pread of the
 * kept-open /proc/self/statm.
 *
 * Memory orders. The ring's slots are ordered by the write protocol
 * (src/ring_write.h). The header fields written here (open_count,
 * last_stage, candidate, ok_candidate, dropped) are single words that a
 * reader takes as they stand: after the process died, or in a live
 * snapshot where each word alone must be whole but no two need agree. They
 * are relaxed. The samples of memory.c are read with the orders described
 * at each load.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../src/digest.h"
#include "../src/vocab.h"
#include "internal.h"

uint64_t lw_now_ns(int clock_id)
{
	struct timespec ts;

	if (clock_gettime(clock_id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if !defined(__BIONIC__)
static _Thread_local uint32_t cached_tid;
#endif

/* In a forked child, from the fork handler of setup.c. The child is one
 * thread: the one that called fork(), whose cached id is now its parent's. */
void lw_tid_forget(void)
{
#if !defined(__BIONIC__)
	cached_tid = 0;
#endif
}

/* The calling thread's id. bionic caches it in its thread struct; elsewhere
 * we cache it in thread-local storage after one system call per thread. */
static uint32_t current_tid(void)
{
#if defined(__BIONIC__)
	return (uint32_t)gettid();
#else
	if (cached_tid == 0)
		cached_tid = (uint32_t)syscall(SYS_gettid);
	return cached_tid;
#endif
}

void lw_event_fill(struct lw *lw, struct lw_ring_slot *s, enum lw_event_type type,
		   unsigned stage, unsigned code)
{
	uint64_t now = lw_now_ns(CLOCK_MONOTONIC);
	/* Pairs with the release store of rss_at_ns in memory_sample_sigsafe():
	 * a sample time seen here means its rss_kb is seen too (or a newer one;
	 * a record may pair a sample with the next one's time, never with no
	 * sample). */
	uint64_t at = atomic_load_explicit(&lw->rss_at_ns, memory_order_acquire);
	uint64_t age;

	memset(s, 0, sizeof(*s));
	s->t_mono_ns = now;
	s->type = (uint8_t)type;
	s->stage = (uint8_t)stage;
	s->code = (uint8_t)code;
	s->tid = current_tid();
	if (at) {
		/* Relaxed: ordered after the acquire load of rss_at_ns above. */
		s->rss_kb = atomic_load_explicit(&lw->rss_kb, memory_order_relaxed);
		age = now > at ? (now - at) / 1000000u : 0;
		s->rss_age_ms = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
		/* Relaxed: only says where the sample came from; a record
		 * written while the sampler starts or stops may say either. */
		if (atomic_load_explicit(&lw->sampler_running, memory_order_relaxed))
			s->flags |= LW_SLOT_F_RSS_SAMPLED;
	}
}

static int refuse(struct lw *lw)
{
	/* A counter: only its total matters. */
	atomic_fetch_add_explicit(A64(&lw->hdr->dropped), 1, memory_order_relaxed);
	return -EINVAL;
}

/* Put a clock triple into a/b: BOOTTIME and REALTIME for the event's
 * MONOTONIC time, read directly or derived from the sampler's offsets. */
static void fill_clocks(struct lw *lw, struct lw_ring_slot *s)
{
	/* The offsets are written before sampler_running is set
	 * (memory_sampler_start()), by the thread that set it, before any
	 * other thread can see the handle: relaxed loads see them. Each offset
	 * is one word, read whole; the two may come from successive samples,
	 * which differ by the clocks' drift over one period. */
	if (atomic_load_explicit(&lw->sampler_running, memory_order_relaxed)) {
		s->a = s->t_mono_ns + atomic_load_explicit(&lw->boot_off_ns, memory_order_relaxed);
		s->b = s->t_mono_ns + atomic_load_explicit(&lw->real_off_ns, memory_order_relaxed);
		s->flags |= LW_SLOT_F_CLOCK_SAMPLED;
	} else {
		s->a = lw_now_ns(CLOCK_BOOTTIME);
		s->b = lw_now_ns(CLOCK_REALTIME);
	}
}

static int stage_event(struct lw *lw, enum lw_event_type type, enum lw_stage stage, unsigned code)
{
	struct lw_ring_slot s;

	if (!atomic_load_explicit(&lw->sampler_running, memory_order_relaxed))
		memory_sample_sigsafe(lw);
	lw_event_fill(lw, &s, type, stage, code);
	fill_clocks(lw, &s);
	/* Relaxed: the candidate current now, set by lw_candidate(); a stage
	 * event racing a candidate change from another thread may carry either. */
	s.c = atomic_load_explicit(A64(&lw->hdr->candidate), memory_order_relaxed);
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

int lw_stage_begin(struct lw *lw, enum lw_stage stage)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (stage <= LW_STAGE_NONE || stage >= LW_STAGE_COUNT)
		return refuse(lw);
	/* Relaxed: the header's open stages are read after death (the ring
	 * may have lapped past the begin record), each count on its own. The
	 * begin record itself is ordered by the ring protocol. */
	atomic_fetch_add_explicit(A32(&lw->hdr->open_count[stage]), 1, memory_order_relaxed);
	atomic_store_explicit(A32(&lw->hdr->last_stage), (uint32_t)stage, memory_order_relaxed);
	return stage_event(lw, LW_EV_STAGE_BEGIN, stage, 0);
}

int lw_stage_end(struct lw *lw, enum lw_stage stage, enum lw_error err)
{
	_Atomic uint32_t *open;
	uint32_t n;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (stage <= LW_STAGE_NONE || stage >= LW_STAGE_COUNT || (int)err < 0 ||
	    err > LW_ERR_OTHER)
		return refuse(lw);
	/* Decrement without going below zero: an unmatched end stays visible
	 * in the ring but cannot close another thread's stage. Relaxed, as the
	 * increment in lw_stage_begin(): the CAS makes the count exact. */
	open = A32(&lw->hdr->open_count[stage]);
	n = atomic_load_explicit(open, memory_order_relaxed);
	while (n > 0 && !atomic_compare_exchange_weak_explicit(open, &n, n - 1, memory_order_relaxed,
							       memory_order_relaxed))
		;
	/* Relaxed: the last candidate that finished an inference, read at the
	 * next start (advice.c) from a dead run's header. */
	if (stage == LW_STAGE_INFERENCE && err == LW_ERR_NONE)
		atomic_store_explicit(A64(&lw->hdr->ok_candidate),
				      atomic_load_explicit(A64(&lw->hdr->candidate),
							   memory_order_relaxed),
				      memory_order_relaxed);
	return stage_event(lw, LW_EV_STAGE_END, stage, err);
}

/* A mark record of kind with a and b, in the open stage. */
static int mark_event(struct lw *lw, enum lw_mark kind, uint64_t a, uint64_t b)
{
	struct lw_ring_slot s;

	lw_event_fill(lw, &s, LW_EV_MARK, ring_open_stage(lw->hdr), kind);
	s.a = a;
	s.b = b;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

int lw_mark(struct lw *lw, enum lw_mark kind, uint64_t value)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	/* peer_died has a call of its own, the one way to write it: its
	 * record holds a pid and a name's digest, not one value. */
	if (!vocab_name(&vocab_marks, (int)kind) || kind == LW_MARK_PEER_DIED)
		return refuse(lw);
	/* The conditions that lw_advice() compares with the deaths' (advice.c).
	 * Relaxed: one word each, read whole. */
	if (kind == LW_MARK_DELEGATE)
		atomic_store_explicit(&lw->delegate, value, memory_order_relaxed);
	else if (kind == LW_MARK_RUNTIME_VERSION)
		atomic_store_explicit(&lw->runtime_version, value, memory_order_relaxed);
	return mark_event(lw, kind, value, 0);
}

int lw_peer_died(struct lw *lw, int32_t pid, const char *process_name)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (pid <= 0 || !process_name || !*process_name)
		return refuse(lw);
	return mark_event(lw, LW_MARK_PEER_DIED, (uint64_t)pid, lw_digest(process_name));
}

uint64_t lw_digest(const char *name)
{
	return digest_name(name);
}

int lw_candidate(struct lw *lw, const char *name)
{
	struct lw_ring_slot s;
	uint64_t d;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!name || !*name)
		return refuse(lw);
	d = lw_digest(name);
	/* Relaxed: one word, read whole by later events, the crash handler
	 * and, after death, the analyzer; the candidate record that follows
	 * is what orders the change in the ring. */
	atomic_store_explicit(A64(&lw->hdr->candidate), d, memory_order_relaxed);
	lw_event_fill(lw, &s, LW_EV_CANDIDATE, ring_open_stage(lw->hdr), 0);
	s.a = d;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

int lw_memory_sample(struct lw *lw)
{
	struct lw_ring_slot s;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	rc = memory_sample_sigsafe(lw);
	if (rc < 0)
		return rc;
	lw_event_fill(lw, &s, LW_EV_MEMORY, ring_open_stage(lw->hdr), 0);
	s.a = (uint64_t)rc; /* VmSize in kB */
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}
