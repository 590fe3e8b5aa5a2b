/* Formatting helpers for people: sizes, times, digests. Never print. */
#ifndef LW_ANALYZER_FORMAT_H
#define LW_ANALYZER_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "163.1 MiB", "1.50 GiB", "512 KiB". */
void fmt_kb(char *buf, size_t len, uint64_t kb);

/* "2026-11-29 23:15:00.123 UTC" (with_date) or "23:15:00.123". */
void fmt_utc(char *buf, size_t len, uint64_t real_ns, int with_date);

/* ISO 8601 with microseconds: "2026-11-29T23:15:00.123456Z". */
void fmt_iso(char *buf, size_t len, uint64_t real_ns);

/* 16 lowercase hex digits. */
void fmt_digest(char *buf, size_t len, uint64_t digest);

/* 32 lowercase hex digits of 16 bytes. */
void fmt_id128(char *buf, size_t len, const uint8_t id[16]);

#endif
