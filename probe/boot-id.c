/*
 * The boot the clocks count from: its id, which setup stamps into each ring
 * and the advice compares runs by, in one place below both. (The clocks
 * themselves are read by lw_now_ns(), inline in internal.h, so the event
 * functions' hot path makes no call for them.)
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../src/hex.h"
#include "internal.h"

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
