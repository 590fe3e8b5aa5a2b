/*
 * The protobuf wire format (protobuf.dev, "Encoding"), written and read:
 * the analyzer's one copy of it, below the evidence layer (libc only; not
 * in the probe). It is ours rather than protobuf-c or libprotobuf-lite: its
 * users need a few field types and no generated code or schema at run time,
 * and the analyzer gains no dependency.
 *
 * Writing, as Perfetto's protozero writes (output/perfetto.c): fields are
 * appended to one growing buffer; a nested message reserves its length as a
 * 4-byte varint and back-patches it when the message ends, so that nothing
 * is built twice.
 *
 * Reading (evidence/tombstone.c): one field at a time from untrusted bytes,
 * each checked against the end of the buffer; nothing is allocated.
 * Never prints.
 */
#ifndef LW_SRC_PROTOBUF_H
#define LW_SRC_PROTOBUF_H

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

/* Wire types. */
enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

/* A field: varint (uint32, uint64, bool, enum), int64 or int32 (two's
 * complement, ten bytes when negative), double (fixed 64 bits), bytes
 * (length-delimited: a string, whose n bytes the caller has made valid
 * UTF-8, as protobuf strings must be). On failure p->error is set and
 * later calls do nothing. Context: allocates; no blocking. */
void pb_varint(struct pb *p, uint32_t field, uint64_t v);
void pb_int64(struct pb *p, uint32_t field, int64_t v);
void pb_double(struct pb *p, uint32_t field, double v);
void pb_bytes(struct pb *p, uint32_t field, const void *s, size_t n);

/* Begin a nested message (or a packet of a stream: its length-delimited
 * field); returns the mark that pb_end() takes, which closes it. Messages
 * nest like a stack. */
size_t pb_begin(struct pb *p, uint32_t field);
void pb_end(struct pb *p, size_t mark);

/* A reader of the bytes [p, end). */
struct pb_reader {
	const uint8_t *p, *end;
};

/* One field as read: its number and wire type; a VARINT's, I64's or I32's
 * value in v (the fixed ones little-endian, as written); a LEN's bytes
 * (data, v of them, inside the reader's buffer). */
struct pb_field {
	uint32_t number;
	enum pb_wire wire;
	uint64_t v;
	const uint8_t *data;
};

/* A varint at r->p: 0 with *v and r->p past it, -1 when it is cut by the
 * end or runs past ten bytes (64 bits). */
int pb_read_varint(struct pb_reader *r, uint64_t *v);

/* The next field: 1 with *f and r->p past it, 0 at the end, -1 when the
 * bytes are no field: a cut varint or value, a length past the end, field
 * number 0 or above 2^29 - 1, or a wire type that is none of the four
 * (groups, 3 and 4, are refused too). Context: signal-safe; no allocation. */
int pb_read_field(struct pb_reader *r, struct pb_field *f);

#endif
