package android.content;

import java.io.File;

/* Stand-in (tests only): the members of android.content.Context that the
 * helpers use. getExternalFilesDir() may return null (shared storage not
 * mounted). */
public abstract class Context {
	public static final String ACTIVITY_SERVICE = "activity";

	public abstract String getPackageName();

	public abstract File getFilesDir();

	public abstract File getExternalFilesDir(String type);

	public abstract Object getSystemService(String name);

	public abstract void unbindService(ServiceConnection conn);
}
