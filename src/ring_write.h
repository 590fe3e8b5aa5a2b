/*
 * The ring's write protocol, inline so the event path and the crash path
 * share it without a call into another object (the crash path's undefined
 * symbols are checked against an allow-list of async-signal-safe functions).
 *
 * Write of ticket t (schemas/ring-format.md, "Writing"):
 *   1. t = fetch_add(head, 1)           relaxed: only uniqueness matters
 *   2. seq = 2t+1                        the slot is being written
 *   3. release fence                     seq=odd is seen before the payload
 *   4. copy payload, store crc(t, payload)
 *   5. store_release(seq, 2t+2)          publish: payload is seen before seq
 * The writer never waits: if the slot is still being written by a writer one
 * lap behind (odd seq), it counts the collision in header.lapped and
 * overwrites; the older writer's record is then lost, and its ticket shows
 * as missing.
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

/* Claim the next ticket and mark its slot as being written. *slot_out is the
 * slot to fill; publish it with ring_publish().
 * Context: signal-safe; does not allocate; does not block. */
static inline uint64_t ring_claim(const struct ring_writer *w, struct lw_ring_slot **slot_out)
{
	uint64_t t = atomic_fetch_add_explicit(A64(&w->hdr->head), 1, memory_order_relaxed);
	struct lw_ring_slot *s = &w->slots[t & w->mask];

	if (atomic_load_explicit(A64(&s->seq), memory_order_relaxed) & 1u)
		atomic_fetch_add_explicit(A64(&w->hdr->lapped), 1, memory_order_relaxed);
	atomic_store_explicit(A64(&s->seq), 2 * t + 1, memory_order_relaxed);
	/* Order the odd seq before the payload stores, so that a live reader
	 * that sees new payload bytes also sees the slot as being written. */
	atomic_thread_fence(memory_order_release);
	*slot_out = s;
	return t;
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

/* Write one record whose payload is ready; returns its ticket.
 * Context: signal-safe; does not allocate; does not block. */
static inline uint64_t ring_write(const struct ring_writer *w, const struct lw_ring_slot *src)
{
	struct lw_ring_slot *s;
	uint64_t t = ring_claim(w, &s);

	ring_publish(s, t, src);
	return t;
}

#endif
