#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/hex.h"
#include "evidence/text.h"

void fmt_kb(char *buf, size_t len, uint64_t kb)
{
	if (kb < 1024)
		snprintf(buf, len, "%" PRIu64 " KiB", kb);
	else if (kb < 1024u * 1024u)
		snprintf(buf, len, "%.1f MiB", (double)kb / 1024.0);
	else
		snprintf(buf, len, "%.2f GiB", (double)kb / (1024.0 * 1024.0));
}

void fmt_ms(char *buf, size_t len, double ms)
{
	double a = ms < 0 ? -ms : ms;

	if (a < 10)
		snprintf(buf, len, "%.1f ms", ms);
	else if (a < 1000)
		snprintf(buf, len, "%.0f ms", ms);
	else if (a < 60000)
		snprintf(buf, len, "%.1f s", ms / 1000);
	else
		snprintf(buf, len, "%.1f min", ms / 60000);
}

void fmt_utc(char *buf, size_t len, uint64_t real_ns, int with_date)
{
	time_t secs = (time_t)(real_ns / 1000000000u);
	unsigned ms = (unsigned)(real_ns / 1000000u % 1000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	if (with_date)
		snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%03u UTC", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	else
		snprintf(buf, len, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void fmt_iso(char *buf, size_t len, uint64_t real_ns)
{
	time_t secs = (time_t)(real_ns / 1000000000u);
	unsigned us = (unsigned)(real_ns / 1000u % 1000000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

uint64_t iso_real_ns(const char *s)
{
	struct tm tm = { 0 };
	unsigned us = 0;
	int n = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%6uZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us, &n) != 7 || s[n])
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (uint64_t)timegm(&tm) * 1000000000u + (uint64_t)us * 1000u;
}

void fmt_digest(char *buf, size_t len, uint64_t digest)
{
	snprintf(buf, len, "%016" PRIx64, digest);
}

void fmt_id128(char *buf, size_t len, const uint8_t id[16])
{
	if (len < 33) {
		if (len)
			buf[0] = '\0';
		return;
	}
	hex_encode(buf, id, 16);
	buf[32] = '\0';
}

/* fmt_text()'s text into out, or only its length when out is NULL. */
static size_t escape_into(char *out, const char *s)
{
	size_t n = 0, len, i;
	uint32_t cp;

	while (*s) {
		enum text_char k = text_char_next(s, &len, &cp);
		const char *named = cp == '\t' ? "\\t" : cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : NULL;

		if (k == TEXT_CHAR && cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp > 0x9f)) {
			if (out)
				memcpy(out + n, s, len);
			n += len;
		} else if (k == TEXT_CHAR && named) {
			if (out)
				memcpy(out + n, named, 2);
			n += 2;
		} else if (k == TEXT_CHAR_NUL) {
			if (out)
				memcpy(out + n, "\\x00", 4);
			n += 4;
		} else {
			for (i = 0; i < len; i++, n += 4)
				if (out) {
					out[n] = '\\';
					out[n + 1] = 'x';
					hex_encode(out + n + 2, (const unsigned char *)s + i, 1);
				}
		}
		s += len;
	}
	if (out)
		out[n] = '\0';
	return n;
}

const char *fmt_text(const char *s)
{
	static char *slot[FMT_TEXT_SLOTS];
	static size_t size[FMT_TEXT_SLOTS];
	static unsigned next;
	size_t n;
	unsigned i;

	if (!s)
		return "";
	/* Every escape is longer than what it stands for. */
	n = escape_into(NULL, s);
	if (n == strlen(s))
		return s;
	i = next++ % FMT_TEXT_SLOTS;
	if (size[i] < n + 1) {
		char *nv = realloc(slot[i], n + 1);

		if (!nv)
			return "(text not shown: out of memory)";
		slot[i] = nv;
		size[i] = n + 1;
	}
	escape_into(slot[i], s);
	return slot[i];
}

char *fmt_vocab_list(const struct vocab *v, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	if (len)
		buf[0] = '\0';
	for (i = 1; i < v->count && at + 1 < len; i++) {
		int w;

		if (!v->names[i])
			continue;
		w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", v->names[i]);
		if (w < 0)
			break;
		at += (size_t)w < len - at ? (size_t)w : len - at - 1;
	}
	return buf;
}
