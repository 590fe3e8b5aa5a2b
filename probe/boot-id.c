/*
 * The system's clocks, and the boot they count from: what the event
 * functions, the sampler, setup and the advice all read of time, in one
 * place below them.
 */
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/hex.h"
#include "internal.h"

uint64_t lw_now_ns(int clock_id)
{
	struct timespec ts;

	if (clock_gettime(clock_id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The kernel's boot id ("xxxxxxxx-xxxx-..."), as 16 bytes; zeros if absent. */
void lw_read_boot_id(uint8_t out[16])
{
	char buf[64];
	ssize_t n;
	int fd, i = 0, j, hi = -1;

	memset(out, 0, 16);
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (j = 0; j < n && i < 16; j++) {
		int v = hex_digit(buf[j]);

		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			out[i++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (i != 16)
		memset(out, 0, 16);
}
