/*
 * A changed condition starts a new count, as a changed candidate does: the
 * delegate (the delegate mark), the runtime version (the runtime_version
 * mark) and the app version. Forked children die in load with one
 * candidate under the marks given (advice-runs.h); the parent opens a run,
 * reads the advice, and removes its file. A run without the marks (0:
 * unknown) matches any. In the parent's run, marking another delegate or
 * runtime version than the deaths' reads none, and the same one keeps it.
 */
#include <inttypes.h>

#include "advice-runs.h"

#define PROCESS "com.cond:inference"
#define V 3u

static const char *g_dir;

struct marks {
	uint64_t delegate, runtime; /* 0: not marked */
};

static struct lw_config config(uint64_t version)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 32,
		.runs_kept = 64,
		.app_version = version,
	};

	return cfg;
}

static int mark_all(struct lw *lw, const struct marks *m)
{
	if (m->delegate && lw_mark(lw, LW_MARK_DELEGATE, m->delegate) != 0)
		return -1;
	if (m->runtime && lw_mark(lw, LW_MARK_RUNTIME_VERSION, m->runtime) != 0)
		return -1;
	return 0;
}

static int mark_hook(struct lw *lw, void *arg)
{
	return mark_all(lw, arg);
}

static void die_under(uint64_t version, uint64_t delegate, uint64_t runtime)
{
	struct marks m = { delegate, runtime };
	struct dying d = { config(version), "m", LW_STAGE_LOAD, DIE_KILL, mark_hook, &m };

	dying_run_of(&d);
}

/* Open a run, expect the advice of count deaths, then, with the marks of
 * then (if any) made in this run, expect then_kind. */
static void expect(const char *what, uint64_t version, uint32_t count, const struct marks *then,
		   enum lw_advice_kind then_kind)
{
	struct lw_config cfg = config(version);
	enum lw_advice_kind kind = count == 0 ? LW_ADVICE_NONE :
				   count == 1 ? LW_ADVICE_SKIP_PREWARM : LW_ADVICE_QUARANTINE;
	struct lw_advice a;
	struct lw_info info;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "%s: lw_open", what);
	T_ASSERT(lw_advice(lw, &a) == 0, "%s: lw_advice", what);
	T_ASSERT(a.kind == kind && a.count == count, "%s: advice %s count %u, expected %s %u",
		 what, lw_advice_name(a.kind), a.count, lw_advice_name(kind), count);
	if (then) {
		T_ASSERT(mark_all(lw, then) == 0 && lw_advice(lw, &a) == 0, "%s: marks", what);
		T_ASSERT(a.kind == then_kind &&
			 (then_kind == LW_ADVICE_NONE ? a.count == 0 : a.count == count),
			 "%s: after marks (delegate %" PRIu64 ", runtime %" PRIu64
			 "): advice %s count %u, expected %s",
			 what, then->delegate, then->runtime, lw_advice_name(a.kind), a.count,
			 lw_advice_name(then_kind));
	}
	T_ASSERT(lw_close(lw) == 0, "%s: lw_close", what);
	T_ASSERT(unlink(info.path) == 0, "unlink %s", info.path);
}

int main(void)
{
	const struct marks gpu5 = { LW_DELEGATE_GPU, 5 }, cpu = { LW_DELEGATE_CPU, 0 },
			   rt6 = { 0, 6 }, gpu = { LW_DELEGATE_GPU, 0 };

	g_dir = strdup(t_tmpdir("advice-conditions"));
	die_under(V, LW_DELEGATE_GPU, 5);
	die_under(V, LW_DELEGATE_GPU, 5);
	expect("two deaths on gpu, runtime 5", V, 2, &gpu5, LW_ADVICE_QUARANTINE);
	expect("this run marks cpu", V, 2, &cpu, LW_ADVICE_NONE);
	expect("this run marks runtime 6", V, 2, &rt6, LW_ADVICE_NONE);

	die_under(V, LW_DELEGATE_CPU, 5);
	expect("a death on cpu starts a new count", V, 1, &cpu, LW_ADVICE_SKIP_PREWARM);
	expect("the cpu death, this run on gpu", V, 1, &gpu, LW_ADVICE_NONE);

	die_under(V, LW_DELEGATE_CPU, 6);
	expect("a death under runtime 6 starts a new count", V, 1, &rt6, LW_ADVICE_SKIP_PREWARM);
	die_under(V, 0, 0);
	expect("a death without marks matches", V, 2, NULL, 0);
	die_under(V, LW_DELEGATE_CPU, 6);
	expect("and counts with its neighbours", V, 3, NULL, 0);

	die_under(V + 1, LW_DELEGATE_CPU, 6);
	expect("a death under another app version starts a new count", V + 1, 1, NULL, 0);
	expect("the old version's deaths stop at it", V, 0, NULL, 0);

	t_rmdir(g_dir);
	printf("advice conditions: delegate, runtime version, app version; unmarked runs match\n");
	return T_PASS;
}
