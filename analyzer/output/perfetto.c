/* The report's runs as a Perfetto trace: tracks, slices, counters and
 * instants, written packet by packet with the encoder of src/protobuf.c. */
#include "perfetto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/exit-info.h"
#include "../../src/protobuf.h"
#include "../../src/vocab.h"
#include "../evidence/text.h"
#include "../format.h"
#include "../runs/ring-event.h"
#include "../runs/run-clock.h"
#include "../symbols/symbolize.h"

/*
 * Field numbers of Perfetto's trace protos (protos/perfetto/trace/: the
 * Trace, TracePacket, TrackEvent, TrackDescriptor, Process-, Thread- and
 * CounterDescriptor, DebugAnnotation and ClockSnapshot messages).
 */
enum {
	TRACE_PACKET = 1,

	PACKET_TIMESTAMP = 8,
	PACKET_CLOCK_ID = 58,
	PACKET_TRACK_EVENT = 11,
	PACKET_TRACK_DESCRIPTOR = 60,
	PACKET_CLOCK_SNAPSHOT = 6,
	PACKET_SEQUENCE_ID = 10,    /* trusted_packet_sequence_id */
	PACKET_SEQUENCE_FLAGS = 13,

	EVENT_NAME = 23,
	EVENT_TYPE = 9,
	EVENT_TRACK_UUID = 11,
	EVENT_COUNTER_VALUE = 30,
	EVENT_DEBUG_ANNOTATION = 4,

	TRACK_UUID = 1,
	TRACK_NAME = 2,
	TRACK_PROCESS = 3,
	TRACK_THREAD = 4,
	TRACK_PARENT_UUID = 5,
	TRACK_COUNTER = 8,

	PROCESS_PID = 1,
	PROCESS_NAME = 6,
	PROCESS_LABELS = 8,

	THREAD_PID = 1,
	THREAD_TID = 2,

	COUNTER_UNIT = 3,
	COUNTER_Y_AXIS_SHARE_KEY = 7,

	ANNOTATION_NAME = 10,
	ANNOTATION_INT = 4,
	ANNOTATION_STRING = 6,

	SNAPSHOT_CLOCKS = 1,
	SNAPSHOT_PRIMARY_CLOCK = 2,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
};

/* Enum values of those protos. */
enum {
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,
	UNIT_SIZE_BYTES = 3,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	CLOCK_REALTIME = 1,
	CLOCK_MONOTONIC = 3,
	CLOCK_BOOTTIME = 6,
};

/* The one writer's sequence: every packet carries it. Not 1: a trace
 * concatenated after a system trace (README) shares its packets' stream,
 * and traced numbers its writers' sequences from 1. "LW". */
#define SEQUENCE_ID 0x4c57

struct writer {
	struct pb pb;
	FILE *out;
	uint32_t clock;        /* CLOCK_BOOTTIME, or CLOCK_REALTIME with no ring */
	int64_t tolerance_ms;  /* the correlation's, told on each evidence instant */
	uint64_t next_uuid;
	struct perfetto_notes *notes;
	size_t mark;           /* the open packet's */
};

/* A string field, as valid UTF-8, as protobuf strings must be: a byte
 * that is not part of well-formed UTF-8 (or a NUL the readers kept)
 * becomes U+FFFD; NULL writes nothing. */
static void trace_string(struct pb *p, uint32_t field, const char *s)
{
	char *clean = NULL;

	if (!s || p->error)
		return;
	if (!text_utf8_valid(s) && !(s = clean = text_utf8_clean(s, "\xef\xbf\xbd"))) {
		p->error = -ENOMEM;
		return;
	}
	pb_bytes(p, field, s, strlen(s));
	free(clean);
}

static void packet_begin(struct writer *w)
{
	pb_clear(&w->pb);
	w->mark = pb_begin(&w->pb, TRACE_PACKET);
	pb_varint(&w->pb, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	if (!w->notes->packets)
		pb_varint(&w->pb, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
}

static int packet_end(struct writer *w)
{
	pb_end(&w->pb, w->mark);
	if (w->pb.error)
		return w->pb.error;
	fwrite(w->pb.buf, 1, w->pb.len, w->out);
	w->notes->packets++;
	w->notes->bytes += w->pb.len;
	return 0;
}

static void annotation_text(struct pb *p, const char *name, const char *value)
{
	size_t m;

	if (!value)
		return;
	m = pb_begin(p, EVENT_DEBUG_ANNOTATION);
	trace_string(p, ANNOTATION_NAME, name);
	trace_string(p, ANNOTATION_STRING, value);
	pb_end(p, m);
}

/* A tombstone's top frame in the app's own libraries (else its top
 * frame), symbolicated where --symbols did it. */
static void top_frame_annotation(struct pb *p, const struct tombstone *t)
{
	char buf[512];
	size_t k;
	int app;

	if (!t->nframes)
		return;
	for (k = 0; k < t->nframes && !library_is_app(t->frames[k].library); k++)
		;
	app = k < t->nframes;
	if (!app)
		k = 0;
	frame_format(&t->frames[k], k, buf, sizeof(buf));
	annotation_text(p, app ? "top app frame" : "top frame", buf);
}

static void annotation_int(struct pb *p, const char *name, int64_t value)
{
	size_t m = pb_begin(p, EVENT_DEBUG_ANNOTATION);

	trace_string(p, ANNOTATION_NAME, name);
	pb_int64(p, ANNOTATION_INT, value);
	pb_end(p, m);
}

/* Descriptors. */

static int process_track(struct writer *w, uint64_t uuid, const struct report *rep, size_t i)
{
	const struct run *r = rep->corr.runs[i].run;
	const struct verdict *v = &rep->verdicts[i];
	char label[96];
	size_t t, p;

	packet_begin(w);
	t = pb_begin(&w->pb, PACKET_TRACK_DESCRIPTOR);
	pb_varint(&w->pb, TRACK_UUID, uuid);
	if (!r->hdr.pid) {
		/* A witness that names no pid: pid 0 is the kernel's idle
		 * task to Perfetto, so a named track of its own. */
		snprintf(label, sizeof(label), "%.63s (pid unknown)", r->hdr.process);
		trace_string(&w->pb, TRACK_NAME, label);
		pb_end(&w->pb, t);
		return packet_end(w);
	}
	p = pb_begin(&w->pb, TRACK_PROCESS);
	pb_int64(&w->pb, PROCESS_PID, r->hdr.pid);
	trace_string(&w->pb, PROCESS_NAME, r->hdr.process);
	if (rep->judged[i]) {
		snprintf(label, sizeof(label), "%s, %s", vocab_name(&vocab_exit_classes, (int)v->cls),
			 vocab_name(&vocab_evidence_levels, (int)v->level));
		trace_string(&w->pb, PROCESS_LABELS, label);
	}
	/* A ring-less run has no stage to show, and says it is unknown, as
	 * the report's text does. */
	trace_string(&w->pb, PROCESS_LABELS,
		  r->ring == RUN_RING_NONE ? "no ring: stage and candidate unknown" : ring_outcome_name(r->outcome));
	pb_end(&w->pb, p);
	pb_end(&w->pb, t);
	return packet_end(w);
}

static int thread_track(struct writer *w, uint64_t uuid, uint32_t pid, uint32_t tid)
{
	size_t t, th;

	packet_begin(w);
	t = pb_begin(&w->pb, PACKET_TRACK_DESCRIPTOR);
	pb_varint(&w->pb, TRACK_UUID, uuid);
	th = pb_begin(&w->pb, TRACK_THREAD);
	pb_int64(&w->pb, THREAD_PID, pid);
	pb_int64(&w->pb, THREAD_TID, tid);
	pb_end(&w->pb, th);
	pb_end(&w->pb, t);
	return packet_end(w);
}

/* A track under the process: a session's stages, or (with a y-axis share
 * key) a counter in bytes. */
static int child_track(struct writer *w, uint64_t uuid, uint64_t parent, const char *name,
		       const char *counter_axis)
{
	size_t t, c;

	packet_begin(w);
	t = pb_begin(&w->pb, PACKET_TRACK_DESCRIPTOR);
	pb_varint(&w->pb, TRACK_UUID, uuid);
	pb_varint(&w->pb, TRACK_PARENT_UUID, parent);
	trace_string(&w->pb, TRACK_NAME, name);
	if (counter_axis) {
		c = pb_begin(&w->pb, TRACK_COUNTER);
		pb_varint(&w->pb, COUNTER_UNIT, UNIT_SIZE_BYTES);
		trace_string(&w->pb, COUNTER_Y_AXIS_SHARE_KEY, counter_axis);
		pb_end(&w->pb, c);
	}
	pb_end(&w->pb, t);
	return packet_end(w);
}

/* The events of one run, collected, then written in time order. */

enum event_kind {
	EVENT_BEGIN,    /* src: an interval */
	EVENT_END,      /* src: an interval */
	EVENT_RECORD,   /* src: a ring record, an instant */
	EVENT_RSS,      /* value: bytes */
	EVENT_BUDGET,   /* value: bytes */
	EVENT_EVIDENCE, /* src: the index in the run's list of kind value (enum corr_kind) */
	EVENT_PEER,     /* the main process's peer_died mark */
	EVENT_MEMORY,   /* value: bytes of one kind of memory (version 3: a composition or graphics) */
};

struct event {
	uint64_t ts;
	size_t order; /* ties keep the order of collection: a slice's end before the next begin */
	uint64_t track;
	size_t src;
	int64_t value;
	enum event_kind kind;
};

/* A stage's slice: a begin and an end record of one session and stage
 * (SIZE_MAX for one the ring no longer holds, or never wrote). */
struct interval {
	uint64_t from, to;
	size_t begin, end;
	uint32_t session;
	uint8_t stage;
	uint64_t track;
};

/* A lane of a session's stages: a track on which slices nest. */
struct lane {
	uint32_t session;
	size_t n;        /* the lane's number within its session */
	uint64_t uuid;
	size_t *stack;   /* open intervals, innermost last */
	size_t depth, cap;
};

struct run_events {
	const struct run *run;
	const struct corr_run *cr;
	const struct run_clock *clock;
	struct event *v;
	size_t n, cap;
	struct interval *iv;
	size_t niv;
	struct lane *lanes;
	size_t nlanes;
	uint32_t *tids;  /* the threads that wrote instants, sorted */
	size_t ntids;
	uint64_t *rec_ts; /* each record's time; UINT64_MAX: not placed */
	uint64_t process, rss, budget, first_thread;
	/* A counter track for each kind of memory a version 3 ring gives
	 * (RUN_MEM_* in bit order), 0 until one is used: a ring without
	 * them takes no track id. */
	uint64_t kinds[5];
};

static void run_events_release(struct run_events *e)
{
	size_t i;

	free(e->v);
	free(e->iv);
	for (i = 0; i < e->nlanes; i++)
		free(e->lanes[i].stack);
	free(e->lanes);
	free(e->tids);
	free(e->rec_ts);
}

static int add(struct run_events *e, enum event_kind kind, uint64_t ts, uint64_t track, size_t src,
	       int64_t value)
{
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 64;
		struct event *nv = realloc(e->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		e->v = nv;
		e->cap = ncap;
	}
	e->v[e->n] = (struct event){ ts, e->n, track, src, value, kind };
	e->n++;
	return 0;
}

/* The records that are instants: all but open, the stages' begin and end
 * (slices) and memory samples (the RSS counter). */
static int is_instant(const struct lw_ring_slot *s)
{
	return s->type != LW_EV_OPEN && s->type != LW_EV_STAGE_BEGIN && s->type != LW_EV_STAGE_END &&
	       s->type != LW_EV_MEMORY;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Stage records ordered by session, stage, then ticket order. qsort()
 * takes no context: sort_events is the run's records while it sorts
 * (the analyzer has one thread). */
static const struct lw_ring_slot *sort_events;

static int cmp_stage_record(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	const struct lw_ring_slot *x = &sort_events[i], *y = &sort_events[k];

	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return i < k ? -1 : i > k;
}

static int push_interval(struct run_events *e, size_t begin, size_t end, uint32_t session,
			 uint8_t stage, uint64_t first, uint64_t last)
{
	struct interval *x = ev_grow((void **)&e->iv, e->niv, sizeof(*e->iv));

	if (!x)
		return -ENOMEM;
	x->begin = begin;
	x->end = end;
	x->session = session;
	x->stage = stage;
	x->from = begin != SIZE_MAX ? e->rec_ts[begin] : first;
	x->to = end != SIZE_MAX ? e->rec_ts[end] : last;
	if (x->to < x->from)
		x->to = x->from;
	x->track = 0;
	e->niv++;
	return 0;
}

/* The stages' slices: each end with the latest begin before it of its
 * session and stage; an end with none began before the ring's first
 * record (or was lapped), a begin with none was open at its last. */
static int find_intervals(struct run_events *e, uint64_t first, uint64_t last)
{
	const struct run *r = e->run;
	size_t *idx = malloc((r->nevents ? r->nevents : 1) * sizeof(*idx));
	size_t *open = malloc((r->nevents ? r->nevents : 1) * sizeof(*open));
	size_t n = 0, i, g, depth;
	int rc = 0;

	if (!idx || !open) {
		free(idx);
		free(open);
		return -ENOMEM;
	}
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if ((s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END) &&
		    e->rec_ts[i] != UINT64_MAX)
			idx[n++] = i;
	}
	sort_events = r->events;
	qsort(idx, n, sizeof(*idx), cmp_stage_record);
	for (g = 0; g < n && rc == 0;) {
		const struct lw_ring_slot *key = &r->events[idx[g]];

		depth = 0;
		for (; g < n && rc == 0; g++) {
			const struct lw_ring_slot *s = &r->events[idx[g]];

			if (s->d != key->d || s->stage != key->stage)
				break;
			if (s->type == LW_EV_STAGE_BEGIN)
				open[depth++] = idx[g];
			else
				rc = push_interval(e, depth ? open[--depth] : SIZE_MAX, idx[g], s->d,
						   s->stage, first, last);
		}
		while (depth && rc == 0)
			rc = push_interval(e, open[--depth], SIZE_MAX, key->d, key->stage, first, last);
	}
	free(idx);
	free(open);
	return rc;
}

/* The stages that the header's session table says were open at the end
 * (DESIGN.md, "Sessions": a lapped ring still tells them) whose begin
 * the ring no longer holds: slices over all of the ring's records. */
static int lapped_open_stages(struct run_events *e, uint64_t first, uint64_t last)
{
	const struct run *r = e->run;
	uint32_t seen[LW_RING_SESSION_SLOTS_MAX][LW_RING_STAGE_SLOTS];
	size_t i, k, niv = e->niv;
	uint32_t st, n;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < niv; i++) {
		if (e->iv[i].end != SIZE_MAX || e->iv[i].stage >= LW_RING_STAGE_SLOTS)
			continue;
		for (k = 0; k < r->nsessions; k++)
			if (r->sessions[k].id == e->iv[i].session)
				seen[k][e->iv[i].stage]++;
	}
	for (k = 0; k < r->nsessions; k++)
		for (st = 1; st < LW_RING_STAGE_SLOTS; st++)
			for (n = seen[k][st]; n < r->sessions[k].open_count[st]; n++)
				if (push_interval(e, SIZE_MAX, SIZE_MAX, r->sessions[k].id, (uint8_t)st, first,
						  last) != 0)
					return -ENOMEM;
	return 0;
}

/* Intervals by session, then start, the longer first (so that it holds
 * the shorter ones starting with it). */
static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->session != y->session)
		return x->session < y->session ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to > y->to ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int lane_push(struct lane *l, size_t iv)
{
	if (l->depth == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 8;
		size_t *nv = realloc(l->stack, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->stack = nv;
		l->cap = ncap;
	}
	l->stack[l->depth++] = iv;
	return 0;
}

/* End the slices of lane l that ended by t: their END events, innermost
 * first. */
static int lane_pop(struct run_events *e, struct lane *l, uint64_t t, int all)
{
	while (l->depth) {
		size_t top = l->stack[l->depth - 1];

		if (!all && e->iv[top].to > t)
			break;
		l->depth--;
		if (add(e, EVENT_END, e->iv[top].to, l->uuid, top, 0) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* Each slice on the first lane of its session where it nests (ends
 * within the innermost open slice, or none is open), else on a new lane:
 * Perfetto's slices on one track must nest like a call stack, and two
 * threads' stages of one session need not. The BEGIN and END events are
 * collected in each lane's own order. */
static int assign_lanes(struct run_events *e, struct writer *w)
{
	size_t i, k;

	if (e->niv) /* e->iv is NULL without one: no qsort(NULL) */
		qsort(e->iv, e->niv, sizeof(*e->iv), cmp_interval);
	for (i = 0; i < e->niv; i++) {
		struct interval *x = &e->iv[i];
		struct lane *l = NULL;
		size_t nsession = 0;

		for (k = 0; k < e->nlanes && !l; k++) {
			struct lane *c = &e->lanes[k];

			if (c->session != x->session)
				continue;
			nsession++;
			if (lane_pop(e, c, x->from, 0) != 0)
				return -ENOMEM;
			if (!c->depth || e->iv[c->stack[c->depth - 1]].to >= x->to)
				l = c;
		}
		if (!l) {
			l = ev_grow((void **)&e->lanes, e->nlanes, sizeof(*e->lanes));
			if (!l)
				return -ENOMEM;
			memset(l, 0, sizeof(*l));
			l->session = x->session;
			l->n = nsession;
			l->uuid = w->next_uuid++;
			e->nlanes++;
		}
		x->track = l->uuid;
		if (lane_push(l, i) != 0 || add(e, EVENT_BEGIN, x->from, l->uuid, i, 0) != 0)
			return -ENOMEM;
	}
	for (k = 0; k < e->nlanes; k++)
		if (lane_pop(e, &e->lanes[k], 0, 1) != 0)
			return -ENOMEM;
	return 0;
}

static uint64_t thread_uuid(const struct run_events *e, uint32_t tid)
{
	size_t lo = 0, hi = e->ntids;

	if (!tid)
		return e->process;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->tids[mid] < tid)
			lo = mid + 1;
		else if (e->tids[mid] > tid)
			hi = mid;
		else
			return e->first_thread + mid;
	}
	return e->process;
}

/* The threads that wrote instants, each a track. */
static int find_threads(struct run_events *e, struct writer *w)
{
	const struct run *r = e->run;
	size_t i, n = 0;

	e->tids = malloc((r->nevents ? r->nevents : 1) * sizeof(*e->tids));
	if (!e->tids)
		return -ENOMEM;
	/* Threads of pid 0 would be the kernel's: none (the run's track). */
	for (i = 0; i < r->nevents && r->hdr.pid; i++)
		if (is_instant(&r->events[i]) && r->events[i].tid && e->rec_ts[i] != UINT64_MAX)
			e->tids[n++] = r->events[i].tid;
	qsort(e->tids, n, sizeof(*e->tids), cmp_u32);
	for (i = 0; i < n; i++)
		if (!e->ntids || e->tids[e->ntids - 1] != e->tids[i])
			e->tids[e->ntids++] = e->tids[i];
	e->first_thread = w->next_uuid;
	w->next_uuid += e->ntids;
	return 0;
}

/* A counter of kind k (a bit index of RUN_MEM_*) at ts, in kB; its track is
 * made when first used. Nothing for a figure not known (-1). */
static int add_memory(struct run_events *e, struct writer *w, unsigned k, uint64_t ts, int64_t kb)
{
	if (kb < 0)
		return 0;
	if (!e->kinds[k])
		e->kinds[k] = w->next_uuid++;
	return add(e, EVENT_MEMORY, ts, e->kinds[k], 0, kb * 1024);
}

/* The ring's records: instants, RSS samples, the budget, the stages. */
static int ring_events(struct run_events *e, struct writer *w)
{
	const struct run *r = e->run;
	uint64_t first = UINT64_MAX, last = 0, rss_ts = 0, t;
	struct ring_composition c;
	uint32_t rss_kb = 0;
	size_t i;

	e->rec_ts = malloc((r->nevents ? r->nevents : 1) * sizeof(*e->rec_ts));
	if (!e->rec_ts)
		return -ENOMEM;
	for (i = 0; i < r->nevents; i++) {
		if (run_clock_boot_of_mono(e->clock, r->events[i].t_mono_ns, &t) != 0) {
			e->rec_ts[i] = UINT64_MAX;
			w->notes->unplaced++;
			continue;
		}
		e->rec_ts[i] = t;
		first = t < first ? t : first;
		last = t > last ? t : last;
	}
	if (find_threads(e, w) != 0)
		return -ENOMEM;
	/* The budget the probe was opened with, from the run's start. */
	if (r->hdr.memory_budget_kb && run_clock_boot_of_mono(e->clock, r->hdr.start_mono_ns, &t) == 0 &&
	    add(e, EVENT_BUDGET, t, e->budget, 0, (int64_t)r->hdr.memory_budget_kb * 1024) != 0)
		return -ENOMEM;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];
		uint64_t age;

		if (e->rec_ts[i] == UINT64_MAX)
			continue;
		if (is_instant(s) && add(e, EVENT_RECORD, e->rec_ts[i], thread_uuid(e, s->tid), i, 0) != 0)
			return -ENOMEM;
		if (ring_event_composition(s, &c) &&
		    (add_memory(e, w, 0, e->rec_ts[i], c.anon_kb) != 0 ||
		     add_memory(e, w, 1, e->rec_ts[i], c.file_kb) != 0 ||
		     add_memory(e, w, 2, e->rec_ts[i], c.shmem_kb) != 0 ||
		     add_memory(e, w, 3, e->rec_ts[i], c.swap_kb) != 0))
			return -ENOMEM;
		if (s->type == LW_EV_GRAPHICS &&
		    add_memory(e, w, 4, e->rec_ts[i], s->a > INT32_MAX ? INT32_MAX : (int64_t)s->a) != 0)
			return -ENOMEM;
		if (s->type == LW_EV_MARK && s->code == LW_MARK_BUDGET &&
		    add(e, EVENT_BUDGET, e->rec_ts[i], e->budget, 0, (int64_t)(s->a * 1024)) != 0)
			return -ENOMEM;
		/* A new RSS sample, at the time it was taken (the record's
		 * less its age): records repeat the latest sample. */
		if (!s->rss_kb || s->rss_kb == rss_kb)
			continue;
		rss_kb = s->rss_kb;
		age = (uint64_t)s->rss_age_ms * 1000000u;
		t = e->rec_ts[i] - (age < e->rec_ts[i] - first ? age : e->rec_ts[i] - first);
		rss_ts = t > rss_ts ? t : rss_ts;
		if (add(e, EVENT_RSS, rss_ts, e->rss, 0, (int64_t)s->rss_kb * 1024) != 0)
			return -ENOMEM;
	}
	/* Slices need a record to begin and end at. */
	if (first != UINT64_MAX &&
	    (find_intervals(e, first, last) != 0 || lapped_open_stages(e, first, last) != 0))
		return -ENOMEM;
	return assign_lanes(e, w);
}

/* A time of the evidence (UTC ms), on the trace's clock: 0, or -1 when it
 * cannot be placed (counted). */
static int evidence_ts(struct writer *w, const struct run_events *e, int64_t utc_ms, uint64_t *ts)
{
	if (w->clock == CLOCK_REALTIME) {
		if (ms_fits_ns(utc_ms)) {
			*ts = (uint64_t)utc_ms * 1000000u;
			return 0;
		}
	} else if (run_clock_boot_of_utc(e->clock, utc_ms, ts) == 0) {
		return 0;
	}
	w->notes->unplaced++;
	return -1;
}

/* The main process's peer_died mark: at the time its own ring's clock
 * gives it, so that it lines up with the mark on the main process's
 * track (the UTC time correlate.c joined it by has ms only). */
static int peer_event(struct run_events *e, struct writer *w)
{
	const struct corr_peer *p = &e->cr->peer;
	struct run_clock c;
	uint64_t ts;
	int rc, placed;

	run_clock_init(&c);
	rc = run_clock_add(&c, p->witness);
	if (rc == 0)
		rc = run_clock_done(&c);
	placed = rc == 0 && w->clock == CLOCK_BOOTTIME &&
		 run_clock_boot_of_mono(&c, p->witness->events[p->event].t_mono_ns, &ts) == 0;
	run_clock_release(&c);
	if (rc != 0)
		return rc;
	if (!placed && evidence_ts(w, e, p->time_ms, &ts) != 0)
		return 0;
	return add(e, EVENT_PEER, ts, e->process, 0, 0);
}

static int evidence_events(struct run_events *e, struct writer *w)
{
	const struct corr_list *l;
	uint64_t ts;
	size_t i;
	int k;

	for (k = CORR_EXITS; k <= CORR_LOGS; k++)
		for (l = corr_run_list(e->cr, (enum corr_kind)k), i = 0; i < l->n; i++)
			if (evidence_ts(w, e, l->v[i].time_utc_ms, &ts) == 0 &&
			    add(e, EVENT_EVIDENCE, ts, e->process, i, k) != 0)
				return -ENOMEM;
	return e->cr->peer.witness ? peer_event(e, w) : 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Writing each event. */

static void slice_name(struct pb *p, const struct run_events *e, const struct interval *x)
{
	const struct run *r = e->run;
	char buf[32];
	const char *name = vocab_name(&vocab_stages, x->stage);

	if (!name) {
		snprintf(buf, sizeof(buf), "stage %u", x->stage);
		name = buf;
	}
	trace_string(p, EVENT_NAME, name);
	annotation_int(p, "session", x->session);
	if (x->begin != SIZE_MAX) {
		const struct lw_ring_slot *s = &r->events[x->begin];

		annotation_int(p, "tid", s->tid);
		if (s->c) {
			fmt_digest(buf, sizeof(buf), s->c);
			annotation_text(p, "candidate", buf);
		}
	} else {
		annotation_text(p, "begin", "not in the ring (lapped, or before its first record)");
	}
	if (x->end != SIZE_MAX) {
		const char *err = vocab_name(&vocab_errors, r->events[x->end].code);

		annotation_text(p, "result", err ? err : "unknown error class");
	} else {
		annotation_text(p, "end", "still open at the ring's last record");
	}
}

static void record_instant(struct pb *p, const struct run *r, size_t i)
{
	const struct lw_ring_slot *s = &r->events[i];
	char label[64], detail[256];

	ring_event_text(&r->hdr, s, label, sizeof(label), detail, sizeof(detail));
	trace_string(p, EVENT_NAME, label);
	if (detail[0])
		annotation_text(p, "detail", detail);
	/* The tid is its track's. */
	annotation_int(p, "ticket", (int64_t)run_event_ticket(s));
}

static void evidence_instant(struct pb *p, const struct writer *w, const struct corr_run *cr,
			     enum corr_kind list, size_t i)
{
	const struct corr_match *m = &corr_run_list(cr, list)->v[i];
	const struct ev_file *f = m->file;
	char name[96];
	size_t line = 0;

	switch (list) {
	case CORR_EXITS: {
		const struct exit_record *x = &f->exits[m->index];
		const char *reason = vocab_name(&exit_reason_labels, (int)x->reason);

		if (reason)
			snprintf(name, sizeof(name), "exit record: %s", reason);
		else
			snprintf(name, sizeof(name), "exit record: reason %lld", (long long)x->reason);
		trace_string(p, EVENT_NAME, name);
		annotation_text(p, "time as written", x->timestamp_text);
		if (x->importance != EV_NONE)
			annotation_int(p, "importance", x->importance);
		annotation_text(p, "description", x->description);
		annotation_text(p, "joined by", m->by_run_id ? "run id" : "process, pid and time");
		line = x->line;
		break;
	}
	case CORR_TOMBSTONES: {
		const struct tombstone *t = &f->tombstones[m->index];

		snprintf(name, sizeof(name), "tombstone: signal %lld", (long long)t->signo);
		trace_string(p, EVENT_NAME, name);
		annotation_text(p, "time as written", t->timestamp_text);
		if (t->tid != EV_NONE)
			annotation_int(p, "tid", t->tid);
		annotation_text(p, "cause", t->cause);
		annotation_text(p, "runtime", t->first_runtime);
		top_frame_annotation(p, t);
		line = t->line;
		break;
	}
	case CORR_ANRS: {
		const struct anr_trace *a = &f->anrs[m->index];

		trace_string(p, EVENT_NAME, "ANR trace");
		annotation_text(p, "time as written", a->time_text);
		annotation_text(p, "subject", a->subject);
		annotation_text(p, "main thread", a->main_state);
		line = a->line;
		break;
	}
	case CORR_LOGS: {
		const struct log_event *g = &f->logs[m->index];

		snprintf(name, sizeof(name), "log: %s", log_event_name(g->type));
		trace_string(p, EVENT_NAME, name);
		annotation_text(p, "time as written", g->time_text);
		annotation_text(p, "reason", g->reason);
		if (g->oom_score_adj != EV_NONE)
			annotation_int(p, "oom_score_adj", g->oom_score_adj);
		line = g->line;
		break;
	}
	}
	annotation_text(p, "file", f->path);
	if (line)
		annotation_int(p, "line", (int64_t)line);
	annotation_int(p, "clock tolerance ms", w->tolerance_ms);
}

static int write_event(struct writer *w, const struct run_events *e, const struct event *x)
{
	struct pb *p = &w->pb;
	size_t t;

	packet_begin(w);
	pb_varint(p, PACKET_TIMESTAMP, x->ts);
	pb_varint(p, PACKET_CLOCK_ID, w->clock);
	t = pb_begin(p, PACKET_TRACK_EVENT);
	pb_varint(p, EVENT_TRACK_UUID, x->track);
	switch (x->kind) {
	case EVENT_BEGIN:
		pb_varint(p, EVENT_TYPE, TYPE_SLICE_BEGIN);
		slice_name(p, e, &e->iv[x->src]);
		break;
	case EVENT_END:
		pb_varint(p, EVENT_TYPE, TYPE_SLICE_END);
		break;
	case EVENT_RECORD:
		pb_varint(p, EVENT_TYPE, TYPE_INSTANT);
		record_instant(p, e->run, x->src);
		break;
	case EVENT_RSS:
	case EVENT_BUDGET:
	case EVENT_MEMORY:
		pb_varint(p, EVENT_TYPE, TYPE_COUNTER);
		pb_int64(p, EVENT_COUNTER_VALUE, x->value);
		break;
	case EVENT_EVIDENCE:
		pb_varint(p, EVENT_TYPE, TYPE_INSTANT);
		evidence_instant(p, w, e->cr, (enum corr_kind)x->value, x->src);
		break;
	case EVENT_PEER: {
		const struct run *wit = e->cr->peer.witness;
		char name[LW_RING_PROCESS_MAX + 48];

		pb_varint(p, EVENT_TYPE, TYPE_INSTANT);
		snprintf(name, sizeof(name), "peer_died: seen by %s (pid %u)", wit->hdr.process, wit->hdr.pid);
		trace_string(p, EVENT_NAME, name);
		annotation_text(p, "file", wit->path);
		annotation_int(p, "ticket", (int64_t)run_event_ticket(&wit->events[e->cr->peer.event]));
		annotation_int(p, "clock tolerance ms", w->tolerance_ms);
		break;
	}
	}
	pb_end(p, t);
	return packet_end(w);
}

/* "stages" (a run of session 0 alone), or "session 2 stages, candidate
 * 1f2e...", and " (2)" for a session's second lane. */
static void session_track_name(const struct run_events *e, const struct lane *l, char *buf, size_t len)
{
	const struct run *r = e->run;
	char cand[32] = "";
	size_t k;

	for (k = 0; k < r->nsessions; k++)
		if (r->sessions[k].id == l->session && r->sessions[k].candidate)
			fmt_digest(cand, sizeof(cand), r->sessions[k].candidate);
	if (l->session == 0 && r->nsessions <= 1)
		snprintf(buf, len, "stages");
	else
		snprintf(buf, len, "session %u stages%s%s", l->session, cand[0] ? ", candidate " : "", cand);
	if (l->n)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%zu)", l->n + 1);
}

/* One run: its tracks, then its events in time order. */
static int write_run(struct writer *w, const struct report *rep, size_t i, const struct run_clock *clock)
{
	const struct corr_run *cr = &rep->corr.runs[i];
	struct run_events e;
	char name[128], axis[32];
	size_t k;
	int rc;

	memset(&e, 0, sizeof(e));
	e.run = cr->run;
	e.cr = cr;
	e.clock = clock;
	e.process = w->next_uuid++;
	e.rss = w->next_uuid++;
	e.budget = w->next_uuid++;
	rc = cr->run->ring == RUN_RING_PROBE ? ring_events(&e, w) : 0;
	if (rc == 0)
		rc = evidence_events(&e, w);
	if (rc != 0)
		goto out;
	if (e.n) /* e.v is NULL without one */
		qsort(e.v, e.n, sizeof(*e.v), cmp_event);
	if ((rc = process_track(w, e.process, rep, i)) != 0)
		goto out;
	for (k = 0; k < e.ntids && rc == 0; k++)
		rc = thread_track(w, e.first_thread + k, cr->run->hdr.pid, e.tids[k]);
	for (k = 0; k < e.nlanes && rc == 0; k++) {
		session_track_name(&e, &e.lanes[k], name, sizeof(name));
		rc = child_track(w, e.lanes[k].uuid, e.process, name, NULL);
	}
	snprintf(axis, sizeof(axis), "memory %zu", i);
	for (k = 0; k < e.n && rc == 0 && e.v[k].kind != EVENT_RSS; k++)
		;
	if (rc == 0 && k < e.n)
		rc = child_track(w, e.rss, e.process, "RSS", axis);
	for (k = 0; k < e.n && rc == 0 && e.v[k].kind != EVENT_BUDGET; k++)
		;
	if (rc == 0 && k < e.n)
		rc = child_track(w, e.budget, e.process, "memory budget", axis);
	for (k = 0; k < 5 && rc == 0; k++) {
		char kind[40];

		snprintf(kind, sizeof(kind), "memory: %s", run_memory_kind_name(1u << k));
		if (e.kinds[k])
			rc = child_track(w, e.kinds[k], e.process, kind, axis);
	}
	for (k = 0; k < e.n && rc == 0; k++)
		rc = write_event(w, &e, &e.v[k]);
	w->notes->runs++;
out:
	run_events_release(&e);
	return rc;
}

/* The ClockSnapshots: each ring's start times, in BOOTTIME order, those
 * whose every clock is later than the one before's (trace processor
 * refuses a snapshot in which a clock went back: a reboot between rings);
 * with no ring, the trace's clock is REALTIME. */
static int cmp_start(const void *a, const void *b)
{
	const struct clock_triple *x = a, *y = b;

	return x->boot_ns < y->boot_ns ? -1 : x->boot_ns > y->boot_ns;
}

static int write_snapshot(struct writer *w, const struct clock_triple *t)
{
	struct pb *p = &w->pb;
	const uint32_t ids[] = { CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_MONOTONIC };
	const uint64_t v[] = { t->boot_ns, t->real_ns, t->mono_ns };
	size_t s, c, k;

	packet_begin(w);
	s = pb_begin(p, PACKET_CLOCK_SNAPSHOT);
	for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		/* With no ring, REALTIME is the only clock known. */
		if (w->clock == CLOCK_REALTIME && ids[k] != CLOCK_REALTIME)
			continue;
		c = pb_begin(p, SNAPSHOT_CLOCKS);
		pb_varint(p, CLOCK_ID, ids[k]);
		pb_varint(p, CLOCK_TIMESTAMP, v[k]);
		pb_end(p, c);
	}
	pb_varint(p, SNAPSHOT_PRIMARY_CLOCK, w->clock);
	pb_end(p, s);
	return packet_end(w);
}

static int write_snapshots(struct writer *w, const struct report *rep)
{
	const struct correlation *c = &rep->corr;
	struct clock_triple *v = malloc((c->nruns ? c->nruns : 1) * sizeof(*v)), last = { 0, 0, 0 };
	size_t i, n = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->nruns; i++) {
		const struct lw_ring_header *h = &c->runs[i].run->hdr;

		if (c->runs[i].run->ring == RUN_RING_PROBE && h->start_boot_ns && h->start_real_ns)
			v[n++] = (struct clock_triple){ h->start_mono_ns, h->start_boot_ns, h->start_real_ns };
	}
	if (w->clock == CLOCK_REALTIME) {
		last.real_ns = ms_fits_ns(c->newest_ms) && c->newest_ms > 0 ? (uint64_t)c->newest_ms * 1000000u : 0;
		rc = write_snapshot(w, &last);
	}
	qsort(v, n, sizeof(*v), cmp_start);
	for (i = 0; i < n && rc == 0; i++) {
		if (i && (v[i].boot_ns <= last.boot_ns || v[i].real_ns <= last.real_ns ||
			  v[i].mono_ns <= last.mono_ns))
			continue;
		rc = write_snapshot(w, &v[i]);
		last = v[i];
	}
	free(v);
	return rc;
}

int perfetto_write(const struct report *rep, FILE *out, struct perfetto_notes *notes)
{
	const struct correlation *c = &rep->corr;
	struct perfetto_notes n;
	struct run_clock bundle, own;
	struct writer w;
	size_t i;
	int rc = 0;

	memset(&n, 0, sizeof(n));
	memset(&w, 0, sizeof(w));
	pb_init(&w.pb);
	w.out = out;
	w.notes = &n;
	w.next_uuid = 1;
	w.tolerance_ms = c->opt.tolerance_ms;
	/* The bundle's clock, for the runs that have none of their own. */
	run_clock_init(&bundle);
	for (i = 0; i < c->nruns && rc == 0; i++)
		if (c->runs[i].run->ring == RUN_RING_PROBE)
			rc = run_clock_add(&bundle, c->runs[i].run);
	if (rc == 0)
		rc = run_clock_done(&bundle);
	w.clock = bundle.n ? CLOCK_BOOTTIME : CLOCK_REALTIME;
	n.realtime = w.clock == CLOCK_REALTIME;
	if (rc == 0)
		rc = write_snapshots(&w, rep);
	for (i = 0; i < c->nruns && rc == 0; i++) {
		const struct run *r = c->runs[i].run;

		if (r->ring == RUN_RING_SEED) {
			n.seed_runs++;
			continue;
		}
		if (r->ring != RUN_RING_PROBE) {
			rc = write_run(&w, rep, i, &bundle);
			continue;
		}
		run_clock_init(&own);
		rc = run_clock_add(&own, r);
		if (rc == 0)
			rc = run_clock_done(&own);
		if (rc == 0 && !own.n)
			n.no_clock++;
		else if (rc == 0)
			rc = write_run(&w, rep, i, &own);
		run_clock_release(&own);
	}
	run_clock_release(&bundle);
	pb_release(&w.pb);
	if (rc == 0)
		*notes = n;
	return rc;
}
