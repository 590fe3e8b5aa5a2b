/* Records of exit evidence: lists, names, JSON and one-line text. */
#include "evidence.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/signals.h"

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
	char *p = malloc(n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void ev_skip(struct ev_stats *st, size_t line)
{
	st->skipped++;
	if (!st->first_skipped)
		st->first_skipped = line;
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
	e->time_ms = EV_NO_TIME;
	e->pid = e->uid = e->user = e->oom_score_adj = EV_NONE;
	e->rss_kb = e->swap_kb = e->free_kb = EV_NONE;
	e->anon_rss_kb = e->dmabuf_pss_kb = e->dmabuf_rss_kb = EV_NONE;
	e->signo = e->kill_reason_code = EV_NONE;
}

/* Grow *v (n elements of size sz) by one; capacity doubles from 8. */
static void *grow(void **v, size_t n, size_t sz)
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

struct exit_record *ev_add_exit(struct ev_file *f)
{
	struct exit_record *r = grow((void **)&f->exits, f->nexits, sizeof(*r));

	if (r) {
		exit_record_init(r);
		f->nexits++;
	}
	return r;
}

struct tombstone *ev_add_tombstone(struct ev_file *f)
{
	struct tombstone *t = grow((void **)&f->tombstones, f->ntombstones, sizeof(*t));

	if (t) {
		tombstone_init(t);
		f->ntombstones++;
	}
	return t;
}

struct anr_trace *ev_add_anr(struct ev_file *f)
{
	struct anr_trace *a = grow((void **)&f->anrs, f->nanrs, sizeof(*a));

	if (a) {
		anr_trace_init(a);
		f->nanrs++;
	}
	return a;
}

struct log_event *ev_add_log(struct ev_file *f)
{
	struct log_event *e = grow((void **)&f->logs, f->nlogs, sizeof(*e));

	if (e) {
		log_event_init(e);
		f->nlogs++;
	}
	return e;
}

struct frame *ev_add_frame(struct tombstone *t)
{
	struct frame *fr = grow((void **)&t->frames, t->nframes, sizeof(*fr));

	if (fr) {
		memset(fr, 0, sizeof(*fr));
		fr->index = EV_NONE;
		t->nframes++;
	}
	return fr;
}

void ev_file_release(struct ev_file *f)
{
	size_t i, j;

	if (!f)
		return;
	for (i = 0; i < f->nexits; i++) {
		struct exit_record *r = &f->exits[i];

		free(r->process);
		free(r->package);
		free(r->pss_text);
		free(r->rss_text);
		free(r->timestamp_text);
		free(r->description);
		free(r->state);
		free(r->trace);
	}
	for (i = 0; i < f->ntombstones; i++) {
		struct tombstone *t = &f->tombstones[i];

		free(t->fingerprint);
		free(t->abi);
		free(t->timestamp_text);
		free(t->thread);
		free(t->process);
		free(t->cmdline);
		free(t->code_name);
		free(t->cause);
		free(t->abort_message);
		for (j = 0; j < t->nframes; j++) {
			free(t->frames[j].library);
			free(t->frames[j].symbol);
		}
		free(t->frames);
	}
	for (i = 0; i < f->nanrs; i++) {
		struct anr_trace *a = &f->anrs[i];

		free(a->layout);
		free(a->time_text);
		free(a->cmdline);
		free(a->subject);
		free(a->main_state);
		free(a->main_lock);
		free(a->main_top_frame);
	}
	for (i = 0; i < f->nlogs; i++) {
		struct log_event *e = &f->logs[i];

		free(e->format);
		free(e->time_text);
		free(e->process);
		free(e->reason);
	}
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

size_t ev_record_count(const struct ev_file *f)
{
	return f->nexits + f->ntombstones + f->nanrs + f->nlogs + f->nseeds;
}

/* JSON helpers: absent integers and text become null. */
static int add_int(cJSON *o, const char *k, int64_t v)
{
	char buf[24];

	if (v == EV_NONE)
		return cJSON_AddNullToObject(o, k) ? 0 : -1;
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_AddRawToObject(o, k, buf) ? 0 : -1;
}

static int add_str(cJSON *o, const char *k, const char *v)
{
	if (!v)
		return cJSON_AddNullToObject(o, k) ? 0 : -1;
	return cJSON_AddStringToObject(o, k, v) ? 0 : -1;
}

static int add_time(cJSON *o, const char *k, int64_t ms)
{
	char buf[24];

	if (ms == EV_NO_TIME)
		return cJSON_AddNullToObject(o, k) ? 0 : -1;
	snprintf(buf, sizeof(buf), "%" PRId64, ms);
	return cJSON_AddRawToObject(o, k, buf) ? 0 : -1;
}

static cJSON *exit_json(const struct exit_record *r)
{
	cJSON *o = cJSON_CreateObject();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_str(o, "record", "exit");
	rc |= add_int(o, "line", (int64_t)r->line);
	rc |= add_int(o, "pid", r->pid);
	rc |= add_str(o, "process", r->process);
	rc |= add_str(o, "package", r->package);
	rc |= add_int(o, "uid", r->uid);
	rc |= add_int(o, "real_uid", r->real_uid);
	rc |= add_int(o, "package_uid", r->package_uid);
	rc |= add_int(o, "defining_uid", r->defining_uid);
	rc |= add_int(o, "user", r->user);
	rc |= add_int(o, "reason", r->reason);
	rc |= add_int(o, "subreason", r->subreason);
	rc |= add_int(o, "status", r->status);
	rc |= add_int(o, "importance", r->importance);
	rc |= add_int(o, "pss_kb", r->pss_kb);
	rc |= add_int(o, "rss_kb", r->rss_kb);
	rc |= add_str(o, "pss_text", r->pss_text);
	rc |= add_str(o, "rss_text", r->rss_text);
	rc |= add_str(o, "timestamp", r->timestamp_text);
	rc |= add_time(o, "timestamp_ms", r->timestamp_ms);
	rc |= cJSON_AddBoolToObject(o, "timestamp_local", r->timestamp_local) ? 0 : -1;
	rc |= add_int(o, "timestamp_precision_ms", r->timestamp_precision_ms);
	rc |= add_str(o, "description", r->description);
	rc |= add_int(o, "state_bytes", r->state_bytes);
	rc |= add_str(o, "state", r->state);
	rc |= add_str(o, "trace", r->trace);
	rc |= add_int(o, "app_version", r->app_version);
	if (r->anr_info) {
		cJSON *a = cJSON_AddObjectToObject(o, "anr_info");

		rc |= a ? 0 : -1;
		if (a) {
			rc |= add_int(a, "anr_id", r->anr_id);
			rc |= add_int(a, "anr_type", r->anr_type);
			rc |= add_int(a, "timeout_ms", r->anr_timeout_ms);
			rc |= r->anr_user_perceptible == EV_NONE
				      ? (cJSON_AddNullToObject(a, "user_perceptible") ? 0 : -1)
				      : (cJSON_AddBoolToObject(a, "user_perceptible",
							       r->anr_user_perceptible)
						 ? 0
						 : -1);
		}
	}
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *tombstone_json(const struct tombstone *t)
{
	cJSON *o = cJSON_CreateObject(), *frames;
	char buf[32];
	size_t i;
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_str(o, "record", "tombstone");
	rc |= add_int(o, "line", (int64_t)t->line);
	rc |= cJSON_AddBoolToObject(o, "logcat_prefixed", t->logcat_prefixed) ? 0 : -1;
	rc |= add_str(o, "fingerprint", t->fingerprint);
	rc |= add_str(o, "abi", t->abi);
	rc |= add_str(o, "timestamp", t->timestamp_text);
	rc |= add_int(o, "pid", t->pid);
	rc |= add_int(o, "tid", t->tid);
	rc |= add_int(o, "uid", t->uid);
	rc |= add_str(o, "thread", t->thread);
	rc |= add_str(o, "process", t->process);
	rc |= add_str(o, "cmdline", t->cmdline);
	rc |= add_int(o, "signo", t->signo);
	rc |= add_str(o, "signal", t->signo > 0 ? signal_name((int)t->signo) : NULL);
	if (t->has_code) {
		snprintf(buf, sizeof(buf), "%" PRId64, t->code);
		rc |= cJSON_AddRawToObject(o, "code", buf) ? 0 : -1;
	} else {
		rc |= cJSON_AddNullToObject(o, "code") ? 0 : -1;
	}
	rc |= add_str(o, "code_name", t->code_name);
	if (t->has_fault_addr) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, t->fault_addr);
		rc |= add_str(o, "fault_addr", buf);
	} else {
		rc |= add_str(o, "fault_addr", NULL);
	}
	rc |= add_str(o, "cause", t->cause);
	rc |= add_str(o, "abort_message", t->abort_message);
	rc |= add_int(o, "runtime_frames", (int64_t)t->runtime_frames);
	rc |= add_str(o, "first_runtime", t->first_runtime);
	frames = cJSON_AddArrayToObject(o, "frames");
	rc |= frames ? 0 : -1;
	for (i = 0; frames && i < t->nframes; i++) {
		const struct frame *fr = &t->frames[i];
		cJSON *f = cJSON_CreateObject();

		if (!f || !cJSON_AddItemToArray(frames, f)) {
			cJSON_Delete(f);
			rc = -1;
			break;
		}
		rc |= add_int(f, "index", fr->index);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, fr->pc);
		rc |= add_str(f, "pc", buf);
		rc |= add_str(f, "library", fr->library);
		rc |= add_str(f, "symbol", fr->symbol);
		rc |= add_str(f, "runtime", fr->runtime);
	}
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *anr_json(const struct anr_trace *a)
{
	cJSON *o = cJSON_CreateObject();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_str(o, "record", "anr");
	rc |= add_int(o, "line", (int64_t)a->line);
	rc |= add_str(o, "layout", a->layout);
	rc |= add_int(o, "pid", a->pid);
	rc |= add_str(o, "time", a->time_text);
	rc |= add_str(o, "cmdline", a->cmdline);
	rc |= add_str(o, "subject", a->subject);
	rc |= add_int(o, "rss_kb", a->rss_kb);
	rc |= cJSON_AddBoolToObject(o, "has_java_threads", a->has_java_threads) ? 0 : -1;
	rc |= add_int(o, "thread_count", a->thread_count);
	rc |= cJSON_AddBoolToObject(o, "main_found", a->main_found) ? 0 : -1;
	rc |= add_str(o, "main_state", a->main_state);
	rc |= add_int(o, "main_tid", a->main_tid);
	rc |= add_int(o, "main_sys_tid", a->main_sys_tid);
	rc |= add_str(o, "main_lock", a->main_lock);
	rc |= add_int(o, "lock_owner_tid", a->lock_owner_tid);
	rc |= add_str(o, "main_top_frame", a->main_top_frame);
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *log_json(const struct log_event *e)
{
	cJSON *o = cJSON_CreateObject();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_str(o, "record", "log");
	rc |= add_int(o, "line", (int64_t)e->line);
	rc |= add_str(o, "event", log_event_name(e->type));
	rc |= add_str(o, "format", e->format);
	rc |= add_str(o, "time", e->time_text);
	rc |= add_time(o, "time_ms", e->time_ms);
	rc |= add_int(o, "pid", e->pid);
	rc |= add_int(o, "uid", e->uid);
	rc |= add_int(o, "user", e->user);
	rc |= add_str(o, "process", e->process);
	rc |= add_int(o, "oom_score_adj", e->oom_score_adj);
	rc |= add_int(o, "rss_kb", e->rss_kb);
	rc |= add_int(o, "swap_kb", e->swap_kb);
	rc |= add_int(o, "free_kb", e->free_kb);
	rc |= add_int(o, "anon_rss_kb", e->anon_rss_kb);
	rc |= add_int(o, "dmabuf_pss_kb", e->dmabuf_pss_kb);
	rc |= add_int(o, "dmabuf_rss_kb", e->dmabuf_rss_kb);
	rc |= add_int(o, "signo", e->signo);
	rc |= add_str(o, "reason", e->reason);
	rc |= add_int(o, "kill_reason_code", e->kill_reason_code);
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *seed_json(const struct seed_event *s)
{
	cJSON *o = cJSON_CreateObject();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_str(o, "record", "seed");
	rc |= add_int(o, "index", (int64_t)s->index);
	rc |= add_int(o, "time_ms", s->time_ms);
	rc |= add_str(o, "stage", s->stage);
	rc |= add_int(o, "rss_mb", s->rss_mb);
	rc |= add_int(o, "budget_mb", s->budget_mb);
	rc |= add_int(o, "sessions", s->sessions);
	rc |= add_str(o, "exit_reason", s->exit_reason);
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *ev_records_json(const struct ev_file *f)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

#define ADD_ALL(list, n, fn)                                               \
	for (i = 0; arr && i < (n); i++) {                                 \
		cJSON *item = fn(&(list)[i]);                              \
		if (!item || !cJSON_AddItemToArray(arr, item)) {           \
			cJSON_Delete(item);                                \
			cJSON_Delete(arr);                                 \
			return NULL;                                       \
		}                                                          \
	}
	ADD_ALL(f->exits, f->nexits, exit_json)
	ADD_ALL(f->tombstones, f->ntombstones, tombstone_json)
	ADD_ALL(f->anrs, f->nanrs, anr_json)
	ADD_ALL(f->logs, f->nlogs, log_json)
	ADD_ALL(f->seeds, f->nseeds, seed_json)
#undef ADD_ALL
	return arr;
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
