/*
 * The event functions: the probe's hot path. Each builds a 64-byte record on
 * the stack and writes it with the ring protocol (src/ring_write.h). No
 * locks, no malloc, no waiting; the only system calls are clock reads
 * (vDSO) and, at stage boundaries without a sampler thread, one pread of the
 * kept-open /proc/self/statm (lw_memory_sample() adds one of
 * /proc/self/status).
 *
 * Memory orders. The ring's slots are ordered by the write protocol
 * (src/ring_write.h). The header fields written here (open_count,
 * last_stage, candidate, ok_candidate, dropped, and the session table's)
 * are single words that a
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

_Static_assert(LW_SESSIONS_MAX == LW_RING_SESSION_SLOTS, "one session table entry per id");

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

/* Refuse a call: count it, write nothing, return err (-EINVAL for bad
 * arguments, -EBUSY and -ENOENT for a session in the wrong state). */
static int refuse(struct lw *lw, int err)
{
	/* A counter: only its total matters. */
	atomic_fetch_add_explicit(A64(&lw->hdr->dropped), 1, memory_order_relaxed);
	return err;
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

/* A stage or session record of session id: a fresh RSS sample (unless the
 * sampler runs), a clock triple, the session's candidate in c and its id in
 * d (schemas/ring-format.md, section 8). */
static int session_event(struct lw *lw, enum lw_event_type type, enum lw_stage stage,
			 unsigned code, uint32_t id)
{
	struct lw_ring_slot s;

	if (!atomic_load_explicit(&lw->sampler_running, memory_order_relaxed))
		memory_sample_sigsafe(lw);
	lw_event_fill(lw, &s, type, stage, code);
	fill_clocks(lw, &s);
	/* Relaxed: the session's candidate now, set by lw_candidate() or
	 * lw_session_open(); an event racing a change from another thread may
	 * carry either. */
	s.c = atomic_load_explicit(A64(&ring_sessions(lw->hdr)[id].candidate),
				   memory_order_relaxed);
	s.d = id;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

/* Session id's entry when id is in range and the session is open, else
 * NULL with *err set. Relaxed: a stage racing the session's close from
 * another thread may be taken or refused. */
static struct lw_ring_session *open_session(struct lw *lw, uint32_t id, int *err)
{
	struct lw_ring_session *e;

	if (id >= LW_SESSIONS_MAX) {
		*err = -EINVAL;
		return NULL;
	}
	e = &ring_sessions(lw->hdr)[id];
	if (atomic_load_explicit(A32(&e->state), memory_order_relaxed) != LW_SESSION_OPEN) {
		*err = -ENOENT;
		return NULL;
	}
	return e;
}

/* Decrement a count without going below zero; 1 if it was decremented.
 * Relaxed, as the increments: the CAS makes the count exact. */
static int count_down(_Atomic uint32_t *n_at)
{
	uint32_t n = atomic_load_explicit(n_at, memory_order_relaxed);

	while (n > 0 && !atomic_compare_exchange_weak_explicit(n_at, &n, n - 1, memory_order_relaxed,
							       memory_order_relaxed))
		;
	return n > 0;
}

int lw_session_stage_begin(struct lw *lw, uint32_t session, enum lw_stage stage)
{
	struct lw_ring_session *e;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (stage <= LW_STAGE_NONE || stage >= LW_STAGE_COUNT)
		return refuse(lw, -EINVAL);
	e = open_session(lw, session, &rc);
	if (!e)
		return refuse(lw, rc);
	/* Relaxed: the open stages of the session table and the header are
	 * read after death (the ring may have lapped past the begin record),
	 * each count on its own. The begin record itself is ordered by the
	 * ring protocol. */
	atomic_fetch_add_explicit(A32(&e->open_count[stage]), 1, memory_order_relaxed);
	atomic_store_explicit(A32(&e->last_stage), (uint32_t)stage, memory_order_relaxed);
	atomic_fetch_add_explicit(A32(&lw->hdr->open_count[stage]), 1, memory_order_relaxed);
	atomic_store_explicit(A32(&lw->hdr->last_stage), (uint32_t)stage, memory_order_relaxed);
	return session_event(lw, LW_EV_STAGE_BEGIN, stage, 0, session);
}

int lw_session_stage_end(struct lw *lw, uint32_t session, enum lw_stage stage, enum lw_error err)
{
	struct lw_ring_session *e;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (stage <= LW_STAGE_NONE || stage >= LW_STAGE_COUNT || (int)err < 0 ||
	    err > LW_ERR_OTHER)
		return refuse(lw, -EINVAL);
	e = open_session(lw, session, &rc);
	if (!e)
		return refuse(lw, rc);
	/* An unmatched end stays visible in the ring but cannot close
	 * another thread's or another session's stage: the process's count
	 * goes down only with the session's. */
	if (count_down(A32(&e->open_count[stage])))
		count_down(A32(&lw->hdr->open_count[stage]));
	/* Relaxed: the last candidate that finished an inference, read at the
	 * next start (advice.c) from a dead run's header. */
	if (stage == LW_STAGE_INFERENCE && err == LW_ERR_NONE)
		atomic_store_explicit(A64(&lw->hdr->ok_candidate),
				      atomic_load_explicit(A64(&e->candidate), memory_order_relaxed),
				      memory_order_relaxed);
	return session_event(lw, LW_EV_STAGE_END, stage, err, session);
}

int lw_stage_begin(struct lw *lw, enum lw_stage stage)
{
	return lw_session_stage_begin(lw, 0, stage);
}

int lw_stage_end(struct lw *lw, enum lw_stage stage, enum lw_error err)
{
	return lw_session_stage_end(lw, 0, stage, err);
}

int lw_session_open(struct lw *lw, uint32_t session, const char *candidate_name)
{
	struct lw_ring_session *e;
	uint32_t st;
	uint64_t d;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (session == 0 || session >= LW_SESSIONS_MAX || !candidate_name || !*candidate_name)
		return refuse(lw, -EINVAL);
	e = &ring_sessions(lw->hdr)[session];
	/* The CAS claims the session: of two openers, one wins. Relaxed: the
	 * fields below are single words that a reader takes as they stand
	 * (schemas/ring-format.md, 5.1); the record orders the open. */
	st = atomic_load_explicit(A32(&e->state), memory_order_relaxed);
	do {
		if (st == LW_SESSION_OPEN)
			return refuse(lw, -EBUSY);
	} while (!atomic_compare_exchange_weak_explicit(A32(&e->state), &st, LW_SESSION_OPEN,
						       memory_order_relaxed, memory_order_relaxed));
	d = lw_digest(candidate_name);
	atomic_store_explicit(A64(&e->candidate), d, memory_order_relaxed);
	atomic_store_explicit(A64(&e->opened_mono_ns), lw_now_ns(CLOCK_MONOTONIC),
			      memory_order_relaxed);
	atomic_store_explicit(A32(&e->result), 0, memory_order_relaxed);
	atomic_fetch_add_explicit(A32(&e->opens), 1, memory_order_relaxed);
	atomic_store_explicit(A64(&lw->hdr->candidate), d, memory_order_relaxed);
	return session_event(lw, LW_EV_SESSION_OPEN, LW_STAGE_NONE, 0, session);
}

int lw_session_close(struct lw *lw, uint32_t session, enum lw_error result)
{
	struct lw_ring_session *e;
	uint32_t open = LW_SESSION_OPEN;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (session == 0 || session >= LW_SESSIONS_MAX || (int)result < 0 ||
	    result > LW_ERR_OTHER)
		return refuse(lw, -EINVAL);
	e = &ring_sessions(lw->hdr)[session];
	/* Relaxed, as in lw_session_open(): of two closers, one wins. */
	if (!atomic_compare_exchange_strong_explicit(A32(&e->state), &open, LW_SESSION_CLOSED,
						     memory_order_relaxed, memory_order_relaxed))
		return refuse(lw, -ENOENT);
	atomic_store_explicit(A32(&e->result), (uint32_t)result, memory_order_relaxed);
	return session_event(lw, LW_EV_SESSION_CLOSE, LW_STAGE_NONE, result, session);
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
	/* The marks of two values have calls of their own, the one way to
	 * write each: lw_peer_died(), lw_payload(), lw_cache(), lw_receipt(). */
	if (!vocab_name(&vocab_marks, (int)kind) || kind == LW_MARK_PEER_DIED ||
	    kind == LW_MARK_PAYLOAD || kind == LW_MARK_CACHE || kind == LW_MARK_RECEIPT)
		return refuse(lw, -EINVAL);
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
		return refuse(lw, -EINVAL);
	return mark_event(lw, LW_MARK_PEER_DIED, (uint64_t)pid, lw_digest(process_name));
}

int lw_payload(struct lw *lw, enum lw_payload_class cls, uint64_t bytes)
{
	uint64_t bucket = 0;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!vocab_name(&vocab_payload_classes, (int)cls))
		return refuse(lw, -EINVAL);
	/* The size's bit length: k for [2^(k-1), 2^k), 0 for empty. */
	while (bucket < 64 && bytes >> bucket)
		bucket++;
	return mark_event(lw, LW_MARK_PAYLOAD, (uint64_t)cls, bucket);
}

int lw_cache(struct lw *lw, enum lw_cache_op op, const char *key)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!vocab_name(&vocab_cache_ops, (int)op) || !key || !*key)
		return refuse(lw, -EINVAL);
	return mark_event(lw, LW_MARK_CACHE, (uint64_t)op, lw_digest(key));
}

int lw_receipt(struct lw *lw, const char *candidate_name, uint64_t files_digest)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!candidate_name || !*candidate_name || files_digest == 0)
		return refuse(lw, -EINVAL);
	return mark_event(lw, LW_MARK_RECEIPT, lw_digest(candidate_name), files_digest);
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
		return refuse(lw, -EINVAL);
	d = lw_digest(name);
	/* Relaxed: one word each, read whole by later events, the crash
	 * handler and, after death, the analyzer; the candidate record that
	 * follows is what orders the change in the ring. Session 0's. */
	atomic_store_explicit(A64(&ring_sessions(lw->hdr)[0].candidate), d, memory_order_relaxed);
	atomic_store_explicit(A64(&lw->hdr->candidate), d, memory_order_relaxed);
	lw_event_fill(lw, &s, LW_EV_CANDIDATE, ring_open_stage(lw->hdr), 0);
	s.a = d;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

#define KB_MAX 0xffffffffu /* each figure of the composition, at most */

static uint64_t clamp_kb(uint64_t kb)
{
	return kb > KB_MAX ? KB_MAX : kb;
}

/* A memory record of statm's VmSize and the composition (8.1). */
int memory_record_write(struct lw *lw, const struct memory_statm *st,
			const struct memory_composition *c)
{
	struct lw_ring_slot s;

	lw_event_fill(lw, &s, LW_EV_MEMORY, ring_open_stage(lw->hdr), c->source);
	s.a = st->size_kb > 0x7fffffff ? 0x7fffffff : st->size_kb;
	s.b = clamp_kb(c->anon_kb) | clamp_kb(c->file_kb) << 32;
	s.c = clamp_kb(c->shmem_kb) | clamp_kb(c->swap_kb) << 32;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

/* PSI's record: the first reading, then one whose "some avg10" moved by
 * 1.00% or more since the last written, or that began or ended a stall
 * ("some" or "full avg10" became non-zero, or zero); else once per run one
 * that says it is not readable, and no more reads. The sampler calls it,
 * or without one lw_memory_sample(), so one writer at a time in practice;
 * calls from several threads may both write a change: a record more,
 * never one less. The last values are relaxed: they order nothing else. */
void memory_psi_record(struct lw *lw)
{
	struct memory_psi p;
	struct lw_ring_slot s;
	uint32_t last;
	int rc;

	if (atomic_load_explicit(&lw->psi_unreadable_said, memory_order_relaxed))
		return;
	rc = memory_psi_read(lw, &p);
	if (rc != 0) {
		if (atomic_exchange_explicit(&lw->psi_unreadable_said, 1, memory_order_relaxed))
			return;
	} else if ((last = atomic_load_explicit(&lw->psi_last_some, memory_order_relaxed)) != 0) {
		uint32_t was = last - 1;
		uint32_t d = p.some_avg10 > was ? p.some_avg10 - was : was - p.some_avg10;

		if (d < 100 && (p.some_avg10 != 0) == (was != 0) &&
		    (p.full_avg10 != 0) ==
			    atomic_load_explicit(&lw->psi_last_full, memory_order_relaxed))
			return;
	}
	lw_event_fill(lw, &s, LW_EV_PRESSURE, ring_open_stage(lw->hdr), LW_PRESSURE_PSI);
	if (rc != 0) {
		s.d = (uint32_t)-rc;
	} else {
		s.a = p.some_avg10;
		s.b = p.full_avg10;
		s.c = p.some_total_us;
	}
	if (ring_write(&lw->w, &s) == 0 && rc == 0) {
		atomic_store_explicit(&lw->psi_last_some, p.some_avg10 + 1, memory_order_relaxed);
		atomic_store_explicit(&lw->psi_last_full, p.full_avg10 != 0, memory_order_relaxed);
	}
}

/* lw_memory_sample(): statm, then status, then the record, then PSI
 * without a sampler. 0 or -errno. */
int memory_record_sigsafe(struct lw *lw)
{
	struct memory_statm st;
	struct memory_composition c;
	int rc = memory_statm_sigsafe(lw, &st);

	if (rc != 0)
		return rc;
	memory_composition_sigsafe(lw, &st, &c);
	rc = memory_record_write(lw, &st, &c);
	/* Relaxed: where samples come from, as in lw_event_fill(). */
	if (!atomic_load_explicit(&lw->sampler_running, memory_order_relaxed))
		memory_psi_record(lw);
	return rc;
}

int lw_memory_sample(struct lw *lw)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	/* statm and status (memory.c, memory-proc.c), a record of both, and
	 * without a sampler PSI. */
	return memory_record_sigsafe(lw);
}

int lw_memory_graphics(struct lw *lw, uint64_t kb)
{
	struct lw_ring_slot s;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	lw_event_fill(lw, &s, LW_EV_GRAPHICS, ring_open_stage(lw->hdr), LW_GRAPHICS_APP);
	s.a = kb;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}

int lw_memory_pressure(struct lw *lw, enum lw_pressure_source source, uint32_t level,
		       uint64_t avail_kb, uint64_t threshold_kb)
{
	struct lw_ring_slot s;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!vocab_name(&vocab_pressure_sources, (int)source))
		return refuse(lw, -EINVAL);
	lw_event_fill(lw, &s, LW_EV_PRESSURE, ring_open_stage(lw->hdr), source);
	s.a = level;
	s.b = avail_kb;
	s.c = threshold_kb;
	return ring_write(&lw->w, &s) == 0 ? 0 : -EAGAIN;
}
