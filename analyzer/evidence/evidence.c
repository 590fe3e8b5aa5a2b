/* Records of exit evidence: lists, names, JSON and one-line text. */
#include "evidence.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/signals.h"
#include "input.h"
#include "json.h"
#include "text.h"

static const char *const kind_names[] = {
#define X(up, name) #name,
	EV_KINDS(X)
#undef X
};

static const char *const log_names[] = {
#define X(up, name) #name,
	LOG_EVENTS(X)
#undef X
};

const char *ev_kind_name(enum ev_kind k)
{
	return (unsigned)k < EV_KIND_COUNT ? kind_names[k] : "unknown";
}

const char *log_event_name(enum log_event_type t)
{
	return (unsigned)t < LOG_EVENT_COUNT ? log_names[t] : "unknown";
}

char *ev_strndup(const char *s, size_t n)
{
	size_t nuls = 0, i, k = 0;
	char *p;

	for (i = 0; i < n; i++)
		nuls += s[i] == '\0';
	p = malloc(n + nuls + 1);
	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] != '\0') {
			p[k++] = s[i];
		} else {
			memcpy(p + k, TEXT_NUL, 2);
			k += 2;
		}
	}
	p[k] = '\0';
	return p;
}

void ev_skip(struct ev_stats *st, size_t line)
{
	st->skipped++;
	if (!st->first_skipped)
		st->first_skipped = line;
}

int ev_cut_text(const struct ev_stats *st, char *buf, size_t len)
{
	struct ev_dropped d[EV_DROPPED_KINDS];
	size_t nd = ev_dropped(st, d), i;
	int n = 0, k;

	if (len)
		buf[0] = '\0';
#define ADD(...)                                                                        \
	do {                                                                            \
		k = snprintf(buf + ((size_t)n < len ? (size_t)n : len),                 \
			     (size_t)n < len ? len - (size_t)n : 0, __VA_ARGS__);       \
		if (k > 0)                                                              \
			n += k;                                                         \
	} while (0)
	if (st->cut_lines)
		ADD("%zu line%s longer than %zu KiB read cut to it, the first at line %zu",
		    st->cut_lines, st->cut_lines == 1 ? "" : "s", INPUT_LINE_MAX >> 10,
		    st->first_cut);
	if (st->cut_frames)
		ADD("%s%zu tombstone frame%s past the first %d not kept", n ? "; " : "",
		    st->cut_frames, st->cut_frames == 1 ? "" : "s", EV_FRAMES_MAX);
	if (st->cut_java_frames)
		ADD("%s%zu Java stack line%s past a crash's first %d not kept", n ? "; " : "",
		    st->cut_java_frames, st->cut_java_frames == 1 ? "" : "s", EV_JAVA_FRAMES_MAX);
	if (st->cut_threads)
		ADD("%s%zu tombstone thread%s past the first %d not kept", n ? "; " : "",
		    st->cut_threads, st->cut_threads == 1 ? "" : "s", EV_THREADS_MAX);
	for (i = 0; i < nd; i++)
		ADD("%s%zu %s records dropped, the last %zu read kept (what one input may keep)",
		    n ? "; " : "", d[i].dropped, d[i].kind, d[i].kept);
#undef ADD
	return n;
}

void exit_record_init(struct exit_record *r)
{
	memset(r, 0, sizeof(*r));
	r->pid = r->uid = r->real_uid = r->package_uid = r->defining_uid = r->user = EV_NONE;
	r->reason = r->subreason = r->status = r->importance = EV_NONE;
	r->pss_kb = r->rss_kb = EV_NONE;
	r->timestamp_ms = EV_NO_TIME;
	r->timestamp_precision_ms = 1;
	r->state_bytes = EV_NONE;
	r->app_version = EV_NONE;
	r->anr_id = r->anr_type = r->anr_timeout_ms = EV_NONE;
	r->anr_user_perceptible = EV_NONE;
}

void tombstone_init(struct tombstone *t)
{
	memset(t, 0, sizeof(*t));
	t->pid = t->tid = t->uid = t->signo = t->code = EV_NONE;
}

void anr_trace_init(struct anr_trace *a)
{
	memset(a, 0, sizeof(*a));
	a->pid = a->rss_kb = a->thread_count = EV_NONE;
	a->main_tid = a->main_sys_tid = a->lock_owner_tid = EV_NONE;
}

void log_event_init(struct log_event *e)
{
	memset(e, 0, sizeof(*e));
	e->time_ms = e->zone_ms = EV_NO_TIME;
	e->year = EV_NONE;
	e->pid = e->uid = e->user = e->oom_score_adj = EV_NONE;
	e->rss_kb = e->swap_kb = e->free_kb = EV_NONE;
	e->anon_rss_kb = e->dmabuf_pss_kb = e->dmabuf_rss_kb = EV_NONE;
	e->signo = e->kill_reason_code = e->parcel_bytes = EV_NONE;
}

/* Grow *v (n elements of size sz) by one; capacity doubles from 8. */
void *ev_grow(void **v, size_t n, size_t sz)
{
	void *nv;

	if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
		size_t cap = n < 8 ? 8 : 2 * n;

		if (cap > SIZE_MAX / sz)
			return NULL;
		nv = realloc(*v, cap * sz);
		if (!nv)
			return NULL;
		*v = nv;
	}
	return (char *)*v + n * sz;
}

/* Both absent, or the same text. */
static int same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int exit_record_same(const struct exit_record *a, const struct exit_record *b)
{
	return a->pid == b->pid && a->uid == b->uid && a->reason == b->reason &&
	       a->subreason == b->subreason && a->status == b->status &&
	       a->importance == b->importance && a->timestamp_ms == b->timestamp_ms &&
	       same_text(a->timestamp_text, b->timestamp_text) && same_text(a->process, b->process) &&
	       same_text(a->description, b->description) && same_text(a->state, b->state);
}

int tombstone_same(const struct tombstone *a, const struct tombstone *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->signo == b->signo &&
	       a->code == b->code && a->has_fault_addr == b->has_fault_addr &&
	       a->fault_addr == b->fault_addr && a->nframes == b->nframes &&
	       same_text(a->timestamp_text, b->timestamp_text) && same_text(a->process, b->process) &&
	       same_text(a->abort_message, b->abort_message);
}

int anr_trace_same(const struct anr_trace *a, const struct anr_trace *b)
{
	return a->pid == b->pid && same_text(a->time_text, b->time_text) &&
	       same_text(a->cmdline, b->cmdline) && same_text(a->subject, b->subject) &&
	       same_text(a->main_state, b->main_state);
}

int log_event_same(const struct log_event *a, const struct log_event *b)
{
	return a->type == b->type && a->pid == b->pid && a->uid == b->uid &&
	       a->time_ms == b->time_ms && a->rss_kb == b->rss_kb && a->signo == b->signo &&
	       a->oom_score_adj == b->oom_score_adj && a->parcel_bytes == b->parcel_bytes &&
	       same_text(a->time_text, b->time_text) &&
	       same_text(a->process, b->process) && same_text(a->reason, b->reason);
}

static void exit_record_release(struct exit_record *r)
{
	free(r->process);
	free(r->package);
	free(r->pss_text);
	free(r->rss_text);
	free(r->timestamp_text);
	free(r->description);
	free(r->state);
	free(r->trace);
}

void frame_lines_release(struct frame *fr)
{
	size_t i;

	for (i = 0; i < fr->nlines; i++) {
		free(fr->lines[i].function);
		free(fr->lines[i].file);
	}
	free(fr->lines);
	fr->lines = NULL;
	fr->nlines = 0;
}

static void frames_release(struct frame *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].library);
		free(v[i].symbol);
		free(v[i].build_id);
		frame_lines_release(&v[i]);
	}
	free(v);
}

static void tombstone_release(struct tombstone *t)
{
	size_t j;

	free(t->fingerprint);
	free(t->abi);
	free(t->timestamp_text);
	free(t->thread);
	free(t->process);
	free(t->cmdline);
	free(t->code_name);
	free(t->cause);
	free(t->abort_message);
	frames_release(t->frames, t->nframes);
	for (j = 0; j < t->nthreads; j++) {
		free(t->threads[j].name);
		frames_release(t->threads[j].frames, t->threads[j].nframes);
	}
	free(t->threads);
}

static void anr_trace_release(struct anr_trace *a)
{
	free(a->layout);
	free(a->time_text);
	free(a->cmdline);
	free(a->subject);
	free(a->main_state);
	free(a->main_lock);
	free(a->main_top_frame);
}

static void log_event_release(struct log_event *e)
{
	size_t i, k;

	for (i = 0; i < e->nstack; i++) {
		free(e->stack[i].text);
		for (k = 0; k < e->stack[i].nretraced; k++)
			free(e->stack[i].retraced[k]);
		free(e->stack[i].retraced);
	}
	free(e->stack);
	free(e->reason_retraced);
	free(e->format);
	free(e->time_text);
	free(e->process);
	free(e->reason);
}

void ev_file_release(struct ev_file *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nexits; i++)
		exit_record_release(&f->exits[i]);
	for (i = 0; i < f->ntombstones; i++)
		tombstone_release(&f->tombstones[i]);
	for (i = 0; i < f->nanrs; i++)
		anr_trace_release(&f->anrs[i]);
	for (i = 0; i < f->nlogs; i++)
		log_event_release(&f->logs[i]);
	for (i = 0; i < f->nseeds; i++) {
		free(f->seeds[i].stage);
		free(f->seeds[i].exit_reason);
	}
	free(f->exits);
	free(f->tombstones);
	free(f->anrs);
	free(f->logs);
	free(f->seeds);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* Drop the oldest records of a list of one kind down to its last keep,
 * counting them in *dropped. */
#define DROP_OLDEST(list, n, keep, release, dropped)                          \
	do {                                                                   \
		if ((n) > (keep)) {                                            \
			size_t drop_ = (n) - (keep), i_;                       \
                                                                               \
			for (i_ = 0; i_ < drop_; i_++)                         \
				release(&(list)[i_]);                          \
			memmove((list), (list) + drop_, (keep) * sizeof(*(list))); \
			(n) = (keep);                                          \
			(dropped) += drop_;                                    \
		}                                                              \
	} while (0)

/* The log lines of each type past EV_LOGS_MAX, the oldest, dropped; the
 * others keep their order. */
static void cap_logs(struct ev_file *f)
{
	size_t count[LOG_EVENT_COUNT] = { 0 }, drop[LOG_EVENT_COUNT], i, k = 0;
	int t;

	for (i = 0; i < f->nlogs; i++)
		if ((unsigned)f->logs[i].type < LOG_EVENT_COUNT)
			count[f->logs[i].type]++;
	for (t = 0; t < LOG_EVENT_COUNT; t++)
		drop[t] = count[t] > EV_LOGS_MAX ? count[t] - EV_LOGS_MAX : 0;
	for (i = 0; i < f->nlogs; i++) {
		struct log_event *e = &f->logs[i];

		if ((unsigned)e->type < LOG_EVENT_COUNT && drop[e->type]) {
			drop[e->type]--;
			f->stats.dropped_logs[e->type]++;
			log_event_release(e);
			continue;
		}
		if (k != i)
			f->logs[k] = *e;
		k++;
	}
	f->nlogs = k;
	/* at least EV_LOGS_MAX lines more before the next count: amortized
	 * constant time a line */
	f->logs_trim_at = k + EV_LOGS_MAX > 2 * EV_LOGS_MAX ? k + EV_LOGS_MAX : 2 * EV_LOGS_MAX;
}

void ev_cap(struct ev_file *f)
{
	DROP_OLDEST(f->exits, f->nexits, EV_EXITS_MAX, exit_record_release,
		    f->stats.dropped_exits);
	DROP_OLDEST(f->tombstones, f->ntombstones, EV_TOMBSTONES_MAX, tombstone_release,
		    f->stats.dropped_tombstones);
	DROP_OLDEST(f->anrs, f->nanrs, EV_ANRS_MAX, anr_trace_release, f->stats.dropped_anrs);
	cap_logs(f);
}

size_t ev_dropped(const struct ev_stats *st, struct ev_dropped *out)
{
	size_t n = 0;
	int t;

	if (st->dropped_exits)
		out[n++] = (struct ev_dropped){ "exit_record", EV_EXITS_MAX, st->dropped_exits };
	if (st->dropped_tombstones)
		out[n++] = (struct ev_dropped){ "tombstone", EV_TOMBSTONES_MAX,
						st->dropped_tombstones };
	if (st->dropped_anrs)
		out[n++] = (struct ev_dropped){ "anr_trace", EV_ANRS_MAX, st->dropped_anrs };
	for (t = 0; t < LOG_EVENT_COUNT; t++)
		if (st->dropped_logs[t])
			out[n++] = (struct ev_dropped){ log_event_name((enum log_event_type)t),
							EV_LOGS_MAX, st->dropped_logs[t] };
	return n;
}

void ev_dropped_json(struct json *j, cJSON *obj, const char *key, const struct ev_stats *st)
{
	struct ev_dropped d[EV_DROPPED_KINDS];
	size_t n = ev_dropped(st, d), i;
	cJSON *a;

	if (!n)
		return;
	a = json_array(j, obj, key);
	for (i = 0; i < n; i++) {
		cJSON *x = json_object(j, a, NULL);

		json_text(j, x, "kind", d[i].kind);
		json_number(j, x, "kept", (double)d[i].kept);
		json_number(j, x, "dropped", (double)d[i].dropped);
	}
}

struct exit_record *ev_add_exit(struct ev_file *f)
{
	struct exit_record *r;

	if (f->nexits >= 2 * EV_EXITS_MAX)
		DROP_OLDEST(f->exits, f->nexits, EV_EXITS_MAX, exit_record_release,
			    f->stats.dropped_exits);
	r = ev_grow((void **)&f->exits, f->nexits, sizeof(*r));
	if (r) {
		exit_record_init(r);
		f->nexits++;
	}
	return r;
}

struct tombstone *ev_add_tombstone(struct ev_file *f)
{
	struct tombstone *t;

	if (f->ntombstones >= 2 * EV_TOMBSTONES_MAX)
		DROP_OLDEST(f->tombstones, f->ntombstones, EV_TOMBSTONES_MAX, tombstone_release,
			    f->stats.dropped_tombstones);
	t = ev_grow((void **)&f->tombstones, f->ntombstones, sizeof(*t));
	if (t) {
		tombstone_init(t);
		f->ntombstones++;
	}
	return t;
}

struct anr_trace *ev_add_anr(struct ev_file *f)
{
	struct anr_trace *a;

	if (f->nanrs >= 2 * EV_ANRS_MAX)
		DROP_OLDEST(f->anrs, f->nanrs, EV_ANRS_MAX, anr_trace_release,
			    f->stats.dropped_anrs);
	a = ev_grow((void **)&f->anrs, f->nanrs, sizeof(*a));
	if (a) {
		anr_trace_init(a);
		f->nanrs++;
	}
	return a;
}

struct log_event *ev_add_log(struct ev_file *f)
{
	struct log_event *e;

	if (f->nlogs >= (f->logs_trim_at ? f->logs_trim_at : 2 * EV_LOGS_MAX))
		cap_logs(f);
	e = ev_grow((void **)&f->logs, f->nlogs, sizeof(*e));
	if (e) {
		log_event_init(e);
		f->nlogs++;
	}
	return e;
}

/* A frame appended to the frames *v of *n. */
static struct frame *add_frame(struct frame **v, size_t *n)
{
	struct frame *fr = ev_grow((void **)v, *n, sizeof(*fr));

	if (fr) {
		memset(fr, 0, sizeof(*fr));
		fr->index = EV_NONE;
		(*n)++;
	}
	return fr;
}

struct frame *ev_add_frame(struct tombstone *t)
{
	return add_frame(&t->frames, &t->nframes);
}

struct tomb_thread *ev_add_thread(struct tombstone *t)
{
	struct tomb_thread *th = ev_grow((void **)&t->threads, t->nthreads, sizeof(*th));

	if (th) {
		memset(th, 0, sizeof(*th));
		th->tid = EV_NONE;
		t->nthreads++;
	}
	return th;
}

struct frame *ev_add_thread_frame(struct tomb_thread *th)
{
	return add_frame(&th->frames, &th->nframes);
}

size_t ev_record_count(const struct ev_file *f)
{
	return f->nexits + f->ntombstones + f->nanrs + f->nlogs + f->nseeds;
}

/* JSON: absent integers (EV_NONE), times (EV_NO_TIME) and text (NULL)
 * become null. */

static void add_int(struct json *j, cJSON *o, const char *k, int64_t v)
{
	json_int_or_null(j, o, k, v, EV_NONE);
}

static void exit_json(struct json *j, cJSON *arr, const struct exit_record *r)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "record", "exit");
	json_int(j, o, "line", (int64_t)r->line);
	add_int(j, o, "pid", r->pid);
	json_text(j, o, "process", r->process);
	json_text(j, o, "package", r->package);
	add_int(j, o, "uid", r->uid);
	add_int(j, o, "real_uid", r->real_uid);
	add_int(j, o, "package_uid", r->package_uid);
	add_int(j, o, "defining_uid", r->defining_uid);
	add_int(j, o, "user", r->user);
	add_int(j, o, "reason", r->reason);
	add_int(j, o, "subreason", r->subreason);
	add_int(j, o, "status", r->status);
	add_int(j, o, "importance", r->importance);
	add_int(j, o, "pss_kb", r->pss_kb);
	add_int(j, o, "rss_kb", r->rss_kb);
	json_text(j, o, "pss_text", r->pss_text);
	json_text(j, o, "rss_text", r->rss_text);
	json_text(j, o, "timestamp", r->timestamp_text);
	json_int_or_null(j, o, "timestamp_ms", r->timestamp_ms, EV_NO_TIME);
	json_bool(j, o, "timestamp_local", r->timestamp_local);
	add_int(j, o, "timestamp_precision_ms", r->timestamp_precision_ms);
	json_text(j, o, "description", r->description);
	add_int(j, o, "state_bytes", r->state_bytes);
	json_text(j, o, "state", r->state);
	json_text(j, o, "trace", r->trace);
	add_int(j, o, "app_version", r->app_version);
	if (r->anr_info) {
		cJSON *a = json_object(j, o, "anr_info");

		add_int(j, a, "anr_id", r->anr_id);
		add_int(j, a, "anr_type", r->anr_type);
		add_int(j, a, "timeout_ms", r->anr_timeout_ms);
		if (r->anr_user_perceptible == EV_NONE)
			json_null(j, a, "user_perceptible");
		else
			json_bool(j, a, "user_perceptible", r->anr_user_perceptible);
	}
}

/* "0x7f0a..." for an address. */
static void add_addr(struct json *j, cJSON *o, const char *k, uint64_t addr)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	json_text(j, o, k, buf);
}

static void tombstone_json(struct json *j, cJSON *arr, const struct tombstone *t)
{
	cJSON *o = json_object(j, arr, NULL), *frames;
	size_t i;

	json_text(j, o, "record", "tombstone");
	json_int(j, o, "line", (int64_t)t->line);
	json_bool(j, o, "logcat_prefixed", t->logcat_prefixed);
	json_text(j, o, "fingerprint", t->fingerprint);
	json_text(j, o, "abi", t->abi);
	json_text(j, o, "timestamp", t->timestamp_text);
	add_int(j, o, "pid", t->pid);
	add_int(j, o, "tid", t->tid);
	add_int(j, o, "uid", t->uid);
	json_text(j, o, "thread", t->thread);
	json_text(j, o, "process", t->process);
	json_text(j, o, "cmdline", t->cmdline);
	add_int(j, o, "signo", t->signo);
	json_text(j, o, "signal", t->signo > 0 ? signal_name((int)t->signo) : NULL);
	if (t->has_code)
		json_int(j, o, "code", t->code);
	else
		json_null(j, o, "code");
	json_text(j, o, "code_name", t->code_name);
	if (t->has_fault_addr)
		add_addr(j, o, "fault_addr", t->fault_addr);
	else
		json_null(j, o, "fault_addr");
	json_text(j, o, "cause", t->cause);
	json_text(j, o, "abort_message", t->abort_message);
	json_int(j, o, "runtime_frames", (int64_t)t->runtime_frames);
	json_text(j, o, "first_runtime", t->first_runtime);
	json_bool(j, o, "protobuf", t->protobuf);
	json_int(j, o, "threads", (int64_t)t->nthreads);
	if (t->protobuf) {
		json_int(j, o, "mappings", (int64_t)t->nmappings);
		json_int(j, o, "log_lines", (int64_t)t->nlog_lines);
	}
	frames = json_array(j, o, "frames");
	for (i = 0; i < t->nframes; i++) {
		const struct frame *fr = &t->frames[i];
		cJSON *f = json_object(j, frames, NULL);

		add_int(j, f, "index", fr->index);
		add_addr(j, f, "pc", fr->pc);
		json_text(j, f, "library", fr->library);
		json_text(j, f, "symbol", fr->symbol);
		json_text(j, f, "build_id", fr->build_id);
		if (fr->has_file_offset)
			add_addr(j, f, "file_offset", fr->file_offset);
		else
			json_null(j, f, "file_offset");
		json_text(j, f, "runtime", fr->runtime);
	}
}

static void anr_json(struct json *j, cJSON *arr, const struct anr_trace *a)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "record", "anr");
	json_int(j, o, "line", (int64_t)a->line);
	json_text(j, o, "layout", a->layout);
	add_int(j, o, "pid", a->pid);
	json_text(j, o, "time", a->time_text);
	json_text(j, o, "cmdline", a->cmdline);
	json_text(j, o, "subject", a->subject);
	add_int(j, o, "rss_kb", a->rss_kb);
	json_bool(j, o, "has_java_threads", a->has_java_threads);
	add_int(j, o, "thread_count", a->thread_count);
	json_bool(j, o, "main_found", a->main_found);
	json_text(j, o, "main_state", a->main_state);
	add_int(j, o, "main_tid", a->main_tid);
	add_int(j, o, "main_sys_tid", a->main_sys_tid);
	json_text(j, o, "main_lock", a->main_lock);
	add_int(j, o, "lock_owner_tid", a->lock_owner_tid);
	json_text(j, o, "main_top_frame", a->main_top_frame);
}

/* A Java crash's stack: each line as written ("at " taken off), and what
 * the mapping made of it when it was retraced (report --mapping). */
void java_stack_json(struct json *j, cJSON *o, const char *key, const struct log_event *e)
{
	cJSON *a = json_array(j, o, key);
	size_t i, k;

	for (i = 0; i < e->nstack; i++) {
		const struct java_frame *fr = &e->stack[i];
		cJSON *x = json_object(j, a, NULL), *r;

		json_text(j, x, "raw", fr->text);
		if (!fr->retraced)
			continue;
		r = json_array(j, x, "retraced");
		for (k = 0; k < fr->nretraced; k++)
			json_text(j, r, NULL, fr->retraced[k]);
		if (fr->ambiguous)
			json_bool(j, x, "ambiguous", 1);
	}
}

static void log_json(struct json *j, cJSON *arr, const struct log_event *e)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "record", "log");
	json_int(j, o, "line", (int64_t)e->line);
	json_text(j, o, "event", log_event_name(e->type));
	json_text(j, o, "format", e->format);
	json_text(j, o, "time", e->time_text);
	json_int_or_null(j, o, "time_ms", e->time_ms, EV_NO_TIME);
	add_int(j, o, "pid", e->pid);
	add_int(j, o, "uid", e->uid);
	add_int(j, o, "user", e->user);
	json_text(j, o, "process", e->process);
	add_int(j, o, "oom_score_adj", e->oom_score_adj);
	add_int(j, o, "rss_kb", e->rss_kb);
	add_int(j, o, "swap_kb", e->swap_kb);
	add_int(j, o, "free_kb", e->free_kb);
	add_int(j, o, "anon_rss_kb", e->anon_rss_kb);
	add_int(j, o, "dmabuf_pss_kb", e->dmabuf_pss_kb);
	add_int(j, o, "dmabuf_rss_kb", e->dmabuf_rss_kb);
	add_int(j, o, "signo", e->signo);
	json_text(j, o, "reason", e->reason);
	add_int(j, o, "kill_reason_code", e->kill_reason_code);
	/* Only the type that has it: the other records keep their members. */
	if (e->type == LOG_BINDER_FAILED)
		add_int(j, o, "parcel_bytes", e->parcel_bytes);
	if (e->type == LOG_JAVA_CRASH)
		java_stack_json(j, o, "stack", e);
	if (e->reason_retraced)
		json_text(j, o, "reason_retraced", e->reason_retraced);
}

static void seed_json(struct json *j, cJSON *arr, const struct seed_event *s)
{
	cJSON *o = json_object(j, arr, NULL);

	json_text(j, o, "record", "seed");
	json_int(j, o, "index", (int64_t)s->index);
	add_int(j, o, "time_ms", s->time_ms);
	json_text(j, o, "stage", s->stage);
	add_int(j, o, "rss_mb", s->rss_mb);
	add_int(j, o, "budget_mb", s->budget_mb);
	add_int(j, o, "sessions", s->sessions);
	json_text(j, o, "exit_reason", s->exit_reason);
}

cJSON *ev_records_json(const struct ev_file *f)
{
	struct json j;
	cJSON *arr = json_begin_array(&j);
	size_t i;

	for (i = 0; i < f->nexits; i++)
		exit_json(&j, arr, &f->exits[i]);
	for (i = 0; i < f->ntombstones; i++)
		tombstone_json(&j, arr, &f->tombstones[i]);
	for (i = 0; i < f->nanrs; i++)
		anr_json(&j, arr, &f->anrs[i]);
	for (i = 0; i < f->nlogs; i++)
		log_json(&j, arr, &f->logs[i]);
	for (i = 0; i < f->nseeds; i++)
		seed_json(&j, arr, &f->seeds[i]);
	return json_end(&j);
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

int ev_record_text(const struct ev_file *f, size_t i, char *buf, size_t len)
{
	if (i < f->nexits) {
		const struct exit_record *r = &f->exits[i];

		return snprintf(buf, len,
				"line %zu: pid %" PRId64 " %s reason %" PRId64 " subreason %" PRId64
				" status %" PRId64 " importance %" PRId64 " pss %" PRId64
				" kB rss %" PRId64 " kB at %s: %s",
				r->line, r->pid, or_dash(r->process), r->reason, r->subreason,
				r->status, r->importance, r->pss_kb, r->rss_kb,
				or_dash(r->timestamp_text), or_dash(r->description));
	}
	i -= f->nexits;
	if (i < f->ntombstones) {
		const struct tombstone *t = &f->tombstones[i];
		const char *sig = t->signo > 0 ? signal_name((int)t->signo) : NULL;

		return snprintf(buf, len,
				"line %zu: pid %" PRId64 " tid %" PRId64 " %s (%s) %s %s "
				"fault 0x%" PRIx64 "%s; %zu frames, %zu in GPU/NN runtimes%s%s%s%s",
				t->line, t->pid, t->tid, or_dash(t->process), or_dash(t->thread),
				or_dash(sig), or_dash(t->code_name), t->fault_addr,
				t->has_fault_addr ? "" : " (none)", t->nframes, t->runtime_frames,
				t->first_runtime ? " (" : "", t->first_runtime ? t->first_runtime : "",
				t->first_runtime ? ")" : "",
				t->abort_message ? "; abort message present" : "");
	}
	i -= f->ntombstones;
	if (i < f->nanrs) {
		const struct anr_trace *a = &f->anrs[i];

		return snprintf(buf, len,
				"line %zu: %s layout, pid %" PRId64 " %s; %s; main thread %s%s%s",
				a->line, or_dash(a->layout), a->pid, or_dash(a->cmdline),
				a->has_java_threads ? "java threads" : "no java threads",
				a->main_found ? or_dash(a->main_state) : "not found",
				a->main_lock ? " on " : "", a->main_lock ? a->main_lock : "");
	}
	i -= f->nanrs;
	if (i < f->nlogs) {
		const struct log_event *e = &f->logs[i];

		return snprintf(buf, len,
				"line %zu: %s pid %" PRId64 " %s rss %" PRId64 " kB adj %" PRId64
				" signal %" PRId64 "%s%s",
				e->line, log_event_name(e->type), e->pid, or_dash(e->process),
				e->rss_kb, e->oom_score_adj, e->signo, e->reason ? ": " : "",
				e->reason ? e->reason : "");
	}
	i -= f->nlogs;
	if (i < f->nseeds) {
		const struct seed_event *s = &f->seeds[i];

		return snprintf(buf, len,
				"index %zu: %" PRId64 " ms %s rss %" PRId64 " MB budget %" PRId64
				" MB sessions %" PRId64 " exit %s",
				s->index, s->time_ms, or_dash(s->stage), s->rss_mb, s->budget_mb,
				s->sessions, or_dash(s->exit_reason));
	}
	return snprintf(buf, len, "?");
}
