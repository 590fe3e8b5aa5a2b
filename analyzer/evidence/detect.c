/* Which kind of evidence a file holds, from its content alone. */
#include <string.h>

#include <lastwords/ring.h>

#include "../../src/ring.h"
#include "parsers.h"
#include "text.h"

struct detector {
	enum ev_kind kind;
	int (*sniff)(const char *buf, size_t len);
	int (*parse)(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);
};

/* Most specific first: JSON by its keys; a tombstone or an ANR trace even
 * when logcat prefixes its lines; the exit-info formats; the event log
 * before logcat, whose line shapes it shares. */
static const struct detector detectors[] = {
	{ EV_KIND_SEED_EVENTS, seed_sniff, seed_parse },
	{ EV_KIND_EXIT_INFO_JSON, aei_json_sniff, aei_json_parse },
	{ EV_KIND_TOMBSTONE, tombstone_sniff, tombstone_parse },
	{ EV_KIND_ANR_TRACE, anr_sniff, anr_parse },
	{ EV_KIND_EXIT_INFO_DUMP, aei_dump_sniff, aei_dump_parse },
	{ EV_KIND_EXIT_INFO_TOSTRING, aei_tostring_sniff, aei_tostring_parse },
	{ EV_KIND_EVENT_LOG, eventlog_sniff, eventlog_parse },
	{ EV_KIND_LOGCAT, logcat_sniff, logcat_parse },
};

/* The JSON lines of a ring (lastwords dump --json): a first line of
 * "type":"ring". */
static int ring_json_sniff(const char *buf, size_t len)
{
	struct span head = span_of(buf, len < 4096 ? len : 4096);
	long nl = span_find(head, "\n");
	struct span first = nl >= 0 ? span_of(buf, (size_t)nl) : head;

	first = span_trim(first);
	return span_starts(first, "{") && span_find(first, "\"type\":\"ring\"") >= 0 &&
	       span_find(first, "\"slot_count\"") >= 0;
}

enum ev_kind ev_detect(const char *buf, size_t len)
{
	size_t i;

	/* A blank ring is one too (never initialized: all zero). */
	if ((len >= LW_RING_MAGIC_LEN && memcmp(buf, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0) ||
	    ring_is_blank(buf, len) || ring_json_sniff(buf, len))
		return EV_KIND_RING;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++)
		if (detectors[i].sniff(buf, len))
			return detectors[i].kind;
	return EV_KIND_UNKNOWN;
}

/* A logcat that holds a tombstone or toString() lines is read as that kind,
 * and also as logcat, so its lmkd, ActivityManager and crash lines are kept. */
static int add_logcat_events(const char *buf, size_t len, struct ev_file *out,
			     struct ev_error *err)
{
	struct ev_file logs = { 0 };

	if (logcat_parse(buf, len, &logs, err) != 0) {
		ev_file_release(&logs);
		return 0; /* the main kind was read; its records stand */
	}
	out->logs = logs.logs;
	out->nlogs = logs.nlogs;
	if (out->kind == EV_KIND_TOMBSTONE) {
		/* The tombstone parser counts every non-DEBUG line as not
		 * understood; logcat understands them all. */
		out->stats = logs.stats;
	} else {
		out->stats.skipped += logs.stats.skipped;
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

int ev_parse(enum ev_kind kind, const char *buf, size_t len, struct ev_file *out,
	     struct ev_error *err)
{
	size_t i;
	int rc;

	out->kind = kind;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++) {
		if (detectors[i].kind != kind)
			continue;
		rc = detectors[i].parse(buf, len, out, err);
		if (rc == 0 && out->nlogs == 0 && logcat_wrapped(kind, out) &&
		    logcat_sniff(buf, len)) {
			out->in_logcat = 1;
			rc = add_logcat_events(buf, len, out, err);
		}
		return rc;
	}
	err->line = 0;
	strcpy(err->reason, "no parser for this kind");
	return -1;
}
