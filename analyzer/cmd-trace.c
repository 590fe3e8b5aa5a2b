/*
 * lastwords trace [-o FILE] [--tz ZONE] [--tolerance MS] [--package NAME]...
 *                 INPUT...
 *
 * The runs of the inputs as a Perfetto trace (perfetto.c), to open in
 * Perfetto UI beside a system trace of the same device: the inputs, the
 * join and the verdicts are report's (report_load()), so the trace shows
 * the runs and the evidence that the report judges. A command of its own
 * rather than a report format: a trace is binary, one file to open
 * elsewhere rather than something to read (it is never written to a
 * terminal), and --fail-on and --format seed have no meaning for it.
 * With -o, the trace goes to a temporary beside FILE, renamed to FILE once
 * whole (output_open()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "format.h"
#include "output/perfetto.h"

static const char usage[] = "lastwords trace [-o FILE] [--tz ZONE] [--tolerance MS]\n"
			    "                [--package NAME]... [--symbols DIR]... [--mapping FILE]\n"
			    "                INPUT...";

static const struct command_option options[] = {
	{ "-o, --output FILE", "write the trace to FILE, whole or not at all (else stdout, never a terminal)" },
	JOIN_OPTIONS_HELP,
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help trace_help = {
	"the runs as a Perfetto trace, on the device's BOOTTIME",
	usage,
	options,
	"lastwords trace --tz +01:00 -o demo.pftrace fixtures/demo",
};

/* What the trace could not hold, said once each. */
static void print_notes(const struct perfetto_notes *n)
{
	if (n->realtime && n->runs)
		fprintf(stderr, "lastwords: no ring has a clock triple: the trace is on REALTIME (wall "
				"clock), not the device's BOOTTIME, and will not line up with a system "
				"trace\n");
	if (n->seed_runs)
		fprintf(stderr, "lastwords: %zu seed run%s left out: the seed's events have no device "
				"clock\n",
			n->seed_runs, n->seed_runs == 1 ? "" : "s");
	if (n->no_clock)
		fprintf(stderr, "lastwords: %zu ring%s left out: no clock triple (BOOTTIME and REALTIME "
				"are zero)\n",
			n->no_clock, n->no_clock == 1 ? "" : "s");
	if (n->unplaced)
		fprintf(stderr, "lastwords: %zu event%s left out: no time, or a time before the boot of "
				"the rings (evidence of an earlier boot has no BOOTTIME here)\n",
			n->unplaced, n->unplaced == 1 ? "" : "s");
}

int cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		JOIN_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct corr_options opt = { .tolerance_ms = CORR_DEFAULT_TOLERANCE_MS };
	char *packages[PACKAGES_MAX], *tmp = NULL;
	const char *output = NULL;
	struct perfetto_notes notes = { 0 };
	struct bundle b;
	struct report r;
	FILE *out = stdout;
	int c, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		default:
			if ((status = parse_join_option(c, optarg, usage, packages, &opt, argc, argv)) >= 0)
				return status;
		}
	}
	if (optind >= argc)
		return usage_error(usage, "trace needs at least one file or directory");
	if (!output && isatty(STDOUT_FILENO))
		return usage_error(usage, "a trace is binary: give -o FILE, or redirect the output");
	if ((status = report_load(argv + optind, (size_t)(argc - optind), &opt, &b, &r)) != 0)
		return status;
	if (output && !(out = output_open(output, &tmp))) {
		fprintf(stderr, "lastwords: cannot write '%s': %s\n", fmt_text(output), strerror(errno));
		report_release(&r);
		bundle_release(&b);
		return LW_EXIT_OUTPUT;
	}
	status = bundle_errors(&b) ? LW_EXIT_INPUT : LW_EXIT_OK;
	if (perfetto_write(&r, out, &notes) != 0) {
		fprintf(stderr, "lastwords: out of memory: the trace is cut\n");
		status = LW_EXIT_OUTPUT;
	}
	report_release(&r);
	bundle_release(&b);
	if (output)
		status = output_commit(out, output, tmp, status);
	if (status == LW_EXIT_OK || status == LW_EXIT_INPUT) {
		print_notes(&notes);
		if (output)
			fprintf(stderr, "lastwords: %zu run%s, %zu packets, %llu bytes in '%s'\n", notes.runs,
				notes.runs == 1 ? "" : "s", notes.packets, (unsigned long long)notes.bytes,
				fmt_text(output));
	}
	return status;
}
