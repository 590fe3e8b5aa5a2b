/*
 * The release gate (`lastwords gate`): whether a quarantined candidate may
 * come back, decided over a device matrix, the second seed's last step.
 * Each input is one bundle: one device running one scenario (the
 * manifest's "scenario", `pull --scenario`, else the rings' scenario
 * mark).
 *
 * The release is one app version: gate_options.app_version
 * (--app-version), else the newest app version a run of the inputs
 * records (the ring header's app_version). A device farm's pulls of the
 * build under test are the release's runs; a pull of an older build given
 * by mistake, or old rings still on a device, are not: they prove nothing
 * about this build. So the items that need clean runs (app_starts,
 * stable_revertible, reverified, covered) count only the release's runs,
 * and the decision says how many runs of which other versions it set
 * aside. What speaks against a re-enable counts from every run: a load of
 * the suspect after the quarantine (suspect_isolated), a stage left open
 * (released), and each death of the suspect, of any version or from the
 * history, which needs its re-verification by the release. When no run
 * records an app version the gate cannot tell builds apart, and every run
 * is the release's (the scope says so). Inputs with no run of the release
 * are `not yet`, saying so.
 *
 * The decision is the matrix (device model x scenario: passed, died or not
 * run, by the release's runs) and a checklist of six items, each with the
 * runs that prove it or what is missing:
 *   1. app_starts: every device has a cold_start run whose main process
 *      ended clean;
 *   2. stable_revertible: the stable candidate has a receipt (when the
 *      release's runs record receipts) and, on each device model, a clean
 *      run that completed an inference with it and no death with it;
 *   3. suspect_isolated: after the quarantine advice, no run loaded the
 *      suspect, except the re-verification runs (those of the device and
 *      scenario of one of its deaths);
 *   4. released: no clean run left a stage or a session unended (rule
 *      unpaired-stage);
 *   5. reverified: each death of the suspect, in the inputs or in the
 *      history (gate_options.deaths), has, later, on the same device model
 *      and in the same scenario, a clean run that loaded it and completed
 *      the stage it died in;
 *   6. covered: every required scenario (gate_options.require, else every
 *      scenario of the vocabulary) has a run, clean or not, on every device;
 *      each pair never run is named, by device.
 * The devices are those of every input, of any version: a device the
 * release never ran on is one it is untested on, and fails app_starts and
 * covered.
 * The verdict is "re-enable" only when all six hold, else "not yet"; its
 * scope (the decision's "scope") states the release, the devices and the
 * scenarios in one sentence: "re-enable for these 2 devices (Pixel 8,
 * SM-S918B) and 8 scenarios of app version 7; other devices untested", or
 * "not yet ...: " and what is missing. It never switches or deletes
 * anything: it is a report. Never prints.
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
	uint64_t app_version;        /* --app-version: the release; 0: the newest of the runs */
	const int *require;          /* --require: enum lw_scenario values, each once; borrowed */
	size_t nrequire;             /* 0: every scenario of the vocabulary */
};

/* The decision as JSON (schemas/gate.schema.json), to free with
 * cJSON_Delete(); NULL on ENOMEM. */
cJSON *gate_decide(const struct gate_input *in, size_t n, const struct gate_options *o);

/* Whether a decision says re-enable. */
int gate_reenable(const cJSON *decision);

#endif
