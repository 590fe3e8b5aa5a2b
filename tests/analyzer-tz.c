/*
 * Time zones (analyzer/tz.c): offsets and IANA names, each wall time read
 * at the offset of its own date from the system's tzdata, on both sides of
 * a daylight saving change, in the change's gap and in its repeated hour,
 * north and south of the equator; names that are not zones are refused.
 * Every TZif file of the system's tzdata is a zone; under a TZDIR of its
 * own, a FIFO (refused at once, not waited on), a file that starts with
 * "TZif" but is garbage, one cut short, one whose counts break RFC 8536
 * (which the C library would read as UTC), a link out of the directory
 * and "localtime" (the analysing machine's zone) are refused, each by what
 * it is. Skips (77) when the system has no tzdata.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <signal.h>
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

	T_ASSERT(tz_parse(name, &z, NULL, 0) == 0 && strcmp(z.name, name) == 0, "%s is a zone", name);
	return z;
}

/* The local wall time (read as UTC) y-mo-d h:mi of z is want, in UTC. */
#define EXPECT_UTC(z, y, mo, d, h, mi, want)                                           \
	do {                                                                           \
		int64_t got_ = tz_to_utc(&(z), at(y, mo, d, h, mi));                   \
		T_ASSERT(got_ == (want), "%s %04d-%02d-%02d %02d:%02d is %lld min off",    \
			 (z).name, y, mo, d, h, mi, (long long)((got_ - (want)) / MIN));   \
	} while (0)

static size_t nzones, nrefused;

/* Each TZif file below /usr/share/zoneinfo is a zone. */
static int each_zone(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *name = path + strlen("/usr/share/zoneinfo/");
	char magic[4], why[TZ_WHY_MAX];
	struct tz_zone z;
	FILE *f;

	(void)sb;
	(void)ftw;
	if (type != FTW_F || strcmp(name, "localtime") == 0 || !(f = fopen(path, "rb")))
		return 0;
	if (fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0 && strlen(name) < TZ_NAME_MAX &&
	    !strstr(name, "..")) {
		nzones++;
		if (tz_parse(name, &z, why, sizeof(why)) != 0) {
			fprintf(stderr, "tzdata's %s refused: %s\n", name, why);
			nrefused++;
		}
	}
	fclose(f);
	return 0;
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	T_ASSERT(f && fwrite(p, 1, n, f) == n && fclose(f) == 0, "write %s", path);
}

static void be32_put(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t be32_get(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* name under the zone directory is refused with rc, and why says want. */
static void refused(const char *name, int rc, const char *want)
{
	char why[TZ_WHY_MAX] = "";
	struct tz_zone z;
	int got = tz_parse(name, &z, why, sizeof(why));

	T_ASSERT(got == rc && strstr(why, want), "%s: %d (%s), expected %d (%s)", name, got, why, rc,
		 want);
}

/* Zone files of a TZDIR of the test's own. */
static void bad_zone_files(void)
{
	static unsigned char berlin[TZ_FILE_MAX], f[TZ_FILE_MAX];
	char *dir = t_tmpdir("tz"), path[512], link_to[512];
	size_t n, v1;
	struct tz_zone z;
	FILE *in;

	in = fopen("/usr/share/zoneinfo/Europe/Berlin", "rb");
	T_ASSERT(in, "open Europe/Berlin");
	n = fread(berlin, 1, sizeof(berlin), in);
	fclose(in);
	T_ASSERT(n > 100 && berlin[4] >= '2', "Europe/Berlin is TZif version 2 or later");
	setenv("TZDIR", dir, 1);
	put(dir, "Good", berlin, n);
	T_ASSERT(tz_parse("Good", &z, NULL, 0) == 0 &&
			 tz_offset_at(&z, at(2025, 7, 15, 12, 0)) == 2 * HOUR,
		 "a copy of Europe/Berlin is a zone, at its offsets");
	/* A FIFO: opened without blocking, and refused (alarm: a hang fails) */
	snprintf(path, sizeof(path), "%s/Fifo", dir);
	T_ASSERT(mkfifo(path, 0600) == 0, "mkfifo %s", path);
	alarm(10);
	refused("Fifo", TZ_DAMAGED, "is not a regular file");
	alarm(0);
	/* "TZif" and garbage */
	memcpy(f, "TZif2", 5);
	memset(f + 5, 0, 15);
	memset(f + 20, 0xff, 24);
	memcpy(f + 44, "garbage garbage garbage", 23);
	put(dir, "Garbage", f, 67);
	refused("Garbage", TZ_DAMAGED, "damaged TZif file: its counts need more bytes");
	/* a version 1 header with every count 0: no local time type */
	memset(f, 0, 44);
	memcpy(f, "TZif", 4);
	put(dir, "Empty", f, 44);
	refused("Empty", TZ_DAMAGED, "no local time type");
	/* cut short: in its data, and in its footer */
	put(dir, "Cut", berlin, n / 2);
	refused("Cut", TZ_DAMAGED, "counts need more bytes than the file holds");
	put(dir, "Footless", berlin, n - 1);
	refused("Footless", TZ_DAMAGED, "footer");
	/* the version 2 block's type count 0 */
	v1 = 44 + be32_get(berlin + 32) * 5 + be32_get(berlin + 36) * 6 + be32_get(berlin + 40) +
	     be32_get(berlin + 28) * 8 + be32_get(berlin + 24) + be32_get(berlin + 20);
	T_ASSERT(v1 + 44 < n && memcmp(berlin + v1, "TZif", 4) == 0, "Berlin's second header");
	memcpy(f, berlin, n);
	be32_put(f + v1 + 36, 0);
	put(dir, "NoTypes", f, n);
	refused("NoTypes", TZ_DAMAGED, "damaged TZif file");
	/* a transition to a type past the last */
	memcpy(f, berlin, n);
	T_ASSERT(be32_get(berlin + v1 + 32) > 0, "Berlin has transitions");
	f[v1 + 44 + be32_get(berlin + v1 + 32) * 8] = 0xff;
	put(dir, "BadType", f, n);
	refused("BadType", TZ_DAMAGED, "a transition to a local time type it does not have");
	/* the analysing machine's zone, even as a good file; a link out */
	put(dir, "localtime", berlin, n);
	refused("localtime", TZ_LOCAL, "this machine's zone");
	snprintf(path, sizeof(path), "%s/Out", dir);
	snprintf(link_to, sizeof(link_to), "/usr/share/zoneinfo/Europe/Berlin");
	T_ASSERT(symlink(link_to, path) == 0, "symlink %s", path);
	refused("Out", TZ_LOCAL, "a link out of the zone directory");
	/* a link inside is followed, as tzdata's own are */
	snprintf(path, sizeof(path), "%s/Inside", dir);
	T_ASSERT(symlink("Good", path) == 0, "symlink %s", path);
	T_ASSERT(tz_parse("Inside", &z, NULL, 0) == 0, "a link inside the directory is a zone");
	unsetenv("TZDIR");
	t_rmdir(dir);
}

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
	T_ASSERT(tz_parse("+05:30", &z, NULL, 0) == 0 && !z.name[0] &&
			 z.offset_ms == 5 * HOUR + 30 * MIN &&
			 tz_to_utc(&z, at(2025, 1, 1, 12, 0)) == at(2025, 1, 1, 6, 30),
		 "+05:30");
	T_ASSERT(tz_parse("UTC", &z, NULL, 0) == 0 && !z.name[0] && z.offset_ms == 0, "UTC");
	T_ASSERT(tz_parse_offset("+02:00", &off) == 0 && off == 2 * HOUR, "+02:00");
	T_ASSERT(tz_parse_offset("-0530", &off) == 0 && off == -(5 * HOUR + 30 * MIN), "-0530");
	T_ASSERT(tz_parse_offset("+9", &off) == 0 && off == 9 * HOUR, "+9");
	/* Not zones: unknown, out of range, outside tzdata, not a TZif file. */
	T_ASSERT(tz_parse("Europe/Atlantis", &z, NULL, 0) != 0 && tz_parse("+25:00", &z, NULL, 0) != 0 &&
			 tz_parse("+02:0", &z, NULL, 0) != 0 && tz_parse("", &z, NULL, 0) != 0 &&
			 tz_parse("../../../etc/passwd", &z, NULL, 0) != 0 &&
			 tz_parse("/usr/share/zoneinfo/Europe/Berlin", &z, NULL, 0) != 0 &&
			 tz_parse("Europe", &z, NULL, 0) != 0 && tz_parse("zone.tab", &z, NULL, 0) != 0 &&
			 tz_parse("Europe/Berlin ", &z, NULL, 0) != 0,
		 "names that are not zones are refused");
	if (!getenv("TZDIR")) {
		T_ASSERT(nftw("/usr/share/zoneinfo", each_zone, 16, FTW_PHYS) == 0, "walk tzdata");
		T_ASSERT(nzones > 300 && nrefused == 0, "%zu of tzdata's %zu zones refused", nrefused,
			 nzones);
		bad_zone_files();
	}
	printf("%zu zones of tzdata read; damaged zone files refused\n", nzones);
	printf("time zones: offsets of each date on both sides of a change, its gap and its "
	       "repeated hour\n");
	return T_PASS;
}
