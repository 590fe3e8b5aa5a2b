/*
 * The pull of a bundle from a device (pull.c): which device, is the package
 * there, and then the app's rings (run-as, its external files directory or
 * its Collector's bundles), exit-info, logcat, tombstones, ANR traces, the
 * bug report and manifest.json, into DIR.partial. lastwords pull
 * (cmd-pull.c) parses the options, calls these in turn and prints.
 *
 * Nothing here prints: what the pull has to say goes to say(), one line
 * without "lastwords: " nor its newline, with the device's text in it as
 * the device sent it (the printer makes it safe to show); the bug report's
 * progress goes to progress(), and progress(-1) ends it.
 */
#ifndef LW_DEVICE_PULL_H
#define LW_DEVICE_PULL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "adb.h"

/* Exit statuses of pull, after the shared ones of commands.h (lastwords(1)). */
enum pull_exit {
	PULL_EXIT_NO_ADB = 5,     /* the adb client cannot be run */
	PULL_EXIT_NO_DEVICE = 6,  /* no device, or not one that can be used */
	PULL_EXIT_DEVICES = 7,    /* several devices and no --serial */
	PULL_EXIT_PACKAGE = 8,    /* the package is not installed */
	PULL_EXIT_PARTIAL = 9,    /* something required is missing: DIR.partial */
	PULL_EXIT_OUTPUT = 10,    /* DIR exists, or the bundle cannot be written */
};

struct pull {
	/* Set by the caller (zeroed first), then adb.program, the deadline
	 * (pull_set_deadline()) and, once found, adb.serial. */
	struct adb adb;
	const char *package;  /* pull_valid_package() */
	const char *process;  /* NULL: every process */
	const char *scenario; /* the release-gate scenario run (--scenario), or NULL */
	int bugreport;        /* --bugreport */
	void (*say)(void *ctx, const char *line);
	void (*progress)(void *ctx, int percent); /* the bug report's, or -1: done */
	void *ctx;

	/* What the pull made. */
	char *work;          /* DIR.partial */
	cJSON *manifest;
	cJSON *files;        /* [{"path", "bytes"}] */
	cJSON *missing;      /* [{"what", "reason", "required"}] */
	cJSON *empty;        /* outputs that came back empty, not written */
	int required_missing;
	size_t nrings;
	int got_bugreport;   /* it is in bugreport/ */
	int adb_not_found;   /* PULL_EXIT_NO_ADB because there is no adb client */
};

/* Is s a package name as Android spells it? It goes into device shell
 * command lines, so nothing else may pass. */
int pull_valid_package(const char *s);

/* The deadline of the whole pull: timeout_s, or 0 for the default (longer
 * with --bugreport). */
void pull_set_deadline(struct pull *p, int timeout_s);

/* Make DIR.partial (p->work) where the bundle goes: DIR must be absent or
 * empty, DIR.partial too. 0, or -1 (said). */
int pull_prepare(struct pull *p, const char *dir);

/* The device: the one named want, or the only one attached. 0 with
 * *serial (free()), or the exit status (said, but for adb_not_found). */
int pull_find_device(struct pull *p, const char *want, char **serial);

/* Is the package installed on p->adb.serial? 0, or the exit status (said). */
int pull_check_package(struct pull *p);

/* Everything into p->work and its manifest.json; what is missing is in
 * the manifest, p->required_missing counts what was required. 0, or -1
 * when the pull stopped on a local failure (said). May block until the
 * deadline; allocates (pull_release()). */
int pull_collect(struct pull *p);

/* Rename the whole bundle to dir: 0 or -errno. */
int pull_publish(struct pull *p, const char *dir);

/* Free what the pull made; p itself is the caller's. */
void pull_release(struct pull *p);

#endif
