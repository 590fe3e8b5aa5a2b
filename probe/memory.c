/*
 * Memory samples: RSS from a kept-open /proc/self/statm (about 1 us per
 * read, so never per event), published through atomics that the event path
 * only loads. The optional sampler thread reads it every period, together
 * with the offsets of BOOTTIME and REALTIME from MONOTONIC, so stage events
 * need one clock read instead of three.
 *
 * Memory orders: a sample is rss_kb, then rss_at_ns stored with release;
 * readers (lw_event_fill()) load rss_at_ns with acquire and then rss_kb, so
 * a record never has a sample time without its value. sampler_running is a
 * hint of where samples come from; see memory_sampler_start().
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Parse the first two fields of statm ("size resident ..."), in pages. */
static int parse_statm(const char *buf, size_t n, uint64_t *size, uint64_t *resident)
{
	uint64_t v[2] = { 0, 0 };
	size_t i = 0;
	int field = 0, digits = 0;

	for (; i < n && field < 2; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9') {
			v[field] = v[field] * 10 + (uint64_t)(c - '0');
			digits++;
		} else if (digits) {
			field++;
			digits = 0;
		}
	}
	if (digits && field < 2)
		field++;
	if (field < 2)
		return -EIO;
	*size = v[0];
	*resident = v[1];
	return 0;
}

/* Read statm, publish RSS, return VmSize in kB or -errno.
 * Context: signal-safe; does not allocate; does not block. */
int memory_sample_sigsafe(struct lw *lw)
{
	char buf[128];
	uint64_t size, resident, rss_kb, size_kb;
	ssize_t n;

	if (lw->statm_fd < 0)
		return -ENOENT;
	n = pread(lw->statm_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	if (parse_statm(buf, (size_t)n, &size, &resident) != 0)
		return -EIO;
	rss_kb = resident * lw->page_kb;
	size_kb = size * lw->page_kb;
	/* The value first, relaxed; then its time with release, which pairs
	 * with the acquire load in lw_event_fill(). The sampler thread and a
	 * stage event may both sample at once: each store is whole, and a
	 * reader may pair one's time with the other's value, both real. */
	atomic_store_explicit(&lw->rss_kb, rss_kb > UINT32_MAX ? UINT32_MAX : (uint32_t)rss_kb,
			      memory_order_relaxed);
	atomic_store_explicit(&lw->rss_at_ns, lw_now_ns(CLOCK_MONOTONIC), memory_order_release);
	return size_kb > 0x7fffffff ? 0x7fffffff : (int)size_kb;
}

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

static void *sampler_main(void *arg)
{
	struct lw *lw = arg;
	struct timespec deadline;
	uint64_t next;

	pthread_mutex_lock(&lw->sampler_mu);
	while (!lw->sampler_stop) {
		memory_sample_sigsafe(lw);
		sample_clock_offsets(lw);
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
