/*
 * What the HTML pages share (the report's, report-html.c and
 * report-svg.c): text escaped for HTML, and the parts of an inline SVG
 * chart. A page holds no script and loads nothing: every text that came
 * from an input goes through html_esc(). Only writes to the stream it is
 * given.
 */
#ifndef LW_ANALYZER_HTML_H
#define LW_ANALYZER_HTML_H

#include <stdio.h>

/* s with &, <, >, " and ' escaped, and what fmt_text() escapes for a
 * terminal (control characters, a NUL) shown as it shows them; NULL
 * writes nothing. Safe in text and in a quoted attribute. */
void html_esc(FILE *out, const char *s);

/* The step of an axis over span (> 0) that gives about ticks ticks: 1, 2
 * or 5 times a power of ten. */
double html_axis_step(double span, int ticks);

#endif
