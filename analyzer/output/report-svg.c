/*
 * A run's timeline as an inline SVG (report_svg_timeline()), drawn from
 * the run's JSON (its "timeline" and "stages", schemas/report.schema.json)
 * so that it shows what the JSON says. From the top: the evidence markers,
 * the RSS line against the budget line, one lane of stage bands per
 * session, the marks, the time axis (with a break before evidence far from
 * the run) and a legend; the death is a line across all of them. Every
 * marker has a <title> saying what it is, and each evidence marker a label
 * above the chart, in rows that do not overlap. No script, no reference
 * outside the page, every text escaped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../evidence/json.h"
#include "../format.h"
#include "html.h"
#include "report-writer.h"

#define SVG_W 900.0
#define SVG_LEFT 92.0   /* lane names and memory labels */
#define SVG_RIGHT 14.0
#define EV_Y 4.0        /* evidence markers: 4 to 16 */
#define MEM_TOP 22.0
#define MEM_H 140.0
#define LANE_TOP (MEM_TOP + MEM_H + 10.0)
#define LANE_H 20.0
#define MARK_H 14.0
#define AXIS_H 28.0
#define LEGEND_H 18.0
#define LANES_MAX 64    /* sessions drawn; the ring format has 16 */
#define LABEL_H 13.0    /* a row of evidence labels, above the markers */
#define LABEL_CHAR 6.4  /* the width of a label's character, at font-size 11 */
#define LABELS_MAX 64   /* evidence labelled; the timeline keeps a few of each kind */

/* The RSS line's colour, which tests look for on the rendered page. */
#define RSS_COLOUR "#1565c0"

/*
 * Time to x, and kB to y. The run itself (its samples, stages, marks, death,
 * and the evidence near it) is drawn to scale; evidence far before or after
 * it (an exit record written minutes after a cached process's last record)
 * goes to a narrow piece of its own on either side, past a break in the
 * axis, so that the run is not squashed to a pixel.
 */
struct piece {
	double t0, t1, x0, x1;
};

struct svg_frame {
	struct piece p[3]; /* in time order: [before,] the run[, after] */
	int n, core;       /* how many; which is the run's */
	double ymax;
};

#define PLOT_X0 SVG_LEFT
#define PLOT_X1 (SVG_W - SVG_RIGHT)
#define FAR_W 110.0      /* the width of a piece of far evidence */
#define BREAK_W 14.0     /* the gap of a break */
#define NEAR_MIN_MS 10   /* evidence this near the run, or twice its span, is drawn to scale */

static double fx(const struct svg_frame *f, double t)
{
	const struct piece *p = &f->p[f->n - 1];
	int i;

	for (i = 0; i < f->n - 1; i++)
		if (t <= f->p[i].t1 || t < f->p[i + 1].t0) {
			p = &f->p[i];
			break;
		}
	t = t < p->t0 ? p->t0 : t > p->t1 ? p->t1 : t;
	return p->x0 + (t - p->t0) / (p->t1 - p->t0) * (p->x1 - p->x0);
}

static double fy(const struct svg_frame *f, double kb)
{
	return MEM_TOP + MEM_H - kb / f->ymax * MEM_H;
}

static double num(const cJSON *o, const char *k, double absent)
{
	const cJSON *x = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(x) ? x->valuedouble : absent;
}

/* A kB figure (json_int() writes integers raw, for exactness), or 0 for
 * null: not known. */
static double kb_of(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItem(o, k);

	return cJSON_IsRaw(x) || cJSON_IsNumber(x) ? (double)json_get_int(o, k) : 0;
}

static void widen(struct piece *p, double t)
{
	if (t < p->t0)
		p->t0 = t;
	if (t > p->t1)
		p->t1 = t;
}

/* The kinds of memory of a composition, stacked from the bottom: what the
 * process cannot give back first (the budget compares with their top:
 * run.h, RUN_BUDGET_OWN), then the file-backed pages the kernel can drop. */
static const struct {
	const char *key, *name, *colour;
} kinds[] = {
	{ "anon_kb", "anon", "#6a1b9a" },
	{ "shmem_kb", "shmem", "#00838f" },
	{ "swap_kb", "swap", "#ad1457" },
	{ "graphics_kb", "graphics", "#ef6c00" },
	{ "file_kb", "file", "#9e9d24" },
};
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The pieces drawn: the run's records and stages, the evidence near them,
 * and that far before or after. */
static void frame_of(const cJSON *run, const cJSON *tl, struct svg_frame *f)
{
	struct piece core = { 0, num(tl, "end_ms", 0), 0, 0 }, before = { 1, 0, 0, 0 },
		     after = { 1, 0, 0, 0 };
	const cJSON *x;
	double near;

	f->ymax = (double)json_get_int(tl, "budget_kb");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(tl, "points")) {
		widen(&core, cJSON_GetNumberValue(cJSON_GetArrayItem(x, 0)));
		if (cJSON_GetNumberValue(cJSON_GetArrayItem(x, 2)) > f->ymax)
			f->ymax = cJSON_GetNumberValue(cJSON_GetArrayItem(x, 2));
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(tl, "composition")) {
		double sum = 0;

		for (size_t k = 0; k < KINDS; k++)
			sum += kb_of(x, kinds[k].key);
		widen(&core, num(x, "t_ms", 0));
		f->ymax = sum > f->ymax ? sum : f->ymax;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(run, "stages")) {
		widen(&core, num(x, "begin_ms", 0));
		widen(&core, num(x, "end_ms", 0));
	}
	if (cJSON_IsObject(cJSON_GetObjectItem(tl, "death")))
		widen(&core, num(cJSON_GetObjectItem(tl, "death"), "t_ms", 0));
	near = 2 * (core.t1 - core.t0) > NEAR_MIN_MS ? 2 * (core.t1 - core.t0) : NEAR_MIN_MS;
	{
		struct piece run = core;

		cJSON_ArrayForEach(x, cJSON_GetObjectItem(tl, "evidence")) {
			double t = num(x, "t_ms", 0);

			if (!cJSON_IsNumber(cJSON_GetObjectItem(x, "t_ms")))
				continue;
			if (t < run.t0 - near) {
				if (before.t0 > before.t1)
					before.t0 = before.t1 = t;
				widen(&before, t);
			} else if (t > run.t1 + near) {
				if (after.t0 > after.t1)
					after.t0 = after.t1 = t;
				widen(&after, t);
			} else {
				widen(&core, t);
			}
		}
	}
	/* a margin, and never an empty span */
	if (core.t1 - core.t0 < 1e-3)
		core.t1 = core.t0 + 1;
	core.t1 += (core.t1 - core.t0) * 0.02;
	core.x0 = PLOT_X0;
	core.x1 = PLOT_X1;
	f->n = 0;
	if (before.t0 <= before.t1) {
		before.x0 = PLOT_X0;
		before.x1 = PLOT_X0 + FAR_W;
		core.x0 = before.x1 + BREAK_W;
		f->p[f->n++] = before;
	}
	f->core = f->n;
	f->p[f->n++] = core;
	if (after.t0 <= after.t1) {
		after.x0 = PLOT_X1 - FAR_W;
		after.x1 = PLOT_X1;
		f->p[f->core].x1 = after.x0 - BREAK_W;
		f->p[f->n++] = after;
	}
	for (int i = 0; i < f->n; i++) {
		struct piece *p = &f->p[i];
		double pad = i == f->core ? 0 : (p->t1 - p->t0) * 0.1 + 0.5;

		p->t0 -= pad;
		p->t1 += pad;
	}
	f->ymax = f->ymax > 0 ? f->ymax * 1.08 : 1;
}

/* The sessions that have stages, in order: one lane each. */
static size_t lanes_of(const cJSON *run, long long *lanes)
{
	const cJSON *x;
	size_t n = 0, i, k;

	cJSON_ArrayForEach(x, cJSON_GetObjectItem(run, "stages")) {
		long long s = json_get_int(x, "session");

		for (i = 0; i < n && lanes[i] < s; i++)
			;
		if ((i < n && lanes[i] == s) || n == LANES_MAX)
			continue;
		for (k = n++; k > i; k--)
			lanes[k] = lanes[k - 1];
		lanes[i] = s;
	}
	return n;
}

static size_t lane_index(const long long *lanes, size_t n, long long s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lanes[i] == s)
			return i;
	return SIZE_MAX;
}

static const char *stage_colour(const char *stage)
{
	static const char *const colours[][2] = {
		{ "download", "#90a4ae" }, { "load", "#81c784" },    { "runtime_prepare", "#4db6ac" },
		{ "delegate_prepare", "#ffb74d" }, { "inference", "#b39ddb" }, { "cache", "#bcaaa4" },
		{ "exit", "#e0e0e0" },
	};
	size_t i;

	for (i = 0; stage && i < sizeof(colours) / sizeof(colours[0]); i++)
		if (strcmp(stage, colours[i][0]) == 0)
			return colours[i][1];
	return "#cfd8dc";
}

static const char *evidence_colour(const char *kind)
{
	if (!kind)
		return "#546e7a";
	if (strcmp(kind, "exit_record") == 0)
		return "#6a1b9a";
	if (strcmp(kind, "lmkd_kill") == 0 || strcmp(kind, "killinfo") == 0)
		return "#e65100";
	if (strcmp(kind, "tombstone") == 0)
		return "#b71c1c";
	if (strcmp(kind, "anr_trace") == 0)
		return "#f9a825";
	if (strcmp(kind, "peer_died") == 0)
		return "#00838f";
	return "#546e7a";
}

/* A time on the run's clock, for people. */
static void time_text(FILE *out, double ms)
{
	char buf[32];

	fmt_ms(buf, sizeof(buf), ms);
	html_esc(out, buf);
}

/* The ticks of one piece of the axis: the run's at a step of about 8
 * ticks, labelled in one unit; a piece of far evidence's one, at its
 * middle. */
static void axis_piece(FILE *out, const struct piece *p, int core, const struct svg_frame *f,
		       double y)
{
	double step = html_axis_step(p->t1 - p->t0, 8), t, div = 1;
	const char *unit = "ms";
	int decimals;

	if (step >= 60000) {
		div = 60000;
		unit = "min";
	} else if (step >= 1000) {
		div = 1000;
		unit = "s";
	}
	decimals = step / div >= 1 ? 0 : (int)ceil(-log10(step / div));
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		     "stroke=\"currentColor\" stroke-width=\"1\"/>\n",
		p->x0, y, p->x1, y);
	if (!core) {
		t = (p->t0 + p->t1) / 2;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"currentColor\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
			     "fill=\"currentColor\">",
			fx(f, t), y, fx(f, t), y + 4, fx(f, t), y + 16);
		time_text(out, t);
		fputs("</text>\n", out);
		return;
	}
	for (t = ceil(p->t0 / step) * step; t <= p->t1; t += step)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"currentColor\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
			     "fill=\"currentColor\">%.*f %s</text>\n",
			fx(f, t), y, fx(f, t), y + 4, fx(f, t), y + 16, decimals,
			fabs(t) < step / 2 ? 0.0 : t / div, unit);
}

/* The time axis under the lanes, with a break before and after a piece of
 * far evidence. */
static void axis(FILE *out, const struct svg_frame *f, double y)
{
	int i;

	fputs("<g class=\"axis\">\n", out);
	for (i = 0; i < f->n; i++) {
		axis_piece(out, &f->p[i], i == f->core, f, y);
		if (i + 1 < f->n)
			fprintf(out, "<path class=\"break\" d=\"M%.1f %.1f l4 -8 M%.1f %.1f l4 -8\" "
				     "stroke=\"currentColor\"/>\n",
				f->p[i].x1 + 3, y + 4, f->p[i].x1 + 7, y + 4);
	}
	fputs("</g>\n", out);
}

/* One kind's stacked area, k of kinds[], over the n points of pts. */
static void composition_area(FILE *out, const cJSON *tl, const cJSON *pts, int n, size_t k,
			     const struct svg_frame *f)
{
	size_t j;

	fprintf(out, "<path class=\"composition %s\" fill=\"%s\" fill-opacity=\"0.35\" "
		     "stroke=\"%s\" stroke-width=\"1\" d=\"",
		kinds[k].name, kinds[k].colour, kinds[k].colour);
	/* the top edge left to right, then the bottom edge back */
	for (int edge = 0; edge < 2; edge++) {
		for (int i = edge ? n - 1 : 0; edge ? i >= 0 : i < n; i += edge ? -1 : 1) {
			const cJSON *q = cJSON_GetArrayItem(pts, i), *nx = cJSON_GetArrayItem(pts, i + 1);
			double base = 0, t0 = num(q, "t_ms", 0);
			double t1 = nx ? num(nx, "t_ms", 0) : num(tl, "end_ms", t0);
			double y;

			for (j = 0; j < k; j++)
				base += kb_of(q, kinds[j].key);
			y = fy(f, base + (edge ? 0 : kb_of(q, kinds[k].key)));
			if (edge)
				fprintf(out, " L%.1f %.1f L%.1f %.1f", fx(f, t1), y, fx(f, t0), y);
			else
				fprintf(out, "%s%.1f %.1f L%.1f %.1f", i ? " L" : "M", fx(f, t0), y,
					fx(f, t1), y);
		}
	}
	fprintf(out, " Z\"><title>%s memory (stacked)</title></path>\n", kinds[k].name);
}

/* The composition (version 3 rings): one stacked area a kind, as steps
 * from each point to the next; or (legend) the legend of the kinds drawn,
 * over the budget line. Nothing for a ring without one. */
static void composition(FILE *out, const cJSON *tl, const struct svg_frame *f, int legend)
{
	const cJSON *pts = cJSON_GetObjectItem(tl, "composition"), *p;
	int n = cJSON_GetArraySize(pts);
	double lx = SVG_LEFT + 6, w;
	size_t k;

	if (!n)
		return;
	for (k = 0; k < KINDS; k++) {
		int any = 0;

		cJSON_ArrayForEach(p, pts)
			any = any || !cJSON_IsNull(cJSON_GetObjectItem(p, kinds[k].key));
		if (!any)
			continue;
		w = 26 + 7 * (double)strlen(kinds[k].name);
		if (!legend) {
			composition_area(out, tl, pts, n, k, f);
			continue;
		}
		/* on the page's background, so that the budget line under it does not cross the words */
		fprintf(out, "<g class=\"composition-legend\" font-size=\"10\" fill=\"currentColor\">"
			     "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" "
			     "style=\"fill:var(--bg,#fff)\" fill-opacity=\"0.85\"/>"
			     "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\" "
			     "fill-opacity=\"0.6\"/><text x=\"%.1f\" y=\"%.1f\">%s</text></g>\n",
			lx - 2, MEM_TOP + 2, w, lx, MEM_TOP + 4, kinds[k].colour, lx + 12, MEM_TOP + 12,
			kinds[k].name);
		lx += w;
	}
}

/* The RSS line, the budget line and the memory scale. */
static void memory(FILE *out, const cJSON *tl, const struct svg_frame *f)
{
	const cJSON *p, *points = cJSON_GetObjectItem(tl, "points");
	double budget = (double)json_get_int(tl, "budget_kb");
	char kb[24];
	int n = cJSON_GetArraySize(points), i;

	fmt_kb(kb, sizeof(kb), (uint64_t)(f->ymax / 1.08));
	fprintf(out, "<g class=\"memory-scale\" font-size=\"11\" fill=\"currentColor\">"
		     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
		     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>"
		     "<text x=\"4\" y=\"%.1f\">RSS</text></g>\n",
		SVG_LEFT - 4, fy(f, f->ymax / 1.08) + 4, kb, SVG_LEFT - 4, MEM_TOP + MEM_H,
		MEM_TOP + MEM_H / 2);
	for (i = 0; i < f->n; i++)
		fprintf(out, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%.1f\" fill=\"none\" stroke=\"currentColor\" "
			     "stroke-opacity=\"0.25\"/>\n",
			f->p[i].x0, MEM_TOP, f->p[i].x1 - f->p[i].x0, MEM_H);
	composition(out, tl, f, 0);
	if (budget > 0) {
		fmt_kb(kb, sizeof(kb), (uint64_t)budget);
		fprintf(out, "<g class=\"budget\"><title>budget %s</title><line x1=\"%.1f\" y1=\"%.1f\" "
			     "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d32f2f\" stroke-width=\"1.5\" "
			     "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			     "text-anchor=\"end\" fill=\"#d32f2f\">budget %s</text></g>\n",
			kb, SVG_LEFT, fy(f, budget), SVG_W - SVG_RIGHT, fy(f, budget), f->p[f->core].x1 - 2,
			fy(f, budget) - 3, kb);
	}
	composition(out, tl, f, 1);
	if (!n) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"currentColor\">"
			     "no RSS sample</text>\n",
			SVG_LEFT + 8, MEM_TOP + MEM_H / 2);
		return;
	}
	fprintf(out, "<polyline class=\"rss\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" "
		     "stroke-linejoin=\"round\" points=\"",
		RSS_COLOUR);
	cJSON_ArrayForEach(p, points) {
		double x = fx(f, cJSON_GetNumberValue(cJSON_GetArrayItem(p, 0)));
		double lo = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 1));
		double hi = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 2));

		if (lo != hi)
			fprintf(out, "%.1f,%.1f ", x, fy(f, lo));
		fprintf(out, "%.1f,%.1f%s", x, fy(f, hi), p->next ? " " : "");
	}
	/* one sample: a short mark, so that it shows */
	if (n == 1)
		fprintf(out, " %.1f,%.1f", fx(f, cJSON_GetNumberValue(cJSON_GetArrayItem(points->child, 0))) + 4,
			fy(f, cJSON_GetNumberValue(cJSON_GetArrayItem(points->child, 2))));
	fputs("\"><title>RSS", out);
	fprintf(out, " (%lld samples", json_get_int(tl, "samples"));
	fputs(n < json_get_int(tl, "samples") ? ", each point a bucket's min and max)" : ")", out);
	fputs("</title></polyline>\n", out);
}

/* A band waiting to be drawn: stage bands of one lane that fall in the
 * same pixels are drawn as one, with how many it stands for. */
struct band {
	const cJSON *first;
	double begin, end;
	int open, error, count;
};

static void band_draw(FILE *out, const struct band *b, const struct svg_frame *f, size_t lane,
		      long long session)
{
	const char *stage = json_get_string(b->first, "stage");
	const char *err = json_get_string(b->first, "error");
	double x0 = fx(f, b->begin), x1 = fx(f, b->end), y = LANE_TOP + (double)lane * LANE_H;

	if (!b->count)
		return;
	fprintf(out, "<rect class=\"stage%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		     "fill=\"%s\"%s><title>",
		b->open ? " open" : b->error ? " error" : "", x0, y + 2, x1 - x0 < 1 ? 1.0 : x1 - x0,
		LANE_H - 5, stage_colour(stage),
		b->open    ? " stroke=\"#c62828\" stroke-width=\"2\""
		: b->error ? " stroke=\"#c62828\" stroke-dasharray=\"3 2\""
			   : "");
	html_esc(out, stage);
	if (b->count > 1)
		fprintf(out, " x%d", b->count);
	fprintf(out, ", session %lld: ", session);
	time_text(out, b->begin);
	fputs(" to ", out);
	if (b->open) {
		time_text(out, b->end);
		fputs(", open when the run ended", out);
	} else {
		time_text(out, b->end);
		fputs(b->count > 1 ? ", the last " : ", ", out);
		html_esc(out, err && strcmp(err, "none") != 0 ? err : "ok");
	}
	fputs("</title></rect>\n", out);
}

/* The stage bands, one lane per session; an open stage lasts until the
 * death, or the last record. */
static void lanes(FILE *out, const cJSON *run, const cJSON *tl, const struct svg_frame *f,
		  const long long *lane, size_t nlanes)
{
	struct band pending[LANES_MAX];
	const cJSON *s, *death = cJSON_GetObjectItem(tl, "death");
	double until = cJSON_IsObject(death) ? num(death, "t_ms", 0) : num(tl, "end_ms", 0);
	const struct piece *core = &f->p[f->core];
	double px = (core->t1 - core->t0) / (core->x1 - core->x0);
	size_t i;

	memset(pending, 0, sizeof(pending));
	for (i = 0; i < nlanes; i++) {
		fprintf(out, "<text class=\"lane\" x=\"4\" y=\"%.1f\" font-size=\"11\" "
			     "fill=\"currentColor\">",
			LANE_TOP + (double)i * LANE_H + 13);
		if (nlanes == 1 && lane[0] == 0)
			fputs("stages", out);
		else
			fprintf(out, "session %lld", lane[i]);
		fputs("</text>\n", out);
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(run, "stages")) {
		size_t k = lane_index(lane, nlanes, json_get_int(s, "session"));
		const char *err = json_get_string(s, "error");
		int open = !cJSON_IsNumber(cJSON_GetObjectItem(s, "end_ms"));
		struct band b = { s, num(s, "begin_ms", 0), open ? until : num(s, "end_ms", 0), open,
				  err && strcmp(err, "none") != 0, 1 };
		struct band *p;

		if (k == SIZE_MAX)
			continue;
		p = &pending[k];
		/* the same stage, closed the same way, within a pixel of the last */
		if (p->count && !open && !p->open && !b.error && !p->error &&
		    strcmp(json_get_string(p->first, "stage"), json_get_string(s, "stage")) == 0 &&
		    b.begin - p->end < px) {
			p->end = b.end > p->end ? b.end : p->end;
			p->count++;
			continue;
		}
		band_draw(out, p, f, k, lane[k]);
		*p = b;
	}
	for (i = 0; i < nlanes; i++)
		band_draw(out, &pending[i], f, i, lane[i]);
}

static void marks(FILE *out, const cJSON *tl, const struct svg_frame *f, double y)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItem(tl, "marks")) {
		double x = fx(f, num(m, "t_ms", 0));
		long long count = json_get_int(m, "count");

		fputs("<g class=\"mark\"><title>mark ", out);
		html_esc(out, json_get_string(m, "mark"));
		fputs(" ", out);
		html_esc(out, json_get_string(m, "detail"));
		if (count > 1)
			fprintf(out, " (the last of %lld)", count);
		fputs(" at ", out);
		time_text(out, num(m, "t_ms", 0));
		fprintf(out, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			     "stroke=\"#757575\" stroke-width=\"1.5\"/></g>\n",
			x, y + 2, x, y + MARK_H - 2);
	}
}

/* The pressure records (version 3 rings) on the marks' lane: a diamond
 * each, red when it said the system was short of memory, with its words. */
static void pressure_marks(FILE *out, const cJSON *tl, const struct svg_frame *f, double y)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItem(tl, "pressure")) {
		double x = fx(f, num(m, "t_ms", 0)), cy = y + MARK_H / 2;

		fputs("<g class=\"pressure\"><title>pressure ", out);
		html_esc(out, json_get_string(m, "detail"));
		fputs(" at ", out);
		time_text(out, num(m, "t_ms", 0));
		fprintf(out, "</title><path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\" fill=\"%s\"/></g>\n",
			x, cy - 5, cJSON_IsTrue(cJSON_GetObjectItem(m, "short")) ? "#d32f2f" : "#9e9e9e");
	}
}

static void death_line(FILE *out, const cJSON *tl, const struct svg_frame *f, double bottom)
{
	const cJSON *d = cJSON_GetObjectItem(tl, "death");
	const char *src;
	double x;

	if (!cJSON_IsObject(d))
		return;
	x = fx(f, num(d, "t_ms", 0));
	src = json_get_string(d, "source");
	fputs("<g class=\"death\"><title>death: ", out);
	if (src && strcmp(src, "crash_record") == 0) {
		fputs("the crash record, ", out);
		html_esc(out, json_get_string(d, "detail"));
	} else {
		fputs("after the last record (", out);
		html_esc(out, json_get_string(d, "detail"));
		fputs("): the evidence says when", out);
	}
	fputs(", at ", out);
	time_text(out, num(d, "t_ms", 0));
	fputs(", ", out);
	html_esc(out, json_get_string(d, "stage"));
	fprintf(out, " open</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		     "stroke=\"#c62828\" stroke-width=\"2\"/>"
		     "<path d=\"M%.1f %.1f l8 8 m0 -8 l-8 8\" stroke=\"#c62828\" stroke-width=\"2\"/></g>\n",
		x, MEM_TOP, x, bottom, x - 4, MEM_TOP - 12);
}

static void evidence(FILE *out, const cJSON *tl, const struct svg_frame *f, double bottom,
		     const char *zone)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(tl, "evidence")) {
		const char *kind = json_get_string(e, "kind");
		char line[32] = "";
		double x;

		if (!cJSON_IsNumber(cJSON_GetObjectItem(e, "t_ms")))
			continue;
		x = fx(f, num(e, "t_ms", 0));
		if (json_get_int(e, "line"))
			snprintf(line, sizeof(line), " line %lld", json_get_int(e, "line"));
		fputs("<g class=\"evidence\" data-kind=\"", out);
		html_esc(out, kind);
		fputs("\"><title>", out);
		html_esc(out, kind);
		fputs(": ", out);
		html_esc_times(out, json_get_string(e, "what"), zone);
		fputs(" at ", out);
		time_text(out, num(e, "t_ms", 0));
		fputs(" (", out);
		html_esc_times(out, json_get_string(e, "time"), zone);
		fprintf(out, ", within %lld ms), ", json_get_int(e, "within_ms"));
		html_esc(out, json_get_string(e, "file"));
		fprintf(out, "%s</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			     "stroke-dasharray=\"2 3\"/><path d=\"M%.1f %.1f l5 9 l-10 0 z\" fill=\"%s\"/></g>\n",
			line, x, EV_Y + 9, x, bottom, evidence_colour(kind), x, EV_Y, evidence_colour(kind));
	}
}

/* An evidence marker's visible label: its kind, in words ("lmkd kill"). */
struct ev_label {
	const cJSON *e;
	double x, x0, x1; /* the marker's x; the label's extent */
	int row;          /* its row, from the top */
};

static void label_text(FILE *out, const char *kind)
{
	char word[64];
	size_t i;

	snprintf(word, sizeof(word), "%s", kind ? kind : "evidence");
	for (i = 0; word[i]; i++)
		word[i] = word[i] == '_' ? ' ' : word[i];
	html_esc(out, strcmp(word, "anr trace") == 0 ? "ANR trace" : word);
}

static int overlaps(double a0, double a1, double b0, double b1)
{
	return a0 < b1 + 4 && b0 < a1 + 4;
}

static int covers(const struct ev_label *l, double x)
{
	return x > l->x0 && x < l->x1 + 2;
}

/* Whether label i may go in row r: no label there overlaps it, and no
 * leader crosses a label (a leader runs down from its label, through the
 * rows under it). */
static int row_fits(const struct ev_label *v, size_t i, int r, int crossing_too)
{
	size_t k;

	for (k = 0; k < i; k++) {
		if (v[k].row == r && overlaps(v[k].x0, v[k].x1, v[i].x0, v[i].x1))
			return 0;
		if (crossing_too && ((v[k].row < r && covers(&v[i], v[k].x)) ||
				     (v[k].row > r && covers(&v[k], v[i].x))))
			return 0;
	}
	return 1;
}

/* The labels of the evidence markers, left to right, each in the first
 * row from the top where it overlaps no other and no leader crosses it
 * (if there is no such row, where it overlaps no other). Each begins at
 * its leader, so that leaders run down to the right of the labels over
 * them: only markers within 2 px of each other may need a crossing.
 * Returns how many (the first LABELS_MAX placed), and the rows in *rows. */
static size_t labels_of(const cJSON *tl, const struct svg_frame *f, struct ev_label *v, int *rows)
{
	const cJSON *e;
	size_t n = 0, i;

	*rows = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(tl, "evidence")) {
		const char *kind = json_get_string(e, "kind");
		double w = LABEL_CHAR * (double)(kind ? strlen(kind) : 8) + 4;
		struct ev_label l = { e, 0, 0, 0, 0 };

		if (!cJSON_IsNumber(cJSON_GetObjectItem(e, "t_ms")) || n == LABELS_MAX)
			continue;
		l.x = fx(f, num(e, "t_ms", 0));
		l.x0 = l.x - 2;
		l.x1 = l.x0 + w;
		for (i = n; i > 0 && v[i - 1].x > l.x; i--)
			v[i] = v[i - 1];
		v[i] = l;
		n++;
	}
	for (i = 0; i < n; i++) {
		for (v[i].row = 0; v[i].row <= (int)n && !row_fits(v, i, v[i].row, 1); v[i].row++)
			;
		if (v[i].row > (int)n)
			for (v[i].row = 0; !row_fits(v, i, v[i].row, 0); v[i].row++)
				;
		*rows = v[i].row + 1 > *rows ? v[i].row + 1 : *rows;
	}
	return n;
}

/* The leaders down to the markers, which are top lower, then the labels
 * over them. */
static void labels(FILE *out, const struct ev_label *v, size_t n, double top)
{
	size_t i;

	fputs("<g class=\"evidence-labels\" font-size=\"11\" fill=\"currentColor\">\n", out);
	for (i = 0; i < n; i++)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			     "stroke-width=\"1\"/>\n",
			v[i].x, (v[i].row + 1) * LABEL_H - 1, v[i].x, top + EV_Y,
			evidence_colour(json_get_string(v[i].e, "kind")));
	for (i = 0; i < n; i++) {
		const char *kind = json_get_string(v[i].e, "kind");

		fputs("<text class=\"ev-label\" data-kind=\"", out);
		html_esc(out, kind);
		fprintf(out, "\" x=\"%.1f\" y=\"%.1f\">", v[i].x0 + 2, (v[i].row + 1) * LABEL_H - 3);
		label_text(out, kind);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

/* What the markers are, for those the timeline has: the death, then each
 * kind of evidence once, in the order first placed, then the pressure
 * records' diamonds (red: the system said it was short). */
static void legend(FILE *out, const cJSON *tl, double y)
{
	const cJSON *e, *d;
	double x = SVG_LEFT;
	int pressure = 0, short_of_memory = 0;

	fputs("<g class=\"legend\" font-size=\"11\" fill=\"currentColor\">", out);
	if (cJSON_IsObject(cJSON_GetObjectItem(tl, "death"))) {
		fprintf(out, "<path d=\"M%.1f %.1f l8 8 m0 -8 l-8 8\" stroke=\"#c62828\" "
			     "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">death</text>",
			x, y - 8, x + 12, y);
		x += 60;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(tl, "evidence")) {
		const char *kind = json_get_string(e, "kind");
		int seen = 0;

		if (!cJSON_IsNumber(cJSON_GetObjectItem(e, "t_ms")) || !kind)
			continue;
		for (d = cJSON_GetObjectItem(tl, "evidence")->child; d != e && !seen; d = d->next)
			seen = cJSON_IsNumber(cJSON_GetObjectItem(d, "t_ms")) &&
			       json_get_string(d, "kind") && strcmp(json_get_string(d, "kind"), kind) == 0;
		if (seen || x + 20 + 6.5 * (double)strlen(kind) > PLOT_X1)
			continue;
		fprintf(out, "<path d=\"M%.1f %.1f l5 9 l-10 0 z\" fill=\"%s\"/><text x=\"%.1f\" "
			     "y=\"%.1f\">",
			x + 5, y - 9, evidence_colour(kind), x + 14, y);
		label_text(out, kind);
		fputs("</text>", out);
		x += 24 + 6.5 * (double)strlen(kind);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(tl, "pressure")) {
		pressure = 1;
		short_of_memory |= cJSON_IsTrue(cJSON_GetObjectItem(e, "short"));
	}
	if (pressure && x + 80 <= PLOT_X1) {
		fprintf(out, "<path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\" fill=\"%s\"/><text x=\"%.1f\" "
			     "y=\"%.1f\">%s</text>",
			x + 5, y - 10, short_of_memory ? "#d32f2f" : "#9e9e9e", x + 14, y,
			short_of_memory ? "pressure (short)" : "pressure");
		x += short_of_memory ? 120 : 70;
	}
	fputs("</g>\n", out);
}

void report_svg_timeline(FILE *out, const cJSON *run, const char *zone)
{
	const cJSON *tl = cJSON_GetObjectItem(run, "timeline");
	long long lane[LANES_MAX];
	struct ev_label label[LABELS_MAX];
	size_t nlanes, nlabels;
	struct svg_frame f;
	double marks_y, axis_y, height, top, width = SVG_W;
	int rows;

	if (!cJSON_IsObject(tl))
		return;
	frame_of(run, tl, &f);
	nlanes = lanes_of(run, lane);
	marks_y = LANE_TOP + (double)nlanes * LANE_H;
	axis_y = marks_y + MARK_H + 2;
	nlabels = labels_of(tl, &f, label, &rows);
	for (size_t i = 0; i < nlabels; i++)
		width = label[i].x1 + 2 > width ? label[i].x1 + 2 : width; /* a label past the right edge */
	top = rows ? rows * LABEL_H + 2 : 0;
	height = top + axis_y + AXIS_H + LEGEND_H;
	fprintf(out, "<svg class=\"timeline\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
		     "aria-label=\"memory, stages, marks, death and evidence on the run's clock\" "
		     "style=\"max-width:%.0fpx;display:block\">\n",
		width, height, width);
	if (nlabels)
		labels(out, label, nlabels, top);
	fprintf(out, "<g transform=\"translate(0 %.1f)\">\n", top);
	memory(out, tl, &f);
	lanes(out, run, tl, &f, lane, nlanes);
	fprintf(out, "<text x=\"4\" y=\"%.1f\" font-size=\"11\" fill=\"currentColor\">marks</text>\n",
		marks_y + 11);
	marks(out, tl, &f, marks_y);
	pressure_marks(out, tl, &f, marks_y);
	axis(out, &f, axis_y);
	evidence(out, tl, &f, axis_y, zone);
	death_line(out, tl, &f, axis_y);
	legend(out, tl, axis_y + AXIS_H + 10);
	fputs("</g>\n</svg>\n", out);
}
