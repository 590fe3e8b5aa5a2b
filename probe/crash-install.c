/*
 * Installing and removing the fatal-signal handler of crash.c, and its
 * alternate stack. Not on the crash path.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "internal.h"

/*
 * The alternate stack for the thread that installs the handler, if it has
 * none: static memory, never freed, and given to one thread per process
 * only. That thread keeps it after lw_close(), which another thread may
 * call; and two threads crashing at once on one stack would overwrite each
 * other's frames.
 */
#define CRASH_ALTSTACK_SIZE (64u * 1024u)
static _Alignas(16) unsigned char crash_altstack[CRASH_ALTSTACK_SIZE];
static atomic_int crash_altstack_given;

int lw_crash_install(struct lw *lw)
{
	struct lw *expected = NULL;
	struct sigaction sa;
	stack_t cur, ss;
	int i, rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	/* One handle per process owns the handler. seq_cst (the default),
	 * which includes the release that the handler's acquire load of
	 * crash_lw pairs with (crash.c). */
	if (!atomic_compare_exchange_strong(&crash_lw, &expected, lw))
		return -EBUSY;
	/* Keep the thread's alternate stack if it has one (bionic gives every
	 * thread one); otherwise use ours, if no thread has it yet. The
	 * exchange makes the test and the set one step; it orders nothing. */
	if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE) &&
	    !atomic_exchange(&crash_altstack_given, 1)) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = crash_altstack;
		ss.ss_size = sizeof(crash_altstack);
		sigaltstack(&ss, NULL);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler_sigsafe;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* Before any handler of ours is installed: the sigaction calls below
	 * enter the kernel, after this store. */
	atomic_store(&crash_owner, 0);
	for (i = 0; i < LW_CRASH_SIGNALS; i++) {
		if (sigaction(crash_signals[i], &sa, &crash_prev[i]) != 0) {
			int err = -errno;

			while (--i >= 0)
				sigaction(crash_signals[i], &crash_prev[i], NULL);
			atomic_store(&crash_lw, NULL);
			return err;
		}
	}
	lw->crash_installed = 1;
	return 0;
}

/* Restore the handlers that were there before ours. In a forked child too:
 * the dispositions are the child's own, and its handle is about to go. */
static void uninstall(struct lw *lw)
{
	struct sigaction cur;
	int i;

	for (i = 0; i < LW_CRASH_SIGNALS; i++) {
		/* Restore only where our handler is still the one installed. */
		if (sigaction(crash_signals[i], NULL, &cur) == 0 &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == crash_handler_sigsafe)
			sigaction(crash_signals[i], &crash_prev[i], NULL);
	}
	lw->crash_installed = 0;
	atomic_store(&crash_lw, NULL);
}

int lw_crash_uninstall(struct lw *lw)
{
	int rc = lw_usable(lw);

	if (rc != 0)
		return rc;
	if (!lw->crash_installed)
		return -EINVAL;
	uninstall(lw);
	return 0;
}

/* Called by lw_close(), also in a forked child. The alternate stack stays
 * with its thread. */
void crash_release(struct lw *lw)
{
	if (lw->crash_installed)
		uninstall(lw);
}
