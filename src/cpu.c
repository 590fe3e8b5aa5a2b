/* CPU feature detection, kept apart from crc32c.c so that the crash path
 * links no detection code. Uses cpuid on x86 and getauxval() on arm64,
 * both available in glibc and bionic. */
#include "cpu.h"

#include "crc32c.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

int cpu_has_crc32c(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	return (c & bit_SSE4_2) != 0;
#elif defined(__aarch64__)
	return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
	return 0;
#endif
}

int cpu_crc32c_setup(void)
{
	return crc32c_use_hw(cpu_has_crc32c());
}
