/*
 * The bundle's crash frames made readable (symbolicate.h): every frame of
 * every thread of every tombstone by build id.
 */
#include <stdio.h>
#include <string.h>

#include "symbolicate.h"
#include "symbols/symbolize.h"

static int frames_symbolicate(struct symbols *s, struct frame *v, size_t n,
			      struct symbolicate_notes *notes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int rc = symbols_frame(s, &v[i]);

		if (rc < 0)
			return -1;
		notes->native_frames++;
		notes->native_symbolicated += (size_t)rc;
	}
	return 0;
}

/* Every tombstone frame of b by the symbols of opt. */
static int symbolicate_native(struct bundle *b, const struct corr_options *opt,
			      struct symbolicate_notes *notes, char *err, size_t errlen)
{
	struct symbols *s;
	size_t i, k, t;
	int rc = 0;

	if (!opt->nsymbol_dirs)
		return 0;
	if (symbols_open(opt->symbol_dirs, opt->nsymbol_dirs, &s, err, errlen) != 0)
		return -1;
	notes->symbol_files = symbols_files(s);
	for (i = 0; rc == 0 && i < b->nfiles; i++)
		for (k = 0; rc == 0 && k < b->files[i].ntombstones; k++) {
			struct tombstone *tb = &b->files[i].tombstones[k];

			rc = frames_symbolicate(s, tb->frames, tb->nframes, notes);
			for (t = 0; rc == 0 && t < tb->nthreads; t++)
				rc = frames_symbolicate(s, tb->threads[t].frames, tb->threads[t].nframes,
							notes);
		}
	symbols_close(s);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int bundle_symbolicate(struct bundle *b, const struct corr_options *opt,
		       struct symbolicate_notes *notes, char *err, size_t errlen)
{
	memset(notes, 0, sizeof(*notes));
	if (errlen)
		err[0] = '\0';
	return symbolicate_native(b, opt, notes, err, errlen);
}
