/* The history's rates and regressions as text (history-text.h). */
#include "history-text.h"

#include <string.h>

#include "../../src/vocab.h"
#include "../format.h"

static const char *text_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(x) ? x->valuestring : "none";
}

/* The number o holds under key (o itself with key NULL); 0 when none. */
static double number_of(const cJSON *o, const char *key)
{
	const cJSON *x = key ? cJSON_GetObjectItem(o, key) : o;

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

/* The matrix (--by device,delegate, ...) as a table first: a column per
 * dimension, then the cell's runs, deaths and death rate with its
 * interval. Each cell's classes follow as for the other groupings. */
static void matrix_text(const struct history_rates *f, FILE *out)
{
	size_t w[HISTORY_NDIMS] = { 0 }, i, k;

	for (k = 0; k < f->ndims; k++) {
		w[k] = strlen(history_dim_name(f->dims[k]));
		for (i = 0; i < f->ngroups; i++)
			if (strlen(f->groups[i].key[f->dims[k]]) > w[k])
				w[k] = strlen(f->groups[i].key[f->dims[k]]);
		if (w[k] > 40)
			w[k] = 40;
	}
	fputc('\n', out);
	for (k = 0; k < f->ndims; k++)
		fprintf(out, "%-*s  ", (int)w[k], history_dim_name(f->dims[k]));
	fputs("   runs   died    rate  95% interval\n", out);
	for (i = 0; i < f->ngroups; i++) {
		const struct history_group *g = &f->groups[i];
		struct stats_interval in = stats_wilson(g->died, g->runs);

		for (k = 0; k < f->ndims; k++)
			fprintf(out, "%-*s  ", (int)w[k], fmt_text(g->key[f->dims[k]]));
		fprintf(out, "%7lld %6lld %6.1f%%  %.1f-%.1f%%\n", g->runs, g->died,
			100.0 * history_rate(g->died, g->runs), 100.0 * in.low, 100.0 * in.high);
	}
}

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
	if (f->ndims)
		matrix_text(f, out);
	for (i = 0; !signatures && i < f->ngroups; i++) {
		const struct history_group *g = &f->groups[i];
		struct stats_interval in = stats_wilson(g->died, g->runs);

		fprintf(out, "\n%s %s: %lld run%s, %lld died (%.1f%%, 95%% %.1f-%.1f%%)\n", by,
			fmt_text(g->name), g->runs, g->runs == 1 ? "" : "s", g->died,
			100.0 * history_rate(g->died, g->runs), 100.0 * in.low, 100.0 * in.high);
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

/* "12.5%, 95% 4.1-30.0%": a rate and its interval (schemas/history.schema.json). */
static void rate_text(double rate, const cJSON *interval, FILE *out)
{
	fprintf(out, "%.1f%%, 95%% %.1f-%.1f%%", 100.0 * rate,
		100.0 * number_of(cJSON_GetArrayItem(interval, 0), NULL),
		100.0 * number_of(cJSON_GetArrayItem(interval, 1), NULL));
}

/* One rise of the regressions: a regression, one not significant, or too
 * few runs to tell. */
static void rise_text(const cJSON *x, FILE *out)
{
	const char *dim = text_of(x, "dimension"), *judgement = text_of(x, "judgement");
	const cJSON *stage;
	const char *sep = "; in ";

	fprintf(out, "  %s %s %s: ", fmt_text(text_of(x, "package")), dim,
		fmt_text(text_of(x, "group")));
	if (strcmp(judgement, "not_enough_runs") == 0) {
		fprintf(out,
			"not enough runs to tell: confirmed %s in %.0f of %.0f vs %.0f of %.0f with %s %s "
			"(a regression needs %d runs on each side and %d deaths in the newer)\n",
			text_of(x, "class"), number_of(x, "count"), number_of(x, "runs"),
			number_of(x, "previous_count"), number_of(x, "previous_runs"), dim,
			fmt_text(text_of(x, "previous")), STATS_MIN_RUNS, STATS_MIN_DEATHS);
		return;
	}
	fprintf(out, "%sconfirmed %s in %.0f of %.0f runs (",
		strcmp(judgement, "regression") == 0 ? "" : "not significant: ", text_of(x, "class"),
		number_of(x, "count"), number_of(x, "runs"));
	rate_text(number_of(x, "rate"), cJSON_GetObjectItem(x, "interval"), out);
	fprintf(out, "), %s %.0f of %.0f (",
		strcmp(judgement, "regression") == 0 ? "up from" : "against",
		number_of(x, "previous_count"), number_of(x, "previous_runs"));
	rate_text(number_of(x, "previous_rate"), cJSON_GetObjectItem(x, "previous_interval"), out);
	fprintf(out, ") with %s %s; p = %.2g", dim, fmt_text(text_of(x, "previous")),
		number_of(x, "p_value"));
	cJSON_ArrayForEach(stage, cJSON_GetObjectItem(x, "stages")) {
		fprintf(out, "%s%s %.0f", sep, fmt_text(stage->string), stage->valuedouble);
		sep = ", ";
	}
	fputc('\n', out);
}

static void regressions_text(const cJSON *regressions, FILE *out)
{
	const cJSON *x;
	int significant = 0, other = 0;

	cJSON_ArrayForEach(x, regressions) {
		if (cJSON_IsTrue(cJSON_GetObjectItem(x, "significant")))
			significant++;
		else
			other++;
	}
	if (!significant)
		fputs("\nregressions: none (each candidate and app version against the one before it, "
		      "per package)\n",
		      out);
	else
		fprintf(out, "\nregressions (a confirmed low_memory or native_crash rate up on the one "
			     "before, p < %.2g by a one-sided Fisher's exact test):\n",
			STATS_ALPHA);
	cJSON_ArrayForEach(x, regressions)
		if (cJSON_IsTrue(cJSON_GetObjectItem(x, "significant")))
			rise_text(x, out);
	if (!other)
		return;
	fputs("\nrises that are not regressions (too few runs, or within chance):\n", out);
	cJSON_ArrayForEach(x, regressions)
		if (!cJSON_IsTrue(cJSON_GetObjectItem(x, "significant")))
			rise_text(x, out);
}
