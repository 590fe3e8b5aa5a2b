/*
 * Ring-less runs (analyzer/correlate.c, DESIGN.md "Runs without a ring"),
 * on records built here: the witnesses of one death are one run (a
 * tombstone and its CRASH_NATIVE record; an lmkd kill and its LOW_MEMORY
 * record), a later death of the same pid is another, whose window starts
 * where the one before ended; other evidence joins them by pid, or by name
 * in the death's window; the packages judged are those present with no
 * ring and no --package, else the rings' and --package's, and a record of
 * another package is listed, not judged.
 */
#include "../analyzer/correlate.h"
#include "../analyzer/evidence/logline.h"
#include "../src/exit-info.h"
#include "helpers.h"

#define SEC 1000LL
#define MIN (60 * SEC)
#define T0 1767225600000LL /* 2026-01-01 00:00:00 UTC, in ms */

static struct exit_record *add_exit(struct ev_file *f, const char *process, int64_t pid,
				    int64_t reason, int64_t when_ms)
{
	struct exit_record *e = ev_add_exit(f);

	T_ASSERT(e != NULL, "ev_add_exit");
	e->process = strdup(process);
	e->pid = pid;
	e->reason = reason;
	e->timestamp_ms = when_ms;
	return e;
}

static void add_log(struct ev_file *f, enum log_event_type type, const char *process, int64_t pid,
		    int64_t when_ms)
{
	struct log_event *l = ev_add_log(f);

	T_ASSERT(l != NULL, "ev_add_log");
	l->type = type;
	l->pid = pid;
	l->process = strdup(process);
	/* logcat's month-day time, local = UTC here: 2026-01-01 is day 0 */
	l->time_ms = logline_month_day_ms(1, 1, when_ms - T0);
}

/* The run that holds record i of a list, found through pick. */
static int holder(const struct correlation *c, const struct corr_list *(*pick)(const struct corr_run *),
		  const struct ev_file *f, size_t i)
{
	size_t k, m;

	for (k = 0; k < c->nruns; k++)
		for (m = 0; m < pick(&c->runs[k])->n; m++)
			if (pick(&c->runs[k])->v[m].file == f && pick(&c->runs[k])->v[m].index == i)
				return (int)k;
	return -1;
}

static const struct corr_list *exits_of(const struct corr_run *cr) { return &cr->exits; }
static const struct corr_list *tombs_of(const struct corr_run *cr) { return &cr->tombstones; }
static const struct corr_list *logs_of(const struct corr_run *cr) { return &cr->logs; }

static void no_ring(void)
{
	struct corr_options opt = { .tz_known = 1, .tolerance_ms = 2000 };
	struct correlation c;
	struct tombstone *t;
	struct ev_file f;

	memset(&f, 0, sizeof(f));
	/* Death 1 of pid 300: the tombstone (its own zone), the record 3 s
	 * later (debuggerd took its time), and the am_crash that names the
	 * process only. */
	t = ev_add_tombstone(&f);
	T_ASSERT(t != NULL, "ev_add_tombstone");
	t->pid = 300;
	t->process = strdup("com.r:inference");
	t->timestamp_text = strdup("2026-01-01 01:00:10.000+0100"); /* T0 + 10 s */
	add_exit(&f, "com.r:inference", 300, EXIT_REASON_CRASH_NATIVE, T0 + 13 * SEC); /* 0 */
	add_log(&f, LOG_EV_AM_CRASH, "com.r:inference", EV_NONE, T0 + 12 * SEC);       /* log 0 */
	/* Death 2 of the same pid, 20 minutes later: lmkd's kill and its record. */
	add_log(&f, LOG_LMKD_KILL, "com.r:inference", 300, T0 + 20 * MIN);              /* log 1 */
	add_exit(&f, "com.r:inference", 300, EXIT_REASON_LOW_MEMORY, T0 + 20 * MIN + 20); /* 1 */
	/* Death 3: an lmkd kill alone, of another process of the package. */
	add_log(&f, LOG_LMKD_KILL, "com.r", 301, T0 + 30 * MIN);                        /* log 2 */
	/* Another package's record: judged too, there being no ring. */
	add_exit(&f, "com.other", 302, EXIT_REASON_ANR, T0 + 40 * MIN);                 /* 2 */

	T_ASSERT(correlate(NULL, 0, &f, 1, &opt, &c) == 0, "correlate");
	T_ASSERT(c.ngiven == 0 && c.nruns == 4 && c.nunmatched == 0, "4 deaths: %zu runs, %zu unmatched",
		 c.nruns, c.nunmatched);
	T_ASSERT(c.npackages == 2 && strcmp(c.packages[0].name, "com.r") == 0 &&
			 strcmp(c.packages[1].name, "com.other") == 0 &&
			 c.packages[0].why == CORR_PACKAGE_PRESENT,
		 "the packages present are judged");
	/* In order of process, then time of death: com.other, com.r,
	 * com.r:inference twice. */
	T_ASSERT(strcmp(c.runs[0].run->hdr.process, "com.other") == 0 &&
			 strcmp(c.runs[1].run->hdr.process, "com.r") == 0 &&
			 c.runs[2].run->hdr.pid == 300 && c.runs[3].run->hdr.pid == 300,
		 "runs in order");
	T_ASSERT(holder(&c, exits_of, &f, 0) == 2 && holder(&c, tombs_of, &f, 0) == 2 &&
			 holder(&c, logs_of, &f, 0) == 2,
		 "the tombstone, its record and its am_crash are one death");
	T_ASSERT(c.runs[2].last_ms == T0 + 10 * SEC && c.runs[2].next_start_ms == T0 + 13 * SEC,
		 "its window spans its witnesses");
	T_ASSERT(holder(&c, exits_of, &f, 1) == 3 && holder(&c, logs_of, &f, 1) == 3,
		 "the kill 20 minutes later is another death, with its lmkd line");
	T_ASSERT(c.runs[3].start_ms == T0 + 13 * SEC, "its window starts at the death before it");
	T_ASSERT(holder(&c, logs_of, &f, 2) == 1 && c.runs[1].exits.n == 0 &&
			 c.runs[1].no_ring == CORR_NO_RUN_OF_PROCESS,
		 "an lmkd kill alone is a death of its own");
	T_ASSERT(strcmp(c.runs[2].run->path, "") == 0 && c.runs[2].run->ring == RUN_RING_NONE &&
			 c.runs[2].run->outcome == RING_OUTCOME_NO_RING,
		 "named after its exit record; no ring");
	correlation_release(&c);
	ev_file_release(&f);
}

/* With a ring, the packages are the ring's and --package's. */
static void packages(void)
{
	struct corr_options opt = { .tz_known = 1, .tolerance_ms = 2000 };
	char *wanted[] = { "com.other" };
	struct correlation c;
	struct ev_file f;
	struct run r;

	memset(&r, 0, sizeof(r));
	snprintf(r.hdr.process, sizeof(r.hdr.process), "com.r:inference");
	r.hdr.pid = 500;
	r.hdr.start_real_ns = (uint64_t)T0 * 1000000u;
	memset(&f, 0, sizeof(f));
	add_exit(&f, "com.r:inference", 500, EXIT_REASON_LOW_MEMORY, T0 + 5 * SEC); /* the ring's */
	add_exit(&f, "com.other", 600, EXIT_REASON_LOW_MEMORY, T0 + 6 * SEC);
	f.exits[1].package = strdup("com.other");
	T_ASSERT(correlate(&r, 1, &f, 1, &opt, &c) == 0, "correlate");
	T_ASSERT(c.nruns == 1 && c.runs[0].exits.n == 1 && c.nunmatched == 1 &&
			 c.unmatched[0].reason == CORR_OTHER_PACKAGE && c.npackages == 1 &&
			 c.packages[0].why == CORR_PACKAGE_RING,
		 "another package's record is listed, not judged");
	correlation_release(&c);
	opt.packages = wanted;
	opt.npackages = 1;
	T_ASSERT(correlate(&r, 1, &f, 1, &opt, &c) == 0, "correlate");
	T_ASSERT(c.nruns == 2 && c.nunmatched == 0 && c.runs[1].exits.n == 1 && c.npackages == 2 &&
			 c.packages[1].why == CORR_PACKAGE_OPTION,
		 "--package judges it: a ring-less run");
	correlation_release(&c);
	ev_file_release(&f);
}

int main(void)
{
	no_ring();
	packages();
	printf("ring-less runs: one death per set of witnesses, windows, packages\n");
	return T_PASS;
}
