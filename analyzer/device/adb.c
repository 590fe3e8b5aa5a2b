/* Running the adb client with fork and exec, and the device-side scripts
 * whose output pull reads (adb.h). */
#include "adb.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ADB_ARGS_MAX 32

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void adb_set_deadline(struct adb *a, int timeout_s)
{
	a->timeout_s = timeout_s > 0 ? timeout_s : ADB_DEFAULT_TIMEOUT_S;
	a->deadline_ms = now_ms() + (long long)a->timeout_s * 1000;
}

/* --- output in memory --------------------------------------------------- */

static int buf_take(struct adb_sink *s, const char *data, size_t n)
{
	struct adb_buf *b = (struct adb_buf *)s;
	char *p;

	if (b->len + n + 1 > b->alloc) {
		size_t want = b->alloc ? b->alloc : 4096;

		while (want < b->len + n + 1)
			want *= 2;
		if (!(p = realloc(b->data, want)))
			return -1;
		b->data = p;
		b->alloc = want;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

void adb_buf_init(struct adb_buf *b)
{
	b->sink.take = buf_take;
	b->data = NULL;
	b->len = b->alloc = 0;
}

/* --- output in a file ------------------------------------------------------- */

/* Write all n bytes; 0, or the errno of the write that failed. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int file_take(struct adb_sink *s, const char *buf, size_t n)
{
	struct adb_file *f = (struct adb_file *)s;

	f->werr = write_all(f->fd, buf, n);
	return f->werr ? -1 : 0;
}

void adb_file_init(struct adb_file *f, int fd)
{
	f->sink.take = file_take;
	f->fd = fd;
	f->werr = 0;
}

/* --- running adb ------------------------------------------------------------ */

/* The child: its fds in place, then exec; on failure it sends errno down
 * report_fd (closed on a successful exec) and exits 127. */
static void child(const struct adb *a, const char *const *args, int out_fd, int err_fd,
		  int report_fd)
{
	const char *argv[ADB_ARGS_MAX + 4];
	size_t n = 0, i;
	int e, devnull = open("/dev/null", O_RDONLY);

	argv[n++] = a->program;
	if (a->serial) {
		argv[n++] = "-s";
		argv[n++] = a->serial;
	}
	for (i = 0; args[i] && i < ADB_ARGS_MAX; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* Its own process group, so that killing it kills what it started. */
	setpgid(0, 0);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
		e = errno;
		goto fail;
	}
	execvp(a->program, (char *const *)argv);
	e = errno;
fail:
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int set_flags(int fd, int fd_flags, int fl_flags)
{
	int f = fcntl(fd, F_GETFD), g = fcntl(fd, F_GETFL);

	return f < 0 || g < 0 || fcntl(fd, F_SETFD, f | fd_flags) < 0 ||
			       fcntl(fd, F_SETFL, g | fl_flags) < 0
		       ? -1
		       : 0;
}

/* A pipe whose ends are close-on-exec; its read end does not block when
 * nonblock is O_NONBLOCK. */
static int make_pipe(int p[2], int nonblock)
{
	if (pipe(p) != 0)
		return -errno;
	if (set_flags(p[0], FD_CLOEXEC, nonblock) != 0 || set_flags(p[1], FD_CLOEXEC, 0) != 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	return 0;
}

/* One running call: its pipes, what it printed so far, and why it stops. */
struct call {
	int out, err;
	struct adb_sink *sink;
	size_t max_out, got;
	char errbuf[512];
	size_t nerr;
	int stop; /* 0, or the ADB_* status it is stopped with */
};

/* Read what is there on fd, closing it at EOF; stop reading once the call
 * is to be stopped. */
static void drain(struct call *c, int *fd, int is_out)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close(*fd);
			*fd = -1;
			return;
		}
		if (!is_out) {
			size_t room = sizeof(c->errbuf) - 1 - c->nerr;
			size_t k = (size_t)n < room ? (size_t)n : room;

			memcpy(c->errbuf + c->nerr, buf, k);
			c->nerr += k;
			continue;
		}
		if ((size_t)n > c->max_out - c->got) {
			c->stop = ADB_TOO_LONG;
			return;
		}
		c->got += (size_t)n;
		if (c->sink->take(c->sink, buf, (size_t)n) != 0) {
			c->stop = ADB_STOPPED;
			return;
		}
	}
}

static void kill_and_reap(pid_t pid, int *wstatus)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
}

/* Pump the pipes until adb exits, is stopped, or the deadline passes. */
static int pump(const struct adb *a, struct call *c, pid_t pid, int *wstatus)
{
	for (;;) {
		struct pollfd fds[2];
		long long left = a->deadline_ms ? a->deadline_ms - now_ms() : 100;
		nfds_t n = 0;
		pid_t r;

		if (c->out >= 0)
			fds[n++] = (struct pollfd){ .fd = c->out, .events = POLLIN };
		if (c->err >= 0)
			fds[n++] = (struct pollfd){ .fd = c->err, .events = POLLIN };
		if (left <= 0)
			c->stop = ADB_TIMED_OUT;
		if (c->stop) {
			kill_and_reap(pid, wstatus);
			return 0;
		}
		/* Poll in steps, to notice adb's exit while something it started
		 * (a server it forked) keeps the pipes open; in short ones once
		 * both are closed. */
		if (left > (n ? 50 : 5))
			left = n ? 50 : 5;
		if (poll(fds, n, (int)left) < 0 && errno != EINTR) {
			int e = errno;

			kill_and_reap(pid, wstatus);
			return -e;
		}
		if (c->out >= 0)
			drain(c, &c->out, 1);
		if (c->err >= 0)
			drain(c, &c->err, 0);
		r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid) {
			/* It is gone: all it wrote is in the pipes. */
			if (c->out >= 0)
				drain(c, &c->out, 1);
			if (c->err >= 0)
				drain(c, &c->err, 0);
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -errno; /* not our child any more: nothing to reap */
	}
}

/* The first line of text (n bytes), for a one-line message. */
static void first_line(char *dst, size_t len, const char *text, size_t n)
{
	size_t k = 0;

	while (k < n && (text[k] == '\n' || text[k] == '\r'))
		k++;
	text += k;
	n -= k;
	for (k = 0; k < n && text[k] != '\n' && text[k] != '\r' && k + 1 < len; k++)
		dst[k] = text[k];
	dst[k] = '\0';
}

/* The line of adb's stderr that says what went wrong: not the news of a
 * server it started ("* daemon started successfully") nor "- waiting for
 * device -". */
static void message_line(char *dst, size_t len, const char *text, size_t n)
{
	const char *end = text + n;

	while (text < end && (*text == '\n' || (end - text >= 2 && memcmp(text, "* ", 2) == 0) ||
			      (end - text >= 13 && memcmp(text, "- waiting for", 13) == 0))) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));

		if (!nl)
			break;
		text = nl + 1;
	}
	first_line(dst, len, text, (size_t)(end - text));
}

int adb_run(const struct adb *a, const char *const *args, struct adb_sink *sink, size_t max_out,
	    struct adb_result *res)
{
	struct call c = { .out = -1, .err = -1, .sink = sink, .max_out = max_out };
	int outp[2], errp[2], report[2], e = 0, wstatus = 0, rc;
	ssize_t got;
	pid_t pid;

	res->reached = 0;
	if (a->deadline_ms && now_ms() >= a->deadline_ms) {
		res->status = ADB_TIMED_OUT;
		snprintf(res->err, sizeof(res->err), "not tried: the %d s deadline had passed",
			 a->timeout_s);
		return 0;
	}
	if ((rc = make_pipe(outp, O_NONBLOCK)) != 0)
		return rc;
	if ((rc = make_pipe(errp, O_NONBLOCK)) != 0)
		goto close_out;
	if ((rc = make_pipe(report, 0)) != 0)
		goto close_err;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto close_report;
	}
	if (pid == 0)
		child(a, args, outp[1], errp[1], report[1]);
	close(outp[1]);
	close(errp[1]);
	close(report[1]);
	outp[1] = errp[1] = report[1] = -1;
	/* The report pipe closes at exec, or carries exec's errno. */
	do
		got = read(report[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	c.out = outp[0];
	c.err = errp[0];
	outp[0] = errp[0] = -1;
	rc = pump(a, &c, pid, &wstatus);
	if (rc != 0 || got == (ssize_t)sizeof(e)) {
		if (rc == 0)
			rc = -e;
		goto close_call;
	}
	if (c.stop == ADB_TIMED_OUT)
		snprintf(res->err, sizeof(res->err), "adb did not answer within the %d s deadline",
			 a->timeout_s);
	else if (c.stop == ADB_TOO_LONG)
		snprintf(res->err, sizeof(res->err), "printed more than %zu bytes", max_out);
	else if (c.stop == ADB_STOPPED)
		snprintf(res->err, sizeof(res->err), "stopped");
	else
		message_line(res->err, sizeof(res->err), c.errbuf, c.nerr);
	res->status = c.stop ? c.stop
		      : WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
close_call:
	if (c.out >= 0)
		close(c.out);
	if (c.err >= 0)
		close(c.err);
close_report:
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
close_err:
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
close_out:
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	return rc;
}

/* --- a device command with its exit status ---------------------------------- */

/* What the device prints after the command's output: "\nLWEXIT <status>\n". */
#define EXIT_MARK "\nLWEXIT "
#define EXIT_HOLD 16 /* the longest mark with its status and newline */

/* Passes the output on to the caller's sink but for its last EXIT_HOLD
 * bytes, which may be the mark; keeps the start of the output for
 * messages. */
struct exec_sink {
	struct adb_sink sink;
	struct adb_sink *to;
	char tail[EXIT_HOLD], head[256];
	size_t ntail, nhead;
};

static int exec_take(struct adb_sink *s, const char *buf, size_t n)
{
	struct exec_sink *x = (struct exec_sink *)s;
	size_t total = x->ntail + n, keep = total < EXIT_HOLD ? total : EXIT_HOLD;
	size_t out = total - keep, k = out < x->ntail ? out : x->ntail;

	if (x->nhead < sizeof(x->head)) {
		size_t m = sizeof(x->head) - x->nhead < n ? sizeof(x->head) - x->nhead : n;

		memcpy(x->head + x->nhead, buf, m);
		x->nhead += m;
	}
	if (k && x->to->take(x->to, x->tail, k) != 0)
		return -1;
	if (out > k && x->to->take(x->to, buf, out - k) != 0)
		return -1;
	if (n >= keep) {
		memcpy(x->tail, buf + n - keep, keep);
	} else {
		memmove(x->tail, x->tail + x->ntail - (keep - n), keep - n);
		memcpy(x->tail + keep - n, buf, n);
	}
	x->ntail = keep;
	return 0;
}

/* The status in the held-back tail, with the output before the mark
 * passed on; -1 when the tail holds no mark. */
static int exec_status(struct exec_sink *x)
{
	size_t i, mark = sizeof(EXIT_MARK) - 1;
	long status = 0;

	if (x->ntail < mark + 2 || x->tail[x->ntail - 1] != '\n')
		return -1;
	for (i = x->ntail - mark - 1;; i--) {
		if (memcmp(x->tail + i, EXIT_MARK, mark) == 0)
			break;
		if (i == 0)
			return -1;
	}
	if (i + mark == x->ntail - 1)
		return -1;
	for (size_t j = i + mark; j < x->ntail - 1; j++) {
		if (x->tail[j] < '0' || x->tail[j] > '9' || status > 255)
			return -1;
		status = status * 10 + (x->tail[j] - '0');
	}
	if (status > 255 || (i && x->to->take(x->to, x->tail, i) != 0))
		return -1;
	return (int)status;
}

int adb_exec(const struct adb *a, const char *cmdline, struct adb_sink *sink, size_t max_out,
	     struct adb_result *res)
{
	/* The command runs in a subshell, so that an exit in it still leaves
	 * the status to print; its stderr joins its output as exec-out would
	 * mix it anyway. */
	static const char fmt[] = "( %s ) 2>&1; s=$?; echo; echo LWEXIT $s";
	struct exec_sink x = { .sink = { exec_take }, .to = sink };
	size_t len = strlen(cmdline) + sizeof(fmt);
	char *script = malloc(len);
	const char *args[3] = { "exec-out", script, NULL };
	int rc, status;

	if (!script)
		return -ENOMEM;
	snprintf(script, len, fmt, cmdline);
	rc = adb_run(a, args, &x.sink, max_out, res);
	free(script);
	res->reached = 0;
	if (rc != 0 || res->status != 0)
		return rc;
	status = exec_status(&x);
	if (status < 0) {
		res->status = ADB_CUT;
		snprintf(res->err, sizeof(res->err),
			 "the output ended before the device's exit status: the stream was cut");
		return 0;
	}
	res->status = status;
	res->reached = 1;
	if (status != 0) {
		first_line(res->err, sizeof(res->err), x.head, x.nhead);
		if (!res->err[0] || strncmp(res->err, "LWEXIT ", 7) == 0)
			snprintf(res->err, sizeof(res->err), "exited with status %d", status);
	}
	return 0;
}

int adb_safe_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > ADB_NAME_MAX || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-' ||
		      s[i] == ':' || s[i] == '+' || s[i] == ','))
			return 0;
	return 1;
}

int adb_quote(char *dst, size_t len, const char *s)
{
	size_t n = 0;

#define PUT(c)                                      \
	do {                                        \
		if (n + 1 >= len)                   \
			return -ENAMETOOLONG;       \
		dst[n++] = (c);                     \
	} while (0)
	PUT('\'');
	for (; *s; s++) {
		if (*s == '\'') {
			PUT('\'');
			PUT('\\');
			PUT('\'');
		}
		PUT(*s);
	}
	PUT('\'');
#undef PUT
	dst[n] = '\0';
	return 0;
}

/* --- several files in one call ---------------------------------------------- */

/* A file: "LWFILE <size> <name>\n", its bytes, "\nLWCAT <cat's status>\n".
 * One the shell cannot read: "LWDENY <name>\n". Names with a character
 * outside [A-Za-z0-9._:+,-] are left out, so that each header is one line
 * and each name can go into a command line. One stat gives every size, so
 * that a file costs the device one process (cat), not two. A directory
 * that the shell may enter but not list (/data/anr, 0771 system's) fails
 * with ADB_UNLISTABLE, where the glob would match nothing and so read as
 * empty. */
int adb_stream_script(char *dst, size_t len, const char *dir, const char *glob, const char *skip)
{
	char qdir[512], skipcase[300] = "";
	int n;

	if (adb_quote(qdir, sizeof(qdir), dir) != 0)
		return -ENAMETOOLONG;
	if (skip && (size_t)snprintf(skipcase, sizeof(skipcase), " %s) continue;;", skip) >=
			    sizeof(skipcase))
		return -ENAMETOOLONG;
	n = snprintf(dst, len,
		     "cd %s || exit 1; "
		     "[ -r . ] || { echo \"" ADB_UNLISTABLE "\"; exit 1; }; "
		     "stat -L -c \"%%s %%n\" -- %s 2>/dev/null | "
		     "while read -r n f; do "
		     "case $f in *[!A-Za-z0-9._:+,-]*) continue;;%s esac; "
		     "if [ ! -f \"$f\" ]; then continue; "
		     "elif [ -r \"$f\" ]; then echo \"LWFILE $n $f\"; "
		     "cat \"$f\"; s=$?; echo; echo \"LWCAT $s\"; "
		     "else echo \"LWDENY $f\"; fi; done",
		     qdir, glob, skipcase);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

enum { ST_LINE, ST_DATA, ST_TRAIL_NL, ST_TRAIL, ST_LOST };

static int stream_end(struct adb_stream *st, int whole, const char *why)
{
	int fd = st->fd;

	st->fd = -1;
	return st->ops->end(st->ops->ctx, st->name, fd, whole, why);
}

/* A header line: start a file, note a denied one, or pass over noise. */
static int stream_line(struct adb_stream *st)
{
	char *s = st->line, *end;
	unsigned long long size;
	int fd;

	st->line[st->nline] = '\0';
	if (strncmp(s, "LWDENY ", 7) == 0) {
		st->headers++;
		return st->ops->denied(st->ops->ctx, s + 7);
	}
	if (strncmp(s, "LWFILE ", 7) != 0)
		return 0;
	st->headers++;
	s += 7;
	s += strspn(s, " ");
	if (*s < '0' || *s > '9')
		goto lost;
	errno = 0;
	size = strtoull(s, &end, 10);
	if (errno || *end != ' ' || !end[1] || strlen(end + 1) >= sizeof(st->name))
		goto lost;
	strcpy(st->name, end + 1);
	fd = st->ops->begin(st->ops->ctx, st->name, size);
	if (fd == -2)
		return -1;
	st->fd = fd;
	st->left = size;
	st->state = ST_DATA;
	return 0;
lost:
	/* A header that is not one: nothing after it can be trusted. */
	st->state = ST_LOST;
	st->failed = 1;
	return 0;
}

/* The stream lost its framing in the middle of a file: that file is not
 * whole, and nothing after it can be trusted. */
static int stream_lost(struct adb_stream *st)
{
	st->state = ST_LOST;
	st->failed = 1;
	return stream_end(st, 0, "its size changed while it was read, or the stream is out of step");
}

static int stream_take(struct adb_sink *s, const char *buf, size_t n)
{
	struct adb_stream *st = (struct adb_stream *)s;

	while (n) {
		size_t k;
		int whole;

		switch (st->state) {
		case ST_LOST:
			return 0;
		case ST_DATA:
			k = st->left < n ? (size_t)st->left : n;
			if (st->fd >= 0 && (st->werr = write_all(st->fd, buf, k)) != 0) {
				st->state = ST_LOST;
				st->failed = 1;
				stream_end(st, 0, NULL);
				return -1;
			}
			st->left -= k;
			buf += k;
			n -= k;
			if (st->left == 0) {
				st->state = ST_TRAIL_NL;
				st->nline = 0;
			}
			break;
		case ST_TRAIL_NL:
			/* The bytes end where the header said: the device's newline
			 * must come next, then "LWCAT <cat's status>". */
			if (*buf != '\n')
				return stream_lost(st);
			st->state = ST_TRAIL;
			buf++;
			n--;
			break;
		case ST_TRAIL:
			if (*buf != '\n') {
				if (st->nline >= 16)
					return stream_lost(st);
				st->line[st->nline++] = *buf++;
				n--;
				break;
			}
			st->line[st->nline] = '\0';
			if (strncmp(st->line, "LWCAT ", 6) != 0 || !st->line[6] ||
			    strspn(st->line + 6, "0123456789") != st->nline - 6)
				return stream_lost(st);
			whole = strcmp(st->line + 6, "0") == 0;
			st->state = ST_LINE;
			st->nline = 0;
			buf++;
			n--;
			if (stream_end(st, whole, whole ? "" : "cat failed on the device") != 0)
				return -1;
			break;
		default: /* ST_LINE */
			if (*buf == '\n') {
				if (stream_line(st) != 0)
					return -1;
				if (st->state == ST_LINE)
					st->nline = 0;
			} else if (st->nline < sizeof(st->line) - 1) {
				st->line[st->nline++] = *buf;
			}
			buf++;
			n--;
			break;
		}
	}
	return 0;
}

void adb_stream_init(struct adb_stream *st, const struct adb_stream_ops *ops)
{
	memset(st, 0, sizeof(*st));
	st->sink.take = stream_take;
	st->ops = ops;
	st->fd = -1;
	st->state = ST_LINE;
}

int adb_stream_finish(struct adb_stream *st, const char *why)
{
	if (st->state != ST_DATA && st->state != ST_TRAIL_NL && st->state != ST_TRAIL)
		return 0;
	st->state = ST_LOST;
	st->failed = 1;
	return stream_end(st, 0, why);
}
