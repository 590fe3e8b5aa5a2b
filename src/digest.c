#include "digest.h"

uint64_t digest_name(const char *name)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */

	if (!name)
		return 0;
	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3u; /* FNV-1a 64 prime */
	}
	return h;
}
