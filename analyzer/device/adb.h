/*
 * Talking to a device through the adb client: PROGRAM [-s SERIAL] ARGS...,
 * its stdout streamed into a sink as it comes, with a cap on its size and
 * one deadline for every call of a session. Never prints.
 *
 * Device commands go through `adb exec-out` as one argument: the client
 * sends its first argument as it is and quotes each later one, while
 * `adb shell` joins them with spaces, so only a single argument reaches the
 * device shell the same way with every client. exec-out gives no exit
 * status and mixes the device's stderr into its output, with or without
 * the shell protocol, so adb_exec() has the device print the command's
 * status after its output and takes it off again: a stream that ends
 * without it was cut.
 */
#ifndef LW_ANALYZER_ADB_H
#define LW_ANALYZER_ADB_H

#include <stddef.h>

#define ADB_DEFAULT_TIMEOUT_S 120
#define ADB_NAME_MAX 200 /* adb_safe_name() */

/* adb_result.status of a call that did not end by itself. */
#define ADB_TIMED_OUT (-1) /* still running at the deadline, or not started after it */
#define ADB_TOO_LONG (-2)  /* printed more than its cap */
#define ADB_STOPPED (-3)   /* its sink refused the output */
#define ADB_CUT (-4)       /* adb_exec(): the output ended before the device's exit status */

struct adb {
	const char *program; /* a path, or a name looked up in PATH */
	const char *serial;  /* NULL: no -s (adb picks the only device) */
	int timeout_s;       /* what adb_set_deadline() was given, for messages */
	long long deadline_ms; /* CLOCK_MONOTONIC; 0: adb_set_deadline() not called */
};

struct adb_result {
	int status;    /* exit status (128 + the signal that ended it), or ADB_* above */
	int reached;   /* adb_exec(): the device ran the command, and status is its own */
	char err[512]; /* what went wrong, NUL-terminated, one line: adb's stderr, the
	                  device's first line of output, or why the call was stopped */
};

/* Where a call's stdout goes. take() gets each piece as it comes and
 * returns 0, or -1 to stop the call (it is killed: ADB_STOPPED). */
struct adb_sink {
	int (*take)(struct adb_sink *s, const char *buf, size_t n);
};

/* Output kept in memory: at most the cap given to the call, so never more
 * than that. data is NUL-terminated once anything came; free() it. */
struct adb_buf {
	struct adb_sink sink;
	char *data;
	size_t len, alloc;
};

void adb_buf_init(struct adb_buf *b);

/* Output written to fd as it comes. werr is the errno of a write that
 * failed, which stops the call (ADB_STOPPED); 0 while none has. */
struct adb_file {
	struct adb_sink sink;
	int fd, werr;
};

void adb_file_init(struct adb_file *f, int fd);

/* Every call from now on ends within timeout_s seconds of this one. */
void adb_set_deadline(struct adb *a, int timeout_s);

/* Run adb with args (NULL-terminated, at most 32), its stdout into sink,
 * at most max_out bytes of it. Returns 0 when it ran (whatever its status,
 * in *res), -ENOENT when the program does not exist, or another -errno
 * when it could not be started. A call that outlives the deadline or its
 * cap is killed with what it started.
 * Context: allocates; blocks until adb exits or is killed. */
int adb_run(const struct adb *a, const char *const *args, struct adb_sink *sink, size_t max_out,
	    struct adb_result *res);

/* Run cmdline in the device shell with `adb exec-out`, its output (stderr
 * mixed in) into sink, at most max_out bytes. res->status is the device
 * command's exit status once the call went through, with its first line
 * of output in res->err when that is not 0. Returns as adb_run().
 * Context: allocates; blocks until adb exits or is killed. */
int adb_exec(const struct adb *a, const char *cmdline, struct adb_sink *sink, size_t max_out,
	     struct adb_result *res);

/* Whether a file name from a device (len bytes) is safe to put in a shell
 * command line and a local path: 1 to 200 letters, digits and ._-:+, with
 * no leading dot (so no slash, no "..", nothing a shell would read). */
int adb_safe_name(const char *s, size_t len);

/* s single-quoted for the device shell, into dst (len bytes). Returns 0,
 * or -ENAMETOOLONG when it does not fit. */
int adb_quote(char *dst, size_t len, const char *s);

/*
 * Several files of one device directory in one call: a device shell
 * script that prints, for each regular file in dir matching glob (and not
 * skip, when given) whose name is safe for a command line, a header with
 * its size and name, its bytes, and cat's status. A dir that the shell
 * may enter but not read (mode 0771, another user's) makes it print
 * ADB_UNLISTABLE and exit 1, so that it is not taken for an empty one.
 * adb_stream_script() writes it into dst (len bytes); returns 0 or
 * -ENAMETOOLONG.
 */
#define ADB_UNLISTABLE "the device shell may enter the directory but not list it"
int adb_stream_script(char *dst, size_t len, const char *dir, const char *glob, const char *skip);

/* What the caller does with the files of a stream. */
struct adb_stream_ops {
	/* A file begins: return an fd to write its size bytes to, -1 to have
	 * them read and dropped, or -2 to stop the call (a local failure). */
	int (*begin)(void *ctx, const char *name, unsigned long long size);
	/* It ended (fd as begin() gave it): whole is 1 when all its bytes came
	 * and cat exited 0; else why says what went wrong, or is NULL when fd
	 * could not be written (adb_stream.werr). Return 0, or -1 to stop the
	 * call. */
	int (*end)(void *ctx, const char *name, int fd, int whole, const char *why);
	/* A file the device shell could not read. Return 0, or -1 to stop. */
	int (*denied)(void *ctx, const char *name);
	void *ctx;
};

/* The sink that reads a stream script's output. */
struct adb_stream {
	struct adb_sink sink;
	const struct adb_stream_ops *ops;
	int state, fd;
	int failed; /* the stream lost its framing, or was cut in a file */
	int werr;   /* errno of a failed write to a file, or 0 */
	size_t headers; /* files announced so far (read or denied) */
	char name[256], line[512];
	size_t nline;
	unsigned long long left;
};

void adb_stream_init(struct adb_stream *st, const struct adb_stream_ops *ops);

/* After the call: a file the stream was in the middle of ends as not
 * whole, with why. Returns what end() returned. */
int adb_stream_finish(struct adb_stream *st, const char *why);

#endif
