/*
 * lastwords history --db FILE
 *                   [--by candidate|app_version|stage|class|process|ring|signature|MATRIX]
 *                   [--since DATE] [--format text|json|html]
 *
 * MATRIX is one or more of device, sdk, delegate and runtime,
 * comma-separated (--by device,delegate): the fleet's matrix.
 * Rates of each class and evidence level per group (--by signature: each
 * crash signature, its runs and app versions), and regressions: a
 * candidate or app version whose rate of confirmed low_memory or
 * native_crash verdicts rose over the one before it, and a crash signature
 * that an app version brought (the statements "signatures" and
 * "new-signatures"). The figures come from
 * the statements "totals", "rates" and "regressions" of
 * schemas/history-queries.sql (which read the tallies), run as written and
 * decoded by history/history-read.c; this file only lays them out.
 * --format html draws, instead of the rates, the statement "trends": a page
 * of charts per candidate and app version (history-html.c).
 * The text is laid out by output/history-text.c.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../src/vocab.h"
#include "commands.h"
#include "evidence/json.h"
#include "format.h"
#include "history/history-db.h"
#include "history/history-read.h"
#include "output/history-html.h"
#include "output/history-text.h"

static const char usage[] =
	"lastwords history --db FILE\n"
	"                  [--by candidate|app_version|stage|class|process|ring|signature|MATRIX]\n"
	"                  [--since DATE] [--format text|json|html]";

static const struct command_option options[] = {
	{ "--db FILE", "the history database (required)" },
	{ "--by GROUP", "candidate (the default), app_version, stage, class, process, ring, signature (each crash signature: its runs, app versions, first and last seen), or the matrix: device, sdk, delegate, runtime, or a combination of them (device,delegate)" },
	{ "--since DATE", "only runs started at or after this UTC date or time (2026-11-01)" },
	{ "--format text|json|html", "text (the default), JSON (schemas/history.schema.json) or a page of charts" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help history_help = {
	"rates per candidate, version, stage, ...; regressions",
	usage,
	options,
	"lastwords history --db history.db --by candidate",
};

/* The groupings of --by: rates per group (the statement "rates", grouped
 * by the view run_group's dimension of that name), each crash signature
 * (the statement "signatures"), or the matrix's dimensions, alone or
 * combined (the statement "matrix", history_matrix_dims()). A grouping
 * is one row here. */
enum grouping_kind { GROUP_RATES, GROUP_SIGNATURES, GROUP_MATRIX };

static const struct grouping {
	const char *name;
	enum grouping_kind kind;
} groupings[] = {
	{ "candidate", GROUP_RATES },
	{ "app_version", GROUP_RATES },
	{ "stage", GROUP_RATES },
	{ "class", GROUP_RATES },
	{ "process", GROUP_RATES },
	{ "ring", GROUP_RATES },
	{ "signature", GROUP_SIGNATURES },
	{ "device", GROUP_MATRIX },
	{ "sdk", GROUP_MATRIX },
	{ "delegate", GROUP_MATRIX },
	{ "runtime", GROUP_MATRIX },
};
/* A combination of the matrix's dimensions (device,delegate). */
static const struct grouping combined = { "combination", GROUP_MATRIX };
#define NGROUPINGS (sizeof(groupings) / sizeof(groupings[0]))

/* "candidate, app_version, ... or signature", for the usage error. */
static void grouping_names(char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NGROUPINGS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      i == 0 ? "" : i + 1 == NGROUPINGS ? " or " : ", ", groupings[i].name);
}

/* "2026-11-01", "2026-11-01T12:00", "2026-11-01 12:00:30Z": a UTC date or
 * time, written as the stored times are so that they compare as text. */
static int normalize_since(const char *in, char *out, size_t size)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t n = strlen(in), i;

	if (n && (in[n - 1] == 'Z' || in[n - 1] == 'z'))
		n--;
	if (n != 10 && n != 16 && n != 19)
		return -1;
	if (n >= size)
		return -1;
	for (i = 0; i < n; i++) {
		char c = in[i];

		if (shape[i] == 'd' ? !isdigit((unsigned char)c)
				    : shape[i] == 'T' ? c != 'T' && c != 't' && c != ' ' : c != shape[i])
			return -1;
		out[i] = shape[i] == 'T' ? 'T' : c;
	}
	out[n] = '\0';
	/* Month, day, hour, minute, second in range. */
	if (atoi(out + 5) < 1 || atoi(out + 5) > 12 || atoi(out + 8) < 1 || atoi(out + 8) > 31 ||
	    (n > 10 && (atoi(out + 11) > 23 || atoi(out + 14) > 59)) || (n > 16 && atoi(out + 17) > 60))
		return -1;
	return 0;
}

static void group_json(struct json *j, cJSON *groups, const struct history_rates *f,
		       const struct history_group *g)
{
	cJSON *o = json_object(j, groups, NULL), *classes, *keys;
	size_t k;
	int c, l;

	json_text(j, o, "group", g->name);
	if (f->ndims) {
		keys = json_object(j, o, "keys");
		for (k = 0; k < f->ndims; k++)
			json_text(j, keys, history_dim_name(f->dims[k]), g->key[f->dims[k]]);
	}
	json_number(j, o, "runs", (double)g->runs);
	json_number(j, o, "died", (double)g->died);
	json_number(j, o, "died_rate", history_rate(g->died, g->runs));
	history_interval_json(j, o, "died_interval", stats_wilson(g->died, g->runs));
	json_text(j, o, "first_seen", g->first_seen);
	classes = json_object(j, o, "classes");
	for (c = 1; c < HISTORY_NCLASSES; c++) {
		cJSON *x = json_object(j, classes, vocab_name(&vocab_exit_classes, c));

		json_number(j, x, "total", (double)g->n[c][0]);
		json_number(j, x, "rate", history_rate(g->n[c][0], g->runs));
		history_interval_json(j, x, "interval", stats_wilson(g->n[c][0], g->runs));
		for (l = 1; l < HISTORY_NLEVELS; l++)
			json_number(j, x, vocab_name(&vocab_evidence_levels, l), (double)g->n[c][l]);
	}
}

static int print_json(const char *by, const char *since, const struct history_rates *f,
		      const cJSON *signatures, const cJSON *regressions, const cJSON *new_crashes)
{
	struct json j;
	cJSON *o = json_begin(&j), *a;
	size_t i;

	json_number(&j, o, "history_version", 1);
	json_text(&j, o, "by", by);
	json_text(&j, o, "since", since);
	json_number(&j, o, "runs", (double)f->runs);
	json_number(&j, o, "bundles", (double)f->bundles);
	a = json_array(&j, o, "groups");
	for (i = 0; !signatures && i < f->ngroups; i++)
		group_json(&j, a, f, &f->groups[i]);
	/* References: the caller frees them. */
	if (signatures)
		json_item(&j, o, "signatures", cJSON_CreateArrayReference(signatures->child));
	json_item(&j, o, "regressions", cJSON_CreateArrayReference(regressions->child));
	json_item(&j, o, "new_crash_signatures", cJSON_CreateArrayReference(new_crashes->child));
	return print_json_tree(json_end(&j), 1);
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "by", required_argument, NULL, 'b' },
		{ "since", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *by = "candidate", *format = "text", *since = NULL;
	struct history_rates f = { 0 };
	cJSON *regressions = NULL, *trends = NULL, *signatures = NULL, *new_crashes = NULL;
	const struct grouping *g = &groupings[0];
	char since_buf[32], err[512], names[200];
	enum history_dim dims[HISTORY_NDIMS];
	struct history h;
	size_t i;
	int c, status = LW_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'b':
			by = optarg;
			for (i = 0; i < NGROUPINGS; i++)
				if (strcmp(by, groupings[i].name) == 0)
					break;
			if (i < NGROUPINGS) {
				g = &groupings[i];
				break;
			}
			if ((c = history_matrix_dims(by, dims, err, sizeof(err))) < 0)
				return usage_error(usage, "%s", err);
			if (c == 0) {
				grouping_names(names, sizeof(names));
				return usage_error(usage, "--by is %s, or a combination of device, sdk, "
							  "delegate and runtime, not '%s'",
						   names, by);
			}
			g = &combined;
			break;
		case 's':
			if (normalize_since(optarg, since_buf, sizeof(since_buf)) != 0)
				return usage_error(usage, "--since takes a UTC date or time such as 2026-11-01 "
							  "or 2026-11-01T12:00, not '%s'",
						   optarg);
			since = since_buf;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 &&
			    strcmp(format, "html") != 0)
				return usage_error(usage, "--format is text, json or html, not '%s'", format);
			break;
		default:
			return help_or_bad_option(c, usage, argc, argv);
		}
	}
	if (!db)
		return usage_error(usage, "history needs --db FILE");
	if (optind < argc)
		return usage_error(usage, "unexpected argument '%s'", argv[optind]);
	if ((status = open_history(db, HISTORY_READ, &h)) != 0)
		return status;
	/* One read transaction: the figures agree with each other while an
	 * ingest writes. --by signature reads the totals alone of the rates
	 * (no tally has that dimension: its groups are empty). */
	if (sqlite3_exec(h.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    history_rates(&h, by, since, &f, err, sizeof(err)) != 0 ||
	    (g->kind == GROUP_SIGNATURES &&
	     history_signatures(&h, since, &signatures, err, sizeof(err)) != 0) ||
	    history_regressions(&h, since, &regressions, err, sizeof(err)) != 0 ||
	    history_new_signatures(&h, since, &new_crashes, err, sizeof(err)) != 0 ||
	    (strcmp(format, "html") == 0 && history_trends(&h, since, &trends, err, sizeof(err)) != 0)) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		status = LW_EXIT_DATABASE;
	}
	sqlite3_exec(h.db, "COMMIT", NULL, NULL, NULL);
	history_close(&h);
	if (status == LW_EXIT_OK) {
		if (strcmp(format, "json") == 0) {
			if (print_json(by, since, &f, signatures, regressions, new_crashes) != 0) {
				fprintf(stderr, "lastwords: out of memory\n");
				status = LW_EXIT_DATABASE;
			}
		} else if (strcmp(format, "html") == 0) {
			if (history_html(since, f.runs, f.bundles, regressions, trends, stdout) != 0) {
				fprintf(stderr, "lastwords: out of memory\n");
				status = LW_EXIT_DATABASE;
			}
		} else {
			history_text(by, since, &f, signatures, regressions, new_crashes, stdout);
		}
	}
	cJSON_Delete(regressions);
	cJSON_Delete(new_crashes);
	cJSON_Delete(signatures);
	cJSON_Delete(trends);
	history_rates_release(&f);
	return status;
}
