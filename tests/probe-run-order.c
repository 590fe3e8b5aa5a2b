/*
 * Previous runs are ordered by what does not step back: within a boot by
 * CLOCK_MONOTONIC at open, and the current boot's runs after every earlier
 * boot's; not by the wall-clock time in their names. Runs are made by
 * forked children (killed in load) and clean runs, then moved in wall-clock
 * time (their header's start_real_ns and their name, as a clock step would
 * have made them) or into another boot (their boot_id), with the header
 * checksum sealed again.
 *   - advice: a clean run, then the clock steps back an hour, then three
 *     deaths in load: quarantine, 3 (by name the clean run was the newest,
 *     and the advice none);
 *   - rotation: four runs whose names go back in time; with runs_kept = 2,
 *     the two first made are removed, not the two newest;
 *   - boots: a clean run of an earlier boot whose wall clock was a day
 *     ahead still counts as older than this boot's deaths.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define PROCESS "com.order"
#define HOUR_NS (3600ull * 1000000000ull)

static const char *g_dir;

static struct lw_config config(uint32_t kept)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = 16,
		.runs_kept = kept,
		.app_version = 3,
	};

	return cfg;
}

/* A run that dies by SIGKILL in load with candidate m; its file name goes
 * to name (the child writes it through a pipe). */
static void dying_run(char *name, size_t len)
{
	char path[sizeof(((struct lw_info *)0)->path)];
	int fd, status;
	pid_t pid;

	pid = t_fork_piped(&fd);
	if (pid == 0) {
		struct lw_config cfg = config(64);
		struct lw_info info;
		struct lw *lw;

		if (lw_open(&cfg, &lw) != 0 || lw_info(lw, &info) != 0 ||
		    lw_candidate(lw, "m") != 0 || lw_stage_begin(lw, LW_STAGE_LOAD) != 0 ||
		    write(fd, info.path, sizeof(info.path)) != (ssize_t)sizeof(info.path))
			_exit(2);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	T_ASSERT(read(fd, path, sizeof(path)) == (ssize_t)sizeof(path), "no path from child");
	close(fd);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
		 WTERMSIG(status) == SIGKILL, "dying run: status 0x%x", status);
	snprintf(name, len, "%s", strrchr(path, '/') + 1);
}

/* A run that ends cleanly after an inference with candidate c. */
static void clean_run(const char *c, uint32_t kept, char *name, size_t len)
{
	struct lw_config cfg = config(kept);
	struct lw_info info;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "clean run: lw_open");
	T_ASSERT(lw_candidate(lw, c) == 0 && lw_stage_begin(lw, LW_STAGE_INFERENCE) == 0 &&
		 lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE) == 0, "clean run: events");
	T_ASSERT(lw_close(lw) == 0, "clean run: lw_close");
	snprintf(name, len, "%s", strrchr(info.path, '/') + 1);
}

/* Move a dead run by delta_ns of wall-clock time (and into boot, if not
 * NULL): its header's start_real_ns, its checksum and its name, which is
 * "<process>.<UTC start>.<pid>.lwr". name is updated. */
static void move_run(char *name, size_t len, int64_t delta_ns, const uint8_t *boot)
{
	struct lw_ring_header h;
	char from[600], to[600];
	const char *pid = strrchr(name, 'Z') + 1;
	struct tm tm;
	time_t secs;
	int fd;

	snprintf(from, sizeof(from), "%s/%s", g_dir, name);
	fd = open(from, O_RDWR | O_CLOEXEC);
	T_ASSERT(fd >= 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "read %s", from);
	h.start_real_ns += (uint64_t)delta_ns;
	if (boot)
		memcpy(h.boot_id, boot, sizeof(h.boot_id));
	h.header_crc = ring_header_crc(&h);
	T_ASSERT(pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "write %s", from);
	close(fd);
	secs = (time_t)(h.start_real_ns / 1000000000u);
	gmtime_r(&secs, &tm);
	snprintf(to, sizeof(to), "%s/%s.%04d%02d%02dT%02d%02d%02d.%03uZ%s", g_dir, PROCESS,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(h.start_real_ns / 1000000u % 1000u), pid);
	T_ASSERT(rename(from, to) == 0, "rename %s: %s", from, strerror(errno));
	snprintf(name, len, "%s", strrchr(to, '/') + 1);
}

static int exists(const char *name)
{
	char path[1400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	return stat(path, &st) == 0;
}

/* Open a run, read its advice, close it and remove its file. */
static struct lw_advice advice_now(void)
{
	struct lw_config cfg = config(64);
	struct lw_advice a;
	struct lw_info info;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_advice(lw, &a) == 0 && lw_info(lw, &info) == 0,
		 "advice run");
	T_ASSERT(lw_close(lw) == 0, "advice run: lw_close");
	T_ASSERT(unlink(info.path) == 0, "unlink %s", info.path);
	return a;
}

static void fresh_dir(const char *tag)
{
	if (g_dir) {
		t_rmdir(g_dir);
		free((void *)g_dir);
	}
	g_dir = strdup(t_tmpdir(tag));
}

static void advice_after_step_back(void)
{
	char clean[256], dead[3][256];
	struct lw_advice a;
	int i;

	fresh_dir("order-step");
	clean_run("m", 64, clean, sizeof(clean));
	for (i = 0; i < 3; i++) {
		sleep_ms(3);
		dying_run(dead[i], sizeof(dead[i]));
	}
	/* The clean run ran at 10:00; then the clock stepped back to 9:00. */
	move_run(clean, sizeof(clean), (int64_t)HOUR_NS, NULL);
	T_ASSERT(strcmp(clean, dead[2]) > 0, "the clean run's name '%s' should sort last", clean);
	a = advice_now();
	T_ASSERT(a.kind == LW_ADVICE_QUARANTINE && a.stage == LW_STAGE_LOAD && a.count == 3 &&
		 a.candidate == lw_digest("m"),
		 "three deaths in load after the clock stepped back: advice %s, stage %s, count %u",
		 lw_advice_name(a.kind), lw_stage_name(a.stage), a.count);
	T_ASSERT(a.stable_candidate == lw_digest("m"), "stable candidate 0x%" PRIx64,
		 a.stable_candidate);
}

static void rotation_after_steps_back(void)
{
	char name[4][256], last[256];
	int i;

	fresh_dir("order-rotate");
	for (i = 0; i < 4; i++) {
		sleep_ms(3);
		dying_run(name[i], sizeof(name[i]));
	}
	/* Each later run an hour further back on the wall clock. */
	for (i = 0; i < 4; i++)
		move_run(name[i], sizeof(name[i]), -(int64_t)i * (int64_t)HOUR_NS, NULL);
	clean_run("m", 2, last, sizeof(last));
	for (i = 0; i < 4; i++)
		T_ASSERT(exists(name[i]) == (i >= 2), "rotation %s run %d (%s), made %s",
			 exists(name[i]) ? "kept" : "removed", i, name[i],
			 i >= 2 ? "among the last two" : "before them");
	T_ASSERT(exists(last), "rotation removed the new run");
}

static void earlier_boot(void)
{
	static const uint8_t other_boot[16] = { 0xb0, 0x07 };
	char clean[256], dead[2][256];
	struct lw_advice a;
	int i;

	fresh_dir("order-boot");
	clean_run("m", 64, clean, sizeof(clean));
	for (i = 0; i < 2; i++) {
		sleep_ms(3);
		dying_run(dead[i], sizeof(dead[i]));
	}
	/* The clean run belongs to an earlier boot, whose clock was a day ahead. */
	move_run(clean, sizeof(clean), 24 * (int64_t)HOUR_NS, other_boot);
	a = advice_now();
	T_ASSERT(a.kind == LW_ADVICE_QUARANTINE && a.count == 2,
		 "two deaths in this boot after a clean run of an earlier boot: advice %s, count %u",
		 lw_advice_name(a.kind), a.count);
}

int main(void)
{
	advice_after_step_back();
	rotation_after_steps_back();
	earlier_boot();
	t_rmdir(g_dir);
	free((void *)g_dir);
	printf("run order: advice after a clock step back, rotation, earlier boot\n");
	return T_PASS;
}
