/* Reading the history's statements into structs, JSON and rows (history-read.h). */
#include "history-read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../evidence/json.h"
#include "../format.h"
#include "stats.h"

static char *dup_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? strdup((const char *)t) : NULL;
}

static const char *text_at(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/* Column col, a JSON object as text (a tally by name), parsed; an empty
 * object when it is NULL or not one. NULL on ENOMEM. */
static cJSON *object_at(sqlite3_stmt *st, int col)
{
	cJSON *o = text_at(st, col) ? cJSON_Parse(text_at(st, col)) : NULL;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	return o;
}

static const char *const dim_names[HISTORY_NDIMS] = { "device", "sdk", "delegate", "runtime" };

const char *history_dim_name(enum history_dim d)
{
	return d < HISTORY_NDIMS ? dim_names[d] : "";
}

int history_matrix_dims(const char *by, enum history_dim dims[HISTORY_NDIMS], char *err,
			size_t errlen)
{
	const char *p = by;
	unsigned seen = 0;
	int n = 0;
	size_t len, d;

	/* A single name other than the four is another grouping's. */
	if (!strchr(by, ',')) {
		for (d = 0; d < HISTORY_NDIMS && strcmp(by, dim_names[d]) != 0; d++)
			;
		if (d == HISTORY_NDIMS)
			return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');

		len = comma ? (size_t)(comma - p) : strlen(p);
		for (d = 0; d < HISTORY_NDIMS; d++)
			if (strlen(dim_names[d]) == len && strncmp(p, dim_names[d], len) == 0)
				break;
		if (d == HISTORY_NDIMS) {
			snprintf(err, errlen, "--by combines device, sdk, delegate and runtime, not '%.*s'",
				 (int)len, p);
			return -1;
		}
		if (seen >> d & 1) {
			snprintf(err, errlen, "--by names %s twice", dim_names[d]);
			return -1;
		}
		seen |= 1u << d;
		dims[n++] = (enum history_dim)d;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

void history_rates_release(struct history_rates *f)
{
	size_t i, d;

	for (i = 0; i < f->ngroups; i++) {
		free(f->groups[i].name);
		free(f->groups[i].first_seen);
		for (d = 0; d < HISTORY_NDIMS; d++)
			free(f->groups[i].key[d]);
	}
	free(f->groups);
	memset(f, 0, sizeof(*f));
}

/* The statements' columns: "rates" has the group's name at 0; "matrix"
 * its four keys at 0 to 3. Then runs, died, first_seen, class, level, n. */
struct group_columns {
	int nkeys;
	int runs;
};

/* A new group at the end of f for the current row; NULL on ENOMEM. */
static struct history_group *add_group(struct history_rates *f, sqlite3_stmt *st,
				       const struct group_columns *cols)
{
	struct history_group *nv = realloc(f->groups, (f->ngroups + 1) * sizeof(*nv)), *g;
	char name[512];
	size_t n = 0, k;

	if (!nv)
		return NULL;
	f->groups = nv;
	g = &nv[f->ngroups++];
	memset(g, 0, sizeof(*g));
	g->runs = sqlite3_column_int64(st, cols->runs);
	g->died = sqlite3_column_int64(st, cols->runs + 1);
	g->first_seen = dup_text(st, cols->runs + 2);
	name[0] = '\0';
	if (cols->nkeys == 1) {
		g->name = strdup(text_at(st, 0) ? text_at(st, 0) : "");
		return g->name ? g : NULL;
	}
	for (k = 0; k < f->ndims; k++) {
		enum history_dim d = f->dims[k];

		if (!(g->key[d] = dup_text(st, (int)d)))
			return NULL;
		if (n < sizeof(name))
			n += (size_t)snprintf(name + n, sizeof(name) - n, "%s%s", k ? " / " : "",
					      g->key[d]);
	}
	g->name = strdup(name);
	return g->name ? g : NULL;
}

/* Whether the current row is of group g (the rows of a group come
 * together). */
static int same_group(const struct history_rates *f, const struct history_group *g,
		      sqlite3_stmt *st, const struct group_columns *cols)
{
	size_t k;

	if (cols->nkeys == 1)
		return strcmp(g->name, text_at(st, 0) ? text_at(st, 0) : "") == 0;
	for (k = 0; k < f->ndims; k++) {
		const char *key = text_at(st, (int)f->dims[k]);

		if (strcmp(g->key[f->dims[k]], key ? key : "") != 0)
			return 0;
	}
	return 1;
}

/* The order of the matrix's cells: by --by's dimensions in its order,
 * SDK levels by number ('unknown' after them). */
static const struct history_rates *sorting;

static int key_cmp(enum history_dim d, const char *a, const char *b)
{
	if (d == HISTORY_SDK) {
		long long x = atoll(a), y = atoll(b);

		if ((x > 0) != (y > 0))
			return x > 0 ? -1 : 1;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(a, b);
}

static int cell_cmp(const void *pa, const void *pb)
{
	const struct history_group *a = pa, *b = pb;
	size_t k;
	int c;

	for (k = 0; k < sorting->ndims; k++)
		if ((c = key_cmp(sorting->dims[k], a->key[sorting->dims[k]], b->key[sorting->dims[k]])) != 0)
			return c;
	return 0;
}

int history_rates(struct history *h, const char *by, const char *since, struct history_rates *f,
		  char *err, size_t errlen)
{
	struct group_columns cols = { 1, 1 };
	sqlite3_stmt *st;
	int rc, nd;

	memset(f, 0, sizeof(*f));
	if ((nd = history_matrix_dims(by, f->dims, err, errlen)) < 0)
		return -1;
	f->ndims = (size_t)nd;
	if (nd > 0)
		cols = (struct group_columns){ HISTORY_NDIMS, HISTORY_NDIMS };
	if (history_prepare(h, "totals", by, since, &st, err, errlen) != 0)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		f->runs = sqlite3_column_int64(st, 0);
		f->bundles = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (history_prepare(h, nd > 0 ? "matrix" : "rates", by, since, &st, err, errlen) != 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cls = text_at(st, cols.runs + 3), *level = text_at(st, cols.runs + 4);
		struct history_group *g = f->ngroups ? &f->groups[f->ngroups - 1] : NULL;
		int c, l;

		if ((!g || !same_group(f, g, st, &cols)) && !(g = add_group(f, st, &cols)))
			goto nomem;
		if (!cls)
			continue;
		c = vocab_value(&vocab_exit_classes, cls);
		l = level ? vocab_value(&vocab_evidence_levels, level) : -1;
		if (c <= 0 || c >= HISTORY_NCLASSES || l <= 0 || l >= HISTORY_NLEVELS) {
			snprintf(err, errlen, "the history holds a verdict this lastwords does not know: %s, %s",
				 cls, level ? level : "no level");
			sqlite3_finalize(st);
			return -1;
		}
		g->n[c][l] += sqlite3_column_int64(st, cols.runs + 5);
		g->n[c][0] += sqlite3_column_int64(st, cols.runs + 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return history_error(h, nd > 0 ? "matrix" : "rates", err, errlen);
	if (nd > 0 && f->ngroups > 1) {
		sorting = f;
		qsort(f->groups, f->ngroups, sizeof(*f->groups), cell_cmp);
		sorting = NULL;
	}
	return 0;
nomem:
	sqlite3_finalize(st);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void history_interval_json(struct json *j, cJSON *o, const char *key, struct stats_interval in)
{
	cJSON *a = json_array(j, o, key);

	json_number(j, a, NULL, in.low);
	json_number(j, a, NULL, in.high);
}

/* One regression row (see the statement) as JSON, into arr: a rise, and
 * whether it is one to tell (stats_compare()). */
static void regression_json(struct json *j, cJSON *arr, sqlite3_stmt *st)
{
	cJSON *o = json_object(j, arr, NULL);
	struct stats_comparison cmp;
	long long prev_count = sqlite3_column_int64(st, 5), prev_runs = sqlite3_column_int64(st, 6);
	long long count = sqlite3_column_int64(st, 7), runs = sqlite3_column_int64(st, 8);

	json_text(j, o, "dimension", text_at(st, 0));
	json_text(j, o, "package", text_at(st, 1));
	json_text(j, o, "group", text_at(st, 3));
	json_text(j, o, "previous", text_at(st, 2));
	json_text(j, o, "class", text_at(st, 4));
	json_text(j, o, "evidence_level", "confirmed");
	json_number(j, o, "count", (double)count);
	json_number(j, o, "runs", (double)runs);
	json_number(j, o, "rate", history_rate(count, runs));
	json_number(j, o, "previous_count", (double)prev_count);
	json_number(j, o, "previous_runs", (double)prev_runs);
	json_number(j, o, "previous_rate", history_rate(prev_count, prev_runs));
	stats_compare(count, runs, prev_count, prev_runs, &cmp);
	history_interval_json(j, o, "interval", cmp.now);
	history_interval_json(j, o, "previous_interval", cmp.base);
	json_number(j, o, "p_value", cmp.p_value);
	json_bool(j, o, "significant", cmp.judgement == STATS_REGRESSION);
	json_text(j, o, "judgement", stats_judgement_name(cmp.judgement));
	json_item(j, o, "stages", object_at(st, 9));
}

/* One trends row (see the statement) as JSON, into arr. */
static void trend_json(struct json *j, cJSON *arr, sqlite3_stmt *st)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "dimension", text_at(st, 0));
	json_text(j, o, "package", text_at(st, 1));
	json_text(j, o, "group", text_at(st, 2));
	json_text(j, o, "day", text_at(st, 3));
	json_text(j, o, "class", text_at(st, 4));
	json_text(j, o, "evidence_level", text_at(st, 5));
	json_number(j, o, "runs", (double)sqlite3_column_int64(st, 6));
}

/* The rows of the statement name, each made an object by row(), as a JSON
 * array in *out. */
static int read_rows(struct history *h, const char *name, const char *since,
		     void (*row)(struct json *j, cJSON *arr, sqlite3_stmt *st), cJSON **out,
		     char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct json j;
	cJSON *arr;
	int rc;

	if (history_prepare(h, name, NULL, since, &st, err, errlen) != 0)
		return -1;
	arr = json_begin_array(&j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(&j, arr, st);
	sqlite3_finalize(st);
	arr = json_end(&j);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(arr);
		return history_error(h, name, err, errlen);
	}
	if (!arr) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*out = arr;
	return 0;
}

int history_regressions(struct history *h, const char *since, cJSON **out, char *err,
			size_t errlen)
{
	return read_rows(h, "regressions", since, regression_json, out, err, errlen);
}

int history_trends(struct history *h, const char *since, cJSON **out, char *err, size_t errlen)
{
	return read_rows(h, "trends", since, trend_json, out, err, errlen);
}

/* A number column, or null when it is NULL. */
static void number_or_null(struct json *j, cJSON *o, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		json_null(j, o, key);
	else
		json_number(j, o, key, (double)sqlite3_column_int64(st, col));
}

/* One signatures row (see the statement) as JSON, into arr. */
static void signature_json(struct json *j, cJSON *arr, sqlite3_stmt *st)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "package", text_at(st, 0));
	json_text(j, o, "signature", text_at(st, 1));
	json_number(j, o, "runs", (double)sqlite3_column_int64(st, 2));
	json_number(j, o, "versions", (double)sqlite3_column_int64(st, 3));
	number_or_null(j, o, "first_version", st, 8);
	number_or_null(j, o, "last_version", st, 9);
	json_text(j, o, "first_seen", text_at(st, 4));
	json_text(j, o, "last_seen", text_at(st, 5));
	json_text(j, o, "signed_frames", text_at(st, 6));
	json_item(j, o, "classes", object_at(st, 7));
}

/* One new-signatures row (see the statement) as JSON, into arr. */
static void new_signature_json(struct json *j, cJSON *arr, sqlite3_stmt *st)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "package", text_at(st, 0));
	json_text(j, o, "signature", text_at(st, 1));
	json_number(j, o, "app_version", (double)sqlite3_column_int64(st, 2));
	json_number(j, o, "previous_version", (double)sqlite3_column_int64(st, 3));
	json_number(j, o, "runs", (double)sqlite3_column_int64(st, 4));
	json_text(j, o, "first_seen", text_at(st, 5));
	json_text(j, o, "signed_frames", text_at(st, 6));
}

int history_signatures(struct history *h, const char *since, cJSON **out, char *err,
		       size_t errlen)
{
	return read_rows(h, "signatures", since, signature_json, out, err, errlen);
}

int history_new_signatures(struct history *h, const char *since, cJSON **out, char *err,
			   size_t errlen)
{
	return read_rows(h, "new-signatures", since, new_signature_json, out, err, errlen);
}

void history_deaths_release(struct history_deaths *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].device);
		free(d->v[i].what);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

int history_deaths(struct history *h, uint64_t candidate, struct history_deaths *out, char *err,
		   size_t errlen)
{
	sqlite3_stmt *st;
	char cand[24], what[256];
	int rc;

	memset(out, 0, sizeof(*out));
	fmt_digest(cand, sizeof(cand), candidate);
	if (history_prepare(h, "candidate-deaths", NULL, NULL, &st, err, errlen) != 0)
		return -1;
	if (sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":candidate"), cand, -1,
			      SQLITE_TRANSIENT) != SQLITE_OK) {
		sqlite3_finalize(st);
		return history_error(h, "candidate-deaths", err, errlen);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *dev = text_at(st, 0), *sc = text_at(st, 1), *stage = text_at(st, 2);
		struct history_death *nv = realloc(out->v, (out->n + 1) * sizeof(*nv)), *d;
		int v;

		if (!nv)
			break;
		out->v = nv;
		d = &out->v[out->n];
		snprintf(what, sizeof(what), "%s pid %lld, %s, %s (%s)", text_at(st, 4),
			 sqlite3_column_int64(st, 5), text_at(st, 6), text_at(st, 7), text_at(st, 8));
		v = stage ? vocab_value(&vocab_stages, stage) : 0;
		*d = (struct history_death){ strdup(dev ? dev : "unknown device"),
					     sc && vocab_value(&vocab_scenarios, sc) > 0
						     ? vocab_value(&vocab_scenarios, sc) : 0,
					     v > 0 ? (enum lw_stage)v : LW_STAGE_NONE,
					     iso_real_ns(text_at(st, 3)), strdup(what) };
		if (!d->device || !d->what) {
			free(d->device);
			free(d->what);
			break;
		}
		out->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s",
			 rc == SQLITE_ROW ? "out of memory" : "reading the deaths failed");
		history_deaths_release(out);
		return -1;
	}
	return 0;
}

/* The statement's cells for the current row (header: names only). */
static void cells_of(sqlite3_stmt *st, struct history_cell *cells, int n, int header)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		size_t len = strlen(name);
		struct history_cell *c = &cells[i];

		c->array = len > 2 && strcmp(name + len - 2, "[]") == 0;
		snprintf(c->name, sizeof(c->name), "%.*s", (int)(c->array ? len - 2 : len), name);
		c->text = header ? NULL : text_at(st, i);
		c->number = !header && (sqlite3_column_type(st, i) == SQLITE_INTEGER ||
					sqlite3_column_type(st, i) == SQLITE_FLOAT);
	}
}

int history_export(struct history *h,
		   int (*row)(const struct history_cell *cells, size_t n, int header, void *arg),
		   void *arg, char *err, size_t errlen)
{
	struct history_cell *cells;
	sqlite3_stmt *st;
	int n, rc = SQLITE_ROW, failed;

	if (history_prepare(h, "export", NULL, NULL, &st, err, errlen) != 0)
		return -1;
	n = sqlite3_column_count(st);
	cells = calloc(n ? (size_t)n : 1, sizeof(*cells));
	failed = !cells;
	if (!failed) {
		cells_of(st, cells, n, 1);
		failed = row(cells, (size_t)n, 1, arg) != 0;
	}
	while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		cells_of(st, cells, n, 0);
		failed = row(cells, (size_t)n, 0, arg) != 0;
	}
	free(cells);
	if (!failed && rc != SQLITE_DONE)
		history_error(h, "export", err, errlen);
	sqlite3_finalize(st);
	return failed ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
