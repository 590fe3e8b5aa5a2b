/*
 * The exit-info JSON an app writes itself from
 * ActivityManager.getHistoricalProcessExitReasons(), specified by
 * schemas/exit-info.schema.json: a list of records, or an object with
 * "records" and optional "packageName", "appVersion" and "device". Record
 * fields are named after the getters (pid, processName, reason, subReason,
 * status, importance, pss, rss, timestamp, description, ...), pss and rss in
 * kB, timestamp in ms since the epoch.
 *
 * Fields outside the schema, and fields of the wrong type, are stripped and
 * counted in stats.skipped, never stored; an element that is not an object
 * with an integer "reason" and a pid or processName is skipped whole.
 * Malformed JSON stops the file with the line and what was expected.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parsers.h"
#include "text.h"

#define SNIFF_BYTES ((size_t)64 << 10)

static const char *const top_keys[] = { "records", "packageName", "appVersion", "device", NULL };
static const char *const device_keys[] = { "manufacturer", "model", "sdkInt", "fingerprint",
					   NULL };
static const char *const record_keys[] = {
	"pid", "processName", "reason", "subReason", "status", "importance", "pss", "rss",
	"timestamp", "description", "realUid", "packageUid", "definingUid", "appVersion",
	"processStateSummary", "processStateSummaryLength", NULL,
};

/* Whitespace and a UTF-8 byte order mark before the first value. */
static size_t json_skip(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i;
}

static size_t line_of(const char *buf, const char *at)
{
	size_t line = 1;
	const char *p;

	for (p = buf; p < at; p++)
		line += *p == '\n';
	return line;
}

/* Whether "name" appears as a key (followed by ':') in s. */
static int has_key(struct span s, const char *quoted)
{
	long at;

	while ((at = span_find(s, quoted)) >= 0) {
		s = span_skip_spaces(span_from(s, (size_t)at + strlen(quoted)));
		while (s.n && (s.s[0] == '\n' || s.s[0] == '\r'))
			s = span_skip_spaces(span_from(s, 1));
		if (s.n && s.s[0] == ':')
			return 1;
	}
	return 0;
}

int aei_json_sniff(const char *buf, size_t len)
{
	size_t off = json_skip(buf, len);
	struct span head = span_of(buf, len < SNIFF_BYTES ? len : SNIFF_BYTES);

	return off < len && (buf[off] == '[' || buf[off] == '{') && has_key(head, "\"reason\"") &&
	       (span_find(head, "\"pid\"") >= 0 || span_find(head, "\"processName\"") >= 0);
}

/* --- where each record starts --- */

/* The line of every object that is an element of the records list (the
 * root array, or the root object's first "records"), in order; at most
 * cap of them. buf holds valid JSON (json_check). Returns NULL on ENOMEM;
 * free() it. */
static size_t *record_lines(const char *buf, size_t len, size_t cap, size_t *count)
{
	size_t depth = 0, rec_depth = 0, line = 1, i, n = 0;
	size_t *lines = calloc(cap ? cap : 1, sizeof(*lines));
	struct span last = { buf, 0 };
	int root_obj = 0, seen = 0;

	if (!lines)
		return NULL;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (c == '\n') {
			line++;
		} else if (c == '"') {
			size_t s = ++i;

			for (; i < len && buf[i] != '"'; i++) {
				line += buf[i] == '\n';
				i += buf[i] == '\\';
			}
			last = span_of(buf + s, i - s);
		} else if (c == '{' || c == '[') {
			if (depth == 0) {
				root_obj = c == '{';
				rec_depth = root_obj ? 0 : 1;
				seen = !root_obj;
			} else if (depth == rec_depth && c == '{' && n < cap) {
				lines[n++] = line;
			} else if (depth == 1 && root_obj && !seen && c == '[' &&
				   span_eq(last, "records")) {
				rec_depth = 2;
				seen = 1;
			}
			depth++;
		} else if ((c == '}' || c == ']') && depth > 0) {
			if (depth-- == rec_depth)
				rec_depth = 0;
		}
	}
	*count = n;
	return lines;
}

/* --- fields --- */

struct rec_ctx {
	struct ev_stats *st;
	size_t line;
};

/* Count (and so strip) the members of o whose names are not in allowed. */
static void strip_unknown(const cJSON *o, const char *const *allowed, struct rec_ctx *c)
{
	const cJSON *m;
	size_t k;

	cJSON_ArrayForEach(m, o) {
		for (k = 0; allowed[k]; k++)
			if (m->string && strcmp(m->string, allowed[k]) == 0)
				break;
		if (!allowed[k])
			ev_skip(c->st, c->line);
	}
}

static int is_int(const cJSON *v, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e15)
		return 0;
	*out = (int64_t)d;
	return 1;
}

/* An integer member into *out; a member of another type is stripped. */
static void get_int(const cJSON *o, const char *key, int64_t *out, struct rec_ctx *c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v && !is_int(v, out))
		ev_skip(c->st, c->line);
}

/* A string member (or null, where nullable) into *out; -1 on ENOMEM. */
static int get_str(const cJSON *o, const char *key, int nullable, char **out, struct rec_ctx *c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v || (nullable && cJSON_IsNull(v)))
		return 0;
	if (!cJSON_IsString(v)) {
		ev_skip(c->st, c->line);
		return 0;
	}
	*out = ev_strndup(v->valuestring, strlen(v->valuestring));
	return *out ? 0 : -1;
}

/* Zero kB, or a zero-length summary, means none (as the dump's "0.00",
 * "state=empty"). */
static void none_if_zero(int64_t *v)
{
	if (*v <= 0)
		*v = EV_NONE;
}

static int fill_record(const cJSON *o, struct exit_record *r, struct rec_ctx *c)
{
	char text[24];

	get_int(o, "pid", &r->pid, c);
	get_int(o, "subReason", &r->subreason, c);
	get_int(o, "status", &r->status, c);
	get_int(o, "importance", &r->importance, c);
	get_int(o, "pss", &r->pss_kb, c);
	get_int(o, "rss", &r->rss_kb, c);
	get_int(o, "realUid", &r->real_uid, c);
	get_int(o, "packageUid", &r->package_uid, c);
	get_int(o, "definingUid", &r->defining_uid, c);
	get_int(o, "appVersion", &r->app_version, c);
	get_int(o, "processStateSummaryLength", &r->state_bytes, c);
	none_if_zero(&r->pss_kb);
	none_if_zero(&r->rss_kb);
	none_if_zero(&r->state_bytes);
	get_int(o, "timestamp", &r->timestamp_ms, c);
	if (r->timestamp_ms != EV_NO_TIME) {
		snprintf(text, sizeof(text), "%" PRId64, r->timestamp_ms);
		if (!(r->timestamp_text = ev_strndup(text, strlen(text))))
			return -1;
	}
	if (get_str(o, "processName", 0, &r->process, c) != 0 ||
	    get_str(o, "description", 1, &r->description, c) != 0 ||
	    get_str(o, "processStateSummary", 1, &r->state, c) != 0)
		return -1;
	strip_unknown(o, record_keys, c);
	return 0;
}

/* Whether an element can be a record: an object with an integer reason
 * and a pid or a processName. */
static int record_ok(const cJSON *o, int64_t *reason)
{
	return cJSON_IsObject(o) && is_int(cJSON_GetObjectItemCaseSensitive(o, "reason"), reason) &&
	       (cJSON_GetObjectItemCaseSensitive(o, "pid") ||
		cJSON_GetObjectItemCaseSensitive(o, "processName"));
}

/* --- the file --- */

struct top {
	const cJSON *records;
	char *package;
	int64_t app_version;
	int64_t sdk;     /* device.sdkInt; 0: not given */
};

static int fail(struct ev_error *err, size_t line, const char *reason)
{
	err->line = line;
	snprintf(err->reason, sizeof(err->reason), "%s", reason);
	return -1;
}

static int read_top(const cJSON *root, struct top *t, struct rec_ctx *c, struct ev_error *err)
{
	const cJSON *dev;

	t->records = root;
	if (cJSON_IsArray(root))
		return 0;
	if (!cJSON_IsObject(root))
		return fail(err, c->line, "expected a JSON list of exit records or an object "
					  "with \"records\"");
	t->records = cJSON_GetObjectItemCaseSensitive(root, "records");
	if (!cJSON_IsArray(t->records))
		return fail(err, c->line, "expected \"records\": a JSON list of exit records");
	strip_unknown(root, top_keys, c);
	get_int(root, "appVersion", &t->app_version, c);
	if (get_str(root, "packageName", 0, &t->package, c) != 0)
		return fail(err, 0, "out of memory");
	dev = cJSON_GetObjectItemCaseSensitive(root, "device");
	if (dev && !cJSON_IsObject(dev))
		ev_skip(c->st, c->line);
	else if (dev)
		strip_unknown(dev, device_keys, c);
	if (dev && cJSON_IsObject(dev))
		get_int(dev, "sdkInt", &t->sdk, c);
	return 0;
}

static int add_records(const struct top *t, const size_t *lines, size_t nlines,
		       struct ev_file *out, struct ev_error *err)
{
	struct rec_ctx c = { &out->stats, 0 };
	struct exit_record *r;
	const cJSON *item;
	size_t obj = 0;
	int64_t reason;

	cJSON_ArrayForEach(item, t->records) {
		c.line = cJSON_IsObject(item) && obj < nlines ? lines[obj] : 0;
		obj += cJSON_IsObject(item);
		if (!record_ok(item, &reason)) {
			ev_skip(&out->stats, c.line);
			continue;
		}
		if (!(r = ev_add_exit(out)))
			return fail(err, 0, "out of memory");
		r->line = c.line;
		r->reason = reason;
		r->app_version = t->app_version;
		if (t->package && !(r->package = ev_strndup(t->package, strlen(t->package))))
			return fail(err, 0, "out of memory");
		if (fill_record(item, r, &c) != 0)
			return fail(err, 0, "out of memory");
	}
	return 0;
}

int aei_json_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err)
{
	size_t off = json_skip(buf, len), nlines = 0, *lines = NULL, i;
	struct top t = { NULL, NULL, EV_NONE, 0 };
	struct rec_ctx c = { &out->stats, line_of(buf, buf + off) };
	cJSON *root;
	int rc = -1;

	out->stats.lines = line_of(buf, buf + len) - (len && buf[len - 1] == '\n');
	root = json_read(buf, len, off, err);
	if (!root)
		return -1;
	if (read_top(root, &t, &c, err) != 0)
		goto out_root;
	lines = record_lines(buf + off, len - off, (size_t)cJSON_GetArraySize(t.records), &nlines);
	for (i = 0; lines && i < nlines; i++)
		lines[i] += c.line - 1;
	rc = add_records(&t, lines, nlines, out, err);
	out->device_sdk = t.sdk > 0 ? t.sdk : 0;
	free(lines);
	free(t.package);
out_root:
	cJSON_Delete(root);
	return rc;
}
