/* The history's rates and regressions as text (history-text.h). */
#include "history-text.h"

#include "../../src/vocab.h"
#include "../format.h"

static const char *text_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(x) ? x->valuestring : "none";
}

static double number_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* history --by signature: each crash signature, most runs first. */
static void signatures_text(const cJSON *signatures, FILE *out)
{
	const cJSON *x, *cls;

	cJSON_ArrayForEach(x, signatures) {
		const char *sep = "";
		double runs = number_of(x, "runs"), versions = number_of(x, "versions");

		fprintf(out, "\nsignature %s (%s): %.0f run%s in %.0f app version%s", text_of(x, "signature"),
			fmt_text(text_of(x, "package")), runs, runs == 1 ? "" : "s", versions,
			versions == 1 ? "" : "s");
		if (cJSON_IsNumber(cJSON_GetObjectItem(x, "first_version")))
			fprintf(out, number_of(x, "first_version") == number_of(x, "last_version")
					     ? " (%.0f)" : " (%.0f to %.0f)",
				number_of(x, "first_version"), number_of(x, "last_version"));
		fputs(", ", out);
		cJSON_ArrayForEach(cls, cJSON_GetObjectItem(x, "classes")) {
			fprintf(out, "%s%s %.0f", sep, fmt_text(cls->string), cls->valuedouble);
			sep = ", ";
		}
		fprintf(out, "\n  first seen %s, last seen %s\n  frames %s\n",
			fmt_text(text_of(x, "first_seen")), fmt_text(text_of(x, "last_seen")),
			fmt_text(text_of(x, "signed_frames")));
	}
}

/* The regression check's new crashes: signatures an app version brought. */
static void new_crashes_text(const cJSON *new_crashes, FILE *out)
{
	const cJSON *x;

	if (!cJSON_GetArraySize(new_crashes)) {
		fputs("\nnew crash signatures: none (each app version against the ones before it, "
		      "per package)\n",
		      out);
		return;
	}
	fputs("\nnew crash signatures (in an app version, never in one before it):\n", out);
	cJSON_ArrayForEach(x, new_crashes) {
		double runs = number_of(x, "runs");

		fprintf(out, "  %s app_version %.0f: new crash signature %s in %.0f run%s (none in %.0f "
			     "or before): %s\n",
			fmt_text(text_of(x, "package")), number_of(x, "app_version"),
			text_of(x, "signature"), runs, runs == 1 ? "" : "s",
			number_of(x, "previous_version"), fmt_text(text_of(x, "signed_frames")));
	}
}

static void regressions_text(const cJSON *regressions, FILE *out);

void history_text(const char *by, const char *since, const struct history_rates *f,
		  const cJSON *signatures, const cJSON *regressions, const cJSON *new_crashes,
		  FILE *out)
{
	size_t i;
	int c, l;

	fprintf(out, "history: %lld run%s in %lld bundle%s, by %s", f->runs, f->runs == 1 ? "" : "s",
		f->bundles, f->bundles == 1 ? "" : "s", by);
	if (since)
		fprintf(out, ", since %s UTC", since);
	fputs("\n", out);
	if (signatures) {
		if (!cJSON_GetArraySize(signatures))
			fputs("\nno crash signatures: no stored run has a crash with a frame to sign\n", out);
		signatures_text(signatures, out);
	}
	for (i = 0; !signatures && i < f->ngroups; i++) {
		const struct history_group *g = &f->groups[i];

		fprintf(out, "\n%s %s: %lld run%s, %lld died\n", by, fmt_text(g->name), g->runs,
			g->runs == 1 ? "" : "s", g->died);
		for (c = 1; c < HISTORY_NCLASSES; c++) {
			const char *sep = "";

			if (!g->n[c][0])
				continue;
			fprintf(out, "  %-15s %5lld %6.1f%%  ", vocab_name(&vocab_exit_classes, c),
				g->n[c][0], 100.0 * history_rate(g->n[c][0], g->runs));
			for (l = 1; l < HISTORY_NLEVELS; l++) {
				if (!g->n[c][l])
					continue;
				fprintf(out, "%s%s %lld", sep, vocab_name(&vocab_evidence_levels, l),
					g->n[c][l]);
				sep = ", ";
			}
			fputs("\n", out);
		}
	}
	regressions_text(regressions, out);
	new_crashes_text(new_crashes, out);
}

static void regressions_text(const cJSON *regressions, FILE *out)
{
	const cJSON *x;

	if (!cJSON_GetArraySize(regressions)) {
		fputs("\nregressions: none (each candidate and app version against the one before it, "
		      "per package)\n",
		      out);
		return;
	}
	fputs("\nregressions (a confirmed low_memory or native_crash rate up on the one before):\n",
	      out);
	cJSON_ArrayForEach(x, regressions) {
		const char *dim = cJSON_GetObjectItem(x, "dimension")->valuestring;
		double count = cJSON_GetObjectItem(x, "count")->valuedouble;
		double runs = cJSON_GetObjectItem(x, "runs")->valuedouble;
		double pcount = cJSON_GetObjectItem(x, "previous_count")->valuedouble;
		double pruns = cJSON_GetObjectItem(x, "previous_runs")->valuedouble;

		const cJSON *stage;
		const char *sep = "; in ";

		fprintf(out,
			"  %s %s %s: confirmed %s in %.0f of %.0f runs (%.1f%%), up from %.0f of %.0f "
			"(%.1f%%) with %s %s",
			fmt_text(cJSON_GetObjectItem(x, "package")->valuestring), dim,
			fmt_text(cJSON_GetObjectItem(x, "group")->valuestring),
			fmt_text(cJSON_GetObjectItem(x, "class")->valuestring), count, runs,
			100.0 * cJSON_GetObjectItem(x, "rate")->valuedouble, pcount, pruns,
			100.0 * cJSON_GetObjectItem(x, "previous_rate")->valuedouble, dim,
			fmt_text(cJSON_GetObjectItem(x, "previous")->valuestring));
		cJSON_ArrayForEach(stage, cJSON_GetObjectItem(x, "stages")) {
			fprintf(out, "%s%s %.0f", sep, fmt_text(stage->string), stage->valuedouble);
			sep = ", ";
		}
		fputc('\n', out);
	}
}
