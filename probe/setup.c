/*
 * Opening and closing the probe: the run's file (created, preallocated with
 * real blocks, mapped, locked), the fallback to anonymous memory, the header,
 * rotation of previous runs, advice, and the resources the event path and
 * the crash path use later. Everything that allocates happens here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/cpu.h"
#include "../src/hex.h"
#include "../src/ring.h"
#include "../src/run-name.h"
#include "internal.h"


static atomic_int lw_active;

/*
 * Forks. A forked child must never write its parent's ring, and must not
 * keep its lock: flock() locks belong to the open file, which the child's
 * copy of the descriptor shares, so a child that outlives its parent would
 * make the dead run look live. The child handler closes the child's copy of
 * the ring's lock descriptor (the mapping is made through another open of
 * the file: map_file()) and moves lw_gate on, which every call on a probe
 * compares with the value it was opened under (lw_usable()). fork_mu
 * makes "the descriptor is open" and "fork_fd names it" one step as a fork
 * sees them: fork() takes it in the prepare handler, so a child never
 * inherits a ring descriptor that it does not know of. Only open() and
 * close() of that descriptor run under it.
 */
static pthread_mutex_t fork_mu = PTHREAD_MUTEX_INITIALIZER;
static int fork_fd = -1; /* the ring file's descriptor; under fork_mu */

static void fork_prepare(void)
{
	pthread_mutex_lock(&fork_mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&fork_mu);
}

/* In the child, its only thread: async-signal-safe calls only. */
static void fork_child(void)
{
	if (fork_fd >= 0)
		close(fork_fd); /* the child's copy: the parent's lock stays the parent's */
	fork_fd = -1;
	/* Relaxed: see lw_usable(). */
	atomic_fetch_add_explicit(&lw_gate, 2, memory_order_relaxed);
	lw_tid_forget();
	pthread_mutex_unlock(&fork_mu);
}

/* Register the fork handlers, once per process. 0 or -ENOMEM. */
static int fork_handlers_setup(void)
{
	static atomic_int registered;

	/* The exchange makes the test and the set one step, whichever thread
	 * opens first; a failed registration is undone so the next open retries.
	 * Orders nothing else. */
	if (atomic_exchange(&registered, 1))
		return 0;
	if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0) {
		atomic_store(&registered, 0);
		return -ENOMEM;
	}
	return 0;
}

/* Open the ring's file (flags as open(2)) and make it known to the fork
 * handler, as one step for fork(). fd or -errno. */
static int ring_fd_open(const char *path, int flags, mode_t mode)
{
	int fd;

	pthread_mutex_lock(&fork_mu);
	fd = open(path, flags, mode);
	if (fd >= 0)
		fork_fd = fd;
	pthread_mutex_unlock(&fork_mu);
	return fd >= 0 ? fd : -errno;
}

/* Close it (this drops the lock), as one step for fork(). */
static void ring_fd_close(int fd)
{
	pthread_mutex_lock(&fork_mu);
	fork_fd = -1;
	close(fd);
	pthread_mutex_unlock(&fork_mu);
}

/* 16 random bytes from /dev/urandom, or mixed from clocks and pid. */
static void make_run_id(uint8_t out[16])
{
	uint64_t x, y;
	ssize_t n = -1;
	int fd, i;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, out, 16);
		close(fd);
	}
	if (n == 16)
		return;
	x = lw_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32);
	y = lw_now_ns(CLOCK_MONOTONIC) ^ (uint64_t)(uintptr_t)out;
	for (i = 0; i < 16; i++) {
		uint64_t *v = i < 8 ? &x : &y;

		/* splitmix64 step */
		*v += 0x9e3779b97f4a7c15u;
		out[i] = (uint8_t)((*v ^ (*v >> 31)) * 0xbf58476d1ce4e5b9u >> 56);
	}
}

static int config_check(const struct lw_config *cfg, uint32_t *slots, uint32_t *kept)
{
	if (!cfg || !cfg->process_name || !cfg->process_name[0] ||
	    strlen(cfg->process_name) >= LW_RING_PROCESS_MAX)
		return -EINVAL;
	*slots = cfg->slot_count ? cfg->slot_count : LW_DEFAULT_SLOTS;
	if (*slots < LW_RING_SLOTS_MIN || *slots > LW_RING_SLOTS_MAX || (*slots & (*slots - 1)))
		return -EINVAL;
	*kept = cfg->runs_kept ? cfg->runs_kept : LW_DEFAULT_RUNS_KEPT;
	if (*kept > LW_RUNS_KEPT_MAX)
		return -EINVAL;
	return 0;
}

/* Give the file real blocks: posix_fallocate, or zero writes where the file
 * system cannot. A sparse MAP_SHARED file raises SIGBUS when the disk fills. */
static int preallocate(int fd, size_t size)
{
	static const char zeros[4096];
	struct rlimit rl;
	size_t off;
	int rc;

	/* Growing past RLIMIT_FSIZE would raise SIGXFSZ, which kills. */
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)size > rl.rlim_cur)
		return -EFBIG;
	rc = posix_fallocate(fd, 0, (off_t)size);
	if (rc == 0)
		return 0;
	if (rc != EOPNOTSUPP && rc != ENOSYS && rc != EINVAL)
		return -rc;
	for (off = 0; off < size; off += sizeof(zeros)) {
		size_t len = size - off < sizeof(zeros) ? size - off : sizeof(zeros);
		ssize_t n = pwrite(fd, zeros, len, (off_t)off);

		if (n != (ssize_t)len)
			return n < 0 ? -errno : -ENOSPC;
	}
	return 0;
}

/* The run's file name: "<process>.<YYYYMMDDTHHMMSS.mmmZ>.<pid>.lwr". */
static void run_file_name(char *dst, size_t len, const char *process, uint64_t real_ns,
			  pid_t pid)
{
	char proc[LW_RING_PROCESS_MAX];
	time_t secs = (time_t)(real_ns / 1000000000u);
	struct tm tm;

	run_name_process(proc, sizeof(proc), process);
	memset(&tm, 0, sizeof(tm));
	gmtime_r(&secs, &tm);
	snprintf(dst, len, "%s.%04d%02d%02dT%02d%02d%02d.%03uZ.%d.lwr", proc, tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(real_ns / 1000000u % 1000u), (int)pid);
}

/*
 * Create path (a temporary name), lock it, preallocate it and map it.
 * Returns 0 or -errno; on failure nothing is left behind.
 *
 * The lock is held through a descriptor of its own (lw->fd), and the file
 * is mapped through a second open of it. A flock() lock belongs to the open
 * file, and a shared mapping holds its open file as long as it exists: a
 * forked child's copy of the mapping would keep the lock of a mapping made
 * through the locked file, even once the fork handler closed the child's
 * copy of the descriptor.
 */
static int map_file(struct lw *lw, const char *path)
{
	int fd, mfd, rc;
	void *map;

	fd = ring_fd_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		rc = -errno;
		goto fail_unlink;
	}
	rc = preallocate(fd, lw->map_size);
	if (rc != 0)
		goto fail_unlink;
	mfd = open(path, O_RDWR | O_CLOEXEC);
	if (mfd < 0) {
		rc = -errno;
		goto fail_unlink;
	}
	map = mmap(NULL, lw->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	rc = map == MAP_FAILED ? -errno : 0;
	close(mfd); /* the mapping keeps what it needs */
	if (rc != 0)
		goto fail_unlink;
	lw->map = map;
	lw->fd = fd;
	return 0;

fail_unlink:
	unlink(path);
	ring_fd_close(fd);
	return rc;
}

static int map_anonymous(struct lw *lw)
{
	void *map = mmap(NULL, lw->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	if (map == MAP_FAILED)
		return -errno;
	lw->map = map;
	lw->fd = -1;
	return 0;
}

/* Take the write fault of every page now rather than on the event path. */
static void touch_pages(struct lw *lw)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;
	volatile unsigned char *p = lw->map;

	if (page == 0 || page == (size_t)-1)
		page = 4096;
	for (off = LW_RING_HEADER_SIZE; off < lw->map_size; off += page)
		p[off] = 0;
}

/* Remove the oldest previous runs (listed before this run's file was
 * made) beyond the newest kept, skipping any that a live writer holds. */
static void rotate(const char *dir, const struct run_list *runs, uint32_t kept)
{
	char path[1024];
	size_t i, excess = runs->count > kept ? runs->count - kept : 0;

	for (i = 0; i < excess; i++)
		if (!runs->runs[i].live &&
		    snprintf(path, sizeof(path), "%s/%s", dir, runs->runs[i].name) < (int)sizeof(path))
			unlink(path);
}

static void write_open_events(struct lw *lw, uint32_t budget_kb)
{
	struct lw_ring_slot s;

	lw_event_fill(lw, &s, LW_EV_OPEN, LW_STAGE_NONE, 0);
	s.a = lw->hdr->start_boot_ns;
	s.b = lw->hdr->start_real_ns;
	s.c = lw->app_version;
	s.d = (uint32_t)lw->backing;
	ring_write(&lw->w, &s);
	if (lw->advice.kind != LW_ADVICE_NONE) {
		lw_event_fill(lw, &s, LW_EV_ADVICE, lw->advice.stage, lw->advice.kind);
		s.a = lw->advice.candidate;
		s.b = lw->advice.count;
		s.c = lw->advice.stable_candidate;
		ring_write(&lw->w, &s);
	}
	if (budget_kb) {
		lw_event_fill(lw, &s, LW_EV_MARK, LW_STAGE_NONE, LW_MARK_BUDGET);
		s.a = budget_kb;
		ring_write(&lw->w, &s);
	}
}

/* Write the header and the open records into the mapped ring. */
static void start_ring(struct lw *lw, const struct ring_header_params *hp, uint32_t budget_kb)
{
	lw->hdr = lw->map;
	lw->w.hdr = lw->hdr;
	lw->w.slots = (struct lw_ring_slot *)((unsigned char *)lw->map + LW_RING_HEADER_SIZE);
	lw->w.mask = hp->slot_count - 1;
	ring_header_init(lw->hdr, hp);
	write_open_events(lw, budget_kb);
}

/* Remove the temporaries of opens that were killed (storage.c lists those
 * no writer holds). A temporary is created and then locked (map_file()):
 * one of a concurrent open of the same process, listed between the two
 * steps, would be removed, and that open would fall back to anonymous
 * memory when its rename fails. Two live processes of one name are not a
 * case the probe serves otherwise either. */
static void remove_stale(const char *dir, const struct run_list *runs)
{
	char path[1024];
	size_t i;

	for (i = 0; i < runs->stale_count; i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, runs->stale[i]) < (int)sizeof(path))
			unlink(path);
}

/*
 * Make the run's file and start its ring there. A ring file appears under
 * its final name only once its header is written (DESIGN.md): the file is
 * made as ".<name>.tmp", which no reader takes for a run, then locked,
 * preallocated, mapped and given its header and open records, and only
 * then renamed. An open killed before the rename leaves only the
 * temporary, which a later open removes (remove_stale()). Returns 0 with
 * lw->backing LW_BACKING_FILE, or -errno with nothing left behind and
 * lw->path empty.
 */
static int make_file(struct lw *lw, const char *dir, const struct run_list *runs,
		     const struct ring_header_params *hp, uint32_t budget_kb)
{
	char name[LW_RING_PROCESS_MAX + 48], tmp[sizeof(lw->path) + 8];
	int tries, rc;

	remove_stale(dir, runs);
	/* A run of the same pid in the same millisecond (a reopen): the name
	 * only orders the files, so move its time on by a millisecond. Only
	 * this process makes names with its pid, so a name free now is still
	 * free at the rename. */
	for (tries = 0;; tries++) {
		if (tries == 16)
			return -EEXIST;
		run_file_name(name, sizeof(name), hp->process,
			      hp->start_real_ns + (uint64_t)tries * 1000000u, (pid_t)hp->pid);
		if (snprintf(lw->path, sizeof(lw->path), "%s/%s", dir, name) >=
			    (int)sizeof(lw->path) ||
		    snprintf(tmp, sizeof(tmp), "%s/.%s" LW_TEMP_SUFFIX, dir, name) >= (int)sizeof(tmp)) {
			rc = -ENAMETOOLONG;
			goto fail_path;
		}
		if (access(lw->path, F_OK) != 0)
			break;
	}
	rc = map_file(lw, tmp);
	if (rc != 0)
		goto fail_path;
	lw->backing = LW_BACKING_FILE;
	touch_pages(lw);
	start_ring(lw, hp, budget_kb);
	/* The header and records are in the page cache, stored before this
	 * system call: whoever sees the new name reads them. */
	if (rename(tmp, lw->path) != 0) {
		rc = -errno;
		munmap(lw->map, lw->map_size);
		unlink(tmp);
		ring_fd_close(lw->fd);
		lw->fd = -1;
		lw->map = NULL;
		lw->backing = 0;
		goto fail_path;
	}
	return 0;

fail_path:
	lw->path[0] = '\0';
	return rc;
}

int lw_open(const struct lw_config *cfg, struct lw **out)
{
	struct ring_header_params hp;
	struct advice_thresholds th;
	struct advice_result adv;
	struct run_list runs = { 0 };
	uint8_t run_id[16], boot_id[16];
	uint32_t slots, kept;
	struct lw *lw;
	int expected = 0, rc;
	long page;

	if (!out)
		return -EINVAL;
	rc = config_check(cfg, &slots, &kept);
	if (rc != 0)
		return rc;
	if (!atomic_compare_exchange_strong(&lw_active, &expected, 1))
		return -EBUSY;
	cpu_crc32c_setup();
	rc = fork_handlers_setup();
	if (rc != 0)
		goto fail_active;
	lw = calloc(1, sizeof(*lw));
	if (!lw) {
		rc = -ENOMEM;
		goto fail_active;
	}
	lw->pid = getpid();
	/* A new run writes, whatever became of the last one. Relaxed: see
	 * lw_usable(); the handle reaches other threads through whatever hands
	 * them the pointer. */
	atomic_fetch_and_explicit(&lw_gate, ~LW_GATE_CRASHED, memory_order_relaxed);
	lw->gate = atomic_load_explicit(&lw_gate, memory_order_relaxed);
	lw->fd = -1;
	lw->statm_fd = -1;
	lw->status_fd = lw->fd_dir_fd = lw->fdinfo_dir_fd = lw->psi_fd = -1;
	snprintf(lw->process, sizeof(lw->process), "%s", cfg->process_name);
	lw->app_version = cfg->app_version;
	lw->map_size = LW_RING_HEADER_SIZE + (size_t)slots * LW_RING_SLOT_SIZE;
	page = sysconf(_SC_PAGESIZE);
	lw->page_kb = page > 1024 ? (uint32_t)(page / 1024) : 4;

	memset(&hp, 0, sizeof(hp));
	hp.slot_count = slots;
	hp.pid = (uint32_t)lw->pid;
	hp.writer_version = LW_VERSION_MAJOR << 16 | LW_VERSION_MINOR << 8 | LW_VERSION_PATCH;
	hp.run_id = run_id;
	hp.boot_id = boot_id;
	hp.start_mono_ns = lw_now_ns(CLOCK_MONOTONIC);
	hp.start_boot_ns = lw_now_ns(CLOCK_BOOTTIME);
	hp.start_real_ns = lw_now_ns(CLOCK_REALTIME);
	hp.app_version = cfg->app_version;
	hp.memory_budget_kb = cfg->memory_budget_kb;
	hp.process = cfg->process_name;
	make_run_id(run_id);
	lw_read_boot_id(boot_id);

	/* The previous runs, listed before this run's file exists: for the
	 * advice now, and for rotation once the file is made. */
	if (cfg->dir)
		storage_list_runs(cfg->dir, cfg->process_name, boot_id, &runs); /* or none */
	advice_thresholds_of(cfg, &th);
	advice_compute(&runs, cfg->process_name, cfg->app_version, &th, &adv);
	lw->advice = adv.advice;
	lw->advice_delegate = adv.delegate;
	lw->advice_runtime = adv.runtime_version;
	hp.stable_candidate = adv.stable_candidate;

	/* The open records carry a memory sample. */
	lw->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	memory_open_files(lw, cfg->sampler_period_ms != 0);
	memory_sample_sigsafe(lw);

	rc = cfg->dir ? make_file(lw, cfg->dir, &runs, &hp, cfg->memory_budget_kb) : 0;
	if (lw->backing != LW_BACKING_FILE) {
		lw->backing = LW_BACKING_ANONYMOUS;
		lw->fallback_error = rc;
		rc = map_anonymous(lw);
		if (rc != 0)
			goto fail_free;
		start_ring(lw, &hp, cfg->memory_budget_kb);
	}

	lw->sampler_period_ms = cfg->sampler_period_ms;
	if (cfg->sampler_period_ms)
		memory_sampler_start(lw); /* without it, stage events read statm */

	if (lw->backing == LW_BACKING_FILE)
		rotate(cfg->dir, &runs, kept);
	storage_free_runs(&runs);
	*out = lw;
	return lw->backing == LW_BACKING_FILE ? 0 : LW_OPEN_ANONYMOUS;

fail_free:
	if (lw->statm_fd >= 0)
		close(lw->statm_fd);
	memory_close_files(lw);
	storage_free_runs(&runs);
	free(lw);
fail_active:
	atomic_store(&lw_active, 0);
	return rc;
}

#if defined(__ELF__)
/*
 * lw_open@LASTWORDS_0.1, for programs built against a probe.h whose
 * struct lw_config ended at sampler_period_ms (probe.h, lw_config): it reads
 * that much of *cfg and no more, and gives the newer fields their 0, the
 * defaults. lw_open() itself is lw_open@@LASTWORDS_0.2. The name is local
 * (liblastwords.map); only its versioned alias is exported.
 */
LW_API int compat_lw_open_0_1(const struct lw_config *cfg, struct lw **out);
__asm__(".symver compat_lw_open_0_1, lw_open@LASTWORDS_0.1");
int compat_lw_open_0_1(const struct lw_config *cfg, struct lw **out)
{
	struct lw_config whole;

	if (!cfg)
		return lw_open(NULL, out);
	memset(&whole, 0, sizeof(whole));
	memcpy(&whole, cfg, offsetof(struct lw_config, skip_prewarm_after));
	return lw_open(&whole, out);
}
#endif

/* The close record, and the header marked CLEAN_EXIT. */
static void write_close(struct lw *lw)
{
	struct lw_ring_slot s;
	int i;

	lw_event_fill(lw, &s, LW_EV_CLOSE, LW_STAGE_NONE, 0);
	s.a = lw_now_ns(CLOCK_BOOTTIME);
	s.b = lw_now_ns(CLOCK_REALTIME);
	for (i = 0; i < 4 && ring_write(&lw->w, &s) != 0; i++)
		;
	/* Release: a reader that sees CLEAN_EXIT sees the close record. */
	atomic_store_explicit(A32(&lw->hdr->state), LW_STATE_CLEAN_EXIT, memory_order_release);
}

/*
 * The handle that lw_close() released in a forked child without freeing
 * it, kept reachable so that a leak checker does not report it.
 */
static struct lw *released_in_child;

int lw_close(struct lw *lw)
{
	/* In a forked child, release the child's copy and write nothing: its
	 * sampler thread does not exist there, and its copy of the ring's
	 * descriptor was closed at the fork (fork_child()). Only
	 * async-signal-safe calls there (liblastwords(3), FORKS): the child of
	 * a multithreaded process may find any lock of the allocator held by a
	 * thread that did not come with it, so the handle is not freed; its
	 * memory goes with the child's exec or exit. After a recorded crash
	 * (that an earlier handler survived), write nothing either: the run
	 * ended by its crash. */
	int rc = lw_usable(lw), forked = rc == -ECHILD;

	if (!lw)
		return 0;
	if (!forked)
		memory_sampler_stop(lw);
	crash_release(lw);
	if (rc == 0)
		write_close(lw);
	munmap(lw->map, lw->map_size);
	if (lw->fd >= 0 && !forked)
		ring_fd_close(lw->fd); /* drops the flock */
	if (lw->statm_fd >= 0)
		close(lw->statm_fd);
	memory_close_files(lw);
	if (forked)
		released_in_child = lw;
	else
		free(lw);
	atomic_store(&lw_active, 0);
	return forked ? -ECHILD : 0;
}

int lw_info(const struct lw *lw, struct lw_info *out)
{
	int rc = lw_readable(lw);

	if (rc != 0)
		return rc;
	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->backing = lw->backing;
	out->fallback_error = lw->fallback_error;
	memcpy(out->path, lw->path, sizeof(out->path));
	memcpy(out->run_id, lw->hdr->run_id, sizeof(out->run_id));
	hex_encode(out->run_id_hex, lw->hdr->run_id, sizeof(lw->hdr->run_id));
	out->slot_count = lw->w.mask + 1;
	out->candidate = atomic_load_explicit(CA64(&lw->hdr->candidate), memory_order_relaxed);
	return 0;
}
