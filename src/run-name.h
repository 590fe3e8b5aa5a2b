/*
 * The file name of a run's ring: "<process>.<YYYYMMDDTHHMMSS.mmmZ>.<pid>.lwr",
 * with the process name made safe for a file name. The probe names its
 * files with it; the collector picks a process's files by it.
 */
#ifndef LW_SRC_RUN_NAME_H
#define LW_SRC_RUN_NAME_H

#include <stddef.h>

/* Copy process into dst (len bytes) with every byte outside
 * [A-Za-z0-9._:-] replaced by '_'. Context: signal-safe; no allocation. */
void run_name_process(char *dst, size_t len, const char *process);

#endif
