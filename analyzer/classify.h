/*
 * Classification: what killed a run, how sure that is, what is missing, and
 * the most conservative next step. Explicit named rules (classify.c,
 * `lastwords rules`) read the facts of one run and its correlated evidence
 * and make claims: "source S says class C". The verdict follows from the
 * claims (DESIGN.md, "Evidence levels"):
 *   confirmed    two independent system sources claim the class;
 *   supported    one system source claims it and the ring is consistent,
 *                or, with no system source, the ring claims it and the
 *                main process saw the run die (peer_died): app-side
 *                evidence supports, never confirms;
 *   unconfirmed  anything else, including sources that contradict.
 * Recovery actions are then gated by the level. Never prints.
 */
#ifndef LW_ANALYZER_CLASSIFY_H
#define LW_ANALYZER_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include <lastwords/vocab.h>

#include "caveats.h"
#include "correlate.h"

/* Who makes a claim. The ring, and the main process's peer_died mark,
 * are the app's own witnesses; the others are the system's, and only those
 * confirm. A peer claim names no class: the main process saw the death,
 * not its cause. */
#define CLAIM_SOURCES(X)                          \
	X(RING, ring)                             \
	X(PEER, peer)                             \
	X(EXIT_INFO, exit_info)                   \
	X(LMKD, lmkd)                             \
	X(TOMBSTONE, tombstone)                   \
	X(ANR_TRACE, anr_trace)                   \
	X(CRASH_LOG, crash_log)                   \
	X(AM_KILL, am_kill)

enum claim_source {
#define X(up, name) SRC_##up,
	CLAIM_SOURCES(X)
#undef X
	SRC_COUNT
};

const char *claim_source_name(enum claim_source s);

#define VERDICT_MAX_RULES 16
#define VERDICT_MAX_LINES 16
#define VERDICT_MAX_CLAIMS 16
#define VERDICT_MAX_ACTIONS 8

struct claim {
	enum claim_source source;
	enum lw_exit_class cls;
	int weak; /* suggests, never confirms (a suspicion, or ring memory alone) */
};

/* The lengths a verdict's lines are cut to (bytes, with the NUL). */
#define VERDICT_LINE_MAX 256
#define VERDICT_MISSING_MAX 160

struct action {
	enum lw_action action;
	char *why;
};

/* The session blamed for a death (DESIGN.md, "Memory and blame"): the one
 * whose stage was open at death, or, for a memory death, that held the
 * peak; with several plausible, none (have_id 0) until one is shown.
 * Without sessions of the app's own, the process's session 0 and the
 * run's candidate. */
#define BLAME_MAX_PLAUSIBLE 8
struct blame {
	int have_id;               /* id names a session */
	uint32_t id;
	uint64_t candidate;        /* its candidate, 0 if none is known */
	char *why;                 /* on the heap; NULL when it could not be allocated */
	uint32_t plausible[BLAME_MAX_PLAUSIBLE]; /* the sessions considered, in id order */
	size_t nplausible;
};

struct verdict {
	enum lw_exit_class cls;
	enum lw_evidence_level level;
	const char *rules[VERDICT_MAX_RULES];
	size_t nrules;
	/* Lines on the heap, each cut to VERDICT_LINE_MAX (missing lines to
	 * VERDICT_MISSING_MAX): a report may hold thousands of verdicts, most
	 * with a few short lines. A line that cannot be allocated is left out.
	 * Freed by verdict_release(). */
	char *evidence[VERDICT_MAX_LINES];
	size_t nevidence;
	char *missing[VERDICT_MAX_LINES];
	size_t nmissing;
	char *contradiction;     /* NULL when the sources agree */
	struct claim claims[VERDICT_MAX_CLAIMS];
	size_t nclaims;
	struct action actions[VERDICT_MAX_ACTIONS];
	size_t nactions;
	uint64_t fired;        /* bit k: rules[k] fired (for its cross-run step) */
	/* What it could not see (caveats.h); a run that gets no verdict has
	 * them too. One that could hide the stage at death made the level one
	 * step lower. */
	struct caveats caveats;
	struct blame blame;    /* of every run, judged or not */
};

/* The common shape of a rule, as data: the first exit record of reason
 * (and of a subreason in subreasons, unless that is 0) claims cls, as the
 * system's source. When the row names a witness of the same death and the
 * run has none, absent is missing. */
struct rule_exit {
	int reason;                /* enum exit_reason (src/exit-info.h) */
	uint64_t subreasons;       /* bit s for subreason s; 0: any */
	enum lw_exit_class cls;
	const char *what;          /* the record in the evidence; NULL: its reason's label */
	int (*witness)(const struct corr_run *cr);
	const char *absent;
};

/* The Java crash that tells of run cr's death: its logcat FATAL EXCEPTION,
 * else its am_crash of a Java exception; NULL when it has neither. */
const struct log_event *classify_java_crash(const struct corr_run *cr);

/* Free a verdict's lines and zero it. Accepts a zeroed verdict. */
void verdict_release(struct verdict *v);

/* One rule: an id, what it means, and what decides it: its function,
 * which returns 1 when it fired, or, without one, its exit. A rule that
 * needs the other runs' verdicts has a cross-run step too: once every run
 * of the correlation has its verdict, it runs on each judged run i where
 * the rule fired, and may add evidence and missing lines to verdicts[i]
 * (the class, level and recovery are decided by then). */
struct rule {
	const char *id;
	const char *meaning;
	int (*fire)(const struct corr_run *cr, const struct run_facts *f, struct verdict *v);
	struct rule_exit exit;
	void (*across)(const struct correlation *c, const int *judged, struct verdict *verdicts,
		       size_t i);
	/* It also runs on a run that gets no verdict (a clean run): what it
	 * finds is listed there, with no class, level or recovery. */
	int finding;
};

extern const struct rule rules[];
extern const size_t nrules;

/*
 * Classify every run of a correlation: for c->runs[i], its facts[i], and
 * whether it gets a verdict, judged[i], with the verdict in verdicts[i]
 * (zeroed when it gets none). A run is judged when it died or an exit
 * record joined it, unless it closed cleanly and no rule claims a class
 * (an EXIT_SELF with status 0 after the close). The arrays hold c->nruns
 * each and are written whole. Never fails. Not async-signal-safe; does
 * not allocate or block.
 */
void classify_all(const struct correlation *c, struct run_facts *facts, int *judged,
		  struct verdict *verdicts);

#endif
