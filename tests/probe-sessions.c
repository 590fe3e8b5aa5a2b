/*
 * Sessions (lw_session_open/close, lw_session_stage_begin/end): a forked
 * child, the app's :inference process, holds two model sessions with
 * different candidates and is killed with SIGKILL in the middle of a
 * switch: session 2 loading "model-b" while session 1 ("model-a") is still
 * open in inference. Its ring's session table names both sessions, their
 * candidates and open stages, and the records carry their session (d) and
 * its candidate (c); and the same holds when the child wrote enough marks
 * after the switch to lap the ring, so that no record of the opens is left.
 * Also: the calls' misuse is refused and counted, an unmatched end closes
 * no other session's stage, the process-wide calls are session 0's, and
 * the new marks' calls write their two values.
 *
 * And a clean run that leaves a session and a stage unpaired.
 *
 * usage: probe-sessions [KEEP_DIR]: with KEEP_DIR, the children's rings are
 * left there (switch.lwr, lapped.lwr, unpaired.lwr) for the reader's and
 * the report's tests (tests/report-sessions.py).
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

#include "../probe/internal.h"
#include "../src/ring.h"

#define PROC "com.example.app:inference"
#define SLOTS 16u

struct ring_copy {
	void *map;
	size_t size;
	const struct lw_ring_header *h;
	const struct lw_ring_session *ses;
	struct lw_ring_slot r[SLOTS];
	size_t n;
};

static int collect(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct ring_copy *rc = arg;

	(void)t;
	(void)index;
	T_ASSERT(rc->n < SLOTS, "too many records");
	rc->r[rc->n++] = *s;
	return 0;
}

/* The one ring in dir, checked (R1..R12) and copied. */
static void read_ring(const char *dir, struct ring_copy *rc, char *path, size_t pathlen)
{
	struct ring_damage damage;
	struct ring_error err;
	struct ring_scan sc;
	struct dirent *e;
	DIR *d = opendir(dir);

	memset(rc, 0, sizeof(*rc));
	T_ASSERT(d, "opendir %s: %s", dir, strerror(errno));
	path[0] = '\0';
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".lwr") && e->d_name[0] != '.')
			snprintf(path, pathlen, "%s/%s", dir, e->d_name);
	closedir(d);
	T_ASSERT(path[0], "no ring in %s", dir);
	rc->map = t_map_file(path, &rc->size);
	rc->h = rc->map;
	T_ASSERT(ring_header_check(rc->map, rc->size, &err) == RING_HEADER_OK,
		 "%s refused: %s", path, err.reason);
	ring_header_damage(rc->h, 0, &damage);
	T_ASSERT(damage.n == 0, "%s: its session table is damaged: %s", path,
		 damage.n ? damage.field[0].reason : "");
	rc->ses = ring_sessions_c(rc->h);
	ring_scan(rc->h, (const struct lw_ring_slot *)((const char *)rc->map + rc->h->header_size),
		  &sc, NULL, collect, rc);
	T_ASSERT(sc.corrupt == 0, "%s: corrupt slots", path);
}

static enum lw_stage session_open_stage(const struct lw_ring_session *e)
{
	return ring_open_stage_of(&e->last_stage, e->open_count);
}

/* The :inference process: two sessions, a switch under way, then (lap)
 * enough in_flight marks to push every record of the opens out of the
 * ring; it tells the parent through fd and waits to be killed. */
static void run_child(const char *dir, int lap, int fd)
{
	struct lw_config cfg = { .dir = dir, .process_name = PROC, .slot_count = SLOTS };
	struct lw *lw;
	uint32_t i;
	int bad = 0;

	bad |= lw_open(&cfg, &lw) != 0;
	/* The last id, opened and closed with an error: it stays in the table. */
	bad |= lw_session_open(lw, LW_SESSIONS_MAX - 1, "model-c") != 0;
	bad |= lw_session_close(lw, LW_SESSIONS_MAX - 1, LW_ERR_ALLOC_FAILED) != 0;
	bad |= lw_session_open(lw, 1, "model-a") != 0;
	bad |= lw_receipt(lw, "model-a", 0x5eed) != 0;
	bad |= lw_cache(lw, LW_CACHE_HIT, "model-a/gpu-graph") != 0;
	bad |= lw_session_stage_begin(lw, 1, LW_STAGE_LOAD) != 0;
	bad |= lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE) != 0;
	bad |= lw_payload(lw, LW_PAYLOAD_IMAGE, 150000) != 0;
	bad |= lw_mark(lw, LW_MARK_IN_FLIGHT, 1) != 0;
	bad |= lw_session_stage_begin(lw, 1, LW_STAGE_INFERENCE) != 0;
	/* The switch: model-b loads beside model-a, which is not unloaded. */
	bad |= lw_session_open(lw, 2, "model-b") != 0;
	bad |= lw_session_stage_begin(lw, 2, LW_STAGE_LOAD) != 0;
	for (i = 0; lap && i < 2 * SLOTS; i++)
		bad |= lw_mark(lw, LW_MARK_IN_FLIGHT, 2) != 0;
	if (bad || write(fd, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void killed_in_switch(int lap, const char *keep)
{
	char *dir = strdup(t_tmpdir(lap ? "sessions-lapped" : "sessions-switch"));
	char path[1024], dest[1024];
	struct ring_copy rc;
	const struct lw_ring_session *s1, *s2;
	int fd, status, seen_open = 0, seen_stage = 0;
	pid_t child;
	size_t i;
	char c;

	child = t_fork_piped(&fd);
	if (child == 0)
		run_child(dir, lap, fd);
	T_ASSERT(read(fd, &c, 1) == 1, "the child did not get to the switch");
	close(fd);
	T_ASSERT(kill(child, SIGKILL) == 0 && waitpid(child, &status, 0) == child &&
			 WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the child did not die of SIGKILL");
	read_ring(dir, &rc, path, sizeof(path));
	T_ASSERT(rc.h->version == LW_RING_VERSION && rc.h->session_slots == LW_SESSIONS_MAX &&
			 rc.h->state == LW_STATE_RUNNING,
		 "version %u, %u sessions, state %u", rc.h->version, rc.h->session_slots,
		 rc.h->state);
	s1 = &rc.ses[1];
	s2 = &rc.ses[2];
	T_ASSERT(rc.ses[0].state == LW_SESSION_OPEN && rc.ses[0].candidate == 0 &&
			 session_open_stage(&rc.ses[0]) == LW_STAGE_NONE,
		 "session 0: state %u", rc.ses[0].state);
	T_ASSERT(s1->state == LW_SESSION_OPEN && s1->candidate == lw_digest("model-a") &&
			 session_open_stage(s1) == LW_STAGE_INFERENCE && s1->opens == 1 &&
			 s1->open_count[LW_STAGE_LOAD] == 0,
		 "session 1: state %u candidate %016" PRIx64 " open stage %d", s1->state,
		 s1->candidate, session_open_stage(s1));
	T_ASSERT(s2->state == LW_SESSION_OPEN && s2->candidate == lw_digest("model-b") &&
			 session_open_stage(s2) == LW_STAGE_LOAD && s2->opened_mono_ns >
			 s1->opened_mono_ns,
		 "session 2: state %u candidate %016" PRIx64 " open stage %d", s2->state,
		 s2->candidate, session_open_stage(s2));
	for (i = 3; i < LW_SESSIONS_MAX - 1; i++)
		T_ASSERT(rc.ses[i].state == LW_SESSION_NEVER, "session %zu opened", i);
	T_ASSERT(rc.ses[i].state == LW_SESSION_CLOSED && rc.ses[i].result == LW_ERR_ALLOC_FAILED &&
			 rc.ses[i].candidate == lw_digest("model-c") && rc.ses[i].opens == 1,
		 "session %zu: state %u result %u", i, rc.ses[i].state, rc.ses[i].result);
	/* The process's counts are the sum; its last stage is session 2's. */
	T_ASSERT(rc.h->open_count[LW_STAGE_INFERENCE] == 1 && rc.h->open_count[LW_STAGE_LOAD] == 1 &&
			 ring_open_stage(rc.h) == LW_STAGE_LOAD &&
			 rc.h->candidate == lw_digest("model-b"),
		 "header open counts %u %u", rc.h->open_count[LW_STAGE_INFERENCE],
		 rc.h->open_count[LW_STAGE_LOAD]);
	for (i = 0; i < rc.n; i++) {
		const struct lw_ring_slot *s = &rc.r[i];

		if (s->type == LW_EV_SESSION_OPEN) {
			seen_open++;
			T_ASSERT((s->d == 1 && s->c == lw_digest("model-a")) ||
					 (s->d == 2 && s->c == lw_digest("model-b")) ||
					 (s->d == LW_SESSIONS_MAX - 1 && s->c == lw_digest("model-c")),
				 "session_open of session %u with %016" PRIx64, s->d, s->c);
		}
		if (s->type == LW_EV_STAGE_BEGIN) {
			seen_stage++;
			T_ASSERT(s->c == rc.ses[s->d].candidate && s->d >= 1 && s->d <= 2,
				 "stage_begin of session %u with %016" PRIx64, s->d, s->c);
		}
	}
	if (lap)
		T_ASSERT(seen_open == 0 && seen_stage == 0 && rc.h->head > 2 * SLOTS,
			 "the ring did not lap: %d opens, %d stages left", seen_open, seen_stage);
	else
		T_ASSERT(seen_open == 3 && seen_stage == 3, "%d session_open, %d stage_begin records",
			 seen_open, seen_stage);
	munmap(rc.map, rc.size);
	if (keep) {
		snprintf(dest, sizeof(dest), "%s/%s.lwr", keep, lap ? "lapped" : "switch");
		T_ASSERT(rename(path, dest) == 0, "rename to %s: %s", dest, strerror(errno));
	}
	t_rmdir(dir);
	free(dir);
}

/*
 * A clean run that leaves work unpaired: session 1 ("model-a") loads,
 * runs an inference and closes; session 2 ("model-b") opens and begins its
 * load, and neither is ended before lw_close(). The ring ends clean with
 * session 2 open and its load counted open (rule unpaired-stage).
 */
static void clean_unpaired(const char *keep)
{
	char *dir = strdup(t_tmpdir("sessions-unpaired"));
	char path[1024], dest[1024];
	struct ring_copy rc;
	int status;
	pid_t child = fork();

	T_ASSERT(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		struct lw_config cfg = { .dir = dir, .process_name = PROC, .slot_count = SLOTS };
		struct lw *lw;
		int bad = lw_open(&cfg, &lw) != 0;

		bad |= lw_session_open(lw, 1, "model-a") != 0;
		bad |= lw_session_stage_begin(lw, 1, LW_STAGE_LOAD) != 0;
		bad |= lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE) != 0;
		bad |= lw_session_stage_begin(lw, 1, LW_STAGE_INFERENCE) != 0;
		bad |= lw_session_stage_end(lw, 1, LW_STAGE_INFERENCE, LW_ERR_NONE) != 0;
		bad |= lw_session_close(lw, 1, LW_ERR_NONE) != 0;
		bad |= lw_session_open(lw, 2, "model-b") != 0;
		bad |= lw_session_stage_begin(lw, 2, LW_STAGE_LOAD) != 0;
		lw_close(lw);
		_exit(bad);
	}
	T_ASSERT(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
			 WEXITSTATUS(status) == 0,
		 "the clean child failed (status %d)", status);
	read_ring(dir, &rc, path, sizeof(path));
	T_ASSERT(rc.h->state == LW_STATE_CLEAN_EXIT && rc.ses[1].state == LW_SESSION_CLOSED &&
			 rc.ses[2].state == LW_SESSION_OPEN &&
			 rc.ses[2].open_count[LW_STAGE_LOAD] == 1 &&
			 rc.ses[1].open_count[LW_STAGE_INFERENCE] == 0,
		 "state %u, session 1 %u, session 2 %u with load %u", rc.h->state, rc.ses[1].state,
		 rc.ses[2].state, rc.ses[2].open_count[LW_STAGE_LOAD]);
	munmap(rc.map, rc.size);
	if (keep) {
		snprintf(dest, sizeof(dest), "%s/unpaired.lwr", keep);
		T_ASSERT(rename(path, dest) == 0, "rename to %s: %s", dest, strerror(errno));
	}
	t_rmdir(dir);
	free(dir);
}

static void misuse(void)
{
	char *dir = strdup(t_tmpdir("sessions-misuse"));
	struct lw_config cfg = { .dir = dir, .process_name = PROC, .slot_count = 64 };
	struct lw_ring_session *ses;
	uint64_t head;
	struct lw *lw;
	int status;
	pid_t child;

	T_ASSERT(lw_open(&cfg, &lw) == 0, "lw_open");
	ses = ring_sessions(lw->hdr);
	head = lw->hdr->head;
	T_ASSERT(lw_session_open(lw, 0, "m") == -EINVAL, "open of session 0");
	T_ASSERT(lw_session_open(lw, LW_SESSIONS_MAX, "m") == -EINVAL, "open out of range");
	T_ASSERT(lw_session_open(lw, UINT32_MAX, "m") == -EINVAL, "open of UINT32_MAX");
	T_ASSERT(lw_session_open(lw, 1, NULL) == -EINVAL, "NULL candidate");
	T_ASSERT(lw_session_open(lw, 1, "") == -EINVAL, "empty candidate");
	T_ASSERT(lw_session_close(lw, 0, LW_ERR_NONE) == -EINVAL, "close of session 0");
	T_ASSERT(lw_session_close(lw, 1, LW_ERR_NONE) == -ENOENT, "close of a session never opened");
	T_ASSERT(lw_session_stage_begin(lw, 1, LW_STAGE_LOAD) == -ENOENT, "stage of a closed session");
	T_ASSERT(lw_session_stage_begin(lw, LW_SESSIONS_MAX, LW_STAGE_LOAD) == -EINVAL,
		 "stage out of range");
	T_ASSERT(lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE) == -ENOENT,
		 "end in a closed session");
	T_ASSERT(lw->hdr->dropped == 10 && lw->hdr->head == head,
		 "dropped %" PRIu64 " after 10 refusals, %" PRIu64 " records written",
		 lw->hdr->dropped, lw->hdr->head - head);

	T_ASSERT(lw_session_open(lw, 1, "model-a") == 0, "open");
	T_ASSERT(lw_session_open(lw, 1, "model-b") == -EBUSY, "second open of an open session");
	T_ASSERT(ses[1].candidate == lw_digest("model-a"), "a refused open changed the candidate");
	T_ASSERT(lw_session_close(lw, 1, (enum lw_error)99) == -EINVAL, "close with a bad result");
	T_ASSERT(lw_session_stage_end(lw, 1, LW_STAGE_LOAD, (enum lw_error)99) == -EINVAL,
		 "end with a bad error");
	/* An unmatched end in session 1 closes neither session 0's stage nor
	 * the process's count of it. */
	T_ASSERT(lw_stage_begin(lw, LW_STAGE_LOAD) == 0, "session 0 begin");
	T_ASSERT(lw_session_stage_end(lw, 1, LW_STAGE_LOAD, LW_ERR_NONE) == 0, "unmatched end");
	T_ASSERT(ses[0].open_count[LW_STAGE_LOAD] == 1 && lw->hdr->open_count[LW_STAGE_LOAD] == 1 &&
			 ses[1].open_count[LW_STAGE_LOAD] == 0,
		 "an unmatched end in session 1 closed session 0's stage");
	T_ASSERT(lw_session_stage_end(lw, 0, LW_STAGE_LOAD, LW_ERR_NONE) == 0 &&
			 lw->hdr->open_count[LW_STAGE_LOAD] == 0,
		 "lw_session_stage_end(0) ends lw_stage_begin()'s stage");
	/* A close keeps the stages left open, and the candidate; a reopen
	 * counts. */
	T_ASSERT(lw_session_stage_begin(lw, 1, LW_STAGE_INFERENCE) == 0, "begin in session 1");
	T_ASSERT(lw_session_close(lw, 1, LW_ERR_TIMEOUT) == 0, "close");
	T_ASSERT(lw_session_close(lw, 1, LW_ERR_NONE) == -ENOENT, "second close");
	T_ASSERT(ses[1].state == LW_SESSION_CLOSED && ses[1].result == LW_ERR_TIMEOUT &&
			 ses[1].open_count[LW_STAGE_INFERENCE] == 1 &&
			 ses[1].candidate == lw_digest("model-a"),
		 "closed session: state %u result %u", ses[1].state, ses[1].result);
	T_ASSERT(lw_session_open(lw, 1, "model-c") == 0 && ses[1].opens == 2 && ses[1].result == 0 &&
			 ses[1].candidate == lw_digest("model-c") &&
			 lw->hdr->candidate == lw_digest("model-c"),
		 "reopen: opens %u", ses[1].opens);
	/* lw_candidate() is session 0's. */
	T_ASSERT(lw_candidate(lw, "base") == 0 && ses[0].candidate == lw_digest("base") &&
			 ses[1].candidate == lw_digest("model-c"),
		 "lw_candidate set another session's candidate");

	/* The marks of two values: their calls, and lw_mark() refuses them. */
	T_ASSERT(lw_mark(lw, LW_MARK_PAYLOAD, 1) == -EINVAL && lw_mark(lw, LW_MARK_CACHE, 1) == -EINVAL &&
			 lw_mark(lw, LW_MARK_RECEIPT, 1) == -EINVAL,
		 "lw_mark wrote a mark of two values");
	T_ASSERT(lw_payload(lw, (enum lw_payload_class)0, 1) == -EINVAL &&
			 lw_payload(lw, (enum lw_payload_class)7, 1) == -EINVAL,
		 "payload class out of the vocabulary");
	T_ASSERT(lw_cache(lw, (enum lw_cache_op)0, "k") == -EINVAL &&
			 lw_cache(lw, (enum lw_cache_op)5, "k") == -EINVAL &&
			 lw_cache(lw, LW_CACHE_HIT, NULL) == -EINVAL &&
			 lw_cache(lw, LW_CACHE_HIT, "") == -EINVAL,
		 "bad cache op or key");
	T_ASSERT(lw_receipt(lw, NULL, 1) == -EINVAL && lw_receipt(lw, "", 1) == -EINVAL &&
			 lw_receipt(lw, "model-a", 0) == -EINVAL,
		 "bad receipt");
	T_ASSERT(lw_mark(lw, LW_MARK_IN_FLIGHT, 3) == 0, "in_flight");
	T_ASSERT(lw_payload(lw, LW_PAYLOAD_IMAGE, 0) == 0 && lw_payload(lw, LW_PAYLOAD_IMAGE, 1) == 0 &&
			 lw_payload(lw, LW_PAYLOAD_TENSOR, 1024) == 0 &&
			 lw_payload(lw, LW_PAYLOAD_TEXT, UINT64_MAX) == 0,
		 "payload");
	T_ASSERT(lw_cache(lw, LW_CACHE_REBUILD, "model-a/gpu-graph") == 0, "cache");
	T_ASSERT(lw_receipt(lw, "model-a", 0x1234) == 0, "receipt");
	T_ASSERT(lw->hdr->dropped == 10 + 16, "dropped %" PRIu64, lw->hdr->dropped);
	child = t_fork();
	if (child == 0)
		_exit(lw_session_open(lw, 3, "m") == -ECHILD &&
			      lw_session_stage_begin(lw, 0, LW_STAGE_LOAD) == -ECHILD ? 0 : 1);
	T_ASSERT(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
			 WEXITSTATUS(status) == 0, "a forked child's session calls are not -ECHILD");
	T_ASSERT(lw_close(lw) == 0, "lw_close");
	t_rmdir(dir);
	free(dir);
}

/* The marks' values as written: read back from a ring of their own. */
static int last_marks(uint64_t t, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct lw_ring_slot *out = arg;

	(void)t;
	(void)index;
	if (s->type == LW_EV_MARK && s->code >= LW_MARK_PAYLOAD && s->code <= LW_MARK_RECEIPT)
		out[s->code - LW_MARK_PAYLOAD] = *s;
	return 0;
}

static void mark_values(void)
{
	struct lw_config cfg = { .process_name = PROC, .slot_count = 64 };
	struct lw_ring_slot m[3] = { { 0 } };
	struct ring_scan sc;
	struct lw *lw;

	T_ASSERT(lw_open(&cfg, &lw) == LW_OPEN_ANONYMOUS, "lw_open on memory");
	T_ASSERT(lw_payload(lw, LW_PAYLOAD_AUDIO, 1000) == 0 &&
			 lw_cache(lw, LW_CACHE_INVALIDATE, "key") == 0 &&
			 lw_receipt(lw, "model-a", 0xfeed) == 0,
		 "marks");
	ring_scan(lw->hdr, lw->w.slots, &sc, NULL, last_marks, m);
	T_ASSERT(m[0].a == LW_PAYLOAD_AUDIO && m[0].b == 10, "payload: class %" PRIu64 " bucket %" PRIu64,
		 m[0].a, m[0].b);
	T_ASSERT(m[1].a == LW_CACHE_INVALIDATE && m[1].b == lw_digest("key"), "cache");
	T_ASSERT(m[2].a == lw_digest("model-a") && m[2].b == 0xfeed, "receipt");
	T_ASSERT(lw_close(lw) == 0, "lw_close");
}

int main(int argc, char **argv)
{
	const char *keep = argc > 1 ? argv[1] : NULL;

	killed_in_switch(0, keep);
	killed_in_switch(1, keep);
	clean_unpaired(keep);
	misuse();
	mark_values();
	return T_PASS;
}
