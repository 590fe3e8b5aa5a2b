/*
 * Checking a JSON value against a JSON Schema (draft 7), for the readers
 * that must accept exactly what a schema of schemas/ accepts: the schema
 * is the one rule, and the reader runs it as written (embedded in the
 * binary). The keywords understood are those the project's schemas use:
 * $ref (to "#/definitions/NAME"), type (a name or a list of them), const,
 * enum, pattern (a POSIX extended regular expression, searched as JSON
 * Schema does), minimum, maximum, minLength, maxLength, minItems,
 * maxItems, required, dependencies (lists of names), properties,
 * additionalProperties (false), items, oneOf and anyOf; description,
 * $schema, $id and definitions are notes, and a title names what its
 * schema accepts in messages. Numbers are compared exactly
 * (json_parse_exact()). A member given twice is refused: JSON leaves open
 * which one counts. A schema that uses another keyword is refused at
 * json_schema_open(). Never prints.
 */
#ifndef LW_ANALYZER_JSON_SCHEMA_H
#define LW_ANALYZER_JSON_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct json_schema;

/* Read a schema from its text (NUL-terminated). Returns 0 with *out (free
 * with json_schema_free()), -EINVAL for text that is no schema this
 * checker understands, or -ENOMEM. Context: allocates; no blocking. */
int json_schema_open(const char *text, struct json_schema **out);

/* Accepts NULL. */
void json_schema_free(struct json_schema *s);

/* The schema's definition NAME ("#/definitions/NAME"), or NULL; the
 * schema itself when name is NULL. Borrowed, valid while s is. Context:
 * no allocation; no blocking. */
const cJSON *json_schema_def(const struct json_schema *s, const char *name);

/* How a message names the value it refuses: by its members and items
 * ("sessions item 2 \"state\": ...", nothing for the value itself), or by
 * its JSON pointer (RFC 6901: "/runs/0/pid: ...", "/: ..." for the value
 * itself). */
enum json_schema_paths { JSON_SCHEMA_MEMBERS, JSON_SCHEMA_POINTER };

/* Whether v (of a json_parse_exact() tree) matches def (of s): 0, or -1
 * with why set to what does not, naming the value as paths says
 * ("missing \"start_mono_ns\"", "\"pid\": expected an integer from 0 to
 * 4294967295", "/runs/0: unknown member \"prompt\""). Context: no
 * allocation; no blocking. */
int json_schema_check(const struct json_schema *s, const cJSON *def, const cJSON *v,
		      enum json_schema_paths paths, char *why, size_t len);

#endif
