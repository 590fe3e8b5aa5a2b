/* Placeholder: being written. */
#include "parsers.h"

int aei_dump_sniff(const char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 0;
}

int aei_dump_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err)
{
	(void)buf;
	(void)len;
	(void)out;
	(void)err;
	return 0;
}
