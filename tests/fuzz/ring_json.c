/* libFuzzer harness for run_load_json(): a ring as dump --json lines, then
 * the text and JSON of every record it yields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../analyzer/ring-event.h"
#include "../../analyzer/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ev_error err;
	struct run r;
	char label[64], detail[256], *buf = malloc(size + 1);
	size_t i;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (run_load_json("fuzz", buf, size, &r, &err) == 0) {
		for (i = 0; i < r.nevents; i++) {
			cJSON *j = ring_event_json("fuzz", r.events[i].ticket, &r.hdr, &r.events[i].slot);

			ring_event_text(&r.hdr, &r.events[i].slot, label, sizeof(label), detail,
					sizeof(detail));
			cJSON_Delete(j);
		}
		run_release(&r);
	} else if (err.reason[0] == '\0') {
		abort();
	}
	free(buf);
	return 0;
}
