/*
 * A strict, streaming JSON reader that fails exactly where and how Python
 * 3.11 fails on `json.loads(Path(p).read_text(encoding="utf-8"))`, for the
 * seed's events file (seed-report.c). It is a pull parser: each call of
 * sjson_next() returns the next token, with bounded memory whatever the
 * file's size.
 *
 * What it reproduces, in the order Python applies it:
 *  1. the whole file is decoded as UTF-8 first: the first invalid sequence
 *     anywhere wins over every later error, with the codec's byte positions
 *     and reason ("invalid start byte", "invalid continuation byte",
 *     "unexpected end of data");
 *  2. a leading U+FEFF is refused ("Unexpected UTF-8 BOM");
 *  3. the C scanner of the json module: its messages, and their positions
 *     counted in characters of the text after universal-newline
 *     translation ("\r\n" and "\r" read as one "\n"), as "line L column C
 *     (char N)"; NaN, Infinity and -Infinity are floats; 1 is an int and
 *     1.0 or 1e3 a float, by lexical form; ints keep their exact digits;
 *  4. the interpreter's limits as the script meets them: nesting deeper
 *     than SJSON_MAX_DEPTH raises RecursionError (the default recursion
 *     limit of 1000 less the script's frames), and an int of more than
 *     SJSON_INT_DIGITS digits raises ValueError (sys.int_max_str_digits;
 *     PYTHONINTMAXSTRDIGITS is not consulted).
 *
 * Strings are decoded only as far as a caller can compare them with short
 * ASCII names: see struct sjson_str.
 */
#ifndef LW_ANALYZER_SEED_JSON_H
#define LW_ANALYZER_SEED_JSON_H

#include <stddef.h>
#include <stdint.h>

#define SJSON_MAX_DEPTH 995     /* containers open at once */
#define SJSON_INT_DIGITS 4300   /* digits of an int literal, sign not counted */
#define SJSON_STR_CAP 32        /* decoded bytes kept of a string */

enum sjson_tok {
	SJSON_END,        /* the document ended well; sticky */
	SJSON_ERROR,      /* see sjson_error_line(); sticky */
	SJSON_ARRAY,
	SJSON_ARRAY_END,
	SJSON_OBJECT,
	SJSON_OBJECT_END,
	SJSON_KEY,        /* str holds the key */
	SJSON_STRING,     /* str holds the value */
	SJSON_INT,        /* num holds the value */
	SJSON_FLOAT,      /* a float literal, NaN, Infinity or -Infinity */
	SJSON_TRUE,
	SJSON_FALSE,
	SJSON_NULL,
};

/* A decoded string. exact: every character is ASCII and len <= SJSON_STR_CAP,
 * so s[0..len) is the whole string (it may contain NUL from \u0000 and is
 * not NUL-terminated); otherwise the string equals no ASCII name. */
struct sjson_str {
	size_t len;
	int exact;
	char s[SJSON_STR_CAP];
};

/* An int: its digits without leading zeros ("0" for zero), and neg only
 * for a nonzero value (-0 is 0). */
struct sjson_int {
	int neg;
	size_t ndigits;
	char digits[SJSON_INT_DIGITS];
};

enum sjson_err {
	SJSON_ERR_NONE,
	SJSON_ERR_DECODE,     /* json.decoder.JSONDecodeError */
	SJSON_ERR_RECURSION,  /* RecursionError */
	SJSON_ERR_INT_DIGITS, /* ValueError from int() */
	SJSON_ERR_UTF8,       /* UnicodeDecodeError */
	SJSON_ERR_READ,       /* OSError from read() */
	SJSON_ERR_NOMEM,      /* MemoryError */
};

struct sjson {
	/* Valid after the token that names them, until the next call. */
	struct sjson_str str;
	struct sjson_int num;
	int depth;             /* containers open */
	enum sjson_err err;    /* set once sjson_next() returned SJSON_ERROR */

	/* The rest is private. */
	int fd;
	unsigned char *buf;
	size_t cap, pos, len;  /* buf[pos..len) not yet parsed */
	size_t vpos;           /* buf[vpos..len) not yet checked as UTF-8 */
	uint64_t base;         /* file offset of buf[0] */
	int eof;
	int state;
	enum sjson_tok last;   /* the sticky token once done */
	const char *msg;       /* JSONDecodeError message */
	uint64_t err_off;      /* its byte offset; the UTF-8 error's start */
	uint64_t err_end;      /* the UTF-8 error's end (exclusive) */
	uint64_t err_count;    /* int digits */
	int err_errno;
	int err_object;        /* RecursionError: in an object, not an array */
	unsigned char err_byte;
	const char *u8_reason;
	unsigned char kinds[SJSON_MAX_DEPTH];
};

/* A reader of the bytes of fd, from its current offset to its end. fd must
 * be a regular file (error positions are found again with pread()) and
 * stays the caller's, open until sjson_free(). Returns NULL when out of
 * memory. Free with sjson_free().
 * Context: not signal-safe; allocates; may block (reads fd). */
struct sjson *sjson_open(int fd);

/* Accepts NULL. Does not close the fd. */
void sjson_free(struct sjson *j);

/* The next token. After the top value it reads to the end of the file and
 * returns SJSON_END, or SJSON_ERROR for extra data. On SJSON_ERROR it has
 * read the rest of the file, since an invalid UTF-8 sequence anywhere
 * takes precedence over a JSON error.
 * Context: not signal-safe; no allocation; may block (reads fd). */
enum sjson_tok sjson_next(struct sjson *j);

/* After SJSON_ARRAY or SJSON_OBJECT: read to the end of that container.
 * Returns 0, or -1 when the reader failed (SJSON_ERROR).
 * Context: as sjson_next(). */
int sjson_skip(struct sjson *j);

/* The last line of the traceback Python prints for the error, such as
 * "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
 * into buf (truncated to size, NUL-terminated). Returns 0, or -errno when
 * the file could not be read again to place a JSONDecodeError.
 * Context: not signal-safe; no allocation; may block (reads fd). */
int sjson_error_line(struct sjson *j, char *buf, size_t size);

/* Python's OSError subclass for errno e ("FileNotFoundError", "OSError"...).
 * Context: signal-safe; no allocation; no blocking. */
const char *sjson_oserror_name(int e);

/* The UTF-8 sequence at s[0..n), judged as CPython's decoder judges it.
 * Returns its length (1 to 4) when valid; 0 when it is a valid prefix cut
 * by the end of s and more bytes may follow (final = 0); or -1 when
 * invalid, with *bad the number of bytes the decoder reports and *reason
 * its words. With final set a cut sequence is invalid ("unexpected end of
 * data", *bad = n).
 * Context: signal-safe; no allocation; no blocking. */
int sjson_utf8_seq(const unsigned char *s, size_t n, int final, size_t *bad,
		   const char **reason);

#endif
