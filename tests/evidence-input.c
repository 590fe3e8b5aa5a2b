/*
 * The input reader (analyzer/evidence/input.h) gives every line of a file
 * as it is, wherever its buffer's boundaries fall: from a plain file, from
 * memory, from gzip data of two members; "\r\n" and a last line without a
 * newline; lines longer than INPUT_LINE_MAX cut to it and counted once,
 * their rest skipped; a lookahead (input_peek) that reads the same lines
 * again when it goes back, at every line of a file several buffers long; a
 * tap that sees every byte once, rewind or not; a file that grows after it
 * was opened, read to its new end; truncated and corrupt gzip data
 * refused with the place; JSON past its cap refused; an input of another
 * input's lines (a bug report's section), peeking through it, its tap
 * seeing each line once.
 */
#include <zlib.h>

#include "../analyzer/evidence/input.h"
#include "helpers.h"

#define NLINES 40000

static char *dir;

/* Line i of the test text: lengths from 0 to about 300, some with "\r\n". */
static size_t make_line(unsigned i, char *buf, int *crlf)
{
	size_t n = (size_t)snprintf(buf, 64, "%u:", i), len = (i * 7919u) % 301;

	for (; n < len; n++)
		buf[n] = (char)('a' + (i + n) % 26);
	*crlf = i % 5 == 0;
	return n;
}

/* The test text, and its size. */
static char *make_text(size_t *len)
{
	char *text = malloc((size_t)NLINES * 320), line[400];
	size_t n = 0, k;
	unsigned i;
	int crlf;

	T_ASSERT(text != NULL, "malloc");
	for (i = 0; i < NLINES; i++) {
		k = make_line(i, line, &crlf);
		memcpy(text + n, line, k);
		n += k;
		if (crlf)
			text[n++] = '\r';
		if (i + 1 < NLINES)
			text[n++] = '\n'; /* the last line has none */
	}
	*len = n;
	return text;
}

static const char *write_file(const char *name, const void *data, size_t len)
{
	static char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_ASSERT(fd >= 0 && write(fd, data, len) == (ssize_t)len, "write %s", path);
	close(fd);
	return path;
}

/* One gzip member of len bytes at data, appended to out at *n. */
static void gzip_member(const char *data, size_t len, unsigned char *out, size_t cap, size_t *n)
{
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	T_ASSERT(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
		 "deflateInit2");
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out + *n;
	zs.avail_out = (uInt)(cap - *n);
	T_ASSERT(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate");
	*n = cap - zs.avail_out;
	deflateEnd(&zs);
}

/* Every line of in is the test text's, in order; peek at each (peek > 0)
 * and go back, or consume every third peek. */
static void check_lines(struct input *in, const char *what, int peek)
{
	char want[400];
	struct span line, ahead;
	unsigned i = 0, k;
	size_t n;
	int crlf, rc;

	while ((rc = input_line(in, &line)) > 0) {
		n = make_line(i, want, &crlf);
		T_ASSERT(line.n == n && memcmp(line.s, want, n) == 0 && in->lineno == i + 1,
			 "%s: line %u reads '%.*s'", what, i + 1, (int)(line.n < 40 ? line.n : 40),
			 line.s);
		i++;
		if (!peek)
			continue;
		input_peek(in);
		for (k = 0; k < INPUT_PEEK_LINES && input_line(in, &ahead) > 0; k++) {
			n = make_line(i + k, want, &crlf);
			T_ASSERT(ahead.n == n && memcmp(ahead.s, want, n) == 0,
				 "%s: line %u read ahead", what, i + k + 1);
		}
		/* The line read before the peek is still there. */
		n = make_line(i - 1, want, &crlf);
		T_ASSERT(line.n == n && memcmp(line.s, want, n) == 0, "%s: line %u moved in a peek",
			 what, i);
		if (i % 3 == 0) {
			input_peek_end(in, 1);
			i += k;
		} else {
			input_peek_end(in, 0);
		}
	}
	T_ASSERT(rc == 0 && i == NLINES, "%s: %u lines (rc %d: %s), want %d", what, i, rc,
		 in->failed ? in->err.reason : "", NLINES);
	T_ASSERT(in->cut_lines == 0, "%s: no line cut", what);
}

static uLong tapped_crc;
static size_t tapped;

static void tap(void *arg, const char *p, size_t n)
{
	(void)arg;
	tapped_crc = crc32(tapped_crc, (const Bytef *)p, (uInt)n);
	tapped += n;
}

static void plain_memory_gzip(const char *text, size_t len)
{
	size_t cap = len + 4096, n = 0;
	unsigned char *gz = malloc(cap);
	struct input in;
	struct ev_error err;
	const char *path;

	path = write_file("text.txt", text, len);
	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s: %s", path, err.reason);
	check_lines(&in, "file", 0);
	input_release(&in);
	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s: %s", path, err.reason);
	check_lines(&in, "file, peeking", 1);
	input_release(&in);

	input_init_mem(&in, text, len);
	check_lines(&in, "memory, peeking", 1);
	input_release(&in);

	/* Two members: the text cut at an odd place. */
	T_ASSERT(gz != NULL, "malloc");
	gzip_member(text, 123457, gz, cap, &n);
	gzip_member(text + 123457, len - 123457, gz, cap, &n);
	path = write_file("text.gz", gz, n);
	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s", path);
	tapped_crc = crc32(0, NULL, 0);
	tapped = 0;
	input_tap(&in, tap, NULL);
	check_lines(&in, "gzip, peeking", 1);
	T_ASSERT(in.gzipped, "gzip data is said to be");
	T_ASSERT(tapped == len && tapped_crc == crc32(crc32(0, NULL, 0), (const Bytef *)text, (uInt)len),
		 "the tap saw %zu bytes, the text has %zu", tapped, len);
	/* Read again from the start: the same lines, and the tap sees no more. */
	T_ASSERT(input_rewind(&in) == 0, "rewind");
	check_lines(&in, "gzip, read again", 0);
	T_ASSERT(tapped == len, "the tap sees each byte once: %zu", tapped);
	input_release(&in);

	/* Cut short, and damaged: refused with the place. */
	path = write_file("short.gz", gz, n - 100);
	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s", path);
	T_ASSERT(input_drain(&in) < 0 &&
			 strcmp(in.err.reason, t_fmt("gzip data ends early (truncated after %zu bytes)",
						     n - 100)) == 0,
		 "truncated gzip: %s", in.err.reason);
	input_release(&in);
	memset(gz + n / 2, 0xff, 64);
	path = write_file("damaged.gz", gz, n);
	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s", path);
	T_ASSERT(input_drain(&in) < 0 && strncmp(in.err.reason, "gzip data is corrupt at byte ", 29) == 0,
		 "corrupt gzip: %s", in.err.reason);
	input_release(&in);
	free(gz);
}

/* An input of another input's lines, where they lie (a bug report's
 * section): the lines of its parent, its peeks the parent's. */
static int parent_line(void *arg, struct span *line, struct ev_error *err)
{
	struct input *parent = arg;
	int rc = input_line(parent, line);

	return rc < 0 ? input_error(parent, err) : rc;
}

static void parent_peek(void *arg)
{
	input_peek(arg);
}

static void parent_peek_end(void *arg, int consume)
{
	input_peek_end(arg, consume);
}

static void lines_of_another(const char *text, size_t len)
{
	struct input_source src = { NULL, NULL, NULL, parent_line, parent_peek, parent_peek_end };
	struct input parent, in;
	struct ev_error err = { 0, "" };
	struct span head;
	char line[400];
	uLong want = crc32(0, NULL, 0);
	size_t n, wanted = 0;
	unsigned i;
	int crlf;

	for (i = 0; i < NLINES; i++) {
		n = make_line(i, line, &crlf);
		line[n++] = '\n';
		want = crc32(want, (const Bytef *)line, (uInt)n);
		wanted += n;
	}
	input_init_mem(&parent, text, len);
	src.arg = &parent;
	input_init_source(&in, &src);
	tapped_crc = crc32(0, NULL, 0);
	tapped = 0;
	input_tap(&in, tap, NULL);
	T_ASSERT(input_head(&in, &head) == 0 && head.n == 0, "lines of another: no first bytes");
	check_lines(&in, "lines of another, peeking", 1);
	T_ASSERT(tapped == wanted && tapped_crc == want,
		 "the tap saw each line once, with its newline: %zu bytes, want %zu", tapped, wanted);
	T_ASSERT(input_whole(&in, 1 << 20, INPUT_JSON_LIMIT, &n, &err) == NULL && err.reason[0],
		 "lines of another are not read whole");
	input_release(&in);
	input_release(&parent);
}

static void long_lines(void)
{
	size_t max = INPUT_LINE_MAX, len = 0;
	char *text = malloc(4 * max), *p = text;
	struct span line;
	struct input in;

	T_ASSERT(text != NULL, "malloc");
	p += sprintf(p, "short\n");
	memset(p, 'a', max + 40000); /* line 2: cut */
	p += max + 40000;
	*p++ = '\n';
	memset(p, 'b', max); /* line 3: exactly the limit, with "\r\n": whole */
	p += max;
	memcpy(p, "\r\n", 2);
	p += 2;
	memset(p, 'c', max + 1); /* line 4: one byte over, the last line */
	p += max + 1;
	len = (size_t)(p - text);

	input_init_mem(&in, text, len);
	T_ASSERT(input_line(&in, &line) == 1 && span_eq(line, "short"), "line 1");
	T_ASSERT(input_line(&in, &line) == 1 && line.n == max && line.s[0] == 'a' &&
			 line.s[max - 1] == 'a',
		 "line 2: %zu bytes, its first %zu kept", line.n, max);
	input_peek(&in);
	T_ASSERT(input_line(&in, &line) == 1 && line.n == max && line.s[0] == 'b', "line 3 ahead");
	input_peek_end(&in, 0);
	T_ASSERT(input_line(&in, &line) == 1 && line.n == max && line.s[max - 1] == 'b',
		 "line 3, whole: %zu bytes", line.n);
	T_ASSERT(input_line(&in, &line) == 1 && line.n == max && line.s[0] == 'c', "line 4 cut");
	T_ASSERT(input_line(&in, &line) == 0 && in.lineno == 4, "4 lines");
	T_ASSERT(in.cut_lines == 2 && in.first_cut == 2, "%zu lines cut, the first %zu; want 2, 2",
		 in.cut_lines, in.first_cut);
	input_release(&in);
	free(text);
}

/* A file that grows after it was opened is read to its new end. */
static void growing_file(const char *text, size_t len)
{
	char want[400];
	const char *path = write_file("growing.txt", text, 20);
	struct ev_error err;
	struct span line;
	struct input in;
	int crlf, fd;
	size_t n;

	T_ASSERT(input_init_file(&in, path, &err) == 0, "open %s", path);
	fd = open(path, O_WRONLY | O_TRUNC);
	T_ASSERT(fd >= 0 && write(fd, text, len) == (ssize_t)len, "grow %s", path);
	close(fd);
	T_ASSERT(input_line(&in, &line) == 1, "line 1 of the grown file");
	n = make_line(0, want, &crlf);
	T_ASSERT(line.n == n && memcmp(line.s, want, n) == 0, "line 1 of the grown file");
	while (input_line(&in, &line) > 0)
		;
	T_ASSERT(!in.failed && in.lineno == NLINES, "the grown file: %zu lines, want %d (%s)",
		 in.lineno, NLINES, in.failed ? in.err.reason : "");
	input_release(&in);
}

static void json_cap(void)
{
	size_t len = INPUT_JSON_MAX + 1, got;
	char *big = calloc(1, len), *whole;
	struct ev_error err;
	struct input in;

	T_ASSERT(big != NULL, "calloc");
	input_init_mem(&in, big, len);
	T_ASSERT(input_whole(&in, INPUT_JSON_MAX, INPUT_JSON_LIMIT, &got, &err) == NULL && !in.failed &&
			 strcmp(err.reason, "larger than 16 MiB, the limit for JSON, which is read whole") == 0,
		 "JSON past its cap: %s", err.reason);
	input_release(&in);
	input_init_mem(&in, big, len - 1);
	whole = input_whole(&in, INPUT_JSON_MAX, INPUT_JSON_LIMIT, &got, &err);
	T_ASSERT(whole && got == len - 1 && whole[got] == '\0', "JSON at its cap is read whole");
	free(whole);
	input_release(&in);
	free(big);
}

int main(void)
{
	size_t len;
	char *text;

	dir = strdup(t_tmpdir("input"));
	text = make_text(&len);
	plain_memory_gzip(text, len);
	lines_of_another(text, len);
	long_lines();
	growing_file(text, len);
	json_cap();
	free(text);
	t_rmdir(dir);
	free(dir);
	printf("input: %d lines of %zu bytes from a file, memory and gzip, peeking at each; cuts, "
	       "growth, gzip errors and the JSON cap\n",
	       NLINES, len);
	return T_PASS;
}
