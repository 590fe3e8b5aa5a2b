/* One hexadecimal digit's value, shared by every parser of hex text. */
#ifndef LW_SRC_HEX_H
#define LW_SRC_HEX_H

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

#endif
