/*
 * Reading an input file as a stream: plain bytes, or gzip data (anr_*.gz
 * traces, compressed logs) inflated as it is read, through a buffer of a
 * fixed size, so that a file of any size takes the same memory. The
 * parsers read it line by line (the line-oriented formats) or whole up to
 * a cap (the JSON formats); content detection looks at its first bytes.
 * The same reader runs over bytes in memory (the fuzz harnesses, and the
 * sniffers over those first bytes), so the code that reads a file is the
 * code that is fuzzed, and over bytes that a function hands it as they
 * come (an entry of a zip archive as it is inflated, a section of a bug
 * report's text: input_init_source()). Never prints.
 *
 * Limits (lastwords(1), LIMITS):
 *  - A line longer than INPUT_LINE_MAX bytes is cut: its first
 *    INPUT_LINE_MAX bytes are read as the line, the rest is skipped, and
 *    the cut is counted (cut_lines, first_cut). Every text field is part of
 *    a line, so none is longer. Real lines are far shorter: logd's entries
 *    hold at most about 4 KiB, dumpsys lines a few hundred bytes.
 *  - The JSON formats are read whole, up to INPUT_JSON_MAX bytes; a larger
 *    file is refused with a reason that names the cap.
 *  - gzip data inflates to at most INPUT_GZIP_MAX bytes (a few kilobytes
 *    of gzip can expand without end); beyond, the file is refused.
 */
#ifndef LW_ANALYZER_INPUT_H
#define LW_ANALYZER_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "evidence.h"
#include "text.h"

#define INPUT_HEAD_BYTES ((size_t)64 << 10)   /* what content detection looks at */
#define INPUT_LINE_MAX ((size_t)64 << 10)     /* the longest line read whole */
#define INPUT_PEEK_LINES 2                    /* lines a parser may read ahead */
#define INPUT_JSON_MAX ((size_t)16 << 20)     /* the JSON formats, read whole */
#define INPUT_JSON_LIMIT "the limit for JSON, which is read whole"
#define INPUT_GZIP_MAX ((uint64_t)2 << 30)    /* plain bytes of gzip data */

struct z_stream_s;

/*
 * Bytes that come from elsewhere, as they are made. read() puts up to n
 * bytes at dst and returns how many, 0 at the end, or -1 with err->reason
 * set. rewind(), when not NULL, starts the bytes again from the first
 * (0, or -1 with err->reason set); without it, the input cannot be read
 * again (input_rewind() fails, saying so).
 *
 * Or lines, where they lie in another input (a section of a bug report's
 * text, not copied): line() instead of read() gives the next line, valid
 * until its next call, and returns 1, 0 at the end, or -1 with
 * err->reason set; peek() and peek_end() bracket a look ahead as
 * input_peek() and input_peek_end() do (the other input's). Such an input
 * has no first bytes to look at (input_head() gives none), no gzip, and
 * is read by lines: input_chunk() gives a line, input_whole() refuses.
 */
struct input_source {
	ssize_t (*read)(void *arg, char *dst, size_t n, struct ev_error *err);
	int (*rewind)(void *arg, struct ev_error *err);
	void *arg;
	int (*line)(void *arg, struct span *line, struct ev_error *err);
	void (*peek)(void *arg);
	void (*peek_end)(void *arg, int consume);
};

/* Called with every plain byte of the input, in order, once: from the
 * first read to the end, or to input_rewind(). */
typedef void (*input_tap_fn)(void *arg, const char *p, size_t n);

/* A stream of plain bytes. Its fields are the reader's own, but for those
 * documented as results. */
struct input {
	/* where the bytes come from */
	int file;                    /* fd is open, or src gives the bytes; else they are mem's */
	int fd;                      /* -1 with src */
	struct input_source src;
	uint64_t size;               /* the file's, when it was opened; UINT64_MAX with src */
	const char *mem;
	size_t mem_len;
	int started;                 /* the first bytes were looked at */
	struct z_stream_s *zs;       /* while inflating */
	const unsigned char *raw;    /* bytes read (or mem): raw[raw_pos, raw_end) not used yet */
	unsigned char *raw_own;
	size_t raw_cap, raw_pos, raw_end;
	uint64_t raw_read;           /* bytes read from the file */
	int raw_eof;
	int z_end;                   /* the last gzip member ended */
	uint64_t plain;              /* plain bytes produced */
	/* the plain bytes: buf[pos, end) are not read yet */
	char *buf;
	size_t cap, pos, end;
	int eof;                     /* no plain byte after end */
	int discard;                 /* the rest of a cut line is being dropped */
	size_t line_base;            /* input_number_from() */
	/* lookahead (input_peek); the lines read while peeking at src's
	 * lines, for the tap to see once they are kept */
	int peeking;
	size_t peek_pos, peek_lineno;
	struct span peeked[INPUT_PEEK_LINES];
	size_t npeeked;
	input_tap_fn tap;
	void *tap_arg;

	/* results */
	int gzipped;                 /* known once the first bytes are read */
	size_t lineno;               /* of the line last returned, 1-based */
	size_t cut_lines;            /* lines longer than INPUT_LINE_MAX */
	size_t first_cut;            /* the first such line's number, 0 if none */
	int failed;                  /* a read failed: err says why */
	struct ev_error err;
};

/*
 * Start reading path, a regular file (input_open() checks it). Nothing is
 * read yet. Returns 0, or -1 with err->reason set ("No such file or
 * directory", "not a regular file: a FIFO"). Release with input_release().
 * Allocates its buffers at the first read: about 1.2 MiB, or the file's
 * size when it is smaller and not gzip data.
 */
int input_init_file(struct input *in, const char *path, struct ev_error *err);

/* Read len bytes at buf, which must stay valid until input_release(), as a
 * file would be read (gzip data included). Never fails; a read may, on
 * ENOMEM. */
void input_init_mem(struct input *in, const char *buf, size_t len);

/* Read the bytes that src gives (see struct input_source), as a file would
 * be read (gzip data included). Nothing is read yet. Release with
 * input_release(), which leaves src's own state to its owner. */
void input_init_source(struct input *in, const struct input_source *src);

/* Count the lines from first_line on: the next line read is line
 * first_line + 1 (a section of a larger text, numbered as in the text).
 * Before the first read. */
void input_number_from(struct input *in, size_t first_line);

/* The lines read so far, counted from the first this input holds (after
 * input_number_from()'s first_line). */
size_t input_lines(const struct input *in);

/* Have fn see every plain byte (see input_tap_fn); before the first read.
 * fn NULL stops it: it sees no byte read from then on. */
void input_tap(struct input *in, input_tap_fn fn, void *arg);

/* The first bytes, up to INPUT_HEAD_BYTES, before any other read: *head
 * points into the buffer until the next read. 0, or -1 when the read
 * failed (in->err). */
int input_head(struct input *in, struct span *head);

/* The next line, without its "\n" or "\r\n", cut as described at the top;
 * *line is valid until the next call on in. Returns 1, 0 at the end, or -1
 * when the read failed (in->err). */
int input_line(struct input *in, struct span *line);

/* Lookahead: after input_peek(), up to INPUT_PEEK_LINES lines may be read
 * while the line last returned stays valid; input_peek_end() then keeps
 * them read (consume) or goes back to where input_peek() was called, so
 * that they are read again. */
void input_peek(struct input *in);
void input_peek_end(struct input *in, int consume);

/* The rest of the input, whole, in a heap copy with a NUL after its *len
 * bytes (free with free()). NULL, with err->reason set, when the read
 * failed (in->failed is then set) or the rest is longer than max: then
 * "larger than MAX, LIMIT", MAX in the unit that fits it (16 MiB, 64 KiB,
 * 100 bytes), LIMIT as given ("the limit for JSON, which is read whole"). */
char *input_whole(struct input *in, size_t max, const char *limit, size_t *len,
		  struct ev_error *err);

/* n bytes as people read a limit: "16 MiB", "64 KiB", "1.5 MiB", "100 bytes". */
void input_size_text(char *buf, size_t len, uint64_t n);

/* The next bytes, as they come, consumed: *chunk is valid until the next
 * call on in. Returns 1, 0 at the end, or -1 when the read failed. */
int input_chunk(struct input *in, struct span *chunk);

/* Read to the end (the tap sees every byte). 0, or -1 (in->err). */
int input_drain(struct input *in);

/* Read to the end (the tap sees every byte), then start again from the
 * first byte, without the tap; line numbers and cuts count afresh. 0, or
 * -1 (in->err): a read failed, or the source cannot be read again. */
int input_rewind(struct input *in);

/* -1, with *err set to the read's error. */
int input_error(const struct input *in, struct ev_error *err);

/* Fail the input as a read that failed would, for reason (a reader of its
 * lines that could not keep one). Returns -1. */
int input_fail(struct input *in, const char *reason);

/* Accepts a zeroed struct. */
void input_release(struct input *in);

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

#endif
