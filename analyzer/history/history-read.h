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
#include "../evidence/json.h"
#include "history-db.h"
#include "stats.h"

#define HISTORY_NCLASSES (LW_EXIT_UNKNOWN + 1)
#define HISTORY_NLEVELS (LW_EVIDENCE_UNCONFIRMED + 1)

/* n of of as a fraction; 0 when of is 0. */
static inline double history_rate(long long n, long long of)
{
	return of ? (double)n / (double)of : 0.0;
}

/* The matrix's dimensions, which --by combines ("device,delegate"): the
 * columns of the view run_matrix (schemas/history.sql, version 11), in
 * the order of the statement "matrix". */
enum history_dim { HISTORY_DEVICE, HISTORY_SDK, HISTORY_DELEGATE, HISTORY_RUNTIME, HISTORY_NDIMS };

/* "device", "sdk", "delegate", "runtime". */
const char *history_dim_name(enum history_dim d);

/* A --by of the matrix: one or more of its dimensions, comma-separated,
 * each once. Returns how many with their dimensions in the order given
 * in dims; 0 when by is one name and not theirs (another grouping:
 * "candidate"); -1 with err set for a list that is not such a one
 * ("device,candidate", "sdk,sdk", "device,"). */
int history_matrix_dims(const char *by, enum history_dim dims[HISTORY_NDIMS], char *err,
			size_t errlen);

/* One group of the rates (a candidate, an app version, a stage, ...), or
 * a cell of the matrix: name is then its keys in the order of --by,
 * joined by " / ", and key[d] each dimension's group (NULL for those --by
 * does not name). */
struct history_group {
	char *name;
	char *key[HISTORY_NDIMS];
	long long runs, died;
	char *first_seen;
	long long n[HISTORY_NCLASSES][HISTORY_NLEVELS]; /* [class][level]; [c][0] the class's total */
};

/* The statements "totals" and "rates": the runs and bundles, and the
 * groups in the statement's order. */
struct history_rates {
	long long runs, bundles;
	size_t ndims;                   /* the matrix's: how many --by names, in dims; 0 for the rest */
	enum history_dim dims[HISTORY_NDIMS];
	struct history_group *groups;
	size_t ngroups;
};

/* The rates grouped by by (a --by name, or the matrix's dimensions: the
 * statement "matrix", its cells in the order of --by's first dimension,
 * then its second, ...; SDK levels by number) of the runs started at or after
 * since (NULL: all) into *out, to free with history_rates_release().
 * Returns 0, or -1 with err set. */
int history_rates(struct history *h, const char *by, const char *since, struct history_rates *out,
		  char *err, size_t errlen);
void history_rates_release(struct history_rates *r);

/* A rate's interval (stats_wilson()) as the JSON array [low, high] named
 * key of o. */
void history_interval_json(struct json *j, cJSON *o, const char *key, struct stats_interval in);

/* The statement "regressions" (each rise of a rate, with its intervals,
 * the one-sided test's p_value, whether it is significant and the
 * judgement: stats_compare()), or "trends": each row an object of
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
