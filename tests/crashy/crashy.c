/*
 * A library that crashes where its debug info can say (tests/report-symbols.py):
 * crashy_entry() calls crashy_middle(), which calls crashy_leaf(), into
 * which poke() is inlined; poke() writes through a null pointer. Each line
 * that a symbolicated frame must name carries a LINE: comment, which the
 * test finds. Built with -g and frame pointers, so that the driver
 * (symbols-crash.c) can walk the stack as debuggerd's unwinder would.
 */
#include <stddef.h>

int crashy_sink;

static inline __attribute__((always_inline)) void poke(volatile int *p, int v)
{
	*p = v; /* LINE:poke */
}

__attribute__((noinline)) void crashy_count(int v)
{
	crashy_sink += v;
}

/* It calls crashy_count() first, so that it is no leaf function and keeps
 * a frame pointer, as an unwinder without CFI needs. */
__attribute__((noinline)) void crashy_leaf(volatile int *p, int v)
{
	crashy_count(v);
	poke(p, v + 1); /* LINE:leaf-calls-poke */
	crashy_count(v);
}

__attribute__((noinline)) void crashy_middle(volatile int *p, int v)
{
	crashy_leaf(p, v * 2); /* LINE:middle-calls-leaf */
	crashy_sink++;
}

__attribute__((noinline, visibility("default"))) void crashy_entry(int v)
{
	crashy_middle(NULL, v); /* LINE:entry-calls-middle */
	crashy_sink++;
}
