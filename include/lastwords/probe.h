/*
 * liblastwords: the probe linked into an on-device inference process.
 *
 * The probe records redacted lifecycle events (stages, marks, memory, crash)
 * into a crash-safe ring in an mmap'd file, one file per run, so the last
 * events survive SIGKILL and native crashes. Records hold enums, numbers and
 * digests only. At open it reads the previous runs of this process and
 * advises the app when they died in a loop.
 *
 * Functions return 0 or a negative errno value and never set errno (except
 * where noted). Each comment ends with the function's context:
 *   signal-safe: may be called from a signal handler;
 *   allocates:   may call malloc or create threads;
 *   blocks:      may wait on I/O or another thread.
 * The event functions are lock-free: any number of threads may call them at
 * once, and a writer never waits for another. When a record's slot is still
 * being written by a writer a full lap of the ring behind (one preempted for
 * that long), the newer record is dropped rather than mixed with it: the
 * function returns -EAGAIN and the header's lapped counter counts it.
 *
 * A process forked from the one that opened a probe never writes its ring:
 * every function given the inherited probe returns -ECHILD and does
 * nothing, and lw_close() releases the child's copy without writing. There,
 * all of them are async-signal-safe, as POSIX asks of the child of a
 * multithreaded process until it execs; lw_open() is not, so a child opens
 * a probe of its own only if its parent was single-threaded, or after an
 * exec (liblastwords(3), FORKS).
 */
#ifndef LASTWORDS_PROBE_H
#define LASTWORDS_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include <lastwords/vocab.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LW_API __attribute__((visibility("default")))
#else
#define LW_API
#endif

#define LW_VERSION_MAJOR 0
#define LW_VERSION_MINOR 1
#define LW_VERSION_PATCH 0

#define LW_DEFAULT_SLOTS 4096u
#define LW_DEFAULT_RUNS_KEPT 4u
#define LW_DEFAULT_SKIP_PREWARM_AFTER 1u /* deaths in a row */
#define LW_DEFAULT_QUARANTINE_AFTER 2u

/* Session ids are the app's small integers in [0, LW_SESSIONS_MAX). Session
 * 0 is the process's own: open for the whole run, the one the calls without
 * a session write to. */
#define LW_SESSIONS_MAX 16u

struct lw;

/*
 * The struct grows only at its end, and each growth gives lw_open() a new
 * symbol version (probe/liblastwords.map): a program built against an older
 * probe.h calls the lw_open of its version, which reads the struct as that
 * version laid it out and takes the defaults for the fields it lacks. Every
 * new field reads 0 as its default, so a zeroed struct keeps its meaning.
 * Fields up to sampler_period_ms: LASTWORDS_0.1; the thresholds: 0.2.
 * That takes a loader that binds symbol versions (glibc's, Android's);
 * musl's does not, and there a program must be built against the probe.h
 * of the library it runs with.
 */
struct lw_config {
	const char *dir;            /* directory for ring files; NULL: anonymous memory only */
	const char *process_name;   /* e.g. "com.example.app:inference"; required */
	uint32_t slot_count;        /* power of two in [16, 2^24]; 0: LW_DEFAULT_SLOTS */
	uint32_t runs_kept;         /* previous runs kept beside this one; 0: LW_DEFAULT_RUNS_KEPT */
	uint64_t app_version;       /* the app's versionCode */
	uint32_t memory_budget_kb;  /* memory budget for this process; 0: none */
	uint32_t sampler_period_ms; /* RSS sampler thread period; 0: no thread */
	/* Advice (lw_advice()): quarantine after this many deaths in a row, else
	 * skip_prewarm after that many; 0: LW_DEFAULT_QUARANTINE_AFTER (2) and
	 * LW_DEFAULT_SKIP_PREWARM_AFTER (1). */
	uint32_t skip_prewarm_after;
	uint32_t quarantine_after;
};

/* lw_info.backing */
enum lw_backing {
	LW_BACKING_FILE = 1,      /* the ring is a preallocated file */
	LW_BACKING_ANONYMOUS = 2, /* the file could not be made; events stay in memory */
};

/* lw_open() returns this when it fell back to anonymous memory. */
#define LW_OPEN_ANONYMOUS 1

struct lw_info {
	enum lw_backing backing;
	int fallback_error;       /* negative errno that forced the fallback, or 0 */
	char path[512];           /* ring file path; empty when anonymous */
	uint8_t run_id[16];       /* random id of this run */
	char run_id_hex[33];      /* the same, as 32 lowercase hex digits */
	uint32_t slot_count;
	uint64_t candidate;       /* current candidate digest, 0 if none */
};

struct lw_advice {
	enum lw_advice_kind kind; /* none, skip_prewarm (one death), quarantine (two or more);
	                             lw_config sets the counts */
	enum lw_stage stage;      /* stage the previous runs died in */
	uint32_t count;           /* consecutive deaths in that stage with that candidate */
	uint64_t candidate;       /* digest of the candidate they died with */
	uint64_t stable_candidate; /* last candidate that completed an inference in a
	                             run that ended cleanly; 0 if none is known */
};

/*
 * Open the probe: create and preallocate this run's ring file in cfg->dir,
 * map it, hold an exclusive flock on it, write its header, and only then
 * give it its name ("<process>.<UTC start>.<pid>.lwr"; until then it is
 * ".<that name>.tmp", which the next open removes if this one is killed).
 * Compute the boot-loop advice from the previous runs' files, and remove
 * runs beyond cfg->runs_kept. If the directory, the disk or the
 * mapping fails, the probe runs on anonymous memory instead and returns
 * LW_OPEN_ANONYMOUS; lw_info() gives the error. Starts the sampler thread
 * when cfg->sampler_period_ms is set. *out is set on success (0 or
 * LW_OPEN_ANONYMOUS) and must be released with lw_close().
 * Returns -EINVAL for a bad config, -EBUSY if a probe is already open in this
 * process, -ENOMEM if even anonymous memory fails.
 * Context: not signal-safe; allocates; blocks (file I/O).
 */
LW_API int lw_open(const struct lw_config *cfg, struct lw **out);

/*
 * Mark the run as ended cleanly, stop the sampler, uninstall the crash
 * handler, unmap and release the probe. Accepts NULL. The lw pointer is
 * invalid afterwards; no event function may be running on it.
 * Context: not signal-safe; frees; blocks (joins the sampler thread). In
 * a forked child, on the inherited probe: signal-safe; frees nothing (the
 * handle's memory goes with the child's exec or exit); does not block.
 */
LW_API int lw_close(struct lw *lw);

/* Fill *out with this run's backing, path and run id.
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_info(const struct lw *lw, struct lw_info *out);

/*
 * The digest of a candidate name: 64-bit FNV-1a over its bytes. The name
 * never leaves the process; `lastwords digest NAME` computes the same value.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API uint64_t lw_digest(const char *name);

/* Record the candidate (model version on trial) by the digest of its name,
 * and make it current for later events and for advice.
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_candidate(struct lw *lw, const char *name);

/* Record the beginning of a stage, with an RSS sample and a clock triple.
 * Returns -EINVAL for a stage outside the vocabulary.
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_stage_begin(struct lw *lw, enum lw_stage stage);

/* Record the end of a stage with its error class (LW_ERR_NONE on success).
 * An inference that ends without error marks the current candidate as having
 * completed one in this run.
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_stage_end(struct lw *lw, enum lw_stage stage, enum lw_error err);

/*
 * Open model session `session` (1 .. LW_SESSIONS_MAX-1) with the candidate
 * it loads, by the digest of its name (which never leaves the process), and
 * make that candidate current for advice. The ring's header keeps the open
 * sessions with their candidates and open stages, so a run killed with the
 * ring lapped still tells them. A closed session may be opened again.
 * Returns -EINVAL for session 0 or one out of range, or a NULL or empty
 * name; -EBUSY when the session is open. Refusals are counted and write
 * nothing.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_session_open(struct lw *lw, uint32_t session, const char *candidate_name);

/*
 * Close model session `session` with its result (LW_ERR_NONE when it was
 * released normally). Stages still open in it stay counted as open: they
 * were begun and never ended. Returns -EINVAL for session 0, one out of
 * range or a result outside the vocabulary; -ENOENT when it is not open.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_session_close(struct lw *lw, uint32_t session, enum lw_error result);

/*
 * lw_stage_begin() and lw_stage_end() in session `session` (0 ..
 * LW_SESSIONS_MAX-1; 0 is what lw_stage_begin() writes): the records carry
 * the session and its candidate. Returns -EINVAL for a session out of range
 * or a stage or error outside the vocabulary, -ENOENT when the session is
 * not open.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_session_stage_begin(struct lw *lw, uint32_t session, enum lw_stage stage);
LW_API int lw_session_stage_end(struct lw *lw, uint32_t session, enum lw_stage stage,
				enum lw_error err);

/* Record a point mark: session count, queue depth, tasks in flight, fallback
 * taken (value: an enum lw_delegate), recovery action taken (value: an enum
 * lw_action), ... Returns -EINVAL for a kind outside the vocabulary, and for
 * the marks of two values, which have calls of their own: LW_MARK_PEER_DIED
 * (lw_peer_died()), LW_MARK_PAYLOAD (lw_payload()), LW_MARK_CACHE
 * (lw_cache()) and LW_MARK_RECEIPT (lw_receipt()).
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_mark(struct lw *lw, enum lw_mark kind, uint64_t value);

/*
 * Record that a peer process died: in the main process, when the bound
 * inference process's binder dies (onServiceDisconnected, binderDied,
 * DeadObjectException). A peer_died mark with the peer's pid and the
 * digest of its process name (lw_digest(); the name as the peer gave it to
 * lw_open(), e.g. "com.example.app:inference"), which never leaves the
 * process. The analyzer takes it as the time of that run's death, and as
 * the app's own witness that it died. Returns -EINVAL when pid is not
 * positive or process_name is NULL or empty.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_peer_died(struct lw *lw, int32_t pid, const char *process_name);

/*
 * Record a payload mark: the class of a request's payload and its size's
 * bucket, k for a size in [2^(k-1), 2^k) bytes, 0 for an empty one (the
 * exact size is not kept). Returns -EINVAL for a class outside the
 * vocabulary.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_payload(struct lw *lw, enum lw_payload_class cls, uint64_t bytes);

/*
 * Record a cache mark: a hit, miss, rebuild or invalidation of a cached
 * artifact (a compiled delegate graph, a tokenizer), with the digest of its
 * key (lw_digest(); name the source model in the key, so that the cache
 * ties to it). Returns -EINVAL for an op outside the vocabulary or a NULL
 * or empty key.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_cache(struct lw *lw, enum lw_cache_op op, const char *key);

/*
 * Record a receipt: the files of candidate `candidate_name` were verified
 * complete, files_digest being the app's digest of them (a checksum it
 * checked). Returns -EINVAL for a NULL or empty name or a digest of 0.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_receipt(struct lw *lw, const char *candidate_name, uint64_t files_digest);

/*
 * Read RSS now from the kept-open /proc/self/statm, publish it for later
 * events, and record a memory event. Costs about a microsecond: call it at
 * chosen moments, not per event. Stage events do this themselves unless the
 * sampler thread runs.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_memory_sample(struct lw *lw);

/*
 * Record graphics memory that the app knows of and RSS does not hold (GPU
 * delegate buffers, dma-buf), in kB: the Java facade gives Debug.MemoryInfo's
 * summary.graphics. A graphics record of source app
 * (schemas/ring-format.md, 8.1).
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_memory_graphics(struct lw *lw, uint64_t kb);

/*
 * Record the system's memory pressure as the process saw it: source
 * LW_PRESSURE_TRIM with level the onTrimMemory level; LW_PRESSURE_MEMORY_INFO
 * with level 1 when ActivityManager.MemoryInfo's lowMemory was true (else 0),
 * avail_kb its availMem and threshold_kb its threshold; LW_PRESSURE_PSI with
 * level the "some avg10" of /proc/pressure/memory in hundredths of a percent,
 * avail_kb its "full avg10" likewise and threshold_kb its "some total" in us
 * (the probe's sampler writes these itself). A pressure record
 * (schemas/ring-format.md, 8.1). Returns -EINVAL for a source outside the
 * vocabulary.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_memory_pressure(struct lw *lw, enum lw_pressure_source source, uint32_t level,
			      uint64_t avail_kb, uint64_t threshold_kb);

/*
 * Write the ring to storage (msync + fdatasync), for power loss. Call it at
 * valuable moments, such as before delegate_prepare; never per event.
 * Returns -ENODEV when the ring is on anonymous memory.
 * Context: not signal-safe; does not allocate; blocks (storage I/O).
 */
LW_API int lw_sync(struct lw *lw);

/*
 * Install the fatal-signal handler for SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL and SIGTRAP on an alternate stack (the calling thread's existing one
 * is kept; otherwise it gets the probe's static one, which only one thread
 * per process ever gets). On a fatal signal it writes
 * one crash record (signal, code, fault address, open stage), marks the
 * header CRASHED, restores the handler that was installed before, and lets
 * the signal take its course, so the process still dies by it and debuggerd
 * still writes its tombstone. Only the first fatal signal is recorded, and
 * the process dies by it: other threads that take one meanwhile wait, and
 * from the crash on the event functions return -ECANCELED and write
 * nothing, so that the crash record stays in the ring. Only one probe per
 * process may install it.
 * Context: not signal-safe; does not allocate; does not block.
 */
LW_API int lw_crash_install(struct lw *lw);

/* Restore the handlers that were installed before lw_crash_install().
 * Context: not signal-safe; does not allocate; does not block. */
LW_API int lw_crash_uninstall(struct lw *lw);

/*
 * The boot-loop advice computed at open from the previous runs of this
 * process with the same app version: skip_prewarm after one death in the same
 * early stage (before inference) or in inference (a model that dies on
 * every request), quarantine after two or more in a row with the same
 * candidate, delegate and runtime version (the delegate and runtime_version
 * marks; a run without one matches any). It reads none once the current
 * candidate, or a delegate or runtime version marked in this run, differs
 * from the deaths', after lw_advice_reset(), or when a previous run ended
 * cleanly. Advice is data: the probe never deletes or switches anything.
 * Context: signal-safe; does not allocate; does not block.
 */
LW_API int lw_advice(const struct lw *lw, struct lw_advice *out);

/*
 * The advice that lw_open() would give a run of process_name in dir now,
 * with the default thresholds, for another process: the app's main process
 * reads its ":inference" process's advice before it binds it. The app
 * version is that of the newest run (live or not). Read-only: it writes,
 * renames and removes nothing, and it takes no lock that a writer waits
 * for (a live run is told by a shared flock test that does not wait, and
 * only dead runs' records are read, by the seq and checksum rules). A
 * caller with other thresholds compares out->count with its own.
 * Returns -EINVAL for a NULL or bad argument, -errno of the directory
 * (-ENOENT, -EACCES, -ENOTDIR), -ENODATA when dir holds no readable run
 * of the process, the first file's error when it holds runs and none can
 * be read (-EACCES; -EBADMSG for a header that fails the format's rules),
 * -E2BIG for more than 130 runs of the process.
 * Context: not signal-safe; does not allocate, on any call (its table of
 * runs is static, about 90 KB); blocks (file I/O, and calls in one process
 * take turns).
 */
LW_API int lw_advice_read(const char *dir, const char *process_name, struct lw_advice *out);

/* Clear the advice, for an explicit user action; later runs no longer count
 * the deaths before this run.
 * Context: signal-safe; does not allocate; does not block. */
LW_API int lw_advice_reset(struct lw *lw);

/* Name of a vocabulary value ("delegate_prepare", "queue_depth", ...), or
 * NULL when the value is not in the vocabulary. The string is static.
 * Context: signal-safe; does not allocate; does not block. */
LW_API const char *lw_stage_name(enum lw_stage stage);
LW_API const char *lw_error_name(enum lw_error err);
LW_API const char *lw_mark_name(enum lw_mark kind);
LW_API const char *lw_advice_name(enum lw_advice_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* LASTWORDS_PROBE_H */
