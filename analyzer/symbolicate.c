/*
 * bundle_symbolicate(): the native half (--symbols: every frame of every
 * thread of each tombstone, by build id) and the Java half (--mapping:
 * each Java crash's stack and exception class by the R8 mapping), each its
 * own function. Both annotate the records in place and keep what was
 * written.
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "symbolicate.h"
#include "symbols/r8-mapping.h"
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

/* --mapping: every logcat FATAL EXCEPTION's stack and exception class, and
 * every am_crash's exception class (am_crash names no method: its throw
 * file and line cannot be retraced). */
static int symbolicate_java(struct bundle *b, const struct corr_options *opt,
			    struct symbolicate_notes *notes, char *err, size_t errlen)
{
	struct r8_mapping *m;
	struct ev_error e;
	size_t i, k;
	int rc = 0;

	if (!opt->mapping)
		return 0;
	if (r8_mapping_load(opt->mapping, &m, &e) != 0) {
		if (e.line)
			snprintf(err, errlen, "'%s': line %zu: %s", fmt_text(opt->mapping), e.line,
				 fmt_text(e.reason));
		else
			snprintf(err, errlen, "'%s': %s", fmt_text(opt->mapping), fmt_text(e.reason));
		return -1;
	}
	for (i = 0; i < b->nfiles && rc == 0; i++) {
		struct ev_file *f = &b->files[i];

		for (k = 0; k < f->nlogs; k++) {
			struct log_event *ev = &f->logs[k];
			int n;

			if (ev->type != LOG_JAVA_CRASH && ev->type != LOG_EV_AM_CRASH)
				continue;
			if (log_event_native_crash(ev))
				continue;
			if ((n = r8_retrace_event(m, ev)) < 0) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			notes->java_frames += ev->nstack;
			notes->java_retraced += (size_t)n;
		}
	}
	r8_mapping_free(m);
	return rc;
}

int bundle_symbolicate(struct bundle *b, const struct corr_options *opt,
		       struct symbolicate_notes *notes, char *err, size_t errlen)
{
	memset(notes, 0, sizeof(*notes));
	if (errlen)
		err[0] = '\0';
	if (symbolicate_native(b, opt, notes, err, errlen) != 0)
		return -1;
	return symbolicate_java(b, opt, notes, err, errlen);
}
