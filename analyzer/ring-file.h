/*
 * Reading a ring file pulled from a device: untrusted input. The file is
 * mapped read-only and its header checked (rules R1..R7 of
 * schemas/ring-format.md) before any slot is looked at. Never prints.
 */
#ifndef LW_ANALYZER_RING_FILE_H
#define LW_ANALYZER_RING_FILE_H

#include <stddef.h>

#include <stdint.h>

#include "../src/ring.h"

struct ring_file {
	char *path;
	int fd;
	const void *map;
	size_t size;
	const struct lw_ring_header *hdr;
	const struct lw_ring_slot *slots;
	int live; /* a writer holds the file's flock right now */
	/* R7 failed: a run-time header field holds an impossible value. The
	 * slots are still read (R1..R6 hold); the outcome is unknown. */
	int header_damaged;
	struct ring_error damage;
};

/* How a run ended, as far as the ring tells. */
enum ring_outcome {
	RING_OUTCOME_LIVE,    /* a writer still holds it */
	RING_OUTCOME_CLEAN,   /* lw_close() ran */
	RING_OUTCOME_CRASHED, /* the fatal-signal handler ran */
	RING_OUTCOME_DIED,    /* neither: killed (SIGKILL) or power lost */
	RING_OUTCOME_UNKNOWN, /* the state field is damaged */
};

/*
 * Open, map and check a ring file. On success *out is set (free with
 * ring_file_free) and 0 is returned; a file that fails only R7 is opened,
 * with header_damaged set. Otherwise *err holds a one-line reason
 * and the offset it concerns, and the return value is a negative errno for
 * a system error (the reason is then strerror's text) or a positive enum
 * ring_header_status for a file that is not a ring this reader can read.
 */
int ring_file_open(const char *path, struct ring_file **out, struct ring_error *err);

/* Accepts NULL. */
void ring_file_free(struct ring_file *rf);

enum ring_outcome ring_file_outcome(const struct ring_file *rf);

/* "live", "clean", "crashed", "died". */
const char *ring_outcome_name(enum ring_outcome o);


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

#endif
