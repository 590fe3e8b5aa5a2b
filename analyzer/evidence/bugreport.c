/* A bug report's main text, cut into its pieces of evidence as it is read. */
#include "bugreport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logline.h"
#include "text.h"
#include "zipfile.h"

/* Where the scan is (r->state). */
enum {
	S_HEADER,  /* before the first section */
	S_NONE,    /* between sections */
	S_SKIP,    /* in a section that holds no evidence (dumpsys services: r->service) */
	S_PROPS,   /* in SYSTEM PROPERTIES */
};

/* In a section that dumpsys writes its services into (r->service). */
enum {
	SVC_NONE,
	SVC_SKIP,
	SVC_ALARM,
};

enum bugreport_entry_role bugreport_entry(const char *name, const char *main)
{
	const char *rest = NULL;
	size_t n = strlen(name);

	if (main && strcmp(name, main) == 0)
		return BUGREPORT_ENTRY_MAIN;
	if (strcmp(name, BUGREPORT_MAIN_ENTRY) == 0)
		return BUGREPORT_ENTRY_INDEX;
	if (strncmp(name, "FS/data/tombstones/", 19) == 0)
		rest = name + 19;
	else if (strncmp(name, "FS/data/anr/", 12) == 0)
		rest = name + 12;
	if (!rest || !*rest || strchr(rest, '/'))
		return BUGREPORT_ENTRY_OTHER;
	if (rest == name + 19 && n > 3 && strcmp(name + n - 3, ".pb") == 0)
		return BUGREPORT_ENTRY_PROTOBUF;
	return BUGREPORT_ENTRY_EVIDENCE;
}

int bugreport_main_candidate(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, "bugreport", 9) == 0 && n > 13 && strcmp(name + n - 4, ".txt") == 0 &&
	       !strchr(name, '/');
}

int bugreport_main_name(const char *bytes, size_t len, char **out, char *why, size_t whylen)
{
	struct span name = span_trim(span_of(bytes, len));
	const char *problem;
	char *copy;

	while (name.n && (name.s[name.n - 1] == '\n' || name.s[name.n - 1] == '\r'))
		name = span_trim(span_of(name.s, name.n - 1));
	copy = ev_strndup(name.s, name.n);
	if (!copy) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -1;
	}
	problem = strlen(copy) != name.n ? "a name with a NUL byte" : zipfile_name_problem(copy);
	if (!problem && strchr(copy, '/'))
		problem = "a name with '/': the main text is at the top";
	if (problem) {
		snprintf(why, whylen, "main_entry.txt names no file of the bug report: %s", problem);
		free(copy);
		return -1;
	}
	*out = copy;
	return 0;
}

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

/* The words of args after dumpsys's own options ("-T 30000", "-t 10",
 * "--dump-priority NORMAL", "--skip A B" ...: an option and its value). */
static struct span dumpsys_service(struct span args)
{
	while (args.n && args.s[0] == '-') {
		int takes = span_starts(args, "-T ") || span_starts(args, "-t ") ||
			    span_starts(args, "--priority ") || span_starts(args, "--dump-priority ");

		if (span_starts(args, "--skip "))
			return span_of(args.s, 0); /* every service but those named */
		while (args.n && args.s[0] != ' ')
			args = span_from(args, 1);
		args = span_skip_spaces(args);
		if (takes) {
			while (args.n && args.s[0] != ' ')
				args = span_from(args, 1);
			args = span_skip_spaces(args);
		}
	}
	return args;
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
		if (has_arg(args, "-S"))
			return EV_KIND_UNKNOWN;
		if (span_find(args, "-b events") >= 0)
			return span_find(args, "-b all") >= 0 ? EV_KIND_LOGCAT : EV_KIND_EVENT_LOG;
		if (span_find(args, "-b radio") >= 0 || span_find(args, "-b stats") >= 0 ||
		    span_find(args, "-b kernel") >= 0)
			return EV_KIND_UNKNOWN;
		return EV_KIND_LOGCAT;
	}
	if (runs(cmd, "dumpsys", &args)) {
		args = dumpsys_service(args);
		if (span_starts(args, "activity") && has_arg(args, "exit-info"))
			return EV_KIND_EXIT_INFO_DUMP;
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
	else if (span_eq(key, "ro.product.manufacturer"))
		copy_span(info->manufacturer, sizeof(info->manufacturer), val);
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

/* Whether l may be a line of dumpstate's or dumpsys's own (a banner, a
 * section's start or end, a service's): its first byte says, cheaply, for
 * the many lines that are none. */
static int maybe_marker(struct span l)
{
	return l.n && (l.s[0] == '-' || l.s[0] == '=' || l.s[0] == 'D');
}

/* Does line l, read inside the piece, end it? */
static int ends_piece(const struct bugreport_reader *r, struct span l)
{
	struct span t, c;

	if (!maybe_marker(l))
		return 0;
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

/* The piece's lines, where they lie in the text (input_source). */
static int piece_source_line(void *arg, struct span *l, struct ev_error *err)
{
	struct bugreport_reader *r = arg;
	int rc = piece_line(r, l);

	return rc < 0 ? input_error(r->text, err) : rc;
}

/* A look ahead of the piece's parser is one of the text's; going back
 * undoes an end of the piece seen in it. */
static void piece_peek(void *arg)
{
	struct bugreport_reader *r = arg;

	input_peek(r->text);
	r->peek_end = r->piece_end;
	r->peek_held = r->held;
}

static void piece_peek_end(void *arg, int consume)
{
	struct bugreport_reader *r = arg;

	input_peek_end(r->text, consume);
	if (!consume) {
		r->piece_end = r->peek_end;
		r->held = r->peek_held;
	}
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

/* r->title: "TITLE", or for a piece of evidence "TITLE #2" when it is the
 * second of that title. */
static void name_piece(struct bugreport_reader *r, struct span title, int piece)
{
	char t[BUGREPORT_TITLE_MAX];
	size_t i;

	copy_span(t, sizeof(t), title);
	snprintf(r->title, sizeof(r->title), "%s", t);
	if (!piece)
		return;
	for (i = 0; i < r->ntitles && strcmp(r->titles[i], t) != 0; i++)
		;
	if (i == r->ntitles && i < BUGREPORT_TITLES_MAX) {
		strcpy(r->titles[i], t);
		r->ntitles++;
	}
	if (i < r->ntitles && r->title_uses[i]++)
		snprintf(r->title, sizeof(r->title), "%s #%u", t, r->title_uses[i]);
}

/* List a section (its title as r->title names it), and count it. */
static void list_section(struct bugreport_reader *r, enum ev_kind kind)
{
	struct bugreport_info *info = &r->info;
	struct bugreport_section *nv;

	info->sections++;
	if (info->nlist >= BUGREPORT_SECTIONS_MAX)
		return;
	nv = ev_grow((void **)&info->list, info->nlist, sizeof(*nv));
	if (!nv)
		return; /* the list is for people: what fits is listed */
	snprintf(nv->title, sizeof(nv->title), "%s", r->title);
	nv->line = r->text->lineno;
	nv->kind = kind;
	info->nlist++;
}

static void open_piece(struct bugreport_reader *r, enum ev_kind kind, int service,
		       struct bugreport_piece *out)
{
	struct input_source src = { NULL, NULL, r, piece_source_line, piece_peek, piece_peek_end };

	list_section(r, kind);
	input_init_source(&r->piece, &src);
	input_number_from(&r->piece, r->text->lineno);
	r->piece_open = 1;
	r->piece_end = 0;
	r->piece_service = service;
	r->info.pieces++;
	out->title = r->title;
	out->kind = kind;
	out->in = &r->piece;
}

/* A line of a section that holds no evidence, where dumpsys may dump its
 * services: 1 when a piece (the activity service's) starts here. */
static int service_line(struct bugreport_reader *r, struct span l, struct bugreport_piece *out)
{
	struct span name;

	if (maybe_marker(l) && span_starts(l, "DUMP OF SERVICE ") && span_ends(l, ":")) {
		name = span_of(l.s + 16, l.n - 17);
		r->service = SVC_SKIP;
		if (span_eq(name, "activity")) {
			name_piece(r, span_of(l.s, l.n - 1), 1);
			open_piece(r, EV_KIND_EXIT_INFO_DUMP, 1, out);
			return 1;
		}
		/* "alarm", or "CRITICAL alarm" and the like */
		if (span_eq(name, "alarm") || span_ends(name, " alarm"))
			r->service = SVC_ALARM;
	} else if (r->service != SVC_NONE && maybe_marker(l) && is_dumpsys_footer(l)) {
		r->service = SVC_NONE;
	} else if (r->service == SVC_ALARM && !r->info.have_offset) {
		alarm_line(&r->info, l);
	}
	return 0;
}

/* A line between sections that is none of dumpstate's own (blank, "***
 * NO TOMBSTONES to dump ...", "*** command failed ..."): of a layout not
 * known, counted. */
static void stray_line(struct bugreport_reader *r, struct span l)
{
	struct span t = span_trim(l);

	if (t.n && !span_starts(t, "*** ") && !span_starts(t, "== "))
		ev_skip(&r->info.stats, r->text->lineno);
}

/* One line of the text, outside any piece: 1 when a piece starts here. */
static int scan(struct bugreport_reader *r, struct span l, struct bugreport_piece *out)
{
	struct span title, cmd;
	enum ev_kind kind;
	int rc, state;

	if (!maybe_marker(l))
		rc = 0;
	else if (is_banner(l))
		rc = 3;
	else
		rc = section_line(l, &title, &cmd);
	if (rc == 3) {
		if (r->state != S_HEADER)
			r->state = S_NONE;
		return 0;
	}
	if (rc == 2) {
		r->state = S_NONE;
		return 0;
	}
	if (rc == 1) {
		r->service = SVC_NONE;
		kind = section_kind(title, cmd, &state);
		name_piece(r, title, kind != EV_KIND_UNKNOWN);
		if (kind == EV_KIND_UNKNOWN) {
			list_section(r, kind);
			r->state = state;
			return 0;
		}
		r->state = S_NONE;
		open_piece(r, kind, 0, out);
		return 1;
	}
	switch (r->state) {
	case S_HEADER:
		header_line(&r->info, l);
		break;
	case S_PROPS:
		prop_line(&r->info, l);
		break;
	case S_SKIP:
		return service_line(r, l, out);
	default:
		stray_line(r, l);
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
			r->info.stats.lines = r->text->lineno;
			r->info.stats.cut_lines = r->text->cut_lines;
			r->info.stats.first_cut = r->text->first_cut;
			return rc;
		}
		if (scan(r, l, out))
			return 1;
	}
}

void bugreport_date_logs(const struct bugreport_reader *r, struct ev_file *f)
{
	const int64_t day_ms = 86400000;
	int64_t taken, year;
	size_t i;

	if (!r->info.taken[0] ||
	    text_parse_datetime(span_of(r->info.taken, strlen(r->info.taken)), &taken) == 0)
		return;
	year = text_year_of_days(taken / day_ms - (taken % day_ms < 0));
	for (i = 0; i < f->nlogs; i++) {
		struct log_event *e = &f->logs[i];

		if (e->year != EV_NONE || e->time_ms == EV_NO_TIME)
			continue;
		/* a day of slack: the clock may have been set back since */
		e->year = logline_in_year(e->time_ms, year) <= taken + day_ms ? year : year - 1;
	}
}

void bugreport_take_info(struct bugreport_reader *r, struct bugreport_info *out)
{
	*out = r->info;
	memset(&r->info, 0, sizeof(r->info));
}

void bugreport_release(struct bugreport_reader *r)
{
	if (r->piece_open)
		input_release(&r->piece);
	bugreport_info_release(&r->info);
	memset(r, 0, sizeof(*r));
}

void bugreport_info_release(struct bugreport_info *info)
{
	free(info->list);
	memset(info, 0, sizeof(*info));
}
