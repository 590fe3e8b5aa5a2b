/*
 * What every evidence fuzz harness does with an input: parse it, and when
 * the parser accepts it, turn every record into JSON and into text, as
 * `lastwords inspect` would. The line-oriented parsers read the bytes
 * through the reader that reads files (input.h, over memory), the JSON
 * ones as a whole buffer, as ev_parse() hands it to them. The sanitizers
 * (ASan, UBSan) do the checking.
 */
#ifndef LW_TESTS_FUZZ_H
#define LW_TESTS_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../analyzer/evidence/evidence.h"
#include "../../analyzer/evidence/input.h"
#include "../../analyzer/evidence/parsers.h"

typedef int (*fuzz_parse_fn)(struct input *in, struct ev_file *out, struct ev_error *err);
typedef int (*fuzz_parse_whole_fn)(const char *buf, size_t len, struct ev_file *out,
				   struct ev_error *err);

/* The records of a parse that returned rc, as inspect prints them. */
static inline void fuzz_records(struct ev_file *f, int rc, const struct ev_error *err)
{
	char line[1024];
	size_t i;

	if (rc == 0) {
		cJSON *json = ev_records_json(f);
		char *text = json ? cJSON_PrintUnformatted(json) : NULL;

		free(text);
		cJSON_Delete(json);
		for (i = 0; i < ev_record_count(f); i++)
			ev_record_text(f, i, line, sizeof(line));
		ev_cut_text(&f->stats, line, sizeof(line));
	} else if (err->reason[0] == '\0') {
		abort(); /* a refusal must say why */
	}
	ev_file_release(f);
}

static inline int fuzz_parse(const uint8_t *data, size_t size, fuzz_parse_fn parse)
{
	struct ev_file f;
	struct ev_error err = { 0, "" };
	struct input in;

	memset(&f, 0, sizeof(f));
	input_init_mem(&in, (const char *)data, size);
	fuzz_records(&f, parse(&in, &f, &err), &err);
	input_release(&in);
	return 0;
}

static inline int fuzz_parse_whole(const uint8_t *data, size_t size, fuzz_parse_whole_fn parse)
{
	struct ev_file f;
	struct ev_error err = { 0, "" };
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0'; /* as input_whole() leaves it */
	memset(&f, 0, sizeof(f));
	fuzz_records(&f, parse(buf, size, &f, &err), &err);
	free(buf);
	return 0;
}

#endif
