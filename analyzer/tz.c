/* Time zones: fixed offsets, and IANA names through the C library's tzdata. */
#include "tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

/* Whether name is one of tzdata's zones: a TZif file below the zone
 * directory, reached without leaving it. */
static int zone_exists(const char *name)
{
	const char *dir = getenv("TZDIR");
	char path[512], magic[4];
	size_t n = strlen(name);
	FILE *f;
	int ok;

	if (n == 0 || n >= TZ_NAME_MAX || name[0] == '/' || strstr(name, "..") ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-/") != n)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	f = fopen(path, "rb");
	if (!f)
		return 0;
	ok = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && memcmp(magic, "TZif", 4) == 0;
	fclose(f);
	return ok;
}

int tz_parse(const char *s, struct tz_zone *out)
{
	int64_t off;

	if (tz_parse_offset(s, &off) == 0) {
		out->name[0] = '\0';
		out->offset_ms = off;
		return 0;
	}
	if (!zone_exists(s))
		return -1;
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
