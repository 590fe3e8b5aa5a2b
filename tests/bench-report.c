/*
 * bench-report LASTWORDS: `lastwords report` on a bundle of one 1M-slot ring
 * (filled past one lap) and a dumpsys exit-info of 10k records, one of them
 * this run's; each of the others, of a pid no ring has, is a ring-less run
 * of its own (10k runs in the report). Prints the wall time, the peak
 * memory of the report process, and the targets (under 0.5 s; under 100
 * MiB of peak RSS, issue 10). Checks that the one record joined and the
 * others are ring-less runs; never fails on timing or memory. Then the
 * same bundle as `lastwords trace -o FILE`: its time, peak RSS and size.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <lastwords/probe.h>

#include "helpers.h"

#define SLOTS (1u << 20)
#define RECORDS 10000

/* The best wall time of five runs of args (stdout to out), and that run's
 * peak RSS in KiB: 0, or -1 when one exits other than 0 (said). */
static int best_of_5(char **args, const char *out, double *best, long *best_rss)
{
	double t;
	long rss = 0;
	int rep, status;

	*best = 1e9;
	for (rep = 0; rep < 5; rep++) {
		t = t_now_s();
		status = t_run_child(args, out, &rss);
		t = t_now_s() - t;
		if (status != 0) {
			fprintf(stderr, "bench-report: %s exited %d\n", args[1], status);
			return -1;
		}
		if (t < *best) {
			*best = t;
			*best_rss = rss;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lw_config cfg = { .process_name = "bench.report:inference", .slot_count = SLOTS,
				 .memory_budget_kb = 1 << 20 };
	char *dir, path[512], out[512], cmdline[2048], stamp[40];
	struct lw_info info;
	struct lw *lw;
	double best;
	long best_rss = 0;
	FILE *f;
	time_t secs;
	struct tm tm;
	unsigned i;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-report LASTWORDS\n");
		return 2;
	}
	dir = strdup(t_tmpdir("bench-report"));
	cfg.dir = dir;
	if (lw_open(&cfg, &lw) != 0) {
		printf("skip: no ring file could be made\n");
		return T_SKIP;
	}
	lw_info(lw, &info);
	lw_candidate(lw, "bench-model");
	for (i = 0; i < SLOTS + SLOTS / 8; i++) {
		if (i % 64 == 0)
			lw_stage_begin(lw, LW_STAGE_INFERENCE);
		else if (i % 64 == 63)
			lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
		else
			lw_mark(lw, LW_MARK_QUEUE_DEPTH, i);
	}
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	/* Leave the run as a killed process leaves it: no close. Copy the
	 * file while the probe still holds it, as adb pull would. */
	snprintf(path, sizeof(path), "%s/bench.ring.lwr", dir);
	snprintf(cmdline, sizeof(cmdline), "cp '%s' '%s' && rm -f '%s'", info.path, path, info.path);
	if (system(cmdline) != 0)
		return T_FAIL;

	/* 10k records, newest first; record 5000 is this run's death. */
	snprintf(path, sizeof(path), "%s/exit-info.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return T_FAIL;
	fprintf(f, "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
		   "Last Timestamp of Persistence Into Persistent Storage: 2026-01-01 00:00:00.000\n"
		   "  package: bench.report\n    Historical Process Exit for uid=10001\n");
	for (i = 0; i < RECORDS; i++) {
		int64_t ms = i == 5000 ? (int64_t)time(NULL) * 1000 + 5000
				       : (int64_t)time(NULL) * 1000 - (int64_t)i * 60000 - 86400000;
		int pid = i == 5000 ? (int)getpid() : 20000 + (int)i;

		secs = (time_t)(ms / 1000);
		gmtime_r(&secs, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "        ApplicationExitInfo #%u:\n"
			   "          timestamp=%s.%03d pid=%d realUid=10001 packageUid=10001 definingUid=10001 user=0\n"
			   "          process=bench.report:inference reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
			   "          importance=100 pss=512MB rss=600MB description=null state=empty trace=null\n",
			i, stamp, (int)(ms % 1000), pid);
	}
	fclose(f);

	/* Beside the bundle, not in it. */
	snprintf(out, sizeof(out), "%s.report.json", dir);
	{
		char *args[] = { argv[1], "report", "--format", "json", dir, NULL };

		if (best_of_5(args, out, &best, &best_rss) != 0)
			return T_FAIL;
	}
	/* The one record of this run joined it; the other 9999 are ring-less
	 * runs of their own. */
	snprintf(cmdline, sizeof(cmdline),
		 "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); "
		 "run=r[\"runs\"][0]; sys.exit(0 if len(run[\"exit_records\"])==1 and "
		 "run[\"classification\"]==\"low_memory\" and run[\"ring\"]==\"probe\" and "
		 "sum(x[\"ring\"]==\"none\" for x in r[\"runs\"])==%d else 1)' '%s'",
		 RECORDS - 1, out);
	if (system(cmdline) != 0) {
		fprintf(stderr, "bench-report: the report did not join the run's one record\n");
		return T_FAIL;
	}
	printf("report on a bundle of a %u-slot ring (64 MiB) and %d exit records (%d ring-less runs):\n",
	       SLOTS, RECORDS, RECORDS - 1);
	printf("  lastwords report --format json   %.3f s (best of 5), peak rss %ld MiB\n", best,
	       best_rss / 1024);
	printf("  target under 0.5 s: %s\n", best < 0.5 ? "met" : "not met");
	printf("  target peak RSS under 100 MiB: %s (%ld MiB)\n",
	       best_rss / 1024 < 100 ? "met" : "not met", best_rss / 1024);
	/* The same report with --symbols on an empty directory: symbolication
	 * costs nothing where there is no tombstone (issue 24). */
	{
		char syms[PATH_MAX];
		double plain = best;
		char *args[] = { argv[1], "report", "--format", "json", "--symbols", syms, dir, NULL };

		snprintf(syms, sizeof(syms), "%s.symbols", dir);
		if (mkdir(syms, 0700) != 0 || best_of_5(args, out, &best, &best_rss) != 0)
			return T_FAIL;
		printf("  ... --symbols (an empty dir)     %.3f s (best of 5), peak rss %ld MiB: %.2fx "
		       "without\n",
		       best, best_rss / 1024, best / plain);
		rmdir(syms);
	}
	/* The same bundle as a Perfetto trace (issue 14): its time, peak RSS
	 * and size. */
	snprintf(path, sizeof(path), "%s.pftrace", dir);
	{
		char *args[] = { argv[1], "trace", "-o", path, dir, NULL };
		struct stat st;

		if (best_of_5(args, "/dev/null", &best, &best_rss) != 0 || stat(path, &st) != 0)
			return T_FAIL;
		printf("  lastwords trace -o FILE          %.3f s (best of 5), peak rss %ld MiB, "
		       "%.1f MiB of trace\n",
		       best, best_rss / 1024, (double)st.st_size / (1024.0 * 1024.0));
		unlink(path);
	}
	lw_close(lw);
	unlink(out);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
