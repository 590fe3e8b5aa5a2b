/*
 * The report as JSON (schemas/report.schema.json): the tree
 * (report_json()), and the same text written one run at a time
 * (report_json_write()), so that a report of thousands of runs never holds
 * all their trees at once. Writes only to the stream it is given.
 */
#include "report-writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "../format.h"
#include "../runs/ring-event.h"
#include "../runs/sessions.h"
#include "../symbols/symbolize.h"
#include "../timeline.h"

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


/* What the memory was made of at one moment (null where not recorded). */
static void composition_json(struct json *j, cJSON *o, const char *key, const struct run_memory *m,
			     int known)
{
	cJSON *x;

	if (!known) {
		json_null(j, o, key);
		return;
	}
	x = json_object(j, o, key);
	json_int_or_null(j, x, "rss_kb", m->rss_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "anon_kb", m->anon_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "file_kb", m->file_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "shmem_kb", m->shmem_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "swap_kb", m->swap_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "graphics_kb", m->graphics_kb, RUN_KB_UNKNOWN);
	if (m->source) {
		json_name(j, x, "memory_source", &vocab_memory_sources, (int)m->source, NULL);
		json_number(j, x, "composition_t_ms", (double)m->rel_ns / 1e6);
	} else {
		json_null(j, x, "memory_source");
		json_null(j, x, "composition_t_ms");
	}
}

/* The kinds of bits as a list of names. */
static void kinds_json(struct json *j, cJSON *o, const char *key, unsigned kinds)
{
	cJSON *a = json_array(j, o, key);
	unsigned k;

	for (k = 1; k <= RUN_MEM_GRAPHICS; k <<= 1)
		if (kinds & k)
			json_text(j, a, NULL, run_memory_kind_name(k));
}

/* One pressure record: its source, figures and time. */
static void pressure_record_json(struct json *j, cJSON *a, const struct run *r,
				 const struct lw_ring_slot *s)
{
	cJSON *x = json_object(j, a, NULL);
	char iso[40];

	json_number(j, x, "t_ms", (double)ring_event_rel_ns(&r->hdr, s) / 1e6);
	fmt_iso(iso, sizeof(iso), ring_event_real_ns(&r->hdr, s));
	json_text(j, x, "time", iso);
	json_name(j, x, "source", &vocab_pressure_sources, s->code, NULL);
	json_name(j, x, "stage", &vocab_stages, s->stage, "unknown");
	if (s->d) {
		json_bool(j, x, "not_readable", 1);
		json_u64(j, x, "errno", s->d);
		return;
	}
	switch (s->code) {
	case LW_PRESSURE_TRIM:
		json_u64(j, x, "level", s->a);
		json_text(j, x, "level_name", ring_trim_level_name(s->a));
		break;
	case LW_PRESSURE_MEMORY_INFO:
		json_bool(j, x, "low_memory", s->a != 0);
		json_u64(j, x, "avail_kb", s->b);
		json_u64(j, x, "threshold_kb", s->c);
		break;
	case LW_PRESSURE_PSI:
		json_number(j, x, "psi_some", (double)s->a / 100);
		json_number(j, x, "psi_full", (double)s->b / 100);
		json_u64(j, x, "psi_total_us", s->c);
		break;
	}
}

/* The memory object's members of version 3 (run.h, struct run_facts):
 * the composition at the peak and at death, what grew, the budget's
 * measure and the pressure. */
static void memory_more_json(struct json *j, cJSON *m, const struct run *r,
			     const struct run_facts *f, int ringless)
{
	const struct run_pressure *p = &f->pressure;
	cJSON *x, *a;
	size_t i;

	composition_json(j, m, "at_peak", &f->at_peak, !ringless && (f->have_rss || f->at_peak.have));
	composition_json(j, m, "at_death", &f->at_death, !ringless && (f->have_rss || f->at_death.have));
	kinds_json(j, m, "grew", f->grew);
	if (f->grew_stage == LW_STAGE_NONE)
		json_null(j, m, "grew_stage");
	else
		json_name(j, m, "grew_stage", &vocab_stages, f->grew_stage, "unknown");
	json_text(j, m, "budget_measure", f->budget_measure == RUN_BUDGET_OWN ? "own" : "rss");
	if (f->budget_measure == RUN_BUDGET_OWN) {
		json_u64(j, m, "measured_peak_kb", f->measured_peak_kb);
		kinds_json(j, m, "measured_kinds", f->measured_kinds);
		json_number(j, m, "measured_t_ms", (double)f->measured_rel_ns / 1e6);
	} else {
		if (f->have_rss)
			json_u64(j, m, "measured_peak_kb", f->measured_peak_kb);
		else
			json_null(j, m, "measured_peak_kb");
		json_null(j, m, "measured_kinds");
		json_null(j, m, "measured_t_ms");
	}
	x = json_object(j, m, "pressure");
	a = json_array(j, x, "records");
	for (i = 0; i < r->nevents; i++)
		if (r->events[i].type == LW_EV_PRESSURE)
			pressure_record_json(j, a, r, &r->events[i]);
	json_int_or_null(j, x, "trim_level", p->trim_level, 0);
	if (p->trim_level)
		json_number(j, x, "trim_t_ms", (double)p->trim_rel_ns / 1e6);
	else
		json_null(j, x, "trim_t_ms");
	if (p->memory_info)
		json_bool(j, x, "low_memory", p->memory_info == 2);
	else
		json_null(j, x, "low_memory");
	json_int_or_null(j, x, "lowest_avail_kb", p->avail_kb, RUN_KB_UNKNOWN);
	json_int_or_null(j, x, "threshold_kb", p->threshold_kb, RUN_KB_UNKNOWN);
	if (p->psi_some >= 0)
		json_number(j, x, "psi_some_max", (double)p->psi_some / 100);
	else
		json_null(j, x, "psi_some_max");
	json_int_or_null(j, x, "psi_not_readable_errno", p->psi_unreadable, 0);
	json_bool(j, x, "short_of_memory", p->short_of_memory);
	if (p->short_of_memory)
		json_number(j, x, "short_t_ms", (double)p->short_rel_ns / 1e6);
	else
		json_null(j, x, "short_t_ms");
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

	if (report_stage_spans(r, &v, &n) != 0)
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

/* A run's Java crash (only when it has one): its exception and its stack,
 * each line as written and, when --mapping retraced it, what it stands for. */
static void java_crash_json(struct json *j, cJSON *o, const struct run_crash *c)
{
	const struct log_event *e = c->java;

	if (!e)
		return;
	json_text(j, o, "exception", e->reason);
	if (e->reason_retraced)
		json_text(j, o, "exception_retraced", e->reason_retraced);
	java_stack_json(j, o, "java_stack", e);
}

/* The run's crash: its signature and the frames it signs, null when the
 * run has no crash with a frame to sign (symbols/signature.h). */
static void crash_json(struct json *j, cJSON *o, const struct run_crash *c)
{
	json_text(j, o, "crash_signature", c->signature[0] ? c->signature : NULL);
	json_text(j, o, "crash_signed_frames", c->signature[0] ? c->signed_frames : NULL);
}

/* Run i into runs; with its stages, or with "stages" left empty (for
 * put_run(), which writes them one at a time). */
/* A native frame, raw (as the tombstone wrote it) and symbolicated. */
static void frame_json(struct json *j, cJSON *arr, const struct frame *fr)
{
	cJSON *o = json_object(j, arr, NULL), *a;
	char pc[24];
	size_t k;

	if (fr->index >= 0)
		json_number(j, o, "index", (double)fr->index);
	else
		json_null(j, o, "index");
	snprintf(pc, sizeof(pc), "0x%" PRIx64, fr->pc);
	json_text(j, o, "pc", pc);
	json_text(j, o, "library", fr->library);
	json_text(j, o, "build_id", fr->build_id);
	if (fr->has_file_offset) {
		snprintf(pc, sizeof(pc), "0x%" PRIx64, fr->file_offset);
		json_text(j, o, "file_offset", pc);
	} else {
		json_null(j, o, "file_offset");
	}
	json_text(j, o, "symbol", fr->symbol);
	json_bool(j, o, "app", library_is_app(fr->library));
	json_text(j, o, "runtime", fr->runtime);
	if (!fr->nlines) {
		json_null(j, o, "symbolicated");
		json_text(j, o, "not_symbolicated", fr->why_not);
		return;
	}
	a = json_array(j, o, "symbolicated");
	for (k = 0; k < fr->nlines; k++) {
		const struct frame_line *l = &fr->lines[k];
		cJSON *x = json_object(j, a, NULL);

		json_text(j, x, "function", l->function);
		json_text(j, x, "file", l->file);
		if (l->line)
			json_number(j, x, "line", (double)l->line);
		else
			json_null(j, x, "line");
		if (l->column)
			json_number(j, x, "column", (double)l->column);
		else
			json_null(j, x, "column");
		json_bool(j, x, "inlined", k + 1 < fr->nlines);
	}
	json_null(j, o, "not_symbolicated");
}

/* The run's native crash: every frame of its tombstone, the crashing
 * thread's and the others'; null without a tombstone. */
static void native_crash_json(struct json *j, cJSON *o, const struct run_crash *c)
{
	const struct tombstone *t = c->tombstone;
	cJSON *n, *a, *th;
	size_t k, f;

	if (!t) {
		json_null(j, o, "native_crash");
		return;
	}
	n = json_object(j, o, "native_crash");
	json_bool(j, n, "protobuf", t->protobuf);
	if (t->tid >= 0)
		json_number(j, n, "tid", (double)t->tid);
	else
		json_null(j, n, "tid");
	json_text(j, n, "thread", t->thread);
	a = json_array(j, n, "frames");
	for (k = 0; k < t->nframes; k++)
		frame_json(j, a, &t->frames[k]);
	th = json_array(j, n, "other_threads");
	for (k = 0; k < t->nthreads; k++) {
		cJSON *x = json_object(j, th, NULL);

		if (t->threads[k].tid >= 0)
			json_number(j, x, "tid", (double)t->threads[k].tid);
		else
			json_null(j, x, "tid");
		json_text(j, x, "name", t->threads[k].name);
		a = json_array(j, x, "frames");
		for (f = 0; f < t->threads[k].nframes; f++)
			frame_json(j, a, &t->threads[k].frames[f]);
	}
}

/* What the run ran on, as the ring's marks say (run_facts.delegates,
 * runtime_version): null for a ring-less run, which no ring told. */
static void delegates_json(struct json *j, cJSON *o, const struct run *r,
			   const struct run_facts *f)
{
	cJSON *a;
	int v;

	if (r->ring == RUN_RING_NONE) {
		json_null(j, o, "delegates");
		json_null(j, o, "runtime_version");
		return;
	}
	a = json_array(j, o, "delegates");
	for (v = 1; v < 32; v++)
		if (f->delegates >> v & 1)
			json_text(j, a, NULL, v == 31 ? "other" : vocab_name(&vocab_delegates, v));
	if (f->have_runtime)
		json_u64(j, o, "runtime_version", f->runtime_version);
	else
		json_null(j, o, "runtime_version");
}

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
	delegates_json(j, o, r, f);
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
		json_bool(j, m, "over_budget", f->over_budget);
	if (f->have_slope) {
		json_number(j, m, "slope_kb_per_s", (double)(int64_t)f->slope_kb_per_s);
		json_number(j, m, "slope_window_ms", (double)(int64_t)(f->slope_window_ms * 1000) / 1000);
		json_number(j, m, "slope_samples", (double)f->slope_samples);
	} else {
		json_null(j, m, "slope_kb_per_s");
		json_null(j, m, "slope_window_ms");
		json_null(j, m, "slope_samples");
	}
	memory_more_json(j, m, r, f, ringless);
	a = json_array(j, o, "exit_records");
	for (k = 0; k < cr->exits.n; k++)
		exit_record_json(j, a, &cr->exits.v[k]);
	peer_json(j, o, cr);
	crash_json(j, o, &rep->crashes[i]);
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
	a = json_array(j, o, "caveats");
	for (k = 0; k < v->caveats.n; k++)
		json_text(j, a, NULL, v->caveats.line[k]);
	json_text(j, o, "contradiction", v->contradiction);
	m = json_object(j, o, "blamed_session");
	if (v->blame.have_id)
		json_number(j, m, "id", v->blame.id);
	else
		json_null(j, m, "id");
	json_digest(j, m, "candidate", v->blame.candidate);
	json_text(j, m, "why", v->blame.why);
	a = json_array(j, m, "plausible");
	for (k = 0; k < v->blame.nplausible; k++)
		json_number(j, a, NULL, v->blame.plausible[k]);
	m = json_object(j, o, "recovery");
	a = json_array(j, m, "actions");
	for (k = 0; k < v->nactions; k++) {
		cJSON *x = json_object(j, a, NULL);

		json_name(j, x, "action", &vocab_actions, (int)v->actions[k].action, NULL);
		json_text(j, x, "why", v->actions[k].why);
	}
	native_crash_json(j, o, &rep->crashes[i]);
	java_crash_json(j, o, &rep->crashes[i]);
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
	char notes[REPORT_PULL_NOTES_MAX][REPORT_NOTE_LEN];
	cJSON *p = json_object(j, o, "pull"), *a, *x;
	size_t i, n = report_pull_notes(b, notes);

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
	char note[REPORT_ZONE_NOTE_LEN];
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
	if (report_zone_note(r, note, sizeof(note)))
		json_text(&j, a, NULL, note);
	if (r->corr.repeats) {
		char note[120];

		report_repeats_note(r, note, sizeof(note));
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
	if (!tree || report_stage_spans(r->corr.runs[i].run, &spans, &n) != 0) {
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
