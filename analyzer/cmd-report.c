/*
 * lastwords report [--format text|json|html|seed] [--tz ZONE] [--tolerance MS]
 *                  [--package NAME]... [--fail-on CLASS[:LEVEL],...] INPUT...
 *
 * Inputs are files or directories pulled from a device. Each run of each
 * process is joined with its evidence, classified by the rules of
 * classify.c, and given its most conservative next step; so is each death
 * that no ring tells, of the rings' packages and those --package names (of
 * every package the evidence holds, with neither): a ring-less run. --format seed
 * prints the seed script's report instead (seed-report.c). --fail-on is a
 * gate: 3 when a verdict matches, 12 when there is nothing to judge (no run
 * and no exit record), never 0 for no data.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "bundle.h"
#include "commands.h"
#include "report.h"
#include "seed/seed-report.h"

static const char usage[] =
	"lastwords report [--format text|json|html|seed] [--tz ZONE] [--tolerance MS]\n"
	"                 [--package NAME]... [--fail-on CLASS[:LEVEL],...] INPUT...";

static const struct command_option options[] = {
	{ "-f, --format text|json|html|seed", "text (the default), JSON, one HTML page, or the seed script's report" },
	JOIN_OPTIONS_HELP,
	{ "--fail-on CLASS[:LEVEL],...", "exit 3 when a verdict has one of these classes (at least that sure)" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help report_help = {
	"what killed each run, how sure, and what to do next",
	usage,
	options,
	"lastwords report --tz +01:00 fixtures/demo",
};

/* "low_memory:supported,native_crash" */
static int parse_fail_on(const char *s, struct fail_on *out, size_t *n)
{
	char buf[512], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (*n >= FAIL_ON_MAX)
			return -1;
		if (colon)
			*colon = '\0';
		out[*n].cls = vocab_value(&vocab_exit_classes, tok);
		out[*n].level = colon ? vocab_value(&vocab_evidence_levels, colon + 1) : 0;
		if (out[*n].cls <= 0 || out[*n].level < 0)
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

/* Does a verdict match: its class, and at least as sure as asked? */
static int fails(const struct report *r, const struct fail_on *fo, size_t n)
{
	size_t i, k;

	for (i = 0; i < r->corr.nruns; i++) {
		const struct verdict *v = &r->verdicts[i];

		if (!r->judged[i])
			continue;
		for (k = 0; k < n; k++)
			if ((int)v->cls == fo[k].cls && (!fo[k].level || (int)v->level <= fo[k].level))
				return 1;
	}
	return 0;
}

int parse_report_options(int argc, char **argv, const char *usage, struct report_options *ro)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		JOIN_OPTIONS,
		{ "fail-on", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, status;

	memset(ro, 0, sizeof(*ro));
	ro->corr.tolerance_ms = CORR_DEFAULT_TOLERANCE_MS;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ro->format = optarg;
			break;
		case 'F':
			if (parse_fail_on(optarg, ro->fail_on, &ro->nfail_on) != 0)
				return usage_error(usage, "--fail-on takes CLASS[:LEVEL],... such as "
							  "low_memory:supported, not '%s'",
						   optarg);
			break;
		default:
			if ((status = parse_join_option(c, optarg, usage, ro->packages, &ro->corr, argc, argv)) >= 0)
				return status;
		}
	}
	return -1;
}

int report_status(const struct bundle *b, const struct report *r, const struct report_options *ro)
{
	/* A gate passes on data, never on its absence. */
	return ro->nfail_on && fails(r, ro->fail_on, ro->nfail_on) ? LW_EXIT_FAIL_ON
	       : bundle_errors(b)                                   ? LW_EXIT_INPUT
	       : ro->nfail_on && r->corr.nruns == 0 && bundle_exit_records(b) == 0 ? LW_EXIT_NO_DATA
										: LW_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_options ro;
	const char *format;
	struct bundle b;
	struct report r;
	int status;

	/* --format seed takes the script's command line as it is: one file,
	 * whatever its name looks like. */
	if (argc >= 2 && (strcmp(argv[1], "--format=seed") == 0 ||
			  (argc >= 3 && strcmp(argv[1], "--format") == 0 &&
			   strcmp(argv[2], "seed") == 0))) {
		int first = strcmp(argv[1], "--format=seed") == 0 ? 2 : 3;

		if (argc - first != 1) {
			fputs("usage: lifecycle_probe.py events.json\n", stderr);
			return 1;
		}
		return seed_report(argv[first], stdout, stderr);
	}
	if ((status = parse_report_options(argc, argv, usage, &ro)) >= 0)
		return status;
	format = ro.format ? ro.format : "text";
	if (strcmp(format, "seed") == 0) {
		/* The script's own argument check: exactly one file. */
		if (argc - optind != 1) {
			fputs("usage: lifecycle_probe.py events.json\n", stderr);
			return 1;
		}
		return seed_report(argv[optind], stdout, stderr);
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 && strcmp(format, "html") != 0)
		return usage_error(usage, "--format is text, json, html or seed, not '%s'", format);
	if (optind >= argc)
		return usage_error(usage, "report needs at least one file or directory");
	if ((status = report_load(argv + optind, (size_t)(argc - optind), &ro.corr, &b, &r)) != 0)
		return status;
	if (strcmp(format, "json") == 0) {
		if (report_json_write(&r, stdout) != 0) {
			fprintf(stderr, "lastwords: out of memory\n");
			report_release(&r);
			bundle_release(&b);
			return LW_EXIT_INPUT;
		}
	} else if (strcmp(format, "html") == 0) {
		cJSON *j = report_json(&r);

		if (!j) {
			fprintf(stderr, "lastwords: out of memory\n");
			report_release(&r);
			bundle_release(&b);
			return LW_EXIT_INPUT;
		}
		report_html(j, stdout);
		cJSON_Delete(j);
	} else {
		report_text(&r, stdout);
	}
	status = report_status(&b, &r, &ro);
	if (status == LW_EXIT_NO_DATA)
		fprintf(stderr, "lastwords: no data: the inputs hold no run and no exit record, so "
				"--fail-on has nothing to judge\n");
	report_release(&r);
	bundle_release(&b);
	return status;
}
