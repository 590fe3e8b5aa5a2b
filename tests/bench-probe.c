/*
 * bench-probe: what one probe event costs, against the floor measured in the
 * same run, and how fast a reader checks a 1M-slot ring.
 *
 * The floor is what any crash-safe mmap ring must do per event: one
 * CLOCK_MONOTONIC read, a fetch_add on the shared head, a 64-byte store of a
 * prepared slot into a MAP_SHARED file, and a release store of the seq word
 * (research/ring-anchors.md, "4. Numbers"). Rows are the floor, its parts,
 * the ring protocol and the probe's event functions, on 1 and 2 threads.
 *
 * Method, for a machine that other work shares: repetitions are short (~1 ms)
 * and run in rounds, one per row, so that each row is timed beside its floor.
 * A repetition is clean when no thread was preempted (RUSAGE_THREAD
 * ru_nivcsw) and the threads ran side by side; a row reports the median of
 * its clean repetitions, and its ratio to the floor is the median of the
 * per-round ratios. When too few are clean, all count and the row says so.
 *
 * This program prints figures and compares them; it never asserts on time.
 * It exits 0 unless something functionally fails (a probe call refuses, or
 * a ring does not hold the events written), 1 then, and 77 when the probe
 * cannot map a file.
 *
 * usage: bench-probe [LASTWORDS]
 *   LASTWORDS: the analyzer binary; when given, `LASTWORDS verify FILE` is
 *   timed on the 1M-slot ring as a subprocess.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lastwords/probe.h>
#include <lastwords/ring.h>

#include "helpers.h"
#include "../probe/internal.h"
#include "../src/cpu.h"
#include "../src/crc32c.h"
#include "../src/ring.h"
#include "../src/ring_write.h"

extern char **environ;

#define REPS 21                   /* clean repetitions wanted per row; the median is reported */
#define MAX_ROUNDS 250            /* repetitions timed per row at most */
#define MIN_CLEAN 5               /* fewer clean than this: report all repetitions */
#define WRITE_ITERS (1u << 14)    /* events per thread per repetition, fast rows (~1 ms) */
#define STATM_ITERS (1u << 10)    /* events per thread per repetition, statm rows (~1 ms) */
#define WRITE_SLOTS LW_DEFAULT_SLOTS
#define SAMPLER_MS 20u            /* as in the demo */
#define READER_SLOTS (1u << 20)   /* 64 MiB of slots */
#define READER_FILL (READER_SLOTS + READER_SLOTS / 4) /* laps the ring */
#define SCAN_REPS 7
#define SCAN_SW_REPS 3
#define VERIFY_REPS 5             /* clean runs wanted; at most 3x as many are tried */
#define TARGET_RATIO 1.5
#define TARGET_SAMPLED 1.3        /* issue 22: a stage event with the memory sampling on */
#define COST_REPS 21              /* repetitions of each sampling cost; the median is reported */
#define TARGET_VERIFY_S 0.3
#define MAX_THREADS 2

static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Everything a workload touches. */
struct bench {
	struct lw_ring_header *fhdr;  /* the floor's ring: a MAP_SHARED file */
	struct ring_writer fw;        /* the same ring, for ring_write() */
	struct lw *lw;                /* the probe, when a session is open */
	atomic_ulong lw_events;       /* probe calls this session */
	atomic_ulong drops;           /* of which dropped in a lap collision (-EAGAIN) */
	atomic_ulong errors;          /* of which failed otherwise */
};

typedef void (*work_fn)(struct bench *b, uint64_t n);

/* A slot as the event path would prepare it. */
static void slot_template(struct lw_ring_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->type = LW_EV_MARK;
	s->code = LW_MARK_QUEUE_DEPTH;
	s->tid = (uint32_t)getpid();
	s->rss_kb = 123456;
}

/* clock_gettime alone: the part of the floor that is not the ring. */
static void w_clock(struct bench *b, uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t i;

	(void)b;
	for (i = 0; i < n; i++)
		sink += clock_ns();
	(void)sink;
}

/* The floor: clock + fetch_add(head) + 64-byte slot store + release seq store.
 * With crc, the slot CRC32C (crc32c_slot, the path lw_open selects) too. */
static inline void floor_loop(struct bench *b, uint64_t n, int crc)
{
	struct lw_ring_slot *slots = b->fw.slots;
	const uint32_t mask = b->fw.mask;
	struct lw_ring_slot src;
	uint64_t i;

	slot_template(&src);
	for (i = 0; i < n; i++) {
		uint64_t now = clock_ns();
		uint64_t t = atomic_fetch_add_explicit(A64(&b->fhdr->head), 1,
						       memory_order_relaxed);
		struct lw_ring_slot *s = &slots[t & mask];

		src.t_mono_ns = now;
		src.a = i;
		memcpy((unsigned char *)s + 8, (const unsigned char *)&src + 8, 56);
		/* After the copy, as ring_publish() does, so the copy need not
		 * wait for the checksum. */
		if (crc)
			s->crc = crc32c_slot(t, (const unsigned char *)&src +
						       LW_SLOT_PAYLOAD_OFFSET);
		atomic_store_explicit(A64(&s->seq), 2 * t + 2, memory_order_release);
	}
}

static void w_floor(struct bench *b, uint64_t n)
{
	floor_loop(b, n, 0);
}

static void w_floor_crc(struct bench *b, uint64_t n)
{
	floor_loop(b, n, 1);
}

/* The probe's own write protocol (src/ring_write.h: ring_claim() marks the
 * slot odd, then ring_publish() copies, checksums and publishes) with a clock
 * read and a prepared slot: the floor plus what the protocol adds. */
static void w_ring_write(struct bench *b, uint64_t n)
{
	struct lw_ring_slot src;
	uint64_t i;

	slot_template(&src);
	for (i = 0; i < n; i++) {
		src.t_mono_ns = clock_ns();
		src.a = i;
		ring_write(&b->fw, &src);
	}
}

/* Account for a probe call's result: 0, or -EAGAIN when the record was
 * dropped in a lap collision (a writer preempted for a whole lap); anything
 * else is a failure. */
static void tally(struct bench *b, uint64_t n, uint64_t drops, uint64_t errors)
{
	atomic_fetch_add(&b->lw_events, n);
	if (drops)
		atomic_fetch_add(&b->drops, drops);
	if (errors)
		atomic_fetch_add(&b->errors, errors);
}

/* The real API: one stage event per call, begin and end alternating. */
static void w_stage(struct bench *b, uint64_t n)
{
	uint64_t i, drops = 0, errors = 0;
	int rc;

	for (i = 0; i < n; i++) {
		rc = i & 1 ? lw_stage_end(b->lw, LW_STAGE_INFERENCE, LW_ERR_NONE)
			   : lw_stage_begin(b->lw, LW_STAGE_INFERENCE);
		if (rc != 0) {
			drops += rc == -EAGAIN;
			errors += rc != -EAGAIN;
		}
	}
	tally(b, n, drops, errors);
}

/* The same in model session 1 (opened with the probe): the session's
 * entry and the process's counts, the session and its candidate in the
 * record. */
static void w_session_stage(struct bench *b, uint64_t n)
{
	uint64_t i, drops = 0, errors = 0;
	int rc;

	for (i = 0; i < n; i++) {
		rc = i & 1 ? lw_session_stage_end(b->lw, 1, LW_STAGE_INFERENCE, LW_ERR_NONE)
			   : lw_session_stage_begin(b->lw, 1, LW_STAGE_INFERENCE);
		if (rc != 0) {
			drops += rc == -EAGAIN;
			errors += rc != -EAGAIN;
		}
	}
	tally(b, n, drops, errors);
}

static void w_mark(struct bench *b, uint64_t n)
{
	uint64_t i, drops = 0, errors = 0;
	int rc;

	for (i = 0; i < n; i++) {
		rc = lw_mark(b->lw, LW_MARK_QUEUE_DEPTH, i);
		if (rc != 0) {
			drops += rc == -EAGAIN;
			errors += rc != -EAGAIN;
		}
	}
	tally(b, n, drops, errors);
}

/* The main process's call when its :inference process dies: a mark, and
 * the digest of the process name. */
static void w_peer_died(struct bench *b, uint64_t n)
{
	uint64_t i, drops = 0, errors = 0;
	int rc;

	for (i = 0; i < n; i++) {
		rc = lw_peer_died(b->lw, 4242, "com.example.app:inference");
		if (rc != 0) {
			drops += rc == -EAGAIN;
			errors += rc != -EAGAIN;
		}
	}
	tally(b, n, drops, errors);
}

/* One row of the table: one workload at one thread count. Repetitions are
 * indexed by round, so that a row can be compared with the floor measured
 * next to it in the same round. */
struct row {
	const char *name;
	work_fn fn;
	int threads;
	uint32_t iters;            /* events per thread per repetition */
	int target;                /* the 1.5x target applies */
	double ns[MAX_ROUNDS];     /* per call as each thread sees it */
	double mevs[MAX_ROUNDS];   /* events/s over all threads, millions */
	unsigned char ok[MAX_ROUNDS]; /* clean: no preemption, threads side by side */
	int rounds, clean;         /* repetitions timed, and clean among them */
	int runs;                  /* times the row ran, warm-up included */
};

/* Involuntary context switches of the calling thread so far. A repetition
 * during which a thread was preempted timed another process too. */
static long preemptions(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return ru.ru_nivcsw;
}

/* Where the threads of a repetition meet: a sleeping barrier once all are
 * warm, then a short spin so that they start while all are on a CPU. */
struct start_line {
	pthread_barrier_t barrier;
	atomic_int ready;
	int threads;
};

struct worker {
	struct bench *b;
	work_fn fn;
	uint64_t n;
	struct start_line *start;
	uint64_t t0, elapsed;
	long preempted;
};

static void time_work(struct worker *w)
{
	long p0;

	w->fn(w->b, w->n / 32); /* warm this thread's caches, TLS and cache lines */
	if (w->start) {
		uint64_t give_up;
		unsigned spins = 0;

		pthread_barrier_wait(&w->start->barrier);
		atomic_fetch_add(&w->start->ready, 1);
		give_up = clock_ns() + 5000000u;
		while (atomic_load(&w->start->ready) < w->start->threads)
			if (++spins % 1024 == 0 && clock_ns() > give_up)
				break; /* another thread got no CPU: the overlap check drops this */
	}
	p0 = preemptions();
	w->t0 = clock_ns();
	w->fn(w->b, w->n);
	w->elapsed = clock_ns() - w->t0;
	w->preempted = preemptions() - p0;
}

static void *worker_main(void *arg)
{
	time_work(arg);
	return NULL;
}

/* Run one repetition of a row. It is clean when no thread was preempted and
 * the threads ran side by side for 90% of the time: on a busy machine a
 * thread may wait for a CPU while the others run alone. */
static void run_row(struct bench *b, struct row *r, int record)
{
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct start_line start;
	uint64_t longest = 0, first_end = UINT64_MAX, last_start = 0;
	long preempted = 0;
	double sum = 0;
	int i, rc, k;

	r->runs++;
	if (r->threads == 1) {
		w[0] = (struct worker){ b, r->fn, r->iters, NULL, 0, 0, 0 };
		time_work(&w[0]);
	} else {
		pthread_barrier_init(&start.barrier, NULL, (unsigned)r->threads);
		atomic_init(&start.ready, 0);
		start.threads = r->threads;
		for (i = 0; i < r->threads; i++) {
			w[i] = (struct worker){ b, r->fn, r->iters, &start, 0, 0, 0 };
			rc = pthread_create(&tid[i], NULL, worker_main, &w[i]);
			if (rc != 0)
				T_FAILF("pthread_create: %s", strerror(rc));
		}
		for (i = 0; i < r->threads; i++)
			pthread_join(tid[i], NULL);
		pthread_barrier_destroy(&start.barrier);
	}
	for (i = 0; i < r->threads; i++) {
		sum += (double)w[i].elapsed / (double)r->iters;
		preempted += w[i].preempted;
		if (w[i].elapsed > longest)
			longest = w[i].elapsed;
		if (w[i].t0 > last_start)
			last_start = w[i].t0;
		if (w[i].t0 + w[i].elapsed < first_end)
			first_end = w[i].t0 + w[i].elapsed;
	}
	if (!record)
		return;
	k = r->rounds++;
	r->ns[k] = sum / r->threads;
	r->mevs[k] = (double)r->iters * r->threads / ((double)longest / 1e3);
	r->ok[k] = !preempted && first_end >= last_start &&
		   (first_end - last_start) * 10 >= longest * 9;
	r->clean += r->ok[k];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	if (n <= 0)
		return 0;
	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, int n)
{
	double m = v[0];
	int i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static double maximum(const double *v, int n)
{
	double m = v[0];
	int i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* The samples a row reports into out: its clean repetitions, or all of
 * them when fewer than MIN_CLEAN were clean (returns 1 then). */
static int row_samples(const struct row *r, const double *from, double *out, int *n)
{
	int k, busy = r->clean < MIN_CLEAN;

	*n = 0;
	for (k = 0; k < r->rounds; k++)
		if (busy || r->ok[k])
			out[(*n)++] = from[k];
	return busy;
}

/* The median over rounds of row / floor, each pair measured next to each
 * other; over the rounds where both were clean, or all rounds when fewer
 * than MIN_CLEAN were (returns 1 then). */
static int paired_ratio(const struct row *r, const struct row *f, double *ratio)
{
	double v[MAX_ROUNDS];
	int k, n = 0, busy = 0;

	for (k = 0; k < r->rounds && k < f->rounds; k++)
		if (r->ok[k] && f->ok[k])
			v[n++] = r->ns[k] / f->ns[k];
	if (n < MIN_CLEAN) {
		busy = 1;
		for (n = 0, k = 0; k < r->rounds && k < f->rounds; k++)
			v[n++] = r->ns[k] / f->ns[k];
	}
	*ratio = median(v, n);
	return busy;
}

/* A warm-up pass, then rounds over all rows in their order until each row
 * has REPS clean repetitions or MAX_ROUNDS rounds were timed. */
static void measure(struct bench *b, struct row *rows, int nrows)
{
	int round, i, done = 0;

	for (i = 0; i < nrows; i++)
		run_row(b, &rows[i], 0);
	for (round = 0; round < MAX_ROUNDS && !done; round++) {
		done = 1;
		for (i = 0; i < nrows; i++) {
			run_row(b, &rows[i], 1);
			done &= rows[i].clean >= REPS;
		}
	}
}

static void print_header(void)
{
	printf("  %-46s %2s %8s %15s %6s %10s %7s\n",
	       "write path, ns per event per calling thread", "th", "median", "min-max", "Mev/s",
	       "clean/all", "x floor");
}

/* Print rows; floors[t - 1] is the floor measured beside them at t threads. */
static void print_rows(const struct row *rows, int nrows, const struct row *floors)
{
	double v[MAX_ROUNDS], ratio, med;
	int i, n, busy, busy_ratio;

	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		busy = row_samples(r, r->ns, v, &n);
		med = median(v, n);
		printf("  %-46s %2d %8.1f %7.1f-%-7.1f", r->name, r->threads, med, minimum(v, n),
		       maximum(v, n));
		row_samples(r, r->mevs, v, &n);
		if (busy)
			printf(" %6s", "-");
		else
			printf(" %6.1f", median(v, n));
		busy_ratio = paired_ratio(r, &floors[r->threads - 1], &ratio);
		printf(" %6d/%-3d %6.2fx", r->clean, r->rounds, ratio);
		if (r->target)
			printf("  target %.1fx: %s", TARGET_RATIO,
			       ratio <= TARGET_RATIO ? "met" : "not met");
		if (busy || busy_ratio)
			printf("  (machine busy: over all repetitions)");
		putchar('\n');
	}
}

/* A MAP_SHARED file ring for the floor, prefaulted like the probe's. */
static void floor_open(struct bench *b, const char *dir, void **map, size_t *size)
{
	struct ring_header_params hp;
	uint8_t run_id[16] = { 0 };
	char path[512];
	size_t off;
	int fd;

	*size = LW_RING_HEADER_SIZE + (size_t)WRITE_SLOTS * LW_RING_SLOT_SIZE;
	snprintf(path, sizeof(path), "%s/floor.lwr", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		T_FAILF("open '%s': %s", path, strerror(errno));
	if (posix_fallocate(fd, 0, (off_t)*size) != 0 && ftruncate(fd, (off_t)*size) != 0)
		T_FAILF("ftruncate '%s': %s", path, strerror(errno));
	*map = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (*map == MAP_FAILED)
		T_FAILF("mmap '%s': %s", path, strerror(errno));
	for (off = 0; off < *size; off += 4096)
		((volatile unsigned char *)*map)[off] = 0;
	memset(&hp, 0, sizeof(hp));
	hp.slot_count = WRITE_SLOTS;
	hp.pid = (uint32_t)getpid();
	hp.run_id = run_id;
	hp.process = "bench.floor";
	b->fhdr = *map;
	ring_header_init(b->fhdr, &hp);
	b->fw.hdr = b->fhdr;
	b->fw.slots = (struct lw_ring_slot *)((unsigned char *)*map + LW_RING_HEADER_SIZE);
	b->fw.mask = WRITE_SLOTS - 1;
}

/* A ring file mapped read-only, its header checked. */
struct mapped {
	void *map;
	size_t size;
	const struct lw_ring_header *h;
	const struct lw_ring_slot *slots;
};

static void map_ring(const char *path, struct mapped *m)
{
	struct ring_error err;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		T_FAILF("open '%s': %s", path, strerror(errno));
	m->size = (size_t)st.st_size;
	m->map = mmap(NULL, m->size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (m->map == MAP_FAILED)
		T_FAILF("mmap '%s': %s", path, strerror(errno));
	if (ring_header_check(m->map, m->size, &err) != RING_HEADER_OK)
		T_FAILF("'%s': offset %zu: %s", path, err.offset, err.reason);
	m->h = m->map;
	m->slots = (const struct lw_ring_slot *)((const unsigned char *)m->map +
						 m->h->header_size);
}

struct last_rec {
	uint64_t ticket;
	uint8_t type;
};

static int note_last(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct last_rec *l = arg;

	(void)index;
	l->ticket = ticket;
	l->type = s->type;
	return 0;
}

/* After a write session: every slot holds a published record, none torn or
 * corrupt, the head counts at least the events written, the newest record
 * is the close. A record dropped in a lap collision (header.lapped counts
 * them) leaves the slot's older record, which reads as stale. */
static void check_session_ring(const char *what, const char *path, uint64_t written,
			       int want_close)
{
	struct last_rec last = { 0, 0 };
	struct ring_scan sc;
	struct mapped m;

	map_ring(path, &m);
	ring_scan(m.h, m.slots, &sc, NULL, note_last, &last);
	if (sc.corrupt || sc.torn || sc.empty || sc.valid + sc.stale != sc.slot_count ||
	    sc.head < written || (want_close && last.type != LW_EV_CLOSE))
		T_FAILF("%s ring does not hold the events written: head %llu (wrote %llu), "
			"valid %llu stale %llu torn %llu corrupt %llu empty %llu, newest type %u",
			what, (unsigned long long)sc.head, (unsigned long long)written,
			(unsigned long long)sc.valid, (unsigned long long)sc.stale,
			(unsigned long long)sc.torn, (unsigned long long)sc.corrupt,
			(unsigned long long)sc.empty, (unsigned)last.type);
	printf("  %s ring: head %llu, %llu valid, %llu stale, 0 torn, 0 corrupt, lapped %llu\n",
	       what, (unsigned long long)sc.head, (unsigned long long)sc.valid,
	       (unsigned long long)sc.stale, (unsigned long long)m.h->lapped);
	munmap(m.map, m.size);
}

static struct lw *probe_open(const char *dir, const char *name, uint32_t slots,
			     uint32_t sampler_ms, char *path, size_t path_len)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = name,
		.slot_count = slots,
		.app_version = 1,
		.sampler_period_ms = sampler_ms,
	};
	struct lw_info info;
	struct lw *lw;
	int rc;

	rc = lw_open(&cfg, &lw);
	if (rc == LW_OPEN_ANONYMOUS) {
		lw_info(lw, &info);
		fprintf(stderr, "skip: the probe could not map a file in '%s': %s\n", dir,
			strerror(-info.fallback_error));
		lw_close(lw);
		exit(T_SKIP);
	}
	if (rc != 0)
		T_FAILF("lw_open: %s", strerror(-rc));
	if (lw_info(lw, &info) != 0)
		T_FAILF("lw_info failed");
	/* Model session 1, for the lw_session_stage rows: a model loaded beside session 0. */
	if (lw_session_open(lw, 1, "bench-model") != 0)
		T_FAILF("lw_session_open failed");
	snprintf(path, path_len, "%s", info.path);
	return lw;
}

/* The 1M-slot ring's contents, checked record by record. */
struct reader_check {
	uint64_t marks;
	uint64_t next_value;
	int out_of_order;
	uint8_t last_type;
};

static int check_record(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct reader_check *c = arg;

	(void)ticket;
	(void)index;
	c->last_type = s->type;
	if (s->type != LW_EV_MARK)
		return 0;
	if (c->marks && s->a != c->next_value)
		c->out_of_order = 1;
	c->next_value = s->a + 1;
	c->marks++;
	return 0;
}

/* Samples of a reader timing, with the disturbed ones set apart. */
struct timing {
	double clean[MAX_ROUNDS];  /* wall seconds, undisturbed runs */
	double all[MAX_ROUNDS];    /* wall seconds, every run */
	double cpu[MAX_ROUNDS];    /* user + system seconds, every run */
	int nclean, nall;
};

static void timing_add(struct timing *t, double wall, double cpu, long disturbed)
{
	t->all[t->nall] = wall;
	t->cpu[t->nall++] = cpu;
	if (!disturbed)
		t->clean[t->nclean++] = wall;
}

/* The figure to report: the median of the undisturbed runs when at least
 * half were; otherwise the fastest run, the least disturbed (*busy is set). */
static double timing_figure(const struct timing *t, int *busy)
{
	*busy = t->nclean * 2 < t->nall;
	return *busy ? minimum(t->all, t->nall) : median(t->clean, t->nclean);
}

static void time_scans(const struct mapped *m, struct timing *t, int want)
{
	struct ring_scan sc;
	uint64_t t0;
	long p0;
	int tries;

	memset(t, 0, sizeof(*t));
	for (tries = 0; tries < 3 * want && t->nclean < want; tries++) {
		p0 = preemptions();
		t0 = clock_ns();
		ring_scan(m->h, m->slots, &sc, NULL, NULL, NULL);
		timing_add(t, (double)(clock_ns() - t0) / 1e9, 0, preemptions() - p0);
	}
}

/* Run `exe verify path` once with its output in out_path and add its times
 * to t; returns its exit status, or -1 if it could not start. */
static int run_verify(const char *exe, const char *path, const char *out_path, struct timing *t)
{
	char *argv[] = { (char *)exe, "verify", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	uint64_t t0;
	double wall, cpu;
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	t0 = clock_ns();
	rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "warning: cannot run '%s': %s\n", exe, strerror(rc));
		return -1;
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	wall = (double)(clock_ns() - t0) / 1e9;
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	/* Clean: on a CPU for 95% of its wall time. A run this long is nearly
	 * always switched out briefly, so ru_nivcsw would reject every one. */
	if (t)
		timing_add(t, wall, cpu, cpu < 0.95 * wall);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static void print_timing(const char *name, const struct timing *t, double mb, int with_cpu)
{
	int busy;
	double s = timing_figure(t, &busy);

	printf("  %-46s %8.4f %8.0f %9.1f %6d/%-3d", name, s, mb / s, READER_SLOTS / s / 1e6,
	       t->nclean, t->nall);
	if (busy)
		printf("  fastest run; median %.4f", median(t->all, t->nall));
	if (with_cpu)
		printf("  cpu %.4f", median(t->cpu, t->nall));
	putchar('\n');
}

static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f)) {
		n = strlen(buf);
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
	}
	fclose(f);
}

/* One sampling cost: the median over COST_REPS repetitions of iters calls,
 * in ns per call, and whether the call worked. */
enum cost_kind { COST_STATM, COST_STATUS, COST_DMABUF, COST_PSI };

static int cost_call(struct lw *lw, enum cost_kind k)
{
	struct memory_statm st;
	struct memory_composition c;
	struct memory_dmabuf d;
	struct memory_psi p;

	switch (k) {
	case COST_STATM:
		return memory_statm_sigsafe(lw, &st);
	case COST_STATUS:
		memory_composition_sigsafe(lw, NULL, &c);
		return c.source == LW_MEMORY_SOURCE_STATUS ? 0 : -ENOENT;
	case COST_DMABUF:
		return memory_dmabuf_scan(lw, &d);
	case COST_PSI:
		return memory_psi_read(lw, &p);
	}
	return -EINVAL;
}

static double cost_ns(struct lw *lw, enum cost_kind k, unsigned iters, int *rc)
{
	double v[COST_REPS];
	unsigned i;
	int r;

	*rc = cost_call(lw, k); /* warm */
	for (r = 0; r < COST_REPS; r++) {
		uint64_t t0 = clock_ns();

		for (i = 0; i < iters; i++)
			cost_call(lw, k);
		v[r] = (double)(clock_ns() - t0) / iters;
	}
	return median(v, COST_REPS);
}

/* What each of the probe's memory readings costs, on the calling thread
 * (liblastwords(3), MEMORY): a probe whose sampler made its first pass and
 * sleeps, so that the readings here do not share its descriptors' offsets. */
static void sampling_costs(const char *dir)
{
	static const struct {
		enum cost_kind k;
		const char *name, *when;
		unsigned iters;
	} costs[] = {
		{ COST_STATM, "statm sample (pread + parse)", "stage events without sampler; "
		  "sampler each period", 512 },
		{ COST_STATUS, "composition sample (status pread + parse)", "lw_memory_sample; "
		  "sampler each period", 256 },
		{ COST_PSI, "PSI read (/proc/pressure/memory)", "sampler each period", 512 },
		{ COST_DMABUF, "dma-buf scan (every descriptor)", "sampler at most 1/s", 32 },
	};
	char path[512];
	struct lw *lw;
	size_t i;
	int rc, fds = 0;
	DIR *d;

	lw = probe_open(dir, "bench.costs", WRITE_SLOTS, 60000, path, sizeof(path));
	sleep_ms(50);
	d = opendir("/proc/self/fd");
	while (d && readdir(d))
		fds++;
	if (d)
		closedir(d);
	printf("\nmemory readings, ns per call on one thread (median of %d repetitions):\n",
	       COST_REPS);
	for (i = 0; i < sizeof(costs) / sizeof(costs[0]); i++) {
		double ns = cost_ns(lw, costs[i].k, costs[i].iters, &rc);

		printf("  %-46s %9.0f  %s%s\n", costs[i].name, ns, costs[i].when,
		       rc == 0 ? "" : t_fmt(" (fails here: %s)", strerror(-rc)));
	}
	printf("  (the dma-buf scan read %d descriptors' links)\n", fds - 2);
	lw_close(lw);
	unlink(path);
}

static void reader_bench(const char *dir, const char *lastwords)
{
	struct timing scan, scan_sw, ver;
	struct reader_check chk = { 0, 0, 0, 0 };
	const double mb = (double)(LW_RING_HEADER_SIZE + (uint64_t)READER_SLOTS * 64) / 1e6;
	char path[512], out_path[600], line[200];
	struct ring_scan sc;
	struct mapped m;
	struct lw *lw;
	double fill, s;
	uint64_t t0, i;
	int bad = 0, hw, rc, status = 0, busy;

	lw = probe_open(dir, "bench.reader", READER_SLOTS, 0, path, sizeof(path));
	t0 = clock_ns();
	for (i = 0; i < READER_FILL; i++)
		bad |= lw_mark(lw, LW_MARK_QUEUE_DEPTH, i);
	fill = (double)(clock_ns() - t0) / 1e9;
	lw_close(lw);
	if (bad)
		T_FAILF("lw_mark refused an event while filling the reader ring");

	map_ring(path, &m);
	ring_scan(m.h, m.slots, &sc, NULL, check_record, &chk);
	if (sc.valid != READER_SLOTS || sc.missing || sc.torn || sc.stale || sc.corrupt ||
	    sc.head != sc.head_header || sc.head < READER_FILL ||
	    chk.marks != READER_SLOTS - 1u || chk.out_of_order ||
	    chk.next_value != READER_FILL || chk.last_type != LW_EV_CLOSE)
		T_FAILF("1M-slot ring does not hold the events written: valid %llu missing %llu "
			"torn %llu stale %llu corrupt %llu head %llu/%llu, %llu marks ending at "
			"%llu (wrote %u)%s",
			(unsigned long long)sc.valid, (unsigned long long)sc.missing,
			(unsigned long long)sc.torn, (unsigned long long)sc.stale,
			(unsigned long long)sc.corrupt, (unsigned long long)sc.head,
			(unsigned long long)sc.head_header, (unsigned long long)chk.marks,
			(unsigned long long)chk.next_value, READER_FILL,
			chk.out_of_order ? ", out of order" : "");

	hw = cpu_crc32c_setup();
	time_scans(&m, &scan, SCAN_REPS);
	crc32c_use_hw(0);
	time_scans(&m, &scan_sw, SCAN_SW_REPS);
	cpu_crc32c_setup();
	munmap(m.map, m.size);

	printf("\nreader: %u slots (%.1f MB file), filled by %u lw_mark calls in %.3f s "
	       "(lapped once), then closed; page cache warm\n",
	       READER_SLOTS, mb, READER_FILL, fill);
	printf("  ring_scan found %llu valid slots, 0 missing, torn, stale or corrupt; the "
	       "newest is the close record\n", (unsigned long long)sc.valid);
	printf("  %-46s %8s %8s %9s %10s\n", "reader, seconds per 1M-slot ring (MB = 10^6 B)",
	       "seconds", "MB/s", "Mslots/s", "clean/all");
	print_timing(hw ? "ring_scan in process, hardware CRC32C"
			: "ring_scan in process (no hardware CRC32C)", &scan, mb, 0);
	print_timing("ring_scan in process, software CRC32C", &scan_sw, mb, 0);

	if (!lastwords) {
		printf("  lastwords verify: not measured (no analyzer path given)\n");
		return;
	}
	snprintf(out_path, sizeof(out_path), "%s/verify.out", dir);
	memset(&ver, 0, sizeof(ver));
	rc = run_verify(lastwords, path, out_path, NULL); /* warm-up: the binary's pages */
	while (rc == 0 && status == 0 && ver.nall < 3 * VERIFY_REPS && ver.nclean < VERIFY_REPS)
		status = run_verify(lastwords, path, out_path, &ver);
	first_line(out_path, line, sizeof(line));
	if (rc != 0 || status != 0) {
		printf("  lastwords verify: exited %d, not timed (first line: \"%s\")\n"
		       "  target verify of a 1M-slot ring < %.1f s: not measured\n",
		       rc != 0 ? rc : status, line, TARGET_VERIFY_S);
		return;
	}
	print_timing("lastwords verify FILE (subprocess, exit 0)", &ver, mb, 1);
	printf("  verify printed: \"%s\"\n", line);
	s = timing_figure(&ver, &busy);
	printf("  target verify of a 1M-slot ring < %.1f s: %s (%.3f s, %s)\n", TARGET_VERIFY_S,
	       s < TARGET_VERIFY_S ? "met" : "not met", s,
	       busy ? "the fastest run: most runs were disturbed"
		    : "median of the undisturbed runs");
	/* A diagnosis, not a verdict: verify is one ring_scan plus start-up. */
	if (hw && s > 3 * timing_figure(&scan, &busy) &&
	    s > 0.7 * timing_figure(&scan_sw, &busy))
		printf("  note: verify runs at the speed of the software-CRC scan, not the "
		       "hardware one (%.3f s):\n  the analyzer may not select the hardware path "
		       "(cpu_crc32c_setup() in src/cpu.h)\n", timing_figure(&scan, &busy));
}

#define ROW(label, work, nthreads, n, is_target)                                   \
	{ .name = (label), .fn = (work), .threads = (nthreads), .iters = (n),     \
	  .target = (is_target) }

#define FLOOR_NAME "floor: clock+fetch_add+64B store+release"
#define STAGE_NAME "lw_stage_begin/end, sampler thread"
#define SESSION_NAME "lw_session_stage_begin/end, sampler thread"
#define STATM_NAME "lw_stage_begin/end, no sampler (pread statm)"

/* Session 1, in the order measured: the 1-thread rows, then the 2-thread
 * ones; each group starts with its floor. */
static struct row rows[] = {
	ROW(FLOOR_NAME, w_floor, 1, WRITE_ITERS, 0),
	ROW("clock_gettime(CLOCK_MONOTONIC) alone", w_clock, 1, WRITE_ITERS, 0),
	ROW("floor + crc32c_slot", w_floor_crc, 1, WRITE_ITERS, 0),
	ROW("clock + ring_write() (src/ring_write.h)", w_ring_write, 1, WRITE_ITERS, 0),
	ROW(STAGE_NAME, w_stage, 1, WRITE_ITERS, 1),
	ROW(SESSION_NAME, w_session_stage, 1, WRITE_ITERS, 1),
	ROW("lw_mark, sampler thread", w_mark, 1, WRITE_ITERS, 0),
	ROW("lw_peer_died, sampler thread", w_peer_died, 1, WRITE_ITERS, 0),
	ROW(FLOOR_NAME, w_floor, 2, WRITE_ITERS, 0),
	ROW("clock_gettime(CLOCK_MONOTONIC) alone", w_clock, 2, WRITE_ITERS, 0),
	ROW("floor + crc32c_slot", w_floor_crc, 2, WRITE_ITERS, 0),
	ROW("clock + ring_write() (src/ring_write.h)", w_ring_write, 2, WRITE_ITERS, 0),
	ROW(STAGE_NAME, w_stage, 2, WRITE_ITERS, 0),
	ROW(SESSION_NAME, w_session_stage, 2, WRITE_ITERS, 0),
	ROW("lw_mark, sampler thread", w_mark, 2, WRITE_ITERS, 0),
	ROW("lw_peer_died, sampler thread", w_peer_died, 2, WRITE_ITERS, 0),
};
enum { NROWS = sizeof(rows) / sizeof(rows[0]), GROUP = NROWS / 2 };

/* Session 2: stage events that read statm themselves, each beside a floor. */
static struct row statm_rows[] = {
	ROW(FLOOR_NAME, w_floor, 1, WRITE_ITERS, 0),
	ROW(STATM_NAME, w_stage, 1, STATM_ITERS, 0),
	ROW(FLOOR_NAME, w_floor, 2, WRITE_ITERS, 0),
	ROW(STATM_NAME, w_stage, 2, STATM_ITERS, 0),
};

/* Events the floor ring's head must have counted. */
static uint64_t floor_ring_events(const struct row *r, int n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (r[i].fn == w_floor || r[i].fn == w_floor_crc || r[i].fn == w_ring_write)
			sum += (uint64_t)r[i].threads * (r[i].iters + r[i].iters / 32) *
			       (uint64_t)r[i].runs;
	return sum;
}

int main(int argc, char **argv)
{
	const char *lastwords = argc > 1 && argv[1][0] ? argv[1] : NULL;
	struct row floors[2]; /* the floors measured beside the rows printed */
	struct bench b;
	char *dir, path[512], path_sampler[512], path_statm[512];
	void *fmap;
	size_t fsize;
	uint64_t t_start = clock_ns(), floor_events, ev_sampler, ev_statm;
	uint64_t drops_sampler, drops_statm;
	int i, hw;

	setvbuf(stdout, NULL, _IOLBF, 0);
	dir = strdup(t_tmpdir("bench"));
	if (!dir)
		T_FAILF("out of memory");
	memset(&b, 0, sizeof(b));
	hw = cpu_crc32c_setup();

	printf("bench-probe: %ld CPUs online, CRC32C %s, %s build\n",
	       sysconf(_SC_NPROCESSORS_ONLN), hw ? "hardware" : "software",
#ifdef __OPTIMIZE__
	       "optimized"
#else
	       "UNOPTIMIZED (figures not representative)"
#endif
	);
	printf("method: rounds of 1 repetition per row (%u events per thread), rows interleaved; "
	       "medians of the clean\nrepetitions (no thread preempted, threads side by side), up "
	       "to %d; x floor: median of the per-round\nratios to the floor measured in the same "
	       "round. Rings: %u slots (%u KiB), MAP_SHARED files under\n%s, pages prefaulted; "
	       "probe sampler period %u ms.\n\n",
	       WRITE_ITERS, REPS, WRITE_SLOTS, WRITE_SLOTS * 64 / 1024, dir, SAMPLER_MS);

	/* Session 1: floor, protocol and probe with the sampler thread. */
	floor_open(&b, dir, &fmap, &fsize);
	b.lw = probe_open(dir, "bench.sampler", WRITE_SLOTS, SAMPLER_MS, path_sampler,
			  sizeof(path_sampler));
	measure(&b, rows, NROWS);
	lw_close(b.lw);
	ev_sampler = atomic_load(&b.lw_events);
	drops_sampler = atomic_load(&b.drops);
	if (atomic_load(&b.errors))
		T_FAILF("%lu probe calls failed during the sampler session",
			(unsigned long)atomic_load(&b.errors));
	floors[0] = rows[0];
	floors[1] = rows[GROUP];
	print_header();
	print_rows(rows, GROUP, floors);
	print_rows(rows + GROUP, GROUP, floors);
	{
		double ratio;
		int busy = paired_ratio(&rows[4], &floors[0], &ratio);

		printf("  stage event with the sampler (statm, composition and PSI each %u ms, "
		       "dma-buf each 1 s), 1 thread:\n  %.2fx its floor; target %.1fx: %s%s\n",
		       SAMPLER_MS, ratio, TARGET_SAMPLED,
		       ratio <= TARGET_SAMPLED ? "met" : "NOT met",
		       busy ? " (machine busy: over all repetitions)" : "");
	}

	/* Session 2: stage events that read statm themselves. */
	atomic_store(&b.lw_events, 0);
	atomic_store(&b.drops, 0);
	b.lw = probe_open(dir, "bench.nosampler", WRITE_SLOTS, 0, path_statm, sizeof(path_statm));
	measure(&b, statm_rows, 4);
	lw_close(b.lw);
	b.lw = NULL;
	ev_statm = atomic_load(&b.lw_events);
	drops_statm = atomic_load(&b.drops);
	if (atomic_load(&b.errors))
		T_FAILF("%lu probe calls failed during the no-sampler session",
			(unsigned long)atomic_load(&b.errors));
	floors[0] = statm_rows[0];
	floors[1] = statm_rows[2];
	print_rows(&statm_rows[1], 1, floors);
	print_rows(&statm_rows[3], 1, floors);

	/* The rings hold what was written. A last pass of ring_write() on two
	 * threads leaves a checkable record in every slot of the floor ring. */
	for (i = 0; i < NROWS; i++)
		if (rows[i].fn == w_ring_write && rows[i].threads == 2)
			run_row(&b, &rows[i], 0);
	printf("\nchecks:\n");
	floor_events = floor_ring_events(rows, NROWS) + floor_ring_events(statm_rows, 4);
	if (atomic_load_explicit(A64(&b.fhdr->head), memory_order_relaxed) != floor_events)
		T_FAILF("floor ring head %llu, expected %llu",
			(unsigned long long)b.fhdr->head, (unsigned long long)floor_events);
	munmap(fmap, fsize);
	snprintf(path, sizeof(path), "%s/floor.lwr", dir);
	check_session_ring("floor (ring_write)", path, floor_events, 0);
	check_session_ring("probe, sampler", path_sampler, ev_sampler, 1);
	check_session_ring("probe, no sampler", path_statm, ev_statm, 1);
	printf("  probe calls: %llu with the sampler, %llu dropped (-EAGAIN, lap collision); "
	       "%llu without, %llu dropped\n",
	       (unsigned long long)ev_sampler, (unsigned long long)drops_sampler,
	       (unsigned long long)ev_statm, (unsigned long long)drops_statm);

	sampling_costs(dir);
	reader_bench(dir, lastwords);

	t_rmdir(dir);
	free(dir);
	printf("\ntotal run time %.1f s\n", (double)(clock_ns() - t_start) / 1e9);
	return T_PASS;
}
