/* bugreportz's output, read as it comes (bugreportz.h). */
#include "bugreportz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../evidence/text.h"

/* "DONE/TOTAL" as a percentage, or -1. */
static int percent_of(const char *s)
{
	char *end;
	long done = strtol(s, &end, 10), total;

	if (end == s || *end != '/' || done < 0)
		return -1;
	s = end + 1;
	total = strtol(s, &end, 10);
	if (end == s || *end || total <= 0)
		return -1;
	/* dumpstate's estimate of the total can be passed: never past 100 */
	return done >= total ? 100 : (int)(done * 100 / total);
}

static void line_done(struct bugreportz *z)
{
	char *s = z->line;
	struct span line;
	int pc;

	s[z->nline] = '\0';
	if (z->nline && s[z->nline - 1] == '\r')
		s[z->nline - 1] = '\0';
	if (!*s || z->overlong) {
		if (z->overlong)
			z->unknown++;
		return;
	}
	line = span_of(s, strlen(s));
	if (span_starts(line, "BEGIN:")) {
		snprintf(z->path, sizeof(z->path), "%s", s + 6);
	} else if (span_starts(line, "OK:")) {
		snprintf(z->path, sizeof(z->path), "%s", s + 3);
		z->ok = 1;
	} else if (span_starts(line, "FAIL:")) {
		snprintf(z->fail, sizeof(z->fail), "%s", s[5] ? s + 5 : "(no message)");
	} else if (span_starts(line, "PROGRESS:") && (pc = percent_of(s + 9)) >= 0) {
		/* dumpstate's progress can go back: only forward is shown */
		if (pc > z->percent) {
			z->percent = pc;
			if (z->progress)
				z->progress(z->arg, pc);
		}
	} else {
		if (!z->unknown++)
			snprintf(z->first_unknown, sizeof(z->first_unknown), "%.127s", s);
	}
}

static int take(struct adb_sink *s, const char *buf, size_t n)
{
	struct bugreportz *z = (struct bugreportz *)s;
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			line_done(z);
			z->nline = 0;
			z->overlong = 0;
		} else if (z->nline < sizeof(z->line) - 1) {
			z->line[z->nline++] = buf[i];
		} else {
			z->overlong = 1;
		}
	}
	return 0;
}

void bugreportz_init(struct bugreportz *z, bugreportz_progress_fn progress, void *arg)
{
	memset(z, 0, sizeof(*z));
	z->sink.take = take;
	z->progress = progress;
	z->arg = arg;
	z->percent = -1;
}

void bugreportz_finish(struct bugreportz *z)
{
	if (z->nline || z->overlong)
		line_done(z);
	z->nline = 0;
	z->overlong = 0;
}

int bugreportz_version(const char *out, int *major, int *minor)
{
	char *end;
	long a, b;

	out += strspn(out, " \t\r\n");
	a = strtol(out, &end, 10);
	if (end == out || *end != '.' || a < 0 || a > 1000)
		return -1;
	out = end + 1;
	b = strtol(out, &end, 10);
	if (end == out || b < 0 || b > 1000 || end[strspn(end, " \t\r\n")])
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

const char *bugreportz_path_problem(const char *path)
{
	const char *p = path, *slash;
	size_t n = strlen(path);

	if (path[0] != '/')
		return "not an absolute path";
	if (n >= BUGREPORTZ_PATH_MAX - 1)
		return "too long";
	if (n < 5 || strcmp(path + n - 4, ".zip") != 0)
		return "not a .zip";
	while (*p == '/') {
		p++;
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (!adb_safe_name(p, n))
			return "a name with characters a shell would read, or a leading dot";
		p += n;
	}
	return NULL;
}

const char *bugreportz_name(const char *path)
{
	return strrchr(path, '/') + 1;
}
