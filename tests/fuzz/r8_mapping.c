/* libFuzzer harness for r8_mapping_load() and r8_retrace_event(): the
 * input is a mapping file (written to a temporary file, as --mapping
 * reads one); when it loads, a fixed obfuscated stack is retraced with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../analyzer/symbols/r8-mapping.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const frames[] = {
	"a.b.a(SourceFile:4)", "a.b.b(SourceFile:7)", "a.c.d(Unknown Source)", "a.a.a(:1)",
	"a(SourceFile:1)", "a.b.c(SourceFile:2147483647)", "x/a.b.a(a.kt:1)", "Caused by: a.d: x",
	"Suppressed: a.b", "a.b.(SourceFile:1)", ".a(SourceFile:1)",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct r8_mapping *m = NULL;
	struct java_frame st[sizeof(frames) / sizeof(frames[0])];
	struct ev_error err;
	struct log_event e;
	size_t i, k;
	int fd;

	snprintf(path, sizeof(path), "%s/lw-fuzz-r8-XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (r8_mapping_load(path, &m, &err) != 0) {
		if (err.reason[0] == '\0')
			abort(); /* a refusal must say why */
		unlink(path);
		return 0;
	}
	unlink(path);
	memset(&e, 0, sizeof(e));
	memset(st, 0, sizeof(st));
	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		st[i].text = (char *)frames[i];
	e.type = LOG_JAVA_CRASH;
	e.reason = (char *)"a.d: message";
	e.stack = st;
	e.nstack = sizeof(frames) / sizeof(frames[0]);
	if (r8_retrace_event(m, &e) < 0)
		abort(); /* only ENOMEM fails, and libFuzzer's limit is far */
	for (i = 0; i < e.nstack; i++) {
		for (k = 0; k < st[i].nretraced; k++)
			free(st[i].retraced[k]);
		free(st[i].retraced);
	}
	free(e.reason_retraced);
	r8_mapping_free(m);
	return 0;
}
