/*
 * The line prefixes of logcat's text formats, shared by the logcat and the
 * event-log parsers (logcat.c, event-log.c). Never prints.
 *
 * A line is one of (`logcat -v ...`; L is a level letter VDIWEFA):
 *   threadtime  MM-DD HH:MM:SS.mmm  PID  TID L TAG: msg
 *   uid         MM-DD HH:MM:SS.mmm  UID  PID  TID L TAG: msg
 *   time        MM-DD HH:MM:SS.mmm L/TAG(  PID): msg
 *   brief       L/TAG(  PID): msg
 *   tag         L/TAG: msg
 *   long        [ MM-DD HH:MM:SS.mmm  PID: TID L/TAG ] on a line of its own,
 *               the message on the lines under it
 *   raw         msg, with no prefix at all
 *   studio      MM-DD HH:MM:SS.mmm PID-TID/PACKAGE L/TAG: msg (Android
 *               Studio's logcat window), only when asked (rule 6)
 * Rules for what is accepted:
 *  1. The time may be MM-DD, M-DD (a paste that lost a digit) or YYYY-MM-DD
 *     (-v year) with HH:MM:SS and a fraction of any length (-v usec), an
 *     optional zone +HHMM (-v zone; -v UTC writes +0000), or seconds.fraction
 *     (-v epoch, -v monotonic; kept as written, with no time_ms). The year
 *     and the zone are kept beside the month-day time (year, zone_ms).
 *  2. A threadtime line may lack PID and TID (MM-DD HH:MM:SS.mmm L TAG: msg,
 *     seen in hand-edited pastes); it is still threadtime, with pid -1.
 *  3. Leading whitespace and comment markers ("* ", "// ", "# ", "> ",
 *     "| ", up to three) before a prefix are skipped: logs pasted into code
 *     comments and issue threads keep them.
 *  4. The tag ends at the first ':' followed by a space or the end of the
 *     line (threadtime pads it with spaces, which are dropped), or at the
 *     "(  PID):" of brief and time.
 *  5. A line that matches none of these is raw; its message is the line
 *     without leading whitespace and comment markers.
 *  6. The studio form is read only by a parse that asks for it
 *     (LOGLINE_OPT_STUDIO): the tombstone parser does, since crash reports
 *     are pasted from Android Studio. The logcat and event-log parsers do
 *     not (yet): they read such lines as raw, and reading them would add
 *     evidence records to their output, a change of its own.
 */
#ifndef LW_ANALYZER_LOGLINE_H
#define LW_ANALYZER_LOGLINE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "input.h"
#include "text.h"

enum logline_format {
	LOGLINE_RAW,
	LOGLINE_THREADTIME,
	LOGLINE_UID,
	LOGLINE_TIME,
	LOGLINE_BRIEF,
	LOGLINE_TAG,
	LOGLINE_LONG,        /* a message line under a -v long header */
	LOGLINE_LONG_HEADER, /* the header itself: no message */
	LOGLINE_STUDIO,
};

/* What a parse reads beyond the formats every caller takes, as flags. */
enum logline_opt {
	LOGLINE_OPT_STUDIO = 1, /* rule 6 */
};

/* "threadtime", "uid", "time", "brief", "tag", "long", "studio", "raw". */
const char *logline_format_name(enum logline_format f);

/* One parsed line. Spans point into the line parsed. */
struct logline {
	enum logline_format format;
	struct span time;   /* as written, zone included; n == 0 if none */
	int64_t time_ms;    /* see logline_month_day_ms; EV_NO_TIME if none */
	int64_t year;       /* -v year: the year written; EV_NONE without it */
	int64_t zone_ms;    /* -v zone, -v UTC: the offset written; EV_NO_TIME without */
	int64_t pid, tid;   /* of the process that logged the line; EV_NONE */
	struct span uid;    /* the uid column of -v uid, as written */
	char level;         /* 'V' ... 'A', 0 for raw lines */
	struct span tag;    /* without its padding; n == 0 for raw lines */
	struct span msg;
};

/* Parse one line (without its newline); opts are LOGLINE_OPT_* flags.
 * Returns 1 when a prefix was recognized, 0 for a raw line (l->msg is then
 * the stripped line). */
int logline_parse(const char *s, size_t n, unsigned opts, struct logline *l);

/*
 * A month-day wall time as milliseconds within a year. logcat prints no
 * year, so days are counted on a leap-year calendar (Feb 29 is valid and
 * March 1 is day 60, whatever the real year was): values order and subtract
 * correctly within one year. Returns EV_NO_TIME for an impossible date.
 */
int64_t logline_month_day_ms(int month, int day, int64_t ms_of_day);

/* A month-day time (logline_month_day_ms) in year y: milliseconds since the
 * epoch of that wall time read as UTC (the caller applies the zone).
 * EV_NO_TIME for Feb 29 of a year that has none, or a value out of range. */
int64_t logline_in_year(int64_t month_day_ms, int64_t y);

/* The numeric uid a -v uid column names: digits, u<user>_a<app>,
 * u<user>_i<n>, or one of the short AID names logcat prints (root, nfc,
 * radio, shell, ...). EV_NONE when unknown. */
int64_t logline_uid_value(struct span uid);

/* Lines of an input, parsed, with the -v long header carried onto the
 * message lines under it. */
struct logline_iter {
	struct input *in;
	size_t lineno;          /* of the line last returned, 1-based */
	int in_long;
	struct logline hdr;     /* its spans point into hdr_line */
	char *hdr_line;         /* a copy of the header line */
	size_t hdr_cap;
	unsigned opts;          /* LOGLINE_OPT_* for every line */
};

void logline_iter_init(struct logline_iter *it, struct input *in, unsigned opts);

/* The next line: *line is the physical line without "\n" or "\r\n", *l its
 * parse; both valid until the next read of the input. Returns 1, 0 at the
 * end, or -1 when the read failed (in->err says why; ENOMEM for the copy
 * of a -v long header fails it too). To look ahead, peek at the input
 * (input_peek): while in_long is 0, the lines read ahead parse with
 * logline_parse() as logline_next() would parse them. */
int logline_next(struct logline_iter *it, struct span *line, struct logline *l);

/* Accepts a zeroed iterator. */
void logline_iter_release(struct logline_iter *it);

/* What one evidence line says, before it becomes a record. */
struct logline_fields {
	int64_t pid, uid, user, oom_score_adj;
	int64_t rss_kb, swap_kb, free_kb, anon_rss_kb, dmabuf_pss_kb, dmabuf_rss_kb;
	int64_t signo, kill_reason_code, parcel_bytes;
	struct span process;
	struct span reason;      /* reason = reason + reason_sep + reason2 */
	const char *reason_sep;  /* NULL: reason2 unused */
	struct span reason2;
};

void logline_fields_init(struct logline_fields *f);

/* Append a record of type t for line lineno, with the line's format and
 * time and f's fields (a user is derived from a uid when f has none).
 * Returns 0, or -1 on ENOMEM. */
int logline_emit(struct ev_file *out, enum log_event_type t, const struct logline *l,
		 size_t lineno, const struct logline_fields *f);

/* An event-log message ("[a,b,...]") of one of the evidence tags (am_kill,
 * am_proc_died, am_anr, am_crash, am_proc_start, killinfo, am_low_memory)
 * as a record. Returns 1 when recorded, 0 when the tag is not one of them,
 * -1 when it is but the message is malformed, -2 on ENOMEM. Defined in
 * event-log.c; the logcat parser uses it for `logcat -b all` output. */
int eventlog_line(const struct logline *l, size_t lineno, struct ev_file *out);

/* The tags the logcat parser reads evidence from, and LOGTAG_OTHER for the
 * rest; the event-log sniffer uses them to leave `-b all` output to logcat.
 * LOGTAG_ANY is never a tag's: it marks a raw line, matched by message. */
enum logline_tag {
	LOGTAG_OTHER,
	LOGTAG_ANY,
	LOGTAG_LMKD,    /* lmkd, lowmemorykiller */
	LOGTAG_AM,      /* ActivityManager */
	LOGTAG_ZYGOTE,  /* Zygote, zygote, zygote64, Zygote64 */
	LOGTAG_LIBC,    /* libc */
	LOGTAG_RUNTIME, /* AndroidRuntime */
	LOGTAG_BINDER,  /* JavaBinder */
	LOGTAG_WATCHDOG, /* Watchdog (system_server's) */
};

enum logline_tag logline_tag_of(struct span tag);

/* Whether a tag may be an evidence tag of the event log (cheap check). */
static inline int eventlog_tag_candidate(struct span tag)
{
	return (tag.n >= 6 && tag.s[0] == 'a' && tag.s[1] == 'm' && tag.s[2] == '_') ||
	       (tag.n == 8 && tag.s[0] == 'k' && tag.s[1] == 'i' && tag.s[4] == 'i');
}

#endif
