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
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>

#include <lastwords/ring.h>

#include "../src/ring.h"
#include "../src/ring_write.h"
#include "helpers.h"

#define SLOTS 8u
#define SCANS 200000

static alignas(64) unsigned char mem[LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE];
static atomic_int stop;

struct writer_arg {
	struct ring_writer w;
	uint64_t tag;
	uint64_t written;
};

static void *writer(void *p)
{
	struct writer_arg *a = p;
	struct lw_ring_slot s;
	uint64_t n = 0;

	memset(&s, 0, sizeof(s));
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		s.a = a->tag << 48 | n++;
		s.b = ~s.a;
		s.c = s.a * 0x9e3779b97f4a7c15ull;
		s.t_mono_ns = n;
		if (ring_write(&a->w, &s) == 0)
			a->written++;
	}
	return NULL;
}

struct check {
	uint64_t records, mixed;
};

static int check_record(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *p)
{
	struct check *c = p;

	(void)ticket;
	(void)index;
	c->records++;
	if (s->b != ~s->a || s->c != s->a * 0x9e3779b97f4a7c15ull)
		c->mixed++;
	return 0;
}

int main(void)
{
	struct lw_ring_header *h = (struct lw_ring_header *)mem;
	struct ring_header_params p;
	struct writer_arg args[2];
	pthread_t th[2];
	struct check c = { 0, 0 };
	uint64_t torn = 0, corrupt = 0, scans;
	static const uint8_t run_id[16] = { 1 };
	int i;

	memset(&p, 0, sizeof(p));
	p.slot_count = SLOTS;
	p.pid = 1;
	p.run_id = run_id;
	p.process = "live-read";
	ring_header_init(h, &p);
	for (i = 0; i < 2; i++) {
		args[i].w.hdr = h;
		args[i].w.slots = (struct lw_ring_slot *)(mem + LW_RING_HEADER_SIZE);
		args[i].w.mask = SLOTS - 1;
		args[i].tag = (uint64_t)i + 1;
		args[i].written = 0;
		T_ASSERT(pthread_create(&th[i], NULL, writer, &args[i]) == 0, "pthread_create");
	}
	for (scans = 0; scans < SCANS; scans++) {
		struct ring_scan sc;

		ring_scan(h, (const struct lw_ring_slot *)(mem + LW_RING_HEADER_SIZE), &sc, NULL,
			  check_record, &c);
		torn += sc.torn;
		corrupt += sc.corrupt;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	printf("%" PRIu64 " scans while %" PRIu64 " + %" PRIu64 " records were written: "
	       "%" PRIu64 " valid, %" PRIu64 " torn, %" PRIu64 " corrupt, %" PRIu64 " mixed\n",
	       scans, args[0].written, args[1].written, c.records, torn, corrupt, c.mixed);
	T_ASSERT(args[0].written > 0 && args[1].written > 0, "a writer wrote nothing");
	T_ASSERT(c.records > 0, "no valid record was ever read");
	T_ASSERT(c.mixed == 0, "%" PRIu64 " valid records mixed two writes", c.mixed);
	T_ASSERT(corrupt == 0, "%" PRIu64 " slots being rewritten were read as corrupt", corrupt);
	return T_PASS;
}
