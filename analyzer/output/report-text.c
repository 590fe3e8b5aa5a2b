/*
 * The report as text, for a person: the notes on the pull, the bug
 * reports and the packages judged at the top, then one screen per run
 * (where it was read, its stages, sessions, memory, verdict and
 * recovery), then the boot loops, the exit records that joined no run,
 * the inputs left out or cut and the notes on the zone. Writes only to the
 * stream it is given.
 */
#include "report-writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../format.h"
#include "../runs/sessions.h"
#include "../symbols/symbolize.h"

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

	if (report_stage_spans(r, &v, &count) != 0 || count == 0) {
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

/* The run's sessions, when the app opened its own: each with its
 * candidate, how it ended and its peak; then the candidates resident at
 * the end. Session 0 is left out when it held nothing. */
/* The session blamed, one line: "blamed     session 1 (digest): why", or
 * "blamed     none: why" (with the sessions plausible). */
static void blamed_text(const struct verdict *v, FILE *out)
{
	const struct blame *b = &v->blame;
	char cand[24] = "no candidate";
	size_t k;

	if (b->candidate)
		fmt_digest(cand, sizeof(cand), b->candidate);
	if (b->have_id)
		fprintf(out, "blamed     session %" PRIu32 " (%s)", b->id, cand);
	else if (b->candidate)
		fprintf(out, "blamed     %s", cand);
	else
		fprintf(out, "blamed     none");
	if (!b->have_id && b->nplausible > 1)
		for (k = 0; k < b->nplausible; k++)
			fprintf(out, "%s%" PRIu32, k ? ", " : " of sessions ", b->plausible[k]);
	fprintf(out, ": %s\n", b->why ? fmt_text(b->why) : "(not known)");
}

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

/* The pull's notes and what it lacks, at the top: they bear on all else. */
static void pull_text(const struct bundle *b, FILE *out, size_t nruns)
{
	char notes[REPORT_PULL_NOTES_MAX][REPORT_NOTE_LEN];
	size_t i, n = report_pull_notes(b, notes);

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
		if (cr->last_ms == CORR_NO_START || !ms_fits_ns(cr->last_ms))
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

/* A figure in whole MiB (one decimal below 10), for the memory line's
 * list that shares one unit. */
static void mib(char *buf, size_t len, int64_t kb)
{
	double v = (double)kb / 1024;

	snprintf(buf, len, v < 10 && kb % 1024 ? "%.1f" : "%.0f", v);
}

/* The memory line of a version 3 ring: what the peak was made of, and the
 * budget against what it measured ("...: anon 180, file 220, shmem 8,
 * swap 4, graphics 256 MiB; budget 300 MiB against anon+shmem+swap+graphics,
 * at most 448 MiB: over budget"). */
static void composition_text(const struct run_facts *f, FILE *out)
{
	const struct run_memory *m = &f->at_peak;
	char v[24], kinds[80];

	mib(v, sizeof(v), m->anon_kb);
	fprintf(out, ": anon %s", v);
	mib(v, sizeof(v), m->file_kb);
	fprintf(out, ", %s %s", m->source == LW_MEMORY_SOURCE_STATM ? "file+shmem" : "file", v);
	if (m->shmem_kb >= 0) {
		mib(v, sizeof(v), m->shmem_kb);
		fprintf(out, ", shmem %s", v);
	}
	if (m->swap_kb >= 0) {
		mib(v, sizeof(v), m->swap_kb);
		fprintf(out, ", swap %s", v);
	}
	if (m->graphics_kb >= 0) {
		mib(v, sizeof(v), m->graphics_kb);
		fprintf(out, ", graphics %s", v);
	}
	fputs(" MiB", out);
	if (!f->budget_kb)
		return;
	fmt_kb(v, sizeof(v), f->budget_kb);
	fprintf(out, "; budget %s", v);
	if (f->budget_measure == RUN_BUDGET_OWN) {
		run_memory_kinds_text(f->measured_kinds, 0, kinds, sizeof(kinds));
		fmt_kb(v, sizeof(v), f->measured_peak_kb);
		fprintf(out, " against %s, at most %s", kinds, v);
	}
	if (f->over_budget)
		fputs(": over budget", out);
}

/* One native frame: its function and line when symbolicated (each
 * inlined level), else its library, offset and the tombstone's symbol;
 * why it was not symbolicated when it was asked and this is the first
 * frame of its library to say so. */
static void frame_text(const struct frame *fr, const struct frame *all, size_t at, FILE *out)
{
	char buf[1024];
	size_t k;

	frame_format(fr, at, buf, sizeof(buf));
	fputs(fmt_text(buf), out);
	if (!fr->nlines && fr->why_not) {
		for (k = 0; k < at; k++)
			if (all[k].why_not == fr->why_not && all[k].library && fr->library &&
			    strcmp(all[k].library, fr->library) == 0)
				break;
		if (k == at)
			fprintf(out, ": not symbolicated, %s", fr->why_not);
	}
	fputc('\n', out);
}

/* The crashing thread's top frames, those in the app's own libraries
 * first (up to FRAMES_SHOWN), then what the others were. */
#define FRAMES_SHOWN 6
static void frames_text(const struct tombstone *t, FILE *out)
{
	size_t k, shown = 0, apps = 0, others = 0, first_other = 0;

	if (!t || !t->nframes)
		return;
	for (k = 0; k < t->nframes; k++)
		apps += library_is_app(t->frames[k].library);
	for (k = 0; k < t->nframes && shown < FRAMES_SHOWN; k++) {
		if (apps && !library_is_app(t->frames[k].library))
			continue;
		fprintf(out, "%s ", shown ? "          " : "frames    ");
		frame_text(&t->frames[k], t->frames, k, out);
		shown++;
	}
	for (k = 0; k < t->nframes; k++)
		if (apps ? !library_is_app(t->frames[k].library) : k >= shown) {
			if (!others++)
				first_other = k;
		}
	if (others) {
		const struct frame *fr = &t->frames[first_other];

		fprintf(out, "           and %zu frame%s %s, the first #%02zu %s +0x%" PRIx64 "%s%s%s\n",
			others, others == 1 ? "" : "s", apps ? "outside the app's libraries" : "more",
			first_other, fr->library ? fmt_text(library_base(fr->library)) : "?", fr->pc,
			fr->symbol ? " (" : "", fr->symbol ? fmt_text(fr->symbol) : "",
			fr->symbol ? ")" : "");
	}
}

/* Lines of a Java crash's stack shown, frames R8 inlined counted each. */
#define JAVA_TEXT_FRAMES 5

/* A run's Java crash: its exception and top frames, retraced when
 * --mapping did. */
static void java_crash_text(const struct run_crash *c, FILE *out)
{
	const struct log_event *e = c->java;
	size_t k, n, shown = 0, retraced = 0;

	if (!e || !e->nstack)
		return;
	if (e->reason_retraced)
		fprintf(out, "exception  %s\n", fmt_text(e->reason_retraced));
	for (k = 0; k < e->nstack && shown < JAVA_TEXT_FRAMES; k++) {
		const struct java_frame *fr = &e->stack[k];

		if (!fr->retraced) {
			fprintf(out, "%s %s\n", shown++ ? "          " : "stack     ", fmt_text(fr->text));
			continue;
		}
		retraced++;
		for (n = 0; n < fr->nretraced && shown < JAVA_TEXT_FRAMES; n++)
			fprintf(out, "%s %s%s\n", shown++ ? "          " : "stack     ",
				fr->ambiguous ? (n ? "or " : "one of ") : "", fmt_text(fr->retraced[n]));
	}
	if (k < e->nstack || retraced)
		fprintf(out, "           (%zu line%s of the stack%s%s)\n", e->nstack, e->nstack == 1 ? "" : "s",
			k < e->nstack ? ", the top shown" : "",
			retraced ? "; retraced with the mapping" : "");
}

int report_text(const struct report *r, FILE *out)
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
			if (f->at_peak.source)
				composition_text(f, out);
			else if (f->budget_kb)
				fprintf(out, ", budget %s%s", budget, f->over_budget ? ": over budget" : "");
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
			for (k = 0; k < v->caveats.n; k++)
				fprintf(out, "%s %s\n", k ? "          " : "caveats   ",
					fmt_text(v->caveats.line[k]));
			continue;
		}
		fprintf(out, "verdict    %s, %s\n", vocab_name(&vocab_exit_classes, (int)v->cls),
			vocab_name(&vocab_evidence_levels, (int)v->level));
		if (v->contradiction)
			fprintf(out, "           contradiction: %s\n", fmt_text(v->contradiction));
		blamed_text(v, out);
		fprintf(out, "rules      ");
		for (k = 0; k < v->nrules; k++)
			fprintf(out, "%s%s", k ? ", " : "", v->rules[k]);
		fprintf(out, "%s\n", v->nrules ? "" : "none fired");
		for (k = 0; k < v->nevidence; k++)
			fprintf(out, "%s %s\n", k ? "          " : "evidence  ", fmt_text(v->evidence[k]));
		frames_text(r->crashes[i].tombstone, out);
		java_crash_text(&r->crashes[i], out);
		if (r->crashes[i].signature[0])
			fprintf(out, "signature  %s (%s)\n", r->crashes[i].signature,
				fmt_text(r->crashes[i].signed_frames));
		for (k = 0; k < v->nmissing; k++)
			fprintf(out, "%s %s\n", k ? "          " : "missing   ", fmt_text(v->missing[k]));
		for (k = 0; k < v->caveats.n; k++)
			fprintf(out, "%s %s\n", k ? "          " : "caveats   ", fmt_text(v->caveats.line[k]));
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

		report_repeats_note(r, note, sizeof(note));
		fprintf(out, "\nnote: %s\n", note);
	}
	if (corr_tz_assumed(&r->corr))
		fprintf(out, "\nnote: dumpsys and logcat times were taken as UTC; pass --tz to set the "
			     "device's zone (clock tolerance %" PRId64 " ms)\n",
			r->corr.opt.tolerance_ms);
	else if (r->corr.local_times) {
		char zone[TZ_NAME_MAX], note[REPORT_ZONE_NOTE_LEN];

		fprintf(out, "\nnote: local times were read in %s, from %s\n",
			fmt_text(tz_text(&r->corr.opt.tz, zone, sizeof(zone))),
			tz_source_text(r));
		if (report_zone_note(r, note, sizeof(note)))
			fprintf(out, "note: %s\n", fmt_text(note));
	}
	return 0;
}
