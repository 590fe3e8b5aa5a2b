/*
 * Reading an input file whole, gunzipping it when it is gzip data (anr_*.gz
 * traces, compressed logs), so every parser sees plain bytes. Never prints.
 */
#ifndef LW_ANALYZER_INPUT_H
#define LW_ANALYZER_INPUT_H

#include <stddef.h>
#include <sys/stat.h>

#include "evidence.h"

#define INPUT_MAX_BYTES ((size_t)1 << 31) /* 2 GiB, after decompression */

struct input {
	char *data;     /* len bytes, plus a NUL after them */
	size_t len;
	int gzipped;
};

/* Read path into *in. Returns 0, or -1 with err->reason set ("No such file
 * or directory", "gzip data is corrupt: ...", "not a regular file: a
 * FIFO"). Only a regular file is read: it is opened without waiting (a FIFO
 * would block) and refused unless fstat says it is one. Free with
 * input_release(). */
int input_read(const char *path, struct input *in, struct ev_error *err);

/* NULL for a regular file; else what the file is ("a directory", "a FIFO",
 * "a socket", "a character device", ...), from its st_mode. */
const char *input_not_regular(mode_t mode);

/* Open path for reading if it is a regular file: checked before it is
 * opened (opening a device may do something), and again with fstat after
 * an open that does not block (O_NONBLOCK, cleared again). Returns the
 * descriptor with *sb filled, or -errno with err->reason set: -EISDIR for
 * a directory, -EINVAL ("not a regular file: a FIFO") for any other file
 * that is not regular, else the failing call's errno and strerror's text. */
int input_open(const char *path, struct stat *sb, struct ev_error *err);

/* Accepts a zeroed struct. */
void input_release(struct input *in);

#endif
