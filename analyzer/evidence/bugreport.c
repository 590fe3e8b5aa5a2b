/* A bug report's main text, cut into its pieces of evidence as it is read. */
#include "bugreport.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

/* Where the scan is (r->state). */
enum {
	S_HEADER,  /* before the first section */
	S_NONE,    /* between sections */
	S_SKIP,    /* in a section that holds no evidence */
	S_PROPS,   /* in SYSTEM PROPERTIES */
	S_DUMPSYS, /* in a DUMPSYS section: services, see r->service */
};

/* In a DUMPSYS section (r->service). */
enum {
	SVC_NONE,
	SVC_SKIP,
	SVC_ALARM,
};

static int is_banner(struct span l)
{
	size_t i;

	if (l.n < 20)
		return 0;
	for (i = 0; i < l.n; i++)
		if (l.s[i] != '=')
			return 0;
	return 1;
}

int bugreport_sniff(const char *buf, size_t len)
{
	struct span head = span_of(buf, len), first, second;
	long nl = span_find(head, "\n");

	if (nl < 0)
		return 0;
	first = span_of(buf, (size_t)nl);
	if (first.n && first.s[first.n - 1] == '\r')
		first.n--;
	second = span_from(head, (size_t)nl + 1);
	return is_banner(first) && span_starts(second, "== dumpstate: ");
}

/* "------ TITLE (COMMAND) ------" or "------ TITLE ------": 1 with the
 * title and the command (empty when none); "------ N.NNNs was the duration
 * of 'TITLE' ------": 2. 0 for any other line. */
static int section_line(struct span l, struct span *title, struct span *cmd)
{
	struct span in;
	long open;
	size_t i;

	if (!span_starts(l, "------ ") || !span_ends(l, " ------") || l.n < 14)
		return 0;
	in = span_of(l.s + 7, l.n - 14);
	for (i = 0; i < in.n && ((in.s[i] >= '0' && in.s[i] <= '9') || in.s[i] == '.'); i++)
		;
	if (i > 0 && span_starts(span_from(in, i), "s was the duration of '"))
		return 2;
	open = span_find(in, " (");
	if (open >= 0 && span_ends(in, ")")) {
		*title = span_of(in.s, (size_t)open);
		*cmd = span_of(in.s + open + 2, in.n - (size_t)open - 3);
	} else {
		*title = in;
		*cmd = span_of(in.s, 0);
	}
	return 1;
}

/* Whether cmd runs program (a path before it is allowed) with args after
 * it: "logcat -v threadtime ...", "/system/bin/dumpsys -T 30000 activity". */
static int runs(struct span cmd, const char *program, struct span *args)
{
	size_t n = strlen(program), end;
	struct span word;

	for (end = 0; end < cmd.n && cmd.s[end] != ' '; end++)
		;
	word = span_of(cmd.s, end);
	if (!span_ends(word, program) ||
	    (word.n > n && word.s[word.n - n - 1] != '/'))
		return 0;
	*args = span_trim(span_from(cmd, end));
	return 1;
}

/* Whether the argument word is among args (words split by spaces). */
static int has_arg(struct span args, const char *word)
{
	size_t n = strlen(word);
	long at;

	while ((at = span_find(args, word)) >= 0) {
		size_t k = (size_t)at;

		if ((k == 0 || args.s[k - 1] == ' ') && (k + n == args.n || args.s[k + n] == ' '))
			return 1;
		args = span_from(args, k + n);
	}
	return 0;
}

/* The kind of evidence a section holds, or EV_KIND_UNKNOWN with *state
 * what the scan does in it. */
static enum ev_kind section_kind(struct span title, struct span cmd, int *state)
{
	struct span args;

	*state = S_SKIP;
	if (runs(cmd, "logcat", &args)) {
		/* "-b events" alone is the event log; radio, stats and kernel
		 * hold none; statistics (-S) are no log at all. */
		if (span_find(args, "-b events") >= 0)
			return span_find(args, "-b all") >= 0 ? EV_KIND_LOGCAT : EV_KIND_EVENT_LOG;
		if (span_find(args, "-b radio") >= 0 || span_find(args, "-b stats") >= 0 ||
		    span_find(args, "-b kernel") >= 0 || has_arg(args, "-S"))
			return EV_KIND_UNKNOWN;
		return EV_KIND_LOGCAT;
	}
	if (runs(cmd, "dumpsys", &args)) {
		/* "-T 30000 activity exit-info": the timeout first */
		if (span_starts(args, "-T ")) {
			args = span_skip_spaces(span_from(args, 3));
			while (args.n && args.s[0] != ' ')
				args = span_from(args, 1);
			args = span_skip_spaces(args);
		}
		if (span_starts(args, "activity") && has_arg(args, "exit-info"))
			return EV_KIND_EXIT_INFO_DUMP;
		if (args.n == 0)
			*state = S_DUMPSYS;
		return EV_KIND_UNKNOWN;
	}
	if (span_starts(title, "VM TRACES AT LAST ANR"))
		return EV_KIND_ANR_TRACE;
	if (span_eq(title, "TOMBSTONE"))
		return EV_KIND_TOMBSTONE;
	if (span_eq(title, "SYSTEM PROPERTIES") || runs(cmd, "getprop", &args))
		*state = S_PROPS;
	return EV_KIND_UNKNOWN;
}

static void copy_span(char *dst, size_t size, struct span s)
{
	size_t n = s.n < size - 1 ? s.n : size - 1;

	memcpy(dst, s.s, n);
	dst[n] = '\0';
}

/* A line of the header, before the first section. */
static void header_line(struct bugreport_info *info, struct span l)
{
	struct span v;
	int64_t sdk;

	if (span_starts(l, "== dumpstate: ")) {
		v = span_trim(span_from(l, 14));
		if (text_parse_datetime(v, &sdk) == 19)
			copy_span(info->taken, sizeof(info->taken), span_of(v.s, 19));
	} else if (span_starts(l, "Build fingerprint: ")) {
		v = span_trim(span_from(l, 19));
		if (v.n >= 2 && v.s[0] == '\'' && v.s[v.n - 1] == '\'')
			v = span_of(v.s + 1, v.n - 2);
		copy_span(info->fingerprint, sizeof(info->fingerprint), v);
	} else if (span_starts(l, "Android SDK version: ")) {
		v = span_trim(span_from(l, 21));
		if (span_int64(v, &sdk) == v.n && v.n)
			info->sdk = sdk;
	} else if (span_starts(l, "Bugreport format version: ")) {
		copy_span(info->format, sizeof(info->format), span_trim(span_from(l, 26)));
	}
}

/* "[key]: [value]" of getprop. */
static void prop_line(struct bugreport_info *info, struct span l)
{
	struct span key, val;
	long mid = span_find(l, "]: [");
	int64_t sdk;

	if (mid < 1 || l.s[0] != '[' || !span_ends(l, "]"))
		return;
	key = span_of(l.s + 1, (size_t)mid - 1);
	val = span_of(l.s + mid + 4, l.n - (size_t)mid - 5);
	if (span_eq(key, "persist.sys.timezone"))
		copy_span(info->zone, sizeof(info->zone), val);
	else if (span_eq(key, "ro.product.model"))
		copy_span(info->model, sizeof(info->model), val);
	else if (span_eq(key, "ro.build.version.release"))
		copy_span(info->release, sizeof(info->release), val);
	else if (span_eq(key, "ro.build.fingerprint") && !info->fingerprint[0])
		copy_span(info->fingerprint, sizeof(info->fingerprint), val);
	else if (span_eq(key, "ro.build.version.sdk") && info->sdk == EV_NONE &&
		 span_int64(val, &sdk) == val.n && val.n)
		info->sdk = sdk;
}

/* dumpsys alarm's "nowRTC=1749559501338=2025-06-10 14:45:01[.338] ...":
 * the offset of local time from UTC, to the minute, then. */
static void alarm_line(struct bugreport_info *info, struct span l)
{
	long at = span_find(l, "nowRTC=");
	int64_t utc, local;
	size_t n, used;
	struct span v;

	if (at < 0)
		return;
	v = span_from(l, (size_t)at + 7);
	n = span_int64(v, &utc);
	if (n == 0 || n >= v.n || v.s[n] != '=')
		return;
	used = text_parse_datetime(span_from(v, n + 1), &local);
	if (used < 19)
		return;
	if (used == 19)
		utc -= ((utc % 1000) + 1000) % 1000; /* the local time is to the second */
	/* Offsets are whole minutes; the clock moved between the two reads
	 * by less than a second. */
	info->offset_ms = (local - utc + (local >= utc ? 30000 : -30000)) / 60000 * 60000;
	info->have_offset = 1;
}

static int is_dumpsys_footer(struct span l)
{
	return span_starts(l, "--------- ") && span_find(l, "s was the duration of dumpsys ") > 0;
}

/* Does line l, read inside the piece, end it? */
static int ends_piece(const struct bugreport_reader *r, struct span l)
{
	struct span t, c;

	if (is_banner(l) || section_line(l, &t, &c))
		return 1;
	return r->piece_service && (span_starts(l, "DUMP OF SERVICE ") || is_dumpsys_footer(l));
}

/* The piece's next line: 1, 0 at its end (the line that ends it is then
 * held for the scan), -1 when the text cannot be read. */
static int piece_line(struct bugreport_reader *r, struct span *l)
{
	int rc;

	if (r->piece_end)
		return 0;
	rc = input_line(r->text, l);
	if (rc > 0 && !ends_piece(r, *l))
		return 1;
	r->piece_end = 1;
	if (rc > 0) {
		r->held = 1;
		r->line = *l;
		return 0;
	}
	return rc;
}

/* The piece's bytes: its lines, each with its "\n". */
static ssize_t piece_read(void *arg, char *dst, size_t n, struct ev_error *err)
{
	struct bugreport_reader *r = arg;
	size_t k = 0, c;
	struct span l;
	int rc;

	while (k < n) {
		if (r->pending.n) {
			c = r->pending.n < n - k ? r->pending.n : n - k;
			memcpy(dst + k, r->pending.s, c);
			r->pending = span_from(r->pending, c);
			k += c;
			continue;
		}
		if (r->pending_nl) {
			dst[k++] = '\n';
			r->pending_nl = 0;
			continue;
		}
		rc = piece_line(r, &l);
		if (rc < 0)
			return input_error(r->text, err);
		if (rc == 0)
			break;
		r->pending = l;
		r->pending_nl = 1;
	}
	return (ssize_t)k;
}

/* Skip what is left of the piece handed out, and free it. -1 when the
 * text cannot be read. */
static int close_piece(struct bugreport_reader *r)
{
	struct span l;
	int rc;

	if (!r->piece_open)
		return 0;
	while ((rc = piece_line(r, &l)) > 0)
		;
	input_release(&r->piece);
	r->piece_open = 0;
	return rc;
}

/* "TITLE", or "TITLE #2" for its second piece. */
static void name_piece(struct bugreport_reader *r, struct span title)
{
	char t[BUGREPORT_TITLE_MAX];
	size_t i;

	copy_span(t, sizeof(t), title);
	for (i = 0; i < r->ntitles && strcmp(r->titles[i], t) != 0; i++)
		;
	if (i == r->ntitles && i < BUGREPORT_TITLES_MAX) {
		strcpy(r->titles[i], t);
		r->ntitles++;
	}
	if (i < r->ntitles && r->title_uses[i]++)
		snprintf(r->title, sizeof(r->title), "%s #%u", t, r->title_uses[i]);
	else
		snprintf(r->title, sizeof(r->title), "%s", t);
}

static void open_piece(struct bugreport_reader *r, struct span title, enum ev_kind kind,
		       int service, struct bugreport_piece *out)
{
	struct input_source src = { piece_read, NULL, r };

	name_piece(r, title);
	input_init_source(&r->piece, &src);
	input_number_from(&r->piece, r->text->lineno);
	r->piece_open = 1;
	r->piece_end = 0;
	r->piece_service = service;
	r->pending = span_of(NULL, 0);
	r->pending_nl = 0;
	r->info.pieces++;
	out->title = r->title;
	out->kind = kind;
	out->in = &r->piece;
}

/* A line of a DUMPSYS section: 1 when a piece starts here. */
static int dumpsys_line(struct bugreport_reader *r, struct span l, struct bugreport_piece *out)
{
	struct span name;

	if (span_starts(l, "DUMP OF SERVICE ") && span_ends(l, ":")) {
		name = span_of(l.s + 16, l.n - 17);
		r->service = SVC_SKIP;
		if (span_eq(name, "activity")) {
			open_piece(r, span_of(l.s, l.n - 1), EV_KIND_EXIT_INFO_DUMP, 1, out);
			return 1;
		}
		/* "alarm", or "CRITICAL alarm" and the like */
		if (span_eq(name, "alarm") || span_ends(name, " alarm"))
			r->service = SVC_ALARM;
	} else if (is_dumpsys_footer(l)) {
		r->service = SVC_NONE;
	} else if (r->service == SVC_ALARM && !r->info.have_offset) {
		alarm_line(&r->info, l);
	}
	return 0;
}

/* One line of the text, outside any piece: 1 when a piece starts here. */
static int scan(struct bugreport_reader *r, struct span l, struct bugreport_piece *out)
{
	struct span title, cmd;
	enum ev_kind kind;
	int rc;

	if (is_banner(l)) {
		if (r->state != S_HEADER)
			r->state = S_NONE;
		return 0;
	}
	rc = section_line(l, &title, &cmd);
	if (rc == 2) {
		r->state = S_NONE;
		return 0;
	}
	if (rc == 1) {
		r->info.sections++;
		r->service = SVC_NONE;
		kind = section_kind(title, cmd, &r->state);
		if (kind == EV_KIND_UNKNOWN)
			return 0;
		r->state = S_NONE;
		open_piece(r, title, kind, 0, out);
		return 1;
	}
	switch (r->state) {
	case S_HEADER:
		header_line(&r->info, l);
		break;
	case S_PROPS:
		prop_line(&r->info, l);
		break;
	case S_DUMPSYS:
		return dumpsys_line(r, l, out);
	default:
		break;
	}
	return 0;
}

void bugreport_init(struct bugreport_reader *r, struct input *text)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	r->info.sdk = EV_NONE;
	r->state = S_HEADER;
}

int bugreport_next(struct bugreport_reader *r, struct bugreport_piece *out)
{
	struct span l;
	int rc;

	if (close_piece(r) < 0)
		return -1;
	for (;;) {
		if (r->held) {
			l = r->line;
			r->held = 0;
		} else if ((rc = input_line(r->text, &l)) <= 0) {
			return rc;
		}
		if (scan(r, l, out))
			return 1;
	}
}

void bugreport_release(struct bugreport_reader *r)
{
	if (r->piece_open)
		input_release(&r->piece);
	memset(r, 0, sizeof(*r));
}
