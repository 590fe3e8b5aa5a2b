/* A JSON Schema (draft 7) checker for the keywords our schemas use. */
#include "json-schema.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define SCHEMA_PATTERNS_MAX 32

struct json_schema {
	cJSON *root;
	const cJSON *defs;
	struct {
		const cJSON *node; /* the "pattern" member */
		regex_t re;
	} pat[SCHEMA_PATTERNS_MAX];
	size_t npat;
};

static const char *const notes[] = { "description", "title", "$schema", "$id", "definitions",
				     NULL };
static const char *const keywords[] = { "$ref", "type", "const", "enum", "pattern", "minimum",
					"maximum", "minLength", "maxLength", "minItems",
					"maxItems", "required", "dependencies", "properties",
					"additionalProperties", "items", "oneOf", "anyOf", NULL };

static int listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

static const cJSON *deref(const struct json_schema *s, const cJSON *ref)
{
	const char *p = cJSON_IsString(ref) ? ref->valuestring : "";

	return strncmp(p, "#/definitions/", 14) == 0 ? json_schema_def(s, p + 14) : NULL;
}

/* Whether t is a type name, or a list of them. */
static int types_ok(const cJSON *t)
{
	const cJSON *e;

	if (cJSON_IsString(t))
		return 1;
	if (!cJSON_IsArray(t) || !t->child)
		return 0;
	cJSON_ArrayForEach(e, t)
		if (!cJSON_IsString(e))
			return 0;
	return 1;
}

/* Whether d is dependencies of the list form: each member a list of names. */
static int dependencies_ok(const cJSON *d)
{
	const cJSON *m, *e;

	if (!cJSON_IsObject(d))
		return 0;
	cJSON_ArrayForEach(m, d) {
		if (!cJSON_IsArray(m))
			return 0;
		cJSON_ArrayForEach(e, m)
			if (!cJSON_IsString(e))
				return 0;
	}
	return 1;
}

/* Compile the patterns of sch and below; refuse an unknown keyword. */
static int prepare(struct json_schema *s, const cJSON *sch, int members)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, sch) {
		if (members || cJSON_IsArray(sch)) {
			/* the values of properties, definitions, oneOf: schemas */
			if (cJSON_IsObject(k) && prepare(s, k, 0) != 0)
				return -EINVAL;
			continue;
		}
		if (listed(notes, k->string) && strcmp(k->string, "definitions") != 0)
			continue;
		if (!listed(keywords, k->string) && strcmp(k->string, "definitions") != 0)
			return -EINVAL;
		if (strcmp(k->string, "pattern") == 0) {
			if (!cJSON_IsString(k) || s->npat == SCHEMA_PATTERNS_MAX ||
			    regcomp(&s->pat[s->npat].re, k->valuestring, REG_EXTENDED | REG_NOSUB) != 0)
				return -EINVAL;
			s->pat[s->npat++].node = k;
		} else if (strcmp(k->string, "properties") == 0 ||
			   strcmp(k->string, "definitions") == 0) {
			if (prepare(s, k, 1) != 0)
				return -EINVAL;
		} else if ((strcmp(k->string, "items") == 0 && prepare(s, k, 0) != 0) ||
			   (strcmp(k->string, "oneOf") == 0 && prepare(s, k, 0) != 0) ||
			   (strcmp(k->string, "anyOf") == 0 && prepare(s, k, 0) != 0)) {
			return -EINVAL;
		} else if ((strcmp(k->string, "additionalProperties") == 0 && !cJSON_IsFalse(k)) ||
			   (strcmp(k->string, "type") == 0 && !types_ok(k)) ||
			   (strcmp(k->string, "dependencies") == 0 && !dependencies_ok(k)) ||
			   (strcmp(k->string, "$ref") == 0 && !deref(s, k))) {
			return -EINVAL;
		}
	}
	return 0;
}

void json_schema_free(struct json_schema *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->npat; i++)
		regfree(&s->pat[i].re);
	cJSON_Delete(s->root);
	free(s);
}

int json_schema_open(const char *text, struct json_schema **out)
{
	struct json_schema *s = calloc(1, sizeof(*s));
	struct ev_error err;
	int rc;

	if (!s)
		return -ENOMEM;
	s->root = json_read(text, strlen(text), 0, &err);
	if (!s->root) {
		free(s);
		return err.line ? -EINVAL : -ENOMEM;
	}
	s->defs = cJSON_GetObjectItemCaseSensitive(s->root, "definitions");
	rc = cJSON_IsObject(s->root) ? prepare(s, s->root, 0) : -EINVAL;
	if (rc != 0) {
		json_schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const cJSON *json_schema_def(const struct json_schema *s, const char *name)
{
	return name ? cJSON_GetObjectItemCaseSensitive(s->defs, name) : s->root;
}

/* Whether a number is written as an integer (no fraction, no exponent). */
static int integer_text(const cJSON *v)
{
	return v->valuestring && !strpbrk(v->valuestring, ".eE");
}

/* -1, 0 or 1 as a < b, exactly for integers written as such: one past 64
 * bits is beyond every bound of 64 bits, where doubles would round the
 * two to one value. */
static int num_cmp(const cJSON *a, const cJSON *b)
{
	int fa, fb, na, nb;
	uint64_t ma, mb;

	if (integer_text(a) && integer_text(b)) {
		fa = json_number_u64(a, &na, &ma);
		fb = json_number_u64(b, &nb, &mb);
		if (!fa || !fb) {
			na = a->valuestring[0] == '-';
			nb = b->valuestring[0] == '-';
		}
		if (fa && fb) {
			na = na && ma;
			nb = nb && mb;
		}
		if (na != nb)
			return na ? -1 : 1;
		if (fa != fb) /* the one past 64 bits is larger in magnitude */
			return (fa ? -1 : 1) * (na ? -1 : 1);
		if (fa && ma != mb)
			return (ma < mb) != na ? -1 : 1;
		if (fa)
			return 0;
	}
	return a->valuedouble < b->valuedouble ? -1 : a->valuedouble > b->valuedouble;
}

/* An integer as JSON Schema counts them: 3, 3.0 and 3e0 are. */
static int is_integer(const cJSON *v)
{
	if (!cJSON_IsNumber(v))
		return 0;
	if (integer_text(v))
		return 1; /* however many digits */
	return isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble);
}

static int type_is(const cJSON *v, const char *type)
{
	if (!type)
		return 0;
	if (strcmp(type, "integer") == 0)
		return is_integer(v);
	if (strcmp(type, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(type, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(type, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(type, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(type, "boolean") == 0)
		return cJSON_IsBool(v);
	return strcmp(type, "null") == 0 && cJSON_IsNull(v);
}

static int equal(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) || cJSON_IsString(b))
		return cJSON_IsString(a) && cJSON_IsString(b) &&
		       strcmp(a->valuestring, b->valuestring) == 0;
	if (cJSON_IsNumber(a) || cJSON_IsNumber(b))
		return cJSON_IsNumber(a) && cJSON_IsNumber(b) && num_cmp(a, b) == 0;
	return (a->type & 0xff) == (b->type & 0xff);
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void append(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(buf);

	if (n < len)
		snprintf(buf + n, len - n, fmt, a, b);
}

static const char *text_of(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsString(v))
		snprintf(buf, len, "\"%s\"", v->valuestring);
	else if (cJSON_IsNumber(v) && v->valuestring)
		snprintf(buf, len, "%s", v->valuestring);
	else
		snprintf(buf, len, "%s", cJSON_IsNull(v) ? "null" : cJSON_IsTrue(v) ? "true" : "false");
	return buf;
}

/* A value of JSON type type, for people: "an integer", "a list". */
static void type_words(const char *type, char *buf, size_t len)
{
	if (strcmp(type, "null") == 0)
		append(buf, len, "null", NULL, NULL);
	else if (strcmp(type, "array") == 0)
		append(buf, len, "a list", NULL, NULL);
	else
		append(buf, len, "%s %s", strchr("aeiou", type[0]) ? "an" : "a", type);
}

/* What sch accepts, for people: its title if it has one, else "an integer
 * from 0 to 255", "a string matching ^[0-9a-f]{16}$ or null". */
static void describe(const struct json_schema *s, const cJSON *sch, char *buf, size_t len)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(sch, "type"), *x, *e;
	const cJSON *min = cJSON_GetObjectItemCaseSensitive(sch, "minimum");
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(sch, "maximum");
	const cJSON *min_len = cJSON_GetObjectItemCaseSensitive(sch, "minLength");
	const cJSON *min_items = cJSON_GetObjectItemCaseSensitive(sch, "minItems");
	char a[64], b[64];
	int first = 1;

	if ((x = cJSON_GetObjectItemCaseSensitive(sch, "title")) && cJSON_IsString(x)) {
		append(buf, len, "%s", x->valuestring, NULL);
		return;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(sch, "$ref")) && deref(s, x)) {
		describe(s, deref(s, x), buf, len);
		return;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(sch, "oneOf")) ||
	    (x = cJSON_GetObjectItemCaseSensitive(sch, "anyOf"))) {
		cJSON_ArrayForEach(e, x) {
			append(buf, len, "%s", first ? "" : " or ", NULL);
			describe(s, e, buf, len);
			first = 0;
		}
		return;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(sch, "const"))) {
		append(buf, len, "%s", text_of(x, a, sizeof(a)), NULL);
		return;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(sch, "enum"))) {
		append(buf, len, "one of ", NULL, NULL);
		cJSON_ArrayForEach(e, x) {
			append(buf, len, "%s%s", first ? "" : ", ", text_of(e, a, sizeof(a)));
			first = 0;
		}
		return;
	}
	if (cJSON_IsArray(type)) {
		cJSON_ArrayForEach(e, type) {
			append(buf, len, "%s", first ? "" : " or ", NULL);
			type_words(e->valuestring, buf, len);
			first = 0;
		}
		return;
	}
	if (!cJSON_IsString(type) && (x = cJSON_GetObjectItemCaseSensitive(sch, "required"))) {
		append(buf, len, "an object with ", NULL, NULL);
		cJSON_ArrayForEach(e, x) {
			append(buf, len, "%s%s", first ? "" : e->next ? ", " : " and ",
			       text_of(e, a, sizeof(a)));
			first = 0;
		}
		return;
	}
	if (!cJSON_IsString(type)) {
		append(buf, len, "a value", NULL, NULL);
		return;
	}
	if (strcmp(type->valuestring, "integer") == 0 && min && max)
		append(buf, len, "an integer from %s to %s", text_of(min, a, sizeof(a)),
		       text_of(max, b, sizeof(b)));
	else if (strcmp(type->valuestring, "integer") == 0 && min)
		append(buf, len, "an integer of at least %s", text_of(min, a, sizeof(a)), NULL);
	else if ((x = cJSON_GetObjectItemCaseSensitive(sch, "pattern")))
		append(buf, len, "a string matching %s", x->valuestring, NULL);
	else if ((x = cJSON_GetObjectItemCaseSensitive(sch, "maxLength")))
		append(buf, len, "a string of at most %s characters", text_of(x, a, sizeof(a)), NULL);
	else if (min_len && min_len->valuedouble == 1)
		append(buf, len, "a non-empty string", NULL, NULL);
	else if (min_len)
		append(buf, len, "a string of at least %s characters", text_of(min_len, a, sizeof(a)),
		       NULL);
	else if (min_items && min_items->valuedouble == 1)
		append(buf, len, "a non-empty list", NULL, NULL);
	else if (min_items)
		append(buf, len, "a list of at least %s items", text_of(min_items, a, sizeof(a)),
		       NULL);
	else
		type_words(type->valuestring, buf, len);
}

/* Where a refusal's words go (NULL for a quiet check), and how paths are
 * written. */
struct msg {
	char *buf;
	size_t len;
	enum json_schema_paths paths;
};

/* The path of member key (or of item i, key NULL) of the value at path. */
static void sub_path(char *buf, size_t len, const struct msg *msg, const char *path,
		     const char *key, size_t i)
{
	size_t n;

	if (msg->paths == JSON_SCHEMA_MEMBERS) {
		if (key)
			snprintf(buf, len, "%s%s\"%s\"", path, path[0] ? " " : "", key);
		else
			snprintf(buf, len, "%s item %zu", path, i + 1);
		return;
	}
	if (!key) {
		snprintf(buf, len, "%s/%zu", path, i);
		return;
	}
	/* RFC 6901: a key's ~ and / escaped */
	n = (size_t)snprintf(buf, len, "%s/", path);
	for (; *key && n + 3 < len; key++) {
		if (*key == '~' || *key == '/') {
			buf[n++] = '~';
			buf[n++] = *key == '~' ? '0' : '1';
		} else {
			buf[n++] = *key;
		}
	}
	buf[n < len ? n : len - 1] = '\0';
}

/* Refuse the value at path, saying why (fmt with up to two %s, a and b). */
static int refuse(struct msg *msg, const char *path, const char *fmt, const char *a, const char *b)
{
	if (!msg)
		return -1;
	snprintf(msg->buf, msg->len, "%s%s", path[0] || msg->paths == JSON_SCHEMA_MEMBERS ? path : "/",
		 path[0] || msg->paths == JSON_SCHEMA_POINTER ? ": " : "");
	append(msg->buf, msg->len, fmt, a, b);
	return -1;
}

static int expected(const struct json_schema *s, const cJSON *sch, const char *path,
		    struct msg *msg)
{
	if (!msg)
		return -1;
	refuse(msg, path, "expected ", NULL, NULL);
	describe(s, sch, msg->buf, msg->len);
	return -1;
}

/* Whether keyword kw is lit: its first byte tells most apart, and the
 * check runs this for every keyword of every schema a value meets. */
static int kw_is(const char *kw, const char *lit)
{
	return kw[0] == lit[0] && strcmp(kw, lit) == 0;
}

/* The members of an object are checked with "properties", where
 * "additionalProperties" (false) refuses those it does not name, and a
 * member given twice is refused: JSON leaves open which one counts. */
static int check(const struct json_schema *s, const cJSON *sch, const cJSON *v, const char *path,
		 struct msg *msg)
{
	const cJSON *k, *m, *e;
	char sub[160] = "";
	size_t i, n;

	cJSON_ArrayForEach(k, sch) {
		const char *kw = k->string;

		if (kw_is(kw, "$ref")) {
			if (!deref(s, k) || check(s, deref(s, k), v, path, msg) != 0)
				return -1;
		} else if (kw_is(kw, "type")) {
			for (m = cJSON_IsArray(k) ? k->child : k; m && !type_is(v, m->valuestring);
			     m = cJSON_IsArray(k) ? m->next : NULL)
				;
			if (!m)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "const")) {
			if (!equal(v, k))
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "enum")) {
			for (m = k->child; m && !equal(v, m); m = m->next)
				;
			if (!m)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "pattern") && cJSON_IsString(v)) {
			for (i = 0; i < s->npat && s->pat[i].node != k; i++)
				;
			if (i == s->npat || regexec(&s->pat[i].re, v->valuestring, 0, NULL, 0) != 0)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "minimum") && cJSON_IsNumber(v)) {
			if (num_cmp(v, k) < 0)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "maximum") && cJSON_IsNumber(v)) {
			if (num_cmp(v, k) > 0)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "minLength") && cJSON_IsString(v)) {
			if ((double)code_points(v->valuestring) < k->valuedouble)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "maxLength") && cJSON_IsString(v)) {
			if ((double)code_points(v->valuestring) > k->valuedouble)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "minItems") && cJSON_IsArray(v)) {
			if ((double)cJSON_GetArraySize(v) < k->valuedouble)
				return expected(s, sch, path, msg);
		} else if (kw_is(kw, "maxItems") && cJSON_IsArray(v)) {
			if ((double)cJSON_GetArraySize(v) > k->valuedouble)
				return refuse(msg, path, "expected at most %s items", k->valuestring,
					      NULL);
		} else if (kw_is(kw, "required") && cJSON_IsObject(v)) {
			cJSON_ArrayForEach(m, k) {
				if (!cJSON_GetObjectItemCaseSensitive(v, m->valuestring))
					return refuse(msg, path, "missing \"%s\"", m->valuestring, NULL);
			}
		} else if (kw_is(kw, "dependencies") && cJSON_IsObject(v)) {
			cJSON_ArrayForEach(m, k) {
				if (!cJSON_GetObjectItemCaseSensitive(v, m->string))
					continue;
				cJSON_ArrayForEach(e, m)
					if (!cJSON_GetObjectItemCaseSensitive(v, e->valuestring))
						return refuse(msg, path, "\"%s\" without \"%s\"",
							      m->string, e->valuestring);
			}
		} else if (kw_is(kw, "properties") && cJSON_IsObject(v)) {
			cJSON_ArrayForEach(m, v) {
				const cJSON *p = cJSON_GetObjectItemCaseSensitive(k, m->string);

				if (!p && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
						  sch, "additionalProperties")))
					return refuse(msg, path, "unknown member \"%s\"", m->string,
						      NULL);
				for (e = v->child; e != m && strcmp(e->string, m->string) != 0;
				     e = e->next)
					;
				if (e != m)
					return refuse(msg, path, "\"%s\" given twice", m->string, NULL);
				if (msg)
					sub_path(sub, sizeof(sub), msg, path, m->string, 0);
				if (p && check(s, p, m, sub, msg) != 0)
					return -1;
			}
		} else if (kw_is(kw, "additionalProperties") && cJSON_IsObject(v) && v->child &&
			   !cJSON_GetObjectItemCaseSensitive(sch, "properties")) {
			return refuse(msg, path, "unknown member \"%s\"", v->child->string, NULL);
		} else if (kw_is(kw, "items") && cJSON_IsArray(v)) {
			i = 0;
			cJSON_ArrayForEach(m, v) {
				if (msg)
					sub_path(sub, sizeof(sub), msg, path, NULL, i);
				i++;
				if (check(s, k, m, sub, msg) != 0)
					return -1;
			}
		} else if (kw_is(kw, "oneOf") || kw_is(kw, "anyOf")) {
			n = 0;
			cJSON_ArrayForEach(m, k)
				n += check(s, m, v, path, NULL) == 0;
			if (kw_is(kw, "oneOf") ? n != 1 : n == 0)
				return expected(s, sch, path, msg);
		}
	}
	return 0;
}

int json_schema_check(const struct json_schema *s, const cJSON *def, const cJSON *v,
		      enum json_schema_paths paths, char *why, size_t len)
{
	struct msg msg = { why, len, paths };

	/* Quietly first: messages cost more than the check, and only a
	 * refusal needs one. */
	if (check(s, def, v, "", NULL) == 0)
		return 0;
	why[0] = '\0';
	check(s, def, v, "", &msg);
	return -1;
}
