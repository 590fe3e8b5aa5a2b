/*
 * The classification rules, as a table: each reads one run's facts and its
 * correlated evidence and adds claims, evidence and what is missing. The
 * verdict and the recovery follow from the claims (classify_run()); then
 * the rules' cross-run steps add what the other runs' verdicts tell
 * (classify_all()).
 * Reason, subreason and importance codes are those of ApplicationExitInfo
 * (src/exit-info.h); the traps of DESIGN.md are rules of their own.
 */
#include "classify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/exit-info.h"
#include "../src/signals.h"
#include "../src/vocab.h"
#include "format.h"
#include "runs/ring-event.h"
#include "runs/sessions.h"

static const char *const source_names[] = {
#define X(up, name) #name,
	CLAIM_SOURCES(X)
#undef X
};

const char *claim_source_name(enum claim_source s)
{
	return (unsigned)s < SRC_COUNT ? source_names[s] : "unknown";
}

/* Helpers that fill the verdict under construction. */
static void claim(struct verdict *v, enum claim_source s, enum lw_exit_class c, int weak)
{
	if (v->nclaims < VERDICT_MAX_CLAIMS) {
		v->claims[v->nclaims].source = s;
		v->claims[v->nclaims].cls = c;
		v->claims[v->nclaims].weak = weak;
		v->nclaims++;
	}
}

/* A line of a verdict: fmt's text cut to max bytes (with the NUL), on the
 * heap; NULL on ENOMEM. */
static char *line_of(size_t max, const char *fmt, va_list ap)
{
	char buf[VERDICT_LINE_MAX];

	vsnprintf(buf, max < sizeof(buf) ? max : sizeof(buf), fmt, ap);
	return strdup(buf);
}

__attribute__((format(printf, 2, 3))) static void evidence(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nevidence >= VERDICT_MAX_LINES)
		return;
	va_start(ap, fmt);
	v->evidence[v->nevidence] = line_of(VERDICT_LINE_MAX, fmt, ap);
	va_end(ap);
	v->nevidence += v->evidence[v->nevidence] != NULL;
}

__attribute__((format(printf, 2, 3))) static void set_contradiction(struct verdict *v,
								    const char *fmt, ...)
{
	va_list ap;

	free(v->contradiction);
	va_start(ap, fmt);
	v->contradiction = line_of(VERDICT_LINE_MAX, fmt, ap);
	va_end(ap);
}

static char *missing_line(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = line_of(VERDICT_MISSING_MAX, fmt, ap);
	va_end(ap);
	return s;
}

static void missing(struct verdict *v, const char *what)
{
	size_t i;

	for (i = 0; i < v->nmissing; i++)
		if (strncmp(v->missing[i], what, VERDICT_MISSING_MAX - 1) == 0)
			return;
	if (v->nmissing < VERDICT_MAX_LINES) {
		v->missing[v->nmissing] = missing_line("%s", what);
		v->nmissing += v->missing[v->nmissing] != NULL;
	}
}

void verdict_release(struct verdict *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nevidence; i++)
		free(v->evidence[i]);
	for (i = 0; i < v->nmissing; i++)
		free(v->missing[i]);
	for (i = 0; i < v->nactions; i++)
		free(v->actions[i].why);
	free(v->contradiction);
	caveats_release(&v->caveats);
	free(v->blame.why);
	memset(v, 0, sizeof(*v));
}

/* The run's exit records, and its log events of one type. */
#define EXITS(cr, i) (&(cr)->exits.v[i].file->exits[(cr)->exits.v[i].index])
#define LOGS(cr, i) (&(cr)->logs.v[i].file->logs[(cr)->logs.v[i].index])

static const struct exit_record *exit_with(const struct corr_run *cr, int64_t reason)
{
	size_t i;

	for (i = 0; i < cr->exits.n; i++)
		if (EXITS(cr, i)->reason == reason)
			return EXITS(cr, i);
	return NULL;
}

static const struct log_event *log_with(const struct corr_run *cr, enum log_event_type t)
{
	size_t i;

	for (i = 0; i < cr->logs.n; i++)
		if (LOGS(cr, i)->type == t)
			return LOGS(cr, i);
	return NULL;
}

static const struct log_event *lmkd_kill(const struct corr_run *cr)
{
	const struct log_event *e = log_with(cr, LOG_LMKD_KILL);

	return e ? e : log_with(cr, LOG_EV_KILLINFO);
}

/* The run's first am_crash of a native crash (native 1) or of a Java one. */
static const struct log_event *am_crash(const struct corr_run *cr, int native)
{
	size_t i;

	for (i = 0; i < cr->logs.n; i++)
		if (LOGS(cr, i)->type == LOG_EV_AM_CRASH &&
		    log_event_native_crash(LOGS(cr, i)) == native)
			return LOGS(cr, i);
	return NULL;
}

const struct log_event *classify_java_crash(const struct corr_run *cr)
{
	const struct log_event *e = log_with(cr, LOG_JAVA_CRASH);

	return e ? e : am_crash(cr, 0);
}

/* Whether the run's tombstone has a frame symbolicated (--symbols). */
static int tombstone_symbolicated(const struct corr_run *cr)
{
	const struct tombstone *t;
	size_t k;

	if (!cr->tombstones.n)
		return 0;
	t = &cr->tombstones.v[0].file->tombstones[cr->tombstones.v[0].index];
	for (k = 0; k < t->nframes; k++)
		if (t->frames[k].nlines)
			return 1;
	return 0;
}

/* Witnesses an exit row may name. */
static int has_tombstone(const struct corr_run *cr)
{
	return cr->tombstones.n > 0;
}

static int has_java_stack(const struct corr_run *cr)
{
	return classify_java_crash(cr) != NULL;
}

/* Sets of subreasons, a bit each (those below 64), and whether a
 * record's subreason is in one: OTHER with these trims cached and empty
 * processes. */
#define SUBREASON_BIT(up) (UINT64_C(1) << EXIT_SUBREASON_##up)
#define TRIM_SUBREASONS \
	(SUBREASON_BIT(TOO_MANY_CACHED) | SUBREASON_BIT(TOO_MANY_EMPTY) | SUBREASON_BIT(TRIM_EMPTY))

static int subreason_in(int64_t subreason, uint64_t set)
{
	return subreason >= 0 && subreason < 64 && (set >> subreason & 1);
}

/* An OTHER record that the MemoryLimiter wrote (Android 17). */
static int memory_limiter_other(const struct exit_record *r)
{
	return r->reason == EXIT_REASON_OTHER && r->description &&
	       strstr(r->description, "MemoryLimiter:");
}

/* The record as evidence; what NULL names it by its reason's label. Its
 * time is as written when that is a local wall time (dumpsys, toString());
 * a time since the epoch (the app's JSON export) is written in ISO 8601. */
static void exit_evidence(struct verdict *v, const struct exit_record *r, const char *what)
{
	char iso[40];
	const char *when = r->timestamp_text ? r->timestamp_text : "an unknown time";

	if (!r->timestamp_local && r->timestamp_ms >= 0 && r->timestamp_ms <= INT64_MAX / 1000000) {
		fmt_iso(iso, sizeof(iso), (uint64_t)r->timestamp_ms * 1000000u);
		when = iso;
	}
	if (!what)
		what = vocab_name(&exit_reason_labels, (int)r->reason);
	evidence(v, "exit record: %s (reason %" PRId64 ", subreason %" PRId64 ", status %" PRId64
		    ", importance %" PRId64 ") at %s%s%s",
		 what, r->reason, r->subreason, r->status, r->importance, when,
		 r->description ? ": " : "", r->description ? r->description : "");
}

/* A row of the common shape (struct rule_exit): it fires on the first
 * exit record of its reason and subreasons. */
static int exit_row_fire(const struct rule_exit *x, const struct corr_run *cr, struct verdict *v)
{
	size_t i;

	for (i = 0; i < cr->exits.n; i++) {
		const struct exit_record *r = EXITS(cr, i);

		if (r->reason != x->reason ||
		    (x->subreasons && !subreason_in(r->subreason, x->subreasons)))
			continue;
		exit_evidence(v, r, x->what);
		claim(v, SRC_EXIT_INFO, x->cls, 0);
		if (x->witness && !x->witness(cr))
			missing(v, x->absent);
		return 1;
	}
	return 0;
}

/* lmkd's oom_score_adj of a cached process (ProcessList's
 * CACHED_APP_MIN_ADJ): where the exit record gives no importance. */
#define CACHED_APP_MIN_ADJ 900

/* Was the run's low-memory kill one of a process in the cached or
 * background importance (400 and above)? Its LOW_MEMORY record says, or
 * the SIGNALED/9 record of a device without LMK reporting; without an
 * importance, lmkd's oom_score_adj does. */
static int killed_cached(const struct corr_run *cr)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_LOW_MEMORY);
	const struct log_event *e = lmkd_kill(cr);

	if (!r && e && (r = exit_with(cr, EXIT_REASON_SIGNALED)) && r->status != 9)
		r = NULL;
	if (r && r->importance > 0)
		return r->importance >= EXIT_IMPORTANCE_CACHED;
	return e && e->oom_score_adj >= CACHED_APP_MIN_ADJ;
}

/* Rule cached-reclaim: a cached or background process killed for memory
 * with no stage open is the system reclaiming it, not a failure. A
 * ring-less run has no stage to tell: the system's word that the process
 * was cached decides (its candidate is unknown, so none is blamed). */
static int cached_reclaim(const struct corr_run *cr, const struct run_facts *f)
{
	return (f->outcome == RING_OUTCOME_NO_RING || f->open_stage == LW_STAGE_NONE) &&
	       killed_cached(cr);
}

/* lmkd's kill reasons (statslog.h kill_reasons) from which on a vendor's
 * own: those say nothing this version can read. */
#define LMKD_VENDOR_REASONS 1000

/* Whether the system was short of memory when the run died, by lmkd's kill
 * reason (every reason of AOSP's lmkd names the system's state: a
 * watermark breached, swap low, thrashing, direct reclaim, the file cache
 * low), the process's own pressure records (a trim level of a shortage,
 * lowMemory, PSI), or because it was killed cached or in the background;
 * what said so into why. */
static int system_short(const struct corr_run *cr, const struct run_facts *f, char *why,
			size_t n)
{
	const struct log_event *e = lmkd_kill(cr);

	if (e && e->reason && !strstr(e->reason, "vendor kill") &&
	    (e->kill_reason_code < 0 || e->kill_reason_code < LMKD_VENDOR_REASONS)) {
		snprintf(why, n, "lmkd's kill reason");
		return 1;
	}
	if (e && !e->reason && e->kill_reason_code >= 0 && e->kill_reason_code < LMKD_VENDOR_REASONS) {
		snprintf(why, n, "lmkd's kill reason %" PRId64, e->kill_reason_code);
		return 1;
	}
	if (f->pressure.short_of_memory) {
		if (f->pressure.memory_info == 2)
			snprintf(why, n, "ActivityManager said lowMemory");
		else if (f->pressure.trim_level)
			snprintf(why, n, "trim level %d", f->pressure.trim_level);
		else
			snprintf(why, n, "PSI some avg10 %d.%02d%%",
				 f->pressure.psi_some / 100, f->pressure.psi_some % 100);
		return 1;
	}
	if (killed_cached(cr)) {
		snprintf(why, n, "killed cached or in the background");
		return 1;
	}
	return 0;
}

/* The RSS slope at death from which a process is growing (its own growth,
 * even within its budget), in kB/s. */
#define GROWING_KB_PER_S 1024.0

/* Whether a run killed for memory is the victim of the system's shortage,
 * not the culprit (rule memory-victim): the system was short, and the ring
 * shows the process within the budget it was given, by what it could not
 * give back where the composition is known, and not growing at death
 * (file-backed pages that grew are the kernel's to drop). A run without a
 * ring or a budget cannot show that it stayed within one. */
static int memory_victim(const struct corr_run *cr, const struct run_facts *f, char *why,
			 size_t n)
{
	if (f->outcome != RING_OUTCOME_DIED || !f->have_rss || !f->budget_kb || f->over_budget)
		return 0;
	/* Growing: what it could not give back grew in the stage open at
	 * death, where the composition is known; else the RSS's slope. */
	if (f->at_death.source ? (f->grew & ~(unsigned)RUN_MEM_FILE) != 0
			       : f->have_slope && f->slope_kb_per_s >= GROWING_KB_PER_S)
		return 0;
	if (!lmkd_kill(cr) && !exit_with(cr, EXIT_REASON_LOW_MEMORY))
		return 0;
	return system_short(cr, f, why, n);
}

/* The class a low-memory kill claims: a reclaim, for a cached process with
 * no stage open or a victim of the system's shortage, else low memory. */
static enum lw_exit_class kill_class(const struct corr_run *cr, const struct run_facts *f)
{
	char why[8];

	return cached_reclaim(cr, f) || memory_victim(cr, f, why, sizeof(why)) ? LW_EXIT_SYSTEM_RECLAIM
										  : LW_EXIT_LOW_MEMORY;
}

/* The rules with a function of their own. Each returns 1 when it fired. */

/* an exit record says LOW_MEMORY: lmkd reported the kill */
static int rule_aei_low_memory(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_LOW_MEMORY);

	if (!r || (r->importance == EXIT_IMPORTANCE_FOREGROUND_SERVICE && !lmkd_kill(cr)))
		return 0;
	exit_evidence(v, r, NULL);
	claim(v, SRC_EXIT_INFO, kill_class(cr, f), 0);
	if (!lmkd_kill(cr))
		missing(v, "the lmkd kill line (logcat, tag lowmemorykiller) for this pid");
	return 1;
}

/*
 * trap: LOW_MEMORY at importance 125 with no lmkd line is how OEM cleaners kill foreground
 * services; it suggests, never confirms
 */
static int rule_oem_cleaner_fgs(const struct corr_run *cr, const struct run_facts *f,
				struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_LOW_MEMORY);

	(void)f;
	if (!r || r->importance != EXIT_IMPORTANCE_FOREGROUND_SERVICE || lmkd_kill(cr))
		return 0;
	exit_evidence(v, r, "LOW_MEMORY at importance 125 (foreground service)");
	evidence(v, "OEM task cleaners report their kills of foreground services this way; "
		    "without lmkd's kill line it is not a low-memory kill");
	claim(v, SRC_EXIT_INFO, LW_EXIT_UNKNOWN, 1);
	missing(v, "the lmkd kill line (logcat, tag lowmemorykiller) for this pid");
	return 1;
}

/* trap: SIGNALED/9 with an lmkd kill line is a low-memory kill on a device without LMK reporting */
static int rule_lmk_as_signaled(const struct corr_run *cr, const struct run_facts *f,
				struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_SIGNALED);

	if (!r || r->status != 9 || !lmkd_kill(cr))
		return 0;
	exit_evidence(v, r, "SIGNALED by SIGKILL");
	evidence(v, "this device reports low-memory kills as SIGNALED/9 (no LMK kill reporting)");
	/* The record and lmkd's line witness the same kill, independently. */
	claim(v, SRC_EXIT_INFO, kill_class(cr, f), 0);
	return 1;
}

static const struct log_event *app_watchdog(const struct corr_run *cr,
					    const struct exit_record **rec);

/* SIGNALED without an lmkd line: killed, by a sender nobody names; the cause stays unknown */
static int rule_signaled_unknown_sender(const struct corr_run *cr, const struct run_facts *f,
					struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_SIGNALED);

	(void)f;
	/* The app's own watchdog that names itself the sender: app-watchdog. */
	if (!r || (r->status == 9 && lmkd_kill(cr)) || app_watchdog(cr, NULL))
		return 0;
	exit_evidence(v, r, NULL);
	evidence(v, "killed by signal %" PRId64 " from a sender the record does not name",
		 r->status);
	missing(v, "the lmkd kill line, or another witness of who sent the signal");
	claim(v, SRC_EXIT_INFO, LW_EXIT_UNKNOWN, 1);
	return 1;
}

/* lmkd's kill line (logcat or killinfo) names this pid */
static int rule_lmkd_kill(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct log_event *e = lmkd_kill(cr);

	if (!e)
		return 0;
	evidence(v, "lmkd killed it (line %zu): rss %" PRId64 " kB, oom_score_adj %" PRId64 "%s%s",
		 e->line, e->rss_kb, e->oom_score_adj, e->reason ? ", reason: " : "",
		 e->reason ? e->reason : "");
	claim(v, SRC_LMKD, kill_class(cr, f), 0);
	return 1;
}

/*
 * trap: a low-memory kill (lmkd, or AM's record) of a cached or background process (importance 400
 * and up) with no stage open is system reclaim, not the candidate's fault; with a stage open it
 * stays low memory
 */
static int rule_cached_reclaim(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	if (!cached_reclaim(cr, f))
		return 0;
	evidence(v, "killed for memory while cached or in the background (importance 400 and up), "
		    "%s: the system reclaimed it, the candidate is not to blame",
		 f->outcome == RING_OUTCOME_NO_RING ? "no ring to tell a stage open"
						    : "with no stage open");
	return 1;
}

/*
 * a low-memory kill while the system was short of memory (lmkd's kill reason, the process's
 * pressure records, or it was cached or in the background) of a process the ring shows within its
 * budget and not growing at death: a victim of the shortage, not the candidate's growth; the
 * candidate is not blamed and the recovery is the reclaim's
 */
static int rule_memory_victim(const struct corr_run *cr, const struct run_facts *f,
			      struct verdict *v)
{
	char why[200], peak[24], budget[24];

	if (cached_reclaim(cr, f) || !memory_victim(cr, f, why, sizeof(why)))
		return 0;
	fmt_kb(peak, sizeof(peak), f->measured_peak_kb ? f->measured_peak_kb : f->peak_kb);
	fmt_kb(budget, sizeof(budget), f->budget_kb);
	evidence(v, "the system was short of memory (%s) and the process within its budget "
		    "(%s %s of %s), not growing: a victim, not the culprit",
		 why, f->budget_measure == RUN_BUDGET_OWN ? "its own memory" : "rss", peak, budget);
	return 1;
}

/*
 * trap: MemoryLimiter kills, as OTHER with a MemoryLimiter: description or as reason 17, are low
 * memory
 */
static int rule_memory_limiter(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_MEMORY_LIMITER);
	size_t i;

	(void)f;
	for (i = 0; !r && i < cr->exits.n; i++)
		if (memory_limiter_other(EXITS(cr, i)))
			r = EXITS(cr, i);
	if (!r)
		return 0;
	exit_evidence(v, r, r->reason == EXIT_REASON_MEMORY_LIMITER
				    ? "MEMORY_LIMITER"
				    : "OTHER with a MemoryLimiter description");
	claim(v, SRC_EXIT_INFO, LW_EXIT_LOW_MEMORY, 0);
	return 1;
}

/* OTHER, user, package or permission changes, excessive use: the system or the user ended it */
static int rule_other_system_kill(const struct corr_run *cr, const struct run_facts *f,
				  struct verdict *v)
{
	static const int64_t codes[] = {
		EXIT_REASON_OTHER, EXIT_REASON_USER_REQUESTED, EXIT_REASON_USER_STOPPED,
		EXIT_REASON_PACKAGE_STATE_CHANGE, EXIT_REASON_PACKAGE_UPDATED,
		EXIT_REASON_PERMISSION_CHANGE, EXIT_REASON_EXCESSIVE_RESOURCE_USAGE,
	};
	size_t i, k;

	(void)f;
	/* After an ANR or a crash, the kill that follows is its consequence:
	 * the tracker adds a second record rather than overwrite the first. */
	if (exit_with(cr, EXIT_REASON_ANR) || exit_with(cr, EXIT_REASON_CRASH) ||
	    exit_with(cr, EXIT_REASON_CRASH_NATIVE))
		return 0;
	for (i = 0; i < cr->exits.n; i++) {
		const struct exit_record *r = EXITS(cr, i);

		/* Trimming and the MemoryLimiter have rules of their own. */
		if ((r->reason == EXIT_REASON_OTHER && subreason_in(r->subreason, TRIM_SUBREASONS)) ||
		    memory_limiter_other(r))
			continue;
		for (k = 0; k < sizeof(codes) / sizeof(codes[0]); k++) {
			if (r->reason == codes[k]) {
				exit_evidence(v, r, "ended by the system or the user");
				claim(v, SRC_EXIT_INFO, LW_EXIT_SYSTEM_RECLAIM, 0);
				return 1;
			}
		}
	}
	return 0;
}

/* trap: DEPENDENCY_DIED: the process died because the one it depends on died; look at that one */
static int rule_dependency_died(const struct corr_run *cr, const struct run_facts *f,
				struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_DEPENDENCY_DIED);

	(void)f;
	if (!r)
		return 0;
	exit_evidence(v, r, "DEPENDENCY_DIED");
	evidence(v, "the process it depends on died first; that death is the cause to look at");
	claim(v, SRC_EXIT_INFO, LW_EXIT_SYSTEM_RECLAIM, 0);
	return 1;
}

/* The time of run cr's DEPENDENCY_DIED record, EV_NO_TIME if unknown. */
static int64_t dependency_time(const struct corr_run *cr)
{
	size_t i;

	for (i = 0; i < cr->exits.n; i++)
		if (EXITS(cr, i)->reason == EXIT_REASON_DEPENDENCY_DIED)
			return cr->exits.v[i].time_utc_ms;
	return EV_NO_TIME;
}

/* The main process of an :inference process, the name before the ':': its
 * run that had started by this run's end (within the clock tolerance), and
 * whose next run had not; or its ring-less run that died when this one's
 * DEPENDENCY_DIED record says (within the tolerance). */
static const struct corr_run *main_process_run(const struct correlation *c, size_t i)
{
	const struct corr_run *cr = &c->runs[i];
	const char *colon = strchr(cr->run->hdr.process, ':');
	int64_t tol = c->opt.tolerance_ms, dep = dependency_time(cr);
	size_t n, k;

	if (!colon)
		return NULL;
	n = (size_t)(colon - cr->run->hdr.process);
	for (k = 0; k < c->nruns; k++) {
		const struct corr_run *m = &c->runs[k];

		if (strlen(m->run->hdr.process) != n ||
		    strncmp(m->run->hdr.process, cr->run->hdr.process, n) != 0)
			continue;
		if (m->run->ring == RUN_RING_NONE
			    ? dep != EV_NO_TIME && m->last_ms != CORR_NO_START &&
				      dep >= m->last_ms - tol && dep <= m->next_start_ms + tol
			    : m->start_ms <= cr->last_ms + tol &&
				      (m->next_start_ms == INT64_MAX || m->next_start_ms >= cr->last_ms))
			return m;
	}
	return NULL;
}

/* The death it depended on: its main process's verdict, or that it is
 * missing. The line comes after all the run's other evidence; when the
 * evidence is full, the missing line is added instead. */
static void rule_dependency_died_across(const struct correlation *c, const int *judged,
					struct verdict *verdicts, size_t i)
{
	const struct corr_run *m = main_process_run(c, i);
	struct verdict *v = &verdicts[i];

	if (m && judged[m - c->runs] && v->nevidence < VERDICT_MAX_LINES) {
		const struct verdict *mv = &verdicts[m - c->runs];

		evidence(v, "its main process %s (pid %u) died: %s, %s", m->run->hdr.process,
			 m->run->hdr.pid, vocab_name(&vocab_exit_classes, (int)mv->cls),
			 vocab_name(&vocab_evidence_levels, (int)mv->level));
	} else {
		missing(v, "the ring and exit record of the main process it depended on");
	}
}

/* trap: an ANR record with trace=null: the ANR is real, the main thread's state is missing */
static int rule_anr_null_trace(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_ANR);

	(void)f;
	if (!r || r->trace || cr->anrs.n)
		return 0;
	evidence(v, "the ANR record names no trace (trace=null): the main thread's state is unknown");
	missing(v, "the ANR trace (anr_*.gz from the record, or /data/anr)");
	return 1;
}

/* EXIT_SELF: the process ended itself; without a clean close, the cause is unknown */
static int rule_exit_self(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct exit_record *r = exit_with(cr, EXIT_REASON_EXIT_SELF);

	/* The app's own watchdog that says it ended the process: app-watchdog. */
	if (!r || app_watchdog(cr, NULL))
		return 0;
	exit_evidence(v, r, NULL);
	/* A ring-less run has no probe to close: status 0 is a normal exit. */
	if (f->outcome == RING_OUTCOME_NO_RING ? r->status != 0
					       : r->status != 0 || f->outcome != RING_OUTCOME_CLEAN) {
		evidence(v, "the process exited by itself with status %" PRId64 "%s", r->status,
			 f->outcome == RING_OUTCOME_NO_RING ? "" : " without closing the probe");
		claim(v, SRC_EXIT_INFO, LW_EXIT_UNKNOWN, 1);
	}
	return 1;
}

/* trap: a reason code this version does not know (or UNKNOWN) stays unknown, never low memory */
static int rule_unknown_reason(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	size_t i;

	(void)f;
	for (i = 0; i < cr->exits.n; i++) {
		const struct exit_record *r = EXITS(cr, i);

		if (r->reason == EXIT_REASON_UNKNOWN || r->reason == EXIT_REASON_INITIALIZATION_FAILURE ||
		    r->reason == EXIT_REASON_ANOMALY || r->reason >= EXIT_REASON_COUNT) {
			exit_evidence(v, r, "a reason this version does not classify");
			claim(v, SRC_EXIT_INFO, LW_EXIT_UNKNOWN, 0);
			return 1;
		}
	}
	return 0;
}

/* a tombstone of this pid: a native crash, with its signal and frames */
static int rule_tombstone(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct tombstone *t;

	(void)f;
	if (!cr->tombstones.n)
		return 0;
	t = &cr->tombstones.v[0].file->tombstones[cr->tombstones.v[0].index];
	evidence(v, "tombstone: %s (%s) at 0x%" PRIx64 " in thread %s%s%s%s",
		 t->signo > 0 && signal_name((int)t->signo) ? signal_name((int)t->signo) : "signal",
		 t->code_name ? t->code_name : "?", t->fault_addr, t->thread ? t->thread : "?",
		 t->first_runtime ? ", top frames in " : "", t->first_runtime ? t->first_runtime : "",
		 t->abort_message ? " (abort message)" : "");
	claim(v, SRC_TOMBSTONE, LW_EXIT_NATIVE_CRASH, 0);
	return 1;
}

/* an ANR trace of this pid: the main thread's state */
static int rule_anr_trace(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct anr_trace *a;

	(void)f;
	if (!cr->anrs.n)
		return 0;
	a = &cr->anrs.v[0].file->anrs[cr->anrs.v[0].index];
	evidence(v, "ANR trace: main thread %s%s%s%s", a->main_found ? "" : "not in the trace",
		 a->main_state ? a->main_state : "", a->main_lock ? " on " : "",
		 a->main_lock ? a->main_lock : "");
	claim(v, SRC_ANR_TRACE, LW_EXIT_ANR, 0);
	return 1;
}

/*
 * logcat or the event log shows a fatal signal, a native or Java crash, or an ANR for this process
 */
static int rule_crash_log(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct log_event *n = log_with(cr, LOG_FATAL_SIGNAL);
	const struct log_event *an = am_crash(cr, 1);
	const struct log_event *j = classify_java_crash(cr);
	const struct log_event *a = log_with(cr, LOG_EV_AM_ANR);

	(void)f;
	if (n) {
		evidence(v, "logcat: fatal signal %" PRId64 " (line %zu)", n->signo, n->line);
		claim(v, SRC_CRASH_LOG, LW_EXIT_NATIVE_CRASH, 0);
	}
	if (an) {
		evidence(v, "event log: am_crash of a native crash (line %zu): %s", an->line,
			 an->reason);
		claim(v, SRC_CRASH_LOG, LW_EXIT_NATIVE_CRASH, 0);
	}
	if (j) {
		evidence(v, "%s: Java crash (line %zu)%s%s",
			 j->type == LOG_EV_AM_CRASH ? "event log: am_crash" : "logcat", j->line,
			 j->reason ? ": " : "", j->reason ? j->reason : "");
		claim(v, SRC_CRASH_LOG, LW_EXIT_JAVA_CRASH, 0);
	}
	if (a) {
		evidence(v, "event log: am_anr (line %zu)", a->line);
		claim(v, SRC_CRASH_LOG, LW_EXIT_ANR, 0);
	}
	return n || an || j || a;
}

/* The first seed's traps: the inference process behind a Binder
 * interface (rules anr-binder-call, binder-too-large, system-watchdog,
 * app-watchdog). */

/* Whether a main thread's top frame is in a Binder call: the proxy's
 * transact (BinderProxy.transact, transactNative), an AIDL proxy's method
 * (the app's own interface, $Stub$Proxy), or libbinder's in a native
 * trace. */
static int binder_frame(const char *frame)
{
	return frame && (strstr(frame, "android.os.BinderProxy.transact") ||
			 strstr(frame, "$Stub$Proxy.") || strstr(frame, "IPCThreadState::") ||
			 strstr(frame, "BpBinder::transact"));
}

/* The run's first ANR trace whose main thread's top frame is in a Binder
 * call, or NULL. */
static const struct anr_trace *anr_in_binder(const struct corr_run *cr)
{
	size_t i;

	for (i = 0; i < cr->anrs.n; i++) {
		const struct anr_trace *a = &cr->anrs.v[i].file->anrs[cr->anrs.v[i].index];

		if (binder_frame(a->main_top_frame))
			return a;
	}
	return NULL;
}

/* What the ANR was about: the trace's Subject:, else am_anr's, else the
 * ANR record's description; NULL when none says. */
static const char *anr_subject(const struct corr_run *cr, const struct anr_trace *a)
{
	const struct log_event *e = log_with(cr, LOG_EV_AM_ANR);
	const struct exit_record *r = exit_with(cr, EXIT_REASON_ANR);

	if (a && a->subject)
		return a->subject;
	if (e && e->reason)
		return e->reason;
	return r ? r->description : NULL;
}

/*
 * trap: an ANR whose main thread's top frame is in a Binder call (BinderProxy.transact, an AIDL
 * $Stub$Proxy method): a synchronous call into another process, such as the inference process,
 * blocked the main thread; move the call off it
 */
static int rule_anr_binder_call(const struct corr_run *cr, const struct run_facts *f,
				struct verdict *v)
{
	const struct anr_trace *a = anr_in_binder(cr);
	const char *subject = anr_subject(cr, a);

	(void)f;
	if (!a)
		return 0;
	evidence(v, "ANR trace: main thread in a Binder call: %s", a->main_top_frame);
	evidence(v, "a Binder call waits for the other process to answer (AIDL calls are synchronous): "
		    "the main thread was blocked until it did");
	if (subject)
		evidence(v, "ANR subject: %s", subject);
	return 1;
}

/* How near before the death a Binder line counts (rule binder-too-large),
 * with the clock tolerance; and the parcel size from which JavaBinder
 * itself calls a failed transaction too large (signalExceptionForError:
 * above it TransactionTooLargeException, below it "remote process
 * probably died"). */
#define BINDER_NEAR_DEATH_MS (10000 + CORR_DEFAULT_TOLERANCE_MS)
#define BINDER_LARGE_BYTES (200 * 1024)

/* The run's death, UTC ms: its earliest exit record's time (an ANR's
 * comes before the kill that follows it), else its last record's. */
static int64_t death_ms(const struct corr_run *cr)
{
	int64_t t = INT64_MAX;
	size_t i;

	for (i = 0; i < cr->exits.n; i++)
		if (cr->exits.v[i].time_utc_ms != EV_NO_TIME && cr->exits.v[i].time_utc_ms < t)
			t = cr->exits.v[i].time_utc_ms;
	return t == INT64_MAX ? cr->last_ms : t;
}

/* The run's failed Binder transaction of a payload too large, near its
 * death: a binder_failed line of its pid that names the exception or a
 * parcel past BINDER_LARGE_BYTES within BINDER_NEAR_DEATH_MS before it,
 * or its Java crash that is the exception; *at its index in cr->logs. */
static const struct log_event *binder_too_large(const struct corr_run *cr, size_t *at)
{
	const struct log_event *j = classify_java_crash(cr);
	int64_t death = death_ms(cr);
	size_t i;

	for (i = 0; i < cr->logs.n; i++) {
		const struct log_event *e = LOGS(cr, i);
		int64_t t = cr->logs.v[i].time_utc_ms;

		if (e->type != LOG_BINDER_FAILED || t == EV_NO_TIME || t < death - BINDER_NEAR_DEATH_MS ||
		    !((e->reason && strstr(e->reason, "TransactionTooLargeException")) ||
		      e->parcel_bytes > BINDER_LARGE_BYTES))
			continue;
		*at = i;
		return e;
	}
	if (j && j->reason && strstr(j->reason, "TransactionTooLargeException")) {
		for (i = 0; LOGS(cr, i) != j; i++)
			;
		*at = i;
		return j;
	}
	return NULL;
}

/*
 * trap: JavaBinder's FAILED BINDER TRANSACTION of a parcel over 200 KB, or a
 * TransactionTooLargeException, of this pid within 10 s before the death: the payload passed
 * Binder's 1 MB transaction buffer; pass large payloads through SharedMemory (ashmem) or a file
 * descriptor; the candidate is not blamed
 */
static int rule_binder_too_large(const struct corr_run *cr, const struct run_facts *f,
				 struct verdict *v)
{
	size_t at;
	const struct log_event *e = binder_too_large(cr, &at);
	int64_t t;

	(void)f;
	if (!e)
		return 0;
	t = cr->logs.v[at].time_utc_ms;
	if (t != EV_NO_TIME)
		evidence(v, "logcat (line %zu): %s, %.1f s before the death", e->line,
			 e->reason ? e->reason : "a failed Binder transaction",
			 (double)(death_ms(cr) - t) / 1000.0);
	else
		evidence(v, "logcat (line %zu): %s", e->line, e->reason ? e->reason : "");
	if (e->parcel_bytes > 0)
		evidence(v, "a Binder transaction of %" PRId64 " bytes: past the 1 MB buffer that a "
			    "process's Binder calls share; the payload, not the candidate, failed",
			 e->parcel_bytes);
	else
		evidence(v, "a Binder transaction too large: past the 1 MB buffer that a process's "
			    "Binder calls share; the payload, not the candidate, failed");
	return 1;
}

/* How long after a ring's last record system_server's watchdog may have
 * ended it (it kills after a minute blocked; a quiet ring may end before). */
#define SYSTEM_WATCHDOG_WINDOW_MS 60000

/* system_server's watchdog killing the system process while the run
 * lived: after its last record (within the tolerance), at most
 * SYSTEM_WATCHDOG_WINDOW_MS after it, and no exit record of it older than
 * the line (a death recorded before the restart was another's). */
static const struct log_event *system_watchdog(const struct corr_run *cr)
{
	size_t i, k;

	for (i = 0; i < cr->logs.n; i++) {
		int64_t t = cr->logs.v[i].time_utc_ms;
		int older = 0;

		if (LOGS(cr, i)->type != LOG_WATCHDOG_KILL || t == EV_NO_TIME ||
		    t < cr->last_ms - CORR_DEFAULT_TOLERANCE_MS || t > cr->last_ms + SYSTEM_WATCHDOG_WINDOW_MS)
			continue;
		for (k = 0; k < cr->exits.n; k++)
			older |= cr->exits.v[k].time_utc_ms != EV_NO_TIME &&
				 cr->exits.v[k].time_utc_ms < t - CORR_DEFAULT_TOLERANCE_MS;
		if (!older)
			return LOGS(cr, i);
	}
	return NULL;
}

/*
 * trap: system_server's Watchdog killing the system process (logcat '*** WATCHDOG KILLING SYSTEM
 * PROCESS') within a minute after the ring's last record: every app process dies with
 * system_server; a system event, not the app's fault: system reclaim
 */
static int rule_system_watchdog(const struct corr_run *cr, const struct run_facts *f,
				struct verdict *v)
{
	const struct log_event *e = system_watchdog(cr);

	(void)f;
	if (!e)
		return 0;
	evidence(v, "logcat (line %zu): WATCHDOG KILLING SYSTEM PROCESS%s%s", e->line,
		 e->reason ? ": " : "", e->reason ? e->reason : "");
	evidence(v, "system_server's watchdog killed the system process, and every app process died "
		    "with it: a system event, not this process's fault");
	claim(v, SRC_CRASH_LOG, LW_EXIT_SYSTEM_RECLAIM, 0);
	return 1;
}

/* How near before its exit an app's watchdog line tells it (rule
 * app-watchdog), with the clock tolerance. */
#define APP_WATCHDOG_NEAR_MS (10000 + CORR_DEFAULT_TOLERANCE_MS)

/* The app's own watchdog ending the run: an exit record that says the
 * process was signaled (and lmkd did not kill it) or exited with a status
 * not 0, and within APP_WATCHDOG_NEAR_MS before it a line of the process
 * itself, of a tag naming a watchdog, that says it kills, aborts or exits
 * (evidence.h, app_watchdog). The record into *rec when not NULL. */
static const struct log_event *app_watchdog(const struct corr_run *cr,
					    const struct exit_record **rec)
{
	size_t i, k;

	for (k = 0; k < cr->exits.n; k++) {
		const struct exit_record *r = EXITS(cr, k);
		int64_t when = cr->exits.v[k].time_utc_ms;

		if (!((r->reason == EXIT_REASON_SIGNALED && !lmkd_kill(cr)) ||
		      (r->reason == EXIT_REASON_EXIT_SELF && r->status != 0)))
			continue;
		if (when == EV_NO_TIME)
			when = cr->last_ms;
		for (i = 0; i < cr->logs.n; i++) {
			int64_t t = cr->logs.v[i].time_utc_ms;

			if (LOGS(cr, i)->type != LOG_APP_WATCHDOG || t == EV_NO_TIME ||
			    t < when - APP_WATCHDOG_NEAR_MS || t > when + CORR_DEFAULT_TOLERANCE_MS)
				continue;
			if (rec)
				*rec = r;
			return LOGS(cr, i);
		}
	}
	return NULL;
}

/*
 * trap: the app's own watchdog killed the process: an exit record SIGNALED (no lmkd line) or
 * EXIT_SELF with a status, and within 10 s before it a line of the process itself, of a tag naming
 * a watchdog, that says it kills, aborts or exits: a hang the app saw in the stage open at death;
 * anr on the app's word alone (it suggests, never confirms)
 */
static int rule_app_watchdog(const struct corr_run *cr, const struct run_facts *f,
			     struct verdict *v)
{
	const struct exit_record *r = NULL;
	const struct log_event *e = app_watchdog(cr, &r);
	const char *stage = vocab_name(&vocab_stages, (int)f->open_stage);

	if (!e)
		return 0;
	exit_evidence(v, r, NULL);
	evidence(v, "logcat (line %zu): its own watchdog killed it: %s", e->line,
		 e->reason ? e->reason : "");
	if (f->outcome == RING_OUTCOME_NO_RING) {
		evidence(v, "what the watchdog was waiting on is unknown: no ring");
		missing(v, "the stack of the thread the watchdog waited on, logged before it kills");
	} else if (f->open_stage == LW_STAGE_NONE) {
		evidence(v, "the watchdog was waiting on no stage the ring shows open");
		missing(v, "the stack of the thread the watchdog waited on, logged before it kills");
	} else {
		char what[VERDICT_MISSING_MAX];

		evidence(v, "the watchdog was waiting on %s, the stage open at death", stage);
		snprintf(what, sizeof(what), "the stack of the thread running %s when the watchdog "
					     "fired, logged before it kills", stage);
		missing(v, what);
	}
	/* The app's own word, like its ring: it suggests, never confirms. */
	claim(v, SRC_RING, LW_EXIT_ANR, 1);
	return 1;
}

/* ActivityManager killed it as an empty or cached process */
static int rule_am_trim(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	size_t i;

	(void)f;
	for (i = 0; i < cr->logs.n; i++) {
		const struct log_event *e = LOGS(cr, i);

		if ((e->type == LOG_AM_KILLING || e->type == LOG_EV_AM_KILL) && e->reason &&
		    (strstr(e->reason, "empty") || strstr(e->reason, "cached"))) {
			evidence(v, "ActivityManager trimmed it (line %zu): %s", e->line, e->reason);
			claim(v, SRC_AM_KILL, LW_EXIT_SYSTEM_RECLAIM, 0);
			return 1;
		}
	}
	return 0;
}

/* The marks that count what ran at once: more than one of any of them
 * at death is concurrency (rule concurrency-at-death): sessions, queued
 * requests, tasks executing. A mark of the same kind is one more row. */
static const enum lw_mark concurrency_marks[] = { LW_MARK_SESSIONS, LW_MARK_QUEUE_DEPTH,
						    LW_MARK_IN_FLIGHT };
#define NCONCURRENCY (sizeof(concurrency_marks) / sizeof(concurrency_marks[0]))

/* A session whose model is resident: open, with a candidate. */
static int session_resident(const struct ring_session *s)
{
	return s->state == LW_SESSION_OPEN && s->candidate;
}

/* Each concurrency mark's value at death, its last in the ring (-1: none
 * is left), and those values as text ("sessions 2, queue_depth
 * unknown") into buf; when the app opens sessions, the models resident by
 * the session table too ("models resident 2"). Returns the largest value,
 * -1 when none is known. */
static int64_t concurrency_at_death(const struct run *r, char *buf, size_t n)
{
	int64_t val[NCONCURRENCY], most = -1;
	size_t i, k, len = 0;

	for (k = 0; k < NCONCURRENCY; k++)
		val[k] = -1;
	for (i = 0; i < r->nevents; i++)
		for (k = 0; k < NCONCURRENCY; k++)
			if (r->events[i].type == LW_EV_MARK && r->events[i].code == concurrency_marks[k])
				val[k] = r->events[i].a > INT64_MAX ? INT64_MAX : (int64_t)r->events[i].a;
	buf[0] = '\0';
	for (k = 0; k < NCONCURRENCY; k++) {
		int w = val[k] < 0 ? snprintf(buf + len, n - len, "%s%s unknown", k ? ", " : "",
					      vocab_name(&vocab_marks, (int)concurrency_marks[k]))
				   : snprintf(buf + len, n - len, "%s%s %" PRId64, k ? ", " : "",
					      vocab_name(&vocab_marks, (int)concurrency_marks[k]), val[k]);

		if (w > 0)
			len = len + (size_t)w < n ? len + (size_t)w : n - 1;
		if (val[k] > most)
			most = val[k];
	}
	if (sessions_used(r)) {
		int64_t resident = 0;

		for (k = 0; k < r->nsessions; k++)
			resident += session_resident(&r->sessions[k]);
		snprintf(buf + len, n - len, ", models resident %" PRId64, resident);
		if (resident > most)
			most = resident;
	}
	return most;
}

/*
 * the ring's last sessions, queue_depth or in_flight mark, or its session table's resident models,
 * says more than one ran or waited at death: only then is reduce_concurrency advised
 */
static int rule_concurrency_at_death(const struct corr_run *cr, const struct run_facts *f,
				     struct verdict *v)
{
	char what[96];

	(void)f;
	if (concurrency_at_death(cr->run, what, sizeof(what)) <= 1)
		return 0;
	evidence(v, "more than one at once at death: %s", what);
	return 1;
}

/* The two sessions of a switch in progress at death, into *opening and
 * *old: two resident sessions of different candidates, one opening (an
 * early stage open) or opened with no stage yet while the other unloads
 * (its exit stage open), the other still resident, its unload pending.
 * Returns 0 when there is none. */
static int switch_at_death(const struct run *r, const struct ring_session **opening,
			   const struct ring_session **old)
{
	size_t a, b;

	for (a = 0; a < r->nsessions; a++)
		for (b = 0; b < r->nsessions; b++) {
			const struct ring_session *x = &r->sessions[a], *y = &r->sessions[b];

			if (a == b || !session_resident(x) || !session_resident(y) ||
			    x->candidate == y->candidate)
				continue;
			if (vocab_stage_early(x->open_stage) ||
			    (x->open_stage == LW_STAGE_NONE && y->open_count[LW_STAGE_EXIT])) {
				*opening = x;
				*old = y;
				return 1;
			}
		}
	return 0;
}

/* Whether the claims so far make it a memory death: one claims low
 * memory, and none claims another class but as a suspicion. */
static int memory_claims(const struct verdict *v)
{
	size_t i;
	int memory = 0;

	for (i = 0; i < v->nclaims; i++) {
		if (v->claims[i].source == SRC_PEER)
			continue;
		if (v->claims[i].cls == LW_EXIT_LOW_MEMORY)
			memory = 1;
		else if (!v->claims[i].weak)
			return 0;
	}
	return memory;
}

/*
 * trap: a switch in progress at a memory death, a session loading one candidate while another still
 * held a different one: the death is the overlap's, not the candidate's; unload first
 */
static int rule_switch_overlap(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	const struct ring_session *opening, *old;
	char a[24], b[24];

	/* A memory trap: on a crash the overlap is not the death's account. */
	if (!run_facts_died(f) || !memory_claims(v) || !switch_at_death(cr->run, &opening, &old))
		return 0;
	fmt_digest(a, sizeof(a), opening->candidate);
	fmt_digest(b, sizeof(b), old->candidate);
	evidence(v, "a switch in progress at death: session %u loading %s (%s) while session %u "
		    "still held %s (%s): both resident at once",
		 opening->id, a,
		 opening->open_stage ? vocab_name(&vocab_stages, (int)opening->open_stage)
				     : "opened, no stage yet",
		 old->id, b,
		 old->open_count[LW_STAGE_EXIT] ? "its unload begun, exit open"
		 : old->open_stage ? vocab_name(&vocab_stages, (int)old->open_stage)
				   : "no stage open");
	return 1;
}

/* The key of the cache being rebuilt at death into *key: the ring's last
 * cache mark is a rebuild, and a cache stage is still open in some
 * session. Returns 0 when there is none. */
static int rebuild_at_death(const struct run *r, uint64_t *key)
{
	const struct lw_ring_slot *last = NULL;
	size_t i, open = 0;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].type == LW_EV_MARK && r->events[i].code == LW_MARK_CACHE)
			last = &r->events[i];
	for (i = 0; i < r->nsessions; i++)
		open += r->sessions[i].open_count[LW_STAGE_CACHE];
	if (!last || last->a != LW_CACHE_REBUILD || !open)
		return 0;
	*key = last->b;
	return 1;
}

/*
 * the ring's last cache mark is a rebuild and the cache stage was open at death: the cache may be
 * half written; clear_rebuildable_cache
 */
static int rule_cache_rebuild_at_death(const struct corr_run *cr, const struct run_facts *f,
				       struct verdict *v)
{
	char key[24];
	uint64_t k;

	if (!run_facts_died(f) || !rebuild_at_death(cr->run, &k))
		return 0;
	fmt_digest(key, sizeof(key), k);
	evidence(v, "ring: the cache of key %s was being rebuilt at death (its last cache mark is a "
		    "rebuild, the cache stage still open): what it wrote may be half done",
		 key);
	return 1;
}

/* Stages and sessions begun and never ended, listed at most this many. */
#define UNPAIRED_LINES 4

/*
 * a clean run with a stage or a session begun and never ended: a finding for leak investigation,
 * not a death; it is listed on clean runs too
 */
static int rule_unpaired_stage(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	const struct run *r = cr->run;
	size_t k, lines = 0, more = 0;
	int st;

	if (f->outcome != RING_OUTCOME_CLEAN)
		return 0;
	for (k = 0; k < r->nsessions; k++) {
		const struct ring_session *s = &r->sessions[k];
		char cand[24] = "none";

		if (s->candidate)
			fmt_digest(cand, sizeof(cand), s->candidate);
		if (s->id != 0 && s->state == LW_SESSION_OPEN) {
			if (lines++ >= UNPAIRED_LINES)
				more++;
			else
				evidence(v, "ring: session %u (candidate %s) was opened and never closed "
					    "before the clean exit",
					 s->id, cand);
		}
		for (st = 1; st < LW_RING_STAGE_SLOTS; st++) {
			if (!s->open_count[st])
				continue;
			if (lines++ >= UNPAIRED_LINES)
				more++;
			else if (s->open_count[st] == 1)
				evidence(v, "ring: %s was begun and never ended in session %u (candidate "
					    "%s) before the clean exit",
					 vocab_name(&vocab_stages, st), s->id, cand);
			else
				evidence(v, "ring: %s was begun %u times more than it ended in session "
					    "%u (candidate %s) before the clean exit",
					 vocab_name(&vocab_stages, st), s->open_count[st], s->id, cand);
		}
	}
	if (!lines)
		return 0;
	if (more)
		evidence(v, "ring: and %zu more stages or sessions never ended", more);
	evidence(v, "a finding for leak investigation, not a death: what was begun and never "
		    "ended may still hold its memory, files or delegate");
	return 1;
}

/* the ring holds the probe's crash record */
static int rule_ring_crash_record(const struct corr_run *cr, const struct run_facts *f,
				  struct verdict *v)
{
	(void)cr;
	if (f->outcome != RING_OUTCOME_CRASHED)
		return 0;
	evidence(v, "ring: the probe's crash handler recorded %s in %s",
		 signal_name(f->crash_signo) ? signal_name(f->crash_signo) : "a fatal signal",
		 vocab_name(&vocab_stages, (int)f->open_stage));
	claim(v, SRC_RING, LW_EXIT_NATIVE_CRASH, 0);
	return 1;
}

/* the ring shows memory over budget at death: suggests low memory, never confirms */
static int rule_ring_memory_pressure(const struct corr_run *cr, const struct run_facts *f,
				     struct verdict *v)
{
	char peak[24], budget[24], kinds[80];

	(void)cr;
	/* Over by the budget's measure: an RSS made of file-backed pages the
	 * kernel could drop is not (run.h, struct run_facts). */
	if (f->outcome != RING_OUTCOME_DIED || !f->over_budget)
		return 0;
	fmt_kb(peak, sizeof(peak), f->measured_peak_kb);
	fmt_kb(budget, sizeof(budget), f->budget_kb);
	if (f->budget_measure == RUN_BUDGET_OWN)
		run_memory_kinds_text(f->measured_kinds, 1, kinds, sizeof(kinds));
	else
		snprintf(kinds, sizeof(kinds), "rss");
	evidence(v, "ring: %s reached %s against a budget of %s", kinds, peak, budget);
	claim(v, SRC_RING, LW_EXIT_LOW_MEMORY, 1);
	return 1;
}

/* How shortly before the ring's last record a stage's alloc_failed counts
 * as memory evidence of the death (rule alloc-failed). */
#define ALLOC_FAILED_WINDOW_NS 10000000000ull

/* The last stage that ended with alloc_failed within the window before
 * the ring's last record, or NULL. */
static const struct lw_ring_slot *alloc_failed_end(const struct run *r)
{
	const struct lw_ring_slot *last;
	size_t i;

	if (!r->nevents)
		return NULL;
	last = &r->events[r->nevents - 1];
	for (i = r->nevents; i-- > 0;) {
		const struct lw_ring_slot *e = &r->events[i];

		if (e->t_mono_ns + ALLOC_FAILED_WINDOW_NS < last->t_mono_ns)
			break;
		if (e->type == LW_EV_STAGE_END && e->code == LW_ERR_ALLOC_FAILED)
			return e;
	}
	return NULL;
}

/* Whether the run's Java crash is an OutOfMemoryError, by its logcat or
 * event log line, or else by its APP CRASH(EXCEPTION) record's
 * description; if so, where that is said into where. */
static int java_oom(const struct corr_run *cr, char *where, size_t n)
{
	size_t i;

	for (i = 0; i < cr->logs.n; i++) {
		const struct log_event *e = LOGS(cr, i);

		if ((e->type == LOG_JAVA_CRASH ||
		     (e->type == LOG_EV_AM_CRASH && !log_event_native_crash(e))) &&
		    e->reason && strstr(e->reason, "OutOfMemoryError")) {
			snprintf(where, n, "%s line %zu",
				 e->type == LOG_EV_AM_CRASH ? "event log" : "logcat", e->line);
			return 1;
		}
	}
	for (i = 0; i < cr->exits.n; i++) {
		const struct exit_record *r = EXITS(cr, i);

		if (r->reason == EXIT_REASON_CRASH && r->description &&
		    strstr(r->description, "OutOfMemoryError")) {
			snprintf(where, n, "its exit record's description");
			return 1;
		}
	}
	return 0;
}

/*
 * a stage ended with alloc_failed within 10 s of the ring's last record, or the Java crash is an
 * OutOfMemoryError: app-side memory evidence, it supports, never confirms; a Java crash keeps its
 * class and gets the memory steps too
 */
static int rule_alloc_failed(const struct corr_run *cr, const struct run_facts *f,
			     struct verdict *v)
{
	const struct lw_ring_slot *e = NULL, *last;
	char where[48];
	int oom = java_oom(cr, where, sizeof(where));

	if (f->outcome == RING_OUTCOME_DIED || f->outcome == RING_OUTCOME_CRASHED)
		e = alloc_failed_end(cr->run);
	if (!e && !oom)
		return 0;
	if (e) {
		last = &cr->run->events[cr->run->nevents - 1];
		evidence(v, "ring: %s ended with alloc_failed %.1f s before its last record",
			 vocab_name(&vocab_stages, (int)e->stage),
			 (double)(last->t_mono_ns - e->t_mono_ns) / 1e9);
		claim(v, SRC_RING, LW_EXIT_LOW_MEMORY, 1);
	}
	if (oom)
		evidence(v, "the Java crash is an OutOfMemoryError (%s): the app ran out of memory", where);
	return 1;
}

/* How far the memory may stay above its level before a failed stage when
 * the retry or the fallback begins, and still count as given back (rule
 * retry-without-release): 8 MiB, or a tenth of that level when more. The
 * samples of one process move by a few MiB between two stage boundaries
 * with nothing held. */
#define RELEASE_TOLERANCE_KB 8192
#define RELEASE_TOLERANCE_SHARE 10

/* Two resident sets at once (rule two-resident-sets): the new attempt
 * reached at least 3/2 of the failed attempt's growth above the level
 * before it, "about double" with the new attempt's own growth only half
 * the failed one's. */
#define TWO_SETS_NUM 3
#define TWO_SETS_DEN 2

/* The failed stages looked at, the newest first. */
#define FAILED_PATHS_MAX 8

/* A stage that failed and what came after it in its session: the indexes
 * of the failed stage's begin and end, and of the next attempt, a retry
 * (the same stage begun again) or a fallback (a fallback mark, then the
 * first stage the session begins, or the mark itself when none follows);
 * the memory at the begin, at the end and at the next attempt, and the
 * most in the next attempt (up to its end, or the ring's), in kB, by the
 * own measure (anon + shmem + swap + graphics) when a composition tells
 * the level before and a newer one the level at the next attempt, else by
 * the RSS samples of those records. */
struct failed_path {
	size_t begin, end, next;
	const struct lw_ring_slot *fallback; /* the fallback mark, or NULL: a retry */
	int own;
	int64_t before_kb, failed_kb, next_kb, second_kb;
};

/* The next attempt after the failed stage ending at record end, into
 * *next (and the fallback mark into *fb): 0 when there is none, or its
 * session closed first (what it held went with it). */
static int next_attempt(const struct run *r, size_t end, size_t *next,
			const struct lw_ring_slot **fb)
{
	const struct lw_ring_slot *e = &r->events[end];
	size_t j;

	*fb = NULL;
	for (j = end + 1; j < r->nevents; j++) {
		const struct lw_ring_slot *x = &r->events[j];

		if (x->type == LW_EV_SESSION_CLOSE && x->d == e->d)
			return 0;
		if (x->type == LW_EV_MARK && x->code == LW_MARK_FALLBACK && !*fb)
			*fb = x;
		if (x->type == LW_EV_STAGE_BEGIN && x->d == e->d && (x->stage == e->stage || *fb)) {
			*next = j;
			return 1;
		}
	}
	if (!*fb)
		return 0;
	*next = (size_t)(*fb - r->events);
	return 1;
}

/* The levels of p (struct failed_path), its indexes set: 0 when the ring
 * gives no level before or at the next attempt. */
static int failed_path_levels(const struct run *r, struct failed_path *p)
{
	struct run_memory m;
	size_t i, stop = r->nevents - 1, comp = r->nevents;
	int64_t own[3] = { -1, -1, -1 }, most = -1, x;
	size_t fresh[3] = { 0, 0, 0 };
	unsigned kinds;

	if (r->events[p->next].type == LW_EV_STAGE_BEGIN)
		for (i = p->next + 1; i < r->nevents; i++)
			if (r->events[i].type == LW_EV_STAGE_END &&
			    r->events[i].stage == r->events[p->next].stage &&
			    r->events[i].d == r->events[p->next].d) {
				stop = i;
				break;
			}
	run_memory_unknown(&m);
	for (i = 0; i <= stop; i++) {
		if (run_memory_apply(&m, &r->events[i]))
			comp = i;
		x = run_memory_own(&m, &kinds);
		if (i == p->begin || i == p->end || i == p->next) {
			int k = i == p->begin ? 0 : i == p->end ? 1 : 2;

			own[k] = x;
			fresh[k] = comp;
		}
		if (i >= p->next && comp != r->nevents && comp >= p->next && x > most)
			most = x;
	}
	p->own = own[0] >= 0 && own[2] >= 0 && fresh[2] != r->nevents && fresh[2] > p->end;
	if (p->own) {
		p->before_kb = own[0];
		p->next_kb = own[2];
		p->failed_kb = own[1] >= 0 && fresh[1] != r->nevents && fresh[1] > p->begin ? own[1] : -1;
		p->second_kb = most > own[2] ? most : own[2];
		return 1;
	}
	p->before_kb = r->events[p->begin].rss_kb;
	p->failed_kb = r->events[p->end].rss_kb ? (int64_t)r->events[p->end].rss_kb : -1;
	p->next_kb = r->events[p->next].rss_kb;
	p->second_kb = p->next_kb;
	for (i = p->next; i <= stop; i++)
		if ((int64_t)r->events[i].rss_kb > p->second_kb)
			p->second_kb = r->events[i].rss_kb;
	return p->before_kb > 0 && p->next_kb > 0;
}

/* The tolerance of rule retry-without-release above level kb. */
static int64_t release_tolerance(int64_t kb)
{
	return kb / RELEASE_TOLERANCE_SHARE > RELEASE_TOLERANCE_KB ? kb / RELEASE_TOLERANCE_SHARE
								   : RELEASE_TOLERANCE_KB;
}

/* The newest failed stage of r (one of the last FAILED_PATHS_MAX) retried
 * or fallen back from while the memory stayed above its level before it by
 * more than the tolerance, into *p. Returns 0 when there is none. */
static int failed_path_find(const struct run *r, struct failed_path *p)
{
	size_t i, b, looked = 0;

	for (i = r->nevents; i-- > 0 && looked < FAILED_PATHS_MAX;) {
		const struct lw_ring_slot *e = &r->events[i];

		if (e->type != LW_EV_STAGE_END || e->code == LW_ERR_NONE || e->code == LW_ERR_CANCELLED)
			continue;
		looked++;
		for (b = i; b-- > 0;)
			if (r->events[b].type == LW_EV_STAGE_BEGIN && r->events[b].stage == e->stage &&
			    r->events[b].d == e->d)
				break;
		if (b == SIZE_MAX)
			continue; /* its begin is not in the ring */
		memset(p, 0, sizeof(*p));
		p->begin = b;
		p->end = i;
		if (!next_attempt(r, i, &p->next, &p->fallback) || !failed_path_levels(r, p))
			continue;
		if (p->next_kb - p->before_kb > release_tolerance(p->before_kb))
			return 1;
	}
	return 0;
}

/* The delegate that the ring's last delegate mark at or before record
 * upto names, or NULL. */
static const char *delegate_at(const struct run *r, size_t upto)
{
	size_t i;

	for (i = upto + 1; i-- > 0;)
		if (r->events[i].type == LW_EV_MARK && r->events[i].code == LW_MARK_DELEGATE)
			return r->events[i].a <= 255 ? vocab_name(&vocab_delegates, (int)r->events[i].a)
						     : NULL;
	return NULL;
}

/* The failed stage of p as text: "delegate_prepare (gpu) ended with
 * delegate_error" and " in session 2" where the app opens sessions. */
static void failed_text(const struct run *r, const struct failed_path *p, char *buf, size_t n)
{
	const struct lw_ring_slot *e = &r->events[p->end];
	const char *delegate = delegate_at(r, p->end);
	int w;

	w = snprintf(buf, n, "%s%s%s%s ended with %s", vocab_name(&vocab_stages, (int)e->stage),
		     delegate ? " (" : "", delegate ? delegate : "", delegate ? ")" : "",
		     vocab_name(&vocab_errors, (int)e->code));
	if (w > 0 && (size_t)w < n && sessions_used(r))
		snprintf(buf + w, n - (size_t)w, " in session %u", e->d);
}

/* The next attempt of p as text: "the fallback to cpu" or "its retry". */
static void next_text(const struct failed_path *p, char *buf, size_t n)
{
	if (!p->fallback)
		snprintf(buf, n, "its retry");
	else if (p->fallback->a && p->fallback->a <= 255)
		snprintf(buf, n, "the fallback to %s", vocab_name(&vocab_delegates, (int)p->fallback->a));
	else
		snprintf(buf, n, "the fallback");
}

/*
 * a stage that failed (it ended with an error other than cancelled) and was begun again in its
 * session, or fell back (a fallback mark), while the memory when the retry or fallback began
 * stayed above its level before the failed stage began by more than 8 MiB or a tenth of that level
 * (the own memory where compositions tell both, else the RSS): the failed path was not released;
 * the advice releases it first, and the candidate is not blamed for what it kept; it is listed on
 * clean runs too
 */
static int rule_retry_without_release(const struct corr_run *cr, const struct run_facts *f,
				      struct verdict *v)
{
	struct failed_path p;
	char failed[96], next[40], before[24], at[24], kept[24], tol[24];

	(void)f;
	if (!failed_path_find(cr->run, &p))
		return 0;
	failed_text(cr->run, &p, failed, sizeof(failed));
	next_text(&p, next, sizeof(next));
	fmt_kb(before, sizeof(before), (uint64_t)p.before_kb);
	fmt_kb(at, sizeof(at), (uint64_t)p.next_kb);
	fmt_kb(kept, sizeof(kept), (uint64_t)(p.next_kb - p.before_kb));
	fmt_kb(tol, sizeof(tol), (uint64_t)release_tolerance(p.before_kb));
	evidence(v, "ring: %s; %s began at %s (%s), %s above the %s before it began (tolerance %s): "
		    "the failed path was not released",
		 failed, next, at, p.own ? "own memory" : "rss", kept, before, tol);
	return 1;
}

/*
 * after such a retry or fallback (rule retry-without-release), the new attempt reached at least
 * 1.5 times the failed attempt's growth above the level before it: two resident sets of the
 * delegate or model at once; told by the memory, as the ring records no release of a delegate to
 * pair its delegate marks with; it is listed on clean runs too
 */
static int rule_two_resident_sets(const struct corr_run *cr, const struct run_facts *f,
				  struct verdict *v)
{
	struct failed_path p;
	char next[40], grew[24], most[24], above[24];
	int64_t growth;

	(void)f;
	if (!failed_path_find(cr->run, &p) || p.failed_kb < 0)
		return 0;
	growth = p.failed_kb - p.before_kb;
	if (growth <= release_tolerance(p.before_kb) ||
	    (p.second_kb - p.before_kb) * TWO_SETS_DEN < growth * TWO_SETS_NUM)
		return 0;
	next_text(&p, next, sizeof(next));
	fmt_kb(grew, sizeof(grew), (uint64_t)growth);
	fmt_kb(most, sizeof(most), (uint64_t)p.second_kb);
	fmt_kb(above, sizeof(above), (uint64_t)(p.second_kb - p.before_kb));
	evidence(v, "ring: two resident sets at once: the failed %s kept the %s it grew, and %s "
		    "reached %s (%s), %s above the level before it",
		 vocab_name(&vocab_stages, (int)cr->run->events[p.end].stage), grew, next, most,
		 p.own ? "own memory" : "rss", above);
	return 1;
}

/*
 * the main process saw this process die (its peer_died mark, lw_peer_died(3)): the time of death,
 * which narrows the window of its evidence; app-side, it supports the ring's account, never
 * confirms
 */
static int rule_peer_died(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct run *w = cr->peer.witness;
	const char *file;
	char when[40], after[64] = "";

	(void)f;
	if (!w)
		return 0;
	file = strrchr(w->path, '/') ? strrchr(w->path, '/') + 1 : w->path;
	fmt_iso(when, sizeof(when), ring_event_real_ns(&w->hdr, &w->events[cr->peer.event]));
	if (cr->run->ring != RUN_RING_NONE && cr->peer.time_ms >= cr->last_ms)
		snprintf(after, sizeof(after), ", %" PRId64 " ms after its last record",
			 cr->peer.time_ms - cr->last_ms);
	else if (cr->run->ring != RUN_RING_NONE)
		snprintf(after, sizeof(after), ", at its last record (within the clock tolerance)");
	evidence(v, "peer_died: %s (pid %u) saw it die by %s%s (ring %s)", w->hdr.process,
		 w->hdr.pid, when, after, file);
	claim(v, SRC_PEER, LW_EXIT_UNKNOWN, 1);
	return 1;
}

/*
 * a run of the seed's events (no probe ring): its exit_reason is the app's own label; it suggests,
 * never confirms
 */
static int rule_seed_exit_reason(const struct corr_run *cr, const struct run_facts *f,
				 struct verdict *v)
{
	(void)f;
	if (!cr->run->seed_exit_class)
		return 0;
	evidence(v, "seed events: the app's own exit_reason is %s (no pid or time to join "
		    "system evidence)",
		 vocab_name(&vocab_exit_classes, cr->run->seed_exit_class));
	claim(v, SRC_RING, (enum lw_exit_class)cr->run->seed_exit_class, 0);
	return 1;
}

/*
 * a ring-less run: a death only the system's evidence tells, judged by the same rules; its stage,
 * candidate and memory are unknown
 */
static int rule_no_ring(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	char what[160];

	(void)f;
	if (cr->run->ring != RUN_RING_NONE)
		return 0;
	if (cr->no_ring == CORR_OTHER_VERSION)
		snprintf(what, sizeof(what), "the record is of app version %" PRIu64
					     ", not that of the rings", cr->run->hdr.app_version);
	else
		snprintf(what, sizeof(what), "%s", corr_reason_text(cr->no_ring));
	missing(v, "the probe's ring: none joined this death; link liblastwords for the stage, "
		   "candidate and memory");
	evidence(v, "a ring-less run: %s", what);
	return 1;
}

/* no exit record joined this run: the system's own record of its death is missing */
static int rule_no_exit_record(const struct corr_run *cr, const struct run_facts *f,
			       struct verdict *v)
{
	if (cr->exits.n || f->outcome == RING_OUTCOME_CLEAN)
		return 0;
	missing(v, "the exit record of this pid (dumpsys activity exit-info, or the app's export)");
	return 1;
}

/*
 * The rules, in the order they run. The order is part of the output: a
 * verdict lists its rules, its evidence and its missing lines in it. It
 * also breaks ties in decide(), which reads the claims in that order:
 *   - among the classes that the most distinct system sources claim, the
 *     class of the first claim that is a system source's and not weak wins
 *     if it is one of them, else the lowest class value. Such a tie still
 *     makes the verdict unknown (the sources disagree): the order decides
 *     only which class the contradiction names first;
 *   - when no system source claims a class without being weak, the first
 *     claim of the ring that is not weak gives the class, else the first
 *     weak claim, the ring's or a system source's; it is supported when
 *     peer-died fired (the main process saw the death) and the class is
 *     the ring's, else unconfirmed.
 * A row with a function decides in it (rule_<id>). A row of the common
 * shape "an exit record of reason R (subreason S) claims class C" has no
 * function: exit_row_fire() reads its exit.
 */
const struct rule rules[] = {
	{ "aei-low-memory", "an exit record says LOW_MEMORY: lmkd reported the kill",
	  .fire = rule_aei_low_memory },
	{ "oem-cleaner-fgs", "trap: LOW_MEMORY at importance 125 with no lmkd line is how OEM cleaners kill foreground services; it suggests, never confirms",
	  .fire = rule_oem_cleaner_fgs },
	{ "lmk-as-signaled", "trap: SIGNALED/9 with an lmkd kill line is a low-memory kill on a device without LMK reporting",
	  .fire = rule_lmk_as_signaled },
	{ "signaled-unknown-sender", "SIGNALED without an lmkd line: killed, by a sender nobody names; the cause stays unknown",
	  .fire = rule_signaled_unknown_sender },
	{ "lmkd-kill", "lmkd's kill line (logcat or killinfo) names this pid",
	  .fire = rule_lmkd_kill },
	{ "cached-reclaim", "trap: a low-memory kill (lmkd, or AM's record) of a cached or background process (importance 400 and up) with no stage open is system reclaim, not the candidate's fault; with a stage open it stays low memory",
	  .fire = rule_cached_reclaim },
	{ "memory-victim", "a low-memory kill while the system was short of memory (lmkd's kill reason, the process's pressure records, or it was cached or in the background) of a process the ring shows within its budget and not growing at death: a victim of the shortage, not the candidate's growth; the candidate is not blamed and the recovery is the reclaim's",
	  .fire = rule_memory_victim },
	{ "memory-limiter", "trap: MemoryLimiter kills, as OTHER with a MemoryLimiter: description or as reason 17, are low memory",
	  .fire = rule_memory_limiter },
	{ "trim-cached-empty", "trap: OTHER with subreason 2 to 4 is the system trimming cached and empty processes, not a failure",
	  .exit = { .reason = EXIT_REASON_OTHER, .subreasons = TRIM_SUBREASONS,
		    .cls = LW_EXIT_SYSTEM_RECLAIM, .what = "OTHER: cached or empty process trimmed" } },
	{ "freezer", "trap: FREEZER kills a frozen cached process: system reclaim",
	  .exit = { .reason = EXIT_REASON_FREEZER, .cls = LW_EXIT_SYSTEM_RECLAIM } },
	{ "dependency-died", "trap: DEPENDENCY_DIED: the process died because the one it depends on died; look at that one",
	  .fire = rule_dependency_died, .across = rule_dependency_died_across },
	{ "other-system-kill", "OTHER, user, package or permission changes, excessive use: the system or the user ended it",
	  .fire = rule_other_system_kill },
	{ "aei-crash-native", "an exit record says APP CRASH(NATIVE)",
	  .exit = { .reason = EXIT_REASON_CRASH_NATIVE, .cls = LW_EXIT_NATIVE_CRASH,
		    .witness = has_tombstone,
		    .absent = "the tombstone (/data/tombstones, or the record's trace)" } },
	{ "aei-crash-java", "an exit record says APP CRASH(EXCEPTION)",
	  .exit = { .reason = EXIT_REASON_CRASH, .cls = LW_EXIT_JAVA_CRASH, .witness = has_java_stack,
		    .absent = "the exception's stack (logcat FATAL EXCEPTION or am_crash)" } },
	{ "aei-anr", "an exit record says ANR",
	  .exit = { .reason = EXIT_REASON_ANR, .cls = LW_EXIT_ANR } },
	{ "anr-null-trace", "trap: an ANR record with trace=null: the ANR is real, the main thread's state is missing",
	  .fire = rule_anr_null_trace },
	{ "exit-self", "EXIT_SELF: the process ended itself; without a clean close, the cause is unknown",
	  .fire = rule_exit_self },
	{ "unknown-reason", "trap: a reason code this version does not know (or UNKNOWN) stays unknown, never low memory",
	  .fire = rule_unknown_reason },
	{ "tombstone", "a tombstone of this pid: a native crash, with its signal and frames",
	  .fire = rule_tombstone },
	{ "anr-trace", "an ANR trace of this pid: the main thread's state",
	  .fire = rule_anr_trace },
	{ "crash-log", "logcat or the event log shows a fatal signal, a native or Java crash, or an ANR for this process",
	  .fire = rule_crash_log },
	{ "anr-binder-call", "trap: an ANR whose main thread's top frame is in a Binder call (BinderProxy.transact, an AIDL $Stub$Proxy method): a synchronous call into another process, such as the inference process, blocked the main thread; move the call off it",
	  .fire = rule_anr_binder_call },
	{ "binder-too-large", "trap: JavaBinder's FAILED BINDER TRANSACTION of a parcel over 200 KB, or a TransactionTooLargeException, of this pid within 10 s before the death: the payload passed Binder's 1 MB transaction buffer; pass large payloads through SharedMemory (ashmem) or a file descriptor; the candidate is not blamed",
	  .fire = rule_binder_too_large },
	{ "system-watchdog", "trap: system_server's Watchdog killing the system process (logcat '*** WATCHDOG KILLING SYSTEM PROCESS') within a minute after the ring's last record: every app process dies with system_server; a system event, not the app's fault: system reclaim",
	  .fire = rule_system_watchdog },
	{ "app-watchdog", "trap: the app's own watchdog killed the process: an exit record SIGNALED (no lmkd line) or EXIT_SELF with a status, and within 10 s before it a line of the process itself, of a tag naming a watchdog, that says it kills, aborts or exits: a hang the app saw in the stage open at death; anr on the app's word alone (it suggests, never confirms)",
	  .fire = rule_app_watchdog },
	{ "am-trim", "ActivityManager killed it as an empty or cached process",
	  .fire = rule_am_trim },
	{ "ring-crash-record", "the ring holds the probe's crash record",
	  .fire = rule_ring_crash_record },
	{ "ring-memory-pressure", "the ring shows memory over budget at death: suggests low memory, never confirms",
	  .fire = rule_ring_memory_pressure },
	{ "alloc-failed", "a stage ended with alloc_failed within 10 s of the ring's last record, or the Java crash is an OutOfMemoryError: app-side memory evidence, it supports, never confirms; a Java crash keeps its class and gets the memory steps too",
	  .fire = rule_alloc_failed },
	{ "retry-without-release", "a stage that failed (it ended with an error other than cancelled) and was begun again in its session, or fell back (a fallback mark), while the memory when the retry or fallback began stayed above its level before the failed stage began by more than 8 MiB or a tenth of that level (the own memory where compositions tell both, else the RSS): the failed path was not released; the advice releases it first, and the candidate is not blamed for what it kept; it is listed on clean runs too",
	  .fire = rule_retry_without_release, .finding = 1 },
	{ "two-resident-sets", "after such a retry or fallback (rule retry-without-release), the new attempt reached at least 1.5 times the failed attempt's growth above the level before it: two resident sets of the delegate or model at once; told by the memory, as the ring records no release of a delegate to pair its delegate marks with; it is listed on clean runs too",
	  .fire = rule_two_resident_sets, .finding = 1 },
	{ "concurrency-at-death", "the ring's last sessions, queue_depth or in_flight mark, or its session table's resident models, says more than one ran or waited at death: only then is reduce_concurrency advised",
	  .fire = rule_concurrency_at_death },
	{ "switch-overlap", "trap: a switch in progress at a memory death, a session loading one candidate while another still held a different one: the death is the overlap's, not the candidate's; unload first",
	  .fire = rule_switch_overlap },
	{ "cache-rebuild-at-death", "the ring's last cache mark is a rebuild and the cache stage was open at death: the cache may be half written; clear_rebuildable_cache",
	  .fire = rule_cache_rebuild_at_death },
	{ "unpaired-stage", "a clean run with a stage or a session begun and never ended: a finding for leak investigation, not a death; it is listed on clean runs too",
	  .fire = rule_unpaired_stage, .finding = 1 },
	{ "peer-died", "the main process saw this process die (its peer_died mark, lw_peer_died(3)): the time of death, which narrows the window of its evidence; app-side, it supports the ring's account, never confirms",
	  .fire = rule_peer_died },
	{ "seed-exit-reason", "a run of the seed's events (no probe ring): its exit_reason is the app's own label; it suggests, never confirms",
	  .fire = rule_seed_exit_reason },
	{ "no-ring", "a ring-less run: a death only the system's evidence tells, judged by the same rules; its stage, candidate and memory are unknown",
	  .fire = rule_no_ring },
	{ "no-exit-record", "no exit record joined this run: the system's own record of its death is missing",
	  .fire = rule_no_exit_record },
};

const size_t nrules = sizeof(rules) / sizeof(rules[0]);
_Static_assert(sizeof(rules) / sizeof(rules[0]) <= 64, "struct verdict's fired has a bit per rule");

/* Is the ring's account of the death consistent with class c? A
 * ring-less run has none to be inconsistent with. */
static int ring_consistent(const struct run_facts *f, enum lw_exit_class c)
{
	switch (f->outcome) {
	case RING_OUTCOME_CRASHED:
		return c == LW_EXIT_NATIVE_CRASH;
	case RING_OUTCOME_DIED:
		return c != LW_EXIT_UNKNOWN;
	case RING_OUTCOME_CLEAN:
		return c == LW_EXIT_SYSTEM_RECLAIM;
	case RING_OUTCOME_NO_RING:
		return 1; /* no ring to disagree: one system source supports */
	default:
		return 0;
	}
}

static int fired(const struct verdict *v,
		 int (*fire)(const struct corr_run *, const struct run_facts *, struct verdict *));

static void decide(const struct run_facts *f, struct verdict *v)
{
	unsigned sources[LW_EXIT_CLASS_COUNT] = { 0 }; /* per class: bit per system source */
	int first_class = 0, ring_class = 0, ring_weak = 0, weak_class = 0, nclasses = 0, best = 0;
	int peer = 0;
	unsigned best_n = 0;
	size_t i;
	int c;

	for (i = 0; i < v->nclaims; i++) {
		const struct claim *cl = &v->claims[i];

		if (cl->source == SRC_PEER) {
			peer = 1;
			continue;
		}
		if (cl->source == SRC_RING) {
			if (!cl->weak && !ring_class)
				ring_class = cl->cls;
			if (cl->weak && !ring_weak)
				ring_weak = cl->cls;
			if (cl->weak && !weak_class)
				weak_class = cl->cls;
			continue;
		}
		if (cl->weak) {
			if (!weak_class)
				weak_class = cl->cls;
			continue;
		}
		if (!first_class)
			first_class = cl->cls;
		sources[cl->cls] |= 1u << cl->source;
	}
	for (c = 1; c < LW_EXIT_CLASS_COUNT; c++) {
		unsigned n = (unsigned)__builtin_popcount(sources[c]);

		if (!n)
			continue;
		nclasses++;
		if (n > best_n || (n == best_n && c == first_class)) {
			best = c;
			best_n = n;
		}
	}
	if (nclasses > 1) {
		char a[32] = "", b[32] = "";

		for (c = 1; c < LW_EXIT_CLASS_COUNT; c++) {
			if (!sources[c] || c == best)
				continue;
			snprintf(b, sizeof(b), "%s", vocab_name(&vocab_exit_classes, c));
			break;
		}
		snprintf(a, sizeof(a), "%s", vocab_name(&vocab_exit_classes, best));
		set_contradiction(v, "the system's sources disagree: %s and %s", a, b);
		/* As many sources one way as the other: the cause is unknown. */
		v->cls = (enum lw_exit_class)best;
		for (c = 1; c < LW_EXIT_CLASS_COUNT; c++)
			if (c != best && (unsigned)__builtin_popcount(sources[c]) == best_n)
				v->cls = LW_EXIT_UNKNOWN;
		v->level = LW_EVIDENCE_UNCONFIRMED;
		return;
	}
	if (best) {
		v->cls = (enum lw_exit_class)best;
		if (ring_class && ring_class != best) {
			set_contradiction(v, "the ring says %s, the system says %s",
				 vocab_name(&vocab_exit_classes, ring_class),
				 vocab_name(&vocab_exit_classes, best));
			v->level = LW_EVIDENCE_UNCONFIRMED;
		} else if (best == LW_EXIT_UNKNOWN) {
			v->level = LW_EVIDENCE_UNCONFIRMED;
		} else if (best_n >= 2) {
			v->level = LW_EVIDENCE_CONFIRMED;
		} else {
			v->level = ring_consistent(f, v->cls) ? LW_EVIDENCE_SUPPORTED
							      : LW_EVIDENCE_UNCONFIRMED;
		}
		return;
	}
	/* No system source: the ring alone, or a suspicion. The main process
	 * that saw the run die where the ring ends supports the ring's own
	 * account of it (its claim, or its suspicion when no other came
	 * first), never a cause that no ring claims. */
	v->cls = ring_class ? (enum lw_exit_class)ring_class
			    : weak_class ? (enum lw_exit_class)weak_class : LW_EXIT_UNKNOWN;
	v->level = peer && v->cls != LW_EXIT_UNKNOWN &&
				   (int)v->cls == (ring_class ? ring_class : ring_weak) &&
				   ring_consistent(f, v->cls)
			   ? LW_EVIDENCE_SUPPORTED
			   : LW_EVIDENCE_UNCONFIRMED;
	/* An OOM needs the system's evidence or an allocation's (the second
	 * seed): the ring's memory over budget and the main process's
	 * witness are the app's own, and leave it unconfirmed. */
	if (v->cls != LW_EXIT_LOW_MEMORY)
		return;
	if (!fired(v, rule_alloc_failed))
		v->level = LW_EVIDENCE_UNCONFIRMED;
	missing(v, "the lmkd kill line (logcat, tag lowmemorykiller) for this pid");
}

__attribute__((format(printf, 3, 4))) static void act(struct verdict *v, enum lw_action a,
						      const char *fmt, ...)
{
	va_list ap;

	if (v->nactions >= VERDICT_MAX_ACTIONS)
		return;
	v->actions[v->nactions].action = a;
	va_start(ap, fmt);
	v->actions[v->nactions].why = line_of(VERDICT_LINE_MAX, fmt, ap);
	va_end(ap);
	v->nactions++; /* a NULL why (ENOMEM) is written as null */
}

/* Whether the rule whose function is fire fired for v. */
static int fired(const struct verdict *v,
		 int (*fire)(const struct corr_run *, const struct run_facts *, struct verdict *))
{
	size_t i;

	for (i = 0; i < nrules; i++)
		if (rules[i].fire == fire)
			return v->fired >> i & 1;
	return 0;
}

/* The receipts of the correlation's rings (lw_receipt(3)): a candidate's
 * files verified complete, by process. The newest run's receipt of a
 * candidate is kept; a correlation holds a few candidates, so a small
 * table is enough, and one past it is not found (its receipt is then
 * called missing, which only asks for a check). */
#define RECEIPTS_MAX 64

struct receipts {
	struct receipt {
		const char *process;
		uint64_t candidate, files, run_start_ns;
	} v[RECEIPTS_MAX];
	size_t n;
};

static void receipts_find(const struct correlation *c, struct receipts *out)
{
	size_t i, k, x;

	out->n = 0;
	for (i = 0; i < c->nruns; i++) {
		const struct run *r = c->runs[i].run;

		for (k = 0; k < r->nevents; k++) {
			const struct lw_ring_slot *e = &r->events[k];

			if (e->type != LW_EV_MARK || e->code != LW_MARK_RECEIPT || !e->a)
				continue;
			for (x = 0; x < out->n; x++)
				if (out->v[x].candidate == e->a && !strcmp(out->v[x].process, r->hdr.process))
					break;
			if (x == out->n && out->n == RECEIPTS_MAX)
				continue;
			if (x == out->n)
				out->n++;
			else if (out->v[x].run_start_ns > r->hdr.start_real_ns)
				continue;
			out->v[x] = (struct receipt){ r->hdr.process, e->a, e->b, r->hdr.start_real_ns };
		}
	}
}

/* revert_to_stable: verb ("serve", "go back to") the stable candidate of
 * process, naming the receipt of its files when a ring holds one; without
 * one, after verifying them, with the receipt listed missing. */
static void revert_step(struct verdict *v, const struct receipts *rc, const char *process,
			uint64_t stable, const char *verb)
{
	char name[24], files[24];
	size_t x;

	fmt_digest(name, sizeof(name), stable);
	for (x = 0; x < rc->n; x++)
		if (rc->v[x].candidate == stable && !strcmp(rc->v[x].process, process))
			break;
	if (x < rc->n) {
		fmt_digest(files, sizeof(files), rc->v[x].files);
		act(v, LW_ACTION_REVERT_TO_STABLE, "%s %s, the last candidate that ran cleanly: its "
			"files were verified complete (receipt %s)", verb, name, files);
		return;
	}
	act(v, LW_ACTION_REVERT_TO_STABLE, "%s %s, the last candidate that ran cleanly, but verify "
		"its files first: no ring holds a receipt of them", verb, name);
	missing(v, "a receipt of the stable candidate (lw_receipt(3)): no ring says its files were "
		   "verified complete");
}

/* An action moved back among those so far to where the order of
 * reversibility puts it (it was added last). */
static void act_in_order(struct verdict *v)
{
	size_t at;

	for (at = v->nactions - 1; at > 0 && v->actions[at - 1].action > v->actions[at].action; at--) {
		struct action t = v->actions[at];

		v->actions[at] = v->actions[at - 1];
		v->actions[at - 1] = t;
	}
}

/* clear_rebuildable_cache, where the order of reversibility puts it among
 * the actions so far: the cache being rebuilt at death (rule
 * cache-rebuild-at-death). */
static void clear_cache_step(const struct corr_run *cr, struct verdict *v)
{
	char key[24];
	uint64_t k;

	if (v->nactions >= VERDICT_MAX_ACTIONS || !rebuild_at_death(cr->run, &k))
		return;
	fmt_digest(key, sizeof(key), k);
	act(v, LW_ACTION_CLEAR_REBUILDABLE_CACHE, "clear the cache of key %s: its rebuild was cut "
		"short by the death; the next start rebuilds it from the model", key);
	act_in_order(v);
}

/* The first steps against memory: stop new work, no prewarm after an
 * early stage, and fewer at once only when more than one ran at death
 * (rule concurrency-at-death): with a switch at death (rule
 * switch-overlap), one model at a time; else the verdict says what the
 * concurrency was. */
static void memory_steps(const struct corr_run *cr, const struct run_facts *f, struct verdict *v,
			 const char *sp_cand)
{
	const struct ring_session *opening, *old;
	char what[96];
	int64_t most;

	if (f->over_budget)
		act(v, LW_ACTION_STOP_NEW_INFERENCE, "accept no new inference until memory is back under budget");
	else
		act(v, LW_ACTION_STOP_NEW_INFERENCE, "accept no new inference until the low-memory kill is "
			"explained");
	if (vocab_stage_early(f->open_stage))
		act(v, LW_ACTION_STOP_PREWARM, "do not prewarm%s at start: it died in %s", sp_cand,
		    vocab_name(&vocab_stages, (int)f->open_stage));
	if (fired(v, rule_switch_overlap) && switch_at_death(cr->run, &opening, &old)) {
		char a[24], b[24];

		fmt_digest(a, sizeof(a), opening->candidate);
		fmt_digest(b, sizeof(b), old->candidate);
		act(v, LW_ACTION_REDUCE_CONCURRENCY, "do not overlap the switch: close session %u (%s) "
			"before session %u loads %s, so that one model is resident at a time",
		    old->id, b, opening->id, a);
		return;
	}
	if (fired(v, rule_concurrency_at_death)) {
		act(v, LW_ACTION_REDUCE_CONCURRENCY, "run fewer sessions and queued requests at once");
		return;
	}
	most = concurrency_at_death(cr->run, what, sizeof(what));
	if (f->outcome == RING_OUTCOME_NO_RING)
		evidence(v, "concurrency at death unknown: no ring (reduce_concurrency is not advised)");
	else if (most < 0)
		evidence(v, "concurrency at death unknown (%s): no such mark is left in the ring "
			    "(reduce_concurrency is not advised)",
			 what);
	else
		evidence(v, "concurrency at death was 1 (%s): fewer at once would not help", what);
}

/* The delegate that the ring's last delegate mark names, or NULL. */
static const char *last_delegate(const struct run *r)
{
	size_t i;

	for (i = r->nevents; i-- > 0;)
		if (r->events[i].type == LW_EV_MARK && r->events[i].code == LW_MARK_DELEGATE)
			return r->events[i].a <= 255 ? vocab_name(&vocab_delegates, (int)r->events[i].a)
						     : NULL;
	return NULL;
}

/* The kinds that grew (run_facts.grew) as text: "graphics and anonymous". */
static void grew_text(unsigned grew, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} kinds[] = { { RUN_MEM_ANON, "anonymous" }, { RUN_MEM_FILE, "file-backed" },
		      { RUN_MEM_SHMEM, "shared" },   { RUN_MEM_SWAP, "swapped" },
		      { RUN_MEM_GRAPHICS, "graphics" } };
	size_t k, len = 0, left = 0;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		left += (grew & kinds[k].bit) != 0;
	buf[0] = '\0';
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && len < n; k++) {
		if (!(grew & kinds[k].bit))
			continue;
		left--;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", kinds[k].name,
					left > 1 ? ", " : left == 1 ? " and " : "");
	}
}

/* The stage whose advice a low-memory death gets (the one place that
 * decides it): the stage that held the peak (run_facts.peak_stage), else
 * the stage that grew (run_facts.grew_stage); graphics memory that grew in
 * delegate_prepare makes it delegate_prepare, as the RSS of the peak does
 * not hold graphics memory. */
static enum lw_stage advice_stage(const struct run_facts *f)
{
	if (f->grew_stage == LW_STAGE_DELEGATE_PREPARE && (f->grew & RUN_MEM_GRAPHICS))
		return LW_STAGE_DELEGATE_PREPARE;
	if (f->peak_stage != LW_STAGE_NONE)
		return f->peak_stage;
	return f->grew ? f->grew_stage : LW_STAGE_NONE;
}

/* A low-memory death's steps by the stage of its peak (advice_stage()),
 * with what grew in it (run_facts.grew): delegate_prepare isolates the
 * delegate the ring names (1: the candidate is not held back), and its
 * CPU path is not proven equivalent; load is the models resident at once;
 * inference is the requests' working set; cache is the cache. The
 * candidate's isolation says which (into how). Degradations (the CPU
 * path, a shorter context, a smaller batch) are said not to be proven
 * equivalent to the original path (the second seed). */
static int stage_steps(const struct corr_run *cr, const struct run_facts *f, struct verdict *v,
		       const char *for_cand, char *how, size_t n)
{
	const char *delegate = last_delegate(cr->run);
	enum lw_stage st = advice_stage(f);
	const char *name = vocab_name(&vocab_stages, (int)st);
	char kinds[64];
	int grew_here = f->grew && f->grew_stage == st;

	how[0] = '\0';
	if (f->grew && f->grew_stage != LW_STAGE_NONE) {
		grew_text(f->grew, kinds, sizeof(kinds));
		evidence(v, "%s memory grew in %s", kinds, vocab_name(&vocab_stages, (int)f->grew_stage));
	}
	switch (st) {
	case LW_STAGE_NONE:
		return 0;
	case LW_STAGE_DELEGATE_PREPARE:
		/* The CPU path itself (a fallback's) held the peak: there is no
		 * other path to take, so it is the models' memory. */
		if (delegate && (!strcmp(delegate, "cpu") || !strcmp(delegate, "xnnpack"))) {
			snprintf(how, n, ": the peak was in delegate_prepare of the %s delegate, the CPU path "
					 "itself: keep fewer models resident while it prepares", delegate);
			break;
		}
		act(v, LW_ACTION_ISOLATE_DELEGATE, "do not prepare the %s delegate%s again: %s; take the "
			"CPU path, not proven equivalent to it: check its outputs first",
		    delegate ? delegate : "same", for_cand,
		    grew_here && (f->grew & RUN_MEM_GRAPHICS)
			    ? "its graphics memory grew while it was prepared"
			    : "the peak was in its prepare");
		return 1;
	case LW_STAGE_LOAD:
		snprintf(how, n, ": the peak was in load, the models resident at once: load it lazily, "
				 "unload the others before it loads, keep fewer resident");
		break;
	case LW_STAGE_INFERENCE:
		snprintf(how, n, ": the peak was in inference, the requests' working set%s: fewer at "
				 "once, a shorter context or a smaller batch, not proven equivalent",
			 grew_here && (f->grew & RUN_MEM_ANON) ? " (anonymous memory grew)" : "");
		break;
	case LW_STAGE_CACHE:
		snprintf(how, n, ": the peak was in cache: bound the cache's memory, or build it apart "
				 "from serving");
		break;
	default:
		snprintf(how, n, ": the peak was in %s", name ? name : "a stage unknown to this reader");
	}
	return 0;
}

/* How an action names the candidate blamed: "session 1 (bb2b915f1ee58db4)",
 * the digest alone without a session, or "" when none is known. */
static void blame_name(const struct blame *b, char *buf, size_t n)
{
	char d[24];

	buf[0] = '\0';
	if (!b->candidate)
		return;
	fmt_digest(d, sizeof(d), b->candidate);
	if (b->have_id)
		snprintf(buf, n, "session %" PRIu32 " (%s)", b->id, d);
	else
		snprintf(buf, n, "%s", d);
}

__attribute__((format(printf, 2, 3))) static void blame_why(struct blame *b, const char *fmt, ...)
{
	va_list ap;

	free(b->why);
	va_start(ap, fmt);
	b->why = line_of(VERDICT_LINE_MAX, fmt, ap);
	va_end(ap);
}

/* The session of r of id, or NULL. */
static const struct ring_session *session_of(const struct run *r, uint32_t id)
{
	size_t k;

	for (k = 0; k < r->nsessions; k++)
		if (r->sessions[k].id == id)
			return &r->sessions[k];
	return NULL;
}

/* With several sessions plausible: tell them apart before isolating any
 * (collect_more_evidence), naming each with its candidate. */
static void apart_step(const struct run *r, struct verdict *v)
{
	char list[160] = "";
	size_t k, len = 0;

	for (k = 0; k < v->blame.nplausible && len < sizeof(list); k++) {
		const struct ring_session *s = session_of(r, v->blame.plausible[k]);
		char d[24] = "no candidate";

		if (s && s->candidate)
			fmt_digest(d, sizeof(d), s->candidate);
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%ssession %" PRIu32 " (%s)",
					!k ? "" : k + 1 == v->blame.nplausible ? " and " : ", ",
					v->blame.plausible[k], d);
	}
	act(v, LW_ACTION_COLLECT_MORE_EVIDENCE, "tell %s apart before isolating %s: record which "
		"one's stages hold the memory (each session's stages begun and ended, memory samples in them)",
	    list, v->blame.nplausible > 2 ? "any" : "either");
}

/* A memory death: low memory, or a crash with the alloc-failed rule's
 * memory evidence (memory_steps() runs on it). */
static int memory_death(const struct verdict *v)
{
	return v->cls == LW_EXIT_LOW_MEMORY || fired(v, rule_alloc_failed);
}

/* The session blamed for run cr's death into v->blame (DESIGN.md, "Memory
 * and blame"): of a ring whose app opened sessions, the one whose stage was
 * open at death, or, for a memory death, that held the peak while
 * resident (sessions_blame()); with several plausible, none. Without
 * sessions of the app's own, the process's session and the run's
 * candidate; without a ring, none. */
static void blame_run(const struct corr_run *cr, const struct run_facts *f, int judged,
		      struct verdict *v)
{
	const struct run *r = cr->run;
	struct blame *b = &v->blame;
	struct session_blame sb;
	uint64_t consider;
	size_t k, n = 0, one = 0;

	if (!judged) {
		blame_why(b, "no death: nobody is blamed");
		return;
	}
	if (r->ring == RUN_RING_NONE) {
		blame_why(b, "no ring: no session or candidate is known");
		return;
	}
	if (!sessions_used(r)) {
		b->candidate = f->candidate;
		if (r->nsessions) {
			b->have_id = 1;
			b->id = r->sessions[0].id;
			b->plausible[b->nplausible++] = b->id;
			blame_why(b, "the process's only session: the run's candidate");
		} else {
			blame_why(b, "no session table: the run's candidate");
		}
		return;
	}
	sessions_blame(r, f->peak_kb, &sb);
	consider = sb.open_at_end | (memory_death(v) ? sb.held_peak : 0);
	for (k = 0; k < r->nsessions && k < 64; k++) {
		if (!(consider >> k & 1))
			continue;
		n++;
		one = k;
		if (b->nplausible < BLAME_MAX_PLAUSIBLE)
			b->plausible[b->nplausible++] = r->sessions[k].id;
	}
	if (n == 1) {
		const struct ring_session *s = &r->sessions[one];
		const char *open = vocab_name(&vocab_stages, (int)s->open_stage);
		const char *peak = vocab_name(&vocab_stages, (int)f->peak_stage);
		int at_peak = memory_death(v) && (sb.held_peak >> one & 1);

		b->have_id = 1;
		b->id = s->id;
		b->candidate = s->candidate;
		if (sb.open_at_end >> one & 1)
			blame_why(b, "its %s was open at death%s", open ? open : "stage",
				  at_peak ? " and held the peak" : "");
		else
			blame_why(b, "it held the peak, in %s, and was resident at death", peak ? peak : "a stage");
		return;
	}
	if (n == 0) {
		blame_why(b, "no session had a stage open at death%s", memory_death(v) ? " or held the "
			  "peak while resident" : "");
		return;
	}
	if (fired(v, rule_switch_overlap))
		blame_why(b, "the switch's overlap: %zu sessions resident at once, neither candidate is "
			  "blamed (rule switch-overlap)", n);
	else
		blame_why(b, "%zu sessions are plausible (a stage open at death%s): none is isolated "
			  "until one is shown", n, memory_death(v) ? ", or the peak" : "");
}

/* The steps of the first seed's Binder and watchdog traps, once the
 * class's steps are given (the level allows acting): a payload too large
 * for Binder is the payload's, not the candidate's (it is not isolated:
 * large payloads go through shared memory); a death with system_server's
 * watchdog is the system's restart. In the ANR's steps, a main thread in a
 * Binder call moves the call off it, and the app's watchdog asks what the
 * stage it waited on was doing (returns 1 when it gave the step). */
static int trap_steps(const struct corr_run *cr, const struct run_facts *f, struct verdict *v,
		      int anr)
{
	const struct anr_trace *a = anr_in_binder(cr);
	const struct log_event *e;
	size_t i, k, at;

	if (anr) {
		if (fired(v, rule_anr_binder_call) && a) {
			act(v, LW_ACTION_INSPECT_MAIN_THREAD, "move the Binder call off the main thread: "
				"call the service from a background thread (the call is synchronous); "
				"its top frame: %s", a->main_top_frame);
			return 1;
		}
		if (fired(v, rule_app_watchdog)) {
			act(v, LW_ACTION_INSPECT_MAIN_THREAD, "find what %s waited on when the app's own "
				"watchdog killed the process: a lock, I/O, or the delegate",
			    f->open_stage ? vocab_name(&vocab_stages, (int)f->open_stage) : "the work");
			return 1;
		}
		return 0;
	}
	if (fired(v, rule_binder_too_large) && (e = binder_too_large(cr, &at))) {
		for (i = k = 0; i < v->nactions; i++) {
			if (v->actions[i].action == LW_ACTION_ISOLATE_CANDIDATE) {
				free(v->actions[i].why);
				continue;
			}
			v->actions[k++] = v->actions[i];
		}
		v->nactions = k;
		for (i = 0; i < v->nactions && v->actions[i].action != LW_ACTION_STOP_NEW_INFERENCE; i++)
			;
		if (i == v->nactions && v->nactions < VERDICT_MAX_ACTIONS) {
			char size[48] = "";

			if (e->parcel_bytes > 0)
				snprintf(size, sizeof(size), " (this one was %" PRId64 " bytes)",
					 e->parcel_bytes);
			act(v, LW_ACTION_STOP_NEW_INFERENCE, "send no payload near Binder's 1 MB buffer%s: "
				"pass large inputs and results through SharedMemory (ashmem) or a file "
				"descriptor, so that Binder carries only the descriptor", size);
			act_in_order(v);
		}
	}
	if (fired(v, rule_system_watchdog) && v->cls == LW_EXIT_SYSTEM_RECLAIM)
		for (i = 0; i < v->nactions; i++)
			if (v->actions[i].action == LW_ACTION_VERIFY_STATE_RESTORE) {
				free(v->actions[i].why);
				v->actions[i].why = strdup("system_server's watchdog restarted the system, "
							   "and every app with it: check that the app "
							   "restores its state, and change nothing else");
			}
	return 0;
}

/* A low-memory death's steps against a failed path never released (rule
 * retry-without-release): release it before the retry or the fallback,
 * with the delegate named when the failed stage was delegate_prepare or
 * fell back from one. Returns 1 when, without what it kept, the peak was
 * within the budget: the candidate is then not blamed (no isolate_candidate,
 * no revert_to_stable); 0 when its peak passed the budget even so. */
static int release_steps(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	const struct run *r = cr->run;
	struct failed_path p;
	const struct lw_ring_slot *e;
	const char *delegate;
	char next[40], kept[24], peak[24], budget[24];
	int64_t without;

	if (!fired(v, rule_retry_without_release) || !failed_path_find(r, &p))
		return 0;
	e = &r->events[p.end];
	delegate = delegate_at(r, p.end);
	next_text(&p, next, sizeof(next));
	fmt_kb(kept, sizeof(kept), (uint64_t)(p.next_kb - p.before_kb));
	if (e->stage == LW_STAGE_DELEGATE_PREPARE || p.fallback)
		act(v, LW_ACTION_ISOLATE_DELEGATE, "release the %s delegate when its %s fails (%s), "
			"before %s: %s of it were still held then",
		    delegate ? delegate : "failed", vocab_name(&vocab_stages, (int)e->stage),
		    vocab_name(&vocab_errors, (int)e->code), next, kept);
	else
		act(v, LW_ACTION_REDUCE_CONCURRENCY, "release what the failed %s (%s) holds before "
			"it is begun again, so that one set is resident at a time: %s were still held at "
			"its retry",
		    vocab_name(&vocab_stages, (int)e->stage), vocab_name(&vocab_errors, (int)e->code), kept);
	without = (int64_t)f->measured_peak_kb - (p.next_kb - p.before_kb);
	if (!f->budget_kb || without > (int64_t)f->budget_kb)
		return 0;
	fmt_kb(peak, sizeof(peak), (uint64_t)(without > 0 ? without : 0));
	fmt_kb(budget, sizeof(budget), f->budget_kb);
	evidence(v, "without the %s never released, the peak (%s) was within the budget (%s): the "
		    "leak of the failed path, not the candidate, is to blame",
		 kept, peak, budget);
	return 1;
}

/* The most conservative next steps, in order of reversibility, gated by
 * the evidence level (DESIGN.md, "Recovery actions"). */
static void recommend(const struct corr_run *cr, const struct run_facts *f,
		      const struct receipts *rc, struct verdict *v)
{
	const char *process = cr->run->hdr.process;
	const char *stage = vocab_name(&vocab_stages, (int)f->open_stage);
	const char *delegate = last_delegate(cr->run);
	char cand[48] = "", stable[24] = "", sp_cand[56] = "", for_cand[64] = "", how[200];
	/* A ring-less run has no ring to keep. */
	int ringless = f->outcome == RING_OUTCOME_NO_RING;
	const char *and_ring = ringless ? "" : " and the ring";
	/* Several sessions plausible, none shown: none is isolated or replaced. */
	int several = !v->blame.have_id && v->blame.nplausible > 1;

	/* Only the candidate of the session blamed (blame_run()) is acted on,
	 * named with its session: none is ever guessed. */
	blame_name(&v->blame, cand, sizeof(cand));
	if (cand[0]) {
		snprintf(sp_cand, sizeof(sp_cand), " %s", cand);
		snprintf(for_cand, sizeof(for_cand), " for %s", cand);
	}
	if (f->stable_candidate && f->stable_candidate != v->blame.candidate && !several)
		fmt_digest(stable, sizeof(stable), f->stable_candidate);
	if (v->contradiction) {
		if (cand[0])
			act(v, LW_ACTION_ISOLATE_CANDIDATE,
			    "stop using %s until someone reviews evidence that disagrees about this death",
			    cand);
		if (stable[0])
			revert_step(v, rc, process, f->stable_candidate, "go back to");
		act(v, LW_ACTION_PRESERVE_EVIDENCE, "keep %sthe exit records and the logs of this %s for that review",
		    ringless ? "" : "the ring, ", ringless ? "death" : "run");
		if (several)
			apart_step(cr->run, v);
		else if (!cand[0])
			act(v, LW_ACTION_COLLECT_MORE_EVIDENCE,
			    "no candidate is known to stop: pull what would settle the disagreement");
		return;
	}
	if (v->level == LW_EVIDENCE_UNCONFIRMED) {
		act(v, LW_ACTION_PRESERVE_EVIDENCE, "keep %s", ringless ? "whatever evidence there is of this death"
									: "this run's ring and whatever evidence there is");
		if (v->cls == LW_EXIT_LOW_MEMORY && !cr->exits.n && !lmkd_kill(cr))
			act(v, LW_ACTION_COLLECT_MORE_EVIDENCE,
			    "pull the exit record of this pid and lmkd's kill line before acting: the app's "
			    "own evidence does not make an OOM, and nothing is changed on an unconfirmed cause");
		else
			act(v, LW_ACTION_COLLECT_MORE_EVIDENCE,
			    "pull what is missing before acting: nothing is changed on an unconfirmed cause");
		return;
	}
	switch (v->cls) {
	case LW_EXIT_LOW_MEMORY:
		memory_steps(cr, f, v, sp_cand);
		/* A death of the switch's overlap is not the candidate's: it is
		 * neither held back nor replaced. */
		if (fired(v, rule_switch_overlap))
			break;
		if (release_steps(cr, f, v))
			break;
		if (stage_steps(cr, f, v, for_cand, how, sizeof(how)))
			break;
		/* "Until its peak fits the budget" only when it passed it. */
		if (cand[0] && f->over_budget)
			act(v, LW_ACTION_ISOLATE_CANDIDATE, "hold %s back until its peak fits the budget%s",
			    cand, how);
		else if (cand[0] && f->have_rss && f->budget_kb)
			act(v, LW_ACTION_ISOLATE_CANDIDATE, "hold %s back until the kill is explained: it "
				"stayed within its budget, so the kill was not its growth alone%s", cand, how);
		else if (cand[0])
			act(v, LW_ACTION_ISOLATE_CANDIDATE, "hold %s back until its peak is measured: %s%s",
			    cand, f->have_rss ? "no budget was given to compare it with"
					      : "the ring has no memory sample", how);
		if (stable[0])
			revert_step(v, rc, process, f->stable_candidate, "serve");
		if (several)
			apart_step(cr->run, v);
		break;
	case LW_EXIT_NATIVE_CRASH:
		if (f->open_stage == LW_STAGE_DELEGATE_PREPARE)
			act(v, LW_ACTION_ISOLATE_DELEGATE,
			    "do not prepare %s%s delegate%s again; use the fallback path, not proven "
			    "equivalent to it: check its outputs first",
			    delegate ? "the " : "this", delegate ? delegate : "", for_cand);
		else if (cand[0])
			act(v, LW_ACTION_ISOLATE_CANDIDATE, "stop running %s on the path that crashed", cand);
		if (stable[0])
			revert_step(v, rc, process, f->stable_candidate, "serve");
		if (tombstone_symbolicated(cr))
			act(v, LW_ACTION_PRESERVE_EVIDENCE,
			    "keep the tombstone%s: its app frames are symbolicated (frames, above)", and_ring);
		else
			act(v, LW_ACTION_PRESERVE_EVIDENCE,
			    "keep the tombstone%s for symbolication (report --symbols DIR with the "
			    "app's unstripped libraries)",
			    and_ring);
		if (several)
			apart_step(cr->run, v);
		break;
	case LW_EXIT_ANR:
		if (!trap_steps(cr, f, v, 1))
			act(v, LW_ACTION_INSPECT_MAIN_THREAD,
			    "find what blocked the main thread: model work, locks or I/O on it");
		act(v, LW_ACTION_PRESERVE_EVIDENCE, "keep the ANR trace%s", and_ring);
		break;
	case LW_EXIT_JAVA_CRASH:
		if (fired(v, rule_alloc_failed))
			memory_steps(cr, f, v, sp_cand);
		if (f->open_stage != LW_STAGE_NONE && cand[0])
			act(v, LW_ACTION_ISOLATE_CANDIDATE, "stop running %s in %s until the exception is fixed",
			    cand, stage);
		act(v, LW_ACTION_PRESERVE_EVIDENCE, "keep the exception's stack%s", and_ring);
		if (several)
			apart_step(cr->run, v);
		break;
	case LW_EXIT_SYSTEM_RECLAIM:
		act(v, LW_ACTION_VERIFY_STATE_RESTORE,
		    "the system reclaimed the process: check that the app restores its state, and change nothing else");
		break;
	default:
		act(v, LW_ACTION_PRESERVE_EVIDENCE, "keep %s",
		    ringless ? "the evidence of this death" : "this run's ring and evidence");
		act(v, LW_ACTION_COLLECT_MORE_EVIDENCE, "the cause is unknown: pull more evidence");
	}
	/* Not after a reclaim, where nothing else is changed. */
	if (fired(v, rule_cache_rebuild_at_death) && v->cls != LW_EXIT_SYSTEM_RECLAIM)
		clear_cache_step(cr, v);
	trap_steps(cr, f, v, 0);
}

/* Rule i fired for v. */
static void rule_fired(struct verdict *v, size_t i)
{
	v->fired |= UINT64_C(1) << i;
	if (v->nrules < VERDICT_MAX_RULES)
		v->rules[v->nrules++] = rules[i].id;
}

/* The one place a verdict's level is lowered for what it could not see:
 * by one step (confirmed to supported, supported to unconfirmed) when one
 * of its caveats could hide the stage at death (caveats.h has the rule),
 * after the claims decided it and before the recovery, which the level
 * gates. */
static void lower_for_caveats(const struct caveats *cv, struct verdict *v)
{
	if (!cv->hides_stage)
		return;
	if (v->level == LW_EVIDENCE_CONFIRMED)
		v->level = LW_EVIDENCE_SUPPORTED;
	else if (v->level == LW_EVIDENCE_SUPPORTED)
		v->level = LW_EVIDENCE_UNCONFIRMED;
}

/* One run's verdict from the rules' first functions (or exit rows), into
 * a zeroed v, with the run's caveats cv. */
static void classify_run(const struct corr_run *cr, const struct run_facts *f,
			 const struct receipts *rc, const struct caveats *cv, struct verdict *v)
{
	size_t i;

	for (i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];

		if (r->fire ? r->fire(cr, f, v) : exit_row_fire(&r->exit, cr, v))
			rule_fired(v, i);
	}
	if (cr->run->header_damaged)
		missing(v, "the ring header's damaged fields (header_damage): their values are not "
			   "used, and no session is built on a damaged entry");
	decide(f, v);
	lower_for_caveats(cv, v);
	blame_run(cr, f, 1, v);
	recommend(cr, f, rc, v);
}

/* What the finding rules find in a run that gets no verdict, into a zeroed
 * v: its rules and evidence, no class, level or recovery. */
static void find_only(const struct corr_run *cr, const struct run_facts *f, struct verdict *v)
{
	size_t i;

	for (i = 0; i < nrules; i++)
		if (rules[i].finding && rules[i].fire(cr, f, v))
			rule_fired(v, i);
	blame_run(cr, f, 0, v);
}

void classify_all(const struct correlation *c, struct run_facts *facts, int *judged,
		  struct verdict *verdicts)
{
	struct receipts receipts;
	size_t i, k;

	receipts_find(c, &receipts);

	for (i = 0; i < c->nruns; i++) {
		const struct corr_run *cr = &c->runs[i];
		struct caveats cv;

		run_facts_get(cr->run, &facts[i]);
		memset(&verdicts[i], 0, sizeof(verdicts[i]));
		caveats_find(c, cr, &facts[i], &cv);
		judged[i] = run_facts_died(&facts[i]) || cr->exits.n > 0 ||
			    cr->run->ring == RUN_RING_NONE;
		if (judged[i])
			classify_run(cr, &facts[i], &receipts, &cv, &verdicts[i]);
		/* A run that closed cleanly, whose records claim no death (an
		 * EXIT_SELF with status 0 after the close), or a ring-less run
		 * whose witnesses claim none (an EXIT_SELF with status 0): no
		 * verdict, only what the finding rules find. */
		if (judged[i] && !run_facts_died(&facts[i]) && verdicts[i].nclaims == 0) {
			judged[i] = 0;
			verdict_release(&verdicts[i]);
		}
		if (!judged[i])
			find_only(cr, &facts[i], &verdicts[i]);
		verdicts[i].caveats = cv; /* a clean run's too */
	}
	for (i = 0; i < c->nruns; i++)
		for (k = 0; judged[i] && k < nrules; k++)
			if (rules[k].across && (verdicts[i].fired >> k & 1))
				rules[k].across(c, judged, verdicts, i);
}
