/*
 * Crash signatures (analyzer/symbols/signature.c), on tombstones and Java
 * crashes built by hand: the same crash at other pcs of the same function
 * signs alike, another function does not; the system's frames are passed
 * over for the app's, and signed when no frame is the app's; an
 * unsymbolicated frame signs as its module and offset; symbolication wins
 * over the tombstone's own symbol; a Java crash signs its exception's class
 * and its first frames outside the platform, without line numbers, and
 * its retraced frames where a mapping gave them. The hash is pinned: it is
 * the history's data.
 */
#include "../analyzer/symbols/signature.h"
#include "helpers.h"

#define APP "/data/app/~~Qm3x==/com.example.vision-Zx9y==/lib/arm64/"

static struct frame fr(uint64_t pc, const char *lib, const char *sym)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.pc = pc;
	f.library = (char *)lib;
	f.symbol = (char *)sym;
	return f;
}

static struct tombstone tomb(struct frame *frames, size_t n)
{
	struct tombstone t;

	memset(&t, 0, sizeof(t));
	t.frames = frames;
	t.nframes = n;
	return t;
}

/* Sign t; fail when it does not sign. The text to *text. */
static const char *sign_native(const struct tombstone *t, char *text, size_t textlen)
{
	static char sig[4][CRASH_SIGNATURE_LEN];
	static int k;
	char *s = sig[k++ % 4];

	T_ASSERT(crash_signature_native(t, s, text, textlen) == 1, "tombstone not signed");
	T_ASSERT(strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16, "signature '%s'", s);
	return s;
}

static const char *sign_java(const struct log_event *e, char *text, size_t textlen)
{
	static char sig[4][CRASH_SIGNATURE_LEN];
	static int k;
	char *s = sig[k++ % 4];

	T_ASSERT(crash_signature_java(e, s, text, textlen) == 1, "java crash not signed");
	T_ASSERT(strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16, "signature '%s'", s);
	return s;
}

static void native(void)
{
	char text[CRASH_SIGNATURE_TEXT_MAX], text2[CRASH_SIGNATURE_TEXT_MAX];
	char sig[CRASH_SIGNATURE_LEN];
	const char *a, *b;
	struct frame f1[] = {
		fr(0x8fb51c, "/vendor/lib64/egl/libGLES_mali.so", NULL),
		fr(0x2b71e4, APP "libdelegate.so", "tflite::Init+212"),
		fr(0x1d02a8, APP "libdelegate.so", "Create(int)+96"),
		fr(0xc0e2c, "/apex/com.android.runtime/lib64/bionic/libc.so", "__pthread_start(void*)+204"),
		fr(0x1000, APP "libdelegate.so", "Outer+4"),
		fr(0x2000, APP "libdelegate.so", "Fourth+4"),
	};
	/* the same crash: other pcs, other offsets, another system frame on top */
	struct frame f2[] = {
		fr(0x11111, "/system/lib64/libc.so", "memcpy+20"),
		fr(0x2b7300, APP "libdelegate.so", "tflite::Init+500"),
		fr(0x1d0400, APP "libdelegate.so", "Create(int)+0x1c"),
		fr(0xc0e2c, "/apex/com.android.runtime/lib64/bionic/libc.so", "__pthread_start(void*)+204"),
		fr(0x1100, APP "libdelegate.so", "Outer+40"),
	};
	/* another function at the top */
	struct frame f3[] = {
		fr(0x2c0000, APP "libdelegate.so", "tflite::Other+12"),
		fr(0x1d02a8, APP "libdelegate.so", "Create(int)+96"),
		fr(0x1000, APP "libdelegate.so", "Outer+4"),
	};
	struct tombstone t1 = tomb(f1, 6), t2 = tomb(f2, 5), t3 = tomb(f3, 3);

	a = sign_native(&t1, text, sizeof(text));
	T_ASSERT(strcmp(text, "libdelegate.so!tflite::Init < libdelegate.so!Create(int) < "
			      "libdelegate.so!Outer") == 0,
		 "signed '%s'", text);
	b = sign_native(&t2, text2, sizeof(text2));
	T_ASSERT(strcmp(a, b) == 0, "same crash, other pcs: %s vs %s (%s | %s)", a, b, text, text2);
	b = sign_native(&t3, text2, sizeof(text2));
	T_ASSERT(strcmp(a, b) != 0, "another function signs alike: %s", b);

	/* the hash is FNV-1a 64 of the text, pinned */
	{
		struct frame one[] = {fr(0x10, "libfoo.so", "crash_here+4")};
		struct tombstone t = tomb(one, 1);

		a = sign_native(&t, text, sizeof(text));
		T_ASSERT(strcmp(text, "libfoo.so!crash_here") == 0, "signed '%s'", text);
		/* FNV-1a 64 of "libfoo.so!crash_here", computed by hand (python) */
		T_ASSERT(strcmp(a, "5dba6221152de3f5") == 0, "hash of '%s' is %s", text, a);
	}

	/* no frame is the app's: the top three, system or not */
	{
		struct frame sys[] = {
			fr(0x8fb51c, "/vendor/lib64/egl/libGLES_mali.so", NULL),
			fr(0x1234, "/system/lib64/libEGL.so", "eglSwapBuffers+8"),
			fr(0x99, "[anon:dalvik-jit-code-cache]", NULL),
			fr(0x5, "/system/lib64/libc.so", "abort+5"),
		};
		struct tombstone t = tomb(sys, 4);

		sign_native(&t, text, sizeof(text));
		T_ASSERT(strcmp(text, "libGLES_mali.so+0x8fb51c < libEGL.so!eglSwapBuffers < "
				      "[anon:dalvik-jit-code-cache]+0x99") == 0,
			 "signed '%s'", text);
	}

	/* unsymbolicated: module and offset; different offsets differ */
	{
		struct frame u1[] = {fr(0x2b71e4, APP "libdelegate.so", NULL),
				     fr(0x1f0, "/data/app/x/base.apk!libinner.so", NULL),
				     fr(0x300, "/data/app/x/base.apk", NULL)};
		struct frame u2[] = {fr(0x2b71e8, APP "libdelegate.so", NULL),
				     fr(0x1f0, "/data/app/x/base.apk!libinner.so", NULL),
				     fr(0x300, "/data/app/x/base.apk", NULL)};
		struct tombstone ta = tomb(u1, 3), tb = tomb(u2, 3);

		a = sign_native(&ta, text, sizeof(text));
		T_ASSERT(strcmp(text, "libdelegate.so+0x2b71e4 < libinner.so+0x1f0 < base.apk+0x300") == 0,
			 "signed '%s'", text);
		b = sign_native(&tb, text2, sizeof(text2));
		T_ASSERT(strcmp(a, b) != 0, "other offsets, unsymbolicated, sign alike");
	}

	/* relative paths are the app's; /data/local/tmp and <unknown> are not */
	{
		struct frame m[] = {
			fr(0x1, "/data/local/tmp/libtool.so", "tool+1"),
			fr(0x2, NULL, NULL),
			fr(0x3, "<unknown>", NULL),
			fr(0x4, "libbare.so", "bare+2"),
		};
		struct tombstone t = tomb(m, 4);

		sign_native(&t, text, sizeof(text));
		T_ASSERT(strcmp(text, "libbare.so!bare") == 0, "signed '%s'", text);
	}

	/* symbolication: the innermost function; wins over the symbol */
	{
		struct frame_line l1[] = {{"inlined_helper", "a.c", 10, 2}, {"caller", "a.c", 30, 1}};
		struct frame_line l2[] = {{"inlined_helper", "a.c", 12, 4}, {"caller", "a.c", 31, 1}};
		struct frame s1[] = {fr(0x100, APP "libfoo.so", "caller+8")};
		struct frame s2[] = {fr(0x140, APP "libfoo.so", NULL)};
		struct tombstone ta, tb;

		s1[0].lines = l1;
		s1[0].nlines = 2;
		s2[0].lines = l2;
		s2[0].nlines = 2;
		ta = tomb(s1, 1);
		tb = tomb(s2, 1);
		a = sign_native(&ta, text, sizeof(text));
		T_ASSERT(strcmp(text, "libfoo.so!inlined_helper") == 0, "signed '%s'", text);
		b = sign_native(&tb, text2, sizeof(text2));
		T_ASSERT(strcmp(a, b) == 0, "same function symbolicated, other lines: %s vs %s", a, b);
	}

	/* nothing to sign; a short text buffer is cut, the hash is not */
	{
		struct tombstone empty = tomb(NULL, 0);
		char tiny[8];

		T_ASSERT(crash_signature_native(&empty, sig, text, sizeof(text)) == 0, "empty signed");
		T_ASSERT(crash_signature_native(NULL, sig, text, sizeof(text)) == 0, "NULL signed");
		a = sign_native(&t1, tiny, sizeof(tiny));
		T_ASSERT(strcmp(tiny, "libdele") == 0, "cut text '%s'", tiny);
		b = sign_native(&t1, NULL, 0);
		T_ASSERT(strcmp(a, b) == 0, "the hash depends on the text's room");
	}
}

static struct java_frame jfr(const char *text)
{
	struct java_frame f;

	memset(&f, 0, sizeof(f));
	f.text = (char *)text;
	return f;
}

static struct log_event jcrash(const char *reason, struct java_frame *st, size_t n)
{
	struct log_event e;

	memset(&e, 0, sizeof(e));
	e.type = LOG_JAVA_CRASH;
	e.reason = (char *)reason;
	e.stack = st;
	e.nstack = n;
	return e;
}

static void java(void)
{
	char text[CRASH_SIGNATURE_TEXT_MAX], text2[CRASH_SIGNATURE_TEXT_MAX];
	char sig[CRASH_SIGNATURE_LEN];
	const char *a, *b;
	struct java_frame s1[] = {
		jfr("at java.util.ArrayList.get(ArrayList.java:437)"),
		jfr("at androidx.recyclerview.widget.RecyclerView.onLayout(RecyclerView.java:4577)"),
		jfr("at com.example.vision.Detector.run(Detector.kt:88)"),
		jfr("at android.os.Handler.handleCallback(Handler.java:938)"),
		jfr("at com.example.vision.Camera$1.onFrame(Camera.kt:12)"),
		jfr("at kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:106)"),
		jfr("at com.example.vision.Main.loop(Main.kt:5)"),
		jfr("at com.example.vision.Main.fourth(Main.kt:9)"),
	};
	/* the next release: lines moved, the platform's frames differ */
	struct java_frame s2[] = {
		jfr("at java.util.ArrayList.get(ArrayList.java:440)"),
		jfr("at com.example.vision.Detector.run(Detector.kt:93)"),
		jfr("at com.android.internal.os.ZygoteInit.main(ZygoteInit.java:1)"),
		jfr("at com.example.vision.Camera$1.onFrame(Camera.kt:20)"),
		jfr("at com.google.android.gms.Foo.bar(Unknown Source:3)"),
		jfr("at com.example.vision.Main.loop(Main.kt:7)"),
	};
	struct java_frame s3[] = {
		jfr("at com.example.vision.Detector.close(Detector.kt:88)"),
		jfr("at com.example.vision.Camera$1.onFrame(Camera.kt:12)"),
		jfr("at com.example.vision.Main.loop(Main.kt:5)"),
	};
	struct log_event e1 = jcrash("java.lang.IndexOutOfBoundsException: Index: 3, Size: 3", s1, 8);
	struct log_event e2 = jcrash("java.lang.IndexOutOfBoundsException: Index: 7, Size: 2", s2, 6);
	struct log_event e3 = jcrash("java.lang.IndexOutOfBoundsException: Index: 3, Size: 3", s3, 3);
	struct log_event e4 = jcrash("java.lang.IllegalStateException: closed", s1, 8);

	a = sign_java(&e1, text, sizeof(text));
	T_ASSERT(strcmp(text, "java.lang.IndexOutOfBoundsException at com.example.vision.Detector.run < "
			      "com.example.vision.Camera$1.onFrame < com.example.vision.Main.loop") == 0,
		 "signed '%s'", text);
	b = sign_java(&e2, text2, sizeof(text2));
	T_ASSERT(strcmp(a, b) == 0, "lines moved, platform frames differ: '%s' vs '%s'", text, text2);
	b = sign_java(&e3, text2, sizeof(text2));
	T_ASSERT(strcmp(a, b) != 0, "another method signs alike");
	b = sign_java(&e4, text2, sizeof(text2));
	T_ASSERT(strcmp(a, b) != 0, "another exception signs alike");

	/* retraced: the mapping's frames (R8 inlined two into one) and class */
	{
		char *r0[] = {"com.example.vision.Detector.run(Detector.kt:88)"};
		char *r1[] = {"com.example.vision.Camera$1.onFrame(Camera.kt:12)",
			      "com.example.vision.Main.loop(Main.kt:5)"};
		struct java_frame ob[] = {
			jfr("at java.util.ArrayList.get(ArrayList.java:437)"),
			jfr("at a.b.c(SourceFile:2)"),
			jfr("at a.b.d(SourceFile:7)"),
		};
		struct log_event e;

		ob[1].retraced = r0;
		ob[1].nretraced = 1;
		ob[2].retraced = r1;
		ob[2].nretraced = 2;
		e = jcrash("a.e: Index: 3, Size: 3", ob, 3);
		e.reason_retraced = "java.lang.IndexOutOfBoundsException: Index: 3, Size: 3";
		b = sign_java(&e, text2, sizeof(text2));
		T_ASSERT(strcmp(a, b) == 0, "retraced signs as the clear one: '%s'", text2);
		e.reason_retraced = NULL;
		b = sign_java(&e, text2, sizeof(text2));
		T_ASSERT(strncmp(text2, "a.e at ", 7) == 0, "not retraced: '%s'", text2);
	}

	/* only the platform's frames: the top three; "Caused by" lines skipped */
	{
		struct java_frame p[] = {
			jfr("Caused by: java.lang.RuntimeException: x"),
			jfr("at android.view.View.draw(View.java:1)"),
			jfr("... 12 more"),
			jfr("at java.lang.Thread.run(Thread.java:2)"),
		};
		struct log_event e = jcrash("java.lang.RuntimeException", p, 4);

		sign_java(&e, text, sizeof(text));
		T_ASSERT(strcmp(text, "java.lang.RuntimeException at android.view.View.draw < "
				      "java.lang.Thread.run") == 0,
			 "signed '%s'", text);
	}

	/* no stack (logcat gave none, an am_crash): nothing to sign */
	{
		struct log_event e = jcrash("java.lang.IllegalStateException: x", NULL, 0);

		T_ASSERT(crash_signature_java(&e, sig, text, sizeof(text)) == 0, "stackless signed");
		T_ASSERT(crash_signature_java(NULL, sig, text, sizeof(text)) == 0, "NULL signed");
	}
}

int main(void)
{
	native();
	java();
	return T_PASS;
}
