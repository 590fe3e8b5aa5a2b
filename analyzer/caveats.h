/*
 * Caveats: what a run's verdict could not see (DESIGN.md, "Reports": a
 * verdict lists what it could not see), found for every run, judged or
 * not, and whether one of them could hide the stage at death. When one
 * could, classify.c lowers the verdict's evidence level by one step
 * (confirmed to supported, supported to unconfirmed); a caveat that could
 * not is listed and lowers nothing. The rule, caveat by caveat:
 *
 * - Records lost in the ring: torn, stale or corrupt slots and tickets the
 *   writer dropped, that is the tickets of the window the ring holds (its
 *   last slot_count tickets up to its head) with no valid record. The
 *   stage at death is told by the ring's last part: its records from the
 *   begin of the stage open at death (the last begin of that stage), or,
 *   with none open, from the last stage record, to the end. A record lost
 *   there may be that stage's end, another begin, a crash record or a
 *   failed allocation: it hides the stage at death. Records lost before
 *   that part do not: the records after them tell it. With no such record
 *   in the ring (its begin lapped, or no stage record at all), every lost
 *   record hides it.
 * - A lapped ring (its head past its slot count): the records before its
 *   oldest slot were overwritten, and the stages before them are unknown.
 *   The header's stage counters and session table survive laps, so it
 *   hides the stage at death only when the open stages are the records'
 *   alone (run.stages_from_header is 0: JSON lines without the header's
 *   "open_stage" or "sessions"), where a stage begun before the oldest
 *   record and open at death would not show.
 * - Records after the death: records whose time is later than the newest
 *   joined exit record's beyond the clock tolerance and the record's
 *   precision (correlate.h); only a record joined by the run id, which
 *   does not look at the time, can be so. They hide the stage at death
 *   when a stage record (a begin or an end) is among them: the stage open
 *   at the system's time of death is then not the one the ring ends in.
 * - An unknown platform version: a run with an exit record, on a device
 *   whose SDK level no input gives (corr_options.sdk), or one outside the
 *   levels whose exit codes src/exit-info.h holds. It hides no stage: a
 *   code the table does not know stays unknown by the rules already.
 *
 * Never prints.
 */
#ifndef LW_ANALYZER_CAVEATS_H
#define LW_ANALYZER_CAVEATS_H

#include <stddef.h>

#include "correlate.h"
#include "runs/run.h"

#define CAVEATS_MAX 4
#define CAVEAT_LINE_MAX 240 /* bytes, with the NUL */

struct caveats {
	/* Lines on the heap, each cut to CAVEAT_LINE_MAX; one that cannot
	 * be allocated is left out. Freed by caveats_release(). */
	char *line[CAVEATS_MAX];
	size_t n;
	int hides_stage; /* one of them could hide the stage at death */
};

/* The caveats of run cr of correlation c, whose facts are f, into *out
 * (written whole). Allocates its lines; never fails (a line that cannot
 * be allocated is left out, its hides_stage still counts). Does not
 * block. */
void caveats_find(const struct correlation *c, const struct corr_run *cr,
		  const struct run_facts *f, struct caveats *out);

/* Free the lines and zero cv. Accepts a zeroed one. */
void caveats_release(struct caveats *cv);

#endif
