/*
 * lastwords pull --package PKG [--serial S] [--process NAME] -o DIR
 *
 * Collects a bundle from a device with the adb client (or the program the
 * ADB environment variable names): the app's rings (run-as, or the app's
 * external files directory), dumpsys activity exit-info, logcat's main,
 * system, crash and events buffers, tombstones and ANR traces where they
 * can be read, and manifest.json: the device, the time-zone offset, the
 * lmkd kill-report properties, the files written and what is missing.
 *
 * The bundle is written into DIR.partial and renamed to DIR only when
 * nothing required is missing. A partial pull stays in DIR.partial, with
 * "complete": false in its manifest, and exits PULL_EXIT_PARTIAL: it never
 * looks complete. An existing non-empty DIR or DIR.partial is never touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "../src/run-name.h"
#include "adb.h"
#include "commands.h"

static const char usage[] =
	"lastwords pull --package PKG [--serial S] [--process NAME] [--timeout SECONDS] -o DIR";

/* Exit statuses of pull, after the shared ones of commands.h (lastwords(1)). */
enum pull_exit {
	PULL_EXIT_NO_ADB = 5,     /* the adb client cannot be run */
	PULL_EXIT_NO_DEVICE = 6,  /* no device, or not one that can be used */
	PULL_EXIT_DEVICES = 7,    /* several devices and no --serial */
	PULL_EXIT_PACKAGE = 8,    /* the package is not installed */
	PULL_EXIT_PARTIAL = 9,    /* something required is missing: DIR.partial */
	PULL_EXIT_OUTPUT = 10,    /* DIR exists, or the bundle cannot be written */
};

#define NAME_MAX_LEN 200

struct pull {
	struct adb adb;
	const char *package;
	const char *process; /* NULL: every process */
	char *work;          /* DIR.partial */
	cJSON *manifest;
	cJSON *files;        /* [{"path", "bytes"}] */
	cJSON *missing;      /* [{"what", "reason", "required"}] */
	cJSON *empty;        /* outputs that came back empty, not written */
	int required_missing;
	size_t nrings;
};

/* A failure of our own (out of memory, cannot write the bundle): the pull
 * stops with PULL_EXIT_OUTPUT. */
static int local_error(const char *what, const char *reason)
{
	fprintf(stderr, "lastwords: %s: %s\n", what, reason);
	return -1;
}

/* A package name as Android spells it; it goes into device shell command
 * lines, so nothing else may pass. */
static int valid_package(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_'))
			return 0;
	return i > 0 && i <= NAME_MAX_LEN;
}

/* A file name from a device listing that is safe to put in a shell command
 * line and a local path: no slash, no leading dot, no shell characters. */
static int safe_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > NAME_MAX_LEN || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-' ||
		      s[i] == ':' || s[i] == '+' || s[i] == ','))
			return 0;
	return 1;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The first line of text, for a one-line message. */
static void first_line(char *dst, size_t len, const char *text)
{
	size_t n = strcspn(text, "\r\n");

	if (n >= len)
		n = len - 1;
	memcpy(dst, text, n);
	dst[n] = '\0';
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
		return local_error("manifest", "out of memory");
	}
	cJSON_AddItemToArray(p->missing, m);
	if (required)
		p->required_missing++;
	fprintf(stderr, "lastwords: %s %s%s: %s\n", required ? "missing" : "no", what,
		required ? "" : " (optional)", reason);
	return 0;
}

static int add_file(struct pull *p, const char *rel, long long bytes)
{
	cJSON *f = cJSON_CreateObject();

	if (!f || !cJSON_AddStringToObject(f, "path", rel) ||
	    !cJSON_AddNumberToObject(f, "bytes", (double)bytes)) {
		cJSON_Delete(f);
		return local_error("manifest", "out of memory");
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

/* Make work/sub once. */
static int ensure_dir(struct pull *p, const char *sub)
{
	char *path = join(p->work, sub);
	int rc = 0;

	if (!path)
		return local_error(sub, "out of memory");
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		rc = local_error(path, strerror(errno));
	free(path);
	return rc;
}

/* What an adb call that could not be started means for the pull. */
static int start_error(int rc)
{
	fprintf(stderr, "lastwords: cannot run adb: %s\n", strerror(-rc));
	return -1;
}

enum fetch { FETCH_OK, FETCH_FAILED, FETCH_EMPTY };

/* Run adb with its stdout into work/rel. FETCH_OK: the file is kept and
 * listed; FETCH_FAILED: removed, *why says why; FETCH_EMPTY: removed.
 * A device-side error printed on stdout (exec-out has no exit status) is
 * caught by its prefix: "run-as:", "cat:", "ls:". Returns -1 on a local
 * failure. */
static int fetch(struct pull *p, const char *rel, const char *const *args, char *why,
		 size_t whylen)
{
	struct adb_result res;
	char head[256];
	char *path = join(p->work, rel);
	struct stat st;
	ssize_t n;
	int fd, rc;

	if (!path)
		return local_error(rel, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		rc = local_error(path, strerror(errno));
		goto free_path;
	}
	rc = adb_run(&p->adb, args, fd, &res);
	if (rc != 0) {
		close(fd);
		unlink(path);
		rc = start_error(rc);
		goto free_path;
	}
	if (fstat(fd, &st) != 0 || (n = pread(fd, head, sizeof(head) - 1, 0)) < 0) {
		rc = local_error(path, strerror(errno));
		close(fd);
		goto free_path;
	}
	head[n] = '\0';
	if (close(fd) != 0) {
		rc = local_error(path, strerror(errno));
		goto free_path;
	}
	if (res.status != 0 || strncmp(head, "run-as:", 7) == 0 || strncmp(head, "cat:", 4) == 0 ||
	    strncmp(head, "ls:", 3) == 0) {
		if (res.status != 0 && res.err[0])
			first_line(why, whylen, res.err);
		else if (head[0] && res.status == 0)
			first_line(why, whylen, head);
		else
			snprintf(why, whylen, "adb exited with status %d", res.status);
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

/* Run adb and keep its stdout. Returns 0 (free *out), 1 when adb failed
 * (*why set), -1 on a local failure. */
static int capture(struct pull *p, const char *const *args, char **out, char *why, size_t whylen)
{
	struct adb_result res;
	size_t len;
	int rc = adb_capture(&p->adb, args, out, &len, &res);

	if (rc != 0)
		return start_error(rc);
	if (res.status != 0) {
		if (res.err[0])
			first_line(why, whylen, res.err);
		else if (**out)
			first_line(why, whylen, *out);
		else
			snprintf(why, whylen, "adb exited with status %d", res.status);
		free(*out);
		*out = NULL;
		return 1;
	}
	return 0;
}

/* --- the device ------------------------------------------------------- */

/* Find the device: the one given by --serial, or the only one attached.
 * Returns 0 with *serial (free()), or the exit status. */
static int find_device(struct pull *p, const char *want, char **serial)
{
	static const char *const args[] = { "devices", NULL };
	struct adb_result res;
	char *out, *line, *save = NULL, *found = NULL, *state_of_want = NULL;
	size_t len, n = 0;
	int rc = adb_capture(&p->adb, args, &out, &len, &res);

	if (rc == -ENOENT) {
		fprintf(stderr, "lastwords: adb not found ('%s'): install the Android platform tools "
				"(Debian: apt install adb), or set ADB to the adb binary\n",
			p->adb.program);
		return PULL_EXIT_NO_ADB;
	}
	if (rc != 0) {
		fprintf(stderr, "lastwords: cannot run adb ('%s'): %s\n", p->adb.program,
			strerror(-rc));
		return PULL_EXIT_NO_ADB;
	}
	if (res.status != 0) {
		fprintf(stderr, "lastwords: adb devices failed: %s\n",
			res.err[0] ? res.err : "no message");
		free(out);
		return PULL_EXIT_NO_DEVICE;
	}
	rc = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = line + strspn(line, " \t"), *state;

		if (!*s || *s == '*' || strncmp(s, "List of devices", 15) == 0)
			continue;
		state = s + strcspn(s, " \t");
		if (*state)
			*state++ = '\0';
		state += strspn(state, " \t");
		state[strcspn(state, " \t\r")] = '\0';
		if (want) {
			if (strcmp(s, want) == 0)
				state_of_want = state;
			continue;
		}
		if (n++ == 0)
			found = s;
		else if (n == 2)
			fprintf(stderr, "lastwords: several devices are attached (%s, %s", found, s);
		else
			fprintf(stderr, ", %s", s);
		if (n == 1)
			state_of_want = state;
	}
	if (want && !state_of_want) {
		fprintf(stderr, "lastwords: no device '%s' (see adb devices)\n", want);
		rc = PULL_EXIT_NO_DEVICE;
	} else if (!want && n == 0) {
		fprintf(stderr, "lastwords: no device attached (see adb devices)\n");
		rc = PULL_EXIT_NO_DEVICE;
	} else if (!want && n > 1) {
		fprintf(stderr, "): choose one with --serial\n");
		rc = PULL_EXIT_DEVICES;
	} else if (strcmp(state_of_want, "device") != 0) {
		fprintf(stderr, "lastwords: device '%s' is %s, not ready (see adb devices)\n",
			want ? want : found, state_of_want[0] ? state_of_want : "in an unknown state");
		rc = PULL_EXIT_NO_DEVICE;
	} else {
		*serial = strdup(want ? want : found);
		if (!*serial) {
			local_error("adb devices", "out of memory");
			rc = PULL_EXIT_OUTPUT;
		}
	}
	free(out);
	return rc;
}

/* Is the package installed? pm path prints "package:/data/app/..." for it. */
static int check_package(struct pull *p)
{
	const char *args[] = { "shell", "pm", "path", p->package, NULL };
	char why[256] = "", *out;
	int rc = capture(p, args, &out, why, sizeof(why));

	if (rc < 0)
		return PULL_EXIT_OUTPUT;
	if (rc == 0 && strstr(out, "package:")) {
		free(out);
		return 0;
	}
	if (rc == 0)
		free(out);
	fprintf(stderr, "lastwords: package '%s' is not installed on '%s'%s%s\n", p->package,
		p->adb.serial, why[0] ? ": " : "", why);
	return PULL_EXIT_PACKAGE;
}

/* getprop's "[key]: [value]" lines into the manifest's device object. */
static int collect_props(struct pull *p)
{
	static const char *const args[] = { "shell", "getprop", NULL };
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
	char why[256] = "", *out, *line, *save = NULL;
	const char *reportkills = NULL;
	size_t i, nlmk = 0;
	int rc;

	if (!lmkprops || !cJSON_AddStringToObject(device, "serial", p->adb.serial))
		return local_error("manifest", "out of memory");
	rc = capture(p, args, &out, why, sizeof(why));
	if (rc < 0)
		return -1;
	if (rc > 0)
		return add_missing(p, "device properties", 1, "getprop failed: %s", why);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
	free(out);
	if (!cJSON_GetObjectItem(device, "model") || !cJSON_GetObjectItem(device, "android_version"))
		return add_missing(p, "device properties", 1,
				   "getprop printed no ro.product.model or ro.build.version.release");
	if (nlmk == 0)
		return add_missing(p, "lmkd properties", 0, "no ro.lmk.*, sys.lmk.* or persist.sys.lmk.* property");
	return 0;
nomem:
	free(out);
	return local_error("manifest", "out of memory");
}

/* The device's UTC offset, as date +%z prints it: "+0100". */
static int collect_tz(struct pull *p)
{
	static const char *const args[] = { "shell", "date", "+%z", NULL };
	char why[256] = "", *out;
	size_t n;
	int rc = capture(p, args, &out, why, sizeof(why));

	if (rc < 0)
		return -1;
	if (rc > 0)
		return add_missing(p, "time-zone offset", 1, "date +%%z failed: %s", why);
	n = strcspn(out, "\r\n");
	out[n] = '\0';
	if (n != 5 || (out[0] != '+' && out[0] != '-') || strspn(out + 1, "0123456789") != 4) {
		rc = add_missing(p, "time-zone offset", 1, "date +%%z printed '%.40s'", out);
	} else if (!cJSON_AddStringToObject(p->manifest, "tz_offset", out)) {
		rc = local_error("manifest", "out of memory");
	}
	free(out);
	return rc;
}

/* --- rings ------------------------------------------------------------ */

/* Pull each *.lwr named in a listing; cat_prefix is the adb command that
 * prints one of them, which the name completes. Returns the number pulled,
 * or -1 on a local failure. */
static long pull_rings(struct pull *p, char *listing, const char *const *cat_args, size_t name_arg,
		       const char *cat_dir)
{
	char prefix[LW_RING_PROCESS_MAX + 2], *line, *save = NULL;
	const char *args[8];
	size_t plen = 0, i;
	long got = 0;

	if (p->process) {
		run_name_process(prefix, LW_RING_PROCESS_MAX, p->process);
		plen = strlen(prefix);
		prefix[plen++] = '.';
		prefix[plen] = '\0';
	}
	for (line = strtok_r(listing, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char devpath[NAME_MAX_LEN + 128], rel[NAME_MAX_LEN + 8], why[256];
		size_t len = strcspn(line, "\r");
		int rc;

		line[len] = '\0';
		if (!safe_name(line, len) || !ends_with(line, len, ".lwr"))
			continue;
		if (plen && strncmp(line, prefix, plen) != 0)
			continue;
		if (got == 0 && ensure_dir(p, "rings") != 0)
			return -1;
		snprintf(devpath, sizeof(devpath), "%s/%s", cat_dir, line);
		snprintf(rel, sizeof(rel), "rings/%s", line);
		for (i = 0; cat_args[i]; i++)
			args[i] = cat_args[i];
		args[name_arg] = devpath;
		args[i] = NULL;
		rc = fetch(p, rel, args, why, sizeof(why));
		if (rc < 0)
			return -1;
		if (rc == FETCH_OK)
			got++;
		else if (add_missing(p, rel, 1, "%s", why) != 0)
			return -1;
	}
	return got;
}

static int collect_rings(struct pull *p)
{
	static const char list_cmd[] = "'cd files && ls *.lwr'";
	const char *list_args[] = { "exec-out", "run-as", p->package, "sh", "-c", list_cmd, NULL };
	const char *cat_args[] = { "exec-out", "run-as", p->package, "cat", "", NULL };
	char ext_dir[NAME_MAX_LEN + 64], runas_why[256] = "", why[256] = "", *out;
	const char *ext_list[] = { "shell", "ls", ext_dir, NULL };
	const char *ext_cat[] = { "exec-out", "cat", "", NULL };
	const char *which = p->process ? " of process " : "";
	const char *proc = p->process ? p->process : "";
	long got;
	int rc;

	rc = capture(p, list_args, &out, runas_why, sizeof(runas_why));
	if (rc < 0)
		return -1;
	if (rc == 0 && strncmp(out, "run-as:", 7) == 0) {
		first_line(runas_why, sizeof(runas_why), out);
		free(out);
		rc = 1;
	}
	if (rc == 0) {
		got = pull_rings(p, out, cat_args, 4, "files");
		free(out);
		if (got < 0)
			return -1;
		p->nrings = (size_t)got;
		if (got == 0)
			return add_missing(p, "rings", 1, "no ring file%s%s in the app's files directory",
					   which, proc);
		return cJSON_AddStringToObject(p->manifest, "rings_from", "run-as") ? 0
		       : local_error("manifest", "out of memory");
	}

	/* Not debuggable (or run-as refused): the app may have copied its
	 * rings to getExternalFilesDir(), which the shell can read. */
	snprintf(ext_dir, sizeof(ext_dir), "/sdcard/Android/data/%s/files", p->package);
	rc = capture(p, ext_list, &out, why, sizeof(why));
	if (rc < 0)
		return -1;
	got = 0;
	if (rc == 0) {
		got = pull_rings(p, out, ext_cat, 2, ext_dir);
		free(out);
		if (got < 0)
			return -1;
	}
	p->nrings = (size_t)got;
	if (got > 0) {
		fprintf(stderr, "lastwords: run-as failed (%s); rings taken from '%s'\n", runas_why,
			ext_dir);
		return cJSON_AddStringToObject(p->manifest, "rings_from", ext_dir) ? 0
		       : local_error("manifest", "out of memory");
	}
	return add_missing(p, "rings", 1,
			   "%s; build a debuggable variant of the app (android:debuggable), or have it "
			   "copy its rings to getExternalFilesDir() (%s), which pull also reads (no "
			   "ring file%s%s there)",
			   runas_why[0] ? runas_why : "run-as failed", ext_dir, which, proc);
}

/* --- evidence --------------------------------------------------------- */

/* One output file that must be there: missing when adb fails; recorded as
 * empty (and not written, since the report reads no empty file) when it
 * printed nothing. */
static int collect_one(struct pull *p, const char *rel, const char *what, const char *const *args,
		       int empty_ok)
{
	char why[256] = "";
	int rc = fetch(p, rel, args, why, sizeof(why));

	if (rc < 0)
		return -1;
	if (rc == FETCH_FAILED || (rc == FETCH_EMPTY && !empty_ok))
		return add_missing(p, what, 1, "%s", why);
	if (rc == FETCH_EMPTY && !cJSON_AddItemToArray(p->empty, cJSON_CreateString(rel)))
		return local_error("manifest", "out of memory");
	return 0;
}

/* Tombstones or ANR traces: usually unreadable without root, which is
 * recorded as missing but not required. */
static int collect_dir(struct pull *p, const char *devdir, const char *sub, const char *what)
{
	const char *list_args[] = { "shell", "ls", devdir, NULL };
	const char *cat_args[] = { "exec-out", "cat", "", NULL };
	char why[256] = "", *out, *line, *save = NULL;
	size_t n = 0;
	int rc = capture(p, list_args, &out, why, sizeof(why));

	if (rc < 0)
		return -1;
	if (rc > 0 || strncmp(out, "ls:", 3) == 0) {
		if (rc == 0) {
			first_line(why, sizeof(why), out);
			free(out);
		}
		return add_missing(p, what, 0, "%s (readable on rooted or userdebug devices, or in "
					       "adb bugreport)", why);
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char devpath[NAME_MAX_LEN + 64], rel[NAME_MAX_LEN + 32];
		size_t len = strcspn(line, "\r");

		line[len] = '\0';
		if (!safe_name(line, len))
			continue;
		if (ends_with(line, len, ".pb")) /* protobuf twins of the text tombstones */
			continue;
		if (n == 0 && ensure_dir(p, sub) != 0)
			goto fail;
		snprintf(devpath, sizeof(devpath), "%s/%s", devdir, line);
		snprintf(rel, sizeof(rel), "%s/%s", sub, line);
		cat_args[2] = devpath;
		rc = fetch(p, rel, cat_args, why, sizeof(why));
		if (rc < 0)
			goto fail;
		if (rc == FETCH_OK)
			n++;
		else if (add_missing(p, rel, 0, "%s", why) != 0)
			goto fail;
	}
	free(out);
	return 0;
fail:
	free(out);
	return -1;
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
		return local_error("manifest", "out of memory");
	if (!cJSON_AddBoolToObject(p->manifest, "complete", p->required_missing == 0) ||
	    !(text = cJSON_Print(p->manifest))) {
		free(path);
		return local_error("manifest", "out of memory");
	}
	f = fopen(path, "wx");
	if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0)
		rc = local_error(path, strerror(errno));
	if (f && fclose(f) != 0 && rc == 0)
		rc = local_error(path, strerror(errno));
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
	    !(p->files = cJSON_AddArrayToObject(p->manifest, "files")) ||
	    !(p->empty = cJSON_AddArrayToObject(p->manifest, "empty")) ||
	    !(p->missing = cJSON_AddArrayToObject(p->manifest, "missing")))
		return local_error("manifest", "out of memory");
	return 0;
}

static int collect(struct pull *p)
{
	const char *exitinfo[] = { "shell", "dumpsys", "activity", "exit-info", p->package, NULL };
	static const char *const logcat[] = { "logcat", "-d", "-b", "main,system,crash",
					      "-v", "threadtime", NULL };
	static const char *const events[] = { "logcat", "-d", "-b", "events", "-v", "threadtime",
					      NULL };

	if (start_manifest(p) != 0 || collect_props(p) != 0 || collect_tz(p) != 0 ||
	    collect_rings(p) != 0 ||
	    collect_one(p, "exit-info.txt", "exit-info", exitinfo, 0) != 0 ||
	    collect_one(p, "logcat.txt", "logcat", logcat, 1) != 0 ||
	    collect_one(p, "events.txt", "event log", events, 1) != 0 ||
	    collect_dir(p, "/data/tombstones", "tombstones", "tombstones") != 0 ||
	    collect_dir(p, "/data/anr", "anr", "ANR traces") != 0)
		return -1;
	return write_manifest(p);
}

/* Where the bundle goes: DIR must be absent or empty, DIR.partial too. */
static int prepare_output(const char *dir, char **work)
{
	size_t n = strlen(dir);
	int st;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	*work = malloc(n + sizeof(".partial"));
	if (!*work)
		return local_error(dir, "out of memory");
	sprintf(*work, "%.*s.partial", (int)n, dir);
	if (dir_state(dir) < 0) {
		fprintf(stderr, "lastwords: '%s' already exists and is not an empty directory: "
				"choose another -o\n", dir);
		return -1;
	}
	st = dir_state(*work);
	if (st < 0) {
		fprintf(stderr, "lastwords: '%s' exists (an earlier partial pull?): remove it or "
				"choose another -o\n", *work);
		return -1;
	}
	if (st == 0 && mkdir(*work, 0755) != 0)
		return local_error(*work, strerror(errno));
	return 0;
}

int cmd_pull(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "package", required_argument, NULL, 'p' },
		{ "serial", required_argument, NULL, 's' },
		{ "process", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pull p = { 0 };
	const char *dir = NULL, *want = NULL, *env = getenv("ADB");
	char *serial = NULL;
	int c, status, timeout_s = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p.package = optarg;
			break;
		case 's':
			want = optarg;
			break;
		case 'P':
			p.process = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 't': {
			char *end;
			long t = strtol(optarg, &end, 10);

			if (*end || t < 1 || t > 3600)
				return usage_error(usage, "--timeout takes seconds (1 to 3600), not '%s'",
						   optarg);
			timeout_s = (int)t;
			break;
		}
		default:
			return help_or_bad_option(c, usage, argc, argv);
		}
	}
	if (optind < argc)
		return usage_error(usage, "unexpected argument '%s'", argv[optind]);
	if (!p.package)
		return usage_error(usage, "pull needs --package");
	if (!valid_package(p.package))
		return usage_error(usage, "'%s' is not a package name", p.package);
	if (!dir || !*dir)
		return usage_error(usage, "pull needs -o DIR");
	if (p.process && !*p.process)
		return usage_error(usage, "--process needs a process name");
	if (want && (!*want || want[0] == '-'))
		return usage_error(usage, "'%s' is not a serial", want);
	p.adb.program = env && *env ? env : "adb";
	p.adb.timeout_s = timeout_s;

	if (prepare_output(dir, &p.work) != 0) {
		free(p.work);
		return PULL_EXIT_OUTPUT;
	}
	status = find_device(&p, want, &serial);
	if (status == 0) {
		p.adb.serial = serial;
		status = check_package(&p);
	}
	if (status != 0) {
		rmdir(p.work); /* empty: nothing was pulled */
		goto free_all;
	}
	if (collect(&p) != 0) {
		fprintf(stderr, "lastwords: pull stopped; what it got is in '%s'\n", p.work);
		status = PULL_EXIT_OUTPUT;
		goto free_all;
	}
	if (p.required_missing) {
		fprintf(stderr, "lastwords: partial pull: %d required item%s missing; the bundle is "
				"in '%s', with \"complete\": false in its manifest.json\n",
			p.required_missing, p.required_missing == 1 ? "" : "s", p.work);
		status = PULL_EXIT_PARTIAL;
		goto free_all;
	}
	if (rename(p.work, dir) != 0) {
		fprintf(stderr, "lastwords: cannot rename '%s' to '%s': %s\n", p.work, dir,
			strerror(errno));
		status = PULL_EXIT_OUTPUT;
		goto free_all;
	}
	printf("%s: %zu ring%s, exit-info, logcat and event log of %s from %s\n", dir, p.nrings,
	       p.nrings == 1 ? "" : "s", p.package, serial);
free_all:
	cJSON_Delete(p.manifest);
	free(serial);
	free(p.work);
	return status;
}
