/*
 * Linux signal numbers and si_code values by name, as they appear in ring
 * crash records, tombstones and logs. These are the kernel's ABI values
 * (identical on arm64, x86-64 and Android), not the host's <signal.h>.
 */
#ifndef LW_SRC_SIGNALS_H
#define LW_SRC_SIGNALS_H

/* "SIGSEGV" for 11, or NULL. Context: signal-safe; no allocation; no blocking. */
const char *signal_name(int signo);

/* The signal named name ("SIGSEGV" or "SEGV"), or -1. */
int signal_number(const char *name);

/* "SEGV_MAPERR" for (11, 1), "SI_TKILL" for (6, -6), or NULL. */
const char *signal_code_name(int signo, int code);

#endif
