/*
 * Small helpers for the evidence parsers: spans of bytes, numbers,
 * "key=value" fields and dates; and for the writers, the UTF-8 of the text
 * they copied. Inputs are untrusted bytes that are not NUL-terminated;
 * nothing here reads past a span's end. Never prints.
 */
#ifndef LW_ANALYZER_TEXT_H
#define LW_ANALYZER_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct span {
	const char *s;
	size_t n;
};

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

/*
 * Text as the readers keep it: the bytes of the input, as they are (any
 * encoding, control bytes included), in a NUL-terminated string, except
 * that a NUL byte in a field is kept as TEXT_NUL (C0 80, NUL in the
 * "modified UTF-8" of Java and Android's JNI), so that it does not cut the
 * field short (ev_strndup()). A C0 80 in the input reads as a NUL too. The
 * writers make it valid where they write it: JSON (json.c) as UTF-8 with
 * U+FFFD for bytes that are not part of a well-formed character and
 * \u0000 for TEXT_NUL, text for people (format.c) with such bytes and the
 * control characters escaped.
 */
#define TEXT_NUL "\xc0\x80"

enum text_char {
	TEXT_CHAR,     /* a well-formed UTF-8 character */
	TEXT_CHAR_NUL, /* TEXT_NUL */
	TEXT_CHAR_BAD, /* a byte that is neither */
};

/* What the NUL-terminated s, not empty, starts with: a well-formed UTF-8
 * character (RFC 3629: no overlong form, no surrogate, nothing past
 * U+10FFFF), TEXT_NUL, or bytes that are neither: a byte that starts no
 * character, or the start of one cut short (a maximal subpart, in
 * Unicode's terms). Sets *len to its length in bytes and *cp to its code
 * point (0 for TEXT_NUL, the first byte for bad ones). Context: no
 * allocation; no blocking. */
enum text_char text_char_next(const char *s, size_t *len, uint32_t *cp);

/* Whether s is well-formed UTF-8 with no TEXT_NUL: what text_utf8_clean()
 * would copy unchanged. Context: no allocation; no blocking. */
int text_utf8_valid(const char *s);

/* A copy of s as valid UTF-8 (free with free()): each run of bad bytes
 * that text_char_next() returns becomes U+FFFD, each TEXT_NUL becomes
 * nul (which is kept when nul is TEXT_NUL). NULL on ENOMEM. Context:
 * allocates; no blocking. */
char *text_utf8_clean(const char *s, const char *nul);

#endif
