/*
 * The protobuf wire format (src/protobuf.c), written and read back: every
 * field type at its edges (varints of 1 to 10 bytes, a negative int64, a
 * double, bytes, nested messages with their back-patched 4-byte lengths),
 * each read as it was written; and the reader's refusals of bytes that
 * are no field: a varint cut short or past ten bytes, a length past the
 * end, field number 0, groups and the unused wire types.
 */
#include <float.h>
#include <math.h>

#include "../src/protobuf.h"
#include "helpers.h"

/* What pb_read_field() gives for n bytes. */
static int read_one(const uint8_t *b, size_t n, struct pb_field *f)
{
	struct pb_reader r = { b, b + n };

	return pb_read_field(&r, f);
}

static void round_trip(void)
{
	static const uint64_t varints[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
					    (uint64_t)1 << 63, UINT64_MAX };
	struct pb p;
	struct pb_reader r;
	struct pb_field f;
	size_t i, outer, inner;
	double d;

	pb_init(&p);
	for (i = 0; i < sizeof(varints) / sizeof(varints[0]); i++)
		pb_varint(&p, (uint32_t)(i + 1), varints[i]);
	pb_int64(&p, 100, -1);
	pb_double(&p, 101, -DBL_MAX);
	pb_bytes(&p, 102, "lastwords", 9);
	outer = pb_begin(&p, 103);
	pb_varint(&p, 1, 42);
	inner = pb_begin(&p, 2);
	pb_bytes(&p, 3, "", 0);
	pb_end(&p, inner);
	pb_end(&p, outer);
	pb_varint(&p, (1u << 29) - 1, 7); /* the largest field number */
	T_ASSERT(p.error == 0, "written without error: %d", p.error);

	r.p = p.buf;
	r.end = p.buf + p.len;
	for (i = 0; i < sizeof(varints) / sizeof(varints[0]); i++) {
		T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == i + 1 && f.wire == PB_VARINT &&
				 f.v == varints[i],
			 "varint %zu: field %u wire %d value %llu", i, f.number, f.wire,
			 (unsigned long long)f.v);
	}
	T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == 100 && f.v == UINT64_MAX,
		 "int64 -1 reads as ten bytes of all ones");
	T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == 101 && f.wire == PB_I64, "double");
	memcpy(&d, &f.v, sizeof(d));
	T_ASSERT(d == -DBL_MAX, "double read back: %g", d);
	T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == 102 && f.wire == PB_LEN && f.v == 9 &&
			 memcmp(f.data, "lastwords", 9) == 0,
		 "bytes read back");
	T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == 103 && f.wire == PB_LEN,
		 "the outer message");
	{
		/* its back-patched length covers exactly what was written inside */
		struct pb_reader in = { f.data, f.data + f.v }, in2;
		struct pb_field g;

		T_ASSERT(pb_read_field(&in, &g) == 1 && g.number == 1 && g.v == 42, "inside: 42");
		T_ASSERT(pb_read_field(&in, &g) == 1 && g.number == 2 && g.wire == PB_LEN,
			 "the inner message");
		in2.p = g.data;
		in2.end = g.data + g.v;
		T_ASSERT(pb_read_field(&in2, &g) == 1 && g.number == 3 && g.v == 0,
			 "empty bytes inside the inner message");
		T_ASSERT(pb_read_field(&in2, &g) == 0, "the inner message ends there");
		T_ASSERT(pb_read_field(&in, &g) == 0, "the outer message ends there");
	}
	T_ASSERT(pb_read_field(&r, &f) == 1 && f.number == (1u << 29) - 1 && f.v == 7,
		 "the largest field number");
	T_ASSERT(pb_read_field(&r, &f) == 0 && r.p == r.end, "the end, once all is read");

	pb_clear(&p);
	T_ASSERT(p.len == 0 && p.error == 0, "cleared");
	pb_release(&p);
}

static void refusals(void)
{
	static const uint8_t cut_key[] = { 0x88 };
	static const uint8_t cut_value[] = { 0x08, 0x80, 0x80 };
	static const uint8_t eleven[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0x01 };
	static const uint8_t past_end[] = { 0x12, 0x05, 'a', 'b' };
	static const uint8_t field0[] = { 0x00, 0x01 };
	static const uint8_t group[] = { 0x0b, 0x0c };
	static const uint8_t wire6[] = { 0x0e, 0x00 };
	static const uint8_t cut_i64[] = { 0x09, 1, 2, 3 };
	static const uint8_t i32[] = { 0x0d, 1, 0, 0, 0 };
	struct pb_field f;
	struct pb_reader r;
	uint64_t v;

	T_ASSERT(read_one(cut_key, sizeof(cut_key), &f) == -1, "a key cut short");
	T_ASSERT(read_one(cut_value, sizeof(cut_value), &f) == -1, "a varint value cut short");
	T_ASSERT(read_one(eleven, sizeof(eleven), &f) == -1, "a varint of eleven bytes");
	T_ASSERT(read_one(past_end, sizeof(past_end), &f) == -1, "a length past the end");
	T_ASSERT(read_one(field0, sizeof(field0), &f) == -1, "field number 0");
	T_ASSERT(read_one(group, sizeof(group), &f) == -1, "a group (wire type 3)");
	T_ASSERT(read_one(wire6, sizeof(wire6), &f) == -1, "wire type 6");
	T_ASSERT(read_one(cut_i64, sizeof(cut_i64), &f) == -1, "a fixed 64-bit value cut short");
	T_ASSERT(read_one(i32, sizeof(i32), &f) == 1 && f.wire == PB_I32 && f.v == 1,
		 "a fixed 32-bit value is read");
	T_ASSERT(read_one(i32, 0, &f) == 0, "no bytes: the end, not an error");
	r.p = eleven + 1;
	r.end = eleven + 11; /* ten bytes, each with its continuation bit */
	T_ASSERT(pb_read_varint(&r, &v) == -1, "ten continued bytes are no varint");
}

int main(void)
{
	round_trip();
	refusals();
	printf("protobuf: writer and reader agree; 9 malformed inputs refused\n");
	return T_PASS;
}
