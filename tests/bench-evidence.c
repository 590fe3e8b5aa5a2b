/*
 * bench-evidence: how fast the evidence scanners read a fleet's worth of
 * logs, against `grep -c` on the same file as the floor, measured in the
 * same run.
 *
 * Two inputs are generated into temporary files:
 *   - a threadtime logcat of MB megabytes (default 300): mostly ordinary app
 *     and system lines with varied tags and lengths, and a small share
 *     (about 1 line in 200) of lmkd, ActivityManager and Zygote lines, some
 *     of them evidence (Kill, Killing, has died, exited due to signal) and
 *     some not (Reclaimed, Start proc);
 *   - a `dumpsys activity exit-info` dump with 100k compact (Android 13+)
 *     records, 16 per uid.
 * For each it times, best of a few runs, with the file in the page cache:
 *   - the floor: `grep -c PATTERN FILE` as a subprocess (GNU grep reads
 *     the file and searches it for one fixed string: about as little as a
 *     scan can do);
 *   - the parser in-process on the file's bytes already in memory
 *     (logcat_parse, aei_dump_parse), read through the input reader as a
 *     file is;
 *   - `lastwords inspect FILE` end to end as a subprocess, when LASTWORDS
 *     is given, with its peak RSS (wait4).
 * It prints MB/s for each and the time as a multiple of grep's, and says
 * whether the logcat targets of issue 10 are met: `lastwords inspect`
 * within 2x of grep's time, and its peak RSS under 256 MiB whatever the
 * size (try MB 2048: a 2 GB logcat).
 *
 * Then a bug report (issue 11): a main text of BR_MB (100) MB laid out as
 * dumpstate writes it (a SYSTEM LOG in logcat -v uid, an event log, the
 * activity service's exit-info among dumpsys services that hold no
 * evidence), read in-process (its sections cut as it is read, each through
 * its parser) and by `lastwords inspect` end to end against `grep -c` on
 * the same file (target: within 3x); then a ZIP_MB (30) MB zip of it, read
 * end to end by `lastwords inspect` and `lastwords report` (target: under
 * 1 s and 256 MiB): the main text deflated, a tombstone, an ANR trace, and
 * to make up the size an entry that holds no evidence and does not
 * compress (a perfetto trace, as real bug reports carry), which is listed
 * and not read; and, for the worst case, a zip of ZIP_MB that is all main
 * text.
 *
 * This program prints figures and compares them; it never asserts on time.
 * It exits 0 unless something functionally fails: the logcat parser finds
 * other counts of lines, skipped lines or evidence records than were
 * generated, a record's fields are wrong, grep counts differently, inspect
 * fails on the logcat, or the dump parser finds records but not all of
 * them, or the bug report's sections give other counts of lmkd kills or
 * exit records than were generated (1 then). A dump parser that finds none
 * (not written yet) is reported as such and does not fail the run.
 *
 * usage: bench-evidence [LASTWORDS [MB]]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zip.h>

#include "../analyzer/evidence/bugreport.h"
#include "../analyzer/evidence/evidence.h"
#include "../analyzer/evidence/input.h"
#include "../analyzer/evidence/parsers.h"
#include "../src/exit-info.h"

extern char **environ;

#define DEFAULT_MB 300
#define DUMP_RECORDS 100000
#define RECORDS_PER_UID 16
#define RUNS 3           /* timed runs of each measurement; the best counts */
#define TARGET_TIME 2.0  /* inspect of the logcat within this multiple of grep's time */
#define TARGET_RSS_MIB 256 /* and under this peak RSS */
#define BR_MB 100          /* the bug report's main text */
#define BR_TARGET_TIME 3.0 /* read within this multiple of grep's time */
#define BR_EXIT_RECORDS 2000
#define ZIP_MB 30          /* the bug report zip */
#define ZIP_TARGET_S 1.0   /* read end to end within this many seconds */

static int failed;

#define FAILF(...)                                             \
	do {                                                   \
		fprintf(stderr, "bench-evidence: FAIL: ");     \
		fprintf(stderr, __VA_ARGS__);                  \
		fputc('\n', stderr);                           \
		failed = 1;                                    \
	} while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64*: reproducible inputs */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* ---- the logcat ---- */

static const char *const tags[] = {
	"ActivityTaskManager", "WindowManager", "InputDispatcher", "SurfaceFlinger",
	"Choreographer", "OkHttp", "chatty", "ExampleApp", "Glide", "RenderThread",
	"BluetoothAdapter", "WifiHAL", "ConnectivityService", "NetworkMonitor", "PackageManager",
	"JobScheduler", "AlarmManager", "NotificationService", "AudioFlinger", "CameraService",
	"MediaCodec", "ACodec", "GnssLocationProvider", "SensorService", "PowerManagerService",
	"BatteryService", "Finsky", "GoogleApiManager", "FirebaseMessaging", "WorkManager",
	"SQLiteDatabase", "StrictMode", "ViewRootImpl", "OpenGLRenderer", "tflite", "GPUAUX",
	"ExampleModel", "dalvikvm-heap", "art", "system_server",
};

static const char *const words[] = {
	"request", "completed", "for", "uid", "package", "com.example.app", "the", "window",
	"frame", "timeout", "connection", "session", "cache", "miss", "hit", "update", "state",
	"changed", "from", "to", "OK", "interpreter", "delegate", "buffer", "allocated", "bytes",
	"dispatching", "event", "key", "motion", "surface", "layer", "composition", "retrying",
	"after", "ms", "token", "job", "scheduled", "network", "validated", "wifi", "signal",
};

static const char levels[] = "VDDIIIIIIWWE";

struct gen {
	FILE *f;
	uint64_t bytes, lines;
	uint64_t lmkd_kills, am_killing, am_died, zygote, lmk_tag_lines;
	int64_t first_kill_time_ms;
	int64_t first_kill_pid, first_kill_uid, first_kill_rss, first_kill_swap, first_kill_adj;
	unsigned month, day, h, m, s, ms;
	int uid_column;            /* logcat -v uid, as dumpstate runs it */
};

static void tick(struct gen *g)
{
	g->ms += rndn(15);
	if (g->ms >= 1000) {
		g->ms -= 1000;
		if (++g->s == 60) {
			g->s = 0;
			if (++g->m == 60) {
				g->m = 0;
				if (++g->h == 24) {
					g->h = 0;
					g->day++; /* the generator never runs past the month */
				}
			}
		}
	}
}

static int64_t gen_time_ms(const struct gen *g)
{
	/* June on the leap-year calendar of logline_month_day_ms: day 152 */
	return ((int64_t)(152 + g->day - 1) * 86400 + g->h * 3600 + g->m * 60 + g->s) * 1000 +
	       g->ms;
}

static void emit(struct gen *g, unsigned pid, unsigned tid, char level, const char *tag,
		 const char *msg)
{
	int n;

	if (g->uid_column) /* liblog: a user name of five letters at most, else the uid */
		n = fprintf(g->f, "%02u-%02u %02u:%02u:%02u.%03u %5s %5u %5u %c %-8s: %s\n",
			    g->month, g->day, g->h, g->m, g->s, g->ms,
			    strcmp(tag, "lowmemorykiller") == 0 ? "lmkd" : "1000", pid, tid, level,
			    tag, msg);
	else
		n = fprintf(g->f, "%02u-%02u %02u:%02u:%02u.%03u %5u %5u %c %-8s: %s\n", g->month,
			    g->day, g->h, g->m, g->s, g->ms, pid, tid, level, tag, msg);

	g->bytes += (uint64_t)n;
	g->lines++;
}

static void ordinary(struct gen *g)
{
	char msg[512];
	size_t len = 0, target;
	const char *tag = tags[rndn(sizeof(tags) / sizeof(tags[0]))];
	unsigned pid = 1000 + rndn(30000);

	/* lengths: mostly 30..120, a tail to 400 */
	target = 20 + rndn(100);
	if (rndn(8) == 0)
		target += rndn(300);
	switch (rndn(4)) {
	case 0:
		len = (size_t)snprintf(msg, sizeof(msg), "Skipped %u frames!  The application may be doing too much work on its main thread.", rndn(200));
		break;
	case 1:
		len = (size_t)snprintf(msg, sizeof(msg), "--> GET https://api.example.com/v1/items/%u?page=%u", rndn(100000), rndn(50));
		break;
	default:
		break;
	}
	while (len < target && len + 40 < sizeof(msg)) {
		const char *w = words[rndn(sizeof(words) / sizeof(words[0]))];

		if (len)
			msg[len++] = ' ';
		if (rndn(5) == 0)
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%u", rndn(1u << 20));
		else
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s", w);
	}
	msg[len] = '\0';
	emit(g, pid, pid + rndn(200), levels[rndn(sizeof(levels) - 1)], tag, msg);
}

static const char *const lmk_reasons[] = {
	"min watermark is breached even after kill",
	"device is not responding",
	"low watermark is breached and thrashing (42%)",
	"device is low on swap (102400kB < 314572kB) and thrashing (121%)",
};

static void evidence(struct gen *g)
{
	char msg[512];
	unsigned pid = 2000 + rndn(30000), app = rndn(900);

	switch (rndn(8)) {
	case 0:
	case 1: {
		unsigned rss = 20000 + rndn(900000), swap = rndn(100000), adj = 100 + rndn(900);

		snprintf(msg, sizeof(msg),
			 "Kill 'com.example.app%u' (%u), uid %u, oom_score_adj %u to free %ukB rss, %ukB swap; reason: %s",
			 app, pid, 10000 + app, adj, rss, swap, lmk_reasons[rndn(4)]);
		if (g->lmkd_kills == 0) {
			g->first_kill_time_ms = gen_time_ms(g);
			g->first_kill_pid = pid;
			g->first_kill_uid = 10000 + app;
			g->first_kill_rss = rss;
			g->first_kill_swap = swap;
			g->first_kill_adj = adj;
		}
		emit(g, 612, 612, 'I', "lowmemorykiller", msg);
		g->lmkd_kills++;
		g->lmk_tag_lines++;
		break;
	}
	case 2:
		snprintf(msg, sizeof(msg), "Reclaimed %ukB, cache(%ukB) and free(%ukB)-reserved(%ukB) below min(%ukB) for oom_score_adj %u",
			 rndn(90000), rndn(500000), rndn(90000), rndn(20000), 120000u, 900u);
		emit(g, 612, 612, 'I', "lowmemorykiller", msg);
		g->lmk_tag_lines++;
		break;
	case 3:
		snprintf(msg, sizeof(msg), "Killing %u:com.example.app%u/u0a%u (adj %u): empty #%u", pid,
			 app, app, 900 + rndn(99), 17 + rndn(20));
		emit(g, 1702, 1970, 'I', "ActivityManager", msg);
		g->am_killing++;
		break;
	case 4:
		snprintf(msg, sizeof(msg), "Process com.example.app%u (pid %u) has died: cch+%u CEM", app,
			 pid, rndn(80));
		emit(g, 1702, 2006, 'I', "ActivityManager", msg);
		g->am_died++;
		break;
	case 5:
		snprintf(msg, sizeof(msg), "Process %u exited due to signal 9 (Killed)", pid);
		emit(g, 640, 640, 'I', "Zygote", msg);
		g->zygote++;
		break;
	default:
		snprintf(msg, sizeof(msg), "Start proc %u:com.example.app%u/u0a%u for service {com.example.app%u/com.example.app%u.Sync}",
			 pid, app, app, app, app);
		emit(g, 1702, 2010, 'I', "ActivityManager", msg);
		break;
	}
}

/* Log lines into g->f until g->bytes reaches target. */
static void log_lines(struct gen *g, uint64_t target)
{
	fputs("--------- beginning of main\n", g->f);
	g->bytes += 28;
	g->lines++;
	while (g->bytes < target) {
		tick(g);
		if (rndn(200) == 0)
			evidence(g);
		else
			ordinary(g);
	}
}

static void gen_start(struct gen *g, FILE *f)
{
	memset(g, 0, sizeof(*g));
	g->month = 6;
	g->day = 1;
	g->f = f;
}

static int gen_logcat(const char *path, uint64_t target, struct gen *g)
{
	static char iobuf[1 << 20];

	gen_start(g, fopen(path, "w"));
	if (!g->f)
		return -1;
	setvbuf(g->f, iobuf, _IOFBF, sizeof(iobuf));
	log_lines(g, target);
	return fclose(g->f) == 0 ? 0 : -1;
}

/* ---- the exit-info dump ---- */

/* Records as the platform writes them; labels from src/exit-info.h. */
struct reason {
	enum exit_reason reason;
	enum exit_subreason subreason;
	int status;
	const char *description;
	enum exit_importance importance;
};

static const struct reason reasons[] = {
	{ EXIT_REASON_LOW_MEMORY, EXIT_SUBREASON_UNKNOWN, 0, "null", EXIT_IMPORTANCE_CACHED },
	{ EXIT_REASON_SIGNALED, EXIT_SUBREASON_UNKNOWN, 9, "null", EXIT_IMPORTANCE_CACHED },
	{ EXIT_REASON_CRASH, EXIT_SUBREASON_UNKNOWN, 0, "crash", EXIT_IMPORTANCE_FOREGROUND },
	{ EXIT_REASON_ANR, EXIT_SUBREASON_UNKNOWN, 0, "user request after error: Input dispatching timed out (b2c1 Main (server) is not responding)", EXIT_IMPORTANCE_FOREGROUND },
	{ EXIT_REASON_USER_REQUESTED, EXIT_SUBREASON_FORCE_STOP, 0, "stop com.example due to from pid 1702", EXIT_IMPORTANCE_CACHED },
	{ EXIT_REASON_OTHER, EXIT_SUBREASON_TOO_MANY_EMPTY, 0, "too many empty", EXIT_IMPORTANCE_CACHED },
	{ EXIT_REASON_CRASH_NATIVE, EXIT_SUBREASON_UNKNOWN, 11, "null", EXIT_IMPORTANCE_FOREGROUND },
};

static const char *const sizes[] = { "221MB", "1.5GB", "0.00", "88MB", "310MB", "9.8MB" };

/* A dump's section header and n records. */
static void dump_records(FILE *f, unsigned n)
{
	unsigned i;

	fputs("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
	      "Last Timestamp of Persistence Into Persistent Storage: 2025-06-01 12:00:00.000\n",
	      f);
	for (i = 0; i < n; i++) {
		unsigned pkg = i / RECORDS_PER_UID, k = i % RECORDS_PER_UID;
		unsigned uid = 10000 + pkg % 90000;
		const struct reason *r = &reasons[rndn(sizeof(reasons) / sizeof(reasons[0]))];

		if (k == 0)
			fprintf(f, "  package: com.example.pkg%05u\n    Historical Process Exit for uid=%u\n",
				pkg, uid);
		fprintf(f,
			"        ApplicationExitInfo #%u:\n"
			"          timestamp=2025-05-%02u %02u:%02u:%02u.%03u pid=%u realUid=%u packageUid=%u definingUid=%u user=0\n"
			"          process=com.example.pkg%05u%s reason=%d (%s) subreason=%d (%s) status=%d\n"
			"          importance=%d pss=%s rss=%s description=%s state=empty trace=null\n",
			k, 1 + (31 - 1 - k) % 30, rndn(24), rndn(60), rndn(60), rndn(1000),
			2000 + rndn(30000), uid, uid, uid, pkg, rndn(4) ? "" : ":remote", r->reason,
			vocab_name(&exit_reason_labels, r->reason), r->subreason,
			vocab_name(&exit_subreason_labels, r->subreason), r->status, r->importance,
			sizes[rndn(6)], sizes[rndn(6)], r->description);
	}
}

static int gen_dump(const char *path, uint64_t *bytes)
{
	static char iobuf[1 << 20];
	FILE *f = fopen(path, "w");
	struct stat st;

	if (!f)
		return -1;
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	dump_records(f, DUMP_RECORDS);
	if (fclose(f) != 0 || stat(path, &st) != 0)
		return -1;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

/* ---- running and timing ---- */

static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0)
		return -1;
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = got;
	return got == (size_t)st.st_size ? 0 : -1;
}

/* A child's peak RSS counts the peak of the memory it was spawned from
 * (Linux records it at exec): set this process's peak back to what it holds
 * now (/proc/self/clear_refs, 5), so that the child's is its own, not that
 * of the logcat this program read into memory for its own parse. */
static void reset_peak_rss(void)
{
	static int warned;
	int fd;

#ifdef __GLIBC__
	malloc_trim(0); /* what this program freed (the dump's records) leaves it too */
#endif
	fd = open("/proc/self/clear_refs", O_WRONLY);

	if (fd >= 0 && write(fd, "5", 1) == 1) {
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	if (!warned++)
		fprintf(stderr, "bench-evidence: cannot reset the peak RSS (%s): a command's peak "
				"RSS may be this program's\n", strerror(errno));
}

/* Run argv with stdout into out (or /dev/null when out is NULL); the best
 * of RUNS wall times in seconds, or -1 if it could not run. *status gets
 * the exit status of the last run, *rss_kb the largest peak RSS of the
 * runs. */
static double run_best(char *const argv[], char *out, size_t outlen, int *status, long *rss_kb)
{
	double best = -1;
	struct rusage ru;
	int r;

	*rss_kb = 0;

	for (r = 0; r < RUNS; r++) {
		posix_spawn_file_actions_t fa;
		int pfd[2] = { -1, -1 }, ws;
		size_t got = 0;
		pid_t pid;
		double t0;

		if (out && pipe(pfd) != 0)
			return -1;
		reset_peak_rss();
		posix_spawn_file_actions_init(&fa);
		if (out) {
			posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
			posix_spawn_file_actions_addclose(&fa, pfd[0]);
		} else {
			posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		}
		t0 = now();
		if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
			posix_spawn_file_actions_destroy(&fa);
			if (out) {
				close(pfd[0]);
				close(pfd[1]);
			}
			return -1;
		}
		posix_spawn_file_actions_destroy(&fa);
		if (out) {
			ssize_t n;

			close(pfd[1]);
			while (got + 1 < outlen && (n = read(pfd[0], out + got, outlen - 1 - got)) > 0)
				got += (size_t)n;
			out[got] = '\0';
			close(pfd[0]);
		}
		if (wait4(pid, &ws, 0, &ru) < 0)
			return -1;
		if (ru.ru_maxrss > *rss_kb)
			*rss_kb = ru.ru_maxrss;
		{
			double t = now() - t0;

			if (best < 0 || t < best)
				best = t;
		}
		*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	}
	return best;
}

typedef int (*parse_fn)(struct input *, struct ev_file *, struct ev_error *);

/* The best of RUNS in-process parses of the bytes in memory (read as a
 * file would be, through the same buffer); *f keeps the last one's
 * records. */
static double parse_best(parse_fn parse, const char *buf, size_t len, struct ev_file *f,
			 int *rc)
{
	double best = -1;
	int r;

	for (r = 0; r < RUNS; r++) {
		struct ev_error err = { 0, "" };
		struct input in;
		double t0, t;

		ev_file_release(f);
		input_init_mem(&in, buf, len);
		t0 = now();
		*rc = parse(&in, f, &err);
		t = now() - t0;
		input_release(&in);
		if (*rc != 0)
			fprintf(stderr, "bench-evidence: parse error at line %zu: %s\n", err.line,
				err.reason);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static size_t count_type(const struct ev_file *f, enum log_event_type t)
{
	size_t i, n = 0;

	for (i = 0; i < f->nlogs; i++)
		n += f->logs[i].type == t;
	return n;
}

static void row(const char *what, double mb, double t, double floor_t, const char *note)
{
	if (t < 0) {
		printf("  %-30s %10s %9s %9s  %s\n", what, "-", "-", "-", note);
		return;
	}
	if (floor_t <= 0) /* nothing to compare with */
		printf("  %-30s %10.1f %9.3f %9s  %s\n", what, mb / t, t, "-", note);
	else
		printf("  %-30s %10.1f %9.3f %8.2fx  %s\n", what, mb / t, t, t / floor_t, note);
}

static void check_first_kill(const struct ev_file *f, const struct gen *g)
{
	size_t i;

	for (i = 0; i < f->nlogs; i++) {
		const struct log_event *e = &f->logs[i];

		if (e->type != LOG_LMKD_KILL)
			continue;
		if (e->pid != g->first_kill_pid || e->uid != g->first_kill_uid ||
		    e->rss_kb != g->first_kill_rss || e->swap_kb != g->first_kill_swap ||
		    e->oom_score_adj != g->first_kill_adj || !e->reason || !e->process ||
		    strcmp(e->format, "threadtime") != 0)
			FAILF("first lmkd kill read as pid %" PRId64 " uid %" PRId64 " rss %" PRId64
			      " swap %" PRId64 " adj %" PRId64 ", generated %" PRId64 " %" PRId64
			      " %" PRId64 " %" PRId64 " %" PRId64,
			      e->pid, e->uid, e->rss_kb, e->swap_kb, e->oom_score_adj,
			      g->first_kill_pid, g->first_kill_uid, g->first_kill_rss,
			      g->first_kill_swap, g->first_kill_adj);
		if (e->time_ms != g->first_kill_time_ms)
			FAILF("first lmkd kill at time_ms %" PRId64 ", generated %" PRId64, e->time_ms,
			      g->first_kill_time_ms);
		return;
	}
	FAILF("no lmkd kill record");
}

/* `lastwords CMD PATH` end to end, best of RUNS, as a row against floor_t
 * (none when not positive) for mb MB: its time, and its peak RSS in *rss_kb.
 * It must exit 0. */
static double e2e(const char *lw, const char *cmd, const char *path, double mb, double floor_t,
		  long *rss_kb)
{
	char *argv[] = { (char *)lw, (char *)cmd, (char *)path, NULL }, note[64];
	int status = 0;
	double t = run_best(argv, NULL, 0, &status, rss_kb);

	if (t < 0 || status != 0)
		FAILF("lastwords %s %s: status %d", cmd, path, status);
	snprintf(note, sizeof(note), "peak RSS %ld MiB", *rss_kb / 1024);
	row(strcmp(cmd, "report") == 0 ? "lastwords report (end to end)"
				       : "lastwords inspect (end to end)",
	    mb, t, floor_t, note);
	return t;
}

/* ---- the bug report ---- */

/* Lines of a dumpsys service or a command that holds no evidence, to about
 * n bytes: what most of a bug report's main text is. */
static void filler(FILE *f, uint64_t n)
{
	uint64_t b = 0;

	while (b < n) {
		int k = fprintf(f, "    %s #%u: %s=%u %s %s uid=u0a%u\n",
				words[rndn(sizeof(words) / sizeof(words[0]))], rndn(1000),
				words[rndn(sizeof(words) / sizeof(words[0]))], rndn(1u << 20),
				words[rndn(sizeof(words) / sizeof(words[0]))],
				words[rndn(sizeof(words) / sizeof(words[0]))], rndn(900));

		b += (uint64_t)(k > 0 ? k : 0);
	}
}

static void br_section(FILE *f, const char *title, const char *cmd)
{
	fprintf(f, "------ %s (%s) ------\n", title, cmd);
}

static void br_end(FILE *f, const char *title)
{
	fprintf(f, "------ %.3fs was the duration of '%s' ------\n", (double)rndn(5000) / 1000, title);
}

static void br_service(FILE *f, const char *name, uint64_t bytes)
{
	fprintf(f, "%s\nDUMP OF SERVICE %s:\n", "-------------------------------------------------"
						 "------------------------------",
		name);
	if (strcmp(name, "activity") == 0) {
		filler(f, bytes / 2);
		fputs("\n-------------------------------------------------------------------------------\n",
		      f);
		dump_records(f, BR_EXIT_RECORDS);
		fputs("\n-------------------------------------------------------------------------------\n",
		      f);
		filler(f, bytes / 2);
	} else {
		filler(f, bytes);
	}
	fprintf(f, "--------- 0.%03us was the duration of dumpsys %s, ending at: 2025-06-30 12:00:09\n",
		rndn(1000), name);
}

/* An `adb bugreport` main text of about mb MB, laid out as dumpstate
 * writes it: a tenth of critical dumpsys, the SYSTEM LOG (logcat -v uid,
 * 45%: g counts its lines and evidence), an event log of am_* lines (5%),
 * the properties, and the framework services' dumpsys (40%, the activity
 * service's with BR_EXIT_RECORDS exit records). */
static int gen_bugreport(const char *path, uint64_t mb, struct gen *g, uint64_t *bytes)
{
	static char iobuf[1 << 20];
	uint64_t total = mb << 20;
	FILE *f = fopen(path, "w");
	struct stat st;
	struct gen ev;
	int i;

	if (!f)
		return -1;
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	fputs("========================================================\n"
	      "== dumpstate: 2025-06-30 12:00:00\n"
	      "========================================================\n\n"
	      "Build: UQ1A.240205.004\n"
	      "Build fingerprint: 'google/shiba/shiba:14/UQ1A.240205.004/11269751:user/release-keys'\n"
	      "Android SDK version: 34\n"
	      "Bugreport format version: 2.0\n\n",
	      f);
	br_section(f, "DUMPSYS CRITICAL", "/system/bin/dumpsys");
	br_service(f, "CRITICAL cpuinfo", total / 20);
	br_service(f, "CRITICAL meminfo", total / 20);
	br_end(f, "DUMPSYS CRITICAL");
	br_section(f, "SYSTEM LOG", "logcat -v threadtime -v printable -v uid -d *:v");
	gen_start(g, f);
	g->uid_column = 1;
	log_lines(g, total * 45 / 100);
	br_end(f, "SYSTEM LOG");
	br_section(f, "EVENT LOG", "logcat -b events -v threadtime -v printable -v uid -d *:v");
	gen_start(&ev, f);
	ev.uid_column = 1;
	while (ev.bytes < total / 20) {
		char msg[160];

		tick(&ev);
		snprintf(msg, sizeof(msg), "[0,%u,%u,com.example.app%u,%s]", 2000 + rndn(30000),
			 10000 + rndn(900), rndn(900), words[rndn(sizeof(words) / sizeof(words[0]))]);
		emit(&ev, 1702, 1970, 'I', rndn(4) ? "wm_task_moved" : "am_proc_start", msg);
	}
	br_end(f, "EVENT LOG");
	br_section(f, "SYSTEM PROPERTIES", "getprop");
	fputs("[persist.sys.timezone]: [Europe/Berlin]\n[ro.build.version.sdk]: [34]\n", f);
	br_end(f, "SYSTEM PROPERTIES");
	fputs("========================================================\n"
	      "== Android Framework Services\n"
	      "========================================================\n",
	      f);
	br_section(f, "DUMPSYS", "/system/bin/dumpsys");
	for (i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "service%d", i);
		br_service(f, i == 5 ? "activity" : name, total * 5 / 100);
	}
	br_end(f, "DUMPSYS");
	if (fclose(f) != 0 || stat(path, &st) != 0)
		return -1;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

/* The bug report's pieces read in-process from the bytes in memory, as
 * bundle.c reads them: the best of RUNS; *lmkd and *exits get the lmkd
 * kills and exit records found. */
static double bugreport_best(const char *buf, size_t len, size_t *lmkd, size_t *exits)
{
	double best = -1;
	int r;

	for (r = 0; r < RUNS; r++) {
		struct bugreport_reader br;
		struct bugreport_piece p;
		struct input in;
		double t0 = now(), t;

		*lmkd = *exits = 0;
		input_init_mem(&in, buf, len);
		bugreport_init(&br, &in);
		while (bugreport_next(&br, &p) > 0) {
			struct ev_file f = { 0 };
			struct ev_error err = { 0, "" };

			if (ev_parse(p.kind, p.in, &f, &err) != 0)
				FAILF("the bug report's %s: line %zu: %s", p.title, err.line, err.reason);
			*lmkd += count_type(&f, LOG_LMKD_KILL);
			*exits += f.nexits;
			ev_file_release(&f);
		}
		bugreport_release(&br);
		input_release(&in);
		t = now() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* A bug report zip at zippath, of about ZIP_MB MB: version.txt, a
 * tombstone and an ANR trace, the main text at text (deflated), and, when
 * fill, entries that hold no evidence and do not compress (a perfetto
 * trace, as bug reports carry one) to ZIP_MB. *text_zipped gets the main
 * text's deflated size. */
static int gen_zip(const char *zippath, const char *text, int fill, uint64_t *text_zipped)
{
	static const char tombstone[] =
		"*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
		"Build fingerprint: 'google/shiba/shiba:14/UQ1A.240205.004/11269751:user/release-keys'\n"
		"Timestamp: 2025-06-30 11:58:00.123456789+0200\n"
		"pid: 4242, tid: 4250, name: tflite-gpu  >>> com.example.app7:inference <<<\n"
		"uid: 10007\n"
		"signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x40\n";
	static const char anr[] = "----- pid 4343 at 2025-06-30 11:59:00.000000000+0200 -----\n"
				  "Cmd line: com.example.app8\n\n"
				  "\"main\" prio=5 tid=1 Native\n"
				  "  | group=\"main\" sCount=1 ucsCount=0 flags=1 obj=0x72 self=0xb4\n\n"
				  "----- end 4343 -----\n";
	const char *name = "bugreport-shiba-UQ1A.240205.004-2025-06-30-12-00-00.txt";
	char *pad = NULL;
	zip_t *za;
	zip_source_t *src;
	zip_stat_t st;
	struct stat sb;
	zip_int64_t idx;
	int err = 0;
	uint64_t i, n;

	za = zip_open(zippath, ZIP_CREATE | ZIP_TRUNCATE, &err);
	if (!za)
		return -1;
	if (zip_file_add(za, "version.txt", zip_source_buffer(za, "2.0", 3, 0), 0) < 0 ||
	    zip_file_add(za, "FS/data/tombstones/tombstone_00",
			 zip_source_buffer(za, tombstone, sizeof(tombstone) - 1, 0), 0) < 0 ||
	    zip_file_add(za, "FS/data/anr/anr_2025-06-30-11-59-00-000",
			 zip_source_buffer(za, anr, sizeof(anr) - 1, 0), 0) < 0 ||
	    (src = zip_source_file(za, text, 0, -1)) == NULL ||
	    (idx = zip_file_add(za, name, src, 0)) < 0 ||
	    zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 6) != 0 ||
	    zip_file_add(za, "main_entry.txt", zip_source_buffer(za, name, strlen(name), 0), 0) < 0 ||
	    zip_close(za) != 0) {
		zip_discard(za);
		return -1;
	}
	za = zip_open(zippath, 0, &err);
	if (!za || zip_stat(za, name, 0, &st) != 0) {
		if (za)
			zip_discard(za);
		return -1;
	}
	*text_zipped = st.comp_size;
	if (stat(zippath, &sb) != 0 || !fill || (uint64_t)sb.st_size >= (uint64_t)ZIP_MB << 20) {
		zip_discard(za);
		return 0;
	}
	n = ((uint64_t)ZIP_MB << 20) - (uint64_t)sb.st_size - 512;
	pad = malloc(n);
	if (!pad) {
		zip_discard(za);
		return -1;
	}
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t x = rnd();

		memcpy(pad + i, &x, 8);
	}
	memset(pad + i, 0, n - i);
	if ((idx = zip_file_add(za, "FS/data/misc/perfetto-traces/bugreport/systrace.pftrace",
				zip_source_buffer(za, pad, n, 0), 0)) < 0 ||
	    zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0 ||
	    zip_close(za) != 0) {
		zip_discard(za);
		free(pad);
		return -1;
	}
	free(pad);
	return 0;
}

/* Read a bug report's text in-process and end to end against grep, then
 * its zip end to end, and say whether issue 11's targets are met. */
static void bench_bugreport(const char *lw, const char *tmpdir)
{
	char text[4096], zip[4096], zip2[4096], out[256];
	struct gen g;
	uint64_t bytes = 0, zipped = 0, zipped2 = 0;
	double mb, t_grep, t_in, t;
	size_t lmkd, exits;
	char *buf = NULL;
	size_t len = 0;
	long rss = 0;
	int status = 0, fd;
	struct stat sb;

	snprintf(text, sizeof(text), "%s/bench-evidence-bugreport-XXXXXX", tmpdir);
	snprintf(zip, sizeof(zip), "%s/bench-evidence-bugreport-zip-XXXXXX", tmpdir);
	snprintf(zip2, sizeof(zip2), "%s/bench-evidence-bugreport-zip2-XXXXXX", tmpdir);
	if ((fd = mkstemp(text)) < 0 || close(fd) != 0 || (fd = mkstemp(zip)) < 0 || close(fd) != 0 ||
	    (fd = mkstemp(zip2)) < 0 || close(fd) != 0) {
		FAILF("cannot create temporary files in %s: %s", tmpdir, strerror(errno));
		return;
	}
	if (gen_bugreport(text, BR_MB, &g, &bytes) != 0 || read_file(text, &buf, &len) != 0) {
		FAILF("cannot write %s: %s", text, strerror(errno));
		goto out;
	}
	mb = (double)len / (1 << 20);
	printf("bug report main text: %.1f MB: a SYSTEM LOG of %" PRIu64 " lines (%" PRIu64
	       " lmkd kills), an event log, %d exit records in the activity service's dump, the "
	       "rest dumpsys that holds no evidence\n",
	       mb, g.lines, g.lmkd_kills, BR_EXIT_RECORDS);
	printf("  %-30s %10s %9s %9s\n", "", "MB/s", "best s", "vs grep");
	{
		char *gargv[] = { "grep", "-c", "lowmemorykiller", text, NULL };

		t_grep = run_best(gargv, out, sizeof(out), &status, &rss);
		if (t_grep < 0 || strtoull(out, NULL, 10) != g.lmk_tag_lines)
			FAILF("grep -c lowmemorykiller printed '%.40s' on the bug report", out);
		row("grep -c lowmemorykiller (floor)", mb, t_grep, t_grep, "");
	}
	t_in = bugreport_best(buf, len, &lmkd, &exits);
	{
		char note[96];

		snprintf(note, sizeof(note), "%zu lmkd kills, %zu exit records", lmkd, exits);
		row("sections and parsers (in-process)", mb, t_in, t_grep, note);
	}
	if (lmkd != g.lmkd_kills || exits != BR_EXIT_RECORDS)
		FAILF("the bug report gave %zu lmkd kills and %zu exit records, generated %" PRIu64
		      " and %d", lmkd, exits, g.lmkd_kills, BR_EXIT_RECORDS);
	free(buf);
	buf = NULL;
	if (!lw) {
		printf("targets (bug report within %.0fx of grep; a %d MB zip in %.0f s): not measured\n",
		       BR_TARGET_TIME, ZIP_MB, ZIP_TARGET_S);
		goto out;
	}
	t = e2e(lw, "inspect", text, mb, t_grep, &rss);
	printf("target: a %d MB bug report text read within %.0fx of grep -c: %s (%.2fx)\n", BR_MB,
	       BR_TARGET_TIME, t / t_grep <= BR_TARGET_TIME ? "met" : "not met", t / t_grep);

	/* ---- the zip: the same text and entries that hold no evidence ---- */
	if (gen_zip(zip, text, 1, &zipped) != 0 || stat(zip, &sb) != 0) {
		FAILF("cannot write the zip %s", zip);
		goto out;
	}
	printf("bug report zip: %.1f MB: the main text above (%.1f MB deflated), a tombstone, an ANR "
	       "trace, and %.1f MB of entries that hold no evidence (stored, not read)\n",
	       (double)sb.st_size / (1 << 20), (double)zipped / (1 << 20),
	       (double)((uint64_t)sb.st_size - zipped) / (1 << 20));
	{
		double zmb = (double)sb.st_size / (1 << 20), ti, tr;
		long rss_r = 0;

		ti = e2e(lw, "inspect", zip, zmb, -1, &rss);
		tr = e2e(lw, "report", zip, zmb, -1, &rss_r);
		printf("target: a %d MB zip read end to end in under %.0f s, peak RSS under %d MiB: %s "
		       "(inspect %.2f s, %ld MiB; report %.2f s, %ld MiB)\n",
		       ZIP_MB, ZIP_TARGET_S, TARGET_RSS_MIB,
		       ti < ZIP_TARGET_S && tr < ZIP_TARGET_S && rss / 1024 < TARGET_RSS_MIB &&
				       rss_r / 1024 < TARGET_RSS_MIB
			       ? "met"
			       : "not met",
		       ti, rss / 1024, tr, rss_r / 1024);
	}

	/* ---- the worst case: a zip that is all main text ---- */
	{
		uint64_t mb2 = zipped ? ((uint64_t)ZIP_MB << 20) * BR_MB / zipped : BR_MB;
		struct gen g2;

		if (gen_bugreport(text, mb2, &g2, &bytes) != 0 || gen_zip(zip2, text, 0, &zipped2) != 0 ||
		    stat(zip2, &sb) != 0) {
			FAILF("cannot write the second zip %s", zip2);
			goto out;
		}
		unlink(text);
		printf("bug report zip, all main text: %.1f MB: a %.0f MB main text\n",
		       (double)sb.st_size / (1 << 20), (double)bytes / (1 << 20));
		e2e(lw, "inspect", zip2, (double)sb.st_size / (1 << 20), -1, &rss);
	}
out:
	free(buf);
	unlink(text);
	unlink(zip);
	unlink(zip2);
}

int main(int argc, char **argv)
{
	const char *lw = argc > 1 && argv[1][0] ? argv[1] : NULL;
	long mb_arg = argc > 2 ? strtol(argv[2], NULL, 10) : DEFAULT_MB;
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char logpath[4096], dumppath[4096], out[256];
	struct ev_file f = { 0 };
	struct gen g;
	char *buf = NULL;
	size_t len = 0;
	uint64_t dump_bytes = 0;
	double t_grep, t_parse, t_e2e = -1, mb, ratio;
	long rss = 0;
	int fd, rc, status = 0;
	double t0;

	if (mb_arg <= 0 || mb_arg > 4096) {
		fprintf(stderr, "usage: bench-evidence [LASTWORDS [MB]] (MB 1..4096)\n");
		return 2;
	}
	snprintf(logpath, sizeof(logpath), "%s/bench-evidence-logcat-XXXXXX", tmpdir);
	snprintf(dumppath, sizeof(dumppath), "%s/bench-evidence-dump-XXXXXX", tmpdir);
	if ((fd = mkstemp(logpath)) < 0 || close(fd) != 0 || (fd = mkstemp(dumppath)) < 0 ||
	    close(fd) != 0) {
		fprintf(stderr, "bench-evidence: cannot create temporary files in %s: %s\n", tmpdir,
			strerror(errno));
		return 1;
	}

	/* ---- logcat ---- */
	t0 = now();
	if (gen_logcat(logpath, (uint64_t)mb_arg << 20, &g) != 0 || read_file(logpath, &buf, &len) != 0) {
		fprintf(stderr, "bench-evidence: cannot write %s: %s\n", logpath, strerror(errno));
		failed = 1;
		goto out;
	}
	mb = (double)len / (1 << 20);
	printf("bench-evidence: generated in %.1f s\n", now() - t0);
	printf("logcat: %.1f MB, %" PRIu64 " lines, %" PRIu64 " lmkd kills, %" PRIu64
	       " AM Killing, %" PRIu64 " AM has died, %" PRIu64 " Zygote signal lines\n",
	       mb, g.lines, g.lmkd_kills, g.am_killing, g.am_died, g.zygote);
	printf("  %-30s %10s %9s %9s\n", "", "MB/s", "best s", "vs grep");
	{
		char *gargv[] = { "grep", "-c", "lowmemorykiller", logpath, NULL };

		t_grep = run_best(gargv, out, sizeof(out), &status, &rss);
		if (t_grep < 0 || strtoull(out, NULL, 10) != g.lmk_tag_lines)
			FAILF("grep -c lowmemorykiller printed '%.40s' (status %d), generated %" PRIu64,
			      out, status, g.lmk_tag_lines);
		row("grep -c lowmemorykiller (floor)", mb, t_grep, t_grep, "");
	}
	t_parse = parse_best(logcat_parse, buf, len, &f, &rc);
	{
		char note[160];

		snprintf(note, sizeof(note), "%zu records", f.nlogs);
		row("logcat_parse (in-process)", mb, t_parse, t_grep, note);
	}
	if (rc != 0)
		FAILF("logcat_parse failed");
	if (f.stats.lines != g.lines || f.stats.skipped != 0)
		FAILF("logcat_parse read %zu lines (%zu skipped), generated %" PRIu64, f.stats.lines,
		      f.stats.skipped, g.lines);
	if (count_type(&f, LOG_LMKD_KILL) != g.lmkd_kills ||
	    count_type(&f, LOG_AM_KILLING) != g.am_killing ||
	    count_type(&f, LOG_AM_DIED) != g.am_died ||
	    count_type(&f, LOG_ZYGOTE_SIGNAL) != g.zygote || f.nlogs != g.lmkd_kills + g.am_killing + g.am_died + g.zygote)
		FAILF("logcat_parse found %zu lmkd kills, %zu Killing, %zu has died, %zu Zygote (%zu in all); "
		      "generated %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64,
		      count_type(&f, LOG_LMKD_KILL), count_type(&f, LOG_AM_KILLING),
		      count_type(&f, LOG_AM_DIED), count_type(&f, LOG_ZYGOTE_SIGNAL), f.nlogs,
		      g.lmkd_kills, g.am_killing, g.am_died, g.zygote);
	check_first_kill(&f, &g);
	ev_file_release(&f);
	free(buf);
	buf = NULL;
	if (lw) {
		t_e2e = e2e(lw, "inspect", logpath, mb, t_grep, &rss);
		ratio = t_e2e / t_grep;
		printf("target: lastwords inspect within %.0fx of grep -c's time: %s (%.2fx)\n",
		       TARGET_TIME, ratio <= TARGET_TIME ? "met" : "not met", ratio);
		printf("target: lastwords inspect's peak RSS under %d MiB on %.0f MB: %s (%ld MiB)\n",
		       TARGET_RSS_MIB, mb, rss / 1024 < TARGET_RSS_MIB ? "met" : "not met", rss / 1024);
	} else {
		row("lastwords inspect (end to end)", mb, -1, t_grep, "not run: no LASTWORDS argument");
		printf("targets (inspect within %.0fx of grep, under %d MiB): not measured\n",
		       TARGET_TIME, TARGET_RSS_MIB);
	}

	/* ---- exit-info dump ---- */
	if (gen_dump(dumppath, &dump_bytes) != 0 || read_file(dumppath, &buf, &len) != 0) {
		fprintf(stderr, "bench-evidence: cannot write %s: %s\n", dumppath, strerror(errno));
		failed = 1;
		goto out;
	}
	mb = (double)len / (1 << 20);
	printf("exit-info dump: %.1f MB, %d compact records\n", mb, DUMP_RECORDS);
	printf("  %-30s %10s %9s %9s\n", "", "MB/s", "best s", "vs grep");
	{
		char *gargv[] = { "grep", "-c", "ApplicationExitInfo #", dumppath, NULL };

		t_grep = run_best(gargv, out, sizeof(out), &status, &rss);
		if (t_grep < 0 || strtoull(out, NULL, 10) != DUMP_RECORDS)
			FAILF("grep -c 'ApplicationExitInfo #' printed '%.40s' (status %d)", out, status);
		row("grep -c 'ApplicationExitInfo #'", mb, t_grep, t_grep, "(floor)");
	}
	{
		char note[160];
		int sniffed = aei_dump_sniff(buf, len);

		t_parse = parse_best(aei_dump_parse, buf, len, &f, &rc);
		if (f.nexits == 0)
			snprintf(note, sizeof(note), "0 records found (%s)",
				 sniffed ? "the dump parser read none" : "not detected as a dump: parser not written yet?");
		else
			snprintf(note, sizeof(note), "%zu records, %zu lines skipped", f.nexits,
				 f.stats.skipped);
		row("aei_dump_parse (in-process)", mb, t_parse, t_grep, note);
		if (f.nexits != 0 && f.nexits != DUMP_RECORDS)
			FAILF("aei_dump_parse found %zu records, generated %d", f.nexits, DUMP_RECORDS);
		ev_file_release(&f);
	}
	if (lw) {
		char *iargv[] = { (char *)lw, "inspect", dumppath, NULL };
		char note[64];

		t_e2e = run_best(iargv, NULL, 0, &status, &rss);
		snprintf(note, sizeof(note), "exit status %d, peak RSS %ld MiB", status, rss / 1024);
		row("lastwords inspect (end to end)", mb, t_e2e, t_grep, note);
	}
	free(buf);
	buf = NULL;

	/* ---- a bug report ---- */
	bench_bugreport(lw, tmpdir);
out:
	free(buf);
	ev_file_release(&f);
	unlink(logpath);
	unlink(dumppath);
	return failed ? 1 : 0;
}
