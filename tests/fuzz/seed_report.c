/* libFuzzer harness for the seed report (seed-report.c and its JSON reader
 * seed-json.c): each input is written to a file and reported on, as
 * `lastwords report --format seed FILE` would. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "seed-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *f, *sink;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/lw-fuzz-seed-%d.json", (int)getpid());
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
