/*
 * gate-matrix DIR: the release gate's device matrix, from the real probe
 * in forked children, as bundles under DIR/matrix (the matrix where
 * `lastwords gate --candidate model-v3` says re-enable) and DIR/extra (the
 * runs the mutations of tests/gate.py add). Each bundle is one device
 * running one scenario: a manifest.json with the device's model and the
 * scenario, and the rings of that run. On each of two devices, in one
 * probe directory per device, in this order:
 *   history      model-v2 runs an inference and closes (no scenario): the
 *                stable candidate;
 *   death-1, -2  model-v3 is SIGKILLed in delegate_prepare (first_load):
 *                the next run's probe advises quarantine;
 *   advised      that next run (no scenario): it serves model-v2;
 *   cold_start   the main process starts and closes, and the :inference
 *                process serves model-v2 with a receipt of its files;
 *   repeated_entry, concurrent, background, memory_pressure,
 *   candidate_fallback, cache_rebuild   model-v2, clean (cache_rebuild's
 *                manifest names no scenario: its scenario mark does), so
 *                that every scenario of the vocabulary ran on each device;
 *   reverify     first_load again with model-v3, which now completes
 *                delegate_prepare and an inference and closes.
 * Every run is of app version 7 (the release). Then the extras: on Pixel 8
 * a repeated_entry run that loads model-v3 (suspect-loaded) and a
 * background run that leaves a session open (unpaired); on SM-S918B a
 * first_load run of model-v3 SIGKILLed again (reverify-died), and two runs
 * of the older app version 6: a cold start (cold_start-v6, as a stale pull
 * or old rings on the device) and a clean first_load of model-v3
 * (reverify-v6).
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <lastwords/probe.h>

#include "helpers.h"

#define PKG "com.example.gate"
#define INFERENCE PKG ":inference"
#define RELEASE 7
#define OLDER 6

static const char *out_dir;

#define NAME(up, name, val) [val] = #name,
static const char *const scenario_names[] = { LW_SCENARIOS(NAME) };

enum script {
	STABLE,          /* model-v2: load, delegate_prepare, inference(s), close */
	STABLE_CACHE,    /* the same, with a cache rebuilt in the cache stage */
	STABLE_UNPAIRED, /* the same in session 1, which is never closed */
	SUSPECT_DIES,    /* model-v3, SIGKILLed in delegate_prepare */
	SUSPECT_CLEAN,   /* model-v3, to the end */
	MAIN_PROCESS,    /* the app's main process starts and closes */
};

static void stages(struct lw *lw, uint32_t session, int inferences)
{
	int i;

	lw_session_stage_begin(lw, session, LW_STAGE_LOAD);
	t_grow(4u << 20);
	lw_session_stage_end(lw, session, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_session_stage_begin(lw, session, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU);
	lw_session_stage_end(lw, session, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	for (i = 0; i < inferences; i++) {
		lw_session_stage_begin(lw, session, LW_STAGE_INFERENCE);
		sleep_ms(1);
		lw_session_stage_end(lw, session, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
}

static void child(const char *dir, enum script s, int scenario, uint64_t app_version)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = s == MAIN_PROCESS ? PKG : INFERENCE,
		.slot_count = 256,
		.runs_kept = 16,
		.app_version = app_version,
		.memory_budget_kb = 256 * 1024,
	};
	struct lw *lw;

	if (lw_open(&cfg, &lw) != 0)
		_exit(3);
	if (scenario)
		lw_mark(lw, LW_MARK_SCENARIO, (uint64_t)scenario);
	switch (s) {
	case MAIN_PROCESS:
		break;
	case STABLE:
	case STABLE_CACHE:
		lw_receipt(lw, "model-v2", 0x2f11e5);
		lw_candidate(lw, "model-v2");
		stages(lw, 0, s == STABLE ? 3 : 1);
		if (s == STABLE_CACHE) {
			lw_stage_begin(lw, LW_STAGE_CACHE);
			lw_cache(lw, LW_CACHE_REBUILD, "model-v2/gpu-graph");
			lw_stage_end(lw, LW_STAGE_CACHE, LW_ERR_NONE);
		}
		break;
	case STABLE_UNPAIRED:
		lw_session_open(lw, 1, "model-v2");
		stages(lw, 1, 1);
		break; /* session 1 is left open */
	case SUSPECT_DIES:
		lw_candidate(lw, "model-v3");
		lw_stage_begin(lw, LW_STAGE_LOAD);
		lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
		lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
		t_grow(8u << 20);
		kill(getpid(), SIGKILL);
		break;
	case SUSPECT_CLEAN:
		lw_candidate(lw, "model-v3");
		stages(lw, 0, 1);
		break;
	}
	lw_close(lw);
	_exit(0);
}

/* Run script s in a child with the probe in dir (the device's), and copy
 * its ring into the bundle out_dir/group/name, which gets its manifest. */
static void run_version(const char *dir, const char *device, const char *group, const char *name,
			enum script s, int scenario, int with_main, uint64_t app_version)
{
	char bundle[1024], cmd[3072], path[1200];
	int status, k;
	pid_t pid;
	FILE *f;

	snprintf(bundle, sizeof(bundle), "%s/%s/%s-%s", out_dir, group, device, name);
	for (k = 0; bundle[k]; k++)
		if (bundle[k] == ' ')
			bundle[k] = '_';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", bundle);
	T_ASSERT(system(cmd) == 0, "%s", cmd);
	for (k = with_main ? 0 : 1; k < 2; k++) {
		enum script what = k == 0 ? MAIN_PROCESS : s;

		pid = fork();
		T_ASSERT(pid >= 0, "fork");
		if (pid == 0)
			child(dir, what, scenario, app_version);
		T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
		T_ASSERT(what == SUSPECT_DIES ? WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL
					      : WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "%s %s: the child's status %d", device, name, status);
		snprintf(cmd, sizeof(cmd), "cp '%s'/*.%d.lwr '%s'/", dir, (int)pid, bundle);
		T_ASSERT(system(cmd) == 0, "%s", cmd);
		sleep_ms(3);
	}
	snprintf(path, sizeof(path), "%s/manifest.json", bundle);
	f = fopen(path, "w");
	T_ASSERT(f, "%s", path);
	fprintf(f, "{\"kind\": \"lastwords-pull\", \"version\": 1, \"package\": \"%s\", "
		   "\"device\": {\"model\": \"%s\"}, ",
		PKG, device);
	/* cache_rebuild's manifest names none: its rings' scenario mark says it. */
	if (scenario && s != STABLE_CACHE)
		fprintf(f, "\"scenario\": \"%s\", ", scenario_names[scenario]);
	fprintf(f, "\"complete\": true}\n");
	T_ASSERT(fclose(f) == 0, "%s", path);
}

/* A run of the release. */
static void run(const char *dir, const char *device, const char *group, const char *name,
		enum script s, int scenario, int with_main)
{
	run_version(dir, device, group, name, s, scenario, with_main, RELEASE);
}

int main(int argc, char **argv)
{
	static const char *const devices[] = { "Pixel 8", "SM-S918B" };
	char *dirs[2];
	int d;

	T_ASSERT(argc == 2, "usage: gate-matrix DIR");
	out_dir = argv[1];
	for (d = 0; d < 2; d++) {
		const char *dev = devices[d];

		dirs[d] = strdup(t_tmpdir("gate-device"));
		run(dirs[d], dev, "matrix", "history", STABLE, 0, 0);
		run(dirs[d], dev, "matrix", "death-1", SUSPECT_DIES, LW_SCENARIO_FIRST_LOAD, 0);
		run(dirs[d], dev, "matrix", "death-2", SUSPECT_DIES, LW_SCENARIO_FIRST_LOAD, 0);
		run(dirs[d], dev, "matrix", "advised", STABLE, 0, 0);
		run(dirs[d], dev, "matrix", "cold_start", STABLE, LW_SCENARIO_COLD_START, 1);
		run(dirs[d], dev, "matrix", "repeated_entry", STABLE, LW_SCENARIO_REPEATED_ENTRY, 0);
		run(dirs[d], dev, "matrix", "concurrent", STABLE, LW_SCENARIO_CONCURRENT, 0);
		run(dirs[d], dev, "matrix", "background", STABLE, LW_SCENARIO_BACKGROUND, 0);
		run(dirs[d], dev, "matrix", "memory_pressure", STABLE, LW_SCENARIO_MEMORY_PRESSURE, 0);
		run(dirs[d], dev, "matrix", "candidate_fallback", STABLE, LW_SCENARIO_CANDIDATE_FALLBACK, 0);
		run(dirs[d], dev, "matrix", "cache_rebuild", STABLE_CACHE, LW_SCENARIO_CACHE_REBUILD, 0);
		run(dirs[d], dev, "matrix", "reverify", SUSPECT_CLEAN, LW_SCENARIO_FIRST_LOAD, 0);
	}
	run(dirs[0], devices[0], "extra", "suspect-loaded", SUSPECT_CLEAN, LW_SCENARIO_REPEATED_ENTRY, 0);
	run(dirs[0], devices[0], "extra", "unpaired", STABLE_UNPAIRED, LW_SCENARIO_BACKGROUND, 0);
	run(dirs[1], devices[1], "extra", "reverify-died", SUSPECT_DIES, LW_SCENARIO_FIRST_LOAD, 0);
	run_version(dirs[1], devices[1], "extra", "cold_start-v6", STABLE, LW_SCENARIO_COLD_START, 1, OLDER);
	run_version(dirs[1], devices[1], "extra", "reverify-v6", SUSPECT_CLEAN, LW_SCENARIO_FIRST_LOAD, 0,
		    OLDER);
	for (d = 0; d < 2; d++) {
		t_rmdir(dirs[d]);
		free(dirs[d]);
	}
	return T_PASS;
}
