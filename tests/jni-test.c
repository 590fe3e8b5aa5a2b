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
 * h is the struct lw pointer of Probe.nativeHandle().
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jni.h>

#include <lastwords/probe.h>

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
