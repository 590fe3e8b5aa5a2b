/*
 * Checking a JSON value against a JSON Schema (draft 7), for the readers
 * that must accept exactly what a schema of schemas/ accepts: the schema
 * is the one rule, and the reader runs it as written (embedded in the
 * binary). The keywords understood are those the project's schemas use:
 * $ref (to "#/definitions/NAME"), type, const, enum, pattern (a POSIX
 * extended regular expression, searched as JSON Schema does), minimum,
 * maximum, maxLength, maxItems, required, properties,
 * additionalProperties (false), items and oneOf; description, title,
 * $schema, $id and definitions are notes. Numbers are compared exactly
 * (json_parse_exact()). A schema that uses another keyword is refused at
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

/* The schema's definition NAME ("#/definitions/NAME"), or NULL; borrowed,
 * valid while s is. Context: no allocation; no blocking. */
const cJSON *json_schema_def(const struct json_schema *s, const char *name);

/* Whether v (of a json_parse_exact() tree) matches def (of s): 0, or -1
 * with why set to what does not, naming the member ("missing
 * \"start_mono_ns\"", "\"pid\": expected an integer from 0 to 4294967295",
 * "unknown member \"prompt\""). Context: no allocation; no blocking. */
int json_schema_check(const struct json_schema *s, const cJSON *def, const cJSON *v, char *why,
		      size_t len);

#endif
