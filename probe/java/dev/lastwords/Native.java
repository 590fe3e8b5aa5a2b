package dev.lastwords;

/*
 * The JNI side of the facade: probe/jni.c registers these methods in
 * JNI_OnLoad, so a name or signature that differs fails the load. A handle
 * is the C struct lw pointer. Probe checks the arguments and the probe's
 * state before it calls in; these return the C function's result (0 or a
 * negative errno) and throw only where said.
 */
final class Native {
	static {
		System.loadLibrary("lastwords_jni");
	}

	/* Why a name cannot be recorded (jni.c, name_utf8()). */
	static final int NAME_TOO_LONG = 1; /* over NAME_MAX_BYTES in UTF-8 */
	static final int NAME_HAS_NUL = 2;  /* holds U+0000 */
	static final int NAME_MAX_BYTES = 1023;

	private Native() {
	}

	/* lw_open(); dir and processName in UTF-8 without NUL. Throws
	 * IllegalStateException (a probe is open in this process already, or
	 * the probe failed) or OutOfMemoryError. */
	static native long open(byte[] dir, byte[] processName, long appVersion, int memoryBudgetKb,
			int samplerPeriodMs);

	static native int close(long lw);

	/* From lw_info(): the run id's 32 hex digits, the ring file's path in
	 * UTF-8 (empty when anonymous), whether the ring is anonymous. */
	static native String runId(long lw);

	static native byte[] path(long lw);

	static native boolean anonymous(long lw);

	/* lw_candidate() of name in UTF-8: a NAME_ code when the name cannot
	 * be recorded, else its result. With lw 0, only the check (0 or a
	 * NAME_ code). Does not allocate. */
	static native int candidate(long lw, String name);

	/* lw_digest() of name in UTF-8 into out[0]: 0, or a NAME_ code. */
	static native int digest(String name, long[] out);

	static native int stageBegin(long lw, int stage);

	static native int stageEnd(long lw, int stage, int error);

	static native int mark(long lw, int mark, long value);

	/* lw_session_open() of candidate in UTF-8, as candidate(). */
	static native int sessionOpen(long lw, int session, String candidate);

	static native int sessionClose(long lw, int session, int result);

	static native int sessionStageBegin(long lw, int session, int stage);

	static native int sessionStageEnd(long lw, int session, int stage, int error);

	static native int payload(long lw, int payloadClass, long bytes);

	/* lw_cache() of key in UTF-8, as candidate(). */
	static native int cache(long lw, int op, String key);

	/* lw_receipt() of candidate in UTF-8, as candidate(). */
	static native int receipt(long lw, String candidate, long filesDigest);

	/* lw_peer_died() of processName in UTF-8, as candidate(). */
	static native int peerDied(long lw, int pid, String processName);

	static native int memorySample(long lw);

	/* lw_memory_graphics(): a graphics record of source app. */
	static native int memoryGraphics(long lw, long kb);

	/* lw_memory_pressure() of a PressureSource code. */
	static native int memoryPressure(long lw, int source, int level, long availKb,
			long thresholdKb);

	static native int sync(long lw);

	/* lw_advice() into out: kind, stage, count, candidate, stable candidate. */
	static native int advice(long lw, long[] out);

	static native int adviceReset(long lw);

	/* lw_advice_read() of dir and processName (UTF-8, no NUL) into out, as
	 * advice(); ENODATA (ENODATA) when dir holds no run of the process,
	 * else 0 or a negative errno. */
	static native int adviceRead(byte[] dir, byte[] processName, long[] out);

	/* lw_crash_install(). With vmChains false (a JVM other than ART, whose
	 * sigchain always chains), it first refuses with CRASH_UNCHAINED when
	 * SIGSEGV, SIGBUS, SIGFPE or SIGILL has a handler already, which the
	 * probe's would run in front of: the JVM's own, when no chaining
	 * library (libjsig) holds them. */
	static native int crashInstall(long lw, boolean vmChains);

	static final int CRASH_UNCHAINED = 1;

	/* Whether a writer holds the ring file at path (UTF-8, no NUL): 1, 0
	 * when none does, -EINVAL (EINVAL) when it is not a regular file, else
	 * a negative errno. */
	static native int ringLive(byte[] path);

	static final int EINVAL = 22;
	static final int EBUSY = 16;
	static final int ENOENT = 2;
	static final int ENODATA = 61;
}
