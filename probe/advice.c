/*
 * Boot-loop advice (DESIGN.md, "Boot loops and safe mode"), computed at open
 * from the headers of the previous runs of the same process.
 *
 * Walking from the newest previous run back:
 *   - a run of another app version, a run that ended cleanly, or a run
 *     that died outside an early stage ends the loop;
 *   - a run that died (killed or crashed) in an early stage (download,
 *     load, runtime_prepare, delegate_prepare) counts when its stage and
 *     candidate match the newest death's;
 *   - a run in which lw_advice_reset() was called counts, then ends it.
 * One death advises skip_prewarm; two or more, quarantine.
 * The stable candidate is the ok_candidate of the newest run that ended
 * cleanly, else the stable candidate the newest run inherited.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../src/ring.h"
#include "../src/vocab.h"
#include "internal.h"

struct prev_run {
	uint32_t state;
	uint32_t flags;
	uint64_t app_version;
	uint64_t candidate;
	uint64_t ok_candidate;
	uint64_t stable_candidate;
	enum lw_stage died_in;
};

/* Read the header of a dead previous run. Returns 0, or -1 when the file is
 * live, unreadable, damaged or of another process. */
static int read_prev_run(const char *dir, const char *name, const char *process,
			 struct prev_run *out)
{
	struct lw_ring_header h;
	off_t size;
	ssize_t n;
	int fd = storage_open_run(dir, name), rc = -1;

	if (fd < 0)
		return -1;
	if (storage_file_is_live(fd))
		goto out_close;
	size = lseek(fd, 0, SEEK_END);
	n = pread(fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h) || size < 0 ||
	    ring_header_check(&h, (size_t)size, NULL) != RING_HEADER_OK)
		goto out_close;
	if (strncmp(h.process, process, sizeof(h.process)) != 0)
		goto out_close;
	out->state = h.state;
	out->flags = h.flags;
	out->app_version = h.app_version;
	out->candidate = h.candidate;
	out->ok_candidate = h.ok_candidate;
	out->stable_candidate = h.stable_candidate;
	out->died_in = h.state == LW_STATE_CLEAN_EXIT ? LW_STAGE_NONE : ring_open_stage(&h);
	rc = 0;
out_close:
	close(fd);
	return rc;
}

void advice_compute(const char *dir, const char *process, uint64_t app_version,
		    const char *exclude_name, struct advice_result *out)
{
	struct run_list runs;
	struct prev_run r;
	int counting = 1, stable_known = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->advice.kind = LW_ADVICE_NONE;
	if (!dir || storage_list_runs(dir, process, &runs) != 0)
		return;
	for (i = runs.count; i-- > 0 && (counting || !stable_known);) {
		if (exclude_name && strcmp(runs.names[i], exclude_name) == 0)
			continue;
		if (read_prev_run(dir, runs.names[i], process, &r) != 0)
			continue;
		if (!stable_known) {
			if (r.state == LW_STATE_CLEAN_EXIT && r.ok_candidate) {
				out->stable_candidate = r.ok_candidate;
				stable_known = 1;
			} else if (r.stable_candidate) {
				out->stable_candidate = r.stable_candidate;
				stable_known = 1;
			}
		}
		if (!counting)
			continue;
		if (r.app_version != app_version || r.state == LW_STATE_CLEAN_EXIT ||
		    !vocab_stage_early(r.died_in)) {
			counting = 0;
			continue;
		}
		if (out->advice.count == 0) {
			out->advice.stage = r.died_in;
			out->advice.candidate = r.candidate;
		} else if (r.died_in != out->advice.stage || r.candidate != out->advice.candidate) {
			counting = 0;
			continue;
		}
		out->advice.count++;
		if (r.flags & LW_RUN_ADVICE_RESET)
			counting = 0;
	}
	storage_free_runs(&runs);
	if (out->advice.count == 1)
		out->advice.kind = LW_ADVICE_SKIP_PREWARM;
	else if (out->advice.count >= 2)
		out->advice.kind = LW_ADVICE_QUARANTINE;
	out->advice.stable_candidate = out->stable_candidate;
}

int lw_advice(const struct lw *lw, struct lw_advice *out)
{
	uint64_t current;

	if (!lw || !out)
		return -EINVAL;
	*out = lw->advice;
	current = atomic_load_explicit(CA64(&lw->hdr->candidate), memory_order_relaxed);
	if ((atomic_load_explicit(CA32(&lw->hdr->flags), memory_order_relaxed) &
	     LW_RUN_ADVICE_RESET) ||
	    (current != 0 && current != lw->advice.candidate)) {
		out->kind = LW_ADVICE_NONE;
		out->stage = LW_STAGE_NONE;
		out->count = 0;
		out->candidate = 0;
	}
	return 0;
}

int lw_advice_reset(struct lw *lw)
{
	if (!lw)
		return -EINVAL;
	atomic_fetch_or_explicit(A32(&lw->hdr->flags), LW_RUN_ADVICE_RESET, memory_order_relaxed);
	return 0;
}
