/*
 * A ring file that shrinks while the reader reads it (someone truncates it,
 * a copy is cut short under the reader) is never a crash: the reader reads
 * the file into memory when it opens it, so a walk after a truncation still
 * reads what was opened, and a file that is shorter than its header says
 * when it is read is refused with a reason (exit 4 for the commands).
 *
 * Before the reader read the file (it mapped it whole), the walk after a
 * truncation died of SIGBUS: the first part of this test fails that way.
 * The second part truncates and restores the file from another process
 * while this one opens and walks it, over and over.
 */
#include <signal.h>
#include <sys/stat.h>

#include "../analyzer/runs/ring-file.h"
#include "../analyzer/runs/run.h"
#include "helpers.h"

static unsigned char *fixture;
static size_t fixture_len;

static void load_fixture(void)
{
	const char *root = getenv("LASTWORDS_SOURCE_ROOT");
	char path[512];
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "%s/fixtures/rings/killed-inference.lwr", root ? root : ".");
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0 && fstat(fd, &sb) == 0, "%s: %s", path, strerror(errno));
	fixture_len = (size_t)sb.st_size;
	fixture = malloc(fixture_len);
	T_ASSERT(fixture && read(fd, fixture, fixture_len) == (ssize_t)fixture_len, "read %s", path);
	close(fd);
}

static void write_fixture(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	T_ASSERT(fd >= 0 && write(fd, fixture, fixture_len) == (ssize_t)fixture_len, "write %s",
		 path);
	close(fd);
}

/* Open, truncate to size, then walk and load: the records are those opened. */
static void truncate_after_open(const char *path, off_t size, const struct ring_scan *want)
{
	struct ring_error err;
	struct ring_file *rf;
	struct ring_facts f;

	write_fixture(path);
	T_ASSERT(ring_file_open(path, &rf, &err) == 0, "open: %s", err.reason);
	T_ASSERT(truncate(path, size) == 0, "truncate: %s", strerror(errno));
	T_ASSERT(ring_file_walk(rf, &f, NULL, NULL) == 0, "walk after truncation to %lld",
		 (long long)size);
	T_ASSERT(f.scan.valid == want->valid && f.scan.head == want->head,
		 "truncated to %lld: %llu valid records, head %llu; opened with %llu, head %llu",
		 (long long)size, (unsigned long long)f.scan.valid, (unsigned long long)f.scan.head,
		 (unsigned long long)want->valid, (unsigned long long)want->head);
	T_ASSERT(ring_file_outcome(rf) == RING_OUTCOME_DIED, "outcome after truncation");
	ring_file_free(rf);

	/* Opened again, the shorter file is refused with a reason; cut to
	 * nothing, it is an empty run, never initialized (lastwords-ring(5)). */
	if (size == 0) {
		T_ASSERT(ring_file_open(path, &rf, &err) == 0 && rf->blank && !rf->blank_slots,
			 "a file truncated to 0 bytes is not an empty ring");
		ring_file_free(rf);
		return;
	}
	T_ASSERT(ring_file_open(path, &rf, &err) > 0 && err.reason[0],
		 "a file truncated to %lld bytes opens", (long long)size);
}

/* A child truncates and restores the file until it is killed. */
static pid_t start_truncator(const char *path)
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		off_t cuts[] = { 0, 17, 64, LW_RING_HEADER_SIZE, (off_t)fixture_len / 2 };
		unsigned k = 0;
		int fd = open(path, O_WRONLY);

		if (fd < 0)
			_exit(2);
		for (;;) {
			if (ftruncate(fd, cuts[k++ % 5]) != 0 ||
			    pwrite(fd, fixture, fixture_len, 0) != (ssize_t)fixture_len)
				_exit(3);
			usleep(k % 4 * 50); /* whole for a while, now and then */
		}
	}
	return pid;
}

int main(void)
{
	char *dir = strdup(t_tmpdir("ring-shrink")), path[512];
	struct ring_error err;
	struct ring_file *rf;
	struct ring_facts f;
	struct ring_scan want;
	unsigned opened = 0, refused = 0, shrank = 0, i;
	pid_t child;
	int status;

	load_fixture();
	snprintf(path, sizeof(path), "%s/shrinking.lwr", dir);
	write_fixture(path);
	T_ASSERT(ring_file_open(path, &rf, &err) == 0, "open: %s", err.reason);
	ring_file_walk(rf, &f, NULL, NULL);
	want = f.scan;
	ring_file_free(rf);
	T_ASSERT(want.valid > 0, "the fixture has records");

	truncate_after_open(path, 0, &want);
	truncate_after_open(path, 100, &want);
	truncate_after_open(path, LW_RING_HEADER_SIZE + 64, &want);
	truncate_after_open(path, (off_t)fixture_len - 1, &want);

	/* Opens and walks racing a truncator: each open either reads a whole
	 * ring or refuses the file with a reason, and no walk crashes. */
	write_fixture(path);
	child = start_truncator(path);
	for (i = 0; i < 3000; i++) {
		struct run r;
		int rc = ring_file_open(path, &rf, &err);

		if (rc == 0) {
			ring_file_walk(rf, &f, NULL, NULL);
			ring_file_free(rf);
			opened++;
		} else {
			T_ASSERT(err.reason[0], "a refusal without a reason (status %d)", rc);
			refused++;
			shrank += strstr(err.reason, "shrank") != NULL;
		}
		if (run_load_ring(path, &r, &err) == 0)
			run_release(&r);
	}
	kill(child, SIGKILL);
	T_ASSERT(waitpid(child, &status, 0) == child &&
		 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the truncator stopped on its own (status 0x%x)", status);
	printf("racing a truncator: %u opened and walked, %u refused (%u shrank while read)\n",
	       opened, refused, shrank);
	t_rmdir(dir);
	free(dir);
	free(fixture);
	return T_PASS;
}
