/* The history's rates and regressions as text (history-text.h). */
#include "history-text.h"

#include "../../src/vocab.h"
#include "../format.h"

void history_text(const char *by, const char *since, const struct history_rates *f,
		  const cJSON *regressions, FILE *out)
{
	const cJSON *x;
	size_t i;
	int c, l;

	fprintf(out, "history: %lld run%s in %lld bundle%s, by %s", f->runs, f->runs == 1 ? "" : "s",
		f->bundles, f->bundles == 1 ? "" : "s", by);
	if (since)
		fprintf(out, ", since %s UTC", since);
	fputs("\n", out);
	for (i = 0; i < f->ngroups; i++) {
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
