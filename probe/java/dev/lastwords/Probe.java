package dev.lastwords;

import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lastwords probe, from Java: the run's crash-safe ring of stage events,
 * over liblastwords (JNI, {@code liblastwords_jni.so}). See
 * {@code liblastwords(3)}, section JAVA FACADE.
 *
 * <p>One probe per process: open it where the model runs (in
 * {@code Service.onCreate} of the {@code :inference} process), record stages
 * around load, delegate prepare and inference, check {@link #advice()} before
 * prewarming, and {@link #close()} it when the process ends cleanly. A run
 * that is never closed reads as one that died.
 *
 * <p>The event calls ({@link #candidate}, {@link #begin}, {@link #end},
 * the session calls, {@link #mark}, {@link #payload}, {@link #cache},
 * {@link #receipt}, {@link #peerDied}, {@link #sampleMemory},
 * {@link #memoryGraphics}, {@link #memoryPressure}) do not allocate,
 * lock or block, on
 * the Java side or in C, and any number of threads may call them at once,
 * also while another closes the probe. Bad arguments throw (a null
 * argument {@link NullPointerException}, a value outside what a ring takes
 * {@link IllegalArgumentException}), whatever the probe's state. After
 * {@link #close()} the events, {@link #sync()} and {@link #resetAdvice()}
 * are ignored; {@link #advice()} and {@link #installCrashHandler()} throw
 * {@link IllegalStateException}; {@link #runId()}, {@link #path()} and
 * {@link #anonymous()} still answer; a second {@code close()} does nothing.
 */
public final class Probe implements AutoCloseable {
	/* users: the calls inside the native probe now, plus CLOSED once close()
	 * began. A call enters only while CLOSED is clear, and close() frees
	 * the C probe only once no call is inside. */
	private static final int CLOSED = Integer.MIN_VALUE;
	private static final Charset UTF_8 = Charset.forName("UTF-8");

	/** Session ids are in [0, SESSIONS_MAX): {@code LW_SESSIONS_MAX}. */
	public static final int SESSIONS_MAX = 16;

	private final long lw;
	private final AtomicInteger users = new AtomicInteger();
	private final String runId;
	private final String path;
	private final boolean anonymous;
	private boolean crashHandler; /* guarded by this */

	private Probe(long lw) {
		this.lw = lw;
		this.runId = Native.runId(lw);
		this.path = new String(Native.path(lw), UTF_8);
		this.anonymous = Native.anonymous(lw);
	}

	/**
	 * What {@link Probe#open(Config)} opens: the directory of the ring
	 * files, this process's name, the app's version code, the memory
	 * budget and the sampler's period. Each number is set by a named call,
	 * so two ints cannot be swapped unseen, and Kotlin reads it well:
	 *
	 * <pre>
	 * val probe = Probe.open(
	 *     Probe.Config.builder(filesDir, "com.example.app:inference")
	 *         .appVersion(BuildConfig.VERSION_CODE.toLong())
	 *         .memoryBudgetKb(512 * 1024)
	 *         .samplerPeriodMs(20)
	 *         .build())
	 * </pre>
	 *
	 * <p>Nothing in it may be null. The directory and the process name are
	 * required; the numbers left unset are 0 (version 0, no budget, no
	 * sampler thread). Arguments are checked where they are given, with the
	 * exceptions {@link Probe#open(String, String, long, int, int)}
	 * documents, so a bad value fails at the call that set it. A Config is
	 * immutable and may be shared between threads.
	 */
	public static final class Config {
		private final File dir;
		private final String processName;
		private final long appVersion;
		private final int memoryBudgetKb;
		private final int samplerPeriodMs;

		private Config(Builder b) {
			this.dir = b.dir;
			this.processName = b.processName;
			this.appVersion = b.appVersion;
			this.memoryBudgetKb = b.memoryBudgetKb;
			this.samplerPeriodMs = b.samplerPeriodMs;
		}

		/**
		 * A builder of a Config for the ring files in {@code dir} of the
		 * process {@code processName}.
		 *
		 * @param dir the app's internal files dir ({@code Context.getFilesDir()}),
		 *        or a directory in it: not null
		 * @param processName this process's name, e.g.
		 *        {@code "com.example.app:inference"}: not null, 1 to 63 bytes
		 *        in UTF-8
		 * @throws NullPointerException if dir or processName is null
		 * @throws IllegalArgumentException if processName is empty, too long
		 *         or holds U+0000, or dir's path holds U+0000
		 */
		public static Builder builder(File dir, String processName) {
			if (dir == null)
				throw new NullPointerException("dir");
			utf8("dir", dir.getPath(), false);
			utf8("processName", processName, true);
			return new Builder(dir, processName);
		}

		/** The directory of the ring files. */
		public File dir() {
			return dir;
		}

		/** This process's name, as the ring records it. */
		public String processName() {
			return processName;
		}

		/** The app's version code: advice counts the previous runs of the same one. */
		public long appVersion() {
			return appVersion;
		}

		/** The memory budget in kB, 0 for none. */
		public int memoryBudgetKb() {
			return memoryBudgetKb;
		}

		/** The sampler thread's period in ms, 0 for none. */
		public int samplerPeriodMs() {
			return samplerPeriodMs;
		}

		@Override
		public String toString() {
			return "Probe.Config(dir=" + dir + ", processName=" + processName + ", appVersion="
					+ appVersion + ", memoryBudgetKb=" + memoryBudgetKb + ", samplerPeriodMs="
					+ samplerPeriodMs + ")";
		}

		/**
		 * Sets a Config's numbers, each by name, then {@link #build()}s it.
		 * Not thread-safe: build on one thread, then share the Config.
		 */
		public static final class Builder {
			private final File dir;
			private final String processName;
			private long appVersion;
			private int memoryBudgetKb;
			private int samplerPeriodMs;

			private Builder(File dir, String processName) {
				this.dir = dir;
				this.processName = processName;
			}

			/**
			 * The app's versionCode ({@code PackageInfo.getLongVersionCode()}):
			 * advice only counts the previous runs of the same version. 0
			 * when unset.
			 */
			public Builder appVersion(long versionCode) {
				this.appVersion = versionCode;
				return this;
			}

			/**
			 * This process's memory budget in kB, which reports compare the
			 * process's own memory with; 0 (the default) for none.
			 *
			 * @throws IllegalArgumentException if kb is negative
			 */
			public Builder memoryBudgetKb(int kb) {
				if (kb < 0)
					throw new IllegalArgumentException("memoryBudgetKb is negative: " + kb);
				this.memoryBudgetKb = kb;
				return this;
			}

			/**
			 * The period of a thread that samples the memory, in ms; 0 (the
			 * default) for none, when each stage event reads
			 * {@code /proc/self/statm} itself (about a microsecond).
			 *
			 * @throws IllegalArgumentException if ms is negative
			 */
			public Builder samplerPeriodMs(int ms) {
				if (ms < 0)
					throw new IllegalArgumentException("samplerPeriodMs is negative: " + ms);
				this.samplerPeriodMs = ms;
				return this;
			}

			/** The Config; the builder may go on to build others. */
			public Config build() {
				return new Config(this);
			}
		}
	}

	/**
	 * Opens the probe as {@link #open(String, String, long, int, int)}
	 * does, with the arguments of {@code config}.
	 *
	 * @param config what to open: not null
	 * @throws NullPointerException if config is null
	 * @throws IllegalStateException if a probe is open in this process
	 *         already, or the probe cannot start
	 */
	public static Probe open(Config config) {
		if (config == null)
			throw new NullPointerException("config");
		return open(config.dir.getPath(), config.processName, config.appVersion,
				config.memoryBudgetKb, config.samplerPeriodMs);
	}

	/**
	 * Opens the probe: this run's ring file in {@code dir}, named
	 * {@code <processName>.<UTC start>.<pid>.lwr}, with the previous runs'
	 * files kept beside it (the last four) and their boot-loop advice.
	 * If no file can be made there, the probe runs on anonymous memory
	 * ({@link #anonymous()}). Call it once per process; it allocates and
	 * does file I/O. This is the shorthand of {@link #open(Config)}, which
	 * names each number; no argument may be null.
	 *
	 * @param dir the app's internal files dir
	 * @param processName this process's name, e.g.
	 *        {@code "com.example.app:inference"}: 1 to 63 bytes in UTF-8
	 * @param appVersion the app's versionCode: advice only counts the
	 *        previous runs of the same version
	 * @param memoryBudgetKb this process's memory budget in kB, 0 for none
	 * @param samplerPeriodMs the period of a thread that samples RSS, 0 for
	 *        none (each stage event then reads {@code /proc/self/statm},
	 *        about a microsecond)
	 * @throws NullPointerException if dir or processName is null
	 * @throws IllegalArgumentException if processName is empty, too long or
	 *         holds U+0000, if dir holds U+0000, or a number is negative
	 * @throws IllegalStateException if a probe is open in this process
	 *         already, or the probe cannot start
	 */
	public static Probe open(String dir, String processName, long appVersion, int memoryBudgetKb,
			int samplerPeriodMs) {
		byte[] d = utf8("dir", dir, false);
		byte[] name = utf8("processName", processName, true);
		if (memoryBudgetKb < 0)
			throw new IllegalArgumentException("memoryBudgetKb is negative: " + memoryBudgetKb);
		if (samplerPeriodMs < 0)
			throw new IllegalArgumentException("samplerPeriodMs is negative: " + samplerPeriodMs);
		return new Probe(Native.open(d, name, appVersion, memoryBudgetKb, samplerPeriodMs));
	}

	/**
	 * The digest that a ring records for the candidate name (64-bit
	 * FNV-1a over its UTF-8 bytes), as {@code lastwords digest NAME} and
	 * {@link Advice#candidate()} give it.
	 *
	 * @throws NullPointerException if name is null
	 * @throws IllegalArgumentException as {@link #candidate(String)}
	 */
	public static long digest(String name) {
		checkName(name);
		long[] out = new long[1];
		int rc = Native.digest(name, out);
		if (rc > 0)
			throw badName("name", rc);
		return out[0];
	}

	/**
	 * Whether the run of the ring file at path is live: a writer (a probe
	 * in this or another process) holds its lock, as the probe itself tells
	 * a live run from a dead one ({@code lastwords-ring(5)}, section 3.3).
	 * A run that ended, cleanly or not, is not live. Only meaningful on the
	 * system where the file is: a copy carries no lock. Does not block.
	 *
	 * @throws NullPointerException if path is null
	 * @throws IllegalArgumentException if path is empty or holds U+0000
	 * @throws IOException if the file cannot be opened, or is not
	 *         a regular file (a symbolic link, a FIFO and a device are not
	 *         followed, opened or waited on)
	 */
	public static boolean live(String path) throws IOException {
		if (path == null)
			throw new NullPointerException("path");
		byte[] p = path.getBytes(UTF_8);
		if (p.length == 0 || hasNul(p))
			throw new IllegalArgumentException(p.length == 0 ? "path is empty" : "path holds U+0000");
		int rc = Native.ringLive(p);
		if (rc == -Native.EINVAL)
			throw new IOException(path + ": not a regular file");
		if (rc < 0)
			throw new IOException(path + ": cannot be opened: errno " + -rc);
		return rc == 1;
	}

	/** This run's id, 32 lowercase hex digits: the text to hand to
	 * {@code ActivityManager.setProcessStateSummary()}, which joins the
	 * process's exit record to this ring exactly. */
	public String runId() {
		return runId;
	}

	/** Whether the ring is in anonymous memory: no file could be made,
	 * and nothing of this run will outlive the process. */
	public boolean anonymous() {
		return anonymous;
	}

	/** The ring file's path, or "" when {@link #anonymous()}. */
	public String path() {
		return path;
	}

	/** The C probe ({@code struct lw *}) for native code of the app that
	 * links liblastwords.so and records on the same ring with the C API;
	 * valid until {@link #close()}, which does not wait for those calls. */
	public long nativeHandle() {
		return lw;
	}

	/**
	 * Records the candidate (the model version on trial) by the digest of
	 * its name, and makes it current for later events and for advice. The
	 * name never leaves the process.
	 *
	 * @throws NullPointerException if name is null
	 * @throws IllegalArgumentException if name is empty, holds U+0000, or
	 *         is longer than 1023 bytes in UTF-8
	 */
	public void candidate(String name) {
		checkName(name);
		int rc;
		if (enter()) {
			try {
				rc = Native.candidate(lw, name);
			} finally {
				exit();
			}
		} else {
			rc = Native.candidate(0, name);
		}
		if (rc > 0)
			throw badName("name", rc);
	}

	/**
	 * Records the beginning of a stage, with an RSS sample and a clock
	 * triple.
	 *
	 * @throws NullPointerException if stage is null
	 * @throws IllegalArgumentException if stage is {@link Stage#NONE}
	 */
	public void begin(Stage stage) {
		int code = stageCode(stage);
		if (enter()) {
			try {
				Native.stageBegin(lw, code);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Records the end of a stage with its error class
	 * ({@link ErrorClass#NONE} on success). An inference that ends with
	 * none marks the current candidate as having completed one.
	 *
	 * @throws NullPointerException if stage or error is null
	 * @throws IllegalArgumentException if stage is {@link Stage#NONE}
	 */
	public void end(Stage stage, ErrorClass error) {
		int code = stageCode(stage);
		if (error == null)
			throw new NullPointerException("error");
		if (enter()) {
			try {
				Native.stageEnd(lw, code, error.code);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Opens model session {@code session} (1 to {@link #SESSIONS_MAX} - 1;
	 * session 0 is the process's own, which {@link #begin} and
	 * {@link #candidate} write to) with the candidate it loads, by the
	 * digest of its name, and makes that candidate current for advice. The
	 * ring's header keeps the open sessions with their candidates and open
	 * stages, so a run killed during a model switch still tells them. A
	 * closed session may be opened again. {@code lw_session_open(3)}.
	 *
	 * @throws NullPointerException if candidate is null
	 * @throws IllegalArgumentException if session is out of range, or
	 *         candidate is empty, holds U+0000, or is longer than 1023
	 *         bytes in UTF-8
	 * @throws IllegalStateException if the session is open
	 */
	public void sessionOpen(int session, String candidate) {
		if (candidate == null)
			throw new NullPointerException("candidate");
		if (candidate.isEmpty())
			throw new IllegalArgumentException("candidate is empty");
		sessionId(session, 1);
		int rc;
		if (enter()) {
			try {
				rc = Native.sessionOpen(lw, session, candidate);
			} finally {
				exit();
			}
		} else {
			rc = Native.sessionOpen(0, session, candidate);
		}
		if (rc > 0)
			throw badName("candidate", rc);
		if (rc == -Native.EBUSY)
			throw new IllegalStateException("sessionOpen: session " + session + " is open");
	}

	/**
	 * Closes model session {@code session} with its result
	 * ({@link ErrorClass#NONE} when the model was released normally).
	 * Stages still open in it stay counted as open: begun, never ended.
	 *
	 * @throws NullPointerException if result is null
	 * @throws IllegalArgumentException if session is out of range
	 * @throws IllegalStateException if the session is not open
	 */
	public void sessionClose(int session, ErrorClass result) {
		if (result == null)
			throw new NullPointerException("result");
		sessionId(session, 1);
		int rc = 0;
		if (enter()) {
			try {
				rc = Native.sessionClose(lw, session, result.code);
			} finally {
				exit();
			}
		}
		notOpen("sessionClose", session, rc);
	}

	/**
	 * {@link #begin} in session {@code session} (0 to
	 * {@link #SESSIONS_MAX} - 1): the record carries the session and its
	 * candidate. {@code lw_session_stage_begin(3)}.
	 *
	 * @throws NullPointerException if stage is null
	 * @throws IllegalArgumentException if session is out of range, or stage
	 *         is {@link Stage#NONE}
	 * @throws IllegalStateException if the session is not open
	 */
	public void sessionBegin(int session, Stage stage) {
		int code = stageCode(stage);
		sessionId(session, 0);
		int rc = 0;
		if (enter()) {
			try {
				rc = Native.sessionStageBegin(lw, session, code);
			} finally {
				exit();
			}
		}
		notOpen("sessionBegin", session, rc);
	}

	/**
	 * {@link #end} in session {@code session}.
	 *
	 * @throws NullPointerException if stage or error is null
	 * @throws IllegalArgumentException if session is out of range, or stage
	 *         is {@link Stage#NONE}
	 * @throws IllegalStateException if the session is not open
	 */
	public void sessionEnd(int session, Stage stage, ErrorClass error) {
		int code = stageCode(stage);
		if (error == null)
			throw new NullPointerException("error");
		sessionId(session, 0);
		int rc = 0;
		if (enter()) {
			try {
				rc = Native.sessionStageEnd(lw, session, code, error.code);
			} finally {
				exit();
			}
		}
		notOpen("sessionEnd", session, rc);
	}

	/**
	 * Records a request's payload: its class and the bucket of its size
	 * (k for [2^(k-1), 2^k) bytes, 0 when empty), never the size itself.
	 * {@code lw_payload(3)}.
	 *
	 * @throws NullPointerException if payloadClass is null
	 * @throws IllegalArgumentException if bytes is negative
	 */
	public void payload(PayloadClass payloadClass, long bytes) {
		if (payloadClass == null)
			throw new NullPointerException("payloadClass");
		if (bytes < 0)
			throw new IllegalArgumentException("bytes is negative: " + bytes);
		if (enter()) {
			try {
				Native.payload(lw, payloadClass.code, bytes);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Records a cache operation on a cached artifact (a compiled delegate
	 * graph, a tokenizer) with the digest of its key, never the key: name
	 * the source model in it. {@code lw_cache(3)}.
	 *
	 * @throws NullPointerException if op or key is null
	 * @throws IllegalArgumentException if key is empty, holds U+0000, or is
	 *         longer than 1023 bytes in UTF-8
	 */
	public void cache(CacheOp op, String key) {
		if (op == null)
			throw new NullPointerException("op");
		if (key == null)
			throw new NullPointerException("key");
		if (key.isEmpty())
			throw new IllegalArgumentException("key is empty");
		int rc;
		if (enter()) {
			try {
				rc = Native.cache(lw, op.code, key);
			} finally {
				exit();
			}
		} else {
			rc = Native.cache(0, op.code, key);
		}
		if (rc > 0)
			throw badName("key", rc);
	}

	/**
	 * Records a receipt: the files of {@code candidate} were verified
	 * complete, {@code filesDigest} being the app's digest of them (the
	 * checksum it checked). {@code lw_receipt(3)}.
	 *
	 * @throws NullPointerException if candidate is null
	 * @throws IllegalArgumentException if candidate is empty, holds U+0000
	 *         or is longer than 1023 bytes in UTF-8, or filesDigest is 0
	 */
	public void receipt(String candidate, long filesDigest) {
		if (candidate == null)
			throw new NullPointerException("candidate");
		if (candidate.isEmpty())
			throw new IllegalArgumentException("candidate is empty");
		if (filesDigest == 0)
			throw new IllegalArgumentException("filesDigest is 0");
		int rc;
		if (enter()) {
			try {
				rc = Native.receipt(lw, candidate, filesDigest);
			} finally {
				exit();
			}
		} else {
			rc = Native.receipt(0, candidate, filesDigest);
		}
		if (rc > 0)
			throw badName("candidate", rc);
	}

	/**
	 * Records a point mark: sessions, queue depth, the delegate in use or
	 * fallen back to (value: a {@link Delegate#code()}), a recovery action
	 * taken (value: an {@link Action#code()}), the runtime version, the
	 * budget in kB. The value is stored as an unsigned 64-bit number.
	 * The marks of two values have calls of their own:
	 * {@link Mark#PEER_DIED} is {@link #peerDied}'s, {@link Mark#PAYLOAD}
	 * {@link #payload}'s, {@link Mark#CACHE} {@link #cache}'s and
	 * {@link Mark#RECEIPT} {@link #receipt}'s.
	 *
	 * @throws NullPointerException if mark is null
	 * @throws IllegalArgumentException if mark is one of those four
	 */
	public void mark(Mark mark, long value) {
		if (mark == null)
			throw new NullPointerException("mark");
		if (mark == Mark.PEER_DIED)
			throw new IllegalArgumentException("mark: PEER_DIED is recorded by peerDied(pid, processName)");
		if (mark == Mark.PAYLOAD || mark == Mark.CACHE || mark == Mark.RECEIPT)
			throw new IllegalArgumentException("mark: " + mark + " is recorded by its own call");
		if (enter()) {
			try {
				Native.mark(lw, mark.code, value);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Records that a peer process died: in the app's main process, when
	 * the bound {@code :inference} process's binder dies
	 * ({@code IBinder.DeathRecipient.binderDied},
	 * {@code ServiceConnection.onServiceDisconnected}, a
	 * {@code DeadObjectException}). A {@link Mark#PEER_DIED} mark in this
	 * probe's ring with the peer's pid and the digest of its process name
	 * (the name it gave {@link #open}), never the name. {@code lastwords}
	 * joins it with the peer's ring: the app's own witness that the peer
	 * died, and when. {@link #mark} does not take {@link Mark#PEER_DIED}.
	 *
	 * @param pid the peer's process id
	 * @param processName the peer's process name, e.g.
	 *        {@code "com.example.app:inference"}
	 * @throws NullPointerException if processName is null
	 * @throws IllegalArgumentException if pid is not positive, or
	 *         processName is empty, holds U+0000, or is longer than 1023
	 *         bytes in UTF-8
	 */
	public void peerDied(int pid, String processName) {
		if (processName == null)
			throw new NullPointerException("processName");
		if (processName.isEmpty())
			throw new IllegalArgumentException("processName is empty");
		if (pid <= 0)
			throw new IllegalArgumentException("pid is not positive: " + pid);
		int rc;
		if (enter()) {
			try {
				rc = Native.peerDied(lw, pid, processName);
			} finally {
				exit();
			}
		} else {
			rc = Native.peerDied(0, pid, processName);
		}
		if (rc > 0)
			throw badName("processName", rc);
	}

	/** Reads RSS now, publishes it for later events and records it: about
	 * a microsecond, for chosen moments. */
	public void sampleMemory() {
		if (enter()) {
			try {
				Native.memorySample(lw);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Records graphics memory that the app knows of and RSS does not hold
	 * (GPU delegate buffers, textures): a {@code graphics} record of source
	 * {@code app} ({@code lw_memory_graphics(3)}). On Android, the figure
	 * of {@code Debug.MemoryInfo.getMemoryStat("summary.graphics")}, which
	 * {@code dev.lastwords.android.MemoryWatch} reads at stage ends.
	 *
	 * @param kb graphics memory in kB
	 * @throws IllegalArgumentException if kb is negative
	 */
	public void memoryGraphics(long kb) {
		if (kb < 0)
			throw new IllegalArgumentException("kb is negative: " + kb);
		if (enter()) {
			try {
				Native.memoryGraphics(lw, kb);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Records the system's memory pressure as the process saw it: a
	 * {@code pressure} record ({@code lw_memory_pressure(3)}). With
	 * {@link PressureSource#TRIM}, level is the
	 * {@code ComponentCallbacks2.onTrimMemory} level and availKb and
	 * thresholdKb are 0; with {@link PressureSource#MEMORY_INFO}, level is 1
	 * when {@code ActivityManager.MemoryInfo.lowMemory} was true, else 0,
	 * and availKb and thresholdKb are its {@code availMem} and
	 * {@code threshold} in kB. {@link PressureSource#PSI} is the probe's
	 * own sampler's ({@code /proc/pressure/memory}); an app that reads PSI
	 * itself gives "some avg10" in hundredths of a percent as level, "full
	 * avg10" as availKb and "some total" in µs as thresholdKb.
	 * {@code dev.lastwords.android.MemoryWatch} makes the first two.
	 *
	 * @throws NullPointerException if source is null
	 * @throws IllegalArgumentException if a number is negative
	 */
	public void memoryPressure(PressureSource source, int level, long availKb, long thresholdKb) {
		if (source == null)
			throw new NullPointerException("source");
		if (level < 0 || availKb < 0 || thresholdKb < 0)
			throw new IllegalArgumentException((level < 0 ? "level" : availKb < 0 ? "availKb"
					: "thresholdKb") + " is negative: "
					+ (level < 0 ? level : availKb < 0 ? availKb : thresholdKb));
		if (enter()) {
			try {
				Native.memoryPressure(lw, source.code, level, availKb, thresholdKb);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Writes the ring to storage (msync and fdatasync), for power loss, at
	 * valuable moments such as before delegate prepare; never per event.
	 * Blocks on storage.
	 *
	 * @return whether the ring is on storage now: false when it is
	 *         anonymous, the probe is closed, or the write failed
	 */
	public boolean sync() {
		if (!enter())
			return false;
		try {
			return Native.sync(lw) == 0;
		} finally {
			exit();
		}
	}

	/**
	 * The boot-loop advice computed at open from the previous runs of this
	 * process and app version: {@link AdviceKind#SKIP_PREWARM} after one
	 * death in the same early stage or in inference,
	 * {@link AdviceKind#QUARANTINE} after two or more in a row with the
	 * same candidate. It reads
	 * {@link AdviceKind#NONE} once the current candidate differs from the
	 * one that died, or after {@link #resetAdvice()}. Advice is data: the
	 * probe never deletes or switches anything. Allocates the result.
	 *
	 * @throws IllegalStateException if the probe is closed
	 */
	public Advice advice() {
		long[] out = new long[5];
		if (!enter())
			throw closed("advice");
		try {
			Native.advice(lw, out);
		} finally {
			exit();
		}
		return advice(out);
	}

	/**
	 * The advice that {@link #open} would give a run of processName in dir
	 * now, read from its ring files without opening a probe: the app's main
	 * process reads its {@code :inference} process's before it binds it
	 * ({@code lw_advice_read(3)}). Read-only; the writer never waits for
	 * it; it may run while that process runs. The default thresholds, and
	 * the app version of the newest run. Allocates the result only.
	 *
	 * @return the advice, or null when dir holds no run of processName
	 * @throws NullPointerException if dir or processName is null
	 * @throws IllegalArgumentException as {@link #open} for processName
	 *         and dir
	 * @throws IOException if the directory cannot be read, or it holds runs
	 *         and none can be read
	 */
	public static Advice readAdvice(String dir, String processName) throws IOException {
		byte[] d = utf8("dir", dir, false);
		byte[] name = utf8("processName", processName, true);
		long[] out = new long[5];
		int rc = Native.adviceRead(d, name, out);
		if (rc == -Native.ENODATA)
			return null;
		if (rc < 0)
			throw new IOException(dir + ": the runs of " + processName
					+ " cannot be read: errno " + -rc);
		return advice(out);
	}

	/** The UTF-8 bytes of a dir or (process) a process name argument, checked
	 * as open() documents. */
	private static byte[] utf8(String argument, String value, boolean process) {
		if (value == null)
			throw new NullPointerException(argument);
		byte[] b = value.getBytes(UTF_8);
		if (process && (b.length == 0 || b.length > 63))
			throw new IllegalArgumentException(
					argument + ": " + b.length + " bytes in UTF-8; a ring takes 1 to 63");
		if (hasNul(b))
			throw new IllegalArgumentException(argument + " holds U+0000");
		return b;
	}

	/** An Advice of what Native.advice() and adviceRead() give. */
	private static Advice advice(long[] out) {
		return new Advice(AdviceKind.fromCode((int) out[0]), Stage.fromCode((int) out[1]),
				(int) out[2], out[3], out[4]);
	}

	/** Clears the advice, on an explicit user action: later runs no
	 * longer count the deaths before this run. */
	public void resetAdvice() {
		if (enter()) {
			try {
				Native.adviceReset(lw);
			} finally {
				exit();
			}
		}
	}

	/**
	 * Installs the probe's fatal-signal handler (SIGSEGV, SIGBUS, SIGABRT,
	 * SIGFPE, SIGILL, SIGTRAP): a native crash writes one crash record,
	 * then the signal goes on to the handler that was there before, so the
	 * process still dies by it and the system (or the JVM) still reports
	 * it. On Android, ART's sigchain runs it behind ART's own handlers.
	 * Under HotSpot, start the JVM with {@code libjsig.so} preloaded
	 * (signal chaining, {@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}): the
	 * JVM takes SIGSEGV for its own use (null checks, safepoints), and
	 * without it the probe's handler would run first and take those for
	 * crashes, so it is refused. A second call does nothing.
	 *
	 * @throws IllegalStateException if the probe is closed, if the JVM's
	 *         handlers are not chained (no libjsig), or if the handler
	 *         cannot be installed
	 */
	public synchronized void installCrashHandler() {
		if (!enter())
			throw closed("installCrashHandler");
		int rc;
		try {
			if (crashHandler)
				return;
			rc = Native.crashInstall(lw, "Dalvik".equals(System.getProperty("java.vm.name")));
			crashHandler = rc == 0;
		} finally {
			exit();
		}
		if (rc == Native.CRASH_UNCHAINED)
			throw new IllegalStateException("installCrashHandler: the JVM's SIGSEGV handler is "
					+ "installed without signal chaining, and the probe's would run in front of it and "
					+ "take the JVM's own signals (null checks) for crashes: start the JVM with "
					+ "libjsig.so preloaded (LD_PRELOAD=" + System.getProperty("java.home")
					+ "/lib/libjsig.so)");
		if (rc != 0)
			throw new IllegalStateException("installCrashHandler: lw_crash_install failed: errno "
					+ -rc);
	}

	/**
	 * Ends the run cleanly: marks the ring CLEAN_EXIT, stops the sampler,
	 * removes the crash handler and releases the probe, once the calls
	 * inside it returned. Later events are ignored; a second close does
	 * nothing.
	 */
	@Override
	public void close() {
		int n;
		do {
			n = users.get();
			if (n < 0)
				return;
		} while (!users.compareAndSet(n, n | CLOSED));
		while (users.get() != CLOSED)
			Thread.yield();
		Native.close(lw);
	}

	@Override
	public String toString() {
		return "Probe[runId=" + runId + (anonymous ? ", anonymous" : ", path=" + path)
				+ (users.get() < 0 ? ", closed]" : "]");
	}

	/* Enter the native probe: false once close() began. No allocation. */
	private boolean enter() {
		if (users.getAndIncrement() >= 0)
			return true;
		users.getAndDecrement();
		return false;
	}

	private void exit() {
		users.getAndDecrement();
	}

	private static void sessionId(int session, int lowest) {
		if (session < lowest || session >= SESSIONS_MAX)
			throw new IllegalArgumentException("session " + session + " is not in [" + lowest + ", "
					+ SESSIONS_MAX + ")");
	}

	private static void notOpen(String call, int session, int rc) {
		if (rc == -Native.ENOENT)
			throw new IllegalStateException(call + ": session " + session + " is not open");
	}

	private static int stageCode(Stage stage) {
		if (stage == null)
			throw new NullPointerException("stage");
		if (stage == Stage.NONE)
			throw new IllegalArgumentException("stage: NONE is no stage to record");
		return stage.code;
	}

	private static void checkName(String name) {
		if (name == null)
			throw new NullPointerException("name");
		if (name.isEmpty())
			throw new IllegalArgumentException("name is empty");
	}

	private static IllegalArgumentException badName(String argument, int rc) {
		return new IllegalArgumentException(argument + (rc == Native.NAME_HAS_NUL ? " holds U+0000"
				: " is longer than " + Native.NAME_MAX_BYTES + " bytes in UTF-8"));
	}

	private static IllegalStateException closed(String call) {
		return new IllegalStateException(call + ": the probe is closed");
	}

	private static boolean hasNul(byte[] b) {
		for (byte x : b)
			if (x == 0)
				return true;
		return false;
	}
}
