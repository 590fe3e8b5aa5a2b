/*
 * The bundle's crash frames made readable before the report is built:
 * native frames by build id (--symbols, symbols/symbolize.h), Java stacks
 * by an R8 mapping (--mapping, symbols/r8-mapping.h). The records keep
 * both the raw and the readable form.
 */
#ifndef LW_ANALYZER_SYMBOLICATE_H
#define LW_ANALYZER_SYMBOLICATE_H

#include "bundle.h"
#include "correlate.h"

/* What symbolication did, for the notes of the report. */
struct symbolicate_notes {
	size_t symbol_files;        /* ELF files indexed by build id */
	size_t native_frames;       /* frames of the bundle's tombstones */
	size_t native_symbolicated;
	size_t java_frames;         /* frames of its Java crashes */
	size_t java_retraced;
};

/* Apply opt's --symbols and --mapping to every tombstone and Java crash
 * of b (nothing when neither is given). Returns 0, or -1 with err (a
 * mapping that cannot be read, naming the file and the line; a symbols
 * directory that cannot be read; ENOMEM). */
int bundle_symbolicate(struct bundle *b, const struct corr_options *opt,
		       struct symbolicate_notes *notes, char *err, size_t errlen);

#endif
