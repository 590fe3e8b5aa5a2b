/*
 * memory-deaths LASTWORDS: issue 22's proof with processes that die for
 * real. Three children open the real probe (budget 64 MiB, a sampler every
 * 20 ms) and are killed by SIGKILL, as lmkd kills:
 *   grower  anonymous memory grows past its budget in inference (8 MiB
 *           steps to 96 MiB): the app's own growth;
 *   mapper  its RSS is mostly a 96 MiB model file mapped with mmap and
 *           touched page by page in load, then an inference that grows
 *           nothing: the RSS passes the budget, what the process cannot
 *           give back does not;
 *   victim  small (8 MiB) and within its budget, told trim level 15
 *           (TRIM_MEMORY_RUNNING_CRITICAL) before the kill.
 * Then the system's evidence of each kill as the device writes it, from
 * their pids and times: an exit record (LOW_MEMORY) and lmkd's kill line,
 * whose reason names the system's state. `lastwords check` with an
 * expectation file written here must hold: the grower is low_memory,
 * confirmed, over its budget and its candidate held back; the mapper and
 * the victim are reclaims of a short system (rule memory-victim), their
 * candidates not held back. Then the report's JSON must say what each
 * one's memory was made of.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include <lastwords/probe.h>

#include "helpers.h"

#define MIB (1024u * 1024u)
#define BUDGET_KB (64u * 1024u)
#define MODEL_BYTES (96u * MIB)

static char model_path[600];

static struct lw *open_probe(const char *dir, const char *process, const char *candidate)
{
	struct lw_config cfg = {
		.dir = dir,
		.process_name = process,
		.slot_count = 1024,
		.app_version = 7,
		.memory_budget_kb = BUDGET_KB,
		.sampler_period_ms = 20,
	};
	struct lw *lw;

	if (lw_open(&cfg, &lw) < 0 || lw_candidate(lw, candidate) != 0)
		_exit(1);
	return lw;
}

/* The sampler's composition is up to a period late (20 ms here, longer
 * under the sanitizers): a stage's growth reaches the ring within that
 * stage only when the stage lasts a few periods longer, as load does in an
 * app. Without this, load's growth could be read as inference's. */
static void settle(void)
{
	sleep_ms(150);
}

/* The last figures reach the ring: the sampler's and an explicit sample. */
static void die(struct lw *lw)
{
	sleep_ms(150);
	lw_memory_sample(lw);
	kill(getpid(), SIGKILL);
}

static void run_grower(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.mem:grower", "grower-model");
	int i;

	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(8 * MIB);
	settle();
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	for (i = 0; i < 12; i++) {
		t_grow(8 * MIB);
		sleep_ms(40);
	}
	die(lw);
}

static void run_mapper(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.mem:mapper", "mapped-model");
	volatile const char *map;
	unsigned sum = 0;
	size_t size, i;

	lw_stage_begin(lw, LW_STAGE_LOAD);
	map = t_map_file(model_path, &size);
	for (i = 0; i < size; i += 4096)
		sum += (unsigned)map[i];
	settle();
	lw_stage_end(lw, LW_STAGE_LOAD, sum == 12345 ? LW_ERR_OTHER : LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	sleep_ms(400);
	die(lw);
}

static void run_victim(const char *dir)
{
	struct lw *lw = open_probe(dir, "com.example.mem:victim", "small-model");

	lw_stage_begin(lw, LW_STAGE_LOAD);
	t_grow(8 * MIB);
	settle();
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	sleep_ms(200);
	lw_memory_pressure(lw, LW_PRESSURE_TRIM, 15, 0, 0);
	sleep_ms(200);
	die(lw);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run fn in a child that must die by SIGKILL; its pid, *died_ms when. */
static pid_t run(void (*fn)(const char *), const char *dir, int64_t *died_ms)
{
	int status;
	pid_t pid = t_fork();

	if (pid == 0) {
		fn(dir);
		_exit(0);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	*died_ms = now_ms();
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child %d ended with status 0x%x",
		 (int)pid, status);
	return pid;
}

static void write_model(const char *dir)
{
	static char page[4096];
	size_t i;
	int fd;

	snprintf(model_path, sizeof(model_path), "%s/model.bin", dir);
	fd = open(model_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0, "create %s: %s", model_path, strerror(errno));
	for (i = 0; i < sizeof(page); i++)
		page[i] = (char)(i * 7);
	for (i = 0; i < MODEL_BYTES / sizeof(page); i++)
		T_ASSERT(write(fd, page, sizeof(page)) == (ssize_t)sizeof(page), "write: %s",
			 strerror(errno));
	close(fd);
}

struct death {
	const char *process, *candidate;
	pid_t pid;
	int64_t at_ms;
};

static void write_evidence(const char *bundle, const struct death *d, size_t n)
{
	char t[80];
	size_t i;
	FILE *f = t_create(bundle, "dumpsys-exit-info.txt");

	t_device_time(t, sizeof(t), d[n - 1].at_ms + 500, 1);
	fprintf(f, "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
		   "Last Timestamp of Persistence Into Persistent Storage: %s\n"
		   "  package: com.example.mem\n"
		   "    Historical Process Exit for uid=10190\n", t);
	for (i = n; i-- > 0;) {
		t_device_time(t, sizeof(t), d[i].at_ms + 30, 1);
		fprintf(f, "        ApplicationExitInfo #%zu:\n"
			   "          timestamp=%s pid=%d realUid=10190 packageUid=10190 definingUid=10190 user=0\n"
			   "          process=%s reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
			   "          importance=200 pss=60MB rss=70MB description=null state=empty trace=null\n",
			n - 1 - i, t, (int)d[i].pid, d[i].process);
	}
	fclose(f);
	f = t_create(bundle, "logcat.txt");
	fprintf(f, "--------- beginning of main\n");
	for (i = 0; i < n; i++) {
		t_device_time(t, sizeof(t), d[i].at_ms - 5, 0);
		fprintf(f, "%s   612   612 I lowmemorykiller: Kill '%s' (%d), uid 10190, oom_score_adj 200 "
			   "to free 65536kB rss, 4096kB swap; reason: min watermark is breached and swap "
			   "is low (8192kB < 314572kB)\n",
			t, d[i].process, (int)d[i].pid);
	}
	fclose(f);
}

/* The expectations, as a team would pin these three deaths. */
static void write_expect(const char *path, const struct death *d)
{
	FILE *f = fopen(path, "w");

	T_ASSERT(f != NULL, "create %s: %s", path, strerror(errno));
	fprintf(f, "{\n  \"about\": \"tests/memory-deaths.c: three real deaths\",\n"
		   "  \"run_count\": 3,\n  \"runs\": [\n"
		   "    {\"process\": \"%s\", \"pid\": %d, \"classification\": \"low_memory\",\n"
		   "     \"evidence_level\": \"confirmed\",\n"
		   "     \"rules_fired\": [\"aei-low-memory\", \"lmkd-kill\", \"ring-memory-pressure\"],\n"
		   "     \"rules_not_fired\": [\"memory-victim\"],\n"
		   "     \"actions_required\": [\"stop_new_inference\", \"isolate_candidate\"]},\n",
		d[0].process, (int)d[0].pid);
	fprintf(f, "    {\"process\": \"%s\", \"pid\": %d, \"classification\": \"system_reclaim\",\n"
		   "     \"rules_fired\": [\"lmkd-kill\", \"memory-victim\"],\n"
		   "     \"rules_not_fired\": [\"ring-memory-pressure\"],\n"
		   "     \"actions_forbidden\": [\"isolate_candidate\", \"stop_new_inference\"]},\n",
		d[1].process, (int)d[1].pid);
	fprintf(f, "    {\"process\": \"%s\", \"pid\": %d, \"classification\": \"system_reclaim\",\n"
		   "     \"rules_fired\": [\"lmkd-kill\", \"memory-victim\"],\n"
		   "     \"actions_required\": [\"verify_state_restore\"],\n"
		   "     \"actions_forbidden\": [\"isolate_candidate\", \"revert_to_stable\"]}\n"
		   "  ]\n}\n",
		d[2].process, (int)d[2].pid);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct death d[3] = {
		{ "com.example.mem:grower", "grower-model", 0, 0 },
		{ "com.example.mem:mapper", "mapped-model", 0, 0 },
		{ "com.example.mem:victim", "small-model", 0, 0 },
	};
	char bundle[600], rings[700], expect[700], out[700];
	char *dir;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: memory-deaths LASTWORDS\n");
		return 2;
	}
	dir = strdup(t_tmpdir("memory-deaths"));
	write_model(dir);
	snprintf(bundle, sizeof(bundle), "%s/bundle", dir);
	snprintf(rings, sizeof(rings), "%s/rings", bundle);
	T_ASSERT(mkdir(bundle, 0700) == 0 && mkdir(rings, 0700) == 0, "mkdir: %s", strerror(errno));
	d[0].pid = run(run_grower, rings, &d[0].at_ms);
	d[1].pid = run(run_mapper, rings, &d[1].at_ms);
	d[2].pid = run(run_victim, rings, &d[2].at_ms);
	write_evidence(bundle, d, 3);
	snprintf(expect, sizeof(expect), "%s/expect.json", dir);
	write_expect(expect, d);
	snprintf(out, sizeof(out), "%s/check.txt", dir);
	{
		char *args[] = { argv[1], "check", "--tz", "+00:00", expect, bundle, NULL };

		rc = t_run_child(args, out, NULL);
	}
	if (rc != 0) {
		char cmd[2200];

		snprintf(cmd, sizeof(cmd), "cat '%s'; '%s' report --tz +00:00 '%s'", out, argv[1], bundle);
		T_ASSERT(system(cmd) >= 0, "cat");
	}
	T_ASSERT(rc == 0, "lastwords check exits %d on the three deaths (output above)", rc);
	printf("memory-deaths: grower %d, mapper %d, victim %d: the verdicts hold\n", (int)d[0].pid,
	       (int)d[1].pid, (int)d[2].pid);
	t_rmdir(dir);
	free(dir);
	return 0;
}
