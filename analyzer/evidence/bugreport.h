/*
 * The main text of an `adb bugreport`: dumpstate's output, which the zip's
 * main_entry.txt names (frameworks/native/cmds/dumpstate). It is read once,
 * as a stream, and cut into the pieces that hold evidence, each handed out
 * as an input of its own lines for the parser of its kind:
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
 * LOG); the radio, stats and kernel buffers hold no evidence. VM TRACES AT
 * LAST ANR is an ANR trace (not VM TRACES JUST NOW, dumps of live
 * processes), TOMBSTONE a tombstone (older dumpstate printed them in the
 * text), and `dumpsys activity exit-info` exit records. In the DUMPSYS
 * sections, each service's dump starts at "DUMP OF SERVICE NAME:" and ends
 * at "--------- N.NNNs was the duration of dumpsys NAME, ending at: ...":
 * the activity service's holds the exit-info section, and the alarm
 * service's "nowRTC=<ms>=<local time>" line gives the zone's offset when
 * the report was taken. SYSTEM PROPERTIES (getprop) gives the zone's name
 * (persist.sys.timezone), the device and its build. A piece also ends at
 * the next section or a line of '='. Every other section is counted and
 * skipped. Never prints.
 */
#ifndef LW_ANALYZER_BUGREPORT_H
#define LW_ANALYZER_BUGREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "input.h"

#define BUGREPORT_TITLE_MAX 96
#define BUGREPORT_TITLES_MAX 32 /* piece titles told apart by a number */

/* What the text says of the device and the report. Text that it lacks is
 * empty; numbers it lacks are EV_NONE. */
struct bugreport_info {
	char taken[24];          /* the header's "YYYY-MM-DD HH:MM:SS", local time */
	char format[16];         /* Bugreport format version: "2.0" */
	char fingerprint[192];   /* Build fingerprint (or ro.build.fingerprint) */
	int64_t sdk;             /* Android SDK version (or ro.build.version.sdk) */
	char release[32];        /* ro.build.version.release */
	char model[96];          /* ro.product.model */
	char zone[64];           /* persist.sys.timezone: an IANA name */
	int have_offset;         /* the zone's offset when the report was taken: */
	int64_t offset_ms;       /* local time minus UTC (dumpsys alarm's nowRTC) */
	size_t sections;         /* top-level sections seen */
	size_t pieces;           /* pieces of evidence handed out */
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
	/* the piece handed out */
	int piece_open, piece_end, piece_service;
	struct input piece;
	struct span pending;     /* of a line read, not yet given to the piece */
	int pending_nl;
	char title[BUGREPORT_TITLE_MAX + 8];
	char titles[BUGREPORT_TITLES_MAX][BUGREPORT_TITLE_MAX];
	unsigned title_uses[BUGREPORT_TITLES_MAX];
	size_t ntitles;
};

/* Whether the first bytes are a dumpstate header. */
int bugreport_sniff(const char *buf, size_t len);

/* Read text, from its first byte, with r; text must outlive r. */
void bugreport_init(struct bugreport_reader *r, struct input *text);

/*
 * The next piece of evidence: 1 with *out set, 0 at the end of the text,
 * or -1 when the text could not be read (text->err). A piece need not be
 * read to its end: what is left of it is skipped. r->info grows as the
 * text is read and is whole at the end. Allocates the piece's buffers.
 */
int bugreport_next(struct bugreport_reader *r, struct bugreport_piece *out);

/* Accepts a zeroed reader. */
void bugreport_release(struct bugreport_reader *r);

#endif
