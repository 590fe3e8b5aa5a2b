/* libFuzzer harness for the ring reader: header rules, slot scan, and the
 * text and JSON of every record accepted, on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ring.h"
#include "../../analyzer/runs/ring-event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int each(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	const struct lw_ring_header *h = arg;
	char label[64], detail[256];
	cJSON *j = ring_event_json("fuzz", ticket, h, s);

	(void)index;
	ring_event_text(h, s, label, sizeof(label), detail, sizeof(detail));
	cJSON_Delete(j);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ring_error err;
	struct ring_scan sc;
	void *buf;
	enum ring_header_status st;

	/* The reader maps files page-aligned; keep the slots aligned here too. */
	if (posix_memalign(&buf, 64, size ? size : 1) != 0)
		return 0;
	memcpy(buf, data, size);
	st = ring_header_check(buf, size, &err);
	if (st == RING_HEADER_OK || st == RING_HEADER_FIELD) {
		const struct lw_ring_header *h = buf;

		ring_scan(h, (const struct lw_ring_slot *)((const char *)buf + h->header_size), &sc,
			  NULL, each, (void *)h);
		if (sc.valid + sc.torn + sc.stale + sc.corrupt + sc.empty != h->slot_count)
			abort();
	} else if (err.reason[0] == '\0') {
		abort();
	}
	free(buf);
	return 0;
}
