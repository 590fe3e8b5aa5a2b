/*
 * The "key=value" fields of an ApplicationExitInfo as the platform writes
 * them, shared by the dump parser (aei-dump.c, which holds the code) and
 * the toString() parser (aei-tostring.c).
 *
 * One text segment holds any subset of a record's fields: the three field
 * lines of the compact dump (Android 13+), one line of the multi-line dump
 * (Android 11), or the tail of a toString() after "ApplicationExitInfo(".
 * Rules, from AOSP's ApplicationExitInfo.dump() and toString():
 *
 *  1. A key starts the segment or follows a space; it is a word followed by
 *     '='. A value runs to the space before the next key. Keys this code
 *     does not know end the value before them and are otherwise ignored.
 *  2. reason= and subreason= are read as their leading integer; the label
 *     in parentheses is never used, so unknown future codes stay numbers.
 *  3. description= is free text (spaces, parentheses, '='): it runs to the
 *     last " state=" whose value reads "empty" or "N bytes", else to the
 *     last " trace=" whose value reads "null" or a path, else to the end.
 *     "null" means no description.
 *  4. pss= and rss= are DebugUtils.sizeValueToString() of the kB value:
 *     rounded, with the default locale's decimal separator ("1.5GB",
 *     "12,5MB", "0,00"). Zero means never sampled and is kept as -1.
 *  5. state=empty is -1 bytes; state=N bytes is N. trace=null is NULL.
 *  6. anrInfo= (newest sources) is appended after the record's last line,
 *     so it may end a field line, stand alone, or have the next record's
 *     header glued after it: aei_anr_split() cuts it out of a line first.
 */
#ifndef LW_ANALYZER_AEI_FIELDS_H
#define LW_ANALYZER_AEI_FIELDS_H

#include <stdint.h>

#include "evidence.h"
#include "text.h"

/* Read the fields of seg into r (rules 1-5), replacing any it already has;
 * timestamp_text is kept as written and not parsed. Returns the number of
 * known keys found (0: not a field line), or -1 on ENOMEM. The strings are
 * r's, freed by ev_file_release(). Allocates; not async-signal-safe; does
 * not block. */
int aei_fields_parse(struct span seg, struct exit_record *r);

/* Cut the first " anrInfo=<AnrInfo(...)|null>" out of a line (rule 6):
 * *before is the text before it, *after the text after its value (both
 * trimmed, borrowed from line; either may be empty). When found, returns 1
 * and fills r's anr_* fields for an AnrInfo(...) (r may be NULL to only
 * split); returns 0, writing nothing, when the line has none. Does not
 * allocate or block. */
int aei_anr_split(struct span line, struct exit_record *r, struct span *before,
		  struct span *after);

/* A sizeValueToString() text as kB (rule 4): -1 when zero or unreadable.
 * Does not allocate or block. */
int64_t aei_size_kb(struct span s);

#endif
