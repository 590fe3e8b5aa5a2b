/*
 * The history as text (lastwords history, the default format): the runs
 * and bundles, each group's rates per exit class with its counts per
 * evidence level, then the regressions. Drawn from history_rates() and
 * history_regressions() (history/history-read.h). Only writes to the
 * stream it is given.
 */
#ifndef LW_ANALYZER_HISTORY_TEXT_H
#define LW_ANALYZER_HISTORY_TEXT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../history/history-read.h"

/* by: the --by grouping; since: the --since time, or NULL; f: the rates;
 * regressions: the array of history_regressions(). */
void history_text(const char *by, const char *since, const struct history_rates *f,
		  const cJSON *regressions, FILE *out);

#endif
