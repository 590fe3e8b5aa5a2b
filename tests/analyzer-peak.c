/*
 * The peak RSS of a run, as dump and verify (ring_file_walk) and the report
 * (run_load_ring, run_facts_get) read it: one rule for both. The records of
 * a ring written by the probe get chosen RSS samples and stages, and their
 * checksums again: the peak is the first record with the highest sample, a
 * sample of 0 is none, and both paths name the same record.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include <lastwords/probe.h>

#include "../analyzer/classify.h"
#include "../analyzer/runs/ring-file.h"
#include "../analyzer/runs/run.h"
#include "../src/crc32c.h"
#include "helpers.h"

#define SLOTS 64u
#define FILE_SIZE (LW_RING_HEADER_SIZE + SLOTS * 64u)

static unsigned char ring[FILE_SIZE];

/* A short clean run: open, candidate, load, two marks in inference, close. */
static void make_ring(const char *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = "peak.test", .slot_count = SLOTS };
	struct lw_info info;
	struct lw *lw;
	int fd;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open");
	lw_info(lw, &info);
	lw_candidate(lw, "model-a");
	lw_stage_begin(lw, LW_STAGE_LOAD);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_stage_begin(lw, LW_STAGE_INFERENCE);
	lw_mark(lw, LW_MARK_QUEUE_DEPTH, 1);
	lw_mark(lw, LW_MARK_QUEUE_DEPTH, 2);
	lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
	lw_close(lw);
	fd = open(info.path, O_RDONLY);
	T_ASSERT(fd >= 0 && read(fd, ring, sizeof(ring)) == (ssize_t)sizeof(ring), "read ring");
	close(fd);
	unlink(info.path);
}

/* Give record t (by ticket) the sample rss[t] and, where stage[t] is not
 * 0, that stage; then seal it again. Returns the number of records. */
static unsigned resample(unsigned char *buf, const uint32_t *rss, const uint8_t *stage,
			 unsigned n)
{
	unsigned i, records = 0;

	for (i = 0; i < SLOTS; i++) {
		struct lw_ring_slot *s =
			(struct lw_ring_slot *)(buf + LW_RING_HEADER_SIZE + (size_t)i * 64u);
		uint64_t t;

		if (s->seq == 0 || (s->seq & 1u))
			continue;
		t = s->seq / 2 - 1;
		T_ASSERT(t < n, "ticket %llu beyond the plan", (unsigned long long)t);
		s->rss_kb = rss[t];
		if (stage[t])
			s->stage = stage[t];
		s->crc = crc32c_slot(t, (unsigned char *)s + LW_SLOT_PAYLOAD_OFFSET);
		records++;
	}
	return records;
}

/* Both paths on buf: the walk's facts and the report's run facts. */
static void read_both(const char *dir, const unsigned char *buf, struct ring_facts *walked,
		      struct run_facts *facts, size_t *nevents)
{
	const char *path = t_fmt("%s/peak.lwr", dir);
	struct ring_error err;
	struct ring_file *rf;
	struct run r;
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0 && write(fd, buf, FILE_SIZE) == (ssize_t)FILE_SIZE, "write %s", path);
	close(fd);
	T_ASSERT(ring_file_open(path, &rf, &err) == 0, "ring_file_open: %s", err.reason);
	T_ASSERT(ring_file_walk(rf, walked, NULL, NULL) == 0, "ring_file_walk");
	ring_file_free(rf);
	T_ASSERT(run_load_ring(path, &r, &err) == 0, "run_load_ring: %s", err.reason);
	run_facts_get(&r, facts);
	*nevents = r.nevents;
	run_release(&r);
	unlink(path);
}

int main(void)
{
	/* By ticket: the open record, the candidate, load begin and end,
	 * inference begin, two marks, inference end, close. Two records
	 * share the highest sample, 300, in load and then in inference. */
	static const uint32_t rss[] = { 0, 100, 300, 0, 300, 200, 0, 150, 0 };
	static const uint8_t stage[] = { 0, 0, LW_STAGE_LOAD, 0, LW_STAGE_INFERENCE, 0, 0, 0, 0 };
	static const uint32_t none[9] = { 0 };
	unsigned n = sizeof(rss) / sizeof(rss[0]), records;
	unsigned char buf[FILE_SIZE];
	char *dir = t_tmpdir("peak");
	struct ring_facts walked;
	struct run_facts facts;
	size_t nevents;

	make_ring(dir);

	memcpy(buf, ring, sizeof(buf));
	records = resample(buf, rss, stage, n);
	T_ASSERT(records == n, "the probe wrote %u records, the plan has %u", records, n);
	read_both(dir, buf, &walked, &facts, &nevents);
	T_ASSERT(walked.scan.valid == n && nevents == n, "every record read by both paths");
	T_ASSERT(walked.peak_rss_kb == 300 && walked.peak.stage == LW_STAGE_LOAD,
		 "walk: peak %u kB in stage %u, expected the first of the tie (load)",
		 walked.peak_rss_kb, walked.peak.stage);
	T_ASSERT(facts.peak_kb == walked.peak_rss_kb && facts.peak_stage == LW_STAGE_LOAD,
		 "report: peak %u kB in stage %d, expected the walk's", facts.peak_kb,
		 (int)facts.peak_stage);
	T_ASSERT(facts.have_rss && facts.last_rss_kb == 150,
		 "report: last sample %u kB, expected 150 (the zeros after it are none)",
		 facts.last_rss_kb);

	/* No record with a sample: no peak on either path. */
	memcpy(buf, ring, sizeof(buf));
	resample(buf, none, stage, n);
	read_both(dir, buf, &walked, &facts, &nevents);
	T_ASSERT(walked.peak_rss_kb == 0 && !facts.have_rss && facts.peak_kb == 0 &&
			 facts.peak_stage == LW_STAGE_NONE,
		 "no samples: walk peak %u, report peak %u", walked.peak_rss_kb, facts.peak_kb);

	t_rmdir(dir);
	printf("peak: the first of two equal samples, zeros ignored, on the walk and the report\n");
	return T_PASS;
}
