/*
 * SIGKILL at random moments while writers race on the ring.
 *
 * A forked child opens the probe and runs TORTURE_WRITERS threads that write
 * through the probe's own ring writer (ring_claim/ring_publish) as fast as
 * they can, every payload byte a function of the record's ticket, plus one
 * thread that calls the public lw_mark() with a counter. The parent kills it
 * after a random delay and reads what the dead run left behind:
 *   - no record that the reader accepts is wrong (payload == f(ticket), and
 *     the lw_mark records carry the marker and increase in ticket order);
 *   - no slot is corrupt;
 *   - every ticket of the window without a valid record is explained by a
 *     writer caught mid-write (its slot torn with that ticket, or still
 *     holding an earlier lap or nothing: killed between the fetch_add and
 *     taking the slot) or by a lap collision (the record was dropped because
 *     a writer a lap behind still held the slot), never by a later ticket;
 *   - at most one missing ticket per writing thread, plus one per lap
 *     collision counted in header.lapped (a dropped ticket stays missing
 *     until the next lap, after its stalled writer may have finished).
 * The ring has 1024 slots, so the writers lap it every few microseconds.
 * The delays come from a fixed seed, so a failure can be replayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "helpers.h"

#include "../probe/internal.h"
#include "../src/ring.h"

#define KILLS 240
#define SLOTS 1024u
#define TORTURE_WRITERS 2
#define WRITING_THREADS (TORTURE_WRITERS + 1) /* the lw_mark thread writes too */
#define TORTURE_TYPE 0xe7u                  /* outside the event vocabulary */
#define MARK_MAGIC 0x4c57u                  /* top 16 bits of a mark's value */
#define MAX_DELAY_US 4000u

static struct lw *g_lw;
static atomic_int g_started;

/* splitmix64: the payload of ticket t, and the test's random delays. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

/* Every byte of [8, 60) as a function of the ticket. */
static void payload_of(uint64_t t, struct lw_ring_slot *s)
{
	uint64_t x = mix64(t), y = mix64(x), z = mix64(y);

	memset(s, 0, sizeof(*s));
	s->t_mono_ns = x;
	s->type = TORTURE_TYPE;
	s->stage = (uint8_t)(y >> 8);
	s->code = (uint8_t)(y >> 16);
	s->flags = (uint8_t)(y >> 24);
	s->tid = (uint32_t)(y >> 32);
	s->rss_kb = (uint32_t)z;
	s->rss_age_ms = (uint32_t)(z >> 32);
	s->a = t;
	s->b = ~x;
	s->c = y ^ z;
	s->d = (uint32_t)(t * 2654435761u);
}

static void *writer_main(void *arg)
{
	struct lw_ring_slot rec, *slot;
	int first = 1;
	uint64_t t;

	(void)arg;
	for (;;) {
		if (ring_claim(&g_lw->w, &t, &slot) != 0)
			continue; /* lap collision: dropped, counted in header.lapped */
		payload_of(t, &rec); /* between claim and publish: a wider window */
		/* Now and then, stall mid-write so that the others lap this slot,
		 * as a preempted writer would. */
		if ((t & 255) == 0)
			sched_yield();
		ring_publish(slot, t, &rec);
		if (first) {
			atomic_fetch_add(&g_started, 1);
			first = 0;
		}
	}
	return NULL;
}

static void *marker_main(void *arg)
{
	uint64_t n = 0;

	(void)arg;
	for (;;) {
		int rc = lw_mark(g_lw, LW_MARK_QUEUE_DEPTH, (uint64_t)MARK_MAGIC << 48 | n);

		if (rc != 0 && rc != -EAGAIN) /* -EAGAIN: dropped in a lap collision */
			_exit(3);
		if (n++ == 0)
			atomic_fetch_add(&g_started, 1);
	}
	return NULL;
}

/* The child: open, start the writers, tell the parent the path, wait to die. */
static void run_child(const char *dir, int fd)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "torture",
		.slot_count = SLOTS,
		.runs_kept = 1,
	};
	struct lw_info info;
	pthread_t th;
	int i;

	if (lw_open(&cfg, &g_lw) != 0 || lw_info(g_lw, &info) != 0)
		_exit(2);
	for (i = 0; i < TORTURE_WRITERS; i++)
		if (pthread_create(&th, NULL, writer_main, NULL) != 0)
			_exit(2);
	if (pthread_create(&th, NULL, marker_main, NULL) != 0)
		_exit(2);
	/* Ready once every thread has written and the ring has lapped twice. */
	while (atomic_load(&g_started) < WRITING_THREADS ||
	       atomic_load_explicit(A64(&g_lw->hdr->head), memory_order_relaxed) < 2 * SLOTS)
		;
	if (write(fd, info.path, sizeof(info.path)) != (ssize_t)sizeof(info.path))
		_exit(2);
	for (;;)
		pause();
}

struct check {
	uint64_t records;   /* valid records checked */
	uint64_t marks;
	uint64_t last_mark; /* counter of the previous lw_mark record */
	uint32_t mark_tid;
	int have_mark;
};

/* Called for each valid record, in ticket order. */
static int check_record(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct check *ck = arg;
	struct lw_ring_slot want;

	ck->records++;
	if (t == 0) {
		T_ASSERT(s->type == LW_EV_OPEN, "ticket 0 has type %u", s->type);
		return 0;
	}
	if (s->type == LW_EV_MARK) {
		uint64_t n = s->a & ((UINT64_C(1) << 48) - 1);

		T_ASSERT(s->code == LW_MARK_QUEUE_DEPTH && s->a >> 48 == MARK_MAGIC,
			 "ticket %" PRIu64 ": mark code %u value 0x%" PRIx64, t, s->code, s->a);
		T_ASSERT(s->stage == LW_STAGE_NONE, "ticket %" PRIu64 ": stage %u", t, s->stage);
		if (ck->have_mark) {
			T_ASSERT(n > ck->last_mark, "ticket %" PRIu64 ": mark %" PRIu64
				 " after %" PRIu64, t, n, ck->last_mark);
			T_ASSERT(s->tid == ck->mark_tid, "ticket %" PRIu64 ": tid %u, marks had %u",
				 t, s->tid, ck->mark_tid);
		}
		T_ASSERT(s->tid != 0, "ticket %" PRIu64 ": mark without tid", t);
		ck->have_mark = 1;
		ck->last_mark = n;
		ck->mark_tid = s->tid;
		ck->marks++;
		return 0;
	}
	T_ASSERT(s->type == TORTURE_TYPE, "ticket %" PRIu64 " (slot %u): type %u", t, index,
		 s->type);
	payload_of(t, &want);
	T_ASSERT(memcmp((const unsigned char *)s + LW_SLOT_PAYLOAD_OFFSET,
			(const unsigned char *)&want + LW_SLOT_PAYLOAD_OFFSET,
			LW_SLOT_PAYLOAD_SIZE) == 0,
		 "ticket %" PRIu64 " (slot %u): accepted payload differs from f(ticket)", t, index);
	return 0;
}

struct totals {
	uint64_t records, marks, missing, torn, unclaimed, lapped;
	uint64_t over; /* kills with more missing tickets than writing threads */
};

/* Read the dead child's ring and apply every rule above. */
static void check_ring(const char *path, int iter, struct totals *tot)
{
	uint8_t cls[SLOTS];
	const struct lw_ring_header *h;
	const struct lw_ring_slot *slots;
	struct ring_error err;
	struct ring_scan sc;
	struct check ck;
	struct stat st;
	uint64_t t, base, missing = 0, torn = 0;
	void *map;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0, "kill %d: open %s: %s", iter, path, strerror(errno));
	T_ASSERT(fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap: %s", strerror(errno));
	close(fd);
	rc = (int)ring_header_check(map, (size_t)st.st_size, &err);
	T_ASSERT(rc == RING_HEADER_OK, "kill %d: header refused at %zu: %s", iter, err.offset,
		 err.reason);
	h = map;
	slots = (const struct lw_ring_slot *)((const unsigned char *)map + h->header_size);
	T_ASSERT(h->slot_count == SLOTS, "slot_count %u", h->slot_count);
	T_ASSERT(h->state == LW_STATE_RUNNING, "kill %d: state %u after SIGKILL", iter, h->state);

	memset(&ck, 0, sizeof(ck));
	rc = ring_scan(h, slots, &sc, cls, check_record, &ck);
	T_ASSERT(rc == 0, "scan stopped: %d", rc);
	T_ASSERT(sc.corrupt == 0, "kill %d: %" PRIu64 " corrupt slots", iter, sc.corrupt);
	T_ASSERT(sc.head > SLOTS, "kill %d: head %" PRIu64 ": the ring never lapped", iter,
		 sc.head);
	T_ASSERT(sc.valid == ck.records, "valid %" PRIu64 " != checked %" PRIu64, sc.valid,
		 ck.records);

	/*
	 * Every missing ticket of the window is explained by its writer caught
	 * mid-write (torn with that ticket; or killed between the fetch_add and
	 * taking the slot, which still holds an earlier lap or nothing), or by
	 * a lap collision (dropped; the slot holds the earlier lap's record or
	 * its stalled writer's odd seq). Never by a later ticket.
	 */
	base = sc.head - SLOTS;
	for (t = base; t < sc.head; t++) {
		uint32_t i = (uint32_t)(t & (SLOTS - 1));
		uint64_t seq = slots[i].seq, st_t;

		if (cls[i] == RING_SLOT_VALID)
			continue;
		missing++;
		if (seq == 0) {
			T_ASSERT(cls[i] == RING_SLOT_EMPTY, "kill %d: slot %u: seq 0, class %u",
				 iter, i, cls[i]);
			continue;
		}
		st_t = (seq - 1) / 2;
		T_ASSERT(st_t <= t, "kill %d: ticket %" PRIu64
			 " missing, slot %u holds later ticket %" PRIu64 " (seq %" PRIu64 ")",
			 iter, t, i, st_t, seq);
		T_ASSERT(st_t < t || (seq & 1u), "kill %d: ticket %" PRIu64
			 " missing although its slot %u was published", iter, t, i);
		if (st_t == t)
			torn++;
	}
	T_ASSERT(missing == sc.missing, "kill %d: counted %" PRIu64 " missing, scan says %" PRIu64,
		 iter, missing, sc.missing);
	/* One ticket in flight per writing thread at most; each extra missing
	 * ticket needs a lap collision, which header.lapped counts. */
	T_ASSERT(torn <= WRITING_THREADS, "kill %d: %" PRIu64 " slots torn with their own ticket",
		 iter, torn);
	T_ASSERT(missing <= WRITING_THREADS + h->lapped,
		 "kill %d: %" PRIu64 " missing tickets > %d writing threads + %" PRIu64
		 " lap collisions", iter, missing, WRITING_THREADS, h->lapped);
	T_ASSERT(sc.head_header >= sc.head, "kill %d: header head %" PRIu64 " < %" PRIu64, iter,
		 sc.head_header, sc.head);
	if (missing > WRITING_THREADS)
		tot->over++;
	tot->torn += torn;
	tot->records += ck.records;
	tot->marks += ck.marks;
	tot->missing += missing;
	tot->unclaimed += sc.head_header - sc.head;
	tot->lapped += h->lapped;
	munmap(map, (size_t)st.st_size);
}

int main(void)
{
	struct totals tot;
	char *dir = t_tmpdir("kill-torture");
	char path[sizeof(((struct lw_info *)0)->path)];
	uint64_t rng = 0x6c617374776f7264u; /* fixed seed: "lastword" */
	int iter;

	memset(&tot, 0, sizeof(tot));
	for (iter = 0; iter < KILLS; iter++) {
		struct timespec delay;
		int fds[2], status;
		ssize_t n;
		pid_t pid;
		uint64_t r;

		T_ASSERT(pipe(fds) == 0, "pipe: %s", strerror(errno));
		pid = fork();
		T_ASSERT(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			close(fds[0]);
			run_child(dir, fds[1]);
		}
		close(fds[1]);
		n = read(fds[0], path, sizeof(path));
		close(fds[0]);
		if (n != (ssize_t)sizeof(path)) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			T_FAILF("kill %d: child did not start (status 0x%x)", iter, status);
		}
		rng = mix64(rng);
		r = rng % MAX_DELAY_US;
		delay.tv_sec = 0;
		delay.tv_nsec = (long)r * 1000;
		while (nanosleep(&delay, &delay) != 0 && errno == EINTR)
			;
		T_ASSERT(kill(pid, SIGKILL) == 0, "kill: %s", strerror(errno));
		T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			 "kill %d: child status 0x%x, expected death by SIGKILL", iter, status);
		check_ring(path, iter, &tot);
		T_ASSERT(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
	}
	printf("kills %d, records checked %" PRIu64 " (%" PRIu64 " lw_mark), missing seen %"
	       PRIu64 " (%" PRIu64 " torn with their ticket), claimed past head %" PRIu64
	       ", lap collisions %" PRIu64 " (%" PRIu64 " kills with more missing than threads)\n",
	       KILLS, tot.records, tot.marks, tot.missing, tot.torn, tot.unclaimed, tot.lapped,
	       tot.over);
	t_rmdir(dir);
	return T_PASS;
}
