/*
 * lastwords check's expectations (expect.h). The file's rules are
 * schemas/expect.schema.json, run as written by the project's JSON Schema
 * checker (evidence/json-schema.c); a refusal names the value by its JSON
 * pointer. tests/check-schema.py feeds the same files to it and to
 * python3's jsonschema and checks that they accept and refuse alike.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/input.h"
#include "evidence/json-schema.h"
#include "evidence/json.h"
#include "expect.h"

/* --- the file's rules ------------------------------------------------------ */

/* schemas/expect.schema.json, embedded by the build (embed.py): the file's
 * one statement of its rules, run as written. Its names of the vocabulary
 * are those of vocab.h's X-macros and its rule ids those of the rules
 * table; tests/check-schema.py checks that they are equal. */
extern const char expect_schema_json[];

int expect_load(const char *path, cJSON **out, struct ev_error *err)
{
	struct json_schema *schema = NULL;
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
	root = json_read(text, len, 0, err);
	if (!root) {
		free(text);
		return err->line ? -EINVAL : -ENOMEM;
	}
	free(text);
	if ((rc = json_schema_open(expect_schema_json, &schema)) != 0) {
		err->line = 0;
		snprintf(err->reason, sizeof(err->reason), "%s", strerror(-rc));
		cJSON_Delete(root);
		return rc;
	}
	err->line = 0;
	if (json_schema_check(schema, json_schema_def(schema, NULL), root, JSON_SCHEMA_POINTER,
			      err->reason, sizeof(err->reason)) != 0)
		rc = -EINVAL;
	json_schema_free(schema);
	if (rc != 0) {
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
	matches(d, prefix, who, "caveat", get(e, "caveats_match"), get(r, "caveats"));
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
	const cJSON *pid = get(e, "pid");
	int n = !process             ? snprintf(buf, len, "run %s", run_id)
		: cJSON_IsNumber(pid) ? snprintf(buf, len, "run %s pid %.0f", process, pid->valuedouble)
				      : snprintf(buf, len, "run %s pid unknown", process);

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
