/* libFuzzer harness for the seed report (seed-report.c and its JSON reader
 * seed-json.c): each input is written to a file and reported on, as
 * `lastwords report --format seed FILE` would. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../analyzer/seed/seed-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[512];
	FILE *f, *sink;

	if (!path[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/lw-fuzz-seed-%d.json", tmp && *tmp ? tmp : "/tmp",
			 (int)getpid());
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	seed_report(path, sink, sink);
	fclose(sink);
	return 0;
}
