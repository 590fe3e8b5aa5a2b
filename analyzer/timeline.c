/* A run's timeline, as JSON (timeline.h). */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/exit-info.h"
#include "../src/signals.h"
#include "../src/vocab.h"
#include "format.h"
#include "runs/ring-event.h"

/* A clock triple of the run: its CLOCK_REALTIME and CLOCK_MONOTONIC at one
 * moment (ns). */
struct triple {
	int64_t real_ns, mono_ns;
};

/* The run's clock triples, by CLOCK_REALTIME. */
struct clock {
	struct triple *v;
	size_t n;
};

static int cmp_triple(const void *a, const void *b)
{
	const struct triple *x = a, *y = b;

	return x->real_ns < y->real_ns ? -1 : x->real_ns > y->real_ns;
}

/* The header's triple (at open), and each stage, session and close
 * record's (ring format, section 8: a is CLOCK_BOOTTIME and b
 * CLOCK_REALTIME at the record's t_mono_ns). -1 on ENOMEM. */
static int clock_init(struct clock *c, const struct run *r)
{
	size_t i, n = 1;

	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		n += (s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END ||
		      s->type == LW_EV_SESSION_OPEN || s->type == LW_EV_SESSION_CLOSE ||
		      s->type == LW_EV_CLOSE) && s->b;
	}
	c->v = malloc(n * sizeof(*c->v));
	if (!c->v)
		return -1;
	c->v[0] = (struct triple){ (int64_t)r->hdr.start_real_ns, (int64_t)r->hdr.start_mono_ns };
	c->n = 1;
	for (i = 0; i < r->nevents && c->n < n; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if ((s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END ||
		     s->type == LW_EV_SESSION_OPEN || s->type == LW_EV_SESSION_CLOSE ||
		     s->type == LW_EV_CLOSE) && s->b)
			c->v[c->n++] = (struct triple){ (int64_t)s->b, (int64_t)s->t_mono_ns };
	}
	qsort(c->v, c->n, sizeof(*c->v), cmp_triple);
	return 0;
}

/*
 * The one conversion of a UTC time (ns since the epoch: correlate.c gives
 * each piece of evidence it joined in ms, read in the device's zone at the
 * precision the record states) onto the run's clock, in ms from its start: by the clock triple nearest to it in CLOCK_REALTIME (the later on
 * a tie), so that a wall clock stepped during the run (NTP, the user)
 * moves only what came after the step. Without a step every triple gives
 * the same time.
 */
static double timeline_run_ms(const struct clock *c, const struct run *r, int64_t real)
{
	size_t lo = 0, hi = c->n, k;

	/* the first triple later than real */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].real_ns <= real)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = lo;
	if (k == c->n || (k > 0 && real - c->v[k - 1].real_ns <= c->v[k].real_ns - real))
		k--;
	return (double)(c->v[k].mono_ns + (real - c->v[k].real_ns) - (int64_t)r->hdr.start_mono_ns) /
	       1e6;
}

static double rel_ms(const struct run *r, const struct lw_ring_slot *s)
{
	return (double)ring_event_rel_ns(&r->hdr, s) / 1e6;
}

/* The RSS samples ("samples", "points"): each one a point while they are
 * TIMELINE_POINTS or fewer; else buckets of the samples' time, each point
 * [the time of its first sample, its min, its max]. */
static void memory_json(struct json *j, cJSON *o, const struct run *r)
{
	struct run_sample s = { 0, 0 }, prev = { 0, 0 };
	int64_t t0 = 0, t1 = 0, bucket = -1;
	uint32_t lo = 0, hi = 0;
	double at = 0;
	size_t i = 0, n = 0;
	cJSON *points, *p;

	while (run_next_sample(r, &i, &prev, &s)) {
		if (n++ == 0)
			t0 = s.rel_ns;
		t1 = s.rel_ns;
		prev = s;
	}
	json_number(j, o, "samples", (double)n);
	points = json_array(j, o, "points");
	i = 0;
	memset(&prev, 0, sizeof(prev));
	while (run_next_sample(r, &i, &prev, &s)) {
		int64_t b = n <= TIMELINE_POINTS || t1 <= t0
				    ? bucket + 1
				    : (int64_t)((double)(s.rel_ns - t0) / (double)(t1 - t0) *
						(TIMELINE_POINTS - 1));

		prev = s;
		if (b == bucket) {
			lo = s.rss_kb < lo ? s.rss_kb : lo;
			hi = s.rss_kb > hi ? s.rss_kb : hi;
			continue;
		}
		if (bucket >= 0) {
			p = json_array(j, points, NULL);
			json_number(j, p, NULL, at);
			json_number(j, p, NULL, lo);
			json_number(j, p, NULL, hi);
		}
		bucket = b;
		at = (double)s.rel_ns / 1e6;
		lo = hi = s.rss_kb;
	}
	if (bucket >= 0) {
		p = json_array(j, points, NULL);
		json_number(j, p, NULL, at);
		json_number(j, p, NULL, lo);
		json_number(j, p, NULL, hi);
	}
}

/* A mark that stands for count marks of its kind in one bucket: the last. */
struct mark_fold {
	size_t event, count;
	int64_t bucket;
};

static int cmp_fold(const void *a, const void *b)
{
	const struct mark_fold *x = a, *y = b;

	return x->event < y->event ? -1 : x->event > y->event;
}

/* "marks": in the order of the ring, each the last of its kind in its
 * bucket of [0, end_ms]. -1 on ENOMEM. */
static int marks_json(struct json *j, cJSON *o, const struct run *r, double end_ms)
{
	struct mark_fold pending[LW_MARK_RECEIPT + 1], *out;
	size_t i, n = 0, cap = 64;
	cJSON *a = json_array(j, o, "marks"), *m;

	memset(pending, 0, sizeof(pending));
	out = malloc(cap * sizeof(*out));
	if (!out)
		return -1;
	for (i = 0; i <= r->nevents; i++) {
		const struct lw_ring_slot *s = i < r->nevents ? &r->events[i] : NULL;
		size_t k = s && s->code <= LW_MARK_RECEIPT ? s->code : 0, from = k, to = k + 1;
		int64_t b = 0;

		if (s && s->type != LW_EV_MARK)
			continue;
		if (s && end_ms > 0 && rel_ms(r, s) > 0)
			b = (int64_t)(rel_ms(r, s) / end_ms * (TIMELINE_POINTS - 1));
		if (s && pending[k].count && pending[k].bucket == b) {
			pending[k].event = i;
			pending[k].count++;
			continue;
		}
		if (!s) { /* the end: every kind's last */
			from = 0;
			to = LW_MARK_RECEIPT + 1;
		}
		for (k = from; k < to; k++) {
			if (!pending[k].count)
				continue;
			if (n == cap) {
				struct mark_fold *grown = realloc(out, 2 * cap * sizeof(*out));

				if (!grown) {
					free(out);
					return -1;
				}
				out = grown;
				cap *= 2;
			}
			out[n++] = pending[k];
		}
		if (s)
			pending[from] = (struct mark_fold){ i, 1, b };
	}
	qsort(out, n, sizeof(*out), cmp_fold);
	for (i = 0; i < n; i++) {
		const struct lw_ring_slot *s = &r->events[out[i].event];
		char label[64], detail[160];

		ring_event_text(&r->hdr, s, label, sizeof(label), detail, sizeof(detail));
		m = json_object(j, a, NULL);
		json_number(j, m, "t_ms", rel_ms(r, s));
		json_name(j, m, "mark", &vocab_marks, s->code, "unknown");
		json_text(j, m, "detail", detail);
		json_number(j, m, "count", (double)out[i].count);
	}
	free(out);
	return 0;
}

/* "death": the crash record, or the last record of a run that died; null
 * for a run that ended cleanly. */
static void death_json(struct json *j, cJSON *o, const struct run *r, const struct run_facts *f)
{
	const struct lw_ring_slot *at = NULL;
	char label[64], detail[160];
	size_t i;
	cJSON *d;

	for (i = 0; i < r->nevents && !at; i++)
		if (r->events[i].type == LW_EV_CRASH)
			at = &r->events[i];
	if (!at && (!run_facts_died(f) || !r->nevents)) {
		json_null(j, o, "death");
		return;
	}
	d = json_object(j, o, "death");
	if (!at)
		at = &r->events[r->nevents - 1];
	ring_event_text(&r->hdr, at, label, sizeof(label), detail, sizeof(detail));
	json_number(j, d, "t_ms", rel_ms(r, at));
	json_text(j, d, "source", at->type == LW_EV_CRASH ? "crash_record" : "last_record");
	json_name(j, d, "stage", &vocab_stages, f->open_stage, "unknown");
	json_text(j, d, "detail", at->type == LW_EV_CRASH ? detail : label);
}

/* One piece of evidence on the run's clock: its kind, what it says, where
 * it was read, its time (UTC, and on the run's clock) and how far that may
 * be off: the clock tolerance and the record's own precision. */
static void evidence_item(struct json *j, cJSON *arr, const char *kind, const char *what,
			  const char *file, size_t line, int64_t utc_ns, int64_t within_ms,
			  const struct clock *clk, const struct run *r)
{
	cJSON *x = json_object(j, arr, NULL);
	char iso[40];

	json_text(j, x, "kind", kind);
	json_text(j, x, "what", what);
	json_text(j, x, "file", file);
	json_int_or_null(j, x, "line", (int64_t)line, 0);
	if (utc_ns == EV_NO_TIME) {
		json_null(j, x, "time");
		json_null(j, x, "t_ms");
	} else {
		fmt_iso(iso, sizeof(iso), (uint64_t)utc_ns);
		json_text(j, x, "time", iso);
		json_number(j, x, "t_ms", timeline_run_ms(clk, r, utc_ns));
	}
	json_number(j, x, "within_ms", (double)within_ms);
}

/* An lmkd kill's figures, on its evidence item (issue 22): what the kill
 * freed, the swap, the dma-buf memory (the vendor form's dmabuf_rss, else
 * its dmabuf_pss), the free memory (killinfo) and the reason; null where
 * the line does not give one. Other items get none. */
static void lmkd_figures(struct json *j, cJSON *x, const struct log_event *e)
{
	int64_t dmabuf = e->dmabuf_rss_kb != EV_NONE ? e->dmabuf_rss_kb : e->dmabuf_pss_kb;

	if (!x || (e->type != LOG_LMKD_KILL && e->type != LOG_EV_KILLINFO))
		return;
	json_int_or_null(j, x, "rss_kb", e->rss_kb, EV_NONE);
	json_int_or_null(j, x, "anon_rss_kb", e->anon_rss_kb, EV_NONE);
	json_int_or_null(j, x, "swap_kb", e->swap_kb, EV_NONE);
	json_int_or_null(j, x, "dmabuf_kb", dmabuf, EV_NONE);
	json_int_or_null(j, x, "free_kb", e->free_kb, EV_NONE);
	json_text(j, x, "kill_reason", e->type == LOG_LMKD_KILL ? e->reason : NULL);
	json_int_or_null(j, x, "kill_reason_code", e->kill_reason_code, -1);
}

/* What one joined record of list l says, for evidence_item(). */
static void evidence_what(const struct corr_list *l, size_t k, const struct corr_run *cr,
			  char *buf, size_t len, const char **kind)
{
	const struct corr_match *m = &l->v[k];

	if (l == &cr->exits) {
		const struct exit_record *e = &m->file->exits[m->index];
		const char *name = vocab_name(&exit_reason_labels, (int)e->reason);

		*kind = "exit_record";
		if (name)
			snprintf(buf, len, "%s (reason %lld)", name, (long long)e->reason);
		else
			snprintf(buf, len, "reason %lld", (long long)e->reason);
	} else if (l == &cr->tombstones) {
		const struct tombstone *t = &m->file->tombstones[m->index];
		const char *sig = t->signo > 0 ? signal_name((int)t->signo) : NULL;

		*kind = "tombstone";
		snprintf(buf, len, "%s%s%s", sig ? sig : "a fatal signal", t->code_name ? " " : "",
			 t->code_name ? t->code_name : "");
	} else if (l == &cr->anrs) {
		*kind = "anr_trace";
		snprintf(buf, len, "ANR trace");
	} else {
		const struct log_event *e = &m->file->logs[m->index];

		const char *sig = e->signo > 0 ? signal_name((int)e->signo) : NULL;

		*kind = log_event_name(e->type);
		if (e->reason)
			snprintf(buf, len, "%s", e->reason);
		else if (sig)
			snprintf(buf, len, "%s", sig);
		else
			snprintf(buf, len, "logged at %s", e->time_text ? e->time_text : "no time");
	}
}

static size_t evidence_line(const struct corr_list *l, size_t k, const struct corr_run *cr)
{
	const struct corr_match *m = &l->v[k];

	if (l == &cr->exits)
		return m->file->exits[m->index].line;
	if (l == &cr->tombstones)
		return m->file->tombstones[m->index].line;
	if (l == &cr->anrs)
		return m->file->anrs[m->index].line;
	return m->file->logs[m->index].line;
}

/* "composition": what the memory was made of (version 3 rings), one
 * point at each memory record with a composition and each graphics
 * record, with the last of the other: at most TIMELINE_POINTS of them,
 * evenly spaced in record order, and the last one always. */
static void composition_json(struct json *j, cJSON *o, const struct run *r)
{
	struct ring_composition c = { 0, -1, -1, -1, -1 };
	int64_t graphics = -1;
	size_t i, n = 0, k = 0;
	cJSON *a = json_array(j, o, "composition"), *x;

	for (i = 0; i < r->nevents; i++)
		n += r->events[i].type == LW_EV_GRAPHICS ||
		     ring_event_composition(&r->events[i], &(struct ring_composition){ 0 });
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if (s->type == LW_EV_GRAPHICS)
			graphics = s->a > INT32_MAX ? INT32_MAX : (int64_t)s->a;
		else if (!ring_event_composition(s, &c))
			continue;
		k++;
		/* the k-th of n: kept when it starts a new stride, or is the last */
		if (n > TIMELINE_POINTS && k != n &&
		    (k - 1) * TIMELINE_POINTS / n == k * TIMELINE_POINTS / n)
			continue;
		x = json_object(j, a, NULL);
		json_number(j, x, "t_ms", rel_ms(r, s));
		json_int_or_null(j, x, "anon_kb", c.source ? c.anon_kb : -1, -1);
		json_int_or_null(j, x, "file_kb", c.source ? c.file_kb : -1, -1);
		json_int_or_null(j, x, "shmem_kb", c.source ? c.shmem_kb : -1, -1);
		json_int_or_null(j, x, "swap_kb", c.source ? c.swap_kb : -1, -1);
		json_int_or_null(j, x, "graphics_kb", graphics, -1);
	}
}

/* "pressure": each pressure record, with its words and whether it said
 * the system was short (the rule of struct run_pressure). */
static void pressure_json(struct json *j, cJSON *o, const struct run *r)
{
	cJSON *a = json_array(j, o, "pressure"), *x;
	char label[64], detail[160];
	size_t i;

	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if (s->type != LW_EV_PRESSURE)
			continue;
		ring_event_text(&r->hdr, s, label, sizeof(label), detail, sizeof(detail));
		x = json_object(j, a, NULL);
		json_number(j, x, "t_ms", rel_ms(r, s));
		json_name(j, x, "source", &vocab_pressure_sources, s->code, NULL);
		json_text(j, x, "detail", detail);
		json_bool(j, x, "short", run_pressure_short(s));
	}
}

/* "evidence" and "evidence_left_out": each joined record, at most
 * TIMELINE_EVIDENCE_KIND_MAX of a kind (log lines: of a type); then the
 * peer_died mark that saw the run die. */
static void evidence_json(struct json *j, cJSON *o, const struct corr_run *cr,
			  const struct correlation *c, const struct clock *clk)
{
	const struct corr_list *lists[] = { &cr->exits, &cr->tombstones, &cr->anrs, &cr->logs };
	size_t placed[4 + LOG_EVENT_COUNT] = { 0 }, left = 0, li, k;
	cJSON *a = json_array(j, o, "evidence");
	char what[256];

	for (li = 0; li < 4; li++) {
		const struct corr_list *l = lists[li];

		for (k = 0; k < l->n; k++) {
			const struct corr_match *m = &l->v[k];
			size_t slot = l == &cr->logs ? 4 + m->file->logs[m->index].type : li;
			int64_t slack = 0;
			const char *kind;

			if (placed[slot]++ >= TIMELINE_EVIDENCE_KIND_MAX) {
				left++;
				continue;
			}
			if (l == &cr->exits)
				corr_exit_time(&m->file->exits[m->index], &c->opt, &slack);
			evidence_what(l, k, cr, what, sizeof(what), &kind);
			evidence_item(j, a, kind, what, m->file->path, evidence_line(l, k, cr),
				      ms_fits_ns(m->time_utc_ms) ? m->time_utc_ms * 1000000 : EV_NO_TIME,
				      c->opt.tolerance_ms + slack, clk, cr->run);
			if (l == &cr->logs)
				lmkd_figures(j, cJSON_GetArrayItem(a, cJSON_GetArraySize(a) - 1),
					     &m->file->logs[m->index]);
		}
	}
	if (cr->peer.witness) {
		const struct run *w = cr->peer.witness;

		snprintf(what, sizeof(what), "seen dying by %s (pid %u)", w->hdr.process, w->hdr.pid);
		evidence_item(j, a, "peer_died", what, w->path, 0,
			      (int64_t)ring_event_real_ns(&w->hdr, &w->events[cr->peer.event]),
			      c->opt.tolerance_ms, clk, cr->run);
	}
	json_number(j, o, "evidence_left_out", (double)left);
}

void timeline_json(struct json *j, cJSON *parent, const char *key, const struct corr_run *cr,
		   const struct run_facts *f, const struct correlation *c)
{
	const struct run *r = cr->run;
	struct clock clk;
	double end_ms;
	cJSON *o;

	if (r->ring == RUN_RING_NONE) {
		json_null(j, parent, key);
		return;
	}
	if (clock_init(&clk, r) != 0) {
		json_item(j, parent, key, NULL); /* ENOMEM */
		return;
	}
	end_ms = r->nevents ? rel_ms(r, &r->events[r->nevents - 1]) : 0;
	o = json_object(j, parent, key);
	json_number(j, o, "end_ms", end_ms);
	json_u64(j, o, "budget_kb", r->hdr.memory_budget_kb);
	memory_json(j, o, r);
	composition_json(j, o, r);
	pressure_json(j, o, r);
	if (marks_json(j, o, r, end_ms) != 0)
		json_item(j, o, "marks", NULL);
	death_json(j, o, r, f);
	evidence_json(j, o, cr, c, &clk);
	free(clk.v);
}
