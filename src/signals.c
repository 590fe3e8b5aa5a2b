#include "signals.h"

#include <string.h>

static const char *const names[] = {
	[1] = "SIGHUP",   [2] = "SIGINT",    [3] = "SIGQUIT",   [4] = "SIGILL",
	[5] = "SIGTRAP",  [6] = "SIGABRT",   [7] = "SIGBUS",    [8] = "SIGFPE",
	[9] = "SIGKILL",  [10] = "SIGUSR1",  [11] = "SIGSEGV",  [12] = "SIGUSR2",
	[13] = "SIGPIPE", [14] = "SIGALRM",  [15] = "SIGTERM",  [16] = "SIGSTKFLT",
	[17] = "SIGCHLD", [18] = "SIGCONT",  [19] = "SIGSTOP",  [20] = "SIGTSTP",
	[21] = "SIGTTIN", [22] = "SIGTTOU",  [23] = "SIGURG",   [24] = "SIGXCPU",
	[25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
	[29] = "SIGIO",   [30] = "SIGPWR",   [31] = "SIGSYS",
};

struct code_name {
	int signo; /* 0: any signal */
	int code;
	const char *name;
};

static const struct code_name codes[] = {
	{ 0, 0, "SI_USER" },       { 0, 0x80, "SI_KERNEL" },  { 0, -1, "SI_QUEUE" },
	{ 0, -2, "SI_TIMER" },     { 0, -3, "SI_MESGQ" },     { 0, -4, "SI_ASYNCIO" },
	{ 0, -5, "SI_SIGIO" },     { 0, -6, "SI_TKILL" },
	{ 11, 1, "SEGV_MAPERR" },  { 11, 2, "SEGV_ACCERR" },  { 11, 3, "SEGV_BNDERR" },
	{ 11, 4, "SEGV_PKUERR" },  { 11, 8, "SEGV_MTEAERR" }, { 11, 9, "SEGV_MTESERR" },
	{ 7, 1, "BUS_ADRALN" },    { 7, 2, "BUS_ADRERR" },    { 7, 3, "BUS_OBJERR" },
	{ 7, 4, "BUS_MCEERR_AR" }, { 7, 5, "BUS_MCEERR_AO" },
	{ 8, 1, "FPE_INTDIV" },    { 8, 2, "FPE_INTOVF" },    { 8, 3, "FPE_FLTDIV" },
	{ 8, 4, "FPE_FLTOVF" },    { 8, 5, "FPE_FLTUND" },    { 8, 6, "FPE_FLTRES" },
	{ 8, 7, "FPE_FLTINV" },    { 8, 8, "FPE_FLTSUB" },
	{ 4, 1, "ILL_ILLOPC" },    { 4, 2, "ILL_ILLOPN" },    { 4, 3, "ILL_ILLADR" },
	{ 4, 4, "ILL_ILLTRP" },    { 4, 5, "ILL_PRVOPC" },    { 4, 6, "ILL_PRVREG" },
	{ 4, 7, "ILL_COPROC" },    { 4, 8, "ILL_BADSTK" },
	{ 5, 1, "TRAP_BRKPT" },    { 5, 2, "TRAP_TRACE" },    { 5, 3, "TRAP_BRANCH" },
	{ 5, 4, "TRAP_HWBKPT" },
};

const char *signal_name(int signo)
{
	if (signo <= 0 || signo >= (int)(sizeof(names) / sizeof(names[0])))
		return NULL;
	return names[signo];
}

int signal_number(const char *name)
{
	int i;

	if (!name)
		return -1;
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 1; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (names[i] && strcmp(names[i] + 3, name) == 0)
			return i;
	return -1;
}

const char *signal_code_name(int signo, int code)
{
	size_t i;

	/* Codes <= 0 and SI_KERNEL mean the same for every signal. */
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].code == code &&
		    (codes[i].signo == signo || (codes[i].signo == 0 && (code <= 0 || code == 0x80))))
			return codes[i].name;
	return NULL;
}
