#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

void fmt_kb(char *buf, size_t len, uint64_t kb)
{
	if (kb < 1024)
		snprintf(buf, len, "%" PRIu64 " KiB", kb);
	else if (kb < 1024u * 1024u)
		snprintf(buf, len, "%.1f MiB", (double)kb / 1024.0);
	else
		snprintf(buf, len, "%.2f GiB", (double)kb / (1024.0 * 1024.0));
}

void fmt_utc(char *buf, size_t len, uint64_t real_ns, int with_date)
{
	time_t secs = (time_t)(real_ns / 1000000000u);
	unsigned ms = (unsigned)(real_ns / 1000000u % 1000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	if (with_date)
		snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%03u UTC", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	else
		snprintf(buf, len, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void fmt_iso(char *buf, size_t len, uint64_t real_ns)
{
	time_t secs = (time_t)(real_ns / 1000000000u);
	unsigned us = (unsigned)(real_ns / 1000u % 1000000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

void fmt_digest(char *buf, size_t len, uint64_t digest)
{
	snprintf(buf, len, "%016" PRIx64, digest);
}

void fmt_id128(char *buf, size_t len, const uint8_t id[16])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (len < 33) {
		if (len)
			buf[0] = '\0';
		return;
	}
	for (i = 0; i < 16; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[32] = '\0';
}
