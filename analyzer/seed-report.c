/* Placeholder: being written. */
#include "seed-report.h"

int seed_report(const char *path, FILE *out, FILE *err)
{
	(void)path;
	(void)out;
	fprintf(err, "seed report: not written yet\n");
	return 1;
}
