/*
 * Correlation of evidence with runs (analyzer/correlate.c), on runs and
 * records built here: process, pid and window; several records per pid;
 * pid reuse; a multi-process app; other versions; the run-id join; time
 * zones and minute precision; never the newest.
 */
#include <inttypes.h>

#include "../analyzer/correlate.h"
#include "helpers.h"

#define SEC 1000LL
#define T0 1767225600000LL /* 2026-01-01 00:00:00 UTC, in ms */

static struct run make_run(const char *process, uint32_t pid, uint64_t version, uint8_t id,
			   int64_t start_ms, int64_t last_ms)
{
	struct run r;
	static struct run_event ev[2];
	struct run_event *events = calloc(2, sizeof(*events));

	(void)ev;
	memset(&r, 0, sizeof(r));
	snprintf(r.hdr.process, sizeof(r.hdr.process), "%s", process);
	r.hdr.pid = pid;
	r.hdr.app_version = version;
	memset(r.hdr.run_id, id, sizeof(r.hdr.run_id));
	r.hdr.start_real_ns = (uint64_t)start_ms * 1000000u;
	r.hdr.start_mono_ns = 5000000000u;
	T_ASSERT(events != NULL, "calloc");
	events[0].ticket = 0;
	events[0].slot.t_mono_ns = r.hdr.start_mono_ns;
	events[1].ticket = 1;
	events[1].slot.t_mono_ns = r.hdr.start_mono_ns + (uint64_t)(last_ms - start_ms) * 1000000u;
	r.events = events;
	r.nevents = 2;
	return r;
}

static struct exit_record *add_exit(struct ev_file *f, const char *process, int64_t pid,
				    int64_t when_ms, int local)
{
	struct exit_record *e = ev_add_exit(f);

	T_ASSERT(e != NULL, "ev_add_exit");
	e->process = strdup(process);
	e->pid = pid;
	e->reason = 3;
	e->timestamp_ms = when_ms;
	e->timestamp_local = local;
	return e;
}

/* Which run index an exit record joined (-1: unmatched, with *why). */
static int joined(const struct correlation *c, const struct ev_file *f, size_t i, int *by_id,
		  enum corr_reason *why)
{
	size_t k, m;

	for (k = 0; k < c->nruns; k++)
		for (m = 0; m < c->runs[k].exits.n; m++)
			if (c->runs[k].exits.v[m].file == f && c->runs[k].exits.v[m].index == i) {
				if (by_id)
					*by_id = c->runs[k].exits.v[m].by_run_id;
				return (int)k;
			}
	for (k = 0; k < c->nunmatched; k++)
		if (c->unmatched[k].file == f && c->unmatched[k].index == i) {
			if (why)
				*why = c->unmatched[k].reason;
			return -1;
		}
	T_FAILF("record %zu neither joined nor listed as unmatched", i);
}

#define EXPECT_RUN(c, f, i, want)                                                         \
	do {                                                                              \
		enum corr_reason why_ = CORR_REASON_COUNT;                                \
		int got_ = joined(c, f, i, NULL, &why_);                                  \
		T_ASSERT(got_ == (want), "record %d joined run %d, expected %d (%s)",    \
			 (int)(i), got_, (want), corr_reason_name(why_));                 \
	} while (0)

#define EXPECT_UNMATCHED(c, f, i, reason)                                                 \
	do {                                                                              \
		enum corr_reason why_ = CORR_REASON_COUNT;                                \
		int got_ = joined(c, f, i, NULL, &why_);                                  \
		T_ASSERT(got_ == -1 && why_ == (reason),                                  \
			 "record %d: run %d / %s, expected unmatched %s", (int)(i), got_,   \
			 corr_reason_name(why_), corr_reason_name(reason));                 \
	} while (0)

int main(void)
{
	struct corr_options opt = { 0, 1, 2000 };
	struct correlation c;
	struct ev_file f;
	struct run runs[4];
	struct exit_record *e;
	struct log_event *l;
	struct tombstone *t;
	int64_t off;
	int by_id = 0;
	size_t i;

	/* Runs: main process and :inference, pid 100 reused by a second
	 * :inference run a minute later. */
	runs[0] = make_run("com.x", 50, 42, 1, T0, T0 + 120 * SEC);
	runs[1] = make_run("com.x:inference", 100, 42, 2, T0 + 1 * SEC, T0 + 5 * SEC);
	runs[2] = make_run("com.x:inference", 100, 42, 3, T0 + 60 * SEC, T0 + 65 * SEC);
	runs[3] = make_run("com.x:inference", 200, 42, 4, T0 + 90 * SEC, T0 + 95 * SEC);

	memset(&f, 0, sizeof(f));
	add_exit(&f, "com.x:inference", 100, T0 + 5500, 0);           /* 0: run 1 */
	add_exit(&f, "com.x:inference", 100, T0 + 5200, 0)->reason = 6; /* 1: ANR, run 1 too */
	add_exit(&f, "com.x:inference", 100, T0 + 66 * SEC, 0);       /* 2: pid reused: run 2 */
	add_exit(&f, "com.x:inference", 100, T0 - 100 * SEC, 0);      /* 3: before any run */
	add_exit(&f, "com.x", 50, T0 + 121 * SEC, 0);                 /* 4: main process */
	add_exit(&f, "com.x", 100, T0 + 6 * SEC, 0);                  /* 5: main name, inference pid */
	e = add_exit(&f, "com.x:inference", 100, T0 + 5500, 0);       /* 6: another version */
	e->app_version = 41;
	add_exit(&f, "com.other", 100, T0 + 5500, 0);                 /* 7: another app */
	/* 8: local time two hours behind UTC; joins with --tz -02:00 */
	add_exit(&f, "com.x:inference", 200, T0 + 96 * SEC - 2 * 3600 * SEC, 1);
	/* 9: toString minute precision: 00:01:00 for a death at 00:01:35 */
	e = add_exit(&f, "com.x:inference", 200, T0 + 60 * SEC - 2 * 3600 * SEC, 1);
	e->timestamp_precision_ms = 60 * SEC;
	/* 10: never the newest: pid 100 after run 3 (pid 200) began, but inside
	 * run 2's window, joins run 2, not run 3 */
	add_exit(&f, "com.x:inference", 100, T0 + 91 * SEC, 0);
	/* 11: the run id joins whatever the pid says */
	e = add_exit(&f, "com.x:inference", 999, T0 + 500 * SEC, 0);
	e->state = strdup("04040404040404040404040404040404");
	/* 12: no time, pid 100 has two runs */
	add_exit(&f, "com.x:inference", 100, EV_NO_TIME, 0);
	/* 13: no process, no pid */
	add_exit(&f, "", EV_NONE, T0, 0);
	free(f.exits[13].process);
	f.exits[13].process = NULL;

	/* Other evidence: an lmkd kill of pid 100 in run 2's window, and a
	 * tombstone of pid 200 with a zoned timestamp. */
	l = ev_add_log(&f);
	l->type = LOG_LMKD_KILL;
	l->pid = 100;
	l->process = strdup("com.x:inference");
	l->time_text = strdup("12-31 22:01:05.900"); /* local -02:00, the year before */
	t = ev_add_tombstone(&f);
	t->pid = 200;
	t->process = strdup("com.x:inference");
	t->timestamp_text = strdup("2025-12-31 22:01:35.000-0200");

	opt.tz_offset_ms = -2 * 3600 * SEC;
	T_ASSERT(correlate(runs, 4, &f, 1, &opt, &c) == 0, "correlate");
	/* Records 0..7 and 10..13 carry UTC or no time; with the offset their
	 * (UTC) times are unchanged because timestamp_local is 0. */
	EXPECT_RUN(&c, &f, 0, 1);
	EXPECT_RUN(&c, &f, 1, 1);
	EXPECT_RUN(&c, &f, 2, 2);
	EXPECT_UNMATCHED(&c, &f, 3, CORR_OUTSIDE_WINDOW);
	EXPECT_RUN(&c, &f, 4, 0);
	EXPECT_UNMATCHED(&c, &f, 5, CORR_NO_RUN_WITH_PID);
	EXPECT_UNMATCHED(&c, &f, 6, CORR_OTHER_VERSION);
	EXPECT_UNMATCHED(&c, &f, 7, CORR_NO_RUN_OF_PROCESS);
	EXPECT_RUN(&c, &f, 8, 3);
	EXPECT_RUN(&c, &f, 9, 3);
	EXPECT_RUN(&c, &f, 10, 2);
	T_ASSERT(joined(&c, &f, 11, &by_id, NULL) == 3 && by_id, "run-id join");
	EXPECT_UNMATCHED(&c, &f, 12, CORR_NO_TIME);
	EXPECT_UNMATCHED(&c, &f, 13, CORR_NO_PROCESS);
	T_ASSERT(c.runs[1].exits.n == 2 && c.runs[1].exits.v[0].index == 0 &&
		 c.runs[1].exits.v[1].index == 1, "both records of pid 100 join run 1, in order");
	T_ASSERT(c.runs[2].logs.n == 1 && c.runs[1].logs.n == 0, "the lmkd kill joins run 2");
	T_ASSERT(c.runs[2].logs.v[0].time_utc_ms == T0 + 65900, "log time %" PRId64,
		 c.runs[2].logs.v[0].time_utc_ms);
	T_ASSERT(c.runs[3].tombstones.n == 1 &&
		 c.runs[3].tombstones.v[0].time_utc_ms == T0 + 95 * SEC,
		 "the zoned tombstone joins run 3");
	correlation_release(&c);

	/* Without the zone, the local-time records fall before their run. */
	opt.tz_offset_ms = 0;
	T_ASSERT(correlate(runs, 4, &f, 1, &opt, &c) == 0, "correlate");
	EXPECT_UNMATCHED(&c, &f, 8, CORR_OUTSIDE_WINDOW);
	EXPECT_RUN(&c, &f, 0, 1);
	correlation_release(&c);

	/* Time zone spellings. */
	T_ASSERT(corr_parse_tz("+02:00", &off) == 0 && off == 7200000, "+02:00");
	T_ASSERT(corr_parse_tz("-0530", &off) == 0 && off == -19800000, "-0530");
	T_ASSERT(corr_parse_tz("+9", &off) == 0 && off == 32400000, "+9");
	T_ASSERT(corr_parse_tz("UTC", &off) == 0 && off == 0, "UTC");
	T_ASSERT(corr_parse_tz("+25:00", &off) != 0 && corr_parse_tz("CET", &off) != 0 &&
			 corr_parse_tz("+02:0", &off) != 0,
		 "bad zones refused");

	ev_file_release(&f);
	for (i = 0; i < 4; i++)
		free(runs[i].events);
	printf("correlation: 14 exit records, a log line and a tombstone joined as expected\n");
	return T_PASS;
}
