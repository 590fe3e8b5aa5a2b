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

	/* The valid records of that type in the ring file at path, five
	 * numbers each (code, a, b, c, d), through the analyzer's reader. */
	static native long[] records(String path, int type);
}
