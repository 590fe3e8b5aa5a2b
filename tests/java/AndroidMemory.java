import java.io.File;
import java.util.ArrayList;
import java.util.List;

import android.content.ComponentCallbacks;
import android.content.ComponentCallbacks2;
import android.os.Debug;

import dev.lastwords.Probe;
import dev.lastwords.android.MemoryWatch;

/*
 * MemoryWatch on a JVM against the stand-in android.* classes
 * (tests/android-memory-watch.py): a real probe ring in FILES, the watch
 * installed with the default interval (1000 ms), the system's trim
 * callbacks fired through what it registered, then bursts of stageEnded()
 * whose samples are counted by the stand-ins' getMemoryInfo() calls and by
 * the ring's records (read through TestNative.records(), the analyzer's
 * reader).
 *
 * The rate limit, in bounds only: whenever the count is read, samples <=
 * 1 + (time since the first request) / interval, which no slowness of the
 * machine can break (a late thread only makes fewer); 50 requests give at
 * least one sample and at most two (the first, and the coalesced rest),
 * never 50; one request long after gives exactly one more. Waits for a
 * sample have a deadline of 60 s, and only a sample that never comes
 * fails them.
 *
 * Then a watch with no interval: a garbage or missing summary.graphics
 * writes no graphics record; below API 23 (-Dandroid.sdk) none is read.
 * close() unregisters, stops the thread, and nothing samples after it.
 * Prints "ok ..." and exits 0, or "FAIL: ..." lines and exits 1.
 *
 * usage: AndroidMemory FILES
 */
public final class AndroidMemory {
	static final int GRAPHICS = 13, PRESSURE = 14, MEMORY = 10; /* ring-format(5), 14.2 */
	static final int TRIM = 1, MEMORY_INFO = 2;                 /* 14.13 */
	static final long INTERVAL_MS = MemoryWatch.DEFAULT_MIN_INTERVAL_MS;
	static int failures;

	static void check(boolean ok, String what) {
		if (!ok) {
			System.out.println("FAIL: " + what);
			failures++;
		}
	}

	static TestContext ctx;

	/* Waits until the stand-in counted at least n samples (calls of
	 * ActivityManager.getMemoryInfo(), which each sample makes): false
	 * after 60 s. */
	static boolean awaitSamples(int n) throws InterruptedException {
		long end = System.nanoTime() + 60_000_000_000L;
		while (ctx.am.memoryInfoCalls.get() < n) {
			if (System.nanoTime() > end)
				return false;
			Thread.sleep(5);
		}
		return true;
	}

	/* The bound of the rate limit at this moment, since first (ns). */
	static long bound(long first) {
		return 1 + (System.nanoTime() - first) / (INTERVAL_MS * 1000000L);
	}

	static boolean samplerAlive() {
		for (Thread t : Thread.getAllStackTraces().keySet())
			if (t.getName().equals("lastwords-memory") && t.isAlive())
				return true;
		return false;
	}

	static List<long[]> records(String ring, int type, int code) {
		long[] v = TestNative.records(ring, type);
		if (v == null)
			throw new IllegalStateException(ring + ": the ring cannot be read");
		List<long[]> out = new ArrayList<long[]>();
		for (int i = 0; i + 5 <= v.length; i += 5)
			if (code < 0 || v[i] == code)
				out.add(new long[] { v[i], v[i + 1], v[i + 2], v[i + 3], v[i + 4] });
		return out;
	}

	/* Below API 23, getMemoryStat() does not exist: the watch reads no
	 * graphics, and still the system's memory. */
	static void belowApi23(Probe probe, String ring) throws InterruptedException {
		MemoryWatch w = MemoryWatch.install(ctx, probe, 0);
		w.stageEnded();
		check(awaitSamples(1), "below API 23: no sample in 60 s");
		w.close();
		probe.close();
		check(Debug.memoryInfoCalls.get() == 0, "below API 23: Debug.getMemoryInfo() is not called");
		check(records(ring, GRAPHICS, -1).isEmpty(), "below API 23: no graphics record");
		check(records(ring, PRESSURE, MEMORY_INFO).size() == 1, "below API 23: one memory_info record");
		System.out.println((failures == 0 ? "ok " : "failed ") + "below API 23: no graphics");
		System.exit(failures == 0 ? 0 : 1);
	}

	static final com.sun.management.ThreadMXBean MX =
			(com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

	/* Bytes that n rounds of stageEnded() and the trim callbacks allocated
	 * on this thread beyond the counter's own cost, the least of three
	 * (as tests/java/JvmAlloc.java measures the facade's event calls). */
	static long allocated(MemoryWatch w, ComponentCallbacks2 cb, int n) {
		long tid = Thread.currentThread().getId();
		long overhead = Long.MAX_VALUE, best = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			long a = MX.getThreadAllocatedBytes(tid);
			overhead = Math.min(overhead, MX.getThreadAllocatedBytes(tid) - a);
		}
		for (int round = 0; round < 3; round++) {
			long a = MX.getThreadAllocatedBytes(tid);
			for (int i = 0; i < n; i++) {
				w.stageEnded();
				cb.onTrimMemory(ComponentCallbacks2.TRIM_MEMORY_BACKGROUND);
				((ComponentCallbacks) cb).onLowMemory();
			}
			best = Math.min(best, MX.getThreadAllocatedBytes(tid) - a - overhead);
		}
		return best;
	}

	/* The caller's side allocates nothing: stageEnded() (the first of a
	 * burst wakes the thread, the rest coalesce) and the trim callbacks. */
	static void allocation(Probe probe) throws InterruptedException {
		MX.setThreadAllocatedMemoryEnabled(true);
		MemoryWatch w = MemoryWatch.install(ctx, probe, 86400000L);
		ComponentCallbacks2 cb = (ComponentCallbacks2) ctx.callbacks.get(0);
		allocated(w, cb, 10000); /* warm: classes loaded, code compiled */
		check(awaitSamples(1), "allocation: no sample in 60 s");
		long bytes = allocated(w, cb, 100000);
		check(bytes <= 0, "stageEnded() and the trim callbacks allocated " + bytes + " bytes");
		w.close();
		probe.close();
		System.out.println((failures == 0 ? "ok " : "failed ") + bytes
				+ " bytes allocated by 100000 stage ends and 200000 trims");
		System.exit(failures == 0 ? 0 : 1);
	}

	public static void main(String[] args) throws Exception {
		ctx = new TestContext("com.example.app", new File(args[0]), null);
		ctx.am.availMem = 1536L << 20;
		ctx.am.threshold = 216L << 20;
		ctx.am.totalMem = 8L << 30;
		Debug.graphics = "123456";
		Probe probe = Probe.open(args[0], "com.example.app:inference", 42, 0, 0);
		String ring = probe.path();
		if (args.length > 1 && args[1].equals("below-23")) {
			belowApi23(probe, ring);
			return;
		}
		if (args.length > 1 && args[1].equals("allocation")) {
			allocation(probe);
			return;
		}

		MemoryWatch w = MemoryWatch.install(ctx, probe);
		check(ctx.callbacks.size() == 1 && ctx.callbacks.get(0) instanceof ComponentCallbacks2,
				"install() registers one ComponentCallbacks2: " + ctx.callbacks);
		ComponentCallbacks2 cb = (ComponentCallbacks2) ctx.callbacks.get(0);
		int[] levels = { ComponentCallbacks2.TRIM_MEMORY_RUNNING_MODERATE,
				ComponentCallbacks2.TRIM_MEMORY_RUNNING_LOW,
				ComponentCallbacks2.TRIM_MEMORY_RUNNING_CRITICAL,
				ComponentCallbacks2.TRIM_MEMORY_UI_HIDDEN, ComponentCallbacks2.TRIM_MEMORY_BACKGROUND,
				ComponentCallbacks2.TRIM_MEMORY_MODERATE, ComponentCallbacks2.TRIM_MEMORY_COMPLETE };
		for (int level : levels)
			cb.onTrimMemory(level);
		((ComponentCallbacks) cb).onLowMemory();
		check(Debug.memoryInfoCalls.get() == 0, "a trim callback samples nothing");

		/* 50 requests over about 200 ms. */
		long first = System.nanoTime();
		for (int i = 0; i < 50; i++) {
			w.stageEnded();
			int n = Debug.memoryInfoCalls.get();
			check(n <= bound(first), "burst: " + n + " samples after " + (i + 1)
					+ " requests exceed the rate limit");
			Thread.sleep(4);
		}
		check(awaitSamples(1), "50 requests: no sample in 60 s");
		/* Quiet for three intervals: the coalesced sample, if any, came. */
		Thread.sleep(3 * INTERVAL_MS);
		int burst = Debug.memoryInfoCalls.get();
		check(burst >= 1 && burst <= 2, "50 requests give 1 or 2 samples: " + burst);
		check(burst <= bound(first), burst + " samples exceed the rate limit");
		check(ctx.am.memoryInfoCalls.get() == burst,
				"each sample reads ActivityManager.getMemoryInfo once: " + ctx.am.memoryInfoCalls.get()
						+ " for " + burst);

		/* One request, more than an interval after the last sample. */
		ctx.am.lowMemory = true;
		ctx.am.availMem = 200L << 20;
		Debug.graphics = "654321";
		w.stageEnded();
		check(awaitSamples(burst + 1), "a request after the interval: no sample in 60 s");
		Thread.sleep(2 * INTERVAL_MS);
		check(Debug.memoryInfoCalls.get() == burst + 1,
				"one request after the interval gives one sample: " + (Debug.memoryInfoCalls.get() - burst));
		w.close();
		check(ctx.callbacks.isEmpty(), "close() unregisters: " + ctx.callbacks);
		check(!samplerAlive(), "close() stops the sampler thread");
		w.stageEnded();
		w.close();
		int samples = Debug.memoryInfoCalls.get();

		/* No interval: each request samples; garbage figures record no graphics. */
		MemoryWatch z = MemoryWatch.install(ctx, probe, 0);
		String[] garbage = { null, "", "12kB", "-5", " 1", "99999999999999999999", "0x10" };
		for (String g : garbage) {
			Debug.graphics = g;
			int before = ctx.am.memoryInfoCalls.get();
			z.stageEnded();
			check(awaitSamples(before + 1), "interval 0: no sample in 60 s");
		}
		z.close();
		check(!samplerAlive(), "close() stops the second watch's thread");
		int total = Debug.memoryInfoCalls.get();
		Thread.sleep(100);
		check(Debug.memoryInfoCalls.get() == total, "no sample after close()");
		probe.close();

		List<long[]> trims = records(ring, PRESSURE, TRIM);
		StringBuilder got = new StringBuilder();
		for (long[] r : trims)
			got.append(r[1]).append(r[2] == 0 && r[3] == 0 && r[4] == 0 ? " " : "? ");
		check(got.toString().equals("5 10 15 20 40 60 80 80 "),
				"the trim records hold the levels, onLowMemory as 80: " + got);

		List<long[]> graphics = records(ring, GRAPHICS, -1);
		check(graphics.size() == samples, graphics.size() + " graphics records for " + samples
				+ " samples with a figure (none for garbage)");
		for (int i = 0; i < graphics.size(); i++) {
			long[] r = graphics.get(i);
			long want = i < burst ? 123456 : 654321;
			check(r[0] == 1 && r[1] == want && r[2] == 0 && r[3] == 0,
					"graphics record " + i + ": source app, " + want + " kB: code " + r[0] + ", " + r[1]);
		}

		List<long[]> info = records(ring, PRESSURE, MEMORY_INFO);
		check(info.size() == total, info.size() + " memory_info records for " + total + " samples");
		for (int i = 0; i < info.size(); i++) {
			long[] r = info.get(i);
			boolean low = i >= burst;
			long avail = low ? 200 * 1024 : 1536 * 1024;
			check(r[1] == (low ? 1 : 0) && r[2] == avail && r[3] == 216 * 1024,
					"memory_info record " + i + ": lowMemory " + low + ", " + avail + " kB of 221184: "
							+ r[1] + " " + r[2] + " " + r[3]);
		}
		int memory = records(ring, MEMORY, -1).size();
		check(memory >= total, memory + " memory records for " + total + " samples");

		System.out.println((failures == 0 ? "ok " : "failed ") + burst + " samples for 50 requests, "
				+ total + " in all; " + trims.size() + " trims, " + graphics.size() + " graphics, "
				+ info.size() + " memory_info records");
		System.exit(failures == 0 ? 0 : 1);
	}
}
