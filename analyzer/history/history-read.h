/*
 * Reading the history: each named statement of schemas/history-queries.sql
 * that a command shows is run here and its columns decoded here, once, into
 * structs (the rates, the candidate's deaths), the schema's JSON objects
 * (schemas/history.schema.json: regressions, trends) or a callback per row
 * (the export). Never prints: errors come back as text.
 */
#ifndef LW_ANALYZER_HISTORY_READ_H
#define LW_ANALYZER_HISTORY_READ_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../src/vocab.h"
#include "history-db.h"

#define HISTORY_NCLASSES (LW_EXIT_UNKNOWN + 1)
#define HISTORY_NLEVELS (LW_EVIDENCE_UNCONFIRMED + 1)

/* n of of as a fraction; 0 when of is 0. */
static inline double history_rate(long long n, long long of)
{
	return of ? (double)n / (double)of : 0.0;
}

/* One group of the rates (a candidate, an app version, a stage, ...). */
struct history_group {
	char *name;
	long long runs, died;
	char *first_seen;
	long long n[HISTORY_NCLASSES][HISTORY_NLEVELS]; /* [class][level]; [c][0] the class's total */
};

/* The statements "totals" and "rates": the runs and bundles, and the
 * groups in the statement's order. */
struct history_rates {
	long long runs, bundles;
	struct history_group *groups;
	size_t ngroups;
};

/* The rates grouped by by (a --by name) of the runs started at or after
 * since (NULL: all) into *out, to free with history_rates_release().
 * Returns 0, or -1 with err set. */
int history_rates(struct history *h, const char *by, const char *since, struct history_rates *out,
		  char *err, size_t errlen);
void history_rates_release(struct history_rates *r);

/* The statement "regressions", or "trends": each row an object of
 * schemas/history.schema.json, in a JSON array (free with cJSON_Delete())
 * in *out. Returns 0, or -1 with err set. */
int history_regressions(struct history *h, const char *since, cJSON **out, char *err,
			size_t errlen);
int history_trends(struct history *h, const char *since, cJSON **out, char *err, size_t errlen);

/* The statements "signatures" (history --by signature: each crash
 * signature with its runs, app versions, first and last time, frames and
 * classes) and "new-signatures" (the regression check's new crashes: a
 * signature first seen in an app version after the package's first), each
 * row an object of schemas/history.schema.json ("signatures",
 * "new_crash_signatures") in a JSON array (free with cJSON_Delete()) in
 * *out. Returns 0, or -1 with err set. */
int history_signatures(struct history *h, const char *since, cJSON **out, char *err,
		       size_t errlen);
int history_new_signatures(struct history *h, const char *since, cJSON **out, char *err,
			   size_t errlen);

/* One earlier death of a candidate (the statement "candidate-deaths"). */
struct history_death {
	char *device;    /* the bundle's model, or "unknown device" */
	int scenario;    /* enum lw_scenario; 0: none */
	enum lw_stage stage; /* open at death */
	uint64_t start_ns;   /* the run's start (or death), UTC */
	char *what;      /* "com.x:inference pid 42, native_crash, confirmed (bundle)" */
};

struct history_deaths {
	struct history_death *v;
	size_t n;
};

/* The deaths of the candidate whose digest is candidate into *out, to free
 * with history_deaths_release(). Returns 0, or -1 with err set. */
int history_deaths(struct history *h, uint64_t candidate, struct history_deaths *out, char *err,
		   size_t errlen);
void history_deaths_release(struct history_deaths *d);

/* A cell of the export: its column's name without a trailing "[]" (array
 * set when it had one: the text is a JSON array), and its value as SQLite's
 * text: NULL for SQL NULL; number set for an integer or a real. */
struct history_cell {
	char name[64];
	int array;
	int number;
	const char *text;
};

/* The statement "export": row() is called once with the columns alone
 * (each text NULL, header set), then once per row, with arg. Returns 0; 1
 * when row() returned nonzero (it stops there); -1 with err set on an
 * SQLite error. */
int history_export(struct history *h,
		   int (*row)(const struct history_cell *cells, size_t n, int header, void *arg),
		   void *arg, char *err, size_t errlen);

#endif
