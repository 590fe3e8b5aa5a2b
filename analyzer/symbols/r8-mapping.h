/*
 * Java stacks deobfuscated with an R8 or ProGuard mapping.txt (report
 * --mapping FILE): class and method renames, line-number ranges, and the
 * frames R8 inlined into one, in the format R8 documents
 * (r8/doc/retrace.md and "Mapping file format": "orig.Class -> a.b:",
 * "    1:3:void m(int):10:12 -> a", "# {"id":"com.android.tools.r8..."}").
 * A frame the mapping does not cover is left as it is. Overloads of one
 * obfuscated name are told apart by the frame's line; what stays ambiguous
 * is kept, one frame per answer (java_frame.ambiguous): r8-mapping.c's top
 * comment says how each frame is read.
 */
#ifndef LW_ANALYZER_SYMBOLS_R8_MAPPING_H
#define LW_ANALYZER_SYMBOLS_R8_MAPPING_H

#include "../evidence/evidence.h"

struct r8_mapping;

/* Read a mapping file. Returns 0 with *out, or -1 with err (the line and
 * the reason: a line that is none of the format's, ENOMEM, a read error).
 * Release with r8_mapping_free(). */
int r8_mapping_load(const char *path, struct r8_mapping **out, struct ev_error *err);

/* Retrace a java_crash's stack (e->stack[i].retraced) and its exception
 * class (e->reason_retraced; an am_crash's too), replacing what an earlier
 * call set. Returns how many lines of the stack were retraced ("Caused by:"
 * lines whose class it names included), or -1 on ENOMEM (what was set
 * stays, freed with the record). m is only read. */
int r8_retrace_event(const struct r8_mapping *m, struct log_event *e);

void r8_mapping_free(struct r8_mapping *m);

#endif
