/*
 * A run's model sessions (sessions.h). The session table says how each
 * session ended, even when its records have lapped; the records add the
 * times and the memory. Stage counts follow the ring's rule (schemas/
 * ring-format.md, 5.1): an end at count 0 changes nothing.
 */
#include "sessions.h"

#include <stdint.h>
#include <string.h>

#include "ring-event.h"

/* Which session's a record is: the index into out of its session, or -1
 * for a record that names none of them. */
static int record_session(const struct lw_ring_slot *s, const int *index)
{
	if (s->type != LW_EV_STAGE_BEGIN && s->type != LW_EV_STAGE_END &&
	    s->type != LW_EV_SESSION_OPEN && s->type != LW_EV_SESSION_CLOSE)
		return index[0];
	return s->d < LW_RING_SESSION_SLOTS_MAX ? index[s->d] : -1;
}

/* One stage record's step of count c, by the ring's rule. */
static void count_step(uint32_t *c, const struct lw_ring_slot *s)
{
	if (s->type == LW_EV_STAGE_BEGIN)
		++*c;
	else if (s->type == LW_EV_STAGE_END && *c > 0)
		--*c;
}

size_t sessions_view(const struct run *r, struct session_view *out, size_t max)
{
	uint32_t depth[LW_RING_SESSION_SLOTS_MAX][LW_RING_STAGE_SLOTS];
	int index[LW_RING_SESSION_SLOTS_MAX];
	size_t n = r->nsessions < max ? r->nsessions : max, i, k;
	int st;

	memset(depth, 0, sizeof(depth));
	for (i = 0; i < LW_RING_SESSION_SLOTS_MAX; i++)
		index[i] = -1;
	for (k = 0; k < n; k++) {
		const struct ring_session *t = &r->sessions[k];
		struct session_view *v = &out[k];

		memset(v, 0, sizeof(*v));
		v->id = t->id;
		v->state = t->state;
		v->candidate = t->candidate;
		v->opens = t->opens;
		v->opened_ms = t->opened_mono_ns >= r->hdr.start_mono_ns
				       ? (double)(t->opened_mono_ns - r->hdr.start_mono_ns) / 1e6
				       : SESSION_NO_TIME;
		v->closed_ms = SESSION_NO_TIME;
		v->result = t->result;
		v->open_stage = t->open_stage;
		for (st = 0; st < LW_RING_STAGE_SLOTS; st++)
			if (t->open_count[st])
				v->open_stages |= 1u << st;
		v->resident = t->state == LW_SESSION_OPEN && t->candidate;
		if (t->id < LW_RING_SESSION_SLOTS_MAX)
			index[t->id] = (int)k;
	}
	/* The stages open before the first record left (a lapped ring): what
	 * the table counts at the end that the records do not. */
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];
		int x = record_session(s, index);

		if (x >= 0 && s->stage < LW_RING_STAGE_SLOTS)
			count_step(&depth[x][s->stage], s);
	}
	for (k = 0; k < n; k++)
		for (st = 0; st < LW_RING_STAGE_SLOTS; st++)
			depth[k][st] = r->sessions[k].open_count[st] > depth[k][st]
					       ? r->sessions[k].open_count[st] - depth[k][st]
					       : 0;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];
		double ms = (double)ring_event_rel_ns(&r->hdr, s) / 1e6;
		int x = record_session(s, index);

		/* A stage record's sample is of its stage, as the record
		 * says (ring_facts_add()): a stage_begin's counts after its
		 * step, a stage_end's before it. */
		if (x >= 0 && s->type == LW_EV_SESSION_OPEN) {
			out[x].opened_ms = ms;
			out[x].closed_ms = SESSION_NO_TIME;
		} else if (x >= 0 && s->type == LW_EV_SESSION_CLOSE) {
			out[x].closed_ms = ms;
			out[x].result = (enum lw_error)s->code;
		} else if (x >= 0 && s->stage < LW_RING_STAGE_SLOTS && s->type != LW_EV_STAGE_END) {
			count_step(&depth[x][s->stage], s);
		}
		/* The sample counts for each session with a stage open. */
		for (k = 0; s->rss_kb && k < n; k++)
			for (st = LW_RING_STAGE_SLOTS - 1; st > 0; st--)
				if (depth[k][st] && s->rss_kb > out[k].peak_kb) {
					out[k].peak_kb = s->rss_kb;
					out[k].peak_stage = (enum lw_stage)st;
					out[k].peak_record = i;
					break;
				}
		if (x >= 0 && s->stage < LW_RING_STAGE_SLOTS && s->type == LW_EV_STAGE_END)
			count_step(&depth[x][s->stage], s);
	}
	/* A session the table calls open has no close after its open. */
	for (k = 0; k < n; k++)
		if (out[k].state == LW_SESSION_OPEN)
			out[k].closed_ms = SESSION_NO_TIME;
	return n;
}

enum lw_stage sessions_peak_stage(const struct run *r, uint32_t peak_kb, enum lw_stage peak_record_stage)
{
	struct session_view sv[LW_RING_SESSION_SLOTS_MAX];
	size_t n, k, first = SIZE_MAX;
	enum lw_stage st = LW_STAGE_NONE;

	if (!r->nsessions)
		return peak_record_stage;
	n = sessions_view(r, sv, LW_RING_SESSION_SLOTS_MAX);
	for (k = 0; k < n; k++)
		if (peak_kb && sv[k].peak_kb == peak_kb && sv[k].peak_record < first) {
			first = sv[k].peak_record;
			st = sv[k].peak_stage;
		}
	/* A stage beyond the walk's slots (a newer writer's) is the
	 * record's to tell. */
	if (st == LW_STAGE_NONE && (unsigned)peak_record_stage >= LW_RING_STAGE_SLOTS)
		return peak_record_stage;
	return st;
}

void sessions_blame(const struct run *r, uint32_t peak_kb, struct session_blame *out)
{
	struct session_view sv[LW_RING_SESSION_SLOTS_MAX];
	size_t n, k, first = SIZE_MAX;

	memset(out, 0, sizeof(*out));
	if (!r->nsessions)
		return;
	n = sessions_view(r, sv, LW_RING_SESSION_SLOTS_MAX);
	for (k = 0; k < n; k++) {
		if (sv[k].open_stages)
			out->open_at_end |= UINT64_C(1) << k;
		if (peak_kb && sv[k].peak_kb == peak_kb && sv[k].peak_record < first)
			first = sv[k].peak_record;
	}
	for (k = 0; k < n && first != SIZE_MAX; k++)
		if (sv[k].peak_kb == peak_kb && sv[k].peak_record == first &&
		    sv[k].state == LW_SESSION_OPEN)
			out->held_peak |= UINT64_C(1) << k;
}

enum lw_stage sessions_last_stage(const struct run *r, enum lw_stage open_stage)
{
	size_t i, k, began = 0, holder = SIZE_MAX;
	enum lw_stage last = LW_STAGE_NONE;

	if ((unsigned)open_stage >= LW_RING_STAGE_SLOTS || open_stage == LW_STAGE_NONE)
		return LW_STAGE_NONE;
	/* Of the sessions that hold it open, the one whose begin of it is
	 * the latest record. */
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if (s->type != LW_EV_STAGE_BEGIN || s->stage != (uint32_t)open_stage)
			continue;
		for (k = 0; k < r->nsessions; k++)
			if (r->sessions[k].id == s->d && r->sessions[k].open_count[open_stage]) {
				holder = k;
				began = i;
			}
	}
	if (holder == SIZE_MAX)
		return LW_STAGE_NONE;
	for (i = began; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if ((s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END) &&
		    s->d == r->sessions[holder].id)
			last = (enum lw_stage)s->stage;
	}
	return last;
}

int sessions_used(const struct run *r)
{
	return r->nsessions > 1 || (r->nsessions == 1 && r->sessions[0].id != 0);
}
