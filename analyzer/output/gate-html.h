/*
 * The gate's page (gate-html.c): the gate's JSON as one self-contained
 * HTML page.
 */
#ifndef LW_ANALYZER_GATE_HTML_H
#define LW_ANALYZER_GATE_HTML_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* The gate's JSON g (gate_decide(), schemas/gate.schema.json) as one HTML
 * page: its verdict, device matrix and checklist. */
void gate_html(const cJSON *g, FILE *out);

#endif
