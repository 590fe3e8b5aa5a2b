/*
 * The seed's JSON, read as Python 3.11 reads it (seed-json.h).
 *
 * Layout: a window of the file in buf, refilled by sj_fill(), which also
 * checks each byte read as UTF-8 (sj_validate()) before the parser can act
 * on a later error. The parser follows Modules/_json.c of CPython 3.11:
 * scan_once_unicode() is sj_value(), _parse_object_unicode() and
 * _parse_array_unicode() are the states of sjson_next(), scanstring_unicode()
 * is sj_string() and _match_number_unicode() is sj_number(). It needs at
 * most 9 bytes beyond the current one, and keeps nothing of a
 * token beyond struct sjson_str and struct sjson_int.
 *
 * Positions: Python counts characters of the decoded text after newline
 * translation. The parser records byte offsets instead, and
 * sjson_error_line() converts the one it reports by reading the file again
 * up to it: none of the scanner's error positions falls between the "\r" and
 * "\n" of a pair, so each byte offset maps to one character index.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seed-json.h"

#include "../../src/hex.h"

#define SJ_BUF_SIZE ((size_t)256 << 10)

enum sj_state {
	SJ_ST_START,
	SJ_ST_ARRAY_FIRST, /* after '[' */
	SJ_ST_ARRAY_NEXT,  /* after an element */
	SJ_ST_OBJECT_FIRST,
	SJ_ST_OBJECT_NEXT,
	SJ_ST_COLON,       /* after a key */
	SJ_ST_TOP_DONE,    /* after the top value */
	SJ_ST_DONE,
};

enum { SJ_IN_ARRAY, SJ_IN_OBJECT };

static int is_cont(unsigned char c)
{
	return c >= 0x80 && c < 0xc0;
}

/* CPython's Objects/stringlib/codecs.h utf8_decode() and the error ranges
 * unicode_decode_utf8() gives them. */
int sjson_utf8_seq(const unsigned char *s, size_t n, int final, size_t *bad,
		   const char **reason)
{
	unsigned char c = s[0];
	size_t need;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		goto invalid_start;
	if (c < 0xe0) {
		need = 2;
		if (n < 2)
			goto cut;
		if (!is_cont(s[1]))
			goto invalid_cont1;
		return 2;
	}
	if (c < 0xf0) {
		need = 3;
		if (n >= 2 && (!is_cont(s[1]) || (s[1] < 0xa0 ? c == 0xe0 : c == 0xed)))
			goto invalid_cont1;
		if (n < 3)
			goto cut;
		if (!is_cont(s[2]))
			goto invalid_cont2;
		return 3;
	}
	if (c < 0xf5) {
		need = 4;
		if (n >= 2 && (!is_cont(s[1]) || (s[1] < 0x90 ? c == 0xf0 : c == 0xf4)))
			goto invalid_cont1;
		if (n >= 3 && !is_cont(s[2]))
			goto invalid_cont2;
		if (n < 4)
			goto cut;
		if (!is_cont(s[3]))
			goto invalid_cont3;
		return 4;
	}
invalid_start:
	*bad = 1;
	*reason = "invalid start byte";
	return -1;
invalid_cont1:
	*bad = 1;
	*reason = "invalid continuation byte";
	return -1;
invalid_cont2:
	*bad = 2;
	*reason = "invalid continuation byte";
	return -1;
invalid_cont3:
	*bad = 3;
	*reason = "invalid continuation byte";
	return -1;
cut:
	(void)need;
	if (!final)
		return 0;
	*bad = n;
	*reason = "unexpected end of data";
	return -1;
}

/* Check buf[vpos..len) as UTF-8. An invalid sequence ends the input: the
 * parser then sees the end of the file, and the error takes precedence. */
static void sj_validate(struct sjson *j)
{
	const unsigned char *s = j->buf + j->vpos, *end = j->buf + j->len;

	while (s < end) {
		size_t bad;
		const char *reason;
		int n;

		while (end - s >= 8) {
			uint64_t w;

			memcpy(&w, s, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
			s += 8;
		}
		if (s == end)
			break;
		if (*s < 0x80) {
			s++;
			continue;
		}
		n = sjson_utf8_seq(s, (size_t)(end - s), j->eof, &bad, &reason);
		if (n > 0) {
			s += n;
			continue;
		}
		if (n == 0)
			break;
		if (j->err != SJSON_ERR_READ) {
			j->err = SJSON_ERR_UTF8;
			j->err_off = j->base + (uint64_t)(s - j->buf);
			j->err_end = j->err_off + bad;
			j->err_byte = *s;
			j->u8_reason = reason;
		}
		j->len = j->pos;
		j->vpos = j->pos;
		j->eof = 1;
		return;
	}
	j->vpos = (size_t)(s - j->buf);
}

/* Make want bytes available at pos unless the file ends first; returns how
 * many are. */
static size_t sj_fill(struct sjson *j, size_t want)
{
	size_t keep;

	if (j->eof || j->len - j->pos >= want)
		return j->len - j->pos;
	/* Keep what is not parsed, and a UTF-8 sequence cut by the last read
	 * (at most 3 bytes: vpos >= len - 3). */
	keep = j->pos < j->vpos ? j->pos : j->vpos;
	memmove(j->buf, j->buf + keep, j->len - keep);
	j->base += keep;
	j->pos -= keep;
	j->vpos -= keep;
	j->len -= keep;
	while (!j->eof && j->len - j->pos < want) {
		ssize_t n = read(j->fd, j->buf + j->len, j->cap - j->len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			j->err = SJSON_ERR_READ;
			j->err_errno = errno;
			j->len = j->pos;
			j->vpos = j->pos;
			j->eof = 1;
			break;
		}
		if (n == 0)
			j->eof = 1;
		j->len += (size_t)n;
		sj_validate(j);
	}
	return j->len - j->pos;
}

/* The byte at pos + i, or -1 past the end. */
static inline int sj_byte(struct sjson *j, size_t i)
{
	if (j->len - j->pos <= i && sj_fill(j, i + 1) <= i)
		return -1;
	return j->buf[j->pos + i];
}

static inline uint64_t sj_off(const struct sjson *j)
{
	return j->base + j->pos;
}

static inline int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline void sj_skip_ws(struct sjson *j)
{
	if (j->pos < j->len && j->buf[j->pos] > ' ')
		return;
	for (;;) {
		while (j->pos < j->len) {
			unsigned char c = j->buf[j->pos];

			if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
				return;
			j->pos++;
		}
		if (sj_fill(j, 1) == 0)
			return;
	}
}

/* End of input for the parser: read the rest, so that a UTF-8 error later
 * in the file wins; tok is END or ERROR. */
static enum sjson_tok sj_finish(struct sjson *j, enum sjson_tok tok)
{
	while (!j->eof) {
		j->pos = j->len;
		sj_fill(j, 1);
	}
	if (j->err == SJSON_ERR_UTF8 || j->err == SJSON_ERR_READ)
		tok = SJSON_ERROR;
	j->state = SJ_ST_DONE;
	j->last = tok;
	return tok;
}

static enum sjson_tok sj_fail(struct sjson *j, enum sjson_err err, uint64_t off, const char *msg)
{
	/* A UTF-8 or read error already found stays the one reported. */
	if (j->err == SJSON_ERR_NONE) {
		j->err = err;
		j->err_off = off;
		j->msg = msg;
	}
	return sj_finish(j, SJSON_ERROR);
}

static enum sjson_tok sj_decode_error(struct sjson *j, const char *msg, uint64_t off)
{
	return sj_fail(j, SJSON_ERR_DECODE, off, msg);
}

static enum sjson_tok sj_after_value(struct sjson *j, enum sjson_tok tok)
{
	if (j->depth == 0)
		j->state = SJ_ST_TOP_DONE;
	else if (j->kinds[j->depth - 1] == SJ_IN_ARRAY)
		j->state = SJ_ST_ARRAY_NEXT;
	else
		j->state = SJ_ST_OBJECT_NEXT;
	return tok;
}

static enum sjson_tok sj_open_container(struct sjson *j, int kind)
{
	if (j->depth >= SJSON_MAX_DEPTH) {
		j->err_object = kind == SJ_IN_OBJECT;
		return sj_fail(j, SJSON_ERR_RECURSION, sj_off(j), NULL);
	}
	j->pos++;
	j->kinds[j->depth++] = (unsigned char)kind;
	if (kind == SJ_IN_ARRAY) {
		j->state = SJ_ST_ARRAY_FIRST;
		return SJSON_ARRAY;
	}
	j->state = SJ_ST_OBJECT_FIRST;
	return SJSON_OBJECT;
}

static enum sjson_tok sj_close_container(struct sjson *j, enum sjson_tok tok)
{
	j->pos++;
	j->depth--;
	return sj_after_value(j, tok);
}

static inline void sj_str_put(struct sjson *j, unsigned c)
{
	if (c >= 0x80 || j->str.len == SJSON_STR_CAP)
		j->str.exact = 0;
	else if (j->str.exact)
		j->str.s[j->str.len++] = (char)c;
}

/* Append n raw bytes of a string (no quote, backslash or control among
 * them). */
static inline void sj_str_append(struct sjson *j, const unsigned char *p, size_t n)
{
	size_t i;

	if (!j->str.exact)
		return;
	if (n > SJSON_STR_CAP - j->str.len) {
		j->str.exact = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x80) {
			j->str.exact = 0;
			return;
		}
		j->str.s[j->str.len + i] = (char)p[i];
	}
	j->str.len += n;
}

/* What ends a run of plain characters in a string. */
static const unsigned char string_stop[256] = {
	[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
	[0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
	[0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
	[0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
	[0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

/* A string at the opening quote: scanstring_unicode() with strict=True.
 * Surrogate pairs need no joining here: a pair never decodes to ASCII, and
 * the scanner reports a bad second escape at the same place whether it
 * tried it as the pair's second half or on its own. */
static enum sjson_tok sj_string(struct sjson *j, enum sjson_tok tok)
{
	uint64_t begin = sj_off(j);

	j->str.len = 0;
	j->str.exact = 1;
	j->pos++;
	for (;;) {
		const unsigned char *p = j->buf + j->pos, *q = p, *end = j->buf + j->len;
		unsigned c;
		int c1, i, v;

		/* The run of plain characters, then what ends it. */
		while (q < end && !string_stop[*q])
			q++;
		sj_str_append(j, p, (size_t)(q - p));
		j->pos += (size_t)(q - p);
		if (q == end) {
			if (sj_fill(j, 1) == 0)
				return sj_decode_error(j, "Unterminated string starting at", begin);
			continue;
		}
		c = *q;
		if (c == '"') {
			j->pos++;
			break;
		}
		if (c != '\\')
			return sj_decode_error(j, "Invalid control character at", sj_off(j));
		c1 = sj_byte(j, 1);
		switch (c1) {
		case -1:
			return sj_decode_error(j, "Unterminated string starting at", begin);
		case '"':
		case '\\':
		case '/':
			sj_str_put(j, (unsigned)c1);
			break;
		case 'b':
			sj_str_put(j, '\b');
			break;
		case 'f':
			sj_str_put(j, '\f');
			break;
		case 'n':
			sj_str_put(j, '\n');
			break;
		case 'r':
			sj_str_put(j, '\r');
			break;
		case 't':
			sj_str_put(j, '\t');
			break;
		case 'u':
			/* Four hex digits, and the text must go on after them. */
			v = 0;
			for (i = 2; i < 6; i++) {
				int h = hex_digit(sj_byte(j, (size_t)i));

				if (h < 0)
					break;
				v = v << 4 | h;
			}
			if (i < 6 || sj_byte(j, 6) < 0)
				return sj_decode_error(j, "Invalid \\uXXXX escape", sj_off(j) + 1);
			sj_str_put(j, (unsigned)v);
			j->pos += 6;
			continue;
		default:
			return sj_decode_error(j, "Invalid \\escape", sj_off(j));
		}
		j->pos += 2;
	}
	if (tok == SJSON_KEY) {
		j->state = SJ_ST_COLON;
		return tok;
	}
	return sj_after_value(j, tok);
}

/* Digits from pos on; the first max of them go to to (if not NULL).
 * Returns how many there were. */
static size_t sj_digits(struct sjson *j, char *to, size_t have, size_t max)
{
	size_t n = have;

	for (;;) {
		const unsigned char *p = j->buf + j->pos, *q = p, *end = j->buf + j->len;
		size_t run;

		while (q < end && is_digit(*q))
			q++;
		run = (size_t)(q - p);
		if (to && n < max)
			memcpy(to + n, p, run < max - n ? run : max - n);
		n += run;
		j->pos += run;
		if (q < end || sj_fill(j, 1) == 0)
			return n;
	}
}

/* _match_number_unicode(): an int keeps its digits, a float only its kind. */
static enum sjson_tok sj_number(struct sjson *j)
{
	uint64_t start = sj_off(j);
	int c = sj_byte(j, 0), is_float = 0;
	size_t n;

	j->num.neg = 0;
	if (c == '-') {
		j->num.neg = 1;
		j->pos++;
		c = sj_byte(j, 0);
	}
	if (c >= '1' && c <= '9') {
		n = sj_digits(j, j->num.digits, 0, SJSON_INT_DIGITS);
	} else if (c == '0') {
		j->num.digits[0] = '0';
		n = 1;
		j->pos++;
	} else {
		return sj_decode_error(j, "Expecting value", start);
	}
	if (sj_byte(j, 0) == '.' && is_digit(sj_byte(j, 1))) {
		is_float = 1;
		j->pos += 2;
		sj_digits(j, NULL, 0, 0);
	}
	c = sj_byte(j, 0);
	if (c == 'e' || c == 'E') {
		size_t k = 1;

		c = sj_byte(j, 1);
		if (c == '+' || c == '-')
			k = 2;
		if (is_digit(sj_byte(j, k))) {
			is_float = 1;
			j->pos += k;
			sj_digits(j, NULL, 0, 0);
		}
	}
	if (is_float)
		return sj_after_value(j, SJSON_FLOAT);
	if (n > SJSON_INT_DIGITS) {
		j->err_count = n;
		return sj_fail(j, SJSON_ERR_INT_DIGITS, start, NULL);
	}
	j->num.ndigits = n;
	if (n == 1 && j->num.digits[0] == '0')
		j->num.neg = 0;
	return sj_after_value(j, SJSON_INT);
}

static int sj_literal(struct sjson *j, const char *lit, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sj_byte(j, i) != (unsigned char)lit[i])
			return 0;
	j->pos += n;
	return 1;
}

/* scan_once_unicode(): one value of any kind at pos. */
static enum sjson_tok sj_value(struct sjson *j)
{
	switch (sj_byte(j, 0)) {
	case -1:
		return sj_decode_error(j, "Expecting value", sj_off(j));
	case '"':
		return sj_string(j, SJSON_STRING);
	case '{':
		return sj_open_container(j, SJ_IN_OBJECT);
	case '[':
		return sj_open_container(j, SJ_IN_ARRAY);
	case 'n':
		if (sj_literal(j, "null", 4))
			return sj_after_value(j, SJSON_NULL);
		break;
	case 't':
		if (sj_literal(j, "true", 4))
			return sj_after_value(j, SJSON_TRUE);
		break;
	case 'f':
		if (sj_literal(j, "false", 5))
			return sj_after_value(j, SJSON_FALSE);
		break;
	case 'N':
		if (sj_literal(j, "NaN", 3))
			return sj_after_value(j, SJSON_FLOAT);
		break;
	case 'I':
		if (sj_literal(j, "Infinity", 8))
			return sj_after_value(j, SJSON_FLOAT);
		break;
	case '-':
		if (sj_literal(j, "-Infinity", 9))
			return sj_after_value(j, SJSON_FLOAT);
		break;
	}
	return sj_number(j);
}

static enum sjson_tok sj_key(struct sjson *j)
{
	if (sj_byte(j, 0) != '"')
		return sj_decode_error(j, "Expecting property name enclosed in double quotes",
				       sj_off(j));
	return sj_string(j, SJSON_KEY);
}

enum sjson_tok sjson_next(struct sjson *j)
{
	int c;

	switch (j->state) {
	case SJ_ST_START:
		/* json.loads() refuses a str that starts with U+FEFF. */
		if (sj_byte(j, 0) == 0xef && sj_byte(j, 1) == 0xbb && sj_byte(j, 2) == 0xbf)
			return sj_decode_error(j, "Unexpected UTF-8 BOM (decode using utf-8-sig)",
					       0);
		sj_skip_ws(j);
		return sj_value(j);
	case SJ_ST_ARRAY_FIRST:
		sj_skip_ws(j);
		if (sj_byte(j, 0) == ']')
			return sj_close_container(j, SJSON_ARRAY_END);
		return sj_value(j);
	case SJ_ST_ARRAY_NEXT:
		sj_skip_ws(j);
		c = sj_byte(j, 0);
		if (c == ']')
			return sj_close_container(j, SJSON_ARRAY_END);
		if (c != ',')
			return sj_decode_error(j, "Expecting ',' delimiter", sj_off(j));
		j->pos++;
		sj_skip_ws(j);
		return sj_value(j);
	case SJ_ST_OBJECT_FIRST:
		sj_skip_ws(j);
		if (sj_byte(j, 0) == '}')
			return sj_close_container(j, SJSON_OBJECT_END);
		return sj_key(j);
	case SJ_ST_OBJECT_NEXT:
		sj_skip_ws(j);
		c = sj_byte(j, 0);
		if (c == '}')
			return sj_close_container(j, SJSON_OBJECT_END);
		if (c != ',')
			return sj_decode_error(j, "Expecting ',' delimiter", sj_off(j));
		j->pos++;
		sj_skip_ws(j);
		return sj_key(j);
	case SJ_ST_COLON:
		sj_skip_ws(j);
		if (sj_byte(j, 0) != ':')
			return sj_decode_error(j, "Expecting ':' delimiter", sj_off(j));
		j->pos++;
		sj_skip_ws(j);
		return sj_value(j);
	case SJ_ST_TOP_DONE:
		sj_skip_ws(j);
		if (sj_byte(j, 0) >= 0)
			return sj_decode_error(j, "Extra data", sj_off(j));
		return sj_finish(j, SJSON_END);
	default:
		return j->last;
	}
}

int sjson_skip(struct sjson *j)
{
	int target = j->depth - 1;

	while (j->depth > target)
		if (sjson_next(j) == SJSON_ERROR)
			return -1;
	return 0;
}

struct sjson *sjson_open(int fd)
{
	struct sjson *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->buf = malloc(SJ_BUF_SIZE);
	if (!j->buf) {
		free(j);
		return NULL;
	}
	j->cap = SJ_BUF_SIZE;
	j->fd = fd;
	j->state = SJ_ST_START;
	return j;
}

void sjson_free(struct sjson *j)
{
	if (!j)
		return;
	free(j->buf);
	free(j);
}

/* The character index, line and column Python gives byte offset off of the
 * file: characters counted after newline translation. */
static int sj_place(struct sjson *j, uint64_t off, uint64_t *pos, uint64_t *line, uint64_t *col)
{
	uint64_t chars = 0, lines = 1, at = 0;
	int64_t last_nl = -1;
	int prev_cr = 0;

	while (at < off) {
		size_t want = off - at < j->cap ? (size_t)(off - at) : j->cap;
		ssize_t n = pread(j->fd, j->buf, want, (off_t)at);
		ssize_t i;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		for (i = 0; i < n; i++) {
			unsigned char b = j->buf[i];

			if (b == '\n' && prev_cr) {
				prev_cr = 0;
				continue;
			}
			prev_cr = b == '\r';
			if ((b & 0xc0) == 0x80)
				continue;
			if (b == '\n' || b == '\r') {
				lines++;
				last_nl = (int64_t)chars;
			}
			chars++;
		}
		at += (uint64_t)n;
	}
	*pos = chars;
	*line = lines;
	*col = (uint64_t)((int64_t)chars - last_nl);
	return 0;
}

const char *sjson_oserror_name(int e)
{
	switch (e) {
	case ENOENT:
		return "FileNotFoundError";
	case ENOTDIR:
		return "NotADirectoryError";
	case EISDIR:
		return "IsADirectoryError";
	case EACCES:
	case EPERM:
		return "PermissionError";
	case EEXIST:
		return "FileExistsError";
	case EINTR:
		return "InterruptedError";
	case EAGAIN:
		return "BlockingIOError";
	case ETIMEDOUT:
		return "TimeoutError";
	default:
		return "OSError";
	}
}

int sjson_error_line(struct sjson *j, char *buf, size_t size)
{
	uint64_t pos = 0, line = 0, col = 0;
	int rc;

	switch (j->err) {
	case SJSON_ERR_DECODE:
		/* The window is not needed any more: sj_place() reuses it. */
		rc = sj_place(j, j->err_off, &pos, &line, &col);
		if (rc < 0) {
			snprintf(buf, size, "json.decoder.JSONDecodeError: %s", j->msg);
			return rc;
		}
		snprintf(buf, size,
			 "json.decoder.JSONDecodeError: %s: line %" PRIu64 " column %" PRIu64
			 " (char %" PRIu64 ")",
			 j->msg, line, col, pos);
		return 0;
	case SJSON_ERR_RECURSION:
		snprintf(buf, size,
			 "RecursionError: maximum recursion depth exceeded while decoding a "
			 "JSON %s from a unicode string",
			 j->err_object ? "object" : "array");
		return 0;
	case SJSON_ERR_INT_DIGITS:
		snprintf(buf, size,
			 "ValueError: Exceeds the limit (%d digits) for integer string "
			 "conversion: value has %" PRIu64 " digits; use "
			 "sys.set_int_max_str_digits() to increase the limit",
			 SJSON_INT_DIGITS, j->err_count);
		return 0;
	case SJSON_ERR_UTF8:
		if (j->err_end - j->err_off == 1)
			snprintf(buf, size,
				 "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x%02x in "
				 "position %" PRIu64 ": %s",
				 j->err_byte, j->err_off, j->u8_reason);
		else
			snprintf(buf, size,
				 "UnicodeDecodeError: 'utf-8' codec can't decode bytes in position "
				 "%" PRIu64 "-%" PRIu64 ": %s",
				 j->err_off, j->err_end - 1, j->u8_reason);
		return 0;
	case SJSON_ERR_READ:
		snprintf(buf, size, "%s: [Errno %d] %s", sjson_oserror_name(j->err_errno),
			 j->err_errno, strerror(j->err_errno));
		return 0;
	case SJSON_ERR_NOMEM:
		snprintf(buf, size, "MemoryError");
		return 0;
	default:
		snprintf(buf, size, "no error");
		return 0;
	}
}
