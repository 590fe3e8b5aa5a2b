/*
 * Small helpers for the evidence parsers: lines, spans of bytes, numbers,
 * "key=value" fields and dates. Inputs are untrusted bytes that are not
 * NUL-terminated; nothing here reads past a span's end. Never prints.
 */
#ifndef LW_ANALYZER_TEXT_H
#define LW_ANALYZER_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct span {
	const char *s;
	size_t n;
};

struct line_iter {
	const char *p, *end;
	size_t lineno; /* number of the line last returned, 1-based */
};

void line_iter_init(struct line_iter *it, const char *buf, size_t len);

/* The next line without its "\n" or "\r\n"; 0 at the end. */
int line_next(struct line_iter *it, struct span *line);

struct span span_of(const char *s, size_t n);
struct span span_trim(struct span s);             /* spaces and tabs, both ends */
int span_starts(struct span s, const char *lit);
int span_ends(struct span s, const char *lit);
int span_eq(struct span s, const char *lit);
/* Offset of needle in s, or -1. */
long span_find(struct span s, const char *needle);
struct span span_from(struct span s, size_t off); /* s without its first off bytes */
struct span span_skip_spaces(struct span s);

/* An optionally signed decimal integer at the start of s. Returns the bytes
 * used (0 if none, or on overflow) and sets *out. */
size_t span_int64(struct span s, int64_t *out);

/* A hexadecimal integer, with or without 0x, at the start of s. */
size_t span_hex64(struct span s, uint64_t *out);

/* The value of "key=" in a line of space-separated fields: from after the
 * '=' to the next space (or the end). The key must start the line or follow
 * a space. Returns 1 and sets *val when found. */
int span_field(struct span line, const char *key, struct span *val);

/* "yyyy-MM-dd HH:mm:ss[.SSS...]" at the start of s, as milliseconds since the
 * epoch taken as UTC (the caller knows whether it was local time). Returns
 * the bytes used, 0 if s does not start with such a date. */
size_t text_parse_datetime(struct span s, int64_t *ms);

/* Days since the epoch of a civil date (proleptic Gregorian); no range
 * checks beyond what the caller validated. */
int64_t text_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The civil year of a day counted since the epoch (the inverse of
 * text_days_from_civil for the year). */
int64_t text_year_of_days(int64_t days);

#endif
