/*
 * ANR traces: what ART writes on SIGQUIT, and the file ActivityManager
 * keeps for an ANR (/data/anr/anr_*, and anr_*.gz in procexitstore, which
 * the input layer inflates as it reads them).
 *
 * The classic layout, one section per process dumped:
 *
 *   ----- pid 1234 at 2023-08-15 15:54:17.525739772+0100 -----
 *   Cmd line: com.example.app
 *   ... runtime statistics ...
 *   DALVIK THREADS (25):
 *   "main" prio=5 tid=1 Blocked
 *     | group="main" sCount=1 ucsCount=0 flags=1 obj=0x... self=0x...
 *     | sysTid=1234 nice=-10 cgrp=top-app sched=0/0 handle=0x...
 *     at com.example.Foo.bar(Foo.java:12)
 *     - waiting to lock <0x0a1b2c3d> (a java.lang.Object) held by thread 23
 *   (blank line between threads; "main" need not come first)
 *   ----- end 1234 -----
 *
 * A native process's section (debuggerd's backtrace format) has threads as
 * '"name" sysTid=N' followed by "#00 pc ..." frames; its main thread is the
 * one whose sysTid is the pid.
 *
 * The newer layout starts with a header: "Subject: <why>", notes, "RssKb:"
 * and other memory lines, a "--- CriticalEventLog ---", then sections:
 * "----- dumping pid: N at <uptime ms>", "----- Waiting Channels: pid N at
 * <date> -----" (kernel wait channels, no stacks), and the sections above.
 * When ART's Signal Catcher is stuck there are no Java threads at all.
 *
 * A trace pasted into a bug tracker may have every line indented by the
 * same margin (spaces or tabs). Lines are read trimmed; a thread header is
 * told from its block's lines (indented under it) by starting at the margin
 * of the section it is in, that is the indentation of the section's
 * "----- " or "Subject:" line (ART writes both at column 0).
 *
 * Records: one per process. Sections about the pid of the open record join
 * it (the Subject header takes the first pid it sees), except that a second
 * full "----- pid N at" dump of the same pid is a second ANR (old
 * traces.txt appended them). Lines inside a known section are understood
 * even when nothing is kept from them (statistics); lines outside any are
 * counted as not understood.
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "parsers.h"
#include "text.h"

#define ANR_SNIFF_BYTES ((size_t)64 * 1024)

enum anr_section {
	SEC_NONE,     /* before any record, or after "----- end N -----" */
	SEC_HEADER,   /* the Subject header */
	SEC_DUMP,     /* "----- pid N at": a thread dump */
	SEC_OTHER,    /* dumping pid, Waiting Channels, other banners */
};

struct anr_parse {
	struct ev_file *out;
	int open;
	int subject_file;     /* the file starts with "Subject:" */
	int had_dump;         /* the open record had a "----- pid N at" section */
	int time_is_uptime;   /* time_text came from "dumping pid: N at <uptime>" */
	int top_is_java;      /* main_top_frame is an "at" frame */
	int in_main;          /* reading the main thread's lines */
	int64_t threads_seen; /* thread headers of the open record */
	enum anr_section sec;
	size_t margin;        /* indentation of the section's "----- " line */
	int oom;
};

static struct anr_trace *cur(struct anr_parse *ap)
{
	return ap->open ? &ap->out->anrs[ap->out->nanrs - 1] : NULL;
}

static int set_text(struct anr_parse *ap, char **dst, struct span s)
{
	char *p;

	s = span_trim(s);
	if (!s.n)
		return 0;
	p = ev_strndup(s.s, s.n);
	if (!p) {
		ap->oom = 1;
		return 0;
	}
	free(*dst);
	*dst = p;
	return 1;
}

/* Close the open record: the thread count of a dump without a DALVIK
 * THREADS line is the number of threads read. */
static void finish(struct anr_parse *ap)
{
	struct anr_trace *a = cur(ap);

	if (a && a->thread_count == EV_NONE && ap->threads_seen)
		a->thread_count = ap->threads_seen;
	ap->open = 0;
	ap->in_main = 0;
}

static struct anr_trace *start_record(struct anr_parse *ap, size_t lineno)
{
	struct anr_trace *a;

	finish(ap);
	a = ev_add_anr(ap->out);
	if (!a) {
		ap->oom = 1;
		return NULL;
	}
	a->line = lineno;
	if (!set_text(ap, &a->layout, span_of(ap->subject_file ? "subject" : "art",
					       ap->subject_file ? 7 : 3))) {
		ap->oom = 1;
		return NULL;
	}
	ap->open = 1;
	ap->had_dump = ap->time_is_uptime = ap->top_is_java = ap->in_main = 0;
	ap->threads_seen = 0;
	return a;
}

/* The record a section about pid belongs to: the open one when it is about
 * the same pid (or is a Subject header still without one), else a new one.
 * A second thread dump of the same pid starts a new record too. */
static struct anr_trace *record_for(struct anr_parse *ap, int64_t pid, int is_dump,
				    size_t lineno)
{
	struct anr_trace *a = cur(ap);

	if (!a || (a->pid != EV_NONE && a->pid != pid) || (is_dump && ap->had_dump))
		a = start_record(ap, lineno);
	if (!a)
		return NULL;
	a->pid = pid;
	ap->in_main = 0;
	if (is_dump)
		ap->had_dump = 1;
	return a;
}

/* "<prefix>N at TIME[ -----]": pid and time; 0 if the pid is missing. */
static int section_head(struct span p, size_t prefix_len, int64_t *pid, struct span *time)
{
	size_t k;

	p = span_from(p, prefix_len);
	k = span_int64(p, pid);
	if (!k)
		return 0;
	p = span_from(p, k);
	time->s = NULL;
	time->n = 0;
	if (span_starts(p, " at ")) {
		*time = span_trim(span_from(p, 4));
		while (time->n && time->s[time->n - 1] == '-')
			time->n--;
		*time = span_trim(*time);
	}
	return 1;
}

static void set_time(struct anr_parse *ap, struct anr_trace *a, struct span time, int uptime)
{
	if (!time.n)
		return;
	if (a->time_text && !(ap->time_is_uptime && !uptime))
		return;
	if (set_text(ap, &a->time_text, time))
		ap->time_is_uptime = uptime;
}

/* A thread header: '"name" [daemon] prio=N tid=N State' (ART, Dalvik), or
 * '"name" sysTid=N' (debuggerd). */
static void handle_thread(struct anr_parse *ap, struct anr_trace *a, struct span p)
{
	struct span name, rest, v;
	int64_t n;
	long q;

	ap->in_main = 0;
	p = span_from(p, 1);
	q = span_find(p, "\"");
	if (q < 0)
		return;
	name = span_of(p.s, (size_t)q);
	rest = span_from(p, (size_t)q + 1);
	ap->threads_seen++;
	if (span_field(rest, "prio=", &v) || span_field(rest, "tid=", &v)) {
		a->has_java_threads = 1;
		if (!span_eq(name, "main") || (a->main_found && a->main_tid != EV_NONE))
			return;
		/* A Java "main" replaces a native main found before. */
		free(a->main_state);
		free(a->main_lock);
		free(a->main_top_frame);
		a->main_state = a->main_lock = a->main_top_frame = NULL;
		a->lock_owner_tid = EV_NONE;
		a->main_found = 1;
		ap->in_main = 1;
		ap->top_is_java = 0;
		if (span_field(rest, "tid=", &v) && span_int64(v, &n) == v.n) {
			struct span state = span_skip_spaces(span_from(rest, (size_t)(v.s + v.n - rest.s)));
			size_t i;

			a->main_tid = n;
			for (i = 0; i < state.n && state.s[i] != ' ' && state.s[i] != '\t'; i++)
				;
			set_text(ap, &a->main_state, span_of(state.s, i));
		}
		return;
	}
	if (span_field(span_skip_spaces(rest), "sysTid=", &v) && span_int64(v, &n) &&
	    n == a->pid && !a->main_found) {
		a->main_found = 1;
		a->main_sys_tid = n;
		ap->in_main = 1;
		ap->top_is_java = 0;
	}
}

/* "- waiting to lock <0x..> (a X) held by thread N" and the other lines
 * that say what main waits on; "- locked" is a monitor main holds. */
static void handle_lock(struct anr_parse *ap, struct anr_trace *a, struct span p)
{
	static const char *const verbs[] = {
		"- waiting to lock ", "- waiting on ", "- sleeping on ", "- parking to wait for ",
	};
	struct span what = { NULL, 0 };
	size_t i;
	long at;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (span_starts(p, verbs[i])) {
			what = span_from(p, strlen(verbs[i]));
			break;
		}
	if (!what.s || a->main_lock)
		return;
	if ((at = span_find(what, " held by ")) >= 0) {
		struct span owner = span_from(what, (size_t)at + 9);
		int64_t tid;

		what.n = (size_t)at;
		/* ART: "held by thread 23"; Dalvik: "held by tid=18 (Thread-14)". */
		if (span_starts(owner, "thread "))
			owner = span_from(owner, 7);
		else if (span_starts(owner, "tid="))
			owner = span_from(owner, 4);
		if (span_int64(owner, &tid))
			a->lock_owner_tid = tid;
	}
	set_text(ap, &a->main_lock, what);
}

/* A line of the main thread's block. */
static void handle_main_line(struct anr_parse *ap, struct anr_trace *a, struct span p)
{
	struct span v;
	int64_t n;

	if (span_starts(p, "| ")) {
		if (span_field(p, "sysTid=", &v) && span_int64(v, &n))
			a->main_sys_tid = n;
	} else if (span_starts(p, "at ")) {
		if (!ap->top_is_java && set_text(ap, &a->main_top_frame, span_from(p, 3)))
			ap->top_is_java = 1;
	} else if (span_starts(p, "- ")) {
		handle_lock(ap, a, p);
	} else {
		if (span_starts(p, "native: "))
			p = span_skip_spaces(span_from(p, 8));
		if (span_starts(p, "#00 ") && !a->main_top_frame)
			set_text(ap, &a->main_top_frame, p);
	}
}

int anr_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct anr_parse ap;
	struct span line;
	int got = 0;

	memset(&ap, 0, sizeof(ap));
	ap.out = out;
	while (!ap.oom && (got = input_line(in, &line)) > 0) {
		struct span p = span_trim(line), time;
		struct anr_trace *a = cur(&ap);
		int64_t pid, n;

		out->stats.lines++;
		if (!p.n) {
			ap.in_main = 0;
			continue;
		}
		if (span_starts(p, "----- ") || span_starts(p, "Subject: "))
			ap.margin = (size_t)(p.s - line.s);
		if (span_starts(p, "Subject: ") && (!a || ap.sec == SEC_NONE)) {
			ap.subject_file = 1;
			a = start_record(&ap, in->lineno);
			if (a)
				set_text(&ap, &a->subject, span_from(p, 9));
			ap.sec = SEC_HEADER;
		} else if (span_starts(p, "----- pid ") && section_head(p, 10, &pid, &time)) {
			if ((a = record_for(&ap, pid, 1, in->lineno)))
				set_time(&ap, a, time, 0);
			ap.sec = SEC_DUMP;
		} else if (span_starts(p, "----- dumping pid: ") && section_head(p, 19, &pid, &time)) {
			if ((a = record_for(&ap, pid, 0, in->lineno)))
				set_time(&ap, a, time, 1);
			ap.sec = SEC_OTHER;
		} else if (span_starts(p, "----- Waiting Channels: pid ") &&
			   section_head(p, 28, &pid, &time)) {
			if ((a = record_for(&ap, pid, 0, in->lineno)))
				set_time(&ap, a, time, 0);
			ap.sec = SEC_OTHER;
		} else if (span_starts(p, "----- end ")) {
			if (!a)
				ev_skip(&out->stats, in->lineno);
			ap.in_main = 0;
			ap.sec = SEC_NONE;
		} else if (!a || ap.sec == SEC_NONE) {
			ev_skip(&out->stats, in->lineno);
		} else if (span_starts(p, "----- ")) {
			ap.in_main = 0;
			ap.sec = SEC_OTHER;
		} else if (span_starts(p, "Cmd line:")) {
			if (!a->cmdline)
				set_text(&ap, &a->cmdline, span_from(p, 9));
		} else if (span_starts(p, "DALVIK THREADS")) {
			struct span c = span_from(p, 14);

			a->has_java_threads = 1;
			if (span_starts(c, " (") && span_int64(span_from(c, 2), &n))
				a->thread_count = n;
		} else if (ap.sec == SEC_HEADER && span_starts(p, "RssKb:")) {
			if (span_int64(span_skip_spaces(span_from(p, 6)), &n))
				a->rss_kb = n;
		} else if (p.s[0] == '"' && (size_t)(p.s - line.s) == ap.margin &&
			   ap.sec != SEC_HEADER) {
			handle_thread(&ap, a, p);
		} else if (ap.in_main) {
			handle_main_line(&ap, a, p);
		}
	}
	finish(&ap);
	if (got < 0)
		return input_error(in, err);
	if (ap.oom) {
		err->line = in->lineno;
		strcpy(err->reason, "out of memory");
		return -1;
	}
	return 0;
}

int anr_sniff(const char *buf, size_t len)
{
	struct span line;
	struct input in;
	int pid_at = 0, markers = 0, first = 1, subject = 0, found = 0;

	input_init_mem(&in, buf, len < ANR_SNIFF_BYTES ? len : ANR_SNIFF_BYTES);
	while (!found && input_line(&in, &line) > 0) {
		struct span p = span_trim(line), time;
		int64_t pid;

		if (!p.n)
			continue;
		if (first && span_starts(p, "Subject: "))
			subject = 1;
		first = 0;
		if (span_starts(p, "----- pid ") && section_head(p, 10, &pid, &time) && time.n)
			pid_at = 1;
		else if (span_starts(p, "DALVIK THREADS"))
			markers = 2;
		else if (span_starts(p, "Cmd line:") && !markers)
			markers = 1;
		else if (subject && ((span_starts(p, "----- dumping pid: ") &&
				      section_head(p, 19, &pid, &time)) ||
				     (span_starts(p, "----- Waiting Channels: pid ") &&
				      section_head(p, 28, &pid, &time))))
			found = 1;
		/* "----- pid N at" with its "Cmd line:" or threads; after a
		 * Subject header, a section or the threads themselves. */
		if ((pid_at && markers) || (subject && (pid_at || markers == 2)))
			found = 1;
	}
	input_release(&in);
	return found;
}
