/* Building the report from a bundle, and writing it as JSON or text. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "evidence/json.h"
#include "format.h"
#include "runs/ring-event.h"
#include "runs/sessions.h"
#include "timeline.h"

static void find_loops(struct report *r)
{
	const struct correlation *c = &r->corr;
	size_t i = 0, j;

	/* A ring-less run has no stage: it is never in a loop. */
	while (i < c->nruns) {
		const struct run_facts *f = &r->facts[i];
		const struct run *ri = c->runs[i].run;

		j = i + 1;
		if (run_facts_died(f) && vocab_stage_early(f->open_stage)) {
			while (j < c->nruns && strcmp(c->runs[j].run->hdr.process, ri->hdr.process) == 0 &&
			       run_facts_died(&r->facts[j]) && r->facts[j].open_stage == f->open_stage &&
			       r->facts[j].candidate == f->candidate)
				j++;
			if (j - i >= 2) {
				struct boot_loop *nv = realloc(r->loops, (r->nloops + 1) * sizeof(*nv));

				if (nv) {
					r->loops = nv;
					memset(&nv[r->nloops], 0, sizeof(*nv));
					snprintf(nv[r->nloops].process, sizeof(nv[0].process), "%s",
						 ri->hdr.process);
					nv[r->nloops].stage = f->open_stage;
					nv[r->nloops].candidate = f->candidate;
					nv[r->nloops].first = i;
					nv[r->nloops].count = j - i;
					r->nloops++;
				}
			}
		}
		i = j;
	}
}

/* The device's zone, when the options give none (correlate.h,
 * CORR_TZ_SOURCES): the pull's manifest's; then the bug report's
 * (persist.sys.timezone); else the offset the newest tombstone or ANR
 * trace writes after its time; else none. */
static void find_zone(const struct bundle *b, struct corr_options *opt)
{
	int64_t newest = INT64_MIN, local, off;
	size_t i, k;

	if (opt->tz_known)
		return;
	if (b->zone.known || b->bugreport_zone.known) {
		opt->tz = b->zone.known ? b->zone.tz : b->bugreport_zone.tz;
		opt->tz_known = 1;
		opt->tz_source = b->zone.known ? CORR_TZ_MANIFEST : CORR_TZ_BUGREPORT;
		return;
	}
	for (i = 0; i < b->nfiles; i++) {
		const struct ev_file *f = &b->files[i];

		for (k = 0; k < f->ntombstones + f->nanrs; k++) {
			int tomb = k < f->ntombstones;
			const char *when = tomb ? f->tombstones[k].timestamp_text
						: f->anrs[k - f->ntombstones].time_text;

			if (tz_stamp(when, &local, &off) != 1 || local - off <= newest)
				continue;
			newest = local - off;
			opt->tz.name[0] = '\0';
			opt->tz.offset_ms = off;
			opt->tz_known = 1;
			opt->tz_source = tomb ? CORR_TZ_TOMBSTONE : CORR_TZ_ANR_TRACE;
		}
	}
}

int report_build(const struct bundle *b, const struct corr_options *opt, struct report *out)
{
	struct corr_options o = *opt;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->bundle = b;
	find_zone(b, &o);
	if (correlate(b->runs, b->nruns, b->files, b->nfiles, &o, &out->corr) != 0)
		return -1;
	n = out->corr.nruns ? out->corr.nruns : 1;
	out->facts = calloc(n, sizeof(*out->facts));
	out->verdicts = calloc(n, sizeof(*out->verdicts));
	out->judged = calloc(n, sizeof(*out->judged));
	if (!out->facts || !out->verdicts || !out->judged) {
		report_release(out);
		return -1;
	}
	classify_all(&out->corr, out->facts, out->judged, out->verdicts);
	find_loops(out);
	return 0;
}

size_t report_runs(const struct report *r, enum run_ring ring)
{
	size_t i, n = 0;

	for (i = 0; i < r->corr.nruns; i++)
		n += r->corr.runs[i].run->ring == ring;
	return n;
}

void report_release(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->verdicts && i < r->corr.nruns; i++)
		verdict_release(&r->verdicts[i]);
	correlation_release(&r->corr);
	free(r->facts);
	free(r->verdicts);
	free(r->judged);
	free(r->loops);
	memset(r, 0, sizeof(*r));
}

/* The notes on the pull, for the text, the JSON and the page alike. */

#define PULL_NOTES_MAX 2
#define PULL_NOTE_LEN 512

/* The names of the missing parts that are (required) or are not, ", "
 * between them, appended to buf. */
static void missing_names(const struct bundle *b, int required, char *buf, size_t len)
{
	size_t i, used = strlen(buf);
	int first = 1;

	for (i = 0; i < b->nmissing && used < len; i++) {
		if (b->missing[i].required != required)
			continue;
		snprintf(buf + used, len - used, "%s%s", first ? "" : ", ", b->missing[i].what);
		used += strlen(buf + used);
		first = 0;
	}
}

/* A partial pull and what it lacks; several pulls read as one. Returns how
 * many notes were written into notes. */
static size_t pull_notes(const struct bundle *b, char notes[PULL_NOTES_MAX][PULL_NOTE_LEN])
{
	size_t n = 0, i, required = 0, others = 0;

	for (i = 0; i < b->nmissing; i++) {
		required += b->missing[i].required != 0;
		others += b->missing[i].required == 0;
	}
	if (!b->complete) {
		char *s = notes[n++];

		if (required) {
			snprintf(s, PULL_NOTE_LEN, "the pull is partial: it lacks ");
			missing_names(b, 1, s, PULL_NOTE_LEN);
		} else {
			snprintf(s, PULL_NOTE_LEN, "the pull is partial: its manifest says so, "
						   "without naming what it lacks");
		}
		if (others) {
			snprintf(s + strlen(s), PULL_NOTE_LEN - strlen(s), "; it has no ");
			missing_names(b, 0, s, PULL_NOTE_LEN);
		}
		snprintf(s + strlen(s), PULL_NOTE_LEN - strlen(s),
			 "; runs and evidence that were not pulled are not in this report");
	}
	if (b->nmanifests > 1)
		snprintf(notes[n++], PULL_NOTE_LEN,
			 "the inputs hold %zu pulls (a manifest.json each), read as one report: "
			 "the same run or the same file twice counts once; the time zone and the "
			 "device are those of '%s'",
			 b->nmanifests, b->manifests[0]);
	return n;
}

/* A zone name of the manifest or the bug report that this system's tzdata
 * lacks, whose offset of the pull's day (or the report's) stood in for it.
 * 1 when there is one, with its note. */
static int zone_unknown_note(const struct report *r, char *buf, size_t len)
{
	const struct bundle *b = r->bundle;

	if (r->corr.opt.tz_source == CORR_TZ_MANIFEST && b->zone.unknown[0])
		snprintf(buf, len, "the manifest's zone '%s' %s%s: the offset the pull saw stood in "
				   "for it, which is right only for records of the pull's season "
				   "(install tzdata, or pass --tz)",
			 b->zone.unknown, b->zone.why[0] ? "is refused: " : "is not in this system's tzdata",
			 b->zone.why);
	else if (r->corr.opt.tz_source == CORR_TZ_BUGREPORT && b->bugreport_zone.unknown[0])
		snprintf(buf, len, "the bug report's zone '%s' %s%s: its offset when it was taken "
				   "stood in for it, which is right only for records of that season "
				   "(install tzdata, or pass --tz)",
			 b->bugreport_zone.unknown,
			 b->bugreport_zone.why[0] ? "is refused: " : "is not in this system's tzdata",
			 b->bugreport_zone.why);
	else
		return 0;
	return 1;
}

/* Records that more than one input held (two pulls of one device). */
static void repeats_note(const struct correlation *c, char *buf, size_t len)
{
	snprintf(buf, len, "%zu record%s held by more than one input counted once", c->repeats,
		 c->repeats == 1 ? "" : "s");
}

/* JSON. */

/* A time in ms since the epoch as ISO 8601, or null when unknown. */
static void add_time(struct json *j, cJSON *o, const char *k, int64_t ms)
{
	char iso[40];

	if (ms < 0) { /* EV_NO_TIME too */
		json_null(j, o, k);
		return;
	}
	fmt_iso(iso, sizeof(iso), (uint64_t)ms * 1000000u);
	json_text(j, o, k, iso);
}

#define OPEN_STAGES_MAX 64

/* One entry of the stage timeline. */
struct stage_span {
	enum lw_stage stage;
	uint32_t session;
	double begin_ms, end_ms; /* from the run's start */
	int error;               /* enum lw_error; -1 while no end closed it */
};

/* The stage timeline: one entry per begin, closed by the matching end: the
 * latest open entry of that stage in the same session (a session's stages
 * may nest; other sessions' overlap). *out is NULL when there is none;
 * free() it. -1 on ENOMEM. */
static int stage_spans(const struct run *r, struct stage_span **out, size_t *n)
{
	size_t open[LW_STAGE_COUNT][OPEN_STAGES_MAX], depth[LW_STAGE_COUNT] = { 0 }, i, cap = 0;
	struct stage_span *v = NULL, *grown;

	*n = 0;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];
		double ms = (double)ring_event_rel_ns(&r->hdr, s) / 1e6;

		if (s->stage >= LW_STAGE_COUNT)
			continue;
		if (s->type == LW_EV_STAGE_BEGIN) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				grown = realloc(v, cap * sizeof(*v));
				if (!grown) {
					free(v);
					return -1;
				}
				v = grown;
			}
			v[*n] = (struct stage_span){ (enum lw_stage)s->stage, s->d, ms, 0, -1 };
			/* one too deep to be matched stays open */
			if (depth[s->stage] < OPEN_STAGES_MAX)
				open[s->stage][depth[s->stage]++] = *n;
			++*n;
		} else if (s->type == LW_EV_STAGE_END) {
			size_t *st = open[s->stage], k = depth[s->stage];

			while (k > 0 && v[st[k - 1]].session != s->d)
				k--;
			if (k == 0)
				continue; /* an end that closes nothing of its session */
			v[st[k - 1]].end_ms = ms;
			v[st[k - 1]].error = s->code;
			memmove(&st[k - 1], &st[k], (depth[s->stage] - k) * sizeof(*st));
			depth[s->stage]--;
		}
	}
	*out = v;
	return 0;
}

static void stage_json(struct json *j, cJSON *arr, const struct stage_span *s)
{
	cJSON *o = json_object(j, arr, NULL);

	json_name(j, o, "stage", &vocab_stages, (int)s->stage, "unknown");
	json_number(j, o, "session", s->session);
	json_number(j, o, "begin_ms", s->begin_ms);
	if (s->error < 0) {
		json_null(j, o, "end_ms");
		json_null(j, o, "error");
	} else {
		json_number(j, o, "end_ms", s->end_ms);
		json_name(j, o, "error", &vocab_errors, s->error, "unknown");
	}
}

/* The timeline as a JSON array: free with cJSON_Delete; NULL on ENOMEM. */
static cJSON *stages_json(const struct run *r)
{
	struct stage_span *v;
	struct json j;
	cJSON *arr;
	size_t n, i;

	if (stage_spans(r, &v, &n) != 0)
		return NULL;
	arr = json_begin_array(&j);
	for (i = 0; i < n; i++)
		stage_json(&j, arr, &v[i]);
	free(v);
	return json_end(&j);
}

static void exit_record_json(struct json *j, cJSON *arr, const struct corr_match *x)
{
	const struct exit_record *e = &x->file->exits[x->index];
	cJSON *rec = json_object(j, arr, NULL);

	json_text(j, rec, "file", x->file->path);
	json_number(j, rec, "line", (double)e->line);
	json_number(j, rec, "reason", (double)e->reason);
	json_number(j, rec, "subreason", (double)e->subreason);
	json_number(j, rec, "status", (double)e->status);
	json_number(j, rec, "importance", (double)e->importance);
	json_text(j, rec, "timestamp", e->timestamp_text);
	json_text(j, rec, "description", e->description);
	json_text(j, rec, "joined_by", x->by_run_id ? "run id" : "process, pid and time");
}

/* "no_ring": why a ring-less run has no ring, and where its first witness
 * is; null for a run with a ring (or the seed's events). */
static void no_ring_json(struct json *j, cJSON *o, const struct corr_run *cr)
{
	cJSON *x;

	if (cr->run->ring != RUN_RING_NONE) {
		json_null(j, o, "no_ring");
		return;
	}
	x = json_object(j, o, "no_ring");
	json_text(j, x, "why", corr_reason_name(cr->no_ring));
	json_text(j, x, "why_text", corr_reason_text(cr->no_ring));
	json_number(j, x, "line", (double)cr->run->line);
}

/* "peer_died", when the main process's mark joined the run: its ring and
 * record, who saw the death, and when. */
static void peer_json(struct json *j, cJSON *o, const struct corr_run *cr)
{
	const struct corr_peer *p = &cr->peer;
	const struct lw_ring_slot *m;
	cJSON *x;
	char iso[40];

	if (!p->witness)
		return;
	m = &p->witness->events[p->event];
	x = json_object(j, o, "peer_died");
	json_text(j, x, "file", p->witness->path);
	json_u64(j, x, "ticket", run_event_ticket(m));
	json_text(j, x, "process", p->witness->hdr.process);
	json_number(j, x, "pid", p->witness->hdr.pid);
	fmt_iso(iso, sizeof(iso), ring_event_real_ns(&p->witness->hdr, m));
	json_text(j, x, "time", iso);
}

/* The run's damaged header fields, one string each ("session 2: state
 * field holds 7, not a session state"): empty when none is. */
static void damage_json(struct json *j, cJSON *o, const struct run *r)
{
	cJSON *a = json_array(j, o, "header_damage");
	const char *p = r->header_damage, *end;
	char field[200];

	while (p && *p) {
		end = strstr(p, "; ");
		snprintf(field, sizeof(field), "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
		json_text(j, a, NULL, field);
		p = end ? end + 2 : NULL;
	}
}

/* The run's sessions (sessions.h), and the candidates resident at its
 * end: at death, for a run that died. */
static void sessions_json(struct json *j, cJSON *o, const struct run *r)
{
	struct session_view sv[LW_RING_SESSION_SLOTS_MAX];
	size_t n = sessions_view(r, sv, LW_RING_SESSION_SLOTS_MAX), k;
	cJSON *arr = json_array(j, o, "sessions"), *res;
	int st;

	for (k = 0; k < n; k++) {
		cJSON *x = json_object(j, arr, NULL), *stages;

		json_number(j, x, "id", sv[k].id);
		json_digest(j, x, "candidate", sv[k].candidate);
		json_text(j, x, "state", sv[k].state == LW_SESSION_OPEN ? "open" : "closed");
		json_number(j, x, "opens", sv[k].opens);
		if (sv[k].opened_ms < 0)
			json_null(j, x, "opened_ms");
		else
			json_number(j, x, "opened_ms", sv[k].opened_ms);
		if (sv[k].closed_ms < 0)
			json_null(j, x, "closed_ms");
		else
			json_number(j, x, "closed_ms", sv[k].closed_ms);
		if (sv[k].state == LW_SESSION_OPEN)
			json_null(j, x, "result");
		else
			json_name(j, x, "result", &vocab_errors, (int)sv[k].result, "unknown");
		stages = json_array(j, x, "open_stages");
		for (st = 1; st < LW_RING_STAGE_SLOTS; st++)
			if (sv[k].open_stages >> st & 1)
				json_name(j, stages, NULL, &vocab_stages, st, "unknown");
		json_u64(j, x, "peak_kb", sv[k].peak_kb);
		json_name(j, x, "peak_stage", &vocab_stages, (int)sv[k].peak_stage, "unknown");
	}
	res = json_array(j, o, "resident_candidates");
	for (k = 0; k < n; k++)
		if (sv[k].resident)
			json_digest(j, res, NULL, sv[k].candidate);
}

/* Run i into runs; with its stages, or with "stages" left empty (for
 * run_write(), which writes them one at a time). */
static void run_json(struct json *j, cJSON *runs, const struct report *rep, size_t i,
		     int with_stages)
{
	const struct corr_run *cr = &rep->corr.runs[i];
	const struct run *r = cr->run;
	const struct run_facts *f = &rep->facts[i];
	const struct verdict *v = &rep->verdicts[i];
	cJSON *o = json_object(j, runs, NULL), *m, *a;
	int ringless = r->ring == RUN_RING_NONE;
	char id[40];
	size_t k;

	json_text(j, o, "process", r->hdr.process);
	/* What nobody knows is null, never a value: the pid of a witness that
	 * names none (and a seed run's), the app version nothing gave, and
	 * of a ring-less run its stages and memory (DESIGN.md, "Runs
	 * without a ring"), which no ring told. */
	if (r->hdr.pid)
		json_number(j, o, "pid", r->hdr.pid);
	else
		json_null(j, o, "pid");
	json_text(j, o, "ring", run_ring_name(r->ring));
	fmt_id128(id, sizeof(id), r->hdr.run_id);
	/* A ring-less run has none, nor does a hand-written ring that leaves
	 * it out: 16 zero bytes, which the probe never draws. */
	json_text(j, o, "run_id",
		  r->ring == RUN_RING_NONE || !memcmp(r->hdr.run_id, (uint8_t[16]){ 0 }, 16) ? NULL
											  : id);
	json_text(j, o, "file", r->path);
	no_ring_json(j, o, cr);
	add_time(j, o, "start", r->ring != RUN_RING_PROBE ? EV_NO_TIME : cr->start_ms);
	add_time(j, o, "end", r->ring == RUN_RING_SEED || cr->last_ms == CORR_NO_START
				      ? EV_NO_TIME
				      : cr->last_ms);
	if (r->hdr.app_version)
		json_u64(j, o, "app_version", r->hdr.app_version);
	else
		json_null(j, o, "app_version");
	json_digest(j, o, "candidate", f->candidate);
	json_digest(j, o, "stable_candidate", f->stable_candidate);
	json_text(j, o, "outcome", ring_outcome_name(f->outcome));
	if (ringless) {
		json_null(j, o, "last_stage");
		json_null(j, o, "stage_open");
		json_null(j, o, "open_stage");
	} else {
		json_name(j, o, "last_stage", &vocab_stages, f->last_stage, "unknown");
		json_bool(j, o, "stage_open", f->open_stage != LW_STAGE_NONE);
		json_name(j, o, "open_stage", &vocab_stages, f->open_stage, "unknown");
	}
	if (with_stages)
		json_item(j, o, "stages", stages_json(r));
	else
		json_array(j, o, "stages");
	sessions_json(j, o, r);
	damage_json(j, o, r);
	m = json_object(j, o, "memory");
	if (ringless)
		json_null(j, m, "budget_kb");
	else
		json_u64(j, m, "budget_kb", f->budget_kb);
	if (f->have_rss) {
		json_u64(j, m, "peak_kb", f->peak_kb);
		json_name(j, m, "peak_stage", &vocab_stages, f->peak_stage, "unknown");
	} else {
		json_null(j, m, "peak_kb");
		json_null(j, m, "peak_stage");
	}
	if (ringless)
		json_null(j, m, "over_budget");
	else
		json_bool(j, m, "over_budget", f->budget_kb && f->peak_kb > f->budget_kb);
	if (f->have_slope) {
		json_number(j, m, "slope_kb_per_s", (double)(int64_t)f->slope_kb_per_s);
		json_number(j, m, "slope_window_ms", (double)(int64_t)(f->slope_window_ms * 1000) / 1000);
		json_number(j, m, "slope_samples", (double)f->slope_samples);
	} else {
		json_null(j, m, "slope_kb_per_s");
		json_null(j, m, "slope_window_ms");
		json_null(j, m, "slope_samples");
	}
	a = json_array(j, o, "exit_records");
	for (k = 0; k < cr->exits.n; k++)
		exit_record_json(j, a, &cr->exits.v[k]);
	peer_json(j, o, cr);
	if (!rep->judged[i]) {
		json_null(j, o, "classification");
		json_null(j, o, "evidence_level");
	} else {
		json_name(j, o, "classification", &vocab_exit_classes, (int)v->cls, NULL);
		json_name(j, o, "evidence_level", &vocab_evidence_levels, (int)v->level, NULL);
	}
	a = json_array(j, o, "rules");
	for (k = 0; k < v->nrules; k++)
		json_text(j, a, NULL, v->rules[k]);
	a = json_array(j, o, "evidence");
	for (k = 0; k < v->nevidence; k++)
		json_text(j, a, NULL, v->evidence[k]);
	a = json_array(j, o, "missing");
	for (k = 0; k < v->nmissing; k++)
		json_text(j, a, NULL, v->missing[k]);
	json_text(j, o, "contradiction", v->contradiction);
	m = json_object(j, o, "recovery");
	a = json_array(j, m, "actions");
	for (k = 0; k < v->nactions; k++) {
		cJSON *x = json_object(j, a, NULL);

		json_name(j, x, "action", &vocab_actions, (int)v->actions[k].action, NULL);
		json_text(j, x, "why", v->actions[k].why);
	}
	timeline_json(j, o, "timeline", cr, f, &rep->corr);
}

static void boot_loop_json(struct json *j, cJSON *arr, const struct report *r,
			   const struct boot_loop *l)
{
	cJSON *o = json_object(j, arr, NULL), *a;
	size_t k;

	json_text(j, o, "process", l->process);
	json_name(j, o, "stage", &vocab_stages, l->stage, "unknown");
	json_digest(j, o, "candidate", l->candidate);
	json_number(j, o, "count", (double)l->count);
	a = json_array(j, o, "pids");
	for (k = 0; k < l->count; k++)
		json_number(j, a, NULL, r->corr.runs[l->first + k].run->hdr.pid);
	a = json_array(j, o, "actions");
	json_text(j, a, NULL, "stop_prewarm");
	if (l->candidate)
		json_text(j, a, NULL, "isolate_candidate");
	if (r->facts[l->first + l->count - 1].stable_candidate)
		json_text(j, a, NULL, "revert_to_stable");
}

static void unmatched_json(struct json *j, cJSON *arr, const struct corr_unmatched *u)
{
	const struct exit_record *e = &u->file->exits[u->index];
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "file", u->file->path);
	json_number(j, o, "line", (double)e->line);
	json_number(j, o, "pid", (double)e->pid);
	json_text(j, o, "process", e->process);
	json_number(j, o, "reason", (double)e->reason);
	json_text(j, o, "timestamp", e->timestamp_text);
	json_text(j, o, "why", corr_reason_name(u->reason));
	json_text(j, o, "why_text", corr_reason_text(u->reason));
}

/* The evidence file loaded from input in, or NULL (a ring, an error). */
static const struct ev_file *input_file(const struct bundle *b, const struct bundle_input *in)
{
	size_t i;

	for (i = 0; i < b->nfiles; i++)
		if (strcmp(b->files[i].path, in->path) == 0)
			return &b->files[i];
	return NULL;
}

/* An input: its kind, and for a logcat holding a tombstone or toString()
 * lines, the kind it holds; what was cut of it to a limit. */
static void input_json(struct json *j, cJSON *arr, const struct bundle *b,
		       const struct bundle_input *in)
{
	const struct ev_file *f = input_file(b, in);
	cJSON *x = json_object(j, arr, NULL);
	char cut[EV_CUT_TEXT_MAX];

	json_text(j, x, "file", in->path);
	if (f && f->in_logcat) {
		json_text(j, x, "kind", ev_kind_name(EV_KIND_LOGCAT));
		json_text(j, x, "holds", ev_kind_name(in->kind));
	} else {
		json_text(j, x, "kind", ev_kind_name(in->kind));
	}
	if (in->error[0])
		json_text(j, x, "error", in->error);
	if (in->skipped[0])
		json_text(j, x, "skipped", in->skipped);
	if (in->duplicate_of)
		json_text(j, x, "duplicate_of", in->duplicate_of);
	if (in->note)
		json_text(j, x, "note", in->note);
	if (f && ev_cut_text(&f->stats, cut, sizeof(cut)))
		json_text(j, x, "cut", cut);
	if (f)
		ev_dropped_json(j, x, "records_cut", &f->stats);
	if (f && f->stats.skipped) {
		cJSON *n = json_object(j, x, "not_understood");

		json_number(j, n, "lines", (double)f->stats.skipped);
		json_number(j, n, "first_line", (double)f->stats.first_skipped);
	}
}

/* "pull": what the manifests say (only when there is one). */
static void pull_json(struct json *j, cJSON *o, const struct bundle *b)
{
	char notes[PULL_NOTES_MAX][PULL_NOTE_LEN];
	cJSON *p = json_object(j, o, "pull"), *a, *x;
	size_t i, n = pull_notes(b, notes);

	a = json_array(j, p, "manifests");
	for (i = 0; i < b->nmanifests; i++)
		json_text(j, a, NULL, b->manifests[i]);
	json_bool(j, p, "complete", b->complete);
	a = json_array(j, p, "missing");
	for (i = 0; i < b->nmissing; i++) {
		x = json_object(j, a, NULL);
		json_text(j, x, "what", b->missing[i].what);
		json_text(j, x, "reason", b->missing[i].reason);
		json_bool(j, x, "required", b->missing[i].required);
	}
	a = json_array(j, p, "notes");
	for (i = 0; i < n; i++)
		json_text(j, a, NULL, notes[i]);
}

/* The bug reports read: what each one's main text says. */
static void bugreports_json(struct json *j, cJSON *o, const struct bundle *b)
{
	cJSON *a = json_array(j, o, "bugreports"), *x;
	size_t i;

	for (i = 0; i < b->nbugreports; i++) {
		const struct bundle_bugreport *br = &b->bugreports[i];
		const struct bugreport_info *info = &br->info;

		x = json_object(j, a, NULL);
		json_text(j, x, "file", br->path);
		json_text(j, x, "main_text", br->text);
		json_text(j, x, "taken", info->taken[0] ? info->taken : NULL);
		json_text(j, x, "fingerprint", info->fingerprint[0] ? info->fingerprint : NULL);
		json_int_or_null(j, x, "sdk", br->text ? info->sdk : EV_NONE, EV_NONE);
		json_text(j, x, "zone", info->zone[0] ? info->zone : NULL);
		json_number(j, x, "sections", (double)info->sections);
		json_number(j, x, "sections_read", (double)info->pieces);
		json_number(j, x, "entries_not_read", (double)br->nunread);
	}
}

/* The report's tree, with its runs or with "runs" left empty (for
 * report_json_write(), which writes them one at a time). */
static cJSON *report_tree(const struct report *r, int with_runs)
{
	const struct bundle *b = r->bundle;
	struct json j;
	cJSON *o = json_begin(&j), *a, *x;
	char note[TZ_NAME_MAX + TZ_WHY_MAX + 200];
	int signaled_lmk = 0;
	size_t i, k;

	json_number(&j, o, "report_version", 1);
	x = json_object(&j, o, "timezone");
	json_number(&j, x, "offset_minutes", (double)(corr_tz_offset(&r->corr) / 60000));
	json_text(&j, x, "name", r->corr.opt.tz.name[0] ? r->corr.opt.tz.name : NULL);
	json_text(&j, x, "source", corr_tz_source_name(r->corr.opt.tz_source));
	json_bool(&j, x, "assumed", corr_tz_assumed(&r->corr));
	json_number(&j, o, "clock_tolerance_ms", (double)r->corr.opt.tolerance_ms);
	a = json_array(&j, o, "inputs");
	for (i = 0; i < b->ninputs; i++)
		input_json(&j, a, b, &b->inputs[i]);
	if (b->nmanifests)
		pull_json(&j, o, b);
	if (b->nbugreports)
		bugreports_json(&j, o, b);
	a = json_array(&j, o, "packages");
	for (i = 0; i < r->corr.npackages; i++) {
		x = json_object(&j, a, NULL);
		json_text(&j, x, "name", r->corr.packages[i].name);
		json_text(&j, x, "why", corr_package_why_name(r->corr.packages[i].why));
	}
	a = json_array(&j, o, "runs");
	for (i = 0; i < r->corr.nruns; i++) {
		if (with_runs)
			run_json(&j, a, r, i, 1);
		for (k = 0; k < r->verdicts[i].nrules; k++)
			signaled_lmk |= strcmp(r->verdicts[i].rules[k], "lmk-as-signaled") == 0;
	}
	a = json_array(&j, o, "boot_loops");
	for (i = 0; i < r->nloops; i++)
		boot_loop_json(&j, a, r, &r->loops[i]);
	a = json_array(&j, o, "unmatched_exit_records");
	for (i = 0; i < r->corr.nunmatched; i++)
		unmatched_json(&j, a, &r->corr.unmatched[i]);
	x = json_object(&j, o, "device");
	a = json_array(&j, x, "notes");
	if (signaled_lmk)
		json_text(&j, a, NULL,
			  "low-memory kills are reported as SIGNALED/9: this device does not report "
			  "LMK kills to ActivityManager");
	if (corr_tz_assumed(&r->corr))
		json_text(&j, a, NULL,
			  "dumpsys and logcat times are local; they were taken as UTC (pass --tz to "
			  "set the device's offset)");
	if (zone_unknown_note(r, note, sizeof(note)))
		json_text(&j, a, NULL, note);
	if (r->corr.repeats) {
		char note[120];

		repeats_note(&r->corr, note, sizeof(note));
		json_text(&j, a, NULL, note);
	}
	return json_end(&j);
}

cJSON *report_json(const struct report *r)
{
	return report_tree(r, 1);
}

/*
 * The JSON report written piece by piece, as cJSON would print the whole
 * tree: an object printed alone is indented as the same object nested
 * deeper, less tabs tabs after each newline. So a tree is printed with one
 * array member empty ("runs" of the report, "stages" of a run), and that
 * member's elements, each printed alone, go between its brackets, with
 * cJSON's ", " between them. A string never holds a raw newline or tab, so
 * the empty member's text is found only where it is.
 */

/* n bytes of text, with tabs more tabs after each newline. */
static void put_indented(FILE *out, const char *text, size_t n, int tabs)
{
	const char *nl;

	while (n && (nl = memchr(text, '\n', n)) != NULL) {
		fwrite(text, 1, (size_t)(nl - text) + 1, out);
		fprintf(out, "%.*s", tabs, "\t\t\t\t\t\t\t\t");
		n -= (size_t)(nl - text) + 1;
		text = nl + 1;
	}
	fwrite(text, 1, n, out);
}

/* The ']' of the empty array member name of a top object's text, or NULL. */
static const char *empty_member(const char *text, const char *name)
{
	char pat[32];
	const char *at;

	snprintf(pat, sizeof(pat), "\n\t\"%s\":\t[]", name);
	at = strstr(text, pat);
	return at ? at + strlen(pat) - 1 : NULL;
}

/* Tree (deleted here) with the n elements of its empty array member name
 * written by each(), tabs deeper; 0, or -1 on ENOMEM. */
static int put_spliced(FILE *out, cJSON *tree, int tabs, const char *name, size_t n,
		       int (*each)(FILE *out, const void *ctx, size_t k, int tabs), const void *ctx)
{
	char *text = tree ? json_serialize(tree, 1) : NULL;
	const char *at = text ? empty_member(text, name) : NULL;
	size_t k;
	int rc = at ? 0 : -1;

	cJSON_Delete(tree);
	if (at) {
		put_indented(out, text, (size_t)(at - text), tabs);
		for (k = 0; k < n && rc == 0; k++) {
			if (k)
				fputs(", ", out);
			rc = each(out, ctx, k, tabs + 2);
		}
		put_indented(out, at, strlen(at), tabs);
	}
	free(text);
	return rc;
}

/* One element (a JSON array's first item), tabs deeper; -1 on ENOMEM. */
static int put_element(FILE *out, cJSON *arr, int tabs)
{
	char *text = arr && arr->child ? json_serialize(arr->child, 1) : NULL;

	cJSON_Delete(arr);
	if (!text)
		return -1;
	put_indented(out, text, strlen(text), tabs);
	free(text);
	return 0;
}

/* Stage k of the spans at ctx. */
static int put_stage(FILE *out, const void *ctx, size_t k, int tabs)
{
	const struct stage_span *spans = ctx;
	struct json j;
	cJSON *arr = json_begin_array(&j);

	stage_json(&j, arr, &spans[k]);
	return put_element(out, json_end(&j), tabs);
}

/* Run i of the report at ctx. */
static int put_run(FILE *out, const void *ctx, size_t i, int tabs)
{
	const struct report *r = ctx;
	struct stage_span *spans;
	struct json j;
	cJSON *arr = json_begin_array(&j), *tree;
	size_t n;
	int rc;

	run_json(&j, arr, r, i, 0);
	tree = json_end(&j);
	if (!tree || stage_spans(r->corr.runs[i].run, &spans, &n) != 0) {
		cJSON_Delete(tree);
		return -1;
	}
	rc = put_spliced(out, cJSON_DetachItemViaPointer(tree, tree->child), tabs, "stages", n,
			 put_stage, spans);
	cJSON_Delete(tree);
	free(spans);
	return rc;
}

int report_json_write(const struct report *r, FILE *out)
{
	int rc = put_spliced(out, report_tree(r, 0), 0, "runs", r->corr.nruns, put_run, r);

	fputc('\n', out);
	return rc;
}

/* Where the zone came from, for people. */
static const char *tz_source_text(const struct report *r)
{
	switch (r->corr.opt.tz_source) {
	case CORR_TZ_OPTION:
		return "--tz";
	case CORR_TZ_MANIFEST:
		return "the pull's manifest";
	case CORR_TZ_BUGREPORT:
		return r->corr.opt.tz.name[0] ? "the bug report's persist.sys.timezone"
					      : "the bug report's clock when it was taken";
	case CORR_TZ_TOMBSTONE:
		return "the newest tombstone's own time";
	case CORR_TZ_ANR_TRACE:
		return "the newest ANR trace's own time";
	default:
		return "nowhere: taken as UTC";
	}
}

/* Text: one screen per run. */

/* "load ok, delegate_prepare delegate_error, inference ok x5, inference
 * open": the stages in order, with repeats folded. */
static void print_fold(FILE *out, const char *what, int n, int *first)
{
	fprintf(out, "%s%s", *first ? "" : ", ", what);
	if (n > 1)
		fprintf(out, " x%d", n);
	*first = 0;
}

static void stages_text(const struct run *r, FILE *out)
{
	struct stage_span *v;
	char prev[96] = "", cur[96];
	int n = 0, first = 1;
	size_t k, count;

	if (stage_spans(r, &v, &count) != 0 || count == 0) {
		free(v);
		return;
	}
	fprintf(out, "stages     ");
	for (k = 0; k < count; k++) {
		const char *st = vocab_name(&vocab_stages, (int)v[k].stage);
		const char *err = vocab_name(&vocab_errors, v[k].error);

		snprintf(cur, sizeof(cur), "%s %s", st ? st : "unknown",
			 v[k].error < 0 ? "open" : v[k].error == LW_ERR_NONE ? "ok" : err ? err : "unknown");
		if (n && strcmp(cur, prev) == 0) {
			n++;
			continue;
		}
		if (n)
			print_fold(out, prev, n, &first);
		snprintf(prev, sizeof(prev), "%s", cur);
		n = 1;
	}
	print_fold(out, prev, n, &first);
	fputc('\n', out);
	free(v);
}

/* The pull's notes and what it lacks, at the top: they bear on all else. */
/* The run's sessions, when the app opened its own: each with its
 * candidate, how it ended and its peak; then the candidates resident at
 * the end. Session 0 is left out when it held nothing. */
static void sessions_text(const struct run *r, FILE *out)
{
	struct session_view sv[LW_RING_SESSION_SLOTS_MAX];
	size_t n, k, lines = 0, nres = 0;
	int st;

	if (!sessions_used(r))
		return;
	n = sessions_view(r, sv, LW_RING_SESSION_SLOTS_MAX);
	for (k = 0; k < n; k++) {
		const struct session_view *s = &sv[k];
		char cand[24] = "no candidate", peak[24];

		if (s->id == 0 && !s->candidate && !s->open_stages && !s->peak_kb)
			continue;
		if (s->candidate)
			fmt_digest(cand, sizeof(cand), s->candidate);
		fprintf(out, "%s %-3u %s ", lines++ ? "          " : "sessions  ", s->id, cand);
		if (s->state == LW_SESSION_OPEN)
			fprintf(out, "open");
		else
			fprintf(out, "closed (%s)", s->result == LW_ERR_NONE ? "ok"
				: vocab_name(&vocab_errors, (int)s->result)
					? vocab_name(&vocab_errors, (int)s->result) : "unknown");
		for (st = 1; st < LW_RING_STAGE_SLOTS; st++)
			if (s->open_stages >> st & 1)
				fprintf(out, ", %s open", vocab_name(&vocab_stages, st));
		if (s->peak_kb) {
			fmt_kb(peak, sizeof(peak), s->peak_kb);
			fprintf(out, ", peak %s in %s", peak, vocab_name(&vocab_stages, (int)s->peak_stage));
		}
		fputc('\n', out);
		nres += s->resident != 0;
	}
	if (!nres)
		return;
	fprintf(out, "resident   ");
	for (k = 0, lines = 0; k < n; k++) {
		char cand[24];

		if (!sv[k].resident)
			continue;
		fmt_digest(cand, sizeof(cand), sv[k].candidate);
		fprintf(out, "%s%s", lines++ ? ", " : "", cand);
	}
	fprintf(out, " at the end\n");
}

static void pull_text(const struct bundle *b, FILE *out, size_t nruns)
{
	char notes[PULL_NOTES_MAX][PULL_NOTE_LEN];
	size_t i, n = pull_notes(b, notes);

	for (i = 0; i < n; i++) {
		fprintf(out, "note: %s\n", fmt_text(notes[i]));
		if (i == 0 && !b->complete) {
			size_t k;

			for (k = 0; k < b->nmissing; k++)
				fprintf(out, "      missing %s%s: %s\n", fmt_text(b->missing[k].what),
					b->missing[k].required ? " (required)" : "",
					fmt_text(b->missing[k].reason));
		}
	}
	if (n && nruns) /* the sections after the runs begin with their own */
		fputc('\n', out);
}

/* The evidence cut to a limit: lines too long, frames or records too many. */
static void cut_text(const struct bundle *b, FILE *out)
{
	char cut[EV_CUT_TEXT_MAX];
	size_t i, n = 0;

	for (i = 0; i < b->nfiles; i++) {
		if (!ev_cut_text(&b->files[i].stats, cut, sizeof(cut)))
			continue;
		if (n++ == 0)
			fprintf(out, "\ninputs cut to a limit (lastwords(1), LIMITS):\n");
		fprintf(out, "  '%s': %s\n", fmt_text(b->files[i].path), cut);
	}
}

/* The inputs whose lines of a layout their parser does not know were
 * counted and skipped (a section of a newer release, a pasted fragment):
 * the rest of each was read. */
static void not_understood_text(const struct report *r, FILE *out)
{
	size_t i, n = 0;

	for (i = 0; i < r->bundle->nfiles; i++) {
		const struct ev_file *f = &r->bundle->files[i];

		if (!f->stats.skipped)
			continue;
		if (n++ == 0)
			fprintf(out, "\nlines not understood, counted and skipped (the rest was read):\n");
		fprintf(out, "  '%s': %zu line%s, the first at line %zu\n", fmt_text(f->path),
			f->stats.skipped, f->stats.skipped == 1 ? "" : "s", f->stats.first_skipped);
	}
}

/* The inputs left out of the report (skipped, copies, blank rings). */
static void left_out_text(const struct bundle *b, FILE *out)
{
	size_t i, n = 0;

	for (i = 0; i < b->ninputs; i++) {
		const struct bundle_input *in = &b->inputs[i];

		if (!in->skipped[0] && !in->note)
			continue;
		if (n++ == 0)
			fprintf(out, "\ninputs left out:\n");
		fprintf(out, "  '%s': %s", fmt_text(in->path),
			fmt_text(in->skipped[0] ? in->skipped : in->note));
		if (in->duplicate_of)
			fprintf(out, "; '%s' is read", fmt_text(in->duplicate_of));
		fputc('\n', out);
	}
}

/* The packages judged, and why, when it bears on the report: some run is
 * ring-less, or a record of another package is left out. */
static void packages_text(const struct report *r, FILE *out)
{
	size_t i, other = 0;

	for (i = 0; i < r->corr.nunmatched; i++)
		other += r->corr.unmatched[i].reason == CORR_OTHER_PACKAGE;
	if (!r->corr.npackages || (!report_runs(r, RUN_RING_NONE) && !other))
		return;
	fprintf(out, "packages   judged: ");
	for (i = 0; i < r->corr.npackages; i++) {
		const struct corr_package *p = &r->corr.packages[i];

		fprintf(out, "%s%s", i ? ", " : "", fmt_text(p->name));
		if (i + 1 == r->corr.npackages || r->corr.packages[i + 1].why != p->why)
			fprintf(out, " (%s)", p->why == CORR_PACKAGE_RING     ? "their rings"
					      : p->why == CORR_PACKAGE_OPTION ? "--package"
									: "in the evidence: no ring and no --package");
	}
	if (other)
		fprintf(out, "; %zu record%s of other packages listed, not judged", other,
			other == 1 ? "" : "s");
	fputs("\n\n", out);
}

/* The bug reports read, one line each. */
static void bugreports_text(const struct bundle *b, FILE *out)
{
	size_t i;

	for (i = 0; i < b->nbugreports; i++) {
		const struct bundle_bugreport *br = &b->bugreports[i];
		const struct bugreport_info *info = &br->info;

		fprintf(out, "bug report '%s': ", fmt_text(br->path));
		if (!br->text) {
			fprintf(out, "its main text was not read\n");
			continue;
		}
		fprintf(out, "dumpstate %s, build %s", info->taken[0] ? info->taken : "(no header)",
			fmt_text(info->fingerprint[0] ? info->fingerprint : "unknown"));
		if (info->sdk != EV_NONE)
			fprintf(out, " (SDK %lld)", (long long)info->sdk);
		fprintf(out, ", zone %s; %zu of its %zu sections read", fmt_text(info->zone[0] ? info->zone : "not set"),
			info->pieces, info->sections);
		if (br->nunread)
			fprintf(out, ", %zu entr%s holding no evidence not read", br->nunread,
				br->nunread == 1 ? "y" : "ies");
		fputc('\n', out);
	}
	if (b->nbugreports)
		fputc('\n', out);
}

/* The head of a run's section: where it was read from, and when it started
 * (a ring) or died (a ring-less run). */
static void run_head_text(const struct corr_run *cr, const struct run_facts *f, size_t i,
			  FILE *out)
{
	const struct run *run = cr->run;
	char when[48], cand[24] = "none", version[24] = "unknown";

	if (run->hdr.pid)
		fprintf(out, "%s== %s  pid %u  (", i ? "\n" : "", fmt_text(run->hdr.process), run->hdr.pid);
	else /* a seed run's, a witness's that names none */
		fprintf(out, "%s== %s  pid unknown  (", i ? "\n" : "", fmt_text(run->hdr.process));
	if (run->ring == RUN_RING_NONE) {
		fprintf(out, "ring-less: %s line %zu)\n", fmt_text(run->path), run->line);
		if (cr->last_ms == CORR_NO_START)
			snprintf(when, sizeof(when), "at an unknown time");
		else
			fmt_utc(when, sizeof(when), (uint64_t)cr->last_ms * 1000000u, 1);
		if (run->hdr.app_version)
			snprintf(version, sizeof(version), "%" PRIu64, run->hdr.app_version);
		fprintf(out, "ended      %s, app version %s; no ring: stage and candidate unknown\n",
			when, version);
		return;
	}
	fprintf(out, "%s)\n", fmt_text(run->path));
	if (run->ring == RUN_RING_SEED)
		snprintf(when, sizeof(when), "(ring-less run from seed events)");
	else
		fmt_utc(when, sizeof(when), run->hdr.start_real_ns, 1);
	if (f->candidate)
		fmt_digest(cand, sizeof(cand), f->candidate);
	fprintf(out, "started    %s, app version %" PRIu64 ", candidate %s\n", when,
		run->hdr.app_version, cand);
	fprintf(out, "outcome    %s%s%s%s\n", ring_outcome_name(f->outcome), f->open_stage ? ", " : "",
		f->open_stage ? vocab_name(&vocab_stages, (int)f->open_stage) : "",
		f->open_stage ? " was open" : "");
	if (run->header_damage)
		fprintf(out, "damaged    the ring header's fields: %s (not used: no session is built "
			     "on a damaged entry)\n",
			fmt_text(run->header_damage));
}

void report_text(const struct report *r, FILE *out)
{
	const struct bundle *b = r->bundle;
	size_t i, k;

	pull_text(b, out, r->corr.nruns);
	bugreports_text(b, out);
	packages_text(r, out);
	for (i = 0; i < r->corr.nruns; i++) {
		const struct corr_run *cr = &r->corr.runs[i];
		const struct run *run = cr->run;
		const struct run_facts *f = &r->facts[i];
		const struct verdict *v = &r->verdicts[i];
		char peak[24], budget[24];

		run_head_text(cr, f, i, out);
		stages_text(run, out);
		sessions_text(run, out);
		if (f->have_rss) {
			const char *st = vocab_name(&vocab_stages, (int)f->peak_stage);
			char num[40];

			fmt_kb(peak, sizeof(peak), f->peak_kb);
			fmt_kb(budget, sizeof(budget), f->budget_kb);
			/* a newer writer's stage: its number, never "(null)" */
			snprintf(num, sizeof(num), "stage %d (unknown to this reader)", (int)f->peak_stage);
			fprintf(out, "memory     peak %s %s%s", peak, f->peak_stage ? "in " : "outside any stage",
				!f->peak_stage ? "" : st ? st : num);
			if (f->budget_kb)
				fprintf(out, ", budget %s%s", budget,
					f->peak_kb > f->budget_kb ? ": over budget" : "");
			if (f->have_slope && f->slope_kb_per_s >= 1 && run_facts_died(f)) {
				char rate[24], window[24];

				fmt_kb(rate, sizeof(rate), (uint64_t)f->slope_kb_per_s);
				fmt_ms(window, sizeof(window), f->slope_window_ms);
				fprintf(out, ", rising %s/s over its last %s (%zu samples)", rate, window,
					f->slope_samples);
			}
			fputc('\n', out);
		}
		if (!r->judged[i]) {
			if (run->ring == RUN_RING_NONE)
				fprintf(out, "verdict    none: its witnesses name no death\n");
			else if (cr->exits.n)
				fprintf(out, "verdict    none: the run ended cleanly, and its %zu exit record%s "
					     "name%s no death\n",
					cr->exits.n, cr->exits.n == 1 ? "" : "s", cr->exits.n == 1 ? "s" : "");
			else
				fprintf(out, "verdict    none: the run ended cleanly and no exit record names it\n");
			/* What the finding rules found, not a death. */
			for (k = 0; k < v->nrules; k++)
				fprintf(out, "%s %s\n", k ? "          " : "findings  ", v->rules[k]);
			for (k = 0; k < v->nevidence; k++)
				fprintf(out, "%s %s\n", k ? "          " : "evidence  ", fmt_text(v->evidence[k]));
			continue;
		}
		fprintf(out, "verdict    %s, %s\n", vocab_name(&vocab_exit_classes, (int)v->cls),
			vocab_name(&vocab_evidence_levels, (int)v->level));
		if (v->contradiction)
			fprintf(out, "           contradiction: %s\n", fmt_text(v->contradiction));
		fprintf(out, "rules      ");
		for (k = 0; k < v->nrules; k++)
			fprintf(out, "%s%s", k ? ", " : "", v->rules[k]);
		fprintf(out, "%s\n", v->nrules ? "" : "none fired");
		for (k = 0; k < v->nevidence; k++)
			fprintf(out, "%s %s\n", k ? "          " : "evidence  ", fmt_text(v->evidence[k]));
		for (k = 0; k < v->nmissing; k++)
			fprintf(out, "%s %s\n", k ? "          " : "missing   ", fmt_text(v->missing[k]));
		for (k = 0; k < v->nactions; k++)
			fprintf(out, "%s %zu. %s: %s\n", k ? "          " : "recovery  ", k + 1,
				vocab_name(&vocab_actions, (int)v->actions[k].action),
				fmt_text(v->actions[k].why));
	}
	for (i = 0; i < r->nloops; i++) {
		char cand[24] = "none";

		if (r->loops[i].candidate)
			fmt_digest(cand, sizeof(cand), r->loops[i].candidate);
		fprintf(out, "\nboot loop: %s died %zu times in a row in %s with candidate %s: %s\n",
			fmt_text(r->loops[i].process), r->loops[i].count,
			vocab_name(&vocab_stages, (int)r->loops[i].stage), cand,
			r->loops[i].candidate ? "skip prewarm and quarantine that candidate"
					      : "skip prewarm (no candidate is known to quarantine)");
	}
	if (r->corr.nunmatched)
		fprintf(out, "\nexit records that match no run%s:\n",
			b->complete ? "" : " (the pull is partial: see the note at the top)");
	for (i = 0; i < r->corr.nunmatched; i++) {
		const struct corr_unmatched *u = &r->corr.unmatched[i];
		const struct exit_record *e = &u->file->exits[u->index];

		fprintf(out, "  %s line %zu: pid %" PRId64 " %s reason %" PRId64 ": %s\n",
			fmt_text(u->file->path), e->line, e->pid, e->process ? fmt_text(e->process) : "-",
			e->reason,
			corr_reason_text(u->reason));
	}
	left_out_text(b, out);
	cut_text(b, out);
	not_understood_text(r, out);
	if (r->corr.repeats) {
		char note[120];

		repeats_note(&r->corr, note, sizeof(note));
		fprintf(out, "\nnote: %s\n", note);
	}
	if (corr_tz_assumed(&r->corr))
		fprintf(out, "\nnote: dumpsys and logcat times were taken as UTC; pass --tz to set the "
			     "device's zone (clock tolerance %" PRId64 " ms)\n",
			r->corr.opt.tolerance_ms);
	else if (r->corr.local_times) {
		char zone[TZ_NAME_MAX], note[TZ_NAME_MAX + TZ_WHY_MAX + 200];

		fprintf(out, "\nnote: local times were read in %s, from %s\n",
			fmt_text(tz_text(&r->corr.opt.tz, zone, sizeof(zone))),
			tz_source_text(r));
		if (zone_unknown_note(r, note, sizeof(note)))
			fprintf(out, "note: %s\n", fmt_text(note));
	}
}
