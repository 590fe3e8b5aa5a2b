/*
 * Test-only native methods for the JVM tests (tests/java/TestNative.java):
 * liblastwords_jnitest.so, never installed.
 *   crash()                  a real native crash in a JNI call: a store to
 *                            address 0x10 (SIGSEGV, SEGV_MAPERR)
 *   crashInstallUnchecked(h) lw_crash_install() without the facade's check
 *                            for an unchained JVM (tests/jvm-signals.py
 *                            shows what that check prevents)
 *   vocab()                  the vocabulary as the C compiler reads
 *                            include/lastwords/vocab.h: one line per value,
 *                            "Enum UPPER lower value", for the Java enums
 *                            generated from it to be compared with
 *   stagesC(h, n)            n stage events from C, begin and end
 *                            alternating, as bench-probe's row times them:
 *                            the C call that bench-jni compares the Java
 *                            call with; returns the nanoseconds taken
 *   nop(h, stage)            a native method that returns: the JNI
 *                            transition alone, for bench-jni's breakdown
 *   optimized()              whether this build is optimized
 *   records(path, type)      the valid records of that type in the ring
 *                            file at path, in ticket order, as the
 *                            analyzer's reader takes them (src/ring.c:
 *                            the validity rules of ring-format(5)), five
 *                            numbers each: code, a, b, c, d; null when the
 *                            file cannot be read or its header is refused.
 *                            For tests of record types whose `lastwords
 *                            dump` form is not theirs to pin
 * h is the struct lw pointer of Probe.nativeHandle().
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jni.h>

#include <lastwords/probe.h>

#include "src/ring.h"

/* Not a constant, so that the compiler sees no bad store to warn of. */
static volatile uintptr_t bad_address = 0x10;

JNIEXPORT void JNICALL Java_TestNative_crash(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	*(volatile int *)bad_address = 1;
}

JNIEXPORT jint JNICALL Java_TestNative_crashInstallUnchecked(JNIEnv *env, jclass cls, jlong h)
{
	(void)env;
	(void)cls;
	return lw_crash_install((struct lw *)(intptr_t)h);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

JNIEXPORT jlong JNICALL Java_TestNative_stagesC(JNIEnv *env, jclass cls, jlong h, jint n)
{
	struct lw *lw = (struct lw *)(intptr_t)h;
	uint64_t t0 = now_ns();
	jint i;

	(void)env;
	(void)cls;
	for (i = 0; i < n; i++) {
		if (i & 1)
			lw_stage_end(lw, LW_STAGE_INFERENCE, LW_ERR_NONE);
		else
			lw_stage_begin(lw, LW_STAGE_INFERENCE);
	}
	return (jlong)(now_ns() - t0);
}

JNIEXPORT jint JNICALL Java_TestNative_nop(JNIEnv *env, jclass cls, jlong h, jint stage)
{
	(void)env;
	(void)cls;
	(void)h;
	return stage;
}

JNIEXPORT jboolean JNICALL Java_TestNative_optimized(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
#ifdef __OPTIMIZE__
	return JNI_TRUE;
#else
	return JNI_FALSE;
#endif
}

static char vocab_text[16384];
static size_t vocab_len;

static void vocab_add(const char *java, const char *up, const char *name, int value)
{
	int n = snprintf(vocab_text + vocab_len, sizeof(vocab_text) - vocab_len, "%s %s %s %d\n",
			 java, up, name, value);

	if (n > 0 && (size_t)n < sizeof(vocab_text) - vocab_len)
		vocab_len += (size_t)n;
}

/* The lists that probe/meson.build makes Java enums of, by those names. */
JNIEXPORT jstring JNICALL Java_TestNative_vocab(JNIEnv *env, jclass cls)
{
	(void)cls;
	vocab_len = 0;
	vocab_text[0] = '\0';
#define X(up, name, val) vocab_add("Stage", #up, #name, val);
	LW_STAGES(X)
#undef X
#define X(up, name, val) vocab_add("ErrorClass", #up, #name, val);
	LW_ERRORS(X)
#undef X
#define X(up, name, val) vocab_add("Mark", #up, #name, val);
	LW_MARKS(X)
#undef X
#define X(up, name, val) vocab_add("Delegate", #up, #name, val);
	LW_DELEGATES(X)
#undef X
#define X(up, name, val) vocab_add("Action", #up, #name, val);
	LW_ACTIONS(X)
#undef X
#define X(up, name, val) vocab_add("AdviceKind", #up, #name, val);
	LW_ADVICES(X)
#undef X
#define X(up, name, val) vocab_add("PayloadClass", #up, #name, val);
	LW_PAYLOAD_CLASSES(X)
#undef X
#define X(up, name, val) vocab_add("CacheOp", #up, #name, val);
	LW_CACHE_OPS(X)
#undef X
#define X(up, name, val) vocab_add("Scenario", #up, #name, val);
	LW_SCENARIOS(X)
#undef X
#define X(up, name, val) vocab_add("PressureSource", #up, #name, val);
	LW_PRESSURE_SOURCES(X)
#undef X
	return (*env)->NewStringUTF(env, vocab_text);
}

/* The records that records() collects: of one type, into v (n of cap). */
struct typed {
	int type;
	jlong *v;
	size_t n, cap;
};

static int take_typed(uint64_t ticket, uint32_t index, const struct lw_ring_slot *slot,
		      void *arg)
{
	struct typed *t = arg;

	(void)ticket;
	(void)index;
	if (slot->type != t->type || t->n + 5 > t->cap)
		return 0;
	t->v[t->n++] = slot->code;
	t->v[t->n++] = (jlong)slot->a;
	t->v[t->n++] = (jlong)slot->b;
	t->v[t->n++] = (jlong)slot->c;
	t->v[t->n++] = slot->d;
	return 0;
}

JNIEXPORT jlongArray JNICALL Java_TestNative_records(JNIEnv *env, jclass cls, jstring path,
						    jint type)
{
	const char *p = (*env)->GetStringUTFChars(env, path, NULL);
	const struct lw_ring_header *h;
	struct ring_error err;
	struct ring_scan sc;
	struct typed t = { type, NULL, 0, 0 };
	jlongArray out = NULL;
	struct stat st;
	void *map = MAP_FAILED;
	int fd;

	(void)cls;
	if (!p)
		return NULL;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	(*env)->ReleaseStringUTFChars(env, path, p);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	h = map;
	if (ring_header_check(map, (size_t)st.st_size, &err) == RING_HEADER_OK) {
		t.cap = (size_t)h->slot_count * 5;
		t.v = malloc(t.cap * sizeof(*t.v));
	}
	if (t.v) {
		ring_scan(h, (const struct lw_ring_slot *)((const char *)map + h->header_size), &sc,
			  NULL, take_typed, &t);
		out = (*env)->NewLongArray(env, (jsize)t.n);
		if (out)
			(*env)->SetLongArrayRegion(env, out, 0, (jsize)t.n, t.v);
		free(t.v);
	}
	munmap(map, (size_t)st.st_size);
	return out;
}
