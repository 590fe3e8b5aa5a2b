/* The protobuf wire format, written (varints, fixed 64-bit values and
 * length-delimited fields with back-patched lengths) and read. */
#include "protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The reserved length of a nested message: a varint padded to 4 bytes
 * (0x80 continuation bits on the first three), as protozero does. */
#define PB_LEN_BYTES 4

void pb_init(struct pb *p)
{
	memset(p, 0, sizeof(*p));
}

void pb_release(struct pb *p)
{
	if (!p)
		return;
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

void pb_clear(struct pb *p)
{
	p->len = 0;
}

/* Room for n more bytes: 1, or 0 with p->error set. */
static int room(struct pb *p, size_t n)
{
	size_t cap;
	uint8_t *nb;

	if (p->error)
		return 0;
	if (p->cap - p->len >= n)
		return 1;
	cap = p->cap ? p->cap : 256;
	while (cap - p->len < n)
		cap *= 2;
	nb = realloc(p->buf, cap);
	if (!nb) {
		p->error = -ENOMEM;
		return 0;
	}
	p->buf = nb;
	p->cap = cap;
	return 1;
}

static void put_varint(struct pb *p, uint64_t v)
{
	if (!room(p, 10))
		return;
	while (v >= 0x80) {
		p->buf[p->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->buf[p->len++] = (uint8_t)v;
}

static void put_tag(struct pb *p, uint32_t field, unsigned wire)
{
	put_varint(p, (uint64_t)field << 3 | wire);
}

void pb_varint(struct pb *p, uint32_t field, uint64_t v)
{
	put_tag(p, field, PB_VARINT);
	put_varint(p, v);
}

void pb_int64(struct pb *p, uint32_t field, int64_t v)
{
	pb_varint(p, field, (uint64_t)v);
}

void pb_double(struct pb *p, uint32_t field, double v)
{
	uint64_t bits;
	int i;

	memcpy(&bits, &v, sizeof(bits));
	put_tag(p, field, PB_I64);
	if (!room(p, 8))
		return;
	for (i = 0; i < 8; i++)
		p->buf[p->len++] = (uint8_t)(bits >> (8 * i));
}

void pb_bytes(struct pb *p, uint32_t field, const void *s, size_t n)
{
	put_tag(p, field, PB_LEN);
	put_varint(p, n);
	if (room(p, n)) {
		memcpy(p->buf + p->len, s, n);
		p->len += n;
	}
}

size_t pb_begin(struct pb *p, uint32_t field)
{
	size_t mark;

	put_tag(p, field, PB_LEN);
	if (!room(p, PB_LEN_BYTES))
		return 0;
	mark = p->len;
	p->len += PB_LEN_BYTES;
	return mark;
}

void pb_end(struct pb *p, size_t mark)
{
	size_t n, i;

	if (p->error)
		return;
	n = p->len - mark - PB_LEN_BYTES;
	if (n > PB_MESSAGE_MAX) {
		p->error = -EMSGSIZE;
		return;
	}
	for (i = 0; i < PB_LEN_BYTES; i++)
		p->buf[mark + i] = (uint8_t)((n >> (7 * i) & 0x7f) | (i + 1 < PB_LEN_BYTES ? 0x80 : 0));
}

/* --- reading ------------------------------------------------------------ */

int pb_read_varint(struct pb_reader *r, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* n little-endian bytes at r->p into *v. */
static int read_fixed(struct pb_reader *r, unsigned n, uint64_t *v)
{
	unsigned i;

	if ((size_t)(r->end - r->p) < n)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return 0;
}

int pb_read_field(struct pb_reader *r, struct pb_field *f)
{
	uint64_t key;

	if (r->p >= r->end)
		return 0;
	if (pb_read_varint(r, &key) != 0 || key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return -1;
	f->number = (uint32_t)(key >> 3);
	f->wire = (enum pb_wire)(key & 7);
	f->data = NULL;
	switch (key & 7) {
	case PB_VARINT:
		return pb_read_varint(r, &f->v) == 0 ? 1 : -1;
	case PB_I64:
		return read_fixed(r, 8, &f->v) == 0 ? 1 : -1;
	case PB_I32:
		return read_fixed(r, 4, &f->v) == 0 ? 1 : -1;
	case PB_LEN:
		if (pb_read_varint(r, &f->v) != 0 || f->v > (uint64_t)(r->end - r->p))
			return -1;
		f->data = r->p;
		r->p += f->v;
		return 1;
	default:
		return -1;
	}
}
