/*
 * The reader on damaged rings: bit flips, garbage slots, truncation and
 * zeroed pages over thousands of mutated copies of a wrapped ring. The
 * reader must never crash (run under ASan+UBSan), never accept a slot whose
 * bytes differ from what was written, and count each damaged slot.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include <lastwords/probe.h>

#include "../analyzer/runs/ring-event.h"
#include "../analyzer/runs/ring-file.h"
#include "../src/crc32c.h"
#include "helpers.h"

#define SLOTS 256u
#define EVENTS 700u /* wraps the ring twice */
#define FILE_SIZE (LW_RING_HEADER_SIZE + SLOTS * 64u)

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_rand(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1du;
}

static unsigned char base[FILE_SIZE];
static char mutant_path[512];

static void write_file(const char *path, const unsigned char *buf, size_t len)
{
	int fd;

	/* A new file each time: ext4 flushes a file truncated and rewritten. */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	T_ASSERT(fd >= 0, "open %s", path);
	T_ASSERT(write(fd, buf, len) == (ssize_t)len, "write %s", path);
	close(fd);
}

/* Make the base ring with the real probe: a wrapped, cleanly closed run. */
static void make_base(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = "corruption.test", .slot_count = SLOTS };
	struct lw_info info;
	struct lw *lw;
	unsigned i;
	int fd;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open");
	lw_info(lw, &info);
	lw_candidate(lw, "model-a");
	for (i = 0; i < EVENTS; i++) {
		if (i % 7 == 0)
			lw_stage_begin(lw, LW_STAGE_INFERENCE);
		else if (i % 7 == 6)
			lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
		else
			lw_mark(lw, LW_MARK_QUEUE_DEPTH, i);
	}
	lw_close(lw);
	fd = open(info.path, O_RDONLY);
	T_ASSERT(fd >= 0 && read(fd, base, sizeof(base)) == (ssize_t)sizeof(base), "read base");
	close(fd);
}

struct check {
	const unsigned char *orig;
	cJSON *sink;
	uint64_t accepted;
	int mismatch;
};

/* Every accepted slot must be byte-identical to the original, and must
 * format both ways without trouble. */
static int check_slot(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct check *c = arg;
	const unsigned char *o = c->orig + LW_RING_HEADER_SIZE + (size_t)index * 64;
	const struct lw_ring_header *h = (const struct lw_ring_header *)c->orig;
	char label[64], detail[256];
	cJSON *j;

	if (memcmp(o, s, 64) != 0)
		c->mismatch = 1;
	ring_event_text(h, s, label, sizeof(label), detail, sizeof(detail));
	j = ring_event_json("x", ticket, h, s);
	T_ASSERT(j != NULL, "json of ticket %llu", (unsigned long long)ticket);
	cJSON_Delete(j);
	c->accepted++;
	return 0;
}

/* Write buf as a file, open it with the real reader and scan it. Returns
 * the ring_file_open status; *sc is filled when it is 0. */
static int read_mutant(const unsigned char *buf, size_t len, struct ring_scan *sc,
		       struct check *chk)
{
	struct ring_error err;
	struct ring_file *rf;
	int rc;

	write_file(mutant_path, buf, len);
	rc = ring_file_open(mutant_path, &rf, &err);
	if (rc != 0) {
		T_ASSERT(err.reason[0] != '\0', "a refusal has a reason");
		return rc;
	}
	chk->orig = base;
	chk->accepted = 0;
	chk->mismatch = 0;
	ring_scan(rf->hdr, rf->slots, sc, NULL, check_slot, chk);
	ring_file_free(rf);
	T_ASSERT(sc->valid + sc->torn + sc->stale + sc->corrupt + sc->empty == SLOTS,
		 "every slot is classified");
	return 0;
}

static void test_bit_flips(unsigned rounds)
{
	static unsigned char buf[FILE_SIZE];
	uint64_t flips_total = 0, corrupt_total = 0;
	unsigned r, k;

	for (r = 0; r < rounds; r++) {
		unsigned nflips = 1 + (unsigned)(next_rand() % 8), ntouched = 0;
		struct ring_scan sc;
		struct check chk;

		memcpy(buf, base, sizeof(buf));
		for (k = 0; k < nflips; k++) {
			size_t off = LW_RING_HEADER_SIZE + next_rand() % (SLOTS * 64u);

			buf[off] ^= (unsigned char)(1u << (next_rand() % 8));
		}
		for (k = 0; k < SLOTS; k++) {
			const unsigned char *a = buf + LW_RING_HEADER_SIZE + k * 64;

			if (memcmp(a, base + LW_RING_HEADER_SIZE + k * 64, 64) != 0)
				ntouched++;
		}
		T_ASSERT(read_mutant(buf, sizeof(buf), &sc, &chk) == 0, "slot damage keeps the header");
		T_ASSERT(!chk.mismatch, "round %u: an altered slot was accepted", r);
		T_ASSERT(sc.valid == SLOTS - ntouched, "round %u: %llu valid, %u slots touched", r,
			 (unsigned long long)sc.valid, ntouched);
		T_ASSERT(sc.corrupt + sc.torn == ntouched, "round %u: %llu corrupt + %llu torn != %u", r,
			 (unsigned long long)sc.corrupt, (unsigned long long)sc.torn, ntouched);
		T_ASSERT(sc.missing == ntouched, "round %u: %llu missing", r,
			 (unsigned long long)sc.missing);
		flips_total += nflips;
		corrupt_total += sc.corrupt + sc.torn;
	}
	printf("bit flips: %u files, %llu flips, %llu damaged slots counted, none accepted\n", rounds,
	       (unsigned long long)flips_total, (unsigned long long)corrupt_total);
}

static void test_garbage_slots(unsigned rounds)
{
	static unsigned char buf[FILE_SIZE];
	unsigned r, k;

	for (r = 0; r < rounds; r++) {
		unsigned idx = (unsigned)(next_rand() % SLOTS);
		unsigned char *slot = buf + LW_RING_HEADER_SIZE + idx * 64;
		struct ring_scan sc;
		struct check chk;

		memcpy(buf, base, sizeof(buf));
		for (k = 0; k < 64; k++)
			slot[k] = (unsigned char)next_rand();
		T_ASSERT(read_mutant(buf, sizeof(buf), &sc, &chk) == 0, "garbage keeps the header");
		T_ASSERT(!chk.mismatch, "garbage accepted");
		T_ASSERT(sc.valid == SLOTS - 1 && sc.corrupt + sc.torn == 1,
			 "garbage slot %u: %llu valid %llu corrupt", idx,
			 (unsigned long long)sc.valid, (unsigned long long)sc.corrupt);
	}
	printf("garbage slots: %u files, each counted once\n", rounds);
}

/* Records that pass every check but hold values outside the vocabulary
 * (a newer writer): the reader must name them as unknown, not crash. */
static void test_unknown_values(unsigned rounds)
{
	static unsigned char buf[FILE_SIZE];
	unsigned r, k;

	for (r = 0; r < rounds; r++) {
		unsigned idx = (unsigned)(next_rand() % SLOTS);
		struct lw_ring_slot *s = (struct lw_ring_slot *)(buf + LW_RING_HEADER_SIZE + idx * 64);
		uint64_t t;
		struct ring_scan sc;
		struct check chk;

		memcpy(buf, base, sizeof(buf));
		t = s->seq / 2 - 1;
		for (k = LW_SLOT_PAYLOAD_OFFSET; k < 60; k++)
			((unsigned char *)s)[k] = (unsigned char)next_rand();
		s->crc = crc32c_slot(t, (unsigned char *)s + LW_SLOT_PAYLOAD_OFFSET);
		memcpy(base + LW_RING_HEADER_SIZE + idx * 64, s, 64); /* it is "what was written" */
		T_ASSERT(read_mutant(buf, sizeof(buf), &sc, &chk) == 0, "unknown values keep the header");
		T_ASSERT(sc.valid == SLOTS && !chk.mismatch, "a well-formed record is accepted");
	}
	printf("unknown values: %u records with arbitrary type/stage/code formatted\n", rounds);
}

static void test_truncation(unsigned rounds)
{
	struct ring_scan sc;
	struct check chk;
	unsigned r;

	struct ring_error err;
	struct ring_file *rf;

	/* Cut to nothing: an empty file is an empty run, never initialized
	 * (lastwords-ring(5)), not a refusal. */
	write_file(mutant_path, base, 0);
	T_ASSERT(ring_file_open(mutant_path, &rf, &err) == 0 && rf->blank && rf->blank_slots == 0,
		 "an empty file is a blank ring with no slot");
	ring_file_free(rf);
	for (r = 1; r < rounds; r++) {
		size_t len = (size_t)(next_rand() % FILE_SIZE);
		int rc;

		if (len == 0)
			continue;
		rc = read_mutant(base, len, &sc, &chk);

		T_ASSERT(rc == RING_HEADER_TOO_SMALL || rc == RING_HEADER_FOREIGN ||
				 rc == RING_HEADER_TRUNCATED,
			 "truncated to %zu bytes: status %d", len, rc);
	}
	printf("truncation: %u lengths refused\n", rounds);
}

static void test_zeroed_pages(void)
{
	static unsigned char buf[FILE_SIZE];
	struct ring_scan sc;
	struct check chk;
	unsigned page, pages = FILE_SIZE / 4096;
	int rc;

	for (page = 0; page < pages; page++) {
		memcpy(buf, base, sizeof(buf));
		memset(buf + page * 4096, 0, 4096);
		rc = read_mutant(buf, sizeof(buf), &sc, &chk);
		if (page == 0) {
			T_ASSERT(rc == RING_HEADER_FOREIGN, "zeroed header page: status %d", rc);
			continue;
		}
		T_ASSERT(rc == 0, "zeroed slot page keeps the header");
		T_ASSERT(sc.valid == SLOTS - 64 && sc.empty == 64 && sc.missing == 64 && !chk.mismatch,
			 "zeroed page %u: %llu valid %llu empty %llu missing", page,
			 (unsigned long long)sc.valid, (unsigned long long)sc.empty,
			 (unsigned long long)sc.missing);
	}
	printf("zeroed pages: header page refused, %u slot pages counted as 64 missing each\n",
	       pages - 1);
}

static void test_header_flips(unsigned rounds)
{
	static unsigned char buf[FILE_SIZE];
	unsigned r, refused = 0;

	for (r = 0; r < rounds; r++) {
		size_t off = (size_t)(next_rand() % 512);
		struct ring_scan sc;
		struct check chk;
		int rc;

		memcpy(buf, base, sizeof(buf));
		buf[off] ^= (unsigned char)(1u << (next_rand() % 8));
		rc = read_mutant(buf, sizeof(buf), &sc, &chk);
		if (off < LW_RING_HEADER_CRC_SPAN + 4)
			T_ASSERT(rc != 0, "a flip at header byte %zu must be refused", off);
		if (rc != 0) {
			refused++;
			continue;
		}
		/* Run-time fields are not checksummed; they may change the
		 * outcome or the head, but never what is accepted. */
		T_ASSERT(sc.valid == SLOTS && !chk.mismatch, "header flip at %zu: %llu valid", off,
			 (unsigned long long)sc.valid);
	}
	printf("header flips: %u files, %u refused, the rest read all %u slots\n", rounds, refused,
	       SLOTS);
}

int main(void)
{
	char *dir = t_tmpdir("corruption");
	char dirpath[256];

	snprintf(dirpath, sizeof(dirpath), "%s", dir);
	snprintf(mutant_path, sizeof(mutant_path), "%s/mutant.lwr", dirpath);
	make_base(dirpath);
	{
		struct ring_scan sc;
		struct check chk;

		T_ASSERT(read_mutant(base, sizeof(base), &sc, &chk) == 0, "base ring reads");
		T_ASSERT(sc.valid == SLOTS && sc.head == EVENTS + 3 /* open, candidate, close */, "base: %llu valid, head %llu",
			 (unsigned long long)sc.valid, (unsigned long long)sc.head);
	}
	test_bit_flips(3000);
	test_garbage_slots(500);
	test_truncation(500);
	test_zeroed_pages();
	test_header_flips(2000);
	test_unknown_values(500);
	t_rmdir(dirpath);
	return T_PASS;
}
