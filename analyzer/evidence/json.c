/* JSON trees built member by member, with the first failure kept. */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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
