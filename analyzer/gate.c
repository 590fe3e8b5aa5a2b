/*
 * The release gate (gate.h): the release (an app version), the runs of
 * every input placed on the device matrix, then the six checklist items,
 * each from those runs, and the scope the verdict covers.
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
	int release;              /* a run of the release (gate.h): its app version's */
	uint64_t start_ns;        /* its start, or its death for a ring-less run */
};

/* Scenario values are 1 .. count-1 of vocab_scenarios. */
#define ONE(up, name, val) +1
#define SCENARIOS_MAX 16
_Static_assert(1 LW_SCENARIOS(ONE) <= SCENARIOS_MAX, "the gate's table of scenarios");
#undef ONE

/* The runs of one app version that is not the release's. */
struct other_version {
	uint64_t app_version;     /* 0: the run records none */
	size_t runs;
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
	int receipts_recorded;    /* some run of the release records receipts */
	uint64_t release;         /* the release's app version; 0: no run records one */
	const char *release_from; /* "option", "newest" or NULL (none known) */
	size_t release_runs;
	struct other_version *others; /* the other versions' runs, in order seen */
	size_t nothers;
	int required[SCENARIOS_MAX]; /* the scenarios covered asks for */
	size_t nrequired;
	size_t ran[64][SCENARIOS_MAX]; /* the release's runs per device (as devices[]) and scenario */
};

static const char *const item_ids[] = { "app_starts", "stable_revertible", "suspect_isolated",
					 "released", "reverified", "covered" };
static const char *const item_titles[] = {
	"The app starts",
	"The stable candidate is revertible",
	"The suspect is isolated",
	"Sessions and caches are released",
	"The original death path is re-verified",
	"Every required scenario ran on every device",
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

/* The release (gate.h): --app-version, else the newest app version that
 * a run of the inputs records; 0 when none records one. */
static void find_release(struct gate *g, const struct gate_input *in, size_t n)
{
	size_t i, k;

	if (g->o->app_version) {
		g->release = g->o->app_version;
		g->release_from = "option";
		return;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < in[i].report->corr.nruns; k++)
			if (in[i].report->corr.runs[k].run->hdr.app_version > g->release)
				g->release = in[i].report->corr.runs[k].run->hdr.app_version;
	g->release_from = g->release ? "newest" : NULL;
}

/* Run x counted as the release's, or among the other versions'. -1 on
 * ENOMEM. */
static int count_version(struct gate *g, struct grun *x)
{
	uint64_t v = x->run->hdr.app_version;
	struct other_version *o;
	size_t i;

	/* With no version recorded anywhere, no run can be told from another. */
	x->release = !g->release_from || v == g->release;
	if (x->release) {
		g->release_runs++;
		return 0;
	}
	for (i = 0; i < g->nothers; i++)
		if (g->others[i].app_version == v) {
			g->others[i].runs++;
			return 0;
		}
	if (!(o = ev_grow((void **)&g->others, g->nothers, sizeof(*o))))
		return -1;
	*o = (struct other_version){ v, 1 };
	g->nothers++;
	return 0;
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
		cJSON *o = json_object(j, inputs, NULL), *versions;
		size_t release_runs = 0;

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
			if (count_version(g, x) != 0)
				return -1;
			release_runs += x->release != 0;
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
		json_u64(j, o, "release_runs", release_runs);
		/* Each app version its runs record, once, in order. */
		versions = json_array(j, o, "app_versions");
		for (k = 0; k < r->corr.nruns; k++) {
			uint64_t v = r->corr.runs[k].run->hdr.app_version;
			size_t e;

			for (e = 0; e < k && r->corr.runs[e].run->hdr.app_version != v; e++)
				;
			if (e == k)
				json_u64(j, versions, NULL, v);
		}
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

			if (e->type == LW_EV_MARK && e->code == LW_MARK_RECEIPT && g->runs[i].release)
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

/* "app version 7", or "the release" when no run records a version. */
static const char *release(const struct gate *g, char *buf, size_t n)
{
	if (g->release_from)
		snprintf(buf, n, "app version %" PRIu64, g->release);
	else
		snprintf(buf, n, "the release");
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
	char w[256], d[96], v[48];
	size_t k, i;

	for (k = 0; k < g->ndevices; k++) {
		const struct grun *ok = NULL, *bad = NULL;
		size_t others = 0;
		int ran = 0;

		for (i = 0; i < g->nruns; i++) {
			const struct grun *x = &g->runs[i];

			if (x->device != g->devices[k] || x->scenario != LW_SCENARIO_COLD_START)
				continue;
			if (!x->release) {
				others++;
				continue;
			}
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
		else if (ran)
			lack(it, "%s: no run of the main process ended clean in cold_start", g->devices[k]);
		else
			lack(it, "%s: no cold_start run of %s%s", g->devices[k], release(g, v, sizeof(v)),
			     others ? " (those of other app versions prove nothing for it)" : "");
	}
}

static void stable_revertible(const struct gate *g, struct item *it)
{
	char s[24], w[256], d[96], files[24], v[48];
	size_t k, i, e;
	int receipt = 0;

	if (!g->stable) {
		lack(it, "no stable candidate is known: no quarantine advice or ring names one "
			 "(pass --stable NAME|DIGEST)");
		return;
	}
	fmt_digest(s, sizeof(s), g->stable);
	for (i = 0; i < g->nruns && !receipt; i++)
		for (e = 0; g->runs[i].release && e < g->runs[i].run->nevents; e++) {
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

			if (x->device != g->devices[k] || !x->release || !loaded(x->run, g->stable))
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
			lack(it, "%s: no clean run of %s completed an inference with %s", g->devices[k],
			     release(g, v, sizeof(v)), s);
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

		if (y->clean && y->release && strcmp(y->device, device) == 0 && y->scenario == scenario &&
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
	char c[24], w[256], w2[256], d[96], v[48];
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
				 "by %s completed %s in %s on %s",
			     x->what, x->device, sc, vocab_name(&vocab_stages, (int)x->stage), c,
			     release(g, v, sizeof(v)), vocab_name(&vocab_stages, (int)x->stage), sc,
			     x->device);
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
			lack(it, "the death of %s (%s): no later clean run of %s by %s completed %s in %s "
				 "on %s",
			     who(x, w, sizeof(w)), death(x, d, sizeof(d)), c, release(g, v, sizeof(v)),
			     vocab_name(&vocab_stages, (int)st),
			     x->scenario ? vocab_name(&vocab_scenarios, x->scenario) : "its scenario",
			     x->device);
	}
	if (!deaths)
		lack(it, "no death of %s in the inputs or the history: give the bundles of its "
			 "original deaths, or --history DB", c);
}

/* The required scenarios device k never ran, "concurrent, background",
 * into buf ("" for none). */
static const char *never_ran(const struct gate *g, size_t k, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < g->nrequired && len < n; i++)
		if (!g->ran[k][g->required[i]])
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
						vocab_name(&vocab_scenarios, g->required[i]));
	return buf;
}

static void covered(const struct gate *g, struct item *it)
{
	char miss[256], v[48];
	size_t k;

	if (!g->release_runs)
		lack(it, "no run of %s in the inputs", release(g, v, sizeof(v)));
	for (k = 0; k < g->ndevices; k++)
		if (*never_ran(g, k, miss, sizeof(miss)))
			lack(it, "%s: never ran %s", g->devices[k], miss);
		else
			proof(it, "%s: %s ran every required scenario (%zu)", g->devices[k],
			      release(g, v, sizeof(v)), g->nrequired);
}

/* The cells of the matrix: per device and scenario, by the release's runs,
 * passed (runs, no death), died (the first death) or not run; with the
 * runs of other app versions the cell holds, which count for none. */
static void matrix(const struct gate *g, struct json *j, cJSON *arr)
{
	char d[96];
	size_t k, i;
	int s;

	for (k = 0; k < g->ndevices; k++)
		for (s = 1; s < vocab_scenarios.count; s++) {
			const struct grun *dead = NULL, *newest = NULL;
			size_t runs = 0, deaths = 0, others = 0;
			cJSON *cell = json_object(j, arr, NULL), *x;

			for (i = 0; i < g->nruns; i++) {
				const struct grun *y = &g->runs[i];

				if (y->device != g->devices[k] || y->scenario != s)
					continue;
				if (!y->release) {
					others++;
					continue;
				}
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
				    y->release && y->died && !dead)
					dead = y;
			}
			json_text(j, cell, "device", g->devices[k]);
			json_name(j, cell, "scenario", &vocab_scenarios, s, "unknown");
			json_text(j, cell, "state", !runs ? "not_run" : dead ? "died" : "passed");
			json_u64(j, cell, "runs", runs);
			json_u64(j, cell, "deaths", deaths);
			json_u64(j, cell, "other_runs", others);
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

/* A sentence growing on the heap: the scope names every device. */
struct text {
	char *s;
	size_t len, cap;
	int err;                  /* ENOMEM: s is then incomplete */
};

__attribute__((format(printf, 2, 3))) static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = 1;
		return;
	}
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = 2 * (t->len + (size_t)n + 1);

		if (!(p = realloc(t->s, cap))) {
			t->err = 1;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* ", " between items, " and " before the last of n. */
static const char *sep(size_t i, size_t n)
{
	return i == 0 ? "" : i + 1 == n ? " and " : ", ";
}

/* What the verdict covers: "these 2 devices (Pixel 8, SM-S918B) and 8
 * scenarios of app version 7". */
static void scope_of(const struct gate *g, struct text *t)
{
	size_t k;

	if (g->ndevices == 1)
		text_add(t, "this device (");
	else
		text_add(t, "these %zu devices (", g->ndevices);
	for (k = 0; k < g->ndevices; k++)
		text_add(t, "%s%s", k ? ", " : "", g->devices[k]);
	text_add(t, ") and %zu scenario%s", g->nrequired, g->nrequired == 1 ? "" : "s");
	if (g->nrequired + 1 < (size_t)vocab_scenarios.count) {
		text_add(t, " (");
		for (k = 0; k < g->nrequired; k++)
			text_add(t, "%s%s", k ? ", " : "", vocab_name(&vocab_scenarios, g->required[k]));
		text_add(t, ")");
	}
	if (g->release_from)
		text_add(t, " of app version %" PRIu64, g->release);
	else
		text_add(t, " (no run records an app version: the gate cannot tell builds apart)");
}

/* "2 runs of app version 6 are not this release's (7): they prove
 * nothing for it", into t; nothing when every run is the release's. */
static void other_versions(const struct gate *g, struct text *t)
{
	size_t i, total = 0;

	for (i = 0; i < g->nothers; i++) {
		const struct other_version *o = &g->others[i];

		total += o->runs;
		if (o->app_version)
			text_add(t, "%s%zu run%s of app version %" PRIu64, sep(i, g->nothers), o->runs,
				 o->runs == 1 ? "" : "s", o->app_version);
		else
			text_add(t, "%s%zu run%s recording no app version", sep(i, g->nothers), o->runs,
				 o->runs == 1 ? "" : "s");
	}
	if (total)
		text_add(t, " %s not this release's (%" PRIu64 "): %s nothing for it",
			 total == 1 ? "is" : "are", g->release, total == 1 ? "it proves" : "they prove");
}

/* The verdict's sentence (gate.h), from the items' holds[]. */
static void sentence(const struct gate *g, const int *holds, int all, struct text *t)
{
	char miss[256];
	size_t i, k, nfailing = 0, parts = 0;

	if (!g->nruns) {
		text_add(t, "not yet: the inputs hold no run");
		return;
	}
	if (!g->release_runs) {
		text_add(t, "not yet: no run of app version %" PRIu64 " in the inputs, only of ",
			 g->release);
		for (i = 0; i < g->nothers; i++) {
			if (g->others[i].app_version)
				text_add(t, "%sapp version %" PRIu64, sep(i, g->nothers),
					 g->others[i].app_version);
			else
				text_add(t, "%sruns recording no app version", sep(i, g->nothers));
		}
		return;
	}
	text_add(t, "%s for ", all ? "re-enable" : "not yet");
	scope_of(g, t);
	if (all) {
		text_add(t, "; other devices%s untested",
			 g->nrequired + 1 < (size_t)vocab_scenarios.count ? " and scenarios" : "");
		return;
	}
	text_add(t, ": ");
	for (k = 0; k < g->ndevices; k++)
		if (*never_ran(g, k, miss, sizeof(miss)))
			text_add(t, "%s%s never ran %s", parts++ ? "; " : "", g->devices[k], miss);
	for (i = 0; i < NITEMS; i++)
		nfailing += !holds[i] && strcmp(item_ids[i], "covered") != 0;
	for (i = 0, k = 0; i < NITEMS; i++)
		if (!holds[i] && strcmp(item_ids[i], "covered") != 0)
			text_add(t, "%s%s", k++ ? sep(k - 1, nfailing) : parts ? "; " : "", item_ids[i]);
	if (nfailing)
		text_add(t, " %s not hold", nfailing == 1 ? "does" : "do");
}

/* The scope of the verdict (schemas/gate.schema.json, "scope"). -1 on
 * ENOMEM. */
static int scope(const struct gate *g, struct json *j, cJSON *root, const int *holds, int all)
{
	struct text t = { 0 }, other = { 0 };
	cJSON *o = json_object(j, root, "scope"), *list, *x, *sc;
	size_t i, k;
	int s, err;

	if (g->release_from)
		json_u64(j, o, "app_version", g->release);
	else
		json_null(j, o, "app_version");
	json_text(j, o, "app_version_from", g->release_from);
	json_u64(j, o, "release_runs", g->release_runs);
	list = json_array(j, o, "other_versions");
	for (i = 0; i < g->nothers; i++) {
		x = json_object(j, list, NULL);
		if (g->others[i].app_version)
			json_u64(j, x, "app_version", g->others[i].app_version);
		else
			json_null(j, x, "app_version");
		json_u64(j, x, "runs", g->others[i].runs);
	}
	other_versions(g, &other);
	list = json_array(j, o, "devices");
	for (k = 0; k < g->ndevices; k++)
		json_text(j, list, NULL, g->devices[k]);
	list = json_array(j, o, "required");
	for (i = 0; i < g->nrequired; i++)
		json_name(j, list, NULL, &vocab_scenarios, g->required[i], "unknown");
	json_text(j, o, "required_from", g->o->nrequire ? "option" : "default");
	/* Every scenario the release ran on each device, required or not. */
	list = json_array(j, o, "seen");
	for (k = 0; k < g->ndevices; k++) {
		x = json_object(j, list, NULL);
		json_text(j, x, "device", g->devices[k]);
		sc = json_array(j, x, "scenarios");
		for (s = 1; s < vocab_scenarios.count; s++)
			if (g->ran[k][s])
				json_name(j, sc, NULL, &vocab_scenarios, s, "unknown");
	}
	sentence(g, holds, all, &t);
	err = t.err || other.err;
	json_text(j, o, "other_versions_text", err ? NULL : other.s);
	json_text(j, o, "sentence", err ? "" : t.s);
	free(t.s);
	free(other.s);
	return err ? -1 : 0;
}

/* The release's runs per device and scenario (g->ran), and the scenarios
 * covered asks for. */
static void tally(struct gate *g)
{
	size_t i, k;
	int s;

	for (i = 0; i < g->nruns; i++) {
		const struct grun *x = &g->runs[i];

		if (!x->release || x->scenario <= 0 || x->scenario >= SCENARIOS_MAX)
			continue;
		for (k = 0; k < g->ndevices; k++)
			if (g->devices[k] == x->device)
				g->ran[k][x->scenario]++;
	}
	if (g->o->nrequire) {
		for (i = 0; i < g->o->nrequire && g->nrequired < SCENARIOS_MAX; i++)
			g->required[g->nrequired++] = g->o->require[i];
		return;
	}
	for (s = 1; s < vocab_scenarios.count; s++)
		g->required[g->nrequired++] = s;
}

cJSON *gate_decide(const struct gate_input *in, size_t n, const struct gate_options *o)
{
	static void (*const items[])(const struct gate *, struct item *) = {
		app_starts, stable_revertible, suspect_isolated, released, reverified, covered,
	};
	struct gate g = { .o = o };
	struct json j;
	cJSON *root = json_begin(&j), *inputs, *list;
	char when[40];
	int holds[NITEMS], all = 1;
	size_t i;

	json_text(&j, root, "kind", "lastwords-gate");
	json_number(&j, root, "gate_version", 2);
	json_digest(&j, root, "candidate", o->candidate);
	json_text(&j, root, "candidate_name", o->candidate_name);
	inputs = json_array(&j, root, "inputs");
	find_release(&g, in, n);
	if (gather(&g, in, n, inputs, &j) != 0)
		goto fail;
	tally(&g);
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
		holds[i] = it.holds;
		all &= it.holds;
	}
	if (scope(&g, &j, root, holds, all) != 0)
		goto fail;
	json_text(&j, root, "verdict", all ? "re-enable" : "not yet");
	free(g.runs);
	free(g.others);
	return json_end(&j);

fail:
	free(g.runs);
	free(g.others);
	cJSON_Delete(json_end(&j));
	return NULL;
}

int gate_reenable(const cJSON *decision)
{
	const char *v = json_get_string(decision, "verdict");

	return v && strcmp(v, "re-enable") == 0;
}
