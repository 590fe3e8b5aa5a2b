/*
 * lastwords: tells why an on-device AI process died, from the rings its
 * probe left and the system's own evidence. This file dispatches to the
 * subcommands (cmd-*.c) and holds what they share: messages, and the
 * options several of them take (the join's; report's, which check takes).
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
#include "../src/vocab.h"
#include "commands.h"
#include "format.h"
#include "symbolicate.h"

#define LASTWORDS_VERSION "0.1.0"

/* The top of `lastwords help`; the commands follow, from the table below. */
static const char usage_head[] =
	"usage: lastwords <command> [options] [args]\n"
	"       lastwords help <command>     that command's options and an example\n"
	"                                    (or: lastwords <command> --help)\n"
	"       lastwords --version          the version, and the ring format's\n"
	"\n"
	"commands:\n";

static const char usage_text[] =
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

/* The commands, in the order `lastwords help` lists them. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct command_help *help;
};

static const struct command commands[] = {
	{ "dump", cmd_dump, &dump_help },
	{ "verify", cmd_verify, &verify_help },
	{ "digest", cmd_digest, &digest_help },
	{ "inspect", cmd_inspect, &inspect_help },
	{ "report", cmd_report, &report_help },
	{ "check", cmd_check, &check_help },
	{ "trace", cmd_trace, &trace_help },
	{ "rules", cmd_rules, &rules_help },
	{ "gate", cmd_gate, &gate_help },
	{ "pull", cmd_pull, &pull_help },
	{ "ingest", cmd_ingest, &ingest_help },
	{ "history", cmd_history, &history_help },
	{ "export", cmd_export, &export_help },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
	size_t i;

	fputs(usage_head, f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help->summary);
	fprintf(f, "  %-10s %s\n", "help", "this text, or with a command that command's help");
	fputs(usage_text, f);
}

/* Where an option's meaning starts in a command's help; a longer option
 * has its meaning on the next line. */
#define HELP_COLUMN 24

int print_command_help(const char *name)
{
	const struct command_help *h = NULL;
	const struct command_option *o;
	size_t i;

	for (i = 0; i < NCOMMANDS && !h; i++)
		if (strcmp(commands[i].name, name) == 0)
			h = commands[i].help;
	if (!h) {
		fprintf(stderr, "lastwords: unknown command '%s'\n", fmt_text(name));
		print_usage(stderr);
		return LW_EXIT_USAGE;
	}
	printf("lastwords %s: %s\n\nusage: %s\n\noptions:\n", name, h->summary, h->synopsis);
	for (o = h->options; o->option; o++)
		if (strlen(o->option) > HELP_COLUMN - 4)
			printf("  %s\n  %*s%s\n", o->option, HELP_COLUMN - 2, "", o->meaning);
		else
			printf("  %-*s%s\n", HELP_COLUMN - 2, o->option, o->meaning);
	printf("\nexample:\n  %s\n\nsee lastwords(1)\n", h->example);
	return LW_EXIT_OK;
}

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
	if (c == 'h')
		return print_command_help(argv[0]);
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

/* --symbols DIR: a directory that can be read. The commands run once per
 * process, so the list lives here. */
static char *symbol_dirs[SYMBOL_DIRS_MAX];

static int parse_symbols_option(char *arg, const char *usage, struct corr_options *opt)
{
	struct stat st;

	if (stat(arg, &st) != 0)
		return usage_error(usage, "--symbols '%s': %s", fmt_text(arg), strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return usage_error(usage, "--symbols takes a directory of the app's unstripped "
					  "libraries or a .build-id tree, and '%s' is not one",
				   fmt_text(arg));
	if (opt->nsymbol_dirs >= SYMBOL_DIRS_MAX)
		return usage_error(usage, "--symbols is given more than %d times", SYMBOL_DIRS_MAX);
	symbol_dirs[opt->nsymbol_dirs++] = arg;
	opt->symbol_dirs = symbol_dirs;
	return -1;
}

/* --mapping FILE: a file that can be read; its content is read (and
 * refused, naming the line) when the report is built. */
static int parse_mapping_option(char *arg, const char *usage, struct corr_options *opt)
{
	struct stat st;

	if (opt->mapping)
		return usage_error(usage, "--mapping is given twice: one mapping.txt per report");
	if (stat(arg, &st) != 0)
		return usage_error(usage, "--mapping '%s': %s", fmt_text(arg), strerror(errno));
	if (!S_ISREG(st.st_mode))
		return usage_error(usage, "--mapping takes an R8 or ProGuard mapping.txt, and '%s' "
					  "is not a file",
				   fmt_text(arg));
	opt->mapping = arg;
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
	case 'S':
		return parse_symbols_option(arg, usage, opt);
	case 'M':
		return parse_mapping_option(arg, usage, opt);
	}
	return help_or_bad_option(c, usage, argc, argv);
}

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
			if (strcmp(optarg, "seed") == 0)
				return -1; /* the rest is the seed script's (cmd-report.c) */
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
	return ro->nfail_on && report_fails(r, ro->fail_on, ro->nfail_on) ? LW_EXIT_FAIL_ON
	       : bundle_errors(b)                                          ? LW_EXIT_INPUT
	       : ro->nfail_on && r->corr.nruns == 0 && bundle_exit_records(b) == 0 ? LW_EXIT_NO_DATA
										: LW_EXIT_OK;
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

int symbolicate_load(struct bundle *b, const struct corr_options *opt,
		     struct symbolicate_notes *notes)
{
	char err[512];

	if (bundle_symbolicate(b, opt, notes, err, sizeof(err)) != 0) {
		fprintf(stderr, "lastwords: %s\n", fmt_text(err));
		return LW_EXIT_INPUT;
	}
	return 0;
}

int report_load(char **inputs, size_t n, const struct corr_options *opt, struct bundle *b,
		struct report *r)
{
	struct symbolicate_notes notes;
	int status;

	if (bundle_load(inputs, n, b) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		return LW_EXIT_INPUT;
	}
	if ((status = symbolicate_load(b, opt, &notes)) != 0) {
		bundle_release(b);
		return status;
	}
	if (report_build(b, opt, r) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		bundle_release(b);
		return LW_EXIT_INPUT;
	}
	r->symbolicated = notes;
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
		print_usage(stderr);
		return LW_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		if (argc > 3) {
			fprintf(stderr, "lastwords: help takes one command, not %d\n", argc - 2);
			print_usage(stderr);
			return LW_EXIT_USAGE;
		}
		if (argc == 3 && strcmp(argv[2], "help") != 0)
			return output_close(stdout, NULL, print_command_help(argv[2]));
		print_usage(stdout);
		return output_close(stdout, NULL, LW_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("lastwords %s (ring format %d)\n", LASTWORDS_VERSION, LW_RING_VERSION);
		return output_close(stdout, NULL, LW_EXIT_OK);
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return output_close(stdout, NULL, commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "lastwords: unknown command '%s'\n", fmt_text(argv[1]));
	print_usage(stderr);
	return LW_EXIT_USAGE;
}
