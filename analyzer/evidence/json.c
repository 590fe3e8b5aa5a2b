/* JSON trees built member by member, with the first failure kept. */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static cJSON *begin(struct json *j, cJSON *root)
{
	j->root = root;
	j->err = root ? 0 : -ENOMEM;
	return root;
}

cJSON *json_begin(struct json *j)
{
	return begin(j, cJSON_CreateObject());
}

cJSON *json_begin_array(struct json *j)
{
	return begin(j, cJSON_CreateArray());
}

cJSON *json_end(struct json *j)
{
	cJSON *root = j->root;

	j->root = NULL;
	if (j->err) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* Every adder ends here: item goes into parent, or is freed. Returns item
 * while it is in the tree, else NULL. */
static cJSON *put(struct json *j, cJSON *parent, const char *key, cJSON *item)
{
	if (!j->err && item && (key ? cJSON_AddItemToObject(parent, key, item)
				    : cJSON_AddItemToArray(parent, item)))
		return item;
	cJSON_Delete(item);
	j->err = -ENOMEM;
	return NULL;
}

void json_null(struct json *j, cJSON *parent, const char *key)
{
	if (!j->err)
		put(j, parent, key, cJSON_CreateNull());
}

void json_text(struct json *j, cJSON *parent, const char *key, const char *s)
{
	char *valid;

	if (j->err)
		return;
	if (!s) {
		put(j, parent, key, cJSON_CreateNull());
		return;
	}
	if (text_utf8_valid(s)) {
		put(j, parent, key, cJSON_CreateString(s));
		return;
	}
	valid = text_utf8_clean(s, TEXT_NUL);
	put(j, parent, key, valid ? cJSON_CreateString(valid) : NULL);
	free(valid);
}

void json_bool(struct json *j, cJSON *parent, const char *key, int b)
{
	if (!j->err)
		put(j, parent, key, cJSON_CreateBool(b));
}

void json_number(struct json *j, cJSON *parent, const char *key, double v)
{
	if (!j->err)
		put(j, parent, key, cJSON_CreateNumber(v));
}

/* cJSON keeps numbers as doubles; raw text keeps all 64 bits. */
static void raw(struct json *j, cJSON *parent, const char *key, const char *text)
{
	if (!j->err)
		put(j, parent, key, cJSON_CreateRaw(text));
}

void json_int(struct json *j, cJSON *parent, const char *key, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	raw(j, parent, key, buf);
}

void json_int_or_null(struct json *j, cJSON *parent, const char *key, int64_t v, int64_t absent)
{
	if (v == absent)
		json_null(j, parent, key);
	else
		json_int(j, parent, key, v);
}

void json_u64(struct json *j, cJSON *parent, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	raw(j, parent, key, buf);
}

void json_digest(struct json *j, cJSON *parent, const char *key, uint64_t digest)
{
	char buf[24];

	if (!digest) {
		json_null(j, parent, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%016" PRIx64, digest);
	json_text(j, parent, key, buf);
}

void json_name(struct json *j, cJSON *parent, const char *key, const struct vocab *v, int value,
	       const char *unknown)
{
	const char *n = vocab_name(v, value);

	if (n || unknown)
		json_text(j, parent, key, n ? n : unknown);
	else
		json_number(j, parent, key, value);
}

cJSON *json_object(struct json *j, cJSON *parent, const char *key)
{
	return j->err ? NULL : put(j, parent, key, cJSON_CreateObject());
}

cJSON *json_array(struct json *j, cJSON *parent, const char *key)
{
	return j->err ? NULL : put(j, parent, key, cJSON_CreateArray());
}

void json_item(struct json *j, cJSON *parent, const char *key, cJSON *item)
{
	put(j, parent, key, item);
}

char *json_serialize(const cJSON *o, int pretty)
{
	char *raw = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o), *text;

	if (!raw || text_utf8_valid(raw))
		return raw;
	/* cJSON escapes the control characters below 0x20 and copies every
	 * other byte: make them valid, and escape TEXT_NUL. Both can only be
	 * inside strings (a raw value's too), where U+FFFD and \u0000 are
	 * valid. */
	text = text_utf8_clean(raw, "\\u0000");
	free(raw);
	return text;
}

const char *json_get_string(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long json_get_int(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsRaw(v))
		return (long long)strtoull(v->valuestring, NULL, 10);
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : 0;
}

/* --- syntax errors ---
 *
 * cJSON says only where it gave up, which can be well after the mistake.
 * This strict RFC 8259 check runs first and names the first byte that the
 * grammar does not allow, and what it allows there. It also refuses what
 * cJSON would read as something else: a \u0000 escape (cJSON cuts the
 * string there), a string that is not UTF-8 (overlong forms, surrogates,
 * past U+10FFFF, cut short), a \u escape that is half a surrogate pair,
 * and nesting past cJSON's limit, each by what it is.
 */

#if JSON_DEPTH_MAX > CJSON_NESTING_LIMIT
#error "cJSON reads no deeper than CJSON_NESTING_LIMIT"
#endif

struct jv {
	const char *p, *end;
	const char *want; /* what the grammar allows at p, on failure */
	const char *why;  /* or what is wrong at p, when the grammar allows it */
	const char *key;  /* the name of the member being read, in the buffer */
	size_t key_len;
	int depth;
};

static int jv_fail(struct jv *v, const char *want)
{
	v->want = want;
	return -1;
}

static int jv_refuse(struct jv *v, const char *why)
{
	v->why = why;
	return -1;
}

static void jv_ws(struct jv *v)
{
	while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r'))
		v->p++;
}

static int jv_is_digit(const struct jv *v)
{
	return v->p < v->end && *v->p >= '0' && *v->p <= '9';
}

static int jv_digits(struct jv *v)
{
	if (!jv_is_digit(v))
		return jv_fail(v, "a digit");
	while (jv_is_digit(v))
		v->p++;
	return 0;
}

static int jv_number(struct jv *v)
{
	if (*v->p == '-')
		v->p++;
	if (v->p < v->end && *v->p == '0')
		v->p++;
	else if (jv_digits(v) != 0)
		return -1;
	if (v->p < v->end && *v->p == '.') {
		v->p++;
		if (jv_digits(v) != 0)
			return -1;
	}
	if (v->p < v->end && (*v->p == 'e' || *v->p == 'E')) {
		v->p++;
		if (v->p < v->end && (*v->p == '+' || *v->p == '-'))
			v->p++;
		return jv_digits(v);
	}
	return 0;
}

/* The UTF-8 sequence at v->p (its first byte 0x80 or more), stepped
 * over: 0, or -1 at the byte where it goes wrong (RFC 3629). */
static int jv_utf8(struct jv *v)
{
	unsigned char c = (unsigned char)*v->p, lo = 0x80, hi = 0xbf;
	int more, i;

	if (c >= 0xc2 && c <= 0xdf)
		more = 1;
	else if (c >= 0xe0 && c <= 0xef)
		more = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		more = 3;
	else
		return jv_refuse(v, c == 0xc0 || c == 0xc1 ? "an overlong UTF-8 sequence"
							   : "a byte that starts no UTF-8 character");
	if (c == 0xe0)
		lo = 0xa0; /* below: overlong */
	else if (c == 0xed)
		hi = 0x9f; /* above: a surrogate */
	else if (c == 0xf0)
		lo = 0x90; /* below: overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* above: past U+10FFFF */
	for (i = 1; i <= more; i++) {
		unsigned char n = v->p + i < v->end ? (unsigned char)v->p[i] : 0;

		if (n < 0x80 || n > 0xbf) {
			v->p += i;
			return jv_refuse(v, "a UTF-8 sequence cut short");
		}
		if (i == 1 && (n < lo || n > hi))
			return jv_refuse(v, c == 0xed ? "a surrogate encoded in UTF-8"
					    : c == 0xf4 ? "a UTF-8 sequence past U+10FFFF"
							: "an overlong UTF-8 sequence");
	}
	v->p += more + 1;
	return 0;
}

/* The four hexadecimal digits after "\u" at v->p (the 'u'), stepped over
 * to the last: 0 with *cp, or -1. */
static int jv_hex4(struct jv *v, unsigned *cp)
{
	int i;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		char c;

		v->p++;
		if (v->p >= v->end || !*v->p || !strchr("0123456789abcdefABCDEF", *v->p))
			return jv_fail(v, "four hexadecimal digits after \\u");
		c = *v->p;
		*cp = *cp * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return 0;
}

static int jv_string(struct jv *v)
{
	const char *esc;
	unsigned cp, lo;

	for (v->p++; v->p < v->end; v->p++) {
		if (*v->p == '"') {
			v->p++;
			return 0;
		}
		if ((unsigned char)*v->p < 0x20)
			return jv_fail(v, "a closing '\"' (control characters in strings must be "
					  "escaped)");
		if ((unsigned char)*v->p >= 0x80) {
			if (jv_utf8(v) != 0)
				return -1;
			v->p--;
			continue;
		}
		if (*v->p != '\\')
			continue;
		esc = v->p++;
		if (v->p < v->end && *v->p && strchr("\"\\/bfnrt", *v->p))
			continue;
		if (v->p >= v->end || *v->p != 'u')
			return jv_fail(v, "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
		if (jv_hex4(v, &cp) != 0)
			return -1;
		if (cp == 0) {
			v->p = esc;
			return jv_refuse(v, "a \\u0000 escape (a string cannot hold NUL)");
		}
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			v->p = esc;
			return jv_refuse(v, "a \\u escape of a low surrogate with no high one before it");
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (v->end - v->p < 3 || v->p[1] != '\\' || v->p[2] != 'u') {
				v->p = esc;
				return jv_refuse(v, "a \\u escape of a high surrogate with no low one after "
						    "it");
			}
			v->p += 2;
			if (jv_hex4(v, &lo) != 0)
				return -1;
			if (lo < 0xdc00 || lo > 0xdfff) {
				v->p = esc;
				return jv_refuse(v, "a \\u escape of a high surrogate with no low one "
						    "after it");
			}
		}
	}
	return jv_fail(v, "a closing '\"'");
}

static int jv_literal(struct jv *v, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(v->end - v->p) < n || memcmp(v->p, lit, n) != 0)
		return jv_fail(v, "a value");
	v->p += n;
	return 0;
}

static int jv_value(struct jv *v);

/* The members of an object or the elements of an array, after its opening
 * bracket. */
static int jv_container(struct jv *v, char close)
{
	const char *outer_key = v->key, *name;
	size_t outer_len = v->key_len;
	int obj = close == '}';

	jv_ws(v);
	if (v->p < v->end && *v->p == close) {
		v->p++;
		return 0;
	}
	for (;;) {
		if (obj) {
			if (v->p >= v->end || *v->p != '"')
				return jv_fail(v, "a member name in double quotes");
			name = v->p + 1;
			if (jv_string(v) != 0)
				return -1;
			v->key = name;
			v->key_len = (size_t)(v->p - 1 - name);
			jv_ws(v);
			if (v->p >= v->end || *v->p != ':')
				return jv_fail(v, "':' after the member name");
			v->p++;
		}
		if (jv_value(v) != 0)
			return -1;
		v->key = outer_key;
		v->key_len = outer_len;
		jv_ws(v);
		if (v->p < v->end && *v->p == close) {
			v->p++;
			return 0;
		}
		if (v->p >= v->end || *v->p != ',')
			return jv_fail(v, obj ? "',' or '}'" : "',' or ']'");
		v->p++;
		jv_ws(v);
	}
}

static int jv_value(struct jv *v)
{
	int rc;

	jv_ws(v);
	if (v->p >= v->end)
		return jv_fail(v, "a value");
	switch (*v->p) {
	case '{':
	case '[':
		if (++v->depth > JSON_DEPTH_MAX)
			return jv_refuse(v, "objects and arrays nested deeper than the limit, 1000");
		v->p++;
		rc = jv_container(v, v->p[-1] == '{' ? '}' : ']');
		v->depth--;
		return rc;
	case '"':
		return jv_string(v);
	case 't':
		return jv_literal(v, "true");
	case 'f':
		return jv_literal(v, "false");
	case 'n':
		return jv_literal(v, "null");
	default:
		if (*v->p == '-' || (*v->p >= '0' && *v->p <= '9'))
			return jv_number(v);
		return jv_fail(v, "a value");
	}
}

int json_check(const char *buf, size_t len, size_t off, struct ev_error *err)
{
	struct jv v = { buf + off, buf + len, NULL, NULL, NULL, 0, 0 };
	const char *bol;
	char found[32], member[80] = "";
	size_t col;

	if (jv_value(&v) == 0) {
		jv_ws(&v);
		if (v.p == v.end)
			return 0;
		v.want = "the end of the input after the top-level value";
	}
	if (v.p >= v.end)
		snprintf(found, sizeof(found), "the end of the input");
	else if ((unsigned char)*v.p < 0x20 || (unsigned char)*v.p > 0x7e)
		snprintf(found, sizeof(found), "byte 0x%02x", (unsigned char)*v.p);
	else
		snprintf(found, sizeof(found), "'%c'", *v.p);
	err->line = 1;
	for (bol = buf; bol < v.p; bol++)
		err->line += *bol == '\n';
	for (bol = v.p; bol > buf && bol[-1] != '\n'; bol--)
		;
	col = (size_t)(v.p - bol) + 1;
	/* the member, as far as its name is plain text */
	if (v.key && v.key_len < 48 && v.key + v.key_len <= v.end) {
		size_t i;

		for (i = 0; i < v.key_len && v.key[i] >= 0x20 && v.key[i] < 0x7f &&
			    v.key[i] != '\\' && v.key[i] != '"';
		     i++)
			;
		if (i == v.key_len)
			snprintf(member, sizeof(member), " in member \"%.*s\"", (int)v.key_len, v.key);
	}
	if (v.why)
		snprintf(err->reason, sizeof(err->reason), "refused JSON at column %zu%s: %s", col,
			 member, v.why);
	else
		snprintf(err->reason, sizeof(err->reason),
			 "malformed JSON at column %zu%s: expected %s, found %s", col, member, v.want,
			 found);
	return -1;
}

cJSON *json_read(const char *buf, size_t len, size_t off, struct ev_error *err)
{
	cJSON *o;

	if (json_check(buf, len, off, err) != 0)
		return NULL;
	o = json_parse_exact(buf + off, len - off);
	if (!o) {
		err->line = 0;
		snprintf(err->reason, sizeof(err->reason), "%s", strerror(ENOMEM));
	}
	return o;
}

/* --- exact numbers --- */

/* Give each number of the tree at o, in document order, the next number
 * token of *p (buf's text, which holds o's JSON) as its valuestring. */
static int keep_number_text(cJSON *o, const char **p, const char *end)
{
	cJSON *c;
	const char *s = *p, *t;

	if (cJSON_IsNumber(o)) {
		/* the next token outside a string (a key's or a value's)
		 * that starts a number */
		for (; s < end && *s != '-' && (*s < '0' || *s > '9'); s++)
			if (*s == '"')
				for (s++; s < end && *s != '"'; s++)
					s += *s == '\\';
		for (t = s; t < end && strchr("+-.0123456789eE", *t) && *t; t++)
			;
		o->valuestring = cJSON_malloc((size_t)(t - s) + 1); /* cJSON_Delete() frees it */
		if (!o->valuestring)
			return -1;
		memcpy(o->valuestring, s, (size_t)(t - s));
		o->valuestring[t - s] = '\0';
		*p = t;
		return 0;
	}
	for (c = o->child; c; c = c->next)
		if (keep_number_text(c, p, end) != 0)
			return -1;
	return 0;
}

cJSON *json_parse_exact(const char *buf, size_t len)
{
	cJSON *o = cJSON_ParseWithLength(buf, len);
	const char *p = buf;

	if (o && keep_number_text(o, &p, buf + len) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int json_number_u64(const cJSON *num, int *neg, uint64_t *mag)
{
	const char *s = num->valuestring;
	uint64_t v = 0;

	if (!cJSON_IsNumber(num) || !s)
		return 0;
	*neg = *s == '-';
	for (s += *neg; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*mag = v;
	return 1;
}

/* Digit k of the digits of a number's text, whose integer part is
 * ip[0, ni) and whose fraction follows it after the point. */
static int digit_at(const char *ip, size_t ni, size_t k)
{
	return (k < ni ? ip[k] : ip[k + 1]) - '0';
}

int json_number_integer(const cJSON *num, int64_t *v)
{
	const char *s = num->valuestring, *ip;
	size_t ni, nf = 0, n, first, last, k;
	long long exp = 0;
	uint64_t mag = 0, limit;
	int neg;

	if (!cJSON_IsNumber(num) || !s)
		return 0;
	neg = *s == '-';
	ip = s + neg;
	for (ni = 0; ip[ni] >= '0' && ip[ni] <= '9'; ni++)
		;
	if (ip[ni] == '.')
		while (ip[ni + 1 + nf] >= '0' && ip[ni + 1 + nf] <= '9')
			nf++;
	s = ip + ni + (nf ? nf + 1 : 0);
	if (*s == 'e' || *s == 'E') {
		int eneg;

		s++;
		eneg = *s == '-';
		s += *s == '-' || *s == '+';
		for (; *s >= '0' && *s <= '9'; s++)
			if (exp < 1000000000LL)
				exp = exp * 10 + (*s - '0');
		exp = eneg ? -exp : exp;
	}
	n = ni + nf;
	for (first = 0; first < n && digit_at(ip, ni, first) == 0; first++)
		;
	if (first == n) {
		*v = 0;
		return 1;
	}
	for (last = n; digit_at(ip, ni, last - 1) == 0; last--)
		;
	/* the power of ten of the last digit that is not 0 */
	exp += (long long)(n - last) - (long long)nf;
	if (exp < 0)
		return 0;
	if ((long long)(last - first) + exp > 19)
		return -1;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (k = first; k < last; k++) {
		uint64_t d = (uint64_t)digit_at(ip, ni, k);

		if (mag > (limit - d) / 10)
			return -1;
		mag = mag * 10 + d;
	}
	for (; exp > 0; exp--) {
		if (mag > limit / 10)
			return -1;
		mag *= 10;
	}
	*v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 1;
}

int json_get_u64(const cJSON *obj, const char *key, uint64_t *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
	uint64_t mag;
	int neg;

	if (!x)
		return 0;
	if (json_number_u64(x, &neg, &mag)) {
		if (neg && mag)
			return -1;
		*v = mag;
		return 1;
	}
	/* 1.0 or 1e3: an integer too, as JSON Schema counts them */
	if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= 18446744073709551616.0 ||
	    x->valuedouble != (double)(uint64_t)x->valuedouble)
		return -1;
	*v = (uint64_t)x->valuedouble;
	return 1;
}

/* --- a stream of values --- */

void json_stream_init(struct json_stream *s, struct input *in)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
}

void json_stream_release(struct json_stream *s)
{
	if (!s)
		return;
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static int stream_fail(struct ev_error *err, size_t line, const char *why)
{
	err->line = line;
	snprintf(err->reason, sizeof(err->reason), "%s", why);
	return -1;
}

static int stream_add(struct json_stream *s, const char *p, size_t n)
{
	if (s->len + n + 1 > JSON_STREAM_VALUE_MAX)
		return -1;
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *nb;

		while (cap < s->len + n + 1)
			cap *= 2;
		nb = realloc(s->buf, cap);
		if (!nb)
			return -1;
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return 0;
}

/* Scan rest for the end of the value begun (its brackets closed), into
 * the value's bytes: *done at its end. A value that is no object or array
 * ends with its line, for json_check() to name what it is. */
static int stream_scan(struct json_stream *s, int *done)
{
	size_t i;

	*done = 0;
	for (i = 0; i < s->rest.n && !*done; i++) {
		char c = s->rest.s[i];

		if (s->escape) {
			s->escape = 0;
		} else if (s->in_string) {
			s->in_string = c != '"';
			s->escape = c == '\\';
		} else if (c == '"') {
			s->in_string = 1;
		} else if (c == '{' || c == '[') {
			s->depth++;
		} else if (c == '}' || c == ']') {
			*done = --s->depth <= 0;
		} else if (s->depth == 0 && c != ' ' && c != '\t' && c != '\r') {
			i = s->rest.n;
			*done = 1;
		}
	}
	if (stream_add(s, s->rest.s, i) != 0)
		return -1;
	s->rest = span_from(s->rest, i);
	return 0;
}

int json_stream_next(struct json_stream *s, cJSON **out, size_t *line, struct ev_error *err)
{
	int got, done = 0;
	size_t off;

	s->len = 0;
	s->depth = s->in_string = s->escape = 0;
	for (;;) {
		if (s->len == 0) {
			s->rest = span_skip_spaces(s->rest);
			while (s->rest.n && s->rest.s[0] == '\r')
				s->rest = span_skip_spaces(span_from(s->rest, 1));
			s->line = s->rest_line;
		}
		if (s->rest.n == 0) {
			got = input_line(s->in, &s->rest);
			if (got < 0)
				return input_error(s->in, err);
			if (got == 0)
				break;
			s->rest_line = s->in->lineno;
			s->bol = s->rest.s;
			if (s->len && stream_add(s, "\n", 1) != 0)
				return stream_fail(err, s->line, "a JSON value larger than 1 MiB");
			continue;
		}
		/* A value begins: spaces for what comes before it on its line,
		 * so that json_check() gives the line's own columns. */
		for (off = s->len ? 0 : (size_t)(s->rest.s - s->bol); off > 0; off--)
			if (stream_add(s, " ", 1) != 0)
				return stream_fail(err, s->line, strerror(ENOMEM));
		if (stream_scan(s, &done) != 0)
			return stream_fail(err, s->line, s->len + s->rest.n + 1 > JSON_STREAM_VALUE_MAX
							     ? "a JSON value larger than 1 MiB"
							     : strerror(ENOMEM));
		if (done)
			break;
	}
	if (s->len == 0)
		return 0;
	for (off = 0; off < s->len && strchr(" \t\r\n", s->buf[off]); off++)
		;
	*out = json_read(s->buf, s->len, off, err);
	if (!*out) {
		err->line = err->line ? err->line + s->line - 1 : s->line;
		return -1;
	}
	*line = s->line;
	return 1;
}

const char *json_duplicate_key(const cJSON *obj)
{
	const cJSON *a, *b;

	for (a = obj ? obj->child : NULL; a; a = a->next)
		for (b = a->next; b; b = b->next)
			if (a->string && b->string && strcmp(a->string, b->string) == 0)
				return a->string;
	return NULL;
}
