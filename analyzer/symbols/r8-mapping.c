/*
 * R8 and ProGuard mapping files (mapping.txt), read as R8 documents them
 * (r8/doc/retrace.md; ProguardMapReader's grammar):
 *
 *   original.Class -> obfuscated.Name:            a class, not indented
 *       type field -> a                           a field (passed over)
 *       type method(args) -> b                    a method, no lines
 *       s:e:type method(args) -> b                lines s..e of b are the
 *                                                 same lines of method
 *       s:e:type method(args):os:oe -> b          line l of s..e is
 *                                                 os + (l - s); os when os == oe
 *       s:e:type pkg.Other.method(args):o -> b    a caller's position o
 *   # text                                        a comment, anywhere
 *   # {"id":"sourceFile","fileName":"Foo.kt"}     under a class line: its file
 *   # {'id':'com.android.tools.r8.synthesized'}   under a class or a method:
 *                                                 made by the compiler
 *
 * Other JSON comments (the mapping version, rewriteFrame, outline,
 * residualsignature) are read as comments. A method name may be qualified
 * with another class: code of that class inlined here.
 *
 * Inlining: the member lines of one obfuscated name form chains. A line
 * joins the chain before it when it has the same minified range and its
 * original position is a single number (":o", R8's "cardinal" position:
 * the line of the call); the chain's first line is the innermost frame,
 * its last the outer one (R8's MappedRangeUtils.isInlineMappedRange).
 *
 * Retracing a frame "a.b.c(SourceFile:7)": the chains of a.b's members
 * named c whose minified range holds 7. None: the members of no range
 * ("void m() -> c", ProGuard's form; the line kept as written). None of
 * those either, or a frame without a line: every chain of the name, and
 * no line is written (a line no range holds says nothing of the source).
 * Overloads: the chains that remain are turned into frames; the same
 * frames from each (overloads of one name, read without their arguments)
 * are one answer. Several answers are ambiguous: the frame keeps one
 * frame per answer, the method each one's code is in (its outer frame),
 * and says it is ambiguous (java_frame.ambiguous). Frames of a method
 * marked synthesized are left out of a chain that has others.
 *
 * File names: the original class's sourceFile; else the file written when
 * it is not "SourceFile" and the frame is the class's own; else the outer
 * class's simple name with the written file's extension (".java" when it
 * has none): com.example.Foo$Bar -> Foo.java.
 *
 * Speed: the file is read whole into one buffer; names stay in it (cut
 * with NULs); classes are found by obfuscated and by original name with a
 * binary search over sorted indexes; members are scanned within their
 * class, in file order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "r8-mapping.h"

#define NO_LINE (-1)
#define R8_CHAIN_MAX 64     /* frames inlined into one, kept of a chain */
#define R8_CANDIDATES_MAX 64 /* answers kept of an ambiguous frame */

struct r8_member {
	const char *obf;
	const char *name;           /* original name, perhaps qualified */
	const char *args;
	int32_t min_from, min_to;   /* NO_LINE: none */
	int32_t orig_from, orig_to; /* orig_from NO_LINE: none; orig_to NO_LINE: cardinal */
	unsigned char synthesized;
};

struct r8_class {
	const char *orig, *obf;
	const char *file;           /* sourceFile metadata; NULL */
	size_t first, n;            /* its members */
	int has_members;            /* a member line (field or method) was read */
	int synthesized;
};

struct r8_mapping {
	char *buf;
	struct r8_class *classes;
	size_t nclasses, classes_cap;
	struct r8_member *members;
	size_t nmembers, members_cap;
	/* the classes sorted by name, made once all are read (classes moves
	 * no more) */
	const struct r8_class **by_obf, **by_orig;
};

static void set_error(struct ev_error *err, size_t line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static char *skip_spaces(char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/* Cut s's trailing spaces (end points past its last byte). */
static void trim_end(char *s, char *end)
{
	while (end > s && is_space(end[-1]))
		end--;
	*end = '\0';
}

static int has_space(const char *s)
{
	for (; *s; s++)
		if (is_space(*s))
			return 1;
	return 0;
}

/* A line number: 0 .. INT32_MAX. Advances *p; -1 when none or too big. */
static int32_t parse_number(char **p)
{
	int64_t v = 0;
	char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -1;
	}
	*p = s;
	return (int32_t)v;
}

static void *grow(void *v, size_t *cap, size_t n, size_t sz)
{
	void *nv;
	size_t c;

	if (n < *cap)
		return v;
	c = *cap ? 2 * *cap : 256;
	if (c > SIZE_MAX / sz)
		return NULL;
	nv = realloc(v, c * sz);
	if (nv)
		*cap = c;
	return nv;
}

/* The value of key in a JSON comment's object, with ' or " quotes (its
 * length in *len); NULL when absent. Only flat string members are read:
 * that is what the ids used here hold. */
static char *json_member(char *s, const char *key, size_t *len)
{
	size_t kn = strlen(key);
	char *p = s;

	while ((p = strstr(p, key)) != NULL) {
		char q = p > s ? p[-1] : 0, *v, *end;

		if ((q == '"' || q == '\'') && p[kn] == q) {
			v = skip_spaces(p + kn + 1);
			if (*v != ':')
				return NULL;
			v = skip_spaces(v + 1);
			q = *v;
			if ((q != '"' && q != '\'') || !(end = strchr(v + 1, q)))
				return NULL;
			*len = (size_t)(end - v - 1);
			return v + 1;
		}
		p += kn;
	}
	return NULL;
}

static int is_id(const char *v, size_t n, const char *id)
{
	return v && n == strlen(id) && memcmp(v, id, n) == 0;
}

/* A "# ..." line: the JSON information R8 puts in comments. */
static void read_comment(struct r8_mapping *m, char *s, long last_method)
{
	struct r8_class *c = m->nclasses ? &m->classes[m->nclasses - 1] : NULL;
	size_t n = 0, fn = 0;
	char *id, *file;

	s = skip_spaces(s + 1);
	if (*s != '{' || !c)
		return;
	id = json_member(s, "id", &n);
	if (is_id(id, n, "sourceFile") && !c->has_members) {
		file = json_member(s, "fileName", &fn);
		if (file && fn) {
			file[fn] = '\0'; /* the line is read: cut the name in place */
			c->file = file;
		}
	} else if (is_id(id, n, "com.android.tools.r8.synthesized")) {
		if (last_method >= 0)
			m->members[last_method].synthesized = 1;
		else if (!c->has_members)
			c->synthesized = 1;
	}
}

/* "orig.Class -> obf:" */
static int read_class(struct r8_mapping *m, char *s, size_t lineno, struct ev_error *err)
{
	char *arrow = strstr(s, "->"), *obf, *end;
	struct r8_class *c, *nv;

	if (!arrow) {
		set_error(err, lineno, "not a class line ('original.Class -> obfuscated:'), a member "
				       "line (indented) nor a comment");
		return -1;
	}
	obf = skip_spaces(arrow + 2);
	trim_end(s, arrow);
	end = obf + strlen(obf);
	while (end > obf && is_space(end[-1]))
		end--;
	if (end == obf || end[-1] != ':') {
		set_error(err, lineno, "a class line ends with ':' ('original.Class -> obfuscated:')");
		return -1;
	}
	trim_end(obf, end - 1);
	if (!*s || !*obf || has_space(s) || has_space(obf)) {
		set_error(err, lineno, "a class line names two classes ('original.Class -> "
				       "obfuscated:')");
		return -1;
	}
	if (!(nv = grow(m->classes, &m->classes_cap, m->nclasses, sizeof(*c)))) {
		set_error(err, lineno, "out of memory");
		return -1;
	}
	m->classes = nv;
	c = &m->classes[m->nclasses++];
	memset(c, 0, sizeof(*c));
	c->orig = s;
	c->obf = obf;
	c->first = m->nmembers;
	return 0;
}

/* "[s:e:]type name(args)[:os[:oe]] -> obf", or a field "type name -> obf".
 * Returns 1 for a method (the last member), 0 for a field, -1 with err. */
static int read_member(struct r8_mapping *m, char *s, size_t lineno, struct ev_error *err)
{
	struct r8_class *c = &m->classes[m->nclasses - 1];
	struct r8_member mb, *nv;
	char *arrow, *obf, *sp, *lp, *rp, *p = s;

	memset(&mb, 0, sizeof(mb));
	mb.min_from = mb.min_to = mb.orig_from = mb.orig_to = NO_LINE;
	c->has_members = 1;
	if (*p >= '0' && *p <= '9') {
		if ((mb.min_from = parse_number(&p)) < 0 || *p++ != ':' ||
		    (mb.min_to = parse_number(&p)) < 0 || *p++ != ':') {
			set_error(err, lineno, "a member's line range is 'start:end:' before its type");
			return -1;
		}
		if (mb.min_from > mb.min_to) {
			set_error(err, lineno, "line range %d:%d ends before it starts", (int)mb.min_from,
				  (int)mb.min_to);
			return -1;
		}
		p = skip_spaces(p);
	}
	if (!(arrow = strstr(p, "->"))) {
		set_error(err, lineno, "a member line maps a member to its new name ('type name -> "
				       "obfuscated')");
		return -1;
	}
	obf = skip_spaces(arrow + 2);
	trim_end(obf, obf + strlen(obf));
	trim_end(p, arrow);
	if (!*obf || has_space(obf)) {
		set_error(err, lineno, "a member line ends with the member's new name");
		return -1;
	}
	sp = p;
	while (*sp && !is_space(*sp))
		sp++;
	lp = strchr(p, '(');
	if (!lp) {
		/* a field: "type name" */
		if (!*sp || mb.min_from != NO_LINE || has_space(skip_spaces(sp)) || !*skip_spaces(sp)) {
			set_error(err, lineno, "a field line is 'type name -> obfuscated'");
			return -1;
		}
		return 0;
	}
	rp = strchr(lp, ')');
	if (sp >= lp || sp == p || !rp || skip_spaces(sp) == lp) {
		set_error(err, lineno, "a method line is '[start:end:]type name(arguments)"
				       "[:line[:line]] -> obfuscated'");
		return -1;
	}
	*lp = '\0';
	*rp = '\0';
	mb.name = skip_spaces(sp);
	mb.args = lp + 1;
	mb.obf = obf;
	p = rp + 1;
	if (*p == ':') {
		p++;
		if ((mb.orig_from = parse_number(&p)) < 0) {
			set_error(err, lineno, "a number follows the ':' after the method's arguments");
			return -1;
		}
		if (*p == ':') {
			p++;
			if ((mb.orig_to = parse_number(&p)) < 0) {
				set_error(err, lineno, "the original range is ':start:end' after the "
						       "method's arguments");
				return -1;
			}
		}
	}
	if (*skip_spaces(p)) {
		set_error(err, lineno, "unexpected '%.40s' after the method's arguments", p);
		return -1;
	}
	if (mb.min_from == NO_LINE) /* no minified range: an original one says nothing */
		mb.orig_from = mb.orig_to = NO_LINE;
	if (!(nv = grow(m->members, &m->members_cap, m->nmembers, sizeof(mb)))) {
		set_error(err, lineno, "out of memory");
		return -1;
	}
	m->members = nv;
	m->members[m->nmembers++] = mb;
	c->n++;
	return 1;
}

/* A method is synthesized or not: what one of its lines says, all say. */
static void spread_synthesized(struct r8_mapping *m, const struct r8_class *c)
{
	size_t i, k;

	for (i = c->first; i < c->first + c->n; i++) {
		const struct r8_member *a = &m->members[i];

		if (a->synthesized != 1)
			continue;
		for (k = c->first; k < c->first + c->n; k++) {
			struct r8_member *b = &m->members[k];

			if (!b->synthesized && strcmp(a->obf, b->obf) == 0 &&
			    strcmp(a->name, b->name) == 0 && strcmp(a->args, b->args) == 0)
				b->synthesized = 2;
		}
	}
}

static int by_obf_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct r8_class *const *)a)->obf,
		      (*(const struct r8_class *const *)b)->obf);
}

static int by_orig_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct r8_class *const *)a)->orig,
		      (*(const struct r8_class *const *)b)->orig);
}

static int read_file(const char *path, char **out, size_t *len, struct ev_error *err)
{
	struct stat st;
	size_t n = 0, cap;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		set_error(err, 0, "%s", strerror(errno));
		return -1;
	}
	cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	if (!(buf = malloc(cap))) {
		close(fd);
		set_error(err, 0, "out of memory");
		return -1;
	}
	for (;;) {
		ssize_t k;

		if (n + 1 >= cap) {
			char *nv = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nv) {
				free(buf);
				close(fd);
				set_error(err, 0, "out of memory");
				return -1;
			}
			buf = nv;
			cap *= 2;
		}
		k = read(fd, buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			set_error(err, 0, "%s", strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int r8_mapping_load(const char *path, struct r8_mapping **out, struct ev_error *err)
{
	struct r8_mapping *m = calloc(1, sizeof(*m));
	size_t len, lineno = 0, i;
	long last_method = -1;
	char *s, *end;

	err->line = 0;
	err->reason[0] = '\0';
	if (!m) {
		set_error(err, 0, "out of memory");
		return -1;
	}
	if (read_file(path, &m->buf, &len, err) != 0)
		goto fail;
	s = m->buf;
	end = m->buf + len;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s)), *t;
		char *eol = nl ? nl : end;
		int rc;

		size_t ln = (size_t)(eol - s);

		lineno++;
		*eol = '\0';
		if (ln && s[ln - 1] == '\r')
			s[--ln] = '\0';
		if (strlen(s) != ln) {
			set_error(err, lineno, "a NUL byte: not a text mapping file");
			goto fail;
		}
		t = skip_spaces(s);
		if (*t == '#') {
			read_comment(m, t, last_method);
		} else if (*t == '\0') {
			/* an empty line */
		} else if (t == s) {
			if (m->nclasses)
				spread_synthesized(m, &m->classes[m->nclasses - 1]);
			if (read_class(m, t, lineno, err) != 0)
				goto fail;
			last_method = -1;
		} else if (!m->nclasses) {
			set_error(err, lineno, "a member line (indented) before any class line");
			goto fail;
		} else {
			if ((rc = read_member(m, t, lineno, err)) < 0)
				goto fail;
			last_method = rc ? (long)m->nmembers - 1 : -1;
		}
		s = eol + 1;
	}
	if (m->nclasses)
		spread_synthesized(m, &m->classes[m->nclasses - 1]);
	if (m->nclasses) {
		m->by_obf = malloc(m->nclasses * sizeof(*m->by_obf));
		m->by_orig = malloc(m->nclasses * sizeof(*m->by_orig));
		if (!m->by_obf || !m->by_orig) {
			set_error(err, 0, "out of memory");
			goto fail;
		}
		for (i = 0; i < m->nclasses; i++)
			m->by_obf[i] = m->by_orig[i] = &m->classes[i];
		qsort(m->by_obf, m->nclasses, sizeof(*m->by_obf), by_obf_cmp);
		qsort(m->by_orig, m->nclasses, sizeof(*m->by_orig), by_orig_cmp);
	}
	*out = m;
	return 0;
fail:
	r8_mapping_free(m);
	return -1;
}

void r8_mapping_free(struct r8_mapping *m)
{
	if (!m)
		return;
	free(m->buf);
	free(m->classes);
	free(m->members);
	free((void *)m->by_obf);
	free((void *)m->by_orig);
	free(m);
}

/* The class named name (n bytes) by its obfuscated (orig 0) or original
 * name; NULL. */
static const struct r8_class *find_class(const struct r8_mapping *m, const char *name, size_t n,
					 int orig)
{
	const struct r8_class *const *idx = orig ? m->by_orig : m->by_obf;
	size_t lo = 0, hi = m->nclasses;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct r8_class *c = idx[mid];
		const char *key = orig ? c->orig : c->obf;
		int d = strncmp(key, name, n);

		if (d == 0 && key[n] != '\0')
			d = 1;
		if (d == 0)
			return c;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A frame as written: "cls.method(file[:line])". */
struct jframe {
	const char *cls, *method, *file;
	size_t ncls, nmethod, nfile;
	int32_t line;               /* NO_LINE when none */
};

static int parse_frame(const char *text, struct jframe *f)
{
	const char *lp = strchr(text, '('), *rp, *dot, *slash, *colon, *p;

	if (!lp || !(rp = strrchr(lp, ')')))
		return -1;
	for (dot = lp; dot > text && dot[-1] != '.'; dot--)
		;
	if (dot - 1 <= text || dot == lp)
		return -1;
	for (slash = dot - 1; slash > text && slash[-1] != '/'; slash--)
		;
	f->cls = slash;
	f->ncls = (size_t)(dot - 1 - slash);
	f->method = dot;
	f->nmethod = (size_t)(lp - dot);
	f->file = lp + 1;
	f->nfile = (size_t)(rp - lp - 1);
	f->line = NO_LINE;
	for (colon = rp; colon > lp + 1 && colon[-1] != ':'; colon--)
		;
	if (colon > lp + 1 && colon < rp && rp - colon <= 9) {
		for (p = colon; p < rp && *p >= '0' && *p <= '9'; p++)
			;
		if (p == rp) {
			int32_t v = 0;

			for (p = colon; p < rp; p++)
				v = v * 10 + (*p - '0');
			f->line = v;
			f->nfile = (size_t)(colon - 1 - f->file);
		}
	}
	return 0;
}

/* A new string of fmt; NULL on ENOMEM. */
static char *strf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(out = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

static int written_file_is_real(const struct jframe *f)
{
	static const char *const names[] = { "SourceFile", "Unknown Source", "Native Method", "" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f->nfile == strlen(names[i]) && memcmp(f->file, names[i], f->nfile) == 0)
			return 0;
	return 1;
}

/* The source file of original class cls (n bytes) into buf; own: the
 * frame is of the mapping's class itself. */
static void source_file(const struct r8_mapping *m, const char *cls, size_t n,
			const struct jframe *f, int own, char *buf, size_t len)
{
	const struct r8_class *c = find_class(m, cls, n, 1);
	const char *simple = cls, *p, *ext = "java";
	size_t ns, ne = 4;

	if (f->nfile == 13 && memcmp(f->file, "Native Method", 13) == 0) {
		snprintf(buf, len, "Native Method");
		return;
	}
	if (c && c->file) {
		snprintf(buf, len, "%s", c->file);
		return;
	}
	if (own && written_file_is_real(f)) {
		snprintf(buf, len, "%.*s", (int)f->nfile, f->file);
		return;
	}
	for (p = cls; p < cls + n; p++)
		if (*p == '.')
			simple = p + 1;
	for (ns = 0; simple + ns < cls + n && simple[ns] != '$'; ns++)
		;
	if (written_file_is_real(f)) {
		for (p = f->file + f->nfile; p > f->file && p[-1] != '.'; p--)
			;
		if (p > f->file && p < f->file + f->nfile) {
			ext = p;
			ne = (size_t)(f->file + f->nfile - p);
		}
	}
	snprintf(buf, len, "%.*s.%.*s", (int)ns, simple, (int)ne, ext);
}

/* Original line of minified line l in member b (R8's
 * MappedRange.getOriginalLineNumber()). */
static int32_t original_line(const struct r8_member *b, int32_t l)
{
	if (b->min_from == NO_LINE || b->orig_from == NO_LINE)
		return l;
	if (b->orig_to == NO_LINE || b->orig_to == b->orig_from)
		return b->orig_from;
	return b->orig_from + (l - b->min_from);
}

/* One frame of a chain, as Java writes it, into a new string; NULL on
 * ENOMEM. */
static char *frame_text(const struct r8_mapping *m, const struct r8_class *c,
			const struct r8_member *b, const struct jframe *f, int32_t line)
{
	const char *name = b->name, *dot = strrchr(name, '.'), *cls = c->orig;
	size_t ncls = strlen(cls);
	char file[256];
	int own = 1;

	if (dot) {
		own = (size_t)(dot - name) == ncls && memcmp(name, cls, ncls) == 0;
		cls = name;
		ncls = (size_t)(dot - name);
		name = dot + 1;
	}
	source_file(m, cls, ncls, f, own, file, sizeof(file));
	if (line > 0)
		return strf("%.*s.%s(%s:%d)", (int)ncls, cls, name, file, (int)line);
	return strf("%.*s.%s(%s)", (int)ncls, cls, name, file);
}

struct answer {
	char *frames[R8_CHAIN_MAX];
	size_t n;
};

static void answer_release(struct answer *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->frames[i]);
	a->n = 0;
}

static int answers_equal(const struct answer *a, const struct answer *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->frames[i], b->frames[i]) != 0)
			return 0;
	return 1;
}

/* A method the compiler made: marked so, or of a class marked so (and
 * not code of another class inlined into it). */
static int synthesized(const struct r8_class *c, const struct r8_member *b)
{
	return b->synthesized || (c->synthesized && !strchr(b->name, '.'));
}

/* The frames of chain v[0..n) for frame f; with_line 0: none written. */
static int chain_answer(const struct r8_mapping *m, const struct r8_class *c,
			const struct r8_member *const *v, size_t n, const struct jframe *f,
			int with_line, struct answer *a)
{
	size_t i, real = 0;

	a->n = 0;
	for (i = 0; i < n; i++)
		real += !synthesized(c, v[i]);
	for (i = 0; i < n && a->n < R8_CHAIN_MAX; i++) {
		int32_t line = with_line && f->line != NO_LINE ? original_line(v[i], f->line) : 0;

		if (real && synthesized(c, v[i]))
			continue;
		if (!(a->frames[a->n] = frame_text(m, c, v[i], f, line))) {
			answer_release(a);
			return -1;
		}
		a->n++;
	}
	return 0;
}

static int same_range(const struct r8_member *a, const struct r8_member *b)
{
	return a->min_from != NO_LINE && a->min_from == b->min_from && a->min_to == b->min_to;
}

static int holds(const struct r8_member *b, int32_t line)
{
	return b->min_from != NO_LINE && line >= b->min_from && line <= b->min_to;
}

/* Set fr->retraced from the answers a[0..n), which it takes. Returns 1,
 * 0 when they hold no frame, -1 on ENOMEM. */
static int keep_answers(struct java_frame *fr, struct answer *a, size_t n)
{
	size_t distinct = 0, i, k, nout = 0;
	char **out;

	for (i = 0; i < n; i++) {
		for (k = 0; k < distinct && !answers_equal(&a[k], &a[i]); k++)
			;
		if (k < distinct || a[i].n == 0)
			answer_release(&a[i]);
		else
			a[distinct++] = a[i];
	}
	if (!distinct)
		return 0;
	if (!(out = calloc(distinct == 1 ? a[0].n : distinct, sizeof(*out)))) {
		for (i = 0; i < distinct; i++)
			answer_release(&a[i]);
		return -1;
	}
	if (distinct == 1) {
		for (i = 0; i < a[0].n; i++)
			out[nout++] = a[0].frames[i];
		a[0].n = 0;
	} else {
		/* ambiguous: the outer frame of each answer, once */
		for (i = 0; i < distinct; i++) {
			char *outer = a[i].frames[a[i].n - 1];

			for (k = 0; k < nout && strcmp(out[k], outer) != 0; k++)
				;
			if (k == nout) {
				out[nout++] = outer;
				a[i].frames[a[i].n - 1] = NULL;
			}
			answer_release(&a[i]);
		}
	}
	fr->retraced = out;
	fr->nretraced = nout;
	fr->ambiguous = distinct > 1 && nout > 1;
	return 1;
}

/* The frame with its class retraced alone (no member of its name). */
static int class_only(const struct r8_mapping *m, const struct r8_class *c,
		      const struct jframe *f, struct java_frame *fr)
{
	char file[256], *s;

	source_file(m, c->orig, strlen(c->orig), f, 1, file, sizeof(file));
	if (f->line != NO_LINE)
		s = strf("%s.%.*s(%s:%d)", c->orig, (int)f->nmethod, f->method, file, (int)f->line);
	else
		s = strf("%s.%.*s(%s)", c->orig, (int)f->nmethod, f->method, file);
	if (!s || !(fr->retraced = malloc(sizeof(char *)))) {
		free(s);
		return -1;
	}
	fr->retraced[0] = s;
	fr->nretraced = 1;
	return 1;
}

/* Retrace one "at" frame: 1 retraced, 0 left, -1 ENOMEM. */
static int retrace_frame(const struct r8_mapping *m, struct java_frame *fr)
{
	const struct r8_member **named;
	struct answer *answers;
	size_t nnamed = 0, i, k, nanswers = 0;
	const struct r8_class *c;
	struct jframe f;
	int pass, rc = -1;

	if (parse_frame(fr->text, &f) != 0)
		return 0;
	if (!(c = find_class(m, f.cls, f.ncls, 0)))
		return 0;
	for (i = c->first; i < c->first + c->n; i++)
		nnamed += strlen(m->members[i].obf) == f.nmethod &&
			  memcmp(m->members[i].obf, f.method, f.nmethod) == 0;
	if (!nnamed)
		return class_only(m, c, &f, fr);
	named = malloc(nnamed * sizeof(*named));
	answers = malloc(R8_CANDIDATES_MAX * sizeof(*answers));
	if (!named || !answers)
		goto out;
	for (nnamed = 0, i = c->first; i < c->first + c->n; i++)
		if (strlen(m->members[i].obf) == f.nmethod &&
		    memcmp(m->members[i].obf, f.method, f.nmethod) == 0)
			named[nnamed++] = &m->members[i];
	/* pass 0: the chains whose range holds the line; 1: the members of
	 * no range; 2: every chain, no line written. The same answer twice
	 * counts once. */
	for (pass = f.line != NO_LINE ? 0 : 1; pass < 3 && nanswers == 0; pass++) {
		for (i = 0; i < nnamed && nanswers < R8_CANDIDATES_MAX; i = k) {
			size_t d;

			for (k = i + 1; k < nnamed && same_range(named[i], named[k]) &&
					named[k]->orig_from != NO_LINE && named[k]->orig_to == NO_LINE;
			     k++)
				;
			if (!((pass == 0 && holds(named[i], f.line)) ||
			      (pass == 1 && named[i]->min_from == NO_LINE) || pass == 2))
				continue;
			if (chain_answer(m, c, named + i, k - i, &f, pass != 2, &answers[nanswers]) != 0)
				goto out;
			for (d = 0; d < nanswers && !answers_equal(&answers[d], &answers[nanswers]); d++)
				;
			if (d < nanswers || answers[nanswers].n == 0)
				answer_release(&answers[nanswers]);
			else
				nanswers++;
		}
	}
	rc = keep_answers(fr, answers, nanswers);
	nanswers = 0;
out:
	while (answers && nanswers)
		answer_release(&answers[--nanswers]);
	free(answers);
	free(named);
	return rc;
}

/* Reason "cls[: message]" (after prefix) with its class retraced, into a
 * new string; NULL when the class is not in the mapping (or ENOMEM, *oom). */
static char *retrace_reason(const struct r8_mapping *m, const char *text, const char *prefix,
			    int *oom)
{
	size_t np = strlen(prefix), n;
	const char *s, *colon;
	const struct r8_class *c;
	char *out;

	if (strncmp(text, prefix, np) != 0)
		return NULL;
	s = text + np;
	colon = strstr(s, ": ");
	n = colon ? (size_t)(colon - s) : strlen(s);
	while (n && is_space(s[n - 1]))
		n--;
	if (!n || !(c = find_class(m, s, n, 0)))
		return NULL;
	if (!(out = malloc(np + strlen(c->orig) + strlen(s + n) + 1))) {
		*oom = 1;
		return NULL;
	}
	memcpy(out, text, np);
	strcpy(out + np, c->orig);
	strcat(out, s + n);
	return out;
}

static void frame_unretrace(struct java_frame *fr)
{
	size_t k;

	for (k = 0; k < fr->nretraced; k++)
		free(fr->retraced[k]);
	free(fr->retraced);
	fr->retraced = NULL;
	fr->nretraced = 0;
	fr->ambiguous = 0;
}

int r8_retrace_event(const struct r8_mapping *m, struct log_event *e)
{
	int oom = 0, done = 0, rc;
	size_t i;

	free(e->reason_retraced);
	e->reason_retraced = e->reason ? retrace_reason(m, e->reason, "", &oom) : NULL;
	if (oom)
		return -1;
	for (i = 0; i < e->nstack; i++) {
		struct java_frame *fr = &e->stack[i];

		frame_unretrace(fr);
		if (strncmp(fr->text, "Caused by: ", 11) == 0 ||
		    strncmp(fr->text, "Suppressed: ", 12) == 0) {
			char *r = retrace_reason(m, fr->text,
						 fr->text[0] == 'C' ? "Caused by: " : "Suppressed: ", &oom);

			if (oom)
				return -1;
			if (!r)
				continue;
			if (!(fr->retraced = malloc(sizeof(char *)))) {
				free(r);
				return -1;
			}
			fr->retraced[0] = r;
			fr->nretraced = 1;
			done++;
			continue;
		}
		if ((rc = retrace_frame(m, fr)) < 0)
			return -1;
		done += rc;
	}
	return done;
}
