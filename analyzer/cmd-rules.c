/* lastwords rules: every classification rule, with its id and meaning. */
#include <getopt.h>
#include <stdio.h>

#include "classify.h"
#include "commands.h"

static const char usage[] = "lastwords rules";

static const struct command_option options[] = {
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

const struct command_help rules_help = {
	"the classification rules, with their ids",
	usage,
	options,
	"lastwords rules",
};

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t i;
	int c;

	optind = 1;
	opterr = 0;
	if ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return help_or_bad_option(c, usage, argc, argv);
	if (optind < argc)
		return usage_error(usage, "rules takes no arguments");
	for (i = 0; i < nrules; i++)
		printf("%-24s %s\n", rules[i].id, rules[i].meaning);
	return LW_EXIT_OK;
}
