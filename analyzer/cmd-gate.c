/*
 * lastwords gate --candidate NAME|DIGEST [--stable NAME|DIGEST] [--history DB]
 *                [--require SCENARIO,...] [--app-version N]
 *                [--format text|json|html] [--tz ZONE] [--tolerance MS]
 *                [--package NAME]... INPUT...
 *
 * Whether a quarantined candidate may come back (gate.h): each INPUT is one
 * bundle, one device running one scenario, reported on its own. Prints the
 * release, the device matrix and the checklist, each item with the runs
 * that prove it or what is missing, and the verdict with its scope. Exit 0
 * for re-enable, 15 for not yet, 4 when an input could not be read
 * (whatever the verdict). It changes nothing on any device.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/digest.h"
#include "../src/vocab.h"
#include "bundle.h"
#include "commands.h"
#include "evidence/json.h"
#include "format.h"
#include "gate.h"
#include "history/history-db.h"
#include "history/history-read.h"
#include "output/gate-html.h"
#include "report.h"

static const char usage[] =
	"lastwords gate --candidate NAME|DIGEST [--stable NAME|DIGEST] [--history DB]\n"
	"               [--require SCENARIO,...] [--app-version N]\n"
	"               [--format text|json|html] [--tz ZONE] [--tolerance MS] [--package NAME]...\n"
	"               [--symbols DIR]... [--mapping FILE] INPUT...";

static const struct command_option options[] = {
	{ "--candidate NAME|DIGEST", "the quarantined candidate (required): a name, or its 16-digit digest" },
	{ "--stable NAME|DIGEST", "the stable candidate (else the quarantine advice's, else a ring's)" },
	{ "--history DB", "the candidate's earlier deaths from this history database too" },
	{ "--require SCENARIO,...", "the scenarios every device must have run (default: all eight)" },
	{ "--app-version N", "the release's app version (default: the newest the rings record)" },
	{ "-f, --format text|json|html", "text (the default), JSON (schemas/gate.schema.json) or one HTML page" },
	JOIN_OPTIONS_HELP,
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help gate_help = {
	"may a quarantined candidate come back: device matrix, checklist",
	usage,
	options,
	"lastwords gate --candidate demo-model-v2-fp16 --tz +01:00 fixtures/demo",
};

/* A candidate as given: 16 hex digits are a digest, anything else a name
 * (the probe's digest of it, as `lastwords digest` prints). */
static uint64_t candidate_arg(const char *s, int *is_name)
{
	char *end;
	uint64_t d;

	if (strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16) {
		d = strtoull(s, &end, 16);
		*is_name = 0;
		return d;
	}
	*is_name = 1;
	return digest_name(s);
}

/* The earlier deaths of candidate that the history holds (--history), as
 * the gate's deaths borrowing their text from *hd, into *out (free both).
 * Returns 0, or the exit status with the error printed. */
static int read_history(const char *db, uint64_t candidate, struct history_deaths *hd,
			struct gate_death **out)
{
	struct history h;
	char err[512];
	size_t i;
	int status;

	*out = NULL;
	if ((status = open_history(db, HISTORY_READ, &h)) != 0)
		return status;
	status = history_deaths(&h, candidate, hd, err, sizeof(err));
	history_close(&h);
	if (status == 0 && hd->n && !(*out = calloc(hd->n, sizeof(**out)))) {
		history_deaths_release(hd);
		snprintf(err, sizeof(err), "out of memory");
		status = -1;
	}
	if (status != 0) {
		fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(db), fmt_text(err));
		return LW_EXIT_DATABASE;
	}
	for (i = 0; i < hd->n; i++)
		(*out)[i] = (struct gate_death){ hd->v[i].device, hd->v[i].scenario, hd->v[i].stage,
						 hd->v[i].start_ns, hd->v[i].what };
	return 0;
}

/* --require LIST into req (each scenario once), *n set. Returns -1, or
 * the usage error's exit status with the error printed. */
static int require_arg(const char *list, int *req, size_t *n)
{
	char names[256], name[64];
	const char *p = list;
	size_t len, k;
	int s;

	*n = 0;
	for (;;) {
		len = strcspn(p, ",");
		if (!len)
			return usage_error(usage, "--require: an empty scenario name in '%s' (%s)", list,
					   fmt_vocab_list(&vocab_scenarios, names, sizeof(names)));
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
		if (len >= sizeof(name) || (s = vocab_value(&vocab_scenarios, name)) <= 0)
			return usage_error(usage, "--require: '%.*s' is not a scenario (%s)", (int)len, p,
					   fmt_vocab_list(&vocab_scenarios, names, sizeof(names)));
		for (k = 0; k < *n && req[k] != s; k++)
			;
		if (k == *n)
			req[(*n)++] = s;
		if (!p[len])
			return -1;
		p += len + 1;
	}
}

static void text_list(FILE *out, const cJSON *arr, const char *label)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, arr)
		fprintf(out, "      %s%s\n", label, fmt_text(cJSON_GetStringValue(x)));
}

/* A number of the gate's JSON as its decimal text: app versions are
 * 64-bit, written exactly (json_u64()). */
static const char *number_text(const cJSON *v)
{
	return cJSON_IsRaw(v) && v->valuestring ? v->valuestring : "?";
}

/* "note       b/x: 2 of its 2 runs are of app version 6, not this
 * release's": an input's runs of other app versions. */
static void input_versions(FILE *out, const cJSON *in, const char *release)
{
	long long other = json_get_int(in, "runs") - json_get_int(in, "release_runs");
	const cJSON *v;
	int k = 0;

	fprintf(out, "note       %s: %lld of its %lld run%s %s of ", fmt_text(json_get_string(in, "path")),
		other, json_get_int(in, "runs"), json_get_int(in, "runs") == 1 ? "" : "s",
		other == 1 ? "is" : "are");
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(in, "app_versions")) {
		const char *n = number_text(v);

		if (strcmp(n, release) == 0)
			continue;
		if (strcmp(n, "0") != 0)
			fprintf(out, "%sapp version %s", k++ ? ", " : "", n);
		else
			fprintf(out, "%sno recorded app version", k++ ? ", " : "");
	}
	fprintf(out, ", not this release's\n");
}

static void gate_text(const cJSON *g, FILE *out)
{
	const cJSON *x, *d;
	const char *name = json_get_string(g, "candidate_name");
	const char *stable = json_get_string(g, "stable_candidate");
	const char *when = json_get_string(g, "quarantined_at");
	const cJSON *sc = cJSON_GetObjectItem(g, "scope");

	fprintf(out, "gate       %s%s%s%s: %s\n", json_get_string(g, "candidate"), name ? " (" : "",
		name ? fmt_text(name) : "", name ? ")" : "", json_get_string(g, "verdict"));
	fprintf(out, "stable     %s%s%s%s\n", stable ? stable : "unknown", stable ? " (from the " : "",
		stable ? json_get_string(g, "stable_from") : "", stable ? ")" : "");
	fprintf(out, "quarantine %s\n", when ? when : "no advice of it in the inputs");
	if (json_get_string(sc, "app_version_from"))
		fprintf(out, "release    app version %s (%s), %lld run%s\n",
			number_text(cJSON_GetObjectItem(sc, "app_version")),
			strcmp(json_get_string(sc, "app_version_from"), "option") == 0
				? "--app-version"
				: "the newest in the inputs",
			json_get_int(sc, "release_runs"), json_get_int(sc, "release_runs") == 1 ? "" : "s");
	else
		fprintf(out, "release    unknown: no run records an app version, so every run counts\n");
	if (json_get_string(sc, "other_versions_text"))
		fprintf(out, "note       %s\n", fmt_text(json_get_string(sc, "other_versions_text")));
	/* Each input mixed in from another build, by name (unless no run is
	 * the release's: the verdict says that). */
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "inputs"))
		if (json_get_int(sc, "release_runs") &&
		    json_get_int(x, "release_runs") < json_get_int(x, "runs"))
			input_versions(out, x, number_text(cJSON_GetObjectItem(sc, "app_version")));
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "inputs"))
		if (json_get_string(x, "unknown_scenario"))
			fprintf(out, "note       %s: the manifest's scenario '%s' is not one of the "
				     "vocabulary's\n",
				fmt_text(json_get_string(x, "path")),
				fmt_text(json_get_string(x, "unknown_scenario")));
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices")) {
		fprintf(out, "\n%s\n", fmt_text(cJSON_GetStringValue(d)));
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "matrix")) {
			const char *state = json_get_string(x, "state");

			if (strcmp(json_get_string(x, "device"), cJSON_GetStringValue(d)) != 0)
				continue;
			fprintf(out, "  %-20s %s", json_get_string(x, "scenario"),
				strcmp(state, "not_run") == 0 ? "not run" : state);
			if (strcmp(state, "died") == 0)
				fprintf(out, ": %s", json_get_string(cJSON_GetObjectItem(x, "death"), "text"));
			else if (json_get_int(x, "deaths"))
				fprintf(out, " (after %lld earlier death%s)", json_get_int(x, "deaths"),
					json_get_int(x, "deaths") == 1 ? "" : "s");
			if (json_get_int(x, "other_runs"))
				fprintf(out, " [%lld run%s of other app versions, not counted]",
					json_get_int(x, "other_runs"),
					json_get_int(x, "other_runs") == 1 ? "" : "s");
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "checklist")) {
		fprintf(out, "%lld. [%s] %s\n", json_get_int(x, "number"),
			cJSON_IsTrue(cJSON_GetObjectItem(x, "holds")) ? "x" : " ",
			json_get_string(x, "title"));
		text_list(out, cJSON_GetObjectItem(x, "proof"), "");
		text_list(out, cJSON_GetObjectItem(x, "missing"), "missing: ");
	}
	fprintf(out, "\nverdict    %s\n", fmt_text(json_get_string(sc, "sentence")));
	if (!gate_reenable(g))
		fprintf(out, "           every item must hold (this changes nothing on any device)\n");
}

int cmd_gate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "candidate", required_argument, NULL, 'c' },
		{ "stable", required_argument, NULL, 's' },
		{ "history", required_argument, NULL, 'H' },
		{ "require", required_argument, NULL, 'R' },
		{ "app-version", required_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'f' },
		JOIN_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct corr_options opt = { .tolerance_ms = CORR_DEFAULT_TOLERANCE_MS };
	struct gate_options go = { 0 };
	char *packages[PACKAGES_MAX];
	const char *format = "text", *cand = NULL, *db = NULL;
	struct history_deaths hd = { 0 };
	struct gate_death *deaths = NULL;
	struct gate_input *in = NULL;
	struct bundle *b = NULL;
	struct report *r = NULL;
	size_t n, i, built = 0, errors = 0;
	int c, status, is_name, require[16];
	cJSON *g = NULL;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cand = optarg;
			break;
		case 's':
			go.stable = candidate_arg(optarg, &is_name);
			if (!go.stable)
				return usage_error(usage, "--stable '%s' is the digest of no candidate "
							  "(0000000000000000)",
						   optarg);
			break;
		case 'f':
			format = optarg;
			break;
		case 'H':
			db = optarg;
			break;
		case 'R':
			if ((status = require_arg(optarg, require, &go.nrequire)) >= 0)
				return status;
			go.require = require;
			break;
		case 'A':
			/* 0 is the rings' "no app version": no release to name */
			errno = 0;
			go.app_version = strtoull(optarg, &end, 10);
			if (!*optarg || strspn(optarg, "0123456789") != strlen(optarg) || *end ||
			    errno == ERANGE || !go.app_version)
				return usage_error(usage, "--app-version takes an app version (versionCode, "
							  "1 or more), not '%s'",
						   optarg);
			break;
		default:
			if ((status = parse_join_option(c, optarg, usage, packages, &opt, argc, argv)) >= 0)
				return status;
		}
	}
	if (!cand || !*cand)
		return usage_error(usage, "gate needs --candidate NAME|DIGEST");
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 && strcmp(format, "html") != 0)
		return usage_error(usage, "--format is text, json or html, not '%s'", format);
	if (optind >= argc)
		return usage_error(usage, "gate needs at least one bundle");
	go.candidate = candidate_arg(cand, &is_name);
	go.candidate_name = is_name ? cand : NULL;
	/* 0 is the rings' "no candidate": no candidate to let back */
	if (!go.candidate)
		return usage_error(usage, "--candidate '%s' is the digest of no candidate "
					  "(0000000000000000)",
				   cand);
	if (db && (status = read_history(db, go.candidate, &hd, &deaths)) != 0)
		return status;
	go.deaths = deaths;
	go.ndeaths = hd.n;
	n = (size_t)(argc - optind);
	in = calloc(n, sizeof(*in));
	b = calloc(n, sizeof(*b));
	r = calloc(n, sizeof(*r));
	status = in && b && r ? LW_EXIT_OK : LW_EXIT_INPUT;
	if (status != LW_EXIT_OK)
		fprintf(stderr, "lastwords: out of memory\n");
	/* Each input is a device's bundle of its own: its own correlation. */
	for (i = 0; status == LW_EXIT_OK && i < n; i++, built++) {
		if ((status = report_load(argv + optind + i, 1, &opt, &b[i], &r[i])) != 0)
			break; /* out of memory, said */
		errors += bundle_errors(&b[i]);
		in[i] = (struct gate_input){ argv[optind + i], &b[i], &r[i] };
	}
	if (status == LW_EXIT_OK && !(g = gate_decide(in, n, &go))) {
		fprintf(stderr, "lastwords: out of memory\n");
		status = LW_EXIT_INPUT;
	}
	if (status == LW_EXIT_OK) {
		if (strcmp(format, "json") == 0) {
			char *text = json_serialize(g, 1);

			if (text) {
				printf("%s\n", text);
			} else {
				fprintf(stderr, "lastwords: out of memory\n");
				status = LW_EXIT_INPUT;
			}
			free(text);
		} else if (strcmp(format, "html") == 0) {
			gate_html(g, stdout);
		} else {
			gate_text(g, stdout);
		}
		/* An input that could not be read never lets a candidate back. */
		if (status == LW_EXIT_OK)
			status = errors ? LW_EXIT_INPUT : gate_reenable(g) ? LW_EXIT_OK : LW_EXIT_GATE;
	}
	cJSON_Delete(g);
	for (i = 0; i < built; i++) {
		report_release(&r[i]);
		bundle_release(&b[i]);
	}
	free(in);
	free(b);
	free(r);
	free(deaths);
	history_deaths_release(&hd);
	return status;
}
