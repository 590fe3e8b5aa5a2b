/*
 * abi-story: one fixed story of a run, written through the probe, for
 * tests/abi-story.py to compare the ring a 32-bit build writes with the one
 * the 64-bit build writes: the candidate, two model sessions, stages that
 * end well and one that fails (delegate_error, then a fallback), marks of
 * every kind, memory (a statm and composition sample, the app's graphics
 * figure and a pressure record), a payload, a cache rebuild and a receipt.
 * Then the run ends as MODE says:
 *   clean  lw_close()
 *   segv   a real SIGSEGV in session 1's inference, with the crash handler
 *   kill   session 1's inference open, then "ready" on stdout and lw_mark()
 *          calls until the test SIGKILLs the process mid-write
 * Every value but the clocks, thread ids and memory readings is fixed, so
 * two ABIs' rings must hold the same records.
 *
 * usage: abi-story DIR MODE
 * Exit status: 0 after a clean close; 2 on bad usage or a refused call.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lastwords/probe.h>

#define PROCESS "com.example.abi:inference"

/* The address the segv story writes to: unmapped, and read at run time so
 * that the compiler cannot see the fault. */
static volatile uintptr_t g_bad_addr = 16;

/* A probe call that must succeed. */
#define MUST(call)                                                            \
	do {                                                                  \
		int rc_ = (call);                                             \
		if (rc_ != 0) {                                               \
			fprintf(stderr, "abi-story: %s: %d\n", #call, rc_);  \
			exit(2);                                              \
		}                                                             \
	} while (0)

int main(int argc, char **argv)
{
	struct lw_config cfg = { 0 };
	struct lw *lw;
	uint64_t i;
	int rc;

	if (argc != 3 || (strcmp(argv[2], "clean") && strcmp(argv[2], "segv") &&
			  strcmp(argv[2], "kill"))) {
		fprintf(stderr, "usage: abi-story DIR clean|segv|kill\n");
		return 2;
	}
	cfg.dir = argv[1];
	cfg.process_name = PROCESS;
	cfg.slot_count = 1024;
	cfg.app_version = 312;
	cfg.memory_budget_kb = 96 * 1024;
	rc = lw_open(&cfg, &lw);
	if (rc != 0) {
		fprintf(stderr, "abi-story: lw_open: %d\n", rc);
		return 2;
	}
	if (!strcmp(argv[2], "segv"))
		MUST(lw_crash_install(lw));

	MUST(lw_mark(lw, LW_MARK_SCENARIO, LW_SCENARIO_CONCURRENT));
	MUST(lw_mark(lw, LW_MARK_RUNTIME_VERSION, UINT64_C(0x0002001000000003)));
	MUST(lw_candidate(lw, "model-abi-v1"));
	MUST(lw_session_open(lw, 1, "model-abi-large"));
	MUST(lw_session_stage_begin(lw, 1, LW_STAGE_LOAD));
	MUST(lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE));
	MUST(lw_mark(lw, LW_MARK_DELEGATE, LW_DELEGATE_GPU));
	MUST(lw_session_stage_begin(lw, 1, LW_STAGE_DELEGATE_PREPARE));
	MUST(lw_memory_graphics(lw, UINT64_C(150) * 1024));
	MUST(lw_session_stage_end(lw, 1, LW_STAGE_DELEGATE_PREPARE, LW_ERR_DELEGATE_ERROR));
	MUST(lw_mark(lw, LW_MARK_FALLBACK, LW_DELEGATE_XNNPACK));
	MUST(lw_session_stage_begin(lw, 1, LW_STAGE_DELEGATE_PREPARE));
	MUST(lw_session_stage_end(lw, 1, LW_STAGE_DELEGATE_PREPARE, LW_ERR_NONE));
	MUST(lw_session_open(lw, 2, "model-abi-small"));
	MUST(lw_session_stage_begin(lw, 2, LW_STAGE_LOAD));
	MUST(lw_session_stage_end(lw, 2, LW_STAGE_LOAD, LW_ERR_NONE));
	MUST(lw_mark(lw, LW_MARK_SESSIONS, 2));
	MUST(lw_mark(lw, LW_MARK_BUDGET, 96 * 1024));
	MUST(lw_memory_sample(lw));
	MUST(lw_memory_pressure(lw, LW_PRESSURE_TRIM, 15, 0, 0));
	MUST(lw_memory_pressure(lw, LW_PRESSURE_MEMORY_INFO, 1, UINT64_C(812345),
				UINT64_C(4000000000)));
	MUST(lw_payload(lw, LW_PAYLOAD_IMAGE, UINT64_C(3) << 20));
	MUST(lw_cache(lw, LW_CACHE_REBUILD, "kv-cache-abi"));
	MUST(lw_session_stage_begin(lw, 1, LW_STAGE_CACHE));
	MUST(lw_session_stage_end(lw, 1, LW_STAGE_CACHE, LW_ERR_NONE));
	MUST(lw_receipt(lw, "model-abi-large", UINT64_C(0xfedcba9876543210)));
	for (i = 0; i < 3; i++) {
		MUST(lw_mark(lw, LW_MARK_QUEUE_DEPTH, 3 - i));
		MUST(lw_session_stage_begin(lw, 1, LW_STAGE_INFERENCE));
		MUST(lw_mark(lw, LW_MARK_IN_FLIGHT, 1));
		MUST(lw_session_stage_end(lw, 1, LW_STAGE_INFERENCE, LW_ERR_NONE));
	}
	MUST(lw_peer_died(lw, 4242, "com.example.abi:helper"));
	MUST(lw_session_stage_begin(lw, 2, LW_STAGE_INFERENCE));
	MUST(lw_session_stage_end(lw, 2, LW_STAGE_INFERENCE, LW_ERR_TIMEOUT));
	MUST(lw_session_close(lw, 2, LW_ERR_TIMEOUT));

	if (!strcmp(argv[2], "clean"))
		return lw_close(lw) == 0 ? 0 : 2;
	MUST(lw_session_stage_begin(lw, 1, LW_STAGE_INFERENCE));
	if (!strcmp(argv[2], "segv")) {
		*(volatile int *)g_bad_addr = 1;
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (i = 0;; i++)
		lw_mark(lw, LW_MARK_QUEUE_DEPTH, i & 0xffff);
}
