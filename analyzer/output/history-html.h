/*
 * The history as one self-contained HTML page (lastwords history --format
 * html): for each package, a trend chart per candidate and per app version
 * of its deaths over time, by exit class and evidence level, against its
 * runs; the regressions (schemas/history-queries.sql, "regressions") listed
 * first, and their charts highlighted. Drawn from the rows of the
 * statements "trends" and "regressions" as history/history-read.c reads
 * them into JSON. No script, nothing loaded, every text escaped (html.h).
 * Only writes to the stream it is given.
 */
#ifndef LW_ANALYZER_HISTORY_HTML_H
#define LW_ANALYZER_HISTORY_HTML_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* since: the --since time, or NULL; runs and bundles: the statement
 * "totals"; regressions and trends: arrays of their statements' rows
 * (objects with the members history/history-read.c gives them). Returns 0,
 * or -1 on ENOMEM before anything is written. */
int history_html(const char *since, long long runs, long long bundles, const cJSON *regressions,
		 const cJSON *trends, FILE *out);

#endif
