/* The table of the report's writers (report-writer.h). */
#include "report-writer.h"

#include <string.h>

#define WRITER(name, what, write) { #name, write },
const struct report_writer report_writers[] = {
	REPORT_WRITERS(WRITER)
	{ NULL, NULL },
};

const struct report_writer *report_writer_find(const char *name)
{
	const struct report_writer *w;

	for (w = report_writers; w->name; w++)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}
