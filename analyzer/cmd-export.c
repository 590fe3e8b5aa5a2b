/*
 * lastwords export --db FILE --format ndjson|csv [-o FILE]
 *
 * One row per run's verdict for a fleet's warehouse: the statement
 * "export" of schemas/history-queries.sql (read by history_export()), as
 * NDJSON or CSV (RFC 4180). The row is documented in
 * schemas/verdict-row.md. A column named "x[]" holds a JSON array: an
 * array in NDJSON, its JSON text in a CSV cell.
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
#include "history/history-read.h"

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

static int write_ndjson_row(const struct history_cell *cells, size_t n, FILE *out)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o != NULL;
	char *text;
	size_t i;

	for (i = 0; ok && i < n; i++) {
		const struct history_cell *c = &cells[i];
		cJSON *v;

		if (!c->text)
			v = cJSON_CreateNull();
		else if (c->number)
			v = cJSON_CreateRaw(c->text); /* exact: SQLite's own decimal text */
		else
			v = c->array ? cJSON_CreateRaw(c->text) : cJSON_CreateString(c->text);
		ok = v && cJSON_AddItemToObject(o, c->name, v);
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

/* The header line (names set) or a row: 0, or -1 on ENOMEM. */
static int write_csv_line(const struct history_cell *cells, size_t n, int names, FILE *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		if (csv_field(names ? cells[i].name : cells[i].text, out) != 0)
			return -1;
	}
	fputs("\r\n", out);
	return 0;
}

/* Where the rows go: stdout, or output (opened at the header, once the
 * statement is prepared, through a temporary file tmp). */
struct sink {
	const char *output;
	char *tmp;
	FILE *out;
	int csv, open_errno;
	size_t rows;
};

/* One call of history_export(): the CSV's header line, or a row. */
static int write_row(const struct history_cell *cells, size_t n, int header, void *arg)
{
	struct sink *k = arg;

	if (header) {
		if (k->output && !(k->out = output_open(k->output, &k->tmp))) {
			k->open_errno = errno;
			return -1;
		}
		return k->csv ? write_csv_line(cells, n, 1, k->out) : 0;
	}
	k->rows++;
	return k->csv ? write_csv_line(cells, n, 0, k->out) : write_ndjson_row(cells, n, k->out);
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
	struct sink k = { NULL, NULL, stdout, 0, 0, 0 };
	char err[512];
	struct history h;
	int c, rc, status = LW_EXIT_OK;

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
	k.csv = strcmp(format, "csv") == 0;
	k.output = output;
	if ((status = open_history(db, HISTORY_READ, &h)) != 0)
		return status;
	rc = history_export(&h, write_row, &k, err, sizeof(err));
	history_close(&h);
	if (rc == 1 && k.open_errno) {
		fprintf(stderr, "lastwords: cannot write '%s': %s\n", fmt_text(output),
			strerror(k.open_errno));
		return LW_EXIT_OUTPUT;
	}
	if (rc == 1) {
		fprintf(stderr, "lastwords: out of memory\n");
		status = LW_EXIT_DATABASE;
	} else if (rc != 0) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		status = LW_EXIT_DATABASE;
	}
	if (!output || !k.out || k.out == stdout)
		return status; /* main() closes stdout; no file when the statement failed */
	status = output_commit(k.out, output, k.tmp, status);
	if (status == LW_EXIT_OK)
		fprintf(stderr, "lastwords: %zu rows in '%s'\n", k.rows, fmt_text(output));
	return status;
}
