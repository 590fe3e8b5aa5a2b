/*
 * lastwords check's expectations (expect.h). The file's rules are those of
 * schemas/expect.schema.json, written here as data: a shape per value (the
 * JSON types it may have, the names a string may be, an array's items, an
 * object's members), walked once over the file. tests/check-schema.py
 * feeds the same files to both and checks that they accept and refuse
 * alike.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "classify.h"
#include "evidence/input.h"
#include "evidence/json.h"
#include "expect.h"

/* --- the file's rules ------------------------------------------------------ */

enum {
	T_NULL = 1,
	T_BOOL = 2,
	T_INT = 4, /* a number without a fraction */
	T_NUM = 8, /* any number */
	T_STR = 16,
	T_ARR = 32,
	T_OBJ = 64,
};

struct shape;

struct member {
	const char *name;
	const struct shape *shape;
};

/* A value's rules. Those of a kind apply to values of that kind: a shape
 * that takes a string or a list of them has both the string's rules and
 * its items. */
struct shape {
	unsigned types;
	/* a string: one of the names of vocab (and "unknown" when unknown is
	 * set), one of names, or one that ok() accepts; what names them */
	const struct vocab *vocab;
	int unknown;
	const char *const *names;
	int (*ok)(const char *s);
	const char *what;
	size_t min_len;
	/* an integer: min <= v <= max when bounded */
	int bounded;
	double min, max;
	/* an array */
	const struct shape *items;
	size_t min_items;
	/* an object: its only members; rule() says what else it breaks, or
	 * NULL */
	const struct member *members;
	const char *(*rule)(const cJSON *o);
};

static int hex_digits(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

static int is_digest(const char *s)
{
	return hex_digits(s, 16);
}

static int is_run_id(const char *s)
{
	return hex_digits(s, 32);
}

static int is_rule(const char *s)
{
	size_t i;

	for (i = 0; i < nrules; i++)
		if (strcmp(rules[i].id, s) == 0)
			return 1;
	return 0;
}

/* A run is chosen by its process and pid, or its run id. */
static const char *run_rule(const cJSON *o)
{
	int process = cJSON_HasObjectItem(o, "process"), pid = cJSON_HasObjectItem(o, "pid");

	if (process != pid)
		return process ? "\"process\" without \"pid\"" : "\"pid\" without \"process\"";
	if (!process && !cJSON_HasObjectItem(o, "run_id"))
		return "a run needs \"process\" and \"pid\", or \"run_id\"";
	return NULL;
}

static const char *const session_states[] = { "open", "closed", NULL };
static const char *const joined_bys[] = { "run id", "process, pid and time", NULL };
static const char *const tz_sources[] = { "none", "option", "manifest", "bugreport", "tombstone",
					  "anr_trace", NULL };
static const char *const unmatched_whys[] = { "no_process", "no_run_of_process", "no_run_with_pid",
					      "other_version", "outside_window", "no_time",
					      "ambiguous", "tz_unknown", "other_package", NULL };

static const struct shape s_any_string = { .types = T_STR };
static const struct shape s_text = { .types = T_STR, .min_len = 1 };
static const struct shape s_string_or_null = { .types = T_STR | T_NULL };
static const struct shape s_bool = { .types = T_BOOL };
static const struct shape s_int = { .types = T_INT };
static const struct shape s_number_or_null = { .types = T_NUM | T_NULL };
static const struct shape s_count = { .types = T_INT, .bounded = 1, .min = 0, .max = INFINITY };
static const struct shape s_pid = { .types = T_INT, .bounded = 1, .min = 0, .max = INFINITY };
static const struct shape s_status = { .types = T_INT, .bounded = 1, .min = 0, .max = 255 };
static const struct shape s_texts = { .types = T_ARR, .items = &s_any_string };
static const struct shape s_ints = { .types = T_ARR, .items = &s_int };
static const struct shape s_strings_or_null = { .types = T_ARR, .items = &s_string_or_null };

static const struct shape s_class = { .types = T_STR | T_NULL, .vocab = &vocab_exit_classes,
				      .what = "an exit class" };
static const struct shape s_classes = { .types = T_STR | T_NULL | T_ARR,
					.vocab = &vocab_exit_classes, .what = "an exit class",
					.items = &s_class, .min_items = 1 };
static const struct shape s_level = { .types = T_STR | T_NULL, .vocab = &vocab_evidence_levels,
				      .what = "an evidence level" };
static const struct shape s_levels = { .types = T_STR | T_NULL | T_ARR,
				       .vocab = &vocab_evidence_levels,
				       .what = "an evidence level", .items = &s_level,
				       .min_items = 1 };
static const struct shape s_action = { .types = T_STR, .vocab = &vocab_actions,
				       .what = "a recovery action" };
static const struct shape s_actions = { .types = T_ARR, .items = &s_action };
static const struct shape s_stage = { .types = T_STR, .vocab = &vocab_stages, .unknown = 1,
				      .what = "a stage" };
static const struct shape s_stages = { .types = T_ARR, .items = &s_stage };
static const struct shape s_error_or_null = { .types = T_STR | T_NULL, .vocab = &vocab_errors,
					      .unknown = 1, .what = "an error class" };
static const struct shape s_rule = { .types = T_STR, .ok = is_rule,
				     .what = "a rule id (lastwords rules)" };
static const struct shape s_rules = { .types = T_ARR, .items = &s_rule };
static const struct shape s_digest = { .types = T_STR, .ok = is_digest,
				       .what = "a digest (16 hex digits)" };
static const struct shape s_digest_or_null = { .types = T_STR | T_NULL, .ok = is_digest,
					       .what = "a digest (16 hex digits)" };
static const struct shape s_digests = { .types = T_ARR, .items = &s_digest };
static const struct shape s_run_id = { .types = T_STR, .ok = is_run_id,
				       .what = "a run id (32 hex digits)" };
static const struct shape s_joined_by = { .types = T_STR, .names = joined_bys,
					  .what = "\"run id\" or \"process, pid and time\"" };
static const struct shape s_joined_bys = { .types = T_ARR, .items = &s_joined_by };

static const struct member exit_record_members[] = {
	{ "file", &s_any_string },     { "line", &s_int },       { "reason", &s_int },
	{ "subreason", &s_int },       { "status", &s_int },     { "importance", &s_int },
	{ "timestamp", &s_string_or_null }, { "description", &s_string_or_null },
	{ "joined_by", &s_joined_by }, { NULL, NULL },
};
static const struct shape s_exit_record = { .types = T_OBJ, .members = exit_record_members };
static const struct shape s_joins = { .types = T_OBJ | T_ARR, .members = exit_record_members,
				      .items = &s_exit_record };

static const struct shape s_session_state = { .types = T_STR, .names = session_states,
					      .what = "open or closed" };
static const struct member session_members[] = {
	{ "id", &s_int },
	{ "candidate", &s_digest_or_null },
	{ "state", &s_session_state },
	{ "opens", &s_int },
	{ "opened_ms", &s_number_or_null },
	{ "closed_ms", &s_number_or_null },
	{ "result", &s_error_or_null },
	{ "open_stages", &s_stages },
	{ "peak_kb", &s_int },
	{ "peak_stage", &s_stage },
	{ NULL, NULL },
};
static const struct shape s_session = { .types = T_OBJ, .members = session_members };
static const struct shape s_sessions = { .types = T_ARR, .items = &s_session };

static const struct member run_members[] = {
	{ "process", &s_text },
	{ "pid", &s_pid },
	{ "run_id", &s_run_id },
	{ "classification", &s_classes },
	{ "evidence_level", &s_levels },
	{ "rules", &s_rules },
	{ "rules_fired", &s_rules },
	{ "rules_not_fired", &s_rules },
	{ "actions", &s_actions },
	{ "actions_required", &s_actions },
	{ "actions_forbidden", &s_actions },
	{ "exit_records", &s_count },
	{ "joins", &s_joins },
	{ "joined_by", &s_joined_bys },
	{ "exit_timestamps", &s_strings_or_null },
	{ "contradiction", &s_bool },
	{ "stage_open", &s_bool },
	{ "last_stage", &s_stage },
	{ "evidence_match", &s_texts },
	{ "missing_match", &s_texts },
	{ "recovery_match", &s_texts },
	{ "resident_candidates", &s_digests },
	{ "sessions", &s_sessions },
	{ NULL, NULL },
};
static const struct shape s_run = { .types = T_OBJ, .members = run_members, .rule = run_rule };
static const struct shape s_runs = { .types = T_ARR, .items = &s_run };

static const struct member boot_loop_members[] = {
	{ "process", &s_any_string }, { "stage", &s_stage }, { "candidate", &s_digest_or_null },
	{ "count", &s_int },          { "pids", &s_ints },   { "actions", &s_actions },
	{ NULL, NULL },
};
static const struct shape s_boot_loop = { .types = T_OBJ, .members = boot_loop_members };
static const struct shape s_boot_loops = { .types = T_ARR, .items = &s_boot_loop };

static const struct shape s_why = { .types = T_STR, .names = unmatched_whys,
				    .what = "a reason of unmatched_exit_records" };
static const struct member unmatched_members[] = {
	{ "file", &s_any_string }, { "line", &s_int },     { "pid", &s_int },
	{ "process", &s_string_or_null }, { "reason", &s_int }, { "timestamp", &s_string_or_null },
	{ "why", &s_why },         { "why_text", &s_any_string }, { NULL, NULL },
};
static const struct shape s_unmatched = { .types = T_OBJ, .members = unmatched_members };
static const struct shape s_unmatcheds = { .types = T_ARR, .items = &s_unmatched };

static const struct shape s_tz_source = { .types = T_STR, .names = tz_sources,
					  .what = "a time zone source" };
static const struct member timezone_members[] = {
	{ "offset_minutes", &s_int }, { "name", &s_string_or_null },
	{ "source", &s_tz_source },   { "assumed", &s_bool },
	{ NULL, NULL },
};
static const struct shape s_timezone = { .types = T_OBJ, .members = timezone_members };

/* The members about a report, at the top and in without_args. */
#define REPORT_MEMBERS                                                                     \
	{ "exit_status", &s_status }, { "run_count", &s_count }, { "runs", &s_runs },      \
		{ "boot_loops", &s_boot_loops }, { "unmatched_exit_records", &s_unmatcheds }, \
		{ "timezone", &s_timezone }, { "device_notes", &s_texts }

static const struct member report_members[] = { REPORT_MEMBERS, { NULL, NULL } };
static const struct shape s_report = { .types = T_OBJ, .members = report_members };
static const struct shape s_ring_forms = { .types = T_ARR, .items = &s_text, .min_items = 1 };

static const struct member top_members[] = {
	{ "about", &s_any_string },
	REPORT_MEMBERS,
	{ "ring_forms", &s_ring_forms },
	{ "without_args", &s_report },
	{ NULL, NULL },
};
static const struct shape s_top = { .types = T_OBJ, .members = top_members };

/* The JSON pointer of the value being checked, built as the walk descends. */
struct where {
	char path[512];
	struct ev_error *err;
};

static const char *type_name(const cJSON *v)
{
	return cJSON_IsNull(v)     ? "null"
	       : cJSON_IsBool(v)   ? "a boolean"
	       : cJSON_IsNumber(v) ? "a number"
	       : cJSON_IsString(v) ? "a string"
	       : cJSON_IsArray(v)  ? "a list"
				   : "an object";
}

static const char *types_wanted(unsigned t)
{
	static const struct {
		unsigned t;
		const char *s;
	} names[] = {
		{ T_STR | T_NULL | T_ARR, "a string, null or a list" },
		{ T_OBJ | T_ARR, "an object or a list" },
		{ T_STR | T_NULL, "a string or null" },
		{ T_NUM | T_NULL, "a number or null" },
		{ T_NULL, "null" },   { T_BOOL, "true or false" }, { T_INT, "an integer" },
		{ T_NUM, "a number" }, { T_STR, "a string" },       { T_ARR, "a list" },
		{ T_OBJ, "an object" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].t == t)
			return names[i].s;
	return "another type";
}

static int bad(struct where *w, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->err->line = 0;
	snprintf(w->err->reason, sizeof(w->err->reason), "%.100s: %.130s", w->path[0] ? w->path : "/", msg);
	return -EINVAL;
}

static unsigned kind_of(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return T_NULL;
	if (cJSON_IsBool(v))
		return T_BOOL;
	if (cJSON_IsNumber(v))
		return isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble)
			       ? T_INT | T_NUM
			       : T_NUM;
	if (cJSON_IsString(v))
		return T_STR;
	return cJSON_IsArray(v) ? T_ARR : T_OBJ;
}

static int check_value(const cJSON *v, const struct shape *s, struct where *w);

static int check_string(const char *str, const struct shape *s, struct where *w)
{
	size_t i;

	if (strlen(str) < s->min_len)
		return bad(w, "an empty string");
	if (s->vocab && vocab_value(s->vocab, str) < 0 && !(s->unknown && strcmp(str, "unknown") == 0))
		return bad(w, "'%s' is not %s", str, s->what);
	if (s->names) {
		for (i = 0; s->names[i] && strcmp(s->names[i], str) != 0; i++)
			;
		if (!s->names[i])
			return bad(w, "'%s' is not %s", str, s->what);
	}
	if (s->ok && !s->ok(str))
		return bad(w, "'%s' is not %s", str, s->what);
	return 0;
}

/* Descend into member key (or element i, key NULL) of the value at w. */
static int check_in(const cJSON *v, const char *key, size_t i, const struct shape *s,
		    struct where *w)
{
	size_t len = strlen(w->path);
	int rc;

	if (key) {
		/* RFC 6901: ~ and / of a key escaped. */
		char *p = w->path + len, *end = w->path + sizeof(w->path) - 3;

		*p++ = '/';
		for (; *key && p < end; key++) {
			if (*key == '~' || *key == '/') {
				*p++ = '~';
				*p++ = *key == '~' ? '0' : '1';
			} else {
				*p++ = *key;
			}
		}
		*p = '\0';
	} else {
		snprintf(w->path + len, sizeof(w->path) - len, "/%zu", i);
	}
	rc = check_value(v, s, w);
	w->path[len] = '\0';
	return rc;
}

static int check_value(const cJSON *v, const struct shape *s, struct where *w)
{
	unsigned kind = kind_of(v);
	const cJSON *item;
	size_t i = 0;
	int rc;

	if (!(kind & s->types))
		return bad(w, "%s, expected %s", type_name(v), types_wanted(s->types));
	if (kind & T_STR)
		return check_string(v->valuestring, s, w);
	if ((kind & T_INT) && s->bounded && (v->valuedouble < s->min || v->valuedouble > s->max))
		return bad(w, "%.0f is out of range", v->valuedouble);
	if (kind & T_ARR) {
		if ((size_t)cJSON_GetArraySize(v) < s->min_items)
			return bad(w, "an empty list");
		cJSON_ArrayForEach(item, v)
			if ((rc = check_in(item, NULL, i++, s->items, w)) != 0)
				return rc;
	}
	if (kind & T_OBJ) {
		cJSON_ArrayForEach(item, v) {
			const struct member *m;
			const cJSON *other;

			for (m = s->members; m->name && strcmp(m->name, item->string) != 0; m++)
				;
			if (!m->name)
				return bad(w, "unknown member \"%s\"", item->string);
			for (other = v->child; other != item; other = other->next)
				if (strcmp(other->string, item->string) == 0)
					return bad(w, "\"%s\" given twice", item->string);
			if ((rc = check_in(item, item->string, 0, m->shape, w)) != 0)
				return rc;
		}
		if (s->rule && s->rule(v))
			return bad(w, "%s", s->rule(v));
	}
	return 0;
}

static size_t line_at(const char *buf, const char *at)
{
	size_t line = 1;

	for (; buf < at; buf++)
		line += *buf == '\n';
	return line;
}

int expect_load(const char *path, cJSON **out, struct ev_error *err)
{
	struct where w = { .path = "", .err = err };
	const char *end = NULL;
	struct input in;
	char *text;
	size_t len;
	cJSON *root;
	int rc;

	if (input_init_file(&in, path, err) != 0)
		return -1;
	text = input_whole(&in, INPUT_JSON_MAX, INPUT_JSON_LIMIT, &len, err);
	input_release(&in);
	if (!text)
		return -1;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root && end)
		end += strspn(end, " \t\r\n");
	if (!root || end != text + len) {
		const char *at = root ? end : cJSON_GetErrorPtr();

		if (!at || at < text || at > text + len)
			at = text + len;
		err->line = line_at(text, at);
		snprintf(err->reason, sizeof(err->reason),
			 root ? "more after the JSON value" : "not JSON: a value, a comma or a "
							      "closing bracket was expected");
		cJSON_Delete(root);
		free(text);
		return -EINVAL;
	}
	free(text);
	if ((rc = check_value(root, &s_top, &w)) != 0) {
		cJSON_Delete(root);
		return rc;
	}
	*out = root;
	return 0;
}

/* --- the comparison ---------------------------------------------------------- */

static void add(struct expect_diffs *d, const char *prefix, const char *who, const char *fmt, ...)
{
	char *line = NULL, **nv;
	va_list ap;
	int n, head;

	head = snprintf(NULL, 0, "%s%s%s", prefix, who, who[0] ? ": " : "");
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (head < 0 || n < 0 || !(line = malloc((size_t)head + (size_t)n + 1)) ||
	    !(nv = realloc(d->lines, (d->n + 1) * sizeof(*nv)))) {
		free(line);
		d->err = -ENOMEM;
		return;
	}
	snprintf(line, (size_t)head + 1, "%s%s%s", prefix, who, who[0] ? ": " : "");
	va_start(ap, fmt);
	vsnprintf(line + head, (size_t)n + 1, fmt, ap);
	va_end(ap);
	d->lines = nv;
	d->lines[d->n++] = line;
}

/* A value as a line shows it: a string as it is, null for a verdict as
 * none, anything else as compact JSON. Returns a buffer of the caller. */
static const char *show(const cJSON *v, int verdict, char *buf, size_t len)
{
	char *json;

	if (!v)
		return "absent";
	if (cJSON_IsString(v))
		return v->valuestring;
	if (verdict && cJSON_IsNull(v))
		return "none";
	json = cJSON_PrintUnformatted(v);
	snprintf(buf, len, "%s", json ? json : "?");
	free(json);
	return buf;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Each member of want equal in got: the name of the first that is not, or
 * NULL. */
static const char *members_differ(const cJSON *want, const cJSON *got)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, want)
		if (!get(got, m->string) || !cJSON_Compare(m, get(got, m->string), 1))
			return m->string;
	return NULL;
}

/* The list of one member of each object of list ("action" of each
 * recovery action); NULL on ENOMEM. */
static cJSON *pluck(const cJSON *list, const char *key)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *o;

	cJSON_ArrayForEach(o, list) {
		const cJSON *v = get(o, key);
		cJSON *copy = v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();

		if (!out || !copy || !cJSON_AddItemToArray(out, copy)) {
			cJSON_Delete(copy);
			cJSON_Delete(out);
			return NULL;
		}
	}
	return out;
}

static int has_string(const cJSON *list, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, list)
		if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
			return 1;
	return 0;
}

/* A list member given exactly: want against got. */
static void exact(struct expect_diffs *d, const char *prefix, const char *who, const char *name,
		  const cJSON *want, const cJSON *got)
{
	char a[512], b[512];

	if (want && !(got && cJSON_Compare(want, got, 1)))
		add(d, prefix, who, "%s %s, expected %s", name, show(got, 0, a, sizeof(a)),
		    show(want, 0, b, sizeof(b)));
}

/* Names that must be in list (need) and names that must not (avoid): a
 * rule or action of what (rules, actions) "rule X did not fire (rules
 * [...])". */
static void among(struct expect_diffs *d, const char *prefix, const char *who, const char *what,
		  const cJSON *list, const cJSON *need, const char *not_there, const cJSON *avoid,
		  const char *there)
{
	size_t one = strlen(what) - 1; /* "rules" names "rule X" */
	const cJSON *v;
	char a[512];

	cJSON_ArrayForEach(v, need)
		if (!has_string(list, v->valuestring))
			add(d, prefix, who, "%.*s %s %s (%s %s)", (int)one, what, v->valuestring,
			    not_there, what, show(list, 0, a, sizeof(a)));
	cJSON_ArrayForEach(v, avoid)
		if (has_string(list, v->valuestring))
			add(d, prefix, who, "%.*s %s %s", (int)one, what, v->valuestring, there);
}

/* A count or status given as an integer (of any size the file holds). */
static void number(struct expect_diffs *d, const char *prefix, const char *who, const char *name,
		   const cJSON *want, int got)
{
	if (want && want->valuedouble != got)
		add(d, prefix, who, "%s %d, expected %.0f", name, got, want->valuedouble);
}

/* classification or evidence_level: one value or a list of them. */
static void verdict(struct expect_diffs *d, const char *prefix, const char *who, const char *name,
		    const cJSON *want, const cJSON *got)
{
	char a[64], b[512], one[64];
	const cJSON *v;
	size_t n = 0;

	if (!want)
		return;
	if (!cJSON_IsArray(want)) {
		if (!got || !cJSON_Compare(want, got, 1))
			add(d, prefix, who, "%s %s, expected %s", name, show(got, 1, a, sizeof(a)),
			    show(want, 1, b, sizeof(b)));
		return;
	}
	cJSON_ArrayForEach(v, want)
		if (got && cJSON_Compare(v, got, 1))
			return;
	b[0] = '\0';
	cJSON_ArrayForEach(v, want) {
		if (n++)
			strncat(b, " or ", sizeof(b) - strlen(b) - 1);
		strncat(b, show(v, 1, one, sizeof(one)), sizeof(b) - strlen(b) - 1);
	}
	add(d, prefix, who, "%s %s, expected %s", name, show(got, 1, a, sizeof(a)), b);
}

/* Texts that some line of lines must contain. */
static void matches(struct expect_diffs *d, const char *prefix, const char *who, const char *what,
		    const cJSON *want, const cJSON *lines)
{
	const cJSON *t, *line;

	cJSON_ArrayForEach(t, want) {
		int hit = 0;

		cJSON_ArrayForEach(line, lines)
			hit |= cJSON_IsString(line) && strstr(line->valuestring, t->valuestring) != NULL;
		if (!hit)
			add(d, prefix, who, "no %s mentions '%s'", what, t->valuestring);
	}
}

/* A list of report objects, each expected one with the members given: as
 * many, in order. */
static void objects_in_order(struct expect_diffs *d, const char *prefix, const char *who,
			     const char *what, const cJSON *want, const cJSON *got)
{
	int nw = cJSON_GetArraySize(want), ng = cJSON_GetArraySize(got), i;
	char a[512], b[512];

	if (nw != ng) {
		add(d, prefix, who, "%s: %d, expected %d", what, ng, nw);
		return;
	}
	for (i = 0; i < nw; i++) {
		const cJSON *w = cJSON_GetArrayItem(want, i), *g = cJSON_GetArrayItem(got, i);
		const char *m = members_differ(w, g);

		if (m)
			add(d, prefix, who, "%s[%d].%s %s, expected %s", what, i, m,
			    show(get(g, m), 0, a, sizeof(a)), show(get(w, m), 0, b, sizeof(b)));
	}
}

/* The recovery lines of a run as the report's text writes them:
 * "action: why". NULL on ENOMEM. */
static cJSON *recovery_lines(const cJSON *run)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *a;
	char line[1024];

	cJSON_ArrayForEach(a, get(get(run, "recovery"), "actions")) {
		const char *act = json_get_string(a, "action"), *why = json_get_string(a, "why");

		snprintf(line, sizeof(line), "%s: %s", act ? act : "", why ? why : "");
		if (!out || !cJSON_AddItemToArray(out, cJSON_CreateString(line))) {
			cJSON_Delete(out);
			return NULL;
		}
	}
	return out;
}

static void compare_run(struct expect_diffs *d, const char *prefix, const char *who,
			const cJSON *e, const cJSON *r)
{
	cJSON *actions = pluck(get(get(r, "recovery"), "actions"), "action");
	cJSON *joined_by = pluck(get(r, "exit_records"), "joined_by");
	cJSON *stamps = pluck(get(r, "exit_records"), "timestamp");
	cJSON *whys = recovery_lines(r);
	const cJSON *rules = get(r, "rules"), *v, *x;
	char a[512];

	if (!actions || !joined_by || !stamps || !whys) {
		d->err = -ENOMEM;
		goto out;
	}
	verdict(d, prefix, who, "classification", get(e, "classification"), get(r, "classification"));
	verdict(d, prefix, who, "evidence_level", get(e, "evidence_level"), get(r, "evidence_level"));
	exact(d, prefix, who, "rules", get(e, "rules"), rules);
	among(d, prefix, who, "rules", rules, get(e, "rules_fired"), "did not fire",
	      get(e, "rules_not_fired"), "fired, and must not");
	exact(d, prefix, who, "actions", get(e, "actions"), actions);
	among(d, prefix, who, "actions", actions, get(e, "actions_required"), "is not recommended",
	      get(e, "actions_forbidden"), "is recommended, and must not be");
	number(d, prefix, who, "exit_records", get(e, "exit_records"),
	       cJSON_GetArraySize(get(r, "exit_records")));
	if ((v = get(e, "joins"))) {
		const cJSON *one = cJSON_IsObject(v) ? v : v->child;

		for (; one; one = cJSON_IsObject(v) ? NULL : one->next) {
			int hit = 0;

			cJSON_ArrayForEach(x, get(r, "exit_records"))
				hit |= !members_differ(one, x);
			if (!hit)
				add(d, prefix, who, "no exit record joined that has %s",
				    show(one, 0, a, sizeof(a)));
		}
	}
	exact(d, prefix, who, "joined_by", get(e, "joined_by"), joined_by);
	exact(d, prefix, who, "exit_timestamps", get(e, "exit_timestamps"), stamps);
	if ((v = get(e, "contradiction"))) {
		const cJSON *c = get(r, "contradiction");
		int named = c && !cJSON_IsNull(c);

		if (named && !cJSON_IsTrue(v))
			add(d, prefix, who, "a contradiction is named (%s), expected none",
			    show(c, 0, a, sizeof(a)));
		else if (!named && cJSON_IsTrue(v))
			add(d, prefix, who, "no contradiction is named, expected one");
	}
	exact(d, prefix, who, "stage_open", get(e, "stage_open"), get(r, "stage_open"));
	exact(d, prefix, who, "last_stage", get(e, "last_stage"), get(r, "last_stage"));
	matches(d, prefix, who, "evidence line", get(e, "evidence_match"), get(r, "evidence"));
	matches(d, prefix, who, "missing line", get(e, "missing_match"), get(r, "missing"));
	matches(d, prefix, who, "recovery line", get(e, "recovery_match"), whys);
	exact(d, prefix, who, "resident_candidates", get(e, "resident_candidates"),
	      get(r, "resident_candidates"));
	if ((v = get(e, "sessions")))
		objects_in_order(d, prefix, who, "sessions", v, get(r, "sessions"));
out:
	cJSON_Delete(actions);
	cJSON_Delete(joined_by);
	cJSON_Delete(stamps);
	cJSON_Delete(whys);
}

/* Both absent, or equal. */
static int same_member(const cJSON *a, const cJSON *b, const char *key)
{
	return !get(a, key) ? !get(b, key) : get(b, key) && cJSON_Compare(get(a, key), get(b, key), 1);
}

/* How a line names an expected run: by process and pid (the nth of that
 * key, after the first), or by run id. */
static void run_name(const cJSON *e, int nth, char *buf, size_t len)
{
	const char *process = json_get_string(e, "process"), *run_id = json_get_string(e, "run_id");
	int n = process ? snprintf(buf, len, "run %s pid %.0f", process, get(e, "pid")->valuedouble)
			: snprintf(buf, len, "run %s", run_id);

	if (nth > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (#%d)", nth);
}

static int run_selected(const cJSON *e, const cJSON *r)
{
	const cJSON *process = get(e, "process"), *pid = get(e, "pid"), *run_id = get(e, "run_id");

	return (!process || (get(r, "process") && cJSON_Compare(process, get(r, "process"), 1) &&
			     get(r, "pid") && cJSON_Compare(pid, get(r, "pid"), 1))) &&
	       (!run_id || (get(r, "run_id") && cJSON_Compare(run_id, get(r, "run_id"), 1)));
}

static void compare_runs(struct expect_diffs *d, const char *prefix, const cJSON *want,
			 const cJSON *got)
{
	int ng = cJSON_GetArraySize(got), k;
	char *used = calloc((size_t)ng + 1, 1);
	const cJSON *e, *prev;
	char who[160];

	if (!used) {
		d->err = -ENOMEM;
		return;
	}
	cJSON_ArrayForEach(e, want) {
		int nth = 1;

		/* pid reuse: the nth expectation of a key takes the nth run. */
		for (prev = want->child; prev != e; prev = prev->next)
			nth += same_member(prev, e, "process") && same_member(prev, e, "pid") &&
			       same_member(prev, e, "run_id");
		run_name(e, nth, who, sizeof(who));
		for (k = 0; k < ng; k++)
			if (!used[k] && run_selected(e, cJSON_GetArrayItem(got, k)))
				break;
		if (k == ng) {
			add(d, prefix, who, "not in the report");
		} else {
			used[k] = 1;
			compare_run(d, prefix, who, e, cJSON_GetArrayItem(got, k));
		}
	}
	free(used);
}

/* The unmatched exit records: as many, each expected one matched to one
 * of its own with the members given. */
static void compare_unmatched(struct expect_diffs *d, const char *prefix, const cJSON *want,
			      const cJSON *got)
{
	int nw = cJSON_GetArraySize(want), ng = cJSON_GetArraySize(got), k;
	char *used = calloc((size_t)ng + 1, 1);
	const cJSON *e;
	char a[512];

	if (!used) {
		d->err = -ENOMEM;
		return;
	}
	if (nw != ng)
		add(d, prefix, "", "unmatched_exit_records: %d, expected %d", ng, nw);
	cJSON_ArrayForEach(e, want) {
		for (k = 0; k < ng; k++)
			if (!used[k] && !members_differ(e, cJSON_GetArrayItem(got, k)))
				break;
		if (k < ng)
			used[k] = 1;
		else
			add(d, prefix, "", "no unmatched exit record has %s", show(e, 0, a, sizeof(a)));
	}
	free(used);
}

void expect_compare(const cJSON *exp, const cJSON *report, int status, const char *prefix,
		    struct expect_diffs *d)
{
	const cJSON *v, *m, *tz = get(report, "timezone");
	char a[512], b[512];

	number(d, prefix, "", "exit_status", get(exp, "exit_status"), status);
	number(d, prefix, "", "run_count", get(exp, "run_count"), cJSON_GetArraySize(get(report, "runs")));
	if ((v = get(exp, "runs")))
		compare_runs(d, prefix, v, get(report, "runs"));
	if ((v = get(exp, "boot_loops")))
		objects_in_order(d, prefix, "", "boot_loops", v, get(report, "boot_loops"));
	if ((v = get(exp, "unmatched_exit_records")))
		compare_unmatched(d, prefix, v, get(report, "unmatched_exit_records"));
	cJSON_ArrayForEach(m, get(exp, "timezone"))
		if (!get(tz, m->string) || !cJSON_Compare(m, get(tz, m->string), 1))
			add(d, prefix, "", "timezone.%s %s, expected %s", m->string,
			    show(get(tz, m->string), 0, a, sizeof(a)), show(m, 0, b, sizeof(b)));
	matches(d, prefix, "", "device note", get(exp, "device_notes"),
		get(get(report, "device"), "notes"));
}

/* A report without its file names: inputs and each run's file. NULL on
 * ENOMEM. */
static cJSON *without_files(const cJSON *rep)
{
	cJSON *copy = cJSON_Duplicate(rep, 1), *run;

	cJSON_DeleteItemFromObjectCaseSensitive(copy, "inputs");
	cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(copy, "runs"))
		cJSON_DeleteItemFromObjectCaseSensitive(run, "file");
	return copy;
}

void expect_same_report(const cJSON *a, const cJSON *b, const char *prefix,
			struct expect_diffs *d)
{
	cJSON *x = without_files(a), *y = without_files(b);

	if (!x || !y)
		d->err = -ENOMEM;
	else if (!cJSON_Compare(x, y, 1))
		add(d, prefix, "", "the report differs from the first ring form's, beyond file names");
	cJSON_Delete(x);
	cJSON_Delete(y);
}

void expect_diffs_release(struct expect_diffs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->lines[i]);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}
