/*
 * bench-history LASTWORDS HISTORY_QUERIES_SQL [BUNDLES]: issue 5's benchmark. Generates BUNDLES
 * (default 1000) bundle directories, each holding one 16384-slot ring
 * written by the real probe in a child process (about a thousand records:
 * load, delegate_prepare, inferences, marks), an exit-info dump with that
 * child's record (UTC), a manifest naming a device and, for half of the
 * runs that died, a logcat with lmkd's kill line or libc's fatal signal
 * line (confirmed rather than supported verdicts). The runs vary by
 * candidate (5), app version (3), process (2), device (4) and ending:
 * clean close (EXIT_SELF),
 * SIGKILL mid-inference (LOW_MEMORY), or a native crash (SIGSEGV or abort,
 * CRASH_NATIVE), some while preparing the delegate.
 *
 * Then times `lastwords ingest --events --tz UTC` of all bundles into one
 * database (issue 14's target: under 3 s for 1000, half of the 6 s before;
 * beside it the same ingest without --events, all but the events), each
 * `lastwords history --by G --format json`, one with --since, and
 * `lastwords export` as NDJSON and CSV (target: under 1 s each on about 1M
 * stored events). Then the runs copied to 200k and to 1M runs, where each
 * history query is timed as lastwords runs it (the tallies of schema
 * version 5) and as the same statements counting from run alone (after
 * "count-from-runs" of schemas/history-queries.sql: what it ran before),
 * on the same database (issue 14's targets: under 0.1 s at 200k, under
 * 0.5 s at 1M).
 *
 * Checks what it can: the children ended as planned, sample reports join
 * each exit record to its run with the intended class, every command exits
 * 0, the database holds one run per bundle with the planned class, and at
 * least 900 events per bundle. Never fails on timing. Set LW_BENCH_KEEP=1
 * to keep the scratch directory.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <lastwords/probe.h>
#include <sqlite3.h>

#include "helpers.h"

#define DEFAULT_BUNDLES 1000u
#define SLOTS 16384u
#define INFERENCES 330      /* 3 records each, and a memory sample every 16th */
#define APP_VERSION 410
#define PACKAGE "com.bench.history"
#define INGEST_TARGET_S 3.0 /* half of the 6 s before issue 14 */
#define QUERY_TARGET_S 1.0
#define QUERY_REPS 3
#define SCALE_DAYS 100      /* the copies' times spread over as many days */
#define SCALE_TARGET_S 0.1  /* each history query at 200k runs */
#define LARGE_TARGET_S 0.5  /* and at 1M */

enum ending { CLEAN, KILLED, CRASHED, NENDINGS };

static const char *const ending_names[NENDINGS] = { "clean", "killed", "crashed" };
/* The class each ending must come out as ("clean": no verdict; the probe
 * closed, then EXIT_SELF with status 0). */
static const char *const ending_classes[NENDINGS] = { "clean", "low_memory", "native_crash" };

#define NCANDIDATES 5
static const char *const candidates[NCANDIDATES] = {
	"vision-v1-int8", "vision-v2-fp16", "vision-v2-int8", "vision-v3-fp16", "vision-v3-int8",
};
/* Per candidate, in percent: runs killed and runs crashed; the rest close. */
static const unsigned kill_pct[NCANDIDATES] = { 4, 8, 25, 10, 12 };
static const unsigned crash_pct[NCANDIDATES] = { 2, 3, 3, 15, 4 };

#define NDEVICES 4
static const char *const devices[NDEVICES] = { "Pixel 8", "Pixel 6a", "SM-A546B", "moto g54" };

struct plan {
	unsigned version;   /* 0..2: APP_VERSION + version */
	unsigned candidate; /* index into candidates */
	unsigned process;   /* 0: :inference, 1: :detector */
	unsigned device;
	enum ending ending;
	int stop;           /* inference at which the run dies; -1: in delegate_prepare */
	int by_abort;       /* a crash by abort() rather than SIGSEGV */
	int witness;        /* a logcat holds lmkd's kill line or the fatal signal */
	pid_t pid;
};

static volatile int *volatile bad_pointer = (volatile int *)(uintptr_t)0x10;
static char *scratch; /* removed at exit unless LW_BENCH_KEEP is set */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* xorshift64*: the same plans on every run. */
static unsigned rnd(unsigned bound)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return (unsigned)((x * 0x2545f4914f6cdd1dull) >> 33) % bound;
}

static void cleanup(void)
{
	if (scratch && !getenv("LW_BENCH_KEEP"))
		t_rmdir(scratch);
	else if (scratch)
		fprintf(stderr, "bench-history: kept %s\n", scratch);
}

static void plan_bundles(struct plan *p, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		unsigned roll;

		/* Versions one after another; each ships a window of candidates. */
		p[i].version = i * 3 / n;
		p[i].candidate = p[i].version + rnd(3);
		p[i].process = rnd(8) == 0;
		p[i].device = rnd(NDEVICES);
		roll = rnd(100);
		p[i].ending = roll < kill_pct[p[i].candidate] ? KILLED
			      : roll < kill_pct[p[i].candidate] + crash_pct[p[i].candidate] ? CRASHED
											   : CLEAN;
		p[i].stop = INFERENCES - 40 + (int)rnd(40);
		if (p[i].ending == CRASHED && p[i].candidate == 3 && rnd(2) == 0)
			p[i].stop = -1; /* the fp16 GPU delegate crashes in prepare */
		p[i].by_abort = rnd(4) == 0;
		p[i].witness = p[i].ending != CLEAN && rnd(2) == 0;
	}
}

static void die_as_planned(const struct plan *p)
{
	if (p->ending == KILLED)
		kill(getpid(), SIGKILL);
	else if (p->by_abort)
		abort();
	else
		*bad_pointer = 1;
	_exit(4);
}

/* The inference process: about a thousand records, then its end. */
static void child(const char *dir, const struct plan *p)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = p->process ? PACKAGE ":detector" : PACKAGE ":inference",
		.slot_count = SLOTS,
		.app_version = APP_VERSION + p->version,
		.memory_budget_kb = 256 * 1024,
	};
	struct rlimit no_core = { 0, 0 };
	struct lw *lw;
	int i;

	/* Crashes leave no core file (core_pattern may be a plain "core"). */
	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (lw_open(&cfg, &lw) != 0)
		_exit(3);
	lw_crash_install(lw);
	lw_candidate(lw, candidates[p->candidate]);
	lw_mark(lw, LW_MARK_BUDGET, cfg.memory_budget_kb);
	lw_stage_begin(lw, LW_STAGE_LOAD);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE,
		strstr(candidates[p->candidate], "fp16") ? LW_DELEGATE_GPU : LW_DELEGATE_XNNPACK);
	if (p->ending == CRASHED && p->stop < 0)
		die_as_planned(p);
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	lw_mark(lw, LW_MARK_SESSIONS, 1);
	for (i = 0; i < INFERENCES; i++) {
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, (uint64_t)(i % 8));
		lw_stage_begin(lw, LW_STAGE_INFERENCE);
		if (i % 16 == 0)
			lw_memory_sample(lw);
		if (p->ending != CLEAN && i == p->stop)
			die_as_planned(p);
		lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
	lw_mark(lw, LW_MARK_SESSIONS, 0);
	lw_close(lw);
	_exit(0);
}

/* The system's witnesses of the run that ended at end_ms, in UTC. */
static void write_evidence(const char *dir, const struct plan *p, int64_t end_ms)
{
	static const char *const reasons[NENDINGS] = { "1 (EXIT_SELF)", "3 (LOW_MEMORY)",
						       "5 (APP CRASH(NATIVE))" };
	const char *process = p->process ? PACKAGE ":detector" : PACKAGE ":inference";
	const char *comm = process + strlen(process) - 15; /* the kernel's 15-byte name */
	char t1[80], t2[80];
	FILE *f;

	f = t_create(dir, "exit-info.txt");
	t_device_time(t1, sizeof(t1), end_ms + 4, 1);
	t_device_time(t2, sizeof(t2), end_ms - 3600000, 1);
	fprintf(f, "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
		   "Last Timestamp of Persistence Into Persistent Storage: %s\n"
		   "  package: " PACKAGE "\n"
		   "    Historical Process Exit for uid=10231\n",
		t2);
	fprintf(f, "        ApplicationExitInfo #0:\n"
		   "          timestamp=%s pid=%d realUid=10231 packageUid=10231 definingUid=10231 user=0\n"
		   "          process=%s reason=%s subreason=0 (UNKNOWN) status=%d\n"
		   "          importance=%d pss=61MB rss=74MB description=%s state=empty trace=null\n",
		t1, (int)p->pid, process, reasons[p->ending],
		p->ending != CRASHED ? 0 : p->by_abort ? SIGABRT : SIGSEGV,
		p->ending == CLEAN ? 100 : p->ending == KILLED ? 200 : 125, p->ending == CRASHED ? "crash" : "null");
	fclose(f);

	f = t_create(dir, "manifest.json");
	fprintf(f, "{\"tz_offset\": \"+00:00\", \"complete\": true, "
		   "\"device\": {\"model\": \"%s\", \"android_version\": \"14\"}}\n",
		devices[p->device]);
	fclose(f);

	if (!p->witness)
		return;
	f = t_create(dir, "logcat.txt");
	t_device_time(t1, sizeof(t1), end_ms + 1, 0);
	t_device_time(t2, sizeof(t2), end_ms + 6, 0);
	if (p->ending == KILLED)
		fprintf(f, "--------- beginning of main\n"
			   "%s   612   612 I lowmemorykiller: Kill '%s' (%d), uid 10231, oom_score_adj 200 "
			   "to free 262144kB rss, 18432kB swap; reason: low watermark is breached\n",
			t1, process, (int)p->pid);
	else if (p->by_abort)
		fprintf(f, "--------- beginning of crash\n"
			   "%s  %5d  %5d F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid %d "
			   "(inference), pid %d (%s)\n",
			t1, (int)p->pid, (int)p->pid, (int)p->pid, (int)p->pid, comm);
	else
		fprintf(f, "--------- beginning of crash\n"
			   "%s  %5d  %5d F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), "
			   "fault addr 0x10 in tid %d (inference), pid %d (%s)\n",
			t1, (int)p->pid, (int)p->pid, (int)p->pid, (int)p->pid, comm);
	fprintf(f, "%s  1580  1612 I ActivityManager: Process %s (pid %d) has died: prcp FGS\n", t2,
		process, (int)p->pid);
	fclose(f);
}

/* Fork a child that writes bundle i's ring; wait for it to end as planned. */
static void generate(const char *root, struct plan *p, unsigned i)
{
	char dir[512];
	int status, ok;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/b%04u", root, i);
	T_ASSERT(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
	fflush(NULL);
	pid = fork();
	T_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		child(dir, p);
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	switch (p->ending) {
	case CLEAN:
		ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		break;
	case KILLED:
		ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		break;
	default:
		ok = WIFSIGNALED(status) &&
		     WTERMSIG(status) == (p->by_abort ? SIGABRT : SIGSEGV);
		break;
	}
	T_ASSERT(ok, "bundle %u: the child (%s) ended with status 0x%x", i, ending_names[p->ending],
		 status);
	p->pid = pid;
	write_evidence(dir, p, now_ms());
}

/* The whole of a small file, NUL-terminated; the caller frees it. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	T_ASSERT(f != NULL, "open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	T_ASSERT(buf && fread(buf, 1, (size_t)n, f) == (size_t)n, "read %s", path);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static unsigned count_of(const char *text, const char *needle)
{
	unsigned n = 0;

	while ((text = strstr(text, needle)) != NULL) {
		n++;
		text += strlen(needle);
	}
	return n;
}

/* The number after the first "key": in a JSON text, or -1. */
static long long json_number(const char *text, const char *key)
{
	char quoted[64];
	const char *p;

	snprintf(quoted, sizeof(quoted), "\"%s\"", key);
	p = strstr(text, quoted);
	if (!p)
		return -1;
	p += strlen(quoted);
	while (*p == ' ' || *p == '\t' || *p == ':')
		p++;
	return strtoll(p, NULL, 10);
}

static long long db_count(sqlite3 *db, const char *sql, const char *param)
{
	sqlite3_stmt *st;
	long long n = -1;

	T_ASSERT(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
		 sqlite3_errmsg(db));
	if (param)
		sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static long long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

/* Is word one of the comma-separated list? */
static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *q;

	for (q = list; n && (q = strstr(q, word)) != NULL; q++)
		if ((q == list || q[-1] == ',') && (q[n] == ',' || q[n] == '\0'))
			return 1;
	return 0;
}

/* Each stored run against its bundle's plan: class, app version,
 * candidate, process and device. */
static void check_runs(sqlite3 *db, const struct plan *p, unsigned n)
{
	sqlite3_stmt *st;
	unsigned seen = 0;

	T_ASSERT(sqlite3_prepare_v2(db,
				    "SELECT bundle.source, coalesce(run.class, 'clean'), run.app_version, "
				    "run.candidate, run.process, coalesce(bundle.device_model, '') "
				    "FROM run JOIN bundle ON bundle.id = run.bundle_id",
				    -1, &st, NULL) == SQLITE_OK,
		 "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *source = (const char *)sqlite3_column_text(st, 0);
		const char *cls = (const char *)sqlite3_column_text(st, 1);
		const char *cand = (const char *)sqlite3_column_text(st, 3);
		const char *proc = (const char *)sqlite3_column_text(st, 4);
		const char *base = strrchr(source, '/');
		unsigned i = (unsigned)strtoul(base ? base + 2 : "", NULL, 10);
		char want[24];

		T_ASSERT(base && i < n, "a run of an unknown bundle '%s'", source);
		snprintf(want, sizeof(want), "%016llx",
			 (unsigned long long)lw_digest(candidates[p[i].candidate]));
		T_ASSERT(in_list(ending_classes[p[i].ending], cls), "b%04u (%s): stored as %s", i,
			 ending_names[p[i].ending], cls);
		T_ASSERT(sqlite3_column_int64(st, 2) == APP_VERSION + p[i].version,
			 "b%04u: app version %lld", i, sqlite3_column_int64(st, 2));
		T_ASSERT(cand && strcmp(cand, want) == 0, "b%04u: candidate %s, not %s", i,
			 cand ? cand : "NULL", want);
		T_ASSERT(strcmp(proc, p[i].process ? PACKAGE ":detector" : PACKAGE ":inference") == 0,
			 "b%04u: process %s", i, proc);
		T_ASSERT(strcmp((const char *)sqlite3_column_text(st, 5), devices[p[i].device]) == 0,
			 "b%04u: device %s", i, (const char *)sqlite3_column_text(st, 5));
		seen++;
	}
	sqlite3_finalize(st);
	T_ASSERT(seen == n, "%u runs checked, not %u", seen, n);
}

/* `lastwords report --format json` on the first bundle of each kind (ending,
 * logcat witness or not, crash stage): the one exit record joins the run
 * and the class is the intended one. */
static void check_samples(const char *lastwords, const char *root, const struct plan *p,
			  unsigned n)
{
	static const char script[] =
		"import json, sys\n"
		"r = json.load(open(sys.argv[1]))\n"
		"runs = r['runs']\n"
		"run = runs[0] if len(runs) == 1 else {}\n"
		"cls = run.get('classification') or 'clean'\n"
		"print('    %-36s %s, %s; %d exit record joined, %d unmatched' % (sys.argv[3], cls,\n"
		"      run.get('evidence_level'), len(run.get('exit_records', [])),\n"
		"      len(r['unmatched_exit_records'])))\n"
		"sys.exit(0 if len(runs) == 1 and len(run['exit_records']) == 1 and\n"
		"         not r['unmatched_exit_records'] and cls in sys.argv[2].split(',') else 1)\n";
	char py[600], out[600], dir[600], cmd[2400], label[80];
	int seen[NENDINGS][4] = { { 0 } };
	unsigned i;
	FILE *f;

	snprintf(py, sizeof(py), "%s/check-report.py", root);
	f = fopen(py, "w");
	T_ASSERT(f && fputs(script, f) >= 0 && fclose(f) == 0, "cannot write %s", py);
	snprintf(out, sizeof(out), "%s/report.json", root);
	printf("  sample reports (lastwords report --format json --tz UTC BUNDLE):\n");
	for (i = 0; i < n; i++) {
		int early = p[i].ending == CRASHED && p[i].stop < 0;
		char *args[] = { (char *)lastwords, "report", "--format", "json", "--tz", "UTC", dir,
				 NULL };
		int rc;

		if (seen[p[i].ending][p[i].witness + 2 * early])
			continue;
		seen[p[i].ending][p[i].witness + 2 * early] = 1;
		snprintf(dir, sizeof(dir), "%s/b%04u", root, i);
		rc = t_run_child(args, out, NULL);
		T_ASSERT(rc == 0, "lastwords report %s exited %d", dir, rc);
		snprintf(label, sizeof(label), "b%04u %s%s%s%s", i, ending_names[p[i].ending],
			 p[i].ending != CRASHED ? "" : p[i].by_abort ? " (abort)" : " (SIGSEGV)",
			 early ? " in delegate_prepare" : p[i].ending != CLEAN ? " in inference" : "",
			 p[i].witness ? " + logcat" : "");
		snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' '%s' '%s:'", py, out,
			 ending_classes[p[i].ending], label);
		T_ASSERT(system(cmd) == 0, "the report of %s does not join its exit record as %s", dir,
			 ending_classes[p[i].ending]);
	}
	unlink(out);
	unlink(py);
}

/* Time one command QUERY_REPS times: the best wall time; output to out. */
static double time_query(char *const argv[], const char *out)
{
	double best = 1e9, t;
	int rep, rc;

	for (rep = 0; rep < QUERY_REPS; rep++) {
		t = t_now_s();
		rc = t_run_child(argv, out, NULL);
		t = t_now_s() - t;
		T_ASSERT(rc == 0, "lastwords %s %s exited %d", argv[1], argv[5], rc);
		if (t < best)
			best = t;
	}
	return best;
}

/* The text of the statement "-- name: NAME" of queries; free with free(). */
static char *statement(const char *queries, const char *name)
{
	char marker[80];
	const char *p, *next;

	snprintf(marker, sizeof(marker), "-- name: %s\n", name);
	p = strstr(queries, marker);
	T_ASSERT(p != NULL, "no statement '%s' in schemas/history-queries.sql", name);
	next = strstr(p + strlen(marker), "\n-- name: ");
	return strndup(p, next ? (size_t)(next - p + 1) : strlen(p));
}

/* The statements "totals", "rates" and "regressions" counting from run
 * alone (on db, where "count-from-runs" has run: what lastwords history
 * ran before the tallies of schema version 5) stepped to their end in this
 * process: the best wall time. */
/* Whether by is the matrix's (device, sdk, delegate, runtime, or a
 * combination): the statement "matrix" rather than "rates". */
static int matrix_by(const char *by)
{
	return strchr(by, ',') || !strcmp(by, "device") || !strcmp(by, "sdk") ||
	       !strcmp(by, "delegate") || !strcmp(by, "runtime");
}

static double time_plain(sqlite3 *db, const char *queries, const char *by, const char *since)
{
	const char *names[] = { "totals", matrix_by(by) ? "matrix" : "rates", "regressions" };
	double best = 1e9, t;
	int rep;
	size_t i;

	for (rep = 0; rep < QUERY_REPS; rep++) {
		t = t_now_s();
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *text = statement(queries, names[i]);
			sqlite3_stmt *st;
			int k;

			T_ASSERT(sqlite3_prepare_v2(db, text, -1, &st, NULL) == SQLITE_OK, "%s: %s",
				 names[i], sqlite3_errmsg(db));
			if ((k = sqlite3_bind_parameter_index(st, ":by")) > 0)
				sqlite3_bind_text(st, k, by, -1, SQLITE_STATIC);
			if ((k = sqlite3_bind_parameter_index(st, ":since")) > 0 && since)
				sqlite3_bind_text(st, k, since, -1, SQLITE_STATIC);
			while (sqlite3_step(st) == SQLITE_ROW)
				;
			T_ASSERT(sqlite3_finalize(st) == SQLITE_OK, "%s: %s", names[i], sqlite3_errmsg(db));
			free(text);
		}
		t = t_now_s() - t;
		if (t < best)
			best = t;
	}
	return best;
}

/* How the queries hold past the target's size: the stored runs (those of
 * the bundles) copied until there are runs * factor (copies from..factor-1:
 * new run keys, app versions spread over 7 values, times moved back by up
 * to SCALE_DAYS - 1 days, as a fleet's runs spread over weeks), through
 * the triggers that keep the tallies. Then each history query, timed as
 * lastwords history runs it (the tallies) against the plain SQL on the
 * same database (what it ran before), for every --by and one --since that
 * cuts a day. Prints whether the target holds; never fails on it. */
static void scale(const char *lastwords, const char *queries, const char *db_path, long long runs,
		  unsigned from, unsigned factor, double target)
{
	static const char copy[] =
		"WITH RECURSIVE k(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM k WHERE i < ?2) "
		"INSERT INTO run (run_key, bundle_id, package, process, pid, file, start_time, end_time, "
		"app_version, candidate, stable_candidate, outcome, last_stage, open_stage, budget_kb, "
		"peak_kb, peak_stage, over_budget, class, evidence_level, contradiction, delegates, "
		"runtime_version, resident_models) "
		"SELECT run_key || '-' || k.i, bundle_id, package, process, pid, file, "
		"date(start_time, -(k.i % ?3) || ' days') || substr(start_time, 11), "
		"date(end_time, -(k.i % ?3) || ' days') || substr(end_time, 11), "
		"app_version + k.i % 7, candidate, stable_candidate, outcome, last_stage, "
		"open_stage, budget_kb, peak_kb, peak_stage, over_budget, class, evidence_level, "
		"contradiction, delegates, runtime_version + k.i % 3, resident_models "
		"FROM run, k WHERE instr(run_key, '-') = 0";
	static const char *const groupings[] = { "candidate", "app_version", "stage", "class",
						 "device",    "process",     "ring",  "sdk",
						 "delegate",  "runtime",     "device,delegate" };
	char out[PATH_MAX], label[96], since[32], *text;
	sqlite3_stmt *st;
	sqlite3 *db, *plain_db;
	double t;
	size_t i;

	T_ASSERT(sqlite3_open(db_path, &db) == SQLITE_OK, "cannot open %s", db_path);
	T_ASSERT(sqlite3_open(db_path, &plain_db) == SQLITE_OK, "cannot open %s", db_path);
	text = statement(queries, "count-from-runs");
	T_ASSERT(sqlite3_exec(plain_db, text, NULL, NULL, NULL) == SQLITE_OK, "count-from-runs: %s",
		 sqlite3_errmsg(plain_db));
	free(text);
	T_ASSERT(sqlite3_prepare_v2(db, copy, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int(st, 1, (int)from);
	sqlite3_bind_int(st, 2, (int)factor - 1);
	sqlite3_bind_int(st, 3, SCALE_DAYS);
	t = t_now_s();
	T_ASSERT(sqlite3_step(st) == SQLITE_DONE, "%s", sqlite3_errmsg(db));
	t = t_now_s() - t;
	sqlite3_finalize(st);
	/* The middle run's time, to the second: a --since inside a day. */
	T_ASSERT(sqlite3_prepare_v2(db, "SELECT substr(coalesce(start_time, end_time), 1, 19) FROM run "
					"ORDER BY coalesce(start_time, end_time) LIMIT 1 OFFSET ?",
				    -1, &st, NULL) == SQLITE_OK,
		 "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, runs * factor / 2);
	T_ASSERT(sqlite3_step(st) == SQLITE_ROW, "no start time");
	snprintf(since, sizeof(since), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	printf("  the same runs copied to %lld runs over %d days (%.1f s, tallies kept by the triggers);\n"
	       "  each query counting from run alone (count-from-runs, as before the tallies;\n"
	       "  in this process: 'plain') and as\n"
	       "  lastwords history (the tallies), best of %d; target under %.1f s:\n",
	       runs * factor, SCALE_DAYS, t, QUERY_REPS, target);
	snprintf(out, sizeof(out), "%s/history.json", scratch);
	for (i = 0; i <= sizeof(groupings) / sizeof(groupings[0]); i++) {
		int with_since = i == sizeof(groupings) / sizeof(groupings[0]);
		const char *by = with_since ? "candidate" : groupings[i];
		char *args[] = { (char *)lastwords, "history", "--db", (char *)db_path, "--by", (char *)by,
				 "--format", "json", "--since", since, NULL };
		double plain = time_plain(plain_db, queries, by, with_since ? since : NULL);

		if (!with_since)
			args[8] = NULL;
		t = time_query(args, out);
		text = slurp(out, NULL);
		T_ASSERT(with_since || json_number(text, "runs") == runs * factor,
			 "history on the copies: %lld runs", json_number(text, "runs"));
		free(text);
		if (with_since)
			snprintf(label, sizeof(label), "history --by %s --since %s", by, since);
		else
			snprintf(label, sizeof(label), "history --by %s", by);
		printf("    %-46s plain %7.3f s  history %7.3f s  %5.0fx  %s\n", label, plain, t, plain / t,
		       t < target ? "met" : "NOT met");
	}
	sqlite3_close(plain_db);
	sqlite3_close(db);
	unlink(out);
}

int main(int argc, char **argv)
{
	static const char *const groupings[] = { "candidate", "app_version", "stage",
						 "class",     "device",      "process",
						 "sdk",       "delegate",    "device,delegate" };
	/* How many groups each grouping must give (0: at least two; class: one
	 * per ending planned, counted below). */
	static const unsigned groups_wanted[] = { NCANDIDATES, 3, 0, 0, NDEVICES, 2 };
	char db_path[512], out[600], since[32], label[80];
	unsigned n = DEFAULT_BUNDLES, i, planned[NENDINGS] = { 0 };
	char **ingest_args, *text, *queries;
	const char *lastwords, *queries_path;
	struct plan *plans;
	long long runs, events, bundles, db_bytes;
	long rss = 0;
	double t, gen_s;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t len;
	int rc;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench-history LASTWORDS HISTORY_QUERIES_SQL [BUNDLES]\n");
		return 2;
	}
	lastwords = argv[1];
	queries_path = argv[2];
	if (argc == 4)
		n = (unsigned)strtoul(argv[3], NULL, 10);
	if (n < 10 || n > 9999) {
		fprintf(stderr, "bench-history: BUNDLES is 10 to 9999\n");
		return 2;
	}
	scratch = strdup(t_tmpdir("bench-history"));
	atexit(cleanup);
	plans = calloc(n, sizeof(*plans));
	T_ASSERT(plans != NULL, "out of memory");
	plan_bundles(plans, n);

	/* 1. The bundles. */
	t = t_now_s();
	for (i = 0; i < n; i++) {
		generate(scratch, &plans[i], i);
		planned[plans[i].ending]++;
	}
	gen_s = t_now_s() - t;
	printf("history benchmark: %u bundles, each one %u-slot ring (%u KiB) and an exit-info dump\n",
	       n, SLOTS, SLOTS * 64 / 1024);
	printf("  generated in %.1f s: %u clean, %u killed (SIGKILL), %u crashed (SIGSEGV/abort)\n",
	       gen_s, planned[CLEAN], planned[KILLED], planned[CRASHED]);

	/* 2. A sample of bundles reports as intended. */
	check_samples(lastwords, scratch, plans, n);

	/* 3. Ingest all of them. */
	snprintf(db_path, sizeof(db_path), "%s/history.db", scratch);
	ingest_args = calloc(n + 8, sizeof(*ingest_args));
	T_ASSERT(ingest_args != NULL, "out of memory");
	ingest_args[0] = (char *)lastwords;
	ingest_args[1] = "ingest";
	ingest_args[2] = "--db";
	ingest_args[3] = db_path;
	ingest_args[4] = "--events";
	ingest_args[5] = "--tz";
	ingest_args[6] = "UTC";
	for (i = 0; i < n; i++) {
		ingest_args[7 + i] = malloc(strlen(scratch) + 8);
		T_ASSERT(ingest_args[7 + i] != NULL, "out of memory");
		sprintf(ingest_args[7 + i], "%s/b%04u", scratch, i);
	}
	t = t_now_s();
	rc = t_run_child(ingest_args, "/dev/null", &rss);
	t = t_now_s() - t;
	T_ASSERT(rc == 0, "lastwords ingest exited %d", rc);

	T_ASSERT(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK,
		 "cannot open %s", db_path);
	bundles = db_count(db, "SELECT count(*) FROM bundle", NULL);
	runs = db_count(db, "SELECT count(*) FROM run", NULL);
	events = db_count(db, "SELECT count(*) FROM event", NULL);
	db_bytes = file_size(db_path);
	snprintf(out, sizeof(out), "%s-wal", db_path);
	db_bytes += file_size(out);
	printf("  lastwords ingest --events --tz UTC (%u bundles)\n", n);
	printf("    %.2f s, %.1f bundles/s, %.0f events/s, peak rss %ld MiB\n", t, n / t,
	       (double)events / t, rss / 1024);
	printf("    stored %lld bundles, %lld runs, %lld events; database %.1f MiB\n", bundles, runs,
	       events, (double)db_bytes / (1024.0 * 1024.0));
	printf("    target under %.0f s for 1000 bundles: %s\n", INGEST_TARGET_S,
	       t * 1000.0 / n < INGEST_TARGET_S ? "met" : "NOT met");

	/* Beside it: the same without --events, into a database of its own
	 * (all that ingest does but store the ring's records). */
	snprintf(out, sizeof(out), "%s/no-events.db", scratch);
	ingest_args[3] = out;
	ingest_args[4] = "--tz=UTC"; /* in place of --events: the zone given twice */
	t = t_now_s();
	rc = t_run_child(ingest_args, "/dev/null", NULL);
	t = t_now_s() - t;
	T_ASSERT(rc == 0, "lastwords ingest without --events exited %d", rc);
	printf("    the same without --events: %.2f s\n", t);
	ingest_args[3] = db_path;
	ingest_args[4] = "--events";
	T_ASSERT(bundles == n && runs == n, "%lld bundles and %lld runs stored, not %u", bundles, runs,
		 n);
	T_ASSERT(events >= 900LL * n, "only %lld events stored for %u bundles", events, n);

	/* Each run got its planned class. */
	printf("  verdicts stored (class, evidence level, runs):\n");
	T_ASSERT(sqlite3_prepare_v2(db,
				    "SELECT coalesce(class, 'clean'), coalesce(evidence_level, '-'), "
				    "count(*) FROM run GROUP BY 1, 2 ORDER BY 1, 2",
				    -1, &st, NULL) == SQLITE_OK,
		 "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("    %-14s %-12s %lld\n", (const char *)sqlite3_column_text(st, 0),
		       (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2));
	sqlite3_finalize(st);
	check_runs(db, plans, n);
	T_ASSERT(db_count(db, "SELECT count(*) FROM exit_record", NULL) == n,
		 "not one exit record joined per run");

	/* The middle run's start, to the second, for --since. */
	T_ASSERT(sqlite3_prepare_v2(db, "SELECT substr(start_time, 1, 19) FROM run "
					"ORDER BY start_time LIMIT 1 OFFSET ?",
				    -1, &st, NULL) == SQLITE_OK,
		 "%s", sqlite3_errmsg(db));
	sqlite3_bind_int(st, 1, (int)n / 2);
	T_ASSERT(sqlite3_step(st) == SQLITE_ROW, "no start time");
	snprintf(since, sizeof(since), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);

	/* The NDJSON export has a line per run. */
	snprintf(out, sizeof(out), "%s/export.ndjson", scratch);
	{
		char *args[] = { (char *)lastwords, "export", "--db", db_path, "--format", "ndjson", NULL };

		rc = t_run_child(args, out, NULL);
		T_ASSERT(rc == 0, "lastwords export exited %d", rc);
		text = slurp(out, &len);
		T_ASSERT(count_of(text, "\n") == n, "the NDJSON export has %u lines, not %u",
			 count_of(text, "\n"), n);
		free(text);
		unlink(out);
	}

	/* 4. The queries. */
	printf("  queries on %lld runs and %lld events (best of %d; target under %.0f s each):\n", runs,
	       events, QUERY_REPS, QUERY_TARGET_S);
	snprintf(out, sizeof(out), "%s/history.json", scratch);
	for (i = 0; i <= sizeof(groupings) / sizeof(groupings[0]); i++) {
		int with_since = i == sizeof(groupings) / sizeof(groupings[0]);
		const char *by = with_since ? "candidate" : groupings[i];
		char *args[] = { (char *)lastwords, "history", "--db",    db_path, "--by", (char *)by,
				 "--format",        "json",    "--since", since,   NULL };
		long long want, got;
		unsigned groups;

		if (!with_since)
			args[8] = NULL;
		t = time_query(args, out);
		text = slurp(out, NULL);
		got = json_number(text, "runs");
		groups = count_of(text, "\"first_seen\"");
		want = with_since ? db_count(db, "SELECT count(*) FROM run WHERE start_time >= ?", since)
				  : runs;
		if (with_since)
			snprintf(label, sizeof(label), "history --by %s --since %s", by, since);
		else
			snprintf(label, sizeof(label), "history --by %s", by);
		printf("    %-52s %7.3f s  %-7s (%lld runs, %u groups, %u regressions)\n", label, t,
		       t < QUERY_TARGET_S ? "met" : "NOT met", got, groups,
		       count_of(text, "\"previous_runs\""));
		T_ASSERT(got == want, "%s: %lld runs, not %lld", label, got, want);
		if (!with_since && strcmp(by, "class") == 0) {
			unsigned e, endings = 0;

			for (e = 0; e < NENDINGS; e++)
				endings += planned[e] > 0; /* a small run may plan no crash */
			T_ASSERT(groups == endings, "%s: %u groups, not %u", label, groups, endings);
		} else {
			T_ASSERT(with_since || (groups_wanted[i] ? groups == groups_wanted[i] : groups >= 2),
				 "%s: %u groups", label, groups);
		}
		free(text);
	}
	unlink(out);
	for (i = 0; i < 2; i++) {
		char *format = i == 0 ? "ndjson" : "csv";
		char *args[] = { (char *)lastwords, "export", "--db", db_path, "--format", format, NULL };

		t = time_query(args, "/dev/null");
		snprintf(label, sizeof(label), "export --format %s", format);
		printf("    %-52s %7.3f s  %s\n", label, t, t < QUERY_TARGET_S ? "met" : "NOT met");
	}
	sqlite3_close(db);
	queries = slurp(queries_path, NULL);
	scale(lastwords, queries, db_path, runs, 1, 200, SCALE_TARGET_S);
	scale(lastwords, queries, db_path, runs, 200, 1000, LARGE_TARGET_S);
	free(queries);
	for (i = 0; i < n; i++)
		free(ingest_args[7 + i]);
	free(ingest_args);
	free(plans);
	return T_PASS;
}
