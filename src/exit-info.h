/*
 * The codes of Android's ApplicationExitInfo records, as the system writes
 * them (research/exitinfo-constants.md, read from AOSP): the reasons of
 * getReason(), the subreasons of getSubReason() and the importances of
 * getImportance(). The analyzer's rules name the codes by these, and its
 * records by these labels; its parsers read the codes as numbers (never
 * the labels) and its printers print numbers. The probe uses none of it,
 * so it is not in include/lastwords/vocab.h and exit-info.c is not linked
 * into the probe.
 *
 * Each list is an X-macro. Reasons and subreasons are X(UPPER, label,
 * value): the constant's name without its REASON_ or SUBREASON_ prefix, the
 * label `dumpsys activity exit-info` prints after the number ("reason=5
 * (APP CRASH(NATIVE))"), NULL where no source shows it, and the value.
 * Importances are X(UPPER, value). Values are Android's: a code missing
 * here (a newer platform's, or an OEM's subreason from 1000) is valid and
 * stays a number.
 */
#ifndef LW_SRC_EXIT_INFO_H
#define LW_SRC_EXIT_INFO_H

#include <stddef.h>

#include "vocab.h"

#define EXIT_REASONS(X)                                                 \
	X(UNKNOWN, "UNKNOWN", 0)                                        \
	X(EXIT_SELF, "EXIT_SELF", 1)                                    \
	X(SIGNALED, "SIGNALED", 2)                                      \
	X(LOW_MEMORY, "LOW_MEMORY", 3)                                  \
	X(CRASH, "APP CRASH(EXCEPTION)", 4)                             \
	X(CRASH_NATIVE, "APP CRASH(NATIVE)", 5)                         \
	X(ANR, "ANR", 6)                                                \
	X(INITIALIZATION_FAILURE, "INITIALIZATION FAILURE", 7)          \
	X(PERMISSION_CHANGE, "PERMISSION CHANGE", 8)                    \
	X(EXCESSIVE_RESOURCE_USAGE, "EXCESSIVE RESOURCE USAGE", 9)      \
	X(USER_REQUESTED, "USER REQUESTED", 10)                         \
	X(USER_STOPPED, "USER STOPPED", 11)                             \
	X(DEPENDENCY_DIED, "DEPENDENCY DIED", 12)                       \
	X(OTHER, "OTHER KILLS BY SYSTEM", 13)                           \
	X(FREEZER, "FREEZER", 14)              /* API 33 */             \
	X(PACKAGE_STATE_CHANGE, "STATE CHANGE", 15) /* API 34 */        \
	X(PACKAGE_UPDATED, "PACKAGE UPDATED", 16)   /* API 34 */        \
	X(MEMORY_LIMITER, NULL, 17)            /* API 37 */             \
	X(ANOMALY, NULL, 18)                   /* API 37 */

/* The platform versions (SDK levels) whose reasons the table above holds:
 * ApplicationExitInfo came with API 30; the newest code here is of API 37.
 * On a device outside them a code may mean what this table does not say
 * (the analyzer lists that as a caveat). */
#define EXIT_INFO_SDK_FIRST 30
#define EXIT_INFO_SDK_LAST 37

/* Up to 49, where the platform's source names them with their labels (50
 * to 61 appear only in a generated statsd enum, without labels). */
#define EXIT_SUBREASONS(X)                                                        \
	X(UNKNOWN, "UNKNOWN", 0)                                                  \
	X(WAIT_FOR_DEBUGGER, "WAIT FOR DEBUGGER", 1)                              \
	X(TOO_MANY_CACHED, "TOO MANY CACHED PROCS", 2)                            \
	X(TOO_MANY_EMPTY, "TOO MANY EMPTY PROCS", 3)                              \
	X(TRIM_EMPTY, "TRIM EMPTY", 4)                                            \
	X(LARGE_CACHED, "LARGE CACHED", 5)                                        \
	X(MEMORY_PRESSURE, "MEMORY PRESSURE", 6)                                  \
	X(EXCESSIVE_CPU, "EXCESSIVE CPU USAGE", 7)                                \
	X(SYSTEM_UPDATE_DONE, "SYSTEM UPDATE_DONE", 8)                            \
	X(KILL_ALL_FG, "KILL ALL FG", 9)                                          \
	X(KILL_ALL_BG_EXCEPT, "KILL ALL BG EXCEPT", 10)                           \
	X(KILL_UID, "KILL UID", 11)                                               \
	X(KILL_PID, "KILL PID", 12)                                               \
	X(INVALID_START, "INVALID START", 13)                                     \
	X(INVALID_STATE, "INVALID STATE", 14)                                     \
	X(IMPERCEPTIBLE, "IMPERCEPTIBLE", 15)                                     \
	X(REMOVE_LRU, "REMOVE LRU", 16)                                           \
	X(ISOLATED_NOT_NEEDED, "ISOLATED NOT NEEDED", 17)                         \
	/* Printed as "UNKNOWN" before Android 15. */                             \
	X(CACHED_IDLE_FORCED_APP_STANDBY, "CACHED IDLE FORCED APP STANDBY", 18)   \
	X(FREEZER_BINDER_IOCTL, "FREEZER BINDER IOCTL", 19)                       \
	X(FREEZER_BINDER_TRANSACTION, "FREEZER BINDER TRANSACTION", 20)           \
	X(FORCE_STOP, "FORCE STOP", 21)                                           \
	X(REMOVE_TASK, "REMOVE TASK", 22)                                         \
	X(STOP_APP, "STOP APP", 23)                                               \
	X(KILL_BACKGROUND, "KILL BACKGROUND", 24)                                 \
	X(PACKAGE_UPDATE, "PACKAGE UPDATE", 25)                                   \
	X(UNDELIVERED_BROADCAST, "UNDELIVERED BROADCAST", 26)                     \
	X(SDK_SANDBOX_DIED, "SDK SANDBOX DIED", 27)                               \
	X(SDK_SANDBOX_NOT_NEEDED, "SDK SANDBOX NOT NEEDED", 28)                   \
	X(EXCESSIVE_BINDER_OBJECTS, "EXCESSIVE BINDER OBJECTS", 29)               \
	X(OOM_KILL, "OOM KILL", 30)                                               \
	X(FREEZER_BINDER_ASYNC_FULL, "FREEZER BINDER ASYNC FULL", 31)             \
	X(EXCESSIVE_OUTGOING_BROADCASTS_WHILE_CACHED,                             \
	  "EXCESSIVE_OUTGOING_BROADCASTS_WHILE_CACHED", 32)                       \
	X(ANR_TYPE_APP_TRIGGERED, "APP TRIGGERED ANR", 33)                        \
	X(ANR_TYPE_BIND_APPLICATION, "BIND APPLICATION ANR", 34)                  \
	X(ANR_TYPE_BROADCAST_OF_INTENT, "BROADCAST OF INTENT ANR", 35)            \
	X(ANR_TYPE_CONTENT_PROVIDER_NOT_RESPONDING,                               \
	  "CONTENT PROVIDER NOT RESPONDING ANR", 36)                              \
	X(ANR_TYPE_EXECUTING_SERVICE, "EXECUTING SERVICE ANR", 37)                \
	X(ANR_TYPE_FOREGROUND_SERVICE_TIMEOUT, "FOREGROUND SERVICE TIMEOUT ANR", 38) \
	X(ANR_TYPE_FOREGROUND_SHORT_SERVICE_TIMEOUT,                              \
	  "FOREGROUND SHORT SERVICE TIMEOUT ANR", 39)                             \
	X(ANR_TYPE_GPU_HANG, "GPU HANG ANR", 40)                                  \
	X(ANR_TYPE_INPUT_DISPATCHING_TIMEOUT, "INPUT DISPATCHING TIMEOUT ANR", 41) \
	X(ANR_TYPE_INPUT_DISPATCHING_TIMEOUT_NO_FOCUSED_WINDOW,                   \
	  "INPUT DISPATCHING TIMEOUT NO FOCUSED WINDOW ANR", 42)                  \
	X(ANR_TYPE_JOB_SERVICE_BIND, "JOB SERVICE BIND ANR", 43)                  \
	X(ANR_TYPE_JOB_SERVICE_NOTIFICATION_NOT_PROVIDED,                         \
	  "JOB SERVICE NOTIFICATION NOT PROVIDED ANR", 44)                        \
	X(ANR_TYPE_JOB_SERVICE_START, "JOB SERVICE START ANR", 45)                \
	X(ANR_TYPE_JOB_SERVICE_STOP, "JOB SERVICE STOP ANR", 46)                  \
	X(ANR_TYPE_START_FOREGROUND_SERVICE, "START FOREGROUND SERVICE ANR", 47)  \
	X(ANR_TYPE_SYSTEM_SERVER_WATCHDOG_TIMEOUT,                                \
	  "SYSTEM SERVER WATCHDOG TIMEOUT ANR", 48)                               \
	X(EXCESSIVE_ENQUEUED_BROADCASTS_COUNT,                                    \
	  "EXCESSIVE_ENQUEUED_BROADCASTS_COUNT", 49)

/* RunningAppProcessInfo's importances, derived from the process state
 * when the record was made. */
#define EXIT_IMPORTANCES(X)                          \
	X(FOREGROUND, 100)                           \
	X(FOREGROUND_SERVICE, 125)                   \
	X(PERCEPTIBLE_PRE_26, 130)                   \
	X(TOP_SLEEPING_PRE_28, 150)                  \
	X(CANT_SAVE_STATE_PRE_26, 170)               \
	X(VISIBLE, 200)                              \
	X(PERCEPTIBLE, 230)                          \
	X(SERVICE, 300)                              \
	X(TOP_SLEEPING, 325)                         \
	X(CANT_SAVE_STATE, 350)                      \
	X(CACHED, 400)                               \
	X(EMPTY, 500)                                \
	X(GONE, 1000)

enum exit_reason {
#define X(up, label, val) EXIT_REASON_##up = val,
	EXIT_REASONS(X)
#undef X
	EXIT_REASON_COUNT
};

enum exit_subreason {
#define X(up, label, val) EXIT_SUBREASON_##up = val,
	EXIT_SUBREASONS(X)
#undef X
};

enum exit_importance {
#define X(up, val) EXIT_IMPORTANCE_##up = val,
	EXIT_IMPORTANCES(X)
#undef X
};

/* The dump's label of each reason and subreason, for vocab_name(): NULL
 * where none is known. */
extern const struct vocab exit_reason_labels, exit_subreason_labels;

#endif
