/*
 * Which GPU or NN runtime a native stack frame belongs to, from the library
 * it runs in (and, for libraries that bundle several runtimes, its symbol).
 *
 * The table lives in runtime-libs.c as data: rows of {library pattern,
 * symbol pattern, runtime name}, tried in order, the first match winning.
 * Patterns are globs ('*' any run, '?' one byte, case-insensitive) matched
 * against the library's base name: the part after the last '/', and after
 * the last '!' for a library inside an APK ("base.apk!libfoo.so"). To mark a
 * new runtime, add a row. Never prints.
 */
#ifndef LW_ANALYZER_RUNTIME_LIBS_H
#define LW_ANALYZER_RUNTIME_LIBS_H

#include <stddef.h>

#include "evidence.h"

/* The runtime of a frame in library (a mapping path as a tombstone writes
 * it, or NULL) at symbol (or NULL): a static name such as "tflite-gpu" or
 * "vulkan", or NULL when the frame is in none of them.
 * Context: not async-signal-safe; no allocation; no blocking. */
const char *rtlib_runtime(const char *library, const char *symbol);

/* Set frame.runtime for each of t's frames, and t->runtime_frames and
 * t->first_runtime (the runtime of the top-most marked frame).
 * Context: not async-signal-safe; no allocation; no blocking. */
void rtlib_mark(struct tombstone *t);

#endif
