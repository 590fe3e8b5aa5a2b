/*
 * The advice thresholds of struct lw_config: skip_prewarm_after and
 * quarantine_after. Deaths in load with one candidate pile up in one
 * directory (forked children, advice-runs.h); after each one, the parent
 * opens runs with several thresholds and checks the kind at each boundary.
 * A zeroed struct takes the defaults (1 and 2); below the first threshold
 * the advice is none but keeps its count.
 */
#include "advice-runs.h"

#define PROCESS "com.thr:inference"

static const char *g_dir;

static struct lw_config config(uint32_t skip_after, uint32_t quarantine_after)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 32,
		.runs_kept = 64, /* no rotation: every run stays visible */
		.app_version = 1,
		.skip_prewarm_after = skip_after,
		.quarantine_after = quarantine_after,
	};

	return cfg;
}

/* Open a run with these thresholds, check its advice, and remove its file
 * (a clean run would end the loop). */
static void expect(uint32_t deaths, uint32_t skip_after, uint32_t quarantine_after,
		   enum lw_advice_kind want)
{
	struct lw_config cfg = config(skip_after, quarantine_after);
	struct lw_advice a;
	struct lw_info info;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open");
	T_ASSERT(lw_advice(lw, &a) == 0 && lw_info(lw, &info) == 0, "lw_advice");
	T_ASSERT(a.kind == want && a.count == deaths,
		 "%u deaths, thresholds %u/%u: advice %s count %u, expected %s count %u", deaths,
		 skip_after, quarantine_after, lw_advice_name(a.kind), a.count,
		 lw_advice_name(want), deaths);
	T_ASSERT(deaths == 0 || (a.stage == LW_STAGE_LOAD && a.candidate == lw_digest("m")),
		 "%u deaths: stage %s", deaths, lw_stage_name(a.stage));
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	T_ASSERT(unlink(info.path) == 0, "unlink %s", info.path);
}

int main(void)
{
	static const enum lw_advice_kind N = LW_ADVICE_NONE, S = LW_ADVICE_SKIP_PREWARM,
					 Q = LW_ADVICE_QUARANTINE;
	/* want[deaths][config]: configs 0/0 (the defaults), 1/2 (the same,
	 * spelled out), 2/4, 3/3, 1/1, and 3/2 (quarantine comes first). */
	static const uint32_t cfgs[][2] = { { 0, 0 }, { 1, 2 }, { 2, 4 }, { 3, 3 }, { 1, 1 },
					    { 3, 2 } };
	static const enum lw_advice_kind want[][6] = {
		{ N, N, N, N, N, N },
		{ S, S, N, N, Q, N },
		{ Q, Q, S, N, Q, Q },
		{ Q, Q, S, Q, Q, Q },
		{ Q, Q, Q, Q, Q, Q },
	};
	uint32_t deaths;
	size_t c;

	g_dir = strdup(t_tmpdir("advice-thresholds"));
	for (deaths = 0; deaths < sizeof(want) / sizeof(want[0]); deaths++) {
		struct dying d = { config(0, 0), "m", LW_STAGE_LOAD, DIE_KILL, NULL, NULL };

		if (deaths > 0)
			dying_run_of(&d);
		for (c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++)
			expect(deaths, cfgs[c][0], cfgs[c][1], want[deaths][c]);
	}
	t_rmdir(g_dir);
	printf("advice thresholds: defaults 1/2, and 2/4, 3/3, 1/1, 3/2 at 0 to 4 deaths\n");
	return T_PASS;
}
