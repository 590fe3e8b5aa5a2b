/*
 * Boot-loop advice across runs. Forked children are the runs of one
 * process in one directory: each opens with an app version, sets a
 * candidate, begins a stage and dies (SIGKILL, or SIGSEGV through the
 * crash handler). The parent then opens a run of its own, reads
 * lw_advice(), checks the advice record in that run's ring, and deletes
 * that run's file so it does not count as a clean run.
 *
 * The story: none -> skip_prewarm -> quarantine (a crash counts too); a
 * different current candidate reads none; another app version reads none;
 * a clean run ends the loop and makes its candidate stable; deaths in
 * inference count (a model that dies on every request); a different
 * candidate restarts the count; lw_advice_reset() ends counting at its
 * run; a clean run without an inference inherits the stable candidate.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>

#include "advice-runs.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define PROCESS "com.adv:inference"
#define V 7u

static const char *g_dir;

static struct lw_config config(uint64_t version)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 32,
		.runs_kept = 64, /* no rotation: every run stays visible */
		.app_version = version,
	};

	return cfg;
}

/* The reset run's hook: it writes its advice before and after
 * lw_advice_reset() to the descriptor *arg. */
static int report_reset(struct lw *lw, void *arg)
{
	struct lw_advice adv[2];

	if (lw_advice(lw, &adv[0]) != 0 || lw_advice_reset(lw) != 0 || lw_advice(lw, &adv[1]) != 0)
		return -1;
	return write(*(int *)arg, adv, sizeof(adv)) == (ssize_t)sizeof(adv) ? 0 : -1;
}

/*
 * One run that dies in stage. With report_fd >= 0 it is the reset run: it
 * writes its advice before and after lw_advice_reset() to report_fd.
 */
static void dying_run(uint64_t version, const char *cand, enum lw_stage stage, enum death how,
		      int report_fd)
{
	struct dying d = { config(version), cand, stage, how, NULL, &report_fd };

	if (report_fd >= 0)
		d.hook = report_reset;
	dying_run_of(&d);
}

/* Remove every run but the newest, as rotation would over time. */
static void keep_only_newest(void)
{
	char newest[256] = "", path[600];
	struct dirent *de;
	DIR *d;
	int removed = 0;

	d = opendir(g_dir);
	T_ASSERT(d != NULL, "opendir %s", g_dir);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && strcmp(de->d_name, newest) > 0)
			snprintf(newest, sizeof(newest), "%s", de->d_name);
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, newest) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", g_dir, de->d_name);
		T_ASSERT(unlink(path) == 0, "unlink %s", path);
		removed++;
	}
	closedir(d);
	T_ASSERT(removed > 0 && newest[0], "nothing to remove");
}

/* A run that ends cleanly, with or without a completed inference. */
static void clean_run(const char *cand, int inference_ok)
{
	struct lw_config cfg = config(V);
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "clean run: lw_open");
	T_ASSERT(lw_candidate(lw, cand) == 0, "clean run: lw_candidate");
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0 &&
		 lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE) == 0, "clean run: load");
	if (inference_ok)
		T_ASSERT(lw_stage_begin(lw, LW_STAGE_INFERENCE) == 0 &&
			 lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE) == 0,
			 "clean run: inference");
	T_ASSERT(lw_close(lw) == 0, "clean run: lw_close");
	sleep_ms(3);
}

struct want {
	enum lw_advice_kind kind;
	enum lw_stage stage;
	uint32_t count;
	const char *cand;   /* candidate the deaths had, NULL: none */
	const char *stable; /* stable candidate, NULL: none */
};

static uint64_t dg(const char *name)
{
	return name ? lw_digest(name) : 0;
}

static void expect_advice(const char *what, const struct lw_advice *a, const struct want *w)
{
	T_ASSERT(a->kind == w->kind, "%s: advice %s, expected %s", what, lw_advice_name(a->kind),
		 lw_advice_name(w->kind));
	T_ASSERT(a->stage == w->stage && a->count == w->count,
		 "%s: stage %s count %u, expected %s %u", what, lw_stage_name(a->stage), a->count,
		 lw_stage_name(w->stage), w->count);
	T_ASSERT(a->candidate == dg(w->cand), "%s: candidate 0x%" PRIx64 ", expected %s", what,
		 a->candidate, w->cand ? w->cand : "none");
	T_ASSERT(a->stable_candidate == dg(w->stable), "%s: stable 0x%" PRIx64 ", expected %s",
		 what, a->stable_candidate, w->stable ? w->stable : "none");
}

/* The run's ring: one advice record after the open record, or none. */
static void expect_advice_record(const char *what, const char *path, const struct want *w)
{
	const struct lw_ring_header *h;
	const struct lw_ring_slot *slots, *adv = NULL;
	struct ring_error err;
	struct ring_scan sc;
	uint8_t cls[32];
	struct stat st;
	uint32_t i;
	void *map;
	int fd, n = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "%s: open %s", what, path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap");
	close(fd);
	T_ASSERT(ring_header_check(map, (size_t)st.st_size, &err) == RING_HEADER_OK,
		 "%s: header refused: %s", what, err.reason);
	h = map;
	slots = (const struct lw_ring_slot *)((const char *)map + h->header_size);
	ring_scan(h, slots, &sc, cls, NULL, NULL);
	for (i = 0; i < h->slot_count; i++) {
		if (cls[i] == RING_SLOT_VALID && slots[i].type == LW_EV_ADVICE) {
			adv = &slots[i];
			n++;
			T_ASSERT(i == 1, "%s: advice record in slot %u, expected 1", what, i);
		}
	}
	T_ASSERT(h->stable_candidate == dg(w->stable), "%s: header stable 0x%" PRIx64, what,
		 h->stable_candidate);
	if (w->kind == LW_ADVICE_NONE) {
		T_ASSERT(n == 0, "%s: %d advice records, expected none", what, n);
	} else {
		T_ASSERT(n == 1, "%s: %d advice records, expected 1", what, n);
		T_ASSERT(adv->code == w->kind && adv->stage == w->stage && adv->a == dg(w->cand) &&
			 adv->b == w->count && adv->c == dg(w->stable),
			 "%s: advice record code %u stage %u a 0x%" PRIx64 " b %" PRIu64, what,
			 adv->code, adv->stage, adv->a, adv->b);
	}
	munmap(map, (size_t)st.st_size);
}

/*
 * Open a run of our own and check its advice, then (if set_cand) set a
 * candidate and check again against after_kind. The run's file is removed.
 */
static void check(const char *what, uint64_t version, const struct want *w, const char *set_cand,
		  enum lw_advice_kind after_kind)
{
	struct lw_config cfg = config(version);
	struct lw_advice a;
	struct lw_info info;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "%s: lw_open", what);
	T_ASSERT(lw_advice(lw, &a) == 0, "%s: lw_advice", what);
	expect_advice(what, &a, w);
	if (set_cand) {
		T_ASSERT(lw_candidate(lw, set_cand) == 0, "%s: lw_candidate", what);
		T_ASSERT(lw_advice(lw, &a) == 0, "%s: lw_advice", what);
		T_ASSERT(a.kind == after_kind, "%s: with candidate %s, advice %s, expected %s",
			 what,
			 set_cand, lw_advice_name(a.kind), lw_advice_name(after_kind));
		if (after_kind == LW_ADVICE_NONE)
			T_ASSERT(a.count == 0 && a.candidate == 0 && a.stage == LW_STAGE_NONE,
				 "%s: advice none with count %u", what, a.count);
		else
			T_ASSERT(a.count == w->count && a.candidate == dg(w->cand),
				 "%s: advice changed with the same candidate", what);
	}
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info");
	T_ASSERT(lw_close(lw) == 0, "%s: lw_close", what);
	expect_advice_record(what, info.path, w);
	T_ASSERT(unlink(info.path) == 0, "unlink %s", info.path);
}

int main(void)
{
	const struct want none = { LW_ADVICE_NONE, LW_STAGE_NONE, 0, NULL, NULL };
	struct want w;
	struct lw_advice reported[2];
	int fds[2];

	g_dir = strdup(t_tmpdir("advice"));
	T_ASSERT(lw_advice(NULL, reported) == -EINVAL, "lw_advice(NULL)");

	check("no previous runs", V, &none, NULL, 0);

	dying_run(V, "m1", LW_STAGE_DELEGATE_PREPARE, DIE_KILL, -1);
	w = (struct want){ LW_ADVICE_SKIP_PREWARM, LW_STAGE_DELEGATE_PREPARE, 1, "m1", NULL };
	check("one death in delegate_prepare", V, &w, NULL, 0);

	dying_run(V, "m1", LW_STAGE_DELEGATE_PREPARE, DIE_CRASH, -1);
	w = (struct want){ LW_ADVICE_QUARANTINE, LW_STAGE_DELEGATE_PREPARE, 2, "m1", NULL };
	check("two deaths (kill, crash)", V, &w, NULL, 0);
	check("quarantine, other candidate", V, &w, "m2", LW_ADVICE_NONE);
	check("quarantine, same candidate", V, &w, "m1", LW_ADVICE_QUARANTINE);
	check("another app version", V + 1, &none, NULL, 0);

	clean_run("m1", 1);
	w = (struct want){ LW_ADVICE_NONE, LW_STAGE_NONE, 0, NULL, "m1" };
	check("after a clean run", V, &w, NULL, 0);

	dying_run(V, "m1", LW_STAGE_INFERENCE, DIE_KILL, -1);
	w = (struct want){ LW_ADVICE_SKIP_PREWARM, LW_STAGE_INFERENCE, 1, "m1", "m1" };
	check("death in inference", V, &w, NULL, 0);
	dying_run(V, "m1", LW_STAGE_INFERENCE, DIE_CRASH, -1);
	w.kind = LW_ADVICE_QUARANTINE;
	w.count = 2;
	check("two deaths in inference", V, &w, NULL, 0);

	dying_run(V, "m2", LW_STAGE_LOAD, DIE_KILL, -1);
	w = (struct want){ LW_ADVICE_SKIP_PREWARM, LW_STAGE_LOAD, 1, "m2", "m1" };
	check("one death in load, stable inherited", V, &w, NULL, 0);
	dying_run(V, "m2", LW_STAGE_LOAD, DIE_KILL, -1);
	w.kind = LW_ADVICE_QUARANTINE;
	w.count = 2;
	check("two deaths in load", V, &w, NULL, 0);

	/* The reset run: quarantine before the reset, none after; it dies too. */
	T_ASSERT(pipe(fds) == 0, "pipe");
	dying_run(V, "m2", LW_STAGE_LOAD, DIE_KILL, fds[1]);
	close(fds[1]);
	T_ASSERT(read(fds[0], reported, sizeof(reported)) == (ssize_t)sizeof(reported),
		 "reset run did not report");
	close(fds[0]);
	expect_advice("reset run, before lw_advice_reset", &reported[0], &w);
	T_ASSERT(reported[1].kind == LW_ADVICE_NONE && reported[1].count == 0,
		 "reset run, after lw_advice_reset: %s count %u", lw_advice_name(reported[1].kind),
		 reported[1].count);
	w = (struct want){ LW_ADVICE_SKIP_PREWARM, LW_STAGE_LOAD, 1, "m2", "m1" };
	check("after the reset run (it counts, earlier ones do not)", V, &w, NULL, 0);
	dying_run(V, "m2", LW_STAGE_LOAD, DIE_KILL, -1);
	w.kind = LW_ADVICE_QUARANTINE;
	w.count = 2;
	check("one more death after the reset run", V, &w, NULL, 0);

	dying_run(V, "m3", LW_STAGE_LOAD, DIE_KILL, -1);
	w = (struct want){ LW_ADVICE_SKIP_PREWARM, LW_STAGE_LOAD, 1, "m3", "m1" };
	check("death with another candidate restarts the count", V, &w, NULL, 0);

	clean_run("m3", 1);
	w = (struct want){ LW_ADVICE_NONE, LW_STAGE_NONE, 0, NULL, "m3" };
	check("clean run with m3", V, &w, NULL, 0);
	clean_run("m4", 0);
	check("clean run without inference inherits m3", V, &w, NULL, 0);
	/* Only that run is left: m3 is known through its header alone. */
	keep_only_newest();
	check("stable candidate inherited through the header", V, &w, NULL, 0);

	t_rmdir(g_dir);
	printf("advice: none, skip_prewarm, quarantine, candidate, version, clean run, "
	       "inference deaths, reset, stable candidate\n");
	return T_PASS;
}
