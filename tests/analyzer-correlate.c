/*
 * Correlation of evidence with runs (analyzer/correlate.c), on runs and
 * records built here: process, pid and window; several records per pid;
 * pid reuse; a multi-process app; other versions; the run-id join; time
 * zones and minute precision; never the newest; log lines without a pid.
 */
#include <inttypes.h>

#include "../analyzer/correlate.h"
#include "../analyzer/evidence/logline.h"
#include "helpers.h"

#define SEC 1000LL
#define HOUR (3600 * SEC)
#define DAY (24 * HOUR)
#define T0 1767225600000LL    /* 2026-01-01 00:00:00 UTC, in ms (day 20454) */
#define T2028 1830297600000LL /* 2028-01-01 00:00:00 UTC, in ms (day 21184) */

static struct run make_run(const char *process, uint32_t pid, uint64_t version, uint8_t id,
			   int64_t start_ms, int64_t last_ms)
{
	struct run r;
	struct lw_ring_slot *events = calloc(2, sizeof(*events));

	memset(&r, 0, sizeof(r));
	snprintf(r.hdr.process, sizeof(r.hdr.process), "%s", process);
	r.hdr.pid = pid;
	r.hdr.app_version = version;
	memset(r.hdr.run_id, id, sizeof(r.hdr.run_id));
	r.hdr.start_real_ns = (uint64_t)start_ms * 1000000u;
	r.hdr.start_mono_ns = 5000000000u;
	T_ASSERT(events != NULL, "calloc");
	events[0].seq = 2; /* ticket 0 */
	events[0].t_mono_ns = r.hdr.start_mono_ns;
	events[1].seq = 4;
	events[1].t_mono_ns = r.hdr.start_mono_ns + (uint64_t)(last_ms - start_ms) * 1000000u;
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

/* The UTC time correlate() gives the one record of f (a log line or an exit
 * record) under zone offset tz_ms, joined to the one run r. Releases f. */
static int64_t joined_utc(const struct run *r, struct ev_file *f, int64_t tz_ms)
{
	struct corr_options o = { .tz = { "", tz_ms }, .tz_known = 1, .tolerance_ms = 2000 };
	const struct corr_list *l;
	struct correlation c;
	int64_t t;

	T_ASSERT(correlate(r, 1, f, 1, &o, &c) == 0, "correlate");
	l = f->nlogs ? &c.runs[0].logs : &c.runs[0].exits;
	T_ASSERT(l->n == 1, "the record joins its run");
	t = l->v[0].time_utc_ms;
	correlation_release(&c);
	ev_file_release(f);
	return t;
}

/* A log line of r's pid at the month-day time md (logline_month_day_ms),
 * of year y and zone zone_ms where it writes them (-v year, -v UTC; else
 * EV_NONE and EV_NO_TIME); r being the only run, it joins even untimed. */
static int64_t log_utc_in(const struct run *r, int64_t md, int64_t y, int64_t zone_ms,
			  int64_t tz_ms)
{
	struct log_event *l;
	struct ev_file f;

	memset(&f, 0, sizeof(f));
	l = ev_add_log(&f);
	T_ASSERT(l != NULL, "ev_add_log");
	l->type = LOG_LMKD_KILL;
	l->pid = r->hdr.pid;
	l->time_ms = md;
	l->year = y;
	l->zone_ms = zone_ms;
	return joined_utc(r, &f, tz_ms);
}

/* The same, at the device's local time, with no year. */
static int64_t log_utc(const struct run *r, int64_t md, int64_t tz_ms)
{
	return log_utc_in(r, md, EV_NONE, EV_NO_TIME, tz_ms);
}

/* A dump record of r's process at local wall time local_ms (read as UTC). */
static int64_t dump_utc(const struct run *r, int64_t local_ms, int64_t tz_ms)
{
	struct ev_file f;

	memset(&f, 0, sizeof(f));
	add_exit(&f, r->hdr.process, r->hdr.pid, local_ms, 1);
	return joined_utc(r, &f, tz_ms);
}

/* Local times at the edges of the calendar, each against a run of its own;
 * the expected UTC values are worked out in the comments. */
static void calendar_edges(void)
{
	const int64_t ist = 5 * HOUR + 30 * 60 * SEC; /* +05:30 */
	struct run r;
	int64_t got;

#define EXPECT_TIME(expr, want)                                                        \
	do {                                                                           \
		got = (expr);                                                          \
		T_ASSERT(got == (want), "%s: %" PRId64 ", expected %" PRId64, #expr, got, \
			 (int64_t)(want));                                             \
	} while (0)

	/* A line of Dec 31 for a run that started on Jan 1 (00:00:01 UTC,
	 * no zone) is of the year before: 2025-12-31 23:59:59.500 UTC. */
	r = make_run("com.y", 300, 1, 5, T0 + 1 * SEC, T0 + 10 * SEC);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(12, 31, 24 * HOUR - 500), 0), T0 - 500);
	free(r.events);

	/* A line of Jan 1 for a run that started on Dec 31 (23:59:00 UTC) is of
	 * the year after: 2026-01-01 00:00:10 UTC. */
	r = make_run("com.y", 301, 1, 6, T0 - 60 * SEC, T0 + 60 * SEC);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(1, 1, 10 * SEC), 0), T0 + 10 * SEC);
	free(r.events);

	/* Feb 29 of a leap year: a run from 2028-02-28 23:59 UTC (day 21184 +
	 * 58), a line at 02-29 00:00:01, day 21184 + 59. */
	r = make_run("com.y", 302, 1, 7, T2028 + 58 * DAY + 24 * HOUR - 60 * SEC,
		     T2028 + 59 * DAY + HOUR);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(2, 29, 1 * SEC), 0),
		    T2028 + 59 * DAY + 1 * SEC);
	free(r.events);

	/* Mar 1 is day 60 of logline's leap-year calendar, whatever the year:
	 * 2028-03-01 is day 21184 + 60, 2026-03-01 day 20454 + 59. */
	r = make_run("com.y", 303, 1, 8, T2028 + 59 * DAY + 24 * HOUR - 60 * SEC,
		     T2028 + 60 * DAY + HOUR);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(3, 1, 1 * SEC), 0),
		    T2028 + 60 * DAY + 1 * SEC);
	free(r.events);
	r = make_run("com.y", 304, 1, 9, T0 + 58 * DAY + 24 * HOUR - 60 * SEC,
		     T0 + 59 * DAY + HOUR);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(3, 1, 1 * SEC), 0), T0 + 59 * DAY + 1 * SEC);
	free(r.events);

	/* Feb 29 near 2026: none of 2025, 2026, 2027 has one, so the line has
	 * no time (it still joins the only run with its pid). */
	r = make_run("com.y", 305, 1, 10, T0 + 58 * DAY, T0 + 59 * DAY);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(2, 29, 1 * SEC), 0), EV_NO_TIME);
	free(r.events);

	/* +05:30 across midnight: a run from 2025-12-31 20:00 UTC, already
	 * 2026-01-01 01:30 on the device. A line at 01-01 01:31 is 2025-12-31
	 * 20:01 UTC; a dump time of 2026-01-01 01:35 is 20:05 UTC. */
	r = make_run("com.y", 306, 1, 11, T0 - 4 * HOUR, T0 - 4 * HOUR + 60 * SEC);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(1, 1, HOUR + 31 * 60 * SEC), ist),
		    T0 - 4 * HOUR + 60 * SEC);
	EXPECT_TIME(dump_utc(&r, T0 + HOUR + 35 * 60 * SEC, ist), T0 - 4 * HOUR + 5 * 60 * SEC);
	free(r.events);

	/* -08:00 across midnight: a run from 2026-01-01 02:00 UTC, still
	 * 2025-12-31 18:00 on the device. A line at 12-31 18:05 is of 2025,
	 * 2026-01-01 02:05 UTC; so is a dump time of 2025-12-31 18:05. */
	r = make_run("com.y", 307, 1, 12, T0 + 2 * HOUR, T0 + 2 * HOUR + 60 * SEC);
	EXPECT_TIME(log_utc(&r, logline_month_day_ms(12, 31, 18 * HOUR + 5 * 60 * SEC), -8 * HOUR),
		    T0 + 2 * HOUR + 5 * 60 * SEC);
	EXPECT_TIME(dump_utc(&r, T0 - 6 * HOUR + 5 * 60 * SEC, -8 * HOUR),
		    T0 + 2 * HOUR + 5 * 60 * SEC);
	free(r.events);

	/* A line that writes its year and zone (logcat -v year -v UTC) is read
	 * at them, whatever the device's zone (-08:00): 2025-12-31
	 * 23:59:59.500 +0000 for a run across midnight, and the same instant
	 * as 2026-01-01 05:29:59.500 +0530; with its year and no zone, it is
	 * read in the device's zone. */
	r = make_run("com.y", 308, 1, 13, T0 - HOUR, T0 + HOUR);
	EXPECT_TIME(log_utc_in(&r, logline_month_day_ms(12, 31, 24 * HOUR - 500), 2025, 0, -8 * HOUR),
		    T0 - 500);
	EXPECT_TIME(log_utc_in(&r, logline_month_day_ms(1, 1, 5 * HOUR + 30 * 60 * SEC - 500), 2026,
			       ist, -8 * HOUR),
		    T0 - 500);
	EXPECT_TIME(log_utc_in(&r, logline_month_day_ms(12, 31, 16 * HOUR), 2025, EV_NO_TIME,
			       -8 * HOUR),
		    T0);
	free(r.events);
#undef EXPECT_TIME
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

/* Record i made a ring-less run of its own (after the runs given), and why
 * no ring had it. */
#define EXPECT_RINGLESS(c, f, i, reason)                                                  \
	do {                                                                              \
		int got_ = joined(c, f, i, NULL, NULL);                                   \
		T_ASSERT(got_ >= (int)(c)->ngiven && (c)->runs[got_].no_ring == (reason), \
			 "record %d: run %d (%s), expected a ring-less run (%s)", (int)(i),  \
			 got_, got_ >= 0 ? corr_reason_name((c)->runs[got_].no_ring) : "-",  \
			 corr_reason_name(reason));                                          \
	} while (0)

/* The run that log line i of f joined, or -1. */
static int log_joined(const struct correlation *c, const struct ev_file *f, size_t i)
{
	size_t k, m;

	for (k = 0; k < c->nruns; k++)
		for (m = 0; m < c->runs[k].logs.n; m++)
			if (c->runs[k].logs.v[m].file == f && c->runs[k].logs.v[m].index == i)
				return (int)k;
	return -1;
}

/* A native crash's am_crash names its process and no pid (system_server
 * writes its own): it joins the one run of that process whose exit window
 * holds its time, and nothing when it has no time or fits no window. */
static void name_join(void)
{
	static const struct {
		const char *process;
		int64_t at_ms;  /* UTC, or EV_NO_TIME */
		int run;        /* expected, -1: none */
	} cases[] = {
		{ "com.y:inference", T0 + 5500, 0 },       /* after run 0's last record */
		{ "com.y:inference", T0 + 66 * SEC, 1 },   /* after run 1's */
		{ "com.y:inference", T0 + 1 * SEC, -1 },   /* before run 0's last record */
		{ "com.y:inference", EV_NO_TIME, -1 },     /* a name alone */
		{ "com.z", T0 + 5500, -1 },                /* another process */
		{ NULL, T0 + 5500, -1 },                   /* neither pid nor name */
	};
	struct corr_options opt = { .tz_known = 1, .tolerance_ms = 2000 };
	struct correlation c;
	struct ev_file f;
	struct run runs[2];
	size_t i;

	runs[0] = make_run("com.y:inference", 300, 42, 5, T0, T0 + 5 * SEC);
	runs[1] = make_run("com.y:inference", 400, 42, 6, T0 + 60 * SEC, T0 + 65 * SEC);
	memset(&f, 0, sizeof(f));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct log_event *l = ev_add_log(&f);

		T_ASSERT(l != NULL, "ev_add_log");
		l->type = LOG_EV_AM_CRASH;
		l->process = cases[i].process ? strdup(cases[i].process) : NULL;
		l->reason = strdup("Native crash: Segmentation fault");
		/* logcat's month-day time: 2026-01-01 is day 0 of its year */
		l->time_ms = cases[i].at_ms == EV_NO_TIME
				     ? EV_NO_TIME
				     : logline_month_day_ms(1, 1, cases[i].at_ms - T0);
	}
	T_ASSERT(correlate(runs, 2, &f, 1, &opt, &c) == 0, "correlate");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		T_ASSERT(log_joined(&c, &f, i) == cases[i].run, "am_crash %zu joins run %d, not %d",
			 i, cases[i].run, log_joined(&c, &f, i));
	T_ASSERT(c.runs[1].logs.v[0].time_utc_ms == T0 + 66 * SEC, "its time in UTC");
	correlation_release(&c);
	ev_file_release(&f);
	free(runs[0].events);
	free(runs[1].events);
}

int main(void)
{
	struct corr_options opt = { .tz_known = 1, .tolerance_ms = 2000 };
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
	l->time_ms = logline_month_day_ms(12, 31, 22 * HOUR + 65900);
	t = ev_add_tombstone(&f);
	t->pid = 200;
	t->process = strdup("com.x:inference");
	t->timestamp_text = strdup("2025-12-31 22:01:35.000-0200");

	opt.tz.offset_ms = -2 * 3600 * SEC;
	T_ASSERT(correlate(runs, 4, &f, 1, &opt, &c) == 0, "correlate");
	/* Records 0..7 and 10..13 carry UTC or no time; with the offset their
	 * (UTC) times are unchanged because timestamp_local is 0. */
	EXPECT_RUN(&c, &f, 0, 1);
	EXPECT_RUN(&c, &f, 1, 1);
	EXPECT_RUN(&c, &f, 2, 2);
	/* A record that no ring has is a ring-less run of the app's
	 * (DESIGN.md, "Runs without a ring"), never a ring's. */
	EXPECT_RINGLESS(&c, &f, 3, CORR_OUTSIDE_WINDOW);
	EXPECT_RUN(&c, &f, 4, 0);
	EXPECT_RINGLESS(&c, &f, 5, CORR_NO_RUN_WITH_PID);
	EXPECT_RINGLESS(&c, &f, 6, CORR_OTHER_VERSION);
	EXPECT_UNMATCHED(&c, &f, 7, CORR_OTHER_PACKAGE);
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

	/* With a wrong zone given, the local-time records fall before their
	 * run: a death of their own. */
	opt.tz.offset_ms = 0;
	T_ASSERT(correlate(runs, 4, &f, 1, &opt, &c) == 0, "correlate");
	EXPECT_RINGLESS(&c, &f, 8, CORR_OUTSIDE_WINDOW);
	EXPECT_RUN(&c, &f, 0, 1);
	correlation_release(&c);

	/* With no zone known, they fit their run at -02:00: the zone is what
	 * is unknown, and they are no death of their own. */
	opt.tz_known = 0;
	T_ASSERT(correlate(runs, 4, &f, 1, &opt, &c) == 0, "correlate");
	EXPECT_UNMATCHED(&c, &f, 8, CORR_TZ_UNKNOWN);
	EXPECT_RINGLESS(&c, &f, 3, CORR_OUTSIDE_WINDOW);
	correlation_release(&c);
	opt.tz_known = 1;

	/* Time zone spellings. */
	T_ASSERT(tz_parse_offset("+02:00", &off) == 0 && off == 7200000, "+02:00");
	T_ASSERT(tz_parse_offset("-0530", &off) == 0 && off == -19800000, "-0530");
	T_ASSERT(tz_parse_offset("+9", &off) == 0 && off == 32400000, "+9");
	T_ASSERT(tz_parse_offset("UTC", &off) == 0 && off == 0, "UTC");
	T_ASSERT(tz_parse_offset("+25:00", &off) != 0 && tz_parse_offset("CET", &off) != 0 &&
			 tz_parse_offset("+02:0", &off) != 0,
		 "bad zones refused");

	ev_file_release(&f);
	for (i = 0; i < 4; i++)
		free(runs[i].events);
	calendar_edges();
	name_join();
	printf("correlation: 14 exit records, a log line and a tombstone joined as expected; "
	       "local times at the calendar's edges; log lines without a pid by name\n");
	return T_PASS;
}
