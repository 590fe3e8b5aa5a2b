/*
 * Boot-loop advice (DESIGN.md, "Boot loops and safe mode"), computed at open
 * from the headers of the previous runs of the same process.
 *
 * Walking from the newest previous run back (storage.c orders them by boot
 * and monotonic time, not by the wall clock in their names):
 *   - a run of another app version, a run that ended cleanly, a run that
 *     died outside an advised stage, or a run under another delegate or
 *     runtime version (its last delegate and runtime_version marks; 0, not
 *     marked or lapped out of the ring, matches any) ends the loop;
 *   - a run that died (killed or crashed) in an advised stage (an early
 *     one: download, load, runtime_prepare, delegate_prepare; or
 *     inference, for a model that dies on every request) counts when its
 *     stage and candidate match the newest death's;
 *   - a run in which lw_advice_reset() was called counts, then ends it.
 * skip_prewarm_after deaths (1 by default) advise skip_prewarm, and
 * quarantine_after (2) quarantine; fewer give none, with the count.
 * The stable candidate is the ok_candidate of the newest run that ended
 * cleanly, else the stable candidate the newest run inherited.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../src/ring.h"
#include "../src/vocab.h"
#include "internal.h"

/* Whether a death in stage s counts toward advice: an early stage comes
 * back at every start, and so does an inference that dies on every
 * request. The analyzer's boot loops keep to the early stages. */
static int advised_stage(enum lw_stage s)
{
	return vocab_stage_early(s) || s == LW_STAGE_INFERENCE;
}

/* Does a run's condition value v (delegate, runtime version) match the
 * loop's? 0 is unknown and matches any. */
static int same_condition(uint64_t loop, uint64_t v)
{
	return v == 0 || loop == 0 || loop == v;
}

void advice_thresholds_of(const struct lw_config *cfg, struct advice_thresholds *out)
{
	out->skip_prewarm_after =
		cfg && cfg->skip_prewarm_after ? cfg->skip_prewarm_after : LW_DEFAULT_SKIP_PREWARM_AFTER;
	out->quarantine_after =
		cfg && cfg->quarantine_after ? cfg->quarantine_after : LW_DEFAULT_QUARANTINE_AFTER;
}

void advice_compute(const struct run_list *runs, const char *process, uint64_t app_version,
		    const struct advice_thresholds *th, struct advice_result *out)
{
	int counting = 1, stable_known = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->advice.kind = LW_ADVICE_NONE;
	for (i = runs->count; i-- > 0 && (counting || !stable_known);) {
		struct run_entry *e = &runs->runs[i];
		const struct lw_ring_header *h = &e->hdr;
		enum lw_stage died_in;

		/* Only dead runs of this very process (the file name holds it
		 * with some bytes replaced). */
		if (e->live || !e->valid || strncmp(h->process, process, sizeof(h->process)) != 0)
			continue;
		died_in = h->state == LW_STATE_CLEAN_EXIT ? LW_STAGE_NONE : ring_open_stage(h);
		if (!stable_known) {
			if (h->state == LW_STATE_CLEAN_EXIT && h->ok_candidate) {
				out->stable_candidate = h->ok_candidate;
				stable_known = 1;
			} else if (h->stable_candidate) {
				out->stable_candidate = h->stable_candidate;
				stable_known = 1;
			}
		}
		if (!counting)
			continue;
		if (h->app_version != app_version || h->state == LW_STATE_CLEAN_EXIT ||
		    !advised_stage(died_in)) {
			counting = 0;
			continue;
		}
		storage_read_conditions(runs->dir, e);
		if (!same_condition(out->delegate, e->delegate) ||
		    !same_condition(out->runtime_version, e->runtime_version)) {
			counting = 0;
			continue;
		}
		if (out->advice.count == 0) {
			out->advice.stage = died_in;
			out->advice.candidate = h->candidate;
		} else if (died_in != out->advice.stage || h->candidate != out->advice.candidate) {
			counting = 0;
			continue;
		}
		out->advice.count++;
		/* The loop's conditions: the first known of its runs. */
		if (!out->delegate)
			out->delegate = e->delegate;
		if (!out->runtime_version)
			out->runtime_version = e->runtime_version;
		if (h->flags & LW_RUN_ADVICE_RESET)
			counting = 0;
	}
	if (out->advice.count >= th->quarantine_after)
		out->advice.kind = LW_ADVICE_QUARANTINE;
	else if (out->advice.count >= th->skip_prewarm_after)
		out->advice.kind = LW_ADVICE_SKIP_PREWARM;
	out->advice.stable_candidate = out->stable_candidate;
}

int lw_advice(const struct lw *lw, struct lw_advice *out)
{
	uint64_t current;
	int rc = lw_readable(lw);

	if (rc != 0)
		return rc;
	if (!out)
		return -EINVAL;
	*out = lw->advice;
	current = atomic_load_explicit(CA64(&lw->hdr->candidate), memory_order_relaxed);
	/* Relaxed: single words that lw_mark() stores; a call that races a
	 * mark sees the condition before it or after it. */
	if ((atomic_load_explicit(CA32(&lw->hdr->flags), memory_order_relaxed) &
	     LW_RUN_ADVICE_RESET) ||
	    (current != 0 && current != lw->advice.candidate) ||
	    !same_condition(lw->advice_delegate,
			    atomic_load_explicit(&lw->delegate, memory_order_relaxed)) ||
	    !same_condition(lw->advice_runtime,
			    atomic_load_explicit(&lw->runtime_version, memory_order_relaxed))) {
		out->kind = LW_ADVICE_NONE;
		out->stage = LW_STAGE_NONE;
		out->count = 0;
		out->candidate = 0;
	}
	return 0;
}

int lw_advice_reset(struct lw *lw)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	atomic_fetch_or_explicit(A32(&lw->hdr->flags), LW_RUN_ADVICE_RESET, memory_order_relaxed);
	return 0;
}

/*
 * lw_advice_read(): the advice that lw_open() would compute now, read from
 * another process. Its table of runs is static, so no call allocates: more
 * runs of one process than twice the most that rotation keeps are there
 * only when something else made them (-E2BIG). Calls in one process take
 * turns on it (reader_mu). The slots of a dead run are read by
 * storage_read_run(), the probe's one reader of ring files.
 */
#define READ_RUNS (2 * (LW_RUNS_KEPT_MAX + 1))
#define READ_NAME 128 /* a run's name: process (63), time (20), pid, dots, ".lwr" */

static pthread_mutex_t reader_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	struct run_entry runs[READ_RUNS];
	char names[READ_RUNS][READ_NAME];
	size_t count;
	int error;                  /* the first file's error, for when none is readable */
} reader;

static int read_one(const char *dir, const char *name, int is_temp, void *arg)
{
	struct run_entry *e = &reader.runs[reader.count];
	int rc;

	(void)arg;
	if (is_temp)
		return 0; /* an open under way, or a killed one's: never a run */
	if (reader.count == READ_RUNS)
		return -E2BIG;
	if (strlen(name) >= READ_NAME)
		return 0; /* a pid of that many digits: not the probe's name */
	memset(e, 0, sizeof(*e));
	rc = storage_read_run(dir, name, e);
	if (rc == -ENOENT || rc == -EINVAL)
		return 0; /* removed since the listing (rotation), or not a regular file */
	if (rc == 0 && !e->valid)
		rc = -EBADMSG;
	if (rc != 0 && reader.error == 0)
		reader.error = rc;
	if (rc != 0 && rc != -EBADMSG)
		return 0; /* not read at all; a bad header still takes its place */
	memcpy(reader.names[reader.count], name, strlen(name) + 1);
	e->name = reader.names[reader.count];
	reader.count++;
	return 0;
}

int lw_advice_read(const char *dir, const char *process_name, struct lw_advice *out)
{
	const struct advice_thresholds th = { LW_DEFAULT_SKIP_PREWARM_AFTER,
					      LW_DEFAULT_QUARANTINE_AFTER };
	struct run_list runs = { 0 };
	struct advice_result res;
	uint8_t boot_id[16];
	const struct lw_ring_header *newest = NULL;
	size_t i;
	int rc;

	if (!dir || !process_name || !process_name[0] ||
	    strlen(process_name) >= LW_RING_PROCESS_MAX || !out)
		return -EINVAL;
	lw_read_boot_id(boot_id);
	pthread_mutex_lock(&reader_mu);
	reader.count = 0;
	reader.error = 0;
	rc = storage_walk_runs(dir, process_name, read_one, NULL);
	if (rc == 0) {
		runs.dir = dir;
		runs.runs = reader.runs;
		runs.count = reader.count;
		storage_order_runs(runs.runs, runs.count, boot_id);
		/* The app version is the newest run's, live or not: the one the
		 * process runs, or ran last. */
		for (i = runs.count; i-- > 0 && !newest;)
			if (runs.runs[i].valid && strncmp(runs.runs[i].hdr.process, process_name,
							  sizeof(runs.runs[i].hdr.process)) == 0)
				newest = &runs.runs[i].hdr;
		if (!newest)
			rc = reader.error ? reader.error : -ENODATA;
	}
	if (rc == 0) {
		advice_compute(&runs, process_name, newest->app_version, &th, &res);
		*out = res.advice;
	}
	pthread_mutex_unlock(&reader_mu);
	return rc;
}
