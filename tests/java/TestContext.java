import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import android.app.ActivityManager;
import android.content.ComponentCallbacks;
import android.content.Context;
import android.content.ServiceConnection;

/*
 * The app's Context for the Android helpers' tests (tests/android-*.py),
 * over the stand-in android.* classes of tests/android-stub/: a package
 * name, its files directory, its external files directory (null: shared
 * storage is not mounted) and the system's ActivityManager. It keeps the
 * component callbacks registered (callbacks), for a test to call as the
 * system does.
 */
final class TestContext extends Context {
	final String pkg;
	final File files;
	final File external;
	final ActivityManager am = new ActivityManager();
	final List<ServiceConnection> unbound = new ArrayList<ServiceConnection>();
	final List<ComponentCallbacks> callbacks = new CopyOnWriteArrayList<ComponentCallbacks>();

	TestContext(String pkg, File files, File external) {
		this.pkg = pkg;
		this.files = files;
		this.external = external;
		am.packageName = pkg;
	}

	@Override
	public String getPackageName() {
		return pkg;
	}

	@Override
	public File getFilesDir() {
		return files;
	}

	@Override
	public File getExternalFilesDir(String type) {
		if (type != null)
			throw new IllegalArgumentException("only the root of the external files dir is used");
		return external;
	}

	@Override
	public Object getSystemService(String name) {
		return Context.ACTIVITY_SERVICE.equals(name) ? am : null;
	}

	@Override
	public void registerComponentCallbacks(ComponentCallbacks callback) {
		callbacks.add(callback);
	}

	@Override
	public void unregisterComponentCallbacks(ComponentCallbacks callback) {
		callbacks.remove(callback);
	}

	@Override
	public void unbindService(ServiceConnection conn) {
		unbound.add(conn);
	}
}
