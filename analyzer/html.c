/* What the HTML pages share (html.h). */
#include "html.h"

#include <math.h>

#include "format.h"

void html_esc(FILE *out, const char *s)
{
	if (!s)
		return;
	for (s = fmt_text(s); *s; s++) {
		switch (*s) {
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
			fputc(*s, out);
		}
	}
}

double html_axis_step(double span, int ticks)
{
	double raw = span / (ticks > 0 ? ticks : 1), p = pow(10, floor(log10(raw)));

	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}
