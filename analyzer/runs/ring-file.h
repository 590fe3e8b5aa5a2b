/*
 * Reading a ring file pulled from a device: untrusted input. The file is
 * read into memory when it is opened (a mapping would die of SIGBUS if the
 * file shrank under it) and its header checked (rules R1..R7 of
 * schemas/ring-format.md) before any slot is looked at. Never prints.
 */
#ifndef LW_ANALYZER_RING_FILE_H
#define LW_ANALYZER_RING_FILE_H

#include <stddef.h>

#include <stdint.h>

#include "../../src/ring.h"

struct ring_file {
	char *path;
	unsigned char *bytes; /* the header and the slots, as read at open */
	size_t size;          /* of bytes: the ring's size, or the file's if blank */
	const struct lw_ring_header *hdr;
	const struct lw_ring_slot *slots;
	int live; /* a writer held the file's flock when it was opened */
	/* Every byte is zero: the probe preallocated the file and was stopped
	 * (SIGKILL inside lw_open) before it wrote the header; or the file
	 * is empty (0 bytes). An empty run with no process, pid or record;
	 * hdr is all zero, blank_slots says how many slots the file has room
	 * for (0 for an empty file). */
	int blank;
	uint32_t blank_slots;
	/* R7 failed: run-time header fields hold impossible values, each in
	 * damage (ring_header_damage(), with the newest record's time). The
	 * slots are still read (R1..R6 hold); the outcome is unknown when the
	 * state is damaged, and no session is built on a damaged entry. */
	int header_damaged;
	struct ring_damage damage;
};

/* How a run ended, as far as the ring tells. */
enum ring_outcome {
	RING_OUTCOME_LIVE,    /* a writer still holds it */
	RING_OUTCOME_CLEAN,   /* lw_close() ran */
	RING_OUTCOME_CRASHED, /* the fatal-signal handler ran */
	RING_OUTCOME_DIED,    /* neither: killed (SIGKILL) or power lost */
	RING_OUTCOME_UNKNOWN, /* the state field is damaged */
	RING_OUTCOME_BLANK,   /* never initialized: the file is all zero */
	RING_OUTCOME_NO_RING, /* a ring-less run (run.h): there is no ring to tell */
};

/*
 * Open, read and check a ring file. On success *out is set (free with
 * ring_file_free) and 0 is returned; a file that fails only R7 is opened,
 * with header_damaged set, and a blank file (all zero, of a ring's size)
 * with blank set. Otherwise *err holds a one-line reason and the offset it
 * concerns, and the return value is a negative errno for a system error
 * (the reason is then strerror's text) or a positive enum
 * ring_header_status for a file that is not a ring this reader can read:
 * not a regular file, or one that shrank while it was read, is one. The
 * file is never waited on (a FIFO is refused, not opened for reading).
 * Allocates the ring's size; a live ring (a writer holds it) is read twice,
 * and a slot that changed between the reads is torn (R9), as a slot the
 * writer rewrites while a reader copies it is.
 */
int ring_file_open(const char *path, struct ring_file **out, struct ring_error *err);

/* Accepts NULL. */
void ring_file_free(struct ring_file *rf);

enum ring_outcome ring_file_outcome(const struct ring_file *rf);

/* "live", "clean", "crashed", "died", "unknown", "never_initialized",
 * "no_ring". */
const char *ring_outcome_name(enum ring_outcome o);

/* What a blank ring is, for people: one phrase that dump, verify, inspect
 * and the report all use; of a blank ring with room for slots slots (0:
 * an empty file). Static storage; does not allocate or block. */
const char *ring_blank_text(uint32_t slots);


/* One model session as the header's session table keeps it
 * (schemas/ring-format.md, 5.1): what a reader knows of it even when the
 * ring lapped past its records. */
struct ring_session {
	uint32_t id;
	enum lw_ring_session_state state;
	uint64_t candidate;           /* digest, 0 if none */
	enum lw_stage open_stage;     /* derived as the run's is */
	uint32_t open_count[LW_RING_STAGE_SLOTS];
	uint64_t opened_mono_ns;
	enum lw_error result;         /* of the last close */
	uint32_t opens;
};

/*
 * The sessions of rf that were ever opened, in id order, into out (room
 * for max; LW_RING_SESSION_SLOTS_MAX is enough): a version 2 file's session
 * table but its damaged entries (rf->damage.sessions), or for a version 1
 * file (no table) session 0 made of the header's candidate and open
 * stages. Returns how many; 0 for a blank file.
 */
size_t ring_file_sessions(const struct ring_file *rf, struct ring_session *out, size_t max);

/* The damaged fields of d, for people: "REASON (OFFSETS N); REASON ...",
 * OFFSETS as given ("offset"), without the offsets when it is NULL, and
 * "; and N more" past those kept. */
void ring_damage_text(const struct ring_damage *d, const char *offsets, char *buf, size_t len);

/* The same for a header page that passed R1..R7 (h's first
 * LW_RING_HEADER_SIZE bytes, or only the header struct when its
 * session_slots is 0). */
size_t ring_header_sessions(const struct lw_ring_header *h, struct ring_session *out, size_t max);

/* What the valid records say about the run. */
struct ring_facts {
	struct ring_scan scan;
	uint32_t peak_rss_kb;         /* 0 when no record has an RSS sample */
	struct lw_ring_slot peak;     /* the record with the peak RSS */
	struct lw_ring_slot last;     /* the newest valid record */
	struct lw_ring_slot crash;    /* the crash record, if has_crash */
	int has_crash;
};

/*
 * Add one valid record, in ticket order, to facts that start zeroed: the
 * peak is the first record with the highest RSS sample (rss 0 is no
 * sample, never a peak), the crash record the first crash record. The one
 * rule for the peak: ring_file_walk() adds a file's slots (dump, verify),
 * run_facts_get() (run.c) a run's records (report), whether they came from a ring
 * file, its JSON lines or seed events. Leaves scan alone.
 */
void ring_facts_add(struct ring_facts *f, const struct lw_ring_slot *s);

/*
 * The walk over a file's valid slots, in ticket order (ring_scan(): rules
 * R8..R12): *facts gets the slot counts and every record (ring_facts_add),
 * and fn, if not NULL, is called for each record. Returns 0, or the
 * non-zero value fn returned, which ends the walk (the facts then stop at
 * that record). Does not allocate.
 */
int ring_file_walk(const struct ring_file *rf, struct ring_facts *facts, ring_event_fn fn,
		   void *arg);

/*
 * The valid records of rf in ticket order, as ring_file_walk() gives them,
 * moved to the start of rf's own memory, which *records then owns (free
 * with free(); NULL when there is none): a ring's records take no memory
 * beyond the ring's. Each is as its slot holds it, seq its published value
 * 2 * ticket + 2 (R9), but crc, which is not kept (0). *scan gets the
 * counts. rf is spent: only ring_file_free() may follow. Returns 0, or
 * -ENOMEM (rf is then as it was).
 */
int ring_file_take_records(struct ring_file *rf, struct lw_ring_slot **records, size_t *n,
			   struct ring_scan *scan);

#endif
