/*
 * lastwords ring format, version 3: the on-disk structures.
 *
 * A ring file (*.lwr) is one run of one process: a 4096-byte header page
 * (the header struct, then the session table) followed by slot_count 64-byte
 * slots. schemas/ring-format.md is the
 * normative description, with the numbered validity rules that a reader
 * applies; this header only pins the byte layout so that third-party readers
 * can use the same definitions. All integers are little-endian (the writer's
 * native order, checked through byte_order).
 *
 * The structs use plain integer types. The writer accesses the fields marked
 * "atomic" through C11 atomics (see src/atomics.h); a reader of a dead run's
 * file may read them plainly.
 */
#ifndef LASTWORDS_RING_H
#define LASTWORDS_RING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "\x89LWR\r\n\x1a\n": the high byte and the line endings catch 7-bit and
 * text-mode transfers, as in PNG. */
#define LW_RING_MAGIC "\x89LWR\r\n\x1a\n"
#define LW_RING_MAGIC_LEN 8

#define LW_RING_VERSION 3          /* format written by this library */
#define LW_RING_MIN_VERSION 1      /* oldest reader version that can read it */
#define LW_RING_BYTE_ORDER 0x01020304u
#define LW_RING_HEADER_SIZE 4096u
#define LW_RING_SLOT_SIZE 64u
#define LW_RING_SLOTS_MIN 16u
#define LW_RING_SLOTS_MAX (1u << 24) /* 1 GiB of slots */
#define LW_RING_PROCESS_MAX 64     /* process name field, NUL padded */
#define LW_RING_STAGE_SLOTS 8      /* open_count entries, indexed by stage */
#define LW_RING_SESSION_SLOTS 16   /* session table entries written by version 2 */
#define LW_RING_SESSION_SLOTS_MAX 56 /* the most a reader accepts (R5): the first page */
#define LW_RING_SESSION_OFFSET 512u /* the session table, after the header struct */

/* Bytes [0, LW_RING_HEADER_CRC_SPAN) of the header are written once at open
 * and covered by header_crc. */
#define LW_RING_HEADER_CRC_SPAN 252u

/* header.state */
enum lw_ring_state {
	LW_STATE_RUNNING = 1,    /* writer open; if no flock is held, it died */
	LW_STATE_CLEAN_EXIT = 2, /* lw_close() ran */
	LW_STATE_CRASHED = 3,    /* the fatal-signal handler ran */
};

/* header.flags (atomic, set during the run) */
#define LW_RUN_ADVICE_RESET 0x1u /* lw_advice_reset() was called in this run */
#define LW_RUN_SAMPLER 0x2u      /* a memory sampler thread was running */

struct lw_ring_header {
	/* Written once at open; covered by header_crc. */
	uint8_t magic[8];           /*   0 LW_RING_MAGIC */
	uint16_t version;           /*   8 format version of the writer */
	uint16_t min_version;       /*  10 oldest reader version that can read it */
	uint16_t header_size;       /*  12 bytes before slot 0: a multiple of 64, at least
	                               512; versions 1 and 2 write 4096 */
	uint16_t slot_size;         /*  14 always 64 */
	uint32_t slot_count;        /*  16 power of two */
	uint32_t byte_order;        /*  20 LW_RING_BYTE_ORDER as written */
	uint32_t pid;               /*  24 */
	uint32_t writer_version;    /*  28 liblastwords (major << 16 | minor << 8 | patch) */
	uint8_t run_id[16];         /*  32 random; for setProcessStateSummary() */
	uint8_t boot_id[16];        /*  48 /proc/sys/kernel/random/boot_id, or zeros */
	uint64_t start_mono_ns;     /*  64 CLOCK_MONOTONIC at open */
	uint64_t start_boot_ns;     /*  72 CLOCK_BOOTTIME at open */
	uint64_t start_real_ns;     /*  80 CLOCK_REALTIME at open, ns since the epoch */
	uint64_t app_version;       /*  88 app versionCode given by the caller */
	uint64_t stable_candidate;  /*  96 inherited last stable candidate digest, or 0 */
	uint32_t memory_budget_kb;  /* 104 caller's memory budget, 0 if none */
	uint32_t open_flags;        /* 108 reserved, zero in versions 1 and 2 */
	char process[LW_RING_PROCESS_MAX]; /* 112 process name, NUL padded */
	uint32_t session_slots;     /* 176 session table entries: 16 in version 2, 0 in 1 */
	uint8_t reserved0[72];      /* 180 zero */
	uint32_t header_crc;        /* 252 CRC32C of bytes [0, 252) */

	/* Written during the run. */
	uint64_t head;              /* 256 atomic: next ticket; alone in its cache line */
	uint8_t reserved1[56];      /* 264 */
	uint32_t state;             /* 320 atomic: enum lw_ring_state */
	uint32_t crash_signo;       /* 324 atomic: signal seen by the crash handler */
	uint64_t candidate;         /* 328 atomic: current candidate digest, 0 if none */
	uint64_t ok_candidate;      /* 336 atomic: candidate whose inference ended without error */
	uint32_t last_stage;        /* 344 atomic: last stage begun (enum lw_stage), 0 if none */
	uint32_t flags;             /* 348 atomic: LW_RUN_* */
	uint32_t open_count[LW_RING_STAGE_SLOTS]; /* 352 atomic: begun minus ended, per stage */
	uint64_t lapped;            /* 384 atomic: records dropped: their slot was still being
	                               written a lap behind, or held a newer record */
	uint64_t dropped;           /* 392 atomic: events refused (bad arguments) */
	uint64_t syncs;             /* 400 atomic: lw_sync() calls that reached storage */
	uint8_t reserved2[104];     /* 408 zero */
	/* 512: the session table, session_slots entries; then zero up to header_size */
};

/* header.sessions[i].state */
enum lw_ring_session_state {
	LW_SESSION_NEVER = 0,  /* not opened in this run */
	LW_SESSION_OPEN = 1,
	LW_SESSION_CLOSED = 2,
};

/*
 * One entry of the session table, at LW_RING_SESSION_OFFSET + 64 * id: what
 * the records said of session id, kept so that a lapped ring still knows its
 * open sessions (schemas/ring-format.md, 5.1). All fields atomic.
 */
struct lw_ring_session {
	uint32_t state;             /*  0 enum lw_ring_session_state */
	uint32_t last_stage;        /*  4 last stage begun in the session, 0 if none */
	uint64_t candidate;         /*  8 the session's candidate digest, 0 if none */
	uint32_t open_count[LW_RING_STAGE_SLOTS]; /* 16 begun minus ended, per stage */
	uint64_t opened_mono_ns;    /* 48 CLOCK_MONOTONIC when last opened */
	uint32_t result;            /* 56 enum lw_error given at the last close */
	uint32_t opens;             /* 60 times opened in this run */
};

/*
 * One slot. seq is the commit word: 0 never written, 2t+1 while ticket t is
 * being written, 2t+2 once ticket t is published. crc is CRC32C over the
 * ticket t (8 bytes, little-endian) followed by bytes [8, 60) of the slot.
 */
struct lw_ring_slot {
	uint64_t seq;               /*  0 atomic commit word */
	uint64_t t_mono_ns;         /*  8 CLOCK_MONOTONIC */
	uint8_t type;               /* 16 enum lw_event_type */
	uint8_t stage;              /* 17 enum lw_stage, or 0 */
	uint8_t code;               /* 18 per type: error class, mark kind, signal, advice */
	uint8_t flags;              /* 19 LW_SLOT_F_* */
	uint32_t tid;               /* 20 writer thread id */
	uint32_t rss_kb;            /* 24 last RSS sample, 0 if none */
	uint32_t rss_age_ms;        /* 28 age of that sample when the event was written */
	uint64_t a;                 /* 32 per type, see schemas/ring-format.md */
	uint64_t b;                 /* 40 */
	uint64_t c;                 /* 48 */
	uint32_t d;                 /* 56 */
	uint32_t crc;               /* 60 */
};

#define LW_SLOT_PAYLOAD_OFFSET 8u
#define LW_SLOT_PAYLOAD_SIZE 52u /* bytes [8, 60) */

/* slot.flags */
#define LW_SLOT_F_RSS_SAMPLED 0x1u  /* rss came from the sampler thread */
#define LW_SLOT_F_CLOCK_SAMPLED 0x2u /* a/b clocks derived from sampled offsets */

/* The layout, pinned field by field, so that a writer built for any ABI
 * (32-bit ARM and x86 align uint64_t to 4 bytes in a struct; these offsets
 * keep every 64-bit field 8-aligned anyway) writes the same bytes. */
_Static_assert(sizeof(struct lw_ring_header) == 512, "ring header layout");
_Static_assert(sizeof(struct lw_ring_session) == 64, "session entry layout");
_Static_assert(sizeof(struct lw_ring_slot) == LW_RING_SLOT_SIZE, "slot layout");
_Static_assert(offsetof(struct lw_ring_header, header_crc) == LW_RING_HEADER_CRC_SPAN,
	       "header_crc offset");
_Static_assert(LW_RING_SESSION_OFFSET + 64 * LW_RING_SESSION_SLOTS <= LW_RING_HEADER_SIZE,
	       "session table fits the header page");
_Static_assert(offsetof(struct lw_ring_header, magic) == 0, "header.magic offset");
_Static_assert(offsetof(struct lw_ring_header, version) == 8, "header.version offset");
_Static_assert(offsetof(struct lw_ring_header, min_version) == 10, "header.min_version offset");
_Static_assert(offsetof(struct lw_ring_header, header_size) == 12, "header.header_size offset");
_Static_assert(offsetof(struct lw_ring_header, slot_size) == 14, "header.slot_size offset");
_Static_assert(offsetof(struct lw_ring_header, slot_count) == 16, "header.slot_count offset");
_Static_assert(offsetof(struct lw_ring_header, byte_order) == 20, "header.byte_order offset");
_Static_assert(offsetof(struct lw_ring_header, pid) == 24, "header.pid offset");
_Static_assert(offsetof(struct lw_ring_header, writer_version) == 28, "header.writer_version offset");
_Static_assert(offsetof(struct lw_ring_header, run_id) == 32, "header.run_id offset");
_Static_assert(offsetof(struct lw_ring_header, boot_id) == 48, "header.boot_id offset");
_Static_assert(offsetof(struct lw_ring_header, start_mono_ns) == 64, "header.start_mono_ns offset");
_Static_assert(offsetof(struct lw_ring_header, start_boot_ns) == 72, "header.start_boot_ns offset");
_Static_assert(offsetof(struct lw_ring_header, start_real_ns) == 80, "header.start_real_ns offset");
_Static_assert(offsetof(struct lw_ring_header, app_version) == 88, "header.app_version offset");
_Static_assert(offsetof(struct lw_ring_header, stable_candidate) == 96, "header.stable_candidate offset");
_Static_assert(offsetof(struct lw_ring_header, memory_budget_kb) == 104, "header.memory_budget_kb offset");
_Static_assert(offsetof(struct lw_ring_header, open_flags) == 108, "header.open_flags offset");
_Static_assert(offsetof(struct lw_ring_header, process) == 112, "header.process offset");
_Static_assert(offsetof(struct lw_ring_header, session_slots) == 176, "header.session_slots offset");
_Static_assert(offsetof(struct lw_ring_header, reserved0) == 180, "header.reserved0 offset");
_Static_assert(offsetof(struct lw_ring_header, header_crc) == 252, "header.header_crc offset");
_Static_assert(offsetof(struct lw_ring_header, head) == 256, "header.head offset");
_Static_assert(offsetof(struct lw_ring_header, reserved1) == 264, "header.reserved1 offset");
_Static_assert(offsetof(struct lw_ring_header, state) == 320, "header.state offset");
_Static_assert(offsetof(struct lw_ring_header, crash_signo) == 324, "header.crash_signo offset");
_Static_assert(offsetof(struct lw_ring_header, candidate) == 328, "header.candidate offset");
_Static_assert(offsetof(struct lw_ring_header, ok_candidate) == 336, "header.ok_candidate offset");
_Static_assert(offsetof(struct lw_ring_header, last_stage) == 344, "header.last_stage offset");
_Static_assert(offsetof(struct lw_ring_header, flags) == 348, "header.flags offset");
_Static_assert(offsetof(struct lw_ring_header, open_count) == 352, "header.open_count offset");
_Static_assert(offsetof(struct lw_ring_header, lapped) == 384, "header.lapped offset");
_Static_assert(offsetof(struct lw_ring_header, dropped) == 392, "header.dropped offset");
_Static_assert(offsetof(struct lw_ring_header, syncs) == 400, "header.syncs offset");
_Static_assert(offsetof(struct lw_ring_header, reserved2) == 408, "header.reserved2 offset");
_Static_assert(offsetof(struct lw_ring_session, state) == 0, "session.state offset");
_Static_assert(offsetof(struct lw_ring_session, last_stage) == 4, "session.last_stage offset");
_Static_assert(offsetof(struct lw_ring_session, candidate) == 8, "session.candidate offset");
_Static_assert(offsetof(struct lw_ring_session, open_count) == 16, "session.open_count offset");
_Static_assert(offsetof(struct lw_ring_session, opened_mono_ns) == 48, "session.opened_mono_ns offset");
_Static_assert(offsetof(struct lw_ring_session, result) == 56, "session.result offset");
_Static_assert(offsetof(struct lw_ring_session, opens) == 60, "session.opens offset");
_Static_assert(offsetof(struct lw_ring_slot, seq) == 0, "slot.seq offset");
_Static_assert(offsetof(struct lw_ring_slot, t_mono_ns) == 8, "slot.t_mono_ns offset");
_Static_assert(offsetof(struct lw_ring_slot, type) == 16, "slot.type offset");
_Static_assert(offsetof(struct lw_ring_slot, stage) == 17, "slot.stage offset");
_Static_assert(offsetof(struct lw_ring_slot, code) == 18, "slot.code offset");
_Static_assert(offsetof(struct lw_ring_slot, flags) == 19, "slot.flags offset");
_Static_assert(offsetof(struct lw_ring_slot, tid) == 20, "slot.tid offset");
_Static_assert(offsetof(struct lw_ring_slot, rss_kb) == 24, "slot.rss_kb offset");
_Static_assert(offsetof(struct lw_ring_slot, rss_age_ms) == 28, "slot.rss_age_ms offset");
_Static_assert(offsetof(struct lw_ring_slot, a) == 32, "slot.a offset");
_Static_assert(offsetof(struct lw_ring_slot, b) == 40, "slot.b offset");
_Static_assert(offsetof(struct lw_ring_slot, c) == 48, "slot.c offset");
_Static_assert(offsetof(struct lw_ring_slot, d) == 56, "slot.d offset");
_Static_assert(offsetof(struct lw_ring_slot, crc) == 60, "slot.crc offset");

#ifdef __cplusplus
}
#endif
#endif /* LASTWORDS_RING_H */
