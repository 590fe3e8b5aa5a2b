/*
 * Ring format (versions 1 and 2): building a header, and the reader's validity rules
 * (schemas/ring-format.md numbers them; comments below cite them as R1..R12).
 * Shared by the probe (header at open, previous runs for advice) and the
 * analyzer (dump, verify). Nothing here prints.
 */
#ifndef LW_SRC_RING_H
#define LW_SRC_RING_H

#include <stddef.h>
#include <stdint.h>

#include <lastwords/ring.h>
#include <lastwords/vocab.h>

#include "atomics.h"

/* Where and why a file was refused. offset is the byte offset of the field. */
struct ring_error {
	size_t offset;
	char reason[160];
};

/* What a header check found. */
enum ring_header_status {
	RING_HEADER_OK = 0,
	RING_HEADER_TOO_SMALL,   /* R1: shorter than a header */
	RING_HEADER_FOREIGN,     /* R1: magic differs: not a ring file */
	RING_HEADER_FUTURE,      /* R2: needs a newer reader */
	RING_HEADER_BYTE_ORDER,  /* R3: written big-endian */
	RING_HEADER_CHECKSUM,    /* R4: header_crc mismatch */
	RING_HEADER_GEOMETRY,    /* R5: sizes out of range */
	RING_HEADER_TRUNCATED,   /* R6: file shorter than its slots */
	RING_HEADER_FIELD,       /* R7: a run-time field holds an impossible value */
};

/* Fields the probe fills at open. */
struct ring_header_params {
	uint32_t slot_count;
	uint32_t pid;
	uint32_t writer_version;
	const uint8_t *run_id;  /* 16 bytes */
	const uint8_t *boot_id; /* 16 bytes, or NULL */
	uint64_t start_mono_ns, start_boot_ns, start_real_ns;
	uint64_t app_version;
	uint64_t stable_candidate;
	uint32_t memory_budget_kb;
	const char *process;
};

/* Initialise a zeroed header page (LW_RING_HEADER_SIZE bytes) in place,
 * with its session table and session 0 open, state RUNNING, and seal its
 * checksum.
 * Context: signal-safe; does not allocate; does not block. */
void ring_header_init(struct lw_ring_header *h, const struct ring_header_params *p);

/* CRC32C of bytes [0, LW_RING_HEADER_CRC_SPAN). */
uint32_t ring_header_crc(const struct lw_ring_header *h);

/*
 * Apply rules R1..R7 to the first bytes of a file of file_size bytes (buf
 * holds min(file_size, LW_RING_HEADER_SIZE) bytes at least the size of the
 * header struct when file_size allows). On failure, *err says where and why.
 * Context: not signal-safe: it writes its reasons with snprintf(), which
 * POSIX does not list as async-signal-safe; the probe calls it only while
 * opening (storage.c), never from its crash path. Does not block.
 */
enum ring_header_status ring_header_check(const void *buf, size_t file_size,
					  struct ring_error *err);

/* The run-time fields of a header that hold impossible values (R7): how
 * many, the first RING_DAMAGE_MAX of them (where, and what they hold), and
 * which entries of the session table hold one. */
#define RING_DAMAGE_MAX 8
struct ring_damage {
	uint32_t n;        /* damaged fields found; only the first RING_DAMAGE_MAX are kept */
	uint64_t sessions; /* bit i: session i's entry holds a damaged field */
	struct ring_error field[RING_DAMAGE_MAX];
};

/*
 * R7, every field of it, for a header that passed R1..R6, in h's first
 * LW_RING_HEADER_SIZE bytes (ring_header_check() reads only the header
 * struct, and stops at the first): the header's run-time fields and each
 * entry of its session table. newest_mono_ns is the time of the ring's
 * newest valid record, or 0 when it is not known (no record, or a live
 * writer): a session opened after it is damage, as no record shows it.
 * This is the one check of the table: dump, verify and the report all see
 * what it finds. Context: not signal-safe (its reasons are written with
 * vsnprintf()); the analyzer's alone. Does not block.
 */
void ring_header_damage(const struct lw_ring_header *h, uint64_t newest_mono_ns,
			struct ring_damage *d);

/* The open stage of one set of counts: the last stage begun if still open,
 * else the latest stage in lifecycle order that is open, else none. The
 * header's counts (the process's) and each session's are read this way. */
static inline enum lw_stage ring_open_stage_of(const uint32_t *last_stage,
					       const uint32_t *open_count)
{
	uint32_t last = atomic_load_explicit(CA32(last_stage), memory_order_relaxed);
	int i;

	if (last > 0 && last < LW_STAGE_COUNT &&
	    atomic_load_explicit(CA32(&open_count[last]), memory_order_relaxed) > 0)
		return (enum lw_stage)last;
	for (i = LW_STAGE_COUNT - 1; i > 0; i--)
		if (atomic_load_explicit(CA32(&open_count[i]), memory_order_relaxed) > 0)
			return (enum lw_stage)i;
	return LW_STAGE_NONE;
}

/* The stage a death would be attributed to, over all sessions.
 * Inline so the probe's crash path needs no call into another object.
 * Context: signal-safe; does not allocate; does not block. */
static inline enum lw_stage ring_open_stage(const struct lw_ring_header *h)
{
	return ring_open_stage_of(&h->last_stage, h->open_count);
}

/* The session table of a header that passed R5 (session_slots entries at
 * LW_RING_SESSION_OFFSET, within the first LW_RING_HEADER_SIZE bytes).
 * Context: signal-safe; does not allocate; does not block. */
static inline struct lw_ring_session *ring_sessions(struct lw_ring_header *h)
{
	return (struct lw_ring_session *)(void *)((char *)h + LW_RING_SESSION_OFFSET);
}

static inline const struct lw_ring_session *ring_sessions_c(const struct lw_ring_header *h)
{
	return (const struct lw_ring_session *)(const void *)((const char *)h +
							      LW_RING_SESSION_OFFSET);
}

/* Total file size of a ring with this header. */
uint64_t ring_file_size(const struct lw_ring_header *h);

/* The slot count of a ring file of size bytes with a v1 header
 * (LW_RING_HEADER_SIZE bytes and a slot count that R5 allows), or 0 when no
 * such ring has that size. Context: signal-safe; does not allocate. */
uint32_t ring_slots_for_size(uint64_t size);

/* Whether the len bytes at buf are a ring that was never initialized: all
 * zero, and of a ring's size (ring_slots_for_size). That is what the probe
 * leaves when it is stopped after preallocating the file and before writing
 * the header. Context: signal-safe; does not allocate; does not block. */
int ring_is_blank(const void *buf, size_t len);

/* Per-slot class after a scan (R8..R12). */
enum ring_slot_class {
	RING_SLOT_EMPTY = 0,  /* R8: all 64 bytes zero: never written */
	RING_SLOT_VALID,      /* R9..R11 hold */
	RING_SLOT_TORN,       /* R9: odd seq: claimed, never published; or being rewritten (R11, R12) */
	RING_SLOT_STALE,      /* R12: valid, but an earlier lap than the window */
	RING_SLOT_CORRUPT,    /* R8/R10/R11 fail on a non-empty slot */
};

struct ring_scan {
	uint32_t slot_count;
	uint64_t head_header;    /* header.head as found */
	uint64_t head;           /* effective head: one past the newest ticket in the slots */
	uint64_t valid, torn, stale, corrupt, empty;
	uint64_t missing;        /* tickets in the window [head - N, head) with no valid slot */
	uint64_t first_ticket;   /* oldest valid ticket, when valid > 0 */
	uint64_t last_ticket;    /* newest valid ticket, when valid > 0 */
	int head_behind;         /* header.head < effective head (writeback order, power loss) */
};

/* Called for each valid slot, in ticket order. Returning non-zero stops. */
typedef int (*ring_event_fn)(uint64_t ticket, uint32_t index, const struct lw_ring_slot *slot,
			     void *arg);

/*
 * Classify every slot of a ring whose header passed ring_header_check(),
 * fill *out, and call fn (if not NULL) for each valid record in ticket
 * order. class_out, if not NULL, receives one enum ring_slot_class per slot
 * (slot_count bytes). Slots are copied before they are checked, so a ring
 * that a live writer changes gives torn or stale slots, never a crash.
 * Returns 0, or the non-zero value fn returned.
 * Context: signal-safe; does not allocate; does not block.
 */
int ring_scan(const struct lw_ring_header *h, const struct lw_ring_slot *slots,
	      struct ring_scan *out, uint8_t *class_out, ring_event_fn fn, void *arg);

#endif
