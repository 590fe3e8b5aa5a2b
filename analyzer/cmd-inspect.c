/*
 * lastwords inspect [--json] FILE...: what each file is, detected from its
 * content, and the records parsed from it; a bug report (a zip, a
 * directory that holds one unzipped, or its main text) is each of its
 * pieces, as report reads them. A file of no known kind, or one
 * that cannot be parsed at all, is an error (exit 4); lines a parser does
 * not understand are counted and skipped.
 */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "bundle.h"
#include "commands.h"
#include "evidence/json.h"
#include "evidence/evidence.h"
#include "evidence/input.h"
#include "evidence/parsers.h"
#include "format.h"
#include "runs/ring-event.h"
#include "runs/ring-file.h"
#include "runs/run.h"

static const char usage[] = "lastwords inspect [--json] FILE...";

static const struct command_option options[] = {
	{ "--json", "each file's kind and records as JSON" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help inspect_help = {
	"what kind of evidence each file is, and its records",
	usage,
	options,
	"lastwords inspect fixtures/demo/logcat.txt",
};

static const char unknown_reason[] =
	"unknown kind: not a ring, seed events, exit-info (dump, JSON or toString), "
	"tombstone, ANR trace, logcat, event log or bug report";

/* A file that could not be used: it could not be read (read: its error is
 * the system's, as for a file that cannot be opened), or its content is
 * not what its kind says, at err->line if not 0. */
static void input_failed(const char *path, int read, const struct ev_error *err, struct json *j,
			 cJSON *obj)
{
	if (read)
		fprintf(stderr, "lastwords: cannot open '%s': %s\n", fmt_text(path),
			fmt_text(err->reason));
	else if (err->line)
		fprintf(stderr, "lastwords: '%s': line %zu: %s\n", fmt_text(path), err->line,
			fmt_text(err->reason));
	else
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(path), fmt_text(err->reason));
	if (j) {
		json_text(j, obj, "error", err->reason);
		if (err->line && !read)
			json_number(j, obj, "error_line", (double)err->line);
	}
}

/* A ring, binary or as dump --json lines: its valid records, into obj of
 * j's tree with --json (j not NULL), else on stdout. */
static int inspect_run(const char *path, struct input *in, int binary, struct json *j,
		       cJSON *obj)
{
	struct ev_error err = { 0, "" };
	struct ring_error rerr;
	struct run r;
	cJSON *arr = NULL;
	size_t i;
	int rc;

	if (binary) {
		rc = run_load_ring(path, &r, &rerr);
		if (rc != 0) {
			report_ring_error(path, rc, &rerr);
			if (j)
				json_text(j, obj, "error", rerr.reason);
			return -1;
		}
	} else if (run_load_json(path, in, &r, &err) != 0) {
		if (in->failed) {
			input_failed(path, 1, &err, j, obj);
			return -1;
		}
		fprintf(stderr, "lastwords: '%s': line %zu: %s\n", fmt_text(path), err.line,
			fmt_text(err.reason));
		if (j)
			json_text(j, obj, "error", err.reason);
		return -1;
	}
	print_run_warnings(&r);
	if (j) {
		json_text(j, obj, "form", r.from_json ? "json-lines" : "binary");
		if (r.outcome == RING_OUTCOME_BLANK)
			json_text(j, obj, "note", ring_blank_text(r.scan.slot_count));
		arr = json_array(j, obj, "records");
	} else if (r.outcome == RING_OUTCOME_BLANK) {
		printf("%s: ring%s, %s\n", path, r.from_json ? " (JSON lines)" : "",
		       ring_blank_text(r.scan.slot_count));
	} else {
		printf("%s: ring%s, %s, %zu records\n", fmt_text(path), r.from_json ? " (JSON lines)" : "",
		       ring_outcome_name(r.outcome), r.nevents);
	}
	for (i = 0; i < r.nevents; i++) {
		const struct lw_ring_slot *e = &r.events[i];

		if (j) {
			json_item(j, arr, NULL, ring_event_json(path, run_event_ticket(e), &r.hdr, e));
		} else {
			char label[48], detail[160];

			ring_event_text(&r.hdr, e, label, sizeof(label), detail,
					sizeof(detail));
			printf("  ticket %llu: %s %s\n", (unsigned long long)run_event_ticket(e), label, detail);
		}
	}
	run_release(&r);
	return 0;
}

/* The counts of what was cut to a limit, in JSON (only when some was). */
static void cut_json(struct json *j, cJSON *obj, const struct ev_stats *st)
{
	if (st->cut_lines) {
		json_number(j, obj, "cut_lines", (double)st->cut_lines);
		json_number(j, obj, "first_cut_line", (double)st->first_cut);
	}
	if (st->cut_frames)
		json_number(j, obj, "cut_frames", (double)st->cut_frames);
	if (st->cut_java_frames)
		json_number(j, obj, "cut_java_frames", (double)st->cut_java_frames);
	if (st->cut_threads)
		json_number(j, obj, "cut_threads", (double)st->cut_threads);
	ev_dropped_json(j, obj, "records_cut", st);
}

/* What a bug report's main text says of the device and the report
 * (bugreport.h), and its sections: into obj with --json (j not NULL),
 * else on stdout. */
static void text_info(const struct bugreport_info *info, struct json *j, cJSON *obj)
{
	const char *none = "(none)";
	size_t i;

	if (j) {
		cJSON *x = json_object(j, obj, "bugreport"), *a;

		json_text(j, x, "taken", info->taken[0] ? info->taken : NULL);
		json_text(j, x, "format", info->format[0] ? info->format : NULL);
		json_text(j, x, "fingerprint", info->fingerprint[0] ? info->fingerprint : NULL);
		json_int_or_null(j, x, "sdk", info->sdk, EV_NONE);
		json_text(j, x, "release", info->release[0] ? info->release : NULL);
		json_text(j, x, "model", info->model[0] ? info->model : NULL);
		json_text(j, x, "zone", info->zone[0] ? info->zone : NULL);
		if (info->have_offset)
			json_number(j, x, "offset_minutes", (double)(info->offset_ms / 60000));
		else
			json_null(j, x, "offset_minutes");
		json_number(j, x, "sections", (double)info->sections);
		json_number(j, x, "pieces", (double)info->pieces);
		a = json_array(j, x, "section_list");
		for (i = 0; i < info->nlist; i++) {
			cJSON *e = json_object(j, a, NULL);

			json_text(j, e, "title", info->list[i].title);
			json_number(j, e, "line", (double)info->list[i].line);
			if (info->list[i].kind == EV_KIND_UNKNOWN)
				json_null(j, e, "kind");
			else
				json_text(j, e, "kind", ev_kind_name(info->list[i].kind));
		}
		return;
	}
	printf("  dumpstate %s, format %s, build '%s', SDK ", fmt_text(info->taken[0] ? info->taken : none),
	       fmt_text(info->format[0] ? info->format : none),
	       fmt_text(info->fingerprint[0] ? info->fingerprint : none));
	if (info->sdk == EV_NONE)
		printf("%s", none);
	else
		printf("%lld", (long long)info->sdk);
	printf(", %s, zone %s", fmt_text(info->model[0] ? info->model : "model unknown"),
	       fmt_text(info->zone[0] ? info->zone : none));
	if (info->have_offset)
		printf(" (%+lld min from UTC when taken)", (long long)(info->offset_ms / 60000));
	printf("\n  %zu sections, %zu of them read as evidence:\n", info->sections, info->pieces);
	for (i = 0; i < info->nlist; i++)
		printf("    line %zu: %s: %s\n", info->list[i].line, fmt_text(info->list[i].title),
		       info->list[i].kind == EV_KIND_UNKNOWN ? "holds no evidence, skipped"
							: ev_kind_name(info->list[i].kind));
	if (info->sections > info->nlist)
		printf("    (%zu more not listed)\n", info->sections - info->nlist);
}

/* The records parsed from a file, into obj with --json (j not NULL),
 * else on stdout after its path; info when it is a bug report's text. */
static void print_file(const char *path, const struct ev_file *f,
		       const struct bugreport_info *info, struct json *j, cJSON *obj)
{
	size_t i, n = ev_record_count(f);
	char line[EV_CUT_TEXT_MAX];

	if (j) {
		json_number(j, obj, "lines", (double)f->stats.lines);
		json_number(j, obj, "skipped", (double)f->stats.skipped);
		if (f->stats.first_skipped)
			json_number(j, obj, "first_skipped_line", (double)f->stats.first_skipped);
		cut_json(j, obj, &f->stats);
		if (info)
			text_info(info, j, obj);
		json_item(j, obj, "records", ev_records_json(f));
		return;
	}
	printf("%s: %s%s, %zu record%s, %zu lines", fmt_text(path), ev_kind_name(f->kind),
	       f->gzipped ? " (gzip)" : "", n, n == 1 ? "" : "s", f->stats.lines);
	if (f->stats.skipped)
		printf(" (%zu not understood, first at line %zu)", f->stats.skipped,
		       f->stats.first_skipped);
	if (ev_cut_text(&f->stats, line, sizeof(line)))
		printf("; %s", line);
	putchar('\n');
	if (info)
		text_info(info, NULL, NULL);
	for (i = 0; i < n; i++) {
		ev_record_text(f, i, line, sizeof(line));
		printf("  %s\n", fmt_text(line));
	}
}

/* A bug report's zip or directory: what it holds that is not read. */
static void container_info(const struct bundle_bugreport *r, const struct bundle_input *in,
			   struct json *j, cJSON *list)
{
	cJSON *obj = NULL, *a;
	size_t i;

	if (j) {
		obj = json_object(j, list, NULL);
		json_text(j, obj, "file", r->path);
		json_text(j, obj, "kind", in ? ev_kind_name(in->kind) : "directory");
		a = json_array(j, obj, "not_read");
		for (i = 0; i < r->nunread; i++)
			json_text(j, a, NULL, r->unread[i]);
		return;
	}
	printf("%s: a bug report (%s), %zu entr%s that hold no evidence, not read\n",
	       fmt_text(r->path), in ? "zip" : "unzipped", r->nunread,
	       r->nunread == 1 ? "y" : "ies");
	for (i = 0; i < r->nunread; i++)
		printf("  %s\n", fmt_text(r->unread[i]));
}

/* What the bug report's main text at path says, or NULL when path is
 * none. */
static const struct bugreport_info *text_of(const struct bundle *b, const char *path)
{
	size_t i;

	for (i = 0; i < b->nbugreports; i++)
		if (b->bugreports[i].text && strcmp(b->bugreports[i].text, path) == 0)
			return &b->bugreports[i].info;
	return NULL;
}

/* A bug report, zipped, unzipped (a directory) or its main text alone:
 * what it holds, then each of its pieces as a file of its own
 * ("ZIP:ENTRY", "TEXT:SECTION"), as report reads them. */
static int inspect_bugreport(const char *path, struct json *j, cJSON *list)
{
	char *paths[1] = { (char *)path };
	const struct bundle_bugreport *r;
	struct bundle b;
	size_t i, k;
	int rc = 0;

	if (bundle_load(paths, 1, &b) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		return -1;
	}
	/* a zip or a directory: what it holds that is not read */
	r = b.nbugreports && (!b.bugreports[0].text ||
			      strcmp(b.bugreports[0].text, b.bugreports[0].path) != 0)
		    ? &b.bugreports[0]
		    : NULL;
	if (r)
		container_info(r, b.ninputs && strcmp(b.inputs[0].path, r->path) == 0 ? &b.inputs[0]
										   : NULL,
			       j, list);
	for (i = 0; i < b.ninputs; i++) {
		const struct bundle_input *in = &b.inputs[i];
		const struct ev_file *f = NULL;
		struct ev_error err = { in->error_line, "" };
		cJSON *obj = NULL;

		if (r && i == 0 && strcmp(in->path, r->path) == 0 && !in->error[0])
			continue; /* the zip: described */
		for (k = 0; k < b.nfiles && !f; k++)
			if (strcmp(b.files[k].path, in->path) == 0)
				f = &b.files[k];
		if (j) {
			obj = json_object(j, list, NULL);
			json_text(j, obj, "file", in->path);
			json_text(j, obj, "kind", ev_kind_name(in->kind));
			if (f)
				json_bool(j, obj, "gzipped", f->gzipped);
		}
		if (in->error[0]) {
			snprintf(err.reason, sizeof(err.reason), "%s", in->error);
			input_failed(in->path, in->unopened, &err, j, obj);
			rc = -1;
		} else if (in->skipped[0]) {
			if (j)
				json_text(j, obj, "skipped", in->skipped);
			else
				printf("%s: left out: %s\n", fmt_text(in->path), fmt_text(in->skipped));
		} else if (f) {
			print_file(in->path, f, text_of(&b, in->path), j, obj);
		}
	}
	bundle_release(&b);
	return rc;
}

/* Whether path is a directory that holds an unzipped bug report. */
static int bugreport_dir(const char *path)
{
	char me[4096];
	struct stat sb;

	snprintf(me, sizeof(me), "%s/main_entry.txt", path);
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && lstat(me, &sb) == 0 &&
	       S_ISREG(sb.st_mode);
}

/* One file: into a new object of list, j's tree, with --json (j not
 * NULL), else on stdout. */
static int inspect_one(const char *path, struct json *j, cJSON *list)
{
	struct ev_file f = { 0 };
	struct ev_error err = { 0, "" };
	struct input in;
	struct span head;
	cJSON *obj = NULL;
	enum ev_kind kind = EV_KIND_UNKNOWN;
	int rc, binary = 0;

	if (bugreport_dir(path))
		return inspect_bugreport(path, j, list);
	rc = input_init_file(&in, path, &err);
	if (rc == 0 && input_head(&in, &head) == 0) {
		binary = run_is_binary(head) || head.n == 0; /* seen before detection reads on */
		kind = ev_detect_named(&in, path);
	}
	if (rc == 0 && !in.failed && (kind == EV_KIND_ZIP || kind == EV_KIND_BUGREPORT)) {
		input_release(&in);
		return inspect_bugreport(path, j, list);
	}
	if (j) {
		obj = json_object(j, list, NULL);
		json_text(j, obj, "file", path);
	}
	if (rc != 0 || in.failed) {
		if (in.failed)
			err = in.err;
		if (j)
			json_text(j, obj, "kind", "unknown");
		input_failed(path, 1, &err, j, obj);
		input_release(&in);
		return -1;
	}
	if (j) {
		json_text(j, obj, "kind", ev_kind_name(kind));
		json_bool(j, obj, "gzipped", in.gzipped);
	}
	rc = -1;
	if (kind == EV_KIND_UNKNOWN) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(path), unknown_reason);
		if (j)
			json_text(j, obj, "error", unknown_reason);
		goto out;
	}
	if (kind == EV_KIND_RING) {
		rc = inspect_run(path, &in, binary, j, obj);
		input_release(&in);
		return rc;
	}
	if (ev_parse(kind, &in, &f, &err) != 0) {
		input_failed(path, in.failed, &err, j, obj);
		goto out;
	}
	f.gzipped = in.gzipped;
	print_file(path, &f, NULL, j, obj);
	rc = 0;
out:
	ev_file_release(&f);
	input_release(&in);
	return rc;
}

int cmd_inspect(int argc, char **argv)
{
	struct json j;
	cJSON *list = NULL;
	int json, rc, failed = 0, i;

	rc = parse_json_options(argc, argv, usage, "file", &json);
	if (rc >= 0)
		return rc;
	if (json)
		list = json_begin_array(&j);
	for (i = optind; i < argc; i++)
		if (inspect_one(argv[i], json ? &j : NULL, list) != 0)
			failed = 1;
	if (json && print_json_tree(json_end(&j), 1) != 0) {
		fprintf(stderr, "lastwords: out of memory\n");
		return LW_EXIT_INPUT;
	}
	return failed ? LW_EXIT_INPUT : LW_EXIT_OK;
}
