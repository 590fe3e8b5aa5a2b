/*
 * Every allocation of the process counted, for the tests that prove the
 * probe allocates nothing after lw_open(): link with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/meson.build) and
 * read g_allocs before and after. One test file per program includes it.
 */
#ifndef LW_TESTS_ALLOC_COUNT_H
#define LW_TESTS_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stddef.h>

static atomic_long g_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	atomic_fetch_add(&g_allocs, 1);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	atomic_fetch_add(&g_allocs, 1);
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	atomic_fetch_add(&g_allocs, 1);
	return __real_realloc(p, n);
}

#endif
