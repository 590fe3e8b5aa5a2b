/*
 * Crash signatures (signature.h).
 *
 * What is signed. A native crash: the first SIG_FRAMES frames of the
 * crashing thread in the app's own code (library_is_app() below), or the top
 * SIG_FRAMES when no frame is the app's. Each frame is written as its
 * library's base name, then "!function" when it is known (the innermost
 * of its symbolication, else the tombstone's own symbol without its
 * "+offset"), else "+0x<pc>" (the module and the offset in it, stable for
 * one build of the library). A Java crash: the exception's class (the
 * reason up to its ':'), then the first SIG_FRAMES frames whose class is
 * not the platform's (platform_class()), or the top SIG_FRAMES when every
 * frame is, each as "class.method" without
 * its "(File.java:12)": a release moves lines, and R8 writes "SourceFile"
 * or "Unknown Source" for the file. Retraced frames and the retraced
 * reason are used where --mapping gave them, so that an obfuscated and a
 * deobfuscated run of one release sign alike.
 *
 * The frames are joined with " < " (the callee first, then its caller;
 * a Java crash's class stands before them with " at "),
 * and that text is hashed with 64-bit FNV-1a (offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3, over the text's bytes), written
 * as 16 lowercase hex digits. The hash is part of the history's data: it
 * must never change, or the same crash stored before and after would count
 * as two.
 *
 * The signal is not signed: the same bug (a use after free, a bad pointer)
 * arrives as SIGSEGV on one run and SIGBUS on a rare other, and the frames
 * already tell the crash apart. Nor is the fault address, which moves with
 * ASLR and the heap.
 */
#include "signature.h"
#include "symbolize.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Frames signed of a stack. */
#define SIG_FRAMES 3

/* The text being built: cut at its room, always NUL-terminated. */
struct sig_text {
	char *s;
	size_t n, room;
};

static void put_n(struct sig_text *t, const char *s, size_t n)
{
	size_t k;

	if (t->room == 0)
		return;
	k = t->room - 1 - t->n;
	if (n < k)
		k = n;
	memcpy(t->s + t->n, s, k);
	t->n += k;
	t->s[t->n] = '\0';
}

static void put(struct sig_text *t, const char *s)
{
	put_n(t, s, strlen(s));
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* 64-bit FNV-1a of s, as 16 lowercase hex digits. */
static void fnv1a_hex(const char *s, char sig[CRASH_SIGNATURE_LEN])
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	snprintf(sig, CRASH_SIGNATURE_LEN, "%016llx", (unsigned long long)h);
}

/* The length of a symbol without its "+offset" ("f(int)+12", "f+0x1c"). */
static size_t symbol_len(const char *sym)
{
	size_t n = strlen(sym), i = n;

	while (i > 0 && sym[i - 1] != '+')
		i--;
	if (i == 0 || i == n)
		return n;
	{
		const char *off = sym + i;
		size_t j = 0;

		if (off[0] == '0' && (off[1] == 'x' || off[1] == 'X'))
			j = 2;
		if (!off[j])
			return n;
		for (; off[j]; j++)
			if (!((off[j] >= '0' && off[j] <= '9') || (off[j] >= 'a' && off[j] <= 'f') ||
			      (off[j] >= 'A' && off[j] <= 'F')))
				return n;
	}
	return i - 1;
}

static void put_native_frame(struct sig_text *t, const struct frame *fr)
{
	char pc[24];

	put(t, library_base(fr->library));
	if (fr->nlines && fr->lines && fr->lines[0].function && fr->lines[0].function[0]) {
		put(t, "!");
		put(t, fr->lines[0].function);
	} else if (fr->symbol && symbol_len(fr->symbol) > 0) {
		put(t, "!");
		put_n(t, fr->symbol, symbol_len(fr->symbol));
	} else {
		snprintf(pc, sizeof(pc), "+0x%llx", (unsigned long long)fr->pc);
		put(t, pc);
	}
}

/* Write what was built: the hash of the whole text (uncut, as hashed) to
 * sig, the text cut to textlen. */
static int finish(const char *full, char sig[CRASH_SIGNATURE_LEN], char *text, size_t textlen)
{
	fnv1a_hex(full, sig);
	if (text && textlen) {
		struct sig_text out = {text, 0, textlen};

		text[0] = '\0';
		put(&out, full);
	}
	return 1;
}

int crash_signature_native(const struct tombstone *t, char sig[CRASH_SIGNATURE_LEN], char *text,
			   size_t textlen)
{
	char buf[CRASH_SIGNATURE_TEXT_MAX * 2];
	struct sig_text s = {buf, 0, sizeof(buf)};
	size_t i, taken = 0;
	int any_app = 0;

	buf[0] = '\0';
	if (!t || !t->nframes)
		return 0;
	for (i = 0; i < t->nframes && !any_app; i++)
		any_app = library_is_app(t->frames[i].library);
	for (i = 0; i < t->nframes && taken < SIG_FRAMES; i++) {
		if (any_app && !library_is_app(t->frames[i].library))
			continue;
		if (taken++)
			put(&s, " < ");
		put_native_frame(&s, &t->frames[i]);
	}
	return finish(buf, sig, text, textlen);
}

/* Packages of the platform and the languages' libraries: a frame there is
 * where the app's code was called from or called into, not the app's. */
static const char *const platform_packages[] = {
	"java.", "javax.", "android.", "androidx.", "kotlin.", "kotlinx.", "dalvik.", "libcore.",
	"com.android.", "sun.", "com.google.android.",
};

static int platform_class(const char *frame)
{
	size_t i;

	for (i = 0; i < sizeof(platform_packages) / sizeof(platform_packages[0]); i++)
		if (starts(frame, platform_packages[i]))
			return 1;
	return 0;
}

/* A Java frame as signed: its "(File.java:12)" taken off. */
static void put_java_frame(struct sig_text *t, const char *f)
{
	const char *paren;

	paren = strchr(f, '(');
	put_n(t, f, paren ? (size_t)(paren - f) : strlen(f));
}

/* The i-th frame of a stack as it is signed (its j-th retraced one where
 * --mapping retraced it), "at " taken off; NULL for a line that is no
 * frame ("Caused by: ...", "... 12 more"). */
static const char *java_frame_text(const struct java_frame *jf, size_t j)
{
	const char *f = jf->retraced && jf->nretraced ? jf->retraced[j] : jf->text;

	if (!f)
		return NULL;
	while (*f == ' ' || *f == '\t')
		f++;
	if (starts(f, "at "))
		f += 3;
	if (!*f || starts(f, "Caused by") || starts(f, "..."))
		return NULL;
	return f;
}

static size_t java_frame_count(const struct java_frame *jf)
{
	return jf->retraced && jf->nretraced ? jf->nretraced : 1;
}

int crash_signature_java(const struct log_event *e, char sig[CRASH_SIGNATURE_LEN], char *text,
			 size_t textlen)
{
	char buf[CRASH_SIGNATURE_TEXT_MAX * 2];
	struct sig_text s = {buf, 0, sizeof(buf)};
	const char *reason, *colon, *f;
	size_t i, j, taken = 0, rn;
	int any_app = 0;

	buf[0] = '\0';
	if (!e || !e->stack || !e->nstack)
		return 0;
	for (i = 0; i < e->nstack && !any_app; i++)
		for (j = 0; j < java_frame_count(&e->stack[i]) && !any_app; j++)
			any_app = (f = java_frame_text(&e->stack[i], j)) && !platform_class(f);
	reason = e->reason_retraced && e->reason_retraced[0] ? e->reason_retraced : e->reason;
	if (reason) {
		while (*reason == ' ')
			reason++;
		colon = strchr(reason, ':');
		rn = colon ? (size_t)(colon - reason) : strlen(reason);
		while (rn > 0 && (reason[rn - 1] == ' ' || reason[rn - 1] == '\t'))
			rn--;
		put_n(&s, reason, rn);
	}
	for (i = 0; i < e->nstack && taken < SIG_FRAMES; i++)
		for (j = 0; j < java_frame_count(&e->stack[i]) && taken < SIG_FRAMES; j++) {
			f = java_frame_text(&e->stack[i], j);
			if (!f || (any_app && platform_class(f)))
				continue;
			put(&s, taken++ ? " < " : s.n ? " at " : "");
			put_java_frame(&s, f);
		}
	if (!taken)
		return 0;
	return finish(buf, sig, text, textlen);
}
