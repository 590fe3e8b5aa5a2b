/*
 * Ring format v1 below the probe: CRC32C (known vector, hardware path equal
 * to the table path, chaining, the slot checksum) and the header rules
 * R1..R7 of ring_header_check(): a fresh header passes, and each damage
 * gives its own status, a reason and the offset of the field at fault.
 */
#include <inttypes.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "helpers.h"

#include "../src/cpu.h"
#include "../src/crc32c.h"
#include "../src/ring.h"

#define SLOTS 64u

static uint64_t rng_state = 0x243f6a8885a308d3u;

static uint64_t rng_next(void)
{
	uint64_t x = rng_state += 0x9e3779b97f4a7c15u;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static void check_vector(const char *path)
{
	T_ASSERT(crc32c(0, "123456789", 9) == 0xe3069283u, "%s: crc32c(\"123456789\") = 0x%08x",
		 path, crc32c(0, "123456789", 9));
	T_ASSERT(crc32c(0, "", 0) == 0, "%s: crc32c of nothing = 0x%08x", path, crc32c(0, "", 0));
	/* Chaining: "1234" then "56789" is the CRC of the whole. */
	T_ASSERT(crc32c(crc32c(0, "1234", 4), "56789", 5) == 0xe3069283u,
		 "%s: chained crc32c = 0x%08x", path, crc32c(crc32c(0, "1234", 4), "56789", 5));
}

static void check_crc(void)
{
	unsigned char buf[300 + 8];
	size_t len, off, split;
	int hw = 0;

	T_ASSERT(crc32c_sw(0, "123456789", 9) == 0xe3069283u, "table path: 0x%08x",
		 crc32c_sw(0, "123456789", 9));
	crc32c_use_hw(0);
	check_vector("table path");

	if (cpu_has_crc32c()) {
		hw = crc32c_use_hw(1);
#if defined(__x86_64__) || defined(__aarch64__)
		T_ASSERT(hw == 1, "the CPU has CRC32C but crc32c_use_hw(1) returned %d", hw);
#endif
	}
	if (!hw)
		printf("no hardware CRC32C here: the table path is compared with itself\n");
	check_vector(hw ? "hardware path" : "table path");

	/* Every length 0..300, at every alignment mod 8, one-shot and chained. */
	for (len = 0; len <= 300; len++) {
		for (off = 0; off < 8; off++) {
			unsigned char *p = buf + off;
			uint32_t want, seed = (uint32_t)rng_next();

			for (size_t i = 0; i < len; i++)
				p[i] = (unsigned char)rng_next();
			want = crc32c_sw(0, p, len);
			T_ASSERT(crc32c(0, p, len) == want,
				 "len %zu off %zu: 0x%08x != table 0x%08x",
				 len, off, crc32c(0, p, len), want);
			T_ASSERT(crc32c(seed, p, len) == crc32c_sw(seed, p, len),
				 "len %zu off %zu: seeded crc differs", len, off);
			split = len ? (size_t)(rng_next() % (len + 1)) : 0;
			T_ASSERT(crc32c(crc32c(0, p, split), p + split, len - split) == want,
				 "len %zu split %zu: chained crc differs", len, split);
			T_ASSERT(crc32c_sw(crc32c_sw(0, p, split), p + split, len - split) == want,
				 "len %zu split %zu: chained table crc differs", len, split);
		}
	}

	/* The slot checksum: CRC32C over the ticket (8 bytes LE) and 52 bytes,
	 * on the table path and on the hardware path (which has its own code). */
	for (int path = 0; path <= hw; path++) {
		unsigned char zero[52] = { 0 };

		crc32c_use_hw(path);
		for (int k = 0; k < 64; k++) {
			unsigned char img[60], payload[52];
			uint64_t t = k < 4 ? (uint64_t)k : rng_next() >> (k % 64);

			for (size_t i = 0; i < sizeof(payload); i++)
				payload[i] = (unsigned char)rng_next();
			for (int i = 0; i < 8; i++)
				img[i] = (unsigned char)(t >> (8 * i));
			memcpy(img + 8, payload, sizeof(payload));
			T_ASSERT(crc32c_slot(t, payload) == crc32c_sw(0, img, sizeof(img)),
				 "%s path: crc32c_slot(%" PRIu64 ") = 0x%08x, expected 0x%08x",
				 path ? "hardware" : "table", t, crc32c_slot(t, payload),
				 crc32c_sw(0, img, sizeof(img)));
			T_ASSERT(crc32c_slot(t ^ 1, payload) != crc32c_slot(t, payload),
				 "crc32c_slot ignores the ticket");
		}
		/* Check value from schemas/ring-format.md: 60 zero bytes. */
		T_ASSERT(crc32c_slot(0, zero) == 0x5a0b0531u,
			 "%s path: crc32c_slot(0, zeros) = 0x%08x",
			 path ? "hardware" : "table", crc32c_slot(0, zero));
	}
	crc32c_use_hw(hw);
}

static alignas(64) unsigned char good[LW_RING_HEADER_SIZE];
static alignas(64) unsigned char work[LW_RING_HEADER_SIZE];

static void make_header(void)
{
	static const uint8_t run_id[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct ring_header_params p;
	struct lw_ring_header *h = (struct lw_ring_header *)good;

	memset(&p, 0, sizeof(p));
	p.slot_count = SLOTS;
	p.pid = 4242;
	p.writer_version = 0x000100;
	p.run_id = run_id;
	p.start_mono_ns = 1;
	p.start_boot_ns = 2;
	p.start_real_ns = 3;
	p.app_version = 77;
	p.process = "com.example.app:inference";
	ring_header_init(h, &p);

	T_ASSERT(memcmp(h->magic, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0, "magic not written");
	T_ASSERT(h->version == LW_RING_VERSION && h->min_version == LW_RING_MIN_VERSION,
		 "version %u min %u", h->version, h->min_version);
	T_ASSERT(h->header_size == LW_RING_HEADER_SIZE && h->slot_size == LW_RING_SLOT_SIZE,
		 "header_size %u slot_size %u", h->header_size, h->slot_size);
	T_ASSERT(h->slot_count == SLOTS && h->pid == 4242 && h->app_version == 77,
		 "fields not copied");
	T_ASSERT(h->byte_order == LW_RING_BYTE_ORDER, "byte_order 0x%08x", h->byte_order);
	T_ASSERT(memcmp(h->run_id, run_id, 16) == 0, "run_id not copied");
	T_ASSERT(strcmp(h->process, "com.example.app:inference") == 0, "process '%.64s'",
		 h->process);
	T_ASSERT(h->state == LW_STATE_RUNNING, "state %u", h->state);
	T_ASSERT(h->header_crc == crc32c_sw(0, h, LW_RING_HEADER_CRC_SPAN),
		 "header_crc 0x%08x is not the CRC32C of bytes [0, 252)", h->header_crc);
	T_ASSERT(ring_header_crc(h) == h->header_crc, "ring_header_crc disagrees");
	T_ASSERT(ring_file_size(h) == LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE,
		 "ring_file_size %" PRIu64, ring_file_size(h));
}

static struct lw_ring_header *fresh(void)
{
	memcpy(work, good, sizeof(work));
	return (struct lw_ring_header *)work;
}

static void reseal(struct lw_ring_header *h)
{
	h->header_crc = ring_header_crc(h);
}

/* One damaged header: the status, the offset and a reason. */
static void expect(const char *what, size_t file_size, enum ring_header_status want,
		   size_t want_offset)
{
	struct ring_error err;
	enum ring_header_status st;

	memset(&err, 0xa5, sizeof(err));
	err.reason[0] = '\0';
	st = ring_header_check(work, file_size, &err);
	T_ASSERT(st == want, "%s: status %d, expected %d (%s)", what, (int)st, (int)want,
		 err.reason);
	T_ASSERT(err.reason[0] != '\0' && strlen(err.reason) < sizeof(err.reason),
		 "%s: no reason given", what);
	T_ASSERT(err.offset == want_offset, "%s: offset %zu, expected %zu (%s)", what, err.offset,
		 want_offset, err.reason);
	/* The same damage without an error struct must not crash. */
	T_ASSERT(ring_header_check(work, file_size, NULL) == want, "%s: differs without err",
		 what);
}

/* ring_header_damage() finds, first, the field at offset (a uint32_t) of
 * session id's entry, set to value (opened_mono_ns set to opened first,
 * unless 0, and the state to state), names it with want, and marks the
 * entry; newest is the newest record's time. */
static void expect_session_at(const char *what, uint32_t id, uint32_t state, uint64_t opened,
			      size_t offset, uint32_t value, uint64_t newest, const char *want)
{
	struct lw_ring_header *h = fresh();
	struct lw_ring_session *e = &ring_sessions(h)[id];
	struct ring_damage d;
	struct ring_error err;
	size_t at = LW_RING_SESSION_OFFSET + 64u * id + offset;

	if (state) {
		e->state = state;
		e->opens = 1;
		e->opened_mono_ns = opened;
	}
	memcpy(work + at, &value, sizeof(value));
	T_ASSERT(ring_header_check(work, LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE, &err) ==
			 RING_HEADER_OK,
		 "%s: the header struct refused: %s", what, err.reason);
	ring_header_damage(h, newest, &d);
	T_ASSERT(d.n >= 1 && d.field[0].offset == at && d.sessions == (uint64_t)1 << id &&
			 strstr(d.field[0].reason, want),
		 "%s: %u found, first at offset %zu, expected %zu; sessions %llx (%s)", what,
		 (unsigned)d.n, d.n ? d.field[0].offset : 0, at, (unsigned long long)d.sessions,
		 d.n ? d.field[0].reason : "");
}

static void expect_session(const char *what, uint32_t id, size_t offset, uint32_t value)
{
	expect_session_at(what, id, 0, 0, offset, value, 0, "");
}

/* Every impossible value of the session table is found, not only the
 * first (issue 20, 4.6): a result that is no error class, opens at its
 * maximum, an open before the run's start or after the newest record. */
static void check_session_damage(void)
{
	const size_t result = offsetof(struct lw_ring_session, result);
	const size_t opens = offsetof(struct lw_ring_session, opens);
	const size_t state = offsetof(struct lw_ring_session, state);
	struct lw_ring_header *h;
	struct ring_damage d;
	uint32_t k;

	expect_session_at("result 99", 2, LW_SESSION_CLOSED, 1000, result, 99, 0,
			  "session 2: result field holds 99, not an error class");
	expect_session_at("opens at its maximum", 3, LW_SESSION_OPEN, 1000, opens, UINT32_MAX, 0,
			  "session 3: opens field holds 4294967295, its maximum");
	expect_session_at("session 0 closed", 0, LW_SESSION_OPEN, 1, state, LW_SESSION_CLOSED, 0,
			  "session 0: state field holds 2");
	expect_session_at("session 0 never opened", 0, LW_SESSION_OPEN, 1, state, LW_SESSION_NEVER, 0,
			  "session 0: state field holds 0");
	/* opened_mono_ns is 64 bits: its low word set past the newest record */
	expect_session_at("opened after the newest record", 4, LW_SESSION_OPEN, 1000,
			  offsetof(struct lw_ring_session, opened_mono_ns), 5000, 2000,
			  "session 4: opened_mono_ns field holds 5000, after the newest record (2000)");
	h = fresh();
	h->start_mono_ns = 100;
	ring_sessions(h)[0].opened_mono_ns = 100;
	ring_sessions(h)[4].state = LW_SESSION_CLOSED;
	ring_sessions(h)[4].opens = 1;
	ring_sessions(h)[4].opened_mono_ns = 50;
	ring_header_damage(h, 0, &d);
	T_ASSERT(d.n == 1 && strstr(d.field[0].reason, "before the run started"),
		 "an open before the start: %u, %s", (unsigned)d.n, d.n ? d.field[0].reason : "");
	/* the writer's window: a first open whose time is not stored yet */
	ring_sessions(h)[4].opened_mono_ns = 0;
	ring_sessions(h)[4].opens = 0;
	ring_header_damage(h, 200, &d);
	T_ASSERT(d.n == 0, "an open whose time is not stored yet is no damage: %s",
		 d.n ? d.field[0].reason : "");
	/* a fresh table, and one whose open time equals the newest record */
	h = fresh();
	ring_header_damage(h, h->start_mono_ns, &d);
	T_ASSERT(d.n == 0 && d.sessions == 0, "a fresh table is damaged: %s",
		 d.n ? d.field[0].reason : "");
	/* every one counted, the first RING_DAMAGE_MAX kept */
	for (k = 1; k < LW_RING_SESSION_SLOTS; k++) {
		ring_sessions(h)[k].state = 9;
		ring_sessions(h)[k].result = 77;
	}
	ring_header_damage(h, 0, &d);
	T_ASSERT(d.n == 2 * (LW_RING_SESSION_SLOTS - 1) && d.sessions == 0xfffeu &&
			 strstr(d.field[1].reason, "session 1: result field holds 77") &&
			 strstr(d.field[RING_DAMAGE_MAX - 1].reason, "session 4: result"),
		 "all the damage: %u fields, sessions %llx", (unsigned)d.n,
		 (unsigned long long)d.sessions);
}

static void check_header(void)
{
	const size_t full = LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE;
	struct lw_ring_header *h;
	struct ring_error err;
	enum ring_header_status st;

	make_header();
	fresh();
	st = ring_header_check(work, full, &err);
	T_ASSERT(st == RING_HEADER_OK, "fresh header refused: %d at %zu: %s", (int)st, err.offset,
		 err.reason);
	T_ASSERT(ring_header_check(work, full + 4096, NULL) == RING_HEADER_OK,
		 "a longer file is refused");

	h = fresh();
	h->magic[3] = 'X';
	expect("foreign magic", full, RING_HEADER_FOREIGN, 0);
	fresh();
	expect("4 bytes", 4, RING_HEADER_FOREIGN, 0);

	fresh();
	expect("short header", 100, RING_HEADER_TOO_SMALL, 100);

	h = fresh();
	h->byte_order = 0x04030201u;
	expect("byte order", full, RING_HEADER_BYTE_ORDER,
	       offsetof(struct lw_ring_header, byte_order));

	h = fresh();
	h->min_version = LW_RING_VERSION + 1;
	expect("min_version above ours", full, RING_HEADER_FUTURE,
	       offsetof(struct lw_ring_header, version));
	h = fresh();
	h->min_version = LW_RING_VERSION + 1;
	reseal(h);
	expect("min_version above ours, resealed", full, RING_HEADER_FUTURE,
	       offsetof(struct lw_ring_header, version));
	h = fresh();
	h->version = LW_RING_VERSION + 1; /* a newer writer that we can still read */
	reseal(h);
	T_ASSERT(ring_header_check(work, full, &err) == RING_HEADER_OK,
		 "a newer version with our min_version refused: %s", err.reason);

	h = fresh();
	h->process[0] ^= 0x20;
	expect("checksum", full, RING_HEADER_CHECKSUM, offsetof(struct lw_ring_header, header_crc));
	h = fresh();
	h->header_crc ^= 1;
	expect("checksum field", full, RING_HEADER_CHECKSUM,
	       offsetof(struct lw_ring_header, header_crc));

	h = fresh();
	h->slot_count = 100;
	reseal(h);
	expect("slot_count 100", full, RING_HEADER_GEOMETRY,
	       offsetof(struct lw_ring_header, slot_count));
	h = fresh();
	h->slot_count = 8;
	reseal(h);
	expect("slot_count 8", full, RING_HEADER_GEOMETRY,
	       offsetof(struct lw_ring_header, slot_count));
	h = fresh();
	h->slot_size = 32;
	reseal(h);
	expect("slot_size 32", full, RING_HEADER_GEOMETRY,
	       offsetof(struct lw_ring_header, slot_size));
	h = fresh();
	h->header_size = 100;
	reseal(h);
	expect("header_size 100", full, RING_HEADER_GEOMETRY,
	       offsetof(struct lw_ring_header, header_size));
	h = fresh();
	h->slot_count = 100;
	expect("slot_count 100, not resealed", full, RING_HEADER_CHECKSUM,
	       offsetof(struct lw_ring_header, header_crc));

	fresh();
	expect("truncated by one byte", full - 1, RING_HEADER_TRUNCATED, full - 1);
	fresh();
	expect("header only", LW_RING_HEADER_SIZE, RING_HEADER_TRUNCATED, LW_RING_HEADER_SIZE);

	h = fresh();
	h->state = 9;
	expect("state 9", full, RING_HEADER_FIELD, offsetof(struct lw_ring_header, state));
	h = fresh();
	h->state = 0;
	expect("state 0", full, RING_HEADER_FIELD, offsetof(struct lw_ring_header, state));
	h = fresh();
	h->last_stage = LW_RING_STAGE_SLOTS;
	expect("last_stage", full, RING_HEADER_FIELD, offsetof(struct lw_ring_header, last_stage));
	h = fresh();
	h->crash_signo = 65;
	expect("crash_signo", full, RING_HEADER_FIELD,
	       offsetof(struct lw_ring_header, crash_signo));
	h = fresh();
	h->open_count[3] = 0x80000000u;
	expect("open_count[3]", full, RING_HEADER_FIELD,
	       offsetof(struct lw_ring_header, open_count) + 3 * 4);
	/* R5: the session table fits the header page (version 2). */
	h = fresh();
	T_ASSERT(h->session_slots == LW_RING_SESSION_SLOTS &&
			 ring_sessions(h)[0].state == LW_SESSION_OPEN,
		 "a fresh header's session table: %u entries", h->session_slots);
	h->session_slots = LW_RING_SESSION_SLOTS_MAX + 1;
	reseal(h);
	expect("session_slots", full, RING_HEADER_GEOMETRY,
	       offsetof(struct lw_ring_header, session_slots));
	/* R7 in the session table: each entry's fields, at their offsets. */
	expect_session("session state", 3, offsetof(struct lw_ring_session, state), 3);
	expect_session("session last_stage", 5, offsetof(struct lw_ring_session, last_stage),
		       LW_RING_STAGE_SLOTS);
	expect_session("session open_count[2]", 15,
		       offsetof(struct lw_ring_session, open_count) + 2 * 4, 0x80000000u);
	check_session_damage();
	/* Run-time fields are outside the checksum: CLEAN_EXIT and CRASHED pass. */
	h = fresh();
	h->state = LW_STATE_CRASHED;
	h->crash_signo = 11;
	T_ASSERT(ring_header_check(work, full, &err) == RING_HEADER_OK,
		 "crashed header refused: %s", err.reason);
}

int main(void)
{
	check_crc();
	check_header();
	printf("crc32c: vector, %s path == table path for lengths 0..300, slot checksum; "
	       "header: OK and 8 failure statuses with offsets\n",
	       cpu_has_crc32c() ? "hardware" : "table");
	return T_PASS;
}
