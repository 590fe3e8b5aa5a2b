/* lastwords digest [--] NAME...: the candidate digest the probe records. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../src/digest.h"
#include "commands.h"
#include "format.h"

static const char usage[] = "lastwords digest [--] NAME...";

static const struct command_option options[] = {
	{ "--", "the end of the options: a NAME that starts with '-' comes after it" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help digest_help = {
	"the candidate digest the probe records for a name",
	usage,
	options,
	"lastwords digest model-v7-int8",
};

int cmd_digest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char hex[24];
	int c, i;

	/* No options but --help: a name that starts with '-' comes after "--". */
	optind = 1;
	opterr = 0;
	if ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return help_or_bad_option(c, usage, argc, argv);
	if (optind >= argc)
		return usage_error(usage, "digest needs at least one name");
	for (i = optind; i < argc; i++) {
		if (argv[i][0] == '\0')
			return usage_error(usage, "an empty name has no digest");
		fmt_digest(hex, sizeof(hex), digest_name(argv[i]));
		printf("%s  %s\n", hex, fmt_text(argv[i]));
	}
	return LW_EXIT_OK;
}
