/*
 * The release gate (gate.h): the runs of every input, placed on the
 * device matrix, then the five checklist items, each from those runs.
 */
#include "gate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "evidence/json.h"
#include "format.h"

/* One run of one input, with what the gate asks of it. */
struct grun {
	size_t input;
	const char *path;
	const char *device;       /* the bundle's model, or "unknown device" */
	int scenario;             /* enum lw_scenario; 0: none */
	const struct run *run;
	const struct verdict *v;
	const struct run_facts *f;
	int died;                 /* it got a verdict: a death */
	int clean;                /* a ring that ended cleanly, with no verdict */
	int main_process;         /* the app's main process (no ':' in its name) */
	int unpaired;             /* rule unpaired-stage found something */
	int suspect;              /* it loaded the suspect (loaded()) */
	uint64_t start_ns;        /* its start, or its death for a ring-less run */
};

struct gate {
	const struct gate_options *o;
	struct grun *runs;
	size_t nruns;
	const char *devices[64];
	size_t ndevices;
	uint64_t stable;
	const char *stable_from;
	uint64_t quarantined_ns;  /* the first quarantine advice of the suspect; 0: none */
	/* Per device (as devices[]): its own first quarantine advice, which
	 * its probe gave; a device with none goes by the first of any. */
	const struct grun *device_advised[64];
	int receipts_recorded;    /* some run records receipts */
};

static const char *const item_ids[] = { "app_starts", "stable_revertible", "suspect_isolated",
					 "released", "reverified" };
static const char *const item_titles[] = {
	"The app starts",
	"The stable candidate is revertible",
	"The suspect is isolated",
	"Sessions and caches are released",
	"The original death path is re-verified",
};
#define NITEMS (sizeof(item_ids) / sizeof(item_ids[0]))

/* Whether run r loaded candidate c: a candidate record, a stage or
 * session record, or its session table, names it. */
static int loaded(const struct run *r, uint64_t c)
{
	size_t i;

	if (!c)
		return 0;
	if (r->hdr.candidate == c)
		return 1;
	for (i = 0; i < r->nsessions; i++)
		if (r->sessions[i].candidate == c)
			return 1;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];

		if ((e->type == LW_EV_CANDIDATE && e->a == c) ||
		    ((e->type == LW_EV_STAGE_BEGIN || e->type == LW_EV_SESSION_OPEN) && e->c == c))
			return 1;
	}
	return 0;
}

/* Whether run r ended stage s without error with candidate c: the stage
 * record's candidate, or, where it names none (version 1), the one last
 * given before it. */
static int completed(const struct run *r, enum lw_stage s, uint64_t c)
{
	uint64_t current = 0;
	size_t i;

	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *e = &r->events[i];

		if (e->type == LW_EV_CANDIDATE)
			current = e->a;
		if (e->type == LW_EV_STAGE_END && e->stage == s && e->code == LW_ERR_NONE &&
		    (e->c ? e->c : current) == c)
			return 1;
	}
	return 0;
}

static int has_rule(const struct verdict *v, const char *id)
{
	size_t k;

	for (k = 0; k < v->nrules; k++)
		if (strcmp(v->rules[k], id) == 0)
			return 1;
	return 0;
}

static const char *device_of(struct gate *g, const struct bundle *b)
{
	const char *d = b->device_model[0] ? b->device_model : "unknown device";
	size_t k;

	for (k = 0; k < g->ndevices; k++)
		if (strcmp(g->devices[k], d) == 0)
			return g->devices[k];
	if (g->ndevices < sizeof(g->devices) / sizeof(g->devices[0]))
		g->devices[g->ndevices++] = d;
	return d;
}

/* The runs of every input into g; the scenario of an input is its
 * manifest's, else the first scenario mark of its rings. -1 on ENOMEM. */
static int gather(struct gate *g, const struct gate_input *in, size_t n, cJSON *inputs,
		  struct json *j)
{
	size_t i, k, total = 0;

	for (i = 0; i < n; i++)
		total += in[i].report->corr.nruns;
	g->runs = calloc(total ? total : 1, sizeof(*g->runs));
	if (!g->runs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct report *r = in[i].report;
		const char *device = device_of(g, in[i].bundle), *from;
		int scenario = bundle_scenario(in[i].bundle, &from);
		cJSON *o = json_object(j, inputs, NULL);

		for (k = 0; k < r->corr.nruns; k++) {
			const struct corr_run *cr = &r->corr.runs[k];
			struct grun *x = &g->runs[g->nruns++];

			x->input = i;
			x->path = in[i].path;
			x->device = device;
			x->scenario = scenario;
			x->run = cr->run;
			x->v = &r->verdicts[k];
			x->f = &r->facts[k];
			x->died = r->judged[k];
			x->clean = !r->judged[k] && r->facts[k].outcome == RING_OUTCOME_CLEAN;
			x->main_process = !strchr(cr->run->hdr.process, ':');
			x->unpaired = has_rule(&r->verdicts[k], "unpaired-stage");
			x->suspect = loaded(cr->run, g->o->candidate);
			x->start_ns = cr->run->ring == RUN_RING_NONE
					      ? (cr->last_ms > 0 && ms_fits_ns(cr->last_ms) ? (uint64_t)cr->last_ms * 1000000u : 0)
					      : cr->run->hdr.start_real_ns;
		}
		json_text(j, o, "path", in[i].path);
		json_text(j, o, "device", device);
		if (scenario)
			json_name(j, o, "scenario", &vocab_scenarios, scenario, "unknown");
		else
			json_null(j, o, "scenario");
		json_text(j, o, "scenario_from", from);
		json_u64(j, o, "runs", r->corr.nruns);
		/* A manifest's name the vocabulary does not have: said, not guessed. */
		json_text(j, o, "unknown_scenario",
			  in[i].bundle->scenario < 0 ? in[i].bundle->scenario_name : NULL);
	}
	return 0;
}

/* The first quarantine advice of the suspect, and the stable candidate:
 * --stable, else the advice's, else the newest stable candidate a run of
 * another candidate names. */
static void find_advice(struct gate *g)
{
	size_t i, k, d;

	for (i = 0; i < g->nruns; i++) {
		const struct run *r = g->runs[i].run;

		for (k = 0; k < r->nevents; k++) {
			const struct lw_ring_slot *e = &r->events[k];

			if (e->type == LW_EV_MARK && e->code == LW_MARK_RECEIPT)
				g->receipts_recorded = 1;
			if (e->type != LW_EV_ADVICE || e->code != LW_ADVICE_QUARANTINE ||
			    e->a != g->o->candidate)
				continue;
			for (d = 0; d < g->ndevices; d++)
				if (g->devices[d] == g->runs[i].device &&
				    (!g->device_advised[d] ||
				     g->runs[i].start_ns < g->device_advised[d]->start_ns))
					g->device_advised[d] = &g->runs[i];
			if (!g->quarantined_ns || g->runs[i].start_ns < g->quarantined_ns) {
				g->quarantined_ns = g->runs[i].start_ns;
				if (!g->o->stable && e->c) {
					g->stable = e->c;
					g->stable_from = "advice";
				}
			}
		}
	}
	if (g->o->stable) {
		g->stable = g->o->stable;
		g->stable_from = "option";
		return;
	}
	for (i = 0; !g->stable_from && i < g->nruns; i++) {
		uint64_t s = g->runs[i].run->hdr.stable_candidate;

		if (s && s != g->o->candidate) {
			g->stable = s;
			g->stable_from = "rings";
		}
	}
}

/* "Pixel 8: com.example.app pid 100 (cold_start, bundles/b1)" into buf. */
static const char *who(const struct grun *x, char *buf, size_t n)
{
	snprintf(buf, n, "%s: %s pid %u (%s, %s)", x->device, x->run->hdr.process, x->run->hdr.pid,
		 x->scenario ? vocab_name(&vocab_scenarios, x->scenario) : "no scenario", x->path);
	return buf;
}

/* The death of x: "native_crash, confirmed, in delegate_prepare". */
static const char *death(const struct grun *x, char *buf, size_t n)
{
	snprintf(buf, n, "%s, %s, in %s", vocab_name(&vocab_exit_classes, (int)x->v->cls),
		 vocab_name(&vocab_evidence_levels, (int)x->v->level),
		 vocab_name(&vocab_stages, (int)x->f->open_stage));
	return buf;
}

struct item {
	struct json *j;
	cJSON *proof, *missing;
	int holds;
};

/* A line of an item's proof, or of what it misses: then it does not hold. */
__attribute__((format(printf, 3, 4))) static void item_line(struct item *it, int lacking,
							    const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_text(it->j, lacking ? it->missing : it->proof, NULL, buf);
	if (lacking)
		it->holds = 0;
}

#define proof(it, ...) item_line(it, 0, __VA_ARGS__)
#define lack(it, ...) item_line(it, 1, __VA_ARGS__)

static void app_starts(const struct gate *g, struct item *it)
{
	char w[256], d[96];
	size_t k, i;

	for (k = 0; k < g->ndevices; k++) {
		const struct grun *ok = NULL, *bad = NULL;
		int ran = 0;

		for (i = 0; i < g->nruns; i++) {
			const struct grun *x = &g->runs[i];

			if (x->device != g->devices[k] || x->scenario != LW_SCENARIO_COLD_START)
				continue;
			ran = 1;
			if (x->main_process && x->died && !bad)
				bad = x;
			if (x->main_process && x->clean && !ok)
				ok = x;
		}
		if (bad)
			lack(it, "%s: the main process died in cold_start (%s)", who(bad, w, sizeof(w)),
			     death(bad, d, sizeof(d)));
		else if (ok)
			proof(it, "%s ended clean", who(ok, w, sizeof(w)));
		else
			lack(it, "%s: %s", g->devices[k],
			     ran ? "no run of the main process ended clean in cold_start"
				 : "no cold_start run");
	}
}

static void stable_revertible(const struct gate *g, struct item *it)
{
	char s[24], w[256], d[96], files[24];
	size_t k, i, e;
	int receipt = 0;

	if (!g->stable) {
		lack(it, "no stable candidate is known: no quarantine advice or ring names one "
			 "(pass --stable NAME|DIGEST)");
		return;
	}
	fmt_digest(s, sizeof(s), g->stable);
	for (i = 0; i < g->nruns && !receipt; i++)
		for (e = 0; e < g->runs[i].run->nevents; e++) {
			const struct lw_ring_slot *m = &g->runs[i].run->events[e];

			if (m->type == LW_EV_MARK && m->code == LW_MARK_RECEIPT && m->a == g->stable) {
				fmt_digest(files, sizeof(files), m->b);
				proof(it, "receipt of %s: files %s verified (%s)", s, files,
				      who(&g->runs[i], w, sizeof(w)));
				receipt = 1;
				break;
			}
		}
	if (g->receipts_recorded && !receipt)
		lack(it, "no receipt of %s: the app records receipts, and none says its files are "
			 "complete", s);
	for (k = 0; k < g->ndevices; k++) {
		const struct grun *ok = NULL, *bad = NULL;

		for (i = 0; i < g->nruns; i++) {
			const struct grun *x = &g->runs[i];

			if (x->device != g->devices[k] || !loaded(x->run, g->stable))
				continue;
			if (x->died && !bad && !x->suspect)
				bad = x;
			if (x->clean && !ok && completed(x->run, LW_STAGE_INFERENCE, g->stable))
				ok = x;
		}
		if (bad)
			lack(it, "%s: a run of %s died (%s)", who(bad, w, sizeof(w)), s,
			     death(bad, d, sizeof(d)));
		if (ok)
			proof(it, "%s completed an inference with %s and ended clean",
			      who(ok, w, sizeof(w)), s);
		else
			lack(it, "%s: no clean run completed an inference with %s", g->devices[k], s);
	}
}

/* Whether x is a re-verification run: it loaded the suspect on the device
 * and in the scenario of one of its deaths, after that death. */
static int reverification(const struct gate *g, const struct grun *x)
{
	size_t i;

	if (!x->suspect)
		return 0;
	for (i = 0; i < g->nruns; i++) {
		const struct grun *d = &g->runs[i];

		if (d != x && d->died && d->suspect && d->device == x->device &&
		    d->scenario == x->scenario && x->start_ns > d->start_ns)
			return 1;
	}
	for (i = 0; i < g->o->ndeaths; i++) {
		const struct gate_death *d = &g->o->deaths[i];

		if (strcmp(d->device, x->device) == 0 && d->scenario == x->scenario &&
		    x->start_ns > d->start_ns)
			return 1;
	}
	return 0;
}

/* The later clean run that re-verifies a death of the suspect on device,
 * in scenario, in stage st, after start_ns; NULL for none. */
static const struct grun *rerun_of(const struct gate *g, const char *device, int scenario,
				   enum lw_stage st, uint64_t start_ns)
{
	size_t k;

	for (k = 0; k < g->nruns; k++) {
		const struct grun *y = &g->runs[k];

		if (y->clean && strcmp(y->device, device) == 0 && y->scenario == scenario &&
		    y->start_ns > start_ns && y->suspect &&
		    (st == LW_STAGE_NONE || completed(y->run, st, g->o->candidate)))
			return y;
	}
	return NULL;
}

/* When the quarantine of the suspect began on device x's: its own first
 * advice, else the first of any device; 0 for none at all. */
static uint64_t quarantined(const struct gate *g, const char *device)
{
	size_t d;

	for (d = 0; d < g->ndevices; d++)
		if (g->devices[d] == device && g->device_advised[d])
			return g->device_advised[d]->start_ns;
	return g->quarantined_ns;
}

static void suspect_isolated(const struct gate *g, struct item *it)
{
	char c[24], w[256], when[40];
	size_t i, n = 0;

	fmt_digest(c, sizeof(c), g->o->candidate);
	for (i = 0; i < g->ndevices; i++) {
		if (!g->device_advised[i])
			continue;
		fmt_iso(when, sizeof(when), g->device_advised[i]->start_ns);
		proof(it, "quarantine advice for %s at %s: %s", c, when,
		      who(g->device_advised[i], w, sizeof(w)));
	}
	for (i = 0; i < g->nruns; i++) {
		const struct grun *x = &g->runs[i];

		if (x->start_ns <= quarantined(g, x->device) || !x->suspect)
			continue;
		if (reverification(g, x)) {
			n++;
			continue;
		}
		lack(it, "%s loaded %s after the quarantine advice, and is not a re-verification run",
		     who(x, w, sizeof(w)), c);
	}
	if (it->holds)
		proof(it, "no run loaded %s %s but %zu re-verification run%s", c,
		      g->quarantined_ns ? "after the quarantine advice" : "at all", n, n == 1 ? "" : "s");
}

static void released(const struct gate *g, struct item *it)
{
	char w[256];
	size_t i, n = 0;

	for (i = 0; i < g->nruns; i++) {
		const struct grun *x = &g->runs[i];

		if (!x->clean)
			continue;
		n++;
		if (x->unpaired)
			lack(it, "%s ended clean with a stage or a session never ended (unpaired-stage)",
			     who(x, w, sizeof(w)));
	}
	if (it->holds)
		proof(it, "%zu clean run%s ended every stage and session they began", n,
		      n == 1 ? "" : "s");
}

static void reverified(const struct gate *g, struct item *it)
{
	char c[24], w[256], w2[256], d[96];
	size_t i, deaths = 0;

	fmt_digest(c, sizeof(c), g->o->candidate);
	for (i = 0; i < g->o->ndeaths; i++) {
		const struct gate_death *x = &g->o->deaths[i];
		const struct grun *ok = rerun_of(g, x->device, x->scenario, x->stage, x->start_ns);
		const char *sc = x->scenario ? vocab_name(&vocab_scenarios, x->scenario) : "no scenario";

		deaths++;
		if (ok)
			proof(it, "the death of %s (history: %s, %s) re-ran clean: %s", x->what, x->device,
			      sc, who(ok, w2, sizeof(w2)));
		else
			lack(it, "the death of %s (history: %s, %s, in %s): no later clean run of %s "
				 "completed %s in %s on %s",
			     x->what, x->device, sc, vocab_name(&vocab_stages, (int)x->stage), c,
			     vocab_name(&vocab_stages, (int)x->stage), sc, x->device);
	}
	for (i = 0; i < g->nruns; i++) {
		const struct grun *x = &g->runs[i], *ok;
		enum lw_stage st = x->f->open_stage;

		if (!x->died || !x->suspect)
			continue;
		deaths++;
		ok = rerun_of(g, x->device, x->scenario, st, x->start_ns);
		if (ok)
			proof(it, "the death of %s (%s) re-ran clean: %s", who(x, w, sizeof(w)),
			      death(x, d, sizeof(d)), who(ok, w2, sizeof(w2)));
		else
			lack(it, "the death of %s (%s): no later clean run of %s completed %s in %s on %s",
			     who(x, w, sizeof(w)), death(x, d, sizeof(d)), c,
			     vocab_name(&vocab_stages, (int)st),
			     x->scenario ? vocab_name(&vocab_scenarios, x->scenario) : "its scenario",
			     x->device);
	}
	if (!deaths)
		lack(it, "no death of %s in the inputs or the history: give the bundles of its "
			 "original deaths, or --history DB", c);
}

/* The cells of the matrix: per device and scenario, passed (runs, no
 * death), died (the first death) or not run. */
static void matrix(const struct gate *g, struct json *j, cJSON *arr)
{
	char d[96];
	size_t k, i;
	int s;

	for (k = 0; k < g->ndevices; k++)
		for (s = 1; s < vocab_scenarios.count; s++) {
			const struct grun *dead = NULL, *newest = NULL;
			size_t runs = 0, deaths = 0;
			cJSON *cell = json_object(j, arr, NULL), *x;

			for (i = 0; i < g->nruns; i++) {
				const struct grun *y = &g->runs[i];

				if (y->device != g->devices[k] || y->scenario != s)
					continue;
				runs++;
				deaths += y->died != 0;
				if (!newest || y->start_ns > newest->start_ns)
					newest = y;
			}
			/* The cell is as its newest run left it: died when that
			 * run died, whatever ran before; the deaths are counted. */
			for (i = 0; newest && i < g->nruns; i++) {
				const struct grun *y = &g->runs[i];

				if (y->device == newest->device && y->scenario == s && y->input == newest->input &&
				    y->died && !dead)
					dead = y;
			}
			json_text(j, cell, "device", g->devices[k]);
			json_name(j, cell, "scenario", &vocab_scenarios, s, "unknown");
			json_text(j, cell, "state", !runs ? "not_run" : dead ? "died" : "passed");
			json_u64(j, cell, "runs", runs);
			json_u64(j, cell, "deaths", deaths);
			if (!dead) {
				json_null(j, cell, "death");
				continue;
			}
			x = json_object(j, cell, "death");
			json_text(j, x, "process", dead->run->hdr.process);
			json_number(j, x, "pid", dead->run->hdr.pid);
			json_name(j, x, "classification", &vocab_exit_classes, (int)dead->v->cls, NULL);
			json_name(j, x, "evidence_level", &vocab_evidence_levels, (int)dead->v->level, NULL);
			json_name(j, x, "stage", &vocab_stages, (int)dead->f->open_stage, "unknown");
			json_text(j, x, "text", death(dead, d, sizeof(d)));
		}
}

cJSON *gate_decide(const struct gate_input *in, size_t n, const struct gate_options *o)
{
	static void (*const items[])(const struct gate *, struct item *) = {
		app_starts, stable_revertible, suspect_isolated, released, reverified,
	};
	struct gate g = { .o = o };
	struct json j;
	cJSON *root = json_begin(&j), *inputs, *list;
	char when[40];
	size_t i;
	int all = 1;

	json_text(&j, root, "kind", "lastwords-gate");
	json_number(&j, root, "gate_version", 1);
	json_digest(&j, root, "candidate", o->candidate);
	json_text(&j, root, "candidate_name", o->candidate_name);
	inputs = json_array(&j, root, "inputs");
	if (gather(&g, in, n, inputs, &j) != 0) {
		cJSON_Delete(json_end(&j));
		return NULL;
	}
	find_advice(&g);
	json_digest(&j, root, "stable_candidate", g.stable);
	json_text(&j, root, "stable_from", g.stable_from);
	if (g.quarantined_ns) {
		fmt_iso(when, sizeof(when), g.quarantined_ns);
		json_text(&j, root, "quarantined_at", when);
	} else {
		json_null(&j, root, "quarantined_at");
	}
	list = json_array(&j, root, "devices");
	for (i = 0; i < g.ndevices; i++)
		json_text(&j, list, NULL, g.devices[i]);
	matrix(&g, &j, json_array(&j, root, "matrix"));
	list = json_array(&j, root, "checklist");
	for (i = 0; i < NITEMS; i++) {
		cJSON *x = json_object(&j, list, NULL);
		struct item it = { &j, NULL, NULL, 1 };

		json_number(&j, x, "number", (double)(i + 1));
		json_text(&j, x, "item", item_ids[i]);
		json_text(&j, x, "title", item_titles[i]);
		it.proof = json_array(&j, x, "proof");
		it.missing = json_array(&j, x, "missing");
		items[i](&g, &it);
		json_bool(&j, x, "holds", it.holds);
		all &= it.holds;
	}
	json_text(&j, root, "verdict", all ? "re-enable" : "not yet");
	free(g.runs);
	return json_end(&j);
}

int gate_reenable(const cJSON *decision)
{
	const char *v = json_get_string(decision, "verdict");

	return v && strcmp(v, "re-enable") == 0;
}
