/*
 * What a verdict could not see, and whether it could hide the stage at
 * death: the rule is in caveats.h, one function here for each caveat.
 */
#include "caveats.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/exit-info.h"
#include "../src/vocab.h"
#include "format.h"

__attribute__((format(printf, 3, 4))) static void add(struct caveats *cv, int hides,
						      const char *fmt, ...)
{
	char buf[CAVEAT_LINE_MAX];
	va_list ap;

	cv->hides_stage |= hides;
	if (cv->n >= CAVEATS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cv->line[cv->n] = strdup(buf);
	cv->n += cv->line[cv->n] != NULL;
}

static int stage_record(const struct lw_ring_slot *e)
{
	return e->type == LW_EV_STAGE_BEGIN || e->type == LW_EV_STAGE_END;
}

/* The oldest ticket of the window r's ring holds: its last slot_count
 * tickets up to its head. */
static uint64_t window_base(const struct run *r)
{
	uint64_t n = r->scan.slot_count;

	return n && r->scan.head > n ? r->scan.head - n : 0;
}

/* Where the ring's last part begins (caveats.h): the index of the last
 * begin of the stage open at death, or with none open, of the last stage
 * record; SIZE_MAX when the ring holds no such record. */
static size_t last_part(const struct run *r, const struct run_facts *f)
{
	size_t i;

	for (i = r->nevents; i-- > 0;) {
		const struct lw_ring_slot *e = &r->events[i];

		if (f->open_stage != LW_STAGE_NONE ? e->type == LW_EV_STAGE_BEGIN &&
							     e->stage == (uint8_t)f->open_stage
						   : stage_record(e))
			return i;
	}
	return SIZE_MAX;
}

/* "(1 torn, 2 corrupt, 1 never written)": what the reader found in the
 * slots of the lost tickets, as far as its counts say. */
static void lost_kinds(const struct ring_scan *sc, uint64_t lost, char *buf, size_t len)
{
	const uint64_t v[] = { sc->torn, sc->stale, sc->corrupt };
	const char *const name[] = { "torn", "stale", "corrupt" };
	uint64_t sum = 0;
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < 3; i++) {
		if (!v[i])
			continue;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%" PRIu64 " %s",
				       at ? ", " : " (", v[i], name[i]);
		sum += v[i];
	}
	if (sum < lost)
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%" PRIu64 " never written",
				       at ? ", " : " (", lost - sum);
	if (at)
		snprintf(buf + at, at < len ? len - at : 0, ")");
}

/* Records lost in the window: a gap in the tickets, or at its end. */
static void lost_records(const struct run *r, const struct run_facts *f, struct caveats *cv)
{
	uint64_t expect = window_base(r), lost = 0, newest = 0, from;
	size_t i, part = last_part(r, f);
	char kinds[96], what[64];

	for (i = 0; i < r->nevents; i++) {
		uint64_t t = run_event_ticket(&r->events[i]);

		if (t > expect) {
			lost += t - expect;
			newest = t - 1;
		}
		if (t + 1 > expect)
			expect = t + 1;
	}
	if (r->scan.head > expect) {
		lost += r->scan.head - expect;
		newest = r->scan.head - 1;
	}
	if (!lost)
		return;
	lost_kinds(&r->scan, lost, kinds, sizeof(kinds));
	if (part == SIZE_MAX) {
		add(cv, 1,
		    "%" PRIu64 " record%s of the ring %s lost%s, the newest at ticket %" PRIu64
		    ", and no record left tells the stage at death: it may be hidden",
		    lost, lost == 1 ? "" : "s", lost == 1 ? "is" : "are", kinds, newest);
		return;
	}
	from = run_event_ticket(&r->events[part]);
	if (f->open_stage != LW_STAGE_NONE)
		snprintf(what, sizeof(what), "the stage open at death began");
	else
		snprintf(what, sizeof(what), "the last stage record");
	if (newest > from)
		add(cv, 1,
		    "%" PRIu64 " record%s of the ring %s lost%s, the newest at ticket %" PRIu64
		    ", after %s (ticket %" PRIu64 "): the stage at death may be hidden",
		    lost, lost == 1 ? "" : "s", lost == 1 ? "is" : "are", kinds, newest, what, from);
	else
		add(cv, 0,
		    "%" PRIu64 " record%s of the ring %s lost%s, the newest at ticket %" PRIu64
		    ", before %s (ticket %" PRIu64 "): the records after them tell it",
		    lost, lost == 1 ? "" : "s", lost == 1 ? "is" : "are", kinds, newest, what, from);
}

static void lapped(const struct run *r, struct caveats *cv)
{
	uint64_t base = window_base(r);

	if (!base)
		return;
	if (r->stages_from_header)
		add(cv, 0,
		    "the ring lapped: the %" PRIu64 " records before ticket %" PRIu64
		    " were overwritten, and the stages before them are unknown; the header tells the "
		    "stages open at death",
		    base, base);
	else
		add(cv, 1,
		    "the ring lapped: the %" PRIu64 " records before ticket %" PRIu64
		    " were overwritten, and only the records left tell the stages open at death: one "
		    "begun before them may be hidden",
		    base, base);
}

static void after_death(const struct correlation *c, const struct corr_run *cr,
			struct caveats *cv)
{
	const struct run *r = cr->run;
	int64_t death = EV_NO_TIME, slack = 0, last;
	size_t i, n = 0, stages = 0;
	int by_id = 0;
	char late[24], tol[24];

	for (i = 0; i < cr->exits.n; i++) {
		const struct corr_match *m = &cr->exits.v[i];
		int64_t s = 0;

		if (m->time_utc_ms == EV_NO_TIME || (death != EV_NO_TIME && m->time_utc_ms <= death))
			continue;
		corr_exit_time(&m->file->exits[m->index], &c->opt, &s);
		death = m->time_utc_ms;
		slack = s;
		by_id = m->by_run_id;
	}
	if (death == EV_NO_TIME || !r->nevents)
		return;
	for (i = 0; i < r->nevents; i++) {
		if (corr_run_time_ms(r, r->events[i].t_mono_ns) <= death + c->opt.tolerance_ms + slack)
			continue;
		n++;
		stages += stage_record(&r->events[i]);
	}
	if (!n)
		return;
	last = corr_run_time_ms(r, r->events[r->nevents - 1].t_mono_ns);
	fmt_ms(late, sizeof(late), (double)(last - death));
	fmt_ms(tol, sizeof(tol), (double)(c->opt.tolerance_ms + slack));
	add(cv, stages > 0,
	    "%zu record%s of the ring %s after the death: the last is %s after the time of the "
	    "exit record%s, beyond the clock tolerance (%s); %s",
	    n, n == 1 ? "" : "s", n == 1 ? "is" : "are", late, by_id ? " joined by the run id" : "",
	    tol,
	    stages ? "stage records among them: the stage at death may be hidden"
		   : "no stage record among them: the stage at death is the ring's");
}

static void platform(const struct correlation *c, const struct corr_run *cr, struct caveats *cv)
{
	int64_t sdk = c->opt.sdk;

	if (!cr->exits.n)
		return;
	if (sdk <= 0)
		add(cv, 0,
		    "the platform version is unknown: no input gives the device's SDK level (the "
		    "pull's manifest, a bug report, the app's exit-info export); its exit codes are "
		    "read as API %d to %d define them",
		    EXIT_INFO_SDK_FIRST, EXIT_INFO_SDK_LAST);
	else if (sdk > EXIT_INFO_SDK_LAST)
		add(cv, 0,
		    "the platform is newer than this version knows: the device's SDK level is %" PRId64
		    " (from the %s), and exit codes are known up to API %d: one it added or changed "
		    "is not read as it means",
		    sdk, c->opt.sdk_from ? c->opt.sdk_from : "options", EXIT_INFO_SDK_LAST);
	else if (sdk < EXIT_INFO_SDK_FIRST)
		add(cv, 0,
		    "the platform is older than ApplicationExitInfo (API %d): the device's SDK level "
		    "is %" PRId64 " (from the %s), so the exit records cannot be that device's",
		    EXIT_INFO_SDK_FIRST, sdk, c->opt.sdk_from ? c->opt.sdk_from : "options");
}

void caveats_find(const struct correlation *c, const struct corr_run *cr,
		  const struct run_facts *f, struct caveats *out)
{
	memset(out, 0, sizeof(*out));
	if (cr->run->ring == RUN_RING_PROBE) {
		lost_records(cr->run, f, out);
		lapped(cr->run, out);
		after_death(c, cr, out);
	}
	platform(c, cr, out);
}

void caveats_release(struct caveats *cv)
{
	size_t i;

	if (!cv)
		return;
	for (i = 0; i < cv->n; i++)
		free(cv->line[i]);
	memset(cv, 0, sizeof(*cv));
}
