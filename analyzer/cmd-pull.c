/*
 * lastwords pull --package PKG [--serial S] [--process NAME] [--bugreport] -o DIR
 *
 * Collects a bundle from a device with the adb client (or the program the
 * ADB environment variable names): the app's rings (run-as, or the app's
 * external files directory), dumpsys activity exit-info, logcat's main,
 * system, crash and events buffers (in UTC and with the year: -v UTC -v
 * year), tombstones and ANR traces where they can be read, and
 * manifest.json: the device, its time zone (persist.sys.timezone) and
 * offset, the lmkd kill-report properties, the files written and what is
 * missing. With --bugreport, last, the device's bugreportz makes a bug
 * report zip, which goes into bugreport/ (bugreportz.h): it holds the
 * tombstones and ANR traces that a phone that is not rooted lets nobody
 * else read.
 *
 * The pull itself is device/pull.c; this file parses the options and
 * prints what the pull says. The whole pull has one deadline (--timeout),
 * each output a cap, so a device cannot make it hang, fill the memory or
 * the disk.
 *
 * The bundle is written into DIR.partial and renamed to DIR only when
 * nothing required is missing. A partial pull stays in DIR.partial, with
 * "complete": false in its manifest, and exits PULL_EXIT_PARTIAL: it never
 * looks complete. An existing non-empty DIR or DIR.partial is never touched.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/pull.h"
#include "commands.h"
#include "format.h"

static const char usage[] =
	"lastwords pull --package PKG [--serial S] [--process NAME] [--bugreport] [--timeout SECONDS]\n"
	"                      [--scenario NAME] -o DIR";

static const struct command_option options[] = {
	{ "-p, --package PKG", "the app whose rings and evidence to pull (required)" },
	{ "-o, --output DIR", "the bundle's directory (required): DIR.partial until it is whole" },
	{ "-s, --serial S", "the device, when adb sees several" },
	{ "--process NAME", "only this process's rings" },
	{ "--bugreport", "also a bug report zip from the device's bugreportz (minutes)" },
	{ "--timeout SECONDS", "the whole pull's deadline (120, or 720 with --bugreport)" },
	{ "--scenario NAME", "the release gate's scenario the device ran, in the manifest" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help pull_help = {
	"collect a bundle from a device with adb",
	usage,
	options,
	"lastwords pull --package com.example.demo -o pulled",
};

/* What the pull says, on stderr; the bug report's progress is one line
 * rewritten on a terminal, else a line at each quarter. */
struct progress {
	int tty;
	int quarter; /* the last quarter printed */
};

static void say(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "lastwords: %s\n", fmt_text(line));
}

static void show_progress(void *arg, int percent)
{
	struct progress *g = arg;

	if (percent < 0) {
		if (g->tty)
			fputc('\n', stderr);
	} else if (g->tty) {
		fprintf(stderr, "\rlastwords: bug report: %3d%%", percent);
		fflush(stderr);
	} else if (percent / 25 > g->quarter) {
		g->quarter = percent / 25;
		fprintf(stderr, "lastwords: bug report: %d%%\n", percent);
	}
}

int cmd_pull(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "package", required_argument, NULL, 'p' },
		{ "serial", required_argument, NULL, 's' },
		{ "process", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "bugreport", no_argument, NULL, 'b' },
		{ "scenario", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pull p = { 0 };
	struct progress g = { isatty(2), 0 };
	const char *dir = NULL, *want = NULL, *env = getenv("ADB");
	char *serial = NULL;
	int c, rc, status, timeout_s = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p.package = optarg;
			break;
		case 's':
			want = optarg;
			break;
		case 'P':
			p.process = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'b':
			p.bugreport = 1;
			break;
		case 'S': {
			char names[256];

			if (vocab_value(&vocab_scenarios, optarg) <= 0)
				return usage_error(usage, "--scenario: '%s' is not a scenario (%s)", optarg,
						   fmt_vocab_list(&vocab_scenarios, names, sizeof(names)));
			p.scenario = optarg;
			break;
		}
		case 't': {
			char *end;
			long t = strtol(optarg, &end, 10);

			if (*end || t < 1 || t > 3600)
				return usage_error(usage, "--timeout takes seconds (1 to 3600), not '%s'",
						   optarg);
			timeout_s = (int)t;
			break;
		}
		default:
			return help_or_bad_option(c, usage, argc, argv);
		}
	}
	if (optind < argc)
		return usage_error(usage, "unexpected argument '%s'", argv[optind]);
	if (!p.package)
		return usage_error(usage, "pull needs --package");
	if (!pull_valid_package(p.package))
		return usage_error(usage, "'%s' is not a package name", p.package);
	if (!dir || !*dir)
		return usage_error(usage, "pull needs -o DIR");
	if (p.process && !*p.process)
		return usage_error(usage, "--process needs a process name");
	if (want && (!*want || want[0] == '-'))
		return usage_error(usage, "'%s' is not a serial", want);
	p.adb.program = env && *env ? env : "adb";
	pull_set_deadline(&p, timeout_s);
	p.say = say;
	p.progress = show_progress;
	p.ctx = &g;

	if (pull_prepare(&p, dir) != 0) {
		pull_release(&p);
		return PULL_EXIT_OUTPUT;
	}
	status = pull_find_device(&p, want, &serial);
	if (p.adb_not_found)
		fprintf(stderr, "lastwords: adb not found ('%s'): install the Android platform tools "
				"(Debian: apt install adb), or set ADB to the adb binary\n",
			p.adb.program);
	if (status == 0) {
		p.adb.serial = serial;
		status = pull_check_package(&p);
	}
	if (status != 0) {
		rmdir(p.work); /* empty: nothing was pulled */
		goto free_all;
	}
	if (pull_collect(&p) != 0) {
		fprintf(stderr, "lastwords: pull stopped; what it got is in '%s'\n", fmt_text(p.work));
		status = PULL_EXIT_OUTPUT;
		goto free_all;
	}
	if (p.required_missing) {
		fprintf(stderr, "lastwords: partial pull: %d required item%s missing; the bundle is "
				"in '%s', with \"complete\": false in its manifest.json\n",
			p.required_missing, p.required_missing == 1 ? "" : "s", fmt_text(p.work));
		status = PULL_EXIT_PARTIAL;
		goto free_all;
	}
	if ((rc = pull_publish(&p, dir)) != 0) {
		fprintf(stderr, "lastwords: cannot rename '%s' to '%s': %s\n", fmt_text(p.work),
			fmt_text(dir), strerror(-rc));
		status = PULL_EXIT_OUTPUT;
		goto free_all;
	}
	printf("%s: %zu ring%s, exit-info, logcat and event log%s of %s from %s\n", fmt_text(dir),
	       p.nrings, p.nrings == 1 ? "" : "s", p.got_bugreport ? ", a bug report" : "",
	       p.package, serial);
free_all:
	pull_release(&p);
	free(serial);
	return status;
}
