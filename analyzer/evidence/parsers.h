/*
 * The evidence parsers, one file each, and content detection (detect.c).
 *
 * X_sniff(buf, len) says whether the bytes look like its kind; it looks only
 * at what it needs (64 KiB at most). X_parse(buf, len, out, err) appends
 * records to out and counts lines it skips in out->stats; it returns 0, or
 * -1 with *err naming the line and what was expected when the file cannot
 * be read at all (for instance malformed JSON). Neither prints. buf has a
 * NUL after len bytes, but parsers must not rely on the absence of NULs
 * inside it.
 */
#ifndef LW_ANALYZER_PARSERS_H
#define LW_ANALYZER_PARSERS_H

#include <stddef.h>

#include "evidence.h"

int seed_sniff(const char *buf, size_t len);
int seed_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int aei_json_sniff(const char *buf, size_t len);
int aei_json_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int aei_dump_sniff(const char *buf, size_t len);
int aei_dump_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int aei_tostring_sniff(const char *buf, size_t len);
int aei_tostring_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int tombstone_sniff(const char *buf, size_t len);
int tombstone_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int anr_sniff(const char *buf, size_t len);
int anr_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int eventlog_sniff(const char *buf, size_t len);
int eventlog_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int logcat_sniff(const char *buf, size_t len);
int logcat_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

/* The kind of a file's content: ring magic first, then each sniffer in an
 * order that puts the more specific formats first. */
enum ev_kind ev_detect(const char *buf, size_t len);

/* Parse buf as kind (not ring, not unknown). */
int ev_parse(enum ev_kind kind, const char *buf, size_t len, struct ev_file *out,
	     struct ev_error *err);

#endif
