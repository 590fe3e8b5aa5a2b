/*
 * A run's model sessions as the report and the rules read them: each
 * session of the ring's session table (struct run's sessions[]) with what
 * its records add, when it opened and closed, its stages' peak memory, the
 * stages it began and never ended, and which candidates were resident at
 * death. A version 1 ring's only session is session 0. Never prints; does
 * not allocate or block.
 */
#ifndef LW_ANALYZER_SESSIONS_H
#define LW_ANALYZER_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include <lastwords/vocab.h>

#include "run.h"

/* Of a time: not known (the records that told it have lapped). */
#define SESSION_NO_TIME (-1.0)

struct session_view {
	uint32_t id;
	enum lw_ring_session_state state; /* at the end */
	uint64_t candidate;        /* digest, 0 if none; a closed session's last */
	uint32_t opens;
	double opened_ms;          /* the last open, ms from the run's start */
	double closed_ms;          /* the last close after it; SESSION_NO_TIME while open */
	enum lw_error result;      /* of that close */
	uint32_t open_stages;      /* bit s: stage s begun and not ended, at the end */
	enum lw_stage open_stage;  /* the one the ring derives (ring_open_stage_of) */
	uint32_t peak_kb;          /* the highest RSS while a stage of it was open (a stage
				    * record's sample is of its stage); 0: none */
	enum lw_stage peak_stage;  /* the stage of it open at that peak */
	size_t peak_record;        /* the first record at that peak (index into the run's events) */
	int resident;              /* open at the end with a candidate: its model loaded */
};

/* The sessions of r, in id order, into out (room for max;
 * LW_RING_SESSION_SLOTS_MAX is enough). Returns how many. */
size_t sessions_view(const struct run *r, struct session_view *out, size_t max);

/* The stage open at r's peak RSS peak_kb (run_facts_get()), by the same
 * walk as the sessions' peaks, so that the run and its sessions tell one
 * peak: the stage of the first record at that RSS while a stage of a
 * session was open, or LW_STAGE_NONE when none was. A run without a
 * session table (a seed run) has no such walk: the stage its peak record
 * names (peak_record_stage). */
enum lw_stage sessions_peak_stage(const struct run *r, uint32_t peak_kb, enum lw_stage peak_record_stage);

/* The sessions a blame may name (issue 23): by index into r's sessions
 * (bit k: r->sessions[k]), those with a stage open at the end (at death),
 * and those open at the end that had a stage open at the run's peak RSS
 * peak_kb, at the first record at it (sessions_peak_stage()'s walk): a
 * session closed before the end gave its memory back. */
struct session_blame {
	uint64_t open_at_end;
	uint64_t held_peak;
};

/* Which of r's sessions had a stage open at the end, or held its peak
 * peak_kb, into *out. A run without a session table has none. */
void sessions_blame(const struct run *r, uint32_t peak_kb, struct session_blame *out);

/* The last stage record's stage of the session of r that holds r's open
 * stage open (of those that hold it, the one that began it last), or
 * LW_STAGE_NONE when no session holds it or no record of it is left: a
 * run's last stage is that session's, not another's that began and ended
 * a stage after it. */
enum lw_stage sessions_last_stage(const struct run *r, enum lw_stage open_stage);

/* Whether the app opened sessions of its own (lw_session_open(3)): a
 * session other than session 0. A version 1 ring's, whose only session is
 * session 0, did not. */
int sessions_used(const struct run *r);

#endif
