/* lastwords digest NAME...: the candidate digest the probe records. */
#include <stdio.h>
#include <string.h>

#include "../src/digest.h"
#include "commands.h"
#include "format.h"

int cmd_digest(int argc, char **argv)
{
	static const char usage[] = "lastwords digest NAME...";
	char hex[24];
	int i;

	if (argc < 2)
		return usage_error(usage, "digest needs at least one name");
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '\0')
			return usage_error(usage, "an empty name has no digest");
		fmt_digest(hex, sizeof(hex), digest_name(argv[i]));
		printf("%s  %s\n", hex, fmt_text(argv[i]));
	}
	return LW_EXIT_OK;
}
