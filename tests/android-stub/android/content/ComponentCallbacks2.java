package android.content;

/* Stand-in (tests only): android.content.ComponentCallbacks2, API 14, with
 * the SDK's constants. Since API 34 the system sends apps only
 * TRIM_MEMORY_UI_HIDDEN and TRIM_MEMORY_BACKGROUND; the others are not sent
 * there, and deprecated in API 35. */
public interface ComponentCallbacks2 extends ComponentCallbacks {
	int TRIM_MEMORY_COMPLETE = 80;         /* API 14; not sent from API 34, deprecated in 35 */
	int TRIM_MEMORY_MODERATE = 60;         /* API 14; not sent from API 34, deprecated in 35 */
	int TRIM_MEMORY_BACKGROUND = 40;       /* API 14 */
	int TRIM_MEMORY_UI_HIDDEN = 20;        /* API 14 */
	int TRIM_MEMORY_RUNNING_CRITICAL = 15; /* API 16; not sent from API 34, deprecated in 35 */
	int TRIM_MEMORY_RUNNING_LOW = 10;      /* API 16; not sent from API 34, deprecated in 35 */
	int TRIM_MEMORY_RUNNING_MODERATE = 5;  /* API 16; not sent from API 34, deprecated in 35 */

	void onTrimMemory(int level);
}
