/*
 * Time zones (analyzer/tz.c): offsets and IANA names, each wall time read
 * at the offset of its own date from the system's tzdata, on both sides of
 * a daylight saving change, in the change's gap and in its repeated hour,
 * north and south of the equator; names that are not zones are refused.
 * Skips (77) when the system has no tzdata.
 */
#include <sys/stat.h>

#include "../analyzer/tz.h"
#include "helpers.h"

#define MIN 60000LL
#define HOUR (60 * MIN)

/* ms since the epoch of a UTC date and time. */
static int64_t at(int y, int mo, int d, int h, int mi)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (int64_t)timegm(&tm) * 1000;
}

static struct tz_zone zone(const char *name)
{
	struct tz_zone z;

	T_ASSERT(tz_parse(name, &z) == 0 && strcmp(z.name, name) == 0, "%s is a zone", name);
	return z;
}

/* The local wall time (read as UTC) y-mo-d h:mi of z is want, in UTC. */
#define EXPECT_UTC(z, y, mo, d, h, mi, want)                                           \
	do {                                                                           \
		int64_t got_ = tz_to_utc(&(z), at(y, mo, d, h, mi));                   \
		T_ASSERT(got_ == (want), "%s %04d-%02d-%02d %02d:%02d is %lld min off",    \
			 (z).name, y, mo, d, h, mi, (long long)((got_ - (want)) / MIN));   \
	} while (0)

int main(void)
{
	struct tz_zone berlin, york, sydney, z;
	struct stat sb;
	int64_t off;

	if (stat("/usr/share/zoneinfo/Europe/Berlin", &sb) != 0 && !getenv("TZDIR")) {
		printf("skip: no tzdata in /usr/share/zoneinfo\n");
		return T_SKIP;
	}
	berlin = zone("Europe/Berlin");
	york = zone("America/New_York");
	sydney = zone("Australia/Sydney");

	/* Berlin went from +01:00 to +02:00 on 2025-03-30 at 01:00 UTC: noon
	 * the day before is 11:00 UTC, noon the day after 10:00 UTC. */
	EXPECT_UTC(berlin, 2025, 3, 29, 12, 0, at(2025, 3, 29, 11, 0));
	EXPECT_UTC(berlin, 2025, 3, 31, 12, 0, at(2025, 3, 31, 10, 0));
	/* Its gap: 02:30 that day never happened; read at the offset before. */
	EXPECT_UTC(berlin, 2025, 3, 30, 2, 30, at(2025, 3, 30, 1, 30));
	/* Back to +01:00 on 2025-10-26 at 01:00 UTC: 02:30 came twice, and is
	 * the earlier, 00:30 UTC; 03:30 came once, at 02:30 UTC. */
	EXPECT_UTC(berlin, 2025, 10, 26, 2, 30, at(2025, 10, 26, 0, 30));
	EXPECT_UTC(berlin, 2025, 10, 26, 3, 30, at(2025, 10, 26, 2, 30));
	T_ASSERT(tz_offset_at(&berlin, at(2025, 1, 15, 12, 0)) == HOUR &&
			 tz_offset_at(&berlin, at(2025, 7, 15, 12, 0)) == 2 * HOUR &&
			 tz_offset_at(&berlin, -1) == HOUR,
		 "Berlin's offsets in winter, summer, and before the epoch");

	/* New York: -05:00 to -04:00 on 2025-03-09 at 07:00 UTC. */
	EXPECT_UTC(york, 2025, 3, 8, 12, 0, at(2025, 3, 8, 17, 0));
	EXPECT_UTC(york, 2025, 3, 10, 12, 0, at(2025, 3, 10, 16, 0));
	/* Sydney's summer is January: +11:00, and +10:00 in July. */
	EXPECT_UTC(sydney, 2025, 1, 15, 12, 0, at(2025, 1, 15, 1, 0));
	EXPECT_UTC(sydney, 2025, 7, 15, 12, 0, at(2025, 7, 15, 2, 0));
	/* Back and forth between zones, as a report with two would go. */
	EXPECT_UTC(berlin, 2025, 3, 29, 12, 0, at(2025, 3, 29, 11, 0));

	/* Offsets are zones too, with no name. */
	T_ASSERT(tz_parse("+05:30", &z) == 0 && !z.name[0] && z.offset_ms == 5 * HOUR + 30 * MIN &&
			 tz_to_utc(&z, at(2025, 1, 1, 12, 0)) == at(2025, 1, 1, 6, 30),
		 "+05:30");
	T_ASSERT(tz_parse("UTC", &z) == 0 && !z.name[0] && z.offset_ms == 0, "UTC");
	T_ASSERT(tz_parse_offset("+02:00", &off) == 0 && off == 2 * HOUR, "+02:00");
	T_ASSERT(tz_parse_offset("-0530", &off) == 0 && off == -(5 * HOUR + 30 * MIN), "-0530");
	T_ASSERT(tz_parse_offset("+9", &off) == 0 && off == 9 * HOUR, "+9");
	/* Not zones: unknown, out of range, outside tzdata, not a TZif file. */
	T_ASSERT(tz_parse("Europe/Atlantis", &z) != 0 && tz_parse("+25:00", &z) != 0 &&
			 tz_parse("+02:0", &z) != 0 && tz_parse("", &z) != 0 &&
			 tz_parse("../../../etc/passwd", &z) != 0 &&
			 tz_parse("/usr/share/zoneinfo/Europe/Berlin", &z) != 0 &&
			 tz_parse("Europe", &z) != 0 && tz_parse("zone.tab", &z) != 0 &&
			 tz_parse("Europe/Berlin ", &z) != 0,
		 "names that are not zones are refused");
	printf("time zones: offsets of each date on both sides of a change, its gap and its "
	       "repeated hour\n");
	return T_PASS;
}
