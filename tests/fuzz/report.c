/* libFuzzer harness for the whole report: the input is split at lines of
 * "====" into up to four files of one bundle (a ring's JSON lines, dumps,
 * logs...), which are loaded, correlated, classified and written as JSON,
 * text and HTML, as `lastwords report` does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../analyzer/bundle.h"
#include "../../analyzer/output/report-writer.h"
#include "../../analyzer/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[512];
	struct corr_options opt = { .tz = { "", 3600000 }, .tz_known = 1, .tolerance_ms = 2000 };
	const char *p = (const char *)data, *end = p + size;
	char path[600], *paths[1];
	struct bundle b;
	struct report r;
	int part = 0;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/lw-fuzz-report-%d", tmp && *tmp ? tmp : "/tmp",
			 (int)getpid());
		snprintf(path, sizeof(path), "mkdir -p %s", dir);
		if (system(path) != 0)
			return 0;
	}
	for (part = 0; part < 4; part++) {
		FILE *f;
		const char *sep = NULL, *q;
		size_t n;

		for (q = p; q + 5 <= end; q++)
			if (memcmp(q, "====\n", 5) == 0 && (q == p || q[-1] == '\n')) {
				sep = q;
				break;
			}
		n = (size_t)((sep ? sep : end) - p);
		snprintf(path, sizeof(path), "%s/part%d", dir, part);
		f = fopen(path, "wb");
		if (!f)
			return 0;
		if (n)
			fwrite(p, 1, n, f);
		fclose(f);
		p = sep ? sep + 5 : end;
	}
	paths[0] = dir;
	if (bundle_load(paths, 1, &b) != 0)
		return 0;
	if (report_build(&b, &opt, &r) == 0) {
		cJSON *j = report_json(&r);
		char *text = j ? cJSON_PrintUnformatted(j) : NULL;
		FILE *sink = fopen("/dev/null", "w");

		free(text);
		if (sink) {
			report_text(&r, sink);
			if (j)
				report_html(j, sink);
			fclose(sink);
		}
		cJSON_Delete(j);
		report_release(&r);
	}
	bundle_release(&b);
	return 0;
}
