/*
 * Memory samples: RSS from statm, what a stage event reads.
 *
 * RSS comes from a kept-open /proc/self/statm (about 0.4 us per read, so never
 * per event), published through atomics that the event path only loads.
 * What the memory is made of (anonymous, file-backed, shared memory, swap:
 * schemas/ring-format.md, 8.1) comes from a kept-open /proc/self/status,
 * read by lw_memory_sample() and by the sampler, never by a stage event
 * (about 2.7 us per read: bench-probe);
 * memory-proc.c reads it, and the sampler's other files.
 *
 * The optional sampler thread (sampler.c) reads them in the background;
 * the memory record is written by events.c (memory_record_sigsafe()).
 *
 * Memory orders: a sample is rss_kb, then rss_at_ns stored with release;
 * readers (lw_event_fill()) load rss_at_ns with acquire and then rss_kb, so
 * a record never has a sample time without its value. sampler_running is a
 * hint of where samples come from; see memory_sampler_start().
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Parse the first three fields of statm ("size resident shared ..."), in
 * pages. */
static int parse_statm(const char *buf, size_t n, uint64_t v[3])
{
	size_t i = 0;
	int field = 0, digits = 0;

	v[0] = v[1] = v[2] = 0;
	for (; i < n && field < 3; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9') {
			v[field] = v[field] * 10 + (uint64_t)(c - '0');
			digits++;
		} else if (digits) {
			field++;
			digits = 0;
		}
	}
	if (digits && field < 3)
		field++;
	if (field < 2)
		return -EIO;
	return 0;
}

/* Read statm into *out and publish RSS: 0 or -errno.
 * Context: signal-safe; does not allocate; does not block. */
int memory_statm_sigsafe(struct lw *lw, struct memory_statm *out)
{
	char buf[128];
	uint64_t v[3], rss_kb;
	ssize_t n;

	if (lw->statm_fd < 0)
		return -ENOENT;
	n = pread(lw->statm_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	if (parse_statm(buf, (size_t)n, v) != 0)
		return -EIO;
	rss_kb = v[1] * lw->page_kb;
	out->size_kb = v[0] * lw->page_kb;
	out->rss_kb = rss_kb;
	out->shared_kb = v[2] * lw->page_kb;
	/* The value first, relaxed; then its time with release, which pairs
	 * with the acquire load in lw_event_fill(). The sampler thread and a
	 * stage event may both sample at once: each store is whole, and a
	 * reader may pair one's time with the other's value, both real. */
	atomic_store_explicit(&lw->rss_kb, rss_kb > UINT32_MAX ? UINT32_MAX : (uint32_t)rss_kb,
			      memory_order_relaxed);
	atomic_store_explicit(&lw->rss_at_ns, lw_now_ns(CLOCK_MONOTONIC), memory_order_release);
	return 0;
}

/* Read statm, publish RSS, return VmSize in kB or -errno: what a stage
 * event reads, and all it reads. Context: signal-safe; does not allocate;
 * does not block. */
int memory_sample_sigsafe(struct lw *lw)
{
	struct memory_statm st;
	int rc = memory_statm_sigsafe(lw, &st);

	if (rc != 0)
		return rc;
	return st.size_kb > 0x7fffffff ? 0x7fffffff : (int)st.size_kb;
}
