/* Joining evidence to runs: process, pid, time window, app version, run id. */
#include "correlate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format.h"
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

int corr_parse_tz(const char *s, int64_t *offset_ms)
{
	int64_t h, m = 0;
	size_t n = strlen(s), k;
	int sign;

	if (strcasecmp(s, "UTC") == 0 || strcmp(s, "Z") == 0 || strcmp(s, "GMT") == 0) {
		*offset_ms = 0;
		return 0;
	}
	if (n < 2 || (s[0] != '+' && s[0] != '-'))
		return -1;
	sign = s[0] == '-' ? -1 : 1;
	/* +H, +HH, +HHMM, +HH:MM */
	if (n == 2 || n == 3) {
		if (span_int64(span_of(s + 1, n - 1), &h) != n - 1)
			return -1;
	} else if (n == 5 || (n == 6 && s[3] == ':')) {
		if (span_int64(span_of(s + 1, 2), &h) != 2)
			return -1;
		k = n == 5 ? 3 : 4;
		if (span_int64(span_of(s + k, 2), &m) != 2)
			return -1;
	} else {
		return -1;
	}
	if (h > 14 || m > 59)
		return -1;
	*offset_ms = sign * (h * 60 + m) * 60000;
	return 0;
}

#define DAY_MS 86400000LL

/*
 * The one conversion of a device's local wall time to UTC: minus the zone's
 * offset. local_ms is the wall clock read as if it were UTC (a dump's
 * timestamp, a date written without a zone) when near_utc_ms is EV_NO_TIME.
 * Otherwise it is a log's month-day time, which has no year
 * (logline_month_day_ms), and goes in the year that puts it nearest to
 * near_utc_ms: the local year of near_utc_ms, the one before or the one
 * after (the earlier on a tie), among those that have its date.
 */
static int64_t local_to_utc(int64_t local_ms, int64_t near_utc_ms, const struct corr_options *opt)
{
	int64_t best = EV_NO_TIME, local_near, y, k;

	if (local_ms == EV_NO_TIME)
		return EV_NO_TIME;
	if (near_utc_ms == EV_NO_TIME)
		return local_ms - opt->tz_offset_ms;
	local_near = near_utc_ms + opt->tz_offset_ms;
	y = text_year_of_days(local_near / DAY_MS - (local_near % DAY_MS < 0));
	for (k = y - 1; k <= y + 1; k++) {
		int64_t t = logline_in_year(local_ms, k);

		if (t == EV_NO_TIME)
			continue;
		t -= opt->tz_offset_ms;
		if (best == EV_NO_TIME || llabs(t - near_utc_ms) < llabs(best - near_utc_ms))
			best = t;
	}
	return best;
}

/* A date-time with an optional zone after it ("+0100", "+01:00", "Z"). When
 * local is not NULL, *local says whether it had no zone (1) or had one (0). */
static int64_t parse_zoned(const char *s, const struct corr_options *opt, int *local)
{
	struct span sp;
	int64_t ms, off;
	size_t used;
	char zone[8];

	if (!s)
		return EV_NO_TIME;
	sp = span_of(s, strlen(s));
	used = text_parse_datetime(sp, &ms);
	if (!used)
		return EV_NO_TIME;
	sp = span_from(sp, used);
	if (sp.n >= 1 && (sp.s[0] == '+' || sp.s[0] == '-' || sp.s[0] == 'Z')) {
		size_t z = 1;

		while (z < sp.n && z < sizeof(zone) - 1 &&
		       ((sp.s[z] >= '0' && sp.s[z] <= '9') || sp.s[z] == ':'))
			z++;
		memcpy(zone, sp.s, z);
		zone[z] = '\0';
		if (corr_parse_tz(zone, &off) == 0) {
			if (local)
				*local = 0;
			return ms - off;
		}
	}
	if (local)
		*local = 1;
	return local_to_utc(ms, EV_NO_TIME, opt);
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
		if (f->logs[i].time_ms != EV_NO_TIME)
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
 * the last part of a package): accept a suffix either way. */
static int loose_process(const struct run *r, const char *process)
{
	size_t a, b;

	if (!process)
		return 1;
	a = strnlen(r->hdr.process, sizeof(r->hdr.process));
	b = strlen(process);
	if (a == 0 || b == 0)
		return 1;
	if (a >= b)
		return strcmp(r->hdr.process + a - b, process) == 0;
	return strcmp(process + b - a, r->hdr.process) == 0;
}

static int64_t run_time_ms(const struct run *r, uint64_t t_mono_ns)
{
	return (int64_t)((r->hdr.start_real_ns + (t_mono_ns - r->hdr.start_mono_ns)) / 1000000u);
}

/* The lists of a run, by the kind of record they hold. */
enum corr_kind { CORR_EXITS, CORR_TOMBSTONES, CORR_ANRS, CORR_LOGS };

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

/* Add record i of f to a run's list l of kind k, unless the list holds
 * the same record from another input: that counts once (c->repeats). */
static int push(struct correlation *c, struct corr_list *l, enum corr_kind k,
		const struct ev_file *f, size_t i, int by_id, int64_t t)
{
	struct corr_match *nv;
	size_t n;

	for (n = 0; n < l->n; n++) {
		if (l->v[n].file != f && same_record(k, &l->v[n], f, i)) {
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
	nv = realloc(c->unmatched, (c->nunmatched + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	c->unmatched = nv;
	c->unmatched[c->nunmatched].file = f;
	c->unmatched[c->nunmatched].index = i;
	c->unmatched[c->nunmatched].reason = why;
	c->nunmatched++;
	return 0;
}

/* Does time t (with slack) fall in run cr's window for an exit? */
static int in_exit_window(const struct corr_run *cr, int64_t t, int64_t slack,
			  const struct corr_options *opt)
{
	int64_t tol = opt->tolerance_ms + slack;

	return t >= cr->last_ms - tol && (cr->next_start_ms == INT64_MAX || t <= cr->next_start_ms + tol);
}

/* Evidence that may come before the death (an ANR trace, a kill line). */
static int in_run_window(const struct corr_run *cr, int64_t t, const struct corr_options *opt)
{
	return t >= cr->start_ms - opt->tolerance_ms &&
	       (cr->next_start_ms == INT64_MAX || t <= cr->next_start_ms + opt->tolerance_ms);
}

static int run_id_is(const struct run *r, const char *state)
{
	char hex[40];

	if (!state || strlen(state) != 32)
		return 0;
	fmt_id128(hex, sizeof(hex), r->hdr.run_id);
	return strcasecmp(hex, state) == 0;
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
			return push(c, &c->runs[k].exits, CORR_EXITS, f, i, 1,
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
		if (r->app_version != EV_NONE && (uint64_t)r->app_version != cr->run->hdr.app_version)
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
	if (nfit == 0)
		return add_unmatched(c, f, i, CORR_OUTSIDE_WINDOW);
	if (nfit > 1)
		return add_unmatched(c, f, i, t == EV_NO_TIME ? CORR_NO_TIME : CORR_AMBIGUOUS);
	return push(c, &c->runs[found].exits, CORR_EXITS, f, i, 0, t);
}

/* Other evidence: pid (and a compatible name), in the run's window when it
 * has a time, else only when one run had that pid. */
static size_t find_run_by_pid(const struct correlation *c, int64_t pid, const char *process,
			      int64_t t)
{
	size_t k, found = SIZE_MAX, n = 0;

	if (pid == EV_NONE)
		return SIZE_MAX;
	for (k = 0; k < c->nruns; k++) {
		const struct corr_run *cr = &c->runs[k];

		if ((int64_t)cr->run->hdr.pid != pid || !loose_process(cr->run, process))
			continue;
		if (t != EV_NO_TIME && !in_run_window(cr, t, &c->opt))
			continue;
		found = k;
		n++;
	}
	return n == 1 ? found : SIZE_MAX;
}

/* A log line that names its process but no pid (an am_crash of a native
 * crash, which system_server writes with its own pid): the one run of that
 * process whose death window (in_exit_window) holds the line's time. A name
 * alone does not tell the runs of a process apart, so the line needs a
 * time. On success *when is that time in UTC. */
static size_t find_run_by_name(const struct correlation *c, const struct log_event *e,
			       int64_t *when)
{
	size_t k, found = SIZE_MAX, n = 0;
	int64_t t, found_t = EV_NO_TIME;

	if (!e->process || e->time_ms == EV_NO_TIME)
		return SIZE_MAX;
	for (k = 0; k < c->nruns; k++) {
		const struct corr_run *cr = &c->runs[k];

		if (!same_process(cr->run, e->process))
			continue;
		t = local_to_utc(e->time_ms, cr->start_ms, &c->opt);
		if (t == EV_NO_TIME || !in_exit_window(cr, t, 0, &c->opt))
			continue;
		found = k;
		found_t = t;
		n++;
	}
	if (n != 1)
		return SIZE_MAX;
	*when = found_t;
	return found;
}

static int join_other(struct correlation *c, const struct ev_file *f)
{
	size_t i, k;

	for (i = 0; i < f->ntombstones; i++) {
		const struct tombstone *t = &f->tombstones[i];
		int64_t when = parse_zoned(t->timestamp_text, &c->opt, NULL);

		k = find_run_by_pid(c, t->pid, t->process, when);
		if (k != SIZE_MAX &&
		    push(c, &c->runs[k].tombstones, CORR_TOMBSTONES, f, i, 0, when) != 0)
			return -1;
	}
	for (i = 0; i < f->nanrs; i++) {
		const struct anr_trace *a = &f->anrs[i];
		int64_t when = parse_zoned(a->time_text, &c->opt, NULL);

		k = find_run_by_pid(c, a->pid, a->cmdline, when);
		if (k != SIZE_MAX && push(c, &c->runs[k].anrs, CORR_ANRS, f, i, 0, when) != 0)
			return -1;
	}
	for (i = 0; i < f->nlogs; i++) {
		const struct log_event *e = &f->logs[i];
		int64_t when = EV_NO_TIME;

		if (e->pid == EV_NONE) {
			k = find_run_by_name(c, e, &when);
		} else {
			/* Place the year-less time near any run with this pid. */
			for (k = 0; k < c->nruns && when == EV_NO_TIME; k++)
				if ((int64_t)c->runs[k].run->hdr.pid == e->pid)
					when = local_to_utc(e->time_ms, c->runs[k].start_ms,
							    &c->opt);
			k = find_run_by_pid(c, e->pid, e->process, when);
		}
		if (k != SIZE_MAX && push(c, &c->runs[k].logs, CORR_LOGS, f, i, 0, when) != 0)
			return -1;
	}
	return 0;
}

int correlate(const struct run *runs, size_t nruns, const struct ev_file *files, size_t nfiles,
	      const struct corr_options *opt, struct correlation *out)
{
	size_t i, k;

	memset(out, 0, sizeof(*out));
	out->opt = *opt;
	if (out->opt.tolerance_ms <= 0)
		out->opt.tolerance_ms = CORR_DEFAULT_TOLERANCE_MS;
	out->runs = calloc(nruns ? nruns : 1, sizeof(*out->runs));
	if (!out->runs)
		return -1;
	out->nruns = nruns;
	for (i = 0; i < nruns; i++) {
		struct corr_run *cr = &out->runs[i];

		cr->run = &runs[i];
		cr->start_ms = (int64_t)(runs[i].hdr.start_real_ns / 1000000u);
		cr->last_ms = runs[i].nevents
				      ? run_time_ms(&runs[i], runs[i].events[runs[i].nevents - 1].t_mono_ns)
				      : cr->start_ms;
		cr->next_start_ms = INT64_MAX;
		for (k = 0; k < nruns; k++) {
			int64_t s = (int64_t)(runs[k].hdr.start_real_ns / 1000000u);

			if (k != i && strcmp(runs[k].hdr.process, runs[i].hdr.process) == 0 &&
			    s > cr->start_ms && s < cr->next_start_ms)
				cr->next_start_ms = s;
		}
	}
	for (i = 0; i < nfiles; i++) {
		out->local_times |= has_local_time(&files[i], &out->opt);
		for (k = 0; k < files[i].nexits; k++)
			if (join_exit(out, &files[i], k) != 0)
				goto fail;
		if (join_other(out, &files[i]) != 0)
			goto fail;
	}
	return 0;
fail:
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
	free(c->runs);
	free(c->unmatched);
	memset(c, 0, sizeof(*c));
}
