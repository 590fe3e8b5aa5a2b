/*
 * The gate's verdict as one self-contained HTML page (gate --format html),
 * written from the gate's JSON (gate_decide(), schemas/gate.schema.json):
 * the verdict, the device matrix (a row per device, a column per
 * scenario) and the checklist, each item with its proof and what is
 * missing. In the report page's style (html_style()); no script, nothing
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

void gate_html(const cJSON *g, FILE *out)
{
	const cJSON *x, *d;
	int s;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>lastwords gate</title>\n<style>",
	      out);
	html_colour_css(out);
	fprintf(out, "%std.died,li.missing{color:var(--level-confirmed)}td.passed{color:var(--clean)}"
		     "</style>\n</head>\n<body>\n<h1>lastwords gate: ",
		html_style());
	html_esc(out, json_get_string(g, "candidate"));
	fputs("</h1>\n<p class=\"verdict\" data-verdict=\"", out);
	html_esc(out, json_get_string(g, "verdict"));
	fputs("\">", out);
	html_esc(out, json_get_string(g, "verdict"));
	fputs("</p>\n<h2>Device matrix</h2>\n<table class=\"matrix\">\n<tr><th>device</th>", out);
	for (s = 1; s < vocab_scenarios.count; s++)
		fprintf(out, "<th>%s</th>", vocab_name(&vocab_scenarios, s));
	fputs("</tr>\n", out);
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices")) {
		fputs("<tr><th>", out);
		html_esc(out, cJSON_GetStringValue(d));
		fputs("</th>", out);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "matrix")) {
			const char *state = json_get_string(x, "state");

			if (strcmp(json_get_string(x, "device"), cJSON_GetStringValue(d)) != 0)
				continue;
			fprintf(out, "<td class=\"%s\">", state);
			if (strcmp(state, "died") == 0)
				html_esc_times(out, json_get_string(cJSON_GetObjectItem(x, "death"), "text"), NULL);
			else
				fputs(strcmp(state, "passed") == 0 ? "passed" : "&ndash;", out);
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
