/*
 * C11 atomic access to fields of the mapped ring, whose structs use plain
 * integer types (include/lastwords/ring.h) so that third-party readers can
 * include them. Same technique as liburing's barrier.h.
 */
#ifndef LW_SRC_ATOMICS_H
#define LW_SRC_ATOMICS_H

#include <stdatomic.h>
#include <stdint.h>

_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t), "atomic u64 size");
_Static_assert(sizeof(_Atomic uint32_t) == sizeof(uint32_t), "atomic u32 size");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");

#define A64(p) ((_Atomic uint64_t *)(p))
#define A32(p) ((_Atomic uint32_t *)(p))
#define CA64(p) ((const _Atomic uint64_t *)(p))
#define CA32(p) ((const _Atomic uint32_t *)(p))

#endif
