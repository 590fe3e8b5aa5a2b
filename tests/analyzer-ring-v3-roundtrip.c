/*
 * analyzer-ring-v3-roundtrip LASTWORDS: a binary ring with version 3's
 * records (schemas/ring-format.md 8.1) and the JSON lines `dump --json`
 * writes for it are the same run: dump --json names each member as
 * schemas/ring-events.schema.json says, and `inspect` reads the same
 * records, with the same words for each, from both forms.
 *
 * The real probe writes the graphics and pressure records
 * (lw_memory_graphics(), lw_memory_pressure(): trim, memory_info, psi) and
 * its own memory records; memory records with a composition of each source
 * (status, statm, and one a newer writer's) and a pressure record of a
 * source not readable are written into the same live ring with src/'s ring
 * writer, as the probe's sampler will.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <lastwords/probe.h>

#include "../src/ring.h"
#include "../src/ring_write.h"
#include "helpers.h"

/* A record of type with code and a, b, c, d into the live ring at w. */
static void put(const struct ring_writer *w, uint8_t type, uint8_t code, uint64_t a, uint64_t b,
		uint64_t c, uint32_t d, uint64_t t)
{
	struct lw_ring_slot s;

	memset(&s, 0, sizeof(s));
	s.type = type;
	s.code = code;
	s.stage = LW_STAGE_INFERENCE;
	s.rss_kb = 420000;
	s.a = a;
	s.b = b;
	s.c = c;
	s.d = d;
	s.t_mono_ns = t;
	T_ASSERT(ring_write(w, &s) == 0, "ring_write type %u", type);
}

/* The file at path, whole, NUL-terminated (free it). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	T_ASSERT(f != NULL, "open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	T_ASSERT(buf && fread(buf, 1, (size_t)n, f) == (size_t)n, "read %s", path);
	fclose(f);
	return buf;
}

/* The text after its first line (inspect's first line names the file and
 * its form). */
static const char *after_first_line(const char *text)
{
	const char *nl = strchr(text, '\n');

	return nl ? nl + 1 : text;
}

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct lw_config cfg = { .process_name = "ring.v3:inference", .slot_count = 64 };
	char *dir, json[600], ins1[600], ins2[600], *a, *b;
	struct ring_writer w;
	struct lw_info info;
	struct stat st;
	struct lw *lw;
	uint64_t t;
	void *map;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: analyzer-ring-v3-roundtrip LASTWORDS\n");
		return 2;
	}
	dir = strdup(t_tmpdir("ring-v3"));
	cfg.dir = dir;
	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open in %s", dir);
	lw_info(lw, &info);
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_INFERENCE) == 0, "stage_begin");
	T_ASSERT(lw_memory_graphics(lw, 65536) == 0, "lw_memory_graphics");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_TRIM, 15, 0, 0) == 0, "trim 15");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_MEMORY_INFO, 1, 150000, 216000) == 0, "memory_info");
	T_ASSERT(lw_memory_pressure(lw, LW_PRESSURE_PSI, 1234, 29, 123456) == 0, "psi");
	T_ASSERT(lw_memory_sample(lw) == 0, "lw_memory_sample");

	fd = open(info.path, O_RDWR);
	T_ASSERT(fd >= 0 && fstat(fd, &st) == 0, "open %s", info.path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	T_ASSERT(map != MAP_FAILED, "mmap %s", info.path);
	w.hdr = map;
	w.slots = (struct lw_ring_slot *)((unsigned char *)map + w.hdr->header_size);
	w.mask = w.hdr->slot_count - 1;
	t = now_mono_ns();
	put(&w, LW_EV_MEMORY, LW_MEMORY_SOURCE_STATUS, 600000, 190000 | (uint64_t)220000 << 32,
	    8000 | (uint64_t)4000 << 32, 0, t + 1);
	put(&w, LW_EV_MEMORY, LW_MEMORY_SOURCE_STATM, 600000, 190000 | (uint64_t)230000 << 32, 0, 0,
	    t + 2);
	put(&w, LW_EV_MEMORY, 9 /* a newer writer's source */, 600000, 7, 8, 0, t + 3);
	put(&w, LW_EV_GRAPHICS, LW_GRAPHICS_DMABUF, 131072, 3, lw_digest("mali"), 0, t + 4);
	put(&w, LW_EV_PRESSURE, LW_PRESSURE_PSI, 0, 0, 0, 13 /* EACCES */, t + 5);
	put(&w, LW_EV_PRESSURE, 7 /* a newer writer's source */, 1, 2, 3, 0, t + 6);
	munmap(map, (size_t)st.st_size);
	close(fd);
	lw_close(lw);

	snprintf(json, sizeof(json), "%s/ring.jsonl", dir);
	snprintf(ins1, sizeof(ins1), "%s/inspect-binary.txt", dir);
	snprintf(ins2, sizeof(ins2), "%s/inspect-json.txt", dir);
	{
		char *dump[] = { argv[1], "dump", "--json", info.path, NULL };
		char *i1[] = { argv[1], "inspect", info.path, NULL };
		char *i2[] = { argv[1], "inspect", json, NULL };

		T_ASSERT(t_run_child(dump, json, NULL) == 0, "dump --json exits 0");
		T_ASSERT(t_run_child(i1, ins1, NULL) == 0, "inspect of the ring exits 0");
		T_ASSERT(t_run_child(i2, ins2, NULL) == 0, "inspect of its lines exits 0");
	}
	a = slurp(json);
	T_ASSERT(strstr(a, "\"memory_source\":\"status\",\"anon_kb\":190000,\"file_kb\":220000,"
			   "\"shmem_kb\":8000,\"swap_kb\":4000"),
		 "dump --json: the status composition");
	T_ASSERT(strstr(a, "\"memory_source\":\"statm\",\"anon_kb\":190000,\"file_kb\":230000,"
			   "\"shmem_kb\":null,\"swap_kb\":null"),
		 "dump --json: the statm composition, shmem and swap not known");
	T_ASSERT(strstr(a, "\"memory_source\":9,\"b\":7,\"c\":8"), "dump --json: a newer source as it is");
	T_ASSERT(strstr(a, "\"graphics_source\":\"app\",\"graphics_kb\":65536"), "dump --json: app graphics");
	T_ASSERT(strstr(a, "\"graphics_source\":\"dmabuf\",\"graphics_kb\":131072,\"buffers\":3,"
			   "\"exporter_digest\":\""),
		 "dump --json: dmabuf graphics");
	T_ASSERT(strstr(a, "\"pressure_source\":\"trim\",\"trim_level\":15"), "dump --json: trim");
	T_ASSERT(strstr(a, "\"pressure_source\":\"memory_info\",\"low_memory\":true,\"avail_kb\":150000,"
			   "\"threshold_kb\":216000"),
		 "dump --json: memory_info");
	T_ASSERT(strstr(a, "\"pressure_source\":\"psi\",\"psi_some\":12.34,\"psi_full\":0.29,"
			   "\"psi_total_us\":123456"),
		 "dump --json: psi");
	T_ASSERT(strstr(a, "\"pressure_source\":\"psi\",\"not_readable\":true,\"errno\":13"),
		 "dump --json: psi not readable");
	T_ASSERT(strstr(a, "\"pressure_source\":7,\"a\":1,\"b\":2,\"c\":3"), "dump --json: a newer source");
	free(a);

	/* The same records, in the same words, from both forms. */
	a = slurp(ins1);
	b = slurp(ins2);
	T_ASSERT(strstr(a, "graphics 128.0 MiB in 3 dma-buf buffers") &&
			 strstr(a, "onTrimMemory 15 TRIM_MEMORY_RUNNING_CRITICAL") &&
			 strstr(a, "anon 185.5 MiB, file and shared 224.6 MiB (statm)") &&
			 strstr(a, "psi not readable (errno 13)"),
		 "inspect words the version 3 records:\n%s", a);
	T_ASSERT(strcmp(after_first_line(a), after_first_line(b)) == 0,
		 "inspect: the ring's records and its lines' differ:\n%s\n---\n%s", a, b);
	free(a);
	free(b);
	printf("a version 3 ring of %s: dump --json and back give the same records\n", info.path);
	t_rmdir(dir);
	free(dir);
	return T_PASS;
}
