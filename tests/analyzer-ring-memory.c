/*
 * analyzer-ring-memory LASTWORDS: a report keeps a ring's records in the
 * memory the ring was read into. `lastwords report` on a ring of 256k slots
 * (16 MiB), filled past a lap, peaks under the ring's size and 12 MiB, and
 * `inspect` gives every record once, in ticket order, across the lap.
 *
 * Before, the bundle read each ring whole to detect its kind, the ring
 * reader read it again, and the run copied every valid slot (72 bytes
 * each): about three times the ring's size. Under ASan (shadow memory, a
 * quarantine of freed blocks) the peak is printed, not checked.
 */
#include <lastwords/probe.h>

#include "helpers.h"

#define SLOTS (1u << 18)
#define EVENTS (SLOTS + SLOTS / 4 + 5)
#define RING_MIB (SLOTS * 64u >> 20)
#define OVER_MIB 12

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

int main(int argc, char **argv)
{
	struct lw_config cfg = { .process_name = "ring.memory:inference", .slot_count = SLOTS };
	char *dir, out[600], line[256];
	unsigned long long ticket, first = 0, last = 0, n = 0;
	struct lw_info info;
	struct lw *lw;
	long rss = 0;
	unsigned i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: analyzer-ring-memory LASTWORDS\n");
		return 2;
	}
	dir = strdup(t_tmpdir("ring-memory"));
	cfg.dir = dir;
	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open in %s", dir);
	lw_info(lw, &info);
	/* lw_open wrote the first record; EVENTS - 1 more, then close. */
	for (i = 1; i + 1 < EVENTS; i++)
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, i);
	lw_close(lw);

	snprintf(out, sizeof(out), "%s.report.json", dir);
	{
		char *args[] = { argv[1], "report", "--format", "json", dir, NULL };

		T_ASSERT(t_run_child(args, out, &rss) == 0, "report exits 0");
	}
	printf("report on a ring of %u slots (%u MiB): peak RSS %ld MiB\n", SLOTS, RING_MIB,
	       rss / 1024);
#ifdef SANITIZED
	printf("sanitized build: the bound (%u MiB) is not checked\n", RING_MIB + OVER_MIB);
#else
	T_ASSERT(rss / 1024 < RING_MIB + OVER_MIB, "peak RSS %ld MiB, over %u MiB", rss / 1024,
		 RING_MIB + OVER_MIB);
#endif

	/* Every record once, in ticket order: the last lap of the ring. */
	{
		char *args[] = { argv[1], "inspect", info.path, NULL };

		T_ASSERT(t_run_child(args, out, NULL) == 0, "inspect exits 0");
	}
	f = fopen(out, "r");
	T_ASSERT(f != NULL, "read %s", out);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "  ticket %llu:", &ticket) != 1)
			continue;
		T_ASSERT(n == 0 || ticket == last + 1, "ticket %llu after %llu", ticket, last);
		if (n++ == 0)
			first = ticket;
		last = ticket;
	}
	fclose(f);
	T_ASSERT(n == SLOTS && first == EVENTS - SLOTS && last == EVENTS - 1,
		 "inspect: %llu records, tickets %llu to %llu; want %u, %u to %u", n, first, last,
		 SLOTS, EVENTS - SLOTS, EVENTS - 1);
	printf("inspect: %llu records, tickets %llu to %llu, in order\n", n, first, last);
	unlink(out);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
