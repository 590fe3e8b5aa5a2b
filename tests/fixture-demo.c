/*
 * fixture-demo DIR: write the demo bundle of fixtures/demo, a pull from a
 * device as lastwords sees it. The rings come from the real probe, in
 * child processes:
 *   com.example.demo            the app's main process; closes cleanly
 *   com.example.demo:inference  run 1: demo-model-v1 serves, closes cleanly
 *                               run 2: demo-model-v2-fp16 crashes (SIGSEGV)
 *                                      preparing the GPU delegate
 *                               run 3: demo-model-v2-int8 on XNNPACK grows
 *                                      past its budget and is killed (SIGKILL)
 * Then the system's evidence of those deaths, written from the runs' pids
 * and times as the device would have it, in local time UTC+01:00:
 * dumpsys-exit-info.txt (with one stale record of a run three days before,
 * whose ring was not kept: a ring-less run),
 * logcat.txt and tombstone_00. Not a test: run on purpose with
 * `meson compile -C build fixture-demo`, then review the diff.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#include <lastwords/probe.h>

#include "helpers.h"

#define LOCAL_OFFSET_MS 3600000LL /* the device's zone: UTC+01:00 */
#define MIB (1024u * 1024u)

static volatile int *volatile bad_pointer = (volatile int *)(uintptr_t)0x10;


static struct lw *open_probe(const char *dir, const char *process)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = process,
		.slot_count = 256,
		.runs_kept = 8,
		.app_version = 312,
		.memory_budget_kb = 96 * 1024,
	};
	struct lw *lw;

	if (lw_open(&cfg, &lw) < 0)
		_exit(1);
	return lw;
}

static void run_main(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo");

	lw_mark(lw, LW_MARK_SESSIONS, 0);
	sleep_ms(20);
	lw_close(lw);
}

static void run_clean(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference");
	int i;

	lw_candidate(lw, "demo-model-v1");
	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(12 * MIB);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_XNNPACK);
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	for (i = 0; i < 3; i++) {
		lw_stage_begin(lw, LW_STAGE_INFERENCE);
		sleep_ms(10);
		lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
	lw_close(lw);
}

static void run_crash(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference");

	lw_crash_install(lw);
	lw_candidate(lw, "demo-model-v2-fp16");
	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(24 * MIB);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU);
	sleep_ms(15);
	*bad_pointer = 1;
}

static void run_killed(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference");
	int i;

	lw_crash_install(lw);
	lw_candidate(lw, "demo-model-v2-int8");
	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(16 * MIB);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_XNNPACK);
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	lw_mark(lw, LW_MARK_SESSIONS, 2);
	for (i = 1;; i++) {
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, (uint64_t)i);
		lw_stage_begin(lw, LW_STAGE_INFERENCE);
		t_grow(16 * MIB);
		lw_memory_sample(lw);
		if (i == 6)
			kill(getpid(), SIGKILL);
		sleep_ms(10);
		lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
}

/* Run fn in a child; return its pid. */
static pid_t run(void (*fn)(const char *), const char *dir)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn(dir);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	sleep_ms(30);
	return pid;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Local time of a UTC instant, as dumpsys ("2026-11-30 00:16:10.020") or
 * logcat ("11-30 00:16:10.020") print it. */
static void local_time(char *buf, size_t len, int64_t utc_ms, int with_year)
{
	t_device_time(buf, len, utc_ms + LOCAL_OFFSET_MS, with_year);
}

int main(int argc, char **argv)
{
	char rings[512], cmd[1200], t1[80], t2[80], t3[80], t4[80];
	pid_t main_pid, crash_pid, killed_pid;
	int64_t crash_at, killed_at, stale_at;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: fixture-demo DIR\n");
		return 2;
	}
	snprintf(rings, sizeof(rings), "%s/rings", argv[1]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", rings, rings);
	if (system(cmd) != 0)
		return 1;
	main_pid = run(run_main, rings);
	run(run_clean, rings);
	crash_pid = run(run_crash, rings);
	crash_at = now_ms() - 25;
	killed_pid = run(run_killed, rings);
	killed_at = now_ms() - 25;
	stale_at = crash_at - 86400000LL * 3;

	/* dumpsys activity exit-info com.example.demo: newest first. */
	f = t_create(argv[1], "dumpsys-exit-info.txt");
	local_time(t1, sizeof(t1), killed_at + 40, 1);
	local_time(t2, sizeof(t2), crash_at + 60, 1);
	local_time(t3, sizeof(t3), stale_at, 1);
	local_time(t4, sizeof(t4), killed_at - 600000, 1);
	fprintf(f, "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
		   "Last Timestamp of Persistence Into Persistent Storage: %s\n"
		   "  package: com.example.demo\n"
		   "    Historical Process Exit for uid=10187\n", t4);
	fprintf(f, "        ApplicationExitInfo #0:\n"
		   "          timestamp=%s pid=%d realUid=10187 packageUid=10187 definingUid=10187 user=0\n"
		   "          process=com.example.demo:inference reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
		   "          importance=125 pss=104MB rss=118MB description=null state=empty trace=null\n",
		t1, (int)killed_pid);
	fprintf(f, "        ApplicationExitInfo #1:\n"
		   "          timestamp=%s pid=%d realUid=10187 packageUid=10187 definingUid=10187 user=0\n"
		   "          process=com.example.demo:inference reason=5 (APP CRASH(NATIVE)) subreason=0 (UNKNOWN) status=11\n"
		   "          importance=125 pss=31MB rss=44MB description=crash state=empty trace=null\n",
		t2, (int)crash_pid);
	fprintf(f, "        ApplicationExitInfo #2:\n"
		   "          timestamp=%s pid=%d realUid=10187 packageUid=10187 definingUid=10187 user=0\n"
		   "          process=com.example.demo:inference reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
		   "          importance=400 pss=88MB rss=97MB description=null state=empty trace=null\n",
		t3, (int)(crash_pid > 300 ? crash_pid - 211 : crash_pid + 211));
	fclose(f);

	/* logcat -v threadtime: the kill of run 3 and the crash of run 2. */
	f = t_create(argv[1], "logcat.txt");
	local_time(t1, sizeof(t1), crash_at - 5, 0);
	local_time(t2, sizeof(t2), crash_at + 70, 0);
	fprintf(f, "--------- beginning of main\n"
		   "%s  %5d  %5d I inference: preparing GPU delegate\n"
		   "--------- beginning of crash\n"
		   "%s  %5d  %5d F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), "
		   "fault addr 0x10 in tid %d (inference), pid %d (mple.demo:inference)\n",
		t1, (int)crash_pid, (int)crash_pid, t1, (int)crash_pid, (int)crash_pid, (int)crash_pid,
		(int)crash_pid);
	fprintf(f, "%s  1523  1610 I ActivityManager: Process com.example.demo:inference (pid %d) has died: fg  FGS\n",
		t2, (int)crash_pid);
	local_time(t1, sizeof(t1), killed_at + 20, 0);
	local_time(t2, sizeof(t2), killed_at + 30, 0);
	local_time(t3, sizeof(t3), killed_at + 45, 0);
	fprintf(f, "%s   812   812 I lowmemorykiller: Kill 'com.example.demo:inference' (%d), uid 10187, "
		   "oom_score_adj 50 to free 120832kB rss, 0kB swap; reason: min watermark is breached\n",
		t1, (int)killed_pid);
	fprintf(f, "%s   601   601 I Zygote  : Process %d exited due to signal 9 (Killed)\n", t2,
		(int)killed_pid);
	fprintf(f, "%s  1523  1610 I ActivityManager: Process com.example.demo:inference (pid %d) has died: fg  FGS\n",
		t3, (int)killed_pid);
	fprintf(f, "%s  %5d  %5d I demo    : main process still up\n", t3, (int)main_pid,
		(int)main_pid);
	fclose(f);

	/* /data/tombstones/tombstone_00 of run 2. */
	f = t_create(argv[1], "tombstone_00");
	local_time(t1, sizeof(t1), crash_at, 1);
	fprintf(f, "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
		   "Build fingerprint: 'demo/device/demo:14/UQ1A.240205.004/11269751:user/release-keys'\n"
		   "Revision: '0'\n"
		   "ABI: 'arm64'\n"
		   "Timestamp: %s+0100\n"
		   "Process uptime: 1s\n"
		   "Cmdline: com.example.demo:inference\n"
		   "pid: %d, tid: %d, name: inference  >>> com.example.demo:inference <<<\n"
		   "uid: 10187\n"
		   "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000010\n"
		   "Cause: null pointer dereference\n"
		   "    x0  0000000000000000  x1  0000007b2c1e4a80  x2  0000000000000010  x3  0000000000000001\n"
		   "\n"
		   "backtrace:\n"
		   "      #00 pc 00000000001a7c40  /vendor/lib64/egl/libGLES_mali.so (BuildId: 4f2a9c0e1d)\n"
		   "      #01 pc 0000000000412c18  /vendor/lib64/egl/libGLES_mali.so (BuildId: 4f2a9c0e1d)\n"
		   "      #02 pc 00000000000e83a4  /data/app/~~demo==/com.example.demo-1/lib/arm64/libtensorflowlite_gpu_delegate.so (tflite::gpu::cl::InferenceContext::InitFromGraph+612)\n"
		   "      #03 pc 00000000000d1f20  /data/app/~~demo==/com.example.demo-1/lib/arm64/libtensorflowlite_gpu_delegate.so (TfLiteGpuDelegateV2Prepare+96)\n"
		   "      #04 pc 0000000000301a54  /data/app/~~demo==/com.example.demo-1/lib/arm64/libtensorflowlite_jni.so\n"
		   "      #05 pc 00000000000b1e10  /apex/com.android.runtime/lib64/bionic/libc.so (__pthread_start+208)\n",
		t1, (int)crash_pid, (int)crash_pid);
	fclose(f);
	printf("fixture-demo: rings of pids %d (main), %d (crash), %d (killed) in %s\n", (int)main_pid,
	       (int)crash_pid, (int)killed_pid, argv[1]);
	return 0;
}
