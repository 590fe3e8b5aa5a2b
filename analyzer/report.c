/* Building the report from a bundle, and writing it as JSON or text. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "format.h"
#include "ring-event.h"

static void find_loops(struct report *r)
{
	const struct bundle *b = r->bundle;
	size_t i = 0, j;

	while (i < b->nruns) {
		const struct run_facts *f = &r->facts[i];

		j = i + 1;
		if (run_facts_died(f) && vocab_stage_early(f->open_stage)) {
			while (j < b->nruns && strcmp(b->runs[j].hdr.process, b->runs[i].hdr.process) == 0 &&
			       run_facts_died(&r->facts[j]) && r->facts[j].open_stage == f->open_stage &&
			       r->facts[j].candidate == f->candidate)
				j++;
			if (j - i >= 2) {
				struct boot_loop *nv = realloc(r->loops, (r->nloops + 1) * sizeof(*nv));

				if (nv) {
					r->loops = nv;
					memset(&nv[r->nloops], 0, sizeof(*nv));
					snprintf(nv[r->nloops].process, sizeof(nv[0].process), "%s",
						 b->runs[i].hdr.process);
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

int report_build(const struct bundle *b, const struct corr_options *opt, struct report *out)
{
	memset(out, 0, sizeof(*out));
	out->bundle = b;
	if (correlate(b->runs, b->nruns, b->files, b->nfiles, opt, &out->corr) != 0)
		return -1;
	out->facts = calloc(b->nruns ? b->nruns : 1, sizeof(*out->facts));
	out->verdicts = calloc(b->nruns ? b->nruns : 1, sizeof(*out->verdicts));
	out->judged = calloc(b->nruns ? b->nruns : 1, sizeof(*out->judged));
	if (!out->facts || !out->verdicts || !out->judged) {
		report_release(out);
		return -1;
	}
	classify_all(&out->corr, out->facts, out->judged, out->verdicts);
	find_loops(out);
	return 0;
}

void report_release(struct report *r)
{
	if (!r)
		return;
	correlation_release(&r->corr);
	free(r->facts);
	free(r->verdicts);
	free(r->judged);
	free(r->loops);
	memset(r, 0, sizeof(*r));
}

/* JSON. */

/* A stage a newer writer added has no name here. */
static const char *stage_or_unknown(int stage)
{
	const char *n = vocab_name(&vocab_stages, stage);

	return n ? n : "unknown";
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
	json_add_u64(o, k, v);
}

static void add_time(cJSON *o, const char *k, int64_t ms)
{
	char iso[40];

	if (ms == EV_NO_TIME || ms < 0) {
		cJSON_AddNullToObject(o, k);
		return;
	}
	fmt_iso(iso, sizeof(iso), (uint64_t)ms * 1000000u);
	cJSON_AddStringToObject(o, k, iso);
}

#define OPEN_STAGES_MAX 64

/* The stage timeline: one entry per begin, closed by the matching end (the
 * latest open entry of that stage: sessions may overlap). */
static cJSON *stages_json(const struct run *r)
{
	cJSON *open[LW_STAGE_COUNT][OPEN_STAGES_MAX];
	size_t depth[LW_STAGE_COUNT] = { 0 }, i;
	cJSON *arr = cJSON_CreateArray();

	for (i = 0; arr && i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i].slot;
		const char *name = vocab_name(&vocab_stages, s->stage);
		cJSON *o;

		if (s->stage >= LW_STAGE_COUNT)
			continue;
		if (s->type == LW_EV_STAGE_BEGIN) {
			o = cJSON_CreateObject();
			if (!o || !cJSON_AddItemToArray(arr, o)) {
				cJSON_Delete(o);
				break;
			}
			cJSON_AddStringToObject(o, "stage", name ? name : "unknown");
			cJSON_AddNumberToObject(o, "begin_ms", (double)ring_event_rel_ns(&r->hdr, s) / 1e6);
			cJSON_AddNullToObject(o, "end_ms");
			cJSON_AddNullToObject(o, "error");
			if (depth[s->stage] < OPEN_STAGES_MAX)
				open[s->stage][depth[s->stage]++] = o;
		} else if (s->type == LW_EV_STAGE_END && depth[s->stage] > 0) {
			const char *err = vocab_name(&vocab_errors, s->code);

			o = open[s->stage][--depth[s->stage]];
			cJSON_ReplaceItemInObject(
				o, "end_ms", cJSON_CreateNumber((double)ring_event_rel_ns(&r->hdr, s) / 1e6));
			cJSON_ReplaceItemInObject(o, "error", cJSON_CreateString(err ? err : "unknown"));
		}
	}
	return arr;
}

static cJSON *run_json(const struct report *rep, size_t i)
{
	const struct corr_run *cr = &rep->corr.runs[i];
	const struct run *r = cr->run;
	const struct run_facts *f = &rep->facts[i];
	const struct verdict *v = &rep->verdicts[i];
	cJSON *o = cJSON_CreateObject(), *m, *a, *rec;
	char id[40];
	size_t k;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "process", r->hdr.process);
	cJSON_AddNumberToObject(o, "pid", r->hdr.pid);
	fmt_id128(id, sizeof(id), r->hdr.run_id);
	cJSON_AddStringToObject(o, "run_id", id);
	cJSON_AddStringToObject(o, "file", r->path);
	add_time(o, "start", r->from_seed ? EV_NO_TIME : cr->start_ms);
	add_time(o, "end", r->from_seed ? EV_NO_TIME : cr->last_ms);
	add_u64(o, "app_version", r->hdr.app_version);
	json_add_digest(o, "candidate", f->candidate);
	json_add_digest(o, "stable_candidate", f->stable_candidate);
	cJSON_AddStringToObject(o, "outcome", ring_outcome_name(f->outcome));
	cJSON_AddStringToObject(o, "last_stage", stage_or_unknown(f->last_stage));
	cJSON_AddBoolToObject(o, "stage_open", f->open_stage != LW_STAGE_NONE);
	cJSON_AddStringToObject(o, "open_stage", stage_or_unknown(f->open_stage));
	cJSON_AddItemToObject(o, "stages", stages_json(r));
	m = cJSON_AddObjectToObject(o, "memory");
	if (m) {
		add_u64(m, "budget_kb", f->budget_kb);
		add_u64(m, "peak_kb", f->peak_kb);
		cJSON_AddStringToObject(m, "peak_stage", stage_or_unknown(f->peak_stage));
		cJSON_AddBoolToObject(m, "over_budget", f->budget_kb && f->peak_kb > f->budget_kb);
		cJSON_AddNumberToObject(m, "slope_kb_per_s", (double)(int64_t)f->slope_kb_per_s);
	}
	a = cJSON_AddArrayToObject(o, "exit_records");
	for (k = 0; a && k < cr->exits.n; k++) {
		const struct exit_record *e = &cr->exits.v[k].file->exits[cr->exits.v[k].index];

		rec = cJSON_CreateObject();
		if (!rec || !cJSON_AddItemToArray(a, rec)) {
			cJSON_Delete(rec);
			break;
		}
		cJSON_AddStringToObject(rec, "file", cr->exits.v[k].file->path);
		cJSON_AddNumberToObject(rec, "line", (double)e->line);
		cJSON_AddNumberToObject(rec, "reason", (double)e->reason);
		cJSON_AddNumberToObject(rec, "subreason", (double)e->subreason);
		cJSON_AddNumberToObject(rec, "status", (double)e->status);
		cJSON_AddNumberToObject(rec, "importance", (double)e->importance);
		cJSON_AddItemToObject(rec, "timestamp", str_or_null(e->timestamp_text));
		cJSON_AddItemToObject(rec, "description", str_or_null(e->description));
		cJSON_AddStringToObject(rec, "joined_by",
					cr->exits.v[k].by_run_id ? "run id" : "process, pid and time");
	}
	if (!rep->judged[i]) {
		cJSON_AddNullToObject(o, "classification");
		cJSON_AddNullToObject(o, "evidence_level");
	} else {
		cJSON_AddStringToObject(o, "classification", vocab_name(&vocab_exit_classes, (int)v->cls));
		cJSON_AddStringToObject(o, "evidence_level",
					vocab_name(&vocab_evidence_levels, (int)v->level));
	}
	a = cJSON_AddArrayToObject(o, "rules");
	for (k = 0; a && k < v->nrules; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->rules[k]));
	a = cJSON_AddArrayToObject(o, "evidence");
	for (k = 0; a && k < v->nevidence; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->evidence[k]));
	a = cJSON_AddArrayToObject(o, "missing");
	for (k = 0; a && k < v->nmissing; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->missing[k]));
	cJSON_AddItemToObject(o, "contradiction",
			      v->contradiction[0] ? cJSON_CreateString(v->contradiction)
						  : cJSON_CreateNull());
	m = cJSON_AddObjectToObject(o, "recovery");
	a = m ? cJSON_AddArrayToObject(m, "actions") : NULL;
	for (k = 0; a && k < v->nactions; k++) {
		rec = cJSON_CreateObject();
		if (!rec || !cJSON_AddItemToArray(a, rec)) {
			cJSON_Delete(rec);
			break;
		}
		cJSON_AddStringToObject(rec, "action", vocab_name(&vocab_actions, (int)v->actions[k].action));
		cJSON_AddStringToObject(rec, "why", v->actions[k].why);
	}
	return o;
}

cJSON *report_json(const struct report *r)
{
	const struct bundle *b = r->bundle;
	cJSON *o = cJSON_CreateObject(), *a, *x;
	int signaled_lmk = 0;
	size_t i, k;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "report_version", 1);
	x = cJSON_AddObjectToObject(o, "timezone");
	if (x) {
		cJSON_AddNumberToObject(x, "offset_minutes", (double)(r->corr.opt.tz_offset_ms / 60000));
		cJSON_AddBoolToObject(x, "assumed", !r->corr.opt.tz_known);
	}
	cJSON_AddNumberToObject(o, "clock_tolerance_ms", (double)r->corr.opt.tolerance_ms);
	a = cJSON_AddArrayToObject(o, "inputs");
	for (i = 0; a && i < b->ninputs; i++) {
		x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			break;
		}
		cJSON_AddStringToObject(x, "file", b->inputs[i].path);
		cJSON_AddStringToObject(x, "kind", ev_kind_name(b->inputs[i].kind));
		if (b->inputs[i].error[0])
			cJSON_AddStringToObject(x, "error", b->inputs[i].error);
	}
	a = cJSON_AddArrayToObject(o, "runs");
	for (i = 0; a && i < b->nruns; i++) {
		x = run_json(r, i);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			cJSON_Delete(o);
			return NULL;
		}
		for (k = 0; k < r->verdicts[i].nrules; k++)
			signaled_lmk |= strcmp(r->verdicts[i].rules[k], "lmk-as-signaled") == 0;
	}
	a = cJSON_AddArrayToObject(o, "boot_loops");
	for (i = 0; a && i < r->nloops; i++) {
		const struct boot_loop *l = &r->loops[i];
		cJSON *runs;

		x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			break;
		}
		cJSON_AddStringToObject(x, "process", l->process);
		cJSON_AddStringToObject(x, "stage", stage_or_unknown(l->stage));
		json_add_digest(x, "candidate", l->candidate);
		cJSON_AddNumberToObject(x, "count", (double)l->count);
		runs = cJSON_AddArrayToObject(x, "pids");
		for (k = 0; runs && k < l->count; k++)
			cJSON_AddItemToArray(runs, cJSON_CreateNumber(b->runs[l->first + k].hdr.pid));
		runs = cJSON_AddArrayToObject(x, "actions");
		if (runs) {
			cJSON_AddItemToArray(runs, cJSON_CreateString("stop_prewarm"));
			cJSON_AddItemToArray(runs, cJSON_CreateString("isolate_candidate"));
			if (r->facts[l->first + l->count - 1].stable_candidate)
				cJSON_AddItemToArray(runs, cJSON_CreateString("revert_to_stable"));
		}
	}
	a = cJSON_AddArrayToObject(o, "unmatched_exit_records");
	for (i = 0; a && i < r->corr.nunmatched; i++) {
		const struct corr_unmatched *u = &r->corr.unmatched[i];
		const struct exit_record *e = &u->file->exits[u->index];

		x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			break;
		}
		cJSON_AddStringToObject(x, "file", u->file->path);
		cJSON_AddNumberToObject(x, "line", (double)e->line);
		cJSON_AddNumberToObject(x, "pid", (double)e->pid);
		cJSON_AddItemToObject(x, "process", str_or_null(e->process));
		cJSON_AddNumberToObject(x, "reason", (double)e->reason);
		cJSON_AddItemToObject(x, "timestamp", str_or_null(e->timestamp_text));
		cJSON_AddStringToObject(x, "why", corr_reason_name(u->reason));
		cJSON_AddStringToObject(x, "why_text", corr_reason_text(u->reason));
	}
	x = cJSON_AddObjectToObject(o, "device");
	a = x ? cJSON_AddArrayToObject(x, "notes") : NULL;
	if (a && signaled_lmk)
		cJSON_AddItemToArray(a, cJSON_CreateString(
						"low-memory kills are reported as SIGNALED/9: this device does "
						"not report LMK kills to ActivityManager"));
	if (a && !r->corr.opt.tz_known)
		cJSON_AddItemToArray(a, cJSON_CreateString(
						"dumpsys and logcat times are local; they were taken as UTC "
						"(pass --tz to set the device's offset)"));
	return o;
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
	cJSON *arr = stages_json(r), *e;
	char prev[96] = "", cur[96];
	int n = 0, first = 1;

	if (!arr || cJSON_GetArraySize(arr) == 0) {
		cJSON_Delete(arr);
		return;
	}
	fprintf(out, "stages     ");
	cJSON_ArrayForEach(e, arr) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(e, "stage"));
		const char *err = cJSON_GetStringValue(cJSON_GetObjectItem(e, "error"));

		snprintf(cur, sizeof(cur), "%s %s", st ? st : "?",
			 !err ? "open" : strcmp(err, "none") == 0 ? "ok" : err);
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
	cJSON_Delete(arr);
}

void report_text(const struct report *r, FILE *out)
{
	const struct bundle *b = r->bundle;
	size_t i, k;

	for (i = 0; i < b->nruns; i++) {
		const struct corr_run *cr = &r->corr.runs[i];
		const struct run *run = cr->run;
		const struct run_facts *f = &r->facts[i];
		const struct verdict *v = &r->verdicts[i];
		char start[48], cand[24] = "none", peak[24], budget[24];

		if (run->from_seed)
			snprintf(start, sizeof(start), "(ring-less run from seed events)");
		else
			fmt_utc(start, sizeof(start), run->hdr.start_real_ns, 1);
		if (f->candidate)
			fmt_digest(cand, sizeof(cand), f->candidate);
		fprintf(out, "%s== %s  pid %u  (%s)\n", i ? "\n" : "", run->hdr.process, run->hdr.pid,
			run->path);
		fprintf(out, "started    %s, app version %" PRIu64 ", candidate %s\n", start,
			run->hdr.app_version, cand);
		fprintf(out, "outcome    %s%s%s%s\n", ring_outcome_name(f->outcome),
			f->open_stage ? ", " : "", f->open_stage ? vocab_name(&vocab_stages, (int)f->open_stage) : "",
			f->open_stage ? " was open" : "");
		stages_text(run, out);
		if (f->have_rss) {
			fmt_kb(peak, sizeof(peak), f->peak_kb);
			fmt_kb(budget, sizeof(budget), f->budget_kb);
			fprintf(out, "memory     peak %s %s%s", peak,
				f->peak_stage ? "in " : "outside any stage",
				f->peak_stage ? vocab_name(&vocab_stages, (int)f->peak_stage) : "");
			if (f->budget_kb)
				fprintf(out, ", budget %s%s", budget,
					f->peak_kb > f->budget_kb ? ": over budget" : "");
			if (f->slope_kb_per_s >= 1 && run_facts_died(f)) {
				char rate[24];

				fmt_kb(rate, sizeof(rate), (uint64_t)f->slope_kb_per_s);
				fprintf(out, ", rising %s/s at the end", rate);
			}
			fputc('\n', out);
		}
		if (!r->judged[i]) {
			if (cr->exits.n)
				fprintf(out, "verdict    none: the run ended cleanly, and its %zu exit record%s "
					     "name%s no death\n",
					cr->exits.n, cr->exits.n == 1 ? "" : "s", cr->exits.n == 1 ? "s" : "");
			else
				fprintf(out, "verdict    none: the run ended cleanly and no exit record names it\n");
			continue;
		}
		fprintf(out, "verdict    %s, %s\n", vocab_name(&vocab_exit_classes, (int)v->cls),
			vocab_name(&vocab_evidence_levels, (int)v->level));
		if (v->contradiction[0])
			fprintf(out, "           contradiction: %s\n", v->contradiction);
		fprintf(out, "rules      ");
		for (k = 0; k < v->nrules; k++)
			fprintf(out, "%s%s", k ? ", " : "", v->rules[k]);
		fprintf(out, "%s\n", v->nrules ? "" : "none fired");
		for (k = 0; k < v->nevidence; k++)
			fprintf(out, "%s %s\n", k ? "          " : "evidence  ", v->evidence[k]);
		for (k = 0; k < v->nmissing; k++)
			fprintf(out, "%s %s\n", k ? "          " : "missing   ", v->missing[k]);
		for (k = 0; k < v->nactions; k++)
			fprintf(out, "%s %zu. %s: %s\n", k ? "          " : "recovery  ", k + 1,
				vocab_name(&vocab_actions, (int)v->actions[k].action), v->actions[k].why);
	}
	for (i = 0; i < r->nloops; i++) {
		char cand[24] = "none";

		if (r->loops[i].candidate)
			fmt_digest(cand, sizeof(cand), r->loops[i].candidate);
		fprintf(out, "\nboot loop: %s died %zu times in a row in %s with candidate %s: "
			     "skip prewarm and quarantine that candidate\n",
			r->loops[i].process, r->loops[i].count,
			vocab_name(&vocab_stages, (int)r->loops[i].stage), cand);
	}
	if (r->corr.nunmatched)
		fprintf(out, "\nexit records that match no run:\n");
	for (i = 0; i < r->corr.nunmatched; i++) {
		const struct corr_unmatched *u = &r->corr.unmatched[i];
		const struct exit_record *e = &u->file->exits[u->index];

		fprintf(out, "  %s line %zu: pid %" PRId64 " %s reason %" PRId64 ": %s\n", u->file->path,
			e->line, e->pid, e->process ? e->process : "-", e->reason,
			corr_reason_text(u->reason));
	}
	if (!r->corr.opt.tz_known)
		fprintf(out, "\nnote: dumpsys and logcat times were taken as UTC; pass --tz to set the "
			     "device's offset (clock tolerance %" PRId64 " ms)\n",
			r->corr.opt.tolerance_ms);
}
