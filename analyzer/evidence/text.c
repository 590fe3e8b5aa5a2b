#include "text.h"

#include <stdlib.h>
#include <string.h>

#include "../../src/hex.h"

struct span span_of(const char *s, size_t n)
{
	struct span sp = { s, n };

	return sp;
}

struct span span_trim(struct span s)
{
	while (s.n && (s.s[0] == ' ' || s.s[0] == '\t')) {
		s.s++;
		s.n--;
	}
	while (s.n && (s.s[s.n - 1] == ' ' || s.s[s.n - 1] == '\t'))
		s.n--;
	return s;
}

struct span span_skip_spaces(struct span s)
{
	while (s.n && (s.s[0] == ' ' || s.s[0] == '\t')) {
		s.s++;
		s.n--;
	}
	return s;
}

int span_starts(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.s, lit, n) == 0;
}

int span_ends(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.s + s.n - n, lit, n) == 0;
}

int span_eq(struct span s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.s, lit, s.n) == 0;
}

long span_find(struct span s, const char *needle)
{
	size_t n = strlen(needle), i;

	if (n == 0)
		return 0;
	if (s.n < n)
		return -1;
	for (i = 0; i + n <= s.n; i++) {
		const char *hit = memchr(s.s + i, needle[0], s.n - n + 1 - i);

		if (!hit)
			return -1;
		i = (size_t)(hit - s.s);
		if (memcmp(hit, needle, n) == 0)
			return (long)i;
	}
	return -1;
}

struct span span_from(struct span s, size_t off)
{
	if (off > s.n)
		off = s.n;
	s.s += off;
	s.n -= off;
	return s;
}

size_t span_int64(struct span s, int64_t *out)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;
	int neg = 0;

	if (i < s.n && (s.s[i] == '-' || s.s[i] == '+')) {
		neg = s.s[i] == '-';
		i++;
	}
	for (; i < s.n && s.s[i] >= '0' && s.s[i] <= '9'; i++, digits++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s.s[i] - '0');
	}
	if (!digits || v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return 0;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return i;
}

size_t span_hex64(struct span s, uint64_t *out)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;

	if (s.n >= 2 && s.s[0] == '0' && (s.s[1] == 'x' || s.s[1] == 'X'))
		i = 2;
	for (; i < s.n; i++, digits++) {
		int d = hex_digit((unsigned char)s.s[i]);

		if (d < 0)
			break;
		if (digits >= 16)
			return 0;
		v = v << 4 | (unsigned)d;
	}
	if (!digits)
		return 0;
	*out = v;
	return i;
}

int span_field(struct span line, const char *key, struct span *val)
{
	size_t kn = strlen(key);
	struct span rest = line;
	long at;

	while ((at = span_find(rest, key)) >= 0) {
		size_t off = (size_t)at;
		int boundary = (rest.s + off == line.s) || rest.s[off - 1] == ' ' ||
			       rest.s[off - 1] == '\t' || rest.s[off - 1] == '(';

		if (boundary && off + kn < rest.n + 1 && key[kn - 1] == '=') {
			size_t i = off + kn;
			size_t j = i;

			while (j < rest.n && rest.s[j] != ' ' && rest.s[j] != '\t')
				j++;
			val->s = rest.s + i;
			val->n = j - i;
			return 1;
		}
		rest = span_from(rest, off + 1);
	}
	return 0;
}

int64_t text_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's days_from_civil. */
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int64_t text_year_of_days(int64_t days)
{
	/* Howard Hinnant's civil_from_days, the year only: mp counts months
	 * from March, so January and February (mp 10, 11) end the year. */
	int64_t z = days + 719468, era, doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	return yoe + era * 400 + (mp >= 10);
}

static int digits_at(struct span s, size_t at, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i;

	if (at + n > s.n)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s.s[at + i];

		if (c < '0' || c > '9')
			return 0;
		v = v * 10 + (c - '0');
	}
	*out = v;
	return 1;
}

size_t text_parse_datetime(struct span s, int64_t *ms)
{
	int64_t y, mo, d, h, mi, sec, frac = 0;
	size_t used = 19, i;

	if (!digits_at(s, 0, 4, &y) || s.n < 19 || s.s[4] != '-' || !digits_at(s, 5, 2, &mo) ||
	    s.s[7] != '-' || !digits_at(s, 8, 2, &d) || (s.s[10] != ' ' && s.s[10] != 'T') ||
	    !digits_at(s, 11, 2, &h) || s.s[13] != ':' || !digits_at(s, 14, 2, &mi) ||
	    s.s[16] != ':' || !digits_at(s, 17, 2, &sec))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return 0;
	if (s.n > 19 && s.s[19] == '.') {
		/* Milliseconds from the first three digits; finer digits are read
		 * and dropped (ANR dumps print nanoseconds). */
		for (i = 20; i < s.n && s.s[i] >= '0' && s.s[i] <= '9'; i++) {
			if (i < 23)
				frac = frac * 10 + (s.s[i] - '0');
		}
		for (size_t k = i; k < 23; k++)
			frac *= 10;
		used = i;
	}
	*ms = ((text_days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60000 +
	      sec * 1000 + frac;
	return used;
}

enum text_char text_char_next(const char *s, size_t *len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;
	uint32_t c;

	if (u[0] < 0x80) {
		*len = 1;
		*cp = u[0];
		return TEXT_CHAR;
	}
	if (u[0] == 0xc0 && u[1] == 0x80) {
		*len = 2;
		*cp = 0;
		return TEXT_CHAR_NUL;
	}
	/* RFC 3629, table 3-7 of Unicode: the second byte's range excludes
	 * overlong forms, surrogates and code points past U+10FFFF. */
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		c = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		c = u[0] & 0x0f;
		lo = u[0] == 0xe0 ? 0xa0 : 0x80;
		hi = u[0] == 0xed ? 0x9f : 0xbf;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		c = u[0] & 0x07;
		lo = u[0] == 0xf0 ? 0x90 : 0x80;
		hi = u[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		i = 1;
		goto bad;
	}
	for (i = 1; i < n; i++) {
		/* The terminating NUL is no continuation byte: never read past it. */
		if (u[i] < lo || u[i] > hi)
			goto bad;
		c = c << 6 | (u[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*len = n;
	*cp = c;
	return TEXT_CHAR;
bad:
	/* The bytes so far began a character: a maximal subpart, one U+FFFD
	 * (as WHATWG's decoder, and Python's, count them). */
	*len = i;
	*cp = u[0];
	return TEXT_CHAR_BAD;
}

int text_utf8_valid(const char *s)
{
	size_t len;
	uint32_t cp;

	for (; *s; s += len) {
		len = 1;
		if ((unsigned char)*s >= 0x80 && text_char_next(s, &len, &cp) != TEXT_CHAR)
			return 0;
	}
	return 1;
}

/* text_utf8_clean() into out, or only its length when out is NULL. */
static size_t clean_into(char *out, const char *s, const char *nul)
{
	static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
	size_t n = 0, len, nl = strlen(nul);
	uint32_t cp;

	while (*s) {
		enum text_char k = text_char_next(s, &len, &cp);
		const char *put = k == TEXT_CHAR ? s : k == TEXT_CHAR_NUL ? nul : replacement;
		size_t m = k == TEXT_CHAR ? len : k == TEXT_CHAR_NUL ? nl : sizeof(replacement) - 1;

		if (out)
			memcpy(out + n, put, m);
		n += m;
		s += len;
	}
	if (out)
		out[n] = '\0';
	return n;
}

char *text_utf8_clean(const char *s, const char *nul)
{
	char *out = malloc(clean_into(NULL, s, nul) + 1);

	if (out)
		clean_into(out, s, nul);
	return out;
}
