/*
 * The evidence a device gives about a process death, as parsed records.
 *
 * Each input file has one kind, detected from its content (detect.c). A
 * parser (one file per format) turns a file's bytes into records of one of
 * the types below and never prints. Two kinds hold other inputs rather
 * than records: a bug report's main text (bugreport.h), whose sections are
 * pieces of the other kinds, and a zip archive (zipfile.h), a bug report
 * whose entries are. Integers that a format leaves out are
 * -1 (EV_NONE); text that a format leaves out, or that reads "null", is NULL.
 * All text is a heap copy owned by its list; ev_file_release() frees it.
 */
#ifndef LW_ANALYZER_EVIDENCE_H
#define LW_ANALYZER_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define EV_NONE (-1)
#define EV_NO_TIME INT64_MIN

#define EV_KINDS(X)                                   \
	X(UNKNOWN, unknown)                           \
	X(RING, ring)                                 \
	X(SEED_EVENTS, seed-events)                   \
	X(EXIT_INFO_DUMP, exit-info-dump)             \
	X(EXIT_INFO_JSON, exit-info-json)             \
	X(EXIT_INFO_TOSTRING, exit-info-tostring)     \
	X(TOMBSTONE, tombstone)                       \
	X(ANR_TRACE, anr-trace)                       \
	X(LOGCAT, logcat)                             \
	X(EVENT_LOG, event-log)                       \
	X(BUGREPORT, bugreport)                       \
	X(ZIP, zip)

enum ev_kind {
#define X(up, name) EV_KIND_##up,
	EV_KINDS(X)
#undef X
	EV_KIND_COUNT
};

/* "exit-info-dump", ... */
const char *ev_kind_name(enum ev_kind k);

/* A parse failure that stops a file: where, and what was expected. */
struct ev_error {
	size_t line; /* 1-based; 0 when not about a line */
	char reason[240];
};

/* One ApplicationExitInfo, from a dump, a toString() line or app JSON. */
struct exit_record {
	size_t line;                /* where the record starts */
	int64_t pid;
	char *process;
	char *package;              /* the dump's "package:" section */
	int64_t uid;                /* the dump's "Historical Process Exit for uid=" */
	int64_t real_uid, package_uid, defining_uid, user;
	int64_t reason;             /* the integer; unknown future codes kept as numbers */
	int64_t subreason;          /* -1 where the format has none (Android 11) */
	int64_t status;
	int64_t importance;
	int64_t pss_kb, rss_kb;     /* -1: not sampled ("0.00") or absent */
	char *pss_text, *rss_text;  /* as written: "221MB", "0,00" */
	char *timestamp_text;       /* as written */
	int64_t timestamp_ms;       /* EV_NO_TIME if not parsed; see timestamp_local */
	int timestamp_local;        /* 1: local wall time with no zone, as if UTC (needs --tz) */
	int64_t timestamp_precision_ms; /* 1, or 60000 for toString()'s minutes */
	char *description;
	int64_t state_bytes;        /* process-state summary length; -1 if empty or absent */
	char *state;                /* the summary itself, where the input has it (JSON) */
	char *trace;                /* trace file path */
	int64_t app_version;        /* JSON only */
	int anr_info;               /* 1 if an anrInfo=AnrInfo(...) was present */
	int64_t anr_id, anr_type, anr_timeout_ms;
	int anr_user_perceptible;   /* -1 unknown */
};

/* Frames kept of a tombstone's crashing thread; the rest are counted
 * (ev_stats.cut_frames). A backtrace this deep is a runaway recursion, whose
 * top frames are the ones that tell. */
#define EV_FRAMES_MAX 256

/* Threads kept of a tombstone besides the crashing one (the rest are
 * counted, ev_stats.cut_threads), each with at most EV_FRAMES_MAX frames. */
#define EV_THREADS_MAX 1024

/* Where a native frame's pc is in the source, from the library's debug
 * info (symbols/symbolize.h): one per inlining level, the innermost (the
 * code at the pc) first, then each function it was inlined into. */
struct frame_line {
	char *function;             /* demangled where it was mangled; NULL if unknown */
	char *file;                 /* the source file as the debug info names it; NULL */
	int64_t line, column;       /* 0 when unknown */
};

/* One stack frame of a tombstone. */
struct frame {
	int64_t index;
	uint64_t pc;                /* rel_pc, as "#NN pc" writes it: the address in the
				     * ELF file's own terms (its load bias taken off) */
	char *library;              /* path of the mapping, as written */
	char *symbol;               /* function (+offset) if symbolized, as written */
	char *build_id;             /* "(BuildId: ...)", lowercase hex; NULL if not written */
	uint64_t file_offset;       /* "(offset 0x...)": where the ELF starts in the
				     * mapped file (a library stored in an APK) */
	int has_file_offset;
	const char *runtime;        /* GPU/NN runtime the library belongs to, or NULL */
	/* Symbolication (report --symbols): lines, innermost first, when the
	 * library's build id matched a file of the symbols; else NULL, and
	 * why_not says why (static text) when symbols were given. */
	struct frame_line *lines;
	size_t nlines;
	const char *why_not;
};

/* A thread of a tombstone other than the crashing one. */
struct tomb_thread {
	int64_t tid;
	char *name;
	struct frame *frames;
	size_t nframes;
};

struct tombstone {
	size_t line;                /* line of its start; 0 for a protobuf */
	int logcat_prefixed;        /* lines carried a logcat prefix (F DEBUG, A/DEBUG, ...) */
	int protobuf;               /* read from debuggerd's protobuf (tombstone.proto) */
	char *fingerprint;
	char *abi;
	char *timestamp_text;
	int64_t pid, tid, uid;
	char *thread;               /* name: */
	char *process;              /* >>> name <<< */
	char *cmdline;
	int64_t signo;
	int64_t code;               /* si_code; may be -1 (SI_QUEUE): see has_code */
	int has_code;
	char *code_name;            /* "SEGV_MAPERR" */
	int has_fault_addr;
	uint64_t fault_addr;
	char *cause;
	char *abort_message;
	struct frame *frames;       /* the crashing thread's */
	size_t nframes;
	struct tomb_thread *threads; /* the other threads, in the order written */
	size_t nthreads;
	size_t nmappings;           /* memory mappings listed (protobuf) */
	size_t nlog_lines;          /* lines of its own log buffers (protobuf) */
	size_t runtime_frames;      /* frames in GPU/NN runtime libraries */
	const char *first_runtime;  /* runtime of the top-most such frame */
};

struct anr_trace {
	size_t line;
	char *layout;               /* "art" (----- pid N at ...) or "subject" */
	int64_t pid;
	char *time_text;
	char *cmdline;
	char *subject;              /* Subject: line, newer layout */
	int64_t rss_kb;             /* RssKb: of the newer layout */
	int has_java_threads;
	int64_t thread_count;
	int main_found;
	char *main_state;           /* "Sleeping", "Blocked", "Native", ... */
	int64_t main_tid, main_sys_tid;
	char *main_lock;            /* the monitor main waits on or is blocked on */
	int64_t lock_owner_tid;     /* "held by thread N", -1 if none */
	char *main_top_frame;       /* first "at ..." or "#00 pc" line */
};

/* A line of logcat (main/system/crash buffers) or of the event log. */
#define LOG_EVENTS(X)                                          \
	X(LMKD_KILL, lmkd_kill)           /* lowmemorykiller: Kill '...' */          \
	X(AM_KILLING, am_killing)         /* ActivityManager: Killing pid:proc */   \
	X(AM_DIED, am_died)               /* ActivityManager: Process ... has died */ \
	X(AM_LOW_MEMORY, am_low_memory)   /* ActivityManager: Low on memory: */     \
	X(ZYGOTE_SIGNAL, zygote_signal)   /* Zygote: Process N exited due to signal */ \
	X(CRASH_BEGIN, crash_begin)       /* --------- beginning of crash */        \
	X(FATAL_SIGNAL, fatal_signal)     /* libc: Fatal signal N (SIG...) */        \
	X(JAVA_CRASH, java_crash)         /* AndroidRuntime: FATAL EXCEPTION */     \
	X(EV_AM_KILL, am_kill)            /* event log am_kill */                   \
	X(EV_AM_PROC_DIED, am_proc_died)                                             \
	X(EV_AM_ANR, am_anr)                                                         \
	X(EV_AM_CRASH, am_crash)                                                     \
	X(EV_AM_PROC_START, am_proc_start)                                           \
	X(EV_KILLINFO, killinfo)          /* lmkd killinfo, tag 10195355 */            \
	X(BINDER_FAILED, binder_failed)   /* JavaBinder: FAILED BINDER TRANSACTION */ \
	X(WATCHDOG_KILL, watchdog_kill)   /* Watchdog: *** WATCHDOG KILLING SYSTEM PROCESS */ \
	X(APP_WATCHDOG, app_watchdog)     /* a watchdog's tag: a line that kills, aborts, exits */

enum log_event_type {
#define X(up, name) LOG_##up,
	LOG_EVENTS(X)
#undef X
	LOG_EVENT_COUNT
};

const char *log_event_name(enum log_event_type t);

/* A frame of a Java stack, "at com.example.Foo.bar(Foo.java:12)", and
 * what an R8 or ProGuard mapping makes of it (report --mapping,
 * symbols/r8-mapping.h). */
struct java_frame {
	char *text;                 /* as written, "at " taken off */
	char **retraced;            /* the original frames it stands for, the
				     * innermost first (R8 inlines several into one),
				     * in the same form; NULL when not retraced */
	size_t nretraced;
	int ambiguous;              /* the mapping has several answers: retraced
				     * holds one frame per answer (the method
				     * each one's code is in), not a chain */
};

/* Frames kept of a Java crash's stack (its "Caused by:" ones included). */
#define EV_JAVA_FRAMES_MAX 64

struct log_event {
	size_t line;
	enum log_event_type type;
	char *format;               /* "threadtime", "brief", "uid", "time", "raw" */
	char *time_text;            /* as written; logcat has no year */
	int64_t time_ms;            /* month-day wall time in ms within a year, EV_NO_TIME */
	int64_t year;               /* the year, where the line writes it (-v year); EV_NONE */
	int64_t zone_ms;            /* its offset, where it writes it (-v zone, -v UTC); EV_NO_TIME */
	int64_t pid;                /* the process the line is about */
	int64_t uid;
	int64_t user;
	char *process;
	int64_t oom_score_adj;
	int64_t rss_kb, swap_kb, free_kb;
	int64_t anon_rss_kb, dmabuf_pss_kb, dmabuf_rss_kb;
	int64_t signo;
	char *reason;               /* lmkd/am kill reason, ANR subject, crash exception,
				     * a watchdog's subject or line */
	int64_t kill_reason_code;   /* killinfo's kill reason, -1 */
	int64_t parcel_bytes;       /* binder_failed: the parcel's size, -1 if not written */
	struct java_frame *stack;   /* java_crash: its stack, at most EV_JAVA_FRAMES_MAX */
	size_t nstack;
	char *reason_retraced;      /* java_crash: reason with its exception class retraced */
};

/* Whether e is an am_crash of a native crash (exception "Native crash",
 * reported by system_server for the process it names: see event-log.c). */
int log_event_native_crash(const struct log_event *e);

/* What one input may keep of each kind of record (lastwords(1), LIMITS):
 * a real device's input holds some thousands of lmkd kills or exit records
 * at most (a bug report's logcat is a few MiB, AppExitInfoTracker keeps 16
 * records a process), tombstoned keeps 32 tombstones and /data/anr a few
 * dozen traces. Past that the last ones read are kept (logcat, the dump and
 * the export write the oldest first) and the others counted (ev_stats). */
#define EV_EXITS_MAX 20000
#define EV_TOMBSTONES_MAX 1000
#define EV_ANRS_MAX 1000
#define EV_LOGS_MAX 20000 /* of each log_event_type */

/* Room for ev_cut_text()'s text. */
#define EV_CUT_TEXT_MAX 1024

/* Lines read and lines not understood (counted and skipped, never fatal),
 * and what was cut to a limit (input.h, tombstone.c, the caps above:
 * lastwords(1), LIMITS). */
struct ev_stats {
	size_t lines;
	size_t skipped;
	size_t first_skipped; /* line number of the first skipped line, 0 if none */
	size_t cut_lines;     /* lines longer than INPUT_LINE_MAX, read cut */
	size_t first_cut;     /* line number of the first, 0 if none */
	size_t cut_frames;    /* tombstone frames past the first EV_FRAMES_MAX of a thread */
	size_t cut_threads;   /* tombstone threads past the first EV_THREADS_MAX */
	size_t cut_java_frames; /* Java stack lines past a crash's first EV_JAVA_FRAMES_MAX */
	/* records read past their kind's cap, not kept (the oldest) */
	size_t dropped_exits, dropped_tombstones, dropped_anrs;
	size_t dropped_logs[LOG_EVENT_COUNT];
};

/* A record of the seed's events JSON (seeds/lifecycle_probe.py). */
struct seed_event {
	size_t index;
	int64_t time_ms;
	char *stage;
	int64_t rss_mb, budget_mb, sessions;
	char *exit_reason;
};

/* Everything parsed from one file. Only the list of its kind is filled. */
struct ev_file {
	char *path;
	enum ev_kind kind;
	int in_logcat;  /* a tombstone or toString() lines read out of a logcat,
			 * whose own lines are in logs: the file is a logcat */
	int gzipped;
	struct ev_stats stats;
	struct exit_record *exits;
	size_t nexits;
	struct tombstone *tombstones;
	size_t ntombstones;
	struct anr_trace *anrs;
	size_t nanrs;
	struct log_event *logs;
	size_t nlogs;
	struct seed_event *seeds;
	size_t nseeds;
	size_t logs_trim_at; /* nlogs at which ev_add_log() drops to the cap; 0 at first */
	int64_t device_sdk;  /* the app's exit-info JSON: its device's sdkInt; 0: not given */
};

/* Whether two records are the same witness of the same event, read from
 * two inputs (two pulls of one device hold the same exit records and log
 * lines): every field that says what happened, when and to whom is equal;
 * where the record stands in its file (line) is not compared. Does not
 * allocate or block. */
int exit_record_same(const struct exit_record *a, const struct exit_record *b);
/* A tombstone: the crash (pid, tid, signal, code, fault address, time,
 * process, abort message, how many frames the crashing thread has), not
 * how it was written: the text and its protobuf twin, and the copy crash_dump
 * logged (which has no other threads), are the same witness; the other
 * threads, build ids and whether it was a protobuf are not compared. */
int tombstone_same(const struct tombstone *a, const struct tombstone *b);
int anr_trace_same(const struct anr_trace *a, const struct anr_trace *b);
int log_event_same(const struct log_event *a, const struct log_event *b);

/* Initialise records with every field absent. */
void exit_record_init(struct exit_record *r);
void tombstone_init(struct tombstone *t);
void anr_trace_init(struct anr_trace *a);
void log_event_init(struct log_event *e);

/* Room for item n of the array *v of n items of sz bytes: its capacity
 * doubles when n is a power of two (8 at first), so that appending one at
 * a time costs amortized constant time. Returns the item's place, or NULL
 * on ENOMEM (*v is then as it was). */
void *ev_grow(void **v, size_t n, size_t sz);

/* Append a zeroed-then-initialised record to a list; NULL on ENOMEM.
 * Past a kind's cap (EV_*_MAX), the oldest records of that kind are freed
 * first, so that a list holds at most twice its cap (the newest records,
 * among them every record that a parser may still be filling: it moves
 * them, so a parser finds its record again by its line); ev_cap() then
 * leaves the cap. */
struct exit_record *ev_add_exit(struct ev_file *f);
struct tombstone *ev_add_tombstone(struct ev_file *f);
struct anr_trace *ev_add_anr(struct ev_file *f);
struct log_event *ev_add_log(struct ev_file *f);
struct frame *ev_add_frame(struct tombstone *t);
struct tomb_thread *ev_add_thread(struct tombstone *t);
struct frame *ev_add_thread_frame(struct tomb_thread *th);

/* Free a frame's symbolication (lines) and zero it. */
void frame_lines_release(struct frame *fr);

/* Drop the oldest records of each kind past its cap, counting them in
 * f->stats; done when a file has been parsed. */
void ev_cap(struct ev_file *f);

/* A kind of record cut to its cap: "exit_record", "tombstone",
 * "anr_trace" or a log_event_name(); the last `kept` read were kept. */
struct ev_dropped {
	const char *kind;
	size_t kept, dropped;
};

#define EV_DROPPED_KINDS (3 + LOG_EVENT_COUNT)

/* The kinds of record of st cut to their cap, into out (room for
 * EV_DROPPED_KINDS); returns how many. Does not allocate. */
size_t ev_dropped(const struct ev_stats *st, struct ev_dropped *out);

/* The same as JSON: an array at key of {"kind", "kept", "dropped"}, added
 * to obj only when some record was dropped. */
struct json;
void ev_dropped_json(struct json *j, cJSON *obj, const char *key, const struct ev_stats *st);

/* A heap copy of n bytes of s, NUL-terminated, each NUL byte in it kept as
 * TEXT_NUL (text.h); NULL on ENOMEM. */
char *ev_strndup(const char *s, size_t n);

/* Free everything a file's lists hold, and reset it. Accepts NULL. */
void ev_file_release(struct ev_file *f);

/* Count a line that was not understood. */
void ev_skip(struct ev_stats *st, size_t line);

/* What was cut to a limit, for people ("2 lines longer than 64 KiB read
 * cut to it, the first at line 7; ..."), into buf like snprintf; 0 and an
 * empty buf when nothing was. */
int ev_cut_text(const struct ev_stats *st, char *buf, size_t len);

/* The records as JSON (one object per record; free with cJSON_Delete), or
 * NULL on ENOMEM. */
cJSON *ev_records_json(const struct ev_file *f);

/* A java_crash's stack as JSON: an array at key of {"raw": the line as
 * written, "retraced": what the mapping made of it (only when it did),
 * "ambiguous": true (only when several answers remain)}. */
void java_stack_json(struct json *j, cJSON *o, const char *key, const struct log_event *e);

/* One line of text per record, for people; returns bytes written like
 * snprintf. i indexes the kind's list. */
int ev_record_text(const struct ev_file *f, size_t i, char *buf, size_t len);
size_t ev_record_count(const struct ev_file *f);

#endif
