/*
 * Storing a bundle's report in the history database: one transaction per
 * bundle, so a bundle is in with all its runs or not at all. A bundle whose
 * digest is already stored adds nothing. A run already stored (by its run
 * id) keeps the better-evidenced verdict: confirmed, supported,
 * unconfirmed, then none; on a tie the newer bundle's. Never prints.
 */
#ifndef LW_ANALYZER_HISTORY_STORE_H
#define LW_ANALYZER_HISTORY_STORE_H

#include <cjson/cJSON.h>

#include "../bundle.h"
#include "history-db.h"
#include "../report.h"

struct history_store {
	struct history *h;
	sqlite3_stmt *find_bundle, *add_bundle, *find_run, *drop_run, *add_run, *add_line,
		*add_exit, *add_loop, *add_records, *find_death, *drop_ringless;
	char *text; /* a run's records as JSON, as they are stored */
	size_t text_cap;
};

struct store_counts {
	int duplicate;      /* the bundle was already stored: nothing added */
	size_t added;       /* runs new to the history */
	size_t replaced;    /* runs stored before, now with this bundle's verdict */
	size_t kept;        /* runs stored before with a better-evidenced verdict */
	size_t events;      /* ring records stored (with events) */
};

int history_store_open(struct history *h, struct history_store *s, char *err, size_t errlen);
void history_store_close(struct history_store *s);

/* Store one bundle, b with its report r and r's JSON rep (report_json(),
 * which the caller builds: history/ never reads output/; NULL, which
 * ENOMEM gave, stores nothing). source is the path it was loaded from
 * (paths inside the bundle are stored relative to it); with_events also
 * stores each run's ring records. Returns 0, or -1 with err set and
 * nothing stored. */
int history_store_bundle(struct history_store *s, const char *source, const struct bundle *b,
			 const struct report *r, const cJSON *rep, int with_events,
			 struct store_counts *counts, char *err, size_t errlen);

#endif
