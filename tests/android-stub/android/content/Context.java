package android.content;

import java.io.File;

/* Stand-in (tests only): the members of android.content.Context that the
 * helpers use. getExternalFilesDir() may return null (shared storage not
 * mounted). The component callbacks are a test's Context's to keep
 * (tests/java/TestContext.java), for it to call as the system does. */
public abstract class Context {
	public static final String ACTIVITY_SERVICE = "activity";

	/* API 14. Not abstract on a device (a Context passes it to its
	 * application's): here a test's Context keeps them. */
	public void registerComponentCallbacks(ComponentCallbacks callback) {
		throw new UnsupportedOperationException("registerComponentCallbacks");
	}

	/* API 14. */
	public void unregisterComponentCallbacks(ComponentCallbacks callback) {
		throw new UnsupportedOperationException("unregisterComponentCallbacks");
	}

	public abstract String getPackageName();

	public abstract File getFilesDir();

	public abstract File getExternalFilesDir(String type);

	public abstract Object getSystemService(String name);

	public abstract void unbindService(ServiceConnection conn);
}
