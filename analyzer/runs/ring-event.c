/* Ring records: described for dump, and as JSON. */
#include "ring-event.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../src/signals.h"
#include "../../src/vocab.h"
#include "../evidence/json.h"
#include "../format.h"

int64_t ring_event_rel_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s)
{
	return (int64_t)(s->t_mono_ns - h->start_mono_ns);
}

uint64_t ring_event_real_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s)
{
	return h->start_real_ns + (uint64_t)ring_event_rel_ns(h, s);
}

int ring_event_composition(const struct lw_ring_slot *s, struct ring_composition *out)
{
	if (s->type != LW_EV_MEMORY ||
	    (s->code != LW_MEMORY_SOURCE_STATUS && s->code != LW_MEMORY_SOURCE_STATM))
		return 0;
	out->source = s->code;
	out->anon_kb = (int64_t)(s->b & 0xffffffffu);
	out->file_kb = (int64_t)(s->b >> 32);
	/* statm cannot tell shared memory from file-backed pages, nor say the swap. */
	out->shmem_kb = s->code == LW_MEMORY_SOURCE_STATUS ? (int64_t)(s->c & 0xffffffffu) : -1;
	out->swap_kb = s->code == LW_MEMORY_SOURCE_STATUS ? (int64_t)(s->c >> 32) : -1;
	return 1;
}

const char *ring_trim_level_name(uint64_t level)
{
	/* android.content.ComponentCallbacks2's TRIM_MEMORY_* */
	switch (level) {
	case 5:
		return "RUNNING_MODERATE";
	case 10:
		return "RUNNING_LOW";
	case 15:
		return "RUNNING_CRITICAL";
	case 20:
		return "UI_HIDDEN";
	case 40:
		return "BACKGROUND";
	case 60:
		return "MODERATE";
	case 80:
		return "COMPLETE";
	}
	return NULL;
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
	case LW_MARK_SCENARIO:
		snprintf(buf, len, "%s", name_or(&vocab_scenarios, (int)s->a, tmp, sizeof(tmp)));
		break;
	case LW_MARK_BUDGET:
		fmt_kb(buf, len, s->a);
		break;
	case LW_MARK_PEER_DIED:
		fmt_digest(tmp, sizeof(tmp), s->b);
		snprintf(buf, len, "pid %" PRIu64 ", process %s died", s->a, tmp);
		break;
	case LW_MARK_PAYLOAD:
		/* Bucket k: a size in [2^(k-1), 2^k) bytes; 0: empty. */
		if (s->b)
			snprintf(buf, len, "%s, 2^%" PRIu64 " to 2^%" PRIu64 " bytes",
				 name_or(&vocab_payload_classes, (int)s->a, tmp, sizeof(tmp)),
				 s->b - 1, s->b);
		else
			snprintf(buf, len, "%s, empty",
				 name_or(&vocab_payload_classes, (int)s->a, tmp, sizeof(tmp)));
		break;
	case LW_MARK_CACHE: {
		char key[32];

		fmt_digest(key, sizeof(key), s->b);
		snprintf(buf, len, "%s, key %s",
			 name_or(&vocab_cache_ops, (int)s->a, tmp, sizeof(tmp)), key);
		break;
	}
	case LW_MARK_RECEIPT: {
		char files[32];

		fmt_digest(tmp, sizeof(tmp), s->a);
		snprintf(files, sizeof(files), "%016" PRIx64, s->b);
		snprintf(buf, len, "candidate %s, files %s verified", tmp, files);
		break;
	}
	default:
		snprintf(buf, len, "%" PRIu64, s->a);
	}
}

static void crash_detail(const struct lw_ring_slot *s, char *buf, size_t len)
{
	const char *sig = signal_name(s->code);
	const char *code = signal_code_name(s->code, (int)(int64_t)s->b);
	char sigbuf[16], codebuf[24], stagebuf[32], where[32];

	if (!sig) {
		snprintf(sigbuf, sizeof(sigbuf), "signal %u", s->code);
		sig = sigbuf;
	}
	if (!code) {
		snprintf(codebuf, sizeof(codebuf), "code %" PRId64, (int64_t)s->b);
		code = codebuf;
	}
	/* si_code <= 0: a process sent the signal (kill, tgkill, abort()), and
	 * si_addr shares its bytes with si_pid and si_uid: no address. */
	if ((int64_t)s->b <= 0 && s->d)
		snprintf(where, sizeof(where), "sent by pid %u", s->d);
	else if ((int64_t)s->b <= 0)
		snprintf(where, sizeof(where), "sent by a process");
	else
		snprintf(where, sizeof(where), "at 0x%" PRIx64, s->a);
	snprintf(buf, len, "%s (%s) %s in %s", sig, code, where,
		 s->stage ? name_or(&vocab_stages, s->stage, stagebuf, sizeof(stagebuf))
			  : "no open stage");
}

/* "ok", or "error timeout": how a stage or a session ended. */
static void result_text(unsigned code, char *buf, size_t len)
{
	char tmp[32];

	if (code == LW_ERR_NONE)
		snprintf(buf, len, "ok");
	else
		snprintf(buf, len, "error %s", name_or(&vocab_errors, (int)code, tmp, sizeof(tmp)));
}

/* Append to buf (holding a memory record's "vm X") what the memory is
 * made of; nothing for a version 1 or 2 record. */
static void composition_text(const struct lw_ring_slot *s, char *buf, size_t len)
{
	struct ring_composition c;
	char an[24], fi[24], sh[24], sw[24];
	size_t n = strlen(buf);

	if (!s->code || n >= len)
		return;
	if (!ring_event_composition(s, &c)) {
		snprintf(buf + n, len - n, "; memory source %u (unknown to this reader)", s->code);
		return;
	}
	fmt_kb(an, sizeof(an), (uint64_t)c.anon_kb);
	fmt_kb(fi, sizeof(fi), (uint64_t)c.file_kb);
	if (c.source == LW_MEMORY_SOURCE_STATM) {
		snprintf(buf + n, len - n, "; anon %s, file and shared %s (statm)", an, fi);
		return;
	}
	fmt_kb(sh, sizeof(sh), (uint64_t)c.shmem_kb);
	fmt_kb(sw, sizeof(sw), (uint64_t)c.swap_kb);
	snprintf(buf + n, len - n, "; anon %s, file %s, shmem %s, swap %s (status)", an, fi, sh, sw);
}

static void graphics_text(const struct lw_ring_slot *s, char *buf, size_t len)
{
	char kb[24], src[32], exp[32];

	fmt_kb(kb, sizeof(kb), s->a);
	if (s->code == LW_GRAPHICS_DMABUF) {
		fmt_digest(exp, sizeof(exp), s->c);
		snprintf(buf, len, "%s in %" PRIu64 " dma-buf buffer%s, the most held by exporter %s (dmabuf)",
			 kb, s->b, s->b == 1 ? "" : "s", exp);
		return;
	}
	snprintf(buf, len, "%s (%s)", kb, name_or(&vocab_graphics_sources, s->code, src, sizeof(src)));
}

static void pressure_text(const struct lw_ring_slot *s, char *buf, size_t len)
{
	char tmp[32], av[24], th[24];
	const char *src = name_or(&vocab_pressure_sources, s->code, tmp, sizeof(tmp));

	if (s->d) {
		snprintf(buf, len, "%s not readable (errno %u)", src, s->d);
		return;
	}
	switch (s->code) {
	case LW_PRESSURE_TRIM:
		snprintf(buf, len, "onTrimMemory %" PRIu64 "%s%s (trim)", s->a,
			 ring_trim_level_name(s->a) ? " TRIM_MEMORY_" : "",
			 ring_trim_level_name(s->a) ? ring_trim_level_name(s->a) : "");
		break;
	case LW_PRESSURE_MEMORY_INFO:
		fmt_kb(av, sizeof(av), s->b);
		fmt_kb(th, sizeof(th), s->c);
		snprintf(buf, len, "%savailable %s, threshold %s (memory_info)",
			 s->a ? "lowMemory, " : "", av, th);
		break;
	case LW_PRESSURE_PSI:
		snprintf(buf, len, "some %" PRIu64 ".%02" PRIu64 "%%, full %" PRIu64 ".%02" PRIu64
			 "%% (avg10), %" PRIu64 " us stalled in all (psi)",
			 s->a / 100, s->a % 100, s->b / 100, s->b % 100, s->c);
		break;
	default:
		snprintf(buf, len, "%s: a=%" PRIu64 " b=%" PRIu64 " c=%" PRIu64, src, s->a, s->b, s->c);
	}
}

void ring_event_text(const struct lw_ring_header *h, const struct lw_ring_slot *s, char *label,
		     size_t label_len, char *detail, size_t detail_len)
{
	char a[32], b[32], c[32], d[32], res[48];

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
		/* Session 0's records read as they did in version 1. */
		if (s->d)
			snprintf(detail, detail_len, "session %u", s->d);
		break;
	case LW_EV_STAGE_END:
		snprintf(label, label_len, "end %s", name_or(&vocab_stages, s->stage, a, sizeof(a)));
		result_text(s->code, res, sizeof(res));
		if (s->d)
			snprintf(detail, detail_len, "%s, session %u", res, s->d);
		else
			snprintf(detail, detail_len, "%s", res);
		break;
	case LW_EV_SESSION_OPEN:
		snprintf(label, label_len, "open session %u", s->d);
		fmt_digest(a, sizeof(a), s->c);
		snprintf(detail, detail_len, "candidate %s", a);
		break;
	case LW_EV_SESSION_CLOSE:
		snprintf(label, label_len, "close session %u", s->d);
		fmt_digest(a, sizeof(a), s->c);
		result_text(s->code, res, sizeof(res));
		snprintf(detail, detail_len, "%s, candidate %s", res, a);
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
		composition_text(s, detail, detail_len);
		break;
	case LW_EV_GRAPHICS:
		snprintf(label, label_len, "graphics");
		graphics_text(s, detail, detail_len);
		break;
	case LW_EV_PRESSURE:
		snprintf(label, label_len, "pressure");
		pressure_text(s, detail, detail_len);
		break;
	default:
		snprintf(label, label_len, "type %u", s->type);
		snprintf(detail, detail_len, "unknown to this reader (a=%" PRIu64 " b=%" PRIu64 ")",
			 s->a, s->b);
	}
}

/* A memory record's composition: nothing for a version 1 or 2 record
 * (its JSON stays as it was), null for what the source does not give,
 * and a newer writer's fields as they are. */
static void composition_json(struct json *j, cJSON *o, const struct lw_ring_slot *s)
{
	struct ring_composition c;

	if (!s->code)
		return;
	json_name(j, o, "memory_source", &vocab_memory_sources, s->code, NULL);
	if (!ring_event_composition(s, &c)) {
		json_u64(j, o, "b", s->b);
		json_u64(j, o, "c", s->c);
		return;
	}
	json_int(j, o, "anon_kb", c.anon_kb);
	json_int(j, o, "file_kb", c.file_kb);
	json_int_or_null(j, o, "shmem_kb", c.shmem_kb, -1);
	json_int_or_null(j, o, "swap_kb", c.swap_kb, -1);
}

/* A pressure record's figures, by source; "errno" and "not_readable"
 * for the record that says the source could not be read. */
static void pressure_json(struct json *j, cJSON *o, const struct lw_ring_slot *s)
{
	json_name(j, o, "pressure_source", &vocab_pressure_sources, s->code, NULL);
	if (s->d) {
		json_bool(j, o, "not_readable", 1);
		json_u64(j, o, "errno", s->d);
	}
	if (s->d && !s->a && !s->b && !s->c)
		return;
	switch (s->d ? 0 : s->code) {
	case LW_PRESSURE_TRIM:
		json_u64(j, o, "trim_level", s->a);
		if (s->b || s->c)
			break;
		return;
	case LW_PRESSURE_MEMORY_INFO:
		if (s->a > 1)
			break;
		json_bool(j, o, "low_memory", s->a != 0);
		json_u64(j, o, "avail_kb", s->b);
		json_u64(j, o, "threshold_kb", s->c);
		return;
	case LW_PRESSURE_PSI:
		/* hundredths of a percent, as /proc/pressure/memory prints them */
		if (s->a > UINT32_MAX || s->b > UINT32_MAX)
			break;
		json_number(j, o, "psi_some", (double)s->a / 100);
		json_number(j, o, "psi_full", (double)s->b / 100);
		json_u64(j, o, "psi_total_us", s->c);
		return;
	}
	/* a newer writer's source, or figures the format does not give: as they are */
	json_u64(j, o, "a", s->a);
	json_u64(j, o, "b", s->b);
	json_u64(j, o, "c", s->c);
}

/* The members of one type of record. Version 1 records have no session
 * member: their JSON stays as it was. */
static void add_type_fields(struct json *j, cJSON *o, const struct lw_ring_header *h,
			    const struct lw_ring_slot *s)
{
	char buf[32];

	switch (s->type) {
	case LW_EV_OPEN:
		json_u64(j, o, "boottime_ns", s->a);
		json_u64(j, o, "realtime_ns", s->b);
		json_u64(j, o, "app_version", s->c);
		json_text(j, o, "backing", s->d == 2 ? "anonymous" : "file");
		break;
	case LW_EV_STAGE_BEGIN:
	case LW_EV_STAGE_END:
	case LW_EV_SESSION_OPEN:
	case LW_EV_SESSION_CLOSE:
		if (s->type == LW_EV_STAGE_END || s->type == LW_EV_SESSION_CLOSE)
			json_name(j, o, "error", &vocab_errors, s->code, NULL);
		json_u64(j, o, "boottime_ns", s->a);
		json_u64(j, o, "realtime_ns", s->b);
		json_digest(j, o, "candidate", s->c);
		if (h->session_slots || s->d)
			json_number(j, o, "session", s->d);
		break;
	case LW_EV_MARK:
		json_name(j, o, "mark", &vocab_marks, s->code, NULL);
		json_u64(j, o, "value", s->a);
		if (s->code == LW_MARK_FALLBACK || s->code == LW_MARK_DELEGATE)
			json_name(j, o, "delegate", &vocab_delegates, (int)s->a, NULL);
		else if (s->code == LW_MARK_RECOVERY)
			json_name(j, o, "action", &vocab_actions, (int)s->a, NULL);
		else if (s->code == LW_MARK_SCENARIO)
			json_name(j, o, "scenario", &vocab_scenarios, (int)s->a, NULL);
		else if (s->code == LW_MARK_PEER_DIED) {
			json_u64(j, o, "pid", s->a);
			json_digest(j, o, "process_digest", s->b);
		} else if (s->code == LW_MARK_PAYLOAD) {
			json_name(j, o, "payload_class", &vocab_payload_classes, (int)s->a, NULL);
			json_u64(j, o, "size_bucket", s->b);
		} else if (s->code == LW_MARK_CACHE) {
			json_name(j, o, "cache_op", &vocab_cache_ops, (int)s->a, NULL);
			json_digest(j, o, "key_digest", s->b);
		} else if (s->code == LW_MARK_RECEIPT) {
			json_digest(j, o, "candidate", s->a);
			json_digest(j, o, "files_digest", s->b);
		}
		break;
	case LW_EV_CANDIDATE:
		json_digest(j, o, "candidate", s->a);
		break;
	case LW_EV_CRASH: {
		const char *sig = signal_name(s->code);
		const char *code = signal_code_name(s->code, (int)(int64_t)s->b);

		json_number(j, o, "signo", s->code);
		if (sig)
			json_text(j, o, "signal", sig);
		json_number(j, o, "si_code", (double)(int64_t)s->b);
		if (code)
			json_text(j, o, "si_code_name", code);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, s->a);
		json_text(j, o, "fault_addr", buf);
		json_digest(j, o, "candidate", s->c);
		if ((int64_t)s->b <= 0 && s->d)
			json_number(j, o, "sender_pid", s->d);
		break;
	}
	case LW_EV_ADVICE:
		json_name(j, o, "advice", &vocab_advices, s->code, NULL);
		json_digest(j, o, "candidate", s->a);
		json_u64(j, o, "count", s->b);
		json_digest(j, o, "stable_candidate", s->c);
		break;
	case LW_EV_SYNC:
		json_u64(j, o, "sync", s->a);
		break;
	case LW_EV_MEMORY:
		json_u64(j, o, "vm_kb", s->a);
		composition_json(j, o, s);
		break;
	case LW_EV_GRAPHICS:
		json_name(j, o, "graphics_source", &vocab_graphics_sources, s->code, NULL);
		json_u64(j, o, "graphics_kb", s->a);
		if (s->code == LW_GRAPHICS_DMABUF || s->b)
			json_u64(j, o, "buffers", s->b);
		if (s->code == LW_GRAPHICS_DMABUF || s->c)
			json_digest(j, o, "exporter_digest", s->c);
		break;
	case LW_EV_PRESSURE:
		pressure_json(j, o, s);
		break;
	case LW_EV_CLOSE:
		json_u64(j, o, "boottime_ns", s->a);
		json_u64(j, o, "realtime_ns", s->b);
		break;
	default:
		json_u64(j, o, "a", s->a);
		json_u64(j, o, "b", s->b);
		json_u64(j, o, "c", s->c);
		json_u64(j, o, "d", s->d);
	}
}

cJSON *ring_event_json(const char *file, uint64_t ticket, const struct lw_ring_header *h,
		       const struct lw_ring_slot *s)
{
	struct json j;
	cJSON *o = json_begin(&j);
	char iso[40];

	json_name(&j, o, "type", &vocab_event_types, s->type, NULL);
	json_text(&j, o, "file", file);
	json_u64(&j, o, "ticket", ticket);
	json_u64(&j, o, "t_mono_ns", s->t_mono_ns);
	json_number(&j, o, "t_ms", (double)ring_event_rel_ns(h, s) / 1e6);
	fmt_iso(iso, sizeof(iso), ring_event_real_ns(h, s));
	json_text(&j, o, "time", iso);
	json_number(&j, o, "tid", s->tid);
	json_number(&j, o, "flags", s->flags);
	json_name(&j, o, "stage", &vocab_stages, s->stage, NULL);
	if (s->rss_kb)
		json_number(&j, o, "rss_kb", s->rss_kb);
	else
		json_null(&j, o, "rss_kb");
	json_number(&j, o, "rss_age_ms", s->rss_age_ms);
	add_type_fields(&j, o, h, s);
	return json_end(&j);
}
