package android.os;

import java.util.concurrent.atomic.AtomicInteger;

/* Stand-in (tests only): the members of android.os.Debug that the helpers
 * use, behaving as the Android documentation says; a test plays the system
 * through the fields marked "test". */
public final class Debug {
	/* test: the figure getMemoryStat("summary.graphics") gives (kB as a
	 * decimal string on a device; null: the stat is not known), and the
	 * calls of getMemoryInfo() so far. */
	public static volatile String graphics;
	public static final AtomicInteger memoryInfoCalls = new AtomicInteger();

	private Debug() {
	}

	/* API 1. */
	public static class MemoryInfo {
		private String graphicsStat;

		/* API 1. */
		public MemoryInfo() {
		}

		/* API 23. The stats' values as strings ("summary.graphics": kB);
		 * null for a name it does not know. */
		public String getMemoryStat(String statName) {
			if (Build.VERSION.SDK_INT < 23)
				throw new NoSuchMethodError("android.os.Debug.MemoryInfo.getMemoryStat");
			return "summary.graphics".equals(statName) ? graphicsStat : null;
		}
	}

	/* API 1. Fills memoryInfo with this process's memory now: slow on a
	 * device (it reads /proc/self/smaps), tens of ms. */
	public static void getMemoryInfo(MemoryInfo memoryInfo) {
		memoryInfo.graphicsStat = graphics;
		memoryInfoCalls.incrementAndGet();
	}
}
