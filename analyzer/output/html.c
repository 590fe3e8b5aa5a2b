/* What the HTML pages share (html.h). */
#include "html.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../../src/vocab.h"
#include "../format.h"

/*
 * The colours of the classes and the levels, the one table the pages use.
 * The classes' are the Okabe-Ito palette (and a grey for unknown), told
 * apart by people with each common colour blindness; the levels' are dark,
 * so that they differ from the classes' in lightness too, and a trend chart
 * draws a level as its class's colour at the level's opacity. Every two of
 * them, and of the levels at their opacities, are at least 60 apart in RGB
 * (tests/html_check.py). No colour stands alone: a page writes the name
 * beside it.
 */
static const char *const class_colours[LW_EXIT_CLASS_COUNT] = {
	[LW_EXIT_LOW_MEMORY] = "#d55e00",     [LW_EXIT_ANR] = "#e69f00",
	[LW_EXIT_NATIVE_CRASH] = "#cc79a7",   [LW_EXIT_JAVA_CRASH] = "#0072b2",
	[LW_EXIT_SYSTEM_RECLAIM] = "#009e73", [LW_EXIT_UNKNOWN] = "#909090",
};
static const char *const level_colours[LW_EVIDENCE_UNCONFIRMED + 1] = {
	[LW_EVIDENCE_CONFIRMED] = "#a50026",
	[LW_EVIDENCE_SUPPORTED] = "#8c510a",
	[LW_EVIDENCE_UNCONFIRMED] = "#5e6b7a",
};
static const double level_opacities[LW_EVIDENCE_UNCONFIRMED + 1] = { 1, 1, 0.7, 0.45 };

#define CLEAN_COLOUR "#2e7d32"

const char *html_class_colour(int cls)
{
	return cls > 0 && cls < LW_EXIT_CLASS_COUNT ? class_colours[cls] : class_colours[LW_EXIT_UNKNOWN];
}

const char *html_level_colour(int level)
{
	return level > 0 && level <= LW_EVIDENCE_UNCONFIRMED ? level_colours[level]
							     : level_colours[LW_EVIDENCE_UNCONFIRMED];
}

double html_level_opacity(int level)
{
	return level > 0 && level <= LW_EVIDENCE_UNCONFIRMED ? level_opacities[level] : 1;
}

void html_colour_css(FILE *out)
{
	int i;

	fputs(":root{", out);
	for (i = 1; i < LW_EXIT_CLASS_COUNT; i++)
		fprintf(out, "--class-%s:%s;", vocab_name(&vocab_exit_classes, i), class_colours[i]);
	for (i = 1; i <= LW_EVIDENCE_UNCONFIRMED; i++)
		fprintf(out, "--level-%s:%s;", vocab_name(&vocab_evidence_levels, i), level_colours[i]);
	fputs("--clean:" CLEAN_COLOUR "}", out);
}

static void esc_char(FILE *out, char c)
{
	switch (c) {
	case '&':
		fputs("&amp;", out);
		break;
	case '<':
		fputs("&lt;", out);
		break;
	case '>':
		fputs("&gt;", out);
		break;
	case '"':
		fputs("&quot;", out);
		break;
	case '\'':
		fputs("&#39;", out);
		break;
	default:
		fputc(c, out);
	}
}

void html_esc(FILE *out, const char *s)
{
	if (!s)
		return;
	for (s = fmt_text(s); *s; s++)
		esc_char(out, *s);
}

/* Whether s matches pat, where 'd' is a digit and '?' any of "T " (its
 * place is given in *sep); 0 or the length. */
static size_t match(const char *s, const char *pat, char *sep)
{
	size_t i;

	for (i = 0; pat[i]; i++) {
		if (pat[i] == 'd' ? !isdigit((unsigned char)s[i])
		    : pat[i] == '?' ? (s[i] != 'T' && s[i] != ' ')
				    : s[i] != pat[i])
			return 0;
		if (pat[i] == '?')
			*sep = s[i];
	}
	return i;
}

void html_esc_times(FILE *out, const char *s, const char *zone)
{
	const char *start;
	size_t n, frac, k;
	char sep = 0;

	if (!s)
		return;
	for (s = start = fmt_text(s); *s;) {
		sep = 0;
		n = match(s, "dddd-dd-dd?dd:dd:dd", &sep);
		if (!n && (s == start || !isdigit((unsigned char)s[-1])))
			n = match(s, "dd-dd dd:dd:dd", &sep); /* logcat's, without a year */
		if (!n) {
			esc_char(out, *s++);
			continue;
		}
		for (frac = n; s[frac] == '.' || (frac > n && isdigit((unsigned char)s[frac])); frac++)
			;
		if (sep == 'T' && s[frac] == 'Z') {
			/* a UTC time: read as one, to the millisecond */
			fwrite(s, 1, 10, out);
			fputc(' ', out);
			fwrite(s + 11, 1, frac - n > 4 ? n + 4 - 11 : frac - 11, out);
			fputs(" UTC", out);
			s += frac + 1;
			continue;
		}
		fwrite(s, 1, frac, out);
		s += frac;
		k = zone ? strlen(zone) : 0;
		if (zone && !(s[0] == ' ' && strncmp(s + 1, zone, k) == 0) && strncmp(s, " UTC", 4) != 0) {
			fputc(' ', out);
			html_esc(out, zone);
		}
	}
}

double html_axis_step(double span, int ticks)
{
	double raw = span / (ticks > 0 ? ticks : 1), p = pow(10, floor(log10(raw)));

	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}
