/*
 * The lastwords vocabulary: stages, event types, error classes, marks,
 * payload classes, cache operations, scenarios, delegates, recovery
 * actions, advice, exit classes, evidence levels, and the sources of
 * memory, graphics and pressure records.
 *
 * Each list is an X-macro: X(UPPER, lower_name, value). The enums below and
 * the name tables in src/vocab.c are generated from these lists, so there is
 * exactly one table of each. Values are stored in ring files: never renumber,
 * only append.
 */
#ifndef LASTWORDS_VOCAB_H
#define LASTWORDS_VOCAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* Lifecycle stages of an on-device model (DESIGN.md, from the seeds). */
#define LW_STAGES(X)                                  \
	X(NONE, none, 0)                              \
	X(DOWNLOAD, download, 1)                      \
	X(LOAD, load, 2)                              \
	X(RUNTIME_PREPARE, runtime_prepare, 3)        \
	X(DELEGATE_PREPARE, delegate_prepare, 4)      \
	X(INFERENCE, inference, 5)                    \
	X(CACHE, cache, 6)                            \
	X(EXIT, exit, 7)

/* What a slot records (slot.type). */
#define LW_EVENT_TYPES(X)                             \
	X(OPEN, open, 1)                              \
	X(STAGE_BEGIN, stage_begin, 2)                \
	X(STAGE_END, stage_end, 3)                    \
	X(MARK, mark, 4)                              \
	X(CANDIDATE, candidate, 5)                    \
	X(CRASH, crash, 6)                            \
	X(CLOSE, close, 7)                            \
	X(ADVICE, advice, 8)                          \
	X(SYNC, sync, 9)                              \
	X(MEMORY, memory, 10)                         \
	X(SESSION_OPEN, session_open, 11)             \
	X(SESSION_CLOSE, session_close, 12)           \
	X(GRAPHICS, graphics, 13)                     \
	X(PRESSURE, pressure, 14)

/* Error class given when a stage ends (slot.code of stage_end). */
#define LW_ERRORS(X)                                  \
	X(NONE, none, 0)                              \
	X(ALLOC_FAILED, alloc_failed, 1)              \
	X(TIMEOUT, timeout, 2)                        \
	X(DELEGATE_ERROR, delegate_error, 3)          \
	X(MODEL_INVALID, model_invalid, 4)            \
	X(IO_ERROR, io_error, 5)                      \
	X(CANCELLED, cancelled, 6)                    \
	X(UNSUPPORTED, unsupported, 7)                \
	X(OTHER, other, 8)

/* Point marks (slot.code of mark); the value goes in slot.a. */
#define LW_MARKS(X)                                   \
	X(SESSIONS, sessions, 1)        /* live sessions */          \
	X(QUEUE_DEPTH, queue_depth, 2)  /* queued requests */        \
	X(FALLBACK, fallback, 3)        /* value: delegate fallen back to */ \
	X(RECOVERY, recovery, 4)        /* value: recovery action taken */   \
	X(DELEGATE, delegate, 5)        /* value: delegate in use */ \
	X(RUNTIME_VERSION, runtime_version, 6) /* value: runtime version number */ \
	X(BUDGET, budget, 7)            /* value: memory budget in kB */ \
	X(PEER_DIED, peer_died, 8)      /* a: a peer's pid, b: its name's digest (lw_peer_died) */ \
	X(IN_FLIGHT, in_flight, 9)      /* tasks executing */ \
	X(PAYLOAD, payload, 10)         /* a: payload class, b: size bucket (lw_payload) */ \
	X(CACHE, cache, 11)             /* a: cache op, b: the key's digest (lw_cache) */ \
	X(RECEIPT, receipt, 12)         /* a: candidate digest, b: its files' digest (lw_receipt) */ \
	X(SCENARIO, scenario, 13)       /* value: the release-gate scenario this run is, an lw_scenario */

/* Payload classes (a of payload marks). */
#define LW_PAYLOAD_CLASSES(X)                         \
	X(TEXT, text, 1)                              \
	X(IMAGE, image, 2)                            \
	X(AUDIO, audio, 3)                            \
	X(VIDEO, video, 4)                            \
	X(TENSOR, tensor, 5)                          \
	X(OTHER, other, 6)

/* Cache operations (a of cache marks). */
#define LW_CACHE_OPS(X)                               \
	X(HIT, hit, 1)                                \
	X(MISS, miss, 2)                              \
	X(REBUILD, rebuild, 3)                        \
	X(INVALIDATE, invalidate, 4)

/* The release gate's device scenarios (value of the scenario mark; the
 * manifest's "scenario" of `lastwords pull --scenario`), from the second
 * seed's regression matrix. */
#define LW_SCENARIOS(X)                               \
	X(COLD_START, cold_start, 1)                  \
	X(FIRST_LOAD, first_load, 2)                  \
	X(REPEATED_ENTRY, repeated_entry, 3)          \
	X(CONCURRENT, concurrent, 4)                  \
	X(BACKGROUND, background, 5)                  \
	X(MEMORY_PRESSURE, memory_pressure, 6)        \
	X(CANDIDATE_FALLBACK, candidate_fallback, 7)  \
	X(CACHE_REBUILD, cache_rebuild, 8)

/* Delegates / execution providers (values of the delegate and fallback marks). */
#define LW_DELEGATES(X)                               \
	X(CPU, cpu, 1)                                \
	X(XNNPACK, xnnpack, 2)                        \
	X(GPU, gpu, 3)                                \
	X(NNAPI, nnapi, 4)                            \
	X(HEXAGON, hexagon, 5)                        \
	X(QNN, qnn, 6)                                \
	X(VULKAN, vulkan, 7)                          \
	X(OPENCL, opencl, 8)                          \
	X(OTHER, other, 255)

/* Recovery actions, in order of reversibility (DESIGN.md). */
#define LW_ACTIONS(X)                                 \
	X(STOP_NEW_INFERENCE, stop_new_inference, 1)  \
	X(STOP_PREWARM, stop_prewarm, 2)              \
	X(REDUCE_CONCURRENCY, reduce_concurrency, 3)  \
	X(CLEAR_REBUILDABLE_CACHE, clear_rebuildable_cache, 4) \
	X(ISOLATE_DELEGATE, isolate_delegate, 5)      \
	X(ISOLATE_CANDIDATE, isolate_candidate, 6)    \
	X(REVERT_TO_STABLE, revert_to_stable, 7)      \
	X(PRESERVE_EVIDENCE, preserve_evidence, 8)    \
	X(INSPECT_MAIN_THREAD, inspect_main_thread, 9) \
	X(VERIFY_STATE_RESTORE, verify_state_restore, 10) \
	X(COLLECT_MORE_EVIDENCE, collect_more_evidence, 11)

/* Boot-loop advice given at open (slot.code of advice). */
#define LW_ADVICES(X)                                 \
	X(NONE, none, 0)                              \
	X(SKIP_PREWARM, skip_prewarm, 1)              \
	X(QUARANTINE, quarantine, 2)

/* Exit classes and evidence levels of the analyzer's verdicts. */
#define LW_EXIT_CLASSES(X)                            \
	X(LOW_MEMORY, low_memory, 1)                  \
	X(ANR, anr, 2)                                \
	X(NATIVE_CRASH, native_crash, 3)              \
	X(JAVA_CRASH, java_crash, 4)                  \
	X(SYSTEM_RECLAIM, system_reclaim, 5)          \
	X(UNKNOWN, unknown, 6)

#define LW_EVIDENCE_LEVELS(X)                         \
	X(CONFIRMED, confirmed, 1)                    \
	X(SUPPORTED, supported, 2)                    \
	X(UNCONFIRMED, unconfirmed, 3)

/* Where a memory record's composition came from (its code; version 3):
 * 0 none (a version 1 or 2 record, or neither file was readable). */
#define LW_MEMORY_SOURCES(X)                          \
	X(STATUS, status, 1) /* /proc/self/status: RssAnon, RssFile, RssShmem, VmSwap */ \
	X(STATM, statm, 2)   /* /proc/self/statm: resident - shared, and shared */

/* Where a graphics record's figure came from (its code; version 3). */
#define LW_GRAPHICS_SOURCES(X)                        \
	X(APP, app, 1)       /* the app's figure: Debug.MemoryInfo summary.graphics */ \
	X(DMABUF, dmabuf, 2) /* dma-buf buffers the process holds, from /proc/self/fdinfo */

/* Where a pressure record came from (its code; version 3). */
#define LW_PRESSURE_SOURCES(X)                        \
	X(TRIM, trim, 1)               /* ComponentCallbacks2.onTrimMemory(level) */ \
	X(MEMORY_INFO, memory_info, 2) /* ActivityManager.MemoryInfo */ \
	X(PSI, psi, 3)                 /* /proc/pressure/memory */

#define LW_VOCAB_ENUM_(prefix, up, name, val) prefix##up = val,

enum lw_stage {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_STAGE_, up, name, val)
	LW_STAGES(X)
#undef X
	LW_STAGE_COUNT
};

enum lw_event_type {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_EV_, up, name, val)
	LW_EVENT_TYPES(X)
#undef X
};

enum lw_error {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_ERR_, up, name, val)
	LW_ERRORS(X)
#undef X
};

enum lw_mark {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_MARK_, up, name, val)
	LW_MARKS(X)
#undef X
};

enum lw_payload_class {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_PAYLOAD_, up, name, val)
	LW_PAYLOAD_CLASSES(X)
#undef X
};

enum lw_cache_op {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_CACHE_, up, name, val)
	LW_CACHE_OPS(X)
#undef X
};

enum lw_scenario {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_SCENARIO_, up, name, val)
	LW_SCENARIOS(X)
#undef X
};

enum lw_delegate {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_DELEGATE_, up, name, val)
	LW_DELEGATES(X)
#undef X
};

enum lw_action {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_ACTION_, up, name, val)
	LW_ACTIONS(X)
#undef X
};

enum lw_advice_kind {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_ADVICE_, up, name, val)
	LW_ADVICES(X)
#undef X
};

enum lw_exit_class {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_EXIT_, up, name, val)
	LW_EXIT_CLASSES(X)
#undef X
	LW_EXIT_CLASS_COUNT
};

enum lw_evidence_level {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_EVIDENCE_, up, name, val)
	LW_EVIDENCE_LEVELS(X)
#undef X
};

enum lw_memory_source {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_MEMORY_SOURCE_, up, name, val)
	LW_MEMORY_SOURCES(X)
#undef X
};

enum lw_graphics_source {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_GRAPHICS_, up, name, val)
	LW_GRAPHICS_SOURCES(X)
#undef X
};

enum lw_pressure_source {
#define X(up, name, val) LW_VOCAB_ENUM_(LW_PRESSURE_, up, name, val)
	LW_PRESSURE_SOURCES(X)
#undef X
};

#ifdef __cplusplus
}
#endif
#endif /* LASTWORDS_VOCAB_H */
