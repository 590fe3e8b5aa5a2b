/*
 * Crash signatures: the same crash across runs and versions counted as
 * one. A signature is the first frames in the app's own code (symbolicated
 * when they were; module and offset otherwise), normalised, hashed.
 */
#ifndef LW_ANALYZER_SYMBOLS_SIGNATURE_H
#define LW_ANALYZER_SYMBOLS_SIGNATURE_H

#include <stddef.h>

#include "../evidence/evidence.h"

/* 16 hex digits and the NUL. */
#define CRASH_SIGNATURE_LEN 17
/* The normalised frames hashed, for people ("libfoo.so!crash_here <
 * libfoo.so!caller"), cut to this. */
#define CRASH_SIGNATURE_TEXT_MAX 512

/* The signature of a native crash, and of a Java crash (its exception's
 * class and its frames). 1 with sig (and text, the frames hashed), 0 when
 * the crash has no frame to sign. Do not allocate. */
int crash_signature_native(const struct tombstone *t, char sig[CRASH_SIGNATURE_LEN], char *text,
			   size_t textlen);
int crash_signature_java(const struct log_event *e, char sig[CRASH_SIGNATURE_LEN], char *text,
			 size_t textlen);

#endif
