/*
 * The history database (schemas/history.sql): opening it, creating it,
 * upgrading it in place, and the named statements of
 * schemas/history-queries.sql, both embedded in the program as written.
 * Never prints: errors come back as text.
 */
#ifndef LW_ANALYZER_HISTORY_DB_H
#define LW_ANALYZER_HISTORY_DB_H

#include <stddef.h>

#include <sqlite3.h>

#define HISTORY_APPLICATION_ID 0x4c57484e /* "LWHN" */

struct history {
	sqlite3 *db;
	const char *path;
	int upgraded_from; /* the version it had when opened, if it was upgraded; else -1 */
};

enum history_mode {
	HISTORY_CREATE, /* to write: create the file if there is none */
	HISTORY_READ,   /* to read: the file must exist, and need not be writable */
};

/* Open path: for HISTORY_CREATE in WAL mode with foreign keys on, creating
 * or upgrading the schema as needed (one transaction); for HISTORY_READ
 * changing nothing, so that the file and its directory may be read-only,
 * unless its schema is older: it is then upgraded first, as for
 * HISTORY_CREATE, which needs write access. Returns 0; or with err set, the
 * negative errno when the file is not there to read (HISTORY_READ: no such
 * file, no permission to look), else -EINVAL: a directory, not a database,
 * not a lastwords history, written by a newer lastwords, or an SQLite
 * error. */
int history_open(const char *path, enum history_mode mode, struct history *h, char *err,
		 size_t errlen);
void history_close(struct history *h);

/* The number of schema steps this program knows: the user_version of a
 * database it has created or upgraded. */
int history_schema_version(void);

/* Prepare the statement named name in schemas/history-queries.sql, with
 * :by and :since bound when it has them (NULL binds SQL NULL). Returns 0,
 * or -1 with err set. */
int history_prepare(struct history *h, const char *name, const char *by, const char *since,
		    sqlite3_stmt **out, char *err, size_t errlen);

/* Set err to "what: SQLite's message". Returns -1. */
int history_error(struct history *h, const char *what, char *err, size_t errlen);

#endif
