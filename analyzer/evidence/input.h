/*
 * Reading an input file whole, gunzipping it when it is gzip data (anr_*.gz
 * traces, compressed logs), so every parser sees plain bytes. Never prints.
 */
#ifndef LW_ANALYZER_INPUT_H
#define LW_ANALYZER_INPUT_H

#include <stddef.h>

#include "evidence.h"

#define INPUT_MAX_BYTES ((size_t)1 << 31) /* 2 GiB, after decompression */

struct input {
	char *data;     /* len bytes, plus a NUL after them */
	size_t len;
	int gzipped;
};

/* Read path into *in. Returns 0, or -1 with err->reason set ("No such file
 * or directory", "gzip data is corrupt: ..."). Free with input_release(). */
int input_read(const char *path, struct input *in, struct ev_error *err);

/* Accepts a zeroed struct. */
void input_release(struct input *in);

#endif
