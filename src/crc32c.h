/*
 * CRC32C (Castagnoli), as the ring format uses it: crc32c(0, buf, len) is the
 * standard CRC-32C of buf, and crc32c(crc32c(0, a, n), b, m) is the CRC of a
 * followed by b. The hardware path (SSE4.2 on x86-64, the ARMv8 CRC
 * extension on arm64) and the portable table give the same results.
 */
#ifndef LW_SRC_CRC32C_H
#define LW_SRC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Use the hardware instructions from now on when on is non-zero and the
 * build has them; returns 1 when the hardware path is in use. Call it before
 * any other thread checksums (cpu_has_crc32c() says whether to).
 * Context: not signal-safe; does not allocate; does not block. */
int crc32c_use_hw(int on);

/* Context: signal-safe; does not allocate; does not block. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* The portable table path, exposed so tests can compare it with the
 * hardware one. Context: signal-safe; does not allocate; does not block. */
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* The checksum of one slot: CRC32C over the ticket (8 bytes, little-endian)
 * followed by the 52 payload bytes. Context: signal-safe; does not allocate;
 * does not block. */
uint32_t crc32c_slot(uint64_t ticket, const void *payload52);

#endif
