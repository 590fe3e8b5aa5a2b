/*
 * lastwords export --db FILE --format ndjson|csv [-o FILE]
 *
 * One row per run's verdict for a fleet's warehouse: the statement
 * "export" of schemas/history-queries.sql, as NDJSON or CSV (RFC 4180).
 * The row is documented in schemas/verdict-row.md. A column named "x[]"
 * holds a JSON array: an array in NDJSON, its JSON text in a CSV cell.
 * With -o, the rows go to a new temporary file beside FILE, renamed to FILE
 * when all are written (output_open()): a reader sees all the rows or none.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "commands.h"
#include "evidence/text.h"
#include "format.h"
#include "history/history-db.h"

static const char usage[] = "lastwords export --db FILE --format ndjson|csv [-o FILE]";

static const struct command_option options[] = {
	{ "--db FILE", "the history database (required)" },
	{ "--format ndjson|csv", "the rows' format (required): schemas/verdict-row.md" },
	{ "-o, --output FILE", "write to FILE, whole or not at all (else stdout)" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help export_help = {
	"one row per run's verdict (ndjson, csv) for a warehouse",
	usage,
	options,
	"lastwords export --db history.db --format ndjson -o verdicts.ndjson",
};

/* The column's name without its "[]", and whether it had one. */
static int column_name(sqlite3_stmt *st, int i, char *out, size_t size)
{
	const char *name = sqlite3_column_name(st, i);
	size_t n = strlen(name);
	int array = n > 2 && strcmp(name + n - 2, "[]") == 0;

	snprintf(out, size, "%.*s", (int)(array ? n - 2 : n), name);
	return array;
}

static int write_ndjson_row(sqlite3_stmt *st, FILE *out)
{
	cJSON *o = cJSON_CreateObject();
	int i, n = sqlite3_column_count(st), ok = o != NULL;
	char name[64], *text;

	for (i = 0; ok && i < n; i++) {
		int array = column_name(st, i, name, sizeof(name));
		const char *t = (const char *)sqlite3_column_text(st, i);
		cJSON *v;

		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			v = cJSON_CreateNull();
			break;
		case SQLITE_INTEGER:
		case SQLITE_FLOAT:
			v = cJSON_CreateRaw(t); /* exact: SQLite's own decimal text */
			break;
		default:
			v = array ? cJSON_CreateRaw(t) : cJSON_CreateString(t);
		}
		ok = v && cJSON_AddItemToObject(o, name, v);
		if (!ok)
			cJSON_Delete(v);
	}
	text = ok ? json_serialize(o, 0) : NULL;
	cJSON_Delete(o);
	if (!text)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	free(text);
	return 0;
}

/* RFC 4180: a field with a comma, a quote, CR or LF (or an empty string,
 * to tell it from NULL) is quoted, its quotes doubled. It is valid UTF-8:
 * a CSV has no escapes, so a NUL (TEXT_NUL) is U+FFFD, as a bad byte is. 0,
 * or -1 on ENOMEM. */
static int csv_field(const char *s, FILE *out)
{
	char *valid;
	const char *p;

	if (!s)
		return 0;
	valid = text_utf8_clean(s, "\xef\xbf\xbd");
	if (!valid)
		return -1;
	if (*valid && !strpbrk(valid, ",\"\r\n")) {
		fputs(valid, out);
	} else {
		fputc('"', out);
		for (p = valid; *p; p++) {
			if (*p == '"')
				fputc('"', out);
			fputc(*p, out);
		}
		fputc('"', out);
	}
	free(valid);
	return 0;
}

/* The header line (names set) or the current row: 0, or -1 on ENOMEM. */
static int write_csv_line(sqlite3_stmt *st, int names, FILE *out)
{
	int i, n = sqlite3_column_count(st);
	char name[64];

	for (i = 0; i < n; i++) {
		if (names)
			column_name(st, i, name, sizeof(name));
		if (i)
			fputc(',', out);
		if (csv_field(names ? name : (const char *)sqlite3_column_text(st, i), out) != 0)
			return -1;
	}
	fputs("\r\n", out);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *format = NULL, *output = NULL;
	char err[512], *tmp = NULL;
	struct history h;
	sqlite3_stmt *st;
	size_t rows = 0;
	FILE *out = stdout;
	int c, rc, csv, status = LW_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		default:
			return help_or_bad_option(c, usage, argc, argv);
		}
	}
	if (!db)
		return usage_error(usage, "export needs --db FILE");
	if (!format || (strcmp(format, "ndjson") != 0 && strcmp(format, "csv") != 0))
		return usage_error(usage, "--format is ndjson or csv%s%s%s", format ? ", not '" : "",
				   format ? format : "", format ? "'" : "");
	if (optind < argc)
		return usage_error(usage, "unexpected argument '%s'", argv[optind]);
	csv = strcmp(format, "csv") == 0;
	if ((status = open_history(db, HISTORY_READ, &h)) != 0)
		return status;
	if (history_prepare(&h, "export", NULL, NULL, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		history_close(&h);
		return LW_EXIT_DATABASE;
	}
	if (output && !(out = output_open(output, &tmp))) {
		fprintf(stderr, "lastwords: cannot write '%s': %s\n", fmt_text(output), strerror(errno));
		sqlite3_finalize(st);
		history_close(&h);
		return LW_EXIT_OUTPUT;
	}
	rc = csv ? write_csv_line(st, 1, out) : 0;
	while (rc == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = csv ? write_csv_line(st, 0, out) : write_ndjson_row(st, out);
		rows++;
	}
	if (rc < 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		status = LW_EXIT_DATABASE;
	}
	if (status == LW_EXIT_OK && rc != SQLITE_DONE) {
		history_error(&h, "export", err, sizeof(err));
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		status = LW_EXIT_DATABASE;
	}
	sqlite3_finalize(st);
	history_close(&h);
	if (!output)
		return status; /* main() closes stdout */
	status = output_commit(out, output, tmp, status);
	if (status == LW_EXIT_OK)
		fprintf(stderr, "lastwords: %zu rows in '%s'\n", rows, fmt_text(output));
	return status;
}
