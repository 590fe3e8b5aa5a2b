/*
 * An `adb bugreport` (frameworks/native/cmds/dumpstate): its layout, and
 * its main text cut into the pieces that hold evidence.
 *
 * A bug report zip holds its main text (the entry that main_entry.txt
 * names: "bugreport-<product>-<build>-<date>.txt"), copies of device files
 * under FS/ (FS/data/tombstones/tombstone_NN with their .pb twins,
 * FS/data/anr/anr_*) and files that hold no evidence (version.txt,
 * dumpstate_log.txt, proto/, FS/proc/, ...); bugreport_entry() tells them
 * apart by name. An unzipped one is the same files in a directory.
 *
 * The main text is dumpstate's output. It is read once, as a stream, and
 * cut into the pieces that hold evidence, each handed out as an input of
 * its own lines, numbered as in the text, for the parser of its kind:
 *
 *   ========================================================
 *   == dumpstate: 2025-06-10 14:45:01          (local time, no zone)
 *   ========================================================
 *   Build fingerprint: '...'   Android SDK version: 34   ...
 *   ------ TITLE (COMMAND) ------              a section...
 *   ------ 0.412s was the duration of 'TITLE' ------   ...and its end
 *
 * A section whose command is a logcat is logcat (SYSTEM LOG, LAST LOGCAT,
 * the crash buffer with them), or the event log with "-b events" (EVENT
 * LOG); the radio, stats and kernel buffers and the statistics (-S) hold
 * no evidence. VM TRACES AT LAST ANR is an ANR trace (not VM TRACES JUST
 * NOW, dumps of live processes), TOMBSTONE a tombstone (older dumpstate
 * printed them in the text), and `dumpsys activity exit-info` exit
 * records. Where dumpsys dumps its services, each starts at "DUMP OF
 * SERVICE NAME:" and ends at "--------- N.NNNs was the duration of dumpsys
 * NAME, ending at: ...": the activity service's holds the exit-info
 * section, and the alarm service's "nowRTC=<ms>=<local time>" line gives
 * the zone's offset when the report was taken. SYSTEM PROPERTIES (getprop)
 * gives the zone's name (persist.sys.timezone), the device and its build.
 * A piece also ends at the next section or a line of '='. Every other
 * section is listed and skipped; a line outside any section that is not
 * dumpstate's own (a layout not known) is counted and skipped. Never
 * prints.
 */
#ifndef LW_ANALYZER_BUGREPORT_H
#define LW_ANALYZER_BUGREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "input.h"

#define BUGREPORT_TITLE_MAX 96
#define BUGREPORT_TITLES_MAX 32    /* piece titles told apart by a number */
#define BUGREPORT_SECTIONS_MAX 4096 /* sections listed; more are counted */
#define BUGREPORT_MAIN_ENTRY "main_entry.txt"
/* The most of main_entry.txt that is read: the name of a zip entry it
 * gives has at most 65535 bytes (its length is 16 bits), and blanks
 * around it are trimmed. */
#define BUGREPORT_MAIN_ENTRY_MAX ((size_t)64 << 10)

/* What an entry of a bug report is, by its name (bugreport_entry). */
enum bugreport_entry_role {
	BUGREPORT_ENTRY_OTHER,     /* holds no evidence: not read */
	BUGREPORT_ENTRY_INDEX,     /* main_entry.txt, which names the main text */
	BUGREPORT_ENTRY_MAIN,      /* the main text */
	BUGREPORT_ENTRY_EVIDENCE,  /* a file of FS/data/tombstones or FS/data/anr */
	BUGREPORT_ENTRY_PROTOBUF,  /* a tombstone's protobuf twin (.pb), read as a tombstone;
				    * the correlation counts the pair once */
};

/* A section of the text, as listed for people. */
struct bugreport_section {
	char title[BUGREPORT_TITLE_MAX + 8]; /* as its piece is named: "SYSTEM LOG #2" */
	size_t line;                         /* its first line */
	enum ev_kind kind;                   /* EV_KIND_UNKNOWN: holds no evidence, skipped */
};

/* What the text says of the device and the report. Text that it lacks is
 * empty; numbers it lacks are EV_NONE. */
struct bugreport_info {
	char taken[24];          /* the header's "YYYY-MM-DD HH:MM:SS", local time */
	char format[16];         /* Bugreport format version: "2.0" */
	char fingerprint[192];   /* Build fingerprint (or ro.build.fingerprint) */
	int64_t sdk;             /* Android SDK version (or ro.build.version.sdk) */
	char release[32];        /* ro.build.version.release */
	char model[96];          /* ro.product.model */
	char manufacturer[64];   /* ro.product.manufacturer */
	char zone[64];           /* persist.sys.timezone: an IANA name */
	int have_offset;         /* the zone's offset when the report was taken: */
	int64_t offset_ms;       /* local time minus UTC (dumpsys alarm's nowRTC) */
	size_t sections;         /* sections seen, services handed out among them */
	size_t pieces;           /* pieces of evidence handed out */
	struct ev_stats stats;   /* the text's lines; skipped: those of no known layout */
	struct bugreport_section *list; /* the first BUGREPORT_SECTIONS_MAX sections */
	size_t nlist;
};

/* A piece of evidence: valid until the next bugreport_next(). */
struct bugreport_piece {
	const char *title;       /* "SYSTEM LOG", "DUMP OF SERVICE activity", "SYSTEM LOG #2" */
	enum ev_kind kind;
	struct input *in;        /* its lines, numbered as in the text */
};

struct bugreport_reader {
	struct input *text;
	struct bugreport_info info;
	/* the scan: the state of the section it is in, of the dumpsys
	 * service in it, and a line read from text but not yet scanned */
	int state, service;
	int held;
	struct span line;
	/* the piece handed out: an input of the text's own lines, where they
	 * lie (input_source), up to the line that ends it, held; as they
	 * were when its parser began to peek */
	int piece_open, piece_end, piece_service;
	struct input piece;
	int peek_end, peek_held;
	char title[BUGREPORT_TITLE_MAX + 8];
	char titles[BUGREPORT_TITLES_MAX][BUGREPORT_TITLE_MAX];
	unsigned title_uses[BUGREPORT_TITLES_MAX];
	size_t ntitles;
};

/* What the entry (a zip's, or a path below an unzipped bug report) named
 * name is; main is the main text's name (bugreport_main_name). */
enum bugreport_entry_role bugreport_entry(const char *name, const char *main);

/* Whether name may be the main text of a bug report whose main_entry.txt
 * is missing (the zips of Android M): "bugreport*.txt" at the top. */
int bugreport_main_candidate(const char *name);

/*
 * The name that main_entry.txt's bytes give: a heap copy (free it) in
 * *out, 0; or -1 with why set (ENOMEM, or a name that could not be an
 * entry at the top of the bug report: empty, absolute, with '/', "..", a
 * backslash or a control byte). Allocates.
 */
int bugreport_main_name(const char *bytes, size_t len, char **out, char *why, size_t whylen);

/* Whether the first bytes are a dumpstate header. */
int bugreport_sniff(const char *buf, size_t len);

/* Read text, from its first byte, with r; text must outlive r. */
void bugreport_init(struct bugreport_reader *r, struct input *text);

/*
 * The next piece of evidence: 1 with *out set, 0 at the end of the text,
 * or -1 when the text could not be read (text->err) or on ENOMEM. A piece
 * need not be read to its end: what is left of it is skipped. r->info
 * grows as the text is read and is whole at the end. Allocates.
 */
int bugreport_next(struct bugreport_reader *r, struct bugreport_piece *out);

/* Give the log lines of f, a piece of the text read with r, that write no
 * year (logcat's default) the year that puts them at or before the time
 * the header says the report was taken: logcat -d dumps what is already
 * there. Nothing when the header gives no time. */
void bugreport_date_logs(const struct bugreport_reader *r, struct ev_file *f);

/* Hand r's info over to *out (release it with bugreport_info_release()),
 * after the last bugreport_next(). */
void bugreport_take_info(struct bugreport_reader *r, struct bugreport_info *out);

/* Accepts a zeroed reader. */
void bugreport_release(struct bugreport_reader *r);

/* Accepts a zeroed info. */
void bugreport_info_release(struct bugreport_info *info);

#endif
