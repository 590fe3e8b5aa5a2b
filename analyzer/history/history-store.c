/* One bundle's report into the history tables of schemas/history.sql. */
#include "history-store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/digest.h"
#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "../format.h"
#include "../runs/ring-event.h"

static const struct {
	size_t offset;
	const char *sql;
} statements[] = {
#define S(field, text) { offsetof(struct history_store, field), text }
	S(find_bundle, "SELECT id FROM bundle WHERE digest = ?"),
	S(add_bundle, "INSERT INTO bundle (digest, source, ingested_at, complete, device_model, "
		      "android_version, fingerprint, tz_offset_minutes, tz_assumed, runs, "
		      "unmatched_exits, scenario, manufacturer, sdk) "
		      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
	S(find_run, "SELECT id, evidence_level FROM run WHERE run_key = ?"),
	S(drop_run, "DELETE FROM run WHERE id = ?"),
	S(add_run, "INSERT INTO run (run_key, bundle_id, package, process, pid, file, start_time, "
		   "end_time, app_version, candidate, stable_candidate, outcome, last_stage, "
		   "open_stage, budget_kb, peak_kb, peak_stage, over_budget, class, evidence_level, "
		   "contradiction, ring, death_key, crash_signature, crash_signed_frames, delegates, "
		   "runtime_version, resident_models) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
	S(add_line, "INSERT INTO run_line (run_id, kind, seq, text, why) VALUES (?, ?, ?, ?, ?)"),
	S(add_exit, "INSERT INTO exit_record (run_id, seq, file, line, reason, subreason, status, "
		    "importance, timestamp, description, joined_by) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
	S(add_loop, "INSERT INTO boot_loop (bundle_id, process, stage, candidate, count) "
		    "VALUES (?, ?, ?, ?, ?)"),
	S(find_death, "SELECT id FROM run WHERE death_key = ? AND ring = 'probe'"),
	S(drop_ringless, "DELETE FROM run WHERE run_key = ? AND ring = 'none'"),
	S(add_records, "INSERT INTO run_event (run_id, records) VALUES (?, ?)"),
#undef S
};

#define NSTATEMENTS (sizeof(statements) / sizeof(statements[0]))

static sqlite3_stmt **slot_of(struct history_store *s, size_t i)
{
	return (sqlite3_stmt **)((char *)s + statements[i].offset);
}

int history_store_open(struct history *h, struct history_store *s, char *err, size_t errlen)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->h = h;
	for (i = 0; i < NSTATEMENTS; i++) {
		if (sqlite3_prepare_v3(h->db, statements[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
				       slot_of(s, i), NULL) != SQLITE_OK) {
			history_error(h, "cannot prepare the store", err, errlen);
			history_store_close(s);
			return -1;
		}
	}
	return 0;
}

void history_store_close(struct history_store *s)
{
	size_t i;

	for (i = 0; i < NSTATEMENTS; i++) {
		sqlite3_finalize(*slot_of(s, i));
		*slot_of(s, i) = NULL;
	}
	free(s->text);
	s->text = NULL;
	s->text_cap = 0;
}

/* Binding: text (NULL binds SQL NULL), integers. Each returns the SQLite code. */
static int bt(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Text that outlives the statement's step: the vocabulary's names. */
static int bs(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static int bi(sqlite3_stmt *st, int i, long long v)
{
	return sqlite3_bind_int64(st, i, v);
}

/* Run a bound statement to its end and reset it. Each use binds every
 * parameter, so the bindings are not cleared. */
/* A JSON number, or NULL when v is not one (null, missing). */
static int bn(sqlite3_stmt *st, int i, const cJSON *v)
{
	return cJSON_IsNumber(v) ? bi(st, i, (long long)v->valuedouble)
				 : sqlite3_bind_null(st, i);
}

static int run_stmt(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* A path inside the bundle: below source, or the file's own name when the
 * bundle is that one file. */
static const char *inside(const char *source, const char *path)
{
	size_t n = strlen(source);
	const char *base;

	if (!path)
		return "";
	if (strncmp(path, source, n) == 0 && path[n] == '/') {
		path += n;
		while (*path == '/')
			path++;
		return path;
	}
	base = strrchr(path, '/');
	return base ? base + 1 : path;
}

/* Rank of a verdict: lower is better evidenced; a run without one last. */
static int level_rank(const char *level)
{
	int v = level ? vocab_value(&vocab_evidence_levels, level) : -1;

	return v > 0 ? v : 100;
}

static int add_lines(struct history_store *s, long long run, const char *kind, const cJSON *arr)
{
	const cJSON *x;
	int seq = 0;

	cJSON_ArrayForEach(x, arr) {
		const char *text = cJSON_IsString(x) ? x->valuestring : json_get_string(x, "action");
		const char *why = cJSON_IsString(x) ? NULL : json_get_string(x, "why");

		if (!text)
			continue;
		if (bi(s->add_line, 1, run) || bt(s->add_line, 2, kind) || bi(s->add_line, 3, seq++) ||
		    bt(s->add_line, 4, text) || bt(s->add_line, 5, why) || run_stmt(s->add_line))
			return -1;
	}
	return 0;
}

static int add_exits(struct history_store *s, long long run, const char *source, const cJSON *arr)
{
	sqlite3_stmt *st = s->add_exit;
	const cJSON *x;
	int seq = 0;

	cJSON_ArrayForEach(x, arr) {
		if (bi(st, 1, run) || bi(st, 2, seq++) || bt(st, 3, inside(source, json_get_string(x, "file"))) ||
		    bi(st, 4, json_get_int(x, "line")) || bi(st, 5, json_get_int(x, "reason")) ||
		    bi(st, 6, json_get_int(x, "subreason")) || bi(st, 7, json_get_int(x, "status")) ||
		    bi(st, 8, json_get_int(x, "importance")) || bt(st, 9, json_get_string(x, "timestamp")) ||
		    bt(st, 10, json_get_string(x, "description")) || bt(st, 11, json_get_string(x, "joined_by")) ||
		    run_stmt(st))
			return -1;
	}
	return 0;
}

/* The most one record takes as JSON (records_json): 9 numbers of up to 20
 * characters, two names of up to 31 and their quotes, and punctuation. */
#define RECORD_JSON_MAX (9 * 21 + 2 * 34 + 8)

/* v in decimal at p; returns the end. */
static char *put_int(char *p, long long v)
{
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	char digits[20];
	int n = 0;

	if (v < 0)
		*p++ = '-';
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* A vocabulary name (letters, digits and '_', under 32 bytes) as a JSON
 * string at p, or null; returns the end. */
static char *put_name(char *p, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!name || n > 31) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	*p++ = '"';
	memcpy(p, name, n);
	p[n] = '"';
	return p + n + 1;
}

/* Run r's records as run_event.records (schemas/history.sql, version 6)
 * in s->text; its length, or -1 on ENOMEM. */
static long long records_json(struct history_store *s, const struct run *r)
{
	size_t need = r->nevents * RECORD_JSON_MAX + 3, k;
	char *p;

	if (need > s->text_cap) {
		char *nt = realloc(s->text, need);

		if (!nt)
			return -1;
		s->text = nt;
		s->text_cap = need;
	}
	p = s->text;
	*p++ = '[';
	for (k = 0; k < r->nevents; k++) {
		const struct lw_ring_slot *e = &r->events[k];
		const char *type = vocab_name(&vocab_event_types, e->type);
		char unknown_type[16];

		if (!type) {
			snprintf(unknown_type, sizeof(unknown_type), "type_%u", e->type);
			type = unknown_type;
		}
		if (k)
			*p++ = ',';
		*p++ = '[';
		p = put_int(p, (long long)run_event_ticket(e));
		*p++ = ',';
		p = put_int(p, (long long)ring_event_rel_ns(&r->hdr, e));
		*p++ = ',';
		p = put_name(p, type);
		*p++ = ',';
		p = put_name(p, e->stage ? vocab_name(&vocab_stages, e->stage) : NULL);
		*p++ = ',';
		p = put_int(p, e->code);
		*p++ = ',';
		p = put_int(p, e->tid);
		*p++ = ',';
		p = put_int(p, e->rss_kb);
		*p++ = ',';
		p = put_int(p, (long long)e->a);
		*p++ = ',';
		p = put_int(p, (long long)e->b);
		*p++ = ',';
		p = put_int(p, (long long)e->c);
		*p++ = ',';
		p = put_int(p, e->d);
		*p++ = ']';
	}
	*p++ = ']';
	return p - s->text;
}

/* Run r's records, as one row of run_event. */
static int add_events(struct history_store *s, long long id, const struct run *r, size_t *n)
{
	long long len = records_json(s, r);

	if (len < 0 || bi(s->add_records, 1, id) ||
	    sqlite3_bind_text(s->add_records, 2, s->text, (int)len, SQLITE_STATIC) ||
	    run_stmt(s->add_records))
		return -1;
	*n += r->nevents;
	return 0;
}

/* The time of run cr's first exit record, as written; NULL if it has
 * none. */
static const char *first_exit_time(const struct corr_run *cr)
{
	const struct corr_match *first = NULL;
	size_t i;

	for (i = 0; i < cr->exits.n; i++)
		if (!first || (cr->exits.v[i].time_utc_ms != EV_NO_TIME &&
			       (first->time_utc_ms == EV_NO_TIME ||
				cr->exits.v[i].time_utc_ms < first->time_utc_ms)))
			first = &cr->exits.v[i];
	return first ? first->file->exits[first->index].timestamp_text : NULL;
}

/* A stage of the report, or "none" for its null (a ring-less run's, a run
 * without samples): run's last_stage and peak_stage are NOT NULL since
 * version 1, and schemas/history.sql (version 8) says that a ring-less
 * run's stages, budget and peak are unknown whatever its row holds; the
 * statements read them as NULL. */
static const char *stage_or_none(const char *stage)
{
	return stage ? stage : "none";
}

/* The key of the death of run r: a digest of its process, pid and when
 * (its first exit record's time as written, else its first witness's),
 * which two pulls of one device share. */
static void death_key(char *out, size_t size, const struct run *r, const char *when)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "%s/%u/%s", r->hdr.process, r->hdr.pid, when ? when : "-");
	snprintf(out, size, "ringless-%016llx", (unsigned long long)digest_name(buf));
}

/* The run's key: its run id; for a seed run (or a ring with no id) a
 * digest of the bundle and the file's place in it; for a ring-less run
 * its death's key. */
static void run_key(char *out, size_t size, const struct corr_run *cr, const cJSON *o,
		    uint64_t bundle, const char *rel)
{
	const struct run *r = cr->run;
	const char *when = first_exit_time(cr);
	static const uint8_t zero[16];
	char buf[600];

	if (r->ring == RUN_RING_PROBE && memcmp(r->hdr.run_id, zero, sizeof(zero)) != 0) {
		snprintf(out, size, "%s", json_get_string(o, "run_id"));
		return;
	}
	if (r->ring == RUN_RING_NONE) {
		death_key(out, size, r, when ? when : json_get_string(o, "end"));
		return;
	}
	snprintf(buf, sizeof(buf), "%016llx/%s", (unsigned long long)bundle, rel);
	snprintf(out, size, "seed-%016llx", (unsigned long long)digest_name(buf));
}

/* Whether statement st, with one text parameter, finds a row. 1, 0, or -1
 * on error. */
static int finds(sqlite3_stmt *st, const char *text)
{
	int rc;

	if (bt(st, 1, text))
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The report's delegates (in the vocabulary's order) joined by '+', as
 * schemas/history.sql's version 11 stores them: "" for none; NULL (out
 * untouched) when the report gives null, a ring-less run's. */
static const char *delegates_text(const cJSON *o, char *out, size_t size)
{
	const cJSON *a = cJSON_GetObjectItem(o, "delegates"), *x;
	size_t n = 0;

	if (!cJSON_IsArray(a))
		return NULL;
	out[0] = '\0';
	cJSON_ArrayForEach(x, a)
		if (cJSON_IsString(x) && n < size)
			n += (size_t)snprintf(out + n, size - n, "%s%s", n ? "+" : "", x->valuestring);
	return out;
}

/* The models resident at the run's end: NULL for a ring-less run. */
static int bind_resident(sqlite3_stmt *st, int i, const struct run *r, const cJSON *o)
{
	if (r->ring == RUN_RING_NONE)
		return sqlite3_bind_null(st, i);
	return bi(st, i, cJSON_GetArraySize(cJSON_GetObjectItem(o, "resident_candidates")));
}

/* Returns 1 when stored, 0 when a better verdict was kept, -1 on error. */
static int add_run(struct history_store *s, long long bundle_id, const char *source,
		   const struct bundle *b, const struct corr_run *cr, const cJSON *o, int with_events,
		   struct store_counts *c)
{
	const struct run *r = cr->run;
	const char *rel = inside(source, json_get_string(o, "file"));
	const char *level = json_get_string(o, "evidence_level");
	sqlite3_stmt *st = s->add_run;
	char key[64], death[64] = "", package[LW_RING_PROCESS_MAX], delegates[256];
	const char *colon;
	const cJSON *m = cJSON_GetObjectItem(o, "memory");
	long long id;
	int rc, dropped = 0;

	run_key(key, sizeof(key), cr, o, b->digest, rel);
	snprintf(package, sizeof(package), "%s", r->hdr.process);
	if ((colon = strchr(package, ':')) != NULL)
		package[colon - package] = '\0';
	/* A death stored with its ring is not stored again without it, and
	 * one stored without it becomes the ring's. */
	if (r->ring == RUN_RING_NONE) {
		if ((rc = finds(s->find_death, key)) != 0) {
			c->kept += rc > 0;
			return rc > 0 ? 0 : -1;
		}
	} else if (r->ring == RUN_RING_PROBE && first_exit_time(cr)) {
		death_key(death, sizeof(death), r, first_exit_time(cr));
		if (bt(s->drop_ringless, 1, death) || run_stmt(s->drop_ringless))
			return -1;
		dropped = sqlite3_changes(s->h->db) > 0;
	}
	if (bt(s->find_run, 1, key))
		return -1;
	rc = sqlite3_step(s->find_run);
	if (rc == SQLITE_ROW) {
		long long old = sqlite3_column_int64(s->find_run, 0);
		int old_rank = level_rank((const char *)sqlite3_column_text(s->find_run, 1));

		sqlite3_reset(s->find_run);
		if (level_rank(level) > old_rank) {
			c->kept++;
			return 0;
		}
		if (bi(s->drop_run, 1, old) || run_stmt(s->drop_run))
			return -1;
		c->replaced++;
	} else {
		sqlite3_reset(s->find_run);
		if (rc != SQLITE_DONE)
			return -1;
		if (dropped)
			c->replaced++;
		else
			c->added++;
	}
	if (bt(st, 1, key) || bi(st, 2, bundle_id) || bt(st, 3, package) ||
	    bt(st, 4, r->hdr.process) || bi(st, 5, r->hdr.pid) || bt(st, 6, rel) ||
	    bt(st, 7, json_get_string(o, "start")) || bt(st, 8, json_get_string(o, "end")) ||
	    bi(st, 9, json_get_int(o, "app_version")) || bt(st, 10, json_get_string(o, "candidate")) ||
	    bt(st, 11, json_get_string(o, "stable_candidate")) || bt(st, 12, json_get_string(o, "outcome")) ||
	    bt(st, 13, stage_or_none(json_get_string(o, "last_stage"))) ||
	    bt(st, 14, json_get_int(o, "stage_open") ? json_get_string(o, "open_stage") : NULL) ||
	    bi(st, 15, json_get_int(m, "budget_kb")) || bi(st, 16, json_get_int(m, "peak_kb")) ||
	    bt(st, 17, stage_or_none(json_get_string(m, "peak_stage"))) || bi(st, 18, json_get_int(m, "over_budget")) ||
	    bt(st, 19, json_get_string(o, "classification")) || bt(st, 20, level) ||
	    bt(st, 21, json_get_string(o, "contradiction")) || bs(st, 22, run_ring_name(r->ring)) ||
	    bt(st, 23, death[0] ? death : NULL) || bt(st, 24, json_get_string(o, "crash_signature")) ||
	    bt(st, 25, json_get_string(o, "crash_signed_frames")) ||
	    bt(st, 26, delegates_text(o, delegates, sizeof(delegates))) ||
	    bn(st, 27, cJSON_GetObjectItem(o, "runtime_version")) || bind_resident(st, 28, r, o) ||
	    run_stmt(st))
		return -1;
	id = sqlite3_last_insert_rowid(s->h->db);
	if (add_lines(s, id, "rule", cJSON_GetObjectItem(o, "rules")) ||
	    add_lines(s, id, "evidence", cJSON_GetObjectItem(o, "evidence")) ||
	    add_lines(s, id, "missing", cJSON_GetObjectItem(o, "missing")) ||
	    add_lines(s, id, "action",
		      cJSON_GetObjectItem(cJSON_GetObjectItem(o, "recovery"), "actions")) ||
	    add_exits(s, id, source, cJSON_GetObjectItem(o, "exit_records")))
		return -1;
	if (with_events && add_events(s, id, r, &c->events) != 0)
		return -1;
	return 1;
}

static int add_loops(struct history_store *s, long long bundle_id, const cJSON *arr)
{
	sqlite3_stmt *st = s->add_loop;
	const cJSON *x;

	cJSON_ArrayForEach(x, arr) {
		if (bi(st, 1, bundle_id) || bt(st, 2, json_get_string(x, "process")) ||
		    bt(st, 3, json_get_string(x, "stage")) || bt(st, 4, json_get_string(x, "candidate")) ||
		    bi(st, 5, json_get_int(x, "count")) || run_stmt(st))
			return -1;
	}
	return 0;
}

static void now_iso(char *out, size_t size)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	fmt_iso(out, size, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

/* Inside the transaction: returns 0, or -1 (the caller rolls back). */
static int store(struct history_store *s, const char *source, const struct bundle *b,
		 const struct report *r, const cJSON *rep, const char *digest, int with_events,
		 struct store_counts *c)
{
	sqlite3_stmt *st = s->add_bundle;
	const cJSON *runs = cJSON_GetObjectItem(rep, "runs"), *o;
	int rc, scenario = bundle_scenario(b, NULL);
	char now[40];
	long long id;
	size_t i = 0;

	if (bt(s->find_bundle, 1, digest))
		return -1;
	rc = sqlite3_step(s->find_bundle);
	sqlite3_reset(s->find_bundle);
	if (rc == SQLITE_ROW) {
		c->duplicate = 1;
		return 0;
	}
	if (rc != SQLITE_DONE)
		return -1;
	now_iso(now, sizeof(now));
	if (bt(st, 1, digest) || bt(st, 2, source) || bt(st, 3, now) || bi(st, 4, b->complete) ||
	    bt(st, 5, or_null(b->device_model)) || bt(st, 6, or_null(b->android_version)) ||
	    bt(st, 7, or_null(b->fingerprint)) || bi(st, 8, corr_tz_offset(&r->corr) / 60000) ||
	    bi(st, 9, corr_tz_assumed(&r->corr)) || bi(st, 10, (long long)r->corr.nruns) ||
	    bi(st, 11, (long long)r->corr.nunmatched) ||
	    bt(st, 12, scenario ? vocab_name(&vocab_scenarios, scenario) : NULL) ||
	    bt(st, 13, or_null(b->manufacturer)) ||
	    (r->corr.opt.sdk > 0 ? bi(st, 14, r->corr.opt.sdk) : sqlite3_bind_null(st, 14)) ||
	    run_stmt(st))
		return -1;
	id = sqlite3_last_insert_rowid(s->h->db);
	cJSON_ArrayForEach(o, runs) {
		if (i >= r->corr.nruns ||
		    add_run(s, id, source, b, &r->corr.runs[i], o, with_events, c) < 0)
			return -1;
		i++;
	}
	return add_loops(s, id, cJSON_GetObjectItem(rep, "boot_loops"));
}

int history_store_bundle(struct history_store *s, const char *source, const struct bundle *b,
			 const struct report *r, const cJSON *rep, int with_events,
			 struct store_counts *counts, char *err, size_t errlen)
{
	char digest[24];

	memset(counts, 0, sizeof(*counts));
	if (!rep) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fmt_digest(digest, sizeof(digest), b->digest);
	if (sqlite3_exec(s->h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return history_error(s->h, "cannot start a transaction", err, errlen);
	if (store(s, source, b, r, rep, digest, with_events, counts) != 0 ||
	    sqlite3_exec(s->h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		history_error(s->h, "cannot store the bundle", err, errlen);
		sqlite3_exec(s->h->db, "ROLLBACK", NULL, NULL, NULL);
		memset(counts, 0, sizeof(*counts));
		return -1;
	}
	return 0;
}
