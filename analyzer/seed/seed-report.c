/*
 * The seed's report: ../shared/seeds/lifecycle_probe.py, reproduced for
 * `lastwords report --format seed FILE`, stdout byte for byte and its
 * refusals with the same status and message.
 *
 * The script, step by step, and where each step is here:
 *  1. Path(arg).resolve() then is_file(): py_realpath() ports posixpath's
 *     non-strict realpath (symlinks resolved, ".." applied to what is
 *     resolved so far, lexically past a missing component); a symlink loop
 *     is RuntimeError, a missing path or anything but a regular file "event
 *     file does not exist", other stat() errors OSError.
 *  2. read_text() and json.loads(): seed-json.c, streaming, with Python's
 *     errors (UnicodeDecodeError, JSONDecodeError with its position,
 *     RecursionError, ValueError for ints over 4300 digits).
 *  3. "events must be a nonempty list".
 *  4. The loop over events, which stops at the first bad one: event.get on
 *     a non-dict is AttributeError; a list or dict as stage or reason is
 *     TypeError (unhashable); otherwise the four refusals with the index.
 *     isinstance(x, int) holds for true and false, which compare as 1 and
 *     0 and print as true and false; ints compare exactly, whatever their
 *     size. Duplicate keys: the last one counts.
 *  5. json.dumps(report, ensure_ascii=False, indent=2): every number printed
 *     passed an int check, so it is printed from its digits; every string
 *     printed is a stage or reason name or a recovery sentence.
 * All of it is checked before anything is printed, as the script builds
 * the whole report first: a JSON error after a bad event still wins.
 *
 * For an uncaught exception Python prints a traceback and exits 1; here only
 * its last line is printed ("AttributeError: 'int' object has no attribute
 * 'get'"), not the frames above it.
 *
 * Memory: the file is streamed; what is kept is one event's fields, the
 * peak, and the over-budget entries (24 bytes each plus their digits).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/vocab.h"
#include "seed-json.h"
#include "seed-report.h"

/* The script's sets: its stages are the vocabulary's stages but none, and
 * its reasons the exit classes plus "none". Listed by value so that a stage
 * or class added to the vocabulary later does not change the seed's. */
static const int seed_stages[] = {
	LW_STAGE_DOWNLOAD, LW_STAGE_LOAD, LW_STAGE_RUNTIME_PREPARE, LW_STAGE_DELEGATE_PREPARE,
	LW_STAGE_INFERENCE, LW_STAGE_CACHE, LW_STAGE_EXIT,
};
static const int seed_reasons[] = {
	LW_EXIT_LOW_MEMORY, LW_EXIT_ANR, LW_EXIT_NATIVE_CRASH, LW_EXIT_JAVA_CRASH,
	LW_EXIT_SYSTEM_RECLAIM, LW_EXIT_UNKNOWN,
};
#define SEED_REASON_NONE 0 /* the script's default, "none"; not an exit class */

enum { F_TIME, F_STAGE, F_RSS, F_BUDGET, F_SESSIONS, F_REASON, F_COUNT };
static const char *const field_names[F_COUNT] = {
	"time_ms", "stage", "rss_mb", "budget_mb", "sessions", "exit_reason",
};

/* An int as the script sees it: kind SJSON_INT, SJSON_TRUE or SJSON_FALSE
 * (a bool is an int), digits as struct sjson_int has them. */
struct sr_num {
	enum sjson_tok kind;
	int neg;
	size_t n;
	char d[SJSON_INT_DIGITS];
};

struct sr_field {
	enum sjson_tok tok; /* SJSON_END when the key is absent */
	struct sr_num num;  /* when tok is SJSON_INT, SJSON_TRUE or SJSON_FALSE */
	struct sjson_str str;
};

struct sr_over {
	uint64_t index;
	uint64_t off; /* rss digits in the arena */
	uint32_t n;
	uint8_t stage, kind, neg;
};

enum sr_refusal {
	SR_OK,
	SR_TIME,
	SR_STAGE,
	SR_MEMORY,
	SR_SESSIONS,
	SR_NOT_DICT,   /* AttributeError */
	SR_UNHASHABLE, /* TypeError */
	SR_NOMEM,      /* MemoryError */
};

/* A name to match decoded strings against, with its length. */
struct sr_name {
	const char *s;
	size_t n;
	int value;
};

#define N_STAGES (sizeof(seed_stages) / sizeof(seed_stages[0]))
#define N_REASONS (sizeof(seed_reasons) / sizeof(seed_reasons[0]) + 1)

struct seed_run {
	struct sr_name stages[N_STAGES], reasons[N_REASONS], fields[F_COUNT];
	struct sr_field f[F_COUNT];
	struct sr_num prev, peak_rss, peak_sessions;
	int have_peak, peak_stage, last_reason;
	struct sr_over *over;
	size_t nover, cap_over;
	char *arena;
	size_t narena, cap_arena;
	enum sr_refusal refusal;
	uint64_t refusal_index;
	const char *type_name;
};

/* --- Python's path handling --------------------------------------------- */

/* posixpath.join(a, b); NULL when out of memory. Free with free(). */
static char *py_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int sep = la > 0 && a[la - 1] != '/';
	char *s;

	if (b[0] == '/')
		return strdup(b);
	s = malloc(la + (size_t)sep + lb + 1);
	if (!s)
		return NULL;
	memcpy(s, a, la);
	if (sep)
		s[la] = '/';
	memcpy(s + la + (size_t)sep, b, lb + 1);
	return s;
}

/* posixpath.split(p)[0] and whether the tail is ".."; NULL when out of
 * memory. Free with free(). */
static char *py_split_head(const char *p, int *tail_is_pardir)
{
	const char *slash = strrchr(p, '/');
	size_t i = slash ? (size_t)(slash - p) + 1 : 0, k = i;

	*tail_is_pardir = strcmp(p + i, "..") == 0;
	while (k > 0 && p[k - 1] == '/')
		k--;
	/* rstrip('/') unless the head is all slashes */
	return strndup(p, k > 0 ? k : i);
}

struct py_seen {
	char **key, **val; /* val NULL: being resolved */
	size_t n, cap;
};

static long py_seen_find(const struct py_seen *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->key[i], key) == 0)
			return (long)i;
	return -1;
}

static long py_seen_add(struct py_seen *s, const char *key)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **k = realloc(s->key, cap * sizeof(*k)), **v;

		if (!k)
			return -1;
		s->key = k;
		v = realloc(s->val, cap * sizeof(*v));
		if (!v)
			return -1;
		s->val = v;
		s->cap = cap;
	}
	s->key[s->n] = strdup(key);
	if (!s->key[s->n])
		return -1;
	s->val[s->n] = NULL;
	return (long)s->n++;
}

static void py_seen_release(struct py_seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->key[i]);
		free(s->val[i]);
	}
	free(s->key);
	free(s->val);
}

/* os.readlink(); NULL on error (errno set). Free with free(). */
static char *py_readlink(const char *path)
{
	size_t cap = 256;

	for (;;) {
		char *s = malloc(cap);
		ssize_t n;

		if (!s)
			return NULL;
		n = readlink(path, s, cap);
		if (n < 0) {
			free(s);
			return NULL;
		}
		if ((size_t)n < cap) {
			s[n] = '\0';
			return s;
		}
		free(s);
		cap *= 2;
	}
}

/* posixpath._joinrealpath(path, rest, strict=False, seen): takes path,
 * returns the new one (NULL when out of memory or readlink fails; errno
 * set). Free with free(). */
static char *py_joinrealpath(char *path, const char *rest, struct py_seen *seen, int *ok)
{
	char *name = NULL, *newpath, *next, *target;
	long at;
	int sub_ok, pardir;

	*ok = 1;
	if (rest[0] == '/') {
		rest++;
		free(path);
		path = strdup("/");
	}
	while (path && *rest) {
		const char *sep = strchr(rest, '/');
		size_t n = sep ? (size_t)(sep - rest) : strlen(rest);

		free(name);
		name = strndup(rest, n);
		rest += sep ? n + 1 : n;
		if (!name)
			goto fail;
		if (!*name || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if (*path) {
				next = py_split_head(path, &pardir);
				free(path);
				path = next;
				if (path && pardir) {
					next = py_join(path, "../..");
					free(path);
					path = next;
				}
			} else {
				free(path);
				path = strdup("..");
			}
			continue;
		}
		newpath = py_join(path, name);
		if (!newpath)
			goto fail;
		{
			struct stat st;

			if (lstat(newpath, &st) != 0 || !S_ISLNK(st.st_mode)) {
				free(path);
				path = newpath;
				continue;
			}
		}
		at = py_seen_find(seen, newpath);
		if (at >= 0) {
			if (seen->val[at]) {
				free(newpath);
				free(path);
				path = strdup(seen->val[at]);
				continue;
			}
			/* A loop: the resolved part and the rest unchanged. */
			*ok = 0;
			free(path);
			path = py_join(newpath, rest);
			free(newpath);
			goto out;
		}
		at = py_seen_add(seen, newpath);
		target = at >= 0 ? py_readlink(newpath) : NULL;
		if (!target) {
			free(newpath);
			goto fail;
		}
		path = py_joinrealpath(path, target, seen, &sub_ok);
		free(target);
		if (path && !sub_ok) {
			*ok = 0;
			next = py_join(path, rest);
			free(path);
			path = next;
			free(newpath);
			goto out;
		}
		if (path) {
			seen->val[at] = strdup(path);
			if (!seen->val[at])
				path = NULL;
		}
		free(newpath);
	}
out:
	free(name);
	return path;
fail:
	free(name);
	free(path);
	return NULL;
}

/* posixpath.normpath(), in place. */
static void py_normpath(char *p)
{
	size_t len = strlen(p), i = 0, out, ncomp = 0;
	int slashes = p[0] == '/' ? 1 : 0;
	char *w = p;

	if (len == 0) {
		return;
	}
	if (slashes && p[1] == '/' && p[2] != '/')
		slashes = 2;
	out = (size_t)slashes;
	while (i < len) {
		size_t s = i, n;

		while (i < len && p[i] != '/')
			i++;
		n = i - s;
		i++;
		if (n == 0 || (n == 1 && p[s] == '.'))
			continue;
		if (n == 2 && p[s] == '.' && p[s + 1] == '.') {
			/* keep ".." when relative at the start or after another ".." */
			int last_pardir = ncomp > 0 && out >= 2 && w[out - 1] == '.' &&
					  w[out - 2] == '.' &&
					  (out == 2 || w[out - 3] == '/');

			if ((slashes == 0 && ncomp == 0) || last_pardir) {
				/* append below */
			} else {
				if (ncomp > 0) {
					while (out > (size_t)slashes && w[out - 1] != '/')
						out--;
					if (out > (size_t)slashes)
						out--;
					ncomp--;
				}
				continue;
			}
		}
		if (ncomp > 0)
			w[out++] = '/';
		memmove(w + out, p + s, n);
		out += n;
		ncomp++;
	}
	for (i = 0; i < (size_t)slashes; i++)
		w[i] = '/';
	if (out == 0)
		w[out++] = '.';
	w[out] = '\0';
}

/* Path(arg).resolve() with strict=False: posixpath.realpath(), then
 * abspath(). Returns NULL when out of memory. Free with free(). */
static char *py_realpath(const char *arg)
{
	struct py_seen seen = { 0 };
	char *path = strdup(""), *abs;
	int ok;

	if (!path)
		return NULL;
	path = py_joinrealpath(path, arg, &seen, &ok);
	py_seen_release(&seen);
	if (!path)
		return NULL;
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (!cwd) {
			free(path);
			return NULL;
		}
		abs = py_join(cwd, path);
		free(cwd);
		free(path);
		path = abs;
		if (!path)
			return NULL;
	}
	py_normpath(path);
	return path;
}

/* Whether Python's str.isprintable() holds for a character outside ASCII;
 * an approximation of the Unicode tables: controls, separators other than
 * space, format characters and surrogates are not. */
static int py_printable(uint32_t c)
{
	if (c < 0xa1 || c == 0xad || (c >= 0xd800 && c <= 0xdfff) || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
	    (c >= 0x205f && c <= 0x2064) || c == 0x3000 || c == 0xfeff)
		return 0;
	return 1;
}

/* repr() of the str Python makes of path bytes (invalid UTF-8 bytes become
 * U+DC80..U+DCFF, as the file system decoding's surrogateescape does). */
static void py_repr(FILE *f, const char *path)
{
	const unsigned char *s = (const unsigned char *)path;
	size_t n = strlen(path), i = 0;
	int quote = strchr(path, '\'') && !strchr(path, '"') ? '"' : '\'';

	fputc(quote, f);
	while (i < n) {
		size_t bad;
		const char *reason;
		int len = sjson_utf8_seq(s + i, n - i, 1, &bad, &reason);
		uint32_t c;

		if (len < 0) {
			c = 0xdc00 + s[i];
			len = 1;
		} else if (len == 1) {
			c = s[i];
		} else {
			c = s[i] & (0xff >> (len + 1));
			for (int k = 1; k < len; k++)
				c = c << 6 | (s[i + (size_t)k] & 0x3f);
		}
		if (c == (uint32_t)quote || c == '\\') {
			fputc('\\', f);
			fputc((int)c, f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\x%02x", (unsigned)c);
		} else if (c < 0x80 || py_printable(c)) {
			fwrite(s + i, 1, (size_t)len, f);
		} else if (c <= 0xff) {
			fprintf(f, "\\x%02x", (unsigned)c);
		} else if (c <= 0xffff) {
			fprintf(f, "\\u%04x", (unsigned)c);
		} else {
			fprintf(f, "\\U%08x", (unsigned)c);
		}
		i += (size_t)len;
	}
	fputc(quote, f);
}

/* "PermissionError: [Errno 13] Permission denied: '/x'" */
static int os_error(FILE *err, int e, const char *path)
{
	fprintf(err, "%s: [Errno %d] %s: ", sjson_oserror_name(e), e, strerror(e));
	py_repr(err, path);
	fputc('\n', err);
	return 1;
}

/* --- the events ------------------------------------------------------------ */

static void name_set(struct sr_name *to, const char *s, int value)
{
	to->s = s;
	to->n = strlen(s);
	to->value = value;
}

static void names_init(struct seed_run *r)
{
	size_t i;

	for (i = 0; i < N_STAGES; i++)
		name_set(&r->stages[i], vocab_name(&vocab_stages, seed_stages[i]), seed_stages[i]);
	name_set(&r->reasons[0], "none", SEED_REASON_NONE);
	for (i = 1; i < N_REASONS; i++)
		name_set(&r->reasons[i], vocab_name(&vocab_exit_classes, seed_reasons[i - 1]),
			 seed_reasons[i - 1]);
	for (i = 0; i < F_COUNT; i++)
		name_set(&r->fields[i], field_names[i], (int)i);
}

/* memcmp() for the few bytes of a name or a number: a call costs more. */
static inline int bytes_cmp(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
	return 0;
}

/* The value of the name s is exactly, or -1. */
static int name_of(const struct sjson_str *s, const struct sr_name *names, size_t count)
{
	size_t i;

	if (!s->exact)
		return -1;
	for (i = 0; i < count; i++)
		if (s->len == names[i].n && bytes_cmp(s->s, names[i].s, s->len) == 0)
			return names[i].value;
	return -1;
}

/* The seed stage a field names, or -1. */
static int stage_of(const struct seed_run *r, const struct sr_field *f)
{
	if (f->tok != SJSON_STRING)
		return -1;
	return name_of(&f->str, r->stages, N_STAGES);
}

/* The seed reason a field names (absent: "none"), or -1. */
static int reason_of(const struct seed_run *r, const struct sr_field *f)
{
	if (f->tok == SJSON_END)
		return SEED_REASON_NONE;
	if (f->tok != SJSON_STRING)
		return -1;
	return name_of(&f->str, r->reasons, N_REASONS);
}

static const char *reason_name(int reason)
{
	return reason == SEED_REASON_NONE ? "none" : vocab_name(&vocab_exit_classes, reason);
}

/* Python's type name of a value that is not a dict. */
static const char *type_name(enum sjson_tok tok)
{
	switch (tok) {
	case SJSON_INT:
		return "int";
	case SJSON_FLOAT:
		return "float";
	case SJSON_STRING:
		return "str";
	case SJSON_TRUE:
	case SJSON_FALSE:
		return "bool";
	case SJSON_ARRAY:
		return "list";
	case SJSON_OBJECT:
		return "dict";
	default:
		return "NoneType";
	}
}

/* isinstance(v, int): the field's number, or NULL. */
static const struct sr_num *int_of(const struct sr_field *f)
{
	if (f->tok == SJSON_INT || f->tok == SJSON_TRUE || f->tok == SJSON_FALSE)
		return &f->num;
	return NULL;
}

static int num_sign(const struct sr_num *a)
{
	if (a->n == 1 && a->d[0] == '0')
		return 0;
	return a->neg ? -1 : 1;
}

/* Python's comparison of two ints: <0, 0 or >0. */
static int num_cmp(const struct sr_num *a, const struct sr_num *b)
{
	int sa = num_sign(a), sb = num_sign(b), mag;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	if (a->n != b->n)
		mag = a->n < b->n ? -1 : 1;
	else
		mag = bytes_cmp(a->d, b->d, a->n);
	return sa > 0 ? mag : -mag;
}

static void num_copy(struct sr_num *to, const struct sr_num *from)
{
	to->kind = from->kind;
	to->neg = from->neg;
	to->n = from->n;
	memcpy(to->d, from->d, from->n);
}

static void num_print(FILE *out, enum sjson_tok kind, int neg, const char *d, size_t n)
{
	if (kind == SJSON_TRUE) {
		fputs("true", out);
		return;
	}
	if (kind == SJSON_FALSE) {
		fputs("false", out);
		return;
	}
	if (neg)
		fputc('-', out);
	fwrite(d, 1, n, out);
}


static void refuse(struct seed_run *r, enum sr_refusal why, uint64_t index, const char *type)
{
	r->refusal = why;
	r->refusal_index = index;
	r->type_name = type;
}

static int add_over(struct seed_run *r, uint64_t index, int stage, const struct sr_num *rss)
{
	struct sr_over *o;

	if (r->nover == r->cap_over) {
		size_t cap = r->cap_over ? r->cap_over * 2 : 1024;
		void *nv = realloc(r->over, cap * sizeof(*r->over));

		if (!nv)
			return -1;
		r->over = nv;
		r->cap_over = cap;
	}
	while (r->narena + rss->n > r->cap_arena) {
		size_t cap = r->cap_arena ? r->cap_arena * 2 : 16384;
		void *nv = realloc(r->arena, cap);

		if (!nv)
			return -1;
		r->arena = nv;
		r->cap_arena = cap;
	}
	o = &r->over[r->nover++];
	o->index = index;
	o->off = r->narena;
	o->n = (uint32_t)rss->n;
	o->stage = (uint8_t)stage;
	o->kind = (uint8_t)rss->kind;
	o->neg = (uint8_t)rss->neg;
	memcpy(r->arena + r->narena, rss->d, rss->n);
	r->narena += rss->n;
	return 0;
}

/* The body of the script's loop for one dict. */
static void check_event(struct seed_run *r, uint64_t index)
{
	const struct sr_num *time = int_of(&r->f[F_TIME]);
	const struct sr_num *rss, *budget, *sessions;
	int stage, reason;

	if (!time || num_cmp(time, &r->prev) < 0) {
		refuse(r, SR_TIME, index, NULL);
		return;
	}
	/* stage not in stages or reason not in reasons */
	if (r->f[F_STAGE].tok == SJSON_ARRAY || r->f[F_STAGE].tok == SJSON_OBJECT) {
		refuse(r, SR_UNHASHABLE, index, type_name(r->f[F_STAGE].tok));
		return;
	}
	stage = stage_of(r, &r->f[F_STAGE]);
	if (stage < 0) {
		refuse(r, SR_STAGE, index, NULL);
		return;
	}
	if (r->f[F_REASON].tok == SJSON_ARRAY || r->f[F_REASON].tok == SJSON_OBJECT) {
		refuse(r, SR_UNHASHABLE, index, type_name(r->f[F_REASON].tok));
		return;
	}
	reason = reason_of(r, &r->f[F_REASON]);
	if (reason < 0) {
		refuse(r, SR_STAGE, index, NULL);
		return;
	}
	rss = int_of(&r->f[F_RSS]);
	budget = int_of(&r->f[F_BUDGET]);
	if (!rss || !budget || num_sign(budget) <= 0) {
		refuse(r, SR_MEMORY, index, NULL);
		return;
	}
	sessions = int_of(&r->f[F_SESSIONS]);
	if (!sessions || num_sign(sessions) < 0) {
		refuse(r, SR_SESSIONS, index, NULL);
		return;
	}
	num_copy(&r->prev, time);
	if (!r->have_peak || num_cmp(rss, &r->peak_rss) > 0) {
		r->have_peak = 1;
		r->peak_stage = stage;
		num_copy(&r->peak_rss, rss);
		num_copy(&r->peak_sessions, sessions);
	}
	if (num_cmp(rss, budget) > 0 && add_over(r, index, stage, rss) < 0)
		refuse(r, SR_NOMEM, index, NULL);
	r->last_reason = reason;
}

/* Store value tok (its first token read) in f, or skip it (f NULL). */
static int read_value(struct sjson *j, enum sjson_tok tok, struct sr_field *f)
{
	if (f)
		f->tok = tok;
	switch (tok) {
	case SJSON_ARRAY:
	case SJSON_OBJECT:
		return sjson_skip(j);
	case SJSON_INT:
		if (f) {
			f->num.kind = SJSON_INT;
			f->num.neg = j->num.neg;
			f->num.n = j->num.ndigits;
			memcpy(f->num.d, j->num.digits, j->num.ndigits);
		}
		return 0;
	case SJSON_TRUE:
	case SJSON_FALSE:
		if (f) {
			f->num.kind = tok;
			f->num.neg = 0;
			f->num.n = 1;
			f->num.d[0] = tok == SJSON_TRUE ? '1' : '0';
		}
		return 0;
	case SJSON_STRING:
		if (f)
			f->str = j->str;
		return 0;
	default:
		return 0;
	}
}

/* One element of the events list, its first token read. Returns -1 when
 * the reader failed. */
static int read_event(struct seed_run *r, struct sjson *j, enum sjson_tok tok, uint64_t index)
{
	int i;

	if (tok != SJSON_OBJECT) {
		if (r->refusal == SR_OK)
			refuse(r, SR_NOT_DICT, index, type_name(tok));
		return tok == SJSON_ARRAY ? sjson_skip(j) : 0;
	}
	if (r->refusal != SR_OK)
		return sjson_skip(j);
	for (i = 0; i < F_COUNT; i++)
		r->f[i].tok = SJSON_END;
	for (;;) {
		int k;

		tok = sjson_next(j);
		if (tok == SJSON_ERROR)
			return -1;
		if (tok == SJSON_OBJECT_END)
			break;
		k = name_of(&j->str, r->fields, F_COUNT); /* tok is SJSON_KEY */
		tok = sjson_next(j);
		if (tok == SJSON_ERROR)
			return -1;
		if (read_value(j, tok, k >= 0 ? &r->f[k] : NULL) < 0)
			return -1;
	}
	check_event(r, index);
	return 0;
}

static const char *recovery_of(int reason)
{
	switch (reason) {
	case LW_EXIT_LOW_MEMORY:
		return "stop new inference and isolate the candidate";
	case LW_EXIT_ANR:
		return "inspect main-thread and lock evidence";
	case LW_EXIT_NATIVE_CRASH:
		return "preserve native evidence and isolate the execution path";
	default:
		return "keep the cause unconfirmed and collect more evidence";
	}
}

/* json.dumps(report, ensure_ascii=False, indent=2) and print()'s newline. */
static void print_report(FILE *out, const struct seed_run *r)
{
	size_t i;

	fprintf(out, "{\n  \"peak\": {\n    \"stage\": \"%s\",\n    \"rss_mb\": ",
		vocab_name(&vocab_stages, r->peak_stage));
	num_print(out, r->peak_rss.kind, r->peak_rss.neg, r->peak_rss.d, r->peak_rss.n);
	fputs(",\n    \"sessions\": ", out);
	num_print(out, r->peak_sessions.kind, r->peak_sessions.neg, r->peak_sessions.d,
		  r->peak_sessions.n);
	fputs("\n  },\n  \"over_budget\": [", out);
	for (i = 0; i < r->nover; i++) {
		const struct sr_over *o = &r->over[i];

		fprintf(out,
			"%s\n    {\n      \"index\": %" PRIu64 ",\n      \"stage\": \"%s\",\n"
			"      \"rss_mb\": ",
			i ? "," : "", o->index, vocab_name(&vocab_stages, o->stage));
		num_print(out, (enum sjson_tok)o->kind, o->neg, r->arena + o->off, o->n);
		fputs("\n    }", out);
	}
	fputs(r->nover ? "\n  ],\n" : "],\n", out);
	fprintf(out, "  \"exit_reason\": \"%s\",\n  \"recovery\": \"%s\"\n}\n",
		reason_name(r->last_reason), recovery_of(r->last_reason));
}

static void print_refusal(FILE *err, const struct seed_run *r)
{
	switch (r->refusal) {
	case SR_TIME:
		fprintf(err, "invalid event time at index %" PRIu64 "\n", r->refusal_index);
		break;
	case SR_STAGE:
		fprintf(err, "invalid stage or reason at index %" PRIu64 "\n", r->refusal_index);
		break;
	case SR_MEMORY:
		fprintf(err, "invalid memory sample at index %" PRIu64 "\n", r->refusal_index);
		break;
	case SR_SESSIONS:
		fprintf(err, "invalid session count at index %" PRIu64 "\n", r->refusal_index);
		break;
	case SR_NOT_DICT:
		fprintf(err, "AttributeError: '%s' object has no attribute 'get'\n", r->type_name);
		break;
	case SR_UNHASHABLE:
		fprintf(err, "TypeError: unhashable type: '%s'\n", r->type_name);
		break;
	default:
		fputs("MemoryError\n", err);
		break;
	}
}

/* Read and check the events; print the report or the refusal. */
static int run_events(int fd, FILE *out, FILE *err)
{
	struct seed_run *r = calloc(1, sizeof(*r));
	struct sjson *j = sjson_open(fd);
	enum sjson_tok tok;
	uint64_t n = 0;
	int is_list, status = 1;
	char line[512];

	if (!r || !j) {
		fputs("MemoryError\n", err);
		goto out;
	}
	names_init(r);
	/* previous_time = -1 */
	r->prev.kind = SJSON_INT;
	r->prev.neg = 1;
	r->prev.n = 1;
	r->prev.d[0] = '1';

	tok = sjson_next(j);
	is_list = tok == SJSON_ARRAY;
	if (is_list) {
		for (;;) {
			tok = sjson_next(j);
			if (tok == SJSON_ERROR || tok == SJSON_ARRAY_END)
				break;
			if (read_event(r, j, tok, n) < 0) {
				tok = SJSON_ERROR;
				break;
			}
			n++;
		}
	} else if (tok == SJSON_OBJECT && sjson_skip(j) < 0) {
		tok = SJSON_ERROR;
	}
	if (tok != SJSON_ERROR)
		tok = sjson_next(j); /* the end, or extra data */
	if (tok == SJSON_ERROR) {
		sjson_error_line(j, line, sizeof(line));
		fprintf(err, "%s\n", line);
		goto out;
	}
	if (!is_list || n == 0) {
		fputs("events must be a nonempty list\n", err);
		goto out;
	}
	if (r->refusal != SR_OK) {
		print_refusal(err, r);
		goto out;
	}
	print_report(out, r);
	status = 0;
out:
	if (r) {
		free(r->over);
		free(r->arena);
	}
	free(r);
	sjson_free(j);
	return status;
}

int seed_report(const char *path, FILE *out, FILE *err)
{
	struct stat st;
	char *rpath;
	int fd, status;

	errno = 0;
	rpath = py_realpath(path);
	if (!rpath) {
		if (errno == ENOMEM || errno == 0)
			fputs("MemoryError\n", err);
		else
			os_error(err, errno, path);
		return 1;
	}
	/* resolve() stats the result for a loop; is_file() then ignores a
	 * missing path and a file that is not regular. */
	if (stat(rpath, &st) != 0) {
		int e = errno;

		if (e == ELOOP) {
			fputs("RuntimeError: Symlink loop from ", err);
			py_repr(err, rpath);
			fputc('\n', err);
		} else if (e == ENOENT || e == ENOTDIR || e == EBADF) {
			fputs("event file does not exist\n", err);
		} else {
			os_error(err, e, rpath);
		}
		free(rpath);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		fputs("event file does not exist\n", err);
		free(rpath);
		return 1;
	}
	fd = open(rpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		os_error(err, errno, rpath);
		free(rpath);
		return 1;
	}
	free(rpath);
	status = run_events(fd, out, err);
	close(fd);
	return status;
}
