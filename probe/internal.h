/*
 * The probe's private state, shared by its files:
 *   setup.c   open, close, info, the run's file, rotation (may allocate)
 *   events.c  the event functions: the hot path (no locks, no malloc)
 *   memory.c  RSS from /proc/self/statm, what a stage event reads
 *   memory-proc.c  the composition (status), dma-buf buffers and PSI
 *   sampler.c the sampler thread: those read in the background, and its records
 *   crash.c   the fatal-signal handler (async-signal-safe only)
 *   crash-install.c  installing it, with its alternate stack
 *   advice.c  boot-loop advice from the previous runs' files
 *   storage.c sync to storage, and the previous-run file listing
 */
#ifndef LW_PROBE_INTERNAL_H
#define LW_PROBE_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <lastwords/probe.h>
#include <lastwords/ring.h>

#include "../src/ring.h"
#include "../src/ring_write.h"

#define LW_CRASH_SIGNALS 6
#define LW_RUNS_KEPT_MAX 64u /* lw_config.runs_kept at most */

/* What /proc/self/statm said, in kB. */
struct memory_statm {
	uint64_t size_kb, rss_kb, shared_kb;
};

/* What the memory is made of, in kB (schemas/ring-format.md, 8.1); source
 * is an enum lw_memory_source, 0 when neither file could be read. */
struct memory_composition {
	uint32_t source;
	uint64_t anon_kb, file_kb, shmem_kb, swap_kb;
};

/* The dma-buf buffers the process holds descriptors of. */
struct memory_dmabuf {
	uint64_t kb;
	uint32_t count;
	uint64_t exporter; /* digest of the exporter holding the most bytes, 0 if none */
};

/* /proc/pressure/memory: avg10 in hundredths of a percent, total in us. */
struct memory_psi {
	uint32_t some_avg10, full_avg10;
	uint64_t some_total_us;
};

/* What the sampler thread wrote last, to write again only on a change. */
struct memory_watch {
	int written;                     /* a memory record was written */
	struct memory_composition last;  /* in it */
	uint64_t last_ns;                /* when */
	uint64_t dmabuf_ns;              /* the last dma-buf scan, 0 for none */
	struct memory_dmabuf dmabuf;     /* the last graphics record's, zeros for none */
};

struct lw {
	struct ring_writer w;
	struct lw_ring_header *hdr;
	void *map;
	size_t map_size;
	int fd;                     /* the ring file, holding its flock; -1 when anonymous */
	int statm_fd;               /* /proc/self/statm, kept open; -1 if unavailable */
	int status_fd;              /* /proc/self/status, kept open; -1 if unavailable */
	/* Kept open for the sampler thread only (-1 without one, or if
	 * unavailable): /proc/self/fd and /proc/self/fdinfo (O_DIRECTORY), for
	 * the dma-buf count. */
	int fd_dir_fd;
	int fdinfo_dir_fd;
	/* /proc/pressure/memory, or psi_errno why not: read by the sampler, or
	 * without one by lw_memory_sample(), through memory_psi_record(),
	 * which says "not readable" once (psi_unreadable_said). */
	int psi_fd;
	int psi_errno;
	atomic_int psi_unreadable_said;
	/* lw_memory_sample()'s last PSI record: "some avg10" + 1 (0: none yet),
	 * and whether "full avg10" was non-zero. */
	_Atomic uint32_t psi_last_some;
	atomic_int psi_last_full;
	uint32_t page_kb;
	enum lw_backing backing;
	int fallback_error;
	pid_t pid;                  /* the process that opened it */
	uint32_t gate;              /* lw_gate at open (setup.c) */
	char path[512];
	char process[LW_RING_PROCESS_MAX];
	uint64_t app_version;
	struct lw_advice advice;    /* computed at open */
	uint64_t advice_delegate;   /* the deaths' delegate and runtime version, 0: unknown */
	uint64_t advice_runtime;

	/* The conditions marked in this run (lw_mark()), for lw_advice(): the
	 * last delegate and runtime_version values, 0 if none. */
	_Atomic uint64_t delegate;
	_Atomic uint64_t runtime_version;

	/* Samples published for the event path (memory.c). */
	_Atomic uint32_t rss_kb;
	_Atomic uint64_t rss_at_ns;     /* CLOCK_MONOTONIC of the sample, 0 if none */
	_Atomic uint64_t boot_off_ns;   /* BOOTTIME - MONOTONIC, from the sampler */
	_Atomic uint64_t real_off_ns;   /* REALTIME - MONOTONIC (two's complement) */
	atomic_int sampler_running;

	/* Sampler thread. */
	uint32_t sampler_period_ms;
	pthread_t sampler;
	pthread_mutex_t sampler_mu;
	pthread_cond_t sampler_cv;
	int sampler_stop;
	int sampler_started;
	struct memory_watch watch;  /* the sampler thread's own: no other reads it */

	/* Crash handler (crash.c). */
	int crash_installed;
};

/*
 * The gate that every call on a probe passes (lw_usable()): the number of
 * forks that led to this process, times 2, plus LW_GATE_CRASHED. A forked
 * child adds 2 (setup.c, its pthread_atfork handler), so a probe opened
 * by its parent no longer writes. The crash handler (crash.c) sets
 * LW_GATE_CRASHED before it writes its record, so that the records of the
 * threads that keep running until the process dies cannot push the crash
 * record out of the ring. A probe keeps the value it was opened under.
 */
#define LW_GATE_CRASHED 1u
extern _Atomic uint32_t lw_gate;

/*
 * 0 when lw may be used to write: -EINVAL for NULL; -ECHILD in a process
 * forked from the one that opened it, which must never write its parent's
 * ring; -ECANCELED once the crash handler recorded the process's crash.
 * Costs one load. Relaxed, paired with nothing: a fork changes the gate in
 * the child's one thread before fork() returns there, so every later call
 * in that process is ordered after it (by program order, or by
 * pthread_create for the threads it starts). The crash handler's change
 * reaches the other threads a little later: one that has not seen it yet
 * adds a record or two after the crash record, and pushing that out would
 * take a whole lap of them.
 * Context: signal-safe; does not allocate; does not block.
 */
static inline int lw_usable(const struct lw *lw)
{
	uint32_t g;

	if (!lw)
		return -EINVAL;
	g = atomic_load_explicit(&lw_gate, memory_order_relaxed);
	if (g == lw->gate)
		return 0;
	return ((g ^ lw->gate) & ~LW_GATE_CRASHED) ? -ECHILD : -ECANCELED;
}

/* lw_usable() for the functions that only read: they still answer after a
 * crash. Context: signal-safe; does not allocate; does not block. */
static inline int lw_readable(const struct lw *lw)
{
	int rc = lw_usable(lw);

	return rc == -ECANCELED ? 0 : rc;
}

/* A clock's time in ns, 0 if it cannot be read. Inline: the event
 * functions read it on their hot path. Context: signal-safe
 * (clock_gettime); no allocation; does not block. */
static inline uint64_t lw_now_ns(int clock_id)
{
	struct timespec ts;

	if (clock_gettime(clock_id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* boot-id.c: this boot's id (/proc/sys/kernel/random/boot_id), or zeros.
 * Context: not signal-safe; no allocation; does not block. */
void lw_read_boot_id(uint8_t out[16]);

/* linux_dirent64, as getdents64(2) fills its buffer. */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* events.c */
void lw_tid_forget(void);
void lw_event_fill(struct lw *lw, struct lw_ring_slot *s, enum lw_event_type type,
		   unsigned stage, unsigned code);
/* A memory record of statm's VmSize and the composition (8.1); and
 * lw_memory_sample()'s: statm, then status, then the record. 0 or -errno.
 * Context: signal-safe; does not allocate; does not block. */
int memory_record_write(struct lw *lw, const struct memory_statm *st,
			const struct memory_composition *c);
int memory_record_sigsafe(struct lw *lw);
/* A pressure record of PSI when it moved (ring-format.md, 8.1), or once
 * per run one that says it is not readable: the sampler's each period, or
 * lw_memory_sample()'s without a sampler. Same context. */
void memory_psi_record(struct lw *lw);

/* memory.c (statm) and memory-proc.c (status, dma-buf, PSI): each Context:
 * signal-safe; does not allocate; does not block (reads of /proc). */
int memory_statm_sigsafe(struct lw *lw, struct memory_statm *out);
int memory_sample_sigsafe(struct lw *lw);
void memory_composition_sigsafe(struct lw *lw, const struct memory_statm *st,
				struct memory_composition *out);
int memory_dmabuf_scan(struct lw *lw, struct memory_dmabuf *out);
int memory_psi_read(struct lw *lw, struct memory_psi *out);
void memory_open_files(struct lw *lw, int sampler);
void memory_close_files(struct lw *lw);
/* The parsers, for the tests: 0, or -EIO when a line they need is missing. */
int memory_parse_status(const char *buf, size_t n, struct memory_composition *out);
int memory_parse_fdinfo(const char *buf, size_t n, uint64_t *size, uint64_t *exporter,
			uint64_t *ino);
int memory_parse_psi(const char *buf, size_t n, struct memory_psi *out);
int memory_is_dmabuf_link(const char *link, size_t n);

/* sampler.c: the sampler thread. Context: not signal-safe; allocates (a
 * thread) at start; blocks (join) at stop. */
int memory_sampler_start(struct lw *lw);
void memory_sampler_stop(struct lw *lw);

/* crash.c: the handler and what it shares with crash-install.c */
extern const int crash_signals[LW_CRASH_SIGNALS];
extern struct sigaction crash_prev[LW_CRASH_SIGNALS];
extern struct lw *_Atomic crash_lw;
extern atomic_int crash_owner; /* thread id of the first fatal signal's thread, 0 */
void crash_handler_sigsafe(int sig, siginfo_t *si, void *uc);

/* crash-install.c */
void crash_release(struct lw *lw);

/* storage.c */
struct run_entry {
	char *name;                 /* file name (not a path) */
	int live;                   /* a writer holds its flock */
	int valid;                  /* hdr passed R1..R7 */
	struct lw_ring_header hdr;  /* the header as read, when valid */
	int conditions_read;        /* storage_read_conditions() ran */
	uint64_t delegate;          /* a dead run's last delegate mark, 0 if none is left */
	uint64_t runtime_version;   /* and its last runtime_version mark */
	int era;                    /* for the order: unreadable 0, earlier boot 1, this boot 2 */
	uint64_t boot_key;          /* for the order: its boot's earliest start_real_ns */
};
struct run_list {
	const char *dir;            /* where they are */
	struct run_entry *runs;     /* oldest first */
	size_t count;
	char **stale;               /* temporaries of killed opens (file names) */
	size_t stale_count;
};
/* A run's file is made as "." + its name + LW_TEMP_SUFFIX (setup.c). */
#define LW_TEMP_SUFFIX ".tmp"
int storage_list_runs(const char *dir, const char *process, const uint8_t boot_id[16],
		      struct run_list *out);
/* Called for each name in dir that is a run of process (is_temp 0) or the
 * temporary of one (1); non-zero stops the walk and is returned. */
typedef int (*storage_run_fn)(const char *dir, const char *name, int is_temp, void *arg);
/* The one walk of a run directory, with getdents64 into a buffer on the
 * stack. 0, fn's non-zero value, or -errno of the directory.
 * Context: not signal-safe; no allocation; blocks (I/O). */
int storage_walk_runs(const char *dir, const char *process, storage_run_fn fn, void *arg);
/* Read the run dir/name into *e (live, valid, header; e->name untouched):
 * 0, -EINVAL when it is not a regular file, or -errno of its open.
 * Context: not signal-safe; no allocation; does not block. */
int storage_read_run(const char *dir, const char *name, struct run_entry *e);
/*
 * Fill e's conditions from a dead run's records: the last delegate and
 * runtime_version marks, 0 where none is left (once per entry; a live or
 * invalid run keeps 0). The slots are read through a read-only mapping by
 * ring_scan(), which copies each slot and applies the seq and checksum
 * rules (R8..R12), so a file that changes meanwhile gives torn slots,
 * never a crash. With storage_read_run(), the one place where the probe
 * reads a ring file. Only advice_compute() calls it, for the runs it
 * counts, so an open scans no more rings than its loop has.
 * Context: not signal-safe; no allocation (a mapping); does not block.
 */
void storage_read_conditions(const char *dir, struct run_entry *e);
/* Sort runs oldest first, as storage_list_runs() does. */
void storage_order_runs(struct run_entry *runs, size_t n, const uint8_t boot_id[16]);
void storage_free_runs(struct run_list *l);
int storage_file_is_live(int fd);

/* advice.c */
struct advice_result {
	struct lw_advice advice;
	uint64_t stable_candidate;
	uint64_t delegate;          /* the deaths' delegate and runtime version, 0: unknown */
	uint64_t runtime_version;
};
/* Deaths in a row that give each advice (lw_config's, defaults applied). */
struct advice_thresholds {
	uint32_t skip_prewarm_after;
	uint32_t quarantine_after;
};
void advice_thresholds_of(const struct lw_config *cfg, struct advice_thresholds *out);
void advice_compute(const struct run_list *runs, const char *process, uint64_t app_version,
		    const struct advice_thresholds *th, struct advice_result *out);

#endif
