/*
 * lastwords-demo: a small stand-in for an on-device inference process.
 *
 * The child links the probe the way an inference process would: it loads a
 * model, prepares a GPU delegate (which fails and falls back to XNNPACK),
 * then serves requests while its memory grows. The parent kills it with
 * SIGKILL in the middle of an inference, as the low-memory killer would,
 * and then runs `lastwords dump` on the ring it left behind.
 *
 * usage: lastwords-demo [DIR]     (default: ./lastwords-demo)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lastwords/probe.h>

#define MIB (1024u * 1024u)

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Where grown memory stays reachable, so no allocation is optimised away. */
static char *volatile held[64];
static unsigned held_count;

/* Allocate and touch memory, as model weights and activations would. It is
 * never freed: the process keeps growing, as a leaking one does. */
static void grow(size_t bytes)
{
	char *p = malloc(bytes);
	size_t i;

	if (!p)
		return;
	for (i = 0; i < bytes; i += 4096)
		p[i] = (char)i;
	held[held_count++ % 64] = p;
}

static int run_child(const char *dir, int notify_fd, char *path, size_t path_len)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = "com.example.demo:inference",
		.slot_count = 4096,
		.runs_kept = 4,
		.app_version = 42,
		.memory_budget_kb = 144 * 1024,
		.sampler_period_ms = 20,
	};
	struct lw_advice adv;
	struct lw_info info;
	struct lw *lw;
	int i, rc;

	rc = lw_open(&cfg, &lw);
	if (rc < 0) {
		fprintf(stderr, "lastwords-demo: lw_open: %s\n", strerror(-rc));
		return 1;
	}
	lw_info(lw, &info);
	snprintf(path, path_len, "%s", info.path);
	if (write(notify_fd, path, strlen(path) + 1) < 0)
		return 1;
	lw_crash_install(lw);
	lw_candidate(lw, "demo-model-v2-int8");
	lw_advice(lw, &adv);
	lw_mark(lw, LW_MARK_RUNTIME_VERSION, 21600);

	lw_stage_begin(lw, LW_STAGE_LOAD);
	grow(24 * MIB);
	sleep_ms(30);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);

	lw_stage_begin(lw, LW_STAGE_RUNTIME_PREPARE);
	grow(8 * MIB);
	sleep_ms(10);
	lw_stage_end(lw, LW_STAGE_RUNTIME_PREPARE, LW_ERR_NONE);

	lw_sync(lw); /* a valuable moment: the delegate is the risky part */
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU);
	grow(16 * MIB);
	sleep_ms(20);
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_DELEGATE_ERROR);
	lw_mark(lw, LW_MARK_FALLBACK, LW_DELEGATE_XNNPACK);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	grow(8 * MIB);
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);

	lw_mark(lw, LW_MARK_SESSIONS, 1);
	for (i = 1;; i++) {
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, (uint64_t)(i < 4 ? i : 4));
		if (i % 3 == 0)
			lw_mark(lw, LW_MARK_SESSIONS, (uint64_t)(i / 3 + 1));
		lw_stage_begin(lw, LW_STAGE_INFERENCE);
		grow(12 * MIB); /* a leak per request: the memory slope the analyzer sees */
		lw_memory_sample(lw);
		if (i == 8) {
			/* Tell the parent we are mid-inference, then keep working. */
			if (write(notify_fd, "k", 1) < 0)
				return 1;
			for (;;)
				sleep_ms(1000);
		}
		sleep_ms(25);
		lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "lastwords-demo";
	char path[512] = "", c;
	int fds[2], status;
	size_t got = 0;
	pid_t pid;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: lastwords-demo [DIR]\n");
		return 2;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "lastwords-demo: cannot create '%s': %s\n", dir, strerror(errno));
		return 1;
	}
	if (pipe(fds) != 0) {
		perror("lastwords-demo: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("lastwords-demo: fork");
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		_exit(run_child(dir, fds[1], path, sizeof(path)));
	}
	close(fds[1]);
	/* The child sends its ring path (NUL-terminated), then 'k' mid-inference. */
	while (got < sizeof(path) - 1 && read(fds[0], &c, 1) == 1 && c != '\0')
		path[got++] = c;
	path[got] = '\0';
	if (read(fds[0], &c, 1) != 1 || c != 'k') {
		fprintf(stderr, "lastwords-demo: the child ended before its inference\n");
		waitpid(pid, &status, 0);
		return 1;
	}
	sleep_ms(40);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("lastwords-demo: killed pid %d with SIGKILL in the middle of an inference%s\n",
	       (int)pid, WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "" : " (?)");
	if (!path[0]) {
		fprintf(stderr, "lastwords-demo: the probe ran on anonymous memory; no ring file\n");
		return 1;
	}
#ifdef LASTWORDS_PATH
	printf("lastwords-demo: its last words, from lastwords dump %s\n\n", path);
	fflush(stdout);
	execl(LASTWORDS_PATH, "lastwords", "dump", path, (char *)NULL);
	fprintf(stderr, "lastwords-demo: cannot run '%s': %s\n", LASTWORDS_PATH, strerror(errno));
	return 1;
#else
	printf("lastwords-demo: its ring is %s; run: lastwords dump %s\n", path, path);
	return 0;
#endif
}
