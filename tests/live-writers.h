/*
 * Writer threads that hammer a ring while a test reads it (ring-live-read.c
 * on memory, analyzer-ring-live-file.c through the file). Each record's
 * payload carries a value, its complement and a product of it: a copy that
 * mixes two records cannot pass as one record (live_mixed()).
 */
#ifndef LW_TESTS_LIVE_WRITERS_H
#define LW_TESTS_LIVE_WRITERS_H

#include <pthread.h>
#include <stdatomic.h>

#include <lastwords/ring.h>

#include "../src/ring.h"
#include "../src/ring_write.h"
#include "helpers.h"

#define LIVE_WRITERS 2

struct live_writers {
	pthread_t th[LIVE_WRITERS];
	struct live_writer {
		struct ring_writer w;
		uint64_t tag;
		uint64_t written;
		atomic_int *stop;
	} arg[LIVE_WRITERS];
	atomic_int stop;
};

static void *live_writer(void *p)
{
	struct live_writer *a = p;
	struct lw_ring_slot s;
	uint64_t n = 0;

	memset(&s, 0, sizeof(s));
	while (!atomic_load_explicit(a->stop, memory_order_relaxed)) {
		s.a = a->tag << 48 | n++;
		s.b = ~s.a;
		s.c = s.a * 0x9e3779b97f4a7c15ull;
		s.t_mono_ns = n;
		if (ring_write(&a->w, &s) == 0)
			a->written++;
	}
	return NULL;
}

/* Initialise a header of slot_count slots at h, slots right after it, and
 * start the writers. */
static inline void live_writers_start(struct live_writers *lw, struct lw_ring_header *h,
				      uint32_t slot_count, const char *process)
{
	static const uint8_t run_id[16] = { 1 };
	struct ring_header_params p;
	int i;

	memset(&p, 0, sizeof(p));
	p.slot_count = slot_count;
	p.pid = 1;
	p.run_id = run_id;
	p.process = process;
	ring_header_init(h, &p);
	atomic_init(&lw->stop, 0);
	for (i = 0; i < LIVE_WRITERS; i++) {
		lw->arg[i].w.hdr = h;
		lw->arg[i].w.slots = (struct lw_ring_slot *)((unsigned char *)h + LW_RING_HEADER_SIZE);
		lw->arg[i].w.mask = slot_count - 1;
		lw->arg[i].tag = (uint64_t)i + 1;
		lw->arg[i].written = 0;
		lw->arg[i].stop = &lw->stop;
		T_ASSERT(pthread_create(&lw->th[i], NULL, live_writer, &lw->arg[i]) == 0,
			 "pthread_create");
	}
}

/* Stop the writers; each must have written something. */
static inline void live_writers_stop(struct live_writers *lw)
{
	int i;

	atomic_store(&lw->stop, 1);
	for (i = 0; i < LIVE_WRITERS; i++)
		pthread_join(lw->th[i], NULL);
	T_ASSERT(lw->arg[0].written > 0 && lw->arg[1].written > 0, "a writer wrote nothing");
}

/* Whether a valid record mixes two writers' records. */
static inline int live_mixed(const struct lw_ring_slot *s)
{
	return s->b != ~s->a || s->c != s->a * 0x9e3779b97f4a7c15ull;
}

#endif
