/*
 * lastwords check [--tz ZONE] [--tolerance MS] [--package NAME]...
 *                 [--fail-on CLASS[:LEVEL],...] EXPECT.json INPUT...
 *
 * A team's regression test: the report that report builds from the same
 * options and inputs, compared with what EXPECT.json says it must be
 * (schemas/expect.schema.json, expect.c). One line per difference on
 * stdout and status 14; nothing and 0 when everything holds. An EXPECT
 * file that is not an expectation is an error naming the place (4).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "expect.h"
#include "format.h"
#include "output/report-writer.h"
#include "report.h"
#include "symbolicate.h"

static const char usage[] =
	"lastwords check [--tz ZONE] [--tolerance MS] [--package NAME]...\n"
	"                [--symbols DIR]... [--mapping FILE]\n"
	"                [--fail-on CLASS[:LEVEL],...] EXPECT.json INPUT...";

static const struct command_option options[] = {
	JOIN_OPTIONS_HELP,
	{ "--fail-on CLASS[:LEVEL],...", "as report's: the exit status EXPECT.json's exit_status checks" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help check_help = {
	"the report against what a team expects of it; 14 if not",
	usage,
	options,
	"lastwords check --tz +01:00 fixtures/check/demo.json fixtures/demo",
};

/* The report of inputs under ro, as report --format json prints it, parsed
 * back, and its exit status. Prints the inputs that could not be read when
 * loud. Returns 0, -EINVAL when --mapping or --symbols cannot be applied
 * (printed), or -ENOMEM. */
static int build(char **inputs, size_t n, const struct report_options *ro, int loud, cJSON **out,
		 int *status)
{
	struct symbolicate_notes notes;
	struct bundle b;
	struct report r;
	cJSON *tree;
	char *text;
	int rc = -ENOMEM;

	if (bundle_load(inputs, n, &b) != 0)
		return -ENOMEM;
	if (symbolicate_load(&b, &ro->corr, &notes) != 0) {
		rc = -EINVAL; /* said */
		goto out_bundle;
	}
	if (report_build(&b, &ro->corr, &r) != 0)
		goto out_bundle;
	r.symbolicated = notes;
	if (loud)
		print_input_errors(&b, "");
	tree = report_json(&r);
	text = tree ? json_serialize(tree, 0) : NULL;
	cJSON_Delete(tree);
	if (text && (*out = cJSON_Parse(text))) {
		*status = report_status(&b, &r, ro);
		rc = 0;
	}
	free(text);
	report_release(&r);
out_bundle:
	bundle_release(&b);
	return rc;
}

/* The ring path of ring_forms, relative to the expectation's directory.
 * Free with free(); NULL on ENOMEM. */
static char *beside(const char *expect, const char *ring)
{
	const char *slash = strrchr(expect, '/');
	size_t dir = slash ? (size_t)(slash - expect) + 1 : 0;
	char *path;

	if (ring[0] == '/')
		dir = 0;
	if (!(path = malloc(dir + strlen(ring) + 1)))
		return NULL;
	memcpy(path, expect, dir);
	strcpy(path + dir, ring);
	return path;
}

int cmd_check(int argc, char **argv)
{
	struct report_options ro, plain;
	struct expect_diffs d = { 0 };
	const cJSON *forms, *form, *without;
	cJSON *exp = NULL, *first = NULL;
	char **inputs = NULL, *ring = NULL, prefix[600];
	int status, rc, input_failed = 0;
	struct ev_error err;
	size_t i, n;

	if ((status = parse_report_options(argc, argv, usage, &ro)) >= 0)
		return status;
	if (ro.format)
		return usage_error(usage, "check takes no --format: it prints the differences");
	if (argc - optind < 2)
		return usage_error(usage, "check needs an expectation file and at least one input");
	rc = expect_load(argv[optind], &exp, &err);
	if (rc != 0) {
		if (rc != -EINVAL)
			fprintf(stderr, "lastwords: cannot open '%s': %s\n", fmt_text(argv[optind]),
				fmt_text(err.reason));
		else if (err.line)
			fprintf(stderr, "lastwords: '%s': line %zu: %s\n", fmt_text(argv[optind]),
				err.line, fmt_text(err.reason));
		else
			fprintf(stderr, "lastwords: '%s': %s\n", fmt_text(argv[optind]),
				fmt_text(err.reason));
		return LW_EXIT_INPUT;
	}
	n = (size_t)(argc - optind - 1);
	if (!(inputs = calloc(n + 1, sizeof(*inputs))))
		goto out_nomem;
	memcpy(inputs, argv + optind + 1, n * sizeof(*inputs));

	/* The inputs alone, or with each of ring_forms in turn. */
	forms = cJSON_GetObjectItemCaseSensitive(exp, "ring_forms");
	form = forms ? forms->child : NULL;
	do {
		cJSON *rep;

		prefix[0] = '\0';
		if (form) {
			free(ring);
			if (!(ring = beside(argv[optind], form->valuestring)))
				goto out_nomem;
			inputs[n] = ring;
			snprintf(prefix, sizeof(prefix), "with %s: ", fmt_text(ring));
		}
		if ((rc = build(inputs, n + !!form, &ro, 1, &rep, &status)) != 0)
			goto out_failed;
		input_failed |= status == LW_EXIT_INPUT;
		expect_compare(exp, rep, status, prefix, &d);
		if (!first)
			first = rep;
		else
			expect_same_report(first, rep, prefix, &d);
		if (rep != first)
			cJSON_Delete(rep);
	} while (form && (form = form->next));

	without = cJSON_GetObjectItemCaseSensitive(exp, "without_args");
	if (without) {
		cJSON *rep;

		memset(&plain, 0, sizeof(plain));
		plain.corr.tolerance_ms = CORR_DEFAULT_TOLERANCE_MS;
		if ((rc = build(inputs, n, &plain, 0, &rep, &status)) != 0)
			goto out_failed;
		expect_compare(without, rep, status, "without the options: ", &d);
		cJSON_Delete(rep);
	}
	if (d.err)
		goto out_nomem;
	for (i = 0; i < d.n; i++)
		printf("%s\n", fmt_text(d.lines[i]));
	/* An unreadable input fails the check unless it is what was expected. */
	status = d.n ? LW_EXIT_DIFFERS
		 : input_failed && !cJSON_HasObjectItem(exp, "exit_status") ? LW_EXIT_INPUT
									    : LW_EXIT_OK;
	goto out;
out_failed:
	if (rc == -EINVAL) { /* the symbols or the mapping: said */
		status = LW_EXIT_INPUT;
		goto out;
	}
out_nomem:
	fprintf(stderr, "lastwords: out of memory\n");
	status = LW_EXIT_INPUT;
out:
	expect_diffs_release(&d);
	cJSON_Delete(first);
	cJSON_Delete(exp);
	free(ring);
	free(inputs);
	return status;
}
