/* Loading a run from a binary ring, or from `lastwords dump --json` lines. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/signals.h"
#include "../../src/vocab.h"
#include "../evidence/input.h"
#include "../evidence/json-schema.h"
#include "../evidence/json.h"
#include "../evidence/text.h"
#include "ring-event.h"
#include "sessions.h"

const char *run_ring_name(enum run_ring r)
{
	switch (r) {
	case RUN_RING_PROBE:
		return "probe";
	case RUN_RING_SEED:
		return "seed";
	case RUN_RING_NONE:
		break;
	}
	return "none";
}

void run_release(struct run *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->events);
	free(r->sessions);
	free(r->warnings);
	free(r->header_damage);
	memset(r, 0, sizeof(*r));
}

/* r's sessions: a copy of the n of v. Returns 0, or -1 on ENOMEM. */
static int set_sessions(struct run *r, const struct ring_session *v, size_t n)
{
	free(r->sessions);
	r->sessions = NULL;
	r->nsessions = 0;
	if (!n)
		return 0;
	r->sessions = malloc(n * sizeof(*v));
	if (!r->sessions)
		return -1;
	memcpy(r->sessions, v, n * sizeof(*v));
	r->nsessions = n;
	return 0;
}

/* Append a record of ticket (below 2^63, as a ring's are). */
static int add_event(struct run *r, uint64_t ticket, const struct lw_ring_slot *s)
{
	struct lw_ring_slot *e;

	if (r->nevents == 0 || (r->nevents >= 64 && (r->nevents & (r->nevents - 1)) == 0)) {
		size_t cap = r->nevents < 64 ? 64 : 2 * r->nevents;
		struct lw_ring_slot *nv = realloc(r->events, cap * sizeof(*nv));

		if (!nv)
			return -1;
		r->events = nv;
	}
	e = &r->events[r->nevents++];
	*e = *s;
	e->seq = 2 * ticket + 2;
	e->crc = 0;
	return 0;
}

int run_is_binary(struct span head)
{
	return (head.n >= LW_RING_MAGIC_LEN && memcmp(head.s, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0) ||
	       (head.n && head.s[0] == 0 && memcmp(head.s, head.s + 1, head.n - 1) == 0);
}

int run_load_ring(const char *path, struct run *out, struct ring_error *err)
{
	struct ring_session ses[LW_RING_SESSION_SLOTS_MAX];
	struct ring_file *rf;
	int rc = ring_file_open(path, &rf, err);

	memset(out, 0, sizeof(*out));
	if (rc != 0)
		return rc;
	out->path = strdup(path);
	memcpy(&out->hdr, rf->hdr, sizeof(out->hdr));
	/* The writer leaves a NUL in the name's field; a hostile file need not,
	 * and every reader of the run takes the name as a C string. */
	out->hdr.process[sizeof(out->hdr.process) - 1] = '\0';
	out->outcome = ring_file_outcome(rf);
	out->open_stage = ring_open_stage(rf->hdr);
	out->stages_from_header = 1;
	out->header_damaged = rf->header_damaged;
	if (rf->header_damaged) {
		char damage[RING_DAMAGE_MAX * 180];

		ring_damage_text(&rf->damage, NULL, damage, sizeof(damage));
		out->header_damage = strdup(damage);
	}
	if (!out->path || (out->header_damaged && !out->header_damage) ||
	    set_sessions(out, ses, ring_file_sessions(rf, ses, LW_RING_SESSION_SLOTS_MAX)) != 0 ||
	    ring_file_take_records(rf, &out->events, &out->nevents, &out->scan) != 0) {
		ring_file_free(rf);
		run_release(out);
		err->offset = 0;
		snprintf(err->reason, sizeof(err->reason), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ring_file_free(rf);
	return 0;
}

/* The JSON values (schemas/ring-events.schema.json, embedded in the binary
 * as written by analyzer/meson.build): the reader runs the schema itself,
 * so that both accept the same files. */
extern const char ring_events_schema_json[];

/* An integer member (the schema checked its type and range). */
static int get_u64(const cJSON *o, const char *key, uint64_t *v)
{
	return json_get_u64(o, key, v) > 0;
}

/* A vocabulary name, or the number a newer writer used. -1 if neither. */
static int vocab_or_number(const cJSON *o, const char *key, const struct vocab *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsString(x))
		return vocab_value(v, x->valuestring);
	if (cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < 256)
		return (int)x->valuedouble;
	return -1;
}

/* A digest member (16 hex digits, the schema checked), or 0 for none. */
static void hex_digest(const cJSON *o, const char *key, uint64_t *out)
{
	const char *s = json_get_string(o, key);

	*out = 0;
	if (s)
		span_hex64(span_of(s, strlen(s)), out);
}

/* An id member (32 hex digits, the schema checked); left as it is when
 * absent. */
static void hex_id128(const char *s, uint8_t out[16])
{
	uint64_t b;
	int i;

	for (i = 0; s && i < 16; i++) {
		span_hex64(span_of(s + 2 * i, 2), &b);
		out[i] = (uint8_t)b;
	}
}

static int fail(struct ev_error *err, size_t line, const char *what)
{
	err->line = line;
	snprintf(err->reason, sizeof(err->reason), "%s", what);
	return -1;
}

/* The ring value's "sessions" (a version 2 ring's; cmd-dump.c writes them)
 * into r->sessions; the schema has checked them (at most 56, each with an
 * id below 56). Returns 0, or -1 on ENOMEM. */
static int load_sessions(struct run *r, const cJSON *arr)
{
	struct ring_session ses[LW_RING_SESSION_SLOTS_MAX], *out;
	const cJSON *e, *st;
	size_t n = 0;
	uint64_t v;
	int k;

	memset(ses, 0, sizeof(ses));
	cJSON_ArrayForEach(e, arr) {
		if (n == LW_RING_SESSION_SLOTS_MAX)
			break;
		out = &ses[n++];
		get_u64(e, "id", &v);
		out->id = (uint32_t)v;
		out->state = strcmp(json_get_string(e, "state"), "open") == 0 ? LW_SESSION_OPEN
									      : LW_SESSION_CLOSED;
		hex_digest(e, "candidate", &out->candidate);
		k = vocab_or_number(e, "open_stage", &vocab_stages);
		out->open_stage = k > 0 && k < LW_STAGE_COUNT ? (enum lw_stage)k : LW_STAGE_NONE;
		cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(e, "open_stages")) {
			k = vocab_value(&vocab_stages, st->valuestring);
			if (k > 0 && k < LW_RING_STAGE_SLOTS)
				out->open_count[k] = 1; /* the JSON names them, without counts */
		}
		if (get_u64(e, "opened_mono_ns", &v))
			out->opened_mono_ns = v;
		k = vocab_or_number(e, "result", &vocab_errors);
		out->result = k > 0 ? (enum lw_error)k : LW_ERR_NONE;
		if (get_u64(e, "opens", &v))
			out->opens = (uint32_t)v;
	}
	return set_sessions(r, ses, n);
}

/* The ring value: the run's identity and what its header said. What it
 * leaves out is worked out from the records (finish_ring()). */
static void load_ring_value(struct run *r, const cJSON *o)
{
	struct lw_ring_header *h = &r->hdr;
	const char *outcome = json_get_string(o, "outcome");
	uint64_t v;
	int st;

	if (strcmp(outcome ? outcome : "", ring_outcome_name(RING_OUTCOME_BLANK)) == 0) {
		/* A blank ring: its file's size, and nothing else. */
		get_u64(o, "slot_count", &v);
		r->outcome = RING_OUTCOME_BLANK;
		r->scan.slot_count = (uint32_t)v;
		r->scan.empty = v;
		return;
	}
	snprintf(h->process, sizeof(h->process), "%s", json_get_string(o, "process"));
	get_u64(o, "pid", &v);
	h->pid = (uint32_t)v;
	get_u64(o, "app_version", &h->app_version);
	get_u64(o, "start_real_ns", &h->start_real_ns);
	get_u64(o, "start_boot_ns", &h->start_boot_ns);
	get_u64(o, "start_mono_ns", &h->start_mono_ns);
	if (get_u64(o, "memory_budget_kb", &v))
		h->memory_budget_kb = (uint32_t)v;
	if (get_u64(o, "slot_count", &v))
		h->slot_count = (uint32_t)v;
	get_u64(o, "lapped", &h->lapped);
	get_u64(o, "dropped", &h->dropped);
	get_u64(o, "head", &h->head);
	if (get_u64(o, "state", &v))
		h->state = (uint32_t)v;
	hex_id128(json_get_string(o, "run_id"), h->run_id);
	hex_id128(json_get_string(o, "boot_id"), h->boot_id);
	hex_digest(o, "candidate", &h->candidate);
	hex_digest(o, "ok_candidate", &h->ok_candidate);
	hex_digest(o, "stable_candidate", &h->stable_candidate);
	if (json_get_string(o, "signal"))
		h->crash_signo = (uint32_t)(signal_number(json_get_string(o, "signal")) > 0
						    ? signal_number(json_get_string(o, "signal"))
						    : 0);
	st = vocab_or_number(o, "open_stage", &vocab_stages);
	r->open_stage = st > 0 && st < LW_STAGE_COUNT ? (enum lw_stage)st : LW_STAGE_NONE;
	r->outcome = !outcome                      ? RING_OUTCOME_DIED /* until the records tell */
		     : strcmp(outcome, "live") == 0    ? RING_OUTCOME_LIVE
		     : strcmp(outcome, "clean") == 0   ? RING_OUTCOME_CLEAN
		     : strcmp(outcome, "crashed") == 0 ? RING_OUTCOME_CRASHED
		     : strcmp(outcome, "died") == 0    ? RING_OUTCOME_DIED
						       : RING_OUTCOME_UNKNOWN;
	r->header_damaged = json_get_string(o, "header_damage") != NULL;
	if (r->header_damaged)
		r->header_damage = strdup(json_get_string(o, "header_damage"));
	get_u64(o, "torn", &r->scan.torn);
	get_u64(o, "stale", &r->scan.stale);
	get_u64(o, "corrupt", &r->scan.corrupt);
	h->version = LW_RING_VERSION;
	h->slot_size = LW_RING_SLOT_SIZE;
	h->header_size = (uint16_t)LW_RING_HEADER_SIZE;
}

/* A kB figure of a composition: 0 when null or absent (not known). */
static uint64_t kb32(const cJSON *o, const char *key)
{
	uint64_t v = 0;

	get_u64(o, key, &v);
	return v & 0xffffffffu;
}

/* A memory record's composition (ring-format.md 8.1) back into code, b
 * and c; a newer writer's source keeps its b and c as given. */
static void load_composition(const cJSON *o, struct lw_ring_slot *s)
{
	int src = cJSON_GetObjectItemCaseSensitive(o, "memory_source")
			  ? vocab_or_number(o, "memory_source", &vocab_memory_sources)
			  : 0;

	s->code = (uint8_t)(src > 0 ? src : 0);
	if (s->code == LW_MEMORY_SOURCE_STATUS || s->code == LW_MEMORY_SOURCE_STATM) {
		s->b = kb32(o, "anon_kb") | kb32(o, "file_kb") << 32;
		s->c = kb32(o, "shmem_kb") | kb32(o, "swap_kb") << 32;
	}
	get_u64(o, "b", &s->b);
	get_u64(o, "c", &s->c);
}

/* A percent of PSI, in hundredths (the schema checked it is a number). */
static uint64_t centi(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	double v = cJSON_IsNumber(x) ? x->valuedouble * 100 : 0;

	return v > 0 && v < 18446744073709551615.0 ? (uint64_t)llround(v) : 0;
}

/* A pressure record back into its slot: the figures by source, or as
 * given (a newer writer's source); d the errno of "not readable". */
static void load_pressure(const cJSON *o, struct lw_ring_slot *s)
{
	int p = vocab_or_number(o, "pressure_source", &vocab_pressure_sources);
	uint64_t v;

	s->code = (uint8_t)(p > 0 ? p : 0);
	if (get_u64(o, "errno", &v))
		s->d = (uint32_t)v;
	get_u64(o, "trim_level", &s->a);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "low_memory")))
		s->a = 1;
	get_u64(o, "avail_kb", &s->b);
	get_u64(o, "threshold_kb", &s->c);
	if (cJSON_GetObjectItemCaseSensitive(o, "psi_some"))
		s->a = centi(o, "psi_some");
	if (cJSON_GetObjectItemCaseSensitive(o, "psi_full"))
		s->b = centi(o, "psi_full");
	get_u64(o, "psi_total_us", &s->c);
	get_u64(o, "a", &s->a);
	get_u64(o, "b", &s->b);
	get_u64(o, "c", &s->c);
}

/* One record value back into a slot: the inverse of ring_event_json(). */
static int load_event_value(struct run *r, const cJSON *o, size_t lineno, struct ev_error *err)
{
	struct lw_ring_slot s;
	uint64_t ticket, v;
	int type = vocab_or_number(o, "type", &vocab_event_types), stage;
	const char *fault, *second;

	memset(&s, 0, sizeof(s));
	if (!get_u64(o, "ticket", &ticket))
		ticket = r->nevents ? run_event_ticket(&r->events[r->nevents - 1]) + 1 : 0;
	get_u64(o, "t_mono_ns", &s.t_mono_ns);
	s.type = (uint8_t)type;
	stage = vocab_or_number(o, "stage", &vocab_stages);
	s.stage = (uint8_t)(stage > 0 ? stage : 0);
	if (get_u64(o, "tid", &v))
		s.tid = (uint32_t)v;
	if (get_u64(o, "flags", &v))
		s.flags = (uint8_t)v;
	if (get_u64(o, "rss_kb", &v))
		s.rss_kb = (uint32_t)v;
	if (get_u64(o, "rss_age_ms", &v))
		s.rss_age_ms = (uint32_t)v;
	switch (type) {
	case LW_EV_OPEN:
		get_u64(o, "boottime_ns", &s.a);
		get_u64(o, "realtime_ns", &s.b);
		get_u64(o, "app_version", &s.c);
		s.d = json_get_string(o, "backing") && strcmp(json_get_string(o, "backing"), "anonymous") == 0 ? 2 : 1;
		break;
	case LW_EV_STAGE_BEGIN:
	case LW_EV_STAGE_END:
	case LW_EV_SESSION_OPEN:
	case LW_EV_SESSION_CLOSE:
		if (type == LW_EV_STAGE_END || type == LW_EV_SESSION_CLOSE) {
			int e = vocab_or_number(o, "error", &vocab_errors);

			s.code = (uint8_t)(e > 0 ? e : 0);
		}
		get_u64(o, "boottime_ns", &s.a);
		get_u64(o, "realtime_ns", &s.b);
		hex_digest(o, "candidate", &s.c);
		if (get_u64(o, "session", &v))
			s.d = (uint32_t)v;
		break;
	case LW_EV_MARK: {
		int m = vocab_or_number(o, "mark", &vocab_marks);

		s.code = (uint8_t)(m > 0 ? m : 0);
		get_u64(o, "value", &s.a);
		/* The second value of the marks that have one (ring-format.md, 8):
		 * a digest, or the payload's size bucket. */
		second = json_get_string(o, "key_digest")     ? "key_digest"
			 : json_get_string(o, "files_digest") ? "files_digest"
							      : "process_digest";
		hex_digest(o, second, &s.b);
		get_u64(o, "size_bucket", &s.b);
		break;
	}
	case LW_EV_CANDIDATE:
		hex_digest(o, "candidate", &s.a);
		break;
	case LW_EV_CRASH: {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(o, "si_code");

		if (get_u64(o, "signo", &v))
			s.code = (uint8_t)v;
		if (cJSON_IsNumber(code))
			s.b = (uint64_t)(int64_t)code->valuedouble;
		fault = json_get_string(o, "fault_addr");
		if (fault)
			span_hex64(span_of(fault, strlen(fault)), &s.a);
		hex_digest(o, "candidate", &s.c);
		if (get_u64(o, "sender_pid", &v))
			s.d = (uint32_t)v;
		break;
	}
	case LW_EV_ADVICE: {
		int a = vocab_or_number(o, "advice", &vocab_advices);

		s.code = (uint8_t)(a > 0 ? a : 0);
		get_u64(o, "count", &s.b);
		hex_digest(o, "candidate", &s.a);
		hex_digest(o, "stable_candidate", &s.c);
		break;
	}
	case LW_EV_SYNC:
		get_u64(o, "sync", &s.a);
		break;
	case LW_EV_MEMORY:
		get_u64(o, "vm_kb", &s.a);
		load_composition(o, &s);
		break;
	case LW_EV_GRAPHICS: {
		int g = vocab_or_number(o, "graphics_source", &vocab_graphics_sources);

		s.code = (uint8_t)(g > 0 ? g : 0);
		get_u64(o, "graphics_kb", &s.a);
		get_u64(o, "buffers", &s.b);
		hex_digest(o, "exporter_digest", &s.c);
		break;
	}
	case LW_EV_PRESSURE:
		load_pressure(o, &s);
		break;
	case LW_EV_CLOSE:
		get_u64(o, "boottime_ns", &s.a);
		get_u64(o, "realtime_ns", &s.b);
		break;
	default:
		get_u64(o, "a", &s.a);
		get_u64(o, "b", &s.b);
		get_u64(o, "c", &s.c);
		if (get_u64(o, "d", &v))
			s.d = (uint32_t)v;
	}
	if (r->nevents && ticket <= run_event_ticket(&r->events[r->nevents - 1]))
		return fail(err, lineno, "expected tickets in increasing order");
	if (ticket >= (UINT64_MAX >> 1)) /* one after a record of ticket 2^63 - 2 */
		return fail(err, lineno, "expected a ticket below 2^63");
	if (add_event(r, ticket, &s) != 0)
		return fail(err, lineno, strerror(ENOMEM));
	return 0;
}

/* Whether value o, at line, is what the schema allows there: the ring
 * value first (first), a record after it. Also refuses an object that
 * holds a member twice, which the schema cannot say. */
static int check_value(const struct json_schema *schema, const cJSON *o, int first, size_t line,
		       struct ev_error *err)
{
	const char *type = json_get_string(o, "type"), *outcome = json_get_string(o, "outcome");
	const char *dup = json_duplicate_key(o), *def = "record";
	const cJSON *e;
	char why[sizeof(err->reason)];

	if (!cJSON_IsObject(o))
		return fail(err, line, "expected a JSON object");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "sessions"))
		dup = dup ? dup : json_duplicate_key(e);
	if (dup) {
		snprintf(why, sizeof(why), "\"%s\" given twice", dup);
		return fail(err, line, why);
	}
	if (first && (!type || strcmp(type, "ring") != 0))
		return fail(err, line, "expected the ring value first, with \"type\": \"ring\"");
	if (first)
		def = outcome && strcmp(outcome, ring_outcome_name(RING_OUTCOME_BLANK)) == 0
			      ? "blank_ring"
			      : "ring";
	if (json_schema_check(schema, json_schema_def(schema, def), o, JSON_SCHEMA_MEMBERS, why,
			      sizeof(why)) != 0)
		return fail(err, line, why);
	return 0;
}

/* Add "line N: text" to the run's warnings. -1 on ENOMEM. */
static int warn(struct run *r, size_t line, const char *text)
{
	size_t n = r->warnings ? strlen(r->warnings) : 0, add = strlen(text) + 32;
	char *w = realloc(r->warnings, n + add);

	if (!w)
		return -1;
	snprintf(w + n, add, "line %zu: %s\n", line, text);
	r->warnings = w;
	return 0;
}

/* A counter of the ring value, given, against what the records give: a
 * warning when they disagree. */
static int check_counter(struct run *r, const cJSON *o, size_t line, const char *key,
			 uint64_t want, int at_least)
{
	char text[160];
	uint64_t v;

	if (!get_u64(o, key, &v) || v == want || (at_least && v > want))
		return 0;
	snprintf(text, sizeof(text), "\"%s\" is %" PRIu64 ", the records give %s%" PRIu64, key, v,
		 at_least ? "at least " : "", want);
	return warn(r, line, text);
}

/* The sessions of a ring value without "sessions", from the records as
 * the probe's header table keeps them: session 0, the process's, open
 * from the start (with the run's candidate, as a version 1 ring's; once a
 * session was opened, the one of the candidate records), and each session
 * that a session_open record opened, with its candidate, its result and
 * the stages begun and not ended in it. by_records: session 0's open
 * stages come from its records, else from the run's open stage (given). */
static int derive_sessions(struct run *r, int by_records)
{
	struct ring_session by_id[LW_RING_SESSION_SLOTS_MAX], ses[LW_RING_SESSION_SLOTS_MAX];
	size_t n = 0;
	uint32_t last[LW_RING_SESSION_SLOTS_MAX] = { 0 };
	int seen[LW_RING_SESSION_SLOTS_MAX] = { 0 }, versioned = 0;
	uint64_t cand = 0;
	size_t i;

	memset(by_id, 0, sizeof(by_id));
	ring_header_sessions(&r->hdr, by_id, 1);
	seen[0] = 1;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];
		struct ring_session *s = &by_id[e->d < LW_RING_SESSION_SLOTS_MAX ? e->d : 0];

		if (e->d >= LW_RING_SESSION_SLOTS_MAX)
			continue;
		if (e->type == LW_EV_SESSION_OPEN) {
			if (e->d == 0)
				continue;
			memset(s->open_count, 0, sizeof(s->open_count));
			s->id = e->d;
			s->state = LW_SESSION_OPEN;
			s->candidate = e->c;
			s->opened_mono_ns = e->t_mono_ns;
			s->opens++;
			seen[e->d] = 1;
		} else if (e->type == LW_EV_SESSION_CLOSE && seen[e->d]) {
			s->state = LW_SESSION_CLOSED;
			s->result = (enum lw_error)e->code;
			memset(s->open_count, 0, sizeof(s->open_count));
		} else if (e->type == LW_EV_STAGE_BEGIN && seen[e->d] && e->stage > 0 &&
			   e->stage < LW_RING_STAGE_SLOTS) {
			s->open_count[e->stage]++;
			last[e->d] = e->stage;
		} else if (e->type == LW_EV_STAGE_END && seen[e->d] && e->stage < LW_RING_STAGE_SLOTS &&
			   s->open_count[e->stage]) {
			s->open_count[e->stage]--;
		}
		if (e->type == LW_EV_CANDIDATE)
			cand = e->a;
		versioned = versioned || e->type == LW_EV_SESSION_OPEN;
	}
	if (versioned) /* a version 2 ring: session 0's candidate is the process's own */
		by_id[0].candidate = cand;
	if (!by_records) {
		memset(by_id[0].open_count, 0, sizeof(by_id[0].open_count));
		if (r->open_stage != LW_STAGE_NONE)
			by_id[0].open_count[r->open_stage] = 1;
		last[0] = r->open_stage;
	}
	for (i = 0; i < LW_RING_SESSION_SLOTS_MAX; i++) {
		if (!seen[i])
			continue;
		by_id[i].open_stage = ring_open_stage_of(&last[i], by_id[i].open_count);
		ses[n++] = by_id[i];
	}
	return set_sessions(r, ses, n);
}

/* What the ring value o (at line) leaves out, from the records (the
 * outcome, the open stage, the budget, the sessions and the counters),
 * and a warning for each counter given that disagrees with them. */
static int finish_ring(struct run *r, const cJSON *o, size_t line, struct ev_error *err)
{
	uint32_t last = 0, count[LW_RING_STAGE_SLOTS] = { 0 }, peak = 0;
	const cJSON *sessions;
	struct ring_scan *sc = &r->scan;
	uint64_t head = 0, window;
	size_t i;
	int rc;

	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];

		if (e->type == LW_EV_CLOSE && !json_get_string(o, "outcome"))
			r->outcome = RING_OUTCOME_CLEAN;
		if (e->type == LW_EV_CRASH && !json_get_string(o, "outcome"))
			r->outcome = RING_OUTCOME_CRASHED;
		if (e->type == LW_EV_MARK && e->code == LW_MARK_BUDGET &&
		    !cJSON_GetObjectItemCaseSensitive(o, "memory_budget_kb"))
			r->hdr.memory_budget_kb = e->a > UINT32_MAX ? UINT32_MAX : (uint32_t)e->a;
		if (e->type == LW_EV_STAGE_BEGIN && e->stage > 0 && e->stage < LW_RING_STAGE_SLOTS) {
			count[e->stage]++;
			last = e->stage;
		}
		if (e->type == LW_EV_STAGE_END && e->stage < LW_RING_STAGE_SLOTS && count[e->stage])
			count[e->stage]--;
		if ((e->type == LW_EV_CANDIDATE || e->type == LW_EV_SESSION_OPEN) &&
		    !cJSON_GetObjectItemCaseSensitive(o, "candidate"))
			r->hdr.candidate = e->type == LW_EV_CANDIDATE ? e->a : e->c;
		peak = e->rss_kb > peak ? e->rss_kb : peak;
		head = run_event_ticket(e) + 1;
	}
	if (!cJSON_GetObjectItemCaseSensitive(o, "open_stage"))
		r->open_stage = ring_open_stage_of(&last, count);
	sessions = cJSON_GetObjectItemCaseSensitive(o, "sessions");
	r->stages_from_header = sessions || cJSON_GetObjectItemCaseSensitive(o, "open_stage");
	if (r->header_damaged && !r->header_damage)
		return fail(err, line, strerror(ENOMEM));
	if (sessions ? load_sessions(r, sessions) != 0
		     : derive_sessions(r, !cJSON_GetObjectItemCaseSensitive(o, "open_stage")) != 0)
		return fail(err, line, strerror(ENOMEM));
	/* The counters: a ring of the smallest size that holds the records,
	 * unless the value says otherwise. */
	sc->valid = r->nevents;
	for (i = 16; i < head && i < LW_RING_SLOTS_MAX; i *= 2)
		;
	if (!r->hdr.slot_count)
		r->hdr.slot_count = (uint32_t)i;
	sc->slot_count = r->hdr.slot_count;
	if (!r->hdr.head)
		r->hdr.head = head;
	sc->head = r->hdr.head;
	window = sc->head < sc->slot_count ? sc->head : sc->slot_count;
	sc->missing = window > sc->valid ? window - sc->valid : 0;
	sc->empty = sc->slot_count - (sc->valid + sc->torn + sc->stale + sc->corrupt < sc->slot_count
					      ? sc->valid + sc->torn + sc->stale + sc->corrupt
					      : sc->slot_count);
	rc = check_counter(r, o, line, "valid", sc->valid, 0);
	rc = rc ? rc : check_counter(r, o, line, "head", head, 1);
	rc = rc ? rc : check_counter(r, o, line, "slot_count", sc->valid, 1);
	rc = rc ? rc : check_counter(r, o, line, "missing", sc->missing, 0);
	rc = rc ? rc : check_counter(r, o, line, "never_written", sc->empty, 0);
	rc = rc ? rc : check_counter(r, o, line, "peak_rss_kb", peak, 0);
	get_u64(o, "missing", &sc->missing);
	get_u64(o, "never_written", &sc->empty);
	return rc ? fail(err, 0, strerror(ENOMEM)) : 0;
}

int run_load_json(const char *path, struct input *in, struct run *out, struct ev_error *err)
{
	struct json_schema *schema = NULL;
	struct json_stream js;
	cJSON *ring = NULL, *o;
	size_t line, ring_line = 0;
	int got, rc = 0;

	memset(out, 0, sizeof(*out));
	out->from_json = 1;
	out->path = strdup(path);
	json_stream_init(&js, in);
	rc = out->path ? json_schema_open(ring_events_schema_json, &schema) : -ENOMEM;
	if (rc != 0) {
		run_release(out);
		return fail(err, 0, rc == -ENOMEM ? strerror(ENOMEM)
						  : "the embedded schema uses a keyword this reader lacks");
	}
	while (rc == 0 && (got = json_stream_next(&js, &o, &line, err)) > 0) {
		rc = check_value(schema, o, !ring, line, err);
		if (rc == 0 && !ring) {
			load_ring_value(out, o);
			ring = o;
			ring_line = line;
			continue;
		}
		if (rc == 0 && out->outcome == RING_OUTCOME_BLANK)
			rc = fail(err, line, "expected no record after a never-initialized ring");
		else if (rc == 0)
			rc = load_event_value(out, o, line, err);
		cJSON_Delete(o);
	}
	if (rc == 0 && got < 0)
		rc = -1; /* err is set; in->failed tells a read that failed */
	if (rc == 0 && !ring)
		rc = fail(err, 0, "expected a ring value; the file holds none");
	if (rc == 0 && out->outcome != RING_OUTCOME_BLANK)
		rc = finish_ring(out, ring, ring_line, err);
	cJSON_Delete(ring);
	json_stream_release(&js);
	json_schema_free(schema);
	if (rc != 0)
		run_release(out);
	return rc;
}

int run_from_seed(const char *path, const struct ev_file *seed, struct run *out,
		  struct ev_error *err)
{
	const char *base = strrchr(path, '/');
	const struct seed_event *last = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->ring = RUN_RING_SEED;
	out->path = strdup(path);
	if (!out->path)
		return fail(err, 0, strerror(ENOMEM));
	snprintf(out->hdr.process, sizeof(out->hdr.process), "%s", base ? base + 1 : path);
	out->hdr.version = LW_RING_VERSION;
	for (i = 0; i < seed->nseeds; i++) {
		const struct seed_event *e = &seed->seeds[i];
		struct lw_ring_slot s;
		int stage = e->stage ? vocab_value(&vocab_stages, e->stage) : -1;

		/* The seed's own checks are --format seed's; here an event
		 * without a time, a stage or memory is left out. */
		if (e->time_ms < 0 || stage <= 0 || e->rss_mb < 0 || e->budget_mb < 1)
			continue;
		memset(&s, 0, sizeof(s));
		s.t_mono_ns = (uint64_t)e->time_ms * 1000000u;
		s.type = LW_EV_MARK;
		s.code = LW_MARK_SESSIONS;
		s.stage = (uint8_t)stage;
		s.a = e->sessions > 0 ? (uint64_t)e->sessions : 0;
		s.rss_kb = e->rss_mb > (int64_t)(UINT32_MAX / 1024) ? UINT32_MAX : (uint32_t)e->rss_mb * 1024u;
		if (add_event(out, out->nevents, &s) != 0) {
			run_release(out);
			return fail(err, 0, strerror(ENOMEM));
		}
		last = e;
	}
	if (!last) {
		run_release(out);
		return fail(err, 0, "the seed events hold no usable event (time, stage and memory)");
	}
	out->hdr.memory_budget_kb = (uint32_t)(last->budget_mb * 1024);
	out->hdr.start_mono_ns = out->events[0].t_mono_ns;
	out->hdr.head = out->nevents;
	out->scan.valid = out->nevents;
	if (last->exit_reason && strcmp(last->exit_reason, "none") != 0) {
		int c = vocab_value(&vocab_exit_classes, last->exit_reason);

		out->seed_exit_class = c > 0 ? c : LW_EXIT_UNKNOWN;
		out->outcome = RING_OUTCOME_DIED;
		out->open_stage = (enum lw_stage)out->events[out->nevents - 1].stage;
	} else {
		out->outcome = RING_OUTCOME_CLEAN;
	}
	return 0;
}

int run_ringless(const char *path, size_t line, const char *process, int64_t pid,
		 uint64_t app_version, struct run *out)
{
	memset(out, 0, sizeof(*out));
	out->path = strdup(path ? path : "");
	if (!out->path)
		return -1;
	out->line = line;
	out->ring = RUN_RING_NONE;
	out->outcome = RING_OUTCOME_NO_RING;
	snprintf(out->hdr.process, sizeof(out->hdr.process), "%s", process ? process : "");
	out->hdr.pid = pid > 0 && pid <= UINT32_MAX ? (uint32_t)pid : 0;
	out->hdr.app_version = app_version;
	out->hdr.version = LW_RING_VERSION;
	return 0;
}

int run_facts_died(const struct run_facts *f)
{
	return f->outcome == RING_OUTCOME_DIED || f->outcome == RING_OUTCOME_CRASHED ||
	       f->outcome == RING_OUTCOME_UNKNOWN;
}

int run_next_sample(const struct run *r, size_t *i, const struct run_sample *prev,
		    struct run_sample *out)
{
	for (; *i < r->nevents; ++*i) {
		const struct lw_ring_slot *s = &r->events[*i];
		int64_t t = ring_event_rel_ns(&r->hdr, s) - (int64_t)s->rss_age_ms * 1000000;

		if (!s->rss_kb)
			continue;
		/* The age is in whole ms: the same sample, carried again. */
		if (s->rss_kb == prev->rss_kb && llabs(t - prev->rel_ns) <= 1000000)
			continue;
		out->rel_ns = t;
		out->rss_kb = s->rss_kb;
		++*i;
		return 1;
	}
	return 0;
}

/* The slope at the end (struct run_facts): the samples after the last
 * one's time less the window, fitted by least squares, in kB/s. */
static void end_slope(const struct run *r, int64_t last_ns, struct run_facts *f)
{
	struct run_sample s = { 0, 0 }, prev = { 0, 0 };
	double n = 0, st = 0, sv = 0, stt = 0, stv = 0, first = 0, den;
	size_t i = 0;

	while (run_next_sample(r, &i, &prev, &s)) {
		/* seconds before the last sample */
		double t = (double)(s.rel_ns - last_ns) / 1e9;

		prev = s;
		if (last_ns - s.rel_ns > (int64_t)RUN_SLOPE_WINDOW_MS * 1000000)
			continue;
		if (n == 0)
			first = t;
		n++;
		st += t;
		sv += s.rss_kb;
		stt += t * t;
		stv += t * s.rss_kb;
	}
	den = n * stt - st * st;
	if (n < 2 || den <= 0 || (-first * 1000 < RUN_SLOPE_MIN_MS && n < RUN_SLOPE_MIN_SAMPLES))
		return;
	f->have_slope = 1;
	f->slope_kb_per_s = (n * stv - st * sv) / den;
	f->slope_window_ms = -first * 1000;
	f->slope_samples = (size_t)n;
}

const char *run_memory_kind_name(unsigned kind)
{
	switch (kind) {
	case RUN_MEM_ANON:
		return "anon";
	case RUN_MEM_FILE:
		return "file";
	case RUN_MEM_SHMEM:
		return "shmem";
	case RUN_MEM_SWAP:
		return "swap";
	case RUN_MEM_GRAPHICS:
		return "graphics";
	}
	return NULL;
}

void run_memory_kinds_text(unsigned kinds, int long_names, char *buf, size_t len)
{
	static const char *const longs[] = { "anonymous", "file-backed", "shared", "swap", "graphics" };
	size_t n = 0;
	unsigned k;

	buf[0] = '\0';
	for (k = 0; k < 5; k++) {
		if (!(kinds & (1u << k)) || n >= len)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "+" : "",
				      long_names ? longs[k] : run_memory_kind_name(1u << k));
	}
}

/* A memory figure with nothing known. */
void run_memory_unknown(struct run_memory *m)
{
	memset(m, 0, sizeof(*m));
	m->rss_kb = m->anon_kb = m->file_kb = m->shmem_kb = m->swap_kb = m->graphics_kb = RUN_KB_UNKNOWN;
}

static void set_composition(struct run_memory *m, const struct ring_composition *c)
{
	m->source = (enum lw_memory_source)c->source;
	m->anon_kb = c->anon_kb;
	m->file_kb = c->file_kb;
	m->shmem_kb = c->shmem_kb;
	m->swap_kb = c->swap_kb;
}

/* Record e into m, when it is a composition or a graphics figure: 1 if
 * so (set_composition(), or graphics_kb), 0 for any other record. */
int run_memory_apply(struct run_memory *m, const struct lw_ring_slot *e)
{
	struct ring_composition c;

	if (ring_event_composition(e, &c)) {
		set_composition(m, &c);
		return 1;
	}
	if (e->type != LW_EV_GRAPHICS)
		return 0;
	m->graphics_kb = e->a > INT32_MAX ? INT32_MAX : (int64_t)e->a;
	return 1;
}

/* The composition and graphics figure at record `upto` of r (its index,
 * inclusive): the last of each at or before it; rss_kb is the RSS given. */
static void memory_at(const struct run *r, size_t upto, int64_t rss_kb, struct run_memory *m)
{
	size_t i;

	run_memory_unknown(m);
	m->rss_kb = rss_kb;
	for (i = 0; i < r->nevents && i <= upto; i++) {
		const struct lw_ring_slot *e = &r->events[i];

		if (!run_memory_apply(m, e))
			continue;
		m->have = 1;
		if (e->type != LW_EV_GRAPHICS)
			m->rel_ns = ring_event_rel_ns(&r->hdr, e);
	}
}

/* What the process cannot give back (anon + shmem + swap + graphics, of
 * those m knows), with the kinds summed in *kinds; -1 without a
 * composition. */
int64_t run_memory_own(const struct run_memory *m, unsigned *kinds)
{
	int64_t sum = m->anon_kb;

	if (!m->source)
		return -1;
	*kinds = RUN_MEM_ANON;
	if (m->shmem_kb >= 0) {
		sum += m->shmem_kb;
		*kinds |= RUN_MEM_SHMEM;
	}
	if (m->swap_kb >= 0) {
		sum += m->swap_kb;
		*kinds |= RUN_MEM_SWAP;
	}
	if (m->graphics_kb >= 0) {
		sum += m->graphics_kb;
		*kinds |= RUN_MEM_GRAPHICS;
	}
	return sum;
}

/* The budget's measure (struct run_facts): the largest own sum over the
 * run when a composition is known, else the RSS's peak. */
static void budget_measure(const struct run *r, struct run_facts *f)
{
	struct run_memory m;
	int64_t best = -1, own;
	unsigned kinds = 0;
	size_t i;

	run_memory_unknown(&m);
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];

		if (!run_memory_apply(&m, e))
			continue;
		own = run_memory_own(&m, &kinds);
		if (own > best) {
			best = own;
			f->measured_kinds = kinds;
			f->measured_rel_ns = ring_event_rel_ns(&r->hdr, e);
		}
	}
	if (best >= 0) {
		f->budget_measure = RUN_BUDGET_OWN;
		f->measured_peak_kb = best > UINT32_MAX ? UINT32_MAX : (uint32_t)best;
	} else {
		f->budget_measure = RUN_BUDGET_RSS;
		f->measured_peak_kb = f->peak_kb;
	}
	f->over_budget = f->budget_kb && (f->have_rss || best >= 0) &&
			 f->measured_peak_kb > f->budget_kb;
}

/* The kinds that grew by 1 MiB or more over the stage open at death, else
 * the last stage: the last composition (and graphics figure) before its
 * last begin against the last one in it, up to its end; without one before
 * it, the first one in it. */
static void memory_grew(const struct run *r, struct run_facts *f)
{
	struct run_memory before, in;
	struct ring_composition c;
	size_t i, begin = r->nevents, end = r->nevents;

	f->grew_stage = f->open_stage != LW_STAGE_NONE ? f->open_stage : f->last_stage;
	for (i = r->nevents; i-- > 0;)
		if (r->events[i].type == LW_EV_STAGE_BEGIN && r->events[i].stage == f->grew_stage) {
			begin = i;
			break;
		}
	if (begin == r->nevents)
		return;
	if (f->grew_stage != f->open_stage)
		for (i = begin + 1; i < r->nevents; i++)
			if (r->events[i].type == LW_EV_STAGE_END && r->events[i].stage == f->grew_stage &&
			    r->events[i].d == r->events[begin].d) {
				end = i;
				break;
			}
	run_memory_unknown(&before);
	run_memory_unknown(&in);
	for (i = 0; i < end; i++) {
		const struct lw_ring_slot *e = &r->events[i];
		struct run_memory *m = i < begin ? &before : &in;

		if (e->type == LW_EV_GRAPHICS) {
			m->graphics_kb = e->a > INT32_MAX ? INT32_MAX : (int64_t)e->a;
			if (i > begin && before.graphics_kb == RUN_KB_UNKNOWN)
				before.graphics_kb = m->graphics_kb; /* none before: the first in it */
			continue;
		}
		if (!ring_event_composition(e, &c))
			continue;
		if (i > begin && !before.source)
			set_composition(&before, &c);
		set_composition(m, &c);
	}
#define GREW(a, b, bit)                                        \
	do {                                                   \
		if ((a) >= 0 && (b) >= 0 && (b) - (a) >= 1024) \
			f->grew |= (bit);                      \
	} while (0)
	if (in.source && before.source) {
		GREW(before.anon_kb, in.anon_kb, RUN_MEM_ANON);
		GREW(before.file_kb, in.file_kb, RUN_MEM_FILE);
		GREW(before.shmem_kb, in.shmem_kb, RUN_MEM_SHMEM);
		GREW(before.swap_kb, in.swap_kb, RUN_MEM_SWAP);
	}
	GREW(before.graphics_kb, in.graphics_kb, RUN_MEM_GRAPHICS);
#undef GREW
}

int run_pressure_short(const struct lw_ring_slot *s)
{
	if (s->type != LW_EV_PRESSURE || s->d)
		return 0;
	switch (s->code) {
	case LW_PRESSURE_TRIM: /* RUNNING_LOW, RUNNING_CRITICAL, MODERATE, COMPLETE */
		return s->a == 10 || s->a == 15 || s->a == 60 || s->a == 80;
	case LW_PRESSURE_MEMORY_INFO:
		return s->a != 0;
	case LW_PRESSURE_PSI: /* some avg10 of 10% or more */
		return s->a >= 1000;
	}
	return 0;
}

/* The pressure summary (struct run_pressure) from the pressure records. */
static void pressure_summary(const struct run *r, struct run_pressure *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->avail_kb = p->threshold_kb = RUN_KB_UNKNOWN;
	p->psi_some = -1;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];
		int64_t t = ring_event_rel_ns(&r->hdr, e);
		int shortage = run_pressure_short(e);

		if (e->type != LW_EV_PRESSURE)
			continue;
		if (e->d) {
			if (e->code == LW_PRESSURE_PSI && !p->psi_unreadable)
				p->psi_unreadable = (int)(e->d > INT32_MAX ? INT32_MAX : e->d);
			continue;
		}
		switch (e->code) {
		case LW_PRESSURE_TRIM:
			if (e->a > (uint64_t)p->trim_level && e->a <= INT32_MAX) {
				p->trim_level = (int)e->a;
				p->trim_rel_ns = t;
			}
			break;
		case LW_PRESSURE_MEMORY_INFO:
			if (p->memory_info < 1)
				p->memory_info = 1;
			if (e->a)
				p->memory_info = 2;
			if (p->avail_kb == RUN_KB_UNKNOWN || e->b < (uint64_t)p->avail_kb) {
				p->avail_kb = e->b > INT64_MAX ? INT64_MAX : (int64_t)e->b;
				p->threshold_kb = e->c > INT64_MAX ? INT64_MAX : (int64_t)e->c;
			}
			break;
		case LW_PRESSURE_PSI:
			if (e->a <= INT32_MAX && (int)e->a > p->psi_some)
				p->psi_some = (int)e->a;
			break;
		}
		if (shortage && !p->short_of_memory) {
			p->short_of_memory = 1;
			p->short_rel_ns = t;
		}
	}
}

void run_facts_get(const struct run *r, struct run_facts *f)
{
	struct run_sample s = { 0, 0 }, last = { 0, 0 };
	struct ring_facts rec;
	size_t i, peak_i;

	memset(f, 0, sizeof(*f));
	memset(&rec, 0, sizeof(rec));
	f->outcome = r->outcome;
	f->open_stage = r->open_stage;
	f->candidate = r->hdr.candidate;
	f->stable_candidate = r->hdr.stable_candidate;
	f->crash_signo = (int)r->hdr.crash_signo;
	f->budget_kb = r->hdr.memory_budget_kb;
	peak_i = r->nevents;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		/* Seed events are samples at a stage, not begin/end pairs. */
		if (s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END || r->ring == RUN_RING_SEED)
			f->last_stage = (enum lw_stage)s->stage;
		if (s->type == LW_EV_CANDIDATE && !f->candidate)
			f->candidate = s->a;
		if (s->type == LW_EV_CRASH)
			f->crash_signo = s->code;
		if (s->type == LW_EV_MARK &&
		    (s->code == LW_MARK_DELEGATE || s->code == LW_MARK_FALLBACK))
			f->delegates |= run_delegate_bit(s->a);
		if (s->type == LW_EV_MARK && s->code == LW_MARK_RUNTIME_VERSION) {
			f->have_runtime = 1;
			f->runtime_version = s->a;
		}
		if (s->rss_kb)
			f->last_rss_kb = s->rss_kb;
		if (s->rss_kb > f->peak_kb) { /* ring_facts_add()'s rule: the first highest */
			f->peak_kb = s->rss_kb;
			peak_i = i;
		}
		ring_facts_add(&rec, s);
	}
	/* With a stage open, the last stage is that of the session that holds
	 * it, not another's begun and ended after it. */
	if (f->open_stage != LW_STAGE_NONE && sessions_used(r) &&
	    sessions_last_stage(r, f->open_stage) != LW_STAGE_NONE)
		f->last_stage = sessions_last_stage(r, f->open_stage);
	memory_at(r, peak_i, f->peak_kb ? (int64_t)f->peak_kb : RUN_KB_UNKNOWN, &f->at_peak);
	memory_at(r, r->nevents, f->last_rss_kb ? (int64_t)f->last_rss_kb : RUN_KB_UNKNOWN,
		  &f->at_death);
	memory_grew(r, f);
	pressure_summary(r, &f->pressure);
	f->peak_kb = 0;
	if (f->last_rss_kb) {
		f->have_rss = 1;
		f->peak_kb = rec.peak_rss_kb;
		f->peak_stage = sessions_peak_stage(r, f->peak_kb, (enum lw_stage)rec.peak.stage);
	}
	budget_measure(r, f);
	if (!f->have_rss)
		return;
	i = 0;
	while (run_next_sample(r, &i, &last, &s))
		last = s;
	end_slope(r, last.rel_ns, f);
}
