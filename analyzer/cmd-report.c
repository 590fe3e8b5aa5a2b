/*
 * lastwords report [--format text|json|seed] [--tz OFFSET] [--fail-on ...] INPUT...
 *
 * Work in progress (issue 4): only --format seed, the seed script's report,
 * is in place; the run verdicts come next.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "seed-report.h"

static const char usage[] = "lastwords report --format seed EVENTS.json";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "text";
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return LW_EXIT_OK;
		default:
			return usage_error(usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (strcmp(format, "seed") != 0)
		return usage_error(usage, "report --format %s is not available yet; "
					  "only --format seed is", format);
	/* The script's own argument check: exactly one file. */
	if (argc - optind != 1) {
		fputs("usage: lifecycle_probe.py events.json\n", stderr);
		return 1;
	}
	return seed_report(argv[optind], stdout, stderr);
}
