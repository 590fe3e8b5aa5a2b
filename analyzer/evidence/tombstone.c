/*
 * Native crash reports (tombstones) as text.
 *
 * The same report comes in two dresses: the file debuggerd writes to
 * /data/tombstones (or the text of getTraceInputStream()), and the copy it
 * logs, where every line carries a logcat prefix, read by logline.h (the
 * studio form included):
 *
 *   threadtime   02-26 15:12:56.100  1234  1234 F DEBUG   : pid: 1, tid: ...
 *   uid          02-26 15:12:56.100 root  1234  1234 F DEBUG   : ...
 *   brief, time  [02-26 15:12:56.100 ]F/DEBUG ( 194): ..., A/DEBUG(  194): ...
 *   old          I/DEBUG   (   31): ...
 *   studio       02-26 15:12:56.100 1234-1234/? A/DEBUG: ...
 *
 * A report in a logcat is usually announced by libc's "Fatal signal N"
 * line, logged by the dying process before crash_dump runs, then logged by
 * crash_dump under the DEBUG tag:
 *
 *   Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid
 *       11103 (background), pid 10563 (app)                   (libc)
 *   *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
 *   Build fingerprint: '...'  ABI: 'arm64'  Timestamp: ...  Cmdline: ...
 *   pid: N, tid: N, name: THREAD  >>> PROCESS <<<
 *   uid: N
 *   signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000018
 *   Cause: null pointer dereference
 *   Abort message: '...'
 *   registers, then "backtrace:" and "#00 pc 0004f7e8  /lib (sym+4) (BuildId: x)"
 *   --- --- --- ... (the other threads, in the file only)
 *
 * Rules:
 *  1. A record starts at a Fatal signal line, at the banner, or at a
 *     "pid: N, tid: N" line when no open record can take it (a report whose
 *     banner was lost, or the next report of a file without banners).
 *  2. The banner and header that follow a Fatal signal line belong to its
 *     record: the header's values replace the Fatal line's, which remain
 *     when the report was cut (the Fatal line alone still names the pid,
 *     tid, signal, code and fault address).
 *  3. A Fatal signal line about the pid and tid of the open record, once its
 *     header was read, is the same crash seen again (a tombstone's own log
 *     section) and starts nothing.
 *  4. The crashing thread's frames are the record's (t->frames); after
 *     "--- --- ---" or a "pid:" line of the same pid, each "pid: N, tid: N,
 *     name: X" line opens another thread (t->threads) that the frames after
 *     it join. A backtrace that restarts at #00 ends a thread's frames; the
 *     frames of no thread (a restart before any other thread's "pid:"
 *     line) are read and dropped.
 *  5. In a logcat, only DEBUG lines (and unprefixed continuation lines) are
 *     report content; libc, crash_dump and tombstoned lines are markers;
 *     other lines are counted as not understood. In a plain file everything
 *     after the banner belongs to the report, its own log section included.
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "logline.h"
#include "parsers.h"
#include "runtime-libs.h"
#include "text.h"

#define TOMB_SNIFF_BYTES ((size_t)64 * 1024)

enum tomb_tag {
	TAG_NONE,       /* no logcat prefix */
	TAG_DEBUG,      /* crash_dump's report (tag DEBUG) */
	TAG_LIBC,       /* Fatal signal */
	TAG_CRASH_DUMP, /* crash_dump32/64 chatter */
	TAG_TOMBSTONED,
	TAG_OTHER,
};

/* One input line, with its logcat prefix (logline.h) taken off. */
struct tomb_line {
	struct span msg; /* the payload, trimmed */
	int prefixed;
	enum tomb_tag tag;
	int64_t pid;     /* the logging process, from the prefix, or EV_NONE */
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static enum tomb_tag classify_tag(struct span tag)
{
	tag = span_trim(tag);
	if (span_eq(tag, "DEBUG"))
		return TAG_DEBUG;
	if (span_eq(tag, "libc"))
		return TAG_LIBC;
	if (span_starts(tag, "crash_dump"))
		return TAG_CRASH_DUMP;
	if (span_eq(tag, "tombstoned"))
		return TAG_TOMBSTONED;
	return TAG_OTHER;
}

static void split_line(const struct logline *l, struct tomb_line *out)
{
	out->msg = span_trim(l->msg);
	out->prefixed = l->format != LOGLINE_RAW;
	out->tag = out->prefixed ? classify_tag(l->tag) : TAG_NONE;
	out->pid = l->pid;
}

static int is_banner(struct span p)
{
	return span_starts(p, "*** *** *** *** *** ***");
}

/* Does p read before, an integer, then after ("pid: N, tid: ")? */
static int is_int_between(struct span p, const char *before, const char *after)
{
	int64_t v;
	size_t k;

	if (!span_starts(p, before))
		return 0;
	p = span_from(p, strlen(before));
	k = span_int64(p, &v);
	return k && span_starts(span_from(p, k), after);
}

/* "pid: N, tid: N" */
static int is_pid_line(struct span p)
{
	return is_int_between(p, "pid: ", ", tid: ");
}

/* "signal N (" */
static int is_signal_line(struct span p)
{
	return is_int_between(p, "signal ", " (");
}

static int is_fatal_line(const struct tomb_line *tl)
{
	return (tl->tag == TAG_LIBC || tl->tag == TAG_NONE) && span_starts(tl->msg, "Fatal signal ");
}

/* A DEBUG line that can only come from a crash report. */
static int is_report_key(struct span p)
{
	static const char *const keys[] = {
		"Build fingerprint:", "Revision:", "ABI:", "Timestamp:", "Cmdline:", "uid: ",
		"Abort message:", "Cause:", "backtrace:", "Process uptime:",
	};
	size_t i;

	if (is_banner(p) || is_pid_line(p) || is_signal_line(p))
		return 1;
	if (p.n > 4 && p.s[0] == '#' && is_digit(p.s[1]) && span_find(p, " pc ") > 0)
		return 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (span_starts(p, keys[i]))
			return 1;
	return 0;
}

/* Whether a line, after those seen (*have_*), makes the file a report. */
static int sniff_line(const struct tomb_line *tl, int *have_pid, int *have_signal, int *have_fatal)
{
	if (tl->tag == TAG_OTHER)
		return 0;
	if (is_banner(tl->msg))
		return 1;
	if (is_fatal_line(tl)) {
		*have_fatal = 1;
		return 0;
	}
	if (is_pid_line(tl->msg))
		*have_pid = 1;
	else if (is_signal_line(tl->msg))
		*have_signal = 1;
	if (*have_pid && *have_signal)
		return 1;
	if (!*have_fatal)
		return 0;
	return (tl->tag == TAG_DEBUG && is_report_key(tl->msg)) ||
	       (tl->tag == TAG_CRASH_DUMP && span_find(tl->msg, "dump of process ") >= 0) ||
	       (tl->tag == TAG_TOMBSTONED && span_find(tl->msg, "crash request for pid") >= 0);
}

int tombstone_sniff(const char *buf, size_t len)
{
	struct logline_iter it;
	struct tomb_line tl;
	struct logline l;
	struct span line;
	struct input in;
	int have_pid = 0, have_signal = 0, have_fatal = 0, found = 0;

	input_init_mem(&in, buf, len < TOMB_SNIFF_BYTES ? len : TOMB_SNIFF_BYTES);
	logline_iter_init(&it, &in, LOGLINE_OPT_STUDIO);
	while (!found && logline_next(&it, &line, &l) > 0) {
		split_line(&l, &tl);
		found = sniff_line(&tl, &have_pid, &have_signal, &have_fatal);
	}
	logline_iter_release(&it);
	input_release(&in);
	return found;
}

/* The parse: the open record and where its reading stands. */
struct tomb_parse {
	struct ev_file *out;
	int open;            /* out->tombstones[ntombstones - 1] is being read */
	int from_fatal;      /* started at a Fatal signal line, no report yet */
	int body;            /* the banner or header was read */
	int header;          /* the "pid:" line was read */
	int other_threads;   /* past the crashing thread */
	int frames_closed;   /* the crashing thread's backtrace is over */
	int in_thread;       /* the frames go to the last of t->threads */
	int thread_closed;   /* that thread's backtrace is over */
	int plain;           /* the report is not logcat-prefixed */
	int oom;
};

static struct tombstone *cur(struct tomb_parse *tp)
{
	return tp->open ? &tp->out->tombstones[tp->out->ntombstones - 1] : NULL;
}

static struct tombstone *start_record(struct tomb_parse *tp, size_t lineno, int prefixed)
{
	struct tombstone *t = ev_add_tombstone(tp->out);

	if (!t) {
		tp->oom = 1;
		tp->open = 0;
		return NULL;
	}
	t->line = lineno;
	t->logcat_prefixed = prefixed;
	tp->open = 1;
	tp->from_fatal = tp->body = tp->header = 0;
	tp->other_threads = tp->frames_closed = 0;
	tp->in_thread = tp->thread_closed = 0;
	tp->plain = !prefixed;
	return t;
}

/* The report itself starts: whether it is logcat-prefixed is decided by
 * its own lines, not by the Fatal line before it. */
static void begin_body(struct tomb_parse *tp, struct tombstone *t, int prefixed)
{
	if (tp->from_fatal && !tp->body)
		t->logcat_prefixed = prefixed;
	tp->body = 1;
	tp->plain = !t->logcat_prefixed;
}

/* Replace *dst with a copy of s (trimmed); an empty s leaves *dst alone. */
static void set_text(struct tomb_parse *tp, char **dst, struct span s)
{
	char *p;

	s = span_trim(s);
	if (!s.n)
		return;
	p = ev_strndup(s.s, s.n);
	if (!p) {
		tp->oom = 1;
		return;
	}
	free(*dst);
	*dst = p;
}

/* s without one pair of surrounding single quotes. */
static struct span unquote(struct span s)
{
	s = span_trim(s);
	if (s.n >= 2 && s.s[0] == '\'' && s.s[s.n - 1] == '\'') {
		s.s++;
		s.n -= 2;
	} else if (s.n && s.s[0] == '\'') {
		s.s++;
		s.n--;
	}
	return s;
}

/* The integer after the first occurrence of key in p. */
static int int_after(struct span p, const char *key, int64_t *v)
{
	long at = span_find(p, key);

	return at >= 0 && span_int64(span_from(p, (size_t)at + strlen(key)), v) > 0;
}

/* "fault addr X": a hexadecimal address, or "--------" for none. */
static void parse_fault(struct span p, const char *key, struct tombstone *t)
{
	long at = span_find(p, key);
	uint64_t a;

	if (at < 0)
		return;
	p = span_from(p, (size_t)at + strlen(key));
	if (span_hex64(p, &a)) {
		t->has_fault_addr = 1;
		t->fault_addr = a;
	} else if (span_starts(p, "--")) {
		t->has_fault_addr = 0;
		t->fault_addr = 0;
	}
}

/* The signal's code and its name: ", code 1 (SEGV_MAPERR" or "code -1
 * (SI_QUEUE from pid 1, uid 0)"; the sender is not kept. */
static void parse_code(struct tomb_parse *tp, struct span p, struct tombstone *t)
{
	long at = span_find(p, "code ");
	int64_t code;
	size_t k, i;

	if (at < 0)
		return;
	p = span_from(p, (size_t)at + 5);
	k = span_int64(p, &code);
	if (!k)
		return;
	t->code = code;
	t->has_code = 1;
	p = span_from(p, k);
	if (!span_starts(p, " ("))
		return;
	p = span_from(p, 2);
	for (i = 0; i < p.n && ((p.s[i] >= 'A' && p.s[i] <= 'Z') || is_digit(p.s[i]) ||
				p.s[i] == '_');
	     i++)
		;
	if (i)
		set_text(tp, &t->code_name, span_of(p.s, i));
}

/* The text inside "(...)" that starts p, up to before end_mark if given
 * (names can hold parentheses), else up to the last ')'. */
static struct span paren_name(struct span p, const char *end_mark)
{
	long at;
	size_t i;

	p = span_skip_spaces(p);
	if (!p.n || p.s[0] != '(')
		return span_of(p.s, 0);
	p = span_from(p, 1);
	if (end_mark && (at = span_find(p, end_mark)) >= 0)
		return span_of(p.s, (size_t)at);
	for (i = p.n; i > 0; i--)
		if (p.s[i - 1] == ')')
			return span_of(p.s, i - 1);
	return p;
}

/*
 * libc's line, in its forms since Android 4:
 *   Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid
 *     11103 (background), pid 10563 (app)
 *   Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 1 (main), pid 1 (main)
 *   Fatal signal 11 (SIGSEGV), code 1, fault addr 0x0 in tid 1 (name)
 *   Fatal signal 11 (SIGSEGV) at 0x00000000 (code=1), thread 1 (name)
 */
static void handle_fatal(struct tomb_parse *tp, const struct tomb_line *tl, size_t lineno)
{
	struct span p = tl->msg;
	struct tombstone *t = cur(tp);
	int64_t signo = EV_NONE, tid = EV_NONE, pid = EV_NONE, v;
	const char *tid_key = " in tid ";
	long at;

	int_after(p, "Fatal signal ", &signo);
	if (!int_after(p, tid_key, &tid)) {
		tid_key = ", thread ";
		int_after(p, tid_key, &tid);
	}
	/* Before Android 8 the line names no pid: libc logs it from the
	 * crashing process, so the logcat prefix's pid is the one. */
	if (!int_after(p, ", pid ", &pid))
		pid = tl->pid;
	/* Rule 3: the crash of the open record, seen again. */
	if (t && tp->header && tid == t->tid && (pid == EV_NONE || pid == t->pid))
		return;
	t = start_record(tp, lineno, tl->prefixed);
	if (!t)
		return;
	tp->from_fatal = 1;
	t->signo = signo;
	t->tid = tid;
	t->pid = pid;
	if (int_after(p, "(code=", &v)) {
		t->code = v;
		t->has_code = 1;
	} else
		parse_code(tp, p, t);
	parse_fault(p, "fault addr ", t);
	if (!t->has_fault_addr)
		parse_fault(p, ") at ", t);
	if (tid != EV_NONE && (at = span_find(p, tid_key)) >= 0) {
		struct span rest = span_from(p, (size_t)at + strlen(tid_key));
		size_t k = span_int64(rest, &v);

		set_text(tp, &t->thread, paren_name(span_from(rest, k), "), pid "));
	}
	if ((at = span_find(p, ", pid ")) >= 0) {
		struct span rest = span_from(p, (size_t)at + 6);
		size_t k = span_int64(rest, &v);

		set_text(tp, &t->process, paren_name(span_from(rest, k), NULL));
	}
}

/* The thread name of a "pid:" line: after "name: ", up to " >>> ". */
static struct span thread_name(struct span p)
{
	long at = span_find(p, "name: "), end;

	if (at < 0)
		return span_of(p.s, 0);
	p = span_from(p, (size_t)at + 6);
	end = span_find(p, " >>> ");
	return end >= 0 ? span_of(p.s, (size_t)end) : p;
}

/* Rule 4: another thread's "pid:" line opens it in t->threads. */
static void open_thread(struct tomb_parse *tp, struct tombstone *t, struct span p, int64_t tid)
{
	struct tomb_thread *th;

	tp->in_thread = tp->thread_closed = 0;
	if (t->nthreads >= EV_THREADS_MAX) {
		tp->out->stats.cut_threads++;
		return;
	}
	th = ev_add_thread(t);
	if (!th) {
		tp->oom = 1;
		return;
	}
	th->tid = tid;
	set_text(tp, &th->name, thread_name(p));
	tp->in_thread = 1;
}

/* "pid: 1, tid: 2, name: THREAD  >>> PROCESS <<<" (name: is absent before
 * Android 4.1). */
static void handle_pid_line(struct tomb_parse *tp, struct span p, size_t lineno, int prefixed)
{
	struct tombstone *t = cur(tp);
	int64_t pid = EV_NONE, tid = EV_NONE;
	long at, end;

	int_after(p, "pid: ", &pid);
	int_after(p, "tid: ", &tid);
	if (t && tp->header) {
		if (pid == t->pid) {
			/* Rule 4: another thread of the same process. */
			tp->other_threads = 1;
			open_thread(tp, t, p, tid);
			return;
		}
		t = NULL;
	} else if (t && tp->from_fatal && !tp->body && t->pid != EV_NONE && t->pid != pid) {
		t = NULL; /* a different crash than the Fatal line's */
	}
	if (!t && !(t = start_record(tp, lineno, prefixed)))
		return;
	begin_body(tp, t, prefixed);
	tp->header = 1;
	t->pid = pid;
	t->tid = tid;
	set_text(tp, &t->thread, thread_name(p));
	if ((at = span_find(p, ">>> ")) >= 0) {
		struct span proc = span_from(p, (size_t)at + 4);

		end = span_find(proc, " <<<");
		set_text(tp, &t->process, end >= 0 ? span_of(proc.s, (size_t)end) : proc);
	}
}

/* "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0" */
static void handle_signal_line(struct tomb_parse *tp, struct span p, struct tombstone *t)
{
	int64_t signo;

	if (int_after(p, "signal ", &signo))
		t->signo = signo;
	parse_code(tp, p, t);
	t->has_fault_addr = 0;
	t->fault_addr = 0;
	parse_fault(p, "fault addr ", t);
}

/*
 * "#00 pc 000000000004f7e8  /apex/.../libc.so (abort+164) (BuildId: 1f2e)"
 * "#00  pc 0001f5c4  /system/lib/libc.so (tgkill+12)" (Android 4)
 * "#00 pc 000258ac  /x/base.apk!libfoo.so (offset 0x2f3000)"
 * "#03 pc 00000000000e1d8c  [anon:dalvik-jit-code-cache]"
 * The library runs to the first " (" (paths are mapping names, which may
 * hold spaces); then come groups in parentheses, nested ones included: the
 * first that is not an offset, a BuildId or "deleted" is the symbol.
 */
static void handle_frame(struct tomb_parse *tp, struct span p, struct tombstone *t)
{
	struct span lib, sym = { NULL, 0 }, build_id = { NULL, 0 };
	struct tomb_thread *th = NULL;
	struct frame *fr;
	int64_t index;
	uint64_t pc, offset = 0;
	size_t k, i;
	int has_offset = 0;
	long at;

	k = span_int64(span_from(p, 1), &index);
	if (!k || index < 0)
		return;
	p = span_skip_spaces(span_from(p, 1 + k));
	if (!span_starts(p, "pc "))
		return;
	p = span_skip_spaces(span_from(p, 3));
	k = span_hex64(p, &pc);
	if (!k)
		return;
	if (tp->other_threads) {
		/* Rule 4: another thread's frames, when its "pid:" line opened it */
		if (!tp->in_thread)
			return;
		th = &t->threads[t->nthreads - 1];
		if (index == 0 && th->nframes)
			tp->thread_closed = 1;
		if (tp->thread_closed)
			return;
		if (th->nframes == EV_FRAMES_MAX) {
			tp->out->stats.cut_frames++;
			return;
		}
	} else {
		if (index == 0 && t->nframes)
			tp->frames_closed = 1;
		if (tp->frames_closed)
			return;
		if (t->nframes == EV_FRAMES_MAX) {
			tp->out->stats.cut_frames++;
			return;
		}
	}
	p = span_skip_spaces(span_from(p, k));
	if (p.n && p.s[0] == '[' && (at = span_find(p, "]")) >= 0) {
		lib = span_of(p.s, (size_t)at + 1);
	} else {
		at = span_find(p, " (");
		lib = at >= 0 ? span_of(p.s, (size_t)at) : p;
	}
	p = span_from(p, lib.n);
	lib = span_trim(lib);
	for (;;) {
		size_t depth = 0;

		p = span_skip_spaces(p);
		if (!p.n || p.s[0] != '(')
			break;
		for (i = 0; i < p.n; i++) {
			if (p.s[i] == '(')
				depth++;
			else if (p.s[i] == ')' && --depth == 0)
				break;
		}
		{
			struct span g = span_of(p.s + 1, i > 0 ? i - 1 : 0);

			if (span_starts(g, "BuildId:")) {
				if (!build_id.s)
					build_id = span_trim(span_from(g, 8));
			} else if (span_starts(g, "offset 0x")) {
				has_offset = span_hex64(span_from(g, 7), &offset) > 0;
			} else if (!sym.s && !span_eq(g, "deleted")) {
				sym = g;
			}
		}
		p = span_from(p, i + 1);
	}
	fr = th ? ev_add_thread_frame(th) : ev_add_frame(t);
	if (!fr) {
		tp->oom = 1;
		return;
	}
	fr->index = index;
	fr->pc = pc;
	fr->file_offset = has_offset ? offset : 0;
	fr->has_file_offset = has_offset;
	if (lib.n && !(fr->library = ev_strndup(lib.s, lib.n)))
		tp->oom = 1;
	sym = span_trim(sym);
	if (sym.n && !(fr->symbol = ev_strndup(sym.s, sym.n)))
		tp->oom = 1;
	if (build_id.n) {
		if (!(fr->build_id = ev_strndup(build_id.s, build_id.n)))
			tp->oom = 1;
		for (i = 0; fr->build_id && fr->build_id[i]; i++)
			if (fr->build_id[i] >= 'A' && fr->build_id[i] <= 'Z')
				fr->build_id[i] = (char)(fr->build_id[i] - 'A' + 'a');
	}
}

/* A line of report content (a DEBUG line or an unprefixed one). Returns 1 if
 * it was understood. */
static int handle_content(struct tomb_parse *tp, const struct tomb_line *tl, size_t lineno)
{
	struct span p = tl->msg;
	struct tombstone *t = cur(tp);

	if (!p.n)
		return 1;
	if (is_banner(p)) {
		if (!(t && tp->from_fatal && !tp->body))
			t = start_record(tp, lineno, tl->prefixed);
		if (t)
			begin_body(tp, t, tl->prefixed);
		return 1;
	}
	if (is_pid_line(p)) {
		handle_pid_line(tp, p, lineno, tl->prefixed);
		return 1;
	}
	/* A report cut before its banner still starts a record. */
	if (span_starts(p, "Build fingerprint:") &&
	    (!t || (tp->body && t->fingerprint) || (!tp->body && !tp->from_fatal))) {
		t = start_record(tp, lineno, tl->prefixed);
		if (t)
			begin_body(tp, t, tl->prefixed);
	}
	if (!t)
		return 0;
	if (!tp->body) {
		/* Between a Fatal line and a report: only report keys join it. */
		if (!is_report_key(p))
			return 0;
		begin_body(tp, t, tl->prefixed);
	}
	if (tp->other_threads) {
		if (span_starts(p, "Tombstone written to"))
			tp->open = 0;
		else if (p.n > 2 && p.s[0] == '#' && is_digit(p.s[1]))
			handle_frame(tp, p, t);
		return 1;
	}
	if (span_starts(p, "Build fingerprint:"))
		set_text(tp, &t->fingerprint, unquote(span_from(p, 18)));
	else if (span_starts(p, "ABI:"))
		set_text(tp, &t->abi, unquote(span_from(p, 4)));
	else if (span_starts(p, "Timestamp:"))
		set_text(tp, &t->timestamp_text, span_from(p, 10));
	else if (span_starts(p, "Cmdline:"))
		set_text(tp, &t->cmdline, span_from(p, 8));
	else if (span_starts(p, "uid: ")) {
		int64_t v;

		if (span_int64(span_skip_spaces(span_from(p, 5)), &v))
			t->uid = v;
	} else if (is_signal_line(p))
		handle_signal_line(tp, p, t);
	else if (span_starts(p, "Cause:")) {
		if (!t->cause)
			set_text(tp, &t->cause, span_from(p, 6));
	} else if (span_starts(p, "Abort message:")) {
		struct span m = span_trim(span_from(p, 14));

		if (m.n && m.s[0] == '\'') {
			size_t i;

			m = span_from(m, 1);
			for (i = m.n; i > 0 && m.s[i - 1] != '\''; i--)
				;
			if (i)
				m.n = i - 1;
		}
		set_text(tp, &t->abort_message, m);
	} else if (p.n > 2 && p.s[0] == '#' && is_digit(p.s[1]))
		handle_frame(tp, p, t);
	else if (span_starts(p, "--- --- ---"))
		tp->other_threads = 1;
	else if (span_starts(p, "Tombstone written to"))
		tp->open = 0;
	return 1;
}

int tombstone_parse(struct input *in, struct ev_file *out, struct ev_error *err)
{
	struct tomb_parse tp;
	struct logline_iter it;
	struct tomb_line tl;
	struct logline l;
	struct span line;
	size_t i;
	int got = 0;

	memset(&tp, 0, sizeof(tp));
	tp.out = out;
	logline_iter_init(&it, in, LOGLINE_OPT_STUDIO);
	while (!tp.oom && (got = logline_next(&it, &line, &l)) > 0) {
		int understood = 1;

		out->stats.lines++;
		split_line(&l, &tl);
		if (is_fatal_line(&tl)) {
			handle_fatal(&tp, &tl, it.lineno);
		} else if (tl.tag == TAG_CRASH_DUMP) {
			struct tombstone *t = cur(&tp);
			int64_t pid, tid;

			/* "performing dump of process 1 (target tid = 2)" */
			if (t && !tp.header && int_after(tl.msg, "dump of process ", &pid) &&
			    (t->pid == EV_NONE || t->pid == pid)) {
				t->pid = pid;
				if (t->tid == EV_NONE && int_after(tl.msg, "target tid = ", &tid))
					t->tid = tid;
			}
		} else if (tl.tag == TAG_TOMBSTONED || span_starts(tl.msg, "--------- beginning of")) {
			/* markers: nothing to keep */
		} else if (tl.tag == TAG_OTHER) {
			/* A plain report's own log section, or another app's line. */
			understood = tp.open && tp.plain && tp.body;
		} else {
			understood = handle_content(&tp, &tl, it.lineno);
		}
		if (!understood)
			ev_skip(&out->stats, it.lineno);
	}
	logline_iter_release(&it);
	if (got < 0)
		return input_error(in, err);
	if (tp.oom) {
		err->line = in->lineno;
		strcpy(err->reason, "out of memory");
		return -1;
	}
	for (i = 0; i < out->ntombstones; i++)
		rtlib_mark(&out->tombstones[i]);
	return 0;
}
