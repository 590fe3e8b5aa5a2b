/*
 * A reader scanning a ring while writers write it (schemas/ring-format.md,
 * R11): a slot that a writer rewrites during the reader's copy is torn,
 * never corrupt, and every valid record is one writer's whole record.
 *
 * Two writer threads hammer an 8-slot ring with ring_write(), so slots are
 * rewritten all the time, while the main thread calls ring_scan() over and
 * over. Each record's payload carries a value and its complement: a copy
 * mixing two records cannot pass as valid. Without the acquire fence and
 * the second load of seq before the checksum (slot_check() in src/ring.c),
 * such a mixed copy is classified corrupt, and this test fails.
 */
#include <inttypes.h>
#include <stdalign.h>

#include "live-writers.h"

#define SLOTS 8u
#define SCANS 200000

static alignas(64) unsigned char mem[LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE];

struct check {
	uint64_t records, mixed;
};

static int check_record(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *p)
{
	struct check *c = p;

	(void)ticket;
	(void)index;
	c->records++;
	c->mixed += live_mixed(s);
	return 0;
}

int main(void)
{
	struct lw_ring_header *h = (struct lw_ring_header *)mem;
	struct live_writers lw;
	struct check c = { 0, 0 };
	uint64_t torn = 0, corrupt = 0, scans;

	live_writers_start(&lw, h, SLOTS, "live-read");
	for (scans = 0; scans < SCANS; scans++) {
		struct ring_scan sc;

		ring_scan(h, (const struct lw_ring_slot *)(mem + LW_RING_HEADER_SIZE), &sc, NULL,
			  check_record, &c);
		torn += sc.torn;
		corrupt += sc.corrupt;
	}
	live_writers_stop(&lw);

	printf("%" PRIu64 " scans while %" PRIu64 " + %" PRIu64 " records were written: "
	       "%" PRIu64 " valid, %" PRIu64 " torn, %" PRIu64 " corrupt, %" PRIu64 " mixed\n",
	       scans, lw.arg[0].written, lw.arg[1].written, c.records, torn, corrupt, c.mixed);
	T_ASSERT(c.records > 0, "no valid record was ever read");
	T_ASSERT(c.mixed == 0, "%" PRIu64 " valid records mixed two writes", c.mixed);
	T_ASSERT(corrupt == 0, "%" PRIu64 " slots being rewritten were read as corrupt", corrupt);
	return T_PASS;
}
