/*
 * Joining evidence to runs (process, pid, time window, app version, run
 * id), and the deaths that no ring tells as ring-less runs.
 */
#include "correlate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../src/digest.h"
#include "../src/exit-info.h"
#include "format.h"
#include "tz.h"
#include "evidence/logline.h"
#include "evidence/text.h"

static const char *const reason_names[] = {
#define X(up, name, text) #name,
	CORR_REASONS(X)
#undef X
};

static const char *const reason_texts[] = {
#define X(up, name, text) text,
	CORR_REASONS(X)
#undef X
};

const char *corr_reason_name(enum corr_reason r)
{
	return (unsigned)r < CORR_REASON_COUNT ? reason_names[r] : "unknown";
}

const char *corr_reason_text(enum corr_reason r)
{
	return (unsigned)r < CORR_REASON_COUNT ? reason_texts[r] : "unknown";
}

#define DAY_MS 86400000LL

/*
 * The one conversion of a device's local wall time to UTC, in zone z (at
 * its offset of that date). local_ms is the wall clock read as if it were
 * UTC (a dump's timestamp, a date written without a zone) when near_utc_ms
 * is EV_NO_TIME. Otherwise it is a log's month-day time, which has no year
 * (logline_month_day_ms), and goes in the year that puts it nearest to
 * near_utc_ms: the local year of near_utc_ms, the one before or the one
 * after (the earlier on a tie), among those that have its date.
 */
static int64_t local_to_utc_in(int64_t local_ms, int64_t near_utc_ms, const struct tz_zone *z)
{
	int64_t best = EV_NO_TIME, local_near, y, k;

	if (local_ms == EV_NO_TIME)
		return EV_NO_TIME;
	if (near_utc_ms == EV_NO_TIME)
		return tz_to_utc(z, local_ms);
	local_near = near_utc_ms + tz_offset_at(z, near_utc_ms);
	y = text_year_of_days(local_near / DAY_MS - (local_near % DAY_MS < 0));
	for (k = y - 1; k <= y + 1; k++) {
		int64_t t = logline_in_year(local_ms, k);

		if (t == EV_NO_TIME)
			continue;
		t = tz_to_utc(z, t);
		if (best == EV_NO_TIME || llabs(t - near_utc_ms) < llabs(best - near_utc_ms))
			best = t;
	}
	return best;
}

static int64_t local_to_utc(int64_t local_ms, int64_t near_utc_ms, const struct corr_options *opt)
{
	return local_to_utc_in(local_ms, near_utc_ms, &opt->tz);
}

/* The UTC time of a log line: with the year and the zone it writes (-v
 * year, -v zone, -v UTC) where it has them, else the device's zone and,
 * for a year-less date, the year nearest to near_utc_ms; EV_NO_TIME for a
 * year-less date with nothing to place it near. */
static int64_t log_time(const struct log_event *e, int64_t near_utc_ms,
			const struct corr_options *opt)
{
	struct tz_zone own = { "", e->zone_ms };
	const struct tz_zone *z = e->zone_ms != EV_NO_TIME ? &own : &opt->tz;
	int64_t t;

	if (e->year == EV_NONE)
		return near_utc_ms == EV_NO_TIME ? EV_NO_TIME : local_to_utc_in(e->time_ms, near_utc_ms, z);
	t = logline_in_year(e->time_ms, e->year);
	return t == EV_NO_TIME ? EV_NO_TIME : tz_to_utc(z, t);
}

/* A log line's time with no zone, as a wall time read as UTC (with its
 * year), or as its month-day time (*yearless); EV_NO_TIME when it has a
 * zone or no time. */
static int64_t log_local(const struct log_event *e, int *yearless)
{
	*yearless = e->year == EV_NONE;
	if (e->zone_ms != EV_NO_TIME || e->time_ms == EV_NO_TIME)
		return EV_NO_TIME;
	return *yearless ? e->time_ms : logline_in_year(e->time_ms, e->year);
}

/* A date-time with an optional zone after it (tz_stamp), in UTC. When
 * local is not NULL, *local says whether it had no zone (1) or had one (0). */
static int64_t parse_zoned(const char *s, const struct corr_options *opt, int *local)
{
	int64_t ms, off;
	int zoned = tz_stamp(s, &ms, &off);

	if (zoned < 0)
		return EV_NO_TIME;
	if (local)
		*local = !zoned;
	return zoned ? ms - off : local_to_utc(ms, EV_NO_TIME, opt);
}

/* Does f hold a wall time with no zone (see corr_tz_assumed)? */
static int has_local_time(const struct ev_file *f, const struct corr_options *opt)
{
	size_t i;
	int local = 0;

	for (i = 0; i < f->nexits; i++)
		if (f->exits[i].timestamp_local && f->exits[i].timestamp_ms != EV_NO_TIME)
			return 1;
	for (i = 0; i < f->nlogs; i++)
		if (f->logs[i].time_ms != EV_NO_TIME && f->logs[i].zone_ms == EV_NO_TIME)
			return 1;
	for (i = 0; i < f->ntombstones; i++)
		if (parse_zoned(f->tombstones[i].timestamp_text, opt, &local) != EV_NO_TIME &&
		    local)
			return 1;
	for (i = 0; i < f->nanrs; i++)
		if (parse_zoned(f->anrs[i].time_text, opt, &local) != EV_NO_TIME && local)
			return 1;
	return 0;
}

static const char *const tz_source_names[] = {
#define X(up, name) #name,
	CORR_TZ_SOURCES(X)
#undef X
};

const char *corr_tz_source_name(enum corr_tz_source s)
{
	return (unsigned)s < CORR_TZ_SOURCE_COUNT ? tz_source_names[s] : "none";
}

int64_t corr_tz_offset(const struct correlation *c)
{
	return tz_offset_at(&c->opt.tz, c->newest_ms == EV_NO_TIME ? 0 : c->newest_ms);
}

int corr_tz_assumed(const struct correlation *c)
{
	return !c->opt.tz_known && c->local_times;
}

int64_t corr_exit_time(const struct exit_record *r, const struct corr_options *opt,
		       int64_t *slack_ms)
{
	*slack_ms = r->timestamp_precision_ms > 1 ? r->timestamp_precision_ms : 0;
	if (r->timestamp_ms == EV_NO_TIME || !r->timestamp_local)
		return r->timestamp_ms;
	return local_to_utc(r->timestamp_ms, EV_NO_TIME, opt);
}

/* The run header's process name is cut at 63 bytes. */
static int same_process(const struct run *r, const char *process)
{
	size_t n = strnlen(r->hdr.process, sizeof(r->hdr.process));

	if (!process)
		return 0;
	if (n == sizeof(r->hdr.process) - 1)
		return strncmp(r->hdr.process, process, n) == 0;
	return strcmp(r->hdr.process, process) == 0;
}

/* Logs and native crash lines shorten names (the kernel's 15-byte comm,
 * the last part of a package): accept a suffix either way, and a name
 * that is not there. */
static int loose_names(const char *x, const char *y)
{
	size_t a, b;

	if (!x || !y)
		return 1;
	a = strlen(x);
	b = strlen(y);
	if (a == 0 || b == 0)
		return 1;
	if (a >= b)
		return strcmp(x + a - b, y) == 0;
	return strcmp(y + b - a, x) == 0;
}

static int loose_process(const struct run *r, const char *process)
{
	return loose_names(r->hdr.process, process);
}

int64_t corr_run_time_ms(const struct run *r, uint64_t t_mono_ns)
{
	return (int64_t)((r->hdr.start_real_ns + (t_mono_ns - r->hdr.start_mono_ns)) / 1000000u);
}

/* The time a log's year-less date is placed near: a run's start, or the
 * death of a ring-less run; EV_NO_TIME for a ring-less run with no time. */
static int64_t anchor_ms(const struct corr_run *cr)
{
	if (cr->run->ring != RUN_RING_NONE)
		return cr->start_ms;
	return cr->last_ms == CORR_NO_START ? EV_NO_TIME : cr->last_ms;
}

const struct corr_list *corr_run_list(const struct corr_run *cr, enum corr_kind k)
{
	switch (k) {
	case CORR_EXITS:
		return &cr->exits;
	case CORR_TOMBSTONES:
		return &cr->tombstones;
	case CORR_ANRS:
		return &cr->anrs;
	case CORR_LOGS:
		break;
	}
	return &cr->logs;
}

/* The list that push() adds to: the run's own, which correlate() fills. */
static struct corr_list *list_of(struct corr_run *cr, enum corr_kind k)
{
	return (struct corr_list *)corr_run_list(cr, k);
}

/* Whether record i of f is one that m already holds, read from another
 * input (two pulls of one device share exit records and log lines). */
static int same_record(enum corr_kind k, const struct corr_match *m, const struct ev_file *f,
		       size_t i)
{
	switch (k) {
	case CORR_EXITS:
		return exit_record_same(&m->file->exits[m->index], &f->exits[i]);
	case CORR_TOMBSTONES:
		return tombstone_same(&m->file->tombstones[m->index], &f->tombstones[i]);
	case CORR_ANRS:
		return anr_trace_same(&m->file->anrs[m->index], &f->anrs[i]);
	case CORR_LOGS:
		return log_event_same(&m->file->logs[m->index], &f->logs[i]);
	}
	return 0;
}

/* Add record i of f to run cr's list of kind k, unless the list holds the
 * same record from another input: that counts once (c->repeats). */
static int push(struct correlation *c, struct corr_run *cr, enum corr_kind k,
		const struct ev_file *f, size_t i, int by_id, int64_t t)
{
	struct corr_list *l = list_of(cr, k);
	struct corr_match *nv;
	size_t n;

	for (n = 0; n < l->n; n++) {
		if (l->v[n].file != f && same_record(k, &l->v[n], f, i)) {
			/* A tombstone and its protobuf twin (tombstone_NN and
			 * tombstone_NN.pb): one witness, the protobuf, which
			 * has every thread. */
			if (k == CORR_TOMBSTONES && f->tombstones[i].protobuf &&
			    !l->v[n].file->tombstones[l->v[n].index].protobuf) {
				l->v[n].file = f;
				l->v[n].index = i;
			}
			c->repeats++;
			return 0;
		}
	}
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	l->v = nv;
	l->v[l->n].file = f;
	l->v[l->n].index = i;
	l->v[l->n].by_run_id = by_id;
	l->v[l->n].time_utc_ms = t;
	l->n++;
	return 0;
}

static int add_unmatched(struct correlation *c, const struct ev_file *f, size_t i,
			 enum corr_reason why)
{
	struct corr_unmatched *nv;
	size_t n;

	for (n = 0; n < c->nunmatched; n++) {
		const struct corr_unmatched *u = &c->unmatched[n];

		if (u->file != f && exit_record_same(&u->file->exits[u->index], &f->exits[i])) {
			c->repeats++;
			return 0;
		}
	}
	nv = ev_grow((void **)&c->unmatched, c->nunmatched, sizeof(*nv));
	if (!nv)
		return -1;
	c->unmatched[c->nunmatched].file = f;
	c->unmatched[c->nunmatched].index = i;
	c->unmatched[c->nunmatched].reason = why;
	c->nunmatched++;
	return 0;
}

/* When run cr's window ends: the next run's start, or the time its
 * peer_died mark says it had died by, if earlier; INT64_MAX: open. */
static int64_t window_end(const struct corr_run *cr)
{
	return cr->peer.witness && cr->peer.time_ms < cr->next_start_ms ? cr->peer.time_ms
									  : cr->next_start_ms;
}

/* Does t fall in [from, end], within tol? end INT64_MAX: no end. */
static int in_span(int64_t t, int64_t from, int64_t end, int64_t tol)
{
	return t >= from - tol && (end == INT64_MAX || t <= end + tol);
}

/* Does time t (with slack) fall in run cr's window for an exit? */
static int in_exit_window(const struct corr_run *cr, int64_t t, int64_t slack,
			  const struct corr_options *opt)
{
	return in_span(t, cr->last_ms, window_end(cr), opt->tolerance_ms + slack);
}

/* Evidence that may come before the death (an ANR trace, a kill line). */
static int in_run_window(const struct corr_run *cr, int64_t t, const struct corr_options *opt)
{
	return in_span(t, cr->start_ms, window_end(cr), opt->tolerance_ms);
}

/* The offsets a device's zone may have: a quarter hour from -12:00 to
 * +14:00. */
#define ZONE_STEP_MS (15 * 60000LL)
#define ZONE_WEST_MS (-12 * 3600000LL)
#define ZONE_EAST_MS (14 * 3600000LL)

/*
 * Whether a local time that fits no window of run cr would fit it at
 * another offset than the one assumed: the zone, not the run, is then what
 * is unknown. local_ms is a wall time read as UTC, or a log's year-less
 * date when yearless; exit: the death window (in_exit_window, with slack),
 * else the run's whole window.
 */
static int fits_other_zone(const struct correlation *c, const struct corr_run *cr,
			   int64_t local_ms, int yearless, int64_t slack, int exit)
{
	struct tz_zone other = { "", 0 };
	int64_t t;

	for (other.offset_ms = ZONE_WEST_MS; other.offset_ms <= ZONE_EAST_MS;
	     other.offset_ms += ZONE_STEP_MS) {
		if (!c->opt.tz.name[0] && other.offset_ms == c->opt.tz.offset_ms)
			continue;
		t = local_to_utc_in(local_ms, yearless ? anchor_ms(cr) : EV_NO_TIME, &other);
		if (t != EV_NO_TIME &&
		    (exit ? in_exit_window(cr, t, slack, &c->opt) : in_run_window(cr, t, &c->opt)))
			return 1;
	}
	return 0;
}

static int run_id_is(const struct run *r, const char *state)
{
	char hex[40];

	if (!state || strlen(state) != 32)
		return 0;
	fmt_id128(hex, sizeof(hex), r->hdr.run_id);
	return strcasecmp(hex, state) == 0;
}

/* Whether run cr may be the one of exit record r, but for its time. */
static int exit_may_be_of(const struct corr_run *cr, const struct exit_record *r)
{
	return same_process(cr->run, r->process) && r->pid == (int64_t)cr->run->hdr.pid &&
	       (r->app_version == EV_NONE || (uint64_t)r->app_version == cr->run->hdr.app_version);
}

static int join_exit(struct correlation *c, const struct ev_file *f, size_t i)
{
	const struct exit_record *r = &f->exits[i];
	size_t k, found = SIZE_MAX, nproc = 0, npid = 0, nver = 0, nfit = 0;
	int64_t slack, t;

	if (!r->process && r->pid == EV_NONE)
		return add_unmatched(c, f, i, CORR_NO_PROCESS);
	for (k = 0; k < c->nruns; k++)
		if (run_id_is(c->runs[k].run, r->state) && same_process(c->runs[k].run, r->process))
			return push(c, &c->runs[k], CORR_EXITS, f, i, 1,
				    corr_exit_time(r, &c->opt, &slack));
	t = corr_exit_time(r, &c->opt, &slack);
	for (k = 0; k < c->nruns; k++) {
		const struct corr_run *cr = &c->runs[k];

		if (!same_process(cr->run, r->process))
			continue;
		nproc++;
		if (r->pid != (int64_t)cr->run->hdr.pid)
			continue;
		npid++;
		if (!exit_may_be_of(cr, r))
			continue;
		nver++;
		if (t != EV_NO_TIME && !in_exit_window(cr, t, slack, &c->opt))
			continue;
		nfit++;
		found = k;
	}
	if (!nproc)
		return add_unmatched(c, f, i, CORR_NO_RUN_OF_PROCESS);
	if (!npid)
		return add_unmatched(c, f, i, CORR_NO_RUN_WITH_PID);
	if (!nver)
		return add_unmatched(c, f, i, CORR_OTHER_VERSION);
	if (nfit == 0) {
		/* With no zone known, a local time that fits at another offset
		 * may well be this run's death. */
		for (k = 0; !c->opt.tz_known && r->timestamp_local && k < c->nruns; k++)
			if (exit_may_be_of(&c->runs[k], r) &&
			    fits_other_zone(c, &c->runs[k], r->timestamp_ms, 0, slack, 1))
				return add_unmatched(c, f, i, CORR_TZ_UNKNOWN);
		return add_unmatched(c, f, i, CORR_OUTSIDE_WINDOW);
	}
	if (nfit > 1)
		return add_unmatched(c, f, i, t == EV_NO_TIME ? CORR_NO_TIME : CORR_AMBIGUOUS);
	return push(c, &c->runs[found], CORR_EXITS, f, i, 0, t);
}

/* Peer deaths: the peer_died marks of the rings (lw_peer_died(3)). */

/* Whether the peer_died mark m of run w, at UTC time t, names run cr: its
 * pid and, for a ring, the digest of its process name, or for a ring-less
 * run the package of w; and cr's death window (by its last record and the
 * next run: a mark does not narrow another's) holds t. A live ring has not
 * died. */
static int peer_names(const struct corr_run *cr, const struct run *w, const struct lw_ring_slot *m,
		      int64_t t, const struct corr_options *opt)
{
	const struct run *r = cr->run;
	char a[LW_RING_PROCESS_MAX], b[LW_RING_PROCESS_MAX];
	int named;

	if (r == w || m->a != r->hdr.pid || r->outcome == RING_OUTCOME_LIVE)
		return 0;
	if (r->ring == RUN_RING_PROBE)
		named = digest_name(r->hdr.process) == m->b;
	else
		named = r->ring == RUN_RING_NONE &&
			strcmp(corr_package_of(r->hdr.process, a, sizeof(a)),
			       corr_package_of(w->hdr.process, b, sizeof(b))) == 0;
	return named && in_span(t, cr->last_ms, cr->next_start_ms, opt->tolerance_ms);
}

/* The one run of [from, to) that mark m of w at t names; SIZE_MAX if none
 * or more than one. *n is how many it names. */
static size_t peer_run(const struct correlation *c, size_t from, size_t to, const struct run *w,
		       const struct lw_ring_slot *m, int64_t t, size_t *n)
{
	size_t k, found = SIZE_MAX;

	*n = 0;
	for (k = from; k < to; k++) {
		if (!peer_names(&c->runs[k], w, m, t, &c->opt))
			continue;
		found = k;
		(*n)++;
	}
	return *n == 1 ? found : SIZE_MAX;
}

/* Each peer_died mark of the given rings to the one run of [from, to) it
 * names, unless one of the runs before from may be its (those are joined
 * first); a run keeps its earliest. */
static void join_peers(struct correlation *c, size_t from, size_t to)
{
	size_t i, e, k, n;

	for (i = 0; i < c->ngiven; i++) {
		const struct run *w = c->runs[i].run;

		for (e = 0; w->ring == RUN_RING_PROBE && e < w->nevents; e++) {
			const struct lw_ring_slot *m = &w->events[e];
			int64_t t;

			if (m->type != LW_EV_MARK || m->code != LW_MARK_PEER_DIED)
				continue;
			t = corr_run_time_ms(w, m->t_mono_ns);
			if (from) {
				peer_run(c, 0, from, w, m, t, &n);
				if (n)
					continue;
			}
			k = peer_run(c, from, to, w, m, t, &n);
			if (k != SIZE_MAX && (!c->runs[k].peer.witness || t < c->runs[k].peer.time_ms))
				c->runs[k].peer = (struct corr_peer){ w, e, t };
		}
	}
}

/* Other evidence: pid (and a compatible name), in the window of one of
 * runs [from, to) when it has a time, else only when one of them had that
 * pid. *n is how many fit. */
static size_t find_run_by_pid(const struct correlation *c, size_t from, size_t to, int64_t pid,
			      const char *process, int64_t t, size_t *n)
{
	size_t k, found = SIZE_MAX;

	*n = 0;
	if (pid == EV_NONE)
		return SIZE_MAX;
	for (k = from; k < to; k++) {
		const struct corr_run *cr = &c->runs[k];

		if ((int64_t)cr->run->hdr.pid != pid || !loose_process(cr->run, process))
			continue;
		if (t != EV_NO_TIME && !in_run_window(cr, t, &c->opt))
			continue;
		found = k;
		(*n)++;
	}
	return *n == 1 ? found : SIZE_MAX;
}

/* A log line that names its process but no pid (an am_crash of a native
 * crash, which system_server writes with its own pid): the one of runs
 * [from, to) of that process whose death window (in_exit_window) holds the
 * line's time. A name alone does not tell the runs of a process apart, so
 * the line needs a time. On success *when is that time in UTC; *n is how
 * many fit. */
static size_t find_run_by_name(const struct correlation *c, size_t from, size_t to,
			       const struct log_event *e, int64_t *when, size_t *n)
{
	size_t k, found = SIZE_MAX;
	int64_t t, found_t = EV_NO_TIME;

	*n = 0;
	if (!e->process || e->time_ms == EV_NO_TIME)
		return SIZE_MAX;
	for (k = from; k < to; k++) {
		const struct corr_run *cr = &c->runs[k];

		if (!same_process(cr->run, e->process))
			continue;
		t = log_time(e, anchor_ms(cr), &c->opt);
		if (t == EV_NO_TIME || !in_exit_window(cr, t, 0, &c->opt))
			continue;
		found = k;
		found_t = t;
		(*n)++;
	}
	if (*n != 1)
		return SIZE_MAX;
	*when = found_t;
	return found;
}

/* Whose death a tombstone or an ANR trace (record i of kind k of f)
 * tells, and when, as written. */
static void witness(enum corr_kind k, const struct ev_file *f, size_t i, const char **process,
		    int64_t *pid, const char **when)
{
	if (k == CORR_TOMBSTONES) {
		*process = f->tombstones[i].process;
		*pid = f->tombstones[i].pid;
		*when = f->tombstones[i].timestamp_text;
	} else {
		*process = f->anrs[i].cmdline;
		*pid = f->anrs[i].pid;
		*when = f->anrs[i].time_text;
	}
}

/* A log line about the whole system, not one process: system_server's
 * watchdog killing it ends every app process with it. */
static int system_wide(enum corr_kind k, const struct ev_file *f, size_t i)
{
	return k == CORR_LOGS && f->logs[i].type == LOG_WATCHDOG_KILL;
}

/* A system-wide line (system_wide()) joins each of runs [from, to) whose
 * death window holds its time; *none when it joins none. */
static int join_every(struct correlation *c, const struct ev_file *f, size_t i, size_t from,
		      size_t to, int *none)
{
	const struct log_event *e = &f->logs[i];
	size_t r;

	*none = 1;
	for (r = from; r < to; r++) {
		struct corr_run *cr = &c->runs[r];
		int64_t t = log_time(e, anchor_ms(cr), &c->opt);

		if (t == EV_NO_TIME || !in_exit_window(cr, t, 0, &c->opt))
			continue;
		*none = 0;
		if (push(c, cr, CORR_LOGS, f, i, 0, t) != 0)
			return -1;
	}
	return 0;
}

/* Join record i of kind k (not an exit record) of f to one of runs
 * [from, to), or a system-wide line to each it may be of. *none says
 * whether none of them could have it (rather than more than one).
 * Returns 0, or -1 on ENOMEM. */
static int join_one(struct correlation *c, enum corr_kind k, const struct ev_file *f, size_t i,
		    size_t from, size_t to, int *none)
{
	int64_t when = EV_NO_TIME, pid;
	const char *process, *text;
	const struct log_event *e = k == CORR_LOGS ? &f->logs[i] : NULL;
	size_t found, n, r;

	if (system_wide(k, f, i))
		return join_every(c, f, i, from, to, none);
	if (!e) {
		witness(k, f, i, &process, &pid, &text);
		when = parse_zoned(text, &c->opt, NULL);
		found = find_run_by_pid(c, from, to, pid, process, when, &n);
	} else if (e->pid == EV_NONE) {
		found = find_run_by_name(c, from, to, e, &when, &n);
	} else {
		/* Place a year-less time near a run with this pid. */
		for (r = from; r < to && when == EV_NO_TIME; r++)
			if ((int64_t)c->runs[r].run->hdr.pid == e->pid)
				when = log_time(e, anchor_ms(&c->runs[r]), &c->opt);
		found = find_run_by_pid(c, from, to, e->pid, e->process, when, &n);
	}
	*none = n == 0;
	return found == SIZE_MAX ? 0 : push(c, &c->runs[found], k, f, i, 0, when);
}

/* Evidence that no ring could have: it may tell a ring-less run's death,
 * or join one. */
struct leftover {
	enum corr_kind kind;
	const struct ev_file *file;
	size_t index;
	int seed; /* it became a ring-less run's witness */
};

struct leftovers {
	struct leftover *v;
	size_t n;
};

static int add_leftover(struct leftovers *l, enum corr_kind k, const struct ev_file *f, size_t i)
{
	struct leftover *x = ev_grow((void **)&l->v, l->n, sizeof(*l->v));

	if (!x)
		return -1;
	*x = (struct leftover){ k, f, i, 0 };
	l->n++;
	return 0;
}

/* Every tombstone, ANR trace and log line of f to one of runs [from, to);
 * with left not NULL, those that none could have are added to it. */
static int join_other(struct correlation *c, const struct ev_file *f, size_t from, size_t to,
		      struct leftovers *left)
{
	static const enum corr_kind kinds[] = { CORR_TOMBSTONES, CORR_ANRS, CORR_LOGS };
	size_t i, k, n;
	int none;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		n = kinds[k] == CORR_TOMBSTONES ? f->ntombstones : kinds[k] == CORR_ANRS ? f->nanrs : f->nlogs;
		for (i = 0; i < n; i++) {
			if (join_one(c, kinds[k], f, i, from, to, &none) != 0)
				return -1;
			/* A system-wide line may be of the ring-less runs too. */
			if (left && (none || system_wide(kinds[k], f, i)) &&
			    add_leftover(left, kinds[k], f, i) != 0)
				return -1;
		}
	}
	return 0;
}

/* Packages. */

const char *corr_package_why_name(enum corr_package_why w)
{
	switch (w) {
	case CORR_PACKAGE_RING:
		return "ring";
	case CORR_PACKAGE_OPTION:
		return "option";
	case CORR_PACKAGE_PRESENT:
		break;
	}
	return "present";
}

char *corr_package_of(const char *process, char *out, size_t size)
{
	snprintf(out, size, "%.*s", (int)strcspn(process, ":"), process);
	return out;
}

static int judged_package(const struct correlation *c, const char *name)
{
	size_t i;

	for (i = 0; name && i < c->npackages; i++)
		if (strcmp(c->packages[i].name, name) == 0)
			return 1;
	return 0;
}

static int add_package(struct correlation *c, const char *name, enum corr_package_why why)
{
	struct corr_package *nv;

	if (!name || !name[0] || judged_package(c, name))
		return 0;
	nv = realloc(c->packages, (c->npackages + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	c->packages = nv;
	nv[c->npackages].why = why;
	if (!(nv[c->npackages].name = strdup(name)))
		return -1;
	c->npackages++;
	return 0;
}

/* The package of a process name that a witness gives; NULL for none. */
static const char *package_of(const char *process, char *buf, size_t size)
{
	return process && process[0] ? corr_package_of(process, buf, size) : NULL;
}

/* The package of an exit record: its dump's section, else its process's. */
static const char *exit_package(const struct exit_record *r, char *buf, size_t size)
{
	return r->package ? r->package : package_of(r->process, buf, size);
}

/* The packages judged: the rings', then --package's; with neither, every
 * package of the exit records, or without any, of the tombstones and ANR
 * traces. A system-wide log (lmkd's kills) never names them. */
static int find_packages(struct correlation *c, const struct ev_file *files, size_t nfiles)
{
	char buf[LW_RING_PROCESS_MAX];
	size_t i, k;
	int present;

	for (i = 0; i < c->ngiven; i++)
		if (c->runs[i].run->ring == RUN_RING_PROBE &&
		    add_package(c, package_of(c->runs[i].run->hdr.process, buf, sizeof(buf)),
				CORR_PACKAGE_RING) != 0)
			return -1;
	for (i = 0; i < c->opt.npackages; i++)
		if (add_package(c, c->opt.packages[i], CORR_PACKAGE_OPTION) != 0)
			return -1;
	present = !c->npackages;
	for (i = 0; present && i < nfiles; i++)
		for (k = 0; k < files[i].nexits; k++)
			if (add_package(c, exit_package(&files[i].exits[k], buf, sizeof(buf)),
					CORR_PACKAGE_PRESENT) != 0)
				return -1;
	present = !c->npackages;
	for (i = 0; present && i < nfiles; i++) {
		for (k = 0; k < files[i].ntombstones; k++)
			if (add_package(c, package_of(files[i].tombstones[k].process, buf, sizeof(buf)),
					CORR_PACKAGE_PRESENT) != 0)
				return -1;
		for (k = 0; k < files[i].nanrs; k++)
			if (add_package(c, package_of(files[i].anrs[k].cmdline, buf, sizeof(buf)),
					CORR_PACKAGE_PRESENT) != 0)
				return -1;
	}
	return 0;
}

/* Ring-less runs. */

/* How long after an ANR or a crash the kill that ends it may come and
 * still be the same death: the ANR dialog may wait for the user. */
#define FOLLOW_MS (10 * 60000LL)

/* A witness of a death that joined no ring. */
struct seed {
	enum corr_kind kind;
	const struct ev_file *file;
	size_t index;
	const char *process;
	int64_t pid, t, slack;  /* t: UTC, EV_NO_TIME when unknown */
	int ends;               /* 0: an ANR or a crash, which a kill may follow */
	enum corr_reason why;   /* why no ring has it */
	size_t unmatched;       /* an exit record: its index in the unmatched list */
	size_t group;
};

struct group {
	size_t first;           /* into the seeds: the one that names the run */
	const char *process;    /* that seed's */
	int64_t pid, t0, t1, slack; /* t0, t1: its witnesses' first and last time */
	int64_t after;          /* the end of the death before it of this pid, or CORR_NO_START */
	int open;               /* no witness ended the process yet */
	size_t id;              /* its index before the groups are sorted */
};

struct seeds {
	struct seed *v;
	size_t n;
	struct group *g;
	size_t ng;
};

static int add_seed(struct seeds *s, const struct seed *x)
{
	struct seed *at = ev_grow((void **)&s->v, s->n, sizeof(*s->v));

	if (!at)
		return -1;
	*at = *x;
	s->n++;
	return 0;
}

/* Why no ring has a death of process and pid that is not an exit record. */
static enum corr_reason no_ring_reason(const struct correlation *c, const char *process,
				       int64_t pid)
{
	size_t k, nproc = 0, npid = 0;

	for (k = 0; k < c->ngiven; k++) {
		if (!loose_process(c->runs[k].run, process))
			continue;
		nproc++;
		npid += (int64_t)c->runs[k].run->hdr.pid == pid;
	}
	return !nproc ? CORR_NO_RUN_OF_PROCESS : !npid ? CORR_NO_RUN_WITH_PID : CORR_OUTSIDE_WINDOW;
}

/* The latest time of the dated evidence and of the rings: where a log's
 * year-less date that no run places goes. EV_NO_TIME if there is none. */
static int64_t latest_time(const struct correlation *c, const struct ev_file *files, size_t nfiles)
{
	int64_t best = EV_NO_TIME, t, slack;
	size_t i, k;

	for (i = 0; i < c->ngiven; i++)
		if (c->runs[i].run->ring == RUN_RING_PROBE && c->runs[i].start_ms > best)
			best = c->runs[i].start_ms;
	for (i = 0; i < nfiles; i++) {
		for (k = 0; k < files[i].nexits; k++)
			if ((t = corr_exit_time(&files[i].exits[k], &c->opt, &slack)) > best)
				best = t;
		for (k = 0; k < files[i].ntombstones; k++)
			if ((t = parse_zoned(files[i].tombstones[k].timestamp_text, &c->opt, NULL)) > best)
				best = t;
		for (k = 0; k < files[i].nanrs; k++)
			if ((t = parse_zoned(files[i].anrs[k].time_text, &c->opt, NULL)) > best)
				best = t;
	}
	return best;
}

/* Whether a witness with a local time of process and pid would fit a
 * ring's window at another offset (fits_other_zone): then it may be that
 * ring's death, and is no ring-less run's. */
static int ring_at_other_zone(const struct correlation *c, const char *process, int64_t pid,
			      int64_t local_ms, int yearless)
{
	size_t k;

	for (k = 0; !c->opt.tz_known && local_ms != EV_NO_TIME && k < c->ngiven; k++)
		if ((int64_t)c->runs[k].run->hdr.pid == pid && loose_process(c->runs[k].run, process) &&
		    fits_other_zone(c, &c->runs[k], local_ms, yearless, 0, 0))
			return 1;
	return 0;
}

/* The exit records that joined no ring and are of a judged package; those
 * of another package are marked so. */
static int exit_seeds(struct correlation *c, struct seeds *s)
{
	char buf[LW_RING_PROCESS_MAX];
	size_t i;

	for (i = 0; i < c->nunmatched; i++) {
		struct corr_unmatched *u = &c->unmatched[i];
		const struct exit_record *r = &u->file->exits[u->index];
		struct seed x;

		if (u->reason != CORR_NO_RUN_OF_PROCESS && u->reason != CORR_NO_RUN_WITH_PID &&
		    u->reason != CORR_OTHER_VERSION && u->reason != CORR_OUTSIDE_WINDOW)
			continue;
		if (!judged_package(c, exit_package(r, buf, sizeof(buf)))) {
			u->reason = CORR_OTHER_PACKAGE;
			continue;
		}
		if (!r->process || r->pid <= 0)
			continue; /* nothing to join its witnesses by */
		memset(&x, 0, sizeof(x));
		x.kind = CORR_EXITS;
		x.file = u->file;
		x.index = u->index;
		x.process = r->process;
		x.pid = r->pid;
		x.t = corr_exit_time(r, &c->opt, &x.slack);
		x.ends = r->reason != EXIT_REASON_ANR && r->reason != EXIT_REASON_CRASH &&
			 r->reason != EXIT_REASON_CRASH_NATIVE;
		x.why = u->reason;
		x.unmatched = i;
		if (add_seed(s, &x) != 0)
			return -1;
	}
	return 0;
}

/* The tombstones, ANR traces and lmkd kill lines that no ring could have,
 * of a judged package: those that tell a death. */
static int evidence_seeds(struct correlation *c, struct leftovers *left, int64_t near,
			  struct seeds *s)
{
	char buf[LW_RING_PROCESS_MAX];
	size_t i;
	int local;

	for (i = 0; i < left->n; i++) {
		struct leftover *l = &left->v[i];
		struct seed x;
		int64_t local_ms;
		int yearless = 0;

		memset(&x, 0, sizeof(x));
		x.kind = l->kind;
		x.file = l->file;
		x.index = l->index;
		local = 0;
		if (l->kind != CORR_LOGS) {
			const char *when;

			witness(l->kind, l->file, l->index, &x.process, &x.pid, &when);
			if (l->kind == CORR_TOMBSTONES && !x.process)
				x.process = l->file->tombstones[l->index].cmdline;
			x.t = parse_zoned(when, &c->opt, &local);
		} else {
			const struct log_event *e = &l->file->logs[l->index];

			if (e->type != LOG_LMKD_KILL && e->type != LOG_EV_KILLINFO)
				continue;
			x.process = e->process;
			x.pid = e->pid;
			x.t = log_time(e, near, &c->opt);
			x.ends = 1;
		}
		if (x.pid == EV_NONE || x.pid <= 0 || !x.process ||
		    !judged_package(c, package_of(x.process, buf, sizeof(buf))))
			continue;
		if (l->kind == CORR_LOGS)
			local_ms = log_local(&l->file->logs[l->index], &yearless);
		else
			local_ms = local && x.t != EV_NO_TIME ? x.t + tz_offset_at(&c->opt.tz, x.t)
							      : EV_NO_TIME;
		if (ring_at_other_zone(c, x.process, x.pid, local_ms, yearless))
			continue;
		x.why = no_ring_reason(c, x.process, x.pid);
		l->seed = 1;
		if (add_seed(s, &x) != 0)
			return -1;
	}
	return 0;
}

/* Seeds by pid, then in time order (those without a time last), else as
 * found: the witnesses of one death are then next to each other. */
static int cmp_seed(const void *a, const void *b)
{
	const struct seed *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((x->t == EV_NO_TIME) != (y->t == EV_NO_TIME))
		return x->t == EV_NO_TIME ? 1 : -1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->file != y->file ? (x->file < y->file ? -1 : 1)
	       : x->kind != y->kind ? (int)x->kind - (int)y->kind
	       : x->index < y->index ? -1 : x->index > y->index;
}

/* Whether seed x is a witness of the death of g, the latest group of its
 * pid (of which there are n): the same process, within the clock tolerance
 * of its witnesses, or the kill after its ANR or crash. A seed without a
 * time goes to the one group of its pid. */
static int same_death(const struct group *g, size_t n, const struct seed *x,
		      const struct corr_options *opt)
{
	if (!loose_names(g->process, x->process))
		return 0;
	if (x->t == EV_NO_TIME)
		return n == 1;
	if (g->t1 == EV_NO_TIME)
		return 0;
	return x->t <= g->t1 + opt->tolerance_ms + g->slack + x->slack ||
	       (g->open && x->t <= g->t1 + FOLLOW_MS);
}

static int group_seeds(struct seeds *s, const struct corr_options *opt)
{
	size_t i, first_of_pid = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_seed);
	s->g = calloc(s->n ? s->n : 1, sizeof(*s->g));
	if (!s->g)
		return -1;
	for (i = 0; i < s->n; i++) {
		struct seed *x = &s->v[i];
		struct group *g = s->ng ? &s->g[s->ng - 1] : NULL;

		if (g && g->pid != x->pid)
			first_of_pid = s->ng;
		if (!g || g->pid != x->pid || !same_death(g, s->ng - first_of_pid, x, opt)) {
			int64_t after = g && g->pid == x->pid && g->t1 != EV_NO_TIME ? g->t1 + g->slack
										     : CORR_NO_START;

			g = &s->g[s->ng];
			*g = (struct group){ i, x->process, x->pid, x->t, x->t, x->slack, after, 1, s->ng };
			s->ng++;
		}
		x->group = g->id;
		/* The run is named after its exit record, where it has one. */
		if (x->kind == CORR_EXITS && s->v[g->first].kind != CORR_EXITS) {
			g->first = i;
			g->process = x->process;
		}
		if (x->t != EV_NO_TIME && x->t > g->t1)
			g->t1 = x->t;
		if (x->slack > g->slack)
			g->slack = x->slack;
		g->open &= !x->ends;
	}
	return 0;
}

/* The ring-less runs, in order of process, then time of death. */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->process, y->process);

	if (c)
		return c;
	if ((x->t0 == EV_NO_TIME) != (y->t0 == EV_NO_TIME))
		return x->t0 == EV_NO_TIME ? 1 : -1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : x->id < y->id ? -1 : x->id > y->id;
}

static size_t witness_line(const struct seed *x)
{
	switch (x->kind) {
	case CORR_EXITS:
		return x->file->exits[x->index].line;
	case CORR_TOMBSTONES:
		return x->file->tombstones[x->index].line;
	case CORR_ANRS:
		return x->file->anrs[x->index].line;
	case CORR_LOGS:
		break;
	}
	return x->file->logs[x->index].line;
}

/* The window of ring-less run cr, of group g: its witnesses' span, after
 * the end of the run before it with the same pid: the death before it
 * that no ring tells, or a ring's last record. */
static void ringless_window(const struct correlation *c, struct corr_run *cr,
			    const struct group *g)
{
	size_t i;

	cr->start_ms = g->t0 == EV_NO_TIME ? CORR_NO_START : g->after;
	for (i = 0; g->t0 != EV_NO_TIME && i < c->ngiven; i++) {
		const struct corr_run *o = &c->runs[i];

		if (o->run->hdr.pid == cr->run->hdr.pid && o->start_ms < g->t0 && o->last_ms < g->t0 &&
		    o->last_ms > cr->start_ms)
			cr->start_ms = o->last_ms;
	}
}

/* Make a ring-less run of each group of seeds, with its witnesses joined;
 * the exit records among them leave the unmatched list. */
static int make_ringless(struct correlation *c, struct seeds *s)
{
	struct corr_run *nv;
	size_t i, kept, *rank;

	if (!s->ng)
		return 0;
	qsort(s->g, s->ng, sizeof(*s->g), cmp_group);
	rank = malloc(s->ng * sizeof(*rank));
	c->ringless = calloc(s->ng, sizeof(*c->ringless));
	nv = realloc(c->runs, (c->nruns + s->ng) * sizeof(*nv));
	if (nv)
		c->runs = nv;
	if (!rank || !c->ringless || !nv) {
		free(rank);
		return -1;
	}
	for (i = 0; i < s->ng; i++) {
		const struct seed *first = &s->v[s->g[i].first];
		const struct exit_record *r =
			first->kind == CORR_EXITS ? &first->file->exits[first->index] : NULL;
		struct corr_run *cr = &c->runs[c->nruns];

		rank[s->g[i].id] = i;
		memset(cr, 0, sizeof(*cr));
		if (run_ringless(first->file->path, witness_line(first), first->process, first->pid,
				 r && r->app_version > 0 ? (uint64_t)r->app_version : 0,
				 &c->ringless[i]) != 0) {
			free(rank);
			return -1;
		}
		cr->run = &c->ringless[i];
		cr->no_ring = first->why;
		cr->last_ms = s->g[i].t0 == EV_NO_TIME ? CORR_NO_START : s->g[i].t0;
		cr->next_start_ms = s->g[i].t1 == EV_NO_TIME ? INT64_MAX : s->g[i].t1 + s->g[i].slack;
		c->nruns++;
	}
	for (i = 0; i < s->ng; i++)
		ringless_window(c, &c->runs[c->ngiven + i], &s->g[i]);
	for (i = 0; i < s->n; i++)
		if (push(c, &c->runs[c->ngiven + rank[s->v[i].group]], s->v[i].kind, s->v[i].file,
			 s->v[i].index, 0, s->v[i].t) != 0) {
			free(rank);
			return -1;
		}
	free(rank);
	/* The exit records now in a run leave the unmatched list. */
	for (i = 0; i < s->n; i++)
		if (s->v[i].kind == CORR_EXITS)
			c->unmatched[s->v[i].unmatched].file = NULL;
	for (i = kept = 0; i < c->nunmatched; i++)
		if (c->unmatched[i].file)
			c->unmatched[kept++] = c->unmatched[i];
	c->nunmatched = kept;
	return 0;
}

static int ringless_runs(struct correlation *c, const struct ev_file *files, size_t nfiles,
			 struct leftovers *left)
{
	struct seeds s = { NULL, 0, NULL, 0 };
	size_t i;
	int rc;

	rc = find_packages(c, files, nfiles) != 0 || exit_seeds(c, &s) != 0 ||
	     evidence_seeds(c, left, c->newest_ms, &s) != 0 ||
	     group_seeds(&s, &c->opt) != 0 || make_ringless(c, &s) != 0;
	free(s.v);
	free(s.g);
	if (rc)
		return -1;
	join_peers(c, c->ngiven, c->nruns);
	/* The rest of the evidence that no ring could have joins them. */
	for (i = 0; i < left->n; i++) {
		int none;

		if (!left->v[i].seed &&
		    join_one(c, left->v[i].kind, left->v[i].file, left->v[i].index, c->ngiven,
			     c->nruns, &none) != 0)
			return -1;
	}
	return 0;
}

int correlate(const struct run *runs, size_t nruns, const struct ev_file *files, size_t nfiles,
	      const struct corr_options *opt, struct correlation *out)
{
	struct leftovers left = { NULL, 0 };
	size_t i, k;

	memset(out, 0, sizeof(*out));
	out->opt = *opt;
	if (out->opt.tolerance_ms <= 0)
		out->opt.tolerance_ms = CORR_DEFAULT_TOLERANCE_MS;
	out->runs = calloc(nruns ? nruns : 1, sizeof(*out->runs));
	if (!out->runs)
		return -1;
	out->nruns = out->ngiven = nruns;
	for (i = 0; i < nruns; i++) {
		struct corr_run *cr = &out->runs[i];

		cr->run = &runs[i];
		cr->start_ms = (int64_t)(runs[i].hdr.start_real_ns / 1000000u);
		cr->last_ms = runs[i].nevents ? corr_run_time_ms(&runs[i], runs[i].events[runs[i].nevents - 1]
										     .t_mono_ns)
					      : cr->start_ms;
		cr->next_start_ms = INT64_MAX;
		for (k = 0; k < nruns; k++) {
			int64_t s = (int64_t)(runs[k].hdr.start_real_ns / 1000000u);

			if (k != i && strcmp(runs[k].hdr.process, runs[i].hdr.process) == 0 &&
			    s > cr->start_ms && s < cr->next_start_ms)
				cr->next_start_ms = s;
		}
	}
	join_peers(out, 0, nruns);
	for (i = 0; i < nfiles; i++) {
		out->local_times |= has_local_time(&files[i], &out->opt);
		for (k = 0; k < files[i].nexits; k++)
			if (join_exit(out, &files[i], k) != 0)
				goto fail;
		if (join_other(out, &files[i], 0, nruns, &left) != 0)
			goto fail;
	}
	out->newest_ms = latest_time(out, files, nfiles);
	if (ringless_runs(out, files, nfiles, &left) != 0)
		goto fail;
	free(left.v);
	return 0;
fail:
	free(left.v);
	correlation_release(out);
	return -1;
}

void correlation_release(struct correlation *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nruns; i++) {
		free(c->runs[i].exits.v);
		free(c->runs[i].tombstones.v);
		free(c->runs[i].anrs.v);
		free(c->runs[i].logs.v);
	}
	for (i = 0; c->ringless && i < c->nruns - c->ngiven; i++)
		run_release(&c->ringless[i]);
	for (i = 0; i < c->npackages; i++)
		free(c->packages[i].name);
	free(c->runs);
	free(c->ringless);
	free(c->packages);
	free(c->unmatched);
	memset(c, 0, sizeof(*c));
}
