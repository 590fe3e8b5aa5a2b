/* A run's clock triples, and times converted between its clocks. */
#include "run-clock.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../evidence/evidence.h"
#include "../format.h"

void run_clock_init(struct run_clock *c)
{
	memset(c, 0, sizeof(*c));
}

void run_clock_release(struct run_clock *c)
{
	if (!c)
		return;
	free(c->by_mono);
	free(c->by_real);
	memset(c, 0, sizeof(*c));
}

/* Whether record s holds a triple: BOOTTIME in a, REALTIME in b, at its
 * t_mono_ns (the open record's pair is the header's, at start_mono_ns). */
static int has_triple(const struct lw_ring_slot *s)
{
	switch (s->type) {
	case LW_EV_STAGE_BEGIN:
	case LW_EV_STAGE_END:
	case LW_EV_SESSION_OPEN:
	case LW_EV_SESSION_CLOSE:
	case LW_EV_CLOSE:
		return s->a && s->b;
	}
	return 0;
}

static int push(struct run_clock *c, size_t *cap, uint64_t mono, uint64_t boot, uint64_t real)
{
	if (!boot || !real)
		return 0;
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct clock_triple *nv = realloc(c->by_mono, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->by_mono = nv;
		*cap = ncap;
	}
	c->by_mono[c->n++] = (struct clock_triple){ mono, boot, real };
	return 0;
}

int run_clock_add(struct run_clock *c, const struct run *r)
{
	size_t cap = c->n, i;

	/* by_mono holds exactly n until done: grow from there. */
	if (push(c, &cap, r->hdr.start_mono_ns, r->hdr.start_boot_ns, r->hdr.start_real_ns) != 0)
		return -ENOMEM;
	for (i = 0; i < r->nevents; i++) {
		const struct lw_ring_slot *s = &r->events[i];

		if (has_triple(s) && push(c, &cap, s->t_mono_ns, s->a, s->b) != 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int by_mono(const void *a, const void *b)
{
	return cmp_u64(((const struct clock_triple *)a)->mono_ns, ((const struct clock_triple *)b)->mono_ns);
}

static int by_real(const void *a, const void *b)
{
	return cmp_u64(((const struct clock_triple *)a)->real_ns, ((const struct clock_triple *)b)->real_ns);
}

int run_clock_done(struct run_clock *c)
{
	free(c->by_real);
	c->by_real = NULL;
	if (!c->n)
		return 0;
	qsort(c->by_mono, c->n, sizeof(*c->by_mono), by_mono);
	c->by_real = malloc(c->n * sizeof(*c->by_real));
	if (!c->by_real)
		return -ENOMEM;
	memcpy(c->by_real, c->by_mono, c->n * sizeof(*c->by_real));
	qsort(c->by_real, c->n, sizeof(*c->by_real), by_real);
	return 0;
}

/* The triple of v[0..n) (ordered by the key at offset key) nearest to t. */
static const struct clock_triple *nearest(const struct clock_triple *v, size_t n, size_t key,
					  uint64_t t)
{
	size_t lo = 0, hi = n;
	uint64_t a, b;

#define KEY(i) (*(const uint64_t *)((const char *)&v[i] + key))
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (KEY(mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first at or after t. */
	if (lo == n)
		return &v[n - 1];
	if (lo == 0)
		return &v[0];
	a = t - KEY(lo - 1);
	b = KEY(lo) - t;
#undef KEY
	return a <= b ? &v[lo - 1] : &v[lo];
}

/* from + (boot - from_clock), or -ERANGE below zero. */
static int shift(uint64_t t, uint64_t from, uint64_t boot, uint64_t *out)
{
	if (t < from && from - t > boot)
		return -ERANGE;
	*out = boot + t - from;
	return 0;
}

int run_clock_boot_of_mono(const struct run_clock *c, uint64_t t_mono_ns, uint64_t *boot_ns)
{
	const struct clock_triple *tr;

	if (!c->n)
		return -ENOENT;
	tr = nearest(c->by_mono, c->n, offsetof(struct clock_triple, mono_ns), t_mono_ns);
	return shift(t_mono_ns, tr->mono_ns, tr->boot_ns, boot_ns);
}

int run_clock_boot_of_utc(const struct run_clock *c, int64_t utc_ms, uint64_t *boot_ns)
{
	const struct clock_triple *tr;
	uint64_t t;

	if (!c->n || utc_ms == EV_NO_TIME)
		return -ENOENT;
	if (!ms_fits_ns(utc_ms))
		return -ERANGE;
	t = (uint64_t)utc_ms * 1000000u;
	tr = nearest(c->by_real, c->n, offsetof(struct clock_triple, real_ns), t);
	return shift(t, tr->real_ns, tr->boot_ns, boot_ns);
}
