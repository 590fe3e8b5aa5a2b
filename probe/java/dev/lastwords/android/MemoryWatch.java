package dev.lastwords.android;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import android.app.ActivityManager;
import android.content.ComponentCallbacks2;
import android.content.Context;
import android.content.res.Configuration;
import android.os.Build;
import android.os.Debug;

import dev.lastwords.PressureSource;
import dev.lastwords.Probe;

/**
 * The app's memory as Android tells it, on the probe's ring: the system's
 * trim callbacks, and at the ends of stages a sample of graphics memory
 * and of the system's available memory. Install it where the probe is
 * opened ({@code Service.onCreate} of the {@code :inference} process), call
 * {@link #stageEnded()} after each {@link Probe#end} that matters (load,
 * delegate prepare, inference), and {@link #close()} it before the probe.
 *
 * <p><b>Trim callbacks.</b> It registers a {@link ComponentCallbacks2}
 * ({@code context.registerComponentCallbacks}): each
 * {@code onTrimMemory(level)} is one {@code pressure} record of source
 * {@code trim} with that level, written on the calling (main) thread, a
 * microsecond. {@code onLowMemory()} is recorded as level 80
 * ({@code TRIM_MEMORY_COMPLETE}): the documentation places it where all
 * background processes were killed, the top of the trim scale, and the
 * ring's levels have no other number for it. Since Android 14 (API 34)
 * apps receive only {@code TRIM_MEMORY_UI_HIDDEN} (20) and
 * {@code TRIM_MEMORY_BACKGROUND} (40): {@code TRIM_MEMORY_RUNNING_MODERATE}
 * (5), {@code RUNNING_LOW} (10), {@code RUNNING_CRITICAL} (15),
 * {@code MODERATE} (60) and {@code COMPLETE} (80) are not sent there, nor
 * is {@code onLowMemory()} (all deprecated in API 35). On those releases
 * the pressure of a process that is running comes from the samples below
 * and from the probe's own PSI reading ({@code /proc/pressure/memory}),
 * not from trims.
 *
 * <p><b>Samples.</b> {@link #stageEnded()} asks for a sample and returns at
 * once: the sample runs on the watch's one daemon thread
 * ({@code "lastwords-memory"}), at most one per {@code minIntervalMs}
 * (1000 by default), since {@code Debug.getMemoryInfo} reads the process's
 * whole memory map (tens of milliseconds). Requests made while a sample
 * runs or before the interval passed are one request: they make one sample
 * when the interval has passed, never a queue. A sample records:
 * <ul>
 * <li>{@code Debug.getMemoryInfo} and its {@code getMemoryStat("summary.graphics")}
 * (API 23; kB, as a string) as {@link Probe#memoryGraphics}: graphics
 * memory, which RSS does not hold. A missing or unreadable figure (null,
 * not a number) writes no record; below API 23 none is read;</li>
 * <li>{@code ActivityManager.getMemoryInfo} as
 * {@link Probe#memoryPressure} of source {@code memory_info}: level 1 when
 * {@code lowMemory}, else 0, {@code availMem} and {@code threshold} in kB;</li>
 * <li>{@link Probe#sampleMemory}: RSS and its composition at that moment.</li>
 * </ul>
 * A sample that Android's calls fail (a {@link RuntimeException}) is left
 * out; the thread goes on.
 *
 * <p><b>Threads and allocation.</b> {@link #stageEnded()} and the trim
 * callbacks may be called from any thread, at once; they allocate
 * nothing, take no Java lock and never wait for the sampler (the first
 * request after a sample wakes its thread with {@code LockSupport.unpark},
 * the others only see the request pending). The sample reuses one
 * {@code Debug.MemoryInfo} and one {@code ActivityManager.MemoryInfo}; only
 * what Android's calls allocate themselves (the stat's string) is new.
 * After {@link #close()}, {@link #stageEnded()} does nothing; once the
 * probe is closed, the watch's records are ignored as every event is. No
 * argument may be null. Works on every API level from 14.
 */
public final class MemoryWatch implements AutoCloseable {
	/** The least time between two samples by default, in ms. */
	public static final long DEFAULT_MIN_INTERVAL_MS = 1000;

	/* onLowMemory()'s level: ComponentCallbacks2.TRIM_MEMORY_COMPLETE. */
	private static final int LOW_MEMORY_LEVEL = 80;

	private final Context context;
	private final Probe probe;
	private final ActivityManager activityManager; /* null: none to ask */
	private final long minIntervalNs;
	private final Callbacks callbacks = new Callbacks();
	private final Thread thread;
	/* A sample is asked for and not yet begun. */
	private final AtomicBoolean requested = new AtomicBoolean();
	private volatile boolean closed;
	/* The sampler thread's alone. */
	private final Debug.MemoryInfo debugInfo = new Debug.MemoryInfo();
	private final ActivityManager.MemoryInfo systemInfo = new ActivityManager.MemoryInfo();

	private MemoryWatch(Context context, Probe probe, long minIntervalMs) {
		this.context = context;
		this.probe = probe;
		Object am = context.getSystemService(Context.ACTIVITY_SERVICE);
		this.activityManager = am instanceof ActivityManager ? (ActivityManager) am : null;
		this.minIntervalNs = minIntervalMs * 1000000L;
		this.thread = new Thread(new Runnable() {
			@Override
			public void run() {
				loop();
			}
		}, "lastwords-memory");
		thread.setDaemon(true);
	}

	/**
	 * Installs the watch with samples at most once a second
	 * ({@link #DEFAULT_MIN_INTERVAL_MS}).
	 *
	 * @see #install(Context, Probe, long)
	 */
	public static MemoryWatch install(Context context, Probe probe) {
		return install(context, probe, DEFAULT_MIN_INTERVAL_MS);
	}

	/**
	 * Installs the watch: registers its trim callbacks with context and
	 * starts its sampler thread. Call it once, on any thread, after the
	 * probe is open.
	 *
	 * @param context a context of the process (its application's is
	 *        best: the callbacks live as long as it)
	 * @param probe the process's probe, which records what the watch sees
	 * @param minIntervalMs the least time between two samples, in ms; 0
	 *        for none (requests still coalesce while a sample runs)
	 * @throws NullPointerException if context or probe is null
	 * @throws IllegalArgumentException if minIntervalMs is negative, or
	 *         more than a day
	 */
	public static MemoryWatch install(Context context, Probe probe, long minIntervalMs) {
		if (context == null || probe == null)
			throw new NullPointerException(context == null ? "context" : "probe");
		if (minIntervalMs < 0 || minIntervalMs > 86400000L)
			throw new IllegalArgumentException("minIntervalMs is not in [0, 86400000]: "
					+ minIntervalMs);
		MemoryWatch w = new MemoryWatch(context, probe, minIntervalMs);
		context.registerComponentCallbacks(w.callbacks);
		w.thread.start();
		return w;
	}

	/**
	 * Asks for a sample (graphics memory, the system's available memory,
	 * RSS): at the end of a stage, after {@link Probe#end}. Returns at once;
	 * the sample follows on the watch's thread, within
	 * {@code minIntervalMs} of the last one. Does nothing after
	 * {@link #close()}. Any thread; no allocation, no lock.
	 */
	public void stageEnded() {
		if (!closed && requested.compareAndSet(false, true))
			LockSupport.unpark(thread);
	}

	/**
	 * Unregisters the trim callbacks and stops the sampler thread: waits
	 * for a sample that runs to end (a sample asked for and not begun is
	 * dropped), so that nothing is recorded after it returns. Call it before
	 * {@link Probe#close()}. A second call does nothing. If the calling
	 * thread is interrupted while it waits, it returns at once with its
	 * interrupt status set; the thread still stops after that sample.
	 */
	@Override
	public void close() {
		synchronized (this) {
			if (closed)
				return;
			closed = true;
		}
		context.unregisterComponentCallbacks(callbacks);
		LockSupport.unpark(thread);
		if (Thread.currentThread() == thread)
			return; /* from within a sample: it ends after it */
		try {
			thread.join();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}

	/* The sampler thread: waits for a request, then for the interval since
	 * the last sample, then samples. park() may return early (unpark, a
	 * spurious wake-up): each wait is a loop on its condition. */
	private void loop() {
		long last = System.nanoTime() - minIntervalNs;
		while (!closed) {
			if (!requested.get()) {
				LockSupport.park(this);
				continue;
			}
			long wait = last + minIntervalNs - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(this, wait);
				continue;
			}
			requested.set(false);
			last = System.nanoTime();
			try {
				sample();
			} catch (RuntimeException e) {
				/* Android's call failed: this sample is left out. */
			}
		}
	}

	private void sample() {
		if (Build.VERSION.SDK_INT >= 23) {
			Debug.getMemoryInfo(debugInfo);
			long kb = kilobytes(debugInfo.getMemoryStat("summary.graphics"));
			if (kb >= 0)
				probe.memoryGraphics(kb);
		}
		if (activityManager != null) {
			activityManager.getMemoryInfo(systemInfo);
			long avail = systemInfo.availMem, threshold = systemInfo.threshold;
			if (avail >= 0 && threshold >= 0)
				probe.memoryPressure(PressureSource.MEMORY_INFO, systemInfo.lowMemory ? 1 : 0,
						avail / 1024, threshold / 1024);
		}
		probe.sampleMemory();
	}

	/* A stat's value as Android writes it, decimal digits (kB), or -1 when
	 * it is null, empty, not only digits or more than 2^53. Does not
	 * allocate. */
	static long kilobytes(String s) {
		if (s == null || s.isEmpty() || s.length() > 16)
			return -1;
		long v = 0;
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if (c < '0' || c > '9')
				return -1;
			v = v * 10 + (c - '0');
		}
		return v <= 1L << 53 ? v : -1;
	}

	/* The trim callbacks: a pressure record each, on the caller's thread. */
	private final class Callbacks implements ComponentCallbacks2 {
		@Override
		public void onTrimMemory(int level) {
			if (level >= 0)
				probe.memoryPressure(PressureSource.TRIM, level, 0, 0);
		}

		@Override
		public void onLowMemory() {
			probe.memoryPressure(PressureSource.TRIM, LOW_MEMORY_LEVEL, 0, 0);
		}

		@Override
		public void onConfigurationChanged(Configuration newConfig) {
		}
	}
}
