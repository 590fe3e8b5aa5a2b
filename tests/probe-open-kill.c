/*
 * SIGKILL inside lw_open(): a ring file appears under its final name only
 * once its header is written. Forked children open the probe, each killed
 * after a random delay spread over the time an open takes (measured first),
 * so the kills land at every step: listing the previous runs, creating and
 * preallocating the file, touching its pages, writing the header, renaming.
 * After each kill every file with a run's name ("<process>.<time>.<pid>.lwr")
 * must pass the header rules R1..R7; anything else the open left is its
 * temporary (".<name>.tmp"). Each open removes the temporaries of the killed
 * ones before it, so at most one is ever there, and none after a last open
 * that completes. The delays come from a fixed seed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../src/ring.h"
#include <lastwords/probe.h>

#define PROCESS "com.openkill"
#define KILLS 300
#define SLOTS (1u << 15) /* a 2 MiB file: a wide window between create and header */

static const char *g_dir;

static struct lw_config config(void)
{
	struct lw_config cfg = {
		.dir = g_dir,
		.process_name = PROCESS,
		.slot_count = SLOTS,
		.runs_kept = 2,
	};

	return cfg;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The files in the directory: runs (each checked), temporaries, others. */
struct census {
	int runs, temps, other;
};

static struct census take_census(int iter)
{
	struct census c = { 0, 0, 0 };
	struct dirent *de;
	DIR *d = opendir(g_dir);

	T_ASSERT(d != NULL, "opendir %s: %s", g_dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		struct lw_ring_header h;
		struct ring_error err;
		char path[1200];
		struct stat st;
		int fd;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_name[0] == '.' && n > 4 && strcmp(de->d_name + n - 4, ".tmp") == 0) {
			c.temps++;
			continue;
		}
		if (strncmp(de->d_name, PROCESS ".", strlen(PROCESS) + 1) != 0 || n < 4 ||
		    strcmp(de->d_name + n - 4, ".lwr") != 0) {
			c.other++;
			continue;
		}
		c.runs++;
		snprintf(path, sizeof(path), "%s/%s", g_dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "kill %d: open %s: %s", iter, path,
			 strerror(errno));
		memset(&h, 0, sizeof(h));
		T_ASSERT(pread(fd, &h, sizeof(h), 0) >= 0, "read %s", path);
		close(fd);
		T_ASSERT(ring_header_check(&h, (size_t)st.st_size, &err) == RING_HEADER_OK,
			 "kill %d: '%s' is under a run's name without a valid header (%lld bytes): %s",
			 iter, de->d_name, (long long)st.st_size, err.reason);
	}
	closedir(d);
	return c;
}

/* How long one open takes here, at most, in microseconds. */
static uint64_t open_time_us(void)
{
	struct lw_config cfg = config();
	uint64_t worst = 0;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0 = now_us(), t;
		struct lw_info info;
		struct lw *lw;

		T_ASSERT(lw_open(&cfg, &lw) == 0 && lw_info(lw, &info) == 0, "lw_open");
		t = now_us() - t0;
		T_ASSERT(lw_close(lw) == 0, "lw_close");
		T_ASSERT(unlink(info.path) == 0, "unlink %s", info.path);
		if (t > worst)
			worst = t;
	}
	return worst;
}

int main(void)
{
	uint64_t rng = 0x6f70656e6b696c6cu; /* "openkill" */
	uint64_t window;
	int iter, with_temp = 0;
	struct lw_config cfg;
	struct census c;
	struct lw *lw;

	g_dir = strdup(t_tmpdir("open-kill"));
	window = open_time_us() * 3 / 2 + 200; /* the fork and the child's start too */
	for (iter = 0; iter < KILLS; iter++) {
		struct timespec delay;
		int fd, status;
		char go;
		pid_t pid;

		pid = t_fork_piped(&fd);
		if (pid == 0) {
			struct lw_config ccfg = config();
			struct lw *clw;

			if (write(fd, "g", 1) != 1)
				_exit(2);
			lw_open(&ccfg, &clw);
			for (;;)
				pause();
		}
		T_ASSERT(read(fd, &go, 1) == 1, "kill %d: the child did not start", iter);
		close(fd);
		rng = mix64(rng);
		delay.tv_sec = 0;
		delay.tv_nsec = (long)(rng % window) * 1000;
		while (nanosleep(&delay, &delay) != 0 && errno == EINTR)
			;
		T_ASSERT(kill(pid, SIGKILL) == 0, "kill: %s", strerror(errno));
		T_ASSERT(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
			 WTERMSIG(status) == SIGKILL, "kill %d: status 0x%x", iter, status);
		c = take_census(iter);
		T_ASSERT(c.other == 0, "kill %d: %d files that are neither runs nor temporaries",
			 iter, c.other);
		/* Each open removed the temporaries before it. */
		T_ASSERT(c.temps <= 1, "kill %d: %d temporaries left", iter, c.temps);
		with_temp += c.temps > 0;
	}
	/* One last open completes, and removes what the last kill left. */
	cfg = config();
	T_ASSERT(lw_open(&cfg, &lw) == 0, "last lw_open");
	T_ASSERT(lw_close(lw) == 0, "last lw_close");
	c = take_census(KILLS);
	T_ASSERT(c.temps == 0, "%d temporaries left after an open that completed", c.temps);
	T_ASSERT(with_temp > 0, "no kill of %d landed while an open had its temporary (window "
		 "%llu us): the test did not reach the window it is for", KILLS,
		 (unsigned long long)window);
	printf("open-kill: %d kills over %llu us, %d left a temporary (removed by the next "
	       "open), no run's name without a header\n", KILLS, (unsigned long long)window,
	       with_temp);
	t_rmdir(g_dir);
	free((void *)g_dir);
	return T_PASS;
}
