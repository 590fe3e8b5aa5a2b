/*
 * The evidence parsers, one file each, and content detection (detect.c).
 *
 * X_sniff(buf, len) says whether the first bytes of a file look like its
 * kind; it looks only at what it needs (64 KiB at most, INPUT_HEAD_BYTES).
 * X_parse() appends records to out and counts lines it skips in
 * out->stats; it returns 0, or -1 with *err naming the line and what was
 * expected when the file cannot be read at all (for instance malformed
 * JSON), or the input's error when a read failed (in->failed). The
 * line-oriented formats read their input line by line (input.h); the JSON
 * formats parse the whole file, (buf, len), which ev_parse() reads whole
 * up to INPUT_JSON_MAX. Neither prints. buf has a NUL after len bytes, but
 * parsers must not rely on the absence of NULs inside it.
 */
#ifndef LW_ANALYZER_PARSERS_H
#define LW_ANALYZER_PARSERS_H

#include <stddef.h>

#include "evidence.h"
#include "input.h"

int seed_sniff(const char *buf, size_t len);
int seed_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int aei_json_sniff(const char *buf, size_t len);
int aei_json_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);

int aei_dump_sniff(const char *buf, size_t len);
int aei_dump_parse(struct input *in, struct ev_file *out, struct ev_error *err);

int aei_tostring_sniff(const char *buf, size_t len);
int aei_tostring_parse(struct input *in, struct ev_file *out, struct ev_error *err);

int tombstone_sniff(const char *buf, size_t len);
int tombstone_parse(struct input *in, struct ev_file *out, struct ev_error *err);
/* A tombstone in debuggerd's protobuf (tombstone_NN.pb, a native crash's
 * getTraceInputStream()), detected as EV_KIND_TOMBSTONE and read whole
 * (tombstone-proto.c); the file is refused, err naming the byte offset and
 * the field's path, when it is no tombstone.proto message. */
int tombstone_proto_sniff(const char *buf, size_t len);
int tombstone_proto_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err);
int tombstone_proto_parse_input(struct input *in, struct ev_file *out, struct ev_error *err);

int anr_sniff(const char *buf, size_t len);
int anr_parse(struct input *in, struct ev_file *out, struct ev_error *err);

int eventlog_sniff(const char *buf, size_t len);
int eventlog_parse(struct input *in, struct ev_file *out, struct ev_error *err);

int logcat_sniff(const char *buf, size_t len);
int logcat_parse(struct input *in, struct ev_file *out, struct ev_error *err);

/* The kind of the content of in, from its first bytes (INPUT_HEAD_BYTES):
 * ring magic first, then each sniffer in an order that puts the more
 * specific formats first. First bytes that are all zero are read to the
 * end, to tell a blank ring (all zero, of a ring's size) from nothing
 * known. Returns the kind, or EV_KIND_UNKNOWN with in->failed set when a
 * read failed. */
enum ev_kind ev_detect(struct input *in);

/* ev_detect() of the file named name: an empty file (0 bytes) named as
 * rings are (".lwr", lastwords-ring(5)) is a ring, never initialized, with
 * room for no slot (ring_file_open()); any other empty file is nothing
 * known. */
enum ev_kind ev_detect_named(struct input *in, const char *name);

/* Parse in as kind (not ring, not unknown), from its first byte. */
int ev_parse(enum ev_kind kind, struct input *in, struct ev_file *out, struct ev_error *err);

#endif
