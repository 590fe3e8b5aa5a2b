package android.app;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/* Stand-in (tests only): the members of android.app.ActivityManager that
 * the helpers use, behaving as the Android documentation says; a test
 * plays the system through the fields and methods marked "test". */
public class ActivityManager {
	public static class RunningAppProcessInfo {
		public int pid;
		public String processName;

		public RunningAppProcessInfo(String processName, int pid, String[] pkgList) {
			this.processName = processName;
			this.pid = pid;
		}
	}

	/* API 1: the system's memory, as getMemoryInfo() fills it in. */
	public static class MemoryInfo {
		public long availMem;     /* API 1: bytes available to apps */
		public boolean lowMemory; /* API 1: availMem <= threshold: the system kills processes */
		public long threshold;    /* API 1: bytes, the line of lowMemory */
		public long totalMem;     /* API 16: bytes the kernel can use */

		public MemoryInfo() {
		}
	}

	/* test: what the system holds. */
	public final List<ApplicationExitInfo> exits = new ArrayList<ApplicationExitInfo>();
	public final List<RunningAppProcessInfo> running = new ArrayList<RunningAppProcessInfo>();
	public String packageName;
	public byte[] summary;
	public int summaryCalls;
	public volatile long availMem, threshold, totalMem;
	public volatile boolean lowMemory;
	public final AtomicInteger memoryInfoCalls = new AtomicInteger();

	/* API 1. */
	public void getMemoryInfo(MemoryInfo outInfo) {
		outInfo.availMem = availMem;
		outInfo.lowMemory = lowMemory;
		outInfo.threshold = threshold;
		outInfo.totalMem = totalMem;
		memoryInfoCalls.incrementAndGet();
	}

	/* API 30. At most 128 bytes: more throws IllegalArgumentException. A
	 * later call replaces what an earlier one set. */
	public void setProcessStateSummary(byte[] state) {
		requireApi(30, "setProcessStateSummary");
		if (state != null && state.length > 128)
			throw new IllegalArgumentException("state is larger than 128 bytes");
		summaryCalls++;
		summary = state == null ? null : state.clone();
	}

	/* API 30. packageName null: the caller's packages; pid 0: every
	 * process; maxNum 0: every record. Newest first. */
	public List<ApplicationExitInfo> getHistoricalProcessExitReasons(String packageName, int pid,
			int maxNum) {
		requireApi(30, "getHistoricalProcessExitReasons");
		if (packageName != null && !packageName.equals(this.packageName))
			throw new SecurityException("another package needs android.permission.DUMP");
		List<ApplicationExitInfo> out = new ArrayList<ApplicationExitInfo>();
		for (ApplicationExitInfo e : exits)
			if ((pid == 0 || e.getPid() == pid) && (maxNum == 0 || out.size() < maxNum))
				out.add(e);
		return out;
	}

	/* The caller's own processes (from API 22); null when none runs. */
	public List<RunningAppProcessInfo> getRunningAppProcesses() {
		return running.isEmpty() ? null : new ArrayList<RunningAppProcessInfo>(running);
	}

	/* What a method that a device of this API level lacks does there. */
	private static void requireApi(int api, String what) {
		if (android.os.Build.VERSION.SDK_INT < api)
			throw new NoSuchMethodError("android.app.ActivityManager." + what);
	}
}
