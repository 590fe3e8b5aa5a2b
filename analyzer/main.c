/*
 * lastwords: tells why an on-device AI process died, from the rings its
 * probe left and the system's own evidence. This file dispatches to the
 * subcommands (cmd-*.c) and holds what they share for messages.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/cpu.h"
#include "commands.h"
#include "format.h"

#define LASTWORDS_VERSION "0.1.0"

static const char usage_text[] =
	"usage: lastwords <command> [options] [args]\n"
	"\n"
	"commands:\n"
	"  dump [--json] RING...        the timeline of each ring: its last words\n"
	"  verify [--json] RING...      check each ring slot by slot; exit 1 on corruption\n"
	"  digest NAME...               the candidate digest the probe records for a name\n"
	"  inspect [--json] FILE...     what kind of evidence each file is, and its records\n"
	"  report [options] INPUT...    what killed each run, how sure, and what to do next\n"
	"  check EXPECT.json INPUT...   the report against what a team expects of it; 14 if not\n"
	"  trace [-o FILE] INPUT...     the runs as a Perfetto trace, on the device's BOOTTIME\n"
	"  rules                        the classification rules, with their ids\n"
	"  gate --candidate C INPUT...  may a quarantined candidate come back: device matrix, checklist\n"
	"  pull --package PKG -o DIR    collect a bundle from a device with adb\n"
	"  ingest --db FILE BUNDLE...   store each bundle's report in the history database\n"
	"  history --db FILE [--by G]   rates per candidate, version, stage, ...; regressions\n"
	"  export --db FILE --format F  one row per run's verdict (ndjson, csv) for a warehouse\n"
	"  help                         this text\n"
	"\n"
	"exit status: 0 ok, 1 corruption found, 2 usage error (or trace to a terminal),\n"
	"             3 a --fail-on verdict, 4 an input could not be read;\n"
	"             pull: 5 no adb, 6 no device, 7 several devices, 8 no such package,\n"
	"             9 partial, 10 output exists;\n"
	"             11 the history database cannot be opened, upgraded or written;\n"
	"             12 report --fail-on on no data (no run and no exit record);\n"
	"             13 the output could not be written;\n"
	"             14 check: the report differs from the expectation; 15 gate: not yet\n"
	"see lastwords(1)\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "dump", cmd_dump },
	{ "verify", cmd_verify },
	{ "digest", cmd_digest },
	{ "inspect", cmd_inspect },
	{ "report", cmd_report },
	{ "check", cmd_check },
	{ "trace", cmd_trace },
	{ "rules", cmd_rules },
	{ "gate", cmd_gate },
	{ "pull", cmd_pull },
	{ "ingest", cmd_ingest },
	{ "history", cmd_history },
	{ "export", cmd_export },
};

void report_ring_error(const char *path, int rc, const struct ring_error *err)
{
	if (rc < 0) {
		fprintf(stderr, "lastwords: cannot open '%s': %s\n", fmt_text(path), err->reason);
		return;
	}
	switch ((enum ring_header_status)rc) {
	case RING_HEADER_BYTE_ORDER:
	case RING_HEADER_FUTURE:
	case RING_HEADER_CHECKSUM:
	case RING_HEADER_GEOMETRY:
	case RING_HEADER_FIELD:
		fprintf(stderr, "lastwords: '%s': %s (header offset %zu)\n", fmt_text(path), err->reason,
			err->offset);
		break;
	default:
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(path), err->reason);
	}
}

int usage_error(const char *usage, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	/* The arguments quoted in it are the command line's, escaped. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "lastwords: %s\nusage: %s\n", fmt_text(msg), usage);
	return LW_EXIT_USAGE;
}

int help_or_bad_option(int c, const char *usage, int argc, char **argv)
{
	if (c == 'h') {
		printf("usage: %s\n", usage);
		return LW_EXIT_OK;
	}
	/* Only the last argument can be an option missing its value. */
	return usage_error(usage, optind == argc ? "unknown option or missing value '%s'"
						 : "unknown option '%s'",
			   argv[optind - 1]);
}

int open_history(const char *db, enum history_mode mode, struct history *h)
{
	char err[512];
	int rc = history_open(db, mode, h, err, sizeof(err));

	if (rc == 0)
		return 0;
	if (rc == -EINVAL)
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
	else
		fprintf(stderr, "lastwords: cannot open '%s': %s\n", fmt_text(db), fmt_text(err));
	return LW_EXIT_DATABASE;
}

static int parse_tz_option(const char *arg, const char *usage, struct corr_options *opt)
{
	char why[TZ_WHY_MAX];
	int rc = tz_parse(arg, &opt->tz, why, sizeof(why));

	if (rc == TZ_UNKNOWN)
		return usage_error(usage, "--tz takes an offset such as +02:00, -0530 or UTC, or a "
					  "zone of the system's tzdata such as Europe/Berlin, not '%s'",
				   arg);
	if (rc != 0)
		return usage_error(usage, "--tz '%s' refused: %s (it takes an offset such as "
					  "+02:00, or a zone of the system's tzdata such as "
					  "Europe/Berlin)",
				   arg, why);
	opt->tz_known = 1;
	opt->tz_source = CORR_TZ_OPTION;
	return -1;
}

static int parse_package_option(char *arg, const char *usage, char **list, struct corr_options *opt)
{
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._");

	if (!arg[0] || arg[n] || arg[0] == '.')
		return usage_error(usage, "--package takes a package name such as com.example.app, "
					  "not '%s'",
				   arg);
	if (opt->npackages >= PACKAGES_MAX)
		return usage_error(usage, "--package is given more than %d times", PACKAGES_MAX);
	list[opt->npackages++] = arg;
	opt->packages = list;
	return -1;
}

static int parse_tolerance_option(const char *arg, const char *usage, struct corr_options *opt)
{
	char *end;

	opt->tolerance_ms = strtoll(arg, &end, 10);
	if (end == arg || *end || opt->tolerance_ms < 0 || opt->tolerance_ms > 3600000)
		return usage_error(usage, "--tolerance takes milliseconds (0 to 3600000), not '%s'", arg);
	return -1;
}

int parse_join_option(int c, char *arg, const char *usage, char **packages,
		      struct corr_options *opt, int argc, char **argv)
{
	switch (c) {
	case 'z':
		return parse_tz_option(arg, usage, opt);
	case 't':
		return parse_tolerance_option(arg, usage, opt);
	case 'p':
		return parse_package_option(arg, usage, packages, opt);
	}
	return help_or_bad_option(c, usage, argc, argv);
}

size_t print_input_errors(const struct bundle *b, const char *prefix)
{
	size_t i, n = 0;

	for (i = 0; i < b->ninputs; i++) {
		const struct bundle_input *in = &b->inputs[i];

		if (!in->error[0])
			continue;
		if (in->unopened)
			fprintf(stderr, "lastwords: %scannot open '%s': %s\n", prefix, fmt_text(in->path),
				fmt_text(in->error));
		else if (in->error_line)
			fprintf(stderr, "lastwords: %s'%s': line %zu: %s\n", prefix, fmt_text(in->path),
				in->error_line, fmt_text(in->error));
		else
			fprintf(stderr, "lastwords: %s'%s': %s\n", prefix, fmt_text(in->path),
				fmt_text(in->error));
		n++;
	}
	for (i = 0; i < b->nruns; i++)
		print_run_warnings(&b->runs[i]);
	return n;
}

void print_run_warnings(const struct run *r)
{
	const char *w = r->warnings, *nl;

	for (; w && (nl = strchr(w, '\n')); w = nl + 1)
		fprintf(stderr, "lastwords: warning: '%s': %.*s\n", fmt_text(r->path), (int)(nl - w),
			w); /* the reader's own text: counter names and numbers */
}

int report_load(char **inputs, size_t n, const struct corr_options *opt, struct bundle *b,
		struct report *r)
{
	if (bundle_load(inputs, n, b) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		return LW_EXIT_INPUT;
	}
	if (report_build(b, opt, r) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		bundle_release(b);
		return LW_EXIT_INPUT;
	}
	print_input_errors(b, "");
	return 0;
}

int print_json_tree(cJSON *o, int pretty)
{
	char *text = o ? json_serialize(o, pretty) : NULL;

	cJSON_Delete(o);
	if (!text)
		return -1;
	puts(text);
	free(text);
	return 0;
}

void scan_counts_json(struct json *j, cJSON *o, const struct ring_scan *sc)
{
	json_u64(j, o, "valid", sc->valid);
	json_u64(j, o, "torn", sc->torn);
	json_u64(j, o, "stale", sc->stale);
	json_u64(j, o, "corrupt", sc->corrupt);
	json_u64(j, o, "never_written", sc->empty);
	json_u64(j, o, "missing", sc->missing);
}

int parse_json_options(int argc, char **argv, const char *usage, const char *what, int *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*json = 1;
			break;
		default:
			return help_or_bad_option(c, usage, argc, argv);
		}
	}
	if (optind >= argc)
		return usage_error(usage, "%s needs at least one %s", argv[0], what);
	return -1;
}

int output_close(FILE *f, const char *name, int status)
{
	/* A write that failed set the error flag and errno, and a later
	 * fflush() of the emptied buffer succeeds: ask both. */
	int failed = fflush(f) != 0;

	failed |= ferror(f) != 0;
	failed |= fclose(f) != 0;
	if (!failed)
		return status;
	if (name)
		fprintf(stderr, "lastwords: cannot write '%s': %s\n", fmt_text(name),
			strerror(errno ? errno : EIO));
	else
		fprintf(stderr, "lastwords: cannot write the output: %s\n", strerror(errno ? errno : EIO));
	return LW_EXIT_OUTPUT;
}

FILE *output_open(const char *output, char **tmp)
{
	struct stat sb;
	mode_t mask;
	char *name;
	FILE *f;
	int fd, e;

	if (stat(output, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		f = fopen(output, "w");
		if (f)
			*tmp = NULL;
		return f;
	}
	name = malloc(strlen(output) + 8);
	if (!name) {
		errno = ENOMEM;
		return NULL;
	}
	sprintf(name, "%s.XXXXXX", output);
	fd = mkstemp(name);
	if (fd >= 0) {
		/* mkstemp() makes it 0600; give it the mode of a new file. */
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) == 0 && (f = fdopen(fd, "w")) != NULL) {
			*tmp = name;
			return f;
		}
		e = errno;
		close(fd);
		unlink(name);
		errno = e;
	}
	e = errno;
	free(name);
	errno = e;
	return NULL;
}

int output_commit(FILE *f, const char *name, char *tmp, int status)
{
	status = output_close(f, name, status);
	if (tmp && status == LW_EXIT_OK && rename(tmp, name) != 0) {
		fprintf(stderr, "lastwords: cannot rename '%s' to '%s': %s\n", fmt_text(tmp),
			fmt_text(name), strerror(errno));
		status = LW_EXIT_OUTPUT;
	}
	if (tmp && status != LW_EXIT_OK)
		unlink(tmp);
	free(tmp);
	return status;
}

int main(int argc, char **argv)
{
	size_t i;

	cpu_crc32c_setup();
	if (argc < 2) {
		fputs(usage_text, stderr);
		return LW_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		fputs(usage_text, stdout);
		return output_close(stdout, NULL, LW_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("lastwords %s (ring format %d)\n", LASTWORDS_VERSION, LW_RING_VERSION);
		return output_close(stdout, NULL, LW_EXIT_OK);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return output_close(stdout, NULL, commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "lastwords: unknown command '%s'\n", fmt_text(argv[1]));
	fputs(usage_text, stderr);
	return LW_EXIT_USAGE;
}
