/*
 * Correlation: which evidence belongs to which run (DESIGN.md,
 * "Correlation"). A run and an exit record join exactly when the record
 * carries the run's id as its process-state summary; otherwise on process
 * name, pid and time: the exit must fall after the run's last record and
 * before the next run of the same process started, within a stated
 * tolerance. Several records may join one run (an ANR, then the kill); a
 * record of another app version never joins; nothing is ever joined for
 * being the newest. Other evidence joins on pid and time; a log line with a
 * process name and no pid (a native crash's am_crash) on the name and the
 * exit's window; a line about the whole system (system_server's watchdog
 * killing it) joins every run whose death window holds its time. Records
 * that join no run are listed with the reason.
 *
 * Then the deaths that no ring tells (DESIGN.md, "Runs without a ring"):
 * each exit record of a judged package (corr_packages) that joined no ring,
 * and, where no exit record tells of it, each tombstone, ANR trace and
 * lmkd kill line of one, becomes a ring-less run of its own (run.h), which
 * the rest of the evidence joins by the same pid and window rules. The
 * witnesses of one death are one run: those of one process and pid within
 * the clock tolerance of each other, and the kill that follows an ANR or a
 * crash. A record that may be a ring's death (it fits more than one
 * window, or fits one at another time zone) is no ring-less run: a death
 * is never counted twice.
 *
 * A peer_died mark (lw_peer_died(3)) in one ring, the app's main
 * process's, names the pid and the process name's digest of a process it
 * saw die, at the mark's time: the ring of that pid whose process has that
 * digest, or a ring-less run of that pid and package, whose death window
 * holds the time. It is that run's witness (corr_run.peer): the death was
 * no later, so the evidence of it is looked for up to then. Never prints.
 */
#ifndef LW_ANALYZER_CORRELATE_H
#define LW_ANALYZER_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/evidence.h"
#include "runs/run.h"
#include "tz.h"

#define CORR_DEFAULT_TOLERANCE_MS 2000

/* Where the device's zone came from, in the order it is looked for: --tz,
 * the pull's manifest (persist.sys.timezone, else its offset), the bug
 * report's properties (persist.sys.timezone, else its offset when it was
 * taken), the offset that a tombstone or an ANR trace writes after its own
 * time; else none, and local times are taken as UTC. */
#define CORR_TZ_SOURCES(X)                 \
	X(NONE, none)                      \
	X(OPTION, option)                  \
	X(MANIFEST, manifest)              \
	X(BUGREPORT, bugreport)            \
	X(TOMBSTONE, tombstone)            \
	X(ANR_TRACE, anr_trace)

enum corr_tz_source {
#define X(up, name) CORR_TZ_##up,
	CORR_TZ_SOURCES(X)
#undef X
	CORR_TZ_SOURCE_COUNT
};

/* "none", "option", "manifest", "bugreport", "tombstone", "anr_trace". */
const char *corr_tz_source_name(enum corr_tz_source s);

struct corr_options {
	struct tz_zone tz;      /* the device's zone: for local wall times */
	int tz_known;           /* 0: local times were taken as UTC (an assumption) */
	int64_t tolerance_ms;   /* clock tolerance between the ring and the system */
	/* Packages whose deaths are judged besides those of the rings
	 * (--package); borrowed, for as long as the correlation. */
	char *const *packages;
	size_t npackages;
	enum corr_tz_source tz_source; /* where tz came from */
	/* The device's SDK level (ro.build.version.sdk, SDK_INT), which
	 * tells what its exit codes mean, and where it came from: "manifest",
	 * "bugreport" or "exit-info JSON"; 0 and NULL when no input says
	 * (the report finds it; caveats.c names it). */
	int64_t sdk;
	const char *sdk_from;
	/* Symbolication (--symbols DIR, repeatable; --mapping FILE): the
	 * directories of the app's unstripped libraries or .build-id trees,
	 * and an R8 or ProGuard mapping.txt; borrowed, as packages are. The
	 * commands apply them to the bundle (bundle_symbolicate()) before the
	 * report is built. */
	char *const *symbol_dirs;
	size_t nsymbol_dirs;
	const char *mapping;
};

/* Why an exit record joined no run. */
#define CORR_REASONS(X)                                                       \
	X(NO_PROCESS, no_process, "the record names no process or pid")       \
	X(NO_RUN_OF_PROCESS, no_run_of_process, "no run of this process in the bundle") \
	X(NO_RUN_WITH_PID, no_run_with_pid, "no run of this process had this pid")       \
	X(OTHER_VERSION, other_version, "the record is of another app version")        \
	X(OUTSIDE_WINDOW, outside_window,                                              \
	  "a run had this pid, but the exit falls outside its window (pid reuse or an earlier install)") \
	X(NO_TIME, no_time, "the record has no time to place it, and the pid is not unique") \
	X(AMBIGUOUS, ambiguous, "the record fits the windows of more than one run")          \
	X(TZ_UNKNOWN, tz_unknown,                                                            \
	  "time zone unknown: the record fits a run's window at another offset (pass --tz)") \
	X(OTHER_PACKAGE, other_package,                                                      \
	  "the record is of another package: listed, not judged (name it with --package)")

enum corr_reason {
#define X(up, name, text) CORR_##up,
	CORR_REASONS(X)
#undef X
	CORR_REASON_COUNT
};

const char *corr_reason_name(enum corr_reason r);
const char *corr_reason_text(enum corr_reason r);

/* One piece of evidence joined to a run. */
struct corr_match {
	const struct ev_file *file;
	size_t index;           /* into the file's list of its kind */
	int by_run_id;          /* joined on the process-state summary */
	int64_t time_utc_ms;    /* EV_NO_TIME when the evidence has no time */
};

struct corr_list {
	struct corr_match *v;
	size_t n;
};

/* The app's own witness of a run's death: the earliest peer_died mark in
 * another run's ring that names it. */
struct corr_peer {
	const struct run *witness; /* the run whose ring holds the mark; NULL: none */
	size_t event;              /* the mark: witness->events[event] */
	int64_t time_ms;           /* its time, UTC: the death was no later */
};

/* A run's window, in UTC ms. A ring-less run has no record: its last_ms
 * is its first witness's time and its next_start_ms its last witness's
 * (with the witness's precision), so that its death window is the span of
 * its witnesses; its start_ms is the death of the one before it with the
 * same pid, or CORR_NO_START when none is known. A ring-less run without
 * any time has CORR_NO_START to INT64_MAX. A run's evidence is looked for
 * up to next_start_ms, or up to its peer_died mark's time where that is
 * earlier (within the tolerance). */
#define CORR_NO_START (INT64_MIN / 4)

struct corr_run {
	const struct run *run;
	int64_t start_ms;       /* the run's start, UTC */
	int64_t last_ms;        /* its newest record, UTC */
	int64_t next_start_ms;  /* the next run of the same process, or INT64_MAX */
	struct corr_list exits, tombstones, anrs, logs;
	struct corr_peer peer;
	/* A ring-less run: why no ring has its death (no_run_of_process,
	 * no_run_with_pid, other_version, outside_window). */
	enum corr_reason no_ring;
};

/* The lists of a run, by the kind of record they hold. */
enum corr_kind { CORR_EXITS, CORR_TOMBSTONES, CORR_ANRS, CORR_LOGS };

/* Run cr's evidence of kind k (cr->exits, ...). Does not allocate or block. */
const struct corr_list *corr_run_list(const struct corr_run *cr, enum corr_kind k);

/* A package whose deaths are judged, and why: it has a ring, --package
 * names it, or (with neither) it is one the evidence holds. */
enum corr_package_why { CORR_PACKAGE_RING, CORR_PACKAGE_OPTION, CORR_PACKAGE_PRESENT };

struct corr_package {
	char *name;
	enum corr_package_why why;
};

/* "ring", "option", "present". */
const char *corr_package_why_name(enum corr_package_why w);

struct corr_unmatched {
	const struct ev_file *file;
	size_t index;
	enum corr_reason reason;
};

struct correlation {
	struct corr_options opt;
	/* The runs given, in their order, then the ring-less runs (by
	 * process, then time of death), which ringless holds. */
	struct corr_run *runs;
	size_t nruns;
	size_t ngiven;
	struct run *ringless;
	struct corr_package *packages; /* judged, in order of first sight */
	size_t npackages;
	struct corr_unmatched *unmatched; /* exit records only */
	size_t nunmatched;
	int local_times;        /* some evidence has a wall time with no zone */
	int64_t newest_ms;      /* the newest time of the rings and the dated evidence;
				 * EV_NO_TIME if none */
	size_t repeats;         /* records left out: the same one was read from another input */
};

/* Whether local times were taken as UTC: no offset was known, and some
 * evidence has such times (dumpsys, toString(), logcat; a tombstone or ANR
 * trace time without its offset). The app's exit-info JSON has none: its
 * times are ms since the epoch. */
int corr_tz_assumed(const struct correlation *c);

/* The zone's offset at the newest time the inputs hold (a named zone's
 * changes with the date), for a report's one figure. */
int64_t corr_tz_offset(const struct correlation *c);

/* The UTC time of an exit record, and how far it may be off (its
 * precision). EV_NO_TIME if it has none. */
int64_t corr_exit_time(const struct exit_record *r, const struct corr_options *opt,
		       int64_t *slack_ms);

/* The UTC time, in ms, of a record of run r stamped t_mono_ns, as the
 * correlation places it (from the ring's start: its REALTIME and
 * MONOTONIC). Does not allocate or block. */
int64_t corr_run_time_ms(const struct run *r, uint64_t t_mono_ns);

/* The package of a process name: the part before any ':'. Writes at most
 * size bytes; returns out. */
char *corr_package_of(const char *process, char *out, size_t size);

/*
 * Join the evidence of files to runs, and make the ring-less runs. runs
 * and files (and opt's packages) must outlive *out. Returns 0, or -1 on
 * ENOMEM. Release with correlation_release().
 */
int correlate(const struct run *runs, size_t nruns, const struct ev_file *files, size_t nfiles,
	      const struct corr_options *opt, struct correlation *out);

/* Accepts a zeroed correlation. */
void correlation_release(struct correlation *c);

#endif
