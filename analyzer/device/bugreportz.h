/*
 * What the device's bugreportz prints (frameworks/native/cmds/bugreportz),
 * read as it comes: the zip that dumpstate writes and how far it is.
 *
 *   bugreportz -v      its version, "1.2" (on stderr, which exec-out mixes in)
 *   bugreportz -p      BEGIN:PATH, PROGRESS:DONE/TOTAL lines as dumpstate
 *                      goes on, and OK:PATH when the zip is whole, or
 *                      FAIL:MESSAGE (1.1 and later)
 *   bugreportz         only the OK: or FAIL: line (1.0, Android 7.0)
 *
 * This is what `adb bugreport` reads; pull reads it itself so that it can
 * show the progress (through a pipe, the client prints none), keep its
 * deadline and cap, and copy the zip with the client's exec-out as it
 * copies every other file (pull.c). Never prints.
 */
#ifndef LW_ANALYZER_BUGREPORTZ_H
#define LW_ANALYZER_BUGREPORTZ_H

#include <stddef.h>

#include "adb.h"

#define BUGREPORTZ_PATH_MAX 256

/* Called when the progress grows: percent from 0 to 100. */
typedef void (*bugreportz_progress_fn)(void *arg, int percent);

/* The sink for bugreportz's output (adb_exec()). */
struct bugreportz {
	struct adb_sink sink;
	bugreportz_progress_fn progress;
	void *arg;
	char line[512];
	size_t nline;
	int overlong;               /* the line being read is longer than line */
	/* results */
	char path[BUGREPORTZ_PATH_MAX]; /* of BEGIN: or OK:, empty when none came */
	int ok;                     /* an OK: line came: path is the whole zip */
	char fail[256];             /* FAIL:'s message, empty when none came */
	int percent;                /* the last progress, -1 when none came */
	size_t unknown;             /* lines of no command bugreportz has */
	char first_unknown[128];
};

void bugreportz_init(struct bugreportz *z, bugreportz_progress_fn progress, void *arg);

/* After the call: the last line, when it did not end with a newline. */
void bugreportz_finish(struct bugreportz *z);

/* bugreportz -v's output as major and minor: 0, or -1 when it is no
 * version. */
int bugreportz_version(const char *out, int *major, int *minor);

/* Why path is not a zip on the device that pull may copy, or NULL: it
 * must be absolute, end in ".zip", and have only names of letters, digits
 * and ._-:+, (no "..", nothing a shell would read). */
const char *bugreportz_path_problem(const char *path);

/* The file name of a path that bugreportz_path_problem() accepts. */
const char *bugreportz_name(const char *path);

#endif
