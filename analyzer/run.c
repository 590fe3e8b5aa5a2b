/* Loading a run from a binary ring, or from `lastwords dump --json` lines. */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../src/signals.h"
#include "../src/vocab.h"
#include "evidence/input.h"
#include "evidence/json.h"
#include "evidence/text.h"
#include "ring-event.h"

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
	out->header_damaged = rf->header_damaged;
	if (!out->path ||
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

/* The JSON lines. */

/* An exact unsigned integer member of a JSON line: cJSON keeps numbers as
 * doubles, which lose nanoseconds past 2^53. */
static int line_u64(struct span line, const char *key, uint64_t *v)
{
	char pat[64];
	long at;
	int64_t x;
	size_t k;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = span_find(line, pat);
	if (at < 0)
		return 0;
	line = span_skip_spaces(span_from(line, (size_t)at + strlen(pat)));
	if (line.n && line.s[0] == '-')
		return 0;
	k = span_int64(line, &x);
	if (k) {
		*v = (uint64_t)x;
		return 1;
	}
	/* Beyond INT64_MAX: parse as unsigned. */
	*v = 0;
	for (k = 0; k < line.n && line.s[k] >= '0' && line.s[k] <= '9'; k++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return 0;
		*v = *v * 10 + (uint64_t)(line.s[k] - '0');
	}
	return k > 0;
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

static int hex_digest(const cJSON *o, const char *key, uint64_t *out)
{
	const char *s = json_get_string(o, key);
	uint64_t v;

	*out = 0;
	if (!s)
		return 0;
	if (span_hex64(span_of(s, strlen(s)), &v) != strlen(s))
		return -1;
	*out = v;
	return 0;
}

static int hex_id128(const char *s, uint8_t out[16])
{
	int i;

	if (!s || strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		uint64_t b;

		if (span_hex64(span_of(s + 2 * i, 2), &b) != 2)
			return -1;
		out[i] = (uint8_t)b;
	}
	return 0;
}

static int fail(struct ev_error *err, size_t line, const char *what)
{
	err->line = line;
	snprintf(err->reason, sizeof(err->reason), "%s", what);
	return -1;
}

/* The ring line's "sessions" (a version 2 ring's; cmd-dump.c writes them)
 * into r->sessions; without the member, session 0 of the header's fields,
 * as ring_header_sessions() makes it of a version 1 file. */
static int load_sessions(struct run *r, const cJSON *o, size_t lineno, struct ev_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "sessions"), *e, *st;
	struct ring_session ses[LW_RING_SESSION_SLOTS_MAX], *out;
	const char *state;
	size_t n = 0;
	int v;

	memset(ses, 0, sizeof(ses));
	if (!arr) {
		n = ring_header_sessions(&r->hdr, ses, LW_RING_SESSION_SLOTS_MAX);
		if (n && r->open_stage != LW_STAGE_NONE) {
			ses[0].open_stage = r->open_stage;
			ses[0].open_count[r->open_stage] = 1;
		}
		return set_sessions(r, ses, n) ? fail(err, lineno, "out of memory") : 0;
	}
	if (!cJSON_IsArray(arr))
		return fail(err, lineno, "expected sessions as an array");
	cJSON_ArrayForEach(e, arr) {
		if (n == LW_RING_SESSION_SLOTS_MAX)
			return fail(err, lineno, "expected at most 56 sessions");
		out = &ses[n++];
		state = json_get_string(e, "state");
		if (!cJSON_IsObject(e) || !state || json_get_int(e, "id") < 0 ||
		    json_get_int(e, "id") >= LW_RING_SESSION_SLOTS_MAX)
			return fail(err, lineno, "expected each session with an id below 56 and a state");
		out->id = (uint32_t)json_get_int(e, "id");
		out->state = strcmp(state, "open") == 0 ? LW_SESSION_OPEN : LW_SESSION_CLOSED;
		if (hex_digest(e, "candidate", &out->candidate))
			return fail(err, lineno, "expected a session's candidate as 16 hex digits or null");
		v = vocab_or_number(e, "open_stage", &vocab_stages);
		out->open_stage = v > 0 && v < LW_STAGE_COUNT ? (enum lw_stage)v : LW_STAGE_NONE;
		cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(e, "open_stages")) {
			v = cJSON_IsString(st) ? vocab_value(&vocab_stages, st->valuestring) : -1;
			if (v > 0 && v < LW_RING_STAGE_SLOTS)
				out->open_count[v] = 1; /* the JSON names them, without counts */
		}
		out->opened_mono_ns = (uint64_t)json_get_int(e, "opened_mono_ns");
		v = vocab_or_number(e, "result", &vocab_errors);
		out->result = v > 0 ? (enum lw_error)v : LW_ERR_NONE;
		out->opens = (uint32_t)json_get_int(e, "opens");
	}
	return set_sessions(r, ses, n) ? fail(err, lineno, "out of memory") : 0;
}

static int load_ring_line(struct run *r, const cJSON *o, struct span line, size_t lineno,
			  struct ev_error *err)
{
	struct lw_ring_header *h = &r->hdr;
	const char *outcome = json_get_string(o, "outcome"), *proc = json_get_string(o, "process");
	uint64_t v;
	int st;

	if (outcome && strcmp(outcome, ring_outcome_name(RING_OUTCOME_BLANK)) == 0 &&
	    line_u64(line, "slot_count", &v)) {
		/* A blank ring: its file's size, and nothing else. */
		r->outcome = RING_OUTCOME_BLANK;
		r->scan.slot_count = (uint32_t)v;
		r->scan.empty = v;
		return 0;
	}
	if (!proc || !outcome || !line_u64(line, "slot_count", &v) || !line_u64(line, "pid", &v))
		return fail(err, lineno, "expected a ring line with process, pid, outcome and slot_count");
	snprintf(h->process, sizeof(h->process), "%s", proc);
	line_u64(line, "pid", &v);
	h->pid = (uint32_t)v;
	line_u64(line, "slot_count", &v);
	h->slot_count = (uint32_t)v;
	line_u64(line, "app_version", &h->app_version);
	line_u64(line, "start_real_ns", &h->start_real_ns);
	line_u64(line, "start_boot_ns", &h->start_boot_ns);
	line_u64(line, "start_mono_ns", &h->start_mono_ns);
	if (line_u64(line, "memory_budget_kb", &v))
		h->memory_budget_kb = (uint32_t)v;
	line_u64(line, "lapped", &h->lapped);
	line_u64(line, "dropped", &h->dropped);
	line_u64(line, "head", &h->head);
	if (line_u64(line, "state", &v))
		h->state = (uint32_t)v;
	if (hex_id128(json_get_string(o, "run_id"), h->run_id) != 0)
		return fail(err, lineno, "expected run_id as 32 hex digits");
	hex_id128(json_get_string(o, "boot_id"), h->boot_id);
	if (hex_digest(o, "candidate", &h->candidate) || hex_digest(o, "ok_candidate", &h->ok_candidate) ||
	    hex_digest(o, "stable_candidate", &h->stable_candidate))
		return fail(err, lineno, "expected candidates as 16 hex digits or null");
	if (json_get_string(o, "signal"))
		h->crash_signo = (uint32_t)(signal_number(json_get_string(o, "signal")) > 0
						    ? signal_number(json_get_string(o, "signal"))
						    : 0);
	st = vocab_or_number(o, "open_stage", &vocab_stages);
	r->open_stage = st > 0 && st < LW_STAGE_COUNT ? (enum lw_stage)st : LW_STAGE_NONE;
	if (strcmp(outcome, "live") == 0)
		r->outcome = RING_OUTCOME_LIVE;
	else if (strcmp(outcome, "clean") == 0)
		r->outcome = RING_OUTCOME_CLEAN;
	else if (strcmp(outcome, "crashed") == 0)
		r->outcome = RING_OUTCOME_CRASHED;
	else if (strcmp(outcome, "died") == 0)
		r->outcome = RING_OUTCOME_DIED;
	else
		r->outcome = RING_OUTCOME_UNKNOWN;
	r->header_damaged = json_get_string(o, "header_damage") != NULL;
	r->scan.slot_count = h->slot_count;
	line_u64(line, "valid", &r->scan.valid);
	line_u64(line, "torn", &r->scan.torn);
	line_u64(line, "stale", &r->scan.stale);
	line_u64(line, "corrupt", &r->scan.corrupt);
	line_u64(line, "never_written", &r->scan.empty);
	line_u64(line, "missing", &r->scan.missing);
	r->scan.head = h->head;
	h->version = LW_RING_VERSION;
	h->slot_size = LW_RING_SLOT_SIZE;
	h->header_size = (uint16_t)LW_RING_HEADER_SIZE;
	return load_sessions(r, o, lineno, err);
}

/* One record line back into a slot: the inverse of ring_event_json(). */
static int load_event_line(struct run *r, const cJSON *o, struct span line, size_t lineno,
			   struct ev_error *err)
{
	struct lw_ring_slot s;
	uint64_t ticket, v;
	int type = vocab_or_number(o, "type", &vocab_event_types), stage;
	const char *fault, *second;

	memset(&s, 0, sizeof(s));
	if (type <= 0 || !line_u64(line, "ticket", &ticket) || !line_u64(line, "t_mono_ns", &v))
		return fail(err, lineno, "expected a record line with type, ticket and t_mono_ns");
	s.t_mono_ns = v;
	s.type = (uint8_t)type;
	stage = vocab_or_number(o, "stage", &vocab_stages);
	s.stage = (uint8_t)(stage > 0 ? stage : 0);
	if (line_u64(line, "tid", &v))
		s.tid = (uint32_t)v;
	if (line_u64(line, "flags", &v))
		s.flags = (uint8_t)v;
	if (line_u64(line, "rss_kb", &v))
		s.rss_kb = (uint32_t)v;
	if (line_u64(line, "rss_age_ms", &v))
		s.rss_age_ms = (uint32_t)v;
	switch (type) {
	case LW_EV_OPEN:
		line_u64(line, "boottime_ns", &s.a);
		line_u64(line, "realtime_ns", &s.b);
		line_u64(line, "app_version", &s.c);
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
		line_u64(line, "boottime_ns", &s.a);
		line_u64(line, "realtime_ns", &s.b);
		if (hex_digest(o, "candidate", &s.c))
			return fail(err, lineno, "expected candidate as 16 hex digits or null");
		if (line_u64(line, "session", &v))
			s.d = (uint32_t)v;
		break;
	case LW_EV_MARK: {
		int m = vocab_or_number(o, "mark", &vocab_marks);

		s.code = (uint8_t)(m > 0 ? m : 0);
		line_u64(line, "value", &s.a);
		/* The second value of the marks that have one (ring-format.md, 8):
		 * a digest, or the payload's size bucket. */
		second = json_get_string(o, "key_digest")     ? "key_digest"
			 : json_get_string(o, "files_digest") ? "files_digest"
							      : "process_digest";
		if (hex_digest(o, second, &s.b))
			return fail(err, lineno, "expected the mark's digest as 16 hex digits");
		line_u64(line, "size_bucket", &s.b);
		break;
	}
	case LW_EV_CANDIDATE:
		if (hex_digest(o, "candidate", &s.a))
			return fail(err, lineno, "expected candidate as 16 hex digits");
		break;
	case LW_EV_CRASH: {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(o, "si_code");

		if (line_u64(line, "signo", &v))
			s.code = (uint8_t)v;
		if (cJSON_IsNumber(code))
			s.b = (uint64_t)(int64_t)code->valuedouble;
		fault = json_get_string(o, "fault_addr");
		if (fault && span_hex64(span_of(fault, strlen(fault)), &s.a) != strlen(fault))
			return fail(err, lineno, "expected fault_addr as 0x and hex digits");
		if (hex_digest(o, "candidate", &s.c))
			return fail(err, lineno, "expected candidate as 16 hex digits or null");
		if (line_u64(line, "sender_pid", &v))
			s.d = (uint32_t)v;
		break;
	}
	case LW_EV_ADVICE: {
		int a = vocab_or_number(o, "advice", &vocab_advices);

		s.code = (uint8_t)(a > 0 ? a : 0);
		line_u64(line, "count", &s.b);
		if (hex_digest(o, "candidate", &s.a) || hex_digest(o, "stable_candidate", &s.c))
			return fail(err, lineno, "expected candidates as 16 hex digits or null");
		break;
	}
	case LW_EV_SYNC:
		line_u64(line, "sync", &s.a);
		break;
	case LW_EV_MEMORY:
		line_u64(line, "vm_kb", &s.a);
		break;
	case LW_EV_CLOSE:
		line_u64(line, "boottime_ns", &s.a);
		line_u64(line, "realtime_ns", &s.b);
		break;
	default:
		line_u64(line, "a", &s.a);
		line_u64(line, "b", &s.b);
		line_u64(line, "c", &s.c);
		if (line_u64(line, "d", &v))
			s.d = (uint32_t)v;
	}
	if (r->nevents && ticket <= run_event_ticket(&r->events[r->nevents - 1]))
		return fail(err, lineno, "expected tickets in increasing order");
	if (ticket >= (UINT64_MAX >> 1))
		return fail(err, lineno, "expected a ticket below 2^63");
	if (add_event(r, ticket, &s) != 0)
		return fail(err, lineno, strerror(ENOMEM));
	return 0;
}

int run_load_json(const char *path, struct input *in, struct run *out, struct ev_error *err)
{
	struct span line;
	int have_ring = 0, got;

	memset(out, 0, sizeof(*out));
	out->from_json = 1;
	out->path = strdup(path);
	if (!out->path)
		return fail(err, 0, strerror(ENOMEM));
	while ((got = input_line(in, &line)) > 0) {
		struct span t = span_trim(line);
		cJSON *o;
		int rc;

		if (t.n == 0)
			continue;
		o = cJSON_ParseWithLength(t.s, t.n);
		if (!cJSON_IsObject(o)) {
			cJSON_Delete(o);
			run_release(out);
			return fail(err, in->lineno, "expected one JSON object per line");
		}
		if (!have_ring) {
			const char *type = json_get_string(o, "type");

			rc = type && strcmp(type, "ring") == 0
				     ? load_ring_line(out, o, t, in->lineno, err)
				     : fail(err, in->lineno, "expected the ring line first");
			have_ring = 1;
		} else if (out->outcome == RING_OUTCOME_BLANK) {
			rc = fail(err, in->lineno, "expected no record after a never-initialized ring");
		} else {
			rc = load_event_line(out, o, t, in->lineno, err);
		}
		cJSON_Delete(o);
		if (rc != 0) {
			run_release(out);
			return -1;
		}
	}
	if (got < 0) {
		run_release(out);
		return input_error(in, err);
	}
	if (!have_ring) {
		run_release(out);
		return fail(err, 0, "expected a ring line; the file holds none");
	}
	return 0;
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

void run_facts_get(const struct run *r, struct run_facts *f)
{
	struct run_sample s = { 0, 0 }, last = { 0, 0 };
	struct ring_facts rec;
	size_t i;

	memset(f, 0, sizeof(*f));
	memset(&rec, 0, sizeof(rec));
	f->outcome = r->outcome;
	f->open_stage = r->open_stage;
	f->candidate = r->hdr.candidate;
	f->stable_candidate = r->hdr.stable_candidate;
	f->crash_signo = (int)r->hdr.crash_signo;
	f->budget_kb = r->hdr.memory_budget_kb;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		/* Seed events are samples at a stage, not begin/end pairs. */
		if (s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END || r->ring == RUN_RING_SEED)
			f->last_stage = (enum lw_stage)s->stage;
		if (s->type == LW_EV_CANDIDATE && !f->candidate)
			f->candidate = s->a;
		if (s->type == LW_EV_CRASH)
			f->crash_signo = s->code;
		if (s->rss_kb)
			f->last_rss_kb = s->rss_kb;
		ring_facts_add(&rec, s);
	}
	if (!f->last_rss_kb)
		return;
	f->have_rss = 1;
	f->peak_kb = rec.peak_rss_kb;
	f->peak_stage = (enum lw_stage)rec.peak.stage;
	i = 0;
	while (run_next_sample(r, &i, &last, &s))
		last = s;
	end_slope(r, last.rel_ns, f);
}
