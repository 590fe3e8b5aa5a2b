/*
 * The report model: a bundle's runs, each with its correlated evidence, its
 * verdict and its recovery; boot loops across runs; exit records that
 * joined no run; and what the writers say alike of them (the notes, each
 * run's stage timeline). The writers, text, JSON and the page, are
 * output/'s (output/report-writer.h): the model never reads them.
 */
#ifndef LW_ANALYZER_REPORT_H
#define LW_ANALYZER_REPORT_H

#include "bundle.h"
#include "classify.h"
#include "correlate.h"
#include "symbolicate.h"
#include "symbols/signature.h"

struct boot_loop {
	char process[LW_RING_PROCESS_MAX];
	enum lw_stage stage;
	uint64_t candidate;
	size_t first, count;   /* runs first .. first+count-1 of the correlation */
};

/* A run's crash: the tombstone or the Java crash that tells of it (the
 * first the correlation joined), and its signature (symbols/signature.h). */
struct run_crash {
	const struct tombstone *tombstone;   /* NULL when the run has none */
	const struct log_event *java;        /* a java_crash or am_crash; NULL */
	char signature[CRASH_SIGNATURE_LEN]; /* "" when there is none */
	char *signed_frames;  /* what was hashed, for people (at most
			       * CRASH_SIGNATURE_TEXT_MAX bytes); NULL with no signature */
};

/* The runs are those of the correlation: the bundle's, then the ring-less
 * ones (corr.runs, corr.nruns). */
struct report {
	const struct bundle *bundle;
	struct correlation corr;
	struct run_facts *facts;   /* per run of corr */
	struct verdict *verdicts;  /* per run; classification 0 for a clean run */
	int *judged;               /* per run: 1 if it died, or evidence says it did */
	struct run_crash *crashes; /* per run */
	struct symbolicate_notes symbolicated; /* what --symbols and --mapping did (the command sets it) */
	struct boot_loop *loops;
	size_t nloops;
};

int report_build(const struct bundle *b, const struct corr_options *opt, struct report *out);
void report_release(struct report *r);

/* How many of the report's runs have a ring of this kind. */
size_t report_runs(const struct report *r, enum run_ring ring);

/* A --fail-on class: a verdict of this class, and at least this sure. */
#define FAIL_ON_MAX 16
struct fail_on {
	int cls;
	int level; /* 0: any level; else at least this sure (confirmed = 1) */
};

/* Does a verdict of a run that died match one of the n of fo: its class,
 * and at least as sure as asked? 1 or 0. */
int report_fails(const struct report *r, const struct fail_on *fo, size_t n);

/* The notes on the pull (a partial pull and what it lacks; several pulls
 * read as one) written into notes, for the text, the JSON and the page
 * alike. Returns how many. */
#define REPORT_PULL_NOTES_MAX 2
#define REPORT_NOTE_LEN 512
size_t report_pull_notes(const struct bundle *b,
			 char notes[REPORT_PULL_NOTES_MAX][REPORT_NOTE_LEN]);

/* A zone name of the manifest or the bug report that this system's tzdata
 * lacks, whose offset of the pull's day (or the report's) stood in for it.
 * 1 when there is one, with its note in buf (REPORT_ZONE_NOTE_LEN holds
 * it), else 0. */
#define REPORT_ZONE_NOTE_LEN (TZ_NAME_MAX + TZ_WHY_MAX + 200)
int report_zone_note(const struct report *r, char *buf, size_t len);

/* The note on the records that more than one input held (two pulls of one
 * device), for a report whose corr.repeats is not 0. */
void report_repeats_note(const struct report *r, char *buf, size_t len);

/* One entry of a run's stage timeline. */
struct stage_span {
	enum lw_stage stage;
	uint32_t session;
	double begin_ms, end_ms; /* from the run's start */
	int error;               /* enum lw_error; -1 while no end closed it */
};

/* The stage timeline of run r: one entry per begin, closed by the
 * matching end. *out is NULL when there is none; free() it. Returns 0, or
 * -1 on ENOMEM. */
int report_stage_spans(const struct run *r, struct stage_span **out, size_t *n);

#endif
