/*
 * `dumpsys activity exit-info [package]`, in every layout AOSP has printed
 * (AppExitInfoTracker.dumpHistoryProcessExitInfo, ApplicationExitInfo.dump):
 *
 *   ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)
 *   Last Timestamp of Persistence Into Persistent Storage: <local time>
 *     package: <name>
 *       Historical Process Exit for uid=<uid>
 *           ApplicationExitInfo #<i>:
 *             <fields: three lines (Android 13+) or one per line (Android 11)>
 *
 * Indentation is not relied on: a full `dumpsys activity` adds two spaces,
 * dashed banners and other sections, which end the exit-info section. A
 * record is every field line after its "ApplicationExitInfo #i:" header,
 * up to the next header of any level; aei-fields.h has the field rules,
 * which this file implements for the toString() parser too. Lines of the
 * section that are not understood are counted and skipped.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "aei-fields.h"
#include "input.h"
#include "parsers.h"
#include "text.h"

#define SNIFF_BYTES ((size_t)64 << 10)

/* --- fields of one record (aei-fields.h) --- */

enum aei_value { V_INT, V_TEXT, V_NULLABLE, V_SIZE, V_STATE };

struct aei_key {
	const char *name;
	enum aei_value kind;
	size_t off;      /* the int64_t or char * it sets */
	size_t text_off; /* V_SIZE: the char * keeping the text as written */
};

#define AT(field) offsetof(struct exit_record, field)

static const struct aei_key aei_keys[] = {
	{ "timestamp", V_TEXT, AT(timestamp_text), 0 },
	{ "pid", V_INT, AT(pid), 0 },
	{ "realUid", V_INT, AT(real_uid), 0 },
	{ "packageUid", V_INT, AT(package_uid), 0 },
	{ "definingUid", V_INT, AT(defining_uid), 0 },
	{ "user", V_INT, AT(user), 0 },
	{ "process", V_TEXT, AT(process), 0 },
	{ "reason", V_INT, AT(reason), 0 },
	{ "subreason", V_INT, AT(subreason), 0 },
	{ "status", V_INT, AT(status), 0 },
	{ "importance", V_INT, AT(importance), 0 },
	{ "pss", V_SIZE, AT(pss_kb), AT(pss_text) },
	{ "rss", V_SIZE, AT(rss_kb), AT(rss_text) },
	{ "description", V_NULLABLE, AT(description), 0 },
	{ "state", V_STATE, AT(state_bytes), 0 },
	{ "trace", V_NULLABLE, AT(trace), 0 },
};

#undef AT

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_word(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '_';
}

/* The length of a key ("word=", rule 1) starting at s.s[i], without its
 * '='; 0 if none starts there. */
static size_t key_at(struct span s, size_t i)
{
	size_t j = i;

	if (i > 0 && s.s[i - 1] != ' ' && s.s[i - 1] != '\t')
		return 0;
	if (j >= s.n || !is_alpha(s.s[j]))
		return 0;
	while (j < s.n && is_word(s.s[j]))
		j++;
	return j < s.n && s.s[j] == '=' ? j - i : 0;
}

static const struct aei_key *key_lookup(const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(aei_keys) / sizeof(aei_keys[0]); i++)
		if (strlen(aei_keys[i].name) == n && memcmp(aei_keys[i].name, k, n) == 0)
			return &aei_keys[i];
	return NULL;
}

/* Offset of the first key named name in s, or -1. */
static long key_find(struct span s, const char *name)
{
	size_t i, kl, n = strlen(name);

	for (i = 0; i < s.n; i++) {
		kl = key_at(s, i);
		if (kl == n && memcmp(s.s + i, name, n) == 0)
			return (long)i;
		i += kl;
	}
	return -1;
}

/* Offset of the last needle in s, or -1. */
static long span_rfind(struct span s, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = s.n; i >= n && n > 0; i--)
		if (memcmp(s.s + i - n, needle, n) == 0)
			return (long)(i - n);
	return -1;
}

/* Where the last " <key>=" in s is followed by a value accepted by ok(),
 * or -1. */
static long last_key_with(struct span s, const char *needle, int (*ok)(struct span))
{
	struct span rest = s;
	long at;

	while ((at = span_rfind(rest, needle)) >= 0) {
		if (ok(span_from(s, (size_t)at + strlen(needle))))
			return at;
		rest.n = (size_t)at;
	}
	return -1;
}

static int is_digit_at0(struct span v)
{
	return v.n && v.s[0] >= '0' && v.s[0] <= '9';
}

static int state_value_ok(struct span v)
{
	return span_starts(v, "empty") || is_digit_at0(v);
}

static int trace_value_ok(struct span v)
{
	return span_starts(v, "null") || (v.n && v.s[0] == '/');
}

/* The length of the description that starts rest (rule 3). */
static size_t description_len(struct span rest)
{
	long at = last_key_with(rest, " state=", state_value_ok);

	if (at < 0)
		at = last_key_with(rest, " trace=", trace_value_ok);
	return at < 0 ? rest.n : (size_t)at;
}

static int set_text(char **slot, struct span v, int nullable)
{
	char *copy = NULL;

	if (!(nullable && span_eq(v, "null"))) {
		copy = ev_strndup(v.s, v.n);
		if (!copy)
			return -1;
	}
	free(*slot);
	*slot = copy;
	return 0;
}

int64_t aei_size_kb(struct span s)
{
	static const char units[] = "KMGTP";
	double v = 0, scale = 1.0 / 1024, frac = 1;
	size_t i = 0, digits = 0;
	const char *u;

	for (; i < s.n && s.s[i] >= '0' && s.s[i] <= '9' && digits < 15; i++, digits++)
		v = v * 10 + (s.s[i] - '0');
	if (i < s.n && (s.s[i] == '.' || s.s[i] == ','))
		for (i++; i < s.n && s.s[i] >= '0' && s.s[i] <= '9'; i++)
			v += (s.s[i] - '0') * (frac /= 10);
	if (i < s.n && (u = memchr(units, s.s[i] & ~0x20, 5)) != NULL) {
		for (scale = 1; u > units; u--)
			scale *= 1024;
		i++;
		if (i < s.n && (s.s[i] == 'B' || s.s[i] == 'b'))
			i++;
	}
	if (!digits || i != s.n || v == 0 || v * scale > 9.0e15)
		return EV_NONE;
	return v * scale < 1 ? 1 : (int64_t)(v * scale + 0.5);
}

static int set_value(struct exit_record *r, const struct aei_key *k, struct span v)
{
	int64_t *num = (int64_t *)(void *)((char *)r + k->off);
	char **text = (char **)(void *)((char *)r + k->off);
	int64_t x;

	v = span_trim(v);
	switch (k->kind) {
	case V_INT:
		if (span_int64(v, &x))
			*num = x;
		return 0;
	case V_TEXT:
	case V_NULLABLE:
		return set_text(text, v, k->kind == V_NULLABLE);
	case V_SIZE:
		*num = aei_size_kb(v);
		return set_text((char **)(void *)((char *)r + k->text_off), v, 0);
	case V_STATE:
		*num = span_int64(v, &x) && x > 0 ? x : EV_NONE;
		return 0;
	}
	return 0;
}

/* The fields of s, none of them a description (rule 1). */
static int parse_plain(struct span s, struct exit_record *r)
{
	const struct aei_key *cur = NULL;
	size_t i, kl, start = 0;
	int found = 0;

	for (i = 0; i <= s.n; i++) {
		kl = i < s.n ? key_at(s, i) : 0;
		if (i < s.n && !kl)
			continue;
		if (cur && set_value(r, cur, span_of(s.s + start, i - start)) != 0)
			return -1;
		if (i == s.n)
			break;
		cur = key_lookup(s.s + i, kl);
		found += cur != NULL;
		start = i + kl + 1;
		i += kl;
	}
	return found;
}

int aei_fields_parse(struct span seg, struct exit_record *r)
{
	static const char dkey[] = "description=";
	long d = key_find(seg, "description");
	struct span rest, tail = span_of(seg.s + seg.n, 0);
	int n = 0, m;
	size_t dn;

	if (d >= 0) {
		rest = span_from(seg, (size_t)d + sizeof(dkey) - 1);
		dn = description_len(rest);
		if (set_text(&r->description, span_of(rest.s, dn), 1) != 0)
			return -1;
		tail = span_from(rest, dn);
		seg.n = (size_t)d;
		n = 1;
	}
	if ((m = parse_plain(seg, r)) < 0)
		return -1;
	n += m;
	if ((m = parse_plain(tail, r)) < 0)
		return -1;
	return n + m;
}

/* --- anrInfo= (rule 6) --- */

static void anr_fields(struct span in, struct exit_record *r)
{
	struct span v;
	int64_t x;

	r->anr_info = 1;
	if (span_field(in, "anrId=", &v) && span_int64(v, &x))
		r->anr_id = x;
	if (span_field(in, "anrType=", &v) && span_int64(v, &x))
		r->anr_type = x;
	if (span_field(in, "timeoutMillis=", &v) && span_int64(v, &x))
		r->anr_timeout_ms = x;
	if (span_field(in, "isUserPerceptible=", &v))
		r->anr_user_perceptible = span_starts(v, "true")    ? 1
					  : span_starts(v, "false") ? 0
								    : EV_NONE;
}

/* The length of an anrInfo value at the start of v, 0 if it is not one. */
static size_t anr_value_len(struct span v)
{
	long close;

	if (span_starts(v, "null"))
		return 4;
	if (!span_starts(v, "AnrInfo("))
		return 0;
	close = span_find(v, ")");
	return close < 0 ? v.n : (size_t)close + 1;
}

int aei_anr_split(struct span line, struct exit_record *r, struct span *before,
		  struct span *after)
{
	static const char key[] = "anrInfo=";
	size_t at = 0, vn;
	struct span v;
	long hit;

	while ((hit = span_find(span_from(line, at), key)) >= 0) {
		at += (size_t)hit;
		v = span_from(line, at + sizeof(key) - 1);
		vn = anr_value_len(v);
		if (vn && (at == 0 || line.s[at - 1] == ' ' || line.s[at - 1] == '\t')) {
			if (r && v.s[0] == 'A')
				anr_fields(span_of(v.s + 8, vn - 8), r);
			*before = span_trim(span_of(line.s, at));
			*after = span_trim(span_from(v, vn));
			return 1;
		}
		at++;
	}
	return 0;
}

/* --- the dump --- */

struct dump_state {
	struct ev_file *out;
	size_t lineno;
	int in_section; /* inside the exit-info section */
	int open;       /* the last record of out takes field lines */
	char *package;  /* a copy: its line is gone when the records come */
	size_t package_n, package_cap;
	int64_t uid;
};

/* The package of the records that follow (a copy of p). 0, or -1 on ENOMEM. */
static int set_package(struct dump_state *st, struct span p)
{
	if (p.n > st->package_cap) {
		char *nv = realloc(st->package, p.n);

		if (!nv)
			return -1;
		st->package = nv;
		st->package_cap = p.n;
	}
	if (p.n)
		memcpy(st->package, p.s, p.n);
	st->package_n = p.n;
	return 0;
}

static int record_header(struct span t)
{
	static const char h[] = "ApplicationExitInfo #";
	int64_t i;
	size_t n;

	if (!span_starts(t, h))
		return 0;
	t = span_from(t, sizeof(h) - 1);
	n = span_int64(t, &i);
	return n && t.s[0] != '-' && t.s[0] != '+' && span_eq(span_from(t, n), ":");
}

/* A banner or the header of another section: the section ends. */
static int section_end(struct span t)
{
	size_t i;

	if (span_starts(t, "ACTIVITY MANAGER ") || span_starts(t, "DUMP OF SERVICE"))
		return 1;
	for (i = 0; i < t.n && t.s[i] == '-'; i++)
		;
	return i >= 3 && i == t.n;
}

static int open_record(struct dump_state *st)
{
	struct exit_record *r = ev_add_exit(st->out);

	if (!r)
		return -1;
	r->line = st->lineno;
	r->uid = st->uid;
	if (st->package_n && !(r->package = ev_strndup(st->package, st->package_n)))
		return -1;
	st->open = 1;
	st->in_section = 1;
	return 0;
}

static void new_container(struct dump_state *st, int in_section)
{
	st->open = 0;
	st->uid = EV_NONE;
	st->in_section = in_section;
}

static int dump_piece(struct dump_state *st, struct span t)
{
	static const char uid_h[] = "Historical Process Exit for uid=";
	int n;

	if (record_header(t))
		return open_record(st);
	if (span_starts(t, "ACTIVITY MANAGER PROCESS EXIT INFO")) {
		new_container(st, 1);
		st->package_n = 0;
		return 0;
	}
	if (section_end(t)) {
		new_container(st, 0);
		return 0;
	}
	if (span_starts(t, "package:")) {
		new_container(st, st->in_section);
		return set_package(st, span_trim(span_from(t, 8)));
	}
	if (span_starts(t, uid_h)) {
		new_container(st, 1);
		if (!span_int64(span_from(t, sizeof(uid_h) - 1), &st->uid))
			ev_skip(&st->out->stats, st->lineno);
		return 0;
	}
	if (st->in_section && span_starts(t, "Last Timestamp of Persistence"))
		return 0;
	if (st->open) {
		n = aei_fields_parse(t, &st->out->exits[st->out->nexits - 1]);
		if (n != 0)
			return n < 0 ? -1 : 0;
	}
	if (st->in_section)
		ev_skip(&st->out->stats, st->lineno);
	return 0;
}

/* One line: anrInfo= values cut out first, each applying to the record
 * before it, and what follows them (a glued header) read as a line. */
static int dump_line(struct dump_state *st, struct span line)
{
	struct span t = span_trim(line), before, after;
	struct exit_record *r;

	while (t.n) {
		r = st->open ? &st->out->exits[st->out->nexits - 1] : NULL;
		if (!aei_anr_split(t, r, &before, &after))
			return dump_piece(st, t);
		if (before.n && dump_piece(st, before) != 0)
			return -1;
		if (!r)
			ev_skip(&st->out->stats, st->lineno);
		t = after;
	}
	return 0;
}

/* Dump timestamps are local wall time, "yyyy-MM-dd HH:mm:ss.SSS". */
static void dump_times(struct ev_file *out, size_t first)
{
	struct exit_record *r;
	size_t i;
	int64_t ms;

	for (i = first; i < out->nexits; i++) {
		r = &out->exits[i];
		if (!r->timestamp_text)
			continue;
		r->timestamp_local = 1;
		if (text_parse_datetime(span_of(r->timestamp_text, strlen(r->timestamp_text)),
					&ms) == strlen(r->timestamp_text))
			r->timestamp_ms = ms;
	}
}

int aei_dump_sniff(const char *buf, size_t len)
{
	struct input in;
	struct span t;
	int found = 0;

	input_init_mem(&in, buf, len < SNIFF_BYTES ? len : SNIFF_BYTES);
	while (!found && input_line(&in, &t) > 0) {
		t = span_trim(t);
		/* A full `dumpsys activity`: its exit-info section may come
		 * later than the bytes looked at. */
		found = record_header(t) || span_starts(t, "ACTIVITY MANAGER PROCESS EXIT INFO") ||
			span_starts(t, "Historical Process Exit for uid=") ||
			(span_starts(t, "ACTIVITY MANAGER ") && span_find(t, "(dumpsys activity ") > 0);
	}
	input_release(&in);
	return found;
}

int aei_dump_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct dump_state st;
	size_t first = out->nexits, dropped = out->stats.dropped_exits;
	struct span line;
	int rc = 0, got = 0;

	memset(&st, 0, sizeof(st));
	st.out = out;
	st.uid = EV_NONE;
	while (rc == 0 && (got = input_line(in, &line)) > 0) {
		st.lineno = in->lineno;
		rc = dump_line(&st, line);
	}
	free(st.package);
	out->stats.lines = in->lineno;
	if (got < 0)
		return input_error(in, err);
	if (rc != 0) {
		err->line = in->lineno;
		strcpy(err->reason, "out of memory");
		return -1;
	}
	/* the records dropped to the cap were the first of the list */
	dropped = out->stats.dropped_exits - dropped;
	dump_times(out, first > dropped ? first - dropped : 0);
	return 0;
}
