/*
 * A real process that crashes in a library built with -g (tests/crashy/),
 * and writes the crash as debuggerd's text tombstone would
 * (tests/report-symbols.py reads it back with `lastwords report --symbols`):
 * the fault's pc from the signal's context, the callers by the frame
 * pointer chain, each as "#NN pc REL_PC  PATH (BuildId: ID)", where REL_PC
 * is the pc less the library's load base (dladdr's dli_fbase: the ELF's
 * own address, as unwindstack's rel_pc) and, for the callers, less one
 * (the call, not the return address: unwindstack's pc adjustment on
 * x86_64), and ID is read from the loaded library's NT_GNU_BUILD_ID note
 * in memory (dl_iterate_phdr), as debuggerd reads it. The library's
 * directory is written as INSTALLED_DIR, the directory it would have on the
 * phone (/data/app/.../lib/x86_64), which this machine does not have.
 *
 * usage: symbols-crash LIBRARY TOMBSTONE PROCESS INSTALLED_DIR
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define FRAMES_MAX 16

static sigjmp_buf back;
static uintptr_t pcs[FRAMES_MAX];
static int npcs;
static uintptr_t fault_addr;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uintptr_t *fp;

	(void)sig;
	fault_addr = (uintptr_t)si->si_addr;
#if defined(__x86_64__)
	pcs[npcs++] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	fp = (uintptr_t *)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
	pcs[npcs++] = (uintptr_t)uc->uc_mcontext.pc;
	fp = (uintptr_t *)uc->uc_mcontext.regs[29];
#else
#error "symbols-crash: x86_64 or aarch64"
#endif
	/* [fp] = the caller's fp, [fp + 1] = the return address */
	while (fp && npcs < FRAMES_MAX && fp[1]) {
		pcs[npcs++] = fp[1] - 1;
		if ((uintptr_t *)fp[0] <= fp)
			break;
		fp = (uintptr_t *)fp[0];
	}
	siglongjmp(back, 1);
}

struct want {
	uintptr_t base;
	char id[130];
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct want *w = arg;
	int i;

	(void)size;
	if (info->dlpi_addr != w->base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof(*n);
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz <= 64) {
				unsigned k;

				for (k = 0; k < n->n_descsz; k++)
					sprintf(w->id + 2 * k, "%02x", desc[k]);
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	void (*entry)(int) = NULL;
	void *lib;
	FILE *out;
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: symbols-crash LIBRARY TOMBSTONE PROCESS INSTALLED_DIR\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (lib)
		*(void **)&entry = dlsym(lib, "crashy_entry");
	if (!lib || !entry) {
		fprintf(stderr, "symbols-crash: %s\n", dlerror());
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(back, 1) == 0) {
		entry(20);
		fprintf(stderr, "symbols-crash: the library did not crash\n");
		return 1;
	}
	if (!(out = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
		     "Build fingerprint: 'google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys'\n"
		     "Revision: '0'\n"
		     "ABI: '%s'\n"
		     "Timestamp: 2026-11-30 00:28:04.675+0100\n"
		     "Process uptime: 12s\n"
		     "Cmdline: %s\n"
		     "pid: %d, tid: %d, name: inference  >>> %s <<<\n"
		     "uid: 10231\n"
		     "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x%016lx\n"
		     "Cause: null pointer dereference\n"
		     "\n"
		     "backtrace:\n",
#if defined(__x86_64__)
		"x86_64",
#else
		"arm64",
#endif
		argv[3], (int)getpid(), (int)getpid(), argv[3], (unsigned long)fault_addr);
	for (i = 0; i < npcs; i++) {
		struct want w = { 0 };
		Dl_info info;

		if (!dladdr((void *)pcs[i], &info) || !info.dli_fname) {
			fprintf(out, "      #%02d pc %016lx  <unknown>\n", i, (unsigned long)pcs[i]);
			continue;
		}
		w.base = (uintptr_t)info.dli_fbase;
		/* the main program's dlpi_addr is its load bias, which dladdr
		 * gives as its base as well */
		dl_iterate_phdr(find_build_id, &w);
		if (strcmp(info.dli_fname, argv[1]) == 0)
			fprintf(out, "      #%02d pc %016lx  %s/%s", i, (unsigned long)(pcs[i] - w.base),
				argv[4], strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
		else
			fprintf(out, "      #%02d pc %016lx  %s", i, (unsigned long)(pcs[i] - w.base),
				info.dli_fname);
		if (info.dli_sname)
			fprintf(out, " (%s+%lu)", info.dli_sname,
				(unsigned long)(pcs[i] - (uintptr_t)info.dli_saddr));
		if (w.id[0])
			fprintf(out, " (BuildId: %s)", w.id);
		fputc('\n', out);
	}
	fclose(out);
	return 0;
}
