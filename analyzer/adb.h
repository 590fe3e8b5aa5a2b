/*
 * Running the adb client: PROGRAM [-s SERIAL] ARGS..., its stdout into a
 * file or a buffer and the start of its stderr kept for messages. adb
 * joins its arguments with spaces into one device shell command line, so
 * callers quote what the device shell must see as one word. Never prints.
 */
#ifndef LW_ANALYZER_ADB_H
#define LW_ANALYZER_ADB_H

#include <stddef.h>

#define ADB_DEFAULT_TIMEOUT_S 120
#define ADB_TIMED_OUT 124 /* adb_result.status of a call that ran out of time */

struct adb {
	const char *program; /* a path, or a name looked up in PATH */
	const char *serial;  /* NULL: no -s (adb picks the only device) */
	int timeout_s;       /* a call still running after this is killed; 0: the default */
};

struct adb_result {
	int status;     /* exit status, or 128 + the signal that ended it */
	char err[512];  /* the start of its stderr, NUL-terminated, trailing newline cut */
};

/* Run adb with args (NULL-terminated) and its stdout into out_fd. Returns
 * 0 when it ran (whatever its status, in *res), -ENOENT when the program
 * does not exist, or another -errno when it could not be started. A call
 * that outlives a->timeout_s is killed (with what it started) and reads as
 * status ADB_TIMED_OUT with a message in res->err.
 * Context: allocates; blocks until adb exits or times out. */
int adb_run(const struct adb *a, const char *const *args, int out_fd, struct adb_result *res);

/* adb_run() with stdout captured into *out (NUL-terminated, *len bytes
 * before the NUL; free with free()). *out is written only on success.
 * Context: allocates; blocks until adb exits. */
int adb_capture(const struct adb *a, const char *const *args, char **out, size_t *len,
		struct adb_result *res);

#endif
