/*
 * The seed's report (seeds/lifecycle_probe.py), byte for byte: the same
 * checks, the same refusals, the same JSON. `lastwords report --format seed`
 * runs it. Never prints: it writes to the streams it is given.
 */
#ifndef LW_ANALYZER_SEED_REPORT_H
#define LW_ANALYZER_SEED_REPORT_H

#include <stdio.h>

/* Read the events JSON at path and write the report to out, as the script
 * prints it, or the script's refusal to err. Returns the script's exit
 * status: 0, or 1 for a refusal. */
int seed_report(const char *path, FILE *out, FILE *err);

#endif
