/*
 * Ring format v2 (and v1 to read): header construction and the reader's validity rules.
 * Rule numbers (R1..R12) are those of schemas/ring-format.md.
 */
#include "ring.h"

#include <stdarg.h>
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

static void damage_add(struct ring_damage *d, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void damage_add(struct ring_damage *d, size_t offset, const char *fmt, ...)
{
	va_list ap;

	if (d->n < RING_DAMAGE_MAX) {
		d->field[d->n].offset = offset;
		va_start(ap, fmt);
		vsnprintf(d->field[d->n].reason, sizeof(d->field[d->n].reason), fmt, ap);
		va_end(ap);
	}
	d->n++;
}

/* R7 for the header struct's own run-time fields. */
static void header_fields(const struct lw_ring_header *h, struct ring_damage *d)
{
	uint32_t i;

	if (h->state < LW_STATE_RUNNING || h->state > LW_STATE_CRASHED)
		damage_add(d, offsetof(struct lw_ring_header, state),
			   "state field holds %u, not a known state", (unsigned)h->state);
	if (h->last_stage >= LW_RING_STAGE_SLOTS)
		damage_add(d, offsetof(struct lw_ring_header, last_stage),
			   "last_stage field holds %u, not a stage", (unsigned)h->last_stage);
	if (h->crash_signo > 64)
		damage_add(d, offsetof(struct lw_ring_header, crash_signo),
			   "crash_signo field holds %u, not a signal", (unsigned)h->crash_signo);
	for (i = 0; i < LW_RING_STAGE_SLOTS; i++)
		if (h->open_count[i] > 0x7fffffffu)
			damage_add(d, offsetof(struct lw_ring_header, open_count) + 4 * i,
				   "open_count[%u] holds %u", (unsigned)i, (unsigned)h->open_count[i]);
}

/* The field of a session entry that holds its byte *off: its name, and
 * *off moved to its first byte. */
static const char *session_field(size_t *off)
{
	static const struct {
		size_t at;
		const char *name;
	} f[] = {
		{ offsetof(struct lw_ring_session, opens), "opens" },
		{ offsetof(struct lw_ring_session, result), "result" },
		{ offsetof(struct lw_ring_session, opened_mono_ns), "opened_mono_ns" },
		{ offsetof(struct lw_ring_session, open_count), "open_count" },
		{ offsetof(struct lw_ring_session, candidate), "candidate" },
		{ offsetof(struct lw_ring_session, last_stage), "last_stage" },
		{ 0, "state" },
	};
	size_t i;

	for (i = 0; f[i].at > *off; i++)
		;
	if (f[i].at == offsetof(struct lw_ring_session, open_count))
		*off -= (*off - f[i].at) % 4; /* open_count[k] */
	else
		*off = f[i].at;
	return f[i].name;
}

/* R7 for entry i of h's session table; newest_mono_ns as
 * ring_header_damage() takes it. */
static void session_fields(const struct lw_ring_header *h, uint32_t i, uint64_t newest_mono_ns,
			   struct ring_damage *d)
{
	const struct lw_ring_session *e = &ring_sessions_c(h)[i];
	const unsigned char *b = (const unsigned char *)e;
	size_t at = LW_RING_SESSION_OFFSET + 64u * i, off;
	uint32_t before = d->n, k;

	if (e->state > LW_SESSION_CLOSED) {
		damage_add(d, at, "session %u: state field holds %u, not a session state",
			   (unsigned)i, (unsigned)e->state);
	} else if (i == 0 && e->state != LW_SESSION_OPEN) {
		damage_add(d, at, "session 0: state field holds %u; the process's session is "
				  "open for the whole run", (unsigned)e->state);
	} else if (e->state == LW_SESSION_NEVER) {
		/* the probe leaves a session it never opened all zero */
		for (off = 0; off < sizeof(*e) && !b[off]; off++)
			;
		if (off < sizeof(*e)) {
			const char *name = session_field(&off);

			damage_add(d, at + off, "session %u: never opened, but its %s field is not zero",
				   (unsigned)i, name);
		}
	}
	if (e->last_stage >= LW_RING_STAGE_SLOTS)
		damage_add(d, at + offsetof(struct lw_ring_session, last_stage),
			   "session %u: last_stage field holds %u, not a stage", (unsigned)i,
			   (unsigned)e->last_stage);
	for (k = 0; k < LW_RING_STAGE_SLOTS; k++)
		if (e->open_count[k] > 0x7fffffffu)
			damage_add(d, at + offsetof(struct lw_ring_session, open_count) + 4 * k,
				   "session %u: open_count[%u] holds %u", (unsigned)i, (unsigned)k,
				   (unsigned)e->open_count[k]);
	if (e->result > LW_ERR_OTHER)
		damage_add(d, at + offsetof(struct lw_ring_session, result),
			   "session %u: result field holds %u, not an error class", (unsigned)i,
			   (unsigned)e->result);
	if (e->opens == UINT32_MAX)
		damage_add(d, at + offsetof(struct lw_ring_session, opens),
			   "session %u: opens field holds %u, its maximum", (unsigned)i,
			   (unsigned)e->opens);
	/* 0 before the first open has stored its time: the writer's window */
	if (e->state != LW_SESSION_NEVER && e->opened_mono_ns &&
	    e->opened_mono_ns < h->start_mono_ns)
		damage_add(d, at + offsetof(struct lw_ring_session, opened_mono_ns),
			   "session %u: opened_mono_ns field holds %llu, before the run started "
			   "(%llu)",
			   (unsigned)i, (unsigned long long)e->opened_mono_ns,
			   (unsigned long long)h->start_mono_ns);
	else if (e->state != LW_SESSION_NEVER && newest_mono_ns &&
		 e->opened_mono_ns > newest_mono_ns)
		damage_add(d, at + offsetof(struct lw_ring_session, opened_mono_ns),
			   "session %u: opened_mono_ns field holds %llu, after the newest record "
			   "(%llu)",
			   (unsigned)i, (unsigned long long)e->opened_mono_ns,
			   (unsigned long long)newest_mono_ns);
	if (d->n > before)
		d->sessions |= (uint64_t)1 << i;
}

void ring_header_damage(const struct lw_ring_header *h, uint64_t newest_mono_ns,
			struct ring_damage *d)
{
	uint32_t i;

	memset(d, 0, sizeof(*d));
	header_fields(h, d);
	for (i = 0; i < h->session_slots; i++)
		session_fields(h, i, newest_mono_ns, d);
}

enum ring_header_status ring_header_check(const void *buf, size_t file_size,
					  struct ring_error *err)
{
	const struct lw_ring_header *h = buf;
	struct ring_damage damage;
	char why[160];

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
	/* R7: the header struct's fields; the session table is ring_header_damage()'s */
	damage.n = 0;
	header_fields(h, &damage);
	if (damage.n)
		return fail(err, RING_HEADER_FIELD, damage.field[0].offset, damage.field[0].reason);
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
