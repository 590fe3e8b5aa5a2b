/*
 * The optional sampler thread. Every period it reads statm, together with
 * the offsets of BOOTTIME and REALTIME from MONOTONIC, so stage events need
 * one clock read instead of three. In the same pass it reads the
 * composition and /proc/pressure/memory, and at most once a second counts
 * the dma-buf buffers the process holds (memory-proc.c reads them); it
 * writes a memory, pressure or graphics record when what it read moved
 * (sampler_pass()). It writes through the ring protocol like any other
 * writer: no lock is shared with the event path. Everything it reads goes
 * into buffers on its stack: nothing allocates after lw_open(). The
 * sampler's watch (struct memory_watch) is its thread's alone.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define DMABUF_PERIOD_NS 1000000000u /* dma-buf counts, at most once a second */
#define MEMORY_HEARTBEAT_NS 10000000000u /* a memory record while anything moves */

static void sample_clock_offsets(struct lw *lw)
{
	uint64_t mono = lw_now_ns(CLOCK_MONOTONIC);
	uint64_t boot = lw_now_ns(CLOCK_BOOTTIME);
	uint64_t real = lw_now_ns(CLOCK_REALTIME);

	/* Relaxed: each offset is one word, read whole by fill_clocks(); the
	 * first pair is published by the release store of sampler_running. */
	atomic_store_explicit(&lw->boot_off_ns, boot - mono, memory_order_relaxed);
	atomic_store_explicit(&lw->real_off_ns, real - mono, memory_order_relaxed);
}

/* Whether a figure moved enough for a record: by 1 MiB, or by 5% (and at
 * least 64 kB, so that a small figure's page-sized noise is no record). */
static int moved(uint64_t was, uint64_t now)
{
	uint64_t d = now > was ? now - was : was - now;

	return d >= 1024 || (d >= 64 && d * 20 >= was);
}

static void watch_memory(struct lw *lw, const struct memory_statm *st, uint64_t now)
{
	struct memory_watch *w = &lw->watch;
	struct memory_composition c;
	const struct memory_composition *l = &w->last;
	int any, enough;

	memory_composition_sigsafe(lw, st, &c);
	if (!c.source)
		return;
	any = c.source != l->source || c.anon_kb != l->anon_kb || c.file_kb != l->file_kb ||
	      c.shmem_kb != l->shmem_kb || c.swap_kb != l->swap_kb;
	enough = !w->written || c.source != l->source || moved(l->anon_kb, c.anon_kb) ||
		 moved(l->file_kb, c.file_kb) || moved(l->shmem_kb, c.shmem_kb) ||
		 moved(l->swap_kb, c.swap_kb);
	if (!enough && !(any && now - w->last_ns >= MEMORY_HEARTBEAT_NS))
		return;
	if (memory_record_write(lw, st, &c) == 0) {
		w->written = 1;
		w->last = c;
		w->last_ns = now;
	}
}

static void watch_dmabuf(struct lw *lw, uint64_t now)
{
	struct memory_watch *w = &lw->watch;
	struct memory_dmabuf b;
	struct lw_ring_slot s;

	if (w->dmabuf_ns && now - w->dmabuf_ns < DMABUF_PERIOD_NS)
		return;
	w->dmabuf_ns = now;
	if (memory_dmabuf_scan(lw, &b) != 0 || (b.kb == w->dmabuf.kb && b.count == w->dmabuf.count))
		return;
	lw_event_fill(lw, &s, LW_EV_GRAPHICS, ring_open_stage(lw->hdr), LW_GRAPHICS_DMABUF);
	s.a = b.kb;
	s.b = b.count;
	s.c = b.exporter;
	if (ring_write(&lw->w, &s) == 0)
		w->dmabuf = b;
}

/* One period of the sampler: statm and the clock offsets for the event
 * path, then the composition, pressure and dma-buf records when they moved. */
static void sampler_pass(struct lw *lw)
{
	struct memory_statm st;
	uint64_t now;
	int rc = memory_statm_sigsafe(lw, &st);

	sample_clock_offsets(lw);
	now = lw_now_ns(CLOCK_MONOTONIC);
	if (rc == 0)
		watch_memory(lw, &st, now);
	memory_psi_record(lw);
	watch_dmabuf(lw, now);
}

static void *sampler_main(void *arg)
{
	struct lw *lw = arg;
	struct timespec deadline;
	uint64_t next;

	pthread_mutex_lock(&lw->sampler_mu);
	while (!lw->sampler_stop) {
		/* The mutex is only for the stop and the wait: a pass takes none
		 * of the event path's (it has none). */
		sampler_pass(lw);
		next = lw_now_ns(CLOCK_MONOTONIC) + (uint64_t)lw->sampler_period_ms * 1000000u;
		deadline.tv_sec = (time_t)(next / 1000000000u);
		deadline.tv_nsec = (long)(next % 1000000000u);
		while (!lw->sampler_stop &&
		       pthread_cond_timedwait(&lw->sampler_cv, &lw->sampler_mu, &deadline) == 0)
			;
	}
	pthread_mutex_unlock(&lw->sampler_mu);
	return NULL;
}

/* Start the sampler thread. Context: not signal-safe; allocates (a thread). */
int memory_sampler_start(struct lw *lw)
{
	pthread_condattr_t ca;
	int rc;

	if (pthread_condattr_init(&ca) != 0)
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&lw->sampler_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		return -rc;
	rc = pthread_mutex_init(&lw->sampler_mu, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&lw->sampler_cv);
		return -rc;
	}
	/* Offsets first, so the event path never derives clocks from zeros. */
	memory_sample_sigsafe(lw);
	sample_clock_offsets(lw);
	memset(&lw->watch, 0, sizeof(lw->watch));
	lw->sampler_stop = 0;
	rc = pthread_create(&lw->sampler, NULL, sampler_main, lw);
	if (rc != 0) {
		pthread_mutex_destroy(&lw->sampler_mu);
		pthread_cond_destroy(&lw->sampler_cv);
		return -rc;
	}
	lw->sampler_started = 1;
	/* Release: the first sample and offsets above happen before it. This
	 * runs in lw_open(), before the handle is returned, so other threads
	 * also get them through whatever hands them the handle; readers load
	 * it relaxed. The header flag is a record for the analyzer: relaxed. */
	atomic_store_explicit(&lw->sampler_running, 1, memory_order_release);
	atomic_fetch_or_explicit(A32(&lw->hdr->flags), LW_RUN_SAMPLER, memory_order_relaxed);
	return 0;
}

/* Stop and join the sampler. Context: not signal-safe; blocks (join). */
void memory_sampler_stop(struct lw *lw)
{
	if (!lw->sampler_started)
		return;
	/* From here events read clocks and statm themselves; the sampler's
	 * last offsets stay valid, so a racing reader that still sees 1 is
	 * right too. Release for symmetry with the start; the mutex below
	 * orders the stop flag itself. */
	atomic_store_explicit(&lw->sampler_running, 0, memory_order_release);
	pthread_mutex_lock(&lw->sampler_mu);
	lw->sampler_stop = 1;
	pthread_cond_signal(&lw->sampler_cv);
	pthread_mutex_unlock(&lw->sampler_mu);
	pthread_join(lw->sampler, NULL);
	pthread_mutex_destroy(&lw->sampler_mu);
	pthread_cond_destroy(&lw->sampler_cv);
	lw->sampler_started = 0;
}
