/*
 * fixture-rings DIR: write the ring fixtures of fixtures/rings and
 * fixtures/bad into DIR, by running the real probe in child processes and
 * killing or crashing them (peer-main and peer-inference: a main process
 * that records the peer_died of its :inference process, which it killed). Not a test: the fixtures are committed, and
 * their expected outputs (fixtures/expected) pin ring format v1 and the
 * reader's output. Rerun with `meson compile fixture-rings` only on purpose,
 * then regenerate the expected outputs (tests/analyzer-golden.py --update).
 * Some scenarios hold evidence written for these rings' pids and times:
 * ring-binary-and-json (killed-inference), and peer-died-* (peer-main and
 * peer-inference, as their dump --json lines), which must be rewritten too.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lastwords/probe.h>

#include "../src/crc32c.h"
#include "../src/ring.h"
#include "helpers.h"

static volatile int *volatile bad_pointer = (volatile int *)(uintptr_t)0x10;


static struct lw *open_probe(const char *dir, const char *process, uint32_t slots)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = process,
		.slot_count = slots,
		.runs_kept = 8,
		.app_version = 42,
		.memory_budget_kb = 64 * 1024,
	};
	struct lw *lw;

	if (lw_open(&cfg, &lw) != 0) {
		fprintf(stderr, "fixture-rings: lw_open failed in %s\n", dir);
		_exit(1);
	}
	return lw;
}

static void prepare(struct lw *lw, const char *candidate)
{
	lw_candidate(lw, candidate);
	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(16u << 20);
	sleep_ms(5);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_DELEGATE_PREPARE);
	lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU);
	t_grow(8u << 20);
	sleep_ms(5);
}

/* Killed by SIGKILL in the middle of its fourth inference. */
static void child_killed(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference", 256);
	int i;

	prepare(lw, "demo-model-v2-int8");
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	lw_mark(lw, LW_MARK_SESSIONS, 1);
	for (i = 1; i <= 4; i++) {
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, (uint64_t)i);
		lw_stage_begin(lw, LW_STAGE_INFERENCE);
		t_grow(24u << 20);
		lw_memory_sample(lw);
		if (i == 4)
			kill(getpid(), SIGKILL);
		sleep_ms(5);
		lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	}
}

/* SIGSEGV inside delegate_prepare, with the crash handler installed. */
static void child_crashed(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference", 256);

	lw_crash_install(lw);
	prepare(lw, "demo-model-v3-fp16");
	*bad_pointer = 1;
}

/* A whole session that ends cleanly. */
static void child_clean(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo", 256);

	prepare(lw, "demo-model-v1");
	lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	sleep_ms(3);
	lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	lw_mark(lw, LW_MARK_RECOVERY, LW_ACTION_STOP_PREWARM);
	lw_stage_begin(lw, LW_STAGE_EXIT);
	lw_stage_end(lw, LW_STAGE_EXIT, LW_ERR_NONE);
	lw_close(lw);
	_exit(0);
}

/* More records than slots: the ring wraps, then the process is killed. */
static void child_wrapped(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo:inference", 16);
	int i;

	lw_candidate(lw, "demo-model-v2-int8");
	for (i = 0; i < 40; i++)
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, (uint64_t)i);
	kill(getpid(), SIGKILL);
}

/*
 * The app's main process binds its :inference process, which is killed by
 * SIGKILL in its third inference (here by the main process, on a device by
 * the low-memory killer); the main process learns of it when it reaps it,
 * records peer_died with its pid and name, and closes cleanly. Two rings:
 * the main process's, with the mark, and the inference process's.
 */
static void child_peer(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.demo", 256);
	int fds[2], status, i;
	pid_t peer;
	char c;

	if (pipe(fds) != 0)
		_exit(1);
	peer = fork();
	if (peer == 0) {
		/* The probe it inherited is released first: on Android the
		 * :inference process comes from the zygote, with none. */
		lw_close(lw);
		lw = open_probe(dir, "com.example.demo:inference", 256);
		prepare(lw, "demo-model-v2-int8");
		lw_stage_end(lw, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE);
		for (i = 1;; i++) {
			lw_stage_begin(lw, LW_STAGE_INFERENCE);
			t_grow(24u << 20);
			lw_memory_sample(lw);
			if (i == 3 && write(fds[1], "x", 1) == 1)
				for (;;)
					pause();
			sleep_ms(5);
			lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
		}
	}
	if (read(fds[0], &c, 1) != 1 || kill(peer, SIGKILL) != 0 || waitpid(peer, &status, 0) != peer)
		_exit(1);
	lw_peer_died(lw, (int32_t)peer, "com.example.demo:inference");
	sleep_ms(5);
	lw_close(lw);
	_exit(0);
}

/* Move the one ring of dir whose name matches glob to out. */
static void move(const char *dir, const char *glob, const char *out)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mv '%s'/%s.lwr '%s'", dir, glob, out);
	if (system(cmd) != 0) {
		fprintf(stderr, "fixture-rings: no ring for %s\n", out);
		exit(1);
	}
}

/* Run fn in a child, in dir emptied of rings. */
static void run_child(void (*fn)(const char *), const char *dir)
{
	char cmd[1024];
	int status;
	pid_t pid;

	if (system("true") != 0) /* make sure a shell is there */
		exit(1);
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/*.lwr", dir);
	if (system(cmd) != 0)
		exit(1);
	pid = fork();
	if (pid == 0) {
		fn(dir);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

/* Run fn in a child; move the ring it left in dir to out. */
static void run(void (*fn)(const char *), const char *dir, const char *out)
{
	run_child(fn, dir);
	move(dir, "*", out);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		exit(1);
	buf = malloc((size_t)n);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "fixture-rings: cannot write %s\n", path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/lw-fixtures-XXXXXX", path[1024], out[1024];
	struct lw_ring_header *h;
	unsigned char *buf;
	size_t len;
	const char *dest;

	if (argc != 2) {
		fprintf(stderr, "usage: fixture-rings DIR\n");
		return 2;
	}
	dest = argv[1];
	if (!mkdtemp(tmp))
		return 1;
	crc32c_use_hw(0);

	snprintf(out, sizeof(out), "%s/rings/killed-inference.lwr", dest);
	run(child_killed, tmp, out);
	snprintf(out, sizeof(out), "%s/rings/crashed-delegate.lwr", dest);
	run(child_crashed, tmp, out);
	snprintf(out, sizeof(out), "%s/rings/clean-exit.lwr", dest);
	run(child_clean, tmp, out);
	snprintf(out, sizeof(out), "%s/rings/wrapped.lwr", dest);
	run(child_wrapped, tmp, out);
	run_child(child_peer, tmp);
	snprintf(out, sizeof(out), "%s/rings/peer-inference.lwr", dest);
	move(tmp, "com.example.demo:inference.*", out);
	snprintf(out, sizeof(out), "%s/rings/peer-main.lwr", dest);
	move(tmp, "com.example.demo.*", out);

	/* corrupt-slots: the clean run with three slots damaged and one torn. */
	snprintf(path, sizeof(path), "%s/rings/clean-exit.lwr", dest);
	buf = slurp(path, &len);
	buf[LW_RING_HEADER_SIZE + 2 * 64 + 20] ^= 0x04;  /* payload bit: R11 */
	buf[LW_RING_HEADER_SIZE + 5 * 64] ^= 0x02;       /* seq: ticket off its slot, R10 */
	buf[LW_RING_HEADER_SIZE + 7 * 64 + 60] ^= 0xff;  /* crc byte: R11 */
	buf[LW_RING_HEADER_SIZE + 9 * 64] -= 1;          /* seq 2t+2 -> 2t+1: torn, R9 */
	snprintf(out, sizeof(out), "%s/rings/corrupt-slots.lwr", dest);
	spit(out, buf, len);

	/* bad/truncated: the killed run cut inside its slots. */
	free(buf);
	snprintf(path, sizeof(path), "%s/rings/killed-inference.lwr", dest);
	buf = slurp(path, &len);
	snprintf(out, sizeof(out), "%s/bad/truncated.lwr", dest);
	spit(out, buf, 5000);

	/* damaged-state: the killed run with an impossible state field (R7):
	 * readable, but verify reports the damage. */
	h = (struct lw_ring_header *)buf;
	h->state = 9;
	snprintf(out, sizeof(out), "%s/rings/damaged-state.lwr", dest);
	spit(out, buf, len);
	h->state = LW_STATE_RUNNING;

	/* bad/future-version: a reader of version 4 or later is needed. */
	h->version = 4;
	h->min_version = 4;
	h->header_crc = ring_header_crc(h);
	snprintf(out, sizeof(out), "%s/bad/future-version.lwr", dest);
	spit(out, buf, len);

	/* bad/header-checksum: one byte of the process name changed. */
	h->version = 1;
	h->min_version = 1;
	h->header_crc = ring_header_crc(h);
	h->process[4] ^= 0x20;
	snprintf(out, sizeof(out), "%s/bad/header-checksum.lwr", dest);
	spit(out, buf, len);

	/* bad/foreign: not a ring at all. */
	snprintf(out, sizeof(out), "%s/bad/foreign.lwr", dest);
	spit(out, "this is a text file, not a ring\n", 32);
	snprintf(out, sizeof(out), "%s/bad/empty.lwr", dest);
	spit(out, "", 0);
	free(buf);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	return system(path) == 0 ? 0 : 1;
}
