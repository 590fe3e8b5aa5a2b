/*
 * Building JSON trees (cJSON) one member at a time, and reading them back.
 *
 * A struct json is one tree under construction. Each adder appends one
 * value to a parent of that tree: a member named key to an object, or an
 * element to an array when key is NULL, in call order. The first failure
 * (ENOMEM: every value, key copy and container is allocated) is kept in
 * err; from then on every adder does nothing, and those that return a
 * container return NULL, which later adders accept as a parent. So a caller
 * writes one call per member and checks once: json_end() hands over the
 * whole tree, or frees it and returns NULL.
 *
 * Numbers keep the encoding each member has always had: json_number() is
 * a cJSON double; json_int() and json_u64() write raw decimal text, exact
 * over all 64 bits, which json_get_int() reads back exactly.
 *
 * Strings are made valid UTF-8 as they are added (json_text()), and the
 * text of a tree once more as it is written (json_serialize()).
 *
 * Never prints. A tree is used by one thread at a time.
 */
#ifndef LW_ANALYZER_JSON_H
#define LW_ANALYZER_JSON_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../src/vocab.h"
#include "evidence.h"
#include "input.h"

struct json {
	cJSON *root; /* the tree's root, until json_end() */
	int err;     /* 0, or -ENOMEM from the first failure on */
};

/* Start a tree whose root is an object (json_begin) or an array
 * (json_begin_array), and return the root to add to: NULL on ENOMEM, which
 * json_end() then reports. Context: allocates; no blocking. */
cJSON *json_begin(struct json *j);
cJSON *json_begin_array(struct json *j);

/* The finished tree, to free with cJSON_Delete(); or NULL if anything
 * failed, the tree freed. Either way j is spent. Context: frees on failure;
 * no blocking. */
cJSON *json_end(struct json *j);

/* The adders. parent is an object or array of j's tree (or NULL after a
 * failure); key is copied. Context: allocate; no blocking. */

/* null. */
void json_null(struct json *j, cJSON *parent, const char *key);

/* A string, or null for NULL: a copy of s made valid UTF-8, TEXT_NUL kept
 * (text_utf8_clean()), which json_serialize() writes as \u0000. */
void json_text(struct json *j, cJSON *parent, const char *key, const char *s);

/* true or false. */
void json_bool(struct json *j, cJSON *parent, const char *key, int b);

/* A double, as cJSON prints it. */
void json_number(struct json *j, cJSON *parent, const char *key, double v);

/* An exact integer; json_int_or_null() writes null when v is absent (such
 * as EV_NONE or EV_NO_TIME). */
void json_int(struct json *j, cJSON *parent, const char *key, int64_t v);
void json_int_or_null(struct json *j, cJSON *parent, const char *key, int64_t v, int64_t absent);
void json_u64(struct json *j, cJSON *parent, const char *key, uint64_t v);

/* A digest (a candidate's) as 16 lowercase hex digits, or null for 0. */
void json_digest(struct json *j, cJSON *parent, const char *key, uint64_t digest);

/* The name of value in a vocabulary table. A value the table does not
 * name (a newer writer's) is written as the text unknown, or, when unknown
 * is NULL, as the number itself. */
void json_name(struct json *j, cJSON *parent, const char *key, const struct vocab *v, int value,
	       const char *unknown);

/* A new empty object or array in parent, returned to add to (owned by the
 * tree); NULL after a failure. */
cJSON *json_object(struct json *j, cJSON *parent, const char *key);
cJSON *json_array(struct json *j, cJSON *parent, const char *key);

/* A tree built elsewhere (such as another json_end()'s), which j owns from
 * here on, even on failure, when it is freed. A NULL item is a failure. */
void json_item(struct json *j, cJSON *parent, const char *key, cJSON *item);

/* The tree as JSON text (free with free()), indented (pretty) or on one
 * line: valid UTF-8 whatever bytes its strings and raw values hold, each
 * TEXT_NUL written as \u0000. NULL on ENOMEM. Context: allocates; no
 * blocking. */
char *json_serialize(const cJSON *o, int pretty);

/* Reading back. A member's string, or NULL; borrowed, valid while obj is.
 * Keys are matched case-sensitively. Context: no allocation; no blocking. */
const char *json_get_string(const cJSON *obj, const char *key);

/* A member's integer: exact from json_int() or json_u64() raw text, 1 or
 * 0 for a boolean, truncated for a number; 0 when absent or of another
 * type. Context: no allocation; no blocking. */
long long json_get_int(const cJSON *obj, const char *key);

/* Whether buf[off, len) is one JSON value with only whitespace after it
 * (RFC 8259, strictly): 0, or -1 with err naming the line of buf (1-based),
 * the column of the first byte the grammar does not allow, the member it
 * is in (when its name is plain text), what the grammar allows there and
 * what was found. It also refuses, by what it is, what cJSON would read as
 * something else: a \u0000 escape (cJSON cuts the string there), a string
 * that is not UTF-8 (an overlong form, a surrogate, past U+10FFFF, cut
 * short), half a surrogate pair in \u escapes, and objects and arrays
 * nested deeper than JSON_DEPTH_MAX (cJSON's limit). Context: no
 * allocation; no blocking. */
#define JSON_DEPTH_MAX 1000
int json_check(const char *buf, size_t len, size_t off, struct ev_error *err);

/* The one way in for a JSON file: json_check() then json_parse_exact()
 * of buf[off, len). NULL with err (its line 0 and strerror(ENOMEM) when
 * out of memory). Context: allocates; no blocking. */
cJSON *json_read(const char *buf, size_t len, size_t off, struct ev_error *err);

/* Parse buf[0, len), which json_check() passed, keeping each number's
 * text as it was written as the number's valuestring (cJSON's numbers are
 * doubles, which lose integers past 2^53): json_number_u64() and
 * json_get_u64() read it exactly. Free with cJSON_Delete(); NULL on
 * ENOMEM. Context: allocates; no blocking. */
cJSON *json_parse_exact(const char *buf, size_t len);

/* A number of a json_parse_exact() tree written as an integer whose
 * magnitude fits 64 bits: 1 with *neg and *mag; else 0 (a fraction, an
 * exponent, more than 64 bits, or not such a number). Context: no
 * allocation; no blocking. */
int json_number_u64(const cJSON *num, int *neg, uint64_t *mag);

/* A number of a json_parse_exact() tree that is, as written, exactly an
 * integer (1.0, 1e3 and 10e-1 are; 1.5 and 1e-3 are not): 1 with *v when
 * it fits 64 bits signed; -1 when it is an integer past them (a 26-digit
 * one, 1e308); 0 when it is no integer, or no such number. Context: no
 * allocation; no blocking. */
int json_number_integer(const cJSON *num, int64_t *v);

/* A member that is an integer from 0 to 2^64 - 1 (1.0 and 1e3 are
 * integers, as JSON Schema counts them), exactly: 1 with *v; 0 when
 * absent; -1 when it is something else. Context: no allocation; no
 * blocking. */
int json_get_u64(const cJSON *obj, const char *key, uint64_t *v);

/* The first key that obj (an object) holds twice, or NULL: JSON leaves
 * what such an object means to the reader, so readers that must agree
 * refuse it. Borrowed from obj. Context: no allocation; no blocking. */
const char *json_duplicate_key(const cJSON *obj);

/*
 * A stream of JSON values separated by whitespace, read from an input a
 * line at a time: JSON lines (one value a line), the same values
 * pretty-printed over several lines, or both mixed. Each value is held
 * whole while it is read, up to JSON_STREAM_VALUE_MAX bytes. Never prints.
 */
#define JSON_STREAM_VALUE_MAX ((size_t)1 << 20)

struct json_stream {
	struct input *in;
	char *buf;              /* the value being read */
	size_t len, cap;
	struct span rest;       /* of the line read last, not scanned yet */
	const char *bol;        /* where that line begins */
	size_t rest_line, line; /* that line's number; the value's first line */
	int depth, in_string, escape;
};

/* Start reading values from in, which stays the caller's. */
void json_stream_init(struct json_stream *s, struct input *in);

/* The next value: 1 with *out (a json_parse_exact() tree, free with
 * cJSON_Delete()) and *line, the line it starts on; 0 at the end; -1 with
 * err naming the line and what is wrong (malformed JSON, a value past the
 * limit), or the input's error when a read failed (in->failed). Context:
 * allocates; reads in. */
int json_stream_next(struct json_stream *s, cJSON **out, size_t *line, struct ev_error *err);

/* Accepts NULL. */
void json_stream_release(struct json_stream *s);

#endif
