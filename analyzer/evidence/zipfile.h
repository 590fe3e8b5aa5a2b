/*
 * A zip archive (an `adb bugreport` zip), read as untrusted input through
 * libzip: its entries are listed, and one at a time read as a stream of
 * plain bytes (an input of input.h, inflated as it is read, in memory).
 * Nothing is ever written anywhere, so an entry's name is only a name;
 * one that could not be a relative path inside the archive (empty,
 * absolute, with a ".." part, a backslash or a control byte) is named as
 * such (zipfile_name_problem) and never read. Never prints.
 *
 * What stops a read, each with its own reason (lastwords(1), LIMITS):
 *  - an archive that is not whole or not consistent (no end of central
 *    directory: truncated; local headers that disagree with the central
 *    directory): zipfile_open() fails;
 *  - an encrypted entry, or one of a compression method libzip lacks;
 *  - a CRC that does not match the bytes, or deflate data that is corrupt
 *    or ends early;
 *  - a zip bomb: an entry that declares more than ZIPFILE_ENTRY_MAX plain
 *    bytes, entries read from one archive that together declare more than
 *    ZIPFILE_TOTAL_MAX, or an entry that inflates past the size it
 *    declares (so no archive inflates past ZIPFILE_TOTAL_MAX).
 */
#ifndef LW_ANALYZER_ZIPFILE_H
#define LW_ANALYZER_ZIPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "input.h"

#define ZIPFILE_ENTRY_MAX ((uint64_t)1 << 30) /* plain bytes of one entry */
#define ZIPFILE_TOTAL_MAX ((uint64_t)2 << 30) /* declared by the entries read from one archive */

struct zipfile;

/* An entry being read (zipfile_entry_open), embedded by the caller. */
struct zipfile_entry {
	struct zipfile *z;
	uint64_t index;
	struct zip_file *f;
	uint64_t size;     /* declared */
	uint64_t plain;    /* read so far */
};

/* Whether the first bytes of a file are those of a zip archive. */
int zipfile_sniff(const char *buf, size_t len);

/*
 * Open the zip archive at path, a regular file (input_open). Reads its
 * central directory and checks each entry's local header against it.
 * Returns 0 with *out set (free with zipfile_close()), or -1 with
 * err->reason saying why. Allocates; blocks on reads.
 */
int zipfile_open(const char *path, struct zipfile **out, struct ev_error *err);

size_t zipfile_count(const struct zipfile *z);

/* Entry i's name, as the archive holds it; valid until zipfile_close(). */
const char *zipfile_name(const struct zipfile *z, size_t i);

/* Entry i's declared sizes, plain and compressed. */
uint64_t zipfile_size(const struct zipfile *z, size_t i);

/* Why name cannot be read as a path inside the archive ("an absolute
 * name", "a name that climbs out with '..'", ...), or NULL when it can. */
const char *zipfile_name_problem(const char *name);

/* The entry named name (exactly), or -1. */
int64_t zipfile_find(const struct zipfile *z, const char *name);

/*
 * Read entry i as in, a stream of its plain bytes (input_init_source; gzip
 * data inside is inflated too). *e holds the entry's state: it must stay
 * where it is until zipfile_entry_close(), after input_release(in).
 * Returns 0, or -1 with err->reason set (encrypted, an unsupported method,
 * a bomb by its declared sizes, a name that zipfile_name_problem()
 * refuses); reads then fail with the reason (CRC, corrupt or truncated
 * data, a bomb that inflates past its declared size).
 * in can be read again (input_rewind) from its first byte.
 */
int zipfile_entry_open(struct zipfile *z, size_t i, struct zipfile_entry *e, struct input *in,
		       struct ev_error *err);

/* Accepts a zeroed entry. */
void zipfile_entry_close(struct zipfile_entry *e);

/* Accepts NULL. */
void zipfile_close(struct zipfile *z);

#endif
