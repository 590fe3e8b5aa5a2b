/*
 * A run's timeline (DESIGN.md, "Reports"): what a picture of the run
 * needs, on one clock, in ms from the run's start (its ring's
 * CLOCK_MONOTONIC): its RSS samples, downsampled to at most
 * TIMELINE_POINTS points that keep each bucket's min and max, so that the
 * peaks survive; its budget; its marks, at most one of each kind per
 * bucket of the run's time, with how many it stands for; its death (the
 * crash record, or else the last record of a run that died); and the
 * evidence that correlate.c joined to it, each with its source, placed on
 * the run's clock by the ring's clock triples. Its stage intervals are the
 * report's stages, which carry their session: one lane per session.
 * Bounded whatever the ring holds: a run of a million records gives a
 * timeline of a few thousand values. Never prints.
 */
#ifndef LW_ANALYZER_TIMELINE_H
#define LW_ANALYZER_TIMELINE_H

#include <cjson/cJSON.h>

#include "correlate.h"
#include "evidence/json.h"

#define TIMELINE_POINTS 512        /* memory points; buckets of the marks */
#define TIMELINE_EVIDENCE_KIND_MAX 32 /* evidence of one kind placed; the rest counted */

/* Run cr's timeline as member key of parent (schemas/report.schema.json,
 * "timeline"), null for a ring-less run, which has no clock of its own; f
 * is the run's facts (run_facts_get()), c its correlation (the clock
 * tolerance). On ENOMEM j keeps the failure (json.h). Context: allocates
 * (a table of the run's clock triples, freed before it returns); no
 * blocking. */
void timeline_json(struct json *j, cJSON *parent, const char *key, const struct corr_run *cr,
		   const struct run_facts *f, const struct correlation *c);

#endif
