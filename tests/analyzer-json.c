/*
 * The JSON builder (analyzer/evidence/json.c): each kind of member as the
 * writers encode it, read back exactly; and the writers built on it
 * (evidence records, ring records, the report) on the demo bundle and on
 * scenarios with what it lacks, with each one of their allocations failing
 * in turn: every time the result is NULL and nothing is left allocated,
 * never a tree short of a member. The reader: json_check() takes every
 * UTF-8 form and surrogate pair, and refuses each form it must (overlong,
 * surrogates, past U+10FFFF, cut short, \u0000, half a pair, deeper than
 * JSON_DEPTH_MAX); json_number_integer() tells integers as written.
 */
#include <inttypes.h>

#include "../analyzer/bundle.h"
#include "../analyzer/evidence/json.h"
#include "../analyzer/output/report-writer.h"
#include "../analyzer/report.h"
#include "../analyzer/runs/ring-event.h"
#include "helpers.h"

/* cJSON's allocations, counted; the one numbered fail_at fails. */
static long allocs, live, fail_at = -1;

static void *t_malloc(size_t n)
{
	if (allocs++ == fail_at)
		return NULL;
	live++;
	return malloc(n);
}

static void t_free(void *p)
{
	if (p)
		live--;
	free(p);
}

static cJSON_Hooks counting = { t_malloc, t_free };

static void check_members(void)
{
	static const char want[] =
		"{\"null\":null,\"text\":\"a\\\"b\",\"no_text\":null,\"yes\":true,\"no\":false,"
		"\"number\":1.5,\"int\":-9223372036854775808,\"absent\":null,\"present\":-2,"
		"\"u64\":18446744073709551615,\"digest\":\"00000000000000ff\",\"no_digest\":null,"
		"\"stage\":\"load\",\"stage_unknown\":\"unknown\",\"stage_number\":999,"
		"\"object\":{\"in\":1},\"array\":[\"x\",null,[]],\"item\":{}}";
	struct json j;
	cJSON *o = json_begin(&j), *x;
	char *text;

	json_null(&j, o, "null");
	json_text(&j, o, "text", "a\"b");
	json_text(&j, o, "no_text", NULL);
	json_bool(&j, o, "yes", 7);
	json_bool(&j, o, "no", 0);
	json_number(&j, o, "number", 1.5);
	json_int(&j, o, "int", INT64_MIN);
	json_int_or_null(&j, o, "absent", -1, -1);
	json_int_or_null(&j, o, "present", -2, -1);
	json_u64(&j, o, "u64", UINT64_MAX);
	json_digest(&j, o, "digest", 0xff);
	json_digest(&j, o, "no_digest", 0);
	json_name(&j, o, "stage", &vocab_stages, LW_STAGE_LOAD, NULL);
	json_name(&j, o, "stage_unknown", &vocab_stages, 999, "unknown");
	json_name(&j, o, "stage_number", &vocab_stages, 999, NULL);
	x = json_object(&j, o, "object");
	json_number(&j, x, "in", 1);
	x = json_array(&j, o, "array");
	json_text(&j, x, NULL, "x");
	json_null(&j, x, NULL);
	json_array(&j, x, NULL);
	json_item(&j, o, "item", cJSON_CreateObject());
	o = json_end(&j);
	T_ASSERT(o != NULL, "json_end");
	text = cJSON_PrintUnformatted(o);
	T_ASSERT(text && strcmp(text, want) == 0, "members: %s", text);
	cJSON_free(text);

	T_ASSERT(json_get_int(o, "int") == INT64_MIN, "int read back");
	T_ASSERT(json_get_int(o, "present") == -2, "present read back");
	T_ASSERT(json_get_int(o, "yes") == 1 && json_get_int(o, "no") == 0, "bools read back");
	T_ASSERT(json_get_int(o, "number") == 1, "a number is truncated");
	T_ASSERT(json_get_int(o, "text") == 0 && json_get_int(o, "missing") == 0, "not integers");
	T_ASSERT(strcmp(json_get_string(o, "text"), "a\"b") == 0, "text read back");
	T_ASSERT(json_get_string(o, "Text") == NULL, "keys are case-sensitive");
	T_ASSERT(json_get_string(o, "absent") == NULL && json_get_string(o, "int") == NULL,
		 "not strings");
	cJSON_Delete(o);
	T_ASSERT(live == 0, "members: %ld left allocated", live);
}

/* A failed tree: later adders do nothing, an item handed over is freed. */
static void check_failed_tree(void)
{
	struct json j;
	cJSON *o = json_begin(&j);

	json_item(&j, o, "item", NULL);
	T_ASSERT(j.err == -ENOMEM, "a NULL item is a failure");
	T_ASSERT(json_object(&j, o, "object") == NULL, "no object after a failure");
	json_text(&j, NULL, "text", "a");
	json_item(&j, NULL, "item", cJSON_CreateObject());
	T_ASSERT(json_end(&j) == NULL, "json_end after a failure");
	T_ASSERT(live == 0, "failed tree: %ld left allocated", live);
}

/* What the writers write, as one text: each evidence file's records, each
 * ring record, the report. NULL when any of them is NULL. */
static char *write_all(const struct bundle *b, const struct report *r)
{
	cJSON *all = cJSON_CreateArray(), *x;
	char *text = NULL;
	size_t i, k;
	int ok = all != NULL;

	for (i = 0; ok && i < b->nfiles; i++)
		ok = (x = ev_records_json(&b->files[i])) && cJSON_AddItemToArray(all, x);
	for (i = 0; ok && i < b->nruns; i++)
		for (k = 0; ok && k < b->runs[i].nevents; k++)
			ok = (x = ring_event_json(b->runs[i].path, run_event_ticket(&b->runs[i].events[k]),
						  &b->runs[i].hdr, &b->runs[i].events[k])) &&
			     cJSON_AddItemToArray(all, x);
	if (ok && (x = report_json(r)) && cJSON_AddItemToArray(all, x))
		text = cJSON_PrintUnformatted(all);
	cJSON_Delete(all);
	return text;
}

/* The writers on one bundle, then with each of their allocations failing. */
static void check_writers(const char *root, const char *bundle)
{
	struct corr_options opt = { .tolerance_ms = CORR_DEFAULT_TOLERANCE_MS };
	char dir[512], *paths[1] = { dir }, *full, *text;
	long n, total;
	struct bundle b;
	struct report r;

	snprintf(dir, sizeof(dir), "%s/fixtures/%s", root, bundle);
	T_ASSERT(bundle_load(paths, 1, &b) == 0 && b.nruns > 0, "load %s", dir);
	T_ASSERT(report_build(&b, &opt, &r) == 0, "report_build %s", dir);
	T_ASSERT(live == 0, "%s: the bundle holds no cJSON allocation", bundle);
	allocs = 0;
	full = write_all(&b, &r);
	total = allocs;
	T_ASSERT(full != NULL && live == 1, "%s: the writers, nothing failing", bundle);
	for (n = 0; n < total; n++) {
		allocs = 0;
		fail_at = n;
		text = write_all(&b, &r);
		T_ASSERT(text == NULL, "%s: allocation %ld of %ld failed, yet all was written: %.200s",
			 bundle, n, total, text);
		T_ASSERT(live == 1 /* full */, "%s: allocation %ld of %ld failed: %ld left allocated",
			 bundle, n, total, live - 1);
	}
	fail_at = -1;
	cJSON_free(full);
	live = 0;
	printf("%s: %ld allocations, each failed in turn: NULL, nothing left\n", bundle, total);
	report_release(&r);
	bundle_release(&b);
}

/* What json_check() says of the JSON text s: NULL when it passes. */
static const char *checked(const char *s, size_t n)
{
	static struct ev_error err;

	return json_check(s, n, 0, &err) == 0 ? NULL : err.reason;
}

static void check_reader(void)
{
	static const char *const good[] = {
		"\"a\xc2\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80\"",
		"\"\\ud83d\\ude00 \\u0001 \\uffff\"", "[\"\\u00e9\"]",
	};
	static const struct {
		const char *s, *says;
	} bad[] = {
		{ "\"\xc0\xaf\"", "overlong" },       { "\"\xe0\x80\xaf\"", "overlong" },
		{ "\"\xf0\x80\x80\xaf\"", "overlong" }, { "\"\xed\xa0\x80\"", "surrogate" },
		{ "\"\xf4\x90\x80\x80\"", "past U+10FFFF" }, { "\"\xf5\x80\x80\x80\"", "starts no" },
		{ "\"\x80\"", "starts no" },           { "\"\xe2\x82\"", "cut short" },
		{ "\"\\u0000\"", "\\u0000" },          { "\"\\ud800x\"", "high surrogate" },
		{ "\"\\ud800\\u0041\"", "high surrogate" }, { "\"\\udc00\"", "low surrogate" },
		{ "{\"k\": \"\\u0000\"}", "in member \"k\"" },
	};
	static const struct {
		const char *s;
		int rc;
		int64_t v;
	} nums[] = {
		{ "[25711]", 1, 25711 }, { "[2.5711e4]", 1, 25711 }, { "[25711.000]", 1, 25711 },
		{ "[257110e-1]", 1, 25711 }, { "[-0.0]", 1, 0 }, { "[0e-999999]", 1, 0 },
		{ "[9223372036854775807]", 1, INT64_MAX }, { "[-9223372036854775808]", 1, INT64_MIN },
		{ "[9223372036854775808]", -1, 0 }, { "[1e308]", -1, 0 }, { "[1e19]", -1, 0 },
		{ "[25711000000000000000000000]", -1, 0 }, { "[1.5]", 0, 0 }, { "[1e-3]", 0, 0 },
		{ "[25711.0000000000001]", 0, 0 },
	};
	char deep[2 * JSON_DEPTH_MAX + 4];
	const char *why;
	int64_t v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		T_ASSERT(!(why = checked(good[i], strlen(good[i]))), "%s refused: %s", good[i], why);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		T_ASSERT((why = checked(bad[i].s, strlen(bad[i].s))) && strstr(why, bad[i].says),
			 "%s: %s, expected %s", bad[i].s, why ? why : "passed", bad[i].says);
	memset(deep, '[', JSON_DEPTH_MAX);
	memset(deep + JSON_DEPTH_MAX, ']', JSON_DEPTH_MAX);
	T_ASSERT(!checked(deep, 2 * JSON_DEPTH_MAX), "%d deep refused", JSON_DEPTH_MAX);
	memset(deep, '[', JSON_DEPTH_MAX + 1);
	memset(deep + JSON_DEPTH_MAX + 1, ']', JSON_DEPTH_MAX + 1);
	T_ASSERT((why = checked(deep, 2 * JSON_DEPTH_MAX + 2)) && strstr(why, "the limit, 1000"),
		 "%d deep: %s", JSON_DEPTH_MAX + 1, why ? why : "passed");
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct ev_error err;
		cJSON *a = json_read(nums[i].s, strlen(nums[i].s), 0, &err);
		int rc;

		T_ASSERT(a, "%s: %s", nums[i].s, err.reason);
		v = 0;
		rc = json_number_integer(a->child, &v);
		T_ASSERT(rc == nums[i].rc && (rc != 1 || v == nums[i].v), "%s: %d %" PRId64, nums[i].s,
			 rc, v);
		cJSON_Delete(a);
	}
}

int main(void)
{
	/* The demo, and scenarios with what the demo lacks: a boot loop,
	 * unmatched exit records, names a newer writer added, a device note,
	 * a ring-less run. */
	static const char *const bundles[] = {
		"demo", "scenarios/boot-loop/bundle", "scenarios/pid-reuse/bundle",
		"scenarios/stage-from-newer-writer/bundle", "scenarios/lmk-as-signaled/bundle",
		"scenarios/seed-ring-less/bundle",
	};
	const char *root = getenv("LASTWORDS_SOURCE_ROOT");
	size_t i;

	check_reader();
	cJSON_InitHooks(&counting);
	check_members();
	check_failed_tree();
	for (i = 0; i < sizeof(bundles) / sizeof(bundles[0]); i++)
		check_writers(root ? root : ".", bundles[i]);
	cJSON_InitHooks(NULL);
	return T_PASS;
}
