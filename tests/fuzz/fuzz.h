/*
 * What every evidence fuzz harness does with an input: parse it, and when
 * the parser accepts it, turn every record into JSON and into text, as
 * `lastwords inspect` would. The sanitizers (ASan, UBSan) do the checking.
 */
#ifndef LW_TESTS_FUZZ_H
#define LW_TESTS_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../analyzer/evidence/evidence.h"
#include "../../analyzer/evidence/parsers.h"

typedef int (*fuzz_parse_fn)(const char *buf, size_t len, struct ev_file *out,
			     struct ev_error *err);

static inline int fuzz_parse(const uint8_t *data, size_t size, fuzz_parse_fn parse)
{
	struct ev_file f;
	struct ev_error err;
	char *buf = malloc(size + 1), line[1024];
	size_t i;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0'; /* as input_read() leaves it */
	memset(&f, 0, sizeof(f));
	if (parse(buf, size, &f, &err) == 0) {
		cJSON *json = ev_records_json(&f);
		char *text = json ? cJSON_PrintUnformatted(json) : NULL;

		free(text);
		cJSON_Delete(json);
		for (i = 0; i < ev_record_count(&f); i++)
			ev_record_text(&f, i, line, sizeof(line));
	} else if (err.reason[0] == '\0') {
		abort(); /* a refusal must say why */
	}
	ev_file_release(&f);
	free(buf);
	return 0;
}

#endif
