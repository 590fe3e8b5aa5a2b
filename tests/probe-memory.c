/*
 * What the memory is made of, and the system's pressure, as the probe
 * records them (schemas/ring-format.md, 8.1), in real processes:
 *   - a child with the sampler thread grows 64 MiB of anonymous memory
 *     (malloc + memset, in steps) and is killed by SIGKILL: its ring's memory
 *     records, from /proc/self/status, show the anonymous memory grown by
 *     most of it and the file-backed pages not;
 *   - a child maps a 64 MiB file and touches every page, and is killed: the
 *     file-backed pages grew, the anonymous memory did not;
 *   - in both, the records are in ticket order, the pressure records are
 *     PSI readings (or the one "not readable") and the graphics records
 *     dma-buf counts, each well-formed;
 *   - a child whose /proc/pressure is hidden (a mount namespace with a tmpfs
 *     over it) writes exactly one pressure record, "not readable" with its
 *     errno, however many periods pass;
 *   - lw_memory_graphics() and lw_memory_pressure() record what they are
 *     given, and refuse a source outside the vocabulary (-EINVAL, counted);
 *   - after lw_open() nothing the probe does allocates (malloc, calloc and
 *     realloc counted through --wrap), sampler thread included; a stage
 *     event reads statm only (one pread without the sampler, none with it),
 *     and lw_memory_sample() reads statm and status (preads counted per
 *     thread through --wrap);
 *   - the parsers of status, fdinfo and PSI, on the kernel's formats and on
 *     text that lacks their lines.
 */
#define _GNU_SOURCE /* unshare */

#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "alloc-count.h"
#include "helpers.h"

#include "../probe/internal.h"
#include "../src/digest.h"
#include "../src/ring.h"
#include <lastwords/probe.h>

#define MIB (1024u * 1024u)
#define GROW_MIB 64u
#define STEP_MIB 8u
#define GREW_KB ((GROW_MIB - 8u) * 1024u) /* what must show: all but 8 MiB */
#define NOT_GREW_KB (32u * 1024u)         /* the other kind moves less than this */
#define PERIOD_MS 10u
#define WAIT_S 120 /* a bound for a stuck child, never a measure of speed */

/* Counted through -Wl,--wrap (tests/meson.build): every allocation in the
 * process (alloc-count.h), and the preads of the calling thread. */
static _Thread_local long t_preads;

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread64(int fd, void *buf, size_t n, off_t off);

/* The pread64 system call: a 64-bit offset is one register on 64-bit
 * ABIs, two (low word first) on 32-bit ones, after a pad that aligns the
 * pair on 32-bit ARM's EABI. */
static ssize_t raw_pread(int fd, void *buf, size_t n, off_t off)
{
#if UINTPTR_MAX == 0xffffffffu
	uint32_t lo = (uint32_t)(uint64_t)off, hi = (uint32_t)((uint64_t)off >> 32);
#if defined(__arm__)
	return syscall(SYS_pread64, fd, buf, n, 0, lo, hi);
#else
	return syscall(SYS_pread64, fd, buf, n, lo, hi);
#endif
#else
	return syscall(SYS_pread64, fd, buf, n, off);
#endif
}

/* pread is pread64 under glibc's 64-bit offsets and pread under musl: both
 * are wrapped, and go to the system call itself, so that no __real_ name
 * is needed that the C library may not have. */
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	t_preads++;
	return raw_pread(fd, buf, n, off);
}

ssize_t __wrap_pread64(int fd, void *buf, size_t n, off_t off)
{
	t_preads++;
	return raw_pread(fd, buf, n, off);
}

static const char *g_dir;

static struct lw_config config(const char *process, uint32_t period_ms)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = process,
		.slot_count = 1024,
		.sampler_period_ms = period_ms,
	};

	return cfg;
}

/* The composition of a memory record, in kB. */
static uint64_t anon_of(const struct lw_ring_slot *s) { return (uint32_t)s->b; }
static uint64_t file_of(const struct lw_ring_slot *s) { return s->b >> 32; }

/* What a ring's valid records say, for the checks. */
struct seen {
	uint64_t records, last_ticket;
	int out_of_order;
	uint64_t memory, first_anon, first_file, max_anon, max_file, bad_memory;
	uint64_t pressure, unreadable, bad_pressure;
	uint32_t unreadable_errno;
	uint64_t graphics, bad_graphics;
};

static int look(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct seen *w = arg;

	(void)index;
	if (w->records && ticket <= w->last_ticket)
		w->out_of_order = 1;
	w->records++;
	w->last_ticket = ticket;
	if (s->type == LW_EV_MEMORY) {
		if (s->code != LW_MEMORY_SOURCE_STATUS || s->d != 0 || s->rss_kb == 0 ||
		    anon_of(s) + file_of(s) > (uint64_t)s->rss_kb + 64u * 1024u) {
			w->bad_memory++;
			fprintf(stderr, "memory record %" PRIu64 ": code %u rss %u anon %" PRIu64
				" file %" PRIu64 "\n", ticket, s->code, s->rss_kb, anon_of(s),
				file_of(s));
		}
		if (!w->memory++) {
			w->first_anon = anon_of(s);
			w->first_file = file_of(s);
		}
		if (anon_of(s) > w->max_anon)
			w->max_anon = anon_of(s);
		if (file_of(s) > w->max_file)
			w->max_file = file_of(s);
	} else if (s->type == LW_EV_PRESSURE) {
		w->pressure++;
		if (s->code != LW_PRESSURE_PSI)
			w->bad_pressure++;
		else if (s->d) {
			w->unreadable++;
			w->unreadable_errno = s->d;
			w->bad_pressure += s->a || s->b || s->c;
		} else {
			/* avg10 is a percentage, in hundredths */
			w->bad_pressure += s->a > 10000 || s->b > 10000;
		}
	} else if (s->type == LW_EV_GRAPHICS) {
		w->graphics++;
		w->bad_graphics += s->code != LW_GRAPHICS_DMABUF || (s->a == 0) != (s->b == 0) ||
				   s->d != 0;
	}
	return 0;
}

/* Scan the ring file at path (live or dead) into *w. */
static void scan(const char *path, struct seen *w)
{
	struct ring_error err;
	struct ring_scan sc;
	size_t size;
	void *map = t_map_file(path, &size);
	const struct lw_ring_header *h = map;

	T_ASSERT(ring_header_check(map, size, &err) == RING_HEADER_OK, "%s: %s", path, err.reason);
	T_ASSERT(h->version == LW_RING_VERSION && LW_RING_VERSION == 3 && h->min_version == 1,
		 "%s: version %u, min_version %u", path, h->version, h->min_version);
	memset(w, 0, sizeof(*w));
	ring_scan(h, (const struct lw_ring_slot *)((const char *)map + h->header_size), &sc, NULL,
		  look, w);
	munmap(map, size);
}

/* Wait until the ring at path satisfies done(), or fail after WAIT_S. */
static void wait_for(const char *path, int (*done)(const struct seen *), struct seen *w,
		     const char *what)
{
	double give_up = t_now_s() + WAIT_S;

	for (;;) {
		scan(path, w);
		if (done(w))
			return;
		T_ASSERT(t_now_s() < give_up, "%s: not recorded in %d s", what, WAIT_S);
		sleep_ms(20);
	}
}

static int anon_grew(const struct seen *w)
{
	return w->max_anon >= w->first_anon + GREW_KB;
}

static int file_grew(const struct seen *w)
{
	return w->max_file >= w->first_file + GREW_KB;
}

static int pressure_seen(const struct seen *w)
{
	return w->pressure > 0;
}

/* The child's end: its ring's path, then "g" once it has done its part. */
static void child_tell(int fd, const struct lw *lw, char what)
{
	struct lw_info info;

	if (what == 0) {
		if (lw_info(lw, &info) != 0 ||
		    write(fd, info.path, sizeof(info.path)) != (ssize_t)sizeof(info.path))
			_exit(2);
		return;
	}
	if (write(fd, &what, 1) != 1)
		_exit(2);
}

enum growth { GROW_ANON, GROW_FILE, HIDE_PSI, SAMPLES, HIDE_PSI_SAMPLES };

/* Without a sampler: the app's lw_memory_sample() calls read PSI. */
#define SAMPLE_CALLS 3

/* In the child: open a probe with a sampler, do what is asked, say so, and
 * wait for the SIGKILL. */
static void child_main(int fd, enum growth what)
{
	int no_sampler = what == SAMPLES || what == HIDE_PSI_SAMPLES;
	struct lw_config cfg = config("com.memory:inference", no_sampler ? 0 : PERIOD_MS);
	struct lw *lw;
	char file[600];
	unsigned i;

	if (what == HIDE_PSI || what == HIDE_PSI_SAMPLES) {
		/* A process that may not read /proc/pressure/memory, or a kernel
		 * without PSI: a mount namespace with a tmpfs over it. */
		if (access("/proc/pressure/memory", F_OK) == 0 &&
		    ((unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) ||
		     mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		     mount("tmpfs", "/proc/pressure", "tmpfs", 0, NULL) != 0))
			_exit(T_SKIP);
		if (access("/proc/pressure/memory", R_OK) == 0)
			_exit(3);
	}
	if (what == GROW_FILE) {
		static char page[65536];
		int f;

		snprintf(file, sizeof(file), "%s/model.bin", g_dir);
		f = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		memset(page, 7, sizeof(page));
		for (i = 0; f >= 0 && i < GROW_MIB * MIB / sizeof(page); i++)
			if (write(f, page, sizeof(page)) != (ssize_t)sizeof(page))
				_exit(2);
		if (f < 0)
			_exit(2);
		close(f);
	}
	if (lw_open(&cfg, &lw) != 0)
		_exit(2);
	child_tell(fd, lw, 0);
	if (what == GROW_ANON) {
		for (i = 0; i < GROW_MIB / STEP_MIB; i++) {
			t_grow(STEP_MIB * MIB);
			memset(t_held[i], 1, STEP_MIB * MIB);
			sleep_ms(3 * PERIOD_MS);
		}
	} else if (what == GROW_FILE) {
		size_t size;
		volatile const char *m = t_map_file(file, &size);
		unsigned sum = 0;
		size_t off;

		for (off = 0; off < size; off += 4096) {
			sum += (unsigned)m[off];
			if (off % (STEP_MIB * MIB) == 0)
				sleep_ms(3 * PERIOD_MS);
		}
		if (sum == 0)
			_exit(2);
	} else if (no_sampler) {
		for (i = 0; i < SAMPLE_CALLS; i++)
			if (lw_memory_sample(lw) != 0)
				_exit(2);
	} else {
		sleep_ms(30 * PERIOD_MS); /* periods that could repeat the record */
	}
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	child_tell(fd, lw, 'g');
	for (;;)
		pause();
}

/* Run a child, wait for its word and for its ring to show done(), kill
 * it; *w is its dead ring. Returns 0, or T_SKIP when the child could not
 * set itself up. */
static int run_child(enum growth what, int (*done)(const struct seen *), struct seen *w,
		     const char *name)
{
	char path[sizeof(((struct lw_info *)0)->path)], g = 0;
	int fd, status;
	pid_t pid = t_fork_piped(&fd);

	if (pid == 0)
		child_main(fd, what); /* does not return */
	if (read(fd, path, sizeof(path)) != (ssize_t)sizeof(path)) {
		T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
		if (WIFEXITED(status) && WEXITSTATUS(status) == T_SKIP)
			return T_SKIP;
		T_FAILF("%s: the child said nothing: status 0x%x", name, status);
	}
	T_ASSERT(read(fd, &g, 1) == 1 && g == 'g', "%s: the child did not finish", name);
	close(fd);
	wait_for(path, done, w, name);
	T_ASSERT(kill(pid, SIGKILL) == 0 && waitpid(pid, &status, 0) == pid &&
			 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "%s: the child did not die of SIGKILL: 0x%x", name, status);
	scan(path, w); /* the dead run, whole */
	T_ASSERT(unlink(path) == 0, "unlink %s", path);
	T_ASSERT(!w->out_of_order, "%s: records out of ticket order", name);
	T_ASSERT(w->bad_memory == 0 && w->bad_pressure == 0 && w->bad_graphics == 0,
		 "%s: %" PRIu64 " bad memory, %" PRIu64 " bad pressure, %" PRIu64
		 " bad graphics records", name, w->bad_memory, w->bad_pressure, w->bad_graphics);
	T_ASSERT(w->unreadable <= 1, "%s: %" PRIu64 " \"not readable\" records", name,
		 w->unreadable);
	return 0;
}

static void grows(void)
{
	struct seen w;

	run_child(GROW_ANON, anon_grew, &w, "anonymous growth");
	T_ASSERT(w.max_file < w.first_file + NOT_GREW_KB,
		 "anonymous growth: file-backed pages grew too, %" PRIu64 " -> %" PRIu64 " kB",
		 w.first_file, w.max_file);
	printf("anonymous growth: %" PRIu64 " memory records, anon %" PRIu64 " -> %" PRIu64
	       " kB, file at most %" PRIu64 " kB; %" PRIu64 " pressure, %" PRIu64 " graphics\n",
	       w.memory, w.first_anon, w.max_anon, w.max_file, w.pressure, w.graphics);
	T_ASSERT(w.pressure >= 1, "no pressure record: PSI readings or \"not readable\"");
	if (access("/proc/pressure/memory", R_OK) == 0)
		T_ASSERT(w.unreadable == 0, "PSI readable here, yet recorded not readable (%u)",
			 w.unreadable_errno);

	run_child(GROW_FILE, file_grew, &w, "mapped file");
	T_ASSERT(w.max_anon < w.first_anon + NOT_GREW_KB,
		 "mapped file: anonymous memory grew too, %" PRIu64 " -> %" PRIu64 " kB",
		 w.first_anon, w.max_anon);
	printf("mapped file: %" PRIu64 " memory records, file %" PRIu64 " -> %" PRIu64
	       " kB, anon at most %" PRIu64 " kB\n",
	       w.memory, w.first_file, w.max_file, w.max_anon);
}

static void psi_hidden(void)
{
	struct seen w;

	if (run_child(HIDE_PSI, pressure_seen, &w, "hidden PSI") == T_SKIP) {
		printf("hidden PSI: skipped, no mount namespace to hide /proc/pressure in\n");
		return;
	}
	T_ASSERT(w.pressure == 1 && w.unreadable == 1 && w.unreadable_errno == ENOENT,
		 "hidden PSI: %" PRIu64 " pressure records, %" PRIu64 " not readable, errno %u",
		 w.pressure, w.unreadable, w.unreadable_errno);
	printf("hidden PSI: one pressure record, not readable (errno %u)\n", w.unreadable_errno);

	/* Without a sampler, lw_memory_sample() reads PSI: a record each
	 * call where it is readable, one "not readable" in all where not. */
	if (access("/proc/pressure/memory", R_OK) == 0) {
		run_child(SAMPLES, pressure_seen, &w, "PSI without a sampler");
		T_ASSERT(w.pressure >= 1 && w.pressure <= SAMPLE_CALLS && w.unreadable == 0 &&
				 w.memory == SAMPLE_CALLS,
			 "PSI without a sampler: %" PRIu64 " pressure records, %" PRIu64
			 " not readable, %" PRIu64 " memory records for %d samples",
			 w.pressure, w.unreadable, w.memory, SAMPLE_CALLS);
		printf("PSI without a sampler: %" PRIu64 " pressure records for %d samples (the first "
		       "reading, then changes)\n", w.pressure, SAMPLE_CALLS);
	}
	if (run_child(HIDE_PSI_SAMPLES, pressure_seen, &w, "hidden PSI without a sampler") == T_SKIP)
		return;
	T_ASSERT(w.pressure == 1 && w.unreadable == 1 && w.unreadable_errno == ENOENT,
		 "hidden PSI without a sampler: %" PRIu64 " pressure records, %" PRIu64
		 " not readable, errno %u", w.pressure, w.unreadable, w.unreadable_errno);
	printf("hidden PSI without a sampler: one not readable record for %d samples\n", SAMPLE_CALLS);
}

/* The calls of the app: what they were given, and -EINVAL for a source
 * outside the vocabulary. */
static void app_calls(void)
{
	struct lw_config cfg = config("com.memory:calls", 0);
	struct lw_info info;
	struct lw *lw;
	size_t size;
	void *map;
	const struct lw_ring_header *h;
	const struct lw_ring_slot *s;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "lw_open");
	T_ASSERT(lw_memory_graphics(lw, 123456) == 0, "lw_memory_graphics");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_TRIM, 40, 0, 0) == 0, "trim");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_MEMORY_INFO, 1, 512000, 256000) == 0,
		 "memory_info");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_PSI, 1234, 56, 789012) == 0, "psi");
	T_ASSERT(lw_memory_pressure(lw, (enum lw_pressure_source)0, 1, 2, 3) == -EINVAL,
		 "source 0 not refused");
	T_ASSERT(lw_memory_pressure(lw, (enum lw_pressure_source)99, 1, 2, 3) == -EINVAL,
		 "source 99 not refused");
	T_ASSERT(lw_memory_graphics(NULL, 1) == -EINVAL &&
			 lw_memory_pressure(NULL, LW_PRESSURE_TRIM, 5, 0, 0) == -EINVAL,
		 "NULL handles not refused");
	T_ASSERT(lw_memory_sample(lw) == 0, "lw_memory_sample");
	T_ASSERT(lw_close(lw) == 0, "lw_close");

	map = t_map_file(info.path, &size);
	h = map;
	s = (const struct lw_ring_slot *)((const char *)map + h->header_size);
	/* open, graphics, three pressures, memory, its PSI (no sampler: a
	 * reading, or not readable), close: tickets 0 to 7 */
	T_ASSERT(h->head == 8 && h->dropped == 2, "head %" PRIu64 ", dropped %" PRIu64, h->head,
		 h->dropped);
	T_ASSERT(s[6].type == LW_EV_PRESSURE && s[6].code == LW_PRESSURE_PSI,
		 "the sample's PSI record: type %u code %u", s[6].type, s[6].code);
	T_ASSERT(s[1].type == LW_EV_GRAPHICS && s[1].code == LW_GRAPHICS_APP && s[1].a == 123456 &&
			 s[1].b == 0 && s[1].c == 0 && s[1].d == 0,
		 "graphics record: type %u code %u a %" PRIu64, s[1].type, s[1].code, s[1].a);
	T_ASSERT(s[2].type == LW_EV_PRESSURE && s[2].code == LW_PRESSURE_TRIM && s[2].a == 40 &&
			 s[2].b == 0 && s[2].c == 0 && s[2].d == 0, "trim record");
	T_ASSERT(s[3].type == LW_EV_PRESSURE && s[3].code == LW_PRESSURE_MEMORY_INFO &&
			 s[3].a == 1 && s[3].b == 512000 && s[3].c == 256000, "memory_info record");
	T_ASSERT(s[4].type == LW_EV_PRESSURE && s[4].code == LW_PRESSURE_PSI && s[4].a == 1234 &&
			 s[4].b == 56 && s[4].c == 789012, "psi record");
	T_ASSERT(s[5].type == LW_EV_MEMORY &&
			 (s[5].code == LW_MEMORY_SOURCE_STATUS || s[5].code == LW_MEMORY_SOURCE_STATM) &&
			 anon_of(&s[5]) > 0 && anon_of(&s[5]) <= s[5].rss_kb + 1024u,
		 "memory record: code %u anon %" PRIu64 " rss %u", s[5].code, anon_of(&s[5]),
		 s[5].rss_kb);
	munmap(map, size);
	T_ASSERT(unlink(info.path) == 0, "unlink");
	printf("app calls: graphics and pressure records hold what was given; bad sources "
	       "refused\n");
}

/* Nothing allocates after lw_open(); stage events read statm only. */
static void no_allocation(void)
{
	struct lw_config cfg = config("com.memory:alloc", 0);
	struct lw_info info;
	struct lw *lw;
	long allocs, preads;
	int i;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "lw_open");
	preads = t_preads;
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "stage_begin");
	T_ASSERT(t_preads - preads == 1, "a stage event without the sampler: %ld preads, not 1 "
		 "(statm)", t_preads - preads);
	preads = t_preads;
	T_ASSERT(lw_memory_sample(lw) == 0, "lw_memory_sample");
	T_ASSERT(t_preads - preads >= 2, "lw_memory_sample: %ld preads: statm and status",
		 t_preads - preads);
	T_ASSERT(lw_close(lw) == 0 && unlink(info.path) == 0, "lw_close");

	cfg = config("com.memory:alloc", 2);
	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "lw_open, sampler");
	allocs = atomic_load(&g_allocs);
	preads = t_preads;
	for (i = 0; i < 100; i++) {
		T_ASSERT(lw_stage_begin(lw, LW_STAGE_INFERENCE) == 0 &&
				 lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE) == 0,
			 "stage events");
		if (i % 10 == 0)
			sleep_ms(5); /* sampler passes meanwhile */
	}
	T_ASSERT(t_preads == preads, "stage events with the sampler read files: %ld preads",
		 t_preads - preads);
	T_ASSERT(lw_memory_sample(lw) == 0 && lw_memory_graphics(lw, 1) == 0 &&
			 lw_memory_pressure(lw, LW_PRESSURE_TRIM, 20, 0, 0) == 0,
		 "memory calls");
	sleep_ms(1100); /* a dma-buf scan, one second after the first */
	T_ASSERT(atomic_load(&g_allocs) == allocs,
		 "%ld allocations after lw_open (event calls, sampler thread)",
		 atomic_load(&g_allocs) - allocs);
	T_ASSERT(lw_close(lw) == 0 && unlink(info.path) == 0, "lw_close");
	printf("no allocation after lw_open; stage events read statm only\n");
}

static void parsers(void)
{
	static const char status[] =
		"Name:\tcat\nUmask:\t0022\nState:\tR (running)\nVmPeak:\t    8556 kB\n"
		"VmRSS:\t    2184 kB\nRssAnon:\t     160 kB\nRssFile:\t    2024 kB\n"
		"RssShmem:\t       3 kB\nVmData:\t     360 kB\nVmSwap:\t      17 kB\n"
		"Threads:\t1\n";
	static const char old_status[] = "Name:\tcat\nVmRSS:\t    2184 kB\nVmSwap:\t0 kB\n";
	static const char fdinfo[] = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t4242\n"
				     "size:\t8388608\ncount:\t1\nexp_name:\tsystem\n"
				     "name:\tgpu-weights\n";
	static const char psi[] = "some avg10=12.34 avg60=0.05 avg300=0.00 total=987654\n"
				  "full avg10=0.5 avg60=0.00 avg300=0.00 total=1234\n";
	struct memory_composition c;
	struct memory_psi p;
	uint64_t size, exporter, ino;

	T_ASSERT(memory_parse_status(status, sizeof(status) - 1, &c) == 0 &&
			 c.source == LW_MEMORY_SOURCE_STATUS && c.anon_kb == 160 &&
			 c.file_kb == 2024 && c.shmem_kb == 3 && c.swap_kb == 17,
		 "status: %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, c.source, c.anon_kb,
		 c.file_kb, c.shmem_kb, c.swap_kb);
	T_ASSERT(memory_parse_status(old_status, sizeof(old_status) - 1, &c) == -EIO,
		 "a status without RssAnon (Linux < 4.5) parsed");
	T_ASSERT(memory_parse_fdinfo(fdinfo, sizeof(fdinfo) - 1, &size, &exporter, &ino) == 0 &&
			 size == 8388608 && exporter == digest_name("system") && ino == 4242,
		 "fdinfo: size %" PRIu64 " exporter 0x%" PRIx64 " ino %" PRIu64, size, exporter,
		 ino);
	T_ASSERT(memory_parse_fdinfo("pos:\t0\nflags:\t02\n", 17, &size, &exporter, &ino) == -EIO,
		 "an fdinfo without size parsed");
	T_ASSERT(memory_parse_psi(psi, sizeof(psi) - 1, &p) == 0 && p.some_avg10 == 1234 &&
			 p.full_avg10 == 50 && p.some_total_us == 987654,
		 "psi: %u %u %" PRIu64, p.some_avg10, p.full_avg10, p.some_total_us);
	T_ASSERT(memory_parse_psi("full avg10=1.00\n", 16, &p) == -EIO, "psi without some parsed");
	T_ASSERT(memory_is_dmabuf_link("/dmabuf:", 8) && memory_is_dmabuf_link("/dmabuf:gpu", 11) &&
			 memory_is_dmabuf_link("anon_inode:dmabuf", 17) &&
			 !memory_is_dmabuf_link("/memfd:dmabuf (deleted)", 23) &&
			 !memory_is_dmabuf_link("anon_inode:[eventfd]", 20) &&
			 !memory_is_dmabuf_link("/dmabuf", 7),
		 "dma-buf descriptor names");
	printf("parsers: status, fdinfo, PSI and dma-buf names\n");
}

int main(void)
{
	g_dir = strdup(t_tmpdir("memory"));
	parsers();
	app_calls();
	no_allocation();
	grows();
	psi_hidden();
	t_rmdir(g_dir);
	free((void *)g_dir);
	return T_PASS;
}
