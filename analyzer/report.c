/*
 * The report model: a bundle's runs joined with their evidence
 * (correlate.c), classified (classify.c), with the boot loops across runs
 * and the device's zone when no option gave it; and what every writer of
 * output/ says alike of it: the notes on the pull and the zone, and each
 * run's stage timeline. Writes nothing: the writers are output/'s.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/vocab.h"
#include "runs/ring-event.h"

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

/* The device's SDK level, when the options give none: the manifest's (or,
 * without one, the first bug report's: b->sdk), else the app's exit-info
 * JSON's device.sdkInt. */
static void find_platform(const struct bundle *b, struct corr_options *opt)
{
	size_t i;

	if (opt->sdk > 0)
		return;
	if (b->sdk > 0) {
		opt->sdk = b->sdk;
		opt->sdk_from = b->nmanifests ? "manifest" : "bugreport";
		return;
	}
	for (i = 0; i < b->nfiles; i++)
		if (b->files[i].kind == EV_KIND_EXIT_INFO_JSON && b->files[i].device_sdk > 0) {
			opt->sdk = b->files[i].device_sdk;
			opt->sdk_from = "exit-info JSON";
			return;
		}
}

/* Each run's crash: its first tombstone, its Java crash, and its
 * signature: the tombstone's frames when it has one to sign, else the Java
 * crash's (symbols/signature.h). */
static void find_crashes(struct report *r)
{
	char text[CRASH_SIGNATURE_TEXT_MAX];
	size_t i;

	for (i = 0; i < r->corr.nruns; i++) {
		const struct corr_run *cr = &r->corr.runs[i];
		struct run_crash *c = &r->crashes[i];

		if (cr->tombstones.n)
			c->tombstone = &cr->tombstones.v[0].file->tombstones[cr->tombstones.v[0].index];
		c->java = classify_java_crash(cr);
		if (!c->tombstone && !c->java)
			continue;
		if (crash_signature_native(c->tombstone, c->signature, text, sizeof(text)) ||
		    crash_signature_java(c->java, c->signature, text, sizeof(text))) {
			/* on the heap: most of a report's runs have no crash */
			if (!(c->signed_frames = strdup(text)))
				c->signature[0] = '\0';
		} else {
			c->signature[0] = '\0';
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
	find_platform(b, &o);
	if (correlate(b->runs, b->nruns, b->files, b->nfiles, &o, &out->corr) != 0)
		return -1;
	n = out->corr.nruns ? out->corr.nruns : 1;
	out->facts = calloc(n, sizeof(*out->facts));
	out->verdicts = calloc(n, sizeof(*out->verdicts));
	out->judged = calloc(n, sizeof(*out->judged));
	out->crashes = calloc(n, sizeof(*out->crashes));
	if (!out->facts || !out->verdicts || !out->judged || !out->crashes) {
		report_release(out);
		return -1;
	}
	classify_all(&out->corr, out->facts, out->judged, out->verdicts);
	find_crashes(out);
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
	for (i = 0; r->crashes && i < r->corr.nruns; i++)
		free(r->crashes[i].signed_frames);
	correlation_release(&r->corr);
	free(r->facts);
	free(r->verdicts);
	free(r->judged);
	free(r->crashes);
	free(r->loops);
	memset(r, 0, sizeof(*r));
}

int report_fails(const struct report *r, const struct fail_on *fo, size_t n)
{
	size_t i, k;

	for (i = 0; i < r->corr.nruns; i++) {
		const struct verdict *v = &r->verdicts[i];

		if (!r->judged[i])
			continue;
		for (k = 0; k < n; k++)
			if ((int)v->cls == fo[k].cls && (!fo[k].level || (int)v->level <= fo[k].level))
				return 1;
	}
	return 0;
}

/* The notes on the pull, for the text, the JSON and the page alike. */

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

size_t report_pull_notes(const struct bundle *b,
			 char notes[REPORT_PULL_NOTES_MAX][REPORT_NOTE_LEN])
{
	size_t n = 0, i, required = 0, others = 0;

	for (i = 0; i < b->nmissing; i++) {
		required += b->missing[i].required != 0;
		others += b->missing[i].required == 0;
	}
	if (!b->complete) {
		char *s = notes[n++];

		if (required) {
			snprintf(s, REPORT_NOTE_LEN, "the pull is partial: it lacks ");
			missing_names(b, 1, s, REPORT_NOTE_LEN);
		} else {
			snprintf(s, REPORT_NOTE_LEN, "the pull is partial: its manifest says so, "
						   "without naming what it lacks");
		}
		if (others) {
			snprintf(s + strlen(s), REPORT_NOTE_LEN - strlen(s), "; it has no ");
			missing_names(b, 0, s, REPORT_NOTE_LEN);
		}
		snprintf(s + strlen(s), REPORT_NOTE_LEN - strlen(s),
			 "; runs and evidence that were not pulled are not in this report");
	}
	if (b->nmanifests > 1)
		snprintf(notes[n++], REPORT_NOTE_LEN,
			 "the inputs hold %zu pulls (a manifest.json each), read as one report: "
			 "the same run or the same file twice counts once; the time zone and the "
			 "device are those of '%s'",
			 b->nmanifests, b->manifests[0]);
	return n;
}

int report_zone_note(const struct report *r, char *buf, size_t len)
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

void report_repeats_note(const struct report *r, char *buf, size_t len)
{
	snprintf(buf, len, "%zu record%s held by more than one input counted once", r->corr.repeats,
		 r->corr.repeats == 1 ? "" : "s");
}

/* The stage timeline. */

#define OPEN_STAGES_MAX 64

/* One entry per begin, closed by the matching end: the latest open entry
 * of that stage in the same session (a session's stages may nest; other
 * sessions' overlap). */
int report_stage_spans(const struct run *r, struct stage_span **out, size_t *n)
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
