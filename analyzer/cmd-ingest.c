/*
 * lastwords ingest --db FILE [--events] [--tz ZONE] [--tolerance MS] [--package NAME]...
 *                  BUNDLE...
 *
 * Each BUNDLE (a directory such as `lastwords pull` writes, or one file)
 * is reported as `lastwords report` would, then stored in the history
 * database in one transaction (history-store.c). A bundle with a file that
 * cannot be read, or without any run (a ring, seed events, or a ring-less
 * run: a death that only the evidence tells), is refused with the reason
 * and the others still go in. The same bundle twice adds nothing.
 */
#include <getopt.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "commands.h"
#include "format.h"
#include "history/history-store.h"
#include "output/report-writer.h"
#include "report.h"
#include "symbolicate.h"

static const char usage[] =
	"lastwords ingest --db FILE [--events] [--tz ZONE] [--tolerance MS] [--package NAME]...\n"
	"                 [--symbols DIR]... [--mapping FILE] BUNDLE...";

static const struct command_option options[] = {
	{ "--db FILE", "the history database (required), created if there is none" },
	{ "--events", "store each ring record too, one row of JSON per run" },
	JOIN_OPTIONS_HELP,
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help ingest_help = {
	"store each bundle's report in the history database",
	usage,
	options,
	"lastwords ingest --db history.db --tz +01:00 fixtures/demo",
};

/* Why a loaded bundle is refused, on stderr; 1 if it is. */
static int refused(const char *source, const struct bundle *b)
{
	char prefix[4 * PATH_MAX + 16]; /* escaped, a byte is at most 4 */

	snprintf(prefix, sizeof(prefix), "refused '%s': ", fmt_text(source));
	return print_input_errors(b, prefix) != 0;
}

/* The files of a bundle left out (a FIFO, a socket, a link out of it...),
 * named on stderr as the report names them in its inputs. */
static void print_left_out(const struct bundle *b)
{
	size_t i;

	for (i = 0; i < b->ninputs; i++)
		if (b->inputs[i].skipped[0])
			fprintf(stderr, "lastwords: warning: '%s': left out: %s\n",
				fmt_text(b->inputs[i].path), fmt_text(b->inputs[i].skipped));
}

enum outcome { STORED, DUPLICATE, REFUSED, DB_FAILED };

static enum outcome ingest_one(struct history_store *s, char *source, struct corr_options opt,
			       int with_events)
{
	struct symbolicate_notes notes;
	struct store_counts c;
	struct bundle b;
	struct report r;
	char err[1024];
	cJSON *rep;
	int rc;

	if (bundle_load(&source, 1, &b) != 0) {
		fprintf(stderr, "lastwords: refused '%s': out of memory\n", fmt_text(source));
		return REFUSED;
	}
	print_left_out(&b);
	if (refused(source, &b)) {
		bundle_release(&b);
		return REFUSED;
	}
	if (bundle_symbolicate(&b, &opt, &notes, err, sizeof(err)) != 0) {
		fprintf(stderr, "lastwords: refused '%s': %s\n", fmt_text(source), err);
		bundle_release(&b);
		return REFUSED;
	}
	if (report_build(&b, &opt, &r) != 0) {
		fprintf(stderr, "lastwords: refused '%s': out of memory\n", fmt_text(source));
		bundle_release(&b);
		return REFUSED;
	}
	r.symbolicated = notes;
	if (r.corr.nruns == 0) {
		fprintf(stderr, "lastwords: refused '%s': no ring, no seed events and no death of a "
				"judged package's process in it: no run to store\n",
			fmt_text(source));
		report_release(&r);
		bundle_release(&b);
		return REFUSED;
	}
	rep = report_json(&r);
	rc = history_store_bundle(s, source, &b, &r, rep, with_events, &c, err, sizeof(err));
	cJSON_Delete(rep);
	if (rc != 0)
		fprintf(stderr, "lastwords: '%s': %s: %s\n", fmt_text(s->h->path), fmt_text(source),
			fmt_text(err));
	else if (c.duplicate)
		printf("%s: already in the history (bundle %016llx): nothing added\n", fmt_text(source),
		       (unsigned long long)b.digest);
	else {
		printf("%s: %zu run%s: %zu new, %zu replaced, %zu kept", fmt_text(source),
		       r.corr.nruns, r.corr.nruns == 1 ? "" : "s", c.added, c.replaced, c.kept);
		if (with_events)
			printf(", %zu events", c.events);
		putchar('\n');
	}
	report_release(&r);
	bundle_release(&b);
	return rc != 0 ? DB_FAILED : c.duplicate ? DUPLICATE : STORED;
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "events", no_argument, NULL, 'e' },
		JOIN_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct corr_options opt = { .tolerance_ms = CORR_DEFAULT_TOLERANCE_MS };
	char *packages[PACKAGES_MAX];
	size_t n[DB_FAILED + 1] = { 0 };
	struct history_store s;
	struct history h;
	const char *db = NULL;
	int c, with_events = 0, i, status;
	char err[512];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'e':
			with_events = 1;
			break;
		default:
			if ((status = parse_join_option(c, optarg, usage, packages, &opt, argc, argv)) >= 0)
				return status;
		}
	}
	if (!db)
		return usage_error(usage, "ingest needs --db FILE");
	if (optind >= argc)
		return usage_error(usage, "ingest needs at least one bundle (a directory or a file)");
	if ((status = open_history(db, HISTORY_CREATE, &h)) != 0)
		return status;
	if (h.upgraded_from > 0)
		fprintf(stderr, "lastwords: '%s': upgraded the schema from version %d to %d\n", fmt_text(db),
			h.upgraded_from, history_schema_version());
	if (history_store_open(&h, &s, err, sizeof(err)) != 0) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		history_close(&h);
		return LW_EXIT_DATABASE;
	}
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	/* Each bundle allocates and frees buffers of the same sizes (a
	 * ring's bytes, its records, the report). glibc would map the large
	 * ones afresh, and give freed memory back to the kernel, at each
	 * bundle, which then faults it in again: 184k page faults for 1000
	 * bundles of a 1 MiB ring, a sixth of ingest's time. Keep it. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
	for (i = optind; i < argc; i++) {
		enum outcome o = ingest_one(&s, argv[i], opt, with_events);

		n[o]++;
		if (o == DB_FAILED) {
			if (i + 1 < argc)
				fprintf(stderr, "lastwords: stopped: %d bundle%s after '%s' not tried\n",
					argc - i - 1, argc - i - 1 == 1 ? "" : "s", fmt_text(argv[i]));
			break;
		}
	}
	history_store_close(&s);
	history_close(&h);
	printf("%zu stored, %zu already in, %zu refused%s\n", n[STORED], n[DUPLICATE], n[REFUSED],
	       n[DB_FAILED] ? ", stopped on a database error" : "");
	return n[DB_FAILED] ? LW_EXIT_DATABASE : n[REFUSED] ? LW_EXIT_INPUT : LW_EXIT_OK;
}
