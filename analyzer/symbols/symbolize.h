/*
 * Native frames symbolicated by build id (report --symbols DIR): each DIR
 * holds the app's unstripped shared libraries, or a .build-id/xx/rest.debug
 * tree (as `objcopy --only-keep-debug` and distributions lay them out). A
 * frame is symbolicated only from a file whose GNU build id is the one the
 * tombstone wrote for its library: never by file name alone. Read through
 * elfutils' libdwfl (function, file, line and the inlined frames).
 */
#ifndef LW_ANALYZER_SYMBOLS_SYMBOLIZE_H
#define LW_ANALYZER_SYMBOLS_SYMBOLIZE_H

#include <stddef.h>

#include "../evidence/evidence.h"

struct symbols;

/* Why a frame was left as it is (frame.why_not), one of these. */
extern const char SYM_NO_BUILD_ID[];   /* the tombstone writes no build id for it */
extern const char SYM_NOT_FOUND[];     /* no file of the symbols has its build id */
extern const char SYM_NAME_MISMATCH[]; /* a file of its name has another build id */
extern const char SYM_NO_DEBUG_INFO[]; /* the file matched, but says nothing of the pc */

/* Index the ELF files under dirs by build id (the files of each directory
 * and its .build-id tree, to a depth of 8). An unreadable or non-ELF file
 * is passed over. Returns 0 with *out, or -1 with the reason in err
 * (ENOMEM, a directory that cannot be read). Release with symbols_close(). */
int symbols_open(char *const *dirs, size_t n, struct symbols **out, char *err, size_t errlen);

/* Symbolicate one frame: fr->lines when its build id matched, else
 * fr->why_not. Returns 1 symbolicated, 0 left as it is, -1 on ENOMEM. */
int symbols_frame(struct symbols *s, struct frame *fr);

/* What the index holds, for the notes: files indexed by build id. */
size_t symbols_files(const struct symbols *s);

void symbols_close(struct symbols *s);

/* Whether a frame's library is the app's own: installed with it (under
 * /data/app/, /data/data/, /data/user/), inside an APK, or a path that
 * names no place (a bare "libfoo.so", as a hand-written tombstone has).
 * Not: any other absolute path (the system's partitions, /data/local/tmp),
 * no library, "<unknown>" or a "[...]" mapping (the stack, JIT code,
 * [vdso]), whose pc moves from run to run. */
int library_is_app(const char *library);

/* A frame for people, into buf like snprintf: "#NN function (file:line),
 * inlined in outer (file:line)  libfoo.so" when it was symbolicated, else
 * "#NN libfoo.so +0xPC (symbol as written)". at stands for a frame
 * without an index. Does not allocate. */
int frame_format(const struct frame *fr, size_t at, char *buf, size_t len);

/* A library's base name: after its last '/', and after a '!' (a library
 * stored in an APK: base.apk!libfoo.so); "?" for NULL or "". */
const char *library_base(const char *library);

#endif
