/*
 * A run's clocks. The probe stamps each record with CLOCK_MONOTONIC, and
 * the header and the stage, session and close records also with
 * CLOCK_BOOTTIME and CLOCK_REALTIME at that moment: clock triples
 * (schemas/ring-format.md, section 8). MONOTONIC stops during suspend and
 * REALTIME steps (NTP, the user), so a time is converted with the triple
 * nearest to it, on the clock it is given in. Never prints.
 */
#ifndef LW_ANALYZER_RUN_CLOCK_H
#define LW_ANALYZER_RUN_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

struct clock_triple {
	uint64_t mono_ns, boot_ns, real_ns;
};

struct run_clock {
	struct clock_triple *by_mono; /* ordered by mono_ns */
	struct clock_triple *by_real; /* the same triples, ordered by real_ns */
	size_t n;
};

/* An empty clock; add the triples of one or more runs with
 * run_clock_add() (a ring-less run's evidence is placed on the clock of
 * the bundle's rings), then order them with run_clock_done() before converting. Release with
 * run_clock_release(); accepts a zeroed one. */
void run_clock_init(struct run_clock *c);
void run_clock_release(struct run_clock *c);

/* Add the clock triples of r: its header's start times and those of its
 * records. A triple with a zero BOOTTIME or REALTIME is no triple (a
 * ring-less or seed run has none). Returns 0, or -ENOMEM. */
int run_clock_add(struct run_clock *c, const struct run *r);
int run_clock_done(struct run_clock *c); /* 0, or -ENOMEM */

/* A record's MONOTONIC time on BOOTTIME, with the triple nearest to it.
 * Returns 0 with *boot_ns set, -ENOENT when c has no triple, -ERANGE when
 * it would fall before BOOTTIME's zero. Does not allocate or block. */
int run_clock_boot_of_mono(const struct run_clock *c, uint64_t t_mono_ns, uint64_t *boot_ns);

/*
 * The evidence time on the run's clock: a wall-clock time in UTC ms, as
 * correlate.c placed a piece of evidence (corr_match.time_utc_ms: the
 * device's zone applied, a year-less log line put in its year), on
 * BOOTTIME with the triple nearest to it in REALTIME. Returns 0 with
 * *boot_ns set, -ENOENT when c has no triple or utc_ms is EV_NO_TIME,
 * -ERANGE when it falls before that boot began (the evidence is of an
 * earlier boot). Does not allocate or block.
 */
int run_clock_boot_of_utc(const struct run_clock *c, int64_t utc_ms, uint64_t *boot_ns);

#endif
