#include "run-name.h"

void run_name_process(char *dst, size_t len, const char *process)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; process[i] && i + 1 < len; i++) {
		char c = process[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == ':';

		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}
