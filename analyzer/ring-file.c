/* Mapping and checking ring files pulled from a device. */
#include "ring-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int sys_fail(struct ring_error *err, int e)
{
	err->offset = 0;
	snprintf(err->reason, sizeof(err->reason), "%s", strerror(e));
	return -e;
}

static int format_fail(struct ring_error *err, enum ring_header_status st, const char *reason)
{
	err->offset = 0;
	snprintf(err->reason, sizeof(err->reason), "%s", reason);
	return (int)st;
}

int ring_file_open(const char *path, struct ring_file **out, struct ring_error *err)
{
	struct ring_file *rf;
	enum ring_header_status st;
	struct stat sb;
	void *map;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(err, errno);
	if (fstat(fd, &sb) != 0) {
		rc = sys_fail(err, errno);
		goto fail_close;
	}
	if (S_ISDIR(sb.st_mode)) {
		rc = sys_fail(err, EISDIR);
		goto fail_close;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = format_fail(err, RING_HEADER_FOREIGN, "not a regular file");
		goto fail_close;
	}
	if (sb.st_size == 0) {
		rc = format_fail(err, RING_HEADER_FOREIGN, "empty file");
		goto fail_close;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = sys_fail(err, errno);
		goto fail_close;
	}
	/* A header shorter than the struct is refused by R1 before any field
	 * beyond the magic is read. */
	st = ring_header_check(map, (size_t)sb.st_size, err);
	if (st != RING_HEADER_OK && st != RING_HEADER_FIELD) {
		rc = (int)st;
		goto fail_unmap;
	}
	rf = calloc(1, sizeof(*rf));
	if (!rf || !(rf->path = strdup(path))) {
		free(rf);
		rc = sys_fail(err, ENOMEM);
		goto fail_unmap;
	}
	if (st == RING_HEADER_FIELD) {
		rf->header_damaged = 1;
		rf->damage = *err;
	}
	rf->fd = fd;
	rf->map = map;
	rf->size = (size_t)sb.st_size;
	rf->hdr = map;
	rf->slots = (const struct lw_ring_slot *)((const unsigned char *)map + rf->hdr->header_size);
	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		rf->live = errno == EWOULDBLOCK;
	else
		flock(fd, LOCK_UN);
	*out = rf;
	return 0;

fail_unmap:
	munmap(map, (size_t)sb.st_size);
fail_close:
	close(fd);
	return rc;
}

void ring_file_free(struct ring_file *rf)
{
	if (!rf)
		return;
	munmap((void *)rf->map, rf->size);
	close(rf->fd);
	free(rf->path);
	free(rf);
}

enum ring_outcome ring_file_outcome(const struct ring_file *rf)
{
	if (rf->live)
		return RING_OUTCOME_LIVE;
	switch (rf->hdr->state) {
	case LW_STATE_CLEAN_EXIT:
		return RING_OUTCOME_CLEAN;
	case LW_STATE_CRASHED:
		return RING_OUTCOME_CRASHED;
	case LW_STATE_RUNNING:
		return RING_OUTCOME_DIED;
	default:
		return RING_OUTCOME_UNKNOWN;
	}
}

const char *ring_outcome_name(enum ring_outcome o)
{
	switch (o) {
	case RING_OUTCOME_LIVE:
		return "live";
	case RING_OUTCOME_CLEAN:
		return "clean";
	case RING_OUTCOME_CRASHED:
		return "crashed";
	case RING_OUTCOME_DIED:
		return "died";
	case RING_OUTCOME_UNKNOWN:
		break;
	}
	return "unknown";
}

void ring_facts_add(struct ring_facts *f, const struct lw_ring_slot *s)
{
	if (s->rss_kb > f->peak_rss_kb) {
		f->peak_rss_kb = s->rss_kb;
		f->peak = *s;
	}
	if (s->type == LW_EV_CRASH && !f->has_crash) {
		f->crash = *s;
		f->has_crash = 1;
	}
	f->last = *s;
}

struct walk {
	struct ring_facts *facts;
	ring_event_fn fn;
	void *arg;
};

static int walk_slot(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s, void *arg)
{
	struct walk *w = arg;

	ring_facts_add(w->facts, s);
	return w->fn ? w->fn(ticket, index, s, w->arg) : 0;
}

int ring_file_walk(const struct ring_file *rf, struct ring_facts *facts, ring_event_fn fn,
		   void *arg)
{
	struct walk w = { facts, fn, arg };

	memset(facts, 0, sizeof(*facts));
	return ring_scan(rf->hdr, rf->slots, &facts->scan, NULL, walk_slot, &w);
}
