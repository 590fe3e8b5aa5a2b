/*
 * The history as text (lastwords history, the default format): the runs
 * and bundles, each group's rates per exit class with its counts per
 * evidence level (with --by signature: each crash signature instead), then
 * the regressions and the new crash signatures. Drawn from history_rates(),
 * history_signatures(), history_regressions() and history_new_signatures()
 * (history/history-read.h). Only writes to the stream it is given.
 */
#ifndef LW_ANALYZER_HISTORY_TEXT_H
#define LW_ANALYZER_HISTORY_TEXT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../history/history-read.h"

/* by: the --by grouping; since: the --since time, or NULL; f: the rates
 * (its groups unused with signatures); signatures: the array of
 * history_signatures() for --by signature, else NULL; regressions and
 * new_crashes: the arrays of history_regressions() and
 * history_new_signatures(). */
void history_text(const char *by, const char *since, const struct history_rates *f,
		  const cJSON *signatures, const cJSON *regressions, const cJSON *new_crashes,
		  FILE *out);

#endif
