/*
 * The ring's write protocol, inline so the event path and the crash path
 * share it without a call into another object (the crash path's undefined
 * symbols are checked against an allow-list of async-signal-safe functions).
 *
 * Write of ticket t (schemas/ring-format.md, "Writing"):
 *   1. t = fetch_add(head, 1)            relaxed: only uniqueness matters
 *   2. cur = seq; take the slot with CAS(seq: cur -> 2t+1), but only if cur
 *      is even (no writer at work on it) and older than t
 *   3. release fence                     seq=odd is seen before the payload
 *   4. copy payload, store crc(t, payload)
 *   5. store_release(seq, 2t+2)          publish: payload is seen before seq
 * The writer never waits. If the slot is still being written by a writer a
 * full lap behind (odd seq; that writer was preempted or killed mid-write),
 * or already holds a newer record, the record is dropped and counted in
 * header.lapped: two writers never store into one slot at once, so a lap
 * collision costs one record, never a slot of mixed bytes.
 */
#ifndef LW_SRC_RING_WRITE_H
#define LW_SRC_RING_WRITE_H

#include <string.h>

#include <lastwords/ring.h>

#include "atomics.h"
#include "crc32c.h"

struct ring_writer {
	struct lw_ring_header *hdr;
	struct lw_ring_slot *slots;
	uint32_t mask; /* slot_count - 1 */
};

/* Claim the next ticket and take its slot. Returns 0 with *ticket and
 * *slot_out set (publish with ring_publish()), or -1 when the record must be
 * dropped (counted in header.lapped; *ticket is still set).
 * Context: signal-safe; does not allocate; does not block. */
static inline int ring_claim(const struct ring_writer *w, uint64_t *ticket,
			     struct lw_ring_slot **slot_out)
{
	uint64_t t = atomic_fetch_add_explicit(A64(&w->hdr->head), 1, memory_order_relaxed);
	struct lw_ring_slot *s = &w->slots[t & w->mask];
	uint64_t cur = atomic_load_explicit(A64(&s->seq), memory_order_relaxed);

	*ticket = t;
	/* Odd: a writer is at work on it. >= 2t+1: a newer record is there. */
	if ((cur & 1u) || cur >= 2 * t + 1 ||
	    !atomic_compare_exchange_strong_explicit(A64(&s->seq), &cur, 2 * t + 1,
						     memory_order_relaxed, memory_order_relaxed)) {
		atomic_fetch_add_explicit(A64(&w->hdr->lapped), 1, memory_order_relaxed);
		return -1;
	}
	/* Order the odd seq before the payload stores, so that a live reader
	 * that sees new payload bytes also sees the slot as being written. */
	atomic_thread_fence(memory_order_release);
	*slot_out = s;
	return 0;
}

/* Copy bytes [8, 60) of src into the claimed slot, checksum them with the
 * ticket, and publish. Context: signal-safe; does not allocate; does not block. */
static inline void ring_publish(struct lw_ring_slot *s, uint64_t t, const struct lw_ring_slot *src)
{
	const unsigned char *payload = (const unsigned char *)src + LW_SLOT_PAYLOAD_OFFSET;

	memcpy((unsigned char *)s + LW_SLOT_PAYLOAD_OFFSET, payload, LW_SLOT_PAYLOAD_SIZE);
	s->crc = crc32c_slot(t, payload);
	/* Publish: the payload and crc stores happen before seq becomes even. */
	atomic_store_explicit(A64(&s->seq), 2 * t + 2, memory_order_release);
}

/* Write one record whose payload is ready. Returns 0, or -1 when it was
 * dropped in a lap collision (see above).
 * Context: signal-safe; does not allocate; does not block. */
static inline int ring_write(const struct ring_writer *w, const struct lw_ring_slot *src)
{
	struct lw_ring_slot *s;
	uint64_t t;

	if (ring_claim(w, &t, &s) != 0)
		return -1;
	ring_publish(s, t, src);
	return 0;
}

#endif
