/* Formatting helpers for people: sizes, times, digests, and untrusted text
 * made safe for a terminal. Never print. */
#ifndef LW_ANALYZER_FORMAT_H
#define LW_ANALYZER_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "../src/vocab.h"

/* "163.1 MiB", "1.50 GiB", "512 KiB". */
void fmt_kb(char *buf, size_t len, uint64_t kb);

/* A duration or a time on a run's clock: "0.2 ms", "116 ms", "2.4 s",
 * "12.5 min", "-3.0 s". */
void fmt_ms(char *buf, size_t len, double ms);

/* "2026-11-29 23:15:00.123 UTC" (with_date) or "23:15:00.123". */
void fmt_utc(char *buf, size_t len, uint64_t real_ns, int with_date);

/* Whether ms milliseconds since the epoch are a time in nanoseconds too
 * (1970 to 2262): evidence may give any year, and a time beyond those
 * cannot be placed on a run's clock. */
static inline int ms_fits_ns(int64_t ms)
{
	return ms >= 0 && ms <= INT64_MAX / 1000000;
}

/* ISO 8601 with microseconds: "2026-11-29T23:15:00.123456Z". */
void fmt_iso(char *buf, size_t len, uint64_t real_ns);

/* The time fmt_iso() wrote, back in ns since the epoch; 0 for a NULL s or
 * any other text. */
uint64_t iso_real_ns(const char *s);

/* v's names of values 1 and up, in value order, joined by ", " into buf
 * (cut to len bytes, with the NUL), for messages. Returns buf. */
char *fmt_vocab_list(const struct vocab *v, char *buf, size_t len);

/* 16 lowercase hex digits. */
void fmt_digest(char *buf, size_t len, uint64_t digest);

/* 32 lowercase hex digits of 16 bytes. */
void fmt_id128(char *buf, size_t len, const uint8_t id[16]);

/*
 * s as it may be shown on a terminal or in a one-line message: each control
 * character (C0, DEL, and C1, U+0080 to U+009F, which terminals also obey)
 * written as \t, \n, \r or \xHH per byte, a NUL the readers kept
 * (TEXT_NUL) as \x00, each byte that is not part of well-formed UTF-8 as
 * \xHH, the rest as it is; NULL gives "". Every text printer passes what
 * came from a file (names, fields, file names) through it, so that an
 * escape sequence cannot reach the terminal and a newline cannot make two
 * lines of one. A backslash stays as it is.
 *
 * Returns s itself when nothing needs escaping, else the escaped text in
 * one of FMT_TEXT_SLOTS buffers that later calls reuse: it stays valid
 * until the FMT_TEXT_SLOTS-th call after this one (so that many may be
 * arguments of one printf()). Not thread-safe: the analyzer has one thread.
 * Context: allocates (the buffers, kept for later calls); no blocking.
 */
#define FMT_TEXT_SLOTS 8
const char *fmt_text(const char *s);

#endif
