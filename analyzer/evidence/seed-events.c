/*
 * The seed's events JSON (seeds/lifecycle_probe.py): a list of objects with
 * time_ms, stage, rss_mb, budget_mb, sessions and an optional exit_reason.
 * Read tolerantly here; `report --format seed` applies the seed's own checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parsers.h"
#include "text.h"

/* The first bytes, skipping a UTF-8 byte order mark and whitespace. */
static const char *json_start(const char *buf, size_t len, size_t *off)
{
	size_t i = 0;

	if (len >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb &&
	    (unsigned char)buf[2] == 0xbf)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	*off = i;
	return i < len ? buf + i : NULL;
}

int seed_sniff(const char *buf, size_t len)
{
	size_t off, n = len < 4096 ? len : 4096;
	const char *p = json_start(buf, len, &off);
	struct span head = span_of(buf, n);

	return p && *p == '[' && span_find(head, "\"stage\"") >= 0 &&
	       (span_find(head, "\"time_ms\"") >= 0 || span_find(head, "\"rss_mb\"") >= 0);
}

static size_t line_of(const char *buf, const char *at)
{
	size_t line = 1;
	const char *p;

	for (p = buf; p < at; p++)
		if (*p == '\n')
			line++;
	return line;
}

static int64_t int_or_none(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    fabs(v->valuedouble) > 9.0e15)
		return EV_NONE;
	return (int64_t)v->valuedouble;
}

static char *str_or_null(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

int seed_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err)
{
	cJSON *root, *item;
	size_t i = 0, off;
	void *nv;

	json_start(buf, len, &off);
	root = json_read(buf, len, off, err);
	if (!root)
		return -1;
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		err->line = line_of(buf, buf + off);
		snprintf(err->reason, sizeof(err->reason), "expected a JSON list of events");
		return -1;
	}
	out->stats.lines = line_of(buf, buf + len);
	cJSON_ArrayForEach(item, root) {
		struct seed_event *s;

		if (!cJSON_IsObject(item)) {
			ev_skip(&out->stats, 0);
			i++;
			continue;
		}
		nv = realloc(out->seeds, (out->nseeds + 1) * sizeof(*out->seeds));
		if (!nv) {
			cJSON_Delete(root);
			snprintf(err->reason, sizeof(err->reason), "out of memory");
			return -1;
		}
		out->seeds = nv;
		s = &out->seeds[out->nseeds++];
		s->index = i++;
		s->time_ms = int_or_none(item, "time_ms");
		s->stage = str_or_null(item, "stage");
		s->rss_mb = int_or_none(item, "rss_mb");
		s->budget_mb = int_or_none(item, "budget_mb");
		s->sessions = int_or_none(item, "sessions");
		s->exit_reason = str_or_null(item, "exit_reason");
	}
	cJSON_Delete(root);
	return 0;
}
