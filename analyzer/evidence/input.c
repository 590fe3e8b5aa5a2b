#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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

static int read_all(FILE *f, char **out, size_t *len, struct ev_error *err)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1), *nb;
	size_t got;

	if (!buf)
		return fail(err, strerror(ENOMEM));
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= INPUT_MAX_BYTES) {
				free(buf);
				return fail(err, "larger than 2 GiB");
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return fail(err, strerror(ENOMEM));
			}
			buf = nb;
		}
	}
	if (ferror(f)) {
		free(buf);
		return fail(err, strerror(errno ? errno : EIO));
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Inflate one or more gzip members. */
static int gunzip(const char *src, size_t srclen, char **out, size_t *outlen,
		  struct ev_error *err)
{
	size_t cap = srclen * 4 + 4096, n = 0;
	char *buf = malloc(cap + 1), *nb;
	char why[200];
	z_stream zs;
	int rc;

	if (!buf)
		return fail(err, strerror(ENOMEM));
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(buf);
		return fail(err, "cannot start zlib");
	}
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)(srclen > UINT32_MAX ? UINT32_MAX : srclen);
	for (;;) {
		if (n == cap) {
			if (cap >= INPUT_MAX_BYTES) {
				rc = Z_MEM_ERROR;
				snprintf(why, sizeof(why), "gzip data expands past 2 GiB");
				goto fail_inflate;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(why, sizeof(why), "%s", strerror(ENOMEM));
				goto fail_inflate;
			}
			buf = nb;
		}
		zs.next_out = (Bytef *)buf + n;
		zs.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		rc = inflate(&zs, Z_NO_FLUSH);
		n = (size_t)((char *)zs.next_out - buf);
		if (rc == Z_STREAM_END) {
			size_t used = (size_t)((const char *)zs.next_in - src);

			/* Another member follows: gzip files may be concatenated. */
			if (used + 2 <= srclen && (unsigned char)src[used] == 0x1f &&
			    (unsigned char)src[used + 1] == 0x8b) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
			snprintf(why, sizeof(why), "gzip data ends early (truncated after %zu bytes)",
				 srclen);
			goto fail_inflate;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			snprintf(why, sizeof(why), "gzip data is corrupt at byte %zu: %s",
				 (size_t)((const char *)zs.next_in - src), zs.msg ? zs.msg : "error");
			goto fail_inflate;
		}
	}
	inflateEnd(&zs);
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 0;

fail_inflate:
	inflateEnd(&zs);
	free(buf);
	return fail(err, why);
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

int input_read(const char *path, struct input *in, struct ev_error *err)
{
	struct stat sb;
	char *raw;
	size_t len;
	FILE *f;
	int fd, rc;

	memset(in, 0, sizeof(*in));
	fd = input_open(path, &sb, err);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return fail(err, strerror(errno));
	}
	rc = read_all(f, &raw, &len, err);
	fclose(f);
	if (rc != 0)
		return rc;
	if (len >= 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b) {
		rc = gunzip(raw, len, &in->data, &in->len, err);
		free(raw);
		in->gzipped = 1;
		return rc;
	}
	in->data = raw;
	in->len = len;
	return 0;
}

void input_release(struct input *in)
{
	free(in->data);
	memset(in, 0, sizeof(*in));
}
