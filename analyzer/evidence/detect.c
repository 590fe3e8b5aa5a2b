/* Which kind of evidence a file holds, from its content alone. */
#include <stdlib.h>
#include <string.h>

#include <lastwords/ring.h>

#include "../../src/ring.h"
#include "bugreport.h"
#include "json.h"
#include "parsers.h"
#include "text.h"
#include "zipfile.h"

struct detector {
	enum ev_kind kind;
	int (*sniff)(const char *buf, size_t len);
	/* one of: */
	int (*parse)(struct input *in, struct ev_file *out, struct ev_error *err);
	int (*parse_whole)(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);
};

/* Most specific first: JSON by its keys; a tombstone or an ANR trace even
 * when logcat prefixes its lines; the exit-info formats; the event log
 * before logcat, whose line shapes it shares. */
static const struct detector detectors[] = {
	{ EV_KIND_SEED_EVENTS, seed_sniff, NULL, seed_parse },
	{ EV_KIND_EXIT_INFO_JSON, aei_json_sniff, NULL, aei_json_parse },
	{ EV_KIND_TOMBSTONE, tombstone_sniff, tombstone_parse, NULL },
	{ EV_KIND_ANR_TRACE, anr_sniff, anr_parse, NULL },
	{ EV_KIND_EXIT_INFO_DUMP, aei_dump_sniff, aei_dump_parse, NULL },
	{ EV_KIND_EXIT_INFO_TOSTRING, aei_tostring_sniff, aei_tostring_parse, NULL },
	{ EV_KIND_EVENT_LOG, eventlog_sniff, eventlog_parse, NULL },
	{ EV_KIND_LOGCAT, logcat_sniff, logcat_parse, NULL },
};

/* Whether head begins {"type": "ring", spaced as any JSON writer does. */
static int begins_ring(struct span head)
{
	static const char *const parts[] = { "{", "\"type\"", ":", "\"ring\"" };
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		head = span_skip_spaces(head);
		if (!span_starts(head, parts[i]))
			return 0;
		head = span_from(head, strlen(parts[i]));
	}
	return 1;
}

/* A ring as JSON values (lastwords dump --json, or written by hand or by
 * any JSON writer): the first value, whole in the first bytes, is an
 * object with "type": "ring", whatever its spacing and member order. */
static int ring_json_sniff(const char *buf, size_t len)
{
	struct span head = span_skip_spaces(span_of(buf, len));
	struct json_stream js;
	struct ev_error err;
	struct input in;
	cJSON *first = NULL;
	size_t line;
	int ring, got;

	while (head.n && (head.s[0] == '\n' || head.s[0] == '\r'))
		head = span_skip_spaces(span_from(head, 1));
	if (!span_starts(head, "{"))
		return 0;
	input_init_mem(&in, head.s, head.n);
	json_stream_init(&js, &in);
	got = json_stream_next(&js, &first, &line, &err);
	ring = got > 0 &&
	       strcmp(json_get_string(first, "type") ? json_get_string(first, "type") : "", "ring") == 0;
	/* a first value that JSON refuses (a \u0000, bad UTF-8, too deep)
	 * but begins as a ring's: the ring reader names what is wrong */
	if (got < 0 && !js.in->failed)
		ring = begins_ring(head);
	cJSON_Delete(first);
	json_stream_release(&js);
	input_release(&in);
	return ring;
}

static int all_zero(struct span s)
{
	return s.n && s.s[0] == 0 && memcmp(s.s, s.s + 1, s.n - 1) == 0;
}

/* Whether the rest of in, after first bytes all zero, makes a blank ring:
 * all zero, of a ring's size (a ring never initialized). Reads it all. */
static int blank_ring(struct input *in)
{
	uint64_t size = 0;
	struct span c;
	int zero = 1, rc;

	while ((rc = input_chunk(in, &c)) > 0) {
		zero = zero && all_zero(c);
		size += c.n;
	}
	return rc == 0 && zero && ring_slots_for_size(size);
}

enum ev_kind ev_detect(struct input *in)
{
	struct span head;
	size_t i;

	if (input_head(in, &head) != 0)
		return EV_KIND_UNKNOWN;
	if ((head.n >= LW_RING_MAGIC_LEN && memcmp(head.s, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0) ||
	    ring_json_sniff(head.s, head.n))
		return EV_KIND_RING;
	/* Containers of other inputs, known by their first bytes. */
	if (zipfile_sniff(head.s, head.n))
		return EV_KIND_ZIP;
	if (bugreport_sniff(head.s, head.n))
		return EV_KIND_BUGREPORT;
	/* Zero bytes are no text: a blank ring, or nothing known. */
	if (all_zero(head))
		return blank_ring(in) ? EV_KIND_RING : EV_KIND_UNKNOWN;
	/* debuggerd's protobuf, by its first fields (a text has none such) */
	if (tombstone_proto_sniff(head.s, head.n))
		return EV_KIND_TOMBSTONE;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++)
		if (detectors[i].sniff(head.s, head.n))
			return detectors[i].kind;
	return EV_KIND_UNKNOWN;
}

enum ev_kind ev_detect_named(struct input *in, const char *name)
{
	static const char suffix[] = ".lwr";
	size_t n = strlen(name);
	struct span head;

	if (input_head(in, &head) == 0 && head.n == 0 && !in->gzipped && n >= sizeof(suffix) - 1 &&
	    strcmp(name + n - (sizeof(suffix) - 1), suffix) == 0)
		return EV_KIND_RING;
	return ev_detect(in);
}

/* A logcat that holds a tombstone or toString() lines is read as that kind,
 * and also, read again, as logcat, so its lmkd, ActivityManager and crash
 * lines are kept. */
static int add_logcat_events(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct ev_file logs = { 0 };
	size_t frames = out->stats.cut_frames, threads = out->stats.cut_threads, t;

	if (input_rewind(in) != 0)
		return input_error(in, err);
	if (logcat_parse(in, &logs, err) != 0) {
		ev_file_release(&logs);
		/* the main kind was read; its records stand, unless the file
		 * could not be read again */
		return in->failed ? -1 : 0;
	}
	out->logs = logs.logs;
	out->nlogs = logs.nlogs;
	if (out->kind == EV_KIND_TOMBSTONE) {
		/* The tombstone parser counts every non-DEBUG line as not
		 * understood; logcat understands them all. */
		size_t tombstones = out->stats.dropped_tombstones;

		out->stats = logs.stats;
		out->stats.cut_frames = frames;
		out->stats.cut_threads = threads;
		out->stats.dropped_tombstones = tombstones;
	} else {
		out->stats.skipped += logs.stats.skipped;
		out->stats.cut_java_frames += logs.stats.cut_java_frames;
		for (t = 0; t < LOG_EVENT_COUNT; t++)
			out->stats.dropped_logs[t] += logs.stats.dropped_logs[t];
		if (logs.stats.first_skipped &&
		    (!out->stats.first_skipped || logs.stats.first_skipped < out->stats.first_skipped))
			out->stats.first_skipped = logs.stats.first_skipped;
	}
	logs.logs = NULL;
	logs.nlogs = 0;
	ev_file_release(&logs);
	return 0;
}

/* Was this tombstone or toString() file read out of a logcat? (A plain
 * tombstone's own log section does not count.) */
static int logcat_wrapped(enum ev_kind kind, const struct ev_file *f)
{
	size_t i;

	if (kind == EV_KIND_EXIT_INFO_TOSTRING)
		return 1;
	for (i = 0; kind == EV_KIND_TOMBSTONE && i < f->ntombstones; i++)
		if (f->tombstones[i].logcat_prefixed)
			return 1;
	return 0;
}

/* A JSON format: the whole file, up to INPUT_JSON_MAX. */
static int parse_whole(const struct detector *d, struct input *in, struct ev_file *out,
		       struct ev_error *err)
{
	size_t len;
	char *buf = input_whole(in, INPUT_JSON_MAX, INPUT_JSON_LIMIT, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = d->parse_whole(buf, len, out, err);
	free(buf);
	return rc;
}

int ev_parse(enum ev_kind kind, struct input *in, struct ev_file *out, struct ev_error *err)
{
	const struct detector *d = NULL;
	struct span head;
	int rc, looks_logcat = 0, proto = 0;
	size_t i;

	out->kind = kind;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++)
		if (detectors[i].kind == kind)
			d = &detectors[i];
	if (!d) {
		/* a ring, or a container of other inputs (bundle.c reads them) */
		err->line = 0;
		strcpy(err->reason, "no parser for this kind");
		return -1;
	}
	/* Looked at before the parse reads past the first bytes. */
	if (kind == EV_KIND_TOMBSTONE || kind == EV_KIND_EXIT_INFO_TOSTRING) {
		if (input_head(in, &head) != 0)
			return input_error(in, err);
		looks_logcat = logcat_sniff(head.s, head.n);
		proto = kind == EV_KIND_TOMBSTONE && tombstone_proto_sniff(head.s, head.n);
	}
	if (proto)
		rc = tombstone_proto_parse_input(in, out, err);
	else
		rc = d->parse ? d->parse(in, out, err) : parse_whole(d, in, out, err);
	if (rc == 0 && out->nlogs == 0 && looks_logcat && logcat_wrapped(kind, out)) {
		out->in_logcat = 1;
		rc = add_logcat_events(in, out, err);
	}
	out->stats.cut_lines = in->cut_lines;
	out->stats.first_cut = in->first_cut;
	ev_cap(out);
	return rc;
}
