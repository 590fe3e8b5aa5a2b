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
 * exit's window. Records that join no run are listed with the reason.
 * Never prints.
 */
#ifndef LW_ANALYZER_CORRELATE_H
#define LW_ANALYZER_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/evidence.h"
#include "run.h"

#define CORR_DEFAULT_TOLERANCE_MS 2000

struct corr_options {
	int64_t tz_offset_ms;   /* device local time minus UTC */
	int tz_known;           /* 0: local times were taken as UTC (an assumption) */
	int64_t tolerance_ms;   /* clock tolerance between the ring and the system */
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
	X(AMBIGUOUS, ambiguous, "the record fits the windows of more than one run")

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

struct corr_run {
	const struct run *run;
	int64_t start_ms;       /* the run's start, UTC */
	int64_t last_ms;        /* its newest record, UTC */
	int64_t next_start_ms;  /* the next run of the same process, or INT64_MAX */
	struct corr_list exits, tombstones, anrs, logs;
};

struct corr_unmatched {
	const struct ev_file *file;
	size_t index;
	enum corr_reason reason;
};

struct correlation {
	struct corr_options opt;
	struct corr_run *runs;  /* in the order given */
	size_t nruns;
	struct corr_unmatched *unmatched; /* exit records only */
	size_t nunmatched;
	int local_times;        /* some evidence has a wall time with no zone */
	size_t repeats;         /* records left out: the same one was read from another input */
};

/* Whether local times were taken as UTC: no offset was known, and some
 * evidence has such times (dumpsys, toString(), logcat; a tombstone or ANR
 * trace time without its offset). The app's exit-info JSON has none: its
 * times are ms since the epoch. */
int corr_tz_assumed(const struct correlation *c);

/* The UTC time of an exit record, and how far it may be off (its
 * precision). EV_NO_TIME if it has none. */
int64_t corr_exit_time(const struct exit_record *r, const struct corr_options *opt,
		       int64_t *slack_ms);

/*
 * Join the evidence of files to runs. runs and files must outlive *out.
 * Returns 0, or -1 on ENOMEM. Release with correlation_release().
 */
int correlate(const struct run *runs, size_t nruns, const struct ev_file *files, size_t nfiles,
	      const struct corr_options *opt, struct correlation *out);

/* Accepts a zeroed correlation. */
void correlation_release(struct correlation *c);

/* "+02:00", "-0530", "UTC", "Z" -> offset in ms. Returns 0 or -1. */
int corr_parse_tz(const char *s, int64_t *offset_ms);

#endif
