/*
 * The report: a bundle's runs, each with its correlated evidence, its
 * verdict and its recovery; boot loops across runs; exit records that
 * joined no run. report_json() follows schemas/report.schema.json;
 * report_text() gives a person one screen per run, report_html() a page. Only the text writer
 * writes, to the stream it is given.
 */
#ifndef LW_ANALYZER_REPORT_H
#define LW_ANALYZER_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "bundle.h"
#include "classify.h"
#include "correlate.h"

struct boot_loop {
	char process[LW_RING_PROCESS_MAX];
	enum lw_stage stage;
	uint64_t candidate;
	size_t first, count;   /* runs first .. first+count-1 of the correlation */
};

/* The runs are those of the correlation: the bundle's, then the ring-less
 * ones (corr.runs, corr.nruns). */
struct report {
	const struct bundle *bundle;
	struct correlation corr;
	struct run_facts *facts;   /* per run of corr */
	struct verdict *verdicts;  /* per run; classification 0 for a clean run */
	int *judged;               /* per run: 1 if it died, or evidence says it did */
	struct boot_loop *loops;
	size_t nloops;
};

int report_build(const struct bundle *b, const struct corr_options *opt, struct report *out);
void report_release(struct report *r);

/* How many of the report's runs have a ring of this kind. */
size_t report_runs(const struct report *r, enum run_ring ring);

/* The report as JSON (schemas/report.schema.json), to free with
 * cJSON_Delete(); NULL on ENOMEM, never a report short of a member. */
cJSON *report_json(const struct report *r);

/* The text of json_serialize(report_json(r), 1) and a newline, written to
 * out one run at a time, so that a report of thousands of runs never holds
 * all their trees at once. Returns 0, or -1 on ENOMEM (out then holds a cut
 * report: the caller says so and fails). Write errors are the stream's. */
int report_json_write(const struct report *r, FILE *out);
void report_text(const struct report *r, FILE *out);

/* The report's JSON (report_json()) as one self-contained HTML page
 * (report-html.c). */
void report_html(const cJSON *report, FILE *out);

/* One run of the report's JSON (an element of "runs") drawn as an inline
 * SVG from its timeline and stages (report-svg.c); nothing for a run
 * without a timeline. zone labels the device's local times in it
 * (html_esc_times()). */
void report_svg_timeline(FILE *out, const cJSON *run, const char *zone);

/* The report page's CSS, for the pages written like it (cmd-gate.c); the
 * escaping they share is html.h's. */
const char *html_style(void);

#endif
