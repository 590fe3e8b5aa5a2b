/*
 * lastwords dump [--json] RING...: each ring's run and the timeline of its
 * valid records, ending with its last words. With --json, one object per
 * line: a "ring" object per file, then one per record.
 */
#include <inttypes.h>
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../src/signals.h"
#include "../src/vocab.h"
#include "commands.h"
#include "evidence/json.h"
#include "format.h"
#include "runs/ring-event.h"
#include "runs/ring-file.h"

static const char usage[] = "lastwords dump [--json] RING...";

static const struct command_option options[] = {
	{ "--json", "one JSON value a line, as schemas/ring-events.schema.json describes it" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help dump_help = {
	"the timeline of each ring: its last words",
	usage,
	options,
	"lastwords dump fixtures/rings/killed-inference.lwr",
};

/* "rss 151.0 MiB (94% of budget)" for a record, or "-". */
static void rss_text(const struct lw_ring_header *h, uint32_t rss_kb, char *buf, size_t len)
{
	char kb[24];

	if (!rss_kb) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_kb(kb, sizeof(kb), rss_kb);
	if (h->memory_budget_kb)
		snprintf(buf, len, "%s (%.0f%%)", kb, 100.0 * rss_kb / h->memory_budget_kb);
	else
		snprintf(buf, len, "%s", kb);
}

static const char *stage_name(unsigned stage)
{
	const char *n = vocab_name(&vocab_stages, (int)stage);

	return n ? n : "an unknown stage";
}

static void print_outcome(const struct ring_file *rf, const struct ring_facts *f)
{
	enum lw_stage open = ring_open_stage(rf->hdr);
	char where[64] = "";

	if (open != LW_STAGE_NONE)
		snprintf(where, sizeof(where), "; %s was open", stage_name(open));
	switch (ring_file_outcome(rf)) {
	case RING_OUTCOME_LIVE:
		printf("outcome   live: a writer holds the file%s\n", where);
		break;
	case RING_OUTCOME_CLEAN:
		printf("outcome   ended cleanly\n");
		break;
	case RING_OUTCOME_CRASHED: {
		const char *sig = signal_name((int)rf->hdr->crash_signo);

		printf("outcome   crashed by %s%s%s\n", sig ? sig : "a fatal signal",
		       f->has_crash ? " (crash record present)" : " (crash record lost)", where);
		break;
	}
	case RING_OUTCOME_DIED:
		printf("outcome   died without a clean exit or crash record "
		       "(killed, e.g. SIGKILL, or power lost)%s\n",
		       where);
		break;
	case RING_OUTCOME_UNKNOWN:
	case RING_OUTCOME_NO_RING: /* a ring-less run's: never a file's */
		printf("outcome   unknown: the state field is damaged\n");
		break;
	case RING_OUTCOME_BLANK:
		printf("outcome   %s\n", ring_blank_text(rf->blank_slots));
		break;
	}
	if (rf->header_damaged) {
		char damage[RING_DAMAGE_MAX * 180];

		ring_damage_text(&rf->damage, "header offset", damage, sizeof(damage));
		printf("damage    %s; the slots are read as usual%s\n", damage,
		       rf->damage.sessions ? ", no session is shown of a damaged entry" : "");
	}
}

/* "load, inference x2": the stages open in a session, or "none". */
static void open_stages_text(const struct ring_session *e, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 1; i < LW_RING_STAGE_SLOTS && at < len; i++) {
		if (!e->open_count[i])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", stage_name((unsigned)i));
		if (e->open_count[i] > 1 && at < len)
			at += (size_t)snprintf(buf + at, len - at, " x%u", e->open_count[i]);
	}
	if (!at)
		snprintf(buf, len, "none");
}

/* The model sessions of the header's table, when the app opened any: each
 * with its state, candidate and open stages, which the header keeps even
 * when the ring lapped past the records of their opening. A run of session
 * 0 alone (and every version 1 ring) prints as it did. */
static void print_sessions(const struct ring_file *rf)
{
	struct ring_session ses[LW_RING_SESSION_SLOTS_MAX];
	size_t n = ring_file_sessions(rf, ses, LW_RING_SESSION_SLOTS_MAX), i;
	char cand[32], stages[160], result[48];

	if (n < 2 && (n == 0 || ses[0].id == 0))
		return;
	for (i = 0; i < n; i++) {
		const struct ring_session *e = &ses[i];

		if (e->candidate)
			fmt_digest(cand, sizeof(cand), e->candidate);
		else
			snprintf(cand, sizeof(cand), "none");
		open_stages_text(e, stages, sizeof(stages));
		if (e->state == LW_SESSION_CLOSED)
			snprintf(result, sizeof(result), "closed (%s)",
				 e->result == LW_ERR_NONE ? "ok"
							  : vocab_name(&vocab_errors, (int)e->result)
								    ? vocab_name(&vocab_errors, (int)e->result)
								    : "an unknown error");
		else
			snprintf(result, sizeof(result), "open");
		printf("session   %-2u %-22s candidate %s  open stages: %s", e->id, result, cand,
		       stages);
		if (e->id != 0)
			printf("  (opened %+.3f ms, %u time%s)",
			       (double)(int64_t)(e->opened_mono_ns - rf->hdr->start_mono_ns) / 1e6,
			       e->opens, e->opens == 1 ? "" : "s");
		putchar('\n');
	}
}

static void print_header(const struct ring_file *rf, const struct ring_facts *f)
{
	const struct lw_ring_header *h = rf->hdr;
	const struct ring_scan *sc = &f->scan;
	static const uint8_t zero[16];
	char id[40], boot[40], start[48], kb[24], proc[LW_RING_PROCESS_MAX + 1];

	if (rf->blank) {
		printf("ring      %s\n", rf->path);
		print_outcome(rf, f);
		printf("slots     %u x 64 B, never written\n", sc->slot_count);
		return;
	}
	fmt_id128(id, sizeof(id), h->run_id);
	if (memcmp(h->boot_id, zero, sizeof(zero)) == 0)
		snprintf(boot, sizeof(boot), "unknown");
	else
		fmt_id128(boot, sizeof(boot), h->boot_id);
	fmt_utc(start, sizeof(start), h->start_real_ns, 1);
	memcpy(proc, h->process, LW_RING_PROCESS_MAX); /* a full name has no NUL */
	proc[LW_RING_PROCESS_MAX] = '\0';
	printf("ring      %s\n", fmt_text(rf->path));
	printf("process   %s  pid %u  app version %" PRIu64 "\n", fmt_text(proc), h->pid,
	       h->app_version);
	printf("run       %s  boot %s\n", id, boot);
	printf("started   %s  (boottime %.3f s)\n", start, (double)h->start_boot_ns / 1e9);
	print_outcome(rf, f);
	if (h->memory_budget_kb) {
		fmt_kb(kb, sizeof(kb), h->memory_budget_kb);
		printf("budget    %s\n", kb);
	}
	printf("slots     %u x 64 B: %" PRIu64 " valid, %" PRIu64 " torn, %" PRIu64 " stale, %" PRIu64
	       " corrupt, %" PRIu64 " never written; %" PRIu64 " missing tickets\n",
	       sc->slot_count, sc->valid, sc->torn, sc->stale, sc->corrupt, sc->empty, sc->missing);
	printf("losses    lapped %" PRIu64 ", dropped %" PRIu64 "%s\n", h->lapped, h->dropped,
	       sc->head > h->slot_count ? "; the ring wrapped: older records were overwritten"
					: "");
	print_sessions(rf);
	printf("\n  %12s  %-12s  %7s  %-24s %-18s %s\n", "time", "UTC", "tid", "event", "rss",
	       "details");
}

static int print_record(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	const struct ring_file *rf = arg;
	char label[48], detail[160], clock[24], rss[40];

	(void)ticket;
	(void)index;
	ring_event_text(rf->hdr, s, label, sizeof(label), detail, sizeof(detail));
	fmt_utc(clock, sizeof(clock), ring_event_real_ns(rf->hdr, s), 0);
	rss_text(rf->hdr, s->rss_kb, rss, sizeof(rss));
	printf("  %+9.3f ms  %-12s  %7u  %-24s %-18s %s\n",
	       (double)ring_event_rel_ns(rf->hdr, s) / 1e6, clock, s->tid, label, rss, detail);
	return 0;
}

static void print_last_words(const struct ring_file *rf, const struct ring_facts *f)
{
	const struct lw_ring_header *h = rf->hdr;
	const struct lw_ring_slot *s = f->has_crash ? &f->crash : &f->last;
	enum lw_stage open = ring_open_stage(h);
	char when[24], rss[40], label[48], detail[160];

	if (f->scan.valid == 0) {
		printf("\nlast words: none: no valid record survived\n");
		return;
	}
	fmt_utc(when, sizeof(when), ring_event_real_ns(h, s), 0);
	ring_event_text(h, s, label, sizeof(label), detail, sizeof(detail));
	printf("\nlast words: ");
	if (!f->has_crash && open != LW_STAGE_NONE && ring_file_outcome(rf) != RING_OUTCOME_CLEAN)
		printf("%s was open; last record ", stage_name(open));
	printf("%s%s%s at %+.3f ms (%s UTC)", label, detail[0] ? " " : "", detail,
	       (double)ring_event_rel_ns(h, s) / 1e6, when);
	if (s->rss_kb) {
		rss_text(h, s->rss_kb, rss, sizeof(rss));
		printf(", rss %s", rss);
	}
	putchar('\n');
	if (f->peak_rss_kb) {
		rss_text(h, f->peak_rss_kb, rss, sizeof(rss));
		printf("peak rss:   %s at %+.3f ms, in %s%s\n", rss,
		       (double)ring_event_rel_ns(h, &f->peak) / 1e6,
		       f->peak.stage ? stage_name(f->peak.stage) : "no stage",
		       h->memory_budget_kb && f->peak_rss_kb > h->memory_budget_kb
			       ? ": over the memory budget"
			       : "");
	}
}

/* The "sessions" member of a version 2 ring (schemas/ring-events.schema.json). */
static void sessions_json(struct json *j, cJSON *o, const struct ring_file *rf)
{
	struct ring_session ses[LW_RING_SESSION_SLOTS_MAX];
	size_t n = ring_file_sessions(rf, ses, LW_RING_SESSION_SLOTS_MAX), i;
	cJSON *arr = json_array(j, o, "sessions");
	int k;

	for (i = 0; arr && i < n; i++) {
		const struct ring_session *e = &ses[i];
		cJSON *so = json_object(j, arr, NULL);
		cJSON *stages;

		if (!so)
			break;
		json_number(j, so, "id", e->id);
		json_text(j, so, "state", e->state == LW_SESSION_OPEN ? "open" : "closed");
		json_digest(j, so, "candidate", e->candidate);
		json_text(j, so, "open_stage", stage_name(e->open_stage));
		stages = json_array(j, so, "open_stages");
		for (k = 1; stages && k < LW_RING_STAGE_SLOTS; k++)
			if (e->open_count[k])
				json_text(j, stages, NULL, stage_name((unsigned)k));
		json_u64(j, so, "opened_mono_ns", e->opened_mono_ns);
		if (e->state == LW_SESSION_CLOSED)
			json_name(j, so, "result", &vocab_errors, (int)e->result, NULL);
		json_number(j, so, "opens", e->opens);
	}
}

static cJSON *ring_json(const struct ring_file *rf, const struct ring_facts *f)
{
	const struct lw_ring_header *h = rf->hdr;
	char id[40], iso[40], proc[LW_RING_PROCESS_MAX + 1];
	struct json j;
	cJSON *o = json_begin(&j);

	json_text(&j, o, "type", "ring");
	json_text(&j, o, "file", rf->path);
	if (rf->blank) { /* schemas/ring-events.schema.json, blank_ring */
		json_text(&j, o, "outcome", ring_outcome_name(RING_OUTCOME_BLANK));
		json_number(&j, o, "slot_count", f->scan.slot_count);
		json_u64(&j, o, "never_written", f->scan.empty);
		return json_end(&j);
	}
	json_number(&j, o, "format_version", h->version);
	memcpy(proc, h->process, LW_RING_PROCESS_MAX); /* a full name has no NUL */
	proc[LW_RING_PROCESS_MAX] = '\0';
	json_text(&j, o, "process", proc);
	json_number(&j, o, "pid", h->pid);
	json_u64(&j, o, "app_version", h->app_version);
	fmt_id128(id, sizeof(id), h->run_id);
	json_text(&j, o, "run_id", id);
	fmt_id128(id, sizeof(id), h->boot_id);
	json_text(&j, o, "boot_id", id);
	fmt_iso(iso, sizeof(iso), h->start_real_ns);
	json_text(&j, o, "start_time", iso);
	json_u64(&j, o, "start_real_ns", h->start_real_ns);
	json_u64(&j, o, "start_boot_ns", h->start_boot_ns);
	json_u64(&j, o, "start_mono_ns", h->start_mono_ns);
	json_text(&j, o, "outcome", ring_outcome_name(ring_file_outcome(rf)));
	json_number(&j, o, "state", h->state);
	if (h->crash_signo && signal_name((int)h->crash_signo))
		json_text(&j, o, "signal", signal_name((int)h->crash_signo));
	json_text(&j, o, "open_stage", stage_name(ring_open_stage(h)));
	if (rf->header_damaged) {
		char damage[RING_DAMAGE_MAX * 180];

		ring_damage_text(&rf->damage, NULL, damage, sizeof(damage));
		json_text(&j, o, "header_damage", damage);
	}
	json_u64(&j, o, "memory_budget_kb", h->memory_budget_kb);
	json_number(&j, o, "slot_count", h->slot_count);
	scan_counts_json(&j, o, &f->scan);
	json_u64(&j, o, "lapped", h->lapped);
	json_u64(&j, o, "dropped", h->dropped);
	json_u64(&j, o, "peak_rss_kb", f->peak_rss_kb);
	json_digest(&j, o, "candidate", h->candidate);
	json_digest(&j, o, "ok_candidate", h->ok_candidate);
	json_digest(&j, o, "stable_candidate", h->stable_candidate);
	json_u64(&j, o, "head", f->scan.head);
	if (h->session_slots)
		sessions_json(&j, o, rf);
	return json_end(&j);
}

struct json_arg {
	const struct ring_file *rf;
	int failed;
};

static int print_record_json(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s,
			     void *arg)
{
	struct json_arg *ja = arg;

	(void)index;
	if (print_json_tree(ring_event_json(ja->rf->path, ticket, ja->rf->hdr, s), 0) != 0)
		ja->failed = 1;
	return ja->failed;
}

static int dump_one(const struct ring_file *rf, int json)
{
	struct ring_facts f, again;

	/* The facts head the records: one walk for them, one to print. */
	ring_file_walk(rf, &f, NULL, NULL);
	if (json) {
		struct json_arg ja = { rf, 0 };

		if (print_json_tree(ring_json(rf, &f), 0) != 0)
			return -1;
		ring_file_walk(rf, &again, print_record_json, &ja);
		return ja.failed ? -1 : 0;
	}
	print_header(rf, &f);
	if (rf->blank)
		return 0;
	ring_file_walk(rf, &again, print_record, (void *)rf);
	print_last_words(rf, &f);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	int json, rc, unreadable = 0, printed = 0, i;

	rc = parse_json_options(argc, argv, usage, "ring file", &json);
	if (rc >= 0)
		return rc;
	for (i = optind; i < argc; i++) {
		struct ring_error err;
		struct ring_file *rf;
		int rc = ring_file_open(argv[i], &rf, &err);

		if (rc != 0) {
			report_ring_error(argv[i], rc, &err);
			if (json) {
				struct json j;
				cJSON *o = json_begin(&j);

				json_text(&j, o, "type", "error");
				json_text(&j, o, "file", argv[i]);
				json_text(&j, o, "error", err.reason);
				print_json_tree(json_end(&j), 0);
			}
			unreadable = 1;
			continue;
		}
		if (printed++ && !json)
			putchar('\n');
		if (dump_one(rf, json) != 0) {
			fprintf(stderr, "lastwords: out of memory while dumping '%s'\n", fmt_text(argv[i]));
			unreadable = 1;
		}
		ring_file_free(rf);
	}
	return unreadable ? LW_EXIT_INPUT : LW_EXIT_OK;
}
