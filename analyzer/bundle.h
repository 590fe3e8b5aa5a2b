/*
 * A bundle: everything pulled from one device, given as files and
 * directories (walked recursively, in name order). Each file is detected
 * and loaded: rings become runs, the rest evidence files. A file that
 * cannot be read is kept as an input with its error; the others still load.
 * Never prints.
 */
#ifndef LW_ANALYZER_BUNDLE_H
#define LW_ANALYZER_BUNDLE_H

#include <stddef.h>

#include "evidence/evidence.h"
#include "run.h"

struct bundle_input {
	char *path;
	enum ev_kind kind;
	char error[240]; /* empty when it loaded */
	size_t error_line;
	int unopened;    /* the error is the system's: it could not be opened or read */
};

struct bundle {
	struct run *runs;         /* sorted by process, then start time */
	size_t nruns;
	struct ev_file *files;
	size_t nfiles;
	struct bundle_input *inputs;
	size_t ninputs;
	/* From the manifest.json that `lastwords pull` writes: the device's
	 * offset from UTC, when it holds one, and the device. */
	int have_tz;
	int64_t tz_offset_ms;
	int have_manifest;
	int complete;              /* 0: the manifest says a required part is missing */
	char device_model[96];     /* empty when unknown */
	char android_version[32];
	char fingerprint[192];
	/* A digest of the bundle's content: each file's path below the input
	 * it was found under and its bytes (after gunzip), in walk order; the
	 * manifest is left out. The same files give the same digest wherever
	 * they are copied. */
	uint64_t digest;
};

/* Load paths into *b. Returns 0, or -1 on ENOMEM (b is then released). */
int bundle_load(char *const *paths, size_t npaths, struct bundle *b);

size_t bundle_errors(const struct bundle *b);

/* Accepts a zeroed bundle. */
void bundle_release(struct bundle *b);

#endif
