/*
 * A ring file that a live writer writes while ring_file_open() reads it
 * (analyzer/runs/ring-file.c): a slot rewritten during the read is torn or never
 * written, never corrupt, and every valid record is one writer's whole
 * record. The reader copies the file with pread, which is not the
 * seq-checked copy of slot_check() (src/ring.c): a copy could mix two
 * records where the kernel copies a slot in pieces (arm64 moves 16 bytes at
 * a time), and the second read of a live ring's slots (mark_moved()) makes
 * such a slot torn. On x86, whose copy moves a 64-byte slot in one piece,
 * this test passes without that second read too: it guards the reader's
 * claim on every machine rather than shows the bug here.
 *
 * Two writer threads hammer a 16-slot ring in a shared mapping of the file,
 * holding its flock as the probe does, while the main thread opens and
 * walks the file over and over.
 */
#include <inttypes.h>
#include <sys/file.h>
#include <sys/mman.h>

#include "../analyzer/runs/ring-file.h"
#include "live-writers.h"

#define SLOTS 16u
#define FILE_SIZE (LW_RING_HEADER_SIZE + SLOTS * LW_RING_SLOT_SIZE)
#define OPENS 20000

static int check_record(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *p)
{
	uint64_t *mixed = p;

	(void)ticket;
	(void)index;
	*mixed += live_mixed(s);
	return 0;
}

int main(void)
{
	char *dir = strdup(t_tmpdir("ring-live-file")), path[512];
	uint64_t valid = 0, torn = 0, corrupt = 0, mixed = 0, live = 0;
	struct live_writers lw;
	unsigned char *map;
	int fd, k;

	snprintf(path, sizeof(path), "%s/live.lwr", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0 && ftruncate(fd, FILE_SIZE) == 0, "create %s", path);
	T_ASSERT(flock(fd, LOCK_EX | LOCK_NB) == 0, "flock");
	map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap: %s", strerror(errno));
	live_writers_start(&lw, (struct lw_ring_header *)map, SLOTS, "live-file");
	for (k = 0; k < OPENS; k++) {
		struct ring_error err;
		struct ring_file *rf;
		struct ring_facts f;

		T_ASSERT(ring_file_open(path, &rf, &err) == 0, "open: %s", err.reason);
		live += rf->live;
		ring_file_walk(rf, &f, check_record, &mixed);
		valid += f.scan.valid;
		torn += f.scan.torn;
		corrupt += f.scan.corrupt;
		ring_file_free(rf);
	}
	live_writers_stop(&lw);
	munmap(map, FILE_SIZE);
	close(fd);

	printf("%d opens while %" PRIu64 " + %" PRIu64 " records were written: %" PRIu64
	       " valid, %" PRIu64 " torn, %" PRIu64 " corrupt, %" PRIu64 " mixed\n",
	       OPENS, lw.arg[0].written, lw.arg[1].written, valid, torn, corrupt, mixed);
	T_ASSERT(live == OPENS, "the file read as live %" PRIu64 " times of %d", live, OPENS);
	T_ASSERT(valid > 0, "no valid record was ever read");
	T_ASSERT(mixed == 0, "%" PRIu64 " valid records mixed two writes", mixed);
	T_ASSERT(corrupt == 0, "%" PRIu64 " slots being rewritten were read as corrupt", corrupt);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
