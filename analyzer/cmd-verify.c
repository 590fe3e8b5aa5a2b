/*
 * lastwords verify [--json] RING...: check every slot of each ring against
 * the format's validity rules and count what was found. Torn and stale
 * slots are what kills leave behind; corrupt slots are damage.
 */
#include <inttypes.h>
#include <getopt.h> /* optind */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../src/signals.h"
#include "commands.h"
#include "evidence/json.h"
#include "format.h"
#include "runs/ring-file.h"

static const char usage[] = "lastwords verify [--json] RING...";

static const struct command_option options[] = {
	{ "--json", "the slot counts and the bad slots as JSON, one value a ring" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help verify_help = {
	"check each ring slot by slot; exit 1 on corruption",
	usage,
	options,
	"lastwords verify fixtures/rings/clean-exit.lwr",
};

static void outcome_short(const struct ring_file *rf, char *buf, size_t len)
{
	enum ring_outcome o = ring_file_outcome(rf);
	const char *sig = signal_name((int)rf->hdr->crash_signo);

	if (o == RING_OUTCOME_CRASHED && sig)
		snprintf(buf, len, "crashed (%s)", sig);
	else if (o == RING_OUTCOME_DIED)
		snprintf(buf, len, "died (no clean exit, no crash record)");
	else if (o == RING_OUTCOME_CLEAN)
		snprintf(buf, len, "ended cleanly");
	else if (o == RING_OUTCOME_UNKNOWN)
		snprintf(buf, len, "outcome unknown (state field damaged)");
	else if (o == RING_OUTCOME_BLANK)
		snprintf(buf, len, "%s", ring_blank_text(rf->blank_slots));
	else
		snprintf(buf, len, "%s", ring_outcome_name(o));
}

static void print_text(const struct ring_file *rf, const struct ring_scan *sc)
{
	char outcome[256], damage[RING_DAMAGE_MAX * 180];

	outcome_short(rf, outcome, sizeof(outcome));
	printf("%s: %s; %u slots: %" PRIu64 " valid, %" PRIu64 " torn, %" PRIu64 " stale, %" PRIu64
	       " corrupt, %" PRIu64 " never written; ",
	       fmt_text(rf->path), outcome, sc->slot_count, sc->valid, sc->torn, sc->stale, sc->corrupt,
	       sc->empty);
	if (sc->valid)
		printf("tickets %" PRIu64 "..%" PRIu64 ", %" PRIu64 " missing", sc->first_ticket,
		       sc->last_ticket, sc->missing);
	else
		printf("no valid records");
	if (sc->head_behind)
		printf("; header head %" PRIu64 " behind the slots (%" PRIu64 ")", sc->head_header,
		       sc->head);
	if (rf->header_damaged) {
		ring_damage_text(&rf->damage, "offset", damage, sizeof(damage));
		printf("; header damaged: %s", damage);
	}
	if (sc->corrupt || rf->header_damaged)
		printf("; CORRUPT");
	putchar('\n');
}

static cJSON *ring_json(const struct ring_file *rf, const struct ring_scan *sc)
{
	char damage[RING_DAMAGE_MAX * 180];
	struct json j;
	cJSON *o = json_begin(&j);

	json_text(&j, o, "file", rf->path);
	json_text(&j, o, "outcome", ring_outcome_name(ring_file_outcome(rf)));
	if (rf->hdr->crash_signo && signal_name((int)rf->hdr->crash_signo))
		json_text(&j, o, "signal", signal_name((int)rf->hdr->crash_signo));
	json_number(&j, o, "slot_count", sc->slot_count);
	scan_counts_json(&j, o, sc);
	json_u64(&j, o, "head", sc->head);
	json_u64(&j, o, "head_header", sc->head_header);
	if (sc->valid) {
		json_u64(&j, o, "first_ticket", sc->first_ticket);
		json_u64(&j, o, "last_ticket", sc->last_ticket);
	}
	json_u64(&j, o, "lapped", rf->hdr->lapped);
	json_u64(&j, o, "dropped", rf->hdr->dropped);
	if (rf->header_damaged) {
		ring_damage_text(&rf->damage, NULL, damage, sizeof(damage));
		json_text(&j, o, "header_damage", damage);
	}
	json_bool(&j, o, "ok", sc->corrupt == 0 && !rf->header_damaged);
	return json_end(&j);
}

static cJSON *error_json(const char *path, const struct ring_error *err)
{
	struct json j;
	cJSON *o = json_begin(&j);

	json_text(&j, o, "file", path);
	json_text(&j, o, "error", err->reason);
	return json_end(&j);
}

int cmd_verify(int argc, char **argv)
{
	int json, rc, corrupt = 0, unreadable = 0, i;

	rc = parse_json_options(argc, argv, usage, "ring file", &json);
	if (rc >= 0)
		return rc;
	for (i = optind; i < argc; i++) {
		struct ring_error err;
		struct ring_file *rf;
		struct ring_facts f;
		int rc = ring_file_open(argv[i], &rf, &err);

		if (rc != 0) {
			report_ring_error(argv[i], rc, &err);
			if (json)
				print_json_tree(error_json(argv[i], &err), 0);
			unreadable = 1;
			continue;
		}
		ring_file_walk(rf, &f, NULL, NULL);
		if (f.scan.corrupt || rf->header_damaged)
			corrupt = 1;
		if (json) {
			if (print_json_tree(ring_json(rf, &f.scan), 0) != 0) {
				fprintf(stderr, "lastwords: out of memory\n");
				unreadable = 1;
			}
		} else {
			print_text(rf, &f.scan);
		}
		ring_file_free(rf);
	}
	return unreadable ? LW_EXIT_INPUT : corrupt ? LW_EXIT_CORRUPT : LW_EXIT_OK;
}
