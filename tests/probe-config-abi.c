/*
 * A program built against the probe.h of LASTWORDS_0.1, whose struct
 * lw_config ended at sampler_period_ms, calls lw_open@LASTWORDS_0.1 with a
 * struct that short. The library must not read past it: the bytes after
 * it here are 0xff, which as thresholds would give no advice at all. With
 * one death in load before, the run must get the default skip_prewarm.
 * Linked with the shared library, where the symbol versions are. Skips
 * (77) where the loader ignores symbol versions (musl's): there both names
 * are the one lw_open, and a program must be built against its probe.h.
 */
#include <stddef.h>

#include "advice-runs.h"

/* lw_open as a LASTWORDS_0.1 program binds it. */
int lw_open_0_1(const void *cfg, struct lw **out);
__asm__(".symver lw_open_0_1, lw_open@LASTWORDS_0.1");

int main(void)
{
	const char *dir = strdup(t_tmpdir("config-abi"));
	struct lw_config cfg = { .dir = dir, .process_name = "com.abi:inference",
				 .slot_count = 32 };
	struct dying d = { cfg, "m", LW_STAGE_LOAD, DIE_KILL, NULL, NULL };
	unsigned char old[sizeof(struct lw_config) + 16];
	struct lw_advice a;
	struct lw *lw;

	if ((void (*)(void))lw_open_0_1 == (void (*)(void))lw_open) {
		printf("SKIP: the loader binds lw_open@LASTWORDS_0.1 to lw_open: it ignores "
		       "symbol versions\n");
		t_rmdir(dir);
		return 77;
	}
	dying_run_of(&d);
	memset(old, 0xff, sizeof(old));
	memcpy(old, &cfg, offsetof(struct lw_config, skip_prewarm_after));
	T_ASSERT(lw_open_0_1(old, &lw) == 0, "lw_open@LASTWORDS_0.1");
	T_ASSERT(lw_advice(lw, &a) == 0, "lw_advice");
	T_ASSERT(a.kind == LW_ADVICE_SKIP_PREWARM && a.count == 1,
		 "lw_open@LASTWORDS_0.1 read past its struct: advice %s count %u, expected "
		 "skip_prewarm 1", lw_advice_name(a.kind), a.count);
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	T_ASSERT(lw_open_0_1(NULL, &lw) == -EINVAL, "lw_open@LASTWORDS_0.1(NULL)");
	t_rmdir(dir);
	printf("lw_open@LASTWORDS_0.1 reads the 0.1 struct and takes the default thresholds\n");
	return T_PASS;
}
