/*
 * Rotation of previous runs: with runs_kept = 3, seven runs of one process
 * leave four files (the three newest previous runs and the last one), and
 * nothing else in the directory is touched: another process's runs whose
 * name extends this one ("com.x:inference", "com.x.y"), unrelated files,
 * and an old run that a live writer still holds (flock).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "helpers.h"

#include <lastwords/probe.h>

#define RUNS 7
#define KEPT 3u

static void touch(const char *dir, const char *name)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0, "create %s: %s", path, strerror(errno));
	T_ASSERT(write(fd, "x", 1) == 1, "write %s", path);
	close(fd);
}

static int exists(const char *dir, const char *name)
{
	char path[600];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		T_FAILF("path too long: %s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* Files in dir whose name starts with prefix. */
static int count_prefix(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	T_ASSERT(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/* Open and close one run of com.x; its file name goes to name[i]. */
static void one_run(const char *dir, char name[][512], int i)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.x",
		.slot_count = 16,
		.runs_kept = KEPT,
	};
	struct lw_info info;
	struct lw *lw;
	int rc;

	rc = lw_open(&cfg, &lw);
	T_ASSERT(rc == 0, "run %d: lw_open %d", i, rc);
	T_ASSERT(lw_info(lw, &info) == 0 && info.backing == LW_BACKING_FILE, "run %d: lw_info", i);
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "stage_begin");
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	snprintf(name[i], 512, "%s", strrchr(info.path, '/') + 1);
	T_ASSERT(i == 0 || strcmp(name[i - 1], name[i]) < 0,
		 "run %d: name '%s' does not sort after '%s'", i, name[i], name[i - 1]);
	sleep_ms(3); /* the names carry milliseconds */
}

static const char *const others[] = {
	"com.x:inference.20000101T000000.000Z.1.lwr", /* another process of the app */
	"com.x:inference.20000101T000000.001Z.1.lwr",
	"com.x.y.20000101T000000.000Z.1.lwr",         /* a process named com.x.y */
	"com.x.notes.txt",                            /* not a run's name */
	"com.x.20000101T000000.000Z.lwr",             /* no pid: not a run's name */
	"unrelated.bin",
};

static void plain(void)
{
	char *dir = strdup(t_tmpdir("rotation"));
	char name[RUNS][512];
	size_t k;
	int i;

	for (k = 0; k < sizeof(others) / sizeof(others[0]); k++)
		touch(dir, others[k]);
	for (i = 0; i < RUNS; i++) {
		int want = i + 1 < (int)KEPT + 1 ? i + 1 : (int)KEPT + 1;

		one_run(dir, name, i);
		/* "com.x.2..." also matches the pid-less decoy: one more. */
		T_ASSERT(count_prefix(dir, "com.x.2") == want + 1, "after run %d: %d com.x runs",
			 i, count_prefix(dir, "com.x.2") - 1);
	}
	for (i = 0; i < RUNS; i++)
		T_ASSERT(exists(dir, name[i]) == (i >= RUNS - (int)KEPT - 1),
			 "run %d (%s) %s", i, name[i], exists(dir, name[i]) ? "kept" : "removed");
	for (k = 0; k < sizeof(others) / sizeof(others[0]); k++)
		T_ASSERT(exists(dir, others[k]), "rotation removed '%s'", others[k]);
	T_ASSERT(count_prefix(dir, "") == (int)KEPT + 1 + (int)(sizeof(others) / sizeof(others[0])),
		 "%d files in the directory", count_prefix(dir, ""));
	t_rmdir(dir);
	free(dir);
}

/* An old run still locked by a live writer survives rotation; an unlocked
 * one of the same age does not. */
static void live(void)
{
	static const char *held = "com.x.20000101T000000.000Z.11.lwr";
	static const char *dead = "com.x.20000101T000000.001Z.12.lwr";
	char *dir = strdup(t_tmpdir("rotation-live"));
	char name[RUNS][512], path[600];
	int i, fd;

	touch(dir, held);
	touch(dir, dead);
	snprintf(path, sizeof(path), "%s/%s", dir, held);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "lock %s", held);
	for (i = 0; i < RUNS; i++)
		one_run(dir, name, i);
	T_ASSERT(exists(dir, held), "rotation removed a run that a writer holds");
	T_ASSERT(!exists(dir, dead), "rotation kept an old unlocked run");
	for (i = 0; i < RUNS; i++)
		T_ASSERT(exists(dir, name[i]) == (i >= RUNS - (int)KEPT - 1),
			 "run %d (%s) %s", i, name[i], exists(dir, name[i]) ? "kept" : "removed");
	close(fd);
	t_rmdir(dir);
	free(dir);
}

int main(void)
{
	plain();
	live();
	printf("rotation: %d runs, %u kept + the last; other processes' and unrelated files "
	       "untouched; a locked run survives\n", RUNS, KEPT);
	return T_PASS;
}
