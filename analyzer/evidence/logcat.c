/*
 * logcat (main, system and crash buffers, or `-b all`): the lines that
 * witness a process death, as log_event records, in any of the prefixes
 * logline.h reads.
 *
 * Evidence lines, by tag (a raw line is matched by its message alone, after
 * an optional "TAG: " of one of these tags):
 *   lowmemorykiller  Kill '%s' (%d), uid %d, oom_adj %d to free %ldkB[; reason: %s]
 *                        (Android 11; Android 10 and before: no reason)
 *                    Kill '%s' (%d), uid %d, oom_score_adj %d to free %ldkB rss,
 *                        %ldkB swap; reason: %s   (Android 12 and later)
 *                    ... %ldkB rss, %ldkb swap   (no kill reason: lower-case b)
 *                    any list of "N kB label" items after "to free": rss,
 *                        anon rss, swap, dmabuf_pss, dmabuf_rss (vendor builds)
 *                    Killing '%s' (%d), uid %d, adj %d and the next line
 *                        "to free %ldkB because ..." (Android 8 lmkd)
 *   ActivityManager  Killing PID:PROC/UID (adj N): REASON
 *                    Process PROC (pid N) has died[: STATE]
 *                    Low on memory:   (one record; the table rows under it
 *                        are ordinary lines)
 *   Zygote, zygote, zygote64
 *                    Process N exited due to signal N (NAME)[; core dumped]
 *   libc             Fatal signal N (SIG...)..., pid N (PROC)
 *   AndroidRuntime   FATAL EXCEPTION: THREAD (or *** FATAL EXCEPTION IN
 *                        SYSTEM PROCESS), then "Process: PROC, PID: N" and
 *                        the exception line, which become process, pid and
 *                        reason of the same record, and its stack: the
 *                        "at ..." and "Caused by: ..." lines after it
 *                        (java_stack_line())
 *   any tag          Throwing OutOfMemoryError "MSG" (ART, tagged with the
 *                        process name): a java_crash with reason
 *                        "OutOfMemoryError: MSG", since such an error usually
 *                        ends in a FATAL EXCEPTION (or is caught: the report
 *                        decides)
 *   JavaBinder       !!! FAILED BINDER TRANSACTION !!!  (parcel size = N)
 *                        (the process that made the call; Android 7 and
 *                        later write the size): a binder_failed
 *   any tag          ...TransactionTooLargeException: data parcel size N bytes
 *                        (a crash's exception line, a "Caused by:", a
 *                        caught one logged): a binder_failed too, with the
 *                        line from the exception's name on as its reason
 *   Watchdog         *** WATCHDOG KILLING SYSTEM PROCESS: SUBJECT
 *                        (system_server's watchdog: the process is
 *                        system_server, the reason its subject)
 *   a tag naming a watchdog (any case: InferenceWatchdog, ANRWatchDog)
 *                    a line that says it kills, aborts, exits or
 *                        terminates: an app_watchdog of the logging pid,
 *                        with the message as its reason
 *   am_*, killinfo   event-log lines in `-b all` output (event-log.c)
 *   (raw)            --------- beginning of crash
 *
 * An evidence line that does not parse is retried joined with up to two
 * following raw lines (a paste that wrapped it: joined with one space when
 * the next line is indented deeper than the evidence line, with none when
 * it was cut mid-token; "deeper" because a paste may indent every line);
 * if that fails too it is counted as skipped. Every other line
 * is an ordinary logcat line: counted, understood, not evidence.
 *
 * The record's pid, uid and process are those of the process the line is
 * about (the killed one), not of the logger, except where the line comes
 * from that process itself (libc, AndroidRuntime, ART).
 *
 * Speed: one memchr pass; a line costs its prefix parse and a tag check by
 * length and bytes; only evidence lines allocate.
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "logline.h"
#include "parsers.h"
#include "text.h"

#define STARTS(sp, lit) ((sp).n >= sizeof(lit) - 1 && memcmp((sp).s, lit, sizeof(lit) - 1) == 0)
#define EQ(sp, lit) ((sp).n == sizeof(lit) - 1 && memcmp((sp).s, lit, sizeof(lit) - 1) == 0)

#define SNIFF_BYTES ((size_t)64 << 10)
#define JOIN_MAX 4096        /* longest message a wrapped line is rebuilt into */
#define JOIN_LINES 2         /* continuation lines tried */
#define FOLLOW_LINES 64      /* how far the follow-up lines of a record may be */

enum lc_kind {
	K_NONE,
	K_LMKD,
	K_LMKD_OLD,
	K_AM_KILLING,
	K_AM_DIED,
	K_AM_LOWMEM,
	K_ZYGOTE,
	K_CRASH_BANNER,
	K_FATAL_SIGNAL,
	K_JAVA_FATAL,
	K_ART_OOM,
	K_BINDER,
	K_TOO_LARGE,
	K_WATCHDOG_KILL,
	K_APP_WATCHDOG,
	K_EVENT,
};


struct lc {
	struct ev_file *out;
	/* a java_crash waiting for its Process: and exception lines, then
	 * reading its stack */
	size_t java_line, java_last;  /* its line; the last line of it read */
	int java_open;
	int java_reason;        /* its exception line was read */
	int java_message;       /* the lines after an exception or "Caused by:"
				 * line and before its first "at": its message */
	char *java_tag;         /* a copy: its line is gone when the next come */
	size_t java_tag_n, java_tag_cap;
	int64_t java_pid;
	/* an Android 8 lmkd kill waiting for its "to free" line */
	size_t lmkd_line;
	int lmkd_open;
};

static inline int dig(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* Consume lit at the start of *c. */
static int eat(struct span *c, const char *lit)
{
	size_t n = strlen(lit);

	if (c->n < n || memcmp(c->s, lit, n) != 0)
		return 0;
	c->s += n;
	c->n -= n;
	return 1;
}

static int eat_int(struct span *c, int64_t *v)
{
	size_t k = span_int64(*c, v);

	if (!k)
		return 0;
	*c = span_from(*c, k);
	return 1;
}

/* Offset of the last occurrence of needle in s, or -1. */
static long find_last(struct span s, const char *needle)
{
	long at, last = -1;
	struct span r = s;

	while ((at = span_find(r, needle)) >= 0) {
		last = (long)(r.s - s.s) + at;
		r = span_from(r, (size_t)at + 1);
	}
	return last;
}


/* Whether s holds needle, in any case (needle in lower case). */
static int has_nocase(struct span s, const char *needle)
{
	size_t n = strlen(needle), i, k;

	for (i = 0; i + n <= s.n; i++) {
		for (k = 0; k < n && (s.s[i + k] | 0x20) == needle[k]; k++)
			;
		if (k == n)
			return 1;
	}
	return 0;
}

#define TOO_LARGE "TransactionTooLargeException"

/* A line of a tag that names a watchdog that says it ends the process. */
static int app_watchdog_line(struct span tag, struct span m)
{
	return has_nocase(tag, "watchdog") &&
	       (has_nocase(m, "kill") || has_nocase(m, "abort") || has_nocase(m, "exit") ||
		has_nocase(m, "terminat"));
}

static enum lc_kind classify_msg(enum logline_tag tg, struct span m)
{
	int any = tg == LOGTAG_ANY;

	if ((any || tg == LOGTAG_LMKD) && m.n > 6 && m.s[0] == 'K') {
		if (STARTS(m, "Kill '"))
			return K_LMKD;
		if (STARTS(m, "Killing '"))
			return K_LMKD_OLD;
	}
	if ((any || tg == LOGTAG_AM) && m.n > 8) {
		if (STARTS(m, "Killing ") && dig(m.s[8]))
			return K_AM_KILLING;
		if (STARTS(m, "Process ") && span_find(m, " has died") >= 0)
			return K_AM_DIED;
		if (STARTS(m, "Low on memory:"))
			return K_AM_LOWMEM;
	}
	if ((any || tg == LOGTAG_ZYGOTE) && STARTS(m, "Process ") &&
	    span_find(m, " exited due to signal ") >= 0)
		return K_ZYGOTE;
	if ((any || tg == LOGTAG_LIBC) && STARTS(m, "Fatal signal "))
		return K_FATAL_SIGNAL;
	if ((any || tg == LOGTAG_RUNTIME) && (STARTS(m, "FATAL EXCEPTION") || STARTS(m, "*** FATAL EXCEPTION")))
		return K_JAVA_FATAL;
	if (any && STARTS(m, "--------- beginning of crash"))
		return K_CRASH_BANNER;
	if (m.n > 25 && m.s[0] == 'T' && STARTS(m, "Throwing OutOfMemoryError"))
		return K_ART_OOM;
	if ((any || tg == LOGTAG_BINDER) && STARTS(m, "!!! FAILED BINDER TRANSACTION !!!"))
		return K_BINDER;
	if ((any || tg == LOGTAG_WATCHDOG) && STARTS(m, "*** WATCHDOG KILLING SYSTEM PROCESS"))
		return K_WATCHDOG_KILL;
	if (m.n > sizeof(TOO_LARGE) && span_find(m, TOO_LARGE) >= 0)
		return K_TOO_LARGE;
	return K_NONE;
}

/* What kind of line l is; *m is its message (for a raw line, without a
 * leading "TAG: " of a known tag). */
static enum lc_kind classify_line(const struct logline *l, struct span *m, enum logline_tag *tg)
{
	enum lc_kind k;

	*m = l->msg;
	*tg = LOGTAG_OTHER;
	if (l->format == LOGLINE_RAW) {
		long at = m->n > 4 ? span_find(span_of(m->s, m->n < 20 ? m->n : 20), ": ") : -1;

		*tg = LOGTAG_ANY;
		if (at > 0) {
			enum logline_tag t = logline_tag_of(span_of(m->s, (size_t)at));

			if (t != LOGTAG_OTHER) {
				*tg = t;
				*m = span_from(*m, (size_t)at + 2);
			}
		}
		return classify_msg(*tg, *m);
	}
	if (l->format == LOGLINE_LONG_HEADER)
		return K_NONE;
	*tg = logline_tag_of(l->tag);
	if (*tg == LOGTAG_OTHER) {
		if (m->n && m->s[0] == '[' && eventlog_tag_candidate(l->tag))
			return K_EVENT;
		if (m->n > 25 && m->s[0] == 'T' && STARTS(*m, "Throwing OutOfMemoryError"))
			return K_ART_OOM;
		if (m->n > sizeof(TOO_LARGE) && span_find(*m, TOO_LARGE) >= 0)
			return K_TOO_LARGE;
		if (l->tag.n >= 8 && app_watchdog_line(l->tag, *m))
			return K_APP_WATCHDOG;
		return K_NONE;
	}
	k = classify_msg(*tg, *m);
	if (k == K_NONE && *tg == LOGTAG_WATCHDOG && app_watchdog_line(l->tag, *m))
		k = K_APP_WATCHDOG;
	return k;
}

/* The "N kB label, ..." list after "to free "; stops at ';' or the end. */
static int parse_kb_list(struct span *c, struct logline_fields *f)
{
	for (;;) {
		struct span label;
		int64_t v;
		size_t j = 0;

		if (!eat_int(c, &v) || v < 0)
			return -1;
		if (!eat(c, "kB") && !eat(c, "kb") && !eat(c, "KB"))
			return -1;
		while (j < c->n && c->s[j] != ',' && c->s[j] != ';')
			j++;
		label = span_trim(span_of(c->s, j));
		*c = span_from(*c, j);
		if (label.n == 0 || span_eq(label, "rss"))
			f->rss_kb = v;
		else if (span_eq(label, "anon rss"))
			f->anon_rss_kb = v;
		else if (span_eq(label, "swap"))
			f->swap_kb = v;
		else if (span_eq(label, "dmabuf_pss"))
			f->dmabuf_pss_kb = v;
		else if (span_eq(label, "dmabuf_rss"))
			f->dmabuf_rss_kb = v;
		if (c->n == 0 || c->s[0] == ';')
			return 0;
		*c = span_skip_spaces(span_from(*c, 1));
		if (c->n == 0)
			return -1; /* cut after a comma */
	}
}

static int parse_lmkd(struct span m, struct logline_fields *f)
{
	struct span c = m;
	long at;

	if (!eat(&c, "Kill '") || (at = span_find(c, "' (")) < 0)
		return -1;
	f->process = span_of(c.s, (size_t)at);
	c = span_from(c, (size_t)at + 3);
	if (!eat_int(&c, &f->pid) || !eat(&c, "), uid ") || !eat_int(&c, &f->uid))
		return -1;
	if (!eat(&c, ", oom_score_adj ") && !eat(&c, ", oom_adj "))
		return -1;
	if (!eat_int(&c, &f->oom_score_adj) || !eat(&c, " to free ") || parse_kb_list(&c, f))
		return -1;
	if (c.n == 0)
		return 0;
	c = span_skip_spaces(span_from(c, 1)); /* the ';' */
	if (c.n == 0)
		return -1; /* cut after the ';' */
	if (eat(&c, "reason:")) {
		f->reason = span_trim(c);
		if (f->reason.n == 0)
			return -1;
	}
	return 0;
}

/* Android 8: "Killing '%s' (%d), uid %d, adj %d" */
static int parse_lmkd_old(struct span m, struct logline_fields *f)
{
	struct span c = m;
	long at;

	if (!eat(&c, "Killing '") || (at = span_find(c, "' (")) < 0)
		return -1;
	f->process = span_of(c.s, (size_t)at);
	c = span_from(c, (size_t)at + 3);
	if (!eat_int(&c, &f->pid) || !eat(&c, "), uid ") || !eat_int(&c, &f->uid) ||
	    !eat(&c, ", adj ") || !eat_int(&c, &f->oom_score_adj))
		return -1;
	return 0;
}

/* UserHandle.formatUid: 1000, u0a227, u10i3, u0ai2, u0s1000. */
static int64_t am_uid(struct span u)
{
	int64_t user = 0, n;
	size_t i = 1;

	if (u.n && dig(u.s[0]))
		return span_int64(u, &n) == u.n ? n : EV_NONE;
	if (u.n < 3 || u.s[0] != 'u' || !dig(u.s[1]))
		return EV_NONE;
	for (; i < u.n && dig(u.s[i]) && i < 8; i++)
		user = user * 10 + (u.s[i] - '0');
	u = span_from(u, i);
	if (eat(&u, "ai")) {
		if (span_int64(u, &n) == u.n && n >= 0)
			return user * 100000 + 90000 + n;
	} else if (eat(&u, "a")) {
		if (span_int64(u, &n) == u.n && n >= 0)
			return user * 100000 + 10000 + n;
	} else if (eat(&u, "i")) {
		if (span_int64(u, &n) == u.n && n >= 0)
			return user * 100000 + 99000 + n;
	} else if (eat(&u, "s")) {
		if (span_int64(u, &n) == u.n && n >= 0)
			return user * 100000 + n;
	}
	return EV_NONE;
}

/* Killing PID:PROC/UID (adj N): REASON */
static int parse_am_killing(struct span m, struct logline_fields *f)
{
	struct span c = m, who;
	long at, slash;

	if (!eat(&c, "Killing ") || !eat_int(&c, &f->pid) || !eat(&c, ":"))
		return -1;
	if ((at = span_find(c, " (adj ")) < 0)
		return -1;
	who = span_of(c.s, (size_t)at);
	c = span_from(c, (size_t)at + 6);
	if ((slash = find_last(who, "/")) <= 0)
		return -1;
	f->process = span_of(who.s, (size_t)slash);
	f->uid = am_uid(span_from(who, (size_t)slash + 1));
	if (f->uid == EV_NONE)
		return -1;
	if (!eat_int(&c, &f->oom_score_adj) || !eat(&c, ")"))
		return -1;
	if (eat(&c, ":"))
		f->reason = span_trim(c);
	else if (span_trim(c).n)
		return -1;
	return 0;
}

/* Process PROC (pid N) has died[: STATE] */
static int parse_am_died(struct span m, struct logline_fields *f)
{
	struct span c = m;
	long at;

	if (!eat(&c, "Process ") || (at = span_find(c, " (pid ")) <= 0)
		return -1;
	f->process = span_of(c.s, (size_t)at);
	c = span_from(c, (size_t)at + 6);
	if (!eat_int(&c, &f->pid) || !eat(&c, ") has died"))
		return -1;
	if (eat(&c, ":"))
		f->reason = span_trim(c);
	return 0;
}

/* Process N exited due to signal N (NAME)[; core dumped] */
static int parse_zygote(struct span m, struct logline_fields *f)
{
	struct span c = m;

	if (!eat(&c, "Process ") || !eat_int(&c, &f->pid) || !eat(&c, " exited due to signal ") ||
	    !eat_int(&c, &f->signo) || f->signo <= 0 || f->signo > 64)
		return -1;
	return 0;
}

/* Fatal signal N (SIG...)[, code ...] in tid N (THREAD)[, pid N (PROC)] */
static int parse_fatal_signal(const struct logline *l, struct span m, struct logline_fields *f)
{
	struct span c = m;
	long at;

	if (!eat(&c, "Fatal signal ") || !eat_int(&c, &f->signo) || f->signo <= 0 || f->signo > 64)
		return -1;
	at = find_last(c, ", pid ");
	if (at >= 0) {
		struct span p = span_from(c, (size_t)at + 6);

		if (!eat_int(&p, &f->pid))
			return -1;
		p = span_trim(p);
		if (p.n >= 3 && p.s[0] == '(' && p.s[p.n - 1] == ')')
			f->process = span_of(p.s + 1, p.n - 2);
	} else {
		f->pid = l->pid;
	}
	if (l->format == LOGLINE_UID)
		f->uid = logline_uid_value(l->uid);
	return 0;
}

static int parse_java_fatal(const struct logline *l, struct span m, struct logline_fields *f)
{
	f->pid = l->pid;
	if (l->format == LOGLINE_UID)
		f->uid = logline_uid_value(l->uid);
	if (STARTS(m, "*** FATAL EXCEPTION IN SYSTEM PROCESS"))
		f->process = span_of("system_server", 13);
	return 0;
}

/* Throwing OutOfMemoryError "MSG" (...) */
static int parse_art_oom(const struct logline *l, struct span m, struct logline_fields *f)
{
	struct span c = m;
	const char *q;

	eat(&c, "Throwing ");
	f->pid = l->pid;
	if (l->format == LOGLINE_UID)
		f->uid = logline_uid_value(l->uid);
	f->reason = span_of(c.s, 16); /* "OutOfMemoryError" */
	c = span_from(c, 16);
	q = memchr(c.s, '"', c.n);
	if (q) {
		long close;

		c = span_from(c, (size_t)(q - c.s) + 1);
		close = find_last(c, "\"");
		f->reason_sep = ": ";
		f->reason2 = close >= 0 ? span_of(c.s, (size_t)close) : span_trim(c);
	}
	return 0;
}

/* The logger's own pid and uid: the process the line is about. */
static void logger(const struct logline *l, struct logline_fields *f)
{
	f->pid = l->pid;
	if (l->format == LOGLINE_UID)
		f->uid = logline_uid_value(l->uid);
}

/* !!! FAILED BINDER TRANSACTION !!!  (parcel size = N) */
static int parse_binder(const struct logline *l, struct span m, struct logline_fields *f)
{
	long at = span_find(m, "(parcel size = ");

	logger(l, f);
	f->reason = span_trim(m);
	if (at >= 0) {
		struct span c = span_from(m, (size_t)at + 15);

		if (!eat_int(&c, &f->parcel_bytes) || f->parcel_bytes < 0 || !eat(&c, ")"))
			return -1;
	}
	return 0;
}

/* ...[android.os.]TransactionTooLargeException[: data parcel size N bytes] */
static int parse_too_large(const struct logline *l, struct span m, struct logline_fields *f)
{
	long at = span_find(m, TOO_LARGE), size;
	struct span c;

	logger(l, f);
	c = span_from(m, (size_t)at);
	if ((size_t)at >= 11 && memcmp(m.s + at - 11, "android.os.", 11) == 0)
		c = span_from(m, (size_t)at - 11);
	f->reason = span_trim(c);
	if ((size = span_find(c, "data parcel size ")) >= 0) {
		c = span_from(c, (size_t)size + 17);
		if (!eat_int(&c, &f->parcel_bytes) || f->parcel_bytes < 0)
			return -1;
	}
	return 0;
}

/* *** WATCHDOG KILLING SYSTEM PROCESS[: SUBJECT] */
static int parse_watchdog_kill(const struct logline *l, struct span m, struct logline_fields *f)
{
	struct span c = span_from(m, 35);

	logger(l, f);
	f->process = span_of("system_server", 13);
	eat(&c, ":");
	f->reason = span_trim(c);
	return 0;
}

/* Parse a line of kind k without recording it: 0, or -1 if malformed. */
static int parse_kind(enum lc_kind k, const struct logline *l, struct span m,
		      struct logline_fields *f, enum log_event_type *t)
{
	logline_fields_init(f);
	switch (k) {
	case K_LMKD:
		*t = LOG_LMKD_KILL;
		return parse_lmkd(m, f);
	case K_LMKD_OLD:
		*t = LOG_LMKD_KILL;
		return parse_lmkd_old(m, f);
	case K_AM_KILLING:
		*t = LOG_AM_KILLING;
		return parse_am_killing(m, f);
	case K_AM_DIED:
		*t = LOG_AM_DIED;
		return parse_am_died(m, f);
	case K_AM_LOWMEM:
		*t = LOG_AM_LOW_MEMORY;
		return span_trim(span_from(m, 14)).n ? -1 : 0;
	case K_ZYGOTE:
		*t = LOG_ZYGOTE_SIGNAL;
		return parse_zygote(m, f);
	case K_CRASH_BANNER:
		*t = LOG_CRASH_BEGIN;
		return span_trim(span_from(m, 28)).n ? -1 : 0;
	case K_FATAL_SIGNAL:
		*t = LOG_FATAL_SIGNAL;
		return parse_fatal_signal(l, m, f);
	case K_JAVA_FATAL:
		*t = LOG_JAVA_CRASH;
		return parse_java_fatal(l, m, f);
	case K_ART_OOM:
		*t = LOG_JAVA_CRASH;
		return parse_art_oom(l, m, f);
	case K_BINDER:
		*t = LOG_BINDER_FAILED;
		return parse_binder(l, m, f);
	case K_TOO_LARGE:
		*t = LOG_BINDER_FAILED;
		return parse_too_large(l, m, f);
	case K_WATCHDOG_KILL:
		*t = LOG_WATCHDOG_KILL;
		return parse_watchdog_kill(l, m, f);
	case K_APP_WATCHDOG:
		*t = LOG_APP_WATCHDOG;
		logger(l, f);
		f->reason = span_trim(m);
		return 0;
	default:
		return -1;
	}
}

/* Record a line of kind k: 1, -1 if malformed, -2 on ENOMEM. */
static int handle(struct lc *st, enum lc_kind k, const struct logline *l, struct span m,
		  size_t lineno)
{
	struct logline_fields f;
	enum log_event_type t;

	if (k == K_EVENT)
		return eventlog_line(l, lineno, st->out);
	if (parse_kind(k, l, m, &f, &t) != 0)
		return -1;
	if (logline_emit(st->out, t, l, lineno, &f) != 0)
		return -2;
	if (k == K_JAVA_FATAL) {
		if (l->tag.n > st->java_tag_cap) {
			char *nv = realloc(st->java_tag, l->tag.n);

			if (!nv)
				return -2;
			st->java_tag = nv;
			st->java_tag_cap = l->tag.n;
		}
		if (l->tag.n)
			memcpy(st->java_tag, l->tag.s, l->tag.n);
		st->java_tag_n = l->tag.n;
		st->java_open = 1;
		st->java_reason = 0;
		st->java_line = st->java_last = lineno;
		st->java_pid = l->pid;
	} else if (k == K_LMKD_OLD) {
		st->lmkd_open = 1;
		st->lmkd_line = lineno;
	}
	return 1;
}

static size_t indentation(struct span line)
{
	return line.n - span_skip_spaces(line).n;
}

/* A wrapped evidence line: join the raw lines after it (see the top),
 * read ahead; those joined are consumed. indent is the evidence line's
 * indentation. Lines under a -v long header are never joined: they are
 * that header's messages, not raw lines. Returns what handle() returns, or
 * -3 when the read ahead failed. */
static int handle_joined(struct lc *st, enum lc_kind k, const struct logline *l, struct span m,
			 size_t indent, size_t lineno, struct logline_iter *it)
{
	char buf[JOIN_MAX];
	size_t bn = m.n;
	int j, rc = -1, got = 1;

	if (k == K_EVENT || m.n > sizeof(buf) || it->in_long)
		return -1;
	memcpy(buf, m.s, m.n);
	input_peek(it->in);
	for (j = 0; j < JOIN_LINES && rc == -1; j++) {
		struct span pline;
		struct logline nl;
		int sep;

		if ((got = input_line(it->in, &pline)) <= 0)
			break;
		logline_parse(pline.s, pline.n, it->opts, &nl);
		if (nl.format != LOGLINE_RAW || nl.msg.n == 0 || STARTS(nl.msg, "---------"))
			break;
		sep = indentation(pline) > indent;
		if (bn + (size_t)sep + nl.msg.n > sizeof(buf))
			break;
		if (sep)
			buf[bn++] = ' ';
		memcpy(buf + bn, nl.msg.s, nl.msg.n);
		bn += nl.msg.n;
		rc = handle(st, k, l, span_of(buf, bn), lineno);
	}
	input_peek_end(it->in, rc != -1);
	it->lineno = it->in->lineno;
	return got < 0 ? -3 : rc;
}

static int set_text(char **dst, struct span s)
{
	char *p = ev_strndup(s.s, s.n);

	if (!p)
		return -1;
	free(*dst);
	*dst = p;
	return 0;
}

/* The record of type t read from line `line`: a record still open, which
 * ev_add_log() may have moved when it dropped older ones to the cap. It is
 * among the last: search from the end. NULL if none. */
static struct log_event *event_of_line(struct ev_file *f, size_t line, enum log_event_type t)
{
	size_t i = f->nlogs;

	while (i-- > 0) {
		if (f->logs[i].line < line)
			break;
		if (f->logs[i].line == line && f->logs[i].type == t)
			return &f->logs[i];
	}
	return NULL;
}

/* A line of a Java crash's stack, m (trimmed), after its exception line:
 * "at ..." and "Caused by: ..." (or "Suppressed: ...") lines are kept
 * (the first EV_JAVA_FRAMES_MAX, the others counted), "... N more" passed
 * over, the lines of an exception's message passed over; any other line
 * ends the stack. 0, or -1 on ENOMEM. */
static int java_stack_line(struct lc *st, struct log_event *e, struct span m)
{
	struct span c = m;
	int cause = STARTS(m, "Caused by: ") || STARTS(m, "Suppressed: ");
	struct java_frame *fr;

	if (eat(&c, "at ") && c.n) {
		st->java_message = 0;
	} else if (cause) {
		st->java_message = 1;
	} else if (STARTS(m, "... ") && span_find(m, " more") > 0) {
		return 0;
	} else {
		if (!st->java_message)
			st->java_open = 0;
		return 0;
	}
	if (e->nstack >= EV_JAVA_FRAMES_MAX) {
		st->out->stats.cut_java_frames++;
		return 0;
	}
	if (!(fr = ev_grow((void **)&e->stack, e->nstack, sizeof(*fr))))
		return -1;
	memset(fr, 0, sizeof(*fr));
	if (!(fr->text = ev_strndup(c.s, c.n)))
		return -1;
	e->nstack++;
	return 0;
}

/* The lines that complete an open record: AndroidRuntime's Process: and
 * exception lines and its stack, Android 8 lmkd's "to free". 0, or -2 on
 * ENOMEM. */
static int follow_up(struct lc *st, const struct logline *l, struct span msg, enum logline_tag tg,
		     size_t lineno)
{
	struct span m = span_trim(msg);

	if (st->java_open) {
		if (lineno - st->java_last > FOLLOW_LINES) {
			st->java_open = 0;
		} else if (l->tag.n == st->java_tag_n &&
			   (!l->tag.n || memcmp(l->tag.s, st->java_tag, l->tag.n) == 0) &&
			   (st->java_pid == EV_NONE || l->pid == EV_NONE || l->pid == st->java_pid) &&
			   m.n) {
			struct log_event *e = event_of_line(st->out, st->java_line, LOG_JAVA_CRASH);
			struct span c = m;
			long at;

			if (!e) {
				st->java_open = 0;
			} else if (st->java_reason) {
				st->java_last = lineno;
				if (java_stack_line(st, e, m) != 0)
					return -2;
			} else if (eat(&c, "Process: ")) {
				int64_t pid;

				if ((at = find_last(c, ", PID: ")) >= 0) {
					struct span p = span_from(c, (size_t)at + 7);

					if (eat_int(&p, &pid))
						e->pid = pid;
					c = span_of(c.s, (size_t)at);
				}
				if (set_text(&e->process, span_trim(c)))
					return -2;
				st->java_last = lineno;
			} else {
				if (!e->reason && set_text(&e->reason, m))
					return -2;
				st->java_reason = 1;
				st->java_message = 1;
				st->java_last = lineno;
			}
		}
	}
	if (st->lmkd_open) {
		if (lineno - st->lmkd_line > FOLLOW_LINES) {
			st->lmkd_open = 0;
		} else if (tg == LOGTAG_LMKD) {
			struct log_event *e = event_of_line(st->out, st->lmkd_line, LOG_LMKD_KILL);
			struct span c = m;
			int64_t kb;
			long at;

			st->lmkd_open = 0;
			if (e && eat(&c, "to free ") && eat_int(&c, &kb) && eat(&c, "kB")) {
				e->rss_kb = kb;
				if ((at = span_find(c, "because ")) >= 0) {
					struct span r = span_from(c, (size_t)at + 8);
					long end = span_find(r, " (origin");

					if (end < 0)
						end = span_find(r, " oom_adj");
					if (end >= 0)
						r = span_of(r.s, (size_t)end);
					if (set_text(&e->reason, span_trim(r)))
						return -2;
				}
			}
		}
	}
	return 0;
}

/* Several prefixed lines in the first 64 KiB, a banner of logcat's, or one
 * evidence line that parses, prefixed or not. */
int logcat_sniff(const char *buf, size_t len)
{
	struct logline_iter it;
	struct input in;
	struct span line, m;
	struct logline l;
	size_t prefixed = 0, evidence = 0;
	int found = 0;

	input_init_mem(&in, buf, len < SNIFF_BYTES ? len : SNIFF_BYTES);
	logline_iter_init(&it, &in, 0);
	while (!found && logline_next(&it, &line, &l) > 0) {
		struct logline_fields f;
		enum log_event_type t;
		enum logline_tag tg;
		enum lc_kind k;

		if (l.format != LOGLINE_RAW && l.format != LOGLINE_LONG)
			prefixed++;
		else if (STARTS(l.msg, "--------- beginning of ") || STARTS(l.msg, "--------- switch to "))
			found = 1; /* logcat's own banners */
		k = classify_line(&l, &m, &tg);
		if (k == K_EVENT || (k != K_NONE && parse_kind(k, &l, m, &f, &t) == 0))
			evidence++;
		if (prefixed >= 2 || evidence)
			found = 1;
	}
	logline_iter_release(&it);
	input_release(&in);
	return found;
}

int logcat_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct logline_iter it;
	struct span line;
	struct logline l;
	struct lc st;
	int rc = 0, got = 0;

	memset(&st, 0, sizeof(st));
	st.out = out;
	logline_iter_init(&it, in, 0);
	while (rc == 0 && (got = logline_next(&it, &line, &l)) > 0) {
		size_t lineno = it.lineno;
		enum logline_tag tg;
		struct span m;
		enum lc_kind k = classify_line(&l, &m, &tg);

		/* A crash's exception may be a TransactionTooLargeException:
		 * the crash's line, and a record of its own. */
		if (k == K_NONE || k == K_TOO_LARGE) {
			if ((st.java_open || st.lmkd_open) && follow_up(&st, &l, m, tg, lineno) != 0)
				rc = -2;
			if (k == K_NONE || rc)
				continue;
		}
		rc = handle(&st, k, &l, m, lineno);
		if (rc == -1)
			rc = handle_joined(&st, k, &l, m, indentation(line), lineno, &it);
		if (rc == -1)
			ev_skip(&out->stats, lineno);
		rc = rc < -1 ? rc : 0;
	}
	out->stats.lines = it.lineno;
	free(st.java_tag);
	logline_iter_release(&it);
	if (got < 0 || rc == -3)
		return input_error(in, err);
	if (rc == -2) {
		err->line = in->lineno;
		strcpy(err->reason, "out of memory");
		return -1;
	}
	return 0;
}
