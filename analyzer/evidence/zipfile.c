/* A zip archive read through libzip: entries listed and read as streams. */
#include "zipfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

struct zipfile {
	zip_t *za;
	size_t n;
	char **names;      /* the raw names, as the archive holds them */
	uint64_t *sizes;   /* declared plain sizes */
	uint64_t declared; /* the declared plain sizes of the entries opened so far */
};

static int fail(struct ev_error *err, const char *fmt, ...)
{
	va_list ap;

	err->line = 0;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return -1;
}

int zipfile_sniff(const char *buf, size_t len)
{
	/* a local file header, or the end of central directory of an empty
	 * archive */
	return len >= 4 && buf[0] == 'P' && buf[1] == 'K' &&
	       ((buf[2] == 3 && buf[3] == 4) || (buf[2] == 5 && buf[3] == 6));
}

/* Why an archive could not be opened, for people. */
static const char *open_reason(int code)
{
	switch (code) {
	case ZIP_ER_NOZIP:
		return "not a whole zip archive: its end of central directory is missing "
		       "(truncated?)";
	case ZIP_ER_INCONS:
		return "the zip archive is inconsistent: its central directory and its entries "
		       "disagree (damaged or truncated)";
	case ZIP_ER_MULTIDISK:
		return "a zip archive split over several disks, which is not read";
	case ZIP_ER_MEMORY:
		return "out of memory";
	default:
		return NULL;
	}
}

/* An archive that libzip refused for two entries of one name (ZIP_ER_EXISTS),
 * opened again without that check at fd to find the name: the reason.
 * Closes fd. */
static int duplicate_name(int fd, struct ev_error *err)
{
	zip_int64_t n, i;
	zip_t *za = NULL;
	int code = 0;

	if (lseek(fd, 0, SEEK_SET) != 0 || (za = zip_fdopen(fd, 0, &code)) == NULL) {
		close(fd);
		return fail(err, "%s", "two entries of one name: which one is meant is not known");
	}
	n = zip_get_num_entries(za, 0);
	for (i = 0; i < n; i++) {
		const char *name = zip_get_name(za, (zip_uint64_t)i, 0);

		if (name && zip_name_locate(za, name, 0) != i)
			break;
	}
	if (i < n)
		fail(err, "two entries named '%.160s': which one is meant is not known",
		     zip_get_name(za, (zip_uint64_t)i, 0));
	else
		fail(err, "%s", "two entries of one name: which one is meant is not known");
	zip_discard(za); /* closes fd */
	return -1;
}

int zipfile_open(const char *path, struct zipfile **out, struct ev_error *err)
{
	struct zipfile *z;
	struct stat sb;
	zip_error_t ze;
	zip_int64_t n;
	int fd, code = 0;
	size_t i;

	fd = input_open(path, &sb, err);
	if (fd < 0)
		return -1;
	z = calloc(1, sizeof(*z));
	if (!z) {
		close(fd);
		return fail(err, "%s", strerror(ENOMEM));
	}
	z->za = zip_fdopen(fd, ZIP_CHECKCONS, &code);
	if (!z->za) {
		const char *why = open_reason(code);

		free(z);
		if (code == ZIP_ER_EXISTS)
			return duplicate_name(fd, err);
		close(fd);
		if (why)
			return fail(err, "%s", why);
		zip_error_init_with_code(&ze, code);
		fail(err, "cannot read the zip archive: %s", zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return -1;
	}
	n = zip_get_num_entries(z->za, 0);
	z->n = n > 0 ? (size_t)n : 0;
	z->names = calloc(z->n ? z->n : 1, sizeof(*z->names));
	z->sizes = calloc(z->n ? z->n : 1, sizeof(*z->sizes));
	if (!z->names || !z->sizes) {
		zipfile_close(z);
		return fail(err, "%s", strerror(ENOMEM));
	}
	for (i = 0; i < z->n; i++) {
		zip_stat_t st;

		zip_stat_init(&st);
		if (zip_stat_index(z->za, i, ZIP_FL_ENC_RAW, &st) != 0 ||
		    !(st.valid & ZIP_STAT_NAME)) {
			zipfile_close(z);
			return fail(err, "the zip archive's central directory cannot be read: "
					 "entry %zu has no name", i);
		}
		z->names[i] = strdup(st.name);
		z->sizes[i] = st.valid & ZIP_STAT_SIZE ? st.size : 0;
		if (!z->names[i]) {
			zipfile_close(z);
			return fail(err, "%s", strerror(ENOMEM));
		}
	}
	*out = z;
	return 0;
}

size_t zipfile_count(const struct zipfile *z)
{
	return z->n;
}

const char *zipfile_name(const struct zipfile *z, size_t i)
{
	return z->names[i];
}

uint64_t zipfile_size(const struct zipfile *z, size_t i)
{
	return z->sizes[i];
}

const char *zipfile_name_problem(const char *name)
{
	const char *p = name;

	if (!*name)
		return "an empty name";
	if (name[0] == '/' || (name[0] && name[1] == ':'))
		return "an absolute name";
	for (; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "a name with a control character";
		if (*p == '\\')
			return "a name with a backslash";
	}
	for (p = name; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return "a name that climbs out with '..'";
	}
	return NULL;
}

int64_t zipfile_find(const struct zipfile *z, const char *name)
{
	size_t i;

	for (i = 0; i < z->n; i++)
		if (strcmp(z->names[i], name) == 0)
			return (int64_t)i;
	return -1;
}

/* Why reading an entry failed, for people. */
static void read_reason(zip_error_t *ze, struct ev_error *err)
{
	switch (zip_error_code_zip(ze)) {
	case ZIP_ER_CRC:
		fail(err, "%s", "its CRC does not match its bytes: the archive is damaged");
		break;
	case ZIP_ER_ZLIB:
	case ZIP_ER_COMPRESSED_DATA:
		fail(err, "%s", "its compressed data is corrupt: the archive is damaged");
		break;
	case ZIP_ER_EOF:
		fail(err, "%s", "the archive ends inside it (truncated)");
		break;
	case ZIP_ER_INCONS:
		fail(err, "%s", "its size does not match its directory entry: the archive is damaged");
		break;
	case ZIP_ER_READ:
	case ZIP_ER_SEEK:
		fail(err, "cannot read it: %s", strerror(zip_error_code_system(ze)));
		break;
	default:
		fail(err, "cannot read it: %s", zip_error_strerror(ze));
	}
}

static ssize_t entry_read(void *arg, char *dst, size_t n, struct ev_error *err)
{
	struct zipfile_entry *e = arg;
	zip_int64_t got = zip_fread(e->f, dst, n);

	if (got < 0) {
		read_reason(zip_file_get_error(e->f), err);
		return -1;
	}
	e->plain += (uint64_t)got;
	if (e->plain > e->size)
		return fail(err, "a zip bomb: it inflates past the %llu bytes its directory "
				 "entry declares",
			    (unsigned long long)e->size);
	return (ssize_t)got;
}

/* Open (again) the entry's data, from its first byte. */
static int entry_start(struct zipfile_entry *e, struct ev_error *err)
{
	if (e->f)
		zip_fclose(e->f);
	e->plain = 0;
	e->f = zip_fopen_index(e->z->za, e->index, 0);
	if (!e->f) {
		zip_error_t *ze = zip_get_error(e->z->za);

		switch (zip_error_code_zip(ze)) {
		case ZIP_ER_NOPASSWD:
		case ZIP_ER_WRONGPASSWD:
		case ZIP_ER_ENCRNOTSUPP:
			return fail(err, "%s", "encrypted: lastwords reads no encrypted entry");
		case ZIP_ER_COMPNOTSUPP: {
			zip_stat_t st;

			zip_stat_init(&st);
			if (zip_stat_index(e->z->za, e->index, ZIP_FL_ENC_RAW, &st) == 0 &&
			    (st.valid & ZIP_STAT_COMP_METHOD))
				return fail(err, "compressed by method %u, which this build of libzip "
						 "does not read",
					    (unsigned)st.comp_method);
			return fail(err, "%s", "compressed by a method that is not read");
		}
		default:
			read_reason(ze, err);
			return -1;
		}
	}
	return 0;
}

static int entry_rewind(void *arg, struct ev_error *err)
{
	return entry_start(arg, err);
}

int zipfile_entry_open(struct zipfile *z, size_t i, struct zipfile_entry *e, struct input *in,
		       struct ev_error *err)
{
	struct input_source src = { entry_read, entry_rewind, e, NULL, NULL, NULL };
	const char *problem = zipfile_name_problem(z->names[i]);
	char size[32], limit[32];
	zip_stat_t st;

	memset(e, 0, sizeof(*e));
	if (problem)
		return fail(err, "an entry with %s: never read", problem);
	zip_stat_init(&st);
	if (zip_stat_index(z->za, i, ZIP_FL_ENC_RAW, &st) == 0 &&
	    (st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
		return fail(err, "%s", "encrypted: lastwords reads no encrypted entry");
	if (z->sizes[i] > ZIPFILE_ENTRY_MAX) {
		input_size_text(size, sizeof(size), z->sizes[i]);
		input_size_text(limit, sizeof(limit), ZIPFILE_ENTRY_MAX);
		return fail(err, "a zip bomb: it declares %llu bytes (%s), more than the %s an "
				 "entry may inflate to",
			    (unsigned long long)z->sizes[i], size, limit);
	}
	if (z->declared + z->sizes[i] > ZIPFILE_TOTAL_MAX) {
		input_size_text(size, sizeof(size), z->declared + z->sizes[i]);
		input_size_text(limit, sizeof(limit), ZIPFILE_TOTAL_MAX);
		return fail(err, "a zip bomb: with it, the entries read from the archive declare "
				 "%llu bytes (%s), more than the %s they may inflate to together",
			    (unsigned long long)(z->declared + z->sizes[i]), size, limit);
	}
	e->z = z;
	e->index = i;
	e->size = z->sizes[i];
	if (entry_start(e, err) != 0) {
		memset(e, 0, sizeof(*e));
		return -1;
	}
	z->declared += z->sizes[i];
	input_init_source(in, &src);
	return 0;
}

void zipfile_entry_close(struct zipfile_entry *e)
{
	if (e->f)
		zip_fclose(e->f);
	memset(e, 0, sizeof(*e));
}

void zipfile_close(struct zipfile *z)
{
	size_t i;

	if (!z)
		return;
	if (z->za)
		zip_discard(z->za);
	for (i = 0; z->names && i < z->n; i++)
		free(z->names[i]);
	free(z->names);
	free(z->sizes);
	free(z);
}
