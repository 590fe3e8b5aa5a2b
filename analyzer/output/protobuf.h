/*
 * A protobuf encoder, the wire format only (protobuf.dev, "Encoding"), the
 * way Perfetto's protozero writes: fields are appended to one growing
 * buffer; a nested message reserves its length as a 4-byte varint and
 * back-patches it when the message ends, so that nothing is built twice.
 * It is ours rather than protobuf-c or libprotobuf-lite: the trace needs
 * a few field types and no parsing, generated code or schema at run time,
 * and the analyzer gains no dependency (perfetto.c is its one user).
 * Never prints.
 */
#ifndef LW_ANALYZER_PROTOBUF_H
#define LW_ANALYZER_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

/* The largest message whose length fits the reserved 4-byte varint. */
#define PB_MESSAGE_MAX ((1u << 28) - 1)

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int error; /* 0, or the first failure: -ENOMEM, -EMSGSIZE (a message past PB_MESSAGE_MAX) */
};

/* An empty buffer. Release with pb_release(); accepts a zeroed one. */
void pb_init(struct pb *p);
void pb_release(struct pb *p);

/* Empty the buffer for the next message, keeping its memory and its error. */
void pb_clear(struct pb *p);

/* A field: varint (uint32, uint64, bool, enum), int64 or int32 (two's
 * complement, ten bytes when negative), double (fixed 64 bits), string.
 * A string is written as valid UTF-8, as protobuf strings must be: a
 * byte that is not part of well-formed UTF-8 (or a NUL the readers kept)
 * becomes U+FFFD; NULL writes nothing. On failure p->error is set and
 * later calls do nothing. Context: allocates; no blocking. */
void pb_varint(struct pb *p, uint32_t field, uint64_t v);
void pb_int64(struct pb *p, uint32_t field, int64_t v);
void pb_double(struct pb *p, uint32_t field, double v);
void pb_string(struct pb *p, uint32_t field, const char *s);

/* Begin a nested message (or a packet of a stream: its length-delimited
 * field); returns the mark that pb_end() takes, which closes it. Messages
 * nest like a stack. */
size_t pb_begin(struct pb *p, uint32_t field);
void pb_end(struct pb *p, size_t mark);

#endif
