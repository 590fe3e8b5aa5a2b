/*
 * The pull of a bundle from a device, for lastwords pull (cmd-pull.c,
 * which prints what it says): the app's rings (run-as, or the app's
 * external files directory), dumpsys activity exit-info, logcat's main,
 * system, crash and events buffers (in UTC and with the year: -v UTC -v
 * year), tombstones and ANR traces where they can be read, and
 * manifest.json: the device, its time zone (persist.sys.timezone) and
 * offset, the lmkd kill-report properties, the files written and what is
 * missing. With --bugreport, last, the device's bugreportz makes a bug
 * report zip, which goes into bugreport/ (bugreportz.h): it holds the
 * tombstones and ANR traces that a phone that is not rooted lets nobody
 * else read.
 *
 * Every device command goes through adb_exec() (adb.h), which gets its
 * exit status whatever the client and the device; a directory's files come
 * in one call. The whole pull has one deadline (--timeout), each output a
 * cap, so a device cannot make it hang, fill the memory or the disk.
 *
 * The bundle is written into DIR.partial and renamed to DIR only when
 * nothing required is missing. A partial pull stays in DIR.partial, with
 * "complete": false in its manifest, and exits PULL_EXIT_PARTIAL: it never
 * looks complete. An existing non-empty DIR or DIR.partial is never touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <lastwords/ring.h>

#include "../../src/ring.h"
#include "../../src/run-name.h"
#include "../evidence/json.h"
#include "adb.h"
#include "bugreportz.h"
#include "pull.h"

#define NAME_MAX_LEN ADB_NAME_MAX /* a package name, a file name */

/* Caps on what a device may send, stated in lastwords(1): a call that
 * prints more is stopped, and what it was to fetch is missing. */
#define CAP_SMALL ((size_t)64 << 10)     /* adb devices, pm path, date */
#define CAP_PROPS ((size_t)1 << 20)      /* getprop */
#define CAP_EXIT_INFO ((size_t)64 << 20) /* dumpsys activity exit-info */
#define CAP_LOG ((size_t)256 << 20)      /* each logcat */
#define DIR_BYTES_MAX ((size_t)2 << 30)  /* the files of one directory, in one call */
#define DIR_FILES_MAX 1024               /* files taken from one directory */
/* Each file: a ring as large as the format allows, a tombstone, a trace. */
#define RING_FILE_MAX \
	(LW_RING_HEADER_SIZE + (unsigned long long)LW_RING_SLOTS_MAX * LW_RING_SLOT_SIZE)
#define TOMBSTONE_MAX (16ull << 20)
#define ANR_MAX (64ull << 20)
#define CAP_BUGREPORT ((size_t)1 << 30) /* the bug report zip */
/* The app's Collector bundles (release builds): the newest BUNDLES_MAX of
 * at most BUNDLES_LISTED_MAX listed; each file of a bundle's top (its
 * manifest.json, exit-info.json) at most BUNDLE_FILE_MAX, its traces
 * ANR_MAX, its rings RING_FILE_MAX. */
#define BUNDLES_MAX 16
#define BUNDLES_LISTED_MAX 1024
#define BUNDLE_FILE_MAX (64ull << 20)
/* A bug report takes minutes: the default deadline grows by this much. */
#define BUGREPORT_TIMEOUT_S 600

/* One line for p->say(): "lastwords: " and the newline are the printer's. */
static void say(struct pull *p, const char *fmt, ...)
{
	char small[1024], *line = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (line = malloc((size_t)n + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(line, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	p->say(p->ctx, line ? line : small);
	if (line != small)
		free(line);
}

/* A failure of our own (out of memory, cannot write the bundle): the pull
 * stops with PULL_EXIT_OUTPUT. */
static int local_error(struct pull *p, const char *what, const char *reason)
{
	say(p, "%s: %s", what, reason);
	return -1;
}

/* A package name as Android spells it; it goes into device shell command
 * lines, so nothing else may pass. */
int pull_valid_package(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_'))
			return 0;
	return i > 0 && i <= NAME_MAX_LEN;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Record something missing in the manifest and say so on stderr. */
static int add_missing(struct pull *p, const char *what, int required, const char *fmt, ...)
{
	char reason[768];
	cJSON *m = cJSON_CreateObject();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (!m || !cJSON_AddStringToObject(m, "what", what) ||
	    !cJSON_AddStringToObject(m, "reason", reason) ||
	    !cJSON_AddBoolToObject(m, "required", required)) {
		cJSON_Delete(m);
		return local_error(p, "manifest", "out of memory");
	}
	cJSON_AddItemToArray(p->missing, m);
	if (required)
		p->required_missing++;
	say(p, "%s %s%s: %s", required ? "missing" : "no", what, required ? "" : " (optional)", reason);
	return 0;
}

static int add_file(struct pull *p, const char *rel, long long bytes)
{
	cJSON *f = cJSON_CreateObject();

	if (!f || !cJSON_AddStringToObject(f, "path", rel) ||
	    !cJSON_AddNumberToObject(f, "bytes", (double)bytes)) {
		cJSON_Delete(f);
		return local_error(p, "manifest", "out of memory");
	}
	cJSON_AddItemToArray(p->files, f);
	return 0;
}

static char *join(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 2);

	if (s)
		sprintf(s, "%s/%s", a, b);
	return s;
}

/* Make work/sub once, and the directories above it in sub. */
static int ensure_dir(struct pull *p, const char *sub)
{
	char *path = join(p->work, sub), *slash;
	int rc = 0;

	if (!path)
		return local_error(p, sub, "out of memory");
	for (slash = path + strlen(p->work) + 1; rc == 0; slash++) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			rc = local_error(p, path, strerror(errno));
		if (!slash)
			break;
		*slash = '/';
	}
	free(path);
	return rc;
}

/* What an adb call that could not be started means for the pull. */
static int start_error(struct pull *p, int rc)
{
	say(p, "cannot run adb: %s", strerror(-rc));
	return -1;
}

enum fetch { FETCH_OK, FETCH_FAILED, FETCH_EMPTY };

/* Run cmdline on the device with its output into work/rel, at most cap
 * bytes. FETCH_OK: the file is kept and listed; FETCH_FAILED: removed,
 * *why says why; FETCH_EMPTY: removed. Returns -1 on a local failure. */
static int fetch(struct pull *p, const char *rel, const char *cmdline, size_t cap, char *why,
		 size_t whylen)
{
	struct adb_result res;
	struct adb_file f;
	char *path = join(p->work, rel);
	struct stat st;
	int rc;

	if (!path)
		return local_error(p, rel, "out of memory");
	adb_file_init(&f, open(path, O_WRONLY | O_CREAT | O_EXCL, 0644));
	if (f.fd < 0) {
		rc = local_error(p, path, strerror(errno));
		goto free_path;
	}
	rc = adb_exec(&p->adb, cmdline, &f.sink, cap, &res);
	if (rc != 0 || f.werr || fstat(f.fd, &st) != 0) {
		rc = rc ? start_error(p, rc) : local_error(p, path, strerror(f.werr ? f.werr : errno));
		close(f.fd);
		unlink(path);
		goto free_path;
	}
	if (close(f.fd) != 0) {
		rc = local_error(p, path, strerror(errno));
		goto free_path;
	}
	if (res.status != 0) {
		snprintf(why, whylen, "%s", res.err);
		unlink(path);
		rc = FETCH_FAILED;
	} else if (st.st_size == 0) {
		snprintf(why, whylen, "empty");
		unlink(path);
		rc = FETCH_EMPTY;
	} else {
		rc = add_file(p, rel, (long long)st.st_size) == 0 ? FETCH_OK : -1;
	}
free_path:
	free(path);
	return rc;
}

/* Run cmdline on the device and keep its output, at most cap bytes.
 * Returns 0 (free b->data), 1 when it failed (*why set, and *reached when
 * it failed on the device, not in adb), -1 on a local failure. */
static int capture(struct pull *p, const char *cmdline, size_t cap, struct adb_buf *b, char *why,
		   size_t whylen, int *reached)
{
	struct adb_result res;
	int rc;

	adb_buf_init(b);
	rc = adb_exec(&p->adb, cmdline, &b->sink, cap, &res);
	if (reached)
		*reached = res.reached;
	if (rc != 0) {
		free(b->data);
		return start_error(p, rc);
	}
	if (res.status == ADB_STOPPED) {
		free(b->data);
		return local_error(p, "adb output", "out of memory");
	}
	if (res.status != 0) {
		snprintf(why, whylen, "%s", res.err);
		free(b->data);
		b->data = NULL;
		return 1;
	}
	if (!b->data && !(b->data = calloc(1, 1)))
		return local_error(p, "adb output", "out of memory");
	return 0;
}

/* --- the device ------------------------------------------------------- */

int pull_find_device(struct pull *p, const char *want, char **serial)
{
	static const char *const args[] = { "devices", NULL };
	struct adb_result res;
	struct adb_buf b;
	char *line, *save = NULL, *found = NULL, *state_of_want = NULL, *list = NULL;
	size_t n = 0, list_len = 0, list_cap;
	int rc;

	adb_buf_init(&b);
	rc = adb_run(&p->adb, args, &b.sink, CAP_SMALL, &res);
	if (rc == -ENOENT) {
		p->adb_not_found = 1;
		return PULL_EXIT_NO_ADB;
	}
	if (rc != 0) {
		say(p, "cannot run adb ('%s'): %s", p->adb.program, strerror(-rc));
		return PULL_EXIT_NO_ADB;
	}
	if (res.status != 0 || !b.data) {
		say(p, "adb devices failed: %s",
		    res.status == ADB_STOPPED ? "out of memory" : res.err[0] ? res.err : "no output");
		free(b.data);
		return res.status == ADB_STOPPED ? PULL_EXIT_OUTPUT : PULL_EXIT_NO_DEVICE;
	}
	/* "A, B, C": each serial is shorter than its line. */
	list_cap = 2 * b.len + 16;
	if (!(list = malloc(list_cap))) {
		free(b.data);
		local_error(p, "adb devices", "out of memory");
		return PULL_EXIT_OUTPUT;
	}
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = line + strspn(line, " \t"), *state, *end;

		if (!*s || *s == '*' || strncmp(s, "List of devices", 15) == 0)
			continue;
		/* "SERIAL<tab>STATE", where the state may have words: "no
		 * permissions (user in plugdev group; are your udev rules
		 * wrong?); see [...]". */
		state = s + strcspn(s, " \t");
		if (*state)
			*state++ = '\0';
		state += strspn(state, " \t");
		end = state + strlen(state);
		while (end > state && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (want) {
			if (strcmp(s, want) == 0)
				state_of_want = state;
			continue;
		}
		if (n++ == 0)
			found = s;
		else if (n == 2)
			list_len = (size_t)snprintf(list, list_cap, "%s, %s", found, s);
		else
			list_len += (size_t)snprintf(list + list_len, list_cap - list_len, ", %s", s);
		if (n == 1)
			state_of_want = state;
	}
	if (want && !state_of_want) {
		say(p, "no device '%s' (see adb devices)", want);
		rc = PULL_EXIT_NO_DEVICE;
	} else if (!want && n == 0) {
		say(p, "no device attached (see adb devices)");
		rc = PULL_EXIT_NO_DEVICE;
	} else if (!want && n > 1) {
		say(p, "several devices are attached (%s): choose one with --serial", list);
		rc = PULL_EXIT_DEVICES;
	} else if (strcmp(state_of_want, "device") != 0) {
		say(p, "device '%s' is not ready: %s%s (see adb devices)", want ? want : found,
		    state_of_want[0] ? state_of_want : "in an unknown state",
		    strcmp(state_of_want, "unauthorized") == 0
			    ? "; accept the debugging prompt on the device"
			    : "");
		rc = PULL_EXIT_NO_DEVICE;
	} else {
		*serial = strdup(want ? want : found);
		if (!*serial) {
			local_error(p, "adb devices", "out of memory");
			rc = PULL_EXIT_OUTPUT;
		}
	}
	free(list);
	free(b.data);
	return rc;
}

/* Is the package installed? pm path prints "package:/data/app/..." for it. */
int pull_check_package(struct pull *p)
{
	char cmd[NAME_MAX_LEN + 16], why[512] = "";
	struct adb_buf b;
	int rc, reached;

	snprintf(cmd, sizeof(cmd), "pm path %s", p->package);
	rc = capture(p, cmd, CAP_SMALL, &b, why, sizeof(why), &reached);
	if (rc < 0)
		return PULL_EXIT_OUTPUT;
	if (rc == 0 && strstr(b.data, "package:")) {
		free(b.data);
		return 0;
	}
	if (rc == 0)
		free(b.data);
	if (rc > 0 && !reached) {
		say(p, "cannot ask '%s' for package '%s': %s", p->adb.serial, p->package, why);
		return PULL_EXIT_NO_DEVICE;
	}
	say(p, "package '%s' is not installed on '%s'%s%s", p->package, p->adb.serial,
	    why[0] ? ": " : "", why);
	return PULL_EXIT_PACKAGE;
}

/* getprop's "[key]: [value]" lines into the manifest's device object. */
static int collect_props(struct pull *p)
{
	static const struct {
		const char *prop, *key;
	} wanted[] = {
		{ "ro.product.manufacturer", "manufacturer" },
		{ "ro.product.model", "model" },
		{ "ro.build.version.release", "android_version" },
		{ "ro.build.version.sdk", "sdk" },
		{ "ro.build.fingerprint", "fingerprint" },
	};
	cJSON *device = cJSON_AddObjectToObject(p->manifest, "device");
	cJSON *lmk = cJSON_AddObjectToObject(p->manifest, "lmk");
	cJSON *lmkprops = lmk ? cJSON_AddObjectToObject(lmk, "properties") : NULL;
	char why[512] = "", *line, *save = NULL;
	const char *reportkills = NULL;
	struct adb_buf b;
	size_t i, nlmk = 0;
	int rc;

	if (!lmkprops || !cJSON_AddStringToObject(device, "serial", p->adb.serial))
		return local_error(p, "manifest", "out of memory");
	rc = capture(p, "getprop", CAP_PROPS, &b, why, sizeof(why), NULL);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return add_missing(p, "device properties", 1, "getprop failed: %s", why);
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *key, *val, *end;

		if (line[0] != '[' || !(end = strstr(line, "]: [")))
			continue;
		key = line + 1;
		*end = '\0';
		val = end + 4;
		if ((end = strrchr(val, ']')) != NULL)
			*end = '\0';
		for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
			if (strcmp(key, wanted[i].prop) == 0 &&
			    !cJSON_AddStringToObject(device, wanted[i].key, val))
				goto nomem;
		/* The zone's name gives each record's date its offset (DST);
		 * date +%z gives only today's. */
		if (strcmp(key, "persist.sys.timezone") == 0 && val[0] &&
		    !cJSON_AddStringToObject(p->manifest, "timezone", val))
			goto nomem;
		if (strncmp(key, "ro.lmk.", 7) == 0 || strncmp(key, "sys.lmk.", 8) == 0 ||
		    strncmp(key, "persist.sys.lmk.", 16) == 0) {
			cJSON *v = cJSON_AddStringToObject(lmkprops, key, val);

			if (!v)
				goto nomem;
			if (strcmp(key, "persist.sys.lmk.reportkills") == 0)
				reportkills = v->valuestring;
			nlmk++;
		}
	}
	/* lmkd reports its kills to ActivityManager (and so to exit-info) unless
	 * persist.sys.lmk.reportkills says false; unset means the default of
	 * the release, which the manifest leaves unknown. */
	if (!(reportkills ? cJSON_AddBoolToObject(lmk, "reportkills", strcmp(reportkills, "false") != 0 &&
							     strcmp(reportkills, "0") != 0)
			  : cJSON_AddNullToObject(lmk, "reportkills")))
		goto nomem;
	free(b.data);
	if (!cJSON_GetObjectItem(device, "model") || !cJSON_GetObjectItem(device, "android_version"))
		return add_missing(p, "device properties", 1,
				   "getprop printed no ro.product.model or ro.build.version.release");
	if (nlmk == 0)
		return add_missing(p, "lmkd properties", 0, "no ro.lmk.*, sys.lmk.* or persist.sys.lmk.* property");
	return 0;
nomem:
	free(b.data);
	return local_error(p, "manifest", "out of memory");
}

/* The device's UTC offset, as date +%z prints it: "+0100". */
static int collect_tz(struct pull *p)
{
	char why[512] = "";
	struct adb_buf b;
	size_t n;
	int rc = capture(p, "date +%z", CAP_SMALL, &b, why, sizeof(why), NULL);

	if (rc < 0)
		return -1;
	if (rc > 0)
		return add_missing(p, "time-zone offset", 1, "date +%%z failed: %s", why);
	n = strcspn(b.data, "\r\n");
	b.data[n] = '\0';
	if (n != 5 || (b.data[0] != '+' && b.data[0] != '-') || strspn(b.data + 1, "0123456789") != 4) {
		rc = add_missing(p, "time-zone offset", 1, "date +%%z printed '%.40s'", b.data);
	} else if (!cJSON_AddStringToObject(p->manifest, "tz_offset", b.data)) {
		rc = local_error(p, "manifest", "out of memory");
	}
	free(b.data);
	return rc;
}

/* --- the files of a directory ------------------------------------------ */

/* One device directory pulled in one call of adb_stream_script(), into
 * work/sub. Each name is taken once: a name the device lists again in the
 * same call is dropped, and a second call (rings) takes only the names the
 * first did not get whole. */
struct dir_pull {
	struct pull *p;
	const char *sub;         /* "rings", "tombstones", "anr" */
	int required;            /* are its files required? */
	int rings;               /* *.lwr only, each checked against its header */
	unsigned long long max_file;
	int pass;                /* 1, or 2 on the second call */
	int reached;             /* the last call reached the device shell */
	int too_many;            /* a name past DIR_FILES_MAX was dropped */
	char *path;              /* the file being written */
	size_t nnames;
	struct dir_name {
		char *name;
		char *why;  /* NULL: pulled whole; else why not */
		int pass;   /* the call that last listed it */
		int again;  /* it came cut: worth another call */
	} names[DIR_FILES_MAX];
};

static int dir_fail(struct pull *p, struct dir_name *n, const char *why)
{
	free(n->why);
	n->why = strdup(why);
	return n->why ? 0 : local_error(p, "pull", "out of memory");
}

static struct dir_name *dir_find(struct dir_pull *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nnames; i++)
		if (strcmp(d->names[i].name, name) == 0)
			return &d->names[i];
	return NULL;
}

/* The entry for a name the device listed, or NULL when it is to be
 * dropped (*stop set on a local failure). */
static struct dir_name *dir_take(struct dir_pull *d, const char *name, int *stop)
{
	struct dir_name *n;

	*stop = 0;
	if (!adb_safe_name(name, strlen(name)) || (d->rings && !ends_with(name, strlen(name), ".lwr")))
		return NULL;
	n = dir_find(d, name);
	if (n && n->pass == d->pass) {
		say(d->p, "the device listed '%s/%s' twice; only the first is taken", d->sub, name);
		return NULL;
	}
	if (n) {
		n->pass = d->pass;
		return n->again ? n : NULL; /* a second call takes only what came cut */
	}
	if (d->nnames == DIR_FILES_MAX) {
		d->too_many = 1;
		return NULL;
	}
	n = &d->names[d->nnames];
	if (!(n->name = strdup(name)) || !(n->why = strdup("not read"))) {
		free(n->name);
		*stop = local_error(d->p, "pull", "out of memory");
		return NULL;
	}
	n->pass = d->pass;
	n->again = 0;
	d->nnames++;
	return n;
}

static int dir_begin(void *ctx, const char *name, unsigned long long size)
{
	struct dir_pull *d = ctx;
	char rel[NAME_MAX_LEN + 32], why[160];
	int stop, fd;
	struct dir_name *n = dir_take(d, name, &stop);

	if (!n)
		return stop ? -2 : -1;
	if (size > d->max_file) {
		snprintf(why, sizeof(why), "%llu bytes, over the cap of %llu", size, d->max_file);
		return dir_fail(d->p, n, why) == 0 ? -1 : -2;
	}
	snprintf(rel, sizeof(rel), "%s/%s", d->sub, name);
	if (ensure_dir(d->p, d->sub) != 0)
		return -2;
	if (!(d->path = join(d->p->work, rel))) {
		local_error(d->p, rel, "out of memory");
		return -2;
	}
	fd = open(d->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		local_error(d->p, d->path, strerror(errno));
		free(d->path);
		d->path = NULL;
		return -2;
	}
	return fd;
}

/* 0 when a ring is shorter than its header says (cut on its way: *why),
 * 1 when not, -1 when it cannot be read back. */
static int ring_whole(int fd, off_t size, char *why, size_t whylen)
{
	unsigned char head[sizeof(struct lw_ring_header)] = { 0 };
	struct ring_error err;

	if (pread(fd, head, sizeof(head), 0) < 0)
		return -1;
	if (ring_header_check(head, (size_t)size, &err) != RING_HEADER_TRUNCATED)
		return 1;
	snprintf(why, whylen, "%s", err.reason);
	return 0;
}

static int dir_end(void *ctx, const char *name, int fd, int whole, const char *why)
{
	struct dir_pull *d = ctx;
	struct dir_name *n = dir_find(d, name);
	char rel[NAME_MAX_LEN + 32], cut[160];
	struct stat st;
	int rc = why ? 0 : -1; /* no why: the write failed (adb_stream.werr) */

	if (fd < 0)
		return 0;
	if (rc == 0 && fstat(fd, &st) != 0)
		rc = local_error(d->p, d->path, strerror(errno));
	if (rc == 0 && whole && d->rings) {
		int r = ring_whole(fd, st.st_size, cut, sizeof(cut));

		if (r < 0)
			rc = local_error(d->p, d->path, strerror(errno));
		whole = r == 1;
		why = cut;
	}
	if (close(fd) != 0 && rc == 0)
		rc = local_error(d->p, d->path, strerror(errno));
	if (rc != 0 || !whole)
		unlink(d->path);
	free(d->path);
	d->path = NULL;
	if (rc != 0)
		return -1;
	n->again = !whole;
	if (!whole)
		return dir_fail(d->p, n, why);
	free(n->why);
	n->why = NULL;
	snprintf(rel, sizeof(rel), "%s/%s", d->sub, name);
	return add_file(d->p, rel, (long long)st.st_size);
}

static int dir_denied(void *ctx, const char *name)
{
	struct dir_pull *d = ctx;
	int stop;
	struct dir_name *n = dir_take(d, name, &stop);

	if (!n)
		return stop ? -1 : 0;
	return dir_fail(d->p, n, "the device shell cannot read it");
}

enum dir_outcome { DIR_OK, DIR_REFUSED, DIR_CUT };

/* One call of cmdline, a stream script. DIR_REFUSED: the device printed
 * no file and failed (*why); DIR_CUT: the stream broke off or lost its
 * framing (*why); -1 on a local failure. */
static int dir_call(struct dir_pull *d, const char *cmdline, char *why, size_t whylen)
{
	struct adb_stream_ops ops = { dir_begin, dir_end, dir_denied, d };
	struct adb_stream st;
	struct adb_result res;
	int rc;

	d->pass++;
	adb_stream_init(&st, &ops);
	rc = adb_exec(&d->p->adb, cmdline, &st.sink, DIR_BYTES_MAX, &res);
	if (rc == 0 && res.status != ADB_STOPPED)
		rc = adb_stream_finish(&st, res.err[0] ? res.err : "the stream was cut") ? -1 : 0;
	else if (rc == 0)
		rc = -1;
	else
		start_error(d->p, rc);
	if (st.werr)
		local_error(d->p, d->sub, strerror(st.werr));
	if (rc != 0 || st.werr)
		return -1;
	snprintf(why, whylen, "%s", res.err);
	d->reached = res.reached;
	if (res.status != 0 && st.headers == 0)
		return DIR_REFUSED;
	if (res.status == 0 && st.failed)
		snprintf(why, whylen, "the stream from the device lost its framing");
	return res.status != 0 || st.failed ? DIR_CUT : DIR_OK;
}

/* Forget the names; with record, each that did not come whole is
 * missing, and so is the rest of a stream that was cut. Returns how many
 * came whole, or -1 on a local failure. */
static long dir_close(struct dir_pull *d, int record, int cut, const char *why)
{
	long got = 0;
	size_t i;

	for (i = 0; i < d->nnames; i++) {
		struct dir_name *n = &d->names[i];
		char rel[NAME_MAX_LEN + 32];

		snprintf(rel, sizeof(rel), "%s/%s", d->sub, n->name);
		if (!n->why)
			got++;
		else if (record && got >= 0 && add_missing(d->p, rel, d->required, "%s", n->why) != 0)
			got = -1;
		free(n->name);
		free(n->why);
	}
	d->nnames = 0;
	if (record && got >= 0 && cut &&
	    add_missing(d->p, d->sub, d->required, "what came after the %ld whole file%s is "
			"unknown: %s", got, got == 1 ? "" : "s", why) != 0)
		got = -1;
	if (record && got >= 0 && d->too_many &&
	    add_missing(d->p, d->sub, d->required, "more than %d files; the rest were not pulled",
			DIR_FILES_MAX) != 0)
		got = -1;
	return got;
}

static struct dir_pull *dir_new(struct pull *p, const char *sub, int required,
				unsigned long long max_file)
{
	struct dir_pull *d = calloc(1, sizeof(*d));

	if (!d) {
		local_error(p, "pull", "out of memory");
		return NULL;
	}
	d->p = p;
	d->sub = sub;
	d->required = required;
	d->max_file = max_file;
	return d;
}

/* --- rings ------------------------------------------------------------ */

/* The rings in dir through cmdline prefix (run-as PKG, or none) into
 * work/sub, in one call, and one more when a ring came shorter than its header says or the
 * stream broke off. Returns how many came whole, with *refused set (and
 * *why) when the device printed none and failed, and *reached when the
 * first call reached the device shell; -1 on a local failure. */
static long pull_rings(struct pull *p, const char *prefix, const char *dir, const char *sub,
		       int *refused, int *reached, char *why, size_t whylen)
{
	char glob[LW_RING_PROCESS_MAX + 8], script[1024], quoted[1280], cmd[1536];
	struct dir_pull *d = dir_new(p, sub, 1, RING_FILE_MAX);
	char why2[512];
	int first, again = 0, cut;
	size_t i;
	long got;

	if (!d)
		return -1;
	d->rings = 1;
	glob[0] = '\0';
	if (p->process)
		run_name_process(glob, LW_RING_PROCESS_MAX, p->process);
	strcat(glob, p->process ? ".*.lwr" : "*.lwr");
	if (adb_stream_script(script, sizeof(script), dir, glob, NULL) != 0 ||
	    adb_quote(quoted, sizeof(quoted), script) != 0) {
		free(d);
		return local_error(p, dir, "name too long");
	}
	if (prefix)
		snprintf(cmd, sizeof(cmd), "%s sh -c %s", prefix, quoted);
	else
		snprintf(cmd, sizeof(cmd), "%s", script);
	first = dir_call(d, cmd, why, whylen);
	*refused = first == DIR_REFUSED;
	*reached = d->reached;
	cut = first == DIR_CUT;
	for (i = 0; i < d->nnames; i++)
		again |= d->names[i].again;
	if (first >= 0 && (cut || again)) {
		int second;

		say(p, "%s; pulling the rings again",
		    cut ? why : "a ring came shorter than its header says");
		second = dir_call(d, cmd, why2, sizeof(why2));
		if (second < 0)
			first = -1;
		else if (second != DIR_REFUSED)
			cut = second == DIR_CUT;
		if (second != DIR_REFUSED)
			snprintf(why, whylen, "%s", why2);
	}
	got = dir_close(d, first >= 0, cut, why);
	free(d);
	return first < 0 ? -1 : got;
}

/* The files of devdir but skip (a glob, or NULL) into work/sub, in one
 * call, each at most max_file bytes; one that did not come whole is
 * missing (required or not). Returns how many came whole, with *outcome
 * (enum dir_outcome, *why) and *reached; -1 on a local failure. */
static long pull_files(struct pull *p, const char *devdir, const char *skip, const char *sub,
		       int required, unsigned long long max_file, int *outcome, int *reached,
		       char *why, size_t whylen)
{
	struct dir_pull *d = dir_new(p, sub, required, max_file);
	char script[1024];
	long got;

	if (!d)
		return -1;
	if (adb_stream_script(script, sizeof(script), devdir, "*", skip) != 0) {
		free(d);
		return local_error(p, devdir, "name too long");
	}
	*outcome = dir_call(d, script, why, whylen);
	got = dir_close(d, *outcome >= 0, *outcome == DIR_CUT, why);
	*reached = d->reached;
	free(d);
	return *outcome < 0 ? -1 : got;
}

/* The names of the bundles in dir, as the device lists them (oldest
 * first: they are named by their UTC time), one call: each a directory
 * with a manifest.json, its name safe for a command line. */
static int list_bundles(struct pull *p, const char *dir, struct adb_buf *b)
{
	char qdir[NAME_MAX_LEN + 128], script[1024], why[512];
	int rc;

	if (adb_quote(qdir, sizeof(qdir), dir) != 0)
		return local_error(p, dir, "name too long");
	snprintf(script, sizeof(script),
		 "cd %s || exit 1; for d in *; do case $d in *[!A-Za-z0-9._:+,-]*) continue;; esac; "
		 "if [ -d \"$d\" ] && [ -f \"$d/manifest.json\" ]; then echo \"LWDIR $d\"; fi; "
		 "done", qdir);
	rc = capture(p, script, CAP_SMALL, b, why, sizeof(why), NULL);
	return rc < 0 ? -1 : rc; /* 1: no such directory, no bundle */
}

/*
 * The bundles that the app's Collector (dev.lastwords.android.Collector)
 * packed in dir, for a release build that refuses run-as: the newest
 * BUNDLES_MAX, each into work/bundles/NAME/ with its manifest.json,
 * exit-info.json, rings/ and traces/, one call per directory. Listed in
 * the manifest's "bundles" (and "bundles_from"). Returns how many rings
 * they held, with *n the bundles; -1 on a local failure.
 */
static long collect_bundles(struct pull *p, const char *dir, long *n)
{
	char *names[BUNDLES_LISTED_MAX], *line, *save = NULL, why[512];
	char dev[NAME_MAX_LEN * 2 + 128], sub[NAME_MAX_LEN + 64];
	struct adb_buf b;
	size_t count = 0, i, first;
	long rings = 0, got;
	int rc, outcome, reached, refused;
	cJSON *list = NULL;

	rc = list_bundles(p, dir, &b);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	for (line = strtok_r(b.data, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save))
		if (strncmp(line, "LWDIR ", 6) == 0 && adb_safe_name(line + 6, strlen(line + 6)) &&
		    strlen(line + 6) <= NAME_MAX_LEN && count < BUNDLES_LISTED_MAX)
			names[count++] = line + 6;
	first = count > BUNDLES_MAX ? count - BUNDLES_MAX : 0;
	rc = first ? add_missing(p, "bundles", 0, "%zu older bundles than the newest %d were not "
				 "pulled", first, BUNDLES_MAX)
		   : 0;
	if (rc == 0 && count && (!(list = cJSON_AddArrayToObject(p->manifest, "bundles")) ||
				 !cJSON_AddStringToObject(p->manifest, "bundles_from", dir)))
		rc = local_error(p, "manifest", "out of memory");
	for (i = first; rc == 0 && i < count; i++) {
		snprintf(dev, sizeof(dev), "%s/%s", dir, names[i]);
		snprintf(sub, sizeof(sub), "bundles/%s", names[i]);
		if (pull_files(p, dev, NULL, sub, 1, BUNDLE_FILE_MAX, &outcome, &reached, why,
			       sizeof(why)) < 0)
			rc = -1;
		snprintf(dev, sizeof(dev), "%s/%s/rings", dir, names[i]);
		snprintf(sub, sizeof(sub), "bundles/%s/rings", names[i]);
		if (rc == 0 && (got = pull_rings(p, NULL, dev, sub, &refused, &reached, why,
						 sizeof(why))) < 0)
			rc = -1;
		else if (rc == 0)
			rings += got;
		snprintf(dev, sizeof(dev), "%s/%s/traces", dir, names[i]);
		snprintf(sub, sizeof(sub), "bundles/%s/traces", names[i]);
		if (rc == 0 && pull_files(p, dev, NULL, sub, 0, ANR_MAX, &outcome, &reached, why,
					  sizeof(why)) < 0)
			rc = -1;
		if (rc == 0 && !cJSON_AddItemToArray(list, cJSON_CreateString(names[i])))
			rc = local_error(p, "manifest", "out of memory");
	}
	free(b.data);
	*n = (long)(count - first);
	return rc < 0 ? -1 : rings;
}

static int collect_rings(struct pull *p)
{
	char prefix[NAME_MAX_LEN + 16], ext_dir[NAME_MAX_LEN + 64], runas_why[512] = "";
	char why[512] = "", bundles[NAME_MAX_LEN + 96];
	const char *which = p->process ? " of process " : "";
	const char *proc = p->process ? p->process : "";
	int refused, reached;
	long got, in_bundles = 0, nbundles = 0;

	snprintf(prefix, sizeof(prefix), "run-as %s", p->package);
	got = pull_rings(p, prefix, "files", "rings", &refused, &reached, runas_why,
			 sizeof(runas_why));
	if (got < 0)
		return -1;
	if (refused && !reached) /* adb could not reach the device: no use trying more */
		return add_missing(p, "rings", 1, "%s", runas_why);
	if (!refused) {
		p->nrings = (size_t)got;
		if (got == 0)
			return add_missing(p, "rings", 1, "no ring file%s%s in the app's files directory",
					   which, proc);
		return cJSON_AddStringToObject(p->manifest, "rings_from", "run-as") ? 0
		       : local_error(p, "manifest", "out of memory");
	}

	/* Not debuggable (or run-as refused): the app may have copied its
	 * rings to getExternalFilesDir(), which the shell can read, and its
	 * Collector packs bundles there. */
	snprintf(ext_dir, sizeof(ext_dir), "/sdcard/Android/data/%s/files", p->package);
	snprintf(bundles, sizeof(bundles), "%s/lastwords/bundles", ext_dir);
	got = pull_rings(p, NULL, ext_dir, "rings", &refused, &reached, why, sizeof(why));
	if (got < 0 || (in_bundles = collect_bundles(p, bundles, &nbundles)) < 0)
		return -1;
	p->nrings = (size_t)(got + in_bundles);
	if (nbundles)
		say(p, "run-as failed (%s); %ld bundle%s of the app's Collector taken from '%s'",
		    runas_why, nbundles, nbundles == 1 ? "" : "s", bundles);
	if (got > 0 || in_bundles > 0) {
		if (got > 0)
			say(p, "run-as failed (%s); rings taken from '%s'", runas_why, ext_dir);
		return cJSON_AddStringToObject(p->manifest, "rings_from", got > 0 ? ext_dir : bundles)
			       ? 0
			       : local_error(p, "manifest", "out of memory");
	}
	return add_missing(p, "rings", 1,
			   "%s; build a debuggable variant of the app (android:debuggable), or have it "
			   "pack its rings with dev.lastwords.android.Collector (%s) or copy them to "
			   "getExternalFilesDir() (%s), which pull also reads (%s%s%s)",
			   runas_why[0] ? runas_why : "run-as failed", bundles, ext_dir,
			   refused ? why : "no ring file", refused ? "" : which, refused ? "" : proc);
}

/* --- evidence --------------------------------------------------------- */

/* One output file that must be there: missing when the command fails;
 * recorded as empty (and not written, since the report reads no empty
 * file) when it printed nothing. */
static int collect_one(struct pull *p, const char *rel, const char *what, const char *cmdline,
		       size_t cap, int empty_ok)
{
	char why[512] = "";
	int rc = fetch(p, rel, cmdline, cap, why, sizeof(why));

	if (rc < 0)
		return -1;
	if (rc == FETCH_FAILED || (rc == FETCH_EMPTY && !empty_ok))
		return add_missing(p, what, 1, "%s", why);
	if (rc == FETCH_EMPTY && !cJSON_AddItemToArray(p->empty, cJSON_CreateString(rel)))
		return local_error(p, "manifest", "out of memory");
	return 0;
}

/* Tombstones or ANR traces, in one call: usually unreadable without
 * root, which is recorded as missing but not required. */
static int collect_dir(struct pull *p, const char *devdir, const char *skip, const char *sub,
		       const char *what, unsigned long long max_file)
{
	char why[512] = "";
	int outcome, reached;

	if (pull_files(p, devdir, skip, sub, 0, max_file, &outcome, &reached, why, sizeof(why)) < 0)
		return -1;
	if (outcome == DIR_REFUSED)
		return add_missing(p, what, 0, "%s%s", why,
				   reached ? " (readable on rooted or userdebug devices, or in adb "
					     "bugreport)"
					   : "");
	return 0;
}

/* --- the bug report -------------------------------------------------- */

/* Have bugreportz make the zip: 0 with its device path in z->path, 1 when
 * it did not (*why says why), -1 on a local failure. */
static int make_bugreport(struct pull *p, struct bugreportz *z, char *why, size_t len)
{
	char err[512];
	struct adb_result res;
	struct adb_buf b;
	int rc, reached = 0, major, minor;
	const char *problem;

	rc = capture(p, "bugreportz -v", CAP_SMALL, &b, err, sizeof(err), &reached);
	if (rc > 0)
		snprintf(why, len, "%s%.400s%s", reached ? "bugreportz -v failed: " : "", err,
			 reached ? " (zipped bug reports need Android 7.0 or later)" : "");
	if (rc != 0)
		return rc;
	rc = bugreportz_version(b.data, &major, &minor);
	if (rc != 0) /* a device shell that has no bugreportz may still exit 0 */
		snprintf(why, len, "bugreportz -v printed '%.80s': zipped bug reports need "
				   "Android 7.0 or later", b.data);
	free(b.data);
	if (rc != 0)
		return 1;
	/* 1.0 (Android 7.0) has no -p: no progress, only the OK: line. */
	bugreportz_init(z, p->progress, p->ctx);
	say(p, "bug report: bugreportz %d.%d is making it on the device; this takes minutes%s",
	    major, minor, major == 1 && minor == 0 ? " (this version tells no progress)" : "");
	rc = adb_exec(&p->adb, major == 1 && minor == 0 ? "bugreportz" : "bugreportz -p", &z->sink,
		      CAP_PROPS, &res);
	bugreportz_finish(z);
	if (z->percent >= 0)
		p->progress(p->ctx, -1);
	if (rc != 0)
		return start_error(p, rc);
	if (res.status == ADB_TIMED_OUT)
		snprintf(why, len, "still being made at the deadline (%d s): give pull a longer "
				   "--timeout", p->adb.timeout_s);
	else if (z->fail[0])
		snprintf(why, len, "bugreportz failed: %s", z->fail);
	else if (res.status != 0)
		snprintf(why, len, "bugreportz failed: %.400s", res.err);
	else if (!z->ok)
		snprintf(why, len, "bugreportz ended without naming its zip (no OK: line%s%s)",
			 z->unknown ? "; it printed: " : "", z->first_unknown);
	else if ((problem = bugreportz_path_problem(z->path)) != NULL)
		snprintf(why, len, "bugreportz named '%.200s', which is not copied: %s", z->path,
			 problem);
	else
		return 0;
	return 1;
}

/* The bug report zip, into bugreport/NAME.zip; required once asked for. */
static int collect_bugreport(struct pull *p)
{
	char cmd[BUGREPORTZ_PATH_MAX * 4 + 8], rel[BUGREPORTZ_PATH_MAX + 16], why[512] = "";
	struct bugreportz z;
	int rc = make_bugreport(p, &z, why, sizeof(why));

	if (rc < 0)
		return -1;
	if (rc > 0)
		return add_missing(p, "bug report", 1, "%s", why);
	snprintf(rel, sizeof(rel), "bugreport/%s", bugreportz_name(z.path));
	strcpy(cmd, "cat ");
	if (adb_quote(cmd + 4, sizeof(cmd) - 4, z.path) != 0 || ensure_dir(p, "bugreport") != 0)
		return local_error(p, z.path, "cannot be copied");
	say(p, "bug report: copying %s", bugreportz_name(z.path));
	rc = fetch(p, rel, cmd, CAP_BUGREPORT, why, sizeof(why));
	if (rc < 0)
		return -1;
	if (rc != FETCH_OK)
		return add_missing(p, "bug report", 1, "%s could not be copied: %s", z.path, why);
	p->got_bugreport = 1;
	return 0;
}

/* --- the bundle ------------------------------------------------------- */

/* Is path absent (0), an empty directory (1), or something else (-1)? */
static int dir_state(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int empty = 1;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty ? 1 : -1;
}

static int write_manifest(struct pull *p)
{
	char *text, *path = join(p->work, "manifest.json");
	FILE *f;
	int rc = 0;

	if (!path)
		return local_error(p, "manifest", "out of memory");
	if (!cJSON_AddBoolToObject(p->manifest, "complete", p->required_missing == 0) ||
	    !(text = json_serialize(p->manifest, 1))) {
		free(path);
		return local_error(p, "manifest", "out of memory");
	}
	f = fopen(path, "wx");
	if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0)
		rc = local_error(p, path, strerror(errno));
	if (f && fclose(f) != 0 && rc == 0)
		rc = local_error(p, path, strerror(errno));
	free(text);
	free(path);
	return rc;
}

static int start_manifest(struct pull *p)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	p->manifest = cJSON_CreateObject();
	if (!p->manifest || !cJSON_AddStringToObject(p->manifest, "kind", "lastwords-pull") ||
	    !cJSON_AddNumberToObject(p->manifest, "version", 1) ||
	    !cJSON_AddStringToObject(p->manifest, "package", p->package) ||
	    !(p->process ? cJSON_AddStringToObject(p->manifest, "process", p->process)
			 : cJSON_AddNullToObject(p->manifest, "process")) ||
	    !cJSON_AddStringToObject(p->manifest, "pulled_at", when) ||
	    (p->scenario && !cJSON_AddStringToObject(p->manifest, "scenario", p->scenario)) ||
	    !(p->files = cJSON_AddArrayToObject(p->manifest, "files")) ||
	    !(p->empty = cJSON_AddArrayToObject(p->manifest, "empty")) ||
	    !(p->missing = cJSON_AddArrayToObject(p->manifest, "missing")))
		return local_error(p, "manifest", "out of memory");
	return 0;
}

int pull_collect(struct pull *p)
{
	char exitinfo[NAME_MAX_LEN + 32];

	snprintf(exitinfo, sizeof(exitinfo), "dumpsys activity exit-info %s", p->package);
	if (start_manifest(p) != 0 || collect_props(p) != 0 || collect_tz(p) != 0 ||
	    collect_rings(p) != 0 ||
	    collect_one(p, "exit-info.txt", "exit-info", exitinfo, CAP_EXIT_INFO, 0) != 0 ||
	    /* -v UTC -v year: each line says its year and zone (" +0000"). */
	    collect_one(p, "logcat.txt", "logcat",
			"logcat -d -b main,system,crash -v threadtime -v UTC -v year", CAP_LOG, 1) != 0 ||
	    collect_one(p, "events.txt", "event log",
			"logcat -d -b events -v threadtime -v UTC -v year", CAP_LOG, 1) != 0 ||
	    collect_dir(p, "/data/tombstones", "*.pb", "tombstones", "tombstones",
			TOMBSTONE_MAX) != 0 ||
	    collect_dir(p, "/data/anr", NULL, "anr", "ANR traces", ANR_MAX) != 0 ||
	    (p->bugreport && collect_bugreport(p) != 0))
		return -1;
	return write_manifest(p);
}

int pull_prepare(struct pull *p, const char *dir)
{
	size_t n = strlen(dir);
	int st;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	p->work = malloc(n + sizeof(".partial"));
	if (!p->work)
		return local_error(p, dir, "out of memory");
	sprintf(p->work, "%.*s.partial", (int)n, dir);
	if (dir_state(dir) < 0) {
		say(p, "'%s' already exists and is not an empty directory: choose another -o", dir);
		return -1;
	}
	st = dir_state(p->work);
	if (st < 0) {
		say(p, "'%s' exists (an earlier partial pull?): remove it or choose another -o",
		    p->work);
		return -1;
	}
	if (st == 0 && mkdir(p->work, 0755) != 0)
		return local_error(p, p->work, strerror(errno));
	return 0;
}

void pull_set_deadline(struct pull *p, int timeout_s)
{
	adb_set_deadline(&p->adb, timeout_s ? timeout_s
					     : ADB_DEFAULT_TIMEOUT_S +
						       (p->bugreport ? BUGREPORT_TIMEOUT_S : 0));
}

int pull_publish(struct pull *p, const char *dir)
{
	return rename(p->work, dir) == 0 ? 0 : -errno;
}

void pull_release(struct pull *p)
{
	cJSON_Delete(p->manifest);
	p->manifest = NULL;
	free(p->work);
	p->work = NULL;
}
