/*
 * The probe's events as they land in the ring file: open a run in a scratch
 * directory, record a candidate, stages, marks and a memory sample, close,
 * then read the file back with the reader's rules and check every record.
 * Also: the file's name, size, real blocks and flock; refused arguments;
 * a second lw_open(); lw_info(); the sampler's flags; and a ring that laps.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>

#include "helpers.h"

#include "../probe/internal.h"
#include "../src/ring.h"

#define PROCESS "com.example.app:inference"
#define CANDIDATE "mobilenet-v3-int8"
#define SLOTS 64u
#define BUDGET_KB 300000u
#define APP_VERSION 1234u

struct rec {
	uint64_t ticket;
	struct lw_ring_slot s;
};

struct ring_copy {
	void *map;
	size_t size;
	const struct lw_ring_header *h;
	struct ring_scan sc;
	struct rec r[64];
	size_t n;
	int gaps; /* tickets may skip (a dropped record) */
};

static int collect(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct ring_copy *rc = arg;

	(void)index;
	T_ASSERT(rc->n < sizeof(rc->r) / sizeof(rc->r[0]), "too many records");
	if (rc->n > 0 && !rc->gaps)
		T_ASSERT(t == rc->r[rc->n - 1].ticket + 1, "ticket %" PRIu64 " after %" PRIu64, t,
			 rc->r[rc->n - 1].ticket);
	rc->r[rc->n].ticket = t;
	rc->r[rc->n].s = *s;
	rc->n++;
	return 0;
}

/* Map a closed run's file, check its header and scan it. */
static void read_ring(const char *path, struct ring_copy *rc, int gaps)
{
	struct ring_error err;
	struct stat st;
	int fd, s;

	memset(rc, 0, sizeof(*rc));
	rc->gaps = gaps;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0, "open %s: %s", path, strerror(errno));
	T_ASSERT(fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
	rc->size = (size_t)st.st_size;
	rc->map = mmap(NULL, rc->size, PROT_READ, MAP_SHARED, fd, 0);
	T_ASSERT(rc->map != MAP_FAILED, "mmap: %s", strerror(errno));
	close(fd);
	s = (int)ring_header_check(rc->map, rc->size, &err);
	T_ASSERT(s == RING_HEADER_OK, "%s refused at %zu: %s", path, err.offset, err.reason);
	rc->h = rc->map;
	ring_scan(rc->h, (const struct lw_ring_slot *)((const char *)rc->map + rc->h->header_size),
		  &rc->sc, NULL, collect, rc);
	T_ASSERT(rc->sc.corrupt == 0 && rc->sc.torn == 0, "%s: %" PRIu64 " corrupt, %" PRIu64
		 " torn", path, rc->sc.corrupt, rc->sc.torn);
	T_ASSERT(rc->sc.valid == rc->n, "valid %" PRIu64 " != %zu collected", rc->sc.valid,
		 rc->n);
}

static void release_ring(struct ring_copy *rc)
{
	munmap(rc->map, rc->size);
}

/*
 * Real blocks behind every byte: no hole, and no delayed-allocation extent
 * (pages dirtied in a sparse file look allocated to st_blocks, but their
 * blocks may not exist when the disk fills). Needs FIEMAP (ext4, f2fs, ...).
 */
static void check_allocated(int fd, uint64_t size)
{
	const unsigned max = 64;
	struct fiemap *fm = calloc(1, sizeof(*fm) + max * sizeof(struct fiemap_extent));
	uint64_t covered = 0;
	unsigned i;

	T_ASSERT(fm != NULL, "calloc");
	fm->fm_start = 0;
	fm->fm_length = size;
	fm->fm_extent_count = max;
	/*
	 * The request is an int for musl and bionic (POSIX), an unsigned long
	 * for glibc; the kernel reads 32 bits of it either way.
	 */
	if (ioctl(fd, (int)FS_IOC_FIEMAP, fm) != 0) {
		printf("no FIEMAP here (%s): only st_blocks is checked\n", strerror(errno));
		free(fm);
		return;
	}
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		T_ASSERT(!(e->fe_flags & FIEMAP_EXTENT_DELALLOC),
			 "extent at %llu has no blocks yet (delayed allocation): not preallocated",
			 (unsigned long long)e->fe_logical);
		T_ASSERT(e->fe_logical <= covered, "hole at %llu: not preallocated",
			 (unsigned long long)covered);
		if (e->fe_logical + e->fe_length > covered)
			covered = e->fe_logical + e->fe_length;
	}
	T_ASSERT(covered >= size, "only %llu of %llu bytes have blocks",
		 (unsigned long long)covered, (unsigned long long)size);
	free(fm);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void check_configs(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = PROCESS };
	struct lw *lw = (struct lw *)&cfg; /* sentinel: must stay untouched */
	char longname[LW_RING_PROCESS_MAX + 1];

	T_ASSERT(lw_open(NULL, &lw) == -EINVAL, "NULL config accepted");
	cfg.process_name = NULL;
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "NULL process name accepted");
	cfg.process_name = "";
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "empty process name accepted");
	memset(longname, 'p', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cfg.process_name = longname;
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "%zu-byte process name accepted",
		 strlen(longname));
	cfg.process_name = PROCESS;
	cfg.slot_count = 100;
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "slot_count 100 accepted");
	cfg.slot_count = 8;
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "slot_count 8 accepted");
	cfg.slot_count = 0;
	cfg.runs_kept = 65;
	T_ASSERT(lw_open(&cfg, &lw) == -EINVAL, "runs_kept 65 accepted");
	T_ASSERT(lw == (struct lw *)&cfg, "*out written on failure");
	T_ASSERT(count_files(dir) == 0, "a refused open left a file");
}

/* The file name: "<process>.<YYYYMMDDTHHMMSS.mmmZ>.<pid>.lwr", from the header. */
static void check_name(const char *dir, const char *path, const struct lw_ring_header *h)
{
	char want[600];
	time_t secs = (time_t)(h->start_real_ns / 1000000000u);
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(want, sizeof(want), "%s/%s.%04d%02d%02dT%02d%02d%02d.%03uZ.%d.lwr", dir, PROCESS,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(h->start_real_ns / 1000000u % 1000u), (int)getpid());
	T_ASSERT(strcmp(path, want) == 0, "file '%s', expected '%s'", path, want);
}

struct expect {
	uint8_t type, stage, code;
	uint64_t a; /* checked when check_a */
	int check_a;
};

/* Whether /proc/self/status has the RssAnon line (Linux 4.5 and later). */
static int status_has_rss_anon(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, "RssAnon:", 8) == 0;
	fclose(f);
	return found;
}

static void run_events(const char *dir)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = PROCESS,
		.slot_count = SLOTS,
		.runs_kept = 2,
		.app_version = APP_VERSION,
		.memory_budget_kb = BUDGET_KB,
	};
	const uint64_t dg = lw_digest(CANDIDATE);
	/* Where the memory record's composition comes from: status on Linux
	 * 4.5 and later, which has its RssAnon line; statm before. */
	const unsigned mem_source = status_has_rss_anon() ? LW_MEMORY_SOURCE_STATUS
							  : LW_MEMORY_SOURCE_STATM;
	const struct expect want[] = {
		{ LW_EV_OPEN, LW_STAGE_NONE, 0, APP_VERSION, 0 },
		{ LW_EV_MARK, LW_STAGE_NONE, LW_MARK_BUDGET, BUDGET_KB, 1 },
		{ LW_EV_CANDIDATE, LW_STAGE_NONE, 0, dg, 1 },
		{ LW_EV_STAGE_BEGIN, LW_STAGE_LOAD, 0, 0, 0 },
		{ LW_EV_MARK, LW_STAGE_LOAD, LW_MARK_SESSIONS, 2, 1 },
		{ LW_EV_STAGE_END, LW_STAGE_LOAD, LW_ERR_NONE, 0, 0 },
		{ LW_EV_STAGE_BEGIN, LW_STAGE_DELEGATE_PREPARE, 0, 0, 0 },
		{ LW_EV_MARK, LW_STAGE_DELEGATE_PREPARE, LW_MARK_FALLBACK, LW_DELEGATE_XNNPACK, 1 },
		{ LW_EV_STAGE_END, LW_STAGE_DELEGATE_PREPARE, LW_ERR_DELEGATE_ERROR, 0, 0 },
		{ LW_EV_STAGE_BEGIN, LW_STAGE_INFERENCE, 0, 0, 0 },
		{ LW_EV_MARK, LW_STAGE_INFERENCE, LW_MARK_QUEUE_DEPTH, 5, 1 },
		{ LW_EV_MEMORY, LW_STAGE_INFERENCE, mem_source, 0, 0 },
		/* no sampler: the sample's PSI, a reading or "not readable" */
		{ LW_EV_PRESSURE, LW_STAGE_INFERENCE, LW_PRESSURE_PSI, 0, 0 },
		{ LW_EV_STAGE_END, LW_STAGE_INFERENCE, LW_ERR_NONE, 0, 0 },
		{ LW_EV_SYNC, LW_STAGE_NONE, 0, 1, 1 },
		{ LW_EV_CLOSE, LW_STAGE_NONE, 0, 0, 0 },
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	const uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct lw *lw, *other = NULL;
	struct lw_info info;
	struct ring_copy rc;
	struct stat st;
	char path[sizeof(info.path)];
	uint64_t prev_mono = 0;
	size_t i;
	int fd, rc_open, k;

	/* Check values from schemas/ring-format.md, section 10. */
	T_ASSERT(lw_digest("") == 0xcbf29ce484222325u, "digest of \"\" 0x%" PRIx64, lw_digest(""));
	T_ASSERT(lw_digest("a") == 0xaf63dc4c8601ec8cu, "digest of a 0x%" PRIx64, lw_digest("a"));
	T_ASSERT(dg == 0xbc581f6ce2f84816u, "digest of %s 0x%" PRIx64, CANDIDATE, dg);

	rc_open = lw_open(&cfg, &lw);
	T_ASSERT(rc_open == 0, "lw_open: %d", rc_open);
	T_ASSERT(lw_open(&cfg, &other) == -EBUSY, "second lw_open while one is open not -EBUSY");
	T_ASSERT(other == NULL, "second lw_open wrote *out");
	T_ASSERT(count_files(dir) == 1, "%d files after a refused second open", count_files(dir));

	/* lw_info */
	T_ASSERT(lw_info(NULL, &info) == -EINVAL && lw_info(lw, NULL) == -EINVAL,
		 "lw_info accepts NULL");
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info failed");
	T_ASSERT(info.backing == LW_BACKING_FILE && info.fallback_error == 0,
		 "backing %d fallback %d", info.backing, info.fallback_error);
	T_ASSERT(info.slot_count == SLOTS, "info.slot_count %u", info.slot_count);
	T_ASSERT(info.candidate == 0, "candidate 0x%" PRIx64 " before any", info.candidate);
	T_ASSERT(strlen(info.run_id_hex) == 32, "run_id_hex '%s'", info.run_id_hex);
	for (k = 0; k < 16; k++) {
		int hi = hexval(info.run_id_hex[2 * k]), lo = hexval(info.run_id_hex[2 * k + 1]);

		T_ASSERT(hi >= 0 && lo >= 0, "run_id_hex '%s' is not lowercase hex",
			 info.run_id_hex);
		T_ASSERT((hi << 4 | lo) == info.run_id[k], "run_id_hex byte %d differs", k);
		T_ASSERT(info.run_id[k] == lw->hdr->run_id[k], "run_id byte %d differs from header",
			 k);
	}
	snprintf(path, sizeof(path), "%s", info.path);
	check_name(dir, path, lw->hdr);
	T_ASSERT(lw->hdr->state == LW_STATE_RUNNING, "state %u while open", lw->hdr->state);

	/* A preallocated file, not sparse, held with an exclusive flock. */
	T_ASSERT(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
	T_ASSERT((uint64_t)st.st_size == LW_RING_HEADER_SIZE + (uint64_t)SLOTS * LW_RING_SLOT_SIZE,
		 "size %lld", (long long)st.st_size);
	T_ASSERT((uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size,
		 "sparse file: %lld blocks for %lld bytes", (long long)st.st_blocks,
		 (long long)st.st_size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0, "open %s: %s", path, strerror(errno));
	check_allocated(fd, (uint64_t)st.st_size);
	errno = 0;
	T_ASSERT(flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK,
		 "another fd took LOCK_EX on a live run (errno %d)", errno);

	/* The events. */
	T_ASSERT(lw_candidate(lw, CANDIDATE) == 0, "lw_candidate");
	T_ASSERT(lw_info(lw, &info) == 0 && info.candidate == dg, "info.candidate 0x%" PRIx64,
		 info.candidate);
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "stage_begin load");
	T_ASSERT(lw_mark(lw, LW_MARK_SESSIONS, 2) == 0, "mark sessions");
	T_ASSERT(lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE) == 0, "stage_end load");
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE) == 0, "stage_begin prepare");
	T_ASSERT(lw_mark(lw, LW_MARK_FALLBACK, LW_DELEGATE_XNNPACK) == 0, "mark fallback");
	T_ASSERT(lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_DELEGATE_ERROR) == 0,
		 "stage_end prepare");
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_INFERENCE) == 0, "stage_begin inference");
	T_ASSERT(lw->hdr->open_count[LW_STAGE_INFERENCE] == 1 &&
		 lw->hdr->last_stage == LW_STAGE_INFERENCE, "open_count %u last_stage %u",
		 lw->hdr->open_count[LW_STAGE_INFERENCE], lw->hdr->last_stage);
	T_ASSERT(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 5) == 0, "mark queue_depth");
	T_ASSERT(lw_memory_sample(lw) == 0, "lw_memory_sample");

	/* Refused arguments: -EINVAL, no record, counted in header.dropped. */
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_NONE) == -EINVAL, "stage_begin none");
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_COUNT) == -EINVAL, "stage_begin %d", LW_STAGE_COUNT);
	T_ASSERT(lw_stage_end(lw, (enum lw_stage)200, LW_ERR_NONE) == -EINVAL, "stage_end 200");
	T_ASSERT(lw_stage_end(lw, LW_STAGE_LOAD, (enum lw_error)99) == -EINVAL, "error 99");
	T_ASSERT(lw_mark(lw, (enum lw_mark)0, 1) == -EINVAL, "mark 0");
	T_ASSERT(lw_mark(lw, (enum lw_mark)99, 1) == -EINVAL, "mark 99");
	T_ASSERT(lw_candidate(lw, NULL) == -EINVAL, "NULL candidate");
	T_ASSERT(lw_candidate(lw, "") == -EINVAL, "empty candidate");
	T_ASSERT(lw->hdr->dropped == 8, "header.dropped %" PRIu64 " after 8 refusals",
		 lw->hdr->dropped);
	T_ASSERT(lw_stage_begin(NULL, LW_STAGE_LOAD) == -EINVAL &&
		 lw_stage_end(NULL, LW_STAGE_LOAD, LW_ERR_NONE) == -EINVAL &&
		 lw_mark(NULL, LW_MARK_SESSIONS, 1) == -EINVAL &&
		 lw_candidate(NULL, "x") == -EINVAL && lw_memory_sample(NULL) == -EINVAL,
		 "an event function accepted a NULL probe");

	T_ASSERT(lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE) == 0, "stage_end inference");
	T_ASSERT(lw_sync(lw) == 0, "lw_sync");
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	T_ASSERT(lw_close(NULL) == 0, "lw_close(NULL)");

	T_ASSERT(flock(fd, LOCK_EX | LOCK_NB) == 0, "LOCK_EX refused after lw_close: %s",
		 strerror(errno));
	close(fd);

	/* Read it back. */
	read_ring(path, &rc, 0);
	T_ASSERT(rc.h->state == LW_STATE_CLEAN_EXIT, "state %u after lw_close", rc.h->state);
	T_ASSERT(rc.h->dropped == 8 && rc.h->lapped == 0 && rc.h->syncs == 1,
		 "dropped %" PRIu64 " lapped %" PRIu64 " syncs %" PRIu64, rc.h->dropped,
		 rc.h->lapped, rc.h->syncs);
	T_ASSERT(rc.h->candidate == dg && rc.h->ok_candidate == dg,
		 "candidate 0x%" PRIx64 " ok_candidate 0x%" PRIx64, rc.h->candidate,
		 rc.h->ok_candidate);
	T_ASSERT(rc.h->app_version == APP_VERSION && rc.h->memory_budget_kb == BUDGET_KB &&
		 rc.h->pid == (uint32_t)getpid() && rc.h->slot_count == SLOTS,
		 "header fields differ from the config");
	T_ASSERT(strcmp(rc.h->process, PROCESS) == 0, "process '%.64s'", rc.h->process);
	for (k = 0; k < LW_RING_STAGE_SLOTS; k++)
		T_ASSERT(rc.h->open_count[k] == 0, "open_count[%d] = %u after all ended", k,
			 rc.h->open_count[k]);
	T_ASSERT(memcmp(rc.h->run_id, info.run_id, 16) == 0, "file run_id differs from lw_info");
	T_ASSERT(rc.sc.missing == 0 && rc.sc.empty == SLOTS - nwant,
		 "missing %" PRIu64 " empty %" PRIu64, rc.sc.missing, rc.sc.empty);
	T_ASSERT(rc.n == nwant, "%zu records, expected %zu", rc.n, nwant);
	T_ASSERT(rc.h->head == nwant, "head %" PRIu64, rc.h->head);
	for (i = 0; i < nwant; i++) {
		const struct lw_ring_slot *s = &rc.r[i].s;
		const struct expect *w = &want[i];

		T_ASSERT(rc.r[i].ticket == i, "record %zu has ticket %" PRIu64, i, rc.r[i].ticket);
		T_ASSERT(s->type == w->type && s->stage == w->stage && s->code == w->code,
			 "record %zu: type %u stage %u code %u, expected %u %u %u", i, s->type,
			 s->stage, s->code, w->type, w->stage, w->code);
		if (w->check_a)
			T_ASSERT(s->a == w->a, "record %zu: a = %" PRIu64 ", expected %" PRIu64, i,
				 s->a, w->a);
		T_ASSERT(s->tid == tid, "record %zu: tid %u, expected %u", i, s->tid, tid);
		T_ASSERT(s->t_mono_ns >= prev_mono && s->t_mono_ns >= rc.h->start_mono_ns,
			 "record %zu: time goes back", i);
		T_ASSERT(s->flags == 0, "record %zu: flags 0x%x without a sampler", i, s->flags);
		prev_mono = s->t_mono_ns;
		if (s->type == LW_EV_STAGE_BEGIN || s->type == LW_EV_STAGE_END) {
			T_ASSERT(s->rss_kb > 0, "record %zu: stage event without RSS", i);
			T_ASSERT(s->rss_age_ms < 1000, "record %zu: RSS %u ms old", i,
				 s->rss_age_ms);
			T_ASSERT(s->c == dg, "record %zu: candidate 0x%" PRIx64, i, s->c);
			T_ASSERT(s->a >= rc.h->start_boot_ns && s->b >= rc.h->start_real_ns,
				 "record %zu: clock triple before the open", i);
		}
	}
	T_ASSERT(rc.r[0].s.a == rc.h->start_boot_ns && rc.r[0].s.b == rc.h->start_real_ns &&
		 rc.r[0].s.c == APP_VERSION && rc.r[0].s.d == LW_BACKING_FILE,
		 "open record: a %" PRIu64 " b %" PRIu64 " c %" PRIu64 " d %u", rc.r[0].s.a,
		 rc.r[0].s.b, rc.r[0].s.c, rc.r[0].s.d);
	T_ASSERT(rc.r[11].s.a > 0 && rc.r[11].s.rss_kb > 0 && rc.r[11].s.a >= rc.r[11].s.rss_kb,
		 "memory record: VmSize %" PRIu64 " kB, RSS %u kB", rc.r[11].s.a,
		 rc.r[11].s.rss_kb);
	/* Its composition (ring-format.md, 8.1): anonymous and file-backed
	 * memory, each no more than the RSS plus what moved since (1 GiB is
	 * far more than this test does between the two reads). */
	T_ASSERT((uint32_t)rc.r[11].s.b > 0 && (uint32_t)rc.r[11].s.b < rc.r[11].s.rss_kb + 1048576u &&
			 (rc.r[11].s.b >> 32) > 0 && (rc.r[11].s.b >> 32) < rc.r[11].s.rss_kb + 1048576u,
		 "memory record: composition b 0x%" PRIx64 ", RSS %u kB", rc.r[11].s.b,
		 rc.r[11].s.rss_kb);
	T_ASSERT(rc.r[nwant - 1].s.a >= rc.h->start_boot_ns, "close record before open");
	release_ring(&rc);
	printf("events: %zu records in order, file %s\n", nwant, strrchr(path, '/') + 1);
}

/* With the sampler thread, events carry sampled RSS and derived clocks. */
static void run_sampler(const char *dir)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.example.app:sampled",
		.slot_count = SLOTS,
		.sampler_period_ms = 5,
	};
	struct lw_info info;
	struct ring_copy rc;
	struct lw *lw;
	size_t i, stage_events = 0;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open with sampler");
	T_ASSERT(lw->hdr->flags & LW_RUN_SAMPLER, "header flags 0x%x without LW_RUN_SAMPLER",
		 lw->hdr->flags);
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info");
	sleep_ms(20);
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "stage_begin");
	T_ASSERT(lw_mark(lw, LW_MARK_SESSIONS, 1) == 0, "mark");
	sleep_ms(12);
	T_ASSERT(lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE) == 0, "stage_end");
	T_ASSERT(lw_close(lw) == 0, "lw_close");

	read_ring(info.path, &rc, 0);
	T_ASSERT(rc.h->flags & LW_RUN_SAMPLER, "file flags 0x%x", rc.h->flags);
	for (i = 0; i < rc.n; i++) {
		const struct lw_ring_slot *s = &rc.r[i].s;
		int64_t boot_err;

		if (s->type == LW_EV_MARK)
			T_ASSERT(s->flags & LW_SLOT_F_RSS_SAMPLED, "mark flags 0x%x", s->flags);
		if (s->type != LW_EV_STAGE_BEGIN && s->type != LW_EV_STAGE_END)
			continue;
		stage_events++;
		T_ASSERT((s->flags & (LW_SLOT_F_RSS_SAMPLED | LW_SLOT_F_CLOCK_SAMPLED)) ==
			 (LW_SLOT_F_RSS_SAMPLED | LW_SLOT_F_CLOCK_SAMPLED),
			 "stage event flags 0x%x", s->flags);
		T_ASSERT(s->rss_kb > 0, "sampled stage event without RSS");
		/* BOOTTIME derived from the sampler's offset, close to the open's. */
		boot_err = (int64_t)(s->a - s->t_mono_ns) -
			   (int64_t)(rc.h->start_boot_ns - rc.h->start_mono_ns);
		T_ASSERT(boot_err > -1000000000 && boot_err < 1000000000,
			 "derived BOOTTIME off by %" PRId64 " ns", boot_err);
		T_ASSERT(s->b > s->t_mono_ns, "derived REALTIME %" PRIu64, s->b);
	}
	T_ASSERT(stage_events == 2, "%zu stage events", stage_events);
	release_ring(&rc);
}

/* A ring of 16 slots after 100 marks: the newest 16 records, contiguous. */
static void run_lap(const char *dir)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.example.app:lap",
		.slot_count = 16,
	};
	struct lw_info info;
	struct ring_copy rc;
	struct lw *lw;
	uint64_t i;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open lap");
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info");
	for (i = 0; i < 100; i++)
		T_ASSERT(lw_mark(lw, LW_MARK_RECOVERY, i) == 0, "mark %" PRIu64, i);
	T_ASSERT(lw_close(lw) == 0, "lw_close");

	read_ring(info.path, &rc, 0);
	/* open (ticket 0), 100 marks (1..100), close (101). */
	T_ASSERT(rc.h->head == 102 && rc.sc.head == 102, "head %" PRIu64 "/%" PRIu64, rc.h->head,
		 rc.sc.head);
	T_ASSERT(rc.sc.valid == 16 && rc.sc.missing == 0 && rc.sc.stale == 0 &&
		 rc.sc.empty == 0, "valid %" PRIu64 " missing %" PRIu64 " stale %" PRIu64,
		 rc.sc.valid, rc.sc.missing, rc.sc.stale);
	T_ASSERT(rc.sc.first_ticket == 86 && rc.sc.last_ticket == 101,
		 "tickets %" PRIu64 "..%" PRIu64, rc.sc.first_ticket, rc.sc.last_ticket);
	for (i = 0; i < 15; i++) {
		T_ASSERT(rc.r[i].ticket == 86 + i, "record %" PRIu64 " ticket %" PRIu64, i,
			 rc.r[i].ticket);
		T_ASSERT(rc.r[i].s.type == LW_EV_MARK && rc.r[i].s.a == 85 + i,
			 "ticket %" PRIu64 ": type %u value %" PRIu64, rc.r[i].ticket,
			 rc.r[i].s.type, rc.r[i].s.a);
	}
	T_ASSERT(rc.r[15].s.type == LW_EV_CLOSE, "last record type %u", rc.r[15].s.type);
	release_ring(&rc);
}

/*
 * A writer that stalls mid-write a full lap (a preempted thread): the
 * writers that lap it drop their record (-EAGAIN, counted in lapped) rather
 * than share the slot, and its record lands whole when it resumes.
 */
static void run_stalled(const char *dir)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.example.app:stalled",
		.slot_count = 16,
	};
	struct lw_ring_slot rec, *held;
	struct lw_info info;
	struct ring_copy rc;
	struct lw *lw;
	uint64_t t, i;
	int again = 0, r;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open stalled");
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info");
	T_ASSERT(ring_claim(&lw->w, &t, &held) == 0 && t == 1, "claim ticket 1 (got %" PRIu64 ")",
		 t);
	/* Tickets 2..41; 17 and 33 fall on the held slot. */
	for (i = 0; i < 40; i++) {
		r = lw_mark(lw, LW_MARK_SESSIONS, i);
		T_ASSERT(r == 0 || r == -EAGAIN, "mark %" PRIu64 ": %d", i, r);
		if (r == -EAGAIN) {
			T_ASSERT(i == 15 || i == 31, "mark %" PRIu64 " (ticket %" PRIu64
				 ") dropped", i, i + 2);
			again++;
		}
	}
	T_ASSERT(again == 2, "%d marks dropped while a writer held their slot, expected 2",
		 again);
	T_ASSERT(lw->hdr->lapped == 2, "lapped %" PRIu64, lw->hdr->lapped);
	T_ASSERT(held->seq == 2 * t + 1, "the held slot was taken over: seq %" PRIu64, held->seq);
	memset(&rec, 0, sizeof(rec));
	rec.type = LW_EV_MARK;
	rec.code = LW_MARK_RECOVERY;
	rec.a = 999;
	ring_publish(held, t, &rec);
	T_ASSERT(lw_close(lw) == 0, "lw_close");

	/* Window [27, 43): ticket 33's slot holds ticket 1, whole but stale. */
	read_ring(info.path, &rc, 1);
	T_ASSERT(rc.h->lapped == 2 && rc.sc.head == 43, "lapped %" PRIu64 " head %" PRIu64,
		 rc.h->lapped, rc.sc.head);
	T_ASSERT(rc.sc.valid == 15 && rc.sc.stale == 1 && rc.sc.missing == 1,
		 "valid %" PRIu64 " stale %" PRIu64 " missing %" PRIu64, rc.sc.valid, rc.sc.stale,
		 rc.sc.missing);
	for (i = 0; i < rc.n; i++)
		T_ASSERT(rc.r[i].ticket != 33 && rc.r[i].ticket >= 27, "ticket %" PRIu64 " read",
			 rc.r[i].ticket);
	release_ring(&rc);
}

/* A forked child's records, in a probe of its own (it may not write the
 * parent's: tests/probe-fork.c), carry its own thread id, not the parent's
 * cached one. */
static void run_fork_tid(const char *dir)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.example.app:fork",
		.slot_count = 16,
	};
	struct lw_info info, child_info;
	struct ring_copy rc;
	struct lw *lw;
	int status, fds[2];
	pid_t child;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open fork");
	T_ASSERT(lw_info(lw, &info) == 0, "lw_info");
	T_ASSERT(lw_mark(lw, LW_MARK_SESSIONS, 1) == 0, "parent mark");
	T_ASSERT(pipe(fds) == 0, "pipe");
	child = fork();
	T_ASSERT(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		struct lw *own;

		if (lw_close(lw) != -ECHILD || lw_open(&cfg, &own) != 0 ||
		    lw_mark(own, LW_MARK_SESSIONS, 2) != 0 || lw_info(own, &child_info) != 0 ||
		    lw_close(own) != 0 ||
		    write(fds[1], &child_info, sizeof(child_info)) != (ssize_t)sizeof(child_info))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	T_ASSERT(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0, "child mark");
	T_ASSERT(read(fds[0], &child_info, sizeof(child_info)) == (ssize_t)sizeof(child_info),
		 "the child's ring");
	close(fds[0]);
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	read_ring(info.path, &rc, 0);
	/* open, parent mark, close */
	T_ASSERT(rc.n == 3 && rc.r[1].s.a == 1, "%zu records", rc.n);
	T_ASSERT(rc.r[1].s.tid == (uint32_t)getpid(), "parent tid %u", rc.r[1].s.tid);
	release_ring(&rc);
	read_ring(child_info.path, &rc, 0);
	/* open, child mark, close */
	T_ASSERT(rc.n == 3 && rc.r[1].s.a == 2, "child's ring: %zu records", rc.n);
	T_ASSERT(rc.r[1].s.tid == (uint32_t)child, "child record has tid %u, child is %d",
		 rc.r[1].s.tid, (int)child);
	release_ring(&rc);
}

int main(void)
{
	char *dir = strdup(t_tmpdir("events"));

	check_configs(dir);
	run_events(dir);
	run_sampler(dir);
	run_lap(dir);
	run_stalled(dir);
	run_fork_tid(dir);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
