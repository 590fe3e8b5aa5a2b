/* Hexadecimal text, read and written: the one home of both, shared by the
 * probe and every parser and writer of hex text. */
#ifndef LW_SRC_HEX_H
#define LW_SRC_HEX_H

#include <stddef.h>

/* 0..15 for [0-9a-fA-F], -1 otherwise. Context: signal-safe. */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n bytes of in as 2n lowercase hex digits at out (no NUL). Context:
 * signal-safe. */
static inline void hex_encode(char *out, const unsigned char *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
}

#endif
