/*
 * ApplicationExitInfo.toString() as apps log it: "ApplicationExitInfo(" +
 * "timestamp=<date> pid=... trace=<path|null>" with no closing parenthesis,
 * anywhere in a line (a logcat message, a JSON string, a list's toString),
 * any number per line. The fields are the dump's (aei-fields.h). Inside a
 * JSON string the text is unescaped first (Gson writes '=' as \u003d).
 *
 * The date is SimpleDateFormat()'s default for the device's locale, with
 * minute precision: "24/07/2024, 01:38", "5/9/24, 8:44 AM",
 * "2024-07-24 01:38". It is kept as written and parsed only when the order
 * of its fields is unambiguous: year first, or a day above 12, or day and
 * month equal.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "aei-fields.h"
#include "json.h"
#include "input.h"
#include "parsers.h"
#include "text.h"

#define SNIFF_BYTES ((size_t)64 << 10)
#define AEI_OPEN "ApplicationExitInfo("

/* --- locale dates --- */

struct cursor {
	struct span s;
	size_t i;
};

/* A run of decimal digits (at most 4); its width in *w, 0 if none. */
static int64_t cur_num(struct cursor *c, size_t *w)
{
	int64_t v = 0;

	for (*w = 0; c->i < c->s.n && *w < 4 && c->s.s[c->i] >= '0' && c->s.s[c->i] <= '9'; (*w)++)
		v = v * 10 + (c->s.s[c->i++] - '0');
	return v;
}

static int cur_char(struct cursor *c, char ch)
{
	if (c->i < c->s.n && c->s.s[c->i] == ch) {
		c->i++;
		return 1;
	}
	return 0;
}

/* Spaces, commas, and the no-break spaces newer ICU puts before AM/PM. */
static void cur_blank(struct cursor *c)
{
	struct span r;

	for (;;) {
		r = span_from(c->s, c->i);
		if (span_starts(r, " ") || span_starts(r, ","))
			c->i++;
		else if (span_starts(r, "\xc2\xa0"))
			c->i += 2;
		else if (span_starts(r, "\xe2\x80\xaf"))
			c->i += 3;
		else
			return;
	}
}

/* "AM"/"PM" (any case, dots allowed): 0 AM, 12 PM, -1 none. */
static int cur_ampm(struct cursor *c)
{
	char a, m;

	if (c->i + 2 > c->s.n)
		return -1;
	a = (char)(c->s.s[c->i] | 0x20);
	if (a != 'a' && a != 'p')
		return -1;
	c->i++;
	cur_char(c, '.');
	m = c->i < c->s.n ? (char)(c->s.s[c->i] | 0x20) : 0;
	if (m != 'm')
		return -1;
	c->i++;
	cur_char(c, '.');
	return a == 'p' ? 12 : 0;
}

/* Year, month, day from three numbers in written order; 0 if ambiguous. */
static int ymd(const int64_t f[3], const size_t w[3], int64_t *y, int64_t *m, int64_t *d)
{
	if (w[0] == 4) {
		*y = f[0];
		*m = f[1];
		*d = f[2];
		return 1;
	}
	if (w[2] != 4 && w[2] != 2)
		return 0;
	*y = w[2] == 2 ? 2000 + f[2] : f[2];
	if (f[0] > 12 && f[1] <= 12) {
		*d = f[0];
		*m = f[1];
	} else if (f[1] > 12 && f[0] <= 12) {
		*m = f[0];
		*d = f[1];
	} else if (f[0] == f[1]) {
		*d = *m = f[0];
	} else {
		return 0;
	}
	return 1;
}

/* A toString() date as ms since the epoch (wall time taken as UTC), with
 * its precision; 0 when unreadable or ambiguous. */
static int short_datetime(struct span s, int64_t *ms, int64_t *precision)
{
	struct cursor c = { s, 0 };
	int64_t f[3], y, mo, d, h, mi, sec = 0;
	size_t w[3], wh, wm, ws = 0;
	char sep;
	int ampm;

	f[0] = cur_num(&c, &w[0]);
	sep = c.i < s.n ? s.s[c.i] : 0;
	if (!w[0] || (sep != '/' && sep != '-' && sep != '.') || !cur_char(&c, sep))
		return 0;
	f[1] = cur_num(&c, &w[1]);
	if (!w[1] || !cur_char(&c, sep))
		return 0;
	f[2] = cur_num(&c, &w[2]);
	if (!w[2] || !ymd(f, w, &y, &mo, &d))
		return 0;
	if (!cur_char(&c, 'T'))
		cur_blank(&c);
	h = cur_num(&c, &wh);
	if (!wh || !cur_char(&c, ':'))
		return 0;
	mi = cur_num(&c, &wm);
	if (wm != 2)
		return 0;
	if (cur_char(&c, ':')) {
		sec = cur_num(&c, &ws);
		if (ws != 2)
			return 0;
	}
	cur_blank(&c);
	ampm = cur_ampm(&c);
	if (ampm >= 0) {
		if (h < 1 || h > 12)
			return 0;
		h = h % 12 + ampm;
	}
	if (c.i != s.n || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59)
		return 0;
	*ms = ((text_days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60000 +
	      sec * 1000;
	*precision = ws ? 1000 : 60000;
	return 1;
}

/* --- records --- */

/* One record from the text after "ApplicationExitInfo(". */
static int tostring_record(struct ev_file *out, struct span seg, size_t lineno)
{
	struct span before, after;
	struct exit_record *r;
	int64_t ms;
	int n;

	if (!span_starts(seg, "timestamp=")) {
		ev_skip(&out->stats, lineno);
		return 0;
	}
	r = ev_add_exit(out);
	if (!r)
		return -1;
	r->line = lineno;
	r->timestamp_precision_ms = 60000;
	if (!aei_anr_split(seg, r, &before, &after))
		before = seg;
	n = aei_fields_parse(before, r);
	if (n < 0)
		return -1;
	if (r->timestamp_text) {
		r->timestamp_local = 1;
		if (short_datetime(span_of(r->timestamp_text, strlen(r->timestamp_text)), &ms,
				   &r->timestamp_precision_ms))
			r->timestamp_ms = ms;
	}
	return 0;
}

/* The length of the JSON string that starts at s.s[0] (a '"'), with its
 * quotes; 0 if it does not end in s. */
static size_t json_string_len(struct span s)
{
	size_t i;

	for (i = 1; i < s.n; i++) {
		if (s.s[i] == '\\')
			i++;
		else if (s.s[i] == '"')
			return i + 1;
	}
	return 0;
}

static int scan_text(struct ev_file *out, struct span text, size_t lineno, int decoded);

/* A JSON string that starts with a toString(): unescaped, then scanned.
 * Returns its length, 0 if it is not a readable JSON string, -1 on ENOMEM. */
static long scan_json_string(struct ev_file *out, struct span s, size_t lineno)
{
	size_t n = json_string_len(s);
	struct ev_error err;
	cJSON *str;
	int rc;

	/* json_check(): no \u0000 for cJSON to cut the text at */
	if (!n || json_check(s.s, n, 0, &err) != 0)
		return 0;
	str = cJSON_ParseWithLength(s.s, n);
	if (!cJSON_IsString(str)) {
		cJSON_Delete(str);
		return 0;
	}
	rc = scan_text(out, span_of(str->valuestring, strlen(str->valuestring)), lineno, 1);
	cJSON_Delete(str);
	return rc < 0 ? -1 : (long)n;
}

/* Every toString() in text: each runs to the next one or to the end, less
 * the separators of a list (", ", "]"). */
static int scan_text(struct ev_file *out, struct span text, size_t lineno, int decoded)
{
	long at, next, used;
	struct span seg;

	while ((at = span_find(text, AEI_OPEN)) >= 0) {
		if (!decoded && at > 0 && text.s[at - 1] == '"') {
			used = scan_json_string(out, span_from(text, (size_t)at - 1), lineno);
			if (used < 0)
				return -1;
			if (used > 0) {
				text = span_from(text, (size_t)at - 1 + (size_t)used);
				continue;
			}
		}
		text = span_from(text, (size_t)at + strlen(AEI_OPEN));
		next = span_find(text, AEI_OPEN);
		seg = span_of(text.s, next < 0 ? text.n : (size_t)next);
		seg = span_trim(seg);
		while (seg.n && memchr(",]}\"", seg.s[seg.n - 1], 4))
			seg = span_trim(span_of(seg.s, seg.n - 1));
		if (tostring_record(out, seg, lineno) != 0)
			return -1;
	}
	return 0;
}

int aei_tostring_sniff(const char *buf, size_t len)
{
	struct span head = span_of(buf, len < SNIFF_BYTES ? len : SNIFF_BYTES);

	return span_find(head, AEI_OPEN "timestamp") >= 0;
}

int aei_tostring_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct span line;
	int got;

	while ((got = input_line(in, &line)) > 0) {
		if (scan_text(out, line, in->lineno, 0) != 0) {
			err->line = in->lineno;
			strcpy(err->reason, "out of memory");
			return -1;
		}
	}
	if (got < 0)
		return input_error(in, err);
	out->stats.lines = in->lineno;
	return 0;
}
