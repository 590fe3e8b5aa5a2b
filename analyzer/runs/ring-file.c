/* Reading and checking ring files pulled from a device. */
#include "ring-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../evidence/input.h"

static int sys_fail(struct ring_error *err, int e)
{
	err->offset = 0;
	snprintf(err->reason, sizeof(err->reason), "%s", strerror(e));
	return -e;
}

static int format_fail(struct ring_error *err, enum ring_header_status st, size_t offset,
		       const char *reason)
{
	err->offset = offset;
	snprintf(err->reason, sizeof(err->reason), "%.*s", (int)sizeof(err->reason) - 1, reason);
	return (int)st;
}

/* Read up to len bytes at off. Returns how many (fewer at the end of the
 * file), or -errno. */
static ssize_t read_at(int fd, unsigned char *buf, size_t len, size_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Read [off, off + len) of the file into buf + off: 0, -errno, or
 * RING_HEADER_TRUNCATED when the file ends first (it shrank after fstat). */
static int read_part(int fd, unsigned char *buf, size_t off, size_t len, uint64_t whole,
		     struct ring_error *err)
{
	ssize_t got = read_at(fd, buf + off, len, off);
	char why[160];

	if (got < 0)
		return sys_fail(err, (int)-got);
	if ((size_t)got == len)
		return 0;
	snprintf(why, sizeof(why), "the file shrank while it was read: %zu bytes, %llu expected",
		 off + (size_t)got, (unsigned long long)whole);
	return format_fail(err, RING_HEADER_TRUNCATED, off + (size_t)got, why);
}

/* A live ring: read its slots again, and make each slot that changed since
 * the first read what slot_check() (src/ring.c) makes of a slot that moved
 * while it was copied: never written (R8) if it was empty, else torn (R9,
 * an odd seq of the same ticket). Returns 0 or -errno. */
static int mark_moved(int fd, struct ring_file *rf)
{
	unsigned char chunk[256 * LW_RING_SLOT_SIZE];
	size_t off = rf->hdr->header_size, k;

	while (off < rf->size) {
		size_t len = rf->size - off < sizeof(chunk) ? rf->size - off : sizeof(chunk);
		ssize_t got = read_at(fd, chunk, len, off);

		if (got < 0)
			return (int)got;
		for (k = 0; k + LW_RING_SLOT_SIZE <= (size_t)got; k += LW_RING_SLOT_SIZE) {
			struct lw_ring_slot *s = (struct lw_ring_slot *)(rf->bytes + off + k);

			if (memcmp(s, chunk + k, LW_RING_SLOT_SIZE) == 0)
				continue;
			if (s->seq == 0)
				memset(s, 0, sizeof(*s));
			else if ((s->seq & 1u) == 0)
				s->seq--; /* 2t+2, published, becomes 2t+1, claimed */
		}
		if ((size_t)got < len)
			break;
		off += len;
	}
	return 0;
}

static int newest_time(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	uint64_t *newest = arg;

	(void)ticket;
	(void)index;
	if (s->t_mono_ns > *newest)
		*newest = s->t_mono_ns;
	return 0;
}

/* R7 over the whole header of rf, read (ring_header_damage()): with the
 * time of its newest record, unless a writer still holds it (a session it
 * opens shows in the table before its record). */
static void find_damage(struct ring_file *rf)
{
	struct ring_scan sc;
	uint64_t newest = 0;

	if (!rf->live && rf->hdr->session_slots)
		ring_scan(rf->hdr, rf->slots, &sc, NULL, newest_time, &newest);
	ring_header_damage(rf->hdr, newest, &rf->damage);
	rf->header_damaged = rf->damage.n > 0;
}

void ring_damage_text(const struct ring_damage *d, const char *offsets, char *buf, size_t len)
{
	size_t at = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < d->n && i < RING_DAMAGE_MAX && at < len; i++) {
		if (offsets)
			at += (size_t)snprintf(buf + at, len - at, "%s%s (%s %zu)", i ? "; " : "",
					       d->field[i].reason, offsets, d->field[i].offset);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "; " : "",
					       d->field[i].reason);
	}
	if (d->n > RING_DAMAGE_MAX && at < len)
		snprintf(buf + at, len - at, "; and %u more", (unsigned)(d->n - RING_DAMAGE_MAX));
}

/* Read the header, then the rest of the ring it describes (or all of a
 * blank file), into rf. Returns 0, or what ring_file_open() returns. */
static int read_ring(int fd, uint64_t file_size, struct ring_file *rf, struct ring_error *err)
{
	size_t head = file_size < LW_RING_HEADER_SIZE ? (size_t)file_size : LW_RING_HEADER_SIZE;
	enum ring_header_status st;
	unsigned char *nb;
	uint64_t total;
	int rc;

	rf->bytes = calloc(1, LW_RING_HEADER_SIZE);
	if (!rf->bytes)
		return sys_fail(err, ENOMEM);
	rc = read_part(fd, rf->bytes, 0, head, file_size, err);
	if (rc != 0)
		return rc;
	/* A header shorter than the struct is refused by R1 before any field
	 * beyond the magic is read. */
	st = ring_header_check(rf->bytes, (size_t)file_size, err);
	if (st == RING_HEADER_FOREIGN && ring_slots_for_size(file_size) && rf->bytes[0] == 0 &&
	    memcmp(rf->bytes, rf->bytes + 1, head - 1) == 0)
		total = file_size; /* a zero header: read it all to see if it is blank */
	else if (st != RING_HEADER_OK && st != RING_HEADER_FIELD)
		return (int)st;
	else
		total = ring_file_size((const struct lw_ring_header *)rf->bytes);
	if (total > head) {
		nb = realloc(rf->bytes, (size_t)total);
		if (!nb)
			return sys_fail(err, ENOMEM);
		rf->bytes = nb;
		rc = read_part(fd, rf->bytes, head, (size_t)total - head, total, err);
		if (rc != 0)
			return rc;
	}
	rf->size = (size_t)total;
	rf->hdr = (const struct lw_ring_header *)rf->bytes;
	if (st == RING_HEADER_FOREIGN) {
		if (!ring_is_blank(rf->bytes, rf->size))
			return (int)st; /* *err says why */
		rf->blank = 1;
		rf->blank_slots = ring_slots_for_size(rf->size);
		rf->slots = (const struct lw_ring_slot *)(rf->bytes + LW_RING_HEADER_SIZE);
		return 0;
	}
	rf->slots = (const struct lw_ring_slot *)(rf->bytes + rf->hdr->header_size);
	rc = rf->live ? mark_moved(fd, rf) : 0;
	if (rc < 0)
		return sys_fail(err, -rc);
	find_damage(rf);
	return 0;
}

int ring_file_open(const char *path, struct ring_file **out, struct ring_error *err)
{
	struct ev_error ierr;
	struct ring_file *rf;
	struct stat sb;
	int fd, rc;

	fd = input_open(path, &sb, &ierr);
	if (fd == -EINVAL)
		return format_fail(err, RING_HEADER_FOREIGN, 0, ierr.reason);
	if (fd < 0)
		return sys_fail(err, -fd);
	rf = calloc(1, sizeof(*rf));
	if (!rf || !(rf->path = strdup(path))) {
		free(rf);
		rc = sys_fail(err, ENOMEM);
		goto fail_close;
	}
	if (sb.st_size == 0) {
		/* An empty file: a blank ring with room for no slot (its
		 * zero header stands in for the one it lacks). */
		rf->bytes = calloc(1, LW_RING_HEADER_SIZE);
		if (!rf->bytes) {
			ring_file_free(rf);
			rc = sys_fail(err, ENOMEM);
			goto fail_close;
		}
		rf->hdr = (const struct lw_ring_header *)rf->bytes;
		rf->slots = (const struct lw_ring_slot *)(rf->bytes + LW_RING_HEADER_SIZE);
		rf->blank = 1;
		close(fd);
		*out = rf;
		return 0;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		rf->live = errno == EWOULDBLOCK;
	else
		flock(fd, LOCK_UN);
	rc = read_ring(fd, (uint64_t)sb.st_size, rf, err);
	if (rc != 0) {
		ring_file_free(rf);
		goto fail_close;
	}
	close(fd);
	*out = rf;
	return 0;

fail_close:
	close(fd);
	return rc;
}

void ring_file_free(struct ring_file *rf)
{
	if (!rf)
		return;
	free(rf->bytes);
	free(rf->path);
	free(rf);
}

enum ring_outcome ring_file_outcome(const struct ring_file *rf)
{
	if (rf->blank)
		return RING_OUTCOME_BLANK;
	if (rf->live)
		return RING_OUTCOME_LIVE;
	switch (rf->hdr->state) {
	case LW_STATE_CLEAN_EXIT:
		return RING_OUTCOME_CLEAN;
	case LW_STATE_CRASHED:
		return RING_OUTCOME_CRASHED;
	case LW_STATE_RUNNING:
		return RING_OUTCOME_DIED;
	default:
		return RING_OUTCOME_UNKNOWN;
	}
}

const char *ring_blank_text(uint32_t slots)
{
	if (!slots)
		return "empty file: never initialized (0 bytes: no header, no slot); an empty run, "
		       "with no process, pid or record";
	return "never initialized: the ring is all zero (the probe was stopped inside lw_open before "
	       "it wrote the header); an empty run, with no process, pid or record";
}

const char *ring_outcome_name(enum ring_outcome o)
{
	switch (o) {
	case RING_OUTCOME_LIVE:
		return "live";
	case RING_OUTCOME_CLEAN:
		return "clean";
	case RING_OUTCOME_CRASHED:
		return "crashed";
	case RING_OUTCOME_DIED:
		return "died";
	case RING_OUTCOME_BLANK:
		return "never_initialized";
	case RING_OUTCOME_NO_RING:
		return "no_ring";
	case RING_OUTCOME_UNKNOWN:
		break;
	}
	return "unknown";
}

void ring_facts_add(struct ring_facts *f, const struct lw_ring_slot *s)
{
	if (s->rss_kb > f->peak_rss_kb) {
		f->peak_rss_kb = s->rss_kb;
		f->peak = *s;
	}
	if (s->type == LW_EV_CRASH && !f->has_crash) {
		f->crash = *s;
		f->has_crash = 1;
	}
	f->last = *s;
}

struct walk {
	struct ring_facts *facts;
	ring_event_fn fn;
	void *arg;
};

static int walk_slot(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct walk *w = arg;

	ring_facts_add(w->facts, s);
	return w->fn ? w->fn(ticket, index, s, w->arg) : 0;
}

int ring_file_walk(const struct ring_file *rf, struct ring_facts *facts, ring_event_fn fn,
		   void *arg)
{
	struct walk w = { facts, fn, arg };

	memset(facts, 0, sizeof(*facts));
	if (rf->blank) {
		facts->scan.slot_count = rf->blank_slots;
		facts->scan.empty = rf->blank_slots;
		return 0;
	}
	return ring_scan(rf->hdr, rf->slots, &facts->scan, NULL, walk_slot, &w);
}

/* s[0, n) in the reverse order. */
static void reverse(struct lw_ring_slot *s, size_t n)
{
	struct lw_ring_slot t;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		t = s[i];
		s[i] = s[n - 1 - i];
		s[n - 1 - i] = t;
	}
}

int ring_file_take_records(struct ring_file *rf, struct lw_ring_slot **records, size_t *n,
			   struct ring_scan *scan)
{
	struct ring_facts facts;
	struct lw_ring_slot *out;
	uint64_t base;
	uint32_t count, first, i;
	size_t v = 0, wrapped = 0;
	uint8_t *cls;

	if (rf->blank) {
		ring_file_walk(rf, &facts, NULL, NULL);
		*scan = facts.scan;
		*records = NULL;
		*n = 0;
		return 0;
	}
	count = rf->hdr->slot_count;
	cls = malloc(count);
	if (!cls)
		return -ENOMEM;
	ring_scan(rf->hdr, rf->slots, scan, cls, NULL, NULL);
	/* The walk in ticket order starts at the slot of the oldest ticket of
	 * the window (ring_scan()) and wraps around the end. Move the valid
	 * slots to the front in slot order, then rotate those before that
	 * slot (the tickets after the wrap) behind the others. */
	base = scan->head > count ? scan->head - count : 0;
	first = (uint32_t)(base & (count - 1));
	out = (struct lw_ring_slot *)(void *)rf->bytes; /* over the header: rf is spent */
	for (i = 0; i < count; i++) {
		if (cls[i] != RING_SLOT_VALID)
			continue;
		wrapped += i < first;
		memmove(&out[v], &rf->slots[i], sizeof(*out));
		out[v++].crc = 0;
	}
	free(cls);
	reverse(out, wrapped);
	reverse(out + wrapped, v - wrapped);
	reverse(out, v);
	rf->bytes = NULL;
	rf->hdr = NULL;
	rf->slots = NULL;
	if (v == 0) {
		free(out);
		out = NULL;
	} else {
		/* Give back the memory of the slots left out. */
		struct lw_ring_slot *nv = realloc(out, v * sizeof(*out));

		if (nv)
			out = nv;
	}
	*records = out;
	*n = v;
	return 0;
}

/* One entry of the table, or the header's fields as session 0's. */
static void session_from(struct ring_session *out, uint32_t id, uint32_t state,
			 uint64_t candidate, const uint32_t *last_stage, const uint32_t *open_count,
			 uint64_t opened, uint32_t result, uint32_t opens)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->state = (enum lw_ring_session_state)state;
	out->candidate = candidate;
	out->open_stage = ring_open_stage_of(last_stage, open_count);
	memcpy(out->open_count, open_count, sizeof(out->open_count));
	out->opened_mono_ns = opened;
	out->result = (enum lw_error)result;
	out->opens = opens;
}

size_t ring_file_sessions(const struct ring_file *rf, struct ring_session *out, size_t max)
{
	size_t n, k = 0, i;

	if (rf->blank)
		return 0;
	n = ring_header_sessions(rf->hdr, out, max);
	/* none built on a damaged entry */
	for (i = 0; i < n; i++)
		if (rf->hdr->session_slots == 0 || !(rf->damage.sessions >> out[i].id & 1))
			out[k++] = out[i];
	return k;
}

size_t ring_header_sessions(const struct lw_ring_header *h, struct ring_session *out, size_t max)
{
	const struct lw_ring_session *e;
	size_t n = 0;
	uint32_t i;

	if (max == 0)
		return 0;
	if (h->session_slots == 0) {
		session_from(out, 0, LW_SESSION_OPEN, h->candidate, &h->last_stage, h->open_count,
			     h->start_mono_ns, 0, 1);
		return 1;
	}
	e = ring_sessions_c(h);
	for (i = 0; i < h->session_slots && n < max; i++, e++)
		if (e->state != LW_SESSION_NEVER)
			session_from(&out[n++], i, e->state, e->candidate, &e->last_stage,
				     e->open_count, e->opened_mono_ns, e->result, e->opens);
	return n;
}
