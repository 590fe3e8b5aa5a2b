/*
 * Ring format v2 (and v1 to read): header construction and the reader's validity rules.
 * Rule numbers (R1..R12) are those of schemas/ring-format.md.
 */
#include "ring.h"

#include <stdio.h>
#include <string.h>

#include "atomics.h"
#include "crc32c.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ring format v1 is written little-endian; big-endian hosts are not supported"
#endif

_Static_assert(LW_RING_HEADER_SIZE % 4096 == 0, "header fills whole pages");

void ring_header_init(struct lw_ring_header *h, const struct ring_header_params *p)
{
	struct lw_ring_session *s0;
	size_t n;

	memcpy(h->magic, LW_RING_MAGIC, LW_RING_MAGIC_LEN);
	h->version = LW_RING_VERSION;
	h->min_version = LW_RING_MIN_VERSION;
	h->header_size = (uint16_t)LW_RING_HEADER_SIZE;
	h->slot_size = (uint16_t)LW_RING_SLOT_SIZE;
	h->slot_count = p->slot_count;
	h->byte_order = LW_RING_BYTE_ORDER;
	h->pid = p->pid;
	h->writer_version = p->writer_version;
	memcpy(h->run_id, p->run_id, sizeof(h->run_id));
	if (p->boot_id)
		memcpy(h->boot_id, p->boot_id, sizeof(h->boot_id));
	h->start_mono_ns = p->start_mono_ns;
	h->start_boot_ns = p->start_boot_ns;
	h->start_real_ns = p->start_real_ns;
	h->app_version = p->app_version;
	h->stable_candidate = p->stable_candidate;
	h->memory_budget_kb = p->memory_budget_kb;
	n = p->process ? strlen(p->process) : 0;
	if (n > LW_RING_PROCESS_MAX - 1)
		n = LW_RING_PROCESS_MAX - 1;
	memcpy(h->process, p->process, n);
	h->session_slots = LW_RING_SESSION_SLOTS;
	/* Session 0 is the process's own, open for the whole run (5.1). */
	s0 = &ring_sessions(h)[0];
	s0->state = LW_SESSION_OPEN;
	s0->opened_mono_ns = p->start_mono_ns;
	s0->opens = 1;
	h->header_crc = ring_header_crc(h);
	atomic_store_explicit(A32(&h->state), LW_STATE_RUNNING, memory_order_release);
}

uint32_t ring_header_crc(const struct lw_ring_header *h)
{
	return crc32c(0, h, LW_RING_HEADER_CRC_SPAN);
}

uint64_t ring_file_size(const struct lw_ring_header *h)
{
	return (uint64_t)h->header_size + (uint64_t)h->slot_count * LW_RING_SLOT_SIZE;
}

uint32_t ring_slots_for_size(uint64_t size)
{
	uint64_t n;

	if (size < LW_RING_HEADER_SIZE || (size - LW_RING_HEADER_SIZE) % LW_RING_SLOT_SIZE != 0)
		return 0;
	n = (size - LW_RING_HEADER_SIZE) / LW_RING_SLOT_SIZE;
	if (n < LW_RING_SLOTS_MIN || n > LW_RING_SLOTS_MAX || (n & (n - 1)) != 0)
		return 0;
	return (uint32_t)n;
}

int ring_is_blank(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	unsigned char acc = 0;
	size_t i;

	if (!ring_slots_for_size(len))
		return 0;
	for (i = 0; i < len; i++)
		acc |= p[i];
	return acc == 0;
}

static enum ring_header_status fail(struct ring_error *err, enum ring_header_status st,
				    size_t offset, const char *reason)
{
	if (err) {
		err->offset = offset;
		snprintf(err->reason, sizeof(err->reason), "%s", reason);
	}
	return st;
}

enum ring_header_status ring_session_check(const struct lw_ring_header *h,
					   struct ring_error *err)
{
	const struct lw_ring_session *e = ring_sessions_c(h);
	char why[96];
	size_t at;
	uint32_t i, k;

	for (i = 0; i < h->session_slots; i++, e++) {
		at = LW_RING_SESSION_OFFSET + 64u * i;
		if (e->state > LW_SESSION_CLOSED) {
			snprintf(why, sizeof(why), "session %u: state field holds %u",
				 (unsigned)i, (unsigned)e->state);
			return fail(err, RING_HEADER_FIELD, at, why);
		}
		if (e->last_stage >= LW_RING_STAGE_SLOTS) {
			snprintf(why, sizeof(why), "session %u: last_stage field holds %u, not a stage",
				 (unsigned)i, (unsigned)e->last_stage);
			return fail(err, RING_HEADER_FIELD,
				    at + offsetof(struct lw_ring_session, last_stage), why);
		}
		for (k = 0; k < LW_RING_STAGE_SLOTS; k++) {
			if (e->open_count[k] > 0x7fffffffu) {
				snprintf(why, sizeof(why), "session %u: open_count[%u] holds %u",
					 (unsigned)i, (unsigned)k, (unsigned)e->open_count[k]);
				return fail(err, RING_HEADER_FIELD,
					    at + offsetof(struct lw_ring_session, open_count) +
						    4 * k,
					    why);
			}
		}
	}
	return RING_HEADER_OK;
}

enum ring_header_status ring_header_check(const void *buf, size_t file_size,
					  struct ring_error *err)
{
	const struct lw_ring_header *h = buf;
	char why[160];
	uint32_t i;

	/* R1 */
	if (file_size < LW_RING_MAGIC_LEN ||
	    memcmp(h->magic, LW_RING_MAGIC, LW_RING_MAGIC_LEN) != 0)
		return fail(err, RING_HEADER_FOREIGN, 0, "not a lastwords ring (bad magic)");
	if (file_size < sizeof(*h)) {
		snprintf(why, sizeof(why), "truncated header: %zu bytes, need %zu", file_size,
			 sizeof(*h));
		return fail(err, RING_HEADER_TOO_SMALL, file_size, why);
	}
	/* R3 before R2: a byte-swapped version field would read as huge. */
	if (h->byte_order != LW_RING_BYTE_ORDER) {
		snprintf(why, sizeof(why), "unsupported byte order marker 0x%08x",
			 (unsigned)h->byte_order);
		return fail(err, RING_HEADER_BYTE_ORDER, offsetof(struct lw_ring_header, byte_order),
			    why);
	}
	/* R2 */
	if (h->version < 1 || h->min_version < 1) {
		snprintf(why, sizeof(why), "format version %u (reader version %u) is not valid",
			 (unsigned)h->version, (unsigned)h->min_version);
		return fail(err, RING_HEADER_FUTURE, offsetof(struct lw_ring_header, version), why);
	}
	if (h->min_version > LW_RING_VERSION) {
		snprintf(why, sizeof(why),
			 "ring format version %u needs a reader of version %u; this reader reads %u",
			 (unsigned)h->version, (unsigned)h->min_version, (unsigned)LW_RING_VERSION);
		return fail(err, RING_HEADER_FUTURE, offsetof(struct lw_ring_header, version), why);
	}
	/* R4 */
	if (ring_header_crc(h) != h->header_crc) {
		snprintf(why, sizeof(why), "header checksum mismatch (stored 0x%08x, computed 0x%08x)",
			 (unsigned)h->header_crc, (unsigned)ring_header_crc(h));
		return fail(err, RING_HEADER_CHECKSUM, offsetof(struct lw_ring_header, header_crc),
			    why);
	}
	/* R5 */
	if (h->slot_size != LW_RING_SLOT_SIZE) {
		snprintf(why, sizeof(why), "slot size %u, expected %u", (unsigned)h->slot_size,
			 LW_RING_SLOT_SIZE);
		return fail(err, RING_HEADER_GEOMETRY, offsetof(struct lw_ring_header, slot_size),
			    why);
	}
	if (h->header_size < sizeof(*h) || h->header_size % LW_RING_SLOT_SIZE != 0) {
		snprintf(why, sizeof(why), "header size %u is not a multiple of 64 of at least %zu",
			 (unsigned)h->header_size, sizeof(*h));
		return fail(err, RING_HEADER_GEOMETRY, offsetof(struct lw_ring_header, header_size),
			    why);
	}
	if (h->slot_count < LW_RING_SLOTS_MIN || h->slot_count > LW_RING_SLOTS_MAX ||
	    (h->slot_count & (h->slot_count - 1)) != 0) {
		snprintf(why, sizeof(why), "slot count %u is not a power of two in [%u, %u]",
			 (unsigned)h->slot_count, LW_RING_SLOTS_MIN, LW_RING_SLOTS_MAX);
		return fail(err, RING_HEADER_GEOMETRY, offsetof(struct lw_ring_header, slot_count),
			    why);
	}
	if (h->session_slots > LW_RING_SESSION_SLOTS_MAX ||
	    LW_RING_SESSION_OFFSET + 64u * h->session_slots > h->header_size) {
		snprintf(why, sizeof(why), "session table of %u entries does not fit the header",
			 (unsigned)h->session_slots);
		return fail(err, RING_HEADER_GEOMETRY, offsetof(struct lw_ring_header, session_slots),
			    why);
	}
	/* R6 */
	if ((uint64_t)file_size < ring_file_size(h)) {
		snprintf(why, sizeof(why), "truncated: %zu bytes, the header describes %llu",
			 file_size, (unsigned long long)ring_file_size(h));
		return fail(err, RING_HEADER_TRUNCATED, file_size, why);
	}
	/* R7 */
	if (h->state < LW_STATE_RUNNING || h->state > LW_STATE_CRASHED) {
		snprintf(why, sizeof(why), "state field holds %u, not a known state",
			 (unsigned)h->state);
		return fail(err, RING_HEADER_FIELD, offsetof(struct lw_ring_header, state), why);
	}
	if (h->last_stage >= LW_RING_STAGE_SLOTS) {
		snprintf(why, sizeof(why), "last_stage field holds %u, not a stage",
			 (unsigned)h->last_stage);
		return fail(err, RING_HEADER_FIELD, offsetof(struct lw_ring_header, last_stage), why);
	}
	if (h->crash_signo > 64) {
		snprintf(why, sizeof(why), "crash_signo field holds %u, not a signal",
			 (unsigned)h->crash_signo);
		return fail(err, RING_HEADER_FIELD, offsetof(struct lw_ring_header, crash_signo), why);
	}
	for (i = 0; i < LW_RING_STAGE_SLOTS; i++) {
		if (h->open_count[i] > 0x7fffffffu) {
			snprintf(why, sizeof(why), "open_count[%u] holds %u", (unsigned)i,
				 (unsigned)h->open_count[i]);
			return fail(err, RING_HEADER_FIELD,
				    offsetof(struct lw_ring_header, open_count) + 4 * i, why);
		}
	}
	return RING_HEADER_OK;
}

static int slot_is_zero(const struct lw_ring_slot *s)
{
	const uint64_t *w = (const uint64_t *)s;
	uint64_t acc = 0;
	size_t i;

	for (i = 0; i < sizeof(*s) / 8; i++)
		acc |= w[i];
	return acc == 0;
}

/* Copy one slot out of the mapping (a live writer may change it) and apply
 * R8..R11. *ticket is set for torn, valid and some corrupt slots. */
static enum ring_slot_class slot_check(const struct lw_ring_slot *src, uint32_t index,
				       uint32_t mask, struct lw_ring_slot *copy, uint64_t *ticket)
{
	uint64_t seq, t;
	int moved;

	/* Pairs with the writer's publishing release store (ring_publish()):
	 * an even seq seen here means its payload and crc are in the copy. */
	seq = atomic_load_explicit(CA64(&src->seq), memory_order_acquire);
	memcpy(copy, src, sizeof(*copy));
	/* Keeps the copy's loads before the second load of seq, as smp_rmb()
	 * does in Linux's read_seqcount_retry(): an acquire load alone would
	 * let them move after it. Pairs with the writer's release fence after
	 * its claim makes seq odd (ring_claim()): a copy that saw any byte of
	 * a new writer's payload then sees seq changed. */
	atomic_thread_fence(memory_order_acquire);
	moved = atomic_load_explicit(CA64(&src->seq), memory_order_relaxed) != seq;
	copy->seq = seq;
	/* R8. A first write that began during the copy leaves bytes in it: the
	 * slot was never written when the copy began. */
	if (seq == 0)
		return moved || slot_is_zero(copy) ? RING_SLOT_EMPTY : RING_SLOT_CORRUPT;
	t = (seq - 1) / 2;   /* 2t+1 and 2t+2 both give t */
	*ticket = t;
	if ((t & mask) != index)
		return RING_SLOT_CORRUPT; /* R10 */
	/* R9; and R11's live case: a writer republished it during the copy,
	 * which is a slot being written, not damage. */
	if ((seq & 1u) || moved)
		return RING_SLOT_TORN;
	if (crc32c_slot(t, (const unsigned char *)copy + LW_SLOT_PAYLOAD_OFFSET) != copy->crc)
		return RING_SLOT_CORRUPT; /* R11 */
	return RING_SLOT_VALID;
}

int ring_scan(const struct lw_ring_header *h, const struct lw_ring_slot *slots,
	      struct ring_scan *out, uint8_t *class_out, ring_event_fn fn, void *arg)
{
	const uint32_t n = h->slot_count;
	const uint32_t mask = n - 1;
	struct lw_ring_slot copy;
	struct ring_scan sc;
	uint64_t head = 0, base, t, k;
	uint32_t i;
	int rc = 0;

	memset(&sc, 0, sizeof(sc));
	sc.slot_count = n;
	sc.head_header = atomic_load_explicit(CA64(&h->head), memory_order_acquire);

	/* Pass 1 (R12): the effective head is one past the newest ticket that
	 * a slot proves was written. Torn tickets count only below the
	 * header's head, so a bit flip in a torn seq cannot move it. */
	for (i = 0; i < n; i++) {
		enum ring_slot_class c = slot_check(&slots[i], i, mask, &copy, &t);

		if (c == RING_SLOT_VALID || (c == RING_SLOT_TORN && t < sc.head_header))
			if (t + 1 > head)
				head = t + 1;
	}
	sc.head = head;
	sc.head_behind = sc.head_header < head;
	base = head > n ? head - n : 0;

	/* Pass 2: walk the window in ticket order. */
	for (k = 0; k < n; k++) {
		uint64_t expect = base + k;
		enum ring_slot_class c;

		i = (uint32_t)(expect & mask);
		t = 0;
		c = slot_check(&slots[i], i, mask, &copy, &t);
		if (c == RING_SLOT_VALID && t < expect)
			c = RING_SLOT_STALE; /* R12 */
		else if (c == RING_SLOT_VALID && t > expect)
			c = RING_SLOT_TORN; /* a live writer rewrote it since pass 1 */
		switch (c) {
		case RING_SLOT_EMPTY:
			sc.empty++;
			break;
		case RING_SLOT_VALID:
			if (sc.valid == 0)
				sc.first_ticket = t;
			sc.last_ticket = t;
			sc.valid++;
			break;
		case RING_SLOT_TORN:
			sc.torn++;
			break;
		case RING_SLOT_STALE:
			sc.stale++;
			break;
		case RING_SLOT_CORRUPT:
			sc.corrupt++;
			break;
		}
		if (c != RING_SLOT_VALID && expect < head)
			sc.missing++;
		if (class_out)
			class_out[i] = (uint8_t)c;
		if (c == RING_SLOT_VALID && fn && rc == 0)
			rc = fn(t, i, &copy, arg);
	}
	*out = sc;
	return rc;
}
