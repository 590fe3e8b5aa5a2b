/* lastwords rules: every classification rule, with its id and meaning. */
#include <stdio.h>

#include "classify.h"
#include "commands.h"

int cmd_rules(int argc, char **argv)
{
	size_t i;

	(void)argv;
	if (argc > 1)
		return usage_error("lastwords rules", "rules takes no arguments");
	for (i = 0; i < nrules; i++)
		printf("%-24s %s\n", rules[i].id, rules[i].meaning);
	return LW_EXIT_OK;
}
