/*
 * The report as one self-contained HTML page, written from the report's
 * JSON (report_json(), schemas/report.schema.json) so that it says exactly
 * what the JSON says: no script, no external resource, every text escaped.
 * A summary table comes first: the deaths, surest first, then the clean
 * runs folded in a <details>. Each run is a <section class="run"> whose
 * data-process, data-pid, data-ring, data-class and data-level attributes
 * carry its verdict for tools, with its timeline drawn as an inline SVG
 * (report-svg.c); a clean run's section is folded in a <details>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "../format.h"
#include "html.h"
#include "report-writer.h"

#define TIMELINE_MAX 40 /* stage rows shown; the middle of longer runs is folded */

static const char style[] =
	HTML_STYLE_PAGE
	"h1{font-size:1.5em}h2{font-size:1.15em;margin:0 0 .4em}"
	"section.run{border:1px solid var(--line);border-left:6px solid var(--clean);"
	"border-radius:6px;padding:1em;margin:1.2em 0}"
	"section.run[data-level=confirmed]{border-left-color:var(--level-confirmed)}"
	"section.run[data-level=supported]{border-left-color:var(--level-supported)}"
	"section.run[data-level=unconfirmed]{border-left-color:var(--level-unconfirmed)}"
	".verdict{font-weight:600;font-size:1.05em}.mute{color:var(--mute)}"
	"table{border-collapse:collapse;margin:.4em 0}td,th{text-align:left;padding:.15em .8em .15em 0;"
	"vertical-align:top}th{font-weight:500;color:var(--mute)}"
	"svg.timeline{color:var(--fg);margin:.6em 0;font-family:system-ui,sans-serif}"
	"svg.timeline text.ev-label{paint-order:stroke;stroke:var(--bg);stroke-width:3px;"
	"stroke-linejoin:round}"
	"table.summary td,table.summary th{padding-right:1.2em}"
	"table.summary td.class,span.pid{white-space:nowrap}"
	"td.confirmed{color:var(--level-confirmed);font-weight:600}"
	"td.supported{color:var(--level-supported)}td.unconfirmed{color:var(--level-unconfirmed)}"
	"span.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.35em;"
	"vertical-align:-.05em;border-radius:2px}"
	"details.clean>summary{cursor:pointer;color:var(--mute);margin:.6em 0}"
	".open{color:var(--level-confirmed);font-weight:600}"
	"ol,ul{margin:.3em 0;padding-left:1.4em}code{font-size:.95em}";

/* The device's zone as the page labels its local times ("UTC+01:00", or
 * the zone's name), set by report_html() for the page it writes. */
static char zone[64];

/* Text escaped for HTML, its times labelled with their zone
 * (html_esc_times()). */
static void esc(FILE *out, const char *s)
{
	html_esc_times(out, s, zone);
}

/* A class's colour (html.h) beside its name. */
static void swatch(FILE *out, const char *cls)
{
	if (vocab_value(&vocab_exit_classes, cls) <= 0)
		return;
	fputs("<span class=\"swatch\" style=\"background:var(--class-", out);
	html_esc(out, cls);
	fputs(")\"></span>", out);
}

static void row(FILE *out, const char *name, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", name);
	if (value)
		esc(out, value);
	else
		fputs("<span class=\"mute\">none</span>", out);
	fputs("</td></tr>\n", out);
}

static void list(FILE *out, const char *title, const cJSON *arr, const char *tag)
{
	const cJSON *x;

	if (!cJSON_GetArraySize(arr))
		return;
	fprintf(out, "<h3>%s</h3>\n<%s>\n", title, tag);
	cJSON_ArrayForEach(x, arr) {
		fputs("<li>", out);
		if (cJSON_IsString(x)) {
			esc(out, x->valuestring);
		} else {
			fputs("<code>", out);
			esc(out, json_get_string(x, "action"));
			fputs("</code>: ", out);
			esc(out, json_get_string(x, "why"));
		}
		fputs("</li>\n", out);
	}
	fprintf(out, "</%s>\n", tag);
}

static void stage_row(FILE *out, const cJSON *s)
{
	const cJSON *end = cJSON_GetObjectItem(s, "end_ms");
	double begin = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "begin_ms"));
	const char *err = json_get_string(s, "error");
	char t[32];

	fputs("<tr><td>", out);
	esc(out, json_get_string(s, "stage"));
	fmt_ms(t, sizeof(t), begin);
	fprintf(out, "</td><td>%lld</td><td>%s</td><td>", json_get_int(s, "session"), t);
	if (cJSON_IsNumber(end)) {
		fmt_ms(t, sizeof(t), end->valuedouble - begin);
		fputs(t, out);
		if (err && strcmp(err, "none") != 0) {
			fputs(", ", out);
			esc(out, err);
		}
	} else {
		fputs("<span class=\"open\">open when the run ended</span>", out);
	}
	fputs("</td></tr>\n", out);
}

/* The stages as a table (the timeline draws them): when each began on the
 * run's clock, and how long it lasted or that it was open. */
static void stage_table(FILE *out, const cJSON *run)
{
	const cJSON *stages = cJSON_GetObjectItem(run, "stages"), *s;
	int n = cJSON_GetArraySize(stages), i = 0;

	if (!n)
		return;
	fputs("<h3>Stages</h3>\n<table class=\"stages\">\n<tr><th>stage</th><th>session</th>"
	      "<th>began</th><th>lasted</th></tr>\n",
	      out);
	cJSON_ArrayForEach(s, stages) {
		if (n > TIMELINE_MAX && i == TIMELINE_MAX / 2)
			fprintf(out, "<tr><td colspan=\"4\" class=\"mute\">&hellip; %d more stages "
				     "&hellip;</td></tr>\n",
				n - TIMELINE_MAX);
		if (n <= TIMELINE_MAX || i < TIMELINE_MAX / 2 || i >= n - TIMELINE_MAX / 2)
			stage_row(out, s);
		i++;
	}
	fputs("</table>\n", out);
}

/* A version 3 ring's composition at the peak and the budget's measure
 * (nothing for the others), and the pressure it recorded. */
static void composition(FILE *out, const cJSON *m)
{
	static const char *const kinds[] = { "anon_kb", "file_kb", "shmem_kb", "swap_kb", "graphics_kb" };
	const cJSON *at = cJSON_GetObjectItem(m, "at_peak"), *x;
	const cJSON *p = cJSON_GetObjectItem(m, "pressure");
	const char *sep = "";
	char a[24];
	size_t k;

	if (!json_get_string(at, "memory_source"))
		return;
	fputs("<p>at the peak:", out);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		x = cJSON_GetObjectItem(at, kinds[k]);
		if (!x || cJSON_IsNull(x))
			continue;
		fmt_kb(a, sizeof(a), (uint64_t)json_get_int(at, kinds[k]));
		fprintf(out, "%s %.*s %s", sep, (int)(strlen(kinds[k]) - 3), kinds[k], a);
		sep = ",";
	}
	if (json_get_string(m, "budget_measure") && strcmp(json_get_string(m, "budget_measure"), "own") == 0) {
		fmt_kb(a, sizeof(a), (uint64_t)json_get_int(m, "measured_peak_kb"));
		fputs("; the budget is compared with", out);
		sep = " ";
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(m, "measured_kinds")) {
			fprintf(out, "%s", sep);
			esc(out, x->valuestring);
			sep = "+";
		}
		fprintf(out, ", at most %s", a);
	}
	fputs("</p>\n", out);
	if (cJSON_IsTrue(cJSON_GetObjectItem(p, "short_of_memory")))
		fputs("<p>the system said it was short of memory (pressure records)</p>\n", out);
}

/* The peak against the budget, and the slope at the end over its window. */
static void memory(FILE *out, const cJSON *m)
{
	double peak = (double)json_get_int(m, "peak_kb");
	double budget = (double)json_get_int(m, "budget_kb");
	const cJSON *slope = cJSON_GetObjectItem(m, "slope_kb_per_s");
	char a[24], b[24];

	if (!peak)
		return;
	fmt_kb(a, sizeof(a), (uint64_t)peak);
	fprintf(out, "<h3>Memory</h3>\n<p>peak %s", a);
	if (budget) {
		fmt_kb(a, sizeof(a), (uint64_t)budget);
		fprintf(out, " against a budget of %s%s", a,
			cJSON_IsTrue(cJSON_GetObjectItem(m, "over_budget")) ? ": <strong>over budget</strong>"
									    : "");
	}
	if (json_get_string(m, "peak_stage") && strcmp(json_get_string(m, "peak_stage"), "none") != 0) {
		fputs(" (in ", out);
		esc(out, json_get_string(m, "peak_stage"));
		fputs(")", out);
	} else if (json_get_string(m, "peak_stage")) {
		fputs(" (outside any stage)", out);
	}
	if (cJSON_IsNumber(slope) && slope->valuedouble >= 1) {
		fmt_kb(a, sizeof(a), (uint64_t)slope->valuedouble);
		fmt_ms(b, sizeof(b), cJSON_GetNumberValue(cJSON_GetObjectItem(m, "slope_window_ms")));
		fprintf(out, "; rising %s/s over its last %s (%lld samples)", a, b,
			json_get_int(m, "slope_samples"));
	}
	fputs("</p>\n", out);
	composition(out, m);
}

/* The run's model sessions (issue 13), when the app opened its own:
 * each with its candidate, how it ended and its peak, and which were
 * resident at the end. */
static void sessions_table(FILE *out, const cJSON *r)
{
	const cJSON *arr = cJSON_GetObjectItem(r, "sessions"), *x, *st;
	const cJSON *res = cJSON_GetObjectItem(r, "resident_candidates");
	const cJSON *first = cJSON_GetArrayItem(arr, 0);
	char num[32];

	if (cJSON_GetArraySize(arr) < 2 && !(first && json_get_int(first, "id") != 0))
		return;
	fputs("<h3>Sessions</h3>\n<table class=\"sessions\">\n<tr><th>id</th><th>candidate</th>"
	      "<th>state</th><th>opened</th><th>closed</th><th>open stages</th><th>peak</th></tr>\n",
	      out);
	cJSON_ArrayForEach(x, arr) {
		const cJSON *opened = cJSON_GetObjectItem(x, "opened_ms");
		const cJSON *closed = cJSON_GetObjectItem(x, "closed_ms");
		const char *result = json_get_string(x, "result");

		fprintf(out, "<tr><td>%lld</td><td>", json_get_int(x, "id"));
		esc(out, json_get_string(x, "candidate") ? json_get_string(x, "candidate") : "none");
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "state"));
		if (result) {
			fputs(" (", out);
			esc(out, strcmp(result, "none") == 0 ? "ok" : result);
			fputs(")", out);
		}
		fputs("</td><td>", out);
		if (cJSON_IsNumber(opened))
			fprintf(out, "+%.3f ms", opened->valuedouble);
		fputs("</td><td>", out);
		if (cJSON_IsNumber(closed))
			fprintf(out, "+%.3f ms", closed->valuedouble);
		fputs("</td><td>", out);
		cJSON_ArrayForEach(st, cJSON_GetObjectItem(x, "open_stages")) {
			esc(out, cJSON_GetStringValue(st));
			fputc(' ', out);
		}
		fputs("</td><td>", out);
		if (json_get_int(x, "peak_kb")) {
			snprintf(num, sizeof(num), "%.1f MiB in ", (double)json_get_int(x, "peak_kb") / 1024.0);
			fputs(num, out);
			esc(out, json_get_string(x, "peak_stage"));
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (!cJSON_GetArraySize(res))
		return;
	fputs("<p>resident at the end: ", out);
	cJSON_ArrayForEach(x, res) {
		fputs("<code>", out);
		esc(out, cJSON_GetStringValue(x));
		fputs("</code> ", out);
	}
	fputs("</p>\n", out);
}

static void exit_records(FILE *out, const cJSON *arr)
{
	const cJSON *x;

	if (!cJSON_GetArraySize(arr))
		return;
	fputs("<h3>Exit records</h3>\n<table>\n<tr><th>reason</th><th>status</th><th>time</th>"
	      "<th>description</th><th>joined by</th></tr>\n",
	      out);
	cJSON_ArrayForEach(x, arr) {
		fprintf(out, "<tr><td>%lld/%lld</td><td>%lld</td><td>", json_get_int(x, "reason"),
			json_get_int(x, "subreason"), json_get_int(x, "status"));
		esc(out, json_get_string(x, "timestamp"));
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "description"));
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "joined_by"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* When the main process saw the run die (its peer_died mark), if it did. */
static void peer_row(FILE *out, const cJSON *p)
{
	char pid[24];

	if (!cJSON_IsObject(p))
		return;
	snprintf(pid, sizeof(pid), "%lld", json_get_int(p, "pid"));
	fputs("<tr><th>seen dying</th><td>", out);
	esc(out, json_get_string(p, "time"));
	fputs(" by ", out);
	esc(out, json_get_string(p, "process"));
	fprintf(out, " (pid %s, peer_died)</td></tr>\n", pid);
}

/* A run's pid as text, or "unknown" when the report's is null: buf, or a
 * static string (buf is then left alone). */
static const char *pid_text(const cJSON *r, char *buf, size_t len)
{
	if (!cJSON_IsNumber(cJSON_GetObjectItem(r, "pid")))
		return "unknown";
	snprintf(buf, len, "%lld", json_get_int(r, "pid"));
	return buf;
}

static void run_section(FILE *out, const cJSON *r, int index)
{
	const char *cls = json_get_string(r, "classification"), *level = json_get_string(r, "evidence_level");
	const char *contradiction = json_get_string(r, "contradiction");
	const cJSON *no_ring = cJSON_GetObjectItem(r, "no_ring");
	char pid[24], line[32];

	fprintf(out, "<section class=\"run\" id=\"run-%d\" data-process=\"", index);
	html_esc(out, json_get_string(r, "process"));
	pid_text(r, pid, sizeof(pid));
	fprintf(out, "\" data-pid=\"%s\" data-ring=\"",
		cJSON_IsNumber(cJSON_GetObjectItem(r, "pid")) ? pid : "");
	html_esc(out, json_get_string(r, "ring"));
	fputs("\" data-class=\"", out);
	html_esc(out, cls ? cls : "");
	fputs("\" data-level=\"", out);
	html_esc(out, level ? level : "");
	fputs("\">\n<h2>", out);
	esc(out, json_get_string(r, "process"));
	fprintf(out, " <span class=\"mute\">pid %s</span></h2>\n<p class=\"verdict\">",
		pid_text(r, pid, sizeof(pid)));
	if (cls) {
		swatch(out, cls);
		esc(out, cls);
		fputs(", ", out);
		esc(out, level);
	} else if (cJSON_IsObject(no_ring)) {
		fputs("no verdict: its witnesses name no death", out);
	} else {
		fputs("no verdict: the run ended cleanly", out);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(r, "rules")))
			fputs(", with a finding for leak investigation (below)", out);
	}
	fputs("</p>\n", out);
	if (contradiction) {
		fputs("<p><strong>Contradiction:</strong> ", out);
		esc(out, contradiction);
		fputs("</p>\n", out);
	}
	if (cJSON_IsObject(cJSON_GetObjectItem(r, "timeline")))
		report_svg_timeline(out, r, zone);
	else
		fputs("<p class=\"mute\">No timeline: a ring-less run has no clock of its own.</p>\n", out);
	fputs("<table>\n", out);
	if (cJSON_IsObject(no_ring)) {
		/* A ring-less run: where its death was read, and why no ring has
		 * it; it has no start, stage or candidate. */
		row(out, "ended", json_get_string(r, "end"));
		row(out, "ring", "none: a ring-less run (link liblastwords for the stage, candidate "
				 "and memory)");
		row(out, "why no ring", json_get_string(no_ring, "why_text"));
		snprintf(line, sizeof(line), "line %lld", json_get_int(no_ring, "line"));
		fputs("<tr><th>witness</th><td>", out);
		esc(out, json_get_string(r, "file"));
		fputc(' ', out);
		esc(out, line);
		fputs("</td></tr>\n", out);
	} else {
		row(out, "started", json_get_string(r, "start"));
		row(out, "last record", json_get_string(r, "end"));
		row(out, "candidate", json_get_string(r, "candidate"));
		row(out, "stable candidate", json_get_string(r, "stable_candidate"));
		row(out, "outcome", json_get_string(r, "outcome"));
		row(out, "open stage", cJSON_IsTrue(cJSON_GetObjectItem(r, "stage_open"))
					       ? json_get_string(r, "open_stage")
					       : NULL);
		row(out, "ring", json_get_string(r, "file"));
	}
	peer_row(out, cJSON_GetObjectItem(r, "peer_died"));
	fputs("</table>\n", out);
	list(out, "Recovery", cJSON_GetObjectItem(cJSON_GetObjectItem(r, "recovery"), "actions"), "ol");
	list(out, "Evidence", cJSON_GetObjectItem(r, "evidence"), "ul");
	list(out, "Missing evidence", cJSON_GetObjectItem(r, "missing"), "ul");
	list(out, "What the verdict could not see", cJSON_GetObjectItem(r, "caveats"), "ul");
	list(out, "Damaged header fields (not used)", cJSON_GetObjectItem(r, "header_damage"), "ul");
	stage_table(out, r);
	sessions_table(out, r);
	memory(out, cJSON_GetObjectItem(r, "memory"));
	exit_records(out, cJSON_GetObjectItem(r, "exit_records"));
	list(out, "Rules", cJSON_GetObjectItem(r, "rules"), "ul");
	fputs("</section>\n", out);
}

/* One row of the summary: the run (a link to its section), its process,
 * verdict, the stage it died in and its candidate. */
static void summary_row(FILE *out, const cJSON *r, int index)
{
	const char *level = json_get_string(r, "evidence_level");
	const char *stage = cJSON_IsTrue(cJSON_GetObjectItem(r, "stage_open"))
				    ? json_get_string(r, "open_stage")
				    : json_get_string(r, "last_stage");
	int ringless = cJSON_IsObject(cJSON_GetObjectItem(r, "no_ring"));
	char pid[24];

	fprintf(out, "<tr><td><a href=\"#run-%d\">%d</a></td><td>", index, index + 1);
	esc(out, json_get_string(r, "process"));
	fprintf(out, " <span class=\"mute pid\">pid %s</span></td><td class=\"class\">",
		pid_text(r, pid, sizeof(pid)));
	if (json_get_string(r, "classification"))
		swatch(out, json_get_string(r, "classification"));
	esc(out, json_get_string(r, "classification") ? json_get_string(r, "classification") : "none");
	fputs("</td><td class=\"", out);
	html_esc(out, level ? level : "");
	fputs("\">", out);
	esc(out, level ? level : "-");
	fputs("</td><td>", out);
	if (ringless)
		fputs("<span class=\"mute\">unknown (no ring)</span>", out);
	else
		esc(out, stage);
	if (cJSON_IsTrue(cJSON_GetObjectItem(r, "stage_open")))
		fputs(" (open)", out);
	fputs("</td><td>", out);
	esc(out, json_get_string(r, "candidate") ? json_get_string(r, "candidate")
		 : ringless                        ? "unknown"
						   : "none");
	fputs("</td></tr>\n", out);
}

/* The runs at a glance: the deaths, surest first (then in the report's
 * order), then the clean runs, folded. */
static void summary(FILE *out, const cJSON *runs)
{
	static const char *const levels[] = { "confirmed", "supported", "unconfirmed", NULL };
	static const char head[] = "<tr><th>run</th><th>process</th><th>class</th><th>level</th>"
				   "<th>stage</th><th>candidate</th></tr>\n";
	const cJSON *x;
	int i, k, clean = 0, deaths = 0;

	cJSON_ArrayForEach(x, runs) {
		clean += json_get_string(x, "classification") == NULL;
		deaths += json_get_string(x, "classification") != NULL;
	}
	if (!clean && !deaths)
		return;
	fprintf(out, "<h2>Summary</h2>\n<table class=\"summary\">\n%s", head);
	for (k = 0; k <= 3; k++) {
		i = 0;
		cJSON_ArrayForEach(x, runs) {
			const char *level = json_get_string(x, "evidence_level");
			int known = level && (strcmp(level, levels[0]) == 0 || strcmp(level, levels[1]) == 0 ||
					      strcmp(level, levels[2]) == 0);

			if (json_get_string(x, "classification") &&
			    (k < 3 ? known && strcmp(level, levels[k]) == 0 : !known))
				summary_row(out, x, i);
			i++;
		}
	}
	fputs("</table>\n", out);
	if (!clean)
		return;
	fprintf(out, "<details class=\"clean\"><summary>%d run%s that ended cleanly</summary>\n"
		     "<table class=\"summary\">\n%s",
		clean, clean == 1 ? "" : "s", head);
	i = 0;
	cJSON_ArrayForEach(x, runs) {
		if (!json_get_string(x, "classification"))
			summary_row(out, x, i);
		i++;
	}
	fputs("</table>\n</details>\n", out);
}

static void boot_loops(FILE *out, const cJSON *arr)
{
	const cJSON *x, *a;

	if (!cJSON_GetArraySize(arr))
		return;
	fputs("<h2>Boot loops</h2>\n<ul>\n", out);
	cJSON_ArrayForEach(x, arr) {
		fputs("<li><strong>", out);
		esc(out, json_get_string(x, "process"));
		fprintf(out, "</strong> died %lld times in a row in ", json_get_int(x, "count"));
		esc(out, json_get_string(x, "stage"));
		fputs(" with candidate ", out);
		esc(out, json_get_string(x, "candidate") ? json_get_string(x, "candidate") : "none");
		fputs(": ", out);
		cJSON_ArrayForEach(a, cJSON_GetObjectItem(x, "actions")) {
			fputs("<code>", out);
			esc(out, a->valuestring);
			fputs("</code> ", out);
		}
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void unmatched(FILE *out, const cJSON *arr)
{
	const cJSON *x;

	if (!cJSON_GetArraySize(arr))
		return;
	fputs("<h2>Exit records that joined no run</h2>\n<table>\n<tr><th>process</th><th>pid</th>"
	      "<th>time</th><th>why</th></tr>\n",
	      out);
	cJSON_ArrayForEach(x, arr) {
		fputs("<tr><td>", out);
		esc(out, json_get_string(x, "process"));
		fprintf(out, "</td><td>%lld</td><td>", json_get_int(x, "pid"));
		esc(out, json_get_string(x, "timestamp"));
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "why_text"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The packages whose deaths are judged, and why. */
static void packages(FILE *out, const cJSON *arr)
{
	const cJSON *x;
	const char *why;

	if (!cJSON_GetArraySize(arr))
		return;
	fputs("<p class=\"mute\">Packages judged: ", out);
	cJSON_ArrayForEach(x, arr) {
		why = json_get_string(x, "why");
		esc(out, json_get_string(x, "name"));
		fputs(why && strcmp(why, "ring") == 0     ? " (its rings)"
		      : why && strcmp(why, "option") == 0 ? " (--package)"
							  : " (in the evidence: no ring and no --package)",
		      out);
		fputs(x->next ? ", " : ".", out);
	}
	fputs("</p>\n", out);
}

/* The pull's notes (a partial pull first) and what it lacks, before the
 * runs: they bear on every verdict. */
static void pull(FILE *out, const cJSON *p)
{
	const cJSON *x, *missing = cJSON_GetObjectItem(p, "missing");

	cJSON_ArrayForEach(x, cJSON_GetObjectItem(p, "notes")) {
		fputs("<p class=\"verdict\">", out);
		esc(out, x->valuestring);
		fputs("</p>\n", out);
	}
	if (!cJSON_GetArraySize(missing))
		return;
	fputs("<table>\n<tr><th>missing from the pull</th><th>why</th></tr>\n", out);
	cJSON_ArrayForEach(x, missing) {
		fputs("<tr><td>", out);
		esc(out, json_get_string(x, "what"));
		if (cJSON_IsTrue(cJSON_GetObjectItem(x, "required")))
			fputs(" (required)", out);
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "reason"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

void report_html(const cJSON *rep, FILE *out)
{
	const cJSON *x, *runs = cJSON_GetObjectItem(rep, "runs");
	const cJSON *tz = cJSON_GetObjectItem(rep, "timezone");
	int i = 0, died = 0;

	int offset = (int)json_get_int(tz, "offset_minutes");

	if (json_get_string(tz, "name"))
		snprintf(zone, sizeof(zone), "%s", json_get_string(tz, "name"));
	else
		snprintf(zone, sizeof(zone), "UTC%c%02d:%02d", offset < 0 ? '-' : '+', abs(offset) / 60,
			 abs(offset) % 60);
	cJSON_ArrayForEach(x, runs)
		died += json_get_string(x, "classification") != NULL;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>lastwords report</title>\n<style>",
	      out);
	html_colour_css(out);
	fprintf(out, "%s</style>\n</head>\n<body>\n"
		     "<h1>lastwords report</h1>\n<p>%d run%s, %d with a verdict. Each time says its "
		     "zone: UTC for the runs' clocks, the device's zone for what the device logged. The "
		     "device's times read as UTC%c%02d:%02d",
		style, cJSON_GetArraySize(runs), cJSON_GetArraySize(runs) == 1 ? "" : "s", died,
		offset < 0 ? '-' : '+', abs(offset) / 60, abs(offset) % 60);
	if (json_get_string(tz, "name")) {
		fputs(" (", out);
		esc(out, json_get_string(tz, "name"));
		fputs(", at each date's offset)", out);
	}
	fputs(", from ", out);
	esc(out, json_get_string(tz, "source"));
	fprintf(out, "%s; clock tolerance %lld ms.</p>\n",
		cJSON_IsTrue(cJSON_GetObjectItem(tz, "assumed")) ? " (assumed: pass --tz)" : "",
		json_get_int(rep, "clock_tolerance_ms"));
	pull(out, cJSON_GetObjectItem(rep, "pull"));
	packages(out, cJSON_GetObjectItem(rep, "packages"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "device"), "notes")) {
		fputs("<p class=\"mute\">", out);
		esc(out, x->valuestring);
		fputs("</p>\n", out);
	}
	summary(out, runs);
	boot_loops(out, cJSON_GetObjectItem(rep, "boot_loops"));
	/* A clean run, folded: the deaths are what a reader came for. */
	cJSON_ArrayForEach(x, runs) {
		int clean = json_get_string(x, "classification") == NULL;
		char pid[24];

		if (clean) {
			fputs("<details class=\"clean\"><summary>", out);
			esc(out, json_get_string(x, "process"));
			fprintf(out, " pid %s: no verdict</summary>\n", pid_text(x, pid, sizeof(pid)));
		}
		run_section(out, x, i++);
		if (clean)
			fputs("</details>\n", out);
	}
	unmatched(out, cJSON_GetObjectItem(rep, "unmatched_exit_records"));
	fputs("<h2>Inputs</h2>\n<table>\n", out);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "inputs")) {
		fputs("<tr><td>", out);
		esc(out, json_get_string(x, "file"));
		fputs("</td><td>", out);
		esc(out, json_get_string(x, "kind"));
		if (json_get_string(x, "holds")) {
			fputs(" holding a ", out);
			esc(out, json_get_string(x, "holds"));
		}
		if (json_get_string(x, "error")) {
			fputs(": ", out);
			esc(out, json_get_string(x, "error"));
		}
		/* Left out: skipped (and the input it repeats), or a note. */
		if (json_get_string(x, "skipped") || json_get_string(x, "note")) {
			fputs(": left out: ", out);
			esc(out, json_get_string(x, "skipped") ? json_get_string(x, "skipped")
							       : json_get_string(x, "note"));
		}
		if (json_get_string(x, "duplicate_of")) {
			fputs(" (", out);
			esc(out, json_get_string(x, "duplicate_of"));
			fputs(" is read)", out);
		}
		if (json_get_string(x, "cut")) {
			fputs(": cut to a limit: ", out);
			esc(out, json_get_string(x, "cut"));
		}
		if (cJSON_IsObject(cJSON_GetObjectItem(x, "not_understood"))) {
			const cJSON *n = cJSON_GetObjectItem(x, "not_understood");

			fprintf(out, "; %lld lines not understood, skipped (the first at line %lld)",
				json_get_int(n, "lines"), json_get_int(n, "first_line"));
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n</body>\n</html>\n", out);
}

int report_html_write(const struct report *r, FILE *out)
{
	cJSON *j = report_json(r);

	if (!j)
		return -1;
	report_html(j, out);
	cJSON_Delete(j);
	return 0;
}

const char *html_style(void)
{
	return style;
}
