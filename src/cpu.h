/* CPU feature detection for the checksum path. */
#ifndef LW_SRC_CPU_H
#define LW_SRC_CPU_H

/* 1 when this CPU has CRC32C instructions that crc32c.c can use.
 * Context: not signal-safe; does not allocate; does not block. */
int cpu_has_crc32c(void);

/* Detect once and switch crc32c to hardware when available; idempotent.
 * Returns 1 when the hardware path is in use.
 * Context: not signal-safe; does not allocate; does not block. */
int cpu_crc32c_setup(void);

#endif
