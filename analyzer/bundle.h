/*
 * A bundle: everything pulled from one device, given as files and
 * directories (walked recursively, in name order, hidden files too). Each
 * file is detected and loaded: rings become runs, the rest evidence files.
 * A file that cannot be read is kept as an input with its error; the others
 * still load. A bundle's evidence is its own files (DESIGN.md, "Inputs"):
 * inside a directory, a symbolic link out of it or to a directory, a FIFO, a
 * socket or a device is skipped and named, never read (one given by name is
 * read, and refused unless it is a regular file). The same thing twice
 * counts once: a file with the same bytes as one read before is skipped, and
 * of two rings of one run (the same run id) the one with more records is
 * kept. A bug report (a zip, a directory that holds one unzipped, or its
 * main text) is read in memory, as streams, never extracted: each of its
 * pieces of evidence is an input of its own (struct bundle_bugreport).
 * Never prints.
 */
#ifndef LW_ANALYZER_BUNDLE_H
#define LW_ANALYZER_BUNDLE_H

#include <stddef.h>

#include "evidence/bugreport.h"
#include "evidence/evidence.h"
#include "runs/run.h"
#include "tz.h"

struct bundle_input {
	char *path;
	enum ev_kind kind;
	char error[240]; /* empty when it loaded */
	size_t error_line;
	int unopened;    /* the error is the system's: it could not be opened or read */
	/* Left out, and why (not an error): a link, a file that is not
	 * regular, or a copy of duplicate_of. Empty when it was read. */
	char skipped[160];
	char *duplicate_of;      /* the input it repeats, or NULL */
	const char *note;        /* a blank ring: ring_blank_text(); else NULL */
};

/* A device's zone as a source gives it: an IANA name (persist.sys.timezone)
 * that this system's tzdata holds, else the offset that the source saw.
 * unknown: a name that this tzdata lacks, for which that offset stands in
 * (right only for records of the same season); empty when none. */
struct bundle_zone {
	int known;               /* tz holds the zone */
	struct tz_zone tz;
	char unknown[TZ_NAME_MAX];
	char why[TZ_WHY_MAX];    /* why unknown was refused; empty: not in tzdata */
};

/* A bug report among the inputs (DESIGN.md, "Inputs"): a zip, a directory
 * that holds one unzipped, or its main text alone. Its pieces (the main
 * text's sections of evidence, its FS/data/tombstones and FS/data/anr
 * files) are inputs of their own, named "PATH:ENTRY" in a zip,
 * "TEXT:SECTION" in the text. */
struct bundle_bugreport {
	char *path;                  /* the input: the zip, the directory or the text */
	char *text;                  /* the main text's input; NULL when none was read */
	struct bugreport_info info;  /* what the main text says (zero when none was read) */
	/* Its entries that hold no evidence, not read (names below path;
	 * a directory not walked ends in '/'), in walk order. */
	char **unread;
	size_t nunread;
};

/* One entry of a manifest's "missing" list: what a pull could not get. */
struct bundle_missing {
	char *what;
	char *reason;
	int required;            /* it makes the pull partial */
};

struct bundle {
	struct run *runs;         /* sorted by process, then start time */
	size_t nruns;
	struct ev_file *files;
	size_t nfiles;
	struct bundle_input *inputs;
	size_t ninputs;
	/* The manifest.json of each pull that `lastwords pull` wrote, in walk
	 * order, but the first is the one nearest the top of its input (a
	 * pull's own, before the Collector bundles pulled into its bundles/).
	 * More than one: several pulls, read as one bundle, and the report
	 * says so; the zone and the device are the first's. Merged
	 * rather than split because a report reads all its inputs as one
	 * (`report pull-1 pull-2` asks for that), and what two pulls of one
	 * device share then counts once; `ingest` takes a pull per argument. */
	char **manifests;
	size_t nmanifests;
	size_t manifest_depth;     /* the first's directories below its input */
	/* The device's zone, as the first manifest nearest the top of its
	 * input gives it (persist.sys.timezone as "timezone", else
	 * "tz_offset"). */
	struct bundle_zone zone;
	int complete;              /* 0: a manifest says a required part is missing */
	struct bundle_missing *missing; /* every manifest's, in order */
	size_t nmissing;
	char device_model[96];     /* empty when unknown */
	char manufacturer[64];     /* ro.product.manufacturer, as device_model; empty when unknown */
	/* The release-gate scenario the manifest names (`pull --scenario`),
	 * as written (empty when none), and as an enum lw_scenario: 0 when
	 * none, -1 for a name the vocabulary does not have. */
	char scenario_name[40];
	int scenario;
	char android_version[32];
	/* The device's SDK level (ro.build.version.sdk): the manifest's
	 * device "sdk", or where no manifest names the device, the first bug
	 * report's; 0 when neither gives it. */
	int64_t sdk;
	char fingerprint[192];
	/* The bug reports among the inputs, in walk order; the zone the
	 * first one's main text gives (persist.sys.timezone, else its offset
	 * when it was taken). Where no manifest says, the first one's build
	 * and model are the device's. */
	struct bundle_bugreport *bugreports;
	size_t nbugreports;
	struct bundle_zone bugreport_zone;
	/* A digest of the bundle's content: each file's path below the input
	 * it was found under and its bytes (after gunzip), in walk order; the
	 * manifest is left out. The same files give the same digest wherever
	 * they are copied. */
	uint64_t digest;
};

/* Load paths into *b. Returns 0, or -1 on ENOMEM (b is then released). */
int bundle_load(char *const *paths, size_t npaths, struct bundle *b);

size_t bundle_errors(const struct bundle *b);

/* The release-gate scenario bundle b ran: its manifest's (b->scenario),
 * else the last scenario mark of the first of its rings that has one; 0
 * when neither names one. *from, when not NULL, gets "manifest", "mark" or
 * NULL. The gate places the bundle's runs by it; ingest stores it. */
int bundle_scenario(const struct bundle *b, const char **from);

/* Exit records in all of b's files: with b->nruns, whether the inputs hold
 * any data at all. */
size_t bundle_exit_records(const struct bundle *b);

/* Accepts a zeroed bundle. */
void bundle_release(struct bundle *b);

#endif
