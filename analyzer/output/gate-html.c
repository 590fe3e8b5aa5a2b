/*
 * The gate's verdict as one self-contained HTML page (gate --format html),
 * written from the gate's JSON (gate_decide(), schemas/gate.schema.json):
 * the verdict and the sentence of its scope, the release and the runs of
 * other app versions set aside, the device matrix (a row per device, a
 * column per scenario, those not required muted) and the checklist, each
 * item with its proof and what is missing. In the report page's style (html_style()); no script, nothing
 * loaded, every text escaped. Writes only to the stream it is given.
 */
#include "gate-html.h"

#include <string.h>

#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "html.h"

static void html_list(FILE *out, const cJSON *arr, const char *cls)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, arr) {
		fprintf(out, "<li%s>", cls);
		html_esc_times(out, cJSON_GetStringValue(x), NULL);
		fputs("</li>\n", out);
	}
}

/* Whether scenario s is one the gate required (scope.required). */
static int required(const cJSON *scope, int s)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, cJSON_GetObjectItem(scope, "required"))
		if (strcmp(cJSON_GetStringValue(x), vocab_name(&vocab_scenarios, s)) == 0)
			return 1;
	return 0;
}

/* The release, and each input of other app versions by name. */
static void release(FILE *out, const cJSON *g, const cJSON *sc)
{
	const cJSON *v = cJSON_GetObjectItem(sc, "app_version"), *x;
	const char *from = json_get_string(sc, "app_version_from");
	int any = 0;

	fputs("<p class=\"mute\">Release: ", out);
	if (from)
		fprintf(out, "app version %s (%s), %lld runs.", cJSON_IsRaw(v) ? v->valuestring : "?",
			strcmp(from, "option") == 0 ? "--app-version" : "the newest in the inputs",
			json_get_int(sc, "release_runs"));
	else
		fputs("unknown: no run records an app version, so every run counts.", out);
	fputs("</p>\n", out);
	if (!json_get_string(sc, "other_versions_text"))
		return;
	fputs("<p class=\"note\">", out);
	html_esc(out, json_get_string(sc, "other_versions_text"));
	fputs(".</p>\n", out);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "inputs")) {
		if (json_get_int(x, "release_runs") == json_get_int(x, "runs"))
			continue;
		fputs(any++ ? "" : "<ul class=\"note\">\n", out);
		fputs("<li>", out);
		html_esc(out, json_get_string(x, "path"));
		fprintf(out, ": %lld of its %lld runs of other app versions</li>\n",
			json_get_int(x, "runs") - json_get_int(x, "release_runs"), json_get_int(x, "runs"));
	}
	if (any)
		fputs("</ul>\n", out);
}

void gate_html(const cJSON *g, FILE *out)
{
	const cJSON *x, *d, *sc = cJSON_GetObjectItem(g, "scope");
	int s;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>lastwords gate</title>\n<style>",
	      out);
	html_colour_css(out);
	fprintf(out, "%std.died,li.missing{color:var(--level-confirmed)}td.passed{color:var(--clean)}"
		     "td.missing{color:var(--level-confirmed);font-weight:600}"
		     ".note{color:var(--level-unconfirmed)}table.matrix th,td small{white-space:nowrap}"
		     "th.mute{font-weight:400;font-style:italic}td small{color:var(--mute)}"
		     "</style>\n</head>\n<body>\n<h1>lastwords gate: ",
		html_style());
	html_esc(out, json_get_string(g, "candidate"));
	fputs("</h1>\n<p class=\"verdict\" data-verdict=\"", out);
	html_esc(out, json_get_string(g, "verdict"));
	fputs("\">", out);
	/* The sentence begins with the verdict: it is the verdict's line. */
	html_esc(out, json_get_string(sc, "sentence"));
	fputs("</p>\n", out);
	release(out, g, sc);
	fputs("<h2>Device matrix</h2>\n<table class=\"matrix\">\n<tr><th>device</th>", out);
	for (s = 1; s < vocab_scenarios.count; s++)
		fprintf(out, "<th%s>%s</th>", required(sc, s) ? "" : " class=\"mute\" title=\"not required\"",
			vocab_name(&vocab_scenarios, s));
	fputs("</tr>\n", out);
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices")) {
		fputs("<tr><th>", out);
		html_esc(out, cJSON_GetStringValue(d));
		fputs("</th>", out);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "matrix")) {
			const char *state = json_get_string(x, "state");

			int req;

			if (strcmp(json_get_string(x, "device"), cJSON_GetStringValue(d)) != 0)
				continue;
			req = required(sc, vocab_value(&vocab_scenarios, json_get_string(x, "scenario")));
			/* A required cell never run is what covered misses: said. */
			fprintf(out, "<td class=\"%s%s\">", state,
				req && strcmp(state, "not_run") == 0 ? " missing" : "");
			if (strcmp(state, "died") == 0)
				html_esc_times(out, json_get_string(cJSON_GetObjectItem(x, "death"), "text"), NULL);
			else
				fputs(strcmp(state, "passed") == 0 ? "passed" : req ? "not run" : "&ndash;", out);
			if (json_get_int(x, "other_runs"))
				fprintf(out, "<br><small>+%lld of other versions</small>",
					json_get_int(x, "other_runs"));
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<h2>Checklist</h2>\n<ol>\n", out);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "checklist")) {
		int holds = cJSON_IsTrue(cJSON_GetObjectItem(x, "holds"));

		fprintf(out, "<li data-item=\"%s\" data-holds=\"%s\"><strong>%s</strong> ",
			json_get_string(x, "item"), holds ? "yes" : "no", holds ? "&#10003;" : "&#10007;");
		html_esc(out, json_get_string(x, "title"));
		fputs("\n<ul>\n", out);
		html_list(out, cJSON_GetObjectItem(x, "proof"), "");
		html_list(out, cJSON_GetObjectItem(x, "missing"), " class=\"missing\"");
		fputs("</ul></li>\n", out);
	}
	fputs("</ol>\n<p class=\"mute\">The gate is a report: it switches and deletes nothing.</p>\n"
	      "</body>\n</html>\n",
	      out);
}
