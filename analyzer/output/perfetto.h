/*
 * The report's runs as a Perfetto trace (protobuf, perfetto.protos.Trace),
 * to open in Perfetto UI beside a system trace of the same device. Each
 * run is a process track (pid, process name, the verdict as a label), with
 * a thread track for each thread that wrote a mark or the crash record;
 * its stages are slices on a track per session (more than one when a
 * session's stages overlap without nesting); RSS and the budget are two
 * counter tracks; marks, the crash record and the ring's other point
 * records are instants on their thread's track, and the evidence of its
 * death (exit records, tombstones, ANR traces, log lines such as lmkd's
 * kill, the main process's peer_died) instants on the process track.
 *
 * Times are on the device's CLOCK_BOOTTIME, as a system trace's are: a
 * record's MONOTONIC time with its ring's nearest clock triple, the
 * evidence's wall-clock time (as correlate.c placed it) with the nearest
 * triple in REALTIME (run-clock.h); a ClockSnapshot per ring ties the
 * clocks. A ring-less run has no triple of its own: the bundle's rings'
 * are used, and evidence of an earlier boot than theirs cannot be placed.
 * With no ring at all the trace is on REALTIME. Seed runs have no device
 * clock and are left out. Never prints.
 */
#ifndef LW_ANALYZER_PERFETTO_H
#define LW_ANALYZER_PERFETTO_H

#include <stddef.h>
#include <stdio.h>

#include "../report.h"

/* What the trace holds, and what it could not. */
struct perfetto_notes {
	int realtime;        /* no ring had a clock triple: the trace is on REALTIME */
	size_t runs;         /* runs written: one process track each */
	size_t seed_runs;    /* left out: the seed's events have no device clock */
	size_t no_clock;     /* rings left out: no clock triple at all */
	size_t unplaced;     /* events left out: no time, or before the boot of the rings */
	size_t packets;
	uint64_t bytes;
};

/* Write the trace of report r to out, one packet at a time (memory: the
 * largest run's events). Returns 0 with *notes set, or -ENOMEM (out then
 * holds a cut trace: the caller says so and fails). Write errors are the
 * stream's. Context: allocates; blocks on out. */
int perfetto_write(const struct report *r, FILE *out, struct perfetto_notes *notes);

#endif
