/* Ring records: described for dump, as JSON, and read back from JSON. */
#include "ring-event.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/signals.h"
#include "../src/vocab.h"
#include "format.h"

int64_t ring_event_rel_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s)
{
	return (int64_t)(s->t_mono_ns - h->start_mono_ns);
}

uint64_t ring_event_real_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s)
{
	return h->start_real_ns + (uint64_t)ring_event_rel_ns(h, s);
}

static const char *name_or(const struct vocab *v, int value, char *buf, size_t len)
{
	const char *n = vocab_name(v, value);

	if (n)
		return n;
	snprintf(buf, len, "%s %d", v->what, value);
	return buf;
}

/* The value of a mark, in the mark's own terms. */
static void mark_value(const struct lw_ring_slot *s, char *buf, size_t len)
{
	char tmp[32];

	switch (s->code) {
	case LW_MARK_FALLBACK:
	case LW_MARK_DELEGATE:
		snprintf(buf, len, "%s", name_or(&vocab_delegates, (int)s->a, tmp, sizeof(tmp)));
		break;
	case LW_MARK_RECOVERY:
		snprintf(buf, len, "%s", name_or(&vocab_actions, (int)s->a, tmp, sizeof(tmp)));
		break;
	case LW_MARK_BUDGET:
		fmt_kb(buf, len, s->a);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, s->a);
	}
}

static void crash_detail(const struct lw_ring_slot *s, char *buf, size_t len)
{
	const char *sig = signal_name(s->code);
	const char *code = signal_code_name(s->code, (int)(int64_t)s->b);
	char sigbuf[16], codebuf[24], stagebuf[32];

	if (!sig) {
		snprintf(sigbuf, sizeof(sigbuf), "signal %u", s->code);
		sig = sigbuf;
	}
	if (!code) {
		snprintf(codebuf, sizeof(codebuf), "code %" PRId64, (int64_t)s->b);
		code = codebuf;
	}
	snprintf(buf, len, "%s (%s) at 0x%" PRIx64 " in %s", sig, code, s->a,
		 s->stage ? name_or(&vocab_stages, s->stage, stagebuf, sizeof(stagebuf))
			  : "no open stage");
	if ((int64_t)s->b <= 0 && s->d)
		snprintf(buf + strlen(buf), len - strlen(buf), ", sent by pid %u", s->d);
}

void ring_event_text(const struct lw_ring_header *h, const struct lw_ring_slot *s, char *label,
		     size_t label_len, char *detail, size_t detail_len)
{
	char a[32], b[32], c[32], d[32];

	(void)h;
	detail[0] = '\0';
	switch (s->type) {
	case LW_EV_OPEN:
		snprintf(label, label_len, "open");
		snprintf(detail, detail_len, "app version %" PRIu64 ", %s", s->c,
			 s->d == 2 ? "anonymous memory (no file)" : "file-backed");
		break;
	case LW_EV_STAGE_BEGIN:
		snprintf(label, label_len, "begin %s", name_or(&vocab_stages, s->stage, a, sizeof(a)));
		break;
	case LW_EV_STAGE_END:
		snprintf(label, label_len, "end %s", name_or(&vocab_stages, s->stage, a, sizeof(a)));
		if (s->code == LW_ERR_NONE)
			snprintf(detail, detail_len, "ok");
		else
			snprintf(detail, detail_len, "error %s",
				 name_or(&vocab_errors, s->code, b, sizeof(b)));
		break;
	case LW_EV_MARK:
		snprintf(label, label_len, "mark %s", name_or(&vocab_marks, s->code, a, sizeof(a)));
		mark_value(s, detail, detail_len);
		break;
	case LW_EV_CANDIDATE:
		snprintf(label, label_len, "candidate");
		fmt_digest(detail, detail_len, s->a);
		break;
	case LW_EV_CRASH:
		snprintf(label, label_len, "CRASH");
		crash_detail(s, detail, detail_len);
		break;
	case LW_EV_CLOSE:
		snprintf(label, label_len, "close");
		snprintf(detail, detail_len, "clean exit");
		break;
	case LW_EV_ADVICE:
		snprintf(label, label_len, "advice %s", name_or(&vocab_advices, s->code, a, sizeof(a)));
		fmt_digest(c, sizeof(c), s->a);
		if (s->c)
			fmt_digest(d, sizeof(d), s->c);
		else
			snprintf(d, sizeof(d), "none known");
		snprintf(detail, detail_len, "%" PRIu64 " death%s in %s with candidate %s; stable %s",
			 s->b, s->b == 1 ? "" : "s", name_or(&vocab_stages, s->stage, b, sizeof(b)), c,
			 d);
		break;
	case LW_EV_SYNC:
		snprintf(label, label_len, "sync");
		snprintf(detail, detail_len, "#%" PRIu64 " to storage", s->a);
		break;
	case LW_EV_MEMORY:
		snprintf(label, label_len, "memory");
		fmt_kb(a, sizeof(a), s->a);
		snprintf(detail, detail_len, "vm %s", a);
		break;
	default:
		snprintf(label, label_len, "type %u", s->type);
		snprintf(detail, detail_len, "unknown to this reader (a=%" PRIu64 " b=%" PRIu64 ")",
			 s->a, s->b);
	}
}

int json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
	char buf[24];

	/* cJSON keeps numbers as doubles; raw text keeps all 64 bits. */
	fmt_u64(buf, sizeof(buf), v);
	return cJSON_AddRawToObject(obj, key, buf) ? 0 : -1;
}

static int add_name(cJSON *o, const char *key, const struct vocab *v, int value)
{
	const char *n = vocab_name(v, value);

	if (n)
		return cJSON_AddStringToObject(o, key, n) ? 0 : -1;
	return cJSON_AddNumberToObject(o, key, value) ? 0 : -1;
}

int json_add_digest(cJSON *obj, const char *key, uint64_t digest)
{
	char buf[24];

	if (!digest)
		return cJSON_AddNullToObject(obj, key) ? 0 : -1;
	fmt_digest(buf, sizeof(buf), digest);
	return cJSON_AddStringToObject(obj, key, buf) ? 0 : -1;
}

static int add_type_fields(cJSON *o, const struct lw_ring_slot *s)
{
	char buf[32];
	int rc = 0;

	switch (s->type) {
	case LW_EV_OPEN:
		rc |= json_add_u64(o, "boottime_ns", s->a);
		rc |= json_add_u64(o, "realtime_ns", s->b);
		rc |= json_add_u64(o, "app_version", s->c);
		rc |= cJSON_AddStringToObject(o, "backing", s->d == 2 ? "anonymous" : "file") ? 0 : -1;
		break;
	case LW_EV_STAGE_BEGIN:
	case LW_EV_STAGE_END:
		if (s->type == LW_EV_STAGE_END)
			rc |= add_name(o, "error", &vocab_errors, s->code);
		rc |= json_add_u64(o, "boottime_ns", s->a);
		rc |= json_add_u64(o, "realtime_ns", s->b);
		rc |= json_add_digest(o, "candidate", s->c);
		break;
	case LW_EV_MARK:
		rc |= add_name(o, "mark", &vocab_marks, s->code);
		rc |= json_add_u64(o, "value", s->a);
		if (s->code == LW_MARK_FALLBACK || s->code == LW_MARK_DELEGATE)
			rc |= add_name(o, "delegate", &vocab_delegates, (int)s->a);
		else if (s->code == LW_MARK_RECOVERY)
			rc |= add_name(o, "action", &vocab_actions, (int)s->a);
		break;
	case LW_EV_CANDIDATE:
		rc |= json_add_digest(o, "candidate", s->a);
		break;
	case LW_EV_CRASH: {
		const char *sig = signal_name(s->code);
		const char *code = signal_code_name(s->code, (int)(int64_t)s->b);

		rc |= cJSON_AddNumberToObject(o, "signo", s->code) ? 0 : -1;
		if (sig)
			rc |= cJSON_AddStringToObject(o, "signal", sig) ? 0 : -1;
		rc |= cJSON_AddNumberToObject(o, "si_code", (double)(int64_t)s->b) ? 0 : -1;
		if (code)
			rc |= cJSON_AddStringToObject(o, "si_code_name", code) ? 0 : -1;
		snprintf(buf, sizeof(buf), "0x%" PRIx64, s->a);
		rc |= cJSON_AddStringToObject(o, "fault_addr", buf) ? 0 : -1;
		rc |= json_add_digest(o, "candidate", s->c);
		if ((int64_t)s->b <= 0 && s->d)
			rc |= cJSON_AddNumberToObject(o, "sender_pid", s->d) ? 0 : -1;
		break;
	}
	case LW_EV_ADVICE:
		rc |= add_name(o, "advice", &vocab_advices, s->code);
		rc |= json_add_digest(o, "candidate", s->a);
		rc |= json_add_u64(o, "count", s->b);
		rc |= json_add_digest(o, "stable_candidate", s->c);
		break;
	case LW_EV_SYNC:
		rc |= json_add_u64(o, "sync", s->a);
		break;
	case LW_EV_MEMORY:
		rc |= json_add_u64(o, "vm_kb", s->a);
		break;
	case LW_EV_CLOSE:
		rc |= json_add_u64(o, "boottime_ns", s->a);
		rc |= json_add_u64(o, "realtime_ns", s->b);
		break;
	default:
		rc |= json_add_u64(o, "a", s->a);
		rc |= json_add_u64(o, "b", s->b);
		rc |= json_add_u64(o, "c", s->c);
		rc |= json_add_u64(o, "d", s->d);
	}
	return rc;
}

cJSON *ring_event_json(const char *file, uint64_t ticket, const struct lw_ring_header *h,
		       const struct lw_ring_slot *s)
{
	cJSON *o = cJSON_CreateObject();
	char iso[40];
	int rc = 0;

	if (!o)
		return NULL;
	rc |= add_name(o, "type", &vocab_event_types, s->type);
	rc |= cJSON_AddStringToObject(o, "file", file) ? 0 : -1;
	rc |= json_add_u64(o, "ticket", ticket);
	rc |= json_add_u64(o, "t_mono_ns", s->t_mono_ns);
	rc |= cJSON_AddNumberToObject(o, "t_ms", (double)ring_event_rel_ns(h, s) / 1e6) ? 0 : -1;
	fmt_iso(iso, sizeof(iso), ring_event_real_ns(h, s));
	rc |= cJSON_AddStringToObject(o, "time", iso) ? 0 : -1;
	rc |= cJSON_AddNumberToObject(o, "tid", s->tid) ? 0 : -1;
	rc |= cJSON_AddNumberToObject(o, "flags", s->flags) ? 0 : -1;
	rc |= add_name(o, "stage", &vocab_stages, s->stage);
	if (s->rss_kb)
		rc |= cJSON_AddNumberToObject(o, "rss_kb", s->rss_kb) ? 0 : -1;
	else
		rc |= cJSON_AddNullToObject(o, "rss_kb") ? 0 : -1;
	rc |= cJSON_AddNumberToObject(o, "rss_age_ms", s->rss_age_ms) ? 0 : -1;
	rc |= add_type_fields(o, s);
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
