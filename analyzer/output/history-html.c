/* The history as an HTML page of trend charts (history-html.h). */
#include "history-html.h"

#include <stdlib.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "../evidence/text.h"
#include "../format.h"
#include "html.h"

#define NCLASSES (LW_EXIT_UNKNOWN + 1)
#define NLEVELS (LW_EVIDENCE_UNCONFIRMED + 1)
#define BUCKETS_MAX 100 /* bars of a chart: a day each, or a week, or 30 days */

#define CHART_W 900.0
#define CHART_LEFT 40.0
#define CHART_RIGHT 10.0
#define CHART_TOP 8.0
#define CHART_H 90.0
#define CHART_AXIS 22.0

static const char style[] =
	HTML_STYLE_PAGE
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}h3{font-size:1.05em}"
	".mute{color:var(--mute)}svg.trend{color:var(--fg);display:block;margin:.2em 0 1em}"
	"div.chart{border-left:4px solid var(--line);padding-left:.6em;margin:.8em 0}"
	"div.chart.regression{border-left-color:var(--level-confirmed)}"
	"p.regression{color:var(--level-confirmed);font-weight:600;margin:.2em 0}"
	"ul.legend{list-style:none;padding:0}ul.legend li{display:inline-block;margin-right:1.2em}"
	"ul.legend span{display:inline-block;width:.9em;height:.9em;margin-right:.3em;"
	"vertical-align:-.1em}";

/* The charts of one dimension and package: their days and tallest bar. */
struct days {
	int64_t first, last; /* days since the epoch */
	int64_t width;       /* days a bar */
	long long tallest;   /* runs in one bar */
};

/* One chart's bars. */
struct chart {
	long long runs[BUCKETS_MAX], deaths[BUCKETS_MAX][NCLASSES][NLEVELS], total, died;
	size_t nbuckets;
};

static int64_t day_of(const char *s)
{
	unsigned y, m, d;

	if (!s || sscanf(s, "%4u-%2u-%2u", &y, &m, &d) != 3)
		return 0;
	return text_days_from_civil(y, m, d);
}

static int same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Whether rows a and b are of the same chart (same_package: of the same
 * dimension and package). */
static int same_chart(const cJSON *a, const cJSON *b, int same_package_only)
{
	return same(json_get_string(a, "dimension"), json_get_string(b, "dimension")) &&
	       same(json_get_string(a, "package"), json_get_string(b, "package")) &&
	       (same_package_only || same(json_get_string(a, "group"), json_get_string(b, "group")));
}

static size_t bucket_of(const struct days *s, const cJSON *row)
{
	int64_t k = (day_of(json_get_string(row, "day")) - s->first) / s->width;

	return k < 0 ? 0 : k >= BUCKETS_MAX ? BUCKETS_MAX - 1 : (size_t)k;
}

/* The rows of one chart, from row on, into c; returns the first row after. */
static const cJSON *chart_of(const cJSON *row, const struct days *s, struct chart *c)
{
	const cJSON *first = row;

	memset(c, 0, sizeof(*c));
	c->nbuckets = (size_t)((s->last - s->first) / s->width + 1);
	for (; row && same_chart(row, first, 0); row = row->next) {
		size_t b = bucket_of(s, row);
		long long n = json_get_int(row, "runs");
		int cls = json_get_string(row, "class") ? vocab_value(&vocab_exit_classes, json_get_string(row, "class")) : 0;
		int lvl = json_get_string(row, "evidence_level")
				  ? vocab_value(&vocab_evidence_levels, json_get_string(row, "evidence_level"))
				  : 0;

		c->runs[b] += n;
		c->total += n;
		if (cls > 0 && cls < NCLASSES) {
			c->deaths[b][cls][lvl > 0 && lvl < NLEVELS ? lvl : 0] += n;
			c->died += n;
		}
	}
	return row;
}

/* The span of the charts of one dimension and package, from row on. */
static void days_of(const cJSON *row, struct days *s)
{
	const cJSON *first = row, *r;
	struct chart c;
	int64_t days;
	size_t b;

	s->first = INT64_MAX;
	s->last = INT64_MIN;
	for (r = row; r && same_chart(r, first, 1); r = r->next) {
		int64_t d = day_of(json_get_string(r, "day"));

		s->first = d < s->first ? d : s->first;
		s->last = d > s->last ? d : s->last;
	}
	days = s->last - s->first + 1;
	s->width = days <= BUCKETS_MAX ? 1 : days <= 7 * BUCKETS_MAX ? 7 : (days + BUCKETS_MAX - 1) / BUCKETS_MAX;
	s->tallest = 1;
	for (r = row; r && same_chart(r, first, 1);) {
		r = chart_of(r, s, &c);
		for (b = 0; b < c.nbuckets; b++)
			s->tallest = c.runs[b] > s->tallest ? c.runs[b] : s->tallest;
	}
}

/* The first regression of a chart from x on (a significant rise; the
 * others are listed, not drawn as regressions); NULL if none. */
static const cJSON *regression_of(const cJSON *x, const cJSON *row)
{
	for (; x; x = x->next)
		if (same_chart(x, row, 0) && cJSON_IsTrue(cJSON_GetObjectItem(x, "significant")))
			return x;
	return NULL;
}

static void day_text(FILE *out, int64_t day)
{
	char iso[40];

	fmt_iso(iso, sizeof(iso), (uint64_t)day * 86400000000000ull);
	iso[10] = '\0';
	fputs(iso, out);
}

/* "confirmed low_memory in 2 of 4 runs (50.0%), up from 0 of 3 (0.0%)
 * with 3f7c1426fb5ac85a; in inference 2" */
static void regression_text(FILE *out, const cJSON *x)
{
	const cJSON *st;
	const char *sep = "; in ";

	if (same(json_get_string(x, "judgement"), "not_enough_runs"))
		fputs("not enough runs to tell: ", out);
	else if (!cJSON_IsTrue(cJSON_GetObjectItem(x, "significant")))
		fprintf(out, "not significant (p = %.2g): ",
			cJSON_GetNumberValue(cJSON_GetObjectItem(x, "p_value")));
	else
		fprintf(out, "regression (p = %.2g): ",
			cJSON_GetNumberValue(cJSON_GetObjectItem(x, "p_value")));
	fputs("confirmed ", out);
	html_esc(out, json_get_string(x, "class"));
	fprintf(out, " in %lld of %lld runs (%.1f%%), against %lld of %lld (%.1f%%) with ",
		json_get_int(x, "count"), json_get_int(x, "runs"),
		100.0 * cJSON_GetNumberValue(cJSON_GetObjectItem(x, "rate")),
		json_get_int(x, "previous_count"), json_get_int(x, "previous_runs"),
		100.0 * cJSON_GetNumberValue(cJSON_GetObjectItem(x, "previous_rate")));
	html_esc(out, json_get_string(x, "previous"));
	cJSON_ArrayForEach(st, cJSON_GetObjectItem(x, "stages")) {
		fputs(sep, out);
		html_esc(out, st->string);
		fprintf(out, " %lld", (long long)st->valuedouble);
		sep = ", ";
	}
}

/* "candidate 3f7c1426fb5ac85a", "no candidate" (its runs had none, or no
 * ring to say), "app version 312", "app version unknown". */
static void group_name(FILE *out, const cJSON *row)
{
	const char *dim = json_get_string(row, "dimension"), *group = json_get_string(row, "group");

	if (same(dim, "app_version")) {
		fputs("app version ", out);
		html_esc(out, group);
	} else if (same(group, "none")) {
		fputs("no candidate", out);
	} else {
		fputs("candidate ", out);
		html_esc(out, group);
	}
}

/* One chart: per bar, the runs (grey) and the deaths stacked on each other
 * by class and level, each with its <title>; the bars of a regression's
 * class, confirmed, outlined. */
static void chart_svg(FILE *out, const struct chart *c, const struct days *s, const cJSON *reg)
{
	double pw = CHART_W - CHART_LEFT - CHART_RIGHT, bw = pw / (double)c->nbuckets;
	int marked[NCLASSES] = { 0 };
	const cJSON *r;
	size_t b, step;
	int cls, lvl;

	for (r = regression_of(reg, reg); r; r = regression_of(r->next, reg)) {
		cls = vocab_value(&vocab_exit_classes, json_get_string(r, "class"));
		if (cls > 0 && cls < NCLASSES)
			marked[cls] = 1;
	}
	fprintf(out, "<svg class=\"trend%s\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
		     "aria-label=\"deaths and runs by day\" style=\"max-width:%.0fpx\">\n",
		reg ? " regression" : "", CHART_W, CHART_TOP + CHART_H + CHART_AXIS, CHART_W);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" "
		     "fill=\"currentColor\">%lld</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		     "text-anchor=\"end\" fill=\"currentColor\">0</text>\n",
		CHART_LEFT - 4, CHART_TOP + 9, s->tallest, CHART_LEFT - 4, CHART_TOP + CHART_H);
	if (reg)
		fprintf(out, "<rect class=\"highlight\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			     "fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\"/>\n",
			CHART_LEFT - 1, CHART_TOP - 1, pw + 2, CHART_H + 2);
	for (b = 0; b < c->nbuckets; b++) {
		double x = CHART_LEFT + (double)b * bw, y = CHART_TOP + CHART_H;
		int64_t day = s->first + (int64_t)b * s->width;

		if (!c->runs[b])
			continue;
		fprintf(out, "<rect class=\"runs\" data-n=\"%lld\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%.1f\" fill=\"currentColor\" fill-opacity=\"0.12\"><title>",
			c->runs[b], x + 1, y - CHART_H * (double)c->runs[b] / (double)s->tallest, bw - 2,
			CHART_H * (double)c->runs[b] / (double)s->tallest);
		day_text(out, day);
		if (s->width > 1)
			fprintf(out, " and %lld days after", (long long)s->width - 1);
		fprintf(out, ": %lld run%s</title></rect>\n", c->runs[b], c->runs[b] == 1 ? "" : "s");
		for (cls = 1; cls < NCLASSES; cls++) {
			for (lvl = 1; lvl < NLEVELS; lvl++) {
				long long n = c->deaths[b][cls][lvl];
				double h = CHART_H * (double)n / (double)s->tallest;

				if (!n)
					continue;
				y -= h;
				fprintf(out, "<rect class=\"deaths\" data-class=\"%s\" data-level=\"%s\" "
					     "data-n=\"%lld\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					     "height=\"%.1f\" fill=\"%s\" fill-opacity=\"%.2g\"%s><title>",
					vocab_name(&vocab_exit_classes, cls),
					vocab_name(&vocab_evidence_levels, lvl), n, x + 1, y, bw - 2, h,
					html_class_colour(cls), html_level_opacity(lvl),
					marked[cls] && lvl == LW_EVIDENCE_CONFIRMED
						? " stroke=\"#000\" stroke-width=\"1.5\""
						: "");
				day_text(out, day);
				fprintf(out, ": %lld %s, %s, of %lld run%s</title></rect>\n", n,
					vocab_name(&vocab_exit_classes, cls),
					vocab_name(&vocab_evidence_levels, lvl), c->runs[b],
					c->runs[b] == 1 ? "" : "s");
			}
		}
	}
	/* the first day, about four between, and the last, which ends at the
	 * right edge */
	step = (c->nbuckets + 4) / 5;
	for (b = 0; b < c->nbuckets; b = b + step < c->nbuckets - 1 || b == c->nbuckets - 1 ? b + step
											   : c->nbuckets - 1) {
		int last = b == c->nbuckets - 1 && b > 0;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"currentColor\"%s>",
			CHART_LEFT + (double)(b + last) * bw + (last ? -1 : 1), CHART_TOP + CHART_H + 15,
			last ? " text-anchor=\"end\"" : "");
		day_text(out, s->first + (int64_t)b * s->width);
		fputs("</text>\n", out);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"currentColor\"/>\n"
		     "</svg>\n",
		CHART_LEFT, CHART_TOP + CHART_H, CHART_LEFT + pw, CHART_TOP + CHART_H);
}

/* The classes' colours, and the levels' as opacities: each swatch the
 * colour it is drawn in, its name beside it. */
static void legend(FILE *out)
{
	static const char *const how[NLEVELS] = { "", "full colour", "paler", "palest" };
	int cls, lvl;

	fputs("<ul class=\"legend\">", out);
	for (cls = 1; cls < NCLASSES; cls++)
		fprintf(out, "<li data-class=\"%s\"><span style=\"background:%s\"></span>%s</li>",
			vocab_name(&vocab_exit_classes, cls), html_class_colour(cls),
			vocab_name(&vocab_exit_classes, cls));
	for (lvl = 1; lvl < NLEVELS; lvl++)
		fprintf(out, "<li data-level=\"%s\"><span style=\"background:%s;opacity:%.2g\"></span>"
			     "%s: %s</li>",
			vocab_name(&vocab_evidence_levels, lvl), html_level_colour(lvl), html_level_opacity(lvl),
			vocab_name(&vocab_evidence_levels, lvl), how[lvl]);
	fputs("<li><span style=\"background:currentColor;opacity:.12\"></span>runs</li></ul>\n", out);
}

/* How many runs the charts of dimension dim draw, from row on. */
static long long charted(const cJSON *row, const char *dim)
{
	long long n = 0;

	for (; row; row = row->next)
		if (same(json_get_string(row, "dimension"), dim))
			n += json_get_int(row, "runs");
	return n;
}

int history_html(const char *since, long long runs, long long bundles, const cJSON *regressions,
		 const cJSON *trends, FILE *out)
{
	const cJSON *row = trends ? trends->child : NULL, *x;
	const char *dim = NULL, *pkg = NULL;
	struct chart *c = malloc(sizeof(*c));
	struct days s;

	if (!c)
		return -1;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>lastwords history</title>\n<style>",
	      out);
	html_colour_css(out);
	fprintf(out, "%s</style>\n</head>\n<body>\n"
		     "<h1>lastwords history</h1>\n<p class=\"totals\" data-runs=\"%lld\">%lld run%s in "
		     "%lld bundle%s",
		style, runs, runs, runs == 1 ? "" : "s", bundles, bundles == 1 ? "" : "s");
	if (since) {
		fputs(", since ", out);
		html_esc(out, since);
		fputs(" UTC", out);
	}
	fputs(". Each chart is a candidate's or an app version's runs by UTC day (grey) and its "
	      "deaths by exit class and evidence level; each run is in one chart of each kind, a run "
	      "with no candidate (a ring-less one among them) under &ldquo;no candidate&rdquo;.</p>\n"
	      "<h2>Regressions</h2>\n",
	      out);
	if (!cJSON_GetArraySize(regressions))
		fputs("<p>None: no candidate or app version has a confirmed low_memory or native_crash "
		      "rate up on the one before it.</p>\n",
		      out);
	else
		fputs("<ul class=\"regressions\">\n", out);
	cJSON_ArrayForEach(x, regressions) {
		fputs("<li>", out);
		html_esc(out, json_get_string(x, "package"));
		fputc(' ', out);
		group_name(out, x);
		fputs(": ", out);
		regression_text(out, x);
		fputs("</li>\n", out);
	}
	if (cJSON_GetArraySize(regressions))
		fputs("</ul>\n", out);
	legend(out);
	if (!row)
		fputs("<p class=\"mute\">No run with a time to chart.</p>\n", out);
	while (row) {
		const cJSON *reg = regression_of(regressions ? regressions->child : NULL, row), *next;

		if (!same(dim, json_get_string(row, "dimension"))) {
			dim = json_get_string(row, "dimension");
			pkg = NULL;
			long long n = charted(row, dim);

			fprintf(out, "<h2>By %s</h2>\n", same(dim, "app_version") ? "app version" : "candidate");
			fprintf(out, "<p class=\"charted\" data-dimension=\"%s\" data-runs=\"%lld\" "
				     "data-uncharted=\"%lld\">%lld of the %lld runs drawn",
				same(dim, "app_version") ? "app_version" : "candidate", n, runs - n, n, runs);
			if (runs > n)
				fprintf(out, "; %lld without a time (seed runs) in no chart", runs - n);
			fputs(".</p>\n", out);
		}
		if (!same(pkg, json_get_string(row, "package"))) {
			pkg = json_get_string(row, "package");
			days_of(row, &s);
			fputs("<h3>", out);
			html_esc(out, pkg);
			fputs("</h3>\n", out);
		}
		next = chart_of(row, &s, c);
		fputs("<div class=\"chart", out);
		fputs(reg ? " regression" : "", out);
		fputs("\" data-dimension=\"", out);
		html_esc(out, dim);
		fputs("\" data-package=\"", out);
		html_esc(out, pkg);
		fputs("\" data-group=\"", out);
		html_esc(out, json_get_string(row, "group"));
		fputs("\">\n<p><strong>", out);
		group_name(out, row);
		fprintf(out, "</strong> <span class=\"mute\">%lld run%s, %lld died</span></p>\n", c->total,
			c->total == 1 ? "" : "s", c->died);
		for (x = reg; x; x = regression_of(x->next, row)) {
			fputs("<p class=\"regression\">regression: ", out);
			regression_text(out, x);
			fputs("</p>\n", out);
		}
		chart_svg(out, c, &s, reg);
		fputs("</div>\n", out);
		row = next;
	}
	free(c);
	fputs("</body>\n</html>\n", out);
	return 0;
}
