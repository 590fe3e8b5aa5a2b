package android.os;

/* Stand-in (tests only): the members of android.os.Build that the helpers
 * read. SDK_INT is no compile-time constant, as on a device (it is read
 * from a property at boot): here from the JVM's -Dandroid.sdk (30 when
 * unset), so a test runs the helpers at the API level it chooses. */
public class Build {
	public static final String MANUFACTURER = System.getProperty("android.manufacturer", "Google");
	public static final String MODEL = System.getProperty("android.model", "Pixel 7");
	public static final String FINGERPRINT = System.getProperty("android.fingerprint",
			"google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys");

	public static class VERSION {
		public static final int SDK_INT = Integer.getInteger("android.sdk", 30);
		public static final String RELEASE = System.getProperty("android.release", "11");
	}

	public static class VERSION_CODES {
		public static final int R = 30;
		public static final int S = 31;
	}
}
