/*
 * The report's writers: text for a person (report-text.c), JSON as
 * schemas/report.schema.json describes it (report-json.c) and one
 * self-contained HTML page drawn from that JSON (report-html.c, its
 * pictures report-svg.c); and the one table of them, report_writers[]
 * (report-writer.c), from which `lastwords report --format` takes its
 * choices, as curl's vtls table lists its TLS backends. They read the
 * report model (report.h), which never reads them. Each writes only to
 * the stream it is given.
 */
#ifndef LW_ANALYZER_REPORT_WRITER_H
#define LW_ANALYZER_REPORT_WRITER_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../report.h"

/* The report's text, one screen per run. Returns 0; write errors are the
 * stream's. */
int report_text(const struct report *r, FILE *out);

/* The report as JSON (schemas/report.schema.json), to free with
 * cJSON_Delete(); NULL on ENOMEM, never a report short of a member. */
cJSON *report_json(const struct report *r);

/* The text of json_serialize(report_json(r), 1) and a newline, written to
 * out one run at a time, so that a report of thousands of runs never holds
 * all their trees at once. Returns 0, or -1 on ENOMEM (out then holds a cut
 * report: the caller says so and fails). Write errors are the stream's. */
int report_json_write(const struct report *r, FILE *out);

/* The report's JSON (report_json()) as one self-contained HTML page. */
void report_html(const cJSON *report, FILE *out);

/* report_html() of report_json(r). Returns 0, or -1 on ENOMEM (nothing
 * written). */
int report_html_write(const struct report *r, FILE *out);

/* One run of the report's JSON (an element of "runs") drawn as an inline
 * SVG from its timeline and stages (report-svg.c), for report_html();
 * nothing for a run without a timeline. zone labels the device's local
 * times in it (html_esc_times()). */
void report_svg_timeline(FILE *out, const cJSON *run, const char *zone);

/*
 * The writers, X(name, what, write): name as --format takes it, what it
 * gives as report's help says it, and its function. report_writers[] is
 * built from it, and so are report's synopsis and help line (cmd-report.c,
 * which must be string literals), so that each name is written once.
 */
#define REPORT_WRITERS(X)                              \
	X(text, "text (the default)", report_text)     \
	X(json, "JSON", report_json_write)             \
	X(html, "one HTML page", report_html_write)

struct report_writer {
	const char *name; /* as --format takes it: "json" */
	/* Write r to out: 0, or -1 on ENOMEM (out may then hold a cut
	 * output). Write errors are the stream's. */
	int (*write)(const struct report *r, FILE *out);
};

/* Every writer, in REPORT_WRITERS' order, ending with { NULL, NULL }. */
extern const struct report_writer report_writers[];

/* The writer named name, or NULL. */
const struct report_writer *report_writer_find(const char *name);

#endif
