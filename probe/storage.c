/*
 * The run files on disk: naming, listing a process's previous runs,
 * telling a live run from a dead one, and syncing to storage.
 *
 * A run's file is "<process>.<YYYYMMDDTHHMMSS.mmmZ>.<pid>.lwr" (UTC start),
 * so a listing sorts by process, then by time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/run-name.h"
#include "internal.h"

/* Does rest match "YYYYMMDDTHHMMSS.mmmZ.<pid>.lwr"? */
static int is_run_suffix(const char *rest)
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
	return strcmp(rest, ".lwr") == 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Open dir/name for reading, if it is a regular file: a FIFO, a device or
 * a symbolic link named like a run is not one, and opening a FIFO would
 * block until a writer came. Returns the descriptor, -EINVAL when the file
 * is not a regular one, or -errno.
 * Context: not signal-safe; no allocation; does not block. */
int storage_open_run(const char *dir, const char *name)
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

/* List the run files of process in dir, oldest first. Context: not
 * signal-safe; allocates (free with storage_free_runs); blocks (I/O). */
int storage_list_runs(const char *dir, const char *process, struct run_list *out)
{
	char prefix[LW_RING_PROCESS_MAX + 1];
	size_t plen, cap = 0;
	struct dirent *de;
	DIR *d;

	out->names = NULL;
	out->count = 0;
	run_name_process(prefix, sizeof(prefix) - 1, process);
	plen = strlen(prefix);
	prefix[plen++] = '.';
	prefix[plen] = '\0';
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		char *name;
		int fd;

		if (strncmp(de->d_name, prefix, plen) != 0 || !is_run_suffix(de->d_name + plen))
			continue;
		/* Only regular files are runs: a FIFO or a link of that name
		 * is neither read nor removed, nor counted among the kept. */
		fd = storage_open_run(dir, de->d_name);
		if (fd < 0)
			continue;
		close(fd);
		if (out->count == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nn = realloc(out->names, ncap * sizeof(*nn));

			if (!nn)
				goto fail_nomem;
			out->names = nn;
			cap = ncap;
		}
		name = strdup(de->d_name);
		if (!name)
			goto fail_nomem;
		out->names[out->count++] = name;
	}
	closedir(d);
	if (out->count)
		qsort(out->names, out->count, sizeof(*out->names), cmp_names);
	return 0;

fail_nomem:
	closedir(d);
	storage_free_runs(out);
	return -ENOMEM;
}

void storage_free_runs(struct run_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->count; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->count = 0;
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

	if (!lw)
		return -EINVAL;
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
