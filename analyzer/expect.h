/*
 * Expectations about a report (lastwords check, schemas/expect.schema.json):
 * an EXPECT file read and checked against the schema's rules, and a report
 * compared with it, one line per difference. The report is compared as JSON
 * (report_json(), as report --format json prints it, parsed back), so what
 * check says is what a team would see in that output.
 *
 * Never prints.
 */
#ifndef LW_ANALYZER_EXPECT_H
#define LW_ANALYZER_EXPECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "evidence/evidence.h"

/* The differences found, in the order found: lines without a newline. */
struct expect_diffs {
	char **lines;
	size_t n;
	int err; /* 0, or -ENOMEM: a line could not be added (the rest are) */
};

/* Read the expectation file path and check it against the schema's rules.
 * Returns 0 with *out (free with cJSON_Delete()); -EINVAL when it is not an
 * expectation, err saying where and why: err->line for JSON that does not
 * parse, else err->reason beginning with the JSON pointer of the value at
 * fault ("/runs/0/classification: ..."); or -1 when it cannot be read,
 * err->reason the cause. Context: allocates; reads the file. */
int expect_load(const char *path, cJSON **out, struct ev_error *err);

/* Compare report (report --format json, parsed) and status, the exit status
 * report gives on it, with exp: the file's top level, or its without_args.
 * Each difference becomes one line of d, prefix (such as "with RING: ")
 * before it. Members exp leaves out are not checked. Context: allocates. */
void expect_compare(const cJSON *exp, const cJSON *report, int status, const char *prefix,
		    struct expect_diffs *d);

/* Reports a and b must be the same but for the file names of their inputs
 * and runs: the same runs given as a binary ring and as JSON lines
 * (ring_forms, a the first form's). When they are not, one line of d says
 * so, prefix before it. Context: allocates. */
void expect_same_report(const cJSON *a, const cJSON *b, const char *prefix,
			struct expect_diffs *d);

/* Free d's lines and zero it. Accepts a zeroed d. */
void expect_diffs_release(struct expect_diffs *d);

#endif
