/*
 * The probe's alternate signal stack goes to one thread and stays valid.
 * Thread A opens the probe and installs the crash handler: A had no
 * alternate stack, so it gets the probe's. A uninstalls it, and thread B
 * installs it again: B must not get the same stack, or two threads
 * crashing at once would run their handlers on one stack. B then closes the
 * probe: A still has that stack, so its memory must stay valid, and no
 * later allocation may hand it out (glibc's malloc would reuse a freed
 * block of that size at once). A then takes a signal on it.
 */
#include <pthread.h>
#include <signal.h>

#include "helpers.h"

#include <lastwords/probe.h>

static struct lw *g_lw;
static pthread_barrier_t g_step;
static stack_t g_a_stack;
static volatile sig_atomic_t g_on_altstack;

static void on_usr1(int sig)
{
	stack_t cur;

	(void)sig;
	g_on_altstack = sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK);
}

static void *thread_a(void *dir)
{
	struct lw_config cfg = { .dir = dir, .process_name = "com.altstack", .slot_count = 16 };
	struct sigaction sa;
	stack_t cur, off, runtime;
	char *blocks[16];
	int i;

	/* A sanitizer runtime gives every thread an alternate stack, and
	 * unmaps the one a thread has when it exits: A must have none to get
	 * the probe's, and gets the runtime's back before it exits. */
	memset(&off, 0, sizeof(off));
	off.ss_flags = SS_DISABLE;
	T_ASSERT(sigaltstack(&off, &runtime) == 0 && sigaltstack(NULL, &cur) == 0 &&
		 (cur.ss_flags & SS_DISABLE), "thread A keeps an alternate stack");
	T_ASSERT(lw_open(&cfg, &g_lw) == 0, "lw_open");
	T_ASSERT(lw_crash_install(g_lw) == 0, "A: lw_crash_install");
	T_ASSERT(sigaltstack(NULL, &g_a_stack) == 0 && !(g_a_stack.ss_flags & SS_DISABLE),
		 "A: no alternate stack after lw_crash_install");
	T_ASSERT(lw_crash_uninstall(g_lw) == 0, "A: lw_crash_uninstall");
	pthread_barrier_wait(&g_step); /* B installs, then closes */
	pthread_barrier_wait(&g_step);

	T_ASSERT(sigaltstack(NULL, &cur) == 0 && cur.ss_sp == g_a_stack.ss_sp,
		 "A: its alternate stack changed");
	for (i = 0; i < 16; i++) {
		const char *sp = cur.ss_sp;

		blocks[i] = malloc(cur.ss_size);
		T_ASSERT(blocks[i] != NULL, "malloc");
		T_ASSERT(blocks[i] + cur.ss_size <= sp || blocks[i] >= sp + cur.ss_size,
			 "malloc handed out thread A's alternate stack (%p, %zu bytes) after "
			 "lw_close: freed while in use", cur.ss_sp, cur.ss_size);
		memset(blocks[i], 0xa5, cur.ss_size);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	T_ASSERT(pthread_kill(pthread_self(), SIGUSR1) == 0, "pthread_kill");
	T_ASSERT(g_on_altstack, "A: SIGUSR1 did not run on the alternate stack");
	for (i = 0; i < 16; i++)
		free(blocks[i]);
	if (!(runtime.ss_flags & SS_DISABLE))
		T_ASSERT(sigaltstack(&runtime, NULL) == 0, "restore the runtime's stack");
	return NULL;
}

static void *thread_b(void *arg)
{
	stack_t cur;

	(void)arg;
	T_ASSERT(lw_crash_install(g_lw) == 0, "B: lw_crash_install");
	T_ASSERT(sigaltstack(NULL, &cur) == 0, "sigaltstack");
	T_ASSERT((cur.ss_flags & SS_DISABLE) || cur.ss_sp != g_a_stack.ss_sp,
		 "B got thread A's alternate stack (%p): two threads would share it", cur.ss_sp);
	T_ASSERT(lw_close(g_lw) == 0, "B: lw_close");
	return NULL;
}

int main(void)
{
	char *dir = strdup(t_tmpdir("altstack"));
	pthread_t a, b;

	T_ASSERT(pthread_barrier_init(&g_step, NULL, 2) == 0, "barrier");
	T_ASSERT(pthread_create(&a, NULL, thread_a, dir) == 0, "thread A");
	pthread_barrier_wait(&g_step);
	T_ASSERT(pthread_create(&b, NULL, thread_b, NULL) == 0 && pthread_join(b, NULL) == 0,
		 "thread B");
	pthread_barrier_wait(&g_step);
	T_ASSERT(pthread_join(a, NULL) == 0, "join A");
	t_rmdir(dir);
	free(dir);
	printf("altstack: one thread gets the probe's, and it outlives lw_close\n");
	return T_PASS;
}
