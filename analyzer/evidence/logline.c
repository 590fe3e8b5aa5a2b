/* logcat line prefixes; the rules are in logline.h. */
#include "logline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = {
	"raw", "threadtime", "uid", "time", "brief", "tag", "long", "long", "studio",
};

const char *logline_format_name(enum logline_format f)
{
	return (unsigned)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f]
									     : "raw";
}

static inline int dig(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline int is_level(char c)
{
	return c == 'I' || c == 'D' || c == 'W' || c == 'E' || c == 'V' || c == 'F' || c == 'A';
}

/* Days before each month and days in each month, on a leap-year calendar. */
static const int16_t month_start[12] = { 0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335 };
static const int8_t month_days[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

int64_t logline_month_day_ms(int month, int day, int64_t ms_of_day)
{
	if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1])
		return EV_NO_TIME;
	return (int64_t)(month_start[month - 1] + day - 1) * 86400000 + ms_of_day;
}

int64_t logline_in_year(int64_t month_day_ms, int64_t y)
{
	int64_t doy = month_day_ms / 86400000;
	int m = 12, day;

	if (month_day_ms < 0 || doy > 365)
		return EV_NO_TIME;
	while (month_start[m - 1] > doy)
		m--;
	day = (int)(doy - month_start[m - 1]) + 1;
	if (m == 2 && day == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return EV_NO_TIME;
	return text_days_from_civil(y, (unsigned)m, (unsigned)day) * 86400000 +
	       month_day_ms % 86400000;
}

/* "HH:MM:SS" and an optional fraction at s: the bytes used (0 if none) and
 * the milliseconds of the day. */
static size_t parse_hms(const char *s, size_t n, int64_t *ms)
{
	int64_t h, m, sec, frac = 0;
	size_t i = 8, k = 0;

	if (n < 8 || !dig(s[0]) || !dig(s[1]) || s[2] != ':' || !dig(s[3]) || !dig(s[4]) ||
	    s[5] != ':' || !dig(s[6]) || !dig(s[7]))
		return 0;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	sec = (s[6] - '0') * 10 + (s[7] - '0');
	if (h > 23 || m > 59 || sec > 60)
		return 0;
	if (i < n && s[i] == '.') {
		for (i++; i < n && dig(s[i]); i++, k++)
			if (k < 3)
				frac = frac * 10 + (s[i] - '0');
		if (k == 0)
			return 0;
		for (; k < 3; k++)
			frac *= 10;
	}
	*ms = ((h * 60 + m) * 60 + sec) * 1000 + frac;
	return i;
}

/* The time at the start of s (rule 1): bytes used, 0 if none. *year and
 * *zone_ms are what -v year and -v zone (or -v UTC) wrote, EV_NONE and
 * EV_NO_TIME when they did not. */
static size_t parse_stamp(const char *s, size_t n, int64_t *time_ms, int64_t *year,
			  int64_t *zone_ms)
{
	size_t i = 0, nd, used;
	int month, day;
	int64_t ms;

	*year = EV_NONE;
	*zone_ms = EV_NO_TIME;

	while (i < n && i < 20 && dig(s[i]))
		i++;
	nd = i;
	if (nd == 0 || i >= n)
		return 0;
	if (s[i] == '.') {
		/* seconds.fraction: epoch or monotonic */
		size_t k = 0;

		for (i++; i < n && dig(s[i]); i++)
			k++;
		if (k < 3 || (i < n && s[i] != ' '))
			return 0;
		*time_ms = EV_NO_TIME;
		return i;
	}
	if (s[i] != '-')
		return 0;
	if (nd == 4) {
		/* -v year: keep the year, read MM-DD */
		*year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
		s += 5;
		n -= 5;
		used = 5;
		if (n < 6 || !dig(s[0]) || !dig(s[1]) || s[2] != '-')
			return 0;
		month = (s[0] - '0') * 10 + (s[1] - '0');
		i = 3;
	} else if (nd == 1 || nd == 2) {
		used = 0;
		month = nd == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
		i = nd + 1;
	} else {
		return 0;
	}
	if (i + 3 > n || !dig(s[i]) || !dig(s[i + 1]) || s[i + 2] != ' ')
		return 0;
	day = (s[i] - '0') * 10 + (s[i + 1] - '0');
	i += 3;
	{
		size_t h = parse_hms(s + i, n - i, &ms);

		if (!h)
			return 0;
		i += h;
	}
	*time_ms = logline_month_day_ms(month, day, ms);
	if (*time_ms == EV_NO_TIME)
		return 0;
	/* -v zone: " +HHMM" */
	if (i + 6 <= n && s[i] == ' ' && (s[i + 1] == '+' || s[i + 1] == '-') && dig(s[i + 2]) &&
	    dig(s[i + 3]) && dig(s[i + 4]) && dig(s[i + 5]) && (i + 6 == n || s[i + 6] == ' ')) {
		*zone_ms = (s[i + 1] == '-' ? -1 : 1) *
			   ((int64_t)((s[i + 2] - '0') * 10 + (s[i + 3] - '0')) * 60 +
			    (s[i + 4] - '0') * 10 + (s[i + 5] - '0')) * 60000;
		i += 6;
	}
	return used + i;
}

static int all_digits(struct span t)
{
	size_t i;

	if (!t.n)
		return 0;
	for (i = 0; i < t.n; i++)
		if (!dig(t.s[i]))
			return 0;
	return 1;
}

static int64_t digits_value(struct span t)
{
	int64_t v = 0;
	size_t i;

	for (i = 0; i < t.n && i < 18; i++)
		v = v * 10 + (t.s[i] - '0');
	return v;
}

/* "TAG: msg" from s (rule 4). */
static int parse_tag_colon(const char *s, size_t n, struct logline *l)
{
	const char *c = s, *end = s + n;
	size_t t;

	while ((c = memchr(c, ':', (size_t)(end - c))) != NULL) {
		if (c + 1 == end || c[1] == ' ')
			break;
		c++;
	}
	if (!c)
		return 0;
	t = (size_t)(c - s);
	while (t && s[t - 1] == ' ')
		t--;
	l->tag.s = s;
	l->tag.n = t;
	c++;
	if (c < end)
		c++; /* the space after ':' */
	l->msg.s = c;
	l->msg.n = (size_t)(end - c);
	return 1;
}

/* "TAG(  PID): msg" (brief, time), or "TAG: msg" (tag) when allow_tag.
 * The "(" of the pid comes before the first ':' of the line, so a message's
 * own "(3):" is not taken for it. */
static int parse_slash_tail(const char *s, size_t n, struct logline *l, int allow_tag)
{
	const char *p = s, *end = s + n, *colon = memchr(s, ':', n);
	const char *lim = colon ? colon : end;

	while ((p = memchr(p, '(', (size_t)(lim - p))) != NULL) {
		const char *q = p + 1, *d;

		while (q < end && *q == ' ')
			q++;
		d = q;
		while (q < end && dig(*q))
			q++;
		if (q > d && q + 1 < end && q[0] == ')' && q[1] == ':') {
			size_t t = (size_t)(p - s);

			while (t && s[t - 1] == ' ')
				t--;
			l->tag.s = s;
			l->tag.n = t;
			l->pid = digits_value(span_of(d, (size_t)(q - d)));
			q += 2;
			if (q < end && *q == ' ')
				q++;
			l->msg.s = q;
			l->msg.n = (size_t)(end - q);
			return 1;
		}
		p++;
	}
	return allow_tag && parse_tag_colon(s, n, l);
}

/* "PID-TID/PACKAGE L/TAG: msg" after the time (studio, rule 6). */
static int parse_studio(const char *s, size_t n, struct logline *l)
{
	size_t i = 0, dash, slash;

	while (i < n && dig(s[i]))
		i++;
	dash = i;
	if (!dash || i >= n || s[i] != '-')
		return 0;
	for (i++; i < n && dig(s[i]); i++)
		;
	slash = i;
	if (slash == dash + 1 || i >= n || s[i] != '/')
		return 0;
	while (i < n && s[i] != ' ')
		i++;
	while (i < n && s[i] == ' ')
		i++;
	if (i + 2 > n || !is_level(s[i]) || s[i + 1] != '/' ||
	    !parse_tag_colon(s + i + 2, n - i - 2, l))
		return 0;
	l->format = LOGLINE_STUDIO;
	l->pid = digits_value(span_of(s, dash));
	l->tid = digits_value(span_of(s + dash + 1, slash - dash - 1));
	l->level = s[i];
	return 1;
}

/* After the time and its spaces: threadtime, uid, time, or studio when
 * opts ask for it. */
static int parse_after_time(const char *s, size_t n, unsigned opts, struct logline *l)
{
	struct span tok[3];
	size_t i = 0, k = 0;

	if (n >= 2 && is_level(s[0]) && s[1] == '/') {
		l->level = s[0];
		l->format = LOGLINE_TIME;
		return parse_slash_tail(s + 2, n - 2, l, 1);
	}
	if ((opts & LOGLINE_OPT_STUDIO) && parse_studio(s, n, l))
		return 1;
	for (;;) {
		size_t start;

		if (is_level(s[i]) && (i + 1 == n || s[i + 1] == ' '))
			break;
		if (k == 3)
			return 0;
		start = i;
		while (i < n && s[i] != ' ')
			i++;
		tok[k].s = s + start;
		tok[k].n = i - start;
		k++;
		while (i < n && s[i] == ' ')
			i++;
		if (i >= n)
			return 0;
	}
	switch (k) {
	case 0:
		l->format = LOGLINE_THREADTIME;
		break;
	case 2:
		if (!all_digits(tok[0]) || !all_digits(tok[1]))
			return 0;
		l->format = LOGLINE_THREADTIME;
		l->pid = digits_value(tok[0]);
		l->tid = digits_value(tok[1]);
		break;
	case 3:
		if (!all_digits(tok[1]) || !all_digits(tok[2]))
			return 0;
		l->format = LOGLINE_UID;
		l->uid = tok[0];
		if (l->uid.n > 1 && l->uid.s[l->uid.n - 1] == ':')
			l->uid.n--;
		l->pid = digits_value(tok[1]);
		l->tid = digits_value(tok[2]);
		break;
	default:
		return 0;
	}
	l->level = s[i];
	i += 2;
	if (i > n)
		i = n;
	return parse_tag_colon(s + i, n - i, l);
}

/* A line that starts with a time. */
static int parse_timed(const char *s, size_t n, unsigned opts, struct logline *l)
{
	int64_t ms, year, zone;
	size_t t = parse_stamp(s, n, &ms, &year, &zone), i;

	if (!t || t >= n || s[t] != ' ')
		return 0;
	l->time.s = s;
	l->time.n = t;
	l->time_ms = ms;
	l->year = year;
	l->zone_ms = zone;
	for (i = t; i < n && s[i] == ' '; i++)
		;
	if (i >= n)
		return 0;
	return parse_after_time(s + i, n - i, opts, l);
}

/* "[ MM-DD HH:MM:SS.mmm  PID: TID L/TAG ]" */
static int parse_long_header(const char *s, size_t n, struct logline *l)
{
	int64_t ms, year, zone;
	size_t i = 2, t, d;

	if (n < 8 || s[n - 1] != ']' || s[n - 2] != ' ')
		return 0;
	n -= 2;
	t = parse_stamp(s + i, n - i, &ms, &year, &zone);
	if (!t)
		return 0;
	l->time.s = s + i;
	l->time.n = t;
	l->time_ms = ms;
	l->year = year;
	l->zone_ms = zone;
	i += t;
	while (i < n && s[i] == ' ')
		i++;
	/* an optional uid column before "PID:" */
	d = i;
	while (i < n && s[i] != ' ' && s[i] != ':')
		i++;
	if (i < n && s[i] == ' ') {
		l->uid = span_of(s + d, i - d);
		while (i < n && s[i] == ' ')
			i++;
		d = i;
		while (i < n && dig(s[i]))
			i++;
	}
	if (i == d || i >= n || s[i] != ':' || !all_digits(span_of(s + d, i - d)))
		return 0;
	l->pid = digits_value(span_of(s + d, i - d));
	for (i++; i < n && s[i] == ' '; i++)
		;
	d = i;
	while (i < n && dig(s[i]))
		i++;
	if (i == d || i + 3 > n || s[i] != ' ' || !is_level(s[i + 1]) || s[i + 2] != '/')
		return 0;
	l->tid = digits_value(span_of(s + d, i - d));
	l->level = s[i + 1];
	l->tag = span_trim(span_of(s + i + 3, n - i - 3));
	l->msg = span_of(s + n, 0);
	l->format = LOGLINE_LONG_HEADER;
	return 1;
}

/* Rule 3: whitespace and comment markers. */
static size_t skip_markers(const char *s, size_t n)
{
	size_t i = 0;
	int k;

	for (k = 0; k < 4; k++) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (k == 3 || i + 1 >= n)
			break;
		if ((s[i] == '*' || s[i] == '#' || s[i] == '>' || s[i] == '|') && s[i + 1] == ' ')
			i += 2;
		else if (s[i] == '/' && s[i + 1] == '/' && i + 2 < n && s[i + 2] == ' ')
			i += 3;
		else
			break;
	}
	return i;
}

int logline_parse(const char *s, size_t n, unsigned opts, struct logline *l)
{
	size_t off;

	l->format = LOGLINE_RAW;
	l->time.s = s;
	l->time.n = 0;
	l->time_ms = EV_NO_TIME;
	l->year = EV_NONE;
	l->zone_ms = EV_NO_TIME;
	l->pid = l->tid = EV_NONE;
	l->uid.s = s;
	l->uid.n = 0;
	l->level = 0;
	l->tag.s = s;
	l->tag.n = 0;
	if (n && dig(s[0]) && parse_timed(s, n, opts, l))
		return 1;
	off = 0;
	if (n && !dig(s[0]))
		off = skip_markers(s, n);
	if (off < n) {
		const char *p = s + off;
		size_t m = n - off;

		if (off && dig(p[0])) {
			l->time.n = 0;
			l->time_ms = EV_NO_TIME;
			if (parse_timed(p, m, opts, l))
				return 1;
		} else if (m >= 3 && is_level(p[0]) && p[1] == '/') {
			l->level = p[0];
			l->format = LOGLINE_BRIEF;
			if (parse_slash_tail(p + 2, m - 2, l, 0))
				return 1;
			l->format = LOGLINE_TAG;
			if (parse_tag_colon(p + 2, m - 2, l))
				return 1;
		} else if (m >= 2 && p[0] == '[' && p[1] == ' ') {
			if (parse_long_header(p, m, l))
				return 1;
		}
	}
	/* raw */
	l->format = LOGLINE_RAW;
	l->time.n = 0;
	l->time_ms = EV_NO_TIME;
	l->pid = l->tid = EV_NONE;
	l->uid.n = 0;
	l->level = 0;
	l->tag.s = s;
	l->tag.n = 0;
	l->msg.s = s + off;
	l->msg.n = n - off;
	return 0;
}

int64_t logline_uid_value(struct span u)
{
	static const struct {
		const char *name;
		int64_t uid;
	} names[] = {
		{ "root", 0 },      { "radio", 1001 }, { "bluetooth", 1002 }, { "nfc", 1027 },
		{ "shell", 2000 },  { "media", 1013 }, { "audio", 1041 },     { "wifi", 1010 },
		{ "system", 1000 }, { "logd", 1036 },  { "gps", 1021 },       { "drm", 1019 },
	};
	size_t i;

	if (all_digits(u) && u.n <= 10)
		return digits_value(u);
	/* u<user>_a<app> and u<user>_i<n>, as getpwuid names app uids */
	if (u.n >= 4 && u.s[0] == 'u' && dig(u.s[1])) {
		int64_t user = 0, n = 0;

		for (i = 1; i < u.n && dig(u.s[i]) && i < 8; i++)
			user = user * 10 + (u.s[i] - '0');
		if (i + 2 <= u.n && u.s[i] == '_' && (u.s[i + 1] == 'a' || u.s[i + 1] == 'i') &&
		    all_digits(span_of(u.s + i + 2, u.n - i - 2)) && u.n - i - 2 <= 6) {
			n = digits_value(span_of(u.s + i + 2, u.n - i - 2));
			return user * 100000 + (u.s[i + 1] == 'a' ? 10000 : 99000) + n;
		}
		return EV_NONE;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (span_eq(u, names[i].name))
			return names[i].uid;
	return EV_NONE;
}

void logline_iter_init(struct logline_iter *it, struct input *in, unsigned opts)
{
	memset(it, 0, sizeof(*it));
	it->in = in;
	it->opts = opts;
}

void logline_iter_release(struct logline_iter *it)
{
	free(it->hdr_line);
	memset(it, 0, sizeof(*it));
}

/* Keep a copy of a -v long header, parsed, for the lines under it. */
static int keep_header(struct logline_iter *it, struct span line)
{
	if (line.n + 1 > it->hdr_cap) {
		char *nv = realloc(it->hdr_line, line.n + 1);

		if (!nv)
			return -1;
		it->hdr_line = nv;
		it->hdr_cap = line.n + 1;
	}
	memcpy(it->hdr_line, line.s, line.n);
	logline_parse(it->hdr_line, line.n, it->opts, &it->hdr);
	return 0;
}

int logline_next(struct logline_iter *it, struct span *line, struct logline *l)
{
	int rc = input_line(it->in, line);

	if (rc <= 0)
		return rc;
	it->lineno = it->in->lineno;
	logline_parse(line->s, line->n, it->opts, l);
	if (l->format == LOGLINE_LONG_HEADER) {
		if (keep_header(it, *line) != 0)
			return input_fail(it->in, strerror(ENOMEM));
		it->in_long = 1;
	} else if (it->in_long) {
		if (l->format != LOGLINE_RAW) {
			it->in_long = 0;
		} else {
			struct span msg = l->msg;

			*l = it->hdr;
			l->format = LOGLINE_LONG;
			l->msg = msg;
		}
	}
	return 1;
}

void logline_fields_init(struct logline_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = f->uid = f->user = f->oom_score_adj = EV_NONE;
	f->rss_kb = f->swap_kb = f->free_kb = EV_NONE;
	f->anon_rss_kb = f->dmabuf_pss_kb = f->dmabuf_rss_kb = EV_NONE;
	f->signo = f->kill_reason_code = f->parcel_bytes = EV_NONE;
}

int logline_emit(struct ev_file *out, enum log_event_type t, const struct logline *l,
		 size_t lineno, const struct logline_fields *f)
{
	struct log_event *e = ev_add_log(out);
	const char *fmt = logline_format_name(l->format);

	if (!e)
		return -1;
	e->line = lineno;
	e->type = t;
	e->format = ev_strndup(fmt, strlen(fmt));
	if (!e->format)
		return -1;
	if (l->time.n && !(e->time_text = ev_strndup(l->time.s, l->time.n)))
		return -1;
	e->time_ms = l->time_ms;
	e->year = l->time_ms == EV_NO_TIME ? EV_NONE : l->year;
	e->zone_ms = l->time_ms == EV_NO_TIME ? EV_NO_TIME : l->zone_ms;
	e->pid = f->pid;
	e->uid = f->uid;
	e->user = f->user;
	if (e->user == EV_NONE && e->uid >= 0)
		e->user = e->uid / 100000;
	if (f->process.n && !(e->process = ev_strndup(f->process.s, f->process.n)))
		return -1;
	e->oom_score_adj = f->oom_score_adj;
	e->rss_kb = f->rss_kb;
	e->swap_kb = f->swap_kb;
	e->free_kb = f->free_kb;
	e->anon_rss_kb = f->anon_rss_kb;
	e->dmabuf_pss_kb = f->dmabuf_pss_kb;
	e->dmabuf_rss_kb = f->dmabuf_rss_kb;
	e->signo = f->signo;
	e->kill_reason_code = f->kill_reason_code;
	e->parcel_bytes = f->parcel_bytes;
	if (f->reason.n || (f->reason_sep && f->reason2.n)) {
		size_t sep = f->reason_sep && f->reason2.n ? strlen(f->reason_sep) : 0;
		size_t n2 = sep ? f->reason2.n : 0;
		char *r = malloc(f->reason.n + sep + n2 + 1);

		if (!r)
			return -1;
		memcpy(r, f->reason.s, f->reason.n);
		if (sep) {
			memcpy(r + f->reason.n, f->reason_sep, sep);
			memcpy(r + f->reason.n + sep, f->reason2.s, n2);
		}
		r[f->reason.n + sep + n2] = '\0';
		e->reason = r;
	}
	return 0;
}

enum logline_tag logline_tag_of(struct span t)
{
	/* by length first: the tag of almost every line is none of these */
	switch (t.n) {
	case 4:
		if (!memcmp(t.s, "libc", 4))
			return LOGTAG_LIBC;
		if (!memcmp(t.s, "lmkd", 4))
			return LOGTAG_LMKD;
		break;
	case 6:
		if (!memcmp(t.s, "Zygote", 6) || !memcmp(t.s, "zygote", 6))
			return LOGTAG_ZYGOTE;
		break;
	case 8:
		if (!memcmp(t.s, "zygote64", 8) || !memcmp(t.s, "Zygote64", 8))
			return LOGTAG_ZYGOTE;
		if (!memcmp(t.s, "Watchdog", 8))
			return LOGTAG_WATCHDOG;
		break;
	case 10:
		if (!memcmp(t.s, "JavaBinder", 10))
			return LOGTAG_BINDER;
		break;
	case 14:
		if (!memcmp(t.s, "AndroidRuntime", 14))
			return LOGTAG_RUNTIME;
		break;
	case 15:
		if (!memcmp(t.s, "lowmemorykiller", 15))
			return LOGTAG_LMKD;
		if (!memcmp(t.s, "ActivityManager", 15))
			return LOGTAG_AM;
		break;
	default:
		break;
	}
	return LOGTAG_OTHER;
}
