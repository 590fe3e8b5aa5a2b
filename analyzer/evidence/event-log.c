/*
 * The event log (`logcat -b events`), in any prefix logline.h reads except
 * raw (`-v raw` drops the tag, and an event is nothing without it). An
 * event's values print as "[a,b,c]" with strings unquoted, so a list is
 * split on commas, anchored where a field may itself hold commas.
 *
 * Tags and fields (frameworks/base services/core/java/com/android/server/am/
 * EventLogTags.logtags; system/memory/lmkd event.logtags):
 *   am_kill        [User,PID,Process Name,OomAdj,Reason(,Rss)]
 *                  Rss since Android 13 (kB: ProcessRecord.getRss() is
 *                  VmRSS from /proc/PID/status, although the logtags unit
 *                  says bytes). A process name never holds a comma; a reason
 *                  may, so the reason is everything between OomAdj and the
 *                  end, less a last all-digit field, taken as Rss.
 *   am_proc_died   [User,PID,Process Name(,OomAdj,ProcState)]
 *   am_anr         [User,pid,Package Name,Flags,reason]  (reason may hold commas)
 *   am_crash       [PID,User,Process Name,Flags,Exception,Message,File,Line(,Recoverable)]
 *                  in this order, although EventLogTags.logtags names the
 *                  first two (User,PID): ActivityManagerService's
 *                  handleApplicationCrashInner() writes
 *                  writeAmCrash(Binder.getCallingPid(),
 *                  UserHandle.getUserId(Binder.getCallingUid()), processName,
 *                  ...) (AOSP frameworks/base, services/core/java/com/android/
 *                  server/am/ActivityManagerService.java, Android 6 to 15).
 *                  Those are the caller's: a Java crash is reported by the app
 *                  itself over binder, so they are its pid and user; a native
 *                  crash is reported by NativeCrashListener's thread inside
 *                  system_server (exception "Native crash", the message
 *                  strsignal()'s text), so they are system_server's, and the
 *                  record has no pid and no user: the process is named only.
 *                  Recoverable is 1 for a GWP-ASan recoverable crash (AMS:
 *                  recoverable = eventType.equals("native_recoverable_crash")),
 *                  after which the process runs on: not a death, so not
 *                  recorded.
 *                  The message may hold commas: the first five fields are
 *                  read from the left and File, Line (and Recoverable when the
 *                  last two fields are both integers) from the right; the
 *                  reason is "Exception: Message"
 *   am_proc_start  [User,PID,UID,Process Name,Type,Component]  reason "Type Component"
 *   am_low_memory  Num Processes (a single value): an am_low_memory record
 *   killinfo       tag 10195355, lmkd's kill report (lmkd.cpp killinfo_log(),
 *                  read in AOSP system/memory/lmkd, android11 to main):
 *                    0 Pid, 1 Uid, 2 OomAdj, 3 MinOomAdj,
 *                    4 TaskSize (the victim's rss in kB; pages * page_k on
 *                      Android 11),
 *                    5 enum kill_reasons (-1 none, 0 PRESSURE_AFTER_KILL ...
 *                      9 DIRECT_RECL_STUCK, 1000+ vendor),
 *                    6..24 meminfo in kB: 6 MemFree, Cached, SwapCached,
 *                      Buffers, Shmem, Unevictable, SwapTotal, SwapFree,
 *                      Active(anon), Inactive(anon), Active(file),
 *                      Inactive(file), SReclaimable, SUnreclaim,
 *                      KernelStack, PageTables, ION_heap, ION_heap_pool,
 *                      24 CmaFree,
 *                    25..28 MsSinceEvent, MsSincePrevWakeup,
 *                      WakeupsSinceEvent, SkippedWakeups (Android 12+),
 *                    29 TaskSwapSize (the victim's swap in kB), 30 GPU,
 *                    31 Thrashing, 32 MaxThrashing, 33..37 PSI (floats).
 *                  Recorded: pid, uid, oom_score_adj, rss_kb (4),
 *                  kill_reason_code (5), free_kb (6, MemFree) and swap_kb
 *                  (29) when the list is that long.
 * Every other line is an ordinary line; an evidence tag whose list does not
 * read is counted as skipped.
 *
 * Detection: most prefixed lines in the first 64 KiB are event-shaped (a
 * list value, or a number under a lower_case tag), and nothing says the
 * file mixes in other buffers (a banner other than "beginning of events", or
 * a line of a tag the logcat parser reads): `logcat -b all` output goes to
 * the logcat parser, which reads the event lines too.
 */
#include <string.h>

#include "input.h"
#include "logline.h"
#include "parsers.h"
#include "text.h"

#define SNIFF_BYTES ((size_t)64 << 10)
#define AM_NATIVE_CRASH "Native crash" /* NativeCrashListener's exception name */

enum ev_tag {
	E_NONE,
	E_AM_KILL,
	E_AM_PROC_DIED,
	E_AM_ANR,
	E_AM_CRASH,
	E_AM_PROC_START,
	E_AM_LOW_MEMORY,
	E_KILLINFO,
};

static enum ev_tag event_tag(struct span t)
{
	if (!eventlog_tag_candidate(t))
		return E_NONE;
	if (span_eq(t, "am_kill"))
		return E_AM_KILL;
	if (span_eq(t, "am_proc_died"))
		return E_AM_PROC_DIED;
	if (span_eq(t, "am_anr"))
		return E_AM_ANR;
	if (span_eq(t, "am_crash"))
		return E_AM_CRASH;
	if (span_eq(t, "am_proc_start"))
		return E_AM_PROC_START;
	if (span_eq(t, "am_low_memory"))
		return E_AM_LOW_MEMORY;
	if (span_eq(t, "killinfo"))
		return E_KILLINFO;
	return E_NONE;
}

/* The field before the next comma (or the rest); 0 when c is exhausted. */
static int take_left(struct span *c, struct span *field, int *more)
{
	const char *comma = c->n ? memchr(c->s, ',', c->n) : NULL;

	if (!c->n && !*more)
		return 0;
	if (comma) {
		*field = span_of(c->s, (size_t)(comma - c->s));
		*c = span_from(*c, field->n + 1);
		*more = 1;
	} else {
		*field = *c;
		*c = span_from(*c, c->n);
		*more = 0;
	}
	return 1;
}

/* The field after the last comma; 0 when there is no comma. */
static int take_right(struct span *c, struct span *field)
{
	size_t i = c->n;

	while (i > 0 && c->s[i - 1] != ',')
		i--;
	if (i == 0)
		return 0;
	*field = span_from(*c, i);
	c->n = i - 1;
	return 1;
}

static int field_int(struct span f, int64_t *v)
{
	return f.n && span_int64(f, v) == f.n;
}

/* Read the leading fields of c as integers or text, per the pattern:
 * 'i' integer, 's' text. */
static int take_fields(struct span *c, int *more, const char *pattern, int64_t *ints,
		       struct span *texts)
{
	struct span f;

	for (; *pattern; pattern++) {
		if (!take_left(c, &f, more))
			return -1;
		if (*pattern == 'i') {
			if (!field_int(f, ints++))
				return -1;
		} else {
			*texts++ = f;
		}
	}
	return 0;
}

int eventlog_line(const struct logline *l, size_t lineno, struct ev_file *out)
{
	enum ev_tag tag = event_tag(l->tag);
	struct span m = span_trim(l->msg), c, f, s[2];
	struct logline_fields lf;
	enum log_event_type type;
	int64_t v[4];
	int more = 1, named_only = 0;

	if (tag == E_NONE)
		return 0;
	logline_fields_init(&lf);
	if (tag == E_AM_LOW_MEMORY) {
		if (m.n >= 2 && m.s[0] == '[' && m.s[m.n - 1] == ']')
			m = span_of(m.s + 1, m.n - 2);
		if (!field_int(m, &v[0]))
			return -1;
		return logline_emit(out, LOG_AM_LOW_MEMORY, l, lineno, &lf) ? -2 : 1;
	}
	if (m.n < 2 || m.s[0] != '[' || m.s[m.n - 1] != ']')
		return -1;
	c = span_of(m.s + 1, m.n - 2);
	switch (tag) {
	case E_AM_KILL:
		type = LOG_EV_AM_KILL;
		if (take_fields(&c, &more, "iisi", v, s) || !more)
			return -1;
		lf.user = v[0];
		lf.pid = v[1];
		lf.process = s[0];
		lf.oom_score_adj = v[2];
		{
			struct span rest = c, last;

			if (take_right(&rest, &last) && field_int(last, &v[3])) {
				lf.rss_kb = v[3];
				c = rest;
			}
		}
		lf.reason = c;
		break;
	case E_AM_PROC_DIED:
		type = LOG_EV_AM_PROC_DIED;
		if (take_fields(&c, &more, "iis", v, s))
			return -1;
		lf.user = v[0];
		lf.pid = v[1];
		lf.process = s[0];
		if (more) {
			if (take_fields(&c, &more, "ii", v + 2, s))
				return -1;
			lf.oom_score_adj = v[2];
		}
		break;
	case E_AM_ANR:
		type = LOG_EV_AM_ANR;
		if (take_fields(&c, &more, "iisi", v, s) || !more)
			return -1;
		lf.user = v[0];
		lf.pid = v[1];
		lf.process = s[0];
		lf.reason = c;
		break;
	case E_AM_CRASH: {
		struct span r1, r2, file;

		type = LOG_EV_AM_CRASH;
		if (take_fields(&c, &more, "iisis", v, s) || !more)
			return -1;
		lf.process = s[0];
		lf.reason = s[1];
		named_only = span_eq(s[1], AM_NATIVE_CRASH);
		if (!named_only) {
			lf.pid = v[0];
			lf.user = v[1];
		}
		if (!take_right(&c, &r1) || !take_right(&c, &r2) || !field_int(r1, &v[3]))
			return -1;
		if (field_int(r2, &v[2])) {
			if (!take_right(&c, &file))
				return -1;
			if (v[3] == 1)
				return 0; /* recoverable: the process lives on */
		}
		/* c is now the message */
		if (c.n) {
			lf.reason_sep = ": ";
			lf.reason2 = c;
		}
		break;
	}
	case E_AM_PROC_START:
		type = LOG_EV_AM_PROC_START;
		if (take_fields(&c, &more, "iiiss", v, s))
			return -1;
		lf.user = v[0];
		lf.pid = v[1];
		lf.uid = v[2];
		lf.process = s[0];
		lf.reason = s[1];
		if (more) {
			lf.reason_sep = " ";
			lf.reason2 = c;
		}
		break;
	case E_KILLINFO: {
		int64_t x = 0;
		int i;

		type = LOG_EV_KILLINFO;
		for (i = 0; take_left(&c, &f, &more); i++) {
			if (i <= 29 && i != 3 && (i < 7 || i == 29) && !field_int(f, &x))
				return -1;
			switch (i) {
			case 0: lf.pid = x; break;
			case 1: lf.uid = x; break;
			case 2: lf.oom_score_adj = x; break;
			case 4: lf.rss_kb = x; break;
			case 5: lf.kill_reason_code = x; break;
			case 6: lf.free_kb = x; break;
			case 29: lf.swap_kb = x; break;
			default: break;
			}
		}
		if (i < 6)
			return -1;
		break;
	}
	default:
		return 0;
	}
	if (lf.pid < 0 && tag != E_KILLINFO && !named_only)
		return -1;
	return logline_emit(out, type, l, lineno, &lf) ? -2 : 1;
}

int log_event_native_crash(const struct log_event *e)
{
	size_t n = sizeof(AM_NATIVE_CRASH) - 1;

	return e->type == LOG_EV_AM_CRASH && e->reason &&
	       strncmp(e->reason, AM_NATIVE_CRASH, n) == 0 &&
	       (e->reason[n] == '\0' || e->reason[n] == ':');
}

/* An event line: a tag that looks like an event name (lower case, digits,
 * '_') and a list value, or a lone number under a tag with a '_'. */
static int event_shaped(const struct logline *l)
{
	struct span m = l->msg, t = l->tag;
	size_t i;
	int under = 0;

	if (!t.n || !m.n)
		return 0;
	for (i = 0; i < t.n; i++) {
		char ch = t.s[i];

		if (ch == '_')
			under = 1;
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			return 0;
	}
	if (m.s[0] == '[')
		return 1;
	for (i = 0; i < m.n; i++)
		if (!((m.s[i] >= '0' && m.s[i] <= '9') || m.s[i] == '-'))
			return 0;
	return under;
}

/* Whether line l, after those seen, decides the sniff: 1 event log, 0 not,
 * -1 undecided yet. */
static int sniff_line(const struct logline *l, size_t *prefixed, size_t *events)
{
	if (l->format == LOGLINE_RAW) {
		/* a banner of another buffer: `-b all`, logcat's */
		if (span_starts(l->msg, "--------- beginning of ") &&
		    !span_eq(span_trim(l->msg), "--------- beginning of events"))
			return 0;
		return -1;
	}
	if (l->format == LOGLINE_LONG_HEADER)
		return -1;
	++*prefixed;
	if (event_shaped(l))
		++*events;
	else if (logline_tag_of(l->tag) != LOGTAG_OTHER)
		return 0; /* main or system lines mixed in: logcat's */
	return -1;
}

int eventlog_sniff(const char *buf, size_t len)
{
	struct logline_iter it;
	struct span line;
	struct logline l;
	struct input in;
	size_t prefixed = 0, events = 0;
	int verdict = -1;

	input_init_mem(&in, buf, len < SNIFF_BYTES ? len : SNIFF_BYTES);
	logline_iter_init(&it, &in, 0);
	while (verdict < 0 && logline_next(&it, &line, &l) > 0)
		verdict = sniff_line(&l, &prefixed, &events);
	logline_iter_release(&it);
	input_release(&in);
	if (verdict >= 0)
		return verdict;
	return events >= 1 && 2 * events >= prefixed;
}

int eventlog_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct logline_iter it;
	struct span line;
	struct logline l;
	int rc = 0, got = 0;

	logline_iter_init(&it, in, 0);
	while (rc != -2 && (got = logline_next(&it, &line, &l)) > 0) {
		if (l.format == LOGLINE_RAW || l.format == LOGLINE_LONG_HEADER)
			continue;
		rc = eventlog_line(&l, it.lineno, out);
		if (rc == -1)
			ev_skip(&out->stats, it.lineno);
	}
	out->stats.lines = in->lineno;
	logline_iter_release(&it);
	if (got < 0)
		return input_error(in, err);
	if (rc == -2) {
		err->line = in->lineno;
		strcpy(err->reason, "out of memory");
		return -1;
	}
	return 0;
}
