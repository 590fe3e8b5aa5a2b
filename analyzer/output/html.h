/*
 * What the HTML pages share (the report's, report-html.c and
 * report-svg.c; the gate's, gate-html.c; the history's, history-html.c):
 * text escaped for HTML, times labelled with their zone, the one table of
 * the classes' and levels' colours, the report page's style, and the
 * parts of an inline SVG chart. A page holds no script and loads nothing:
 * every text that came from an input goes through html_esc() or
 * html_esc_times(). Only writes to the stream it is given.
 */
#ifndef LW_ANALYZER_HTML_H
#define LW_ANALYZER_HTML_H

#include <stdio.h>

/* s with &, <, >, " and ' escaped, and what fmt_text() escapes for a
 * terminal (control characters, a NUL) shown as it shows them; NULL
 * writes nothing. Safe in text and in a quoted attribute. */
void html_esc(FILE *out, const char *s);

/* s as html_esc() writes it, with each time in it labelled with its zone:
 * a UTC time of the JSON ("2026-11-30T00:28:04.509000Z") written
 * "2026-11-30 00:28:04.509 UTC", and a device's local time
 * ("2026-11-30 01:28:04.735") followed by zone (its name or "UTC+01:00")
 * unless a zone follows it already. zone NULL labels only the UTC times. */
void html_esc_times(FILE *out, const char *s, const char *zone);

/* The colour ("#rrggbb") of an exit class (enum lw_exit_class) and of an
 * evidence level (enum lw_evidence_level), from one table; out of range
 * gives unknown's and unconfirmed's. A trend chart draws a level as its
 * class's colour at html_level_opacity(). */
const char *html_class_colour(int cls);
const char *html_level_colour(int level);
double html_level_opacity(int level);

/* The colours as CSS custom properties, for a page's <style>:
 * --class-NAME, --level-NAME and --clean (a run with no verdict). */
void html_colour_css(FILE *out);

/* The report page's CSS (report-html.c), for the pages written like it
 * (the gate's), after html_colour_css(). */
const char *html_style(void);

/* The step of an axis over span (> 0) that gives about ticks ticks: 1, 2
 * or 5 times a power of ten. */
double html_axis_step(double span, int ticks);

/* The start of every page's style sheet: the colours, light and dark, and
 * the body's font and width; each page adds its own rules after it. */
#define HTML_STYLE_PAGE                                                                       \
	":root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--mute:#6e6e73;--line:#d2d2d7}" \
	"@media(prefers-color-scheme:dark){:root{--fg:#f5f5f7;--bg:#1c1c1e;--mute:#a1a1a6;" \
	"--line:#3a3a3c}}" \
	"body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);" \
	"max-width:980px;margin:2em auto;padding:0 1em}"

#endif
