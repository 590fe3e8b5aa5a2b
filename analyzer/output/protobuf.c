/* The protobuf wire format: varints, fixed 64-bit values and
 * length-delimited fields with back-patched lengths. */
#include "protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../evidence/text.h"

/* Wire types. */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

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

void pb_string(struct pb *p, uint32_t field, const char *s)
{
	char *clean = NULL;
	size_t n;

	if (!s || p->error)
		return;
	if (!text_utf8_valid(s) && !(s = clean = text_utf8_clean(s, "\xef\xbf\xbd"))) {
		p->error = -ENOMEM;
		return;
	}
	n = strlen(s);
	put_tag(p, field, PB_LEN);
	put_varint(p, n);
	if (room(p, n)) {
		memcpy(p->buf + p->len, s, n);
		p->len += n;
	}
	free(clean);
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
