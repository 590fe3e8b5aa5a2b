/* Time zones: fixed offsets, and IANA names through the C library's tzdata. */
#include "tz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "evidence/input.h"
#include "evidence/text.h"

int tz_parse_offset(const char *s, int64_t *offset_ms)
{
	int64_t h, m = 0;
	size_t n = strlen(s), k;
	int sign;

	if (strcasecmp(s, "UTC") == 0 || strcmp(s, "Z") == 0 || strcmp(s, "GMT") == 0) {
		*offset_ms = 0;
		return 0;
	}
	if (n < 2 || (s[0] != '+' && s[0] != '-'))
		return -1;
	sign = s[0] == '-' ? -1 : 1;
	/* +H, +HH, +HHMM, +HH:MM */
	if (n == 2 || n == 3) {
		if (span_int64(span_of(s + 1, n - 1), &h) != n - 1)
			return -1;
	} else if (n == 5 || (n == 6 && s[3] == ':')) {
		if (span_int64(span_of(s + 1, 2), &h) != 2)
			return -1;
		k = n == 5 ? 3 : 4;
		if (span_int64(span_of(s + k, 2), &m) != 2)
			return -1;
	} else {
		return -1;
	}
	if (h > 14 || m > 59)
		return -1;
	*offset_ms = sign * (h * 60 + m) * 60000;
	return 0;
}

/* Big-endian 4-byte count or time at p. */
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define TZIF_HEADER 44

/* One header and data block of a TZif file (RFC 8536, 3.1 and 3.2) at
 * f[off, n), with times of tsize bytes (4 in version 1's block, 8 in
 * version 2's), checked where strict (the block the C library reads):
 * NULL with *end past the block, or what is wrong. */
static const char *tzif_block(const unsigned char *f, size_t n, size_t off, size_t tsize,
			      int strict, size_t *end)
{
	uint64_t isut, isstd, leap, timecnt, typecnt, charcnt, size, i;
	const unsigned char *h = f + off, *d;

	if (n - off < TZIF_HEADER)
		return "shorter than its header";
	if (memcmp(h, "TZif", 4) != 0)
		return "its second header lacks the magic \"TZif\"";
	if (h[4] != 0 && (h[4] < '2' || h[4] > '4'))
		return "a version that is not 1 to 4";
	isut = be32(h + 20);
	isstd = be32(h + 24);
	leap = be32(h + 28);
	timecnt = be32(h + 32);
	typecnt = be32(h + 36);
	charcnt = be32(h + 40);
	size = timecnt * tsize + timecnt + typecnt * 6 + charcnt + leap * (tsize + 4) + isstd + isut;
	if (size > n - off - TZIF_HEADER)
		return "its counts need more bytes than the file holds";
	*end = off + TZIF_HEADER + (size_t)size;
	if (!strict)
		return NULL;
	if (typecnt == 0 || charcnt == 0)
		return "no local time type, or no designation";
	if ((isstd != 0 && isstd != typecnt) || (isut != 0 && isut != typecnt))
		return "its standard/wall or UT/local counts are not its type count";
	d = h + TZIF_HEADER + timecnt * tsize; /* the transition types */
	for (i = 0; i < timecnt; i++)
		if (d[i] >= typecnt)
			return "a transition to a local time type it does not have";
	for (d += timecnt, i = 0; i < typecnt; i++, d += 6)
		if (be32(d) == 0x80000000u || d[4] > 1 || d[5] >= charcnt)
			return "a local time type out of range";
	return NULL;
}

/* What is wrong with the TZif file f[0, n) (RFC 8536), or NULL: its
 * headers, the sizes their counts imply, and version 2's footer. */
static const char *tzif_problem(const unsigned char *f, size_t n)
{
	const char *why;
	size_t end, foot;

	if (n < TZIF_HEADER || memcmp(f, "TZif", 4) != 0)
		return "not a TZif file";
	why = tzif_block(f, n, 0, 4, f[4] == 0, &end);
	if (why || f[4] == 0)
		return why;
	if ((why = tzif_block(f, n, end, 8, 1, &end)) != NULL)
		return why;
	/* the footer: a TZ string between newlines */
	if (end >= n || f[end] != '\n')
		return "no footer after its data";
	for (foot = end + 1; foot < n && f[foot] != '\n'; foot++)
		if (f[foot] < 0x20 || f[foot] > 0x7e)
			return "its footer is not a TZ string";
	return foot < n ? NULL : "its footer does not end";
}

/* Whether name is one of tzdata's zones: a valid TZif file below the zone
 * directory, reached without leaving it, read without blocking. */
static int zone_check(const char *name, char *why, size_t len)
{
	const char *env = getenv("TZDIR"), *dir = env && *env ? env : "/usr/share/zoneinfo";
	unsigned char buf[TZ_FILE_MAX + 1];
	char path[512], *real = NULL, *rdir = NULL;
	size_t n = strlen(name), got = 0, dn;
	const char *problem;
	struct ev_error ierr;
	struct stat sb;
	ssize_t r;
	int fd, rc = TZ_UNKNOWN;

	if (n == 0 || n >= TZ_NAME_MAX || name[0] == '/' || strstr(name, "..") ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-/") != n)
		return TZ_UNKNOWN;
	/* the zone of the machine that runs lastwords, not the device's */
	if (strcmp(name, "localtime") == 0 || (n >= 10 && strcmp(name + n - 10, "/localtime") == 0)) {
		snprintf(why, len, "'localtime' is this machine's zone, not the device's");
		return TZ_LOCAL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return TZ_UNKNOWN;
	real = realpath(path, NULL);
	rdir = realpath(dir, NULL);
	if (!real || !rdir)
		goto out;
	dn = strlen(rdir);
	if (strncmp(real, rdir, dn) != 0 || (real[dn] != '/' && dn > 1)) {
		snprintf(why, len, "a link out of the zone directory '%s'", dir);
		rc = TZ_LOCAL;
		goto out;
	}
	/* A regular file only, opened without blocking: a FIFO or a device
	 * is refused before it could block. A directory of zones, such as
	 * "Europe", is no zone. */
	fd = input_open(real, &sb, &ierr);
	if (fd == -EINVAL) {
		snprintf(why, len, "'%s' is not a regular file", path);
		rc = TZ_DAMAGED;
	}
	if (fd < 0)
		goto out;
	while (got < sizeof(buf) && (r = read(fd, buf + got, sizeof(buf) - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got > TZ_FILE_MAX) {
		snprintf(why, len, "'%s' is larger than %d KiB, more than any zone", path,
			 TZ_FILE_MAX / 1024);
		rc = TZ_DAMAGED;
	} else if (got >= 4 && memcmp(buf, "TZif", 4) == 0 && (problem = tzif_problem(buf, got))) {
		snprintf(why, len, "'%s' is a damaged TZif file: %s", path, problem);
		rc = TZ_DAMAGED;
	} else if (got >= 4 && memcmp(buf, "TZif", 4) == 0) {
		rc = 0;
	}
out:
	free(real);
	free(rdir);
	return rc;
}

int tz_parse(const char *s, struct tz_zone *out, char *why, size_t len)
{
	char none[1];
	int64_t off;
	int rc;

	if (!why) {
		why = none;
		len = sizeof(none);
	}
	snprintf(why, len, "not an offset, nor a zone of this system's tzdata");
	if (tz_parse_offset(s, &off) == 0) {
		out->name[0] = '\0';
		out->offset_ms = off;
		return 0;
	}
	if ((rc = zone_check(s, why, len)) != 0)
		return rc;
	snprintf(out->name, sizeof(out->name), "%s", s);
	out->offset_ms = 0;
	return 0;
}

/* Make name the C library's local zone, when it is not already. */
static void use_zone(const char *name)
{
	static char current[TZ_NAME_MAX + 1];

	if (current[0] && strcmp(current + 1, name) == 0)
		return;
	snprintf(current, sizeof(current), ":%s", name);
	setenv("TZ", current, 1);
	tzset();
}

/* Floor division, for times before the epoch. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

int64_t tz_offset_at(const struct tz_zone *z, int64_t utc_ms)
{
	time_t t = (time_t)floor_div(utc_ms, 1000);
	struct tm tm;

	if (!z->name[0])
		return z->offset_ms;
	use_zone(z->name);
	if (!localtime_r(&t, &tm))
		return 0;
	return ((int64_t)timegm(&tm) - (int64_t)t) * 1000;
}

#define DAY_MS 86400000LL

int64_t tz_to_utc(const struct tz_zone *z, int64_t local_ms)
{
	int64_t before, after, a, b;

	if (!z->name[0])
		return local_ms - z->offset_ms;
	/* The offsets a day before and a day after: one of them is the one in
	 * force, unless the wall time falls in a change's gap. */
	before = tz_offset_at(z, local_ms - DAY_MS);
	after = tz_offset_at(z, local_ms + DAY_MS);
	a = local_ms - before;
	b = local_ms - after;
	if (tz_offset_at(z, a) == before && (tz_offset_at(z, b) != after || a <= b))
		return a;
	if (tz_offset_at(z, b) == after)
		return b;
	return a;
}

int tz_stamp(const char *s, int64_t *local_ms, int64_t *offset_ms)
{
	struct span sp;
	int64_t ms, off;
	size_t used, z = 1;
	char zone[8];

	if (!s)
		return -1;
	sp = span_of(s, strlen(s));
	used = text_parse_datetime(sp, &ms);
	if (!used)
		return -1;
	*local_ms = ms;
	sp = span_from(sp, used);
	if (sp.n < 1 || (sp.s[0] != '+' && sp.s[0] != '-' && sp.s[0] != 'Z'))
		return 0;
	while (z < sp.n && z < sizeof(zone) - 1 &&
	       ((sp.s[z] >= '0' && sp.s[z] <= '9') || sp.s[z] == ':'))
		z++;
	memcpy(zone, sp.s, z);
	zone[z] = '\0';
	if (tz_parse_offset(zone, &off) != 0)
		return 0;
	*offset_ms = off;
	return 1;
}

const char *tz_text(const struct tz_zone *z, char *buf, size_t len)
{
	int64_t m = (z->offset_ms < 0 ? -z->offset_ms : z->offset_ms) / 60000;

	if (z->name[0])
		snprintf(buf, len, "%s", z->name);
	else
		snprintf(buf, len, "%c%02d:%02d", z->offset_ms < 0 ? '-' : '+', (int)(m / 60),
			 (int)(m % 60));
	return buf;
}
