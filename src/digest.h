/* Candidate digests: 64-bit FNV-1a over the name's bytes. The probe records
 * only the digest; `lastwords digest NAME` computes the same value. */
#ifndef LW_SRC_DIGEST_H
#define LW_SRC_DIGEST_H

#include <stdint.h>

/* Context: signal-safe; does not allocate; does not block. */
uint64_t digest_name(const char *name);

#endif
