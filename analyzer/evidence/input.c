#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_CHUNK ((size_t)1 << 20)  /* room for a read, at least */
#define RAW_CHUNK ((size_t)64 << 10)   /* gzip bytes read from the file at a time */
#define LINE_ROOM (INPUT_LINE_MAX + 2) /* a line in the buffer, with its "\r\n" */
/* The room after a line returned, so that peeking at the lines after it
 * (each looked for in LINE_ROOM bytes) never moves it. */
#define PEEK_ROOM (INPUT_PEEK_LINES * LINE_ROOM)
#define BUF_CAP (LINE_ROOM + PEEK_ROOM + READ_CHUNK)

static int fail(struct ev_error *err, const char *reason)
{
	err->line = 0;
	snprintf(err->reason, sizeof(err->reason), "%s", reason);
	return -1;
}

/* -e, with strerror(e) as the reason. */
static int sys_fail(struct ev_error *err, int e)
{
	fail(err, strerror(e));
	return -e;
}

/* A read failed: the input stays failed. */
static int read_fail(struct input *in, const char *reason)
{
	in->failed = 1;
	return fail(&in->err, reason);
}

const char *input_not_regular(mode_t mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

static int not_regular(struct ev_error *err, mode_t mode)
{
	char why[64];

	if (S_ISDIR(mode))
		return sys_fail(err, EISDIR);
	snprintf(why, sizeof(why), "not a regular file: %s", input_not_regular(mode));
	fail(err, why);
	return -EINVAL;
}

int input_open(const char *path, struct stat *sb, struct ev_error *err)
{
	int fd;

	if (stat(path, sb) != 0)
		return sys_fail(err, errno);
	if (!S_ISREG(sb->st_mode))
		return not_regular(err, sb->st_mode);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(err, errno);
	if (fstat(fd, sb) != 0) {
		int e = errno;

		close(fd);
		return sys_fail(err, e);
	}
	if (!S_ISREG(sb->st_mode)) { /* swapped since the stat */
		close(fd);
		return not_regular(err, sb->st_mode);
	}
	/* A regular file never blocks; reads go on as usual. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int input_init_file(struct input *in, const char *path, struct ev_error *err)
{
	struct stat sb;
	int fd;

	memset(in, 0, sizeof(*in));
	fd = input_open(path, &sb, err);
	if (fd < 0)
		return -1;
	in->file = 1;
	in->fd = fd;
	in->size = (uint64_t)sb.st_size;
	return 0;
}

void input_init_mem(struct input *in, const char *buf, size_t len)
{
	memset(in, 0, sizeof(*in));
	in->mem = buf;
	in->mem_len = len;
}

void input_init_source(struct input *in, const struct input_source *src)
{
	memset(in, 0, sizeof(*in));
	in->file = 1;
	in->fd = -1;
	in->src = *src;
	in->size = UINT64_MAX;
}

void input_number_from(struct input *in, size_t first_line)
{
	in->line_base = in->lineno = first_line;
}

size_t input_lines(const struct input *in)
{
	return in->lineno - in->line_base;
}

void input_tap(struct input *in, input_tap_fn fn, void *arg)
{
	in->tap = fn;
	in->tap_arg = arg;
}

/* Up to n bytes from the file or the source into dst: how many, 0 at the
 * end, -1 on failure. */
static ssize_t read_some(struct input *in, char *dst, size_t n)
{
	ssize_t got;

	if (in->src.read) {
		got = in->src.read(in->src.arg, dst, n, &in->err);
		if (got < 0)
			in->failed = 1;
		return got < 0 ? -1 : got;
	}
	do
		got = read(in->fd, dst, n);
	while (got < 0 && errno == EINTR);
	return got < 0 ? read_fail(in, strerror(errno)) : got;
}

/* More bytes from the file into raw, after those not used yet. */
static int raw_more(struct input *in)
{
	ssize_t got;

	if (!in->file) {
		in->raw_eof = 1;
		return 0;
	}
	if (in->raw_pos) {
		memmove(in->raw_own, in->raw_own + in->raw_pos, in->raw_end - in->raw_pos);
		in->raw_end -= in->raw_pos;
		in->raw_pos = 0;
	}
	got = read_some(in, (char *)in->raw_own + in->raw_end, in->raw_cap - in->raw_end);
	if (got < 0)
		return -1;
	if (got == 0)
		in->raw_eof = 1;
	in->raw_end += (size_t)got;
	in->raw_read += (uint64_t)got;
	return 0;
}

/* The first read: whether the bytes are gzip data, and the buffers. */
static int start(struct input *in)
{
	size_t cap = BUF_CAP;
	int gz;

	in->started = 1;
	if (in->file) {
		in->raw_cap = in->size < RAW_CHUNK ? (size_t)in->size + 2 : RAW_CHUNK;
		in->raw = in->raw_own = malloc(in->raw_cap);
		if (!in->raw_own)
			return read_fail(in, strerror(ENOMEM));
		while (in->raw_end < 2 && !in->raw_eof)
			if (raw_more(in) != 0)
				return -1;
	} else {
		in->raw = (const unsigned char *)in->mem;
		in->raw_end = in->mem_len;
		in->raw_read = in->mem_len;
		in->raw_eof = 1;
	}
	gz = in->raw_end >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b;
	/* What it all fits in (a file that grows gets more: fill()). */
	if (!gz && (in->file ? in->size : in->mem_len) < cap)
		cap = (size_t)(in->file ? in->size : in->mem_len) + 1;
	in->buf = malloc(cap);
	if (!in->buf)
		return read_fail(in, strerror(ENOMEM));
	in->cap = cap;
	if (gz) {
		in->gzipped = 1;
		in->zs = calloc(1, sizeof(*in->zs));
		if (!in->zs)
			return read_fail(in, strerror(ENOMEM));
		if (inflateInit2(in->zs, 15 + 16) != Z_OK) {
			free(in->zs);
			in->zs = NULL;
			return read_fail(in, "cannot start zlib");
		}
	}
	return 0;
}

/* Inflate into dst: bytes made, 0 at the end of the data, -1 on failure. */
static ssize_t inflate_some(struct input *in, char *dst, size_t n)
{
	z_stream *zs = in->zs;
	char why[200];
	size_t got, fed;
	int rc;

	while (!in->z_end) {
		if (in->raw_pos == in->raw_end && !in->raw_eof && raw_more(in) != 0)
			return -1;
		fed = in->raw_end - in->raw_pos < UINT32_MAX ? in->raw_end - in->raw_pos : UINT32_MAX;
		zs->next_in = (Bytef *)(uintptr_t)(in->raw + in->raw_pos);
		zs->avail_in = (uInt)fed;
		zs->next_out = (Bytef *)dst;
		zs->avail_out = (uInt)n;
		rc = inflate(zs, Z_NO_FLUSH);
		got = n - zs->avail_out;
		in->raw_pos += fed - zs->avail_in;
		if (rc == Z_STREAM_END) {
			/* Another member follows: gzip files may be concatenated;
			 * anything else after the data is ignored. */
			while (in->raw_end - in->raw_pos < 2 && !in->raw_eof)
				if (raw_more(in) != 0)
					return -1;
			if (in->raw_end - in->raw_pos >= 2 && in->raw[in->raw_pos] == 0x1f &&
			    in->raw[in->raw_pos + 1] == 0x8b)
				inflateReset(zs);
			else
				in->z_end = 1;
		} else if (rc == Z_BUF_ERROR && in->raw_pos == in->raw_end && in->raw_eof) {
			snprintf(why, sizeof(why), "gzip data ends early (truncated after %llu bytes)",
				 (unsigned long long)in->raw_read);
			return read_fail(in, why);
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			snprintf(why, sizeof(why), "gzip data is corrupt at byte %llu: %s",
				 (unsigned long long)(in->raw_read - (in->raw_end - in->raw_pos)),
				 zs->msg ? zs->msg : "error");
			return read_fail(in, why);
		}
		if (got)
			return (ssize_t)got;
	}
	return 0;
}

/* Plain bytes into dst: how many, 0 at the end, -1 on failure. */
static ssize_t source_read(struct input *in, char *dst, size_t n)
{
	ssize_t got;
	size_t k;

	if (in->zs)
		return inflate_some(in, dst, n);
	if (in->raw_pos < in->raw_end) {
		k = in->raw_end - in->raw_pos < n ? in->raw_end - in->raw_pos : n;
		memcpy(dst, in->raw + in->raw_pos, k);
		in->raw_pos += k;
		return (ssize_t)k;
	}
	if (in->raw_eof)
		return 0;
	got = read_some(in, dst, n);
	if (got == 0)
		in->raw_eof = 1;
	return got;
}

/* Move the bytes not read yet to the start of the buffer. */
static void compact(struct input *in)
{
	memmove(in->buf, in->buf + in->pos, in->end - in->pos);
	in->end -= in->pos;
	in->pos = 0;
}

/* More plain bytes into the buffer, moving out those no line still needs.
 * Returns 1 when bytes came (they may all have been dropped: see
 * discard), 0 at the end, -1 on failure. */
static int fill(struct input *in)
{
	ssize_t got;
	char *p, *nl;

	if (in->failed)
		return -1;
	if (!in->started && start(in) != 0)
		return -1;
	if (in->eof)
		return 0;
	/* While peeking nothing moves: input_line() left room enough. */
	if (!in->peeking && in->cap - in->end < READ_CHUNK && in->pos > 0)
		compact(in);
	if (in->end == in->cap) {
		/* A buffer of the file's size is full: it grew since it was
		 * opened. A full one holds what is kept (see PEEK_ROOM); while
		 * peeking nothing may move, and a small one is always at the
		 * end of the file then, unless it grows. */
		char *nb;

		if (in->cap == BUF_CAP || in->peeking)
			return read_fail(in, "the file grew while it was read");
		nb = realloc(in->buf, BUF_CAP);
		if (!nb)
			return read_fail(in, strerror(ENOMEM));
		in->buf = nb;
		in->cap = BUF_CAP;
	}
	got = source_read(in, in->buf + in->end, in->cap - in->end);
	if (got < 0)
		return -1;
	if (got == 0) {
		in->eof = 1;
		return 0;
	}
	in->plain += (uint64_t)got;
	if (in->zs && in->plain > INPUT_GZIP_MAX)
		return read_fail(in, "gzip data expands past 2 GiB");
	p = in->buf + in->end;
	if (in->tap)
		in->tap(in->tap_arg, p, (size_t)got);
	if (in->discard) {
		nl = memchr(p, '\n', (size_t)got);
		got = nl ? got - (nl - p) : 0;
		memmove(p, nl ? nl : p, (size_t)got);
		in->discard = !nl;
	}
	in->end += (size_t)got;
	/* Known at once for bytes in memory and at the end of gzip data. */
	if (in->zs ? in->z_end : in->raw_eof && in->raw_pos == in->raw_end)
		in->eof = 1;
	return 1;
}

int input_head(struct input *in, struct span *head)
{
	if (in->src.line) { /* lines of another input: no bytes of its own */
		*head = span_of(NULL, 0);
		return in->failed ? -1 : 0;
	}
	while (in->end - in->pos < INPUT_HEAD_BYTES && fill(in) > 0)
		;
	if (in->failed)
		return -1;
	head->s = in->buf + in->pos;
	head->n = in->end - in->pos < INPUT_HEAD_BYTES ? in->end - in->pos : INPUT_HEAD_BYTES;
	return 0;
}

/* The line at s is longer than INPUT_LINE_MAX: keep its first
 * INPUT_LINE_MAX bytes and drop the rest from the buffer, up to its newline
 * (nl, if known) or, when that was not read yet, from what comes. Done once
 * per line, so it is counted once, however often the line is read. */
static void cut_line(struct input *in, char *s, char *nl)
{
	char *keep_end = s + INPUT_LINE_MAX, *end = in->buf + in->end;

	if (!nl)
		nl = memchr(keep_end, '\n', (size_t)(end - keep_end));
	if (nl) {
		memmove(keep_end, nl, (size_t)(end - nl));
		in->end -= (size_t)(nl - keep_end);
	} else {
		in->end = (size_t)(keep_end - in->buf);
		in->discard = !in->eof;
	}
	in->cut_lines++;
	if (!in->first_cut)
		in->first_cut = in->lineno + 1;
}

/* The next of src's lines (input_source). */
static int source_line(struct input *in, struct span *line)
{
	int rc = in->failed ? -1 : in->src.line(in->src.arg, line, &in->err);

	if (rc < 0) {
		in->failed = 1;
		return -1;
	}
	if (rc == 0)
		return 0;
	in->lineno++;
	if (in->tap && !in->peeking) {
		in->tap(in->tap_arg, line->s, line->n);
		in->tap(in->tap_arg, "\n", 1);
	} else if (in->tap && in->npeeked < INPUT_PEEK_LINES) {
		in->peeked[in->npeeked++] = *line; /* seen if it is kept */
	}
	return 1;
}

int input_line(struct input *in, struct span *line)
{
	if (in->src.line)
		return source_line(in, line);
	for (;;) {
		size_t avail = in->end - in->pos, win, n;
		char *s = in->buf ? in->buf + in->pos : NULL, *nl;
		int rc;

		win = avail < INPUT_LINE_MAX + 2 ? avail : INPUT_LINE_MAX + 2;
		nl = win ? memchr(s, '\n', win) : NULL;
		if (nl || (in->eof && avail)) {
			size_t whole = nl ? (size_t)(nl - s) : avail;

			n = whole && s[whole - 1] == '\r' ? whole - 1 : whole;
			if (n > INPUT_LINE_MAX) {
				cut_line(in, s, nl);
				continue;
			}
			if (!in->eof && !in->peeking && in->pos && in->cap == BUF_CAP &&
			    in->cap - (in->pos + whole) < PEEK_ROOM + 1) {
				/* Room for a peek after the line (PEEK_ROOM); a
				 * buffer of the file's size holds it all. */
				compact(in);
				continue;
			}
			in->pos += nl ? whole + 1 : whole;
			in->lineno++;
			line->s = s;
			line->n = n;
			return 1;
		}
		if (avail >= INPUT_LINE_MAX + 2) {
			cut_line(in, s, NULL);
			continue;
		}
		rc = fill(in);
		if (rc < 0)
			return -1;
		if (rc == 0 && avail == 0)
			return 0;
	}
}

void input_peek(struct input *in)
{
	in->peeking = 1;
	in->peek_pos = in->pos;
	in->peek_lineno = in->lineno;
	in->npeeked = 0;
	if (in->src.peek)
		in->src.peek(in->src.arg);
}

void input_peek_end(struct input *in, int consume)
{
	size_t i;

	if (!consume) {
		in->pos = in->peek_pos;
		in->lineno = in->peek_lineno;
	}
	for (i = 0; consume && i < in->npeeked; i++) {
		in->tap(in->tap_arg, in->peeked[i].s, in->peeked[i].n);
		in->tap(in->tap_arg, "\n", 1);
	}
	if (in->src.peek_end)
		in->src.peek_end(in->src.arg, consume);
	in->npeeked = 0;
	in->peeking = 0;
}

int input_chunk(struct input *in, struct span *chunk)
{
	int rc;

	if (in->src.line)
		return source_line(in, chunk);
	while (in->pos == in->end) {
		rc = fill(in);
		if (rc <= 0)
			return rc;
	}
	chunk->s = in->buf + in->pos;
	chunk->n = in->end - in->pos;
	in->pos = in->end;
	return 1;
}

void input_size_text(char *buf, size_t len, uint64_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, len, "%llu byte%s", (unsigned long long)n, n == 1 ? "" : "s");
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

char *input_whole(struct input *in, size_t max, const char *limit, size_t *len,
		  struct ev_error *err)
{
	size_t n = 0, cap = 0;
	char *out = NULL, *nv;
	struct span c;
	int rc;

	if (in->src.line) {
		read_fail(in, "a section of a larger text, read by lines, is not read whole");
		input_error(in, err);
		return NULL;
	}
	while ((rc = input_chunk(in, &c)) > 0) {
		if (c.n > max - n) {
			char size[32];

			free(out);
			input_size_text(size, sizeof(size), max);
			snprintf(err->reason, sizeof(err->reason), "larger than %s, %s", size, limit);
			err->line = 0;
			return NULL;
		}
		if (n + c.n + 1 > cap) {
			cap = cap ? 2 * cap : (size_t)64 << 10;
			if (cap < n + c.n + 1)
				cap = n + c.n + 1;
			nv = realloc(out, cap);
			if (!nv) {
				free(out);
				read_fail(in, strerror(ENOMEM));
				input_error(in, err);
				return NULL;
			}
			out = nv;
		}
		memcpy(out + n, c.s, c.n);
		n += c.n;
	}
	if (rc == 0 && !out && !(out = malloc(1)))
		rc = read_fail(in, strerror(ENOMEM));
	if (rc < 0) {
		free(out);
		input_error(in, err);
		return NULL;
	}
	out[n] = '\0';
	*len = n;
	return out;
}

int input_drain(struct input *in)
{
	struct span c;
	int rc;

	while ((rc = input_chunk(in, &c)) > 0)
		;
	return rc;
}

/* Free what reading made, and go back to before the first read. */
static void reset(struct input *in)
{
	if (in->zs) {
		inflateEnd(in->zs);
		free(in->zs);
	}
	free(in->raw_own);
	free(in->buf);
	in->zs = NULL;
	in->raw = in->raw_own = NULL;
	in->buf = NULL;
	in->started = in->raw_eof = in->z_end = in->eof = in->discard = in->peeking = 0;
	in->raw_cap = in->raw_pos = in->raw_end = in->cap = in->pos = in->end = 0;
	in->raw_read = in->plain = 0;
	in->lineno = in->line_base;
	in->cut_lines = in->first_cut = 0;
}

int input_rewind(struct input *in)
{
	if (input_drain(in) != 0)
		return -1;
	reset(in);
	in->tap = NULL;
	if (in->src.read) {
		if (!in->src.rewind)
			return read_fail(in, "cannot be read a second time (it is read as it comes)");
		if (in->src.rewind(in->src.arg, &in->err) != 0) {
			in->failed = 1;
			return -1;
		}
	} else if (in->file && lseek(in->fd, 0, SEEK_SET) != 0) {
		return read_fail(in, strerror(errno));
	}
	return 0;
}

int input_fail(struct input *in, const char *reason)
{
	return read_fail(in, reason);
}

int input_error(const struct input *in, struct ev_error *err)
{
	*err = in->err;
	return -1;
}

void input_release(struct input *in)
{
	reset(in);
	if (in->file && in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
}
