/*
 * The release gate (`lastwords gate`): whether a quarantined candidate may
 * come back, decided over a device matrix, the second seed's last step.
 * Each input is one bundle: one device running one scenario (the
 * manifest's "scenario", `pull --scenario`, else the rings' scenario
 * mark). The decision is the matrix (device model x scenario: passed,
 * died or not run) and a checklist of five items, each with the runs that
 * prove it or what is missing:
 *   1. app_starts: every device has a cold_start run whose main process
 *      ended clean;
 *   2. stable_revertible: the stable candidate has a receipt (when the
 *      inputs record receipts) and, on each device model, a clean run that
 *      completed an inference with it and no death with it;
 *   3. suspect_isolated: after the quarantine advice, no run loaded the
 *      suspect, except the re-verification runs (those of the device and
 *      scenario of one of its deaths);
 *   4. released: no clean run left a stage or a session unended (rule
 *      unpaired-stage);
 *   5. reverified: each death of the suspect, in the inputs or in the
 *      history (gate_options.deaths), has, later, on the same device model
 *      and in the same scenario, a clean run that loaded it and completed
 *      the stage it died in.
 * The verdict is "re-enable" only when all five hold, else "not yet". It
 * never switches or deletes anything: it is a report. Never prints.
 */
#ifndef LW_ANALYZER_GATE_H
#define LW_ANALYZER_GATE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "bundle.h"
#include "report.h"

/* One input: a bundle and its report. */
struct gate_input {
	const char *path;
	const struct bundle *bundle;
	const struct report *report;
};

/* An earlier death of the suspect that no input holds: from the history
 * (gate --history DB), with its bundle's device and scenario. */
struct gate_death {
	const char *device;          /* the bundle's model, or "unknown device" */
	int scenario;                /* enum lw_scenario; 0: none */
	enum lw_stage stage;         /* open at death */
	uint64_t start_ns;           /* the run's start (or death), UTC */
	const char *what;            /* "com.x:inference pid 42, native_crash, confirmed (bundle)" */
};

struct gate_options {
	uint64_t candidate;          /* the suspect's digest */
	const char *candidate_name;  /* as given, when a name; NULL for a digest */
	uint64_t stable;             /* --stable; 0: the quarantine advice's, or the rings' */
	const struct gate_death *deaths; /* from the history; borrowed */
	size_t ndeaths;
};

/* The decision as JSON (schemas/gate.schema.json), to free with
 * cJSON_Delete(); NULL on ENOMEM. */
cJSON *gate_decide(const struct gate_input *in, size_t n, const struct gate_options *o);

/* Whether a decision says re-enable. */
int gate_reenable(const cJSON *decision);

#endif
