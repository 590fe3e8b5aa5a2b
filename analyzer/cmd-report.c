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

#include "bundle.h"
#include "commands.h"
#include "output/report-writer.h"
#include "report.h"
#include "seed/seed-report.h"

/* The --format choices, from the writers' table (report-writer.h): "text|json|html|seed"
 * and "text (the default), JSON, one HTML page, or the seed script's report". */
#define FORMAT_NAME(name, what, write) #name "|"
#define FORMAT_WHAT(name, what, write) what ", "
#define FORMATS REPORT_WRITERS(FORMAT_NAME) "seed"

static const char usage[] =
	"lastwords report [--format " FORMATS "] [--tz ZONE] [--tolerance MS]\n"
	"                 [--package NAME]... [--symbols DIR]... [--mapping FILE]\n"
	"                 [--fail-on CLASS[:LEVEL],...] INPUT...";

static const struct command_option options[] = {
	{ "-f, --format " FORMATS, REPORT_WRITERS(FORMAT_WHAT) "or the seed script's report" },
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

/* The writers' names, "text, json, html", for the usage error. */
static const char *format_names(char *buf, size_t len)
{
	const struct report_writer *w;
	size_t used = 0;

	buf[0] = '\0';
	for (w = report_writers; w->name && used < len; w++) {
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", w->name);
		used += strlen(buf + used);
	}
	return buf;
}

int cmd_report(int argc, char **argv)
{
	const struct report_writer *w;
	struct report_options ro;
	const char *format;
	char names[128];
	struct bundle b;
	struct report r;
	int status;

	if ((status = parse_report_options(argc, argv, usage, &ro)) >= 0)
		return status;
	format = ro.format ? ro.format : "text";
	/* --format seed: everything after it is the script's own command line
	 * (parse_report_options() stops there), checked as the script checks
	 * it: exactly one file, whatever its name looks like. */
	if (strcmp(format, "seed") == 0) {
		if (argc - optind != 1) {
			fputs("usage: lifecycle_probe.py events.json\n", stderr);
			return 1;
		}
		return seed_report(argv[optind], stdout, stderr);
	}
	if (!(w = report_writer_find(format)))
		return usage_error(usage, "--format is %s or seed, not '%s'",
				   format_names(names, sizeof(names)), format);
	if (optind >= argc)
		return usage_error(usage, "report needs at least one file or directory");
	if ((status = report_load(argv + optind, (size_t)(argc - optind), &ro.corr, &b, &r)) != 0)
		return status;
	if (w->write(&r, stdout) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		report_release(&r);
		bundle_release(&b);
		return LW_EXIT_INPUT;
	}
	status = report_status(&b, &r, &ro);
	if (status == LW_EXIT_NO_DATA)
		fprintf(stderr, "lastwords: no data: the inputs hold no run and no exit record, so "
				"--fail-on has nothing to judge\n");
	report_release(&r);
	bundle_release(&b);
	return status;
}
