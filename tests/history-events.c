/*
 * history-events LASTWORDS: `lastwords ingest --events` stores each of a
 * ring's records as the row of its own ticket. A child writes a ring of
 * 1 + MARKS + 1 records (open, MARKS queue-depth marks whose values count
 * from 0, close); the ring is ingested; the view event (over run_event's
 * one row of JSON per run) must give one row per record with tickets
 * 0..MARKS+1 in order, each mark's value equal to its ticket - 1, its
 * kind, its tid, and times that never go back.
 */
#include <lastwords/probe.h>
#include <sqlite3.h>

#include "helpers.h"

#define MARKS 999

static void child(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = "com.example.events:inference",
				 .slot_count = 4096, .app_version = 1 };
	struct lw *lw;
	uint64_t i;

	if (lw_open(&cfg, &lw) != 0)
		_exit(3);
	for (i = 0; i < MARKS; i++)
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, i);
	lw_close(lw);
	_exit(0);
}

int main(int argc, char **argv)
{
	char *tmp, db[600], bundle[600];
	long long n = 0, bad = 0, back = 0;
	sqlite3_stmt *st;
	sqlite3 *h;
	pid_t pid;
	int status;

	T_ASSERT(argc == 2, "usage: history-events LASTWORDS");
	tmp = strdup(t_tmpdir("history-events"));
	snprintf(bundle, sizeof(bundle), "%s/bundle", tmp);
	snprintf(db, sizeof(db), "%s/history.db", tmp);
	T_ASSERT(mkdir(bundle, 0700) == 0, "mkdir %s: %s", bundle, strerror(errno));
	fflush(NULL);
	pid = fork();
	T_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		child(bundle);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the writer ended with status 0x%x", status);
	{
		char *args[] = { argv[1], "ingest", "--db", db, "--events", bundle, NULL };

		T_ASSERT(t_run_child(args, "/dev/null", NULL) == 0, "lastwords ingest --events failed");
	}
	T_ASSERT(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open %s", db);
	T_ASSERT(sqlite3_prepare_v2(h, "SELECT ticket, type, code, a, tid, t_ms, "
				       "lag(t_ms) OVER (ORDER BY ticket) FROM event ORDER BY ticket",
				    -1, &st, NULL) == SQLITE_OK,
		 "%s", sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long ticket = sqlite3_column_int64(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		int mark = ticket >= 1 && ticket <= MARKS;

		if (ticket != n || strcmp(type, ticket == 0 ? "open" : mark ? "mark" : "close") != 0 ||
		    (mark && (sqlite3_column_int64(st, 2) != LW_MARK_QUEUE_DEPTH ||
			      sqlite3_column_int64(st, 3) != ticket - 1)) ||
		    sqlite3_column_int64(st, 4) != pid) {
			if (bad++ < 5)
				fprintf(stderr, "row %lld: ticket %lld, %s, code %lld, a %lld, tid %lld\n", n,
					ticket, type, sqlite3_column_int64(st, 2),
					sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
		}
		back += sqlite3_column_type(st, 6) != SQLITE_NULL &&
			sqlite3_column_double(st, 5) < sqlite3_column_double(st, 6);
		n++;
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	T_ASSERT(n == MARKS + 2, "%lld events stored, not %d", n, MARKS + 2);
	T_ASSERT(bad == 0 && back == 0, "%lld rows not their record's, %lld times going back", bad, back);
	printf("%lld records stored as their own rows\n", n);
	t_rmdir(bundle);
	t_rmdir(tmp);
	free(tmp);
	return T_PASS;
}
