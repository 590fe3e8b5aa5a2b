/* Test-only native methods (tests/jni-test.c). */
final class TestNative {
	static {
		System.loadLibrary("lastwords_jnitest");
	}

	private TestNative() {
	}

	static native void crash();

	static native int crashInstallUnchecked(long lw);

	static native long stagesC(long lw, int n);

	static native String vocab();

	static native int nop(long lw, int stage);

	static native boolean optimized();
}
