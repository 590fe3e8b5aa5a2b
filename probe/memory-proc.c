/*
 * The /proc files of the memory samples beside statm: what the memory is
 * made of (/proc/self/status), the dma-buf buffers the process holds
 * (/proc/self/fd, /proc/self/fdinfo) and the system's memory pressure
 * (/proc/pressure/memory); their parsers; and the descriptors of them that
 * lw_open() keeps. Each read goes into a buffer on the caller's stack:
 * nothing here allocates, takes a lock or keeps state between calls, so
 * lw_memory_sample() and the sampler thread may read at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../src/digest.h"
#include "internal.h"

#define STATUS_READS 16            /* 4 KiB chunks of /proc/self/status, at most */
#define DMABUF_INOS 128            /* buffers told apart by inode, beyond: counted per fd */
#define DMABUF_EXPORTERS 8         /* exporters told apart */

/* The decimal number after the spaces at p, and where it ends. */
static uint64_t parse_number(const char *p, const char *end, const char **after)
{
	uint64_t v = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p >= '0' && *p <= '9' && v < (UINT64_MAX - 9) / 10)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (after)
		*after = p;
	return v;
}

/* Whether line [p, end) begins with key; *value is then the number after it. */
static int line_value(const char *p, const char *end, const char *key, uint64_t *value)
{
	size_t k = strlen(key);

	if ((size_t)(end - p) < k || memcmp(p, key, k) != 0)
		return 0;
	*value = parse_number(p + k, end, NULL);
	return 1;
}

/* The bits of the status lines the composition needs. */
enum { ST_ANON = 1, ST_FILE = 2, ST_SHMEM = 4, ST_SWAP = 8, ST_RSS = 7, ST_ALL = 15 };

/* One line of /proc/self/status: the bit it gave, or 0. */
static int status_line(const char *p, const char *end, struct memory_composition *c)
{
	if (line_value(p, end, "RssAnon:", &c->anon_kb))
		return ST_ANON;
	if (line_value(p, end, "RssFile:", &c->file_kb))
		return ST_FILE;
	if (line_value(p, end, "RssShmem:", &c->shmem_kb))
		return ST_SHMEM;
	if (line_value(p, end, "VmSwap:", &c->swap_kb))
		return ST_SWAP;
	return 0;
}

/* The lines of [buf, buf + n) ending in a newline, or all of them when
 * whole: the bits found; *used is how far whole lines went. */
static int status_lines(const char *buf, size_t n, int whole, struct memory_composition *c,
			size_t *used)
{
	const char *p = buf, *end = buf + n, *nl;
	int found = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !whole)
			break;
		found |= status_line(p, nl ? nl : end, c);
		p = nl ? nl + 1 : end;
	}
	*used = (size_t)(p - buf);
	return found;
}

int memory_parse_status(const char *buf, size_t n, struct memory_composition *out)
{
	struct memory_composition c;
	size_t used;

	memset(&c, 0, sizeof(c));
	if ((status_lines(buf, n, 1, &c, &used) & ST_RSS) != ST_RSS)
		return -EIO;
	c.source = LW_MEMORY_SOURCE_STATUS;
	*out = c;
	return 0;
}

/*
 * Read the composition from /proc/self/status into *c: 0, or -errno. The
 * file is about 1.5 KB; it is read in chunks of the buffer at increasing
 * offsets, a line cut by a chunk carried over to the next, until its four
 * lines are found or it ends, so a longer file (more groups, more CPUs)
 * still gives its lines, and a line longer than the buffer is skipped.
 */
static int read_status(struct lw *lw, struct memory_composition *c)
{
	char buf[4096];
	size_t carry = 0, used;
	off_t off = 0;
	int found = 0, reads, skipping = 0;
	ssize_t n;

	if (lw->status_fd < 0)
		return -ENOENT;
	memset(c, 0, sizeof(*c));
	for (reads = 0; reads < STATUS_READS && found != ST_ALL; reads++) {
		n = pread(lw->status_fd, buf + carry, sizeof(buf) - carry, off);
		if (n < 0)
			return -errno;
		if (n == 0) {
			if (!skipping)
				found |= status_lines(buf, carry, 1, c, &used);
			break;
		}
		off += n;
		n += (ssize_t)carry;
		carry = 0;
		if (skipping) {
			/* The rest of a line longer than the buffer. */
			char *nl = memchr(buf, '\n', (size_t)n);

			if (!nl)
				continue;
			used = (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, (size_t)n - used);
			n -= (ssize_t)used;
			skipping = 0;
		}
		found |= status_lines(buf, (size_t)n, 0, c, &used);
		carry = (size_t)n - used;
		if (carry == sizeof(buf)) {
			carry = 0;
			skipping = 1;
		} else if (carry) {
			memmove(buf, buf + used, carry);
		}
	}
	if ((found & ST_RSS) != ST_RSS)
		return -ENOENT; /* a kernel before 4.5 */
	c->source = LW_MEMORY_SOURCE_STATUS;
	return 0;
}

void memory_composition_sigsafe(struct lw *lw, const struct memory_statm *st,
				struct memory_composition *out)
{
	if (read_status(lw, out) == 0)
		return;
	/* statm cannot tell file-backed pages from shared memory, nor say the
	 * swap (8.1): those stay 0, which the source says are not known. */
	memset(out, 0, sizeof(*out));
	if (!st)
		return;
	out->source = LW_MEMORY_SOURCE_STATM;
	out->anon_kb = st->rss_kb > st->shared_kb ? st->rss_kb - st->shared_kb : 0;
	out->file_kb = st->shared_kb;
}

/* A fdinfo line "key:\tvalue": a pointer to the value and its end. */
static const char *fdinfo_value(const char *p, const char *end, const char *key,
				const char **vend)
{
	size_t k = strlen(key);

	if ((size_t)(end - p) < k || memcmp(p, key, k) != 0)
		return NULL;
	p += k;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*vend = end;
	return p;
}

int memory_parse_fdinfo(const char *buf, size_t n, uint64_t *size, uint64_t *exporter,
			uint64_t *ino)
{
	const char *p = buf, *end = buf + n, *nl, *v, *vend;
	char name[64];
	int have_size = 0;
	size_t len;

	*exporter = 0;
	*ino = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((v = fdinfo_value(p, nl, "size:", &vend))) {
			*size = parse_number(v, vend, NULL);
			have_size = 1;
		} else if ((v = fdinfo_value(p, nl, "ino:", &vend))) {
			*ino = parse_number(v, vend, NULL);
		} else if ((v = fdinfo_value(p, nl, "exp_name:", &vend))) {
			len = (size_t)(vend - v);
			if (len >= sizeof(name))
				len = sizeof(name) - 1; /* names are short: "system", "mali" */
			memcpy(name, v, len);
			name[len] = '\0';
			*exporter = digest_name(name);
		}
		p = nl + 1;
	}
	return have_size ? 0 : -EIO;
}

/* A dma-buf's descriptor reads "/dmabuf:NAME" since Linux 5.3 (its own file
 * system), "anon_inode:dmabuf" before. */
int memory_is_dmabuf_link(const char *link, size_t n)
{
	return (n >= 8 && memcmp(link, "/dmabuf:", 8) == 0) ||
	       (n >= 17 && memcmp(link, "anon_inode:dmabuf", 17) == 0);
}

/* Count one buffer: its size and exporter, once per inode (a buffer held
 * through two descriptors is one buffer). */
struct dmabuf_tally {
	uint64_t bytes;
	uint32_t count;
	uint64_t inos[DMABUF_INOS];
	size_t ninos;
	struct {
		uint64_t digest, bytes;
	} exp[DMABUF_EXPORTERS];
	size_t nexp;
};

static void dmabuf_add(struct dmabuf_tally *t, uint64_t size, uint64_t exporter, uint64_t ino)
{
	size_t i;

	if (ino) {
		for (i = 0; i < t->ninos; i++)
			if (t->inos[i] == ino)
				return;
		if (t->ninos < DMABUF_INOS)
			t->inos[t->ninos++] = ino;
	}
	t->bytes += size;
	t->count++;
	for (i = 0; i < t->nexp && t->exp[i].digest != exporter; i++)
		;
	if (i == t->nexp) {
		if (t->nexp == DMABUF_EXPORTERS)
			return; /* a ninth exporter counts in the total only */
		t->exp[t->nexp].digest = exporter;
		t->exp[t->nexp++].bytes = 0;
	}
	t->exp[i].bytes += size;
}

/* One descriptor, by its name in /proc/self/fd: counted if a dma-buf. */
static void dmabuf_fd(struct lw *lw, const char *name, struct dmabuf_tally *t)
{
	char link[64], info[1024];
	uint64_t size = 0, exporter, ino;
	ssize_t n;
	int fd;

	n = readlinkat(lw->fd_dir_fd, name, link, sizeof(link));
	if (n <= 0 || !memory_is_dmabuf_link(link, (size_t)n))
		return;
	fd = openat(lw->fdinfo_dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* closed meanwhile */
	n = read(fd, info, sizeof(info));
	close(fd);
	if (n > 0 && memory_parse_fdinfo(info, (size_t)n, &size, &exporter, &ino) == 0)
		dmabuf_add(t, size, exporter, ino);
}

/* Count the dma-buf buffers of the process's descriptors (8.1): 0 or
 * -errno. The kept /proc/self/fd is read again from its start each time. */
int memory_dmabuf_scan(struct lw *lw, struct memory_dmabuf *out)
{
	/* Aligned for the records that getdents64 writes into it. */
	_Alignas(8) char buf[2048];
	struct dmabuf_tally t;
	long n, off;
	size_t i, best = 0;

	if (lw->fd_dir_fd < 0 || lw->fdinfo_dir_fd < 0)
		return -ENOENT;
	if (lseek(lw->fd_dir_fd, 0, SEEK_SET) < 0)
		return -errno;
	t.bytes = 0;
	t.count = 0;
	t.ninos = 0;
	t.nexp = 0;
	while ((n = syscall(SYS_getdents64, lw->fd_dir_fd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n;) {
			const struct dirent64_raw *de = (const void *)(buf + off);

			off += de->d_reclen;
			if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
				dmabuf_fd(lw, de->d_name, &t);
		}
	if (n < 0)
		return -errno;
	for (i = 1; i < t.nexp; i++)
		if (t.exp[i].bytes > t.exp[best].bytes)
			best = i;
	out->kb = (t.bytes + 1023) / 1024;
	out->count = t.count;
	out->exporter = t.nexp ? t.exp[best].digest : 0;
	return 0;
}

/* "avg10=12.34" at p: hundredths. */
static uint32_t parse_hundredths(const char *p, const char *end)
{
	const char *q;
	uint64_t v = parse_number(p, end, &q) * 100;
	int digits = 0;

	if (q < end && *q == '.')
		for (q++; q < end && *q >= '0' && *q <= '9'; q++, digits++)
			if (digits < 2)
				v += (uint64_t)(*q - '0') * (digits == 0 ? 10 : 1);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The value after key (" avg10=") in line [p, end), or NULL. */
static const char *psi_field(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);

	for (; (size_t)(end - p) >= k; p++)
		if (memcmp(p, key, k) == 0)
			return p + k;
	return NULL;
}

int memory_parse_psi(const char *buf, size_t n, struct memory_psi *out)
{
	const char *p = buf, *end = buf + n, *nl, *v;
	struct memory_psi r = { 0, 0, 0 };
	int found = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > 5 && memcmp(p, "some ", 5) == 0 &&
		    (v = psi_field(p, nl, "avg10="))) {
			r.some_avg10 = parse_hundredths(v, nl);
			if ((v = psi_field(p, nl, "total=")))
				r.some_total_us = parse_number(v, nl, NULL);
			found |= 1;
		} else if ((size_t)(nl - p) > 5 && memcmp(p, "full ", 5) == 0 &&
			   (v = psi_field(p, nl, "avg10="))) {
			r.full_avg10 = parse_hundredths(v, nl);
			found |= 2;
		}
		p = nl + 1;
	}
	if (!(found & 1))
		return -EIO; /* "full" came with Linux 5.13 for memory: 0 without */
	*out = r;
	return 0;
}

/* Read /proc/pressure/memory: 0, or -errno (-EIO when it does not parse). */
int memory_psi_read(struct lw *lw, struct memory_psi *out)
{
	char buf[256];
	ssize_t n;

	if (lw->psi_fd < 0)
		return -(lw->psi_errno ? lw->psi_errno : ENOENT);
	n = pread(lw->psi_fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	return memory_parse_psi(buf, (size_t)n, out);
}

/* The files the samples read, opened at lw_open(): status always, the
 * sampler's only with a sampler. Context: not signal-safe; no allocation. */
void memory_open_files(struct lw *lw, int sampler)
{
	lw->status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	lw->fd_dir_fd = lw->fdinfo_dir_fd = -1;
	lw->psi_errno = 0;
	lw->psi_fd = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC);
	if (lw->psi_fd < 0)
		lw->psi_errno = errno;
	if (!sampler)
		return;
	lw->fd_dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	lw->fdinfo_dir_fd = open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

void memory_close_files(struct lw *lw)
{
	int *fds[] = { &lw->status_fd, &lw->fd_dir_fd, &lw->fdinfo_dir_fd, &lw->psi_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
