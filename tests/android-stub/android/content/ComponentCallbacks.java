package android.content;

import android.content.res.Configuration;

/* Stand-in (tests only): android.content.ComponentCallbacks, API 1, as the
 * SDK declares it. onLowMemory() is deprecated in API 35: superseded by
 * ComponentCallbacks2.onTrimMemory() since API 14, never called since
 * API 34. */
public interface ComponentCallbacks {
	void onConfigurationChanged(Configuration newConfig);

	void onLowMemory();
}
