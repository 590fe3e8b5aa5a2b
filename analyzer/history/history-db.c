/* Opening, creating and upgrading the history database; its named queries. */
#include "history-db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../src/hex.h"

/* analyzer/history/embed.py writes these from schemas/. */
extern const char history_schema_sql[];
extern const char history_queries_sql[];

#define BUSY_TIMEOUT_MS 30000

int history_error(struct history *h, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, h && h->db ? sqlite3_errmsg(h->db) : "out of memory");
	return -1;
}

/* The next "-- version N" line (N digits, alone on its line) from p on,
 * at its newline before; NULL if none. A comment line that only begins so
 * ("-- version 0: ...") is no step's start. */
static const char *next_step_line(const char *p)
{
	static const char mark[] = "\n-- version ";

	for (; (p = strstr(p, mark)) != NULL; p++) {
		const char *d = p + sizeof(mark) - 1, *e = d;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e > d && *e == '\n')
			return p;
	}
	return NULL;
}

/* The text of step n (from 1) of the schema: from its "-- version n" line
 * to the next one. *len is 0 when there is no such step. */
static const char *schema_step(int n, size_t *len)
{
	char marker[32];
	const char *p, *next;
	int k = snprintf(marker, sizeof(marker), "\n-- version %d\n", n);

	*len = 0;
	p = strstr(history_schema_sql, marker);
	if (!p)
		return NULL;
	p += k;
	next = next_step_line(p);
	*len = next ? (size_t)(next - p + 1) : strlen(p);
	return p;
}

int history_schema_version(void)
{
	size_t len;
	int n = 0;

	while (schema_step(n + 1, &len))
		n++;
	return n;
}

static int pragma_int(struct history *h, const char *sql, long long *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Put the database in WAL mode (it stays so: this changes the file only
 * once). Leaving rollback mode needs the exclusive lock, and SQLite does
 * not call the busy handler when this connection's read lock would have
 * to wait on another connection's write lock (it could deadlock): when two
 * processes create one database at once, the pragma fails with
 * SQLITE_BUSY at once. So retry it here for as long as the busy timeout.
 */
static int set_wal(struct history *h)
{
	struct timespec pause = { 0, 10 * 1000000L };
	int rc, waited_ms;

	for (waited_ms = 0;; waited_ms += 10) {
		rc = sqlite3_exec(h->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= BUSY_TIMEOUT_MS)
			return rc;
		nanosleep(&pause, NULL);
	}
}

/* Apply the steps a database lacks, in one transaction that first takes
 * the write lock (so two processes never upgrade at once). */
static int upgrade(struct history *h, char *err, size_t errlen)
{
	int want = history_schema_version(), n;
	long long have;
	char sql[96];

	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return history_error(h, "cannot lock the database to upgrade it", err, errlen);
	if (pragma_int(h, "PRAGMA user_version", &have) != 0)
		goto fail;
	for (n = (int)have + 1; n <= want; n++) {
		size_t len;
		const char *step = schema_step(n, &len);
		char *text = strndup(step, len);

		if (!text || sqlite3_exec(h->db, text, NULL, NULL, NULL) != SQLITE_OK) {
			free(text);
			goto fail;
		}
		free(text);
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d", want,
		 HISTORY_APPLICATION_ID);
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	h->upgraded_from = (int)have;
	return 0;
fail:
	history_error(h, "cannot upgrade the schema", err, errlen);
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Open path with flags (SQLITE_OPEN_*) and check what it holds: 0 with
 * *version, its schema version, set; or with err set and h closed, the
 * SQLite error's extended code, or -1 when it is not a history this
 * program can use. */
static int open_checked(const char *path, int flags, struct history *h, long long *version,
			char *err, size_t errlen)
{
	long long app_id, objects;
	int rc = -1;

	/* One thread per connection: no SQLite mutexes. */
	if (sqlite3_open_v2(path, &h->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = h->db ? sqlite3_extended_errcode(h->db) : SQLITE_NOMEM;
		history_error(h, "cannot open", err, errlen);
		goto fail;
	}
	sqlite3_busy_timeout(h->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(h->db, 1);
	/* One read transaction: another process may be creating the schema
	 * meanwhile, and the three must come from the same state. */
	if (sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    pragma_int(h, "PRAGMA application_id", &app_id) != 0 ||
	    pragma_int(h, "PRAGMA user_version", version) != 0 ||
	    pragma_int(h, "SELECT count(*) FROM sqlite_schema", &objects) != 0 ||
	    sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = sqlite3_extended_errcode(h->db);
		history_error(h, "cannot read", err, errlen);
		goto fail;
	}
	if (app_id != HISTORY_APPLICATION_ID && (app_id != 0 || *version != 0 || objects != 0)) {
		snprintf(err, errlen, "not a lastwords history database (its application_id is %lld)",
			 app_id);
		goto fail;
	}
	if (*version > history_schema_version()) {
		snprintf(err, errlen,
			 "written by a newer lastwords: schema version %lld, this one knows up to %d",
			 *version, history_schema_version());
		goto fail;
	}
	return 0;
fail:
	history_close(h);
	return rc;
}

/* Whether path-wal exists (or cannot be looked for). */
static int has_wal(const char *path)
{
	char *wal = malloc(strlen(path) + 5);
	struct stat sb;
	int rc;

	if (!wal)
		return 1;
	sprintf(wal, "%s-wal", path);
	rc = lstat(wal, &sb) == 0 || errno != ENOENT;
	free(wal);
	return rc;
}

/* path as an SQLite URI that opens it immutable (free with free()); NULL on
 * ENOMEM. Every byte but letters, digits and "/._-~" is %-encoded. */
static char *immutable_uri(const char *path)
{
	char *uri = malloc(3 * strlen(path) + 32), *p;

	if (!uri)
		return NULL;
	p = uri + sprintf(uri, "file:%s", path[0] == '/' ? "//" : "");
	for (; *path; path++) {
		unsigned char c = (unsigned char)*path;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/._-~", c)) {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			hex_encode(p, &c, 1);
			p += 2;
		}
	}
	strcpy(p, "?immutable=1");
	return uri;
}

int history_open(const char *path, enum history_mode mode, struct history *h, char *err,
		 size_t errlen)
{
	long long version;
	struct stat sb;
	int rc;

	memset(h, 0, sizeof(*h));
	h->path = path;
	h->upgraded_from = -1;
	if (mode == HISTORY_READ && stat(path, &sb) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "is a directory, not a database file");
		return -EINVAL;
	}
	/* SQLite opens a file it cannot write read-only. A database in WAL
	 * mode stays so (ingest set it), and its reader needs the -shm file,
	 * which SQLite makes when it is not there. Where it cannot (the
	 * directory is read-only), no writer has the file open either, as a
	 * writer would have made it: the file is read as immutable, unless a
	 * -wal file left there holds what the file alone would not. */
	rc = open_checked(path, SQLITE_OPEN_READWRITE | (mode == HISTORY_CREATE ? SQLITE_OPEN_CREATE : 0),
			  h, &version, err, errlen);
	if (rc == SQLITE_READONLY_DIRECTORY && mode == HISTORY_READ && !has_wal(path)) {
		char *uri = immutable_uri(path);

		rc = uri ? open_checked(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, h, &version, err,
					errlen)
			 : -1;
		if (!uri)
			snprintf(err, errlen, "out of memory");
		free(uri);
	}
	if (rc != 0)
		return -EINVAL;
	/* Reading changes nothing, unless the schema is older: it is
	 * upgraded first, as ingest does, which needs write access. */
	if (mode == HISTORY_READ && version == history_schema_version())
		return 0;
	if (set_wal(h) != SQLITE_OK ||
	    sqlite3_exec(h->db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL", NULL, NULL,
			 NULL) != SQLITE_OK) {
		history_error(h, "cannot set WAL mode", err, errlen);
		history_close(h);
		return -EINVAL;
	}
	if (version < history_schema_version() && upgrade(h, err, errlen) != 0) {
		history_close(h);
		return -EINVAL;
	}
	return 0;
}

void history_close(struct history *h)
{
	if (h && h->db) {
		sqlite3_close_v2(h->db);
		h->db = NULL;
	}
}

/* The text of "-- name: NAME" up to the next "-- name:" line. */
static char *query_text(const char *name)
{
	char marker[80];
	const char *p, *next;

	snprintf(marker, sizeof(marker), "-- name: %s\n", name);
	p = strstr(history_queries_sql, marker);
	if (!p)
		return NULL;
	next = strstr(p + strlen(marker), "\n-- name: ");
	return strndup(p, next ? (size_t)(next - p + 1) : strlen(p));
}

static int bind_text(sqlite3_stmt *st, const char *param, const char *value)
{
	int i = sqlite3_bind_parameter_index(st, param);

	if (!i)
		return SQLITE_OK;
	return value ? sqlite3_bind_text(st, i, value, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int history_prepare(struct history *h, const char *name, const char *by, const char *since,
		    sqlite3_stmt **out, char *err, size_t errlen)
{
	char *text = query_text(name);
	int rc;

	*out = NULL;
	if (!text) {
		snprintf(err, errlen, "no statement '%s' in schemas/history-queries.sql", name);
		return -1;
	}
	rc = sqlite3_prepare_v2(h->db, text, -1, out, NULL);
	free(text);
	if (rc != SQLITE_OK)
		return history_error(h, name, err, errlen);
	if (bind_text(*out, ":by", by) != SQLITE_OK || bind_text(*out, ":since", since) != SQLITE_OK) {
		sqlite3_finalize(*out);
		*out = NULL;
		return history_error(h, name, err, errlen);
	}
	return 0;
}
