/*
 * The lastwords subcommands (one file each: cmd-<name>.c) and what they
 * share: exit statuses and the one-line error for a file that cannot be read.
 */
#ifndef LW_ANALYZER_COMMANDS_H
#define LW_ANALYZER_COMMANDS_H

#include <stdio.h>

#include "../src/ring.h"
#include "bundle.h"
#include "correlate.h"
#include "evidence/json.h"
#include "history/history-db.h"
#include "report.h"

/* Exit statuses, documented in lastwords(1). */
enum lastwords_exit {
	LW_EXIT_OK = 0,      /* success */
	LW_EXIT_CORRUPT = 1, /* verify found corrupt slots */
	LW_EXIT_USAGE = 2,   /* bad command line; trace's binary output to a terminal */
	LW_EXIT_FAIL_ON = 3, /* report --fail-on: a verdict matched (check compares exit_status) */
	LW_EXIT_INPUT = 4,   /* an input could not be read; the others were processed (and traced) */
	/* 5 to 10: lastwords pull (enum pull_exit, device/pull.h) */
	LW_EXIT_DATABASE = 11, /* the history database cannot be opened, upgraded or written */
	LW_EXIT_NO_DATA = 12,  /* report --fail-on: the inputs hold no run and no exit record */
	LW_EXIT_OUTPUT = 13,   /* the output could not be written (whatever else happened) */
	LW_EXIT_DIFFERS = 14,  /* check: the report differs from the expectation */
	LW_EXIT_GATE = 15,     /* gate: not yet, the candidate may not come back */
};

/*
 * A command's help: `lastwords help CMD` and `lastwords CMD --help` print
 * it (print_command_help()), its usage errors print its synopsis, and
 * `lastwords help` lists its summary. One per command, defined in its
 * cmd-*.c beside its getopt table, and named by main.c's command table.
 */
struct command_option {
	const char *option;  /* as typed: "--format text|json|html|seed" */
	const char *meaning; /* one line */
};
struct command_help {
	const char *summary;                  /* one line: what the command does */
	const char *synopsis;                 /* its usage, "lastwords CMD ..." */
	const struct command_option *options; /* every option, ending with { NULL, NULL } */
	const char *example;                  /* a command line that runs from the source root */
};
extern const struct command_help dump_help, verify_help, digest_help, inspect_help, report_help,
	check_help, trace_help, rules_help, gate_help, pull_help, ingest_help, history_help,
	export_help;

/* The options that report, check, ingest, trace and gate share, as their
 * help lists them (JOIN_OPTIONS). */
#define JOIN_OPTIONS_HELP                                                                 \
	{ "--tz ZONE", "the device's zone: +01:00, -0530, UTC, or a name such as Europe/Berlin" }, \
	{ "--tolerance MS", "the clock tolerance between ring and system times (2000 ms)" }, \
	{ "--package NAME", "judge this package's deaths too, as ring-less runs "           \
			    "(repeatable, up to 32)" },                                       \
	{ "--symbols DIR", "symbolicate native frames by build id from the app's unstripped " \
			   "libraries or a .build-id tree in DIR (repeatable, up to 16)" },   \
	{ "--mapping FILE", "deobfuscate Java stacks with this R8 or ProGuard mapping.txt" }

/* Print the help of the command named name (help_or_bad_option()'s argv[0])
 * to stdout: its summary, synopsis, options and example. Returns
 * LW_EXIT_OK, or LW_EXIT_USAGE with the error on stderr when there is no
 * such command. */
int print_command_help(const char *name);

int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_pull(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* Print "lastwords: 'FILE': REASON" (or "cannot open") for a ring_file_open()
 * failure to stderr. */
void report_ring_error(const char *path, int rc, const struct ring_error *err);

/* The options of dump, verify and inspect: --json and --help, then at
 * least one file. Returns -1 to go on with *json set and optind at the
 * first file, or the exit status to return (help printed, or a usage
 * error). what names the arguments in the error ("ring file"). */
int parse_json_options(int argc, char **argv, const char *usage, const char *what, int *json);

/* Print a JSON tree on stdout, indented (pretty) or on one line as dump
 * and verify --json do, and free it. 0, or -1 when o is NULL or cannot be
 * printed (ENOMEM). */
int print_json_tree(cJSON *o, int pretty);

/* A scan's slot counts as members of o, as dump and verify --json name
 * them: valid, torn, stale, corrupt, never_written, missing. */
void scan_counts_json(struct json *j, cJSON *o, const struct ring_scan *sc);

/*
 * The options of the join, shared by report, ingest and trace
 * (JOIN_OPTIONS in their getopt_long() tables): --tz ZONE (an offset or an
 * IANA name), --tolerance MS, and --package NAME (repeatable, up to
 * PACKAGES_MAX: a package whose deaths are judged besides the rings'; arg,
 * which must outlive *opt as argv does, is added to packages, which opt's
 * packages then point at). For getopt's c and arg, set *opt. Returns -1
 * when c is one of them and arg is good, the usage error's exit status
 * (the error printed) when arg is not, and for any other c what
 * help_or_bad_option() returns: the default arm of the command's getopt
 * loop.
 */
#define PACKAGES_MAX 32
#define SYMBOL_DIRS_MAX 16
#define JOIN_OPTIONS                                          \
	{ "tz", required_argument, NULL, 'z' },               \
	{ "tolerance", required_argument, NULL, 't' },        \
	{ "package", required_argument, NULL, 'p' },          \
	{ "symbols", required_argument, NULL, 'S' },          \
	{ "mapping", required_argument, NULL, 'M' }
int parse_join_option(int c, char *arg, const char *usage, char **packages,
		      struct corr_options *opt, int argc, char **argv);

/* The bundle's crash frames symbolicated by opt's --symbols and --mapping
 * (bundle_symbolicate()), into notes. Returns 0, or LW_EXIT_INPUT with the
 * error printed (a mapping or a symbols directory that cannot be read,
 * ENOMEM): the report is not made. */
int symbolicate_load(struct bundle *b, const struct corr_options *opt,
		     struct symbolicate_notes *notes);

/* The inputs of report and trace read into *b (bundle_load()) and joined,
 * classified and judged into *r (report_build()), the inputs that could
 * not be read printed (print_input_errors()): the one pipeline both
 * commands show. Returns 0 (release both), or LW_EXIT_INPUT with the
 * error printed when memory ran out. */
int report_load(char **inputs, size_t n, const struct corr_options *opt, struct bundle *b,
		struct report *r);

/* The options of report, which check takes too: --format (format, NULL
 * when not given), --tz, --tolerance, --package and --fail-on. Here and in
 * main.c, the command layer's common parsing, as the join's options are:
 * commands share through the layer below them or through main.c, never
 * through each other (tests/tree-layers.py). */
struct report_options {
	struct corr_options corr; /* its packages point into packages */
	char *packages[PACKAGES_MAX];
	struct fail_on fail_on[FAIL_ON_MAX];
	size_t nfail_on;
	const char *format;
};

/* Parse report's options into *ro, which must not move afterwards (corr
 * points into it). A --format seed ends them: what follows it is the seed
 * script's own command line (report's, cmd-report.c). Returns -1 to go
 * on, optind at the first operand, or the exit status to return (help
 * printed, or a usage error). */
int parse_report_options(int argc, char **argv, const char *usage, struct report_options *ro);

/* The exit status of report for the report r of b under ro: 3 when a
 * --fail-on verdict matches (report_fails()), 4 when an input could not
 * be read, 12 when --fail-on has no data to judge, else 0. Prints
 * nothing. */
int report_status(const struct bundle *b, const struct report *r, const struct report_options *ro);

/* Print each input of b that could not be read, one line each:
 * "lastwords: PREFIXcannot open 'FILE': REASON" for one that could not be
 * opened or read, else "lastwords: PREFIX'FILE': line N: REASON", FILE and
 * REASON escaped (fmt_text()), PREFIX as it is. Returns how many. */
size_t print_input_errors(const struct bundle *b, const char *prefix);

/* Print what the reader warns of in run r (read from JSON: a counter that
 * disagrees with the records), one line each: "lastwords: warning:
 * 'FILE': line N: TEXT". The run is read all the same. */
void print_run_warnings(const struct run *r);

/* The last cases of every command's getopt_long() switch: for 'h' (--help)
 * print the help of the command argv[0] (print_command_help()) and return
 * LW_EXIT_OK; for anything else, a usage error
 * naming the option (that is unknown, or, last, may lack its value). */
int help_or_bad_option(int c, const char *usage, int argc, char **argv);

/* history_open() for ingest, history and export: 0, or the reason on
 * stderr and LW_EXIT_DATABASE. */
int open_history(const char *db, enum history_mode mode, struct history *h);

/* Close f, a stream the results were written to: stdout (name NULL), which
 * main() closes after every command, or a file named name. Returns status
 * when every write, the flush and the close succeeded; else prints "cannot
 * write" with the reason to stderr and returns LW_EXIT_OUTPUT. */
int output_close(FILE *f, const char *name, int status);

/*
 * The stream for -o FILE (export, trace). A regular FILE, or none yet, is
 * written to a new temporary beside it, FILE.XXXXXX from mkstemp():
 * O_EXCL, so that nothing planted at its name (a symlink to another file)
 * is followed or overwritten. *tmp names it, for output_commit(). Anything
 * else (a device, a FIFO) is written in place, *tmp NULL. Returns NULL
 * with errno set when it cannot be created.
 */
FILE *output_open(const char *name, char **tmp);

/* Close f (output_close()) and, when status is still LW_EXIT_OK, rename
 * tmp over name: a reader sees the whole output or none. On any failure
 * the temporary is removed, and a rename that fails is printed and gives
 * LW_EXIT_OUTPUT. Frees tmp (which may be NULL). Returns the status. */
int output_commit(FILE *f, const char *name, char *tmp, int status);

/* Print a usage error for a command to stderr, escaped (fmt_text(): it
 * quotes the command line); returns LW_EXIT_USAGE. */
int usage_error(const char *usage, const char *fmt, ...);

#endif
