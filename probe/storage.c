/*
 * The run files on disk: naming, listing a process's previous runs,
 * telling a live run from a dead one, and syncing to storage.
 *
 * A run's file is "<process>.<YYYYMMDDTHHMMSS.mmmZ>.<pid>.lwr" (UTC start).
 * While lw_open() makes it, until its header is written, it is
 * ".<that name>.tmp" (LW_TEMP_SUFFIX), which no reader takes for a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../src/run-name.h"
#include "internal.h"

/* Does rest match "YYYYMMDDTHHMMSS.mmmZ.<pid>" and then ext? */
static int is_run_suffix(const char *rest, const char *ext)
{
	static const char shape[] = "ddddddddTdddddd.dddZ.";
	size_t i;

	for (i = 0; shape[i]; i++) {
		if (shape[i] == 'd') {
			if (rest[i] < '0' || rest[i] > '9')
				return 0;
		} else if (rest[i] != shape[i]) {
			return 0;
		}
	}
	rest += i;
	if (*rest < '0' || *rest > '9')
		return 0;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	return strcmp(rest, ext) == 0;
}

/* Is name this process's run (is_temp 0) or the temporary of one (1)? */
static int run_name_kind(const char *name, const char *prefix, size_t plen, int *is_temp)
{
	if (strncmp(name, prefix, plen) == 0 && is_run_suffix(name + plen, ".lwr")) {
		*is_temp = 0;
		return 1;
	}
	if (name[0] == '.' && strncmp(name + 1, prefix, plen) == 0 &&
	    is_run_suffix(name + 1 + plen, ".lwr" LW_TEMP_SUFFIX)) {
		*is_temp = 1;
		return 1;
	}
	return 0;
}

/* Open dir/name for reading, if it is a regular file: a FIFO, a device or
 * a symbolic link named like a run is not one, and opening a FIFO would
 * block until a writer came. Returns the descriptor, -EINVAL when the file
 * is not a regular one, or -errno.
 * Context: not signal-safe; no allocation; does not block. */
static int open_run(const char *dir, const char *name)
{
	char path[1024];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* ring_scan()'s callback: keep the last delegate and runtime_version
 * marks, in ticket order. */
static int note_conditions(uint64_t ticket, uint32_t index, const struct lw_ring_slot *s,
			   void *arg)
{
	struct run_entry *e = arg;

	(void)ticket;
	(void)index;
	if (s->type == LW_EV_MARK && s->code == LW_MARK_DELEGATE)
		e->delegate = s->a;
	else if (s->type == LW_EV_MARK && s->code == LW_MARK_RUNTIME_VERSION)
		e->runtime_version = s->a;
	return 0;
}

/* Fill e from the open file fd: live or not, and its header if it passes
 * R1..R7. */
static void read_entry(int fd, struct run_entry *e)
{
	off_t size = lseek(fd, 0, SEEK_END);

	e->live = storage_file_is_live(fd);
	e->valid = size >= 0 && pread(fd, &e->hdr, sizeof(e->hdr), 0) == (ssize_t)sizeof(e->hdr) &&
		   ring_header_check(&e->hdr, (size_t)size, NULL) == RING_HEADER_OK;
}

void storage_read_conditions(const char *dir, struct run_entry *e)
{
	struct ring_scan sc;
	void *map;
	int fd;

	if (e->conditions_read || !e->valid || e->live)
		return;
	e->conditions_read = 1;
	fd = open_run(dir, e->name);
	if (fd < 0)
		return; /* conditions unknown */
	map = mmap(NULL, (size_t)ring_file_size(&e->hdr), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	/* The checked copy of the header gives the geometry: the mapping's
	 * own could have changed since. */
	ring_scan(&e->hdr, (const struct lw_ring_slot *)((const char *)map + e->hdr.header_size), &sc,
		  NULL, note_conditions, e);
	munmap(map, (size_t)ring_file_size(&e->hdr));
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_boot(const void *a, const void *b)
{
	const struct run_entry *x = a, *y = b;

	if (x->valid != y->valid)
		return x->valid - y->valid;
	return memcmp(x->hdr.boot_id, y->hdr.boot_id, sizeof(x->hdr.boot_id));
}

/* The order of runs (see storage_order_runs()): era, then the boot's time, the boot,
 * the time within the boot, and the name. */
static int cmp_order(const void *a, const void *b)
{
	const struct run_entry *x = a, *y = b;
	int c;

	if (x->era != y->era)
		return x->era - y->era;
	if ((c = cmp_u64(x->boot_key, y->boot_key)) != 0)
		return c;
	if (x->valid && (c = memcmp(x->hdr.boot_id, y->hdr.boot_id, sizeof(x->hdr.boot_id))) != 0)
		return c;
	if (x->valid && (c = cmp_u64(x->hdr.start_mono_ns, y->hdr.start_mono_ns)) != 0)
		return c;
	return strcmp(x->name, y->name);
}

/*
 * Sort runs oldest first by what does not step back. The wall clock can
 * (NTP, the user, a device booting with no real-time clock), and the names
 * carry it, so within one boot runs are ordered by CLOCK_MONOTONIC at open.
 * The runs of the current boot (boot_id) are the newest of all. Earlier
 * boots have no common clock but the wall clock: each is placed by the
 * earliest start_real_ns among its runs. A header without a boot id is its
 * own boot, placed by its start_real_ns. Files whose header cannot be read
 * are the oldest, by name.
 */
void storage_order_runs(struct run_entry *e, size_t n, const uint8_t boot_id[16])
{
	static const uint8_t none[16];
	size_t i, j;

	if (n == 0)
		return; /* qsort wants an array */
	/* Group by boot (unreadable headers first), then give each group's
	 * runs the earliest start time of the group. */
	qsort(e, n, sizeof(*e), cmp_boot);
	for (i = 0; i < n; i = j) {
		int known = e[i].valid && memcmp(e[i].hdr.boot_id, none, sizeof(none)) != 0;
		uint64_t first = e[i].hdr.start_real_ns;

		j = i + 1;
		if (known)
			for (; j < n && cmp_boot(&e[i], &e[j]) == 0; j++)
				if (e[j].hdr.start_real_ns < first)
					first = e[j].hdr.start_real_ns;
		for (; i < j; i++) {
			if (!e[i].valid)
				e[i].era = 0;
			else if (known && memcmp(e[i].hdr.boot_id, boot_id, sizeof(none)) == 0)
				e[i].era = 2;
			else
				e[i].era = 1;
			e[i].boot_key = e[i].era == 1 ? first : 0;
		}
	}
	qsort(e, n, sizeof(*e), cmp_order);
}

/* Append a copy of name to *names (count, capacity *cap). 0 or -ENOMEM. */
static int add_name(char ***names, size_t *count, size_t *cap, const char *name)
{
	char *copy;

	if (*count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		char **nn = realloc(*names, ncap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		*names = nn;
		*cap = ncap;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	(*names)[(*count)++] = copy;
	return 0;
}

int storage_walk_runs(const char *dir, const char *process, storage_run_fn fn, void *arg)
{
	char prefix[LW_RING_PROCESS_MAX + 1];
	/* Aligned for the records that getdents64 writes into it. */
	_Alignas(8) char buf[4096];
	size_t plen;
	long n;
	int fd, rc = 0;

	run_name_process(prefix, sizeof(prefix) - 1, process);
	plen = strlen(prefix);
	prefix[plen++] = '.';
	prefix[plen] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (rc == 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off;

		for (off = 0; rc == 0 && off < n;) {
			const struct dirent64_raw *de = (const void *)(buf + off);
			int is_temp;

			off += de->d_reclen;
			if (run_name_kind(de->d_name, prefix, plen, &is_temp))
				rc = fn(dir, de->d_name, is_temp, arg);
		}
	}
	if (rc == 0 && n < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int storage_read_run(const char *dir, const char *name, struct run_entry *e)
{
	int fd = open_run(dir, name);

	if (fd < 0)
		return fd;
	read_entry(fd, e);
	close(fd);
	return 0;
}

/* What storage_list_runs() builds as the walk goes. */
struct list_walk {
	struct run_list l;
	size_t cap, temps_cap;
};

static int list_one(const char *dir, const char *name, int is_temp, void *arg)
{
	struct list_walk *w = arg;
	struct run_list *l = &w->l;
	struct run_entry *e;

	/* Only regular files are runs: a FIFO or a link of that name is
	 * neither read nor removed, nor counted among the kept. */
	if (is_temp) {
		int fd = open_run(dir, name), live;

		if (fd < 0)
			return 0;
		live = storage_file_is_live(fd);
		close(fd);
		return live ? 0 : add_name(&l->stale, &l->stale_count, &w->temps_cap, name);
	}
	if (l->count == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 16;
		struct run_entry *nr = realloc(l->runs, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		l->runs = nr;
		w->cap = ncap;
	}
	e = &l->runs[l->count];
	memset(e, 0, sizeof(*e));
	if (storage_read_run(dir, name, e) != 0)
		return 0;
	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	l->count++;
	return 0;
}

/* List the run files of process in dir, oldest first (storage_order_runs()), and
 * the temporaries of its opens (setup.c) that no writer holds: those of
 * opens that were killed. Context: not signal-safe; allocates (free with
 * storage_free_runs); blocks (I/O). */
int storage_list_runs(const char *dir, const char *process, const uint8_t boot_id[16],
		      struct run_list *out)
{
	struct list_walk w;
	int rc;

	memset(&w, 0, sizeof(w));
	rc = storage_walk_runs(dir, process, list_one, &w);
	if (rc != 0) {
		storage_free_runs(&w.l);
		return rc;
	}
	storage_order_runs(w.l.runs, w.l.count, boot_id);
	w.l.dir = dir;
	*out = w.l;
	return 0;
}

void storage_free_runs(struct run_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->count; i++)
		free(l->runs[i].name);
	for (i = 0; i < l->stale_count; i++)
		free(l->stale[i]);
	free(l->runs);
	free(l->stale);
	memset(l, 0, sizeof(*l));
}

/* 1 when a writer holds the file's flock (the run is live), 0 when not.
 * Takes and drops a shared lock. Context: not signal-safe; no allocation;
 * does not block. */
int storage_file_is_live(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return 0;
}

int lw_sync(struct lw *lw)
{
	struct lw_ring_slot s;
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (lw->backing != LW_BACKING_FILE)
		return -ENODEV;
	lw_event_fill(lw, &s, LW_EV_SYNC, ring_open_stage(lw->hdr), 0);
	s.a = atomic_load_explicit(A64(&lw->hdr->syncs), memory_order_relaxed) + 1;
	ring_write(&lw->w, &s);
	if (msync(lw->map, lw->map_size, MS_SYNC) != 0)
		return -errno;
	if (fdatasync(lw->fd) != 0)
		return -errno;
	atomic_fetch_add_explicit(A64(&lw->hdr->syncs), 1, memory_order_relaxed);
	return 0;
}
