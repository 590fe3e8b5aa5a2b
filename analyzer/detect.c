/* Which kind of evidence a file holds, from its content alone. */
#include <string.h>

#include <lastwords/ring.h>

#include "parsers.h"

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

enum ev_kind ev_detect(const char *buf, size_t len)
{
	size_t i;

	if (len >= LW_RING_MAGIC_LEN && memcmp(buf, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0)
		return EV_KIND_RING;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++)
		if (detectors[i].sniff(buf, len))
			return detectors[i].kind;
	return EV_KIND_UNKNOWN;
}

int ev_parse(enum ev_kind kind, const char *buf, size_t len, struct ev_file *out,
	     struct ev_error *err)
{
	size_t i;

	out->kind = kind;
	for (i = 0; i < sizeof(detectors) / sizeof(detectors[0]); i++)
		if (detectors[i].kind == kind)
			return detectors[i].parse(buf, len, out, err);
	err->line = 0;
	strcpy(err->reason, "no parser for this kind");
	return -1;
}
