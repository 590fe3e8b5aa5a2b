/*
 * A device's time zone: a fixed offset from UTC ("+02:00"), or an IANA
 * name ("Europe/Berlin") whose offset the system's tzdata gives at each
 * date, daylight saving time included, so that a record from before a
 * change is placed at the offset of its own date. Names go through the C
 * library (TZ, tzset, localtime_r): a named zone becomes the process's
 * local time zone, which nothing else in lastwords reads (it writes UTC).
 * Never prints.
 */
#ifndef LW_ANALYZER_TZ_H
#define LW_ANALYZER_TZ_H

#include <stddef.h>
#include <stdint.h>

#define TZ_NAME_MAX 64

struct tz_zone {
	char name[TZ_NAME_MAX]; /* an IANA name; empty for a fixed offset */
	int64_t offset_ms;      /* the fixed offset: local time minus UTC */
};

/* An offset: "+02:00", "-0530", "+9", "UTC", "Z" or "GMT". Returns 0, or
 * -1 with *offset_ms untouched. */
int tz_parse_offset(const char *s, int64_t *offset_ms);

/* An offset (tz_parse_offset), or the name of a zone that the system's
 * tzdata holds ($TZDIR, else /usr/share/zoneinfo: a TZif file, reached by
 * a name of letters, digits, '_', '+', '-' and '/', with no "..", inside
 * that directory once links are followed). The file must be a regular one
 * of at most TZ_FILE_MAX bytes whose headers, counts, sizes and footer
 * hold (RFC 8536): the C library would read any other as UTC, and say
 * nothing. It is opened without blocking (a FIFO is refused, not waited
 * on). "localtime" is refused: it is the zone of the machine running
 * lastwords. Returns 0; or TZ_UNKNOWN, TZ_LOCAL or TZ_DAMAGED with *out
 * untouched and why (when not NULL) saying what is wrong, for people. */
#define TZ_FILE_MAX (64 * 1024)
#define TZ_WHY_MAX 700 /* enough for why, with its path */
enum { TZ_UNKNOWN = -1, TZ_LOCAL = -2, TZ_DAMAGED = -3 };
int tz_parse(const char *s, struct tz_zone *out, char *why, size_t len);

/* The offset of z at the UTC time utc_ms (ms since the epoch). */
int64_t tz_offset_at(const struct tz_zone *z, int64_t utc_ms);

/* A wall time of z (ms, read as if it were UTC) in UTC. A wall time that
 * occurs twice (clocks turned back) is the earlier instant; one that does
 * not occur (clocks turned forward) is read at the offset before the
 * change. */
int64_t tz_to_utc(const struct tz_zone *z, int64_t local_ms);

/* A date-time as written ("2025-06-10 14:45:01.338042611+0200"), with an
 * optional zone after it ("+0100", "+01:00", "Z"): its wall time, read as
 * UTC, into *local_ms, and its zone's offset into *offset_ms when it has
 * one. Returns 1 with a zone, 0 without, -1 when s holds no date-time (the
 * out-parameters are then untouched). */
int tz_stamp(const char *s, int64_t *local_ms, int64_t *offset_ms);

/* z for people: its name, or its offset as "+01:00". Returns buf. */
const char *tz_text(const struct tz_zone *z, char *buf, size_t len);

#endif
