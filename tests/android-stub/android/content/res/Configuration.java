package android.content.res;

/* Stand-in (tests only): android.content.res.Configuration, API 1, the
 * type of ComponentCallbacks.onConfigurationChanged()'s argument; no
 * member is used. */
public final class Configuration {
}
