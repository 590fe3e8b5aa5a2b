/* libFuzzer harness for run_load_json(): a ring as dump --json lines, then
 * the text and JSON of every record it yields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../analyzer/runs/ring-event.h"
#include "../../analyzer/runs/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ev_error err;
	struct input in;
	struct run r;
	char label[64], detail[256];
	size_t i;

	input_init_mem(&in, (const char *)data, size);
	if (run_load_json("fuzz", &in, &r, &err) == 0) {
		for (i = 0; i < r.nevents; i++) {
			cJSON *j = ring_event_json("fuzz", run_event_ticket(&r.events[i]), &r.hdr, &r.events[i]);

			ring_event_text(&r.hdr, &r.events[i], label, sizeof(label), detail,
					sizeof(detail));
			cJSON_Delete(j);
		}
		run_release(&r);
	} else if (err.reason[0] == '\0') {
		abort();
	}
	input_release(&in);
	return 0;
}
